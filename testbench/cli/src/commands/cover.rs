//! `tpb cover`: coverage of each generation over scenarios and testbench
//! files (`tpb_cosim::cover`): RTL lines and toggles, register fields, the
//! seeds' cases; a summary of each printed.

use super::CliError;
use std::path::{Path, PathBuf};
use tpb_cosim::cover::points::{Points, COLLECTIVE_DIES};
use tpb_cosim::cover::{self, Session};
use tpb_cosim::scenario::ScenarioFile;
use tpb_models::regmap::cover::RegCoverage;
use tpb_models::regmap::Arch;
use tpb_testbench::tb::file::{self as tbfile, Model, RunOpts, TbFile};

/// One run of a generation's plan.
enum Run {
    /// A scenario, its dies, and whether a refused die count is no failure.
    Scenario(String, Option<usize>, bool),
    Testbench(Box<TbFile>),
    /// Seeded random traffic against the golden model, this many cycles.
    Lockstep(u64),
}

/// Cycles of the lockstep run among the defaults (`lockstep` by name,
/// `lockstep:N` for N cycles).
const LOCKSTEP_CYCLES: u64 = 200_000;
/// Its seed (the suite's lockstep tests use their own).
const LOCKSTEP_SEED: u64 = 0xc0;

fn other(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// A testbench file (its steps are `[[step]]` tables or `step = [ … ]`), not a scenario.
fn is_testbench(path: &str) -> bool {
    let steps = |l: &str| l.starts_with("[[step]]") || l.strip_prefix("step").is_some_and(|r| r.trim_start().starts_with('='));
    path.ends_with(".toml") && std::fs::read_to_string(path).is_ok_and(|t| t.lines().any(|l| steps(l.trim_start())))
}

/// The built-in runs of `arch`: every scenario (a collective on each of
/// [`COLLECTIVE_DIES`]), the example testbenches (with their firmware
/// ones) and the CSR checks
/// generated from the map (`tpb test --generated`).
fn defaults(arch: Arch) -> Result<Vec<Run>, CliError> {
    let (one, dies) = cover::default_scenarios(arch)?;
    let mut v: Vec<Run> = one.into_iter().map(|n| Run::Scenario(n, None, false)).collect();
    for name in dies {
        if ScenarioFile::find(&name)?.collective.is_some() {
            v.extend(COLLECTIVE_DIES.iter().map(|&n| Run::Scenario(name.clone(), Some(n), true)));
        } else {
            v.push(Run::Scenario(name, None, false));
        }
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["testbench/examples", "testbench/examples/firmware"] {
        let dir = tpb_cosim::regen::repo_root().join(sub);
        files.extend(std::fs::read_dir(&dir).map_err(|e| other(format!("{}: {e}", dir.display())))?.filter_map(|e| e.ok().map(|e| e.path())));
    }
    files.sort();
    for p in files.iter().filter(|p| is_testbench(&p.to_string_lossy())) {
        let f = TbFile::load(p)?;
        if f.archs.contains(&arch) {
            v.push(Run::Testbench(Box::new(f)));
        }
    }
    v.extend(tpb_testbench::tb::csr::generated(arch).0.into_iter().map(|f| Run::Testbench(Box::new(f))));
    v.push(Run::Lockstep(LOCKSTEP_CYCLES));
    Ok(v)
}

/// The runs of `files` on `arch`; one that is not for `arch` is an error
/// when the generation was asked for, else left out.
fn plan(arch: Arch, files: &[String], dies: Option<usize>, asked: bool) -> Result<Vec<Run>, CliError> {
    if files.is_empty() {
        return defaults(arch);
    }
    let mut v = Vec::new();
    for f in files {
        if let Some(n) = f.strip_prefix("lockstep") {
            let cycles = match n.strip_prefix(':') {
                Some(k) => k.parse().map_err(|_| other(format!("'{f}': lockstep:CYCLES, a number of cycles")))?,
                None if n.is_empty() => LOCKSTEP_CYCLES,
                None => return Err(other(format!("'{f}': lockstep or lockstep:CYCLES"))),
            };
            v.push(Run::Lockstep(cycles));
            continue;
        }
        let (archs, run) = if is_testbench(f) {
            let t = TbFile::load(Path::new(f))?;
            (t.archs.iter().map(|a| a.name().to_string()).collect::<Vec<_>>(), Run::Testbench(Box::new(t)))
        } else {
            (ScenarioFile::find(f)?.archs, Run::Scenario(f.clone(), dies, false))
        };
        if archs.iter().any(|a| a == arch.name()) {
            v.push(run);
        } else if asked {
            return Err(other(format!("'{f}' is for {}, not {}", archs.join(", "), arch.name())));
        }
    }
    Ok(v)
}

pub fn cover(archs: Vec<Arch>, files: &[String], dies: Option<usize>, out: &Path, html: bool) -> Result<(), CliError> {
    let asked = !archs.is_empty();
    let archs = if asked { archs } else { Arch::ALL.to_vec() };
    let model_dir = tpb_cosim::regen::repo_root().join("target/cover-model");
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let say = |s: &str| eprintln!("tpb cover: {s}");
    let mut failed = 0;
    for arch in archs {
        let runs = plan(arch, files, dies, asked)?;
        if runs.is_empty() {
            say(&format!("nothing to run on {}", arch.name()));
            continue;
        }
        let mut s = Session::open(arch, out, &model_dir, jobs, &say)?;
        for run in runs {
            match run {
                Run::Scenario(name, dies, optional) => s.run_scenario(&name, dies, optional, &say)?,
                Run::Testbench(f) => {
                    let opts = RunOpts { register_coverage: true, model: Some(Model(s.model())), skip_traces: true, ..Default::default() };
                    let o = tbfile::run(&f, arch, &opts);
                    let result = o.result.as_ref().map(|_| o.cycles).map_err(|e| format!("{}: {} (cycle {})", e.step, e.error, e.cycle));
                    let traces = match o.traces_skipped {
                        0 => String::new(),
                        n => format!(" ({n} trace step(s) passed over: the coverage model writes no trace)"),
                    };
                    say(&format!("{} on {}: {}{traces}", f.name, arch.name(), result.as_ref().map_or_else(|e| format!("FAILED: {e}"), |c| format!("{c} cycles"))));
                    s.add(&f.name, result, o.regs.as_ref(), o.points.as_ref())?;
                }
                Run::Lockstep(n) => {
                    let map = tpb_models::regmap::builtin(arch)?;
                    let (mut regs, mut points) = (RegCoverage::new(&map), Points::new(&map, "lockstep"));
                    regs.source("lockstep");
                    let mut dut = s.model()(arch).map_err(other)?;
                    let r = tpb_testbench::lockstep::run(&mut dut, &map, LOCKSTEP_SEED, n, &mut regs, &mut points);
                    drop(dut); // writes its line and toggle counts
                    say(&format!(
                        "lockstep on {}: {}",
                        arch.name(),
                        r.as_ref().map_or_else(|e| format!("FAILED: {e}"), |_| format!("{n} cycles, every output as the golden model's"))
                    ));
                    s.add("lockstep", r.map(|_| n), Some(&regs), Some(&points))?;
                }
            }
        }
        let c = s.finish(html)?;
        failed += c.runs.iter().filter(|r| r.1.is_err()).count();
        report(&c);
    }
    if failed > 0 {
        return Err(CliError::Other(format!("{failed} run(s) failed (their counts are in the reports)")));
    }
    Ok(())
}

fn report(c: &cover::Covered) {
    let (l, t) = c.summary.total();
    let names: Vec<&str> = c.runs.iter().map(|r| r.0.as_str()).collect();
    println!("## {} ({} run(s): {})\n", c.arch.name(), c.runs.len(), names.join(", "));
    print!("{}", c.summary.table());
    let r = c.registers.total();
    let (ph, pn) = c.points.covered();
    println!(
        "\n{}: lines {:.1}%, toggles {:.1}%; register fields written {}, read {}, checked {} of {}; points {ph} of {pn}",
        c.arch.name(),
        l.percent(),
        t.percent(),
        r.written,
        r.read,
        r.checked,
        r.fields
    );
    let dir = c.dat.parent().unwrap_or(Path::new("."));
    println!(
        "{} (lcov), {}{}, {}/registers.html, {}/points.md\n",
        c.info.display(),
        c.dat.display(),
        c.html.as_ref().map(|h| format!(", {}/index.html", h.display())).unwrap_or_default(),
        dir.display(),
        dir.display()
    );
}
