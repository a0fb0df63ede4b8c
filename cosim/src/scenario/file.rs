//! A scenario file: the kind and its table, read and checked before
//! anything runs (an error names the file, and its line where it has one),
//! the built-in ones by name.

use super::*;

impl ScenarioFile {
    /// The registry: the file's kind with the table it needs.
    pub fn scenario(&self) -> Result<Box<dyn Scenario + '_>, ScenarioError> {
        let missing = |what: &str| ScenarioError::File(format!("{}: kind = \"{what}\" needs a [{what}] table", self.name));
        Ok(match self.kind {
            Kind::Bringup => Box::new(Bringup { n: self.n }),
            Kind::Doorbell => Box::new(self.doorbell.clone().ok_or_else(|| missing("doorbell"))?),
            Kind::Barrier => Box::new(self.barrier.clone().ok_or_else(|| missing("barrier"))?),
            Kind::Mesh => Box::new(self.mesh.clone().ok_or_else(|| missing("mesh"))?),
            Kind::HaltStart => Box::new(self.halt_start.clone().ok_or_else(|| missing("halt_start"))?),
            Kind::Notify => Box::new(self.notify.clone().ok_or_else(|| missing("notify"))?),
            Kind::Interrupt => Box::new(self.interrupt.clone().ok_or_else(|| missing("interrupt"))?),
            Kind::Q7Kernels => Box::new(self.q7_kernels.clone().ok_or_else(|| missing("q7_kernels"))?),
            Kind::Dispatch => Box::new(self.dispatch.clone().ok_or_else(|| missing("dispatch"))?),
            Kind::Windows => Box::new(self.windows.clone().ok_or_else(|| missing("windows"))?),
            Kind::Collective => Box::new(self.collective.clone().ok_or_else(|| missing("collective"))?),
            Kind::Tsync => Box::new(self.tsync.clone().ok_or_else(|| missing("tsync"))?),
        })
    }

    /// Run a single-system scenario on `c` (every kind but the mesh, which
    /// runs its own dies).
    pub fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        self.scenario()?.run_on(c, limit)
    }

    /// Parse a scenario file; errors name `path:line:column`.
    pub fn parse(path: &str, text: &str) -> Result<ScenarioFile, ScenarioError> {
        let f: ScenarioFile = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((0, 0), |s| {
                let before = &text[..s.start.min(text.len())];
                (before.matches('\n').count() + 1, before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1)
            });
            ScenarioError::File(format!("{path}:{line}:{col}: {}", e.message()))
        })?;
        for a in &f.archs {
            Arch::parse(a).map_err(|_| ScenarioError::File(format!("{path}: archs: '{a}' is not a generation (sunda, cayman, mariana)")))?;
        }
        let need = |ok: bool, what: &str| if ok { Ok(()) } else { Err(ScenarioError::File(format!("{path}: kind = \"{}\" needs a [{what}] table", what))) };
        match f.kind {
            Kind::Bringup => {}
            Kind::Doorbell => need(f.doorbell.is_some(), "doorbell")?,
            Kind::Barrier => need(f.barrier.is_some(), "barrier")?,
            Kind::Mesh => need(f.mesh.is_some(), "mesh")?,
            Kind::HaltStart => need(f.halt_start.is_some(), "halt_start")?,
            Kind::Notify => need(f.notify.is_some(), "notify")?,
            Kind::Interrupt => need(f.interrupt.is_some(), "interrupt")?,
            Kind::Q7Kernels => need(f.q7_kernels.is_some(), "q7_kernels")?,
            Kind::Dispatch => need(f.dispatch.is_some(), "dispatch")?,
            Kind::Windows => need(f.windows.is_some(), "windows")?,
            Kind::Collective => need(f.collective.is_some(), "collective")?,
            Kind::Tsync => need(f.tsync.is_some(), "tsync")?,
        }
        // A table of another kind is a mistake: it would be read by nothing.
        let tables = [
            ("doorbell", f.doorbell.is_some(), Kind::Doorbell),
            ("barrier", f.barrier.is_some(), Kind::Barrier),
            ("mesh", f.mesh.is_some(), Kind::Mesh),
            ("halt_start", f.halt_start.is_some(), Kind::HaltStart),
            ("notify", f.notify.is_some(), Kind::Notify),
            ("interrupt", f.interrupt.is_some(), Kind::Interrupt),
            ("q7_kernels", f.q7_kernels.is_some(), Kind::Q7Kernels),
            ("dispatch", f.dispatch.is_some(), Kind::Dispatch),
            ("windows", f.windows.is_some(), Kind::Windows),
            ("collective", f.collective.is_some(), Kind::Collective),
            ("tsync", f.tsync.is_some(), Kind::Tsync),
        ];
        if let Some((t, _, _)) = tables.iter().find(|(_, present, k)| *present && *k != f.kind) {
            let kind = tables.iter().find(|(_, _, k)| *k == f.kind).map_or("bringup", |(n, _, _)| n);
            return Err(ScenarioError::File(format!("{path}: a [{t}] table, but kind = \"{kind}\": nothing reads it (remove it, or set kind = \"{t}\")")));
        }
        let sems = tpb_models::golden::evt_sem::COUNT as u32;
        if let Some(b) = &f.barrier {
            if b.arrive_sem >= sems || b.depart_sem >= sems || b.arrive_sem == b.depart_sem {
                return Err(ScenarioError::File(format!(
                    "{path}: [barrier] arrive_sem = {}, depart_sem = {}: two different POOL semaphores, 0..{sems}",
                    b.arrive_sem, b.depart_sem
                )));
            }
        }
        if let Some(c) = &f.collective {
            if !(2..=crate::mesh::MAX_DIES).contains(&c.dies) || c.first_sem >= 256 || c.words == 0 || !(1..=16).contains(&c.top_sps) {
                return Err(ScenarioError::File(format!(
                    "{path}: [collective] dies = {} (2..={}), first_sem = {} (0..256), words = {} (not 0), top_sps = {} (1..=16)",
                    c.dies,
                    crate::mesh::MAX_DIES,
                    c.first_sem,
                    c.words,
                    c.top_sps
                )));
            }
        }
        if let Some(t) = &f.tsync {
            if !(2..=crate::mesh::MAX_DIES).contains(&t.dies) || t.stagger == 0 {
                return Err(ScenarioError::File(format!(
                    "{path}: [tsync] dies = {} (2..={}), stagger = {} (not 0: the sync needs counters that start apart)",
                    t.dies,
                    crate::mesh::MAX_DIES,
                    t.stagger
                )));
            }
        }
        if let Some(w) = &f.windows {
            if w.sem > 247 || !(1..=255).contains(&w.stores) {
                return Err(ScenarioError::File(format!("{path}: [windows] sem = {} (0..=247: it uses 9 semaphores), stores = {} (1..=255)", w.sem, w.stores)));
            }
        }
        if let Some(d) = &f.dispatch {
            let max = firmware::dispatch::LOG_ENTRIES as usize;
            if d.stream.is_empty() || d.stream.len() > max {
                return Err(ScenarioError::File(format!("{path}: [dispatch] stream: 1 to {max} instructions (the SEQ's log holds {max}), not {}", d.stream.len())));
            }
        }
        if let Some(q) = &f.q7_kernels {
            if q.requests.is_empty() || q.requests.len() > 60 {
                return Err(ScenarioError::File(format!(
                    "{path}: [q7_kernels] requests: 1 to 60 opcodes (the request list ends where the trace begins), not {}",
                    q.requests.len()
                )));
            }
        }
        if let Some(i) = &f.interrupt {
            if i.sem >= 256 || i.q7_cores == 0 {
                return Err(ScenarioError::File(format!("{path}: [interrupt] sem = {} (0..256), q7_cores = {:#x} (not 0)", i.sem, i.q7_cores)));
            }
        }
        if f.notify.as_ref().is_some_and(|n| n.dma_sem >= 256) {
            return Err(ScenarioError::File(format!("{path}: [notify] dma_sem = {}: a TOP_SP semaphore, 0..256", f.notify.as_ref().map_or(0, |n| n.dma_sem))));
        }
        if f.halt_start.as_ref().is_some_and(|h| h.q7_cores == 0) {
            return Err(ScenarioError::File(format!("{path}: [halt_start] q7_cores = 0: choose at least one core (bit n = core n)")));
        }
        if let Some(d) = &f.doorbell {
            if d.entries.is_empty() || d.entries.iter().any(|e| e.is_empty()) {
                return Err(ScenarioError::File(format!("{path}: [doorbell] entries: every entry needs at least one [m2s, s2m, repeat] step")));
            }
            if let Some(s) = d.entries.iter().flatten().find(|s| s[0] > RING_LEN || s[1] > RING_LEN || s[2] > 255) {
                return Err(ScenarioError::File(format!("{path}: [doorbell] step {s:?}: m2s and s2m at most {RING_LEN} (the ring length), repeat at most 255")));
            }
            if !(1..=DATA_WORDS).contains(&d.words) {
                return Err(ScenarioError::File(format!("{path}: [doorbell] words = {}: 1..={DATA_WORDS}", d.words)));
            }
        }
        Ok(f)
    }

    /// A built-in scenario by name, or a scenario file by path.
    pub fn find(name_or_path: &str) -> Result<ScenarioFile, ScenarioError> {
        if let Some((file, text)) = BUILTIN.iter().find(|(f, _)| f.trim_end_matches(".toml") == name_or_path) {
            return ScenarioFile::parse(&format!("cosim/scenarios/{file}"), text);
        }
        let p = Path::new(name_or_path);
        if p.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(p).map_err(|e| ScenarioError::File(format!("{name_or_path}: {e}")))?;
            return ScenarioFile::parse(name_or_path, &text);
        }
        let known: Vec<&str> = BUILTIN.iter().map(|(f, _)| f.trim_end_matches(".toml")).collect();
        Err(ScenarioError::File(format!("no scenario '{name_or_path}' (built in: {}; or give a .toml file)", known.join(", "))))
    }

    /// Does it apply to `arch`?
    pub fn applies(&self, arch: Arch) -> bool {
        self.archs.iter().any(|a| a == arch.name())
    }
}
