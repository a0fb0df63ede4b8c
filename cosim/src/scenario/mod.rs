//! Co-simulation scenarios with checked endings (`cosim/scenarios/*.toml`).
//!
//! Every built-in scenario, what runs and what is checked: docs/scenarios.md,
//! which `tpb regen` writes from each file's `what_runs` and
//! `what_is_checked` ([`ScenarioFile::table`]); the kinds are the registry
//! below (`kinds!`). A collective's tapes can be data of the file
//! ([`collective::data`], `tpb scenario emit`).
//!
//! SUNDA's host_trigger is a register of its own (DIGEST §2.7) that latches
//! into the TOP_SP's `intr_info` (`tpb_spec::nx_intr`), so `doorbell` runs
//! there with the same firmware. SUNDA has no `mesh` (its peer die is
//! sp_base\[8\], and SUNDA has 6 TOP_SPs) and no `tsync` (the seeds give it
//! no init/tsync doorbell); the collectives reach dies by chip id.
//!
//! Rooms: this file holds the registry of kinds (`kinds!`), the traits,
//! the report and the helpers the kinds share; `file.rs` reads and checks a
//! scenario file; a file per kind (`barrier.rs`, …) holds its table, its
//! checks on it, its [`Scenario`] and the run. Adding a kind is that file,
//! a `cosim/scenarios/*.toml` and one line of the registry.

use crate::firmware::{self, Addrs, FirmwareError};
use crate::mesh::Mesh;
use crate::sched::{CoreId, Cosim, CosimError, Master, Stats, Txn};
pub use crate::waves::GroupName as G;
use std::path::Path;
use tpb_models::hal::{DmaConfig, Hal, HalError, Mmio, RingConfig, StpbConfig, UcodeImages};
use tpb_models::ncfw::mesh::{DmaApbBcast, MeshEvent, MeshEventType};
use tpb_models::ncfw::spad::{pack_ctrl, pack_slot, AlgType, CcOpTarget, SlotWord, SpadCtrlEntry};
use tpb_models::regmap::layout::SemWindows;
use tpb_models::regmap::WindowOp;
use tpb_models::regmap::{Arch, Engine};

mod file;
pub use crate::mesh::die_path;
pub use collective::Algorithm;
pub use doorbell::{ccop_program, SpadLoad};
pub use mesh::mesh_tape;

/// The registry: a kind is its table's name and its table's type, in the
/// file of that name beside this one (`barrier.rs`: `BarrierCfg`, its
/// [`Scenario`], the run). It makes the module, [`ScenarioFile`]'s
/// optional table, and [`KINDS`]; a file has exactly one kind's table.
macro_rules! kinds {
    ($($t:ident: $cfg:ident),* $(,)?) => {
        $(pub mod $t; pub use $t::{$t, $cfg};)*

        /// A scenario file (`cosim/scenarios/*.toml`, or a user's): what it
        /// is, where it applies, its cycle limit, and one kind's table
        /// (`[barrier]`, …), which names the kind.
        #[derive(Debug, Clone, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ScenarioFile {
            pub name: String,
            pub description: String,
            pub archs: Vec<String>,
            /// Cycle limit for the ending.
            pub cycles: u64,
            /// What runs and what is checked, in prose: docs/scenarios.md's
            /// table ([`ScenarioFile::table`]) reads them.
            #[serde(default)]
            pub what_runs: String,
            #[serde(default)]
            pub what_is_checked: String,
            $(#[serde(default)] pub $t: Option<$cfg>,)*
        }

        /// The kinds, by their tables' names.
        pub const KINDS: &[&str] = &[$(stringify!($t)),*];

        impl ScenarioFile {
            /// The kind tables present: (name, the kind).
            fn tables(&self) -> Vec<(&'static str, &dyn Scenario)> {
                let mut v: Vec<(&'static str, &dyn Scenario)> = Vec::new();
                $(if let Some(c) = &self.$t { v.push((stringify!($t), c)); })*
                v
            }
        }
    };
}

kinds! {
    bringup: BringupCfg,
    doorbell: DoorbellCfg,
    barrier: BarrierCfg,
    mesh: MeshCfg,
    halt_start: HaltStartCfg,
    notify: NotifyCfg,
    interrupt: InterruptCfg,
    q7_kernels: Q7KernelsCfg,
    dispatch: DispatchCfg,
    windows: WindowsCfg,
    collective: CollectiveCfg,
    tsync: TsyncCfg,
    timestamp: TimestampCfg,
    fetch_order: FetchOrderCfg,
    kernel_load: KernelLoadCfg,
}

/// The built-in scenarios, `cosim/scenarios/*.toml` by name: (file name, text).
pub const BUILTIN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// One kind of scenario as a runner (`tpb sim`, the tests) drives it: its
/// checks on the file, how it runs, what its save file opens on, which
/// diagrams it draws. [`ScenarioFile::scenario`] picks the file's kind.
pub trait Scenario {
    /// Check the kind's table before anything runs (`path` names the file).
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        let _ = path;
        Ok(())
    }
    /// How it runs: on one system the runner builds, or on dies of its own.
    fn runs(&self) -> Runs<'_>;
    /// The cycles the save file opens on and the diagrams show: `(from, to, groups first)`.
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)>;
    /// The diagrams a traced run draws: `(group, from, to)`, `view` the key window.
    fn diagrams(&self, s: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        let _ = view;
        match s.first_release {
            Some(rel) => vec![(G::RunStall, rel.saturating_sub(12), rel + 16), (G::Q7Core0, rel, rel + 24)],
            None => Vec::new(),
        }
    }
    /// The key window with the run's checked events (and the first
    /// run-stall release) as markers.
    fn key_view(&self, r: &Report, s: &Stats) -> Option<crate::waves::View> {
        let mut markers: Vec<(u64, String)> = r.events.iter().filter(|e| e.0 > 0).cloned().collect();
        if let Some(rel) = s.first_release {
            markers.push((rel, "run-stall release".into()));
        }
        markers.sort();
        let (from, to, focus) = self.key_window(r, s)?;
        Some(crate::waves::View { from, to, markers, focus })
    }
    /// It runs on one system the runner builds.
    fn single_system(&self) -> bool {
        matches!(self.runs(), Runs::OneSystem(_))
    }
    /// Run on `c` (a kind on one system) and check the ending within `limit` cycles.
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        match self.runs() {
            Runs::OneSystem(k) => k.run_on(c, limit),
            Runs::Dies(_) => Err(ScenarioError::NotApplicable { scenario: "this scenario", arch: c.map().arch.name(), why: "it runs on dies of its own: run_dies" }),
        }
    }
    /// How many dies it runs on when asked for `requested` (`--dies`).
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        match (self.runs(), requested) {
            (Runs::Dies(k), _) => k.dies(requested),
            (Runs::OneSystem(_), None | Some(1)) => Ok(1),
            (Runs::OneSystem(_), Some(n)) => Err(ScenarioError::File(format!("--dies {n}: this scenario runs on one die"))),
        }
    }
    /// TOP_SPs (tops) per die.
    fn top_sps(&self) -> usize {
        match self.runs() {
            Runs::Dies(k) => k.top_sps(),
            Runs::OneSystem(_) => 1,
        }
    }
    /// Run on `dies` systems of its own (a kind on dies), die k traced into `die_path(trace, k)`.
    fn run_dies(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        match self.runs() {
            Runs::Dies(k) => k.run_dies(arch, dies, limit, trace),
            Runs::OneSystem(_) => Err(ScenarioError::NotApplicable { scenario: "this scenario", arch: arch.name(), why: "it runs on one system: run_on" }),
        }
    }
}

/// How a kind runs.
pub enum Runs<'a> {
    /// On one system the runner builds (and traces).
    OneSystem(&'a dyn OneSystem),
    /// On dies of its own.
    Dies(&'a dyn OnDies),
}

/// A kind that runs on one system.
pub trait OneSystem {
    /// Run on `c` and check the ending within `limit` cycles.
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError>;
}

/// A kind that runs on dies of its own.
pub trait OnDies {
    /// How many dies it runs on when asked for `requested` (`--dies`).
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError>;
    /// TOP_SPs (tops) per die.
    fn top_sps(&self) -> usize {
        1
    }
    /// Run on `dies` systems, die k traced into `die_path(trace, k)`.
    fn run_dies(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError>;
    /// As [`OnDies::run_dies`], with what the dies counted left in `ran`
    /// also when a check fails (a kind that cannot tell leaves it as it was).
    fn run_dies_counted(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>, ran: &mut Stats) -> Result<Report, ScenarioError> {
        let _ = ran;
        self.run_dies(arch, dies, limit, trace)
    }
}

/// `n` dies for `what` (a kind on N dies): 2 to [`crate::mesh::MAX_DIES`].
fn dies_in_range(n: usize, what: &str) -> Result<usize, ScenarioError> {
    if !(2..=crate::mesh::MAX_DIES).contains(&n) {
        return Err(ScenarioError::File(format!("--dies {n}: {what} runs on 2 to {} dies", crate::mesh::MAX_DIES)));
    }
    Ok(n)
}

/// One diagram of `group` over the key window `view` (none without one).
fn over_view(group: G, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
    view.map(|v| vec![(group, v.from, v.to)]).unwrap_or_default()
}

/// From the first to the last marker (checked events and the first
/// run-stall release), widened (barrier, mesh, the collectives, tsync).
fn events_window(r: &Report, s: &Stats) -> Option<(u64, u64)> {
    let cycles = r.events.iter().map(|e| e.0).filter(|c| *c > 0).chain(s.first_release);
    let (first, last) = (cycles.clone().min()?, cycles.max()?);
    Some((first.saturating_sub(8), last + 16))
}

/// Why a scenario failed: setup, the HAL, or a checked ending.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Cosim(#[from] CosimError),
    #[error("HAL: {0}")]
    Hal(#[from] HalError),
    #[error("{0}")]
    File(String),
    #[error("firmware {0}")]
    Firmware(#[from] FirmwareError),
    #[error("{scenario} does not apply to {arch}: {why}")]
    NotApplicable { scenario: &'static str, arch: &'static str, why: &'static str },
    #[error("check failed at cycle {cycle}: {what}")]
    Check { cycle: u64, what: String },
    #[error("{0}")]
    Layout(#[from] tpb_models::regmap::layout::LayoutError),
    #[error("kernel library: {0}")]
    Dkl(#[from] kernel_load::library::DklError),
    /// A SPAD table the scenario built that does not pack.
    #[error(transparent)]
    Pack(#[from] tpb_models::ncfw::PackError),
}

impl ScenarioError {
    /// A trace that could not be written whole (a full disk): the run has no
    /// waves to show.
    pub fn is_trace_write(&self) -> bool {
        matches!(self, ScenarioError::Cosim(CosimError::Verilator(crate::verilator::VlError::TraceWrite { .. })))
    }
}

impl From<tpb_models::hal::MmioError> for ScenarioError {
    fn from(e: tpb_models::hal::MmioError) -> Self {
        ScenarioError::Hal(e.into())
    }
}

/// What a scenario did and saw.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every check that passed, in order.
    pub checks: Vec<String>,
    /// Named observations (`q7[3].sum`, `init_done`, `step_sem`, ...).
    pub values: std::collections::BTreeMap<String, u64>,
    /// Counters (summed over the dies of a mesh).
    pub stats: Stats,
    /// Cycle of each checked event, in order (`host_trigger`, `doorbell#1`, ...).
    pub events: Vec<(u64, String)>,
    /// Requests that crossed between dies (the scenarios on several dies).
    pub crossings: Vec<crate::mesh::Crossing>,
    /// The cycles of the two events the save file opens around, recorded by
    /// the run where it sees them (a kind's [`Scenario::key_window`] widens
    /// them), rather than found again by their text.
    pub key: Option<(u64, u64)>,
    /// Coverage points the run verified (`tpb cover`'s `points`: the
    /// HW-decode paths `dispatch` checked, the collective that passed).
    pub points: Vec<String>,
    /// Logs the run read back and decoded, by node (the NCFW context log of
    /// each stepper, `tpb_models::ncfw::log`), as lines to show.
    pub logs: Vec<(String, Vec<String>)>,
}

impl Report {
    fn check(&mut self, cycle: u64, ok: bool, what: impl Into<String>) -> Result<(), ScenarioError> {
        let what = what.into();
        if ok {
            self.checks.push(what);
            Ok(())
        } else {
            Err(ScenarioError::Check { cycle, what })
        }
    }
    fn value(&mut self, k: impl Into<String>, v: u64) {
        self.values.insert(k.into(), v);
    }
    /// The value recorded under `k` (0 if none).
    pub fn get(&self, k: &str) -> u64 {
        self.values.get(k).copied().unwrap_or(0)
    }
}

/// `[D]` SEQ DMA SRAM layout of the doorbell scenario: RX descriptors at
/// 0x000, TX at 0x080 (8 each), then per descriptor slot a source and a
/// destination buffer of [`DATA_WORDS`] words.
pub const RING_LEN: u32 = 8;
const RX_RING: u32 = 0x000;
const TX_RING: u32 = 0x080;
const DATA: u32 = 0x100;
pub const DATA_WORDS: u32 = 4;

/// The SEQ DMA rings `stpb_init` sets up when a run uses the DMA (a
/// testbench file's `stpb_init = true` with `dma = true`): RX at
/// `RX_RING`, TX at `TX_RING`, [`RING_LEN`] descriptors each.
pub fn dma_rings() -> DmaConfig {
    DmaConfig { rx: RingConfig { base: RX_RING, length: RING_LEN }, tx: RingConfig { base: TX_RING, length: RING_LEN }, mem_window2: 0 }
}

fn region(c: &Cosim, name: &str) -> Result<u64, ScenarioError> {
    firmware::bar0_region(c.map(), name).map(u64::from).ok_or_else(|| ScenarioError::File(format!("no BAR0 region '{name}' in {}", c.map().arch.name())))
}

/// The bring-up every scenario starts from: `stpb_init` with the SEQ boot
/// firmware and `q7` as the Q7 images (and the SEQ DMA rings with `dma`).
/// Returns the cycle it finished.
fn init(c: &mut Cosim, q7: UcodeImages, dma: bool) -> Result<u64, ScenarioError> {
    let arch = c.map().arch;
    let seq = firmware::nx_boot(c.map(), arch == Arch::Sunda)?;
    init_with(c, seq.bytes, q7, dma)
}

/// As [`init`] with `seq` as the SEQ's IRAM image.
fn init_with(c: &mut Cosim, seq: Vec<u8>, q7: UcodeImages, dma: bool) -> Result<u64, ScenarioError> {
    let mut cfg = StpbConfig::new(UcodeImages { iram: seq, dram: vec![0; 16] }, q7);
    cfg.pooling.dma = dma.then(dma_rings);
    Hal::with_map(c.map().clone()).stpb_init(c, &cfg, None)?;
    Ok(c.stats.cycles)
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The first logged transaction matching `f`.
/// A cycle that may not have come, as a check's message says it.
fn at_cycle(c: Option<u64>) -> String {
    c.map_or_else(|| "never".into(), |c| format!("cycle {c}"))
}

/// Transactions, one after another, as a check's message lists them.
fn txns(t: &[Txn]) -> String {
    if t.is_empty() {
        return "none".into();
    }
    t.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("; ")
}

fn first(c: &Cosim, f: impl Fn(&Txn) -> bool) -> Option<Txn> {
    c.log.iter().find(|t| f(t)).copied()
}

fn last(c: &Cosim, f: impl Fn(&Txn) -> bool) -> Option<Txn> {
    c.log.iter().rev().find(|t| f(t)).copied()
}

/// Host polls `addr` until `done(value)`, within `limit` cycles.
fn poll(c: &mut Cosim, addr: u64, limit: u64, done: impl Fn(u32) -> bool) -> Result<Option<u32>, ScenarioError> {
    let end = c.stats.cycles + limit;
    while c.stats.cycles < end {
        let v = c.read_checked(addr, u32::MAX)?;
        if done(v) {
            return Ok(Some(v));
        }
        c.run(16);
    }
    Ok(None)
}

/// A field of the register at `addr` (host read).
fn field(c: &mut Cosim, e: Engine, block: &str, reg: &str, f: &str) -> Result<u32, ScenarioError> {
    let a = Addrs::new(c.map(), "scenario").reg(e, block, reg)?;
    let r = c.map().block(block).and_then(|b| b.register(reg)).and_then(|r| r.field(f)).cloned().ok_or_else(|| ScenarioError::File(format!("no field {block}.{reg}.{f}")))?;
    let v = c.read_checked(a.into(), r.mask())?;
    Ok((v & r.mask()) >> r.lsb)
}
