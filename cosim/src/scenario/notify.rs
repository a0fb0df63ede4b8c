//! The `notify` scenario (see docs/scenarios.md): every class of
//! notification, produced by the run and read back by the host's reader in
//! the order it happened.

use super::*;
use crate::sched::RESET_CYCLES;
use tpb_models::golden::seq_dma::ERR_COMPLETION;
use tpb_models::hal::notify::{Event, Notification};
/// `[notify]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifyCfg {
    /// TOP_SP semaphore the DMA descriptor completes into (0..256).
    pub dma_sem: u32,
}

/// `notify`: see the module table.
pub fn notify(c: &mut Cosim, n: &NotifyCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let arch = map.arch;
    let hal = Hal::with_map(map.clone());
    let mut r = Report::default();
    let a = Addrs::new(&map, "notify");
    let seq = firmware::nx_halt(&map, arch == Arch::Sunda)?;
    let mut dram = 3u32.to_le_bytes().to_vec();
    dram.resize(16, 0);
    init_with(c, seq.bytes, UcodeImages { iram: firmware::q7_sum(&map)?.bytes, dram }, true)?;
    let mut all: Vec<Notification> = Vec::new();
    let read = |c: &mut Cosim, all: &mut Vec<Notification>| -> Result<Vec<Event>, ScenarioError> {
        c.run(16);
        let b = hal.read_notifications(c)?;
        all.extend(b.notifications.iter().copied());
        if b.dropped != 0 || b.overflow {
            return Err(ScenarioError::Check { cycle: c.stats.cycles, what: format!("the unit dropped {} events (overflow {})", b.dropped, b.overflow) });
        }
        Ok(b.notifications.iter().map(|x| x.event).collect())
    };

    // 1. INST: the SEQ halts itself (instr_halt_ctrl), the Q7 cores HALT.
    let pool = Engine::Pool.isa_id().unwrap_or(2);
    let done = c.run_until(limit, |c| c.out.nx_run_stall >> pool & 1 == 1 && c.q7().iter().all(|q| q.core.halted()));
    r.check(c.stats.cycles, done, format!("the SEQ held and every Q7 core halted within {limit} cycles"))?;
    let mut halts = read(c, &mut all)?;
    // SUNDA: the SEQ's release of the Q7 cores is a POOL EVT_SEM SET (seed
    // 004 §7.1), notified first; the rest are halts.
    if let Some(s) = map.params.q7.seq_release_sem {
        let release = Event::SemChanged { engine: Engine::Pool, index: s as u8 };
        r.check(c.stats.cycles, halts.first() == Some(&release), format!("the Q7 release ({release}) is notified first, got {}", events(&halts)))?;
        halts.remove(0);
    }
    let (mut nx, mut q7, mut bits) = (0u8, 0u8, 0u32);
    for e in &halts {
        let Event::Halted { nx: a, q7: b } = *e else {
            return Err(ScenarioError::Check { cycle: c.stats.cycles, what: format!("expected only halts first, got {}", events(&halts)) });
        };
        (nx, q7, bits) = (nx | a, q7 | b, bits + a.count_ones() + b.count_ones());
    }
    r.check(
        c.stats.cycles,
        nx == 1 << pool && q7 == 0xff && bits == 9,
        format!("halt records name the SEQ and the 8 Q7 cores once each (nx {nx:#04x}, q7 {q7:#04x}, {bits} bits in {} records)", halts.len()),
    )?;
    let halt_ctrl = a.reg(Engine::Pool, "nx", "instr_halt_ctrl")?;
    let wrote = last(c, |t| t.master == Master::Core(CoreId::Seq) && t.write && t.addr == halt_ctrl).map_or(0, |t| t.cycle);
    let posted = all.iter().find(|x| matches!(x.event, Event::Halted { nx, .. } if nx != 0)).map_or(0, |x| u64::from(x.cycle) + RESET_CYCLES);
    r.check(
        c.stats.cycles,
        posted > wrote && posted <= wrote + 8,
        format!("the SEQ's halt record was posted at cycle {posted}, within 8 cycles of its instr_halt_ctrl write at {wrote}"),
    )?;
    r.events.push((wrote, "SEQ halts".into()));

    // 2. EVT_SEM: the host changes semaphores of three engines.
    let ops = [(Engine::Pool, WindowOp::Set, 3u32, 7u32), (Engine::TopSp, WindowOp::Inc, 5, 2), (Engine::Pe, WindowOp::Dec, 1, 1)];
    let first_op = c.stats.cycles;
    for (e, op, i, v) in ops {
        c.write32(a.sem(e, op, i)?.into(), v)?;
    }
    r.events.push((first_op, "host semaphore writes".into()));
    let got = read(c, &mut all)?;
    let want: Vec<Event> = ops.iter().map(|&(engine, _, i, _)| Event::SemChanged { engine, index: i as u8 }).collect();
    r.check(c.stats.cycles, got == want, format!("EVT_SEM records in the order of the writes: {}, expected {}", events(&got), events(&want)))?;

    // 3. ERROR: the host reads an address nothing decodes.
    let lay = tpb_models::regmap::layout::TopLayout::of(&map)?;
    let hole = (0..64u32)
        .map(|k| lay.notific.base + lay.notific.size + 0x1000 * k)
        .find(|&x| lay.decode(x).is_none())
        .ok_or_else(|| ScenarioError::File("no unmapped BAR0 address near the notification ring".into()))?;
    let at = c.stats.cycles;
    let refused = c.read32(hole.into()).is_err();
    r.check(c.stats.cycles, refused, format!("the host's read of unmapped {hole:#x} is refused"))?;
    r.events.push((at, "host reads an unmapped address".into()));
    let got = read(c, &mut all)?;
    r.check(c.stats.cycles, got == [Event::BusError { addr: hole }], format!("one BAR0-error record naming {hole:#x}: {}", events(&got)))?;

    // 4. INST + EVT_SEM + ERROR: two DMA descriptors, one completing into
    //    TOP_SP semaphore `dma_sem`, one with a completion address outside
    //    the INC window.
    let dma = region(c, "seq.dma")?;
    let inc = hal.get_trigger_addr(0, n.dma_sem)? as u32;
    let bad = inc & !0xfff | 0x0c00;
    let (src, dst) = (DATA, DATA + 0x40);
    c.write_buf(dma + u64::from(src), &words(&[0x11, 0x22]))?;
    c.write_buf(dma + u64::from(RX_RING), &words(&[src, dst, 2, inc, src, dst + 8, 2, bad]))?;
    let kick = c.stats.cycles;
    c.write32(a.reg(Engine::Pool, "nx", "dma_rx_ring_tail_inc")?.into(), 2)?;
    r.events.push((kick, "host rings the DMA".into()));
    let done = poll(c, dma + u64::from(tpb_spec::seq_dma::RX_DONE), limit, |v| v >= 2)?;
    r.check(c.stats.cycles, done.is_some(), format!("the DMA retired both descriptors within {limit} cycles"))?;
    let copied = c.read32(dma + u64::from(dst + 4))?;
    r.check(c.stats.cycles, copied == 0x22, format!("the DMA copied the data ({copied:#x})"))?;
    let got = read(c, &mut all)?;
    let want = [Event::DmaDone { sem: n.dma_sem as u8 }, Event::SemChanged { engine: Engine::TopSp, index: n.dma_sem as u8 }, Event::DmaError { bits: ERR_COMPLETION as u8 }];
    r.check(c.stats.cycles, got == want, format!("DMA records: {}, expected {}", events(&got), events(&want)))?;
    if let Some(d) = c.doorbell_cycles.first() {
        r.events.push((*d, "DMA doorbell".into()));
        r.key = Some((kick, *d));
    }

    // Nothing lost: sequence numbers 0.. without a gap, cycles in order.
    let gaps = all.iter().enumerate().filter(|(k, x)| usize::from(x.seq) != *k).count();
    r.check(c.stats.cycles, gaps == 0, format!("{} records with sequence numbers 0..{} ({gaps} out of place)", all.len(), all.len()))?;
    r.check(c.stats.cycles, all.windows(2).all(|w| w[0].cycle < w[1].cycle), "records in the order they were posted")?;
    r.value("records", all.len() as u64);
    r.stats = c.stats;
    Ok(r)
}

/// Records as a check's message lists them: `[sem pool[3], halted nx=0x04 q7=0x00]`.
fn events(e: &[Event]) -> String {
    format!("[{}]", e.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

impl Scenario for NotifyCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.dma_sem >= 256 {
            return Err(ScenarioError::File(format!("{path}: [notify] dma_sem = {}: a TOP_SP semaphore, 0..256", self.dma_sem)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (kick, doorbell) = r.key?;
        Some((kick.saturating_sub(4), doorbell + 40, vec![G::Notify, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Notify, view)
    }
}

impl OneSystem for NotifyCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        notify(c, self, limit)
    }
}
