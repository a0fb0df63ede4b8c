//! Per-generation parameters that are not registers (`arch.toml` beside the
//! block files): identities, Q7 geometry, local-register bases, TOP_SP
//! routing. Every number's provenance is written next to it in the file.

use serde::{Deserialize, Serialize};

/// `get_q7_params` tuple for one owner (DIGEST §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Q7Params {
    /// al_hal_q7_owner value (2 = POOLING_Q7, 5 = COMPUTE_CLUSTER_Q7).
    pub owner: u32,
    pub base_offset: u64,
    pub iram_size: u64,
    pub dram_size: u64,
    pub iram_rsvd: u64,
    pub dram_rsvd: u64,
    pub num_q7: u32,
}

/// Q7 geometry per owner; `compute_cluster` is absent where the generation
/// is pooling-only (SUNDA).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Q7Owners {
    pub pooling: Q7Params,
    #[serde(default)]
    pub compute_cluster: Option<Q7Params>,
    /// SUNDA: the SEQ, not the host, releases the Q7 cores, "via
    /// EVT_SEM/run_state" (`[S]` seed 004 §7.1: SUNDA's host writer of the
    /// Q7 release_run_stall is a no-op stub). How is ours (`[D]`): a SET of
    /// POOL EVT_SEM semaphore `seq_release_sem` releases the Q7 cores whose
    /// bits its value sets (bit n: core n; until reset), and `run_state_n`
    /// shows them running. None: the host releases them through
    /// `release_run_stall` (CAYMAN, MARIANA).
    #[serde(default)]
    pub seq_release_sem: Option<u32>,
}

/// Boot facts of the firmware images (DIGEST §1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Boot {
    /// Target of the NX primary reset vector's `j` (None: not in the seeds).
    pub nx_reset_jump: Option<u32>,
    /// The NX enter_run address the trampoline jumps to.
    pub nx_enter_run: Option<u32>,
    /// Target of the Q7 reset vector's `j`.
    pub q7_reset_jump: Option<u32>,
    /// POOL control window base as seen from the cores.
    pub pool_control_window_base: Option<u32>,
    /// start_ctrl / run_state addresses within that window where stated.
    #[serde(default)]
    pub pool_start_ctrl: Option<u32>,
    #[serde(default)]
    pub pool_run_state: Option<u32>,
}

/// Per-engine-type local-register bases (DIGEST §2.6), relative to tpb_base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalRegBases {
    /// Number of engine types the table accepts (eng_type above asserts).
    pub engine_types: u32,
    /// Bases per engine type, in eng_type order; `[D]` where the seeds lost them.
    pub pe: u64,
    pub act: u64,
    pub pool: u64,
    pub dve: u64,
    pub top_sp: u64,
    #[serde(default)]
    pub tpb_sp: Option<u64>,
    /// Q7 arm: base for owner 0 and owner != 0.
    pub q7_owner0: u64,
    pub q7_owner1: u64,
    /// Secure PEB_APB_IO aperture bit folded off in the host view (CAYMAN: 35).
    #[serde(default)]
    pub secure_fold_bit: Option<u32>,
    /// hw_decode_table_params base after the fold (CAYMAN: 0x2b88000).
    #[serde(default)]
    pub hw_decode_table_params: Option<u64>,
}

/// TOP_SP routing and SPAD sizes (DIGEST §3, §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopSp {
    /// Runtime-usable TOP_SP count per worker (MAX_TOP_SP_PER_MLA).
    pub count: u32,
    /// `sp_base_addresses` table, where the seeds give it.
    #[serde(default)]
    pub sp_base: Vec<u64>,
    /// Semaphore routing: instance << `instance_shift`.
    pub instance_shift: u32,
    /// Die-mirror bit for sp_id >= `die_from_sp_id`.
    pub die_bit: u32,
    pub die_from_sp_id: u32,
    /// `[D]` Where, in each instance's `1 << instance_shift` span of the SoC
    /// map, the TPB's whole BAR0 appears: `sp_base + soc_tpb_window + a`
    /// reaches BAR0 address `a` (the span's start is the TOP_SP's
    /// local-register aperture). The seeds give a TOP_SP's SoC address only
    /// for its semaphores; this is how the model's DMA reaches another
    /// die's DMA SRAM.
    pub soc_tpb_window: u64,
    #[serde(default)]
    pub spad_ctrl_size: Option<u32>,
    #[serde(default)]
    pub spad_slot_size: Option<u32>,
    #[serde(default)]
    pub spad_slot_staging_offset: Option<u32>,
}

/// HW-decode / PROF CAM facts (DIGEST §1, §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HwDecode {
    pub present: bool,
    #[serde(default)]
    pub cam_records: u32,
    #[serde(default)]
    pub cam_record_bytes: u32,
    #[serde(default)]
    pub table_bytes: u32,
    /// `[D]` CAM records start at `hw_decode_table_params + cam_offset`.
    #[serde(default)]
    pub cam_offset: u32,
    /// `[D]` the handler table starts at `hw_decode_table_params + table_offset`.
    #[serde(default)]
    pub table_offset: u32,
}

/// A byte range of BAR0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub base: u64,
    pub size: u64,
}

impl Region {
    pub fn end(&self) -> u64 {
        self.base + self.size
    }
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.base && addr < self.end()
    }
}

/// `[D]` The BAR0 address map of one TPB beyond what the seeds state: where
/// the TPB sits, the local-register aperture size, the TPB-level registers
/// and the SEQ memories. The Q7 memories come from `[q7.*]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bar0 {
    /// `tpb_base` of `get_xt_local_reg_offset`.
    pub tpb_base: u64,
    /// Size of each engine's local-register aperture.
    pub local_reg_size: u64,
    pub tpb_regs: Region,
    pub seq_iram: Region,
    pub seq_dram: Region,
    /// The SEQ DMA engine's window: its descriptor/data SRAM and status
    /// registers (`tpb_hdl::seq_dma`).
    pub seq_dma: Region,
    /// The notification unit's ring SRAM (`tpb_hdl::notific`): 16-byte records.
    pub notific_ring: Region,
    /// TOP_SP CTRL SPAD (its SRAM); `[top_sp] spad_ctrl_size` bytes.
    pub top_sp_ctrl_spad: u64,
    /// TOP_SP SLOT SPAD (its TPB IRAM); `[top_sp] spad_slot_size` bytes.
    pub top_sp_slot_spad: u64,
}

/// One named BAR0 region of a generation (see [`ArchParams::bar0_regions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar0Region {
    pub name: String,
    pub kind: RegionKind,
    pub region: Region,
}

/// What lives in a BAR0 region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionKind {
    /// An engine's local-register aperture.
    LocalReg(crate::Engine),
    /// The TPB-level registers.
    TpbRegs,
    /// Plain memory (IRAM/DRAM/tables).
    Memory,
    /// A hand-written block's registers (`Aperture::hand_written`), named
    /// after the engine it serves. [`crate::space::AddressSpace`] adds these;
    /// [`ArchParams::bar0_regions`] does not (they lie in or beside its
    /// memory regions).
    Block { aperture: crate::Aperture, engine: crate::Engine },
}

/// Per-core Q7 memory layout for one owner (`[D]` stride, `[S]` sizes: seed 004 §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Q7Layout {
    pub params: Q7Params,
    /// Distance between consecutive cores' apertures.
    pub core_stride: u64,
}

impl Q7Layout {
    /// BAR0 address of core `n`'s IRAM.
    pub fn iram(&self, core: u32) -> u64 {
        self.params.base_offset + core as u64 * self.core_stride
    }
    /// BAR0 address of core `n`'s DRAM (after the IRAM and its reserved tail).
    pub fn dram(&self, core: u32) -> u64 {
        self.iram(core) + self.params.iram_size + self.params.iram_rsvd
    }
}

/// `[D]` How a simulation of the generation reads in real time: the seeds
/// state no clock, so the period is our choice, a parameter per generation.
/// Waves are written in picoseconds with a cycle of this length; cycle `c`'s
/// inputs are driven at `c * period` (clock low) and its rising edge is at
/// `c * period + period / 2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sim {
    /// One clock cycle, in picoseconds (even, so the rising edge falls on a
    /// whole picosecond).
    pub clock_period_ps: u64,
}

impl Sim {
    /// The clock frequency in MHz this period gives.
    pub fn clock_mhz(&self) -> f64 {
        1e6 / self.clock_period_ps as f64
    }
}

/// Everything in `arch.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchParams {
    /// Product generation number (v2/v3/v4).
    pub version: u32,
    pub arch_id: u32,
    pub coretype: u32,
    /// HAL `hal_target` value (0 = INVALID).
    pub hal_arch_type: u32,
    /// NCFW mesh-event capacity of algo_configs.
    pub mesh_events_capacity: u32,
    /// The 0xf0 NX->Q7 ExtendedInst bridge exists.
    pub extended_inst_bridge: bool,
    pub boot: Boot,
    pub q7: Q7Owners,
    pub local_reg: LocalRegBases,
    pub top_sp: TopSp,
    pub hw_decode: HwDecode,
    pub bar0: Bar0,
    pub sim: Sim,
}

impl ArchParams {
    /// `get_q7_params(owner)`; None where the generation has no such owner.
    pub fn q7_params(&self, owner: u32) -> Option<&Q7Params> {
        if self.q7.pooling.owner == owner {
            Some(&self.q7.pooling)
        } else {
            self.q7.compute_cluster.as_ref().filter(|p| p.owner == owner)
        }
    }

    /// Per-core memory layout of the Q7 cluster of `owner`.
    pub fn q7_layout(&self, owner: u32) -> Option<Q7Layout> {
        self.q7_params(owner).map(|p| Q7Layout { params: *p, core_stride: p.iram_size + p.iram_rsvd + p.dram_size + p.dram_rsvd })
    }

    /// BAR0 base of an engine's local-register aperture (`tpb_base + table`);
    /// None where the generation has no such engine or for the TPB itself.
    pub fn local_reg_base(&self, engine: crate::Engine) -> Option<u64> {
        use crate::Engine::*;
        let l = &self.local_reg;
        let off = match engine {
            Pe => Some(l.pe),
            Act => Some(l.act),
            Pool => Some(l.pool),
            Dve => Some(l.dve),
            TpbSp => l.tpb_sp,
            TopSp => Some(l.top_sp),
            Tpb => None,
        }?;
        Some(self.bar0.tpb_base + off)
    }

    /// BAR0 address of `aperture` as engine `e` reaches it (`e` matters for
    /// the local-register aperture only); None where the generation has no
    /// such aperture.
    pub fn aperture_base(&self, aperture: crate::Aperture, e: crate::Engine) -> Option<u64> {
        let tb = self.bar0.tpb_base;
        match aperture {
            crate::Aperture::LocalReg => self.local_reg_base(e),
            crate::Aperture::TpbRegs => Some(tb + self.bar0.tpb_regs.base),
            crate::Aperture::SeqDma => Some(tb + self.bar0.seq_dma.base),
            crate::Aperture::HwDecode => self.local_reg.hw_decode_table_params.filter(|_| self.hw_decode.present).map(|b| tb + b),
        }
    }

    /// Every decoded BAR0 region of one TPB, in address order: the engines'
    /// local-register apertures, the TPB-level registers, the SEQ memories,
    /// the pooling Q7 cores' IRAM/DRAM and the HW-decode CAM/table.
    pub fn bar0_regions(&self) -> Vec<Bar0Region> {
        use crate::Engine::*;
        let mut v = Vec::new();
        for e in [Pe, Act, Pool, Dve, TpbSp, TopSp] {
            if let Some(base) = self.local_reg_base(e) {
                v.push(Bar0Region { name: format!("{}.local_reg", e.name()), kind: RegionKind::LocalReg(e), region: Region { base, size: self.bar0.local_reg_size } });
            }
        }
        let tb = self.bar0.tpb_base;
        let mem = |name: String, base: u64, size: u64| Bar0Region { name, kind: RegionKind::Memory, region: Region { base, size } };
        v.push(Bar0Region { name: "tpb_regs".into(), kind: RegionKind::TpbRegs, region: Region { base: tb + self.bar0.tpb_regs.base, size: self.bar0.tpb_regs.size } });
        v.push(mem("seq.iram".into(), tb + self.bar0.seq_iram.base, self.bar0.seq_iram.size));
        v.push(mem("seq.dram".into(), tb + self.bar0.seq_dram.base, self.bar0.seq_dram.size));
        v.push(mem("seq.dma".into(), tb + self.bar0.seq_dma.base, self.bar0.seq_dma.size));
        v.push(mem("notific.ring".into(), tb + self.bar0.notific_ring.base, self.bar0.notific_ring.size));
        if let Some(size) = self.top_sp.spad_ctrl_size {
            v.push(mem("top_sp.ctrl_spad".into(), tb + self.bar0.top_sp_ctrl_spad, size as u64));
        }
        if let Some(size) = self.top_sp.spad_slot_size {
            v.push(mem("top_sp.slot_spad".into(), tb + self.bar0.top_sp_slot_spad, size as u64));
        }
        if let Some(l) = self.q7_layout(self.q7.pooling.owner) {
            for n in 0..l.params.num_q7 {
                v.push(mem(format!("q7[{n}].iram"), tb + l.iram(n), l.params.iram_size));
                v.push(mem(format!("q7[{n}].dram"), tb + l.dram(n), l.params.dram_size));
            }
        }
        if let (true, Some(base)) = (self.hw_decode.present, self.local_reg.hw_decode_table_params) {
            let cam = self.hw_decode.cam_records as u64 * self.hw_decode.cam_record_bytes as u64;
            v.push(mem("hw_decode.cam".into(), tb + base + self.hw_decode.cam_offset as u64, cam));
            v.push(mem("hw_decode.table".into(), tb + base + self.hw_decode.table_offset as u64, self.hw_decode.table_bytes as u64));
        }
        v.sort_by_key(|r| r.region.base);
        v
    }
}
