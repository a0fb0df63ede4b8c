//! Benchmark: the co-simulation's cost. Cycles per second of each
//! scenario (host HAL + Verilated top + 8 behavioural Q7 cores + SEQ +
//! TOP_SP; the mesh: two tops), untraced and with a VCD, side by side in one
//! run with the bare untraced top under random BAR0 + Q7-port traffic; the
//! overhead and trace-cost ratios. Each figure is the median of 3 runs; the
//! spread of the runs is printed.
//!
//! `cargo bench -p tpb-testbench --bench cosim`

use std::time::Instant;
use tpb_cosim::dut::Dut;
use tpb_cosim::scenario::{self, ScenarioFile};
use tpb_cosim::sched::Cosim;
use tpb_hdl::top::TopSim;
use tpb_models::golden::top::MemBits;
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::traffic::{Cycle, Traffic};

fn median(mut v: Vec<f64>, spread: &mut f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    *spread = spread.max(v[v.len() - 1] / v[0] - 1.0);
    v[v.len() / 2]
}

fn scenario(name: &str, arch: Arch, vcd: Option<&std::path::Path>) -> f64 {
    let f = ScenarioFile::find(name).unwrap();
    let t = Instant::now();
    let cycles = if name == "mesh" {
        let (r, _) = scenario::mesh(arch, f.mesh.as_ref().unwrap(), f.cycles, vcd).unwrap();
        // Two tops: count top-cycles.
        2 * r.stats.cycles
    } else {
        let mut c = Cosim::new(arch).unwrap();
        if let Some(p) = vcd {
            c.trace(p).unwrap();
        }
        let c0 = c.stats.cycles;
        match name {
            // n = 400: long enough loops that the cores, not the set-up, dominate.
            "bringup" => drop(scenario::bringup(&mut c, 400, 1_000_000).unwrap()),
            "doorbell" => drop(scenario::doorbell(&mut c, f.doorbell.as_ref().unwrap(), f.cycles).unwrap()),
            "barrier" => drop(scenario::barrier(&mut c, f.barrier.as_ref().unwrap(), f.cycles).unwrap()),
            _ => unreachable!(),
        }
        c.stats.cycles - c0
    };
    cycles as f64 / t.elapsed().as_secs_f64()
}

fn bare(arch: Arch, cycles: &[Cycle]) -> f64 {
    let mut d = Dut::new(arch).unwrap();
    let t = Instant::now();
    for c in cycles {
        d.drive(c.reset, c.req, &c.pins);
        std::hint::black_box(d.outputs());
        d.tick();
    }
    cycles.len() as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let dir = tpb_testbench::tools::repo_root().join("target/bench-cosim");
    std::fs::create_dir_all(&dir).unwrap();
    let mut spread = 0.0;
    println!("| top | scenario | bare top, random traffic | scenario | scenario + VCD | co-simulation overhead | VCD cost |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for arch in [Arch::Cayman, Arch::Mariana] {
        let map = builtin(arch).unwrap();
        let mut t = Traffic::new(&map, MemBits::full(&map.params), 7);
        let stim: Vec<Cycle> = (0..100_000).map(|_| t.next_cycle()).collect();
        let b = median((0..3).map(|_| bare(arch, &stim)).collect(), &mut spread);
        for name in ["bringup", "doorbell", "barrier", "mesh"] {
            let s = median((0..3).map(|_| scenario(name, arch, None)).collect(), &mut spread);
            let v = median((0..3).map(|k| scenario(name, arch, Some(&dir.join(format!("{name}-{}-{k}.vcd", arch.name()))))).collect(), &mut spread);
            println!("| {} | {name} | {b:.0} | {s:.0} | {v:.0} | {:.1}x slower | {:.1}x slower |", arch.name(), b / s, s / v);
        }
    }
    println!("noise: the 3 runs behind any figure differ by at most {:.0} % (max / min - 1)", spread * 100.0);
    let _ = std::fs::remove_dir_all(&dir);
}
