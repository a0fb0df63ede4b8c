//! # tpb-ncfw: NCFW / TOP_SP structures
//!
//! The device-memory structures the host builds and the TOP_SP / NCFW
//! firmware walks: the 8-byte SPAD cc_op entry and the SLOT program
//! ([`spad`], DIGEST §6), the 80-byte mesh event and the 20-byte
//! `dma_apb_bcast` leg, the algo_configs layout per generation and the SoC
//! address views ([`mesh`], DIGEST §7). Each has a serde form for humans
//! and exact `pack`/`unpack` for the device bytes (little-endian).

pub mod log;
pub mod mesh;
pub mod spad;

/// A structure that cannot be unpacked from its bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    #[error("{what}: expected {expected} bytes, got {got}")]
    Length { what: &'static str, expected: usize, got: usize },
    #[error("{what}: {message}")]
    Invalid { what: &'static str, message: String },
}

/// Read a little-endian integer of `N` bytes at `off`.
pub(crate) fn le(b: &[u8], off: usize, n: usize) -> u64 {
    b[off..off + n].iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64)
}

/// Write `v` as `n` little-endian bytes at `off`.
pub(crate) fn put_le(b: &mut [u8], off: usize, n: usize, v: u64) {
    for i in 0..n {
        b[off + i] = (v >> (8 * i)) as u8;
    }
}
