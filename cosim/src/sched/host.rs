//! The host side: the HAL reaches the co-simulation through [`Mmio`], each
//! access running the whole system until the top answers; the words it
//! and the cores wrote are remembered so an install can skip zero words
//! nobody wrote.

use super::*;
use tpb_models::hal::padded;

/// The BAR0 words written so far, as disjoint ranges `[start, end)` of
/// byte addresses (installs write long runs: a range each, not a word each).
#[derive(Debug, Default, Clone)]
pub struct Written(BTreeMap<u64, u64>);

impl Written {
    /// Record the word at `addr`.
    pub fn insert(&mut self, addr: u64) {
        let end = addr + 4;
        // A range ending at `addr` grows; one starting at `end` joins it.
        let (mut start, mut stop) = (addr, end);
        if let Some((&s, &e)) = self.0.range(..=addr).next_back() {
            if e >= addr {
                start = s;
                stop = stop.max(e);
            }
        }
        if let Some(&e) = self.0.get(&stop) {
            self.0.remove(&stop);
            stop = e;
        }
        self.0.insert(start, stop);
    }

    /// Was the word at `addr` written?
    pub fn contains(&self, addr: u64) -> bool {
        self.0.range(..=addr).next_back().is_some_and(|(_, &e)| addr < e)
    }

    /// Was any word in `[lo, hi)` written?
    pub fn any_in(&self, lo: u64, hi: u64) -> bool {
        self.0.range(..hi).next_back().is_some_and(|(_, &e)| e > lo)
    }
}

impl Cosim {
    /// One BAR0 access of the host, the whole system running until the answer.
    pub fn access(&mut self, req: Req) -> Result<Rsp, MmioError> {
        self.stats.transactions += 1;
        self.host_req = Some(req);
        self.host_rsp = None;
        // The bus may be busy with a core's request: allow for it.
        for _ in 0..2 * BAR0_TIMEOUT + 4 {
            self.cycle(false);
            if let Some(r) = self.host_rsp.take() {
                return r.map_err(|e| MmioError::BusError { addr: req.addr.into(), what: e.to_string() });
            }
        }
        self.host_req = None;
        Err(MmioError::BusError { addr: req.addr.into(), what: "the request was never granted".into() })
    }
}

impl Cosim {
    /// The bits `mask` of the word at `addr`, read by the host, were
    /// compared by a check (register coverage, when it is kept).
    pub fn checked(&mut self, addr: u64, mask: u32) {
        if let (Some(rc), Ok(a)) = (&mut self.regs, u32::try_from(addr)) {
            rc.check(a, mask);
        }
    }

    /// A host read whose bits `mask` a check compares (see [`Cosim::checked`]).
    pub fn read_checked(&mut self, addr: u64, mask: u32) -> Result<u32, MmioError> {
        let v = self.read32(addr)?;
        self.checked(addr, mask);
        Ok(v)
    }
}

impl Mmio for Cosim {
    fn read32(&mut self, addr: u64) -> Result<u32, MmioError> {
        let a = u32::try_from(addr).map_err(|_| MmioError::Unmapped { kind: "read", addr })?;
        if a % 4 != 0 {
            return Err(MmioError::Misaligned { kind: "read", addr });
        }
        let r = self.access(Req { write: false, addr: a, wdata: 0 })?;
        if r.err {
            return Err(MmioError::BusError { addr, what: "read".into() });
        }
        Ok(r.rdata)
    }

    fn write32(&mut self, addr: u64, value: u32) -> Result<(), MmioError> {
        let a = u32::try_from(addr).map_err(|_| MmioError::Unmapped { kind: "write", addr })?;
        if a % 4 != 0 {
            return Err(MmioError::Misaligned { kind: "write", addr });
        }
        self.written.insert(addr);
        let r = self.access(Req { write: true, addr: a, wdata: value })?;
        if r.err {
            return Err(MmioError::BusError { addr, what: "write".into() });
        }
        Ok(())
    }

    /// Word by word; zero words over addresses neither the host nor a core
    /// wrote are not sent (every memory of the top resets to 0), and are
    /// counted in `Stats::elided`.
    fn write_buf(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        check_buf(addr, data.len())?;
        // One look-up for a buffer that overlaps nothing written (the usual
        // ucode install), else one per zero word.
        let fresh = !self.written.any_in(addr, addr + data.len() as u64);
        let mut at = 0;
        while at + 4 <= data.len() {
            if fresh {
                // A padded install is mostly zeros: pass them a block at a time.
                let next = next_nonzero_word(data, at);
                self.stats.elided += ((next - at) / 4) as u64;
                at = next;
                if at + 4 > data.len() {
                    break;
                }
            }
            let (a, v) = (addr + at as u64, u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]));
            at += 4;
            if v == 0 && !self.written.contains(a) {
                self.stats.elided += 1;
                continue;
            }
            self.write32(a, v)?;
        }
        Ok(())
    }

    /// The words that hold data as `write_buf` sends them (the last one
    /// completed with zeros), then the padding: over memory nothing wrote,
    /// its zero words are elided without a buffer for them.
    fn write_buf_padded(&mut self, addr: u64, data: &[u8], len: usize) -> Result<(), MmioError> {
        let len = len.max(data.len());
        check_buf(addr, len)?;
        let head = data.len().next_multiple_of(4);
        self.write_buf(addr, &padded(data, head))?;
        let (start, tail) = (addr + head as u64, len - head);
        if self.written.any_in(start, start + tail as u64) {
            return self.write_buf(start, &vec![0; tail]);
        }
        self.stats.elided += (tail / 4) as u64;
        Ok(())
    }
}

/// The offset of the first word of `data` at or after `from` (a multiple
/// of 4) that is not zero; past the last whole word if none is.
fn next_nonzero_word(data: &[u8], from: usize) -> usize {
    const BLOCK: usize = 64;
    let mut at = from;
    // An OR over a block the compiler vectorises, then word by word.
    while at + BLOCK <= data.len() && data[at..at + BLOCK].iter().fold(0, |a, b| a | b) == 0 {
        at += BLOCK;
    }
    while at + 4 <= data.len() && data[at..at + 4] == [0; 4] {
        at += 4;
    }
    at.min(data.len() / 4 * 4)
}

#[cfg(test)]
mod tests {
    use super::{next_nonzero_word, Written};

    /// A padded install without its zero buffer leaves what `write_buf` of
    /// the whole buffer leaves, with the same accesses sent and elided: on
    /// fresh memory, and over a word written before (which the padding's
    /// zero must overwrite), with a last data word only partly given.
    #[test]
    fn a_padded_install_is_the_write_of_its_whole_buffer() {
        use super::super::Cosim;
        use tpb_models::hal::Mmio;
        use tpb_models::regmap::Arch;
        let run = |padded: bool, written_before: bool| {
            let mut c = Cosim::new(Arch::Cayman).unwrap();
            let base = u64::from(crate::firmware::bar0_region(c.map(), "seq.dma").unwrap());
            if written_before {
                c.write32(base + 0x40, 0xdead_beef).unwrap();
            }
            let data = [1u8, 2, 3, 4, 0, 0, 0, 0, 5, 6];
            if padded {
                c.write_buf_padded(base, &data, 0x100).unwrap();
            } else {
                c.write_buf(base, &tpb_models::hal::padded(&data, 0x100)).unwrap();
            }
            let words: Vec<u32> = (0..0x44 / 4).map(|k| c.read32(base + 4 * k).unwrap()).collect();
            (words, c.stats.transactions, c.stats.elided)
        };
        for written_before in [false, true] {
            let whole = run(false, written_before);
            assert_eq!(run(true, written_before), whole, "written before: {written_before}");
            let w = &whole.0;
            assert_eq!((w[0], w[1], w[2], w[0x40 / 4]), (0x0403_0201, 0, 0x0605, 0), "written before: {written_before}");
        }
    }

    #[test]
    fn the_zero_skip_stops_at_the_first_word_that_is_not_zero() {
        let mut d = vec![0u8; 300];
        assert_eq!(next_nonzero_word(&d, 0), 300, "all zero: past the last word");
        for (k, want) in [(299, 296), (200, 200), (131, 128), (64, 64), (3, 0)] {
            d.fill(0);
            d[k] = 1;
            assert_eq!(next_nonzero_word(&d, 0), want, "a byte at {k}");
        }
        d.fill(0);
        d[8] = 1;
        assert_eq!(next_nonzero_word(&d, 12), 300, "from past it");
        assert_eq!(next_nonzero_word(&d, 8), 8);
    }

    #[test]
    fn written_words_merge_into_ranges() {
        let mut w = Written::default();
        for a in [0, 4, 8, 16] {
            w.insert(a);
        }
        assert_eq!(w.0.len(), 2, "{:?}", w.0);
        w.insert(12);
        assert_eq!(w.0.iter().map(|(a, b)| (*a, *b)).collect::<Vec<_>>(), vec![(0, 20)]);
        w.insert(8);
        assert_eq!(w.0.len(), 1, "a word written twice changes nothing");
        assert!(w.contains(0) && w.contains(16) && !w.contains(20));
        assert!(w.any_in(19, 100) && !w.any_in(20, 100) && !w.any_in(0, 0));
        w.insert(0x1000);
        assert!(!w.any_in(0x20, 0x1000) && w.any_in(0x20, 0x1004) && w.contains(0x1000));
    }
}
