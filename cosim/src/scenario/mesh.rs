//! The `mesh` scenario on two dies, and the event tape each TOP_SP runs (see docs/scenarios.md).

use super::*;
/// `[mesh]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshCfg {
    /// First of the 4 TOP_SP semaphores the tape uses.
    pub first_sem: u32,
}

/// The event tape of die `d` of two, on semaphores `s..s+4` (see `mesh.toml`).
pub fn mesh_tape(hal: &Hal, d: u32, s: u32, dma_tail: u32) -> Result<Vec<MeshEvent>, ScenarioError> {
    let peer = 1 - d;
    // sp_base[0] is die 0's TOP_SP, sp_base[8] the same instance on the mirror die (bit 47).
    let sema = |die: u32, i: u32| hal.get_trigger_addr(8 * die, s + i);
    let map = &hal.ctx().ok_or(ScenarioError::NotApplicable { scenario: "mesh", arch: "the HAL's target", why: "it has no generation" })?.map;
    let sem = SemWindows::of(map)?;
    let read = |die: u32, i: u32| -> Result<u64, ScenarioError> { Ok(sema(die, i)? - u64::from(sem.inc - sem.read)) };
    let ev = |t: MeshEventType| MeshEvent { event_type: t.0, ..MeshEvent::default() };
    let mut e0 = ev(MeshEventType::EVT_SYNC);
    e0.direct_trigger = 1;
    e0.direct_trigger_sema[0] = sema(peer, 0)?; // tell the peer we are here
    let mut e1 = ev(MeshEventType::EVT_REDUCE_COPY);
    e1.wait_event = 1;
    e1.event_wait_sema = read(d, 0)?; // the peer is here
    e1.wait_val = 1;
    e1.dma_trigger = 1;
    e1.dma_apb_bcast[0] = DmaApbBcast { m2s_tail_ptr: u64::from(dma_tail), s2m_tail_ptr: 0, mask: 1 };
    let mut e2 = ev(MeshEventType::EVT_REDUCE_WRITE);
    e2.wait_event = 1;
    e2.event_wait_sema = read(d, 1)?; // our DMA completed into s+1
    e2.wait_val = 1;
    e2.direct_trigger = 1;
    e2.direct_trigger_sema = [sema(peer, 2)?, sema(d, 3)?, 0];
    let mut e3 = ev(MeshEventType::EVT_FUNCTION_BARRIER_LAST_COLL);
    e3.wait_event = 1;
    e3.event_wait_sema = read(d, 2)?; // the peer's copy is written
    e3.wait_val = 1;
    Ok(vec![e0, e1, e2, e3])
}

/// `mesh` on two dies of `arch`; with `trace`, die k writes `trace` with `.die<k>` before its extension.
pub fn mesh(arch: Arch, m: &MeshCfg, limit: u64, trace: Option<&Path>) -> Result<(Report, Mesh), ScenarioError> {
    if Hal::for_arch(arch)?.num_topsp()? <= 8 {
        return Err(ScenarioError::NotApplicable {
            scenario: "mesh",
            arch: arch.name(),
            why: "it has no TOP_SP 8: the peer die is reached through sp_base[8], the die-mirrored entry (bit 47) of CAYMAN's 16-entry table, and SUNDA has 6 TOP_SPs (seed 001); the collectives reach dies by chip id",
        });
    }
    let mut mesh = Mesh::new(arch, 2, 0)?;
    if let Some(p) = trace {
        mesh.trace(p)?;
    }
    let hal = Hal::for_arch(arch)?;
    let mut r = Report::default();
    let tapes = (0..2u32)
        .map(|d| {
            let c = &mesh.dies[d as usize];
            let a = Addrs::new(c.map(), "mesh");
            // The data rides the TX ring (`[D]`: the RX ring is the SEQ's I-cache fill ring).
            mesh_tape(&hal, d, m.first_sem, a.reg(Engine::Pool, "nx", "dma_tx_ring_tail_inc")?)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let prog = firmware::mesh_tape(mesh.dies[0].map(), tapes[0].len() as u32, 1, firmware::TapeWait::Poll)?;
    for (d, c) in mesh.dies.iter_mut().enumerate() {
        init(c, UcodeImages { iram: firmware::q7_sum(&c.map().clone())?.bytes, dram: vec![1, 0, 0, 0] }, true)?;
        // One descriptor per die: 4 words, completing into TOP_SP semaphore first_sem + 1.
        let dma = region(c, "seq.dma")?;
        let desc = [DATA, DATA + 16, DATA_WORDS, hal.get_trigger_addr(0, m.first_sem + 1)? as u32];
        c.write_buf(dma + u64::from(TX_RING), &words(&desc))?;
        c.write_buf(dma + u64::from(DATA), &words(&[0xd1e0 + d as u32, 1, 2, 3]))?;
        let mut dram = vec![0u8; (firmware::ALGO_CONFIGS + tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET) as usize];
        for e in &tapes[d] {
            dram.extend_from_slice(&e.pack());
        }
        c.load_top_sp(&prog.bytes, &dram)?;
    }
    // Both hosts release their TOP_SP; from here the dies run in lockstep.
    for c in &mut mesh.dies {
        let a = Addrs::new(c.map(), "mesh").reg(Engine::TopSp, "nx", "release_run_stall")?;
        c.write32(a.into(), 0)?;
    }
    let done = mesh.run_until_all(limit, |c| c.core(CoreId::TopSp).core.halted());
    let ctx = |c: &Cosim, off: u32| c.top_sp_dram(firmware::ALGO_CTX + off).unwrap_or(0);
    for (d, c) in mesh.dies.iter().enumerate() {
        r.check(
            c.stats.cycles,
            done || c.core(CoreId::TopSp).core.halted(),
            format!("die {d}: the tape did not complete in {limit} cycles (event_index {})", ctx(c, tpb_models::ncfw::mesh::algo_ctx::MESH_EVENT_INDEX) & 0xffff),
        )?;
        let idx = ctx(c, tpb_models::ncfw::mesh::algo_ctx::MESH_EVENT_INDEX) & 0xffff;
        r.check(
            c.stats.cycles,
            idx == tapes[d].len() as u32 && ctx(c, firmware::TAPE_DONE_AT) == firmware::TAPE_DONE,
            format!("die {d}: event_index {idx} of {}, marker {:#x}", tapes[d].len(), ctx(c, firmware::TAPE_DONE_AT)),
        )?;
        r.value(format!("die{d}.event_index"), idx.into());
    }
    for (d, c) in mesh.dies.iter_mut().enumerate() {
        let map = c.map().clone();
        let a = Addrs::new(&map, "mesh");
        for i in 0..4 {
            let v = c.read_checked(a.sem(Engine::TopSp, WindowOp::Read, m.first_sem + i)?.into(), u32::MAX)?;
            r.check(c.stats.cycles, v == 1, format!("die {d}: TOP_SP semaphore {} = {v}, expected 1", m.first_sem + i))?;
        }
        let inc = |i: u32| a.sem(Engine::TopSp, WindowOp::Inc, m.first_sem + i);
        let read = |i: u32| a.sem(Engine::TopSp, WindowOp::Read, m.first_sem + i);
        // Each cross-die SIGNAL (logged on the receiving die as a remote
        // write) precedes the first read of it that released the WAIT.
        for i in [0u32, 2] {
            let (w, rd) = (inc(i)?, read(i)?);
            let sig = first(c, |t| matches!(t.master, Master::Remote { .. }) && t.write && t.addr == w);
            let pass = first(c, |t| t.master == Master::Core(CoreId::TopSp) && !t.write && t.addr == rd && t.data >= 1);
            r.check(
                c.stats.cycles,
                matches!((sig, pass), (Some(s), Some(p)) if s.cycle < p.cycle),
                format!(
                    "die {d}: the peer's SIGNAL of semaphore {} ({}) came before the WAIT passed ({})",
                    m.first_sem + i,
                    at_cycle(sig.map(|t| t.cycle)),
                    at_cycle(pass.map(|t| t.cycle))
                ),
            )?;
            if let Some(s) = sig {
                r.events.push((s.cycle, format!("die {d} receives {} SIGNAL of semaphore {}", s.master, m.first_sem + i)));
            }
        }
        let copied = c.read32(region(c, "seq.dma")? + u64::from(DATA + 16))?;
        r.check(c.stats.cycles, copied == 0xd1e0 + d as u32, format!("die {d}: the DMA leg copied {copied:#x}"))?;
    }
    r.events.sort();
    r.stats = mesh.stats();
    r.value("remote_transactions", mesh.remote);
    r.value("dies", 2);
    r.value("link_latency", mesh.latency);
    r.crossings = mesh.crossings.clone();
    if trace.is_some() {
        mesh.trace_close()?;
    }
    Ok((r, mesh))
}

impl Scenario for MeshCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::Dies(self)
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec![G::Cores, G::Doorbell]))
    }
    fn diagrams(&self, s: &Stats, _: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        s.first_release.map(|rel| vec![(G::RunStall, rel.saturating_sub(12), rel + 16)]).unwrap_or_default()
    }
}

impl OnDies for MeshCfg {
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        match requested {
            None | Some(2) => Ok(2),
            Some(n) => Err(ScenarioError::File(format!("--dies {n}: the mesh scenario's tapes are for two dies (the collectives take N)"))),
        }
    }
    fn run_dies(&self, arch: Arch, _: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        mesh(arch, self, limit, trace).map(|(r, _)| r)
    }
}
