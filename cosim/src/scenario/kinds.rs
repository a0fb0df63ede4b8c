//! Each kind's [`Scenario`]: how it runs (one system, or dies of its own),
//! the window of cycles its waves open on and the diagrams drawn from them.

use super::*;

/// From the first to the last marker (checked events and the first
/// run-stall release), widened (barrier, mesh).
fn events_window(r: &Report, s: &Stats) -> Option<(u64, u64)> {
    let cycles = r.events.iter().map(|e| e.0).filter(|c| *c > 0).chain(s.first_release);
    let (first, last) = (cycles.clone().min()?, cycles.max()?);
    Some((first.saturating_sub(8), last + 16))
}

impl Scenario for Bringup {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        bringup(c, self.n, limit)
    }
    fn key_window(&self, _: &Report, s: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let rel = s.first_release?;
        Some((rel.saturating_sub(12), rel + 16, vec!["run_stall", "q7_core0"]))
    }
}

impl Scenario for DoorbellCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        doorbell(c, self, limit)
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let at = |n: &str| r.events.iter().find(|e| e.1 == n).map(|e| e.0);
        Some((at("first tail-pointer write")?.saturating_sub(4), at("first DMA doorbell")? + 8, vec!["doorbell", "cores"]))
    }
    fn diagrams(&self, s: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        let mut d = match s.first_release {
            Some(rel) => vec![("run_stall", rel.saturating_sub(12), rel + 16), ("q7_core0", rel, rel + 24)],
            None => Vec::new(),
        };
        if let Some(v) = view {
            d.push(("doorbell", v.from, v.to));
            d.push(("cores", v.from, v.to));
        }
        d
    }
}

impl Scenario for BarrierCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        barrier(c, self, limit)
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec!["cores", "doorbell"]))
    }
}

impl Scenario for HaltStartCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        halt_start(c, self, limit)
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let at = |n: &str| r.events.iter().find(|e| e.1.starts_with(n)).map(|e| e.0);
        Some((at("host writes start_ctrl")?.saturating_sub(6), at("SEQ halts again")? + 12, vec!["halt_start", "cores"]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        view.map(|v| vec![("halt_start", v.from, v.to)]).unwrap_or_default()
    }
}

impl Scenario for NotifyCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        notify(c, self, limit)
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let at = |n: &str| r.events.iter().find(|e| e.1 == n).map(|e| e.0);
        Some((at("host rings the DMA")?.saturating_sub(4), at("DMA doorbell")? + 40, vec!["notify", "cores"]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        view.map(|v| vec![("notify", v.from, v.to)]).unwrap_or_default()
    }
}

impl Scenario for InterruptCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        interrupt(c, self, limit)
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let at = |n: &str| r.events.iter().find(|e| e.1.starts_with(n)).map(|e| e.0);
        let from = at("host raises the SEQ")?;
        Some((from.saturating_sub(4), from + 90, vec!["interrupt", "cores"]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        view.map(|v| vec![("interrupt", v.from, v.to)]).unwrap_or_default()
    }
}

impl Scenario for Q7KernelsCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        q7_kernels(c, self, limit)
    }
    fn key_window(&self, _: &Report, s: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let rel = s.first_release?;
        Some((rel, rel + 120, vec!["q7_core0", "cores"]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        view.map(|v| vec![("q7_core0", v.from, v.to)]).unwrap_or_default()
    }
}

impl Scenario for DispatchCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        dispatch(c, self, limit)
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let at = |n: &str| r.events.iter().find(|e| e.1.starts_with(n)).map(|e| e.0);
        match (at("CAM hit"), at("CAM miss interrupts")) {
            (Some(hit), Some(irq)) => Some((hit.saturating_sub(8), irq + 40, vec!["dispatch", "cores"])),
            _ => at(dispatch::BootMode::Sunda.name()).map(|from| (from.saturating_sub(4), from + 120, vec!["dispatch", "cores"])),
        }
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        view.map(|v| vec![("dispatch", v.from, v.to)]).unwrap_or_default()
    }
}

impl Scenario for WindowsCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        windows(c, self, limit)
    }
    fn key_window(&self, r: &Report, _: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        let at = r.events.iter().find(|e| e.1.starts_with("SEQ store through window 0")).map(|e| e.0)?;
        Some((at.saturating_sub(16), at + 24, vec!["xlat", "cores"]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        view.map(|v| vec![("xlat", v.from, v.to)]).unwrap_or_default()
    }
}

impl Scenario for MeshCfg {
    fn single_system(&self) -> bool {
        false
    }
    fn run_on(&self, c: &mut Cosim, _: u64) -> Result<Report, ScenarioError> {
        Err(ScenarioError::NotApplicable { scenario: "mesh", arch: c.map().arch.name(), why: "it runs two dies of its own: scenario::mesh" })
    }
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        match requested {
            None | Some(2) => Ok(2),
            Some(n) => Err(ScenarioError::File(format!("--dies {n}: the mesh scenario's tapes are for two dies (the collectives take N)"))),
        }
    }
    fn run_dies(&self, arch: Arch, _: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        mesh(arch, self, limit, trace).map(|(r, _)| r)
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec!["cores", "doorbell"]))
    }
    fn diagrams(&self, s: &Stats, _: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        s.first_release.map(|rel| vec![("run_stall", rel.saturating_sub(12), rel + 16)]).unwrap_or_default()
    }
}

impl Scenario for CollectiveCfg {
    fn single_system(&self) -> bool {
        false
    }
    fn run_on(&self, c: &mut Cosim, _: u64) -> Result<Report, ScenarioError> {
        Err(ScenarioError::NotApplicable { scenario: "collective", arch: c.map().arch.name(), why: "it runs N dies of its own: scenario::collective" })
    }
    fn top_sps(&self) -> usize {
        self.top_sps
    }
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        let n = requested.unwrap_or(self.dies);
        if !(2..=crate::mesh::MAX_DIES).contains(&n) {
            return Err(ScenarioError::File(format!("--dies {n}: a collective runs on 2 to {} dies", crate::mesh::MAX_DIES)));
        }
        Ok(n)
    }
    fn run_dies(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        collective(arch, self, dies, limit, trace).map(|(r, _)| r)
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec!["cores", "doorbell"]))
    }
    fn diagrams(&self, _: &Stats, _: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        Vec::new()
    }
}

impl Scenario for TsyncCfg {
    fn single_system(&self) -> bool {
        false
    }
    fn run_on(&self, c: &mut Cosim, _: u64) -> Result<Report, ScenarioError> {
        Err(ScenarioError::NotApplicable { scenario: "tsync", arch: c.map().arch.name(), why: "it runs N dies of its own: scenario::tsync" })
    }
    fn dies(&self, requested: Option<usize>) -> Result<usize, ScenarioError> {
        let n = requested.unwrap_or(self.dies);
        if !(2..=crate::mesh::MAX_DIES).contains(&n) {
            return Err(ScenarioError::File(format!("--dies {n}: tsync runs on 2 to {} dies", crate::mesh::MAX_DIES)));
        }
        Ok(n)
    }
    fn run_dies(&self, arch: Arch, dies: usize, limit: u64, trace: Option<&Path>) -> Result<Report, ScenarioError> {
        tsync(arch, self, dies, limit, trace).map(|(r, _)| r)
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<&'static str>)> {
        events_window(r, s).map(|(from, to)| (from, to, vec!["tsync", "cores"]))
    }
    fn diagrams(&self, _: &Stats, _: Option<&crate::waves::View>) -> Vec<(&'static str, u64, u64)> {
        Vec::new()
    }
}
