//! The `timestamp` scenario: the TPB timestamp (DIGEST §2.7; its registers
//! `[D]`, `maps/common/tpb.toml`) under the host HAL on one system. The host
//! puts the counter at `start` and runs it at `inc` a cycle; two snapshots
//! `gap` cycles apart differ by exactly `inc` × the cycles between them,
//! across a carry into `timestamp_hi` when `start` is near one (a read of
//! `timestamp_lo` latches the high word); an adjustment by `delta` moves
//! the counter by exactly that.

use super::*;

/// `[timestamp]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimestampCfg {
    /// Added to the counter every cycle (1..=255).
    pub inc: u32,
    /// Cycles between the two snapshots (1..=100000).
    pub gap: u64,
    /// The counter's value before it runs (an adjustment from reset's 0).
    #[serde(default)]
    pub start: u64,
    /// The adjustment after the second snapshot (signed).
    pub delta: i64,
}

/// `timestamp`: see the module header.
pub fn timestamp(c: &mut Cosim, cfg: &TimestampCfg, limit: u64) -> Result<Report, ScenarioError> {
    let hal = Hal::with_map(c.map().clone());
    let mut r = Report::default();
    hal.timestamp_adjust(c, cfg.start as i64)?;
    hal.timestamp_run(c, Some(cfg.inc))?;
    // Every snapshot is the same two host reads, so it latches the counter
    // the same number of cycles after the cycle it starts on.
    let snap = |c: &mut Cosim| -> Result<(u64, u64), ScenarioError> { Ok((c.stats.cycles, hal.timestamp(c)?)) };
    let (c1, t1) = snap(c)?;
    c.run(cfg.gap);
    let (c2, t2) = snap(c)?;
    let inc = u64::from(cfg.inc);
    let want = t1.wrapping_add(inc * (c2 - c1));
    r.check(c.stats.cycles, t2 == want, format!("snapshots {} cycles apart: {t1:#x} then {t2:#x}, expected {want:#x} (inc {inc})", c2 - c1))?;
    r.value("carries", (t2 >> 32).wrapping_sub(t1 >> 32));
    hal.timestamp_adjust(c, cfg.delta)?;
    let (c3, t3) = snap(c)?;
    let want = t2.wrapping_add(inc * (c3 - c2)).wrapping_add(cfg.delta as u64);
    r.check(c.stats.cycles, t3 == want, format!("after adjusting by {}: {t3:#x}, expected {want:#x}", cfg.delta))?;
    r.check(c.stats.cycles, c.stats.cycles <= limit, format!("the run took {} cycles, within the limit {limit}", c.stats.cycles))?;
    r.events = vec![(c1, "first snapshot".into()), (c2, "second snapshot".into()), (c3, "snapshot after the adjustment".into())];
    r.stats = c.stats;
    Ok(r)
}

impl Scenario for TimestampCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if !(1..=255).contains(&self.inc) || !(1..=100_000).contains(&self.gap) {
            return Err(ScenarioError::File(format!("{path}: [timestamp] inc = {} (1..=255), gap = {} (1..=100000)", self.inc, self.gap)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (first, last) = (r.events.first()?.0, r.events.last()?.0);
        Some((first.saturating_sub(4), last + 24, vec![G::Tsync, G::Bar0]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Tsync, view)
    }
}

impl OneSystem for TimestampCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        timestamp(c, self, limit)
    }
}
