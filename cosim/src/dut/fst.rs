//! Tops that write FST themselves: the same design and probe wrapper as the
//! compiled-in model, built with Verilator's FST writer instead of its VCD
//! writer (`vlgen::FST_ARGS`), at run time and only when asked (minutes,
//! once per generation, cached under `target/fst-model/`). Their traces are
//! `.fst` files written as the run goes, compressed on a thread of their
//! own; a compiled-in model writes an FST as a VCD and converts it with
//! `vcd2fst` when the trace closes, which costs more than the run.

use super::Dut;
use crate::vlbuild::{self, BuildError, Spec};
use tpb_models::regmap::Arch;

/// The FST-writing model of `arch`.
pub fn spec(arch: Arch) -> Result<Spec, BuildError> {
    let path = crate::regen::repo_root().join(format!("hdl/generated/{}_tpb_top.v", arch.name()));
    let verilog = std::fs::read_to_string(&path).map_err(|source| BuildError::Io { what: path.display().to_string(), source })?;
    Ok(Spec::new(&format!("Vfst_{}", arch.name()), verilog, &format!("{}_tpb_top", arch.name()), Some(arch.name()), true).writing_fst())
}

impl Dut {
    /// A top of `arch` whose traces are FST written as the run goes
    /// (`.fst` paths only). The model is built first if it is not yet, with
    /// `jobs` compilers; `say` hears what is being built.
    pub fn writing_fst(arch: Arch, jobs: usize, say: &dyn Fn(&str)) -> Result<Dut, BuildError> {
        let s = spec(arch)?;
        let dir = crate::regen::repo_root().join("target/fst-model").join(&s.prefix);
        let m = vlbuild::build(&s, &dir, jobs, say).map_err(|e| match e {
            BuildError::Tool { tool, what, stderr } if stderr.contains("zlib.h") => {
                BuildError::Tool { tool, what, stderr: format!("{stderr}\nVerilator's FST writer needs zlib's headers: `bash scripts/setup`, or apt-get install zlib1g-dev") }
            }
            e => e,
        })?;
        Dut::with_model(arch, m).map_err(|e| BuildError::Load { path: dir.display().to_string(), msg: e.to_string() })
    }
}
