//! The built-in scenarios as co-simulation files
//! (`testbench/examples/scenarios/`): each assembles the very firmware
//! units the Rust kind runs (byte for byte), passes on every generation,
//! and its checks fail when the behaviour they pin changes. The cycles are
//! printed beside the Rust kind's (the file's polls and the kind's waits
//! differ a little in pace; the cores' work is the same). And every input
//! file a user edits, edited at random, loads or is refused, never panics.

use std::path::PathBuf;
use tpb_cosim::firmware;
use tpb_cosim::scenario::{self, HaltStartCfg};
use tpb_cosim::sched::Cosim;
use tpb_models::regmap::{builtin, Arch};
use tpb_testbench::tb::file::{cosim_of, run, RunOpts, TbFile};
use tpb_testbench::tools::repo_root;

fn path(name: &str) -> PathBuf {
    repo_root().join("testbench/examples/scenarios").join(format!("{name}.toml"))
}

fn padded(mut b: Vec<u8>) -> Vec<u8> {
    b.resize(b.len().div_ceil(4) * 4, 0);
    b
}

/// The Rust kind on a fresh co-simulation: its cycles.
fn rust_kind(name: &str, arch: Arch) -> u64 {
    let mut c = Cosim::new(arch).unwrap();
    let r = match name {
        "bringup" => scenario::bringup(&mut c, 20, 50_000),
        "barrier" => scenario::barrier(&mut c, &scenario::BarrierCfg { arrive_sem: 0, depart_sem: 1, work: 6 }, 60_000),
        "notify" => scenario::notify(&mut c, &scenario::NotifyCfg { dma_sem: 9 }, 50_000),
        "interrupt" => scenario::interrupt(&mut c, &scenario::InterruptCfg { sem: 2, q7_cores: 0x05 }, 50_000),
        "windows" => scenario::windows(&mut c, &scenario::WindowsCfg { sem: 32, stores: 3 }, 20_000),
        "doorbell" => {
            let f = scenario::ScenarioFile::find("doorbell").unwrap();
            scenario::doorbell(&mut c, f.doorbell.as_ref().unwrap(), f.cycles)
        }
        _ => scenario::halt_start(&mut c, &HaltStartCfg { q7_cores: 0x05 }, 50_000),
    };
    r.unwrap_or_else(|e| panic!("{name} {}: {e}", arch.name())).stats.cycles
}

#[test]
fn each_file_runs_the_rust_kinds_firmware_and_passes_on_every_generation() {
    std::env::set_current_dir(repo_root()).unwrap();
    for name in ["bringup", "barrier", "halt-start", "notify", "interrupt", "doorbell", "windows"] {
        let f = TbFile::load(&path(name)).unwrap_or_else(|e| panic!("{e}"));
        for &arch in &f.archs {
            let map = builtin(arch).unwrap();
            let sunda = arch == Arch::Sunda;
            let (c, images) = cosim_of(&f, arch, false).unwrap_or_else(|e| panic!("{name}: {e}"));
            if name == "doorbell" {
                assert_eq!(images.built["top_sp"].images.iram, padded(firmware::top_sp_ccop(&map, 8).unwrap().bytes), "doorbell {}: the TOP_SP image", arch.name());
            }
            let (q7, seq) = match name {
                "bringup" | "doorbell" => (firmware::q7_sum(&map), firmware::nx_boot(&map, sunda)),
                "barrier" => (firmware::q7_barrier(&map, 0, 1, 8), firmware::nx_boot(&map, sunda)),
                "notify" => (firmware::q7_sum(&map), firmware::nx_halt(&map, sunda)),
                "interrupt" => (firmware::q7_intr(&map, 2), firmware::nx_intr(&map, sunda, 3)),
                "windows" => (firmware::q7_windows(&map, 0x4000_2000), firmware::nx_windows(&map, sunda, 0x4000_1000, 0x4000_0000, 3)),
                _ => (firmware::q7_halt(&map), firmware::nx_halt(&map, sunda)),
            };
            let built_seq = images.built.get("seq").map(|b| b.images.iram.clone());
            assert_eq!(images.built["q7"].images.iram, padded(q7.unwrap().bytes), "{name} {}: the Q7 image", arch.name());
            if let Some(s) = built_seq {
                assert_eq!(s, padded(seq.unwrap().bytes), "{name} {}: the SEQ image", arch.name());
            }
            let reset = c.stats.cycles;
            let o = run(&f, arch, &RunOpts::default());
            assert!(o.result.is_ok(), "{name} {}: {:?}", arch.name(), o.result);
            println!("{name:10} {:8} file {:5} cycles (+{reset} reset = {:5}), Rust kind {:5}", arch.name(), o.cycles, o.cycles + reset, rust_kind(name, arch));
        }
    }
}

/// The file with `from` replaced by `to` (once), run on `arch`: its failure text.
fn mutated(name: &str, from: &str, to: &str, arch: Arch) -> String {
    std::env::set_current_dir(repo_root()).unwrap();
    let text = std::fs::read_to_string(path(name)).unwrap();
    assert!(text.contains(from), "{name} has no '{from}'");
    let f = TbFile::parse(&path(name), &text.replacen(from, to, 1)).unwrap_or_else(|e| panic!("{e}"));
    let o = run(&f, arch, &RunOpts::default());
    o.result.expect_err("the changed expectation fails").error
}

#[test]
fn the_transaction_checks_fail_when_what_they_pin_differs() {
    // The leader (core 0) DECs: the same check for core 1 finds none.
    let e = mutated("barrier", "by = \"q7[0]\"\nvalue = 8", "by = \"q7[1]\"\nvalue = 8", Arch::Cayman);
    assert!(e.contains("writes to pool.evt_sem.dec[0]") && e.contains("by q7[1] of 0x8") && e.contains("the log holds none") && e.contains("q7[0] write"), "{e}");
    // On SUNDA the SEQ releases the Q7 cores, not the host.
    let e = mutated(
        "bringup",
        "[[sunda.step]]\nexpect_txn = \"pool.evt_sem.set[248]\"\nby = \"seq\"",
        "[[sunda.step]]\nexpect_txn = \"pool.evt_sem.set[248]\"\nby = \"host\"",
        Arch::Sunda,
    );
    assert!(e.contains("by the host") && e.contains("seq write"), "{e}");
    // The SEQ halts itself once after the restart, not twice.
    let e = mutated("halt-start", "since = \"restarted\"\ncount = 1", "since = \"restarted\"\ncount = 2", Arch::Mariana);
    assert!(e.contains("expected 2 writes to pool.nx.instr_halt_ctrl") && e.contains("since mark 'restarted'") && e.contains("holds 1"), "{e}");
    // A core register that never gets there: the cores named, with what they hold.
    let e =
        mutated("interrupt", "poll_reg = \"q7.ps\"\nmask = 0x30\nvalue = 0x20\ntimeout = 50000", "poll_reg = \"q7.ps\"\nmask = 0x30\nvalue = 0x30\ntimeout = 500", Arch::Cayman);
    assert!(e.contains("after 500 cycles, under mask 0x30 still not 0x30: q7[0].ps = 0x20"), "{e}");
    // Every SPAD word by the init DMA, before host_trigger: a program loaded
    // by BAR0 writes instead (load = "pio") has none by the DMA.
    let e = mutated("doorbell", "load = \"init_dma\"", "load = \"pio\"", Arch::Cayman);
    assert!(e.contains("expected 1024 writes to mem.top_sp.ctrl_spad+0x0") && e.contains(".. 0x") && e.contains("the log holds"), "{e}");
    // A fault the file expects does not fail the run; one it does not, does,
    // with the core's report; the wrong cause names the one taken.
    let e = mutated("windows", "[[step]]\nexpect_exception = \"q7[7]\"\ncause = \"LoadStoreError\"\n", "", Arch::Cayman);
    assert!(e.contains("q7[7] took LoadStoreError") && e.contains("excvaddr 0x40002000"), "{e}");
    let e = mutated("windows", "cause = \"LoadStoreError\"", "cause = \"IllegalInstruction\"", Arch::Cayman);
    assert!(e.contains("expected IllegalInstruction on q7[7]: q7[7] took LoadStoreError"), "{e}");
    // SUNDA's Q7 release is a POOL EVT_SEM SET, notified: a file that leaves
    // the generation's record out fails there, and its record is SUNDA's only.
    let e = mutated("notify", "    \"sunda: sem pool[248]\",", "", Arch::Sunda);
    assert!(e.contains("got [sem pool[248], "), "{e}");
    let e = mutated("notify", "\"sunda: sem pool[248]\"", "\"cayman: sem pool[248]\"", Arch::Cayman);
    assert!(e.contains("expected [sem pool[248], halted"), "{e}");
    // The DMA's records come in the order the unit posted them.
    let e = mutated("notify", "\"dma_done sem=9\", \"sem top_sp[9]\"", "\"sem top_sp[9]\", \"dma_done sem=9\"", Arch::Sunda);
    assert!(e.contains("got [dma_done sem=9, sem top_sp[9], dma_error 0x1], expected [sem top_sp[9], dma_done sem=9, dma_error 0x1]"), "{e}");
}

#[test]
fn file_mistakes_in_the_new_keys_are_refused_on_load_with_their_line() {
    let p = path("barrier");
    let text = std::fs::read_to_string(&p).unwrap();
    let err = |from: &str, to: &str| TbFile::parse(&p, &text.replacen(from, to, 1)).expect_err("refused").to_string();
    let e = err("after = \"arrived\"", "after = \"arived\"");
    assert!(e.contains("no mark 'arived'") && e.contains("marks set before it: arrived") && e.contains("barrier.toml:30:1: after:"), "{e}");
    let e = err("count = 8\nmark = \"arrived\"", "count = 8\nmark = \"arrived\"\nat_least = 1\nvalue = 1");
    assert!(e.contains("not both"), "{e}");
    let e = err("set = { ARRIVE = 0, DEPART = 1, CORES = 8 }", "set = { ARRIVE = -1 }");
    assert!(e.contains("set.ARRIVE") && e.contains("0xffffffff"), "{e}");
    let e = err("[[step]]\nstpb_init = true", "[[step]]\nstart = \"top_sp\"\nat = \"main\"\n[[step]]\nstpb_init = true");
    assert!(e.contains("not the TOP_SP"), "{e}");
    let e = err("[[step]]\nstpb_init = true", "[[step]]\nexpect = \"pool.evt_sem.read[0]\"\nvalue = 1\nat_most = 2\n[[step]]\nstpb_init = true");
    assert!(e.contains("give one of value, at_least, at_most"), "{e}");
    let e = err("asm = \"../../../cosim/firmware/q7/q7_barrier.S\"", "c = [\"k.c\"]");
    assert!(e.contains("set goes with asm"), "{e}");
    // A constant named by set must exist for the generation that runs.
    let t = text.replacen("CORES = 8 }", "CORES = \"N\" }", 1);
    let f = TbFile::parse(&p, &t).unwrap();
    let e = run(&f, Arch::Cayman, &RunOpts::default()).result.expect_err("no constant N").error;
    assert!(e.contains("set.CORES: no constant 'N' for cayman"), "{e}");
}

/// `fill = N` repeats a write's words in turn to N words (the CAM sweep
/// fills 188 words with one), and refuses fewer words than given.
#[test]
fn a_write_fills_its_words_to_the_count_asked() {
    let p = PathBuf::from("fill.toml");
    let text = "archs = [\"cayman\"]\nstep = [\n  { write = \"mem.seq.dma+0x0\", words = [1, 2, 3], fill = 7 },\n  { expect = \"mem.seq.dma+0x0\", words = [1, 2, 3, 1, 2, 3, 1, 0] },\n]\n";
    let f = TbFile::parse(&p, text).unwrap_or_else(|e| panic!("{e}"));
    run(&f, Arch::Cayman, &RunOpts::default()).result.unwrap_or_else(|e| panic!("{}: {}", e.step, e.error));
    let wrong = text.replace("[1, 2, 3, 1, 2, 3, 1, 0]", "[1, 2, 3, 1, 2, 3, 1, 2]");
    assert!(run(&TbFile::parse(&p, &wrong).unwrap(), Arch::Cayman, &RunOpts::default()).result.is_err(), "only 7 words written");
    let e = TbFile::parse(&p, &text.replace("fill = 7", "fill = 2")).expect_err("fewer than given").to_string();
    assert!(e.contains("fill") && e.contains("at least the 3 given"), "{e}");
}

/// One edit of a text, as a hand (or a bad merge) makes them: a line
/// deleted, doubled or cut short, a character changed, a number or a
/// bracket put in, a hex number made longer.
fn mutate(rng: &mut rand::rngs::SmallRng, text: &str) -> String {
    use rand::Rng;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return String::new();
    }
    let i = rng.gen_range(0..lines.len());
    let at = |rng: &mut rand::rngs::SmallRng, l: &str| l.char_indices().map(|(k, _)| k).nth(rng.gen_range(0..l.chars().count().max(1))).unwrap_or(0);
    match rng.gen_range(0..6) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let j = rng.gen_range(0..lines.len());
            lines.insert(i, lines[j].clone());
        }
        2 => return text[..text.char_indices().map(|(k, _)| k).nth(rng.gen_range(0..text.chars().count())).unwrap_or(0)].to_string(),
        3 => {
            let k = at(rng, &lines[i]);
            let c = ['0', 'x', '1', 'f', '-', '=', '[', ']', '"', ',', '.', '#', '\\', ' ', '(', '$'][rng.gen_range(0..16)];
            lines[i].insert(k, c);
        }
        4 => {
            let k = at(rng, &lines[i]);
            let s = ["0xffffffff", "-1", "99999999999999999999", "\"\"", "[", "]", "q7[9]", "1e9", "nan", "'", " = ", "{", "}"][rng.gen_range(0..13)];
            lines[i].insert_str(k, s);
        }
        _ => lines[i] = lines[i].replace("0x", "0x1"),
    }
    lines.join("\n")
}

/// Every input file a user edits (a scenario, a testbench, one file of a
/// register map) loads or is refused with an error, whatever an edit did
/// to it: seeded edits of each (`mutate`, one or two at a time), parsed in
/// this process; a panic fails the test with the file and the edited text.
/// (`tpb` over the same kinds of edit, run whole: about 1,080 by hand,
/// 2026-12-07, none panicked.)
#[test]
fn edited_input_files_load_or_are_refused_never_a_panic() {
    use rand::{Rng, SeedableRng};
    enum Kind {
        Scenario,
        Testbench,
        MapFile(usize),
    }
    let root = repo_root();
    let mut inputs: Vec<(PathBuf, String, Kind)> = Vec::new();
    for dir in ["cosim/scenarios", "testbench/examples", "testbench/examples/firmware", "testbench/examples/collectives"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
        files.sort();
        for f in files {
            let kind = if dir == "cosim/scenarios" || dir.ends_with("collectives") { Kind::Scenario } else { Kind::Testbench };
            inputs.push((f.clone(), std::fs::read_to_string(&f).unwrap(), kind));
        }
    }
    let map: Vec<(PathBuf, String)> = tpb_models::regmap::builtin_files(Arch::Cayman).iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    for (k, (p, t)) in map.iter().enumerate() {
        inputs.push((p.clone(), t.clone(), Kind::MapFile(k)));
    }
    let mut rng = rand::rngs::SmallRng::seed_from_u64(41);
    let (mut runs, mut refused) = (0, 0);
    for (path, text, kind) in &inputs {
        for _ in 0..40 {
            let mut edited = mutate(&mut rng, text);
            if rng.gen_bool(0.3) {
                edited = mutate(&mut rng, &edited);
            }
            let load = std::panic::catch_unwind(|| match kind {
                // A collective's tapes are lowered to programs too, as a run would first.
                Kind::Scenario => scenario::ScenarioFile::parse(&path.display().to_string(), &edited)
                    .is_ok_and(|f| f.collective.as_ref().is_none_or(|c| scenario::collective::programs(Arch::Cayman, c, c.dies).is_ok())),
                Kind::Testbench => TbFile::parse(path, &edited).is_ok(),
                Kind::MapFile(k) => {
                    let mut files = map.clone();
                    files[*k].1 = edited.clone();
                    tpb_models::regmap::load::from_sources(Arch::Cayman, &files).is_ok()
                }
            });
            let ok = load.unwrap_or_else(|_| panic!("{} panicked after this edit:\n{edited}", path.display()));
            runs += 1;
            refused += usize::from(!ok);
        }
    }
    assert!(inputs.len() >= 30 && refused > runs / 4, "{} files, {runs} edits, {refused} refused: the edits must break files", inputs.len());
    println!("{} files, {runs} edited versions: {refused} refused with an error, the rest loaded; none panicked", inputs.len());
}
