//! The mesh all-reduce's tapes: die d owns chunk d. Send chunk c of the
//! own vector to die c's staging slot d, for every other die c, and SIGNAL
//! every other die; WAIT for N−1; add the N−1 staged chunks into chunk d,
//! write it into every other die's chunk d and SIGNAL everyone again; WAIT
//! for N−1.

use super::tapes::{Body, Ops};
use super::*;

/// The tapes on `n` dies, semaphores from `s`.
pub(super) fn tapes(o: &Ops, n: u32, s: u32) -> Result<Body, ScenarioError> {
    let mut dies = Vec::with_capacity(n as usize);
    // s: phase-1 arrivals, s + 1: DMA legs done, s + 2: phase-2 writes.
    let (arrive, done, written) = (s, s + 1, s + 2);
    for d in 0..n {
        let mut t = DieTape { units: n, ..DieTape::default() };
        let peers: Vec<u32> = (1..n).map(|k| (d + k) % n).collect();
        let sends: Vec<Move> = peers.iter().map(|&c| Move::Send { chunk: c, to: c, into: Into::Stage(d), span: 1 }).collect();
        t.legs.push((d, 0));
        let fired = super::payload::leg(o, &mut t, event(MeshEventType::EVT_REDUCE_COPY), MeshEventType::EVT_REDUCE_COPY_2, &sends);
        t.events.extend(fired);
        let mut e = event(MeshEventType::EVT_INTRA_GRP_BRDCST);
        o.wait(&mut e, d, done, 1)?;
        t.events.extend(o.signal(d, e, MeshEventType::EVT_INTRA_GRP_BRDCST, &peers.iter().map(|&p| (p, arrive)).collect::<Vec<_>>())?);
        let mut e = event(MeshEventType::EVT_REDUCE_WRITE);
        o.wait(&mut e, d, arrive, n - 1)?;
        t.remote_waits.push((arrive, n - 1));
        let mut moves: Vec<Move> = peers.iter().map(|&s| Move::Add { chunk: d, slot: s, span: 1 }).collect();
        moves.extend(peers.iter().map(|&p| Move::Send { chunk: d, to: p, into: Into::Acc, span: 1 }));
        t.legs.push(((d + 1) % n, 1));
        let fired = super::payload::leg(o, &mut t, e, MeshEventType::EVT_REDUCE_COPY_2, &moves);
        t.events.extend(fired);
        let mut e = event(MeshEventType::EVT_LOCAL_AND_POD_GRP_BRDCST);
        o.wait(&mut e, d, done, 2)?;
        t.events.extend(o.signal(d, e, MeshEventType::EVT_LOCAL_AND_POD_GRP_BRDCST_2, &peers.iter().map(|&p| (p, written)).collect::<Vec<_>>())?);
        let mut e = event(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
        o.wait(&mut e, d, written, n - 1)?;
        t.remote_waits.push((written, n - 1));
        t.events.push(e);
        dies.push(t);
    }
    let sems = 3;
    let final_counts = vec![n - 1, 2, n - 1];
    Ok((dies, sems, final_counts))
}
