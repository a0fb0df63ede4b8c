//! `tpb bench`'s co-simulation rows: a long `bringup`, untraced and traced
//! each way. Each engine's runs go round the ways (the first run of every
//! way, then the second, ...), so a slow spell of the host falls on every
//! row alike; each traced run is also paired with the untraced run of its
//! round, and the ratio line gives the median of those pairs.

use super::{group, BenchError, Engine2, Figure, Row, Unit};
use std::path::Path;
use std::time::Instant;
use tpb_cosim::dut::{Dut, TraceModel, Trigger, WindowEnd};
use tpb_cosim::scenario;
use tpb_cosim::sched::Cosim;
use tpb_models::regmap::{Arch, Engine};

/// How the co-simulation run is traced.
#[derive(Clone, Copy)]
pub(super) enum Tracing {
    Off,
    /// Untraced, every rising edge evaluated alone ([`Dut::with_merged_edges`]
    /// off): the scheduling before edges were merged with the next inputs.
    OffEdgesAlone,
    Vcd,
    Fst,
    /// An FST written by the model itself ([`Dut::writing_fst`]).
    FstNative,
    /// A VCD of every level, the blocks' insides too (`--trace-internals`).
    Internals,
    Window,
    /// A VCD of the run-stall and Q7 core 0 groups only (`--trace-groups`).
    Groups,
}

/// The kernel input that makes `bringup` run at least `cycles` cycles
/// (each loop iteration of the Q7 kernel, three instructions fetched
/// through the RTL port, is about 7 cycles).
fn bringup_n(cycles: u64) -> u32 {
    (cycles / 7 + 2_000) as u32
}

/// Co-simulation cycles per second of a long bring-up, and its cycles.
fn cosim_rate(d: Dut, cycles: u64, tracing: Tracing, dir: &Path, tag: &str) -> Result<(f64, u64), BenchError> {
    let arch = d.arch();
    let mut c = Cosim::on(d)?;
    let trace = dir.join(format!("{tag}.{}.vcd", arch.name()));
    match tracing {
        Tracing::Off | Tracing::OffEdgesAlone => {}
        Tracing::Vcd | Tracing::Internals => c.trace(&trace)?,
        Tracing::Fst | Tracing::FstNative => c.trace(&trace.with_extension("fst"))?,
        Tracing::Groups => {
            tpb_cosim::dut::set_trace_groups(Some(vec![tpb_cosim::waves::GroupName::RunStall, tpb_cosim::waves::GroupName::Q7Core0]));
            let r = c.trace(&trace);
            tpb_cosim::dut::set_trace_groups(None);
            r?
        }
        Tracing::Window => {
            let rel = c.map().params.local_reg_base(Engine::Pool).expect("POOL base") as u32
                + c.map().block("q7").and_then(|b| b.register("release_run_stall")).map(|r| r.offset).expect("q7.release_run_stall");
            c.dut.trace_window(&trace, Trigger::Write(rel), WindowEnd::After(200))?;
        }
    }
    let c0 = c.stats.cycles;
    let t0 = Instant::now();
    let r = scenario::bringup(&mut c, bringup_n(cycles), 4 * cycles + 100_000)?;
    // Closing is part of the cost: the last buffer written, and an FST converted.
    c.dut.trace_close()?;
    let wall = t0.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&trace);
    let _ = std::fs::remove_file(trace.with_extension("fst"));
    let n = c.stats.cycles - c0;
    if n < cycles {
        return Err(BenchError::Run(format!("{}: bringup ran {n} cycles, fewer than {cycles} ({} checks)", arch.name(), r.checks.len())));
    }
    Ok((n as f64 / wall, n))
}

/// The ways a run is traced, with their rows' labels (`Off` first: the
/// others are paired with it).
const WAYS: [(Tracing, &str); 8] = [
    (Tracing::Off, "untraced"),
    (Tracing::OffEdgesAlone, EDGES_ALONE),
    (Tracing::Vcd, "with a VCD"),
    (Tracing::Fst, "with an FST converted from a VCD"),
    (Tracing::FstNative, "with an FST written by the model"),
    (Tracing::Internals, "traced to every level (a VCD, --trace-internals)"),
    (Tracing::Groups, "with a VCD of run_stall and q7_core0"),
    (Tracing::Window, "with a 200-cycle trace window"),
];

/// The label of the row whose rising edges are evaluated alone.
pub(super) const EDGES_ALONE: &str = "untraced, each rising edge evaluated alone";

/// The ratio line's names, and the part of a row's label each is found by.
pub(super) const RATIO_NAMES: [(&str, &str); 6] = [
    ("VCD", "with a VCD ("),
    ("FST converted", "converted from a VCD"),
    ("FST written", "written by the model"),
    ("every level", "every level"),
    ("2 groups", "with a VCD of"),
    ("window", "trace window"),
];

/// The co-simulation rows of `arch`: `runs` rounds of every way on each engine.
pub(super) fn rows(arch: Arch, engines: &[(bool, &Engine2)], runs: usize, cycles: u64, jobs: usize, dir: &Path) -> Result<Vec<Row>, BenchError> {
    let probe = cosim_rate(Dut::new(arch)?, cycles, Tracing::Off, dir, "probe")?.1;
    let say = |s: &str| eprintln!("tpb bench: {s}");
    // Cycles/s per engine, way and round.
    let mut rates: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); WAYS.len()]; engines.len()];
    for (e, (is_before, engine)) in engines.iter().enumerate() {
        for round in 0..runs.max(1) {
            eprintln!("tpb bench: {} co-simulation{}, round {} of {}", arch.name(), if *is_before { " (before)" } else { "" }, round + 1, runs.max(1));
            for (w, (way, _)) in WAYS.iter().enumerate() {
                // The previous emission has no FST-writing build: its column
                // converts, as before; and it traced every level.
                let way = match (engine, way) {
                    (Engine2::Before { .. }, Tracing::FstNative) => Tracing::Fst,
                    (Engine2::Before { .. }, Tracing::Internals) => Tracing::Vcd,
                    (_, t) => *t,
                };
                let dut = match way {
                    Tracing::FstNative => Dut::writing_fst(arch, jobs, &say)?,
                    Tracing::Internals => Dut::built(arch, TraceModel { fst: false, internals: true }, jobs, &say)?,
                    Tracing::OffEdgesAlone => engine.traced(arch)?.with_merged_edges(false),
                    _ => engine.traced(arch)?,
                };
                rates[e][w].push(cosim_rate(dut, cycles, way, dir, "cosim")?.0);
            }
        }
    }
    let now = engines.iter().position(|(b, _)| !b).expect("the current engine is measured");
    let before = engines.iter().position(|(b, _)| *b);
    Ok(WAYS
        .iter()
        .enumerate()
        .map(|(w, (_, label))| Row {
            arch,
            what: format!("co-simulation, bringup of {} cycles, {label} (cycles/s)", group(probe)),
            unit: Unit::Rate,
            now: Some(Figure::of(rates[now][w].clone())),
            before: before.map(|b| Figure::of(rates[b][w].clone())),
            // Time against untraced: the untraced rate over this one's, round by round.
            paired: (w > 0).then(|| Figure::of(rates[now][0].iter().zip(&rates[now][w]).map(|(off, on)| off / on).collect())),
        })
        .collect())
}
