//! # One SEQ DMA descriptor ring's bookkeeping (the RX ring and the TX ring are two of these)
//!
//! The ring's registers come in from the SEQ's generated register bundle
//! (`dma_{rx,tx}_ring_{base,length,head,tail_inc}`); the engine
//! ([`SeqDma`](super::SeqDma)) owns the descriptor fetch and the copy, and
//! tells the ring when it retires one of its descriptors. The ring keeps, in
//! flip-flops, the three counters the status window shows (`[D]`, DIGEST §5):
//! - `hw_head`: the next descriptor the engine reads. Loaded from `head` on
//!   `enable_rise`; advanced modulo `length` by `retire`.
//! - `pending`: tail increments not yet retired. A `tail_inc_pulse` (with
//!   `enable` high) adds `tail_inc`; `retire` takes one away; `enable` low
//!   drops them all. An increment on a ring of `length` 0 adds nothing and
//!   raises `empty_ring_inc` for the engine's sticky error bit 2.
//! - `done`: descriptors retired since reset.
//!
//! `desc_base` is the byte offset of the descriptor at `hw_head`
//! (`base + 16 * hw_head`, wrapping in 32 bits). `reset` clears the counters.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DmaRing {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// `dma_ctrl.enable`, and the cycle it rose in.
    pub enable: Signal<In, Bit>,
    pub enable_rise: Signal<In, Bit>,
    pub base: Signal<In, Bits<32>>,
    pub length: Signal<In, Bits<32>>,
    pub head: Signal<In, Bits<32>>,
    pub tail_inc: Signal<In, Bits<32>>,
    pub tail_inc_pulse: Signal<In, Bit>,
    /// The engine retires this ring's descriptor at `hw_head` this cycle.
    pub retire: Signal<In, Bit>,
    pub hw_head: Signal<Out, Bits<32>>,
    pub pending: Signal<Out, Bits<32>>,
    pub done: Signal<Out, Bits<32>>,
    pub desc_base: Signal<Out, Bits<32>>,
    pub empty_ring_inc: Signal<Out, Bit>,
    hw_head_q: DFF<Bits<32>>,
    pending_q: DFF<Bits<32>>,
    done_q: DFF<Bits<32>>,
    add: Signal<Local, Bits<32>>,
}

impl Logic for DmaRing {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hw_head_q, pending_q, done_q);
        self.hw_head.next = self.hw_head_q.q.val();
        self.pending.next = self.pending_q.q.val();
        self.done.next = self.done_q.q.val();
        self.desc_base.next = self.base.val() + (self.hw_head_q.q.val() << 4);
        // ---- tail increments in, retired descriptors out ----
        self.add.next = 0.into();
        self.empty_ring_inc.next = false;
        if self.enable.val() & self.tail_inc_pulse.val() {
            if self.length.val() == 0 {
                self.empty_ring_inc.next = true;
            } else {
                self.add.next = self.tail_inc.val();
            }
        }
        self.pending_q.d.next = self.pending_q.q.val() + self.add.val();
        if self.retire.val() {
            self.hw_head_q.d.next = self.hw_head_q.q.val() + 1;
            if (self.hw_head_q.q.val() + 1) == self.length.val() {
                self.hw_head_q.d.next = 0.into();
            }
            self.done_q.d.next = self.done_q.q.val() + 1;
            self.pending_q.d.next = self.pending_q.q.val() + self.add.val() - 1;
        }
        // ---- enable: load the head on the rising edge, drop work when low ----
        if self.enable_rise.val() {
            self.hw_head_q.d.next = self.head.val();
        }
        if !self.enable.val() {
            self.pending_q.d.next = 0.into();
        }
        if self.reset.val() {
            self.hw_head_q.d.next = 0.into();
            self.pending_q.d.next = 0.into();
            self.done_q.d.next = 0.into();
        }
    }
}
