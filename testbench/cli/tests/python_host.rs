//! A host program in Python over the host-link protocol against `tpb serve`
//! (`testbench/python/`): the HAL's bring-up replayed by register name,
//! checked read by read against the golden model and cycle for cycle
//! against the Rust HAL on the co-simulation; the C example's host side in
//! Python, deterministic to the VCD byte; the protocol's refusals.

use std::io::{BufRead, BufReader, Cursor};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use tpb_cosim::sched::Cosim;
use tpb_cosim::serve::{Server, OP_CORE, OP_RUN};
use tpb_models::hal::hostlink::{encode_raw, Request, Response, Status, RESPONSE_BYTES};
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

/// `tpb serve ARGS` started; its port, read from its first line.
fn serve(args: &[&str]) -> (Child, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb")).current_dir(repo_root()).arg("serve").args(args).stdout(Stdio::piped()).spawn().unwrap();
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

fn frames(c: &mut Cosim, reqs: &[Vec<u8>]) -> Vec<Response> {
    let input: Vec<u8> = reqs.concat();
    let mut out = Vec::new();
    Server::new(c).serve(Cursor::new(input), &mut out).unwrap();
    out.chunks_exact(RESPONSE_BYTES).map(|f| Response::decode(f.try_into().unwrap()).unwrap()).collect()
}

#[test]
fn the_server_answers_as_the_protocol_says() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let mut bad_crc = Request::write(1, 0x70a10, 5).encode().unwrap();
    let n = bad_crc.len();
    bad_crc[n - 1] ^= 0xff;
    let run = encode_raw(OP_RUN, 6, 1, 0, &[100]);
    let core = encode_raw(OP_CORE, 7, 0, 42 << 8, &[]);
    let before = c.stats.cycles;
    let r = frames(
        &mut c,
        &[
            b"\x00\x13junk".to_vec(),
            Request::status(0).encode().unwrap(),
            bad_crc,
            Request::write(2, 0x70a10, 5).encode().unwrap(),
            Request::read(3, 0x70a10).encode().unwrap(),
            Request::write(4, 0x7fff_fff0, 1).encode().unwrap(),
            encode_raw(0x77, 5, 0, 0, &[]),
            run,
            core,
        ],
    );
    let got: Vec<(Status, u8, u32)> = r.iter().map(|r| (r.status, r.seq, r.data)).collect();
    assert_eq!(got[0], (Status::Ok, 0, tpb_models::hal::hostlink::STATUS_MAGIC), "junk before a frame is skipped");
    assert_eq!(got[1].0, Status::Crc, "a bad CRC does nothing");
    assert_eq!(got[2], (Status::Ok, 2, 0));
    assert_eq!(got[3], (Status::Ok, 3, 5), "the write landed; the CRC-damaged one did not change it first");
    assert_eq!(got[4].0, Status::BusError, "an unmapped address");
    assert_eq!(got[5], (Status::BadOp, 5, 0), "an unknown op");
    assert_eq!(got[6].0, Status::Ok, "run 100 cycles");
    assert!(c.stats.cycles >= before + 100);
    assert_eq!(got[7].0, Status::BadCount, "no core 42");
    assert_eq!(r.len(), 8);
    // A client that speaks something else: every byte skipped, counted, nothing answered.
    let mut out = Vec::new();
    let s = Server::new(&mut c).serve(Cursor::new(b"GET / HTTP/1.1\r\n\r\n".to_vec()), &mut out).unwrap();
    assert_eq!((s.frames, s.refused, s.skipped, out.len()), (0, 0, 18, 0), "{s:?}");
    let s = Server::new(&mut c).serve(Cursor::new([b"\x00\x13junk".to_vec(), Request::status(0).encode().unwrap()].concat()), &mut out).unwrap();
    assert_eq!((s.frames, s.skipped), (1, 6), "the junk before a frame");
}
