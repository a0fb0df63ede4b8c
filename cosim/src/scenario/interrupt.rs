//! The `interrupt` scenario (see docs/scenarios.md): intr_ctrl /
//! intr_info drive the cores' level-1 interrupt line; the firmware takes
//! each interrupt through the user vector and returns with RFE.

use super::*;
use tpb_models::xtensa::config::sr;

/// Interrupts the SEQ takes: raised by the host, a POOL semaphore change, a DMA error.
const SEQ_WANT: u32 = 3;
/// Interrupts a Q7 core takes before it halts: the semaphore change, then the host's raise.
const Q7_WANT: u32 = 2;
/// intr_info bits (`[D]`, nx.toml / q7.toml).
const DMA_ERROR: u32 = 1;
const SEM: u32 = 4;
const HOST: u32 = 8;
/// `[interrupt]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterruptCfg {
    /// The POOL semaphore the host sets (0..256).
    pub sem: u32,
    /// The Q7 cores the host raises at the end (bit n = core n; not 0).
    pub q7_cores: u8,
}

/// `interrupt`: see the module table.
pub fn interrupt(c: &mut Cosim, cfg: &InterruptCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let arch = map.arch;
    let mut r = Report::default();
    let a = Addrs::new(&map, "interrupt");
    let seq = firmware::nx_intr(&map, arch == Arch::Sunda, SEQ_WANT)?;
    init_with(c, seq.bytes, UcodeImages { iram: firmware::q7_intr(&map, Q7_WANT)?.bytes, dram: vec![0; 16] }, true)?;
    let seq_dram = region(c, "seq.dram")?;
    let q7_dram = |c: &Cosim, k: u32| region(c, &format!("q7[{k}].dram"));
    // The host enables every Q7 core's interrupt; the cores unmask theirs.
    let q7_ctrl = u64::from(a.reg(Engine::Pool, "q7", "intr_ctrl")?);
    c.write32(q7_ctrl, 0xff)?;
    let user = |s: &crate::sched::Slot| s.core.sreg(sr::PS) & 0x30 == 0x20;
    let ready = c.run_until(limit, |c| user(c.core(CoreId::Seq)) && c.q7().iter().all(user));
    r.check(c.stats.cycles, ready, format!("the SEQ and the Q7 cores unmasked their interrupts (user mode) within {limit} cycles"))?;
    let taken = |c: &mut Cosim, base: u64, n: u32| -> Result<bool, ScenarioError> { Ok(poll(c, base + 4, limit, |v| v >= n)?.is_some()) };
    let log = |c: &mut Cosim, base: u64, k: u64| -> Result<u32, ScenarioError> { Ok(c.read32(base + 0x20 + 4 * k)?) };
    // After a handler's RFE the SEQ's loop runs on: its counter moves.
    let resumed = |c: &mut Cosim, r: &mut Report, what: &str| -> Result<(), ScenarioError> {
        let before = c.read32(seq_dram)?;
        let moved = poll(c, seq_dram, limit, |v| v > before)?;
        r.check(
            c.stats.cycles,
            moved.is_some(),
            format!("after the {what} interrupt the SEQ returned (RFE) to its loop (count {before} -> {})", moved.map_or_else(|| "unchanged".into(), |m| m.to_string())),
        )
    };

    // 1. The host raises the SEQ's interrupt (intr_ctrl.raise, enable kept).
    let nx_ctrl = u64::from(a.reg(Engine::Pool, "nx", "intr_ctrl")?);
    r.events.push((c.stats.cycles, "host raises the SEQ's interrupt".into()));
    r.key = Some((c.stats.cycles, c.stats.cycles));
    c.write32(nx_ctrl, 1 | 1 << 8)?;
    r.check(c.stats.cycles, taken(c, seq_dram, 1)?, "the SEQ took the host's interrupt")?;
    let v = log(c, seq_dram, 0)?;
    r.check(c.stats.cycles, v == HOST, format!("the SEQ's handler read intr_info = {v:#x} (bit 3, host), expected {HOST:#x}"))?;
    resumed(c, &mut r, "host")?;

    // 2. A POOL semaphore changes: the SEQ and every Q7 core are interrupted.
    c.write32(a.sem(Engine::Pool, WindowOp::Set, cfg.sem)?.into(), 5)?;
    r.events.push((c.stats.cycles, "host sets a POOL semaphore".into()));
    r.check(c.stats.cycles, taken(c, seq_dram, 2)?, "the SEQ took the semaphore interrupt")?;
    let v = log(c, seq_dram, 1)?;
    r.check(c.stats.cycles, v == SEM, format!("the SEQ's handler read intr_info = {v:#x}, expected {SEM:#x} (EVT_SEM)"))?;
    resumed(c, &mut r, "semaphore")?;
    for k in 0..8 {
        let base = q7_dram(c, k)?;
        r.check(c.stats.cycles, taken(c, base, 1)?, format!("Q7 core {k} took the semaphore interrupt"))?;
        let v = log(c, base, 0)?;
        r.check(c.stats.cycles, v == SEM, format!("Q7 core {k}'s handler read intr_info_{k} = {v:#x}, expected {SEM:#x}"))?;
    }

    // 3. A SEQ DMA error (a completion address outside the INC window).
    let dma = region(c, "seq.dma")?;
    let bad = Hal::with_map(map.clone()).get_trigger_addr(0, 0)? as u32 & !0xfff | 0x0c00;
    c.write_buf(dma + u64::from(RX_RING), &words(&[DATA, DATA, 0, bad]))?;
    c.write32(a.reg(Engine::Pool, "nx", "dma_rx_ring_tail_inc")?.into(), 1)?;
    r.events.push((c.stats.cycles, "host rings a bad DMA descriptor".into()));
    r.check(c.stats.cycles, taken(c, seq_dram, 3)?, "the SEQ took the DMA-error interrupt")?;
    let v = log(c, seq_dram, 2)?;
    r.check(c.stats.cycles, v == DMA_ERROR, format!("the SEQ's handler read intr_info = {v:#x}, expected {DMA_ERROR:#x} (DMA error)"))?;
    let halted = c.run_until(limit, |c| c.out.nx_run_stall >> Engine::Pool.isa_id().unwrap_or(2) & 1 == 1);
    r.check(c.stats.cycles, halted, format!("the SEQ halted after {SEQ_WANT} interrupts"))?;

    // 4. The host raises the chosen Q7 cores: they take it and halt; the others wait.
    let raise = cfg.q7_cores;
    c.write32(q7_ctrl, 0xff | u32::from(raise) << 8)?;
    r.events.push((c.stats.cycles, format!("host raises Q7 cores {raise:#04x}")));
    let done = c.run_until(limit, |c| c.q7().iter().enumerate().all(|(k, q)| q.core.halted() == (raise >> k & 1 == 1)));
    r.check(c.stats.cycles, done, format!("Q7 cores {raise:#04x} halted after {Q7_WANT} interrupts, the others still wait"))?;
    for k in 0..8u32 {
        let base = q7_dram(c, k)?;
        let n = c.read32(base + 4)?;
        let chosen = raise >> k & 1 == 1;
        let want = if chosen { 2 } else { 1 };
        r.check(c.stats.cycles, n == want, format!("Q7 core {k}: {n} interrupts taken, expected {want}"))?;
        if chosen {
            let v = log(c, base, 1)?;
            r.check(c.stats.cycles, v == HOST, format!("Q7 core {k}'s second interrupt read {v:#x}, expected {HOST:#x} (host)"))?;
        }
    }
    r.value("seq.loops", c.read32(seq_dram)?.into());
    r.stats = c.stats;
    Ok(r)
}

impl Scenario for InterruptCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.sem >= 256 || self.q7_cores == 0 {
            return Err(ScenarioError::File(format!("{path}: [interrupt] sem = {} (0..256), q7_cores = {:#x} (not 0)", self.sem, self.q7_cores)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (from, _) = r.key?;
        Some((from.saturating_sub(4), from + 90, vec![G::Interrupt, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Interrupt, view)
    }
}

impl OneSystem for InterruptCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        interrupt(c, self, limit)
    }
}
