//! A VCD cut down to the signals a diagram or a save file reads, before
//! wellen parses it: wellen reads every signal of a body (about 100
//! instructions a byte of a Verilator VCD), when a diagram wants a dozen
//! of its 1,400. The file is read once, in blocks, as tokens; what is kept
//! is the header as it is written and, of the body, every time and
//! `$dump…` keyword and the value changes of the wanted signals' ids, up
//! to a time if one is given (the first time past it ends the read, as
//! `read::vcd_cut` cuts). Whatever this reader does not know (a keyword of
//! the body other than the `$dump…`s and `$comment`, a token that is no
//! value change) makes it give up, and the caller reads the file whole.

use std::io::{BufRead, BufReader};
use std::path::Path;

/// An id as a key: its bytes, zero-padded (ids are printable ASCII, so no
/// id pads into another); None for an id longer than 16 bytes.
fn key(id: &[u8]) -> Option<u128> {
    (id.len() <= 16).then(|| id.iter().rev().fold(0u128, |k, &b| k << 8 | u128::from(b)))
}

/// VCD's whitespace: an id or a value is printable ASCII (33 to 126).
fn is_space(b: u8) -> bool {
    b <= b' '
}

/// The shape of the line that starts `rest`: where it ends (its newline,
/// or the end of `rest`), its first space if that is its only whitespace
/// but the newline, and whether it holds any other whitespace.
fn line_shape(rest: &[u8]) -> (usize, Option<usize>, bool) {
    let next = |from: usize| rest[from..].iter().position(|&c| is_space(c)).map_or(rest.len(), |k| from + k);
    let newline = |from: usize| rest[from..].iter().position(|&c| c == b'\n').map_or(rest.len(), |k| from + k);
    let a = next(0);
    match rest.get(a) {
        None | Some(b'\n') => (a, None, false),
        Some(b' ') => {
            let b = next(a + 1);
            match rest.get(b) {
                None | Some(b'\n') => (b, Some(a), false),
                _ => (newline(b), Some(a), true),
            }
        }
        _ => (newline(a), None, true),
    }
}

/// Where the reader is.
enum State {
    /// In the header: the tokens of the section read so far.
    Header { scopes: Vec<Vec<u8>>, section: Vec<Vec<u8>> },
    /// In the body; with `value`, a vector's or a real's value (in
    /// [`Selector::value`]) waits for its id.
    Body { value: bool },
    /// Inside a `$comment` of the body.
    Comment,
    /// Past the time limit.
    Done,
}

struct Selector<'a> {
    names: &'a [String],
    until: Option<u64>,
    /// Every id the header declares, with whether it is wanted. A change
    /// of an id the header does not declare (a garbled file) is left to
    /// the full read, which says so.
    ids: rustc_hash::FxHashMap<u128, bool>,
    /// Which of `names` the header declares.
    found: Vec<bool>,
    state: State,
    /// The last vector's or real's value token.
    value: Vec<u8>,
    out: Vec<u8>,
}

/// Read the VCD at `path` down to `names` (variables directly under scope
/// `TOP`) and, with `until`, to the times at or before it (file units).
/// None where this reader gives up: the caller reads the file whole.
pub(super) fn select(path: &Path, names: &[String], until: Option<u64>) -> std::io::Result<Option<Vec<u8>>> {
    let mut s = Selector {
        names,
        until,
        ids: Default::default(),
        found: vec![false; names.len()],
        state: State::Header { scopes: Vec::new(), section: Vec::new() },
        value: Vec::new(),
        out: Vec::new(),
    };
    let mut r = BufReader::with_capacity(1 << 20, std::fs::File::open(path)?);
    // A token never holds whitespace: a block is read up to its last
    // whitespace byte, and the rest starts the next one.
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        let Some(ws) = buf.iter().rposition(|&b| is_space(b)) else {
            carry.extend_from_slice(buf);
            r.consume(n);
            continue;
        };
        let ok = if carry.is_empty() {
            s.tokens(&buf[..=ws])
        } else {
            carry.extend_from_slice(&buf[..=ws]);
            let block = std::mem::take(&mut carry);
            s.tokens(&block)
        };
        carry.extend_from_slice(&buf[ws + 1..]);
        r.consume(n);
        if !ok {
            return Ok(None);
        }
        if matches!(s.state, State::Done) {
            break;
        }
    }
    if !matches!(s.state, State::Done) {
        carry.push(b'\n');
        if !s.tokens(&carry) {
            return Ok(None);
        }
    }
    // A header that never ended, or a name it does not declare: the
    // reader's own message says which.
    let header_read = matches!(s.state, State::Body { .. } | State::Comment | State::Done);
    Ok((header_read && s.found.iter().all(|&f| f)).then_some(s.out))
}

impl Selector<'_> {
    /// Take the whole tokens of `block`; false to give up. A line of the
    /// body as Verilator writes it (a time, or one value change) is taken
    /// whole ([`Selector::line_fast`]); any other line token by token.
    fn tokens(&mut self, block: &[u8]) -> bool {
        let n = block.len();
        let mut i = 0;
        while i < n {
            let (end, space, other) = line_shape(&block[i..]);
            let end = i + end;
            let fast = match self.state {
                State::Body { value: false } if !other => self.line_fast(&block[i..end], space),
                _ => None,
            };
            if !fast.unwrap_or_else(|| self.line_tokens(block, i, end)) {
                return false;
            }
            if matches!(self.state, State::Done) {
                return true;
            }
            i = end + 1;
        }
        if matches!(self.state, State::Header { .. }) {
            self.out.extend_from_slice(block);
        }
        true
    }

    /// Take `line`, whose only whitespace is the space at `space` if any,
    /// when it is a time or a single value change as Verilator writes them:
    /// Some(false) to give up, None to take it token by token.
    fn line_fast(&mut self, line: &[u8], space: Option<usize>) -> Option<bool> {
        match (line.first()?, space) {
            (b'#', None) => Some(self.body_token(line)),
            (b'0' | b'1' | b'x' | b'X' | b'z' | b'Z', None) if line.len() > 1 => Some(self.change(&line[1..], |s| s.line(line))),
            (b'b' | b'B' | b'r' | b'R', Some(sp)) if sp > 1 && sp + 1 < line.len() => Some(self.change(&line[sp + 1..], |s| s.line(line))),
            _ => None,
        }
    }

    /// Take the tokens of `block[from..to]` one by one; false to give up.
    fn line_tokens(&mut self, block: &[u8], from: usize, to: usize) -> bool {
        let mut i = from;
        while i < to {
            if is_space(block[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < to && !is_space(block[i]) {
                i += 1;
            }
            let in_header = matches!(self.state, State::Header { .. });
            if !self.token(&block[start..i]) {
                return false;
            }
            if in_header && !matches!(self.state, State::Header { .. }) {
                // The header's last token: the header is kept as written
                // (this block's part of it, up to here), and the body starts
                // on a line of its own.
                self.out.extend_from_slice(&block[..i]);
                self.out.push(b'\n');
            }
            if matches!(self.state, State::Done) {
                return true;
            }
        }
        true
    }

    fn token(&mut self, t: &[u8]) -> bool {
        match &mut self.state {
            State::Header { section, .. } => {
                section.push(t.to_vec());
                if t == b"$end" {
                    let section = std::mem::take(section);
                    return self.header_section(&section);
                }
                true
            }
            State::Comment => {
                if t == b"$end" {
                    self.state = State::Body { value: false };
                }
                true
            }
            State::Done => true,
            State::Body { value: true } => {
                self.state = State::Body { value: false };
                self.change(t, |s| {
                    s.out.extend_from_slice(&s.value);
                    s.out.push(b' ');
                    s.out.extend_from_slice(t);
                    s.out.push(b'\n');
                })
            }
            State::Body { value: false } => self.body_token(t),
        }
    }

    fn body_token(&mut self, t: &[u8]) -> bool {
        match t[0] {
            b'#' => {
                let digits = &t[1..];
                let time = digits.iter().try_fold(0u64, |a, &d| if d.is_ascii_digit() { a.checked_mul(10)?.checked_add(u64::from(d - b'0')) } else { None });
                let Some(time) = time.filter(|_| !digits.is_empty()) else { return false };
                if self.until.is_some_and(|u| time > u) {
                    self.state = State::Done;
                    return true;
                }
                self.line(t);
            }
            b'$' => match t {
                b"$comment" => self.state = State::Comment,
                b"$dumpvars" | b"$dumpall" | b"$dumpon" | b"$dumpoff" | b"$end" => self.line(t),
                _ => return false,
            },
            b'b' | b'B' | b'r' | b'R' | b's' | b'S' => {
                self.value.clear();
                self.value.extend_from_slice(t);
                self.state = State::Body { value: true };
            }
            b'0' | b'1' | b'x' | b'X' | b'z' | b'Z' | b'u' | b'U' | b'w' | b'W' | b'l' | b'L' | b'h' | b'H' | b'-' => {
                if t.len() < 2 || !self.change(&t[1..], |s| s.line(t)) {
                    return false;
                }
            }
            _ => return false,
        }
        true
    }

    fn line(&mut self, t: &[u8]) {
        self.out.extend_from_slice(t);
        self.out.push(b'\n');
    }

    /// A change of `id`: `keep` it if it is wanted; false (give up) for an
    /// id the header does not declare.
    fn change(&mut self, id: &[u8], keep: impl FnOnce(&mut Self)) -> bool {
        let Some(k) = key(id) else { return false };
        match self.ids.get(&k) {
            Some(&wanted) => {
                if wanted {
                    keep(self);
                }
                true
            }
            None => false,
        }
    }

    /// A whole section of the header (its tokens, `$end` last).
    fn header_section(&mut self, section: &[Vec<u8>]) -> bool {
        let State::Header { scopes, .. } = &mut self.state else { return false };
        match section[0].as_slice() {
            b"$scope" => match section.get(2) {
                Some(name) => scopes.push(name.clone()),
                None => return false,
            },
            b"$upscope" => {
                scopes.pop();
            }
            b"$var" => {
                // $var type size id reference [range] $end
                let (Some(id), Some(name)) = (section.get(3), section.get(4)) else { return false };
                let at_top = scopes.len() == 1 && scopes[0] == b"TOP";
                let mut wanted = false;
                for (k, n) in self.names.iter().enumerate() {
                    if at_top && n.as_bytes() == name.as_slice() {
                        self.found[k] = true;
                        wanted = true;
                    }
                }
                // An id too long for a key: its changes are left to the full read.
                let Some(key) = key(id) else { return !wanted };
                // An id declared twice (one signal in two places) is wanted if either is.
                *self.ids.entry(key).or_default() |= wanted;
            }
            b"$enddefinitions" => self.state = State::Body { value: false },
            _ => {}
        }
        true
    }
}

/// [`select`] of `bytes` written to a file.
#[cfg(test)]
fn select_bytes(bytes: &[u8], names: &[String], until: Option<u64>) -> Option<Vec<u8>> {
    let dir = std::env::temp_dir().join(format!("tpb-vcd-select-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("t.vcd");
    std::fs::write(&p, bytes).unwrap();
    let r = select(&p, names, until).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "$date today $end\n$timescale 1ps $end\n$scope module TOP $end\n$var wire 1 ! clk $end\n$var wire 8 # req_addr [7:0] $end\n\
                        $var real 64 r% temp $end\n$scope module tpb $end\n$var wire 1 & clk $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n";

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_body_keeps_times_keywords_and_the_wanted_ids_only() {
        let body = "#0\n$dumpvars\n0!\nb0 #\nr0.5 r%\n0&\n$end\n#5\n1!\n1&\n$comment b1 # $end\n#10\nb101 #\n0!\n#15\n1!\nb11\n#\n";
        let got = select_bytes(format!("{HEAD}{body}").as_bytes(), &names(&["req_addr"]), None).unwrap();
        let text = String::from_utf8(got).unwrap();
        let (head, rest) = text.split_at(text.find("$enddefinitions $end\n").unwrap() + 21);
        assert_eq!(head, HEAD, "the header as written");
        assert_eq!(rest, "#0\n$dumpvars\nb0 #\n$end\n#5\n#10\nb101 #\n#15\nb11 #\n", "a vector's id on the next line is still its id");
        let two = String::from_utf8(select_bytes(format!("{HEAD}{body}").as_bytes(), &names(&["clk", "temp"]), Some(5)).unwrap()).unwrap();
        assert!(two.ends_with("$enddefinitions $end\n#0\n$dumpvars\n0!\nr0.5 r%\n$end\n#5\n1!\n"), "only TOP's clk, and nothing past the limit: {two}");
    }

    #[test]
    fn what_the_reader_does_not_know_is_left_to_the_full_read() {
        let n = names(&["clk"]);
        assert!(select_bytes(format!("{HEAD}#0\n0!\n").as_bytes(), &n, None).is_some());
        assert_eq!(select_bytes(format!("{HEAD}#0\n$dumpfoo\n").as_bytes(), &n, None), None, "an unknown keyword");
        assert_eq!(select_bytes(format!("{HEAD}#0\n?!\n").as_bytes(), &n, None), None, "no value change");
        assert_eq!(select_bytes(format!("{HEAD}#x\n").as_bytes(), &n, None), None, "no time");
        assert_eq!(select_bytes(format!("{HEAD}#0\n1~\n").as_bytes(), &n, None), None, "an id the header does not declare");
        assert_eq!(select_bytes(format!("{HEAD}#0\nb1\n~\n").as_bytes(), &n, None), None, "the same, a vector's");
        assert_eq!(select_bytes(HEAD.replace("$enddefinitions $end\n", "").as_bytes(), &n, None), None, "a header that never ends");
        assert_eq!(select_bytes(format!("{HEAD}#0\n0!\n").as_bytes(), &names(&["nowhere"]), None), None, "a name the header lacks");
    }
}
