//! # tpb-cosim
//!
//! The co-simulation side of tpbsim: the Verilator bridge ([`verilator`],
//! built by `build.rs` from `hdl/generated/`), a TPB top under Verilator
//! ([`dut::Dut`]) and the `tpb` command line ([`cli`]).

pub mod cli;
pub mod dut;
pub mod regen;
pub mod verilator;
