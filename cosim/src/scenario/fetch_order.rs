//! The `fetch-order` scenario (see docs/scenarios.md): the SEQ fetches
//! through its I-cache, which its I-fetch DMA fills from the image at
//! `engine_base_address` in device memory (seed 004 §7;
//! [`crate::sched::IFetch`]). Brought up in the seeds' order, `dma_init`
//! enables `dma_ctrl` before the SEQ's run-stall is released and the SEQ
//! boots. With `release_first` the host releases the SEQ before
//! `stpb_init`: its first fetch misses while `dma_ctrl` is still 0, the
//! fill is dropped and the SEQ waits on it for good. That run passes when
//! it fails in exactly that way, and its report says so.

use super::*;
use tpb_models::hal::DevMem;

/// `[D]` The fill ring in the SEQ DMA SRAM: at 0, 8 descriptors.
const FILL_RING: u32 = 0;
const FILL_RING_LEN: u32 = 8;

/// `[fetch_order]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchOrderCfg {
    /// Release the SEQ's run-stall before `stpb_init` (before `dma_init`
    /// enables `dma_ctrl`): the wrong order, which must hang the SEQ.
    #[serde(default)]
    pub release_first: bool,
    /// I-cache line bytes (`[D]`).
    pub line: u32,
    /// `engine_base_address`: where the host stages the SEQ image in device memory (`[D]`).
    pub base: u64,
}

/// `fetch-order`: see the module.
pub fn fetch_order(c: &mut Cosim, f: &FetchOrderCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let mut r = Report::default();
    c.seq_icache(f.line)?;
    // The SEQ image lives in device memory only: the HAL's IRAM image is
    // empty (zero-filled), so whatever the SEQ runs came through its fills.
    let mut seq = firmware::nx_boot(&map, map.arch == Arch::Sunda)?.bytes;
    seq.resize(seq.len().next_multiple_of(f.line as usize), 0);
    c.devmem_write(f.base, &seq)?;
    let a = Addrs::new(&map, "scenario");
    let (release, dma_ctrl) = (a.reg(Engine::Pool, "nx", "release_run_stall")?, a.reg(Engine::Pool, "nx", "dma_ctrl")?);
    if f.release_first {
        c.write32(release.into(), 0)?;
    }
    let mut cfg = StpbConfig::new(UcodeImages { iram: Vec::new(), dram: vec![0; 16] }, UcodeImages { iram: firmware::q7_sum(&map)?.bytes, dram: vec![1, 0, 0, 0] });
    cfg.pooling.engine_base_address = f.base;
    // dma_init programs the RX ring, the fill ring the I-fetch DMA posts each fill on.
    cfg.pooling.dma = Some(DmaConfig { rx: RingConfig { base: FILL_RING, length: FILL_RING_LEN }, tx: RingConfig { base: 0, length: 0 }, mem_window2: 0 });
    Hal::with_map(map.clone()).stpb_init(c, &cfg, None)?;
    let seq_dram = region(c, "seq.dram")?;
    let mark = poll(c, seq_dram, limit, |v| v == firmware::SEQ_MARK)?;
    let host = |c: &Cosim, addr: u32, f: fn(u32) -> bool| first(c, |t| t.master == Master::Host && t.write && t.addr == addr && f(t.data)).map(|t| t.cycle);
    let (released, enabled) = (host(c, release, |v| v & 1 == 0), host(c, dma_ctrl, |v| v & 1 == 1));
    let (fetch, retired) = (c.ifetch.first_miss, c.core(CoreId::Seq).core.retired());
    r.events.extend(released.map(|t| (t, "host releases the SEQ's run-stall".to_string())));
    r.events.extend(enabled.map(|t| (t, "dma_init enables dma_ctrl".to_string())));
    r.events.extend(fetch.map(|t| (t, "the SEQ's first fetch misses the I-cache".to_string())));
    r.value("ifetch.fills", c.ifetch.fills);
    r.value("ifetch.words", c.ifetch.words);
    r.value("seq.retired", retired);
    if f.release_first {
        let d = c.ifetch.dropped;
        let why = |d: &crate::sched::Dropped| if d.no_ring { "the fill ring has no entries" } else { "dma_ctrl.enable = 0" };
        r.events.extend(d.map(|d| (d.cycle, format!("the fill is dropped: {}", why(&d)))));
        let order = matches!((released, enabled), (Some(r), Some(e)) if r < e);
        let dropped = matches!((d, enabled), (Some(d), Some(e)) if d.cycle < e);
        let hung = mark.is_none() && retired == 0 && c.ifetch.fills == 0;
        r.check(
            c.stats.cycles,
            order && dropped && hung,
            format!(
                "the wrong order fails as designed: the host released the SEQ at {} before dma_init enabled dma_ctrl at {}; the SEQ's first fetch missed at {} and its fill was dropped at {}; {limit} cycles later the SEQ has retired {retired} instructions, filled {} lines, and DRAM[0] {} the enter_run mark",
                at_cycle(released),
                at_cycle(enabled),
                at_cycle(fetch),
                d.map_or_else(|| "never".into(), |d| format!("cycle {} (IRAM {:#x}; {})", d.cycle, d.addr, why(&d))),
                c.ifetch.fills,
                if mark.is_some() { "holds" } else { "lacks" },
            ),
        )?;
        r.key = released.zip(enabled);
        r.stats = c.stats;
        r.events.sort();
        return Ok(r);
    }
    let order = matches!((released, enabled), (Some(r), Some(e)) if e < r);
    r.check(c.stats.cycles, order, format!("dma_init enabled dma_ctrl ({}) before the SEQ's run-stall was released ({})", at_cycle(enabled), at_cycle(released)))?;
    r.check(c.stats.cycles, mark.is_some(), format!("the SEQ reached enter_run (DRAM[0] = {:#x}) within {limit} cycles, running only what its fills brought", firmware::SEQ_MARK))?;
    r.check(c.stats.cycles, c.ifetch.dropped.is_none() && c.ifetch.fills > 0, format!("{} I-cache lines filled, none dropped ({:?})", c.ifetch.fills, c.ifetch.dropped))?;
    // Every word the I-fetch DMA wrote is device memory's at engine_base_address + offset.
    let iram = region(c, "seq.iram")?;
    let iram_end = iram + map.params.bar0.seq_iram.size;
    let fills: Vec<Txn> = c.log.iter().filter(|t| t.master == Master::IFetch && t.write && (iram..iram_end).contains(&u64::from(t.addr))).copied().collect();
    let wrong = fills.iter().find(|t| t.data != c.init_dma.mem.word(f.base + (u64::from(t.addr) - iram)));
    r.check(c.stats.cycles, !fills.is_empty() && wrong.is_none(), format!("the {} words filled are device memory's at engine_base_address {:#x} + offset (first wrong: {wrong:?})", fills.len(), f.base))?;
    // Each fill went through the fill ring: its descriptor at the ring's tail
    // (the line's source, IRAM offset and words), then the tail one further.
    let sram = region(c, "seq.dma")?;
    let tail = Addrs::new(&map, "scenario").reg(Engine::Pool, "nx", "dma_rx_ring_tail")?;
    let ifetch_writes: Vec<Txn> = c.log.iter().filter(|t| t.master == Master::IFetch && t.write).copied().collect();
    let descs: Vec<&Txn> = ifetch_writes.iter().filter(|t| (sram..sram + 0x1000).contains(&u64::from(t.addr))).collect();
    let tails: Vec<u32> = ifetch_writes.iter().filter(|t| t.addr == tail).map(|t| t.data).collect();
    let per_fill = crate::sched::FILL_DESC_WORDS as usize;
    let ring_ok = descs.len() == per_fill * c.ifetch.fills as usize
        && tails.len() == c.ifetch.fills as usize
        && descs.chunks(per_fill).enumerate().all(|(n, d)| {
            let slot = n as u32 % FILL_RING_LEN;
            let at = sram + u64::from(FILL_RING + 16 * slot);
            let src = u64::from(d[0].data) | u64::from(d[1].data) << 32;
            d.iter().enumerate().all(|(k, t)| u64::from(t.addr) == at + 4 * k as u64) && src == f.base + u64::from(d[2].data) && d[3].data == f.line / 4 && tails[n] == (slot + 1) % FILL_RING_LEN
        });
    r.check(
        c.stats.cycles,
        ring_ok,
        format!("every fill went through the RX fill ring: {} descriptors (source, IRAM offset, words) at its tail and {} tail moves for {} fills", descs.len() / per_fill, tails.len(), c.ifetch.fills),
    )?;
    let first_fill = fills.first().map(|t| t.cycle);
    r.events.extend(first_fill.map(|t| (t, "the first line fills".to_string())));
    r.key = released.zip(c.ifetch.filled_at.first().copied());
    r.stats = c.stats;
    r.events.sort();
    Ok(r)
}

impl Scenario for FetchOrderCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if !crate::sched::ICache::line_ok(self.line) {
            return Err(ScenarioError::File(format!("{path}: [fetch_order] line = {}: {}", self.line, CosimError::ICacheLine(self.line))));
        }
        if !self.base.is_multiple_of(4) || self.base >= tpb_models::hal::devmem::DEVMEM_SIZE {
            return Err(ScenarioError::File(format!("{path}: [fetch_order] base = {:#x}: a word-aligned device-memory address below {:#x}", self.base, tpb_models::hal::devmem::DEVMEM_SIZE)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (a, b) = r.key?;
        let (from, to) = (a.min(b), a.max(b));
        Some((from.saturating_sub(16), to + 48, vec![G::RunStall, G::Cores, G::Bar0]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::RunStall, view)
    }
}

impl OneSystem for FetchOrderCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        fetch_order(c, self, limit)
    }
}
