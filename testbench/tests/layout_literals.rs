//! The BAR0 layout checked against literal numbers of the DIGEST, written
//! here by hand, not taken from the layout helper (`regmap::layout`) the
//! golden model and the RTL both use: lockstep between them cannot catch a
//! wrong rule they share; these addresses can. Each access is made by raw
//! address on the Verilated top, and its effect is read at a second literal
//! address or on the top's pins.

use tpb_models::regmap::Arch;
use tpb_testbench::tb::{EngineKind, Tb};

fn tb(arch: Arch) -> Tb {
    Tb::new(arch, EngineKind::Verilator).unwrap_or_else(|e| panic!("{e}"))
}

/// DIGEST §2.6/§2.7/§2.8: POOL's Q7 local-register base 0x2860000 (the
/// bit-35 fold of 0x802860000), its Q7 bundle at +0x3000 whose
/// release_run_stall [7:0] resets to 0xFF (bit n = core n stalled).
#[test]
fn the_q7_release_run_stall_is_at_0x2863000_on_cayman_and_mariana() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let mut t = tb(arch);
        assert_eq!(t.read_addr(0x0286_3000).unwrap().rdata & 0xff, 0xff, "{arch:?}: reset value");
        assert_eq!(t.read("port.q7_run_stall").unwrap(), 0xff);
        assert!(!t.write_addr(0x0286_3000, 0x5a).unwrap().err);
        t.wait(2);
        assert_eq!(t.read("port.q7_run_stall").unwrap(), 0x5a, "{arch:?}: the write reached the cores' run-stall pins");
    }
}

/// DIGEST §2.7: CAYMAN's TOP_SP host_trigger at 0x615a0 (LOCAL_REG base
/// 0x60000 + 0x15a0), which this model reads as SET of TOP_SP semaphore 104
/// (`[D]` DIGEST §3 choice (a): 0x1400 + 4 × 104); the semaphore's read
/// window at 0x61000 + 4 × 104.
#[test]
fn the_top_sp_host_trigger_at_0x615a0_sets_semaphore_104_on_cayman() {
    let mut t = tb(Arch::Cayman);
    assert_eq!(t.read_addr(0x0006_1000 + 4 * 104).unwrap().rdata, 0);
    assert!(!t.write_addr(0x0006_15a0, 1).unwrap().err);
    assert_eq!(t.read_addr(0x0006_1000 + 4 * 104).unwrap().rdata, 1);
}

/// DIGEST §2.7: SUNDA's TOP_SP set_host_trigger at 0x60848 (LOCAL_REG
/// base 0x60000 + 0x848), a pulse register: a write of 1 there pulses the
/// top's `host_trigger_pulse` pin for one cycle, and it reads back 0.
#[test]
fn sunda_takes_the_host_trigger_at_0x60848() {
    let mut t = tb(Arch::Sunda);
    let name = "top_sp.top_sp.host_trigger";
    assert_eq!(t.resolve(name).unwrap().addr(), Some(0x0006_0848), "the map puts it where the DIGEST does");
    let seen = t.doorbell(name, 1).unwrap_or_else(|e| panic!("{e}"));
    assert!(seen.is_some(), "the pulse was seen on host_trigger_pulse");
}
