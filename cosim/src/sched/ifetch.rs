//! The SEQ's instruction fetch through an I-cache that its I-fetch DMA
//! fills from device memory (seed 004 §7: `ucode_seq_init` writes
//! `engine_base_address`, "the SEQ I-fetch base"; `dma_init` programs "the
//! SEQ iDMA instruction-cache-fill ring" and `dma_ctrl` "gates the SEQ
//! I-fetch DMA"). Off unless a scenario turns it on ([`Cosim::seq_icache`]):
//! then the SEQ's IRAM in the top is the cache's data.
//!
//! `[D]` (the seeds name the base, the ring and the gate, not the engine):
//! - The cache holds lines of [`ICache::line`] bytes of the IRAM, every one
//!   invalid from power-on. A fetch from an invalid line misses: the core
//!   waits on it (its fetch is not answered), and the engine takes the miss.
//! - The engine is a BAR0 master beside the top (as the TOP_SP-init DMA
//!   queue is; the RTL gives it no wires of its own, as it gives the NX
//!   sequencers no memory port): it reads the POOL NX `dma_ctrl`; with
//!   `enable` 0 the fill is dropped, as the SEQ DMA drops pending work while
//!   disabled, and the core waits on its fetch for good ([`Dropped`]). With
//!   `enable` 1 it reads `engine_base_address`.
//! - **Each fill goes through the RX ring**, the ring the seeds call the
//!   SEQ iDMA instruction-cache-fill ring (seed 004 §7 STEP 4): the engine
//!   reads the ring's `dma_rx_ring_base`, `_length` and `_tail`, writes the
//!   fill's descriptor into the SEQ DMA SRAM at base + 16 × tail (four
//!   words: device source low and high, the IRAM byte offset, the words;
//!   [`FILL_DESC_WORDS`]), copies the line's words from device memory at
//!   base + line offset into the IRAM, and writes the ring's `tail` one
//!   further (modulo the length): the ring holds the last fills, in order.
//!   A ring of length 0 (`dma_init` left it off) drops the fill, as a
//!   disabled `dma_ctrl` does. The RTL's DMA engine runs a ring's
//!   descriptors only on `tail_inc`, which the fill engine does not write:
//!   the fill descriptors are the ring's record, not the RTL's work.
//! - Its grant comes first, before the host's: it reads `dma_ctrl` as soon
//!   as BAR0 is free after a miss, as a wire would show it.

use super::*;

/// The SEQ's I-cache: which IRAM lines hold what device memory holds.
#[derive(Debug, Clone)]
pub struct ICache {
    /// Bytes a line.
    pub line: u32,
    valid: Vec<bool>,
    /// The line a fetch missed and waits on.
    pub(super) miss: Option<u32>,
}

impl ICache {
    /// Whether `line` bytes make a line: a power of two from 16 to 1024 (`[D]`).
    pub fn line_ok(line: u32) -> bool {
        (16..=1024).contains(&line) && line.is_power_of_two()
    }

    fn new(iram_size: u32, line: u32) -> ICache {
        ICache { line, valid: vec![false; iram_size.div_ceil(line) as usize], miss: None }
    }

    /// Whether a fetch of IRAM word `w` must wait for a fill (and notes the miss).
    pub(super) fn missed(&mut self, w: u32) -> bool {
        let l = w / self.line;
        let hit = self.valid.get(l as usize).copied().unwrap_or(true);
        if !hit && self.miss.is_none() {
            self.miss = Some(l);
        }
        !hit
    }

    /// Lines filled.
    pub fn valid_lines(&self) -> usize {
        self.valid.iter().filter(|v| **v).count()
    }
}

/// Words of a fill's descriptor on the RX ring (`[D]`): source low, source
/// high, IRAM byte offset, words.
pub const FILL_DESC_WORDS: u32 = 4;

/// A fill the engine dropped: `dma_ctrl.enable` was 0, or the fill ring has
/// no entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// The cycle the engine read what stopped it.
    pub cycle: u64,
    /// The IRAM address of the line the SEQ waits on.
    pub addr: u32,
    /// The RX ring's length read 0 (else `dma_ctrl.enable` was 0).
    pub no_ring: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Idle,
    /// Reading `dma_ctrl`, then the base's low and high words.
    Ctrl,
    BaseLo,
    BaseHi,
    /// Reading the RX ring's base, length and tail.
    RingBase,
    RingLen,
    RingTail,
    /// Writing word `k` of the fill's descriptor.
    Desc {
        k: u32,
    },
    /// Writing the ring's tail one further, once the line is in.
    Tail,
    /// Writing the line: the next device address, IRAM word, words left.
    Copy {
        src: u64,
        dst: u32,
        left: u32,
    },
    /// A fill was dropped: the SEQ waits on it until reset.
    Stuck,
}

/// The SEQ's I-fetch DMA (see the module).
#[derive(Debug, Default)]
pub struct IFetch {
    state: State,
    /// A request granted and not yet answered.
    in_flight: bool,
    /// BAR0: `dma_ctrl`, `engine_base_address_lo/hi`, `dma_rx_ring_base`,
    /// `_length`, `_tail` of the POOL NX; the SEQ IRAM; the SEQ DMA SRAM.
    regs: [u32; 6],
    iram: u32,
    sram: u32,
    base: u64,
    /// The fill ring: base (SRAM byte offset), length, tail.
    ring: (u32, u32, u32),
    /// Lines filled, and words written into the IRAM.
    pub fills: u64,
    pub words: u64,
    /// The first fill requested and dropped.
    pub dropped: Option<Dropped>,
    /// The cycle of the first miss, and of each fill's end.
    pub first_miss: Option<u64>,
    pub filled_at: Vec<u64>,
}

impl IFetch {
    /// Busy: a fill under way (a dropped one is not).
    pub fn busy(&self) -> bool {
        !matches!(self.state, State::Idle | State::Stuck) || self.in_flight
    }
}

impl Cosim {
    /// Turn on the SEQ's I-cache (lines of `line` bytes, a power of two from
    /// 16 to 1024) and its I-fetch DMA ([`IFetch`]: `cosim/src/sched/ifetch.rs`).
    /// Nothing changes on an error.
    pub fn seq_icache(&mut self, line: u32) -> Result<(), CosimError> {
        if !ICache::line_ok(line) {
            return Err(CosimError::ICacheLine(line));
        }
        let map = self.map.clone();
        let a = crate::firmware::Addrs::new(&map, "seq_icache");
        let reg = |r: &str| a.reg(Engine::Pool, "nx", r).map_err(CosimError::ICache);
        let regs =
            [reg("dma_ctrl")?, reg("engine_base_address_lo")?, reg("engine_base_address_hi")?, reg("dma_rx_ring_base")?, reg("dma_rx_ring_length")?, reg("dma_rx_ring_tail")?];
        let iram = a.region("seq.iram").map_err(CosimError::ICache)?;
        let sram = a.region("seq.dma").map_err(CosimError::ICache)?;
        self.ifetch = IFetch { regs, iram, sram, ..IFetch::default() };
        let bus = &mut self.cores[slot_index(CoreId::Seq)].bus;
        bus.icache = Some(ICache::new(bus.iram_size, line));
        Ok(())
    }

    /// The SEQ's I-cache, if it is on.
    pub fn icache(&self) -> Option<&ICache> {
        self.cores.get(slot_index(CoreId::Seq)).and_then(|s| s.bus.icache.as_ref())
    }

    /// The I-fetch DMA's request, if it has one (granted before anyone's).
    pub(super) fn grant_ifetch(&mut self) -> Option<(Master, Req)> {
        if self.ifetch.in_flight {
            return None;
        }
        let read = |addr| Some(Req { write: false, addr, wdata: 0 });
        let req = match self.ifetch.state {
            State::Idle => {
                self.cores.get(slot_index(CoreId::Seq))?.bus.icache.as_ref()?.miss?;
                self.ifetch.first_miss.get_or_insert(self.stats.cycles);
                self.ifetch.state = State::Ctrl;
                read(self.ifetch.regs[0])
            }
            State::Ctrl => read(self.ifetch.regs[0]),
            State::BaseLo => read(self.ifetch.regs[1]),
            State::BaseHi => read(self.ifetch.regs[2]),
            State::RingBase => read(self.ifetch.regs[3]),
            State::RingLen => read(self.ifetch.regs[4]),
            State::RingTail => read(self.ifetch.regs[5]),
            State::Desc { k } => {
                let f = &self.ifetch;
                let cache = self.cores.get(slot_index(CoreId::Seq))?.bus.icache.as_ref()?;
                let off = cache.miss.unwrap_or(0) * cache.line;
                let src = f.base + u64::from(off);
                let word = [src as u32, (src >> 32) as u32, off, cache.line / 4][k as usize];
                let at = f.sram.wrapping_add(f.ring.0).wrapping_add(16 * f.ring.2 + 4 * k);
                self.written.insert(u64::from(at));
                Some(Req { write: true, addr: at, wdata: word })
            }
            State::Tail => Some(Req { write: true, addr: self.ifetch.regs[5], wdata: (self.ifetch.ring.2 + 1) % self.ifetch.ring.1.max(1) }),
            State::Copy { src, dst, .. } => {
                self.written.insert(u64::from(dst));
                Some(Req { write: true, addr: dst, wdata: self.init_dma.mem.word(src) })
            }
            State::Stuck => None,
        }?;
        self.ifetch.in_flight = true;
        Some((Master::IFetch, req))
    }

    /// The answer to the I-fetch DMA's request `req`.
    pub(super) fn deliver_ifetch(&mut self, req: Req, rsp: Rsp, answered: bool) {
        self.ifetch.in_flight = false;
        let ok = answered && !rsp.err;
        let slot = slot_index(CoreId::Seq);
        let Some(cache) = self.cores[slot].bus.icache.as_mut() else { return };
        let (line, bytes) = (cache.miss.unwrap_or(0), cache.line);
        let f = &mut self.ifetch;
        f.state = match f.state {
            State::Ctrl if ok && rsp.rdata & 1 == 1 => State::BaseLo,
            State::Ctrl => {
                f.dropped.get_or_insert(Dropped { cycle: self.stats.cycles, addr: line * bytes, no_ring: false });
                State::Stuck
            }
            State::BaseLo => {
                f.base = u64::from(rsp.rdata);
                State::BaseHi
            }
            State::BaseHi => {
                f.base |= u64::from(rsp.rdata) << 32;
                State::RingBase
            }
            State::RingBase => {
                f.ring.0 = rsp.rdata;
                State::RingLen
            }
            State::RingLen if ok && rsp.rdata == 0 => {
                f.dropped.get_or_insert(Dropped { cycle: self.stats.cycles, addr: line * bytes, no_ring: true });
                State::Stuck
            }
            State::RingLen => {
                f.ring.1 = rsp.rdata;
                State::RingTail
            }
            State::RingTail => {
                f.ring.2 = rsp.rdata % f.ring.1.max(1);
                State::Desc { k: 0 }
            }
            State::Desc { k } if k + 1 < FILL_DESC_WORDS => State::Desc { k: k + 1 },
            State::Desc { .. } => {
                let off = line * bytes;
                State::Copy { src: f.base + u64::from(off), dst: f.iram + off, left: bytes / 4 }
            }
            State::Copy { src, dst, left } => {
                f.words += u64::from(ok && req.write);
                if left > 1 {
                    State::Copy { src: src + 4, dst: dst + 4, left: left - 1 }
                } else {
                    State::Tail
                }
            }
            State::Tail => {
                cache.valid[line as usize] = true;
                cache.miss = None;
                f.fills += 1;
                f.filled_at.push(self.stats.cycles);
                State::Idle
            }
            s => s,
        };
        if !self.ifetch.busy() {
            self.hal_probe.1 = HalKind::Idle;
        }
    }
}
