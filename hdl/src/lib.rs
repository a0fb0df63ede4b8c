//! # tpb-hdl
//!
//! rust-hdl blocks of the TPB control plane and their Verilog.
//!
//! - [`regblocks`]: the register blocks of every generation, generated from
//!   the register maps (`models/regmap/maps`) by `build.rs`;
//! - [`bar0_port`]: the BAR0 slave port every block has (protocol, the
//!   bundle the hand-written blocks declare, a cycle driver);
//! - [`verilog`]: Verilog generation; [`generated`] lists the checked-in files;
//! - [`pytools`]: the project venv's PyPI tools (the ECP5 flow, cocotb, PeakRDL).

#[macro_use]
mod hdl_new;
#[macro_use]
pub mod bar0_port;
/// The BAR0 request and response every block speaks (the golden models' `csr`).
pub use tpb_golden::csr;
pub mod evt_sem;
pub mod fpga;
pub mod generated;
pub mod host_link;
pub mod hw_decode;
pub mod notific;
pub mod proto;
pub mod pytools;
pub mod q7_cluster;
pub mod ram;
pub mod regblocks;
pub mod seq_dma;
pub mod tcm;
pub mod top;
pub mod verilog;
pub mod windows_ram;
