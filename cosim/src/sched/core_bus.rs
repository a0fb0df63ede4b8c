//! A core's memory bus in the co-simulation: where each of its accesses
//! goes (its RTL port, BAR0, core-local memory or the SoC port; the table
//! in [`super`]), the request it keeps in flight and the answers that came
//! back.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Fetch,
    Load,
    Store { wdata: u32, wstrb: u8 },
}

/// Where a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// The core's RTL memory port.
    Port,
    /// BAR0 at this address.
    Bar0(u32),
    /// A SoC address (resolved by the scheduler).
    Soc(u64),
    /// Forwarded to another die, waiting for its answer.
    Remote,
    /// The HW-decode port at this offset ([`HWD_PORT`], resolved by the scheduler).
    Hwd(u32),
    /// The top's address translation (POOL's windows, mem_window2) for this
    /// core address; a hit becomes a [`Via::Soc`] request.
    Xlat(u32),
}

impl Via {
    /// This kind's bit in a set of kinds (the cycle's [`Asked`]).
    pub(super) const fn bit(self) -> u8 {
        match self {
            Via::Port => 1,
            Via::Bar0(_) => 1 << 1,
            Via::Soc(_) => 1 << 2,
            Via::Remote => 1 << 3,
            Via::Hwd(_) => 1 << 4,
            Via::Xlat(_) => 1 << 5,
        }
    }
}

/// The kinds of [`Via`] that some core asks for and has not had taken, as
/// the cores left them this cycle: the scheduler's passes over the cores
/// for one kind ([`Cosim::resolve_soc`] and the others) skip a kind no
/// core asks for. A pass that turns a request into another kind adds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Asked(u8);

impl Asked {
    pub(super) fn add(&mut self, via: Via) {
        self.0 |= via.bit();
    }
    /// Some core asks for a `via` of this kind (its payload aside).
    pub(super) fn has(self, via: Via) -> bool {
        self.0 & via.bit() != 0
    }
}

/// One request: driven until taken, then awaiting its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pending {
    pub(super) kind: Kind,
    /// Core word address.
    pub(super) addr: u32,
    pub(super) via: Via,
    pub(super) accepted: bool,
}

/// What came back for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Answer {
    pub(super) kind: Kind,
    pub(super) addr: u32,
    pub(super) data: u32,
    pub(super) err: bool,
}

/// One of a core's two memories.
#[derive(Debug, Clone)]
pub enum Mem {
    /// The core's RTL memory port (Q7).
    Port,
    /// BAR0 from this base (the SEQ's memories in the top).
    Bar0 { base: u32 },
    /// Core-local storage (TOP_SP).
    Local(Vec<u8>),
}

enum Route {
    Via(Via),
    Iram(u32),
    Dram(u32),
    SocReg(u32),
    Fault,
}

/// A core's view of memory (see the module's table): answers from what came
/// back, otherwise issues the request and says `Pending`.
#[derive(Debug)]
pub struct CoreBus {
    pub(super) iram: Mem,
    pub(super) iram_size: u32,
    pub(super) dram: Mem,
    pub(super) dram_size: u32,
    pub(super) soc_addr: u64,
    /// The POOL control window: (its core base, the BAR0 address of the Q7 bundle).
    pub(super) ctrl_window: Option<(u32, u32)>,
    /// The core's requester number at the top's address translation (the
    /// SEQ 0, Q7 core n n + 1); None: the translated aperture faults.
    pub(super) xlat_who: Option<u8>,
    pub(super) pending: Option<Pending>,
    pub(super) answers: Vec<Answer>,
    /// A sub-word store to the core's own memory in the top, between its
    /// read and its write: (word address, the merged word).
    rmw: Option<(u32, u32)>,
    /// The SEQ's I-cache, when it is on (`ifetch.rs`).
    pub(super) icache: Option<ICache>,
}

impl CoreBus {
    pub fn new(iram: Mem, iram_size: u32, dram: Mem, dram_size: u32) -> CoreBus {
        CoreBus { iram, iram_size, dram, dram_size, soc_addr: 0, ctrl_window: None, xlat_who: None, pending: None, answers: Vec::new(), rmw: None, icache: None }
    }

    fn route(&self, addr: u32) -> Route {
        let mem = |m: &Mem, off: u32, local: fn(u32) -> Route| match m {
            Mem::Port => Route::Via(Via::Port),
            Mem::Bar0 { base } => Route::Via(Via::Bar0(base + off)),
            Mem::Local(_) => local(off),
        };
        if addr < self.iram_size {
            mem(&self.iram, addr, Route::Iram)
        } else if (DRAM_BASE..DRAM_BASE.saturating_add(self.dram_size)).contains(&addr) {
            mem(&self.dram, addr - DRAM_BASE, Route::Dram)
        } else if (SYSTEM_WINDOW..SYSTEM_WINDOW + SYSTEM_WINDOW_SIZE).contains(&addr) {
            Route::Via(Via::Bar0(addr - SYSTEM_WINDOW))
        } else if (SOC_PORT..SOC_PORT + 12).contains(&addr) {
            Route::SocReg(addr - SOC_PORT)
        } else if (HWD_PORT..HWD_PORT + 12).contains(&addr) {
            Route::Via(Via::Hwd(addr - HWD_PORT))
        } else if self.xlat_who.is_some() && (XLAT_APERTURE..XLAT_APERTURE + XLAT_APERTURE_SIZE).contains(&addr) {
            Route::Via(Via::Xlat(addr))
        } else if let Some(w) = self.ctrl_window.map(|(base, bundle)| (addr.wrapping_sub(base), bundle)).filter(|(w, _)| *w < CTRL_WINDOW_SIZE) {
            match w {
                (off, bundle) if off >= CTRL_WINDOW_Q7_BUNDLE => Route::Via(Via::Bar0(bundle + off - CTRL_WINDOW_Q7_BUNDLE)),
                _ => Route::Fault,
            }
        } else if matches!(self.iram, Mem::Port) {
            // The Q7 port decodes (and refuses) the rest itself.
            Route::Via(Via::Port)
        } else {
            Route::Fault
        }
    }

    /// `addr` is in one of the core's own memories that live in the top
    /// (the SEQ's IRAM and DRAM, reached over BAR0).
    fn own_in_top(&self, addr: u32) -> bool {
        (addr < self.iram_size && matches!(self.iram, Mem::Bar0 { .. }))
            || ((DRAM_BASE..DRAM_BASE.saturating_add(self.dram_size)).contains(&addr) && matches!(self.dram, Mem::Bar0 { .. }))
    }

    /// A sub-word store to the core's own memory in the top: BAR0 moves
    /// whole words, so it reads the word, merges the bytes and writes it
    /// back (two accesses; the memory is the core's alone, so nothing can
    /// come between them that a byte store would have kept).
    fn store_merged(&mut self, w: u32, via: Via, wdata: u32, wstrb: u8) -> Result<(), BusError> {
        let merged = match self.rmw.filter(|(a, _)| *a == w) {
            Some((_, m)) => m,
            None => {
                let old = self.word(Kind::Load, w, via)?;
                let mask = (0..4).filter(|b| wstrb >> b & 1 == 1).fold(0u32, |m, b| m | 0xff << (8 * b));
                let m = old & !mask | wdata & mask;
                self.rmw = Some((w, m));
                m
            }
        };
        let r = self.word(Kind::Store { wdata: merged, wstrb: 0xf }, w, via).map(|_| ());
        if !matches!(r, Err(BusError::Pending)) {
            self.rmw = None;
        }
        r
    }

    fn local(&mut self, iram: bool) -> &mut Vec<u8> {
        match if iram { &mut self.iram } else { &mut self.dram } {
            Mem::Local(v) => v,
            _ => unreachable!("route() gives Iram/Dram only for local memories"),
        }
    }

    fn local_word(&mut self, iram: bool, off: u32) -> u32 {
        let v = self.local(iram);
        let o = (off & !3) as usize;
        v.get(o..o + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn take(&mut self, kind: Kind, addr: u32) -> Option<Answer> {
        let i = self.answers.iter().position(|a| a.addr == addr && a.kind == kind)?;
        Some(self.answers.remove(i))
    }

    fn ask(&mut self, kind: Kind, addr: u32, via: Via) -> BusError {
        if self.pending.is_none() {
            self.pending = Some(Pending { kind, addr, via, accepted: false });
        }
        BusError::Pending
    }

    fn word(&mut self, kind: Kind, addr: u32, via: Via) -> Result<u32, BusError> {
        match self.take(kind, addr) {
            Some(a) if a.err => Err(BusError::Fault { addr }),
            Some(a) => Ok(a.data),
            None => Err(self.ask(kind, addr, via)),
        }
    }

    /// A fetch word if it is here (kept until the instruction completes).
    fn fetch_word(&mut self, w: u32) -> Option<Result<u32, BusError>> {
        // A Q7 core's fetch from its IRAM, the common case, decided at once.
        let route = if w < self.iram_size && matches!(self.iram, Mem::Port) { Route::Via(Via::Port) } else { self.route(w) };
        match route {
            Route::Iram(o) => Some(Ok(self.local_word(true, o))),
            Route::Dram(o) => Some(Ok(self.local_word(false, o))),
            Route::Via(Via::Hwd(_) | Via::Xlat(_)) => Some(Err(BusError::Fault { addr: w })),
            // An IRAM line the I-cache does not hold: wait for its fill.
            Route::Via(Via::Bar0(_)) if w < self.iram_size && self.icache.as_mut().is_some_and(|c| c.missed(w)) => None,
            Route::Via(via) => match self.answers.iter().find(|x| x.addr == w && matches!(x.kind, Kind::Fetch)) {
                Some(a) if a.err => Some(Err(BusError::Fault { addr: w })),
                Some(a) => Some(Ok(a.data)),
                None => {
                    self.ask(Kind::Fetch, w, via);
                    None
                }
            },
            Route::SocReg(_) | Route::Fault => Some(Err(BusError::Fault { addr: w })),
        }
    }

    /// The core finished an instruction (or took an exception) and goes on
    /// at `pc`: fetched words that hold the next instruction stay (a
    /// two-word fetch buffer), the others are used up.
    pub(super) fn end_instruction(&mut self, pc: u32) {
        let w = pc & !3;
        self.answers.retain(|a| !matches!(a.kind, Kind::Fetch) || a.addr == w || a.addr == w.wrapping_add(4));
    }
}

impl Bus for CoreBus {
    fn fetch(&mut self, addr: u32, buf: &mut [u8; 3]) -> Result<usize, BusError> {
        let w0 = addr & !3;
        let two = (addr & 3) > 1;
        // Both words must be here before either is used.
        let lo = match self.fetch_word(w0) {
            None => return Err(BusError::Pending),
            Some(r) => r?,
        };
        let hi = if two {
            match self.fetch_word(w0 + 4) {
                None => return Err(BusError::Pending),
                Some(r) => r?,
            }
        } else {
            0
        };
        let bytes = (u64::from(hi) << 32 | u64::from(lo)).to_le_bytes();
        let off = (addr & 3) as usize;
        buf.copy_from_slice(&bytes[off..off + 3]);
        Ok(3)
    }

    fn load(&mut self, addr: u32, size: Size) -> Result<u32, BusError> {
        let w = match self.route(addr & !3) {
            Route::Iram(o) => self.local_word(true, o),
            Route::Dram(o) => self.local_word(false, o),
            Route::SocReg(0) => self.soc_addr as u32,
            Route::SocReg(4) => (self.soc_addr >> 32) as u32,
            Route::SocReg(_) => self.word(Kind::Load, addr & !3, Via::Soc(self.soc_addr))?,
            Route::Via(via) => self.word(Kind::Load, addr & !3, via)?,
            Route::Fault => return Err(BusError::Fault { addr }),
        };
        let sh = 8 * (addr & 3);
        let n = size as u32;
        Ok(if n == 4 { w } else { (w >> sh) & ((1u32 << (8 * n)) - 1) })
    }

    fn store(&mut self, addr: u32, size: Size, value: u32) -> Result<(), BusError> {
        let n = size as u32;
        let sh = 8 * (addr & 3);
        let wstrb = (((1u32 << n) - 1) << (addr & 3)) as u8;
        let wdata = if n == 4 { value } else { (value & ((1u32 << (8 * n)) - 1)) << sh };
        let kind = Kind::Store { wdata, wstrb };
        match self.route(addr & !3) {
            Route::Iram(o) | Route::Dram(o) => {
                let iram = matches!(self.route(addr & !3), Route::Iram(_));
                let v = self.local(iram);
                for k in 0..n as usize {
                    if let Some(b) = v.get_mut(o as usize + (addr & 3) as usize + k) {
                        *b = (value >> (8 * k)) as u8;
                    }
                }
                Ok(())
            }
            Route::SocReg(r @ (0 | 4)) if wstrb == 0xf => {
                let (lo, hi) = (self.soc_addr as u32, (self.soc_addr >> 32) as u32);
                self.soc_addr = if r == 0 { u64::from(hi) << 32 | u64::from(value) } else { u64::from(value) << 32 | u64::from(lo) };
                Ok(())
            }
            Route::SocReg(8) if wstrb == 0xf => self.word(kind, addr & !3, Via::Soc(self.soc_addr)).map(|_| ()),
            // BAR0 and the SoC port move whole words; the core's own memory merges.
            Route::Via(via @ Via::Bar0(_)) if wstrb != 0xf && self.own_in_top(addr) => self.store_merged(addr & !3, via, wdata, wstrb),
            Route::Via(Via::Bar0(_) | Via::Hwd(_) | Via::Xlat(_)) | Route::SocReg(_) if wstrb != 0xf => Err(BusError::Fault { addr }),
            Route::Via(via) => self.word(kind, addr & !3, via).map(|_| ()),
            Route::SocReg(_) | Route::Fault => Err(BusError::Fault { addr }),
        }
    }
}

pub(super) fn port_in(p: Pending) -> PortIn {
    match p.kind {
        Kind::Fetch => PortIn { if_valid: true, if_addr: p.addr, ..PortIn::default() },
        Kind::Load => PortIn { ls_valid: true, ls_addr: p.addr, ..PortIn::default() },
        Kind::Store { wdata, wstrb } => PortIn { ls_valid: true, ls_write: true, ls_addr: p.addr, ls_wdata: wdata, ls_wstrb: wstrb, ..PortIn::default() },
    }
}

/// Note acceptance (`ready` while driven) and answers (`rvalid`).
pub(super) fn take_port(bus: &mut CoreBus, o: &PortOut) {
    let Some(p) = bus.pending.filter(|p| p.via == Via::Port) else { return };
    let fetch = matches!(p.kind, Kind::Fetch);
    if p.accepted {
        let (rvalid, rdata, err) = if fetch { (o.if_rvalid, o.if_rdata, o.if_err) } else { (o.ls_rvalid, o.ls_rdata, o.ls_err) };
        if rvalid {
            bus.answers.push(Answer { kind: p.kind, addr: p.addr, data: rdata, err });
            bus.pending = None;
        }
    } else if if fetch { o.if_ready } else { o.ls_ready } {
        bus.pending = Some(Pending { accepted: true, ..p });
    }
}
