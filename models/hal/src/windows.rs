//! Address translation (DIGEST §2.7 `mem_window2`, §2.8 the window bundle
//! at 0x2000): the host's side. The rules the top applies are the golden
//! model's (`tpb_golden::top::translate`): window n of POOL's bundle maps
//! requester addresses `src..src + size` of one requester (the SEQ, or one
//! Q7 core) to the SoC address `dst + (addr - src)`; the lowest enabled
//! window that matches wins; `mem_window2` maps the SEQ's fixed aperture
//! below every window.
//!
//! A window is checked whole before anything is written, then written
//! disabled first and enabled last, so a lookup never sees half of it.

use crate::arch::ArchCtx;
use crate::error::{HalError, Result};
use crate::mmio::Mmio;

/// Whose accesses a window translates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requester {
    /// The engine's NX core (POOL: the SEQ).
    Nx,
    /// Q7 core n (POOL only).
    Q7(u8),
}

impl Requester {
    /// The ctrl.requester value (`windows.toml`: 0 NX, n + 1 Q7 core n).
    pub fn code(self) -> u32 {
        match self {
            Requester::Nx => 0,
            Requester::Q7(n) => u32::from(n) + 1,
        }
    }
}

/// One window: requester addresses `src..src + size` go to `dst..`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub requester: Requester,
    pub src: u64,
    pub size: u64,
    pub dst: u64,
}

/// Program window `n` of POOL's bundle, or disable it (`None`).
pub fn set_window(ctx: &ArchCtx, mmio: &mut dyn Mmio, n: usize, w: Option<Window>) -> Result<()> {
    let regs = ctx.regs.windows.get(n).ok_or(HalError::OutOfRange { what: "window number", value: n as u64, limit: ctx.regs.windows.len() as u64 })?;
    if let Some(w) = w {
        if let Requester::Q7(k) = w.requester {
            if k >= 8 {
                return Err(HalError::OutOfRange { what: "window requester Q7 core", value: k.into(), limit: 8 });
            }
        }
        if w.size == 0 {
            return Err(HalError::Invalid(format!("window {n}: size 0 translates nothing")));
        }
        if w.src.checked_add(w.size).is_none() {
            return Err(HalError::Invalid(format!("window {n}: {:#x} + {:#x} runs past the 64-bit address space", w.src, w.size)));
        }
    }
    let base = ctx.pool_base();
    let wr = |mmio: &mut dyn Mmio, r: crate::regs::Reg, v: u32| -> Result<()> { Ok(mmio.write32(base + r.offset as u64, v)?) };
    mmio.note(&format!("window {n}: {}", w.map_or("disable".into(), |w| format!("{:?} {:#x}+{:#x} -> {:#x}", w.requester, w.src, w.size, w.dst))));
    wr(mmio, regs.ctrl, 0)?;
    let Some(w) = w else { return Ok(()) };
    for (r, v) in [(regs.src_lo, w.src), (regs.src_hi, w.src >> 32), (regs.size_lo, w.size), (regs.size_hi, w.size >> 32), (regs.dst_lo, w.dst), (regs.dst_hi, w.dst >> 32)] {
        wr(mmio, r, v as u32)?;
    }
    wr(mmio, regs.ctrl, ctx.regs.window_enable.set(0, 1) | ctx.regs.window_requester.set(0, w.requester.code()))
}

/// Point the SEQ's `mem_window2` at SoC address `dst` (0 turns it off),
/// low word then high word as `dma_init` writes it: the SEQ should not use
/// the aperture between the two writes.
pub fn set_mem_window2(ctx: &ArchCtx, mmio: &mut dyn Mmio, dst: u64) -> Result<()> {
    let base = ctx.pool_base();
    let r = &ctx.regs.nx;
    mmio.note(&format!("mem_window2 -> {dst:#x}"));
    mmio.write32(base + r.mem_window2_lo.offset as u64, dst as u32)?;
    mmio.write32(base + r.mem_window2_hi.offset as u64, (dst >> 32) as u32)?;
    Ok(())
}
