//! # tpb-cosim
//!
//! The co-simulation side of tpbsim: the Verilator bridge ([`verilator`],
//! built by `build.rs` from `hdl/generated/`), a TPB top under Verilator
//! ([`dut::Dut`]), the co-simulation scheduler that puts the behavioural Q7
//! cores and the host HAL on its ports ([`sched`]), the scenarios
//! ([`scenario`]), waveform inspection ([`waves`]: signal
//! groups, GTKWave save files, SVG timing diagrams), and the FPGA
//! prototype under Verilator behind a pseudo-terminal ([`serial`], with the
//! bit-level UART line of [`uart`]). The `tpb` command line over all of it
//! is the crate `tpb-cli` (`testbench/cli`).

pub mod cfw;
pub mod cover;
pub mod dut;
pub mod firmware;
pub mod interrupt;
pub mod mesh;
pub mod regen;
pub mod scenario;
pub mod sched;
pub mod serial;
pub mod serve;
pub mod trace_room;
pub mod uart;
pub mod verilator;
pub mod vlbuild;
pub mod vlgen;
pub mod waves;
