//! Tops built at run time for the traces the compiled-in model does not
//! write: the same design and probe wrapper, built only when asked
//! (minutes, once per generation and kind, cached under
//! `target/trace-models/`).
//! - **FST written as the run goes**: Verilator's FST writer instead of its
//!   VCD writer, compressed on a thread of its own. A compiled-in model
//!   writes an FST as a VCD and converts it with `vcd2fst` when the trace
//!   closes, which costs more than the run.
//! - **Every signal inside every block** (`tpb sim --trace-internals`): no
//!   `--trace-depth` limit. The compiled-in model traces
//!   [`crate::vlgen::TRACE_DEPTH`] levels.

use super::Dut;
use crate::vlbuild::{self, BuildError, Spec};
use tpb_models::regmap::Arch;

/// A traced top built at run time: what it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceModel {
    /// Writes `.fst` itself (else `.vcd`).
    pub fst: bool,
    /// Traces every level, the inside of each block included.
    pub internals: bool,
}

impl TraceModel {
    /// The model's prefix: `Vfst_cayman`, `Vall_cayman`, `Vfst_all_cayman`
    /// (`Vvcd_cayman` is the compiled-in model's trace, never built here).
    pub fn prefix(self, arch: Arch) -> String {
        let kind = match (self.fst, self.internals) {
            (true, false) => "fst",
            (false, true) => "all",
            (true, true) => "fst_all",
            (false, false) => "vcd",
        };
        format!("V{kind}_{}", arch.name())
    }
}

/// The build of `arch`'s top that writes `m`.
pub fn spec(arch: Arch, m: TraceModel) -> Result<Spec, BuildError> {
    let mut s = Spec::top(arch, &m.prefix(arch), true)?;
    if m.fst {
        s = s.writing_fst();
    }
    if m.internals {
        s = s.tracing_internals();
    }
    Ok(s)
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
        Dut::built(arch, TraceModel { fst: true, internals: false }, jobs, say)
    }

    /// A top of `arch` built at run time to write `m` (built first if it is
    /// not yet, with `jobs` compilers; `say` hears what is being built).
    pub fn built(arch: Arch, m: TraceModel, jobs: usize, say: &dyn Fn(&str)) -> Result<Dut, BuildError> {
        let s = spec(arch, m)?;
        let dir = crate::regen::repo_root().join("target/trace-models").join(&s.prefix);
        let model = vlbuild::build(&s, &dir, jobs, say).map_err(name_zlib)?;
        Dut::with_model(arch, model).map_err(|e| BuildError::Load { path: dir.display().to_string(), msg: e.to_string() })
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

    /// The compiled-in model and the FST one trace TRACE_DEPTH levels; a
    /// model of the internals has no limit, and every kind its own prefix.
    #[test]
    fn each_trace_model_has_its_depth_and_prefix() {
        let depth = crate::vlgen::trace_depth_args(crate::vlgen::TRACE_DEPTH);
        let has_depth = |a: &[String]| a.windows(2).any(|w| w == depth);
        assert!(has_depth(&crate::vlgen::verilator_args("Vx", true)));
        assert!(!crate::vlgen::verilator_args("Vx", false).iter().any(|a| a.starts_with("--trace")));
        let mut prefixes = Vec::new();
        for (fst, internals) in [(false, true), (true, false), (true, true)] {
            let m = TraceModel { fst, internals };
            let s = spec(Arch::Cayman, m).unwrap();
            assert_eq!(has_depth(&s.verilator_args), !internals, "{m:?}: {:?}", s.verilator_args);
            assert_eq!(s.verilator_args.iter().any(|a| a == "--trace-fst"), fst, "{m:?}");
            assert_eq!(s.verilator_args.iter().any(|a| a == "--trace"), !fst, "{m:?}");
            prefixes.push(s.prefix);
        }
        assert_eq!(prefixes, ["Vall_cayman", "Vfst_cayman", "Vfst_all_cayman"]);
    }
}
