//! The `q7-kernels` scenario (see docs/scenarios.md): SUNDA's Q7 kernel
//! dispatch (DIGEST §9).

use crate::firmware::q7_kernels_out as out;
use super::*;
use tpb_models::spec::q7_kernels as k;
/// `[q7_kernels]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Q7KernelsCfg {
    /// The opcodes each core dispatches, in order (at most 60).
    pub requests: Vec<u8>,
}

/// `q7-kernels`: see the module table.
pub fn q7_kernels(c: &mut Cosim, cfg: &Q7KernelsCfg, limit: u64) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    if map.arch != Arch::Sunda {
        return Err(ScenarioError::NotApplicable {
            scenario: "q7-kernels",
            arch: map.arch.name(),
            why: "the kernel_info_table dispatch is SUNDA's (CAYMAN+ reach the Q7 through the 0xf0 escape)",
        });
    }
    let mut r = Report::default();
    let prog = firmware::q7_kernels(&map)?;
    r.check(
        0,
        prog.bytes.len() as u32 <= k::FLAT_IRAM_BYTES,
        format!("the dispatch shell is {:#x} bytes, within SUNDA's flat Q7 IRAM of {:#x} (DIGEST §9)", prog.bytes.len(), k::FLAT_IRAM_BYTES),
    )?;
    let table = firmware::kernel_info_table(&prog)?;
    // The DRAM image: the request list, then the table where its VA puts it.
    let at = (k::TABLE_VA - k::DATA_WINDOW) as usize;
    let mut dram = words(&std::iter::once(cfg.requests.len() as u32).chain(cfg.requests.iter().map(|&o| u32::from(o))).collect::<Vec<_>>());
    dram.resize(at, 0);
    dram.extend(&table);
    init(c, UcodeImages { iram: prog.bytes.clone(), dram }, false)?;
    let halted = c.run_until(limit, |c| c.q7().iter().all(|q| q.core.halted()));
    let not: Vec<usize> = c.q7().iter().enumerate().filter(|(_, q)| !q.core.halted()).map(|(n, _)| n).collect();
    r.check(c.stats.cycles, halted, format!("cores {not:?} not through their requests within {limit} cycles"))?;
    r.events.push((c.stats.cycles, "every core done".into()));
    // What each request should have reached: the first record with its opcode (a linear scan).
    let want: Vec<Option<usize>> = cfg.requests.iter().map(|o| firmware::KERNEL_OPCODES.iter().position(|x| x == o)).collect();
    let misses = want.iter().filter(|w| w.is_none()).count() as u32;
    for core in 0..8u32 {
        let base = region(c, &format!("q7[{core}].dram"))?;
        let done = c.read32(base + u64::from(out::DONE_AT))?;
        r.check(c.stats.cycles, done == firmware::KERNELS_DONE, format!("core {core}: done marker {done:#x}"))?;
        let m = c.read32(base + u64::from(out::MISSES))?;
        r.check(c.stats.cycles, m == misses, format!("core {core}: {m} misses, expected {misses} (opcodes with no record)"))?;
        for (i, w) in want.iter().enumerate() {
            let got = c.read32(base + u64::from(out::REACHED) + 4 * i as u64)?;
            let exp = w.map_or(0xff, |n| n as u32);
            r.check(c.stats.cycles, got == exp, format!("core {core}: request {i} (opcode {:#04x}) went to record {got:#x}, expected {exp:#x}", cfg.requests[i]))?;
        }
        for n in 0..k::RECORDS as usize {
            let calls = c.read32(base + u64::from(out::CALLS) + 4 * n as u64)?;
            let exp = want.iter().filter(|w| **w == Some(n)).count() as u32;
            r.check(c.stats.cycles, calls == exp, format!("core {core}: kernel {n} (opcode {:#04x}) ran {calls} times, expected {exp}", firmware::KERNEL_OPCODES[n]))?;
        }
    }
    r.value("misses", misses.into());
    r.value("shell_bytes", prog.bytes.len() as u64);
    r.stats = c.stats;
    Ok(r)
}

impl Scenario for Q7KernelsCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.requests.is_empty() || self.requests.len() > 60 {
            return Err(ScenarioError::File(format!(
                "{path}: [q7_kernels] requests: 1 to 60 opcodes (the request list ends where the trace begins), not {}",
                self.requests.len()
            )));
        }
        Ok(())
    }
    fn key_window(&self, _: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let rel = s.first_release?;
        Some((rel, rel + 120, vec![G::Q7Core0, G::Cores]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Q7Core0, view)
    }
}

impl OneSystem for Q7KernelsCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        q7_kernels(c, self, limit)
    }
}
