//! # WordRam: a synchronous RAM of 32-bit words with byte write strobes and a read enable
//!
//! `2^AW` words, one clock. At a rising edge: if `read_enable`, `read_data`
//! takes the word at `read_address` (the old word when that word is written
//! at the same edge); each bit `n` of `write_strobe` writes byte `n` of
//! `write_data` into the word at `write_address`. `read_data` holds its
//! value while no read is enabled, and has no power-on value in hardware
//! (0 in simulation). Memories start at zero in simulation (a `[D]`
//! assumption every engine shares).
//!
//! This is the block-RAM template with byte enables (one 32-bit memory where
//! rust-hdl's `RAM` needs four byte lanes), and a read enable, so a memory
//! that is not read costs a simulator nothing. Synthesis tools infer block
//! RAM with a byte-wide write mask from it (checked by Yosys for iCE40 in
//! `testbench/tests/verilog.rs`). The lean emitter (`crate::verilog`)
//! writes it into the module that owns it, with a second form of its
//! process for Verilator alone (a blocking write: docs/design/emission.md);
//! standing alone, its Verilog is the module below.
//!
//! ```
//! use tpb_hdl::ram::WordRam;
//! let v = tpb_hdl::verilog::of(&mut tpb_hdl::tcm::Tcm::<8>::default(), "tcm");
//! assert!(v.contains("reg [31:0] mem [0:255];"));
//! # let _ = WordRam::<8>::default();
//! ```

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The first line of [`WordRam`]'s Verilog: how the emitter recognises it.
pub const MARKER: &str = "// tpb-hdl WordRam: 32-bit words, byte write strobes, read enable";

#[derive(LogicBlock, Default)]
pub struct WordRam<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<AW>>,
    pub read_data: Signal<Out, Bits<32>>,
    pub write_address: Signal<In, Bits<AW>>,
    pub write_data: Signal<In, Bits<32>>,
    pub write_strobe: Signal<In, Bits<4>>,
    // rust-hdl's derive skips fields whose name starts with `_`: the simulated contents.
    _sim: BTreeMap<u64, u32>,
}

impl<const AW: usize> Logic for WordRam<AW> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.read_enable.val() {
                let w = self._sim.get(&(self.read_address.val().index() as u64)).copied().unwrap_or(0);
                self.read_data.next = u64::from(w).into();
            }
            let strobe = self.write_strobe.val().index() as u32;
            if strobe != 0 {
                let a = self.write_address.val().index() as u64;
                let data = self.write_data.val().index() as u32;
                let mask = (0..4).filter(|b| strobe >> b & 1 == 1).fold(0u32, |m, b| m | 0xff << (8 * b));
                let old = self._sim.get(&a).copied().unwrap_or(0);
                self._sim.insert(a, (old & !mask) | (data & mask));
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{MARKER}
reg [31:0] mem [0:{last}];

always @(posedge clock) begin
   if (read_enable) begin
      read_data <= mem[read_address];
   end
   if (write_strobe[0]) begin
      mem[write_address][7:0] <= write_data[7:0];
   end
   if (write_strobe[1]) begin
      mem[write_address][15:8] <= write_data[15:8];
   end
   if (write_strobe[2]) begin
      mem[write_address][23:16] <= write_data[23:16];
   end
   if (write_strobe[3]) begin
      mem[write_address][31:24] <= write_data[31:24];
   end
end
",
            last = (1u64 << AW) - 1
        ))
    }
}
