//! Coverage (`tpb cover`) of a generation over a set of runs, in three
//! forms:
//! - **RTL lines and toggles** of the top: a coverage-instrumented model
//!   per generation (Verilator `--coverage-line --coverage-toggle`), built
//!   at run time only when asked ([`crate::vlbuild`], cached under
//!   `target/cover-model/`), so the normal models stay as they are. Each
//!   run's counts are written when its model is dropped, merged with
//!   `verilator_coverage`, written as lcov `.info` and, with Debian's
//!   `genhtml` (package `lcov`), as HTML; [`rtl::Summary`] per block.
//! - **Registers** ([`tpb_models::regmap::cover`]): every field, who wrote,
//!   read and checked it; JSON, an HTML matrix and a summary per block.
//! - **The seeds' cases** ([`points`]): named events, each counted when a
//!   run shows it, with the ones no run showed.
//!
//! A [`Session`] holds one generation's runs: scenarios on one system run
//! on the coverage model and count all three; scenarios on dies of their
//! own (the collectives) run on the normal models and count their points
//! only; a caller may run anything else on [`Session::model`] (the
//! testbench files) and [`Session::add`] what it counted.

pub mod points;
pub mod rtl;

use crate::dut::Dut;
use crate::scenario::{Runs, ScenarioError, ScenarioFile};
use crate::sched::{CoreId, Cosim};
use crate::vlbuild::{self, Spec};
use points::{Points, PointsReport};
pub use rtl::{Count, Summary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use tpb_models::regmap::cover::{RegCoverage, Report as RegReport};
use tpb_models::regmap::{builtin, Arch, RegMap};

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
    #[error(transparent)]
    Map(#[from] tpb_models::regmap::RegmapError),
    #[error(transparent)]
    Cosim(#[from] crate::sched::CosimError),
    #[error(transparent)]
    Merge(#[from] tpb_models::regmap::cover::MergeError),
    #[error("a report as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Other(String),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CoverError {
    let what = what.into();
    move |source| CoverError::Io { what, source }
}

/// g++ optimisation for the coverage model's per-cycle code (`[D]`): `-O1`.
/// A `tpb cover` is mostly its model's build: at `-O1` the build takes a
/// quarter less g++ time than at `-O2` and the runs take as long; at `-O0`
/// they take three times as long (docs/coverage.md, "What a cover costs").
pub const OPT: &str = "-O1";

/// The coverage model of `arch` (its top as the normal model has it, with
/// the probe wrapper).
pub fn spec(arch: Arch) -> Result<Spec, CoverError> {
    let mut s = Spec::top(arch, &format!("Vcover_{}", arch.name()), false)?;
    s.coverage = true;
    s.opt = OPT;
    Ok(s)
}

/// What one `tpb cover` of a generation ran and wrote.
#[derive(Debug, Clone)]
pub struct Covered {
    pub arch: Arch,
    /// Runs (scenario names or files), with their cycles or why they failed.
    pub runs: Vec<(String, Result<u64, String>)>,
    pub dat: PathBuf,
    pub info: PathBuf,
    pub html: Option<PathBuf>,
    pub summary: Summary,
    pub registers: RegReport,
    pub points: PointsReport,
}

/// The built-in scenarios of `arch`: (on one system, on dies of their own).
pub fn default_scenarios(arch: Arch) -> Result<(Vec<String>, Vec<String>), CoverError> {
    let (mut one, mut dies) = (Vec::new(), Vec::new());
    for (file, _) in crate::scenario::BUILTIN {
        let name = file.trim_end_matches(".toml");
        let f = ScenarioFile::find(name)?;
        if f.applies(arch) {
            if f.scenario()?.single_system() { &mut one } else { &mut dies }.push(name.to_string());
        }
    }
    Ok((one, dies))
}

/// One generation's coverage runs and what they counted.
pub struct Session {
    arch: Arch,
    map: RegMap,
    spec: Spec,
    dir: PathBuf,
    jobs: usize,
    out: PathBuf,
    runs_dir: PathBuf,
    pub runs: Vec<(String, Result<u64, String>)>,
    pub regs: RegCoverage,
    pub points: Points,
    /// Why an uncovered point could not be run (a collective refused on a
    /// die count it does not fit), by point.
    pub reasons: BTreeMap<String, String>,
}

impl Session {
    /// Build (or reuse) the coverage model of `arch` under `model_dir` and
    /// start `out/<arch>/` afresh.
    pub fn open(arch: Arch, out: &Path, model_dir: &Path, jobs: usize, say: &dyn Fn(&str)) -> Result<Session, CoverError> {
        let spec = spec(arch)?;
        let dir = model_dir.join(&spec.prefix);
        drop(vlbuild::build(&spec, &dir, jobs, say)?);
        let out = out.join(arch.name());
        let _ = std::fs::remove_dir_all(&out);
        let runs_dir = out.join("runs");
        std::fs::create_dir_all(&runs_dir).map_err(io(runs_dir.display().to_string()))?;
        vlbuild::coverage_to(&vlbuild::library(&spec, &dir), &spec.prefix, &runs_dir.join("run"))?;
        let map = builtin(arch)?;
        let (regs, points) = (RegCoverage::new(&map), Points::new(&map, ""));
        Ok(Session { arch, map, spec, dir, jobs, out, runs_dir, runs: Vec::new(), regs, points, reasons: BTreeMap::new() })
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// A maker of tops on the coverage model (each one's counts are
    /// written when it is dropped).
    pub fn model(&self) -> Arc<dyn Fn(Arch) -> Result<Dut, String> + Send + Sync> {
        let (spec, dir, jobs) = (self.spec.clone(), self.dir.clone(), self.jobs);
        Arc::new(move |arch| {
            let m = vlbuild::build(&spec, &dir, jobs, &|_| {}).map_err(|e| e.to_string())?;
            // Every edge evaluated alone: line counts count evaluations.
            Dut::with_model(arch, m).map(|d| d.with_merged_edges(false)).map_err(|e| e.to_string())
        })
    }

    /// Record run `name` (its cycles or why it failed) and what it counted.
    pub fn add(&mut self, name: &str, result: Result<u64, String>, regs: Option<&RegCoverage>, points: Option<&Points>) -> Result<(), CoverError> {
        if let Some(r) = regs {
            self.regs.merge(r)?;
        }
        if let Some(p) = points {
            self.points.merge(p);
        }
        self.runs.push((name.into(), result));
        Ok(())
    }

    /// Run scenario `name` (built in, or a file): on one system on the
    /// coverage model, counting all three forms; on dies of its own on
    /// `dies` (None: its default) of the normal models, counting its points.
    /// `optional`: a collective that refuses the die count before running
    /// (it does not fit) is not a failed run; its point keeps the reason.
    pub fn run_scenario(&mut self, name: &str, dies: Option<usize>, optional: bool, say: &dyn Fn(&str)) -> Result<(), CoverError> {
        let f = ScenarioFile::find(name)?;
        if !f.applies(self.arch) {
            return Err(CoverError::Other(format!("scenario '{name}' is for {}, not {}", f.archs.join(", "), self.arch.name())));
        }
        let label = match dies {
            Some(n) => format!("{name} ({n} dies)"),
            None => name.to_string(),
        };
        let mut points = Points::new(&self.map, &label);
        let (result, regs) = match f.scenario()?.runs() {
            Runs::OneSystem(k) => {
                let dut = self.model()(self.arch).map_err(CoverError::Other)?;
                let mut c = Cosim::on(dut)?;
                let mut regs = RegCoverage::new(&self.map);
                regs.source(&label);
                c.regs = Some(Box::new(regs));
                c.points = Some(Box::new(points));
                let r = k.run_on(&mut c, f.cycles);
                let (regs, p) = (c.regs.take().map(|b| *b), c.points.take().map(|b| *b));
                points = p.unwrap_or_else(|| Points::new(&self.map, &label));
                drop(c); // writes this run's line and toggle counts
                (r, regs)
            }
            Runs::Dies(k) => {
                let n = k.dies(dies)?;
                let r = k.run_dies(self.arch, n, f.cycles, None);
                // Refused before running (it does not fit the SRAM or the
                // firmware's capacity): an error of the set-up, not a check.
                let refused = match &r {
                    Err(ScenarioError::File(why)) => Some(why.clone()),
                    Err(e @ ScenarioError::Firmware(_)) => Some(e.to_string()),
                    _ => None,
                };
                if let (true, Some(why), Some(c)) = (optional, refused, &f.collective) {
                    say(&format!("{label} on {}: not run: {why}", self.arch.name()));
                    self.reasons.insert(format!("collective.{}.{n}", c.algorithm.name()), format!("{name} refuses {n} dies: {why}"));
                    return Ok(());
                }
                (r, None)
            }
        };
        if let Ok(r) = &result {
            for p in &r.points {
                points.hit(p.clone());
            }
        }
        let result = result.map(|r| r.stats.cycles).map_err(|e| e.to_string());
        say(&format!(
            "{label} on {}: {}",
            self.arch.name(),
            match &result {
                Ok(c) => format!("{c} cycles"),
                Err(e) => format!("FAILED: {e}"),
            }
        ));
        self.add(&label, result, regs.as_ref(), Some(&points))
    }

    /// Merge the line and toggle counts and write every report in
    /// `out/<arch>/`: `coverage.dat`, `coverage.info`, `html/` (when
    /// `html`), `summary.md`, `registers.{json,html,md}`, `points.{json,md}`.
    pub fn finish(mut self, html: bool) -> Result<Covered, CoverError> {
        let parts: Vec<PathBuf> = std::fs::read_dir(&self.runs_dir).map_err(io(self.runs_dir.display().to_string()))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        if parts.is_empty() {
            return Err(CoverError::Other("no run wrote line and toggle coverage (no run on the coverage model)".into()));
        }
        let out = &self.out;
        let dat = out.join("coverage.dat");
        let info = out.join("coverage.info");
        tool("verilator_coverage", Command::new("verilator_coverage").arg("--write").arg(&dat).args(&parts))?;
        tool("verilator_coverage", Command::new("verilator_coverage").arg("--write-info").arg(&info).arg(&dat))?;
        let html_dir = if html {
            let h = out.join("html");
            tool("genhtml", Command::new("genhtml").args(["--quiet", "--output-directory"]).arg(&h).arg(&info))?;
            Some(h)
        } else {
            None
        };
        let text = std::fs::read_to_string(&dat).map_err(io(dat.display().to_string()))?;
        let summary = Summary::parse(&text)?;
        let write = |name: &str, body: &str| std::fs::write(out.join(name), body).map_err(io(name.to_string()));
        write("summary.md", &summary.table())?;
        // The EVT_SEM window points are the register coverage's windows.
        let registers = self.regs.report();
        for f in registers.fields.iter().filter(|f| f.block.ends_with(".evt_sem") && f.name.ends_with("[]")) {
            let window = f.name.trim_end_matches("[]").rsplit('.').next().unwrap_or_default();
            for run in f.written_by.iter().chain(&f.read_by) {
                *self.points.hits.entry(format!("evt_sem.{}.{window}", f.block.trim_end_matches(".evt_sem"))).or_default().entry(run.clone()).or_default() += 1;
            }
        }
        let points = PointsReport::of(&self.map, &self.points, &self.reasons);
        write("registers.json", &json(&registers)?)?;
        write("registers.html", &tpb_models::regmap::cover::html(&registers))?;
        write("registers.md", &registers.summary_table())?;
        write("points.json", &json(&points)?)?;
        write("points.md", &points.table())?;
        Ok(Covered { arch: self.arch, runs: self.runs, dat, info, html: html_dir, summary, registers, points })
    }
}

/// A report as JSON.
fn json<T: serde::Serialize>(v: &T) -> Result<String, CoverError> {
    Ok(serde_json::to_string_pretty(v)?)
}

/// Run `scenarios` (built-in names or scenario files) on `arch` and write
/// the reports under `out/<arch>/` (see [`Session::finish`]).
pub fn cover(arch: Arch, scenarios: &[String], out: &Path, model_dir: &Path, html: bool, jobs: usize, say: &dyn Fn(&str)) -> Result<Covered, CoverError> {
    let mut s = Session::open(arch, out, model_dir, jobs, say)?;
    for name in scenarios {
        s.run_scenario(name, None, false, say)?;
    }
    s.finish(html)
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
