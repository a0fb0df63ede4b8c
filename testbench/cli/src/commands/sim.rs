//! `tpb sim` and the waveform commands' helpers: a scenario run with its
//! summary, trace, GTKWave save file and diagrams; `--window` triggers;
//! the key window and markers of a run.

use super::{write, CliError};
use tpb_models::regmap::{self, Arch};

/// A `--window` trigger: `write:X`, `access:X` or `cycle:N`, X an address
/// or any register name of the generation's address space
/// (`pool.q7.release_run_stall`, `top_sp.evt_sem.inc[5]`).
pub fn parse_trigger(map: &regmap::RegMap, spec: &str) -> Result<tpb_cosim::dut::Trigger, CliError> {
    use tpb_cosim::dut::Trigger;
    let bad = |why: String| CliError::Sim(format!("--window {spec}: {why}"));
    let (kind, what) = spec.split_once(':').ok_or_else(|| bad("write:ADDR, access:ADDR or cycle:N".into()))?;
    let addr = |t: &str| -> Result<u32, CliError> {
        match regmap::space::parse_u32(t) {
            Some(a) => Ok(a),
            None => regmap::space::AddressSpace::new(map.clone()).resolve(t).map(|n| n.addr()).map_err(|e| bad(e.to_string())),
        }
    };
    match kind {
        "write" => Ok(Trigger::Write(addr(what)?)),
        "access" => Ok(Trigger::Access(addr(what)?)),
        "cycle" => regmap::space::parse_number(what).map(Trigger::Cycle).ok_or_else(|| bad(format!("'{what}' is not a cycle number"))),
        _ => Err(bad(format!("'{kind}' is not write, access or cycle"))),
    }
}

/// Where `tpb sim` writes its trace, and of which model.
pub(super) struct TraceOut<'a> {
    pub vcd: Option<&'a std::path::Path>,
    pub fst: Option<&'a std::path::Path>,
    /// Every signal inside every block (`--trace-internals`).
    pub internals: bool,
}

/// `tpb sim`: run a scenario, trace it if asked, print the summary table.
/// The dies, TOP_SPs a die and stepper of a collective, where the command line gives them.
pub(super) struct Collective {
    pub dies: Option<usize>,
    pub top_sps: Option<usize>,
    pub stepper: Option<tpb_cosim::scenario::collective::Stepper>,
}

pub(super) fn sim(
    name: &str,
    arch: Arch,
    out: TraceOut<'_>,
    cycles: Option<u64>,
    window: Option<(String, u64)>,
    Collective { dies, top_sps, stepper }: Collective,
) -> Result<(), CliError> {
    use tpb_cosim::scenario::{self as sc, Report, ScenarioFile};
    let mut f = ScenarioFile::find(name)?;
    if let Some(s) = stepper {
        let c = f.collective.as_mut().ok_or_else(|| CliError::Sim(format!("--stepper: {} is not a collective (its tapes have no stepper to choose)", f.name)))?;
        c.stepper = s;
    }
    // A collective runs from its data, as the file `tpb scenario emit` writes.
    if top_sps.is_some() && f.collective.is_none() {
        return Err(CliError::Sim(format!("--top-sps: {} is not a collective (it has no TOP_SPs to choose)", f.name)));
    }
    let f = f.through_data(name, arch, dies, top_sps)?;
    let scenario = f.scenario()?;
    if !f.applies(arch) {
        return Err(CliError::Sim(format!("scenario '{}' is for {}, not {}", f.name, f.archs.join(", "), arch.name())));
    }
    let TraceOut { vcd, fst, internals } = out;
    let trace = vcd.or(fst);
    let dies = scenario.dies(dies)?;
    if let Some(d) = trace.and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|source| CliError::Io { path: d.into(), source })?;
    }
    if window.is_some() && trace.is_none() {
        return Err(CliError::Sim("--window needs --vcd or --fst (where the window goes)".into()));
    }
    if internals && trace.is_none() {
        return Err(CliError::Sim("--trace-internals needs --vcd or --fst (where the trace goes)".into()));
    }
    if internals && !scenario.single_system() {
        return Err(CliError::Sim(format!("--trace-internals: not for {} (its dies run the compiled-in models, which trace two levels)", f.name)));
    }
    if window.is_some() && !scenario.single_system() {
        return Err(CliError::Sim(format!("--window: not for {} (it runs several dies and traces every die whole)", f.name)));
    }
    // An FST, or a trace of the blocks' insides, is written by a model built
    // for it (once, cached under target/trace-models/; before the clock
    // starts); a VCD of two levels by the compiled-in one.
    let m = tpb_cosim::dut::TraceModel { fst: fst.is_some(), internals };
    let built = if scenario.single_system() && m != tpb_cosim::dut::TraceModel::default() {
        let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
        let what = m.prefix(arch);
        Some(tpb_cosim::dut::Dut::built(arch, m, jobs, &|s| eprintln!("tpb sim: {s} (model {what}: built once)"))?)
    } else {
        None
    };
    let limit = cycles.unwrap_or(f.cycles);
    let bar = indicatif::ProgressBar::new(limit);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} cycle {pos} of at most {len} per phase [{elapsed}]")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.set_message(format!("{} on {}", f.name, arch.name()));
    let t0 = std::time::Instant::now();
    let mut c0 = 0;
    let mut traces: Vec<std::path::PathBuf> = Vec::new();
    // What the scheduler counted, also when a check failed (of the kinds on
    // dies, the collectives say so; the mesh and tsync only through their Report).
    let mut ran = tpb_cosim::sched::Stats::default();
    let (result, window_seen): (Result<Report, sc::ScenarioError>, Option<Result<String, String>>) = if !scenario.single_system() {
        if let Some(p) = trace {
            let k = scenario.top_sps();
            traces = (0..dies * k).map(|n| tpb_cosim::mesh::node_path(p, n, k)).collect();
        }
        let r = match scenario.runs() {
            sc::Runs::Dies(k) => k.run_dies_counted(arch, dies, limit, trace, &mut ran),
            sc::Runs::OneSystem(_) => scenario.run_dies(arch, dies, limit, trace),
        };
        (r, None)
    } else {
        let dut = match built {
            Some(d) => d,
            None => tpb_cosim::dut::Dut::new(arch)?,
        };
        let mut c = tpb_cosim::sched::Cosim::on(dut).map_err(sc::ScenarioError::from)?;
        if let Some(p) = trace {
            traces.push(p.to_path_buf());
            match &window {
                None => c.trace(p)?,
                Some((spec, n)) => {
                    let t = parse_trigger(c.map(), spec)?;
                    c.dut.trace_window(p, t, tpb_cosim::dut::WindowEnd::After(*n))?;
                }
            }
        }
        c.progress = Some(bar.clone());
        c0 = c.stats.cycles;
        let r = scenario.run_on(&mut c, limit);
        ran = c.stats;
        let closed = c.dut.trace_close();
        let r = r.and_then(|r| closed.map(|()| r).map_err(|e| sc::ScenarioError::from(tpb_cosim::sched::CosimError::from(e))));
        let w = window.as_ref().map(|_| match c.dut.window() {
            tpb_cosim::dut::Window::Done { from, to } => Ok(format!("traced cycles {from}..{to}")),
            tpb_cosim::dut::Window::Open { from } => Ok(format!("traced from cycle {from} to the end of the run")),
            tpb_cosim::dut::Window::Failed(e) => Err(format!("the trigger fired but the trace could not be opened: {e}")),
            tpb_cosim::dut::Window::Idle | tpb_cosim::dut::Window::Armed => Err(format!("the trigger never fired in the run's {} cycles: no trace was written", c.stats.cycles)),
        });
        (r, w)
    };
    bar.finish_and_clear();
    let wall = t0.elapsed().as_secs_f64();
    let (s, checks) = match &result {
        Ok(r) => (r.stats, r.checks.len()),
        Err(_) => (ran, 0),
    };
    let tb = summary(&f.name, arch, &result, &s, checks, wall, c0)?;
    // A trace not written whole has no waves or diagrams: its error, and stop.
    let result = match result {
        Err(e) if e.is_trace_write() => return Err(e.into()),
        r => r,
    };
    if let Some(Err(why)) = &window_seen {
        // Leave no empty file behind to be mistaken for a trace.
        for p in &traces {
            if std::fs::metadata(p).is_ok_and(|m| m.len() == 0) {
                let _ = std::fs::remove_file(p);
            }
        }
        let spec = window.as_ref().map_or("", |(w, _)| w.as_str());
        return Err(CliError::Sim(format!("--window {spec}: {why}")));
    }
    let view = result.as_ref().ok().and_then(|r| scenario.key_view(r, &s)).filter(|_| window.is_none());
    // A .gtkw needs the signals' widths only: each trace's header.
    for p in &traces {
        let g = p.with_extension("gtkw");
        tpb_cosim::waves::write_gtkw(p, arch, &g, view.as_ref())?;
        println!("waves: {} (GTKWave: gtkwave {})", p.display(), g.display());
    }
    // The cross-die diagram of a run on several dies, from the mesh's log.
    if let (Some(p), Ok(r)) = (trace, &result) {
        crossings_diagram(p, r, &f.name, arch)?;
    }
    if let Some(Ok(w)) = window_seen {
        println!("window: {w}");
    }
    // Timing diagrams of what people look at, drawn from the trace.
    let mut d = scenario.diagrams(&s, view.as_ref());
    // With --trace-groups, only the diagrams of the groups traced.
    if let Some(traced) = tpb_cosim::dut::trace_groups() {
        for (g, ..) in d.iter().filter(|x| !traced.contains(&x.0)) {
            println!("diagram: {g}: not drawn (its group was not traced: --trace-groups)");
        }
        d.retain(|x| traced.contains(&x.0));
    }
    if let (Some(p), None, Ok(_), false) = (trace, &window, &result, d.is_empty()) {
        let p = if scenario.single_system() { p.to_path_buf() } else { tpb_cosim::mesh::node_path(p, 0, scenario.top_sps()) };
        // The diagrams' signals, read once and only as far as the last diagram
        // ends (two cycles on: the values held at its end are read too).
        let drawn: Vec<_> = d.iter().map(|x| x.0).collect();
        let signals = tpb_cosim::waves::group_signals(arch, &drawn);
        let until = d.iter().map(|x| x.2).max().map(|to| tb.start(to + 2));
        let dump = tpb_cosim::waves::Dump::load_until(&p, &signals, until)?;
        let namer = tpb_cosim::waves::names::Namer::for_arch(arch)?;
        let markers = view.as_ref().map(|v| v.markers.clone()).unwrap_or_default();
        for (group, from, to) in d {
            let svg = p.with_extension(format!("{group}.svg"));
            write(&svg, &tpb_cosim::waves::render_dump(&dump, &namer, tb, group, from, to, &markers)?)?;
            println!("diagram: {} (cycles {from}..{to})", svg.display());
        }
    }
    result.map(|_| ()).map_err(CliError::from)
}

/// The summary table of a `tpb sim` run, its events and its time base.
fn summary(
    name: &str,
    arch: Arch,
    result: &Result<tpb_cosim::scenario::Report, tpb_cosim::scenario::ScenarioError>,
    s: &tpb_cosim::sched::Stats,
    checks: usize,
    wall: f64,
    c0: u64,
) -> Result<tpb_cosim::waves::Timebase, CliError> {
    // The first column as wide as the name, so long names keep the columns aligned.
    let w = name.len().max(8);
    println!("{:<w$} arch     result  cycles   wall     cycles/s  transactions  core txns  doorbells  instructions  stalls released  checks", "scenario");
    println!(
        "{:<w$} {:<8} {:<7} {:<8} {:<8} {:<9.0} {:<13} {:<10} {:<10} {:<13} {:<16} {}",
        name,
        arch.name(),
        if result.is_ok() { "PASS" } else { "FAIL" },
        s.cycles,
        format!("{wall:.2}s"),
        s.cycles.saturating_sub(c0) as f64 / wall,
        s.transactions,
        s.core_transactions,
        s.doorbells,
        s.retired,
        s.stalls_released,
        checks
    );
    if let Ok(r) = &result {
        for (cy, what) in &r.events {
            println!("  cycle {cy:>7}  {what}");
        }
        for (node, lines) in &r.logs {
            println!("{node}:");
            for l in lines {
                println!("  {l}");
            }
        }
    }
    let tb = tpb_cosim::waves::Timebase::of(arch)?;
    println!(
        "time: one cycle = {} ps ({:.0} MHz, the [D] clock of arch.toml [sim]); {} cycles = {:.3} us",
        tb.period_ps,
        tb.mhz(),
        s.cycles,
        (s.cycles * tb.period_ps) as f64 / 1e6
    );
    Ok(tb)
}

/// The cross-die diagram of a run on several dies (none if nothing crossed).
fn crossings_diagram(p: &std::path::Path, r: &tpb_cosim::scenario::Report, name: &str, arch: Arch) -> Result<(), CliError> {
    if !r.crossings.is_empty() {
        let namer = tpb_cosim::waves::names::Namer::for_arch(arch)?;
        let title = format!("{} on {}: {} dies, link latency {} cycles, {} crossings", name, arch.name(), r.get("dies"), r.get("link_latency"), r.crossings.len());
        let svg = p.with_extension("crossings.svg");
        write(
            &svg,
            &tpb_cosim::waves::crossings::render_crossings(
                &r.crossings,
                r.get("dies") as usize * (r.get("top_sps") as usize).max(1),
                (r.get("top_sps") as usize).max(1),
                &namer,
                &title,
            ),
        )?;
        println!("diagram: {} (cross-die requests)", svg.display());
    }
    Ok(())
}

/// `tpb scenario emit`: a built-in collective as one file of data.
pub(super) fn emit(name: &str, arch: Arch, dies: Option<usize>, top_sps: Option<usize>, output: Option<&std::path::Path>) -> Result<(), CliError> {
    let f = tpb_cosim::scenario::ScenarioFile::find(name)?;
    let mut command = format!("tpb scenario emit {name} --arch {}", arch.name());
    if let Some(d) = dies {
        command += &format!(" --dies {d}");
    }
    if let Some(k) = top_sps {
        command += &format!(" --top-sps {k}");
    }
    let source = if name.ends_with(".toml") { name.to_string() } else { format!("cosim/scenarios/{name}.toml") };
    let text = tpb_cosim::scenario::collective::emit_file(&f, &source, arch, dies, top_sps, &command)?;
    match output {
        Some(p) => write(p, &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
