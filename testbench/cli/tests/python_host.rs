//! A host program in Python over the host-link protocol against `tpb serve`
//! (`testbench/python/`): the HAL's bring-up replayed by register name,
//! checked read by read against the golden model and cycle for cycle
//! against the Rust HAL on the co-simulation; the C example's host side in
//! Python, deterministic to the VCD byte; the per-core inputs example from
//! Python (install held, inputs written, released); the client's tables
//! against the protocol's one description. The server's own rules are
//! tested in `serve.rs`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use tpb_cosim::sched::Cosim;
use tpb_models::hal::{Hal, StpbConfig};
use tpb_models::regmap::Arch;
use tpb_testbench::tools::{repo_root, venv_python};

fn scratch(name: &str) -> PathBuf {
    let d = repo_root().join("target/tpb-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tpb(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_tpb")).current_dir(repo_root()).args(args).output().unwrap();
    assert!(o.status.success(), "tpb {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// `tpb serve --once ARGS` started; its port, read from its first line.
fn serve(args: &[&str]) -> (Child, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb")).current_dir(repo_root()).arg("serve").arg("--once").args(args).stdout(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
    let port = first.trim().rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {first:?}"));
    (child, port)
}

/// Run a script of `testbench/python/` with the project venv's Python.
fn python(script: &str, args: &[&str]) -> (bool, String) {
    let py = venv_python().unwrap_or_else(|e| panic!("{e}"));
    let o = Command::new(py).current_dir(repo_root().join("testbench/python")).arg(script).args(args).output().unwrap();
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

fn names(dir: &Path, arch: Arch) -> String {
    let p = dir.join(format!("{}.names.json", arch.name()));
    std::fs::write(&p, tpb(&["regmap", "--arch", arch.name(), "--format", "names"])).unwrap();
    p.display().to_string()
}

#[test]
fn the_hals_bring_up_replayed_from_python_reads_what_the_golden_model_reads_in_the_hals_cycles() {
    let dir = scratch("python-bringup");
    for arch in Arch::ALL {
        let log = dir.join(format!("{}.bringup.txt", arch.name()));
        std::fs::write(&log, tpb(&["bringup", "--arch", arch.name()])).unwrap();
        let (mut child, port) = serve(&["--arch", arch.name()]);
        let (ok, out) = python("replay_bringup.py", &[log.to_str().unwrap(), &names(&dir, arch), "--port", &port.to_string()]);
        assert!(child.wait().unwrap().success());
        assert!(ok, "{}: {out}", arch.name());
        let cycle: u64 = out.split("at cycle ").nth(1).and_then(|s| s.trim().parse().ok()).unwrap_or_else(|| panic!("{out}"));
        // The same bring-up by the Rust HAL on the co-simulation, in-process.
        let mut c = Cosim::new(arch).unwrap();
        Hal::with_map(c.map().clone()).stpb_init(&mut c, &StpbConfig::default(), None).unwrap();
        assert_eq!(cycle, c.stats.cycles, "{}: the replay over the link and the HAL take the same cycles: {out}", arch.name());
        assert!(out.contains("reads by name") && !out.contains(" 0 reads"), "{out}");
        println!("{}: {}", arch.name(), out.trim());
    }
}

#[test]
fn the_c_example_driven_from_python_passes_and_gives_the_same_cycles_and_vcd_bytes_twice() {
    let dir = scratch("python-host");
    let example = "testbench/examples/firmware/q7_checksum.toml";
    let names = names(&dir, Arch::Cayman);
    let mut runs = Vec::new();
    for k in 0..2 {
        let vcd = dir.join(format!("run{k}.vcd"));
        let (mut child, port) = serve(&[example, "--arch", "cayman", "--vcd", vcd.to_str().unwrap()]);
        let (ok, out) = python("q7_checksum_host.py", &[&names, "--port", &port.to_string(), "--trace"]);
        assert!(child.wait().unwrap().success());
        assert!(ok && out.contains("checksums right"), "{out}");
        runs.push((out, std::fs::read(&vcd).unwrap()));
    }
    assert_eq!(runs[0].0, runs[1].0, "the same script, the same cycles");
    assert!(runs[0].1.len() > 1000 && runs[0].1 == runs[1].1, "the same VCD bytes");
}

#[test]
fn per_core_inputs_written_from_python_before_the_release_give_python_s_own_crcs() {
    let dir = scratch("python-crc32");
    let names = names(&dir, Arch::Cayman);
    let (mut child, port) = serve(&["testbench/examples/firmware/q7_crc32.toml", "--arch", "cayman"]);
    let (ok, out) = python("q7_crc32_host.py", &[&names, "--port", &port.to_string()]);
    assert!(child.wait().unwrap().success());
    assert!(ok && out.contains("eight CRC-32s right"), "{out}");
}

/// The Python client's tables are the protocol's one description's.
#[test]
fn the_python_client_s_ops_statuses_and_state_bits_are_the_spec_s() {
    use tpb_models::hal::hostlink as hl;
    let py = venv_python().unwrap_or_else(|e| panic!("{e}"));
    let script = "import json, tpb_link as t\nprint(json.dumps({'ops': t.OPS, 'sim': t.SIM_OPS, 'status': {str(k): v for k, v in t.STATUS_NAMES.items()}, \
                  'state': t.STATE_BITS, 'consts': [t.SYNC_REQUEST, t.SYNC_RESPONSE, t.RESPONSE_BYTES, t.MAX_BURST, t.STATUS_MAGIC, t.MAX_RUN_CYCLES]}))";
    let o = Command::new(py).current_dir(repo_root().join("testbench/python")).args(["-c", script]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ops: Vec<(String, u64)> = hl::Op::ALL.iter().map(|o| (format!("{o:?}").to_uppercase(), *o as u64)).collect();
    assert_eq!(v["ops"].as_object().unwrap().len(), ops.len());
    for (n, code) in ops {
        assert_eq!(v["ops"][&n], code, "op {n}");
    }
    assert_eq!(v["sim"].as_object().unwrap().len(), hl::SimOp::ALL.len());
    for o in hl::SimOp::ALL {
        assert_eq!(v["sim"][o.name()], o as u64, "simulator op {}", o.name());
    }
    assert_eq!(v["status"].as_object().unwrap().len(), hl::Status::ALL.len());
    for s in hl::Status::ALL {
        assert_eq!(v["status"][(s as u8).to_string()], s.name(), "status {}", s as u8);
    }
    let bits = [
        ("HALTED", hl::STATE_HALTED),
        ("WAITING", hl::STATE_WAITING),
        ("RUN_STALLED", hl::STATE_RUN_STALLED),
        ("EXCEPTION", hl::STATE_EXCEPTION),
        ("HALTED_SINCE_START", hl::STATE_HALTED_SINCE_START),
    ];
    assert_eq!(v["state"].as_object().unwrap().len(), bits.len());
    for (n, b) in bits {
        assert_eq!(v["state"][n], b, "state bit {n}");
    }
    let consts = [
        u64::from(hl::SYNC_REQUEST),
        u64::from(hl::SYNC_RESPONSE),
        hl::RESPONSE_BYTES as u64,
        u64::from(hl::MAX_BURST),
        u64::from(hl::STATUS_MAGIC),
        u64::from(hl::MAX_RUN_CYCLES),
    ];
    assert_eq!(v["consts"], serde_json::json!(consts));
}
