//! # tpb-models
//!
//! Pure Rust, no HDL and no simulator: the register maps (re-exported from
//! [`tpb_regmap`]), the HAL's generated register constants ([`regs`]) and,
//! as they land, the golden block models, the Xtensa core and the host HAL.

pub use tpb_regmap as regmap;
pub mod csr;
pub mod regs;
pub mod spec;
