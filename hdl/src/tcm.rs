//! # TCM: a core's tightly-coupled memory (IRAM, DRAM, SPAD) with two ports
//!
//! One memory of `2^AW` 32-bit words with byte write strobes, so a core
//! can store bytes and halfwords in one cycle ([`WordRam`]: block RAM with a
//! byte mask on FPGAs), read only when a read is asked for. Used for every
//! Q7 IRAM/DRAM (DIGEST §2.3, §5),
//! the SEQ IRAM/DRAM and the TOP_SP SPADs of the TPB top.
//!
//! ## Ports (all sampled on a rising edge of `clock`)
//! - **PIO** (`pio_*`): the BAR0 programmed-I/O path. `pio_valid`,
//!   `pio_write`, `pio_addr` (byte address within the memory; bits `[1:0]`
//!   and bits above the memory are ignored here: the decoder in front checks
//!   them), `pio_wdata` (a whole word). Highest priority, never refused.
//! - **A** (`a_*`): a core's port (the owner muxes fetch and load/store onto
//!   it). `a_valid`, `a_write`, `a_word` (word address), `a_wdata`,
//!   `a_wstrb[3:0]` (byte enables, bit n = byte n, little-endian). A request
//!   is taken on an edge where `a_valid & !pio_valid`: the owner drives both
//!   ports, so it knows when port A waits (no `ready` output, which would
//!   make a combinational path back into the owner's logic).
//! - Responses: `pio_rvalid`, `a_rvalid` are high for one cycle after the
//!   edge that took the request (writes too); `rdata` holds the word read,
//!   for whichever port's `*_rvalid` is high (0 after a write).
//!
//! Priority `[D]`: PIO > A. `reset` clears the response flags only: the
//! memories keep their contents across a reset, as SRAM does, and a request
//! in a reset cycle is still carried out (the owner gates what it must).
//!
//! ```
//! use tpb_hdl::tcm::Tcm;
//! let v = tpb_hdl::verilog::of(&mut Tcm::<8>::default(), "tcm");
//! assert!(v.contains("module tcm"));
//! ```

use crate::ram::WordRam;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Tcm<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub pio_valid: Signal<In, Bit>,
    pub pio_write: Signal<In, Bit>,
    pub pio_word: Signal<In, Bits<AW>>,
    pub pio_wdata: Signal<In, Bits<32>>,
    pub pio_rvalid: Signal<Out, Bit>,
    pub a_valid: Signal<In, Bit>,
    pub a_write: Signal<In, Bit>,
    pub a_word: Signal<In, Bits<AW>>,
    pub a_wdata: Signal<In, Bits<32>>,
    pub a_wstrb: Signal<In, Bits<4>>,
    pub a_rvalid: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    mem: WordRam<AW>,
    pio_rvalid_q: DFF<Bit>,
    a_rvalid_q: DFF<Bit>,
    read_q: DFF<Bit>,
    a_take: Signal<Local, Bit>,
    word: Signal<Local, Bits<AW>>,
    wdata: Signal<Local, Bits<32>>,
    wstrb: Signal<Local, Bits<4>>,
    we: Signal<Local, Bit>,
}

impl<const AW: usize> Logic for Tcm<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pio_rvalid_q, a_rvalid_q, read_q);
        self.mem.clock.next = self.clock.val();
        // ---- arbitration: PIO > A ----
        self.a_take.next = self.a_valid.val() & !self.pio_valid.val();
        self.word.next = self.a_word.val();
        self.we.next = self.a_take.val() & self.a_write.val();
        self.wdata.next = self.a_wdata.val();
        self.wstrb.next = self.a_wstrb.val();
        if self.pio_valid.val() {
            self.word.next = self.pio_word.val();
            self.we.next = self.pio_write.val();
            self.wdata.next = self.pio_wdata.val();
            self.wstrb.next = 15.into();
        }
        self.mem.read_enable.next = (self.pio_valid.val() | self.a_take.val()) & !self.we.val();
        self.mem.read_address.next = self.word.val();
        self.mem.write_address.next = self.word.val();
        self.mem.write_data.next = self.wdata.val();
        self.mem.write_strobe.next = 0.into();
        if self.we.val() {
            self.mem.write_strobe.next = self.wstrb.val();
        }
        // ---- responses, one cycle after the request edge ----
        self.pio_rvalid_q.d.next = self.pio_valid.val();
        self.a_rvalid_q.d.next = self.a_take.val();
        self.read_q.d.next = (self.pio_valid.val() | self.a_take.val()) & !self.we.val();
        if self.reset.val() {
            self.pio_rvalid_q.d.next = false;
            self.a_rvalid_q.d.next = false;
            self.read_q.d.next = false;
        }
        self.pio_rvalid.next = self.pio_rvalid_q.q.val();
        self.a_rvalid.next = self.a_rvalid_q.q.val();
        self.rdata.next = 0.into();
        if self.read_q.q.val() {
            self.rdata.next = self.mem.read_data.val();
        }
    }
}
