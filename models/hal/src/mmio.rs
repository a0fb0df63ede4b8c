//! The HAL's transport: one BAR0, reached through 32-bit register accesses
//! and word-blasted buffer writes (DIGEST §2.2). The HAL never knows what is
//! behind it: the in-process golden model ([`super::RegFileModel`]), a
//! recording wrapper ([`super::Recorder`]) or the Verilator co-simulation.

use crate::spec::MEM_WRITE_BUF_ALIGN;

/// A failed BAR0 access. Nothing was changed by the failing access; for a
/// buffer write, nothing at all was written (alignment and mapping are
/// checked before the first word).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MmioError {
    /// `mem_write_buf` with a destination or length that is not 4-byte aligned.
    #[error("mem_write_buf: destination {addr:#x} and length {len:#x} must both be {MEM_WRITE_BUF_ALIGN}-byte aligned")]
    MisalignedBuf { addr: u64, len: usize },
    /// A 32-bit access at an address that is not 4-byte aligned.
    #[error("misaligned 32-bit {kind} at {addr:#x}")]
    Misaligned { kind: &'static str, addr: u64 },
    /// No region of the BAR0 map decodes this address.
    #[error("unmapped BAR0 address {addr:#x} ({kind})")]
    Unmapped { kind: &'static str, addr: u64 },
    /// The addressed block answered with a bus error (e.g. a hole inside a register block).
    #[error("bus error at {addr:#x} ({what})")]
    BusError { addr: u64, what: String },
    /// The transport to BAR0 failed (a serial link: I/O, no answer, a bad
    /// or unexpected response); `what` says which request.
    #[error("link to BAR0: {what}")]
    Link { what: String },
    /// A buffer write that does not lie inside one memory region.
    #[error("mem_write_buf {addr:#x}..{end:#x} does not fit in one memory region ({what})")]
    BufOutOfRegion { addr: u64, end: u64, what: String },
    /// A device-memory access (or an init-DMA copy's source) the device memory cannot take.
    #[error("device memory {addr:#x}, {len:#x} bytes: {why}")]
    DevMem { addr: u64, len: u64, why: &'static str },
}

/// BAR0 access.
pub trait Mmio {
    /// `reg_read32`: one 32-bit CSR read.
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError>;
    /// `reg_write32`: one 32-bit CSR write.
    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError>;
    /// `mem_write_buf`: `data.len() / 4` little-endian words from `addr` on.
    /// Both `addr` and the length must be 4-byte aligned (an error, not an
    /// assertion). The default checks alignment first, then writes word by word.
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        check_buf(addr, data.len())?;
        for (i, w) in data.chunks_exact(4).enumerate() {
            self.write32(addr + 4 * i as u64, u32::from_le_bytes([w[0], w[1], w[2], w[3]]))?;
        }
        Ok(())
    }
    /// `mem_write_buf` of `data` followed by zeros, `len` bytes in all (at
    /// least `data`): what `write_padded` installs. The same as
    /// [`Mmio::write_buf`] of that buffer, which the default builds; a
    /// transport that need not send the zeros may leave it unbuilt.
    fn write_buf_padded(&mut self, addr: u64, data: &[u8], len: usize) -> Result<(), MmioError> {
        self.write_buf(addr, &padded(data, len))
    }
    /// A label for what the HAL is doing now (a bring-up step). Transports
    /// that log or trace show it; others ignore it.
    fn note(&mut self, _text: &str) {}
}

/// `data` followed by zeros, `len` bytes in all (at least `data`): a padded image.
pub fn padded(data: &[u8], len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len.max(data.len())];
    buf[..data.len()].copy_from_slice(data);
    buf
}

/// The alignment rule of `mem_write_buf` (DIGEST §2.2).
pub fn check_buf(addr: u64, len: usize) -> Result<(), MmioError> {
    if !addr.is_multiple_of(MEM_WRITE_BUF_ALIGN) || !(len as u64).is_multiple_of(MEM_WRITE_BUF_ALIGN) {
        return Err(MmioError::MisalignedBuf { addr, len });
    }
    Ok(())
}

impl<M: Mmio + ?Sized> Mmio for &mut M {
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError> {
        (**self).read32(addr)
    }
    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError> {
        (**self).write32(addr, value)
    }
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        (**self).write_buf(addr, data)
    }
    fn write_buf_padded(&mut self, addr: u64, data: &[u8], len: usize) -> Result<(), MmioError> {
        (**self).write_buf_padded(addr, data, len)
    }
    fn note(&mut self, text: &str) {
        (**self).note(text)
    }
}
