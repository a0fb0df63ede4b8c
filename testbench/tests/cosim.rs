//! End-to-end co-simulation (issue 7, in progress): the host HAL, the
//! Verilated top and the 8 behavioural Q7 cores on one clock.

use tpb_cosim::scenario::{bringup, ScenarioError};
use tpb_cosim::sched::Cosim;
use tpb_models::regmap::Arch;

#[test]
fn bringup_installs_releases_and_runs_the_q7_kernel_on_every_core() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let mut c = Cosim::new(arch).unwrap();
        let t0 = std::time::Instant::now();
        let r = bringup(&mut c, 20, 50_000).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(r.sums.len(), 8);
        assert_eq!(r.sums[0], (20, 210));
        assert_eq!(r.sums[7], (27, 378));
        assert_eq!(r.stats.stalls_released, 8, "{arch:?}: every core released once");
        assert!(r.stats.retired > 8 * 20 * 3, "{arch:?}: {} instructions", r.stats.retired);
        assert!(r.stats.bus_waits > r.stats.retired, "the RTL ports' wait states are the cores' wait states");
        println!(
            "{arch:?}: stpb_init done at cycle {}, all 8 cores halted at {}; {} BAR0 transactions ({} pad words elided), {} instructions, {} checks; {:.0} cycles/s",
            r.init_done,
            r.all_halted,
            r.stats.transactions,
            r.stats.elided,
            r.stats.retired,
            r.checks,
            r.stats.cycles as f64 / t0.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn bringup_refuses_sunda_and_a_wrong_sum_is_caught() {
    let mut c = Cosim::new(Arch::Sunda).unwrap();
    assert!(matches!(bringup(&mut c, 5, 1000), Err(ScenarioError::NotApplicable { .. })));
    // Too few cycles: the cores cannot finish, and the check says which.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let e = bringup(&mut c, 2000, 500).unwrap_err().to_string();
    assert!(e.contains("not halted after 500 cycles"), "{e}");
}
