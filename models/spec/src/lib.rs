//! # tpb-spec
//!
//! The project's own `[D]` protocol and layout constants: the facts the RTL
//! (`tpb-hdl`), the golden models, the behavioural core, the HAL and the
//! co-simulation all depend on, kept below all of them so that each depends
//! on the description only (an edit to the HAL does not rebuild the RTL).
//! The hardware's register maps (their `[S]`, `[I]` and `[D]` facts) live in `tpb-regmap`.
//!
//! - [`byte_code!`]: an enum of one-byte codes, each written once;
//! - [`hostlink`]: the serial host link's frames (BAR0 over a UART);
//! - [`core_map`]: the addresses a core sees: its DRAM, the system window
//!   onto BAR0, the SoC and HW-decode ports, the POOL control window and
//!   the address-translation apertures;
//! - [`nx_intr`]: the NX bundle's interrupt-information bits;
//! - [`seq_dma`] and [`hw_decode`]: the status windows of the SEQ DMA
//!   engine and the HW-decode CAM, generated from the register map (they
//!   are hand-written blocks: the map describes them, the RTL takes these).

mod byte_code;
pub mod core_map;
pub mod hostlink;

mod generated;

/// The NX bundle's `intr_info` bits (`[D]`, `maps/common/nx.toml`): what
/// sets each (write 1 to clear). The core's interrupt line is
/// `intr_ctrl.enable & (intr_info != 0)`.
pub mod nx_intr {
    /// POOL: a SEQ DMA error bit newly set.
    pub const DMA_ERROR: u32 = 1 << 0;
    /// POOL (CAYMAN/MARIANA): a HW-decode CAM miss.
    pub const CAM_MISS: u32 = 1 << 1;
    /// This engine's EVT_SEM changed.
    pub const SEM_CHANGED: u32 = 1 << 2;
    /// The host wrote `intr_ctrl.raise`.
    pub const HOST_RAISE: u32 = 1 << 3;
    /// TOP_SP (SUNDA): the host wrote `top_sp.host_trigger` (0x60848).
    pub const HOST_TRIGGER: u32 = 1 << 4;
    /// TOP_SP (SUNDA): the host wrote `top_sp.stop` (0x6084c).
    pub const STOP: u32 = 1 << 5;
}

/// The SEQ DMA engine's status window (`[D]`, DIGEST §5): the registers the
/// map describes (`maps/common/seq_dma.toml`), and names for the error bits.
pub mod seq_dma {
    pub use crate::generated::seq_dma::*;
    /// Offset of the status registers in the DMA window (the first of them).
    pub const STATUS: u32 = RX_HW_HEAD;
    /// The status registers in the order the RTL decodes them: word `k` of
    /// the window at `STATUS + 4k` (a test pins the map to this order).
    pub const WORDS: [u32; 8] = [RX_HW_HEAD, RX_PENDING, RX_DONE, TX_HW_HEAD, TX_PENDING, TX_DONE, ERROR, BUSY];
    /// Bytes of the status window (a power of two the RTL decodes by mask).
    pub const STATUS_SPAN: u32 = 4 * WORDS.len() as u32;
    /// A descriptor's completion address is not an EVT_SEM INC slot.
    pub const ERR_COMPLETION: u32 = error::COMPLETION_MASK;
    /// A descriptor, or its source or destination, lies outside the engine's SRAM.
    pub const ERR_RANGE: u32 = error::RANGE_MASK;
    /// A tail increment on a ring of length 0.
    pub const ERR_EMPTY_RING: u32 = error::EMPTY_RING_MASK;
    /// A SoC write answered with an error.
    pub const ERR_SOC: u32 = error::SOC_MASK;
    /// A descriptor with the reserved op.
    pub const ERR_OP: u32 = error::OP_MASK;
    /// The DMA SRAM of every top: `2^SRAM_AW` words (2 KiB, all the window
    /// holds below the status registers; `[D]`).
    pub const SRAM_AW: usize = 9;
    /// Every error bit (the RTL's `errors[4:0]`).
    pub const ERR_ALL: u32 = ERR_COMPLETION | ERR_RANGE | ERR_EMPTY_RING | ERR_SOC | ERR_OP;

    /// A descriptor's op (`[D]`): word 2 `[17:16]`, beside the length in `[15:0]`.
    pub const OP_SHIFT: u32 = 16;
    /// Copy `length` words from the source to the destination, both in the DMA SRAM.
    pub const OP_COPY: u32 = 0;
    /// Reduce: each destination word becomes destination + source (32-bit
    /// wrapping add), both in the DMA SRAM.
    pub const OP_ADD: u32 = 1;
    /// Write `length` source words (DMA SRAM) to consecutive words of a
    /// SoC address, through the top's system master port; word 1 is then
    /// the DMA-SRAM byte offset of that 8-byte address (low word first).
    pub const OP_SOC_WRITE: u32 = 2;

    /// Word 2 of a descriptor: `length` words of `op`.
    pub const fn len_op(length: u16, op: u32) -> u32 {
        length as u32 | (op & 3) << OP_SHIFT
    }
}

/// The HW-decode CAM's status register (`[D]`, DIGEST §4), as the map
/// describes it (`maps/common/hw_decode.toml`).
pub mod hw_decode {
    pub use crate::generated::hw_decode::*;
}

#[cfg(test)]
mod tests {
    /// The map's status registers are consecutive words in the RTL's order,
    /// and the window is aligned to its size (the RTL decodes it by mask).
    #[test]
    fn seq_dma_status_words_are_the_rtls_order() {
        use super::seq_dma::*;
        for (k, w) in WORDS.iter().enumerate() {
            assert_eq!(*w, STATUS + 4 * k as u32, "word {k}");
        }
        assert!(STATUS_SPAN.is_power_of_two() && STATUS.is_multiple_of(STATUS_SPAN));
        assert_eq!(ERR_ALL, 0b1_1111, "the RTL's 5 error bits, one per map field");
    }
}
