//! `tpb serve`: the co-simulation's BAR0 behind the host-link protocol, so a
//! host program in any language (the Python client in `testbench/python/`)
//! drives the co-simulated top exactly as it drives the FPGA prototype over
//! its UART: the same frames, sequence numbers and CRC
//! ([`tpb_models::hal::hostlink`], the protocol's one description).
//!
//! Each BAR0 op (READ, WRITE, BURST, FILL, STATUS) runs as host accesses of
//! the co-simulation through the path the Rust HAL uses (`Mmio` on
//! [`Cosim`]): every word is one access, the whole system running until
//! the top answers, so the time base is the one the HAL sees. Nothing runs between frames: the same frames give
//! the same cycles and the same VCD bytes.
//!
//! ## Simulator ops `[D]` (only here; the FPGA bridge answers them BAD_OP)
//! | op | count | address | data | answer's data |
//! |---|---|---|---|---|
//! | [`OP_RUN`] `0x10` | 1 | 0 | cycles to run | the cycle counter, low word |
//! | [`OP_CYCLES`] `0x11` | 0 | 0 low word / 4 high word | — | that word of the cycle counter |
//! | [`OP_CORE`] `0x12` | 0 | core `<< 8` \| item ([`core_item`]) | — | the item |
//! | [`OP_TRACE`] `0x13` | 1 | 0 | 1 open the trace file, 0 close it | 0 |
//! | [`OP_STPB_INIT`] `0x14` | 0 | 0 | — | 0: the HAL's `stpb_init` with the served images |
//!
//! A refused simulator op (no trace file was named, the trace was already
//! closed, an unknown core, no images to install, the HAL failed) answers
//! [`Status::BadCount`] (nothing done) or [`Status::BusError`] (the HAL
//! stopped part way), and the reason is printed on the server's stderr.
//!
//! ## The byte stream (TCP)
//! Bytes other than `0xA5` between frames are skipped, and counted
//! ([`Session::skipped`]: `tpb serve`'s closing line names them, the sign
//! of a client that speaks something else). A frame's length
//! follows from its op and count; an unknown op is answered BAD_OP and the
//! server goes back to looking for `0xA5` (there is no idle line to drain
//! on a socket). A CRC mismatch is answered CRC and nothing is done. The
//! connection closing ends the session.

use crate::sched::{CoreId, Cosim};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use tpb_models::hal::hostlink::{crc16, Request, Response, Status, HEADER_BYTES, SYNC_REQUEST};
use tpb_models::hal::{Hal, Mmio, MmioError, StpbConfig};

/// Run N cycles.
pub const OP_RUN: u8 = 0x10;
/// Read the cycle counter.
pub const OP_CYCLES: u8 = 0x11;
/// Read a core's state.
pub const OP_CORE: u8 = 0x12;
/// Open or close the trace.
pub const OP_TRACE: u8 = 0x13;
/// The HAL's `stpb_init` with the served images.
pub const OP_STPB_INIT: u8 = 0x14;

/// What a session did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Session {
    pub frames: u64,
    /// Frames answered with a status other than OK.
    pub refused: u64,
    /// Bytes outside frames, passed over looking for `0xA5` (a client
    /// speaking something else sends only these).
    pub skipped: u64,
    pub cycles: u64,
}

/// The server's state around one co-simulation.
pub struct Server<'a> {
    pub cosim: &'a mut Cosim,
    /// The file OP_TRACE opens (`--vcd`).
    pub vcd: Option<PathBuf>,
    /// The images OP_STPB_INIT installs (a firmware file's).
    pub stpb: Option<StpbConfig>,
    trace: TraceState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TraceState {
    Never,
    Open,
    Closed,
}

/// The items of [`OP_CORE`]: 0 pc, 1 state (bit 0 halted, bit 1 waiting,
/// bit 2 run-stalled, bit 3 took an exception), 2 instructions retired
/// (low word), 16..=31 a0..a15. Cores: 0..=7 the Q7 cores, 8 the SEQ,
/// 9 the TOP_SP.
pub fn core_item(c: &Cosim, core: u32, item: u32) -> Option<u32> {
    let id = match core {
        0..=7 => CoreId::Q7(core as u8),
        8 => CoreId::Seq,
        9 => CoreId::TopSp,
        _ => return None,
    };
    let s = c.core(id);
    Some(match item {
        0 => s.core.pc,
        1 => u32::from(s.core.halted()) | u32::from(s.idle() && !s.core.halted()) << 1 | u32::from(s.core.run_stall()) << 2 | u32::from(s.first_exception.is_some()) << 3,
        2 => s.core.retired() as u32,
        16..=31 => s.core.a(item as usize - 16),
        _ => return None,
    })
}

impl<'a> Server<'a> {
    pub fn new(cosim: &'a mut Cosim) -> Server<'a> {
        Server { cosim, vcd: None, stpb: None, trace: TraceState::Never }
    }

    /// Serve frames from `input`, answers to `output`, until `input` ends.
    pub fn serve(&mut self, input: impl Read, mut output: impl Write) -> std::io::Result<Session> {
        let mut r = BufReader::new(input);
        let start = self.cosim.stats.cycles;
        let mut s = Session::default();
        while let Some(rsp) = self.next_frame(&mut r, &mut s.skipped)? {
            s.frames += 1;
            s.refused += u64::from(rsp.status != Status::Ok);
            output.write_all(&rsp.encode())?;
            output.flush()?;
        }
        if self.trace == TraceState::Open {
            self.close_trace();
        }
        s.cycles = self.cosim.stats.cycles - start;
        Ok(s)
    }

    /// Read one frame and execute it; `None` at the end of the input.
    /// Bytes before its sync byte are counted in `skipped`.
    fn next_frame(&mut self, r: &mut impl BufRead, skipped: &mut u64) -> std::io::Result<Option<Response>> {
        // Skip to the sync byte.
        loop {
            let buf = r.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            match buf.iter().position(|&b| b == SYNC_REQUEST) {
                Some(i) => {
                    *skipped += i as u64;
                    r.consume(i + 1);
                    break;
                }
                None => {
                    let n = buf.len();
                    *skipped += n as u64;
                    r.consume(n);
                }
            }
        }
        let mut head = [0u8; HEADER_BYTES - 1];
        if !read_all(r, &mut head)? {
            return Ok(None);
        }
        let (op, seq, count, addr) = (head[0], head[1], u16::from_le_bytes([head[2], head[3]]), u32::from_le_bytes([head[4], head[5], head[6], head[7]]));
        let answer = |status: Status, count: u16, data: u32| Ok(Some(Response { status, seq, count, data }));
        let Some(words) = data_words(op, count) else { return answer(Status::BadOp, 0, 0) };
        let mut rest = vec![0u8; 4 * words + 2];
        if !read_all(r, &mut rest)? {
            return Ok(None);
        }
        let mut framed = head.to_vec();
        framed.extend_from_slice(&rest[..4 * words]);
        let crc = u16::from_le_bytes([rest[4 * words], rest[4 * words + 1]]);
        if crc != crc16(&framed) {
            return answer(Status::Crc, 0, 0);
        }
        let data: Vec<u32> = rest[..4 * words].chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let (status, done, value) = self.execute(op, count, addr, &data);
        answer(status, done, value)
    }

    /// Run one checked frame: (status, words done, answer data).
    fn execute(&mut self, op: u8, count: u16, addr: u32, data: &[u32]) -> (Status, u16, u32) {
        if let Some(op_) = bar0_op(op) {
            let req = Request { op: op_, seq: 0, count, addr, data: data.to_vec() };
            if req.check().is_err() {
                return (Status::BadCount, 0, 0);
            }
            return self.bar0(op, count, addr, data);
        }
        let refuse = |why: String| {
            eprintln!("tpb serve: op {op:#04x} refused: {why}");
            (Status::BadCount, 0, 0)
        };
        match op {
            OP_RUN if count == 1 && addr == 0 => {
                self.cosim.run(u64::from(data[0]));
                (Status::Ok, 1, self.cosim.stats.cycles as u32)
            }
            OP_CYCLES if count == 0 && (addr == 0 || addr == 4) => (Status::Ok, 0, (self.cosim.stats.cycles >> (8 * addr)) as u32),
            OP_CORE if count == 0 => match core_item(self.cosim, addr >> 8, addr & 0xff) {
                Some(v) => (Status::Ok, 0, v),
                None => refuse(format!("no core {} item {}", addr >> 8, addr & 0xff)),
            },
            OP_TRACE if count == 1 && addr == 0 => match (data[0], self.trace, &self.vcd) {
                (1, TraceState::Never, Some(p)) => match self.cosim.dut.trace_open(p) {
                    Ok(()) => {
                        self.trace = TraceState::Open;
                        (Status::Ok, 1, 0)
                    }
                    Err(e) => refuse(format!("{}: {e}", p.display())),
                },
                (1, _, None) => refuse("no trace file: start tpb serve with --vcd FILE".into()),
                (1, _, _) => refuse("the trace was opened once already (one file per session)".into()),
                (0, TraceState::Open, _) => {
                    self.close_trace();
                    (Status::Ok, 1, 0)
                }
                (0, _, _) => refuse("the trace is not open".into()),
                (v, _, _) => refuse(format!("trace takes 1 (open) or 0 (close), not {v}")),
            },
            OP_STPB_INIT if count == 0 && addr == 0 => {
                let Some(cfg) = self.stpb.clone() else { return refuse("no images to install: serve a file with [firmware.q7]".into()) };
                let map = self.cosim.map().clone();
                match Hal::with_map(map).stpb_init(&mut *self.cosim, &cfg, None) {
                    Ok(()) => (Status::Ok, 0, 0),
                    Err(e) => {
                        eprintln!("tpb serve: the HAL's stpb_init: {e}");
                        (Status::BusError, 0, 0)
                    }
                }
            }
            _ => refuse(format!("count {count}, address {addr:#x} are not what this op takes")),
        }
    }

    /// READ, WRITE, BURST, FILL, STATUS: the host's accesses, through the
    /// same path as the Rust HAL's ([`Mmio`] on [`Cosim`]: a BURST or FILL
    /// is a `write_buf`, whose zero words over memory nobody wrote are not
    /// sent), so a replayed bring-up takes the cycles the HAL's takes.
    fn bar0(&mut self, op: u8, count: u16, addr: u32, data: &[u32]) -> (Status, u16, u32) {
        let a = u64::from(addr);
        let done_at = |e: &MmioError| match e {
            MmioError::BusError { addr: at, .. } => (at.saturating_sub(a) / 4) as u16,
            _ => 0,
        };
        match op {
            1 => match self.cosim.read32(a) {
                Ok(v) => (Status::Ok, 1, v),
                Err(e) => (Status::BusError, done_at(&e), 0),
            },
            2..=4 => {
                let words: Vec<u32> = if op == 4 { vec![data[0]; usize::from(count)] } else { data.to_vec() };
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let r = if op == 2 { self.cosim.write32(a, words[0]) } else { self.cosim.write_buf(a, &bytes) };
                match r {
                    Ok(()) => (Status::Ok, words.len() as u16, 0),
                    Err(e) => (Status::BusError, done_at(&e), 0),
                }
            }
            _ => (Status::Ok, 0, tpb_models::hal::hostlink::STATUS_MAGIC),
        }
    }

    fn close_trace(&mut self) {
        if let Err(e) = self.cosim.dut.trace_close() {
            eprintln!("tpb serve: closing the trace: {e}");
        }
        self.trace = TraceState::Closed;
    }
}

/// The host-link op a byte names, for the five BAR0 ops.
fn bar0_op(op: u8) -> Option<tpb_models::hal::hostlink::Op> {
    use tpb_models::hal::hostlink::Op;
    Some(match op {
        1 => Op::Read,
        2 => Op::Write,
        3 => Op::Burst,
        4 => Op::Fill,
        5 => Op::Status,
        _ => return None,
    })
}

/// Data words a frame with this op and count carries (None: unknown op).
fn data_words(op: u8, count: u16) -> Option<usize> {
    match op {
        OP_RUN | OP_TRACE => Some(1),
        OP_CYCLES | OP_CORE | OP_STPB_INIT => Some(0),
        _ => Request::data_words(op, count),
    }
}

/// Fill `buf`; false if the input ended first.
fn read_all(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<bool> {
    match r.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}
