//! Co-simulation scenarios with checked endings (`cosim/scenarios/*.toml`).
//!
//! | kind | generations | what runs | what is checked |
//! |---|---|---|---|
//! | `bringup` | all | the HAL's `stpb_init` + `pooling_init`: SEQ firmware (`nx_boot.S`) and the Q7 kernel (`q7_sum.S`) installed over BAR0; the SEQ boots through the DIGEST §1 trampoline to enter_run; the Q7 cores are released (CAYMAN/MARIANA by the host, SUNDA by the SEQ firmware) and run | who released the Q7 cores, every core's sum, done marker and run_state, the SEQ's enter_run mark and its run_state running, then halted after the host's stop |
//! | `doorbell` | all | set-up as bringup plus the SEQ DMA rings; the host writes DMA descriptors, stages the CTRL/SLOT SPADs in device memory, the TOP_SP-init DMA queue copies them onto the TPB (`spad_load = "pio"`: the host writes them) and the host fires host_trigger; the TOP_SP (`top_sp_ccop.S`) walks the cc_op program, rings the DMA tail-pointer doorbells, waits GE on the step semaphore the DMA completes into, and the reporter posts completion; the host polls it | the SPADs hold the program, every SPAD word came by the init DMA before host_trigger, semaphore values, DMA done counters and data copies, the firmware's counts, and the event order host_trigger → tail pointers → DMA doorbells → completion → host |
//! | `barrier` | all | the Q7 cores run `q7_barrier.S` on the POOL EVT_SEM | every core passed only after the last arrival, saw ≥ N, the leader's DECs came after every departure, both semaphores end at 0 |
//! | `halt-start` | all | stpb_init with `nx_halt.S` as the SEQ firmware and `q7_halt.S` as the Q7 kernel; the SEQ records its entry and halts itself through instr_halt_ctrl (DIGEST §2.8), the host sees it in run_state and restarts it at another address through start_addr/start_ctrl; the Q7 cores HALT and the host restarts the chosen ones | run_state halted (and not running) after each halt, the top holding the SEQ (no instruction retired while held), the restart address taken, the entries recorded in DRAM (kept across a start), only the chosen Q7 cores restarted |
//! | `notify` | all | stpb_init (which arms the three notification classes) with `nx_halt.S` and `q7_sum.S`; the SEQ halts itself and the Q7 cores HALT; the host changes three engines' semaphores, reads an unmapped address, and rings the SEQ DMA with one good descriptor and one whose completion address is outside the INC window; after each step the HAL's reader reads the ring | the halt records (the SEQ and the 8 Q7 cores once each, the SEQ's posted within 8 cycles of its halt write), the EVT_SEM records in write order, the BAR0-error record with its address, DMA done, the TOP_SP semaphore it incremented and the DMA error in that order; no drop, sequence numbers without a gap |
//! | `interrupt` | all | stpb_init with `nx_intr.S` and `q7_intr.S`: the cores set INTENABLE and drop to user mode; the host enables the Q7 cores' intr_ctrl; then raises the SEQ's interrupt (intr_ctrl.raise), sets a POOL semaphore (the SEQ and every Q7 core), rings a DMA descriptor whose completion address is outside the INC window, and raises the chosen Q7 cores; each handler (the user vector) reads, clears and logs intr_info and returns with RFE | each interrupt taken once with the right intr_info bit (host 8, EVT_SEM 4, DMA error 1), the SEQ halted after three, the chosen Q7 cores after two, the others still waiting, the SEQ's loop running between interrupts |
//! | `q7-kernels` | SUNDA | bring-up with `q7_kernels.S` as the Q7 image and a DRAM image holding a request list and the 18-record kernel_info_table (DIGEST §9) at its data-window VA; each core's dispatch wrapper linear-scans the table per request and calls the kernel at funcVA (code-window VA); the SEQ releases the cores | the shell fits SUNDA's flat Q7 IRAM, every core's record per request in order (0xff for an opcode with no record), each kernel's call count, the misses, the done marker |
//! | `dispatch` | all | stpb_init with `nx_dispatch.S` as the SEQ firmware (its front end per generation) and its DRAM image (boot flag, software tables); CAYMAN/MARIANA: the HAL programs the CAM with the handlers marked `cam`. The host feeds the stream through the SEQ's instruction queue (a DRAM ring, refilled as the SEQ consumes); CAYMAN/MARIANA run it three times, the SEQ halted and restarted from reset with the next boot flag: HW-decode with software fallback, HW-decode with the miss interrupt, Sunda-mode; SUNDA once (base subtraction, segment tables, leaves) | every instruction's handler and path in order against the reference ([`dispatch::expect`]), each handler's count and operand sum (the unknown's too), the miss interrupts taken, intr_info's CAM-miss bit (set by misses without an interrupt in the fallback mode, cleared by the handler in the interrupt mode) |
//! | `windows` | all | the HAL programs POOL's address-translation windows (window 0 for the SEQ, 1..7 for Q7 cores 0..6, all onto TOP_SP INC semaphores) and mem_window2; the SEQ (`nx_windows.S`) stores through window 0 and mem_window2, every Q7 core (`q7_windows.S`) stores once to the same address | each target semaphore's count (each Q7 core's store on its own semaphore), the first translated store on BAR0, Q7 core 7's store faulting (no window of its own), the SEQ without a fault |
//! | `mesh` | CAYMAN, MARIANA | two TPB tops as dies ([`crate::mesh::Mesh`]), each TOP_SP running `mesh_tape.S` on its own event tape; cross-die SIGNALs routed by the SoC address's die bit | every die's tape completed (event_index = tape length), each semaphore's final value, and each cross-die SIGNAL arrived before the WAIT it releases passed |
//! | `collective` (`allreduce-ring`, `allreduce-mesh`, `allreduce-kangaring`, `allreduce-hier`, `barrier-global`) | all | N dies (`--dies N`, 2..=128; the all-reduces as far as their payload fits the SEQ DMA SRAM) with a link latency, each with `top_sps` TOP_SPs (1..=8, a top each); each TOP_SP (or with `stepper = "ncfw"` the NCFW core beside it) runs `mesh_tape.S` on the tape [`collective::tapes`] builds for the algorithm and the die (or the file's own, `[collective.tapes]`, [`collective::data`]; `algorithm = "all-reduce"` has no planner, only the file's tapes), or with `channels` the ring's channel program `ring_channels.S` ([`collective::channel_programs`]: the channels of its CTRL SPAD cc_op entry's channel_list, send/wait complete; the hierarchical all-reduce's three chained entries, [`collective::hierarchical_programs`]); SIGNALs routed by chip id and die bit; DMA legs add chunks and send them to other dies' SEQ DMA SRAM (SoC writes) | every die's tape completed; every WAIT on a cross-die semaphore passed only after the SIGNAL that brought it to its count landed; each semaphore's final count; every word of every vector the sum of its group's inputs, the chunks and the group owed from the collective's definition, not the plan; each group's (die's) completion posted once, by its leader (instance 0; a channel program's reporter), after its last WAIT, and by no other TOP_SP; a channel program's scoreboard per channel and its run_state; the barrier: no die left before every die's arrival landed |
//! | `tsync` | CAYMAN, MARIANA | N dies (`--dies N`, 2..=128); the host writes each TOP_SP's config block at `read_config_addr` and rings init_signal die by die, a stagger apart; each TOP_SP (`top_sp_tsync.S`) starts its TPB timestamp and acknowledges; the host rings tsync_signal; die 0 leads a two-way exchange with each other die and each follower adjusts its timestamp ([`tsync()`]) | every acknowledgement after its init signal (read by the host), every TOP_SP finished, the counters apart by at least the stagger before, within the tolerance of the leader's after (one mesh cycle), each adjustment the one its t1..t4 give |
//! | `timestamp` | all | the host HAL puts the TPB timestamp just below a carry into `timestamp_hi`, runs it at `inc` a cycle, takes two snapshots `gap` cycles apart and adjusts it by `delta` | the snapshots differ by exactly `inc` × the cycles between them (the carry included), and the adjustment by exactly `delta` |
//! | `fetch-order` (`fetch-order`, `fetch-order-wrong`) | all | the SEQ fetches through its I-cache, which its I-fetch DMA fills from the SEQ image the host staged at `engine_base_address` in device memory (seed 004 §7; the HAL's IRAM image is empty); stpb_init in the seeds' order, or with the SEQ's run-stall released first | in order: dma_ctrl enabled before the release, the SEQ reaches enter_run, lines filled and none dropped, every filled word device memory's; released first: the first fetch's fill dropped while dma_ctrl was 0, the SEQ hung with nothing retired, as designed |
//! | `kernel_load` (`kernel-load`) | all | kernel delivery: the host prelinks and stages the kernel library (`kernel_load/library.rs`), EXTRAM and the swap table; the SEQ (`nx_extinst.S`) hands Q7 instructions to a core and waits; the core (`q7_dkl.S`) loads a kernel on its first request | every handed instruction's record and result; each core's loads, IRAM images and counters; the swap registers or the stubs |
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
