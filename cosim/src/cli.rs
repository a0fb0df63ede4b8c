//! The `tpb` command line.

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
pub enum Command {
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
    /// Write the Verilog of every register block of one or all generations.
    GenVerilog {
        /// Generation; all generations when omitted.
        #[arg(long, value_enum)]
        arch: Option<ArchArg>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Rewrite every checked-in generated file (Verilog, docs, headers), or
    /// with --check report the stale ones and fail.
    Regen {
        #[arg(long)]
        check: bool,
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

/// Run the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tpb: error: {e}");
            1
        }
    }
}

/// Errors of the command line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Regmap(#[from] regmap::RegmapError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0} generated file(s) are stale; run `cargo run --bin tpb -- regen`")]
    Stale(usize),
    #[error(transparent)]
    Hal(#[from] tpb_models::hal::HalError),
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

fn write(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|source| CliError::Io { path: d.to_path_buf(), source })?;
    }
    std::fs::write(path, text).map_err(|source| CliError::Io { path: path.to_path_buf(), source })
}

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Regmap { arch, format, maps } => {
            let map = load(arch.into(), maps.as_ref())?;
            print!("{}", render(&map, format));
            Ok(())
        }
        Command::GenVerilog { arch, out } => {
            let archs: Vec<Arch> = match arch {
                Some(a) => vec![a.into()],
                None => Arch::ALL.to_vec(),
            };
            let t0 = std::time::Instant::now();
            let mut n = 0;
            for a in archs {
                for f in tpb_hdl::generated::verilog_files(a)? {
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
