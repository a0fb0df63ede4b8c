//! A core's runs: when it was last *started* and when it last *halted*, so
//! that a wait sees only a halt that came after the start
//! ([`Cosim::halted_since_start`]).
//!
//! A core that halted in an earlier run still reads as halted until the
//! start that restarts it has taken effect, a few cycles after the host's
//! write landed (or, when the SEQ releases the Q7 cores, much later). A wait
//! that looked at `halted` alone would return at once and the checks after
//! it would read the earlier run's results. So the scheduler stamps each
//! core with the cycle it was *started* (`[D]`, at the moment the request
//! that starts it is granted on BAR0, before it can take effect), and a
//! halt counts only if it was entered after that stamp.
//!
//! What starts a core (any master's BAR0 write, the host's or a core's):
//! - its bit written 1 to its `start_ctrl` (Q7: `pool.q7.start_ctrl` bit n;
//!   the SEQ and the TOP_SP: their NX bundle's `start_ctrl.ctrl`);
//! - its run-stall released: its bit written 0 to `release_run_stall` while
//!   the top holds it stalled;
//! - a word written into its IRAM (an install: the halt belongs to the image
//!   being replaced);
//!
//! and, outside BAR0, a reset of the system and the loading of a core-local
//! image ([`Cosim::load_local`]).

use super::*;

/// What a BAR0 write to one address does to the cores' runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Starts {
    /// `pool.q7.start_ctrl`: bit n starts Q7 core n.
    Q7Start,
    /// `pool.q7.release_run_stall`: bit n written 0 releases Q7 core n.
    Q7Release,
    /// An NX bundle's `start_ctrl`: bit 0 starts this core.
    NxStart(CoreId),
    /// An NX bundle's `release_run_stall`: bit 0 written 0 releases this core.
    NxRelease(CoreId),
    /// A core's IRAM (a byte range): any word written starts a new image.
    Iram(CoreId),
}

/// The addresses whose writes start cores, from the map: `(first byte,
/// last byte + 1, what)`.
#[derive(Debug, Clone, Default)]
pub(super) struct StartTable(Vec<(u64, u64, Starts)>);

impl StartTable {
    pub(super) fn of(map: &RegMap) -> StartTable {
        let space = tpb_models::regmap::space::AddressSpace::new(map.clone());
        let reg = |name: &str| space.resolve(name).ok().map(|n| u64::from(n.addr()));
        let mut v = Vec::new();
        let mut word = |name: &str, s: Starts| {
            if let Some(a) = reg(name) {
                v.push((a, a + 4, s));
            }
        };
        word("pool.q7.start_ctrl", Starts::Q7Start);
        word("pool.q7.release_run_stall", Starts::Q7Release);
        for (engine, id) in [("pool", CoreId::Seq), ("top_sp", CoreId::TopSp)] {
            word(&format!("{engine}.nx.start_ctrl"), Starts::NxStart(id));
            word(&format!("{engine}.nx.release_run_stall"), Starts::NxRelease(id));
        }
        for r in map.params.bar0_regions() {
            let id = match r.name.as_str() {
                "seq.iram" => CoreId::Seq,
                n => match n.strip_prefix("q7[").and_then(|n| n.strip_suffix("].iram")).and_then(|n| n.parse::<u8>().ok()) {
                    Some(k) => CoreId::Q7(k),
                    None => continue,
                },
            };
            v.push((r.region.base, r.region.base + r.region.size, Starts::Iram(id)));
        }
        StartTable(v)
    }

    fn find(&self, addr: u64) -> Option<Starts> {
        self.0.iter().find(|(lo, hi, _)| (*lo..*hi).contains(&addr)).map(|(_, _, s)| *s)
    }

    /// The addresses, for the tests: which register or region each is.
    #[cfg(test)]
    pub(super) fn entries(&self) -> &[(u64, u64, Starts)] {
        &self.0
    }
}

/// A core's last start and last halt, in cycles of the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunMarks {
    /// The cycle the core was last started (see the module's list).
    pub started_at: u64,
    /// The cycle it last entered HALT, if it has since power-on.
    pub halted_at: Option<u64>,
    /// Whether it was halted after its last step (to see it enter HALT).
    pub(super) was_halted: bool,
}

impl RunMarks {
    /// It halted after it was last started.
    pub fn halted_since_start(&self) -> bool {
        self.halted_at.is_some_and(|h| h > self.started_at)
    }
}

impl Cosim {
    /// Core `id` is started now: a halt counts for it only after this cycle.
    pub fn mark_started(&mut self, id: CoreId) {
        let now = self.stats.cycles;
        self.cores[slot_index(id)].runs.started_at = now;
    }

    /// Core `id` halted after it was last started (a halt left from an
    /// earlier run does not count; see the module's doc).
    pub fn halted_since_start(&self, id: CoreId) -> bool {
        let s = self.core(id);
        s.core.halted() && s.runs.halted_since_start()
    }

    /// A BAR0 write granted this cycle: stamp the cores it starts.
    #[inline]
    pub(super) fn starts_on_write(&mut self, req: &Req) {
        let Some(what) = self.starts.find(u64::from(req.addr)) else { return };
        let v = req.wdata;
        let stalled = |c: &Cosim, id: CoreId| c.stalled >> slot_index(id) & 1 != 0;
        match what {
            Starts::Q7Start | Starts::Q7Release => {
                for n in 0..CORES as u8 {
                    let bit = v >> n & 1 != 0;
                    let starts = if what == Starts::Q7Start { bit } else { !bit && stalled(self, CoreId::Q7(n)) };
                    if starts {
                        self.mark_started(CoreId::Q7(n));
                    }
                }
            }
            Starts::NxStart(id) if v & 1 != 0 => self.mark_started(id),
            Starts::NxRelease(id) if v & 1 == 0 && stalled(self, id) => self.mark_started(id),
            Starts::Iram(id) => self.mark_started(id),
            _ => {}
        }
    }

    /// After a core's step: note the cycle it entered HALT.
    #[inline(always)]
    pub(super) fn note_halt(runs: &mut RunMarks, halted: bool, cycle: u64) {
        if halted && !runs.was_halted {
            runs.halted_at = Some(cycle);
        }
        runs.was_halted = halted;
    }
}

impl Cosim {
    /// Why core `id` has not halted since its start, as a person reads it:
    /// still run-stalled, a halt from before the start, or still running
    /// (then where, with the registers and the last instructions retired,
    /// as an exception's report has them).
    pub fn not_halted_report(&self, id: CoreId, img: Option<history::Image>) -> String {
        let s = self.core(id);
        let (now, started) = (self.stats.cycles, s.runs.started_at);
        if s.core.halted() {
            let at = s.runs.halted_at.map_or("power-on".to_string(), |h| format!("cycle {h}"));
            return format!(
                "{} is halted since {at}, before it was last started (cycle {started}); a halt from before the start does not count (was it started? a run-stall release does not restart a halted core: start it)",
                id.name()
            );
        }
        if s.core.run_stall() {
            return format!("{} is still run-stalled at cycle {now} (started at cycle {started}): nothing released it", id.name());
        }
        let what = if s.idle() { "waiting in WAITI" } else { "still running" };
        let snap = history::Caught::of(now, s.last.unwrap_or(Step::Stalled), &s.core, &s.recent);
        format!("{} {what} at cycle {now} (started at cycle {started}): {}{}", id.name(), history::at_pc(s.core.pc, img), snap.report(img))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generation's table names the registers and memories that start
    /// each core; nothing else is in it.
    #[test]
    fn the_start_table_has_each_cores_start_release_and_iram() {
        for arch in tpb_models::regmap::Arch::ALL {
            let map = builtin(arch).unwrap();
            let t = StartTable::of(&map);
            let has = |s: Starts| t.entries().iter().filter(|(_, _, x)| *x == s).count();
            for s in [Starts::Q7Start, Starts::Q7Release, Starts::NxStart(CoreId::Seq), Starts::NxRelease(CoreId::Seq), Starts::Iram(CoreId::Seq)] {
                assert_eq!(has(s), 1, "{}: {s:?}", arch.name());
            }
            for n in 0..CORES as u8 {
                assert_eq!(has(Starts::Iram(CoreId::Q7(n))), 1, "{}: q7[{n}].iram", arch.name());
            }
            let words = t.entries().iter().filter(|(lo, hi, _)| hi - lo == 4).count();
            assert!(words >= 4, "{}: {:?}", arch.name(), t.entries());
            // No two entries overlap: each address has one meaning.
            let mut e = t.entries().to_vec();
            e.sort_by_key(|x| x.0);
            assert!(e.windows(2).all(|w| w[0].1 <= w[1].0), "{}: {e:?}", arch.name());
        }
    }

    #[test]
    fn a_halt_counts_only_after_the_start() {
        let mut m = RunMarks { started_at: 100, ..RunMarks::default() };
        Cosim::note_halt(&mut m, true, 90);
        assert!(!m.halted_since_start(), "halted at 90, started at 100");
        Cosim::note_halt(&mut m, true, 120);
        assert_eq!(m.halted_at, Some(90), "still the same halt: no new entry");
        Cosim::note_halt(&mut m, false, 130);
        Cosim::note_halt(&mut m, true, 140);
        assert!(m.halted_since_start() && m.halted_at == Some(140));
    }
}
