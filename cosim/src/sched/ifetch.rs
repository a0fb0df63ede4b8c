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
//!   `enable` 1 it reads `engine_base_address` and writes the line's words,
//!   read from device memory at base + line offset, into the IRAM; the line
//!   is then valid and the fetch goes on.
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

/// A fill the engine dropped because `dma_ctrl.enable` was 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// The cycle `dma_ctrl` was read as disabled.
    pub cycle: u64,
    /// The IRAM address of the line the SEQ waits on.
    pub addr: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Idle,
    /// Reading `dma_ctrl`, then the base's low and high words.
    Ctrl,
    BaseLo,
    BaseHi,
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
    /// BAR0: `dma_ctrl`, `engine_base_address_lo/hi` of the POOL NX, the SEQ IRAM.
    regs: [u32; 3],
    iram: u32,
    base: u64,
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
        let regs = [reg("dma_ctrl")?, reg("engine_base_address_lo")?, reg("engine_base_address_hi")?];
        let iram = a.region("seq.iram").map_err(CosimError::ICache)?;
        self.ifetch = IFetch { regs, iram, ..IFetch::default() };
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
                f.dropped.get_or_insert(Dropped { cycle: self.stats.cycles, addr: line * bytes });
                State::Stuck
            }
            State::BaseLo => {
                f.base = u64::from(rsp.rdata);
                State::BaseHi
            }
            State::BaseHi => {
                f.base |= u64::from(rsp.rdata) << 32;
                let off = line * bytes;
                State::Copy { src: f.base + u64::from(off), dst: f.iram + off, left: bytes / 4 }
            }
            State::Copy { src, dst, left } => {
                f.words += u64::from(ok && req.write);
                if left > 1 {
                    State::Copy { src: src + 4, dst: dst + 4, left: left - 1 }
                } else {
                    cache.valid[line as usize] = true;
                    cache.miss = None;
                    f.fills += 1;
                    f.filled_at.push(self.stats.cycles);
                    State::Idle
                }
            }
            s => s,
        };
        if !self.ifetch.busy() {
            self.hal_probe.1 = HalKind::Idle;
        }
    }
}
