//! # TPB top per generation: one BAR0 slave port over every block of one TPB
//!
//! DIGEST §2.6–§2.9, §3–§5. One top per generation ([`SundaTop`],
//! [`CaymanTop`], [`MarianaTop`]; `*TopFpga` are the same tops with
//! FPGA-sized memories). Contents:
//! - six engines (PE, ACT, POOL, DVE, TPB_SP, TOP_SP), each with its
//!   local-register aperture: the generated NX bundle (+0x0000), an
//!   [`EvtSem`] unit (+0x1000), the generated window bundle (+0x2000);
//! - the POOL's generated Q7 bundle (+0x3000) and its [`Q7Cluster`] (8 cores'
//!   IRAM/DRAM at the generation's Q7 `base_offset`);
//! - the TPB-level registers, the SEQ IRAM/DRAM, the TOP_SP CTRL/SLOT SPADs;
//! - the [`SeqDma`] engine on the POOL NX (SEQ) rings, its completion doorbell
//!   wired to the TOP_SP's EVT_SEM doorbell port (DIGEST §5);
//! - SUNDA: the TOP_SP host_trigger/stop registers (TOP_SP +0x848);
//!   CAYMAN/MARIANA: the [`HwDecodeCam`] at `hw_decode_table_params`.
//!
//! ## BAR0 address map
//! Every base and size comes from the generation's `arch.toml`
//! (`[local_reg]`, `[bar0]`, `[q7.pooling]`, `[hw_decode]`) through
//! [`TopLayout::of`]; the per-engine local-register bases the seeds lost are
//! `[D]` values in that data, never in this file. `tpb regmap --arch A`
//! prints the map. An address no block decodes, or a misaligned one, answers
//! `rsp_err` one cycle later and changes nothing. A memory built smaller than
//! its BAR0 region (FPGA builds, `[D]`) reads as zero past the built size and
//! takes writes of zero there (a ucode image's zero pad); a non-zero write
//! there answers `rsp_err`.
//!
//! ## Ports
//! - `clock`, `reset` (synchronous, active high); the BAR0 port `req_*` /
//!   `rsp_*` (protocol of `regblock.rs`: one request per cycle, the response
//!   registered in the next cycle, never back-pressured; a request in a
//!   cycle where `reset` is high is ignored and gets no response);
//! - Q7 core memory ports `q7_if_*`, `q7_ls_*` (arrays of 8, see
//!   [`Q7Cluster`]) and `q7_halted[7:0]` (the behavioural cores' HALT/WAITI);
//! - `nx_halted[5:0]` (engine order PE, ACT, POOL, DVE, TPB_SP, TOP_SP);
//! - observation outputs for waves and the co-simulation: `nx_run_stall[5:0]`,
//!   `q7_run_stall[7:0]`, `sem_notif_valid[5:0]` + `sem_notif_index` (the
//!   lowest engine whose semaphore changed), `dma_db_valid`, `dma_busy`;
//! - CAYMAN/MARIANA: the HW-decode lookup/FIFO port `hwd_*` for the NX core.
//!
//! ## Behaviour across blocks
//! - An NX core's `run_state.running` = `!release_run_stall & !nx_halted[e]`;
//!   Q7 core n's `run_state_n.running` = `!release_run_stall[n] & !q7_halted[n]`.
//! - SUNDA: nothing in the RTL releases the Q7 cores on the host's behalf; the
//!   HAL's `release_eng_run_stall` is a no-op there (DIGEST §2.9 step 6) and
//!   the SEQ firmware writes the Q7 bundle's `release_run_stall`.
//!
//! ```
//! use tpb_hdl::top::{CaymanTopFpga, TopLayout};
//! let map = tpb_models::regmap::builtin(tpb_models::regmap::Arch::Cayman).unwrap();
//! let mut top = CaymanTopFpga::new(&TopLayout::of(&map).unwrap()).unwrap();
//! let v = tpb_hdl::verilog::of(&mut top, "cayman_tpb_top_fpga");
//! assert!(v.contains("module cayman_tpb_top_fpga"));
//! ```

// `update` is written in the subset rust-hdl's hdl_gen translates to Verilog.
#![allow(clippy::nonminimal_bool, clippy::collapsible_if, clippy::collapsible_else_if)]

use crate::evt_sem::EvtSem;
use crate::hw_decode::HwDecodeCam;
use crate::q7_cluster::Q7Cluster;
use crate::seq_dma::SeqDma;
use crate::tcm::Tcm;
use rust_hdl::prelude::*;
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::hw_decode::Outputs as HwdOutputs;
use tpb_models::golden::q7_cluster::PortOut;
use tpb_models::golden::top::{Outputs, Pins};
use tpb_models::regmap::{Arch, Engine, RegMap};

/// Pin-level access to a top, in the golden model's terms (implemented by
/// every generation's top).
pub trait TopPins {
    fn drive_clock(&mut self, level: bool);
    /// Drive this cycle's inputs (`req` on the BAR0 port, the other pins).
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins);
    /// Every output as the golden model reports it (the HW-decode bus
    /// response is part of `rsp`, so `hwd` carries no response of its own).
    fn outputs(&self) -> Outputs;
}

/// The one top-simulation interface (it lives with the golden model); the
/// rust-hdl simulator implements it below: `drive` settles the inputs,
/// `tick` is one rising then falling clock edge.
pub use tpb_models::golden::top::TopSim;

struct Driver<T>(Box<T>);

const SETTLE_ITERS: usize = 10_000;

impl<T: Block + TopPins> TopSim for Driver<T> {
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins) {
        self.0.drive(reset, req, pins);
        assert!(simulate(&mut *self.0, SETTLE_ITERS), "top did not settle");
    }
    fn tick(&mut self) {
        self.0.drive_clock(true);
        assert!(simulate(&mut *self.0, SETTLE_ITERS), "top did not settle");
        self.0.drive_clock(false);
        assert!(simulate(&mut *self.0, SETTLE_ITERS), "top did not settle");
    }
    fn outputs(&self) -> Outputs {
        self.0.outputs()
    }
}

fn driver<T: Block + TopPins + Send + 'static>(t: T) -> Box<dyn TopSim + Send> {
    let mut t = Box::new(t);
    t.connect_all();
    t.drive_clock(false);
    let mut d = Driver(t);
    d.drive(false, None, &Pins::default());
    Box::new(d)
}

/// Run `f` on a thread with a large stack: a top is ~450 KB by value and its
/// construction (with the copies a debug build makes) overflows the 2 MiB
/// stack of a test thread.
pub(crate) fn on_big_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .expect("spawn the construction thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The top of `map`'s generation (full-size memories, or FPGA-sized with
/// `fpga`) under the rust-hdl simulator.
pub fn simulator(map: &RegMap, fpga: bool) -> Result<Box<dyn TopSim + Send>, LayoutError> {
    let lay = TopLayout::of(&map)?;
    let arch = map.arch;
    on_big_stack(move || -> Result<Box<dyn TopSim + Send>, LayoutError> {
        Ok(match (arch, fpga) {
            (Arch::Sunda, false) => driver(SundaTop::new(&lay)?),
            (Arch::Sunda, true) => driver(SundaTopFpga::new(&lay)?),
            (Arch::Cayman, false) => driver(CaymanTop::new(&lay)?),
            (Arch::Cayman, true) => driver(CaymanTopFpga::new(&lay)?),
            (Arch::Mariana, false) => driver(MarianaTop::new(&lay)?),
            (Arch::Mariana, true) => driver(MarianaTopFpga::new(&lay)?),
        })
    })
}

/// Verilog of the top of `map`'s generation, with module name `module`.
pub fn verilog(map: &RegMap, fpga: bool, module: &str) -> Result<String, LayoutError> {
    verilog_by(map, fpga, module, false)
}

/// The full-size top as rust-hdl's own generator wrote it before the lean
/// backend (`crate::verilog::legacy`): for `tpb bench --before` only.
pub fn legacy_verilog(map: &RegMap, module: &str) -> Result<String, LayoutError> {
    verilog_by(map, false, module, true)
}

fn verilog_by(map: &RegMap, fpga: bool, module: &str, legacy: bool) -> Result<String, LayoutError> {
    fn emit<B: Block>(b: &mut B, module: &str, legacy: bool) -> String {
        if legacy {
            crate::verilog::legacy::of(b, module)
        } else {
            crate::verilog::of(b, module)
        }
    }
    let lay = TopLayout::of(&map)?;
    let (arch, module) = (map.arch, module.to_string());
    on_big_stack(move || {
        Ok(match (arch, fpga) {
            (Arch::Sunda, false) => emit(&mut *Box::new(SundaTop::new(&lay)?), &module, legacy),
            (Arch::Sunda, true) => emit(&mut *Box::new(SundaTopFpga::new(&lay)?), &module, legacy),
            (Arch::Cayman, false) => emit(&mut *Box::new(CaymanTop::new(&lay)?), &module, legacy),
            (Arch::Cayman, true) => emit(&mut *Box::new(CaymanTopFpga::new(&lay)?), &module, legacy),
            (Arch::Mariana, false) => emit(&mut *Box::new(MarianaTop::new(&lay)?), &module, legacy),
            (Arch::Mariana, true) => emit(&mut *Box::new(MarianaTopFpga::new(&lay)?), &module, legacy),
        })
    })
}

pub use tpb_models::regmap::layout::{LayoutError, TopLayout, Window, ENGINES};
/// Word-address bits of the SEQ DMA SRAM in every top.
pub const DMA_AW: usize = crate::seq_dma::DEFAULT_AW;

fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).into())
}

/// Check that a memory of `2^aw` words fits its region.
fn fits(what: &str, aw: usize, w: &Window) -> Result<(), LayoutError> {
    let built = 4u64 << aw;
    if built > u64::from(w.size) {
        return Err(LayoutError::TooBig { what: what.to_string(), built, region: u64::from(w.size) });
    }
    Ok(())
}

/// Stamps out one generation's top: the common structure plus the
/// generation's own fields (`extra_fields`), their construction
/// (`extra_init`) and their logic (`extra_update`, spliced into `update`
/// after the common decode, before the unmapped-address check). The first
/// arguments are the caller's `self` and `hdl_gen` tokens: macro hygiene
/// would otherwise keep the spliced logic from naming the `self` of `update`
/// (hdl_gen re-emits the signature with the attribute's own span).
macro_rules! tpb_top {
    (
        $s:tt, $pound:tt $attr:tt,
        $(#[$doc:meta])*
        $name:ident, nx = $nx:ty, win = $win:ty, q7 = $q7:ty, tpb = $tpb:ty,
        extra_fields = { $($extra_fields:tt)* },
        extra_init = |$lay:ident| { $($extra_init:tt)* },
        extra_update = { $($extra_update:tt)* },
        extra_drive = |$pins:ident| { $($extra_drive:tt)* },
        extra_outputs = |$outs:ident| { $($extra_outputs:tt)* }
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub req_valid: Signal<In, Bit>,
            pub req_write: Signal<In, Bit>,
            pub req_addr: Signal<In, Bits<32>>,
            pub req_wdata: Signal<In, Bits<32>>,
            pub rsp_valid: Signal<Out, Bit>,
            pub rsp_rdata: Signal<Out, Bits<32>>,
            pub rsp_err: Signal<Out, Bit>,
            pub nx_halted: Signal<In, Bits<6>>,
            pub q7_halted: Signal<In, Bits<8>>,
            pub nx_run_stall: Signal<Out, Bits<6>>,
            pub q7_run_stall: Signal<Out, Bits<8>>,
            pub sem_notif_valid: Signal<Out, Bits<6>>,
            pub sem_notif_index: Signal<Out, Bits<8>>,
            pub dma_db_valid: Signal<Out, Bit>,
            pub dma_busy: Signal<Out, Bit>,
            pub q7_if_valid: [Signal<In, Bit>; 8],
            pub q7_if_addr: [Signal<In, Bits<32>>; 8],
            pub q7_if_ready: [Signal<Out, Bit>; 8],
            pub q7_if_rvalid: [Signal<Out, Bit>; 8],
            pub q7_if_rdata: [Signal<Out, Bits<32>>; 8],
            pub q7_if_err: [Signal<Out, Bit>; 8],
            pub q7_ls_valid: [Signal<In, Bit>; 8],
            pub q7_ls_write: [Signal<In, Bit>; 8],
            pub q7_ls_addr: [Signal<In, Bits<32>>; 8],
            pub q7_ls_wdata: [Signal<In, Bits<32>>; 8],
            pub q7_ls_wstrb: [Signal<In, Bits<4>>; 8],
            pub q7_ls_ready: [Signal<Out, Bit>; 8],
            pub q7_ls_rvalid: [Signal<Out, Bit>; 8],
            pub q7_ls_rdata: [Signal<Out, Bits<32>>; 8],
            pub q7_ls_err: [Signal<Out, Bit>; 8],
            nx: [$nx; 6],
            sem: [EvtSem; 6],
            win: [$win; 6],
            q7regs: $q7,
            tpb: $tpb,
            cluster: Q7Cluster<QIW, QDW>,
            seq_iram: Tcm<SW>,
            seq_dram: Tcm<SW>,
            ctrl_spad: Tcm<CW>,
            slot_spad: Tcm<LW>,
            dma: SeqDma<DMA_AW>,
            lr_base: [Constant<Bits<32>>; 6],
            lr_mask: Constant<Bits<32>>,
            /// The aperture's blocks (`TopLayout::nx_regs` ...): base and mask.
            nx_base: Constant<Bits<32>>,
            nx_mask: Constant<Bits<32>>,
            sem_base: Constant<Bits<32>>,
            sem_mask: Constant<Bits<32>>,
            win_base: Constant<Bits<32>>,
            win_mask: Constant<Bits<32>>,
            q7r_base: Constant<Bits<32>>,
            q7r_mask: Constant<Bits<32>>,
            is_pool: [Constant<Bit>; 6],
            eng_bit: [Constant<Bits<6>>; 6],
            is_top_sp: [Constant<Bit>; 6],
            tpb_base: Constant<Bits<32>>,
            tpb_mask: Constant<Bits<32>>,
            seq_iram_base: Constant<Bits<32>>,
            seq_dram_base: Constant<Bits<32>>,
            seq_mask: Constant<Bits<32>>,
            seq_built: Constant<Bits<32>>,
            dma_base: Constant<Bits<32>>,
            dma_mask: Constant<Bits<32>>,
            ctrl_base: Constant<Bits<32>>,
            ctrl_mask: Constant<Bits<32>>,
            ctrl_built: Constant<Bits<32>>,
            slot_base: Constant<Bits<32>>,
            slot_mask: Constant<Bits<32>>,
            slot_built: Constant<Bits<32>>,
            q7_base: Constant<Bits<32>>,
            q7_size: Constant<Bits<32>>,
            q7_off: Signal<Local, Bits<32>>,
            q7_sel: Signal<Local, Bit>,
            err_q: DFF<Bit>,
            zero_q: DFF<Bit>,
            zero_ok: Signal<Local, Bit>,
            past_hit: Signal<Local, Bit>,
            aligned: Signal<Local, Bit>,
            req_go: Signal<Local, Bit>,
            hit: Signal<Local, Bit>,
            lr_off: Signal<Local, Bits<32>>,
            mem_off: Signal<Local, Bits<32>>,
            nx_stall: Signal<Local, Bits<6>>,
            notif: Signal<Local, Bits<6>>,
            notif_index: Signal<Local, Bits<8>>,
            notif_found: Signal<Local, Bit>,
            $($extra_fields)*
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> $name<QIW, QDW, SW, CW, LW> {
            /// A top decoding `layout`, or why its memories don't fit it.
            pub fn new(layout: &TopLayout) -> Result<Self, LayoutError> {
                let $lay = layout;
                fits("seq.iram", SW, &$lay.seq_iram)?;
                fits("seq.dram", SW, &$lay.seq_dram)?;
                fits("top_sp.ctrl_spad", CW, &$lay.ctrl_spad)?;
                fits("top_sp.slot_spad", LW, &$lay.slot_spad)?;
                fits("seq.dma", DMA_AW, &Window { base: 0, size: crate::seq_dma::STATUS })?;
                fits("q7 iram", QIW, &Window { base: 0, size: $lay.q7_dram_offset })?;
                fits("q7 dram", QDW, &Window { base: 0, size: $lay.q7_stride - $lay.q7_dram_offset })?;
                if $lay.seq_iram.size != $lay.seq_dram.size {
                    return Err(LayoutError::Bad { what: "seq.iram/seq.dram".into(), detail: "the SEQ memories must be the same size".into() });
                }
                if $lay.q7_dram_offset % (4u32 << QDW) != 0 {
                    return Err(LayoutError::Bad { what: "q7 dram".into(), detail: format!("DRAM offset {:#x} not aligned to the DRAM", $lay.q7_dram_offset) });
                }
                let built = |aw: usize| c32(((4u64 << aw) - 1) as u32 ^ 0xffff_ffff);
                Ok(Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    req_valid: Default::default(),
                    req_write: Default::default(),
                    req_addr: Default::default(),
                    req_wdata: Default::default(),
                    rsp_valid: Default::default(),
                    rsp_rdata: Default::default(),
                    rsp_err: Default::default(),
                    nx_halted: Default::default(),
                    q7_halted: Default::default(),
                    nx_run_stall: Default::default(),
                    q7_run_stall: Default::default(),
                    sem_notif_valid: Default::default(),
                    sem_notif_index: Default::default(),
                    dma_db_valid: Default::default(),
                    dma_busy: Default::default(),
                    q7_if_valid: Default::default(),
                    q7_if_addr: Default::default(),
                    q7_if_ready: Default::default(),
                    q7_if_rvalid: Default::default(),
                    q7_if_rdata: Default::default(),
                    q7_if_err: Default::default(),
                    q7_ls_valid: Default::default(),
                    q7_ls_write: Default::default(),
                    q7_ls_addr: Default::default(),
                    q7_ls_wdata: Default::default(),
                    q7_ls_wstrb: Default::default(),
                    q7_ls_ready: Default::default(),
                    q7_ls_rvalid: Default::default(),
                    q7_ls_rdata: Default::default(),
                    q7_ls_err: Default::default(),
                    nx: std::array::from_fn(|_| Default::default()),
                    sem: {
                        EvtSem::new(&$lay.sem, false)?;
                        std::array::from_fn(|_| EvtSem::new(&$lay.sem, false).expect("the windows were checked above"))
                    },
                    win: std::array::from_fn(|_| Default::default()),
                    q7regs: Default::default(),
                    tpb: Default::default(),
                    cluster: Q7Cluster::new($lay.q7_stride, $lay.q7_dram_offset, $lay.q7_iram_size, $lay.q7_dram_size),
                    seq_iram: Default::default(),
                    seq_dram: Default::default(),
                    ctrl_spad: Default::default(),
                    slot_spad: Default::default(),
                    dma: SeqDma::new(&$lay.inc_slot)?,
                    lr_base: std::array::from_fn(|i| c32($lay.local_reg[i].base)),
                    lr_mask: c32($lay.local_reg[0].mask()),
                    nx_base: c32($lay.nx_regs.base),
                    nx_mask: c32($lay.nx_regs.mask()),
                    sem_base: c32($lay.evt_sem.base),
                    sem_mask: c32($lay.evt_sem.mask()),
                    win_base: c32($lay.win_regs.base),
                    win_mask: c32($lay.win_regs.mask()),
                    q7r_base: c32($lay.q7_regs.base),
                    q7r_mask: c32($lay.q7_regs.mask()),
                    is_pool: std::array::from_fn(|i| Constant::new(ENGINES[i] == Engine::Pool)),
                    eng_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
                    is_top_sp: std::array::from_fn(|i| Constant::new(ENGINES[i] == Engine::TopSp)),
                    tpb_base: c32($lay.tpb_regs.base),
                    tpb_mask: c32($lay.tpb_regs.mask()),
                    seq_iram_base: c32($lay.seq_iram.base),
                    seq_dram_base: c32($lay.seq_dram.base),
                    seq_mask: c32($lay.seq_iram.mask()),
                    seq_built: built(SW),
                    dma_base: c32($lay.seq_dma.base),
                    dma_mask: c32($lay.seq_dma.mask()),
                    ctrl_base: c32($lay.ctrl_spad.base),
                    ctrl_mask: c32($lay.ctrl_spad.mask()),
                    ctrl_built: built(CW),
                    slot_base: c32($lay.slot_spad.base),
                    slot_mask: c32($lay.slot_spad.mask()),
                    slot_built: built(LW),
                    q7_base: c32($lay.q7.base),
                    q7_size: c32($lay.q7.size),
                    q7_off: Default::default(),
                    q7_sel: Default::default(),
                    err_q: Default::default(),
                    zero_q: Default::default(),
                    zero_ok: Default::default(),
                    past_hit: Default::default(),
                    aligned: Default::default(),
                    req_go: Default::default(),
                    hit: Default::default(),
                    lr_off: Default::default(),
                    mem_off: Default::default(),
                    nx_stall: Default::default(),
                    notif: Default::default(),
                    notif_index: Default::default(),
                    notif_found: Default::default(),
                    $($extra_init)*
                })
            }
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> Logic for $name<QIW, QDW, SW, CW, LW> {
            $pound $attr
            fn update(&mut $s) {
                dff_setup!($s, clock, err_q, zero_q);
                $s.aligned.next = !$s.req_addr.val().get_bit(0) & !$s.req_addr.val().get_bit(1);
                $s.lr_off.next = $s.req_addr.val() & !$s.lr_mask.val();
                $s.req_go.next = $s.req_valid.val() & !$s.reset.val();
                $s.hit.next = false;
                $s.rsp_valid.next = $s.err_q.q.val() | $s.zero_q.q.val();
                $s.rsp_err.next = $s.err_q.q.val();
                $s.zero_ok.next = !$s.req_write.val() | ($s.req_wdata.val() == 0);
                $s.past_hit.next = false;
                $s.rsp_rdata.next = 0.into();
                $s.nx_stall.next = 0.into();
                $s.notif.next = 0.into();
                $s.notif_index.next = 0.into();
                // ---- the SEQ DMA's inputs come from the POOL NX bundle ----
                $s.dma.enable.next = false;
                $s.dma.rx_base.next = 0.into();
                $s.dma.rx_length.next = 0.into();
                $s.dma.rx_head.next = 0.into();
                $s.dma.rx_tail_inc.next = 0.into();
                $s.dma.rx_tail_inc_pulse.next = false;
                $s.dma.tx_base.next = 0.into();
                $s.dma.tx_length.next = 0.into();
                $s.dma.tx_head.next = 0.into();
                $s.dma.tx_tail_inc.next = 0.into();
                $s.dma.tx_tail_inc_pulse.next = false;
                $s.dma.db_ready.next = false;
                // ---- engines: NX bundle, EVT_SEM, windows ----
                for i in 0..6 {
                    $s.nx[i].clock.next = $s.clock.val();
                    $s.nx[i].reset.next = $s.reset.val();
                    $s.sem[i].clock.next = $s.clock.val();
                    $s.sem[i].reset.next = $s.reset.val();
                    $s.win[i].clock.next = $s.clock.val();
                    $s.win[i].reset.next = $s.reset.val();
                    $s.nx[i].req_write.next = $s.req_write.val();
                    $s.nx[i].req_addr.next = $s.lr_off.val();
                    $s.nx[i].req_wdata.next = $s.req_wdata.val();
                    $s.sem[i].req_write.next = $s.req_write.val();
                    $s.sem[i].req_addr.next = $s.lr_off.val();
                    $s.sem[i].req_wdata.next = $s.req_wdata.val();
                    $s.win[i].req_write.next = $s.req_write.val();
                    $s.win[i].req_addr.next = $s.lr_off.val();
                    $s.win[i].req_wdata.next = $s.req_wdata.val();
                    $s.nx[i].req_valid.next = false;
                    $s.sem[i].req_valid.next = false;
                    $s.win[i].req_valid.next = false;
                    if $s.req_go.val() & (($s.req_addr.val() & $s.lr_mask.val()) == $s.lr_base[i].val()) {
                        if ($s.lr_off.val() & $s.nx_mask.val()) == $s.nx_base.val() {
                            $s.nx[i].req_valid.next = true;
                            $s.hit.next = true;
                        }
                        if ($s.lr_off.val() & $s.sem_mask.val()) == $s.sem_base.val() {
                            $s.sem[i].req_valid.next = true;
                            $s.hit.next = true;
                        }
                        if ($s.lr_off.val() & $s.win_mask.val()) == $s.win_base.val() {
                            $s.win[i].req_valid.next = true;
                            $s.hit.next = true;
                        }
                    }
                    if $s.nx[i].rsp_valid.val() {
                        $s.rsp_valid.next = true;
                        $s.rsp_err.next = $s.nx[i].rsp_err.val();
                        $s.rsp_rdata.next = $s.nx[i].rsp_rdata.val();
                    }
                    if $s.sem[i].rsp_valid.val() {
                        $s.rsp_valid.next = true;
                        $s.rsp_err.next = $s.sem[i].rsp_err.val();
                        $s.rsp_rdata.next = $s.sem[i].rsp_rdata.val();
                    }
                    if $s.win[i].rsp_valid.val() {
                        $s.rsp_valid.next = true;
                        $s.rsp_err.next = $s.win[i].rsp_err.val();
                        $s.rsp_rdata.next = $s.win[i].rsp_rdata.val();
                    }
                    $s.nx[i].run_state_running_i.next = !$s.nx[i].release_run_stall_stall_o.val() & !$s.nx_halted.val().get_bits::<1>(i);
                    $s.nx[i].run_state_halted_i.next = $s.nx_halted.val().get_bits::<1>(i);
                    $s.nx[i].intr_info_info_set_i.next = 0.into();
                    if $s.nx[i].release_run_stall_stall_o.val() == 1 {
                        $s.nx_stall.next = $s.nx_stall.val() | $s.eng_bit[i].val();
                    }
                    $s.sem[i].db_valid.next = false;
                    $s.sem[i].db_index.next = $s.dma.db_index.val();
                    $s.sem[i].db_amount.next = $s.dma.db_amount.val();
                    if $s.sem[i].notif_valid.val() {
                        $s.notif.next = $s.notif.val() | $s.eng_bit[i].val();
                    }
                    if $s.is_pool[i].val() {
                        $s.dma.enable.next = $s.nx[i].dma_ctrl_enable_o.val() == 1;
                        $s.dma.rx_base.next = $s.nx[i].dma_rx_ring_base_o.val();
                        $s.dma.rx_length.next = $s.nx[i].dma_rx_ring_length_o.val();
                        $s.dma.rx_head.next = $s.nx[i].dma_rx_ring_head_o.val();
                        $s.dma.rx_tail_inc.next = $s.nx[i].dma_rx_ring_tail_inc_o.val();
                        $s.dma.rx_tail_inc_pulse.next = $s.nx[i].dma_rx_ring_tail_inc_pulse_o.val();
                        $s.dma.tx_base.next = $s.nx[i].dma_tx_ring_base_o.val();
                        $s.dma.tx_length.next = $s.nx[i].dma_tx_ring_length_o.val();
                        $s.dma.tx_head.next = $s.nx[i].dma_tx_ring_head_o.val();
                        $s.dma.tx_tail_inc.next = $s.nx[i].dma_tx_ring_tail_inc_o.val();
                        $s.dma.tx_tail_inc_pulse.next = $s.nx[i].dma_tx_ring_tail_inc_pulse_o.val();
                    }
                    if $s.is_top_sp[i].val() {
                        $s.sem[i].db_valid.next = $s.dma.db_valid.val();
                        $s.dma.db_ready.next = $s.sem[i].db_ready.val();
                    }
                }
                // The lowest engine whose semaphore changed names the index.
                $s.notif_found.next = false;
                for i in 0..6 {
                    if $s.sem[i].notif_valid.val() & !$s.notif_found.val() {
                        $s.notif_index.next = $s.sem[i].notif_index.val();
                        $s.notif_found.next = true;
                    }
                }
                $s.nx_run_stall.next = $s.nx_stall.val();
                $s.sem_notif_valid.next = $s.notif.val();
                $s.sem_notif_index.next = $s.notif_index.val();
                // ---- POOL's Q7 bundle (+0x3000) and the cluster ----
                $s.q7regs.clock.next = $s.clock.val();
                $s.q7regs.reset.next = $s.reset.val();
                $s.q7regs.req_write.next = $s.req_write.val();
                $s.q7regs.req_addr.next = $s.lr_off.val();
                $s.q7regs.req_wdata.next = $s.req_wdata.val();
                $s.q7regs.req_valid.next = false;
                for i in 0..6 {
                    if $s.is_pool[i].val() & $s.req_go.val() & (($s.req_addr.val() & $s.lr_mask.val()) == $s.lr_base[i].val()) {
                        if ($s.lr_off.val() & $s.q7r_mask.val()) == $s.q7r_base.val() {
                            $s.q7regs.req_valid.next = true;
                            $s.hit.next = true;
                        }
                    }
                }
                if $s.q7regs.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_err.next = $s.q7regs.rsp_err.val();
                    $s.rsp_rdata.next = $s.q7regs.rsp_rdata.val();
                }
                $s.q7regs.run_state_0_running_i.next = $s.cluster.running.val().get_bits::<1>(0);
                $s.q7regs.run_state_1_running_i.next = $s.cluster.running.val().get_bits::<1>(1);
                $s.q7regs.run_state_2_running_i.next = $s.cluster.running.val().get_bits::<1>(2);
                $s.q7regs.run_state_3_running_i.next = $s.cluster.running.val().get_bits::<1>(3);
                $s.q7regs.run_state_4_running_i.next = $s.cluster.running.val().get_bits::<1>(4);
                $s.q7regs.run_state_5_running_i.next = $s.cluster.running.val().get_bits::<1>(5);
                $s.q7regs.run_state_6_running_i.next = $s.cluster.running.val().get_bits::<1>(6);
                $s.q7regs.run_state_7_running_i.next = $s.cluster.running.val().get_bits::<1>(7);
                $s.q7regs.run_state_0_halted_i.next = $s.q7_halted.val().get_bits::<1>(0);
                $s.q7regs.run_state_1_halted_i.next = $s.q7_halted.val().get_bits::<1>(1);
                $s.q7regs.run_state_2_halted_i.next = $s.q7_halted.val().get_bits::<1>(2);
                $s.q7regs.run_state_3_halted_i.next = $s.q7_halted.val().get_bits::<1>(3);
                $s.q7regs.run_state_4_halted_i.next = $s.q7_halted.val().get_bits::<1>(4);
                $s.q7regs.run_state_5_halted_i.next = $s.q7_halted.val().get_bits::<1>(5);
                $s.q7regs.run_state_6_halted_i.next = $s.q7_halted.val().get_bits::<1>(6);
                $s.q7regs.run_state_7_halted_i.next = $s.q7_halted.val().get_bits::<1>(7);
                $s.q7regs.intr_info_0_info_set_i.next = 0.into();
                $s.q7regs.intr_info_1_info_set_i.next = 0.into();
                $s.q7regs.intr_info_2_info_set_i.next = 0.into();
                $s.q7regs.intr_info_3_info_set_i.next = 0.into();
                $s.q7regs.intr_info_4_info_set_i.next = 0.into();
                $s.q7regs.intr_info_5_info_set_i.next = 0.into();
                $s.q7regs.intr_info_6_info_set_i.next = 0.into();
                $s.q7regs.intr_info_7_info_set_i.next = 0.into();
                $s.cluster.clock.next = $s.clock.val();
                $s.cluster.reset.next = $s.reset.val();
                $s.cluster.run_stall.next = $s.q7regs.release_run_stall_stall_o.val();
                $s.cluster.halted.next = $s.q7_halted.val();
                $s.q7_run_stall.next = $s.q7regs.release_run_stall_stall_o.val();
                $s.q7_off.next = $s.req_addr.val() - $s.q7_base.val();
                $s.q7_sel.next = $s.req_go.val() & ($s.q7_off.val() < $s.q7_size.val());
                $s.cluster.req_valid.next = $s.q7_sel.val();
                $s.cluster.req_write.next = $s.req_write.val();
                $s.cluster.req_addr.next = $s.q7_off.val();
                $s.cluster.req_wdata.next = $s.req_wdata.val();
                if $s.q7_sel.val() {
                    $s.hit.next = true;
                }
                if $s.cluster.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_err.next = $s.cluster.rsp_err.val();
                    $s.rsp_rdata.next = $s.cluster.rsp_rdata.val();
                }
                for i in 0..8 {
                    $s.cluster.if_valid[i].next = $s.q7_if_valid[i].val();
                    $s.cluster.if_addr[i].next = $s.q7_if_addr[i].val();
                    $s.q7_if_ready[i].next = $s.cluster.if_ready[i].val();
                    $s.q7_if_rvalid[i].next = $s.cluster.if_rvalid[i].val();
                    $s.q7_if_rdata[i].next = $s.cluster.if_rdata[i].val();
                    $s.q7_if_err[i].next = $s.cluster.if_err[i].val();
                    $s.cluster.ls_valid[i].next = $s.q7_ls_valid[i].val();
                    $s.cluster.ls_write[i].next = $s.q7_ls_write[i].val();
                    $s.cluster.ls_addr[i].next = $s.q7_ls_addr[i].val();
                    $s.cluster.ls_wdata[i].next = $s.q7_ls_wdata[i].val();
                    $s.cluster.ls_wstrb[i].next = $s.q7_ls_wstrb[i].val();
                    $s.q7_ls_ready[i].next = $s.cluster.ls_ready[i].val();
                    $s.q7_ls_rvalid[i].next = $s.cluster.ls_rvalid[i].val();
                    $s.q7_ls_rdata[i].next = $s.cluster.ls_rdata[i].val();
                    $s.q7_ls_err[i].next = $s.cluster.ls_err[i].val();
                }
                // ---- TPB-level registers ----
                $s.tpb.clock.next = $s.clock.val();
                $s.tpb.reset.next = $s.reset.val();
                $s.tpb.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.tpb_mask.val()) == $s.tpb_base.val());
                $s.tpb.req_write.next = $s.req_write.val();
                $s.tpb.req_addr.next = $s.req_addr.val() & !$s.tpb_mask.val();
                $s.tpb.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.tpb_mask.val()) == $s.tpb_base.val()) {
                    $s.hit.next = true;
                }
                if $s.tpb.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_err.next = $s.tpb.rsp_err.val();
                    $s.rsp_rdata.next = $s.tpb.rsp_rdata.val();
                }
                // ---- SEQ DMA ----
                $s.dma.clock.next = $s.clock.val();
                $s.dma.reset.next = $s.reset.val();
                $s.dma.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.dma_mask.val()) == $s.dma_base.val());
                $s.dma.req_write.next = $s.req_write.val();
                $s.dma.req_addr.next = $s.req_addr.val() & !$s.dma_mask.val();
                $s.dma.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.dma_mask.val()) == $s.dma_base.val()) {
                    $s.hit.next = true;
                }
                if $s.dma.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_err.next = $s.dma.rsp_err.val();
                    $s.rsp_rdata.next = $s.dma.rsp_rdata.val();
                }
                $s.dma_db_valid.next = $s.dma.db_valid.val();
                $s.dma_busy.next = $s.dma.busy.val();
                // ---- memories: SEQ IRAM/DRAM, TOP_SP SPADs (PIO port only) ----
                $s.seq_iram.clock.next = $s.clock.val();
                $s.seq_dram.clock.next = $s.clock.val();
                $s.ctrl_spad.clock.next = $s.clock.val();
                $s.slot_spad.clock.next = $s.clock.val();
                $s.seq_iram.reset.next = $s.reset.val();
                $s.seq_dram.reset.next = $s.reset.val();
                $s.ctrl_spad.reset.next = $s.reset.val();
                $s.slot_spad.reset.next = $s.reset.val();
                $s.seq_iram.pio_valid.next = false;
                $s.seq_dram.pio_valid.next = false;
                $s.ctrl_spad.pio_valid.next = false;
                $s.slot_spad.pio_valid.next = false;
                $s.mem_off.next = $s.req_addr.val() & !$s.seq_mask.val();
                // Past a memory's built size: reads give 0, writes of 0 are taken.
                if $s.req_go.val() & $s.aligned.val() & (($s.mem_off.val() & $s.seq_built.val()) == 0) {
                    if ($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_iram_base.val() {
                        $s.seq_iram.pio_valid.next = true;
                        $s.hit.next = true;
                    }
                    if ($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_dram_base.val() {
                        $s.seq_dram.pio_valid.next = true;
                        $s.hit.next = true;
                    }
                } else if $s.req_go.val() & $s.aligned.val() & $s.zero_ok.val() {
                    if (($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_iram_base.val()) | (($s.req_addr.val() & $s.seq_mask.val()) == $s.seq_dram_base.val()) {
                        $s.past_hit.next = true;
                        $s.hit.next = true;
                    }
                }
                if $s.req_go.val() & $s.aligned.val() & (($s.req_addr.val() & $s.ctrl_mask.val()) == $s.ctrl_base.val()) {
                    if (($s.req_addr.val() & !$s.ctrl_mask.val()) & $s.ctrl_built.val()) == 0 {
                        $s.ctrl_spad.pio_valid.next = true;
                        $s.hit.next = true;
                    } else if $s.zero_ok.val() {
                        $s.past_hit.next = true;
                        $s.hit.next = true;
                    }
                }
                if $s.req_go.val() & $s.aligned.val() & (($s.req_addr.val() & $s.slot_mask.val()) == $s.slot_base.val()) {
                    if (($s.req_addr.val() & !$s.slot_mask.val()) & $s.slot_built.val()) == 0 {
                        $s.slot_spad.pio_valid.next = true;
                        $s.hit.next = true;
                    } else if $s.zero_ok.val() {
                        $s.past_hit.next = true;
                        $s.hit.next = true;
                    }
                }
                $s.seq_iram.pio_write.next = $s.req_write.val();
                $s.seq_dram.pio_write.next = $s.req_write.val();
                $s.ctrl_spad.pio_write.next = $s.req_write.val();
                $s.slot_spad.pio_write.next = $s.req_write.val();
                $s.seq_iram.pio_word.next = $s.req_addr.val().get_bits::<SW>(2);
                $s.seq_dram.pio_word.next = $s.req_addr.val().get_bits::<SW>(2);
                $s.ctrl_spad.pio_word.next = $s.req_addr.val().get_bits::<CW>(2);
                $s.slot_spad.pio_word.next = $s.req_addr.val().get_bits::<LW>(2);
                $s.seq_iram.pio_wdata.next = $s.req_wdata.val();
                $s.seq_dram.pio_wdata.next = $s.req_wdata.val();
                $s.ctrl_spad.pio_wdata.next = $s.req_wdata.val();
                $s.slot_spad.pio_wdata.next = $s.req_wdata.val();
                $s.seq_iram.a_valid.next = false;
                $s.seq_dram.a_valid.next = false;
                $s.ctrl_spad.a_valid.next = false;
                $s.slot_spad.a_valid.next = false;
                $s.seq_iram.a_write.next = false;
                $s.seq_dram.a_write.next = false;
                $s.ctrl_spad.a_write.next = false;
                $s.slot_spad.a_write.next = false;
                $s.seq_iram.a_word.next = 0.into();
                $s.seq_dram.a_word.next = 0.into();
                $s.ctrl_spad.a_word.next = 0.into();
                $s.slot_spad.a_word.next = 0.into();
                $s.seq_iram.a_wdata.next = 0.into();
                $s.seq_dram.a_wdata.next = 0.into();
                $s.ctrl_spad.a_wdata.next = 0.into();
                $s.slot_spad.a_wdata.next = 0.into();
                $s.seq_iram.a_wstrb.next = 0.into();
                $s.seq_dram.a_wstrb.next = 0.into();
                $s.ctrl_spad.a_wstrb.next = 0.into();
                $s.slot_spad.a_wstrb.next = 0.into();
                if $s.seq_iram.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.seq_iram.rdata.val();
                }
                if $s.seq_dram.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.seq_dram.rdata.val();
                }
                if $s.ctrl_spad.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.ctrl_spad.rdata.val();
                }
                if $s.slot_spad.pio_rvalid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_rdata.next = $s.slot_spad.rdata.val();
                }
                // ---- the generation's own blocks ----
                $($extra_update)*
                // ---- nothing decoded the request: error next cycle ----
                $s.err_q.d.next = $s.req_go.val() & !$s.hit.val();
                $s.zero_q.d.next = $s.past_hit.val();
                if $s.reset.val() {
                    $s.err_q.d.next = false;
                    $s.zero_q.d.next = false;
                }
            }
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> TopPins for $name<QIW, QDW, SW, CW, LW> {
            fn drive_clock(&mut $s, level: bool) {
                $s.clock.next = Clock::from(level);
            }
            fn drive(&mut $s, reset: bool, req: Option<Req>, $pins: &Pins) {
                let r = req.unwrap_or(Req { write: false, addr: 0, wdata: 0 });
                $s.reset.next = reset;
                $s.req_valid.next = req.is_some();
                $s.req_write.next = r.write;
                $s.req_addr.next = u64::from(r.addr).into();
                $s.req_wdata.next = u64::from(r.wdata).into();
                $s.nx_halted.next = u64::from($pins.nx_halted & 0x3f).into();
                $s.q7_halted.next = u64::from($pins.q7_halted).into();
                for n in 0..8 {
                    let c = &$pins.q7[n];
                    $s.q7_if_valid[n].next = c.if_valid;
                    $s.q7_if_addr[n].next = u64::from(c.if_addr).into();
                    $s.q7_ls_valid[n].next = c.ls_valid;
                    $s.q7_ls_write[n].next = c.ls_write;
                    $s.q7_ls_addr[n].next = u64::from(c.ls_addr).into();
                    $s.q7_ls_wdata[n].next = u64::from(c.ls_wdata).into();
                    $s.q7_ls_wstrb[n].next = u64::from(c.ls_wstrb & 15).into();
                }
                $($extra_drive)*
            }
            fn outputs(&$s) -> Outputs {
                let mut $outs = Outputs {
                    rsp: Rsp { valid: $s.rsp_valid.val(), rdata: $s.rsp_rdata.val().index() as u32, err: $s.rsp_err.val() },
                    nx_run_stall: $s.nx_run_stall.val().index() as u8,
                    q7_run_stall: $s.q7_run_stall.val().index() as u8,
                    sem_notif_valid: $s.sem_notif_valid.val().index() as u8,
                    sem_notif_index: if $s.sem_notif_valid.val().index() != 0 { $s.sem_notif_index.val().index() as u8 } else { 0 },
                    dma_db_valid: $s.dma_db_valid.val(),
                    dma_busy: $s.dma_busy.val(),
                    ..Outputs::default()
                };
                for n in 0..8 {
                    $outs.q7[n] = PortOut {
                        if_ready: $s.q7_if_ready[n].val(),
                        if_rvalid: $s.q7_if_rvalid[n].val(),
                        if_rdata: $s.q7_if_rdata[n].val().index() as u32,
                        if_err: $s.q7_if_err[n].val(),
                        ls_ready: $s.q7_ls_ready[n].val(),
                        ls_rvalid: $s.q7_ls_rvalid[n].val(),
                        ls_rdata: $s.q7_ls_rdata[n].val().index() as u32,
                        ls_err: $s.q7_ls_err[n].val(),
                    };
                }
                $($extra_outputs)*
                $outs
            }
        }
    };
}

tpb_top!(
    self, #[hdl_gen],
    /// SUNDA's TPB top (no HW-decode CAM; TOP_SP host_trigger/stop registers at +0x848).
    SundaTpbTop, nx = crate::regblocks::SundaNxRegs, win = crate::regblocks::SundaWindowsRegs,
    q7 = crate::regblocks::SundaQ7Regs, tpb = crate::regblocks::SundaTpbRegs,
    extra_fields = {
        /// One cycle per host write of TOP_SP `set_host_trigger` / `stop`.
        pub host_trigger_pulse: Signal<Out, Bit>,
        pub stop_pulse: Signal<Out, Bit>,
        top_sp_regs: crate::regblocks::SundaTopSpRegs,
        tsr_base: Constant<Bits<32>>,
        tsr_mask: Constant<Bits<32>>,
    },
    extra_init = |lay| {
        host_trigger_pulse: Default::default(),
        stop_pulse: Default::default(),
        top_sp_regs: Default::default(),
        tsr_base: c32(lay.local_reg[5].base + lay.top_sp_regs.map_or(0, |w| w.base)),
        tsr_mask: c32(lay.top_sp_regs.map_or(0, |w| w.mask())),
    },
    extra_update = {
        self.top_sp_regs.clock.next = self.clock.val();
        self.top_sp_regs.reset.next = self.reset.val();
        self.top_sp_regs.req_write.next = self.req_write.val();
        self.top_sp_regs.req_addr.next = self.lr_off.val();
        self.top_sp_regs.req_wdata.next = self.req_wdata.val();
        self.top_sp_regs.req_valid.next = false;
        if self.req_go.val() & ((self.req_addr.val() & self.tsr_mask.val()) == self.tsr_base.val()) {
            // The TOP_SP registers sit inside the TOP_SP NX bundle's first 4 KiB.
            self.top_sp_regs.req_valid.next = true;
            self.hit.next = true;
            for i in 0..6 {
                if self.is_top_sp[i].val() {
                    self.nx[i].req_valid.next = false;
                }
            }
        }
        if self.top_sp_regs.rsp_valid.val() {
            self.rsp_valid.next = true;
            self.rsp_err.next = self.top_sp_regs.rsp_err.val();
            self.rsp_rdata.next = self.top_sp_regs.rsp_rdata.val();
        }
        self.host_trigger_pulse.next = self.top_sp_regs.host_trigger_pulse_o.val();
        self.stop_pulse.next = self.top_sp_regs.stop_pulse_o.val();
    },
    extra_drive = |pins| {},
    extra_outputs = |o| {
        o.host_trigger_pulse = self.host_trigger_pulse.val();
        o.stop_pulse = self.stop_pulse.val();
    }
);

macro_rules! hw_decode_top {
    ($s:tt, $pound:tt $attr:tt, $(#[$doc:meta])* $name:ident, $nx:ty, $win:ty, $q7:ty, $tpb:ty) => {
        tpb_top!(
            $s, $pound $attr,
            $(#[$doc])*
            $name, nx = $nx, win = $win, q7 = $q7, tpb = $tpb,
            extra_fields = {
                pub hwd_lookup_valid: Signal<In, Bit>,
                pub hwd_lookup_opcode: Signal<In, Bits<8>>,
                pub hwd_lookup_func: Signal<In, Bits<8>>,
                pub hwd_lookup_ready: Signal<Out, Bit>,
                pub hwd_fifo_valid: Signal<Out, Bit>,
                pub hwd_fifo_hit: Signal<Out, Bit>,
                pub hwd_fifo_entry: Signal<Out, Bits<8>>,
                pub hwd_fifo_index: Signal<Out, Bits<16>>,
                pub hwd_fifo_handler: Signal<Out, Bits<32>>,
                pub hwd_fifo_pop: Signal<In, Bit>,
                pub hwd_miss: Signal<Out, Bit>,
                pub hwd_miss_irq: Signal<Out, Bit>,
                hwd: HwDecodeCam,
                hwd_base: Constant<Bits<32>>,
                hwd_mask: Constant<Bits<32>>,
            },
            extra_init = |lay| {
                hwd_lookup_valid: Default::default(),
                hwd_lookup_opcode: Default::default(),
                hwd_lookup_func: Default::default(),
                hwd_lookup_ready: Default::default(),
                hwd_fifo_valid: Default::default(),
                hwd_fifo_hit: Default::default(),
                hwd_fifo_entry: Default::default(),
                hwd_fifo_index: Default::default(),
                hwd_fifo_handler: Default::default(),
                hwd_fifo_pop: Default::default(),
                hwd_miss: Default::default(),
                hwd_miss_irq: Default::default(),
                hwd: Default::default(),
                hwd_base: c32(hw_decode_window(lay)?.base),
                hwd_mask: c32(hw_decode_window(lay)?.mask()),
            },
            extra_update = {
                $s.hwd.clock.next = $s.clock.val();
                $s.hwd.reset.next = $s.reset.val();
                $s.hwd.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.hwd_mask.val()) == $s.hwd_base.val());
                $s.hwd.req_write.next = $s.req_write.val();
                $s.hwd.req_addr.next = $s.req_addr.val() & !$s.hwd_mask.val();
                $s.hwd.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.hwd_mask.val()) == $s.hwd_base.val()) {
                    $s.hit.next = true;
                }
                if $s.hwd.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                    $s.rsp_err.next = $s.hwd.rsp_err.val();
                    $s.rsp_rdata.next = $s.hwd.rsp_rdata.val();
                }
                $s.hwd.lookup_valid.next = $s.hwd_lookup_valid.val();
                $s.hwd.lookup_opcode.next = $s.hwd_lookup_opcode.val();
                $s.hwd.lookup_func.next = $s.hwd_lookup_func.val();
                $s.hwd_lookup_ready.next = $s.hwd.lookup_ready.val();
                $s.hwd_fifo_valid.next = $s.hwd.fifo_valid.val();
                $s.hwd_fifo_hit.next = $s.hwd.fifo_hit.val();
                $s.hwd_fifo_entry.next = $s.hwd.fifo_entry.val();
                $s.hwd_fifo_index.next = $s.hwd.fifo_index.val();
                $s.hwd_fifo_handler.next = $s.hwd.fifo_handler.val();
                $s.hwd.fifo_pop.next = $s.hwd_fifo_pop.val();
                $s.hwd_miss.next = $s.hwd.miss.val();
                $s.hwd_miss_irq.next = $s.hwd.miss_irq.val();
            },
            extra_drive = |pins| {
                let (op, func) = pins.hwd_lookup.unwrap_or((0, 0));
                $s.hwd_lookup_valid.next = pins.hwd_lookup.is_some();
                $s.hwd_lookup_opcode.next = u64::from(op).into();
                $s.hwd_lookup_func.next = u64::from(func).into();
                $s.hwd_fifo_pop.next = pins.hwd_pop;
            },
            extra_outputs = |o| {
                o.hwd = Some(HwdOutputs {
                    rsp_valid: false,
                    rsp_rdata: 0,
                    rsp_err: false,
                    lookup_ready: $s.hwd_lookup_ready.val(),
                    fifo_valid: $s.hwd_fifo_valid.val(),
                    head: tpb_models::golden::hw_decode::LookupResult {
                        hit: $s.hwd_fifo_hit.val(),
                        entry: $s.hwd_fifo_entry.val().index() as u8,
                        index: $s.hwd_fifo_index.val().index() as u16,
                        handler: $s.hwd_fifo_handler.val().index() as u32,
                    },
                    miss: $s.hwd_miss.val(),
                    miss_irq: $s.hwd_miss_irq.val(),
                });
            }
        );
    };
}

fn hw_decode_window(lay: &TopLayout) -> Result<Window, LayoutError> {
    let w = lay.hw_decode.ok_or_else(|| LayoutError::Bad { what: "[hw_decode]".into(), detail: "this top has a HW-decode CAM; the parameters have none".into() })?;
    let need = 8u64 << crate::hw_decode::DEFAULT_TABLE_BITS;
    if u64::from(w.size) != need {
        return Err(LayoutError::Bad { what: "[hw_decode]".into(), detail: format!("window {:#x} bytes; the CAM block decodes {need:#x}", w.size) });
    }
    Ok(w)
}

hw_decode_top!(
    self, #[hdl_gen],
    /// CAYMAN's TPB top (with the HW-decode CAM).
    CaymanTpbTop, crate::regblocks::CaymanNxRegs, crate::regblocks::CaymanWindowsRegs, crate::regblocks::CaymanQ7Regs, crate::regblocks::CaymanTpbRegs
);
hw_decode_top!(
    self, #[hdl_gen],
    /// MARIANA's TPB top (with the HW-decode CAM).
    MarianaTpbTop, crate::regblocks::MarianaNxRegs, crate::regblocks::MarianaWindowsRegs, crate::regblocks::MarianaQ7Regs, crate::regblocks::MarianaTpbRegs
);

/// SUNDA at full size: Q7 IRAM/DRAM 64 KiB each, SEQ 64 KiB, SPADs 4/32 KiB
/// (`arch.toml`; a test pins these to the parameters).
pub type SundaTop = SundaTpbTop<14, 14, 14, 10, 13>;
/// CAYMAN at full size: Q7 IRAM 128 KiB, DRAM 256 KiB.
pub type CaymanTop = CaymanTpbTop<15, 16, 14, 10, 13>;
/// MARIANA at full size (CAYMAN's memory sizes).
pub type MarianaTop = MarianaTpbTop<15, 16, 14, 10, 13>;
/// FPGA builds: every memory 1 KiB (the BAR0 map is unchanged; the rest of
/// each region answers `rsp_err`).
pub type SundaTopFpga = SundaTpbTop<8, 8, 8, 8, 8>;
pub type CaymanTopFpga = CaymanTpbTop<8, 8, 8, 8, 8>;
pub type MarianaTopFpga = MarianaTpbTop<8, 8, 8, 8, 8>;

/// The memory sizes (word-address bits) the full-size top of `arch` builds:
/// the const generics of [`SundaTop`], [`CaymanTop`], [`MarianaTop`] as a
/// value, so a test can pin them to `arch.toml`.
pub fn full_mem_bits(arch: Arch) -> tpb_models::golden::top::MemBits {
    let (q7_iram, q7_dram) = match arch {
        Arch::Sunda => (14, 14),
        Arch::Cayman | Arch::Mariana => (15, 16),
    };
    tpb_models::golden::top::MemBits { q7_iram, q7_dram, seq: 14, ctrl_spad: 10, slot_spad: 13, dma: DMA_AW }
}
