//! The channel programs (ring / kangaring channels, the hierarchical
//! all-reduce's chained entries) and the TOP_SPs' roles in a group.

use super::payload::{ring_step, ring_tail, Move, RingData};
use super::*;

/// One leg of a TOP_SP's channel program: its cc_op entry's algorithm, its
/// steps (the first `scatter` reduce-scatter) and the channels it owns.
struct LegPlan {
    algo_type: program_data::LegAlg,
    algo_sub_type: u8,
    steps: u32,
    scatter: u32,
    chans: Vec<Chan>,
}

/// A channel of a leg: its number, receive semaphore, the next node on its
/// ring, this node's position on that ring, the ring's length, and where
/// the ring's chunks lie in the node's vector.
struct Chan {
    c: u32,
    sem: u32,
    next: u32,
    pos: u32,
    len: u32,
    data: RingData,
}

/// Descriptors a channel program's DMA leg fires: its m2s and its s2m tail
/// pointer, one increment each (`[D]`); a step with one move pads the first.
const LEG_DESCS: usize = 2;

/// The semaphores every channel program uses past its receive semaphores:
/// DMA legs done, complete_prev, the completion (`s + 32`, `+ 33`, `+ 34`).
fn ring_sems(s: u32) -> (u32, u32, u32) {
    (s + firmware::RING_CHANNELS_MAX, s + firmware::RING_CHANNELS_MAX + 1, s + firmware::RING_CHANNELS_MAX + 2)
}

/// Node `node`'s channel program from its legs, as data
/// ([`program_data::ProgramNode`]: the cc_op entries' legs and channels,
/// the complete flags, the DMA legs in firing order: leg by leg, step by
/// step, channel by channel), lowered ([`program_data::lower_node`]). A
/// leg that only reduce-scatters leaves its last add to the next leg's
/// first DMA leg. Beside it, the legs' (source chunk, leg number).
fn ring_program(node: u32, plans: Vec<LegPlan>, (send, wait): (bool, bool)) -> Result<(program_data::ProgramNode, Vec<(u32, u32)>), ScenarioError> {
    let (mut dma, mut legs, mut pending) = (Vec::new(), Vec::new(), Vec::new());
    for (l, p) in plans.iter().enumerate() {
        for step in 0..p.steps {
            for ch in &p.chans {
                let mut m = ring_step(ch.data, ch.pos, ch.len, step, p.scatter, ch.next);
                legs.push((ch.data.base + super::payload::ring_chunk(ch.pos, ch.len, step, p.scatter) * ch.data.span, legs.len() as u32));
                m.splice(0..0, pending.drain(..));
                if m.len() > LEG_DESCS {
                    return Err(ScenarioError::File(format!("node {node} leg {l} step {step}: {} descriptors in one DMA leg, at most {LEG_DESCS}", m.len())));
                }
                m.splice(0..0, std::iter::repeat_n(Move::Pad, LEG_DESCS - m.len()));
                dma.push([m[0].into(), m[1].into()]);
            }
        }
        if p.steps > 0 && p.steps == p.scatter {
            pending.extend(p.chans.iter().map(|ch| ring_tail(ch.data, ch.pos, ch.len)));
        }
    }
    if !pending.is_empty() {
        return Err(ScenarioError::File(format!("node {node}: its last leg only reduce-scatters, so its sums are never finished")));
    }
    let leg = plans
        .iter()
        .map(|p| program_data::LegData {
            algo_type: p.algo_type,
            sub_type: p.algo_sub_type,
            steps: p.steps,
            scatter: p.scatter,
            channel: p.chans.iter().map(|c| program_data::ChanData { c: c.c, sem: c.sem, next: c.next }).collect(),
        })
        .collect();
    Ok((program_data::ProgramNode { send_complete: send, wait_complete: wait, leg, dma }, legs))
}

/// The nodes' programs lowered, each keeping its legs' record.
fn lowered(nodes: Vec<(program_data::ProgramNode, Vec<(u32, u32)>)>, s: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    let (done_sem, prev_sem, compl_sem) = ring_sems(s);
    let (node, legs): (Vec<_>, Vec<_>) = nodes.into_iter().unzip();
    let mut t = program_data::lower(&program_data::ProgramsData { done_sem, prev_sem, compl_sem, node }, legs.len() as u32, s, a)?;
    for (d, l) in t.dies.iter_mut().zip(legs) {
        d.legs = l;
    }
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
        return Err(ScenarioError::File(format!(
            "{}: channel programs are the ring's, the kangaring's and the hierarchical's (channels = 0 runs it as an event tape)",
            alg.name()
        )));
    }
    if !(1..=firmware::RING_CHANNELS_MAX).contains(&channels) || channels < k {
        return Err(ScenarioError::File(format!("{channels} channels for {k} TOP_SPs a die: 1 to {}, at least one a TOP_SP", firmware::RING_CHANNELS_MAX)));
    }
    check_program_shape(alg, dies, a)?;
    let owners: Vec<(u32, u32)> = (0..channels).map(|c| (c, c % k)).collect();
    let mut out = Vec::with_capacity(n as usize);
    for node in 0..n {
        let (d, sp) = (node / k, node % k);
        // Each owned channel rings over its own `dies` chunks of the vector.
        let chans: Vec<Chan> = owners
            .iter()
            .filter(|o| o.1 == sp)
            .enumerate()
            .map(|(i, &(c, _))| {
                let backward = alg == Algorithm::Kangaring && c % 2 == 1;
                let next = if backward { (d + dies - 1) % dies } else { (d + 1) % dies };
                let pos = if backward { (dies - d) % dies } else { d };
                let data = RingData { base: i as u32 * dies, span: 1, stage: i as u32 * dies };
                Chan { c, sem: s + c, next: next * k + sp, pos, len: dies, data }
            })
            .collect();
        let plan =
            LegPlan { algo_type: if alg == Algorithm::Ring { program_data::LegAlg::Ring } else { program_data::LegAlg::Kangaring }, algo_sub_type: 0, steps: 2 * (dies - 1), scatter: dies - 1, chans };
        out.push(ring_program(node, vec![plan], tpb_models::ncfw::spad::ring_complete_flags(&owners, sp))?);
    }
    lowered(out, s, a)
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
    // The vector: K parts of `dies` chunks. Legs 0 and 2 move whole parts
    // (staged in the first K parts' slots); leg 1 all-reduces the part this
    // TOP_SP owns after leg 0, chunk by chunk (staged past them).
    let parts = RingData { base: 0, span: dies, stage: 0 };
    for node in 0..n {
        let (d, sp) = (node / k, node % k);
        let owned = (sp + 1) % k;
        let intra = |l: u32, scatter: u32| LegPlan {
            algo_type: program_data::LegAlg::Hier,
            algo_sub_type: l as u8,
            steps: k - 1,
            scatter,
            chans: vec![Chan { c: 0, sem: s + l, next: d * k + (sp + 1) % k, pos: sp, len: k, data: parts }],
        };
        let data = RingData { base: owned * dies, span: 1, stage: k * dies };
        let inter = LegPlan {
            algo_type: program_data::LegAlg::Hier,
            algo_sub_type: 1,
            steps: 2 * (dies - 1),
            scatter: dies - 1,
            chans: vec![Chan { c: 0, sem: s + 1, next: ((d + 1) % dies) * k + sp, pos: d, len: dies, data }],
        };
        out.push(ring_program(node, vec![intra(0, k - 1), inter, intra(2, 0)], tpb_models::ncfw::spad::ring_complete_flags(&chain, sp))?);
    }
    lowered(out, s, a)
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
                        Algorithm::Mesh | Algorithm::Barrier | Algorithm::AllReduce => AlgType::Mesh,
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
