//! The event tapes: what a tape's events do ([`Ops`]), each algorithm's
//! tapes from its own file (`ring.rs`, `mesh.rs`, `barrier.rs`), and the
//! group's completion after every tape's body.

use super::*;

/// The tapes of `alg` on `n` dies, semaphores from `s`.
/// What a tape's event does, for the algorithms' builders: WAIT, a DMA
/// leg, SIGNALs; addresses from `a`.
pub(super) struct Ops<'a, 'b> {
    pub a: &'a TapeAddrs<'b>,
}

impl Ops<'_, '_> {
    /// WAIT until `die`'s semaphore `sem` reaches `count`.
    pub fn wait(&self, e: &mut MeshEvent, die: u32, sem: u32, count: u32) -> Result<(), ScenarioError> {
        e.wait_event = 1;
        e.event_wait_sema = self.a.read(die, die, sem)?;
        e.wait_val = count;
        Ok(())
    }
    /// A DMA leg: `k` (1 to [`super::payload::FIRES`]) tail-pointer increments of the
    /// TX ring: the stepper fires leg 0's m2s and s2m, then leg 1's.
    pub fn dma_n(&self, e: &mut MeshEvent, k: u32) {
        let t = u64::from(self.a.dma_tail);
        let on = |i: u32| if k > i { t } else { 0 };
        e.dma_trigger = 1;
        e.dma_apb_bcast[0] = DmaApbBcast { m2s_tail_ptr: on(0), s2m_tail_ptr: on(1), mask: 1 };
        if k > 2 {
            e.dma_apb_bcast[1] = DmaApbBcast { m2s_tail_ptr: on(2), s2m_tail_ptr: on(3), mask: 1 };
        }
    }
    /// SIGNAL `targets` (die, semaphore), three per event: the first event
    /// is `first` (already holding a WAIT or a DMA leg), the others `t` alone.
    pub fn signal(&self, d: u32, mut first: MeshEvent, t: MeshEventType, targets: &[(u32, u32)]) -> Result<Vec<MeshEvent>, ScenarioError> {
        let mut out = Vec::new();
        for (k, group) in targets.chunks(3).enumerate() {
            let mut e = if k == 0 { first } else { event(t) };
            e.direct_trigger = 1;
            for (j, &(die, sem)) in group.iter().enumerate() {
                e.direct_trigger_sema[j] = self.a.inc(d, die, sem)?;
            }
            out.push(e);
        }
        if targets.is_empty() {
            first.direct_trigger = 0;
            out.push(first);
        }
        Ok(out)
    }
}

/// An algorithm's tapes before the group's completion: each die's tape,
/// how many semaphores from `s` it uses, and their final counts.
pub(super) type Body = (Vec<DieTape>, u32, Vec<u32>);

/// The tapes of `alg` on `n` dies, semaphores from `s`.
pub fn tapes(alg: Algorithm, n: u32, s: u32, a: &TapeAddrs) -> Result<Tapes, ScenarioError> {
    check_shape(alg, n, a)?;
    let o = Ops { a };
    let (mut dies, sems, final_counts) = match alg {
        Algorithm::Ring => super::ring::tapes(&o, n, s)?,
        Algorithm::Mesh => super::mesh::tapes(&o, n, s)?,
        Algorithm::Barrier => super::barrier::tapes(&o, n, s)?,
        Algorithm::Kangaring => return Err(ScenarioError::File("kangaring runs as a channel program: set [collective] channels (1 to 32)".into())),
        Algorithm::Hierarchical => return hierarchical_programs(n, s, a),
        Algorithm::AllReduce => return Err(ScenarioError::File(data::NO_PLANNER.into())),
    };
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
                o.wait(&mut e, d, gather, k - 1)?;
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
