//! The `dispatch` scenario (see docs/scenarios.md): the SEQ's
//! instruction dispatch (DIGEST §4), fed by the host through the
//! instruction queue; on CAYMAN/MARIANA in each of the boot flag's three
//! modes, the SEQ restarted between them.

use super::*;
use crate::firmware::dispatch::{self as d, Path as P};
use crate::firmware::DispatchHandler;

/// A boot mode of the CAYMAN+ front end, or SUNDA's single one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootMode {
    /// HW-decode FIFO path; a CAM miss falls back to the software fetch.
    HwDecode,
    /// HW-decode FIFO path; a CAM miss takes the unknown-opcode interrupt.
    MissIrq,
    /// "Sunda-mode": the software fetch only.
    SundaMode,
    /// SUNDA: base subtraction, segments and leaves (no flag).
    Sunda,
}

impl BootMode {
    pub fn flag(self) -> u32 {
        match self {
            BootMode::HwDecode | BootMode::Sunda => 0,
            BootMode::MissIrq => d::MISS_IRQ,
            BootMode::SundaMode => d::SUNDA_MODE,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            BootMode::HwDecode => "HW-decode, software fallback",
            BootMode::MissIrq => "HW-decode, miss interrupt",
            BootMode::SundaMode => "Sunda-mode",
            BootMode::Sunda => "SUNDA base subtraction",
        }
    }
}
/// `[dispatch]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchCfg {
    /// Instruction-queue entries (a power of two, 2..=64).
    pub ring: u32,
    /// The handlers, numbered in order (at most 62).
    pub handlers: Vec<firmware::DispatchHandler>,
    /// The instructions the host sends, `[opcode, func]` (operand i is 0x100 + i).
    pub stream: Vec<[u8; 2]>,
}

/// The modes a generation runs, in order.
pub fn modes(arch: Arch) -> Vec<BootMode> {
    if arch == Arch::Sunda {
        vec![BootMode::Sunda]
    } else {
        vec![BootMode::HwDecode, BootMode::MissIrq, BootMode::SundaMode]
    }
}

/// The reference: the handler and path instruction `(opcode, func)` must
/// reach in `mode`, from the roster alone (independent of the firmware).
pub fn expect(mode: BootMode, handlers: &[DispatchHandler], opcode: u8, func: u8) -> (u8, P) {
    let by_opcode = handlers.iter().position(|h| h.func.is_none() && h.opcode == opcode);
    let cam = || {
        let narrow = handlers.iter().position(|h| h.cam && h.func == Some(func) && h.opcode == opcode);
        narrow.or(by_opcode.filter(|&h| handlers[h].cam))
    };
    let software = || {
        let n = u32::from(opcode).wrapping_sub(d::OPCODE_BASE.into());
        match by_opcode {
            Some(h) if n < d::SW_ENTRIES => (h as u8, P::Table),
            _ => (d::UNKNOWN, P::Unknown),
        }
    };
    match mode {
        BootMode::HwDecode => cam().map_or_else(software, |h| (h as u8, P::Hw)),
        BootMode::MissIrq => cam().map_or((d::UNKNOWN, P::MissIrq), |h| (h as u8, P::Hw)),
        BootMode::SundaMode => software(),
        BootMode::Sunda => match by_opcode {
            Some(h) if firmware::sunda_segment(opcode).is_some() => (h as u8, P::Table),
            Some(h) => (h as u8, P::Leaf),
            None => (d::UNKNOWN, P::Unknown),
        },
    }
}

/// Operand of stream entry `i` (each handler sums the operands it took).
fn operand(i: usize) -> u32 {
    0x100 + i as u32
}

/// `dispatch`: see the module table.
pub fn dispatch(c: &mut Cosim, cfg: &DispatchCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let arch = map.arch;
    let hal = Hal::with_map(map.clone());
    let mut r = Report::default();
    let prog = firmware::nx_dispatch(&map, &cfg.handlers, cfg.ring)?;
    let modes = modes(arch);
    let mut s = StpbConfig::new(
        UcodeImages { iram: prog.bytes.clone(), dram: firmware::dispatch_dram(&map, &prog, &cfg.handlers, modes[0].flag())? },
        UcodeImages { iram: firmware::q7_halt(&map)?.bytes, dram: vec![0; 16] },
    );
    if map.params.hw_decode.present {
        s.pooling.hw_decode = firmware::dispatch_cam(&prog, &cfg.handlers)?;
        r.value("cam_entries", s.pooling.hw_decode.cam.len() as u64);
    }
    hal.stpb_init(c, &s, None)?;
    let dram = region(c, "seq.dram")?;
    let intr_info = u64::from(Addrs::new(&map, "dispatch").reg(Engine::Pool, "nx", "intr_info")?);
    let pool_bit = Engine::Pool.isa_id().unwrap_or(2);
    for (k, &mode) in modes.iter().enumerate() {
        if k > 0 {
            // Restart the SEQ from reset with the next boot flag: hold it, reset its record, start it.
            hal.halt_nx(c, Engine::Pool)?;
            let held = c.run_until(limit, |c| c.out.nx_run_stall >> pool_bit & 1 == 1);
            r.check(c.stats.cycles, held, format!("the SEQ is held for the restart into {}", mode.name()))?;
            c.write_buf(dram, &words(&[mode.flag(), 0, 0, 0, 0]))?;
            c.write_buf(dram + u64::from(d::TAKEN), &[0; 0x200])?;
            hal.start_nx(c, Engine::Pool, 0)?;
            r.events.push((c.stats.cycles, format!("host restarts the SEQ: {}", mode.name())));
        }
        let done = run_stream(c, cfg, mode, dram, limit, &mut r)?;
        check_record(c, cfg, mode, dram, &mut r)?;
        // Every instruction reported its completion, in order, with its tag.
        let want: Vec<u32> = cfg.stream.iter().enumerate().map(|(i, [op, func])| (i as u32) << 16 | u32::from(*func) << 8 | u32::from(*op)).collect();
        let first = done.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(done.len().min(want.len()));
        r.check(
            c.stats.cycles,
            done == want,
            format!("{}: {} INST notifications (POOL, inst_done) in stream order with their tags; expected {}, first difference at {first}", mode.name(), done.len(), want.len()),
        )?;
        let info = c.read_checked(intr_info, 2)?;
        let misses = cfg.stream.iter().filter(|[o, f]| expect(BootMode::HwDecode, &cfg.handlers, *o, *f).1 != P::Hw).count();
        match mode {
            BootMode::HwDecode => r.check(
                c.stats.cycles,
                (info & 2 != 0) == (misses > 0),
                format!("{}: the {misses} CAM misses left intr_info bit 1 set ({info:#x}) and, with intr_ctrl off, took no interrupt", mode.name()),
            )?,
            BootMode::MissIrq => r.check(c.stats.cycles, info & 2 == 0, format!("{}: every miss interrupt cleared its intr_info bit ({info:#x})", mode.name()))?,
            _ => {}
        }
    }
    r.stats = c.stats;
    Ok(r)
}

/// The host feeds the stream through the ring (refilling as the firmware
/// consumes) and waits until the firmware has taken it all; meanwhile it
/// reads the notification ring. Returns the tags of the SEQ's instruction
/// completions (INST records), in order.
fn run_stream(c: &mut Cosim, cfg: &DispatchCfg, mode: BootMode, dram: u64, limit: u64, r: &mut Report) -> Result<Vec<u32>, ScenarioError> {
    let hal = Hal::with_map(c.map().clone());
    let (mut done, mut dropped) = (Vec::new(), 0);
    let mut read = |c: &mut Cosim| -> Result<(), ScenarioError> {
        let b = hal.read_notifications(c)?;
        dropped += b.dropped + u32::from(b.overflow);
        done.extend(b.notifications.iter().filter_map(|n| match n.event {
            tpb_models::hal::notify::Event::InstDone { engine: Engine::Pool, tag } => Some(tag),
            _ => None,
        }));
        Ok(())
    };
    let n = cfg.stream.len() as u32;
    let (mut head, mut tail) = (0u32, 0u32);
    let end = c.stats.cycles + limit;
    let mut first_irq = mode == BootMode::MissIrq;
    while head < n {
        if c.stats.cycles > end {
            return Err(ScenarioError::Check { cycle: c.stats.cycles, what: format!("{}: the SEQ took {head} of {n} instructions within {limit} cycles", mode.name()) });
        }
        let was = tail;
        while tail < n && tail - head < cfg.ring {
            let [op, func] = cfg.stream[tail as usize];
            let slot = u64::from(d::RING + 8 * (tail % cfg.ring));
            c.write_buf(dram + slot, &words(&[u32::from(op) | u32::from(func) << 8, operand(tail as usize)]))?;
            tail += 1;
        }
        if tail != was {
            c.write32(dram + u64::from(d::TAIL), tail)?;
            if was == 0 {
                r.events.push((c.stats.cycles, format!("{}: host fills the queue", mode.name())));
                if mode == BootMode::Sunda && r.key.is_none() {
                    // No CAM (SUNDA): the waves open on the first fill.
                    r.key = Some((c.stats.cycles + 4, c.stats.cycles + 80));
                }
            }
        }
        if first_irq {
            // The key moment of the waves: a CAM hit, then the first CAM miss interrupting the SEQ.
            let hit = c.run_until(limit, |c| c.out.hwd.is_some_and(|h| h.fifo_valid && h.head.hit)).then_some(c.stats.cycles);
            if let Some(at) = hit {
                r.events.push((at, "CAM hit: the SEQ pops its handler".into()));
            }
            let irq = c.run_until(limit, |c| c.out.nx_irq >> Engine::Pool.isa_id().unwrap_or(2) & 1 == 1).then_some(c.stats.cycles);
            if let Some(at) = irq {
                r.events.push((at, "CAM miss interrupts the SEQ".into()));
            }
            r.key = hit.zip(irq);
            first_irq = false;
        }
        c.run(16);
        head = c.read32(dram + u64::from(d::HEAD))?;
        read(c)?;
    }
    r.events.push((c.stats.cycles, format!("{}: the SEQ took all {n}", mode.name())));
    c.run(16);
    read(c)?;
    r.check(c.stats.cycles, dropped == 0, format!("{}: no notification dropped ({dropped})", mode.name()))?;
    Ok(done)
}

/// The record of `mode`'s run in the SEQ's DRAM at `dram` against the reference:
/// the log in order, each handler's count and operand sum, the miss interrupts.
pub fn check_record(c: &mut Cosim, cfg: &DispatchCfg, mode: BootMode, dram: u64, r: &mut Report) -> Result<(), ScenarioError> {
    let m = mode.name();
    let n = cfg.stream.len();
    let log = read_words(c, dram + u64::from(d::LOG), n)?;
    let mut taken = [0u32; 64];
    let mut sums = [0u32; 64];
    let mut paths = [0u64; 6];
    for (i, [op, func]) in cfg.stream.iter().enumerate() {
        let (h, p) = expect(mode, &cfg.handlers, *op, *func);
        let want = u32::from(*op) | u32::from(*func) << 8 | u32::from(h) << 16 | (p as u32) << 24;
        let w = log[i];
        r.check(
            c.stats.cycles,
            w == want,
            format!("{m}: instruction {i} ({op:#04x}.{func}) went to handler {} by path {} (log {w:#010x}), expected handler {h} by {p:?}", w >> 16 & 0xff, w >> 24),
        )?;
        taken[usize::from(h)] += 1;
        sums[usize::from(h)] += operand(i);
        paths[p as usize] += 1;
    }
    let got = c.read32(dram + u64::from(d::DISPATCHED))?;
    r.check(c.stats.cycles, got as usize == n, format!("{m}: {got} instructions dispatched, expected {n}"))?;
    for h in (0..cfg.handlers.len()).chain([usize::from(d::UNKNOWN)]) {
        let (t, s) = (c.read32(dram + u64::from(d::TAKEN) + 4 * h as u64)?, c.read32(dram + u64::from(d::SUMS) + 4 * h as u64)?);
        r.check(c.stats.cycles, t == taken[h] && s == sums[h], format!("{m}: handler {h} took {t} (operands {s:#x}), expected {} ({:#x})", taken[h], sums[h]))?;
    }
    let irqs = c.read32(dram + u64::from(d::MISS_IRQS))?;
    r.check(c.stats.cycles, u64::from(irqs) == paths[P::MissIrq as usize], format!("{m}: {irqs} miss interrupts, expected {}", paths[P::MissIrq as usize]))?;
    let key = match mode {
        BootMode::HwDecode => "hw",
        BootMode::MissIrq => "irq",
        BootMode::SundaMode => "sunda_mode",
        BootMode::Sunda => "sunda",
    };
    for p in P::ALL {
        r.value(format!("{key}.{}", p.name()), paths[p as usize]);
    }
    // The HW-decode paths this mode verified (coverage points): a CAM miss
    // falls back to the software table, or to nothing, or interrupts.
    let verified: &[(P, &str)] = match mode {
        BootMode::HwDecode => &[(P::Hw, "hit"), (P::Table, "miss_fallback"), (P::Unknown, "unknown")],
        BootMode::MissIrq => &[(P::Hw, "hit"), (P::MissIrq, "miss_interrupt")],
        BootMode::SundaMode | BootMode::Sunda => &[],
    };
    for (p, name) in verified {
        if paths[*p as usize] > 0 {
            r.points.push(format!("hw_decode.{name}"));
        }
    }
    Ok(())
}

fn read_words(c: &mut Cosim, addr: u64, n: usize) -> Result<Vec<u32>, ScenarioError> {
    (0..n as u64).map(|i| Ok(c.read32(addr + 4 * i)?)).collect()
}

impl Scenario for DispatchCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        let max = firmware::dispatch::LOG_ENTRIES as usize;
        if self.stream.is_empty() || self.stream.len() > max {
            return Err(ScenarioError::File(format!("{path}: [dispatch] stream: 1 to {max} instructions (the SEQ's log holds {max}), not {}", self.stream.len())));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        // A CAM hit and the first miss interrupt, or (SUNDA) around the first fill.
        let (from, to) = r.key?;
        Some((from.saturating_sub(8), to + 40, vec![G::Dispatch, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Dispatch, view)
    }
}

impl OneSystem for DispatchCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        dispatch(c, self, limit)
    }
}
