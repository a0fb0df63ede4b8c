//! `tpb serve`: the co-simulation's BAR0 behind the host-link protocol, so a
//! host program in any language (the Python client in `testbench/python/`)
//! drives the co-simulated top exactly as it drives the FPGA prototype over
//! its UART: the same frames, sequence numbers and CRC
//! ([`tpb_models::hal::hostlink`], the protocol's one description, with the
//! simulator ops [`SimOp`] and the socket's rules). docs/host-link.md
//! writes the whole protocol down for a client's author.
//!
//! Each BAR0 op (READ, WRITE, BURST, FILL, STATUS) runs as host accesses of
//! the co-simulation through the path the Rust HAL uses (`Mmio` on
//! [`Cosim`]): every word is one access, the whole system running until
//! the top answers, so the time base is the one the HAL sees. Nothing runs
//! between frames: the same frames give the same cycles and the same VCD
//! bytes.
//!
//! ## The byte stream (a [`Conn`]: TCP, or a replayed [`Script`])
//! - A frame is read whole, its header first: an unknown op, or a count the
//!   op does not allow, is refused from the header before any data is read.
//! - A frame must arrive whole within [`FRAME_TIMEOUT_MS`] of its sync byte,
//!   else it is answered TIMEOUT (nothing done).
//! - Resync: after a refusal before a frame's end (BAD_OP, BAD_COUNT from the
//!   header, CRC) and after bytes that do not begin a frame (answered SYNC,
//!   with their number), the server discards what arrives until the
//!   connection has been quiet for [`QUIET_MS`], then answers. So every
//!   request gets exactly one answer, and the next byte after it starts
//!   afresh.
//! - Every refusal's reason is kept as the message ([`SimOp::Message`]) and
//!   printed on stderr in the same words.
//! - A client that leaves (or resets the connection) ends its session,
//!   never the server: the co-simulation and every acknowledged write
//!   stay for the next client ([`Server::serve`] returns).

use crate::sched::{history, CoreId, Cosim};
use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tpb_models::hal::hostlink::*;
use tpb_models::hal::{Hal, Mmio, MmioError, StpbConfig};

mod conn;
mod ops;
pub use conn::{Conn, Script};

/// What one connection did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Session {
    pub frames: u64,
    /// Answers with a status other than OK.
    pub refused: u64,
    /// Bytes outside frames (a client speaking something else sends only these).
    pub skipped: u64,
    pub cycles: u64,
    /// How the session ended.
    pub end: End,
}

/// How a session ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum End {
    /// The client closed the connection between frames.
    #[default]
    Closed,
    /// The client left in the middle of a frame or of a run (what it had
    /// acknowledged stays).
    Left,
    /// Ctrl-C (the caller closes the traces and exits).
    Interrupted,
}

/// What the served file gives the server: the images `STPB_INIT` installs,
/// each Q7 core's own data, and each core kind's symbols and code for the
/// reports.
#[derive(Debug, Clone, Default)]
pub struct Served {
    pub stpb: StpbConfig,
    /// Written after the install, before the release.
    pub data: Vec<DataWrite>,
    /// By core kind (`"q7"`, `"seq"`, `"top_sp"`).
    pub images: BTreeMap<&'static str, ServedImage>,
}

/// Words a host writes into a core's memory between the install and the
/// release (a testbench file's `[[firmware.q7.data]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataWrite {
    /// The BAR0 address of the first byte.
    pub at: u64,
    pub bytes: Vec<u8>,
    /// Where it was written down, for errors.
    pub what: String,
}

/// A core kind's image as the reports read it.
#[derive(Debug, Clone, Default)]
pub struct ServedImage {
    /// In address order.
    pub symbols: Vec<(u32, String)>,
    pub iram: Vec<u8>,
}

impl Served {
    fn image(&self, id: CoreId) -> Option<history::Image<'_>> {
        let kind = match id {
            CoreId::Q7(_) => "q7",
            CoreId::Seq => "seq",
            CoreId::TopSp => "top_sp",
            CoreId::Ncfw => return None,
        };
        self.images.get(kind).map(|i| history::Image { symbols: &i.symbols, iram: &i.iram })
    }
}

/// The server's state around one co-simulation: it lasts across clients.
pub struct Server<'a> {
    pub cosim: &'a mut Cosim,
    /// The file the TRACE op opens (`--vcd`).
    pub vcd: Option<PathBuf>,
    /// What `STPB_INIT` installs (a served file's), if anything.
    pub served: Option<Served>,
    /// Most cycles one RUN or WAIT_HALTED may ask for: [`MAX_RUN_CYCLES`]
    /// (a fuzzer sets fewer).
    pub max_run: u32,
    trace: TraceState,
    /// The last refusal's reason or the last wait's report ([`SimOp::Message`]).
    message: String,
    /// `STPB_INIT` held the releases (address 1): `RELEASE 0` does them.
    held: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TraceState {
    Never,
    Open,
    Closed,
}

/// What one frame read came to.
enum Frame {
    /// A whole frame, CRC checked: op, seq, count, address, data.
    Whole { op: u8, seq: u8, count: u16, addr: u32, data: Vec<u32> },
    /// Refused before it was whole: the answer (after the resync when `resync`).
    Refused { status: Status, seq: u8, count: u16, why: String, resync: bool },
    /// The connection ended between frames, or mid-frame.
    Ended(End),
}

/// How long a wait between frames looks up for Ctrl-C.
const IDLE_POLL: Duration = Duration::from_millis(200);

impl<'a> Server<'a> {
    pub fn new(cosim: &'a mut Cosim) -> Server<'a> {
        Server { cosim, vcd: None, served: None, max_run: MAX_RUN_CYCLES, trace: TraceState::Never, message: String::new(), held: false }
    }

    /// Serve one client until it leaves. The co-simulation, the trace and
    /// the message stay for the next client.
    pub fn serve(&mut self, conn: &mut dyn Conn) -> io::Result<Session> {
        let start = self.cosim.stats.cycles;
        let mut s = Session::default();
        loop {
            let rsp = match self.next_frame(conn, &mut s.skipped)? {
                Frame::Ended(end) => {
                    s.end = end;
                    break;
                }
                Frame::Refused { status, seq, count, why, resync } => {
                    if resync && !self.drain(conn)? {
                        s.end = End::Left;
                        break;
                    }
                    self.refuse(&why);
                    Response { status, seq, count, data: 0 }
                }
                Frame::Whole { op, seq, count, addr, data } => match self.execute(op, count, addr, &data, conn) {
                    Some((status, done, value)) => Response { status, seq, count: done, data: value },
                    None => {
                        // The client left during a run: nobody to answer.
                        s.end = End::Left;
                        break;
                    }
                },
            };
            s.frames += 1;
            s.refused += u64::from(rsp.status != Status::Ok);
            if let Err(e) = conn.write_all(&rsp.encode()).and_then(|()| conn.flush()) {
                if is_gone(&e) {
                    s.end = End::Left;
                    break;
                }
                return Err(e);
            }
        }
        s.cycles = self.cosim.stats.cycles - start;
        Ok(s)
    }

    /// Close the trace if it is open (the server is ending).
    pub fn finish(&mut self) {
        if self.trace == TraceState::Open {
            self.close_trace();
        }
    }

    /// Keep a refusal's reason and print it, in the same words.
    fn refuse(&mut self, why: &str) {
        eprintln!("tpb serve: refused: {why}");
        self.set_message(why);
    }

    fn set_message(&mut self, text: &str) {
        let mut end = text.len().min(MESSAGE_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.message = text[..end].to_string();
    }

    /// Read one frame.
    fn next_frame(&mut self, conn: &mut dyn Conn, skipped: &mut u64) -> io::Result<Frame> {
        // Between frames: wait as long as it takes, looking for Ctrl-C.
        let first = loop {
            conn.set_read_timeout(Some(IDLE_POLL))?;
            let mut b = [0u8; 1];
            match conn.read(&mut b) {
                Ok(0) => return Ok(Frame::Ended(End::Closed)),
                Ok(_) => break b[0],
                Err(e) if is_quiet(&e) => {
                    if crate::interrupt::requested() {
                        return Ok(Frame::Ended(End::Interrupted));
                    }
                }
                Err(e) if is_gone(&e) => return Ok(Frame::Ended(End::Left)),
                Err(e) => return Err(e),
            }
        };
        if first != SYNC_REQUEST {
            // Not a frame: skip to the quiet, then say how many bytes.
            let mut n = 1u64;
            n += match self.drain_counting(conn)? {
                Some(k) => k,
                None => return Ok(Frame::Ended(End::Left)),
            };
            *skipped += n;
            let why = format!("{n} bytes that do not begin a frame (a request starts with {SYNC_REQUEST:#04x}): skipped");
            self.refuse(&why);
            return Ok(Frame::Refused { status: Status::Sync, seq: 0, count: n.min(0xffff) as u16, why, resync: false });
        }
        let deadline = Instant::now() + Duration::from_millis(FRAME_TIMEOUT_MS);
        let mut head = [0u8; HEADER_BYTES - 1];
        match read_by(conn, &mut head, deadline)? {
            Got::All => {}
            Got::Late => return Ok(cut_short(0)),
            Got::Eof => return Ok(Frame::Ended(End::Left)),
        }
        let (op, seq, count, addr) = (head[0], head[1], u16::from_le_bytes([head[2], head[3]]), u32::from_le_bytes([head[4], head[5], head[6], head[7]]));
        let words = match header_check(op, count) {
            None => return Ok(Frame::Refused { status: Status::BadOp, seq, count: 0, why: format!("op {op:#04x} is not an op of the protocol"), resync: true }),
            Some(Err(why)) => {
                let name = Op::from_byte(op).map(|o| format!("{o:?}").to_uppercase()).or_else(|| SimOp::from_byte(op).map(|o| o.name().to_string())).unwrap_or_default();
                return Ok(Frame::Refused { status: Status::BadCount, seq, count: 0, why: format!("{name} (op {op:#04x}): {why}; refused from the header"), resync: true });
            }
            Some(Ok(w)) => w,
        };
        let mut rest = vec![0u8; 4 * words + 2];
        match read_by(conn, &mut rest, deadline)? {
            Got::All => {}
            Got::Late => return Ok(cut_short(seq)),
            Got::Eof => return Ok(Frame::Ended(End::Left)),
        }
        let mut framed = head.to_vec();
        framed.extend_from_slice(&rest[..4 * words]);
        let crc = u16::from_le_bytes([rest[4 * words], rest[4 * words + 1]]);
        if crc != crc16(&framed) {
            return Ok(Frame::Refused { status: Status::Crc, seq, count: 0, why: format!("CRC {crc:#06x}, computed {:#06x}: nothing done", crc16(&framed)), resync: true });
        }
        let data = rest[..4 * words].chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        Ok(Frame::Whole { op, seq, count, addr, data })
    }

    /// Discard bytes until the connection is quiet for [`QUIET_MS`]; false
    /// if the client left meanwhile.
    fn drain(&mut self, conn: &mut dyn Conn) -> io::Result<bool> {
        Ok(self.drain_counting(conn)?.is_some())
    }

    /// As [`Server::drain`], with the number of bytes discarded.
    fn drain_counting(&mut self, conn: &mut dyn Conn) -> io::Result<Option<u64>> {
        conn.set_read_timeout(Some(Duration::from_millis(QUIET_MS)))?;
        let mut n = 0u64;
        let mut buf = [0u8; 256];
        loop {
            match conn.read(&mut buf) {
                Ok(0) => return Ok(None),
                Ok(k) => n += k as u64,
                Err(e) if is_quiet(&e) => return Ok(Some(n)),
                Err(e) if is_gone(&e) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    /// Run one whole frame: (status, words done, answer data); `None` if
    /// the client left during a run (nobody is answered).
    fn execute(&mut self, op: u8, count: u16, addr: u32, data: &[u32], conn: &mut dyn Conn) -> Option<(Status, u16, u32)> {
        if let Some(o) = Op::from_byte(op) {
            if o != Op::Status && !addr.is_multiple_of(4) {
                self.refuse(&format!("{} at {addr:#x}: BAR0 addresses are 4-byte aligned; nothing done", format!("{o:?}").to_uppercase()));
                return Some((Status::BadCount, 0, 0));
            }
            return Some(self.bar0(op, count, addr, data));
        }
        let op = SimOp::from_byte(op).expect("header_check knows every op it passes");
        match self.sim_op(op, addr, data, conn) {
            Ok(r) => r,
            Err((status, why)) => {
                self.refuse(&format!("{}: {why}", op.name()));
                Some((status, 0, 0))
            }
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
        let r = match op {
            1 => self.cosim.read32(a).map(|v| (1, v)),
            2..=4 => {
                let words: Vec<u32> = if op == 4 { vec![data[0]; usize::from(count)] } else { data.to_vec() };
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let r = if op == 2 { self.cosim.write32(a, words[0]) } else { self.cosim.write_buf(a, &bytes) };
                r.map(|()| (words.len() as u16, 0))
            }
            _ => Ok((0, STATUS_MAGIC)),
        };
        match r {
            Ok((done, v)) => (Status::Ok, done, v),
            Err(e) => {
                self.refuse(&format!("op {op:#04x} at {addr:#x}: {e}"));
                (Status::BusError, done_at(&e), 0)
            }
        }
    }

    fn close_trace(&mut self) {
        if let Err(e) = self.cosim.dut.trace_close() {
            eprintln!("tpb serve: closing the trace: {e}");
        }
        self.trace = TraceState::Closed;
    }
}

/// A frame whose rest never came.
fn cut_short(seq: u8) -> Frame {
    Frame::Refused {
        status: Status::Timeout,
        seq,
        count: 0,
        why: format!("the frame was cut short: not whole {FRAME_TIMEOUT_MS} ms after its sync byte; nothing done"),
        resync: false,
    }
}

enum Got {
    All,
    /// The deadline passed first.
    Late,
    /// The client closed (or reset) the connection.
    Eof,
}

/// Fill `buf` before `deadline`.
fn read_by(conn: &mut dyn Conn, buf: &mut [u8], deadline: Instant) -> io::Result<Got> {
    let mut at = 0;
    while at < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(Got::Late);
        }
        conn.set_read_timeout(Some(left))?;
        match conn.read(&mut buf[at..]) {
            Ok(0) => return Ok(Got::Eof),
            Ok(n) => at += n,
            Err(e) if is_quiet(&e) => return Ok(Got::Late),
            Err(e) if is_gone(&e) => return Ok(Got::Eof),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Got::All)
}

/// A read that timed out.
fn is_quiet(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

/// The client went away under us.
fn is_gone(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted | io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof)
}
