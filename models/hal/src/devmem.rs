//! # Device memory and the TOP_SP-init DMA queue (DIGEST §6)
//!
//! The seeds load a TOP_SP's SPADs in two moves: the host stages the CTRL
//! and SLOT images in device memory (HBM: the SLOT image at `spad +
//! 0x100000`, `[top_sp] spad_slot_staging_offset`), then a DMA queue
//! dedicated to TOP_SP init copies each onto the TPB (CTRL SPAD → SRAM, SLOT
//! SPAD → TPB IRAM), and only then is host_trigger kicked
//! ([`crate::Hal::stage_spad_and_kick`]).
//!
//! [`DevMem`] is what a transport offers besides BAR0 for that: a write of
//! device memory and a queue of copies from device memory to BAR0
//! addresses. [`DevMemory`] is the device memory itself, sparse, shared by
//! the in-process model and the co-simulation.
//!
//! `[D]` (the seeds name the queue, not its engine): the device memory is
//! [`DEVMEM_SIZE`] bytes from device address 0, reset to zero; a copy moves
//! whole words, one BAR0 write each; the queue takes its copies in order.

use crate::mmio::{Mmio, MmioError};
use std::collections::BTreeMap;
use tpb_regmap::space::AddressSpace;
use tpb_regmap::RegionKind;

/// `[D]` Bytes of device memory the model addresses (sparse: only pages
/// written take room).
pub const DEVMEM_SIZE: u64 = 1 << 34;

/// `[D]` Where the host stages TOP_SP 0's SPAD images (`sp->spad` in the
/// seeds, a buffer the runtime allocates in HBM): the scenarios' choice.
pub const TOPSP_STAGING_BASE: u64 = 0x1000_0000;

/// One copy of the TOP_SP-init DMA queue: `len` bytes from device memory
/// `src` to BAR0 address `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaCopy {
    pub src: u64,
    pub dst: u64,
    pub len: u64,
}

/// The host's reach besides BAR0 (DIGEST §6): device memory, and the
/// TOP_SP-init DMA queue that copies from it onto the TPB.
pub trait DevMem: Mmio {
    /// `encd_devmem_load`: `data` into device memory from `addr`. Both
    /// 4-byte aligned, inside [`DEVMEM_SIZE`]; checked before anything is written.
    fn devmem_write(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError>;
    /// Queue `copies` on the TOP_SP-init DMA queue, start it and wait until
    /// the last word has landed. Every copy is checked (aligned, its source
    /// inside device memory, its destination inside one BAR0 memory region)
    /// before the first word moves.
    fn init_dma(&mut self, copies: &[DmaCopy]) -> Result<(), MmioError>;
}

impl<M: DevMem + ?Sized> DevMem for &mut M {
    fn devmem_write(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        (**self).devmem_write(addr, data)
    }
    fn init_dma(&mut self, copies: &[DmaCopy]) -> Result<(), MmioError> {
        (**self).init_dma(copies)
    }
}

/// The checks of [`DevMem::init_dma`], all before anything moves: each
/// copy whole words, its source inside device memory, its destination
/// inside one memory region of `bar0`.
pub fn check_copies(bar0: &AddressSpace, copies: &[DmaCopy]) -> Result<(), MmioError> {
    for c in copies {
        DevMemory::check(c.src, c.len)?;
        if c.dst % 4 != 0 || c.len % 4 != 0 {
            return Err(MmioError::MisalignedBuf { addr: c.dst, len: c.len as usize });
        }
        let region = bar0.region(c.dst).ok_or(MmioError::Unmapped { kind: "init-DMA copy", addr: c.dst })?;
        let end = c.dst + c.len;
        if region.kind != RegionKind::Memory || end > region.region.end() {
            return Err(MmioError::BufOutOfRegion { addr: c.dst, end, what: format!("init-DMA copy into {}", region.name) });
        }
    }
    Ok(())
}

const PAGE: u64 = 4096;

/// Device memory: [`DEVMEM_SIZE`] bytes, zero until written, kept by 4 KiB page.
#[derive(Debug, Clone, Default)]
pub struct DevMemory {
    pages: BTreeMap<u64, Box<[u8]>>,
    /// Bytes written so far.
    pub written: u64,
}

impl DevMemory {
    /// The check of an access of `len` bytes at `addr`.
    pub fn check(addr: u64, len: u64) -> Result<(), MmioError> {
        if !addr.is_multiple_of(4) || !len.is_multiple_of(4) {
            return Err(MmioError::DevMem { addr, len, why: "must be 4-byte aligned, address and length" });
        }
        if addr.checked_add(len).is_none_or(|end| end > DEVMEM_SIZE) {
            return Err(MmioError::DevMem { addr, len, why: "runs past the device memory's end (DEVMEM_SIZE)" });
        }
        Ok(())
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        DevMemory::check(addr, data.len() as u64)?;
        for (i, &b) in data.iter().enumerate() {
            let a = addr + i as u64;
            // Zero bytes over untouched pages stay unallocated.
            if b == 0 && !self.pages.contains_key(&(a / PAGE)) {
                continue;
            }
            self.pages.entry(a / PAGE).or_insert_with(|| vec![0; PAGE as usize].into_boxed_slice())[(a % PAGE) as usize] = b;
        }
        self.written += data.len() as u64;
        Ok(())
    }

    /// The little-endian word at `addr` (4-byte aligned, checked by the caller).
    pub fn word(&self, addr: u64) -> u32 {
        let b = |a: u64| self.pages.get(&(a / PAGE)).map_or(0, |p| p[(a % PAGE) as usize]);
        u32::from_le_bytes([b(addr), b(addr + 1), b(addr + 2), b(addr + 3)])
    }

    pub fn read(&self, addr: u64, len: u64) -> Vec<u8> {
        (0..len / 4).flat_map(|i| self.word(addr + 4 * i).to_le_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_memory_is_zero_until_written_and_refuses_what_it_cannot_hold() {
        let mut m = DevMemory::default();
        assert_eq!(m.word(0x1000_0000), 0);
        m.write(0x0fff_fffc, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert_eq!((m.word(0x0fff_fffc), m.word(0x1000_0000)), (0x0403_0201, 0x0807_0605), "a write across a page boundary");
        assert_eq!(m.read(0x0fff_fff8, 12), [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        let e = m.write(2, &[0; 4]).unwrap_err().to_string();
        assert!(e.contains("0x2") && e.contains("aligned"), "{e}");
        let e = m.write(DEVMEM_SIZE - 4, &[0; 8]).unwrap_err().to_string();
        assert!(e.contains("past the device memory's end"), "{e}");
        assert_eq!(m.word(DEVMEM_SIZE - 4), 0, "nothing of a refused write lands");
        m.write(0x4000, &[0; 64]).unwrap();
        assert_eq!(m.pages.len(), 2, "zeros over untouched pages take no room");
    }
}
