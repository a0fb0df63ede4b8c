//! The TPB tops under Verilator (the `tpb_cosim` bridge): against the
//! golden models for a million random cycles per generation, against the
//! rust-hdl simulator every output every cycle, two models in one process,
//! and byte-identical VCD for identical stimulus.

use tpb_cosim::dut::Dut;
use tpb_hdl::top::{simulator, TopSim};
use tpb_models::golden::top::{MemBits, TopModel};
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::traffic::{Cycle, Traffic};

/// Reset, then `n` cycles of seeded traffic into `a` and `b`, comparing every output.
fn lockstep(arch: Arch, a: &mut dyn TopSim, b: &mut dyn FnMut(&Cycle) -> tpb_models::golden::top::Outputs, seed: u64, n: usize) -> Result<(), String> {
    let map = builtin(arch).unwrap();
    let mut t = Traffic::new(&map, MemBits::full(&map.params), seed);
    let reset = Cycle { reset: true, req: None, pins: Default::default() };
    for i in 0..=n {
        let c = if i == 0 { reset } else { t.next_cycle() };
        a.drive(c.reset, c.req, &c.pins);
        let (x, y) = (a.outputs(), b(&c));
        if i > 0 && x != y {
            return Err(format!("{arch:?} cycle {i}: req {:x?}\n  verilator: {x:x?}\n  other:     {y:x?}", c.req));
        }
        a.tick();
    }
    Ok(())
}

fn against_golden(arch: Arch, seed: u64, n: usize) {
    let map = builtin(arch).unwrap();
    let mut dut = Dut::new(arch, false).unwrap();
    let mut gold = TopModel::new(&map, MemBits::full(&map.params));
    let start = std::time::Instant::now();
    let r = lockstep(arch, &mut dut, &mut |c| {
        let o = gold.outputs(c.reset, c.req, &c.pins);
        gold.step(c.reset, c.req, &c.pins);
        o
    }, seed, n);
    r.unwrap_or_else(|e| panic!("{e}"));
    println!("{arch:?}: Verilator top vs golden model: {n} random cycles, 0 mismatches ({:.1} s, both engines)", start.elapsed().as_secs_f64());
}

#[test]
fn sunda_verilator_matches_golden_for_a_million_cycles() {
    against_golden(Arch::Sunda, 0x51, 1_000_000);
}

#[test]
fn cayman_verilator_matches_golden_for_a_million_cycles() {
    against_golden(Arch::Cayman, 0xc1, 1_000_000);
}

#[test]
fn mariana_verilator_matches_golden_for_a_million_cycles() {
    against_golden(Arch::Mariana, 0xa1, 1_000_000);
}

/// Verilator and rust-hdl on the same stimulus: every output, every cycle.
#[test]
fn verilator_matches_rust_hdl_every_cycle() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let map = builtin(arch).unwrap();
        let mut dut = Dut::new(arch, false).unwrap();
        let mut rhdl = simulator(&map, false).unwrap();
        lockstep(arch, &mut dut, &mut |c| {
            rhdl.drive(c.reset, c.req, &c.pins);
            let o = rhdl.outputs();
            rhdl.tick();
            o
        }, 0x77, 3_000)
        .unwrap_or_else(|e| panic!("{e}"));
        println!("{arch:?}: Verilator == rust-hdl for 3000 cycles");
    }
}

/// Two models in one process, stepped alternately with different stimulus,
/// each still matches its own golden model.
#[test]
fn two_models_in_one_process_do_not_interfere() {
    let map = builtin(Arch::Cayman).unwrap();
    let (mut a, mut b) = (Dut::new(Arch::Cayman, false).unwrap(), Dut::new(Arch::Cayman, true).unwrap());
    let (mut ga, mut gb) = (TopModel::new(&map, MemBits::full(&map.params)), TopModel::new(&map, MemBits::full(&map.params)));
    let (mut ta, mut tb) = (Traffic::new(&map, MemBits::full(&map.params), 1), Traffic::new(&map, MemBits::full(&map.params), 2));
    for i in 0..20_000 {
        for (d, g, t) in [(&mut a, &mut ga, &mut ta), (&mut b, &mut gb, &mut tb)] {
            let c = if i == 0 { Cycle { reset: true, req: None, pins: Default::default() } } else { t.next_cycle() };
            d.drive(c.reset, c.req, &c.pins);
            let (x, y) = (d.outputs(), g.outputs(c.reset, c.req, &c.pins));
            assert!(i == 0 || x == y, "cycle {i}: {x:x?} vs {y:x?}");
            d.tick();
            g.step(c.reset, c.req, &c.pins);
        }
    }
}

/// The same stimulus gives the same VCD, byte for byte.
#[test]
fn vcd_is_deterministic() {
    let dir = tpb_testbench::tools::repo_root().join("target/vcd-determinism");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str| -> Vec<u8> {
        let map = builtin(Arch::Cayman).unwrap();
        let path = dir.join(name);
        let mut d = Dut::new(Arch::Cayman, true).unwrap();
        d.trace_open(&path).unwrap();
        let mut t = Traffic::new(&map, MemBits::full(&map.params), 9);
        d.reset();
        for _ in 0..2_000 {
            let c = t.next_cycle();
            d.drive(c.reset, c.req, &c.pins);
            d.tick();
        }
        d.trace_close();
        std::fs::read(&path).unwrap()
    };
    let (x, y) = (run("a.vcd"), run("b.vcd"));
    assert!(x.len() > 10_000, "a VCD of {} bytes", x.len());
    assert!(x == y, "two runs of the same stimulus wrote different VCDs");
    println!("VCD of 2000 cycles: {} bytes, identical across runs", x.len());
}

#[test]
fn untraced_model_refuses_a_trace_and_bad_ports_are_errors() {
    let mut d = Dut::new(Arch::Sunda, false).unwrap();
    let e = d.trace_open(std::path::Path::new("/tmp/x.vcd")).unwrap_err();
    assert!(e.to_string().contains("traced build"), "{e}");
    let m = d.model();
    assert!(m.port("no_such_port").unwrap_err().to_string().contains("no port named 'no_such_port'"));
    let i = m.input("req_write").unwrap();
    assert!(m.set(i, 2).unwrap_err().to_string().contains("does not fit"));
    assert!(m.input("rsp_valid").is_err(), "outputs are not inputs");
}
