//! The collectives on N dies (`allreduce-ring`, `allreduce-mesh`,
//! `allreduce-kangaring`, `barrier-global`; see docs/scenarios.md):
//! each die's TOP_SP runs the NCFW mesh event-tape stepper (`mesh_tape.S`)
//! over a tape built here from the algorithm, the die's number and N; or,
//! for the ring and the kangaring with `channels`, the ring's channel
//! program (`ring_channels.S`, [`channel_programs`]).
//!
//! The tapes use only what the stepper does (DIGEST §7): WAIT until a
//! semaphore reaches a count, fire a DMA leg (a tail-pointer increment of
//! this die's SEQ TX ring, `[D]`: the RX ring is the I-cache fill ring), SIGNAL up to three semaphores, on this die or
//! another (the SoC address carries the die: [`crate::mesh::die_addr`]).
//! Semaphores only count up, so a WAIT for the n-th arrival waits for
//! `>= n`. The schedules are ours (`[D]`): the seeds name the algorithm
//! families and the event types, not the per-die event lists. The event
//! type of each event is a label; the stepper does not dispatch on it.
//!
//! Every all-reduce moves real data ([`Move`], `payload.rs`): each node's
//! vector starts as its input, the DMA legs add chunks and write them to
//! other nodes' DMA SRAM through the SEQ DMA's SoC writes, and every node
//! ends with the sum of its group's inputs (all nodes; a channel ring's:
//! the dies' TOP_SPs of its instance), which the checks compare with a sum
//! computed from the inputs alone, over the chunks and the group the
//! collective's definition owes the node ([`owed`]), never what
//! the plan declares.

use super::*;
use crate::mesh::{die_addr, Mesh};
use tpb_models::ncfw::mesh::soc;

/// The algorithms (`[collective] algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Ring all-reduce: N - 1 reduce-scatter steps, then N - 1 all-gather
    /// steps; at step t die d's DMA leg adds and sends chunk (d - t) mod N
    /// (then (d + 1 - t') mod N in the all-gather), then SIGNALs die d + 1.
    Ring,
    /// Full-mesh all-reduce in two phases: send chunk c to die c and SIGNAL
    /// every other die; when all N - 1 arrived, add them, write the sum and
    /// SIGNAL every other die again; wait for their N - 1.
    Mesh,
    /// Dissemination barrier: ceil(log2 N) rounds; in round r die d SIGNALs
    /// die (d + 2^r) mod N and waits for its own round-r semaphore.
    Barrier,
    /// The ring on `channels` channels, odd ones running the other way
    /// round (`[D]`: the seeds name kangaring beside the ring and say no more).
    Kangaring,
    /// Three chained ring legs: intra-die reduce-scatter, inter-die
    /// all-reduce, intra-die all-gather ([`hierarchical_programs`]).
    Hierarchical,
    /// An all-reduce whose schedule is the file's own `[collective.tapes]`:
    /// no planner; every node's vector must end as every node's input summed.
    AllReduce,
}

impl Algorithm {
    /// Every built-in planner.
    pub const ALL: [Algorithm; 5] = [Algorithm::Ring, Algorithm::Mesh, Algorithm::Barrier, Algorithm::Kangaring, Algorithm::Hierarchical];

    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ring => "ring",
            Algorithm::Mesh => "mesh",
            Algorithm::Barrier => "barrier",
            Algorithm::Kangaring => "kangaring",
            Algorithm::Hierarchical => "hierarchical",
            Algorithm::AllReduce => "all-reduce",
        }
    }
}

/// How a tape names another die (`[collective] addressing`): the SoC
/// port's two readings of bits 53:48 ([`crate::sched::SocDecoder`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Addressing {
    /// Chip id (bits 53:48, valid bit 54) and die bit 47: any die.
    #[default]
    ChipId,
    /// The neighbour route (NEIGHBOR_ROUTE, EXIT_DIE, EXIT_SENG): the next
    /// die only, so the ring alone, on an even number of dies.
    Neighbor,
}

/// Which core steps the tapes (`[collective] stepper`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stepper {
    /// The TOP_SP's NX core, `mesh_tape.S` (the flags alone drive each event).
    #[default]
    TopSp,
    /// The NCFW management core beside each top, `ncfw_tape.S`: the seeds'
    /// dispatch spine by event type, a wait variant per handler, a log
    /// record per event, the `waiti 15` idle.
    Ncfw,
}

impl Stepper {
    pub fn core(self) -> CoreId {
        match self {
            Stepper::TopSp => CoreId::TopSp,
            Stepper::Ncfw => CoreId::Ncfw,
        }
    }
}

/// `[collective]`.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CollectiveCfg {
    pub algorithm: Algorithm,
    #[serde(default)]
    pub addressing: Addressing,
    /// Dies when `tpb sim` is not given `--dies`.
    pub dies: usize,
    /// TOP_SPs per die, each a TPB top of its own that takes part (1 to 8
    /// on CAYMAN/MARIANA: `sp_base[0..8]`; `[D]`, see [`crate::mesh`]).
    #[serde(default = "one")]
    pub top_sps: usize,
    /// The core that steps each tape.
    #[serde(default)]
    pub stepper: Stepper,
    /// How the TOP_SP's stepper WAITs (`poll`, the seeds' spin, or
    /// `waiti`, asleep until an EVT_SEM change interrupts; `[D]`).
    #[serde(default)]
    pub wait: firmware::TapeWait,
    /// Skip the cycles of a quiescent die (`Mesh::skip_quiet`, on by
    /// default); false evaluates every die every cycle: the results are the same.
    #[serde(default = "yes")]
    pub skip_quiet: bool,
    /// Cycles a SIGNAL (or any SoC access) takes between dies, each way (`[D]`;
    /// also between two TOP_SPs of one die).
    pub link_latency: u64,
    /// The first TOP_SP semaphore the tapes use (see [`Tapes::sems`]).
    pub first_sem: u32,
    /// Words per chunk a DMA leg copies.
    pub words: u32,
    /// 0: the algorithm as an event tape (`mesh_tape.S` / `ncfw_tape.S`);
    /// 1..=32: the ring (or kangaring) in the seeds' shape (its schedule `[D]`), a channel
    /// program (`ring_channels.S`): the die's TOP_SPs own the channels in
    /// turn (channel c: instance c mod top_sps), each steps the channels its
    /// cc_op entry's channel_list names ([`channel_programs`]).
    #[serde(default)]
    pub channels: u32,
    /// Every node's tape as data, in place of the algorithm's planner
    /// (`tpb scenario emit` writes a planner's; [`data`]).
    #[serde(default, skip_serializing)]
    pub tapes: Option<TapesData>,
    /// Every node's channel program as data, in place of the planner
    /// (the kangaring's, the hierarchical's, a ring's with `channels`; [`program_data`]).
    #[serde(default, skip_serializing)]
    pub programs: Option<program_data::ProgramsData>,
    /// Nodes' input vectors (`[[collective.input]]`); a node without one
    /// starts from [`input`]'s words.
    #[serde(default, skip_serializing)]
    pub input: Vec<payload::InputData>,
    /// The file's own checks after the run, each naming its die and TOP_SP ([`expect`]).
    #[serde(default, skip_serializing)]
    pub expect: Vec<expect::ExpectData>,
}

fn yes() -> bool {
    true
}

fn one() -> usize {
    1
}

/// SEQ DMA SRAM bytes in the co-simulated top.
const DMA_SRAM: u32 = 4 << tpb_hdl::seq_dma::DEFAULT_AW;

/// One die's tape and the DMA legs it fires.
#[derive(Debug, Clone, Default)]
pub struct DieTape {
    pub events: Vec<MeshEvent>,
    /// The DMA legs in the order they fire: (source chunk, destination slot).
    pub legs: Vec<(u32, u32)>,
    /// The descriptors the legs fire, in order, each with whether it
    /// completes its leg (INCs the done semaphore); empty for the barrier.
    pub moves: Vec<(Move, bool)>,
    /// Chunks in this node's vector as the plan lays it out (0: it moves no
    /// data). What the vector must end as is not the plan's to say:
    /// [`owed`] gives it from the collective's definition.
    pub units: u32,
    /// The WAITs on semaphores other dies SIGNAL: (semaphore, count).
    pub remote_waits: Vec<(u32, u32)>,
    /// The algorithm's events: `events[..body]`; after them, the group's
    /// completion (see [`Tapes::compl_sem`]).
    pub body: usize,
    /// This TOP_SP leads its group and posts its completion.
    pub leader: bool,
    /// The completion address its END mark carries (the leader's).
    pub compl_addr: Option<u64>,
    /// Each semaphore the program uses and its final count on this TOP_SP.
    pub final_counts: Vec<(u32, u32)>,
    /// A channel program's: its cc_op entry (written to the CTRL SPAD), the
    /// channels it owns, its steps, and its DRAM image.
    pub ring: Option<RingProgram>,
}

/// One TOP_SP's channel program ([`channel_programs`],
/// [`hierarchical_programs`]).
#[derive(Debug, Clone)]
pub struct RingProgram {
    /// Its CTRL SPAD entries, a leg each.
    pub entries: Vec<SpadCtrlEntry>,
    /// The last leg's channels and steps (whose scoreboard stays).
    pub channels: Vec<u32>,
    pub steps: u32,
    pub legs: u32,
    pub dram: Vec<u8>,
    /// The program as data (`[collective.programs]`), which all the above comes from.
    pub data: program_data::ProgramNode,
}

impl DieTape {
    /// The stepper's DRAM image.
    pub fn dram(&self) -> Vec<u8> {
        match &self.ring {
            Some(r) => r.dram.clone(),
            None => tape_dram(&self.events),
        }
    }
}

/// Every die's tape.
#[derive(Debug, Clone)]
pub struct Tapes {
    pub dies: Vec<DieTape>,
    /// Semaphores the algorithm uses, from `first_sem`.
    pub sems: u32,
    /// Leader/reporter (DIGEST §6; the protocol is `[D]`): the TOP_SPs of
    /// a die are one group (its VNC), led by instance 0. Each other TOP_SP,
    /// its tape done, SIGNALs the leader's `gather_sem`; the leader waits
    /// for all of them, then posts the group's completion, one INC of its
    /// own `compl_sem` (its END mark's completion address).
    pub gather_sem: u32,
    pub compl_sem: u32,
    /// The semaphore every DMA leg's descriptor completes into.
    pub done_sem: u32,
    /// TOP_SPs per group.
    pub group: u32,
}

impl Tapes {
    /// Semaphores the tapes use in all, from `first_sem`.
    pub fn sems_used(&self) -> u32 {
        self.sems + 2
    }
    /// `sems` of programs that use semaphores `first..=top` in all.
    fn sems_of(first: u32, top: u32) -> u32 {
        (top + 1 - first).saturating_sub(2)
    }
}

/// Where a tape's addresses come from.
pub struct TapeAddrs<'a> {
    hal: &'a Hal,
    addressing: Addressing,
    /// TOP_SPs per die: a tape names node `die × top_sps + instance`.
    top_sps: u32,
    /// This die's BAR0 address of the SEQ TX ring's tail_inc (the ring the legs ride).
    dma_tail: u32,
    /// A semaphore's INC slot minus its READ slot.
    inc_to_read: u64,
}

impl<'a> TapeAddrs<'a> {
    pub fn new(hal: &'a Hal, dma_tail: u32, addressing: Addressing) -> Result<TapeAddrs<'a>, ScenarioError> {
        let map = &hal.ctx().ok_or(ScenarioError::NotApplicable { scenario: "collective", arch: "the HAL's target", why: "it has no generation" })?.map;
        let w = SemWindows::of(map)?;
        Ok(TapeAddrs { hal, addressing, top_sps: 1, dma_tail, inc_to_read: u64::from(w.inc - w.read) })
    }
    /// The same with `k` TOP_SPs per die: a tape's participants are nodes.
    pub fn with_top_sps(self, k: u32) -> TapeAddrs<'a> {
        TapeAddrs { top_sps: k.max(1), ..self }
    }
    /// SoC address, as node `from` names it, of the INC slot of semaphore
    /// `s` on node `die` (its die's TOP_SP `die % top_sps`; with neighbour
    /// addressing, one TOP_SP per die: this die or the next).
    pub fn inc(&self, from: u32, die: u32, s: u32) -> Result<u64, ScenarioError> {
        let local = self.hal.get_trigger_addr(die % self.top_sps, s)?;
        self.route(from, die, local)
    }
    /// SoC address, as node `from` names it, of BAR0 address `bar0` of node
    /// `die`'s TPB (its instance's `sp_base + soc_tpb_window`, `[D]`).
    pub fn tpb(&self, from: u32, die: u32, bar0: u32) -> Result<u64, ScenarioError> {
        let t = &self.hal.ctx().ok_or(ScenarioError::NotApplicable { scenario: "collective", arch: "the HAL's target", why: "it has no generation" })?.map.params.top_sp;
        let base = t.sp_base.get((die % self.top_sps) as usize).ok_or(ScenarioError::NotApplicable { scenario: "collective", arch: "this generation", why: "no sp_base entry for the TOP_SP" })?;
        self.route(from, die, base + t.soc_tpb_window + u64::from(bar0))
    }
    /// A die-0 SoC address `local` moved to node `die`, as node `from` names it.
    fn route(&self, from: u32, die: u32, local: u64) -> Result<u64, ScenarioError> {
        match self.addressing {
            Addressing::ChipId => Ok(die_addr(local, die / self.top_sps)?),
            Addressing::Neighbor if die == from => Ok(local | u64::from(from & 1) << soc::DIE_BIT),
            Addressing::Neighbor => {
                // The next die: the package's other die, and from die 1 on to the next package.
                let seng = if from & 1 == 1 { 1u64 << soc::EXIT_SENG_BIT } else { 0 };
                Ok(local | 1 << soc::ID_VALID_BIT | 1 << soc::NEIGHBOR_ROUTE_BIT | 1 << soc::EXIT_DIE_BIT | seng)
            }
        }
    }
    /// The same semaphore's READ slot.
    pub fn read(&self, from: u32, die: u32, s: u32) -> Result<u64, ScenarioError> {
        Ok(self.inc(from, die, s)? - self.inc_to_read)
    }
}

fn event(t: MeshEventType) -> MeshEvent {
    MeshEvent { event_type: t.0, ..MeshEvent::default() }
}

/// The TOP_SP's DRAM image of a tape: `events` at algo_configs' mesh array.
pub fn tape_dram(events: &[MeshEvent]) -> Vec<u8> {
    let mut dram = vec![0u8; (firmware::ALGO_CONFIGS + tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET) as usize];
    for e in events {
        dram.extend_from_slice(&e.pack());
    }
    dram
}

mod barrier;
mod channels;
pub mod data;
pub mod expect;
pub mod program_data;
mod emit;
mod mesh;
mod payload;
mod ring;
mod run;
mod tapes;
pub use channels::{channel_programs, group_roles, hierarchical_programs};
pub use run::{collective, mesh_entry, plan, run, run_edited, run_planned, Ran};
pub use payload::{input, owed, reference, InputData, Inputs, Into, Move};
pub use tapes::tapes;
pub use data::TapesData;
pub use emit::{emit_file, emit_tapes, programs};

#[cfg(test)]
mod tests;

impl Scenario for CollectiveCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::Dies(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if !(2..=crate::mesh::MAX_DIES).contains(&self.dies) || self.first_sem >= 256 || self.words == 0 || !(1..=16).contains(&self.top_sps) {
            return Err(ScenarioError::File(format!(
                "{path}: [collective] dies = {} (2..={}), first_sem = {} (0..256), words = {} (not 0), top_sps = {} (1..=16)",
                self.dies,
                crate::mesh::MAX_DIES,
                self.first_sem,
                self.words,
                self.top_sps
            )));
        }
        if self.tapes.is_some() && self.programs.is_some() {
            return Err(ScenarioError::File(format!("{path}: [collective.tapes] or [collective.programs], not both: a TOP_SP steps an event tape or a channel program")));
        }
        if self.tapes.is_some() && (self.channels != 0 || self.algorithm == Algorithm::Hierarchical || self.algorithm == Algorithm::Kangaring) {
            return Err(ScenarioError::File(format!(
                "{path}: [collective.tapes] are event tapes: not for {} with channels = {} (its programs are [collective.programs])",
                self.algorithm.name(),
                self.channels
            )));
        }
        if self.tapes.is_none() && self.programs.is_none() && self.algorithm == Algorithm::AllReduce {
            return Err(ScenarioError::File(format!("{path}: {}", data::NO_PLANNER)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec![G::Cores, G::Doorbell]))
    }
    fn diagrams(&self, _: &Stats, _: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        Vec::new()
    }
}

impl OnDies for CollectiveCfg {
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        dies_in_range(requested.unwrap_or(self.dies), "a collective")
    }
    fn top_sps(&self) -> usize {
        self.top_sps
    }
    fn run_dies(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        collective(arch, self, dies, limit, trace).map(|(r, _)| r)
    }
    fn run_dies_counted(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>, ran: &mut Stats) -> Result<Report, ScenarioError> {
        run::collective_counted(arch, self, dies, limit, trace, ran).map(|(r, _)| r)
    }
}
