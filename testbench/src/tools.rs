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
        _ => "run scripts/setup",
    }
}

/// Path of `tool` on PATH, or an error naming the install command.
pub fn require(tool: &str) -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let p = dir.join(tool);
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(format!("required tool '{tool}' is not installed: {}", install_hint(tool)))
}

/// Run a command, returning its output; a missing tool is an `Err` with the hint.
pub fn run(tool: &str, args: &[&str]) -> Result<Output, String> {
    let exe = require(tool)?;
    Command::new(exe).args(args).output().map_err(|e| format!("failed to run {tool}: {e}"))
}

/// Repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}
