//! # tpb-models
//!
//! The one name the rest of the project imports the models by. Each model
//! is a crate of its own under `models/` (its own public surface; an edit
//! to one recompiles less), re-exported here:
//! - [`regmap`] (`models/regmap`): the register maps, the address space, the BAR0 layout;
//! - [`golden`] and [`csr`] (`models/golden`): the golden block and top models;
//! - [`xtensa`] (`models/xtensa`): the behavioural Xtensa core;
//! - [`hal`] (`models/hal`): the host HAL, with its register constants
//!   ([`regs`]), named constants ([`spec`]) and host-link protocol ([`hostlink`]);
//! - [`ncfw`] (`models/ncfw`): the NCFW / TOP_SP device structures.
//!
//! `models/tests/` tests them together, through these names.

pub use tpb_golden as golden;
pub use tpb_golden::csr;
pub use tpb_hal as hal;
pub use tpb_hal::{hostlink, regs, spec};
pub use tpb_ncfw as ncfw;
pub use tpb_regmap as regmap;
pub use tpb_xtensa as xtensa;
