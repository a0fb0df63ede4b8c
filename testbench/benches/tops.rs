//! Benchmark: cycles per second of each generation's TPB top under random
//! BAR0 + Q7-port traffic (`tpb_testbench::traffic`), side by side in one
//! run: Verilator (trace off), Verilator tracing to a VCD / an FST, the
//! rust-hdl simulator on the same design, and Icarus Verilog (`vvp`) on the
//! same generated Verilog, replaying the same stimulus from a file and
//! printing every output each cycle, as in the cross-check; its start-up
//! (elaboration, zeroing the RAMs) is measured with a 1-cycle run and
//! subtracted. One table; each figure is the median of 3 runs; ratios
//! against the rust-hdl simulator and Icarus.
//!
//! `cargo bench -p tpb-testbench --bench tops`

use std::time::Instant;
use tpb_cosim::dut::Dut;
use tpb_hdl::top::{simulator, TopSim};
use tpb_models::golden::top::MemBits;
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::icarus::record_top;
use tpb_testbench::traffic::{Cycle, Traffic};

fn stimulus(arch: Arch, n: usize) -> Vec<Cycle> {
    let map = builtin(arch).unwrap();
    let mut t = Traffic::new(&map, MemBits::full(&map.params), 42);
    let mut v = vec![Cycle { reset: true, req: None, pins: Default::default() }];
    v.extend((0..n).map(|_| t.next_cycle()));
    v
}

/// Cycles per second of `sim` on `cycles` (stimulus built beforehand).
fn rate(sim: &mut dyn TopSim, cycles: &[Cycle]) -> f64 {
    let t = Instant::now();
    let mut sink = 0u64;
    for c in cycles {
        sim.drive(c.reset, c.req, &c.pins);
        sink = sink.wrapping_add(sim.outputs().rsp.rdata as u64);
        sim.tick();
    }
    std::hint::black_box(sink);
    cycles.len() as f64 / t.elapsed().as_secs_f64()
}

/// Largest (max / min - 1) of any column's 3 runs: the noise of this run.
static SPREAD: std::sync::Mutex<f64> = std::sync::Mutex::new(0.0);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let spread = v[v.len() - 1] / v[0] - 1.0;
    let mut s = SPREAD.lock().unwrap();
    *s = s.max(spread);
    v[v.len() / 2]
}

/// Icarus cycles per second on the first `n` cycles: vvp time minus the
/// time of a 1-cycle run of the same testbench (start-up).
fn icarus_rate(arch: Arch, cycles: &[Cycle], n: usize) -> f64 {
    let name = arch.name();
    let verilog = tpb_testbench::tools::repo_root().join(format!("hdl/generated/{name}_tpb_top.v"));
    let dir = tpb_testbench::tools::repo_root().join(format!("target/bench-icarus/{name}"));
    let run = |k: usize| {
        let rec = record_top(arch, &cycles[..k]).unwrap();
        rec.cross_check(&verilog, &format!("{name}_tpb_top"), &dir).unwrap().run_s
    };
    let base = run(1);
    n as f64 / (run(n) - base).max(1e-6)
}

fn main() {
    let dir = tpb_testbench::tools::repo_root().join("target/bench-waves");
    std::fs::create_dir_all(&dir).unwrap();
    println!("| top | Verilator | Verilator + VCD | Verilator + FST | rust-hdl | Icarus | Verilator / rust-hdl | Verilator / Icarus | VCD cost | FST cost |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let map = builtin(arch).unwrap();
        let long = stimulus(arch, 200_000);
        let short = stimulus(arch, 3_000);
        let vl = median((0..3).map(|_| rate(&mut Dut::new(arch).unwrap(), &long)).collect());
        let traced = |ext: &str| {
            median(
                (0..3)
                    .map(|k| {
                        let mut d = Dut::new(arch).unwrap();
                        d.trace_open(&dir.join(format!("{}-{k}.{ext}", arch.name()))).unwrap();
                        let t = Instant::now();
                        rate(&mut d, &long[..20_000]);
                        d.trace_close().unwrap();
                        20_000.0 / t.elapsed().as_secs_f64()
                    })
                    .collect(),
            )
        };
        let (vcd, fst) = (traced("vcd"), traced("fst"));
        let rhdl = median((0..3).map(|_| rate(&mut *simulator(&map, false).unwrap(), &short)).collect());
        let icarus = median((0..3).map(|_| icarus_rate(arch, &long, 3_000)).collect());
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0}x | {:.0}x | {:.1}x slower | {:.1}x slower |",
            arch.name(),
            vl,
            vcd,
            fst,
            rhdl,
            icarus,
            vl / rhdl,
            vl / icarus,
            vl / vcd,
            vl / fst
        );
    }
    println!("noise: the 3 runs behind any figure differ by at most {:.0} % (max / min - 1)", *SPREAD.lock().unwrap() * 100.0);
    let _ = std::fs::remove_dir_all(&dir);
}
