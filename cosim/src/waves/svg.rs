//! Timing diagrams in SVG, drawn from a waveform read back from its file.
//! Values are named ([`Namer`]); a value too long for its slot gets a
//! letter there and its name in the legend under the diagram, so nothing
//! is dropped. Checked events are drawn as named markers. Time runs in
//! cycles along the axis, with the real time of the generation's clock in
//! the title.

use super::names::Namer;
use super::{groups, Dump, GroupName, Timebase, Trace, WavesError};
use std::fmt::Write as _;
use std::path::Path;

/// Pixels per character of the 11-px monospace font, and a slot's margin.
const CHAR_W: f64 = 6.7;
const PAD: f64 = 6.0;
const LABEL_W: f64 = 170.0;
const ROW_H: f64 = 28.0;
/// The plot's width for the whole window.
const PLOT_W: f64 = 1400.0;

/// An SVG timing diagram of `group` from `from` to `to` (cycles), reading
/// only that group's signals from `path`, and only as far as the window
/// needs (two cycles on: the values held at its end).
pub fn render(path: &Path, namer: &Namer, tb: Timebase, group: GroupName, from: u64, to: u64, markers: &[(u64, String)]) -> Result<String, WavesError> {
    let g = groups(namer.arch()).into_iter().find(|g| g.name == group).ok_or_else(|| WavesError::NoGroup(group.to_string()))?;
    let d = Dump::load_until(path, &g.signals, Some(tb.start(to + 2)))?;
    d.check_range(tb, from, to)?;
    render_dump(&d, namer, tb, group, from, to, markers)
}

/// The value of `tr` at time `t`.
fn at(tr: &Trace, t: u64) -> Option<u64> {
    tr.iter().take_while(|(tt, _)| *tt <= t).last().and_then(|(_, v)| *v)
}

/// The bits that say when a bus signal carries a value (all high): outside
/// them the slot is drawn idle, without a value.
fn qualifiers(signal: &str) -> &'static [&'static str] {
    match signal {
        "req_addr" => &["req_valid"],
        "req_wdata" => &["req_valid", "req_write"],
        "rsp_rdata" => &["rsp_valid"],
        _ => &[],
    }
}

/// Letters for legend keys: a..z, then aa, ab, …
fn key(n: usize) -> String {
    let mut s = String::new();
    let mut n = n + 1;
    while n > 0 {
        n -= 1;
        s.insert(0, (b'a' + (n % 26) as u8) as char);
        n /= 26;
    }
    s
}

/// One legend line: a signal's keys and what they stand for.
struct Legend {
    signal: String,
    /// (key, label, cycles where the slot starts).
    entries: Vec<(String, String, Vec<u64>)>,
}

/// An SVG timing diagram of `group` from `from` to `to` (cycles), from
/// signals already read, with `markers` (cycle, name) inside the window drawn.
pub fn render_dump(dump: &Dump, namer: &Namer, tb: Timebase, group: GroupName, from: u64, to: u64, markers: &[(u64, String)]) -> Result<String, WavesError> {
    let g = groups(namer.arch()).into_iter().find(|g| g.name == group).ok_or_else(|| WavesError::NoGroup(group.to_string()))?;
    if to <= from {
        return Err(WavesError::Range { from, to });
    }
    let data = g.signals.iter().map(|n| dump.signal(n)).collect::<Result<Vec<_>, _>>()?;
    let (t0, t1) = (tb.start(from), tb.start(to));
    let px = PLOT_W / (t1 - t0) as f64;
    let x = |t: u64| LABEL_W + (t.clamp(t0, t1) - t0) as f64 * px;
    let marks: Vec<&(u64, String)> = markers.iter().filter(|(c, _)| *c >= from && *c <= to).collect();
    // Marker names in a band over the plot, each on the first line free at its x.
    let mut lines_end: Vec<f64> = Vec::new();
    let mut mark_rows = Vec::new();
    for (c, name) in &marks {
        let xx = x(tb.start(*c));
        let w = CHAR_W * name.chars().count() as f64 + PAD;
        let row = lines_end.iter().position(|e| *e < xx).unwrap_or_else(|| {
            lines_end.push(0.0);
            lines_end.len() - 1
        });
        lines_end[row] = xx + w;
        mark_rows.push(row);
    }
    let top = 34.0 + 14.0 * lines_end.len() as f64;
    let plot_bottom = top + ROW_H * g.signals.len() as f64;
    let mut body = String::new();
    let mut legends: Vec<Legend> = Vec::new();
    // Clock-cycle grid and axis.
    let step = ((to - from) / 20).max(1);
    let mut c = from;
    while c <= to {
        let xx = x(tb.start(c));
        let _ = writeln!(body, "<line x1=\"{xx:.1}\" y1=\"{:.0}\" x2=\"{xx:.1}\" y2=\"{:.0}\" stroke=\"#e4e4e4\"/>", top - 6.0, plot_bottom + 2.0);
        let _ = writeln!(body, "<text x=\"{xx:.1}\" y=\"{:.0}\" text-anchor=\"middle\" fill=\"#777\">{c}</text>", plot_bottom + 16.0);
        c += step;
    }
    for (k, (name, (w, tr))) in g.signals.iter().zip(data.iter().map(|d| (d.0, &d.1))).enumerate() {
        let y = top + ROW_H * k as f64;
        let (hi, lo) = (y + 4.0, y + ROW_H - 8.0);
        let _ = writeln!(body, "<text x=\"8\" y=\"{:.1}\">{}</text>", y + ROW_H / 2.0, esc(name));
        // Change points inside the window, starting with the value at t0.
        let mut pts = vec![(t0, at(tr, t0))];
        pts.extend(tr.iter().filter(|(t, _)| *t > t0 && *t < t1).copied());
        pts.push((t1, None));
        if w == 1 {
            let mut d = String::new();
            for win in pts.windows(2) {
                let (ta, va) = win[0];
                let (tb_, _) = win[1];
                let yy = if va == Some(1) { hi } else { lo };
                let _ = write!(d, "{}{:.1},{yy:.1} L{:.1},{yy:.1} ", if d.is_empty() { "M" } else { "L" }, x(ta), x(tb_));
            }
            let _ = writeln!(body, "<path d=\"{d}\" fill=\"none\" stroke=\"#1f6f3f\" stroke-width=\"1.5\"/>");
            continue;
        }
        // A bus value is drawn only while its valid bit is high.
        let quals: Vec<&Trace> = qualifiers(name).iter().filter_map(|q| dump.signal(q).ok()).map(|q| &q.1).collect();
        for q in &quals {
            pts.extend(q.iter().filter(|(t, _)| *t > t0 && *t < t1).map(|(t, _)| (*t, at(tr, *t))));
        }
        pts.sort_by_key(|p| p.0);
        pts.dedup_by_key(|p| p.0);
        let mut legend = Legend { signal: name.clone(), entries: Vec::new() };
        for win in pts.windows(2) {
            let (ta, va) = win[0];
            let (tb_, _) = win[1];
            let (xa, xb) = (x(ta), x(tb_));
            let e = 3.0f64.min((xb - xa) / 2.0);
            let mid = (hi + lo) / 2.0;
            if quals.iter().any(|q| at(q, ta) == Some(0)) {
                let _ = writeln!(body, "<line x1=\"{xa:.1}\" y1=\"{mid:.1}\" x2=\"{xb:.1}\" y2=\"{mid:.1}\" stroke=\"#9aa7bf\"/>");
                continue;
            }
            let _ = writeln!(
                body,
                "<path d=\"M{xa:.1},{mid:.1} L{:.1},{hi:.1} L{:.1},{hi:.1} L{xb:.1},{mid:.1} L{:.1},{lo:.1} L{:.1},{lo:.1} Z\" fill=\"{}\" stroke=\"#2a4d8f\"/>",
                xa + e,
                xb - e,
                xb - e,
                xa + e,
                if va.is_some_and(|v| v != 0) { "#dfe8fb" } else { "#f6f6f6" }
            );
            let label = namer.label(name, va);
            let room = xb - xa - PAD;
            let shown = if CHAR_W * label.chars().count() as f64 <= room {
                label
            } else {
                // Too long for the slot: a key here, the name in the legend.
                let cyc = tb.cycle(ta.max(t0));
                let n = match legend.entries.iter().position(|e| e.1 == label) {
                    Some(n) => {
                        legend.entries[n].2.push(cyc);
                        n
                    }
                    None => {
                        legend.entries.push((key(legend.entries.len()), label, vec![cyc]));
                        legend.entries.len() - 1
                    }
                };
                legend.entries[n].0.clone()
            };
            if CHAR_W * shown.chars().count() as f64 <= room.max(CHAR_W) {
                let _ = writeln!(body, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>", (xa + xb) / 2.0, mid + 4.0, esc(&shown));
            }
        }
        if !legend.entries.is_empty() {
            legends.push(legend);
        }
    }
    // Markers over everything.
    for ((c, name), row) in marks.iter().zip(&mark_rows) {
        let xx = x(tb.start(*c));
        let ly = 34.0 + 14.0 * *row as f64 + 8.0;
        let _ = writeln!(body, "<line x1=\"{xx:.1}\" y1=\"{:.1}\" x2=\"{xx:.1}\" y2=\"{:.0}\" stroke=\"#c0392b\" stroke-dasharray=\"4,3\"/>", ly + 2.0, plot_bottom + 2.0);
        let _ = writeln!(body, "<text x=\"{:.1}\" y=\"{ly:.1}\" fill=\"#c0392b\">{}</text>", xx + 2.0, esc(name));
    }
    // The legend: one block per signal, wrapped to the diagram's width.
    let width = LABEL_W + PLOT_W + 20.0;
    let y = write_legends(&mut body, &legends, plot_bottom, width);
    let height = if legends.is_empty() { plot_bottom + 30.0 } else { y + 4.0 };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"monospace\" font-size=\"11\">\n<!-- GENERATED by tpb waves render from {} -->\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"8\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{} — {} cycles {from}..{to} ({} .. {} ns; one cycle = {} ps, {:.0} MHz)</text>",
        esc(&dump.path.display().to_string()),
        esc(g.title),
        namer.arch().name().to_uppercase(),
        ns(t0),
        ns(t1),
        tb.period_ps,
        tb.mhz()
    );
    s += &body;
    s.push_str("</svg>\n");
    Ok(s)
}

/// The legend under a diagram: one block per signal, wrapped to `width`;
/// returns the y below it.
fn write_legends(body: &mut String, legends: &[Legend], plot_bottom: f64, width: f64) -> f64 {
    let mut y = plot_bottom + 40.0;
    if !legends.is_empty() {
        let _ = writeln!(body, "<text x=\"8\" y=\"{y:.0}\" font-weight=\"bold\">Values too long for their slot (letter in the slot; cycle where it starts):</text>");
        y += 16.0;
    }
    for l in legends {
        let _ = writeln!(body, "<text x=\"8\" y=\"{y:.0}\">{}</text>", esc(&l.signal));
        let mut xx = LABEL_W;
        for (k, label, cycles) in &l.entries {
            let at: Vec<String> = cycles.iter().take(4).map(|c| c.to_string()).collect();
            let more = if cycles.len() > 4 { format!(" +{}", cycles.len() - 4) } else { String::new() };
            let text = format!("{k} = {label} ({}{more})", at.join(", "));
            let w = CHAR_W * text.chars().count() as f64 + 18.0;
            if xx + w > width && xx > LABEL_W {
                xx = LABEL_W;
                y += 15.0;
            }
            let _ = writeln!(body, "<text x=\"{xx:.1}\" y=\"{y:.0}\"><tspan font-weight=\"bold\">{}</tspan>{}</text>", esc(k), esc(&text[k.len()..]));
            xx += w;
        }
        y += 18.0;
    }
    y
}

/// Picoseconds as nanoseconds, without a fraction where there is none.
fn ns(ps: u64) -> String {
    if ps.is_multiple_of(1000) {
        (ps / 1000).to_string()
    } else {
        format!("{:.3}", ps as f64 / 1000.0)
    }
}

pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_run_a_to_z_then_two_letters() {
        assert_eq!((0..28).map(super::key).collect::<Vec<_>>()[24..], ["y", "z", "aa", "ab"]);
    }
}
