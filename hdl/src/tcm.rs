//! # TCM: a core's tightly-coupled memory (IRAM, DRAM, SPAD) with two ports
//!
//! One memory of `2^AW` 32-bit words, stored as four byte lanes so a core
//! can store bytes and halfwords in one cycle (each lane is one synchronous
//! RAM: block RAM on FPGAs). Used for every Q7 IRAM/DRAM (DIGEST §2.3, §5),
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
    lane0: RAM<Bits<8>, AW>,
    lane1: RAM<Bits<8>, AW>,
    lane2: RAM<Bits<8>, AW>,
    lane3: RAM<Bits<8>, AW>,
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
        self.lane0.read_clock.next = self.clock.val();
        self.lane0.write_clock.next = self.clock.val();
        self.lane1.read_clock.next = self.clock.val();
        self.lane1.write_clock.next = self.clock.val();
        self.lane2.read_clock.next = self.clock.val();
        self.lane2.write_clock.next = self.clock.val();
        self.lane3.read_clock.next = self.clock.val();
        self.lane3.write_clock.next = self.clock.val();
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
        self.lane0.read_address.next = self.word.val();
        self.lane1.read_address.next = self.word.val();
        self.lane2.read_address.next = self.word.val();
        self.lane3.read_address.next = self.word.val();
        self.lane0.write_address.next = self.word.val();
        self.lane1.write_address.next = self.word.val();
        self.lane2.write_address.next = self.word.val();
        self.lane3.write_address.next = self.word.val();
        self.lane0.write_data.next = self.wdata.val().get_bits::<8>(0);
        self.lane1.write_data.next = self.wdata.val().get_bits::<8>(8);
        self.lane2.write_data.next = self.wdata.val().get_bits::<8>(16);
        self.lane3.write_data.next = self.wdata.val().get_bits::<8>(24);
        self.lane0.write_enable.next = self.we.val() & self.wstrb.val().get_bit(0);
        self.lane1.write_enable.next = self.we.val() & self.wstrb.val().get_bit(1);
        self.lane2.write_enable.next = self.we.val() & self.wstrb.val().get_bit(2);
        self.lane3.write_enable.next = self.we.val() & self.wstrb.val().get_bit(3);
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
            self.rdata.next = bit_cast::<32, 8>(self.lane0.read_data.val())
                | (bit_cast::<32, 8>(self.lane1.read_data.val()) << 8)
                | (bit_cast::<32, 8>(self.lane2.read_data.val()) << 16)
                | (bit_cast::<32, 8>(self.lane3.read_data.val()) << 24);
        }
    }
}
