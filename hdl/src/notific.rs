//! # Notification unit: the TPB's notification ring (ERROR, EVT_SEM, INST)
//!
//! DIGEST §2.9 (`notific_init` and the three class enables of `stpb_init`),
//! §3. Hardware events become 16-byte records in a ring the host reads over
//! BAR0. The `[D]` rules (ring placement, record layout, sources, priority,
//! full ring and drops) are stated once, in the golden model
//! [`tpb_golden::notific`]; this block implements them cycle for
//! cycle.
//!
//! ## Ports
//! - `clock`, `reset` (synchronous, active high; the SRAM keeps its contents);
//! - the BAR0 port of the ring SRAM (`2^RW` records, read-only: a write, a
//!   misaligned address or one past the SRAM answers `rsp_err`);
//! - configuration, from the TPB-level registers: `size` (records), `enable`
//!   (bit 0 ERROR, bit 1 EVT_SEM, bit 2 INST), `tail`;
//! - sources: `sem_valid[5:0]` + `sem_index[6]`, `dma_done` + `dma_index`,
//!   `dma_err[4:0]` (the DMA's sticky error bits), `halted[15:0]` (NX engine
//!   e at bit e, Q7 core n at bit 8 + n), `bus_err` + `bus_addr`,
//!   `inst_valid[5:0]` + `inst_tag[6]` (instruction completions);
//! - status, to the TPB-level registers: `head`, `dropped`, `overflow` (a
//!   one-cycle pulse for the sticky status bit).
//!
//! ## Implementation
//! The ring is four [`WordRam`] lanes, one per record word, so a record is
//! written in one cycle while the bus reads any word. Each source has one
//! slot (valid bit and argument); the lowest valid slot posts when the ring
//! has room.
//!
//! ```
//! use tpb_hdl::notific::Notific;
//! let v = tpb_hdl::verilog::of(&mut Notific::<8>::default(), "notific");
//! assert!(v.contains("module notific"));
//! ```

use crate::ram::WordRam;
use rust_hdl::prelude::*;
use tpb_golden::notific::slot_kind;

/// Word 0 of slot `k`'s records: type and source (the golden model's rules).
fn slot_word0(k: usize) -> u32 {
    let (t, src) = slot_kind(k);
    t | src << 8
}

/// Default ring SRAM: 2^8 records (4 KiB).
pub const DEFAULT_RW: usize = 8;

bar0_slave_block! {
pub struct Notific<const RW: usize> {
    pub size: Signal<In, Bits<32>>,
    pub enable: Signal<In, Bits<3>>,
    pub tail: Signal<In, Bits<32>>,
    pub sem_valid: Signal<In, Bits<6>>,
    pub sem_index: [Signal<In, Bits<8>>; 6],
    pub dma_done: Signal<In, Bit>,
    pub dma_index: Signal<In, Bits<8>>,
    pub dma_err: Signal<In, Bits<5>>,
    pub halted: Signal<In, Bits<16>>,
    pub bus_err: Signal<In, Bit>,
    pub bus_addr: Signal<In, Bits<32>>,
    pub inst_valid: Signal<In, Bits<6>>,
    pub inst_tag: [Signal<In, Bits<32>>; 6],
    pub head: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub overflow: Signal<Out, Bit>,
    lane: [WordRam<RW>; 4],
    /// The largest valid size, and the SRAM's address bits above it.
    cap: Constant<Bits<32>>,
    ring_hi: Constant<Bits<32>>,
    rsp_valid_q: DFF<Bit>,
    rsp_err_q: DFF<Bit>,
    rvalid_q: DFF<Bit>,
    lane_q: DFF<Bits<2>>,
    head_q: DFF<Bits<32>>,
    /// Always `head_q + 1`, kept in a register so that the wrap compare and
    /// the full-ring compare start from flip-flops, side by side. Stored
    /// with bit 0 inverted, so that its power-on value (0) means 1, as
    /// `head_q`'s (0) does.
    head_inc_x: DFF<Bits<32>>,
    head_inc: Signal<Local, Bits<32>>,
    seq_q: DFF<Bits<16>>,
    /// The drop count is kept as the count up to the previous cycle plus
    /// the previous cycle's drop bits, so this cycle's drops (which depend
    /// on whether a record posts) end in a register without an adder.
    dropped_acc: DFF<Bits<32>>,
    drop_bits_q: DFF<Bits<16>>,
    cycle_q: DFF<Bits<32>>,
    prev_halted: DFF<Bits<16>>,
    prev_err: DFF<Bits<5>>,
    /// Slots 0..3: DMA error, bus error, halt, DMA done; then one per engine.
    fix_valid: DFF<Bits<4>>,
    sem_slot_valid: DFF<Bits<6>>,
    err_arg: DFF<Bits<5>>,
    bus_arg: DFF<Bits<32>>,
    halt_arg: DFF<Bits<16>>,
    dma_arg: DFF<Bits<8>>,
    sem_arg: [DFF<Bits<8>>; 6],
    inst_slot_valid: DFF<Bits<6>>,
    inst_arg: [DFF<Bits<32>>; 6],
    inst_free: Signal<Local, Bits<6>>,
    inst_next: Signal<Local, Bits<6>>,
    bus_ok: Signal<Local, Bit>,
    active: Signal<Local, Bit>,
    next_head: Signal<Local, Bits<32>>,
    /// `head_inc` and the size on 16 bits: while the ring is active both
    /// fit (size <= 2^RW, RW <= 15), and the wrap compare is half as long.
    inc16: Signal<Local, Bits<16>>,
    size16: Signal<Local, Bits<16>>,
    wrap: Signal<Local, Bit>,
    dropped_now: Signal<Local, Bits<32>>,
    post: Signal<Local, Bit>,
    fix_free: Signal<Local, Bits<4>>,
    sem_free: Signal<Local, Bits<6>>,
    w0: Signal<Local, Bits<32>>,
    w1: Signal<Local, Bits<32>>,
    new_err: Signal<Local, Bits<5>>,
    new_halt: Signal<Local, Bits<16>>,
    /// This cycle's dropped events, one bit per source (bus error, DMA
    /// done; then per engine), and their count: a popcount tree rather than
    /// a chain of increments, which was the prototype's critical path.
    drop_fix: Signal<Local, Bits<2>>,
    drop_sem: Signal<Local, Bits<6>>,
    drop_inst: Signal<Local, Bits<6>>,
    drop_bits: Signal<Local, Bits<16>>,
    pop2: Signal<Local, Bits<16>>,
    pop4: Signal<Local, Bits<16>>,
    pop8: Signal<Local, Bits<16>>,
    drops: Signal<Local, Bits<16>>,
    fix_next: Signal<Local, Bits<4>>,
    sem_next: Signal<Local, Bits<6>>,
    eng_bit: [Constant<Bits<6>>; 6],
    /// Word 0 (type and source) of each slot's records, from the golden model's constants.
    w0_of: [Constant<Bits<32>>; 16],
}
}

impl<const RW: usize> Default for Notific<RW> {
    fn default() -> Self {
        assert!(RW <= 15, "the ring's pointers are compared on 16 bits");
        let bytes = (16u64 << RW) - 1;
        bar0_slave_new! { Notific {
            size, enable, tail, sem_valid, sem_index, dma_done, dma_index, dma_err, halted, bus_err, bus_addr, inst_valid,
            inst_tag, head, dropped, overflow, lane,
            cap: Constant::new((1u64 << RW).into()),
            ring_hi: Constant::new((!bytes & 0xffff_ffff).into()),
            rsp_valid_q, rsp_err_q, rvalid_q, lane_q, head_q, head_inc_x, head_inc, seq_q, dropped_acc, drop_bits_q,
            cycle_q, prev_halted, prev_err, fix_valid, sem_slot_valid, err_arg, bus_arg, halt_arg, dma_arg, sem_arg,
            inst_slot_valid, inst_arg, inst_free, inst_next, bus_ok, active, next_head, inc16, wrap, size16, dropped_now,
            post, fix_free, sem_free, w0, w1, new_err, new_halt, drop_fix, drop_sem, drop_inst, drop_bits, pop2, pop4,
            pop8, drops, fix_next, sem_next,
            eng_bit: std::array::from_fn(|e| Constant::new((1u64 << e).into())),
            w0_of: std::array::from_fn(|k| Constant::new(u64::from(slot_word0(k)).into())),
        } }
    }
}

impl<const RW: usize> Logic for Notific<RW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rsp_valid_q,
            rsp_err_q,
            rvalid_q,
            lane_q,
            head_q,
            head_inc_x,
            seq_q,
            dropped_acc,
            drop_bits_q,
            cycle_q,
            prev_halted,
            prev_err,
            fix_valid,
            sem_slot_valid,
            err_arg,
            bus_arg,
            halt_arg,
            dma_arg,
            inst_slot_valid
        );
        for e in 0..6 {
            self.sem_arg[e].clock.next = self.clock.val();
            self.sem_arg[e].d.next = self.sem_arg[e].q.val();
            self.inst_arg[e].clock.next = self.clock.val();
            self.inst_arg[e].d.next = self.inst_arg[e].q.val();
        }
        // ---- bus: read-only ring SRAM ----
        self.bus_ok.next = self.req_valid.val()
            & !self.reset.val()
            & !self.req_write.val()
            & !self.req_addr.val().get_bit(0)
            & !self.req_addr.val().get_bit(1)
            & ((self.req_addr.val() & self.ring_hi.val()) == 0);
        self.rsp_valid_q.d.next = self.req_valid.val() & !self.reset.val();
        self.rsp_err_q.d.next = self.req_valid.val() & !self.reset.val() & !self.bus_ok.val();
        self.rvalid_q.d.next = self.bus_ok.val();
        self.lane_q.d.next = self.req_addr.val().get_bits::<2>(2);
        self.rsp_valid.next = self.rsp_valid_q.q.val();
        self.rsp_err.next = self.rsp_err_q.q.val();
        self.rsp_rdata.next = 0.into();
        if self.rvalid_q.q.val() {
            if self.lane_q.q.val() == 0 {
                self.rsp_rdata.next = self.lane[0].read_data.val();
            } else if self.lane_q.q.val() == 1 {
                self.rsp_rdata.next = self.lane[1].read_data.val();
            } else if self.lane_q.q.val() == 2 {
                self.rsp_rdata.next = self.lane[2].read_data.val();
            } else {
                self.rsp_rdata.next = self.lane[3].read_data.val();
            }
        }
        // ---- the drop count: last cycle's drops added now ----
        self.pop2.next = (self.drop_bits_q.q.val() & 0x5555) + ((self.drop_bits_q.q.val() >> 1) & 0x5555);
        self.pop4.next = (self.pop2.val() & 0x3333) + ((self.pop2.val() >> 2) & 0x3333);
        self.pop8.next = (self.pop4.val() & 0x0F0F) + ((self.pop4.val() >> 4) & 0x0F0F);
        self.drops.next = (self.pop8.val() & 0x00FF) + ((self.pop8.val() >> 8) & 0x00FF);
        self.dropped_now.next = self.dropped_acc.q.val() + bit_cast::<32, 16>(self.drops.val());
        self.dropped_acc.d.next = self.dropped_now.val();
        // ---- post the first waiting slot when the ring has room ----
        self.active.next = (self.size.val() != 0) & (self.size.val() <= self.cap.val());
        self.head_inc.next = self.head_inc_x.q.val() ^ 1;
        self.inc16.next = self.head_inc.val().get_bits::<16>(0);
        self.size16.next = self.size.val().get_bits::<16>(0);
        self.wrap.next = self.inc16.val() >= self.size16.val();
        self.next_head.next = self.head_inc.val();
        self.post.next = self.active.val() & (self.head_inc.val() != self.tail.val()) & !self.reset.val();
        if self.wrap.val() {
            self.next_head.next = 0.into();
            self.post.next = self.active.val() & (self.tail.val() != 0) & !self.reset.val();
        }
        self.fix_free.next = 0.into();
        self.sem_free.next = 0.into();
        self.inst_free.next = 0.into();
        self.w0.next = 0.into();
        self.w1.next = 0.into();
        if self.fix_valid.q.val().get_bit(0) {
            self.fix_free.next = 1.into();
            self.w0.next = self.w0_of[0].val();
            self.w1.next = bit_cast::<32, 5>(self.err_arg.q.val());
        } else if self.fix_valid.q.val().get_bit(1) {
            self.fix_free.next = 2.into();
            self.w0.next = self.w0_of[1].val();
            self.w1.next = self.bus_arg.q.val();
        } else if self.fix_valid.q.val().get_bit(2) {
            self.fix_free.next = 4.into();
            self.w0.next = self.w0_of[2].val();
            self.w1.next = bit_cast::<32, 16>(self.halt_arg.q.val());
        } else if self.fix_valid.q.val().get_bit(3) {
            self.fix_free.next = 8.into();
            self.w0.next = self.w0_of[3].val();
            self.w1.next = bit_cast::<32, 8>(self.dma_arg.q.val());
        } else if self.sem_slot_valid.q.val().get_bit(0) {
            self.sem_free.next = 1.into();
            self.w0.next = self.w0_of[4].val();
            self.w1.next = bit_cast::<32, 8>(self.sem_arg[0].q.val());
        } else if self.sem_slot_valid.q.val().get_bit(1) {
            self.sem_free.next = 2.into();
            self.w0.next = self.w0_of[5].val();
            self.w1.next = bit_cast::<32, 8>(self.sem_arg[1].q.val());
        } else if self.sem_slot_valid.q.val().get_bit(2) {
            self.sem_free.next = 4.into();
            self.w0.next = self.w0_of[6].val();
            self.w1.next = bit_cast::<32, 8>(self.sem_arg[2].q.val());
        } else if self.sem_slot_valid.q.val().get_bit(3) {
            self.sem_free.next = 8.into();
            self.w0.next = self.w0_of[7].val();
            self.w1.next = bit_cast::<32, 8>(self.sem_arg[3].q.val());
        } else if self.sem_slot_valid.q.val().get_bit(4) {
            self.sem_free.next = 16.into();
            self.w0.next = self.w0_of[8].val();
            self.w1.next = bit_cast::<32, 8>(self.sem_arg[4].q.val());
        } else if self.sem_slot_valid.q.val().get_bit(5) {
            self.sem_free.next = 32.into();
            self.w0.next = self.w0_of[9].val();
            self.w1.next = bit_cast::<32, 8>(self.sem_arg[5].q.val());
        } else if self.inst_slot_valid.q.val().get_bit(0) {
            self.inst_free.next = 1.into();
            self.w0.next = self.w0_of[10].val();
            self.w1.next = self.inst_arg[0].q.val();
        } else if self.inst_slot_valid.q.val().get_bit(1) {
            self.inst_free.next = 2.into();
            self.w0.next = self.w0_of[11].val();
            self.w1.next = self.inst_arg[1].q.val();
        } else if self.inst_slot_valid.q.val().get_bit(2) {
            self.inst_free.next = 4.into();
            self.w0.next = self.w0_of[12].val();
            self.w1.next = self.inst_arg[2].q.val();
        } else if self.inst_slot_valid.q.val().get_bit(3) {
            self.inst_free.next = 8.into();
            self.w0.next = self.w0_of[13].val();
            self.w1.next = self.inst_arg[3].q.val();
        } else if self.inst_slot_valid.q.val().get_bit(4) {
            self.inst_free.next = 16.into();
            self.w0.next = self.w0_of[14].val();
            self.w1.next = self.inst_arg[4].q.val();
        } else if self.inst_slot_valid.q.val().get_bit(5) {
            self.inst_free.next = 32.into();
            self.w0.next = self.w0_of[15].val();
            self.w1.next = self.inst_arg[5].q.val();
        } else {
            self.post.next = false;
        }
        if !self.post.val() {
            self.fix_free.next = 0.into();
            self.sem_free.next = 0.into();
            self.inst_free.next = 0.into();
        }
        for k in 0..4 {
            self.lane[k].clock.next = self.clock.val();
            self.lane[k].read_enable.next = self.bus_ok.val();
            self.lane[k].read_address.next = self.req_addr.val().get_bits::<RW>(4);
            self.lane[k].write_address.next = self.head_q.q.val().get_bits::<RW>(0);
            self.lane[k].write_strobe.next = 0.into();
            if self.post.val() {
                self.lane[k].write_strobe.next = 15.into();
            }
        }
        self.lane[0].write_data.next = self.w0.val() | (bit_cast::<32, 16>(self.seq_q.q.val()) << 16);
        self.lane[1].write_data.next = self.w1.val();
        self.lane[2].write_data.next = self.dropped_now.val();
        self.lane[3].write_data.next = self.cycle_q.q.val();
        if self.post.val() {
            self.head_q.d.next = self.next_head.val();
            self.head_inc_x.d.next = (self.head_inc.val() + 1) ^ 1;
            if self.wrap.val() {
                self.head_inc_x.d.next = 0.into();
            }
            self.seq_q.d.next = self.seq_q.q.val() + 1;
        }
        // ---- capture this cycle's events into their slots ----
        // (a DFF's `d` is an input: rust-hdl's simulator reads back its value
        // from the previous pass, so the slots' next state lives in locals)
        self.fix_next.next = self.fix_valid.q.val() & !self.fix_free.val();
        self.sem_next.next = self.sem_slot_valid.q.val() & !self.sem_free.val();
        self.inst_next.next = self.inst_slot_valid.q.val() & !self.inst_free.val();
        self.new_err.next = self.dma_err.val() & !self.prev_err.q.val();
        self.new_halt.next = self.halted.val() & !self.prev_halted.q.val();
        self.drop_fix.next = 0.into();
        self.drop_sem.next = 0.into();
        self.drop_inst.next = 0.into();
        if self.active.val() {
            if self.enable.val().get_bit(0) & (self.new_err.val() != 0) {
                self.fix_next.next = self.fix_next.val() | 1;
                // Merge into a waiting slot; a free (or just posted) one starts afresh.
                if self.fix_valid.q.val().get_bit(0) & !self.fix_free.val().get_bit(0) {
                    self.err_arg.d.next = self.err_arg.q.val() | self.new_err.val();
                } else {
                    self.err_arg.d.next = self.new_err.val();
                }
            }
            if self.enable.val().get_bit(2) & (self.new_halt.val() != 0) {
                self.fix_next.next = self.fix_next.val() | 4;
                // Merge into a waiting slot; a free (or just posted) one starts afresh.
                if self.fix_valid.q.val().get_bit(2) & !self.fix_free.val().get_bit(2) {
                    self.halt_arg.d.next = self.halt_arg.q.val() | self.new_halt.val();
                } else {
                    self.halt_arg.d.next = self.new_halt.val();
                }
            }
            if self.enable.val().get_bit(0) & self.bus_err.val() {
                if self.fix_valid.q.val().get_bit(1) & !self.fix_free.val().get_bit(1) {
                    self.drop_fix.next = self.drop_fix.val() | 1;
                } else {
                    self.fix_next.next = self.fix_next.val() | 2;
                    self.bus_arg.d.next = self.bus_addr.val();
                }
            }
            if self.enable.val().get_bit(2) & self.dma_done.val() {
                if self.fix_valid.q.val().get_bit(3) & !self.fix_free.val().get_bit(3) {
                    self.drop_fix.next = self.drop_fix.val() | 2;
                } else {
                    self.fix_next.next = self.fix_next.val() | 8;
                    self.dma_arg.d.next = self.dma_index.val();
                }
            }
            for e in 0..6 {
                if self.enable.val().get_bit(1) & self.sem_valid.val().get_bit(e) {
                    if self.sem_slot_valid.q.val().get_bit(e) & !self.sem_free.val().get_bit(e) {
                        self.drop_sem.next = self.drop_sem.val() | self.eng_bit[e].val();
                    } else {
                        self.sem_next.next = self.sem_next.val() | self.eng_bit[e].val();
                        self.sem_arg[e].d.next = self.sem_index[e].val();
                    }
                }
            }
            for e in 0..6 {
                if self.enable.val().get_bit(2) & self.inst_valid.val().get_bit(e) {
                    if self.inst_slot_valid.q.val().get_bit(e) & !self.inst_free.val().get_bit(e) {
                        self.drop_inst.next = self.drop_inst.val() | self.eng_bit[e].val();
                    } else {
                        self.inst_next.next = self.inst_next.val() | self.eng_bit[e].val();
                        self.inst_arg[e].d.next = self.inst_tag[e].val();
                    }
                }
            }
        }
        self.fix_valid.d.next = self.fix_next.val();
        self.sem_slot_valid.d.next = self.sem_next.val();
        self.inst_slot_valid.d.next = self.inst_next.val();
        self.prev_err.d.next = self.dma_err.val();
        self.prev_halted.d.next = self.halted.val();
        self.drop_bits.next = bit_cast::<16, 2>(self.drop_fix.val()) | (bit_cast::<16, 6>(self.drop_sem.val()) << 2) | (bit_cast::<16, 6>(self.drop_inst.val()) << 8);
        self.drop_bits_q.d.next = self.drop_bits.val();
        self.cycle_q.d.next = self.cycle_q.q.val() + 1;
        self.head.next = self.head_q.q.val();
        self.dropped.next = self.dropped_now.val();
        // Last cycle's drops: the sticky status bit's one-cycle pulse.
        self.overflow.next = self.drop_bits_q.q.val() != 0;
        if self.reset.val() {
            self.rsp_valid_q.d.next = false;
            self.rsp_err_q.d.next = false;
            self.rvalid_q.d.next = false;
            self.head_q.d.next = 0.into();
            self.head_inc_x.d.next = 0.into();
            self.seq_q.d.next = 0.into();
            self.dropped_acc.d.next = 0.into();
            self.drop_bits_q.d.next = 0.into();
            self.cycle_q.d.next = 0.into();
            self.prev_halted.d.next = 0.into();
            self.prev_err.d.next = 0.into();
            self.fix_valid.d.next = 0.into();
            self.sem_slot_valid.d.next = 0.into();
            self.err_arg.d.next = 0.into();
            self.bus_arg.d.next = 0.into();
            self.halt_arg.d.next = 0.into();
            self.dma_arg.d.next = 0.into();
            self.inst_slot_valid.d.next = 0.into();
            for e in 0..6 {
                self.sem_arg[e].d.next = 0.into();
                self.inst_arg[e].d.next = 0.into();
            }
        }
    }
}
