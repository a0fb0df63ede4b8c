//! The cores of the co-simulation ([`CoreId`]) and each one's slot: the
//! behavioural core, its bus and what the scheduler keeps of it ([`Slot`]).

use super::*;

/// A behavioural core of the co-simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CoreId {
    /// Q7 core `n` of the POOL cluster.
    Q7(u8),
    /// The POOL engine's NX sequencer.
    Seq,
    /// The TOP_SP collective sequencer.
    TopSp,
    /// The NCFW management core (an Xtensa LX core of the SoC that runs the
    /// collective firmware, DIGEST §7; `[D]`: one beside each top, with
    /// core-local memories, reaching the top through BAR0 and the SoC port;
    /// no run-stall or halted pin: the top does not control it).
    Ncfw,
}

/// Who sends a request over the SoC port: a core, or the SEQ DMA's system
/// master port (its SoC writes, `tpb_hdl::seq_dma`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Requester {
    Core(CoreId),
    SeqDma,
}

impl Requester {
    pub fn name(self) -> String {
        match self {
            Requester::Core(c) => c.name(),
            Requester::SeqDma => "seq_dma".into(),
        }
    }
}

impl CoreId {
    pub fn name(self) -> String {
        match self {
            CoreId::Q7(n) => format!("q7[{n}]"),
            CoreId::Seq => "seq".into(),
            CoreId::TopSp => "top_sp".into(),
            CoreId::Ncfw => "ncfw".into(),
        }
    }
    /// Bit of the top's `nx_run_stall`/`nx_halted` (engine ISA order) or
    /// `q7_*`; none for the NCFW core.
    pub(super) fn pin(self) -> Option<(bool, u32)> {
        match self {
            CoreId::Q7(n) => Some((false, u32::from(n))),
            CoreId::Seq => Some((true, Engine::Pool.isa_id().unwrap_or(2))),
            CoreId::TopSp => Some((true, Engine::TopSp.isa_id().unwrap_or(5))),
            CoreId::Ncfw => None,
        }
    }
}

/// A behavioural core and its bus.
pub struct Slot {
    pub id: CoreId,
    /// `id`'s run-stall/halted bit ([`CoreId::pin`]), kept for the cycle loop.
    pub(super) pin: Option<(bool, u32)>,
    pub core: Core,
    pub bus: CoreBus,
    /// Stepped at all (the TOP_SP only once it has firmware).
    pub attached: bool,
    /// The last step's result (for probes and summaries).
    pub last: Option<Step>,
    /// The last instructions retired (the probes show the last one).
    pub recent: history::Recent,
    /// A start the top signalled (`nx_start` / `q7_start`): the address the
    /// core restarts at once it has nothing in flight.
    pub restart: Option<u32>,
    /// The first exception (not an interrupt) the core took, with the
    /// registers it left. Kept until the next reset.
    pub first_exception: Option<Box<history::Caught>>,
    /// When it was last started and last halted (`sched/runs.rs`).
    pub runs: super::runs::RunMarks,
}

impl Slot {
    pub(super) fn new(id: CoreId, core: Core, bus: CoreBus, attached: bool) -> Slot {
        Slot { id, pin: id.pin(), core, bus, attached, last: None, recent: history::Recent::default(), restart: None, first_exception: None, runs: Default::default() }
    }

    /// What the probes show for this core this cycle.
    pub(super) fn probe(&self, reset: bool) -> (u32, u32, CoreState) {
        let state = match self.last {
            _ if !self.attached || reset => CoreState::Off,
            _ if self.core.halted() => CoreState::Halted,
            _ if self.bus.pending.is_some() => CoreState::BusWait,
            Some(Step::Retired { .. }) => CoreState::Running,
            Some(Step::Stalled) | None => CoreState::Stalled,
            Some(Step::BusWait) => CoreState::BusWait,
            Some(Step::Waiting) => CoreState::Waiting,
            Some(Step::Exception { .. }) => CoreState::Exception,
            Some(_) => CoreState::Halted,
        };
        let (pc, word) = self.recent.last();
        (pc, word, state)
    }

    /// HALT, or WAITI.
    pub fn idle(&self) -> bool {
        self.core.halted() || matches!(self.last, Some(Step::Waiting))
    }
}

/// The index of core `id` in [`Cosim::cores`].
pub fn slot_index(id: CoreId) -> usize {
    match id {
        CoreId::Q7(n) => usize::from(n),
        CoreId::Seq => CORES,
        CoreId::TopSp => CORES + 1,
        CoreId::Ncfw => CORES + 2,
    }
}
