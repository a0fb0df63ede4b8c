//! The `windows` scenario (see docs/scenarios.md): address translation
//! (DIGEST §2.7 `mem_window2`, §2.8 the window bundle) in use by the cores.

use super::*;
use crate::sched::XLAT_APERTURE;
use tpb_models::hal::windows::{Requester, Window};

/// `[D]` The core addresses the scenario's windows translate.
const W0: u32 = XLAT_APERTURE + 0x1000;
const W1: u32 = XLAT_APERTURE + 0x2000;
/// `[windows]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowsCfg {
    /// The first of the 9 TOP_SP semaphores the windows target (at most 247).
    pub sem: u32,
    /// Stores the SEQ makes through window 0 (1..=255).
    pub stores: u32,
}

/// `windows`: see the module table.
pub fn windows(c: &mut Cosim, cfg: &WindowsCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let arch = map.arch;
    let hal = Hal::with_map(map.clone());
    let mut r = Report::default();
    let sem = |k: u32| cfg.sem + k;
    let inc = |k: u32| hal.get_trigger_addr(0, sem(k));
    // Window 0: the SEQ's W0 → semaphore sem; windows 1..7: Q7 core n's W1 →
    // semaphore sem + 1 + n (core 7 has none); mem_window2 → semaphore sem + 8.
    hal.set_window(c, 0, Some(Window { requester: Requester::Nx, src: W0.into(), size: 0x1000, dst: inc(0)? }))?;
    for n in 0..7u8 {
        hal.set_window(c, usize::from(n) + 1, Some(Window { requester: Requester::Q7(n), src: W1.into(), size: 0x1000, dst: inc(1 + u32::from(n))? }))?;
    }
    hal.set_mem_window2(c, inc(8)?)?;
    r.events.push((c.stats.cycles, "host programmed the windows".into()));
    let seq = firmware::nx_windows(&map, arch == Arch::Sunda, W0, tpb_models::golden::top::MEM_WINDOW2_BASE, cfg.stores)?;
    init_with(c, seq.bytes, UcodeImages { iram: firmware::q7_windows(&map, W1)?.bytes, dram: vec![0; 16] }, false)?;
    let exc = |c: &Cosim, id: CoreId| c.core(id).core.sreg(tpb_models::xtensa::config::sr::EXCVADDR);
    let done = c.run_until(limit, |c| {
        (c.core(CoreId::Seq).core.halted() || exc(c, CoreId::Seq) != 0) && (0..8u8).all(|n| c.q7()[usize::from(n)].core.halted() || exc(c, CoreId::Q7(n)) != 0)
    });
    r.check(c.stats.cycles, done, format!("the SEQ and the Q7 cores finished their stores within {limit} cycles"))?;
    // The first translated store on BAR0: the SEQ's write to the TOP_SP INC address.
    let a = Addrs::new(&map, "windows");
    let inc0 = a.sem(Engine::TopSp, WindowOp::Inc, sem(0))?;
    let first = first(c, |t| t.master == Master::Core(CoreId::Seq) && t.write && t.addr == inc0);
    r.check(c.stats.cycles, first.is_some(), "the SEQ's store through window 0 reached the TOP_SP's INC window on BAR0")?;
    r.events.push((first.map_or(0, |t| t.cycle), "SEQ store through window 0 reaches the TOP_SP".into()));
    r.key = first.map(|t| (t.cycle, t.cycle));
    let read = |c: &mut Cosim, k: u32| -> Result<u32, ScenarioError> { Ok(c.read_checked(a.sem(Engine::TopSp, WindowOp::Read, sem(k))?.into(), u32::MAX)?) };
    let v = read(c, 0)?;
    r.check(c.stats.cycles, v == cfg.stores, format!("semaphore {} = {v}: the SEQ's {} stores through window 0", sem(0), cfg.stores))?;
    let v = read(c, 8)?;
    r.check(c.stats.cycles, v == 1, format!("semaphore {} = {v}: the SEQ's store through mem_window2", sem(8)))?;
    r.check(c.stats.cycles, c.core(CoreId::Seq).core.halted() && exc(c, CoreId::Seq) == 0, "the SEQ halted without a fault")?;
    for n in 0..7u32 {
        let (v, ex) = (read(c, 1 + n)?, exc(c, CoreId::Q7(n as u8)));
        r.check(c.stats.cycles, v == 1 && ex == 0, format!("Q7 core {n}: its store to {W1:#x} went through its own window to semaphore {} ({v}), no fault ({ex:#x})", sem(1 + n)))?;
    }
    let ex = exc(c, CoreId::Q7(7));
    r.check(c.stats.cycles, ex == W1 && !c.q7()[7].core.halted(), format!("Q7 core 7 (no window of its own): its store faulted (EXCVADDR {ex:#x})"))?;
    r.value("xlat_lookups", c.stats.xlat);
    r.stats = c.stats;
    Ok(r)
}

impl Scenario for WindowsCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.sem > 247 || !(1..=255).contains(&self.stores) {
            return Err(ScenarioError::File(format!("{path}: [windows] sem = {} (0..=247: it uses 9 semaphores), stores = {} (1..=255)", self.sem, self.stores)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (at, _) = r.key?;
        Some((at.saturating_sub(16), at + 24, vec![G::Xlat, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Xlat, view)
    }
}

impl OneSystem for WindowsCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        windows(c, self, limit)
    }
}
