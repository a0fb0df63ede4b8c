//! Firmware of the behavioural cores, kept as assembly source in
//! `cosim/firmware/` and assembled with the project's assembler
//! ([`tpb_models::xtensa::asm`]). Every address a program needs comes from
//! the generation's register map through a prelude of `.equ` constants (each
//! 32-bit value also as `NAME_HI` / `NAME_LO` halves for `const16`), so the
//! sources hold no generation's numbers.
//!
//! | source | core | what it does |
//! |---|---|---|
//! | `nx_trampoline.S` | every NX program | DIGEST §1 boot trampoline, put in front of the three below |
//! | `nx_boot.S` | POOL SEQ | enter_run mailbox loop; SUNDA: releases the Q7 cores |
//! | `nx_halt.S` | POOL SEQ | halt-start: records each entry, halts itself through instr_halt_ctrl |
//! | `q7_halt.S` | Q7 | halt-start: records each entry, executes HALT |
//! | `q7_kernels.S` | Q7 (SUNDA) | the dispatch wrapper: linear scan of the kernel_info_table, call the kernel at funcVA, count misses |
//! | `nx_intr.S` | POOL SEQ | interrupt: level-1 handler logs and clears intr_info, RFE; halts after WANT |
//! | `q7_intr.S` | Q7 | interrupt: the same with the core's intr_info_n, HALT after WANT |
//! | `nx_dispatch.S` | POOL SEQ | dispatch: the instruction queue loop, the handlers' count routine |
//! | `nx_decode_hw.S` | POOL SEQ (CAYMAN, MARIANA) | its front end: HW-decode FIFO path, "Sunda-mode" software fetch (addi -65, 178 entries), miss interrupt; boot flag |
//! | `nx_decode_sunda.S` | POOL SEQ (SUNDA) | its front end: one base subtraction, segment tables, raw-compare leaves |
//! | `nx_windows.S` | POOL SEQ | windows: stores through window 0 and mem_window2; SUNDA: releases the Q7 cores |
//! | `q7_windows.S` | Q7 | windows: one store through the core's own window |
//! | `q7_sum.S` | Q7 | sums 1..n, halts (bring-up) |
//! | `q7_barrier.S` | Q7 | EVT_SEM barrier: arrive INC, wait GE, DEC |
//! | `top_sp_ccop.S` | TOP_SP | host_trigger wait, SPAD cc_op walker, DMA tail-pointer doorbells |
//! | `mesh_tape.S` | TOP_SP | NCFW mesh event-tape stepper (WAIT, DMA, SIGNAL, ADVANCE) |
//! | `ncfw_tape.S` | NCFW | the mesh tape stepped through the seeds' dispatch table at 0xb0, a handler per event type, idles in `waiti 15` |
//! | `ncfw_wait.S` | NCFW | the ten wait primitives (two register banks; bne / bltu / bgeu spin-polls), appended to `ncfw_tape.S` |
//! | `tape_fire.S` | TOP_SP or NCFW | the DMA leg's tail-pointer doorbell, appended to the three NCFW steppers |
//! | `ring_channels.S` | TOP_SP or NCFW | NCFW ring / kangaring / hierarchical channel program: the legs its CTRL SPAD entries chain, the channels of each entry's channel_list, a scoreboard per channel, the hierarchical run_state, send/wait complete |

use crate::sched::{SOC_PORT, SYSTEM_WINDOW};
use tpb_models::regmap::layout::SemWindows;
use tpb_models::regmap::WindowOp;
use tpb_models::regmap::{Engine, RegMap};
use tpb_models::xtensa::asm::{assemble, Program};
use tpb_models::xtensa::config::{Options, DRAM_BASE};

pub const NX_TRAMPOLINE: &str = include_str!("../firmware/nx_trampoline.S");
pub const NX_BOOT: &str = include_str!("../firmware/nx_boot.S");
pub const NX_HALT: &str = include_str!("../firmware/nx_halt.S");
pub const Q7_HALT: &str = include_str!("../firmware/q7_halt.S");
pub const NX_INTR: &str = include_str!("../firmware/nx_intr.S");
pub const NX_DISPATCH: &str = include_str!("../firmware/nx_dispatch.S");
pub const NX_DECODE_HW: &str = include_str!("../firmware/nx_decode_hw.S");
pub const NX_DECODE_SUNDA: &str = include_str!("../firmware/nx_decode_sunda.S");
pub const NX_WINDOWS: &str = include_str!("../firmware/nx_windows.S");
pub const Q7_WINDOWS: &str = include_str!("../firmware/q7_windows.S");
pub const Q7_KERNELS: &str = include_str!("../firmware/q7_kernels.S");
pub const Q7_INTR: &str = include_str!("../firmware/q7_intr.S");
pub const Q7_SUM: &str = include_str!("../firmware/q7_sum.S");
pub const Q7_BARRIER: &str = include_str!("../firmware/q7_barrier.S");
pub const TOP_SP_CCOP: &str = include_str!("../firmware/top_sp_ccop.S");
pub const MESH_TAPE: &str = include_str!("../firmware/mesh_tape.S");
pub const TOP_SP_TSYNC: &str = include_str!("../firmware/top_sp_tsync.S");
pub const NCFW_TAPE: &str = include_str!("../firmware/ncfw_tape.S");
pub const NCFW_WAIT: &str = include_str!("../firmware/ncfw_wait.S");
pub const TAPE_FIRE: &str = include_str!("../firmware/tape_fire.S");
pub const RING_CHANNELS: &str = include_str!("../firmware/ring_channels.S");

/// Value the SEQ stores in its DRAM[0] on reaching enter_run.
pub const SEQ_MARK: u32 = 0x5e90_e7e2;
/// Done markers: `q7_sum.S`, `q7_barrier.S`, `top_sp_ccop.S`, `mesh_tape.S`.
pub const SUM_DONE: u32 = 0x600d;
pub const BARRIER_DONE: u32 = 0xba77;
pub const CCOP_DONE: u32 = 0xd0e;
pub const CCOP_BAD: u32 = 0xbad;
pub const TAPE_DONE: u32 = 0x7a9e;
/// `ncfw_tape.S`'s marker for an event type past its table, and where its
/// per-event log starts (core-local DRAM offset; 16 bytes per event: the
/// handler id, the timestamp's low and high words).
pub const TAPE_BAD: u32 = 0x7a9b;
pub const NCFW_LOG: u32 = ALGO_CTX + 0x400;
/// `ncfw_tape.S`'s handler ids, by event type (0..14; the table at 0xb0).
pub const NCFW_HANDLERS: [u32; 14] = [1, 1, 1, 1, 2, 2, 3, 4, 5, 5, 5, 4, 4, 4];

/// `top_sp_tsync.S`'s done marker, and where its results start in the TOP_SP's DRAM.
pub const TSYNC_DONE: u32 = 0x75c;
pub const TSYNC_OUT: u32 = 0x100;

/// `q7_kernels.S`'s done marker.
pub const KERNELS_DONE: u32 = 0x6b9;
/// `[D]` The opcodes of the 18 kernel_info_table records `q7_kernels.S`
/// dispatches: the seed text keeps the range 0x41..0xe7 and a few of its
/// numbers (0x41, 0x43, 0x44, 0x49), not the roster, so the rest are ours.
pub const KERNEL_OPCODES: [u8; 18] = [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x60, 0x61, 0x62, 0x63, 0xe6, 0xe7];

/// `[D]` Where the mesh stepper finds algo_configs and algo_ctx (core-local DRAM offsets).
pub const ALGO_CONFIGS: u32 = 0x0000;
pub const ALGO_CTX: u32 = 0x8000;

/// A firmware source that did not assemble, or a constant the map lacks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct FirmwareError {
    pub file: &'static str,
    pub message: String,
}

/// `.equ` constants for a program.
#[derive(Debug, Clone, Default)]
pub struct Consts(Vec<(String, i64)>);

impl Consts {
    /// A constant, with `_HI`/`_LO` halves for `const16`.
    pub fn set(&mut self, name: &str, v: u32) -> &mut Self {
        self.0.push((name.into(), i64::from(v)));
        self.0.push((format!("{name}_HI"), i64::from(v >> 16)));
        self.0.push((format!("{name}_LO"), i64::from(v & 0xffff)));
        self
    }
    fn prelude(&self) -> String {
        self.0.iter().map(|(n, v)| format!(".equ {n}, {v:#x}\n")).collect()
    }
}

/// Assemble `src` (named `file`) at 0 with `consts`; errors give the source's own line.
pub fn build(file: &'static str, src: &str, consts: &Consts) -> Result<Program, FirmwareError> {
    build_appended(file, src, consts, false, &[])
}

/// An NX sequencer program: [`NX_TRAMPOLINE`] in front of `src` (which starts at `main`).
pub fn build_nx(file: &'static str, src: &str, consts: &Consts) -> Result<Program, FirmwareError> {
    build_appended(file, src, consts, true, &[])
}

/// The firmware units that stand alone as files: each `.include`s what it
/// needs (the generation's names, [`crate::cfw::ASM_PRELUDE`]; the NX
/// trampoline) and takes only its parameters as `.equ`s, so a user's file
/// assembles the same source (`[firmware.*] asm` with `set`).
pub const UNITS: &[(&str, &str)] = &[
    ("nx_trampoline.S", NX_TRAMPOLINE),
    ("nx_boot.S", NX_BOOT),
    ("nx_halt.S", NX_HALT),
    ("nx_intr.S", NX_INTR),
    ("q7_halt.S", Q7_HALT),
    ("q7_intr.S", Q7_INTR),
    ("q7_sum.S", Q7_SUM),
    ("q7_barrier.S", Q7_BARRIER),
    ("top_sp_ccop.S", TOP_SP_CCOP),
    ("nx_windows.S", NX_WINDOWS),
    ("q7_windows.S", Q7_WINDOWS),
];

/// Assemble the unit `file` of [`UNITS`] for `map` with its parameters
/// `params`; an error names the unit (or what it includes) and its own line.
pub fn build_unit(map: &RegMap, file: &'static str, params: &Consts) -> Result<Program, FirmwareError> {
    let root = format!("{}.include \"{file}\"\n", params.prelude());
    let mut includes = |want: &str, _from: &str| -> Result<(String, String), String> {
        if want == crate::cfw::ASM_PRELUDE {
            return Ok((format!("{want} ({})", map.arch.name()), crate::cfw::header::render_asm(map)?));
        }
        UNITS.iter().find(|(n, _)| *n == want).map(|(n, t)| (n.to_string(), t.to_string())).ok_or_else(|| format!("no firmware unit '{want}' (cosim/firmware/)"))
    };
    tpb_models::xtensa::asm::source::assemble_source("parameters", &root, 0, &Options::tpb(), &mut includes).map_err(|e| FirmwareError { file, message: e.to_string() })
}

/// `src` (behind [`NX_TRAMPOLINE`] if `nx`) with the shared routines in
/// `tail` (name, source) appended after it.
fn build_appended(file: &'static str, src: &str, consts: &Consts, nx: bool, tail: &[(&str, &str)]) -> Result<Program, FirmwareError> {
    let mut prelude = consts.prelude();
    if nx {
        // The trampoline names the entry as the units do (tpb.inc's TPB_ENTER_RUN).
        prelude += ".equ TPB_ENTER_RUN, ENTER_RUN\n";
    }
    let mut parts = vec![("prelude", prelude.as_str())];
    if nx {
        parts.push(("nx_trampoline.S", NX_TRAMPOLINE));
    }
    parts.push((file, src));
    parts.extend_from_slice(tail);
    build_parts(file, &parts)
}

/// Assemble the concatenation of `parts`; an error names the part and its own line.
fn build_parts(file: &'static str, parts: &[(&str, &str)]) -> Result<Program, FirmwareError> {
    let text: String = parts.iter().map(|(_, t)| if t.ends_with('\n') { t.to_string() } else { format!("{t}\n") }).collect();
    assemble(&text, 0, &Options::tpb()).map_err(|e| {
        let mut line = e.line;
        let mut at = format!("line {line}");
        for (name, t) in parts {
            let n = t.lines().count();
            if line <= n {
                at = if *name == file { format!("line {line}") } else { format!("{name} line {line}") };
                break;
            }
            line -= n;
        }
        FirmwareError { file, message: format!("{at}: {}", e.message) }
    })
}

fn err(file: &'static str, m: String) -> FirmwareError {
    FirmwareError { file, message: m }
}

/// The register map's numbers every program may use (names resolved in
/// the generation's address space, `tpb_regmap::space`).
pub struct Addrs<'a> {
    map: &'a RegMap,
    space: tpb_models::regmap::space::AddressSpace,
    file: &'static str,
}

impl<'a> Addrs<'a> {
    pub fn new(map: &'a RegMap, file: &'static str) -> Self {
        Addrs { map, space: tpb_models::regmap::space::AddressSpace::new(map.clone()), file }
    }
    /// The EVT_SEM windows of the map.
    fn sem_windows(&self) -> Result<SemWindows, FirmwareError> {
        SemWindows::of(self.map).map_err(|x| err(self.file, format!("{} map: {x}", self.map.arch.name())))
    }
    pub fn base(&self, e: Engine) -> Result<u32, FirmwareError> {
        self.map.params.local_reg_base(e).map(|b| b as u32).ok_or_else(|| err(self.file, format!("no local-register base for {}", e.name())))
    }
    /// BAR0 address of `block.register` of engine `e` (its RTL offset).
    pub fn reg(&self, e: Engine, block: &str, reg: &str) -> Result<u32, FirmwareError> {
        self.space.resolve(&format!("{}.{block}.{reg}", e.name())).map(|n| n.addr()).map_err(|x| err(self.file, format!("{} map: {x}", self.map.arch.name())))
    }
    /// BAR0 address of semaphore `idx` in window `op` of engine `e`'s EVT_SEM.
    pub fn sem(&self, e: Engine, op: WindowOp, idx: u32) -> Result<u32, FirmwareError> {
        let w = self.sem_windows()?;
        if idx >= w.count {
            return Err(err(self.file, format!("semaphore {idx} is past the {} of EVT_SEM", w.count)));
        }
        Ok(self.base(e)? + w.offset(op) + w.stride * idx)
    }
    pub fn region(&self, name: &str) -> Result<u32, FirmwareError> {
        bar0_region(self.map, name).ok_or_else(|| err(self.file, format!("no BAR0 region '{name}'")))
    }
    fn enter_run(&self) -> u32 {
        self.map.params.boot.nx_enter_run.unwrap_or(0x90) as u32
    }
}

/// Base of the BAR0 region `name` (`seq.dram`, `q7[3].dram`, `top_sp.ctrl_spad`, ...).
pub fn bar0_region(map: &RegMap, name: &str) -> Option<u32> {
    map.params.bar0_regions().iter().find(|r| r.name == name).map(|r| r.region.base as u32)
}

/// A BAR0 address as a core sees it (through the system window).
pub fn sys(a: u32) -> u32 {
    SYSTEM_WINDOW + a
}

/// The Q7 bundle's release_run_stall as the SEQ reaches it: through the
/// POOL control window (DIGEST §1; SUNDA's SEQ releases the Q7 cores through
/// it), or through the system window on a map without one.
pub fn q7_release(map: &RegMap) -> Result<u32, FirmwareError> {
    match map.params.boot.pool_control_window_base {
        Some(base) => Ok(base + crate::sched::CTRL_WINDOW_Q7_BUNDLE),
        None => Ok(sys(Addrs::new(map, "nx_boot.S").reg(Engine::Pool, "q7", "release_run_stall")?)),
    }
}

/// `nx_boot.S` for the map's generation (`release_q7`: the SEQ releases the Q7 cores).
pub fn nx_boot(map: &RegMap, release_q7: bool) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7)).set("SEQ_MARK", SEQ_MARK);
    build_unit(map, "nx_boot.S", &c)
}

/// `nx_halt.S` for the map's generation (`release_q7`: the SEQ releases the Q7 cores).
pub fn nx_halt(map: &RegMap, release_q7: bool) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7));
    build_unit(map, "nx_halt.S", &c)
}

/// The user (level-1 interrupt) vector of a core: VECBASE + its offset.
pub fn user_vector(cfg: &tpb_models::xtensa::config::CoreConfig) -> u32 {
    cfg.vecbase + cfg.vectors.user
}

/// `nx_intr.S`: the SEQ takes `want` interrupts, then halts.
pub fn nx_intr(map: &RegMap, release_q7: bool, want: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7)).set("WANT", want);
    build_unit(map, "nx_intr.S", &c)
}

/// `q7_intr.S`: each core takes `want` interrupts, then halts.
pub fn q7_intr(map: &RegMap, want: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("WANT", want);
    build_unit(map, "q7_intr.S", &c)
}

/// `q7_kernels.S` with its 18 kernels (a stub each that counts itself).
pub fn q7_kernels(map: &RegMap) -> Result<Program, FirmwareError> {
    use tpb_models::spec::q7_kernels as k;
    let mut c = q7_consts(map);
    c.set("TABLE", k::TABLE_VA - k::DATA_WINDOW).set("RECORDS", k::RECORDS).set("CODE_WINDOW", k::CODE_WINDOW).set("DONE", KERNELS_DONE);
    let mut kernels: String = (0..k::RECORDS).map(|n| format!("kernel_{n}:\n    movi a12, {n}\n    j count\n")).collect();
    kernels += "count:\n    slli a12, a12, 2\n    add a12, a12, a2\n    l32i a13, a12, 0x200\n    addi a13, a13, 1\n    s32i a13, a12, 0x200\n    memw\n    ret\n";
    build_parts("q7_kernels.S", &[("prelude", &c.prelude()), ("q7_kernels.S", Q7_KERNELS), ("kernels (generated)", &kernels)])
}

/// The kernel_info_table of `prog` (`q7_kernels`): record n is
/// {0, 0, spec 0, [`KERNEL_OPCODES`]\[n], funcVA = the code window + kernel_n}.
pub fn kernel_info_table(prog: &Program) -> Result<Vec<u8>, FirmwareError> {
    use tpb_models::spec::q7_kernels as k;
    let mut t = vec![0u8; (k::RECORDS * k::RECORD_BYTES) as usize];
    for (n, r) in t.chunks_mut(k::RECORD_BYTES as usize).enumerate() {
        let at = prog.labels.get(&format!("kernel_{n}")).ok_or_else(|| err("q7_kernels.S", format!("no label kernel_{n}")))?;
        r[k::OPCODE_AT] = KERNEL_OPCODES[n];
        r[k::FUNC_VA_AT..k::FUNC_VA_AT + 4].copy_from_slice(&(k::CODE_WINDOW + at).to_le_bytes());
    }
    Ok(t)
}

/// A handler of `nx_dispatch.S`: the opcode it takes; with `func`, it is
/// keyed on the func byte too, which only the HW-decode CAM can do (the
/// software paths key on the opcode), so it needs `cam`; `cam`: the HAL
/// programs it into the CAM (CAYMAN/MARIANA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchHandler {
    pub opcode: u8,
    #[serde(default)]
    pub func: Option<u8>,
    #[serde(default)]
    pub cam: bool,
}

/// `[D]` nx_dispatch.S's layout and numbers (its header comment).
pub mod dispatch {
    /// The handler number an instruction nothing takes is counted under.
    pub const UNKNOWN: u8 = 63;
    /// DRAM offsets.
    pub const BOOT_FLAG: u32 = 0x00;
    pub const HEAD: u32 = 0x04;
    pub const TAIL: u32 = 0x08;
    pub const DISPATCHED: u32 = 0x0c;
    pub const MISS_IRQS: u32 = 0x10;
    pub const RING: u32 = 0x100;
    pub const TAKEN: u32 = 0x200;
    pub const SUMS: u32 = 0x300;
    pub const TABLES: u32 = 0x800;
    pub const LOG: u32 = 0x1000;
    /// The longest stream the log holds.
    pub const LOG_ENTRIES: u32 = 0x1000;
    /// Boot flag bits (CAYMAN/MARIANA): software fetch only ("Sunda-mode");
    /// a CAM miss takes the unknown-opcode interrupt instead of the software fetch.
    pub const SUNDA_MODE: u32 = 1;
    pub const MISS_IRQ: u32 = 2;
    /// The software fetch's opcode base and table entries (`[S]`, DIGEST §4).
    pub use tpb_models::spec::nx_dispatch::{OPCODE_BASE, SW_ENTRIES};
    /// SUNDA's segments of the normalised opcode: A = [0, SEG_A), B = [SEG_B_START, +SEG_B).
    pub const SEG_A: u32 = 16;
    pub const SEG_B_START: u32 = 0x1f;
    pub const SEG_B: u32 = 8;
    /// Where the front ends' tables sit (DRAM offsets).
    pub const TABLE_A: u32 = TABLES;
    pub const TABLE_B: u32 = TABLES + 0x80;

    /// How an instruction reached its handler (the log's path byte).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Path {
        /// A HW-decode CAM hit: the FIFO's handler word.
        Hw = 1,
        /// A software table: the 178-entry table, or a SUNDA segment.
        Table = 2,
        /// A SUNDA raw-compare leaf.
        Leaf = 3,
        /// No handler on the software path.
        Unknown = 4,
        /// A CAM miss taken by the unknown-opcode interrupt.
        MissIrq = 5,
    }
}

fn dispatch_check(handlers: &[DispatchHandler], ring: u32) -> Result<(), FirmwareError> {
    let f = "nx_dispatch.S";
    if handlers.len() >= usize::from(dispatch::UNKNOWN) {
        return Err(err(f, format!("{} handlers: at most {} (handler {} counts the unknown)", handlers.len(), dispatch::UNKNOWN, dispatch::UNKNOWN)));
    }
    if !ring.is_power_of_two() || !(2..=64).contains(&ring) {
        return Err(err(f, format!("ring of {ring} entries: a power of two, 2..=64 (it holds 0x100 bytes of 8-byte entries)")));
    }
    for (h, x) in handlers.iter().enumerate() {
        if x.func.is_some() && !x.cam {
            return Err(err(f, format!("handler {h} (opcode {:#04x}) is keyed on func: only the HW-decode CAM looks at func, so it needs cam = true", x.opcode)));
        }
        if let Some(k) = handlers[..h].iter().position(|y| y.func.is_none() && x.func.is_none() && y.opcode == x.opcode) {
            return Err(err(f, format!("handlers {k} and {h} both take opcode {:#04x}", x.opcode)));
        }
    }
    Ok(())
}

/// `nx_dispatch.S` with the generation's front end (`nx_decode_hw.S` on
/// CAYMAN/MARIANA, `nx_decode_sunda.S` on SUNDA) and a stub per handler
/// (`h_<n>`: a12 = n, then `count`); on SUNDA also the raw-compare leaves
/// for the handlers' opcodes outside its segments. `ring` queue entries.
pub fn nx_dispatch(map: &RegMap, handlers: &[DispatchHandler], ring: u32) -> Result<Program, FirmwareError> {
    use dispatch as d;
    dispatch_check(handlers, ring)?;
    let a = Addrs::new(map, "nx_dispatch.S");
    let mut c = Consts::default();
    c.set("TPB_ENTER_RUN", a.enter_run()).set("RING", ring).set("UNKNOWN", d::UNKNOWN.into());
    c.set("INST_DONE", sys(a.reg(Engine::Pool, "nx", "inst_done")?));
    c.set("USER_VECTOR", user_vector(&tpb_models::xtensa::config::CoreConfig::nx(&map.params)));
    c.set("PATH_HW", d::Path::Hw as u32).set("PATH_SW", d::Path::Table as u32).set("PATH_LEAF", d::Path::Leaf as u32);
    c.set("PATH_SW_UNKNOWN", d::Path::Unknown as u32).set("PATH_IRQ", d::Path::MissIrq as u32);
    c.set("OPCODE_BASE", d::OPCODE_BASE.into()).set("SW_LAST", d::SW_ENTRIES - 1);
    let mut stubs: String = (0..handlers.len()).map(|n| format!("    .align 4\nh_{n}:\n    movi a12, {n}\n    j count\n")).collect();
    let front = if map.params.hw_decode.present {
        c.set("HWD_PORT", crate::sched::HWD_PORT).set("SW_TABLE", DRAM_BASE + d::TABLES);
        c.set("INTR_CTRL", sys(a.reg(Engine::Pool, "nx", "intr_ctrl")?));
        c.set("INTR_INFO", sys(a.reg(Engine::Pool, "nx", "intr_info")?));
        ("nx_decode_hw.S", NX_DECODE_HW)
    } else {
        c.set("SEG_A", d::SEG_A).set("SEG_B_START", d::SEG_B_START).set("SEG_B", d::SEG_B);
        c.set("TABLE_A", DRAM_BASE + d::TABLE_A).set("TABLE_B", DRAM_BASE + d::TABLE_B);
        let mut leaves = String::from("leaves:\n");
        let mut calls = String::new();
        for (h, x) in handlers.iter().enumerate().filter(|(_, x)| x.func.is_none()) {
            if sunda_segment(x.opcode).is_none() {
                leaves += &format!("    movi a8, {}\n    beq a7, a8, leaf_{h}\n", i32::from(x.opcode) - i32::from(d::OPCODE_BASE));
                calls += &format!("leaf_{h}:\n    movi a14, PATH_LEAF\n    call0 h_{h}\n    j next\n");
            }
        }
        leaves += "    j unknown\n";
        stubs = leaves + &calls + &stubs;
        ("nx_decode_sunda.S", NX_DECODE_SUNDA)
    };
    build_parts("nx_dispatch.S", &[("prelude", &c.prelude()), ("nx_trampoline.S", NX_TRAMPOLINE), ("nx_dispatch.S", NX_DISPATCH), front, ("handlers (generated)", &stubs)])
}

/// SUNDA: the segment table and slot an opcode's entry is in, if any.
pub fn sunda_segment(opcode: u8) -> Option<(u32, u32)> {
    use dispatch as d;
    let n = u32::from(opcode).wrapping_sub(d::OPCODE_BASE.into());
    if n < d::SEG_A {
        Some((d::TABLE_A, n))
    } else if (d::SEG_B_START..d::SEG_B_START + d::SEG_B).contains(&n) {
        Some((d::TABLE_B, n - d::SEG_B_START))
    } else {
        None
    }
}

/// The SEQ's DRAM image for `prog` (`nx_dispatch`): the boot flag and the
/// front end's software tables (IRAM addresses of the opcode-keyed
/// handlers; 0 where none).
pub fn dispatch_dram(map: &RegMap, prog: &Program, handlers: &[DispatchHandler], boot_flag: u32) -> Result<Vec<u8>, FirmwareError> {
    use dispatch as d;
    let mut m = vec![0u8; d::LOG as usize];
    m[..4].copy_from_slice(&boot_flag.to_le_bytes());
    for (h, x) in handlers.iter().enumerate().filter(|(_, x)| x.func.is_none()) {
        let at = handler_addr(prog, h)?;
        let slot = if map.params.hw_decode.present {
            let n = u32::from(x.opcode).wrapping_sub(d::OPCODE_BASE.into());
            (n < d::SW_ENTRIES).then_some(d::TABLES + 4 * n)
        } else {
            sunda_segment(x.opcode).map(|(t, n)| t + 4 * n)
        };
        if let Some(s) = slot {
            m[s as usize..s as usize + 4].copy_from_slice(&at.to_le_bytes());
        }
    }
    Ok(m)
}

/// What the HAL programs into the HW-decode CAM for `prog`: the handlers
/// with `cam`, func-keyed ones first (the lowest matching entry wins, so the
/// narrower key comes first); entry k's table index is its handler number,
/// whose table word is the handler's IRAM address.
pub fn dispatch_cam(prog: &Program, handlers: &[DispatchHandler]) -> Result<tpb_models::hal::HwDecodeTable, FirmwareError> {
    use tpb_models::hal::{CamRecord, HwDecodeTable};
    let mut order: Vec<usize> = (0..handlers.len()).filter(|&h| handlers[h].cam).collect();
    order.sort_by_key(|&h| handlers[h].func.is_none());
    let cam = order
        .iter()
        .map(|&h| {
            let x = handlers[h];
            CamRecord { valid: true, key_opcode: x.opcode, key_func: x.func.unwrap_or(0), mask_opcode: 0xff, mask_func: if x.func.is_some() { 0xff } else { 0 }, table_index: h as u16 }
        })
        .collect();
    let mut table = vec![0u8; 4 * handlers.len()];
    for h in 0..handlers.len() {
        table[4 * h..4 * h + 4].copy_from_slice(&handler_addr(prog, h)?.to_le_bytes());
    }
    Ok(HwDecodeTable { cam, table })
}

fn handler_addr(prog: &Program, h: usize) -> Result<u32, FirmwareError> {
    prog.labels.get(&format!("h_{h}")).copied().ok_or_else(|| err("nx_dispatch.S", format!("no label h_{h}")))
}

/// `nx_windows.S`: `stores` stores through `w0`, one through `mw2`.
pub fn nx_windows(map: &RegMap, release_q7: bool, w0: u32, mw2: u32, stores: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7)).set("W0", w0).set("MW2", mw2).set("STORES", stores);
    build_unit(map, "nx_windows.S", &c)
}

/// `q7_windows.S`: one store to `w1`.
pub fn q7_windows(map: &RegMap, w1: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("W1", w1);
    build_unit(map, "q7_windows.S", &c)
}

/// `q7_halt.S`.
pub fn q7_halt(map: &RegMap) -> Result<Program, FirmwareError> {
    build_unit(map, "q7_halt.S", &Consts::default())
}

fn q7_consts(map: &RegMap) -> Consts {
    let mut c = Consts::default();
    c.set("RESET_JUMP", map.params.boot.q7_reset_jump.unwrap_or(0x200) as u32);
    c
}

/// `q7_sum.S`.
pub fn q7_sum(map: &RegMap) -> Result<Program, FirmwareError> {
    build_unit(map, "q7_sum.S", &Consts::default())
}

/// `q7_barrier.S` on the POOL EVT_SEM semaphores `arrive`, `depart` for `cores` cores.
pub fn q7_barrier(map: &RegMap, arrive: u32, depart: u32, cores: u32) -> Result<Program, FirmwareError> {
    let count = SemWindows::of(map).map_err(|x| err("q7_barrier.S", format!("{} map: {x}", map.arch.name())))?.count;
    if let Some(bad) = [arrive, depart].into_iter().find(|i| *i >= count) {
        return Err(err("q7_barrier.S", format!("semaphore {bad} is past the {count} of EVT_SEM")));
    }
    let mut c = Consts::default();
    c.set("ARRIVE", arrive).set("DEPART", depart).set("CORES", cores);
    build_unit(map, "q7_barrier.S", &c)
}

/// The TOP_SP's host_trigger semaphore (the `host_trigger` alias of `top_sp.toml`).
pub fn host_trigger_index(map: &RegMap) -> Result<u32, FirmwareError> {
    map.block("top_sp")
        .and_then(|b| b.aliases.iter().find(|x| x.name == "host_trigger"))
        .map(|x| x.index)
        .ok_or_else(|| err("top_sp_ccop.S", format!("the {} map has no host_trigger semaphore alias (SUNDA's host_trigger is a pulse register)", map.arch.name())))
}

/// `top_sp_ccop.S`, waiting on semaphore `step_sem` of the TOP_SP's EVT_SEM.
pub fn top_sp_ccop(map: &RegMap, step_sem: u32) -> Result<Program, FirmwareError> {
    host_trigger_index(map)?;
    let count = SemWindows::of(map).map_err(|x| err("top_sp_ccop.S", format!("{} map: {x}", map.arch.name())))?.count;
    if step_sem >= count {
        return Err(err("top_sp_ccop.S", format!("semaphore {step_sem} is past the {count} of EVT_SEM")));
    }
    let mut c = Consts::default();
    c.set("STEP", step_sem);
    build_unit(map, "top_sp_ccop.S", &c)
}

/// How `mesh_tape.S` WAITs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TapeWait {
    /// The seeds' spin: `memw; l32i; bgeu` until the count (DIGEST §7).
    #[default]
    Poll,
    /// `[D]` Sleep in WAITI until an EVT_SEM change interrupts, then read again.
    Waiti,
}

/// What both tape steppers are built with: the tape's length (within the
/// generation's mesh capacity, DIGEST §7), where the tape and its context
/// are, the SIGNAL value, the SoC port and the system window.
fn tape_consts(f: &'static str, map: &RegMap, events: u32, signal_value: u32) -> Result<Consts, FirmwareError> {
    let cap = map.params.mesh_events_capacity;
    if events > cap {
        return Err(err(f, format!("{events} events exceed the generation's mesh capacity of {cap} (DIGEST §7)")));
    }
    let mut c = Consts::default();
    c.set("EVENTS", events).set("SIGNAL_VALUE", signal_value).set("TAPE_DONE", TAPE_DONE);
    c.set("TAPE", DRAM_BASE + ALGO_CONFIGS + tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET);
    c.set("CTX_200", DRAM_BASE + ALGO_CTX + 0x200);
    c.set("SOC_PORT", SOC_PORT).set("SYSTEM_WINDOW", SYSTEM_WINDOW);
    Ok(c)
}

/// `mesh_tape.S` for a tape of `events` events.
pub fn mesh_tape(map: &RegMap, events: u32, signal_value: u32, wait: TapeWait) -> Result<Program, FirmwareError> {
    let f = "mesh_tape.S";
    let a = Addrs::new(map, f);
    let mut c = tape_consts(f, map, events, signal_value)?;
    c.set("ENTER_RUN", a.enter_run());
    c.set("WAIT_IRQ", u32::from(wait == TapeWait::Waiti));
    c.set("INTR_CTRL", sys(a.reg(Engine::TopSp, "nx", "intr_ctrl")?)).set("INTR_INFO", sys(a.reg(Engine::TopSp, "nx", "intr_info")?));
    c.set("USER_VECTOR", user_vector(&tpb_models::xtensa::config::CoreConfig::top_sp(&map.params)));
    build_appended(f, MESH_TAPE, &c, true, &[("tape_fire.S", TAPE_FIRE)])
}

/// `ncfw_tape.S` stepping a tape of `events` events (the NCFW management
/// core's firmware, loaded at 0).
pub fn ncfw_tape(map: &RegMap, events: u32, signal_value: u32) -> Result<Program, FirmwareError> {
    let f = "ncfw_tape.S";
    let a = Addrs::new(map, f);
    let mut c = tape_consts(f, map, events, signal_value)?;
    c.set("TAPE_BAD", TAPE_BAD).set("LOG", DRAM_BASE + NCFW_LOG);
    c.set("TS", sys(a.reg(Engine::Tpb, "tpb", "timestamp_ctrl")?));
    c.set("STACK", ncfw_stack(map));
    build_appended(f, NCFW_TAPE, &c, false, &[("tape_fire.S", TAPE_FIRE), ("ncfw_wait.S", NCFW_WAIT)])
}

/// The NCFW core's initial stack pointer: the top of its DRAM (the LX
/// core's map, [`tpb_models::xtensa::config::CoreConfig::lx`]).
pub fn ncfw_stack(map: &RegMap) -> u32 {
    DRAM_BASE + map.params.bar0.seq_dram.size as u32
}

/// `ring_channels.S`'s layout in its core's DRAM: the ring configs at
/// [`ALGO_CONFIGS`] (148 bytes a channel, DIGEST §7), the ring ctx at
/// [`ALGO_CTX`] (16 bytes a channel), the hierarchical run_state at
/// algo_ctx + 0x200 (`tpb_models::ncfw::mesh::algo_ctx`); `[D]`: a header
/// of four SoC addresses at [`RING_HEADER`] (DMA done (READ),
/// complete_prev (READ), complete (INC, the next TOP_SP's), the completion
/// address (INC)), the legs' headers at [`RING_LEGS`], and leg i's configs
/// at [`ALGO_CONFIGS`] + i × [`RING_CONFIGS_BYTES`].
pub const RING_CHANNEL_BYTES: u32 = tpb_models::ncfw::mesh::RING_CHANNEL_STRIDE;
pub const RING_CTX_BYTES: u32 = tpb_models::ncfw::mesh::algo_ctx::RING_CHANNEL_BYTES;
pub const RING_CHANNELS_MAX: u32 = tpb_models::ncfw::mesh::RING_CHANNELS;
pub const RING_CONFIGS_BYTES: u32 = tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET;
pub const RING_HEADER: u32 = ALGO_CTX + 0x240;
/// `[D]` Each leg's header: u32 steps, reduce-scatter steps, its configs'
/// core address (16 bytes a leg).
pub const RING_LEGS: u32 = ALGO_CTX + 0x260;

/// `ring_channels.S`, reading its cc_op entries from the TOP_SP's CTRL
/// SPAD and its legs' headers at [`RING_LEGS`]; `nx`: behind the NX
/// trampoline (the TOP_SP), else at 0 (the NCFW core).
pub fn ring_channels(map: &RegMap, signal_value: u32, nx: bool) -> Result<Program, FirmwareError> {
    let f = "ring_channels.S";
    let a = Addrs::new(map, f);
    let mut c = Consts::default();
    c.set("SIGNAL_VALUE", signal_value).set("TAPE_DONE", TAPE_DONE);
    c.set("CTX", DRAM_BASE + ALGO_CTX);
    c.set("CC_OP", sys(a.region("top_sp.ctrl_spad")?));
    c.set("SOC_PORT", SOC_PORT).set("SYSTEM_WINDOW", SYSTEM_WINDOW);
    if nx {
        c.set("ENTER_RUN", a.enter_run());
    }
    build_appended(f, RING_CHANNELS, &c, nx, &[("tape_fire.S", TAPE_FIRE)])
}

/// The TOP_SP semaphores of `top_sp_tsync.S` (`[D]`, the time-sync
/// messages; init and tsync are the map's doorbell aliases).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TsyncSems {
    pub init: u32,
    pub tsync: u32,
    pub sync: u32,
    pub delay_req: u32,
    pub delay_resp: u32,
    /// SET pairs (low word, then high word at + 1).
    pub t1: u32,
    pub t4: u32,
}

/// `top_sp_tsync.S` for `map`'s generation: its config block at
/// `config` (BAR0), the SoC low words of TOP_SP 0's INC and SET slot 0.
pub fn top_sp_tsync(map: &RegMap, s: &TsyncSems, config: u32, soc_inc0: u32, soc_set0: u32) -> Result<Program, FirmwareError> {
    let f = "top_sp_tsync.S";
    let a = Addrs::new(map, f);
    let mut c = Consts::default();
    c.set("ENTER_RUN", a.enter_run()).set("CONFIG", sys(config)).set("SOC_PORT", SOC_PORT);
    let read0 = a.sem(Engine::TopSp, WindowOp::Read, 0)?;
    c.set("TS", sys(a.reg(Engine::Tpb, "tpb", "timestamp_ctrl")?)).set("SEM_READ", sys(read0));
    c.set("OUT", DRAM_BASE + TSYNC_OUT).set("TSYNC_DONE", TSYNC_DONE).set("SOC_INC0", soc_inc0).set("SOC_SET0", soc_set0);
    for (name, sem) in [("INIT", s.init), ("TSYNC", s.tsync), ("SYNC", s.sync), ("DELAY_REQ", s.delay_req), ("DELAY_RESP", s.delay_resp), ("T1", s.t1), ("T4", s.t4)] {
        // A pair's high word is the next semaphore (T1_AT + 4 in the source).
        a.sem(Engine::TopSp, WindowOp::Read, sem + u32::from(name == "T1" || name == "T4"))?;
        c.set(&format!("{name}_AT"), a.sem(Engine::TopSp, WindowOp::Read, sem)? - read0);
    }
    build_nx(f, TOP_SP_TSYNC, &c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_models::regmap::{builtin, Arch};

    /// DIGEST §1: the trampoline's bytes, exactly (SUNDA enter_run 0x94, CAYMAN 0x90).
    #[test]
    fn the_nx_trampoline_is_the_digest_bytes() {
        for (arch, er) in [(Arch::Sunda, 0x94u8), (Arch::Cayman, 0x90), (Arch::Mariana, 0x90)] {
            let p = nx_boot(&builtin(arch).unwrap(), arch == Arch::Sunda).unwrap();
            let b = &p.bytes;
            assert_eq!(&b[0..3], &[0x06, 0x76, 0x00], "{arch:?}: j 0x1dc");
            assert_eq!(&b[6..9], &[0x86, 0x77, 0x00], "{arch:?}: j 0x1e8");
            assert_eq!(&b[0x1dc..0x1e5], &[0x04, 0x00, 0x00, 0x04, er, 0x00, 0xa0, 0x00, 0x00], "{arch:?}: const16 a0,0; const16 a0,{er:#x}; jx a0");
            assert_eq!(&b[0x1e8..0x1eb], &[0x00, 0x52, 0x00], "{arch:?}: halt 0");
            assert_eq!(p.labels["enter_run"], u32::from(er));
        }
    }

    /// DIGEST §7's bytes in the NCFW stepper: the dispatch spine
    /// (`const16 a2,0xb0; addx4 a2,a3,a2; l32i.n a5,a2,0`), the seeds'
    /// WAIT-GE (`entry a1,32` .. `memw; l32i.n a2,a10,0; bgeu a3,a2` back
    /// to the memw; `retw.n`) as `wait_gt_a`, and the idle (`waiti 15`);
    /// the table at 0xb0 holds each type's handler.
    #[test]
    fn the_ncfw_stepper_has_the_seeds_spine_wait_and_idle() {
        let p = ncfw_tape(&builtin(Arch::Cayman).unwrap(), 4, 1).unwrap();
        let b = &p.bytes;
        let has = |seq: &[u8]| b.windows(seq.len()).any(|w| w == seq);
        assert!(has(&[0x24, 0xb0, 0x00, 0x20, 0x23, 0xa0, 0x58, 0x02]), "the dispatch spine");
        assert!(has(&[0x00, 0x7f, 0x00]), "waiti 15");
        let entry = p.labels["wait_gt_a"] as usize;
        assert_eq!(&b[entry..entry + 3], &[0x36, 0x41, 0x00], "entry a1, 32");
        let poll = p.labels["wait_gt_a_poll"] as usize;
        assert_eq!(&b[poll..poll + 10], &[0xc0, 0x20, 0x00, 0x28, 0x0a, 0x27, 0xb3, 0xf7, 0x1d, 0xf0], "the seeds' WAIT-GE @0x3498");
        let word = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let names = ["h_step", "h_barrier", "h_handshake", "h_bcast", "h_reduce"];
        for (t, id) in NCFW_HANDLERS.iter().enumerate() {
            assert_eq!(word(0xb0 + 4 * t), p.labels[names[*id as usize - 1]], "event type {t}");
        }
        assert!(ncfw_tape(&builtin(Arch::Cayman).unwrap(), 109, 1).unwrap_err().to_string().contains("capacity of 108"));
    }

    /// DIGEST §7 / seed 003 §9.1: ten spin-polls in two banks (a2/a3 and
    /// a5/a4), on bne, bltu and bgeu. Each primitive, run on an NCFW core
    /// over every pair of edge values: it returns exactly when its
    /// condition holds, otherwise it spins in its own poll loop until a
    /// value that satisfies it is stored.
    #[test]
    fn the_ten_wait_primitives_release_exactly_on_their_condition() {
        use tpb_models::xtensa::bus::MemorySpace;
        use tpb_models::xtensa::config::CoreConfig;
        use tpb_models::xtensa::core::Core;
        let map = builtin(Arch::Cayman).unwrap();
        let cfg = CoreConfig::lx(&map.params);
        let csr = DRAM_BASE + 0x100;
        let vals = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, u32::MAX];
        type Holds = fn(u32, u32) -> bool;
        let forms: [(&str, Holds); 5] = [("eq", |v, t| v == t), ("ge", |v, t| v >= t), ("le", |v, t| v <= t), ("gt", |v, t| v > t), ("lt", |v, t| v < t)];
        let mut spun = 0;
        for (bank, target) in [("a", "a7"), ("b", "a8")] {
            for (form, holds) in forms {
                let prim = format!("wait_{form}_{bank}");
                for t in vals {
                    let mut c = Consts::default();
                    c.set("STACK", ncfw_stack(&map)).set("CSR", csr).set("T", t);
                    let driver = format!(
                        "    movi a6, 4\n    slli a6, a6, 16\n    wsr.ps a6\n    rsync\n    const16 a1, STACK_HI\n    const16 a1, STACK_LO\n    \
                         const16 a6, CSR_HI\n    const16 a6, CSR_LO\n    const16 {target}, T_HI\n    const16 {target}, T_LO\n    call4 {prim}\n    halt 0\n"
                    );
                    let p = build_appended("driver", &driver, &c, false, &[("ncfw_wait.S", NCFW_WAIT)]).unwrap();
                    let poll = p.labels[&format!("{prim}_poll")];
                    for v in vals {
                        let mut mem = MemorySpace::from_map(&cfg.memory).unwrap();
                        mem.write_bytes(0, &p.bytes).unwrap();
                        mem.write_bytes(csr, &v.to_le_bytes()).unwrap();
                        let mut core = Core::new(cfg.clone());
                        core.run(&mut mem, 300);
                        assert_eq!(core.halted(), holds(v, t), "{prim}: value {v:#x}, target {t:#x}");
                        if holds(v, t) {
                            continue;
                        }
                        assert!((poll..poll + 8).contains(&core.pc), "{prim} ({v:#x}, {t:#x}) spins in its poll loop, pc {:#x}", core.pc);
                        spun += 1;
                        let Some(ok) = [t, t.wrapping_add(1), t.wrapping_sub(1)].into_iter().find(|&w| holds(w, t)) else { continue };
                        mem.write_bytes(csr, &ok.to_le_bytes()).unwrap();
                        core.run(&mut mem, 300);
                        assert!(core.halted(), "{prim} ({ok:#x}, {t:#x}) releases once the value holds");
                    }
                }
            }
        }
        // Of the 36 pairs of six distinct values, 6 are equal and 15 ordered each way.
        assert_eq!(spun, 2 * (30 + 15 + 15 + 21 + 21), "the pairs each form spins on");
    }

    #[test]
    fn every_firmware_assembles_for_every_generation_it_serves() {
        for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
            let m = builtin(arch).unwrap();
            q7_sum(&m).unwrap();
            q7_halt(&m).unwrap();
            q7_intr(&m, 2).unwrap();
            let p = q7_kernels(&m).unwrap();
            assert_eq!(kernel_info_table(&p).unwrap().len(), 18 * 8);
            nx_intr(&m, arch == Arch::Sunda, 3).unwrap();
            nx_halt(&m, arch == Arch::Sunda).unwrap();
            q7_barrier(&m, 0, 1, 8).unwrap();
            mesh_tape(&m, 4, 1, TapeWait::Poll).unwrap();
            mesh_tape(&m, 4, 1, TapeWait::Waiti).unwrap();
            let top = top_sp_ccop(&m, 8);
            assert_eq!(top.is_ok(), arch != Arch::Sunda, "{arch:?}: {top:?}");
        }
        let e = top_sp_ccop(&builtin(Arch::Sunda).unwrap(), 8).unwrap_err().to_string();
        assert!(e.contains("host_trigger") && e.contains("pulse register"), "{e}");
    }

    fn roster() -> Vec<DispatchHandler> {
        let h = |opcode, func, cam| DispatchHandler { opcode, func, cam };
        vec![h(0x41, None, true), h(0x43, None, false), h(0x43, Some(1), true), h(0x60, None, false), h(0xe6, None, false)]
    }

    /// The front ends' code, disassembled from `decode` to the first handler.
    fn front_end(arch: Arch) -> Vec<String> {
        let p = nx_dispatch(&builtin(arch).unwrap(), &roster(), 8).unwrap();
        let (from, to) = (p.labels["decode"] as usize, p.labels["h_0"] as usize);
        tpb_models::xtensa::disasm::listing(&p.bytes[from..to], from as u32, &Options::tpb()).into_iter().filter_map(|l| l.text.map(|t| t.replace('\t', " "))).collect()
    }

    /// DIGEST §4: CAYMAN+ normalise with `addi -65` and bound with
    /// `movi 177` (178 entries); SUNDA runs exactly one `sub`, and neither.
    #[test]
    fn the_dispatch_front_ends_have_the_seeds_shapes() {
        for arch in [Arch::Cayman, Arch::Mariana] {
            let t = front_end(arch);
            assert_eq!(t.iter().filter(|l| l.starts_with("addi") && l.ends_with(", -65")).count(), 1, "{arch:?}: {t:?}");
            assert_eq!(t.iter().filter(|l| l.starts_with("movi") && l.ends_with(", 177")).count(), 1, "{arch:?}: {t:?}");
        }
        let t = front_end(Arch::Sunda);
        assert_eq!(t.iter().filter(|l| l.starts_with("sub ")).count(), 1, "{t:?}");
        assert!(!t.iter().any(|l| l.ends_with(", -65") || l.ends_with(", 177")), "{t:?}");
        // 0xe6 is outside SUNDA's segments: a raw-compare leaf (0xe6 - 0x41 = 165).
        assert!(t.iter().any(|l| l.starts_with("movi") && l.ends_with(", 165")), "{t:?}");
    }

    /// The DRAM image puts each opcode-keyed handler in its table slot (and
    /// nothing for a func-keyed one); the CAM lists func-keyed entries first.
    #[test]
    fn dispatch_tables_hold_the_handlers_where_the_front_ends_look() {
        let m = builtin(Arch::Cayman).unwrap();
        let p = nx_dispatch(&m, &roster(), 8).unwrap();
        let img = dispatch_dram(&m, &p, &roster(), dispatch::MISS_IRQ).unwrap();
        let word = |o: u32| u32::from_le_bytes(img[o as usize..o as usize + 4].try_into().unwrap());
        assert_eq!(word(0), dispatch::MISS_IRQ);
        assert_eq!(word(dispatch::TABLES), p.labels["h_0"], "0x41 at entry 0");
        assert_eq!(word(dispatch::TABLES + 4 * 2), p.labels["h_1"], "0x43 at entry 2: the software path ignores func");
        assert_eq!(word(dispatch::TABLES + 4 * 0xa5), p.labels["h_4"], "0xe6 at entry 165");
        assert_eq!((0..dispatch::SW_ENTRIES).filter(|n| word(dispatch::TABLES + 4 * n) != 0).count(), 4);
        let cam = dispatch_cam(&p, &roster()).unwrap();
        assert_eq!(cam.cam.iter().map(|r| (r.key_opcode, r.mask_func, r.table_index)).collect::<Vec<_>>(), [(0x43, 0xff, 2), (0x41, 0, 0)]);
        let s = builtin(Arch::Sunda).unwrap();
        let p = nx_dispatch(&s, &roster(), 8).unwrap();
        let img = dispatch_dram(&s, &p, &roster(), 0).unwrap();
        let word = |o: u32| u32::from_le_bytes(img[o as usize..o as usize + 4].try_into().unwrap());
        assert_eq!((word(dispatch::TABLE_A + 8), word(dispatch::TABLE_B)), (p.labels["h_1"], p.labels["h_3"]), "0x43 in segment A, 0x60 first of B");
    }

    #[test]
    fn bad_dispatch_rosters_are_refused_by_name() {
        let m = builtin(Arch::Cayman).unwrap();
        let e = |r: &[DispatchHandler], ring| nx_dispatch(&m, r, ring).unwrap_err().to_string();
        let h = |opcode, func, cam| DispatchHandler { opcode, func, cam };
        assert!(e(&[h(0x41, Some(2), false)], 8).contains("needs cam = true"));
        assert!(e(&[h(0x41, None, false), h(0x41, None, true)], 8).contains("handlers 0 and 1 both take opcode 0x41"));
        assert!(e(&roster(), 6).contains("a power of two"));
        assert!(e(&vec![h(0x41, Some(0), true); 63], 8).contains("at most 63"));
    }

    #[test]
    fn errors_name_the_file_and_its_own_line_and_bad_constants() {
        let mut c = Consts::default();
        c.set("X", 1);
        let e = build("t.S", "nop\n movi a2, NOPE\n", &c).unwrap_err().to_string();
        assert!(e.starts_with("t.S: line 2: ") && e.contains("NOPE"), "{e}");
        // Behind the trampoline, the line is still the program's own.
        c.set("ENTER_RUN", 0x90);
        let e = build_nx("t.S", "main:\n nop\n movi a2, NOPE\n", &c).unwrap_err().to_string();
        assert!(e.starts_with("t.S: line 3: ") && e.contains("NOPE"), "{e}");
        let e = build_nx("t.S", "nop\n", &c).unwrap_err().to_string();
        assert!(e.contains("nx_trampoline.S line") && e.contains("main"), "a program without main: {e}");
        let m = builtin(Arch::Cayman).unwrap();
        assert!(q7_barrier(&m, 256, 1, 8).unwrap_err().to_string().contains("semaphore 256"));
        assert!(mesh_tape(&m, 109, 1, TapeWait::Poll).unwrap_err().to_string().contains("capacity of 108"));
    }
}
