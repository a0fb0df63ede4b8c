//! # tpb-testbench
//!
//! Register-level testbenches ([`tb`]: the `Tb` API by register name, the
//! TOML testbench files, the generated CSR checks and the reports of
//! `tpb test`) and the project's cross-check tests (`tests/`). Also: a bus driver over the generated register blocks in the
//! rust-hdl simulator ([`rhdl`]), random top-level traffic ([`traffic`]),
//! the Icarus cross-simulation ([`icarus`]), the same recordings replayed
//! under Verilator ([`replay`]) and the external-tool helpers
//! ([`tools`]). The `tpb` binary that runs them is the crate `tpb-cli`
//! (`cli/`, beside `src/`).

pub mod fuzz;
pub mod icarus;
pub mod lockstep;
pub mod qemu;
pub mod replay;
pub mod rhdl;
pub mod tb;
pub mod tools;
pub mod traffic;

/// The README's Rust examples, and those of every page of `docs/`, run as
/// doc tests here (the crate that sees every other), so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

macro_rules! doc_pages {
    ($($name:ident = $file:literal),* $(,)?) => {$(
        #[cfg(doctest)]
        #[doc = include_str!(concat!("../../docs/", $file))]
        pub struct $name;
    )*};
}

doc_pages! {
    DocsFirmware = "firmware.md",
    DocsCosim = "cosim.md",
    DocsCollectives = "collectives.md",
    DocsWaves = "waves.md",
    DocsTestbenches = "testbenches.md",
    DocsHal = "hal.md",
    DocsXtensa = "xtensa.md",
    DocsRtl = "rtl.md",
    DocsRegisterMaps = "register-maps.md",
    DocsVerilator = "verilator.md",
    DocsFpga = "fpga.md",
    DocsPerformance = "performance.md",
    DocsHostLink = "host-link.md",
}
