//! The mesh all-reduce's tapes: copy the own chunk and SIGNAL every other
//! die, WAIT for N−1, write the reduced chunk and SIGNAL everyone again,
//! WAIT for N−1.

use super::tapes::{Body, Ops};
use super::*;

/// The tapes on `n` dies, semaphores from `s`.
pub(super) fn tapes(o: &Ops, n: u32, s: u32) -> Result<Body, ScenarioError> {
    let mut dies = Vec::with_capacity(n as usize);
    // s: phase-1 arrivals, s + 1: DMA legs done, s + 2: phase-2 writes.
    let (arrive, done, written) = (s, s + 1, s + 2);
    for d in 0..n {
        let mut t = DieTape::new();
        let peers: Vec<u32> = (1..n).map(|k| (d + k) % n).collect();
        let mut e = event(MeshEventType::EVT_REDUCE_COPY);
        o.dma(&mut e);
        t.legs.push((d, 0));
        t.events.push(e);
        let mut e = event(MeshEventType::EVT_INTRA_GRP_BRDCST);
        o.wait(&mut e, d, done, 1)?;
        t.events.extend(o.signal(d, e, MeshEventType::EVT_INTRA_GRP_BRDCST, &peers.iter().map(|&p| (p, arrive)).collect::<Vec<_>>())?);
        let mut e = event(MeshEventType::EVT_REDUCE_WRITE);
        o.wait(&mut e, d, arrive, n - 1)?;
        t.remote_waits.push((arrive, n - 1));
        o.dma(&mut e);
        t.legs.push(((d + 1) % n, 1));
        t.events.push(e);
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
