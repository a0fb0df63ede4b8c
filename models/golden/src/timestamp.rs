//! The TPB timestamp (tpb.toml `timestamp_*`, all `[D]`; the seeds name the
//! counter, its `timestamp_inc` tick and the firmware's atomic 64-bit
//! snapshot, DIGEST §7, seed 001 §8). The RTL is in `hdl/src/top/stamp.rs`.
//!
//! - A 64-bit counter, 0 after reset, that adds `timestamp_inc` every cycle
//!   while `timestamp_ctrl.run` is set.
//! - A write of `timestamp_adjust_hi` adds the signed 64-bit
//!   `{timestamp_adjust_hi, timestamp_adjust_lo}` in the cycle its pulse is
//!   high (the cycle after the write), on top of that cycle's tick.
//! - A read of `timestamp_lo` returns the counter's low word and latches its
//!   high word, which `timestamp_hi` returns until the next `timestamp_lo`
//!   read: `lo` then `hi` is one consistent 64-bit value.

/// The counter and the latched high word.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timestamp {
    pub count: u64,
    pub hi_latched: u32,
}

impl Timestamp {
    /// What `timestamp_lo` reads this cycle.
    pub fn lo(&self) -> u32 {
        self.count as u32
    }
    /// One edge: `tick` (`Some(inc)` while running), `adjust` (the pulse's
    /// 64-bit value), whether `timestamp_lo` is read this cycle.
    pub fn step(&mut self, reset: bool, tick: Option<u32>, adjust: Option<u64>, lo_read: bool) {
        if reset {
            *self = Timestamp::default();
            return;
        }
        if lo_read {
            self.hi_latched = (self.count >> 32) as u32;
        }
        self.count = self.count.wrapping_add(u64::from(tick.unwrap_or(0))).wrapping_add(adjust.unwrap_or(0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_ticks_adjusts_and_latches_the_high_word_at_the_low_read() {
        let mut t = Timestamp::default();
        t.step(false, None, None, false);
        assert_eq!(t.count, 0, "stopped");
        t.count = 0xffff_fffe;
        t.step(false, Some(1), None, true);
        assert_eq!((t.count, t.hi_latched), (0xffff_ffff, 0));
        t.step(false, Some(1), None, false);
        assert_eq!((t.count, t.hi_latched), (0x1_0000_0000, 0), "hi stays latched until the next lo read");
        t.step(false, Some(3), Some(-5i64 as u64), true);
        assert_eq!((t.count, t.hi_latched), (0xffff_fffe, 1), "tick and adjustment add in one cycle; the latch took the old value");
        t.step(true, Some(1), None, true);
        assert_eq!(t, Timestamp::default());
    }
}
