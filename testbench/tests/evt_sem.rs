//! The EVT_SEM unit (rust-hdl) against its golden model: random bus and
//! doorbell traffic with hazards on a few semaphores, compared every cycle
//! (responses, db_ready, notifications, ready); K concurrent increments;
//! wrap and saturate edges; post-reset clear.

use proptest::prelude::{any, prop_assert, proptest, ProptestConfig, Strategy};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use tpb_hdl::evt_sem::EvtSem;
use tpb_models::golden::evt_sem::{BusReq, DbReq, EvtSemModel, Outputs, CLEAR_CYCLES};
use tpb_models::regmap::layout::SemWindows;

/// The windows of DIGEST §3, as the stimulus addresses them (pinned to
/// every map by `windows_are_the_maps`).
const READ: u32 = 0x1000;
const SET: u32 = 0x1400;
const INC: u32 = 0x1800;
const DEC: u32 = 0x1c00;

fn windows() -> SemWindows {
    SemWindows::of(&tpb_models::regmap::builtin(tpb_models::regmap::Arch::Cayman).unwrap()).unwrap()
}

struct Sim {
    uut: EvtSem,
}

impl Sim {
    fn new(w: &SemWindows, saturate: bool) -> Sim {
        let mut uut = EvtSem::new(w, saturate).unwrap();
        uut.connect_all();
        uut.clock.next = Clock::from(false);
        assert!(simulate(&mut uut, 1000));
        Sim { uut }
    }
    fn drive(&mut self, reset: bool, bus: Option<BusReq>, db: Option<DbReq>) {
        let u = &mut self.uut;
        tpb_hdl::bar0_slave_drive!(u, reset, bus);
        u.db_valid.next = db.is_some();
        let d = db.unwrap_or(DbReq { index: 0, amount: 0 });
        u.db_index.next = (d.index as u64).into();
        u.db_amount.next = (d.amount as u64).into();
        assert!(simulate(u, 1000));
    }
    fn tick(&mut self) {
        self.uut.clock.next = Clock::from(true);
        assert!(simulate(&mut self.uut, 1000));
        self.uut.clock.next = Clock::from(false);
        assert!(simulate(&mut self.uut, 1000));
    }
    fn outputs(&self) -> Outputs {
        let u = &self.uut;
        Outputs {
            rsp_valid: u.rsp_valid.val(),
            rsp_rdata: u.rsp_rdata.val().index() as u32,
            rsp_err: u.rsp_err.val(),
            notif_valid: u.notif_valid.val(),
            // the index is meaningful only with notif_valid
            notif_index: if u.notif_valid.val() { u.notif_index.val().index() as u8 } else { 0 },
            ready: u.ready.val(),
        }
    }
}

/// One cycle of stimulus.
#[derive(Debug, Clone, Copy)]
struct Cycle {
    reset: bool,
    bus: Option<BusReq>,
    db: Option<DbReq>,
}

/// Run the same stimulus through RTL and model; a doorbell that is not
/// taken is held (as the DMA engine does) until it is. Returns the first
/// divergence.
fn lockstep(saturate: bool, cycles: &[Cycle]) -> Result<(EvtSemModel, u64), String> {
    lockstep_on(&windows(), saturate, cycles)
}

fn lockstep_on(w: &SemWindows, saturate: bool, cycles: &[Cycle]) -> Result<(EvtSemModel, u64), String> {
    let mut rtl = Sim::new(w, saturate);
    let mut gold = EvtSemModel::new(*w, saturate);
    let mut held: Option<DbReq> = None;
    for (n, c) in cycles.iter().enumerate() {
        let db = held.or(c.db);
        rtl.drive(c.reset, c.bus, db);
        let ready_rtl = rtl.uut.db_ready.val();
        let ready_gold = gold.db_ready(c.bus, db.map_or(0, |d| d.index));
        if ready_rtl != ready_gold {
            return Err(format!("cycle {n}: db_ready rtl {ready_rtl} golden {ready_gold} ({c:?}, db {db:?})"));
        }
        rtl.tick();
        let taken = gold.step(c.reset, c.bus, db);
        held = if db.is_some() && !taken && !c.reset { db } else { None };
        let (r, g) = (rtl.outputs(), gold.outputs());
        if r != g {
            return Err(format!("cycle {n}: rtl {r:?}\n  golden {g:?}\n  after {c:?}, db {db:?}"));
        }
    }
    Ok((gold, cycles.len() as u64))
}

fn idx(rng: &mut SmallRng) -> u32 {
    if rng.gen_bool(0.8) {
        rng.gen_range(0..4)
    } else {
        rng.gen_range(0..256)
    }
}

fn random_cycle(rng: &mut SmallRng) -> Cycle {
    let bus = if rng.gen_bool(0.7) {
        let win = [READ, SET, INC, DEC][rng.gen_range(0..4)];
        let mut addr = win + 4 * idx(rng);
        if rng.gen_bool(0.03) {
            addr = rng.gen_range(0..0x3000); // out of range or misaligned: an error
        }
        let wdata = if rng.gen_bool(0.2) { rng.gen() } else { rng.gen_range(0..4) };
        Some(BusReq { write: rng.gen_bool(0.6), addr, wdata })
    } else {
        None
    };
    let db = rng.gen_bool(0.4).then(|| DbReq { index: idx(rng) as u8, amount: if rng.gen_bool(0.1) { rng.gen() } else { 1 } });
    Cycle { reset: rng.gen_bool(0.0005), bus, db }
}

#[test]
fn random_traffic_matches_the_golden_model() {
    let cycles: usize = std::env::var("TPB_RHDL_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    for (seed, saturate) in [(11u64, false), (12, true)] {
        let mut rng = SmallRng::seed_from_u64(seed);
        let stim: Vec<Cycle> = (0..cycles).map(|_| random_cycle(&mut rng)).collect();
        let t = std::time::Instant::now();
        let (_, n) = lockstep(saturate, &stim).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        println!("EVT_SEM rust-hdl vs golden: {n} cycles (saturate={saturate}), 0 mismatches, {:.0} cycles/s", n as f64 / t.elapsed().as_secs_f64());
    }
}

fn arb_cycle() -> impl Strategy<Value = Cycle> {
    any::<u64>().prop_map(|s| random_cycle(&mut SmallRng::seed_from_u64(s)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]
    /// Short sequences that proptest shrinks to a minimal failing one.
    #[test]
    fn shrinkable_random_sequences(stim in proptest::collection::vec(arb_cycle(), 1..200), saturate in any::<bool>()) {
        let r = lockstep(saturate, &stim);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

fn inc(idx: u32, v: u32) -> Option<BusReq> {
    Some(BusReq { write: true, addr: INC + 4 * idx, wdata: v })
}

#[test]
fn k_concurrent_increments_leave_exactly_k() {
    // K = 600 increments of semaphore 9: from the bus, from the doorbell, in
    // the same cycle and in different cycles, with other traffic between.
    let mut rng = SmallRng::seed_from_u64(99);
    let mut stim = Vec::new();
    let (mut bus_incs, mut db_incs) = (0, 0);
    while bus_incs + db_incs < 600 {
        let (bus, db) = match rng.gen_range(0..5) {
            0 => (inc(9, 1), Some(DbReq { index: 9, amount: 1 })), // same cycle, same semaphore
            1 => (inc(9, 1), Some(DbReq { index: 9, amount: 1 })),
            2 => (inc(9, 1), None),
            3 => (None, Some(DbReq { index: 9, amount: 1 })),
            _ => (inc(rng.gen_range(10..20), 1), Some(DbReq { index: 9, amount: 1 })), // refused, retried
        };
        bus_incs += bus.filter(|b| b.addr == INC + 36).is_some() as u32;
        db_incs += db.is_some() as u32;
        stim.push(Cycle { reset: false, bus, db });
        // Let a refused doorbell through before queueing another one.
        stim.push(Cycle { reset: false, bus: None, db: None });
    }
    stim.push(Cycle { reset: false, bus: Some(BusReq { write: false, addr: READ + 36, wdata: 0 }), db: None });
    let (gold, _) = lockstep(false, &stim).unwrap();
    assert_eq!(gold.value(9), bus_incs + db_incs);
    // And the RTL read back the same value (checked cycle by cycle in lockstep).
    let mut rtl = Sim::new(&windows(), false);
    let mut held = None;
    for c in &stim {
        let db = held.or(c.db);
        rtl.drive(false, c.bus, db);
        let ready = rtl.uut.db_ready.val();
        rtl.tick();
        held = if db.is_some() && !ready { db } else { None };
    }
    rtl.drive(false, None, None);
    assert!(bus_incs + db_incs >= 600);
    assert_eq!(rtl.outputs().rsp_rdata, bus_incs + db_incs, "bus {bus_incs} + doorbell {db_incs} increments");
}

#[test]
fn wrap_and_saturate_at_both_edges() {
    for (saturate, hi, lo) in [(false, 1u32, u32::MAX), (true, u32::MAX, 0)] {
        let stim = [
            Cycle { reset: false, bus: Some(BusReq { write: true, addr: SET, wdata: u32::MAX }), db: None },
            Cycle { reset: false, bus: inc(0, 2), db: None },
            Cycle { reset: false, bus: Some(BusReq { write: true, addr: DEC + 4, wdata: 1 }), db: None },
            Cycle { reset: false, bus: None, db: None },
        ];
        let (gold, _) = lockstep(saturate, &stim).unwrap();
        assert_eq!((gold.value(0), gold.value(1)), (hi, lo), "saturate={saturate}");
    }
    // The doorbell saturates too.
    let stim = [
        Cycle { reset: false, bus: Some(BusReq { write: true, addr: SET + 8, wdata: u32::MAX - 1 }), db: None },
        Cycle { reset: false, bus: None, db: Some(DbReq { index: 2, amount: 7 }) },
        Cycle { reset: false, bus: None, db: None },
    ];
    assert_eq!(lockstep(true, &stim).unwrap().0.value(2), u32::MAX);
}

#[test]
fn reset_clears_every_semaphore_and_refuses_access_meanwhile() {
    let mut stim = vec![Cycle { reset: false, bus: Some(BusReq { write: true, addr: SET + 4 * 200, wdata: 5 }), db: None }];
    stim.push(Cycle { reset: true, bus: None, db: None });
    for _ in 0..CLEAR_CYCLES - 1 {
        stim.push(Cycle { reset: false, bus: Some(BusReq { write: false, addr: READ, wdata: 0 }), db: Some(DbReq { index: 1, amount: 1 }) });
    }
    stim.push(Cycle { reset: false, bus: Some(BusReq { write: false, addr: READ + 4 * 200, wdata: 0 }), db: None });
    stim.push(Cycle { reset: false, bus: None, db: None });
    let (gold, _) = lockstep(false, &stim).unwrap();
    assert_eq!(gold.value(200), 0);
    assert_eq!(gold.value(1), 1, "the doorbell was refused during the clear, held, and taken once after it");
}

/// Every map's `evt_sem` array has the windows and count of DIGEST §3.
#[test]
fn windows_are_the_maps() {
    for m in tpb_models::regmap::builtin_all().unwrap() {
        let w = SemWindows::of(&m).unwrap();
        assert_eq!((w.read, w.set, w.inc, w.dec, w.count, w.stride), (READ, SET, INC, DEC, tpb_hdl::evt_sem::COUNT, 4), "{}", m.arch);
    }
}

/// The unit and its model decode the windows the map gives, not the
/// digest's: with SET and INC swapped in the map, a write at 0x1800 sets
/// and one at 0x1400 adds. A map the RAM cannot hold is a typed error.
#[test]
fn the_unit_decodes_the_maps_windows() {
    let mut w = windows();
    (w.set, w.inc) = (w.inc, w.set);
    let wr = |addr: u32, wdata: u32| Cycle { reset: false, bus: Some(BusReq { write: true, addr, wdata }), db: None };
    let mut stim = vec![Cycle { reset: true, bus: None, db: None }];
    stim.extend((0..CLEAR_CYCLES).map(|_| Cycle { reset: false, bus: None, db: None }));
    stim.extend([wr(0x1800 + 8, 5), wr(0x1400 + 8, 2), wr(0x1400 + 8, 3), Cycle { reset: false, bus: None, db: None }]);
    let (gold, _) = lockstep_on(&w, false, &stim).unwrap();
    assert_eq!(gold.value(2), 10, "set 5 at the map's SET window, then add 2 and 3 at its INC window");
    let mut big = windows();
    big.count = 512;
    let e = EvtSem::new(&big, false).err().expect("512 semaphores do not fit").to_string();
    assert!(e.contains("evt_sem") && e.contains("256") && e.contains("512"), "{e}");
}

/// The failure proptest once saved (`evt_sem.proptest-regressions`, a case
/// it shrank): replayed every run as a fixed test, since persistence is off
/// for the proptest above. Each `cc` line's `stim = [...]` is read back from
/// its printed form.
#[test]
fn the_saved_proptest_failure_is_replayed() {
    let text = std::fs::read_to_string(tpb_testbench::tools::repo_root().join("testbench/tests/evt_sem.proptest-regressions")).unwrap();
    let num = |s: &str, key: &str| -> u64 {
        let v = s.split(&format!("{key}: ")).nth(1).unwrap_or_else(|| panic!("no {key} in {s}"));
        v.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    let mut cases = 0;
    for line in text.lines().filter(|l| l.starts_with("cc ")) {
        let (stim, saturate) = line.split_once("stim = [").unwrap().1.rsplit_once("], saturate = ").unwrap();
        let cycles: Vec<Cycle> = stim
            .split("Cycle {")
            .filter(|c| !c.trim().is_empty())
            .map(|c| {
                let (bus_part, db_part) = c.split_once("db: ").unwrap();
                let bus = bus_part.contains("Some(BusReq").then(|| BusReq {
                    write: bus_part.contains("write: true"),
                    addr: num(bus_part, "addr") as u32,
                    wdata: num(bus_part, "wdata") as u32,
                });
                let db = db_part.starts_with("Some(DbReq").then(|| DbReq { index: num(db_part, "index") as u8, amount: num(db_part, "amount") as u32 });
                Cycle { reset: c.contains("reset: true"), bus, db }
            })
            .collect();
        assert!(cycles.len() > 10, "the case was read: {} cycles", cycles.len());
        lockstep(saturate.trim() == "true", &cycles).unwrap_or_else(|e| panic!("the saved case fails again: {e}"));
        cases += 1;
    }
    assert_eq!(cases, 1, "the file holds one saved case");
}
