//! `tpb test`: run testbench files (and the generated CSR checks), print the
//! pass/fail table, write VCDs of failing runs and JUnit XML.

use std::path::PathBuf;
use tpb_models::regmap::Arch;
use tpb_testbench::tb::file::{self, FileError, RunOpts, TbFile};
use tpb_testbench::tb::report::{self, Skip};
use tpb_testbench::tb::EngineKind;

/// Arguments of `tpb test`.
#[derive(clap::Args, Debug, Clone)]
pub struct TestArgs {
    /// Testbench files (TOML; see `testbench/examples/`), or folders: every `.toml` in one, by name.
    pub files: Vec<PathBuf>,
    /// Generations to run on (repeatable); default: those each file lists.
    #[arg(long, value_enum)]
    pub arch: Vec<crate::commands::ArchArg>,
    /// Simulator running the top.
    #[arg(long, value_enum, default_value = "verilator")]
    pub engine: EngineArg,
    /// Write a VCD of each failing run into DIR (`<testbench>.<arch>.vcd`).
    #[arg(long, value_name = "DIR")]
    pub vcd: Option<PathBuf>,
    /// With --vcd: keep the VCDs of passing runs too.
    #[arg(long, requires = "vcd")]
    pub vcd_all: bool,
    /// Write JUnit XML here.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Also run the CSR checks generated from the register maps.
    #[arg(long)]
    pub generated: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    Verilator,
    RustHdl,
}

impl From<EngineArg> for EngineKind {
    fn from(e: EngineArg) -> EngineKind {
        match e {
            EngineArg::Verilator => EngineKind::Verilator,
            EngineArg::RustHdl => EngineKind::RustHdl,
        }
    }
}

/// Why `tpb test` could not run at all (a failing testbench is not an error here).
#[derive(Debug, thiserror::Error)]
pub enum TestCmdError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("nothing to run: give testbench files or --generated")]
    Nothing,
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Run `tpb test`; its exit code ([`report::exit_code`]).
pub fn run(args: &TestArgs) -> Result<i32, TestCmdError> {
    if args.files.is_empty() && !args.generated {
        return Err(TestCmdError::Nothing);
    }
    // Parse everything first: a mistake in the third file stops before the first runs.
    let files: Vec<TbFile> = expand(&args.files)?.iter().map(|p| TbFile::load(p)).collect::<Result<_, _>>()?;
    let wanted: Vec<Arch> = args.arch.iter().map(|a| (*a).into()).collect();
    // Where the traces go must take a file before anything runs: a run that
    // fails is not to be hidden behind a path that cannot be written.
    if let Some(dir) = &args.vcd {
        let probe = dir.join(".tpb-write-check");
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|source| TestCmdError::Io { path: PathBuf::from(format!("--vcd {}", dir.display())), source })?;
    }
    let opts = RunOpts { engine: args.engine.into(), vcd_dir: args.vcd.clone(), vcd_all: args.vcd_all, trace_dir: None, console_echo: false, vcd_file: None, ..Default::default() };
    let mut outcomes = Vec::new();
    let mut skips = Vec::new();
    for f in &files {
        let archs: Vec<Arch> = if wanted.is_empty() { f.archs.clone() } else { wanted.clone() };
        for a in archs {
            if !f.archs.contains(&a) {
                skips.push(Skip { name: f.name.clone(), arch: a, why: format!("the file lists {}", f.archs.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")) });
                continue;
            }
            let o = file::run(f, a, &opts);
            for r in &o.reads {
                println!("{} [{}]: read {r}", o.name, a.name());
            }
            outcomes.push(o);
        }
    }
    if args.generated {
        let archs = if wanted.is_empty() { Arch::ALL.to_vec() } else { wanted.clone() };
        for a in archs {
            let t0 = std::time::Instant::now();
            let (tbs, cov) = tpb_testbench::tb::csr::generated(a);
            let first = outcomes.len();
            for f in &tbs {
                outcomes.push(file::run(f, a, &opts));
            }
            let failed = outcomes[first..].iter().filter(|o| o.result.is_err()).count();
            println!(
                "generated CSR checks [{}]: {} testbenches, {} registers, {} fields, {} checks; {} failed; {:.1} s",
                a.name(),
                cov.testbenches,
                cov.registers,
                cov.fields,
                cov.checks,
                failed,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    print!("{}", report::table(&outcomes, &skips));
    if let Some(p) = &args.junit {
        if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d).map_err(|source| TestCmdError::Io { path: d.into(), source })?;
        }
        std::fs::write(p, report::junit(&outcomes, &skips)).map_err(|source| TestCmdError::Io { path: p.clone(), source })?;
        println!("JUnit XML: {}", p.display());
    }
    Ok(report::exit_code(&outcomes))
}

/// The files of `args`: a folder stands for its `.toml` files, sorted by name.
fn expand(args: &[PathBuf]) -> Result<Vec<PathBuf>, tpb_testbench::tb::file::FileError> {
    let mut out = Vec::new();
    for p in args {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let err = |msg: String| tpb_testbench::tb::file::FileError { path: p.clone(), loc: Default::default(), key: "folder".into(), msg };
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(p).map_err(|e| err(e.to_string()))?.filter_map(|e| e.ok().map(|e| e.path())).filter(|f| f.extension().is_some_and(|x| x == "toml")).collect();
        if found.is_empty() {
            return Err(err("no .toml testbench files in this folder".into()));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}
