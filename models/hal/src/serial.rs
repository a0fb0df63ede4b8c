//! The HAL's transport to the FPGA prototype: BAR0 over a serial line in
//! the host-link protocol ([`crate::hostlink`]). The same HAL code that
//! drives the golden model and the co-simulation drives a board through
//! [`SerialLink::open`] (`/dev/ttyUSB0` on a ULX3S), or anything that reads
//! and writes bytes.
//!
//! Each access is one frame and waits for its answer; `mem_write_buf`
//! sends runs of zero words as FILL frames and the rest as BURSTs of up to
//! [`MAX_BURST`] words. Every failure is a [`MmioError`]: a bus error the
//! prototype reports is [`MmioError::BusError`], anything wrong with the
//! link (I/O, silence, a bad CRC, a sequence number that does not match)
//! is [`MmioError::Link`] naming the request.

use super::mmio::{check_buf, Mmio, MmioError};
use crate::hostlink::{FrameError, Request, Response, Status, MAX_BURST, RESPONSE_BYTES, SYNC_RESPONSE};
use std::io::{Read, Write};
use std::time::Duration;

/// Runs of at least this many zero words go as one FILL frame.
const MIN_FILL: usize = 4;

/// Counts of what went over the link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub frames: u64,
    pub bytes_out: u64,
    pub bytes_in: u64,
}

/// BAR0 over a byte stream.
pub struct SerialLink<P> {
    port: P,
    seq: u8,
    pub stats: LinkStats,
}

impl SerialLink<Box<dyn serialport::SerialPort>> {
    /// Open a serial device (`/dev/ttyUSB0`, a pseudo-terminal...) at
    /// `baud`, waiting at most `timeout` for each answer.
    pub fn open(path: &str, baud: u32, timeout: Duration) -> Result<Self, MmioError> {
        let port = serialport::new(path, baud).timeout(timeout).open().map_err(|e| MmioError::Link { what: format!("open {path} at {baud} baud: {e}") })?;
        Ok(SerialLink::new(port))
    }
}

impl<P: Read + Write> SerialLink<P> {
    /// A link over `port`; reads on it must time out (not block for ever)
    /// when the prototype does not answer.
    pub fn new(port: P) -> Self {
        SerialLink { port, seq: 0, stats: LinkStats::default() }
    }

    pub fn into_inner(self) -> P {
        self.port
    }

    /// Send one request and read its response.
    pub fn transact(&mut self, req: &Request) -> Result<Response, MmioError> {
        let what = |e: String| MmioError::Link { what: format!("{:?} seq {} at {:#x}: {e}", req.op, req.seq, req.addr) };
        let frame = req.encode().map_err(|e: FrameError| what(e.to_string()))?;
        self.port.write_all(&frame).and_then(|_| self.port.flush()).map_err(|e| what(format!("write: {e}")))?;
        self.stats.frames += 1;
        self.stats.bytes_out += frame.len() as u64;
        // Skip anything before the response's sync byte.
        let mut f = [0u8; RESPONSE_BYTES];
        loop {
            self.read_exact(&mut f[..1]).map_err(|e| what(format!("no response: {e}")))?;
            if f[0] == SYNC_RESPONSE {
                break;
            }
        }
        self.read_exact(&mut f[1..]).map_err(|e| what(format!("response cut short: {e}")))?;
        let rsp = Response::decode(&f).map_err(|e| what(e.to_string()))?;
        if rsp.seq != req.seq {
            return Err(what(format!("response to sequence {}, not {}", rsp.seq, req.seq)));
        }
        Ok(rsp)
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        self.port.read_exact(buf)?;
        self.stats.bytes_in += buf.len() as u64;
        Ok(())
    }

    fn next_seq(&mut self) -> u8 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }

    /// A request that must end OK (a bus error becomes [`MmioError::BusError`]).
    fn run(&mut self, req: Request, kind: &str) -> Result<Response, MmioError> {
        let addr = req.addr;
        let rsp = self.transact(&req)?;
        match rsp.status {
            Status::Ok => Ok(rsp),
            Status::BusError => Err(MmioError::BusError { addr: u64::from(addr) + 4 * u64::from(rsp.count), what: kind.to_string() }),
            s => Err(MmioError::Link { what: format!("{:?} seq {} at {addr:#x}: the prototype answered {s:?}", req.op, req.seq) }),
        }
    }

    /// The prototype's STATUS word ([`crate::hostlink::STATUS_MAGIC`]) and its count of bad frames.
    pub fn status(&mut self) -> Result<(u32, u16), MmioError> {
        let seq = self.next_seq();
        let r = self.run(Request::status(seq), "status")?;
        Ok((r.data, r.count))
    }
}

fn addr32(kind: &'static str, addr: u64) -> Result<u32, MmioError> {
    if !addr.is_multiple_of(4) {
        return Err(MmioError::Misaligned { kind, addr });
    }
    u32::try_from(addr).map_err(|_| MmioError::Unmapped { kind, addr })
}

impl<P: Read + Write> Mmio for SerialLink<P> {
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError> {
        let a = addr32("read", addr)?;
        let seq = self.next_seq();
        Ok(self.run(Request::read(seq, a), "read")?.data)
    }

    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError> {
        let a = addr32("write", addr)?;
        let seq = self.next_seq();
        self.run(Request::write(seq, a, value), "write").map(|_| ())
    }

    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        check_buf(addr, data.len())?;
        let words: Vec<u32> = data.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let base = addr32("write", addr)?;
        u32::try_from(addr + data.len() as u64).map_err(|_| MmioError::Unmapped { kind: "write", addr: addr + data.len() as u64 })?;
        let mut i = 0;
        while i < words.len() {
            let zeros = words[i..].iter().take_while(|&&w| w == 0).count();
            let at = base + 4 * i as u32;
            if zeros >= MIN_FILL {
                let n = zeros.min(u16::MAX as usize);
                let seq = self.next_seq();
                self.run(Request::fill(seq, at, n as u16, 0), "write")?;
                i += n;
                continue;
            }
            // A burst up to the next long zero run.
            let mut n = 0;
            while i + n < words.len() && n < MAX_BURST as usize {
                if words[i + n..].iter().take(MIN_FILL).filter(|&&w| w == 0).count() == MIN_FILL {
                    break;
                }
                n += 1;
            }
            let n = n.max(1);
            let seq = self.next_seq();
            self.run(Request::burst(seq, at, &words[i..i + n]), "write")?;
            i += n;
        }
        Ok(())
    }
}
