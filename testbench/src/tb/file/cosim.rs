//! The co-simulation verbs of a testbench file (`stpb_init`,
//! `wait_halted`, `expect_exit`, `expect_console`) and the report of a core's exception.

use super::super::Tb;
use super::{ReleaseTarget, StartTarget, Verb};
use crate::tb::file::firmware::{Built, CoreData, CoreReg, CoreSel, DataAt};
use std::collections::BTreeMap;
use tpb_cosim::sched::{history, CoreId, Cosim};
use tpb_cosim::serve::DataWrite;
use tpb_models::hal::{DevMem, DmaCopy, Hal, StpbConfig, UcodeImages};
use tpb_models::regmap::{Arch, RegMap};
use tpb_models::xtensa::config::DRAM_BASE;
use tpb_models::xtensa::core::{cause, Step};

/// A file's images for one generation.
pub struct Images {
    pub map: RegMap,
    pub built: BTreeMap<&'static str, Built>,
    /// Each Q7 core's own data (`[[firmware.q7.data]]`).
    pub data: Vec<CoreData>,
}

impl Images {
    /// The HAL's `stpb_init` configuration: the file's SEQ image (default
    /// the built-in boot loop, which on SUNDA releases the Q7 cores, DIGEST
    /// §2.9) and its Q7 image.
    pub fn stpb_config(&self) -> Result<StpbConfig, String> {
        let map = &self.map;
        let seq = match self.built.get("seq") {
            Some(b) => b.images.clone(),
            None => {
                let p = tpb_cosim::firmware::nx_boot(map, map.arch == Arch::Sunda).map_err(|e| e.to_string())?;
                UcodeImages { iram: p.bytes, dram: vec![0; 16] }
            }
        };
        let q7 = self.built.get("q7").map(|b| b.images.clone()).ok_or("no [firmware.q7]")?;
        Ok(StpbConfig::new(seq, q7))
    }

    /// Where each `[[firmware.q7.data]]` goes. Every one is checked before anything is
    /// written: a symbol the image lacks, or words past the core's DRAM,
    /// fail the step with nothing written.
    pub fn data_writes(&self) -> Result<Vec<DataWrite>, String> {
        let q7 = self.built.get("q7");
        let dram_bytes = self.map.params.q7.pooling.dram_size;
        self.data
            .iter()
            .map(|d| {
                let what = format!("[[firmware.q7.data]] at line {} (core {})", d.loc.line, d.core);
                let addr = match &d.at {
                    DataAt::Offset(o) => DRAM_BASE + o,
                    DataAt::Symbol(sym) => {
                        q7.and_then(|b| b.symbols.iter().find(|(_, n)| n == sym).map(|(a, _)| *a)).ok_or_else(|| format!("{what}: the q7 image has no symbol '{sym}'"))?
                    }
                };
                let off = u64::from(addr.checked_sub(DRAM_BASE).ok_or_else(|| format!("{what}: {addr:#x} is not in the core's DRAM (from {DRAM_BASE:#x})"))?);
                let len = 4 * d.words.len() as u64;
                if off + len > dram_bytes {
                    return Err(format!("{what}: {} words at DRAM offset {off:#x} run past the core's {dram_bytes:#x} bytes of DRAM", d.words.len()));
                }
                let base = tpb_cosim::firmware::bar0_region(&self.map, &format!("q7[{}].dram", d.core)).ok_or_else(|| format!("{what}: no BAR0 region q7[{}].dram", d.core))?;
                Ok(DataWrite { at: u64::from(base) + off, bytes: d.words.iter().flat_map(|w| w.to_le_bytes()).collect(), what })
            })
            .collect()
    }

    /// Core `id`'s image as a failure report reads it.
    pub fn image(&self, id: CoreId) -> Option<history::Image<'_>> {
        self.of(id).map(|b| history::Image { symbols: &b.symbols, iram: &b.images.iram })
    }

    fn of(&self, id: CoreId) -> Option<&Built> {
        self.built.get(match id {
            CoreId::Q7(_) => "q7",
            CoreId::Seq => "seq",
            CoreId::TopSp => "top_sp",
            CoreId::Ncfw => return None,
        })
    }
}

fn cosim(tb: &mut Tb) -> &mut Cosim {
    tb.cosim().expect("a file with [firmware] runs on the co-simulation")
}

/// Run one co-simulation verb; the error says what failed.
pub fn verb(tb: &mut Tb, fw: &Images, verb: &Verb, want: u64) -> Result<(), String> {
    match verb {
        Verb::StpbInit { dma, release } => {
            // The HAL's order: install (every core held), each core's own
            // data, then the releases, unless the file releases them itself.
            let mut cfg = fw.stpb_config()?;
            cfg.pooling.dma = dma.then(tpb_cosim::scenario::dma_rings);
            cfg.pooling.hold_run_stall = !*release || !fw.data.is_empty();
            let hal = Hal::with_map(fw.map.clone());
            let writes = fw.data_writes()?;
            hal.stpb_init(cosim(tb), &cfg, None).map_err(|e| format!("the HAL's stpb_init: {e}"))?;
            for d in writes {
                tpb_models::hal::Mmio::write_buf(cosim(tb), d.at, &d.bytes).map_err(|e| format!("{}: {e}", d.what))?;
            }
            if cfg.pooling.hold_run_stall && *release {
                hal.stpb_release(cosim(tb)).map_err(|e| format!("the HAL's releases (pooling_init steps 5 and 6): {e}"))?;
            }
            Ok(())
        }
        Verb::Release(target) => {
            let hal = Hal::with_map(fw.map.clone());
            let c = cosim(tb);
            match target {
                ReleaseTarget::All => hal.stpb_release(c),
                ReleaseTarget::Seq => hal.release_nx(c, tpb_models::regmap::Engine::Pool),
                ReleaseTarget::TopSp => hal.release_nx(c, tpb_models::regmap::Engine::TopSp),
                ReleaseTarget::Q7(mask) => hal.release_q7(c, *mask),
            }
            .map_err(|e| format!("the HAL's release: {e}"))
        }
        Verb::WaitHalted { cores, timeout } => {
            // A halt counts only if it came after the core's last start (a
            // halt left from an earlier run does not: `tpb_cosim::sched::runs`).
            let ids = cores.cores();
            let c = cosim(tb);
            let start = c.stats.cycles;
            let fresh_fault = |c: &Cosim, id: &CoreId| c.core(*id).first_exception.as_ref().is_some_and(|x| x.cycle > c.core(*id).runs.started_at);
            c.run_until(*timeout, |c| ids.iter().all(|id| c.halted_since_start(*id)) || ids.iter().any(|id| fresh_fault(c, id)));
            if ids.iter().any(|id| fresh_fault(cosim(tb), id)) {
                if let Some((_, e)) = exception(tb, fw, Some(*cores), &[]) {
                    return Err(e);
                }
            }
            let c = cosim(tb);
            let left: Vec<String> = ids.iter().filter(|id| !c.halted_since_start(**id)).map(|id| c.not_halted_report(*id, fw.image(*id))).collect();
            if !left.is_empty() {
                return Err(format!("not halted {} cycles after cycle {start}:\n  {}", timeout, left.join("\n  ")));
            }
            Ok(())
        }
        Verb::ExpectExit { cores, .. } => {
            let b = fw.of(cores.cores()[0]).ok_or_else(|| format!("no [firmware.{}]", cores.kind().name()))?;
            let at = b.exit.ok_or("the program has no __tpb_exit (C programs built by tpb cc have it; in assembly, label the word main's result goes to)")?;
            // main's result is this run's only once the core halted after its start.
            let c = cosim(tb);
            if let Some(id) = cores.cores().into_iter().find(|id| !c.halted_since_start(*id)) {
                return Err(format!(
                    "{}: main has not returned since the core was last started (cycle {}); wait for it first (wait_halted)",
                    id.name(),
                    c.core(id).runs.started_at
                ));
            }
            for id in cores.cores() {
                let got = read_local(tb, &fw.map, id, at)?;
                if u64::from(got) != want {
                    let note = if got == tpb_cosim::cfw::ld::EXIT_UNSET { " (main has not returned)" } else { "" };
                    return Err(format!("{}: main returned {got:#x}{note}, expected {want:#x}", id.name()));
                }
            }
            Ok(())
        }
        Verb::ExpectReg { cores, reg: CoreReg::Dram(off), .. } => {
            for id in cores.cores() {
                let got = read_local(tb, &fw.map, id, DRAM_BASE + off)?;
                if u64::from(got) != want {
                    return Err(format!("{}.dram+{off:#x} = {got:#x}, expected {want:#x}", id.name()));
                }
            }
            Ok(())
        }
        Verb::ExpectReg { cores, reg, .. } => {
            let c = cosim(tb);
            for id in cores.cores() {
                let (name, got) = core_reg(c, id, *reg);
                if u64::from(got) != want {
                    return Err(format!("{}.{name} = {got:#x}, expected {want:#x}", id.name()));
                }
            }
            Ok(())
        }
        Verb::PollReg { cores, reg, mask, timeout, .. } => {
            let ids = cores.cores();
            let c = cosim(tb);
            let hit = |c: &Cosim| ids.iter().all(|id| u64::from(core_reg(c, *id, *reg).1) & mask == want & mask);
            if !c.run_until(*timeout, hit) {
                let left: Vec<String> = ids
                    .iter()
                    .map(|id| (id, core_reg(c, *id, *reg)))
                    .filter(|(_, (_, v))| u64::from(*v) & mask != want & mask)
                    .map(|(id, (n, v))| format!("{}.{n} = {v:#x}", id.name()))
                    .collect();
                return Err(format!("after {timeout} cycles, under mask {mask:#x} still not {want:#x}: {}", left.join(", ")));
            }
            Ok(())
        }
        Verb::Hal(call) => {
            let hal = Hal::with_map(fw.map.clone());
            let c = cosim(tb);
            let r = match call.as_str() {
                "topsp_set_host_trigger" => hal.topsp_set_host_trigger(c),
                "topsp_set_init_signal" => hal.topsp_set_init_signal(c),
                "topsp_set_tsync_signal" => hal.topsp_set_tsync_signal(c),
                "topsp_stop" => hal.topsp_stop(c),
                _ => unreachable!("checked on load against HAL_CALLS"),
            };
            r.map_err(|e| format!("the HAL's {call}: {e}"))
        }
        Verb::DevMem { addr, words } => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            cosim(tb).devmem_write(*addr, &bytes).map_err(|e| e.to_string())
        }
        Verb::InitDma { src, to, bytes } => {
            let dst = match tpb_models::regmap::space::parse_u32(to) {
                Some(a) => u64::from(a),
                None => u64::from(tb.resolve(to).map_err(|e| e.to_string())?.addr().ok_or_else(|| format!("{to}: an output port, not a BAR0 address"))?),
            };
            cosim(tb).init_dma(&[DmaCopy { src: *src, dst, len: *bytes }]).map_err(|e| format!("the init DMA to {to}: {e}"))
        }
        Verb::ExpectConsole { cores, contains } => {
            // Only what the core printed since it was last started.
            let c = cosim(tb);
            for id in cores.cores() {
                let since = c.core(id).runs.started_at;
                let lines = c.console.of_since(id, since);
                if !lines.iter().any(|l| l.contains(contains.as_str())) {
                    let shown = if lines.is_empty() {
                        format!("it wrote nothing since it was last started (cycle {since})")
                    } else {
                        format!("its lines: {}", lines.iter().map(|l| format!("{l:?}")).collect::<Vec<_>>().join(", "))
                    };
                    return Err(format!("{}: no console line contains {contains:?}; {shown}", id.name()));
                }
            }
            Ok(())
        }
        Verb::Window { n, window } => Hal::with_map(fw.map.clone()).set_window(cosim(tb), *n, *window).map_err(|e| format!("the HAL's set_window {n}: {e}")),
        Verb::MemWindow2(dst) => Hal::with_map(fw.map.clone()).set_mem_window2(cosim(tb), *dst).map_err(|e| format!("the HAL's set_mem_window2: {e}")),
        Verb::Start { target, at } => {
            let kind = if *target == StartTarget::Seq { "seq" } else { "q7" };
            let b = fw.built.get(kind).ok_or_else(|| format!("start: no [firmware.{kind}] (the built-in image has no labels to start at)"))?;
            let addr = b.symbols.iter().find(|(_, n)| n == at).map(|(a, _)| *a).ok_or_else(|| format!("start: the {kind} image has no label '{at}'"))?;
            let hal = Hal::with_map(fw.map.clone());
            let c = cosim(tb);
            match target {
                StartTarget::Seq => hal.start_nx(c, tpb_models::regmap::Engine::Pool, addr),
                StartTarget::Q7(mask) => hal.start_q7(c, *mask, addr),
            }
            .map_err(|e| format!("the HAL's start at {at} ({addr:#x}): {e}"))
        }
        _ => unreachable!("only the co-simulation verbs come here"),
    }
}

/// A register of a core: its name as written, and its value.
fn core_reg(c: &Cosim, id: CoreId, reg: CoreReg) -> (String, u32) {
    let core = &c.core(id).core;
    match reg {
        CoreReg::Pc => ("pc".to_string(), core.pc),
        CoreReg::A(n) => (format!("a{n}"), core.a(usize::from(n))),
        CoreReg::Sr(n) => (tpb_models::xtensa::config::sr::name(n, false).unwrap_or("?").to_string(), core.sreg(n)),
        CoreReg::Dram(_) => unreachable!("poll_reg refuses dram+ on load; expect_reg reads it apart"),
    }
}

/// A word at core address `at` of core `id` (its DRAM): over BAR0 for the
/// Q7 cores and the SEQ, from the TOP_SP's core-local memory.
fn read_local(tb: &mut Tb, map: &RegMap, id: CoreId, at: u32) -> Result<u32, String> {
    let off = at.checked_sub(DRAM_BASE).ok_or_else(|| format!("{at:#x} is not in DRAM"))?;
    let region = match id {
        CoreId::Q7(n) => format!("q7[{n}].dram"),
        CoreId::Seq => "seq.dram".into(),
        _ => return cosim(tb).top_sp_dram(off).ok_or_else(|| format!("{at:#x} is past the TOP_SP's DRAM")),
    };
    let base = tpb_cosim::firmware::bar0_region(map, &region).ok_or_else(|| format!("no BAR0 region {region}"))?;
    let r = tb.read_addr(base + off).map_err(|e| e.to_string())?;
    if r.err {
        return Err(format!("bus error reading {region}+{off:#x}"));
    }
    Ok(r.rdata)
}

/// The first exception any of the cores `sel` (all, with `None`) took, as
/// a person reads it: the core, the cycle, the cause, the PC as symbol +
/// offset and the instruction there; then the registers it left and the
/// last instructions it retired. Also the cycle, for the waves.
pub fn exception(tb: &mut Tb, fw: &Images, sel: Option<CoreSel>, expected: &[CoreId]) -> Option<(u64, String)> {
    let c = cosim(tb);
    let ids: Vec<CoreId> = match sel {
        Some(s) => s.cores(),
        None => c.cores.iter().filter(|s| s.attached).map(|s| s.id).collect(),
    };
    let ids: Vec<CoreId> = ids.into_iter().filter(|id| !expected.contains(id)).collect();
    let (id, caught) = ids.iter().filter_map(|id| c.core(*id).first_exception.as_deref().map(|x| (*id, x))).min_by_key(|(_, x)| x.cycle)?;
    let Step::Exception { cause: k, pc, vector } = caught.step else { return None };
    let img = fw.image(id);
    let s = format!("{} took {} at cycle {}: {}; vector {vector:#x}{}", id.name(), cause::name(k), caught.cycle, history::at_pc(pc, img), caught.report(img));
    Some((caught.cycle, s))
}

/// `expect_notifications`: the host's reader takes the records posted
/// since its last read; they must be `want`, in order (or, with
/// `any_order`, the same records in some order), none dropped, their
/// sequence numbers going on from `next.0` and their cycles rising past
/// `next.1`.
pub fn notifications(tb: &mut Tb, fw: &Images, want: &[tpb_models::hal::notify::Event], any_order: bool, next: &mut (u16, u32)) -> Result<(), String> {
    let c = cosim(tb);
    let b = Hal::with_map(fw.map.clone()).read_notifications(c).map_err(|e| format!("the HAL's notification reader: {e}"))?;
    let got: Vec<String> = b.notifications.iter().map(|n| n.event.to_string()).collect();
    let shown = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    let wanted: Vec<String> = want.iter().map(|e| e.to_string()).collect();
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    if if any_order { sorted(&got) != sorted(&wanted) } else { got != wanted } {
        let order = if any_order { " (in any order)" } else { "" };
        return Err(format!("notifications at cycle {}: got [{}], expected [{}]{order}", c.stats.cycles, shown(&got), shown(&wanted)));
    }
    if b.dropped != 0 || b.overflow {
        return Err(format!("the unit dropped {} records (overflow {})", b.dropped, b.overflow));
    }
    for n in &b.notifications {
        let first = *next == (0, 0);
        if n.seq != next.0 || (!first && n.cycle <= next.1) {
            return Err(format!(
                "record '{}': sequence number {} at unit cycle {}, expected {} after cycle {} (a record lost or out of order)",
                n.event, n.seq, n.cycle, next.0, next.1
            ));
        }
        *next = (n.seq.wrapping_add(1), n.cycle);
    }
    Ok(())
}

/// What co-simulation steps remember between them in one run.
#[derive(Debug, Default)]
pub struct State {
    /// Marks: name -> a cycle (`mark`, `mark_cycle`).
    pub marks: BTreeMap<String, u64>,
    /// The notification ring's next sequence number and the last record's cycle.
    pub next_record: (u16, u32),
    /// The CTRL and SLOT images of the last `cc_op`.
    pub spads: Option<(Vec<u8>, Vec<u8>)>,
    /// Cores whose exception a step expected (it does not fail the run).
    pub expected_exceptions: Vec<CoreId>,
    /// What the host has consumed of the SEQ's stdio TX ring.
    pub stdio: tpb_models::hal::stdio::Reader,
}

/// `expect_exception`: each chosen core took one (of `cause`, if given).
pub fn expected_exception(tb: &mut Tb, fw: &Images, cores: CoreSel, want: Option<u32>, st: &mut State) -> Result<(), String> {
    for id in cores.cores() {
        let c = cosim(tb);
        let since = c.core(id).runs.started_at;
        let Some(caught) = c.core(id).first_exception.as_deref().filter(|x| x.cycle > since) else {
            return Err(format!("{} took no exception since it was last started (cycle {since}) by cycle {} (pc {:#x})", id.name(), c.stats.cycles, c.core(id).core.pc));
        };
        let Step::Exception { cause: k, .. } = caught.step else { unreachable!("a caught exception records its Step::Exception") };
        if let Some(w) = want.filter(|w| *w != k) {
            let one = match id {
                CoreId::Q7(n) => CoreSel::Q7(n),
                CoreId::Seq => CoreSel::Seq,
                _ => CoreSel::TopSp,
            };
            let report = exception(tb, fw, Some(one), &[]).map(|(_, t)| t).unwrap_or_default();
            return Err(format!("expected {} on {}: {report}", cause::name(w), id.name()));
        }
        st.expected_exceptions.push(id);
    }
    Ok(())
}

/// `cc_op`, `expect_cc_op`, `expect_doorbells` and `tx_console`.
pub fn spads_and_doorbells(tb: &mut Tb, fw: &Images, verb: &Verb, st: &mut State) -> Result<(), String> {
    let hal = Hal::with_map(fw.map.clone());
    let c = cosim(tb);
    match verb {
        Verb::CcOp { entries, compl_sem, init_dma } => {
            let (ctrl, slot) = tpb_cosim::scenario::ccop_program(&hal, entries, *compl_sem).map_err(|e| format!("the cc_op program: {e}"))?;
            let r = if *init_dma { hal.stage_spad_and_kick(c, tpb_models::hal::devmem::TOPSP_STAGING_BASE, &ctrl, &slot) } else { hal.load_spad_and_kick(c, &ctrl, &slot) };
            r.map_err(|e| format!("the HAL's {}: {e}", if *init_dma { "stage_spad_and_kick" } else { "load_spad_and_kick" }))?;
            st.spads = Some((ctrl, slot));
            Ok(())
        }
        Verb::ExpectCcOp => {
            let (ctrl, slot) = st.spads.as_ref().ok_or("no cc_op step before it: no program to compare")?;
            let p = &fw.map.params;
            for (what, base, img) in [("CTRL", p.bar0.tpb_base + p.bar0.top_sp_ctrl_spad, ctrl), ("SLOT", p.bar0.tpb_base + p.bar0.top_sp_slot_spad, slot)] {
                for (i, w) in img.chunks(4).enumerate() {
                    let want = u32::from_le_bytes(std::array::from_fn(|k| w.get(k).copied().unwrap_or(0)));
                    let got = tpb_models::hal::Mmio::read32(c, base + 4 * i as u64).map_err(|e| format!("reading the {what} SPAD: {e}"))?;
                    if got != want {
                        return Err(format!("{what} SPAD word {i} = {got:#x}, the program's {want:#x}"));
                    }
                }
            }
            Ok(())
        }
        Verb::ExpectDoorbells { count, after, mark } => {
            let dbs = &c.doorbell_cycles;
            if dbs.len() as u64 != *count || c.stats.doorbells != *count {
                return Err(format!("{} DMA completion doorbells (dma_db_valid) by cycle {}, expected {count}", c.stats.doorbells, c.stats.cycles));
            }
            if let Some(m) = after {
                let at = *st.marks.get(m).ok_or_else(|| format!("no mark '{m}' yet"))?;
                if let Some(early) = dbs.iter().find(|d| **d <= at) {
                    return Err(format!("a DMA completion doorbell at cycle {early}, at or before mark '{m}' (cycle {at})"));
                }
            }
            if let Some(m) = mark {
                st.marks.insert(m.clone(), dbs.last().copied().unwrap_or(0));
            }
            Ok(())
        }
        Verb::TxConsole => {
            let mut d = hal.drain_stdio(c, &mut st.stdio).map_err(|e| format!("the HAL's stdio drain: {e}"))?;
            let cycle = c.stats.cycles;
            c.console.take(CoreId::Seq, cycle, &mut d.text);
            if d.lost > 0 {
                return Err(format!("{} stdio chunks were rewritten before the host drained them (the ring keeps {}): drain more often", d.lost, tpb_models::hal::stdio::SLOTS));
            }
            Ok(())
        }
        _ => unreachable!("only cc_op, expect_cc_op, expect_doorbells and tx_console come here"),
    }
}
