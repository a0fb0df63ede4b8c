//! The register blocks of every generation, generated from the register maps
//! by `build.rs` (one rust-hdl block per map file that has registers). See
//! [`crate::bar0_port`] for the bus protocol and port conventions.
#![allow(clippy::all)]
include!(concat!(env!("OUT_DIR"), "/regblocks.rs"));
