//! The device's console through the seeds' stdio TX ring (DIGEST §2.5,
//! §2.7: SUNDA's stdio/file-IO ring at NX +0x70/+0x74): the host's side.
//!
//! The protocol is ours (`[D]`; the seeds name the ring, not its records):
//! - the SEQ writes a chunk of text (at most [`SLOT_BYTES`]) into slot
//!   `k % SLOTS` of the stdio area of its DMA SRAM ([`AREA`]), zero-padded
//!   to words, then queues a TX descriptor `{slot, slot, words, 0}` (the
//!   copy stays in place: the descriptor's retirement is what the host sees)
//!   and bumps the ring's `tail_inc`; it waits for the previous descriptor
//!   to retire before it reuses the area;
//! - the host reads the TX ring's `done` count from the DMA's status, then
//!   each retired descriptor from the ring and its text from the slot it
//!   names, and writes the count it consumed to the ring's `tail` register.
//!
//! The device does not wait for the host: a host that drains later than
//! [`SLOTS`] descriptors finds the older slots rewritten, and says how many
//! chunks it lost.

use crate::arch::ArchCtx;
use crate::error::{HalError, Result};
use crate::mmio::Mmio;

/// `[D]` The stdio area: DMA SRAM bytes from here (above the built-in
/// scenarios' rings and data, 0x000..0x300).
pub const AREA: u32 = 0x300;
/// `[D]` Slots of the stdio area, each one chunk.
pub const SLOTS: u32 = 4;
/// `[D]` Bytes of text per chunk (a slot).
pub const SLOT_BYTES: u32 = 0x40;
/// The DMA status word of the TX ring's retired descriptors (the map's `seq_dma.tx_done`).
pub use tpb_spec::seq_dma::TX_DONE;

/// What the host has consumed of the ring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reader {
    /// Descriptors consumed (the ring's `done` count at the last drain).
    pub done: u32,
}

/// What one drain returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drained {
    /// The text of the retired descriptors, in order.
    pub text: Vec<u8>,
    /// Chunks rewritten before this drain could read them.
    pub lost: u32,
}

/// Read the chunks retired since the last drain (see the module).
pub fn drain(ctx: &ArchCtx, mmio: &mut dyn Mmio, r: &mut Reader) -> Result<Drained> {
    let p = ctx.params();
    let dma = p.bar0.tpb_base + p.bar0.seq_dma.base;
    let (nx, ring) = (ctx.pool_base(), &ctx.regs.nx.tx_ring);
    let done = mmio.read32(dma + u64::from(TX_DONE))?;
    let mut out = Drained::default();
    if done == r.done {
        return Ok(out);
    }
    let base = mmio.read32(nx + ring[0].offset as u64)?;
    let len = mmio.read32(nx + ring[1].offset as u64)?;
    if len == 0 {
        return Err(HalError::Invalid(format!("the stdio TX ring has length 0 but {done} descriptors retired")));
    }
    let new = done.wrapping_sub(r.done);
    let first = if new > SLOTS.min(len) {
        out.lost = new - SLOTS.min(len);
        done.wrapping_sub(SLOTS.min(len))
    } else {
        r.done
    };
    let mut i = first;
    while i != done {
        let d = dma + u64::from(base) + 16 * u64::from(i % len);
        let (src, words) = (mmio.read32(d)?, mmio.read32(d + 8)? & 0xffff);
        if src < AREA || src + 4 * words > AREA + SLOTS * SLOT_BYTES {
            return Err(HalError::Invalid(format!(
                "stdio TX descriptor {i}: {words} words at DMA SRAM {src:#x}, outside the stdio area {AREA:#x}..{:#x}",
                AREA + SLOTS * SLOT_BYTES
            )));
        }
        for k in 0..words {
            let w = mmio.read32(dma + u64::from(src + 4 * k))?;
            out.text.extend(w.to_le_bytes().into_iter().filter(|b| *b != 0));
        }
        i = i.wrapping_add(1);
    }
    mmio.write32(nx + ring[3].offset as u64, done)?;
    r.done = done;
    Ok(out)
}
