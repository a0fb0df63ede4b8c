//! `stpb_init` and the per-generation pool bring-up `pooling_init` in the
//! step order of DIGEST §2.9:
//!
//! 1. `regs_init` — instruction-debug level (tpb_regs+0x104, NX +0x804, read
//!    run_state +0x14) and the notification SW-queue identity (tpb_regs+0xa00);
//! 2. `ucode_seq_init` — SEQ IRAM/DRAM via `write_padded`, NX registers,
//!    engine_base_address_lo/hi;
//! 3. `q7_ucode_eng_init(owner_idx 0)`;
//!    3b. CAYMAN/MARIANA only: `hw_decode_table_init`;
//! 4. `dma_init` — dma_ctrl 0, the RX/TX rings and mem_window2, dma_ctrl 1;
//! 5. `release_seq_run_stall` — NX +0x04 ← 0;
//! 6. `release_eng_run_stall` — SUNDA: no-op (the SEQ releases the Q7 cores);
//!    CAYMAN/MARIANA: Q7 release_run_stall 0xFF → 0x00.
//!
//! Where the seeds name a step but not its registers, the choice is `[D]`
//! and said so below.

use super::arch::ArchCtx;
use super::error::{HalError, Result};
use super::mmio::Mmio;
use super::q7::{self, SwapRequest, UcodeImages};
use crate::regs::{Field, Reg};
use serde::{Deserialize, Serialize};

/// One SEQ DMA ring (`dma_regs(ring, sel)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingConfig {
    /// Ring base address (written to the ring's base register).
    pub base: u32,
    /// Ring length in descriptors.
    pub length: u32,
}

/// The SEQ iDMA configuration (`cfg+0x18..` rx, `cfg+0x40..` tx, `cfg+0x88` enable).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmaConfig {
    pub rx: RingConfig,
    pub tx: RingConfig,
    /// `[D]` the address-translation window programmed with the RX ring (sel 0).
    pub mem_window2: u64,
}

/// One HW-decode CAM record, 16 bytes (`[D]` layout; DIGEST §4 gives the
/// count and size only): byte 0 flags (bit 0 valid), byte 1 opcode key,
/// byte 2 func/spec key, byte 3 opcode mask, byte 4 func mask (CAYMAN+
/// order: opcode mask first), byte 5 reserved, bytes 6..8 table index (LE),
/// bytes 8..16 reserved (zero).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CamRecord {
    pub valid: bool,
    pub key_opcode: u8,
    pub key_func: u8,
    pub mask_opcode: u8,
    pub mask_func: u8,
    pub table_index: u16,
}

impl CamRecord {
    pub const BYTES: usize = 16;

    pub fn pack(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0] = self.valid as u8;
        b[1] = self.key_opcode;
        b[2] = self.key_func;
        b[3] = self.mask_opcode;
        b[4] = self.mask_func;
        b[6..8].copy_from_slice(&self.table_index.to_le_bytes());
        b
    }

    /// Unpack; reserved bits must be zero.
    pub fn unpack(b: &[u8; 16]) -> Result<CamRecord> {
        if b[0] & !1 != 0 || b[5] != 0 || b[8..].iter().any(|&x| x != 0) {
            return Err(HalError::Invalid(format!("CAM record {b:02x?}: reserved bits are set")));
        }
        Ok(CamRecord { valid: b[0] & 1 != 0, key_opcode: b[1], key_func: b[2], mask_opcode: b[3], mask_func: b[4], table_index: u16::from_le_bytes([b[6], b[7]]) })
    }
}

/// What `hw_decode_table_init` programs (`cfg+0x68`): the CAM records and the handler table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HwDecodeTable {
    pub cam: Vec<CamRecord>,
    pub table: Vec<u8>,
}

/// The pool engine's configuration (the seeds' `stpb` cfg struct, by meaning).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolingConfig {
    /// Value of the instruction-debug level registers.
    pub instr_debug_level: u32,
    /// Engine-id nibble spliced at bits \[23:20\] of notific_sw_queue_num0 (`cfg+0xe4`).
    pub engine_id_a: u8,
    /// Engine-id nibble spliced at \[27:24\] and \[19:16\] (`cfg+0xe8`).
    pub engine_id_b: u8,
    /// SEQ (POOL NX) images.
    pub seq: UcodeImages,
    /// SEQ instruction-fetch base (`cfg+0x10`).
    pub engine_base_address: u64,
    /// Q7 images (`cfg+0x48`).
    pub q7: UcodeImages,
    /// HW-decode CAM/table (`cfg+0x68`), CAYMAN/MARIANA.
    pub hw_decode: HwDecodeTable,
    /// SEQ iDMA rings; None = disabled (`cfg+0x88`).
    pub dma: Option<DmaConfig>,
    /// `[D]` Leave every core run-stalled: `pooling_init` stops after step 4
    /// (`dma_init`), before its releases (steps 5 and 6), so the host can
    /// give each core its input first and then release the cores itself
    /// ([`crate::control::release_nx`], [`crate::control::release_q7`]).
    /// Not in the seeds' configuration; false is their order.
    #[serde(default)]
    pub hold_run_stall: bool,
}

/// `stpb_init`'s own configuration: the notification ring, then the pool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StpbConfig {
    /// `[D]` notification ring base and size (16-byte records).
    pub notific_ring_base: u64,
    pub notific_ring_size: u32,
    pub pooling: PoolingConfig,
}

impl StpbConfig {
    /// `[D]` The notification ring the scenarios and tests use: 256 records at 0x4_8000_0000.
    pub const RING_BASE: u64 = 0x0000_0004_8000_0000;
    pub const RING_RECORDS: u32 = 256;

    /// A configuration that installs `seq` and `q7`, on the ring above with
    /// engine ids A = 2, B = 5 (`[D]`, as the scenarios use them) and nothing
    /// else: debug level 0, fetch base 0, no CAM table, no DMA rings.
    pub fn new(seq: UcodeImages, q7: UcodeImages) -> Self {
        StpbConfig {
            notific_ring_base: Self::RING_BASE,
            notific_ring_size: Self::RING_RECORDS,
            pooling: PoolingConfig { engine_id_a: 0x2, engine_id_b: 0x5, seq, q7, ..PoolingConfig::default() },
        }
    }
}

fn w(mmio: &mut dyn Mmio, base: u64, reg: Reg, value: u32) -> Result<()> {
    Ok(mmio.write32(base + reg.offset as u64, value)?)
}

fn r(mmio: &mut dyn Mmio, base: u64, reg: Reg) -> Result<u32> {
    Ok(mmio.read32(base + reg.offset as u64)?)
}

/// Set one class bit of the notification enable register (read-modify-write).
fn notif_enable(ctx: &ArchCtx, mmio: &mut dyn Mmio, field: Field) -> Result<()> {
    let t = ctx.tpb_regs_base();
    let reg = ctx.regs.tpb.notific_enable;
    let v = r(mmio, t, reg)?;
    w(mmio, t, reg, field.set(v, 1))
}

/// `stpb_init`: notific_init → engine (INST) / EVT_SEM / ERROR notification
/// enables → stpb_regs_init → pooling_init (through the dispatch table).
pub fn stpb_init_common(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &StpbConfig, pooling_init: impl FnOnce(&mut dyn Mmio) -> Result<()>) -> Result<()> {
    let tpb = ctx.regs.tpb;
    notific_init(ctx, mmio, cfg)?;
    mmio.note("stpb_init: stpb_eng_notif_enable (INST)");
    notif_enable(ctx, mmio, tpb.notific_enable_inst)?;
    mmio.note("stpb_init: evsem_notif_enable (EVT_SEM)");
    notif_enable(ctx, mmio, tpb.notific_enable_evt_sem)?;
    mmio.note("stpb_init: error_notif_enable (ERROR)");
    notif_enable(ctx, mmio, tpb.notific_enable_error)?;
    mmio.note("stpb_init: stpb_regs_init (no register writes are known from the seeds)");
    mmio.note("stpb_init: pooling_init (kaena_khal +0x368)");
    pooling_init(mmio)
}

/// `notific_init`: the notification ring's base and size (seed 004 §7).
pub fn notific_init(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &StpbConfig) -> Result<()> {
    let t = ctx.tpb_regs_base();
    let tpb = ctx.regs.tpb;
    mmio.note("stpb_init: notific_init");
    w(mmio, t, tpb.notific_ring_base_lo, cfg.notific_ring_base as u32)?;
    w(mmio, t, tpb.notific_ring_base_hi, (cfg.notific_ring_base >> 32) as u32)?;
    w(mmio, t, tpb.notific_ring_size, cfg.notific_ring_size)
}

/// `arch_stpb_to_instr_debug_level`: the value `instr_debug_level_set`
/// writes to both instruction-debug registers (the SEQ's at `tpb_regs`
/// +0x104 and the NX's at +0x804) for the configuration's level. The seeds
/// name the conversion and where its result goes (seed 004 §7 step 1), not
/// its table: `[D]` the registers take the level unchanged, on every
/// generation. This is the one place a known table would go.
#[doc(alias = "arch_stpb_to_instr_debug_level")]
pub fn stpb_to_instr_debug_level(_ctx: &ArchCtx, level: u32) -> u32 {
    level
}

/// Step 1, `regs_init`.
fn regs_init(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &PoolingConfig) -> Result<()> {
    mmio.note("pooling_init step 1: regs_init (instr_debug_level_set, notific_sw_queue_num0)");
    let t = ctx.tpb_regs_base();
    let nx = ctx.pool_base();
    let regs = &ctx.regs;
    let level = stpb_to_instr_debug_level(ctx, cfg.instr_debug_level);
    w(mmio, t, regs.tpb.seq_instr_dbg_ctrl, level)?;
    w(mmio, nx, regs.nx.instr_dbg_ctrl, level)?;
    let _running = r(mmio, nx, regs.nx.run_state)? & 1;
    let q = r(mmio, t, regs.tpb.notific_sw_queue_num0)?;
    let (a, b) = (cfg.engine_id_a as u32, cfg.engine_id_b as u32);
    let q = regs.tpb.engine_id_b_lo.set(regs.tpb.engine_id_b_hi.set(regs.tpb.engine_id_a.set(q, a), b), b);
    w(mmio, t, regs.tpb.notific_sw_queue_num0, q)
}

/// Step 2, `ucode_seq_init`.
fn ucode_seq_init(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &PoolingConfig, mut swap: Option<&mut dyn FnMut(&SwapRequest) -> i32>) -> Result<()> {
    mmio.note("pooling_init step 2: ucode_seq_init (SEQ IRAM/DRAM, NX registers, engine_base_address)");
    check_seq_sizes(ctx, &cfg.seq)?;
    let p = get_seq_params(ctx);
    let owner = crate::spec::q7_owner::POOLING;
    let sw = swap.as_mut().map(|s| &mut **s as &mut dyn FnMut(&SwapRequest) -> i32);
    q7::write_padded(mmio, p.iram_base, &cfg.seq.iram, p.iram_bytes, sw, owner, "iram")?;
    let sw = swap.as_mut().map(|s| &mut **s as &mut dyn FnMut(&SwapRequest) -> i32);
    q7::write_padded(mmio, p.dram_base, &cfg.seq.dram, p.dram_bytes, sw, owner, "dram")?;
    // init_nx_registers: [D] interrupts disabled, pending interrupt info cleared.
    let nx = ctx.pool_base();
    let regs = &ctx.regs.nx;
    w(mmio, nx, regs.intr_ctrl, 0)?;
    w(mmio, nx, regs.intr_info, 0xffff_ffff)?;
    w(mmio, nx, regs.engine_base_address_lo, cfg.engine_base_address as u32)?;
    w(mmio, nx, regs.engine_base_address_hi, (cfg.engine_base_address >> 32) as u32)
}

/// Step 3b, `hw_decode_table_init` (CAYMAN/MARIANA): the CAM records and the
/// handler table, each zero-padded to its full size, at hw_decode_table_params.
pub fn hw_decode_table_init(ctx: &ArchCtx, mmio: &mut dyn Mmio, t: &HwDecodeTable) -> Result<()> {
    mmio.note("pooling_init step 3b: hw_decode_table_init (CAM records, handler table)");
    let p = get_eng_hw_decode_table_params(ctx)?;
    let cam_bytes = check_hw_decode_sizes(ctx, t)?;
    let cam: Vec<u8> = t.cam.iter().flat_map(|c| c.pack()).collect();
    let owner = crate::spec::q7_owner::POOLING;
    q7::write_padded(mmio, p.cam_base, &cam, cam_bytes, None, owner, "hw_decode cam")?;
    q7::write_padded(mmio, p.table_base, &t.table, p.table_bytes, None, owner, "hw_decode table")
}

/// Where the HW-decode CAM records and the handler table go (absolute BAR0
/// addresses) and their sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwDecodeTableParams {
    /// `hw_decode_table_params` after the secure-bit fold (`[S]` CAYMAN 0x2b88000, seed 004 §6b), in BAR0.
    pub base: u64,
    pub cam_base: u64,
    pub cam_records: u32,
    pub cam_record_bytes: u32,
    pub table_base: u64,
    pub table_bytes: u64,
}

/// `get_eng_hw_decode_table_params` (seed 004 §6, `..._cayman` @0x47af40:
/// the same bit-35 fold of its 0x802b88000 base): the generation's
/// [`HwDecodeTableParams`]; SUNDA has no HW-decode table (an error naming it).
pub fn get_eng_hw_decode_table_params(ctx: &ArchCtx) -> Result<HwDecodeTableParams> {
    let p = ctx.params();
    let hw = &p.hw_decode;
    let base = p.local_reg.hw_decode_table_params.ok_or_else(|| HalError::Invalid(format!("{} has no hw_decode_table_params", ctx.arch)))? + p.bar0.tpb_base;
    Ok(HwDecodeTableParams {
        base,
        cam_base: base + u64::from(hw.cam_offset),
        cam_records: hw.cam_records,
        cam_record_bytes: hw.cam_record_bytes,
        table_base: base + u64::from(hw.table_offset),
        table_bytes: u64::from(hw.table_bytes),
    })
}

/// Step 4, `dma_init`.
fn dma_init(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &PoolingConfig) -> Result<()> {
    mmio.note("pooling_init step 4: dma_init (dma_ctrl 0, rings, mem_window2, dma_ctrl 1)");
    let nx = ctx.pool_base();
    let regs = &ctx.regs.nx;
    w(mmio, nx, regs.dma_ctrl, 0)?;
    if let Some(d) = &cfg.dma {
        // dma_regs(rx, sel 0), then dma_regs(tx, sel 1): [D] base, length, head 0, tail 0.
        for (ring, r) in [(regs.rx_ring, d.rx), (regs.tx_ring, d.tx)] {
            w(mmio, nx, ring[0], r.base)?;
            w(mmio, nx, ring[1], r.length)?;
            w(mmio, nx, ring[2], 0)?;
            w(mmio, nx, ring[3], 0)?;
            if ring[0] == regs.rx_ring[0] {
                w(mmio, nx, regs.mem_window2_lo, d.mem_window2 as u32)?;
                w(mmio, nx, regs.mem_window2_hi, (d.mem_window2 >> 32) as u32)?;
            }
        }
    }
    w(mmio, nx, regs.dma_ctrl, 1)
}

/// Step 5, `release_seq_run_stall`: NX +0x04 ← 0, the SEQ runs.
fn release_seq_run_stall(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
    mmio.note("pooling_init step 5: release_seq_run_stall (NX +0x04 <- 0)");
    w(mmio, ctx.pool_base(), ctx.regs.nx.release_run_stall, 0)
}

/// With [`PoolingConfig::hold_run_stall`], steps 5 and 6 are the host's to do.
fn held(mmio: &mut dyn Mmio, cfg: &PoolingConfig) -> bool {
    if cfg.hold_run_stall {
        mmio.note("pooling_init steps 5 and 6 held (hold_run_stall): every core stays run-stalled until the host releases it");
    }
    cfg.hold_run_stall
}

/// SEQ image sizes against the SEQ memories (step 2).
/// Where the SEQ's IRAM and DRAM are (absolute BAR0 addresses) and how
/// large: what `ucode_seq_init` checks the images against and writes them
/// to (seed 004 §6 STEP 2, `get_seq_params_sunda`; the seeds show SUNDA's
/// getter only, CAYMAN/MARIANA take the same from their maps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqParams {
    pub iram_base: u64,
    pub iram_bytes: u64,
    pub dram_base: u64,
    pub dram_bytes: u64,
}

/// `get_seq_params`: the generation's [`SeqParams`] (`arch.toml [bar0]`).
pub fn get_seq_params(ctx: &ArchCtx) -> SeqParams {
    let b = &ctx.params().bar0;
    SeqParams { iram_base: b.tpb_base + b.seq_iram.base, iram_bytes: b.seq_iram.size, dram_base: b.tpb_base + b.seq_dram.base, dram_bytes: b.seq_dram.size }
}

fn check_seq_sizes(ctx: &ArchCtx, seq: &UcodeImages) -> Result<()> {
    let p = get_seq_params(ctx);
    if seq.iram.len() as u64 > p.iram_bytes {
        return Err(HalError::SeqImageTooBig { mem: "IRAM", size: seq.iram.len() as u64, max: p.iram_bytes });
    }
    if seq.dram.len() as u64 > p.dram_bytes {
        return Err(HalError::SeqImageTooBig { mem: "DRAM", size: seq.dram.len() as u64, max: p.dram_bytes });
    }
    Ok(())
}

/// HW-decode CAM records and table against the generation's sizes (step 3b);
/// the CAM region size in bytes on success.
fn check_hw_decode_sizes(ctx: &ArchCtx, t: &HwDecodeTable) -> Result<u64> {
    let hw = &ctx.params().hw_decode;
    let cam_bytes = hw.cam_records as u64 * hw.cam_record_bytes as u64;
    if t.cam.len() > hw.cam_records as usize {
        return Err(HalError::TooBig { what: "HW-decode CAM records".into(), size: (t.cam.len() * CamRecord::BYTES) as u64, max: cam_bytes });
    }
    if t.table.len() as u64 > hw.table_bytes as u64 {
        return Err(HalError::TooBig { what: "HW-decode table".into(), size: t.table.len() as u64, max: hw.table_bytes as u64 });
    }
    Ok(cam_bytes)
}

/// The size checks of steps 2, 3 and 3b, done before the first access so a
/// bring-up with an image that cannot fit changes nothing.
fn precheck(ctx: &ArchCtx, cfg: &PoolingConfig, q7_owner: u32, hw_decode: bool) -> Result<()> {
    check_seq_sizes(ctx, &cfg.seq)?;
    q7::check_image_sizes(ctx, &cfg.q7, q7_owner)?;
    if hw_decode {
        check_hw_decode_sizes(ctx, &cfg.hw_decode)?;
    }
    Ok(())
}

/// `stpb_sunda_pooling_init`.
pub fn pooling_init_sunda(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &PoolingConfig, mut swap: Option<&mut dyn FnMut(&SwapRequest) -> i32>) -> Result<()> {
    precheck(ctx, cfg, crate::spec::q7_owner::POOLING, false)?;
    regs_init(ctx, mmio, cfg)?;
    ucode_seq_init(ctx, mmio, cfg, swap.as_mut().map(|s| &mut **s as &mut dyn FnMut(&SwapRequest) -> i32))?;
    mmio.note("pooling_init step 3: q7_ucode_eng_init (owner_idx 0)");
    q7::ucode_eng_init(ctx, mmio, ctx.params().bar0.tpb_base, &cfg.q7, swap, 0)?;
    dma_init(ctx, mmio, cfg)?;
    if held(mmio, cfg) {
        return Ok(());
    }
    release_steps(ctx, mmio)
}

/// `stpb_cayman_pooling_init` / `stpb_mariana_pooling_init`.
pub fn pooling_init_v3(ctx: &ArchCtx, mmio: &mut dyn Mmio, cfg: &PoolingConfig, mut swap: Option<&mut dyn FnMut(&SwapRequest) -> i32>) -> Result<()> {
    precheck(ctx, cfg, crate::spec::q7_owner::POOLING, true)?;
    regs_init(ctx, mmio, cfg)?;
    ucode_seq_init(ctx, mmio, cfg, swap.as_mut().map(|s| &mut **s as &mut dyn FnMut(&SwapRequest) -> i32))?;
    mmio.note("pooling_init step 3: q7_ucode_eng_init (owner_idx 0)");
    q7::ucode_eng_init(ctx, mmio, ctx.params().bar0.tpb_base, &cfg.q7, swap, 0)?;
    hw_decode_table_init(ctx, mmio, &cfg.hw_decode)?;
    dma_init(ctx, mmio, cfg)?;
    if held(mmio, cfg) {
        return Ok(());
    }
    release_steps(ctx, mmio)
}

/// Steps 5 and 6 of `pooling_init`, the releases, as the generation does
/// them: the SEQ, then (CAYMAN/MARIANA) the Q7 cores; on SUNDA the SEQ
/// releases the Q7 cores itself. What a host that held them
/// ([`PoolingConfig::hold_run_stall`]) calls once the inputs are in.
pub fn release_steps(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
    release_seq_run_stall(ctx, mmio)?;
    if ctx.arch == tpb_regmap::Arch::Sunda {
        mmio.note("pooling_init step 6: release_eng_run_stall: SUNDA no-op (the SEQ releases the Q7 cores)");
        return Ok(());
    }
    mmio.note("pooling_init step 6: release_eng_run_stall (Q7 release_run_stall 0xff -> 0x00)");
    let q7_base = ctx.pool_base();
    w(mmio, q7_base, ctx.regs.q7_release_run_stall, 0x00)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `StpbConfig::new` sets the images, the `[D]` ring and engine ids, and nothing else.
    #[test]
    fn new_config_takes_the_images_and_the_documented_defaults() {
        let (seq, q7) = (UcodeImages { iram: vec![1; 8], dram: vec![2; 4] }, UcodeImages { iram: vec![3; 8], dram: vec![] });
        let c = StpbConfig::new(seq.clone(), q7.clone());
        assert_eq!((c.notific_ring_base, c.notific_ring_size), (0x4_8000_0000, 256));
        let want = PoolingConfig { engine_id_a: 2, engine_id_b: 5, seq, q7, ..PoolingConfig::default() };
        assert_eq!(c.pooling, want);
    }
}
