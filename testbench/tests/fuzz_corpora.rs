//! Every fuzz target's corpus replayed as plain tests: the seeds
//! (`testbench/fuzz/corpus/<target>/`) and what campaigns found and the
//! code since fixed (`testbench/fuzz/found/<target>/`). Each input must keep
//! the target's invariants (`tpb_testbench::fuzz`): no panic, an error that
//! names its file, and an end within [`HANG_BOUND`] (a hang detector, not a
//! speed check: each input takes milliseconds).

use std::path::PathBuf;
use std::time::Duration;
use tpb_testbench::fuzz::TARGETS;
use tpb_testbench::tools::repo_root;

/// An input not done within this is a hang.
const HANG_BOUND: Duration = Duration::from_secs(60);

fn inputs(target: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["corpus", "found"] {
        let d = repo_root().join("testbench/fuzz").join(dir).join(target);
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        v.extend(rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()));
    }
    v.sort();
    v
}

#[test]
fn every_target_has_seeds_and_every_input_keeps_the_invariants() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, target) in TARGETS {
        let files = inputs(name);
        assert!(!files.is_empty(), "no corpus for the fuzz target {name} (testbench/fuzz/corpus/{name}/)");
        for f in files {
            count += 1;
            let data = std::fs::read(&f).unwrap();
            let (tx, rx) = std::sync::mpsc::channel();
            let t = *target;
            std::thread::spawn(move || {
                let r = std::panic::catch_unwind(|| t(&data));
                let _ = tx.send(r);
            });
            match rx.recv_timeout(HANG_BOUND) {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(e))) => failures.push(format!("{}: {e}", f.display())),
                Ok(Err(_)) => failures.push(format!("{}: panicked", f.display())),
                Err(_) => failures.push(format!("{}: not done in {HANG_BOUND:?} (a hang)", f.display())),
            }
        }
    }
    println!("{count} inputs replayed over {} targets", TARGETS.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
