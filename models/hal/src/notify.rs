//! The host's reader of the notification ring (DIGEST §2.9, §3): it reads
//! the records between its tail and the hardware's head over BAR0, decodes
//! each into a typed [`Notification`], writes the tail back, and reports the
//! unit's drop count and overflow flag (clearing the flag). The ring and
//! record layout are the golden model's (`tpb_golden::notific`, `[D]`).
//!
//! A record that does not decode (an unknown type, a source out of range)
//! is a typed error naming the record; the tail is then left where it was,
//! so nothing is consumed.

use crate::arch::ArchCtx;
use crate::error::{HalError, Result};
use crate::mmio::Mmio;
use tpb_golden::notific::{NO_SOURCE, POOL_SOURCE, RECORD_BYTES, T_BUS_ERROR, T_DMA_DONE, T_DMA_ERROR, T_HALT, T_INST_DONE, T_SEM};
use tpb_regmap::layout::ENGINES;
use tpb_regmap::Engine;

/// What a record says happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// EVT_SEM class: semaphore `index` of `engine` changed.
    SemChanged { engine: Engine, index: u8 },
    /// INST class: `engine`'s firmware finished the instruction it tagged `tag`
    /// (it wrote the tag to its NX bundle's `inst_done`).
    InstDone { engine: Engine, tag: u32 },
    /// INST class: a SEQ DMA descriptor completed into TOP_SP semaphore `sem`.
    DmaDone { sem: u8 },
    /// INST class: cores halted (NX engine `e` at bit `e` of `nx`, Q7 core `n` at bit `n` of `q7`).
    Halted { nx: u8, q7: u8 },
    /// ERROR class: SEQ DMA error bits newly set (the DMA's error register).
    DmaError { bits: u8 },
    /// ERROR class: a BAR0 access nothing decodes, at `addr`.
    BusError { addr: u32 },
}

/// One decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notification {
    /// The unit's sequence number (16 bits, wraps): a gap is a lost record.
    pub seq: u16,
    /// The unit's cycle counter when it posted the record.
    pub cycle: u32,
    /// Records the unit had dropped before this one.
    pub dropped_before: u32,
    pub event: Event,
}

/// What one read of the ring returned.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Batch {
    pub notifications: Vec<Notification>,
    /// The unit's drop count, and whether it had flagged an overflow since the last read.
    pub dropped: u32,
    pub overflow: bool,
}

/// Decode one record (`i` names it in an error).
pub fn decode(i: u32, w: [u32; 4]) -> Result<Notification> {
    let (ty, src) = (w[0] & 0xff, w[0] >> 8 & 0xff);
    let bad = |what: String| HalError::Invalid(format!("notification record {i}: {what} (words {:#010x} {:#010x} {:#010x} {:#010x})", w[0], w[1], w[2], w[3]));
    let event = match (ty, src) {
        (T_SEM, e) if (e as usize) < ENGINES.len() => Event::SemChanged { engine: ENGINES[e as usize], index: w[1] as u8 },
        (T_DMA_DONE, POOL_SOURCE) => Event::DmaDone { sem: w[1] as u8 },
        (T_INST_DONE, e) if (e as usize) < ENGINES.len() => Event::InstDone { engine: ENGINES[e as usize], tag: w[1] },
        (T_HALT, NO_SOURCE) => Event::Halted { nx: (w[1] & 0x3f) as u8, q7: (w[1] >> 8) as u8 },
        (T_DMA_ERROR, POOL_SOURCE) => Event::DmaError { bits: (w[1] & 7) as u8 },
        (T_BUS_ERROR, NO_SOURCE) => Event::BusError { addr: w[1] },
        (T_SEM | T_INST_DONE | T_DMA_DONE | T_HALT | T_DMA_ERROR | T_BUS_ERROR, s) => return Err(bad(format!("type {ty:#04x} with source {s:#04x}"))),
        _ => return Err(bad(format!("unknown type {ty:#04x}"))),
    };
    Ok(Notification { seq: (w[0] >> 16) as u16, cycle: w[3], dropped_before: w[2], event })
}

/// The BAR0 address of the ring SRAM.
pub fn ring_base(ctx: &ArchCtx) -> u64 {
    ctx.params().bar0.tpb_base + ctx.params().bar0.notific_ring.base
}

/// Read every record the unit has posted since the last read, consume them
/// (tail = head), and read and clear the overflow flag.
pub fn read(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<Batch> {
    let t = ctx.tpb_regs_base();
    let r = &ctx.regs.tpb;
    let size = mmio.read32(t + r.notific_ring_size.offset as u64)?;
    let cap = (ctx.params().bar0.notific_ring.size / u64::from(RECORD_BYTES)) as u32;
    if size == 0 || size > cap {
        return Err(HalError::OutOfRange { what: "notific_ring_size (records)", value: size.into(), limit: u64::from(cap) + 1 });
    }
    let head = mmio.read32(t + r.notific_head.offset as u64)?;
    let mut tail = mmio.read32(t + r.notific_tail.offset as u64)?;
    if head >= size || tail >= size {
        return Err(HalError::Invalid(format!("notification ring: head {head} or tail {tail} is not below its size {size}")));
    }
    let base = ring_base(ctx);
    let mut notifications = Vec::new();
    while tail != head {
        let a = base + u64::from(tail * RECORD_BYTES);
        let mut w = [0u32; 4];
        for (k, x) in w.iter_mut().enumerate() {
            *x = mmio.read32(a + 4 * k as u64)?;
        }
        notifications.push(decode(tail, w)?);
        tail = if tail + 1 == size { 0 } else { tail + 1 };
    }
    mmio.write32(t + r.notific_tail.offset as u64, tail)?;
    let dropped = mmio.read32(t + r.notific_dropped.offset as u64)?;
    let status = mmio.read32(t + r.notific_status.offset as u64)?;
    let overflow = status & 1 != 0;
    if overflow {
        mmio.write32(t + r.notific_status.offset as u64, 1)?;
    }
    Ok(Batch { notifications, dropped, overflow })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_decode_into_typed_events_and_bad_ones_are_named() {
        let n = decode(3, [T_SEM | 5 << 8 | 7 << 16, 104, 2, 900]).unwrap();
        assert_eq!(n, Notification { seq: 7, cycle: 900, dropped_before: 2, event: Event::SemChanged { engine: Engine::TopSp, index: 104 } });
        assert_eq!(decode(0, [T_HALT | NO_SOURCE << 8, 1 << 2 | 0x05 << 8, 0, 0]).unwrap().event, Event::Halted { nx: 1 << 2, q7: 0x05 });
        assert_eq!(decode(0, [T_BUS_ERROR | NO_SOURCE << 8, 0xdead_0000, 0, 0]).unwrap().event, Event::BusError { addr: 0xdead_0000 });
        assert_eq!(decode(0, [T_INST_DONE | 2 << 8, 0x0004_0143, 0, 0]).unwrap().event, Event::InstDone { engine: Engine::Pool, tag: 0x0004_0143 });
        assert!(decode(0, [T_INST_DONE | 9 << 8, 0, 0, 0]).unwrap_err().to_string().contains("type 0x22 with source 0x09"));
        let e = decode(9, [0x77, 0, 0, 0]).unwrap_err().to_string();
        assert!(e.contains("notification record 9: unknown type 0x77"), "{e}");
        let e = decode(1, [T_SEM | 6 << 8, 0, 0, 0]).unwrap_err().to_string();
        assert!(e.contains("record 1: type 0x10 with source 0x06"), "{e}");
    }
}
