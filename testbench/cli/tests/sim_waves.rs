//! `tpb sim` as a user runs it and what it leaves: the summary table, the
//! VCD/FST, the GTKWave save file (names, markers, relocatable), the trace
//! window, the diagrams the documentation shows, and its errors.

use tpb_models::regmap::Arch;

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
    assert!(row.contains(" PASS ") && row.trim_end().ends_with(" 32"), "{row}");
    let gtkw = std::fs::read_to_string(vcd.with_extension("gtkw")).unwrap();
    // Relocatable: [savefile] records where it was written, and the dump and
    // every filter lie beside it, so GTKWave re-roots them when waves/ moves.
    let here = std::fs::canonicalize(&dir).unwrap();
    assert!(gtkw.contains(&format!("[savefile] \"{}\"", here.join("bringup.cayman.gtkw").display())), "{gtkw}");
    let filters: Vec<&str> = gtkw.lines().filter(|l| l.starts_with('^')).filter_map(|l| l.split_once(' ').map(|x| x.1)).collect();
    assert!(filters.len() >= 3 && filters.iter().all(|f| f.starts_with(&here.display().to_string())), "{filters:?}");
    // The instruction filter finds tpb on PATH even when the binary that wrote it is gone.
    let script = filters.iter().find(|f| f.ends_with(".sh")).unwrap();
    let moved = std::fs::read_to_string(script).unwrap().replace(env!("CARGO_BIN_EXE_tpb"), "/nonexistent/tpb");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_tpb"), bin.join("tpb")).unwrap();
    std::fs::write(dir.join("moved.sh"), moved).unwrap();
    let mut child = std::process::Command::new("sh")
        .arg(dir.join("moved.sh"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"0020c0\n").unwrap();
    assert_eq!(String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout), "memw\n");
    let names: Vec<String> = gtkw.lines().filter_map(|l| l.strip_prefix("TOP.")).map(|l| l.split('[').next().unwrap().to_string()).collect();
    assert!(names.len() >= 20 && names.iter().any(|n| n == "q7_run_stall"), "{gtkw}");
    let read = tpb_cosim::waves::read(&vcd, &names).unwrap();
    // The run-stall release is in the trace: q7_run_stall goes 0xff -> 0.
    let k = names.iter().position(|n| n == "q7_run_stall").unwrap();
    let vals: Vec<Option<u64>> = read[k].1.iter().map(|(_, v)| *v).collect();
    assert!(vals.windows(2).any(|w| w == [Some(0xff), Some(0)]), "{vals:?}");
    // Read only as far as a window needs, the changes up to it are the
    // whole file's; the widths from the header are the body's.
    // (A quarter of the file: the reader cuts only where that saves most of it.)
    let first = read.iter().flat_map(|(_, t)| t.first()).map(|(t, _)| *t).min().unwrap();
    let until = first + (whole_end(&vcd) - first) / 4 + 123;
    let part = tpb_cosim::waves::Dump::load_until(&vcd, &names, Some(until)).unwrap();
    assert!(part.end_ps <= until && part.end_ps + 2000 > until && part.end_ps < whole_end(&vcd), "read to {} for {until}", part.end_ps);
    let whole = tpb_cosim::waves::Dump::load(&vcd, &names).unwrap();
    assert_eq!(whole.end_ps, whole_end(&vcd));
    let widths = tpb_cosim::waves::widths(&vcd, &names).unwrap();
    for (n, (w, tr)) in names.iter().zip(&read) {
        assert_eq!((part.width(n), widths.get(n).copied(), whole.width(n)), (Some(*w), Some(*w), Some(*w)), "{n}");
        let upto: Vec<_> = tr.iter().filter(|(t, _)| *t <= until).copied().collect();
        let got: Vec<_> = part.trace(n).unwrap().iter().filter(|(t, _)| *t <= until).copied().collect();
        assert_eq!(got, upto, "{n}");
    }
    for g in ["run_stall", "q7_core0"] {
        let svg = std::fs::read_to_string(vcd.with_extension(format!("{g}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("q7_run_stall") && svg.matches("<path").count() > 10, "{g}");
    }
    // FST works too: written by the FST-writing model (no VCD beside it),
    // with its save file and diagrams.
    let fst = dir.join("bringup.cayman.fst");
    let (code, out, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--fst", fst.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::metadata(&fst).unwrap().len() > 1000);
    assert!(!fst.with_extension("fst.vcd").exists(), "an FST written through a VCD");
    assert!(fst.with_extension("gtkw").exists() && fst.with_extension("run_stall.svg").exists(), "{out}");
}

#[test]
fn tpb_sim_errors_name_the_scenario_the_arch_and_the_file_line() {
    let (code, _, err) = tpb(&["sim", "tsync", "--arch", "sunda"]);
    assert_eq!(code, 2);
    assert!(err.contains("scenario 'tsync' is for cayman, mariana, not sunda"), "{err}");
    let (code, _, err) = tpb(&["sim", "nosuch"]);
    assert_eq!(code, 2);
    assert!(err.contains("no scenario 'nosuch' (built in: allreduce-hier, allreduce-kangaring"), "{err}");
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-sim-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycels = 5\n[bringup]\n").unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml:4:1: unknown field `cycels`"), "{err}");
    std::fs::write(&bad, "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycles = 5\n").unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml: no kind table: a scenario file has one of [bringup], [doorbell], [barrier]"), "{err}");
    std::fs::write(&bad, "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycles = 5\n[doorbell]\nstep_sem = 8\ncompl_sem = 9\nwords = 4\nentries = [[[9, 0, 1]]]\n")
        .unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 2);
    assert!(err.contains("[doorbell] step [9, 0, 1]: m2s and s2m at most 8 (the ring length)"), "{err}");
    let (code, out, _) = tpb(&["scenarios"]);
    assert_eq!(code, 0);
    std::fs::write(&bad, "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycles = 5\n[halt_start]\nq7_cores = 0\n").unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 2);
    assert!(err.contains("[halt_start] q7_cores = 0: choose at least one core"), "{err}");
    std::fs::write(&bad, "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycles = 5\n[dispatch]\nring = 8\nhandlers = []\nstream = []\n").unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 2);
    assert!(err.contains("[dispatch] stream: 1 to 4096 instructions"), "{err}");
    std::fs::write(
        &bad,
        "name = \"x\"\ndescription = \"y\"\narchs = [\"cayman\"]\ncycles = 5\n[dispatch]\nring = 8\nhandlers = [{ opcode = 0x41, func = 1 }]\nstream = [[0x41, 1]]\n",
    )
    .unwrap();
    let (code, _, err) = tpb(&["sim", bad.to_str().unwrap(), "--arch", "cayman"]);
    assert_eq!(code, 2);
    assert!(err.contains("nx_dispatch.S: handler 0 (opcode 0x41) is keyed on func"), "{err}");
    for n in [
        "bringup",
        "doorbell",
        "barrier",
        "mesh",
        "halt-start",
        "notify",
        "interrupt",
        "q7-kernels",
        "dispatch",
        "windows",
        "allreduce-ring",
        "allreduce-mesh",
        "allreduce-kangaring",
        "allreduce-hier",
        "barrier-global",
        "tsync",
    ] {
        assert!(out.lines().any(|l| l.starts_with(n)), "{n}: {out}");
    }
}

/// The doorbell run's save file, read back as GTKWave reads it: real time
/// (the trace's last change is at the run's last cycle in picoseconds),
/// opened on the key window with a named marker at each checked event,
/// BAR0 addresses through a translate filter that names every register the
/// host and the cores reached, states as words, and instructions through
/// the `tpb disasm --filter` process filter, which answers as GTKWave asks.
#[test]
fn the_doorbell_save_file_names_values_and_marks_the_checked_events() {
    use tpb_cosim::waves::gtkw::SaveFile;
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-gtkw");
    let _ = std::fs::remove_dir_all(&dir);
    let vcd = dir.join("doorbell.cayman.vcd");
    let (code, out, err) = tpb(&["sim", "doorbell", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let event = |n: &str| -> u64 {
        let l = out.lines().find(|l| l.trim_end().ends_with(n) && l.trim_start().starts_with("cycle")).unwrap_or_else(|| panic!("{n}: {out}"));
        l.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let (tail, db) = (event("first tail-pointer write"), event("first DMA doorbell"));
    assert!(out.contains("time: one cycle = 1000 ps (1000 MHz"), "{out}");
    let tb = tpb_cosim::waves::Timebase::of(Arch::Cayman).unwrap();
    let f = SaveFile::parse(&std::fs::read_to_string(vcd.with_extension("gtkw")).unwrap());
    assert_eq!(f.dumpfile, std::fs::canonicalize(&vcd).unwrap().display().to_string());
    // Zoomed on the key window: it starts before the first tail-pointer
    // write, and 2^-zoom ps per 200 px puts the first doorbell on screen.
    assert!(f.timestart < tb.start(tail) && f.timestart + 40 * tb.period_ps > tb.start(tail), "timestart {} ps", f.timestart);
    let ps_per_px = 2f64.powf(-f.zoom) / 200.0;
    assert!(((tb.start(db) - f.timestart) as f64) / ps_per_px < 1300.0, "zoom {} leaves the doorbell off screen", f.zoom);
    for (name, c) in [("first tail-pointer write", tail), ("first DMA doorbell", db), ("host_trigger", event("host_trigger")), ("completion posted", event("completion posted"))] {
        assert!(f.markers.iter().any(|m| m.1 == tb.start(c) && m.2.starts_with(name)), "marker {name} at cycle {c}: {:?}", f.markers);
    }
    // The BAR0 address filter names every register the run reached.
    let filt = |t: &str| f.traces.iter().find(|x| x.0.starts_with(t)).unwrap_or_else(|| panic!("{t}: {:?}", f.traces)).clone();
    let (_, file, _) = filt("req_addr");
    let text = std::fs::read_to_string(file.expect("req_addr has a translate filter")).unwrap();
    let table: std::collections::HashMap<String, String> =
        text.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_once(' ')).map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let bar0 = tpb_models::hal::AddressSpace::new(tpb_models::regmap::builtin(Arch::Cayman).unwrap());
    let read = tpb_cosim::waves::read(&vcd, &["req_addr".into(), "req_valid".into()]).unwrap();
    let mut named = 0;
    for (_, v) in read[0].1.iter() {
        let Some(a) = v else { continue };
        if let Some(t @ (tpb_models::hal::Target::Reg { .. } | tpb_models::hal::Target::Elem { .. })) = bar0.decode(*a) {
            assert_eq!(table.get(&format!("{a:08X}")), Some(&t.name()), "{a:#x}");
            named += 1;
        }
    }
    assert!(named > 100 && table.get("00070A00").map(String::as_str) == Some("tpb.tpb.notific_sw_queue_num0"), "{named} register accesses named");
    let (_, file, _) = filt("probe_top_sp_state");
    assert!(std::fs::read_to_string(file.unwrap()).unwrap().contains("\n5 halted\n"));
    // The instruction filter is a program GTKWave runs; ask it as GTKWave does.
    let (_, _, prog) = filt("probe_top_sp_insn");
    let prog = prog.expect("instruction probes have a process filter");
    let mut child = std::process::Command::new(&prog).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    for (word, want) in [("0020C0", "memw"), ("xxxxxx", "xxxxxx")] {
        writeln!(stdin, "{word}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line.trim_end(), want, "{prog}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// The diagrams the README shows (docs/waves/) are what `tpb sim bringup`
/// and `tpb sim doorbell` draw today (everything but the banner line, which names the VCD path).
#[test]
fn readme_diagrams_are_fresh() {
    let root = tpb_testbench::tools::repo_root();
    let dir = root.join("target/cosim-readme");
    let _ = std::fs::remove_dir_all(&dir);
    let body = |t: String| t.lines().filter(|l| !l.starts_with("<!-- GENERATED")).collect::<Vec<_>>().join("\n");
    let runs = [
        ("bringup", "cayman"),
        ("doorbell", "cayman"),
        ("halt-start", "cayman"),
        ("notify", "cayman"),
        ("interrupt", "cayman"),
        ("q7-kernels", "sunda"),
        ("dispatch", "cayman"),
        ("windows", "cayman"),
        ("allreduce-ring", "cayman"),
        ("tsync", "cayman"),
    ];
    for (s, arch) in runs {
        let vcd = dir.join(format!("{s}.{arch}.vcd"));
        let (code, out, err) = tpb(&["sim", s, "--arch", arch, "--vcd", vcd.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
    }
    let diagrams = [
        ("bringup", "cayman", "run_stall"),
        ("bringup", "cayman", "q7_core0"),
        ("doorbell", "cayman", "doorbell"),
        ("doorbell", "cayman", "cores"),
        ("halt-start", "cayman", "halt_start"),
        ("notify", "cayman", "notify"),
        ("interrupt", "cayman", "interrupt"),
        ("q7-kernels", "sunda", "q7_core0"),
        ("dispatch", "cayman", "dispatch"),
        ("windows", "cayman", "xlat"),
        ("allreduce-ring", "cayman", "crossings"),
        ("tsync", "cayman", "crossings"),
    ];
    for (s, arch, g) in diagrams {
        let name = format!("{s}.{arch}.{g}.svg");
        let fresh = body(std::fs::read_to_string(dir.join(&name)).unwrap());
        let checked_in = body(std::fs::read_to_string(root.join("docs/waves").join(&name)).unwrap());
        assert!(
            fresh == checked_in,
            "docs/waves/{name} is stale: cargo run --release --bin tpb -- sim {s} --arch {arch} --vcd waves/{s}.{arch}.vcd && cp waves/{name} docs/waves/"
        );
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
    let line = out.lines().find(|l| l.starts_with("window: traced cycles ")).unwrap_or_else(|| panic!("{out}"));
    let from: u64 = line.trim_start_matches("window: traced cycles ").split("..").next().unwrap().parse().unwrap();
    let read = tpb_cosim::waves::read(&vcd, &["req_write".into(), "q7_run_stall".into()]).unwrap();
    let times: Vec<u64> = read[1].1.iter().map(|(t, _)| *t).collect();
    let tb = tpb_cosim::waves::Timebase::of(Arch::Cayman).unwrap();
    assert!(times[0] >= tb.start(from) && *times.last().unwrap() <= tb.start(from + 40), "{times:?} ps for window from cycle {from}");
    assert!(read[1].1.iter().any(|(_, v)| *v == Some(0)), "the release is inside the window");
    let (code, _, err) = tpb(&["sim", "bringup", "--vcd", vcd.to_str().unwrap(), "--window", "write:pool.q7.nosuch"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown name 'pool.q7.nosuch' (no such register in pool.q7.)"), "{err}");
}

/// The probe wrapper puts the cores and the host on the RTL's time base:
/// in the doorbell VCD the TOP_SP's PC visits its wait-GE loop (the label's
/// address from the assembled firmware), its state alternates running / bus
/// wait, and the host's probe shows its writes (kind 2) and reads (kind 1)
/// with a growing transaction number.
#[test]
fn doorbell_waves_show_the_cores_and_the_host_through_the_probes() {
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-probes");
    let _ = std::fs::remove_dir_all(&dir);
    let vcd = dir.join("doorbell.mariana.vcd");
    let (code, out, err) = tpb(&["sim", "doorbell", "--arch", "mariana", "--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let names: Vec<String> = ["probe_top_sp_pc", "probe_top_sp_state", "probe_hal_kind", "probe_hal_txn", "probe_seq_pc"].iter().map(|s| s.to_string()).collect();
    let r = tpb_cosim::waves::read(&vcd, &names).unwrap();
    let vals = |k: usize| -> Vec<u64> { r[k].1.iter().filter_map(|(_, v)| *v).collect() };
    let fw = tpb_cosim::firmware::top_sp_ccop(&tpb_models::regmap::builtin(Arch::Mariana).unwrap(), 8).unwrap();
    let (wait, trig) = (u64::from(fw.labels["wait_step"]), u64::from(fw.labels["wait_trigger"]));
    let pcs = vals(0);
    assert!(pcs.contains(&wait) && pcs.contains(&trig), "TOP_SP PCs {pcs:?} miss wait_step {wait:#x} / wait_trigger {trig:#x}");
    let st = vals(1);
    assert!(st.contains(&1) && st.contains(&3) && st.last() == Some(&5), "TOP_SP states {st:?}: running, bus wait, halted at the end");
    let kinds = vals(2);
    assert!(kinds.contains(&1) && kinds.contains(&2), "host kinds {kinds:?}");
    let txn = vals(3);
    assert!(txn.windows(2).all(|w| w[0] <= w[1]) && txn.last().copied().unwrap_or(0) > 300, "host transaction numbers {:?}..", &txn[..txn.len().min(8)]);
    let seq = tpb_cosim::firmware::nx_boot(&tpb_models::regmap::builtin(Arch::Mariana).unwrap(), false).unwrap();
    assert!(vals(4).contains(&u64::from(seq.labels["boot"])), "the SEQ's PC passes the trampoline's boot label");
}

/// The last time a VCD holds (ps; its timescale is 1 ps).
fn whole_end(vcd: &std::path::Path) -> u64 {
    let text = std::fs::read_to_string(vcd).unwrap();
    text.lines().filter_map(|l| l.strip_prefix('#')).filter_map(|t| t.parse().ok()).max().unwrap()
}

/// `--trace-groups`: the trace holds the clock and the chosen groups'
/// signals only, each with exactly the changes of a full trace; the .gtkw
/// shows those groups and the diagrams of the others are not drawn.
#[test]
fn trace_groups_write_only_their_signals_with_the_full_traces_values() {
    use tpb_cosim::waves::{group_signals, read, GroupName};
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-trace-groups");
    let _ = std::fs::remove_dir_all(&dir);
    let (full, part) = (dir.join("full.vcd"), dir.join("part.vcd"));
    let (code, out, err) = tpb(&["sim", "doorbell", "--vcd", full.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = tpb(&["sim", "doorbell", "--vcd", part.to_str().unwrap(), "--trace-groups", "doorbell,run_stall"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("diagram: cores: not drawn (its group was not traced: --trace-groups)"), "{out}");
    assert!(part.with_extension("run_stall.svg").exists() && !part.with_extension("cores.svg").exists(), "{out}");
    let chosen = group_signals(Arch::Cayman, &[GroupName::Doorbell, GroupName::RunStall]);
    let text = std::fs::read_to_string(&part).unwrap();
    let vars: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("$var")).map(|l| l.split_whitespace().nth(4).unwrap()).collect();
    let mut want: Vec<&str> = chosen.iter().map(String::as_str).chain(["clock"]).collect();
    want.sort();
    let mut got = vars.clone();
    got.sort();
    assert_eq!(got, want, "the trace's signals");
    assert_eq!(read(&part, &chosen).unwrap(), read(&full, &chosen).unwrap(), "the chosen signals' changes");
    let (f, p) = (std::fs::metadata(&full).unwrap().len(), std::fs::metadata(&part).unwrap().len());
    assert!(p * 4 < f, "the partial trace is {p} bytes, the full one {f}");
    let gtkw = std::fs::read_to_string(part.with_extension("gtkw")).unwrap();
    assert!(gtkw.contains("TOP.q7_run_stall") && !gtkw.contains("TOP.hwd_fifo_handler"), "{gtkw}");
    // `tpb waves gtkw` of that trace: the groups it holds, a window inside it.
    let again = dir.join("again.gtkw");
    let (code, _, err) = tpb(&["waves", "gtkw", part.to_str().unwrap(), "--window", "19300..19340", "--out", again.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let g = std::fs::read_to_string(&again).unwrap();
    assert!(g.contains("TOP.q7_run_stall") && !g.contains("TOP.hwd_fifo_handler") && g.contains("19300"), "{g}");
    // A trace with none of the groups' signals is refused, naming one.
    let foreign = dir.join("foreign.vcd");
    std::fs::write(&foreign, "$timescale 1ps $end\n$scope module TOP $end\n$var wire 1 ! other $end\n$upscope $end\n$enddefinitions $end\n#0\n1!\n").unwrap();
    let (code, _, err) = tpb(&["waves", "gtkw", foreign.to_str().unwrap(), "--out", again.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("foreign.vcd: no signal TOP."), "{err}");
    let (code, _, err) = tpb(&["sim", "doorbell", "--trace-groups", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope"), "{err}");
}

/// `--trace-internals` writes every level (a block's inside: the DMA's
/// scope), where the default trace has two; it needs a trace to write and
/// one system to run.
#[test]
fn tpb_sim_trace_internals_writes_every_level_of_one_system() {
    let (code, _, err) = tpb(&["sim", "bringup", "--trace-internals"]);
    assert_eq!(code, 2);
    assert!(err.contains("--trace-internals needs --vcd or --fst"), "{err}");
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-internals");
    std::fs::create_dir_all(&dir).unwrap();
    let (two, all) = (dir.join("two.vcd"), dir.join("all.vcd"));
    let (code, _, err) = tpb(&["sim", "allreduce-ring", "--dies", "2", "--vcd", all.to_str().unwrap(), "--trace-internals"]);
    assert_eq!(code, 2);
    assert!(err.contains("--trace-internals: not for allreduce-ring"), "{err}");
    for (vcd, internals) in [(&two, false), (&all, true)] {
        let mut args = vec!["sim", "bringup", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()];
        if internals {
            args.push("--trace-internals");
        }
        let (code, out, err) = tpb(&args);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("bringup  cayman   PASS"), "{out}");
        let text = std::fs::read_to_string(vcd).unwrap();
        let header = &text[..text.find("$enddefinitions").unwrap()];
        assert_eq!(header.contains("$scope module dma $end"), internals, "{}", vcd.display());
        assert!(header.contains("$scope module tpb $end") && header.contains("q7_run_stall"), "{}", vcd.display());
    }
}

/// A trace that cannot be written (the disk full: `/dev/full` behind a
/// `.vcd` name) ends the run with an error naming the file and the cause.
/// Verilator's own file, on a failed write, hung the process in its fatal
/// error's flush; the child is given a minute before the test calls it hung.
#[test]
fn a_trace_the_disk_refuses_is_an_error_naming_the_file_not_a_hang() {
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-full");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("full.vcd");
    std::os::unix::fs::symlink("/dev/full", &vcd).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["sim", "bringup", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed().as_secs() > 60 {
            let _ = child.kill();
            panic!("tpb sim still running after a minute with its trace on a full disk: hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stdout}{err}");
    assert!(err.contains("writing trace file") && err.contains("full.vcd") && err.contains("No space left on device"), "{err}");
    assert!(stdout.lines().any(|l| l.starts_with("bringup ") && l.contains(" FAIL ")), "{stdout}");
    assert!(!stdout.contains("waves:") && !dir.join("full.gtkw").exists(), "no save file for a trace not written: {stdout}");
}

/// An FST the model writes on a disk that fills up is an error at the
/// close, naming the file: GTKWave's FST writer drops a failed write without
/// a word, so the close reads the file back. A file-size limit (`ulimit -f`,
/// with SIGXFSZ ignored) makes every write past it fail with EFBIG, as a
/// full disk does with ENOSPC; the limits cut the 316 KB FST of `dispatch`
/// early (64 KiB) and late (200 KiB, a file on which wellen's FST reader
/// asserts instead of failing). Below about 40 KiB the writer's hierarchy
/// file is cut too, and GTKWave's writer would crash (SIGBUS) reading it
/// back through a map: a file system with too little room is refused before
/// the writer starts (`trace_room`; below, the room asked for raised past any
/// disk's with `TPB_FST_MIN_FREE`).
#[test]
fn an_fst_the_disk_cuts_short_is_an_error_naming_the_file() {
    let dir = tpb_testbench::tools::repo_root().join("target/cosim-full-fst");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for kib in [64, 200] {
        let fst = dir.join(format!("cut{kib}.fst"));
        let script = format!("trap '' XFSZ; ulimit -f {kib}; exec \"$0\" sim dispatch --arch cayman --fst \"$1\"");
        let out = std::process::Command::new("bash").args(["-c", &script, env!("CARGO_BIN_EXE_tpb"), fst.to_str().unwrap()]).output().unwrap();
        let (stdout, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(2), "{kib} KiB: {stdout}{err}");
        assert!(err.contains("writing trace file") && err.contains(&format!("cut{kib}.fst")) && err.contains("does not read back as an FST"), "{kib} KiB: {err}");
        assert!(!err.contains("panicked"), "{kib} KiB: {err}");
        assert!(stdout.lines().any(|l| l.starts_with("dispatch ") && l.contains(" FAIL ")), "{kib} KiB: {stdout}");
        assert!(!stdout.contains("waves:") && !fst.with_extension("gtkw").exists(), "{kib} KiB: no save file for a trace not whole: {stdout}");
    }
    let fst = dir.join("no-room.fst");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(["sim", "dispatch", "--arch", "cayman", "--fst", fst.to_str().unwrap()])
        .env("TPB_FST_MIN_FREE", u64::MAX.to_string())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let folder = dir.canonicalize().unwrap();
    assert!(err.contains("not writing FST") && err.contains(&format!("{} has ", folder.display())) && err.contains("write a VCD"), "{err}");
    assert!(!fst.exists() && !dir.join("no-room.fst.hier").exists(), "nothing written");
}

#[test]
fn a_truncated_vcd_is_an_error_in_words() {
    let dir = std::env::temp_dir().join(format!("tpb-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("cut.vcd");
    std::fs::write(&vcd, "$date today $end\n$timescale 1ps $end\n$scope module TOP $end\n$var wire 1 ! clock $end\n$var wire 32 \" req_a").unwrap();
    let (code, _, err) = tpb(&["waves", "render", vcd.to_str().unwrap(), "--arch", "cayman", "--signals", "run_stall", "--out", dir.join("x.svg").to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("cut.vcd") && err.contains("ends inside its header") && !err.contains("FailedToLoad"), "{err}");
    // Not a VCD at all: said so, without the hint about a stopped run.
    let junk = dir.join("junk.vcd");
    std::fs::write(&junk, "not a waveform\n").unwrap();
    let (code, _, err) = tpb(&["waves", "render", junk.to_str().unwrap(), "--out", dir.join("y.svg").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("junk.vcd") && err.contains("not a VCD file") && !err.contains("stopped"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `tpb waves render` / `gtkw --window` past the trace's end is refused
/// (it would draw held values without a word); inside it, drawn.
#[test]
fn a_waves_window_past_the_trace_end_is_refused() {
    let dir = std::env::temp_dir().join(format!("tpb-cli-past-end-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("b.vcd");
    let (code, _, err) = tpb(&["sim", "bringup", "--arch", "cayman", "--vcd", vcd.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let svg = dir.join("x.svg");
    let (code, _, err) = tpb(&["waves", "render", vcd.to_str().unwrap(), "--from", "900", "--to", "50000", "--out", svg.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cycles 900..50000 go past the trace's end (cycle "), "{err}");
    let (code, _, err) = tpb(&["waves", "gtkw", vcd.to_str().unwrap(), "--window", "0..50000", "--out", dir.join("x.gtkw").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = tpb(&["waves", "render", vcd.to_str().unwrap(), "--from", "500", "--to", "560", "--out", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With the NCFW core as the stepper, `tpb sim` prints each stepper's
/// context log decoded from its memory (the cc_op entry, event_index, every
/// event with the handler the firmware ran); `--stepper` is for collectives.
#[test]
fn tpb_sim_prints_the_decoded_ncfw_log_of_each_stepper() {
    let (code, out, err) = tpb(&["sim", "allreduce-ring", "--dies", "4", "--arch", "cayman", "--stepper", "ncfw"]);
    assert_eq!(code, 0, "{out}{err}");
    for d in 0..4 {
        assert!(out.contains(&format!("die {d}'s NCFW context log:")), "{out}");
    }
    assert!(out.contains("cc_op entry: algo_type Mesh") && out.contains("algo_ctx: event_index 14 of 14"), "{out}");
    assert!(out.contains("EVT_REDUCE_COPY (8): no wait, DMA legs; handler 5 reduce"), "{out}");
    assert!(out.contains("handler 2 barrier (snapshot), snapshot "), "{out}");
    let (code, _, err) = tpb(&["sim", "doorbell", "--stepper", "ncfw"]);
    assert_eq!(code, 2);
    assert!(err.contains("--stepper: doorbell is not a collective"), "{err}");
    let (_, out, _) = tpb(&["sim", "allreduce-ring", "--dies", "2", "--arch", "cayman"]);
    assert!(!out.contains("NCFW context log"), "the TOP_SP steps it by default: no NCFW log");
}
