//! End-to-end co-simulation: the host HAL, the Verilated top, the 8
//! behavioural Q7 cores, the SEQ and the TOP_SP on one clock; every scenario
//! on every generation it applies to, with its checked ending.

use tpb_cosim::scenario::{self, ScenarioError, ScenarioFile};
use tpb_cosim::sched::{CoreId, Cosim, Master, SOC_PORT, SYSTEM_WINDOW};
use tpb_models::hal::Mmio;
use tpb_models::regmap::Arch;

const ALL: [Arch; 3] = [Arch::Sunda, Arch::Cayman, Arch::Mariana];

fn file(name: &str) -> ScenarioFile {
    ScenarioFile::find(name).unwrap()
}

#[test]
fn bringup_on_every_generation_boots_the_seq_and_runs_the_q7_kernel() {
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let t0 = std::time::Instant::now();
        let r = scenario::bringup(&mut c, 20, 50_000).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!((r.get("q7[0].n"), r.get("q7[0].sum")), (20, 210));
        assert_eq!((r.get("q7[7].n"), r.get("q7[7].sum")), (27, 378));
        // 8 Q7 cores + the SEQ, each released once.
        assert_eq!(r.stats.stalls_released, 9, "{arch:?}");
        assert!(r.stats.bus_waits > r.stats.retired / 2, "the RTL ports' wait states are the cores' wait states");
        assert!(
            r.checks.iter().any(|c| c.contains(if arch == Arch::Sunda { "released by the SEQ setting POOL semaphore 248 to 0xff" } else { "released by the host" })),
            "{arch:?}: {:?}",
            r.checks
        );
        println!(
            "{arch:?}: {} checks, init done at {}, all halted at {}, {} host + {} core BAR0 transactions, {} instructions; {:.0} cycles/s",
            r.checks.len(),
            r.get("init_done"),
            r.get("all_halted"),
            r.stats.transactions,
            r.stats.core_transactions,
            r.stats.retired,
            r.stats.cycles as f64 / t0.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn a_wrong_ending_is_caught_with_what_and_when() {
    // Too few cycles: the cores cannot finish, and the check says which.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let e = scenario::bringup(&mut c, 2000, 500).unwrap_err().to_string();
    assert!(e.starts_with("check failed at cycle") && e.contains("not halted within 500 cycles of the release"), "{e}");
    // A scenario on a generation it does not apply to says so.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let q = file("q7-kernels").q7_kernels.unwrap();
    assert!(matches!(scenario::q7_kernels(&mut c, &q, 1000), Err(ScenarioError::NotApplicable { .. })));
}

#[test]
fn doorbell_walks_the_cc_op_program_and_the_host_sees_completion() {
    let f = file("doorbell");
    let d = f.doorbell.as_ref().unwrap();
    // SUNDA's host_trigger is a register of its own, latched into the
    // TOP_SP's intr_info; the same firmware consumes it.
    for arch in Arch::ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::doorbell(&mut c, d, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        // [[2,1,1],[1,0,2]] + [[1,1,1]]: 3 + 2 + 2 = 7 descriptors.
        assert_eq!(r.get("descriptors"), 7);
        assert_eq!(r.stats.doorbells, 7);
        assert_eq!(r.get("tail_pointer_writes"), 6, "one per non-zero m2s/s2m per repeat: 2 + 2 + 2");
        assert_eq!(r.events.len(), 7, "the six of the cc_op run and the init DMA's end: {:?}", r.events);
        assert_eq!(r.get("init_dma_words"), (0x1000 + 0x8000) / 4, "both SPADs copied whole");
        println!("{arch:?}: {} checks; events {:?}", r.checks.len(), r.events);
    }
}

/// The co-simulated init DMA refuses a bad copy before its first write
/// (into registers, out of a memory region, a source past device memory),
/// and a good one lands word for word, each word a BAR0 write of its own.
#[test]
fn init_dma_refuses_bad_copies_and_lands_good_ones() {
    use tpb_models::hal::{DevMem, DmaCopy};
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let p = c.map().params.clone();
    let spad = p.bar0.tpb_base + p.bar0.top_sp_ctrl_spad;
    for (bad, says) in [
        (DmaCopy { src: 0, dst: 0x615a0, len: 4 }, "init-DMA copy"),
        (DmaCopy { src: 0, dst: spad + 0xffc, len: 8 }, "top_sp.ctrl_spad"),
        (DmaCopy { src: tpb_models::hal::devmem::DEVMEM_SIZE, dst: spad, len: 4 }, "past the device memory's end"),
    ] {
        let e = c.init_dma(&[DmaCopy { src: 0, dst: spad, len: 4 }, bad]).unwrap_err().to_string();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
    assert!(c.log.iter().all(|t| t.master != Master::InitDma), "nothing moved");
    c.devmem_write(0x40, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]).unwrap();
    let from = c.stats.cycles;
    c.init_dma(&[DmaCopy { src: 0x40, dst: spad + 0x10, len: 12 }]).unwrap();
    let w: Vec<(u32, u32)> = c.log.iter().filter(|t| t.master == Master::InitDma).map(|t| (t.addr, t.data)).collect();
    let s = spad as u32;
    assert_eq!(w, vec![(s + 0x10, 1), (s + 0x14, 2), (s + 0x18, 3)]);
    assert!(c.stats.cycles - from <= 8, "a word per two cycles: {} cycles", c.stats.cycles - from);
    assert_eq!(c.read32(spad + 0x14).unwrap(), 2);
}

/// The SPADs loaded by programmed I/O (`spad_load = "pio"`) give the same
/// cc_op run as the init DMA: the same firmware counts, semaphores and
/// copies, the same cycles from host_trigger on; the host made the SPAD
/// writes and the init DMA none.
#[test]
fn doorbell_by_programmed_io_runs_as_by_the_init_dma() {
    let f = file("doorbell");
    let dma = f.doorbell.clone().unwrap();
    let pio = scenario::DoorbellCfg { spad_load: scenario::SpadLoad::Pio, ..dma.clone() };
    let mut runs = Vec::new();
    for d in [&dma, &pio] {
        let mut c = Cosim::new(Arch::Cayman).unwrap();
        let r = scenario::doorbell(&mut c, d, f.cycles).unwrap_or_else(|e| panic!("{:?}: {e}", d.spad_load));
        let by_dma = c.log.iter().filter(|t| t.master == Master::InitDma).count();
        let at = |n: &str| r.events.iter().find(|e| e.1 == n).unwrap().0;
        let after: Vec<u64> = ["first tail-pointer write", "first DMA doorbell", "last DMA doorbell", "completion posted"].iter().map(|n| at(n) - at("host_trigger")).collect();
        runs.push((by_dma, after, r.get("descriptors"), r.get("tail_pointer_writes"), r.checks.len(), c.init_dma.mem.written));
    }
    let ((dma_writes, dma_after, ..), (pio_writes, pio_after, ..)) = (&runs[0], &runs[1]);
    assert_eq!(*dma_writes, (0x1000 + 0x8000) / 4);
    assert_eq!(*pio_writes, 0);
    assert_eq!(runs[1].5, 0, "programmed I/O stages nothing in device memory");
    assert_eq!(runs[0].5, 0x1000 + 0x8000);
    // The TOP_SP polls host_trigger in both, so the run after it is cycle-for-cycle alike.
    assert_eq!(dma_after, pio_after);
    assert_eq!((runs[0].2, runs[0].3), (runs[1].2, runs[1].3));
    assert_eq!(runs[0].4, runs[1].4 + 2, "the init DMA run adds its two checks (all SPAD words by it, the last before host_trigger)");
}

#[test]
fn barrier_passes_only_after_the_last_arrival_on_every_generation() {
    let f = file("barrier");
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::barrier(&mut c, f.barrier.as_ref().unwrap(), f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        // Core 7 does 8x core 0's work: it arrives last.
        assert!(r.get("q7[7].arrived") > r.get("q7[0].arrived"), "{arch:?}");
        assert_eq!(r.get("last_arrival"), r.get("q7[7].arrived"));
        println!("{arch:?}: {} checks, last arrival at {}", r.checks.len(), r.get("last_arrival"));
    }
}

#[test]
fn halt_start_halts_and_restarts_the_seq_and_the_chosen_q7_cores_on_every_generation() {
    let f = file("halt-start");
    let h = f.halt_start.as_ref().unwrap();
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::halt_start(&mut c, h, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        // The SEQ once, Q7 cores 0 and 2.
        assert_eq!(r.get("starts"), 3, "{arch:?}");
        assert_eq!(c.start_log.iter().map(|s| s.1).collect::<Vec<_>>(), vec![CoreId::Seq, CoreId::Q7(0), CoreId::Q7(2)], "{arch:?}");
        let ev: Vec<&str> = r.events.iter().map(|e| e.1.as_str()).collect();
        assert_eq!(ev.len(), 5, "{arch:?}: {ev:?}");
        assert!(r.events.windows(2).all(|w| w[0].0 < w[1].0), "{arch:?}: events in order: {:?}", r.events);
        println!("{arch:?}: {} checks, events {:?}, SEQ held after {} spins", r.checks.len(), r.events, r.get("seq.spins"));
    }
    // Without the start, the SEQ's restart never comes: the check says so.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let e = scenario::halt_start(&mut c, h, 40).unwrap_err().to_string();
    assert!(e.starts_with("check failed at cycle") && e.contains("within 40 cycles"), "{e}");
}

#[test]
fn notify_reads_every_event_back_in_order_on_every_generation() {
    let f = file("notify");
    let n = f.notify.as_ref().unwrap();
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::notify(&mut c, n, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        // 9 halts in at least 2 records, 3 semaphores, 1 bus error, 3 DMA records.
        assert!(r.get("records") >= 2 + 3 + 1 + 3, "{arch:?}: {}", r.get("records"));
        println!("{arch:?}: {} checks, {} records, events {:?}", r.checks.len(), r.get("records"), r.events);
    }
}

/// A ring too small for the events: one record posts, one waits in its
/// slot, the next event of that source is dropped; the reader reports the
/// drop and the overflow, clears the flag, and gets the waiting record on its
/// next read (the tail it wrote back made room).
#[test]
fn a_full_notification_ring_drops_are_counted_and_reported_once() {
    use tpb_models::hal::notify::Event;
    use tpb_models::hal::Hal;
    use tpb_models::regmap::{Engine, WindowOp};
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let map = c.map().clone();
    let a = tpb_cosim::firmware::Addrs::new(&map, "t");
    let tpb = |r: &str| (map.params.bar0.tpb_base + map.params.bar0.tpb_regs.base) + u64::from(map.block("tpb").unwrap().register(r).unwrap().offset);
    c.write32(tpb("notific_ring_size"), 2).unwrap(); // holds one record
    c.write32(tpb("notific_enable"), 2).unwrap(); // EVT_SEM only
    for v in 1..=3 {
        c.write32(a.sem(Engine::Pool, WindowOp::Set, 4).unwrap().into(), v).unwrap();
    }
    c.run(16);
    let hal = Hal::with_map(map.clone());
    let b = hal.read_notifications(&mut c).unwrap();
    assert_eq!(b.notifications.iter().map(|n| n.event).collect::<Vec<_>>(), [Event::SemChanged { engine: Engine::Pool, index: 4 }]);
    assert_eq!((b.dropped, b.overflow), (1, true), "{b:?}");
    c.run(16);
    let b = hal.read_notifications(&mut c).unwrap();
    assert_eq!(b.notifications.len(), 1, "the waiting record posted once the tail moved: {b:?}");
    assert_eq!(b.notifications[0].dropped_before, 1);
    assert_eq!((b.dropped, b.overflow), (1, false), "the overflow flag was cleared by the first read: {b:?}");
}

#[test]
fn interrupts_are_taken_through_the_level1_vector_and_rfe_on_every_generation() {
    let f = file("interrupt");
    let i = f.interrupt.as_ref().unwrap();
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::interrupt(&mut c, i, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(r.events.len(), 4, "{arch:?}: {:?}", r.events);
        // Q7 cores 0 and 2 halted, the others wait in their loop.
        let halted: Vec<bool> = c.q7().iter().map(|q| q.core.halted()).collect();
        assert_eq!(halted, [true, false, true, false, false, false, false, false], "{arch:?}");
        println!("{arch:?}: {} checks, SEQ loop count {}", r.checks.len(), r.get("seq.loops"));
    }
    // With the interrupt never raised the SEQ never takes it: the check says so.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let e = scenario::interrupt(&mut c, i, 30).unwrap_err().to_string();
    assert!(e.starts_with("check failed at cycle"), "{e}");
}

#[test]
fn q7_kernels_dispatch_through_the_kernel_info_table_on_sunda() {
    let f = file("q7-kernels");
    let q = f.q7_kernels.as_ref().unwrap();
    let mut c = Cosim::new(Arch::Sunda).unwrap();
    let r = scenario::q7_kernels(&mut c, q, f.cycles).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.get("misses"), 2, "0x50 and 0xf0 have no record");
    println!("{} checks, shell {} bytes", r.checks.len(), r.get("shell_bytes"));
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    assert!(matches!(scenario::q7_kernels(&mut c, q, f.cycles), Err(ScenarioError::NotApplicable { .. })));
}

/// A buffer of zeros the host writes over words a core wrote reaches
/// them: only words nobody wrote are skipped (the SEQ's DRAM through BAR0,
/// a Q7 core's DRAM through its port).
#[test]
fn zero_words_over_what_a_core_wrote_are_sent() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    scenario::bringup(&mut c, 20, 50_000).unwrap();
    for region in ["seq.dram", "q7[0].dram"] {
        let base = u64::from(tpb_cosim::firmware::bar0_region(c.map(), region).unwrap());
        let before: Vec<u32> = (0..16).map(|k| c.read32(base + 4 * k).unwrap()).collect();
        assert!(before.iter().any(|w| *w != 0), "{region}: the core wrote something: {before:x?}");
        c.write_buf(base, &[0; 64]).unwrap();
        let after: Vec<u32> = (0..16).map(|k| c.read32(base + 4 * k).unwrap()).collect();
        assert_eq!(after, [0; 16], "{region}: was {before:x?}");
    }
}

/// The POOL control window (DIGEST §1: SUNDA 0x00100000, CAYMAN/MARIANA
/// 0x04000000): the SEQ releases the Q7 cores through it (+0x0c), reads
/// run_state_0 at +0x14 (SUNDA's address, [S] seed 000 §4c) and starts core 0 through
/// start_addr and start_ctrl (+0x10, SUNDA's start_ctrl, [S] seed 000 §4c); below the Q7
/// bundle the window faults.
#[test]
fn the_seq_controls_the_q7_cores_through_the_pool_control_window() {
    use tpb_cosim::firmware::{self, Consts};
    use tpb_models::hal::{Hal, StpbConfig, UcodeImages};
    use tpb_models::xtensa::config::sr;
    let src = "main:\n const16 a4, WIN_HI\n const16 a4, WIN_LO\n const16 a2, 0x1000\n const16 a2, 0\n movi a5, 0\n s32i a5, a4, 0x0c\n memw\n\
               wait:\n l32i a6, a4, 0x14\n bbci a6, 1, wait\n s32i a6, a2, 0\n l32i a6, a4, 0x0c\n s32i a6, a2, 4\n\
               const16 a6, RESTART_HI\n const16 a6, RESTART_LO\n s32i a6, a4, START_ADDR\n movi a6, 1\n s32i a6, a4, 0x10\n memw\n\
               l32i a7, a4, 0\n halt 0\n";
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let map = c.map().clone();
        let win = map.params.boot.pool_control_window_base.unwrap();
        let a = firmware::Addrs::new(&map, "t");
        let bundle = a.reg(tpb_models::regmap::Engine::Pool, "q7", "release_run_stall").unwrap();
        let q7 = firmware::q7_halt(&map).unwrap();
        let restart = q7.labels["restart"];
        let mut k = Consts::default();
        k.set("ENTER_RUN", map.params.boot.nx_enter_run.unwrap()).set("WIN", win).set("RESTART", restart);
        k.set("START_ADDR", a.reg(tpb_models::regmap::Engine::Pool, "q7", "start_addr").unwrap() - bundle + 0x0c);
        let seq = firmware::build_nx("t.S", src, &k).unwrap();
        Hal::with_map(map.clone())
            .stpb_init(&mut c, &StpbConfig::new(UcodeImages { iram: seq.bytes, dram: vec![0; 16] }, UcodeImages { iram: q7.bytes, dram: vec![0; 16] }), None)
            .unwrap();
        assert!(c.run_until(20_000, |c| c.core(CoreId::Seq).core.halted() || c.core(CoreId::Seq).core.sreg(sr::EXCCAUSE) != 0), "{arch:?}");
        let dram = u64::from(firmware::bar0_region(&map, "seq.dram").unwrap());
        let run_state_0 = c.read32(a.reg(tpb_models::regmap::Engine::Pool, "q7", "run_state_0").unwrap().into()).unwrap();
        assert_eq!(c.read32(dram).unwrap() & 2, 2, "{arch:?}: the SEQ read core 0 halted at +0x14");
        assert_eq!(c.read32(dram + 4).unwrap(), 0, "{arch:?}: release_run_stall reads 0 at +0x0c after the SEQ's release");
        assert!(c.start_log.iter().any(|s| s.1 == CoreId::Q7(0) && s.2 == restart), "{arch:?}: core 0 started at {restart:#x}: {:?} (run_state_0 {run_state_0:#x})", c.start_log);
        assert!(!c.start_log.iter().any(|s| s.1 == CoreId::Q7(1)), "{arch:?}: only core 0");
        let k = &c.core(CoreId::Seq).core;
        assert_eq!((k.sreg(sr::EXCCAUSE) != 0, k.sreg(sr::EXCVADDR)), (true, win), "{arch:?}: the load at the window's +0 faults");
        // SUNDA's start_ctrl / run_state addresses ([S] seed 000 §4c) land on those registers.
        let (b, at) = (map.params.boot.clone(), |r: &str| a.reg(tpb_models::regmap::Engine::Pool, "q7", r).unwrap());
        let via = |x: u32| x - win - tpb_cosim::sched::CTRL_WINDOW_Q7_BUNDLE + bundle;
        if let (Some(s), Some(r)) = (b.pool_start_ctrl, b.pool_run_state) {
            assert_eq!((via(s), via(r)), (at("start_ctrl"), at("run_state_0")), "{arch:?}");
        }
        let w = c.log.iter().find(|t| t.master == tpb_cosim::sched::Master::Core(CoreId::Seq) && t.write && t.addr == bundle);
        assert!(w.is_some_and(|t| t.data == 0), "{arch:?}: the release reached BAR0 {bundle:#x} as the SEQ's write");
    }
}

/// Address translation (DIGEST §2.7/§2.8), the `windows` scenario on every
/// generation: 3 SEQ stores through window 0, one through mem_window2, one
/// per Q7 core, each a lookup at the top's `xlat_*` port (12 in all); Q7
/// core 7 has no window and faults (the scenario checks each).
#[test]
fn cores_reach_the_soc_through_the_translation_windows() {
    use tpb_models::hal::windows::{Requester, Window};
    use tpb_models::hal::Hal;
    let f = file("windows");
    let cfg = f.windows.as_ref().unwrap();
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::windows(&mut c, cfg, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(r.get("xlat_lookups"), 12, "{arch:?}");
        assert_eq!(r.checks.len(), 13, "{arch:?}: {:?}", r.checks);
    }
    // Too few cycles: the run fails its first check, saying when.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let e = scenario::windows(&mut c, cfg, 30).unwrap_err().to_string();
    assert!(e.starts_with("check failed at cycle"), "{e}");
    // A bad window is refused before anything is written.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let hal = Hal::with_map(c.map().clone());
    let before = c.stats.transactions;
    let w = |requester, size, src| Some(Window { requester, src, size, dst: 0 });
    for (n, bad, what) in [
        (8, w(Requester::Nx, 4, 0), "window number"),
        (0, w(Requester::Q7(8), 4, 0), "Q7 core"),
        (0, w(Requester::Nx, 0, 0), "size 0"),
        (0, w(Requester::Nx, 2, u64::MAX), "past the 64-bit"),
    ] {
        let e = hal.set_window(&mut c, n, bad).unwrap_err().to_string();
        assert!(e.contains(what), "{e}");
    }
    assert_eq!(c.stats.transactions, before, "nothing was written");
}

/// The SEQ dispatch on every generation: each mode's path counts for the
/// stream of `dispatch.toml`, counted by hand from its roster (22 CAM hits,
/// 13 software-table opcodes, 5 with no handler; SUNDA: 0xe6, 0xe7 and 0xf2
/// are leaves, 6 of the stream); a record that disagrees fails the check.
#[test]
fn the_seq_dispatches_by_hw_decode_sunda_mode_miss_interrupt_and_base_subtraction() {
    use tpb_cosim::scenario::dispatch::{check_record, BootMode};
    let f = file("dispatch");
    let d = f.dispatch.as_ref().unwrap();
    let want: &[(&str, u64)] = &[
        ("hw.hw", 22),
        ("hw.table", 13),
        ("hw.unknown", 5),
        ("irq.hw", 22),
        ("irq.miss_irq", 18),
        ("irq.table", 0),
        ("sunda_mode.table", 35),
        ("sunda_mode.unknown", 5),
        ("sunda_mode.hw", 0),
    ];
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::dispatch(&mut c, d, f.cycles).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        if arch == Arch::Sunda {
            assert_eq!((r.get("sunda.table"), r.get("sunda.leaf"), r.get("sunda.unknown")), (29, 6, 5), "{arch:?}: {:?}", r.values);
            continue;
        }
        for (k, v) in want {
            assert_eq!(r.get(k), *v, "{arch:?}: {k}: {:?}", r.values);
        }
        assert_eq!(c.stats.starts, 2, "{arch:?}: restarted twice, into the miss-interrupt mode and Sunda-mode");
        println!("{arch:?}: {} checks in {} cycles", r.checks.len(), r.stats.cycles);
        // Tamper with the last run's record: the check names the instruction.
        let dram = u64::from(tpb_cosim::firmware::bar0_region(c.map(), "seq.dram").unwrap());
        let at = dram + u64::from(tpb_cosim::firmware::dispatch::LOG) + 4 * 3;
        let w = c.read32(at).unwrap();
        c.write32(at, w ^ 1 << 16).unwrap();
        let e = check_record(&mut c, d, BootMode::SundaMode, dram, &mut Default::default()).unwrap_err().to_string();
        assert!(e.contains("instruction 3 (0x43.2)"), "{e}");
    }
}

#[test]
fn mesh_tapes_complete_on_both_dies_with_cross_die_signals() {
    let f = file("mesh");
    for arch in [Arch::Cayman, Arch::Mariana] {
        let (r, m) = scenario::mesh(arch, f.mesh.as_ref().unwrap(), f.cycles, None).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!((r.get("die0.event_index"), r.get("die1.event_index")), (4, 4));
        // Per die: the SIGNALs of e0 and e2 cross (the e2 local SIGNAL does not).
        assert_eq!(m.remote, 4, "{arch:?}");
        println!("{arch:?}: {} checks; {:?}", r.checks.len(), r.events);
    }
}

/// The TOP_SP runs `body` (with `a2` = the SEQ DRAM through the system
/// window, `a5` = the SoC port, `a3` = 0x5a) for 400 cycles; the Cosim and
/// the SEQ DRAM's BAR0 address. Every exception vector (VECBASE 0x400)
/// halts, so EXCCAUSE/EXCVADDR keep the first exception.
fn top_sp_runs(body: &str) -> (Cosim, u64) {
    use tpb_models::xtensa::asm::assemble;
    use tpb_models::xtensa::config::Options;
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let scratch = c.map().params.bar0_regions().iter().find(|r| r.name == "seq.dram").unwrap().region.base as u32;
    let src = format!(
        "const16 a2, {hi}\n const16 a2, {lo}\n const16 a5, {shi}\n const16 a5, {slo}\n movi a3, 0x5a\n{body}\n halt 0\n .org 0x700\n halt 0\n .org 0x740\n halt 0\n .org 0x7c0\n halt 0\n",
        hi = (SYSTEM_WINDOW + scratch) >> 16,
        lo = (SYSTEM_WINDOW + scratch) & 0xffff,
        shi = SOC_PORT >> 16,
        slo = SOC_PORT & 0xffff
    );
    let p = assemble(&src, 0, &Options::tpb()).unwrap();
    c.load_top_sp(&p.bytes, &[]).unwrap();
    let a = tpb_cosim::firmware::Addrs::new(c.map(), "t").reg(tpb_models::regmap::Engine::TopSp, "nx", "release_run_stall").unwrap();
    c.write32(a.into(), 0).unwrap();
    c.run(400);
    (c, scratch.into())
}

/// The HW-decode port (`HWD_PORT`): a core looks an opcode up in the CAM
/// the HAL programmed, reads the decode FIFO's head and pops it with the
/// handler word; a miss reads valid without hit, handler 0, and raises
/// POOL's CAM-miss interrupt bit; SUNDA has no CAM, so the port faults.
#[test]
fn a_core_looks_opcodes_up_through_the_hw_decode_port() {
    use tpb_cosim::sched::HWD_PORT;
    use tpb_models::hal::{pooling, ArchCtx, CamRecord, HwDecodeTable};
    use tpb_models::xtensa::asm::assemble;
    use tpb_models::xtensa::config::Options;
    let body = |scratch: u32| {
        format!(
            "const16 a2, {hi}\n const16 a2, {lo}\n const16 a6, {phi}\n const16 a6, {plo}\n movi a9, 1\n\
             movi a7, 0x41\n s32i a7, a6, 0\n\
             p1: l32i a8, a6, 4\n and a10, a8, a9\n beqz a10, p1\n s32i a8, a2, 0\n l32i a8, a6, 8\n s32i a8, a2, 4\n\
             movi a7, 0x55\n s32i a7, a6, 0\n\
             p2: l32i a8, a6, 4\n and a10, a8, a9\n beqz a10, p2\n s32i a8, a2, 8\n l32i a8, a6, 8\n s32i a8, a2, 12\n memw\n halt 0\n",
            hi = (SYSTEM_WINDOW + scratch) >> 16,
            lo = (SYSTEM_WINDOW + scratch) & 0xffff,
            phi = HWD_PORT >> 16,
            plo = HWD_PORT & 0xffff
        )
    };
    for arch in [Arch::Cayman, Arch::Mariana] {
        let mut c = Cosim::new(arch).unwrap();
        let map = c.map().clone();
        let scratch = map.params.bar0_regions().iter().find(|r| r.name == "seq.dram").unwrap().region.base as u32;
        let mut table = vec![0u8; 16];
        table[12..16].copy_from_slice(&0x1234u32.to_le_bytes());
        let t = HwDecodeTable { cam: vec![CamRecord { valid: true, key_opcode: 0x41, key_func: 0, mask_opcode: 0xff, mask_func: 0, table_index: 3 }], table };
        pooling::hw_decode_table_init(&ArchCtx::new(arch, map.clone()), &mut c, &t).unwrap();
        let p = assemble(&body(scratch), 0, &Options::tpb()).unwrap();
        c.load_top_sp(&p.bytes, &[]).unwrap();
        let a = tpb_cosim::firmware::Addrs::new(&map, "t");
        c.write32(a.reg(tpb_models::regmap::Engine::TopSp, "nx", "release_run_stall").unwrap().into(), 0).unwrap();
        assert!(c.run_until(2000, |c| c.core(CoreId::TopSp).core.halted()), "{arch:?}: the lookups finished");
        let w = |c: &mut Cosim, k: u64| c.read32(u64::from(scratch) + 4 * k).unwrap();
        assert_eq!(w(&mut c, 0), 1 | 2 | 3 << 16, "{arch:?}: 0x41 hits entry 0, table index 3");
        assert_eq!(w(&mut c, 1), 0x1234, "{arch:?}: the handler word at index 3");
        assert_eq!(w(&mut c, 2), 1, "{arch:?}: 0x55 misses");
        assert_eq!(w(&mut c, 3), 0, "{arch:?}: a miss has no handler");
        let info = c.read32(a.reg(tpb_models::regmap::Engine::Pool, "nx", "intr_info").unwrap().into()).unwrap();
        assert_eq!(info & 2, 2, "{arch:?}: the miss set POOL's CAM-miss interrupt bit ({info:#x})");
    }
    // SUNDA has no CAM: the port faults (the core takes an exception).
    let mut c = Cosim::new(Arch::Sunda).unwrap();
    let p = assemble(
        &format!(
            "const16 a6, {}\n const16 a6, {}\n l32i a8, a6, 4\n halt 0\n .org 0x700\n halt 0\n .org 0x740\n halt 0\n .org 0x7c0\n halt 0\n",
            HWD_PORT >> 16,
            HWD_PORT & 0xffff
        ),
        0,
        &Options::tpb(),
    )
    .unwrap();
    c.load_top_sp(&p.bytes, &[]).unwrap();
    let a = tpb_cosim::firmware::Addrs::new(c.map(), "t").reg(tpb_models::regmap::Engine::TopSp, "nx", "release_run_stall").unwrap();
    c.write32(a.into(), 0).unwrap();
    c.run(200);
    let t = c.core(CoreId::TopSp);
    assert!(t.core.halted() && t.core.pc >= 0x700, "SUNDA: the load faulted into a vector (pc {:#x})", t.core.pc);
}

/// The system window reaches BAR0 word by word; a sub-word store through
/// it faults (BAR0 is word-only) and writes nothing; an unroutable SoC
/// address faults; the TOP_SP's image must fit its memory.
#[test]
fn core_bus_routes_and_refuses_what_bar0_cannot_do() {
    use tpb_models::xtensa::config::sr;
    use tpb_models::xtensa::core::cause::LOAD_STORE_ERROR;
    let exc = |c: &Cosim| {
        let k = &c.core(CoreId::TopSp).core;
        (k.sreg(sr::EXCCAUSE), k.sreg(sr::EXCVADDR))
    };
    // Word store, load back, store again: through BAR0, then HALT, no exception.
    let (mut c, scratch) = top_sp_runs(" s32i a3, a2, 0\n l32i a4, a2, 0\n s32i a4, a2, 4");
    assert!(c.core(CoreId::TopSp).core.halted());
    assert_eq!(exc(&c), (0, 0));
    assert_eq!(c.read32(scratch).unwrap(), 0x5a, "stored through the system window");
    assert_eq!(c.read32(scratch + 4).unwrap(), 0x5a, "loaded back and stored again");
    // A byte store through BAR0: LoadStoreError at its address, nothing
    // written, the word store after it never runs.
    let (mut c, scratch) = top_sp_runs(" s8i a3, a2, 9\n s32i a3, a2, 12");
    assert_eq!(exc(&c), (LOAD_STORE_ERROR, SYSTEM_WINDOW + scratch as u32 + 9));
    assert_eq!((c.read32(scratch + 8).unwrap(), c.read32(scratch + 12).unwrap()), (0, 0));
    // A SoC store to an address no die decodes: LoadStoreError at the data word.
    let (mut c, scratch) = top_sp_runs(" movi a6, -1\n s32i a6, a5, 0\n s32i a6, a5, 4\n s32i a3, a5, 8\n s32i a3, a2, 12");
    assert_eq!(exc(&c), (LOAD_STORE_ERROR, SOC_PORT + 8));
    assert_eq!(c.read32(scratch + 12).unwrap(), 0);
    // An image larger than the TOP_SP's IRAM is refused whole.
    let big = vec![0u8; c.map().params.bar0.seq_iram.size as usize + 4];
    let e = c.load_top_sp(&big, &[]).unwrap_err().to_string();
    assert!(e.contains("TOP_SP IRAM image") && e.contains("does not fit"), "{e}");
    // The DIGEST §7 fold: sp_base[0] is die 0, sp_base[8] die 1; other instances are not modelled.
    let v = c.soc_route(0xffff_ffff_ffff_ffff);
    assert!(v.is_err(), "{v:?}");
    let hal = tpb_models::hal::Hal::for_arch(Arch::Cayman).unwrap();
    assert_eq!(c.soc_route(hal.get_trigger_addr(0, 5).unwrap()).unwrap(), (0, 0x60000 + 0x1800 + 20));
    assert_eq!(c.soc_route(hal.get_trigger_addr(8, 5).unwrap()).unwrap(), (1, 0x60000 + 0x1800 + 20));
    let e = c.soc_route(hal.get_trigger_addr(3, 5).unwrap()).unwrap_err();
    assert!(matches!(e, tpb_cosim::sched::RouteError::Instance { instance: 3, .. }) && e.to_string().contains("instance 3 is not modelled"), "{e}");
    // With 8 TOP_SPs per die modelled, instance k of die d is node 8d + k.
    c.instances = 8;
    assert_eq!(c.soc_route(hal.get_trigger_addr(3, 5).unwrap()).unwrap(), (3, 0x60000 + 0x1800 + 20));
    assert_eq!(c.soc_route(hal.get_trigger_addr(11, 5).unwrap()).unwrap(), (11, 0x60000 + 0x1800 + 20));
}

/// A Q7 core fetches through its RTL port every cycle: code the host
/// rewrites over BAR0 while the core runs (a ucode re-install, a PIO write
/// into IRAM) is what the core runs next, although it ran, and so decoded,
/// the old code at the same address.
#[test]
fn a_q7_core_runs_code_rewritten_over_bar0() {
    use tpb_models::xtensa::asm::assemble;
    use tpb_models::xtensa::config::Options;
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let base = |c: &Cosim, name: &str| c.map().params.bar0_regions().iter().find(|r| r.name == name).unwrap().region.base;
    let (iram, dram) = (base(&c, "q7[0].iram"), base(&c, "q7[0].dram"));
    // Wait for DRAM[0] != 0, clear it, call `work` (which stores its
    // constant in DRAM[1]), again.
    let prog = |k: u32| {
        let src = format!(
            "const16 a4, 0x1000\n const16 a4, 0\npoll:\n l32i a2, a4, 0\n beqz a2, poll\n movi a2, 0\n s32i a2, a4, 0\n call0 work\n j poll\n .org 0x100\nwork:\n movi a3, {k}\n s32i a3, a4, 4\n memw\n ret\n"
        );
        assemble(&src, 0, &Options::tpb()).unwrap().bytes
    };
    let install = |c: &mut Cosim, bytes: &[u8]| {
        for (k, w) in bytes.chunks(4).enumerate() {
            let mut b = [0u8; 4];
            b[..w.len()].copy_from_slice(w);
            c.write32(iram + 4 * k as u64, u32::from_le_bytes(b)).unwrap();
        }
    };
    install(&mut c, &prog(0xa));
    let rel = tpb_cosim::firmware::Addrs::new(c.map(), "t").reg(tpb_models::regmap::Engine::Pool, "q7", "release_run_stall").unwrap();
    c.write32(rel.into(), 0xfe).unwrap();
    let mut results = Vec::new();
    for k in [0xa, 0xb, 0xc] {
        if k != 0xa {
            // Only `work`'s first word changes: the new `movi a3, k`.
            let new = prog(k);
            install(&mut c, &new[..0x104]);
        }
        c.write32(dram, 1).unwrap();
        assert!(c.run_until(5_000, |c| c.q7()[0].core.pc == 0x100 + 3), "core 0 reached work");
        assert!(c.run_until(5_000, |c| c.q7()[0].core.pc < 0x100), "core 0 returned from work");
        results.push(c.read32(dram + 4).unwrap());
    }
    assert_eq!(results, vec![0xa, 0xb, 0xc], "each pass ran the code the host had just written");
}

/// Setup mistakes are typed errors: a map of another generation than the
/// top, the two-die mesh run on one system, and a clock period with no
/// whole-picosecond rising edge.
#[test]
fn setup_mistakes_are_typed_errors() {
    use tpb_cosim::dut::Dut;
    use tpb_cosim::sched::CosimError;
    let e = Cosim::with_map(Dut::new(Arch::Cayman).unwrap(), tpb_models::regmap::builtin(Arch::Sunda).unwrap()).err().expect("refused");
    assert!(matches!(e, CosimError::MapArch { map: "sunda", top: "cayman" }), "{e}");
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let before = c.stats.cycles;
    let e = file("mesh").run_on(&mut c, 100).unwrap_err();
    assert!(matches!(e, ScenarioError::NotApplicable { scenario: "mesh", .. }), "{e}");
    assert_eq!(c.stats.cycles, before, "nothing ran");
    let d = Dut::new(Arch::Cayman).unwrap();
    assert_eq!(d.clock_period_ps(), 1000);
    let e = d.with_clock_period_ps(1001).err().expect("odd period refused");
    assert!(e.to_string().contains("1001 ps") && e.to_string().contains("even"), "{e}");
    // A valid period is what the trace is written in.
    let d = Dut::new(Arch::Cayman).unwrap().with_clock_period_ps(2000).unwrap();
    assert_eq!(d.clock_period_ps(), 2000);
}
