//! Benchmark: cycles per second of each generation's TPB top under random
//! BAR0 + Q7-port traffic (`tpb_testbench::traffic`), side by side in one
//! run: Verilator untraced, Verilator traced (VCD to a file), and the
//! rust-hdl simulator on the same design. One table; each figure is the
//! median of 3 runs; ratios against the rust-hdl simulator.
//!
//! `cargo bench -p tpb-testbench --bench tops`

use std::time::Instant;
use tpb_cosim::dut::Dut;
use tpb_hdl::top::{simulator, TopSim};
use tpb_models::golden::top::MemBits;
use tpb_models::regmap::{builtin, Arch};
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let dir = tpb_testbench::tools::repo_root().join("target/bench-waves");
    std::fs::create_dir_all(&dir).unwrap();
    println!("| top | Verilator | Verilator + VCD | rust-hdl | Verilator / rust-hdl | VCD cost |");
    println!("|---|---:|---:|---:|---:|---:|");
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let map = builtin(arch).unwrap();
        let long = stimulus(arch, 200_000);
        let short = stimulus(arch, 3_000);
        let vl = median((0..3).map(|_| rate(&mut Dut::new(arch, false).unwrap(), &long)).collect());
        let vcd = median(
            (0..3)
                .map(|k| {
                    let mut d = Dut::new(arch, true).unwrap();
                    d.trace_open(&dir.join(format!("{}-{k}.vcd", arch.name()))).unwrap();
                    let r = rate(&mut d, &long[..20_000]);
                    d.trace_close();
                    r
                })
                .collect(),
        );
        let rhdl = median((0..3).map(|_| rate(&mut *simulator(&map, false).unwrap(), &short)).collect());
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.0}x | {:.1}x slower |",
            arch.name(),
            vl,
            vcd,
            rhdl,
            vl / rhdl,
            vl / vcd
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
