//! The mesh rows of `tpb bench` (CAYMAN/MARIANA): scale (1..16 dies waiting
//! on a semaphore, `allreduce-ring` on 2..16 dies and on 2 dies with several
//! TOP_SPs), payload (`allreduce-ring` on 4 dies with 1, 4 and 16 words a
//! chunk: what the data costs) and threads (the 16-die polling ring and `allreduce-hier` on 8
//! dies, on one thread and on the machine's cores, in the same run).

use super::{repeat, run_err, BenchArgs, BenchError, Figure, Row, Unit};
use std::time::Instant;
use tpb_cosim::scenario;
use tpb_models::regmap::{Arch, Engine};

/// The mesh sizes of the scale rows.
pub(super) const SCALE_DIES: [usize; 5] = [1, 2, 4, 8, 16];
/// TOP_SPs per die of the `allreduce-ring` runs on 2 dies (1 is the 2-die row).
const SCALE_TOP_SPS: [usize; 3] = [2, 4, 8];

pub(super) fn scale_waiting(n: usize, wait: tpb_cosim::firmware::TapeWait) -> String {
    match wait {
        tpb_cosim::firmware::TapeWait::Poll => format!("scale: {n} dies, every TOP_SP polling a semaphore (die-cycles/s)"),
        tpb_cosim::firmware::TapeWait::Waiti => format!("scale: {n} dies, every TOP_SP asleep in WAITI on a semaphore, quiescent dies skipped (die-cycles/s)"),
    }
}

/// A mesh of `n` dies whose TOP_SPs each run a one-event tape that waits
/// for a semaphore nobody SIGNALs (polling it through the SoC port, or
/// asleep in WAITI): what every die of a collective does most of the time.
fn waiting_mesh(arch: Arch, n: usize, wait: tpb_cosim::firmware::TapeWait) -> Result<tpb_cosim::mesh::Mesh, BenchError> {
    use tpb_cosim::scenario::collective::{tape_dram, Addressing, TapeAddrs};
    use tpb_models::ncfw::mesh::MeshEvent;
    let mut m = tpb_cosim::mesh::Mesh::new(arch, n, 16)?;
    let hal = tpb_models::hal::Hal::for_arch(arch)?;
    let map = m.dies[0].map().clone();
    let addrs = TapeAddrs::new(&hal, 0, Addressing::ChipId)?;
    let prog = tpb_cosim::firmware::mesh_tape(&map, 1, 1, wait)?;
    let release = tpb_cosim::firmware::Addrs::new(&map, "bench").reg(Engine::TopSp, "nx", "release_run_stall")?;
    for (d, c) in m.dies.iter_mut().enumerate() {
        let e = MeshEvent { wait_event: 1, event_wait_sema: addrs.read(d as u32, d as u32, 40)?, wait_val: 1, ..MeshEvent::default() };
        c.load_top_sp(&prog.bytes, &tape_dram(&[e]))?;
        tpb_models::hal::Mmio::write32(c, release.into(), 0)?;
    }
    Ok(m)
}

/// The scale rows of `arch` (see the module comment).
pub(super) fn scale_rows(arch: Arch, args: &BenchArgs, rows: &mut Vec<Row>) -> Result<(), BenchError> {
    let cycles = (args.cycles / 20).max(1000);
    for wait in [tpb_cosim::firmware::TapeWait::Poll, tpb_cosim::firmware::TapeWait::Waiti] {
        for n in SCALE_DIES {
            eprintln!("tpb bench: {} {}", arch.name(), scale_waiting(n, wait));
            let fig = repeat(args.runs, || {
                let mut m = waiting_mesh(arch, n, wait)?;
                for _ in 0..500 {
                    m.cycle();
                }
                let t0 = Instant::now();
                for _ in 0..cycles {
                    m.cycle();
                }
                Ok((n as u64 * cycles) as f64 / t0.elapsed().as_secs_f64())
            })?;
            rows.push(Row { arch, what: scale_waiting(n, wait), unit: Unit::Rate, now: Some(fig), before: None, paired: None });
        }
    }
    let f = scenario::ScenarioFile::find("allreduce-ring")?;
    let cfg = f.collective.clone().ok_or_else(|| run_err("allreduce-ring has no [collective] table"))?;
    // Against the dies (one TOP_SP each), then against the TOP_SPs of 2 dies.
    let runs: Vec<(usize, usize)> = SCALE_DIES.into_iter().filter(|n| *n >= 2).map(|n| (n, 1)).chain(SCALE_TOP_SPS.into_iter().map(|k| (2, k))).collect();
    for (n, k) in runs {
        let what = if k == 1 { format!("{n} dies") } else { format!("{n} dies x {k} TOP_SPs") };
        let cfg = scenario::CollectiveCfg { top_sps: k, ..cfg.clone() };
        let mut rates = Vec::new();
        let mut walls = Vec::new();
        let mut span = 0;
        eprintln!("tpb bench: {} allreduce-ring on {what}", arch.name());
        for _ in 0..args.runs.max(1) {
            let t0 = Instant::now();
            let mut ran = scenario::collective::run(arch, &cfg, n, f.cycles, None)?;
            let r = ran.check()?;
            walls.push(t0.elapsed().as_secs_f64());
            span = r.get("collective_cycles");
            rates.push((ran.mesh.dies.len() as u64 * ran.mesh.now) as f64 / ran.run_seconds);
        }
        rows.push(Row {
            arch,
            what: format!("scale: allreduce-ring on {what}, release to end ({span} cycles; top-cycles/s)"),
            unit: Unit::Rate,
            now: Some(Figure::of(rates)),
            before: None,
            paired: None,
        });
        rows.push(Row {
            arch,
            what: format!("scale: allreduce-ring on {what}, whole run with set-up and checks (s)"),
            unit: Unit::Seconds,
            now: Some(Figure::of(walls)),
            before: None,
            paired: None,
        });
    }
    // The payload's cost: the same ring with longer chunks.
    for words in PAYLOAD_WORDS {
        let cfg = scenario::CollectiveCfg { words, ..cfg.clone() };
        let (mut rates, mut span, mut writes) = (Vec::new(), 0, 0);
        eprintln!("tpb bench: {} allreduce-ring on 4 dies, {words} words a chunk", arch.name());
        for _ in 0..args.runs.max(1) {
            let mut ran = scenario::collective::run(arch, &cfg, 4, f.cycles, None)?;
            let r = ran.check()?;
            (span, writes) = (r.get("collective_cycles"), r.get("dma_soc_writes"));
            rates.push((ran.mesh.dies.len() as u64 * ran.mesh.now) as f64 / ran.run_seconds);
        }
        rows.push(Row {
            arch,
            what: format!("payload: allreduce-ring on 4 dies, {words} words a chunk, release to end ({span} cycles, {writes} SoC writes; top-cycles/s)"),
            unit: Unit::Rate,
            now: Some(Figure::of(rates)),
            before: None,
            paired: None,
        });
    }
    Ok(())
}

/// Words per chunk of the payload rows (`[collective] words`).
const PAYLOAD_WORDS: [u32; 3] = [1, 4, 16];

/// The threads rows of `arch`: the 16-die polling ring (every TOP_SP
/// polling a semaphore, no die quiescent) and `allreduce-hier` on 8 dies,
/// on one thread and on the machine's cores (at least 2), in this run.
pub(super) fn threads_rows(arch: Arch, args: &BenchArgs, rows: &mut Vec<Row>) -> Result<(), BenchError> {
    let many = tpb_cosim::mesh::default_threads().max(2);
    let cycles = (args.cycles / 10).max(2000);
    for threads in [1, many] {
        let what = threads_ring(threads);
        eprintln!("tpb bench: {} {what}", arch.name());
        let fig = repeat(args.runs, || {
            let mut m = waiting_mesh(arch, 16, tpb_cosim::firmware::TapeWait::Poll)?;
            m.threads = threads;
            m.run_until_all(500, |_| false);
            let t0 = Instant::now();
            m.run_until_all(cycles, |_| false);
            Ok((16 * cycles) as f64 / t0.elapsed().as_secs_f64())
        })?;
        rows.push(Row { arch, what, unit: Unit::Rate, now: Some(fig), before: None, paired: None });
    }
    let f = scenario::ScenarioFile::find("allreduce-hier")?;
    let cfg = f.collective.clone().ok_or_else(|| run_err("allreduce-hier has no [collective] table"))?;
    for threads in [1, many] {
        let what = threads_hier(threads);
        eprintln!("tpb bench: {} {what}", arch.name());
        tpb_cosim::mesh::set_threads(threads);
        let fig = repeat(args.runs, || {
            let mut ran = scenario::collective::run(arch, &cfg, 8, f.cycles, None)?;
            ran.check()?;
            Ok((ran.mesh.dies.len() as u64 * ran.mesh.now) as f64 / ran.run_seconds)
        });
        tpb_cosim::mesh::set_threads(0);
        rows.push(Row { arch, what, unit: Unit::Rate, now: Some(fig?), before: None, paired: None });
    }
    Ok(())
}

pub(super) fn threads_ring(threads: usize) -> String {
    format!("threads: 16-die polling ring on {threads} thread(s) (die-cycles/s)")
}

pub(super) fn threads_hier(threads: usize) -> String {
    format!("threads: allreduce-hier on 8 dies, release to end, on {threads} thread(s) (die-cycles/s)")
}

/// The threads rows' speed-ups, for the summary under the table.
pub(super) fn threads_summary(rows: &[Row], arch: Arch) -> Option<String> {
    let rate = |what: &str| rows.iter().find(|r| r.arch == arch && r.what == what).and_then(|r| r.now).map(|f| f.median);
    let many = tpb_cosim::mesh::default_threads().max(2);
    let ring = rate(&threads_ring(many))? / rate(&threads_ring(1))?;
    let hier = rate(&threads_hier(many))? / rate(&threads_hier(1))?;
    Some(format!("{}: {many} threads against one: 16-die polling ring {ring:.2}×, allreduce-hier on 8 dies {hier:.2}×", arch.name()))
}
