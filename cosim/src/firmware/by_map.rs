//! What a run works out from its register map and would otherwise work out
//! again for every unit and every die: kept for the last few maps seen,
//! each map compared whole, so an edited map is never given another's.

use std::sync::{Mutex, PoisonError};
use tpb_models::regmap::RegMap;

/// How many maps are kept: the three generations and a user's own.
const KEPT_MAPS: usize = 4;

/// A `T` for each of the last [`KEPT_MAPS`] maps, the latest first.
pub(crate) struct ByMap<T>(Mutex<Vec<(RegMap, T)>>);

impl<T> ByMap<T> {
    pub(crate) const fn new() -> Self {
        ByMap(Mutex::new(Vec::new()))
    }

    /// `use_it` on the `T` kept for `map`, made by `make` if there is none.
    /// A `make` that fails keeps nothing. The lock is held throughout:
    /// threads asking for the same map wait for one `make`.
    pub(crate) fn with<R, E>(&self, map: &RegMap, make: impl FnOnce() -> Result<T, E>, use_it: impl FnOnce(&mut T) -> Result<R, E>) -> Result<R, E> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = match kept.iter().position(|(m, _)| m == map) {
            Some(k) => kept.remove(k),
            None => (map.clone(), make()?),
        };
        kept.insert(0, entry);
        kept.truncate(KEPT_MAPS);
        use_it(&mut kept[0].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_models::regmap::{builtin, Arch};

    #[test]
    fn each_map_is_worked_out_once_an_edited_one_anew_and_a_failure_not_kept() {
        let kept: ByMap<u32> = ByMap::new();
        let made = std::cell::Cell::new(0);
        let make = |v: u32| {
            made.set(made.get() + 1);
            Ok::<_, String>(v)
        };
        let get = |map: &RegMap, v: u32| kept.with(map, || make(v), |t| Ok(*t));
        let map = builtin(Arch::Cayman).unwrap();
        assert_eq!((get(&map, 1), get(&map, 2), made.get()), (Ok(1), Ok(1), 1), "kept after the first");
        let mut edited = map.clone();
        edited.blocks[0].registers[0].offset += 4;
        assert_eq!((get(&edited, 3), made.get()), (Ok(3), 2), "an edited map is another map");
        assert_eq!(kept.with(&builtin(Arch::Sunda).unwrap(), || Err("no".to_string()), |t| Ok(*t)), Err("no".to_string()));
        assert_eq!((get(&builtin(Arch::Sunda).unwrap(), 4), made.get()), (Ok(4), 3), "a failed make keeps nothing");
        // Two more maps: `map`, the oldest, goes past KEPT_MAPS and is made again; `edited` stays.
        for arch in [Arch::Mariana, Arch::Sunda] {
            let mut m = builtin(arch).unwrap();
            m.blocks[0].registers[0].offset += 8;
            get(&m, 9).unwrap();
        }
        assert_eq!((get(&edited, 5), get(&map, 6), made.get()), (Ok(3), Ok(6), 6));
    }

    #[test]
    fn a_kept_unit_is_what_assembling_it_gives_for_its_own_constants() {
        let map = builtin(Arch::Cayman).unwrap();
        let programs: Vec<_> = [1, 2, 1]
            .iter()
            .map(|step| {
                let mut c = super::super::Consts::default();
                c.set("STEP", *step);
                let kept = super::super::build_unit(&map, "top_sp_ccop.S", &c).unwrap();
                assert_eq!(kept, super::super::assemble_unit(&map, "top_sp_ccop.S", &c).unwrap(), "STEP = {step}");
                kept
            })
            .collect();
        assert_ne!(programs[0].bytes, programs[1].bytes, "another constant, another program");
        assert_eq!(programs[0], programs[2]);
    }
}
