//! End-to-end co-simulation (issue 7, in progress): the host HAL, the
//! Verilated top and the 8 behavioural Q7 cores on one clock.

use tpb_cosim::scenario::{bringup, ScenarioError};
use tpb_cosim::sched::Cosim;
use tpb_models::regmap::Arch;

#[test]
fn bringup_installs_releases_and_runs_the_q7_kernel_on_every_core() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let mut c = Cosim::new(arch).unwrap();
        let t0 = std::time::Instant::now();
        let r = bringup(&mut c, 20, 50_000).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(r.sums.len(), 8);
        assert_eq!(r.sums[0], (20, 210));
        assert_eq!(r.sums[7], (27, 378));
        assert_eq!(r.stats.stalls_released, 8, "{arch:?}: every core released once");
        assert!(r.stats.retired > 8 * 20 * 3, "{arch:?}: {} instructions", r.stats.retired);
        assert!(r.stats.bus_waits > r.stats.retired, "the RTL ports' wait states are the cores' wait states");
        println!(
            "{arch:?}: stpb_init done at cycle {}, all 8 cores halted at {}; {} BAR0 transactions ({} pad words elided), {} instructions, {} checks; {:.0} cycles/s",
            r.init_done,
            r.all_halted,
            r.stats.transactions,
            r.stats.elided,
            r.stats.retired,
            r.checks,
            r.stats.cycles as f64 / t0.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn bringup_refuses_sunda_and_a_wrong_sum_is_caught() {
    let mut c = Cosim::new(Arch::Sunda).unwrap();
    assert!(matches!(bringup(&mut c, 5, 1000), Err(ScenarioError::NotApplicable { .. })));
    // Too few cycles: the cores cannot finish, and the check says which.
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let e = bringup(&mut c, 2000, 500).unwrap_err().to_string();
    assert!(e.contains("not halted after 500 cycles"), "{e}");
}

fn tpb(args: &[&str]) -> (i32, String, String) {
    tpb_testbench::tools::run_in_root(env!("CARGO_BIN_EXE_tpb"), args)
}

/// `tpb sim` as the README's main command runs it: summary table, VCD,
/// a GTKWave save file whose every signal is in the VCD, and the two
/// timing diagrams drawn from the VCD.
#[test]
fn tpb_sim_bringup_writes_waves_a_gtkw_and_diagrams() {
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-sim");
    let _ = std::fs::remove_dir_all(&dir);
    let vcd = dir.join("bringup.cayman.vcd");
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let row = out.lines().find(|l| l.starts_with("bringup ")).unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains(" PASS ") && row.trim_end().ends_with(" 26"), "{row}");
    let gtkw = std::fs::read_to_string(vcd.with_extension("gtkw")).unwrap();
    let names: Vec<String> = gtkw.lines().filter_map(|l| l.strip_prefix("TOP.")).map(|l| l.split('[').next().unwrap().to_string()).collect();
    assert!(names.len() >= 20 && names.iter().any(|n| n == "q7_run_stall"), "{gtkw}");
    let read = tpb_cosim::waves::read(&vcd, &names).unwrap();
    // The run-stall release is in the trace: q7_run_stall goes 0xff -> 0.
    let k = names.iter().position(|n| n == "q7_run_stall").unwrap();
    let vals: Vec<Option<u64>> = read[k].1.iter().map(|(_, v)| *v).collect();
    assert!(vals.windows(2).any(|w| w == [Some(0xff), Some(0)]), "{vals:?}");
    for g in ["run_stall", "q7_core0"] {
        let svg = std::fs::read_to_string(vcd.with_extension(format!("{g}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("q7_run_stall") && svg.matches("<path").count() > 10, "{g}");
    }
    // FST works too.
    let fst = dir.join("bringup.mariana.fst");
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "mariana", "--fst", fst.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::metadata(&fst).unwrap().len() > 1000);
}

#[test]
fn tpb_sim_errors_name_the_scenario_the_arch_and_the_file_line() {
    let (code, _, err) = tpb(&["sim", "bringup", "--arch", "sunda"]);
    assert_eq!(code, 1);
    assert!(err.contains("scenario 'bringup' is for cayman, mariana, not sunda"), "{err}");
    let (code, _, err) = tpb(&["sim", "nosuch"]);
    assert_eq!(code, 1);
    assert!(err.contains("no scenario 'nosuch' (built in: bringup"), "{err}");
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-sim-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\ndescription = \"y\"\nkind = \"bringup\"\narchs = [\"cayman\"]\ncycels = 5\n").unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.toml:5:1: unknown field `cycels`"), "{err}");
    let (code, out, _) = tpb(&["scenarios"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("bringup"), "{out}");
}

/// The diagrams the README shows (docs/waves/) are what `tpb sim bringup`
/// draws today (everything but the banner line, which names the VCD path).
#[test]
fn readme_diagrams_are_fresh() {
    let root = tpb_testbench::tools::repo_root();
    let dir = root.join("target/cosim-readme");
    let _ = std::fs::remove_dir_all(&dir);
    let vcd = dir.join("bringup.cayman.vcd");
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let body = |t: String| t.lines().filter(|l| !l.starts_with("<!-- GENERATED")).collect::<Vec<_>>().join("\n");
    for g in ["run_stall", "q7_core0"] {
        let name = format!("bringup.cayman.{g}.svg");
        let fresh = body(std::fs::read_to_string(dir.join(&name)).unwrap());
        let checked_in = body(std::fs::read_to_string(root.join("docs/waves").join(&name)).unwrap());
        assert!(fresh == checked_in, "docs/waves/{name} is stale: cargo run --release --bin tpb -- sim bringup --arch cayman --vcd waves/bringup.cayman.vcd && cp waves/bringup.cayman.{g}.svg docs/waves/");
    }
}

/// `--window write:<register>`: the trace holds only the cycles from the
/// host's write to release_run_stall on, and that write is in it.
#[test]
fn tpb_sim_window_opens_on_the_release_write() {
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-window");
    let _ = std::fs::remove_dir_all(&dir);
    let vcd = dir.join("w.vcd");
    std::fs::create_dir_all(&dir).unwrap();
    let (code, out, err) = tpb(&["sim", "bringup", "--vcd", vcd.to_str().unwrap(), "--window", "write:pool.q7.release_run_stall", "--window-cycles", "40"]);
    assert_eq!(code, 0, "{out}{err}");
    let line = out.lines().find(|l| l.starts_with("window: Done")).unwrap_or_else(|| panic!("{out}"));
    let from: u64 = line.split("from: ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    let read = tpb_cosim::waves::read(&vcd, &["req_write".into(), "q7_run_stall".into()]).unwrap();
    let times: Vec<u64> = read[1].1.iter().map(|(t, _)| *t).collect();
    assert!(times[0] >= 2 * from && *times.last().unwrap() <= 2 * (from + 40), "{times:?} for window from {from}");
    assert!(read[1].1.iter().any(|(_, v)| *v == Some(0)), "the release is inside the window");
    let (code, _, err) = tpb(&["sim", "bringup", "--vcd", vcd.to_str().unwrap(), "--window", "write:pool.q7.nosuch"]);
    assert_eq!(code, 1);
    assert!(err.contains("no register 'nosuch' in pool.q7"), "{err}");
}
