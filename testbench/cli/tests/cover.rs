//! `tpb cover`: RTL line and toggle coverage of a generation's top over
//! scenarios, as a user runs it: the coverage-instrumented model (built
//! once under target/cover-model/), the merged counts, lcov's `.info`,
//! genhtml's report and the per-module summary.

fn tpb(args: &[&str]) -> (i32, String, String) {
    tpb_testbench::tools::run_in_root(env!("CARGO_BIN_EXE_tpb"), args)
}

/// The module's (lines hit, toggles hit) in a summary.md table.
fn hits(summary: &str, module: &str) -> (u64, u64) {
    let row = summary.lines().find(|l| l.starts_with(&format!("| `{module}` |"))).unwrap_or_else(|| panic!("no row for {module}:\n{summary}"));
    let n = |cell: &str| cell.trim().split('/').next().unwrap().parse::<u64>().unwrap();
    let cells: Vec<&str> = row.split('|').collect();
    (n(cells[2]), n(cells[3]))
}

/// What each run hits is merged: bringup alone leaves the HW-decode CAM's
/// lookup idle; with dispatch (which programs and uses the CAM) its lines
/// and toggles hit rise, while the blocks both runs use keep at least what
/// bringup hit. The reports are the real tools' (verilator_coverage, genhtml).
#[test]
fn tpb_cover_merges_runs_into_lcov_html_and_a_per_module_summary() {
    let out = tpb_testbench::tools::repo_root().join("target/cover-test");
    let run = |scenarios: &[&str]| {
        let mut args = vec!["cover", "--arch", "cayman", "--out", out.to_str().unwrap()];
        args.extend(scenarios);
        let (code, stdout, err) = tpb(&args);
        assert_eq!(code, 0, "{stdout}{err}");
        assert!(stdout.contains("cayman: lines") && stdout.contains("coverage.info"), "{stdout}");
        std::fs::read_to_string(out.join("cayman/summary.md")).unwrap()
    };
    let one = run(&["bringup"]);
    let two = run(&["bringup", "dispatch"]);
    let (cam1, cam2) = (hits(&one, "cayman_tpb_top__hwd"), hits(&two, "cayman_tpb_top__hwd"));
    assert!(cam2.0 > cam1.0 && cam2.1 > cam1.1, "the CAM: bringup {cam1:?}, with dispatch {cam2:?}");
    let (c1, c2) = (hits(&one, "cayman_tpb_top__cluster"), hits(&two, "cayman_tpb_top__cluster"));
    assert!(c2.0 >= c1.0 && c1.0 > 0, "the Q7 cluster: {c1:?} then {c2:?}");
    assert!(!two.contains("_sim_top"), "the probe wrapper is not in the summary");
    let d = out.join("cayman");
    let info = std::fs::read_to_string(d.join("coverage.info")).unwrap();
    assert!(info.contains("SF:") && info.contains("\nDA:") && info.contains("end_of_record"), "lcov tracefile");
    assert!(d.join("html/index.html").is_file(), "genhtml's report");
    assert!(std::fs::read_to_string(d.join("coverage.dat")).unwrap().starts_with("# SystemC::Coverage"));
    // A scenario on dies of its own, or for another generation, is refused with why.
    let (code, _, err) = tpb(&["cover", "--arch", "cayman", "--out", out.to_str().unwrap(), "--no-html", "mesh"]);
    assert_ne!(code, 0);
    assert!(err.contains("runs on dies of its own"), "{err}");
    let (code, _, err) = tpb(&["cover", "--arch", "cayman", "--out", out.to_str().unwrap(), "--no-html", "q7-kernels"]);
    assert_ne!(code, 0);
    assert!(err.contains("is for sunda, not cayman"), "{err}");
}
