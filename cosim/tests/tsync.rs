//! The TOP_SP's init handshake and the time sync on N dies (`tsync`): each
//! die's TOP_SP runs `top_sp_tsync.S` under Verilator, the messages cross
//! dies through the SoC port, and every die's TPB timestamp ends within
//! the tolerance of the leader's; a run whose counters cannot be aligned
//! fails the checks.

use tpb_cosim::scenario::{tsync, ScenarioFile, TsyncCfg};
use tpb_models::regmap::Arch;

fn cfg() -> (TsyncCfg, u64) {
    let f = ScenarioFile::find("tsync").unwrap();
    (f.tsync.clone().unwrap(), f.cycles)
}

#[test]
fn every_die_aligns_its_timestamp_with_the_leader_on_2_4_8_and_16_dies() {
    let (c, limit) = cfg();
    for (arch, n) in [(Arch::Cayman, 2usize), (Arch::Cayman, 4), (Arch::Cayman, 8), (Arch::Cayman, 16), (Arch::Mariana, 4)] {
        let (r, m) = tsync(arch, &c, n, limit, None).unwrap_or_else(|e| panic!("{arch:?} on {n} dies: {e}"));
        assert!(r.get("max_skew_before") >= c.stagger / 2 * (n as u64 - 1), "{n} dies: {:?}", r.values);
        assert!(r.get("max_skew_after") <= c.tolerance);
        // Per follower: SYNC from the leader, DELAY_REQ back, then the T1
        // and T4 pairs and DELAY_RESP from the leader.
        assert_eq!(m.remote, 7 * (n as u64 - 1), "{n} dies");
        println!(
            "{arch:?} {n:>2} dies: skew {:>5} -> {} cycles, sync {} cycles, {} checks",
            r.get("max_skew_before"),
            r.get("max_skew_after"),
            r.get("sync_cycles"),
            r.checks.len()
        );
    }
}

/// What a run left, tampered with, fails the checks by name: a follower's
/// counter moved after the sync, an adjustment that is not the one its
/// t1..t4 give. SUNDA has no init/tsync doorbells; the die count and the
/// stagger are bounded.
#[test]
fn a_moved_counter_or_a_wrong_adjustment_fails_the_checks() {
    use tpb_cosim::scenario::tsync::run;
    let (c, limit) = cfg();
    let mut ran = run(Arch::Cayman, &c, 4, limit, None).unwrap();
    ran.check().unwrap();
    let hal = tpb_models::hal::Hal::for_arch(Arch::Cayman).unwrap();
    hal.timestamp_adjust(&mut ran.mesh.dies[1], 1000).unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("after the sync every counter is within") && e.contains("tolerance 4"), "{e}");
    let mut ran = run(Arch::Cayman, &c, 4, limit, None).unwrap();
    let at = tpb_cosim::firmware::TSYNC_OUT + 32;
    let w = ran.mesh.dies[2].top_sp_dram(at).unwrap();
    ran.mesh.dies[2].set_top_sp_dram(at, w ^ 1).unwrap();
    let e = ran.check().unwrap_err().to_string();
    assert!(e.contains("die 2: adjustment"), "{e}");
    let e = tsync(Arch::Sunda, &c, 2, limit, None).err().unwrap().to_string();
    assert!(e.contains("init_signal/tsync_signal"), "{e}");
    let f = ScenarioFile::find("tsync").unwrap();
    assert!(f.scenario().unwrap().dies(Some(1)).unwrap_err().to_string().contains("2 to 128 dies"));
    let bad = "name = \"t\"\ndescription = \"d\"\narchs = [\"cayman\"]\ncycles = 5\n[tsync]\ndies = 2\nlink_latency = 1\nstagger = 0\ntolerance = 1\n";
    let e = ScenarioFile::parse("t.toml", bad).unwrap_err().to_string();
    assert!(e.contains("stagger = 0"), "{e}");
}

/// The `timestamp` kind (added as one `.rs`, one `.toml` and one registry
/// line): exact counts across a carry into `timestamp_hi`, on every
/// generation; a table it refuses is named before anything runs.
#[test]
fn the_timestamp_counts_exactly_across_a_carry_and_adjusts_exactly() {
    let f = ScenarioFile::find("timestamp").unwrap();
    let s = f.scenario().unwrap();
    for arch in Arch::ALL {
        let mut c = tpb_cosim::sched::Cosim::new(arch).unwrap();
        let r = s.run_on(&mut c, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(r.get("carries"), 1, "{arch:?}: the snapshots straddle one carry into timestamp_hi: {:?}", r.values);
        assert_eq!(r.checks.len(), 3, "{arch:?}: {:?}", r.checks);
    }
    let bad = "name = \"t\"\ndescription = \"d\"\narchs = [\"cayman\"]\ncycles = 5\n[timestamp]\ninc = 0\ngap = 10\ndelta = 1\n";
    let e = ScenarioFile::parse("t.toml", bad).unwrap_err().to_string();
    assert!(e.contains("t.toml: [timestamp] inc = 0 (1..=255)"), "{e}");
}
