//! RTL code coverage of the tops (`tpb cover`): a coverage-instrumented
//! model per generation (Verilator `--coverage-line --coverage-toggle`),
//! built at run time only when asked ([`crate::vlbuild`], cached under
//! `target/cover-model/`), so the normal models stay as they are. Scenarios
//! run on it as on the normal model; each run's counts are written when
//! its model is dropped, merged with `verilator_coverage`, written as lcov
//! `.info` and, with Debian's `genhtml` (package `lcov`), as HTML.
//!
//! The per-module summary ([`Summary`]) reads the merged `coverage.dat`:
//! each point's `page` key names its kind and module (`v_line/<module>`,
//! `v_toggle/<module>`); a point is hit when its count is not zero. A
//! module is a block of the top (`cayman_tpb_top__dma`: the SEQ DMA), its
//! points summed over its instances; the co-simulation's probe wrapper is
//! left out of the summary (the lcov report has it).

use crate::dut::Dut;
use crate::scenario::{ScenarioError, ScenarioFile};
use crate::sched::Cosim;
use crate::vlbuild::{self, Spec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use tpb_models::regmap::Arch;

/// Why coverage could not be collected or reported.
#[derive(Debug, thiserror::Error)]
pub enum CoverError {
    #[error(transparent)]
    Build(#[from] vlbuild::BuildError),
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("{tool} failed: {msg}")]
    Tool { tool: &'static str, msg: String },
    #[error("{0}")]
    Other(String),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CoverError {
    let what = what.into();
    move |source| CoverError::Io { what, source }
}

/// The coverage model of `arch` (its top as the normal model has it, with
/// the probe wrapper), built in `dir` or reused from there.
pub fn spec(arch: Arch) -> Result<Spec, CoverError> {
    let path = crate::regen::repo_root().join(format!("hdl/generated/{}_tpb_top.v", arch.name()));
    let verilog = std::fs::read_to_string(&path).map_err(io(path.display().to_string()))?;
    let mut s = Spec::new(&format!("Vcover_{}", arch.name()), verilog, &format!("{}_tpb_top", arch.name()), Some(arch.name()), false);
    s.coverage = true;
    Ok(s)
}

/// One kind of coverage point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    pub hit: u64,
    pub total: u64,
}

impl Count {
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.hit as f64 / self.total as f64
        }
    }
}

/// Line and toggle points per module of one merged `coverage.dat`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// module → (lines, toggles).
    pub modules: BTreeMap<String, (Count, Count)>,
}

impl Summary {
    /// Read a `coverage.dat` (Verilator's format: `C '<key\x02value\x01…>' <count>`).
    pub fn parse(text: &str) -> Result<Summary, CoverError> {
        let mut s = Summary::default();
        for (n, line) in text.lines().enumerate() {
            let Some(rest) = line.strip_prefix("C '") else { continue };
            let bad = || CoverError::Other(format!("coverage.dat line {}: not a coverage point", n + 1));
            let (keys, count) = rest.rsplit_once("' ").ok_or_else(bad)?;
            let count: u64 = count.trim().parse().map_err(|_| bad())?;
            let page = keys.split('\x01').filter_map(|kv| kv.split_once('\x02')).find(|(k, _)| *k == "page").map(|(_, v)| v).ok_or_else(bad)?;
            let (kind, module) = page.split_once('/').ok_or_else(bad)?;
            // The co-simulation's probe wrapper is not the design.
            if ["_sim_top", "_sim_core_probe", "_sim_hal_probe"].iter().any(|w| module.ends_with(w)) {
                continue;
            }
            let e = s.modules.entry(module.to_string()).or_default();
            let c = match kind {
                "v_line" | "v_branch" => &mut e.0,
                "v_toggle" => &mut e.1,
                _ => continue,
            };
            c.total += 1;
            c.hit += u64::from(count > 0);
        }
        Ok(s)
    }

    /// All modules' lines and toggles together.
    pub fn total(&self) -> (Count, Count) {
        let add = |a: Count, b: Count| Count { hit: a.hit + b.hit, total: a.total + b.total };
        self.modules.values().fold((Count::default(), Count::default()), |(l, t), (ml, mt)| (add(l, *ml), add(t, *mt)))
    }

    /// A Markdown table: each module's lines and toggles hit, then the total.
    pub fn table(&self) -> String {
        let mut s = String::from("| module | lines hit | toggles hit |\n|---|---:|---:|\n");
        let row = |name: &str, (l, t): (Count, Count)| format!("| {name} | {}/{} ({:.1}%) | {}/{} ({:.1}%) |\n", l.hit, l.total, l.percent(), t.hit, t.total, t.percent());
        for (m, c) in &self.modules {
            s += &row(&format!("`{m}`"), *c);
        }
        s += &row("**all**", self.total());
        s
    }
}

/// What one `tpb cover` of a generation ran and wrote.
#[derive(Debug, Clone)]
pub struct Covered {
    pub arch: Arch,
    /// Scenario names (or files) run, with their result.
    pub runs: Vec<(String, Result<u64, String>)>,
    pub dat: PathBuf,
    pub info: PathBuf,
    pub html: Option<PathBuf>,
    pub summary: Summary,
}

/// The built-in scenarios that run on one system of `arch`.
pub fn default_scenarios(arch: Arch) -> Result<Vec<String>, CoverError> {
    let mut v = Vec::new();
    for (file, _) in crate::scenario::BUILTIN {
        let name = file.trim_end_matches(".toml");
        let f = ScenarioFile::find(name)?;
        if f.archs.iter().any(|a| a == arch.name()) && f.scenario()?.single_system() {
            v.push(name.to_string());
        }
    }
    Ok(v)
}

/// Run `scenarios` (built-in names or scenario files; single-system kinds)
/// on the coverage model of `arch` and write `out/<arch>/`: `coverage.dat`
/// (merged), `coverage.info` (lcov), `html/` (when `html`). `model_dir`
/// holds the model build. A scenario that fails is reported and its counts
/// still count; a multi-die scenario is refused.
pub fn cover(arch: Arch, scenarios: &[String], out: &Path, model_dir: &Path, html: bool, jobs: usize, say: &dyn Fn(&str)) -> Result<Covered, CoverError> {
    let spec = spec(arch)?;
    let dir = model_dir.join(&spec.prefix);
    let model = vlbuild::build(&spec, &dir, jobs, say)?;
    drop(model);
    let lib = vlbuild::library(&spec, &dir);
    let out = out.join(arch.name());
    let _ = std::fs::remove_dir_all(&out);
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(io(runs_dir.display().to_string()))?;
    vlbuild::coverage_to(&lib, &spec.prefix, &runs_dir.join("run"))?;
    let mut runs = Vec::new();
    for name in scenarios {
        let f = ScenarioFile::find(name)?;
        if !f.archs.iter().any(|a| a == arch.name()) {
            return Err(CoverError::Other(format!("scenario '{name}' is for {}, not {}", f.archs.join(", "), arch.name())));
        }
        let s = f.scenario()?;
        if !s.single_system() {
            return Err(CoverError::Other(format!("scenario '{name}' runs on dies of its own: tpb cover runs single-system scenarios")));
        }
        let dut = Dut::with_model(arch, vlbuild::build(&spec, &dir, jobs, &|_| {})?).map_err(|e| CoverError::Other(e.to_string()))?;
        let mut c = Cosim::on(dut).map_err(|e| CoverError::Other(e.to_string()))?;
        let r = s.run_on(&mut c, f.cycles).map(|r| r.stats.cycles).map_err(|e| e.to_string());
        say(&format!(
            "{name} on {}: {}",
            arch.name(),
            match &r {
                Ok(c) => format!("{c} cycles"),
                Err(e) => format!("FAILED: {e}"),
            }
        ));
        runs.push((name.clone(), r));
        drop(c); // writes this run's counts
    }
    let parts: Vec<PathBuf> = std::fs::read_dir(&runs_dir).map_err(io(runs_dir.display().to_string()))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    if parts.is_empty() {
        return Err(CoverError::Other("no run wrote coverage (no scenario ran)".into()));
    }
    let dat = out.join("coverage.dat");
    let info = out.join("coverage.info");
    tool("verilator_coverage", Command::new("verilator_coverage").arg("--write").arg(&dat).args(&parts))?;
    tool("verilator_coverage", Command::new("verilator_coverage").arg("--write-info").arg(&info).arg(&dat))?;
    let html = if html {
        let h = out.join("html");
        tool("genhtml", Command::new("genhtml").args(["--quiet", "--output-directory"]).arg(&h).arg(&info))?;
        Some(h)
    } else {
        None
    };
    let text = std::fs::read_to_string(&dat).map_err(io(dat.display().to_string()))?;
    let summary = Summary::parse(&text)?;
    std::fs::write(out.join("summary.md"), summary.table()).map_err(io("summary.md"))?;
    Ok(Covered { arch, runs, dat, info, html, summary })
}

fn tool(name: &'static str, cmd: &mut Command) -> Result<(), CoverError> {
    let o = cmd
        .output()
        .map_err(|e| CoverError::Tool { tool: name, msg: format!("cannot run it ({e}): install it with `bash scripts/setup` (Debian packages verilator and lcov)") })?;
    if !o.status.success() {
        return Err(CoverError::Tool { tool: name, msg: String::from_utf8_lossy(&o.stderr).into_owned() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(page: &str, count: u64) -> String {
        format!("C '\x01f\x02x.v\x01l\x021\x01page\x02{page}\x01h\x02TOP.t' {count}\n")
    }

    #[test]
    fn the_summary_counts_points_hit_per_module_and_kind() {
        let text = [
            "# SystemC::Coverage-3\n".to_string(),
            point("v_line/top__dma", 3),
            point("v_line/top__dma", 0),
            point("v_toggle/top__dma", 1),
            point("v_branch/top__nx", 0),
            point("v_toggle/arch_sim_top", 9),
        ]
        .concat();
        let s = Summary::parse(&text).unwrap();
        assert_eq!(s.modules.len(), 2, "the wrapper is left out: {s:?}");
        assert_eq!(s.modules["top__dma"], (Count { hit: 1, total: 2 }, Count { hit: 1, total: 1 }));
        assert_eq!(s.modules["top__nx"].0, Count { hit: 0, total: 1 });
        assert_eq!(s.total(), (Count { hit: 1, total: 3 }, Count { hit: 1, total: 1 }));
        assert!(s.table().contains("| `top__dma` | 1/2 (50.0%) | 1/1 (100.0%) |"), "{}", s.table());
        assert!(Summary::parse("C 'no page' 1\n").unwrap_err().to_string().contains("line 1"));
    }
}
