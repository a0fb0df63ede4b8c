//! # tpb-hal: the host HAL
//!
//! A transport-agnostic model of the host-side register programmer of one
//! TPB (DIGEST §2): per-generation dispatch through a function table like
//! the seeds' `kaena_khal`, the Q7 ucode install, the pool bring-up, the
//! TOP_SP doorbells and collective-program load. It talks to BAR0 only
//! through [`Mmio`]; [`RegFileModel`] is the in-process golden model behind
//! it and [`Recorder`] logs every access with register names.
//!
//! ```
//! use tpb_hal::{Hal, RegFileModel, Recorder};
//! use tpb_regmap::{builtin, Arch};
//! let hal = Hal::for_arch(Arch::Cayman).unwrap();
//! let mut bar0 = Recorder::new(RegFileModel::new(builtin(Arch::Cayman).unwrap()), builtin(Arch::Cayman).unwrap());
//! hal.topsp_set_host_trigger(&mut bar0).unwrap();
//! assert_eq!(bar0.render(), "W 0x000615a0 top_sp.evt_sem.set[104] (host_trigger) = 0x1\n");
//! assert_eq!(hal.topsp_get_host_trigger_reg_offset().unwrap(), 0x615a0);
//! ```
//!
//! Generic entry points first refuse arch_type INVALID, then an empty slot
//! (the seeds assert in both cases; here both are typed errors).
//!
//! The crate also holds what the HAL is written against: the generated
//! register constants ([`regs`]), the named non-register constants
//! ([`spec`]) and the host-link protocol ([`hostlink`]) its serial
//! transport speaks. The rest of the project names it `tpb_models::hal`.

pub mod arch;
pub mod collective;
pub mod control;
pub mod devmem;
pub mod error;
pub use tpb_spec::hostlink;
pub mod mmio;
pub mod notify;
pub mod pooling;
pub mod q7;
pub mod record;
pub mod regfile;
pub mod regs;
pub mod runtime;
pub mod seed_names;
pub mod serial;
pub mod spec;
pub mod stdio;
pub mod top_sp;
pub mod tsync;
pub mod windows;

pub use arch::ArchCtx;
pub use control::RunState;
pub use devmem::{DevMem, DevMemory, DmaCopy};
pub use error::{printf, HalError, Result};
pub use mmio::{check_buf, padded, Mmio, MmioError};
pub use pooling::{CamRecord, DmaConfig, HwDecodeTable, PoolingConfig, RingConfig, StpbConfig};
pub use q7::{FileIoTable, SwapRequest, UcodeImages};
pub use record::{Entry, Recorder};
pub use regfile::{Event, RegFileModel};
pub use top_sp::SemaphoreAllocator;
pub use tpb_regmap::space::{AddressSpace, Target};

use crate::spec::{khal_slot, HAL_ARCH_TYPE_INVALID};
use tpb_regmap::params::Q7Params;
use tpb_regmap::{Arch, RegMap};

type SwapFn<'a> = Option<&'a mut dyn FnMut(&SwapRequest) -> i32>;

/// Slot signatures of the function table.
pub mod slot_fn {
    use super::*;
    pub type GetQ7Params = fn(&ArchCtx, u32) -> Result<Q7Params>;
    pub type UcodeEngInit = fn(&ArchCtx, &mut dyn Mmio, u64, &UcodeImages, SwapFn, u32) -> Result<()>;
    pub type SwapTable = fn(&ArchCtx, &mut dyn Mmio, [u32; 3]) -> Result<()>;
    pub type SwapOffsets = fn(&ArchCtx) -> [u64; 3];
    pub type SwapFileIo = fn(&ArchCtx, &mut dyn Mmio, &FileIoTable) -> Result<()>;
    pub type PoolingInit = fn(&ArchCtx, &mut dyn Mmio, &PoolingConfig, SwapFn) -> Result<()>;
    pub type Doorbell = fn(&ArchCtx, &mut dyn Mmio) -> Result<()>;
    pub type Offset = fn(&ArchCtx) -> u64;
    pub type SeqParams = fn(&ArchCtx) -> crate::pooling::SeqParams;
    pub type HwDecodeTableParams = fn(&ArchCtx) -> Result<crate::pooling::HwDecodeTableParams>;
}

/// The per-generation function table (the seeds' `kaena_khal`), filled at
/// construction. An empty slot is an error when called, never a panic.
#[derive(Clone, Copy, Default)]
pub struct Khal {
    pub get_q7_params: Option<slot_fn::GetQ7Params>,
    pub q7_ucode_eng_init: Option<slot_fn::UcodeEngInit>,
    pub q7_swap_table: Option<slot_fn::SwapTable>,
    pub q7_swap_table_get_register_offsets: Option<slot_fn::SwapOffsets>,
    pub q7_swap_file_io_table: Option<slot_fn::SwapFileIo>,
    pub pooling_init: Option<slot_fn::PoolingInit>,
    pub topsp_set_host_trigger: Option<slot_fn::Doorbell>,
    pub topsp_get_host_trigger_reg_offset: Option<slot_fn::Offset>,
    pub topsp_set_init_signal: Option<slot_fn::Doorbell>,
    pub topsp_set_tsync_signal: Option<slot_fn::Doorbell>,
    pub topsp_stop: Option<slot_fn::Doorbell>,
    pub get_seq_params: Option<slot_fn::SeqParams>,
    pub get_eng_hw_decode_table_params: Option<slot_fn::HwDecodeTableParams>,
}

impl std::fmt::Debug for Khal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let filled: Vec<&str> = self.slots().into_iter().filter(|(_, _, on)| *on).map(|(n, _, _)| n).collect();
        f.debug_struct("Khal").field("filled", &filled).finish()
    }
}

impl Khal {
    /// Every slot: (name, table offset where the seeds give it, filled?).
    pub fn slots(&self) -> Vec<(&'static str, Option<u32>, bool)> {
        vec![
            ("get_q7_params", Some(khal_slot::GET_Q7_PARAMS), self.get_q7_params.is_some()),
            ("q7_ucode_eng_init", None, self.q7_ucode_eng_init.is_some()),
            ("q7_swap_table", None, self.q7_swap_table.is_some()),
            ("q7_swap_table_get_register_offsets", None, self.q7_swap_table_get_register_offsets.is_some()),
            ("q7_swap_file_io_table", None, self.q7_swap_file_io_table.is_some()),
            ("pooling_init", Some(khal_slot::POOLING_INIT), self.pooling_init.is_some()),
            ("topsp_set_host_trigger", Some(khal_slot::TOPSP_SET_HOST_TRIGGER), self.topsp_set_host_trigger.is_some()),
            ("topsp_get_host_trigger_reg_offset", Some(khal_slot::TOPSP_GET_HOST_TRIGGER_REG_OFFSET), self.topsp_get_host_trigger_reg_offset.is_some()),
            ("topsp_set_init_signal", None, self.topsp_set_init_signal.is_some()),
            ("topsp_set_tsync_signal", None, self.topsp_set_tsync_signal.is_some()),
            ("topsp_stop", None, self.topsp_stop.is_some()),
            ("get_seq_params", None, self.get_seq_params.is_some()),
            ("get_eng_hw_decode_table_params", None, self.get_eng_hw_decode_table_params.is_some()),
        ]
    }

    /// `kaena_khal_register_funcs` for one generation.
    pub fn register(arch: Arch) -> Khal {
        let common = Khal { get_q7_params: Some(q7::get_q7_params), get_seq_params: Some(pooling::get_seq_params), ..Khal::default() };
        match arch {
            Arch::Sunda => Khal {
                q7_ucode_eng_init: Some(q7::ucode_eng_init),
                q7_swap_table: Some(q7::swap_table_sunda),
                q7_swap_table_get_register_offsets: Some(q7::swap_table_offsets_sunda),
                q7_swap_file_io_table: Some(q7::swap_file_io_table_sunda),
                pooling_init: Some(pooling::pooling_init_sunda),
                topsp_set_host_trigger: Some(top_sp::set_host_trigger_sunda),
                topsp_get_host_trigger_reg_offset: Some(top_sp::host_trigger_offset_sunda),
                topsp_stop: Some(top_sp::stop_sunda),
                ..common
            },
            Arch::Cayman | Arch::Mariana => {
                let v3 = Khal {
                    q7_ucode_eng_init: Some(q7::ucode_eng_init),
                    q7_swap_table: Some(q7::swap_table_v3),
                    q7_swap_table_get_register_offsets: Some(q7::swap_table_offsets_v3),
                    q7_swap_file_io_table: Some(q7::swap_file_io_table_v3),
                    pooling_init: Some(pooling::pooling_init_v3),
                    get_eng_hw_decode_table_params: Some(pooling::get_eng_hw_decode_table_params),
                    ..common
                };
                if arch == Arch::Cayman {
                    Khal {
                        topsp_set_host_trigger: Some(top_sp::set_host_trigger_cayman),
                        topsp_get_host_trigger_reg_offset: Some(top_sp::host_trigger_offset_cayman),
                        topsp_set_init_signal: Some(top_sp::set_init_signal_cayman),
                        topsp_set_tsync_signal: Some(top_sp::set_tsync_signal_cayman),
                        ..v3
                    }
                } else {
                    Khal {
                        topsp_set_host_trigger: Some(top_sp::set_host_trigger_mariana),
                        topsp_get_host_trigger_reg_offset: Some(top_sp::host_trigger_offset_mariana),
                        topsp_set_init_signal: Some(top_sp::set_init_signal_mariana),
                        topsp_set_tsync_signal: Some(top_sp::set_tsync_signal_mariana),
                        ..v3
                    }
                }
            }
        }
    }
}

/// The HAL of one TPB.
#[derive(Debug, Clone)]
pub struct Hal {
    arch_type: u32,
    ctx: Option<ArchCtx>,
    khal: Khal,
    /// `nrt_set_pool_eng_ucode`'s registered Q7 images: when set they
    /// override the configuration's at `stpb_init`.
    pool_eng_ucode: Option<UcodeImages>,
}

impl Hal {
    /// A HAL for `hal_target` = `arch_type`: 0 (INVALID) and 1 (legacy)
    /// build a HAL whose calls fail with typed errors, 2/3/4 load the
    /// built-in maps of SUNDA/CAYMAN/MARIANA, anything else is refused.
    pub fn new(arch_type: u32) -> Result<Hal> {
        if arch_type > 4 {
            return Err(HalError::ArchOutOfRange(arch_type));
        }
        for arch in Arch::ALL {
            let map = tpb_regmap::builtin(arch).map_err(|e| HalError::Invalid(e.to_string()))?;
            if map.params.hal_arch_type == arch_type {
                return Ok(Hal::with_map(map));
            }
        }
        Ok(Hal { arch_type, ctx: None, khal: Khal::default(), pool_eng_ucode: None })
    }

    /// The HAL of a built-in generation.
    pub fn for_arch(arch: Arch) -> Result<Hal> {
        let map = tpb_regmap::builtin(arch).map_err(|e| HalError::Invalid(e.to_string()))?;
        Ok(Hal::with_map(map))
    }

    /// The HAL of a generation described by `map` (e.g. a user's edited maps).
    pub fn with_map(map: RegMap) -> Hal {
        let arch = map.arch;
        Hal { arch_type: map.params.hal_arch_type, khal: Khal::register(arch), ctx: Some(ArchCtx::new(arch, map)), pool_eng_ucode: None }
    }

    pub fn arch_type(&self) -> u32 {
        self.arch_type
    }
    pub fn khal(&self) -> &Khal {
        &self.khal
    }
    /// The generation context (None for INVALID / legacy).
    pub fn ctx(&self) -> Option<&ArchCtx> {
        self.ctx.as_ref()
    }

    /// The dispatch check of every generic entry point.
    fn slot<F: Copy>(&self, name: &'static str, f: Option<F>) -> Result<(&ArchCtx, F)> {
        if self.arch_type == HAL_ARCH_TYPE_INVALID {
            return Err(HalError::ArchInvalid);
        }
        match (&self.ctx, f) {
            (Some(ctx), Some(f)) => Ok((ctx, f)),
            _ => Err(HalError::SlotEmpty {
                slot: name,
                offset: self.khal.slots().iter().find(|s| s.0 == name).and_then(|s| s.1),
                arch_type: self.arch_type,
                arch: self.ctx.as_ref().map(|c| c.arch),
            }),
        }
    }

    /// `get_seq_params` (seed: `get_seq_params_sunda`): the SEQ's IRAM and DRAM.
    pub fn get_seq_params(&self) -> Result<pooling::SeqParams> {
        let (ctx, f) = self.slot("get_seq_params", self.khal.get_seq_params)?;
        Ok(f(ctx))
    }

    /// `get_eng_hw_decode_table_params` (seed: `..._cayman`): where the
    /// HW-decode CAM and handler table go; SUNDA's slot is empty (no CAM).
    pub fn get_eng_hw_decode_table_params(&self) -> Result<pooling::HwDecodeTableParams> {
        let (ctx, f) = self.slot("get_eng_hw_decode_table_params", self.khal.get_eng_hw_decode_table_params)?;
        f(ctx)
    }

    /// `aws_hal_get_q7_params(owner)`.
    pub fn get_q7_params(&self, owner: u32) -> Result<Q7Params> {
        let (ctx, f) = self.slot("get_q7_params", self.khal.get_q7_params)?;
        f(ctx, owner)
    }

    /// `aws_hal_q7_ucode_eng_init(handle, image_base, imgs, swap_cb, swap_ctx, owner_idx)`.
    pub fn q7_ucode_eng_init(&self, mmio: &mut dyn Mmio, image_base: u64, imgs: &UcodeImages, swap: SwapFn, owner_idx: u32) -> Result<()> {
        let (ctx, f) = self.slot("q7_ucode_eng_init", self.khal.q7_ucode_eng_init)?;
        f(ctx, mmio, image_base, imgs, swap, owner_idx)
    }

    /// `aws_hal_q7_swap_table`.
    pub fn q7_swap_table(&self, mmio: &mut dyn Mmio, triple: [u32; 3]) -> Result<()> {
        let (ctx, f) = self.slot("q7_swap_table", self.khal.q7_swap_table)?;
        f(ctx, mmio, triple)
    }

    /// `aws_hal_q7_swap_table_get_register_offsets`.
    pub fn q7_swap_table_get_register_offsets(&self) -> Result<[u64; 3]> {
        let (ctx, f) = self.slot("q7_swap_table_get_register_offsets", self.khal.q7_swap_table_get_register_offsets)?;
        Ok(f(ctx))
    }

    /// `aws_hal_q7_swap_file_io_table`.
    pub fn q7_swap_file_io_table(&self, mmio: &mut dyn Mmio, t: &FileIoTable) -> Result<()> {
        let (ctx, f) = self.slot("q7_swap_file_io_table", self.khal.q7_swap_file_io_table)?;
        f(ctx, mmio, t)
    }

    /// `aws_hal_stpb_pooling_init` (kaena_khal +0x368).
    pub fn pooling_init(&self, mmio: &mut dyn Mmio, cfg: &PoolingConfig, swap: SwapFn) -> Result<()> {
        let (ctx, f) = self.slot("pooling_init", self.khal.pooling_init)?;
        f(ctx, mmio, cfg, swap)
    }

    /// `aws_hal_stpb_init`: notification ring and enables, then `pooling_init`
    /// with `cfg` as given (the registered Q7 images of
    /// [`Hal::set_pool_eng_ucode`] enter earlier, in [`Hal::init`]'s
    /// configuration, as in the seeds' chain).
    pub fn stpb_init(&self, mmio: &mut dyn Mmio, cfg: &StpbConfig, swap: SwapFn) -> Result<()> {
        let (ctx, f) = self.slot("pooling_init", self.khal.pooling_init)?;
        pooling::stpb_init_common(ctx, mmio, cfg, |m| f(ctx, m, &cfg.pooling, swap))
    }

    /// `nrt_set_pool_eng_ucode(iram, dram)`: register Q7 images that
    /// override the stock ones of the configuration [`Hal::init`] builds
    /// (`None` goes back to the stock images). Their sizes are checked
    /// when `init` installs them, before anything is written.
    pub fn set_pool_eng_ucode(&mut self, images: Option<UcodeImages>) {
        self.pool_eng_ucode = images;
    }

    /// `tpb_eng_init_hals_v2`: the configuration [`Hal::init`] hands to
    /// `stpb_init` (see [`runtime::eng_init_hals`]).
    #[doc(alias = "tpb_eng_init_hals_v2")]
    pub fn eng_init_hals(&self, stock: &StpbConfig) -> StpbConfig {
        runtime::eng_init_hals(stock, self.pool_eng_ucode.as_ref())
    }

    /// `nrt_init`: the runtime's bring-up of this TPB: [`Hal::eng_init_hals`]
    /// on the stock configuration, then [`Hal::stpb_init`] with the result
    /// (seed 004 §10).
    #[doc(alias = "nrt_init")]
    pub fn init(&self, mmio: &mut dyn Mmio, stock: &StpbConfig, swap: SwapFn) -> Result<()> {
        mmio.note("init: eng_init_hals (the configuration, registered Q7 images over the stock ones)");
        let cfg = self.eng_init_hals(stock);
        self.stpb_init(mmio, &cfg, swap)
    }

    /// `aws_get_tpb_addr(pcore)`: the SoC address of a physical core's TPB
    /// (see [`runtime::tpb_addr`]: known for CAYMAN's core 0 only).
    #[doc(alias = "aws_get_tpb_addr")]
    pub fn tpb_addr(&self, pcore: u32) -> Result<u64> {
        let ctx = self.ctx.as_ref().ok_or(HalError::ArchInvalid)?;
        runtime::tpb_addr(ctx, pcore)
    }

    /// `aws_hal_sp_topsp_set_host_trigger` (kaena_khal +0x708, the write).
    pub fn topsp_set_host_trigger(&self, mmio: &mut dyn Mmio) -> Result<()> {
        let (ctx, f) = self.slot("topsp_set_host_trigger", self.khal.topsp_set_host_trigger)?;
        f(ctx, mmio)
    }

    /// `aws_hal_sp_topsp_get_host_trigger_reg_offset` (+0x710, the getter).
    pub fn topsp_get_host_trigger_reg_offset(&self) -> Result<u64> {
        let (ctx, f) = self.slot("topsp_get_host_trigger_reg_offset", self.khal.topsp_get_host_trigger_reg_offset)?;
        Ok(f(ctx))
    }

    /// `aws_hal_sp_topsp_set_init_signal` (CAYMAN/MARIANA).
    pub fn topsp_set_init_signal(&self, mmio: &mut dyn Mmio) -> Result<()> {
        let (ctx, f) = self.slot("topsp_set_init_signal", self.khal.topsp_set_init_signal)?;
        f(ctx, mmio)
    }

    /// `aws_hal_sp_topsp_set_tsync_signal` (CAYMAN/MARIANA).
    pub fn topsp_set_tsync_signal(&self, mmio: &mut dyn Mmio) -> Result<()> {
        let (ctx, f) = self.slot("topsp_set_tsync_signal", self.khal.topsp_set_tsync_signal)?;
        f(ctx, mmio)
    }

    /// TOP_SP stop doorbell (SUNDA).
    pub fn topsp_stop(&self, mmio: &mut dyn Mmio) -> Result<()> {
        let (ctx, f) = self.slot("topsp_stop", self.khal.topsp_stop)?;
        f(ctx, mmio)
    }

    /// `read_config_addr` ([`tsync::read_config_addr`]).
    pub fn read_config_addr(&self, sp_id: u32) -> Result<u64> {
        tsync::read_config_addr(self.ctx_checked()?, sp_id)
    }

    /// `get_ack_evt_addr_for_topsp_engine` ([`tsync::get_ack_evt_addr_for_topsp_engine`]).
    pub fn get_ack_evt_addr_for_topsp_engine(&self, sp_id: u32) -> Result<u64> {
        tsync::get_ack_evt_addr_for_topsp_engine(self.ctx_checked()?, sp_id)
    }

    /// The TPB timestamp, snapshotted as the firmware does ([`tsync::timestamp`]).
    pub fn timestamp(&self, mmio: &mut dyn Mmio) -> Result<u64> {
        tsync::timestamp(self.ctx_checked()?, mmio)
    }

    /// Start the TPB timestamp adding `inc` per cycle, or stop it ([`tsync::timestamp_run`]).
    pub fn timestamp_run(&self, mmio: &mut dyn Mmio, inc: Option<u32>) -> Result<()> {
        tsync::timestamp_run(self.ctx_checked()?, mmio, inc)
    }

    /// Add `delta` to the TPB timestamp ([`tsync::timestamp_adjust`]).
    pub fn timestamp_adjust(&self, mmio: &mut dyn Mmio, delta: i64) -> Result<()> {
        tsync::timestamp_adjust(self.ctx_checked()?, mmio, delta)
    }

    /// Read and consume the notification ring ([`notify::read`]).
    pub fn read_notifications(&self, mmio: &mut dyn Mmio) -> Result<notify::Batch> {
        notify::read(self.ctx_checked()?, mmio)
    }

    /// `encd_get_trigger_host_addr` ([`top_sp::get_trigger_host_addr`]).
    pub fn get_trigger_host_addr(&self, sp_id: u32, idx: u32, bar_vaddr: u64) -> Result<u64> {
        top_sp::get_trigger_host_addr(self.ctx_checked()?, sp_id, idx, bar_vaddr)
    }

    /// Restart NX core `e` at `addr` ([`control::start_nx`]).
    pub fn start_nx(&self, mmio: &mut dyn Mmio, e: tpb_regmap::Engine, addr: u32) -> Result<()> {
        control::start_nx(self.ctx_checked()?, mmio, e, addr)
    }

    /// Read the SEQ's console text retired on the stdio TX ring since the last drain ([`stdio::drain`]).
    pub fn drain_stdio(&self, mmio: &mut dyn Mmio, r: &mut stdio::Reader) -> Result<stdio::Drained> {
        stdio::drain(self.ctx_checked()?, mmio, r)
    }

    /// Program window `n` of POOL's address-translation bundle, or disable it ([`windows::set_window`]).
    pub fn set_window(&self, mmio: &mut dyn Mmio, n: usize, w: Option<windows::Window>) -> Result<()> {
        windows::set_window(self.ctx_checked()?, mmio, n, w)
    }

    /// Point the SEQ's mem_window2 at `dst` ([`windows::set_mem_window2`]).
    pub fn set_mem_window2(&self, mmio: &mut dyn Mmio, dst: u64) -> Result<()> {
        windows::set_mem_window2(self.ctx_checked()?, mmio, dst)
    }

    /// Hold NX core `e` for debug ([`control::halt_nx`]).
    pub fn halt_nx(&self, mmio: &mut dyn Mmio, e: tpb_regmap::Engine) -> Result<()> {
        control::halt_nx(self.ctx_checked()?, mmio, e)
    }

    /// NX core `e`'s run_state.
    pub fn nx_run_state(&self, mmio: &mut dyn Mmio, e: tpb_regmap::Engine) -> Result<RunState> {
        control::nx_run_state(self.ctx_checked()?, mmio, e)
    }

    /// Restart the Q7 cores of the mask `cores` at `addr` ([`control::start_q7`]).
    pub fn start_q7(&self, mmio: &mut dyn Mmio, cores: u8, addr: u32) -> Result<()> {
        control::start_q7(self.ctx_checked()?, mmio, cores, addr)
    }

    /// `pooling_init`'s steps 5 and 6 (the releases) for a host that held
    /// them ([`pooling::release_steps`]).
    pub fn stpb_release(&self, mmio: &mut dyn Mmio) -> Result<()> {
        pooling::release_steps(self.ctx_checked()?, mmio)
    }

    /// Release NX core `e` from run-stall ([`control::release_nx`]).
    pub fn release_nx(&self, mmio: &mut dyn Mmio, e: tpb_regmap::Engine) -> Result<()> {
        control::release_nx(self.ctx_checked()?, mmio, e)
    }

    /// Release the Q7 cores of the mask `cores` from run-stall ([`control::release_q7`]).
    pub fn release_q7(&self, mmio: &mut dyn Mmio, cores: u8) -> Result<()> {
        control::release_q7(self.ctx_checked()?, mmio, cores)
    }

    /// Q7 core `core`'s run_state.
    pub fn q7_run_state(&self, mmio: &mut dyn Mmio, core: u32) -> Result<RunState> {
        control::q7_run_state(self.ctx_checked()?, mmio, core)
    }

    /// `get_xt_local_reg_offset(tpb_base, eng_type, owner)`.
    pub fn get_xt_local_reg_offset(&self, eng_type: u32, owner: u32) -> Result<u64> {
        let ctx = self.ctx_checked()?;
        ctx.xt_local_reg_offset(eng_type, owner)
    }

    /// `encd_get_trigger_addr`: SoC address of TOP_SP `sp_id`'s INC slot `idx`.
    pub fn get_trigger_addr(&self, sp_id: u32, idx: u32) -> Result<u64> {
        top_sp::get_trigger_addr(self.ctx_checked()?, sp_id, idx)
    }

    /// Runtime-usable TOP_SP count (`tdrv_arch_get_num_topsp_*`).
    pub fn num_topsp(&self) -> Result<u32> {
        Ok(self.ctx_checked()?.params().top_sp.count)
    }

    /// The CTRL and SLOT SPAD sizes, with both images checked against them.
    fn spad_sizes(&self, ctrl: &[u8], slot: &[u8]) -> Result<(u64, u64)> {
        let ctx = self.ctx_checked()?;
        let p = ctx.params();
        let size = |s: Option<u32>, what: &str| s.map(|v| v as u64).ok_or_else(|| HalError::Invalid(format!("{}: no {what} size", ctx.arch)));
        let (cs, ss) = (size(p.top_sp.spad_ctrl_size, "CTRL SPAD")?, size(p.top_sp.spad_slot_size, "SLOT SPAD")?);
        if ctrl.len() as u64 > cs {
            return Err(HalError::TooBig { what: "TOPSP CTRL SPAD".into(), size: ctrl.len() as u64, max: cs });
        }
        if slot.len() as u64 > ss {
            return Err(HalError::TooBig { what: "TOPSP SLOT SPAD".into(), size: slot.len() as u64, max: ss });
        }
        self.slot("topsp_set_host_trigger", self.khal.topsp_set_host_trigger)?;
        Ok((cs, ss))
    }

    /// The CTRL SPAD → TOP_SP SRAM and SLOT SPAD → TPB IRAM loads by
    /// programmed I/O, each zero-padded to its size and checked before
    /// anything is written, then the host_trigger kick (DIGEST §6). The
    /// seeds' way is [`Hal::stage_spad_and_kick`].
    pub fn load_spad_and_kick(&self, mmio: &mut dyn Mmio, ctrl: &[u8], slot: &[u8]) -> Result<()> {
        let (cs, ss) = self.spad_sizes(ctrl, slot)?;
        let p = self.ctx_checked()?.params();
        let tb = p.bar0.tpb_base;
        mmio.note("TOP_SP: load CTRL SPAD to SRAM");
        q7::write_padded(mmio, tb + p.bar0.top_sp_ctrl_spad, ctrl, cs, None, 0, "TOPSP CTRL SPAD")?;
        mmio.note("TOP_SP: load SLOT SPAD to TPB IRAM");
        q7::write_padded(mmio, tb + p.bar0.top_sp_slot_spad, slot, ss, None, 0, "TOPSP SLOT SPAD")?;
        mmio.note("TOP_SP: host_trigger kick");
        self.topsp_set_host_trigger(mmio)
    }

    /// `encd_start_executable`'s SPAD load (DIGEST §6): the CTRL image
    /// staged in device memory at `staging` and the SLOT image at `staging`
    /// plus `[top_sp] spad_slot_staging_offset`, each zero-padded to its SPAD's
    /// size; then the TOP_SP-init DMA queue copies both whole onto the TPB
    /// (CTRL SPAD → SRAM, SLOT SPAD → TPB IRAM) and, once they have landed,
    /// host_trigger is kicked. Sizes, the staging range and every copy are
    /// checked before anything is written.
    pub fn stage_spad_and_kick(&self, io: &mut dyn DevMem, staging: u64, ctrl: &[u8], slot: &[u8]) -> Result<()> {
        let (cs, ss) = self.spad_sizes(ctrl, slot)?;
        let ctx = self.ctx_checked()?;
        let p = ctx.params();
        let off = p.top_sp.spad_slot_staging_offset.ok_or_else(|| HalError::Invalid(format!("{}: no [top_sp] spad_slot_staging_offset", ctx.arch)))?;
        let slot_at = staging.checked_add(u64::from(off)).ok_or(MmioError::DevMem { addr: staging, len: u64::from(off), why: "the SLOT staging address overflows" })?;
        if u64::from(off) < cs {
            return Err(HalError::Invalid(format!("the SLOT staging offset {off:#x} is inside the {cs:#x}-byte CTRL image")));
        }
        DevMemory::check(staging, cs)?;
        DevMemory::check(slot_at, ss)?;
        let tb = p.bar0.tpb_base;
        let pad = |img: &[u8], n: u64| {
            let mut v = img.to_vec();
            v.resize(n as usize, 0);
            v
        };
        io.note("TOP_SP: stage CTRL and SLOT SPADs in device memory");
        io.devmem_write(staging, &pad(ctrl, cs))?;
        io.devmem_write(slot_at, &pad(slot, ss))?;
        io.note("TOP_SP: init DMA: CTRL SPAD to SRAM, SLOT SPAD to TPB IRAM");
        io.init_dma(&[DmaCopy { src: staging, dst: tb + p.bar0.top_sp_ctrl_spad, len: cs }, DmaCopy { src: slot_at, dst: tb + p.bar0.top_sp_slot_spad, len: ss }])?;
        io.note("TOP_SP: host_trigger kick");
        self.topsp_set_host_trigger(io)
    }

    pub(crate) fn ctx_checked(&self) -> Result<&ArchCtx> {
        if self.arch_type == HAL_ARCH_TYPE_INVALID {
            return Err(HalError::ArchInvalid);
        }
        self.ctx.as_ref().ok_or(HalError::SlotEmpty { slot: "arch context", offset: None, arch_type: self.arch_type, arch: None })
    }
}
