//! gcc's output against the execution oracle: a C program built by Debian's
//! gcc-xtensa-lx106 with the runtime `tpb cc` links (`tpb_rt.c`: division,
//! memset/memcpy, `tpb_printf` over SIMCALL write) runs on
//! `qemu-system-xtensa -M sim -cpu de212` and on our core with the same
//! memory map (stepped and pre-decoded); the text it prints and its exit
//! status must be the same. The start-up is the one `tpb cc` writes
//! (`crt0.S`, a Q7 core's, ending in SIMCALL exit under
//! `-DTPB_EXIT_SIMCALL`); the linker script for that map is in `tests/c/`.

use std::path::{Path, PathBuf};
use std::time::Duration;
use tpb_cosim::cfw::{self, CoreKind, CFLAGS, DEFAULT_OPT, GCC, LD};
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::qemu;
use tpb_testbench::tools::{repo_root, require, run};

fn tool(tool: &str, args: &[String]) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(tool, &a).unwrap_or_else(|e| panic!("{e}"));
    assert!(o.status.success(), "{tool} {}\n{}", a.join(" "), String::from_utf8_lossy(&o.stderr));
}

/// Build `src` (in `tests/c/`) for the de212 map; the ELF's path.
fn build(src: &str) -> PathBuf {
    require(GCC).unwrap_or_else(|e| panic!("{e}"));
    let c = repo_root().join("testbench/tests/c");
    let dir = repo_root().join("target/qemu-oracle/c").join(Path::new(src).file_stem().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    cfw::write_support(&builtin(Arch::Cayman).unwrap(), CoreKind::Q7, &dir).unwrap_or_else(|e| panic!("{e}"));
    let mut objs = Vec::new();
    for (i, s) in [dir.join("crt0.S"), dir.join("tpb_rt.c"), c.join(src)].iter().enumerate() {
        let obj = dir.join(format!("{i}.o"));
        let mut args: Vec<String> = CFLAGS.iter().map(|s| s.to_string()).collect();
        args.extend([DEFAULT_OPT.into(), "-DTPB_EXIT_SIMCALL=1".into(), "-I".into(), dir.display().to_string()]);
        args.extend(["-c".into(), s.display().to_string(), "-o".into(), obj.display().to_string()]);
        tool(GCC, &args);
        objs.push(obj.display().to_string());
    }
    let libgcc = run(GCC, &["-print-libgcc-file-name"]).unwrap();
    let elf = dir.join("prog.elf");
    let mut args = vec!["--gc-sections".to_string(), "-T".into(), c.join("qemu.ld").display().to_string()];
    args.extend(objs);
    args.extend([String::from_utf8_lossy(&libgcc.stdout).trim().to_string(), "-o".into(), elf.display().to_string()]);
    tool(LD, &args);
    elf
}

#[test]
fn a_gcc_built_c_program_prints_and_exits_as_on_qemu() {
    let elf = build("printf_mix.c");
    let img = tpb_models::xtensa::elf::parse(&std::fs::read(&elf).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let (ours, retired, _) = qemu::run_ours(&img, 5_000_000).unwrap_or_else(|e| panic!("{e}"));
    let (fast, _, _) = qemu::run_ours_fast(&img, 5_000_000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fast, ours, "Core::run and Core::step differ");
    let oracle = qemu::run_qemu(&elf, true, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&ours.stdout).into_owned();
    assert_eq!(text, String::from_utf8_lossy(&oracle.stdout), "what the program printed differs from QEMU's run");
    assert_eq!(ours.status, oracle.status, "exit status");
    // The program did the work it was meant to: 32 table lines, the struct line, "done".
    assert_eq!(text.lines().count(), 34, "{text}");
    assert!(text.contains("point (33, 77) tpm, sqrt(") && text.ends_with("done\n"), "{text}");
    println!("printf_mix.c: {retired} instructions, {} bytes of output, exit {}, the same on QEMU", ours.stdout.len(), ours.status);
}
