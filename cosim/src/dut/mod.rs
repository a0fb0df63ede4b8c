//! `Dut`: a Verilated TPB top driven cycle by cycle, with BAR0 bus
//! transactions, VCD or FST tracing switched on and off at run time, and a
//! trace window that a bus access or a cycle count opens and closes. Time in
//! the trace is real time in picoseconds, from the generation's clock period
//! `P` (`arch.toml [sim]`, a `[D]` choice): cycle `c`'s inputs at `c·P`
//! (clock low), its rising edge at `c·P + P/2`. Traced, two evaluations a
//! cycle: the inputs with the clock low, then the rising edge; untraced, a
//! rising edge is evaluated with the next cycle's inputs (`cycle`'s note:
//! the same results, one settling of the logic a cycle). It implements the same
//! [`TopSim`] interface as the rust-hdl simulator, so one test harness and
//! one golden model serve both engines.

use crate::verilator::{Model, Port, TraceFormat, VlError};
use crate::waves::GroupName;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use tpb_hdl::top::TopSim;
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::q7_cluster::CORES;
use tpb_models::golden::top::Pins;
use tpb_models::regmap::Arch;

struct Core {
    if_valid: Port<u8>,
    if_addr: Port<u32>,
    ls_valid: Port<u8>,
    ls_write: Port<u8>,
    ls_addr: Port<u32>,
    ls_wdata: Port<u32>,
    ls_wstrb: Port<u8>,
    if_ready: Port<u8>,
    if_rvalid: Port<u8>,
    if_rdata: Port<u32>,
    if_err: Port<u8>,
    ls_ready: Port<u8>,
    ls_rvalid: Port<u8>,
    ls_rdata: Port<u32>,
    ls_err: Port<u8>,
}

struct Hwd {
    lookup_valid: Port<u8>,
    lookup_opcode: Port<u8>,
    lookup_func: Port<u8>,
    fifo_pop: Port<u8>,
    lookup_ready: Port<u8>,
    fifo_valid: Port<u8>,
    fifo_hit: Port<u8>,
    fifo_entry: Port<u8>,
    fifo_index: Port<u16>,
    fifo_handler: Port<u32>,
    miss: Port<u8>,
    miss_irq: Port<u8>,
}

struct Ix {
    clock: Port<u8>,
    reset: Port<u8>,
    req_valid: Port<u8>,
    req_write: Port<u8>,
    req_addr: Port<u32>,
    req_wdata: Port<u32>,
    rsp_valid: Port<u8>,
    rsp_rdata: Port<u32>,
    rsp_err: Port<u8>,
    nx_halted: Port<u8>,
    q7_halted: Port<u8>,
    nx_run_stall: Port<u8>,
    q7_run_stall: Port<u8>,
    nx_start: Port<u8>,
    nx_start_addr: Port<u32>,
    q7_start: Port<u8>,
    q7_start_addr: Port<u32>,
    notific_head: Port<u32>,
    timestamp_lo: Port<u32>,
    timestamp_hi: Port<u32>,
    nx_irq: Port<u8>,
    q7_irq: Port<u8>,
    sem_notif_valid: Port<u8>,
    sem_notif_index: Port<u8>,
    dma_db_valid: Port<u8>,
    dma_busy: Port<u8>,
    dma_m: DmaMaster,
    xlat: Xlat,
    cores: Vec<Core>,
    hwd: Option<Hwd>,
    pulses: Option<(Port<u8>, Port<u8>)>,
    /// The wrapper's `sample` input: toggled with each cycle's inputs (`vlgen::sim_top`).
    sample: Option<Port<u8>>,
    probes: Option<Probes>,
}

/// The SEQ DMA's system master port.
struct DmaMaster {
    valid: Port<u8>,
    addr_lo: Port<u32>,
    addr_hi: Port<u32>,
    wdata: Port<u32>,
    ack: Port<u8>,
    err: Port<u8>,
}

/// The address-translation port.
struct Xlat {
    valid: Port<u8>,
    who: Port<u8>,
    addr: Port<u32>,
    rsp_valid: Port<u8>,
    hit: Port<u8>,
    dst_lo: Port<u32>,
    dst_hi: Port<u32>,
}

mod built;
mod cycle;
mod probes;
mod window;
pub use built::{spec as built_spec, TraceModel};
use probes::Probes;
pub use probes::{CoreState, HalKind, PROBED_CORES};
use window::Armed;
pub use window::{Trigger, Window, WindowEnd};

/// The signal groups every trace opened from now on writes (`tpb sim
/// --trace-groups`); None: every signal of the top.
static TRACE_GROUPS: std::sync::Mutex<Option<Vec<GroupName>>> = std::sync::Mutex::new(None);

/// Write only these groups' signals (and the clock) into the traces opened
/// from now on, in this process; None brings back every signal. The values
/// and times of the signals written are the same as in a full trace.
pub fn set_trace_groups(groups: Option<Vec<GroupName>>) {
    *TRACE_GROUPS.lock().unwrap_or_else(|e| e.into_inner()) = groups;
}

/// The groups [`set_trace_groups`] chose.
pub fn trace_groups() -> Option<Vec<GroupName>> {
    TRACE_GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The full names a trace of `arch` is limited to (empty: every signal).
fn trace_only(arch: Arch) -> Vec<String> {
    trace_groups().map_or_else(Vec::new, |g| std::iter::once("clock".to_string()).chain(crate::waves::group_signals(arch, &g)).map(|s| format!("TOP.{s}")).collect())
}

/// A TPB top under Verilator.
pub struct Dut {
    arch: Arch,
    m: Model,
    ix: Ix,
    cycle: u64,
    /// One clock cycle in the trace, in picoseconds.
    period_ps: u64,
    armed: Option<Armed>,
    window: Window,
    /// The model has evaluated with the clock low since the last rising
    /// edge (a rising edge needs it: Verilator sees an edge only between two
    /// evaluations).
    low: Cell<bool>,
    /// A rising edge [`TopSim::tick`] left for the next drive to evaluate
    /// with its inputs (see `cycle`'s note).
    edge_owed: Cell<bool>,
    /// Ticks may owe their edges ([`Dut::with_merged_edges`]).
    merge_edges: bool,
    /// Evaluate a third time after each rising edge, with the clock low
    /// again (the previous scheduling; see [`Dut::with_negedge_eval`]).
    negedge_eval: bool,
    /// The inputs written last (reset, BAR0 request, pins): a cycle that
    /// drives the same again, untraced, writes no port and lets the
    /// wrapper keep its samples (see [`TopSim::drive`]).
    last_in: Option<(bool, Option<Req>, Pins)>,
    /// An odd number of `sample` toggles were left out: before a trace
    /// starts, one is made up ([`Dut::sample_as_toggled`]).
    sample_owed: bool,
}

// SAFETY: the port handles in `ix` point into `m`, which this value owns and
// moves with it; no other value holds them, so sending the whole `Dut` to
// another thread (a mesh's die threads, `crate::mesh`) keeps every pointer
// next to its model. `Model` is `Send` (Verilator's context is per model).
unsafe impl Send for Dut {}

impl Dut {
    /// A top of `arch` (its trace is off until [`Dut::trace_open`] or a
    /// [`Dut::trace_window`] trigger).
    pub fn new(arch: Arch) -> Result<Dut, VlError> {
        Dut::with_model(arch, Model::new(arch))
    }

    /// A top of `arch` on a given model (e.g. one built at run time by
    /// `tpb bench --before`, see `vlbuild`). its ports must be those of the generation's top.
    pub fn with_model(arch: Arch, m: Model) -> Result<Dut, VlError> {
        macro_rules! p {
            ($n:expr) => {
                m.typed($n)
            };
        }
        let core = |k: usize| -> Result<Core, VlError> {
            macro_rules! q {
                ($n:expr) => {
                    m.typed(&format!("q7_{}${k}", $n))
                };
            }
            Ok(Core {
                if_valid: q!("if_valid")?,
                if_addr: q!("if_addr")?,
                ls_valid: q!("ls_valid")?,
                ls_write: q!("ls_write")?,
                ls_addr: q!("ls_addr")?,
                ls_wdata: q!("ls_wdata")?,
                ls_wstrb: q!("ls_wstrb")?,
                if_ready: q!("if_ready")?,
                if_rvalid: q!("if_rvalid")?,
                if_rdata: q!("if_rdata")?,
                if_err: q!("if_err")?,
                ls_ready: q!("ls_ready")?,
                ls_rvalid: q!("ls_rvalid")?,
                ls_rdata: q!("ls_rdata")?,
                ls_err: q!("ls_err")?,
            })
        };
        let hwd = match p!("hwd_lookup_valid") {
            Ok(lookup_valid) => Some(Hwd {
                lookup_valid,
                lookup_opcode: p!("hwd_lookup_opcode")?,
                lookup_func: p!("hwd_lookup_func")?,
                fifo_pop: p!("hwd_fifo_pop")?,
                lookup_ready: p!("hwd_lookup_ready")?,
                fifo_valid: p!("hwd_fifo_valid")?,
                fifo_hit: p!("hwd_fifo_hit")?,
                fifo_entry: p!("hwd_fifo_entry")?,
                fifo_index: p!("hwd_fifo_index")?,
                fifo_handler: p!("hwd_fifo_handler")?,
                miss: p!("hwd_miss")?,
                miss_irq: p!("hwd_miss_irq")?,
            }),
            Err(_) => None,
        };
        let sample = p!("sample").ok();
        let pulses = match (p!("host_trigger_pulse"), p!("stop_pulse")) {
            (Ok(a), Ok(b)) => Some((a, b)),
            _ => None,
        };
        let ix = Ix {
            clock: p!("clock")?,
            reset: p!("reset")?,
            req_valid: p!("req_valid")?,
            req_write: p!("req_write")?,
            req_addr: p!("req_addr")?,
            req_wdata: p!("req_wdata")?,
            rsp_valid: p!("rsp_valid")?,
            rsp_rdata: p!("rsp_rdata")?,
            rsp_err: p!("rsp_err")?,
            nx_halted: p!("nx_halted")?,
            q7_halted: p!("q7_halted")?,
            nx_run_stall: p!("nx_run_stall")?,
            q7_run_stall: p!("q7_run_stall")?,
            nx_start: p!("nx_start")?,
            nx_start_addr: p!("nx_start_addr")?,
            q7_start: p!("q7_start")?,
            q7_start_addr: p!("q7_start_addr")?,
            notific_head: p!("notific_head")?,
            timestamp_lo: p!("timestamp_lo")?,
            timestamp_hi: p!("timestamp_hi")?,
            nx_irq: p!("nx_irq")?,
            q7_irq: p!("q7_irq")?,
            sem_notif_valid: p!("sem_notif_valid")?,
            sem_notif_index: p!("sem_notif_index")?,
            dma_db_valid: p!("dma_db_valid")?,
            dma_busy: p!("dma_busy")?,
            dma_m: DmaMaster {
                valid: p!("dma_m_valid")?,
                addr_lo: p!("dma_m_addr_lo")?,
                addr_hi: p!("dma_m_addr_hi")?,
                wdata: p!("dma_m_wdata")?,
                ack: p!("dma_m_ack")?,
                err: p!("dma_m_err")?,
            },
            xlat: Xlat {
                valid: p!("xlat_valid")?,
                who: p!("xlat_who")?,
                addr: p!("xlat_addr")?,
                rsp_valid: p!("xlat_rsp_valid")?,
                hit: p!("xlat_hit")?,
                dst_lo: p!("xlat_dst_lo")?,
                dst_hi: p!("xlat_dst_hi")?,
            },
            cores: (0..CORES).map(core).collect::<Result<_, _>>()?,
            hwd,
            pulses,
            sample,
            probes: match p!("probe_hal_txn") {
                Ok(hal_txn) => Some(Probes {
                    hal_txn,
                    hal_kind: p!("probe_hal_kind")?,
                    cores: PROBED_CORES
                        .iter()
                        .map(|c| Ok((p!(&format!("probe_{c}_pc"))?, p!(&format!("probe_{c}_insn"))?, p!(&format!("probe_{c}_state"))?)))
                        .collect::<Result<_, VlError>>()?,
                }),
                Err(_) => None,
            },
        };
        let period_ps = crate::waves::Timebase::of(arch).map_err(|e| VlError::Map { arch: arch.name(), msg: e.to_string() })?.period_ps;
        let d = Dut {
            arch,
            m,
            ix,
            cycle: 0,
            period_ps,
            armed: None,
            window: Window::Idle,
            low: Cell::new(false),
            edge_owed: Cell::new(false),
            merge_edges: true,
            negedge_eval: false,
            last_in: None,
            sample_owed: false,
        };
        d.m.eval();
        d.low.set(true);
        Ok(d)
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Schedule as before the lean RTL: a third evaluation after each rising
    /// edge with the clock low again (the results are the same; only
    /// `tpb bench --before` uses it, to measure the previous cost faithfully).
    pub fn with_negedge_eval(mut self, on: bool) -> Dut {
        self.negedge_eval = on;
        self
    }

    /// Count a clock cycle without evaluating the model: for a caller that
    /// knows the model is at a fixed point under the inputs it holds, and
    /// only untraced (the VCD would miss the clock).
    pub fn skip_cycle(&mut self) {
        debug_assert!(!self.trace_wanted());
        self.settle();
        self.cycle += 1;
    }

    /// Is a trace open, or a trace window armed (so this cycle may be traced)?
    pub fn trace_wanted(&self) -> bool {
        self.m.tracing() || self.window == Window::Armed
    }

    /// Clock edges since construction.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The underlying model, to read ports by name.
    pub fn model_view(&self) -> &Model {
        self.settle();
        &self.m
    }

    /// The underlying model (ports by name).
    pub fn model(&mut self) -> &mut Model {
        // The caller may write ports by name: the next cycle writes and samples all.
        self.last_in = None;
        self.settle();
        &mut self.m
    }

    /// Hold reset for one cycle.
    pub fn reset(&mut self) {
        TopSim::drive(self, true, None, &Pins::default());
        TopSim::tick(self);
        TopSim::drive(self, false, None, &Pins::default());
    }

    /// One clock cycle in the trace, in picoseconds.
    pub fn clock_period_ps(&self) -> u64 {
        self.period_ps
    }

    /// Trace with another clock period (picoseconds, even): a map loaded
    /// from elsewhere than the built-in one.
    pub fn with_clock_period_ps(mut self, ps: u64) -> Result<Dut, VlError> {
        if ps == 0 || !ps.is_multiple_of(2) {
            return Err(VlError::ClockPeriod { model: self.m.name(), ps });
        }
        self.period_ps = ps;
        Ok(self)
    }

    /// Start a trace at `path` now (`.vcd`, or `.fst` converted from a VCD
    /// when it closes; time in picoseconds, see the module's note).
    pub fn trace_open(&mut self, path: &Path) -> Result<(), VlError> {
        self.sample_as_toggled();
        self.m.trace_open_only(path, &trace_only(self.arch))
    }

    /// Make up a `sample` toggle that untraced cycles left out (it takes the
    /// inputs it holds again: nothing else changes), so a trace that starts
    /// now shows `sample` as a run traced from the start would: the same bytes.
    pub(crate) fn sample_as_toggled(&mut self) {
        self.settle();
        if let (true, Some(s)) = (std::mem::take(&mut self.sample_owed), self.ix.sample) {
            s.set(s.get() ^ 1);
            self.m.eval();
        }
    }

    /// Write the current values and close the trace (and any open window).
    pub fn trace_close(&mut self) -> Result<(), VlError> {
        self.settle();
        if self.m.tracing() {
            self.m.trace_dump(self.cycle * self.period_ps);
        }
        let r = self.m.trace_close();
        if let Window::Open { from } = self.window {
            self.window = Window::Done { from, to: self.cycle };
        }
        self.armed = None;
        r
    }

    /// One BAR0 access: the request for one cycle, then the response of the
    /// next cycle (other pins idle).
    pub fn access(&mut self, req: Req) -> Rsp {
        let idle = Pins::default();
        TopSim::drive(self, false, Some(req), &idle);
        TopSim::tick(self);
        TopSim::drive(self, false, None, &idle);
        let rsp = TopSim::outputs(self).rsp;
        TopSim::tick(self);
        rsp
    }
}

impl Drop for Dut {
    /// The model ends at the edge the last tick made (a coverage count or
    /// a final trace sees it).
    fn drop(&mut self) {
        self.settle();
    }
}
