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
    data: Vec<u8>,
}

/// Plain memories, little-endian. Accesses outside every region fault.
#[derive(Debug, Clone, Default)]
pub struct MemorySpace {
    regions: Vec<Region>,
}

impl MemorySpace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Build from a map; the whole map is refused if any region is wrong.
    pub fn from_map(map: &[RegionSpec]) -> Result<Self, MapError> {
        let mut m = MemorySpace::new();
        for r in map {
            m.add(r.clone())?;
        }
        Ok(m)
    }

    /// Add a zero-filled region.
    pub fn add(&mut self, spec: RegionSpec) -> Result<(), MapError> {
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
        let data = vec![0; spec.size as usize];
        self.regions.push(Region { spec, data });
        self.regions.sort_by_key(|r| r.spec.base);
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

    /// Copy bytes in (loader / host writes; ROM too). All-or-nothing.
    pub fn write_bytes(&mut self, addr: u32, bytes: &[u8]) -> Result<(), MapError> {
        let i = self.find(addr).ok_or(MapError::OutOfRegion { name: "(none)".into(), addr, len: bytes.len() })?;
        let r = &mut self.regions[i];
        let off = (addr - r.spec.base) as usize;
        if off + bytes.len() > r.data.len() {
            return Err(MapError::OutOfRegion { name: r.spec.name.clone(), addr, len: bytes.len() });
        }
        r.data[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Copy bytes out.
    pub fn read_bytes(&self, addr: u32, len: usize) -> Result<Vec<u8>, MapError> {
        let i = self.find(addr).ok_or(MapError::OutOfRegion { name: "(none)".into(), addr, len })?;
        let r = &self.regions[i];
        let off = (addr - r.spec.base) as usize;
        if off + len > r.data.len() {
            return Err(MapError::OutOfRegion { name: r.spec.name.clone(), addr, len });
        }
        Ok(r.data[off..off + len].to_vec())
    }
}

impl Bus for MemorySpace {
    fn fetch(&mut self, addr: u32, buf: &mut [u8; 3]) -> Result<usize, BusError> {
        let i = self.find(addr).ok_or(BusError::Fault { addr })?;
        let r = &self.regions[i];
        if r.spec.kind == RegionKind::Csr {
            return Err(BusError::Fault { addr });
        }
        let off = (addr - r.spec.base) as usize;
        let n = (r.data.len() - off).min(3);
        buf[..n].copy_from_slice(&r.data[off..off + n]);
        Ok(n)
    }

    fn load(&mut self, addr: u32, size: Size) -> Result<u32, BusError> {
        let i = self.find(addr).ok_or(BusError::Fault { addr })?;
        let r = &self.regions[i];
        let off = (addr - r.spec.base) as usize;
        let n = size as usize;
        if off + n > r.data.len() {
            return Err(BusError::Fault { addr });
        }
        let mut v = 0u32;
        for k in (0..n).rev() {
            v = (v << 8) | r.data[off + k] as u32;
        }
        Ok(v)
    }

    fn store(&mut self, addr: u32, size: Size, value: u32) -> Result<(), BusError> {
        let i = self.find(addr).ok_or(BusError::Fault { addr })?;
        let r = &mut self.regions[i];
        if r.spec.kind == RegionKind::Rom {
            return Err(BusError::Fault { addr });
        }
        let off = (addr - r.spec.base) as usize;
        let n = size as usize;
        if off + n > r.data.len() {
            return Err(BusError::Fault { addr });
        }
        for k in 0..n {
            r.data[off + k] = (value >> (8 * k)) as u8;
        }
        Ok(())
    }
}
