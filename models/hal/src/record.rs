//! A transport wrapper that logs every BAR0 access with the name of what it
//! reaches (resolved from the register maps), for humans and snapshot tests.

use super::devmem::{DevMem, DmaCopy};
use super::mmio::{Mmio, MmioError};
use std::fmt::Write;
use tpb_regmap::space::AddressSpace;
use tpb_regmap::RegMap;

/// One logged access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A HAL step label ([`Mmio::note`]).
    Note(String),
    Read {
        addr: u64,
        name: String,
        result: Result<u32, MmioError>,
    },
    Write {
        addr: u64,
        name: String,
        value: u32,
        result: Result<(), MmioError>,
    },
    /// A `mem_write_buf`: length, how many leading bytes precede the all-zero
    /// tail (the image vs. its zero pad), and an FNV-1a hash of the bytes.
    WriteBuf {
        addr: u64,
        name: String,
        len: usize,
        nonzero_len: usize,
        fnv1a: u64,
        result: Result<(), MmioError>,
    },
    /// A device-memory write ([`DevMem::devmem_write`]): as `WriteBuf`, not on BAR0.
    DevMem {
        addr: u64,
        len: usize,
        nonzero_len: usize,
        fnv1a: u64,
        result: Result<(), MmioError>,
    },
    /// One copy of an init-DMA run ([`DevMem::init_dma`]), its destination
    /// named; the run's result on each of its copies.
    InitDma {
        src: u64,
        dst: u64,
        name: String,
        len: u64,
        result: Result<(), MmioError>,
    },
}

/// 64-bit FNV-1a (a fingerprint for the log, not a security hash).
pub fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Logs every access to the inner transport.
#[derive(Debug)]
pub struct Recorder<M> {
    inner: M,
    bar0: AddressSpace,
    log: Vec<Entry>,
}

impl<M: Mmio> Recorder<M> {
    pub fn new(inner: M, map: RegMap) -> Self {
        Recorder { inner, bar0: AddressSpace::new(map), log: Vec::new() }
    }
    pub fn log(&self) -> &[Entry] {
        &self.log
    }
    pub fn inner(&self) -> &M {
        &self.inner
    }
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }
    pub fn into_inner(self) -> M {
        self.inner
    }
    /// Register writes only, as (address, name, value).
    pub fn writes(&self) -> Vec<(u64, &str, u32)> {
        self.log
            .iter()
            .filter_map(|e| match e {
                Entry::Write { addr, name, value, .. } => Some((*addr, name.as_str(), *value)),
                _ => None,
            })
            .collect()
    }

    /// The log as text, one access per line:
    /// `W 0x02860004 pool.nx.release_run_stall = 0x0`.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for e in &self.log {
            match e {
                Entry::Note(t) => writeln!(s, "# {t}"),
                Entry::Read { addr, name, result } => match result {
                    Ok(v) => writeln!(s, "R {addr:#010x} {name} -> {v:#x}"),
                    Err(err) => writeln!(s, "R {addr:#010x} {name} -> ERROR {err}"),
                },
                Entry::Write { addr, name, value, result } => match result {
                    Ok(()) => writeln!(s, "W {addr:#010x} {name} = {value:#x}"),
                    Err(err) => writeln!(s, "W {addr:#010x} {name} = {value:#x} ERROR {err}"),
                },
                Entry::WriteBuf { addr, name, len, nonzero_len, fnv1a, result } => {
                    let r = match result {
                        Ok(()) => String::new(),
                        Err(err) => format!(" ERROR {err}"),
                    };
                    writeln!(s, "B {addr:#010x} {name} {len:#x} bytes (data {nonzero_len:#x} + zero {:#x}) fnv1a={fnv1a:016x}{r}", len - nonzero_len)
                }
                Entry::DevMem { addr, len, nonzero_len, fnv1a, result } => {
                    let r = result.as_ref().err().map(|e| format!(" ERROR {e}")).unwrap_or_default();
                    writeln!(s, "M {addr:#010x} devmem {len:#x} bytes (data {nonzero_len:#x} + zero {:#x}) fnv1a={fnv1a:016x}{r}", len - nonzero_len)
                }
                Entry::InitDma { src, dst, name, len, result } => {
                    let r = result.as_ref().err().map(|e| format!(" ERROR {e}")).unwrap_or_default();
                    writeln!(s, "D {dst:#010x} {name} {len:#x} bytes <- devmem {src:#x} (init DMA){r}")
                }
            }
            .unwrap();
        }
        s
    }
}

impl<M: DevMem> DevMem for Recorder<M> {
    fn devmem_write(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        let result = self.inner.devmem_write(addr, data);
        let nonzero_len = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        self.log.push(Entry::DevMem { addr, len: data.len(), nonzero_len, fnv1a: fnv1a(data), result: result.clone() });
        result
    }
    fn init_dma(&mut self, copies: &[DmaCopy]) -> Result<(), MmioError> {
        let result = self.inner.init_dma(copies);
        for c in copies {
            self.log.push(Entry::InitDma { src: c.src, dst: c.dst, name: self.bar0.name(c.dst), len: c.len, result: result.clone() });
        }
        result
    }
}

impl<M: Mmio> Mmio for Recorder<M> {
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError> {
        let result = self.inner.read32(addr);
        self.log.push(Entry::Read { addr, name: self.bar0.name(addr), result: result.clone() });
        result
    }
    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError> {
        let result = self.inner.write32(addr, value);
        self.log.push(Entry::Write { addr, name: self.bar0.name(addr), value, result: result.clone() });
        result
    }
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        let result = self.inner.write_buf(addr, data);
        let nonzero_len = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        self.log.push(Entry::WriteBuf { addr, name: self.bar0.name(addr), len: data.len(), nonzero_len, fnv1a: fnv1a(data), result: result.clone() });
        result
    }
    fn note(&mut self, text: &str) {
        self.log.push(Entry::Note(text.to_string()));
        self.inner.note(text);
    }
}
