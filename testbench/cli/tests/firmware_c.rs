//! Your own firmware on the co-simulation: C built by Debian's
//! gcc-xtensa-lx106 with the start-up, linker script and header `tpb cc`
//! generates from the map, installed by the HAL, run on the RTL's cores and
//! checked by name (`testbench/examples/firmware/`); gcc's code read by our
//! decoder as the objdump oracle reads it; a core's exception reported with
//! its cause, PC as symbol + offset and instruction.

use std::path::{Path, PathBuf};
use tpb_cosim::cfw::{self, CoreKind};
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::tb::file::{run, RunOpts, TbFile};
use tpb_testbench::tools::{repo_root, require};

fn example() -> PathBuf {
    repo_root().join("testbench/examples/firmware/q7_checksum.toml")
}

fn scratch(name: &str) -> PathBuf {
    let d = repo_root().join("target/tpb-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run a testbench file on `arch` from the repository root (its C builds
/// land under build/fw/): the failure as text, or None.
fn outcome(file: &TbFile, arch: Arch) -> (Option<String>, u64) {
    std::env::set_current_dir(repo_root()).unwrap();
    let o = run(file, arch, &RunOpts::default());
    (o.result.err().map(|f| format!("{}:{}: {}: {}", f.loc.line, f.loc.col, f.step, f.error)), o.cycles)
}

#[test]
fn the_c_example_runs_on_the_q7_cores_of_every_generation() {
    require("xtensa-lx106-elf-gcc").unwrap_or_else(|e| panic!("{e}"));
    let file = TbFile::load(&example()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.archs.len(), 3, "the example applies to every generation");
    for arch in Arch::ALL {
        let t0 = std::time::Instant::now();
        let (fail, cycles) = outcome(&file, arch);
        assert!(fail.is_none(), "{}: {}", arch.name(), fail.unwrap());
        println!("{}: q7_checksum.c built and ran in {cycles} cycles, {:.2} s", arch.name(), t0.elapsed().as_secs_f64());
    }
}

/// The SEQ in C: its text over the seeds' stdio TX ring, drained by the
/// host (`tx_console`), beside SIMCALL's; its byte stores to its DRAM
/// (in the top, behind word-only BAR0) merged; a drain too late says so.
#[test]
fn the_seq_prints_over_the_stdio_tx_ring_on_every_generation() {
    require("xtensa-lx106-elf-gcc").unwrap_or_else(|e| panic!("{e}"));
    let path = repo_root().join("testbench/examples/firmware/seq_stdio.toml");
    let file = TbFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
    for arch in Arch::ALL {
        let (err, cycles) = outcome(&file, arch);
        assert_eq!(err, None, "{}", arch.name());
        println!("{}: seq_stdio in {cycles} cycles", arch.name());
    }
    // Five chunks before one drain: the ring keeps four, the host says one is lost.
    let dir = scratch("c-stdio-lost");
    std::fs::write(dir.join("many.c"), "#include \"tpb_fw.h\"\nint main(void) {\n    for (int i = 0; i < 5; i++) tpb_tx_puts(\"a line\");\n    return 0;\n}\n").unwrap();
    std::fs::write(dir.join("q7.S"), std::fs::read_to_string(repo_root().join("testbench/examples/firmware/q7_sum.S")).unwrap()).unwrap();
    std::fs::write(dir.join("tpb_sem.inc"), std::fs::read_to_string(repo_root().join("testbench/examples/firmware/tpb_sem.inc")).unwrap()).unwrap();
    let toml =
        "[firmware.seq]\nc = [\"many.c\"]\n[firmware.q7]\nasm = \"q7.S\"\n[[step]]\nstpb_init = true\ndma = true\n[[step]]\nwait_halted = \"seq\"\n[[step]]\ntx_console = true\n";
    std::fs::write(dir.join("many.toml"), toml).unwrap();
    let f = TbFile::load(&dir.join("many.toml")).unwrap_or_else(|e| panic!("{e}"));
    let (err, _) = outcome(&f, Arch::Cayman);
    let err = err.expect("a lost chunk fails");
    assert!(err.contains("1 stdio chunks were rewritten before the host drained them (the ring keeps 4)"), "{err}");
}

#[test]
fn a_wrong_expectation_in_the_c_example_fails() {
    let text = std::fs::read_to_string(example()).unwrap();
    // q7[5]'s checksum, one off; the barrier semaphore's count; q7[7]'s console line.
    for (from, to, want) in [
        ("value = 197376", "value = 197377", "q7[5]: main returned 0x30300, expected 0x30301"),
        ("value = 8\n", "value = 7\n", "pool.evt_sem.read[10]: expected 0x7, got 0x8"),
        ("sum 263168 = ", "sum 263169 = ", "q7[7]: no console line contains \"core 7: sum 263169 = 0x00040400\"; its lines: \"core 7: sum 263168 = 0x00040400\""),
    ] {
        let path = example().with_file_name("tampered.toml");
        let file = TbFile::parse(&path, &text.replacen(from, to, 1)).unwrap();
        let (fail, _) = outcome(&file, Arch::Cayman);
        let fail = fail.unwrap_or_else(|| panic!("{to}: passed"));
        assert!(fail.contains(want), "{fail}");
    }
}

#[test]
fn an_exception_names_the_core_cause_symbol_and_instruction() {
    let dir = scratch("c-exception");
    std::fs::write(
        dir.join("bad.c"),
        "#include \"tpb_fw.h\"\nvolatile uint32_t n;\nint main(void) {\n    n = 1;\n    __asm__ volatile(\".byte 0x00, 0x00, 0x00\"); /* ILL */\n    return 0;\n}\n",
    )
    .unwrap();
    let toml = "[firmware.q7]\nc = [\"bad.c\"]\n[[step]]\nstpb_init = true\n[[step]]\nwait_halted = \"q7\"\ntimeout = 20000\n";
    let file = TbFile::parse(&dir.join("bad.toml"), toml).unwrap();
    let (fail, _) = outcome(&file, Arch::Cayman);
    let fail = fail.expect("an illegal instruction must fail the run");
    assert!(fail.starts_with("6:1: wait_halted = \"q7\": q7[0] took IllegalInstruction at cycle"), "{fail}");
    assert!(fail.contains("took IllegalInstruction at cycle"), "{fail}");
    assert!(fail.contains("(main+0x"), "the PC as symbol + offset: {fail}");
    assert!(fail.contains(": ill"), "the instruction: {fail}");
}

#[test]
fn a_failure_shows_registers_recent_instructions_console_and_opens_the_waves_at_its_cycle() {
    let dir = scratch("c-failure-report");
    std::fs::write(dir.join("bad.c"), "#include \"tpb_fw.h\"\nint main(void) {\n    tpb_printf(\"core %u before the fault\\n\", (unsigned)tpb_core_id());\n    __asm__ volatile(\"movi a7, 0x123\\n.byte 0x00, 0x00, 0x00\" ::: \"a7\"); /* ILL */\n    return 0;\n}\n").unwrap();
    let toml = "[firmware.q7]\nc = [\"bad.c\"]\n[[step]]\nstpb_init = true\n[[step]]\nwait_halted = \"q7\"\ntimeout = 60000\n";
    let file = TbFile::parse(&dir.join("bad.toml"), toml).unwrap();
    std::env::set_current_dir(repo_root()).unwrap();
    let vcd = dir.join("bad.vcd");
    let o = run(&file, Arch::Cayman, &RunOpts { vcd_file: Some(vcd.clone()), ..Default::default() });
    let f = o.result.as_ref().expect_err("an illegal instruction must fail the run");
    assert!(f.error.contains("\n  registers:\n    a0 "), "{}", f.error);
    assert!(f.error.contains("a7  0x00000123"), "a7 as the faulting instruction found it: {}", f.error);
    assert!(f.error.contains("exccause 0x00000000") && f.error.contains("epc1 0x"), "{}", f.error);
    let listing = f.error.split("last 16 instructions retired").nth(1).unwrap_or_else(|| panic!("{}", f.error));
    assert_eq!(listing.lines().filter(|l| l.contains("0x00000")).count(), 16, "{listing}");
    assert!(listing.lines().last().unwrap().contains("a7, 0x123"), "the last one retired is the movi before the fault: {listing}");
    let report = tpb_testbench::tb::report::table(std::slice::from_ref(&o), &[]);
    assert!(report.contains("console:\n    [q7[0] @") && report.contains("] core 0 before the fault"), "{report}");
    let gtkw = o.gtkw.as_ref().unwrap_or_else(|| panic!("no .gtkw: {report}"));
    assert_eq!(gtkw, &vcd.with_extension("gtkw"));
    let save = tpb_cosim::waves::gtkw::SaveFile::parse(&std::fs::read_to_string(gtkw).unwrap());
    let period = tpb_cosim::waves::Timebase::of(Arch::Cayman).unwrap().period_ps;
    assert_eq!(save.markers.first().map(|m| (m.1, m.2.starts_with("failure: wait_halted"))), Some((f.cycle * period, true)), "{save:?}");
    assert!(report.contains(&format!("opens at cycle {}", f.cycle)), "{report}");
}

#[test]
fn cosim_verbs_without_firmware_and_pin_verbs_with_it_are_refused_on_load() {
    let p = Path::new("x.toml");
    let e = TbFile::parse(p, "[[step]]\nstpb_init = true\n").unwrap_err().to_string();
    assert!(e.starts_with("x.toml:2:1: stpb_init") && e.contains("add a [firmware.q7]"), "{e}");
    let e = TbFile::parse(p, "[firmware.q7]\nasm = \"k.S\"\n[[step]]\npin = \"q7_halted\"\nvalue = 1\n").unwrap_err().to_string();
    assert!(e.contains("x.toml:4:1: pin") && e.contains("the cores do in a co-simulation"), "{e}");
    let e = TbFile::parse(p, "[firmware.q7]\nasm = \"k.S\"\nc = [\"k.c\"]\n").unwrap_err().to_string();
    assert!(e.contains("give exactly one of asm, elf, c (found asm, c)"), "{e}");
    let e = TbFile::parse(p, "[firmware.q8]\nasm = \"k.S\"\n").unwrap_err().to_string();
    assert!(e.contains("firmware.q8: not a core kind"), "{e}");
    let e = TbFile::parse(p, "[firmware.q7]\nasm = \"k.S\"\n[[step]]\nwait_halted = \"q7[8]\"\n").unwrap_err().to_string();
    assert!(e.contains("'q7[8]' is not a core"), "{e}");
    // A source that does not exist: an input error at its key, before anything runs (exit 2).
    let e = TbFile::parse(p, "[firmware.q7]\nc = [\"nope.c\"]\n[[step]]\nstpb_init = true\n").unwrap_err().to_string();
    assert_eq!(e, "x.toml:2:1: firmware.q7.c: nope.c: no such file (paths are relative to this file's folder)");
}

#[test]
fn an_elf_outside_the_cores_memories_is_refused_by_name() {
    let map = builtin(Arch::Cayman).unwrap();
    let img = tpb_models::xtensa::elf::Image { entry: 0, segments: vec![tpb_models::xtensa::elf::Segment { addr: 0x3000_0000, data: vec![0; 8], mem_size: 8 }] };
    let e = cfw::images(&map, CoreKind::Q7, "far.elf", &img.write()).unwrap_err().to_string();
    assert!(e.contains("far.elf: segment at 0x30000000 (8 bytes) is outside the q7 core's IRAM"), "{e}");
    let e = cfw::images(&map, CoreKind::Q7, "junk.elf", b"not an elf").unwrap_err().to_string();
    assert!(e.starts_with("junk.elf: not an ELF32"), "{e}");
}

/// Two builds of one file at once (two tests, two `tpb test` runs) each
/// get a whole ELF and leave no temporary behind; a build that changes
/// nothing leaves the generated support files untouched.
#[test]
fn concurrent_builds_of_one_file_each_get_a_whole_elf() {
    require("xtensa-lx106-elf-gcc").unwrap_or_else(|e| panic!("{e}"));
    let dir = scratch("c-concurrent");
    let map = builtin(Arch::Cayman).unwrap();
    let elf = dir.join("q7.elf");
    let src = repo_root().join("testbench/examples/firmware/q7_checksum.c");
    let build = || cfw::build(&map, CoreKind::Q7, std::slice::from_ref(&src), &[], &elf).map(|_| std::fs::read(&elf).unwrap());
    let (a, b) = std::thread::scope(|s| {
        let (a, b) = (s.spawn(build), s.spawn(build));
        (a.join().unwrap(), b.join().unwrap())
    });
    let (a, b) = (a.unwrap_or_else(|e| panic!("{e}")), b.unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(a, b, "the same source builds the same ELF");
    let bytes = std::fs::read(&elf).unwrap();
    assert_eq!(bytes, a, "the ELF on disk is one build's whole output");
    cfw::images(&map, CoreKind::Q7, "q7.elf", &bytes).unwrap_or_else(|e| panic!("{e}"));
    let build_dir = dir.join("q7.build");
    let header = build_dir.join("tpb_fw.h");
    let before = std::fs::metadata(&header).unwrap().modified().unwrap();
    build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::metadata(&header).unwrap().modified().unwrap(), before, "an unchanged header is not rewritten");
    let left: Vec<String> = std::fs::read_dir(&build_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".o") || n.ends_with(".tmp") || n.ends_with(".elf"))
        .collect();
    assert!(left.is_empty(), "temporaries left behind: {left:?}");
}

/// gcc's code for the example, every instruction objdump decodes in the
/// ELF but the literal pools (data, whatever objdump makes of them),
/// decoded by ours to the same text.
#[test]
fn gcc_output_decodes_as_objdump_reads_it() {
    let dir = scratch("c-objdump");
    let map = builtin(Arch::Cayman).unwrap();
    let elf = dir.join("q7_checksum.elf");
    cfw::build(&map, CoreKind::Q7, &[repo_root().join("testbench/examples/firmware/q7_checksum.c")], &[], &elf).unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(&elf).unwrap();
    let images = cfw::images(&map, CoreKind::Q7, "q7_checksum.elf", &bytes).unwrap();
    let out = tpb_testbench::tools::run("xtensa-lx106-elf-objdump", &["-d", elf.to_str().unwrap()]).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let opts = tpb_models::xtensa::Options::tpb();
    // Literal pools are data: skip what objdump decodes over a word an l32r loads.
    let literals: Vec<u32> = text
        .lines()
        .filter_map(|l| l.split("\tl32r\t").nth(1))
        .filter_map(|ops| ops.split(", ").nth(1)?.split_whitespace().next().and_then(|t| u32::from_str_radix(t, 16).ok()))
        .collect();
    assert!(!literals.is_empty(), "gcc's code loads literals with l32r");
    let (mut n, mut foreign) = (0, 0);
    for line in text.lines() {
        // "     80c:	fffd41        	l32r	a4, 800 <...> (10000004 <buf>)"
        let mut f = line.splitn(3, '\t');
        let (Some(addr), Some(hex), Some(insn)) = (f.next(), f.next(), f.next()) else { continue };
        let Ok(addr) = u32::from_str_radix(addr.trim().trim_end_matches(':'), 16) else { continue };
        let hex = hex.trim();
        if hex.len() != 4 && hex.len() != 6 || insn.trim().is_empty() || insn.starts_with('.') {
            continue;
        }
        if literals.iter().any(|&w| addr < w + 4 && w < addr + hex.len() as u32 / 2) {
            continue;
        }
        let at = &images.iram[addr as usize..];
        let ours = tpb_models::xtensa::disasm::listing(&at[..hex.len() / 2], addr, &opts);
        let ours = ours[0].text.clone().unwrap_or_default();
        let norm = |s: &str| {
            let s = s.split(" <").next().unwrap().split(" (").next().unwrap();
            s.split_whitespace().collect::<Vec<_>>().join(" ").replace(", ", ",")
        };
        // objdump names a branch or call target with its address in hex without 0x.
        let (o, u) = (norm(insn).replace("0x", ""), norm(&ours).replace("0x", ""));
        // lx106's objdump says "excw" for an encoding its option set lacks
        // (HALT, as crt0 and tpb_halt() write it in bytes; bytes after an
        // alignment pad it decodes out of step): ours, with the oracle's
        // option set, must not decode those either.
        if o == "excw" && at[..3] != [0x80, 0x20, 0x00] {
            let lx = tpb_models::xtensa::disasm::listing(&at[..3], addr, &tpb_models::xtensa::config::Options::lx106());
            assert_eq!(lx[0].text, None, "at {addr:#x}: objdump has no instruction here, ours with lx106's options decodes one");
            foreign += 1;
            continue;
        }
        assert_eq!(u, o, "at {addr:#x}: ours '{ours}', objdump '{insn}'");
        n += 1;
    }
    assert!(n > 60, "only {n} instructions compared");
    println!("{n} instructions of gcc's output decoded alike ({foreign} outside lx106's option set skipped)");
}

#[test]
fn the_header_compiles_for_every_generation_and_core() {
    require("xtensa-lx106-elf-gcc").unwrap_or_else(|e| panic!("{e}"));
    for arch in Arch::ALL {
        let map = builtin(arch).unwrap();
        for kind in [CoreKind::Q7, CoreKind::Seq, CoreKind::TopSp] {
            let dir = scratch(&format!("c-header-{}-{}", arch.name(), kind.name()));
            let src = dir.join("m.c");
            std::fs::write(&src, "#include \"tpb_fw.h\"\nint main(void) { sem_inc(TPB_SEM_TOP_SP, 3, 1); return (int)TPB_REG(TPB_POOL_Q7_RELEASE_RUN_STALL_ADDR); }\n").unwrap();
            let b = cfw::build(&map, kind, &[src], &["-Werror".into()], &dir.join("m.elf")).unwrap_or_else(|e| panic!("{} {}: {e}", arch.name(), kind.name()));
            let bytes = std::fs::read(&b.elf).unwrap();
            let img = cfw::images(&map, kind, "m.elf", &bytes).unwrap();
            // The entry is where crt0 put _start: behind the trampoline on an NX core.
            let start = cfw::symbol(&bytes, "_start").unwrap();
            assert_eq!(start, cfw::ld::start(&map, kind), "{} {}", arch.name(), kind.name());
            if kind.nx() {
                let enter = map.params.boot.nx_enter_run.unwrap() as usize;
                // j at enter_run (op0 6) lands on _start.
                assert_eq!(img.iram[enter] & 0x3f, 6, "{} {}: enter_run holds a j", arch.name(), kind.name());
            }
        }
    }
}

#[test]
fn tpb_cc_and_tpb_test_run_the_example_from_the_command_line() {
    let tpb = env!("CARGO_BIN_EXE_tpb");
    let dir = scratch("c-cli");
    let elf = dir.join("k.elf");
    let src = repo_root().join("testbench/examples/firmware/q7_checksum.c");
    let (code, _, err) = tpb_testbench::tools::run_in_root(tpb, &["cc", src.to_str().unwrap(), "--arch", "sunda", "--core", "q7", "-o", elf.to_str().unwrap(), "-v"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("xtensa-lx106-elf-gcc -mtext-section-literals") && err.contains("q7 core of sunda"), "{err}");
    assert!(dir.join("k.build/tpb_fw.h").is_file() && dir.join("k.build/q7.ld").is_file());
    let (code, _, err) = tpb_testbench::tools::run_in_root(tpb, &["cc", "no-such.c", "-o", elf.to_str().unwrap()]);
    assert_eq!(code, 2, "a missing input: {err}");
    assert!(err.contains("no-such.c: no such source file"), "{err}");
    let junit = dir.join("junit.xml");
    let (code, out, err) = tpb_testbench::tools::run_in_root(tpb, &["test", example().to_str().unwrap(), "--junit", junit.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read_to_string(&junit).unwrap().matches("<testcase").count(), 3, "one case a generation");
}

#[test]
fn tpb_sim_runs_a_firmware_file_and_writes_its_waves() {
    let tpb = env!("CARGO_BIN_EXE_tpb");
    let dir = scratch("c-sim");
    let vcd = dir.join("checksum.vcd");
    let (code, out, err) = tpb_testbench::tools::run_in_root(tpb, &["sim", example().to_str().unwrap(), "--arch", "mariana", "--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS") && out.contains(&format!("waves: {}", vcd.display())), "{out}");
    assert!(std::fs::metadata(&vcd).unwrap().len() > 10_000, "a VCD of the whole run");
    let (code, _, err) = tpb_testbench::tools::run_in_root(tpb, &["sim", example().to_str().unwrap(), "--dies", "2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a file with [firmware] takes --arch and --vcd here"), "{err}");
}

/// On the co-simulation the host's doorbell goes through the arbiter: it
/// is accepted and reads back 0; the verbs that drive the top's pins are
/// errors through the API too, never a silent no-op.
#[test]
fn a_doorbell_on_the_cosim_and_the_pins_the_cores_own() {
    let dir = scratch("c-doorbell");
    let toml = "[firmware.q7]\nc = [\"../../../testbench/examples/firmware/q7_checksum.c\"]\n[[step]]\nstpb_init = true\n[[step]]\ndoorbell = \"pe.nx.start_ctrl.ctrl\"\n[[step]]\nwait_halted = \"q7\"\n";
    let file = TbFile::parse(&dir.join("db.toml"), toml).unwrap();
    let (fail, _) = outcome(&file, Arch::Cayman);
    assert!(fail.is_none(), "{}", fail.unwrap());
    let mut tb = tpb_testbench::tb::Tb::on_cosim(tpb_cosim::sched::Cosim::new(Arch::Cayman).unwrap());
    let e = tb.hwd_pop().unwrap_err().to_string();
    assert!(e.contains("the cores drive this"), "{e}");
    let e = tb.set_pin("q7_halted", 1).unwrap_err().to_string();
    assert!(e.contains("the cores drive this"), "{e}");
}

/// The tutorial (docs/firmware.md) shows the example files as they are:
/// every line of its TOML block is a line of q7_checksum.toml, every line
/// of its assembly block (but the elision) a line of q7_sum.S (comments aside).
#[test]
fn the_readme_tutorial_quotes_the_example_files() {
    let section = std::fs::read_to_string(repo_root().join("docs/firmware.md")).unwrap();
    let block = |lang: &str| section.split(&format!("```{lang}\n")).nth(1).unwrap().split("```").next().unwrap().to_string();
    let code = |l: &str| l.split('#').next().unwrap().trim().to_string();
    for (lang, file) in [("toml", "q7_checksum.toml"), ("asm", "q7_sum.S")] {
        let text = std::fs::read_to_string(repo_root().join("testbench/examples/firmware").join(file)).unwrap();
        let lines: Vec<String> = text.lines().map(code).collect();
        for l in block(lang).lines().map(code).filter(|l| !l.is_empty() && l != "...") {
            assert!(lines.contains(&l), "the tutorial's {lang} line '{l}' is not in {file}");
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected), bit by bit: the test's own reference.
fn crc32_reference(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// The tutorial's per-core inputs: each core's input goes in before the
/// cores run (one run, no restart: each core prints its line once), and
/// the file's expected CRCs are the reference's of the file's own inputs.
#[test]
fn the_per_core_input_example_runs_once_and_its_expected_crcs_are_the_reference_s() {
    require("xtensa-lx106-elf-gcc").unwrap_or_else(|e| panic!("{e}"));
    let path = repo_root().join("testbench/examples/firmware/q7_crc32.toml");
    let file = TbFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file.firmware.data.len(), 8, "one input per core");
    // The expected values in the file, against the reference of its inputs.
    use tpb_testbench::tb::file::{Val, Verb};
    let expected: Vec<(String, u64)> = file
        .for_arch(Arch::Cayman)
        .0
        .iter()
        .filter_map(|s| match &s.verb {
            Verb::ExpectExit { cores, value: Val::Num(v) } => Some((cores.name(), *v)),
            _ => None,
        })
        .collect();
    assert_eq!(expected.len(), 8);
    for d in &file.firmware.data {
        let bytes: Vec<u8> = d.words[1..].iter().flat_map(|w| w.to_le_bytes()).take(d.words[0] as usize).collect();
        let want = u64::from(crc32_reference(&bytes));
        let core = format!("q7[{}]", d.core);
        assert_eq!(expected.iter().find(|(c, _)| *c == core).map(|(_, v)| *v), Some(want), "{core}: the file's CRC of {:?}", String::from_utf8_lossy(&bytes));
    }
    assert_eq!(crc32_reference(b"123456789"), 0xcbf4_3926, "the reference's check value");
    for arch in Arch::ALL {
        std::env::set_current_dir(repo_root()).unwrap();
        let o = run(&file, arch, &RunOpts::default());
        assert!(o.result.is_ok(), "{}: {:?}", arch.name(), o.result);
        let lines = o.console.iter().filter(|l| l.contains("crc32 of")).count();
        assert_eq!(lines, 8, "{}: each core ran once: {:?}", arch.name(), o.console);
    }
}
