//! Golden model of the Q7 cluster fabric (`hdl/src/q7_cluster.rs`, DIGEST
//! §2.3, §5): 8 cores' IRAM/DRAM, the BAR0 programmed-I/O path and the
//! run-stall gated per-core memory ports, cycle by cycle.
//!
//! Contract (the block's `//!` header): a PIO request is answered in the
//! next cycle; PIO has priority over a core's ports on the same memory, a
//! load/store to IRAM over that core's fetch; a port's request is taken on
//! an edge where it is valid and ready and answered in the next cycle;
//! misaligned or unmapped addresses are taken and answered with an error;
//! while its run-stall bit (or reset) is set a core's ports are not ready.

use crate::csr::{Req, Rsp};
use tpb_spec::core_map::DRAM_BASE;

/// Cores in the cluster.
pub const CORES: usize = 8;

/// The BAR0 layout and the built memory sizes (word-address bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub stride: u32,
    pub dram_offset: u32,
    pub iram_bits: usize,
    pub dram_bits: usize,
    /// The IRAM and DRAM regions of the map (bytes): a memory built smaller
    /// reads as zero past its built size and takes writes of zero there.
    pub iram_region: u32,
    pub dram_region: u32,
}

impl Layout {
    fn iram_bytes(&self) -> u32 {
        4 << self.iram_bits
    }
    fn dram_bytes(&self) -> u32 {
        4 << self.dram_bits
    }
}

/// What a core drives on its two ports during a cycle (the RTL's input pins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortIn {
    pub if_valid: bool,
    pub if_addr: u32,
    pub ls_valid: bool,
    pub ls_write: bool,
    pub ls_addr: u32,
    pub ls_wdata: u32,
    pub ls_wstrb: u8,
}

/// What a core's ports show during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortOut {
    pub if_ready: bool,
    pub if_rvalid: bool,
    pub if_rdata: u32,
    pub if_err: bool,
    pub ls_ready: bool,
    pub ls_rvalid: bool,
    pub ls_rdata: u32,
    pub ls_err: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mem {
    Iram(usize),
    Dram(usize),
}

#[derive(Debug, Clone)]
struct Core {
    iram: Vec<u32>,
    dram: Vec<u32>,
    /// Registered parts of the port outputs.
    out: PortOut,
}

/// The model.
#[derive(Debug, Clone)]
pub struct Q7ClusterModel {
    layout: Layout,
    cores: Vec<Core>,
    rsp: Rsp,
}

fn merge(old: u32, wdata: u32, wstrb: u8) -> u32 {
    let mut v = old;
    for b in 0..4 {
        if wstrb >> b & 1 != 0 {
            let m = 0xffu32 << (8 * b);
            v = (v & !m) | (wdata & m);
        }
    }
    v
}

impl Q7ClusterModel {
    pub fn new(layout: Layout) -> Self {
        let core = Core { iram: vec![0; 1 << layout.iram_bits], dram: vec![0; 1 << layout.dram_bits], out: PortOut::default() };
        Q7ClusterModel { layout, cores: vec![core; CORES], rsp: Rsp::default() }
    }

    /// Whether a PIO offset lies in a memory's region past what is built.
    fn past_built(&self, addr: u32) -> bool {
        let off = addr % self.layout.stride;
        (addr & 3 == 0 && ((addr / self.layout.stride) as usize) < CORES)
            && ((off >= self.layout.iram_bytes() && off < self.layout.iram_region)
                || (off >= self.layout.dram_offset + self.layout.dram_bytes() && off < self.layout.dram_offset + self.layout.dram_region))
    }

    /// Which core and memory word a PIO offset (from the cluster base) reaches.
    fn pio_target(&self, addr: u32) -> Option<(usize, Mem)> {
        if addr & 3 != 0 {
            return None;
        }
        let core = (addr / self.layout.stride) as usize;
        let off = addr % self.layout.stride;
        if core >= CORES {
            return None;
        }
        if off < self.layout.iram_bytes() {
            return Some((core, Mem::Iram((off / 4) as usize)));
        }
        if off & !(self.layout.dram_bytes() - 1) == self.layout.dram_offset {
            return Some((core, Mem::Dram(((off - self.layout.dram_offset) / 4) as usize)));
        }
        None
    }

    /// A load/store address in the core's local map.
    fn ls_target(&self, addr: u32) -> Option<Mem> {
        if addr & 3 != 0 {
            return None;
        }
        if addr < self.layout.iram_bytes() {
            return Some(Mem::Iram((addr / 4) as usize));
        }
        if addr & !(self.layout.dram_bytes() - 1) == DRAM_BASE {
            return Some(Mem::Dram(((addr - DRAM_BASE) / 4) as usize));
        }
        None
    }

    fn if_bad(&self, addr: u32) -> bool {
        addr & 3 != 0 || addr >= self.layout.iram_bytes()
    }

    /// The combinational `(if_ready, ls_ready)` of every core for this cycle's inputs.
    pub fn ready(&self, reset: bool, pio: Option<Req>, run_stall: u8, ins: &[PortIn; CORES]) -> [(bool, bool); CORES] {
        let pio_t = pio.filter(|_| !reset).and_then(|r| self.pio_target(r.addr));
        std::array::from_fn(|n| {
            let stall = run_stall >> n & 1 != 0 || reset;
            let iram_pio = matches!(pio_t, Some((c, Mem::Iram(_))) if c == n);
            let dram_pio = matches!(pio_t, Some((c, Mem::Dram(_))) if c == n);
            let p = &ins[n];
            let ls_t = self.ls_target(p.ls_addr);
            let ls_iram = matches!(ls_t, Some(Mem::Iram(_)));
            let if_ready = !stall && (self.if_bad(p.if_addr) || (!iram_pio && (!p.ls_valid || !ls_iram)));
            let ls_ready = !stall
                && match ls_t {
                    Some(Mem::Iram(_)) => !iram_pio,
                    Some(Mem::Dram(_)) => !dram_pio,
                    None => true,
                };
            (if_ready, ls_ready)
        })
    }

    /// The port outputs visible during this cycle (readies for these inputs).
    pub fn outputs(&self, reset: bool, pio: Option<Req>, run_stall: u8, ins: &[PortIn; CORES]) -> [PortOut; CORES] {
        let ready = self.ready(reset, pio, run_stall, ins);
        std::array::from_fn(|n| PortOut { if_ready: ready[n].0, ls_ready: ready[n].1, ..self.cores[n].out })
    }

    /// The PIO response registered at the last edge.
    pub fn rsp(&self) -> Rsp {
        self.rsp
    }

    /// A word of core `n`'s IRAM or DRAM (debug peek).
    pub fn peek(&self, core: usize, dram: bool, word: usize) -> u32 {
        let c = &self.cores[core];
        if dram {
            c.dram[word]
        } else {
            c.iram[word]
        }
    }

    /// One rising edge.
    pub fn step(&mut self, reset: bool, pio: Option<Req>, run_stall: u8, ins: &[PortIn; CORES]) {
        let ready = self.ready(reset, pio, run_stall, ins);
        let pio = pio.filter(|_| !reset);
        let pio_t = pio.and_then(|r| self.pio_target(r.addr));
        // PIO.
        // Past the built size: reads give 0, writes of 0 are taken (and dropped).
        let past = pio.is_some_and(|r| pio_t.is_none() && self.past_built(r.addr) && (!r.write || r.wdata == 0));
        let mut rsp = Rsp { valid: pio.is_some() && pio_t.is_none(), err: pio.is_some() && pio_t.is_none() && !past, rdata: 0 };
        if let (Some(r), Some((n, m))) = (pio, pio_t) {
            rsp.valid = true;
            let c = &mut self.cores[n];
            let cell = match m {
                Mem::Iram(w) => &mut c.iram[w],
                Mem::Dram(w) => &mut c.dram[w],
            };
            if r.write {
                *cell = r.wdata;
            } else {
                rsp.rdata = *cell;
            }
        }
        self.rsp = rsp;
        // Core ports.
        for (n, p) in ins.iter().enumerate() {
            let ls_t = self.ls_target(p.ls_addr);
            let if_bad = self.if_bad(p.if_addr);
            let (if_ready, ls_ready) = ready[n];
            let mut out = PortOut::default();
            if p.ls_valid && ls_ready {
                out.ls_rvalid = true;
                match ls_t {
                    None => out.ls_err = true,
                    Some(m) => {
                        let c = &mut self.cores[n];
                        let cell = match m {
                            Mem::Iram(w) => &mut c.iram[w],
                            Mem::Dram(w) => &mut c.dram[w],
                        };
                        if p.ls_write {
                            *cell = merge(*cell, p.ls_wdata, p.ls_wstrb);
                        } else {
                            out.ls_rdata = *cell;
                        }
                    }
                }
            }
            if p.if_valid && if_ready {
                out.if_rvalid = true;
                if if_bad {
                    out.if_err = true;
                } else {
                    out.if_rdata = self.cores[n].iram[(p.if_addr / 4) as usize];
                }
            }
            if reset {
                out = PortOut::default();
            }
            self.cores[n].out = out;
        }
    }
}
