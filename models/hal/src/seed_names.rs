//! The seeds' HAL functions by their names, so an engineer who reads the
//! seeds finds each one here: the name as the seeds give it, less the
//! vendor's prefix (`aws_`; the project keeps vendor names out of its API),
//! with the full name as a rustdoc alias (search the docs for
//! `aws_hal_get_eng_hw_decode_table_params_cayman` and this module's
//! function comes up). A per-generation variant (`*_sunda`, `*_cayman`,
//! `*_mariana`) is a thin function over the generic one on that
//! generation's built-in map; a generic one takes the [`Hal`] it dispatches
//! through. [`SEED_NAMES`] lists every name this module offers, and
//! [`NOT_MODELLED`] the seed names it does not, with why; docs/hal.md shows
//! both (a test keeps the page and the lists together).

use crate::{pooling, q7, top_sp, FileIoTable, Hal, HalError, Mmio, PoolingConfig, Q7Params, Result, StpbConfig, SwapFn, UcodeImages};
use tpb_regmap::Arch;

/// One seed name the HAL offers: the seeds' name, this module's function,
/// what it does here, and where the seeds give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedName {
    pub seed: &'static str,
    pub function: &'static str,
    pub what: &'static str,
    pub cite: &'static str,
}

macro_rules! seed_names {
    ($($seed:literal => $f:ident, $what:literal, $cite:literal;)*) => {
        /// Every seed name the HAL offers, in the order of this module.
        pub const SEED_NAMES: &[SeedName] = &[$(SeedName { seed: $seed, function: stringify!($f), what: $what, cite: $cite }),*];
    };
}

seed_names! {
    "aws_hal_get_q7_params" => hal_get_q7_params, "the Q7 geometry of an owner (base, IRAM/DRAM sizes and reserved tails, cores), through the dispatch table", "seed 004 §2, §3";
    "aws_hal_get_q7_params_sunda" => hal_get_q7_params_sunda, "SUNDA's: owner 2 only, else an error", "seed 004 §3.1";
    "aws_hal_get_q7_params_cayman" => hal_get_q7_params_cayman, "CAYMAN's: owners 2 and 5", "seed 004 §3.2";
    "aws_hal_get_q7_params_mariana" => hal_get_q7_params_mariana, "MARIANA's (byte-identical to CAYMAN's)", "seed 004 §3.2";
    "aws_hal_q7_ucode_eng_init" => hal_q7_ucode_eng_init, "install the Q7 images: sizes checked first, then per core DRAM then IRAM (write_padded)", "seed 004 §4";
    "aws_hal_q7_ucode_eng_init_sunda" => hal_q7_ucode_eng_init_sunda, "SUNDA's (owner_idx 0 only)", "seed 004 §4a";
    "aws_hal_q7_ucode_eng_init_cayman" => hal_q7_ucode_eng_init_cayman, "CAYMAN's (owner_idx 0 -> 2, 1 -> 5)", "seed 004 §4a";
    "aws_hal_q7_ucode_eng_init_mariana" => hal_q7_ucode_eng_init_mariana, "MARIANA's (as CAYMAN's)", "seed 004 §4a";
    "aws_hal_q7_swap_table" => hal_q7_swap_table, "the DKL swap-table triple, through the dispatch table", "seed 004 §5";
    "aws_hal_q7_swap_table_sunda" => hal_q7_swap_table_sunda, "writes nx_rsvd_space0..2 (+0x83c/+0x840/+0x844)", "seed 004 §5a";
    "aws_hal_q7_swap_table_cayman" => hal_q7_swap_table_cayman, "a no-op (returns 0)", "seed 004 §5";
    "aws_hal_q7_swap_table_get_register_offsets" => hal_q7_swap_table_get_register_offsets, "the triple's three addresses, through the dispatch table", "seed 004 §5";
    "aws_hal_q7_swap_table_get_register_offsets_sunda" => hal_q7_swap_table_get_register_offsets_sunda, "the three nx_rsvd_space addresses", "seed 004 §5a";
    "aws_hal_q7_swap_table_get_register_offsets_cayman" => hal_q7_swap_table_get_register_offsets_cayman, "zeroes its three outputs", "seed 004 §5";
    "aws_hal_q7_swap_file_io_table" => hal_q7_swap_file_io_table, "the file-IO table, through the dispatch table", "seed 004 §5";
    "aws_hal_q7_swap_file_io_table_sunda" => hal_q7_swap_file_io_table_sunda, "writes dma_tx_ring_base/length (+0x70/+0x74) and q7_intr_info (+0x838)", "seed 004 §5a";
    "aws_hal_q7_swap_file_io_table_cayman" => hal_q7_swap_file_io_table_cayman, "a no-op", "seed 004 §5";
    "aws_hal_stpb_init" => hal_stpb_init, "notific_init, the three notification enables, regs_init, then pooling_init", "seed 004 §7";
    "aws_hal_notific_init" => hal_notific_init, "the notification ring's base and size", "seed 004 §7";
    "aws_hal_stpb_pooling_init" => hal_stpb_pooling_init, "the pool bring-up, through the dispatch table (kaena_khal +0x368)", "seed 004 §7";
    "aws_hal_stpb_sunda_pooling_init" => hal_stpb_sunda_pooling_init, "SUNDA's: steps 1 to 6, no hw_decode_table_init, the Q7 release a no-op", "seed 004 §7, §7.1";
    "stpb_cayman_pooling_init" => hal_stpb_cayman_pooling_init, "CAYMAN's: steps 1 to 6 with 3b (hw_decode_table_init) and the host's Q7 release", "seed 004 §1, §7";
    "stpb_mariana_pooling_init" => hal_stpb_mariana_pooling_init, "MARIANA's (as CAYMAN's)", "seed 004 §1, §7";
    "aws_hal_stpb_sunda_pooling_release_seq_run_stall" => hal_stpb_sunda_pooling_release_seq_run_stall, "step 5: NX +0x04 <- 0 on the POOL base (eng_type 2, owner 1)", "seed 004 §7.1";
    "aws_hal_stpb_sunda_pooling_release_eng_run_stall" => hal_stpb_sunda_pooling_release_eng_run_stall, "step 6 on SUNDA: the Q7 writer is a no-op stub", "seed 004 §7.1";
    "aws_hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall" => hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall, "writes `value` to base + 0x04", "seed 004 §7.1";
    "aws_hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall" => hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall, "a no-op (repz ret): SUNDA's Q7 cores are released by the SEQ", "seed 004 §7.1";
    "aws_hal_arch__get_xt_local_reg_offset" => hal_arch_get_xt_local_reg_offset, "tpb_base + the engine type's local-register base, the Q7 arm by owner", "seed 004 §6";
    "aws_hal_arch_sunda_get_xt_local_reg_offset" => hal_arch_sunda_get_xt_local_reg_offset, "SUNDA's: 5 engine types, eng_type > 4 an error", "seed 004 §6a";
    "aws_hal_arch_cayman_get_xt_local_reg_offset" => hal_arch_cayman_get_xt_local_reg_offset, "CAYMAN's: 6 engine types, the Q7 arm with bit 35 folded off", "seed 004 §6b";
    "aws_hal_get_eng_hw_decode_table_params_cayman" => hal_get_eng_hw_decode_table_params_cayman, "where the HW-decode CAM and handler table go (0x802b88000, bit 35 folded)", "seed 004 §6b";
    "get_seq_params_sunda" => get_seq_params_sunda, "the SEQ's IRAM and DRAM that ucode_seq_init writes", "seed 004 §7 STEP 2";
    "aws_hal_sp_topsp_set_host_trigger" => hal_sp_topsp_set_host_trigger, "fires host_trigger, through the dispatch table (kaena_khal +0x708)", "seed 001 §2, §3a";
    "aws_hal_sp_topsp_set_host_trigger_cayman" => hal_sp_topsp_set_host_trigger_cayman, "writes 1 to LOCAL_REG + 0x15a0", "seed 001 §3a";
    "set_host_trigger_sunda" => set_host_trigger_sunda, "writes 1 to 0x60848", "seed 001 §3a";
    "aws_reg_sunda_write_top_sp_nx_local_reg_set_host_trigger" => reg_sunda_write_top_sp_nx_local_reg_set_host_trigger, "writes `value` to base + 0x848", "seed 001 §3a";
    "aws_hal_sp_topsp_get_host_trigger_reg_offset" => hal_sp_topsp_get_host_trigger_reg_offset, "host_trigger's offset (kaena_khal +0x710)", "seed 001 §2, §3a";
    "aws_hal_sp_topsp_set_init_signal" => hal_sp_topsp_set_init_signal, "writes 1 to LOCAL_REG + 0x1540 (CAYMAN/MARIANA)", "seed 001 §8";
    "aws_hal_sp_topsp_set_tsync_signal" => hal_sp_topsp_set_tsync_signal, "writes 1 to LOCAL_REG + 0x1560 (CAYMAN/MARIANA)", "seed 001 §8";
    "aws_get_tpb_addr" => get_tpb_addr, "the SoC address of a physical core's TPB (CAYMAN's core 0 only)", "seed 004 §10";
}

/// Seed names the HAL does not offer, and why.
pub const NOT_MODELLED: &[(&str, &str)] = &[
    ("aws_hal_stpb_regs_init", "the seeds name the call in stpb_init, not a register it writes: it is a named step that writes nothing here"),
    ("aws_hal_arch_mariana_get_xt_local_reg_offset", "MARIANA's table was not separately tabled in the seeds (seed 004 §6b NOTE): the generic function uses CAYMAN's shape [I]"),
    ("aws_hal_stpb_act_cam_entry_t", "a type (the activation CAM entry), not a function; the decode CAM's record is ours [D]"),
    ("al_reg_write32, al_reg_read32, al_mem_write_buf", "the physical write primitives: the Mmio transport's write32 / read32 / write_buf"),
];

/// The built-in HAL of `arch` (loaded once).
fn of(arch: Arch) -> Result<&'static Hal> {
    static HALS: std::sync::OnceLock<Vec<std::result::Result<Hal, String>>> = std::sync::OnceLock::new();
    let hals = HALS.get_or_init(|| Arch::ALL.iter().map(|a| Hal::for_arch(*a).map_err(|e| e.to_string())).collect());
    let i = Arch::ALL.iter().position(|a| *a == arch).expect("one of Arch::ALL");
    hals[i].as_ref().map_err(|e| HalError::Invalid(e.clone()))
}

/// `aws_hal_get_q7_params`.
#[doc(alias = "aws_hal_get_q7_params")]
pub fn hal_get_q7_params(hal: &Hal, owner: u32) -> Result<Q7Params> {
    hal.get_q7_params(owner)
}
/// `aws_hal_get_q7_params_sunda`.
#[doc(alias = "aws_hal_get_q7_params_sunda")]
pub fn hal_get_q7_params_sunda(owner: u32) -> Result<Q7Params> {
    of(Arch::Sunda)?.get_q7_params(owner)
}
/// `aws_hal_get_q7_params_cayman`.
#[doc(alias = "aws_hal_get_q7_params_cayman")]
pub fn hal_get_q7_params_cayman(owner: u32) -> Result<Q7Params> {
    of(Arch::Cayman)?.get_q7_params(owner)
}
/// `aws_hal_get_q7_params_mariana`.
#[doc(alias = "aws_hal_get_q7_params_mariana")]
pub fn hal_get_q7_params_mariana(owner: u32) -> Result<Q7Params> {
    of(Arch::Mariana)?.get_q7_params(owner)
}

/// `aws_hal_q7_ucode_eng_init`.
#[doc(alias = "aws_hal_q7_ucode_eng_init")]
pub fn hal_q7_ucode_eng_init(hal: &Hal, mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, swap: SwapFn, owner_idx: u32) -> Result<()> {
    hal.q7_ucode_eng_init(mmio, image_base, imgs, swap, owner_idx)
}
/// `aws_hal_q7_ucode_eng_init_sunda`.
#[doc(alias = "aws_hal_q7_ucode_eng_init_sunda")]
pub fn hal_q7_ucode_eng_init_sunda(mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, swap: SwapFn, owner_idx: u32) -> Result<()> {
    of(Arch::Sunda)?.q7_ucode_eng_init(mmio, image_base, imgs, swap, owner_idx)
}
/// `aws_hal_q7_ucode_eng_init_cayman`.
#[doc(alias = "aws_hal_q7_ucode_eng_init_cayman")]
pub fn hal_q7_ucode_eng_init_cayman(mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, swap: SwapFn, owner_idx: u32) -> Result<()> {
    of(Arch::Cayman)?.q7_ucode_eng_init(mmio, image_base, imgs, swap, owner_idx)
}
/// `aws_hal_q7_ucode_eng_init_mariana`.
#[doc(alias = "aws_hal_q7_ucode_eng_init_mariana")]
pub fn hal_q7_ucode_eng_init_mariana(mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, swap: SwapFn, owner_idx: u32) -> Result<()> {
    of(Arch::Mariana)?.q7_ucode_eng_init(mmio, image_base, imgs, swap, owner_idx)
}

/// `aws_hal_q7_swap_table`.
#[doc(alias = "aws_hal_q7_swap_table")]
pub fn hal_q7_swap_table(hal: &Hal, mmio: &mut dyn Mmio, triple: [u32; 3]) -> Result<()> {
    hal.q7_swap_table(mmio, triple)
}
/// `aws_hal_q7_swap_table_sunda`.
#[doc(alias = "aws_hal_q7_swap_table_sunda")]
pub fn hal_q7_swap_table_sunda(mmio: &mut dyn Mmio, triple: [u32; 3]) -> Result<()> {
    q7::swap_table_sunda(of(Arch::Sunda)?.ctx_checked()?, mmio, triple)
}
/// `aws_hal_q7_swap_table_cayman`.
#[doc(alias = "aws_hal_q7_swap_table_cayman")]
pub fn hal_q7_swap_table_cayman(mmio: &mut dyn Mmio, triple: [u32; 3]) -> Result<()> {
    q7::swap_table_v3(of(Arch::Cayman)?.ctx_checked()?, mmio, triple)
}
/// `aws_hal_q7_swap_table_get_register_offsets`.
#[doc(alias = "aws_hal_q7_swap_table_get_register_offsets")]
pub fn hal_q7_swap_table_get_register_offsets(hal: &Hal) -> Result<[u64; 3]> {
    hal.q7_swap_table_get_register_offsets()
}
/// `aws_hal_q7_swap_table_get_register_offsets_sunda`.
#[doc(alias = "aws_hal_q7_swap_table_get_register_offsets_sunda")]
pub fn hal_q7_swap_table_get_register_offsets_sunda() -> Result<[u64; 3]> {
    Ok(q7::swap_table_offsets_sunda(of(Arch::Sunda)?.ctx_checked()?))
}
/// `aws_hal_q7_swap_table_get_register_offsets_cayman`.
#[doc(alias = "aws_hal_q7_swap_table_get_register_offsets_cayman")]
pub fn hal_q7_swap_table_get_register_offsets_cayman() -> Result<[u64; 3]> {
    Ok(q7::swap_table_offsets_v3(of(Arch::Cayman)?.ctx_checked()?))
}
/// `aws_hal_q7_swap_file_io_table`.
#[doc(alias = "aws_hal_q7_swap_file_io_table")]
pub fn hal_q7_swap_file_io_table(hal: &Hal, mmio: &mut dyn Mmio, t: &FileIoTable) -> Result<()> {
    hal.q7_swap_file_io_table(mmio, t)
}
/// `aws_hal_q7_swap_file_io_table_sunda`.
#[doc(alias = "aws_hal_q7_swap_file_io_table_sunda")]
pub fn hal_q7_swap_file_io_table_sunda(mmio: &mut dyn Mmio, t: &FileIoTable) -> Result<()> {
    q7::swap_file_io_table_sunda(of(Arch::Sunda)?.ctx_checked()?, mmio, t)
}
/// `aws_hal_q7_swap_file_io_table_cayman`.
#[doc(alias = "aws_hal_q7_swap_file_io_table_cayman")]
pub fn hal_q7_swap_file_io_table_cayman(mmio: &mut dyn Mmio, t: &FileIoTable) -> Result<()> {
    q7::swap_file_io_table_v3(of(Arch::Cayman)?.ctx_checked()?, mmio, t)
}

/// `aws_hal_stpb_init`.
#[doc(alias = "aws_hal_stpb_init")]
pub fn hal_stpb_init(hal: &Hal, mmio: &mut dyn Mmio, cfg: &StpbConfig, swap: SwapFn) -> Result<()> {
    hal.stpb_init(mmio, cfg, swap)
}
/// `aws_hal_notific_init`.
#[doc(alias = "aws_hal_notific_init")]
pub fn hal_notific_init(hal: &Hal, mmio: &mut dyn Mmio, cfg: &StpbConfig) -> Result<()> {
    pooling::notific_init(hal.ctx_checked()?, mmio, cfg)
}
/// `aws_hal_stpb_pooling_init`.
#[doc(alias = "aws_hal_stpb_pooling_init")]
pub fn hal_stpb_pooling_init(hal: &Hal, mmio: &mut dyn Mmio, cfg: &PoolingConfig, swap: SwapFn) -> Result<()> {
    hal.pooling_init(mmio, cfg, swap)
}
/// `aws_hal_stpb_sunda_pooling_init`.
#[doc(alias = "aws_hal_stpb_sunda_pooling_init")]
pub fn hal_stpb_sunda_pooling_init(mmio: &mut dyn Mmio, cfg: &PoolingConfig, swap: SwapFn) -> Result<()> {
    pooling::pooling_init_sunda(of(Arch::Sunda)?.ctx_checked()?, mmio, cfg, swap)
}
/// `stpb_cayman_pooling_init`.
#[doc(alias = "stpb_cayman_pooling_init")]
pub fn hal_stpb_cayman_pooling_init(mmio: &mut dyn Mmio, cfg: &PoolingConfig, swap: SwapFn) -> Result<()> {
    pooling::pooling_init_v3(of(Arch::Cayman)?.ctx_checked()?, mmio, cfg, swap)
}
/// `stpb_mariana_pooling_init`.
#[doc(alias = "stpb_mariana_pooling_init")]
pub fn hal_stpb_mariana_pooling_init(mmio: &mut dyn Mmio, cfg: &PoolingConfig, swap: SwapFn) -> Result<()> {
    pooling::pooling_init_v3(of(Arch::Mariana)?.ctx_checked()?, mmio, cfg, swap)
}
/// `aws_hal_stpb_sunda_pooling_release_seq_run_stall`.
#[doc(alias = "aws_hal_stpb_sunda_pooling_release_seq_run_stall")]
pub fn hal_stpb_sunda_pooling_release_seq_run_stall(mmio: &mut dyn Mmio) -> Result<()> {
    let base = hal_arch_sunda_get_xt_local_reg_offset(0, 2, 1)?;
    hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall(mmio, base, 0)
}
/// `aws_hal_stpb_sunda_pooling_release_eng_run_stall`.
#[doc(alias = "aws_hal_stpb_sunda_pooling_release_eng_run_stall")]
pub fn hal_stpb_sunda_pooling_release_eng_run_stall(mmio: &mut dyn Mmio) -> Result<()> {
    let base = hal_arch_sunda_get_xt_local_reg_offset(0, 2, 1)?;
    hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall(mmio, base, 0)
}
/// `aws_hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall`.
#[doc(alias = "aws_hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall")]
pub fn hal_arch_sunda_write_tpb_nx_local_reg_release_run_stall(mmio: &mut dyn Mmio, base: u64, value: u32) -> Result<()> {
    let off = of(Arch::Sunda)?.ctx_checked()?.regs.nx.release_run_stall.offset;
    Ok(mmio.write32(base + off as u64, value)?)
}
/// `aws_hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall`: a no-op.
#[doc(alias = "aws_hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall")]
pub fn hal_arch_sunda_write_tpb_xt_local_reg_q7_release_run_stall(mmio: &mut dyn Mmio, base: u64, value: u32) -> Result<()> {
    let _ = (base, value);
    mmio.note("release_eng_run_stall: SUNDA's Q7 writer is a no-op stub (the SEQ releases the Q7 cores)");
    Ok(())
}

/// `aws_hal_arch__get_xt_local_reg_offset`.
#[doc(alias = "aws_hal_arch__get_xt_local_reg_offset")]
pub fn hal_arch_get_xt_local_reg_offset(hal: &Hal, tpb_base: u64, eng_type: u32, owner: u32) -> Result<u64> {
    Ok(tpb_base + hal.get_xt_local_reg_offset(eng_type, owner)?)
}
/// `aws_hal_arch_sunda_get_xt_local_reg_offset`.
#[doc(alias = "aws_hal_arch_sunda_get_xt_local_reg_offset")]
pub fn hal_arch_sunda_get_xt_local_reg_offset(tpb_base: u64, eng_type: u32, owner: u32) -> Result<u64> {
    hal_arch_get_xt_local_reg_offset(of(Arch::Sunda)?, tpb_base, eng_type, owner)
}
/// `aws_hal_arch_cayman_get_xt_local_reg_offset`.
#[doc(alias = "aws_hal_arch_cayman_get_xt_local_reg_offset")]
pub fn hal_arch_cayman_get_xt_local_reg_offset(tpb_base: u64, eng_type: u32, owner: u32) -> Result<u64> {
    hal_arch_get_xt_local_reg_offset(of(Arch::Cayman)?, tpb_base, eng_type, owner)
}
/// `aws_hal_get_eng_hw_decode_table_params_cayman`.
#[doc(alias = "aws_hal_get_eng_hw_decode_table_params_cayman")]
pub fn hal_get_eng_hw_decode_table_params_cayman() -> Result<pooling::HwDecodeTableParams> {
    of(Arch::Cayman)?.get_eng_hw_decode_table_params()
}
/// `get_seq_params_sunda`.
pub fn get_seq_params_sunda() -> Result<pooling::SeqParams> {
    of(Arch::Sunda)?.get_seq_params()
}

/// `aws_hal_sp_topsp_set_host_trigger`.
#[doc(alias = "aws_hal_sp_topsp_set_host_trigger")]
pub fn hal_sp_topsp_set_host_trigger(hal: &Hal, mmio: &mut dyn Mmio) -> Result<()> {
    hal.topsp_set_host_trigger(mmio)
}
/// `aws_hal_sp_topsp_set_host_trigger_cayman`.
#[doc(alias = "aws_hal_sp_topsp_set_host_trigger_cayman")]
pub fn hal_sp_topsp_set_host_trigger_cayman(mmio: &mut dyn Mmio) -> Result<()> {
    top_sp::set_host_trigger_cayman(of(Arch::Cayman)?.ctx_checked()?, mmio)
}
/// `set_host_trigger_sunda`.
pub fn set_host_trigger_sunda(mmio: &mut dyn Mmio) -> Result<()> {
    top_sp::set_host_trigger_sunda(of(Arch::Sunda)?.ctx_checked()?, mmio)
}
/// `aws_reg_sunda_write_top_sp_nx_local_reg_set_host_trigger`: `value` to base + 0x848.
#[doc(alias = "aws_reg_sunda_write_top_sp_nx_local_reg_set_host_trigger")]
pub fn reg_sunda_write_top_sp_nx_local_reg_set_host_trigger(mmio: &mut dyn Mmio, base: u64, value: u32) -> Result<()> {
    Ok(mmio.write32(base + crate::regs::sunda::top_sp::HOST_TRIGGER.offset as u64, value)?)
}
/// `aws_hal_sp_topsp_get_host_trigger_reg_offset`.
#[doc(alias = "aws_hal_sp_topsp_get_host_trigger_reg_offset")]
pub fn hal_sp_topsp_get_host_trigger_reg_offset(hal: &Hal) -> Result<u64> {
    hal.topsp_get_host_trigger_reg_offset()
}
/// `aws_hal_sp_topsp_set_init_signal`.
#[doc(alias = "aws_hal_sp_topsp_set_init_signal")]
pub fn hal_sp_topsp_set_init_signal(hal: &Hal, mmio: &mut dyn Mmio) -> Result<()> {
    hal.topsp_set_init_signal(mmio)
}
/// `aws_hal_sp_topsp_set_tsync_signal`.
#[doc(alias = "aws_hal_sp_topsp_set_tsync_signal")]
pub fn hal_sp_topsp_set_tsync_signal(hal: &Hal, mmio: &mut dyn Mmio) -> Result<()> {
    hal.topsp_set_tsync_signal(mmio)
}
/// `aws_get_tpb_addr`.
#[doc(alias = "aws_get_tpb_addr")]
pub fn get_tpb_addr(hal: &Hal, pcore: u32) -> Result<u64> {
    hal.tpb_addr(pcore)
}
