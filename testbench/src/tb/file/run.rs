//! Running a testbench file on one generation: every step through the
//! [`Tb`] API, the first failure with its step and place.

use super::*;
use tpb_cosim::dut::Dut;
use tpb_models::regmap::builtin;

#[path = "cosim.rs"]
pub mod cosim;
#[path = "txn.rs"]
mod txn;

/// The outcome of one testbench on one generation.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub arch: Arch,
    pub engine: EngineKind,
    pub result: Result<(), Failure>,
    /// Steps executed (repeats counted each time).
    pub steps: u64,
    /// Cycles the steps took, from `first_cycle`.
    pub cycles: u64,
    /// The run's cycle when its first step began (the set-up before it:
    /// the top's reset); the console, failures and waves count from 0.
    pub first_cycle: u64,
    pub wall: std::time::Duration,
    /// Values printed by `read` steps.
    pub reads: Vec<String>,
    /// The VCD written, if any.
    pub vcd: Option<PathBuf>,
    /// The cores' console lines (`[core @cycle] text`), co-simulation only.
    pub console: Vec<String>,
    /// The run's register coverage ([`RunOpts::register_coverage`]).
    pub regs: Option<tpb_models::regmap::cover::RegCoverage>,
    /// …and the seeds' cases it showed.
    pub points: Option<tpb_cosim::cover::points::Points>,
    /// `trace_start`/`trace_stop` steps passed over ([`RunOpts::skip_traces`]).
    pub traces_skipped: u64,
    /// A failed run's GTKWave save file, opened at the failure's cycle.
    pub gtkw: Option<PathBuf>,
}

/// The first failing step.
#[derive(Debug, Clone)]
pub struct Failure {
    pub loc: Loc,
    pub step: String,
    pub error: String,
    pub cycle: u64,
    /// The run's trace file could not be written (a full disk), rather
    /// than a check failing: the command could not do its job (exit 2).
    pub trace_lost: bool,
}

/// How to run a file.
#[derive(Debug, Clone, Default)]
pub struct RunOpts {
    pub engine: EngineKind,
    /// Trace every run into this directory (`<name>.<arch>.vcd`)…
    pub vcd_dir: Option<PathBuf>,
    /// …and keep the traces of passing runs too.
    pub vcd_all: bool,
    /// Where `trace_start` files go: this, else `vcd_dir`, else `waves/`.
    pub trace_dir: Option<PathBuf>,
    /// Trace the whole run into exactly this file, kept whatever the
    /// outcome (`tpb sim my.toml --vcd F.vcd`).
    pub vcd_file: Option<PathBuf>,
    /// Print the cores' console lines as they complete (`tpb sim`).
    pub console_echo: bool,
    /// Count register coverage and the seeds' cases ([`Outcome::regs`],
    /// [`Outcome::points`]; the run named by the file).
    pub register_coverage: bool,
    /// Run on this Verilator model instead of the prebuilt one (`tpb cover`'s).
    pub model: Option<Model>,
    /// Pass over `trace_start`/`trace_stop` steps, counting them (the
    /// coverage model is built without tracing).
    pub skip_traces: bool,
}

/// A maker of the Verilator top a run uses (e.g. a coverage-instrumented one).
#[derive(Clone)]
pub struct Model(pub std::sync::Arc<dyn Fn(Arch) -> Result<Dut, String> + Send + Sync>);

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Model(..)")
    }
}

/// Run `file` on `arch`. Setup failures (a name that does not resolve, no
/// engine) are a failed outcome at the offending step, not a panic.
pub fn run(file: &TbFile, arch: Arch, opts: &RunOpts) -> Outcome {
    let t0 = std::time::Instant::now();
    let mut out = Outcome {
        name: file.name.clone(),
        arch,
        engine: opts.engine,
        result: Ok(()),
        steps: 0,
        cycles: 0,
        first_cycle: 0,
        wall: Default::default(),
        reads: Vec::new(),
        vcd: None,
        console: Vec::new(),
        gtkw: None,
        regs: None,
        points: None,
        traces_skipped: 0,
    };
    let setup_fail = |loc: Loc, step: &str, error: String| Failure { loc, step: step.into(), error, cycle: 0, trace_lost: false };
    let (tb, fw) = if file.firmware.is_empty() {
        match &opts.model {
            Some(m) if opts.engine == EngineKind::Verilator => (m.0(arch).map_err(TbError::Cosim).and_then(Tb::on_dut), None),
            _ => (Tb::new(arch, opts.engine), None),
        }
    } else {
        match cosim_tb(file, arch, opts) {
            Ok((tb, fw)) => (Ok(tb), Some(fw)),
            Err(e) => {
                out.result = Err(setup_fail(Loc::default(), "firmware", e));
                return out;
            }
        }
    };
    let mut tb = match tb {
        Ok(tb) => tb,
        Err(e) => {
            out.result = Err(setup_fail(Loc::default(), "setup", e.to_string()));
            return out;
        }
    };
    if opts.register_coverage {
        tb.keep_coverage(&file.name);
    }
    if let Err(e) = file.check(tb.names()) {
        out.result = Err(setup_fail(e.loc, &e.key, format!("{}: {}", e.key, e.msg)));
        return out;
    }
    let vcd = opts.vcd_file.clone().or_else(|| opts.vcd_dir.as_ref().map(|d| d.join(format!("{}.{}.vcd", sanitize(&file.name), arch.name()))));
    if let Some(p) = &vcd {
        if let Err(e) = tb.trace_start(p) {
            out.result = Err(setup_fail(Loc::default(), "--vcd", e.to_string()));
            return out;
        }
    }
    let (steps, consts) = file.for_arch(arch);
    let start = tb.cycle();
    let mut ctx = RunCtx {
        tb: &mut tb,
        consts: &consts,
        dir: opts.trace_dir.clone().or_else(|| opts.vcd_dir.clone()).unwrap_or_else(|| PathBuf::from("waves")),
        steps: 0,
        reads: Vec::new(),
        skip_traces: opts.skip_traces,
        traces_skipped: 0,
        fw: fw.as_ref(),
        state: cosim::State::default(),
    };
    let mut r = ctx.run_steps(&steps);
    let expected = std::mem::take(&mut ctx.state.expected_exceptions);
    out.steps = ctx.steps;
    out.traces_skipped = ctx.traces_skipped;
    out.reads = std::mem::take(&mut ctx.reads);
    // A core that took an exception fails the run, whatever the steps checked.
    if let (Ok(()), Some(fw)) = (&r, &fw) {
        if let Some((cycle, e)) = cosim::exception(&mut tb, fw, None, &expected) {
            r = Err(Failure { loc: Loc::default(), step: "(after the last step)".into(), error: e, cycle, trace_lost: false });
        }
    }
    out.cycles = tb.cycle() - start;
    out.first_cycle = start;
    out.result = r;
    (out.regs, out.points) = tb.take_coverage();
    if let Some(c) = tb.cosim() {
        c.console.flush();
        out.console = c.console.lines.iter().map(|l| l.to_string()).collect();
    }
    let end = tb.cycle();
    let traced = match tb.trace_stop() {
        Ok(t) => t,
        Err(e) => {
            if out.result.is_ok() {
                out.result = Err(Failure { cycle: end, trace_lost: true, ..setup_fail(Loc::default(), "trace", e.to_string()) });
            }
            None
        }
    };
    if let (Some(p), Some(_)) = (vcd, traced) {
        if out.result.is_ok() && !opts.vcd_all && opts.vcd_file.is_none() {
            let _ = std::fs::remove_file(&p);
        } else {
            if let Err(f) = &out.result {
                out.gtkw = failure_gtkw(&p, arch, f).map_err(|e| eprintln!("tpb: warning: no .gtkw for {}: {e}", p.display())).ok();
            }
            out.vcd = Some(p);
        }
    }
    out.wall = t0.elapsed();
    out
}

/// The co-simulation of a file with `[firmware]` on a Tb.
fn cosim_tb(file: &TbFile, arch: Arch, opts: &RunOpts) -> Result<(Tb, cosim::Images), String> {
    if opts.engine != EngineKind::Verilator {
        return Err(format!("a file with [firmware] runs on the co-simulation (Verilator), not the {} engine", opts.engine.name()));
    }
    let dut = opts.model.as_ref().map(|m| m.0(arch)).transpose()?;
    let (c, images) = cosim_on(file, arch, opts.console_echo, dut)?;
    Ok((Tb::on_cosim(c), images))
}

/// A file's co-simulation: its images built for `arch` (C under
/// `build/fw/<name>.<arch>/`), the TOP_SP's loaded; the images, and the
/// HAL's `stpb_init` configuration with them (`tpb serve`'s OP_STPB_INIT).
pub fn cosim_of(file: &TbFile, arch: Arch, echo: bool) -> Result<(tpb_cosim::sched::Cosim, cosim::Images), String> {
    cosim_on(file, arch, echo, None)
}

/// As [`cosim_of`], on the Verilator model `dut` when given.
fn cosim_on(file: &TbFile, arch: Arch, echo: bool, dut: Option<Dut>) -> Result<(tpb_cosim::sched::Cosim, cosim::Images), String> {
    let map = builtin(arch).map_err(|e| e.to_string())?;
    let dir = PathBuf::from("build/fw").join(format!("{}.{}", sanitize(&file.name), arch.name()));
    let (_, consts) = file.for_arch(arch);
    let built = super::firmware::build(&file.firmware, &map, &consts, &dir)?;
    let mut c = match dut {
        Some(d) => tpb_cosim::sched::Cosim::on(d),
        None => tpb_cosim::sched::Cosim::new(arch),
    }
    .map_err(|e| e.to_string())?;
    c.console.echo = echo;
    if let Some(t) = built.get("top_sp") {
        c.load_top_sp(&t.images.iram, &t.images.dram).map_err(|e| format!("the top_sp image: {e}"))?;
    }
    Ok((c, cosim::Images { map, built, data: file.firmware.data.clone() }))
}

/// Cycles a failure's save file shows before and after the failure.
pub const FAILURE_VIEW: (u64, u64) = (400, 100);

/// `<vcd>.gtkw` beside the VCD, zoomed on the failure's cycle with a marker there.
fn failure_gtkw(vcd: &std::path::Path, arch: Arch, f: &Failure) -> Result<PathBuf, String> {
    let out = vcd.with_extension("gtkw");
    let view = tpb_cosim::waves::View {
        from: f.cycle.saturating_sub(FAILURE_VIEW.0),
        to: f.cycle + FAILURE_VIEW.1,
        markers: vec![(f.cycle, format!("failure: {}", f.step))],
        focus: Vec::new(),
    };
    tpb_cosim::waves::write_gtkw(vcd, arch, &out, Some(&view)).map_err(|e| e.to_string())?;
    Ok(out)
}

fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

struct RunCtx<'a> {
    tb: &'a mut Tb,
    consts: &'a BTreeMap<String, u64>,
    dir: PathBuf,
    steps: u64,
    reads: Vec<String>,
    skip_traces: bool,
    traces_skipped: u64,
    /// The images of a co-simulation.
    fw: Option<&'a cosim::Images>,
    /// What co-simulation steps remember between them.
    state: cosim::State,
}

impl RunCtx<'_> {
    fn val(&self, v: &Val) -> u64 {
        match v {
            Val::Num(n) => *n,
            Val::Const(c) => self.consts[c],
        }
    }

    fn run_steps(&mut self, steps: &[Step]) -> Result<(), Failure> {
        for s in steps {
            self.steps += 1;
            let r = self.run_step(s);
            if let Err(e) = r {
                return Err(match e {
                    StepErr::Tb(e) => Failure { loc: s.loc, step: s.text.clone(), error: e.to_string(), cycle: self.tb.cycle(), trace_lost: false },
                    StepErr::Inner(f) => f,
                });
            }
        }
        Ok(())
    }

    fn run_step(&mut self, s: &Step) -> Result<(), StepErr> {
        let value = |v: &Val| self.val(v);
        let v = match &s.verb {
            Verb::Write { value: x, .. } | Verb::Expect { value: x, .. } | Verb::Poll { value: x, .. } | Verb::Doorbell { value: x, .. } | Verb::Pin { value: x, .. } => value(x),
            _ => 0,
        };
        let tb = &mut *self.tb;
        match &s.verb {
            Verb::Write { name, .. } => match parse_u32(name) {
                Some(a) => {
                    let r = tb.write_addr(a, v as u32)?;
                    bus_ok(name, a, true, r, tb.cycle())?
                }
                None => tb.write(name, v)?,
            },
            Verb::Read { name } => {
                let got = read_value(tb, name)?;
                let line = format!("{name} = {got:#x} (cycle {})", tb.cycle());
                self.reads.push(line);
            }
            Verb::Expect { name, cmp: Cmp::Eq, .. } => match parse_u32(name) {
                Some(a) => {
                    let r = tb.read_addr(a)?;
                    bus_ok(name, a, false, r, tb.cycle())?;
                    if u64::from(r.rdata) != v {
                        return Err(TbError::Mismatch { name: name.clone(), expected: v, got: r.rdata.into(), cycle: tb.cycle(), detail: String::new() }.into());
                    }
                }
                None => tb.expect(name, v)?,
            },
            Verb::Expect { name, cmp, .. } => {
                let got = read_value(tb, name)?;
                let (ok, bound) = if *cmp == Cmp::AtLeast { (got >= v, "at least") } else { (got <= v, "at most") };
                if !ok {
                    return Err(TbError::Mismatch { name: name.clone(), expected: v, got, cycle: tb.cycle(), detail: format!(" (expected {bound} that)") }.into());
                }
            }
            Verb::Poll { name, timeout, every, .. } => {
                let gap = every.unwrap_or(if self.fw.is_some() { POLL_GAP_COSIM } else { 0 });
                tb.poll_every(name, v, *timeout, gap)?;
            }
            Verb::Wait(n) => tb.wait(*n),
            Verb::Doorbell { name, .. } => {
                tb.doorbell(name, v)?;
            }
            Verb::Reset => tb.reset(),
            Verb::Pin { name, .. } => tb.set_pin(name, v)?,
            Verb::ExpectBusError { name, write } => tb.expect_bus_error(name, *write)?,
            Verb::ExpectWriteIgnored { name } => tb.expect_write_ignored(name)?,
            Verb::Lookup { opcode, func } => tb.hwd_lookup(*opcode, *func)?,
            Verb::Pop => tb.hwd_pop()?,
            Verb::TraceStart(_) | Verb::TraceStop if self.skip_traces => self.traces_skipped += 1,
            Verb::TraceStart(f) => {
                let p = self.dir.join(f);
                tb.trace_start(&p)?;
            }
            Verb::TraceStop => {
                tb.trace_stop()?;
            }
            Verb::Repeat { count, steps } => {
                for _ in 0..*count {
                    self.run_steps(steps).map_err(StepErr::Inner)?;
                }
            }
            _ => return self.run_more(s),
        }
        Ok(())
    }
}

impl RunCtx<'_> {
    /// The verbs beyond the bare top's: bursts, marks, the co-simulation's.
    fn run_more(&mut self, s: &Step) -> Result<(), StepErr> {
        let tb = &mut *self.tb;
        match &s.verb {
            Verb::WriteWords { name, words } => {
                let a = addr_of(tb, name)?;
                match tb.cosim() {
                    Some(c) => {
                        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                        tpb_models::hal::Mmio::write_buf(c, a.into(), &bytes).map_err(|e| TbError::Cosim(format!("{name}: {e}")))?;
                    }
                    None => {
                        for (i, w) in words.iter().enumerate() {
                            let r = tb.write_addr(a + 4 * i as u32, *w)?;
                            bus_ok(name, a + 4 * i as u32, true, r, tb.cycle())?;
                        }
                    }
                }
            }
            Verb::ExpectWords { name, words } => {
                let a = addr_of(tb, name)?;
                for (i, w) in words.iter().enumerate() {
                    let at = a + 4 * i as u32;
                    let r = tb.read_addr(at)?;
                    bus_ok(name, at, false, r, tb.cycle())?;
                    if r.rdata != *w {
                        return Err(TbError::Mismatch {
                            name: format!("{name} word {i} ({at:#x})"),
                            expected: (*w).into(),
                            got: r.rdata.into(),
                            cycle: tb.cycle(),
                            detail: String::new(),
                        }
                        .into());
                    }
                }
            }
            Verb::MarkCycle(m) => {
                self.state.marks.insert(m.clone(), tb.cycle().saturating_sub(1));
            }
            Verb::ExpectException { cores, cause } => {
                let fw = self.fw.expect("checked on load: co-simulation verbs need [firmware]");
                cosim::expected_exception(self.tb, fw, *cores, *cause, &mut self.state).map_err(|e| StepErr::Tb(TbError::Cosim(e)))?;
            }
            Verb::CcOp { .. } | Verb::ExpectCcOp | Verb::ExpectDoorbells { .. } | Verb::TxConsole => {
                let fw = self.fw.expect("checked on load: co-simulation verbs need [firmware]");
                cosim::spads_and_doorbells(self.tb, fw, &s.verb, &mut self.state).map_err(|e| StepErr::Tb(TbError::Cosim(e)))?;
            }
            Verb::PollChange { name, timeout, every } => {
                let gap = every.unwrap_or(if self.fw.is_some() { POLL_GAP_COSIM } else { 0 }).max(1);
                let (before, start) = (read_value(tb, name)?, tb.cycle());
                while read_value(tb, name)? == before {
                    if tb.cycle() - start >= *timeout {
                        return Err(TbError::Timeout { name: name.clone(), expected: before, last: before, cycles: tb.cycle() - start, cycle: tb.cycle() }.into());
                    }
                    tb.wait(gap);
                }
            }
            Verb::Window { .. }
            | Verb::MemWindow2(_)
            | Verb::StpbInit { .. }
            | Verb::Release(_)
            | Verb::WaitHalted { .. }
            | Verb::ExpectExit { .. }
            | Verb::ExpectConsole { .. }
            | Verb::ExpectReg { .. }
            | Verb::PollReg { .. }
            | Verb::Hal(_)
            | Verb::DevMem { .. }
            | Verb::InitDma { .. }
            | Verb::Start { .. } => {
                let fw = self.fw.expect("checked on load: co-simulation verbs need [firmware]");
                let want = match &s.verb {
                    Verb::ExpectExit { value, .. } | Verb::ExpectReg { value, .. } | Verb::PollReg { value, .. } => self.val(value),
                    _ => 0,
                };
                cosim::verb(self.tb, fw, &s.verb, want).map_err(|e| StepErr::Tb(TbError::Cosim(e)))?;
            }
            Verb::ExpectNotifications { events, any_order } => {
                let fw = self.fw.expect("checked on load: co-simulation verbs need [firmware]");
                let arch = self.tb.arch();
                let here: Vec<_> = events.iter().filter(|(a, _)| a.is_none_or(|a| a == arch)).map(|(_, e)| *e).collect();
                cosim::notifications(self.tb, fw, &here, *any_order, &mut self.state.next_record).map_err(|e| StepErr::Tb(TbError::Cosim(e)))?;
            }
            Verb::ExpectTxn(t) => {
                let data = match &t.data {
                    DataCheck::Any => txn::Data::Any,
                    DataCheck::Eq { value, mask } => txn::Data::Eq { value: self.val(value) as u32, mask: *mask as u32 },
                    DataCheck::AtLeast(v) => txn::Data::AtLeast(self.val(v) as u32),
                };
                txn::check(self.tb, t, data, &mut self.state.marks).map_err(|e| StepErr::Tb(TbError::Cosim(e)))?;
            }
            _ => unreachable!("run_step takes the bare top's verbs"),
        }
        Ok(())
    }
}

enum StepErr {
    Tb(TbError),
    Inner(Failure),
}

impl From<TbError> for StepErr {
    fn from(e: TbError) -> Self {
        StepErr::Tb(e)
    }
}

/// Read a name, or a number as a raw BAR0 address (a bus error is an error).
fn read_value(tb: &mut Tb, name: &str) -> Result<u64, TbError> {
    match parse_u32(name) {
        Some(a) => {
            let r = tb.read_addr(a)?;
            bus_ok(name, a, false, r, tb.cycle())?;
            Ok(u64::from(r.rdata))
        }
        None => tb.read(name),
    }
}

/// The BAR0 address of a name (or a number).
fn addr_of(tb: &Tb, name: &str) -> Result<u32, TbError> {
    match parse_u32(name) {
        Some(a) => Ok(a),
        None => tb.resolve(name)?.addr().ok_or_else(|| TbError::Usage { name: name.into(), what: "an output port, not a BAR0 address".into() }),
    }
}

fn bus_ok(name: &str, addr: u32, write: bool, r: tpb_models::csr::Rsp, cycle: u64) -> Result<(), TbError> {
    if r.err {
        Err(TbError::Bus { name: name.into(), addr, write, cycle })
    } else {
        Ok(())
    }
}
