//! Quiescent dies skipped (`Mesh::skip_quiet`): a die asleep in WAITI is
//! not evaluated, a cross-die SIGNAL wakes it, and the run with skipping
//! is the run without, transaction for transaction.

use tpb_cosim::scenario::collective::{self, Addressing, CollectiveCfg};
use tpb_cosim::scenario::ScenarioFile;
use tpb_cosim::sched::CoreId;
use tpb_models::hal::Mmio;
use tpb_models::regmap::Arch;

/// Four CAYMAN dies 16 cycles apart (`skip_quiet` as given), each TOP_SP
/// released and asleep (`TapeWait::Waiti`) in a one-event tape that WAITs
/// for its own semaphore 40 to reach 1; `more(addrs, die, event)` adds to
/// die's event.
fn sleeping_dies(skip: bool, more: impl Fn(&tpb_cosim::scenario::collective::TapeAddrs, u32, &mut tpb_models::ncfw::mesh::MeshEvent)) -> tpb_cosim::mesh::Mesh {
    use tpb_cosim::firmware::{self, TapeWait};
    use tpb_cosim::scenario::collective::{tape_dram, TapeAddrs};
    use tpb_models::ncfw::mesh::MeshEvent;
    use tpb_models::regmap::Engine;
    let mut m = tpb_cosim::mesh::Mesh::new(Arch::Cayman, 4, 16).unwrap();
    m.skip_quiet = skip;
    let map = m.dies[0].map().clone();
    let hal = tpb_models::hal::Hal::for_arch(Arch::Cayman).unwrap();
    let a = TapeAddrs::new(&hal, 0, Addressing::ChipId).unwrap();
    let prog = firmware::mesh_tape(&map, 1, 1, TapeWait::Waiti).unwrap();
    let release = firmware::Addrs::new(&map, "test").reg(Engine::TopSp, "nx", "release_run_stall").unwrap();
    for (d, c) in m.dies.iter_mut().enumerate() {
        let d = d as u32;
        let mut e = MeshEvent { wait_event: 1, event_wait_sema: a.read(d, d, 40).unwrap(), wait_val: 1, ..MeshEvent::default() };
        more(&a, d, &mut e);
        c.load_top_sp(&prog.bytes, &tape_dram(&[e])).unwrap();
        c.write32(release.into(), 0).unwrap();
    }
    m
}

/// A sleeping die woken by another die's SIGNAL, not by the host: four dies
/// in a chain, each TOP_SP asleep (`TapeWait::Waiti`) on its semaphore 40;
/// the host wakes die 0 only, and die d's one event, after its WAIT,
/// SIGNALs die d + 1's semaphore 40 across the mesh. Dies 1..3 are skipped
/// while they sleep, and an inbound SIGNAL must wake them: the run with
/// skipping equals the run without, transaction for transaction (drop the
/// inbound-message condition from `Cosim::quiescent` and die 1 sleeps on).
#[test]
fn a_cross_die_signal_wakes_a_skipped_die() {
    use tpb_cosim::firmware;
    use tpb_models::regmap::{Engine, WindowOp};
    let run = |skip: bool| {
        // Die d < 3 SIGNALs die d + 1's semaphore 40 after its WAIT.
        let mut m = sleeping_dies(skip, |a, d, e| {
            if d < 3 {
                e.direct_trigger = 1;
                e.direct_trigger_sema[0] = a.inc(d, d + 1, 40).unwrap();
            }
        });
        let set = firmware::Addrs::new(&m.dies[0].map().clone(), "test").sem(Engine::TopSp, WindowOp::Set, 40).unwrap();
        m.run_until(700, |_| false);
        m.dies[0].write32(set.into(), 1).unwrap();
        let done = m.run_until(5000, |m| m.dies.iter().all(|c| c.core(CoreId::TopSp).core.halted()));
        m.run_until(40, |_| false);
        (m, done)
    };
    let ((a, done_a), (b, done_b)) = (run(true), run(false));
    assert!(done_b, "without skipping, the SIGNAL chain reaches die 3");
    assert!(done_a, "with skipping, every die woke: die TOP_SPs halted {:?}", a.dies.iter().map(|c| c.core(CoreId::TopSp).core.halted()).collect::<Vec<_>>());
    let skipped = a.stats().skipped;
    let all: u64 = a.dies.iter().map(|x| x.stats.cycles).sum();
    assert!(skipped > all / 4, "dies 1..3 slept skipped until their SIGNAL: {skipped} of {all} die-cycles");
    for (d, (x, y)) in a.dies.iter().zip(&b.dies).enumerate() {
        assert_eq!(x.log, y.log, "die {d}'s BAR0 transactions");
        assert_eq!(x.stats.cycles, y.stats.cycles, "die {d}'s cycles");
        assert_eq!(x.top_sp_dram(firmware::ALGO_CTX + 0x208), Some(firmware::TAPE_DONE), "die {d}'s tape");
    }
    // Each die's SIGNAL reached the next: its INC arrived from the previous die.
    for d in 1..4 {
        let remote = a.dies[d].log.iter().filter(|t| matches!(t.master, tpb_cosim::sched::Master::Remote { die, .. } if die == d as u32 - 1)).count();
        assert!(remote >= 1, "die {d} got die {}'s SIGNAL", d - 1);
    }
    println!("a SIGNAL chain over 4 sleeping dies: {skipped} of {all} die-cycles skipped");
}

/// Skipping quiescent dies changes nothing but the work. Four dies whose
/// TOP_SPs sleep (`TapeWait::Waiti`) on a semaphore, woken one by one by
/// the host SETting it: while a die sleeps (its other cores held in
/// run-stall, its top steady) it is not evaluated; the run with skipping
/// and the run without give the same BAR0 transactions on every die, the
/// same outputs, the same cycles and the same tape ends. A die whose
/// timestamp runs is never quiescent (`tsync`: nothing skipped), and in the
/// collectives the TOP_SPs are rarely asleep: they wait out their own
/// SIGNALs' round trips, which is not quiet.
#[test]
fn skipping_quiescent_dies_gives_the_same_run() {
    use tpb_cosim::firmware::{self, TapeWait};
    use tpb_models::regmap::{Engine, WindowOp};
    let run = |skip: bool| {
        let mut m = sleeping_dies(skip, |_, _, _| {});
        let set = firmware::Addrs::new(&m.dies[0].map().clone(), "test").sem(Engine::TopSp, WindowOp::Set, 40).unwrap();
        for d in [2usize, 0, 3, 1] {
            m.run_until(700, |_| false);
            m.dies[d].write32(set.into(), 1).unwrap();
        }
        assert!(m.run_until(2000, |m| m.dies.iter().all(|c| c.core(CoreId::TopSp).core.halted())));
        m.run_until(40, |_| false);
        m
    };
    let (a, b) = (run(true), run(false));
    let skipped = a.stats().skipped;
    let all: u64 = a.dies.iter().map(|x| x.stats.cycles).sum();
    assert!(skipped > all / 2, "the sleeping dies were skipped: {skipped} of {all} die-cycles");
    assert_eq!(b.stats().skipped, 0);
    for (d, (x, y)) in a.dies.iter().zip(&b.dies).enumerate() {
        assert_eq!(x.log, y.log, "die {d}'s BAR0 transactions");
        assert_eq!(x.out, y.out, "die {d}'s outputs");
        assert_eq!(x.stats.cycles, y.stats.cycles, "die {d}'s cycles");
        assert_eq!(x.stats.retired, y.stats.retired, "die {d}'s instructions");
        assert_eq!(x.top_sp_dram(firmware::ALGO_CTX + 0x208), Some(firmware::TAPE_DONE), "die {d}'s tape");
        assert_eq!(x.top_sp_dram(firmware::ALGO_CTX + 0x208), y.top_sp_dram(firmware::ALGO_CTX + 0x208));
    }
    println!("4 sleeping dies woken one by one: {skipped} of {all} die-cycles skipped");
    let f = ScenarioFile::find("tsync").unwrap();
    let (r, _) = tpb_cosim::scenario::tsync(Arch::Cayman, &f.tsync.clone().unwrap(), 4, f.cycles, None).unwrap();
    assert_eq!(r.get("skipped_die_cycles"), 0, "running timestamps keep every die awake");
    let f = ScenarioFile::find("allreduce-ring").unwrap();
    let c = CollectiveCfg { wait: TapeWait::Waiti, ..f.collective.unwrap() };
    let (r, _) = collective::collective(Arch::Cayman, &c, 4, f.cycles, None).unwrap();
    println!("allreduce-ring on 4 dies, sleeping WAITs: {} die-cycles skipped", r.get("skipped_die_cycles"));
}
