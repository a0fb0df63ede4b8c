//! The `tpb` command line, one crate above every other:
//! - `commands/`: the maps, Verilog, firmware, co-simulation and waves
//!   commands (`tpb regmap`, `gen-verilog`, `asm`, `cc`, `sim`, `waves` …),
//!   over `tpb-cosim`;
//! - `test.rs`: `tpb test`, register-level testbench files (`tpb-testbench`);
//! - `bench.rs`: `tpb bench`;
//! - `serve.rs`: `tpb serve`, a co-simulation behind the host-link protocol.

mod bench;
mod commands;
mod serve;
mod test;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "tpb", version, about = "tpbsim: register maps, Verilog, testbenches and co-simulation of the TPB control plane")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run register-level testbench files (TOML) and/or the CSR checks
    /// generated from the register maps; prints a pass/fail table.
    Test(test::TestArgs),
    /// Measure the Verilated tops on this machine: the bare top, a long
    /// co-simulation (untraced, VCD, trace window), and `tpb sim doorbell`
    /// and a 16-die barrier as processes; medians with their spread,
    /// optionally beside the previous emission (`--before`).
    Bench(bench::BenchArgs),
    /// Put a co-simulation behind a TCP socket speaking the FPGA
    /// prototype's host-link protocol (plus simulator ops: run, cycles, a
    /// core's state, trace, the HAL's stpb_init), for a host program in any
    /// language (testbench/python/tpb_link.py). Serves one client.
    Serve(serve::ServeArgs),
    #[command(flatten)]
    Core(commands::Command),
}

fn main() {
    // Rust ignores SIGPIPE, so writing to a closed pipe (`tpb regmap | head`)
    // would panic in println!; a command-line tool should just stop, as
    // every Unix filter does.
    // SAFETY: called once, first thing, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Ctrl-C closes the traces being written and exits 130.
    tpb_cosim::interrupt::install();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match cli.command {
        Cmd::Test(args) => match test::run(&args) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("tpb: error: {e}");
                2
            }
        },
        Cmd::Bench(args) => {
            let me = std::env::current_exe().unwrap_or_else(|_| "tpb".into());
            match bench::run(&args, &me) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("tpb: error: {e}");
                    2
                }
            }
        }
        Cmd::Serve(args) => serve::run(&args),
        Cmd::Core(commands::Command::Sim { scenario, arch, vcd, fst, cycles, window, dies, .. }) if firmware_file(&scenario) => {
            // A testbench file with [firmware]: the user's own cores' images on the co-simulation.
            if fst.is_some() || cycles.is_some() || window.is_some() || dies.is_some() {
                eprintln!("tpb: error: {scenario}: a file with [firmware] takes --arch and --vcd here (its steps set the cycles); use `tpb test` for more");
                std::process::exit(2);
            }
            sim_firmware_file(&scenario, arch.into(), vcd)
        }
        Cmd::Core(command) => match commands::run(commands::Cli { command }) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("tpb: error: {e}");
                e.exit_code()
            }
        },
    };
    std::process::exit(code);
}

/// Is `path` a testbench file with a `[firmware.*]` table (not a scenario file)?
fn firmware_file(path: &str) -> bool {
    path.ends_with(".toml") && std::fs::read_to_string(path).is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with("[firmware.")))
}

/// `tpb sim my.toml` for a file with `[firmware]`: run it on one
/// generation, print the table, exit 0 (pass), 1 (a check failed) or 2 (the
/// file cannot be used, or its trace could not be written).
fn sim_firmware_file(path: &str, arch: tpb_models::regmap::Arch, vcd: Option<std::path::PathBuf>) -> i32 {
    use tpb_testbench::tb::{file, report};
    let f = match file::TbFile::load(std::path::Path::new(path)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("tpb: error: {e}");
            return 2;
        }
    };
    if !f.archs.contains(&arch) {
        eprintln!("tpb: error: {path} applies to {} only (--arch)", f.archs.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "));
        return 2;
    }
    let o = file::run(&f, arch, &file::RunOpts { vcd_file: vcd, console_echo: true, ..Default::default() });
    print!("{}", report::table(std::slice::from_ref(&o), &[]));
    for r in &o.reads {
        println!("  {r}");
    }
    if let Some(v) = &o.vcd {
        println!("waves: {}", v.display());
    }
    report::exit_code(std::slice::from_ref(&o))
}
