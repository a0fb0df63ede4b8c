//! The `barrier` scenario (see docs/scenarios.md).

use super::*;
/// `[barrier]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierCfg {
    /// POOL EVT_SEM semaphores: arrivals and departures.
    pub arrive_sem: u32,
    pub depart_sem: u32,
    /// Work units before arriving (core k spins units × (k + 1)).
    pub work: u32,
}

/// `barrier`: see the module table.
pub fn barrier(c: &mut Cosim, b: &BarrierCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let cores = 8u32;
    let mut r = Report::default();
    let k = firmware::q7_barrier(&map, b.arrive_sem, b.depart_sem, cores)?;
    let mut dram = b.work.to_le_bytes().to_vec();
    dram.resize(16, 0);
    init(c, UcodeImages { iram: k.bytes, dram }, false)?;
    let halted = c.run_until(limit, |c| c.q7().iter().all(|q| q.core.halted()));
    let not: Vec<usize> = c.q7().iter().enumerate().filter(|(_, q)| !q.core.halted()).map(|(k, _)| k).collect();
    r.check(c.stats.cycles, halted, format!("cores {not:?} not through the barrier after {limit} cycles"))?;
    let a = Addrs::new(&map, "barrier");
    let (arrive_inc, arrive_read) = (a.sem(Engine::Pool, WindowOp::Inc, b.arrive_sem)?, a.sem(Engine::Pool, WindowOp::Read, b.arrive_sem)?);
    let (depart_inc, arrive_dec, depart_dec) =
        (a.sem(Engine::Pool, WindowOp::Inc, b.depart_sem)?, a.sem(Engine::Pool, WindowOp::Dec, b.arrive_sem)?, a.sem(Engine::Pool, WindowOp::Dec, b.depart_sem)?);
    let q7 = |t: &Txn| matches!(t.master, Master::Core(CoreId::Q7(_)));
    let arrivals: Vec<Txn> = c.log.iter().filter(|t| q7(t) && t.write && t.addr == arrive_inc).copied().collect();
    r.check(c.stats.cycles, arrivals.len() == cores as usize, format!("{} arrivals (INC), expected {cores}", arrivals.len()))?;
    let last_arrival = arrivals.iter().map(|t| t.cycle).max().unwrap_or(0);
    for n in 0..cores as u8 {
        let pass = first(c, |t| t.master == Master::Core(CoreId::Q7(n)) && !t.write && t.addr == arrive_read && t.data >= cores);
        r.check(
            c.stats.cycles,
            pass.is_some_and(|p| p.cycle > last_arrival),
            format!("core {n} passed (read >= {cores}) at {}, after the last arrival at cycle {last_arrival}", at_cycle(pass.map(|p| p.cycle))),
        )?;
        let base = region(c, &format!("q7[{n}].dram"))?;
        let (seen, marker) = (c.read32(base + 4)?, c.read32(base + 8)?);
        r.check(c.stats.cycles, seen >= cores && marker == firmware::BARRIER_DONE, format!("core {n}: saw {seen} when it passed, marker {marker:#x}"))?;
        r.value(format!("q7[{n}].arrived"), arrivals.iter().find(|t| t.master == Master::Core(CoreId::Q7(n))).map_or(0, |t| t.cycle));
    }
    let last_depart = c.log.iter().filter(|t| q7(t) && t.write && t.addr == depart_inc).map(|t| t.cycle).max().unwrap_or(u64::MAX);
    let decs: Vec<Txn> = c.log.iter().filter(|t| t.write && (t.addr == arrive_dec || t.addr == depart_dec)).copied().collect();
    r.check(
        c.stats.cycles,
        decs.len() == 2 && decs.iter().all(|t| t.master == Master::Core(CoreId::Q7(0)) && t.data == cores && t.cycle > last_depart),
        format!("the leader's two DECs by {cores} come after the last departure at cycle {last_depart}: {}", txns(&decs)),
    )?;
    for (what, idx) in [("arrive", b.arrive_sem), ("depart", b.depart_sem)] {
        let v = c.read_checked(a.sem(Engine::Pool, WindowOp::Read, idx)?.into(), u32::MAX)?;
        r.check(c.stats.cycles, v == 0, format!("{what} semaphore {idx} ends at {v}, expected 0"))?;
    }
    r.value("last_arrival", last_arrival);
    r.events = arrivals.iter().map(|t| (t.cycle, format!("{} arrives", t.master))).collect();
    r.stats = c.stats;
    Ok(r)
}

impl Scenario for BarrierCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        let sems = tpb_models::golden::evt_sem::COUNT as u32;
        if self.arrive_sem >= sems || self.depart_sem >= sems || self.arrive_sem == self.depart_sem {
            return Err(ScenarioError::File(format!(
                "{path}: [barrier] arrive_sem = {}, depart_sem = {}: two different POOL semaphores, 0..{sems}",
                self.arrive_sem, self.depart_sem
            )));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec![G::Cores, G::Doorbell]))
    }
}

impl OneSystem for BarrierCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        barrier(c, self, limit)
    }
}
