//! # tpb-cosim
//!
//! The co-simulation side of tpbsim: the Verilator bridge ([`verilator`],
//! built by `build.rs` from `hdl/generated/`), a TPB top under Verilator
//! ([`dut::Dut`]), the co-simulation scheduler that puts the behavioural Q7
//! cores and the host HAL on its ports ([`sched`]), and the commands of the
//! `tpb` command line ([`cli`]), waveform inspection ([`waves`]: signal
//! groups, GTKWave save files, SVG timing diagrams), and the FPGA
//! prototype under Verilator behind a pseudo-terminal ([`serial`], with the
//! bit-level UART line of [`uart`]).

pub mod cfw;
pub mod cli;
pub mod dut;
pub mod firmware;
pub mod interrupt;
pub mod mesh;
pub mod regen;
pub mod scenario;
pub mod sched;
pub mod serial;
pub mod serve;
pub mod uart;
pub mod verilator;
pub mod vlbuild;
pub mod vlgen;
pub mod waves;
