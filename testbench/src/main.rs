//! The `tpb` command line: the commands of `tpb_cosim::cli` plus `tpb test`
//! (register-level testbenches) and `tpb bench`, which live here because
//! they need the testbench library (dependencies point cosim ← testbench).

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
    Test(tpb_testbench::tb::cli::TestArgs),
    /// Measure the Verilated tops on this machine: the bare top, a long
    /// co-simulation (untraced, VCD, trace window) and `tpb sim doorbell` as a
    /// process; medians with their spread, optionally beside the previous
    /// emission (`--before`).
    Bench(tpb_testbench::bench::BenchArgs),
    #[command(flatten)]
    Core(tpb_cosim::cli::Command),
}

fn main() {
    // Rust ignores SIGPIPE, so writing to a closed pipe (`tpb regmap | head`)
    // would panic in println!; a command-line tool should just stop, as
    // every Unix filter does.
    // SAFETY: called once, first thing, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match cli.command {
        Cmd::Test(args) => match tpb_testbench::tb::cli::run(&args) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(e) => {
                eprintln!("tpb: error: {e}");
                2
            }
        },
        Cmd::Bench(args) => {
            let me = std::env::current_exe().unwrap_or_else(|_| "tpb".into());
            match tpb_testbench::bench::run(&args, &me) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("tpb: error: {e}");
                    1
                }
            }
        }
        Cmd::Core(command) => match tpb_cosim::cli::run(tpb_cosim::cli::Cli { command }) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("tpb: error: {e}");
                1
            }
        },
    };
    std::process::exit(code);
}
