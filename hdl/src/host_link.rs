//! # Host link: a UART to BAR0 bridge for the FPGA prototype
//!
//! The protocol is [`tpb_spec::hostlink`] (`[D]`): frames of
//! READ/WRITE/BURST/FILL/STATUS with a sequence number and a
//! CRC-16/CCITT-FALSE, one response of 11 bytes per frame. A frame reaches
//! BAR0 only after all of it arrived and its CRC matched; a bad one (CRC,
//! unknown op, bad count or address, cut short) is answered with its error.
//!
//! Blocks:
//! - [`UartRx`], [`UartTx`]: 8N1, LSB first, idle high, `div` clock cycles
//!   per bit (a constant: `clock / baud`, [`tpb_spec::hostlink::uart_divider`]).
//!   The receiver synchronises its pin through two flip-flops, starts on a
//!   falling edge, samples mid-bit and drops a byte whose stop bit is low.
//! - [`HostBridge`]: the frame parser, a 64-word buffer for BURST data (one
//!   block RAM), the BAR0 master and the response sender.
//!
//! ## [`HostBridge`] ports
//! - `clock`, `reset` (synchronous, active high); `rx` (the UART pin in),
//!   `tx` (out);
//! - the BAR0 master, the top's slave protocol turned around: `m_req_valid`
//!   (one cycle), `m_req_write`, `m_req_addr`, `m_req_wdata` out;
//!   `m_rsp_valid`, `m_rsp_rdata`, `m_rsp_err` in. One request at a time; a
//!   response that does not come within
//!   [`BUS_TIMEOUT_CYCLES`](tpb_spec::hostlink::BUS_TIMEOUT_CYCLES) is a
//!   bus error;
//! - for LEDs: `busy` (a frame is being received, run or answered),
//!   `bad_frames` (how many were answered with an error other than a bus error).
//!
//! One frame at a time: bytes that arrive while a frame runs or is answered
//! are dropped (the host waits for each answer).
//!
//! ```
//! use tpb_hdl::host_link::HostBridge;
//! let v = tpb_hdl::verilog::of(&mut HostBridge::new(434), "host_bridge");
//! assert!(v.contains("module host_bridge"));
//! ```

use crate::ram::WordRam;
use rust_hdl::prelude::*;
use tpb_spec::hostlink;

/// A UART receiver, 8N1.
#[derive(LogicBlock)]
pub struct UartRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rx: Signal<In, Bit>,
    /// One cycle: `data` holds a byte with a good stop bit.
    pub valid: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<8>>,
    /// Clock cycles per bit.
    pub div: Constant<Bits<16>>,
    sync1: DFF<Bit>,
    sync2: DFF<Bit>,
    // 0 idle, 1 start bit, 2 data bits, 3 stop bit.
    state: DFF<Bits<2>>,
    cnt: DFF<Bits<16>>,
    bitn: DFF<Bits<3>>,
    shift: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
    tick: Signal<Local, Bit>,
}

impl UartRx {
    pub fn new(div: u32) -> Self {
        hdl_new! { UartRx {
            clock, reset, rx, valid, data,
            div: Constant::new(u64::from(div).into()),
            sync1, sync2, state, cnt, bitn, shift, valid_q, tick,
        } }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sync1, sync2, state, cnt, bitn, shift, valid_q);
        self.sync1.d.next = self.rx.val();
        self.sync2.d.next = self.sync1.q.val();
        self.tick.next = self.cnt.q.val() == 0;
        self.valid.next = self.valid_q.q.val();
        self.data.next = self.shift.q.val();
        self.valid_q.d.next = false;
        if self.state.q.val() == 0 {
            if !self.sync2.q.val() {
                // A falling edge: the middle of the start bit is half a bit on.
                self.state.d.next = 1.into();
                self.cnt.d.next = self.div.val() >> 1;
            }
        } else if self.tick.val() {
            self.cnt.d.next = self.div.val() - 1;
            if self.state.q.val() == 1 {
                if self.sync2.q.val() {
                    // A glitch, not a start bit.
                    self.state.d.next = 0.into();
                } else {
                    self.state.d.next = 2.into();
                    self.bitn.d.next = 0.into();
                }
            } else if self.state.q.val() == 2 {
                self.shift.d.next = self.shift.q.val() >> 1;
                if self.sync2.q.val() {
                    self.shift.d.next = (self.shift.q.val() >> 1) | 0x80;
                }
                self.bitn.d.next = self.bitn.q.val() + 1;
                if self.bitn.q.val() == 7 {
                    self.state.d.next = 3.into();
                }
            } else {
                self.valid_q.d.next = self.sync2.q.val();
                self.state.d.next = 0.into();
            }
        } else {
            self.cnt.d.next = self.cnt.q.val() - 1;
        }
        if self.reset.val() {
            self.state.d.next = 0.into();
            self.valid_q.d.next = false;
            self.sync1.d.next = true;
            self.sync2.d.next = true;
        }
    }
}

/// A UART transmitter, 8N1.
#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub tx: Signal<Out, Bit>,
    /// Taken on an edge where `start & !busy`.
    pub start: Signal<In, Bit>,
    pub data: Signal<In, Bits<8>>,
    pub busy: Signal<Out, Bit>,
    pub div: Constant<Bits<16>>,
    // Stop bit, 8 data bits, start bit: shifted out from bit 0.
    shift: DFF<Bits<10>>,
    left: DFF<Bits<4>>,
    cnt: DFF<Bits<16>>,
}

impl UartTx {
    pub fn new(div: u32) -> Self {
        hdl_new! { UartTx {
            clock, reset, tx, start, data, busy,
            div: Constant::new(u64::from(div).into()),
            shift, left, cnt,
        } }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, shift, left, cnt);
        self.busy.next = self.left.q.val() != 0;
        self.tx.next = true;
        if self.left.q.val() != 0 {
            self.tx.next = self.shift.q.val().get_bit(0);
        }
        if self.left.q.val() == 0 {
            if self.start.val() {
                self.shift.d.next = (bit_cast::<10, 8>(self.data.val()) << 1) | 0x200;
                self.left.d.next = 10.into();
                self.cnt.d.next = self.div.val() - 1;
            }
        } else if self.cnt.q.val() == 0 {
            self.shift.d.next = (self.shift.q.val() >> 1) | 0x200;
            self.left.d.next = self.left.q.val() - 1;
            self.cnt.d.next = self.div.val() - 1;
        } else {
            self.cnt.d.next = self.cnt.q.val() - 1;
        }
        if self.reset.val() {
            self.left.d.next = 0.into();
        }
    }
}

// Parser states (rust-hdl's generator takes literals, so `update` spells them
// as numbers): 0 idle, 1 header, 2 data, 3 CRC, 4 drain a bad frame,
// 5 prepare a word, 6 issue it on BAR0, 7 wait for the response, 8 answer.

/// The UART-to-BAR0 bridge (see the module documentation).
#[derive(LogicBlock)]
pub struct HostBridge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rx: Signal<In, Bit>,
    pub tx: Signal<Out, Bit>,
    pub m_req_valid: Signal<Out, Bit>,
    pub m_req_write: Signal<Out, Bit>,
    pub m_req_addr: Signal<Out, Bits<32>>,
    pub m_req_wdata: Signal<Out, Bits<32>>,
    pub m_rsp_valid: Signal<In, Bit>,
    pub m_rsp_rdata: Signal<In, Bits<32>>,
    pub m_rsp_err: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub bad_frames: Signal<Out, Bits<16>>,
    urx: UartRx,
    utx: UartTx,
    burst: WordRam<6>,
    /// Idle cycles that end a frame ([`hostlink::IDLE_BYTES`] byte times).
    idle_cycles: Constant<Bits<24>>,
    // The protocol's numbers, from `tpb_spec::hostlink` (the generator
    // takes literals or signals, not Rust constants).
    sync: Constant<Bits<8>>,
    max_burst: Constant<Bits<16>>,
    magic: Constant<Bits<32>>,
    bus_timeout: Constant<Bits<9>>,
    st_crc: Constant<Bits<8>>,
    st_bad_op: Constant<Bits<8>>,
    st_bad_count: Constant<Bits<8>>,
    st_bus_error: Constant<Bits<8>>,
    st_timeout: Constant<Bits<8>>,
    state: DFF<Bits<4>>,
    idx: DFF<Bits<8>>,
    op: DFF<Bits<8>>,
    seq: DFF<Bits<8>>,
    count: DFF<Bits<16>>,
    addr: DFF<Bits<32>>,
    wdata: DFF<Bits<32>>,
    // Data bytes of the frame that arrived.
    got: DFF<Bits<16>>,
    crc: DFF<Bits<16>>,
    crc_lo: DFF<Bits<8>>,
    err: DFF<Bits<8>>,
    idle: DFF<Bits<24>>,
    k: DFF<Bits<16>>,
    // The address of word k, registered so that BAR0 sees flip-flops.
    req_addr: DFF<Bits<32>>,
    bus_wait: DFF<Bits<9>>,
    rsp_status: DFF<Bits<8>>,
    rsp_data: DFF<Bits<32>>,
    r: DFF<Bits<4>>,
    rcrc: DFF<Bits<16>>,
    bad: DFF<Bits<16>>,
    rx_byte: Signal<Local, Bits<8>>,
    crc_x: Signal<Local, Bits<8>>,
    crc_y: Signal<Local, Bits<16>>,
    crc_next: Signal<Local, Bits<16>>,
    rbyte: Signal<Local, Bits<8>>,
    rcrc_x: Signal<Local, Bits<8>>,
    rcrc_y: Signal<Local, Bits<16>>,
    rcrc_next: Signal<Local, Bits<16>>,
    header_ok: Signal<Local, Bit>,
    words: Signal<Local, Bits<16>>,
    word_addr: Signal<Local, Bits<32>>,
}

impl HostBridge {
    /// A bridge whose UART runs at `div` clock cycles per bit.
    pub fn new(div: u32) -> Self {
        hdl_new! { HostBridge {
            clock, reset, rx, tx, m_req_valid, m_req_write, m_req_addr, m_req_wdata, m_rsp_valid, m_rsp_rdata, m_rsp_err,
            busy, bad_frames,
            urx: UartRx::new(div),
            utx: UartTx::new(div),
            burst,
            idle_cycles: Constant::new(u64::from(hostlink::IDLE_BYTES * 10 * div).into()),
            sync: Constant::new(u64::from(hostlink::SYNC_REQUEST).into()),
            max_burst: Constant::new(u64::from(hostlink::MAX_BURST).into()),
            magic: Constant::new(u64::from(hostlink::STATUS_MAGIC).into()),
            bus_timeout: Constant::new(u64::from(hostlink::BUS_TIMEOUT_CYCLES - 1).into()),
            st_crc: Constant::new(u64::from(hostlink::Status::Crc as u8).into()),
            st_bad_op: Constant::new(u64::from(hostlink::Status::BadOp as u8).into()),
            st_bad_count: Constant::new(u64::from(hostlink::Status::BadCount as u8).into()),
            st_bus_error: Constant::new(u64::from(hostlink::Status::BusError as u8).into()),
            st_timeout: Constant::new(u64::from(hostlink::Status::Timeout as u8).into()),
            state, idx, op, seq, count, addr, wdata, got, crc, crc_lo, err, idle, k, req_addr, bus_wait, rsp_status,
            rsp_data, r, rcrc, bad, rx_byte, crc_x, crc_y, crc_next, rbyte, rcrc_x, rcrc_y, rcrc_next, header_ok, words,
            word_addr,
        } }
    }
}

impl Logic for HostBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, idx, op, seq, count, addr, wdata, got, crc, crc_lo, err, idle, k, req_addr, bus_wait, rsp_status, rsp_data, r, rcrc, bad);
        self.urx.clock.next = self.clock.val();
        self.urx.reset.next = self.reset.val();
        self.urx.rx.next = self.rx.val();
        self.utx.clock.next = self.clock.val();
        self.utx.reset.next = self.reset.val();
        self.burst.clock.next = self.clock.val();
        self.tx.next = self.utx.tx.val();
        self.busy.next = self.state.q.val() != 0;
        self.bad_frames.next = self.bad.q.val();
        self.rx_byte.next = self.urx.data.val();
        // ---- CRC-16/CCITT-FALSE, one byte per cycle (received, sent) ----
        self.crc_x.next = self.crc.q.val().get_bits::<8>(8) ^ self.rx_byte.val();
        self.crc_y.next = bit_cast::<16, 8>(self.crc_x.val() ^ (self.crc_x.val() >> 4));
        self.crc_next.next = (self.crc.q.val() << 8) ^ (self.crc_y.val() << 12) ^ (self.crc_y.val() << 5) ^ self.crc_y.val();
        // The response byte `r`: 0x5A, status, seq, count, data, CRC.
        self.rbyte.next = 0x5a.into();
        if self.r.q.val() == 1 {
            self.rbyte.next = self.rsp_status.q.val();
        } else if self.r.q.val() == 2 {
            self.rbyte.next = self.seq.q.val();
        } else if self.r.q.val() == 3 {
            self.rbyte.next = self.k.q.val().get_bits::<8>(0);
        } else if self.r.q.val() == 4 {
            self.rbyte.next = self.k.q.val().get_bits::<8>(8);
        } else if self.r.q.val() == 5 {
            self.rbyte.next = self.rsp_data.q.val().get_bits::<8>(0);
        } else if self.r.q.val() == 6 {
            self.rbyte.next = self.rsp_data.q.val().get_bits::<8>(8);
        } else if self.r.q.val() == 7 {
            self.rbyte.next = self.rsp_data.q.val().get_bits::<8>(16);
        } else if self.r.q.val() == 8 {
            self.rbyte.next = self.rsp_data.q.val().get_bits::<8>(24);
        } else if self.r.q.val() == 9 {
            self.rbyte.next = self.rcrc.q.val().get_bits::<8>(0);
        } else if self.r.q.val() == 10 {
            self.rbyte.next = self.rcrc.q.val().get_bits::<8>(8);
        }
        self.rcrc_x.next = self.rcrc.q.val().get_bits::<8>(8) ^ self.rbyte.val();
        self.rcrc_y.next = bit_cast::<16, 8>(self.rcrc_x.val() ^ (self.rcrc_x.val() >> 4));
        self.rcrc_next.next = (self.rcrc.q.val() << 8) ^ (self.rcrc_y.val() << 12) ^ (self.rcrc_y.val() << 5) ^ self.rcrc_y.val();
        // ---- the header's checks: op, count, alignment ----
        self.header_ok.next = false;
        self.words.next = 0.into();
        if (self.op.q.val() == 1) | (self.op.q.val() == 2) {
            self.header_ok.next = (self.count.q.val() == 1) & (self.addr.q.val().get_bits::<2>(0) == 0);
            if self.op.q.val() == 2 {
                self.words.next = 1.into();
            }
        } else if self.op.q.val() == 3 {
            self.header_ok.next = (self.count.q.val() != 0) & (self.count.q.val() <= self.max_burst.val()) & (self.addr.q.val().get_bits::<2>(0) == 0);
            self.words.next = self.count.q.val();
        } else if self.op.q.val() == 4 {
            self.header_ok.next = (self.count.q.val() != 0) & (self.addr.q.val().get_bits::<2>(0) == 0);
            self.words.next = 1.into();
        } else if self.op.q.val() == 5 {
            self.header_ok.next = self.count.q.val() == 0;
        }
        self.word_addr.next = self.addr.q.val() + (bit_cast::<32, 16>(self.k.q.val()) << 2);
        // ---- defaults ----
        self.m_req_valid.next = false;
        self.m_req_write.next = self.op.q.val() != 1;
        self.m_req_addr.next = self.req_addr.q.val();
        self.m_req_wdata.next = self.wdata.q.val();
        if self.op.q.val() == 3 {
            self.m_req_wdata.next = self.burst.read_data.val();
        }
        self.burst.read_enable.next = false;
        self.burst.read_address.next = self.k.q.val().get_bits::<6>(0);
        self.burst.write_address.next = self.got.q.val().get_bits::<6>(2);
        self.burst.write_data.next = (self.wdata.q.val() >> 8) | (bit_cast::<32, 8>(self.rx_byte.val()) << 24);
        self.burst.write_strobe.next = 0.into();
        self.utx.start.next = false;
        self.utx.data.next = self.rbyte.val();
        // Receiving: count idle cycles, back to zero on every byte.
        if self.urx.valid.val() {
            self.idle.d.next = 0.into();
        } else if self.idle.q.val() != self.idle_cycles.val() {
            self.idle.d.next = self.idle.q.val() + 1;
        }
        // ---- the frame ----
        if self.state.q.val() == 0 {
            if self.urx.valid.val() & (self.rx_byte.val() == self.sync.val()) {
                self.state.d.next = 1.into();
                self.idx.d.next = 0.into();
                self.seq.d.next = 0.into();
                self.crc.d.next = 0xffff.into();
            }
        } else if (self.state.q.val() >= 1) & (self.state.q.val() <= 3) & (self.idle.q.val() == self.idle_cycles.val()) {
            // Cut short: answer, do nothing.
            self.rsp_status.d.next = self.st_timeout.val();
            self.state.d.next = 8.into();
            self.r.d.next = 0.into();
            self.k.d.next = 0.into();
            self.rsp_data.d.next = 0.into();
        } else if self.state.q.val() == 1 {
            if self.urx.valid.val() {
                self.crc.d.next = self.crc_next.val();
                self.idx.d.next = self.idx.q.val() + 1;
                if self.idx.q.val() == 0 {
                    self.op.d.next = self.rx_byte.val();
                } else if self.idx.q.val() == 1 {
                    self.seq.d.next = self.rx_byte.val();
                } else if self.idx.q.val() == 2 {
                    self.count.d.next = bit_cast::<16, 8>(self.rx_byte.val());
                } else if self.idx.q.val() == 3 {
                    self.count.d.next = self.count.q.val() | (bit_cast::<16, 8>(self.rx_byte.val()) << 8);
                } else if self.idx.q.val() == 4 {
                    self.addr.d.next = bit_cast::<32, 8>(self.rx_byte.val());
                } else if self.idx.q.val() == 5 {
                    self.addr.d.next = self.addr.q.val() | (bit_cast::<32, 8>(self.rx_byte.val()) << 8);
                } else if self.idx.q.val() == 6 {
                    self.addr.d.next = self.addr.q.val() | (bit_cast::<32, 8>(self.rx_byte.val()) << 16);
                } else {
                    self.addr.d.next = self.addr.q.val() | (bit_cast::<32, 8>(self.rx_byte.val()) << 24);
                    self.state.d.next = 2.into();
                    self.got.d.next = 0.into();
                }
            }
        } else if self.state.q.val() == 2 {
            // The header is complete here: check it once, then take its data.
            if !self.header_ok.val() {
                self.err.d.next = self.st_bad_count.val();
                if !((self.op.q.val() >= 1) & (self.op.q.val() <= 5)) {
                    self.err.d.next = self.st_bad_op.val();
                }
                self.state.d.next = 4.into();
            } else if self.got.q.val() == (self.words.val() << 2) {
                self.state.d.next = 3.into();
                self.idx.d.next = 0.into();
            } else if self.urx.valid.val() {
                self.crc.d.next = self.crc_next.val();
                self.got.d.next = self.got.q.val() + 1;
                self.wdata.d.next = (self.wdata.q.val() >> 8) | (bit_cast::<32, 8>(self.rx_byte.val()) << 24);
                if self.got.q.val().get_bits::<2>(0) == 3 {
                    self.burst.write_strobe.next = 15.into();
                }
            }
        } else if self.state.q.val() == 3 {
            if self.urx.valid.val() {
                self.idx.d.next = self.idx.q.val() + 1;
                if self.idx.q.val() == 0 {
                    self.crc_lo.d.next = self.rx_byte.val();
                } else {
                    self.k.d.next = 0.into();
                    self.r.d.next = 0.into();
                    self.rsp_data.d.next = 0.into();
                    if self.crc.q.val() == (bit_cast::<16, 8>(self.crc_lo.q.val()) | (bit_cast::<16, 8>(self.rx_byte.val()) << 8)) {
                        if self.op.q.val() == 5 {
                            self.rsp_status.d.next = 0.into();
                            self.rsp_data.d.next = self.magic.val();
                            self.k.d.next = self.bad.q.val();
                            self.state.d.next = 8.into();
                        } else {
                            self.state.d.next = 5.into();
                        }
                    } else {
                        self.rsp_status.d.next = self.st_crc.val();
                        self.state.d.next = 8.into();
                    }
                }
            }
        } else if self.state.q.val() == 4 {
            // Drop the rest of a bad frame, then answer its error.
            if self.idle.q.val() == self.idle_cycles.val() {
                self.rsp_status.d.next = self.err.q.val();
                self.state.d.next = 8.into();
                self.r.d.next = 0.into();
                self.k.d.next = 0.into();
                self.rsp_data.d.next = 0.into();
            }
        } else if self.state.q.val() == 5 {
            // BURST data comes out of the buffer one cycle after its address.
            self.burst.read_enable.next = true;
            self.req_addr.d.next = self.word_addr.val();
            self.state.d.next = 6.into();
        } else if self.state.q.val() == 6 {
            self.m_req_valid.next = true;
            self.bus_wait.d.next = 0.into();
            self.state.d.next = 7.into();
        } else if self.state.q.val() == 7 {
            if self.m_rsp_valid.val() {
                if self.m_rsp_err.val() {
                    self.rsp_status.d.next = self.st_bus_error.val();
                    self.state.d.next = 8.into();
                } else {
                    self.k.d.next = self.k.q.val() + 1;
                    if self.op.q.val() == 1 {
                        self.rsp_data.d.next = self.m_rsp_rdata.val();
                    }
                    if (self.k.q.val() + 1) == self.count.q.val() {
                        self.rsp_status.d.next = 0.into();
                        self.state.d.next = 8.into();
                    } else {
                        self.state.d.next = 5.into();
                    }
                }
            } else if self.bus_wait.q.val() == self.bus_timeout.val() {
                self.rsp_status.d.next = self.st_bus_error.val();
                self.state.d.next = 8.into();
            } else {
                self.bus_wait.d.next = self.bus_wait.q.val() + 1;
            }
        } else {
            // Answer: 11 bytes, the CRC over bytes 1..=8 as they go.
            if !self.utx.busy.val() {
                self.utx.start.next = true;
                self.r.d.next = self.r.q.val() + 1;
                if self.r.q.val() == 0 {
                    self.rcrc.d.next = 0xffff.into();
                } else if self.r.q.val() <= 8 {
                    self.rcrc.d.next = self.rcrc_next.val();
                }
                if self.r.q.val() == 10 {
                    self.state.d.next = 0.into();
                    if (self.rsp_status.q.val() != 0) & (self.rsp_status.q.val() != self.st_bus_error.val()) {
                        self.bad.d.next = self.bad.q.val() + 1;
                    }
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = 0.into();
            self.bad.d.next = 0.into();
            self.idle.d.next = 0.into();
        }
    }
}
