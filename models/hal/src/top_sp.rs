//! TOP_SP control from the host: the doorbells per generation (DIGEST §2.7),
//! the per-step trigger address of a TOP_SP semaphore (`get_trigger_addr`,
//! DIGEST §3) and semaphore allocation.

use super::arch::ArchCtx;
use super::error::{HalError, Result};
use super::mmio::Mmio;
use crate::regs::{self, Reg};

fn ring(ctx: &ArchCtx, mmio: &mut dyn Mmio, reg: Reg) -> Result<()> {
    Ok(mmio.write32(ctx.top_sp_base() + reg.offset as u64, 1)?)
}

fn offset(ctx: &ArchCtx, reg: Reg) -> u64 {
    ctx.params().local_reg.top_sp + reg.offset as u64
}

/// SUNDA `set_host_trigger`: write 1 to TOP_SP LOCAL_REG + 0x848.
pub fn set_host_trigger_sunda(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
    ring(ctx, mmio, regs::sunda::top_sp::HOST_TRIGGER)
}
/// SUNDA `get_host_trigger_reg_offset`: 0x60848.
pub fn host_trigger_offset_sunda(ctx: &ArchCtx) -> u64 {
    offset(ctx, regs::sunda::top_sp::HOST_TRIGGER)
}
/// SUNDA stop: write 1 to TOP_SP LOCAL_REG + 0x84c.
pub fn stop_sunda(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
    ring(ctx, mmio, regs::sunda::top_sp::STOP)
}

macro_rules! v3_doorbells {
    ($a:ident, $trigger:ident, $offset:ident, $init:ident, $tsync:ident) => {
        #[doc = concat!("`set_host_trigger` (", stringify!($a), "): write 1 to TOP_SP LOCAL_REG + 0x15a0 (EVT_SEM `set[104]`).")]
        pub fn $trigger(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
            ring(ctx, mmio, regs::$a::top_sp::HOST_TRIGGER)
        }
        #[doc = concat!("`get_host_trigger_reg_offset` (", stringify!($a), "): 0x615a0.")]
        pub fn $offset(ctx: &ArchCtx) -> u64 {
            offset(ctx, regs::$a::top_sp::HOST_TRIGGER)
        }
        #[doc = concat!("`set_init_signal` (", stringify!($a), "): write 1 to + 0x1540.")]
        pub fn $init(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
            ring(ctx, mmio, regs::$a::top_sp::INIT_SIGNAL)
        }
        #[doc = concat!("`set_tsync_signal` (", stringify!($a), "): write 1 to + 0x1560.")]
        pub fn $tsync(ctx: &ArchCtx, mmio: &mut dyn Mmio) -> Result<()> {
            ring(ctx, mmio, regs::$a::top_sp::TSYNC_SIGNAL)
        }
    };
}
v3_doorbells!(cayman, set_host_trigger_cayman, host_trigger_offset_cayman, set_init_signal_cayman, set_tsync_signal_cayman);
v3_doorbells!(mariana, set_host_trigger_mariana, host_trigger_offset_mariana, set_init_signal_mariana, set_tsync_signal_mariana);

/// Byte offset of the EVT_SEM INC window within the TOP_SP aperture (0x1800), from the map.
pub fn inc_window(ctx: &ArchCtx) -> Result<(u32, u32, u32)> {
    let a = ctx.map.block("evt_sem").and_then(|b| b.array("evt_sem")).ok_or_else(|| HalError::Invalid(format!("{}: the map has no evt_sem array", ctx.arch)))?;
    let w = a.window("inc").ok_or_else(|| HalError::Invalid(format!("{}: evt_sem has no inc window", ctx.arch)))?;
    Ok((w.offset, a.stride, a.count))
}

/// The INC window offset and stride, after checking `sp_id` against the
/// TOP_SP count and `idx` against the semaphore count.
fn checked_slot(ctx: &ArchCtx, sp_id: u32, idx: u32) -> Result<(u32, u32)> {
    let n_sp = ctx.params().top_sp.count;
    let (inc, stride, count) = inc_window(ctx)?;
    if sp_id >= n_sp {
        return Err(HalError::OutOfRange { what: "TOP_SP id", value: sp_id as u64, limit: n_sp as u64 });
    }
    if idx >= count {
        return Err(HalError::OutOfRange { what: "semaphore index", value: idx as u64, limit: count as u64 });
    }
    Ok((inc, stride))
}

/// `sp_sema_i_ofst(sp_id, idx)`: the routing offset of a TOP_SP's INC slot
/// relative to TOP_SP 0 — `instance << 30`, the die bit (47) for
/// sp_id ≥ 8, `+ 0x1800 + idx * 4` (DIGEST §3).
pub fn sp_sema_i_ofst(ctx: &ArchCtx, sp_id: u32, idx: u32) -> Result<u64> {
    let t = &ctx.params().top_sp;
    let (inc, stride) = checked_slot(ctx, sp_id, idx)?;
    let (instance, die) = if sp_id >= t.die_from_sp_id { (sp_id - t.die_from_sp_id, 1u64 << t.die_bit) } else { (sp_id, 0) };
    Ok(((instance as u64) << t.instance_shift) + die + inc as u64 + (idx * stride) as u64)
}

/// `encd_get_trigger_addr`: the SoC address a DMA descriptor's tail-pointer
/// write targets to increment semaphore `idx` of TOP_SP `sp_id`:
/// `sp_base[sp_id] + 0x1800 + idx * 4` (DIGEST §3, §5).
pub fn get_trigger_addr(ctx: &ArchCtx, sp_id: u32, idx: u32) -> Result<u64> {
    let t = &ctx.params().top_sp;
    let (inc, stride) = checked_slot(ctx, sp_id, idx)?;
    let base = *t.sp_base.get(sp_id as usize).ok_or(HalError::OutOfRange { what: "TOP_SP id (sp_base table)", value: sp_id as u64, limit: t.sp_base.len() as u64 })?;
    Ok(base + inc as u64 + (idx * stride) as u64)
}

/// `encd_get_trigger_host_addr`: the host-visible (BAR-mapped) alias of the
/// same INC slot. The seeds give the name and that it adds the stream's
/// mapped BAR address to a BAR-mapped semaphore offset; `[D]` here: the
/// stream's TPB BAR is mapped at `bar_vaddr` (the host's mapping of that
/// TOP_SP's TPB), and the offset is the TOP_SP local-register aperture's
/// BAR0 address plus the INC window: `bar_vaddr + top_sp + 0x1800 + idx * 4`. A host write there increments the semaphore as the
/// DMA's tail-pointer write does. `sp_id` and `idx` are checked as for
/// [`get_trigger_addr`].
pub fn get_trigger_host_addr(ctx: &ArchCtx, sp_id: u32, idx: u32, bar_vaddr: u64) -> Result<u64> {
    let (inc, stride) = checked_slot(ctx, sp_id, idx)?;
    let off = ctx.top_sp_base() + inc as u64 + (idx * stride) as u64;
    bar_vaddr.checked_add(off).ok_or(HalError::OutOfRange { what: "mapped BAR address", value: bar_vaddr, limit: u64::MAX - off })
}

/// `[D]` MAX_TOP_SP_SEMAPHORES: the seeds name the bound, not its value; we
/// take the EVT_SEM size (256). The allocator also never hands out a
/// semaphore that the map names as a doorbell (CAYMAN's 80, 88, 104).
pub const DEFAULT_MAX_TOP_SP_SEMAPHORES: u32 = 256;

/// Per-TOP_SP semaphore allocation (`alloc_sp_semaphores`), all-or-nothing.
#[derive(Debug, Clone)]
pub struct SemaphoreAllocator {
    used: Vec<Vec<bool>>,
    reserved: Vec<u32>,
    max: u32,
}

impl SemaphoreAllocator {
    /// An allocator for every TOP_SP of the generation with `max` usable semaphores each.
    pub fn new(ctx: &ArchCtx, max: u32) -> Result<Self> {
        let (_, _, count) = inc_window(ctx)?;
        if max > count {
            return Err(HalError::OutOfRange { what: "MAX_TOP_SP_SEMAPHORES", value: max as u64, limit: count as u64 + 1 });
        }
        let reserved: Vec<u32> = ctx
            .map
            .blocks
            .iter()
            .filter(|b| b.engines.contains(&tpb_regmap::Engine::TopSp))
            .flat_map(|b| b.aliases.iter())
            .filter(|a| a.array == "evt_sem")
            .map(|a| a.index)
            .collect();
        Ok(SemaphoreAllocator { used: vec![vec![false; max as usize]; ctx.params().top_sp.count as usize], reserved, max })
    }

    /// Semaphores the map reserves as doorbells.
    pub fn reserved(&self) -> &[u32] {
        &self.reserved
    }

    /// Allocate `count` semaphores on TOP_SP `sp`, lowest free first; on
    /// failure nothing is allocated and the error is the seeds' message.
    pub fn alloc(&mut self, sp: u32, count: u32) -> Result<Vec<u32>> {
        let n_sp = self.used.len() as u64;
        let used = self.used.get_mut(sp as usize).ok_or(HalError::OutOfRange { what: "TOP_SP id", value: sp as u64, limit: n_sp })?;
        let free: Vec<u32> = (0..self.max).filter(|i| !used[*i as usize] && !self.reserved.contains(i)).take(count as usize).collect();
        if (free.len() as u32) < count {
            return Err(HalError::SemaphoreAlloc { count, sp });
        }
        for &i in &free {
            used[i as usize] = true;
        }
        Ok(free)
    }

    /// Return semaphores to TOP_SP `sp`'s pool.
    pub fn free(&mut self, sp: u32, idx: &[u32]) {
        if let Some(used) = self.used.get_mut(sp as usize) {
            for &i in idx {
                if let Some(u) = used.get_mut(i as usize) {
                    *u = false;
                }
            }
        }
    }
}
