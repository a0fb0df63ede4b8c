//! The `halt-start` scenario (see docs/scenarios.md): DIGEST §2.8's
//! halt and start, on the SEQ and on the Q7 cores.

use super::*;
use tpb_models::hal::RunState;
/// `[halt_start]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HaltStartCfg {
    /// The Q7 cores the host restarts (bit n = core n; not 0).
    pub q7_cores: u8,
}

/// `halt-start`: see the module table.
pub fn halt_start(c: &mut Cosim, h: &HaltStartCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let arch = map.arch;
    let hal = Hal::with_map(map.clone());
    let mut r = Report::default();
    let seq = firmware::nx_halt(&map, arch == Arch::Sunda)?;
    let q7 = firmware::q7_halt(&map)?;
    let label = |p: &tpb_models::xtensa::asm::Program, f: &'static str| {
        p.labels.get("restart").copied().ok_or(ScenarioError::Firmware(FirmwareError { file: f, message: "no label 'restart'".into() }))
    };
    let (seq_restart, q7_restart) = (label(&seq, "nx_halt.S")?, label(&q7, "q7_halt.S")?);
    init_with(c, seq.bytes, UcodeImages { iram: q7.bytes, dram: vec![0; 16] }, false)?;
    let seq_dram = region(c, "seq.dram")?;
    let halt_ctrl = Addrs::new(&map, "scenario").reg(Engine::Pool, "nx", "instr_halt_ctrl")?;
    let pool_bit = Engine::Pool.isa_id().unwrap_or(2);

    // 1. The SEQ halts itself: instr_halt_ctrl.halt <- 1, then spins; held.
    let halted = |c: &mut Cosim| -> Result<RunState, ScenarioError> { Ok(hal.nx_run_state(c, Engine::Pool)?) };
    let end = c.stats.cycles + limit;
    while !halted(c)?.halted && c.stats.cycles < end {
        c.run(16);
    }
    let st = halted(c)?;
    r.check(c.stats.cycles, st == RunState { running: false, halted: true }, format!("the host sees the SEQ halted (run_state: {st}) within {limit} cycles"))?;
    let wrote = last(c, |t| t.master == Master::Core(CoreId::Seq) && t.write && t.addr == halt_ctrl && t.data & 1 == 1);
    r.check(c.stats.cycles, wrote.is_some(), "the SEQ halted itself: it wrote instr_halt_ctrl.halt = 1")?;
    r.events.push((wrote.map_or(0, |t| t.cycle), "SEQ writes instr_halt_ctrl.halt".into()));
    let (entry, count) = (c.read32(seq_dram)?, c.read32(seq_dram + 4)?);
    r.check(c.stats.cycles, entry == 1 && count == 1, format!("the SEQ took its first entry once (DRAM: entry {entry}, count {count})"))?;
    r.check(c.stats.cycles, c.out.nx_run_stall >> pool_bit & 1 == 1, format!("the top holds the SEQ (nx_run_stall = {:#x})", c.out.nx_run_stall))?;
    let before = c.core(CoreId::Seq).core.retired();
    c.run(256);
    let after = c.core(CoreId::Seq).core.retired();
    r.check(c.stats.cycles, after == before, format!("the held SEQ retires nothing in 256 cycles ({before} -> {after})"))?;
    let spins = c.read32(seq_dram + 8)?;
    r.check(c.stats.cycles, spins <= 4, format!("the SEQ was held within {spins} spins of its halt write (at most 4)"))?;
    r.value("seq.spins", spins.into());

    // 2. The host restarts it elsewhere: start_addr, start_ctrl.ctrl = 1.
    hal.start_nx(c, Engine::Pool, seq_restart)?;
    let start_ctrl = Addrs::new(&map, "scenario").reg(Engine::Pool, "nx", "start_ctrl")?;
    let w = last(c, |t| t.master == Master::Host && t.write && t.addr == start_ctrl);
    r.events.push((w.map_or(0, |t| t.cycle), "host writes start_ctrl".into()));
    let started = c.run_until(limit, |c| c.start_log.iter().any(|s| s.1 == CoreId::Seq));
    let s = c.start_log.iter().find(|s| s.1 == CoreId::Seq).copied();
    r.check(c.stats.cycles, started && s.is_some_and(|s| s.2 == seq_restart), format!("the SEQ restarted at {seq_restart:#x} ({})", started_at(s)))?;
    r.events.push((s.map_or(0, |s| s.0), format!("SEQ restarts at {seq_restart:#x}")));
    while !halted(c)?.halted && c.stats.cycles < end + limit {
        c.run(16);
    }
    let (entry, count) = (c.read32(seq_dram)?, c.read32(seq_dram + 4)?);
    r.check(c.stats.cycles, entry == 2 && count == 2, format!("the SEQ ran the restart entry and kept its DRAM (entry {entry}, count {count})"))?;
    let again = last(c, |t| t.master == Master::Core(CoreId::Seq) && t.write && t.addr == halt_ctrl);
    r.check(c.stats.cycles, again.is_some_and(|t| s.is_some_and(|s| t.cycle > s.0)), "the SEQ halted itself again after the restart")?;
    r.events.push((again.map_or(0, |t| t.cycle), "SEQ halts again".into()));
    r.key = w.map(|t| t.cycle).zip(again.map(|t| t.cycle));
    let st = halted(c)?;
    r.check(c.stats.cycles, st == RunState { running: false, halted: true }, format!("the host sees the SEQ halted again (run_state: {st})"))?;

    // 3. The Q7 cores HALT; the host restarts the chosen ones.
    let all = c.run_until(limit, |c| c.q7().iter().all(|q| q.core.halted()));
    r.check(c.stats.cycles, all, format!("every Q7 core executed HALT within {limit} cycles"))?;
    for k in 0..8u32 {
        let st = hal.q7_run_state(c, k)?;
        r.check(c.stats.cycles, st == RunState { running: false, halted: true }, format!("Q7 core {k}: run_state {st}, expected halted"))?;
    }
    hal.start_q7(c, h.q7_cores, q7_restart)?;
    let chosen = |k: u8| h.q7_cores >> k & 1 == 1;
    let want = h.q7_cores.count_ones() as usize;
    let q7_starts = |c: &Cosim| c.start_log.iter().filter(|s| matches!(s.1, CoreId::Q7(_))).count();
    let done = c.run_until(limit, |c| q7_starts(c) == want && c.q7().iter().all(|q| q.core.halted()));
    r.check(c.stats.cycles, done, format!("{} of {want} Q7 cores restarted and halted again", q7_starts(c)))?;
    for k in 0..8u8 {
        let base = region(c, &format!("q7[{k}].dram"))?;
        let (entry, count) = (c.read32(base)?, c.read32(base + 4)?);
        let (we, wc) = if chosen(k) { (2, 2) } else { (1, 1) };
        r.check(
            c.stats.cycles,
            entry == we && count == wc,
            format!("Q7 core {k} ({}): entry {entry}, count {count}; expected {we}, {wc}", if chosen(k) { "restarted" } else { "left halted" }),
        )?;
        let s = c.start_log.iter().find(|s| s.1 == CoreId::Q7(k));
        r.check(c.stats.cycles, s.is_some() == chosen(k) && s.is_none_or(|s| s.2 == q7_restart), format!("Q7 core {k}: {}", started_at(s.copied())))?;
    }
    if let Some(s) = c.start_log.iter().find(|s| matches!(s.1, CoreId::Q7(_))) {
        r.events.push((s.0, format!("Q7 cores {:#04x} restart", h.q7_cores)));
    }
    r.value("starts", c.stats.starts);
    r.stats = c.stats;
    Ok(r)
}

/// A core's start as a check's message says it: `started at 0x204 (cycle 812)`.
fn started_at(s: Option<(u64, CoreId, u32)>) -> String {
    s.map_or_else(|| "not started".into(), |(cycle, _, at)| format!("started at {at:#x} (cycle {cycle})"))
}

impl Scenario for HaltStartCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.q7_cores == 0 {
            return Err(ScenarioError::File(format!("{path}: [halt_start] q7_cores = 0: choose at least one core (bit n = core n)")));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (start, halt) = r.key?;
        Some((start.saturating_sub(6), halt + 12, vec![G::HaltStart, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::HaltStart, view)
    }
}

impl OneSystem for HaltStartCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        halt_start(c, self, limit)
    }
}
