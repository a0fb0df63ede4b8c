//! Cross-simulator check (issue 6, 4c): Icarus Verilog runs each
//! generation's generated top with a generated testbench on the stimulus a
//! Verilator run recorded, and prints every output every cycle; the two
//! agree on every value. A corrupted recording must be caught.

use tpb_models::golden::top::MemBits;
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::icarus::{record_top, Recording};
use tpb_testbench::tools::repo_root;
use tpb_testbench::traffic::{Cycle, Traffic};

const CYCLES: usize = 1_500;

fn recording(arch: Arch, seed: u64) -> Recording {
    let map = builtin(arch).unwrap();
    let mut t = Traffic::new(&map, MemBits::full(&map.params), seed);
    let mut cycles = vec![Cycle { reset: true, req: None, pins: Default::default() }];
    cycles.extend((0..CYCLES).map(|_| t.next_cycle()));
    record_top(arch, &cycles).unwrap()
}

/// `dir` under target/icarus/ (one per test: nextest runs them in parallel).
fn check(arch: Arch, rec: &Recording, dir: &str) -> Result<tpb_testbench::icarus::Report, tpb_testbench::icarus::IcarusError> {
    let name = arch.name();
    let verilog = repo_root().join(format!("hdl/generated/{name}_tpb_top.v"));
    rec.cross_check(&verilog, &format!("{name}_tpb_top"), &repo_root().join(format!("target/icarus/{dir}/{name}")))
}

#[test]
fn icarus_agrees_with_verilator_on_every_top() {
    for (arch, seed) in [(Arch::Sunda, 3), (Arch::Cayman, 4), (Arch::Mariana, 5)] {
        let rec = recording(arch, seed);
        // The traffic must make the outputs move, or agreement means little.
        let moving = (0..rec.outputs.len()).filter(|&k| rec.cycles.iter().any(|(_, o)| o[k] != rec.cycles[1].1[k])).count();
        assert!(moving * 2 > rec.outputs.len(), "{arch:?}: only {moving} of {} outputs change", rec.outputs.len());
        let r = check(arch, &rec, "agree").unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(r.cycles, CYCLES + 1);
        // Every memory: 16 Q7 IRAM/DRAM, 6 EVT_SEM arrays, the SEQ IRAM/DRAM, two SPADs, the DMA SRAM.
        assert!(r.zeroed_memories >= 27, "{arch:?}: {} memories found", r.zeroed_memories);
        println!(
            "{arch:?}: Icarus == Verilator on {} cycles, {} output values ({} of {} outputs move; {} RAMs zeroed; iverilog {:.1} s, vvp {:.1} s)",
            r.cycles,
            r.compared_values,
            moving,
            rec.outputs.len(),
            r.zeroed_memories,
            r.compile_s,
            r.run_s
        );
    }
}

#[test]
fn a_corrupted_recording_is_caught_with_its_cycle_and_port() {
    let mut rec = recording(Arch::Sunda, 6);
    rec.cycles.truncate(200);
    let k = rec.outputs.iter().position(|p| p.name == "q7_run_stall").unwrap();
    rec.cycles[150].1[k][0] ^= 0x10;
    let e = check(Arch::Sunda, &rec, "corrupted").unwrap_err();
    assert!(matches!(&e, tpb_testbench::icarus::IcarusError::Mismatch { cycle: 150, port, .. } if port == "q7_run_stall"), "{e}");
    assert!(e.to_string().contains("cycle 150: output 'q7_run_stall'"), "{e}");
}
