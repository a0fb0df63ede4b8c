//! The sim-only wrapper's probes (`vlgen::sim_top`): what each probed core
//! and the system side of BAR0 are doing, driven into the model so that the
//! traces show them.

use super::Dut;
use crate::verilator::Port;

/// The sim-only wrapper's probe inputs (see `vlgen::sim_top`).
pub(super) struct Probes {
    pub(super) hal_txn: Port<u32>,
    pub(super) hal_kind: Port<u8>,
    /// Per probed core: pc, insn, state.
    pub(super) cores: Vec<(Port<u32>, Port<u32>, Port<u8>)>,
}

/// The cores the model has probes for, in `build.rs`'s order.
pub use crate::vlgen::PROBED_CORES;

tpb_spec::byte_code! {
    /// What a probed core is doing (`probe_<core>_state`), and the word a
    /// waveform viewer shows for it.
    pub enum CoreState {
        /// Not stepped (no firmware) or in reset.
        Off = 0 => "off",
        Running = 1 => "running",
        Stalled = 2 => "stalled",
        /// Waiting for memory (an RTL port or BAR0).
        BusWait = 3 => "bus wait",
        /// WAITI.
        Waiting = 4 => "waiti",
        Halted = 5 => "halted",
        /// Took an exception this cycle.
        Exception = 6 => "exception",
    }
}

tpb_spec::byte_code! {
    /// What the system side of BAR0 is doing (`probe_hal_kind`): the host's
    /// reads and writes, or the init DMA's copy.
    pub enum HalKind {
        Idle = 0 => "idle",
        Read = 1 => "read",
        Write = 2 => "write",
        /// The TOP_SP-init DMA queue is copying over BAR0 (`sched::InitDma`).
        InitDma = 3 => "init_dma",
        /// The SEQ's I-fetch DMA is filling a line (`sched::IFetch`).
        IFetch = 4 => "ifetch",
    }
}

impl Dut {
    /// Has this model the probe wrapper?
    pub fn has_probes(&self) -> bool {
        self.ix.probes.is_some()
    }

    /// Drive core `k`'s probes ([`PROBED_CORES`] order): its PC, the
    /// instruction word there (up to 3 bytes, little-endian) and its state.
    /// A no-op on a build without probes.
    pub fn probe_core(&mut self, k: usize, pc: u32, insn: u32, state: CoreState) {
        if let Some((a, b, c)) = self.ix.probes.as_ref().and_then(|p| p.cores.get(k)).copied() {
            a.set(pc);
            b.set(insn & 0xff_ffff);
            c.set(state as u8);
        }
    }

    /// Drive the host's probes: its BAR0 transaction number and what it does.
    pub fn probe_hal(&mut self, txn: u32, kind: HalKind) {
        if let Some(p) = &self.ix.probes {
            let (a, b) = (p.hal_txn, p.hal_kind);
            a.set(txn);
            b.set(kind as u8);
        }
    }
}
