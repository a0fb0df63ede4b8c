//! Co-simulation scenarios with checked endings.
//!
//! `bringup` (CAYMAN, MARIANA: the generations whose host releases the Q7
//! cores, DIGEST §2.9): the host HAL's `stpb_init` + `pooling_init` run
//! against the Verilated top through [`Cosim`]; the Q7 kernel
//! (`cosim/firmware/q7_sum.S`, assembled here) is installed into every Q7
//! core's IRAM and its input into every DRAM over BAR0; the HAL releases the
//! cores; the 8 behavioural cores fetch, load and store through their RTL
//! memory ports; the host then reads each core's result and run_state back
//! over BAR0. SUNDA's Q7 release is done by the SEQ firmware on the NX core,
//! which this scheduler does not run yet.

use crate::sched::{Cosim, CosimError, Stats};
use tpb_models::hal::{Hal, HalError, Mmio, PoolingConfig, StpbConfig, UcodeImages};
use tpb_models::regmap::{Arch, Engine};
use tpb_models::xtensa::asm::assemble;
use tpb_models::xtensa::config::Options;

/// A scenario file (`cosim/scenarios/*.toml`, or a user's).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    pub description: String,
    /// What runs: `bringup`.
    pub kind: Kind,
    pub archs: Vec<String>,
    /// Kernel input (bringup).
    #[serde(default = "default_n")]
    pub n: u32,
    /// Cycle limit for the ending.
    pub cycles: u64,
}

fn default_n() -> u32 {
    20
}

/// Scenario kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Bringup,
}

/// The built-in scenarios: (file name, text).
pub const BUILTIN: &[(&str, &str)] = &[("bringup.toml", include_str!("../scenarios/bringup.toml"))];

impl ScenarioFile {
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
        Ok(f)
    }

    /// A built-in scenario by name, or a scenario file by path.
    pub fn find(name_or_path: &str) -> Result<ScenarioFile, ScenarioError> {
        if let Some((file, text)) = BUILTIN.iter().find(|(f, _)| f.trim_end_matches(".toml") == name_or_path) {
            return ScenarioFile::parse(&format!("cosim/scenarios/{file}"), text);
        }
        let p = std::path::Path::new(name_or_path);
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

/// The Q7 kernel's source (see the file for what it does).
pub const Q7_SUM_SRC: &str = include_str!("../firmware/q7_sum.S");
/// Done marker the kernel stores in DRAM[2].
pub const DONE: u32 = 0x600d;

/// Why a scenario failed: setup, the HAL, or a checked ending.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Cosim(#[from] CosimError),
    #[error("HAL: {0}")]
    Hal(#[from] HalError),
    #[error("{0}")]
    File(String),
    #[error("firmware: {0}")]
    Firmware(String),
    #[error("{scenario} does not apply to {arch}: {why}")]
    NotApplicable { scenario: &'static str, arch: &'static str, why: &'static str },
    #[error("check failed at cycle {cycle}: {what}")]
    Check { cycle: u64, what: String },
}

/// What `bringup` did and saw.
#[derive(Debug, Clone)]
pub struct BringupReport {
    /// Per core: (n, sum read back over BAR0).
    pub sums: Vec<(u32, u32)>,
    /// Cycle the HAL's stpb_init finished, and the cycle every core had halted.
    pub init_done: u64,
    pub all_halted: u64,
    pub stats: Stats,
    /// Checks that passed.
    pub checks: usize,
}

/// The Q7 kernel for `arch`, assembled at 0.
pub fn q7_kernel(arch: Arch) -> Result<Vec<u8>, ScenarioError> {
    let map = tpb_models::regmap::builtin(arch).map_err(|e| ScenarioError::Firmware(e.to_string()))?;
    let jump = map.params.boot.q7_reset_jump.unwrap_or(0x200);
    let src = Q7_SUM_SRC.replace("{RESET_JUMP}", &format!("{jump:#x}"));
    let p = assemble(&src, 0, &Options::tpb()).map_err(|e| ScenarioError::Firmware(format!("q7_sum.S: {e}")))?;
    Ok(p.bytes)
}

/// Run the bring-up scenario on `c` (a fresh co-simulation) with kernel input `n`.
pub fn bringup(c: &mut Cosim, n: u32, cycle_limit: u64) -> Result<BringupReport, ScenarioError> {
    let arch = c.map().arch;
    if arch == Arch::Sunda {
        return Err(ScenarioError::NotApplicable { scenario: "bringup", arch: arch.name(), why: "SUNDA's Q7 cores are released by the SEQ firmware, not the host" });
    }
    let mut dram = n.to_le_bytes().to_vec();
    dram.resize(16, 0);
    let cfg = StpbConfig {
        notific_ring_base: 0x0000_0004_8000_0000,
        notific_ring_size: 256,
        pooling: PoolingConfig {
            instr_debug_level: 0,
            engine_id_a: 0x2,
            engine_id_b: 0x5,
            seq: UcodeImages { iram: vec![0; 16], dram: vec![0; 16] },
            engine_base_address: 0,
            q7: UcodeImages { iram: q7_kernel(arch)?, dram },
            hw_decode: Default::default(),
            dma: None,
        },
    };
    Hal::for_arch(arch)?.stpb_init(c, &cfg, None)?;
    let init_done = c.stats.cycles;
    let check = |c: &Cosim, ok: bool, what: String| if ok { Ok(()) } else { Err(ScenarioError::Check { cycle: c.stats.cycles, what }) };
    let mut checks = 0;
    check(c, c.out.q7_run_stall == 0, format!("the HAL released every Q7 core (q7_run_stall = {:#x})", c.out.q7_run_stall))?;
    checks += 1;
    let halted = c.run_until(cycle_limit, |c| c.q7.iter().all(|q| q.core.halted()));
    let not: Vec<usize> = c.q7.iter().enumerate().filter(|(_, q)| !q.core.halted()).map(|(k, _)| k).collect();
    check(c, halted, format!("cores {not:?} not halted after {cycle_limit} cycles"))?;
    checks += 1;
    let all_halted = c.stats.cycles;
    c.run(2);
    // The host reads the results and run_state back over BAR0.
    let regions = c.map().params.bar0_regions();
    let pool = c.map().params.local_reg_base(Engine::Pool).unwrap_or(0);
    let q7 = c.map().block("q7").cloned();
    let mut sums = Vec::new();
    for k in 0..8u32 {
        let base = regions.iter().find(|r| r.name == format!("q7[{k}].dram")).map(|r| r.region.base).ok_or_else(|| ScenarioError::Firmware(format!("no q7[{k}].dram region")))?;
        let want_n = n + k;
        let sum = c.read32(base + 4).map_err(HalError::from)?;
        let marker = c.read32(base + 8).map_err(HalError::from)?;
        check(c, sum == want_n * (want_n + 1) / 2, format!("core {k}: sum {sum} for n = {want_n}, expected {}", want_n * (want_n + 1) / 2))?;
        check(c, marker == DONE, format!("core {k}: done marker {marker:#x}"))?;
        if let Some(r) = q7.as_ref().and_then(|b| b.register(&format!("run_state_{k}"))) {
            let v = c.read32(pool + u64::from(r.offset)).map_err(HalError::from)?;
            let halted_bit = r.field("halted").map_or(0, |f| (v & f.mask()) >> f.lsb);
            let running_bit = r.field("running").map_or(1, |f| (v & f.mask()) >> f.lsb);
            check(c, halted_bit == 1 && running_bit == 0, format!("core {k}: run_state_{k} = {v:#x}, expected halted and not running"))?;
            checks += 1;
        }
        checks += 2;
        sums.push((want_n, sum));
    }
    Ok(BringupReport { sums, init_done, all_halted, stats: c.stats, checks })
}
