//! The cores' console: the text a core writes reaches the host as lines,
//! each tagged with the core and the cycle its first byte was written.
//!
//! A core writes text with SIMCALL write (`a2 = 4`, `a3` fd 1 or 2, `a4`
//! buffer, `a5` length; the call QEMU's `sim` machine offers, which
//! `tpb_puts` / `tpb_printf` of the C runtime use). The core reads the
//! buffer a word per access over its own bus (as any load: a Q7 core's
//! DRAM through its RTL port); the scheduler takes the bytes the cycle the
//! SIMCALL retires (`[D]`).
//!
//! Lines are kept (for checks and reports) up to [`KEPT_LINES`], and echoed
//! as they complete when [`Console::echo`] is set (`tpb sim` sets it).

use super::CoreId;
use std::collections::BTreeMap;
use std::io::Write;

/// Lines kept for checks and reports; the rest are counted, not kept.
pub const KEPT_LINES: usize = 10_000;
/// Longest line (bytes) before it is broken: a program that never writes a
/// newline still shows its text.
pub const MAX_LINE: usize = 4096;

/// One line a core wrote (without its newline; invalid UTF-8 shown as U+FFFD).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub core: CoreId,
    /// The cycle of the line's first byte.
    pub cycle: u64,
    pub text: String,
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{} @{}] {}", self.core.name(), self.cycle, self.text)
    }
}

/// The lines so far and each core's unfinished one.
#[derive(Debug, Default)]
pub struct Console {
    pub lines: Vec<Line>,
    /// Lines completed past [`KEPT_LINES`].
    pub dropped: u64,
    /// Print each line to stdout as it completes.
    pub echo: bool,
    partial: BTreeMap<CoreId, (u64, Vec<u8>)>,
}

impl Console {
    /// Takes the bytes a core wrote this cycle.
    pub fn take(&mut self, core: CoreId, cycle: u64, bytes: &mut Vec<u8>) {
        for b in bytes.drain(..) {
            let (start, buf) = self.partial.entry(core).or_insert_with(|| (cycle, Vec::new()));
            if buf.is_empty() {
                *start = cycle;
            }
            if b == b'\n' || buf.len() >= MAX_LINE {
                let text = String::from_utf8_lossy(buf).trim_end_matches('\r').to_string();
                let line = Line { core, cycle: *start, text };
                buf.clear();
                if b != b'\n' {
                    buf.push(b);
                    *start = cycle;
                }
                self.complete(line);
            } else {
                buf.push(b);
            }
        }
    }

    fn complete(&mut self, line: Line) {
        if self.echo {
            let mut out = std::io::stdout().lock();
            // A closed stdout (a pipe to `head`) must not stop the simulation.
            let _ = writeln!(out, "{line}");
        }
        if self.lines.len() < KEPT_LINES {
            self.lines.push(line);
        } else {
            self.dropped += 1;
        }
    }

    /// Ends every unfinished line (at the end of a run).
    pub fn flush(&mut self) {
        let partial = std::mem::take(&mut self.partial);
        for (core, (cycle, buf)) in partial {
            if !buf.is_empty() {
                self.complete(Line { core, cycle, text: String::from_utf8_lossy(&buf).into_owned() });
            }
        }
    }

    /// The text of the lines `core` wrote, in order, its unfinished one last.
    pub fn of(&self, core: CoreId) -> Vec<String> {
        self.of_since(core, 0)
    }

    /// As [`Console::of`], only the lines whose first byte came after `cycle`
    /// (what a core wrote since it was last started).
    pub fn of_since(&self, core: CoreId, cycle: u64) -> Vec<String> {
        let done = self.lines.iter().filter(|l| l.core == core && (cycle == 0 || l.cycle > cycle)).map(|l| l.text.clone());
        let open = self.partial.get(&core).filter(|(at, b)| !b.is_empty() && (cycle == 0 || *at > cycle)).map(|(_, b)| String::from_utf8_lossy(b).into_owned());
        done.chain(open).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_per_core_and_stamped_with_their_first_byte() {
        let mut c = Console::default();
        c.take(CoreId::Q7(3), 10, &mut b"hel".to_vec());
        c.take(CoreId::Seq, 11, &mut b"seq says\n".to_vec());
        c.take(CoreId::Q7(3), 20, &mut b"lo\nnext".to_vec());
        assert_eq!(c.lines, vec![Line { core: CoreId::Seq, cycle: 11, text: "seq says".into() }, Line { core: CoreId::Q7(3), cycle: 10, text: "hello".into() }]);
        assert_eq!(c.of(CoreId::Q7(3)), ["hello", "next"]);
        c.flush();
        assert_eq!(c.lines[2], Line { core: CoreId::Q7(3), cycle: 20, text: "next".into() });
        assert_eq!(c.lines[1].to_string(), "[q7[3] @10] hello");
    }

    #[test]
    fn a_line_without_newline_is_broken_at_the_limit() {
        let mut c = Console::default();
        c.take(CoreId::TopSp, 1, &mut vec![b'x'; MAX_LINE + 5]);
        assert_eq!(c.lines.len(), 1);
        assert_eq!(c.lines[0].text.len(), MAX_LINE);
        c.flush();
        assert_eq!(c.lines[1].text, "xxxxx");
    }
}
