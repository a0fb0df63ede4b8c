//! A collective as data (`[collective.tapes]`): a planner's tapes emitted
//! as a file read back as the same programs and run as the built-in ran,
//! cycle for cycle, check for check, byte for byte in the traces; the
//! example recursive doubling, which no planner has, passes from its file
//! alone, and its corrupted tapes fail naming the die and the chunk; a
//! file's own inputs are what the vectors start from.

use tpb_cosim::scenario::collective::{self, emit_file, programs, CollectiveCfg, Tapes};
use tpb_cosim::scenario::{Report, ScenarioFile};
use tpb_models::regmap::Arch;

fn builtin(name: &str) -> ScenarioFile {
    ScenarioFile::find(name).unwrap()
}

/// `name` emitted on `dies` dies of `k` TOP_SPs, read back as a file.
fn emitted(name: &str, arch: Arch, dies: usize, k: usize) -> ScenarioFile {
    let text = emit_file(&builtin(name), name, arch, Some(dies), Some(k), "test").unwrap_or_else(|e| panic!("{name} on {dies}x{k}: {e}"));
    ScenarioFile::parse(&format!("{name}-{dies}x{k}.toml"), &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn same_programs(a: &Tapes, b: &Tapes, what: &str) {
    assert_eq!((a.sems, a.gather_sem, a.compl_sem, a.done_sem, a.group), (b.sems, b.gather_sem, b.compl_sem, b.done_sem, b.group), "{what}");
    assert_eq!(a.dies.len(), b.dies.len(), "{what}");
    for (d, (x, y)) in a.dies.iter().zip(&b.dies).enumerate() {
        let w = format!("{what}, node {d}");
        assert_eq!(x.events, y.events, "{w}: events");
        assert_eq!(x.moves, y.moves, "{w}: DMA descriptors");
        assert_eq!((x.units, x.body, x.leader, x.compl_addr), (y.units, y.body, y.leader, y.compl_addr), "{w}: units, body, leader, completion address");
        assert_eq!(x.remote_waits, y.remote_waits, "{w}: cross-die WAITs");
        assert_eq!(x.final_counts, y.final_counts, "{w}: final counts");
        assert_eq!(x.ring.is_some(), y.ring.is_some(), "{w}");
        if let (Some(p), Some(q)) = (&x.ring, &y.ring) {
            assert_eq!((&p.entries, &p.channels, p.steps, p.legs), (&q.entries, &q.channels, q.steps, q.legs), "{w}: cc_op entries and the last leg");
            assert!(p.dram == q.dram, "{w}: the DRAM image");
        }
    }
}

/// Every event-tape collective, on 2 to 16 dies and with 2 TOP_SPs a die,
/// by chip id and (the ring) by neighbour route: the data reads back as
/// the very programs its planner built, and what the checks expect
/// (final counts, cross-die WAITs) comes out of the data the same.
#[test]
fn a_planners_tapes_written_as_data_read_back_as_the_same_programs() {
    let shapes = |name: &str| match name {
        "allreduce-kangaring" => vec![(2, 2), (3, 2), (4, 2), (4, 4)],
        "allreduce-hier" => vec![(2, 2), (4, 2), (2, 4), (4, 4)],
        _ => vec![(2, 1), (3, 1), (4, 1), (8, 1), (16, 1), (2, 2), (4, 2)],
    };
    for name in ["allreduce-ring", "allreduce-mesh", "barrier-global", "allreduce-kangaring", "allreduce-hier"] {
        for (dies, k) in shapes(name) {
            let cfg = CollectiveCfg { top_sps: k, ..builtin(name).collective.unwrap() };
            let want = programs(Arch::Cayman, &cfg, dies).unwrap_or_else(|e| panic!("{name} {dies}x{k}: {e}"));
            let got = programs(Arch::Cayman, emitted(name, Arch::Cayman, dies, k).collective.as_ref().unwrap(), dies).unwrap();
            same_programs(&want, &got, &format!("{name} on {dies} dies of {k}"));
        }
    }
    let chans = CollectiveCfg { channels: 2, top_sps: 2, ..builtin("allreduce-ring").collective.unwrap() };
    let f = ScenarioFile { collective: Some(chans.clone()), ..builtin("allreduce-ring") };
    let back = ScenarioFile::parse("c.toml", &emit_file(&f, "ring-channels", Arch::Cayman, Some(3), None, "test").unwrap()).unwrap();
    same_programs(&programs(Arch::Cayman, &chans, 3).unwrap(), &programs(Arch::Cayman, back.collective.as_ref().unwrap(), 3).unwrap(), "ring on 2 channels");
    let ring = CollectiveCfg { addressing: collective::Addressing::Neighbor, ..builtin("allreduce-ring").collective.unwrap() };
    let f = ScenarioFile { collective: Some(ring.clone()), ..builtin("allreduce-ring") };
    let text = emit_file(&f, "ring-neighbor", Arch::Cayman, Some(4), None, "test").unwrap();
    assert!(text.contains("addressing = \"neighbor\"") && text.contains("signal = [{ node = 1, sem = 40 }]"), "{text}");
    let back = ScenarioFile::parse("n.toml", &text).unwrap();
    same_programs(&programs(Arch::Cayman, &ring, 4).unwrap(), &programs(Arch::Cayman, back.collective.as_ref().unwrap(), 4).unwrap(), "neighbour ring");
}

fn run(f: &ScenarioFile, arch: Arch, dies: usize, trace: Option<&std::path::Path>) -> Report {
    let c = f.collective.as_ref().unwrap();
    collective::collective(arch, c, dies, f.cycles, trace).unwrap_or_else(|e| panic!("{} on {dies}: {e}", f.name)).0
}

fn same_run(a: &Report, b: &Report, what: &str) {
    assert_eq!(a.stats.cycles, b.stats.cycles, "{what}: cycles");
    assert_eq!(a.checks, b.checks, "{what}: checks");
    assert_eq!(a.values, b.values, "{what}: values");
    assert_eq!(a.events, b.events, "{what}: events");
}

/// `tpb sim NAME` and the emitted file run the same: cycles, every check's
/// text, every value and event, and (4 dies of the ring and the mesh, by
/// die) the VCD bytes.
#[test]
fn an_emitted_collective_runs_as_the_built_in_did() {
    let dir = std::env::temp_dir().join(format!("tpb-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["allreduce-ring", "allreduce-mesh"] {
        let (a, b) = (dir.join(format!("{name}.planned.vcd")), dir.join(format!("{name}.data.vcd")));
        let (ra, rb) = (run(&builtin(name), Arch::Cayman, 4, Some(&a)), run(&emitted(name, Arch::Cayman, 4, 1), Arch::Cayman, 4, Some(&b)));
        same_run(&ra, &rb, name);
        for d in 0..4 {
            let (x, y) = (tpb_cosim::scenario::die_path(&a, d), tpb_cosim::scenario::die_path(&b, d));
            assert!(std::fs::read(&x).unwrap() == std::fs::read(&y).unwrap(), "{name}: die {d}'s VCD {} and {} differ", x.display(), y.display());
        }
    }
    for (name, arch, dies, k) in [
        ("allreduce-ring", Arch::Cayman, 16, 1),
        ("barrier-global", Arch::Cayman, 8, 1),
        ("allreduce-ring", Arch::Mariana, 4, 2),
        ("allreduce-mesh", Arch::Sunda, 2, 2),
        ("allreduce-kangaring", Arch::Cayman, 4, 2),
        ("allreduce-hier", Arch::Cayman, 4, 4),
        ("allreduce-hier", Arch::Sunda, 2, 2),
    ] {
        let planned = ScenarioFile { collective: Some(CollectiveCfg { top_sps: k, ..builtin(name).collective.unwrap() }), ..builtin(name) };
        same_run(&run(&planned, arch, dies, None), &run(&emitted(name, arch, dies, k), arch, dies, None), &format!("{name} on {dies} {arch:?} dies of {k}"));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A kind that is not a collective is not emitted as data yet, and an
/// all-reduce without tapes says it has no planner.
#[test]
fn what_is_not_data_yet_is_refused_by_name() {
    let e = emit_file(&builtin("doorbell"), "doorbell", Arch::Cayman, None, None, "test").unwrap_err().to_string();
    assert!(e.contains("only the collectives"), "{e}");
    let text = std::fs::read_to_string(example(4)).unwrap();
    let cut = &text[..text.find("[collective.tapes]").unwrap()];
    let e = ScenarioFile::parse("x.toml", cut).unwrap_err().to_string();
    assert!(e.contains("has no planner"), "{e}");
}

fn example(n: usize) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../testbench/examples/collectives/recursive_doubling_{n}.toml"))
}

/// The example collective: recursive doubling, which no planner has, from
/// its file alone, on 4 and 8 dies of every generation.
#[test]
fn the_recursive_doubling_example_passes_from_its_file_alone() {
    for n in [4, 8] {
        let f = ScenarioFile::find(example(n).to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
        for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
            let r = run(&f, arch, n, None);
            assert_eq!(r.get("completions"), n as u64, "{arch:?} {n}");
            println!("recursive doubling on {n} {arch:?} dies: {} checks, {} cycles from the release", r.checks.len(), r.get("collective_cycles"));
        }
    }
}

/// The example's file with `from` replaced by `to` once, run: its failure.
fn broken(from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(example(4)).unwrap();
    assert!(text.contains(from), "no '{from}'");
    let f = ScenarioFile::parse("broken.toml", &text.replacen(from, to, 1)).unwrap_or_else(|e| panic!("{e}"));
    match collective::collective(Arch::Cayman, f.collective.as_ref().unwrap(), 4, f.cycles, None) {
        Ok((r, _)) => panic!("'{to}' passed {} checks", r.checks.len()),
        Err(e) => e.to_string(),
    }
}

/// A corrupted tape fails, naming the die and the chunk: a chunk dropped
/// from die 0's first add, and that add doubled.
#[test]
fn a_corrupted_tape_fails_naming_the_die_and_the_chunk() {
    let first_add = "dma = [{ add = 0, slot = 0, span = 4, done = true }]";
    let e = broken(first_add, "dma = [{ add = 0, slot = 0, span = 3, done = true }]");
    assert!(e.contains("die 0: chunk 3 word 0") && e.contains("(die 1's chunk 3 missing)"), "{e}");
    let e = broken(first_add, "dma = [{ add = 0, slot = 0, span = 4 }, { add = 0, slot = 0, span = 4, done = true }]");
    assert!(e.contains("die 0: chunk 0 word 0") && e.contains("(die 1's chunk 0 counted twice)"), "{e}");
    // Bad data is refused on load or before anything runs, naming the node and the event.
    let e = broken("signal = [{ node = 1, sem = 40 }]", "signal = [{ node = 9, sem = 40 }]");
    assert!(e.contains("node 0 event 1: SIGNAL to node 9: there are 4 nodes"), "{e}");
    let e = broken("done_sem = 42 ", "done_sem = 42222222 ");
    assert!(e.contains("[collective.tapes] done_sem = 42222222: the semaphores run from first_sem = 40 to 255"), "{e}");
    let e = broken("type = \"EVT_SYNC\"", "type = \"EVT_SINK\"");
    assert!(e.contains("'EVT_SINK' is no seed event name"), "{e}");
}

/// The example files are what their generator writes now.
#[test]
fn the_example_files_are_fresh() {
    let script = example(4).with_file_name("recursive_doubling.py");
    let out = std::process::Command::new("python3").arg(&script).arg("--check").output().unwrap_or_else(|e| panic!("python3 (Debian: apt install python3): {e}"));
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

/// A channel program changed as data: a DMA leg fewer than its legs fire is
/// refused before anything runs; a send of the wrong chunk fails naming the
/// TOP_SP and the chunk it lacks.
#[test]
fn a_corrupted_channel_program_is_refused_or_fails_naming_the_chunk() {
    let text = emit_file(&builtin("allreduce-kangaring"), "allreduce-kangaring", Arch::Cayman, Some(2), None, "test").unwrap();
    let run_text = |t: &str| {
        let f = ScenarioFile::parse("k.toml", t).unwrap_or_else(|e| panic!("{e}"));
        collective::collective(Arch::Cayman, f.collective.as_ref().unwrap(), 2, f.cycles, None).map(|(r, _)| r.checks.len()).map_err(|e| e.to_string())
    };
    run_text(&text).unwrap_or_else(|e| panic!("as emitted: {e}"));
    let first = "  [{ pad = true }, { send = 0, to = 2, stage = 0 }],\n";
    assert!(text.contains(first), "{text}");
    let e = run_text(&text.replacen(first, "", 1)).unwrap_err();
    assert!(e.contains("node 0: 3 DMA legs given; its legs' steps × channels fire 4"), "{e}");
    let e = run_text(&text.replacen("{ send = 1, to = 2 }", "{ send = 0, to = 2 }", 1)).unwrap_err();
    assert!(e.contains("die 1 TOP_SP 0: chunk 0 word 0") && e.contains("missing"), "{e}");
}

/// `[[collective.input]]` gives a node's vector: the run starts from it,
/// and every node ends with the sum the test computes from those words
/// itself; a vector of the wrong length is refused naming the node.
#[test]
fn the_files_inputs_are_what_the_vectors_start_from() {
    let mut text = std::fs::read_to_string(example(4)).unwrap();
    for p in 0..4u32 {
        let words: Vec<String> = (0..8u32).map(|i| format!("{:#x}", (p + 1) * 0x1000 + i)).collect();
        text += &format!("\n[[collective.input]]\nnode = {p}\nwords = [{}]\n", words.join(", "));
    }
    let f = ScenarioFile::parse("in.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let c = f.collective.as_ref().unwrap();
    let mut ran = collective::run(Arch::Cayman, c, 4, f.cycles, None).unwrap();
    ran.check().unwrap_or_else(|e| panic!("{e}"));
    for d in 0..4 {
        let dma = u64::from(tpb_cosim::firmware::bar0_region(ran.mesh.dies[d].map(), "seq.dma").unwrap());
        // Four descriptors (two rounds of a send and an add), then the vector.
        let got: Vec<u32> = (0..8u64).map(|i| tpb_models::hal::Mmio::read32(&mut ran.mesh.dies[d], dma + 16 * 4 + 4 * i).unwrap()).collect();
        let want: Vec<u32> = (0..8u32).map(|i| 10 * 0x1000 + 4 * i).collect();
        assert_eq!(got, want, "die {d}'s vector");
    }
    let short = text.replacen("words = [0x1000, 0x1001,", "words = [", 1);
    let f = ScenarioFile::parse("in.toml", &short).unwrap();
    let e = collective::collective(Arch::Cayman, f.collective.as_ref().unwrap(), 4, f.cycles, None).err().unwrap().to_string();
    assert!(e.contains("[[collective.input]] node 0: 6 words; its vector is 4 chunks of 2 words"), "{e}");
}

/// `[[collective.expect]]`: the file's own checks, each naming a die and a
/// register or words of its top, pass on what the run left (the sum here
/// computed by the test from the documented inputs) and fail naming the
/// die; a name the map does not have is refused before anything runs.
#[test]
fn a_files_own_checks_name_their_die() {
    let input = |p: u32, c: u32, w: u32| (p + 1) << 20 | (c + 1) << 8 | (w + 1);
    let sum: Vec<String> = (0..4).flat_map(|c| (0..2).map(move |w| (c, w))).map(|(c, w)| format!("{:#x}", (0..4).map(|p| input(p, c, w)).sum::<u32>())).collect();
    let text = std::fs::read_to_string(example(4)).unwrap()
        + "\n[[collective.expect]]\ndie = 3\nat = \"top_sp.evt_sem.read[40]\"\nvalue = 1\n"
        + &format!("\n[[collective.expect]]\ndie = 2\nat = \"mem.seq.dma+0x40\"\nwords = [{}]\n", sum.join(", "));
    let run_text = |t: &str| {
        let f = ScenarioFile::parse("x.toml", t).unwrap_or_else(|e| panic!("{e}"));
        collective::collective(Arch::Cayman, f.collective.as_ref().unwrap(), 4, f.cycles, None).map(|(r, _)| r.checks).map_err(|e| e.to_string())
    };
    let checks = run_text(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(checks.iter().any(|c| c.starts_with("die 2: mem.seq.dma+0x40 = [0xa00404, 0xa00408, ")), "{checks:?}");
    let e = run_text(&text.replace("value = 1\n", "value = 2\n")).unwrap_err();
    assert!(e.contains("die 3: top_sp.evt_sem.read[40] = [0x1], the file expects [0x2]"), "{e}");
    let e = run_text(&text.replace("die = 3\n", "die = 4\n")).unwrap_err();
    assert!(e.contains("[[collective.expect]] 1 (die 4 TOP_SP 0, top_sp.evt_sem.read[40]): there are 4 dies of 1 TOP_SPs"), "{e}");
    let e = run_text(&text.replace("evt_sem.read[40]", "evt_sem.raed[40]")).unwrap_err();
    assert!(e.contains("unknown name 'top_sp.evt_sem.raed[40]'"), "{e}");
}
