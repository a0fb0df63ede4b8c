//! The event tapes of each algorithm (ring, mesh, barrier, ...): what each
//! die's stepper WAITs for, copies and SIGNALs.

use super::*;

/// The tapes of `alg` on `n` dies, semaphores from `s`.
pub fn tapes(alg: Algorithm, n: u32, s: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    check_shape(alg, n, a)?;
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

/// Whether `alg` runs on `n` dies addressed as `a` says.
fn check_shape(alg: Algorithm, n: u32, a: &TapeAddrs) -> Result<(), ScenarioError> {
    if n < 2 {
        return Err(ScenarioError::File(format!("{}: a collective needs at least 2 dies, not {n}", alg.name())));
    }
    if a.addressing == Addressing::Neighbor && a.top_sps > 1 {
        return Err(ScenarioError::File(format!("{} with {} TOP_SPs per die: a neighbour route names a die, not a TOP_SP on it (chip-id addressing does)", alg.name(), a.top_sps)));
    }
    if a.addressing == Addressing::Neighbor && (alg != Algorithm::Ring || !n.is_multiple_of(2)) {
        return Err(ScenarioError::File(format!(
            "{} on {n} dies: a neighbour route reaches only the next die (the package's other die, or the next package's), so it serves the ring on an even number of dies",
            alg.name()
        )));
    }
    Ok(())
}
