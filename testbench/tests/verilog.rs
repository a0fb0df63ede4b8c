//! The checked-in Verilog: fresh (regenerating it changes nothing), lint-clean
//! under `verilator --lint-only -Wall` with the one waiver file, and
//! synthesizable by Yosys (`synth -flatten`; cell counts are printed). The
//! TPB tops are compositions of those blocks: here Yosys reads and elaborates
//! them (`hierarchy -check`, `check -assert`, ~10 s each); their full
//! `synth_ice40` takes tens of minutes and runs in `scripts/fpga`.

use std::path::Path;
use tpb_testbench::tools::{repo_root, run};

fn verilog_files() -> Vec<(String, std::path::PathBuf)> {
    let dir = repo_root().join("hdl/generated");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("v"))
        .map(|p| (p.file_stem().unwrap().to_str().unwrap().to_string(), p))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no Verilog under {}", dir.display());
    v
}

#[test]
fn checked_in_generated_files_are_fresh() {
    let files = tpb_cosim::regen::all_generated().unwrap();
    let mut stale = Vec::new();
    for (path, text) in &files {
        if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(stale.is_empty(), "stale generated files (run `cargo run --bin tpb -- regen`):\n{}", stale.join("\n"));
    // And nothing in hdl/generated that the generator does not produce.
    for (_, p) in verilog_files() {
        assert!(files.iter().any(|(q, _)| q == &p), "{} is not produced by the generator", p.display());
    }
    println!("{} generated files fresh", files.len());
}

/// The checked-in Verilog has the lean form (docs/decisions/README.md, decision 9):
/// registers live in the module that owns them (one clocked process for its
/// registers, one per memory), no module per flip-flop, no settle shadows,
/// identical modules written once.
#[test]
fn checked_in_verilog_is_lean() {
    println!("{:<24} {:>7} {:>8} {:>10} {:>9}", "file", "lines", "modules", "registers", "memories");
    for (stem, path) in verilog_files() {
        let text = synthesis_form(&std::fs::read_to_string(&path).unwrap());
        assert!(!text.contains("$cmb"), "{stem}: settle shadows");
        let modules: Vec<&str> = text.split("\nmodule ").skip(1).collect();
        let (mut regs, mut mems) = (0, 0);
        for m in &modules {
            let name = m.split(['(', ' ']).next().unwrap();
            let clocked = m.matches("always @(posedge").count();
            let memories = m.lines().filter(|l| l.trim_start().starts_with("reg ") && l.contains(" [0:")).count();
            let registers = m.split("    initial begin\n").nth(1).map_or(0, |r| r.split("    end\n").next().unwrap().lines().count());
            assert!(clocked <= 1 + memories, "{stem}: module {name} has {clocked} clocked processes for {memories} memories");
            assert!(!(registers == 1 && memories == 0 && !m.contains(" (\n        .")), "{stem}: module {name} is a lone flip-flop");
            regs += registers;
            mems += memories;
        }
        let mut bodies: Vec<&str> = modules.iter().map(|m| &m[m.find('(').unwrap()..]).collect();
        let n = bodies.len();
        bodies.sort();
        bodies.dedup();
        assert_eq!(bodies.len(), n, "{stem}: a module is written twice");
        // One module per kind of block (the prototype: 21, the window bundle's RAM form included).
        assert!(n <= 24, "{stem}: {n} modules");
        println!("{stem:<24} {:>7} {n:>8} {regs:>10} {mems:>9}", text.lines().count());
    }
}

/// The text synthesis and Icarus read: without the `ifdef VERILATOR`
/// forms of the memories' processes (their `else` branches kept).
fn synthesis_form(text: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for l in text.lines() {
        match l {
            "`ifdef VERILATOR" => skipping = true,
            "`else" if skipping => skipping = false,
            "`endif" => {}
            _ if !skipping => {
                out += l;
                out.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// Each memory's Verilator-only process (`memory_process` in
/// hdl/src/verilog/lower/text.rs) is its synthesis process with the write
/// blocking (inside one test of the strobes for a byte-lane memory), and no
/// other clocked process has a blocking write: the BLKSEQ waiver in
/// hdl/verilator.vlt covers these forms and nothing else.
#[test]
fn the_verilator_forms_are_the_memories_processes_with_blocking_writes() {
    let mut forms = 0;
    for (stem, path) in verilog_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("\n`ifdef VERILATOR\n") {
            let body = &rest[at + "\n`ifdef VERILATOR\n".len()..];
            let (fast, tail) = body.split_once("`else\n").unwrap_or_else(|| panic!("{stem}: an ifdef VERILATOR without else"));
            let (slow, tail) = tail.split_once("`endif\n").unwrap_or_else(|| panic!("{stem}: an ifdef VERILATOR without endif"));
            // Undo the Verilator form: the strobe test's lines go, what it
            // held moves out a level, and the writes become non-blocking.
            let mut undone = String::new();
            let mut inner = None;
            for l in fast.lines() {
                let t = l.trim_start();
                if t.starts_with("if (|") && t.ends_with("$write_strobe) begin") {
                    inner = Some(format!("{}end", &l[..l.len() - t.len()]));
                } else if inner.as_deref() == Some(l) {
                    inner = None;
                } else {
                    let l = if inner.is_some() { l.strip_prefix("    ").unwrap() } else { l };
                    undone += &l.replace("] = ", "] <= ");
                    undone.push('\n');
                }
            }
            assert_eq!(undone, slow, "{stem}: a Verilator form that says something else than its synthesis form");
            assert!(fast.contains("] = ") && !slow.contains("] = "), "{stem}: the Verilator form writes blocking, the other does not:\n{fast}");
            forms += 1;
            rest = tail;
        }
        let synthesis = synthesis_form(&text);
        for process in synthesis.split("always @(posedge").skip(1) {
            let body = process.split("\n    end\n").next().unwrap();
            let blocking: Vec<&str> = body.lines().filter(|l| l.contains(" = ") && !l.trim_start().starts_with("//")).collect();
            assert!(blocking.is_empty(), "{stem}: a blocking write in a clocked process: {blocking:?}");
        }
    }
    // One for each memory of each module written (a module used 8 times is
    // written once): 83 over the files of 2026-12-07.
    assert!(forms >= 80, "{forms} Verilator forms");
}

#[test]
fn generated_files_carry_a_banner() {
    for (path, _) in tpb_cosim::regen::all_generated().unwrap() {
        let text = std::fs::read_to_string(&path).unwrap();
        let head: String = text.lines().take(2).collect::<Vec<_>>().join("\n");
        assert!(head.contains("GENERATED by"), "{}: no banner in the first lines", path.display());
    }
}

#[test]
fn verilator_lint_is_clean() {
    let vlt = repo_root().join("hdl/verilator.vlt");
    for (module, path) in verilog_files() {
        let out = run("verilator", &["--lint-only", "-Wall", vlt.to_str().unwrap(), path.to_str().unwrap(), "--top-module", &module]).unwrap_or_else(|e| panic!("{e}"));
        assert!(out.status.success(), "verilator lint of {} failed:\n{}", path.display(), String::from_utf8_lossy(&out.stderr));
    }
}

/// The waiver file is the only place lint rules are switched off.
#[test]
fn lint_waivers_live_in_one_file_with_reasons() {
    for (_, p) in verilog_files() {
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(!t.contains("verilator lint_off"), "{}: inline lint waiver", p.display());
    }
    let vlt = std::fs::read_to_string(repo_root().join("hdl/verilator.vlt")).unwrap();
    let lines: Vec<&str> = vlt.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("lint_off") {
            assert!(i > 0 && lines[i - 1].trim_start().starts_with("//"), "waiver without a reason: {l}");
        }
    }
}

fn yosys_cells(path: &Path, module: &str) -> (u64, u64) {
    let script = format!("read_verilog -sv {}; synth -flatten -top {module}; tee -q -o /dev/stdout stat", path.display());
    let out = run("yosys", &["-q", "-p", &script]).unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "yosys failed on {}:\n{}\n{}", path.display(), stdout, String::from_utf8_lossy(&out.stderr));
    let mut cells = 0;
    let mut ffs = 0;
    for l in stdout.lines() {
        let l = l.trim();
        if let Some(n) = l.strip_prefix("Number of cells:") {
            cells = n.trim().parse().unwrap();
        } else if l.starts_with("$_") && l.contains("DFF") {
            ffs += l.split_whitespace().last().unwrap().parse::<u64>().unwrap();
        }
    }
    (cells, ffs)
}

/// One test per generation so the test runner spreads them over the cores.
fn yosys_synthesizes(arch: &str) {
    println!("{:<28} {:>8} {:>8}", "module", "cells", "flops");
    for (module, path) in verilog_files().into_iter().filter(|(m, _)| m.starts_with(arch) && !m.ends_with("_tpb_top") && !m.ends_with("_tpb_proto")) {
        let (cells, ffs) = yosys_cells(&path, &module);
        assert!(cells > 0, "{module}: no cells");
        println!("{module:<28} {cells:>8} {ffs:>8}");
    }
}

#[test]
fn yosys_synthesizes_sunda() {
    yosys_synthesizes("sunda_");
}

#[test]
fn yosys_synthesizes_cayman() {
    yosys_synthesizes("cayman_");
}

#[test]
fn yosys_synthesizes_mariana() {
    yosys_synthesizes("mariana_");
}

/// Yosys reads every TPB top and every FPGA prototype (a top and the host
/// link's bridge), finds every module it instantiates, uses every module the
/// file defines, and reports no problem (undriven or multiply driven wires,
/// logic loops).
#[test]
fn yosys_elaborates_the_tops() {
    for module in ["sunda", "cayman", "mariana"].iter().flat_map(|a| [format!("{a}_tpb_top"), format!("{a}_tpb_proto")]) {
        let path = repo_root().join(format!("hdl/generated/{module}.v"));
        let script = format!("read_verilog -sv {}; hierarchy -check -top {module}; check -assert; tee -q -o /dev/stdout stat", path.display());
        let out = run("yosys", &["-q", "-p", &script]).unwrap_or_else(|e| panic!("{e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "yosys failed on {module}:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        let modules = stdout.lines().filter(|l| l.starts_with("=== ") && !l.contains("design hierarchy")).count();
        let defined = std::fs::read_to_string(&path).unwrap().lines().filter(|l| l.starts_with("module ")).count();
        println!("{module}: elaborated, {modules} modules");
        assert!(modules >= 10 && modules == defined, "{module}: {modules} modules in the hierarchy, {defined} in the file");
    }
}

/// iCE40 synthesis (`synth_ice40`) of one module: (LUT4, flip-flops, SB_RAM40_4K).
fn ice40_stat(path: &Path, module: &str) -> (u64, u64, u64) {
    let script = format!("read_verilog -sv {}; synth_ice40 -top {module}; tee -q -o /dev/stdout stat", path.display());
    let out = run("yosys", &["-q", "-p", &script]).unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "yosys failed on {module}:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let count = |cell: &str| -> u64 { stdout.lines().map(str::trim).filter(|l| l.starts_with(cell)).map(|l| l.split_whitespace().last().unwrap().parse::<u64>().unwrap()).sum() };
    (count("SB_LUT4"), count("SB_DFF"), count("SB_RAM40_4K"))
}

/// The hand-written blocks (no generation prefix) are FPGA blocks: Yosys
/// `synth_ice40` maps each, and every memory lands in block RAM, not in
/// flip-flops (DIGEST §3 / issue 5: the 256 semaphores are two SB_RAM40_4K).
#[test]
fn common_blocks_synthesize_for_ice40_with_memories_in_block_ram() {
    let common: Vec<_> = verilog_files().into_iter().filter(|(m, _)| !["sunda_", "cayman_", "mariana_"].iter().any(|p| m.starts_with(p))).collect();
    // (module, block RAMs, flip-flop bound far below the memory's bits):
    // 256x32 semaphores = 2 RAMs (8192 bits); the 8 KiB table = 16 (65536
    // bits; the 47 CAM entries are registers); 8 cores x (IRAM + DRAM), each
    // 1 KiB of 32-bit words with byte write masks = 32 (131072 bits, every
    // RAM full); the DMA SRAM, 2 KiB = 4 (16384 bits); the host-link bridge's
    // 64-word BURST buffer = 2 (two 16-bit-wide RAMs); the notification
    // ring, 256 records of 4 words in four lanes = 8 (32768 bits; its 16
    // slots, six of them holding 32-bit instruction tags, are registers).
    let expect = [
        ("evt_sem", 2, 400),
        ("host_bridge", 2, 400),
        ("hw_decode", 16, 3000),
        ("notific", 8, 1000),
        ("q7_cluster", 32, 2000),
        ("seq_dma", (32u64 << tpb_models::golden::seq_dma::SRAM_AW) / 4096, 1000),
    ];
    assert_eq!(common.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>(), expect.iter().map(|e| e.0).collect::<Vec<_>>());
    println!("{:<12} {:>8} {:>8} {:>12}", "module", "LUT4", "flops", "SB_RAM40_4K");
    for ((module, path), (_, bram_expected, ff_bound)) in common.iter().zip(expect) {
        let (luts, ffs, bram) = ice40_stat(path, module);
        println!("{module:<12} {luts:>8} {ffs:>8} {bram:>12}");
        assert_eq!(bram, bram_expected, "{module}: block RAMs");
        assert!(ffs < ff_bound, "{module}: {ffs} flip-flops: a memory was built from registers");
    }
}
