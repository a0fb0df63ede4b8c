//! The channel programs (ring / kangaring channels, the hierarchical
//! all-reduce's chained entries) and the TOP_SPs' roles in a group.

use super::payload::{ring_step, ring_tail, Move, RingData};
use super::*;

/// One leg of a TOP_SP's channel program: its cc_op entry's algorithm, its
/// steps (the first `scatter` reduce-scatter) and the channels it owns.
struct LegPlan {
    algo_type: AlgType,
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

/// Node `node`'s channel program from its legs: the CTRL SPAD entries
/// (chained by trigger_next; the last carries reporter and the complete
/// flags), the DRAM image (each leg's configs and header, the completion
/// header), the DMA legs in firing order (leg by leg, step by step, channel
/// by channel) with their descriptors, the WAITs and final counts the
/// checks hold it to. A leg that only reduce-scatters leaves its last add
/// to the next leg's first DMA leg.
fn ring_program(node: u32, plans: Vec<LegPlan>, (send, wait): (bool, bool), s: u32, a: &TapeAddrs) -> Result<DieTape, ScenarioError> {
    let (done, prev, compl) = ring_sems(s);
    let reporter = !send;
    let mut t = DieTape::default();
    let mut dram = vec![0u8; (firmware::RING_LEGS + 16 * plans.len() as u32) as usize];
    let put = |dram: &mut Vec<u8>, at: u32, v: u64| dram[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
    let (mut entries, mut fired, mut pending) = (Vec::new(), 0u32, Vec::new());
    let last = plans.len() - 1;
    for (l, p) in plans.iter().enumerate() {
        let configs = firmware::ALGO_CONFIGS + firmware::RING_CONFIGS_BYTES * l as u32;
        let head = firmware::RING_LEGS + 16 * l as u32;
        for (at, v) in [(head, p.steps), (head + 4, p.scatter), (head + 8, tpb_models::xtensa::config::DRAM_BASE + configs)] {
            dram[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut list = 0u32;
        for ch in &p.chans {
            list |= 1 << ch.c;
            let at = configs + firmware::RING_CHANNEL_BYTES * ch.c;
            put(&mut dram, at, u64::from(a.dma_tail));
            put(&mut dram, at + 8, u64::from(a.dma_tail));
            put(&mut dram, at + 0x18, a.read(node, node, ch.sem)?);
            put(&mut dram, at + 0x20, a.inc(node, ch.next, ch.sem)?);
            t.final_counts.push((ch.sem, p.steps));
            t.remote_waits.extend((1..=p.steps).map(|step| (ch.sem, step)));
        }
        for step in 0..p.steps {
            for ch in &p.chans {
                let mut m = ring_step(ch.data, ch.pos, ch.len, step, p.scatter, ch.next);
                t.legs.push((ch.data.base + super::payload::ring_chunk(ch.pos, ch.len, step, p.scatter) * ch.data.span, t.legs.len() as u32));
                m.splice(0..0, pending.drain(..));
                if m.len() > LEG_DESCS {
                    return Err(ScenarioError::File(format!("node {node} leg {l} step {step}: {} descriptors in one DMA leg, at most {LEG_DESCS}", m.len())));
                }
                m.splice(0..0, std::iter::repeat_n(Move::Pad, LEG_DESCS - m.len()));
                t.moves.extend(m.iter().enumerate().map(|(i, &x)| (x, i == LEG_DESCS - 1)));
            }
        }
        if p.steps > 0 && p.steps == p.scatter {
            pending.extend(p.chans.iter().map(|ch| ring_tail(ch.data, ch.pos, ch.len)));
        }
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
    if !pending.is_empty() {
        return Err(ScenarioError::File(format!("node {node}: its last leg only reduce-scatters, so its sums are never finished")));
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
    t.ring = Some(RingProgram { entries, channels: p.chans.iter().map(|c| c.c).collect(), steps: p.steps, legs: plans.len() as u32, dram });
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
        let units = chans.len() as u32 * dies;
        let plan =
            LegPlan { algo_type: if alg == Algorithm::Ring { AlgType::Ring } else { AlgType::Kangaring }, algo_sub_type: 0, steps: 2 * (dies - 1), scatter: dies - 1, chans };
        let mut t = ring_program(node, vec![plan], tpb_models::ncfw::spad::ring_complete_flags(&owners, sp), s, a)?;
        t.units = units;
        out.push(t);
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
    // The vector: K parts of `dies` chunks. Legs 0 and 2 move whole parts
    // (staged in the first K parts' slots); leg 1 all-reduces the part this
    // TOP_SP owns after leg 0, chunk by chunk (staged past them).
    let parts = RingData { base: 0, span: dies, stage: 0 };
    for node in 0..n {
        let (d, sp) = (node / k, node % k);
        let owned = (sp + 1) % k;
        let intra = |l: u32, scatter: u32| LegPlan {
            algo_type: AlgType::Hier,
            algo_sub_type: l as u8,
            steps: k - 1,
            scatter,
            chans: vec![Chan { c: 0, sem: s + l, next: d * k + (sp + 1) % k, pos: sp, len: k, data: parts }],
        };
        let data = RingData { base: owned * dies, span: 1, stage: k * dies };
        let inter = LegPlan {
            algo_type: AlgType::Hier,
            algo_sub_type: 1,
            steps: 2 * (dies - 1),
            scatter: dies - 1,
            chans: vec![Chan { c: 0, sem: s + 1, next: ((d + 1) % dies) * k + sp, pos: d, len: dies, data }],
        };
        let mut t = ring_program(node, vec![intra(0, k - 1), inter, intra(2, 0)], tpb_models::ncfw::spad::ring_complete_flags(&chain, sp), s, a)?;
        t.units = k * dies;
        out.push(t);
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
