//! Address decoding of one TPB's BAR0, from the register maps: which region,
//! block, register, semaphore window or memory word an address reaches, and
//! a human-readable name for it. Decodes the offsets the RTL decodes (each
//! block's `rtl_view`), so a name shown for a HAL access is the register the
//! hardware will act on.

use tpb_regmap::{Alias, Aperture, Array, Bar0Region, Block, RegMap, Register, RegionKind, Window};

/// What an address reaches.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A register of a generated register block.
    Reg { region: &'a Bar0Region, block: &'a Block, reg: &'a Register },
    /// One element of an array window (an EVT_SEM semaphore op), with the
    /// alias that names it, if any (CAYMAN's host_trigger = set[104]).
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

fn engine_of(region: &Bar0Region) -> &str {
    match region.kind {
        RegionKind::LocalReg(e) => e.name(),
        RegionKind::TpbRegs => "tpb",
        RegionKind::Memory => &region.name,
    }
}

/// The decoded BAR0 map of one generation.
#[derive(Debug, Clone)]
pub struct Bar0Map {
    map: RegMap,
    regions: Vec<Bar0Region>,
}

impl Bar0Map {
    pub fn new(map: RegMap) -> Self {
        let regions = map.params.bar0_regions();
        Bar0Map { map, regions }
    }

    pub fn regmap(&self) -> &RegMap {
        &self.map
    }

    pub fn regions(&self) -> &[Bar0Region] {
        &self.regions
    }

    /// The region containing `addr`.
    pub fn region(&self, addr: u64) -> Option<&Bar0Region> {
        let i = self.regions.partition_point(|r| r.region.base <= addr);
        let r = self.regions.get(i.checked_sub(1)?)?;
        r.region.contains(addr).then_some(r)
    }

    /// Register blocks decoded in a region.
    pub fn blocks_of<'a>(&'a self, region: &'a Bar0Region) -> impl Iterator<Item = &'a Block> + 'a {
        self.map.blocks.iter().filter(move |b| match region.kind {
            RegionKind::LocalReg(e) => b.aperture == Aperture::LocalReg && b.engines.contains(&e),
            RegionKind::TpbRegs => b.aperture == Aperture::TpbRegs,
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
        let off = offset as u32;
        for b in self.blocks_of(region) {
            if let Some(reg) = b.register_at(off) {
                return Some(Target::Reg { region, block: b, reg });
            }
            for array in &b.arrays {
                for window in &array.windows {
                    let span = array.count * array.stride;
                    if off >= window.offset && off < window.offset + span && (off - window.offset).is_multiple_of(array.stride) {
                        let index = (off - window.offset) / array.stride;
                        let alias = self.blocks_of(region).flat_map(|b| b.aliases.iter()).find(|a| {
                            a.array == array.name && a.window == window.name && a.index == index
                        });
                        return Some(Target::Elem { region, array, window, index, alias });
                    }
                }
            }
        }
        Some(Target::Hole { region, offset })
    }

    /// Name of whatever `addr` reaches, or `unmapped`.
    pub fn name(&self, addr: u64) -> String {
        self.decode(addr).map(|t| t.name()).unwrap_or_else(|| "unmapped".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_regmap::{builtin, Arch};

    #[test]
    fn names_registers_semaphores_and_memory() {
        let m = Bar0Map::new(builtin(Arch::Cayman).unwrap());
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
    }

    #[test]
    fn sunda_top_sp_doorbells_are_plain_registers() {
        let m = Bar0Map::new(builtin(Arch::Sunda).unwrap());
        assert_eq!(m.name(0x60848), "top_sp.top_sp.host_trigger");
        assert_eq!(m.name(0x6084c), "top_sp.top_sp.stop");
        assert_eq!(m.name(0x2860838), "pool.nx.q7_intr_info");
    }
}
