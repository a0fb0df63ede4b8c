//! The co-simulation scheduler: one clock for a Verilated TPB top, the
//! behavioural Q7 cores on its memory ports, and the host HAL on its BAR0
//! port.
//!
//! Each cycle: the HAL's bus transaction in flight (if any) is driven on
//! BAR0; every Q7 core that is not run-stalled and has nothing in flight
//! steps once through its [`PortBus`] (an instruction whose fetch, load or
//! store is not yet answered returns `BusWait` and changes nothing; the
//! request goes out on the core's `if_*`/`ls_*` port and the core retries
//! once `*_rvalid` brought the answer: the RTL's wait states are the core's
//! wait states); the top evaluates; the clock ticks. The top's
//! `q7_run_stall` output drives each core's RunStall pin and each core's
//! HALT/WAITI state drives the top's `q7_halted` input.
//!
//! The HAL runs against [`Cosim`] through the [`Mmio`] trait: every access
//! it makes advances the whole system until the top answers, so the HAL's
//! accesses, the cores and the RTL share one time base (the VCD's).
//! Deterministic: no threads, no wall clock.

use crate::dut::Dut;
use crate::verilator::{Tracing, VlError};
use std::collections::HashSet;
use std::path::Path;
use tpb_hdl::top::TopSim;
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::q7_cluster::{PortIn, PortOut, CORES};
use tpb_models::golden::top::{Outputs, Pins};
use tpb_models::hal::{check_buf, Mmio, MmioError};
use tpb_models::regmap::{builtin, Arch, RegMap};
use tpb_models::xtensa::bus::{Bus, BusError, Size};
use tpb_models::xtensa::config::CoreConfig;
use tpb_models::xtensa::core::{Core, Step};

/// Cycles a BAR0 access may wait for its response.
pub const BAR0_TIMEOUT: u64 = 64;

/// What the scheduler counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cycles since power-on (the trace's time is 2 × this).
    pub cycles: u64,
    /// BAR0 transactions the host made (reads + writes).
    pub transactions: u64,
    /// Zero words of `write_buf` padding not sent (the memories reset to 0).
    pub elided: u64,
    /// Instructions the Q7 cores retired.
    pub retired: u64,
    /// Core-cycles spent waiting on the memory ports.
    pub bus_waits: u64,
    /// Q7 cores whose run-stall went from held to released.
    pub stalls_released: u64,
    /// Cycle of the first such release.
    pub first_release: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fetch,
    Load,
    Store { wdata: u32, wstrb: u8 },
}

/// One request of a core's port: driven until `ready`, then awaiting `rvalid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    kind: Kind,
    /// Word address.
    addr: u32,
    accepted: bool,
}

/// What came back for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Answer {
    kind: Kind,
    addr: u32,
    data: u32,
    err: bool,
}

/// A core's view of its RTL memory port: answers from what the port
/// returned, otherwise issues the request and says `Pending`.
#[derive(Debug, Default)]
pub struct PortBus {
    pending: Option<Pending>,
    answers: Vec<Answer>,
}

impl PortBus {
    fn take(&mut self, kind: Kind, addr: u32) -> Option<Answer> {
        let i = self.answers.iter().position(|a| a.kind == kind && a.addr == addr)?;
        Some(self.answers.remove(i))
    }
    fn ask(&mut self, kind: Kind, addr: u32) -> BusError {
        if self.pending.is_none() {
            self.pending = Some(Pending { kind, addr, accepted: false });
        }
        BusError::Pending
    }
    fn word(&mut self, kind: Kind, addr: u32) -> Result<u32, BusError> {
        match self.take(kind, addr) {
            Some(a) if a.err => Err(BusError::Fault { addr }),
            Some(a) => Ok(a.data),
            None => Err(self.ask(kind, addr)),
        }
    }
}

impl PortBus {
    /// The core finished an instruction (or took an exception) and goes on
    /// at `pc`: fetched words that hold the next instruction stay (a
    /// two-word fetch buffer), the others are used up.
    fn end_instruction(&mut self, pc: u32) {
        let w = pc & !3;
        self.answers.retain(|a| a.kind != Kind::Fetch || a.addr == w || a.addr == w.wrapping_add(4));
    }
}

impl Bus for PortBus {
    fn fetch(&mut self, addr: u32, buf: &mut [u8; 3]) -> Result<usize, BusError> {
        let w0 = addr & !3;
        let two = (addr & 3) > 1;
        // Both words must be here before either is consumed.
        let have = |b: &PortBus, a: u32| b.answers.iter().any(|x| x.kind == Kind::Fetch && x.addr == a);
        if !have(self, w0) {
            return Err(self.ask(Kind::Fetch, w0));
        }
        if two && !have(self, w0 + 4) {
            return Err(self.ask(Kind::Fetch, w0 + 4));
        }
        // Kept (not consumed) until the instruction completes: a load or
        // store that still waits makes the core fetch again.
        let get = |b: &PortBus, a: u32| b.answers.iter().find(|x| x.kind == Kind::Fetch && x.addr == a).copied().unwrap();
        let (a0, a1) = (get(self, w0), if two { Some(get(self, w0 + 4)) } else { None });
        if a0.err {
            return Err(BusError::Fault { addr: w0 });
        }
        if let Some(a) = a1.filter(|a| a.err) {
            return Err(BusError::Fault { addr: a.addr });
        }
        let (lo, hi) = (a0.data, a1.map_or(0, |a| a.data));
        let bytes = (u64::from(hi) << 32 | u64::from(lo)).to_le_bytes();
        let off = (addr & 3) as usize;
        buf.copy_from_slice(&bytes[off..off + 3]);
        Ok(3)
    }

    fn load(&mut self, addr: u32, size: Size) -> Result<u32, BusError> {
        let w = self.word(Kind::Load, addr & !3)?;
        let sh = 8 * (addr & 3);
        let n = size_bytes(size);
        Ok(if n == 4 { w } else { (w >> sh) & ((1u32 << (8 * n)) - 1) })
    }

    fn store(&mut self, addr: u32, size: Size, value: u32) -> Result<(), BusError> {
        let n = size_bytes(size);
        let sh = 8 * (addr & 3);
        let wstrb = (((1u32 << n) - 1) << (addr & 3)) as u8;
        let wdata = if n == 4 { value } else { (value & ((1u32 << (8 * n)) - 1)) << sh };
        let kind = Kind::Store { wdata, wstrb };
        self.word(kind, addr & !3).map(|_| ())
    }
}

fn size_bytes(s: Size) -> u32 {
    s as u32
}

/// Why a co-simulation cannot start.
#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    #[error(transparent)]
    Verilator(#[from] VlError),
    #[error(transparent)]
    Map(#[from] tpb_models::regmap::RegmapError),
}

/// A Q7 core on its port.
pub struct Q7 {
    pub core: Core,
    pub bus: PortBus,
    /// The last step's result (for probes and summaries).
    pub last: Option<Step>,
}

/// A TPB top with its Q7 cores and the host on BAR0.
pub struct Cosim {
    pub dut: Dut,
    map: RegMap,
    pub q7: Vec<Q7>,
    pub stats: Stats,
    /// BAR0 word addresses written (a zero pad word over one of them is sent).
    written: HashSet<u64>,
    stalled: u8,
    /// The outputs of the last cycle.
    pub out: Outputs,
}

impl Cosim {
    /// A top of `arch` (VCD build, so a trace can be opened), reset, with
    /// 8 Q7 cores in their reset state (run-stalled by the top).
    pub fn new(arch: Arch) -> Result<Cosim, CosimError> {
        Cosim::with_tracing(arch, Tracing::Vcd)
    }

    /// As [`Cosim::new`] on the build for `tracing` (FST needs `Tracing::Fst`).
    pub fn with_tracing(arch: Arch, tracing: Tracing) -> Result<Cosim, CosimError> {
        let map = builtin(arch)?;
        let dut = Dut::new(arch, tracing)?;
        let q7 = (0..CORES as u32).map(|n| Q7 { core: Core::new(CoreConfig::q7(&map.params, n)), bus: PortBus::default(), last: None }).collect();
        let mut c = Cosim { dut, map, q7, stats: Stats::default(), written: HashSet::new(), stalled: 0xff, out: Outputs::default() };
        for q in &mut c.q7 {
            q.core.set_run_stall(true);
        }
        c.reset();
        Ok(c)
    }

    pub fn map(&self) -> &RegMap {
        &self.map
    }

    /// Hold reset for 4 cycles, then run the EVT_SEM post-reset clear.
    /// [`Stats`] count from the end of this.
    pub fn reset(&mut self) {
        for _ in 0..4 {
            self.cycle(true, None);
        }
        self.run(u64::from(tpb_models::golden::evt_sem::CLEAR_CYCLES) + 2);
        // Counters start here; `cycles` keeps counting from power-on so it
        // matches the trace's time base (time = 2 × cycle).
        self.stats = Stats { cycles: self.stats.cycles, ..Stats::default() };
        self.stalled = self.out.q7_run_stall;
    }

    /// Trace the run into a VCD (or FST, on an FST build) from now on.
    pub fn trace(&mut self, path: &Path) -> Result<(), VlError> {
        self.dut.trace_open(path)
    }

    /// Run `n` cycles with BAR0 idle.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle(false, None);
        }
    }

    /// Run until `done(self)` or `limit` cycles; returns whether it became true.
    pub fn run_until(&mut self, limit: u64, mut done: impl FnMut(&Cosim) -> bool) -> bool {
        for _ in 0..limit {
            if done(self) {
                return true;
            }
            self.cycle(false, None);
        }
        done(self)
    }

    /// One clock cycle of the whole system; the outputs seen during it.
    pub fn cycle(&mut self, reset: bool, req: Option<Req>) -> Outputs {
        // 1. Cores that can, step (at most one instruction each).
        let mut pins = Pins::default();
        for (n, q) in self.q7.iter_mut().enumerate() {
            if q.bus.pending.is_none() && !reset {
                let s = q.core.step(&mut q.bus);
                match s {
                    Step::Retired(_) => self.stats.retired += 1,
                    Step::BusWait => self.stats.bus_waits += 1,
                    _ => {}
                }
                if s != Step::BusWait {
                    q.bus.end_instruction(q.core.pc);
                }
                q.last = Some(s);
            } else if q.bus.pending.is_some() {
                self.stats.bus_waits += 1;
            }
            if q.core.halted() || matches!(q.last, Some(Step::Waiting)) {
                pins.q7_halted |= 1 << n;
            }
            if let Some(p) = q.bus.pending.filter(|p| !p.accepted) {
                pins.q7[n] = port_in(p);
            }
        }
        // 2. The top evaluates with these inputs.
        self.dut.drive(reset, req, &pins);
        let o = self.dut.outputs();
        for (q, po) in self.q7.iter_mut().zip(o.q7.iter()) {
            take_port(&mut q.bus, po);
        }
        // 3. Clock edge; RunStall follows the top's output.
        self.dut.tick();
        self.stats.cycles += 1;
        let now = o.q7_run_stall;
        let released = u64::from((self.stalled & !now).count_ones());
        if released > 0 && self.stats.first_release.is_none() {
            self.stats.first_release = Some(self.stats.cycles - 1);
        }
        self.stats.stalls_released += released;
        self.stalled = now;
        for (n, q) in self.q7.iter_mut().enumerate() {
            q.core.set_run_stall(now >> n & 1 != 0);
        }
        self.out = o;
        o
    }

    /// One BAR0 access, the whole system running until the answer.
    pub fn access(&mut self, req: Req) -> Result<Rsp, MmioError> {
        self.stats.transactions += 1;
        self.cycle(false, Some(req));
        for _ in 0..BAR0_TIMEOUT {
            let o = self.cycle(false, None);
            if o.rsp.valid {
                return Ok(o.rsp);
            }
        }
        Err(MmioError::BusError { addr: req.addr.into(), what: format!("no response within {BAR0_TIMEOUT} cycles") })
    }
}

fn port_in(p: Pending) -> PortIn {
    match p.kind {
        Kind::Fetch => PortIn { if_valid: true, if_addr: p.addr, ..PortIn::default() },
        Kind::Load => PortIn { ls_valid: true, ls_addr: p.addr, ..PortIn::default() },
        Kind::Store { wdata, wstrb } => PortIn { ls_valid: true, ls_write: true, ls_addr: p.addr, ls_wdata: wdata, ls_wstrb: wstrb, ..PortIn::default() },
    }
}

/// Note acceptance (`ready` while driven) and answers (`rvalid`).
fn take_port(bus: &mut PortBus, o: &PortOut) {
    let Some(p) = bus.pending else { return };
    let fetch = p.kind == Kind::Fetch;
    if p.accepted {
        let (rvalid, rdata, err) = if fetch { (o.if_rvalid, o.if_rdata, o.if_err) } else { (o.ls_rvalid, o.ls_rdata, o.ls_err) };
        if rvalid {
            bus.answers.push(Answer { kind: p.kind, addr: p.addr, data: rdata, err });
            bus.pending = None;
        }
    } else if if fetch { o.if_ready } else { o.ls_ready } {
        bus.pending = Some(Pending { accepted: true, ..p });
    }
}

impl Mmio for Cosim {
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError> {
        let a = u32::try_from(addr).map_err(|_| MmioError::Unmapped { kind: "read", addr })?;
        if a % 4 != 0 {
            return Err(MmioError::Misaligned { kind: "read", addr });
        }
        let r = self.access(Req { write: false, addr: a, wdata: 0 })?;
        if r.err {
            return Err(MmioError::BusError { addr, what: "read".into() });
        }
        Ok(r.rdata)
    }

    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError> {
        let a = u32::try_from(addr).map_err(|_| MmioError::Unmapped { kind: "write", addr })?;
        if a % 4 != 0 {
            return Err(MmioError::Misaligned { kind: "write", addr });
        }
        self.written.insert(addr);
        let r = self.access(Req { write: true, addr: a, wdata: value })?;
        if r.err {
            return Err(MmioError::BusError { addr, what: "write".into() });
        }
        Ok(())
    }

    /// Word by word; zero words over never-written addresses are not sent
    /// (every memory of the top resets to 0), and counted in `Stats::elided`.
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        check_buf(addr, data.len())?;
        for (i, w) in data.chunks_exact(4).enumerate() {
            let (a, v) = (addr + 4 * i as u64, u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            if v == 0 && !self.written.contains(&a) {
                self.stats.elided += 1;
                continue;
            }
            self.write32(a, v)?;
        }
        Ok(())
    }
}
