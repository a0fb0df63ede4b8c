//! Firmware of the behavioural cores, kept as assembly source in
//! `cosim/firmware/`, a folder per core kind (`nx/`, `q7/`, `top_sp/`,
//! `ncfw/`; `common/` for what the TOP_SP and NCFW steppers share; `c/`
//! for the C start-up and run time), and assembled with the project's assembler
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
//! | `q7_dkl.S` | Q7 | kernel-load: the mailbox shell, linear scan of the kernel_info_table, the loader (swap table, device memory or EXTRAM into the dyn window's IRAM) |
//! | `nx_extinst.S` | POOL SEQ | kernel-load: the instruction stream; hands the 0xf0 escape (SUNDA: every opcode) to a Q7 core and waits |
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
//! | `ncfw_tape.S` | NCFW | the algorithm dispatch through the DRAM table at 0xb0 (the seeds' spine), then the mesh tape, a handler per event type, idles in `waiti 15` |
//! | `ncfw_wait.S` | NCFW | the ten wait primitives (two register banks; bne / bltu / bgeu spin-polls), appended to `ncfw_tape.S` |
//! | `tape_fire.S` | TOP_SP or NCFW | the DMA leg's tail-pointer doorbell, appended to the three NCFW steppers |
//! | `ring_channels.S` | TOP_SP or NCFW | NCFW ring / kangaring / hierarchical channel program: the legs its CTRL SPAD entries chain, the channels of each entry's channel_list, a scoreboard per channel, the hierarchical run_state, send/wait complete |

use crate::sched::{SOC_PORT, SYSTEM_WINDOW};
use by_map::ByMap;
use tpb_models::ncfw::spad::AlgType;
use tpb_models::regmap::layout::SemWindows;
use tpb_models::regmap::WindowOp;
use tpb_models::regmap::{Engine, RegMap};
use tpb_models::xtensa::asm::Program;
use tpb_models::xtensa::config::{Options, DRAM_BASE};

pub const NX_TRAMPOLINE: &str = include_str!("../../firmware/nx/nx_trampoline.S");
pub const NX_BOOT: &str = include_str!("../../firmware/nx/nx_boot.S");
pub const NX_HALT: &str = include_str!("../../firmware/nx/nx_halt.S");
pub const Q7_HALT: &str = include_str!("../../firmware/q7/q7_halt.S");
pub const NX_INTR: &str = include_str!("../../firmware/nx/nx_intr.S");
pub const NX_DISPATCH: &str = include_str!("../../firmware/nx/nx_dispatch.S");
pub const NX_DECODE_HW: &str = include_str!("../../firmware/nx/nx_decode_hw.S");
pub const NX_DECODE_SUNDA: &str = include_str!("../../firmware/nx/nx_decode_sunda.S");
pub const NX_WINDOWS: &str = include_str!("../../firmware/nx/nx_windows.S");
pub const Q7_WINDOWS: &str = include_str!("../../firmware/q7/q7_windows.S");
pub const Q7_KERNELS: &str = include_str!("../../firmware/q7/q7_kernels.S");
pub const Q7_INTR: &str = include_str!("../../firmware/q7/q7_intr.S");
pub const Q7_SUM: &str = include_str!("../../firmware/q7/q7_sum.S");
pub const Q7_BARRIER: &str = include_str!("../../firmware/q7/q7_barrier.S");
pub const TOP_SP_CCOP: &str = include_str!("../../firmware/top_sp/top_sp_ccop.S");
pub const MESH_TAPE: &str = include_str!("../../firmware/top_sp/mesh_tape.S");
pub const TOP_SP_TSYNC: &str = include_str!("../../firmware/top_sp/top_sp_tsync.S");
pub const NCFW_TAPE: &str = include_str!("../../firmware/ncfw/ncfw_tape.S");
pub const NCFW_WAIT: &str = include_str!("../../firmware/ncfw/ncfw_wait.S");
pub const TAPE_FIRE: &str = include_str!("../../firmware/common/tape_fire.S");
pub const RING_CHANNELS: &str = include_str!("../../firmware/common/ring_channels.S");
pub const TPB_MACROS: &str = include_str!("../../firmware/common/tpb_macros.inc");
pub const Q7_RESET: &str = include_str!("../../firmware/q7/q7_reset.S");
pub const Q7_DKL: &str = include_str!("../../firmware/q7/q7_dkl.S");
pub const NX_EXTINST: &str = include_str!("../../firmware/nx/nx_extinst.S");

/// `[D]` Value the SEQ stores in its DRAM\[0\] on reaching enter_run (`nx_boot.S`).
pub const SEQ_MARK: u32 = 0x5e90_e7e2;
/// `[D]` Done markers: `q7_sum.S`, `q7_barrier.S`, `top_sp_ccop.S` (and its
/// unknown-word marker), the tapes (`mesh_tape.S`, `ncfw_tape.S`).
pub const SUM_DONE: u32 = 0x600d;
pub const BARRIER_DONE: u32 = 0xba77;
pub const CCOP_DONE: u32 = 0xd0e;
pub const CCOP_BAD: u32 = 0xbad;
pub const TAPE_DONE: u32 = 0x7a9e;
/// Where a tape leaves [`TAPE_DONE`] once it is through: an algo_ctx offset
/// (`[D]`, beside the seeds' `event_index` at 0x204).
pub const TAPE_DONE_AT: u32 = 0x208;
/// `ncfw_tape.S`'s marker for an event type past its table, and where its
/// per-event log starts (core-local DRAM offset; 16 bytes per event: the
/// handler id, the timestamp's low and high words).
pub const TAPE_BAD: u32 = 0x7a9b;
pub const NCFW_LOG: u32 = ALGO_CTX + 0x400;
/// `ncfw_tape.S`'s handler ids, by event type (0..14; its event table, `[D]`).
pub const NCFW_HANDLERS: [u32; 14] = [1, 1, 1, 1, 2, 2, 3, 4, 5, 5, 5, 4, 4, 4];
/// `ncfw_tape.S`'s marker for an algo_type it does not run (the algo_type
/// is at algo_ctx + 0x20c).
pub const ALGO_BAD: u32 = 0xa1b0;

/// `top_sp_tsync.S`'s done marker, and where its results start in the TOP_SP's DRAM.
pub const TSYNC_DONE: u32 = 0x75c;
pub const TSYNC_OUT: u32 = 0x100;

/// `top_sp_tsync.S`'s results, byte offsets from [`TSYNC_OUT`] (`[D]`): the
/// four timestamps and the adjustment, 64 bits each (lo, hi), then the done
/// marker. The firmware takes each as the parameter named in `ALL`.
pub mod tsync_out {
    pub const T1: u32 = 0;
    pub const T2: u32 = 8;
    pub const T3: u32 = 16;
    pub const T4: u32 = 24;
    pub const ADJUST: u32 = 32;
    pub const DONE: u32 = 40;
    /// Each offset with its name.
    pub const ALL: [(&str, u32); 6] = [("OUT_T1", T1), ("OUT_T2", T2), ("OUT_T3", T3), ("OUT_T4", T4), ("OUT_ADJUST", ADJUST), ("OUT_DONE", DONE)];
}

/// `q7_kernels.S`'s done marker.
pub const KERNELS_DONE: u32 = 0x6b9;

/// `q7_kernels.S`'s record in each core's DRAM (`[D]`): after the requests
/// (+0 their count n, +4.. the opcodes), the misses, the done marker, the
/// calls of kernel k at `CALLS + 4k` and the record request i reached at
/// `REACHED + 4i` (0xff: a miss). The firmware takes each as a parameter
/// of the same name.
pub mod q7_kernels_out {
    pub const MISSES: u32 = 0x100;
    pub const DONE_AT: u32 = 0x104;
    pub const CALLS: u32 = 0x200;
    pub const REACHED: u32 = 0x300;
    /// Each offset with its name.
    pub const ALL: [(&str, u32); 4] = [("MISSES", MISSES), ("DONE_AT", DONE_AT), ("CALLS", CALLS), ("REACHED", REACHED)];
}
/// `nx_extinst.S`'s marker: the stream is through.
pub const EXTINST_DONE: u32 = 0xe71;

/// Every marker above by name: the prelude gives each to firmware as
/// `TPB_<name>` (`tpb.inc`, `tpb_fw.h`), and a testbench or scenario file
/// may check a value against it by that name (`value = "TPB_SUM_DONE"`).
pub const MARKERS: [(&str, u32); 11] = [
    ("SEQ_MARK", SEQ_MARK),
    ("SUM_DONE", SUM_DONE),
    ("BARRIER_DONE", BARRIER_DONE),
    ("CCOP_DONE", CCOP_DONE),
    ("CCOP_BAD", CCOP_BAD),
    ("TAPE_DONE", TAPE_DONE),
    ("TAPE_BAD", TAPE_BAD),
    ("ALGO_BAD", ALGO_BAD),
    ("TSYNC_DONE", TSYNC_DONE),
    ("KERNELS_DONE", KERNELS_DONE),
    ("EXTINST_DONE", EXTINST_DONE),
];
/// `[D]` The opcodes of the 18 kernel_info_table records `q7_kernels.S`
/// dispatches: the seed text keeps the range 0x41..0xe7 and a few of its
/// numbers (0x41, 0x43, 0x44, 0x49), not the roster, so the rest are ours.
pub const KERNEL_OPCODES: [u8; 18] = [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x60, 0x61, 0x62, 0x63, 0xe6, 0xe7];

/// `[D]` Where the mesh stepper finds algo_configs and algo_ctx (core-local
/// DRAM offsets). algo_configs starts past the NCFW's command vector at
/// DRAM +0x00 (seed 000 §4d) and its algorithm table at +0xb0 (seed 003
/// §9.3, [`NCFW_ALGO_TABLE`]): the table never overlaps the ring
/// configs' region.
pub const ALGO_CONFIGS: u32 = 0x0100;
pub const ALGO_CTX: u32 = 0x8000;

/// A firmware source that did not assemble, or a constant the map lacks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct FirmwareError {
    pub file: &'static str,
    pub message: String,
}

/// `.equ` constants for a program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Consts(Vec<(String, i64)>);

impl Consts {
    /// A constant, with `_HI`/`_LO` halves for `const16`.
    pub fn set(&mut self, name: &str, v: u32) -> &mut Self {
        self.0.push((name.into(), i64::from(v)));
        self.0.push((format!("{name}_HI"), i64::from(v >> 16)));
        self.0.push((format!("{name}_LO"), i64::from(v & 0xffff)));
        self
    }
    /// Each (name, value) of `items`, as [`Consts::set`].
    pub fn set_all<'a>(&mut self, items: impl IntoIterator<Item = (&'a str, u32)>) -> &mut Self {
        for (name, v) in items {
            self.set(name, v);
        }
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
    ("tpb_macros.inc", TPB_MACROS),
    ("q7_reset.S", Q7_RESET),
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
    ("q7_dkl.S", Q7_DKL),
    ("nx_extinst.S", NX_EXTINST),
];

/// The source of the unit named `name` in [`UNITS`].
pub fn unit(name: &str) -> Option<&'static str> {
    UNITS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Assemble the unit `file` of [`UNITS`] for `map` with its parameters
/// `params`; an error names the unit (or what it includes) and its own line.
///
/// A unit's text is compiled in, so the same map, file and constants give
/// the same program: each is assembled once a process and kept
/// (`firmware::by_map`); a 16-die run builds its units once instead of once a die.
pub fn build_unit(map: &RegMap, file: &'static str, params: &Consts) -> Result<Program, FirmwareError> {
    /// At most this many units are kept for a map (the built-in scenarios use about 30).
    const KEPT_UNITS: usize = 64;
    static BUILT: ByMap<Vec<(&'static str, Consts, Program)>> = ByMap::new();
    BUILT.with(
        map,
        || Ok(Vec::new()),
        |built| {
            if let Some((.., p)) = built.iter().find(|(f, c, _)| *f == file && c == params) {
                return Ok(p.clone());
            }
            let p = assemble_unit(map, file, params)?;
            built.truncate(KEPT_UNITS - 1);
            built.insert(0, (file, params.clone(), p.clone()));
            Ok(p)
        },
    )
}

fn assemble_unit(map: &RegMap, file: &'static str, params: &Consts) -> Result<Program, FirmwareError> {
    let root = format!("{}.include \"{file}\"\n", params.prelude());
    assemble_root(file, "parameters", &root, |want| match want == crate::cfw::ASM_PRELUDE {
        true => Ok(Some((format!("{want} ({})", map.arch.name()), crate::cfw::header::render_asm(map).map_err(|e| e.to_string())?))),
        false => Ok(None),
    })
}

/// Assemble `root` (named `root_name`) as firmware `file`: an `.include`
/// is what `found` gives for its name (the name shown and the text), else
/// the unit of [`UNITS`] of that name.
fn assemble_root(file: &'static str, root_name: &str, root: &str, mut found: impl FnMut(&str) -> Result<Option<(String, String)>, String>) -> Result<Program, FirmwareError> {
    let mut includes = |want: &str, _from: &str| -> Result<(String, String), String> {
        if let Some(it) = found(want)? {
            return Ok(it);
        }
        unit(want).map(|t| (want.to_string(), t.to_string())).ok_or_else(|| format!("no firmware unit '{want}' (cosim/firmware/)"))
    };
    tpb_models::xtensa::asm::source::assemble_source(root_name, root, 0, &Options::tpb(), &mut includes).map_err(|e| FirmwareError { file, message: e.to_string() })
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

/// Assemble `parts` (name, source) one after the other, as if a file
/// `.include`d each in turn; a part may `.include` a unit of [`UNITS`]
/// (`tpb_macros.inc`). An error names the part and its own line.
fn build_parts(file: &'static str, parts: &[(&str, &str)]) -> Result<Program, FirmwareError> {
    let root: String = parts.iter().map(|(name, _)| format!(".include \"{name}\"\n")).collect();
    // The root is named apart from the parts, one of which is `file` itself.
    assemble_root(file, "parts", &root, |want| Ok(parts.iter().find(|(n, _)| *n == want).map(|(n, t)| (n.to_string(), t.to_string()))))
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
        self.map.params.boot.nx_enter_run.unwrap_or(0x90)
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

/// SUNDA: the SET slot of the POOL EVT_SEM release semaphore as a core
/// reaches it (`q7.seq_release_sem`: bit n of the value releases core n);
/// 0 on the generations whose host releases the cores.
pub fn q7_release_set(map: &RegMap) -> Result<u32, FirmwareError> {
    match map.params.q7.seq_release_sem {
        Some(n) => Ok(sys(Addrs::new(map, "q7_release_set").sem(Engine::Pool, WindowOp::Set, n)?)),
        None => Ok(0),
    }
}

/// The user (level-1 interrupt) vector of a core: VECBASE + its offset.
pub fn user_vector(cfg: &tpb_models::xtensa::config::CoreConfig) -> u32 {
    cfg.vecbase + cfg.vectors.user
}

/// The TOP_SP's host_trigger semaphore (the `host_trigger` alias of
/// `top_sp.toml`, CAYMAN and MARIANA); None where host_trigger is a
/// register of its own (SUNDA).
pub fn host_trigger_index(map: &RegMap) -> Option<u32> {
    map.block("top_sp").and_then(|b| b.aliases.iter().find(|x| x.name == "host_trigger")).map(|x| x.index)
}

/// A host doorbell as the TOP_SP's firmware consumes it, the same code on
/// every generation: it has fired while `[read] & mask` is not 0, and
/// writing that masked value to `ack` consumes it. CAYMAN and MARIANA: a
/// semaphore (read window; `ack` its DEC slot, so the write takes away what
/// was read). SUNDA: a latched bit of the TOP_SP's `intr_info` (`ack` the
/// same register: write 1 to clear). Addresses are core-side (system window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostDoorbell {
    pub read: u32,
    pub mask: u32,
    pub ack: u32,
}

/// `host_trigger` ([`HostDoorbell`]).
pub fn host_trigger(map: &RegMap) -> Result<HostDoorbell, FirmwareError> {
    let a = Addrs::new(map, "host_trigger");
    match host_trigger_index(map) {
        Some(i) => Ok(HostDoorbell { read: sys(a.sem(Engine::TopSp, WindowOp::Read, i)?), mask: u32::MAX, ack: sys(a.sem(Engine::TopSp, WindowOp::Dec, i)?) }),
        None => latched(map, tpb_spec::nx_intr::HOST_TRIGGER),
    }
}

/// `stop`: SUNDA's stop doorbell ([`HostDoorbell`]); None on the
/// generations whose seeds give the TOP_SP no stop doorbell.
pub fn stop(map: &RegMap) -> Result<Option<HostDoorbell>, FirmwareError> {
    let has = map.block("top_sp").is_some_and(|b| b.register("stop").is_some());
    has.then(|| latched(map, tpb_spec::nx_intr::STOP)).transpose()
}

fn latched(map: &RegMap, bit: u32) -> Result<HostDoorbell, FirmwareError> {
    let info = sys(Addrs::new(map, "host_trigger").reg(Engine::TopSp, "nx", "intr_info")?);
    Ok(HostDoorbell { read: info, mask: bit, ack: info })
}

pub(crate) mod by_map;
pub mod dkl;
mod seq_dispatch;
mod tapes;
mod units;
pub use seq_dispatch::{dispatch, dispatch_cam, dispatch_dram, nx_dispatch, sunda_segment, DispatchHandler};
pub use tapes::*;
pub use units::*;

#[cfg(test)]
mod tests;
