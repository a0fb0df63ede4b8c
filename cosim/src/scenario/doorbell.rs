//! The `doorbell` scenario (see docs/scenarios.md).

use super::*;
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
    /// How the SPADs are loaded (`init-dma`, the seeds' way, or `pio`).
    #[serde(default)]
    pub spad_load: SpadLoad,
}

/// How the host loads the TOP_SP's CTRL and SLOT SPADs (DIGEST §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpadLoad {
    /// Staged in device memory at `hal::devmem::TOPSP_STAGING_BASE` (SLOT
    /// at + 0x100000), copied whole by the TOP_SP-init DMA queue
    /// ([`Hal::stage_spad_and_kick`]).
    #[default]
    InitDma,
    /// Programmed I/O over BAR0 by the host ([`Hal::load_spad_and_kick`]).
    Pio,
}

/// `doorbell`: see the module table.
pub fn doorbell(c: &mut Cosim, d: &DoorbellCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let top = firmware::top_sp_ccop(&map, d.step_sem)?;
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
    let (ctrl, slot) = ccop_program(&hal, &d.entries, d.compl_sem)?;
    // host_trigger: a SET of a TOP_SP semaphore (CAYMAN, MARIANA) or SUNDA's
    // register, which latches into the TOP_SP's intr_info.
    let trig_addr = hal.topsp_get_host_trigger_reg_offset()? as u32;
    let space = tpb_models::regmap::space::AddressSpace::new(map.clone());
    let trig_name = space.name(trig_addr.into());
    let fired = firmware::host_trigger(&map)?;
    let loaded_from = c.stats.cycles;
    match d.spad_load {
        SpadLoad::InitDma => hal.stage_spad_and_kick(c, tpb_models::hal::devmem::TOPSP_STAGING_BASE, &ctrl, &slot)?,
        SpadLoad::Pio => hal.load_spad_and_kick(c, &ctrl, &slot)?,
    }
    let kick = last(c, |t| t.master == Master::Host && t.write && t.addr == trig_addr).map(|t| t.cycle);
    r.check(c.stats.cycles, kick.is_some(), format!("the host fired host_trigger ({trig_name})"))?;
    // The host waits for the reporter's completion.
    let compl = a.sem(Engine::TopSp, WindowOp::Read, d.compl_sem)?;
    let seen = poll(c, compl.into(), limit, |v| v >= 1)?;
    let fw = |c: &Cosim, k: u32| c.top_sp_dram(4 * k).unwrap_or(0);
    r.check(
        c.stats.cycles,
        seen.is_some(),
        format!(
            "the host saw the completion on TOP_SP semaphore {} within {limit} cycles (firmware state: marker {:#x}, {} entries, {} descriptors)",
            d.compl_sem,
            fw(c, 2),
            fw(c, 0),
            fw(c, 1)
        ),
    )?;
    let host_saw = c.stats.cycles;
    c.run_until(limit, |c| c.core(CoreId::TopSp).core.halted());
    r.check(c.stats.cycles, fw(c, 2) == firmware::CCOP_DONE, format!("the TOP_SP program ended (marker {:#x}, word kind {:#x})", fw(c, 2), fw(c, 3)))?;
    r.check(c.stats.cycles, fw(c, 0) == n as u32, format!("the TOP_SP walked {} CTRL entries, expected {n}", fw(c, 0)))?;
    r.check(c.stats.cycles, fw(c, 1) == m2s + s2m, format!("the TOP_SP waited for {} descriptors, expected {}", fw(c, 1), m2s + s2m))?;
    // (Read back once the run is over, so as not to share BAR0 with it.)
    // What the SPADs hold is the program, whichever way it went in; with the
    // init DMA, every SPAD word came by it, the last before host_trigger.
    let p = &map.params;
    let spads =
        [("CTRL", p.bar0.tpb_base + p.bar0.top_sp_ctrl_spad, &ctrl, p.top_sp.spad_ctrl_size), ("SLOT", p.bar0.tpb_base + p.bar0.top_sp_slot_spad, &slot, p.top_sp.spad_slot_size)];
    for (what, base, img, _) in spads {
        for (i, w) in img.chunks(4).enumerate() {
            let want = u32::from_le_bytes([w[0], w.get(1).copied().unwrap_or(0), w.get(2).copied().unwrap_or(0), w.get(3).copied().unwrap_or(0)]);
            let got = c.read32(base + 4 * i as u64)?;
            r.check(c.stats.cycles, got == want, format!("{what} SPAD word {i} = {got:#x}, the program's {want:#x}"))?;
        }
    }
    if d.spad_load == SpadLoad::InitDma {
        let in_spad = |t: &Txn| spads.iter().any(|&(_, b, _, n)| (b..b + u64::from(n.unwrap_or(0))).contains(&u64::from(t.addr)));
        let dma: Vec<&Txn> = c.log.iter().filter(|t| t.cycle >= loaded_from && in_spad(t) && t.write).collect();
        let by_dma = dma.iter().filter(|t| t.master == Master::InitDma && !t.err).count() as u64;
        let whole = spads.iter().map(|s| u64::from(s.3.unwrap_or(0)) / 4).sum::<u64>();
        r.check(c.stats.cycles, by_dma == whole && dma.len() as u64 == whole, format!("the init DMA wrote all {whole} SPAD words ({by_dma} of {} SPAD writes)", dma.len()))?;
        let done = dma.last().map(|t| t.cycle);
        r.check(
            c.stats.cycles,
            matches!((done, kick), (Some(d), Some(k)) if d < k),
            format!("the init DMA's last SPAD write ({}) before host_trigger ({})", at_cycle(done), at_cycle(kick)),
        )?;
        if let Some(d) = done {
            r.events.push((d, "init DMA done".into()));
        }
        r.value("init_dma_words", by_dma);
    }
    let sem = |c: &mut Cosim, i: u32| -> Result<u32, ScenarioError> { Ok(c.read_checked(a.sem(Engine::TopSp, WindowOp::Read, i)?.into(), u32::MAX)?) };
    let (step, done) = (sem(c, d.step_sem)?, sem(c, d.compl_sem)?);
    let t = c.read_checked((fired.read - crate::sched::SYSTEM_WINDOW).into(), fired.mask)? & fired.mask;
    r.check(c.stats.cycles, step == m2s + s2m, format!("step semaphore {} = {step}: one DMA doorbell per descriptor, expected {}", d.step_sem, m2s + s2m))?;
    r.check(c.stats.cycles, done == 1, format!("completion semaphore {} = {done}, expected 1", d.compl_sem))?;
    r.check(c.stats.cycles, t == 0, format!("host_trigger ({}) = {t:#x}: consumed by the firmware", space.name((fired.read - crate::sched::SYSTEM_WINDOW).into())))?;
    use tpb_spec::seq_dma::{ERROR, RX_DONE, TX_DONE};
    let st = |c: &mut Cosim, reg: u32| -> Result<u32, ScenarioError> { Ok(c.read_checked(dma + u64::from(reg), u32::MAX)?) };
    let (rx_done, tx_done, errs) = (st(c, RX_DONE)?, st(c, TX_DONE)?, st(c, ERROR)?);
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
    r.check(
        c.stats.cycles,
        order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]),
        format!(
            "event order host_trigger < first tail pointer < first DMA doorbell < last DMA doorbell < completion posted < host saw it: {}",
            order.iter().map(|c| at_cycle(*c)).collect::<Vec<_>>().join(", ")
        ),
    )?;
    let names = ["host_trigger", "first tail-pointer write", "first DMA doorbell", "last DMA doorbell", "completion posted", "host saw completion"];
    r.events.extend(names.iter().zip(order).map(|(n, c)| (c.unwrap_or(0), n.to_string())));
    r.events.sort();
    r.key = first_tail.zip(dbs.first().copied());
    let tails = c.log.iter().filter(|t| tail(t)).count();
    r.value("tail_pointer_writes", tails as u64);
    r.value("descriptors", u64::from(m2s + s2m));
    r.stats = c.stats;
    Ok(r)
}

/// A cc_op program as the SPADs hold it (DIGEST §5, §6): entry k's steps
/// `[m2s, s2m, repeat]` in the SLOT SPAD, one CTRL entry each chaining to
/// the next; the last reports into TOP_SP semaphore `compl_sem`. The CTRL
/// and SLOT images (a testbench file's `cc_op` step builds the same).
pub fn ccop_program(hal: &Hal, entries: &[Vec<[u32; 3]>], compl_sem: u32) -> Result<(Vec<u8>, Vec<u8>), ScenarioError> {
    let n = entries.len();
    let mut ctrl = Vec::new();
    let mut slot = Vec::new();
    for (i, steps) in entries.iter().enumerate() {
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
        slot.push(if last { SlotWord::End { compl_addrs: vec![hal.get_trigger_addr(0, compl_sem)?] } } else { SlotWord::Continue });
    }
    Ok((pack_ctrl(&ctrl)?, pack_slot(&slot)?))
}

impl Scenario for DoorbellCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.entries.is_empty() || self.entries.iter().any(|e| e.is_empty()) {
            return Err(ScenarioError::File(format!("{path}: [doorbell] entries: every entry needs at least one [m2s, s2m, repeat] step")));
        }
        if let Some(s) = self.entries.iter().flatten().find(|s| s[0] > RING_LEN || s[1] > RING_LEN || s[2] > 255) {
            return Err(ScenarioError::File(format!("{path}: [doorbell] step {s:?}: m2s and s2m at most {RING_LEN} (the ring length), repeat at most 255")));
        }
        if !(1..=DATA_WORDS).contains(&self.words) {
            return Err(ScenarioError::File(format!("{path}: [doorbell] words = {}: 1..={DATA_WORDS}", self.words)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (tail, doorbell) = r.key?;
        Some((tail.saturating_sub(4), doorbell + 8, vec![G::Doorbell, G::Cores]))
    }
    fn diagrams(&self, s: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        let mut d = match s.first_release {
            Some(rel) => vec![(G::RunStall, rel.saturating_sub(12), rel + 16), (G::Q7Core0, rel, rel + 24)],
            None => Vec::new(),
        };
        if let Some(v) = view {
            d.push((G::Doorbell, v.from, v.to));
            d.push((G::Cores, v.from, v.to));
        }
        d
    }
}

impl OneSystem for DoorbellCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        doorbell(c, self, limit)
    }
}
