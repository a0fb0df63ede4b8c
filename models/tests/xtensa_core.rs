//! The behavioural core: boot trampoline per generation, run-stall,
//! exceptions, windowed calls with spill/fill, zero-overhead loops.

use tpb_models::regmap::{builtin, Arch};
use tpb_models::xtensa::asm::assemble;
use tpb_models::xtensa::config::sr;
use tpb_models::xtensa::core::{cause, ps};
use tpb_models::xtensa::*;

/// The NX boot trampoline of DIGEST §1 with the generation's enter_run,
/// and an enter_run loop.
fn trampoline(enter_run: u32) -> String {
    format!(
        "
        .org 0x0
        j boot
        .org 0x6
        j stop
        .org {enter_run:#x}
    enter_run:
        movi a3, 1
        j enter_run
        .org 0x1dc
    boot:
        const16 a0, 0
        const16 a0, {enter_run:#x}
        jx a0
        .org 0x1e8
    stop:
        halt 0
    "
    )
}

fn boot(arch: Arch) -> (Core, MemorySpace) {
    let params = builtin(arch).unwrap().params;
    let enter_run = params.boot.nx_enter_run.unwrap();
    let cfg = CoreConfig::nx(&params);
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    let p = assemble(&trampoline(enter_run), 0, &cfg.options).unwrap();
    mem.write_bytes(0, &p.bytes).unwrap();
    (Core::new(cfg), mem)
}

#[test]
fn nx_boots_through_the_trampoline_to_enter_run() {
    for (arch, want) in [(Arch::Sunda, 0x94), (Arch::Cayman, 0x90)] {
        let (mut core, mut mem) = boot(arch);
        let mut pcs = vec![core.pc];
        for _ in 0..4 {
            match core.step(&mut mem) {
                Step::Retired { .. } => pcs.push(core.pc),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(pcs, vec![0x0, 0x1dc, 0x1df, 0x1e2, want], "{arch}");
        assert_eq!(core.a(0), want);
    }
}

#[test]
fn the_secondary_vector_reaches_halt() {
    let (mut core, mut mem) = boot(Arch::Sunda);
    core.reset_to(0x6);
    assert!(matches!(core.step(&mut mem), Step::Retired { .. }));
    assert_eq!(core.pc, 0x1e8);
    assert_eq!(core.step(&mut mem), Step::Halted);
    assert!(core.halted() && !core.running());
    assert_eq!(core.step(&mut mem), Step::Halted, "stays halted");
    core.reset();
    assert!(!core.halted() && core.pc == 0);
}

#[test]
fn run_stall_freezes_the_core() {
    let (mut core, mut mem) = boot(Arch::Cayman);
    core.set_run_stall(true);
    for _ in 0..10 {
        assert_eq!(core.step(&mut mem), Step::Stalled);
    }
    assert_eq!((core.pc, core.retired()), (0, 0));
    assert!(!core.running());
    core.set_run_stall(false);
    assert!(matches!(core.step(&mut mem), Step::Retired { .. }));
    assert_eq!(core.pc, 0x1dc);
}

/// Firmware prologue: PS = 0 (leave the reset EXCM state so exceptions
/// take the kernel vector and loops loop), then the test body at 0x10.
const PROLOGUE: &str = ".org 0\nmovi a15, 0\nwsr.ps a15\nrsync\nj body\n.org 0x10\nbody:\n";

fn run_src(src: &str, max: u64) -> (Core, MemorySpace, Step) {
    let cfg = CoreConfig::nx(&builtin(Arch::Cayman).unwrap().params);
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    let src = format!("{PROLOGUE}{}", src.replacen(".org 0\n", "", 1).trim_start().trim_start_matches(".org 0").trim_start());
    let p = assemble(&src, 0, &cfg.options).unwrap_or_else(|e| panic!("{e}\n{src}"));
    mem.write_bytes(0, &p.bytes).unwrap();
    let mut core = Core::new(cfg);
    let last = core.run(&mut mem, max);
    (core, mem, last)
}

#[test]
fn unmapped_load_raises_load_store_error_with_excvaddr() {
    let src = "
        movi a2, 0x7f0
        slli a2, a2, 20      # 0x7f000000: nothing there
        l32i a3, a2, 8
        .org 0x400 + 0x300   # kernel vector
        halt 0
    ";
    let (core, _, last) = run_src(src, 100);
    assert_eq!(last, Step::Halted);
    assert_eq!(core.sreg(sr::EXCCAUSE), cause::LOAD_STORE_ERROR);
    assert_eq!(core.sreg(sr::EXCVADDR), 0x7f00_0008);
    assert_eq!(core.sreg(sr::EPC1), 0x16, "EPC1 is the faulting load");
    assert_eq!(core.a(3), 0, "the load wrote nothing");
}

#[test]
fn illegal_and_unconfigured_encodings_raise_illegal_instruction() {
    for bad in [".byte 0, 0, 0", ".byte 0x0e, 0, 0", ".byte 0x00, 0x00, 0xf3"] {
        let src = format!("{bad}\n.org 0x700\nhalt 0\n");
        let (core, _, last) = run_src(&src, 10);
        assert_eq!(last, Step::Halted, "{bad}");
        assert_eq!(core.sreg(sr::EXCCAUSE), cause::ILLEGAL_INSTRUCTION, "{bad}");
        assert_eq!(core.sreg(sr::EPC1), 0x10);
    }
}

#[test]
fn misaligned_access_and_divide_by_zero() {
    let (core, _, _) = run_src(".org 0\nmovi a2, 0x100\nslli a2,a2,20\nl32i a3, a2, 0\naddi a2, a2, 2\nl32i a3, a2, 0\n.org 0x700\nhalt 0", 20);
    assert_eq!((core.sreg(sr::EXCCAUSE), core.sreg(sr::EXCVADDR)), (cause::LOAD_STORE_ALIGNMENT, 0x1000_0002));
    let (core, _, _) = run_src("movi a2, 7\nmovi a3, 0\nquou a4, a2, a3\n.org 0x700\nhalt 0", 20);
    assert_eq!(core.sreg(sr::EXCCAUSE), cause::INTEGER_DIVIDE_BY_ZERO);
}

#[test]
fn zero_overhead_loop_runs_lcount_plus_one_times() {
    let src = "
        movi a2, 5
        movi a3, 0
        loop a2, done
        addi a3, a3, 3
        addi a3, a3, 1
    done:
        halt 0
    ";
    let (core, _, last) = run_src(src, 100);
    assert_eq!(last, Step::Halted);
    assert_eq!(core.a(3), 20);
    let (core, _, _) = run_src("movi a2, 0\nmovi a3, 9\nloopnez a2, e\naddi a3, a3, 1\ne: halt 0", 100);
    assert_eq!(core.a(3), 9, "loopnez with 0 skips the body");
}

/// The window vectors (shared firmware) at VECBASE 0x400, and a stop on
/// any other exception.
fn window_vectors() -> String {
    format!("{}    .org 0x400 + 0x300\n    halt 0\n    .org 0x400 + 0x3c0\n    halt 0\n", tpb_models::xtensa::firmware::window_vectors(0x400))
}

#[test]
fn deep_windowed_recursion_spills_and_fills_exactly() {
    // sum(n) = n + sum(n - 1) with call8, 20 levels deep: 16 physical windows
    // are not enough, so overflow and underflow vectors must run. The
    // outermost frame calls with call4, so the first spill is an overflow4 and
    // every overflow8 finds its caller's stack pointer in the base save area.
    let src = format!(
        "
        movi a1, 0x100
        slli a1, a1, 20          # DRAM 0x10000000
        addmi a1, a1, 0x7f00     # stack top
        movi a2, 0x4
        slli a2, a2, 16          # PS.WOE
        wsr.ps a2
        rsync
        movi a6, 20
        call4 sum                # the outermost frame calls with call4
        mov.n a5, a6
        halt 0
        .align 4
    sum:
        entry a1, 32
        beqz a2, base
        addi a10, a2, -1
        call8 sum
        add a2, a2, a10
        retw
    base:
        movi a2, 0
        retw
        {}
    ",
        window_vectors()
    );
    let (core, _, last) = run_src(&src, 10_000);
    assert_eq!(last, Step::Halted, "pc {:#x}", core.pc);
    assert_eq!(core.sreg(sr::EXCCAUSE), 0, "no other exception");
    assert_eq!(core.a(5), 210);
    assert_eq!(core.sreg(sr::PS) & ps::EXCM, 0);
}

#[test]
fn q7_cores_reset_through_their_jump() {
    for arch in [Arch::Sunda, Arch::Cayman] {
        let params = builtin(arch).unwrap().params;
        let target = params.boot.q7_reset_jump.unwrap();
        let cfg = CoreConfig::q7(&params, 3);
        let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
        let p = assemble(&format!(".org 0\nj entry\n.org {target:#x}\nentry: halt 0\n"), 0, &cfg.options).unwrap();
        mem.write_bytes(0, &p.bytes).unwrap();
        let mut core = Core::new(cfg);
        assert!(matches!(core.step(&mut mem), Step::Retired { .. }));
        assert_eq!(core.pc, target, "{arch}");
        assert_eq!(core.sreg(sr::PRID), 3, "PRID is the core number");
        assert_eq!(core.step(&mut mem), Step::Halted);
    }
    assert_eq!(builtin(Arch::Sunda).unwrap().params.boot.q7_reset_jump, Some(0x220));
    assert_eq!(builtin(Arch::Cayman).unwrap().params.boot.q7_reset_jump, Some(0x200));
}

#[test]
fn level1_interrupt_wakes_waiti_and_returns_with_rfe() {
    let src = "
        movi a2, 8
        wsr.intenable a2         # line 3 enabled
        movi a3, 0
        waiti 0
        addi a3, a3, 1           # runs after the interrupt returns
        halt 0
        .org 0x400 + 0x300       # kernel vector: count, then return
        addi a4, a4, 1
        rfe
    ";
    let cfg = CoreConfig::nx(&builtin(Arch::Cayman).unwrap().params);
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    let p = assemble(&format!("{PROLOGUE}{src}"), 0, &cfg.options).unwrap();
    mem.write_bytes(0, &p.bytes).unwrap();
    let mut core = Core::new(cfg);
    for _ in 0..20 {
        if core.step(&mut mem) == Step::Waiting {
            break;
        }
    }
    assert!(!core.running(), "WAITI: waiting");
    assert_eq!(core.step(&mut mem), Step::Waiting, "nothing pending");
    core.set_irq(5, true);
    assert_eq!(core.step(&mut mem), Step::Waiting, "line 5 is not enabled");
    core.set_irq(3, true);
    let waiti_next = core.pc;
    match core.step(&mut mem) {
        Step::Exception { cause: c, vector, .. } => assert_eq!((c, vector), (cause::LEVEL1_INTERRUPT, 0x700)),
        other => panic!("{other:?}"),
    }
    assert_eq!(core.sreg(sr::EPC1), waiti_next);
    assert_eq!(core.sreg(sr::INTERRUPT) & 0x28, 0x28);
    core.set_irq(3, false); // the device is acknowledged
    assert_eq!(core.run(&mut mem, 20), Step::Halted);
    assert_eq!((core.a(3), core.a(4)), (1, 1));
}

#[test]
fn memory_maps_are_data_and_refuse_overlaps() {
    let params = builtin(Arch::Sunda).unwrap().params;
    let cfg = CoreConfig::nx(&params);
    let names: Vec<(&str, u32)> = cfg.memory.iter().map(|r| (r.name.as_str(), r.base)).collect();
    assert_eq!(names, vec![("iram", 0), ("dram", 0x1000_0000), ("pool_control", 0x0010_0000)]);
    let mut bad = cfg.memory.clone();
    bad.push(RegionSpec { name: "extra".into(), base: 0x8000, size: 0x10000, kind: tpb_models::xtensa::bus::RegionKind::Ram });
    let e = MemorySpace::from_map(&bad).unwrap_err();
    assert_eq!(e.to_string(), "region 'extra' (0x8000..0x18000) overlaps 'iram' (0x0..0x10000)");
    bad.pop();
    bad.push(RegionSpec { name: "odd".into(), base: 0x2000_0002, size: 8, kind: tpb_models::xtensa::bus::RegionKind::Ram });
    assert!(MemorySpace::from_map(&bad).unwrap_err().to_string().contains("aligned"));
    // No instruction fetch from a control window.
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    let mut core = Core::new(cfg);
    core.reset_to(0x0010_0000);
    match core.step(&mut mem) {
        Step::Exception { cause: c, .. } => assert_eq!(c, cause::INSTRUCTION_FETCH_ERROR),
        other => panic!("{other:?}"),
    }
}

#[test]
fn multiply_high_rotw_movsp_and_const16() {
    let src = "
        movi a2, -3
        movi a3, 0x7ff
        slli a3, a3, 20          # 0x7ff00000
        muluh a4, a2, a3         # (2^32-3) * 0x7ff00000 >> 32
        mulsh a5, a2, a3         # -3 * 0x7ff00000 >> 32 (signed)
        const16 a6, 0x1234
        const16 a6, 0x5678
        rsr.windowbase a7
        halt 0
    ";
    let (core, _, last) = run_src(src, 100);
    assert_eq!(last, Step::Halted);
    assert_eq!(core.a(4), ((0xffff_fffdu64 * 0x7ff0_0000u64) >> 32) as u32);
    assert_eq!(core.a(5), ((-3i64 * 0x7ff0_0000i64) >> 32) as u32);
    assert_eq!(core.a(6), 0x1234_5678);
    assert_eq!(core.a(7), 0);

    // ROTW moves the window; MOVSP raises ALLOCA when no caller frame is live.
    let src = "
        movi a2, 0x4
        slli a2, a2, 16
        wsr.ps a2                # WOE
        rsync
        movi a5, 77
        rotw 1                   # a5 of the old window is a1 now
        mov.n a9, a1
        rotw -1
        movsp a3, a5             # WINDOWSTART has only this frame: alloca
        halt 0
        .org 0x400 + 0x300
        halt 0
    ";
    let (core, _, last) = run_src(src, 100);
    assert_eq!(last, Step::Halted);
    assert_eq!(core.sreg(sr::EXCCAUSE), cause::ALLOCA);
    assert_eq!(core.sreg(sr::EPC1), 0x10 + 4 * 3 + 3 + 3 + 2 + 3, "EPC1 is the MOVSP");
    assert_eq!(core.physical()[4 + 9], 77, "a9 of window 1 got window-0's a5 through the rotation");
}

/// An NX core over random code (0x800 bytes at 0) and data (0x400 bytes at
/// 0x1000_0000), with a random PS and WINDOWSTART.
fn random_image(rng: &mut rand::rngs::SmallRng, params: &tpb_regmap::params::ArchParams) -> (Core, MemorySpace) {
    use rand::Rng;
    let cfg = CoreConfig::nx(params);
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    let code: Vec<u8> = (0..0x800).map(|_| rng.gen()).collect();
    mem.write_bytes(0, &code).unwrap();
    let data: Vec<u8> = (0..0x400).map(|_| rng.gen()).collect();
    mem.write_bytes(0x1000_0000, &data).unwrap();
    let mut core = Core::new(cfg);
    core.set_sreg(sr::PS, rng.gen::<u32>() & 0x7_0f3f);
    core.set_sreg(sr::WINDOWSTART, rng.gen::<u32>() & 0xffff);
    (core, mem)
}

/// Nothing panics: random bytes as code and data, random PS, run with the
/// window option on, must only ever retire, raise exceptions or stop.
#[test]
fn random_images_never_panic() {
    use rand::{Rng, SeedableRng};
    let params = builtin(Arch::Cayman).unwrap().params;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(17);
    let mut steps = 0u64;
    for _ in 0..300 {
        let (mut core, mut mem) = random_image(&mut rng, &params);
        for r in 0..16 {
            core.set_a(r, if rng.gen_bool(0.5) { 0x1000_0000 + rng.gen_range(0..0x400) } else { rng.gen() });
        }
        for _ in 0..500 {
            steps += 1;
            if matches!(core.step(&mut mem), Step::Halted | Step::Break { .. } | Step::Exit(_) | Step::Waiting) {
                break;
            }
        }
    }
    assert!(steps > 10_000);
}

/// `Core::run` (pre-decoded pages and blocks) and `Core::step` (one
/// instruction, fetched through the bus) leave the same state and memory on
/// random code and data, random PS and registers, stopping at the same step.
#[test]
fn run_and_step_agree_on_random_images() {
    use rand::{Rng, SeedableRng};
    let params = builtin(Arch::Cayman).unwrap().params;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(23);
    let mut steps = 0u64;
    for _ in 0..300 {
        let (mut core, mut mem) = random_image(&mut rng, &params);
        for r in 0..16 {
            // Code addresses too, so that stores land in the code being run.
            let v = match rng.gen_range(0..3) {
                0 => 0x1000_0000 + rng.gen_range(0..0x400),
                1 => rng.gen_range(0..0x800),
                _ => rng.gen(),
            };
            core.set_a(r, v);
        }
        let (mut stepped, mut smem) = (core.clone(), mem.clone());
        let mut last = Step::Stalled;
        for _ in 0..500 {
            last = stepped.step(&mut smem);
            if last.stops_run() {
                break;
            }
        }
        let ran = core.run(&mut mem, 500);
        assert_eq!(ran, last);
        assert_eq!(core.state(), stepped.state());
        assert_eq!(mem.read_bytes(0, 0x800).unwrap(), smem.read_bytes(0, 0x800).unwrap(), "code region");
        assert_eq!(mem.read_bytes(0x1000_0000, 0x400).unwrap(), smem.read_bytes(0x1000_0000, 0x400).unwrap(), "data");
        steps += stepped.retired();
    }
    assert!(steps > 10_000);
}

/// The bytes of the program `src` (assembled at 0 for an NX core).
fn nx_bytes(src: &str) -> Vec<u8> {
    let cfg = CoreConfig::nx(&builtin(Arch::Cayman).unwrap().params);
    assemble(src, 0, &cfg.options).unwrap_or_else(|e| panic!("{e}\n{src}")).bytes
}

/// Both ways (run, and step by step) on `bytes` from reset: the core, and
/// the entries its page cache dropped.
fn run_both(bytes: &[u8], max: u64) -> Core {
    let cfg = CoreConfig::nx(&builtin(Arch::Cayman).unwrap().params);
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    mem.write_bytes(0, bytes).unwrap();
    let (mut a, mut b) = (Core::new(cfg.clone()), Core::new(cfg));
    let mut m2 = mem.clone();
    assert_eq!(a.run(&mut mem, max), Step::Halted, "run: pc {:#x}", a.pc);
    for _ in 0..max {
        if b.step(&mut m2).stops_run() {
            break;
        }
    }
    assert_eq!(a.state(), b.state(), "run and step agree");
    a
}

/// Self-modifying code: an instruction that already ran is rewritten by a
/// store (in the page being run, and in another page) and runs anew.
#[test]
fn self_modifying_code_is_seen() {
    for far in [false, true] {
        // `target` adds a5 to a6; the first pass runs it as `movi a5, 1`,
        // then the program stores the word of `movi a5, 2` over it.
        // The loop runs in the page of `target` (0x300) or in another (0x900).
        let prog = |k: u32, word: u32| {
            let body = "
            again:
                call0 target
                add a6, a6, a5
                l32r a3, new
                l32r a4, tgt
                s32i a3, a4, 0        # rewrite target
                addi a7, a7, -1
                bnez a7, again
                halt 0
            ";
            let (near, far) = if far { ("", format!(".org 0x900\n{body}")) } else { (body, String::new()) };
            format!(
                "
                movi a6, 0
                movi a7, 2            # passes
                j again
                .org 0x300
            target:
                movi a5, {k}
                ret
                .align 4
            new: .word {word:#x}
            tgt: .word target
                {near}
                .org 0x400 + 0x300    # any exception stops the run
                halt 0
                {far}
            "
            )
        };
        // The word of `movi a5, 2; ret...` at `target` (same layout: only the immediate changes).
        let b = nx_bytes(&prog(2, 0));
        let word = u32::from_le_bytes([b[0x300], b[0x301], b[0x302], b[0x303]]);
        let core = run_both(&nx_bytes(&prog(1, word)), 200);
        assert_eq!(core.a(6), 1 + 2, "far = {far}: the first pass ran movi a5, 1, the second movi a5, 2");
        assert!(core.invalidated_entries() >= 1, "far = {far}: the rewritten entry was dropped");
    }
}

/// New code written over old (a ucode re-install) between runs is run, not
/// the pre-decoded old code; only the entries whose bytes changed are dropped.
#[test]
fn reinstalled_code_is_seen() {
    let cfg = CoreConfig::nx(&builtin(Arch::Cayman).unwrap().params);
    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
    let mut core = Core::new(cfg);
    for (k, want) in [(7, 7), (9, 9), (9, 9)] {
        let img = nx_bytes(&format!("movi a2, {k}\n movi a3, 1\n add a2, a2, a3\n halt 0\n"));
        mem.write_bytes(0, &img).unwrap();
        core.reset();
        let before = core.invalidated_entries();
        assert_eq!(core.run(&mut mem, 100), Step::Halted);
        assert_eq!(core.a(2), want + 1);
        let dropped = core.invalidated_entries() - before;
        match k {
            7 if before == 0 => assert_eq!(dropped, 0, "first install: nothing to drop"),
            9 if want == 9 && dropped > 0 => assert_eq!(dropped, 1, "only `movi a2` changed"),
            _ => assert_eq!(dropped, 0, "the same image again: nothing changed"),
        }
    }
}
