//! # tpb-cosim
//!
//! The co-simulation side of tpbsim: the Verilator bridge ([`verilator`],
//! built by `build.rs` from `hdl/generated/`), a TPB top under Verilator
//! ([`dut::Dut`]), the co-simulation scheduler that puts the behavioural Q7
//! cores and the host HAL on its ports ([`sched`]), and the commands of the
//! `tpb` command line ([`cli`]), and waveform inspection ([`waves`]: signal
//! groups, GTKWave save files, SVG timing diagrams).

pub mod cli;
pub mod dut;
pub mod firmware;
pub mod mesh;
pub mod regen;
pub mod scenario;
pub mod sched;
pub mod verilator;
pub mod vlbuild;
pub mod vlgen;
pub mod waves;
