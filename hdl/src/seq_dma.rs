//! # SEQ DMA: descriptor rings, tail-pointer doorbells, EVT_SEM completion
//!
//! DIGEST §5. `[S]`: the SEQ has DMA rings (seed 004 §7 names them: the
//! I-cache fill ring and the stdio ring). `[I]`: that a descriptor's
//! completion increments the TOP_SP EVT_SEM INC slot — seed 001 §3b puts
//! that completion on the collective DMA rings, and this model gives it to
//! the SEQ's rings, which are the only DMA it has. `[D]`: everything about
//! the descriptor and the engine's timing.
//!
//! The ring registers are the SEQ's (POOL NX) generated register bundle
//! (`dma_ctrl`, `dma_{rx,tx}_ring_{base,length,head,tail,tail_inc}`); this
//! block takes their outputs. It owns a small **DMA SRAM** of `2^AW` words
//! that holds the descriptor rings and the data the descriptors move.
//!
//! ## Descriptor `[D]`: 16 bytes, little-endian words
//! | word | meaning |
//! |---|---|
//! | 0 | source: byte offset in the DMA SRAM |
//! | 1 | destination: byte offset in the DMA SRAM; for OP_SOC_WRITE, the byte offset of the 8-byte SoC address (low word first) |
//! | 2 | `[15:0]` length in 32-bit words (0 = completion only); `[17:16]` op: 0 copy, 1 add (destination += source, 32-bit wrapping), 2 SoC write, 3 reserved (`tpb_spec::seq_dma::OP_*`) |
//! | 3 | completion address: the low 32 bits of the TOP_SP EVT_SEM INC slot (`sp_base + inc + idx*4`, inc = 0x1800); 0 = none |
//!
//! ## Engine `[D]`
//! - `dma_ctrl.enable` rising: the hardware head of each ring is loaded from
//!   its `head` register; enable low: pending work is dropped.
//! - A write to `tail_inc` (enable high) adds its value to the ring's pending
//!   count (`tail` is the host's bookkeeping; the engine does not read it).
//! - While work is pending (RX ring first, then TX): read the 4 descriptor
//!   words at `base + 16*head`, copy `length` words (read, then write, per
//!   word; OP_ADD reads the destination word too and writes the sum;
//!   OP_SOC_WRITE first reads the SoC address, then puts each word on the
//!   system master port, `m_valid` with `m_addr` = address + 4·word and
//!   `m_wdata`, held until an edge sees `m_ack`), then the completion: a valid INC-slot address (the offset in
//!   the local-register aperture, `[15:0]`, in the INC window
//!   0x1800..0x1BFC, 4-byte aligned: [`IncSlot`]) raises the doorbell `db_valid` with
//!   `db_index = addr[9:2]`, `db_amount = 1` until `db_ready`; then `head`
//!   advances modulo `length`, pending decrements, the ring's `done` counter
//!   increments.
//! - Errors (sticky, write 1 to clear): bit 0 a completion address outside
//!   the INC window (no doorbell, the descriptor still retires); bit 1 a
//!   descriptor, source or destination outside the DMA SRAM (the descriptor
//!   retires without copying or completing); bit 2 a tail increment on a
//!   ring of length 0 (ignored); bit 3 a SoC write answered with `m_err`
//!   (the descriptor retires there, without completing); bit 4 op 3 (the
//!   descriptor retires without moving data or completing).
//! - Every SRAM access of the engine takes 2 cycles (request, data) and waits
//!   while the bus uses the SRAM in the same cycle (the bus has priority).
//!
//! ## Bus window (offsets within the block)
//! - `0x000 .. 4·2^AW`: the DMA SRAM (word access).
//! - status `[D]`: `0x800` rx hw head, `0x804` rx pending, `0x808` rx done,
//!   `0x80c` tx hw head, `0x810` tx pending, `0x814` tx done, `0x818` error
//!   (w1c), `0x81c` busy (bit 0). All other offsets, misaligned addresses and
//!   writes to read-only status answer `rsp_err` (and change nothing).
//!
//! ```
//! use tpb_hdl::seq_dma::SeqDma;
//! let map = tpb_regmap::builtin(tpb_regmap::Arch::Cayman).unwrap();
//! let mut dma = SeqDma::<8>::of(&map).unwrap();
//! let v = tpb_hdl::verilog::of(&mut dma, "seq_dma");
//! assert!(v.contains("module seq_dma"));
//! ```

use crate::tcm::Tcm;
use ring::DmaRing;
use rust_hdl::prelude::*;
pub use tpb_regmap::layout::IncSlot;

mod ring;
use tpb_regmap::layout::{LayoutError, TopLayout};
use tpb_regmap::RegMap;

/// Offset and size of the status registers (`[D]`, from the map's
/// `seq_dma` block through `tpb-spec`; their order is `tpb_spec::seq_dma::WORDS`).
pub use tpb_spec::seq_dma::{STATUS, STATUS_SPAN};
/// The tops' SRAM size: 2^9 words (2 KiB, `tpb_spec::seq_dma::SRAM_AW`).
pub const DEFAULT_AW: usize = tpb_spec::seq_dma::SRAM_AW;

// Engine states (rust-hdl's Verilog generator takes literals, not Rust
// constants, so `update` spells them as numbers): 0 idle, 1 descriptor
// fetch, 2 read a source word, 3 write a destination word, 4 completion,
// 5 read the destination word (add), 6 read the SoC address (SoC write),
// 7 the SoC write on the master port.

bar0_slave_block! {
pub struct SeqDma<const AW: usize> {
    pub enable: Signal<In, Bit>,
    pub rx_base: Signal<In, Bits<32>>,
    pub rx_length: Signal<In, Bits<32>>,
    pub rx_head: Signal<In, Bits<32>>,
    pub rx_tail_inc: Signal<In, Bits<32>>,
    pub rx_tail_inc_pulse: Signal<In, Bit>,
    pub tx_base: Signal<In, Bits<32>>,
    pub tx_length: Signal<In, Bits<32>>,
    pub tx_head: Signal<In, Bits<32>>,
    pub tx_tail_inc: Signal<In, Bits<32>>,
    pub tx_tail_inc_pulse: Signal<In, Bit>,
    pub db_valid: Signal<Out, Bit>,
    pub db_index: Signal<Out, Bits<8>>,
    pub db_amount: Signal<Out, Bits<32>>,
    pub db_ready: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    /// The sticky error bits (the status window's `0x818`), for the notification unit.
    pub errors: Signal<Out, Bits<5>>,
    /// The system master port (`[D]`): an OP_SOC_WRITE word's write of
    /// `m_wdata` to the SoC address `m_addr`, held until the edge that sees
    /// `m_ack` (with `m_err` for an error answer).
    pub m_valid: Signal<Out, Bit>,
    pub m_addr: Signal<Out, Bits<64>>,
    pub m_wdata: Signal<Out, Bits<32>>,
    pub m_ack: Signal<In, Bit>,
    pub m_err: Signal<In, Bit>,
    sram: Tcm<AW>,
    sram_hi: Constant<Bits<32>>,
    status_base: Constant<Bits<32>>,
    status_mask: Constant<Bits<32>>,
    /// A completion address is an INC slot when `addr & done_mask == done_base`.
    done_base: Constant<Bits<32>>,
    done_mask: Constant<Bits<32>>,
    rsp_valid_q: DFF<Bit>,
    rsp_err_q: DFF<Bit>,
    rsp_rdata_q: DFF<Bits<32>>,
    enable_q: DFF<Bit>,
    /// The two rings' heads, pending counts and done counters.
    rx: DmaRing,
    tx: DmaRing,
    error: DFF<Bits<5>>,
    state: DFF<Bits<3>>,
    ring_tx: DFF<Bit>,
    desc_k: DFF<Bits<2>>,
    waiting: DFF<Bit>,
    d_src: DFF<Bits<32>>,
    d_dst: DFF<Bits<32>>,
    d_len: DFF<Bits<16>>,
    d_op: DFF<Bits<2>>,
    soc_lo: DFF<Bits<32>>,
    soc_hi: DFF<Bits<32>>,
    d_done_addr: DFF<Bits<32>>,
    count: DFF<Bits<16>>,
    data: DFF<Bits<32>>,
    bus_sram: Signal<Local, Bit>,
    bus_status: Signal<Local, Bit>,
    desc_addr: Signal<Local, Bits<32>>,
    src_addr: Signal<Local, Bits<32>>,
    dst_addr: Signal<Local, Bits<32>>,
    ptr_addr: Signal<Local, Bits<32>>,
    retire: Signal<Local, Bit>,
    ask: Signal<Local, Bit>,
    err_set: Signal<Local, Bits<5>>,
    err_kept: Signal<Local, Bits<5>>,
}
}

impl<const AW: usize> SeqDma<AW> {
    /// The engine of `map`'s tops.
    pub fn of(map: &RegMap) -> Result<Self, LayoutError> {
        Self::new(&TopLayout::of(map)?.inc_slot)
    }

    /// An engine whose completions are INC slots `slot` (4 bytes apart,
    /// 256 of them: the doorbell index is `addr[9:2]`).
    pub fn new(slot: &IncSlot) -> Result<Self, LayoutError> {
        if (slot.span, slot.stride) != (0x400, 4) {
            return Err(LayoutError::Bad {
                what: "seq.dma".into(),
                detail: format!("the doorbell index is addr[9:2]: the INC window must hold 256 slots 4 bytes apart, not {:#x}/{}", slot.span, slot.stride),
            });
        }
        Ok(bar0_slave_new! { SeqDma {
            enable, rx_base, rx_length, rx_head, rx_tail_inc, rx_tail_inc_pulse, tx_base, tx_length, tx_head, tx_tail_inc,
            tx_tail_inc_pulse, db_valid, db_index, db_amount, db_ready, busy, errors, m_valid, m_addr, m_wdata, m_ack,
            m_err, sram,
            sram_hi: Constant::new((!((4u64 << AW) - 1) & 0xffff_ffff).into()),
            status_base: Constant::new(u64::from(STATUS).into()),
            status_mask: Constant::new(u64::from(!(STATUS_SPAN - 1)).into()),
            done_base: Constant::new(u64::from(slot.base).into()),
            done_mask: Constant::new(u64::from(slot.mask).into()),
            rsp_valid_q, rsp_err_q, rsp_rdata_q, enable_q, rx, tx, error, state, ring_tx, desc_k, waiting, d_src, d_dst, d_len, d_op, soc_lo, soc_hi, d_done_addr,
            count, data, bus_sram, bus_status, desc_addr, src_addr, dst_addr, ptr_addr, retire, ask, err_set,
            err_kept,
        } })
    }
}

impl<const AW: usize> Logic for SeqDma<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rsp_valid_q,
            rsp_err_q,
            rsp_rdata_q,
            enable_q,
            error,
            state,
            ring_tx,
            desc_k,
            waiting,
            d_src,
            d_dst,
            d_len,
            d_op,
            soc_lo,
            soc_hi,
            d_done_addr,
            count,
            data
        );
        self.sram.clock.next = self.clock.val();
        self.sram.reset.next = self.reset.val();
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.rx.enable.next = self.enable.val();
        self.rx.enable_rise.next = self.enable.val() & !self.enable_q.q.val();
        self.rx.base.next = self.rx_base.val();
        self.rx.length.next = self.rx_length.val();
        self.rx.head.next = self.rx_head.val();
        self.rx.tail_inc.next = self.rx_tail_inc.val();
        self.rx.tail_inc_pulse.next = self.rx_tail_inc_pulse.val();
        self.tx.enable.next = self.enable.val();
        self.tx.enable_rise.next = self.enable.val() & !self.enable_q.q.val();
        self.tx.base.next = self.tx_base.val();
        self.tx.length.next = self.tx_length.val();
        self.tx.head.next = self.tx_head.val();
        self.tx.tail_inc.next = self.tx_tail_inc.val();
        self.tx.tail_inc_pulse.next = self.tx_tail_inc_pulse.val();
        // ---- bus: SRAM window and status registers ----
        self.bus_sram.next =
            self.req_valid.val() & !self.reset.val() & !self.req_addr.val().get_bit(0) & !self.req_addr.val().get_bit(1) & ((self.req_addr.val() & self.sram_hi.val()) == 0);
        self.bus_status.next = self.req_valid.val()
            & !self.reset.val()
            & !self.req_addr.val().get_bit(0)
            & !self.req_addr.val().get_bit(1)
            & ((self.req_addr.val() & self.status_mask.val()) == self.status_base.val());
        self.sram.pio_valid.next = self.bus_sram.val();
        self.sram.pio_write.next = self.req_write.val();
        self.sram.pio_word.next = self.req_addr.val().get_bits::<AW>(2);
        self.sram.pio_wdata.next = self.req_wdata.val();
        self.rsp_valid_q.d.next = self.req_valid.val();
        self.rsp_err_q.d.next = self.req_valid.val() & !self.bus_sram.val() & !self.bus_status.val();
        self.rsp_rdata_q.d.next = 0.into();
        self.err_set.next = 0.into();
        self.err_kept.next = self.error.q.val();
        if self.bus_status.val() {
            if self.req_addr.val().get_bits::<3>(2) == 6 {
                if self.req_write.val() {
                    self.err_kept.next = self.error.q.val() & !self.req_wdata.val().get_bits::<5>(0);
                } else {
                    self.rsp_rdata_q.d.next = bit_cast::<32, 5>(self.error.q.val());
                }
            } else if self.req_write.val() {
                self.rsp_err_q.d.next = true;
            } else if self.req_addr.val().get_bits::<3>(2) == 0 {
                self.rsp_rdata_q.d.next = self.rx.hw_head.val();
            } else if self.req_addr.val().get_bits::<3>(2) == 1 {
                self.rsp_rdata_q.d.next = self.rx.pending.val();
            } else if self.req_addr.val().get_bits::<3>(2) == 2 {
                self.rsp_rdata_q.d.next = self.rx.done.val();
            } else if self.req_addr.val().get_bits::<3>(2) == 3 {
                self.rsp_rdata_q.d.next = self.tx.hw_head.val();
            } else if self.req_addr.val().get_bits::<3>(2) == 4 {
                self.rsp_rdata_q.d.next = self.tx.pending.val();
            } else if self.req_addr.val().get_bits::<3>(2) == 5 {
                self.rsp_rdata_q.d.next = self.tx.done.val();
            } else if self.state.q.val() != 0 {
                self.rsp_rdata_q.d.next = 1.into();
            }
        }
        self.rsp_valid.next = self.rsp_valid_q.q.val();
        self.rsp_err.next = self.rsp_err_q.q.val();
        self.rsp_rdata.next = self.rsp_rdata_q.q.val();
        if self.sram.pio_rvalid.val() {
            self.rsp_rdata.next = self.sram.rdata.val();
        }
        // ---- the engine's SRAM port (free when the bus does not use the SRAM:
        // see the Tcm's priority rule) ----
        self.desc_addr.next = self.rx.desc_base.val() + (bit_cast::<32, 2>(self.desc_k.q.val()) << 2);
        if self.ring_tx.q.val() {
            self.desc_addr.next = self.tx.desc_base.val() + (bit_cast::<32, 2>(self.desc_k.q.val()) << 2);
        }
        self.src_addr.next = self.d_src.q.val() + (bit_cast::<32, 16>(self.count.q.val()) << 2);
        self.dst_addr.next = self.d_dst.q.val() + (bit_cast::<32, 16>(self.count.q.val()) << 2);
        self.ptr_addr.next = self.d_dst.q.val() + (bit_cast::<32, 2>(self.desc_k.q.val()) << 2);
        self.m_valid.next = self.state.q.val() == 7;
        self.m_addr.next = ((bit_cast::<64, 32>(self.soc_hi.q.val()) << 32) | bit_cast::<64, 32>(self.soc_lo.q.val())) + (bit_cast::<64, 16>(self.count.q.val()) << 2);
        self.m_wdata.next = self.data.q.val();
        self.sram.a_write.next = false;
        self.sram.a_word.next = self.desc_addr.val().get_bits::<AW>(2);
        self.sram.a_wdata.next = self.data.q.val();
        self.sram.a_wstrb.next = 15.into();
        self.db_valid.next = false;
        self.db_index.next = self.d_done_addr.q.val().get_bits::<8>(2);
        self.db_amount.next = 1.into();
        self.busy.next = self.state.q.val() != 0;
        self.errors.next = self.error.q.val();
        self.retire.next = false;
        // ---- the engine ----
        // Every SRAM access of a state is the same handshake: the state asks
        // (`ask`) while it is not waiting, the request is taken unless the bus
        // uses the SRAM in that cycle (then `waiting`), and the word arrives
        // with `a_rvalid` while waiting (`waiting` ends there). The states test
        // `waiting` first: the tests stay in the order that synthesises small.
        self.ask.next = false;
        if self.state.q.val() == 0 {
            if self.enable.val() & (self.rx.pending.val() != 0) {
                self.ring_tx.d.next = false;
                self.state.d.next = 1.into();
                self.desc_k.d.next = 0.into();
            } else if self.enable.val() & (self.tx.pending.val() != 0) {
                self.ring_tx.d.next = true;
                self.state.d.next = 1.into();
                self.desc_k.d.next = 0.into();
            }
        } else if self.state.q.val() == 1 {
            if self.waiting.q.val() {
                if self.sram.a_rvalid.val() {
                    self.desc_k.d.next = self.desc_k.q.val() + 1;
                    if self.desc_k.q.val() == 0 {
                        self.d_src.d.next = self.sram.rdata.val();
                    } else if self.desc_k.q.val() == 1 {
                        self.d_dst.d.next = self.sram.rdata.val();
                    } else if self.desc_k.q.val() == 2 {
                        self.d_len.d.next = self.sram.rdata.val().get_bits::<16>(0);
                        self.d_op.d.next = self.sram.rdata.val().get_bits::<2>(16);
                    } else {
                        self.d_done_addr.d.next = self.sram.rdata.val();
                        self.count.d.next = 0.into();
                        if self.d_op.q.val() == 2 {
                            self.state.d.next = 6.into();
                        } else if self.d_op.q.val() == 3 {
                            self.err_set.next = 16.into();
                            self.retire.next = true;
                        } else {
                            self.state.d.next = 2.into();
                        }
                    }
                }
            } else if (self.desc_addr.val() & self.sram_hi.val()) != 0 {
                self.err_set.next = 2.into();
                self.retire.next = true;
            } else {
                self.ask.next = true;
            }
        } else if self.state.q.val() == 2 {
            self.sram.a_word.next = self.src_addr.val().get_bits::<AW>(2);
            if self.count.q.val() == self.d_len.q.val() {
                self.state.d.next = 4.into();
            } else if self.waiting.q.val() {
                if self.sram.a_rvalid.val() {
                    self.data.d.next = self.sram.rdata.val();
                    if self.d_op.q.val() == 1 {
                        self.state.d.next = 5.into();
                    } else if self.d_op.q.val() == 2 {
                        self.state.d.next = 7.into();
                    } else {
                        self.state.d.next = 3.into();
                    }
                }
            } else if ((self.src_addr.val() & self.sram_hi.val()) != 0) | ((self.d_op.q.val() != 2) & ((self.dst_addr.val() & self.sram_hi.val()) != 0)) {
                self.err_set.next = 2.into();
                self.retire.next = true;
            } else {
                self.ask.next = true;
            }
        } else if self.state.q.val() == 3 {
            self.sram.a_word.next = self.dst_addr.val().get_bits::<AW>(2);
            self.sram.a_write.next = true;
            if self.waiting.q.val() {
                if self.sram.a_rvalid.val() {
                    self.count.d.next = self.count.q.val() + 1;
                    self.state.d.next = 2.into();
                }
            } else {
                self.ask.next = true;
            }
        } else if self.state.q.val() == 5 {
            // OP_ADD: the destination word, added to the source word.
            self.sram.a_word.next = self.dst_addr.val().get_bits::<AW>(2);
            if self.waiting.q.val() {
                if self.sram.a_rvalid.val() {
                    self.data.d.next = self.data.q.val() + self.sram.rdata.val();
                    self.state.d.next = 3.into();
                }
            } else {
                self.ask.next = true;
            }
        } else if self.state.q.val() == 6 {
            // OP_SOC_WRITE: the SoC address's two words.
            self.sram.a_word.next = self.ptr_addr.val().get_bits::<AW>(2);
            if self.waiting.q.val() {
                if self.sram.a_rvalid.val() {
                    self.desc_k.d.next = self.desc_k.q.val() + 1;
                    if self.desc_k.q.val().get_bit(0) {
                        self.soc_hi.d.next = self.sram.rdata.val();
                        self.state.d.next = 2.into();
                    } else {
                        self.soc_lo.d.next = self.sram.rdata.val();
                    }
                }
            } else if (self.ptr_addr.val() & self.sram_hi.val()) != 0 {
                self.err_set.next = 2.into();
                self.retire.next = true;
            } else {
                self.ask.next = true;
            }
        } else if self.state.q.val() == 7 {
            // OP_SOC_WRITE: the word's write on the system master port.
            if self.m_ack.val() & self.m_err.val() {
                self.err_set.next = 8.into();
                self.retire.next = true;
            } else if self.m_ack.val() {
                self.count.d.next = self.count.q.val() + 1;
                self.state.d.next = 2.into();
            }
        } else {
            // 4: the completion doorbell.
            if self.d_done_addr.q.val() == 0 {
                self.retire.next = true;
            } else if ((self.d_done_addr.q.val() & self.done_mask.val()) == self.done_base.val()) & !self.d_done_addr.q.val().get_bit(0) & !self.d_done_addr.q.val().get_bit(1) {
                self.db_valid.next = true;
                if self.db_ready.val() {
                    self.retire.next = true;
                }
            } else {
                self.err_set.next = 1.into();
                self.retire.next = true;
            }
        }
        // ---- the SRAM handshake ----
        self.sram.a_valid.next = self.ask.val();
        if self.ask.val() & !self.bus_sram.val() {
            self.waiting.d.next = true;
        }
        if self.waiting.q.val() & self.sram.a_rvalid.val() {
            self.waiting.d.next = false;
        }
        // ---- retire: the ring's head, pending count and done counter ----
        if self.retire.val() {
            self.state.d.next = 0.into();
        }
        self.rx.retire.next = self.retire.val() & !self.ring_tx.q.val();
        self.tx.retire.next = self.retire.val() & self.ring_tx.q.val();
        if self.rx.empty_ring_inc.val() | self.tx.empty_ring_inc.val() {
            self.err_set.next = self.err_set.val() | 4;
        }
        // (a DFF's `d` is an input: rust-hdl's simulator reads back its value
        // from the previous pass, so the w1c result lives in a local)
        self.error.d.next = self.err_kept.val() | self.err_set.val();
        // ---- enable: the rings load their heads on the rising edge and drop work when low ----
        self.enable_q.d.next = self.enable.val();
        if !self.enable.val() {
            self.state.d.next = 0.into();
            self.waiting.d.next = false;
        }
        if self.reset.val() {
            self.rsp_valid_q.d.next = false;
            self.rsp_err_q.d.next = false;
            self.enable_q.d.next = false;
            self.error.d.next = 0.into();
            self.state.d.next = 0.into();
            self.waiting.d.next = false;
        }
    }
}
