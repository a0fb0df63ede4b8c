//! # tpb-testbench
//!
//! Register-level testbench support and the project's cross-check tests
//! (`tests/`). Today: a bus driver over the generated register blocks in the
//! rust-hdl simulator ([`rhdl`]), random top-level traffic ([`traffic`]),
//! the Icarus cross-simulation ([`icarus`]) and the external-tool helpers
//! ([`tools`]).

pub mod icarus;
pub mod qemu;
pub mod rhdl;
pub mod tools;
pub mod traffic;
