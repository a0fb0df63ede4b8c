//! One address space per generation: the BAR0 of one TPB as the register
//! map lays it out ([`crate::ArchParams::bar0_regions`]), turned both ways.
//!
//! - **name → address** ([`AddressSpace::resolve`]): `pool.q7.release_run_stall`,
//!   `pool.q7.run_state[3].running` (a repeat group's index, then a field),
//!   `top_sp.evt_sem.inc[5]` (an array window's element), `tpb.<register>`,
//!   `mem.q7[3].dram+0x40` (a word of a memory region); the block may be left
//!   out where the register is unique in the engine (`pe.start_ctrl`). A
//!   name that does not resolve lists the nearest names.
//! - **address → name** ([`AddressSpace::decode`], [`AddressSpace::name`]):
//!   the register, semaphore-window element or memory word the RTL decodes
//!   at an address, named as the HAL's access log names it.
//! - **numbers** ([`parse_number`]): one rule for every command line and
//!   testbench file.
//!
//! The HAL's recorder and golden register file, the testbenches, the `tpb`
//! command line, the firmware builder and the waveform names all use it.

use crate::{Access, Alias, Aperture, Array, Bar0Region, Block, Engine, Field, RegMap, Region, RegionKind, Register, Window, WindowOp};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A number as the project writes them everywhere: decimal, `0x` hex or
/// `0b` binary, with `_` separators allowed (`0x0006_15a0`).
pub fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()
    } else {
        s.parse().ok()
    }
}

/// [`parse_number`] for 32-bit values.
pub fn parse_u32(s: &str) -> Option<u32> {
    parse_number(s).and_then(|v| u32::try_from(v).ok())
}

/// Up to three of `candidates` closest to `name` by edit distance (a
/// window's `[]` ignored), within half the name's length: the "did you
/// mean" of every name lookup.
pub fn nearest_names(candidates: &[String], name: &str) -> Vec<String> {
    let mut scored: Vec<(usize, &String)> = candidates.iter().map(|c| (strsim::levenshtein(name, c.trim_end_matches("[]")), c)).collect();
    scored.sort();
    let limit = (name.len() / 2).max(3);
    scored.into_iter().filter(|(d, _)| *d <= limit).take(3).map(|(_, c)| c.clone()).collect()
}

/// What an address reaches.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A register of a generated register block.
    Reg { region: &'a Bar0Region, block: &'a Block, reg: &'a Register },
    /// One element of an array window (an EVT_SEM semaphore op), with the
    /// alias that names it, if any (CAYMAN's host_trigger = set\[104\]).
    Elem { region: &'a Bar0Region, array: &'a Array, window: &'a Window, index: u32, alias: Option<&'a Alias> },
    /// A word of a memory region (IRAM/DRAM/table).
    Mem { region: &'a Bar0Region, offset: u64 },
    /// Inside a register aperture, but no register decodes it (a bus error).
    Hole { region: &'a Bar0Region, offset: u64 },
}

impl Target<'_> {
    /// Human-readable name: `pool.nx.release_run_stall`,
    /// `top_sp.evt_sem.set[104] (host_trigger)`, `q7[3].dram+0x40`.
    pub fn name(&self) -> String {
        match self {
            Target::Reg { region, block, reg } => format!("{}.{}.{}", engine_of(region), block.name, reg.name),
            Target::Elem { region, array, window, index, alias } => {
                let base = format!("{}.{}.{}[{}]", engine_of(region), array.name, window.name, index);
                match alias {
                    Some(a) => format!("{base} ({})", a.name),
                    None => base,
                }
            }
            Target::Mem { region, offset } => format!("{}+{:#x}", region.name, offset),
            Target::Hole { region, offset } => format!("{}+{:#x} (no register)", region.name, offset),
        }
    }
}

/// The engine part of a name in `region` (`pool`, `tpb`).
pub(crate) fn engine_of(region: &Bar0Region) -> &str {
    match region.kind {
        RegionKind::LocalReg(e) => e.name(),
        RegionKind::TpbRegs => "tpb",
        RegionKind::Block { engine, .. } => engine.name(),
        RegionKind::Memory => &region.name,
    }
}

/// What a name resolves to.
// A `Reg` carries its register by value: names are resolved once each,
// at load, and not kept in bulk, so the size gap costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Named {
    /// A register, or one field of it.
    Reg { name: String, addr: u32, reg: Register, field: Option<Field> },
    /// An alias register (a named element of an array window).
    Alias { name: String, addr: u32 },
    /// One element of an array window (`evt_sem.inc[5]`).
    Element { name: String, addr: u32, op: WindowOp, width: u32 },
    /// A word of a BAR0 memory region.
    Mem { name: String, addr: u32 },
}

impl Named {
    /// The canonical name (`pool.q7.run_state_3.running`).
    pub fn name(&self) -> &str {
        match self {
            Named::Reg { name, .. } | Named::Alias { name, .. } | Named::Element { name, .. } | Named::Mem { name, .. } => name,
        }
    }
    /// The BAR0 address.
    pub fn addr(&self) -> u32 {
        match self {
            Named::Reg { addr, .. } | Named::Alias { addr, .. } | Named::Element { addr, .. } | Named::Mem { addr, .. } => *addr,
        }
    }
    /// The largest value the target holds.
    pub fn max(&self) -> u64 {
        match self {
            Named::Reg { field: Some(f), .. } => f.max(),
            // A whole register is as wide as its highest field (no fields: 32 bits).
            Named::Reg { reg, field: None, .. } if !reg.fields.is_empty() => {
                let top = 32 - reg.fields.iter().fold(0u32, |a, f| a | f.mask()).leading_zeros();
                (1u64 << top) - 1
            }
            Named::Element { width, .. } if *width < 32 => (1u64 << width) - 1,
            _ => u32::MAX as u64,
        }
    }
    /// Is this a doorbell register or field?
    pub fn is_doorbell(&self) -> bool {
        match self {
            Named::Reg { reg, field: Some(f), .. } => f.access == Access::Doorbell && !reg.fields.is_empty(),
            Named::Reg { reg, field: None, .. } => reg.fields.iter().any(|f| f.access == Access::Doorbell),
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

/// The engines a name can start with.
const ENGINES: [Engine; 7] = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::TpbSp, Engine::TopSp, Engine::Tpb];

/// The BAR0 address space of one generation.
#[derive(Debug, Clone)]
pub struct AddressSpace {
    map: RegMap,
    regions: Vec<Bar0Region>,
    /// Canonical names of every register, field, alias, window (`name[]`)
    /// and memory region (for suggestions), made when first asked for:
    /// about 1,200 `format!`s, which most spaces (one a die, one a
    /// firmware build) never need.
    all: OnceLock<Vec<String>>,
}

impl AddressSpace {
    pub fn new(map: RegMap) -> Self {
        let mut regions = map.params.bar0_regions();
        // The hand-written blocks' registers, as regions of their own (the
        // SEQ DMA status lies inside its memory window).
        for b in map.blocks.iter().filter(|b| b.aperture.hand_written()) {
            for &engine in &b.engines {
                if let Some(base) = map.params.aperture_base(b.aperture, engine) {
                    let region = Region { base: base + u64::from(b.start), size: u64::from(b.end - b.start) };
                    regions.push(Bar0Region { name: format!("{}.{}", engine.name(), b.name), kind: RegionKind::Block { aperture: b.aperture, engine }, region });
                }
            }
        }
        regions.sort_by_key(|r| (r.region.base, std::cmp::Reverse(r.region.size)));
        AddressSpace { map, regions, all: OnceLock::new() }
    }

    fn names(&self) -> &[String] {
        self.all.get_or_init(|| {
            let mut all = Vec::new();
            for e in ENGINES {
                for b in blocks_in(&self.map, e) {
                    let pre = prefix(e, b);
                    all.extend(b.registers.iter().map(|r| format!("{pre}{}", r.name)));
                    all.extend(b.registers.iter().flat_map(|r| r.fields.iter().map(move |f| (r, f))).map(|(r, f)| format!("{pre}{}.{}", r.name, f.name)));
                    all.extend(b.aliases.iter().map(|a| format!("{pre}{}", a.name)));
                    all.extend(b.arrays.iter().flat_map(|a| a.windows.iter()).map(|w| format!("{pre}{}[]", w.name)));
                }
            }
            all.extend(self.regions.iter().filter(|r| r.kind == RegionKind::Memory).map(|r| format!("mem.{}", r.name)));
            all
        })
    }

    pub fn regmap(&self) -> &RegMap {
        &self.map
    }

    /// Every decoded region, in address order.
    pub fn regions(&self) -> &[Bar0Region] {
        &self.regions
    }

    /// Canonical names of every register, field, alias, array window (`name[]`) and memory region.
    pub fn all(&self) -> &[String] {
        self.names()
    }

    /// The region containing `addr`.
    /// The innermost region containing `addr` (a hand-written block's
    /// registers inside a memory window win over the window).
    pub fn region(&self, addr: u64) -> Option<&Bar0Region> {
        let i = self.regions.partition_point(|r| r.region.base <= addr);
        self.regions[..i].iter().rev().find(|r| r.region.contains(addr))
    }

    /// Register blocks decoded in a region.
    pub fn blocks_of<'a>(&'a self, region: &'a Bar0Region) -> impl Iterator<Item = &'a Block> + 'a {
        self.map.blocks.iter().filter(move |b| match region.kind {
            RegionKind::LocalReg(e) => b.aperture == Aperture::LocalReg && b.engines.contains(&e),
            RegionKind::TpbRegs => b.aperture == Aperture::TpbRegs,
            RegionKind::Block { aperture, engine } => b.aperture == aperture && b.engines.contains(&engine),
            RegionKind::Memory => false,
        })
    }

    /// Decode a word address (the low two bits are ignored: callers check alignment).
    pub fn decode(&self, addr: u64) -> Option<Target<'_>> {
        let region = self.region(addr)?;
        let offset = (addr & !3) - region.region.base;
        if region.kind == RegionKind::Memory {
            return Some(Target::Mem { region, offset });
        }
        // Registers are found by their offset in the aperture (a hand-written
        // block's region starts at its first register, not at the aperture).
        let off = match region.kind {
            RegionKind::Block { aperture, engine } => (addr & !3) - self.map.params.aperture_base(aperture, engine)?,
            _ => offset,
        } as u32;
        for b in self.blocks_of(region) {
            if let Some(reg) = b.register_at(off) {
                return Some(Target::Reg { region, block: b, reg });
            }
            for array in &b.arrays {
                for window in &array.windows {
                    let span = array.count * array.stride;
                    if off >= window.offset && off < window.offset + span && (off - window.offset).is_multiple_of(array.stride) {
                        let index = (off - window.offset) / array.stride;
                        let alias = self.blocks_of(region).flat_map(|b| b.aliases.iter()).find(|a| a.array == array.name && a.window == window.name && a.index == index);
                        return Some(Target::Elem { region, array, window, index, alias });
                    }
                }
            }
        }
        Some(Target::Hole { region, offset })
    }

    /// Every word address a register or an array element decodes at, with
    /// what it decodes to, in address order. The candidates come from the
    /// blocks' registers and arrays rather than from every word of every
    /// region (most of a register aperture is holes), and each is kept only
    /// where [`AddressSpace::decode`] says so, so the answer is the decoder's.
    pub fn named_words(&self) -> BTreeMap<u64, Target<'_>> {
        let mut out = BTreeMap::new();
        for region in self.regions.iter().filter(|r| r.kind != RegionKind::Memory) {
            // The base `decode` takes a register offset from (see there).
            let base = match region.kind {
                RegionKind::Block { aperture, engine } => match self.map.params.aperture_base(aperture, engine) {
                    Some(b) => b,
                    None => continue,
                },
                _ => region.region.base,
            };
            for b in self.blocks_of(region) {
                let elements = b.arrays.iter().flat_map(|a| a.windows.iter().flat_map(move |w| (0..a.count).map(move |i| w.offset + i * a.stride)));
                for off in b.registers.iter().map(|r| r.offset).chain(elements) {
                    let a = base + u64::from(off);
                    if !region.region.contains(a) || (a - region.region.base) % 4 != 0 {
                        continue;
                    }
                    if let Some(t @ (Target::Reg { .. } | Target::Elem { .. })) = self.decode(a) {
                        out.insert(a, t);
                    }
                }
            }
        }
        out
    }

    /// Name of whatever `addr` reaches, or `unmapped`.
    pub fn name(&self, addr: u64) -> String {
        self.decode(addr).map(|t| t.name()).unwrap_or_else(|| "unmapped".into())
    }

    /// Up to three canonical names closest to `name` (edit distance).
    pub fn nearest(&self, name: &str) -> Vec<String> {
        nearest_names(self.names(), name)
    }

    /// Resolve `name` (see the module's note for the forms).
    pub fn resolve(&self, name: &str) -> Result<Named, NameError> {
        let unknown = |why: String| NameError::Unknown { name: name.to_string(), why, nearest: self.nearest(name) };
        if let Some(m) = name.strip_prefix("mem.") {
            return self.resolve_mem(name, m).map_err(unknown);
        }
        let parts: Vec<&str> = name.split('.').collect();
        let Some(engine) = ENGINES.iter().copied().find(|e| e.name() == parts[0]) else {
            return Err(unknown(format!("'{}' is not an engine: pe, act, pool, dve, tpb_sp, top_sp, tpb, or mem.", parts[0])));
        };
        if engine != Engine::Tpb && self.map.params.local_reg_base(engine).is_none() {
            return Err(unknown(format!("{} has no local-register aperture on {}", engine.name(), self.map.arch.name())));
        }
        let blocks = blocks_in(&self.map, engine);
        if parts.len() < 2 {
            return Err(unknown("a name is <engine>.<block>.<register>[.<field>]".into()));
        }
        // <engine>.<block>.<item>[.<field>] or <engine>.<item>[.<field>].
        let (cands, rest): (Vec<&Block>, &[&str]) = match blocks.iter().find(|b| b.name == parts[1] && parts.len() >= 3) {
            Some(b) => (vec![*b], &parts[2..]),
            None => (blocks.clone(), &parts[1..]),
        };
        if rest.len() > 2 {
            return Err(unknown("too many parts: <engine>.<block>.<register>[.<field>]".into()));
        }
        let (item, field) = (rest[0], rest.get(1).copied());
        let (item_base, index) = split_index(item).map_err(unknown)?;
        let mut found: Vec<Named> = Vec::new();
        for b in &cands {
            let pre = prefix(engine, b);
            let base = self.map.params.aperture_base(b.aperture, engine).expect("blocks_in keeps the blocks whose aperture exists") as u32;
            let reg_name = match index {
                Some(i) if b.array(item_base).is_none() && !b.arrays.iter().any(|a| a.window(item_base).is_some()) => format!("{item_base}_{i}"),
                _ => item_base.to_string(),
            };
            if let Some(r) = b.register(&reg_name) {
                let f = match field {
                    Some(f) => Some(
                        r.field(f)
                            .cloned()
                            .ok_or_else(|| unknown(format!("{pre}{} has fields {}", r.name, r.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "))))?,
                    ),
                    None => None,
                };
                let full = format!("{pre}{}{}", r.name, field.map(|f| format!(".{f}")).unwrap_or_default());
                found.push(Named::Reg { name: full, addr: base + r.offset, reg: r.clone(), field: f });
                continue;
            }
            if field.is_some() {
                continue;
            }
            if let (Some(a), None) = (b.alias(item_base), index) {
                found.push(Named::Alias { name: format!("{pre}{}", a.name), addr: base + a.offset });
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
                    found.push(Named::Element { name: format!("{pre}{}[{i}]", w.name), addr: base + a.addr(w, i), op: w.op, width: a.width });
                }
            }
        }
        match found.len() {
            1 => Ok(found.pop().expect("one")),
            0 => Err(unknown(format!("no such register in {}", cands.iter().map(|b| prefix(engine, b)).collect::<Vec<_>>().join(", ")))),
            _ => Err(NameError::Ambiguous { name: name.to_string(), engine: engine.name().to_string(), candidates: found.iter().map(|t| t.name().to_string()).collect() }),
        }
    }

    /// `mem.<region>[+<offset>]`.
    fn resolve_mem(&self, name: &str, m: &str) -> Result<Named, String> {
        let (region, off) = match m.split_once('+') {
            Some((r, o)) => (r, parse_u32(o).ok_or_else(|| format!("'{o}' is not an offset"))?),
            None => (m, 0),
        };
        let r = self.regions.iter().find(|r| r.kind == RegionKind::Memory && r.name == region).ok_or("not a memory region of this generation")?;
        if u64::from(off) >= r.region.size {
            return Err(format!("offset {off:#x} is past the end of {} ({:#x} bytes)", r.name, r.region.size));
        }
        Ok(Named::Mem { name: name.to_string(), addr: (r.region.base + u64::from(off)) as u32 })
    }
}

/// `tpb.` for the TPB-level registers, else `<engine>.<block>.`.
fn prefix(e: Engine, b: &Block) -> String {
    match (e, b.aperture) {
        (Engine::Tpb, Aperture::TpbRegs) => "tpb.".to_string(),
        (e, _) => format!("{}.{}.", e.name(), b.name),
    }
}

/// The blocks an engine's aperture decodes (the TPB-level registers for `tpb`).
fn blocks_in(map: &RegMap, e: Engine) -> Vec<&Block> {
    map.blocks
        .iter()
        .filter(|b| match (e, b.aperture) {
            (Engine::Tpb, Aperture::TpbRegs) => true,
            (e, Aperture::LocalReg) => e != Engine::Tpb && b.engines.contains(&e) && map.params.local_reg_base(e).is_some(),
            // A hand-written block: named after the engine it serves (`pool.seq_dma.tx_done`).
            (e, ap) if ap.hand_written() => b.engines.contains(&e) && map.params.aperture_base(ap, e).is_some(),
            _ => false,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{builtin, Arch};

    fn space(a: Arch) -> AddressSpace {
        AddressSpace::new(builtin(a).unwrap())
    }

    #[test]
    fn named_words_are_every_register_and_element_word_the_decoder_finds() {
        for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
            let m = space(arch);
            // The reference: decode every word of every register region.
            let mut all = BTreeMap::new();
            for r in m.regions().iter().filter(|r| r.kind != RegionKind::Memory) {
                for a in (r.region.base..r.region.end()).step_by(4) {
                    if let Some(t @ (Target::Reg { .. } | Target::Elem { .. })) = m.decode(a) {
                        all.insert(a, t.name());
                    }
                }
            }
            let named: BTreeMap<u64, String> = m.named_words().into_iter().map(|(a, t)| (a, t.name())).collect();
            assert!(named.len() > 1000, "{}: {} words", arch.name(), named.len());
            assert_eq!(named, all, "{}", arch.name());
        }
    }

    #[test]
    fn addresses_name_registers_semaphores_and_memory() {
        let m = space(Arch::Cayman);
        assert_eq!(m.name(0x2860004), "pool.nx.release_run_stall");
        assert_eq!(m.name(0x2863000), "pool.q7.release_run_stall");
        assert_eq!(m.name(0x615a0), "top_sp.evt_sem.set[104] (host_trigger)");
        assert_eq!(m.name(0x61804), "top_sp.evt_sem.inc[1]");
        assert_eq!(m.name(0x70a00), "tpb.tpb.notific_sw_queue_num0");
        assert_eq!(m.name(0x3180040), "q7[0].dram+0x40");
        assert_eq!(m.name(0x2865000), "pool.local_reg+0x5000 (no register)");
        assert_eq!(m.name(0x0500_0000), "unmapped");
        // The Q7 bundle exists only in the POOL aperture.
        assert_eq!(m.name(0x3000), "pe.local_reg+0x3000 (no register)");
        let s = space(Arch::Sunda);
        assert_eq!(s.name(0x60848), "top_sp.top_sp.host_trigger");
        assert_eq!(s.name(0x6084c), "top_sp.top_sp.stop");
        assert_eq!(s.name(0x2860838), "pool.nx.q7_intr_info");
    }

    #[test]
    fn names_resolve_to_the_addresses_that_decode_back_to_them() {
        let n = space(Arch::Cayman);
        let map = n.regmap().clone();
        let pool = map.params.local_reg_base(Engine::Pool).unwrap() as u32;
        let r = map.block("q7").unwrap().register("run_state_3").unwrap();
        let t = n.resolve("pool.q7.run_state[3].running").unwrap();
        assert_eq!((t.addr(), t.name()), (pool + r.offset, "pool.q7.run_state_3.running"));
        assert_eq!(n.resolve("pool.q7.run_state_3").unwrap().addr(), pool + r.offset);
        let sems = &map.block("evt_sem").unwrap().arrays[0];
        let top_sp = map.params.local_reg_base(Engine::TopSp).unwrap() as u32;
        assert_eq!(n.resolve("top_sp.evt_sem.inc[5]").unwrap().addr(), top_sp + sems.addr(sems.window("inc").unwrap(), 5));
        // Short form when unique; the q7 and nx blocks both have release_run_stall in pool.
        assert!(n.resolve("pe.instr_halt_ctrl").is_ok());
        let amb = n.resolve("pool.release_run_stall").unwrap_err().to_string();
        assert!(amb.contains("pool.nx.release_run_stall") && amb.contains("pool.q7.release_run_stall"), "{amb}");
        let d3 = map.params.bar0_regions().into_iter().find(|r| r.name == "q7[3].dram").unwrap();
        assert_eq!(n.resolve("mem.q7[3].dram+0x40").unwrap().addr(), d3.region.base as u32 + 0x40);
        assert!(n.resolve("mem.q7[3].dram+0x10000000").unwrap_err().to_string().contains("past the end"));
        // Both directions agree on every register and element name.
        for name in ["pool.q7.release_run_stall", "top_sp.evt_sem.set[104]", "tpb.notific_sw_queue_num0", "pe.nx.start_ctrl"] {
            let a = n.resolve(name).unwrap().addr();
            assert!(n.name(u64::from(a)).starts_with(name.replace("tpb.", "tpb.tpb.").as_str()), "{name} -> {a:#x} -> {}", n.name(u64::from(a)));
        }
    }

    #[test]
    fn typos_list_the_nearest_names() {
        let n = space(Arch::Cayman);
        let e = n.resolve("pool.q7.relase_run_stall").unwrap_err().to_string();
        assert!(e.contains("did you mean 'pool.q7.release_run_stall'"), "{e}");
        let e = n.resolve("pool.q7.run_state_3.runing").unwrap_err().to_string();
        assert!(e.contains("has fields running, halted") || e.contains("running"), "{e}");
        let e = n.resolve("top_sp.evt_sem.inc[256]").unwrap_err().to_string();
        assert!(e.contains("256 elements"), "{e}");
        let e = n.resolve("pol.q7.start_ctrl").unwrap_err().to_string();
        assert!(e.contains("not an engine") && e.contains("pool.q7.start_ctrl"), "{e}");
    }

    #[test]
    fn numbers_have_one_rule() {
        assert_eq!(parse_number("0x1_0"), Some(16));
        assert_eq!(parse_number("0X10"), Some(16));
        assert_eq!(parse_number("0b101"), Some(5));
        assert_eq!(parse_number("0B101"), Some(5));
        assert_eq!(parse_number("42"), Some(42));
        assert_eq!(parse_number("1_000"), Some(1000));
        assert_eq!(parse_number("4x"), None);
        assert_eq!(parse_number("-1"), None);
        assert_eq!(parse_u32("0x1_0000_0000"), None, "past 32 bits");
    }
}
