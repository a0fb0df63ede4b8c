//! # tpb-cosim
//!
//! The co-simulation side of tpbsim. For now: the `tpb` command line
//! ([`cli`]); the Verilator bridge and scheduler land here next.

pub mod cli;
pub mod regen;
