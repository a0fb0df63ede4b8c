//! The `bringup` scenario (see docs/scenarios.md).

use super::*;

/// `[bringup]`: the kernel input.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BringupCfg {
    /// Core k sums 1..(n + k) (default 20).
    #[serde(default = "default_n")]
    pub n: u32,
}

fn default_n() -> u32 {
    20
}

/// `bringup`: see the module table.
pub fn bringup(c: &mut Cosim, n: u32, limit: u64) -> Result<Report, ScenarioError> {
    let mut r = Report::default();
    let mut dram = n.to_le_bytes().to_vec();
    dram.resize(16, 0);
    let init_done = init(c, UcodeImages { iram: firmware::q7_sum(c.map())?.bytes, dram }, false)?;
    r.value("init_done", init_done);
    let seq_dram = region(c, "seq.dram")?;
    // The SEQ boots through the trampoline to enter_run and marks it.
    let mark = poll(c, seq_dram, limit, |v| v == firmware::SEQ_MARK)?;
    r.check(c.stats.cycles, mark.is_some(), format!("the SEQ reached enter_run (DRAM[0] = {:#x}) within {limit} cycles", firmware::SEQ_MARK))?;
    let running = field(c, Engine::Pool, "nx", "run_state", "running")?;
    r.check(c.stats.cycles, running == 1, format!("the host sees the SEQ running in enter_run (run_state.running = {running})"))?;
    // Who released the Q7 cores: the host through release_run_stall
    // (CAYMAN/MARIANA), or the SEQ through the POOL EVT_SEM (SUNDA, seed 004 §7.1).
    let map = c.map().clone();
    let a = Addrs::new(&map, "scenario");
    let rel = a.reg(Engine::Pool, "q7", "release_run_stall")?;
    let released = c.run_until(limit, |c| c.out.q7_run_stall == 0);
    r.check(c.stats.cycles, released, format!("every Q7 core released (q7_run_stall = {:#x})", c.out.q7_run_stall))?;
    match map.params.q7.seq_release_sem {
        Some(s) => {
            let set = a.sem(Engine::Pool, WindowOp::Set, s)?;
            let who = last(c, |t| t.write && t.addr == set && t.data & 0xff == 0xff).map(|t| t.master);
            r.check(
                c.stats.cycles,
                who == Some(Master::Core(CoreId::Seq)),
                format!("the Q7 cores were released by the SEQ setting POOL semaphore {s} to 0xff (seed 004 §7.1), saw {}", who.map_or_else(|| "nobody".to_string(), |m| m.to_string())),
            )?;
            let reg = c.read_checked(rel.into(), 0xff)? & 0xff;
            r.check(c.stats.cycles, reg == 0xff, format!("nobody wrote release_run_stall: it still holds {reg:#x} (the host's writer is a no-op on SUNDA)"))?;
        }
        None => {
            let who = last(c, |t| t.write && t.addr == rel && t.data & 0xff == 0).map(|t| t.master);
            r.check(
                c.stats.cycles,
                who == Some(Master::Host),
                format!("the Q7 cores were released by the host (DIGEST §2.9 step 6), saw {}", who.map_or_else(|| "nobody".to_string(), |m| m.to_string())),
            )?;
        }
    }
    let halted = c.run_until(limit, |c| c.q7().iter().all(|q| q.core.halted()));
    let not: Vec<usize> = c.q7().iter().enumerate().filter(|(_, q)| !q.core.halted()).map(|(k, _)| k).collect();
    r.check(c.stats.cycles, halted, format!("cores {not:?} not halted within {limit} cycles of the release (the phase's budget: --cycles)"))?;
    r.value("all_halted", c.stats.cycles);
    c.run(2);
    for k in 0..8u32 {
        let base = region(c, &format!("q7[{k}].dram"))?;
        let want_n = n + k;
        let sum = c.read32(base + 4)?;
        let marker = c.read32(base + 8)?;
        // The core sums in 32 bits: the expected sum wraps as it does (n is not bounded).
        let want = (u64::from(want_n) * (u64::from(want_n) + 1) / 2) as u32;
        r.check(c.stats.cycles, sum == want, format!("core {k}: sum {sum} for n = {want_n}, expected {want}"))?;
        r.check(c.stats.cycles, marker == firmware::SUM_DONE, format!("core {k}: done marker {marker:#x}"))?;
        let h = field(c, Engine::Pool, "q7", &format!("run_state_{k}"), "halted")?;
        let run = field(c, Engine::Pool, "q7", &format!("run_state_{k}"), "running")?;
        r.check(c.stats.cycles, h == 1 && run == 0, format!("core {k}: run_state_{k} halted = {h}, running = {run}; expected halted"))?;
        r.value(format!("q7[{k}].n"), want_n.into());
        r.value(format!("q7[{k}].sum"), sum.into());
    }
    // The host stops the SEQ through its mailbox; run_state follows.
    c.write32(seq_dram + 4, 1)?;
    let stopped = c.run_until(limit, |c| c.core(CoreId::Seq).core.halted());
    r.check(c.stats.cycles, stopped, "the SEQ halted after the host's stop request")?;
    let polls = c.read32(seq_dram + 8)?;
    r.check(c.stats.cycles, polls > 0, format!("the SEQ counted {polls} polls of its mailbox"))?;
    let h = field(c, Engine::Pool, "nx", "run_state", "halted")?;
    r.check(c.stats.cycles, h == 1, format!("the host sees the SEQ halted (run_state.halted = {h})"))?;
    r.stats = c.stats;
    Ok(r)
}

impl Scenario for BringupCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn key_window(&self, _: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let rel = s.first_release?;
        Some((rel.saturating_sub(12), rel + 16, vec![G::RunStall, G::Q7Core0]))
    }
}

impl OneSystem for BringupCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        bringup(c, self.n, limit)
    }
}
