//! Register names → BAR0 addresses, from the register maps.
//!
//! A name is `<engine>.<block>.<register>[.<field>]`, e.g.
//! `pool.q7.release_run_stall` or `pool.q7.run_state_3.running`. The block
//! may be left out when the register is unique in that engine's aperture
//! (`pe.start_ctrl`). Registers of a repeat group take an index
//! (`pool.q7.run_state[3]` = `run_state_3`); array windows take one too
//! (`top_sp.evt_sem.inc[5]`). TPB-level registers are `tpb.<register>`.
//! `port.<name>` names an output port of the top (`port.q7_run_stall`),
//! sampled, never accessed over the bus. `mem.<region>[+<offset>]` is a
//! word in one of the BAR0 memory regions of the generation's parameters
//! (`mem.q7[3].dram+0x40`, `mem.hw_decode.cam+0x10`, `mem.seq.iram`).

use tpb_models::regmap::{Access, Aperture, Engine, Field, RegMap, RegionKind, Register, WindowOp};

/// What a name resolves to.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A register, or one field of it.
    Reg { name: String, addr: u32, reg: Register, field: Option<Field> },
    /// An alias register (a named element of an array window).
    Alias { name: String, addr: u32 },
    /// One element of an array window (`evt_sem.inc[5]`).
    Element { name: String, addr: u32, op: WindowOp, width: u32 },
    /// A word of a BAR0 memory region.
    Mem { name: String, addr: u32 },
    /// An output port of the top.
    Port { name: String },
}

impl Target {
    pub fn name(&self) -> &str {
        match self {
            Target::Reg { name, .. } | Target::Alias { name, .. } | Target::Element { name, .. } | Target::Mem { name, .. } | Target::Port { name } => name,
        }
    }
    /// The bus address, or None for a port.
    pub fn addr(&self) -> Option<u32> {
        match self {
            Target::Reg { addr, .. } | Target::Alias { addr, .. } | Target::Element { addr, .. } | Target::Mem { addr, .. } => Some(*addr),
            Target::Port { .. } => None,
        }
    }
    /// The largest value the target holds.
    pub fn max(&self) -> u64 {
        match self {
            Target::Reg { field: Some(f), .. } => f.max(),
            Target::Element { width, .. } if *width < 32 => (1u64 << width) - 1,
            _ => u32::MAX as u64,
        }
    }
    /// Is this a doorbell register or field?
    pub fn is_doorbell(&self) -> bool {
        match self {
            Target::Reg { reg, field: Some(f), .. } => f.access == Access::Doorbell && !reg.fields.is_empty(),
            Target::Reg { reg, field: None, .. } => reg.fields.iter().any(|f| f.access == Access::Doorbell),
            _ => false,
        }
    }
}

/// A name that does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("unknown name '{name}' ({why}){}", did_you_mean(.nearest))]
    Unknown { name: String, why: String, nearest: Vec<String> },
    #[error("'{name}' is ambiguous in {engine}: say which block: {}", .candidates.join(", "))]
    Ambiguous { name: String, engine: String, candidates: Vec<String> },
}

fn did_you_mean(n: &[String]) -> String {
    if n.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", n.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", "))
    }
}

/// Output ports of a top that `port.<name>` can sample.
pub const PORTS: &[&str] = &[
    "rsp_valid",
    "rsp_err",
    "rsp_rdata",
    "nx_run_stall",
    "q7_run_stall",
    "sem_notif_valid",
    "sem_notif_index",
    "dma_db_valid",
    "dma_busy",
    "host_trigger_pulse",
    "stop_pulse",
    "hwd_lookup_ready",
    "hwd_fifo_valid",
    "hwd_fifo_hit",
    "hwd_fifo_entry",
    "hwd_fifo_index",
    "hwd_fifo_handler",
    "hwd_miss",
    "hwd_miss_irq",
];

/// Every name of one generation's map, ready for lookups.
#[derive(Debug, Clone)]
pub struct Names {
    map: RegMap,
    /// Canonical names of every register, alias, window and port (for suggestions).
    all: Vec<String>,
}

const ENGINES: [Engine; 7] = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::TpbSp, Engine::TopSp, Engine::Tpb];

impl Names {
    pub fn new(map: &RegMap) -> Names {
        let mut all = Vec::new();
        for e in ENGINES {
            for b in blocks_of(map, e) {
                let pre = prefix(e, &b.name);
                all.extend(b.registers.iter().map(|r| format!("{pre}{}", r.name)));
                all.extend(b.registers.iter().flat_map(|r| r.fields.iter().map(move |f| (r, f))).map(|(r, f)| format!("{pre}{}.{}", r.name, f.name)));
                all.extend(b.aliases.iter().map(|a| format!("{pre}{}", a.name)));
                all.extend(b.arrays.iter().flat_map(|a| a.windows.iter()).map(|w| format!("{pre}{}[]", w.name)));
            }
        }
        all.extend(PORTS.iter().map(|p| format!("port.{p}")));
        all.extend(map.params.bar0_regions().iter().filter(|r| r.kind == RegionKind::Memory).map(|r| format!("mem.{}", r.name)));
        Names { map: map.clone(), all }
    }

    pub fn map(&self) -> &RegMap {
        &self.map
    }

    /// Canonical names of every register, field, alias, array window (`name[]`) and port.
    pub fn all(&self) -> &[String] {
        &self.all
    }

    /// Resolve `name`.
    pub fn resolve(&self, name: &str) -> Result<Target, NameError> {
        let unknown = |why: String| NameError::Unknown { name: name.to_string(), why, nearest: self.nearest(name) };
        let parts: Vec<&str> = name.split('.').collect();
        if parts[0] == "port" {
            return match parts.get(1) {
                Some(p) if parts.len() == 2 && PORTS.contains(p) => Ok(Target::Port { name: name.to_string() }),
                _ => Err(unknown("not an output port of the top".into())),
            };
        }
        if let Some(m) = name.strip_prefix("mem.") {
            let (region, off) = match m.split_once('+') {
                Some((r, o)) => (r, parse_u32(o).ok_or_else(|| unknown(format!("'{o}' is not an offset")))?),
                None => (m, 0),
            };
            let regions = self.map.params.bar0_regions();
            let r = regions.iter().find(|r| r.kind == RegionKind::Memory && r.name == region).ok_or_else(|| unknown("not a memory region of this generation".into()))?;
            if u64::from(off) >= r.region.size {
                return Err(unknown(format!("offset {off:#x} is past the end of {} ({:#x} bytes)", r.name, r.region.size)));
            }
            return Ok(Target::Mem { name: name.to_string(), addr: (r.region.base + u64::from(off)) as u32 });
        }
        let Some(engine) = ENGINES.iter().copied().find(|e| e.name() == parts[0]) else {
            return Err(unknown(format!("'{}' is not an engine: pe, act, pool, dve, tpb_sp, top_sp, tpb, or port./mem.", parts[0])));
        };
        let base = match engine {
            Engine::Tpb => self.map.params.bar0.tpb_base + self.map.params.bar0.tpb_regs.base,
            e => self.map.params.local_reg_base(e).ok_or_else(|| unknown(format!("{} has no local-register aperture on {}", e.name(), self.map.arch.name())))?,
        } as u32;
        let blocks = blocks_of(&self.map, engine);
        if parts.len() < 2 {
            return Err(unknown("a name is <engine>.<block>.<register>[.<field>]".into()));
        }
        // <engine>.<block>.<item>[.<field>] or <engine>.<item>[.<field>].
        let (cands, rest): (Vec<&tpb_models::regmap::Block>, &[&str]) = match blocks.iter().find(|b| b.name == parts[1] && parts.len() >= 3) {
            Some(b) => (vec![*b], &parts[2..]),
            None => (blocks.clone(), &parts[1..]),
        };
        if rest.len() > 2 {
            return Err(unknown("too many parts: <engine>.<block>.<register>[.<field>]".into()));
        }
        let (item, field) = (rest[0], rest.get(1).copied());
        let (item_base, index) = split_index(item).map_err(|e| unknown(e))?;
        let mut found: Vec<Target> = Vec::new();
        for b in &cands {
            let pre = prefix(engine, &b.name);
            let reg_name = match index {
                Some(i) if b.array(item_base).is_none() && !b.arrays.iter().any(|a| a.window(item_base).is_some()) => format!("{item_base}_{i}"),
                _ => item_base.to_string(),
            };
            if let Some(r) = b.register(&reg_name) {
                let f = match field {
                    Some(f) => Some(r.field(f).cloned().ok_or_else(|| {
                        unknown(format!("{pre}{} has fields {}", r.name, r.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")))
                    })?),
                    None => None,
                };
                let full = format!("{pre}{}{}", r.name, field.map(|f| format!(".{f}")).unwrap_or_default());
                found.push(Target::Reg { name: full, addr: base + r.offset, reg: r.clone(), field: f });
                continue;
            }
            if field.is_some() {
                continue;
            }
            if let (Some(a), None) = (b.alias(item_base), index) {
                found.push(Target::Alias { name: format!("{pre}{}", a.name), addr: base + a.offset });
                continue;
            }
            for a in &b.arrays {
                if let Some(w) = a.window(item_base) {
                    let Some(i) = index else {
                        return Err(unknown(format!("{pre}{} is a window of {} elements: give an index, {pre}{}[0]", w.name, a.count, w.name)));
                    };
                    if i >= a.count {
                        return Err(unknown(format!("{pre}{}[{i}]: the window has {} elements (0..{})", w.name, a.count, a.count - 1)));
                    }
                    found.push(Target::Element { name: format!("{pre}{}[{i}]", w.name), addr: base + a.addr(w, i), op: w.op, width: a.width });
                }
            }
        }
        match found.len() {
            1 => Ok(found.pop().unwrap()),
            0 => Err(unknown(format!("no such register in {}", cands.iter().map(|b| prefix(engine, &b.name)).collect::<Vec<_>>().join(", ")))),
            _ => Err(NameError::Ambiguous {
                name: name.to_string(),
                engine: engine.name().to_string(),
                candidates: found.iter().map(|t| t.name().to_string()).collect(),
            }),
        }
    }

    /// Up to three canonical names closest to `name` (edit distance).
    pub fn nearest(&self, name: &str) -> Vec<String> {
        let mut scored: Vec<(usize, &String)> = self.all.iter().map(|c| (strsim::levenshtein(name, c.trim_end_matches("[]")), c)).collect();
        scored.sort();
        let limit = (name.len() / 2).max(3);
        scored.into_iter().filter(|(d, _)| *d <= limit).take(3).map(|(_, c)| c.clone()).collect()
    }
}

fn prefix(e: Engine, block: &str) -> String {
    match e {
        Engine::Tpb => "tpb.".to_string(),
        e => format!("{}.{block}.", e.name()),
    }
}

fn blocks_of(map: &RegMap, e: Engine) -> Vec<&tpb_models::regmap::Block> {
    map.blocks
        .iter()
        .filter(|b| match e {
            Engine::Tpb => b.aperture == Aperture::TpbRegs,
            e => b.aperture == Aperture::LocalReg && b.engines.contains(&e) && map.params.local_reg_base(e).is_some(),
        })
        .collect()
}

/// `run_state[3]` → (`run_state`, Some(3)).
fn split_index(item: &str) -> Result<(&str, Option<u32>), String> {
    let Some(open) = item.find('[') else { return Ok((item, None)) };
    let idx = item[open + 1..].strip_suffix(']').ok_or_else(|| format!("'{item}': an index is written [n]"))?;
    let n = parse_u32(idx).ok_or_else(|| format!("'{item}': '{idx}' is not an index"))?;
    Ok((&item[..open], Some(n)))
}

/// A decimal or 0x/0b number.
pub fn parse_u32(s: &str) -> Option<u32> {
    let s = s.trim().replace('_', "");
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u32::from_str_radix(b, 2).ok()
    } else {
        s.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_models::regmap::{builtin, Arch};

    fn names(a: Arch) -> Names {
        Names::new(&builtin(a).unwrap())
    }

    #[test]
    fn full_short_indexed_and_field_names_resolve_to_map_addresses() {
        let n = names(Arch::Cayman);
        let map = n.map().clone();
        let pool = map.params.local_reg_base(Engine::Pool).unwrap() as u32;
        let q7 = map.block("q7").unwrap();
        let r = q7.register("run_state_3").unwrap();
        let t = n.resolve("pool.q7.run_state[3].running").unwrap();
        assert_eq!(t.addr(), Some(pool + r.offset));
        assert_eq!(t.name(), "pool.q7.run_state_3.running");
        assert_eq!(n.resolve("pool.q7.run_state_3").unwrap().addr(), Some(pool + r.offset));
        let sems = &map.block("evt_sem").unwrap().arrays[0];
        let top_sp = map.params.local_reg_base(Engine::TopSp).unwrap() as u32;
        let e = n.resolve("top_sp.evt_sem.inc[5]").unwrap();
        assert_eq!(e.addr(), Some(top_sp + sems.addr(sems.window("inc").unwrap(), 5)));
        // Short form when unique; the q7 and nx blocks both have release_run_stall in pool.
        assert!(n.resolve("pe.instr_halt_ctrl").is_ok());
        let amb = n.resolve("pool.release_run_stall").unwrap_err().to_string();
        assert!(amb.contains("pool.nx.release_run_stall") && amb.contains("pool.q7.release_run_stall"), "{amb}");
        assert_eq!(n.resolve("port.q7_run_stall").unwrap(), Target::Port { name: "port.q7_run_stall".into() });
        let regions = map.params.bar0_regions();
        let d3 = regions.iter().find(|r| r.name == "q7[3].dram").unwrap();
        assert_eq!(n.resolve("mem.q7[3].dram+0x40").unwrap().addr(), Some(d3.region.base as u32 + 0x40));
        assert!(n.resolve("mem.q7[3].dram+0x10000000").unwrap_err().to_string().contains("past the end"));
    }

    #[test]
    fn typos_list_the_nearest_names() {
        let n = names(Arch::Cayman);
        let e = n.resolve("pool.q7.relase_run_stall").unwrap_err().to_string();
        assert!(e.contains("did you mean 'pool.q7.release_run_stall'"), "{e}");
        let e = n.resolve("pool.q7.run_state_3.runing").unwrap_err().to_string();
        assert!(e.contains("has fields running, halted") || e.contains("running"), "{e}");
        let e = n.resolve("top_sp.evt_sem.inc[256]").unwrap_err().to_string();
        assert!(e.contains("256 elements"), "{e}");
        let e = n.resolve("pol.q7.start_ctrl").unwrap_err().to_string();
        assert!(e.contains("not an engine") && e.contains("pool.q7.start_ctrl"), "{e}");
        // SUNDA has no TPB_SP aperture? Whatever the map says, an engine without one is a clear error.
        let s = names(Arch::Sunda);
        if s.map().params.local_reg_base(Engine::TpbSp).is_none() {
            assert!(s.resolve("tpb_sp.nx.start_ctrl").unwrap_err().to_string().contains("no local-register aperture"));
        }
    }

    #[test]
    fn numbers_parse_in_three_bases() {
        assert_eq!(parse_u32("0x1_0"), Some(16));
        assert_eq!(parse_u32("0b101"), Some(5));
        assert_eq!(parse_u32("42"), Some(42));
        assert_eq!(parse_u32("4x"), None);
    }
}
