//! The TPB tops under Verilator (the `tpb_cosim` bridge): against the
//! golden models for a million random cycles per generation, against the
//! rust-hdl simulator every output every cycle, two models in one process,
//! and byte-identical VCD for identical stimulus.

use tpb_cosim::dut::{Dut, TraceModel};
use tpb_hdl::top::{simulator, TopSim};
use tpb_models::golden::top::{GoldenTop, MemBits, TopModel};
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::traffic::{Cycle, Traffic};

/// Reset, then `n` cycles of seeded traffic into two tops (any engines:
/// one `TopSim` interface), comparing every output.
fn lockstep(arch: Arch, a: &mut dyn TopSim, b: &mut dyn TopSim, seed: u64, n: usize) -> Result<(), String> {
    let map = builtin(arch).unwrap();
    let mut t = Traffic::new(&map, MemBits::full(&map.params), seed);
    let reset = Cycle { reset: true, req: None, pins: Default::default() };
    for i in 0..=n {
        let c = if i == 0 { reset } else { t.next_cycle() };
        a.drive(c.reset, c.req, &c.pins);
        b.drive(c.reset, c.req, &c.pins);
        let (x, y) = (a.outputs(), b.outputs());
        if i > 0 && x != y {
            return Err(format!("{arch:?} cycle {i}: req {:x?}\n  verilator: {x:x?}\n  other:     {y:x?}", c.req));
        }
        a.tick();
        b.tick();
    }
    Ok(())
}

fn against_golden(arch: Arch, seed: u64, n: usize) {
    let map = builtin(arch).unwrap();
    let mut dut = Dut::new(arch).unwrap();
    let mut gold = GoldenTop::new(&map, MemBits::full(&map.params)).unwrap();
    let start = std::time::Instant::now();
    let r = lockstep(arch, &mut dut, &mut gold, seed, n);
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
        let mut dut = Dut::new(arch).unwrap();
        let mut rhdl = simulator(&map, false).unwrap();
        lockstep(arch, &mut dut, &mut *rhdl, 0x77, 3_000).unwrap_or_else(|e| panic!("{e}"));
        println!("{arch:?}: Verilator == rust-hdl for 3000 cycles");
    }
}

/// Untraced, a rising edge is evaluated together with the next cycle's
/// inputs (`tpb_cosim::dut`, the cycle module's note). Against a top that
/// evaluates every edge alone, on every generation: the same outputs after
/// each drive, and the same outputs (the DMA's master port with them) when
/// read between a tick and the next drive, which evaluates the owed edge first.
#[test]
fn edges_merged_with_the_next_inputs_give_what_edges_alone_give() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let map = builtin(arch).unwrap();
        let (mut a, mut b) = (Dut::new(arch).unwrap(), Dut::new(arch).unwrap().with_merged_edges(false));
        let mut t = Traffic::new(&map, MemBits::full(&map.params), 0x3e);
        a.reset();
        b.reset();
        for i in 0..20_000 {
            let c = t.next_cycle();
            a.drive(c.reset, c.req, &c.pins);
            b.drive(c.reset, c.req, &c.pins);
            assert_eq!(a.outputs(), b.outputs(), "{arch:?} cycle {i}, after the drive");
            a.tick();
            b.tick();
            if i % 7 == 0 {
                assert_eq!(a.outputs(), b.outputs(), "{arch:?} cycle {i}, after the tick");
            }
        }
        assert_eq!(a.cycle(), b.cycle());
    }
}

/// Two models in one process, stepped alternately with different stimulus,
/// each still matches its own golden model.
#[test]
fn two_models_in_one_process_do_not_interfere() {
    let map = builtin(Arch::Cayman).unwrap();
    let (mut a, mut b) = (Dut::new(Arch::Cayman).unwrap(), Dut::new(Arch::Cayman).unwrap());
    let (mut ga, mut gb) = (TopModel::new(&map, MemBits::full(&map.params)).unwrap(), TopModel::new(&map, MemBits::full(&map.params)).unwrap());
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

/// Untraced cycles that drive what the cycle before drove leave the
/// wrapper's `sample` alone (the logic behind its copies would compute what
/// it holds); a trace started after them makes up the toggles left out, so
/// `sample` has the value every cycle toggling it would have given, and the
/// trace the bytes of the scheduling before.
#[test]
fn idle_untraced_cycles_skip_sampling_and_a_later_trace_sees_every_toggle() {
    let path = tpb_testbench::tools::repo_root().join("target/vcd-determinism/sample-owed.vcd");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut d = Dut::new(Arch::Sunda).unwrap();
    let sample = |d: &mut Dut| {
        let m = d.model_view();
        m.get(m.port("sample").unwrap())
    };
    // reset: two cycles with other inputs (reset high, then low), two toggles.
    d.reset();
    let idle = tpb_models::golden::top::Pins::default();
    d.tick();
    for _ in 0..5 {
        d.drive(false, None, &idle);
        d.tick();
    }
    assert_eq!(sample(&mut d), 0, "five idle untraced cycles after reset toggled sample");
    d.trace_open(&path).unwrap();
    assert_eq!(sample(&mut d), 1, "seven drives, seven toggles: the trace must start with sample = 1");
    d.drive(false, None, &idle);
    d.tick();
    d.trace_close().unwrap();
    assert_eq!(sample(&mut d), 0, "a traced cycle toggles sample even with the same inputs");
}

/// The same stimulus gives the same VCD, byte for byte.
#[test]
fn vcd_is_deterministic() {
    let dir = tpb_testbench::tools::repo_root().join("target/vcd-determinism");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str| -> Vec<u8> {
        let path = dir.join(name);
        let mut d = Dut::new(Arch::Cayman).unwrap();
        d.trace_open(&path).unwrap();
        random_cycles(&mut d, 2_000, 9);
        d.trace_close().unwrap();
        std::fs::read(&path).unwrap()
    };
    let (x, y) = (run("a.vcd"), run("b.vcd"));
    assert!(x.len() > 10_000, "a VCD of {} bytes", x.len());
    assert!(x == y, "two runs of the same stimulus wrote different VCDs");
    println!("VCD of 2000 cycles: {} bytes, identical across runs", x.len());
}

#[test]
fn a_model_without_tracing_refuses_a_trace_and_bad_ports_are_errors() {
    let mut w = tpb_cosim::verilator::Model::named("Vwide_ports").unwrap();
    let e = w.trace_open(std::path::Path::new("/tmp/x.vcd")).unwrap_err();
    assert!(e.to_string().contains("built without tracing"), "{e}");
    let mut d = Dut::new(Arch::Sunda).unwrap();
    let m = d.model();
    assert!(m.port("no_such_port").unwrap_err().to_string().contains("no port named 'no_such_port'"));
    let i = m.input("req_write").unwrap();
    assert!(m.set(i, 2).unwrap_err().to_string().contains("does not fit"));
    assert!(m.input("rsp_valid").is_err(), "outputs are not inputs");
}

/// A write the disk refuses is the trace close's error, naming the file and
/// the cause; the model goes on and writes its next trace whole.
#[test]
fn a_failed_trace_write_is_the_close_error_and_the_next_trace_is_whole() {
    let dir = tpb_testbench::tools::repo_root().join("target/vcd-full");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let full = dir.join("full.vcd");
    std::os::unix::fs::symlink("/dev/full", &full).unwrap();
    let mut d = Dut::new(Arch::Cayman).unwrap();
    d.trace_open(&full).unwrap();
    random_cycles(&mut d, 2_000, 5);
    let e = d.trace_close().unwrap_err();
    assert!(matches!(e, tpb_cosim::verilator::VlError::TraceWrite { .. }), "{e:?}");
    assert!(e.to_string().contains("full.vcd") && e.to_string().contains("No space left on device"), "{e}");
    let good = dir.join("good.vcd");
    traced_run_on(d, &good, 100);
    let w = wellen::simple::read(&good).unwrap_or_else(|e| panic!("{}: {e:?}", good.display()));
    assert!(!scopes(&w).is_empty());
}

/// Reset CAYMAN top `d`, then `n` cycles of random BAR0 and port traffic from `seed`.
fn random_cycles(d: &mut Dut, n: usize, seed: u64) {
    let map = builtin(Arch::Cayman).unwrap();
    let mut t = Traffic::new(&map, MemBits::full(&map.params), seed);
    d.reset();
    for _ in 0..n {
        let c = t.next_cycle();
        d.drive(c.reset, c.req, &c.pins);
        d.tick();
    }
}

/// A run of `n` random cycles on a CAYMAN top, traced into `path` (`.vcd` or `.fst`).
fn traced_run(path: &std::path::Path, n: usize) {
    traced_run_on(Dut::new(Arch::Cayman).unwrap(), path, n)
}

/// As [`traced_run`], on a given CAYMAN top.
fn traced_run_on(mut d: Dut, path: &std::path::Path, n: usize) {
    d.trace_open(path).unwrap();
    random_cycles(&mut d, n, 11);
    d.trace_close().unwrap();
}

/// The scopes of a waveform file, as full dotted names.
fn scopes(w: &wellen::simple::Waveform) -> Vec<String> {
    let h = w.hierarchy();
    h.iter_scopes().map(|s| s.full_name(h)).collect()
}

/// Every signal of a waveform file by full name: its (time, bits) changes.
fn changes(path: &std::path::Path) -> std::collections::BTreeMap<String, Vec<(u64, String)>> {
    let mut w = wellen::simple::read(path).unwrap_or_else(|e| panic!("wellen cannot read {}: {e:?}", path.display()));
    let vars: Vec<(String, wellen::SignalRef)> = {
        let h = w.hierarchy();
        h.iter_vars().map(|v| (v.full_name(h), v.signal_ref())).collect()
    };
    let refs: Vec<wellen::SignalRef> = vars.iter().map(|v| v.1).collect();
    w.load_signals(&refs);
    let times = w.time_table().to_vec();
    vars.iter()
        .map(|(name, r)| {
            let sig = w.get_signal(*r).unwrap();
            (name.clone(), sig.iter_changes().map(|(i, v)| (times[i as usize], v.to_bit_string().unwrap_or_default())).collect())
        })
        .collect()
}

/// A top built with Verilator's FST writer (`Dut::writing_fst`) writes, for
/// the same stimulus, an FST with every signal, time and value of the VCD
/// the compiled-in model writes, across the blocks its writer thread
/// encodes during the run (`vlgen::FST_FLUSH_DUMPS`); it refuses a `.vcd` path.
#[test]
fn the_fst_writing_model_traces_what_the_vcd_shows() {
    let dir = tpb_testbench::tools::repo_root().join("target/wave-readers");
    std::fs::create_dir_all(&dir).unwrap();
    let (vcd, fst) = (dir.join("native.vcd"), dir.join("native.fst"));
    // Three blocks handed to the writer thread before the close.
    let cycles = 3 * tpb_cosim::vlgen::FST_FLUSH_DUMPS as usize / 2 + 400;
    traced_run(&vcd, cycles);
    let d = Dut::writing_fst(Arch::Cayman, 2, &|s| println!("{s}")).unwrap_or_else(|e| panic!("{e}"));
    traced_run_on(d, &fst, cycles);
    assert!(!fst.with_extension("fst.vcd").exists(), "the FST was written directly, not converted");
    let (a, b) = (changes(&vcd), changes(&fst));
    // Two levels (vlgen::TRACE_DEPTH): 1,437 signals on CAYMAN.
    assert!(a.len() > 1000, "{} signals in the VCD", a.len());
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "the same signals");
    let moved = a.values().filter(|c| c.len() > 2).count();
    assert!(moved > 500, "only {moved} signals change: the run does too little to compare");
    for (name, ca) in &a {
        assert_eq!(ca, &b[name], "{name}: the FST's changes differ from the VCD's");
    }
    let mut d = Dut::writing_fst(Arch::Cayman, 2, &|_| {}).unwrap();
    let e = d.trace_open(&dir.join("native2.vcd")).unwrap_err();
    assert!(e.to_string().contains("must end in .fst"), "{e}");
}

/// Our VCD opens in GTKWave's converter (`vcd2fst`) and in `wellen`; a
/// trace asked for as `.fst` is an FST `wellen` reads with the same
/// hierarchy (and its temporary VCD is gone). The compiled-in model traces
/// two levels (`vlgen::TRACE_DEPTH`): the probe wrapper, one scope per core
/// and one for the host, and the TPB top's own signals, but no scope
/// inside a block.
#[test]
fn vcd_and_fst_open_in_vcd2fst_and_wellen_with_two_levels() {
    let dir = tpb_testbench::tools::repo_root().join("target/wave-readers");
    std::fs::create_dir_all(&dir).unwrap();
    let (vcd, fst, conv) = (dir.join("run.vcd"), dir.join("run.fst"), dir.join("converted.fst"));
    traced_run(&vcd, 500);
    traced_run(&fst, 500);
    assert!(!fst.with_extension("fst.vcd").exists(), "the VCD behind the FST was removed");
    let _ = std::fs::remove_file(&conv);
    let o = tpb_testbench::tools::run("vcd2fst", &["-v", vcd.to_str().unwrap(), "-f", conv.to_str().unwrap()]).unwrap_or_else(|e| panic!("{e}"));
    assert!(o.status.success() && conv.exists(), "vcd2fst failed: {}", String::from_utf8_lossy(&o.stderr));
    let mut seen = Vec::new();
    for f in [&vcd, &fst, &conv] {
        let w = wellen::simple::read(f).unwrap_or_else(|e| panic!("wellen cannot read {}: {e:?}", f.display()));
        let s = scopes(&w);
        for want in ["TOP", "TOP.cayman_sim_top.tpb", "TOP.cayman_sim_top.q7_0", "TOP.cayman_sim_top.seq", "TOP.cayman_sim_top.top_sp", "TOP.cayman_sim_top.hal"] {
            assert!(s.iter().any(|x| x == want), "{}: no scope {want} in {:?}", f.display(), &s[..s.len().min(40)]);
        }
        assert!(!s.iter().any(|x| x.starts_with("TOP.cayman_sim_top.tpb.")), "{}: a block's inside is traced: {s:?}", f.display());
        // The probe scopes hold their signals (not optimized away), and
        // the TPB top its blocks' ports.
        for (scope, var) in [("top_sp", "pc"), ("q7_7", "insn"), ("seq", "state"), ("hal", "txn")] {
            assert!(w.hierarchy().lookup_var(&["TOP", "cayman_sim_top", scope], var).is_some(), "{}: no {scope}.{var}", f.display());
        }
        let tpb = w.hierarchy().iter_vars().filter(|v| v.full_name(w.hierarchy()).starts_with("TOP.cayman_sim_top.tpb.")).count();
        assert!(tpb > 500, "{}: {tpb} signals in the TPB top", f.display());
        // Every cycle is there: two time steps per clock cycle.
        let times = w.time_table();
        assert!(times.len() >= 1000, "{}: {} time steps", f.display(), times.len());
        seen.push((s.len(), times.len()));
    }
    assert_eq!(seen[0], seen[1], "the VCD and the FST trace the same scopes and times");
    assert_eq!(seen[0], seen[2], "vcd2fst keeps every scope and time");
    println!("VCD, FST and vcd2fst's FST: {} scopes, {} time steps each", seen[0].0, seen[0].1);
}

/// `--trace-internals`' model traces every level: one scope per block under
/// the top, down to a core's IRAM; and every signal of the two-level trace
/// with the same changes at the same times.
#[test]
fn the_internals_model_traces_every_block_and_the_same_top() {
    let dir = tpb_testbench::tools::repo_root().join("target/wave-readers");
    std::fs::create_dir_all(&dir).unwrap();
    let (two, all) = (dir.join("two-levels.vcd"), dir.join("internals.vcd"));
    traced_run(&two, 400);
    let d = Dut::built(Arch::Cayman, TraceModel { fst: false, internals: true }, 2, &|s| println!("{s}")).unwrap_or_else(|e| panic!("{e}"));
    traced_run_on(d, &all, 400);
    let w = wellen::simple::read(&all).unwrap_or_else(|e| panic!("wellen cannot read {}: {e:?}", all.display()));
    let s = scopes(&w);
    for want in [
        "TOP.cayman_sim_top.tpb.cluster.core$7.iram",
        "TOP.cayman_sim_top.tpb.dma",
        "TOP.cayman_sim_top.tpb.hwd",
        "TOP.cayman_sim_top.tpb.sem$5",
        "TOP.cayman_sim_top.tpb.nx$0",
        "TOP.cayman_sim_top.tpb.q7regs",
    ] {
        assert!(s.iter().any(|x| x == want), "no scope {want} in {:?}", &s[..s.len().min(40)]);
    }
    let (a, b) = (changes(&two), changes(&all));
    assert!(b.len() > 3 * a.len(), "{} signals of every level against {} of two", b.len(), a.len());
    let moved = a.values().filter(|c| c.len() > 2).count();
    assert!(moved > 300, "only {moved} signals change: the run does too little to compare");
    for (name, ca) in &a {
        assert_eq!(Some(ca), b.get(name), "{name}: the two-level trace differs from the trace of every level");
    }
}

/// The value of a 1..=64-bit signal at each time step of a waveform.
fn values(w: &mut wellen::simple::Waveform, scope: &[&str], name: &str) -> Vec<u64> {
    let h = w.hierarchy();
    let var = h.lookup_var(scope, name).unwrap_or_else(|| panic!("no signal {scope:?}.{name}"));
    let sig = h[var].signal_ref();
    w.load_signals(&[sig]);
    let s = w.get_signal(sig).unwrap();
    (0..w.time_table().len())
        .map(|t| {
            let off = s.get_offset(t as u32).map(|o| s.get_value_at(&o, 0));
            off.and_then(|v| v.to_bit_string()).map(|b| u64::from_str_radix(&b, 2).unwrap_or(u64::MAX)).unwrap_or(u64::MAX)
        })
        .collect()
}

/// A trace window opens in the cycle a doorbell write is driven and closes
/// N cycles later; another ends on a second trigger.
#[test]
fn trace_window_opens_on_a_doorbell_write() {
    use tpb_cosim::dut::{Trigger, Window, WindowEnd};
    use tpb_models::csr::Req;
    let map = builtin(Arch::Cayman).unwrap();
    let top_sp = map.params.local_reg_base(tpb_models::regmap::Engine::TopSp).unwrap() as u32;
    let sems = &map.block("evt_sem").unwrap().arrays[0];
    let inc = top_sp + sems.addr(sems.window("inc").unwrap(), 5);
    let read = top_sp + sems.addr(sems.window("read").unwrap(), 5);
    let dir = tpb_testbench::tools::repo_root().join("target/trace-window");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("after.vcd");
    let mut d = Dut::new(Arch::Cayman).unwrap();
    d.reset();
    // The semaphores clear themselves after reset; increments wait for that.
    for _ in 0..tpb_models::golden::evt_sem::CLEAR_CYCLES + 2 {
        d.drive(false, None, &Default::default());
        d.tick();
    }
    d.trace_window(&path, Trigger::Write(inc), WindowEnd::After(12)).unwrap();
    assert_eq!(*d.window(), Window::Armed);
    for _ in 0..5 {
        d.access(Req { write: false, addr: inc, wdata: 0 }); // a read of the doorbell does not open it
    }
    assert_eq!(*d.window(), Window::Armed);
    let from = d.cycle();
    d.access(Req { write: true, addr: inc, wdata: 1 });
    assert_eq!(*d.window(), Window::Open { from });
    for _ in 0..20 {
        d.access(Req { write: false, addr: read, wdata: 0 });
    }
    assert_eq!(*d.window(), Window::Done { from, to: from + 12 });
    let mut w = wellen::simple::read(&path).unwrap();
    let times = w.time_table().to_vec();
    // Picoseconds, with the generation's clock period (arch.toml [sim]).
    let p = d.clock_period_ps();
    assert_eq!(w.hierarchy().timescale().map(|t| (t.factor, t.unit)), Some((1, wellen::TimescaleUnit::PicoSeconds)));
    assert_eq!((times[0], *times.last().unwrap()), (from * p, (from + 12) * p), "the window is cycles {from}..{}", from + 12);
    let req_valid = values(&mut w, &["TOP"], "req_valid");
    let req_write = values(&mut w, &["TOP"], "req_write");
    assert_eq!((req_valid[0], req_write[0]), (1, 1), "the first step shows the doorbell write itself");

    // Ending on a trigger: from the doorbell write to the next read of the semaphore.
    let path2 = dir.join("on.vcd");
    d.trace_window(&path2, Trigger::Write(inc), WindowEnd::On(Trigger::Access(read))).unwrap();
    let from = d.cycle();
    d.access(Req { write: true, addr: inc, wdata: 2 });
    d.access(Req { write: true, addr: inc, wdata: 3 });
    let rd = d.cycle();
    let r = d.access(Req { write: false, addr: read, wdata: 0 });
    assert_eq!(r.rdata, 6, "1 + 2 + 3");
    assert_eq!(*d.window(), Window::Done { from, to: rd + 1 }, "closed after the cycle of the read");
}

#[test]
fn trace_window_mistakes_are_errors_at_arm_time() {
    use tpb_cosim::dut::{Trigger, WindowEnd};
    let mut d = Dut::new(Arch::Sunda).unwrap();
    let e = d.trace_window(std::path::Path::new("/tmp/x.txt"), Trigger::Cycle(3), WindowEnd::Close).unwrap_err();
    assert!(e.to_string().contains("cannot tell the trace format of '/tmp/x.txt': the extension must be .vcd or .fst"), "{e}");
    let e = d.trace_window(std::path::Path::new("/no/such/dir/x.fst"), Trigger::Cycle(3), WindowEnd::Close).unwrap_err();
    assert!(e.to_string().contains("cannot open trace file /no/such/dir/x.fst"), "{e}");
    let e = d.trace_open(std::path::Path::new("/tmp/x")).unwrap_err();
    assert!(e.to_string().contains("extension must be .vcd or .fst"), "{e}");
}

/// The previous schedule (a third evaluation after each rising edge, kept
/// for `tpb bench --before`) gives the same outputs as the two-evaluation one.
#[test]
fn the_three_evaluation_schedule_gives_the_same_results() {
    let map = builtin(Arch::Cayman).unwrap();
    let mut dut = Dut::new(Arch::Cayman).unwrap().with_negedge_eval(true);
    let mut gold = GoldenTop::new(&map, MemBits::full(&map.params)).unwrap();
    lockstep(Arch::Cayman, &mut dut, &mut gold, 0x3e, 20_000).unwrap_or_else(|e| panic!("{e}"));
}

/// Two builders of one model at once (two `tpb cover` on a fresh clone):
/// they take turns on the model's folder, and only the first builds.
#[test]
fn two_builders_of_one_model_take_turns() {
    use tpb_cosim::vlbuild::{build, Spec};
    let dir = tpb_testbench::tools::repo_root().join("target/vlbuild-test/turns");
    let _ = std::fs::remove_dir_all(&dir);
    let verilog = "module turns(input wire clock, output reg [3:0] n);\n    initial n = 4'h0;\n    always @(posedge clock) n <= n + 4'h1;\nendmodule\n";
    let spec = Spec::new("Vturns", verilog.into(), "turns", None, false);
    let builds = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let say = |m: &str| {
                    if m.starts_with("verilating") {
                        builds.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                };
                let m = build(&spec, &dir, 1, &say).unwrap_or_else(|e| panic!("{e}"));
                assert!(m.port("n").is_ok());
            });
        }
    });
    assert_eq!(builds.into_inner(), 1, "the second builder reused the first's model");
}

/// A model built and loaded at run time (`tpb_cosim::vlbuild`, as `tpb bench
/// --before` builds the previous emission): it runs, and mistakes are errors.
#[test]
fn a_model_built_at_run_time_runs_and_bad_verilog_is_an_error() {
    use tpb_cosim::vlbuild::{build, BuildError, Spec};
    let dir = tpb_testbench::tools::repo_root().join("target/vlbuild-test");
    let verilog = "module counter(input wire clock, input wire en, output reg [7:0] count);\n    initial count = 8'h0;\n    always @(posedge clock) if (en) count <= count + 8'h1;\nendmodule\n";
    let mut m = build(&Spec::new("Vcounter", verilog.into(), "counter", None, false), &dir.join("counter"), 2, &|_| {}).unwrap();
    let (clock, en, count) = (m.input("clock").unwrap(), m.input("en").unwrap(), m.port("count").unwrap());
    m.set(en, 1).unwrap();
    for _ in 0..5 {
        m.set(clock, 0).unwrap();
        m.eval();
        m.set(clock, 1).unwrap();
        m.eval();
    }
    assert_eq!(m.get(count), 5);
    // Not a Dut: the ports of a TPB top are missing, and say which.
    let e = Dut::with_model(Arch::Cayman, m).err().unwrap().to_string();
    assert!(e.contains("no port named"), "{e}");
    let bad = Spec::new("Vbad", "module bad(input wire a); assign b = ; endmodule\n".into(), "bad", None, false);
    match build(&bad, &dir.join("bad"), 2, &|_| {}) {
        Err(BuildError::Tool { tool: "verilator", stderr, .. }) => assert!(stderr.contains("syntax error"), "{stderr}"),
        other => panic!("expected a verilator error, got {:?}", other.map(|m| m.name())),
    }
}

/// Models built at run time with the same flags share the Verilator
/// runtime's objects and its precompiled headers: the second model compiles
/// only its own C++, and g++ does use the precompiled header (a `.gch` that
/// did not match the flags would be passed over in silence, and each file
/// would parse the runtime's headers again).
#[test]
fn models_built_with_the_same_flags_share_the_runtime_and_its_precompiled_headers() {
    use tpb_cosim::vlbuild::{build, Spec};
    let dir = tpb_testbench::tools::repo_root().join("target/vlbuild-test/shared");
    let _ = std::fs::remove_dir_all(&dir);
    let model = |name: &str| {
        let verilog = format!("module {name}(input wire clock, output reg [3:0] n);\n    initial n = 4'h0;\n    always @(posedge clock) n <= n + 4'h1;\nendmodule\n");
        build(&Spec::new(&format!("V{name}"), verilog, name, None, false), &dir.join(name), 1, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        std::fs::read_to_string(dir.join(name).join("gen/compile.sh")).unwrap()
    };
    let first = model("share_a");
    let include = |script: &str| -> Vec<String> { script.lines().filter_map(|l| l.split("'-include' '").nth(1)).map(|r| r.split('\'').next().unwrap().to_string()).collect() };
    let pchs = include(&first);
    assert!(!pchs.is_empty() && pchs.iter().all(|p| p.contains("vlbuild-shared")), "{first}");
    let shared = std::path::Path::new(&pchs[0]).parent().unwrap().to_path_buf();
    let built = |f: &str| std::fs::metadata(shared.join(f)).and_then(|m| m.modified()).unwrap_or_else(|e| panic!("{f}: {e}"));
    let before = (built("verilated.o"), built("pch-O2.h.gch"));
    let second = model("share_b");
    assert_eq!(include(&second), pchs, "the same flags, the same precompiled headers");
    assert_eq!((built("verilated.o"), built("pch-O2.h.gch")), before, "the second model reused the runtime and the headers");
    assert!(!second.contains("verilated.cpp"), "the runtime is not compiled again: {second}");
    // g++ -H marks a precompiled header it uses with '!' (and one it cannot with 'x').
    for line in second.lines().filter(|l| l.starts_with("g++ ")) {
        let o = std::process::Command::new("bash").arg("-c").arg(format!("{line} -H")).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && err.lines().any(|l| l.starts_with("! ") && l.ends_with(".gch")), "{line}:\n{err}");
    }
}
