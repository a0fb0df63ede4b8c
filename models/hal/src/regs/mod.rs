//! Typed register constants for the host HAL, generated from the register
//! maps into `generated.rs` (`tpb regen`; a test proves the file is fresh).
//!
//! ```
//! use tpb_hal::regs::cayman;
//! assert_eq!(cayman::top_sp::HOST_TRIGGER.offset, 0x15a0);
//! assert_eq!(cayman::q7::RELEASE_RUN_STALL.reset, 0xff);
//! ```

mod generated;
pub use generated::*;

/// One register (or named alias) as the HAL addresses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reg {
    pub name: &'static str,
    pub block: &'static str,
    /// HAL-view byte offset from the aperture base (what the host writes).
    pub offset: u32,
    /// Offset the RTL decodes.
    pub rtl_offset: u32,
    /// Device-spec offset, where the seeds give one.
    pub device_offset: Option<u32>,
    /// Reset value of the word.
    pub reset: u32,
}

/// A bit field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
}

impl Field {
    pub const fn mask(&self) -> u32 {
        (((1u64 << self.width) - 1) as u32) << self.lsb
    }
    /// Extract the field from a register word.
    pub const fn get(&self, word: u32) -> u32 {
        (word & self.mask()) >> self.lsb
    }
    /// Replace the field in `word` with `value` (excess bits dropped).
    pub const fn set(&self, word: u32, value: u32) -> u32 {
        (word & !self.mask()) | ((value << self.lsb) & self.mask())
    }
}

/// An array reached through alias windows (EVT_SEM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Array {
    pub name: &'static str,
    pub count: u32,
    pub stride: u32,
    pub windows: &'static [(&'static str, u32)],
}

impl Array {
    /// Offset of element `index` in window `window`; None for an unknown window or index.
    pub fn addr(&self, window: &str, index: u32) -> Option<u32> {
        if index >= self.count {
            return None;
        }
        self.windows.iter().find(|(n, _)| *n == window).map(|(_, o)| o + index * self.stride)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_get_set_mask() {
        let f = cayman::tpb::notific_sw_queue_num0::ENGINE_ID_A;
        assert_eq!(f.mask(), 0x00f0_0000);
        assert_eq!(f.get(0x0123_4567), 0x2);
        assert_eq!(f.set(0xffff_ffff, 0x5), 0xff5f_ffff);
        assert_eq!(f.set(0, 0x1f), 0x00f0_0000, "excess bits are dropped");
        let full = Field { name: "value", lsb: 0, width: 32 };
        assert_eq!(full.mask(), 0xffff_ffff);
    }

    #[test]
    fn array_addresses_and_bounds() {
        let a = cayman::evt_sem::EVT_SEM;
        assert_eq!(a.addr("read", 0), Some(0x1000));
        assert_eq!(a.addr("dec", 255), Some(0x1c00 + 255 * 4));
        assert_eq!(a.addr("dec", 256), None);
        assert_eq!(a.addr("xor", 0), None);
    }

    #[test]
    fn hal_view_and_rtl_view_offsets_differ_where_the_seeds_say() {
        let r = sunda::nx::RELEASE_RUN_STALL;
        assert_eq!((r.offset, r.rtl_offset, r.device_offset, r.reset), (0x04, 0x04, Some(0x00), 1));
        assert_eq!(sunda::nx::RUN_STATE.device_offset, Some(0x08));
        assert_eq!(mariana::q7::RUN_STATE_7.offset, 0x3024);
    }

    /// A repeat group is also one array, in index order: element k is the
    /// register `..k..`, at the group's stride (the windows: 0x1c, DIGEST §2.8).
    #[test]
    fn repeat_groups_are_arrays_in_index_order() {
        for (k, r) in cayman::windows::WINDOW_SRC_LO.iter().enumerate() {
            assert_eq!((r.name.to_string(), r.offset), (format!("window{k}_src_lo"), 0x2000 + 0x1c * k as u32));
        }
        assert_eq!(cayman::windows::WINDOW_CTRL[7].name, "window7_ctrl");
        assert_eq!(mariana::q7::RUN_STATE[7], mariana::q7::RUN_STATE_7);
        assert_eq!(sunda::q7::INTR_INFO.len(), 8);
    }
}
