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

/// As a person (and a testbench file) writes it: `sem pool[3]`,
/// `inst_done pool tag=0x5`, `dma_done sem=9`, `halted nx=0x04 q7=0xff`,
/// `dma_error 0x1`, `bus_error 0x73000`; [`Event::from_str`](std::str::FromStr::from_str) reads it back.
impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Event::SemChanged { engine, index } => write!(f, "sem {}[{index}]", engine.name()),
            Event::InstDone { engine, tag } => write!(f, "inst_done {} tag={tag:#x}", engine.name()),
            Event::DmaDone { sem } => write!(f, "dma_done sem={sem}"),
            Event::Halted { nx, q7 } => write!(f, "halted nx={nx:#04x} q7={q7:#04x}"),
            Event::DmaError { bits } => write!(f, "dma_error {bits:#x}"),
            Event::BusError { addr } => write!(f, "bus_error {addr:#x}"),
        }
    }
}

impl std::str::FromStr for Event {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Event, String> {
        const FORMS: &str = "sem ENGINE[N], inst_done ENGINE tag=N, dma_done sem=N, halted nx=N q7=N, dma_error N, bus_error ADDR";
        let bad = || format!("'{s}' is not a notification: {FORMS}");
        let num = |t: &str| tpb_regmap::space::parse_number(t).ok_or_else(bad);
        let small = |t: &str| num(t).and_then(|v| u8::try_from(v).map_err(|_| bad()));
        let engine = |t: &str| {
            ENGINES.into_iter().find(|e| e.name() == t).ok_or_else(|| format!("'{t}' is not an engine ({})", ENGINES.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")))
        };
        let words: Vec<&str> = s.split_whitespace().collect();
        fn kv<'w>(w: &'w str, k: &str) -> Option<&'w str> {
            w.strip_prefix(k).and_then(|r| r.strip_prefix('='))
        }
        match words.as_slice() {
            ["sem", x] => {
                let (e, i) = x.strip_suffix(']').and_then(|x| x.split_once('[')).ok_or_else(bad)?;
                Ok(Event::SemChanged { engine: engine(e)?, index: small(i)? })
            }
            ["inst_done", e, t] => Ok(Event::InstDone { engine: engine(e)?, tag: u32::try_from(num(kv(t, "tag").ok_or_else(bad)?)?).map_err(|_| bad())? }),
            ["dma_done", x] => Ok(Event::DmaDone { sem: small(kv(x, "sem").ok_or_else(bad)?)? }),
            ["halted", a, b] => Ok(Event::Halted { nx: small(kv(a, "nx").ok_or_else(bad)?)?, q7: small(kv(b, "q7").ok_or_else(bad)?)? }),
            ["dma_error", x] => Ok(Event::DmaError { bits: small(x)? }),
            ["bus_error", x] => Ok(Event::BusError { addr: u32::try_from(num(x)?).map_err(|_| bad())? }),
            _ => Err(bad()),
        }
    }
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

#[cfg(test)]
mod text_tests {
    use super::*;

    #[test]
    fn every_event_reads_back_what_it_prints() {
        let all = [
            Event::SemChanged { engine: Engine::TopSp, index: 5 },
            Event::InstDone { engine: Engine::Pool, tag: 0x1234 },
            Event::DmaDone { sem: 9 },
            Event::Halted { nx: 0x04, q7: 0xff },
            Event::DmaError { bits: 1 },
            Event::BusError { addr: 0x73000 },
        ];
        for e in all {
            assert_eq!(e.to_string().parse::<Event>(), Ok(e), "{e}");
        }
        assert_eq!("sem top_sp[5]".parse::<Event>(), Ok(all[0]));
        assert!("sem nowhere[5]".parse::<Event>().unwrap_err().contains("'nowhere' is not an engine"));
        assert!("sem pool[300]".parse::<Event>().unwrap_err().contains("is not a notification"));
        assert!("halted nx=1".parse::<Event>().unwrap_err().contains("halted nx=N q7=N"));
    }
}
