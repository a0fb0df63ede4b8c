//! # tpb-spec
//!
//! The project's own `[D]` protocol and layout constants: the facts the RTL
//! (`tpb-hdl`), the golden models, the behavioural core, the HAL and the
//! co-simulation all depend on, kept below all of them so that each depends
//! on the description only (an edit to the HAL does not rebuild the RTL).
//! The hardware's `[S]` register maps live in `tpb-regmap`.
//!
//! - [`hostlink`]: the serial host link's frames (BAR0 over a UART);
//! - [`core_map`]: the addresses a core sees: its DRAM, the system window
//!   onto BAR0, the SoC and HW-decode ports, the POOL control window and
//!   the address-translation apertures;
//! - [`seq_dma`] and [`hw_decode`]: the status windows of the SEQ DMA
//!   engine and the HW-decode CAM.

pub mod core_map;
pub mod hostlink;

/// The SEQ DMA engine's status window (`[D]`, DIGEST §5): where it sits in
/// the engine's DMA window and its sticky error bits (write 1 to clear).
pub mod seq_dma {
    /// Offset of the status registers in the DMA window.
    pub const STATUS: u32 = 0x800;
    /// A descriptor's completion address is not an EVT_SEM INC slot.
    pub const ERR_COMPLETION: u32 = 1;
    /// A descriptor, or its source or destination, lies outside the engine's SRAM.
    pub const ERR_RANGE: u32 = 2;
    /// A tail increment on a ring of length 0.
    pub const ERR_EMPTY_RING: u32 = 4;
}

/// The HW-decode CAM's status window (`[D]`, DIGEST §4).
pub mod hw_decode {
    /// Offset of the status register in the CAM's window.
    pub const STATUS: u32 = 0x3f0;
}
