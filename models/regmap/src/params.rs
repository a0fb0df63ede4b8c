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
}
