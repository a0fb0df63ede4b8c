//! What a core fetches from and loads/stores to. Errors are values: a
//! fault becomes a load/store (or fetch) error exception with EXCVADDR,
//! `Pending` means "not this cycle" (the co-simulation's wait states) and
//! the core retries the instruction without side effects.

use serde::{Deserialize, Serialize};

/// Access size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    B1 = 1,
    B2 = 2,
    B4 = 4,
}

/// Why an access did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusError {
    /// Nothing answers at `addr` (or it refuses the access).
    Fault { addr: u32 },
    /// Retry later (wait state).
    Pending,
}

/// A core's view of memory.
pub trait Bus {
    /// Fill `buf` (up to 3 bytes) from `addr`; returns how many bytes are
    /// available there (an instruction at the very end of a region may be narrow).
    fn fetch(&mut self, addr: u32, buf: &mut [u8; 3]) -> Result<usize, BusError>;
    fn load(&mut self, addr: u32, size: Size) -> Result<u32, BusError>;
    fn store(&mut self, addr: u32, size: Size, value: u32) -> Result<(), BusError>;

    /// The code page holding `addr`, for a core to pre-decode and run from
    /// without a `fetch` per instruction: plain memory whose every change
    /// (a `store` through this bus or the owner's own writes) changes the
    /// page's version. `None`, the default, means "fetch every instruction
    /// through [`Bus::fetch`]" (co-simulation buses, whose fetches are bus
    /// transactions of their own).
    fn code_page(&mut self, _addr: u32) -> Option<CodePage<'_>> {
        None
    }
}

/// Bytes of code pages ([`Bus::code_page`]): the granule of invalidation.
pub const CODE_PAGE_BYTES: u32 = 1024;

/// A page of plain memory, as [`Bus::code_page`] gives it.
#[derive(Debug, Clone, Copy)]
pub struct CodePage<'a> {
    /// Address of `bytes[0]`.
    pub base: u32,
    /// At most [`CODE_PAGE_BYTES`]: the page, cut at the end of its region.
    pub bytes: &'a [u8],
    /// Changes whenever a byte of the page may have changed.
    pub version: u32,
}

/// What a region is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionKind {
    /// Read/write memory (IRAM, DRAM).
    Ram,
    /// Read-only memory: stores fault.
    Rom,
    /// A control-register window (the co-simulation routes it to the RTL;
    /// here it is plain storage). Instruction fetches from it fault.
    Csr,
}

/// A named region of a memory map (data, see [`super::config::CoreConfig`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionSpec {
    pub name: String,
    pub base: u32,
    pub size: u32,
    pub kind: RegionKind,
}

/// A memory map that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("region '{name}' ({base:#x}, {size:#x} bytes) must be non-empty, 4-byte aligned and inside 32 bits")]
    Misaligned { name: String, base: u32, size: u32 },
    #[error("region '{a}' ({a_base:#x}..{a_end:#x}) overlaps '{b}' ({b_base:#x}..{b_end:#x})")]
    Overlap { a: String, a_base: u32, a_end: u64, b: String, b_base: u32, b_end: u64 },
    #[error("no region named '{0}'")]
    NoRegion(String),
    #[error("{len:#x} bytes at {addr:#x} do not fit in region '{name}'")]
    OutOfRegion { name: String, addr: u32, len: usize },
}

#[derive(Debug, Clone)]
struct Region {
    spec: RegionSpec,
    /// Where its bytes start in [`MemorySpace::data`] (a multiple of
    /// [`CODE_PAGE_BYTES`], so that pages of the arena are pages of the region).
    start: usize,
}

/// The region an access stream hit last, for a check without a search.
#[derive(Debug, Clone, Copy)]
struct Window {
    base: u32,
    /// 0: none yet.
    size: u32,
    start: usize,
    kind: RegionKind,
}

impl Default for Window {
    fn default() -> Self {
        Window { base: 0, size: 0, start: 0, kind: RegionKind::Csr }
    }
}

impl Window {
    /// Offset into the arena of `addr..addr + n`, if it lies in this window.
    #[inline(always)]
    fn at(&self, addr: u32, n: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.base) as u64;
        (off + n as u64 <= self.size as u64).then_some(self.start + off as usize)
    }
}

/// Plain memories, little-endian. Accesses outside every region fault.
/// Every region's bytes live in one arena; a store bumps the version of the
/// [`CODE_PAGE_BYTES`] page it writes ([`Bus::code_page`]).
#[derive(Debug, Clone, Default)]
pub struct MemorySpace {
    regions: Vec<Region>,
    data: Vec<u8>,
    versions: Vec<u32>,
    /// The regions the last loads and stores hit (the latest first), and
    /// the last fetch.
    data_window: Window,
    data_window2: Window,
    code_window: Window,
}

impl MemorySpace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Build from a map; the whole map is refused if any region is wrong.
    pub fn from_map(map: &[RegionSpec]) -> Result<Self, MapError> {
        let mut m = MemorySpace::new();
        for r in map {
            m.place(r.clone())?;
        }
        // One zeroed allocation (calloc: pages nobody touches cost nothing).
        m.data = vec![0; m.arena_len()];
        m.versions = vec![0; m.data.len() / CODE_PAGE_BYTES as usize];
        Ok(m)
    }

    /// Add a zero-filled region.
    pub fn add(&mut self, spec: RegionSpec) -> Result<(), MapError> {
        self.place(spec)?;
        self.data.resize(self.arena_len(), 0);
        self.versions.resize(self.data.len() / CODE_PAGE_BYTES as usize, 0);
        Ok(())
    }

    fn arena_len(&self) -> usize {
        self.regions.iter().map(|r| r.start + (r.spec.size as usize).next_multiple_of(CODE_PAGE_BYTES as usize)).max().unwrap_or(0)
    }

    /// Check `spec` against the map and give it its place in the arena.
    fn place(&mut self, spec: RegionSpec) -> Result<(), MapError> {
        let end = spec.base as u64 + spec.size as u64;
        if spec.size == 0 || !spec.base.is_multiple_of(4) || !spec.size.is_multiple_of(4) || end > 1 << 32 {
            return Err(MapError::Misaligned { name: spec.name, base: spec.base, size: spec.size });
        }
        for r in &self.regions {
            let (b, e) = (r.spec.base as u64, r.spec.base as u64 + r.spec.size as u64);
            if (spec.base as u64) < e && b < end {
                return Err(MapError::Overlap { a: spec.name, a_base: spec.base, a_end: end, b: r.spec.name.clone(), b_base: r.spec.base, b_end: e });
            }
        }
        let start = self.arena_len();
        self.regions.push(Region { spec, start });
        self.regions.sort_by_key(|r| r.spec.base);
        self.data_window = Window::default();
        self.data_window2 = Window::default();
        self.code_window = Window::default();
        Ok(())
    }

    pub fn regions(&self) -> impl Iterator<Item = &RegionSpec> {
        self.regions.iter().map(|r| &r.spec)
    }

    fn find(&self, addr: u32) -> Option<usize> {
        let i = self.regions.partition_point(|r| r.spec.base <= addr).checked_sub(1)?;
        let r = &self.regions[i];
        ((addr - r.spec.base) < r.spec.size).then_some(i)
    }

    /// The window of the region holding `addr` (or an empty one).
    #[cold]
    #[inline(never)]
    fn window_of(&self, addr: u32) -> Window {
        match self.find(addr) {
            Some(k) => {
                let r = &self.regions[k];
                Window { base: r.spec.base, size: r.spec.size, start: r.start, kind: r.spec.kind }
            }
            None => Window::default(),
        }
    }

    #[cold]
    #[inline(never)]
    fn hit_slow(&mut self, addr: u32, n: u32) -> Option<(usize, RegionKind)> {
        let w = self.window_of(addr);
        self.data_window2 = std::mem::replace(&mut self.data_window, w);
        Some((self.data_window.at(addr, n)?, self.data_window.kind))
    }

    /// Arena offset of `addr..addr + n` and its region's kind, through the
    /// two data windows (on a miss the older moves to the region).
    #[inline(always)]
    fn hit(&mut self, addr: u32, n: u32) -> Option<(usize, RegionKind)> {
        if let Some(i) = self.data_window.at(addr, n) {
            return Some((i, self.data_window.kind));
        }
        if let Some(i) = self.data_window2.at(addr, n) {
            return Some((i, self.data_window2.kind));
        }
        self.hit_slow(addr, n)
    }

    /// The same through the code window, for fetches; also the window.
    #[inline(always)]
    fn hit_code(&mut self, addr: u32) -> Option<(usize, Window)> {
        if let Some(i) = self.code_window.at(addr, 1) {
            return Some((i, self.code_window));
        }
        self.code_window = self.window_of(addr);
        Some((self.code_window.at(addr, 1)?, self.code_window))
    }

    /// Bump the versions of the pages `i..i + n` of the arena write.
    fn touch(&mut self, i: usize, n: usize) {
        let p = CODE_PAGE_BYTES as usize;
        for v in &mut self.versions[i / p..=(i + n.max(1) - 1) / p] {
            *v = v.wrapping_add(1);
        }
    }

    /// [`MemorySpace::touch`] for a store (at most two pages).
    #[inline(always)]
    fn touch_store(&mut self, i: usize, n: usize) {
        let p = CODE_PAGE_BYTES as usize;
        let (first, last) = (i / p, (i + n - 1) / p);
        if let Some(v) = self.versions.get_mut(first) {
            *v = v.wrapping_add(1);
        }
        if last != first {
            if let Some(v) = self.versions.get_mut(last) {
                *v = v.wrapping_add(1);
            }
        }
    }

    /// Copy bytes in (loader / host writes; ROM too). All-or-nothing.
    pub fn write_bytes(&mut self, addr: u32, bytes: &[u8]) -> Result<(), MapError> {
        let k = self.find(addr).ok_or(MapError::OutOfRegion { name: "(none)".into(), addr, len: bytes.len() })?;
        let r = &self.regions[k];
        let off = (addr - r.spec.base) as usize;
        if off + bytes.len() > r.spec.size as usize {
            return Err(MapError::OutOfRegion { name: r.spec.name.clone(), addr, len: bytes.len() });
        }
        let i = r.start + off;
        self.data[i..i + bytes.len()].copy_from_slice(bytes);
        self.touch(i, bytes.len());
        Ok(())
    }

    /// Copy bytes out.
    pub fn read_bytes(&self, addr: u32, len: usize) -> Result<Vec<u8>, MapError> {
        let k = self.find(addr).ok_or(MapError::OutOfRegion { name: "(none)".into(), addr, len })?;
        let r = &self.regions[k];
        let off = (addr - r.spec.base) as usize;
        if off + len > r.spec.size as usize {
            return Err(MapError::OutOfRegion { name: r.spec.name.clone(), addr, len });
        }
        Ok(self.data[r.start + off..r.start + off + len].to_vec())
    }
}

impl Bus for MemorySpace {
    fn fetch(&mut self, addr: u32, buf: &mut [u8; 3]) -> Result<usize, BusError> {
        let (i, w) = self.hit_code(addr).ok_or(BusError::Fault { addr })?;
        if w.kind == RegionKind::Csr {
            return Err(BusError::Fault { addr });
        }
        let n = ((w.base + w.size - addr) as usize).min(3);
        buf[..n].copy_from_slice(&self.data[i..i + n]);
        Ok(n)
    }

    #[inline(always)]
    fn load(&mut self, addr: u32, size: Size) -> Result<u32, BusError> {
        let (i, _) = self.hit(addr, size as u32).ok_or(BusError::Fault { addr })?;
        Ok(match size {
            Size::B1 => self.data[i] as u32,
            Size::B2 => self.data.get(i..i + 2).map_or(0, |d| u16::from_le_bytes([d[0], d[1]]) as u32),
            Size::B4 => self.data.get(i..i + 4).map_or(0, |d| u32::from_le_bytes([d[0], d[1], d[2], d[3]])),
        })
    }

    #[inline(always)]
    fn store(&mut self, addr: u32, size: Size, value: u32) -> Result<(), BusError> {
        let (i, kind) = self.hit(addr, size as u32).ok_or(BusError::Fault { addr })?;
        if kind == RegionKind::Rom {
            return Err(BusError::Fault { addr });
        }
        let v = value.to_le_bytes();
        match size {
            Size::B1 => self.data[i] = v[0],
            Size::B2 => {
                if let Some(d) = self.data.get_mut(i..i + 2) {
                    d.copy_from_slice(&v[..2]);
                }
            }
            Size::B4 => {
                if let Some(d) = self.data.get_mut(i..i + 4) {
                    d.copy_from_slice(&v);
                }
            }
        }
        self.touch_store(i, size as usize);
        Ok(())
    }

    fn code_page(&mut self, addr: u32) -> Option<CodePage<'_>> {
        let (i, w) = self.hit_code(addr)?;
        if w.kind == RegionKind::Csr {
            return None;
        }
        let p = CODE_PAGE_BYTES as usize;
        let page = i / p;
        let start = page * p;
        let off = start - w.start;
        let end = (start + p).min(w.start + w.size as usize);
        Some(CodePage { base: w.base + off as u32, bytes: &self.data[start..end], version: self.versions[page] })
    }
}
