//! Halt and start of a core (DIGEST §2.8): the host's side.
//!
//! - **Start**: `start_addr` then `start_ctrl` = 1 (NX), or the Q7 bundle's
//!   `start_addr` then `start_ctrl` = the cores' bit mask. The core restarts
//!   at the address (a reset to that vector: registers reset, memories kept)
//!   and leaves Halt: the NX core's `instr_halt_ctrl.halt` is cleared, a
//!   core that executed HALT or WAITI runs again.
//! - **Halt** is device-driven: the firmware writes `instr_halt_ctrl.halt` = 1
//!   and spins; [`halt_nx`] is the same write from the host, for debug.
//! - **Run state**: [`nx_run_state`] / [`q7_run_state`] read `run_state`
//!   (bit 0 running, bit 1 halted).
//!
//! The start address is checked against the core's instruction memory
//! before anything is written, so a bad start changes nothing.

use crate::arch::ArchCtx;
use crate::error::{HalError, Result};
use crate::mmio::Mmio;
use tpb_regmap::Engine;

/// What `run_state` says of a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunState {
    pub running: bool,
    pub halted: bool,
}

/// `running`, `halted`, `running and halted` or `stopped` (neither bit).
impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (self.running, self.halted) {
            (true, false) => "running",
            (false, true) => "halted",
            (true, true) => "running and halted",
            (false, false) => "stopped",
        })
    }
}

impl RunState {
    fn of(v: u32) -> RunState {
        RunState { running: v & 1 != 0, halted: v & 2 != 0 }
    }
}

/// An engine's local-register base (the POOL's as the pool bring-up resolves it).
fn nx_base(ctx: &ArchCtx, e: Engine) -> Result<u64> {
    if e == Engine::Pool {
        return Ok(ctx.pool_base());
    }
    ctx.params().local_reg_base(e).ok_or(HalError::Invalid(format!("{} has no local-register base in {}", e.name(), ctx.arch.name())))
}

fn check_start(what: &'static str, addr: u32, iram: u64) -> Result<()> {
    if u64::from(addr) >= iram {
        return Err(HalError::OutOfRange { what, value: addr.into(), limit: iram });
    }
    Ok(())
}

/// Restart NX core `e` at `addr` (an address in its IRAM, the size of the SEQ's).
pub fn start_nx(ctx: &ArchCtx, mmio: &mut dyn Mmio, e: Engine, addr: u32) -> Result<()> {
    check_start("NX start address", addr, ctx.params().bar0.seq_iram.size)?;
    let base = nx_base(ctx, e)?;
    let r = &ctx.regs.nx;
    mmio.note(&format!("start {} at {addr:#x} (start_addr, start_ctrl.ctrl = 1)", e.name()));
    mmio.write32(base + r.start_addr.offset as u64, addr)?;
    mmio.write32(base + r.start_ctrl.offset as u64, 1)?;
    Ok(())
}

/// Hold NX core `e` as its firmware does when it halts (debug).
pub fn halt_nx(ctx: &ArchCtx, mmio: &mut dyn Mmio, e: Engine) -> Result<()> {
    let base = nx_base(ctx, e)?;
    mmio.note(&format!("halt {} (instr_halt_ctrl.halt = 1)", e.name()));
    mmio.write32(base + ctx.regs.nx.instr_halt_ctrl.offset as u64, 1)?;
    Ok(())
}

/// NX core `e`'s run state.
pub fn nx_run_state(ctx: &ArchCtx, mmio: &mut dyn Mmio, e: Engine) -> Result<RunState> {
    let base = nx_base(ctx, e)?;
    Ok(RunState::of(mmio.read32(base + ctx.regs.nx.run_state.offset as u64)?))
}

/// Restart the Q7 cores of `cores` (bit n = core n, not empty) at `addr`
/// (an address in a Q7 core's IRAM).
pub fn start_q7(ctx: &ArchCtx, mmio: &mut dyn Mmio, cores: u8, addr: u32) -> Result<()> {
    if cores == 0 {
        return Err(HalError::Invalid("start_q7: no core selected (cores = 0)".into()));
    }
    check_start("Q7 start address", addr, ctx.params().q7.pooling.iram_size)?;
    let base = ctx.pool_base();
    mmio.note(&format!("start Q7 cores {cores:#04x} at {addr:#x} (start_addr, start_ctrl)"));
    mmio.write32(base + ctx.regs.q7_start_addr.offset as u64, addr)?;
    mmio.write32(base + ctx.regs.q7_start_ctrl.offset as u64, cores.into())?;
    Ok(())
}

/// Release NX core `e` from run-stall (`release_run_stall` <- 0): the
/// step `pooling_init` ends with for the SEQ, for a host that held it
/// ([`crate::PoolingConfig::hold_run_stall`]).
pub fn release_nx(ctx: &ArchCtx, mmio: &mut dyn Mmio, e: Engine) -> Result<()> {
    let base = nx_base(ctx, e)?;
    mmio.note(&format!("release {} (release_run_stall <- 0)", e.name()));
    mmio.write32(base + ctx.regs.nx.release_run_stall.offset as u64, 0)?;
    Ok(())
}

/// Release the Q7 cores of `cores` (bit n = core n, not empty) from
/// run-stall: `release_run_stall` is read and their bits cleared, the
/// others' kept.
pub fn release_q7(ctx: &ArchCtx, mmio: &mut dyn Mmio, cores: u8) -> Result<()> {
    if cores == 0 {
        return Err(HalError::Invalid("release_q7: no core selected (cores = 0)".into()));
    }
    let at = ctx.pool_base() + ctx.regs.q7_release_run_stall.offset as u64;
    let stalled = mmio.read32(at)?;
    mmio.note(&format!("release Q7 cores {cores:#04x} (release_run_stall {stalled:#04x} -> {:#04x})", stalled & !u32::from(cores)));
    mmio.write32(at, stalled & !u32::from(cores))?;
    Ok(())
}

/// Q7 core `core`'s run state.
pub fn q7_run_state(ctx: &ArchCtx, mmio: &mut dyn Mmio, core: u32) -> Result<RunState> {
    let r = ctx.regs.q7_run_state.get(core as usize).ok_or(HalError::OutOfRange { what: "Q7 core", value: core.into(), limit: 8 })?;
    Ok(RunState::of(mmio.read32(ctx.pool_base() + r.offset as u64)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Recorder, RegFileModel};
    use tpb_regmap::{builtin, Arch};

    fn bar0(arch: Arch) -> (ArchCtx, Recorder<RegFileModel>) {
        let map = builtin(arch).unwrap();
        (ArchCtx::new(arch, map.clone()), Recorder::new(RegFileModel::new(map.clone()), map))
    }

    #[test]
    fn start_writes_the_address_then_the_control_and_clears_a_halt() {
        for arch in Arch::ALL {
            let (ctx, mut m) = bar0(arch);
            ctx_release(&ctx, &mut m);
            assert_eq!(nx_run_state(&ctx, &mut m, Engine::Pool).unwrap(), RunState { running: true, halted: false });
            halt_nx(&ctx, &mut m, Engine::Pool).unwrap();
            assert_eq!(nx_run_state(&ctx, &mut m, Engine::Pool).unwrap(), RunState { running: false, halted: true }, "{arch:?}");
            start_nx(&ctx, &mut m, Engine::Pool, 0x40).unwrap();
            assert_eq!(nx_run_state(&ctx, &mut m, Engine::Pool).unwrap(), RunState { running: true, halted: false }, "{arch:?}");
            let log = m.render();
            let a = log.find("nx.start_addr").unwrap_or_else(|| panic!("{log}"));
            let c = log.find("nx.start_ctrl").unwrap_or_else(|| panic!("{log}"));
            assert!(a < c, "the address is written before the start: {log}");
        }
    }

    fn ctx_release(ctx: &ArchCtx, m: &mut dyn Mmio) {
        m.write32(ctx.pool_base() + ctx.regs.nx.release_run_stall.offset as u64, 0).unwrap();
    }

    #[test]
    fn a_bad_start_is_refused_before_any_write() {
        let (ctx, mut m) = bar0(Arch::Cayman);
        let iram = ctx.params().bar0.seq_iram.size as u32;
        let e = start_nx(&ctx, &mut m, Engine::Pool, iram).unwrap_err();
        assert!(e.to_string().contains("NX start address"), "{e}");
        let e = start_q7(&ctx, &mut m, 0, 0).unwrap_err();
        assert!(e.to_string().contains("no core selected"), "{e}");
        let e = start_q7(&ctx, &mut m, 1, ctx.params().q7.pooling.iram_size as u32).unwrap_err();
        assert!(e.to_string().contains("Q7 start address"), "{e}");
        assert!(q7_run_state(&ctx, &mut m, 8).is_err());
        assert!(m.writes().is_empty(), "nothing was written: {}", m.render());
    }
}

#[cfg(test)]
mod display_tests {
    use super::RunState;

    #[test]
    fn run_state_reads_as_words() {
        let s = |running, halted| RunState { running, halted }.to_string();
        assert_eq!([s(true, false), s(false, true), s(true, true), s(false, false)], ["running", "halted", "running and halted", "stopped"]);
    }
}
