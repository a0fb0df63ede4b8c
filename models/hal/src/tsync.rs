//! Time sync from the host (DIGEST §2.7; seed 001 §8): the TPB timestamp
//! (`timestamp_*` of the TPB-level block), the TOP_SP's one-time init
//! handshake (`encd_ncfw_configure_device_init`: set_init_signal +
//! `read_config_addr` + `get_ack_evt_addr_for_topsp_engine`) and the
//! tsync start (`set_tsync_signal`, in [`crate::top_sp`]).
//!
//! The seeds name these functions, not what they return: the addresses
//! below are `[D]`.
//! - The NCFW configuration block is read from the TOP_SP's CTRL SPAD at
//!   [`CONFIG_OFFSET`] (above the cc_op entries, [`CONFIG_BYTES`] long).
//! - The TOP_SP acknowledges the init signal by incrementing semaphore
//!   [`INIT_ACK_SEM`] of its EVT_SEM (the one after init_signal's 80).

use super::arch::ArchCtx;
use super::error::{HalError, Result};
use super::mmio::Mmio;

/// `[D]` Where the NCFW configuration block starts in the CTRL SPAD.
pub const CONFIG_OFFSET: u64 = 0xc00;
/// `[D]` Its length: the rest of CAYMAN's 4 KiB CTRL SPAD.
pub const CONFIG_BYTES: u64 = 0x400;
/// `[D]` The TOP_SP semaphore the init acknowledgement increments.
pub const INIT_ACK_SEM: u32 = 81;

/// Only TOP_SP 0 of a TPB has a CTRL SPAD in the model's BAR0 map.
fn only_sp0(sp_id: u32) -> Result<()> {
    if sp_id != 0 {
        return Err(HalError::OutOfRange { what: "TOP_SP id with a CTRL SPAD in this TPB's BAR0 map", value: sp_id.into(), limit: 1 });
    }
    Ok(())
}

/// `read_config_addr`: the BAR0 address of TOP_SP `sp_id`'s NCFW
/// configuration block (CTRL SPAD + [`CONFIG_OFFSET`]).
pub fn read_config_addr(ctx: &ArchCtx, sp_id: u32) -> Result<u64> {
    only_sp0(sp_id)?;
    let p = ctx.params();
    let spad = p.bar0_regions().into_iter().find(|r| r.name == "top_sp.ctrl_spad").ok_or_else(|| HalError::Invalid(format!("{}: no top_sp.ctrl_spad region", ctx.arch)))?;
    if spad.region.size < CONFIG_OFFSET + CONFIG_BYTES {
        return Err(HalError::TooBig { what: "NCFW config block (CTRL SPAD + 0xc00)".into(), size: CONFIG_OFFSET + CONFIG_BYTES, max: spad.region.size });
    }
    Ok(spad.region.base + CONFIG_OFFSET)
}

/// `get_ack_evt_addr_for_topsp_engine`: the SoC address TOP_SP `sp_id`
/// writes (an EVT_SEM INC of [`INIT_ACK_SEM`]) to acknowledge the init
/// signal; the host reads the same semaphore's READ slot.
pub fn get_ack_evt_addr_for_topsp_engine(ctx: &ArchCtx, sp_id: u32) -> Result<u64> {
    crate::top_sp::get_trigger_addr(ctx, sp_id, INIT_ACK_SEM)
}

/// The timestamp as the firmware snapshots it: `timestamp_lo`, then the
/// high word that read latched.
pub fn timestamp(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<u64> {
    let (t, r) = (ctx.tpb_regs_base(), &ctx.regs.tpb);
    let lo = mmio.read32(t + r.timestamp_lo.offset as u64)?;
    let hi = mmio.read32(t + r.timestamp_hi.offset as u64)?;
    Ok(u64::from(hi) << 32 | u64::from(lo))
}

/// Start (or stop, `inc` = None) the counter: `timestamp_inc`, then `timestamp_ctrl.run`.
pub fn timestamp_run(ctx: &ArchCtx, mmio: &mut dyn Mmio, inc: Option<u32>) -> Result<()> {
    let (t, r) = (ctx.tpb_regs_base(), &ctx.regs.tpb);
    if let Some(i) = inc {
        mmio.write32(t + r.timestamp_inc.offset as u64, i)?;
    }
    Ok(mmio.write32(t + r.timestamp_ctrl.offset as u64, u32::from(inc.is_some()))?)
}

/// Add `delta` (signed) to the counter: `timestamp_adjust_lo`, then the
/// `timestamp_adjust_hi` write that applies both.
pub fn timestamp_adjust(ctx: &ArchCtx, mmio: &mut dyn Mmio, delta: i64) -> Result<()> {
    let (t, r) = (ctx.tpb_regs_base(), &ctx.regs.tpb);
    mmio.write32(t + r.timestamp_adjust_lo.offset as u64, delta as u32)?;
    Ok(mmio.write32(t + r.timestamp_adjust_hi.offset as u64, (delta >> 32) as u32)?)
}
