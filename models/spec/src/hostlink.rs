//! # The host link: BAR0 over a serial line (`[D]`, this project's protocol)
//!
//! The FPGA prototype's bridge (`tpb_hdl::host_link`) turns frames received
//! on a UART (8N1) into BAR0 requests on the TPB top and answers each frame.
//! This module is the protocol's one description: the frame layout, the
//! CRC, the encoder/decoder the HAL's serial transport
//! (`tpb_hal::serial::SerialLink`) uses and the RTL tests check the
//! bridge against.
//!
//! ## Request (host → prototype), little-endian
//! | bytes | field |
//! |---|---|
//! | 0 | [`SYNC_REQUEST`] `0xA5` |
//! | 1 | op: [`Op`] (READ 1, WRITE 2, BURST 3, FILL 4, STATUS 5) |
//! | 2 | sequence number (echoed in the response) |
//! | 3..=4 | count: words (READ/WRITE 1, BURST 1..=[`MAX_BURST`], FILL 1..=65535, STATUS 0) |
//! | 5..=8 | BAR0 byte address (4-byte aligned) |
//! | 9.. | data: WRITE and FILL one word, BURST `count` words, READ/STATUS none |
//! | last 2 | CRC-16/CCITT-FALSE of bytes 1 .. the CRC |
//!
//! BURST writes `count` words to consecutive addresses; FILL writes one
//! value to `count` consecutive words (the zero pad of a ucode image in one
//! frame).
//!
//! ## Response (prototype → host): always [`RESPONSE_BYTES`] bytes
//! | bytes | field |
//! |---|---|
//! | 0 | [`SYNC_RESPONSE`] `0x5A` |
//! | 1 | status: [`Status`] |
//! | 2 | the request's sequence number (0 if it never arrived) |
//! | 3..=4 | words done (a BURST/FILL stopped by a bus error says how far it got) |
//! | 5..=8 | data: READ the word; STATUS [`STATUS_MAGIC`]; otherwise 0 |
//! | 9..=10 | CRC-16/CCITT-FALSE of bytes 1..=8 |
//!
//! ## Rules
//! - A frame is executed only after all of it arrived and its CRC matched:
//!   a bad frame (CRC, unknown op, bad count) never reaches BAR0; it is
//!   answered with its error once the line has been idle for
//!   [`IDLE_BYTES`] byte times (so the rest of it is not read as a new frame).
//! - Bytes other than `0xA5` between frames are ignored.
//! - A frame cut short (the line idle for [`IDLE_BYTES`] byte times in the
//!   middle of it) is answered with [`Status::Timeout`].
//! - A BAR0 access that gets no response within [`BUS_TIMEOUT_CYCLES`]
//!   cycles, or a bus error, is answered with [`Status::BusError`]; a
//!   BURST/FILL stops at that word.

use thiserror::Error;

/// First byte of a request.
pub const SYNC_REQUEST: u8 = 0xa5;
/// First byte of a response.
pub const SYNC_RESPONSE: u8 = 0x5a;
/// Most words in one BURST (the bridge's buffer).
pub const MAX_BURST: u16 = 64;
/// Bytes of a request before its data.
pub const HEADER_BYTES: usize = 9;
/// Bytes of every response.
pub const RESPONSE_BYTES: usize = 11;
/// Byte times of idle line that end a frame early (or the drain of a bad one).
pub const IDLE_BYTES: u32 = 16;
/// Cycles the bridge waits for a BAR0 response.
pub const BUS_TIMEOUT_CYCLES: u32 = 256;
/// The STATUS answer: "TPB" and the protocol version 1.
pub const STATUS_MAGIC: u32 = 0x5450_4201;

crate::byte_code! {
    /// What a request asks.
    pub enum Op {
        Read = 1,
        Write = 2,
        Burst = 3,
        Fill = 4,
        Status = 5,
    }
}

crate::byte_code! {
    /// How a request ended. The word after `=>` is the status's one name,
    /// in the docs, the server's messages and every client.
    pub enum Status {
        Ok = 0 => "OK",
        /// The CRC did not match: nothing was done.
        Crc = 1 => "CRC",
        /// Unknown op: nothing was done.
        BadOp = 2 => "BAD_OP",
        /// A count the op does not allow, or a misaligned address, or
        /// (`tpb serve`'s simulator ops) an operand the op refuses:
        /// nothing was done.
        BadCount = 3 => "BAD_COUNT",
        /// BAR0 answered with an error (or not at all) at word `count`; or
        /// a simulator op's HAL call stopped part way.
        BusError = 4 => "BUS_ERROR",
        /// The frame was cut short (the rest of it never arrived): nothing was done.
        Timeout = 5 => "TIMEOUT",
        /// `tpb serve` only: another client holds the server; this
        /// connection is closed after the answer.
        Busy = 6 => "BUSY",
        /// `tpb serve` only: bytes that did not begin a frame (not `0xA5`)
        /// were skipped; `count` says how many (at most 65535).
        Sync = 7 => "SYNC",
    }
}

crate::byte_code! {
    /// `tpb serve`'s simulator ops `[D]` (the FPGA bridge answers them
    /// BAD_OP). Cores are numbered 0..=7 the Q7 cores, 8 the SEQ, 9 the
    /// TOP_SP; a core *mask* has bit n for core n.
    pub enum SimOp {
        /// count 1, address 0, data: cycles to run (at most
        /// [`MAX_RUN_CYCLES`]); answer: the cycle counter's low word.
        Run = 0x10 => "RUN",
        /// count 0, address 0 (low word) or 4 (high word); answer: that word of the cycle counter.
        Cycles = 0x11 => "CYCLES",
        /// count 0, address `core << 8 | item` ([`CoreItem`]); answer: the item.
        Core = 0x12 => "CORE",
        /// count 1, address 0, data 1 (open the server's `--vcd` file) or 0 (close it).
        Trace = 0x13 => "TRACE",
        /// count 0, address 0 (install and release) or 1 (install, every
        /// core left run-stalled): the HAL's `stpb_init` with the served images.
        StpbInit = 0x14 => "STPB_INIT",
        /// count 1, address: a core mask, data: most cycles to run (at most
        /// [`MAX_RUN_CYCLES`]): run until every core of the mask halted
        /// after its last start, or one of them took an exception; answer:
        /// the mask of those that did not halt (0: all did); their report
        /// is then the message ([`SimOp::Message`]).
        WaitHalted = 0x15 => "WAIT_HALTED",
        /// count 0, address: a byte offset into the last message (why the
        /// last refusal was refused, or the last wait's report); answer:
        /// count = the message's length in bytes, data = its 4 bytes from
        /// the offset (little-endian, zero past the end).
        Message = 0x16 => "MESSAGE",
        /// count 0, address: a core mask (0: what `STPB_INIT` with address 1
        /// held back, as the HAL does it): release those cores from run-stall.
        Release = 0x17 => "RELEASE",
    }
}

crate::byte_code! {
    /// The items of [`SimOp::Core`] (address bits 7:0).
    pub enum CoreItem {
        Pc = 0 => "pc",
        /// [`STATE_HALTED`] and the other `STATE_*` bits.
        State = 1 => "state",
        /// Instructions retired, low word.
        Retired = 2 => "retired",
        /// a0 .. a15 are items 16 ..= 31.
        A0 = 16 => "a0",
    }
}

/// [`CoreItem::State`] bit: the core is in HALT (whenever it entered it).
pub const STATE_HALTED: u32 = 1 << 0;
/// … waiting in WAITI.
pub const STATE_WAITING: u32 = 1 << 1;
/// … run-stalled.
pub const STATE_RUN_STALLED: u32 = 1 << 2;
/// … took an exception (since reset).
pub const STATE_EXCEPTION: u32 = 1 << 3;
/// … halted *after its last start*: a halt left from an earlier run does
/// not set it (what a host waits for).
pub const STATE_HALTED_SINCE_START: u32 = 1 << 4;

/// `[D]` Most cycles one RUN or WAIT_HALTED frame may ask for (a larger
/// count is refused BAD_COUNT): a run a client asked for ends within
/// seconds, and a client that left stops it sooner (`tpb serve` looks for
/// the client every [`LIVENESS_CYCLES`]).
pub const MAX_RUN_CYCLES: u32 = 1 << 24;
/// `[D]` How often (cycles) a long run of `tpb serve` checks that its client is still there.
pub const LIVENESS_CYCLES: u64 = 1 << 16;
/// `[D]` `tpb serve`: milliseconds a frame may take to arrive whole, from
/// its sync byte; past them it is answered TIMEOUT.
pub const FRAME_TIMEOUT_MS: u64 = 1000;
/// `[D]` `tpb serve`'s resync rule: after a frame it refuses before its
/// end (a bad op or count in its header, a CRC mismatch, bytes that are
/// not a frame), it discards what arrives until the connection has been
/// quiet for this many milliseconds, then answers. The socket's twin of
/// the bridge's [`IDLE_BYTES`].
pub const QUIET_MS: u64 = 50;
/// Longest message [`SimOp::Message`] keeps (bytes).
pub const MESSAGE_BYTES: usize = 4096;

/// The count each op allows, from the header alone (before any data is
/// read): `Ok(data words)`, or why not. `None` for an op nobody knows.
pub fn header_check(op: u8, count: u16) -> Option<Result<usize, String>> {
    let n = usize::from(count);
    let want = |ok: bool, words: usize, allowed: &str| Some(if ok { Ok(words) } else { Err(format!("count {n}: {allowed}")) });
    if let Some(o) = Op::from_byte(op) {
        return match o {
            Op::Read => want(n == 1, 0, "READ takes 1"),
            Op::Write => want(n == 1, 1, "WRITE takes 1"),
            Op::Burst => want((1..=usize::from(MAX_BURST)).contains(&n), n, "BURST takes 1 to 64 words"),
            Op::Fill => want(n >= 1, 1, "FILL takes 1 to 65535 words"),
            Op::Status => want(n == 0, 0, "STATUS takes 0"),
        };
    }
    let s = SimOp::from_byte(op)?;
    match s {
        SimOp::Run | SimOp::Trace | SimOp::WaitHalted => want(n == 1, 1, &format!("{} takes 1 (one data word)", s.name())),
        SimOp::Cycles | SimOp::Core | SimOp::StpbInit | SimOp::Message | SimOp::Release => want(n == 0, 0, &format!("{} takes 0", s.name())),
    }
}

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection,
/// no final XOR) of `bytes`, from `crc`.
pub fn crc16_update(mut crc: u16, bytes: &[u8]) -> u16 {
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

/// CRC-16/CCITT-FALSE of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    crc16_update(0xffff, bytes)
}

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    pub seq: u8,
    pub count: u16,
    pub addr: u32,
    pub data: Vec<u32>,
}

/// A request the encoder refuses (the bridge would refuse it too).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    #[error("{op:?} of {count} words: the count must be {allowed}")]
    Count { op: Op, count: usize, allowed: &'static str },
    #[error("{op:?} at {addr:#x}: BAR0 addresses are 4-byte aligned")]
    Misaligned { op: Op, addr: u32 },
}

impl Request {
    pub fn read(seq: u8, addr: u32) -> Request {
        Request { op: Op::Read, seq, count: 1, addr, data: vec![] }
    }
    pub fn write(seq: u8, addr: u32, value: u32) -> Request {
        Request { op: Op::Write, seq, count: 1, addr, data: vec![value] }
    }
    pub fn burst(seq: u8, addr: u32, words: &[u32]) -> Request {
        Request { op: Op::Burst, seq, count: words.len() as u16, addr, data: words.to_vec() }
    }
    pub fn fill(seq: u8, addr: u32, count: u16, value: u32) -> Request {
        Request { op: Op::Fill, seq, count, addr, data: vec![value] }
    }
    pub fn status(seq: u8) -> Request {
        Request { op: Op::Status, seq, count: 0, addr: 0, data: vec![] }
    }

    /// Check what the bridge checks (count per op, alignment).
    pub fn check(&self) -> Result<(), FrameError> {
        let n = self.count as usize;
        let (ok, allowed) = match self.op {
            Op::Read | Op::Write => (n == 1, "1"),
            Op::Burst => ((1..=MAX_BURST as usize).contains(&n) && self.data.len() == n, "1..=64, one data word each"),
            Op::Fill => (n >= 1 && self.data.len() == 1, "1..=65535, with one data word"),
            Op::Status => (n == 0, "0"),
        };
        if !ok {
            return Err(FrameError::Count { op: self.op, count: n, allowed });
        }
        if self.op != Op::Status && !self.addr.is_multiple_of(4) {
            return Err(FrameError::Misaligned { op: self.op, addr: self.addr });
        }
        Ok(())
    }

    /// The frame's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, FrameError> {
        self.check()?;
        Ok(self.encode_unchecked())
    }

    /// The frame's bytes, checked or not (tests send bad frames on purpose).
    pub fn encode_unchecked(&self) -> Vec<u8> {
        encode_raw(self.op as u8, self.seq, self.count, self.addr, &self.data)
    }

    /// Bytes of data words a request with this header carries.
    pub fn data_words(op: u8, count: u16) -> Option<usize> {
        match op {
            1 | 5 => Some(0),
            2 | 4 => Some(1),
            3 => Some(count as usize),
            _ => None,
        }
    }
}

/// A request frame with any op byte (`tpb serve`'s simulator ops, or an
/// op nobody knows), framed and CRC'd as every request is.
pub fn encode_raw(op: u8, seq: u8, count: u16, addr: u32, data: &[u32]) -> Vec<u8> {
    let mut f = vec![SYNC_REQUEST, op, seq];
    f.extend(count.to_le_bytes());
    f.extend(addr.to_le_bytes());
    for w in data {
        f.extend(w.to_le_bytes());
    }
    let crc = crc16(&f[1..]);
    f.extend(crc.to_le_bytes());
    f
}

/// One response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    pub status: Status,
    pub seq: u8,
    pub count: u16,
    pub data: u32,
}

/// Why a response could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ResponseError {
    #[error("response starts with {0:#04x}, not 0x5a")]
    Sync(u8),
    #[error("response CRC {got:#06x}, computed {want:#06x}")]
    Crc { got: u16, want: u16 },
    #[error("response status {0} is not a status of the protocol")]
    Status(u8),
}

impl Response {
    pub fn encode(&self) -> [u8; RESPONSE_BYTES] {
        let mut f = [0u8; RESPONSE_BYTES];
        f[0] = SYNC_RESPONSE;
        f[1] = self.status as u8;
        f[2] = self.seq;
        f[3..5].copy_from_slice(&self.count.to_le_bytes());
        f[5..9].copy_from_slice(&self.data.to_le_bytes());
        let crc = crc16(&f[1..9]);
        f[9..11].copy_from_slice(&crc.to_le_bytes());
        f
    }

    pub fn decode(f: &[u8; RESPONSE_BYTES]) -> Result<Response, ResponseError> {
        if f[0] != SYNC_RESPONSE {
            return Err(ResponseError::Sync(f[0]));
        }
        let (got, want) = (u16::from_le_bytes([f[9], f[10]]), crc16(&f[1..9]));
        if got != want {
            return Err(ResponseError::Crc { got, want });
        }
        let status = Status::from_byte(f[1]).ok_or(ResponseError::Status(f[1]))?;
        Ok(Response { status, seq: f[2], count: u16::from_le_bytes([f[3], f[4]]), data: u32::from_le_bytes([f[5], f[6], f[7], f[8]]) })
    }
}

/// A UART rate a clock cannot make.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BaudError {
    #[error("{baud} baud needs at least 4 clock cycles per bit; the clock is {clock_hz} Hz")]
    TooFast { clock_hz: u32, baud: u32 },
    #[error("{baud} baud on a {clock_hz} Hz clock: the nearest divider {div} gives {actual:.0} baud, {off_percent:.1} % off (at most 2 %)")]
    Inexact { clock_hz: u32, baud: u32, div: u32, actual: f64, off_percent: f64 },
}

/// The divider of a UART at `baud` on a `clock_hz` clock (clock cycles per
/// bit), if the rate it gives is within 2 % of `baud` (8N1 tolerates about
/// 4 % between both ends).
pub fn uart_divider(clock_hz: u32, baud: u32) -> Result<u32, BaudError> {
    if baud == 0 || clock_hz / baud < 4 {
        return Err(BaudError::TooFast { clock_hz, baud });
    }
    let div = (clock_hz + baud / 2) / baud;
    let actual = clock_hz as f64 / div as f64;
    let err = (actual - baud as f64).abs() / baud as f64;
    if err > 0.02 {
        return Err(BaudError::Inexact { clock_hz, baud, div, actual, off_percent: err * 100.0 });
    }
    Ok(div)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_is_ccitt_false() {
        // The check value of CRC-16/CCITT-FALSE.
        assert_eq!(crc16(b"123456789"), 0x29b1);
    }

    #[test]
    fn frames_round_trip_and_bad_ones_are_refused() {
        let r = Response { status: Status::BusError, seq: 7, count: 3, data: 0xdead_beef };
        assert_eq!(Response::decode(&r.encode()), Ok(r));
        let mut f = r.encode();
        f[5] ^= 1;
        assert!(matches!(Response::decode(&f), Err(ResponseError::Crc { .. })));
        let w = Request::write(1, 0x1000, 5).encode().unwrap();
        assert_eq!(w.len(), HEADER_BYTES + 4 + 2);
        assert_eq!(&w[..5], &[0xa5, 2, 1, 1, 0]);
        assert!(Request::burst(0, 0, &[0; 65]).encode().is_err());
        assert!(Request::write(0, 2, 0).encode().is_err());
        assert_eq!(Request::data_words(3, 9), Some(9));
        assert_eq!(Request::data_words(9, 1), None);
    }

    #[test]
    fn dividers_within_two_percent_or_a_named_error() {
        assert_eq!(uart_divider(50_000_000, 115_200), Ok(434));
        assert_eq!(uart_divider(50_000_000, 3_000_000), Ok(17));
        assert!(uart_divider(50_000_000, 20_000_000).unwrap_err().to_string().contains("4 clock cycles"));
        assert!(matches!(uart_divider(10_000_000, 1_500_000), Err(e @ BaudError::Inexact { .. }) if e.to_string().contains("% off")));
    }
}
