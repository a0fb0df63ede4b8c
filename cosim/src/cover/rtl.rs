//! Line and toggle points per block of the top, read from Verilator's
//! merged `coverage.dat` (each point's `page` key names its kind and
//! module: `v_line/<module>`, `v_toggle/<module>`; a point is hit when its
//! count is not zero). A module is a block of the top
//! (`cayman_tpb_top__dma`: the SEQ DMA), its points summed over its
//! instances; the co-simulation's probe wrapper is left out (the lcov
//! report has it).

use super::CoverError;
use std::collections::BTreeMap;

/// One kind of coverage point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    pub hit: u64,
    pub total: u64,
}

impl Count {
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.hit as f64 / self.total as f64
        }
    }
}

/// Line and toggle points per module of one merged `coverage.dat`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// module → (lines, toggles).
    pub modules: BTreeMap<String, (Count, Count)>,
}

impl Summary {
    /// Read a `coverage.dat` (Verilator's format: `C '<key\x02value\x01…>' <count>`).
    pub fn parse(text: &str) -> Result<Summary, CoverError> {
        let mut s = Summary::default();
        for (n, line) in text.lines().enumerate() {
            let Some(rest) = line.strip_prefix("C '") else { continue };
            let bad = || CoverError::Other(format!("coverage.dat line {}: not a coverage point", n + 1));
            let (keys, count) = rest.rsplit_once("' ").ok_or_else(bad)?;
            let count: u64 = count.trim().parse().map_err(|_| bad())?;
            let page = keys.split('\x01').filter_map(|kv| kv.split_once('\x02')).find(|(k, _)| *k == "page").map(|(_, v)| v).ok_or_else(bad)?;
            let (kind, module) = page.split_once('/').ok_or_else(bad)?;
            // The co-simulation's probe wrapper is not the design.
            if ["_sim_top", "_sim_core_probe", "_sim_hal_probe"].iter().any(|w| module.ends_with(w)) {
                continue;
            }
            let e = s.modules.entry(module.to_string()).or_default();
            let c = match kind {
                "v_line" | "v_branch" => &mut e.0,
                "v_toggle" => &mut e.1,
                _ => continue,
            };
            c.total += 1;
            c.hit += u64::from(count > 0);
        }
        Ok(s)
    }

    /// All modules' lines and toggles together.
    pub fn total(&self) -> (Count, Count) {
        let add = |a: Count, b: Count| Count { hit: a.hit + b.hit, total: a.total + b.total };
        self.modules.values().fold((Count::default(), Count::default()), |(l, t), (ml, mt)| (add(l, *ml), add(t, *mt)))
    }

    /// A Markdown table: each module's lines and toggles hit, then the total.
    pub fn table(&self) -> String {
        let mut s = String::from("| module | lines hit | toggles hit |\n|---|---:|---:|\n");
        let row = |name: &str, (l, t): (Count, Count)| format!("| {name} | {}/{} ({:.1}%) | {}/{} ({:.1}%) |\n", l.hit, l.total, l.percent(), t.hit, t.total, t.percent());
        for (m, c) in &self.modules {
            s += &row(&format!("`{m}`"), *c);
        }
        s += &row("**all**", self.total());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(page: &str, count: u64) -> String {
        format!("C '\x01f\x02x.v\x01l\x021\x01page\x02{page}\x01h\x02TOP.t' {count}\n")
    }

    #[test]
    fn the_summary_counts_points_hit_per_module_and_kind() {
        let text = [
            "# SystemC::Coverage-3\n".to_string(),
            point("v_line/top__dma", 3),
            point("v_line/top__dma", 0),
            point("v_toggle/top__dma", 1),
            point("v_branch/top__nx", 0),
            point("v_toggle/arch_sim_top", 9),
        ]
        .concat();
        let s = Summary::parse(&text).unwrap();
        assert_eq!(s.modules.len(), 2, "the wrapper is left out: {s:?}");
        assert_eq!(s.modules["top__dma"], (Count { hit: 1, total: 2 }, Count { hit: 1, total: 1 }));
        assert_eq!(s.modules["top__nx"].0, Count { hit: 0, total: 1 });
        assert_eq!(s.total(), (Count { hit: 1, total: 3 }, Count { hit: 1, total: 1 }));
        assert!(s.table().contains("| `top__dma` | 1/2 (50.0%) | 1/1 (100.0%) |"), "{}", s.table());
        assert!(Summary::parse("C 'no page' 1\n").unwrap_err().to_string().contains("line 1"));
    }
}
