//! A client connection as the server reads it ([`Conn`]): bytes that may
//! arrive late (a read with a time limit), and a client that may have gone.
//! Two of them: a TCP socket, and [`Script`], a client's sends replayed from
//! memory (the tests and the fuzzer), each send followed by a quiet gap.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A client connection.
pub trait Conn: Read + Write {
    /// Reads wait at most `t` (`None`: as long as it takes); a read that
    /// times out fails with `WouldBlock` or `TimedOut`.
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()>;
    /// The client closed its end (looked at during long runs).
    fn gone(&mut self) -> bool;
}

impl Conn for TcpStream {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        TcpStream::set_read_timeout(self, t)
    }

    fn gone(&mut self) -> bool {
        if self.set_nonblocking(true).is_err() {
            return true;
        }
        let mut b = [0u8; 1];
        let gone = match self.peek(&mut b) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => e.kind() != io::ErrorKind::WouldBlock,
        };
        gone || self.set_nonblocking(false).is_err()
    }
}

/// A client's sends replayed from memory: each send arrives whole, then the
/// connection is quiet (a read with a time limit times out) until the next
/// send; after the last, the client closes.
#[derive(Debug, Default)]
pub struct Script {
    sends: Vec<Vec<u8>>,
    /// The send being read and the position in it.
    at: (usize, usize),
    timeout: Option<Duration>,
    /// The client hangs up right after its last send, without waiting for
    /// the answer (else it waits, quiet, then closes).
    pub hang_up: bool,
    /// The quiet after the last send was seen.
    waited: bool,
    /// What the server wrote.
    pub out: Vec<u8>,
}

impl Script {
    pub fn new(sends: Vec<Vec<u8>>) -> Script {
        Script { sends, ..Script::default() }
    }

    /// Fuzzer input as sends: each is a length byte, then that many bytes
    /// (the last one cut at the input's end).
    pub fn from_fuzz(mut data: &[u8]) -> Script {
        let mut sends = Vec::new();
        while let Some((&n, rest)) = data.split_first() {
            let n = usize::from(n).min(rest.len());
            sends.push(rest[..n].to_vec());
            data = &rest[n..];
        }
        Script::new(sends)
    }
}

impl Read for Script {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(send) = self.sends.get(self.at.0) else {
                // After its last send a client waits (quiet) for its answer, then closes.
                if self.timeout.is_some() && !self.hang_up && !self.waited {
                    self.waited = true;
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                return Ok(0);
            };
            if self.at.1 < send.len() {
                let n = buf.len().min(send.len() - self.at.1);
                buf[..n].copy_from_slice(&send[self.at.1..self.at.1 + n]);
                self.at.1 += n;
                return Ok(n);
            }
            // This send is used up: a reader with a time limit sees the gap.
            self.at = (self.at.0 + 1, 0);
            if self.timeout.is_some() && self.at.0 < self.sends.len() {
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
    }
}

impl Write for Script {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Conn for Script {
    fn set_read_timeout(&mut self, t: Option<Duration>) -> io::Result<()> {
        self.timeout = t;
        Ok(())
    }

    /// A client that hangs up is gone once its last send was read.
    fn gone(&mut self) -> bool {
        self.hang_up && self.sends.get(self.at.0).is_none_or(|s| self.at.0 + 1 == self.sends.len() && self.at.1 == s.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_shows_its_gaps_only_to_a_reader_with_a_time_limit() {
        let mut s = Script::new(vec![b"ab".to_vec(), b"c".to_vec()]);
        let mut b = [0u8; 4];
        assert_eq!(s.read(&mut b).unwrap(), 2);
        s.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
        assert_eq!(s.read(&mut b).unwrap_err().kind(), io::ErrorKind::WouldBlock, "the gap after the first send");
        assert_eq!(s.read(&mut b).unwrap(), 1);
        assert!(!s.gone(), "a client that waits for its answer");
        assert_eq!(s.read(&mut b).unwrap_err().kind(), io::ErrorKind::WouldBlock, "quiet while it waits");
        assert_eq!(s.read(&mut b).unwrap(), 0, "then it closes");
        s.hang_up = true;
        assert!(s.gone(), "one that hangs up after its last send");
        let f = Script::from_fuzz(&[2, 9, 9, 5, 1]);
        assert_eq!(f.sends, vec![vec![9, 9], vec![1]]);
    }
}
