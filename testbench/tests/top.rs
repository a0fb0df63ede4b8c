//! Every generation's TPB top (rust-hdl) against its golden model
//! (`tpb_models::golden::top`): random BAR0 traffic over every block, the
//! Q7 cores' memory ports, halted pins and HW-decode lookups, compared
//! every cycle (all outputs, every read). Fixed seeds; on a mismatch the
//! test names the cycle, the stimulus and both output sets.

use tpb_hdl::top::{simulator, TopSim};
use tpb_models::golden::top::{MemBits, Outputs, TopModel};
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::traffic::{Cycle, Traffic};

/// Drive `cycles` into RTL and model after a reset; the first divergence as an error.
/// How much of the design a run reached (so a run that reaches nothing fails).
#[derive(Debug, Default)]
struct Coverage {
    reads: u64,
    errors: u64,
    dma_doorbells: u64,
    sem_changes: u64,
    q7_fetches: u64,
    q7_loads_stores: u64,
    hwd_results: u64,
}

fn lockstep(arch: Arch, fpga: bool, cycles: &[Cycle]) -> Result<Coverage, String> {
    let map = builtin(arch).unwrap();
    let mem = if fpga { MemBits::fpga() } else { MemBits::full(&map.params) };
    let mut rtl: Box<dyn TopSim + Send> = simulator(&map, fpga).map_err(|e| e.to_string())?;
    let mut gold = TopModel::new(&map, mem);
    let reset = Cycle { reset: true, req: None, pins: Default::default() };
    let mut cov = Coverage::default();
    for (n, c) in std::iter::once(&reset).chain(cycles).enumerate() {
        rtl.drive(c.reset, c.req, &c.pins);
        let (r, g) = (rtl.outputs(), gold.outputs(c.reset, c.req, &c.pins));
        // Cycle 0 is the first reset: before its edge the RTL's flip-flops are 0.
        if n > 0 && r != g {
            let prev = if n > 1 { format!("{:x?}", cycles[n - 2].req) } else { "-".into() };
            return Err(format!("{arch:?} cycle {n}: reset {} req {:x?} (previous req {prev})\n{}", c.reset, c.req, diff(&r, &g)));
        }
        cov.reads += (g.rsp.valid && !g.rsp.err && g.rsp.rdata != 0) as u64;
        cov.errors += g.rsp.err as u64;
        cov.dma_doorbells += g.dma_db_valid as u64;
        cov.sem_changes += (g.sem_notif_valid != 0) as u64;
        cov.q7_fetches += g.q7.iter().filter(|p| p.if_rvalid && !p.if_err).count() as u64;
        cov.q7_loads_stores += g.q7.iter().filter(|p| p.ls_rvalid && !p.ls_err).count() as u64;
        cov.hwd_results += g.hwd.is_some_and(|h| h.fifo_valid && h.head.hit) as u64;
        rtl.tick();
        gold.step(c.reset, c.req, &c.pins);
    }
    Ok(cov)
}

/// The outputs that differ, one line each.
fn diff(r: &Outputs, g: &Outputs) -> String {
    let mut out = String::new();
    let mut line = |name: &str, a: String, b: String| {
        if a != b {
            out += &format!("  {name}: rtl {a} golden {b}\n");
        }
    };
    line("rsp", format!("{:x?}", r.rsp), format!("{:x?}", g.rsp));
    line("nx_run_stall", format!("{:#x}", r.nx_run_stall), format!("{:#x}", g.nx_run_stall));
    line("q7_run_stall", format!("{:#x}", r.q7_run_stall), format!("{:#x}", g.q7_run_stall));
    line("sem_notif", format!("{:#x}/{}", r.sem_notif_valid, r.sem_notif_index), format!("{:#x}/{}", g.sem_notif_valid, g.sem_notif_index));
    line("dma db_valid/busy", format!("{}/{}", r.dma_db_valid, r.dma_busy), format!("{}/{}", g.dma_db_valid, g.dma_busy));
    for n in 0..r.q7.len() {
        line(&format!("q7[{n}]"), format!("{:x?}", r.q7[n]), format!("{:x?}", g.q7[n]));
    }
    line("hwd", format!("{:x?}", r.hwd), format!("{:x?}", g.hwd));
    line("pulses", format!("{}/{}", r.host_trigger_pulse, r.stop_pulse), format!("{}/{}", g.host_trigger_pulse, g.stop_pulse));
    out
}

fn random(arch: Arch, fpga: bool, seed: u64, n: usize) {
    let map = builtin(arch).unwrap();
    let mem = if fpga { MemBits::fpga() } else { MemBits::full(&map.params) };
    let mut t = Traffic::new(&map, mem, seed);
    let cycles: Vec<Cycle> = (0..n).map(|_| t.next_cycle()).collect();
    let start = std::time::Instant::now();
    let cov = lockstep(arch, fpga, &cycles).unwrap_or_else(|e| panic!("{e}"));
    let s = start.elapsed().as_secs_f64();
    println!(
        "{arch:?} top ({}): {n} random cycles, 0 mismatches, {:.0} cycles/s in the rust-hdl simulator; {cov:?}",
        if fpga { "FPGA memories" } else { "full memories" },
        n as f64 / s
    );
    assert!(cov.reads > 100 && cov.errors > 100 && cov.dma_doorbells > 0 && cov.sem_changes > 10, "traffic reached too little: {cov:?}");
    assert!(cov.q7_fetches > 100 && cov.q7_loads_stores > 100, "Q7 ports reached too little: {cov:?}");
    if map.params.hw_decode.present {
        assert!(cov.hwd_results > 0, "no HW-decode hit: {cov:?}");
    }
}

#[test]
fn sunda_top_matches_its_golden_model() {
    random(Arch::Sunda, false, 0x5, 10_000);
}

#[test]
fn cayman_top_matches_its_golden_model() {
    random(Arch::Cayman, false, 0xc, 10_000);
}

#[test]
fn mariana_top_matches_its_golden_model() {
    random(Arch::Mariana, false, 0xa, 10_000);
}

#[test]
fn fpga_sized_top_matches_its_golden_model() {
    random(Arch::Cayman, true, 0xf, 5_000);
}

