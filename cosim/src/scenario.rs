//! Co-simulation scenarios with checked endings (`cosim/scenarios/*.toml`).
//!
//! | kind | generations | what runs | what is checked |
//! |---|---|---|---|
//! | `bringup` | all | the HAL's `stpb_init` + `pooling_init`: SEQ firmware (`nx_boot.S`) and the Q7 kernel (`q7_sum.S`) installed over BAR0; the SEQ boots through the DIGEST §1 trampoline to enter_run; the Q7 cores are released (CAYMAN/MARIANA by the host, SUNDA by the SEQ firmware) and run | who released the Q7 cores, every core's sum, done marker and run_state, the SEQ's enter_run mark and its run_state running, then halted after the host's stop |
//! | `doorbell` | CAYMAN, MARIANA | set-up as bringup plus the SEQ DMA rings; the host writes DMA descriptors, loads the CTRL/SLOT SPADs and fires host_trigger; the TOP_SP (`top_sp_ccop.S`) walks the cc_op program, rings the DMA tail-pointer doorbells, waits GE on the step semaphore the DMA completes into, and the reporter posts completion; the host polls it | semaphore values, DMA done counters and data copies, the firmware's counts, and the event order host_trigger → tail pointers → DMA doorbells → completion → host |
//! | `barrier` | all | the Q7 cores run `q7_barrier.S` on the POOL EVT_SEM | every core passed only after the last arrival, saw ≥ N, the leader's DECs came after every departure, both semaphores end at 0 |
//! | `mesh` | CAYMAN, MARIANA | two TPB tops as dies ([`crate::mesh::Mesh`]), each TOP_SP running `mesh_tape.S` on its own event tape; cross-die SIGNALs routed by the SoC address's die bit | every die's tape completed (event_index = tape length), each semaphore's final value, and each cross-die SIGNAL arrived before the WAIT it releases passed |
//!
//! SUNDA has no `doorbell`/`mesh`: its host_trigger is a pulse register the
//! TOP_SP firmware cannot poll as a semaphore (DIGEST §2.7, §3 choice (a)).

use crate::firmware::{self, Addrs, FirmwareError};
use crate::mesh::Mesh;
use crate::sched::{CoreId, Cosim, CosimError, Master, Stats, Txn};
use std::path::Path;
use tpb_models::regmap::layout::SemWindows;
use tpb_models::regmap::WindowOp;
use tpb_models::hal::{DmaConfig, Hal, HalError, Mmio, PoolingConfig, RingConfig, StpbConfig, UcodeImages};
use tpb_models::ncfw::mesh::{DmaApbBcast, MeshEvent, MeshEventType};
use tpb_models::ncfw::spad::{pack_ctrl, pack_slot, AlgType, CcOpTarget, SlotWord, SpadCtrlEntry};
use tpb_models::regmap::{Arch, Engine};

/// A scenario file (`cosim/scenarios/*.toml`, or a user's).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    pub description: String,
    pub kind: Kind,
    pub archs: Vec<String>,
    /// Cycle limit for the ending.
    pub cycles: u64,
    /// bringup: kernel input (core k sums 1..(n + k)).
    #[serde(default = "default_n")]
    pub n: u32,
    #[serde(default)]
    pub doorbell: Option<DoorbellCfg>,
    #[serde(default)]
    pub barrier: Option<BarrierCfg>,
    #[serde(default)]
    pub mesh: Option<MeshCfg>,
}

fn default_n() -> u32 {
    20
}

/// Scenario kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Bringup,
    Doorbell,
    Barrier,
    Mesh,
}

/// `[doorbell]`: the cc_op program.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorbellCfg {
    /// TOP_SP semaphore the DMA descriptors complete into.
    pub step_sem: u32,
    /// TOP_SP semaphore the reporter's completion increments.
    pub compl_sem: u32,
    /// Words each descriptor copies.
    pub words: u32,
    /// CTRL entries, each a list of STEP words `[m2s, s2m, repeat]`; every
    /// entry but the last ends with CONTINUE, the last with END (reporter).
    pub entries: Vec<Vec<[u32; 3]>>,
}

/// `[barrier]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierCfg {
    /// POOL EVT_SEM semaphores: arrivals and departures.
    pub arrive_sem: u32,
    pub depart_sem: u32,
    /// Work units before arriving (core k spins units × (k + 1)).
    pub work: u32,
}

/// `[mesh]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshCfg {
    /// First of the 4 TOP_SP semaphores the tape uses.
    pub first_sem: u32,
}

/// The built-in scenarios: (file name, text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("bringup.toml", include_str!("../scenarios/bringup.toml")),
    ("doorbell.toml", include_str!("../scenarios/doorbell.toml")),
    ("barrier.toml", include_str!("../scenarios/barrier.toml")),
    ("mesh.toml", include_str!("../scenarios/mesh.toml")),
];

/// What a parsed scenario runs: its kind with the table that kind needs
/// (a file without it is refused by [`ScenarioFile::parse`]).
#[derive(Debug, Clone, Copy)]
pub enum Program<'a> {
    Bringup { n: u32 },
    Doorbell(&'a DoorbellCfg),
    Barrier(&'a BarrierCfg),
    /// Two dies in lockstep: [`mesh`] runs its own systems.
    Mesh(&'a MeshCfg),
}

impl ScenarioFile {
    /// The kind with its table.
    pub fn program(&self) -> Result<Program<'_>, ScenarioError> {
        let missing = |what: &str| ScenarioError::File(format!("{}: kind = \"{what}\" needs a [{what}] table", self.name));
        Ok(match self.kind {
            Kind::Bringup => Program::Bringup { n: self.n },
            Kind::Doorbell => Program::Doorbell(self.doorbell.as_ref().ok_or_else(|| missing("doorbell"))?),
            Kind::Barrier => Program::Barrier(self.barrier.as_ref().ok_or_else(|| missing("barrier"))?),
            Kind::Mesh => Program::Mesh(self.mesh.as_ref().ok_or_else(|| missing("mesh"))?),
        })
    }

    /// Run a single-system scenario on `c` (every kind but the mesh, which
    /// runs its own dies: [`mesh`]).
    pub fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        match self.program()? {
            Program::Bringup { n } => bringup(c, n, limit),
            Program::Doorbell(d) => doorbell(c, d, limit),
            Program::Barrier(b) => barrier(c, b, limit),
            Program::Mesh(_) => Err(ScenarioError::NotApplicable { scenario: "mesh", arch: c.map().arch.name(), why: "it runs two dies of its own: scenario::mesh" }),
        }
    }

    /// Parse a scenario file; errors name `path:line:column`.
    pub fn parse(path: &str, text: &str) -> Result<ScenarioFile, ScenarioError> {
        let f: ScenarioFile = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((0, 0), |s| {
                let before = &text[..s.start.min(text.len())];
                (before.matches('\n').count() + 1, before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1)
            });
            ScenarioError::File(format!("{path}:{line}:{col}: {}", e.message()))
        })?;
        for a in &f.archs {
            Arch::parse(a).map_err(|_| ScenarioError::File(format!("{path}: archs: '{a}' is not a generation (sunda, cayman, mariana)")))?;
        }
        let need = |ok: bool, what: &str| if ok { Ok(()) } else { Err(ScenarioError::File(format!("{path}: kind = \"{}\" needs a [{what}] table", what))) };
        match f.kind {
            Kind::Bringup => {}
            Kind::Doorbell => need(f.doorbell.is_some(), "doorbell")?,
            Kind::Barrier => need(f.barrier.is_some(), "barrier")?,
            Kind::Mesh => need(f.mesh.is_some(), "mesh")?,
        }
        if let Some(d) = &f.doorbell {
            if d.entries.is_empty() || d.entries.iter().any(|e| e.is_empty()) {
                return Err(ScenarioError::File(format!("{path}: [doorbell] entries: every entry needs at least one [m2s, s2m, repeat] step")));
            }
            if let Some(s) = d.entries.iter().flatten().find(|s| s[0] > RING_LEN || s[1] > RING_LEN || s[2] > 255) {
                return Err(ScenarioError::File(format!("{path}: [doorbell] step {s:?}: m2s and s2m at most {RING_LEN} (the ring length), repeat at most 255")));
            }
            if !(1..=DATA_WORDS).contains(&d.words) {
                return Err(ScenarioError::File(format!("{path}: [doorbell] words = {}: 1..={DATA_WORDS}", d.words)));
            }
        }
        Ok(f)
    }

    /// A built-in scenario by name, or a scenario file by path.
    pub fn find(name_or_path: &str) -> Result<ScenarioFile, ScenarioError> {
        if let Some((file, text)) = BUILTIN.iter().find(|(f, _)| f.trim_end_matches(".toml") == name_or_path) {
            return ScenarioFile::parse(&format!("cosim/scenarios/{file}"), text);
        }
        let p = Path::new(name_or_path);
        if p.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(p).map_err(|e| ScenarioError::File(format!("{name_or_path}: {e}")))?;
            return ScenarioFile::parse(name_or_path, &text);
        }
        let known: Vec<&str> = BUILTIN.iter().map(|(f, _)| f.trim_end_matches(".toml")).collect();
        Err(ScenarioError::File(format!("no scenario '{name_or_path}' (built in: {}; or give a .toml file)", known.join(", "))))
    }

    /// Does it apply to `arch`?
    pub fn applies(&self, arch: Arch) -> bool {
        self.archs.iter().any(|a| a == arch.name())
    }
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

fn region(c: &Cosim, name: &str) -> Result<u64, ScenarioError> {
    firmware::bar0_region(c.map(), name).map(u64::from).ok_or_else(|| ScenarioError::File(format!("no BAR0 region '{name}' in {}", c.map().arch.name())))
}

/// The bring-up every scenario starts from: `stpb_init` with the SEQ boot
/// firmware and `q7` as the Q7 images (and the SEQ DMA rings with `dma`).
/// Returns the cycle it finished.
fn init(c: &mut Cosim, q7: UcodeImages, dma: bool) -> Result<u64, ScenarioError> {
    let arch = c.map().arch;
    let seq = firmware::nx_boot(c.map(), arch == Arch::Sunda)?;
    let cfg = StpbConfig {
        notific_ring_base: 0x0000_0004_8000_0000,
        notific_ring_size: 256,
        pooling: PoolingConfig {
            instr_debug_level: 0,
            engine_id_a: 0x2,
            engine_id_b: 0x5,
            seq: UcodeImages { iram: seq.bytes, dram: vec![0; 16] },
            engine_base_address: 0,
            q7,
            hw_decode: Default::default(),
            dma: dma.then_some(DmaConfig { rx: RingConfig { base: RX_RING, length: RING_LEN }, tx: RingConfig { base: TX_RING, length: RING_LEN }, mem_window2: 0 }),
        },
    };
    Hal::with_map(c.map().clone()).stpb_init(c, &cfg, None)?;
    Ok(c.stats.cycles)
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The first logged transaction matching `f`.
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
        let v = c.read32(addr)?;
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
    let v = c.read32(a.into())?;
    Ok((v & r.mask()) >> r.lsb)
}

/// `bringup`: see the module table.
pub fn bringup(c: &mut Cosim, n: u32, limit: u64) -> Result<Report, ScenarioError> {
    let arch = c.map().arch;
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
    // Who released the Q7 cores: the host (CAYMAN/MARIANA) or the SEQ (SUNDA).
    let rel = Addrs::new(c.map(), "scenario").reg(Engine::Pool, "q7", "release_run_stall")?;
    let released = c.run_until(limit, |c| c.out.q7_run_stall == 0);
    r.check(c.stats.cycles, released, format!("every Q7 core released (q7_run_stall = {:#x})", c.out.q7_run_stall))?;
    let who = last(c, |t| t.write && t.addr == rel && t.data & 0xff == 0).map(|t| t.master);
    let want = if arch == Arch::Sunda { Master::Core(CoreId::Seq) } else { Master::Host };
    r.check(c.stats.cycles, who == Some(want), format!("the Q7 cores were released by the {want} (DIGEST §2.9 step 6), saw {who:?}"))?;
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

/// `doorbell`: see the module table.
pub fn doorbell(c: &mut Cosim, d: &DoorbellCfg, limit: u64) -> Result<Report, ScenarioError> {
    let arch = c.map().arch;
    let map = c.map().clone();
    let top = firmware::top_sp_ccop(&map, d.step_sem).map_err(|e| match firmware::host_trigger_index(&map) {
        Err(_) => ScenarioError::NotApplicable { scenario: "doorbell", arch: arch.name(), why: "its host_trigger is a pulse register, not an EVT_SEM semaphore the TOP_SP polls" },
        Ok(_) => e.into(),
    })?;
    let hal = Hal::with_map(map.clone());
    let mut r = Report::default();
    init(c, UcodeImages { iram: firmware::q7_sum(&map)?.bytes, dram: vec![1, 0, 0, 0] }, true)?;
    let a = Addrs::new(&map, "doorbell");
    // DMA descriptors and their data (DMA SRAM offsets).
    let dma = region(c, "seq.dma")?;
    let inc = |idx: u32| -> Result<u32, ScenarioError> { Ok(hal.get_trigger_addr(0, idx)? as u32) };
    let total = |col: usize| -> u32 { d.entries.iter().flatten().map(|s| s[col] * s[2].max(1)).sum() };
    let (m2s, s2m) = (total(0), total(1));
    let mut pattern = Vec::new();
    for (ring, base, slot0) in [(0u32, RX_RING, 0u32), (1, TX_RING, RING_LEN)] {
        let mut desc = Vec::new();
        for k in 0..RING_LEN {
            let slot = slot0 + k;
            let (src, dst) = (DATA + slot * 2 * 4 * DATA_WORDS, DATA + (slot * 2 + 1) * 4 * DATA_WORDS);
            desc.extend([src, dst, d.words, inc(d.step_sem)?]);
            let data: Vec<u32> = (0..d.words).map(|w| 0xd0_0000 | ring << 16 | k << 8 | w).collect();
            c.write_buf(dma + u64::from(src), &words(&data))?;
            pattern.push((dst, data));
        }
        c.write_buf(dma + u64::from(base), &words(&desc))?;
    }
    // The TOP_SP: firmware, released by the host.
    c.load_top_sp(&top.bytes, &[])?;
    c.write32(a.reg(Engine::TopSp, "nx", "release_run_stall")?.into(), 0)?;
    // The cc_op program.
    let n = d.entries.len();
    let mut ctrl = Vec::new();
    let mut slot = Vec::new();
    for (i, steps) in d.entries.iter().enumerate() {
        let last = i + 1 == n;
        ctrl.push(SpadCtrlEntry {
            cc_op: true,
            algo_type: AlgType::Ring,
            algo_sub_type: 0,
            trigger_next: !last,
            reporter: last,
            ring_wait_complete: false,
            ring_send_complete: false,
            safe_mode: false,
            unique_tensors: false,
            target: CcOpTarget::ChannelList(1),
        });
        slot.extend(steps.iter().map(|s| SlotWord::Step { m2s: s[0] as u16, s2m: s[1] as u16, repeat: s[2] as u8 }));
        slot.push(if last { SlotWord::End { compl_addrs: vec![hal.get_trigger_addr(0, d.compl_sem)?] } } else { SlotWord::Continue });
    }
    let (ctrl, slot) = (pack_ctrl(&ctrl).map_err(|e| ScenarioError::File(e.to_string()))?, pack_slot(&slot).map_err(|e| ScenarioError::File(e.to_string()))?);
    let trig = firmware::host_trigger_index(&map)?;
    let trig_addr = a.sem(Engine::TopSp, WindowOp::Set, trig)?;
    hal.load_spad_and_kick(c, &ctrl, &slot)?;
    let kick = last(c, |t| t.master == Master::Host && t.write && t.addr == trig_addr).map(|t| t.cycle);
    r.check(c.stats.cycles, kick.is_some(), format!("the host fired host_trigger (SET of TOP_SP semaphore {trig})"))?;
    // The host waits for the reporter's completion.
    let compl = a.sem(Engine::TopSp, WindowOp::Read, d.compl_sem)?;
    let seen = poll(c, compl.into(), limit, |v| v >= 1)?;
    let fw = |c: &Cosim, k: u32| c.top_sp_dram(4 * k).unwrap_or(0);
    r.check(c.stats.cycles, seen.is_some(), format!("the host saw the completion on TOP_SP semaphore {} within {limit} cycles (firmware state: marker {:#x}, {} entries, {} descriptors)", d.compl_sem, fw(c, 2), fw(c, 0), fw(c, 1)))?;
    let host_saw = c.stats.cycles;
    c.run_until(limit, |c| c.core(CoreId::TopSp).core.halted());
    r.check(c.stats.cycles, fw(c, 2) == firmware::CCOP_DONE, format!("the TOP_SP program ended (marker {:#x}, word kind {:#x})", fw(c, 2), fw(c, 3)))?;
    r.check(c.stats.cycles, fw(c, 0) == n as u32, format!("the TOP_SP walked {} CTRL entries, expected {n}", fw(c, 0)))?;
    r.check(c.stats.cycles, fw(c, 1) == m2s + s2m, format!("the TOP_SP waited for {} descriptors, expected {}", fw(c, 1), m2s + s2m))?;
    let sem = |c: &mut Cosim, i: u32| -> Result<u32, ScenarioError> { Ok(c.read32(a.sem(Engine::TopSp, WindowOp::Read, i)?.into())?) };
    let (step, done, t) = (sem(c, d.step_sem)?, sem(c, d.compl_sem)?, sem(c, trig)?);
    r.check(c.stats.cycles, step == m2s + s2m, format!("step semaphore {} = {step}: one DMA doorbell per descriptor, expected {}", d.step_sem, m2s + s2m))?;
    r.check(c.stats.cycles, done == 1, format!("completion semaphore {} = {done}, expected 1", d.compl_sem))?;
    r.check(c.stats.cycles, t == 0, format!("host_trigger semaphore {trig} = {t}: consumed by the firmware"))?;
    let st = |c: &mut Cosim, off: u64| -> Result<u32, ScenarioError> { Ok(c.read32(dma + u64::from(tpb_hdl::seq_dma::STATUS) + off)?) };
    let (rx_done, tx_done, errs) = (st(c, 0x08)?, st(c, 0x14)?, st(c, 0x18)?);
    r.check(c.stats.cycles, rx_done == m2s && tx_done == s2m && errs == 0, format!("DMA done rx {rx_done} tx {tx_done} error {errs:#x}, expected {m2s} / {s2m} / 0"))?;
    r.check(c.stats.cycles, c.stats.doorbells == u64::from(m2s + s2m), format!("{} DMA completion doorbells on dma_db_valid, expected {}", c.stats.doorbells, m2s + s2m))?;
    let used = |ring: u32| if ring == 0 { m2s.min(RING_LEN) } else { s2m.min(RING_LEN) };
    for (i, (dst, data)) in pattern.iter().enumerate() {
        let (ring, k) = (i as u32 / RING_LEN, i as u32 % RING_LEN);
        if k >= used(ring) {
            continue;
        }
        for (w, v) in data.iter().enumerate() {
            let got = c.read32(dma + u64::from(*dst) + 4 * w as u64)?;
            r.check(c.stats.cycles, got == *v, format!("ring {ring} descriptor {k} word {w}: copied {got:#x}, expected {v:#x}"))?;
        }
    }
    // Event order.
    let rx_tail = a.reg(Engine::Pool, "nx", "dma_rx_ring_tail_inc")?;
    let tx_tail = a.reg(Engine::Pool, "nx", "dma_tx_ring_tail_inc")?;
    let tail = |t: &Txn| t.master == Master::Core(CoreId::TopSp) && t.write && (t.addr == rx_tail || t.addr == tx_tail);
    let first_tail = first(c, tail).map(|t| t.cycle);
    let compl_inc = a.sem(Engine::TopSp, WindowOp::Inc, d.compl_sem)?;
    let post = first(c, |t| t.master == Master::Core(CoreId::TopSp) && t.write && t.addr == compl_inc).map(|t| t.cycle);
    let dbs = c.doorbell_cycles.clone();
    let order = [kick, first_tail, dbs.first().copied(), dbs.last().copied(), post, Some(host_saw)];
    r.check(c.stats.cycles, order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]), format!("event order host_trigger < first tail pointer < first DMA doorbell < last DMA doorbell < completion posted < host saw it: {order:?}"))?;
    let names = ["host_trigger", "first tail-pointer write", "first DMA doorbell", "last DMA doorbell", "completion posted", "host saw completion"];
    r.events = names.iter().zip(order).map(|(n, c)| (c.unwrap_or(0), n.to_string())).collect();
    let tails = c.log.iter().filter(|t| tail(t)).count();
    r.value("tail_pointer_writes", tails as u64);
    r.value("descriptors", u64::from(m2s + s2m));
    r.stats = c.stats;
    Ok(r)
}

/// `barrier`: see the module table.
pub fn barrier(c: &mut Cosim, b: &BarrierCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let cores = 8u32;
    let mut r = Report::default();
    let k = firmware::q7_barrier(&map, b.arrive_sem, b.depart_sem, cores)?;
    let mut dram = b.work.to_le_bytes().to_vec();
    dram.resize(16, 0);
    init(c, UcodeImages { iram: k.bytes, dram }, false)?;
    let halted = c.run_until(limit, |c| c.q7().iter().all(|q| q.core.halted()));
    let not: Vec<usize> = c.q7().iter().enumerate().filter(|(_, q)| !q.core.halted()).map(|(k, _)| k).collect();
    r.check(c.stats.cycles, halted, format!("cores {not:?} not through the barrier after {limit} cycles"))?;
    let a = Addrs::new(&map, "barrier");
    let (arrive_inc, arrive_read) = (a.sem(Engine::Pool, WindowOp::Inc, b.arrive_sem)?, a.sem(Engine::Pool, WindowOp::Read, b.arrive_sem)?);
    let (depart_inc, arrive_dec, depart_dec) = (a.sem(Engine::Pool, WindowOp::Inc, b.depart_sem)?, a.sem(Engine::Pool, WindowOp::Dec, b.arrive_sem)?, a.sem(Engine::Pool, WindowOp::Dec, b.depart_sem)?);
    let q7 = |t: &Txn| matches!(t.master, Master::Core(CoreId::Q7(_)));
    let arrivals: Vec<Txn> = c.log.iter().filter(|t| q7(t) && t.write && t.addr == arrive_inc).copied().collect();
    r.check(c.stats.cycles, arrivals.len() == cores as usize, format!("{} arrivals (INC), expected {cores}", arrivals.len()))?;
    let last_arrival = arrivals.iter().map(|t| t.cycle).max().unwrap_or(0);
    for n in 0..cores as u8 {
        let pass = first(c, |t| t.master == Master::Core(CoreId::Q7(n)) && !t.write && t.addr == arrive_read && t.data >= cores);
        r.check(c.stats.cycles, pass.is_some_and(|p| p.cycle > last_arrival), format!("core {n} passed (read >= {cores}) at {:?}, after the last arrival at {last_arrival}", pass.map(|p| p.cycle)))?;
        let base = region(c, &format!("q7[{n}].dram"))?;
        let (seen, marker) = (c.read32(base + 4)?, c.read32(base + 8)?);
        r.check(c.stats.cycles, seen >= cores && marker == firmware::BARRIER_DONE, format!("core {n}: saw {seen} when it passed, marker {marker:#x}"))?;
        r.value(format!("q7[{n}].arrived"), arrivals.iter().find(|t| t.master == Master::Core(CoreId::Q7(n))).map_or(0, |t| t.cycle));
    }
    let last_depart = c.log.iter().filter(|t| q7(t) && t.write && t.addr == depart_inc).map(|t| t.cycle).max().unwrap_or(u64::MAX);
    let decs: Vec<Txn> = c.log.iter().filter(|t| t.write && (t.addr == arrive_dec || t.addr == depart_dec)).copied().collect();
    r.check(c.stats.cycles, decs.len() == 2 && decs.iter().all(|t| t.master == Master::Core(CoreId::Q7(0)) && t.data == cores && t.cycle > last_depart), format!("the leader's two DECs by {cores} come after the last departure at {last_depart}: {decs:?}"))?;
    for (what, idx) in [("arrive", b.arrive_sem), ("depart", b.depart_sem)] {
        let v = c.read32(a.sem(Engine::Pool, WindowOp::Read, idx)?.into())?;
        r.check(c.stats.cycles, v == 0, format!("{what} semaphore {idx} ends at {v}, expected 0"))?;
    }
    r.value("last_arrival", last_arrival);
    r.events = arrivals.iter().map(|t| (t.cycle, format!("{} arrives", t.master))).collect();
    r.stats = c.stats;
    Ok(r)
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
    let mut mesh = Mesh::new(arch, 2)?;
    if let Some(p) = trace {
        for (k, c) in mesh.dies.iter_mut().enumerate() {
            c.trace(&die_path(p, k)).map_err(CosimError::from)?;
        }
    }
    let hal = Hal::for_arch(arch)?;
    let mut r = Report::default();
    let tapes = (0..2u32)
        .map(|d| {
            let c = &mesh.dies[d as usize];
            let a = Addrs::new(c.map(), "mesh");
            mesh_tape(&hal, d, m.first_sem, a.reg(Engine::Pool, "nx", "dma_rx_ring_tail_inc")?)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let prog = firmware::mesh_tape(mesh.dies[0].map(), tapes[0].len() as u32, 1)?;
    for (d, c) in mesh.dies.iter_mut().enumerate() {
        init(c, UcodeImages { iram: firmware::q7_sum(&c.map().clone())?.bytes, dram: vec![1, 0, 0, 0] }, true)?;
        // One descriptor per die: 4 words, completing into TOP_SP semaphore first_sem + 1.
        let dma = region(c, "seq.dma")?;
        let desc = [DATA, DATA + 16, DATA_WORDS, hal.get_trigger_addr(0, m.first_sem + 1)? as u32];
        c.write_buf(dma + u64::from(RX_RING), &words(&desc))?;
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
    let done = mesh.run_until(limit, |m| m.dies.iter().all(|c| c.core(CoreId::TopSp).core.halted()));
    let ctx = |c: &Cosim, off: u32| c.top_sp_dram(firmware::ALGO_CTX + off).unwrap_or(0);
    for (d, c) in mesh.dies.iter().enumerate() {
        r.check(c.stats.cycles, done || c.core(CoreId::TopSp).core.halted(), format!("die {d}: the tape did not complete in {limit} cycles (event_index {})", ctx(c, 0x204) & 0xffff))?;
        let idx = ctx(c, 0x204) & 0xffff;
        r.check(c.stats.cycles, idx == tapes[d].len() as u32 && ctx(c, 0x208) == firmware::TAPE_DONE, format!("die {d}: event_index {idx} of {}, marker {:#x}", tapes[d].len(), ctx(c, 0x208)))?;
        r.value(format!("die{d}.event_index"), idx.into());
    }
    for (d, c) in mesh.dies.iter_mut().enumerate() {
        let map = c.map().clone();
        let a = Addrs::new(&map, "mesh");
        for i in 0..4 {
            let v = c.read32(a.sem(Engine::TopSp, WindowOp::Read, m.first_sem + i)?.into())?;
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
            r.check(c.stats.cycles, matches!((sig, pass), (Some(s), Some(p)) if s.cycle < p.cycle), format!("die {d}: the peer's SIGNAL of semaphore {} ({:?}) came before the WAIT passed ({:?})", m.first_sem + i, sig.map(|t| t.cycle), pass.map(|t| t.cycle)))?;
            if let Some(s) = sig {
                r.events.push((s.cycle, format!("die {d} receives {} SIGNAL of semaphore {}", s.master, m.first_sem + i)));
            }
        }
        let copied = c.read32(region(c, "seq.dma")? + u64::from(DATA + 16))?;
        r.check(c.stats.cycles, copied == 0xd1e0 + d as u32, format!("die {d}: the DMA leg copied {copied:#x}"))?;
    }
    r.events.sort();
    for c in &mesh.dies {
        let s = c.stats;
        r.stats.cycles = r.stats.cycles.max(s.cycles);
        r.stats.transactions += s.transactions;
        r.stats.core_transactions += s.core_transactions;
        r.stats.elided += s.elided;
        r.stats.retired += s.retired;
        r.stats.bus_waits += s.bus_waits;
        r.stats.stalls_released += s.stalls_released;
        r.stats.doorbells += s.doorbells;
        r.stats.first_release = r.stats.first_release.or(s.first_release);
    }
    r.value("remote_transactions", mesh.remote);
    if trace.is_some() {
        for c in &mut mesh.dies {
            c.dut.trace_close().map_err(CosimError::from)?;
        }
    }
    Ok((r, mesh))
}

/// `waves/x.vcd` → `waves/x.die1.vcd`.
pub fn die_path(p: &Path, k: usize) -> std::path::PathBuf {
    let ext = p.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_else(|| "vcd".into());
    p.with_extension(format!("die{k}.{ext}"))
}
