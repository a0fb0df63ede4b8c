//! The collectives on N dies (`allreduce-ring`, `allreduce-mesh`,
//! `allreduce-kangaring`, `barrier-global`; see the table in `mod.rs`):
//! each die's TOP_SP runs the NCFW mesh event-tape stepper (`mesh_tape.S`)
//! over a tape built here from the algorithm, the die's number and N; or,
//! for the ring and the kangaring with `channels`, the ring's channel
//! program (`ring_channels.S`, [`channel_programs`]).
//!
//! The tapes use only what the stepper does (DIGEST §7): WAIT until a
//! semaphore reaches a count, fire a DMA leg (a tail-pointer increment of
//! this die's SEQ RX ring), SIGNAL up to three semaphores, on this die or
//! another (the SoC address carries the die: [`crate::mesh::die_addr`]).
//! Semaphores only count up, so a WAIT for the n-th arrival waits for
//! `>= n`. The schedules are ours (`[D]`): the seeds name the algorithm
//! families and the event types, not the per-die event lists. The event
//! type of each event is a label; the stepper does not dispatch on it.
//!
//! The DMA legs copy within each die's SEQ DMA SRAM (the model's DMA has no
//! system master: it cannot write another die), so the data a leg moves is
//! the die's own; what crosses between dies is the control flow, the
//! SIGNALs, and that is what the checks order.

use super::*;
use crate::mesh::{die_addr, Mesh};
use tpb_models::ncfw::mesh::soc;

/// The algorithms (`[collective] algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Ring all-reduce: N - 1 reduce-scatter steps, then N - 1 all-gather
    /// steps; at step t die d's DMA leg copies chunk (d - t) mod N (then
    /// (d + 1 - t') mod N in the all-gather), then SIGNALs die d + 1.
    Ring,
    /// Full-mesh all-reduce in two phases: copy the own chunk and SIGNAL
    /// every other die; when all N - 1 arrived, write the reduced chunk and
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
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ring => "ring",
            Algorithm::Mesh => "mesh",
            Algorithm::Barrier => "barrier",
            Algorithm::Kangaring => "kangaring",
            Algorithm::Hierarchical => "hierarchical",
        }
    }
}

/// How a tape names another die (`[collective] addressing`): the SoC
/// port's two readings of bits 53:48 ([`crate::sched::SocDecoder`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
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
#[derive(Debug, Clone, serde::Deserialize)]
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
    /// 1..=32: the ring (or kangaring) as the seeds run it, a channel
    /// program (`ring_channels.S`): the die's TOP_SPs own the channels in
    /// turn (channel c: instance c mod top_sps), each steps the channels its
    /// cc_op entry's channel_list names ([`channel_programs`]).
    #[serde(default)]
    pub channels: u32,
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
#[derive(Debug, Clone)]
pub struct DieTape {
    pub events: Vec<MeshEvent>,
    /// The DMA legs in the order they fire: (source chunk, destination slot).
    pub legs: Vec<(u32, u32)>,
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
    /// Source chunks its DMA legs read.
    pub chunks: u32,
    pub dram: Vec<u8>,
}

impl DieTape {
    fn new() -> DieTape {
        DieTape { events: Vec::new(), legs: Vec::new(), remote_waits: Vec::new(), body: 0, leader: false, compl_addr: None, final_counts: Vec::new(), ring: None }
    }
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
}

/// Where a tape's addresses come from.
pub struct TapeAddrs<'a> {
    hal: &'a Hal,
    addressing: Addressing,
    /// TOP_SPs per die: a tape names node `die × top_sps + instance`.
    top_sps: u32,
    /// This die's BAR0 address of the SEQ RX ring's tail_inc.
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

/// The tapes of `alg` on `n` dies, semaphores from `s`.
pub fn tapes(alg: Algorithm, n: u32, s: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    if n < 2 {
        return Err(ScenarioError::File(format!("{}: a collective needs at least 2 dies, not {n}", alg.name())));
    }
    if a.addressing == Addressing::Neighbor && a.top_sps > 1 {
        return Err(ScenarioError::File(format!("{} with {} TOP_SPs per die: a neighbour route names a die, not a TOP_SP on it (chip-id addressing does)", alg.name(), a.top_sps)));
    }
    if a.addressing == Addressing::Neighbor && (alg != Algorithm::Ring || n % 2 != 0) {
        return Err(ScenarioError::File(format!("{} on {n} dies: a neighbour route reaches only the next die (the package's other die, or the next package's), so it serves the ring on an even number of dies", alg.name())));
    }
    let wait = |e: &mut MeshEvent, die: u32, sem: u32, count: u32| -> Result<(), ScenarioError> {
        e.wait_event = 1;
        e.event_wait_sema = a.read(die, die, sem)?;
        e.wait_val = count;
        Ok(())
    };
    let dma = |e: &mut MeshEvent| {
        e.dma_trigger = 1;
        e.dma_apb_bcast[0] = DmaApbBcast { m2s_tail_ptr: u64::from(a.dma_tail), s2m_tail_ptr: 0, mask: 1 };
    };
    // SIGNAL `targets` (die, semaphore), three per event: the first event is
    // `first` (already holding a WAIT or a DMA leg), the others `t` alone.
    let signal = |d: u32, mut first: MeshEvent, t: MeshEventType, targets: &[(u32, u32)]| -> Result<Vec<MeshEvent>, ScenarioError> {
        let mut out = Vec::new();
        for (k, group) in targets.chunks(3).enumerate() {
            let mut e = if k == 0 { first } else { event(t) };
            e.direct_trigger = 1;
            for (j, &(die, sem)) in group.iter().enumerate() {
                e.direct_trigger_sema[j] = a.inc(d, die, sem)?;
            }
            out.push(e);
        }
        if targets.is_empty() {
            first.direct_trigger = 0;
            out.push(first);
        }
        Ok(out)
    };
    let mut dies = Vec::with_capacity(n as usize);
    let (sems, final_counts);
    match alg {
        Algorithm::Ring => {
            // s: chunks received from die d - 1; s + 1: this die's DMA legs done.
            let (recv, done, steps) = (s, s + 1, 2 * (n - 1));
            for d in 0..n {
                let mut t = DieTape::new();
                for step in 0..steps {
                    let scatter = step < n - 1;
                    let chunk = if scatter { (d + n - step % n) % n } else { (d + 1 + n - (step - (n - 1)) % n) % n };
                    let mut e = event(if scatter { MeshEventType::EVT_REDUCE_COPY } else { MeshEventType::EVT_REDUCE_WRITE });
                    if step > 0 {
                        wait(&mut e, d, recv, step)?;
                        t.remote_waits.push((recv, step));
                    }
                    dma(&mut e);
                    t.legs.push((chunk, step));
                    t.events.push(e);
                    let mut e = event(MeshEventType::EVT_REDUCE_LOCAL_HNDSHK);
                    wait(&mut e, d, done, step + 1)?;
                    t.events.extend(signal(d, e, MeshEventType::EVT_SYNC, &[((d + 1) % n, recv)])?);
                }
                let mut e = event(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
                wait(&mut e, d, recv, steps)?;
                t.remote_waits.push((recv, steps));
                t.events.push(e);
                dies.push(t);
            }
            sems = 2;
            final_counts = vec![steps, steps];
        }
        Algorithm::Mesh => {
            // s: phase-1 arrivals, s + 1: DMA legs done, s + 2: phase-2 writes.
            let (arrive, done, written) = (s, s + 1, s + 2);
            for d in 0..n {
                let mut t = DieTape::new();
                let peers: Vec<u32> = (1..n).map(|k| (d + k) % n).collect();
                let mut e = event(MeshEventType::EVT_REDUCE_COPY);
                dma(&mut e);
                t.legs.push((d, 0));
                t.events.push(e);
                let mut e = event(MeshEventType::EVT_INTRA_GRP_BRDCST);
                wait(&mut e, d, done, 1)?;
                t.events.extend(signal(d, e, MeshEventType::EVT_INTRA_GRP_BRDCST, &peers.iter().map(|&p| (p, arrive)).collect::<Vec<_>>())?);
                let mut e = event(MeshEventType::EVT_REDUCE_WRITE);
                wait(&mut e, d, arrive, n - 1)?;
                t.remote_waits.push((arrive, n - 1));
                dma(&mut e);
                t.legs.push(((d + 1) % n, 1));
                t.events.push(e);
                let mut e = event(MeshEventType::EVT_LOCAL_AND_POD_GRP_BRDCST);
                wait(&mut e, d, done, 2)?;
                t.events.extend(signal(d, e, MeshEventType::EVT_LOCAL_AND_POD_GRP_BRDCST_2, &peers.iter().map(|&p| (p, written)).collect::<Vec<_>>())?);
                let mut e = event(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
                wait(&mut e, d, written, n - 1)?;
                t.remote_waits.push((written, n - 1));
                t.events.push(e);
                dies.push(t);
            }
            sems = 3;
            final_counts = vec![n - 1, 2, n - 1];
        }
        Algorithm::Kangaring => return Err(ScenarioError::File("kangaring runs as a channel program: set [collective] channels (1 to 32)".into())),
        Algorithm::Hierarchical => return hierarchical_programs(n, s, a),
        Algorithm::Barrier => {
            // s + r: round r's arrival.
            let rounds = u32::BITS - (n - 1).leading_zeros();
            for d in 0..n {
                let mut t = DieTape::new();
                for r in 0..rounds {
                    let mut e = event(if r == 0 { MeshEventType::EVT_FUNCTION_BARRIER_FIRST_COLL } else { MeshEventType::EVT_SYNC });
                    if r > 0 {
                        wait(&mut e, d, s + r - 1, 1)?;
                        t.remote_waits.push((s + r - 1, 1));
                    }
                    t.events.extend(signal(d, e, MeshEventType::EVT_SYNC, &[((d + (1 << r)) % n, s + r)])?);
                }
                let mut e = event(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
                wait(&mut e, d, s + rounds - 1, 1)?;
                t.remote_waits.push((s + rounds - 1, 1));
                t.events.push(e);
                dies.push(t);
            }
            sems = rounds;
            final_counts = vec![1; rounds as usize];
        }
    }
    // The group's completion, after each tape's body.
    let (k, gather, compl) = (a.top_sps, s + sems, s + sems + 1);
    for (d, t) in dies.iter_mut().enumerate() {
        let d = d as u32;
        let leader = d - d % k;
        t.body = t.events.len();
        t.leader = d == leader;
        t.final_counts = final_counts.iter().enumerate().map(|(i, &c)| (s + i as u32, c)).collect();
        t.final_counts.extend([(gather, if t.leader { k - 1 } else { 0 }), (compl, u32::from(t.leader))]);
        let mut e = event(MeshEventType::EVT_SYNC);
        e.direct_trigger = 1;
        if t.leader {
            if k > 1 {
                wait(&mut e, d, gather, k - 1)?;
                t.remote_waits.push((gather, k - 1));
            }
            e.direct_trigger_sema[0] = a.inc(d, d, compl)?;
            t.compl_addr = Some(e.direct_trigger_sema[0]);
        } else {
            e.direct_trigger_sema[0] = a.inc(d, leader, gather)?;
        }
        t.events.push(e);
    }
    Ok(Tapes { dies, sems, gather_sem: gather, compl_sem: compl, done_sem: s + 1, group: k })
}

/// One leg of a TOP_SP's channel program: its cc_op entry's algorithm, its
/// steps (the first `scatter` reduce-scatter) and, per channel it owns:
/// (channel, receive semaphore, the next node on its ring, this node's
/// position on that ring, the ring's length).
struct LegPlan {
    algo_type: AlgType,
    algo_sub_type: u8,
    steps: u32,
    scatter: u32,
    chans: Vec<(u32, u32, u32, u32, u32)>,
}

/// The semaphores every channel program uses past its receive semaphores:
/// DMA legs done, complete_prev, the completion (`s + 32`, `+ 33`, `+ 34`).
fn ring_sems(s: u32) -> (u32, u32, u32) {
    (s + firmware::RING_CHANNELS_MAX, s + firmware::RING_CHANNELS_MAX + 1, s + firmware::RING_CHANNELS_MAX + 2)
}

/// Node `node`'s channel program from its legs: the CTRL SPAD entries
/// (chained by trigger_next; the last carries reporter and the complete
/// flags), the DRAM image (each leg's configs and header, the completion
/// header), the DMA legs in firing order (leg by leg, step by step, channel
/// by channel), the WAITs and final counts the checks hold it to.
fn ring_program(node: u32, plans: Vec<LegPlan>, (send, wait): (bool, bool), s: u32, a: &TapeAddrs) -> Result<DieTape, ScenarioError> {
    let (done, prev, compl) = ring_sems(s);
    let reporter = !send;
    let mut t = DieTape::new();
    let mut dram = vec![0u8; (firmware::RING_LEGS + 16 * plans.len() as u32) as usize];
    let put = |dram: &mut Vec<u8>, at: u32, v: u64| dram[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
    let (mut entries, mut chunks, mut fired) = (Vec::new(), 0u32, 0u32);
    let last = plans.len() - 1;
    for (l, p) in plans.iter().enumerate() {
        let configs = firmware::ALGO_CONFIGS + firmware::RING_CONFIGS_BYTES * l as u32;
        let head = firmware::RING_LEGS + 16 * l as u32;
        for (at, v) in [(head, p.steps), (head + 4, p.scatter), (head + 8, tpb_models::xtensa::config::DRAM_BASE + configs)] {
            dram[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut list = 0u32;
        for &(c, sem, next, _, _) in &p.chans {
            list |= 1 << c;
            let at = configs + firmware::RING_CHANNEL_BYTES * c;
            put(&mut dram, at, u64::from(a.dma_tail));
            put(&mut dram, at + 0x18, a.read(node, node, sem)?);
            put(&mut dram, at + 0x20, a.inc(node, next, sem)?);
            t.final_counts.push((sem, p.steps));
            t.remote_waits.extend((1..=p.steps).map(|step| (sem, step)));
        }
        for step in 0..p.steps {
            for (i, &(_, _, _, pos, len)) in p.chans.iter().enumerate() {
                let chunk = if step < p.scatter { (pos + len - step % len) % len } else { (pos + 1 + len - (step - p.scatter) % len) % len };
                t.legs.push((chunks + i as u32 * len + chunk, t.legs.len() as u32));
            }
        }
        chunks += p.chans.iter().map(|c| c.4).sum::<u32>();
        fired += p.steps * p.chans.len() as u32;
        entries.push(SpadCtrlEntry {
            cc_op: true,
            algo_type: p.algo_type,
            algo_sub_type: p.algo_sub_type,
            trigger_next: l < last,
            reporter: l == last && reporter,
            ring_wait_complete: l == last && wait,
            ring_send_complete: l == last && send,
            safe_mode: false,
            unique_tensors: false,
            target: CcOpTarget::ChannelList(list),
        });
    }
    put(&mut dram, firmware::RING_HEADER, a.read(node, node, done)?);
    put(&mut dram, firmware::RING_HEADER + 8, a.read(node, node, prev)?);
    if send {
        put(&mut dram, firmware::RING_HEADER + 0x10, a.inc(node, node + 1, prev)?);
    }
    if wait {
        t.remote_waits.push((prev, 1));
    }
    if reporter {
        let c = a.inc(node, node, compl)?;
        put(&mut dram, firmware::RING_HEADER + 0x18, c);
        t.compl_addr = Some(c);
    }
    t.final_counts.extend([(done, fired), (prev, u32::from(wait)), (compl, u32::from(reporter))]);
    t.leader = reporter;
    let p = &plans[last];
    t.ring = Some(RingProgram { entries, channels: p.chans.iter().map(|c| c.0).collect(), steps: p.steps, legs: plans.len() as u32, chunks, dram });
    Ok(t)
}

/// The channel programs of the ring (or kangaring) on `n` nodes (`dies` ×
/// `a.top_sps`), `channels` channels, semaphores from `s` (`[D]`, DIGEST §6):
/// - channel c belongs to instance c mod K of every die (the seeds' owner
///   of a channel is one TOP_SP; its `channel_list` ORs `1 << c`) and is a
///   ring over the dies, forward (die d to d + 1), or backward for the odd
///   channels of the kangaring; its receive semaphore is `s + c`;
/// - each of 2(N − 1) steps fires one DMA leg a channel, of its chunk
///   (d − t) mod N as the event-tape ring's;
/// - completion passes up the die's TOP_SPs by index as their entries'
///   ring_send_complete / ring_wait_complete say (semaphore `s + 33`), and
///   the last, the only one with no TOP_SP above it, reports (`s + 34`,
///   its END mark's completion address); `s + 32` counts this TOP_SP's DMA legs done.
pub fn channel_programs(alg: Algorithm, n: u32, channels: u32, s: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    let k = a.top_sps;
    let dies = n / k;
    if alg == Algorithm::Hierarchical {
        return hierarchical_programs(n, s, a);
    }
    if alg != Algorithm::Ring && alg != Algorithm::Kangaring {
        return Err(ScenarioError::File(format!("{}: channel programs are the ring's, the kangaring's and the hierarchical's (channels = 0 runs it as an event tape)", alg.name())));
    }
    if !(1..=firmware::RING_CHANNELS_MAX).contains(&channels) || channels < k {
        return Err(ScenarioError::File(format!("{channels} channels for {k} TOP_SPs a die: 1 to {}, at least one a TOP_SP", firmware::RING_CHANNELS_MAX)));
    }
    check_program_shape(alg, dies, a)?;
    let owners: Vec<(u32, u32)> = (0..channels).map(|c| (c, c % k)).collect();
    let mut out = Vec::with_capacity(n as usize);
    for node in 0..n {
        let (d, sp) = (node / k, node % k);
        let chans = owners
            .iter()
            .filter(|o| o.1 == sp)
            .map(|&(c, _)| {
                let backward = alg == Algorithm::Kangaring && c % 2 == 1;
                let next = if backward { (d + dies - 1) % dies } else { (d + 1) % dies };
                (c, s + c, next * k + sp, if backward { (dies - d) % dies } else { d }, dies)
            })
            .collect();
        let plan = LegPlan { algo_type: if alg == Algorithm::Ring { AlgType::Ring } else { AlgType::Kangaring }, algo_sub_type: 0, steps: 2 * (dies - 1), scatter: dies - 1, chans };
        out.push(ring_program(node, vec![plan], tpb_models::ncfw::spad::ring_complete_flags(&owners, sp), s, a)?);
    }
    let (done, prev, compl) = ring_sems(s);
    Ok(Tapes { dies: out, sems: firmware::RING_CHANNELS_MAX + 1, gather_sem: prev, compl_sem: compl, done_sem: done, group: k })
}

fn check_program_shape(alg: Algorithm, dies: u32, a: &TapeAddrs) -> Result<(), ScenarioError> {
    if dies < 2 {
        return Err(ScenarioError::File(format!("{}: a collective needs at least 2 dies, not {dies}", alg.name())));
    }
    if a.addressing != Addressing::ChipId {
        return Err(ScenarioError::File("channel programs name their next TOP_SP by chip id (addressing = \"chip-id\")".into()));
    }
    Ok(())
}

/// The hierarchical all-reduce (seed 001 §6a: chained cc_op entries, an
/// intra-die reduce-scatter ring leg, an inter-die all-reduce ring leg, an
/// intra-die all-gather ring leg) on `n` nodes of K ≥ 2 TOP_SPs a die; the
/// entries are tagged HIER with the leg as sub-type (`[D]`). Leg L rings on
/// channel 0 with receive semaphore `s + L`: legs 0 and 2 over the die's K
/// TOP_SPs (K − 1 steps), leg 1 over the dies' TOP_SPs of one instance
/// (2(N − 1) steps). The hierarchical run_state (algo_ctx + 0x200) is the
/// leg running, from 1, then 4. Completion as [`channel_programs`].
pub fn hierarchical_programs(n: u32, s: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    let k = a.top_sps;
    let dies = n / k;
    if k < 2 {
        return Err(ScenarioError::File("hierarchical: its intra-die legs ring over a die's TOP_SPs: top_sps of 2 or more".into()));
    }
    check_program_shape(Algorithm::Hierarchical, dies, a)?;
    let chain: Vec<(u32, u32)> = (0..k).map(|i| (i, i)).collect();
    let mut out = Vec::with_capacity(n as usize);
    for node in 0..n {
        let (d, sp) = (node / k, node % k);
        let intra = |l: u32, scatter: u32| LegPlan { algo_type: AlgType::Hier, algo_sub_type: l as u8, steps: k - 1, scatter, chans: vec![(0, s + l, d * k + (sp + 1) % k, sp, k)] };
        let inter = LegPlan { algo_type: AlgType::Hier, algo_sub_type: 1, steps: 2 * (dies - 1), scatter: dies - 1, chans: vec![(0, s + 1, ((d + 1) % dies) * k + sp, d, dies)] };
        out.push(ring_program(node, vec![intra(0, k - 1), inter, intra(2, 0)], tpb_models::ncfw::spad::ring_complete_flags(&chain, sp), s, a)?);
    }
    let (done, prev, compl) = ring_sems(s);
    Ok(Tapes { dies: out, sems: firmware::RING_CHANNELS_MAX + 1, gather_sem: prev, compl_sem: compl, done_sem: done, group: k })
}

/// The HAL's view of the group of TOP_SP `node` (DIGEST §6): each TOP_SP's
/// role, one cc_op entry of `alg` whose reporter bit only the leader sets,
/// and its END mark, the leader's carrying the completion address.
/// [`tpb_models::hal::collective::check_group`] holds a program to the rules.
pub fn group_roles(t: &Tapes, alg: Algorithm, node: u32) -> Vec<tpb_models::hal::collective::TopSpRole> {
    let first = node - node % t.group;
    (first..first + t.group)
        .map(|d| {
            let tape = &t.dies[d as usize];
            let compl_addrs = tape.compl_addr.into_iter().collect();
            tpb_models::hal::collective::TopSpRole {
                leader: tape.leader,
                ctrl: tape.ring.as_ref().map(|r| r.entries.clone()).unwrap_or(vec![SpadCtrlEntry {
                    cc_op: true,
                    algo_type: match alg {
                        Algorithm::Ring => AlgType::Ring,
                        Algorithm::Kangaring => AlgType::Kangaring,
                        Algorithm::Hierarchical => AlgType::Hier,
                        Algorithm::Mesh | Algorithm::Barrier => AlgType::Mesh,
                    },
                    algo_sub_type: 0,
                    trigger_next: false,
                    reporter: tape.leader,
                    ring_wait_complete: false,
                    ring_send_complete: false,
                    safe_mode: false,
                    unique_tensors: false,
                    target: CcOpTarget::ChannelList(1),
                }]),
                slot: vec![SlotWord::End { compl_addrs }],
            }
        })
        .collect()
}

/// The TOP_SP's DRAM image of a tape: `events` at algo_configs' mesh array.
pub fn tape_dram(events: &[MeshEvent]) -> Vec<u8> {
    let mut dram = vec![0u8; (firmware::ALGO_CONFIGS + tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET) as usize];
    for e in events {
        dram.extend_from_slice(&e.pack());
    }
    dram
}

/// The SEQ DMA SRAM of a collective (`[D]`): the RX ring (one descriptor
/// per leg) from 0, the source chunks after it, then the destination slots.
#[derive(Debug, Clone, Copy)]
struct DmaLayout {
    ring: u32,
    src: u32,
    dst: u32,
}

impl DmaLayout {
    fn of(n: u32, legs: u32, words: u32) -> Result<DmaLayout, ScenarioError> {
        let src = 16 * legs;
        let dst = src + 4 * words * n;
        let end = dst + 4 * words * legs;
        if words == 0 || end > DMA_SRAM {
            return Err(ScenarioError::File(format!("{legs} DMA legs and {n} source chunks of {words} words need {end:#x} bytes of the SEQ DMA SRAM ({DMA_SRAM:#x}): fewer dies, channels or words")));
        }
        Ok(DmaLayout { ring: legs, src, dst })
    }
}

/// The word `w` of chunk `c` on die `d` (distinct everywhere).
fn datum(d: u32, c: u32, w: u32) -> u32 {
    0xc0_000000 | d << 16 | c << 8 | w
}

/// A collective that ran, for its checks ([`Ran::check`]).
pub struct Ran {
    pub mesh: Mesh,
    pub tapes: Tapes,
    pub cfg: CollectiveCfg,
    lay: DmaLayout,
    /// The cycle the TOP_SPs were released.
    start: u64,
    /// Every TOP_SP halted within `limit` cycles.
    halted: bool,
    limit: u64,
    /// Wall seconds from the release until every TOP_SP halted.
    pub run_seconds: f64,
}

/// Run `cfg` on `n` dies of `arch` and check it; with `trace`, die k writes `die_path(trace, k)`.
pub fn collective(arch: Arch, cfg: &CollectiveCfg, n: usize, limit: u64, trace: Option<&Path>) -> Result<(Report, Mesh), ScenarioError> {
    let mut ran = run(arch, cfg, n, limit, trace)?;
    let r = ran.check();
    if trace.is_some() {
        ran.mesh.trace_close()?;
    }
    Ok((r?, ran.mesh))
}

/// Set up `n` dies, load every TOP_SP's tape, release them and run until
/// they all halt or `limit` cycles pass.
pub fn run(arch: Arch, cfg: &CollectiveCfg, n: usize, limit: u64, trace: Option<&Path>) -> Result<Ran, ScenarioError> {
    if arch == Arch::Sunda {
        return Err(ScenarioError::NotApplicable { scenario: "collective", arch: arch.name(), why: "its host_trigger is a pulse register and its sp_base table has no die bit" });
    }
    let mut mesh = Mesh::with_top_sps(arch, n, cfg.top_sps, cfg.link_latency)?;
    mesh.skip_quiet = cfg.skip_quiet;
    // The tapes' participants: every TOP_SP of every die.
    let n = mesh.dies.len();
    if let Some(p) = trace {
        mesh.trace(p)?;
    }
    let hal = Hal::for_arch(arch)?;
    let dma_tail = Addrs::new(mesh.dies[0].map(), "collective").reg(Engine::Pool, "nx", "dma_rx_ring_tail_inc")?;
    let addrs = TapeAddrs::new(&hal, dma_tail, cfg.addressing)?.with_top_sps(cfg.top_sps as u32);
    let t = match (cfg.algorithm, cfg.channels) {
        (Algorithm::Hierarchical, _) => hierarchical_programs(n as u32, cfg.first_sem, &addrs)?,
        (alg, 0) => tapes(alg, n as u32, cfg.first_sem, &addrs)?,
        (alg, ch) => channel_programs(alg, n as u32, ch, cfg.first_sem, &addrs)?,
    };
    if cfg.first_sem + t.sems_used() > 256 {
        return Err(ScenarioError::File(format!("[collective] first_sem = {}: {} on {n} dies uses {} semaphores, past 255", cfg.first_sem, cfg.algorithm.name(), t.sems_used())));
    }
    // The HAL holds every group's program to the leader/reporter rules.
    for g in (0..n as u32).step_by(cfg.top_sps.max(1)) {
        tpb_models::hal::collective::check_group(&group_roles(&t, cfg.algorithm, g))?;
    }
    let legs = t.dies.iter().map(|d| d.legs.len()).max().unwrap_or(0) as u32;
    // Source chunks only for an algorithm that moves data (the barrier does
    // not); a channel program's: a set of the dies' chunks for each of its channels.
    let chunks = match t.dies.iter().filter_map(|d| d.ring.as_ref()).map(|r| r.chunks).max() {
        _ if legs == 0 => 0,
        Some(c) => c,
        None => n as u32,
    };
    let lay = DmaLayout::of(chunks, legs.max(1), cfg.words)?;
    let done_sem = hal.get_trigger_addr(0, t.done_sem)? as u32;
    for (d, c) in mesh.dies.iter_mut().enumerate() {
        if cfg.addressing == Addressing::Neighbor {
            c.decoder = crate::sched::SocDecoder::Neighbor;
        }
        let tape = &t.dies[d];
        // The SEQ is not in the collective (only its DMA is): its firmware
        // halts itself after boot, so a die whose tape is done goes quiet.
        let mut scfg = StpbConfig::new(
            UcodeImages { iram: firmware::nx_halt(c.map(), false)?.bytes, dram: vec![0; 16] },
            UcodeImages { iram: firmware::q7_sum(&c.map().clone())?.bytes, dram: vec![1, 0, 0, 0] },
        );
        scfg.pooling.dma = Some(DmaConfig { rx: RingConfig { base: 0, length: lay.ring }, tx: RingConfig { base: 0, length: 0 }, mem_window2: 0 });
        Hal::with_map(c.map().clone()).stpb_init(c, &scfg, None)?;
        let base = region(c, "seq.dma")?;
        let mut desc = Vec::new();
        for &(chunk, slot) in &tape.legs {
            desc.extend([lay.src + 4 * cfg.words * chunk, lay.dst + 4 * cfg.words * slot, cfg.words, done_sem]);
        }
        c.write_buf(base, &words(&desc))?;
        let src: Vec<u32> = (0..chunks).flat_map(|ch| (0..cfg.words).map(move |w| datum(d as u32, ch, w))).collect();
        c.write_buf(base + u64::from(lay.src), &words(&src))?;
        // The tape's event count is the stepper's EVENTS bound; a channel
        // program reads its cc_op entry from the CTRL SPAD.
        let events = tape.events.len() as u32;
        let prog = match (&tape.ring, cfg.stepper) {
            (Some(r), s) => {
                let spad = region(c, "top_sp.ctrl_spad")?;
                c.write_buf(spad, &pack_ctrl(&r.entries).map_err(|e| ScenarioError::File(e.to_string()))?)?;
                firmware::ring_channels(c.map(), 1, s == Stepper::TopSp)?
            }
            (None, Stepper::TopSp) => firmware::mesh_tape(c.map(), events, 1, cfg.wait)?,
            (None, Stepper::Ncfw) => firmware::ncfw_tape(c.map(), events, 1)?,
        };
        c.load_local(cfg.stepper.core(), &prog.bytes, &tape.dram())?;
    }
    let release = Addrs::new(mesh.dies[0].map(), "collective").reg(Engine::TopSp, "nx", "release_run_stall")?;
    for c in &mut mesh.dies {
        c.write32(release.into(), 0)?;
    }
    let start = mesh.dies.iter().map(|c| c.stats.cycles).max().unwrap_or(0);
    let t0 = std::time::Instant::now();
    let stepper = cfg.stepper.core();
    // Done: every stepper halted (mesh_tape.S) or idle in WAITI (ncfw_tape.S).
    let halted = mesh.run_until(limit, |m| m.dies.iter().all(|c| c.core(stepper).idle()));
    let run_seconds = t0.elapsed().as_secs_f64();
    Ok(Ran { mesh, tapes: t, cfg: cfg.clone(), lay, start, halted, limit, run_seconds })
}

impl Ran {
    /// The checks of the module table, on what the dies logged and hold now.
    pub fn check(&mut self) -> Result<Report, ScenarioError> {
        let Ran { mesh, tapes: t, cfg, lay, start, halted: done, limit, .. } = self;
        let (n, lay, start, done, limit, k_per_die) = (mesh.dies.len(), *lay, *start, *done, *limit, mesh.top_sps);
        let mut r = Report::default();
        let stepper = cfg.stepper.core();
        let ctx = |c: &Cosim, off: u32| c.local_dram(stepper, firmware::ALGO_CTX + off).unwrap_or(0);
        let map0 = mesh.dies[0].map().clone();
        let a = Addrs::new(&map0, "collective");
        for (d, c) in mesh.dies.iter().enumerate() {
            let idx = ctx(c, 0x204) & 0xffff;
            let len = t.dies[d].events.len() as u32;
            r.check(c.stats.cycles, (done || c.core(stepper).idle()) && idx == len && ctx(c, 0x208) == firmware::TAPE_DONE, format!("{}: tape completed within {limit} cycles (event_index {idx} of {len}, marker {:#x})", mesh.node_name(d), ctx(c, 0x208)))?;
            if cfg.stepper == Stepper::Ncfw {
                // Each event went to its type's handler through the table at
                // 0xb0; the barrier handlers' snapshots move forward; the core idles in WAITI.
                let log = |i: u32, w: u32| c.local_dram(stepper, firmware::NCFW_LOG + 16 * i + 4 * w).unwrap_or(0);
                let mut last = 0u64;
                for (i, e) in t.dies[d].events.iter().enumerate() {
                    let (want, got) = (firmware::NCFW_HANDLERS.get(usize::from(e.event_type)).copied().unwrap_or(0xee), log(i as u32, 0));
                    r.check(c.stats.cycles, got == want, format!("{}: event {i} (type {}) ran handler {got}, its type's is {want}", mesh.node_name(d), e.event_type))?;
                    if want == 2 {
                        let ts = u64::from(log(i as u32, 1)) | u64::from(log(i as u32, 2)) << 32;
                        r.check(c.stats.cycles, ts > last, format!("{}: event {i}'s timestamp snapshot {ts} after the last one's {last}", mesh.node_name(d)))?;
                        last = ts;
                    }
                }
                r.check(c.stats.cycles, c.core(stepper).last == Some(tpb_models::xtensa::core::Step::Waiting), format!("{}: the NCFW core idles in WAITI (its last step: {})", mesh.node_name(d), c.core(stepper).last.map_or_else(|| "none".to_string(), |s| s.to_string())))?;
            }
        }
        // Every WAIT on a semaphore other dies SIGNAL passed only after the
        // SIGNAL that brought it to its count had landed on this die.
        let mut final_pass = vec![0u64; n];
        let mut round0 = vec![u64::MAX; n];
        let round0_inc = a.sem(Engine::TopSp, WindowOp::Inc, cfg.first_sem)?;
        for (d, c) in mesh.dies.iter().enumerate() {
            for &(sem, count) in &t.dies[d].remote_waits {
                let (inc, read) = (a.sem(Engine::TopSp, WindowOp::Inc, sem)?, a.sem(Engine::TopSp, WindowOp::Read, sem)?);
                let landed = c.log.iter().filter(|x| matches!(x.master, Master::Remote { .. }) && x.write && x.addr == inc).nth(count as usize - 1).copied();
                let pass = first(c, |x| x.master == Master::Core(stepper) && !x.write && x.addr == read && x.data >= count);
                r.check(c.stats.cycles, matches!((landed, pass), (Some(l), Some(p)) if l.cycle < p.cycle), format!("{}: SIGNAL {count} of semaphore {sem} landed ({}) before the WAIT for {count} passed ({})", mesh.node_name(d), at_cycle(landed.map(|x| x.cycle)), at_cycle(pass.map(|x| x.cycle))))?;
                if let Some(p) = pass {
                    final_pass[d] = final_pass[d].max(p.cycle);
                }
            }
            round0[d] = first(c, |x| matches!(x.master, Master::Remote { .. }) && x.write && x.addr == round0_inc).map_or(u64::MAX, |x| x.cycle);
            r.value(format!("die{d}.done"), final_pass[d]);
        }
        if cfg.algorithm == Algorithm::Barrier {
            // No die leaves before every die's round-0 SIGNAL has landed.
            let (last_arrival, first_exit) = (*round0.iter().max().unwrap_or(&0), *final_pass.iter().min().unwrap_or(&0));
            r.check(last_arrival, last_arrival < first_exit, format!("every die's arrival landed (last at {last_arrival}) before any die left (first at {first_exit})"))?;
            r.events.push((last_arrival, "last arrival lands".into()));
            r.events.push((first_exit, "first die leaves".into()));
        }
        let compl_inc = a.sem(Engine::TopSp, WindowOp::Inc, t.compl_sem)?;
        let mut completions = 0u64;
        for (d, c) in mesh.dies.iter_mut().enumerate() {
            for &(sem, want) in &t.dies[d].final_counts {
                let want = &want;
                let v = c.read32(a.sem(Engine::TopSp, WindowOp::Read, sem)?.into())?;
                r.check(c.stats.cycles, v == *want, format!("{}: semaphore {sem} = {v}, expected {want}", crate::mesh::node_name(d, k_per_die)))?;
            }
            // Leader/reporter: the group's completion is posted once, by its
            // leader's own stepper, after every WAIT of its tape (the
            // gather of its group's SIGNALs too) passed; the others post none.
            let tape = &t.dies[d];
            let want = group_roles(t, cfg.algorithm, d as u32)[d % k_per_die].expected_notif_count();
            let posts: Vec<Txn> = c.log.iter().filter(|x| x.write && x.addr == compl_inc).copied().collect();
            let own = posts.iter().filter(|x| x.master == Master::Core(stepper)).count() as u32;
            let node = crate::mesh::node_name(d, k_per_die);
            r.check(c.stats.cycles, posts.len() as u32 == want && own == want, format!("{node}: {} completion posts ({own} by its own stepper), the HAL expects {want} ({})", posts.len(), if tape.leader { "the group's leader" } else { "not the leader" }))?;
            if let Some(p) = posts.first() {
                r.check(p.cycle, p.cycle > final_pass[d], format!("{node}: completion posted at {} after its last WAIT passed at {}", p.cycle, final_pass[d]))?;
                r.events.push((p.cycle, format!("{node} posts completion")));
                completions += 1;
            }
            // A channel program's scoreboard (ring ctx): every owned
            // channel saw its last chunk, sent and fired a leg each step, done.
            if let Some(rp) = &tape.ring {
                let run_state = ctx(c, tpb_models::ncfw::mesh::algo_ctx::HIER_RUN_STATE) & 0xff;
                r.check(c.stats.cycles, run_state == rp.legs + 1, format!("{node}: run_state {run_state} after its {} legs, expected {}", rp.legs, rp.legs + 1))?;
                for &ch in &rp.channels {
                    let at = firmware::ALGO_CTX + firmware::RING_CTX_BYTES * ch;
                    let sb = [ctx(c, at - firmware::ALGO_CTX), ctx(c, at + 4 - firmware::ALGO_CTX), ctx(c, at + 8 - firmware::ALGO_CTX) & 0xffff, ctx(c, at + 12 - firmware::ALGO_CTX) & 0xff];
                    r.check(c.stats.cycles, sb == [rp.steps, rp.steps, rp.steps, 3], format!("{node}: channel {ch}'s scoreboard recv_cnt/send_credit/m2s_val/run_state = {sb:?}, expected [{0}, {0}, {0}, 3]", rp.steps))?;
                }
            }
            let base = region(c, "seq.dma")?;
            for &(chunk, slot) in &t.dies[d].legs {
                for wd in 0..cfg.words {
                    let got = c.read32(base + u64::from(lay.dst + 4 * (cfg.words * slot + wd)))?;
                    let want = datum(d as u32, chunk, wd);
                    r.check(c.stats.cycles, got == want, format!("{}: DMA leg {slot} word {wd} = {got:#x}, expected chunk {chunk}'s {want:#x}", crate::mesh::node_name(d, k_per_die)))?;
                }
            }
        }
        let end = final_pass.iter().copied().max().unwrap_or(0);
        r.value("completions", completions);
        r.value("dies", (n / k_per_die) as u64);
        r.value("top_sps", k_per_die as u64);
        r.value("start", start);
        r.value("collective_cycles", end.saturating_sub(start));
        r.value("remote_transactions", mesh.remote);
        r.value("link_latency", mesh.latency);
        r.value("skipped_die_cycles", mesh.stats().skipped);
        r.crossings = mesh.crossings.clone();
        r.stats = mesh.stats();
        r.events.sort();
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tapes_of(alg: Algorithm, n: u32) -> Tapes {
        let hal = Hal::for_arch(Arch::Cayman).unwrap();
        tapes(alg, n, 40, &TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap()).unwrap()
    }

    /// Die of a SIGNAL target address.
    fn die_of(addr: u64) -> u32 {
        let c = tpb_models::ncfw::mesh::ChipAddr::decode(addr).unwrap();
        u32::from(c.chip_id) * 2 + u32::from(c.die)
    }

    #[test]
    fn the_ring_sends_every_chunk_to_the_next_die_twice_round() {
        for n in [2u32, 3, 4, 16] {
            let t = tapes_of(Algorithm::Ring, n);
            for (d, die) in t.dies.iter().enumerate() {
                let d = d as u32;
                assert_eq!(die.legs.len() as u32, 2 * (n - 1));
                // Reduce-scatter sends each chunk but one once; the all-gather starts with the reduced chunk (d + 1).
                let scatter: std::collections::BTreeSet<u32> = die.legs[..(n - 1) as usize].iter().map(|l| l.0).collect();
                assert_eq!(scatter.len() as u32, n - 1, "n {n} die {d}: {:?}", die.legs);
                assert!(!scatter.contains(&((d + 1) % n)));
                assert_eq!(die.legs[(n - 1) as usize].0, (d + 1) % n);
                // Every SIGNAL goes to die d + 1.
                for e in die.events[..die.body].iter().filter(|e| e.direct_trigger == 1) {
                    assert_eq!(die_of(e.direct_trigger_sema[0]), (d + 1) % n);
                }
                assert_eq!(die.body as u32, 4 * (n - 1) + 1);
                assert_eq!(*die.remote_waits.last().unwrap(), (40, 2 * (n - 1)));
            }
        }
    }

    #[test]
    fn the_mesh_signals_every_other_die_in_both_phases() {
        for n in [2u32, 4, 5, 16] {
            let t = tapes_of(Algorithm::Mesh, n);
            for (d, die) in t.dies.iter().enumerate() {
                let mut per_sem: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
                let sem_of = |a: u64| ((a & 0x7ff) >> 2) as u32;
                for e in die.events[..die.body].iter().filter(|e| e.direct_trigger == 1) {
                    for &a in e.direct_trigger_sema.iter().filter(|&&a| a != 0) {
                        per_sem.entry(sem_of(a)).or_default().push(die_of(a));
                    }
                }
                let others: Vec<u32> = (0..n).filter(|&k| k != d as u32).collect();
                assert_eq!(per_sem.len(), 2, "n {n} die {d}");
                for dies in per_sem.values_mut() {
                    dies.sort();
                    assert_eq!(*dies, others);
                }
                assert_eq!(die.remote_waits, vec![(40, n - 1), (42, n - 1)]);
            }
        }
    }

    #[test]
    fn the_barrier_reaches_every_die_from_every_die() {
        // Dissemination: after the rounds, die d has (transitively) heard from all.
        for n in [2u32, 3, 4, 7, 8, 16] {
            let t = tapes_of(Algorithm::Barrier, n);
            let rounds = t.sems;
            assert_eq!(1u32 << rounds >= n && 1u32 << (rounds - 1) < n, true, "n {n}: {rounds} rounds");
            let mut heard: Vec<u64> = (0..n).map(|d| 1u64 << d).collect();
            for r in 0..rounds {
                let before = heard.clone();
                for (d, die) in t.dies.iter().enumerate() {
                    let e = die.events[..die.body].iter().filter(|e| e.direct_trigger == 1).nth(r as usize).unwrap();
                    heard[die_of(e.direct_trigger_sema[0]) as usize] |= before[d];
                }
            }
            assert!(heard.iter().all(|h| *h == (1u64 << n) - 1), "n {n}: {heard:x?}");
        }
    }

    /// Leader/reporter: with 4 TOP_SPs a die, instance 0 of each die leads;
    /// the others end by SIGNALling its gather semaphore, it ends by
    /// waiting for the 3 and posting to its own completion semaphore. The
    /// HAL accepts the groups, and refuses one where a second TOP_SP reports
    /// or a completion address has other semaphore bits.
    #[test]
    fn each_die_s_leader_gathers_its_group_and_alone_posts_completion() {
        use tpb_models::hal::collective::check_group;
        let hal = Hal::for_arch(Arch::Cayman).unwrap();
        let t = tapes(Algorithm::Ring, 8, 40, &TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap().with_top_sps(4)).unwrap();
        let sem_of = |a: u64| ((a & 0x7ff) >> 2) as u32;
        let (gather, compl) = (t.gather_sem, t.compl_sem);
        assert_eq!((gather, compl, t.sems_used()), (42, 43, 4));
        for (d, die) in t.dies.iter().enumerate() {
            let last = die.events.last().unwrap();
            assert_eq!(die.events.len(), die.body + 1);
            assert_eq!(die.leader, d % 4 == 0, "node {d}");
            let target = last.direct_trigger_sema[0];
            // Node d is die d / 4's TOP_SP d % 4: the SIGNAL names die d / 4.
            assert_eq!(die_of(target), d as u32 / 4, "node {d}");
            if die.leader {
                assert_eq!((sem_of(target), last.wait_val, sem_of(last.event_wait_sema)), (compl, 3, gather));
                assert_eq!(*die.remote_waits.last().unwrap(), (gather, 3));
            } else {
                assert_eq!((sem_of(target), last.wait_event), (gather, 0));
            }
        }
        for g in [0, 4] {
            let roles = group_roles(&t, Algorithm::Ring, g + 2);
            assert_eq!(roles.iter().map(|r| r.expected_notif_count()).collect::<Vec<_>>(), vec![1, 0, 0, 0]);
            check_group(&roles).unwrap();
            let mut two = roles.clone();
            two[2].ctrl[0].reporter = true;
            assert!(check_group(&two).unwrap_err().to_string().contains("TOP_SP #2 is not the leader"));
            let mut other = roles.clone();
            other[1].slot = vec![SlotWord::End { compl_addrs: vec![hal.get_trigger_addr(1, compl + 1).unwrap()] }];
            assert!(check_group(&other).unwrap_err().to_string().contains("all must share them"));
        }
    }

    /// Channel programs: 6 channels dealt to 3 TOP_SPs a die; each entry
    /// lists its two channels, the flags chain 0 → 1 → 2, TOP_SP 2 reports;
    /// each channel's ring config names this node's receive semaphore and
    /// the next die's owner of it (the kangaring's odd channels the die before).
    #[test]
    fn channel_programs_deal_the_channels_and_chain_the_completion() {
        let hal = Hal::for_arch(Arch::Cayman).unwrap();
        let a = TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap().with_top_sps(3);
        let t = channel_programs(Algorithm::Kangaring, 12, 6, 40, &a).unwrap();
        let word = |dram: &[u8], at: u32| u64::from_le_bytes(dram[at as usize..at as usize + 8].try_into().unwrap());
        let sem_of = |x: u64| ((x & 0x7ff) >> 2) as u32;
        for (node, tape) in t.dies.iter().enumerate() {
            let (d, sp) = (node as u32 / 3, node as u32 % 3);
            let r = tape.ring.as_ref().unwrap();
            assert_eq!(r.channels, vec![sp, sp + 3]);
            assert_eq!(r.entries[0].target, CcOpTarget::ChannelList(1 << sp | 1 << (sp + 3)));
            assert_eq!((r.entries[0].ring_send_complete, r.entries[0].ring_wait_complete, r.entries[0].reporter), (sp < 2, sp > 0, sp == 2), "node {node}");
            assert_eq!(tape.leader, sp == 2);
            assert_eq!(r.steps, 6);
            for &c in &r.channels {
                let at = firmware::ALGO_CONFIGS + firmware::RING_CHANNEL_BYTES * c;
                assert_eq!(word(&r.dram, at), 0x1234);
                assert_eq!(sem_of(word(&r.dram, at + 0x18)), 40 + c);
                let next = word(&r.dram, at + 0x20);
                let want = if c % 2 == 1 { (d + 3) % 4 } else { (d + 1) % 4 };
                assert_eq!((die_of(next), sem_of(next)), (want, 40 + c), "node {node} channel {c}");
            }
            assert_eq!(tape.legs.len(), 12, "two channels, 6 steps");
        }
        let e = channel_programs(Algorithm::Ring, 6, 2, 40, &a).unwrap_err().to_string();
        assert!(e.contains("at least one a TOP_SP"), "{e}");
        let e = channel_programs(Algorithm::Ring, 6, 33, 40, &a).unwrap_err().to_string();
        assert!(e.contains("1 to 32"), "{e}");
        let e = channel_programs(Algorithm::Mesh, 6, 3, 40, &a).unwrap_err().to_string();
        assert!(e.contains("channel programs are the ring"), "{e}");
        let e = tapes(Algorithm::Kangaring, 4, 40, &a).unwrap_err().to_string();
        assert!(e.contains("channel program"), "{e}");
    }

    /// The hierarchical program of every TOP_SP: three entries, HIER with
    /// the leg as sub-type, chained by trigger_next; the last carries the
    /// completion chain; legs 0 and 2 ring over the die, leg 1 over the dies.
    #[test]
    fn hierarchical_programs_chain_an_intra_an_inter_and_an_intra_leg() {
        let hal = Hal::for_arch(Arch::Cayman).unwrap();
        let a = TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap().with_top_sps(4);
        let t = hierarchical_programs(12, 40, &a).unwrap();
        let word = |dram: &[u8], at: u32| u64::from_le_bytes(dram[at as usize..at as usize + 8].try_into().unwrap());
        let sem_of = |x: u64| ((x & 0x7ff) >> 2) as u32;
        for (node, tape) in t.dies.iter().enumerate() {
            let (d, sp) = (node as u32 / 4, node as u32 % 4);
            let r = tape.ring.as_ref().unwrap();
            let shape: Vec<_> = r.entries.iter().map(|e| (e.algo_type, e.algo_sub_type, e.trigger_next, e.reporter)).collect();
            assert_eq!(shape, vec![(AlgType::Hier, 0, true, false), (AlgType::Hier, 1, true, false), (AlgType::Hier, 2, false, sp == 3)], "node {node}");
            assert_eq!((r.entries[2].ring_send_complete, r.entries[2].ring_wait_complete), (sp < 3, sp > 0));
            assert_eq!(r.legs, 3);
            for (l, (die, to)) in [(0u32, (d, (sp + 1) % 4)), (1, ((d + 1) % 3, sp)), (2, (d, (sp + 1) % 4))] {
                let next = word(&r.dram, firmware::ALGO_CONFIGS + firmware::RING_CONFIGS_BYTES * l + 0x20);
                assert_eq!(die_of(next), die, "node {node} leg {l}");
                assert_eq!(sem_of(next), 40 + l);
                assert_eq!(a.inc(node as u32, die * 4 + to, 40 + l).unwrap(), next, "node {node} leg {l}: to TOP_SP {to} of die {die}");
            }
            assert_eq!(tape.legs.len(), 3 + 4 + 3);
        }
        let one = TapeAddrs::new(&hal, 0x1234, Addressing::ChipId).unwrap();
        assert!(hierarchical_programs(4, 40, &one).unwrap_err().to_string().contains("top_sps of 2 or more"));
    }

    #[test]
    fn one_die_is_no_collective_and_too_many_legs_do_not_fit() {
        let hal = Hal::for_arch(Arch::Cayman).unwrap();
        let e = tapes(Algorithm::Ring, 1, 40, &TapeAddrs::new(&hal, 0, Addressing::ChipId).unwrap()).unwrap_err();
        assert!(e.to_string().contains("at least 2 dies"), "{e}");
        let e = DmaLayout::of(32, 62, 4).unwrap_err();
        assert!(e.to_string().contains("SEQ DMA SRAM"), "{e}");
        assert!(DmaLayout::of(16, 30, 2).is_ok());
    }
}
