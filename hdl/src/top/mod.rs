//! # TPB top per generation: one BAR0 slave port over every block of one TPB
//!
//! DIGEST §2.6–§2.9, §3–§5. One top per generation ([`SundaTop`],
//! [`CaymanTop`], [`MarianaTop`]; `*TopFpga` are the same tops with
//! FPGA-sized memories). Contents:
//! - six engines (PE, ACT, POOL, DVE, TPB_SP, TOP_SP), each with its
//!   local-register aperture: the generated NX bundle (+0x0000), an
//!   [`EvtSem`](crate::evt_sem::EvtSem) unit (+0x1000), the generated window bundle (+0x2000);
//! - the POOL's generated Q7 bundle (+0x3000) and its [`Q7Cluster`](crate::q7_cluster::Q7Cluster) (8 cores'
//!   IRAM/DRAM at the generation's Q7 `base_offset`);
//! - the TPB-level registers, the SEQ IRAM/DRAM, the TOP_SP CTRL/SLOT SPADs;
//! - the [`SeqDma`](crate::seq_dma::SeqDma) engine on the POOL NX (SEQ) rings, its completion doorbell
//!   wired to the TOP_SP's EVT_SEM doorbell port (DIGEST §5);
//! - SUNDA: the TOP_SP host_trigger/stop registers (TOP_SP +0x848);
//!   CAYMAN/MARIANA: the [`HwDecode`](crate::hw_decode::HwDecode) at `hw_decode_table_params`.
//!
//! ## BAR0 address map
//! Every base and size comes from the generation's `arch.toml`
//! (`[local_reg]`, `[bar0]`, `[q7.pooling]`, `[hw_decode]`) through
//! [`TopLayout::of`]; the per-engine local-register bases the seeds lost are
//! `[D]` values in that data, never in this file. `tpb regmap --arch A`
//! prints the map. An address no block decodes, or a misaligned one, answers
//! `rsp_err` one cycle later and changes nothing. A memory built smaller than
//! its BAR0 region (FPGA builds, `[D]`) reads as zero past the built size and
//! takes writes of zero there (a ucode image's zero pad); a non-zero write
//! there answers `rsp_err`.
//!
//! ## Ports
//! - `clock`, `reset` (synchronous, active high); the BAR0 port `req_*` /
//!   `rsp_*` (protocol of `bar0_port.rs`: one request per cycle, the response
//!   registered in the next cycle, never back-pressured; a request in a
//!   cycle where `reset` is high is ignored and gets no response);
//! - Q7 core memory ports `q7_if_*`, `q7_ls_*` (arrays of 8, see
//!   [`Q7Cluster`](crate::q7_cluster::Q7Cluster)) and `q7_halted[7:0]` (the behavioural cores' HALT/WAITI);
//! - `nx_halted[5:0]` (engine order PE, ACT, POOL, DVE, TPB_SP, TOP_SP);
//! - observation outputs for waves and the co-simulation: `nx_run_stall[5:0]`,
//!   `q7_run_stall[7:0]`, `sem_notif_valid[5:0]` + `sem_notif_index` (the
//!   lowest engine whose semaphore changed), `dma_db_valid`, `dma_busy`;
//! - the SEQ DMA's system master port `dma_m_*` (`[D]`, see
//!   [`seq_dma`](crate::seq_dma)): a SoC write (`dma_m_valid`,
//!   `dma_m_addr_hi:lo`, `dma_m_wdata`) held until the cycle whose edge sees
//!   `dma_m_ack` (with `dma_m_err` for an error answer);
//! - CAYMAN/MARIANA: the HW-decode lookup/FIFO port `hwd_*` for the NX core.
//! - the address-translation port `xlat_*` (every generation, `[D]`): a
//!   lookup (`xlat_valid`, requester `xlat_who`: 0 the SEQ, n + 1 Q7 core n,
//!   `xlat_addr`) is answered the next cycle (`xlat_rsp_valid`, `xlat_hit`,
//!   the SoC address `xlat_dst_hi:lo`) from POOL's window bundle and
//!   `mem_window2` by the rules of `tpb_golden::top::translate`.
//!
//! ## Behaviour across blocks
//! - An NX core's `run_state.running` = `!release_run_stall & !nx_halted[e]`;
//!   Q7 core n's `run_state_n.running` = `!release_run_stall[n] & !q7_halted[n]`.
//! - SUNDA: nothing in the RTL releases the Q7 cores on the host's behalf; the
//!   HAL's `release_eng_run_stall` is a no-op there (DIGEST §2.9 step 6) and
//!   the SEQ firmware writes the Q7 bundle's `release_run_stall`.
//!
//! ```
//! use tpb_hdl::top::{CaymanTopFpga, TopLayout};
//! let map = tpb_regmap::builtin(tpb_regmap::Arch::Cayman).unwrap();
//! let mut top = CaymanTopFpga::new(&TopLayout::of(&map).unwrap()).unwrap();
//! let v = tpb_hdl::verilog::of(&mut top, "cayman_tpb_top_fpga");
//! assert!(v.contains("module cayman_tpb_top_fpga"));
//! ```

// `update` is written in the subset rust-hdl's hdl_gen translates to Verilog.
#![allow(clippy::nonminimal_bool, clippy::collapsible_if, clippy::collapsible_else_if)]

#[macro_use]
mod pins;
#[macro_use]
mod shared_logic;
#[macro_use]
mod stamp;
mod generations;

pub use generations::{full_mem_bits, CaymanTop, CaymanTopFpga, CaymanTpbTop, MarianaTop, MarianaTopFpga, MarianaTpbTop, SundaTop, SundaTopFpga, SundaTpbTop};
use pins::driver;
pub(crate) use pins::on_big_stack;
pub use pins::{TopPins, TopSim};
use rust_hdl::prelude::*;
use tpb_regmap::{Arch, RegMap};

/// The top of `map`'s generation (full-size memories, or FPGA-sized with
/// `fpga`) under the rust-hdl simulator.
pub fn simulator(map: &RegMap, fpga: bool) -> Result<Box<dyn TopSim + Send>, LayoutError> {
    let lay = TopLayout::of(map)?;
    let arch = map.arch;
    on_big_stack(move || -> Result<Box<dyn TopSim + Send>, LayoutError> {
        Ok(match (arch, fpga) {
            (Arch::Sunda, false) => driver(SundaTop::new(&lay)?),
            (Arch::Sunda, true) => driver(SundaTopFpga::new(&lay)?),
            (Arch::Cayman, false) => driver(CaymanTop::new(&lay)?),
            (Arch::Cayman, true) => driver(CaymanTopFpga::new(&lay)?),
            (Arch::Mariana, false) => driver(MarianaTop::new(&lay)?),
            (Arch::Mariana, true) => driver(MarianaTopFpga::new(&lay)?),
        })
    })
}

/// Verilog of the top of `map`'s generation, with module name `module`.
pub fn verilog(map: &RegMap, fpga: bool, module: &str) -> Result<String, LayoutError> {
    verilog_by(map, fpga, module, false)
}

/// The full-size top as rust-hdl's own generator wrote it before the lean
/// backend (`crate::verilog::legacy`): for `tpb bench --before` only.
pub fn legacy_verilog(map: &RegMap, module: &str) -> Result<String, LayoutError> {
    verilog_by(map, false, module, true)
}

fn verilog_by(map: &RegMap, fpga: bool, module: &str, legacy: bool) -> Result<String, LayoutError> {
    fn emit<B: Block>(b: &mut B, module: &str, legacy: bool) -> String {
        if legacy {
            crate::verilog::legacy::of(b, module)
        } else {
            crate::verilog::of(b, module)
        }
    }
    let lay = TopLayout::of(map)?;
    let (arch, module) = (map.arch, module.to_string());
    on_big_stack(move || {
        Ok(match (arch, fpga) {
            (Arch::Sunda, false) => emit(&mut *Box::new(SundaTop::new(&lay)?), &module, legacy),
            (Arch::Sunda, true) => emit(&mut *Box::new(SundaTopFpga::new(&lay)?), &module, legacy),
            (Arch::Cayman, false) => emit(&mut *Box::new(CaymanTop::new(&lay)?), &module, legacy),
            (Arch::Cayman, true) => emit(&mut *Box::new(CaymanTopFpga::new(&lay)?), &module, legacy),
            (Arch::Mariana, false) => emit(&mut *Box::new(MarianaTop::new(&lay)?), &module, legacy),
            (Arch::Mariana, true) => emit(&mut *Box::new(MarianaTopFpga::new(&lay)?), &module, legacy),
        })
    })
}

pub use tpb_regmap::layout::{LayoutError, TopLayout, Window, ENGINES};
/// Word-address bits of the SEQ DMA SRAM in every top.
pub const DMA_AW: usize = crate::seq_dma::DEFAULT_AW;
/// Record-address bits of the notification ring SRAM in every top.
pub const NTF_RW: usize = crate::notific::DEFAULT_RW;

fn c32(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).into())
}

/// Check that a memory of `2^aw` words fits its region.
fn fits(what: &str, aw: usize, w: &Window) -> Result<(), LayoutError> {
    let built = 4u64 << aw;
    if built > u64::from(w.size) {
        return Err(LayoutError::TooBig { what: what.to_string(), built, region: u64::from(w.size) });
    }
    Ok(())
}

/// Whether `lay` fits a top whose memories have the address widths `widths`
/// (Q7 IRAM, Q7 DRAM, SEQ, CTRL SPAD, SLOT SPAD, in words), and its
/// regions the shapes the top decodes.
fn check_fits(lay: &TopLayout, widths: [usize; 5]) -> Result<(), LayoutError> {
    let [qiw, qdw, sw, cw, lw] = widths;
    fits("seq.iram", sw, &lay.seq_iram)?;
    fits("seq.dram", sw, &lay.seq_dram)?;
    fits("top_sp.ctrl_spad", cw, &lay.ctrl_spad)?;
    fits("top_sp.slot_spad", lw, &lay.slot_spad)?;
    fits("seq.dma", DMA_AW, &Window { base: 0, size: crate::seq_dma::STATUS })?;
    if u64::from(lay.notific.size) != (u64::from(tpb_golden::notific::RECORD_BYTES) << NTF_RW) {
        return Err(LayoutError::Bad {
            what: "notific.ring".into(),
            detail: format!("the ring SRAM holds {} records of 16 bytes: the region must be {:#x} bytes, not {:#x}", 1u32 << NTF_RW, 16u32 << NTF_RW, lay.notific.size),
        });
    }
    fits("q7 iram", qiw, &Window { base: 0, size: lay.q7_dram_offset })?;
    fits("q7 dram", qdw, &Window { base: 0, size: lay.q7_stride - lay.q7_dram_offset })?;
    if lay.seq_iram.size != lay.seq_dram.size {
        return Err(LayoutError::Bad { what: "seq.iram/seq.dram".into(), detail: "the SEQ memories must be the same size".into() });
    }
    if !lay.q7_dram_offset.is_multiple_of(4u32 << qdw) {
        return Err(LayoutError::Bad { what: "q7 dram".into(), detail: format!("DRAM offset {:#x} not aligned to the DRAM", lay.q7_dram_offset) });
    }
    Ok(())
}
