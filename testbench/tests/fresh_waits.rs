//! No stale truth: a wait or a check of a testbench file sees only what
//! happened after the step that started the cores. A halt left from an
//! earlier run, a console line or an exception of that run, or main's old
//! result never satisfy it. Each file below would pass on the earlier
//! behaviour's stale reads and fail here, or the reverse, as said.
//! Also: inputs before the cores run (`stpb_init = { release = false }`,
//! `release`, `[[firmware.q7.data]]`), and the report of a core that never halts.

use std::path::{Path, PathBuf};
use tpb_models::regmap::Arch;
use tpb_testbench::tb::file::{run, Outcome, RunOpts, TbFile};
use tpb_testbench::tools::repo_root;

/// A kernel that adds one to its DRAM word 0 each run, spins a while, and halts.
const COUNTER: &str = r#"
    .include "tpb.inc"
    .include "tpb_macros.inc"
    .org 0
    j main
    .org TPB_RESET_JUMP
main:
    load32 a5, TPB_DRAM_BASE
    l32i a2, a5, 0
    addi a2, a2, 1
    s32i a2, a5, 0
    movi a3, 200
spin:
    addi a3, a3, -1
    bnez a3, spin
    halt 0
"#;

/// A kernel that never halts.
const FOREVER: &str = r#"
    .include "tpb.inc"
    .org 0
    j main
    .org TPB_RESET_JUMP
main:
    movi a2, 0x5a
forever:
    addi a3, a3, 1
    j forever
"#;

fn dir(name: &str) -> PathBuf {
    let d = repo_root().join("target/tpb-tests/fresh-waits").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `steps` (TOML) with the image `asm` on the Q7 cores, run on `arch`.
fn run_file(d: &Path, asm: &str, steps: &str, arch: Arch) -> Outcome {
    std::fs::write(d.join("k.S"), asm).unwrap();
    let path = d.join("t.toml");
    std::fs::write(&path, format!("[firmware.q7]\nasm = \"k.S\"\n{steps}")).unwrap();
    std::env::set_current_dir(repo_root()).unwrap();
    let f = TbFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
    run(&f, arch, &RunOpts::default())
}

const RUN_TWICE: &str = r#"
[[step]]
stpb_init = true
[[step]]
wait_halted = "q7"
[[step]]
expect = "mem.q7[3].dram+0x0"
value = 1
[[step]]
start = "q7"
at = "main"
[[step]]
wait_halted = "q7"              # straight after the start: the first run's halt must not count
[[step]]
expect = "mem.q7[3].dram+0x0"
value = 2
[[step]]
expect = "mem.q7[7].dram+0x0"
value = 2
"#;

#[test]
fn wait_halted_right_after_a_start_waits_for_the_new_run() {
    let d = dir("twice");
    for arch in Arch::ALL {
        let o = run_file(&d, COUNTER, RUN_TWICE, arch);
        assert!(o.result.is_ok(), "{}: {:?}", arch.name(), o.result);
    }
}

/// C: main returns how many times it ran (its count kept where crt0 does not clear it).
const RUNS_C: &str = "#include \"tpb_fw.h\"\nTPB_HOST_INPUT uint32_t runs;\nint main(void)\n{\n    for (volatile int i = 0; i < 300; i++) {\n    }\n    tpb_printf(\"run %u\\n\", (unsigned)(runs + 1));\n    return (int)++runs;\n}\n";

/// `steps` with the C program `c` on the Q7 cores, on CAYMAN.
fn run_c(d: &Path, c: &str, steps: &str) -> Outcome {
    std::fs::write(d.join("k.c"), c).unwrap();
    let path = d.join("t.toml");
    std::fs::write(&path, format!("[firmware.q7]\nc = [\"k.c\"]\n{steps}")).unwrap();
    std::env::set_current_dir(repo_root()).unwrap();
    run(&TbFile::load(&path).unwrap_or_else(|e| panic!("{e}")), Arch::Cayman, &RunOpts::default())
}

const FIRST_RUN: &str = "[[step]]\nstpb_init = true\n[[step]]\nwait_halted = \"q7\"\n[[step]]\nexpect_exit = \"q7[3]\"\nvalue = 1\n[[step]]\nstart = \"q7\"\nat = \"_start\"\n";

#[test]
fn main_s_old_result_and_old_console_lines_do_not_count_after_a_start() {
    let d = dir("exit");
    // Without a wait, the first run's result (1) would pass: refused instead.
    let o = run_c(&d, RUNS_C, &format!("{FIRST_RUN}[[step]]\nexpect_exit = \"q7[3]\"\nvalue = 1\n"));
    let f = o.result.expect_err("main's result of the earlier run");
    assert!(f.error.contains("q7[3]: main has not returned since the core was last started"), "{}", f.error);
    // After the wait, the new run's result and its own line.
    let then = "[[step]]\nwait_halted = \"q7\"\n[[step]]\nexpect_exit = \"q7[3]\"\nvalue = 2\n[[step]]\nexpect_console = \"q7[3]\"\ncontains = \"run 2\"\n";
    let o = run_c(&d, RUNS_C, &format!("{FIRST_RUN}{then}"));
    assert!(o.result.is_ok(), "{:?}", o.result);
    // The first run's line is not this run's.
    let old = "[[step]]\nwait_halted = \"q7\"\n[[step]]\nexpect_console = \"q7[3]\"\ncontains = \"run 1\"\n";
    let f = run_c(&d, RUNS_C, &format!("{FIRST_RUN}{old}")).result.expect_err("a line of the earlier run");
    assert!(f.error.contains("no console line contains \"run 1\"") && f.error.contains("\"run 2\""), "{}", f.error);
}

#[test]
fn a_released_core_that_was_halted_is_not_a_new_halt() {
    // Release a halted core without restarting it: it stays halted from
    // before, and a wait reports that instead of passing.
    let steps = r#"
[[step]]
stpb_init = true
[[step]]
wait_halted = "q7"
[[step]]
write = "pool.q7.release_run_stall"
value = 0xff
[[step]]
wait = 20
[[step]]
write = "pool.q7.release_run_stall"
value = 0
[[step]]
wait_halted = "q7[2]"
timeout = 3000
"#;
    let o = run_file(&dir("released"), COUNTER, steps, Arch::Cayman);
    let f = o.result.expect_err("the old halt must not satisfy the wait");
    assert!(f.error.contains("q7[2] is halted since cycle") && f.error.contains("a halt from before the start does not count"), "{}", f.error);
}

#[test]
fn a_core_that_never_halts_is_reported_like_a_fault() {
    let steps = "[[step]]\nstpb_init = true\n[[step]]\nwait_halted = \"q7[4]\"\ntimeout = 3000\n";
    let o = run_file(&dir("hang"), FOREVER, steps, Arch::Cayman);
    let f = o.result.expect_err("a core that never halts");
    let e = &f.error;
    assert!(e.contains("q7[4] still running at cycle"), "{e}");
    assert!(e.contains("(forever") || e.contains("(main+"), "the PC as symbol+offset: {e}");
    assert!(e.contains("addi") || e.contains("j "), "the instruction there: {e}");
    assert!(e.contains("registers:") && e.contains("a2  0x0000005a"), "the registers: {e}");
    assert!(e.contains("last 16 instructions retired"), "the history: {e}");
}

#[test]
fn inputs_go_in_before_the_cores_run_and_release_lets_them_go() {
    // Held: nothing runs, the host writes core 5's word, then releases.
    let steps = r#"
[[step]]
stpb_init = { release = false }
[[step]]
wait = 3000
[[step]]
expect = "pool.q7.release_run_stall"
value = 0xff
[[step]]
expect = "mem.q7[5].dram+0x0"
value = 0                        # nothing ran
[[step]]
write = "mem.q7[5].dram+0x0"
value = 41                       # core 5's input
[[step]]
release = "q7"
[[step]]
wait_halted = "q7"
[[step]]
expect = "mem.q7[5].dram+0x0"
value = 42
[[step]]
expect = "mem.q7[4].dram+0x0"
value = 1
"#;
    for arch in Arch::ALL {
        let o = run_file(&dir("held"), COUNTER, steps, arch);
        assert!(o.result.is_ok(), "{}: {:?}", arch.name(), o.result);
    }
    // The same with the data table, in one stpb_init step (the HAL's order).
    let data = "[[firmware.q7.data]]\ncore = 5\nat = \"dram+0x0\"\nwords = [41]\n[[step]]\nstpb_init = true\n[[step]]\nwait_halted = \"q7\"\n[[step]]\nexpect = \"mem.q7[5].dram+0x0\"\nvalue = 42\n";
    let o = run_file(&dir("data"), COUNTER, data, Arch::Cayman);
    assert!(o.result.is_ok(), "{:?}", o.result);
}

#[test]
fn bad_data_tables_fail_before_anything_is_written() {
    for (table, want) in
        [("at = \"no_such\"\nwords = [1]", "the q7 image has no symbol 'no_such'"), ("at = \"dram+0x1ffc\"\nwords = [1, 2, 3, 4, 5, 6, 7, 8, 9]", "run past the core's")]
    {
        let steps = format!("[[firmware.q7.data]]\ncore = 1\n{table}\n[[step]]\nstpb_init = true\n");
        let big = table.contains("0x1ffc");
        let steps = if big { steps.replace("0x1ffc", &format!("{:#x}", dram_bytes() - 4)) } else { steps };
        let o = run_file(&dir("bad-data"), COUNTER, &steps, Arch::Cayman);
        let f = o.result.expect_err(want);
        assert!(f.error.contains(want) && f.error.contains("[[firmware.q7.data]] at line"), "{}", f.error);
        assert!(o.cycles < 10, "nothing was installed ({} cycles)", o.cycles);
    }
}

fn dram_bytes() -> u64 {
    tpb_models::regmap::builtin(Arch::Cayman).unwrap().params.q7.pooling.dram_size
}

#[test]
fn an_unknown_key_in_a_step_names_that_steps_own_keys() {
    let d = dir("keys");
    std::fs::write(d.join("k.S"), COUNTER).unwrap();
    let src = "[firmware.q7]\nasm = \"k.S\"\n[[step]]\nstpb_init = true\nrelase = false\n";
    let e = TbFile::parse(&d.join("t.toml"), src).unwrap_err().to_string();
    assert!(e.contains(":5:1: relase: unknown key in a 'stpb_init' step: it takes dma, release (did you mean 'release'?)"), "{e}");
    // release = false beside stpb_init is its option, not a second verb.
    let src = "[firmware.q7]\nasm = \"k.S\"\n[[step]]\nstpb_init = true\nrelease = false\n";
    TbFile::parse(&d.join("t.toml"), src).unwrap_or_else(|e| panic!("{e}"));
    let src = "[firmware.q7]\nasm = \"k.S\"\n[[step]]\nwait_halted = \"q7\"\nvalue = 3\n";
    let e = TbFile::parse(&d.join("t.toml"), src).unwrap_err().to_string();
    assert!(e.contains("value: not a key of a 'wait_halted' step: it takes timeout"), "{e}");
}
