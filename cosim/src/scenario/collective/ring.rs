//! The ring all-reduce's tapes: 2(N−1) steps, a reduce-scatter then an
//! all-gather; each step WAITs for die d−1's chunk, adds it and sends the
//! chunk on (a DMA leg) and SIGNALs die d+1.
//!
//! Reduce-scatter step t sends chunk (d − t) mod N into die d+1's staging
//! slot, after adding the slot die d−1 filled at step t−1 (from step 1 on);
//! all-gather step 0 adds the last staged chunk, d + 1, now the full sum,
//! and writes it into die d+1's vector, which every later step forwards.

use super::tapes::{Body, Ops};
use super::*;
use super::payload;

/// The tapes on `n` dies, semaphores from `s`.
pub(super) fn tapes(o: &Ops, n: u32, s: u32) -> Result<Body, ScenarioError> {
    let mut dies = Vec::with_capacity(n as usize);
    // s: chunks received from die d - 1; s + 1: this die's DMA legs done.
    let (recv, done, steps) = (s, s + 1, 2 * (n - 1));
    for d in 0..n {
        let mut t = DieTape { units: n, ..DieTape::default() };
        for step in 0..steps {
            let scatter = step < n - 1;
            let chunk = payload::ring_chunk(d, n, step, n - 1);
            let mut e = event(if scatter { MeshEventType::EVT_REDUCE_COPY } else { MeshEventType::EVT_REDUCE_WRITE });
            if step > 0 {
                o.wait(&mut e, d, recv, step)?;
                t.remote_waits.push((recv, step));
            }
            let moves = payload::ring_step(payload::RingData { base: 0, span: 1, stage: 0 }, d, n, step, n - 1, (d + 1) % n);
            t.legs.push((chunk, step));
            let fired = payload::leg(o, &mut t, e, MeshEventType::EVT_REDUCE_COPY_2, &moves);
            t.events.extend(fired);
            let mut e = event(MeshEventType::EVT_REDUCE_LOCAL_HNDSHK);
            o.wait(&mut e, d, done, step + 1)?;
            t.events.extend(o.signal(d, e, MeshEventType::EVT_SYNC, &[((d + 1) % n, recv)])?);
        }
        let mut e = event(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
        o.wait(&mut e, d, recv, steps)?;
        t.remote_waits.push((recv, steps));
        t.events.push(e);
        dies.push(t);
    }
    let sems = 2;
    let final_counts = vec![steps, steps];
    Ok((dies, sems, final_counts))
}
