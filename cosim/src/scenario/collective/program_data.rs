//! A collective's channel programs as data (`[collective.programs]`):
//! every TOP_SP's CTRL SPAD cc_op entries (a leg each, chained by
//! trigger_next), each leg's channels (its receive semaphore and the next
//! TOP_SP on its ring), the completion flags, and the DMA descriptors its
//! legs fire, in order. The planners ([`super::channel_programs`],
//! [`super::hierarchical_programs`]) build this data and [`lower`] it, so a
//! file's programs and a planner's are lowered by the same code.
//!
//! What the run checks comes from the data: each receive semaphore's count
//! is the steps of the legs that SIGNAL it, the DMA-done count the legs
//! fired, the completion chain's counts the flags of the TOP_SPs before.

use super::data::MoveData;
use super::payload::{Into, Move};
use super::*;
use std::fmt::Write as _;

/// `[collective.programs]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramsData {
    /// Every DMA leg's s2m descriptor completes into it.
    pub done_sem: u32,
    /// complete_prev: a TOP_SP with `send_complete` INCs the next TOP_SP's; one with `wait_complete` waits on its own.
    pub prev_sem: u32,
    /// The reporter INCs its own to post the group's completion.
    pub compl_sem: u32,
    pub node: Vec<ProgramNode>,
}

/// One TOP_SP's program.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramNode {
    /// The last entry's ring_send_complete: SIGNAL the next TOP_SP's `prev_sem` when done.
    #[serde(default)]
    pub send_complete: bool,
    /// The last entry's ring_wait_complete: wait for this TOP_SP's `prev_sem` first.
    #[serde(default)]
    pub wait_complete: bool,
    /// The cc_op entries, a leg each.
    pub leg: Vec<LegData>,
    /// The DMA legs in firing order (leg by leg, step by step, channel by
    /// channel): its m2s and its s2m descriptor; the s2m completes the leg.
    pub dma: Vec<[MoveData; 2]>,
}

/// One cc_op entry's leg.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegData {
    /// The entry's algo_type: `ring`, `kangaring` or `hier`.
    pub algo_type: LegAlg,
    #[serde(default)]
    pub sub_type: u8,
    /// Steps, the first `scatter` a reduce-scatter.
    pub steps: u32,
    pub scatter: u32,
    /// The channels of its channel_list.
    pub channel: Vec<ChanData>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LegAlg {
    Ring,
    Kangaring,
    Hier,
}

/// A channel: its number, the semaphore it receives on, the next node on its ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChanData {
    pub c: u32,
    pub sem: u32,
    pub next: u32,
}

impl LegAlg {
    fn alg(self) -> AlgType {
        match self {
            LegAlg::Ring => AlgType::Ring,
            LegAlg::Kangaring => AlgType::Kangaring,
            LegAlg::Hier => AlgType::Hier,
        }
    }
    fn name(self) -> &'static str {
        match self {
            LegAlg::Ring => "ring",
            LegAlg::Kangaring => "kangaring",
            LegAlg::Hier => "hier",
        }
    }
}

/// More steps than a leg could take on any mesh (a ring of 128 dies takes 254).
const MAX_STEPS: u32 = 1 << 12;

/// Node `node`'s program from its data: the CTRL SPAD entries (chained by
/// trigger_next; the last carries reporter, who is the TOP_SP that sends
/// no completion on, and the complete flags), the DRAM image (each leg's
/// configs and header, the completion header), the descriptors, the WAITs
/// the firmware makes and the SIGNALs it sends.
pub(super) fn lower_node(node: u32, p: &ProgramNode, (done, prev, compl): (u32, u32, u32), n: u32, a: &TapeAddrs) -> Result<DieTape, ScenarioError> {
    let at = |why: String| ScenarioError::File(format!("[collective.programs] node {node}: {why}"));
    let Some(last) = p.leg.len().checked_sub(1) else { return Err(at("no leg: a program has at least one cc_op entry".into())) };
    let reporter = !p.send_complete;
    let mut t = DieTape::default();
    let mut dram = vec![0u8; (firmware::RING_LEGS + 16 * p.leg.len() as u32) as usize];
    let put = |dram: &mut Vec<u8>, at: u32, v: u64| dram[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
    let (mut entries, mut fired) = (Vec::new(), 0u32);
    for (l, leg) in p.leg.iter().enumerate() {
        if leg.scatter > leg.steps || leg.steps > MAX_STEPS || leg.channel.is_empty() {
            return Err(at(format!("leg {l}: scatter {} of {} steps (at most {MAX_STEPS}), {} channels (at least one)", leg.scatter, leg.steps, leg.channel.len())));
        }
        let configs = firmware::ALGO_CONFIGS + firmware::RING_CONFIGS_BYTES * l as u32;
        let head = firmware::RING_LEGS + 16 * l as u32;
        for (at, v) in [(head, leg.steps), (head + 4, leg.scatter), (head + 8, tpb_models::xtensa::config::DRAM_BASE + configs)] {
            dram[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut list = 0u32;
        for ch in &leg.channel {
            if ch.c >= firmware::RING_CHANNELS_MAX || ch.next >= n || list & 1 << ch.c != 0 {
                return Err(at(format!("leg {l}: channel {} to node {} (channels 0..{}, each once; {n} nodes)", ch.c, ch.next, firmware::RING_CHANNELS_MAX)));
            }
            list |= 1 << ch.c;
            let at = configs + firmware::RING_CHANNEL_BYTES * ch.c;
            put(&mut dram, at, u64::from(a.dma_tail));
            put(&mut dram, at + 8, u64::from(a.dma_tail));
            put(&mut dram, at + 0x18, a.read(node, node, ch.sem)?);
            put(&mut dram, at + 0x20, a.inc(node, ch.next, ch.sem)?);
            t.remote_waits.extend((1..=leg.steps).map(|step| (ch.sem, step)));
        }
        fired += leg.steps * leg.channel.len() as u32;
        entries.push(SpadCtrlEntry {
            cc_op: true,
            algo_type: leg.algo_type.alg(),
            algo_sub_type: leg.sub_type,
            trigger_next: l < last,
            reporter: l == last && reporter,
            ring_wait_complete: l == last && p.wait_complete,
            ring_send_complete: l == last && p.send_complete,
            safe_mode: false,
            unique_tensors: false,
            target: CcOpTarget::ChannelList(list),
        });
    }
    if p.dma.len() != fired as usize {
        return Err(at(format!("{} DMA legs given; its legs' steps × channels fire {fired}", p.dma.len())));
    }
    for pair in &p.dma {
        for (i, m) in pair.iter().enumerate() {
            let (mv, done) = m.lower(n).map_err(at)?;
            if done {
                return Err(at("done = true: the s2m descriptor (the second) completes each DMA leg, none other".into()));
            }
            t.moves.push((mv, i == 1));
        }
    }
    put(&mut dram, firmware::RING_HEADER, a.read(node, node, done)?);
    put(&mut dram, firmware::RING_HEADER + 8, a.read(node, node, prev)?);
    if p.send_complete {
        put(&mut dram, firmware::RING_HEADER + 0x10, a.inc(node, node + 1, prev)?);
    }
    if p.wait_complete {
        t.remote_waits.push((prev, 1));
    }
    if reporter {
        let c = a.inc(node, node, compl)?;
        put(&mut dram, firmware::RING_HEADER + 0x18, c);
        t.compl_addr = Some(c);
    }
    t.leader = reporter;
    t.units = t.moves.iter().map(|(m, _)| super::data::reach(m)).max().unwrap_or(0);
    let lp = &p.leg[last];
    t.ring = Some(RingProgram { entries, channels: lp.channel.iter().map(|c| c.c).collect(), steps: lp.steps, legs: p.leg.len() as u32, dram, data: p.clone() });
    Ok(t)
}

/// The programs `data` gives for `n` nodes, `a` naming them; what each
/// semaphore must end at comes from the data: the SIGNALs of the legs on
/// it, the DMA legs the node fired, the completions sent to it.
pub fn lower(data: &ProgramsData, n: u32, first: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    if data.node.len() != n as usize {
        return Err(ScenarioError::File(format!("[collective.programs] gives {} nodes' programs; {} dies of {} TOP_SPs are {n} nodes", data.node.len(), n / a.top_sps, a.top_sps)));
    }
    let mut top = super::data::protocol_sems("programs", &[("done_sem", data.done_sem), ("prev_sem", data.prev_sem), ("compl_sem", data.compl_sem)], first)?;
    let sems = (data.done_sem, data.prev_sem, data.compl_sem);
    let mut dies = data.node.iter().enumerate().map(|(d, p)| lower_node(d as u32, p, sems, n, a)).collect::<Result<Vec<_>, _>>()?;
    // Each node's receive semaphores, in its legs' order: the steps of the
    // legs whose channel names it next on that semaphore.
    let signalled = |to: u32, sem: u32| -> u32 { data.node.iter().flat_map(|p| &p.leg).flat_map(|l| l.channel.iter().filter(move |c| c.next == to && c.sem == sem).map(move |_| l.steps)).sum() };
    for (d, t) in dies.iter_mut().enumerate() {
        let d = d as u32;
        let p = &data.node[d as usize];
        for ch in p.leg.iter().flat_map(|l| &l.channel) {
            if !(first..256).contains(&ch.sem) {
                return Err(ScenarioError::File(format!("[collective.programs] node {d}: semaphore {}: from first_sem = {first} to 255", ch.sem)));
            }
            top = top.max(ch.sem);
            t.final_counts.push((ch.sem, signalled(d, ch.sem)));
        }
        let fired = t.moves.len() as u32 / 2;
        let sent_prev = u32::from(d > 0 && data.node[d as usize - 1].send_complete);
        t.final_counts.extend([(data.done_sem, fired), (data.prev_sem, sent_prev), (data.compl_sem, u32::from(t.leader))]);
    }
    Ok(Tapes { dies, sems: Tapes::sems_of(first, top), gather_sem: data.prev_sem, compl_sem: data.compl_sem, done_sem: data.done_sem, group: a.top_sps })
}

/// `t`'s channel programs as `[collective.programs]` data.
pub fn emit(t: &Tapes, k: u32) -> Result<String, ScenarioError> {
    let mut out = String::new();
    let _ = writeln!(out, "[collective.programs]");
    let _ = writeln!(out, "done_sem = {}    # every DMA leg's s2m descriptor completes into it", t.done_sem);
    let _ = writeln!(out, "prev_sem = {}    # complete_prev: send_complete INCs the next TOP_SP's, wait_complete waits on its own", t.gather_sem);
    let _ = writeln!(out, "compl_sem = {}   # the reporter (no send_complete) INCs its own to post the group's completion", t.compl_sem);
    for (d, tape) in t.dies.iter().enumerate() {
        let p = &tape.ring.as_ref().ok_or_else(|| ScenarioError::File(format!("node {d}: an event tape among channel programs")))?.data;
        let _ = writeln!(out, "\n[[collective.programs.node]]   # node {d}: {}", crate::mesh::node_name(d, k as usize));
        let _ = writeln!(out, "send_complete = {}\nwait_complete = {}\nleg = [", p.send_complete, p.wait_complete);
        for l in &p.leg {
            let chans: Vec<String> = l.channel.iter().map(|c| format!("{{ c = {}, sem = {}, next = {} }}", c.c, c.sem, c.next)).collect();
            let sub = if l.sub_type != 0 { format!(", sub_type = {}", l.sub_type) } else { String::new() };
            let _ = writeln!(out, "  {{ algo_type = \"{}\"{sub}, steps = {}, scatter = {}, channel = [{}] }},", l.algo_type.name(), l.steps, l.scatter, chans.join(", "));
        }
        let _ = writeln!(out, "]\ndma = [   # [m2s, s2m] a DMA leg, in firing order");
        for pair in tape.moves.chunks(2) {
            let ms: Vec<String> = pair.iter().map(|(m, _)| super::data::move_text(m, false)).collect();
            let _ = writeln!(out, "  [{}],", ms.join(", "));
        }
        out.push_str("]\n");
    }
    Ok(out)
}

/// A [`Move`] as the data writes it.
impl From<Move> for MoveData {
    fn from(m: Move) -> MoveData {
        let span = |s: u32| (s != 1).then_some(s);
        match m {
            Move::Add { chunk, slot, span: s } => MoveData { add: Some(chunk), slot: Some(slot), span: span(s), ..MoveData::default() },
            Move::Send { chunk, to, into, span: s } => {
                MoveData { send: Some(chunk), to: Some(to), stage: if let Into::Stage(k) = into { Some(k) } else { None }, span: span(s), ..MoveData::default() }
            }
            Move::Pad => MoveData { pad: true, ..MoveData::default() },
        }
    }
}
