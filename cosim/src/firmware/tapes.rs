//! The steppers of the collectives: the mesh event tape (TOP_SP or NCFW),
//! the ring channel programs, and the TOP_SP's time sync.

use super::*;

/// How `mesh_tape.S` WAITs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
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
/// The algo_ctx offset a tape keeps in a register (`CTX_200`, `[D]`).
const CTX_200_AT: u32 = 0x200;

/// The tapes' words in algo_ctx as parameters, each an algo_ctx offset:
/// `CTX_200_AT`, the seeds' `EVENT_INDEX_AT` and [`TAPE_DONE_AT`].
fn ctx_words(c: &mut Consts) {
    c.set("CTX_200_AT", CTX_200_AT).set("EVENT_INDEX_AT", tpb_models::ncfw::mesh::algo_ctx::MESH_EVENT_INDEX).set("TAPE_DONE_AT", TAPE_DONE_AT);
}

fn tape_consts(f: &'static str, map: &RegMap, events: u32, signal_value: u32) -> Result<Consts, FirmwareError> {
    let cap = map.params.mesh_events_capacity;
    if events > cap {
        return Err(err(f, format!("{events} events exceed the generation's mesh capacity of {cap} (DIGEST §7)")));
    }
    let mut c = Consts::default();
    c.set("EVENTS", events).set("EVENT_BYTES", tpb_models::ncfw::mesh::MeshEvent::BYTES as u32).set("SIGNAL_VALUE", signal_value).set("TAPE_DONE", TAPE_DONE);
    c.set("TAPE", DRAM_BASE + ALGO_CONFIGS + tpb_models::ncfw::mesh::ALGO_CONFIGS_MESH_OFFSET);
    c.set("CTX_200", DRAM_BASE + ALGO_CTX + CTX_200_AT);
    ctx_words(&mut c);
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
    c.set("CTRL_SPAD", sys(a.region("top_sp.ctrl_spad")?));
    if DRAM_BASE & 0xffff != 0 {
        return Err(err(f, format!("the dispatch spine's one const16 needs a DRAM base with a zero low half, not {DRAM_BASE:#x}")));
    }
    c.set("DRAM", DRAM_BASE).set("ALGOS", AlgType::ALL.len() as u32).set("ALGO_BAD", ALGO_BAD);
    build_appended(f, NCFW_TAPE, &c, false, &[("tape_fire.S", TAPE_FIRE), ("ncfw_wait.S", NCFW_WAIT)])
}

/// The offset of the NCFW firmware's algorithm table in its DRAM (seed 003 §9.3).
pub const NCFW_ALGO_TABLE: u32 = 0xb0;

/// The algorithm table `ncfw_tape.S` dispatches through, as its DRAM image
/// holds it at [`NCFW_ALGO_TABLE`]: one IRAM address per `enc_alg_type`
/// (12): the mesh algo_types' the tape stepper, the others' the label that
/// reports them (`ALGO_BAD`).
pub fn ncfw_algo_table(prog: &Program) -> Result<Vec<u8>, FirmwareError> {
    let label = |l: &str| prog.labels.get(l).copied().ok_or_else(|| err("ncfw_tape.S", format!("no label '{l}'")));
    let (mesh, other) = (label("algo_mesh")?, label("algo_other")?);
    Ok(AlgType::ALL.iter().flat_map(|t| if t.is_mesh() { mesh } else { other }.to_le_bytes()).collect())
}

/// `dram` (a tape's DRAM image) with [`ncfw_algo_table`] at
/// [`NCFW_ALGO_TABLE`], below algo_configs ([`ALGO_CONFIGS`]): a byte that
/// is not zero there is an error.
pub fn with_ncfw_algo_table(prog: &Program, mut dram: Vec<u8>) -> Result<Vec<u8>, FirmwareError> {
    let table = ncfw_algo_table(prog)?;
    let at = NCFW_ALGO_TABLE as usize..NCFW_ALGO_TABLE as usize + table.len();
    if dram.len() < at.end {
        dram.resize(at.end, 0);
    }
    if dram[at.clone()].iter().any(|b| *b != 0) {
        return Err(err("ncfw_tape.S", format!("the DRAM image uses {:#x}..{:#x}, where the algorithm table goes", at.start, at.end)));
    }
    dram[at].copy_from_slice(&table);
    Ok(dram)
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
    ctx_words(&mut c);
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
    c.set_all(super::tsync_out::ALL);
    for (name, sem) in [("INIT", s.init), ("TSYNC", s.tsync), ("SYNC", s.sync), ("DELAY_REQ", s.delay_req), ("DELAY_RESP", s.delay_resp), ("T1", s.t1), ("T4", s.t4)] {
        // A pair's high word is the next semaphore (T1_AT + 4 in the source).
        a.sem(Engine::TopSp, WindowOp::Read, sem + u32::from(name == "T1" || name == "T4"))?;
        c.set(&format!("{name}_AT"), a.sem(Engine::TopSp, WindowOp::Read, sem)? - read0);
    }
    build_nx(f, TOP_SP_TSYNC, &c)
}
