//! Benchmark: instructions per second of our Xtensa core against
//! `qemu-system-xtensa` on the same program (a windowed call per outer
//! iteration, a zero-overhead inner loop of loads, ALU ops and stores).
//! One table from one run; each figure is the median of 3 runs with the
//! spread of the 3 (max / min − 1).
//!
//! Ours runs two ways: `Core::run` (pre-decoded code pages: stand-alone
//! use) and `Core::step` (one instruction per call, fetched through the
//! bus: the co-simulation's contract).
//!
//! `cargo bench -p tpb-testbench --bench xtensa`
//!
//! QEMU's time includes its start-up; to keep that out of its rate, QEMU
//! runs the program with a 100× larger iteration count (the only byte that
//! differs) and its start-up (an immediate-exit run) is subtracted.

use std::time::{Duration, Instant};
use tpb_models::xtensa::asm::assemble;
use tpb_models::xtensa::elf::{Image, Segment};
use tpb_models::xtensa::CoreConfig;
use tpb_models::xtensa::Step;
use tpb_testbench::qemu::{load_de212, run_ours_fast, run_qemu};

const CODE: u32 = 0x5000_0000;
const DATA: u32 = 0x6000_1000;

fn program(outer: u32) -> Image {
    let src = format!(
        "
        .org {CODE:#x}
        j start
        .align 4
    count: .word {outer}
    data:  .word {DATA:#x}
    sp:    .word 0x60008000
    start:
        movi a2, 1
        wsr.windowstart a2
        movi a2, 4
        slli a2, a2, 16
        wsr.ps a2
        rsync
        l32r a1, sp
        l32r a3, count           # a0..a3 are not shared with a call4 callee
    outer:
        movi a6, 10
        call4 work
        addi a3, a3, -1
        bnez a3, outer
        movi a2, 1
        movi a3, 0
        simcall
        .align 4
    work:
        entry a1, 32
        movi a3, 0
        l32r a4, data
        loop a2, done
        l32i a5, a4, 0
        add a3, a3, a5
        xor a5, a5, a3
        slli a5, a5, 1
        s32i a5, a4, 0
        addi a4, a4, 4
    done:
        mov.n a2, a3
        retw
    "
    );
    let p = assemble(&src, CODE, &CoreConfig::qemu_de212().options).expect("benchmark program assembles");
    Image { entry: CODE, segments: vec![Segment { addr: CODE, mem_size: p.bytes.len() as u32, data: p.bytes }] }
}

/// The median and the spread (max / min - 1) of `v`.
fn median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[v.len() - 1] / v[0] - 1.0)
}

fn main() {
    let outer = 300_000;
    let img = program(outer);
    // Our core, both ways: instructions retired / wall time.
    let mut fast = Vec::new();
    let mut stepped = Vec::new();
    let mut instrs = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let (o, core, _) = run_ours_fast(&img, 100 * outer as u64 * 100).expect("our run");
        let dt = t.elapsed().as_secs_f64();
        assert_eq!(o.status, 0);
        instrs = core.retired();
        fast.push(instrs as f64 / dt);
        let (mut core, mut mem) = load_de212(&img).expect("load");
        let t = Instant::now();
        while !matches!(core.step(&mut mem), Step::Exit(_)) {}
        stepped.push(core.retired() as f64 / t.elapsed().as_secs_f64());
        assert_eq!(core.retired(), instrs, "step and run retire the same instructions");
    }
    let per_outer = instrs as f64 / outer as f64;
    let dir = std::env::temp_dir().join(format!("tpb-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, img: &Image| {
        let p = dir.join(name);
        std::fs::write(&p, img.write()).unwrap();
        p
    };
    let empty = write("empty.elf", &program(1));
    let long = write("long.elf", &program(outer * 100));
    let same = write("same.elf", &program(outer));
    let limit = Duration::from_secs(600);
    let time = |p: &std::path::Path, ss: bool| {
        let t = Instant::now();
        let o = run_qemu(p, ss, limit).expect("qemu run");
        assert_eq!(o.status, 0);
        t.elapsed().as_secs_f64()
    };
    let (startup, _) = median((0..3).map(|_| time(&empty, false)).collect());
    let qemu_tb = median((0..3).map(|_| (per_outer * (outer * 100) as f64) / (time(&long, false) - startup).max(1e-9)).collect());
    let (startup_ss, _) = median((0..3).map(|_| time(&empty, true)).collect());
    let qemu_ss = median((0..3).map(|_| instrs as f64 / (time(&same, true) - startup_ss).max(1e-9)).collect());
    let fast = median(fast);
    let stepped = median(stepped);
    println!("Xtensa core benchmark: {instrs} instructions per run of ours ({per_outer:.0} per outer iteration), median of 3 ± spread");
    println!("| engine | MIPS | ours (run) is |");
    println!("|---|---:|---:|");
    let row = |name: &str, (m, sp): (f64, f64)| println!("| {name} | {:.1} ±{:.0}% | {:.2}× |", m / 1e6, sp * 100.0, fast.0 / m);
    row("tpbsim core, `Core::run` (pre-decoded pages)", fast);
    row("tpbsim core, `Core::step` (the co-simulation's path)", stepped);
    row("qemu-system-xtensa 7.2, TCG blocks", qemu_tb);
    row("qemu-system-xtensa 7.2, -singlestep (oracle mode)", qemu_ss);
    println!("(QEMU start-up {:.0} ms block mode / {:.0} ms single-step, subtracted)", startup * 1e3, startup_ss * 1e3);
    std::fs::remove_dir_all(&dir).ok();
}
