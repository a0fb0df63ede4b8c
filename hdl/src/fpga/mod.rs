//! # The FPGA flow: a generation's prototype on a board
//!
//! - [`board`]: board descriptions, data under `hdl/boards/` (the ULX3S
//!   with an LFE5U-85F is built in), and the LPF and board wrapper written
//!   from one;
//! - [`flow`]: `tpb fpga build`: Verilog, PLL, synthesis, place and route,
//!   bitstream, and the report (utilisation, fmax, critical paths by RTL
//!   signal);
//! - [`estimate`]: a pre-route timing estimate from the synthesized netlist
//!   (the slow paths in minutes rather than after an hour of routing).
//!
//! What is built is [`crate::proto`]: the host-link bridge and a
//! generation's top.

pub mod board;
pub mod estimate;
pub mod flow;
