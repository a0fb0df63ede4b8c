//! The `tpb` command line, run as a user would.

use std::process::Command;

fn tpb(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tpb")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn json(arch: &str) -> serde_json::Value {
    let (code, out, err) = tpb(&["regmap", "--arch", arch, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn find<'a>(v: &'a serde_json::Value, block: &str, key: &str, name: &str) -> &'a serde_json::Value {
    let b = v["blocks"].as_array().unwrap().iter().find(|b| b["name"] == block).unwrap_or_else(|| panic!("no block {block}"));
    b[key].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap_or_else(|| panic!("no {name} in {block}"))
}

#[test]
fn cayman_json_shows_host_trigger_and_q7_release_reset() {
    let v = json("cayman");
    assert_eq!(find(&v, "top_sp", "aliases", "host_trigger")["offset"], 0x15a0);
    let r = find(&v, "q7", "registers", "release_run_stall");
    assert_eq!(r["fields"][0]["reset"], 0xff);
    assert_eq!(r["offset"], 0x3000);
}

#[test]
fn sunda_json_shows_host_trigger_at_0x848() {
    let v = json("sunda");
    let r = find(&v, "top_sp", "registers", "host_trigger");
    assert_eq!(r["offset"], 0x848);
    assert_eq!(r["fields"][0]["access"], "doorbell");
}

#[test]
fn every_format_renders_for_every_generation() {
    for arch in ["sunda", "cayman", "mariana"] {
        for (format, needle) in [("md", "register reference"), ("json", "\"blocks\""), ("c", "#define"), ("rdl", "addrmap"), ("rust-hdl", "LogicBlock"), ("hal", "pub const")] {
            let (code, out, err) = tpb(&["regmap", "--arch", arch, "--format", format]);
            assert_eq!(code, 0, "{arch} {format}: {err}");
            assert!(out.contains(needle), "{arch} {format} output lacks {needle}");
        }
    }
}

#[test]
fn unknown_arch_or_format_fails_with_a_clear_message() {
    let (code, _, err) = tpb(&["regmap", "--arch", "maverick", "--format", "json"]);
    assert_ne!(code, 0);
    assert!(err.contains("maverick") && err.contains("sunda"), "{err}");
    let (code, _, err) = tpb(&["regmap", "--arch", "cayman", "--format", "yaml"]);
    assert_ne!(code, 0);
    assert!(err.contains("yaml") && err.contains("json"), "{err}");
    let (code, _, err) = tpb(&["gen-verilog", "--arch", "v5", "--out", "/tmp/x"]);
    assert_ne!(code, 0);
    assert!(err.contains("v5"), "{err}");
}

#[test]
fn a_broken_map_directory_is_reported_with_file_and_line() {
    // The maps' layout: cayman/ and the common blocks beside it.
    let root = std::env::temp_dir().join(format!("tpb-cli-badmap-{}", std::process::id()));
    for (p, t) in tpb_models::regmap::builtin_files(tpb_models::regmap::Arch::Cayman) {
        let p = std::path::Path::new(p);
        let d = root.join(p.parent().unwrap().file_name().unwrap());
        std::fs::create_dir_all(&d).unwrap();
        let name = p.file_name().unwrap();
        let t = if name == "q7.toml" { t.replace("access = \"w1c\"", "access = \"w2c\"") } else { t.to_string() };
        std::fs::write(d.join(name), t).unwrap();
    }
    let (code, _, err) = tpb(&["regmap", "--arch", "cayman", "--maps", root.join("cayman").to_str().unwrap()]);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(code, 2);
    assert!(err.contains("common/q7.toml:") && err.contains("w2c"), "{err}");
}

#[test]
fn gen_verilog_writes_every_block_matching_the_checked_in_copy() {
    let dir = std::env::temp_dir().join(format!("tpb-cli-verilog-{}", std::process::id()));
    let (code, out, err) = tpb(&["gen-verilog", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let files: Vec<&str> = out.lines().collect();
    assert!(files.len() >= 13, "{out}");
    let checked_in = tpb_testbench::tools::repo_root().join("hdl/generated");
    for f in files {
        let p = std::path::Path::new(f);
        let ours = std::fs::read_to_string(p).unwrap();
        let theirs = std::fs::read_to_string(checked_in.join(p.file_name().unwrap())).unwrap();
        assert_eq!(ours, theirs, "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn regen_check_passes_on_a_fresh_tree() {
    let (code, out, err) = tpb(&["regen", "--check"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn bringup_prints_the_named_access_log_per_generation() {
    let (code, out, err) = tpb(&["bringup", "--arch", "cayman"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("W 0x02860004 pool.nx.release_run_stall = 0x0"), "{out}");
    assert!(out.contains("W 0x02863000 pool.q7.release_run_stall = 0x0"), "{out}");
    assert!(err.contains("SEQ running=1, Q7 release_run_stall=0x00"), "{err}");
    let (code, out, err) = tpb(&["bringup", "--arch", "sunda"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("pool.q7.release_run_stall"), "SUNDA's host does not release the Q7 cores");
    assert!(err.contains("Q7 release_run_stall=0xff"), "{err}");
}

#[test]
fn bringup_with_an_oversized_image_fails_with_the_seeds_message() {
    let dir = std::env::temp_dir().join(format!("tpb-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let img = dir.join("q7_iram.bin");
    std::fs::write(&img, vec![1u8; 0x10004]).unwrap();
    let (code, out, err) = tpb(&["bringup", "--arch", "sunda", "--q7-iram", img.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "tpb: error: IRAM ucode too big! doesn't fit, size=65540");
    assert!(out.is_empty(), "nothing was programmed: {out}");
    let (code, _, err) = tpb(&["bringup", "--arch", "sunda", "--q7-dram", dir.join("missing.bin").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.bin") && err.contains("No such file"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn asm_disasm_and_run_a_boot_trampoline() {
    let dir = std::env::temp_dir().join(format!("tpb-cli-asm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("fw.S");
    std::fs::write(&src, ".org 0\nj boot\n.org 0x90\nenter_run:\nmovi a3, 7\nhalt 0\n.org 0x1dc\nboot:\nconst16 a0, 0\nconst16 a0, 0x90\njx a0\n").unwrap();
    let bin = dir.join("fw.bin");
    let elf = dir.join("fw.elf");
    let (code, _, err) = tpb(&["asm", src.to_str().unwrap(), "-o", bin.to_str().unwrap(), "--elf", elf.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!(&bytes[..3], &[0x06, 0x76, 0x00], "j 0x1dc, DIGEST §1");
    assert_eq!(&bytes[0x1df..0x1e2], &[0x04, 0x90, 0x00], "const16 a0, 0x90 (CAYMAN)");
    let (code, out, _) = tpb(&["disasm", bin.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.starts_with("       0:  067600   j\t0x1dc\n"), "{out}");
    for input in [&src, &elf] {
        let (code, out, err) = tpb(&["run", input.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("00000090: movi a3, 7  a3=0x7"), "{out}");
        assert!(err.contains("stopped at HALT"), "the final state goes to stderr: {err}");
    }
    std::fs::write(&src, "nop\nmovi a2, 5000\n").unwrap();
    let (code, _, err) = tpb(&["asm", src.to_str().unwrap(), "-o", bin.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), format!("tpb: error: {}:2:1: 'movi': immediate 5000 out of range -2048..=2047", src.display()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gen_verilog_fpga_writes_the_small_top_beside_the_full_one() {
    let dir = tpb_testbench::tools::repo_root().join("target/cli-fpga");
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = tpb(&["gen-verilog", "--arch", "sunda", "--fpga", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let fpga = std::fs::read_to_string(dir.join("sunda_tpb_top_fpga.v")).unwrap();
    let full = std::fs::read_to_string(dir.join("sunda_tpb_top.v")).unwrap();
    assert!(fpga.starts_with("// GENERATED by tpb-hdl") && fpga.contains("module sunda_tpb_top_fpga("), "banner and module name");
    // 1 KiB memories: 256-word lanes instead of the full-size ones.
    assert!(fpga.contains("reg [31:0] mem [0:255];") && !fpga.contains("[0:16383];"));
    assert!(full.contains("reg [31:0] mem [0:16383];"));
}

/// `tpb run … | head -1`: the reader goes away after one line of a 1.6 MB
/// trace (far past any pipe buffer); tpb stops quietly (SIGPIPE), no panic
/// message about a broken pipe.
#[test]
fn a_closed_pipe_stops_tpb_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = tpb_testbench::tools::repo_root().join("target/cli-pipe");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("loop.S");
    std::fs::write(&src, "loop: j loop\n").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["run", src.to_str().unwrap(), "--steps", "100000"])
        .current_dir(tpb_testbench::tools::repo_root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(!first.is_empty());
    // The reader is dropped here: the rest of the output hits a closed pipe.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
}

/// `tpb bench` prints its table (a smoke test of the command: speed is
/// measured by the benchmark itself, never asserted here).
#[test]
fn tpb_bench_prints_a_table_of_medians() {
    let (code, out, err) = tpb(&["bench", "--arch", "sunda", "--only", "bare", "--runs", "1", "--cycles", "2000"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| top | measurement | now |"), "{out}");
    let row = out.lines().find(|l| l.starts_with("| sunda | bare top, random BAR0 traffic, 2,000 cycles (cycles/s) |")).unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains('±'), "{row}");
    // The traced rows (VCD, the two FSTs, window) and their ratios to the
    // untraced run (on CAYMAN, whose FST-writing model other tests build too).
    let (code, out, err) = tpb(&["bench", "--arch", "cayman", "--only", "cosim", "--runs", "1", "--cycles", "2000"]);
    assert_eq!(code, 0, "{out}{err}");
    for fst in ["with an FST converted from a VCD (cycles/s)", "with an FST written by the model (cycles/s)"] {
        assert!(out.lines().any(|l| l.starts_with("| cayman | co-simulation, bringup of ") && l.contains(fst)), "{fst}: {out}");
    }
    let ratios =
        out.lines().find(|l| l.starts_with("cayman: traced co-simulation time against untraced, paired by round (median ± spread): VCD ")).unwrap_or_else(|| panic!("{out}"));
    assert!(ratios.contains("FST converted ") && ratios.contains("FST written ") && ratios.contains("every level ") && ratios.contains("window "), "{ratios}");
    // The untraced run with every rising edge evaluated alone, and its time against merged edges.
    assert!(out.lines().any(|l| l.starts_with("| cayman | co-simulation, bringup of ") && l.contains("untraced, each rising edge evaluated alone (cycles/s)")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("cayman: untraced co-simulation with each rising edge evaluated alone takes ")), "{out}");
    // The threads rows: one thread and the machine's cores, and the ratio line.
    let (code, out, err) = tpb(&["bench", "--arch", "cayman", "--only", "threads", "--runs", "1", "--cycles", "2000"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("| cayman | threads: 16-die polling ring on 1 thread(s) (die-cycles/s) |"), "{out}");
    assert!(out.contains("| cayman | threads: allreduce-hier on 8 dies, release to end, on 1 thread(s) (die-cycles/s) |"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("cayman: ") && l.contains(" threads against one: 16-die polling ring ")), "{out}");
    // The whole-process rows: a short run, traced and not, and 16 dies.
    let (code, out, err) = tpb(&["bench", "--arch", "cayman", "--only", "process", "--runs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    for run in ["`tpb sim doorbell`", "`tpb sim doorbell --vcd`", "`tpb sim barrier-global --dies 16`"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("| cayman | {run}, whole process (s) |"))), "{run}: {out}");
    }
    let (code, _, err) = tpb(&["bench", "--only", "everything"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("invalid value 'everything'"), "{err}");
}

#[test]
fn a_scenario_that_fails_its_budget_still_reports_the_cycles_it_ran() {
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--cycles", "50"]);
    assert_ne!(code, 0, "{out}{err}");
    let row = out.lines().find(|l| l.starts_with("bringup")).unwrap_or_else(|| panic!("no summary row: {out}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[2], "FAIL", "{row}");
    let cycles: u64 = cols[3].parse().unwrap();
    assert!(cycles > 50, "the row shows the cycles the run took, not 0: {row}");
    assert!(err.contains(&format!("check failed at cycle {cycles}")), "the error and the row agree on when: {err}");
    assert!(err.contains("within 50 cycles of the release") && err.contains("--cycles"), "{err}");
}

/// `tpb disasm --filter` speaks GTKWave's process-filter protocol (hex words
/// in, one answer line each); its mistakes and those of `tpb waves gtkw`'s
/// window and markers are errors that name the argument.
#[test]
fn the_disasm_filter_and_the_gtkw_arguments() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["disasm", "--filter", "--core", "q7", "--arch", "sunda"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"0020c0\n00f03d\nzzzzzz\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "memw\nnop.n\nzzzzzz\n");
    let (code, _, err) = tpb(&["disasm", "--filter", "--core", "de212"]);
    assert_eq!(code, 2);
    assert!(err.contains("--filter: the probes hold nx or q7 instructions"), "{err}");
    let (code, _, err) = tpb(&["disasm"]);
    assert_eq!(code, 2, "{err}");
    // Numbers follow the project's one rule (tpb_regmap::space::parse_number): 0b and _ too.
    let img = std::env::temp_dir().join(format!("tpb-nop-{}.bin", std::process::id()));
    std::fs::write(&img, [0x3d, 0xf0]).unwrap();
    let (code, out, err) = tpb(&["disasm", img.to_str().unwrap(), "--base", "0b1_0000"]);
    std::fs::remove_file(&img).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.trim_start().starts_with("10:") && out.contains("nop.n"), "{out}");
    let (code, _, err) = tpb(&["disasm", "x.bin", "--base", "0x1_0000_0000"]);
    assert_eq!(code, 2);
    assert!(err.contains("'0x1_0000_0000' is not a 32-bit number"), "{err}");
    let (code, _, err) = tpb(&["waves", "gtkw", "x.vcd", "--window", "10..5", "--out", "x.gtkw"]);
    assert_eq!(code, 2);
    assert!(err.contains("'10..5': the window is empty"), "{err}");
    let (code, _, err) = tpb(&["waves", "gtkw", "x.vcd", "--marker", "ten:release", "--out", "x.gtkw"]);
    assert_eq!(code, 2);
    assert!(err.contains("'ten' is not a number (decimal, 0x hex or 0b binary"), "{err}");
}

/// One rule for numbers on the command line as in the files (decimal, 0x,
/// 0b, `_`), and a cycle count too large to run is refused before anything
/// runs (it used to wrap a phase's deadline into a false check failure).
#[test]
fn numbers_on_the_command_line_follow_the_one_rule() {
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--cycles", "50_000"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--cycles", "0xc350"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--cycles", "18446744073709551615"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than a run can take (at most 2^48"), "{err}");
    let (code, _, err) = tpb(&["sim", "bringup", "--window", "cycle:300", "--window-cycles", "0", "--vcd", "x.vcd"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--window-cycles 0: a window of no cycles traces nothing"), "{err}");
    let (code, _, err) = tpb(&["sim", "bringup", "--cycles", "12q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'12q' is not a number"), "{err}");
    let (code, _, err) = tpb(&["run", "no-such.S", "--steps", "0b101"]);
    assert!(!err.contains("--steps"), "0b101 parses as a step count: {err}");
    assert_ne!(code, 0);
}

/// Issue 38's silent wrong successes and the panic, each now an error that
/// names what and where, with exit code 2 (input) or 1 (a run that failed).
#[test]
fn no_silent_wrong_success_and_no_panic() {
    let root = tpb_testbench::tools::repo_root();
    let maps = root.join("models/regmap/maps");
    // Another generation's maps under --arch, and the maps root.
    let (code, out, err) = tpb(&["regmap", "--arch", "cayman", "--maps", maps.join("sunda").to_str().unwrap(), "--format", "json"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("the folder is SUNDA's maps, and --arch is CAYMAN"), "{err}");
    let (code, _, err) = tpb(&["regmap", "--arch", "cayman", "--maps", maps.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("this is the maps root (it holds common/); give one generation's folder: --maps"), "{err}");
    // A copy of SUNDA's folder under another name: its arch_id tells.
    let dir = std::env::temp_dir().join(format!("tpb-cli-maps-{}", std::process::id()));
    let copy = dir.join("mine");
    std::fs::create_dir_all(&copy).unwrap();
    std::os::unix::fs::symlink(maps.join("common"), dir.join("common")).unwrap();
    for e in std::fs::read_dir(maps.join("sunda")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
    }
    let (code, _, err) = tpb(&["regmap", "--arch", "mariana", "--maps", copy.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("arch_id = 5, which is SUNDA's; MARIANA is arch_id"), "{err}");
    // tpb disasm on an ELF reads its code sections, not its header.
    let elf = dir.join("p.elf");
    let bin = dir.join("p.bin");
    std::fs::write(dir.join("p.S"), "start:\n movi a2, 7\n j start\n").unwrap();
    let (code, _, err) = tpb(&["asm", dir.join("p.S").to_str().unwrap(), "-o", bin.to_str().unwrap(), "--elf", elf.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = tpb(&["disasm", elf.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("movi\ta2, 7") && !out.contains("(illegal)") && out.lines().filter(|l| l.contains(':')).count() <= 6, "{out}");
    // tpb run: an exception the program does not come back from fails the run.
    std::fs::write(dir.join("ill.S"), " movi a2, 1\n ill\n").unwrap();
    let (code, _, err) = tpb(&["run", dir.join("ill.S").to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("tpb: error: the program took IllegalInstruction at pc 0x3 (ill) and did not exit"), "{err}");
    assert!(!err.contains("Exception {"), "no Rust debug formatting: {err}");
    // tpb run on bytes that are neither an ELF nor text, and on an ELF cut short.
    std::fs::write(dir.join("raw.bin"), b" movi a2, 1\n\xff\xfe").unwrap();
    let (code, _, err) = tpb(&["run", dir.join("raw.bin").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("raw.bin: neither an ELF") && err.contains("byte 12 is not UTF-8 text") && err.contains("tpb disasm"), "{err}");
    std::fs::write(dir.join("cut.elf"), &std::fs::read(&elf).unwrap()[..40]).unwrap();
    let (code, _, err) = tpb(&["run", dir.join("cut.elf").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("tpb: error: ") && err.contains("cut.elf: not an ELF32"), "{err}");
    // A folder given as a trace file: said so (Verilator's writer gives no cause).
    std::fs::create_dir_all(dir.join("waves.vcd")).unwrap();
    let (code, _, err) = tpb(&["sim", "bringup", "--vcd", dir.join("waves.vcd").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot open trace file") && err.contains("waves.vcd: it is a folder"), "{err}");
    // A waveform file that is not there, or empty: an error, not a panic.
    for (file, want) in [(dir.join("none.vcd"), "No such file"), (dir.join("empty.vcd"), "an empty file (0 bytes)")] {
        if file.ends_with("empty.vcd") {
            std::fs::write(&file, "").unwrap();
        }
        for cmd in [vec!["waves", "render", file.to_str().unwrap(), "--out", "/dev/null"], vec!["waves", "gtkw", file.to_str().unwrap(), "--out", "/dev/null"]] {
            let (code, _, err) = tpb(&cmd);
            assert_eq!(code, 2, "{cmd:?}: {err}");
            assert!(err.contains(want) && !err.contains("panicked"), "{cmd:?}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// More of issue 38's cases: inputs the tools used to accept and act on
/// wrongly, or errors that hid the real one.
#[test]
fn mistakes_in_files_and_options_are_named_before_anything_runs() {
    let dir = std::env::temp_dir().join(format!("tpb-cli-mistakes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let head = "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycles = 50000\n";
    // Two kinds' tables (one would be read by nothing); a semaphore past EVT_SEM.
    let p = file("unused.toml", &format!("{head}[bringup]\n[barrier]\narrive_sem = 1\ndepart_sem = 2\nwork = 3\n"));
    let (code, out, err) = tpb(&["sim", &p, "--arch", "cayman"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("kind tables [bringup] and [barrier]: a scenario file is one kind (one of [bringup], [doorbell]"), "{err}");
    let p = file("range.toml", &format!("{head}[barrier]\narrive_sem = 999\ndepart_sem = 2\nwork = 3\n"));
    let (code, out, err) = tpb(&["sim", &p, "--arch", "cayman"]);
    assert_eq!((code, out.as_str()), (2, ""), "nothing ran: {err}");
    assert!(err.contains("[barrier] arrive_sem = 999, depart_sem = 2: two different POOL semaphores, 0..256"), "{err}");
    // A window that never opens: said so, and no empty file left.
    let vcd = dir.join("w.vcd");
    let (code, _, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--vcd", vcd.to_str().unwrap(), "--window", "cycle:99999999"]);
    assert_eq!(code, 2);
    assert!(err.contains("--window cycle:99999999: the trigger never fired in the run's"), "{err}");
    assert!(!vcd.exists(), "an empty VCD was left behind");
    // tpb test: an unwritable --vcd is refused before any run; a value too
    // wide for a whole register and a malformed number are named with their line.
    let example = tpb_testbench::tools::repo_root().join("testbench/examples/evt_sem_windows.toml");
    let (code, _, err) = tpb(&["test", example.to_str().unwrap(), "--vcd", "/proc/no-such-dir"]);
    assert_eq!(code, 2);
    assert!(err.contains("--vcd /proc/no-such-dir"), "{err}");
    let p = file("wide.toml", "name = \"w\"\n[[step]]\nwrite = \"pool.q7.release_run_stall\"\nvalue = 0x1ff\n");
    let (code, out, _) = tpb(&["test", &p, "--arch", "cayman"]);
    assert_eq!(code, 1);
    assert!(out.contains("at line 3:1") && out.contains("0x1ff does not fit pool.q7.release_run_stall (at most 0xff)"), "{out}");
    let p = file("zz.toml", "name = \"z\"\n[[step]]\nwrite = \"pool.q7.release_run_stall\"\nvalue = \"0xzz\"\n");
    let (_, out, _) = tpb(&["test", &p, "--arch", "cayman"]);
    assert!(out.contains("'0xzz' is not a number (decimal, 0x hex or 0b binary, _ separators) nor a constant's name"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C during a traced run: the trace is closed at the cycle reached
/// (a file the readers take whole), the user is told, the exit code is 130.
#[test]
fn ctrl_c_closes_the_trace_and_exits_130() {
    let dir = std::env::temp_dir().join(format!("tpb-cli-sigint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("spin.S"), "spin:\n    j spin\n").unwrap();
    std::fs::write(
        dir.join("spin.toml"),
        "name = \"spin\"\n[firmware.q7]\nasm = \"spin.S\"\n[[step]]\nstpb_init = true\n[[step]]\nwait_halted = \"q7\"\ntimeout = 1_000_000_000\n",
    )
    .unwrap();
    let vcd = dir.join("spin.vcd");
    let child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(&dir)
        .args(["sim", "spin.toml", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Let it trace for a while, then Ctrl-C.
    let t0 = std::time::Instant::now();
    while std::fs::metadata(&vcd).map_or(0, |m| m.len()) < 200_000 && t0.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("tpb: interrupted (Ctrl-C) at cycle ") && err.contains("the trace was closed there"), "{err}");
    let read = tpb_cosim::waves::read(&vcd, &["q7_run_stall".into()]).unwrap_or_else(|e| panic!("the trace is whole: {e}"));
    assert!(!read[0].1.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tpb test FOLDER` runs every `.toml` in it, by name; a folder without
/// one is refused by name, and a whole-file error shows no `:0:0`.
#[test]
fn tpb_test_takes_a_folder_of_files() {
    let root = tpb_testbench::tools::repo_root();
    let dir = root.join("testbench/examples");
    let (code, out, err) = tpb(&["test", dir.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 0, "{err}");
    let n = std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "toml")).count();
    // doorbell_pulse.toml lists SUNDA only: shown as skipped, with why.
    assert!(n >= 4 && out.contains(&format!("{} passed, 0 failed, 1 skipped", n - 1)) && out.contains("the file lists sunda"), "{out}");
    let empty = root.join("target/tpb-tests/empty-folder");
    let _ = std::fs::remove_dir_all(&empty);
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = tpb(&["test", empty.to_str().unwrap()]);
    assert_eq!((code, err.trim().to_string()), (2, format!("tpb: error: {}: folder: no .toml testbench files in this folder", empty.display())));
}

/// Your own TOP_SP firmware (testbench/examples/firmware/top_sp_intr.toml)
/// takes a host-raised interrupt, halts, and is restarted through its
/// start_addr + start_ctrl, on every generation; a wrong restart address
/// fails the run by its marker.
#[test]
fn top_sp_firmware_takes_an_interrupt_and_a_restart() {
    let file = tpb_testbench::tools::repo_root().join("testbench/examples/firmware/top_sp_intr.toml");
    let (code, out, err) = tpb(&["test", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 passed, 0 failed"), "{out}");
    let bad = tpb_testbench::tools::repo_root().join("target/tpb-tests/top_sp_intr_bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::copy(file.with_file_name("top_sp_intr.S"), bad.join("top_sp_intr.S")).unwrap();
    let text = std::fs::read_to_string(&file).unwrap().replace("value = 0x800", "value = 0x200");
    std::fs::write(bad.join("top_sp_intr.toml"), text).unwrap();
    let (code, out, _) = tpb(&["test", bad.join("top_sp_intr.toml").to_str().unwrap(), "--arch", "cayman"]);
    assert_ne!(code, 0, "restarted at main, not at restart: no marker\n{out}");
    assert!(out.contains("top_sp.dram+0x8"), "{out}");
}

/// Long scenario names keep the summary's columns aligned (issue 38: tables).
#[test]
fn the_sim_table_stays_aligned_for_long_names() {
    let (code, out, err) = tpb(&["sim", "allreduce-kangaring", "--arch", "cayman", "--dies", "2"]);
    assert_eq!(code, 0, "{err}");
    let header = out.lines().find(|l| l.starts_with("scenario")).unwrap_or_else(|| panic!("{out}"));
    let row = out.lines().find(|l| l.starts_with("allreduce-kangaring ")).unwrap_or_else(|| panic!("{out}"));
    for (col, val) in [("arch", "cayman"), ("result", "PASS")] {
        assert_eq!(header.find(col), row.find(val), "{col} above {val}:\n{header}\n{row}");
    }
}

/// `--threads`: the dies of a collective on 2 threads run the same cycles
/// as on one; a link without latency says it runs on one thread.
#[test]
fn sim_threads_runs_the_same_and_says_when_it_cannot() {
    // The summary row less its wall time and rate (columns 4 and 5).
    let row = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("allreduce-ring "))
            .map(|l| l.split_whitespace().enumerate().filter(|(i, _)| ![4, 5].contains(i)).map(|(_, w)| w).collect::<Vec<_>>().join(" "))
    };
    let (code, one, err) = tpb(&["sim", "allreduce-ring", "--threads", "1"]);
    assert_eq!(code, 0, "{one}{err}");
    let (code, two, err) = tpb(&["sim", "allreduce-ring", "--threads", "2"]);
    assert_eq!(code, 0, "{two}{err}");
    assert!(row(&one).is_some() && row(&one) == row(&two), "{one}\n{two}");
    let (code, out, err) = tpb(&["sim", "mesh", "--threads", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("link latency 0: the 2 nodes run on one thread, not 2"), "{err}");
    let (code, _, err) = tpb(&["sim", "allreduce-ring", "--threads", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("0 threads: give at least 1"), "{err}");
}

/// A first build on a short disk says so before rustc fails mid-build
/// (`scripts/lib/first-build.sh`; `df` answered by a stand-in on PATH).
#[test]
fn a_first_build_warns_when_the_disk_is_short() {
    let root = tpb_testbench::tools::repo_root();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("first-build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let run = |free_kib: u64| {
        let df = dir.join("bin/df");
        std::fs::write(&df, format!("#!/bin/sh\necho 'Filesystem 1024-blocks Used Available Capacity Mounted'\necho '/dev/x 100 0 {free_kib} 1% /'\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&df, std::fs::Permissions::from_mode(0o755)).unwrap();
        let script = format!(". '{}'; first_build_note test debug", root.join("scripts/lib/first-build.sh").display());
        let path = format!("{}:{}", dir.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        let out = Command::new("bash").arg("-c").arg(script).current_dir(&dir).env("PATH", path).output().unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let short = run(2 * 1024 * 1024);
    assert!(short.contains("test: warning: 2048 MiB free on this disk; a first build needs about 5 GiB."), "{short}");
    let room = run(50 * 1024 * 1024);
    assert!(room.contains("first build on this machine") && !room.contains("warning"), "{room}");
}

/// An address a command computes from a base and an offset never wraps
/// past 2^32 (nor a burst past its memory region): an error names it.
#[test]
fn no_address_wraps_past_32_bits() {
    let dir = std::env::temp_dir().join(format!("tpb-wrap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = |f: &str| dir.join(f).display().to_string();
    std::fs::write(dir.join("r.bin"), [0u8; 32]).unwrap();
    let (code, _, err) = tpb(&["disasm", &p("r.bin"), "--base", "0xfffffff8"]);
    assert_eq!(code, 2);
    assert!(err.contains("the image (--base) at 0xfffffff8 of 32 bytes runs past the 32-bit address space"), "{err}");
    std::fs::write(dir.join("w.S"), "main:\n    movi a2, 1\n    movi a3, 2\n    movi a4, 3\n    movi a5, 4\n    movi a6, 5\n    movi a7, 6\n    j main\n").unwrap();
    let (code, _, err) = tpb(&["asm", &p("w.S"), "-o", &p("w.bin"), "--base", "0xfffffff0"]);
    assert_eq!(code, 2);
    assert!(err.contains("address overflows 32 bits"), "{err}");
    for (steps, want) in [
        ("write = \"mem.q7[7].dram+0x3fffc\"\nwords = [1, 2]", "2 words from mem.q7[7].dram+0x3fffc run past the end of mem.q7[7].dram"),
        ("expect = \"0xfffffff8\"\nwords = [1, 2, 3]", "3 words from 0xfffffff8 (0xfffffff8) run past the 32-bit address space"),
    ] {
        std::fs::write(dir.join("t.toml"), format!("[[step]]\n{steps}\n")).unwrap();
        let (code, out, err) = tpb(&["test", &p("t.toml"), "--arch", "cayman"]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.contains(want), "{out}");
    }
}
