//! # tpb-models
//!
//! Pure Rust, no HDL and no simulator: the HAL's generated register
//! constants ([`regs`]), the host HAL ([`hal`]), the NCFW/TOP_SP structures
//! ([`ncfw`]), the host-link protocol ([`hostlink`]) and the named constants
//! ([`spec`]). The register maps ([`regmap`]), the golden models
//! ([`golden`], [`csr`]) and the Xtensa core ([`xtensa`]) are crates of their
//! own beside this one (an edit to one recompiles less), re-exported here so
//! the rest of the project names them through one crate.

pub use tpb_regmap as regmap;
/// The golden models (their own crate, `models/golden`), and the register-block model they use.
pub use tpb_golden as golden;
pub use tpb_golden::csr;
pub mod hal;
pub mod hostlink;
pub mod ncfw;
pub mod regs;
/// The behavioural Xtensa core (its own crate, `models/xtensa`).
pub use tpb_xtensa as xtensa;
pub mod spec;

