//! One clock cycle of the Verilated top, as [`TopSim`] drives it: the
//! inputs go in with the clock low, then the rising edge.
//!
//! ## Edges merged with the next inputs (untraced runs)
//! Untraced, [`TopSim::tick`] only owes its rising edge, and the next
//! [`TopSim::drive`] evaluates it together with the new inputs: the
//! clock rises and the wrapper's `sample` toggles in one evaluation. The
//! top's flip-flops then take the samples they held, because the wrapper
//! takes the new ones with non-blocking assignments (`vlgen::sim_top`),
//! exactly as two evaluations would; the combinational logic then settles
//! once instead of twice. Anything that looks at the model between a tick
//! and the next drive (the outputs, the DMA's master port, the model by
//! name, a trace, a skipped cycle, dropping the model) first evaluates the
//! owed edge alone ([`Dut::settle`]). Traced runs, armed windows, the
//! `--before` scheduling and coverage models evaluate every edge alone.

use super::{Dut, Ix};
use crate::verilator::Port;
use tpb_hdl::top::TopSim;
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::hw_decode::{LookupResult, Outputs as HwdOutputs};
use tpb_models::golden::q7_cluster::PortOut;
use tpb_models::golden::top::{Outputs, Pins, XlatOut};

/// Write every input port: reset, the BAR0 request, the pins.
fn write_inputs(ix: &Ix, reset: bool, req: Option<Req>, pins: &Pins) {
    let r = req.unwrap_or(Req { write: false, addr: 0, wdata: 0 });
    ix.reset.set(u8::from(reset));
    ix.req_valid.set(u8::from(req.is_some()));
    ix.req_write.set(u8::from(r.write));
    ix.req_addr.set(r.addr);
    ix.req_wdata.set(r.wdata);
    ix.nx_halted.set(pins.nx_halted & 0x3f);
    ix.q7_halted.set(pins.q7_halted);
    for (c, p) in ix.cores.iter().zip(&pins.q7) {
        c.if_valid.set(u8::from(p.if_valid));
        c.if_addr.set(p.if_addr);
        c.ls_valid.set(u8::from(p.ls_valid));
        c.ls_write.set(u8::from(p.ls_write));
        c.ls_addr.set(p.ls_addr);
        c.ls_wdata.set(p.ls_wdata);
        c.ls_wstrb.set(p.ls_wstrb & 15);
    }
    let (who, addr) = pins.xlat.unwrap_or((0, 0));
    ix.xlat.valid.set(u8::from(pins.xlat.is_some()));
    ix.xlat.who.set(who & 15);
    ix.xlat.addr.set(addr);
    ix.dma_m.ack.set(u8::from(pins.dma_m_ack));
    ix.dma_m.err.set(u8::from(pins.dma_m_err));
    if let Some(h) = &ix.hwd {
        let (op, func) = pins.hwd_lookup.unwrap_or((0, 0));
        h.lookup_valid.set(u8::from(pins.hwd_lookup.is_some()));
        h.lookup_opcode.set(op);
        h.lookup_func.set(func);
        h.fifo_pop.set(u8::from(pins.hwd_pop));
    }
}

impl Dut {
    /// The SEQ DMA's system master request, read alone (it comes from
    /// flip-flops: after an edge it is the one the engine holds this cycle).
    pub fn dma_master(&self) -> tpb_models::golden::seq_dma::Master {
        self.settle();
        let m = &self.ix.dma_m;
        tpb_models::golden::seq_dma::Master { valid: m.valid.get() != 0, addr: u64::from(m.addr_lo.get()) | u64::from(m.addr_hi.get()) << 32, wdata: m.wdata.get() }
    }

    /// Evaluate a rising edge that [`TopSim::tick`] owes: alone, for
    /// whatever looks at the model before the next [`TopSim::drive`], or
    /// merged, by that drive once it has written its inputs.
    pub(super) fn settle(&self) {
        if self.edge_owed.replace(false) {
            self.ix.clock.set(1);
            self.m.eval();
            self.low.set(false);
        }
    }

    /// May this tick owe its edge to the next drive? Only untraced, with
    /// no window armed, under the default scheduling, when asked for.
    fn may_owe_edge(&self) -> bool {
        self.merge_edges && self.low.get() && !self.negedge_eval && self.armed.is_none() && !self.trace_wanted()
    }

    /// Evaluate every rising edge alone (`on = false`), as traced runs do:
    /// for coverage models, whose line counts count evaluations, and for
    /// `tpb bench`'s comparison. On by default.
    pub fn with_merged_edges(mut self, on: bool) -> Dut {
        self.settle();
        self.merge_edges = on;
        self
    }
}

impl TopSim for Dut {
    /// The inputs go in with the clock low. A cycle that drives what the
    /// last one did writes no port, and, when nothing is traced, leaves the
    /// wrapper's `sample` alone, so the logic behind the samples is not
    /// evaluated again (it would compute what it holds). A traced cycle
    /// toggles it always: the traces are the same bytes either way.
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins) {
        // The request first: it changes most often, and equal pins cost the most to compare.
        let same = self.last_in.as_ref().is_some_and(|(r, q, p)| *q == req && *r == reset && p == pins);
        if !same {
            write_inputs(&self.ix, reset, req, pins);
            self.last_in = Some((reset, req, *pins));
        }
        // The wrapper takes these inputs for the top (any edge of `sample`).
        if let Some(s) = self.ix.sample {
            if !same || self.trace_wanted() {
                s.set(s.get() ^ 1);
            } else {
                self.sample_owed = !self.sample_owed;
            }
        }
        // An owed edge is evaluated now, with these inputs' samples (the module's note).
        self.settle();
        // The clock goes low with the inputs: one evaluation for both (or,
        // after a merged edge, one that nothing is sensitive to: Verilator
        // sees the next edge only after an evaluation with the clock low).
        self.ix.clock.set(0);
        self.m.eval();
        self.low.set(true);
        if self.armed.is_some() {
            self.window_step(req);
        }
    }

    fn tick(&mut self) {
        self.settle();
        if self.may_owe_edge() {
            self.edge_owed.set(true);
            self.cycle += 1;
            return;
        }
        let c = self.ix.clock;
        if !self.low.get() {
            // Two edges without inputs driven between them.
            c.set(0);
            self.m.eval();
        }
        self.m.trace_dump(self.cycle * self.period_ps);
        c.set(1);
        self.m.eval();
        self.low.set(false);
        self.m.trace_dump(self.cycle * self.period_ps + self.period_ps / 2);
        if self.negedge_eval {
            c.set(0);
            self.m.eval();
            self.low.set(true);
        }
        self.cycle += 1;
        if self.armed.is_some() {
            self.window_after_tick();
        }
    }

    fn outputs(&self) -> Outputs {
        self.settle();
        let ix = &self.ix;
        let b = |p: Port<u8>| p.get() != 0;
        let notif = ix.sem_notif_valid.get();
        let mut o = Outputs {
            rsp: Rsp { valid: b(ix.rsp_valid), rdata: ix.rsp_rdata.get(), err: b(ix.rsp_err) },
            nx_run_stall: ix.nx_run_stall.get(),
            q7_run_stall: ix.q7_run_stall.get(),
            nx_start: ix.nx_start.get(),
            nx_start_addr: ix.nx_start_addr.get(),
            q7_start: ix.q7_start.get(),
            q7_start_addr: ix.q7_start_addr.get(),
            notific_head: ix.notific_head.get(),
            timestamp: u64::from(ix.timestamp_lo.get()) | u64::from(ix.timestamp_hi.get()) << 32,
            nx_irq: ix.nx_irq.get(),
            q7_irq: ix.q7_irq.get(),
            sem_notif_valid: notif,
            sem_notif_index: if notif != 0 { ix.sem_notif_index.get() } else { 0 },
            dma_db_valid: b(ix.dma_db_valid),
            dma_busy: b(ix.dma_busy),
            dma_m: self.dma_master(),
            xlat: XlatOut { valid: b(ix.xlat.rsp_valid), hit: b(ix.xlat.hit), dst: u64::from(ix.xlat.dst_lo.get()) | u64::from(ix.xlat.dst_hi.get()) << 32 },
            ..Outputs::default()
        };
        for (k, c) in ix.cores.iter().enumerate() {
            o.q7[k] = PortOut {
                if_ready: b(c.if_ready),
                if_rvalid: b(c.if_rvalid),
                if_rdata: c.if_rdata.get(),
                if_err: b(c.if_err),
                ls_ready: b(c.ls_ready),
                ls_rvalid: b(c.ls_rvalid),
                ls_rdata: c.ls_rdata.get(),
                ls_err: b(c.ls_err),
            };
        }
        if let Some(h) = &ix.hwd {
            o.hwd = Some(HwdOutputs {
                rsp_valid: false,
                rsp_rdata: 0,
                rsp_err: false,
                lookup_ready: b(h.lookup_ready),
                fifo_valid: b(h.fifo_valid),
                head: LookupResult { hit: b(h.fifo_hit), entry: h.fifo_entry.get(), index: h.fifo_index.get(), handler: h.fifo_handler.get() },
                miss: b(h.miss),
                miss_irq: b(h.miss_irq),
            });
        }
        if let Some((a, s)) = ix.pulses {
            o.host_trigger_pulse = b(a);
            o.stop_pulse = b(s);
        }
        o
    }
}
