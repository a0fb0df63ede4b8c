//! The testbench machinery itself (issue 8): the `Tb` API on both engines,
//! testbench files and their errors, and `tpb test` as a user runs it
//! (table, exit code, VCD of a failing run, JUnit XML parsed back).

use std::path::{Path, PathBuf};
use tpb_models::regmap::Arch;
use tpb_testbench::tb::file::{self, RunOpts, TbFile};
use tpb_testbench::tb::{EngineKind, Tb, TbError};
use tpb_testbench::tools::repo_root;

fn tpb(args: &[&str]) -> (i32, String, String) {
    tpb_testbench::tools::run_in_root(env!("CARGO_BIN_EXE_tpb"), args)
}

fn scratch(name: &str) -> PathBuf {
    let d = repo_root().join("target/tb-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The run-stall release as API calls; returns (cycle counts, run_state words) to compare engines.
fn run_stall_sequence(engine: EngineKind) -> Vec<u64> {
    let mut tb = Tb::new(Arch::Cayman, engine).unwrap();
    let mut seen = vec![tb.read("pool.q7.release_run_stall").unwrap(), tb.read("port.q7_run_stall").unwrap()];
    tb.write("pool.q7.release_run_stall.stall", 0xf7).unwrap();
    seen.push(tb.poll("pool.q7.run_state[3].running", 1, 50).unwrap());
    seen.push(tb.read("port.q7_run_stall").unwrap());
    seen.push(tb.read("pool.q7.run_state_2").unwrap());
    seen.push(tb.read("pool.q7.run_state_3").unwrap());
    seen.push(tb.cycle());
    seen
}

#[test]
fn run_stall_release_through_the_api_agrees_on_both_engines() {
    let vl = run_stall_sequence(EngineKind::Verilator);
    assert_eq!(vl[0], 0xff, "release_run_stall resets to all stalled");
    assert_eq!(vl[1], 0xff, "port follows the register");
    assert_eq!(vl[3], 0xf7, "core 3 released");
    assert_eq!(vl[4] & 1, 0, "core 2 not running");
    assert_eq!(vl[5] & 1, 1, "core 3 running");
    assert_eq!(run_stall_sequence(EngineKind::RustHdl), vl, "rust-hdl engine disagrees with Verilator");
}

#[test]
fn a_mismatch_names_register_fields_expected_got_and_cycle() {
    let mut tb = Tb::new(Arch::Cayman, EngineKind::Verilator).unwrap();
    let e = tb.expect("pool.q7.release_run_stall", 0x7f).unwrap_err();
    let TbError::Mismatch { cycle, .. } = &e else { panic!("{e:?}") };
    assert_eq!(*cycle, tb.cycle());
    let msg = e.to_string();
    assert!(msg.starts_with("pool.q7.release_run_stall: expected 0x7f, got 0xff at cycle "), "{msg}");
    assert!(msg.contains("(fields: stall expected 0x7f got 0xff)"), "{msg}");
    let e = tb.expect("pool.q7.run_state[3].running", 1).unwrap_err().to_string();
    assert!(e.starts_with("pool.q7.run_state_3.running: expected 0x1, got 0x0"), "{e}");
    let e = tb.poll("pool.q7.run_state[3].running", 1, 20).unwrap_err().to_string();
    assert!(e.contains("still 0x0 after") && e.contains("polling for 0x1"), "{e}");
}

#[test]
fn names_bus_errors_and_values_are_checked() {
    let mut tb = Tb::new(Arch::Cayman, EngineKind::Verilator).unwrap();
    let e = tb.write("pool.q7.relase_run_stall", 0).unwrap_err().to_string();
    assert!(e.contains("did you mean 'pool.q7.release_run_stall'"), "{e}");
    let e = tb.write("pool.q7.release_run_stall.stall", 0x100).unwrap_err().to_string();
    assert!(e.contains("does not fit (largest 0xff)"), "{e}");
    // Bus errors as values: a misaligned register address and an unmapped one.
    let a = tb.resolve("pool.q7.release_run_stall").unwrap().addr().unwrap();
    assert!(tb.write_addr(a + 2, 0).unwrap().err);
    tb.expect_bus_error(&format!("{:#x}", a + 2), true).unwrap();
    let e = tb.expect_bus_error("pool.q7.release_run_stall", false).unwrap_err().to_string();
    assert!(e.contains("expected a bus error on read of pool.q7.release_run_stall"), "{e}");
    // The failed write changed nothing.
    tb.expect("pool.q7.release_run_stall", 0xff).unwrap();
    let e = tb.write("port.q7_run_stall", 0).unwrap_err().to_string();
    assert!(e.contains("sampled, not accessed"), "{e}");
}

#[test]
fn a_sunda_doorbell_pulses_its_port_for_one_cycle_inside_a_trace_window() {
    let mut tb = Tb::new(Arch::Sunda, EngineKind::Verilator).unwrap();
    let dir = scratch("doorbell");
    let vcd = dir.join("host_trigger.vcd");
    tb.trace_start(&vcd).unwrap();
    let at = tb.doorbell("top_sp.top_sp.host_trigger", 1).unwrap();
    assert_eq!(tb.trace_stop().unwrap(), Some(vcd.clone()));
    assert!(at.is_some(), "the pulse was seen");
    assert!(std::fs::metadata(&vcd).unwrap().len() > 1000);
    let e = tb.doorbell("top_sp.evt_sem.set[3]", 1).unwrap_err().to_string();
    assert!(e.contains("not a doorbell"), "{e}");
}

#[test]
fn every_example_passes_on_every_generation_it_lists() {
    let dir = repo_root().join("testbench/examples");
    let opts = RunOpts { trace_dir: Some(scratch("examples")), ..RunOpts::default() };
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let f = TbFile::load(&p).unwrap_or_else(|e| panic!("{e}"));
        for a in &f.archs {
            let o = file::run(&f, *a, &opts);
            if let Err(fail) = &o.result {
                panic!("{} [{}] line {}: {}: {}", p.display(), a.name(), fail.loc.line, fail.step, fail.error);
            }
            assert!(o.steps >= 5, "{}: only {} steps", p.display(), o.steps);
            n += 1;
        }
    }
    assert!(n >= 4 + 3, "{n} example runs");
    // The doorbell example's trace window went where it was told.
    assert!(repo_root().join("target/tb-tests/examples/host_trigger.vcd").exists());
}

#[test]
fn file_errors_name_file_line_column_and_key() {
    let p = Path::new("t.toml");
    let e = TbFile::parse(p, "[[step]]\nwrite = \"pool.q7.release_run_stall\"\nvaleu = 0\n").unwrap_err().to_string();
    assert_eq!(e.split(": unknown key").next().unwrap(), "t.toml:3:1: valeu", "{e}");
    assert!(e.contains("did you mean 'value'"), "{e}");
    let e = TbFile::parse(p, "[[step]]\nwrite = \"x\"\nexpect = \"y\"\nvalue = 1\n").unwrap_err().to_string();
    assert!(e.starts_with("t.toml:3:1: expect: one verb per step"), "{e}");
    let e = TbFile::parse(p, "[[step]]\nwait = -3\n").unwrap_err().to_string();
    assert!(e.starts_with("t.toml:2:1: wait:"), "{e}");
    let e = TbFile::parse(p, "[[step]\nwait = 3\n").unwrap_err().to_string();
    assert!(e.starts_with("t.toml:1:") && e.contains("syntax"), "{e}");
    let e = TbFile::parse(p, "archs = [\"cayman\"]\n[sunda]\nstep = []\n").unwrap_err().to_string();
    assert!(e.starts_with("t.toml:2:2: sunda: section for sunda but archs does not list it"), "{e}");
    // Names and constants are checked against the map before anything runs.
    let f = TbFile::parse(p, "archs = [\"cayman\"]\n[[step]]\nwrite = \"pool.q7.relase_run_stall\"\nvalue = \"NOPE\"\n").unwrap();
    let names = tpb_testbench::tb::names::Names::new(&tpb_models::regmap::builtin(Arch::Cayman).unwrap());
    let e = f.check(&names).unwrap_err().to_string();
    assert!(e.starts_with("t.toml:3:1: write: no constant 'NOPE'"), "{e}");
}

#[test]
fn per_generation_sections_add_constants_and_steps() {
    let src =
        "[consts]\nV = 1\n[[step]]\nwrite = \"top_sp.evt_sem.set[1]\"\nvalue = \"V\"\n[sunda.consts]\nV = 2\n[[sunda.step]]\nexpect = \"top_sp.evt_sem.read[1]\"\nvalue = 2\n";
    let f = TbFile::parse(Path::new("g.toml"), src).unwrap();
    let (steps, consts) = f.for_arch(Arch::Sunda);
    assert_eq!((steps.len(), consts["V"]), (2, 2));
    let (steps, consts) = f.for_arch(Arch::Cayman);
    assert_eq!((steps.len(), consts["V"]), (1, 1));
    let o = file::run(&f, Arch::Sunda, &RunOpts::default());
    assert!(o.result.is_ok(), "{:?}", o.result);
}

#[test]
fn tpb_test_reports_a_failure_with_its_step_writes_its_vcd_and_junit() {
    let dir = scratch("cli-fail");
    let junit = dir.join("junit.xml");
    let (code, out, err) = tpb(&[
        "test",
        "testbench/tests/data/failing.toml",
        "testbench/examples/evt_sem_windows.toml",
        "--arch",
        "cayman",
        "--vcd",
        dir.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("deliberately-failing") && out.contains("FAIL") && out.contains("evt-sem-windows"), "{out}");
    assert!(out.contains("1 passed, 1 failed, 0 skipped"), "{out}");
    assert!(out.contains("at line 14:1, cycle "), "{out}");
    assert!(out.contains("step: expect = \"pool.q7.release_run_stall\""), "{out}");
    assert!(out.contains("pool.q7.release_run_stall: expected 0x7f, got 0xff at cycle"), "{out}");
    // The failing run's VCD is kept, the passing one's is not.
    assert!(dir.join("deliberately-failing.cayman.vcd").exists(), "{out}");
    assert!(!dir.join("evt-sem-windows.cayman.vcd").exists());
    check_junit(&std::fs::read_to_string(&junit).unwrap(), 2, 1, 0);
}

/// Parse JUnit XML back and check the structure the common schema requires.
fn check_junit(xml: &str, tests: usize, failures: usize, skipped: usize) {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_str(xml);
    let (mut stack, mut cases, mut fails, mut skips, mut suites) = (Vec::<String>::new(), 0, 0, 0, 0);
    loop {
        match r.read_event().unwrap() {
            ev @ (Event::Start(_) | Event::Empty(_)) => {
                let (e, empty) = match &ev {
                    Event::Start(e) => (e.clone(), false),
                    Event::Empty(e) => (e.clone(), true),
                    _ => unreachable!(),
                };
                let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                let attrs: Vec<String> = e.attributes().map(|a| String::from_utf8(a.unwrap().key.as_ref().to_vec()).unwrap()).collect();
                let need = |keys: &[&str]| {
                    for k in keys {
                        assert!(attrs.iter().any(|a| a == k), "<{name}> lacks {k}: {xml}");
                    }
                };
                let parent = stack.last().map(String::as_str);
                match name.as_str() {
                    "testsuites" => assert!(parent.is_none()),
                    "testsuite" => {
                        assert_eq!(parent, Some("testsuites"));
                        need(&["name", "tests", "failures", "errors", "skipped", "time"]);
                        suites += 1;
                    }
                    "testcase" => {
                        assert_eq!(parent, Some("testsuite"));
                        need(&["name", "classname", "time"]);
                        cases += 1;
                    }
                    "failure" => {
                        assert_eq!(parent, Some("testcase"));
                        need(&["message", "type"]);
                        fails += 1;
                    }
                    "skipped" => {
                        assert_eq!(parent, Some("testcase"));
                        skips += 1;
                    }
                    "system-out" => assert_eq!(parent, Some("testcase")),
                    other => panic!("unexpected element <{other}>"),
                }
                if !empty {
                    stack.push(name);
                }
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(suites >= 1);
    assert_eq!((cases, fails, skips), (tests, failures, skipped), "{xml}");
}

/// A run whose trace file the disk refuses (`/dev/full` behind the VCD's
/// name) fails at the end of the run with the write's error and its cycle,
/// and `tpb test` exits 2, as `tpb sim` does: no check failed, the command
/// could not do its job.
#[test]
fn a_trace_the_disk_refuses_fails_the_run_and_tpb_test_exits_2() {
    let dir = scratch("full-disk");
    let file = dir.join("full.toml");
    std::fs::write(&file, "name = \"full-disk\"\n[[step]]\nwait = 50\n").unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join("full-disk.cayman.vcd")).unwrap();
    let (code, out, err) = tpb(&["test", file.to_str().unwrap(), "--arch", "cayman", "--vcd", dir.to_str().unwrap(), "--vcd-all"]);
    assert_eq!(code, 2, "{out}{err}");
    for want in ["FAIL full-disk [cayman]", "at the end of the run, cycle 312", "step: trace", "full-disk.cayman.vcd failed: No space left on device"] {
        assert!(out.contains(want), "{want}: {out}");
    }
    let (code, out, err) = tpb(&["test", file.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 0, "untraced, the same file passes: {out}{err}");
}

#[test]
fn tpb_test_refuses_a_typo_and_a_bad_key_before_running() {
    let (code, out, err) = tpb(&["test", "testbench/tests/data/typo.toml"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("did you mean 'pool.q7.release_run_stall'"), "{out}");
    let (code, _, err) = tpb(&["test", "testbench/tests/data/bad_key.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("testbench/tests/data/bad_key.toml:5:1: valeu: unknown key in a 'write' step: it takes value, words, fill (did you mean 'value'?)"), "{err}");
    let (code, _, err) = tpb(&["test"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to run"), "{err}");
}

#[test]
fn generated_csr_checks_pass_on_every_generation() {
    for arch in ["sunda", "cayman", "mariana"] {
        let (code, out, err) = tpb(&["test", "--generated", "--arch", arch]);
        assert_eq!(code, 0, "{out}{err}");
        let line = out.lines().find(|l| l.starts_with("generated CSR checks")).unwrap_or_else(|| panic!("{out}"));
        println!("{line}");
        assert!(line.contains(" 0 failed"), "{line}");
        let num = |key: &str| -> usize {
            let i = line.find(key).unwrap();
            line[..i].trim_end().rsplit([' ', ',']).next().unwrap().parse().unwrap()
        };
        assert!(num(" registers") >= 100 && num(" checks;") >= 1000, "{line}");
    }
}

/// docs/testbenches.md's "Write your first testbench" works as written: the
/// file it shows passes with the table it shows, and the broken version
/// fails with the message it shows.
#[test]
fn the_readme_first_testbench_works_as_written() {
    let readme = std::fs::read_to_string(repo_root().join("docs/testbenches.md")).unwrap();
    let at = readme.find("1. Save this as `my_first.toml`:").expect("docs/testbenches.md has the first-testbench steps");
    let start = readme[at..].find("```toml\n").unwrap() + at + "```toml\n".len();
    let end = readme[start..].find("   ```").unwrap() + start;
    let toml: String = readme[start..end].lines().map(|l| format!("{}\n", l.get(3..).unwrap_or(""))).collect();
    let dir = scratch("readme-first");
    let file = dir.join("my_first.toml");
    std::fs::write(&file, &toml).unwrap();
    let (code, out, err) = tpb(&["test", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let pass_row = out.lines().find(|l| l.starts_with("my-first")).unwrap();
    let shown = readme.lines().find(|l| l.trim_start().starts_with("my-first   cayman")).unwrap().trim();
    // Same row but for the wall time.
    assert_eq!(pass_row.rsplit_once(' ').unwrap().0.trim(), shown.rsplit_once(' ').unwrap().0.trim(), "README shows a different table:\n{out}");
    // The footnote: what the cycles column counts, and where the run's cycles start.
    let note = out.lines().find(|l| l.starts_with("(cycles: the steps' own")).unwrap_or_else(|| panic!("no note on the cycles:\n{out}"));
    assert!(note.contains("at cycle 262 of its run") && readme.lines().any(|l| l.trim() == note), "README shows a different note:\n{out}");
    std::fs::write(&file, toml.replacen("value = 0xff", "value = 0x7f", 1)).unwrap();
    let (code, out, _) = tpb(&["test", file.to_str().unwrap(), "--vcd", dir.join("waves").to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    for line in [
        "at line 5:1, cycle 264",
        "step: expect = \"pool.q7.release_run_stall\"",
        "pool.q7.release_run_stall: expected 0x7f, got 0xff at cycle 264 (fields: stall expected 0x7f got 0xff)",
    ] {
        assert!(out.contains(line) && readme.contains(line), "{line}\n{out}");
    }
    assert!(dir.join("waves/my-first.cayman.vcd").exists());
}

/// `Tb::with_map` simulates only a map its top implements: a register
/// whose reset value was changed is refused by both engines with a typed
/// error naming why (the Verilator top is prebuilt, the rust-hdl blocks are
/// compiled from the built-in maps), instead of quietly simulating the
/// built-in design under the edited names.
#[test]
fn with_map_refuses_a_map_its_top_does_not_implement() {
    use tpb_models::regmap::{builtin_files, load};
    let files = |edit: bool| -> Vec<(PathBuf, String)> {
        builtin_files(Arch::Cayman)
            .iter()
            .map(|(p, t)| (p.into(), if edit && p.ends_with("common/q7.toml") { t.replacen("reset = 0xff", "reset = 0x0f", 1) } else { t.to_string() }))
            .collect()
    };
    let map = load::from_sources(Arch::Cayman, &files(true)).unwrap();
    assert_eq!(map.block("q7").unwrap().register("release_run_stall").unwrap().reset_word(), 0x0f, "the edit took");
    for engine in [EngineKind::Verilator, EngineKind::RustHdl] {
        let e = Tb::with_map(map.clone(), engine).err().expect("refused");
        assert!(matches!(e, TbError::MapNotBuilt { .. }), "{e}");
        assert!(e.to_string().contains("cannot simulate this map"), "{e}");
        // The built-in map, loaded from its files, is taken.
        let same = load::from_sources(Arch::Cayman, &files(false)).unwrap();
        assert_eq!(Tb::with_map(same, engine).unwrap().read("pool.q7.release_run_stall").unwrap(), 0xff);
    }
}
