//! The fuzz targets: every parser of user input and the host-link server's
//! loop, each a function of bytes ([`TARGETS`]). `scripts/fuzz TARGET
//! SECONDS` runs one under AFL++ (`testbench/fuzz/`, a crate of its own
//! built with `cargo afl`); the suite replays every input of
//! `testbench/fuzz/corpus/<target>/` and `testbench/fuzz/found/<target>/`
//! (what a campaign found, kept once fixed) as plain tests
//! (`tests/fuzz_corpora.rs`).
//!
//! The invariants: no panic (a panic is the crash AFL reports); no hang (a
//! target's work is bounded: AFL's time limit and the replay's catch what
//! is not); and an error names the input's file (and its line, where the
//! format has lines): a target returns `Err` with what it broke, and the
//! harness turns that into a crash too.

use std::path::{Path, PathBuf};
use tpb_models::regmap::{builtin, Arch, RegMap};

/// A target: the input's bytes; `Err` says which invariant broke.
pub type Target = fn(&[u8]) -> Result<(), String>;

/// Every target, by the name `scripts/fuzz` and the corpora use.
pub const TARGETS: &[(&str, Target)] = &[
    ("hostlink", hostlink),
    ("testbench_toml", testbench_toml),
    ("scenario_toml", scenario_toml),
    ("regmap", regmap),
    ("asm", asm),
    ("elf", elf),
    ("vcd", vcd),
    ("fst", fst),
    ("names", names),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The name an input goes by in errors.
const FILE: &str = "fuzz-input";

fn map() -> &'static RegMap {
    static MAP: std::sync::OnceLock<RegMap> = std::sync::OnceLock::new();
    MAP.get_or_init(|| builtin(Arch::Cayman).expect("the built-in map"))
}

/// An error must name the input's file.
fn names_file(e: &str, file: &str) -> Result<(), String> {
    if e.contains(file) {
        Ok(())
    } else {
        Err(format!("an error that does not name its file {file}: {e}"))
    }
}

/// `[D]` Most cycles one RUN or WAIT_HALTED may take under the fuzzer (the
/// protocol's own maximum is seconds of simulation: a hang to AFL).
pub const FUZZ_RUN_CYCLES: u32 = 4096;

/// The host-link server's loop: the input is a client's sends
/// ([`tpb_cosim::serve::Script::from_fuzz`]) to a CAYMAN co-simulation.
/// Every answer is a well-formed response; the server never fails.
pub fn hostlink(data: &[u8]) -> Result<(), String> {
    use tpb_models::hal::hostlink::{Response, RESPONSE_BYTES};
    let mut c = tpb_cosim::sched::Cosim::new(Arch::Cayman).map_err(|e| e.to_string())?;
    let mut server = tpb_cosim::serve::Server::new(&mut c);
    server.max_run = FUZZ_RUN_CYCLES;
    let mut conn = tpb_cosim::serve::Script::from_fuzz(data);
    server.serve(&mut conn).map_err(|e| format!("the server failed: {e}"))?;
    if !conn.out.len().is_multiple_of(RESPONSE_BYTES) {
        return Err(format!("{} bytes of answers: not whole responses", conn.out.len()));
    }
    for f in conn.out.chunks_exact(RESPONSE_BYTES) {
        Response::decode(f.try_into().expect("a response's bytes")).map_err(|e| format!("a malformed answer: {e}"))?;
    }
    Ok(())
}

/// A testbench file (TOML): parsed, and checked against CAYMAN's names.
pub fn testbench_toml(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else { return Ok(()) };
    let path = Path::new(FILE).with_extension("toml");
    match crate::tb::file::TbFile::parse(&path, text) {
        Ok(f) => {
            if let Err(e) = f.check(&crate::tb::names::Names::new(map())) {
                names_file(&e.to_string(), FILE)?;
            }
            Ok(())
        }
        Err(e) => names_file(&e.to_string(), FILE),
    }
}

/// A scenario file (`cosim/scenarios/*.toml`).
/// A collective's tapes, programs and inputs are lowered as a run would
/// first (on up to 64 TOP_SPs: a planner's time grows with them).
pub fn scenario_toml(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else { return Ok(()) };
    match tpb_cosim::scenario::ScenarioFile::parse(FILE, text) {
        Ok(f) => match f.collective.as_ref().filter(|c| c.dies * c.top_sps <= 64) {
            // A lowering error names no file: the data's own place (node, event) is named instead.
            Some(c) => tpb_cosim::scenario::collective::programs(Arch::Cayman, c, c.dies).map(|_| ()).or(Ok(())),
            None => Ok(()),
        },
        Err(e) => names_file(&e.to_string(), FILE),
    }
}

/// A register-map block file, and the same text as a generation's `arch.toml`.
pub fn regmap(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else { return Ok(()) };
    let path = PathBuf::from(FILE).with_extension("toml");
    if let Err(e) = tpb_models::regmap::load::parse_block(Arch::Cayman, &path, text) {
        names_file(&e.to_string(), FILE)?;
    }
    if let Err(e) = tpb_models::regmap::load::parse_params(&path, text) {
        names_file(&e.to_string(), FILE)?;
    }
    Ok(())
}

/// Assembler source, with `.include` (the generation's `tpb.inc`, and the
/// input itself as `self.S`) and `.macro`.
pub fn asm(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else { return Ok(()) };
    let file = format!("{FILE}.S");
    let mut includes = |want: &str, _from: &str| -> Result<(String, String), String> {
        match want {
            "tpb.inc" => Ok(("tpb.inc".into(), tpb_cosim::cfw::header::render_asm(map()).map_err(|e| e.to_string())?)),
            "self.S" => Ok((file.clone(), text.to_string())),
            _ => Err(format!("{want}: no such file")),
        }
    };
    let opts = tpb_models::xtensa::config::Options::tpb();
    match tpb_models::xtensa::asm::source::assemble_source(&file, text, 0, &opts, &mut includes) {
        Ok(_) => Ok(()),
        Err(e) => {
            let e = e.to_string();
            // file:line:column, the line within the input (or an include it named).
            let named = e.starts_with(&format!("{file}:")) || e.starts_with("tpb.inc:");
            if named && e.split(':').nth(1).is_some_and(|l| l.parse::<usize>().is_ok()) {
                Ok(())
            } else {
                Err(format!("an assembler error without its file and line: {e}"))
            }
        }
    }
}

/// An ELF: its image, symbols and code, and the images a Q7 core would get.
pub fn elf(data: &[u8]) -> Result<(), String> {
    use tpb_models::xtensa::elf;
    let _ = elf::parse(data);
    let _ = elf::symbols(data);
    let _ = elf::code_sections(data);
    if let Err(e) = tpb_cosim::cfw::images(map(), tpb_cosim::cfw::CoreKind::Q7, FILE, data) {
        names_file(&e.to_string(), FILE)?;
    }
    Ok(())
}

/// Read a trace of `ext` from the input: a few of the top's signals, and the widths.
fn trace(data: &[u8], ext: &str) -> Result<(), String> {
    // A file of this process's own (a replay runs targets on threads).
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tpb-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{FILE}-{n}.{ext}"));
    std::fs::write(&path, data).map_err(|e| e.to_string())?;
    let signals: Vec<String> = ["clk", "q7_run_stall", "nx_run_stall", "bar0_req_addr"].iter().map(|s| s.to_string()).collect();
    let shown = path.display().to_string();
    let r = tpb_cosim::waves::read(&path, &signals).map(|_| ()).and_then(|()| tpb_cosim::waves::widths(&path, &signals).map(|_| ()));
    let _ = std::fs::remove_file(&path);
    match r {
        Ok(()) => Ok(()),
        Err(e) => names_file(&e.to_string(), &shown),
    }
}

/// A VCD.
pub fn vcd(data: &[u8]) -> Result<(), String> {
    trace(data, "vcd")
}

/// An FST.
pub fn fst(data: &[u8]) -> Result<(), String> {
    trace(data, "fst")
}

/// A testbench's register name (or a number), resolved against CAYMAN's
/// names; an error names what was asked.
pub fn names(data: &[u8]) -> Result<(), String> {
    let Ok(name) = std::str::from_utf8(data) else { return Ok(()) };
    static NAMES: std::sync::OnceLock<crate::tb::names::Names> = std::sync::OnceLock::new();
    let n = NAMES.get_or_init(|| crate::tb::names::Names::new(map()));
    match n.resolve(name) {
        Ok(_) => Ok(()),
        Err(e) if name.trim().is_empty() || e.to_string().contains(name.trim()) => Ok(()),
        Err(e) => Err(format!("an error that does not name {name:?}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_that_does_not_name_its_file_breaks_the_invariant() {
        assert!(names_file("fuzz-input.toml:3:1: bad", FILE).is_ok());
        assert!(names_file("bad", FILE).unwrap_err().contains("does not name its file"));
        assert!(target("nope").is_none() && TARGETS.iter().all(|(n, _)| target(n).is_some()));
    }
}
