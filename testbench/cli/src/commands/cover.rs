//! `tpb cover`: RTL line and toggle coverage of the tops over scenarios
//! (`tpb_cosim::cover`), per generation, with a per-module summary.

use super::CliError;
use tpb_cosim::cover;
use tpb_models::regmap::Arch;

pub fn cover(archs: Vec<Arch>, scenarios: &[String], out: &std::path::Path, html: bool) -> Result<(), CliError> {
    let archs = if archs.is_empty() { Arch::ALL.to_vec() } else { archs };
    let model_dir = tpb_cosim::regen::repo_root().join("target/cover-model");
    let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let say = |s: &str| eprintln!("tpb cover: {s}");
    let mut failed = 0;
    for arch in archs {
        let list = if scenarios.is_empty() { cover::default_scenarios(arch).map_err(|e| CliError::Other(e.to_string()))? } else { scenarios.to_vec() };
        let c = cover::cover(arch, &list, out, &model_dir, html, jobs, &say).map_err(|e| CliError::Other(e.to_string()))?;
        failed += c.runs.iter().filter(|r| r.1.is_err()).count();
        let (l, t) = c.summary.total();
        println!("## {} ({} scenario(s): {})\n", arch.name(), c.runs.len(), c.runs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join(", "));
        print!("{}", c.summary.table());
        println!(
            "\n{}: lines {:.1}%, toggles {:.1}%; {} (lcov), {}{}\n",
            arch.name(),
            l.percent(),
            t.percent(),
            c.info.display(),
            c.dat.display(),
            c.html.map(|h| format!(", {}/index.html", h.display())).unwrap_or_default()
        );
    }
    if failed > 0 {
        return Err(CliError::Other(format!("{failed} scenario run(s) failed (their counts are in the reports)")));
    }
    Ok(())
}
