//! Golden model of the SEQ DMA engine (`hdl/src/seq_dma.rs`, DIGEST §5),
//! cycle by cycle: its SRAM and status window, the ring bookkeeping
//! (pending tail increments, hardware head, done counters), the descriptor
//! walk with its 2-cycle SRAM accesses that wait for the bus, the ops
//! (copy, add, SoC write through the system master port), and the
//! completion doorbell into the TOP_SP EVT_SEM INC slot.

use crate::csr::{Req, Rsp};
use tpb_regmap::layout::IncSlot;

pub use tpb_spec::seq_dma::{len_op, ERROR, ERR_ALL, ERR_COMPLETION, ERR_EMPTY_RING, ERR_OP, ERR_RANGE, ERR_SOC, OP_ADD, OP_COPY, OP_SOC_WRITE, SRAM_AW, STATUS};
use tpb_spec::seq_dma::{BUSY, RX_DONE, RX_HW_HEAD, RX_PENDING, STATUS_SPAN, TX_DONE, TX_HW_HEAD, TX_PENDING};

/// What the engine decided at an edge (before the ring bookkeeping).
struct Edge {
    next_read: Option<u32>,
    wrote: bool,
    retire: bool,
    err_set: u32,
    state: State,
    waiting: bool,
}

/// One ring's registers as the POOL NX bundle drives them this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ring {
    pub base: u32,
    pub length: u32,
    pub head: u32,
    pub tail_inc: u32,
    pub tail_inc_pulse: bool,
}

/// The engine's inputs during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Inputs {
    pub enable: bool,
    pub rx: Ring,
    pub tx: Ring,
    pub db_ready: bool,
    /// The system master's answer to the SoC write it holds (`m_valid`):
    /// taken at this edge, with `m_err` for an error.
    pub m_ack: bool,
    pub m_err: bool,
}

/// The doorbell and busy outputs during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outputs {
    pub db_valid: bool,
    pub db_index: u8,
    pub busy: bool,
    pub m: Master,
}

/// The system master port during a cycle: a SoC write of `wdata` to
/// `addr` while `valid`, held until the edge that sees `Inputs::m_ack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Master {
    pub valid: bool,
    pub addr: u64,
    pub wdata: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Desc,
    Read,
    Write,
    Done,
    /// OP_ADD: read the destination word to add the source word to.
    AddRead,
    /// OP_SOC_WRITE: read the two words of the SoC address.
    SocPtr,
    /// OP_SOC_WRITE: the word's write on the system master port.
    SocWrite,
}

#[derive(Debug, Clone, Copy, Default)]
struct RingState {
    hw_head: u32,
    pending: u32,
    done: u32,
}

/// The model.
#[derive(Debug, Clone)]
pub struct SeqDmaModel {
    sram: Vec<u32>,
    aw: usize,
    rings: [RingState; 2],
    error: u32,
    enable_q: bool,
    state: State,
    ring_tx: bool,
    desc_k: u32,
    waiting: bool,
    desc: [u32; 4],
    /// The descriptor's op (word 2 `[17:16]`).
    op: u32,
    /// The SoC address of an OP_SOC_WRITE (low word, high word).
    soc: [u32; 2],
    count: u16,
    data: u32,
    /// The engine's SRAM read taken at the last edge (`Some(word)`).
    a_read: Option<u32>,
    /// The engine's SRAM write taken at the last edge.
    a_wrote_last: bool,
    rsp: Rsp,
    slot: IncSlot,
}

impl SeqDmaModel {
    /// An engine with a `2^aw`-word SRAM whose completions are INC slots
    /// `slot` (`TopLayout::inc_slot`), in its reset state.
    pub fn new(aw: usize, slot: IncSlot) -> Self {
        SeqDmaModel {
            slot,
            sram: vec![0; 1 << aw],
            aw,
            rings: [RingState::default(); 2],
            error: 0,
            enable_q: false,
            state: State::Idle,
            ring_tx: false,
            desc_k: 0,
            waiting: false,
            desc: [0; 4],
            op: 0,
            soc: [0; 2],
            count: 0,
            data: 0,
            a_read: None,
            a_wrote_last: false,
            rsp: Rsp::default(),
        }
    }

    fn in_sram(&self, addr: u32) -> bool {
        addr < 4 << self.aw
    }

    fn word(&self, addr: u32) -> usize {
        ((addr >> 2) as usize) & ((1 << self.aw) - 1)
    }

    /// Outputs during the current cycle.
    pub fn outputs(&self) -> Outputs {
        let done_addr = self.desc[3];
        let soc = (u64::from(self.soc[1]) << 32 | u64::from(self.soc[0])).wrapping_add(u64::from(self.count) << 2);
        Outputs {
            db_valid: self.state == State::Done && done_addr != 0 && self.slot.index(done_addr).is_some(),
            db_index: (done_addr >> 2) as u8,
            busy: self.state != State::Idle,
            m: Master { valid: self.state == State::SocWrite, addr: soc, wdata: self.data },
        }
    }

    /// The bus response registered at the last edge.
    pub fn rsp(&self) -> Rsp {
        self.rsp
    }

    /// (hw head, pending, done) of the RX (`tx = false`) or TX ring.
    pub fn ring(&self, tx: bool) -> (u32, u32, u32) {
        let r = self.rings[tx as usize];
        (r.hw_head, r.pending, r.done)
    }

    pub fn error(&self) -> u32 {
        self.error
    }

    /// One rising edge.
    pub fn step(&mut self, reset: bool, bus: Option<Req>, inp: &Inputs) {
        let (rsp, mut error, bus_sram) = self.bus_access(reset, bus);
        let Edge { next_read, wrote, retire, mut err_set, mut state, mut waiting } = self.engine(inp, bus_sram);
        let mut rings = self.rings;
        if retire {
            state = State::Idle;
            let (r, len) = if self.ring_tx { (&mut rings[1], inp.tx.length) } else { (&mut rings[0], inp.rx.length) };
            r.hw_head = if r.hw_head.wrapping_add(1) == len { 0 } else { r.hw_head.wrapping_add(1) };
            r.done = r.done.wrapping_add(1);
        }
        for (k, ring) in [inp.rx, inp.tx].iter().enumerate() {
            let mut add = 0;
            if inp.enable && ring.tail_inc_pulse {
                if ring.length == 0 {
                    err_set |= ERR_EMPTY_RING;
                } else {
                    add = ring.tail_inc;
                }
            }
            let dec = (retire && self.ring_tx == (k == 1)) as u32;
            rings[k].pending = self.rings[k].pending.wrapping_add(add).wrapping_sub(dec);
        }
        error |= err_set;
        if inp.enable && !self.enable_q {
            rings[0].hw_head = inp.rx.head;
            rings[1].hw_head = inp.tx.head;
        }
        if !inp.enable {
            rings[0].pending = 0;
            rings[1].pending = 0;
            state = State::Idle;
            waiting = false;
        }
        self.enable_q = inp.enable;
        self.rings = rings;
        self.error = error;
        self.state = state;
        self.waiting = waiting;
        self.a_read = next_read;
        self.a_wrote_last = wrote;
        self.rsp = rsp;
        if reset {
            // As the RTL: the SRAM (a write in the reset cycle included) and
            // the descriptor registers keep their contents; the state,
            // counters, errors and responses clear.
            self.a_read = None;
            self.a_wrote_last = false;
            self.rings = [RingState::default(); 2];
            self.error = 0;
            self.enable_q = false;
            self.state = State::Idle;
            self.waiting = false;
            self.rsp = Rsp::default();
        }
    }

    /// The bus access of this edge: its response, the error bits after it,
    /// and whether it used the SRAM (the engine then waits).
    fn bus_access(&mut self, reset: bool, bus: Option<Req>) -> (Rsp, u32, bool) {
        let aligned = bus.is_some_and(|b| b.addr & 3 == 0);
        let bus_sram = !reset && aligned && bus.is_some_and(|b| self.in_sram(b.addr));
        let bus_status = !reset && aligned && bus.is_some_and(|b| (STATUS..STATUS + STATUS_SPAN).contains(&b.addr));
        let mut rsp = Rsp { valid: bus.is_some(), err: bus.is_some() && !bus_sram && !bus_status, rdata: 0 };
        let mut error = self.error;
        if let Some(b) = bus {
            if bus_sram {
                let w = self.word(b.addr);
                if b.write {
                    self.sram[w] = b.wdata;
                } else {
                    rsp.rdata = self.sram[w];
                }
            } else if bus_status {
                if b.addr == ERROR {
                    if b.write {
                        error &= !(b.wdata & ERR_ALL);
                    } else {
                        rsp.rdata = self.error;
                    }
                } else if b.write {
                    rsp.err = true;
                } else {
                    let (rx, tx) = (self.rings[0], self.rings[1]);
                    rsp.rdata = match b.addr {
                        RX_HW_HEAD => rx.hw_head,
                        RX_PENDING => rx.pending,
                        RX_DONE => rx.done,
                        TX_HW_HEAD => tx.hw_head,
                        TX_PENDING => tx.pending,
                        TX_DONE => tx.done,
                        BUSY => (self.state != State::Idle) as u32,
                        _ => unreachable!("bus_status covers the 8 status words"),
                    };
                }
            }
        }
        (rsp, error, bus_sram)
    }

    /// The engine's step from the state before this edge.
    fn engine(&mut self, inp: &Inputs, bus_sram: bool) -> Edge {
        let ring = if self.ring_tx { inp.tx } else { inp.rx };
        let rs = self.rings[self.ring_tx as usize];
        let desc_addr = ring.base.wrapping_add(rs.hw_head << 4).wrapping_add(self.desc_k << 2);
        let src = self.desc[0].wrapping_add((self.count as u32) << 2);
        let dst = self.desc[1].wrapping_add((self.count as u32) << 2);
        let a_rvalid = self.a_read.is_some() || self.a_wrote_last;
        let a_rdata = self.a_read.unwrap_or(0);
        let mut next_read = None;
        let mut wrote = false;
        let mut retire = false;
        let mut err_set = 0;
        let mut state = self.state;
        let mut waiting = self.waiting;
        match self.state {
            State::Idle => {
                if inp.enable && self.rings[0].pending != 0 {
                    (self.ring_tx, state, self.desc_k, waiting) = (false, State::Desc, 0, false);
                } else if inp.enable && self.rings[1].pending != 0 {
                    (self.ring_tx, state, self.desc_k, waiting) = (true, State::Desc, 0, false);
                }
            }
            State::Desc => {
                if self.waiting {
                    if a_rvalid {
                        waiting = false;
                        self.desc[self.desc_k as usize] = a_rdata;
                        if self.desc_k == 2 {
                            self.desc[2] &= 0xffff;
                            self.op = (a_rdata >> tpb_spec::seq_dma::OP_SHIFT) & 3;
                        }
                        if self.desc_k == 3 {
                            self.count = 0;
                            match self.op {
                                OP_SOC_WRITE => state = State::SocPtr,
                                3 => {
                                    err_set = ERR_OP;
                                    retire = true;
                                }
                                _ => state = State::Read,
                            }
                        }
                        self.desc_k = (self.desc_k + 1) & 3;
                    }
                } else if !self.in_sram(desc_addr) {
                    err_set = ERR_RANGE;
                    retire = true;
                } else if !bus_sram {
                    waiting = true;
                    next_read = Some(self.sram[self.word(desc_addr)]);
                }
            }
            State::Read => {
                if self.count as u32 == self.desc[2] {
                    state = State::Done;
                } else if self.waiting {
                    if a_rvalid {
                        waiting = false;
                        self.data = a_rdata;
                        state = match self.op {
                            OP_ADD => State::AddRead,
                            OP_SOC_WRITE => State::SocWrite,
                            _ => State::Write,
                        };
                    }
                } else if !self.in_sram(src) || (self.op != OP_SOC_WRITE && !self.in_sram(dst)) {
                    err_set = ERR_RANGE;
                    retire = true;
                } else if !bus_sram {
                    waiting = true;
                    next_read = Some(self.sram[self.word(src)]);
                }
            }
            State::Write => {
                if self.waiting {
                    if a_rvalid {
                        waiting = false;
                        self.count = self.count.wrapping_add(1);
                        state = State::Read;
                    }
                } else if !bus_sram {
                    waiting = true;
                    wrote = true;
                    let w = self.word(dst);
                    self.sram[w] = self.data;
                }
            }
            State::AddRead => {
                if self.waiting {
                    if a_rvalid {
                        waiting = false;
                        self.data = self.data.wrapping_add(a_rdata);
                        state = State::Write;
                    }
                } else if !bus_sram {
                    waiting = true;
                    next_read = Some(self.sram[self.word(dst)]);
                }
            }
            State::SocPtr => {
                let ptr = self.desc[1].wrapping_add(self.desc_k << 2);
                if self.waiting {
                    if a_rvalid {
                        waiting = false;
                        self.soc[(self.desc_k & 1) as usize] = a_rdata;
                        if self.desc_k == 1 {
                            state = State::Read;
                        }
                        self.desc_k = (self.desc_k + 1) & 3;
                    }
                } else if !self.in_sram(ptr) {
                    err_set = ERR_RANGE;
                    retire = true;
                } else if !bus_sram {
                    waiting = true;
                    next_read = Some(self.sram[self.word(ptr)]);
                }
            }
            State::SocWrite => {
                if inp.m_ack && inp.m_err {
                    err_set = ERR_SOC;
                    retire = true;
                } else if inp.m_ack {
                    self.count = self.count.wrapping_add(1);
                    state = State::Read;
                }
            }
            State::Done => {
                let a = self.desc[3];
                if a == 0 {
                    retire = true;
                } else if self.slot.index(a).is_some() {
                    if inp.db_ready {
                        retire = true;
                    }
                } else {
                    err_set = ERR_COMPLETION;
                    retire = true;
                }
            }
        }
        Edge { next_read, wrote, retire, err_set, state, waiting }
    }
}
