//! Finding and running the external tools the suite depends on. A missing
//! tool is an error that says how to install it, never a silent skip.

use std::path::PathBuf;
use std::process::{Command, Output};

/// How to install each tool the suite uses (Debian package names).
pub fn install_hint(tool: &str) -> &'static str {
    match tool {
        "verilator" => "apt-get install verilator (or run scripts/setup)",
        "yosys" => "apt-get install yosys (or run scripts/setup)",
        "iverilog" | "vvp" => "apt-get install iverilog (or run scripts/setup)",
        "vcd2fst" => "apt-get install gtkwave (or run scripts/setup)",
        "xtensa-lx106-elf-objdump" | "xtensa-lx106-elf-as" => "apt-get install binutils-xtensa-lx106 (or run scripts/setup)",
        "qemu-system-xtensa" => "apt-get install qemu-system-misc (or run scripts/setup)",
        "xtensa-lx106-elf-gcc" => "apt-get install gcc-xtensa-lx106 (or run scripts/setup)",
        "peakrdl" | "python3" => "run scripts/setup: it makes the project venv .venv/ with the PyPI tools of scripts/requirements.txt",
        _ => "run scripts/setup",
    }
}

/// Why an external tool could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("required tool '{tool}' is not installed: {hint}")]
    Missing { tool: String, hint: &'static str },
    #[error("failed to run {tool}: {source}")]
    Run { tool: String, source: std::io::Error },
    #[error("{tool} {args} did not finish within {limit:?}; killed")]
    Timeout { tool: String, args: String, limit: std::time::Duration },
}

/// Path of `tool` in the project venv (`scripts/setup` makes it; its
/// `python3` has the PyPI tools) or else on PATH, or an error naming the
/// install command.
pub fn require(tool: &str) -> Result<PathBuf, ToolError> {
    tpb_hdl::pytools::find(tool).ok_or_else(|| ToolError::Missing { tool: tool.to_string(), hint: install_hint(tool) })
}

/// The project venv's Python (with cocotb, systemrdl-compiler, PeakRDL):
/// never another `python3` that happens to come first on PATH.
pub fn venv_python() -> Result<PathBuf, ToolError> {
    let p = tpb_hdl::pytools::venv_bin().join("python3");
    if p.is_file() {
        Ok(p)
    } else {
        Err(ToolError::Missing { tool: format!("{} (the project venv)", p.display()), hint: install_hint("python3") })
    }
}

/// Run a command, returning its output; a missing tool is an `Err` with the hint.
pub fn run(tool: &str, args: &[&str]) -> Result<Output, ToolError> {
    let exe = require(tool)?;
    Command::new(exe).args(args).output().map_err(|source| ToolError::Run { tool: tool.to_string(), source })
}

/// Run a command with a wall-clock limit: a run that does not finish in
/// `limit` is killed and reported as an error (a simulator that loops
/// forever must fail the test, not hang the suite).
pub fn run_with_timeout(tool: &str, args: &[&str], limit: std::time::Duration) -> Result<Output, ToolError> {
    use std::io::Read;
    use std::process::Stdio;
    let exe = require(tool)?;
    let mut child = Command::new(exe).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|source| ToolError::Run { tool: tool.to_string(), source })?;
    let mut out_pipe = child.stdout.take().expect("piped");
    let mut err_pipe = child.stderr.take().expect("piped");
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        out_pipe.read_to_end(&mut v).ok();
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        err_pipe.read_to_end(&mut v).ok();
        v
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|source| ToolError::Run { tool: tool.to_string(), source })? {
            break s;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            return Err(ToolError::Timeout { tool: tool.to_string(), args: args.join(" "), limit });
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    Ok(Output { status, stdout: out_t.join().unwrap_or_default(), stderr: err_t.join().unwrap_or_default() })
}

/// Repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Run the program `exe` (e.g. `env!("CARGO_BIN_EXE_tpb")` in a test) with
/// `args` from the repository root: (exit code, stdout, stderr).
pub fn run_in_root(exe: &str, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(exe).args(args).current_dir(repo_root()).output().unwrap_or_else(|e| panic!("{exe}: {e}"));
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}
