//! # tpb-golden
//!
//! Golden models of the hand-written RTL blocks: plain Rust with the same
//! cycle contract as the block, the reference the rust-hdl and Verilator
//! runs are compared against. (Generated register blocks use
//! [`crate::csr::CsrModel`].)

pub mod csr;
pub mod evt_sem;
pub mod hw_decode;
pub mod notific;
pub mod q7_cluster;
pub mod seq_dma;
pub mod timestamp;
pub mod top;
pub mod translate;
