//! Every BAR0 name of a generation with its address, as JSON: what a host
//! program in another language needs to write `pool.q7.release_run_stall`
//! instead of a number (`tpb regmap --format names`; read by
//! `testbench/python/tpb_link.py`).
//!
//! ```json
//! { "arch": "cayman",
//!   "registers": { "pool.nx.run_state": 42336276, ... },
//!   "fields": { "tpb.tpb.notific_enable.inst": { "addr": 461340, "lsb": 2, "mask": 4 }, ... },
//!   "arrays": { "pool.evt_sem.read": { "addr": ..., "stride": 4, "count": 256 }, ... },
//!   "memories": { "q7[0].dram": { "addr": ..., "size": 262144 }, ... } }
//! ```
//! Aliases (named elements of an array window) are registers here; a
//! register whose access-log name (`AddressSpace::name`, what `tpb bringup`
//! prints) differs from its short name is listed under both.

use crate::space::{AddressSpace, Named};
use crate::RegMap;
use serde_json::{json, Map, Value};

/// The names of `map` as JSON text.
pub fn render(map: &RegMap) -> String {
    let space = AddressSpace::new(map.clone());
    let (mut regs, mut fields, mut arrays, mut mems) = (Map::new(), Map::new(), Map::new(), Map::new());
    for name in space.all() {
        if let Some(arr) = name.strip_suffix("[]") {
            let at = |i: u64| match space.resolve(&format!("{arr}[{i}]")) {
                Ok(Named::Element { addr, .. }) => Some(addr),
                _ => None,
            };
            let Some(a0) = at(0) else { continue };
            let stride = at(1).map_or(4, |a1| a1 - a0);
            // The count: the first index that does not resolve.
            let (mut lo, mut hi) = (1u64, 1u64 << 20);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if at(mid).is_some() {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            arrays.insert(arr.to_string(), json!({ "addr": a0, "stride": stride, "count": lo }));
            continue;
        }
        if let Some(mem) = name.strip_prefix("mem.") {
            if let Some(r) = space.regions().iter().find(|r| r.name == mem) {
                mems.insert(mem.to_string(), json!({ "addr": r.region.base, "size": r.region.size }));
            }
            continue;
        }
        match space.resolve(name) {
            Ok(Named::Reg { addr, field: None, .. }) | Ok(Named::Alias { addr, .. }) => {
                regs.insert(name.clone(), json!(addr));
                // The name an access log prints (`tpb.tpb.x` for `tpb.x`), if it differs.
                let logged = space.name(u64::from(addr));
                if logged != *name && space.resolve(&logged).is_ok_and(|n| n.addr() == addr) {
                    regs.insert(logged, json!(addr));
                }
            }
            Ok(Named::Reg { addr, field: Some(f), .. }) => {
                fields.insert(name.clone(), json!({ "addr": addr, "lsb": f.lsb, "mask": f.mask() }));
            }
            _ => {}
        }
    }
    let v = json!({ "arch": map.arch.name(), "registers": Value::Object(regs), "fields": Value::Object(fields), "arrays": Value::Object(arrays), "memories": Value::Object(mems) });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_as_the_address_space_does() {
        let map = crate::builtin(crate::Arch::Cayman).unwrap();
        let v: Value = serde_json::from_str(&render(&map)).unwrap();
        let space = AddressSpace::new(map);
        let addr = |n: &str| space.resolve(n).unwrap().addr();
        assert_eq!(v["registers"]["pool.q7.release_run_stall"], json!(addr("pool.q7.release_run_stall")));
        assert_eq!(v["registers"]["tpb.tpb.notific_enable"], v["registers"]["tpb.notific_enable"]);
        let sem = &v["arrays"]["pool.evt_sem.read"];
        assert_eq!(sem["addr"], json!(addr("pool.evt_sem.read[0]")));
        assert_eq!(sem["addr"].as_u64().unwrap() + 10 * sem["stride"].as_u64().unwrap(), u64::from(addr("pool.evt_sem.read[10]")));
        let n = sem["count"].as_u64().unwrap();
        assert!(space.resolve(&format!("pool.evt_sem.read[{}]", n - 1)).is_ok() && space.resolve(&format!("pool.evt_sem.read[{n}]")).is_err());
        assert!(v["memories"]["q7[3].dram"]["size"].as_u64().unwrap() > 0);
        assert!(v["fields"].as_object().unwrap().values().all(|f| f["mask"].as_u64().unwrap() > 0));
    }
}
