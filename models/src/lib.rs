//! # tpb-models
//!
//! Pure Rust, no HDL and no simulator: the register maps (re-exported from
//! [`tpb_regmap`]), the HAL's generated register constants ([`regs`]) and,
//! the host HAL ([`hal`]), the NCFW/TOP_SP structures ([`ncfw`]) and, as
//! they land, the golden block models and the Xtensa core.

pub use tpb_regmap as regmap;
pub mod csr;
pub mod golden;
pub mod hal;
pub mod hostlink;
pub mod ncfw;
pub mod regs;
pub mod xtensa;
pub mod spec;

