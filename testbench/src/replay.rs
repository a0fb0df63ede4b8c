//! A [`Recording`] replayed on a Verilator model of the same Verilog:
//! the Verilator side of the cross-simulation that [`crate::icarus`] does
//! under Icarus. The model is built at run time ([`tpb_cosim::vlbuild`],
//! no probe wrapper, untraced), so it reads the Verilog as Verilator reads
//! it, `` `ifdef VERILATOR `` branches included.
//!
//! Each cycle as the Icarus testbench drives it: the recorded inputs with
//! the clock low, the outputs compared once they settle, then the rising
//! edge. Memories start at zero, as Verilator starts every variable.

use crate::icarus::Recording;
use std::path::Path;
use tpb_cosim::verilator::VlError;
use tpb_cosim::vlbuild::{build, BuildError, Spec};

/// Why a replay under Verilator could not agree, or could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Verilator(#[from] VlError),
    #[error("cycle {cycle}: output '{port}' is {verilator:x?} under Verilator, {recorded:x?} under the recording engine")]
    Mismatch { cycle: usize, port: String, verilator: Vec<u32>, recorded: Vec<u32> },
}

/// Build `verilog` (top module `top`) as model `prefix` in `dir`, replay
/// `rec` on it, and compare every output every cycle. Ok: the number of
/// values compared.
pub fn on_verilator(rec: &Recording, verilog: &str, top: &str, prefix: &str, dir: &Path) -> Result<usize, ReplayError> {
    let mut m = build(&Spec::new(prefix, verilog.into(), top, None, false), dir, 2, &|_| {})?;
    let clock = m.input(&rec.clock)?;
    let ins = rec.inputs.iter().map(|p| m.input(&p.name)).collect::<Result<Vec<_>, _>>()?;
    let outs = rec.outputs.iter().map(|p| m.port(&p.name)).collect::<Result<Vec<_>, _>>()?;
    let mut compared = 0;
    for (cycle, (values, recorded)) in rec.cycles.iter().enumerate() {
        m.set(clock, 0)?;
        for (&i, v) in ins.iter().zip(values) {
            m.set_words(i, v)?;
        }
        m.eval();
        for ((&o, want), p) in outs.iter().zip(recorded).zip(&rec.outputs) {
            let got = m.get_words(o);
            if got != *want {
                return Err(ReplayError::Mismatch { cycle, port: p.name.clone(), verilator: got, recorded: want.clone() });
            }
            compared += 1;
        }
        m.set(clock, 1)?;
        m.eval();
    }
    Ok(compared)
}
