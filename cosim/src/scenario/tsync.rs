//! `tsync` (CAYMAN/MARIANA, N dies): the TOP_SP's one-time init handshake
//! and the time sync (DIGEST §2.7; seed 001 §8), each die's TOP_SP running
//! `top_sp_tsync.S`.
//!
//! The seeds give the doorbells (init_signal +0x1540, tsync_signal +0x1560:
//! SETs of the TOP_SP's semaphores 80 and 88), the host functions of the
//! handshake (`set_init_signal`, `read_config_addr`,
//! `get_ack_evt_addr_for_topsp_engine`), that the TOP_SP owns the
//! `timestamp_inc` tick and that NCFW reads and aligns the TPB timestamp
//! (`dev_tsync`: timestamp_local / timestamp_tpb / timestamp_tpb_val, "MED /
//! INFERRED"). How the dies align is not in the seeds; the exchange here is
//! ours (`[D]`): a two-way exchange in the manner of PTP, die 0 the leader,
//! one follower at a time, every message a semaphore INC or SET through the
//! SoC port:
//!
//! | step | who | what |
//! |---|---|---|
//! | 1 | host, die by die, [`TsyncCfg::stagger`] mesh cycles apart | write the config block at `read_config_addr`, set_init_signal |
//! | 2 | each TOP_SP | see init, start its timestamp, INC the acknowledgement at `get_ack_evt_addr_for_topsp_engine` |
//! | 3 | host | read each die's acknowledgement semaphore; set_tsync_signal on every die |
//! | 4 | leader, for die d | snapshot t1, INC d's SYNC |
//! | 5 | die d | see SYNC, snapshot t2 then t3, INC the leader's DELAY_REQ |
//! | 6 | leader | see DELAY_REQ, snapshot t4, SET d's T1 and T4 pairs, INC d's DELAY_RESP |
//! | 7 | die d | add -((t2 - t1) - (t4 - t3)) / 2 to its timestamp |
//!
//! Checks: every acknowledgement landed after its init signal; every
//! TOP_SP finished; before the sync the dies' counters were apart by more
//! than the tolerance (so the sync had something to do); after it, at one
//! mesh cycle, every die's counter is within [`TsyncCfg::tolerance`] of the
//! leader's; each follower's adjustment is the one its recorded t1..t4 give.

use crate::firmware::tsync_out as out;
use super::*;
use crate::mesh::die_addr;
use tpb_models::hal::tsync::INIT_ACK_SEM;

/// `[tsync]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TsyncCfg {
    /// Dies when `tpb sim` is not given `--dies`.
    pub dies: usize,
    /// Cycles a SoC access takes between dies, each way (`[D]`).
    pub link_latency: u64,
    /// Mesh cycles between one die's init signal and the next's: the skew
    /// the counters start with.
    pub stagger: u64,
    /// The most cycles a die's counter may differ from the leader's after the sync.
    pub tolerance: u64,
}

/// `[D]` The time-sync messages' semaphores (TOP_SP EVT_SEM), clear of the
/// doorbells (80, 88, 104) and the acknowledgement (81).
pub fn sems(map: &tpb_models::regmap::RegMap) -> Result<firmware::TsyncSems, ScenarioError> {
    let alias = |name: &str| {
        map.block("top_sp").and_then(|b| b.alias(name)).map(|a| a.index).ok_or_else(|| ScenarioError::NotApplicable {
            scenario: "tsync",
            arch: map.arch.name(),
            why: "its TOP_SP has no init_signal/tsync_signal semaphore",
        })
    };
    Ok(firmware::TsyncSems { init: alias("init_signal")?, tsync: alias("tsync_signal")?, sync: 96, delay_req: 97, delay_resp: 98, t1: 100, t4: 102 })
}

/// A 64-bit result of die `c`'s TOP_SP.
fn out64(c: &Cosim, at: u32) -> u64 {
    let w = |o| u64::from(c.top_sp_dram(firmware::TSYNC_OUT + o).unwrap_or(0));
    w(at) | w(at + 4) << 32
}

/// Each die's counter minus the leader's, this mesh cycle.
fn skews(m: &Mesh) -> Vec<i64> {
    m.dies.iter().map(|c| c.out.timestamp.wrapping_sub(m.dies[0].out.timestamp) as i64).collect()
}

/// A sync that ran, for its checks ([`Ran::check`]).
pub struct Ran {
    pub mesh: Mesh,
    pub cfg: TsyncCfg,
    sems: firmware::TsyncSems,
    limit: u64,
    /// Every TOP_SP acknowledged within the limit; every TOP_SP halted after tsync.
    acked: bool,
    done: bool,
    /// Each die's counter minus the leader's just before tsync_signal.
    before: Vec<i64>,
    /// Mesh cycle of the tsync signals, and die 0's cycle then.
    start: (u64, u64),
}

/// Run the handshake and the sync on `n` dies of `arch` and check them;
/// with `trace`, die k writes `die_path(trace, k)`.
pub fn tsync(arch: Arch, cfg: &TsyncCfg, n: usize, limit: u64, trace: Option<&Path>) -> Result<(Report, Mesh), ScenarioError> {
    let mut ran = run(arch, cfg, n, limit, trace)?;
    let r = ran.check();
    if trace.is_some() {
        ran.mesh.trace_close()?;
    }
    Ok((r?, ran.mesh))
}

/// Set up `n` dies, ring init (staggered), wait for the acknowledgements,
/// ring tsync and run until every TOP_SP halted or `limit` cycles pass.
pub fn run(arch: Arch, cfg: &TsyncCfg, n: usize, limit: u64, trace: Option<&Path>) -> Result<Ran, ScenarioError> {
    let mut m = Mesh::new(arch, n, cfg.link_latency)?;
    let map = m.dies[0].map().clone();
    let s = sems(&map)?;
    if let Some(p) = trace {
        m.trace(p)?;
    }
    let hal = Hal::with_map(map.clone());
    let a = Addrs::new(&map, "tsync");
    let config = hal.read_config_addr(0)?;
    let inc0 = hal.get_trigger_addr(0, 0)?;
    let set0 = inc0 - u64::from(a.sem(Engine::TopSp, WindowOp::Inc, 0)? - a.sem(Engine::TopSp, WindowOp::Set, 0)?);
    let prog = firmware::top_sp_tsync(&map, &s, config as u32, inc0 as u32, set0 as u32)?;
    let his: Vec<u32> = (0..n as u32).map(|d| die_addr(inc0, d).map(|x| (x >> 32) as u32)).collect::<Result<_, _>>()?;
    let release = a.reg(Engine::TopSp, "nx", "release_run_stall")?;
    for (d, c) in m.dies.iter_mut().enumerate() {
        let ack = die_addr(hal.get_ack_evt_addr_for_topsp_engine(0)?, d as u32)?;
        let mut block = vec![d as u32, n as u32, ack as u32, (ack >> 32) as u32];
        block.extend(&his);
        c.write_buf(config, &words(&block))?;
        c.load_top_sp(&prog.bytes, &[])?;
        c.write32(release.into(), 0)?;
    }
    // 1-2. The init signals, a stagger apart; every TOP_SP acknowledges.
    let ack_inc = a.sem(Engine::TopSp, WindowOp::Inc, INIT_ACK_SEM)?;
    for d in 0..n {
        hal.topsp_set_init_signal(&mut m.dies[d])?;
        m.run_until_all(cfg.stagger, |_| false);
    }
    let acked = m.run_until_all(limit, |c| first(c, |x| x.master == Master::Core(CoreId::TopSp) && x.write && x.addr == ack_inc).is_some());
    // 3. tsync, on every die.
    let before = skews(&m);
    for c in m.dies.iter_mut() {
        hal.topsp_set_tsync_signal(c)?;
    }
    let start = (m.now, m.dies[0].stats.cycles);
    let done = m.run_until_all(limit, |c| c.core(CoreId::TopSp).core.halted());
    // The last adjustment's write has been answered; its pulse lands a cycle later.
    m.run_until_all(4, |_| false);
    Ok(Ran { mesh: m, cfg: cfg.clone(), sems: s, limit, acked, done, before, start })
}

impl Ran {
    /// The checks of the module's list, on what the dies logged and hold now.
    pub fn check(&mut self) -> Result<Report, ScenarioError> {
        let Ran { mesh: m, cfg, sems: s, limit, acked, done, before, start } = self;
        let (n, limit) = (m.dies.len(), *limit);
        let map = m.dies[0].map().clone();
        let a = Addrs::new(&map, "tsync");
        let (init, ack_inc, ack_read) =
            (a.sem(Engine::TopSp, WindowOp::Set, s.init)?, a.sem(Engine::TopSp, WindowOp::Inc, INIT_ACK_SEM)?, a.sem(Engine::TopSp, WindowOp::Read, INIT_ACK_SEM)?);
        let mut r = Report::default();
        let spread = |v: &[i64]| v.iter().map(|x| x.unsigned_abs()).max().unwrap_or(0);
        // Measured before any host access below moves one die alone.
        let after = skews(m);
        for (d, c) in m.dies.iter_mut().enumerate() {
            let signal = first(c, |x| x.master == Master::Host && x.write && x.addr == init).map(|x| x.cycle);
            let ack = first(c, |x| x.master == Master::Core(CoreId::TopSp) && x.write && x.addr == ack_inc).map(|x| x.cycle);
            let v = c.read_checked(ack_read.into(), u32::MAX)?;
            r.check(
                c.stats.cycles,
                *acked && v == 1 && matches!((signal, ack), (Some(s), Some(a)) if s < a),
                format!("die {d}: init_signal at {}, the TOP_SP's acknowledgement at {}, the host reads it as {v}", at_cycle(signal), at_cycle(ack)),
            )?;
        }
        r.check(
            start.0,
            spread(before) > cfg.tolerance,
            format!("before the sync the counters are apart by up to {} cycles (more than the tolerance {}: the sync has something to do)", spread(before), cfg.tolerance),
        )?;
        for (d, c) in m.dies.iter().enumerate() {
            let marker = c.top_sp_dram(firmware::TSYNC_OUT + out::DONE).unwrap_or(0);
            r.check(c.stats.cycles, *done && marker == firmware::TSYNC_DONE, format!("die {d}: the sync finished within {limit} cycles (marker {marker:#x})"))?;
        }
        for (d, c) in m.dies.iter().enumerate().skip(1) {
            let [t1, t2, t3, t4] = [out::T1, out::T2, out::T3, out::T4].map(|o| out64(c, o));
            let want = ((t2.wrapping_sub(t1).wrapping_sub(t4.wrapping_sub(t3)) as i64) >> 1).wrapping_neg();
            let got = out64(c, out::ADJUST) as i64;
            r.check(c.stats.cycles, got == want, format!("die {d}: adjustment {got} = -((t2 - t1) - (t4 - t3)) / 2 from t1 {t1} t2 {t2} t3 {t3} t4 {t4}"))?;
            r.value(format!("die{d}.adjust"), got as u64);
        }
        r.check(
            m.now,
            spread(&after) <= cfg.tolerance,
            format!("after the sync every counter is within {} cycles of the leader's (tolerance {}): {after:?}", spread(&after), cfg.tolerance),
        )?;
        for d in 0..n {
            r.value(format!("die{d}.skew_before"), before[d] as u64);
            r.value(format!("die{d}.skew_after"), after[d] as u64);
        }
        r.value("dies", n as u64);
        r.value("max_skew_before", spread(before));
        r.value("max_skew_after", spread(&after));
        r.value("sync_cycles", m.now - start.0);
        r.value("link_latency", m.latency);
        r.value("skipped_die_cycles", m.stats().skipped);
        r.events.push((start.1, "tsync_signal (die 0's cycle)".into()));
        r.crossings = m.crossings.clone();
        r.stats = m.stats();
        Ok(r)
    }
}

impl Scenario for TsyncCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::Dies(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if !(2..=crate::mesh::MAX_DIES).contains(&self.dies) || self.stagger == 0 {
            return Err(ScenarioError::File(format!(
                "{path}: [tsync] dies = {} (2..={}), stagger = {} (not 0: the sync needs counters that start apart)",
                self.dies,
                crate::mesh::MAX_DIES,
                self.stagger
            )));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec![G::Tsync, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, _: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        Vec::new()
    }
}

impl OnDies for TsyncCfg {
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        dies_in_range(requested.unwrap_or(self.dies), "tsync")
    }
    fn run_dies(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        tsync(arch, self, dies, limit, trace).map(|(r, _)| r)
    }
}
