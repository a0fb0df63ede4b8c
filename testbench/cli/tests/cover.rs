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
    // The coverage model's per-cycle code at `cover::OPT`, its run-once code at -O0.
    assert_eq!(tpb_cosim::cover::OPT, "-O1", "the level docs/coverage.md measured");
    let root = tpb_testbench::tools::repo_root();
    let script = std::fs::read_to_string(root.join("target/cover-model/Vcover_cayman/gen/compile.sh")).unwrap();
    let level = |slow: bool| -> Vec<&str> {
        script
            .lines()
            .filter(|l| l.starts_with("g++ ") && tpb_cosim::vlgen::is_slow(std::path::Path::new(l.split(" -c '").nth(1).unwrap().split('\'').next().unwrap())) == slow)
            .map(|l| {
                if l.contains("'-O1'") {
                    "-O1"
                } else if l.contains("'-O0'") {
                    "-O0"
                } else {
                    "other"
                }
            })
            .collect()
    };
    let (fast, slow) = (level(false), level(true));
    assert!(!fast.is_empty() && fast.iter().all(|&o| o == tpb_cosim::cover::OPT) && slow.iter().all(|&o| o == "-O0"), "{script}");
    // The seeds' cases dispatch verified, and the register matrix.
    let points: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("points.json")).unwrap()).unwrap();
    let hits = |p: &str| points["points"].as_array().unwrap().iter().find(|x| x["name"] == p).unwrap_or_else(|| panic!("no point {p}"))["hits"].as_u64().unwrap();
    for p in ["hw_decode.hit", "hw_decode.miss_fallback", "hw_decode.miss_interrupt", "halt.q7"] {
        assert!(hits(p) > 0, "{p} not covered by bringup + dispatch");
    }
    assert_eq!(hits("collective.ring.2"), 0, "no collective ran");
    assert!(std::fs::read_to_string(d.join("registers.html")).unwrap().contains("<h2 id=\"pool.q7\">pool.q7</h2>"));
    // For another generation: refused with why.
    let (code, _, err) = tpb(&["cover", "--arch", "cayman", "--out", out.to_str().unwrap(), "--no-html", "q7-kernels"]);
    assert_ne!(code, 0);
    assert!(err.contains("is for sunda, not cayman"), "{err}");
    one_field_written_and_checked_is_exactly_that_field();
    // The lockstep traffic as a run: its reads are compared with the golden
    // model's, so they check what they read.
    let lock = out.join("lockstep");
    let (code, stdout, err) = tpb(&["cover", "--arch", "cayman", "--no-html", "--out", lock.to_str().unwrap(), "lockstep:3000"]);
    assert_eq!(code, 0, "{stdout}{err}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(lock.join("cayman/registers.json")).unwrap()).unwrap();
    assert_eq!(r["sources"], serde_json::json!(["lockstep"]));
    let checked = r["fields"].as_array().unwrap().iter().filter(|f| f["checked_by"] == serde_json::json!(["lockstep"])).count();
    assert!(checked > 100, "{checked} fields checked by 3000 cycles of traffic");
    let (code, _, err) = tpb(&["cover", "--arch", "cayman", "--no-html", "--out", lock.to_str().unwrap(), "lockstep:many"]);
    assert_ne!(code, 0);
    assert!(err.contains("lockstep:CYCLES"), "{err}");
}

/// The register coverage of a run whose coverage is known: a testbench
/// that writes one register of one field and checks it covers exactly that
/// field (written, read back, checked) and nothing else, and a register it
/// reads without a check counts as read, never as checked; a collective
/// counts its algorithm on its dies. (Called by the test above: the
/// coverage model is built once, not by two processes at a time.)
fn one_field_written_and_checked_is_exactly_that_field() {
    let root = tpb_testbench::tools::repo_root();
    let out = root.join("target/cover-test-one");
    let _ = std::fs::create_dir_all(&out);
    let file = out.join("one_field.toml");
    std::fs::write(
        &file,
        "name = \"one-field\"\narchs = [\"cayman\"]\n[[step]]\nwrite = \"pool.q7.release_run_stall\"\nvalue = 0x0f\n[[step]]\nexpect = \"pool.q7.release_run_stall\"\nvalue = 0x0f\n[[step]]\nread = \"pool.q7.start_addr\"\n",
    )
    .unwrap();
    let (code, stdout, err) = tpb(&["cover", "--arch", "cayman", "--no-html", "--out", out.to_str().unwrap(), file.to_str().unwrap(), "allreduce-ring", "--dies", "2"]);
    assert_eq!(code, 0, "{stdout}{err}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("cayman/registers.json")).unwrap()).unwrap();
    let fields = r["fields"].as_array().unwrap();
    let by = |key: &str| fields.iter().filter(|f| !f[key].as_array().unwrap().is_empty()).map(|f| f["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let one = vec!["pool.q7.release_run_stall.stall".to_string()];
    let read = vec!["pool.q7.release_run_stall.stall".to_string(), "pool.q7.start_addr.value".to_string()];
    assert_eq!((by("written_by"), by("read_by"), by("checked_by")), (one.clone(), read, one), "the one field, and a read that no check compares");
    assert_eq!(r["unchecked"].as_array().unwrap().len(), fields.len() - 1);
    let p: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("cayman/points.json")).unwrap()).unwrap();
    let covered: Vec<&str> = p["points"].as_array().unwrap().iter().filter(|x| x["hits"].as_u64().unwrap() > 0).map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(covered, ["collective.ring.2"], "the testbench shows no seed case; the ring on 2 dies passed");
    assert!(stdout.contains("register fields written 1, read 2, checked 1 of"), "{stdout}");
}
