//! A UART line at the bit level, one call per clock cycle: what the host
//! side of the prototype's serial link puts on the wire and reads back
//! (8N1, LSB first, idle high, `div` clock cycles per bit). Drives the
//! bridge under rust-hdl and the prototype under Verilator.

use std::collections::VecDeque;

/// Serialises queued bytes onto a line.
#[derive(Debug)]
pub struct UartSender {
    div: u32,
    queue: VecDeque<u8>,
    /// The frame being sent (start, 8 data, stop) and where in it.
    bits: u16,
    bit: u32,
    cnt: u32,
}

impl UartSender {
    pub fn new(div: u32) -> UartSender {
        UartSender { div, queue: VecDeque::new(), bits: 0, bit: 10, cnt: 0 }
    }
    pub fn send(&mut self, bytes: &[u8]) {
        self.queue.extend(bytes);
    }
    /// Nothing queued and nothing on the line.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.bit == 10
    }
    /// The line's level this cycle.
    pub fn tick(&mut self) -> bool {
        if self.bit == 10 {
            match self.queue.pop_front() {
                Some(b) => {
                    self.bits = (u16::from(b) << 1) | 0x200;
                    self.bit = 0;
                    self.cnt = 0;
                }
                None => return true,
            }
        }
        let level = self.bits >> self.bit & 1 != 0;
        self.cnt += 1;
        if self.cnt == self.div {
            self.cnt = 0;
            self.bit += 1;
        }
        level
    }
}

/// Recovers bytes from a line, sampling mid-bit; a byte whose stop bit is
/// low is counted in `framing_errors` and dropped.
#[derive(Debug)]
pub struct UartReceiver {
    div: u32,
    /// None: idle; Some(k): cycles into the current frame.
    at: Option<u32>,
    shift: u16,
    pub bytes: VecDeque<u8>,
    pub framing_errors: u32,
}

impl UartReceiver {
    pub fn new(div: u32) -> UartReceiver {
        UartReceiver { div, at: None, shift: 0, bytes: VecDeque::new(), framing_errors: 0 }
    }
    /// In the middle of a byte.
    pub fn busy(&self) -> bool {
        self.at.is_some()
    }
    pub fn tick(&mut self, level: bool) {
        match self.at {
            None => {
                if !level {
                    self.at = Some(0);
                    self.shift = 0;
                }
            }
            Some(k) => {
                let k = k + 1;
                self.at = Some(k);
                // Mid-bit of bit n (0 = start): k = n * div + div / 2.
                if k >= self.div / 2 && (k - self.div / 2).is_multiple_of(self.div) {
                    let n = (k - self.div / 2) / self.div;
                    self.shift |= u16::from(level) << n;
                    if n == 9 {
                        if level {
                            self.bytes.push_back((self.shift >> 1) as u8);
                        } else {
                            self.framing_errors += 1;
                        }
                        self.at = None;
                    }
                }
            }
        }
    }
}
