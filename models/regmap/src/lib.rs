//! # tpb-regmap
//!
//! The single source of truth for every TPB register: one TOML file per
//! block per generation under `maps/<arch>/`, plus `arch.toml` with the
//! generation's non-register parameters. This crate parses and validates
//! them ([`load`]) into the elaborated model ([`model`]) and turns that model
//! into every other artefact ([`gen`]): the rust-hdl register blocks, the
//! HAL's typed constants, a C header, a Markdown reference, a SystemRDL
//! export and JSON.
//!
//! ```
//! use tpb_regmap::{builtin, Arch};
//! let map = builtin(Arch::Cayman).unwrap();
//! let q7 = map.block("q7").unwrap();
//! assert_eq!(q7.register("release_run_stall").unwrap().reset_word(), 0xff);
//! ```

pub mod cover;
pub mod error;
pub mod gen;
pub mod layer;
pub mod layout;
pub mod load;
pub mod model;
pub mod params;
pub mod space;

pub use error::{Loc, RegmapError, Result};
pub use model::*;
pub use params::{ArchParams, Bar0, Bar0Region, Q7Layout, Region, RegionKind, Sim};

use std::path::PathBuf;
use std::sync::OnceLock;

/// The common block files (`maps/common/`), listed once; every generation
/// has them (a block in a window the generation lacks is left out at load).
macro_rules! map_files {
    ($arch:literal: $($file:literal),* $(,)?) => {
        map_files!(@list
            "nx.toml", "evt_sem.toml", "windows.toml", "q7.toml", "top_sp.toml", "tpb.toml", "seq_dma.toml", "hw_decode.toml";
            $arch: $($file),*)
    };
    (@list $($c:literal),* ; $arch:literal: $($file:literal),*) => {
        &[
            $((concat!("models/regmap/maps/common/", $c), include_str!(concat!("../maps/common/", $c))),)*
            $((concat!("models/regmap/maps/", $arch, "/", $file), include_str!(concat!("../maps/", $arch, "/", $file))),)*
        ]
    };
}

/// The map files compiled into the crate, as `(repo-relative path, text)`:
/// the common blocks (`maps/common/`) and the generation's own files
/// (`arch.toml`, and the blocks it replaces or changes; see [`layer`]).
pub fn builtin_files(arch: Arch) -> &'static [(&'static str, &'static str)] {
    match arch {
        Arch::Sunda => map_files!("sunda": "arch.toml", "nx.toml", "top_sp.toml"),
        Arch::Cayman => map_files!("cayman": "arch.toml"),
        Arch::Mariana => map_files!("mariana": "arch.toml", "top_sp.toml"),
    }
}

/// The built-in map of a generation. Parsed once a process (a parse is
/// about 10M instructions, and a co-simulation's set-up asks several
/// times); each call gets its own copy.
pub fn builtin(arch: Arch) -> Result<RegMap> {
    static PARSED: [OnceLock<RegMap>; Arch::ALL.len()] = [const { OnceLock::new() }; Arch::ALL.len()];
    let slot = &PARSED[arch as usize];
    if let Some(map) = slot.get() {
        return Ok(map.clone());
    }
    // A map that does not load is not kept: every call reports it.
    let files: Vec<(PathBuf, String)> = builtin_files(arch).iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    let map = load::from_sources(arch, &files)?;
    Ok(slot.get_or_init(|| map).clone())
}

/// The built-in maps of all generations.
pub fn builtin_all() -> Result<Vec<RegMap>> {
    Arch::ALL.iter().map(|a| builtin(*a)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_generation_has_its_own_parsed_map_and_every_call_gets_it_whole() {
        for (k, arch) in Arch::ALL.iter().enumerate() {
            // `builtin` keeps generation `a` at index `a as usize`.
            assert_eq!(*arch as usize, k, "Arch::ALL is in declaration order");
            let (first, again) = (builtin(*arch).unwrap(), builtin(*arch).unwrap());
            assert_eq!(first.arch, *arch);
            assert_eq!(first, again);
            let files: Vec<(PathBuf, String)> = builtin_files(*arch).iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
            assert_eq!(again, load::from_sources(*arch, &files).unwrap(), "the kept copy is what a parse gives");
        }
    }
}
