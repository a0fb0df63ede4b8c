//! The global barrier's tapes: a dissemination barrier; in round r die d
//! SIGNALs die (d + 2^r) mod N and WAITs for its own round-r semaphore,
//! ⌈log2 N⌉ rounds.

use super::tapes::{Body, Ops};
use super::*;

/// The tapes on `n` dies, semaphores from `s`.
pub(super) fn tapes(o: &Ops, n: u32, s: u32) -> Result<Body, ScenarioError> {
    let mut dies = Vec::with_capacity(n as usize);
    // s + r: round r's arrival.
    let rounds = u32::BITS - (n - 1).leading_zeros();
    for d in 0..n {
        let mut t = DieTape::default();
        for r in 0..rounds {
            let mut e = event(if r == 0 { MeshEventType::EVT_FUNCTION_BARRIER_FIRST_COLL } else { MeshEventType::EVT_SYNC });
            if r > 0 {
                o.wait(&mut e, d, s + r - 1, 1)?;
                t.remote_waits.push((s + r - 1, 1));
            }
            t.events.extend(o.signal(d, e, MeshEventType::EVT_SYNC, &[((d + (1 << r)) % n, s + r)])?);
        }
        let mut e = event(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
        o.wait(&mut e, d, s + rounds - 1, 1)?;
        t.remote_waits.push((s + rounds - 1, 1));
        t.events.push(e);
        dies.push(t);
    }
    let sems = rounds;
    let final_counts = vec![1; rounds as usize];
    Ok((dies, sems, final_counts))
}
