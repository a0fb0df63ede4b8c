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
    Ok(Spec::top(arch, &format!("Vfst_{}", arch.name()), true)?.writing_fst())
}

/// A compiler failing on `zlib.h` is told which package has it.
fn name_zlib(e: BuildError) -> BuildError {
    match e {
        BuildError::Tool { tool, what, stderr } if stderr.contains("zlib.h") => {
            BuildError::Tool { tool, what, stderr: format!("{stderr}\nVerilator's FST writer needs zlib's headers: `bash scripts/setup`, or apt-get install zlib1g-dev") }
        }
        e => e,
    }
}

impl Dut {
    /// A top of `arch` whose traces are FST written as the run goes
    /// (`.fst` paths only). The model is built first if it is not yet, with
    /// `jobs` compilers; `say` hears what is being built.
    pub fn writing_fst(arch: Arch, jobs: usize, say: &dyn Fn(&str)) -> Result<Dut, BuildError> {
        let s = spec(arch)?;
        let dir = crate::regen::repo_root().join("target/fst-model").join(&s.prefix);
        let m = vlbuild::build(&s, &dir, jobs, say).map_err(name_zlib)?;
        Dut::with_model(arch, m).map_err(|e| BuildError::Load { path: dir.display().to_string(), msg: e.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_zlib_header_names_its_package_and_other_errors_pass_through() {
        let e = name_zlib(BuildError::Tool { tool: "g++", what: "x.o".into(), stderr: "fstapi.c:42: fatal error: zlib.h: No such file or directory".into() });
        let m = e.to_string();
        assert!(m.contains("zlib.h: No such file") && m.contains("apt-get install zlib1g-dev"), "{m}");
        let e = name_zlib(BuildError::Tool { tool: "g++", what: "x.o".into(), stderr: "syntax error".into() });
        assert!(!e.to_string().contains("zlib1g-dev"), "{e}");
    }
}
