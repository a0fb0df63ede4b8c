//! # WindowsRam: an engine's address-translation window bundle in one block RAM
//!
//! The same BAR0 behaviour as the bundle's generated register block
//! (`regblocks::<Gen>WindowsRegs`, from `windows.toml`): every register is
//! read-write with reset value 0, a write keeps only the register's
//! writable bits, a read returns them, a misaligned address or one past the
//! last register answers `rsp_err`, and the response comes the cycle after
//! the request. The words live in a [`WordRam`] instead of flip-flops: a
//! bundle is 56 words (1,600 flip-flops and a 56-way read mux as
//! registers), and only POOL's windows drive hardware (the top's address
//! translation, which reads a flip-flop copy of them). The other engines'
//! bundles are registers a host writes and reads back.
//!
//! Reset clears a flag per word (a word reads 0 until written after the
//! reset), not the RAM, so it takes one cycle as the register block's does.
//!
//! Ports: `clock`, `reset`, `req_valid`, `req_write`, `req_addr` (the
//! offset in the engine's local-register aperture, as the register block
//! takes it), `req_wdata`; `rsp_valid`, `rsp_rdata` (0 unless answering a
//! read), `rsp_err`.
//!
//! ```
//! use tpb_hdl::windows_ram::WindowsRam;
//! let map = tpb_regmap::builtin(tpb_regmap::Arch::Cayman).unwrap();
//! let mut w = WindowsRam::of(&map).unwrap();
//! let v = tpb_hdl::verilog::of(&mut w, "windows_ram");
//! assert!(v.contains("reg [31:0] mem [0:63];"));
//! ```

use crate::ram::WordRam;
use rust_hdl::prelude::*;
use tpb_regmap::layout::{LayoutError, TopLayout, WindowWords};
use tpb_regmap::RegMap;

/// Address bits of the RAM: 64 words hold the bundle.
const AW: usize = 6;

/// Why a window bundle does not fit this block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("windows: {words} words with {partial} partial ones: WindowsRam holds at most {max} words and 8 partial ones", max = 1 << AW)]
pub struct ShapeError {
    pub words: u32,
    pub partial: usize,
}

crate::bar0_slave_block! {
pub struct WindowsRam {
    mem: WordRam<AW>,
    /// Word n written since the reset.
    written: DFF<Bits<64>>,
    rsp_valid_q: DFF<Bit>,
    rsp_err_q: DFF<Bit>,
    /// The answer is a read of a written word: the RAM's output.
    read_q: DFF<Bit>,
    /// The bundle's first offset and the one past its last word.
    first: Constant<Bits<32>>,
    past: Constant<Bits<32>>,
    /// The ctrl words' offsets and their writable bits; other words take all 32.
    ctrl: [Constant<Bits<32>>; 8],
    ctrl_mask: Constant<Bits<32>>,
    off: Signal<Local, Bits<32>>,
    word: Signal<Local, Bits<AW>>,
    mask: Signal<Local, Bits<32>>,
}
}

impl WindowsRam {
    /// The block for a bundle's words (`TopLayout::win_words`, from the map).
    pub fn new(w: &WindowWords) -> Result<WindowsRam, ShapeError> {
        if w.words > 1 << AW || w.partial.len() > 8 {
            return Err(ShapeError { words: w.words, partial: w.partial.len() });
        }
        // Unused partial slots repeat the last one (or name no word at all).
        let pad = w.partial.last().copied().unwrap_or(u32::MAX);
        let c = |v: u32| Constant::new(v.to_bits());
        Ok(crate::bar0_slave_new! { WindowsRam {
            mem, written, rsp_valid_q, rsp_err_q, read_q,
            first: c(w.first),
            past: c(w.first + 4 * w.words),
            ctrl: std::array::from_fn(|i| c(w.partial.get(i).copied().unwrap_or(pad))),
            ctrl_mask: c(w.partial_mask),
            off, word, mask,
        } })
    }

    /// The block for `map`'s window bundle.
    pub fn of(map: &RegMap) -> Result<WindowsRam, LayoutError> {
        let lay = TopLayout::of(map)?;
        WindowsRam::new(&lay.win_words).map_err(|e| LayoutError::Bad { what: "windows".into(), detail: e.to_string() })
    }
}

impl Logic for WindowsRam {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, written, rsp_valid_q, rsp_err_q, read_q);
        self.mem.clock.next = self.clock.val();
        // (A part-select of an expression is not Verilog: name the offset first.)
        self.off.next = self.req_addr.val() - self.first.val();
        self.word.next = self.off.val().get_bits::<AW>(2);
        self.mask.next = 0xffff_ffff_u64.into();
        for n in 0..8 {
            if self.req_addr.val() == self.ctrl[n].val() {
                self.mask.next = self.ctrl_mask.val();
            }
        }
        self.mem.read_enable.next = false;
        self.mem.read_address.next = self.word.val();
        self.mem.write_address.next = self.word.val();
        self.mem.write_data.next = self.req_wdata.val() & self.mask.val();
        self.mem.write_strobe.next = 0.into();
        self.rsp_valid_q.d.next = false;
        self.rsp_err_q.d.next = false;
        self.read_q.d.next = false;
        if self.req_valid.val() {
            self.rsp_valid_q.d.next = true;
            if self.req_addr.val().get_bit(0) | self.req_addr.val().get_bit(1) | (self.req_addr.val() < self.first.val()) | (self.req_addr.val() >= self.past.val()) {
                self.rsp_err_q.d.next = true;
            } else if self.req_write.val() {
                self.mem.write_strobe.next = 15.into();
                self.written.d.next = self.written.q.val().replace_bit(self.word.val().index(), true);
            } else {
                self.mem.read_enable.next = true;
                self.read_q.d.next = self.written.q.val().get_bit(self.word.val().index());
            }
        }
        if self.reset.val() {
            self.written.d.next = 0.into();
            self.rsp_valid_q.d.next = false;
            self.rsp_err_q.d.next = false;
            self.read_q.d.next = false;
        }
        self.rsp_valid.next = self.rsp_valid_q.q.val();
        self.rsp_err.next = self.rsp_err_q.q.val();
        self.rsp_rdata.next = 0.into();
        if self.read_q.q.val() {
            self.rsp_rdata.next = self.mem.read_data.val();
        }
    }
}

impl crate::bar0_port::RegBlockPorts for WindowsRam {
    fn drive_clock(&mut self, level: bool) {
        self.clock.next = Clock { clk: level };
    }
    fn drive_reset(&mut self, level: bool) {
        self.reset.next = level;
    }
    fn drive_req(&mut self, valid: bool, write: bool, addr: u32, wdata: u32) {
        self.req_valid.next = valid;
        self.req_write.next = write;
        self.req_addr.next = addr.to_bits();
        self.req_wdata.next = wdata.to_bits();
    }
    fn rsp(&self) -> (bool, u32, bool) {
        (self.rsp_valid.val(), self.rsp_rdata.val().to_u32(), self.rsp_err.val())
    }
    fn drive_input(&mut self, port: &str, _: u64) -> Result<(), crate::bar0_port::PortError> {
        Err(crate::bar0_port::PortError::NoSuchInput(port.to_string()))
    }
    fn output(&self, _: &str) -> Option<u64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bar0_port::{Driver, RegBlockSim};
    use tpb_regmap::{builtin, Arch};

    /// Under the same random requests (and resets) the RAM bundle answers
    /// exactly as the generated register block of the same map does.
    #[test]
    fn it_answers_as_the_generated_register_block() {
        let map = builtin(Arch::Cayman).unwrap();
        let mut ram = Driver::new(WindowsRam::of(&map).unwrap());
        let mut regs = Driver::new(crate::regblocks::CaymanWindowsRegs::default());
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (mut reads, mut errors) = (0, 0);
        for cycle in 0..4000 {
            let reset = cycle < 2 || rnd(500) == 0;
            let valid = rnd(4) != 0;
            let write = rnd(2) == 0;
            // Mostly the bundle's words, some misaligned, some past its end or before it.
            let addr = match rnd(10) {
                0 => 0x2000 + rnd(0x100) as u32,
                1 => 0x1ff0 + 4 * rnd(4) as u32,
                _ => 0x2000 + 4 * rnd(0x40) as u32,
            };
            let wdata = match rnd(3) {
                0 => u32::MAX,
                _ => rnd(1 << 32) as u32,
            };
            for d in [&mut ram as &mut dyn RegBlockSim, &mut regs] {
                d.ports().drive_reset(reset);
                d.ports().drive_req(valid, write, addr, wdata);
                d.tick();
            }
            let (a, b) = (ram.ports_ref().rsp(), regs.ports_ref().rsp());
            assert_eq!(a, b, "cycle {cycle}: {} {addr:#x} {wdata:#x} (reset {reset})", if write { "write" } else { "read" });
            reads += u32::from(a.0 && !a.2 && a.1 != 0);
            errors += u32::from(a.2);
        }
        assert!(reads > 300 && errors > 100, "reads with data {reads}, errors {errors}");
    }

    #[test]
    fn a_bundle_too_large_is_refused() {
        let w = WindowWords { first: 0x2000, words: 65, partial: vec![], partial_mask: u32::MAX };
        assert!(WindowsRam::new(&w).err().unwrap().to_string().contains("65 words"));
    }
}
