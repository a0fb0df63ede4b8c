//! Golden model of the HW-decode CAM (`hdl/src/hw_decode.rs`; DIGEST §4).
//! Same bus map, same lookup timing: a lookup taken at an edge compares
//! against the entries as they were before that edge and reads the handler
//! table as it was before that edge; its result enters the FIFO at the next
//! edge.

use super::evt_sem::BusReq;
use std::collections::VecDeque;

pub use tpb_spec::hw_decode::{status, STATUS};
/// FIFO depth.
pub const FIFO_DEPTH: usize = 4;

/// One programmed entry (the bytes as written, and the masks in lookup order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Entry {
    valid: bool,
    key_op: u8,
    key_func: u8,
    mask_w0: u8,
    mask_w1: u8,
    index: u16,
}

/// A lookup result as it leaves the FIFO.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LookupResult {
    pub hit: bool,
    pub entry: u8,
    pub index: u16,
    /// Handler table word at `index` (0 on a miss).
    pub handler: u32,
}

/// Outputs during a cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outputs {
    pub rsp_valid: bool,
    pub rsp_rdata: u32,
    pub rsp_err: bool,
    /// FIFO head, when `fifo_valid`.
    pub fifo_valid: bool,
    pub head: LookupResult,
    pub miss: bool,
    pub miss_irq: bool,
    pub lookup_ready: bool,
}

/// The model of a CAM with `entries` entries and a `2^tw`-word table.
#[derive(Debug, Clone)]
pub struct HwDecodeModel {
    entries: Vec<Entry>,
    table: Vec<u32>,
    tw: usize,
    sunda_order: bool,
    miss: bool,
    miss_op: u8,
    miss_func: u8,
    miss_irq: bool,
    rsp: (bool, u32, bool),
    l1: Option<LookupResult>,
    fifo: VecDeque<LookupResult>,
}

impl HwDecodeModel {
    pub fn new(entries: usize, tw: usize, sunda_order: bool) -> Self {
        HwDecodeModel {
            entries: vec![Entry::default(); entries],
            table: vec![0; 1 << tw],
            tw,
            sunda_order,
            miss: false,
            miss_op: 0,
            miss_func: 0,
            miss_irq: false,
            rsp: (false, 0, false),
            l1: None,
            fifo: VecDeque::new(),
        }
    }

    /// Table offset (aligned to its size).
    pub fn table_offset(&self) -> u32 {
        4 << self.tw
    }

    pub fn lookup_ready(&self) -> bool {
        self.fifo.len() + self.l1.is_some() as usize != FIFO_DEPTH
    }

    pub fn outputs(&self) -> Outputs {
        Outputs {
            rsp_valid: self.rsp.0,
            rsp_rdata: self.rsp.1,
            rsp_err: self.rsp.2,
            fifo_valid: !self.fifo.is_empty(),
            head: self.fifo.front().copied().unwrap_or_default(),
            miss: self.miss,
            miss_irq: self.miss_irq,
            lookup_ready: self.lookup_ready(),
        }
    }

    /// Lowest matching valid entry.
    pub fn lookup(&self, opcode: u8, func: u8) -> Option<(u8, u16)> {
        self.entries.iter().enumerate().find_map(|(i, e)| {
            let (m_op, m_func) = if self.sunda_order { (e.mask_w1, e.mask_w0) } else { (e.mask_w0, e.mask_w1) };
            (e.valid && (opcode ^ e.key_op) & m_op == 0 && (func ^ e.key_func) & m_func == 0).then_some((i as u8, e.index))
        })
    }

    /// One rising edge. Returns whether the lookup (if any) was taken.
    pub fn step(&mut self, reset: bool, bus: Option<BusReq>, lookup: Option<(u8, u8)>, pop: bool) -> bool {
        let take = lookup.is_some() && self.lookup_ready();
        // Lookup and table read see the state before this edge.
        let result = lookup.filter(|_| take).map(|(op, func)| match self.lookup(op, func) {
            Some((entry, index)) => LookupResult { hit: true, entry, index, handler: self.table[index as usize & ((1 << self.tw) - 1)] },
            None => LookupResult { hit: false, entry: 0, index: 0, handler: 0 },
        });
        // FIFO: push the previous lookup, pop the head.
        let popped = pop && !self.fifo.is_empty();
        if popped {
            self.fifo.pop_front();
        }
        if let Some(r) = self.l1.take() {
            self.fifo.push_back(r);
        }
        self.l1 = result;
        // Bus.
        let mut rsp = (false, 0u32, false);
        if let Some(b) = bus {
            rsp = (true, 0, true);
            let a = b.addr;
            let n = self.entries.len() as u32;
            if a & 3 == 0 {
                if a == STATUS {
                    rsp.2 = false;
                    if b.write {
                        if b.wdata & status::MISS_MASK != 0 {
                            self.miss = false;
                        }
                    } else {
                        rsp.1 = (self.miss as u32) << status::MISS_SHIFT | (self.miss_op as u32) << status::OPCODE_SHIFT | (self.miss_func as u32) << status::FUNC_SHIFT;
                    }
                } else if a >= self.table_offset() && a < 2 * self.table_offset() {
                    rsp.2 = false;
                    if b.write {
                        let k = ((a >> 2) as usize) & ((1 << self.tw) - 1);
                        self.table[k] = b.wdata;
                    }
                } else if a < n * 16 {
                    rsp.2 = false;
                    let e = &mut self.entries[(a / 16) as usize];
                    match ((a >> 2) & 3, b.write) {
                        (0, true) => {
                            e.valid = b.wdata & 1 != 0;
                            e.key_op = (b.wdata >> 8) as u8;
                            e.key_func = (b.wdata >> 16) as u8;
                            e.mask_w0 = (b.wdata >> 24) as u8;
                        }
                        (0, false) => rsp.1 = e.valid as u32 | (e.key_op as u32) << 8 | (e.key_func as u32) << 16 | (e.mask_w0 as u32) << 24,
                        (1, true) => {
                            e.mask_w1 = b.wdata as u8;
                            e.index = (b.wdata >> 16) as u16;
                        }
                        (1, false) => rsp.1 = e.mask_w1 as u32 | (e.index as u32) << 16,
                        _ => {}
                    }
                }
            }
        }
        self.miss_irq = false;
        if let Some(r) = result {
            if !r.hit {
                let (op, func) = lookup.expect("result implies lookup");
                self.miss = true;
                self.miss_irq = true;
                self.miss_op = op;
                self.miss_func = func;
            }
        }
        self.rsp = rsp;
        if reset {
            for e in &mut self.entries {
                e.valid = false;
            }
            self.rsp = (false, 0, false);
            self.miss = false;
            self.miss_irq = false;
            self.l1 = None;
            self.fifo.clear();
        }
        take && !reset
    }
}
