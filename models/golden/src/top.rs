//! Golden model of a TPB top (`hdl/src/top/`), cycle by cycle, composed
//! of the block models: [`CsrModel`] per generated register block and
//! engine, [`EvtSemModel`] per engine, [`Q7ClusterModel`], [`SeqDmaModel`],
//! [`HwDecodeModel`] and plain memories. The BAR0 decode is the map's
//! [`TopLayout::decode`], the layout the RTL top takes its constants from.

use super::evt_sem::{DbReq, EvtSemModel};
use super::hw_decode::{self, HwDecodeModel};
use super::q7_cluster::{self, PortIn, PortOut, Q7ClusterModel, CORES};
use super::seq_dma::{self, SeqDmaModel};
use crate::csr::{CsrModel, Req, Rsp};
use crate::notific::{self, NotificModel};
use crate::timestamp::Timestamp;
use std::collections::BTreeMap;
pub use tpb_regmap::layout::ENGINES;
use tpb_regmap::layout::{Dest, LayoutError, TopLayout, POOL, TOP_SP};
use tpb_regmap::{ArchParams, RegMap};
use tpb_spec::nx_intr;

/// Word-address bits of the memories a top builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemBits {
    pub q7_iram: usize,
    pub q7_dram: usize,
    pub seq: usize,
    pub ctrl_spad: usize,
    pub slot_spad: usize,
    pub dma: usize,
}

fn bits(bytes: u64) -> usize {
    (bytes / 4).trailing_zeros() as usize
}

impl MemBits {
    /// Full size: every memory as large as its region in `arch.toml`.
    pub fn full(p: &ArchParams) -> MemBits {
        MemBits {
            q7_iram: bits(p.q7.pooling.iram_size),
            q7_dram: bits(p.q7.pooling.dram_size),
            seq: bits(p.bar0.seq_iram.size),
            ctrl_spad: bits(p.top_sp.spad_ctrl_size.unwrap_or(0) as u64),
            slot_spad: bits(p.top_sp.spad_slot_size.unwrap_or(0) as u64),
            dma: seq_dma::SRAM_AW,
        }
    }
    /// The FPGA builds: every memory 1 KiB (the DMA SRAM: the one size of every top).
    pub fn fpga() -> MemBits {
        MemBits { q7_iram: 8, q7_dram: 8, seq: 8, ctrl_spad: 8, slot_spad: 8, dma: seq_dma::SRAM_AW }
    }
}

/// The top's inputs besides BAR0 during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pins {
    pub nx_halted: u8,
    pub q7_halted: u8,
    pub q7: [PortIn; CORES],
    /// HW-decode lookup (opcode, func) and FIFO pop (CAYMAN/MARIANA).
    pub hwd_lookup: Option<(u8, u8)>,
    pub hwd_pop: bool,
    /// Address translation: (requester, address) to look up ([`translate`]).
    pub xlat: Option<(u8, u32)>,
    /// The SEQ DMA's system master port: the answer to its SoC write, taken
    /// at this edge (`ack`), an error answer (`err`).
    pub dma_m_ack: bool,
    pub dma_m_err: bool,
}

pub use crate::translate::{translate, Window, XlatOut, MEM_WINDOW2_BASE, MEM_WINDOW2_SIZE, WINDOWS};

/// Every output of the top during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outputs {
    pub rsp: Rsp,
    pub nx_run_stall: u8,
    pub q7_run_stall: u8,
    /// NX cores a start_ctrl write (ctrl = 1) restarts this cycle (engine
    /// order), and the start address (the OR over them: one write starts one).
    pub nx_start: u8,
    pub nx_start_addr: u32,
    /// Q7 cores the Q7 bundle's start_ctrl restarts this cycle, at `q7_start_addr`.
    pub q7_start: u8,
    pub q7_start_addr: u32,
    /// The notification unit's head (it moves with each record posted).
    pub notific_head: u32,
    /// Interrupt lines: NX engine e (`intr_ctrl.enable & intr_info != 0`), Q7 core n.
    pub nx_irq: u8,
    pub q7_irq: u8,
    pub sem_notif_valid: u8,
    pub sem_notif_index: u8,
    pub dma_db_valid: bool,
    pub dma_busy: bool,
    /// The SEQ DMA's system master port (its SoC writes).
    pub dma_m: seq_dma::Master,
    pub q7: [PortOut; CORES],
    pub hwd: Option<hw_decode::Outputs>,
    /// The translation port's answer to the last cycle's lookup.
    pub xlat: XlatOut,
    /// SUNDA: TOP_SP host_trigger / stop pulses.
    pub host_trigger_pulse: bool,
    pub stop_pulse: bool,
    /// The TPB timestamp counter ([`crate::timestamp`]).
    pub timestamp: u64,
}

/// A memory of the top: where it is decoded and the words it builds.
#[derive(Debug, Clone)]
struct Memory {
    dest: Dest,
    words: Vec<u32>,
}

/// The model.
#[derive(Debug, Clone)]
pub struct TopModel {
    layout: TopLayout,
    nx: Vec<CsrModel>,
    win: Vec<CsrModel>,
    sem: Vec<EvtSemModel>,
    q7regs: CsrModel,
    tpb: CsrModel,
    top_sp_regs: Option<CsrModel>,
    mems: Vec<Memory>,
    cluster: Q7ClusterModel,
    dma: SeqDmaModel,
    ntf: NotificModel,
    ts: Timestamp,
    hwd: Option<HwDecodeModel>,
    xlat: XlatOut,
    mem_rsp: Rsp,
    err: bool,
    /// The last request's address (the notification unit's BAR0-error argument).
    err_addr: u32,
    tpb_inputs: BTreeMap<String, u64>,
    /// Input-port maps reused every cycle (building them is most of a step's cost).
    nx_inputs: BTreeMap<String, u64>,
    q7_inputs: BTreeMap<String, u64>,
    q7_keys: Vec<(String, String, String)>,
    /// The SEQ DMA's error bits at the last edge (a newly set one interrupts POOL).
    dma_err_prev: u32,
    /// SUNDA: the Q7 cores the SEQ has not released through the POOL
    /// EVT_SEM (`TopLayout::q7_release_addr`); all at reset.
    q7_sem_stall: u8,
    q7_info_o: Vec<String>,
    /// Window n's output ports: src, size, dst (lo, hi each), ctrl enable, ctrl requester.
    win_ports: Vec<[String; 8]>,
    no_inputs: BTreeMap<String, u64>,
}

/// A TPB top simulated cycle by cycle. The golden model ([`GoldenTop`]),
/// the rust-hdl simulator (`tpb_hdl::top::simulator`) and the Verilated top
/// (`tpb_cosim::dut::Dut`) all implement it, so one harness drives any of
/// them and compares any two.
pub trait TopSim {
    /// Drive this cycle's inputs (outputs for them are visible after).
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins);
    /// One clock cycle: the rising edge with the inputs driven.
    fn tick(&mut self);
    /// Every output, for the inputs driven.
    fn outputs(&self) -> Outputs;
}

/// The golden top as a [`TopSim`]: it holds the inputs driven until the tick.
pub struct GoldenTop {
    pub model: TopModel,
    driven: (bool, Option<Req>, Pins),
}

impl GoldenTop {
    pub fn new(map: &RegMap, mem: MemBits) -> Result<Self, LayoutError> {
        Ok(GoldenTop { model: TopModel::new(map, mem)?, driven: (false, None, Pins::default()) })
    }
}

impl TopSim for GoldenTop {
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins) {
        self.driven = (reset, req, *pins);
    }
    fn tick(&mut self) {
        let (reset, req, pins) = self.driven;
        self.model.step(reset, req, &pins);
    }
    fn outputs(&self) -> Outputs {
        let (reset, req, pins) = &self.driven;
        self.model.outputs(*reset, *req, pins)
    }
}

fn set_input(m: &mut BTreeMap<String, u64>, key: &str, v: u64) {
    match m.get_mut(key) {
        Some(x) => *x = v,
        None => {
            m.insert(key.to_string(), v);
        }
    }
}

impl TopModel {
    /// A top of the map's generation with memories of `mem` bits, in its reset state
    /// (the EVT_SEM units are clearing: drive reset for one cycle first, as the RTL needs),
    /// or why the map makes no top.
    pub fn new(map: &RegMap, mem: MemBits) -> Result<Self, LayoutError> {
        let layout = TopLayout::of(map)?;
        let p = &map.params;
        let block = |name: &str| map.block(name).ok_or_else(|| LayoutError::Bad { what: name.to_string(), detail: "the map has no such block".into() });
        let memory = |dest: Dest, bits: usize| Memory { dest, words: vec![0; 1 << bits] };
        let hwd = layout.hw_decode.map(|_| HwDecodeModel::new(p.hw_decode.cam_records as usize, bits(p.hw_decode.table_bytes as u64), false));
        Ok(TopModel {
            nx: (0..6).map(|_| block("nx").map(CsrModel::new)).collect::<Result<_, _>>()?,
            win: (0..6).map(|_| block("windows").map(CsrModel::new)).collect::<Result<_, _>>()?,
            sem: (0..6).map(|_| EvtSemModel::new(layout.sem, false)).collect(),
            q7regs: CsrModel::new(block("q7")?),
            tpb: CsrModel::new(block("tpb")?),
            top_sp_regs: map.block("top_sp").filter(|b| b.has_register_rtl()).map(CsrModel::new),
            mems: vec![memory(Dest::SeqIram, mem.seq), memory(Dest::SeqDram, mem.seq), memory(Dest::CtrlSpad, mem.ctrl_spad), memory(Dest::SlotSpad, mem.slot_spad)],
            cluster: Q7ClusterModel::new(q7_cluster::Layout {
                stride: layout.q7_stride,
                dram_offset: layout.q7_dram_offset,
                iram_bits: mem.q7_iram,
                dram_bits: mem.q7_dram,
                iram_region: layout.q7_iram_size,
                dram_region: layout.q7_dram_size,
            }),
            dma: SeqDmaModel::new(mem.dma, layout.inc_slot),
            ntf: NotificModel::new((layout.notific.size / crate::notific::RECORD_BYTES) as usize),
            ts: Timestamp::default(),
            err_addr: 0,
            tpb_inputs: BTreeMap::new(),
            hwd,
            xlat: XlatOut::default(),
            win_ports: (0..WINDOWS)
                .map(|n| ["src_lo", "src_hi", "size_lo", "size_hi", "dst_lo", "dst_hi", "ctrl_enable", "ctrl_requester"].map(|r| format!("window_{r}_o${n}")))
                .collect(),
            mem_rsp: Rsp::default(),
            err: false,
            nx_inputs: BTreeMap::new(),
            q7_inputs: BTreeMap::new(),
            q7_keys: (0..CORES).map(|n| (format!("run_state_running_i${n}"), format!("run_state_halted_i${n}"), format!("intr_info_info_set_i${n}"))).collect(),
            dma_err_prev: 0,
            q7_sem_stall: 0xff,
            q7_info_o: (0..CORES).map(|n| format!("intr_info_info_o${n}")).collect(),
            no_inputs: BTreeMap::new(),
            layout,
        })
    }

    /// Where a BAR0 address goes, and the address the block sees.
    fn decode(&self, addr: u32) -> Option<(Dest, u32)> {
        self.layout.decode(addr)
    }

    fn out(m: &CsrModel, port: &str) -> u64 {
        m.output(port).unwrap_or(0)
    }

    /// Engine `e`'s window bundle as its registers hold it now.
    pub fn windows(&self, e: usize) -> Vec<Window> {
        let w = &self.win[e];
        self.win_ports
            .iter()
            .map(|p| {
                let v = p.each_ref().map(|name| Self::out(w, name));
                Window { src: v[0] | v[1] << 32, size: v[2] | v[3] << 32, dst: v[4] | v[5] << 32, enable: v[6] != 0, requester: v[7] as u8 }
            })
            .collect()
    }

    /// POOL's `mem_window2` (hi:lo).
    pub fn mem_window2(&self) -> u64 {
        let nx = &self.nx[POOL];
        Self::out(nx, "mem_window2_lo_o") | Self::out(nx, "mem_window2_hi_o") << 32
    }

    fn dma_inputs(&self) -> seq_dma::Inputs {
        let nx = &self.nx[POOL];
        let ring = |p: [&str; 5]| seq_dma::Ring {
            base: Self::out(nx, p[0]) as u32,
            length: Self::out(nx, p[1]) as u32,
            head: Self::out(nx, p[2]) as u32,
            tail_inc: Self::out(nx, p[3]) as u32,
            tail_inc_pulse: Self::out(nx, p[4]) != 0,
        };
        seq_dma::Inputs {
            enable: Self::out(nx, "dma_ctrl_enable_o") != 0,
            rx: ring(["dma_rx_ring_base_o", "dma_rx_ring_length_o", "dma_rx_ring_head_o", "dma_rx_ring_tail_inc_o", "dma_rx_ring_tail_inc_pulse_o"]),
            tx: ring(["dma_tx_ring_base_o", "dma_tx_ring_length_o", "dma_tx_ring_head_o", "dma_tx_ring_tail_inc_o", "dma_tx_ring_tail_inc_pulse_o"]),
            db_ready: false,
            m_ack: false,
            m_err: false,
        }
    }

    /// The notification unit's inputs this cycle (before the edge).
    fn notific_inputs(&self, pins: &Pins, dma_done: bool) -> notific::Inputs {
        let t = &self.tpb;
        let mut i = notific::Inputs {
            size: Self::out(t, "notific_ring_size_o") as u32,
            en_error: Self::out(t, "notific_enable_error_o") != 0,
            en_sem: Self::out(t, "notific_enable_evt_sem_o") != 0,
            en_inst: Self::out(t, "notific_enable_inst_o") != 0,
            tail: Self::out(t, "notific_tail_o") as u32,
            dma_done,
            dma_index: self.dma.outputs().db_index,
            dma_err: self.dma.error() as u8,
            halted: u16::from(pins.q7_halted) << 8,
            bus_err: self.err,
            bus_addr: self.err_addr,
            ..notific::Inputs::default()
        };
        for e in 0..6 {
            let s = self.sem[e].outputs();
            i.sem_valid |= u8::from(s.notif_valid) << e;
            i.sem_index[e] = s.notif_index;
            let nx = &self.nx[e];
            if Self::out(nx, "inst_done_pulse_o") != 0 {
                i.inst_valid |= 1 << e;
                i.inst_tag[e] = Self::out(nx, "inst_done_o") as u32;
            }
            let halt = (u64::from(pins.nx_halted >> e & 1) | Self::out(&self.nx[e], "instr_halt_ctrl_halt_o")) & 1;
            i.halted |= (halt as u16) << e;
        }
        i
    }

    /// A start_ctrl write of ctrl = 1 is being acted on (DIGEST §2.8).
    fn nx_starts(nx: &CsrModel) -> bool {
        Self::out(nx, "start_ctrl_ctrl_pulse_o") & Self::out(nx, "start_ctrl_ctrl_o") & 1 != 0
    }

    /// The Q7 cores held: by `release_run_stall`, and on SUNDA also not yet
    /// released by the SEQ through the POOL EVT_SEM (either path releases).
    fn q7_run_stall(&self) -> u8 {
        let reg = Self::out(&self.q7regs, "release_run_stall_stall_o") as u8;
        match self.layout.q7_release_sem {
            Some(_) => reg & self.q7_sem_stall,
            None => reg,
        }
    }

    /// Every output during this cycle, for these inputs.
    pub fn outputs(&self, reset: bool, req: Option<Req>, pins: &Pins) -> Outputs {
        let mut o = Outputs::default();
        let mut rsp = Rsp { valid: self.err, err: self.err, rdata: 0 };
        let mut take = |r: Rsp| {
            if r.valid {
                rsp = r;
            }
        };
        for i in 0..6 {
            take(self.nx[i].rsp());
            let s = self.sem[i].outputs();
            take(Rsp { valid: s.rsp_valid, rdata: s.rsp_rdata, err: s.rsp_err });
            take(self.win[i].rsp());
            let nx = &self.nx[i];
            o.nx_run_stall |= ((Self::out(nx, "release_run_stall_stall_o") | Self::out(nx, "instr_halt_ctrl_halt_o")) as u8 & 1) << i;
            if Self::nx_starts(nx) {
                o.nx_start |= 1 << i;
                o.nx_start_addr |= Self::out(nx, "start_addr_o") as u32;
            }
            if s.notif_valid {
                if o.sem_notif_valid == 0 {
                    o.sem_notif_index = s.notif_index;
                }
                o.sem_notif_valid |= 1 << i;
            }
        }
        take(self.q7regs.rsp());
        take(self.cluster.rsp());
        take(self.tpb.rsp());
        take(self.dma.rsp());
        take(self.ntf.rsp());
        o.notific_head = self.ntf.outputs().head;
        o.timestamp = self.ts.count;
        for i in 0..6 {
            let nx = &self.nx[i];
            if Self::out(nx, "intr_ctrl_enable_o") & 1 != 0 && Self::out(nx, "intr_info_info_o") != 0 {
                o.nx_irq |= 1 << i;
            }
        }
        let en = Self::out(&self.q7regs, "intr_ctrl_enable_o");
        for n in 0..CORES {
            if en >> n & 1 != 0 && Self::out(&self.q7regs, &self.q7_info_o[n]) != 0 {
                o.q7_irq |= 1 << n;
            }
        }
        take(self.mem_rsp);
        if let Some(t) = &self.top_sp_regs {
            take(t.rsp());
            o.host_trigger_pulse = Self::out(t, "host_trigger_pulse_o") != 0;
            o.stop_pulse = Self::out(t, "stop_pulse_o") != 0;
        }
        if let Some(h) = &self.hwd {
            let ho = h.outputs();
            take(Rsp { valid: ho.rsp_valid, rdata: ho.rsp_rdata, err: ho.rsp_err });
            // The CAM's bus response is part of `rsp`.
            o.hwd = Some(hw_decode::Outputs { rsp_valid: false, rsp_rdata: 0, rsp_err: false, ..ho });
        }
        o.rsp = rsp;
        o.xlat = self.xlat;
        o.q7_run_stall = self.q7_run_stall();
        if Self::out(&self.q7regs, "start_ctrl_start_pulse_o") != 0 {
            o.q7_start = Self::out(&self.q7regs, "start_ctrl_start_o") as u8;
            o.q7_start_addr = Self::out(&self.q7regs, "start_addr_o") as u32;
        }
        let d = self.dma.outputs();
        o.dma_db_valid = d.db_valid;
        o.dma_busy = d.busy;
        o.dma_m = d.m;
        let q7_req = req.filter(|_| !reset).and_then(|r| self.decode(r.addr).filter(|d| d.0 == Dest::Q7).map(|d| Req { addr: d.1, ..r }));
        o.q7 = self.cluster.outputs(reset, q7_req, self.q7_run_stall(), &pins.q7);
        o
    }

    /// One rising edge with this cycle's inputs.
    pub fn step(&mut self, reset: bool, req: Option<Req>, pins: &Pins) {
        let req = req.filter(|_| !reset);
        let dest = req.and_then(|r| self.decode(r.addr).map(|(d, off)| (d, Req { addr: off, ..r })));
        let to = |d: Dest| dest.filter(|x| x.0 == d).map(|x| x.1);
        // Inputs the blocks see this cycle (outputs registered before this edge).
        let mut dma_in = self.dma_inputs();
        let dma_out = self.dma.outputs();
        let q7_stall = self.q7_run_stall();
        let running = !q7_stall & !pins.q7_halted;
        // The TOP_SP EVT_SEM takes the DMA's completion doorbell.
        dma_in.db_ready = self.sem[TOP_SP].db_ready(to(Dest::Sem(TOP_SP)), dma_out.db_index);
        (dma_in.m_ack, dma_in.m_err) = (pins.dma_m_ack, pins.dma_m_err);
        // The notification unit sees this cycle's events and the TPB-level
        // registers' configuration; they see its head, drop count and overflow.
        let ntf_in = self.notific_inputs(pins, dma_out.db_valid && dma_in.db_ready);
        // Interrupt sources this cycle (`[D]`, nx.toml / q7.toml).
        let dma_err_new = self.dma.error() & !self.dma_err_prev & seq_dma::ERR_ALL != 0;
        let cam_miss = self.hwd.as_ref().is_some_and(|h| h.outputs().miss_irq);
        let pool_sem = self.sem[POOL].outputs().notif_valid;
        // SUNDA's TOP_SP doorbell registers latch into the TOP_SP's intr_info.
        let (trigger, stop) = match &self.top_sp_regs {
            Some(t) => (Self::out(t, "host_trigger_pulse_o") != 0, Self::out(t, "stop_pulse_o") != 0),
            None => (false, false),
        };
        let irq_set: Vec<u64> = (0..6)
            .map(|i| {
                let nx = &self.nx[i];
                let mut v = if self.sem[i].outputs().notif_valid { nx_intr::SEM_CHANGED } else { 0 };
                if Self::out(nx, "intr_ctrl_raise_pulse_o") != 0 && Self::out(nx, "intr_ctrl_raise_o") & 1 != 0 {
                    v |= nx_intr::HOST_RAISE;
                }
                if i == POOL && dma_err_new {
                    v |= nx_intr::DMA_ERROR;
                }
                if i == POOL && cam_miss {
                    v |= nx_intr::CAM_MISS;
                }
                if i == TOP_SP && trigger {
                    v |= nx_intr::HOST_TRIGGER;
                }
                if i == TOP_SP && stop {
                    v |= nx_intr::STOP;
                }
                u64::from(v)
            })
            .collect();
        let q7_raise = if Self::out(&self.q7regs, "intr_ctrl_raise_pulse_o") != 0 { Self::out(&self.q7regs, "intr_ctrl_raise_o") } else { 0 };
        self.dma_err_prev = self.dma.error() & seq_dma::ERR_ALL;
        // A SET of the release semaphore this cycle releases the Q7 cores its value names, at the edge.
        if let Some(set) = self.layout.q7_release_addr() {
            if let Some(r) = req.filter(|r| r.write && r.addr == set) {
                self.q7_sem_stall &= !(r.wdata as u8);
            }
            if reset {
                self.q7_sem_stall = 0xff;
            }
        }
        // The translation port samples the window registers before this edge.
        self.xlat = match pins.xlat.filter(|_| !reset) {
            Some((who, addr)) => {
                let dst = translate(&self.windows(POOL), self.mem_window2(), who, addr);
                XlatOut { valid: true, hit: dst.is_some(), dst: dst.unwrap_or(0) }
            }
            None => XlatOut::default(),
        };
        for (i, &irq) in irq_set.iter().enumerate() {
            // Halt and start: instr_halt_ctrl.halt holds the core and reads as
            // halted; a start clears it.
            let stall = Self::out(&self.nx[i], "release_run_stall_stall_o") & 1;
            let halt = Self::out(&self.nx[i], "instr_halt_ctrl_halt_o") & 1;
            let halted = u64::from(pins.nx_halted >> i & 1);
            set_input(&mut self.nx_inputs, "run_state_running_i", !stall & !halted & !halt & 1);
            set_input(&mut self.nx_inputs, "run_state_halted_i", halted | halt);
            set_input(&mut self.nx_inputs, "instr_halt_ctrl_halt_clr_i", u64::from(Self::nx_starts(&self.nx[i])));
            set_input(&mut self.nx_inputs, "intr_info_info_set_i", irq);
            self.nx[i].step(reset, to(Dest::Nx(i)), &self.nx_inputs);
            self.win[i].step(reset, to(Dest::Win(i)), &self.no_inputs);
            let db = (i == TOP_SP && dma_out.db_valid).then_some(DbReq { index: dma_out.db_index, amount: 1 });
            self.sem[i].step(reset, to(Dest::Sem(i)), db);
        }
        for (n, (run, halt, irq)) in self.q7_keys.iter().enumerate() {
            set_input(&mut self.q7_inputs, run, u64::from(running >> n & 1));
            set_input(&mut self.q7_inputs, halt, u64::from(pins.q7_halted >> n & 1));
            set_input(&mut self.q7_inputs, irq, u64::from(if pool_sem { nx_intr::SEM_CHANGED } else { 0 } | if q7_raise >> n & 1 != 0 { nx_intr::HOST_RAISE } else { 0 }));
        }
        self.q7regs.step(reset, to(Dest::Q7Regs), &self.q7_inputs);
        let no = self.ntf.outputs();
        set_input(&mut self.tpb_inputs, "notific_head_i", no.head.into());
        set_input(&mut self.tpb_inputs, "notific_dropped_i", no.dropped.into());
        set_input(&mut self.tpb_inputs, "notific_status_overflow_set_i", no.overflow.into());
        set_input(&mut self.tpb_inputs, "timestamp_lo_i", self.ts.lo().into());
        set_input(&mut self.tpb_inputs, "timestamp_hi_i", self.ts.hi_latched.into());
        let t = &self.tpb;
        let tick = (Self::out(t, "timestamp_ctrl_run_o") & 1 != 0).then(|| Self::out(t, "timestamp_inc_o") as u32);
        let adjust = (Self::out(t, "timestamp_adjust_hi_pulse_o") != 0).then(|| Self::out(t, "timestamp_adjust_lo_o") | Self::out(t, "timestamp_adjust_hi_o") << 32);
        let lo_read = to(Dest::Tpb).is_some_and(|r| !r.write && r.addr == self.layout.timestamp_lo);
        self.tpb.step(reset, to(Dest::Tpb), &self.tpb_inputs);
        self.ts.step(reset, tick, adjust, lo_read);
        self.ntf.step(reset, to(Dest::Notific), &ntf_in);
        if let Some(r) = req {
            self.err_addr = r.addr;
        }
        if let Some(t) = &mut self.top_sp_regs {
            t.step(reset, to(Dest::TopSpRegs), &self.no_inputs);
        }
        self.cluster.step(reset, to(Dest::Q7), q7_stall, &pins.q7);
        self.dma.step(reset, to(Dest::Dma), &dma_in);
        if let Some(h) = &mut self.hwd {
            h.step(reset, to(Dest::HwDecode), pins.hwd_lookup, pins.hwd_pop);
        }
        // Memories: aligned words within the built size.
        self.mem_rsp = Rsp::default();
        let mut mem_err = false;
        for m in &mut self.mems {
            if let Some(r) = to(m.dest) {
                let w = (r.addr / 4) as usize;
                if r.addr & 3 == 0 && w < m.words.len() {
                    self.mem_rsp = Rsp { valid: true, err: false, rdata: if r.write { 0 } else { m.words[w] } };
                    if r.write {
                        m.words[w] = r.wdata;
                    }
                } else if r.addr & 3 == 0 && (!r.write || r.wdata == 0) {
                    // Past the built size (FPGA builds): reads give 0, writes of 0 are dropped.
                    self.mem_rsp = Rsp { valid: true, err: false, rdata: 0 };
                } else {
                    mem_err = true;
                }
            }
        }
        self.err = req.is_some() && (dest.is_none() || mem_err);
    }
}
