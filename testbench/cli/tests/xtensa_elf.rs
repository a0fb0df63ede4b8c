//! ELF images from another toolchain: a program built with Debian's
//! `xtensa-lx106-elf-as`/`-ld` loads into our core and runs to the same
//! output as under QEMU.

use std::process::Command;
use tpb_models::xtensa::elf;
use tpb_testbench::{qemu, tools};

const HELLO: &str = "
    .text
    .align 4
    j _start
    .align 4
msgp: .word msg
    .align 4
    .global _start
_start:
    movi a2, 4
    movi a3, 1
    l32r a4, msgp
    movi a5, 6
    simcall
    movi a2, 1
    movi a3, 7
    simcall
    .align 4
msg: .ascii \"tpbsim\"
";

#[test]
fn binutils_built_elf_runs_like_qemu() {
    let dir = std::env::temp_dir().join(format!("tpb-elf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hello.S"), HELLO).unwrap();
    std::fs::write(dir.join("link.ld"), "SECTIONS { . = 0x50000000; .text : { *(.literal) *(.text) } }\n").unwrap();
    let as_ = tools::require("xtensa-lx106-elf-as").unwrap_or_else(|e| panic!("{e}"));
    let ld = tools::require("xtensa-lx106-elf-ld").unwrap_or_else(|e| panic!("{e}"));
    assert!(Command::new(as_).current_dir(&dir).args(["hello.S", "-o", "hello.o"]).status().unwrap().success());
    assert!(Command::new(ld).current_dir(&dir).args(["-T", "link.ld", "hello.o", "-o", "hello.elf"]).status().unwrap().success());
    let bytes = std::fs::read(dir.join("hello.elf")).unwrap();
    let img = elf::parse(&bytes).unwrap();
    assert_eq!(img.entry, 0x5000_0000);
    let (ours, _, _) = qemu::run_ours(&img, 1000).unwrap();
    assert_eq!((ours.status, ours.stdout.as_slice()), (7, &b"tpbsim"[..]));
    let theirs = qemu::run_qemu(&dir.join("hello.elf"), true, std::time::Duration::from_secs(20)).unwrap();
    assert_eq!(theirs, ours);
    // `tpb run --core de212` runs it as QEMU does: the program's output on
    // stdout, its exit status as the process's, the final state on stderr.
    for quiet in [true, false] {
        let mut args = vec!["run", "hello.elf", "--core", "de212"];
        if quiet {
            args.push("--quiet");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_tpb")).current_dir(&dir).args(&args).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(theirs.status as i32), "{stderr}");
        assert!(stderr.contains("stopped at exit(7)"), "{stderr}");
        if quiet {
            assert_eq!(out.stdout, theirs.stdout, "only the program's output: {stdout}");
        } else {
            assert!(stdout.starts_with("50000000: j 0x50000008") && stdout.contains(": simcall") && stdout.ends_with("\ntpbsim"), "the trace, then the program's output: {stdout}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_images_are_refused_whole() {
    assert!(matches!(elf::parse(b"not an elf"), Err(elf::ElfError::Parse(_))));
    // An x86 ELF is not Xtensa.
    let mut img = elf::Image { entry: 0x5000_0000, segments: vec![elf::Segment { addr: 0x5000_0000, data: vec![0; 8], mem_size: 8 }] }.write();
    img[18] = 3; // e_machine = EM_386
    img[19] = 0;
    assert_eq!(elf::parse(&img).unwrap_err(), elf::ElfError::Machine(3));
    // A segment outside the memory map changes nothing.
    let cfg = tpb_models::xtensa::CoreConfig::qemu_de212();
    let mut mem = tpb_models::xtensa::MemorySpace::from_map(&cfg.memory).unwrap();
    let bad = elf::Image {
        entry: 0,
        segments: vec![elf::Segment { addr: 0x5000_0000, data: vec![0xaa; 4], mem_size: 4 }, elf::Segment { addr: 0x7000_0000, data: vec![1; 4], mem_size: 4 }],
    };
    let e = bad.load(&mut mem).unwrap_err();
    assert!(e.to_string().contains("0x70000000"), "{e}");
    assert_eq!(mem.read_bytes(0x5000_0000, 4).unwrap(), vec![0; 4], "first segment not written");
}
