//! Every checked-in generated file and its expected text: the Verilog under
//! `hdl/generated/`, the register reference, C headers and SystemRDL under
//! `docs/regmap/`, the HAL constants in `models/hal/src/regs/generated.rs` and
//! the hand-written blocks' constants in `models/spec/src/generated.rs`, and
//! the table of built-in scenarios, `docs/scenarios.md`.

use std::path::PathBuf;
use tpb_models::regmap::{self, gen, Arch};

/// Repository root (this crate lives in `cosim/`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Why a generated file could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RegenError {
    #[error(transparent)]
    Gen(#[from] tpb_hdl::generated::GenError),
    #[error(transparent)]
    Regmap(#[from] regmap::RegmapError),
    #[error(transparent)]
    Scenario(#[from] crate::scenario::ScenarioError),
}

/// `(absolute path, expected content)` of every generated, checked-in file.
pub fn all_generated() -> Result<Vec<(PathBuf, String)>, RegenError> {
    let root = repo_root();
    let mut out = Vec::new();
    let maps = regmap::builtin_all()?;
    for arch in Arch::ALL {
        for f in tpb_hdl::generated::verilog_files(arch)? {
            out.push((root.join("hdl/generated").join(&f.file_name), f.text));
        }
    }
    for f in tpb_hdl::generated::common_verilog_files() {
        out.push((root.join("hdl/generated").join(&f.file_name), f.text));
    }
    for m in &maps {
        let a = m.arch.name();
        out.push((root.join(format!("docs/regmap/{a}.md")), gen::markdown::render(m)));
        out.push((root.join(format!("docs/regmap/tpb_regs_{a}.h")), gen::c::render(m)));
        out.push((root.join(format!("docs/regmap/tpb_{a}.rdl")), gen::rdl::render(m)));
    }
    out.push((root.join("models/hal/src/regs/generated.rs"), gen::hal::render(&maps)));
    out.push((root.join("models/spec/src/generated.rs"), gen::spec::render(&maps)));
    let table = crate::scenario::ScenarioFile::table()?;
    out.push((root.join("docs/scenarios.md"), table));
    Ok(out)
}
