use super::*;
use tpb_models::regmap::{builtin, Arch};

/// DIGEST §1: the trampoline's bytes, exactly (SUNDA enter_run 0x94, CAYMAN 0x90).
#[test]
fn the_nx_trampoline_is_the_digest_bytes() {
    for (arch, er) in [(Arch::Sunda, 0x94u8), (Arch::Cayman, 0x90), (Arch::Mariana, 0x90)] {
        let p = nx_boot(&builtin(arch).unwrap(), arch == Arch::Sunda).unwrap();
        let b = &p.bytes;
        assert_eq!(&b[0..3], &[0x06, 0x76, 0x00], "{arch:?}: j 0x1dc");
        assert_eq!(&b[6..9], &[0x86, 0x77, 0x00], "{arch:?}: j 0x1e8");
        assert_eq!(&b[0x1dc..0x1e5], &[0x04, 0x00, 0x00, 0x04, er, 0x00, 0xa0, 0x00, 0x00], "{arch:?}: const16 a0,0; const16 a0,{er:#x}; jx a0");
        assert_eq!(&b[0x1e8..0x1eb], &[0x00, 0x52, 0x00], "{arch:?}: halt 0");
        assert_eq!(p.labels["enter_run"], u32::from(er));
    }
}

/// DIGEST §7's bytes in the NCFW stepper: the dispatch spine
/// (`const16 a2,0xb0; addx4 a2,a3,a2; l32i.n a5,a2,0`), the seeds'
/// WAIT-GE (`entry a1,32` .. `memw; l32i.n a2,a10,0; bgeu a3,a2` back
/// to the memw; `retw.n`) as `wait_gt_a`, and the idle (`waiti 15`);
/// the algorithm table (for its DRAM at 0xb0) sends the five mesh
/// algo_types to the stepper, and the event table each type to its handler.
#[test]
fn the_ncfw_stepper_has_the_seeds_spine_wait_and_idle() {
    let p = ncfw_tape(&builtin(Arch::Cayman).unwrap(), 4, 1).unwrap();
    let b = &p.bytes;
    let has = |seq: &[u8]| b.windows(seq.len()).any(|w| w == seq);
    assert!(has(&[0x24, 0xb0, 0x00, 0x20, 0x23, 0xa0, 0x58, 0x02]), "the dispatch spine");
    assert!(has(&[0x00, 0x7f, 0x00]), "waiti 15");
    let entry = p.labels["wait_gt_a"] as usize;
    assert_eq!(&b[entry..entry + 3], &[0x36, 0x41, 0x00], "entry a1, 32");
    let poll = p.labels["wait_gt_a_poll"] as usize;
    assert_eq!(&b[poll..poll + 10], &[0xc0, 0x20, 0x00, 0x28, 0x0a, 0x27, 0xb3, 0xf7, 0x1d, 0xf0], "the seeds' WAIT-GE @0x3498");
    let word = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let names = ["h_step", "h_barrier", "h_handshake", "h_bcast", "h_reduce"];
    let events = p.labels["events"] as usize;
    for (t, id) in NCFW_HANDLERS.iter().enumerate() {
        assert_eq!(word(events + 4 * t), p.labels[names[*id as usize - 1]], "event type {t}");
    }
    let table = ncfw_algo_table(&p).unwrap();
    assert_eq!(table.len(), 12 * 4, "one word per enc_alg_type");
    let at = |t: usize| u32::from_le_bytes(table[4 * t..4 * t + 4].try_into().unwrap());
    for t in 0..12 {
        let mesh = [2, 6, 8, 9, 10].contains(&t);
        assert_eq!(at(t), p.labels[if mesh { "algo_mesh" } else { "algo_other" }], "algo_type {t}");
    }
    let dram = with_ncfw_algo_table(&p, vec![0; 0x200]).unwrap();
    assert_eq!(&dram[0xb0..0xe0], &table[..]);
    let e = with_ncfw_algo_table(&p, vec![1; 0x200]).unwrap_err().to_string();
    assert!(e.contains("0xb0..0xe0"), "{e}");
    assert!(ncfw_tape(&builtin(Arch::Cayman).unwrap(), 109, 1).unwrap_err().to_string().contains("capacity of 108"));
}

/// DIGEST §7 / seed 003 §9.1: ten spin-polls in two banks (a2/a3 and
/// a5/a4), on bne, bltu and bgeu. Each primitive, run on an NCFW core
/// over every pair of edge values: it returns exactly when its
/// condition holds, otherwise it spins in its own poll loop until a
/// value that satisfies it is stored.
#[test]
fn the_ten_wait_primitives_release_exactly_on_their_condition() {
    use tpb_models::xtensa::bus::MemorySpace;
    use tpb_models::xtensa::config::CoreConfig;
    use tpb_models::xtensa::core::Core;
    let map = builtin(Arch::Cayman).unwrap();
    let cfg = CoreConfig::lx(&map.params);
    let csr = DRAM_BASE + 0x100;
    let vals = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, u32::MAX];
    type Holds = fn(u32, u32) -> bool;
    let forms: [(&str, Holds); 5] = [("eq", |v, t| v == t), ("ge", |v, t| v >= t), ("le", |v, t| v <= t), ("gt", |v, t| v > t), ("lt", |v, t| v < t)];
    let mut spun = 0;
    for (bank, target) in [("a", "a7"), ("b", "a8")] {
        for (form, holds) in forms {
            let prim = format!("wait_{form}_{bank}");
            for t in vals {
                let mut c = Consts::default();
                c.set("STACK", ncfw_stack(&map)).set("CSR", csr).set("T", t);
                let driver = format!(
                    "    movi a6, 4\n    slli a6, a6, 16\n    wsr.ps a6\n    rsync\n    const16 a1, STACK_HI\n    const16 a1, STACK_LO\n    \
                     const16 a6, CSR_HI\n    const16 a6, CSR_LO\n    const16 {target}, T_HI\n    const16 {target}, T_LO\n    call4 {prim}\n    halt 0\n"
                );
                let p = build_appended("driver", &driver, &c, false, &[("ncfw_wait.S", NCFW_WAIT)]).unwrap();
                let poll = p.labels[&format!("{prim}_poll")];
                for v in vals {
                    let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
                    mem.write_bytes(0, &p.bytes).unwrap();
                    mem.write_bytes(csr, &v.to_le_bytes()).unwrap();
                    let mut core = Core::new(cfg.clone());
                    core.run(&mut mem, 300);
                    assert_eq!(core.halted(), holds(v, t), "{prim}: value {v:#x}, target {t:#x}");
                    if holds(v, t) {
                        continue;
                    }
                    assert!((poll..poll + 8).contains(&core.pc), "{prim} ({v:#x}, {t:#x}) spins in its poll loop, pc {:#x}", core.pc);
                    spun += 1;
                    let Some(ok) = [t, t.wrapping_add(1), t.wrapping_sub(1)].into_iter().find(|&w| holds(w, t)) else { continue };
                    mem.write_bytes(csr, &ok.to_le_bytes()).unwrap();
                    core.run(&mut mem, 300);
                    assert!(core.halted(), "{prim} ({ok:#x}, {t:#x}) releases once the value holds");
                }
            }
        }
    }
    // Of the 36 pairs of six distinct values, 6 are equal and 15 ordered each way.
    assert_eq!(spun, 2 * (30 + 15 + 15 + 21 + 21), "the pairs each form spins on");
}

#[test]
fn every_firmware_assembles_for_every_generation_it_serves() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let m = builtin(arch).unwrap();
        q7_sum(&m).unwrap();
        q7_halt(&m).unwrap();
        q7_intr(&m, 2).unwrap();
        let p = q7_kernels(&m).unwrap();
        assert_eq!(kernel_info_table(&p).unwrap().len(), 18 * 8);
        nx_intr(&m, arch == Arch::Sunda, 3).unwrap();
        nx_halt(&m, arch == Arch::Sunda).unwrap();
        q7_barrier(&m, 0, 1, 8).unwrap();
        mesh_tape(&m, 4, 1, TapeWait::Poll).unwrap();
        mesh_tape(&m, 4, 1, TapeWait::Waiti).unwrap();
        top_sp_ccop(&m, 8).unwrap();
    }
}

/// The host doorbells as the TOP_SP's firmware reads them: a semaphore on
/// CAYMAN and MARIANA (consumed by a DEC of what was read), a latched
/// intr_info bit on SUNDA (consumed by writing it back); stop on SUNDA only.
#[test]
fn host_doorbells_are_one_read_mask_ack_triple_on_every_generation() {
    use tpb_models::regmap::space::AddressSpace;
    for arch in Arch::ALL {
        let m = builtin(arch).unwrap();
        let space = AddressSpace::new(m.clone());
        let name = |a: u32| space.name(u64::from(a - crate::sched::SYSTEM_WINDOW));
        let t = host_trigger(&m).unwrap();
        if arch == Arch::Sunda {
            assert_eq!((name(t.read), t.mask, t.read == t.ack), ("top_sp.nx.intr_info".to_string(), tpb_spec::nx_intr::HOST_TRIGGER, true));
            let s = stop(&m).unwrap().unwrap();
            assert_eq!((name(s.read), s.mask), ("top_sp.nx.intr_info".to_string(), tpb_spec::nx_intr::STOP));
        } else {
            assert_eq!((name(t.read), name(t.ack), t.mask), ("top_sp.evt_sem.read[104]".to_string(), "top_sp.evt_sem.dec[104]".to_string(), u32::MAX), "{arch:?}");
            assert_eq!(stop(&m).unwrap(), None);
        }
    }
}

fn roster() -> Vec<DispatchHandler> {
    let h = |opcode, func, cam| DispatchHandler { opcode, func, cam };
    vec![h(0x41, None, true), h(0x43, None, false), h(0x43, Some(1), true), h(0x60, None, false), h(0xe6, None, false)]
}

/// The front ends' code, disassembled from `decode` to the first handler.
fn front_end(arch: Arch) -> Vec<String> {
    let p = nx_dispatch(&builtin(arch).unwrap(), &roster(), 8).unwrap();
    let (from, to) = (p.labels["decode"] as usize, p.labels["h_0"] as usize);
    tpb_models::xtensa::disasm::listing(&p.bytes[from..to], from as u32, &Options::tpb()).into_iter().filter_map(|l| l.text.map(|t| t.replace('\t', " "))).collect()
}

/// DIGEST §4: CAYMAN+ normalise with `addi -65` and bound with
/// `movi 177` (178 entries); SUNDA runs exactly one `sub`, and neither.
#[test]
fn the_dispatch_front_ends_have_the_seeds_shapes() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let t = front_end(arch);
        assert_eq!(t.iter().filter(|l| l.starts_with("addi") && l.ends_with(", -65")).count(), 1, "{arch:?}: {t:?}");
        assert_eq!(t.iter().filter(|l| l.starts_with("movi") && l.ends_with(", 177")).count(), 1, "{arch:?}: {t:?}");
    }
    let t = front_end(Arch::Sunda);
    assert_eq!(t.iter().filter(|l| l.starts_with("sub ")).count(), 1, "{t:?}");
    assert!(!t.iter().any(|l| l.ends_with(", -65") || l.ends_with(", 177")), "{t:?}");
    // 0xe6 is outside SUNDA's segments: a raw-compare leaf (0xe6 - 0x41 = 165).
    assert!(t.iter().any(|l| l.starts_with("movi") && l.ends_with(", 165")), "{t:?}");
}

/// The DRAM image puts each opcode-keyed handler in its table slot (and
/// nothing for a func-keyed one); the CAM lists func-keyed entries first.
#[test]
fn dispatch_tables_hold_the_handlers_where_the_front_ends_look() {
    let m = builtin(Arch::Cayman).unwrap();
    let p = nx_dispatch(&m, &roster(), 8).unwrap();
    let img = dispatch_dram(&m, &p, &roster(), dispatch::MISS_IRQ).unwrap();
    let word = |o: u32| u32::from_le_bytes(img[o as usize..o as usize + 4].try_into().unwrap());
    assert_eq!(word(0), dispatch::MISS_IRQ);
    assert_eq!(word(dispatch::TABLES), p.labels["h_0"], "0x41 at entry 0");
    assert_eq!(word(dispatch::TABLES + 4 * 2), p.labels["h_1"], "0x43 at entry 2: the software path ignores func");
    assert_eq!(word(dispatch::TABLES + 4 * 0xa5), p.labels["h_4"], "0xe6 at entry 165");
    assert_eq!((0..dispatch::SW_ENTRIES).filter(|n| word(dispatch::TABLES + 4 * n) != 0).count(), 4);
    let cam = dispatch_cam(&p, &roster()).unwrap();
    assert_eq!(cam.cam.iter().map(|r| (r.key_opcode, r.mask_func, r.table_index)).collect::<Vec<_>>(), [(0x43, 0xff, 2), (0x41, 0, 0)]);
    let s = builtin(Arch::Sunda).unwrap();
    let p = nx_dispatch(&s, &roster(), 8).unwrap();
    let img = dispatch_dram(&s, &p, &roster(), 0).unwrap();
    let word = |o: u32| u32::from_le_bytes(img[o as usize..o as usize + 4].try_into().unwrap());
    assert_eq!((word(dispatch::TABLE_A + 8), word(dispatch::TABLE_B)), (p.labels["h_1"], p.labels["h_3"]), "0x43 in segment A, 0x60 first of B");
}

#[test]
fn bad_dispatch_rosters_are_refused_by_name() {
    let m = builtin(Arch::Cayman).unwrap();
    let e = |r: &[DispatchHandler], ring| nx_dispatch(&m, r, ring).unwrap_err().to_string();
    let h = |opcode, func, cam| DispatchHandler { opcode, func, cam };
    assert!(e(&[h(0x41, Some(2), false)], 8).contains("needs cam = true"));
    assert!(e(&[h(0x41, None, false), h(0x41, None, true)], 8).contains("handlers 0 and 1 both take opcode 0x41"));
    assert!(e(&roster(), 6).contains("a power of two"));
    assert!(e(&vec![h(0x41, Some(0), true); 63], 8).contains("at most 63"));
}

#[test]
fn errors_name_the_file_and_its_own_line_and_bad_constants() {
    let mut c = Consts::default();
    c.set("X", 1);
    let e = build("t.S", "nop\n movi a2, NOPE\n", &c).unwrap_err().to_string();
    assert!(e.starts_with("t.S: t.S:2:") && e.contains("NOPE"), "{e}");
    // Behind the trampoline, the line is still the program's own.
    c.set("ENTER_RUN", 0x90);
    let e = build_nx("t.S", "main:\n nop\n movi a2, NOPE\n", &c).unwrap_err().to_string();
    assert!(e.starts_with("t.S: t.S:3:") && e.contains("NOPE"), "{e}");
    let e = build_nx("t.S", "nop\n", &c).unwrap_err().to_string();
    assert!(e.contains("nx_trampoline.S:") && e.contains("main"), "a program without main: {e}");
    let m = builtin(Arch::Cayman).unwrap();
    assert!(q7_barrier(&m, 256, 1, 8).unwrap_err().to_string().contains("semaphore 256"));
    assert!(mesh_tape(&m, 109, 1, TapeWait::Poll).unwrap_err().to_string().contains("capacity of 108"));
}
