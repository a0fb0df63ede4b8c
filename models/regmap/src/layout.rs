//! # The BAR0 layout a TPB top decodes
//!
//! One generation's map turned into the windows a top's decoder compares
//! against: the engines' local-register apertures and, inside each, the
//! blocks the map places there (`[block] start/end`); the TPB-level
//! registers and memories from `arch.toml`'s `[bar0]`; the Q7 cluster, the
//! HW-decode CAM, SUNDA's TOP_SP doorbell registers; the EVT_SEM unit's four
//! windows. The RTL top (`tpb_hdl::top`) turns these into constants and the
//! golden top (`tpb_golden::top`) decodes with [`TopLayout::decode`]: neither
//! holds an address of its own.
//!
//! ```
//! use tpb_regmap::{builtin, layout::{Dest, TopLayout}, Arch};
//! let lay = TopLayout::of(&builtin(Arch::Cayman).unwrap()).unwrap();
//! let pool = lay.local_reg[2].base;
//! assert_eq!(lay.decode(pool + 0x1804), Some((Dest::Sem(2), 0x1804)));
//! assert_eq!(lay.sem.inc, 0x1800);
//! ```

use crate::{Engine, RegMap, WindowOp};

/// Engines of a top, in port and array order.
pub const ENGINES: [Engine; 6] = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::TpbSp, Engine::TopSp];
/// Index of POOL (the Q7 registers, the SEQ DMA rings) in [`ENGINES`].
pub const POOL: usize = 2;
/// Index of TOP_SP (the DMA's completion doorbell) in [`ENGINES`].
pub const TOP_SP: usize = 5;

/// A `[base, base + size)` window (size a power of two, base aligned to it,
/// except the Q7 cluster's, which is decoded by subtraction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub base: u32,
    pub size: u32,
}

impl Window {
    /// The bits that select the window (`addr & mask == base`).
    pub fn mask(&self) -> u32 {
        !(self.size - 1)
    }
    /// The offset of `addr` in the window, if it is inside.
    pub fn offset(&self, addr: u32) -> Option<u32> {
        let off = addr.wrapping_sub(self.base);
        (off < self.size).then_some(off)
    }
}

/// The EVT_SEM unit's windows (byte offsets in the local-register
/// aperture) and their extent: `count × stride` bytes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemWindows {
    pub read: u32,
    pub set: u32,
    pub inc: u32,
    pub dec: u32,
    /// Bytes one window spans (a power of two; every window is aligned to it).
    pub span: u32,
    pub count: u32,
    pub stride: u32,
}

impl SemWindows {
    /// The offset of window `op`.
    pub fn offset(&self, op: WindowOp) -> u32 {
        match op {
            WindowOp::Read => self.read,
            WindowOp::Set => self.set,
            WindowOp::Inc => self.inc,
            WindowOp::Dec => self.dec,
        }
    }
    /// The window and semaphore an aperture offset reaches (aligned, in a window).
    pub fn decode(&self, off: u32) -> Option<(WindowOp, u32)> {
        if !off.is_multiple_of(self.stride) {
            return None;
        }
        [WindowOp::Read, WindowOp::Set, WindowOp::Inc, WindowOp::Dec]
            .into_iter()
            .find(|op| off & !(self.span - 1) == self.offset(*op))
            .map(|op| (op, (off & (self.span - 1)) / self.stride))
    }
    /// The windows of the map's `evt_sem` array.
    pub fn of(map: &RegMap) -> Result<SemWindows, LayoutError> {
        let bad = |detail: String| LayoutError::Bad { what: "evt_sem".into(), detail };
        let a = map.block("evt_sem").and_then(|b| b.array("evt_sem")).ok_or_else(|| bad("the map has no evt_sem array".into()))?;
        let find = |op: WindowOp| a.windows.iter().find(|w| w.op == op).map(|w| w.offset).ok_or_else(|| bad(format!("no window with op {op:?}")));
        let span = a.count * a.stride;
        let w = SemWindows { read: find(WindowOp::Read)?, set: find(WindowOp::Set)?, inc: find(WindowOp::Inc)?, dec: find(WindowOp::Dec)?, span, count: a.count, stride: a.stride };
        if !span.is_power_of_two() || [w.read, w.set, w.inc, w.dec].iter().any(|o| o % span != 0) {
            return Err(bad(format!("windows {:#x}/{:#x}/{:#x}/{:#x} must be aligned to their {span:#x}-byte span", w.read, w.set, w.inc, w.dec)));
        }
        Ok(w)
    }
}

/// How the SEQ DMA tells a completion address: the INC window at the same
/// offset of any engine's aperture (`addr & mask == base`, aligned to the
/// stride); the semaphore is the slot in the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncSlot {
    pub base: u32,
    pub mask: u32,
    pub span: u32,
    pub stride: u32,
}

impl IncSlot {
    /// The semaphore an address increments, if it is an INC slot.
    pub fn index(&self, addr: u32) -> Option<u32> {
        (addr & self.mask == self.base && addr.is_multiple_of(self.stride)).then_some((addr & (self.span - 1)) / self.stride)
    }
}

/// Where a BAR0 address goes ([`TopLayout::decode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    /// The NX register bundle of engine `i` ([`ENGINES`] order).
    Nx(usize),
    /// The EVT_SEM unit of engine `i`.
    Sem(usize),
    /// The window bundle of engine `i`.
    Win(usize),
    /// POOL's Q7 register bundle.
    Q7Regs,
    /// SUNDA's TOP_SP doorbell registers.
    TopSpRegs,
    Tpb,
    SeqIram,
    SeqDram,
    CtrlSpad,
    SlotSpad,
    Dma,
    /// The notification unit's ring SRAM.
    Notific,
    /// The Q7 cluster's memories.
    Q7,
    HwDecode,
}

/// The BAR0 layout a top decodes, taken from a generation's map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopLayout {
    /// Local-register aperture per engine ([`ENGINES`] order).
    pub local_reg: [Window; 6],
    /// The blocks of every engine's aperture (offsets in it): the NX
    /// bundle, the EVT_SEM unit, the window bundle; each the aligned
    /// power-of-two window around the map block's `[start, end)`.
    pub nx_regs: Window,
    pub evt_sem: Window,
    pub win_regs: Window,
    /// POOL's Q7 register bundle (offset in POOL's aperture).
    pub q7_regs: Window,
    /// The EVT_SEM unit's own windows.
    pub sem: SemWindows,
    /// The SEQ DMA's completion addresses.
    pub inc_slot: IncSlot,
    pub tpb_regs: Window,
    /// `timestamp_lo`'s offset in the TPB-level block: a read of it latches
    /// the timestamp's high word (`tpb_models::golden::timestamp`).
    pub timestamp_lo: u32,
    pub seq_iram: Window,
    pub seq_dram: Window,
    pub seq_dma: Window,
    pub notific: Window,
    pub ctrl_spad: Window,
    pub slot_spad: Window,
    /// All 8 Q7 cores' memories (`base` need not be aligned to `size`);
    /// `q7_stride` per core, DRAM at `q7_dram_offset`.
    pub q7: Window,
    pub q7_stride: u32,
    pub q7_dram_offset: u32,
    /// The IRAM and DRAM regions of one Q7 core (a build may make less).
    pub q7_iram_size: u32,
    pub q7_dram_size: u32,
    /// The HW-decode CAM + table (CAYMAN/MARIANA).
    pub hw_decode: Option<Window>,
    /// SUNDA's TOP_SP host_trigger/stop registers (offset within TOP_SP's aperture).
    pub top_sp_regs: Option<Window>,
    /// The window bundle's words, for a block that keeps them in RAM.
    pub win_words: WindowWords,
    /// SUNDA: the POOL EVT_SEM semaphore a SET of which releases the Q7
    /// cores its value's bits name (`q7.seq_release_sem`); None where the
    /// host releases them.
    pub q7_release_sem: Option<u32>,
}

/// The window bundle (`windows.toml`) as words: contiguous read-write
/// registers, reset 0, every bit writable but in the ctrl words, which
/// share one writable mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowWords {
    /// Offset of the first word, and the number of words.
    pub first: u32,
    pub words: u32,
    /// Offsets of the words with a partial writable mask, and that mask.
    pub partial: Vec<u32>,
    pub partial_mask: u32,
}

impl WindowWords {
    fn of(map: &RegMap) -> Result<WindowWords, LayoutError> {
        let bad = |detail: String| LayoutError::Bad { what: "windows".into(), detail };
        let b = map.block("windows").ok_or_else(|| bad("the map has no such block".into()))?;
        let mut regs: Vec<_> = b.registers.iter().collect();
        regs.sort_by_key(|r| r.offset);
        let first = regs.first().ok_or_else(|| bad("no registers".into()))?.offset;
        let (mut partial, mut partial_mask) = (Vec::new(), u32::MAX);
        for (k, r) in regs.iter().enumerate() {
            if r.offset != first + 4 * k as u32 {
                return Err(bad(format!("{} at {:#x}: the words are not contiguous", r.name, r.offset)));
            }
            if r.reset_word() != 0 || !r.fields.iter().all(|f| f.access == crate::model::Access::Rw) {
                return Err(bad(format!("{}: every word must be read-write with reset 0", r.name)));
            }
            let m = r.fields.iter().fold(0u32, |m, f| m | f.mask());
            if m != u32::MAX {
                if !partial.is_empty() && m != partial_mask {
                    return Err(bad(format!("{}: a second partial mask {m:#x} (the first {partial_mask:#x})", r.name)));
                }
                partial.push(r.offset);
                partial_mask = m;
            }
        }
        Ok(WindowWords { first, words: regs.len() as u32, partial, partial_mask })
    }
}

/// A generation's parameters that no top can decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("{what}: {detail}")]
    Bad { what: String, detail: String },
    #[error("{what}: the top builds {built:#x} bytes, more than its BAR0 region of {region:#x}")]
    TooBig { what: String, built: u64, region: u64 },
}

fn window(what: &str, base: u64, size: u64) -> Result<Window, LayoutError> {
    let bad = |detail: String| LayoutError::Bad { what: what.to_string(), detail };
    if !size.is_power_of_two() || !base.is_multiple_of(size) {
        return Err(bad(format!("region {base:#x}+{size:#x} must be a power of two in size and aligned to it")));
    }
    if base + size > 1 << 32 {
        return Err(bad(format!("region {base:#x}+{size:#x} is beyond the 32-bit BAR0 port")));
    }
    Ok(Window { base: base as u32, size: size as u32 })
}

impl TopLayout {
    /// The layout of a generation, or why its map doesn't make one.
    pub fn of(map: &RegMap) -> Result<TopLayout, LayoutError> {
        let p = &map.params;
        let tb = p.bar0.tpb_base;
        let bad = |what: &str, detail: &str| LayoutError::Bad { what: what.to_string(), detail: detail.to_string() };
        let mut local_reg = [Window { base: 0, size: 0 }; 6];
        for (i, e) in ENGINES.iter().enumerate() {
            let base = p.local_reg_base(*e).ok_or_else(|| bad(&format!("[local_reg] {}", e.name()), "no local-register base"))?;
            local_reg[i] = window(&format!("{}.local_reg", e.name()), base, p.bar0.local_reg_size)?;
        }
        let block = |name: &str| -> Result<Window, LayoutError> {
            let b = map.block(name).ok_or_else(|| bad(name, "the map has no such block"))?;
            // The aligned power-of-two window around the block: the block's
            // own decoder answers the offsets it has no register at.
            let w = window(&format!("block {name}"), b.start.into(), u64::from(b.end - b.start).next_power_of_two())?;
            if u64::from(b.end) > p.bar0.local_reg_size {
                return Err(bad(name, "the block ends past the local-register aperture"));
            }
            Ok(w)
        };
        let region = |name: &str| p.bar0_regions().into_iter().find(|r| r.name == name).ok_or_else(|| bad(name, "not in the generation's BAR0 regions"));
        let win = |name: &str| -> Result<Window, LayoutError> {
            let r = region(name)?;
            window(name, r.region.base, r.region.size)
        };
        let q7l = p.q7_layout(p.q7.pooling.owner).ok_or_else(|| bad("[q7.pooling]", "no layout for the pooling owner"))?;
        // The Q7 region is decoded by subtraction: SUNDA's 0x2980000 is not
        // aligned to its 1 MiB (8 cores x 128 KiB).
        let q7 = window("q7", 0, q7l.core_stride * 8).map(|w| Window { base: (tb + q7l.params.base_offset) as u32, size: w.size })?;
        let hw_decode = match (p.hw_decode.present, p.local_reg.hw_decode_table_params) {
            (true, Some(base)) => Some(window("hw_decode", tb + base, 2 * p.hw_decode.table_bytes as u64)?),
            _ => None,
        };
        // TOP_SP doorbells that are registers of their own (SUNDA's compacted
        // host_trigger/stop), where the map's top_sp block puts them; on
        // CAYMAN/MARIANA the block holds only EVT_SEM aliases.
        let top_sp_regs = match map.block("top_sp").filter(|b| b.has_register_rtl()) {
            Some(b) => Some(window("block top_sp", b.start.into(), (b.end - b.start).into())?),
            None => None,
        };
        let sem = SemWindows::of(map)?;
        let win_words = WindowWords::of(map)?;
        let q7_release_sem = p.q7.seq_release_sem;
        if let Some(s) = q7_release_sem.filter(|s| *s >= sem.count) {
            return Err(bad("q7.seq_release_sem", &format!("semaphore {s}: the EVT_SEM has {}", sem.count)));
        }
        Ok(TopLayout {
            local_reg,
            nx_regs: block("nx")?,
            evt_sem: block("evt_sem")?,
            win_regs: block("windows")?,
            q7_regs: block("q7")?,
            sem,
            inc_slot: IncSlot { base: sem.inc, mask: (local_reg[0].size - 1) & !(sem.span - 1), span: sem.span, stride: sem.stride },
            tpb_regs: win("tpb_regs")?,
            timestamp_lo: map
                .block("tpb")
                .and_then(|b| b.register("timestamp_lo"))
                .map(|r| r.offset)
                .ok_or_else(|| bad("tpb.timestamp_lo", "the TPB-level block has no timestamp_lo register"))?,
            seq_iram: win("seq.iram")?,
            seq_dram: win("seq.dram")?,
            seq_dma: win("seq.dma")?,
            notific: win("notific.ring")?,
            ctrl_spad: win("top_sp.ctrl_spad")?,
            slot_spad: win("top_sp.slot_spad")?,
            q7,
            q7_stride: q7l.core_stride as u32,
            q7_dram_offset: (q7l.params.iram_size + q7l.params.iram_rsvd) as u32,
            q7_iram_size: q7l.params.iram_size as u32,
            q7_dram_size: q7l.params.dram_size as u32,
            hw_decode,
            top_sp_regs,
            win_words,
            q7_release_sem,
        })
    }

    /// SUNDA: the BAR0 address of the SET slot of the Q7 release semaphore
    /// ([`TopLayout::q7_release_sem`] in POOL's EVT_SEM).
    pub fn q7_release_addr(&self) -> Option<u32> {
        self.q7_release_sem.map(|s| self.local_reg[POOL].base + self.sem.set + self.sem.stride * s)
    }

    /// Where a BAR0 address goes and the address that block sees: the
    /// aperture offset for a local-register block, the offset in the window
    /// otherwise. The order is the RTL decoder's: SUNDA's TOP_SP registers
    /// take their addresses from the TOP_SP NX bundle they sit in.
    pub fn decode(&self, addr: u32) -> Option<(Dest, u32)> {
        for (i, lr) in self.local_reg.iter().enumerate() {
            let Some(off) = lr.offset(addr) else { continue };
            let d = if i == TOP_SP && self.top_sp_regs.is_some_and(|w| w.offset(off).is_some()) {
                Dest::TopSpRegs
            } else if self.nx_regs.offset(off).is_some() {
                Dest::Nx(i)
            } else if self.evt_sem.offset(off).is_some() {
                Dest::Sem(i)
            } else if self.win_regs.offset(off).is_some() {
                Dest::Win(i)
            } else if i == POOL && self.q7_regs.offset(off).is_some() {
                Dest::Q7Regs
            } else {
                return None;
            };
            return Some((d, off));
        }
        let windows = [
            (Dest::Tpb, Some(self.tpb_regs)),
            (Dest::SeqIram, Some(self.seq_iram)),
            (Dest::SeqDram, Some(self.seq_dram)),
            (Dest::CtrlSpad, Some(self.ctrl_spad)),
            (Dest::SlotSpad, Some(self.slot_spad)),
            (Dest::Dma, Some(self.seq_dma)),
            (Dest::Notific, Some(self.notific)),
            (Dest::Q7, Some(self.q7)),
            (Dest::HwDecode, self.hw_decode),
        ];
        windows.into_iter().find_map(|(d, w)| w.and_then(|w| w.offset(addr)).map(|off| (d, off)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{builtin, Arch};

    #[test]
    fn parameters_no_top_can_decode_are_named_errors() {
        let m = builtin(Arch::Cayman).unwrap();
        assert!(TopLayout::of(&m).is_ok());
        let mut bad = m.clone();
        bad.params.bar0.local_reg_size = 0x3000; // not a power of two
        let e = TopLayout::of(&bad).unwrap_err().to_string();
        assert!(e.contains("pe.local_reg") && e.contains("power of two"), "{e}");
        let mut bad = m.clone();
        bad.params.bar0.tpb_base = 0xffff_f000; // regions past the 32-bit port
        let e = TopLayout::of(&bad).unwrap_err().to_string();
        assert!(e.contains("beyond the 32-bit BAR0 port") || e.contains("power of two"), "{e}");
        let mut bad = m.clone();
        let b = bad.blocks.iter_mut().find(|b| b.name == "windows").unwrap();
        b.start += 0x40;
        let e = TopLayout::of(&bad).unwrap_err().to_string();
        assert!(e.contains("block windows") && e.contains("aligned"), "{e}");
        let mut bad = m.clone();
        let a = bad.blocks.iter_mut().find(|b| b.name == "evt_sem").unwrap().arrays.iter_mut().next().unwrap();
        a.windows[1].offset = 0x1500;
        let e = TopLayout::of(&bad).unwrap_err().to_string();
        assert!(e.contains("evt_sem") && e.contains("aligned"), "{e}");
    }

    /// SUNDA's Q7 release semaphore is POOL's semaphore 248 (`[D]`,
    /// arch.toml), reached at its SET slot; one past the EVT_SEM is refused
    /// by name; the host-released generations have none.
    #[test]
    fn the_q7_release_semaphore_comes_from_the_map() {
        let s = builtin(Arch::Sunda).unwrap();
        let lay = TopLayout::of(&s).unwrap();
        assert_eq!(lay.q7_release_sem, Some(248));
        assert_eq!(lay.q7_release_addr(), Some(lay.local_reg[POOL].base + lay.sem.set + lay.sem.stride * 248));
        assert_eq!(TopLayout::of(&builtin(Arch::Cayman).unwrap()).unwrap().q7_release_addr(), None);
        let mut bad = s.clone();
        bad.params.q7.seq_release_sem = Some(lay.sem.count);
        let e = TopLayout::of(&bad).unwrap_err().to_string();
        assert!(e.contains("q7.seq_release_sem") && e.contains("semaphore 256"), "{e}");
    }

    /// SUNDA's TOP_SP doorbell registers are decoded where its map puts them
    /// (the top_sp block, +0x848..+0x850); the other generations have none.
    #[test]
    fn the_top_sp_doorbell_window_comes_from_the_map() {
        let s = builtin(Arch::Sunda).unwrap();
        let b = s.block("top_sp").unwrap();
        let lay = TopLayout::of(&s).unwrap();
        let w = lay.top_sp_regs.expect("SUNDA has the registers");
        assert_eq!((w.base, w.size), (b.start, b.end - b.start));
        assert_eq!((w.base, w.size), (0x848, 8), "DIGEST §2.7");
        let top_sp = lay.local_reg[TOP_SP].base;
        assert_eq!(lay.decode(top_sp + 0x848), Some((Dest::TopSpRegs, 0x848)));
        assert_eq!(lay.decode(top_sp + 0x840), Some((Dest::Nx(TOP_SP), 0x840)));
        assert_eq!(lay.decode(lay.local_reg[0].base + 0x848), Some((Dest::Nx(0), 0x848)));
        assert!(TopLayout::of(&builtin(Arch::Cayman).unwrap()).unwrap().top_sp_regs.is_none());
    }

    /// Every address the layout decodes is named by the address space in
    /// the same region, and the sub-block windows are the map's blocks.
    #[test]
    fn the_decode_agrees_with_the_address_space() {
        for arch in Arch::ALL {
            let map = builtin(arch).unwrap();
            let lay = TopLayout::of(&map).unwrap();
            let space = crate::space::AddressSpace::new(map.clone());
            for (name, w) in [("nx", lay.nx_regs), ("evt_sem", lay.evt_sem), ("windows", lay.win_regs), ("q7", lay.q7_regs)] {
                let b = map.block(name).unwrap();
                assert!(w.base == b.start && w.size >= b.end - b.start && w.size < 2 * (b.end - b.start), "{arch:?} {name}: {w:?}");
            }
            let pool = lay.local_reg[POOL].base;
            for (op, off) in [(WindowOp::Read, 0x1000), (WindowOp::Set, 0x1400), (WindowOp::Inc, 0x1800), (WindowOp::Dec, 0x1c00)] {
                assert_eq!(lay.sem.offset(op), off, "DIGEST §3");
                assert_eq!(lay.sem.decode(off + 4 * 7), Some((op, 7)));
                assert_eq!(lay.decode(pool + off + 4 * 255), Some((Dest::Sem(POOL), off + 4 * 255)));
                assert!(space.name(u64::from(pool + off)).contains("evt_sem"), "{}", space.name(u64::from(pool + off)));
            }
            assert_eq!(lay.sem.decode(0x1002), None);
            assert_eq!((lay.inc_slot.base, lay.inc_slot.mask), (0x1800, 0xfc00), "DIGEST §5: [15:0] in 0x1800..0x1BFC");
            assert_eq!(lay.inc_slot.index(0x8280_1800 + 4 * 9), Some(9));
            assert_eq!(lay.inc_slot.index(0x1c00), None);
            assert_eq!(lay.inc_slot.index(0x1802), None);
            assert_eq!(lay.decode(pool + 0x3000), Some((Dest::Q7Regs, 0x3000)));
            assert_eq!(lay.decode(lay.local_reg[0].base + 0x3000), None, "{arch:?}: the Q7 bundle is POOL's");
            assert_eq!(lay.decode(pool + 0x2100), None, "{arch:?}: past the window bundle");
            for r in map.params.bar0_regions() {
                let base = r.region.base as u32;
                assert!(lay.decode(base).is_some() || r.name.contains("local_reg") || r.name.starts_with("q7["), "{arch:?}: {} at {base:#x}", r.name);
            }
        }
    }
}
