//! A scenario file: the kind and its table, read and checked before
//! anything runs (an error names the file, and its line where it has one),
//! the built-in ones by name.

use super::*;

fn tables_list() -> String {
    KINDS.iter().map(|t| format!("[{t}]")).collect::<Vec<_>>().join(", ")
}

impl ScenarioFile {
    /// The file's kind: its one kind table, by name.
    fn kind(&self) -> Result<(&'static str, &dyn Scenario), ScenarioError> {
        match self.tables().as_slice() {
            [k] => Ok(*k),
            _ => Err(ScenarioError::File(format!("{}: a scenario file has exactly one kind table", self.name))),
        }
    }

    /// The file's kind.
    pub fn scenario(&self) -> Result<&dyn Scenario, ScenarioError> {
        self.kind().map(|(_, k)| k)
    }

    /// Run a kind on one system on `c` (a kind on dies is refused by its name).
    pub fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        let (name, k) = self.kind()?;
        match k.runs() {
            Runs::OneSystem(k) => k.run_on(c, limit),
            Runs::Dies(_) => Err(ScenarioError::NotApplicable { scenario: name, arch: c.map().arch.name(), why: "it runs on dies of its own: run_dies" }),
        }
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
        match f.tables().as_slice() {
            [(_, k)] => k.check(path)?,
            [] => return Err(ScenarioError::File(format!("{path}: no kind table: a scenario file has one of {}", tables_list()))),
            more => {
                let names: Vec<String> = more.iter().map(|(t, _)| format!("[{t}]")).collect();
                return Err(ScenarioError::File(format!("{path}: kind tables {}: a scenario file is one kind (one of {})", names.join(" and "), tables_list())));
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
