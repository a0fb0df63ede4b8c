//! The `tpb` command line's commands (the binary is in `testbench/`, which
//! adds `tpb test`).

use std::path::PathBuf;
use tpb_models::regmap::{self, gen, Arch};

pub mod args;
mod cover;
mod sim;

pub use args::*;

fn core_config(arch: ArchArg, core: CoreArg) -> Result<tpb_models::xtensa::CoreConfig, CliError> {
    let params = regmap::builtin(arch.into())?.params;
    Ok(match core {
        CoreArg::Nx => tpb_models::xtensa::CoreConfig::nx(&params),
        CoreArg::Q7 => tpb_models::xtensa::CoreConfig::q7(&params, 0),
        CoreArg::De212 => tpb_models::xtensa::CoreConfig::qemu_de212(),
    })
}

/// Errors of the command line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Scenario(#[from] tpb_cosim::scenario::ScenarioError),
    #[error("{0}")]
    Sim(String),
    #[error(transparent)]
    Waves(#[from] tpb_cosim::waves::WavesError),
    #[error(transparent)]
    Regmap(#[from] regmap::RegmapError),
    #[error(transparent)]
    Gen(#[from] tpb_hdl::generated::GenError),
    #[error(transparent)]
    Regen(#[from] tpb_cosim::regen::RegenError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0} generated file(s) are stale; run `cargo run --bin tpb -- regen`")]
    Stale(usize),
    #[error(transparent)]
    Hal(#[from] tpb_models::hal::HalError),
    #[error(transparent)]
    Verilator(#[from] tpb_cosim::verilator::VlError),
    #[error(transparent)]
    ModelBuild(#[from] tpb_cosim::vlbuild::BuildError),
    #[error(transparent)]
    Firmware(#[from] tpb_cosim::cfw::CfwError),
    #[error(transparent)]
    Cover(#[from] tpb_cosim::cover::CoverError),
    #[error(transparent)]
    Testbench(#[from] tpb_testbench::tb::file::FileError),
    #[error(transparent)]
    Board(#[from] tpb_hdl::fpga::board::BoardError),
    #[error(transparent)]
    Flow(#[from] tpb_hdl::fpga::flow::FlowError),
    #[error(transparent)]
    Memory(#[from] tpb_models::xtensa::bus::MapError),
    #[error("{path}: {source}")]
    Elf { path: PathBuf, source: tpb_models::xtensa::elf::ElfError },
    #[error("{path}: neither an ELF (it does not start with 0x7f 'ELF') nor assembly source (byte {at} is not UTF-8 text); `tpb disasm` reads a raw image")]
    NotProgram { path: PathBuf, at: usize },
    #[error("{0}")]
    Other(String),
}

impl CliError {
    /// The process's exit code for this error: 1 when a check failed (a
    /// scenario's, or stale generated files), 2 when the command could not
    /// do its job (usage, a bad or missing input). See the README's
    /// "Errors and exit codes".
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Scenario(tpb_cosim::scenario::ScenarioError::Check { .. }) | CliError::Stale(_) => 1,
            _ => 2,
        }
    }
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
            Entry::Note(_) | Entry::DevMem { .. } | Entry::InitDma { .. } => {}
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

/// `arch`'s map: built in, or from `--maps DIR` (one generation's folder,
/// beside `common/`), which must be that generation's: not the maps root,
/// not another generation's folder (by its name, or by its arch.toml's
/// `arch_id`, which names the generation in the seeds).
fn load(arch: Arch, maps: Option<&PathBuf>) -> Result<regmap::RegMap, CliError> {
    let Some(dir) = maps else { return Ok(regmap::builtin(arch)?) };
    let wrong = |why: String| CliError::Other(format!("--maps {}: {why}", dir.display()));
    if dir.join("common").is_dir() && !dir.join("arch.toml").exists() {
        return Err(wrong(format!("this is the maps root (it holds common/); give one generation's folder: --maps {}", dir.join(arch.name()).display())));
    }
    let named = dir.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
    if let Some(other) = Arch::ALL.into_iter().find(|a| *a != arch && named.as_deref() == Some(a.name())) {
        return Err(wrong(format!("the folder is {}'s maps, and --arch is {}", other.name().to_uppercase(), arch.name().to_uppercase())));
    }
    let map = regmap::load::load_dir(arch, dir)?;
    let builtin = regmap::builtin(arch)?;
    if map.params.arch_id != builtin.params.arch_id {
        let whose = Arch::ALL
            .into_iter()
            .find(|a| regmap::builtin(*a).is_ok_and(|m| m.params.arch_id == map.params.arch_id))
            .map(|a| format!(", which is {}'s", a.name().to_uppercase()))
            .unwrap_or_default();
        return Err(wrong(format!("its arch.toml says arch_id = {}{whose}; {} is arch_id {}", map.params.arch_id, arch.name().to_uppercase(), builtin.params.arch_id)));
    }
    Ok(map)
}

/// Render a generation's map in a format.
pub fn render(map: &regmap::RegMap, format: Format) -> String {
    match format {
        Format::Md => gen::markdown::render(map),
        Format::Json => gen::json::render(map),
        Format::Names => gen::names::render(map),
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
    let mut mem = MemorySpace::from_map(&cfg.memory)?;
    let mut entry = cfg.reset_vector;
    if bytes.starts_with(b"\x7fELF") {
        let bad = |source| CliError::Elf { path: input.clone(), source };
        let img = elf::parse(&bytes).map_err(bad)?;
        img.load(&mut mem).map_err(bad)?;
        if cfg.name == tpb_models::xtensa::CoreConfig::qemu_de212().name {
            entry = img.entry;
        }
    } else {
        if let Err(e) = std::str::from_utf8(&bytes) {
            return Err(CliError::NotProgram { path: input, at: e.valid_up_to() });
        }
        let p = tpb_cosim::cfw::assemble_file(None, &input, cfg.reset_vector, &cfg.options, &[]).map_err(CliError::Other)?;
        mem.write_bytes(cfg.reset_vector, &p.bytes).map_err(|e| CliError::Other(format!("{}: {e}", input.display())))?;
    }
    let mut core = Core::new(cfg);
    core.reset_to(entry);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let io = |e: std::io::Error| CliError::Io { path: "<stdout>".into(), source: e };
    use tpb_models::xtensa::core::cause;
    let mut first_exception = None;
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
                Step::Exception { cause: k, pc, vector } => {
                    writeln!(out, "exception {} at {pc:#x} -> vector {vector:#x}", cause::name(k)).map_err(io)?;
                    if k != cause::LEVEL1_INTERRUPT && !is_window_vector(core.config(), vector) {
                        first_exception.get_or_insert((k, pc));
                    }
                    if pc == vector {
                        // The handler's own first instruction faulted: it will again, for ever.
                        writeln!(out, "the exception handler at {vector:#x} faults on its first instruction: stopping").map_err(io)?;
                        break;
                    }
                }
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
    let how = match last {
        Step::Exit(status) => format!("exit({status})"),
        Step::Halted => "HALT".into(),
        Step::Break { s, t } => format!("BREAK {s}, {t}"),
        Step::Waiting => "WAITI with no interrupt to wake it".into(),
        Step::Stalled => "RunStall".into(),
        Step::Exception { vector, .. } => format!("a fault in the handler at {vector:#x}"),
        _ => format!("the step limit ({steps}, --steps)"),
    };
    eprintln!("stopped at {how} after {} instructions, pc={:#x}", core.retired(), core.pc);
    eprintln!("{}", regs.join(" "));
    // The status: the program's exit, 0 at HALT; a run that stopped any
    // other way failed, and says why (its first exception, where it took one).
    Ok(match last {
        Step::Exit(status) => status as i32,
        Step::Halted => 0,
        _ => {
            let insn = |pc: u32| {
                mem.read_bytes(pc, 3)
                    .ok()
                    .and_then(|b| tpb_models::xtensa::disasm::listing(&b, pc, &core.config().options).into_iter().next())
                    .and_then(|l| l.text)
                    .unwrap_or_else(|| "not decodable".into())
            };
            match first_exception {
                Some((k, pc)) => eprintln!("tpb: error: the program took {} at pc {pc:#x} ({}) and did not exit", cause::name(k), insn(pc)),
                None => eprintln!("tpb: error: the program did not exit or halt ({how}){}", if quiet { "; run without --quiet to see the exceptions it took" } else { "" }),
            }
            1
        }
    })
}

/// Is `vector` a window overflow/underflow handler's (windowed code takes
/// those as a matter of course)?
fn is_window_vector(cfg: &tpb_models::xtensa::CoreConfig, vector: u32) -> bool {
    let v = &cfg.vectors;
    [v.window_overflow4, v.window_underflow4, v.window_overflow8, v.window_underflow8, v.window_overflow12, v.window_underflow12]
        .iter()
        .any(|o| cfg.vecbase.wrapping_add(*o) == vector)
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
        Command::GenVerilog { arch, out, fpga } => gen_verilog(arch, &out, fpga),
        Command::Cc { sources, arch, core, out, cflags, verbose } => {
            let map = regmap::builtin(arch.into())?;
            let kind = tpb_cosim::cfw::CoreKind::parse(&core).expect("clap checked the value");
            let built = tpb_cosim::cfw::build(&map, kind, &sources, &cflags, &out)?;
            if verbose {
                for c in &built.commands {
                    eprintln!("{c}");
                }
            }
            let bytes = read_file(&out)?;
            let img = tpb_cosim::cfw::images(&map, kind, &out.display().to_string(), &bytes)?;
            eprintln!("{}: {} core of {}: {} bytes of IRAM, {} bytes of DRAM image", out.display(), kind.name(), map.arch.name(), img.iram.len(), img.dram.len());
            Ok(())
        }
        Command::Asm { input, out, elf, arch, core, base } => {
            let cfg = core_config(arch, core)?;
            let map = regmap::builtin(arch.into())?;
            let p = tpb_cosim::cfw::assemble_file(Some(&map), &input, base, &cfg.options, &[]).map_err(CliError::Other)?;
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
            use tpb_cosim::waves::names::{disasm_filter, CoreKind, Namer};
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
            let bytes = read_file(&input)?;
            // The listing's addresses stay inside 32 bits: nothing wraps to 0.
            let fits = |what: &str, at: u32, len: usize| match u64::from(at) + len as u64 > 1 << 32 {
                true => Err(CliError::Other(format!("{}: {what} at {at:#x} of {len} bytes runs past the 32-bit address space", input.display()))),
                false => Ok(()),
            };
            let show = |bytes: &[u8], at: u32, syms: &[(u32, String)]| {
                for l in tpb_models::xtensa::disasm::listing(bytes, at, &cfg.options) {
                    if let Some((_, name)) = syms.iter().find(|(a, _)| *a == l.addr) {
                        println!("\n{:08x} <{name}>:", l.addr);
                    }
                    let hex: String = l.bytes.iter().map(|b| format!("{b:02x}")).collect();
                    println!("{:8x}:  {hex:<8} {}", l.addr, l.text.unwrap_or_else(|| "(illegal)".into()));
                }
            };
            if bytes.starts_with(b"\x7fELF") {
                // An ELF: its code sections at their addresses (--base does not apply), with its symbols.
                use tpb_models::xtensa::elf;
                let bad = |source| CliError::Elf { path: input.clone(), source };
                let sections = elf::code_sections(&bytes).map_err(bad)?;
                if sections.is_empty() {
                    return Err(CliError::Other(format!("{}: an ELF with no code (no SHF_EXECINSTR section, no executable segment)", input.display())));
                }
                let syms = elf::symbols(&bytes).map_err(bad)?;
                for (name, at, data) in &sections {
                    fits(&format!("section {name}"), *at, data.len())?;
                }
                for (name, at, data) in sections {
                    println!("section {name} at {at:#x}, {} bytes:", data.len());
                    show(&data, at, &syms);
                }
            } else {
                fits("the image (--base)", base, bytes.len())?;
                show(&bytes, base, &[]);
            }
            Ok(())
        }
        Command::Sim { scenario, arch, vcd, fst, cycles, window, window_cycles, dies, top_sps, threads, trace_groups, trace_internals, stepper } => {
            tpb_cosim::mesh::set_threads(threads.unwrap_or(0));
            tpb_cosim::dut::set_trace_groups((!trace_groups.is_empty()).then_some(trace_groups));
            if window.is_some() && window_cycles == 0 {
                return Err(CliError::Sim("--window-cycles 0: a window of no cycles traces nothing (give 1 or more)".into()));
            }
            let window = window.map(|w| (w, window_cycles));
            let out = sim::TraceOut { vcd: vcd.as_deref(), fst: fst.as_deref(), internals: trace_internals };
            sim::sim(&scenario, arch.into(), out, cycles, window, sim::Collective { dies, top_sps, stepper })
        }
        Command::Waves { what: WavesCmd::Render { file, arch, signals, from, to, markers, out } } => {
            let arch: Arch = arch.into();
            let namer = tpb_cosim::waves::names::Namer::for_arch(arch)?;
            let svg = tpb_cosim::waves::render(&file, &namer, tpb_cosim::waves::Timebase::of(arch)?, signals, from, to, &markers)?;
            write(&out, &svg)?;
            println!("wrote {} ({signals}, cycles {from}..{to})", out.display());
            Ok(())
        }
        Command::Fpga { what: FpgaCmd::Build(b) } => fpga_build(b),
        Command::Fpga { what: FpgaCmd::Program { board, bit, flash } } => {
            let board = tpb_hdl::fpga::board::Board::load(&board)?;
            if !bit.exists() {
                return Err(CliError::Other(format!("{}: no such bitstream (build it with `tpb fpga build`)", bit.display())));
            }
            println!("{}", tpb_hdl::fpga::flow::program_command(&board, &bit, flash));
            Ok(())
        }
        Command::Waves { what: WavesCmd::Gtkw { file, arch, window, markers, out } } => {
            let view = window.map(|(from, to)| tpb_cosim::waves::View { from, to, markers, focus: Vec::new() });
            let arch: Arch = arch.into();
            // A save file needs the widths of the signals (the header) and,
            // for a window, the trace's last time: not their values.
            if let Some(v) = &view {
                tpb_cosim::waves::Dump::load(&file, &[])?.check_range(tpb_cosim::waves::Timebase::of(arch)?, v.from, v.to)?;
            }
            tpb_cosim::waves::write_gtkw(&file, arch, &out, view.as_ref())?;
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::Scenarios => {
            let files = tpb_cosim::scenario::BUILTIN.iter().map(|(file, text)| tpb_cosim::scenario::ScenarioFile::parse(file, text)).collect::<Result<Vec<_>, _>>()?;
            let w = files.iter().map(|f| f.name.len()).max().unwrap_or(0);
            for f in files {
                println!("{:<w$} {:<21} {}", f.name, f.archs.join(","), f.description);
            }
            Ok(())
        }
        Command::Scenario { action: ScenarioAction::Emit { name, arch, dies, top_sps, output } } => sim::emit(&name, arch.into(), dies, top_sps, output.as_deref()),
        Command::Bringup { arch, maps, q7_iram, q7_dram, seq_iram, seq_dram } => {
            let map = load(arch.into(), maps.as_ref())?;
            bringup(map, [q7_iram.as_ref(), q7_dram.as_ref(), seq_iram.as_ref(), seq_dram.as_ref()])
        }
        Command::Regen { check } => regen(check),
        Command::Cover { arch, files, dies, out, no_html } => cover::cover(arch.into_iter().map(Arch::from).collect(), &files, dies, &out, !no_html),
    }
}

/// `tpb gen-verilog`: the generated Verilog of one or every generation into `out`.
fn gen_verilog(arch: Option<ArchArg>, out: &std::path::Path, fpga: bool) -> Result<(), CliError> {
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

/// `tpb fpga build`: synthesis, place and route, bitstream and report.
fn fpga_build(b: args::FpgaBuild) -> Result<(), CliError> {
    let args::FpgaBuild { arch, board, clock_mhz, baud, small, out, seed, threads, router, abc9, synth_only } = b;
    use tpb_hdl::fpga::{board::Board, flow};
    let board = Board::load(&board)?;
    let arch: Arch = arch.into();
    let out = out.unwrap_or_else(|| PathBuf::from(format!("build/fpga/{}-{}", arch.name(), board.name)));
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let size = if small { tpb_hdl::proto::ProtoSize::Small } else { tpb_hdl::proto::ProtoSize::Default };
    let opts = flow::BuildOptions { arch, board, clock_mhz, baud, size, out, seed, threads, router, abc9, synth_only };
    let t0 = std::time::Instant::now();
    let say = |m: &str| eprintln!("[{:>5.0} s] {m}", t0.elapsed().as_secs_f64());
    let r = flow::build(&opts, &say)?;
    print!("{}", r.markdown());
    println!("report: {}", opts.out.join("report.md").display());
    if synth_only {
        return Ok(());
    }
    println!("load it: {}", flow::program_command(&opts.board, &r.bitstream, false));
    if !r.meets_timing() {
        let got: Vec<String> = r.fmax.iter().map(|(clock, mhz)| format!("{clock} {mhz:.1} MHz")).collect();
        return Err(CliError::Other(format!("timing not met at {clock_mhz} MHz: {}", got.join(", "))));
    }
    Ok(())
}

/// `tpb regen [--check]`: write every generated file, or list the stale ones.
fn regen(check: bool) -> Result<(), CliError> {
    let files = tpb_cosim::regen::all_generated()?;
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
