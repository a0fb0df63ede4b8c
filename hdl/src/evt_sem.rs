//! # EVT_SEM unit: 256 × 32-bit hardware semaphores
//!
//! DIGEST §3. Four bus windows of the local-register aperture, 4-byte
//! stride (`addr = window + idx * 4`): read, set, inc and dec, at the offsets
//! the map's `evt_sem` array gives ([`SemWindows`]; 0x1000, 0x1400, 0x1800
//! and 0x1C00 in every generation). A second **doorbell port** increments a
//! semaphore (the DMA tail-pointer write of DIGEST §5).
//!
//! ## Ports
//! - `clock`, `reset` (synchronous, active high);
//! - bus: `req_valid/req_write/req_addr[31:0]/req_wdata[31:0]` in,
//!   `rsp_valid/rsp_rdata[31:0]/rsp_err` out — the protocol of every register
//!   block (`bar0_port.rs`): sampled on a rising edge, answered during the next
//!   cycle, error for an address outside the four windows or not 4-byte aligned;
//! - doorbell: `db_valid`, `db_index[7:0]`, `db_amount[31:0]` in, `db_ready` out;
//!   an increment is taken on an edge where `db_valid & db_ready`;
//! - notification: `notif_valid` (one cycle) and `notif_index[7:0]`: which
//!   semaphore changed (the TPB's EVT_SEM notification class);
//! - `ready`: low while the semaphores are being cleared after reset.
//!
//! ## Behaviour (`[D]` choices, documented here and in the golden model)
//! - A write to **set** stores the value, to **inc** adds it, to **dec**
//!   subtracts it; a write to **read** changes nothing. A read of any window
//!   returns the value.
//! - Past 0xFFFFFFFF / below 0: wrap-around (modulo 2^32), or, with
//!   `saturate` ([`EvtSem::of`]), clamp to 0xFFFFFFFF / 0.
//! - **Same-cycle bus + doorbell**: the bus always goes first. A doorbell to
//!   the *same* semaphore is merged into the bus operation (bus op, then the
//!   increment); a doorbell to a *different* semaphore sees `db_ready = 0` and
//!   is taken in a later cycle. No increment is lost.
//! - After reset the unit clears all 256 semaphores, one per cycle; during those
//!   256 cycles `ready` and `db_ready` are low and bus requests answer with
//!   `rsp_err`.
//!
//! ## Implementation
//! The values live in a 256 × 32 synchronous RAM (block RAM on FPGAs: two
//! iCE40 SB_RAM40_4K). Read-modify-write is a two-stage pipeline: the RAM
//! is read at the request edge, the new value is computed and written at the
//! next edge; the value written is forwarded to an operation on the same
//! semaphore in the following cycle (the RAM returns old data on a
//! read-during-write), so back-to-back operations are exact; whether to
//! forward is decided as the operation enters the second stage. When wrapping,
//! the second stage adds one addend (± the bus value plus the doorbell's
//! amount, summed from registers while the RAM is read) to the old value, so
//! the RAM's output meets a single adder: the deepest path of the FPGA
//! prototype was the two adders in a row.
//!
//! ```
//! use tpb_hdl::evt_sem::EvtSem;
//! let map = tpb_regmap::builtin(tpb_regmap::Arch::Cayman).unwrap();
//! let v = tpb_hdl::verilog::of(&mut EvtSem::of(&map, false).unwrap(), "evt_sem");
//! assert!(v.contains("module evt_sem"));
//! ```

use rust_hdl::prelude::*;
use tpb_regmap::layout::LayoutError;
pub use tpb_regmap::layout::SemWindows;
use tpb_regmap::RegMap;

/// Number of semaphores the unit holds (its RAM: 2^8 words of 4 bytes).
pub const COUNT: u32 = 256;

bar0_slave_block! {
pub struct EvtSem {
    pub db_valid: Signal<In, Bit>,
    pub db_index: Signal<In, Bits<8>>,
    pub db_amount: Signal<In, Bits<32>>,
    pub db_ready: Signal<Out, Bit>,
    pub notif_valid: Signal<Out, Bit>,
    pub notif_index: Signal<Out, Bits<8>>,
    pub ready: Signal<Out, Bit>,
    /// Saturate instead of wrapping (a generation-time parameter).
    pub saturate: Constant<Bit>,
    /// The windows' offsets and the mask of one window's span.
    read_base: Constant<Bits<32>>,
    set_base: Constant<Bits<32>>,
    inc_base: Constant<Bits<32>>,
    dec_base: Constant<Bits<32>>,
    win_mask: Constant<Bits<32>>,
    req_win: Signal<Local, Bits<32>>,
    req_hit: Signal<Local, Bit>,
    req_op: Signal<Local, Bits<2>>,
    ram: RAM<Bits<32>, 8>,
    s1_valid: DFF<Bit>,
    s1_err: DFF<Bit>,
    s1_write: DFF<Bit>,
    s1_op: DFF<Bits<2>>,
    s1_idx: DFF<Bits<8>>,
    s1_wdata: DFF<Bits<32>>,
    s1_db: DFF<Bit>,
    s1_db_amount: DFF<Bits<32>>,
    /// The operation entering stage 1 is on the semaphore stage 1 writes
    /// now: it reads `fw_value` instead of the RAM (decided a cycle early,
    /// so the compare is not in front of the adder).
    fw_hit: DFF<Bit>,
    fw_value: DFF<Bits<32>>,
    clearing: DFF<Bit>,
    clear_idx: DFF<Bits<8>>,
    notif_valid_q: DFF<Bit>,
    notif_index_q: DFF<Bits<8>>,
    old: Signal<Local, Bits<32>>,
    after_bus: Signal<Local, Bits<32>>,
    new_value: Signal<Local, Bits<32>>,
    bus_write: Signal<Local, Bit>,
    bus_term: Signal<Local, Bits<32>>,
    db_term: Signal<Local, Bits<32>>,
    addend: Signal<Local, Bits<32>>,
    changes: Signal<Local, Bit>,
    bus_ok: Signal<Local, Bit>,
    bus_idx: Signal<Local, Bits<8>>,
    idx_next: Signal<Local, Bits<8>>,
    db_take: Signal<Local, Bit>,
}
}

fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).into())
}

impl EvtSem {
    /// A unit on `map`'s EVT_SEM windows that wraps (`saturate = false`) or
    /// saturates at the edges.
    pub fn of(map: &RegMap, saturate: bool) -> Result<Self, LayoutError> {
        Self::new(&SemWindows::of(map)?, saturate)
    }

    /// A unit decoding windows `w` (of [`COUNT`] semaphores, 4 bytes apart).
    pub fn new(w: &SemWindows, saturate: bool) -> Result<Self, LayoutError> {
        if (w.count, w.stride) != (COUNT, 4) {
            return Err(LayoutError::Bad {
                what: "evt_sem".into(),
                detail: format!("the unit holds {COUNT} semaphores 4 bytes apart; the map has {} with stride {}", w.count, w.stride),
            });
        }
        Ok(bar0_slave_new! { EvtSem {
            db_valid, db_index, db_amount, db_ready, notif_valid, notif_index, ready,
            saturate: Constant::new(saturate),
            read_base: c32(w.read),
            set_base: c32(w.set),
            inc_base: c32(w.inc),
            dec_base: c32(w.dec),
            win_mask: c32(!(w.span - 1)),
            req_win, req_hit, req_op, ram, s1_valid, s1_err, s1_write, s1_op, s1_idx, s1_wdata, s1_db, s1_db_amount,
            fw_hit, fw_value, clearing, clear_idx, notif_valid_q, notif_index_q, old, after_bus, new_value, bus_write,
            bus_term, db_term, addend, changes, bus_ok, bus_idx, idx_next, db_take,
        } })
    }
}

impl Logic for EvtSem {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_err, s1_write, s1_op, s1_idx, s1_wdata, s1_db, s1_db_amount, fw_hit, fw_value, clearing, clear_idx, notif_valid_q, notif_index_q);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        // ---- stage 0: decode the request and pick the RAM read address ----
        self.req_win.next = self.req_addr.val() & self.win_mask.val();
        self.req_hit.next = true;
        self.req_op.next = 0.into();
        if self.req_win.val() == self.set_base.val() {
            self.req_op.next = 1.into();
        } else if self.req_win.val() == self.inc_base.val() {
            self.req_op.next = 2.into();
        } else if self.req_win.val() == self.dec_base.val() {
            self.req_op.next = 3.into();
        } else if self.req_win.val() != self.read_base.val() {
            self.req_hit.next = false;
        }
        self.bus_ok.next = self.req_valid.val() & !self.clearing.q.val() & self.req_hit.val() & !self.req_addr.val().get_bit(0) & !self.req_addr.val().get_bit(1);
        self.bus_idx.next = self.req_addr.val().get_bits::<8>(2);
        self.db_take.next = self.db_valid.val() & !self.clearing.q.val() & (!self.bus_ok.val() | (self.bus_idx.val() == self.db_index.val()));
        self.db_ready.next = !self.clearing.q.val() & (!self.bus_ok.val() | (self.bus_idx.val() == self.db_index.val()));
        self.ram.read_address.next = self.db_index.val();
        if self.bus_ok.val() {
            self.ram.read_address.next = self.bus_idx.val();
        }
        self.s1_valid.d.next = self.req_valid.val();
        self.s1_err.d.next = self.req_valid.val() & !self.bus_ok.val();
        self.s1_write.d.next = self.req_write.val();
        self.s1_op.d.next = self.req_op.val();
        self.idx_next.next = self.db_index.val();
        if self.bus_ok.val() {
            self.idx_next.next = self.bus_idx.val();
        }
        self.s1_idx.d.next = self.idx_next.val();
        self.s1_wdata.d.next = self.req_wdata.val();
        self.s1_db.d.next = self.db_take.val();
        self.s1_db_amount.d.next = self.db_amount.val();
        // ---- stage 1: read-modify-write with forwarding ----
        self.old.next = self.ram.read_data.val();
        if self.fw_hit.q.val() {
            self.old.next = self.fw_value.q.val();
        }
        self.bus_write.next = self.s1_valid.q.val() & !self.s1_err.q.val() & self.s1_write.q.val();
        if self.saturate.val() {
            // Saturating: the bus operation clamps, then the doorbell's
            // increment clamps (two adders in a row).
            self.after_bus.next = self.old.val();
            if self.bus_write.val() {
                if self.s1_op.q.val() == 1 {
                    self.after_bus.next = self.s1_wdata.q.val();
                } else if self.s1_op.q.val() == 2 {
                    self.after_bus.next = self.old.val() + self.s1_wdata.q.val();
                    if (self.old.val() + self.s1_wdata.q.val()) < self.old.val() {
                        self.after_bus.next = 0xffff_ffff_u64.into();
                    }
                } else if self.s1_op.q.val() == 3 {
                    self.after_bus.next = self.old.val() - self.s1_wdata.q.val();
                    if self.old.val() < self.s1_wdata.q.val() {
                        self.after_bus.next = 0.into();
                    }
                }
            }
            self.new_value.next = self.after_bus.val();
            if self.s1_db.q.val() {
                self.new_value.next = self.after_bus.val() + self.s1_db_amount.q.val();
                if (self.after_bus.val() + self.s1_db_amount.q.val()) < self.after_bus.val() {
                    self.new_value.next = 0xffff_ffff_u64.into();
                }
            }
        } else {
            // Wrapping (modulo 2^32): old ± wdata + amount = old + addend,
            // where the addend comes from this stage's registers alone and is
            // summed while the RAM is read; the semaphore's value meets one
            // adder, not two in a row.
            self.db_term.next = 0.into();
            if self.s1_db.q.val() {
                self.db_term.next = self.s1_db_amount.q.val();
            }
            self.bus_term.next = 0.into();
            if self.bus_write.val() & (self.s1_op.q.val() == 2) {
                self.bus_term.next = self.s1_wdata.q.val();
            }
            if self.bus_write.val() & (self.s1_op.q.val() == 3) {
                self.bus_term.next = !self.s1_wdata.q.val() + 1;
            }
            self.addend.next = self.bus_term.val() + self.db_term.val();
            self.new_value.next = self.old.val() + self.addend.val();
            if self.bus_write.val() & (self.s1_op.q.val() == 1) {
                self.new_value.next = self.s1_wdata.q.val() + self.db_term.val();
            }
        }
        self.changes.next = (self.bus_write.val() & (self.s1_op.q.val() != 0)) | self.s1_db.q.val();
        self.ram.write_enable.next = self.changes.val();
        self.ram.write_address.next = self.s1_idx.q.val();
        self.ram.write_data.next = self.new_value.val();
        self.fw_hit.d.next = self.changes.val() & (self.s1_idx.q.val() == self.idx_next.val());
        self.fw_value.d.next = self.new_value.val();
        self.notif_valid_q.d.next = self.changes.val();
        self.notif_index_q.d.next = self.s1_idx.q.val();
        self.rsp_valid.next = self.s1_valid.q.val();
        self.rsp_err.next = self.s1_err.q.val();
        self.rsp_rdata.next = 0.into();
        if self.s1_valid.q.val() & !self.s1_err.q.val() & !self.s1_write.q.val() {
            self.rsp_rdata.next = self.old.val();
        }
        self.notif_valid.next = self.notif_valid_q.q.val();
        self.notif_index.next = self.notif_index_q.q.val();
        self.ready.next = !self.clearing.q.val();
        // ---- clear after reset: one semaphore per cycle ----
        if self.clearing.q.val() {
            self.ram.write_enable.next = true;
            self.ram.write_address.next = self.clear_idx.q.val();
            self.ram.write_data.next = 0.into();
            self.clear_idx.d.next = self.clear_idx.q.val() + 1;
            self.fw_hit.d.next = false;
            self.notif_valid_q.d.next = false;
            if self.clear_idx.q.val() == 255 {
                self.clearing.d.next = false;
            }
        }
        if self.reset.val() {
            self.clearing.d.next = true;
            self.clear_idx.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s1_err.d.next = false;
            self.s1_db.d.next = false;
            self.fw_hit.d.next = false;
            self.notif_valid_q.d.next = false;
        }
    }
}
