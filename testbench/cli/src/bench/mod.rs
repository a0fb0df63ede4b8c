//! `tpb bench`: how fast the Verilated tops run on this machine, in one
//! table. Per generation:
//!
//! - the bare top under random BAR0 + core-port traffic ([`tpb_testbench::traffic`]);
//! - the co-simulation of a long `bringup` (≥ `--cycles`, 200k by default:
//!   the 8 Q7 cores sum long series through their RTL ports), untraced, with
//!   a VCD, with an FST converted from a VCD when it closes and with one
//!   written by the model itself (`Dut::writing_fst`, built first under
//!   `target/trace-models/` if need be), with a VCD of every level, the
//!   blocks' insides too (`--trace-internals`, built there too: the other
//!   traces have two levels), with a VCD of two signal groups (run_stall,
//!   q7_core0: `--trace-groups`), and with a 200-cycle trace window armed on the Q7
//!   release write, measured in rounds (`cosim`); each traced run's time is
//!   also given as a ratio to the untraced run of its round (median over the
//!   rounds);
//! - `tpb sim doorbell` as a whole process (CAYMAN/MARIANA), without and
//!   with `--vcd`, `tpb sim barrier-global --dies 16`, whose time is
//!   mostly its dies' set-up, and `tpb sim allreduce-ring --dies 16`;
//! - scale (CAYMAN/MARIANA, `scale_rows`): a mesh of 1, 2, 4, 8 and 16
//!   dies whose TOP_SPs all wait on a semaphore (die-cycles/s), and
//!   `allreduce-ring` on 2..16 dies and on 2 dies with 2, 4 and 8 TOP_SPs
//!   each (top-cycles/s from the release to the end, a top being a die's
//!   TOP_SP with its TPB, and the whole run's wall time, set-up and checks
//!   included);
//! - threads (CAYMAN/MARIANA, `mesh::threads_rows`): the 16-die polling
//!   ring and `allreduce-hier` on 8 dies, on one thread and on the
//!   machine's cores (at least 2), with the speed-up under the table.
//!
//! Each figure is the median of `--runs` runs (3) with its spread (max / min
//! − 1): the host is noisy. With `--before`, the same measurements on the
//! previous emission of each top (rust-hdl's own generator, built now as a
//! temporary shared library under `target/bench-before/`, never checked in,
//! and scheduled as before: three evaluations per cycle) stand beside them;
//! `--before-tpb PATH` times a previous `tpb` binary for the process column.

use std::path::{Path, PathBuf};
use std::time::Instant;
use tpb_cosim::dut::Dut;
use tpb_cosim::vlbuild;
use tpb_hdl::top::TopSim;
use tpb_models::golden::top::MemBits;
use tpb_models::regmap::{builtin, Arch};

mod cosim;
mod mesh;
use mesh::{scale_waiting, SCALE_DIES};

/// Arguments of `tpb bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Generations to measure (default: all three).
    #[arg(long = "arch", value_parser = ["sunda", "cayman", "mariana"])]
    pub archs: Vec<String>,
    /// Also measure the previous emission (builds it first: minutes per generation).
    #[arg(long)]
    pub before: bool,
    /// A previous `tpb` binary to time `sim doorbell` with, for the process column.
    #[arg(long)]
    pub before_tpb: Option<PathBuf>,
    /// Runs behind each median.
    #[arg(long, default_value_t = 3, value_parser = crate::commands::args::parse_count)]
    pub runs: usize,
    /// Cycles of the bare-top run and the least the co-simulation runs.
    #[arg(long, default_value_t = 200_000, value_parser = crate::commands::args::parse_cycles)]
    pub cycles: u64,
    /// Compiler jobs for the `--before` builds (default: the machine's cores).
    #[arg(long, value_parser = crate::commands::args::parse_count)]
    pub jobs: Option<usize>,
    /// Where the `--before` models are built (kept between runs).
    #[arg(long, default_value = "target/bench-before")]
    pub before_dir: PathBuf,
    /// Only these measurements (default: all).
    #[arg(long, value_parser = ["bare", "cosim", "process", "scale", "threads"])]
    pub only: Vec<String>,
}

impl BenchArgs {
    fn wants(&self, what: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == what)
    }
}

/// Why the benchmark stopped.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Build(#[from] vlbuild::BuildError),
    #[error(transparent)]
    Verilator(#[from] tpb_cosim::verilator::VlError),
    #[error(transparent)]
    Cosim(#[from] tpb_cosim::sched::CosimError),
    #[error(transparent)]
    Scenario(#[from] tpb_cosim::scenario::ScenarioError),
    #[error(transparent)]
    Hal(#[from] tpb_models::hal::HalError),
    #[error(transparent)]
    Mmio(#[from] tpb_models::hal::MmioError),
    #[error(transparent)]
    Regmap(#[from] tpb_models::regmap::RegmapError),
    #[error(transparent)]
    Firmware(#[from] tpb_cosim::firmware::FirmwareError),
    #[error(transparent)]
    Layout(#[from] tpb_hdl::top::LayoutError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{exe}: {source}")]
    Spawn { exe: String, source: std::io::Error },
    /// A run that finished but not as a benchmark needs it (too few cycles, a check).
    #[error("{0}")]
    Run(String),
}

fn run_err(why: &str) -> BenchError {
    BenchError::Run(why.to_string())
}

/// A median with the spread of the runs behind it.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    pub median: f64,
    pub spread: f64,
}

impl Figure {
    fn of(mut v: Vec<f64>) -> Figure {
        v.sort_by(|a, b| a.total_cmp(b));
        Figure { median: v[v.len() / 2], spread: v[v.len() - 1] / v[0] - 1.0 }
    }
    fn show(&self, unit: Unit) -> String {
        let v = match unit {
            Unit::Rate => group(self.median.round() as u64),
            Unit::Seconds => format!("{:.2} s", self.median),
        };
        format!("{v} ±{:.0}%", self.spread * 100.0)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Unit {
    /// cycles/s: more is better.
    Rate,
    /// wall time: less is better.
    Seconds,
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The tops one column measures: the compiled-in models, or the previous emission.
enum Engine2 {
    Now,
    Before { bare: Box<dyn Fn() -> Result<Dut, BenchError>>, traced: Box<dyn Fn() -> Result<Dut, BenchError>> },
}

impl Engine2 {
    fn bare(&self, arch: Arch) -> Result<Dut, BenchError> {
        match self {
            Engine2::Now => Ok(Dut::new(arch)?),
            Engine2::Before { bare, .. } => bare(),
        }
    }
    fn traced(&self, arch: Arch) -> Result<Dut, BenchError> {
        match self {
            Engine2::Now => Ok(Dut::new(arch)?),
            Engine2::Before { traced, .. } => traced(),
        }
    }
}

/// Cycles per second of a bare top under `n` cycles of seeded random traffic.
fn bare_rate(mut d: Dut, n: u64) -> f64 {
    let map = builtin(d.arch()).expect("built-in map");
    let mut t = tpb_testbench::traffic::Traffic::new(&map, MemBits::full(&map.params), 42);
    let cycles: Vec<_> = (0..n).map(|_| t.next_cycle()).collect();
    d.reset();
    let t0 = Instant::now();
    std::hint::black_box(bare_cycles(&mut d, &cycles));
    n as f64 / t0.elapsed().as_secs_f64()
}

/// The timed loop of `bare_rate`, on its own so an instruction counter can
/// count it alone (`valgrind --tool=callgrind --toggle-collect='*bare_cycles*'`).
#[inline(never)]
pub fn bare_cycles(d: &mut Dut, cycles: &[tpb_testbench::traffic::Cycle]) -> u64 {
    let mut sink = 0u64;
    for c in cycles {
        d.drive(c.reset, c.req, &c.pins);
        sink = sink.wrapping_add(u64::from(d.outputs().rsp.rdata));
        d.tick();
    }
    sink
}

/// Wall seconds of `tpb sim RUN… --arch A [--vcd …]` as a process.
fn process_seconds(tpb: &Path, run: &[&str], arch: Arch, vcd: Option<&Path>) -> Result<f64, BenchError> {
    let mut cmd = std::process::Command::new(tpb);
    cmd.arg("sim").args(run).args(["--arch", arch.name()]);
    if let Some(v) = vcd {
        cmd.arg("--vcd").arg(v);
    }
    let t0 = Instant::now();
    let o = cmd.output().map_err(|source| BenchError::Spawn { exe: tpb.display().to_string(), source })?;
    let wall = t0.elapsed().as_secs_f64();
    if !o.status.success() {
        return Err(BenchError::Run(format!(
            "{} sim {} --arch {} failed:\n{}{}",
            tpb.display(),
            run.join(" "),
            arch.name(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )));
    }
    Ok(wall)
}

/// The runs timed as whole processes: a short one, traced and not, and
/// two of many dies: a barrier, whose set-up (a model, firmware and a HAL
/// bring-up a die) is most of its time, and a ring all-reduce, whose
/// programs are planned and lowered from data first.
const PROCESS_RUNS: [(&[&str], bool); 4] =
    [(&["doorbell"], false), (&["doorbell"], true), (&["barrier-global", "--dies", "16"], false), (&["allreduce-ring", "--dies", "16"], false)];

/// One row of the table.
struct Row {
    arch: Arch,
    what: String,
    unit: Unit,
    now: Option<Figure>,
    before: Option<Figure>,
    /// A traced co-simulation row: its time against the untraced run of
    /// the same round, over the rounds (`cosim::rows`).
    paired: Option<Figure>,
}

fn repeat(runs: usize, mut f: impl FnMut() -> Result<f64, BenchError>) -> Result<Figure, BenchError> {
    Ok(Figure::of((0..runs.max(1)).map(|_| f()).collect::<Result<Vec<_>, _>>()?))
}

/// The previous emission of `arch`'s top, built (or reused) under `dir`.
fn before_engine(arch: Arch, dir: &Path, jobs: usize) -> Result<Engine2, BenchError> {
    let map = builtin(arch)?;
    let top = format!("{}_tpb_top", arch.name());
    let verilog = tpb_hdl::top::legacy_verilog(&map, &top)?;
    let say = |s: &str| eprintln!("tpb bench --before: {s}");
    // As the previous build: verilator -O3, default X-initialisation; the
    // bare top untraced, the co-simulated one traced with its probe wrapper.
    let old_args = |prefix: &str, traced: bool| {
        let mut a: Vec<String> = ["--cc", "-O3", "--prefix", prefix].iter().map(|s| s.to_string()).collect();
        if traced {
            a.push("--trace".into());
        }
        a
    };
    let mut bare = vlbuild::Spec::new(&format!("Vbefore_{}", arch.name()), verilog.clone(), &top, None, false);
    bare.verilator_args = old_args(&bare.prefix, false);
    let mut traced = vlbuild::Spec::new(&format!("Vbefore_{}_trace", arch.name()), verilog, &top, Some(arch.name()), true);
    traced.verilator_args = old_args(&traced.prefix, true);
    traced.sampled = false;
    // Build now (and say so), load per run.
    for s in [&bare, &traced] {
        drop(vlbuild::build(s, &dir.join(&s.prefix), jobs, &say)?);
    }
    let (d1, d2) = (dir.join(&bare.prefix), dir.join(&traced.prefix));
    Ok(Engine2::Before {
        bare: Box::new(move || Ok(Dut::with_model(arch, vlbuild::build(&bare, &d1, jobs, &|_| {})?)?.with_negedge_eval(true))),
        traced: Box::new(move || Ok(Dut::with_model(arch, vlbuild::build(&traced, &d2, jobs, &|_| {})?)?.with_negedge_eval(true))),
    })
}

/// Measure and print the table (Markdown).
pub fn run(args: &BenchArgs, tpb: &Path) -> Result<(), BenchError> {
    let archs: Vec<Arch> =
        if args.archs.is_empty() { vec![Arch::Sunda, Arch::Cayman, Arch::Mariana] } else { args.archs.iter().map(|a| Arch::parse(a).expect("clap checked the name")).collect() };
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let dir = std::env::temp_dir().join(format!("tpb-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut rows: Vec<Row> = Vec::new();
    for &arch in &archs {
        let before = if args.before { Some(before_engine(arch, &args.before_dir, jobs)?) } else { None };
        let engines: Vec<(bool, &Engine2)> = std::iter::once((false, &Engine2::Now)).chain(before.as_ref().map(|b| (true, b))).collect();
        let mut add = |what: String, unit: Unit, f: &dyn Fn(&Engine2) -> Result<Figure, BenchError>| -> Result<(), BenchError> {
            let mut row = Row { arch, what, unit, now: None, before: None, paired: None };
            for (is_before, e) in &engines {
                eprintln!("tpb bench: {} {}{}", arch.name(), row.what, if *is_before { " (before)" } else { "" });
                let fig = f(e)?;
                if *is_before {
                    row.before = Some(fig);
                } else {
                    row.now = Some(fig);
                }
            }
            rows.push(row);
            Ok(())
        };
        let n = args.cycles;
        if args.wants("bare") {
            add(format!("bare top, random BAR0 traffic, {} cycles (cycles/s)", group(n)), Unit::Rate, &|e| repeat(args.runs, || Ok(bare_rate(e.bare(arch)?, n))))?;
        }
        if args.wants("cosim") {
            rows.extend(cosim::rows(arch, &engines, args.runs, n, jobs, &dir)?);
        }
        if arch != Arch::Sunda && args.wants("process") {
            for (run, vcd) in PROCESS_RUNS {
                let what = format!("`tpb sim {}{}`, whole process (s)", run.join(" "), if vcd { " --vcd" } else { "" });
                let v = dir.join(format!("{}.{}.vcd", run[0], arch.name()));
                let mut row = Row { arch, what, unit: Unit::Seconds, now: None, before: None, paired: None };
                eprintln!("tpb bench: {} {}", arch.name(), row.what);
                row.now = Some(repeat(args.runs, || process_seconds(tpb, run, arch, vcd.then_some(v.as_path())))?);
                if let Some(old) = &args.before_tpb {
                    row.before = Some(repeat(args.runs, || process_seconds(old, run, arch, vcd.then_some(v.as_path())))?);
                }
                rows.push(row);
            }
        }
    }
    for &arch in archs.iter().filter(|a| **a != Arch::Sunda) {
        if args.wants("scale") {
            mesh::scale_rows(arch, args, &mut rows)?;
        }
        if args.wants("threads") {
            mesh::threads_rows(arch, args, &mut rows)?;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    print_table(&rows, args);
    Ok(())
}

fn print_table(rows: &[Row], args: &BenchArgs) {
    let before = rows.iter().any(|r| r.before.is_some());
    println!("tpb bench: medians of {} runs, ± the spread of those runs (max / min − 1)", args.runs);
    println!();
    if before {
        println!("| top | measurement | before | now | change |");
        println!("|---|---|---:|---:|---:|");
    } else {
        println!("| top | measurement | now |");
        println!("|---|---|---:|");
    }
    for r in rows {
        let show = |f: &Option<Figure>| f.map_or("—".to_string(), |f| f.show(r.unit));
        if before {
            let change = match (r.before, r.now, r.unit) {
                (Some(b), Some(n), Unit::Rate) => format!("{:.1}× faster", n.median / b.median),
                (Some(b), Some(n), Unit::Seconds) => format!("{:.1}× shorter", b.median / n.median),
                _ => "—".into(),
            };
            println!("| {} | {} | {} | {} | {change} |", r.arch.name(), r.what, show(&r.before), show(&r.now));
        } else {
            println!("| {} | {} | {} |", r.arch.name(), r.what, show(&r.now));
        }
    }
    // Cost per die against one die (the goal: within 1.3×).
    for arch in rows.iter().map(|r| r.arch).collect::<std::collections::BTreeSet<_>>() {
        use tpb_cosim::firmware::TapeWait;
        let rate = |n: usize, w: TapeWait| rows.iter().find(|r| r.arch == arch && r.what == scale_waiting(n, w)).and_then(|r| r.now).map(|f| f.median);
        if let Some(one) = rate(1, TapeWait::Poll) {
            let per: Vec<String> = SCALE_DIES.iter().filter_map(|&n| rate(n, TapeWait::Poll).map(|r| format!("{n} dies {:.2}×", one / r))).collect();
            println!("{}: cost per die-cycle against one polling die, all polling: {}", arch.name(), per.join(", "));
            let per: Vec<String> = SCALE_DIES.iter().filter_map(|&n| rate(n, TapeWait::Waiti).map(|r| format!("{n} dies {:.3}×", one / r))).collect();
            println!("{}: cost per die-cycle against one polling die, all asleep (skipped): {}", arch.name(), per.join(", "));
        }
    }
    // Dies on threads against one thread (issue 41's goal: ≥ 1.7× at 2 threads).
    for arch in rows.iter().map(|r| r.arch).collect::<std::collections::BTreeSet<_>>() {
        if let Some(line) = mesh::threads_summary(rows, arch) {
            println!("{line}");
        }
    }
    // Co-simulation against the bare top (the goal: ≥ 0.8×).
    println!();
    for arch in rows.iter().map(|r| r.arch).collect::<std::collections::BTreeSet<_>>() {
        let get = |p: &str| rows.iter().find(|r| r.arch == arch && r.what.starts_with(p)).and_then(|r| r.now);
        if let (Some(b), Some(c)) = (get("bare top"), get("co-simulation")) {
            println!("{}: untraced co-simulation runs at {:.2}× the bare top", arch.name(), c.median / b.median);
        }
    }
    // Rising edges evaluated alone against merged with the next inputs, paired by round.
    for arch in rows.iter().map(|r| r.arch).collect::<std::collections::BTreeSet<_>>() {
        if let Some(f) = rows.iter().find(|r| r.arch == arch && r.what.contains(cosim::EDGES_ALONE)).and_then(|r| r.paired) {
            println!(
                "{}: untraced co-simulation with each rising edge evaluated alone takes {:.2}× ±{:.0}% the time of edges merged with the next inputs",
                arch.name(),
                f.median,
                f.spread * 100.0
            );
        }
    }
    // Tracing against the untraced run of the same round (issue 41's goals: VCD ≤ 2×, FST ≤ 2.5×).
    for arch in rows.iter().map(|r| r.arch).collect::<std::collections::BTreeSet<_>>() {
        let times: Vec<String> = cosim::RATIO_NAMES
            .iter()
            .filter_map(|(n, l)| {
                rows.iter()
                    .find(|r| r.arch == arch && r.what.starts_with("co-simulation") && r.what.contains(l))
                    .and_then(|r| r.paired)
                    .map(|f| format!("{n} {:.2}× ±{:.0}%", f.median, f.spread * 100.0))
            })
            .collect();
        if !times.is_empty() {
            println!("{}: traced co-simulation time against untraced, paired by round (median ± spread): {}", arch.name(), times.join(", "));
        }
    }
}
