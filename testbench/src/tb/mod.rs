//! `Tb`: a register-level testbench over one TPB top, by register name.
//!
//! ```no_run
//! use tpb_testbench::tb::{Tb, EngineKind};
//! use tpb_models::regmap::Arch;
//! let mut tb = Tb::new(Arch::Cayman, EngineKind::Verilator)?;
//! tb.write("pool.q7.release_run_stall", 0x00)?;          // release all 8 Q7 cores
//! tb.poll("pool.q7.run_state[3].running", 1, 100)?;       // wait for core 3 to run
//! tb.expect("port.q7_run_stall", 0)?;                     // the top's output agrees
//! # Ok::<(), tpb_testbench::tb::TbError>(())
//! ```
//!
//! Names come from the register maps ([`names`]); a typo is an error that
//! lists the nearest names. Every verb advances the clock through the top's
//! BAR0 port only (no internal state is poked), and a bus error is a value
//! ([`Tb::try_write`], [`Tb::expect_bus_error`]) or a [`TbError::Bus`].
//!
//! Two engines run the same top: Verilator (the default, fast, can trace
//! VCD) and the rust-hdl simulator (slow, no trace; a second opinion).

mod coverage;
pub mod csr;
mod doorbell;
pub mod file;
pub mod names;
mod ports;
pub mod report;
use ports::{field_diff, port_value, pulse_port};

use names::{NameError, Names, Target};
use std::path::{Path, PathBuf};
use tpb_cosim::cover::points::Points;
use tpb_cosim::dut::Dut;
use tpb_cosim::sched::Cosim;
use tpb_hdl::top::TopSim;
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::top::{Outputs, Pins};
use tpb_models::regmap::cover::RegCoverage;
use tpb_models::regmap::space::Named;
use tpb_models::regmap::{builtin, Access, Arch, RegMap};

/// Which simulator runs the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// The Verilated top (`cosim::dut::Dut`), VCD build.
    #[default]
    Verilator,
    /// The rust-hdl simulator on the same design (no tracing).
    RustHdl,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Verilator => "verilator",
            EngineKind::RustHdl => "rust-hdl",
        }
    }
    pub fn parse(s: &str) -> Option<EngineKind> {
        match s {
            "verilator" => Some(EngineKind::Verilator),
            "rust-hdl" | "rusthdl" => Some(EngineKind::RustHdl),
            _ => None,
        }
    }
}

/// Cycles a bus access may wait for its response before [`TbError::NoResponse`].
pub const BUS_TIMEOUT: u64 = 16;
/// Cycles reset is held by [`Tb::reset`].
pub const RESET_CYCLES: u64 = 4;
/// Cycles after a doorbell write in which its pulse must appear.
pub const PULSE_WINDOW: u64 = 4;

/// Why a testbench step failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TbError {
    #[error(transparent)]
    Name(#[from] NameError),
    #[error("{name}: value {value:#x} does not fit (largest {max:#x})")]
    Value { name: String, value: u64, max: u64 },
    #[error("{name}: {what}")]
    Usage { name: String, what: String },
    #[error("bus error on {} {name} ({addr:#010x}) at cycle {cycle}", if *.write { "write to" } else { "read of" })]
    Bus { name: String, addr: u32, write: bool, cycle: u64 },
    #[error("no bus response to the {} {name} ({addr:#010x}) within {BUS_TIMEOUT} cycles (cycle {cycle})", if *.write { "write to" } else { "read of" })]
    NoResponse { name: String, addr: u32, write: bool, cycle: u64 },
    #[error("expected a bus error on {} {name} ({addr:#010x}) at cycle {cycle}, got a response (rdata {rdata:#x})", if *.write { "write to" } else { "read of" })]
    NoBusError { name: String, addr: u32, write: bool, rdata: u32, cycle: u64 },
    #[error("{name}: expected {expected:#x}, got {got:#x} at cycle {cycle}{detail}")]
    Mismatch { name: String, expected: u64, got: u64, cycle: u64, detail: String },
    #[error("{name}: still {last:#x} after {cycles} cycles of polling for {expected:#x} (cycle {cycle})")]
    Timeout { name: String, expected: u64, last: u64, cycles: u64, cycle: u64 },
    #[error("doorbell {name}: {what} (cycle {cycle})")]
    Doorbell { name: String, what: String, cycle: u64 },
    #[error("the register map: {0}")]
    Map(String),
    #[error(transparent)]
    Verilator(#[from] tpb_cosim::verilator::VlError),
    #[error(transparent)]
    Layout(#[from] tpb_hdl::top::LayoutError),
    #[error("the {engine} engine cannot simulate this map: {why}")]
    MapNotBuilt { engine: &'static str, why: &'static str },
    /// A co-simulation step failed (a core's exception, a core not halted, a wrong exit value).
    #[error("{0}")]
    Cosim(String),
    #[error("tracing needs the verilator engine (--engine verilator)")]
    TraceNeedsVerilator,
    #[error("{path}: {why}")]
    TraceDir { path: String, why: String },
}

/// A register-level testbench over one TPB top.
pub struct Tb {
    names: Names,
    engine: EngineKind,
    sim: Sim,
    cycle: u64,
    pins: Pins,
    tracing: Option<PathBuf>,
    /// Register coverage kept by the testbench itself (a co-simulation
    /// keeps its own: [`Cosim::regs`]); see `coverage.rs`.
    regs: Option<Box<RegCoverage>>,
    /// The seeds' cases the testbench's reads show (likewise).
    points: Option<Box<Points>>,
}

enum Sim {
    Vl(Box<Dut>),
    Rhdl(Box<dyn TopSim + Send>),
    /// The co-simulation: the Verilated top with its behavioural cores
    /// stepping every cycle, the host on BAR0 through its arbiter.
    Cosim(Box<Cosim>),
}

impl Sim {
    fn top(&mut self) -> &mut dyn TopSim {
        match self {
            Sim::Vl(d) => &mut **d,
            Sim::Rhdl(s) => &mut **s,
            Sim::Cosim(c) => &mut c.dut,
        }
    }
}

impl Tb {
    /// A top of `arch` under `engine`, reset and ready (the EVT_SEM
    /// post-reset clear has finished).
    pub fn new(arch: Arch, engine: EngineKind) -> Result<Tb, TbError> {
        let map = builtin(arch).map_err(|e| TbError::Map(e.to_string()))?;
        Tb::with_map(map, engine)
    }

    /// As [`Tb::new`] with an explicit register map, which the top must
    /// implement: the Verilator engine runs the prebuilt top of the
    /// generation, so it takes only the built-in map; the rust-hdl engine
    /// builds the top's layout from the map's parameters but its register
    /// blocks are compiled from the built-in maps (`hdl/build.rs`), so it
    /// takes a map whose blocks are the built-in ones. Any other map is
    /// refused ([`TbError::MapNotBuilt`]) rather than quietly simulated as
    /// another design.
    pub fn with_map(map: RegMap, engine: EngineKind) -> Result<Tb, TbError> {
        let built = builtin(map.arch).map_err(|e| TbError::Map(e.to_string()))?;
        // The same blocks, wherever they were read from.
        let blocks = |m: &RegMap| {
            let mut v = m.blocks.clone();
            for b in &mut v {
                b.file.clear();
                b.extends = None;
            }
            v
        };
        let same_blocks = blocks(&built) == blocks(&map);
        let sim = match engine {
            EngineKind::Verilator => {
                if !same_blocks || built.params != map.params {
                    return Err(TbError::MapNotBuilt {
                        engine: "verilator",
                        why: "it runs the prebuilt top of the built-in map; regenerate the Verilog and rebuild for another (the rust-hdl engine takes changed parameters)",
                    });
                }
                Sim::Vl(Box::new(Dut::new(map.arch)?))
            }
            EngineKind::RustHdl => {
                if !same_blocks {
                    return Err(TbError::MapNotBuilt {
                        engine: "rust-hdl",
                        why: "its register blocks are compiled from the built-in maps (hdl/build.rs); rebuild after changing a block",
                    });
                }
                Sim::Rhdl(tpb_hdl::top::simulator(&map, false)?)
            }
        };
        let mut tb = Tb { names: Names::new(&map), engine, sim, cycle: 0, pins: Pins::default(), tracing: None, regs: None, points: None };
        tb.reset();
        Ok(tb)
    }

    /// A testbench over a co-simulation `c` (its cores run every cycle;
    /// verbs that drive the top's pins directly are refused, the cores own
    /// them). `c` is used as it is: not reset again.
    pub fn on_cosim(c: Cosim) -> Tb {
        let names = Names::new(c.map());
        let cycle = c.stats.cycles;
        Tb { names, engine: EngineKind::Verilator, sim: Sim::Cosim(Box::new(c)), cycle, pins: Pins::default(), tracing: None, regs: None, points: None }
    }

    /// The co-simulation under this testbench, if it runs one.
    pub fn cosim(&mut self) -> Option<&mut Cosim> {
        match &mut self.sim {
            Sim::Cosim(c) => Some(c),
            _ => None,
        }
    }

    fn cores_own(&self, what: &str) -> Result<(), TbError> {
        match self.sim {
            Sim::Cosim(_) => Err(TbError::Usage { name: what.into(), what: "in a co-simulation the cores drive this; the testbench cannot".into() }),
            _ => Ok(()),
        }
    }

    pub fn arch(&self) -> Arch {
        self.names.map().arch
    }
    pub fn engine(&self) -> EngineKind {
        self.engine
    }
    pub fn names(&self) -> &Names {
        &self.names
    }
    /// Cycles run since construction.
    pub fn cycle(&self) -> u64 {
        match &self.sim {
            Sim::Cosim(c) => c.stats.cycles,
            _ => self.cycle,
        }
    }

    /// Resolve a name (see [`names`]).
    pub fn resolve(&self, name: &str) -> Result<Target, TbError> {
        Ok(self.names.resolve(name)?)
    }

    /// One cycle: drive `req` (and the pins), sample the outputs, clock edge.
    fn step(&mut self, reset: bool, req: Option<Req>) -> Outputs {
        if let Sim::Cosim(c) = &mut self.sim {
            debug_assert!(req.is_none(), "a co-simulation's host goes through Cosim::access");
            let o = c.cycle(reset);
            self.cycle = c.stats.cycles;
            return o;
        }
        let pins = self.pins;
        let top = self.sim.top();
        top.drive(reset, req, &pins);
        let o = top.outputs();
        top.tick();
        self.cycle += 1;
        o
    }

    /// Outputs of the current cycle with idle inputs (no clock edge).
    fn sample(&mut self) -> Outputs {
        if let Sim::Cosim(c) = &self.sim {
            return c.out;
        }
        let pins = self.pins;
        let top = self.sim.top();
        top.drive(false, None, &pins);
        top.outputs()
    }

    /// Hold reset for [`RESET_CYCLES`], then run the EVT_SEM post-reset
    /// clear to its end (writes to semaphores before that are lost).
    pub fn reset(&mut self) {
        if let Sim::Cosim(c) = &mut self.sim {
            c.reset();
            self.cycle = c.stats.cycles;
            return;
        }
        for _ in 0..RESET_CYCLES {
            self.step(true, None);
        }
        self.wait(u64::from(tpb_models::golden::evt_sem::CLEAR_CYCLES) + 2);
    }

    /// Run `n` idle cycles.
    pub fn wait(&mut self, n: u64) {
        for _ in 0..n {
            self.step(false, None);
        }
    }

    /// Drive an input pin of the top for the following cycles:
    /// `nx_halted` (6 bits, one per engine) or `q7_halted` (8 bits).
    pub fn set_pin(&mut self, name: &str, value: u64) -> Result<(), TbError> {
        self.cores_own(&format!("pin {name}"))?;
        let bad = |max: u64| TbError::Value { name: name.into(), value, max };
        match name {
            "nx_halted" if value <= 0x3f => self.pins.nx_halted = value as u8,
            "q7_halted" if value <= 0xff => self.pins.q7_halted = value as u8,
            "nx_halted" => return Err(bad(0x3f)),
            "q7_halted" => return Err(bad(0xff)),
            _ => return Err(TbError::Usage { name: name.into(), what: "not an input pin the testbench drives: nx_halted, q7_halted".into() }),
        }
        Ok(())
    }

    /// HW-decode lookup of an instruction header (CAYMAN/MARIANA): drive
    /// `lookup_valid` with `opcode`/`func` until the CAM takes it (at most
    /// [`BUS_TIMEOUT`] cycles). The result is at the FIFO head
    /// (`port.hwd_fifo_*`) from the cycle after next.
    pub fn hwd_lookup(&mut self, opcode: u8, func: u8) -> Result<(), TbError> {
        self.cores_own("lookup (the SEQ drives the HW-decode CAM)")?;
        if self.names.map().params.hw_decode.present {
            for _ in 0..BUS_TIMEOUT {
                let ready = self.sample().hwd.is_some_and(|h| h.lookup_ready);
                self.pins.hwd_lookup = Some((opcode, func));
                self.step(false, None);
                self.pins.hwd_lookup = None;
                if ready {
                    return Ok(());
                }
            }
            return Err(TbError::Usage { name: "hwd_lookup".into(), what: format!("lookup_ready stayed low for {BUS_TIMEOUT} cycles (FIFO full? pop it)") });
        }
        Err(TbError::Usage { name: "hwd_lookup".into(), what: format!("{} has no HW-decode CAM", self.arch().name()) })
    }

    /// Pop the HW-decode FIFO head (one cycle of `fifo_pop`).
    pub fn hwd_pop(&mut self) -> Result<(), TbError> {
        self.cores_own("pop (the SEQ pops the HW-decode FIFO)")?;
        self.pins.hwd_pop = true;
        self.step(false, None);
        self.pins.hwd_pop = false;
        Ok(())
    }

    /// One bus access; the response (with its error bit) as a value.
    pub fn access(&mut self, name: &str, req: Req) -> Result<Rsp, TbError> {
        if let Sim::Cosim(c) = &mut self.sim {
            let r = c.access(req);
            self.cycle = c.stats.cycles;
            return r.map_err(|_| TbError::NoResponse { name: name.into(), addr: req.addr, write: req.write, cycle: self.cycle });
        }
        if let Some(rc) = &mut self.regs {
            rc.access(req.addr, req.write, false);
        }
        self.step(false, Some(req));
        for _ in 0..BUS_TIMEOUT {
            let o = self.step(false, None);
            if o.rsp.valid {
                if let Some(p) = self.points.as_mut().filter(|_| !req.write && !o.rsp.err) {
                    p.on_read(req.addr, o.rsp.rdata);
                }
                return Ok(o.rsp);
            }
        }
        Err(TbError::NoResponse { name: name.into(), addr: req.addr, write: req.write, cycle: self.cycle })
    }

    fn bus_target(&self, name: &str) -> Result<(Target, u32), TbError> {
        let t = self.resolve(name)?;
        let addr = t.addr().ok_or_else(|| TbError::Usage { name: t.name().into(), what: "an output port is sampled, not accessed over the bus".into() })?;
        Ok((t, addr))
    }

    /// Write `value` to a register, field (read-modify-write of the other
    /// read/write fields; write-1 and doorbell fields are written 0) or
    /// array element. A bus error is [`TbError::Bus`].
    pub fn write(&mut self, name: &str, value: u64) -> Result<(), TbError> {
        let rsp = self.try_write(name, value)?;
        if rsp.err {
            let (t, addr) = self.bus_target(name)?;
            return Err(TbError::Bus { name: t.name().into(), addr, write: true, cycle: self.cycle });
        }
        Ok(())
    }

    /// As [`Tb::write`], returning the bus response (a bus error is a value).
    pub fn try_write(&mut self, name: &str, value: u64) -> Result<Rsp, TbError> {
        let (t, addr) = self.bus_target(name)?;
        if value > t.max() {
            return Err(TbError::Value { name: t.name().into(), value, max: t.max() });
        }
        let word = match &t {
            Target::Bus(Named::Reg { reg, field: Some(f), .. }) => {
                let keep: u32 = reg.fields.iter().filter(|o| o.name != f.name && o.access == Access::Rw).map(|o| o.mask()).fold(0, |a, m| a | m);
                let cur = if keep != 0 {
                    let r = self.access(t.name(), Req { write: false, addr, wdata: 0 })?;
                    if r.err {
                        return Ok(r);
                    }
                    r.rdata
                } else {
                    0
                };
                (cur & keep) | ((value as u32) << f.lsb)
            }
            _ => value as u32,
        };
        self.access(t.name(), Req { write: true, addr, wdata: word })
    }

    /// Read a register, field, array element or output port.
    pub fn read(&mut self, name: &str) -> Result<u64, TbError> {
        let t = self.resolve(name)?;
        self.read_target(&t)
    }

    fn read_target(&mut self, t: &Target) -> Result<u64, TbError> {
        let Some(addr) = t.addr() else {
            let o = self.sample();
            return Ok(port_value(&o, t.name().trim_start_matches("port.")));
        };
        let r = self.access(t.name(), Req { write: false, addr, wdata: 0 })?;
        if r.err {
            return Err(TbError::Bus { name: t.name().into(), addr, write: false, cycle: self.cycle });
        }
        Ok(match t {
            Target::Bus(Named::Reg { field: Some(f), .. }) => u64::from((r.rdata & f.mask()) >> f.lsb),
            _ => u64::from(r.rdata),
        })
    }

    /// As [`Tb::read`] for a bus target, returning the response (a bus error is a value).
    pub fn try_read(&mut self, name: &str) -> Result<Rsp, TbError> {
        let (t, addr) = self.bus_target(name)?;
        self.access(t.name(), Req { write: false, addr, wdata: 0 })
    }

    /// Read and compare; the error names register, field, expected, got and
    /// cycle, and for a whole register every field that differs.
    pub fn expect(&mut self, name: &str, expected: u64) -> Result<(), TbError> {
        let t = self.resolve(name)?;
        let got = self.read_target(&t)?;
        self.checked(&t);
        if got == expected {
            return Ok(());
        }
        Err(TbError::Mismatch { name: t.name().into(), expected, got, cycle: self.cycle, detail: field_diff(&t, expected, got) })
    }

    /// Read until the value equals `expected`, at most `timeout` cycles;
    /// returns the cycles it took.
    pub fn poll(&mut self, name: &str, expected: u64, timeout: u64) -> Result<u64, TbError> {
        self.poll_every(name, expected, timeout, 0)
    }

    /// As [`Tb::poll`], leaving the bus idle `gap` cycles between reads
    /// (a co-simulation's cores fetch over the same BAR0 port, and reads
    /// back to back would starve them).
    pub fn poll_every(&mut self, name: &str, expected: u64, timeout: u64, gap: u64) -> Result<u64, TbError> {
        let t = self.resolve(name)?;
        let start = self.cycle;
        loop {
            let got = self.read_target(&t)?;
            self.checked(&t);
            if got == expected {
                return Ok(self.cycle - start);
            }
            if self.cycle - start >= timeout {
                return Err(TbError::Timeout { name: t.name().into(), expected, last: got, cycles: self.cycle - start, cycle: self.cycle });
            }
            if t.addr().is_none() {
                self.step(false, None);
            } else if gap > 0 {
                self.wait(gap.min(timeout - (self.cycle - start)));
            }
        }
    }

    /// A write of all ones to a read-only register or field changes nothing
    /// a read shows.
    pub fn expect_write_ignored(&mut self, name: &str) -> Result<(), TbError> {
        let t = self.resolve(name)?;
        let before = self.read_target(&t)?;
        self.write(name, t.max())?;
        let after = self.read_target(&t)?;
        self.checked(&t);
        if after != before {
            return Err(TbError::Mismatch {
                name: t.name().into(),
                expected: before,
                got: after,
                cycle: self.cycle,
                detail: format!(" (read-only: a write of {:#x} changed it)", t.max()),
            });
        }
        Ok(())
    }

    /// The access must answer with a bus error (an unmapped or unaligned
    /// address, say). `name` may be a raw address (`0x…`).
    pub fn expect_bus_error(&mut self, name: &str, write: bool) -> Result<(), TbError> {
        let (label, addr) = match names::parse_u32(name) {
            Some(a) => (format!("{a:#010x}"), a),
            None => {
                let (t, a) = self.bus_target(name)?;
                (t.name().to_string(), a)
            }
        };
        let r = self.access(&label, Req { write, addr, wdata: 0 })?;
        if r.err {
            Ok(())
        } else {
            Err(TbError::NoBusError { name: label, addr, write, rdata: r.rdata, cycle: self.cycle })
        }
    }

    /// Raw bus write to a BAR0 address (memories, tables); a bus error is a value.
    pub fn write_addr(&mut self, addr: u32, value: u32) -> Result<Rsp, TbError> {
        self.access(&format!("{addr:#010x}"), Req { write: true, addr, wdata: value })
    }
    /// Raw bus read of a BAR0 address; a bus error is a value.
    pub fn read_addr(&mut self, addr: u32) -> Result<Rsp, TbError> {
        self.access(&format!("{addr:#010x}"), Req { write: false, addr, wdata: 0 })
    }

    /// Start tracing to a VCD file (Verilator engine only). Time in the
    /// file is in picoseconds at the generation's clock (see `cosim::dut`).
    pub fn trace_start(&mut self, path: &Path) -> Result<(), TbError> {
        if let Sim::Cosim(c) = &mut self.sim {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| TbError::TraceDir { path: dir.display().to_string(), why: e.to_string() })?;
            }
            c.trace(path)?;
            self.tracing = Some(path.to_path_buf());
            return Ok(());
        }
        match &mut self.sim {
            Sim::Vl(d) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| TbError::TraceDir { path: dir.display().to_string(), why: e.to_string() })?;
                }
                d.trace_open(path)?;
                self.tracing = Some(path.to_path_buf());
                Ok(())
            }
            Sim::Rhdl(_) => Err(TbError::TraceNeedsVerilator),
            Sim::Cosim(_) => unreachable!("handled above"),
        }
    }

    /// Stop tracing; returns the file written, if any.
    pub fn trace_stop(&mut self) -> Result<Option<PathBuf>, TbError> {
        match &mut self.sim {
            Sim::Vl(d) => d.trace_close()?,
            Sim::Cosim(c) => c.dut.trace_close()?,
            Sim::Rhdl(_) => {}
        }
        Ok(self.tracing.take())
    }

    /// The file being traced to, if any.
    pub fn tracing(&self) -> Option<&Path> {
        self.tracing.as_deref()
    }
}
