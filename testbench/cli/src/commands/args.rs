//! The `tpb` command line's arguments (clap): every command, its flags and
//! their value parsers.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tpb_models::regmap::{self, Arch};

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

/// The most cycles a run may be asked for: past it a phase's deadline
/// (now + limit) could overflow; 2^48 cycles are years of simulation.
pub const MAX_CYCLES: u64 = 1 << 48;

/// A cycle count or cycle number, by the one rule; at most [`MAX_CYCLES`].
pub fn parse_cycles(s: &str) -> Result<u64, String> {
    let n = regmap::space::parse_number(s).ok_or_else(|| format!("'{s}' is not a number (decimal, 0x hex or 0b binary, _ separators)"))?;
    if n > MAX_CYCLES {
        return Err(format!("{n} cycles is more than a run can take (at most 2^48 = {MAX_CYCLES})"));
    }
    Ok(n)
}

/// A count (dies, steps, runs), by the one rule.
pub fn parse_count(s: &str) -> Result<usize, String> {
    regmap::space::parse_number(s).and_then(|n| usize::try_from(n).ok()).ok_or_else(|| format!("'{s}' is not a number (decimal, 0x hex or 0b binary, _ separators)"))
}

/// A thread count: a count of at least one.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match parse_count(s)? {
        0 => Err("0 threads: give at least 1 (or leave --threads out for the machine's cores)".into()),
        n => Ok(n),
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown register reference.
    Md,
    /// The elaborated map as JSON.
    Json,
    /// Every BAR0 name with its address, as JSON (for host programs in
    /// other languages: testbench/python/tpb_link.py).
    Names,
    /// C header with offsets, masks and reset values.
    C,
    /// SystemRDL 2.0 export.
    Rdl,
    /// The generated rust-hdl source of the register blocks.
    RustHdl,
    /// The HAL's typed Rust register constants.
    Hal,
}

/// `tpb fpga build`'s options.
#[derive(clap::Args, Debug)]
pub struct FpgaBuild {
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// A built-in board (`ulx3s-85f`) or a board .toml file.
    #[arg(long, default_value = "ulx3s-85f")]
    pub board: String,
    /// The design clock (the PLL makes it; timing is met against it).
    #[arg(long, default_value_t = f64::from(tpb_hdl::proto::DEFAULT_CLOCK_HZ) / 1e6)]
    pub clock_mhz: f64,
    /// The host link's rate.
    #[arg(long, default_value_t = tpb_hdl::proto::DEFAULT_BAUD)]
    pub baud: u32,
    /// 1 KiB memories instead of the prototype's (a quicker build).
    #[arg(long)]
    pub small: bool,
    /// Where everything goes (default: `build/fpga/<arch>-<board>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// nextpnr's threads (default: the machine's cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// nextpnr's router.
    #[arg(long, default_value = "router1", value_parser = ["router1", "router2"])]
    pub router: String,
    /// Timing-driven LUT mapping (`synth_ecp5 -abc9`).
    #[arg(long)]
    pub abc9: bool,
    /// Stop after synthesis: utilisation and the slowest paths estimated
    /// from the netlist, in minutes (no place and route, no bitstream).
    #[arg(long)]
    pub synth_only: bool,
}

#[derive(Subcommand, Debug)]
pub enum FpgaCmd {
    /// Synthesize, place and route a generation's prototype (the host-link
    /// bridge and the top) for a board and write its bitstream and report.
    Build(FpgaBuild),
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
        /// The signal group: bar0, run_stall, halt_start, q7_core0, doorbell,
        /// interrupt, xlat, dispatch, notify, tsync or cores.
        #[arg(long, default_value = "run_stall")]
        signals: tpb_cosim::waves::GroupName,
        /// First cycle.
        #[arg(long, default_value = "0", value_parser = parse_cycles)]
        from: u64,
        /// Last cycle.
        #[arg(long, default_value = "100", value_parser = parse_cycles)]
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
        #[arg(long, value_parser = parse_cycles)]
        cycles: Option<u64>,
        /// Trace only a window that opens on a trigger: `write:ADDR`,
        /// `access:ADDR` or `cycle:N`; ADDR is a number or
        /// `<engine>.<block>.<register>` (`write:pool.q7.release_run_stall`).
        /// Needs --vcd or --fst.
        #[arg(long, value_name = "TRIGGER")]
        window: Option<String>,
        /// Cycles the window stays open.
        #[arg(long, default_value = "200", requires = "window", value_parser = parse_cycles)]
        window_cycles: u64,
        /// Dies for the collectives (allreduce-ring, allreduce-mesh,
        /// allreduce-kangaring, allreduce-hier, barrier-global, tsync); default: the
        /// scenario file's.
        #[arg(long, value_parser = parse_count)]
        dies: Option<usize>,
        /// TOP_SPs per die for a collective (each a TPB top of its own);
        /// default: the scenario file's.
        #[arg(long, value_parser = parse_count)]
        top_sps: Option<usize>,
        /// Threads the dies run on (scenarios on several dies); default:
        /// the machine's cores, at most one per die. The run is the same,
        /// bit for bit, on any number.
        #[arg(long, value_parser = parse_threads)]
        threads: Option<usize>,
        /// Write only these signal groups into the traces (comma-separated:
        /// bar0, run_stall, halt_start, q7_core0, doorbell, interrupt, xlat,
        /// dispatch, notify, tsync, cores); default: every signal traced.
        /// Cheaper; the signals written have the values of a full trace.
        #[arg(long, value_delimiter = ',')]
        trace_groups: Vec<tpb_cosim::waves::GroupName>,
        /// Trace every signal inside every block too: a model built for it
        /// on first use (about half a minute per generation on 2 cores, cached under
        /// target/trace-models/). Default: two levels, the top's ports, the
        /// cores' probes and the TPB top's own signals (every block's ports).
        /// Needs --vcd or --fst; one system only.
        #[arg(long)]
        trace_internals: bool,
        /// The core that steps a collective's tapes: `top-sp` (the TOP_SP)
        /// or `ncfw` (the NCFW core beside each top: its context log is
        /// decoded and printed after the run); default: the scenario file's.
        #[arg(long, value_parser = parse_stepper)]
        stepper: Option<tpb_cosim::scenario::collective::Stepper>,
    },
    /// List the built-in co-simulation scenarios.
    Scenarios,
    /// A built-in scenario as a file of your own.
    Scenario {
        #[command(subcommand)]
        action: ScenarioAction,
    },
    /// Build C (and .S) firmware for a core with Debian's gcc-xtensa-lx106:
    /// the start-up code, a linker script and `tpb_fw.h` generated from the
    /// generation's map (written beside the ELF, under `<stem>.build/`: `-o x/fw.elf` gives `x/fw.build/`).
    Cc {
        /// C or assembly (.S, preprocessed) sources.
        #[arg(required = true)]
        sources: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        /// The core kind: q7, seq or top_sp.
        #[arg(long, default_value = "q7", value_parser = ["q7", "seq", "top_sp"])]
        core: String,
        /// The ELF to write.
        #[arg(short, long)]
        out: PathBuf,
        /// More gcc flags (`-O0`, `-DN=4`); repeatable. Default -O2.
        #[arg(long = "cflag", allow_hyphen_values = true)]
        cflags: Vec<String>,
        /// Print the gcc and ld commands run.
        #[arg(short, long)]
        verbose: bool,
    },
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
    /// Coverage of each generation over a set of runs: RTL lines and toggles
    /// (a coverage-instrumented model, built once under target/cover-model/),
    /// register fields written/read/checked, and the seeds' cases as points.
    /// Writes `OUT/<arch>/`: coverage.dat, coverage.info (lcov), html/
    /// (genhtml), summary.md, registers.{json,html,md}, points.{json,md}.
    Cover {
        /// Generations (repeatable); default: all three (a file runs on the
        /// generations it names).
        #[arg(long, value_enum)]
        arch: Vec<ArchArg>,
        /// Built-in scenarios, scenario files, testbench files (`[[step]]`) or
        /// `lockstep[:CYCLES]` (random traffic against the golden model);
        /// default: every built-in scenario (the collectives on 2, 4, 8 and
        /// 16 dies), testbench/examples/{,firmware/}*.toml and the generated CSR checks.
        files: Vec<String>,
        /// Dies for the scenarios on dies of their own given by name (default: the file's).
        #[arg(long)]
        dies: Option<usize>,
        #[arg(long, default_value = "build/cover")]
        out: PathBuf,
        /// Skip the HTML report (no genhtml needed).
        #[arg(long)]
        no_html: bool,
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
        #[arg(long, default_value = "10000", value_parser = parse_cycles)]
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

/// `top-sp` or `ncfw`.
pub(super) fn parse_stepper(s: &str) -> Result<tpb_cosim::scenario::collective::Stepper, String> {
    use tpb_cosim::scenario::collective::Stepper;
    match s {
        "top-sp" | "top_sp" => Ok(Stepper::TopSp),
        "ncfw" => Ok(Stepper::Ncfw),
        _ => Err(format!("'{s}': top-sp or ncfw")),
    }
}

/// `CYCLE:NAME`.
pub(super) fn parse_marker(s: &str) -> Result<(u64, String), String> {
    let (c, n) = s.split_once(':').ok_or_else(|| format!("'{s}': a marker is CYCLE:NAME"))?;
    Ok((parse_cycles(c)?, n.to_string()))
}

/// `FROM..TO` (cycles).
pub(super) fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("'{s}': a window is FROM..TO (cycles)"))?;
    let (a, b) = (parse_cycles(a)?, parse_cycles(b)?);
    if b <= a {
        return Err(format!("'{s}': the window is empty"));
    }
    Ok((a, b))
}

/// `tpb scenario …`.
#[derive(Subcommand, Debug)]
pub enum ScenarioAction {
    /// Write a built-in collective as one complete file: its parameters and
    /// its planner's tapes as `[collective.tapes]` data, for `tpb sim FILE`.
    Emit {
        /// A built-in scenario (`tpb scenarios`) or a scenario .toml file.
        name: String,
        /// The generation whose addresses the tapes are planned with.
        #[arg(long, value_enum, default_value = "cayman")]
        arch: ArchArg,
        /// Dies; default: the scenario file's.
        #[arg(long, value_parser = parse_count)]
        dies: Option<usize>,
        /// TOP_SPs per die; default: the scenario file's.
        #[arg(long, value_parser = parse_count)]
        top_sps: Option<usize>,
        /// Write it here (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}
