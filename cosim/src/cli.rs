//! The `tpb` command line's commands (the binary is in `testbench/`, which
//! adds `tpb test`).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tpb_models::regmap::{self, gen, Arch};

#[derive(Parser, Debug)]
#[command(name = "tpb", version, about = "tpbsim: register maps, Verilog and co-simulation of the TPB control plane")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    Sunda,
    Cayman,
    Mariana,
}

impl From<ArchArg> for Arch {
    fn from(a: ArchArg) -> Arch {
        match a {
            ArchArg::Sunda => Arch::Sunda,
            ArchArg::Cayman => Arch::Cayman,
            ArchArg::Mariana => Arch::Mariana,
        }
    }
}

/// Which core's options and memory map to use.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CoreArg {
    /// An NX sequencer (also the TOP_SP and the LX management core).
    Nx,
    /// A Q7 core.
    Q7,
    /// QEMU's `-M sim -cpu de212` (reset 0x50000000, data at 0x60000000):
    /// run the programs built for QEMU as QEMU runs them.
    De212,
}

/// A number by the project's one rule (`tpb_regmap::space::parse_number`):
/// decimal, `0x` hex or `0b` binary, `_` separators.
fn parse_u32(s: &str) -> Result<u32, String> {
    regmap::space::parse_u32(s).ok_or_else(|| format!("'{s}' is not a 32-bit number (decimal, 0x hex or 0b binary)"))
}

fn core_config(arch: ArchArg, core: CoreArg) -> Result<tpb_models::xtensa::CoreConfig, CliError> {
    let params = regmap::builtin(arch.into())?.params;
    Ok(match core {
        CoreArg::Nx => tpb_models::xtensa::CoreConfig::nx(&params),
        CoreArg::Q7 => tpb_models::xtensa::CoreConfig::q7(&params, 0),
        CoreArg::De212 => tpb_models::xtensa::CoreConfig::qemu_de212(),
    })
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown register reference.
    Md,
    /// The elaborated map as JSON.
    Json,
    /// C header with offsets, masks and reset values.
    C,
    /// SystemRDL 2.0 export.
    Rdl,
    /// The generated rust-hdl source of the register blocks.
    RustHdl,
    /// The HAL's typed Rust register constants.
    Hal,
}

#[derive(Subcommand, Debug)]
pub enum FpgaCmd {
    /// Synthesize, place and route a generation's prototype (the host-link
    /// bridge and the top) for a board and write its bitstream and report.
    Build {
        #[arg(long, value_enum)]
        arch: ArchArg,
        /// A built-in board (`ulx3s-85f`) or a board .toml file.
        #[arg(long, default_value = "ulx3s-85f")]
        board: String,
        /// The design clock (the PLL makes it; timing is met against it).
        #[arg(long, default_value_t = f64::from(tpb_hdl::proto::DEFAULT_CLOCK_HZ) / 1e6)]
        clock_mhz: f64,
        /// The host link's rate.
        #[arg(long, default_value_t = tpb_hdl::proto::DEFAULT_BAUD)]
        baud: u32,
        /// 1 KiB memories instead of the prototype's (a quicker build).
        #[arg(long)]
        small: bool,
        /// Where everything goes (default: build/fpga/<arch>-<board>).
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// nextpnr's threads (default: the machine's cores).
        #[arg(long)]
        threads: Option<usize>,
        /// nextpnr's router.
        #[arg(long, default_value = "router1", value_parser = ["router1", "router2"])]
        router: String,
        /// Timing-driven LUT mapping (`synth_ecp5 -abc9`).
        #[arg(long)]
        abc9: bool,
    },
    /// Print the openFPGALoader command that loads a bitstream on the board
    /// (nothing is run: no board is attached here).
    Program {
        #[arg(long, default_value = "ulx3s-85f")]
        board: String,
        /// The .bit `tpb fpga build` wrote.
        bit: PathBuf,
        /// Write the SPI flash instead of the FPGA's SRAM.
        #[arg(long)]
        flash: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum WavesCmd {
    /// Draw a timing diagram (SVG) of a signal group.
    Render {
        /// The VCD or FST.
        file: PathBuf,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        /// bar0, run_stall, q7_core0, doorbell or cores.
        #[arg(long, default_value = "run_stall")]
        signals: String,
        /// First cycle.
        #[arg(long, default_value = "0")]
        from: u64,
        /// Last cycle.
        #[arg(long, default_value = "100")]
        to: u64,
        /// A named marker: CYCLE:NAME (repeatable).
        #[arg(long = "marker", value_parser = parse_marker)]
        markers: Vec<(u64, String)>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Write a GTKWave save file (.gtkw) grouping the signals of every group,
    /// with values named (its filter files go to a `gtkw-filters/` folder beside it).
    Gtkw {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        /// Open zoomed on these cycles: FROM..TO.
        #[arg(long, value_parser = parse_range)]
        window: Option<(u64, u64)>,
        /// A named marker: CYCLE:NAME (repeatable).
        #[arg(long = "marker", value_parser = parse_marker)]
        markers: Vec<(u64, String)>,
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a co-simulation scenario (the Verilated top, the behavioural
    /// cores and the host HAL on one clock) and print its summary.
    Sim {
        /// A built-in scenario (`tpb scenarios`) or a scenario .toml file.
        scenario: String,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        /// Write a VCD of the whole run here.
        #[arg(long, conflicts_with = "fst")]
        vcd: Option<PathBuf>,
        /// Write an FST of the whole run here.
        #[arg(long)]
        fst: Option<PathBuf>,
        /// Override the scenario's cycle budget: the most cycles each phase
        /// (the SEQ reaching enter_run, the release, the cores halting, ...)
        /// may take before its check fails.
        #[arg(long)]
        cycles: Option<u64>,
        /// Trace only a window that opens on a trigger: `write:ADDR`,
        /// `access:ADDR` or `cycle:N`; ADDR is a number or
        /// `<engine>.<block>.<register>` (`write:pool.q7.release_run_stall`).
        /// Needs --vcd or --fst.
        #[arg(long, value_name = "TRIGGER")]
        window: Option<String>,
        /// Cycles the window stays open.
        #[arg(long, default_value = "200", requires = "window")]
        window_cycles: u64,
    },
    /// List the built-in co-simulation scenarios.
    Scenarios,
    /// Look at a VCD/FST a run wrote: timing diagrams and GTKWave save files.
    Waves {
        #[command(subcommand)]
        what: WavesCmd,
    },
    /// The FPGA prototype: build a bitstream for a board, or print how to load it.
    Fpga {
        #[command(subcommand)]
        what: FpgaCmd,
    },
    /// Print a generation's register map in one of the generated formats.
    Regmap {
        #[arg(long, value_enum)]
        arch: ArchArg,
        #[arg(long, value_enum, default_value = "md")]
        format: Format,
        /// Load the map from this directory instead of the built-in one
        /// (validates a map you are editing).
        #[arg(long)]
        maps: Option<PathBuf>,
    },
    /// Write the Verilog of one or all generations (register blocks, the
    /// full-size TPB top, the hand-written blocks) into a directory.
    GenVerilog {
        /// Generation; all generations when omitted.
        #[arg(long, value_enum)]
        arch: Option<ArchArg>,
        #[arg(long)]
        out: PathBuf,
        /// Also write each top with FPGA-sized (1 KiB) memories, `<arch>_tpb_top_fpga.v`.
        #[arg(long)]
        fpga: bool,
    },
    /// Rewrite every checked-in generated file (Verilog, docs, headers), or
    /// with --check report the stale ones and fail.
    Regen {
        #[arg(long)]
        check: bool,
    },
    /// Assemble Xtensa source for a TPB core into a raw image (and optionally an ELF).
    Asm {
        /// Assembly source file.
        input: PathBuf,
        /// Raw image output (the bytes from `--base` on).
        #[arg(short, long)]
        out: PathBuf,
        /// Also write an ELF32 executable.
        #[arg(long)]
        elf: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        #[arg(long, value_enum, default_value = "nx")]
        core: CoreArg,
        /// Load address of the first byte.
        #[arg(long, default_value = "0", value_parser = parse_u32)]
        base: u32,
    },
    /// Disassemble a raw image for a TPB core.
    Disasm {
        /// The raw image; with --filter, none.
        #[arg(required_unless_present = "filter")]
        input: Option<PathBuf>,
        /// Act as a GTKWave process filter: read instruction words in hex
        /// (an instruction probe's value, 3 bytes little-endian), one per
        /// line on standard input, and answer each with its disassembly
        /// (PC-relative targets as offsets: `.+0x10`).
        #[arg(long, conflicts_with = "input")]
        filter: bool,
        #[arg(long, value_enum, default_value = "nx")]
        core: CoreArg,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        #[arg(long, default_value = "0", value_parser = parse_u32)]
        base: u32,
    },
    /// Run Xtensa source or an ELF on the behavioural core from reset and
    /// print the retire trace (PC, instruction, register written, memory access).
    Run {
        /// `.S` source (assembled at 0) or an ELF image.
        input: PathBuf,
        #[arg(long, value_enum, default_value = "nx")]
        core: CoreArg,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        /// Stop after this many steps.
        #[arg(long, default_value = "10000")]
        steps: u64,
        /// Print only the final state, not every instruction.
        #[arg(long)]
        quiet: bool,
    },
    /// Run the host HAL's `stpb_init` + `pooling_init` against the in-process
    /// golden BAR0 model and print every access with its register name.
    Bringup {
        #[arg(long, value_enum)]
        arch: ArchArg,
        /// Load the map from this directory instead of the built-in one.
        #[arg(long)]
        maps: Option<PathBuf>,
        /// Q7 IRAM image (raw bytes); empty when omitted.
        #[arg(long)]
        q7_iram: Option<PathBuf>,
        /// Q7 DRAM image.
        #[arg(long)]
        q7_dram: Option<PathBuf>,
        /// SEQ (POOL NX) IRAM image.
        #[arg(long)]
        seq_iram: Option<PathBuf>,
        /// SEQ DRAM image.
        #[arg(long)]
        seq_dram: Option<PathBuf>,
    },
}

/// `CYCLE:NAME`.
fn parse_marker(s: &str) -> Result<(u64, String), String> {
    let (c, n) = s.split_once(':').ok_or_else(|| format!("'{s}': a marker is CYCLE:NAME"))?;
    Ok((c.trim().parse().map_err(|_| format!("'{c}' is not a cycle number"))?, n.to_string()))
}

/// `FROM..TO` (cycles).
fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("'{s}': a window is FROM..TO (cycles)"))?;
    let n = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("'{t}' is not a cycle number"));
    let (a, b) = (n(a)?, n(b)?);
    if b <= a {
        return Err(format!("'{s}': the window is empty"));
    }
    Ok((a, b))
}

/// A .gtkw for `dump` (widths read from the dump itself).
pub fn write_gtkw(dump: &std::path::Path, arch: Arch, out: &std::path::Path, view: Option<&crate::waves::View>) -> Result<(), CliError> {
    write_gtkw_from(&crate::waves::Dump::load_groups(dump, arch)?, arch, out, view)
}

/// A .gtkw for a dump already read, its filter files in `gtkw-filters/`
/// beside it; the instruction filter runs this program (`tpb`).
fn write_gtkw_from(d: &crate::waves::Dump, arch: Arch, out: &std::path::Path, view: Option<&crate::waves::View>) -> Result<(), CliError> {
    let abs = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let filters = abs(dir).join("gtkw-filters");
    let exe = std::env::current_exe().ok();
    let namer = crate::waves::names::Namer::for_arch(arch)?;
    let g = crate::waves::gtkw(&namer, crate::waves::Timebase::of(arch)?, &abs(&d.path), &filters, &|n| d.width(n), view, exe.as_deref());
    Ok(g.write(out)?)
}

/// The cycles a run's save file opens on and its diagrams show, and its markers.
fn key_view(kind: crate::scenario::Kind, r: &crate::scenario::Report, s: &crate::sched::Stats) -> Option<crate::waves::View> {
    use crate::scenario::Kind;
    let mut markers: Vec<(u64, String)> = r.events.iter().filter(|e| e.0 > 0).cloned().collect();
    if let Some(rel) = s.first_release {
        markers.push((rel, "run-stall release".into()));
    }
    markers.sort();
    let at = |n: &str| r.events.iter().find(|e| e.1 == n).map(|e| e.0);
    let (from, to, focus) = match kind {
        Kind::Doorbell => (at("first tail-pointer write")?.saturating_sub(4), at("first DMA doorbell")? + 8, vec!["doorbell", "cores"]),
        Kind::Bringup => {
            let rel = s.first_release?;
            (rel.saturating_sub(12), rel + 16, vec!["run_stall", "q7_core0"])
        }
        Kind::Barrier | Kind::Mesh => {
            let first = markers.first()?.0;
            let last = markers.last()?.0;
            (first.saturating_sub(8), last + 16, vec!["cores", "doorbell"])
        }
    };
    Some(crate::waves::View { from, to, markers, focus: focus.into_iter().map(String::from).collect() })
}

/// A `--window` trigger: `write:X`, `access:X` or `cycle:N`, X an address
/// or any register name of the generation's address space
/// (`pool.q7.release_run_stall`, `top_sp.evt_sem.inc[5]`).
pub fn parse_trigger(map: &regmap::RegMap, spec: &str) -> Result<crate::dut::Trigger, CliError> {
    use crate::dut::Trigger;
    let bad = |why: String| CliError::Sim(format!("--window {spec}: {why}"));
    let (kind, what) = spec.split_once(':').ok_or_else(|| bad("write:ADDR, access:ADDR or cycle:N".into()))?;
    let addr = |t: &str| -> Result<u32, CliError> {
        match regmap::space::parse_u32(t) {
            Some(a) => Ok(a),
            None => regmap::space::AddressSpace::new(map.clone()).resolve(t).map(|n| n.addr()).map_err(|e| bad(e.to_string())),
        }
    };
    match kind {
        "write" => Ok(Trigger::Write(addr(what)?)),
        "access" => Ok(Trigger::Access(addr(what)?)),
        "cycle" => regmap::space::parse_number(what).map(Trigger::Cycle).ok_or_else(|| bad(format!("'{what}' is not a cycle number"))),
        _ => Err(bad(format!("'{kind}' is not write, access or cycle"))),
    }
}

/// `tpb sim`: run a scenario, trace it if asked, print the summary table.
fn sim(name: &str, arch: Arch, vcd: Option<&std::path::Path>, fst: Option<&std::path::Path>, cycles: Option<u64>, window: Option<(String, u64)>) -> Result<(), CliError> {
    use crate::scenario::{self as sc, Kind, Report, ScenarioFile};
    let f = ScenarioFile::find(name)?;
    if !f.applies(arch) {
        return Err(CliError::Sim(format!("scenario '{}' is for {}, not {}", f.name, f.archs.join(", "), arch.name())));
    }
    let trace = vcd.or(fst);
    if let Some(d) = trace.and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|source| CliError::Io { path: d.into(), source })?;
    }
    if window.is_some() && trace.is_none() {
        return Err(CliError::Sim("--window needs --vcd or --fst (where the window goes)".into()));
    }
    if window.is_some() && f.kind == Kind::Mesh {
        return Err(CliError::Sim("--window: not for the mesh scenario (it traces every die whole)".into()));
    }
    let limit = cycles.unwrap_or(f.cycles);
    let bar = indicatif::ProgressBar::new(limit);
    bar.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg} cycle {pos} of at most {len} per phase [{elapsed}]").unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()));
    bar.set_message(format!("{} on {}", f.name, arch.name()));
    let t0 = std::time::Instant::now();
    let mut c0 = 0;
    let mut traces: Vec<std::path::PathBuf> = Vec::new();
    // What the scheduler counted, also when a check failed (the mesh's dies
    // report only through their Report).
    let mut ran = crate::sched::Stats::default();
    let (result, window_seen): (Result<Report, sc::ScenarioError>, Option<String>) = if let sc::Program::Mesh(m) = f.program()? {
        if let Some(p) = trace {
            traces = (0..2).map(|k| sc::die_path(p, k)).collect();
        }
        (sc::mesh(arch, m, limit, trace).map(|(r, _)| r), None)
    } else {
        let mut c = crate::sched::Cosim::new(arch).map_err(sc::ScenarioError::from)?;
        if let Some(p) = trace {
            traces.push(p.to_path_buf());
            match &window {
                None => c.trace(p).map_err(|e| CliError::Sim(e.to_string()))?,
                Some((spec, n)) => {
                    let t = parse_trigger(c.map(), spec)?;
                    c.dut.trace_window(p, t, crate::dut::WindowEnd::After(*n)).map_err(|e| CliError::Sim(e.to_string()))?;
                }
            }
        }
        c.progress = Some(bar.clone());
        c0 = c.stats.cycles;
        let r = f.run_on(&mut c, limit);
        ran = c.stats;
        let closed = c.dut.trace_close();
        let r = r.and_then(|r| closed.map(|()| r).map_err(|e| sc::ScenarioError::from(crate::sched::CosimError::from(e))));
        let w = window.as_ref().map(|_| format!("{:?}", c.dut.window()));
        (r, w)
    };
    bar.finish_and_clear();
    let wall = t0.elapsed().as_secs_f64();
    let (s, checks) = match &result {
        Ok(r) => (r.stats, r.checks.len()),
        Err(_) => (ran, 0),
    };
    println!("scenario   arch     result  cycles   wall     cycles/s  transactions  core txns  doorbells  instructions  stalls released  checks");
    println!(
        "{:<10} {:<8} {:<7} {:<8} {:<8} {:<9.0} {:<13} {:<10} {:<10} {:<13} {:<16} {}",
        f.name,
        arch.name(),
        if result.is_ok() { "PASS" } else { "FAIL" },
        s.cycles,
        format!("{wall:.2}s"),
        s.cycles.saturating_sub(c0) as f64 / wall,
        s.transactions,
        s.core_transactions,
        s.doorbells,
        s.retired,
        s.stalls_released,
        checks
    );
    if let Ok(r) = &result {
        for (cy, what) in &r.events {
            println!("  cycle {cy:>7}  {what}");
        }
    }
    let tb = crate::waves::Timebase::of(arch)?;
    println!("time: one cycle = {} ps ({:.0} MHz, the [D] clock of arch.toml [sim]); {} cycles = {:.3} us", tb.period_ps, tb.mhz(), s.cycles, (s.cycles * tb.period_ps) as f64 / 1e6);
    let view = result.as_ref().ok().and_then(|r| key_view(f.kind, r, &s)).filter(|_| window.is_none());
    // Each trace is read once: its .gtkw and its diagrams come from that read.
    let mut dumps = Vec::new();
    for p in &traces {
        let g = p.with_extension("gtkw");
        let d = crate::waves::Dump::load_groups(p, arch)?;
        write_gtkw_from(&d, arch, &g, view.as_ref())?;
        println!("waves: {} (GTKWave: gtkwave {})", p.display(), g.display());
        dumps.push(d);
    }
    if let Some(w) = window_seen {
        println!("window: {w}");
    }
    // Timing diagrams of what people look at, drawn from the trace.
    if let (Some(p), None, Ok(_)) = (trace, &window, &result) {
        let mut d: Vec<(&str, u64, u64)> = Vec::new();
        if let Some(rel) = s.first_release {
            d.push(("run_stall", rel.saturating_sub(12), rel + 16));
            if f.kind != Kind::Mesh {
                d.push(("q7_core0", rel, rel + 24));
            }
        }
        if f.kind == Kind::Doorbell {
            if let Some(v) = &view {
                d.push(("doorbell", v.from, v.to));
                d.push(("cores", v.from, v.to));
            }
        }
        let p = if f.kind == Kind::Mesh { sc::die_path(p, 0) } else { p.to_path_buf() };
        let dump = dumps.iter().find(|x| x.path == p).ok_or_else(|| CliError::Sim(format!("{} was not traced", p.display())))?;
        let namer = crate::waves::names::Namer::for_arch(arch)?;
        let markers = view.as_ref().map(|v| v.markers.clone()).unwrap_or_default();
        for (group, from, to) in d {
            let svg = p.with_extension(format!("{group}.svg"));
            write(&svg, &crate::waves::render_dump(dump, &namer, tb, group, from, to, &markers)?)?;
            println!("diagram: {} (cycles {from}..{to})", svg.display());
        }
    }
    result.map(|_| ()).map_err(CliError::from)
}

/// Errors of the command line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Scenario(#[from] crate::scenario::ScenarioError),
    #[error("{0}")]
    Sim(String),
    #[error(transparent)]
    Waves(#[from] crate::waves::WavesError),
    #[error(transparent)]
    Regmap(#[from] regmap::RegmapError),
    #[error(transparent)]
    Gen(#[from] tpb_hdl::generated::GenError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0} generated file(s) are stale; run `cargo run --bin tpb -- regen`")]
    Stale(usize),
    #[error(transparent)]
    Hal(#[from] tpb_models::hal::HalError),
    #[error("{}:{}: {}", .1.display(), .0.line, .0.message)]
    Asm(tpb_models::xtensa::asm::AsmError, PathBuf),
    #[error("{0}")]
    Other(String),
}

fn read_file(p: &PathBuf) -> Result<Vec<u8>, CliError> {
    std::fs::read(p).map_err(|source| CliError::Io { path: p.clone(), source })
}

fn read_image(path: Option<&PathBuf>) -> Result<Vec<u8>, CliError> {
    match path {
        Some(p) => std::fs::read(p).map_err(|source| CliError::Io { path: p.clone(), source }),
        None => Ok(Vec::new()),
    }
}

/// `tpb bringup`: the HAL's bring-up on the golden model, logged.
fn bringup(map: regmap::RegMap, images: [Option<&PathBuf>; 4]) -> Result<(), CliError> {
    use tpb_models::hal::{Entry, Hal, Mmio, PoolingConfig, Recorder, RegFileModel, StpbConfig, UcodeImages};
    let [q7_iram, q7_dram, seq_iram, seq_dram] = images;
    let cfg = StpbConfig {
        pooling: PoolingConfig {
            q7: UcodeImages { iram: read_image(q7_iram)?, dram: read_image(q7_dram)? },
            seq: UcodeImages { iram: read_image(seq_iram)?, dram: read_image(seq_dram)? },
            ..PoolingConfig::default()
        },
        ..StpbConfig::default()
    };
    let hal = Hal::with_map(map.clone());
    let mut bar0 = Recorder::new(RegFileModel::new(map), hal.ctx().expect("a built map has a context").map.clone());
    let t0 = std::time::Instant::now();
    hal.stpb_init(&mut bar0, &cfg, None)?;
    let wall = t0.elapsed();
    print!("{}", bar0.render());
    let (mut r, mut w, mut b, mut bytes) = (0, 0, 0, 0);
    for e in bar0.log() {
        match e {
            Entry::Read { .. } => r += 1,
            Entry::Write { .. } => w += 1,
            Entry::WriteBuf { len, .. } => {
                b += 1;
                bytes += len;
            }
            Entry::Note(_) => {}
        }
    }
    let ctx = hal.ctx().expect("context");
    let nx = ctx.pool_base();
    let mut m = bar0.into_inner();
    let seq = m.read32(nx + ctx.regs.nx.run_state.offset as u64).map_err(tpb_models::hal::HalError::from)? & 1;
    let q7 = m.read32(nx + ctx.regs.q7_release_run_stall.offset as u64).map_err(tpb_models::hal::HalError::from)?;
    eprintln!(
        "{}: {r} register reads, {w} register writes, {b} buffer writes ({bytes:#x} bytes) in {wall:.2?}; SEQ running={seq}, Q7 release_run_stall={q7:#04x}",
        ctx.arch.name().to_uppercase()
    );
    Ok(())
}

fn load(arch: Arch, maps: Option<&PathBuf>) -> Result<regmap::RegMap, regmap::RegmapError> {
    match maps {
        Some(dir) => regmap::load::load_dir(arch, dir),
        None => regmap::builtin(arch),
    }
}

/// Render a generation's map in a format.
pub fn render(map: &regmap::RegMap, format: Format) -> String {
    match format {
        Format::Md => gen::markdown::render(map),
        Format::Json => gen::json::render(map),
        Format::C => gen::c::render(map),
        Format::Rdl => gen::rdl::render(map),
        Format::RustHdl => {
            let mut s = String::new();
            for b in map.blocks.iter().filter(|b| b.has_register_rtl()) {
                s.push_str(&gen::rust_hdl::block_source(b));
                s.push('\n');
            }
            s
        }
        Format::Hal => gen::hal::render(std::slice::from_ref(map)),
    }
}

fn write_bytes(path: &std::path::Path, bytes: &[u8]) -> Result<(), CliError> {
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|source| CliError::Io { path: d.to_path_buf(), source })?;
    }
    std::fs::write(path, bytes).map_err(|source| CliError::Io { path: path.to_path_buf(), source })
}

/// `tpb run`: load source or ELF, run from reset. The trace (unless
/// `quiet`) and the program's semihosting output go to stdout, the final
/// state to stderr; the program's exit status (SIMCALL exit) is returned as
/// the process's exit code, as QEMU's `-semihosting` does. An ELF starts at
/// its entry on `de212` (as QEMU's `sim` machine starts it), at the reset
/// vector on the TPB cores (as the hardware does).
fn run_core(input: PathBuf, cfg: tpb_models::xtensa::CoreConfig, steps: u64, quiet: bool) -> Result<i32, CliError> {
    use std::io::Write;
    use tpb_models::xtensa::{elf, Core, MemorySpace, Step};
    let bytes = read_file(&input)?;
    let mut mem = MemorySpace::from_map(&cfg.memory).map_err(|e| CliError::Other(e.to_string()))?;
    let mut entry = cfg.reset_vector;
    if bytes.starts_with(b"\x7fELF") {
        let img = elf::parse(&bytes).map_err(|e| CliError::Other(format!("{}: {e}", input.display())))?;
        img.load(&mut mem).map_err(|e| CliError::Other(format!("{}: {e}", input.display())))?;
        if cfg.name == tpb_models::xtensa::CoreConfig::qemu_de212().name {
            entry = img.entry;
        }
    } else {
        let src = String::from_utf8_lossy(&bytes).into_owned();
        let p = tpb_models::xtensa::asm::assemble(&src, cfg.reset_vector, &cfg.options).map_err(|e| CliError::Asm(e, input.clone()))?;
        mem.write_bytes(cfg.reset_vector, &p.bytes).map_err(|e| CliError::Other(format!("{}: {e}", input.display())))?;
    }
    let mut core = Core::new(cfg);
    core.reset_to(entry);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let io = |e: std::io::Error| CliError::Io { path: "<stdout>".into(), source: e };
    let last = if quiet {
        core.run(&mut mem, steps)
    } else {
        core.set_trace(true);
        let mut last = Step::Stalled;
        for _ in 0..steps {
            last = core.step(&mut mem);
            match last {
                Step::Retired { .. } => {
                    if let Some(r) = core.last_retire() {
                        writeln!(out, "{}", r.text()).map_err(io)?;
                    }
                }
                Step::Exception { cause, pc, vector } => writeln!(out, "exception cause {cause} at {pc:#x} -> {vector:#x}").map_err(io)?,
                _ => {}
            }
            if last.stops_run() {
                break;
            }
        }
        last
    };
    out.write_all(&core.console).map_err(io)?;
    out.flush().map_err(io)?;
    let regs: Vec<String> = (0..16).map(|i| format!("a{i}={:#x}", core.a(i))).collect();
    eprintln!("stopped: {last:?} after {} instructions, pc={:#x}", core.retired(), core.pc);
    eprintln!("{}", regs.join(" "));
    Ok(match last {
        Step::Exit(status) => status as i32,
        _ => 0,
    })
}

fn write(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    write_bytes(path, text.as_bytes())
}

/// Run one command; the process's exit code (`tpb run` gives its program's).
pub fn run(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Command::Run { input, core, arch, steps, quiet } => run_core(input, core_config(arch, core)?, steps, quiet),
        command => run_command(command).map(|()| 0),
    }
}

fn run_command(command: Command) -> Result<(), CliError> {
    match command {
        Command::Run { .. } => Err(CliError::Other("`tpb run` is dispatched by cli::run".into())),
        Command::Regmap { arch, format, maps } => {
            let map = load(arch.into(), maps.as_ref())?;
            print!("{}", render(&map, format));
            Ok(())
        }
        Command::GenVerilog { arch, out, fpga } => {
            let archs: Vec<Arch> = match arch {
                Some(a) => vec![a.into()],
                None => Arch::ALL.to_vec(),
            };
            let t0 = std::time::Instant::now();
            let mut n = 0;
            for a in archs {
                let mut files = tpb_hdl::generated::verilog_files(a)?;
                if fpga {
                    let map = regmap::builtin(a)?;
                    files.push(tpb_hdl::generated::top_file(&map, true).map_err(|source| tpb_hdl::generated::GenError::Layout { arch: a.name(), source })?);
                }
                for f in files {
                    let p = out.join(&f.file_name);
                    write(&p, &f.text)?;
                    println!("{}", p.display());
                    n += 1;
                }
            }
            for f in tpb_hdl::generated::common_verilog_files() {
                let p = out.join(&f.file_name);
                write(&p, &f.text)?;
                println!("{}", p.display());
                n += 1;
            }
            eprintln!("wrote {n} Verilog file(s) in {:.2?}", t0.elapsed());
            Ok(())
        }
        Command::Asm { input, out, elf, arch, core, base } => {
            let cfg = core_config(arch, core)?;
            let src = String::from_utf8_lossy(&read_file(&input)?).into_owned();
            let p = tpb_models::xtensa::asm::assemble(&src, base, &cfg.options).map_err(|e| CliError::Asm(e, input.clone()))?;
            write_bytes(&out, &p.bytes)?;
            if let Some(e) = elf {
                let img = tpb_models::xtensa::elf::Image {
                    entry: cfg.reset_vector,
                    segments: vec![tpb_models::xtensa::elf::Segment { addr: base, mem_size: p.bytes.len() as u32, data: p.bytes.clone() }],
                };
                write_bytes(&e, &img.write())?;
            }
            eprintln!("{}: {} bytes at {base:#x}, {} labels", input.display(), p.bytes.len(), p.labels.len());
            Ok(())
        }
        Command::Disasm { filter: true, core, arch, .. } => {
            use crate::waves::names::{disasm_filter, CoreKind, Namer};
            let kind = match core {
                CoreArg::Q7 => CoreKind::Q7,
                CoreArg::Nx => CoreKind::Nx,
                CoreArg::De212 => return Err(CliError::Sim("--filter: the probes hold nx or q7 instructions, not de212".into())),
            };
            let namer = Namer::for_arch(arch.into())?;
            disasm_filter(&namer, kind, std::io::stdin().lock(), std::io::stdout().lock()).map_err(|source| CliError::Io { path: "<stdin>".into(), source })
        }
        Command::Disasm { input, core, arch, base, .. } => {
            let cfg = core_config(arch, core)?;
            let input = input.ok_or_else(|| CliError::Sim("disasm: no input file".into()))?;
            for l in tpb_models::xtensa::disasm::listing(&read_file(&input)?, base, &cfg.options) {
                let hex: String = l.bytes.iter().map(|b| format!("{b:02x}")).collect();
                println!("{:8x}:  {hex:<8} {}", l.addr, l.text.unwrap_or_else(|| "(illegal)".into()));
            }
            Ok(())
        }
        Command::Sim { scenario, arch, vcd, fst, cycles, window, window_cycles } => {
            let window = window.map(|w| (w, window_cycles));
            sim(&scenario, arch.into(), vcd.as_deref(), fst.as_deref(), cycles, window)
        }
        Command::Waves { what: WavesCmd::Render { file, arch, signals, from, to, markers, out } } => {
            let arch: Arch = arch.into();
            let namer = crate::waves::names::Namer::for_arch(arch)?;
            let svg = crate::waves::render(&file, &namer, crate::waves::Timebase::of(arch)?, &signals, from, to, &markers)?;
            write(&out, &svg)?;
            println!("wrote {} ({signals}, cycles {from}..{to})", out.display());
            Ok(())
        }
        Command::Fpga { what: FpgaCmd::Build { arch, board, clock_mhz, baud, small, out, seed, threads, router, abc9 } } => {
            use tpb_hdl::fpga::{board::Board, flow};
            let board = Board::load(&board).map_err(|e| CliError::Other(e.to_string()))?;
            let arch: Arch = arch.into();
            let out = out.unwrap_or_else(|| PathBuf::from(format!("build/fpga/{}-{}", arch.name(), board.name)));
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let size = if small { tpb_hdl::proto::ProtoSize::Small } else { tpb_hdl::proto::ProtoSize::Default };
            let opts = flow::BuildOptions { arch, board, clock_mhz, baud, size, out, seed, threads, router, abc9 };
            let t0 = std::time::Instant::now();
            let say = |m: &str| eprintln!("[{:>5.0} s] {m}", t0.elapsed().as_secs_f64());
            let r = flow::build(&opts, &say).map_err(|e| CliError::Other(e.to_string()))?;
            print!("{}", r.markdown());
            println!("report: {}", opts.out.join("report.md").display());
            println!("load it: {}", flow::program_command(&opts.board, &r.bitstream, false));
            if !r.meets_timing() {
                return Err(CliError::Other(format!("timing not met at {clock_mhz} MHz: {:?}", r.fmax)));
            }
            Ok(())
        }
        Command::Fpga { what: FpgaCmd::Program { board, bit, flash } } => {
            let board = tpb_hdl::fpga::board::Board::load(&board).map_err(|e| CliError::Other(e.to_string()))?;
            if !bit.exists() {
                return Err(CliError::Other(format!("{}: no such bitstream (build it with `tpb fpga build`)", bit.display())));
            }
            println!("{}", tpb_hdl::fpga::flow::program_command(&board, &bit, flash));
            Ok(())
        }
        Command::Waves { what: WavesCmd::Gtkw { file, arch, window, markers, out } } => {
            let view = window.map(|(from, to)| crate::waves::View { from, to, markers, focus: Vec::new() });
            write_gtkw(&file, arch.into(), &out, view.as_ref())?;
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::Scenarios => {
            for (file, text) in crate::scenario::BUILTIN {
                let f = crate::scenario::ScenarioFile::parse(file, text)?;
                println!("{:<10} {:<21} {}", f.name, f.archs.join(","), f.description);
            }
            Ok(())
        }
        Command::Bringup { arch, maps, q7_iram, q7_dram, seq_iram, seq_dram } => {
            let map = load(arch.into(), maps.as_ref())?;
            bringup(map, [q7_iram.as_ref(), q7_dram.as_ref(), seq_iram.as_ref(), seq_dram.as_ref()])
        }
        Command::Regen { check } => {
            let files = crate::regen::all_generated()?;
            let mut stale = 0;
            for (path, text) in &files {
                let cur = std::fs::read_to_string(path).ok();
                if cur.as_deref() != Some(text.as_str()) {
                    stale += 1;
                    if check {
                        eprintln!("stale: {}", path.display());
                    } else {
                        write(path, text)?;
                        println!("wrote {}", path.display());
                    }
                }
            }
            if check && stale > 0 {
                return Err(CliError::Stale(stale));
            }
            if stale == 0 {
                println!("all {} generated files are fresh", files.len());
            }
            Ok(())
        }
    }
}
