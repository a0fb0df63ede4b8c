//! Reports of testbench runs: the pass/fail table `tpb test` prints and
//! JUnit XML for CI systems (the common Jenkins/Ant schema: `testsuites` ›
//! `testsuite` (name, tests, failures, errors, skipped, time) › `testcase`
//! (name, classname, time) › `failure` (message) / `skipped`).

use super::file::Outcome;
use std::fmt::Write as _;

/// A run that did not happen because the testbench does not apply to the generation.
#[derive(Debug, Clone)]
pub struct Skip {
    pub name: String,
    pub arch: tpb_models::regmap::Arch,
    pub why: String,
}

/// The exit code of a set of runs: 0 every one passed, 1 a check failed,
/// 2 a run's trace file could not be written (the command could not do
/// its job, as `tpb sim` says for a scenario's).
pub fn exit_code(outcomes: &[Outcome]) -> i32 {
    let failures = || outcomes.iter().filter_map(|o| o.result.as_ref().err());
    if failures().any(|f| f.trace_lost) {
        2
    } else if failures().next().is_some() {
        1
    } else {
        0
    }
}

/// What the cycles column counts, when a run set up before its first step:
/// the steps' own cycles, while the console, a failure and the waves give
/// the run's cycle (counted from its start).
fn first_cycles_note(outcomes: &[Outcome]) -> Option<String> {
    let lo = outcomes.iter().map(|o| o.first_cycle).min()?;
    let hi = outcomes.iter().map(|o| o.first_cycle).max()?;
    if hi == 0 {
        return None;
    }
    let from = if lo == hi { format!("cycle {lo}") } else { format!("cycles {lo}..{hi}") };
    Some(format!(
        "(cycles: the steps' own, from the first step at {from} of its run, after the reset and the EVT_SEM clear; the console, failures and waves count from the run's start)"
    ))
}

/// The table: one row per testbench × generation, then the first failing
/// step of each failure with its message.
pub fn table(outcomes: &[Outcome], skips: &[Skip]) -> String {
    let mut s = String::new();
    let w = outcomes.iter().map(|o| o.name.len()).chain(skips.iter().map(|k| k.name.len())).max().unwrap_or(4).max(9);
    let _ = writeln!(s, "{:<w$}  {:<7}  {:<9}  {:<6}  {:>6}  {:>8}  {:>8}", "testbench", "arch", "engine", "result", "steps", "cycles", "wall");
    let _ = writeln!(s, "{}", "-".repeat(w + 56));
    for o in outcomes {
        let res = if o.result.is_ok() { "PASS" } else { "FAIL" };
        let _ = writeln!(s, "{:<w$}  {:<7}  {:<9}  {:<6}  {:>6}  {:>8}  {:>7.2}s", o.name, o.arch.name(), o.engine.name(), res, o.steps, o.cycles, o.wall.as_secs_f64());
    }
    for k in skips {
        let _ = writeln!(s, "{:<w$}  {:<7}  {:<9}  {:<6}  {}", k.name, k.arch.name(), "-", "SKIP", k.why);
    }
    let fails: Vec<&Outcome> = outcomes.iter().filter(|o| o.result.is_err()).collect();
    let _ = writeln!(s, "{}", "-".repeat(w + 56));
    let _ = writeln!(
        s,
        "{} passed, {} failed, {} skipped; {} steps, {} cycles",
        outcomes.len() - fails.len(),
        fails.len(),
        skips.len(),
        outcomes.iter().map(|o| o.steps).sum::<u64>(),
        outcomes.iter().map(|o| o.cycles).sum::<u64>()
    );
    if let Some(note) = first_cycles_note(outcomes) {
        let _ = writeln!(s, "{note}");
    }
    for o in fails {
        let f = o.result.as_ref().unwrap_err();
        let _ = writeln!(s, "\nFAIL {} [{}]", o.name, o.arch.name());
        let _ = writeln!(s, "  at {}", failure_place(o));
        let _ = writeln!(s, "  step: {}", f.step);
        let _ = writeln!(s, "  {}", f.error);
        match (&o.vcd, &o.gtkw) {
            (Some(v), Some(g)) => {
                let _ = writeln!(s, "  waves: {} (gtkwave {} opens at cycle {})", v.display(), g.display(), f.cycle);
            }
            (Some(v), None) => {
                let _ = writeln!(s, "  waves: {}", v.display());
            }
            (None, _) => {}
        }
        console_tail(&mut s, o);
    }
    s
}

/// Console lines a failing run shows (its last ones).
pub const CONSOLE_TAIL: usize = 20;

/// The last [`CONSOLE_TAIL`] console lines of a run, under a heading.
fn console_tail(s: &mut String, o: &Outcome) {
    if o.console.is_empty() {
        return;
    }
    let skip = o.console.len().saturating_sub(CONSOLE_TAIL);
    let _ = writeln!(s, "  console{}:", if skip > 0 { format!(" (last {CONSOLE_TAIL} of {} lines)", o.console.len()) } else { String::new() });
    for l in &o.console[skip..] {
        let _ = writeln!(s, "    {l}");
    }
}

fn failure_place(o: &Outcome) -> String {
    let f = o.result.as_ref().unwrap_err();
    if f.loc.line == 0 {
        match f.step.as_str() {
            "firmware" | "setup" | "--vcd" => "setup, before the first step".to_string(),
            "(after the last step)" | "trace" => format!("the end of the run, cycle {}", f.cycle),
            _ => format!("step (generated), cycle {}", f.cycle),
        }
    } else {
        format!("line {}:{}, cycle {}", f.loc.line, f.loc.col, f.cycle)
    }
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one `testsuite` per generation, one `testcase` per testbench.
pub fn junit(outcomes: &[Outcome], skips: &[Skip]) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total_t: f64 = outcomes.iter().map(|o| o.wall.as_secs_f64()).sum();
    let fails = outcomes.iter().filter(|o| o.result.is_err()).count();
    let _ = writeln!(
        s,
        "<testsuites name=\"tpb test\" tests=\"{}\" failures=\"{fails}\" errors=\"0\" skipped=\"{}\" time=\"{total_t:.3}\">",
        outcomes.len() + skips.len(),
        skips.len()
    );
    for arch in tpb_models::regmap::Arch::ALL {
        let os: Vec<&Outcome> = outcomes.iter().filter(|o| o.arch == arch).collect();
        let ks: Vec<&Skip> = skips.iter().filter(|k| k.arch == arch).collect();
        if os.is_empty() && ks.is_empty() {
            continue;
        }
        let t: f64 = os.iter().map(|o| o.wall.as_secs_f64()).sum();
        let f = os.iter().filter(|o| o.result.is_err()).count();
        let _ = writeln!(s, "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"0\" skipped=\"{}\" time=\"{t:.3}\">", arch.name(), os.len() + ks.len(), ks.len());
        for o in os {
            let _ = write!(s, "    <testcase name=\"{}\" classname=\"tpb.{}.{}\" time=\"{:.3}\"", esc(&o.name), arch.name(), o.engine.name(), o.wall.as_secs_f64());
            match &o.result {
                Ok(()) => s.push_str("/>\n"),
                Err(e) => {
                    let _ = writeln!(
                        s,
                        ">\n      <failure message=\"{}\" type=\"step\">{}\nstep: {}\n{}</failure>",
                        esc(&e.error),
                        esc(&failure_place(o)),
                        esc(&e.step),
                        esc(&e.error)
                    );
                    let mut out = o.vcd.as_ref().map(|v| format!("waves: {}\n", v.display())).unwrap_or_default();
                    out.extend(o.console.iter().map(|l| format!("{l}\n")));
                    if !out.is_empty() {
                        let _ = writeln!(s, "      <system-out>{}</system-out>", esc(out.trim_end()));
                    }
                    s.push_str("    </testcase>\n");
                }
            }
        }
        for k in ks {
            let _ =
                writeln!(s, "    <testcase name=\"{}\" classname=\"tpb.{}\" time=\"0\">\n      <skipped message=\"{}\"/>\n    </testcase>", esc(&k.name), arch.name(), esc(&k.why));
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}
