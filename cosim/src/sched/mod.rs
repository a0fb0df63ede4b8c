//! The co-simulation scheduler: one clock for a Verilated TPB top, the
//! behavioural cores (8 Q7 cores, the POOL SEQ and the TOP_SP NX
//! sequencers) and the host HAL.
//!
//! Each cycle: every core that is not run-stalled and has nothing in flight
//! steps once (an instruction whose fetch, load or store is not yet answered
//! returns `BusWait` and changes nothing; the core retries once the answer
//! came: the RTL's wait states are the core's wait states); one BAR0
//! request is granted; the top evaluates; the clock ticks. The top's
//! `q7_run_stall` / `nx_run_stall` outputs drive each core's RunStall pin and
//! each core's HALT/WAITI state drives `q7_halted` / `nx_halted`.
//!
//! ## Where a core's accesses go (`[D]`, [`CoreBus`])
//! | core address | Q7 core | SEQ (POOL NX) | TOP_SP |
//! |---|---|---|---|
//! | IRAM `0..` | its RTL port `if_*`/`ls_*` | BAR0 `seq_iram` | core-local ROM image |
//! | DRAM [`DRAM_BASE`]`..` | its RTL port `ls_*` | BAR0 `seq_dram` | core-local RAM |
//! | [`SYSTEM_WINDOW`]` + a` | BAR0 address `a` | BAR0 `a` | BAR0 `a` |
//! | [`SOC_PORT`] `+0/+4/+8` | SoC address low / high / data | same | same |
//! | [`HWD_PORT`] `+0/+4/+8` | the HW-decode port: lookup, head, handler + pop | same | same |
//! | [`XLAT_APERTURE`]`..+1 GiB` | POOL's address translation (requester n + 1), a hit goes out as a SoC address | same (requester 0) | — |
//! | `pool_control_window_base`` + w` | — | the POOL control window: BAR0 Q7 bundle `+ w -` [`CTRL_WINDOW_Q7_BUNDLE`] | — |
//!
//! The RTL gives the NX sequencers no memory port of their own, so they
//! reach their memories and every register through the top's BAR0 port, the
//! one system port of this model. The SEQ's IRAM/DRAM are the top's SEQ
//! memories the HAL installs (`ucode_seq_init`); nothing in the seeds loads
//! TOP_SP firmware, so its image is core-local (a ROM the scenario gives).
//! BAR0 is word-only: a sub-word store through it faults, except to the SEQ's
//! own IRAM/DRAM (read, merged, written back: C stores bytes to its stack).
//!
//! **BAR0 arbitration `[D]`**: one request in flight at a time; the SEQ's
//! I-fetch DMA ([`IFetch`], when on) first, the host, then requests that
//! came from another die ([`crate::mesh`]), then the TOP_SP-init DMA queue
//! ([`InitDma`]), then the cores round-robin. A
//! request's response is awaited up to
//! [`BAR0_TIMEOUT`] cycles.
//!
//! **The SoC port `[D]`** (DIGEST §7 routing): a core writes a 64-bit SoC
//! address as two words, then stores (or loads) the data word. The address
//! is decoded as DIGEST §7 folds it (bit 47 die, bits 53:48 chip id when bit
//! 54 says valid); the local part must fall in this die's TOP_SP instance
//! (`sp_base` of `arch.toml`, instance span `1 << instance_shift`) and is
//! routed to that TOP_SP's local-register aperture: on this die through BAR0,
//! on another die through [`crate::mesh::Mesh`]. A local part below
//! [`DEVMEM_SIZE`](tpb_models::hal::devmem::DEVMEM_SIZE) on this die is its
//! device memory (`[D]`, [`Cosim::devmem_at`]), which answers at once: the
//! Q7 loader's way to a kernel image (`kernel-load`).
//!
//! The HAL runs against [`Cosim`] through the [`Mmio`] trait: every access
//! it makes advances the whole system until the top answers, so the HAL's
//! accesses, the cores and the RTL share one time base (the VCD's).
//! Deterministic: no threads, no wall clock.
//!
//! ## Rooms
//! - this file: the system ([`Cosim`]): its cores, the top, and one cycle;
//! - `core_bus.rs`: a core's memory bus ([`CoreBus`]) and its RTL port;
//! - `arbiter.rs`: BAR0 arbitration, the SoC port's routing, responses;
//! - `host.rs`: the HAL's side ([`Mmio`], [`Written`]);
//! - `init_dma.rs`: device memory and the TOP_SP-init DMA queue ([`InitDma`]);
//! - `ifetch.rs`: the SEQ's I-cache and its I-fetch DMA ([`IFetch`]), when a scenario turns them on;
//! - the `[D]` addresses a core reaches the top through are `tpb_spec::core_map` (re-exported here);
//! - `slot.rs`: the cores ([`CoreId`]) and each one's slot ([`Slot`]);
//! - `record.rs`: what the scheduler records ([`Txn`], [`Master`], [`Stats`]);
//! - `console.rs`, `history.rs`: the cores' text, and what a failure report shows.

use crate::dut::{CoreState, Dut, HalKind};
use crate::verilator::VlError;
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use tpb_hdl::top::TopSim;
use tpb_models::csr::{Req, Rsp};
use tpb_models::golden::q7_cluster::{PortIn, PortOut, CORES};
use tpb_models::golden::top::{Outputs, Pins};
use tpb_models::hal::{check_buf, Mmio, MmioError};
use tpb_models::ncfw::mesh::ChipAddr;
use tpb_models::regmap::cover::RegCoverage;
use tpb_models::regmap::{builtin, Arch, Engine, RegMap};
use tpb_models::xtensa::bus::{Bus, BusError, Size};
use tpb_models::xtensa::config::CoreConfig;
use tpb_models::xtensa::core::{Core, Step};

mod arbiter;
pub mod console;
mod core_bus;
mod cycle;
pub mod history;
mod host;
mod ifetch;
mod init_dma;
mod local_mem;
mod record;
mod runs;
mod slot;
mod soc_writes;

pub use arbiter::{NoResponse, RemoteReq, RouteError, SocDecoder};
use core_bus::{port_in, take_port, Answer, Asked, Kind, Pending, Via};
pub use core_bus::{CoreBus, Mem};
pub use host::Written;
pub use ifetch::{Dropped, ICache, IFetch, FILL_DESC_WORDS};
pub use init_dma::InitDma;
pub use record::{Master, Stats, Txn};
pub use runs::RunMarks;
pub use slot::{slot_index, CoreId, Requester, Slot};
pub use soc_writes::SocWrites;
pub use tpb_spec::core_map::*;

/// Cycles a BAR0 access may wait for its response.
pub const BAR0_TIMEOUT: u64 = 64;
/// Cycles [`Cosim::reset`] holds reset: a block counting cycles since
/// reset reads `stats.cycles - RESET_CYCLES`.
pub const RESET_CYCLES: u64 = 4;
/// `[D]` Cycles a top must end calm in a row before [`Cosim::quiescent`]:
/// longer than any of its pipelines (a BAR0 response, a doorbell pulse, a
/// notification record's post, the drop count's popcount, a translation).
pub const QUIET_CYCLES: u64 = 16;
/// Entries [`Cosim::log`] keeps (the oldest are dropped past this).
pub const LOG_LIMIT: usize = 1 << 20;

/// Why a co-simulation cannot start.
#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    #[error(transparent)]
    Verilator(#[from] VlError),
    #[error(transparent)]
    Map(#[from] tpb_models::regmap::RegmapError),
    #[error("a {map} map for a {top} top")]
    MapArch { map: &'static str, top: &'static str },
    #[error("the TOP_SP's memories are not core-local")]
    NotLocal,
    #[error("TOP_SP {what} image of {bytes} bytes does not fit its {room} bytes")]
    ImageTooBig { what: &'static str, bytes: usize, room: usize },
    #[error("mesh: {0}")]
    Mesh(String),
    #[error("SEQ I-cache line of {0} bytes: a power of two from 16 to 1024")]
    ICacheLine(u32),
    #[error("SEQ I-cache: {0}")]
    ICache(#[source] crate::firmware::FirmwareError),
    /// A SoC address that cannot be moved to another die of a mesh.
    #[error("die_addr({addr:#x}, die {die}): {source}")]
    DieAddr { addr: u64, die: u32, source: tpb_models::ncfw::PackError },
}

/// A TPB top with its cores and the host on BAR0.
pub struct Cosim {
    pub dut: Dut,
    map: RegMap,
    /// Q7 cores 0..8, then the SEQ, then the TOP_SP.
    pub cores: Vec<Slot>,
    pub stats: Stats,
    /// BAR0 transactions other than instruction fetches, oldest first.
    pub log: VecDeque<Txn>,
    /// Cycle of each DMA completion doorbell (rising `dma_db_valid`).
    pub doorbell_cycles: Vec<u64>,
    /// Each core restart: (cycle it took effect, core, start address).
    pub start_log: Vec<(u64, CoreId, u32)>,
    /// This die's number in a mesh (0 alone).
    pub die: u32,
    /// Dies in the mesh (1 alone): where a neighbour route wraps.
    pub dies: u32,
    /// This top's TOP_SP instance on its die (its `sp_base` entry), and
    /// how many instances each die of the mesh models (1 alone, `[D]`:
    /// each TOP_SP instance is a TPB top of its own).
    pub instance: u32,
    pub instances: u32,
    /// How the SoC port reads bits 53:48 ([`SocDecoder`]).
    pub decoder: SocDecoder,
    /// The device memory and the TOP_SP-init DMA queue ([`InitDma`]).
    pub init_dma: InitDma,
    /// The SEQ's I-fetch DMA ([`Cosim::seq_icache`]; idle unless turned on).
    pub ifetch: IFetch,
    /// The SEQ DMA's SoC writes ([`SocWrites`]).
    pub soc: SocWrites,
    /// Requests from other dies waiting for BAR0 (filled by the mesh).
    pub inbound: VecDeque<RemoteReq>,
    /// Requests for other nodes (taken by the mesh): (target node, request).
    pub outbound: Vec<(u32, RemoteReq)>,
    /// Answers to inbound requests (taken by the mesh).
    pub replies: Vec<(RemoteReq, Rsp)>,
    host_req: Option<Req>,
    host_rsp: Option<Result<Rsp, arbiter::NoResponse>>,
    /// The request in flight on BAR0, its log index, and cycles waited.
    inflight: Option<(Master, Req, Option<usize>, u64)>,
    rr: usize,
    /// BAR0 word addresses written, by the host or a core (a zero pad word
    /// over one of them is sent).
    written: Written,
    /// BAR0 bases of each Q7 core's IRAM and DRAM (its port's stores are marked written).
    q7_mem: Vec<(u64, u64)>,
    /// The core whose address translation is in flight (one at a time).
    xlat_wait: Option<usize>,
    stalled: u16,
    /// The top's RunStall and interrupt outputs `(nx_run_stall,
    /// q7_run_stall, nx_irq, q7_irq)` last given to the cores: a cycle
    /// whose outputs give the same skips the cores' pins.
    lines_given: Option<(u8, u8, u8, u8)>,
    /// What the cores ask for this cycle, by kind (see [`Asked`]).
    asked: Asked,
    /// Consecutive cycles ending calm (see [`Cosim::quiescent`]), the pins
    /// of the last cycle, and the cycle of the last reset edge.
    quiet: u64,
    prev_pins: Pins,
    reset_at: u64,
    /// The outputs of the last cycle.
    pub out: Outputs,
    /// Advanced every 4096 cycles (`tpb sim`'s progress bar).
    pub progress: Option<indicatif::ProgressBar>,
    /// The host's probe: its transaction number and what it does.
    hal_probe: (u32, HalKind),
    /// The lines the cores wrote ([`console`]).
    pub console: console::Console,
    /// Register coverage, when asked for (`tpb cover`): every logged BAR0
    /// access and every [`Cosim::checked`] value counts against the map's
    /// fields, for the run [`RegCoverage::source`] names.
    pub regs: Option<Box<RegCoverage>>,
    /// The seeds' cases seen, when asked for (`tpb cover`).
    pub points: Option<Box<crate::cover::points::Points>>,
    /// The BAR0 addresses whose writes start cores ([`runs`]).
    starts: runs::StartTable,
}

impl Cosim {
    /// A top of `arch`, reset, with its cores in their reset state
    /// (run-stalled by the top); a trace can be opened at any time.
    pub fn new(arch: Arch) -> Result<Cosim, CosimError> {
        Cosim::on(Dut::new(arch)?)
    }

    /// As [`Cosim::new`] on a given top (e.g. a model built at run time).
    pub fn on(dut: Dut) -> Result<Cosim, CosimError> {
        let map = builtin(dut.arch())?;
        Cosim::with_map(dut, map)
    }

    /// As [`Cosim::on`] with the map already loaded (the scenarios, the HAL
    /// and the firmware all read it from [`Cosim::map`] from then on).
    pub fn with_map(dut: Dut, map: RegMap) -> Result<Cosim, CosimError> {
        if map.arch != dut.arch() {
            return Err(CosimError::MapArch { map: map.arch.name(), top: dut.arch().name() });
        }
        let p = &map.params;
        let mut cores: Vec<Slot> = (0..CORES as u8)
            .map(|n| {
                let bus = CoreBus::new(Mem::Port, p.q7.pooling.iram_size as u32, Mem::Port, p.q7.pooling.dram_size as u32);
                Slot::new(CoreId::Q7(n), Core::new(CoreConfig::q7(p, u32::from(n))), bus, true)
            })
            .collect();
        let (iram, dram) = (p.bar0.seq_iram, p.bar0.seq_dram);
        let mut seq_bus = CoreBus::new(Mem::Bar0 { base: iram.base as u32 }, iram.size as u32, Mem::Bar0 { base: dram.base as u32 }, dram.size as u32);
        let q7_bundle = tpb_models::regmap::space::AddressSpace::new(map.clone()).resolve("pool.q7.release_run_stall").map(|n| n.addr());
        seq_bus.ctrl_window = p.boot.pool_control_window_base.zip(q7_bundle.ok());
        seq_bus.xlat_who = Some(0);
        for (n, s) in cores.iter_mut().enumerate() {
            s.bus.xlat_who = Some(n as u8 + 1);
        }
        cores.push(Slot::new(CoreId::Seq, Core::new(CoreConfig::nx(p)), seq_bus, true));
        let top_bus = CoreBus::new(Mem::Local(vec![0; iram.size as usize]), iram.size as u32, Mem::Local(vec![0; dram.size as usize]), dram.size as u32);
        cores.push(Slot::new(CoreId::TopSp, Core::new(CoreConfig::top_sp(p)), top_bus, false));
        let ncfw_bus = CoreBus::new(Mem::Local(vec![0; iram.size as usize]), iram.size as u32, Mem::Local(vec![0; dram.size as usize]), dram.size as u32);
        let ncfw = CoreConfig { name: "ncfw".into(), ..CoreConfig::lx(p) };
        cores.push(Slot::new(CoreId::Ncfw, Core::new(ncfw), ncfw_bus, false));
        for s in &mut cores {
            s.core.set_run_stall(true);
        }
        let regions = p.bar0_regions();
        let q7_mem = (0..CORES)
            .map(|n| {
                let at = |m: &str| regions.iter().find(|r| r.name == format!("q7[{n}].{m}")).map_or(u64::MAX, |r| r.region.base);
                (at("iram"), at("dram"))
            })
            .collect();
        let mut c = Cosim {
            dut,
            map,
            cores,
            stats: Stats::default(),
            log: VecDeque::new(),
            doorbell_cycles: Vec::new(),
            start_log: Vec::new(),
            die: 0,
            dies: 1,
            instance: 0,
            instances: 1,
            decoder: SocDecoder::ChipId,
            soc: SocWrites::default(),
            init_dma: InitDma::default(),
            ifetch: IFetch::default(),
            inbound: VecDeque::new(),
            outbound: Vec::new(),
            replies: Vec::new(),
            host_req: None,
            host_rsp: None,
            inflight: None,
            rr: 0,
            written: Written::default(),
            q7_mem,
            xlat_wait: None,
            stalled: 0xffff,
            lines_given: None,
            asked: Asked::default(),
            quiet: 0,
            prev_pins: Pins::default(),
            reset_at: 0,
            out: Outputs::default(),
            progress: None,
            hal_probe: (0, HalKind::Idle),
            console: console::Console::default(),
            regs: None,
            points: None,
            starts: runs::StartTable::default(),
        };
        c.starts = runs::StartTable::of(&c.map);
        c.reset();
        Ok(c)
    }

    /// This top's node in a mesh: die × TOP_SP instances per die + instance.
    pub fn node(&self) -> u32 {
        self.die * self.instances + self.instance
    }

    pub fn map(&self) -> &RegMap {
        &self.map
    }

    pub fn core(&self, id: CoreId) -> &Slot {
        &self.cores[slot_index(id)]
    }

    /// The 8 Q7 cores.
    pub fn q7(&self) -> &[Slot] {
        &self.cores[..CORES]
    }

    /// Hold reset for 4 cycles, then run the EVT_SEM post-reset clear.
    /// [`Stats`] count from the end of this.
    pub fn reset(&mut self) {
        for s in &mut self.cores {
            s.first_exception = None;
            s.runs = RunMarks::default();
        }
        for _ in 0..RESET_CYCLES {
            self.cycle(true);
        }
        self.run(u64::from(tpb_models::golden::evt_sem::CLEAR_CYCLES) + 2);
        // Counters start here; `cycles` keeps counting from power-on so it
        // matches the trace's time base (time = 2 × cycle).
        self.stats = Stats { cycles: self.stats.cycles, ..Stats::default() };
        self.log.clear();
        self.doorbell_cycles.clear();
        self.start_log.clear();
        self.stalled = self.stall_bits(&self.out.clone());
        for s in &mut self.cores {
            s.runs.started_at = self.stats.cycles;
        }
    }

    /// Trace the run into a VCD (or an FST, converted when the trace closes) from now on.
    pub fn trace(&mut self, path: &Path) -> Result<(), VlError> {
        self.dut.trace_open(path)
    }

    /// Run `n` cycles with the host idle.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle(false);
        }
    }

    /// Run until `done(self)` or `limit` cycles; returns whether it became true.
    pub fn run_until(&mut self, limit: u64, mut done: impl FnMut(&Cosim) -> bool) -> bool {
        for _ in 0..limit {
            if done(self) {
                return true;
            }
            self.cycle(false);
        }
        done(self)
    }

    /// The top and its cores are at a fixed point: the last
    /// [`QUIET_CYCLES`] cycles ended calm (nothing asked of the top or in
    /// flight, every stepped core halted, in WAITI or run-stalled, the same
    /// pins and outputs cycle after cycle, the DMA idle; a running
    /// timestamp changes the outputs every cycle), the EVT_SEM's post-reset
    /// clear is long over, nothing waits to come in, and nothing is traced.
    /// Another cycle with the same inputs changes nothing, so
    /// [`Cosim::skip_cycle`] may stand for it.
    pub fn quiescent(&self) -> bool {
        let settled = self.stats.cycles >= self.reset_at + u64::from(tpb_models::golden::evt_sem::CLEAR_CYCLES) + QUIET_CYCLES;
        self.quiet >= QUIET_CYCLES && settled && self.host_req.is_none() && self.inbound.is_empty() && !self.init_dma.busy() && !self.ifetch.busy() && !self.dut.trace_wanted()
    }

    /// Cycles in a row that ended calm (see [`Cosim::quiescent`]).
    pub fn calm_cycles(&self) -> u64 {
        self.quiet
    }

    /// Count a cycle without evaluating the top or stepping the cores
    /// (only while [`Cosim::quiescent`]; the mesh's skipping).
    pub fn skip_cycle(&mut self) {
        debug_assert!(self.quiescent());
        self.dut.skip_cycle();
        self.stats.cycles += 1;
        self.stats.skipped += 1;
        if self.stats.cycles.is_multiple_of(4096) {
            if let Some(p) = &self.progress {
                p.set_position(self.stats.cycles);
            }
        }
    }

    fn attached_mask(&self) -> u16 {
        self.cores.iter().enumerate().filter(|(_, s)| s.attached).fold(0, |m, (i, _)| m | 1 << i)
    }
}
