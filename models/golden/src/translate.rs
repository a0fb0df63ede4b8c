//! `[D]` Address translation, the rules the RTL top's `xlat_*` logic and
//! the golden top share: POOL's window bundle (`windows.toml`) and the
//! SEQ's `mem_window2` aperture. [`crate::top`] re-exports them.

pub use tpb_spec::core_map::{MEM_WINDOW2_BASE, MEM_WINDOW2_SIZE};
/// The windows of a bundle (`windows.toml`: window0..7).
pub const WINDOWS: usize = 8;

/// One window of the bundle as its registers hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    pub src: u64,
    pub size: u64,
    pub dst: u64,
    pub enable: bool,
    /// 0 = the engine's NX core, n + 1 = Q7 core n.
    pub requester: u8,
}

/// `[D]` Address translation (POOL's window bundle and `mem_window2`): the
/// SoC address requester `who`'s access to `addr` names, if any. Window n
/// matches when enabled, for its requester, with `src <= addr < src + size`
/// (64-bit, `addr` zero-extended); the lowest matching window wins and gives
/// `dst + (addr - src)`; `mem_window2` (the SEQ's, below every window)
/// covers [`MEM_WINDOW2_BASE`]`..+`[`MEM_WINDOW2_SIZE`]. Sums wrap at 64 bits.
pub fn translate(windows: &[Window], mem_window2: u64, who: u8, addr: u32) -> Option<u64> {
    let a = u64::from(addr);
    let hit = windows.iter().find(|w| w.enable && w.requester == who && a >= w.src && a - w.src < w.size);
    if let Some(w) = hit {
        return Some(w.dst.wrapping_add(a - w.src));
    }
    let off = addr.wrapping_sub(MEM_WINDOW2_BASE);
    (who == 0 && off < MEM_WINDOW2_SIZE && mem_window2 != 0).then(|| mem_window2.wrapping_add(u64::from(off)))
}

/// The translation port's answer, the cycle after a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct XlatOut {
    pub valid: bool,
    pub hit: bool,
    /// The SoC address (0 without a hit).
    pub dst: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(src: u64, size: u64, dst: u64, requester: u8) -> Window {
        Window { src, size, dst, enable: true, requester }
    }

    /// The translation rules: bounds, requester, enable, the lowest window
    /// first, mem_window2 below every window and for the SEQ only, 64-bit sums.
    #[test]
    fn translation_follows_the_window_rules() {
        let b = u64::from(MEM_WINDOW2_BASE);
        let ws = [w(b + 0x100, 0x100, 0x8_0000_0000, 0), w(b, 0x1000, 0x10, 0), w(b, 0x1000, 0x20, 2), Window { enable: false, ..w(b + 0x2000, 0x100, 0x30, 0) }];
        let t = |who, a: u64| translate(&ws, 0, who, a as u32);
        assert_eq!(t(0, b + 0x100), Some(0x8_0000_0000), "window 0 wins where it and window 1 overlap");
        assert_eq!(t(0, b + 0x1ff), Some(0x8_0000_00ff));
        assert_eq!(t(0, b + 0x200), Some(0x210), "past window 0: window 1");
        assert_eq!(t(0, b + 0xfff), Some(0x10 + 0xfff));
        assert_eq!(t(0, b + 0x1000), None, "src + size is outside");
        assert_eq!(t(0, b - 4), None, "below src");
        assert_eq!(t(2, b + 4), Some(0x24), "window 2 is Q7 core 1's");
        assert_eq!(t(1, b + 4), None, "Q7 core 0 has no window");
        assert_eq!(t(0, b + 0x2000), None, "a disabled window");
        // mem_window2: the SEQ's aperture, under the windows.
        assert_eq!(translate(&ws, 0x5_0000_0000, 0, MEM_WINDOW2_BASE + 0x2000), Some(0x5_0000_2000));
        assert_eq!(translate(&ws, 0x5_0000_0000, 0, MEM_WINDOW2_BASE + 4), Some(0x14), "window 1 first");
        assert_eq!(translate(&ws, 0x5_0000_0000, 1, MEM_WINDOW2_BASE + 0x2000), None, "the SEQ's only");
        assert_eq!(translate(&ws, 0x5_0000_0000, 0, MEM_WINDOW2_BASE + MEM_WINDOW2_SIZE), None, "past its size");
        assert_eq!(translate(&[], u64::MAX, 0, MEM_WINDOW2_BASE + 1), Some(0), "the sum wraps at 64 bits");
        // A size past 4 GiB covers the rest of the 32-bit requester space.
        assert_eq!(translate(&[w(b, 1 << 33, 0xffff_ff00, 0)], 0, 0, u32::MAX), Some(0xffff_ff00 + u64::from(u32::MAX) - b));
    }
}
