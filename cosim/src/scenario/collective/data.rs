//! A collective's tapes as data (`[collective.tapes]`): every node's
//! mesh events with seed 003's fields (a WAIT, a DMA leg, up to three
//! SIGNALs, the event type), each DMA leg's descriptors, and the three
//! semaphores of the protocol. [`lower`] turns the data into the programs
//! a planner would build; [`emit`] writes a planner's programs as data.
//!
//! What a run is checked against comes from the data and the collective's
//! definition, never from a planner: each semaphore's final count is the
//! SIGNALs the tapes send it (and the DMA completions, for `done_sem`), a
//! WAIT is checked as crossing dies when another node SIGNALs its
//! semaphore, and every vector against [`super::owed`].

use super::payload::{Into, Move, FIRES};
use super::tapes::Ops;
use super::*;
use std::collections::HashMap;
use std::fmt::Write as _;

/// `[collective.tapes]`: every node's tape.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TapesData {
    /// The semaphore every DMA leg's last descriptor completes into.
    pub done_sem: u32,
    /// The leader's semaphore its group's other TOP_SPs SIGNAL when their tape is done.
    pub gather_sem: u32,
    /// The leader's semaphore it INCs to post the group's completion.
    pub compl_sem: u32,
    /// Node `die × top_sps + instance`'s tape, in node order.
    pub node: Vec<NodeData>,
}

/// One node's tape.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeData {
    #[serde(default)]
    pub event: Vec<EventData>,
}

/// One mesh event (DIGEST §7): what the stepper does with it, in order:
/// the WAIT, the DMA leg, the SIGNALs.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventData {
    /// `event_type`: a seed name (`EVT_REDUCE_COPY`) or a number; a label
    /// for `mesh_tape.S`, the handler for the NCFW stepper.
    #[serde(rename = "type")]
    pub event_type: EventType,
    /// `wait_event`, `event_wait_sema`, `wait_val`: until this node's semaphore reaches the count.
    pub wait: Option<Wait>,
    /// `dma_trigger`, `dma_apb_bcast`: the leg's descriptors, a TX-ring tail increment each (at most 4).
    #[serde(default)]
    pub dma: Vec<MoveData>,
    /// `direct_trigger`, `direct_trigger_sema`: INC these semaphores (at most 3).
    #[serde(default)]
    pub signal: Vec<SemAt>,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(untagged)]
pub enum EventType {
    Number(u8),
    Name(String),
}

#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wait {
    pub sem: u32,
    pub count: u32,
}

#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemAt {
    pub node: u32,
    pub sem: u32,
}

/// One DMA descriptor ([`Move`]): `{ add = C, slot = S }` adds staging
/// slot S into chunk C; `{ send = C, to = N, stage = S }` writes chunk C
/// into node N's staging slot S, or without `stage` into its chunk C;
/// `{ pad = true }` moves nothing. `span` chunks (1), `done` completes the leg.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveData {
    pub add: Option<u32>,
    pub slot: Option<u32>,
    pub send: Option<u32>,
    pub to: Option<u32>,
    pub stage: Option<u32>,
    pub span: Option<u32>,
    #[serde(default)]
    pub pad: bool,
    #[serde(default)]
    pub done: bool,
}

impl MoveData {
    pub(super) fn lower(&self, n: u32) -> Result<(Move, bool), String> {
        let span = self.span.unwrap_or(1);
        let m = match *self {
            MoveData { add: Some(chunk), slot: Some(slot), send: None, to: None, stage: None, pad: false, .. } => Move::Add { chunk, slot, span },
            MoveData { send: Some(chunk), to: Some(to), add: None, slot: None, pad: false, .. } => {
                if to >= n {
                    return Err(format!("send to node {to}: there are {n} nodes"));
                }
                Move::Send { chunk, to, into: self.stage.map_or(Into::Acc, Into::Stage), span }
            }
            MoveData { pad: true, add: None, slot: None, send: None, to: None, stage: None, span: None, .. } => Move::Pad,
            _ => return Err("a move is { add = C, slot = S }, { send = C, to = N } (with stage = S into a staging slot), or { pad = true }".into()),
        };
        if span == 0 {
            return Err("span = 0 moves nothing: leave it out for 1".into());
        }
        let far = [self.add, self.slot, self.send, self.stage].into_iter().flatten().map(|c| u64::from(c) + u64::from(span)).max().unwrap_or(0);
        if far > MAX_CHUNKS {
            return Err(format!("chunks or slots up to {far}: the SEQ DMA SRAM holds far fewer than {MAX_CHUNKS}"));
        }
        Ok((m, self.done))
    }
}

/// More chunks or staging slots than any node's DMA SRAM could hold
/// (its size is checked exactly when the layout is made).
const MAX_CHUNKS: u64 = 1 << 16;

/// Why an all-reduce of data alone cannot be planned.
pub(super) const NO_PLANNER: &str = "algorithm = \"all-reduce\" has no planner: give every node's tape in [collective.tapes]";

/// The programs `data` gives for `n` nodes, semaphores from `first`, addresses from `a`.
pub fn lower(data: &TapesData, n: u32, first: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    let k = a.top_sps;
    if data.node.len() != n as usize {
        return Err(ScenarioError::File(format!("[collective.tapes] gives {} nodes' tapes; {} dies of {k} TOP_SPs are {n} nodes", data.node.len(), n / k)));
    }
    let o = Ops { a };
    let mut top = protocol_sems("tapes", &[("done_sem", data.done_sem), ("gather_sem", data.gather_sem), ("compl_sem", data.compl_sem)], first)?;
    let mut dies = Vec::with_capacity(n as usize);
    for (d, node) in data.node.iter().enumerate() {
        let d = d as u32;
        let mut t = DieTape { leader: d.is_multiple_of(k), ..DieTape::default() };
        for (i, ev) in node.event.iter().enumerate() {
            let at = |why: String| ScenarioError::File(format!("[collective.tapes] node {d} event {i}: {why}"));
            let mut e = event(ev.event_type.lower().map_err(at)?);
            let mut sem = |s: u32| -> Result<u32, ScenarioError> {
                if !(first..256).contains(&s) {
                    return Err(at(format!("semaphore {s}: the tapes use semaphores from first_sem = {first} to 255")));
                }
                top = top.max(s);
                Ok(s)
            };
            if let Some(w) = ev.wait {
                if w.count == 0 {
                    return Err(at("a WAIT for count = 0 passes at once: leave the wait out".into()));
                }
                o.wait(&mut e, d, sem(w.sem)?, w.count)?;
            }
            if ev.dma.len() > FIRES as usize {
                return Err(at(format!("{} DMA descriptors: an event fires at most {FIRES} (its two dma_apb_bcast legs, m2s and s2m each)", ev.dma.len())));
            }
            for m in &ev.dma {
                t.moves.push(m.lower(n).map_err(at)?);
            }
            if !ev.dma.is_empty() {
                o.dma_n(&mut e, ev.dma.len() as u32);
            }
            if ev.signal.len() > 3 {
                return Err(at(format!("{} SIGNALs: direct_trigger_sema holds 3", ev.signal.len())));
            }
            for (j, s) in ev.signal.iter().enumerate() {
                if s.node >= n {
                    return Err(at(format!("SIGNAL to node {}: there are {n} nodes", s.node)));
                }
                e.direct_trigger = 1;
                e.direct_trigger_sema[j] = a.inc(d, s.node, sem(s.sem)?)?;
                if s.node == d && s.sem == data.compl_sem {
                    t.compl_addr = Some(e.direct_trigger_sema[j]);
                }
            }
            let ends_body = ev.signal.iter().any(|s| (s.node, s.sem) == (d, data.compl_sem) || s.sem == data.gather_sem);
            if ends_body && t.body == 0 {
                t.body = t.events.len();
            }
            t.events.push(e);
        }
        if t.body == 0 {
            t.body = t.events.len();
        }
        t.units = t.moves.iter().map(|(m, _)| reach(m)).max().unwrap_or(0);
        dies.push(t);
    }
    derive_counts(data, &mut dies, first, top);
    Ok(Tapes { dies, sems: Tapes::sems_of(first, top), gather_sem: data.gather_sem, compl_sem: data.compl_sem, done_sem: data.done_sem, group: k })
}

/// The protocol's semaphores of `[collective.TABLE]`, each within the
/// tapes' range (`first`..256): the highest of them.
pub(super) fn protocol_sems(table: &str, sems: &[(&str, u32)], first: u32) -> Result<u32, ScenarioError> {
    for &(name, s) in sems {
        if !(first..256).contains(&s) {
            return Err(ScenarioError::File(format!("[collective.{table}] {name} = {s}: the semaphores run from first_sem = {first} to 255")));
        }
    }
    Ok(sems.iter().map(|x| x.1).max().unwrap_or(first))
}

/// The chunks a move's vector side reaches.
pub(super) fn reach(m: &Move) -> u32 {
    match *m {
        Move::Add { chunk, span, .. } | Move::Send { chunk, span, .. } => chunk + span,
        Move::Pad => 0,
    }
}

/// From the data alone: each node's semaphores' final counts (the SIGNALs
/// sent to it, and its completed DMA legs on `done_sem`), and which of its
/// WAITs wait on another node's SIGNALs.
fn derive_counts(data: &TapesData, dies: &mut [DieTape], first: u32, top: u32) {
    let mut signals: HashMap<(u32, u32), u32> = HashMap::new();
    let mut from_others: HashMap<(u32, u32), bool> = HashMap::new();
    for (d, node) in data.node.iter().enumerate() {
        for s in node.event.iter().flat_map(|e| &e.signal) {
            *signals.entry((s.node, s.sem)).or_default() += 1;
            if s.node != d as u32 {
                from_others.insert((s.node, s.sem), true);
            }
        }
    }
    for (d, t) in dies.iter_mut().enumerate() {
        let d = d as u32;
        let done = t.moves.iter().filter(|(_, c)| *c).count() as u32;
        t.final_counts = (first..=top).map(|s| (s, signals.get(&(d, s)).copied().unwrap_or(0) + if s == data.done_sem { done } else { 0 })).collect();
        t.remote_waits =
            data.node[d as usize].event.iter().filter_map(|e| e.wait).filter(|w| from_others.contains_key(&(d, w.sem))).map(|w| (w.sem, w.count)).collect();
    }
}

impl EventType {
    fn lower(&self) -> Result<MeshEventType, String> {
        match self {
            EventType::Number(v) => Ok(MeshEventType(*v)),
            EventType::Name(s) => MeshEventType::from_name(s).ok_or_else(|| format!("type '{s}' is no seed event name (EVT_SYNC, EVT_REDUCE_COPY, …; or give its number)")),
        }
    }
}

/// `t`, planned for `n` nodes with semaphores from `first`, as the
/// `[collective.tapes]` data [`lower`] reads back: every address named as
/// the node and semaphore it reaches (channel programs: as
/// `[collective.programs]`, [`program_data::emit`]).
pub fn emit(t: &Tapes, n: u32, first: u32, a: &TapeAddrs) -> Result<String, ScenarioError> {
    if t.dies.iter().any(|d| d.ring.is_some()) {
        return program_data::emit(t, t.group);
    }
    let top = first + t.sems_used();
    let mut out = String::new();
    let _ = writeln!(out, "[collective.tapes]");
    let _ = writeln!(out, "done_sem = {}     # every DMA leg's last descriptor completes into it", t.done_sem);
    let _ = writeln!(out, "gather_sem = {}   # a group's other TOP_SPs SIGNAL their leader's when their tape is done", t.gather_sem);
    let _ = writeln!(out, "compl_sem = {}    # the leader INCs its own to post the group's completion", t.compl_sem);
    for (d, tape) in t.dies.iter().enumerate() {
        let d = d as u32;
        let mut inc: HashMap<u64, (u32, u32)> = HashMap::new();
        let mut read: HashMap<u64, u32> = HashMap::new();
        for s in first..top.min(256) {
            read.insert(a.read(d, d, s)?, s);
            // This node first, then the next: a neighbour route names any
            // other die by one address, which reads back as the next die.
            for x in (0..n).map(|i| (d + i) % n) {
                inc.entry(a.inc(d, x, s)?).or_insert((x, s));
            }
        }
        let _ = writeln!(out, "\n[[collective.tapes.node]]   # node {d}: {}\nevent = [", crate::mesh::node_name(d as usize, t.group as usize));
        let mut moves = tape.moves.iter();
        for e in &tape.events {
            let unknown = |what: &str, v: u64| ScenarioError::File(format!("node {d}: {what} {v:#x} names no semaphore from {first} of any node"));
            let mut f = vec![format!("type = {}", MeshEventType(e.event_type).name().map_or(e.event_type.to_string(), |s| format!("\"{s}\"")))];
            if e.wait_event != 0 {
                let s = read.get(&e.event_wait_sema).ok_or_else(|| unknown("event_wait_sema", e.event_wait_sema))?;
                f.push(format!("wait = {{ sem = {s}, count = {} }}", e.wait_val));
            }
            if e.dma_trigger != 0 {
                let fires = e.dma_apb_bcast.iter().flat_map(|b| [b.m2s_tail_ptr, b.s2m_tail_ptr]).filter(|&p| p != 0).count();
                let ms: Vec<String> = moves.by_ref().take(fires).map(|(m, done)| move_text(m, *done)).collect();
                f.push(format!("dma = [{}]", ms.join(", ")));
            }
            if e.direct_trigger != 0 {
                let mut ss = Vec::new();
                for &p in e.direct_trigger_sema.iter().filter(|&&p| p != 0) {
                    let (x, s) = inc.get(&p).ok_or_else(|| unknown("direct_trigger_sema", p))?;
                    ss.push(format!("{{ node = {x}, sem = {s} }}"));
                }
                f.push(format!("signal = [{}]", ss.join(", ")));
            }
            let _ = writeln!(out, "  {{ {} }},", f.join(", "));
        }
        out.push_str("]\n");
        if moves.next().is_some() {
            return Err(ScenarioError::File(format!("node {d}: its plan has DMA descriptors no event fires")));
        }
    }
    Ok(out)
}

pub(super) fn move_text(m: &Move, done: bool) -> String {
    let span = |s: u32| if s == 1 { String::new() } else { format!(", span = {s}") };
    let done = if done { ", done = true" } else { "" };
    match *m {
        Move::Add { chunk, slot, span: s } => format!("{{ add = {chunk}, slot = {slot}{}{done} }}", span(s)),
        Move::Send { chunk, to, into: Into::Stage(k), span: s } => format!("{{ send = {chunk}, to = {to}, stage = {k}{}{done} }}", span(s)),
        Move::Send { chunk, to, into: Into::Acc, span: s } => format!("{{ send = {chunk}, to = {to}{}{done} }}", span(s)),
        Move::Pad => format!("{{ pad = true{done} }}"),
    }
}
