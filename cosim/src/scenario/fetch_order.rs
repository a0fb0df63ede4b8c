//! The `fetch-order` scenario (see the table in `mod.rs`): the SEQ fetches
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
        r.events.extend(d.map(|d| (d.cycle, "the fill is dropped: dma_ctrl.enable = 0".to_string())));
        let order = matches!((released, enabled), (Some(r), Some(e)) if r < e);
        let dropped = matches!((d, enabled), (Some(d), Some(e)) if d.cycle < e);
        let hung = mark.is_none() && retired == 0 && c.ifetch.fills == 0;
        r.check(
            c.stats.cycles,
            order && dropped && hung,
            format!(
                "the wrong order fails as designed: the host released the SEQ at {} before dma_init enabled dma_ctrl at {}; the SEQ's first fetch missed at {} and its fill was dropped at {} (dma_ctrl.enable = 0); {limit} cycles later the SEQ has retired {retired} instructions, filled {} lines, and DRAM[0] {} the enter_run mark",
                at_cycle(released),
                at_cycle(enabled),
                at_cycle(fetch),
                d.map_or_else(|| "never".into(), |d| format!("cycle {} (IRAM {:#x})", d.cycle, d.addr)),
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
    let fills: Vec<Txn> = c.log.iter().filter(|t| t.master == Master::IFetch && t.write).copied().collect();
    let wrong = fills.iter().find(|t| t.data != c.init_dma.mem.word(f.base + (u64::from(t.addr) - iram)));
    r.check(c.stats.cycles, !fills.is_empty() && wrong.is_none(), format!("the {} words filled are device memory's at engine_base_address {:#x} + offset (first wrong: {wrong:?})", fills.len(), f.base))?;
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
