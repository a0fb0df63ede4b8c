//! Assembly sources made of files and macros: `.include "file"` and
//! `.macro` / `.endm` (GNU as syntax), expanded before the two passes of
//! [`super::assemble`]; an error names the file and line it came from.
//!
//! ```text
//! .include "tpb.inc"                 # the generation's names (a prelude the caller supplies)
//! .macro sem_inc base, idx, by=1     # parameters, with defaults
//!     const16 a8, \base\()_HI        # \name is a parameter, \() ends one before text
//!     const16 a8, \base\()_LO
//!     movi a9, \by
//!     s32i a9, a8, \idx * 4           # expressions: GNU as operators (asm/expr.rs)
//! .endm
//! loop\@:                            # \@ counts macro expansions: labels unique per use
//! ```
//!
//! Macros may call macros (up to [`MAX_DEPTH`] deep); includes may nest (up
//! to [`MAX_DEPTH`]) and a file that includes itself is refused. Where an
//! include comes from is the caller's ([`Includes`]): files next to the
//! including file, and built-in preludes by name.

use super::{assemble, AsmError, Program};
use crate::config::Options;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::rc::Rc;

/// How deep includes and macro calls may nest.
pub const MAX_DEPTH: usize = 32;

/// Where `.include` text comes from: `(name as written, the including
/// file)` → (the file's name for messages, its text).
pub type Includes<'a> = dyn FnMut(&str, &str) -> Result<(String, String), String> + 'a;

/// An error in a source file: the file, its 1-based line and column, what
/// is wrong (`file:line:column: message`, as compilers print it, so an
/// editor jumps there).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct SourceError {
    pub file: String,
    pub line: usize,
    /// 1-based: where the name the message quotes ('X') starts, else the statement.
    pub column: usize,
    pub message: String,
}

/// The column an error on `text` points at: the first name the message
/// quotes ('X') where the line has it, else the statement's first character.
fn column_of(text: &str, message: &str) -> usize {
    let code = super::strip_comment(text);
    let quoted = message.split('\'').nth(1).filter(|q| !q.is_empty());
    let at = quoted.and_then(|q| code.find(q)).unwrap_or_else(|| code.len() - code.trim_start().len());
    text[..at].chars().count() + 1
}

/// A line of a source: its file, its 1-based number there, its text (a
/// file's own, or a macro body's with the arguments in place).
struct Line<'t> {
    file: Rc<str>,
    line: usize,
    text: Cow<'t, str>,
}

struct Macro {
    params: Vec<(String, Option<String>)>,
    body: Vec<Line<'static>>,
}

/// The expanded text, a line each, and for each line the file and line it came from.
struct Expanded {
    text: String,
    origin: Vec<(Rc<str>, usize)>,
}

/// Assemble `text` (named `file`) at `base`, its includes from `includes`.
pub fn assemble_source(file: &str, text: &str, base: u32, opts: &Options, includes: &mut Includes) -> Result<Program, SourceError> {
    let mut x = Expander { macros: BTreeMap::new(), includes, uses: 0, out: Expanded { text: String::new(), origin: Vec::new() }, stack: Vec::new() };
    x.file(file, text, 0)?;
    let out = x.out;
    assemble(&out.text, base, opts).map_err(|AsmError { line, message }| {
        let text = out.text.lines().nth(line.wrapping_sub(1)).unwrap_or("");
        let column = column_of(text, &message);
        let (file, line) = out.origin.get(line.wrapping_sub(1)).map_or_else(|| (file.to_string(), line), |(f, l)| (f.to_string(), *l));
        SourceError { file, line, column, message }
    })
}

struct Expander<'a, 'b> {
    macros: BTreeMap<String, Macro>,
    includes: &'a mut Includes<'b>,
    uses: u64,
    out: Expanded,
    /// Files being read (an include cycle check).
    stack: Vec<String>,
}

fn first_word(l: &str) -> (&str, &str) {
    let l = l.trim();
    match l.find(char::is_whitespace) {
        Some(i) => (&l[..i], l[i..].trim()),
        None => (l, ""),
    }
}

impl Expander<'_, '_> {
    fn file(&mut self, name: &str, text: &str, depth: usize) -> Result<(), SourceError> {
        if self.stack.iter().any(|f| f == name) {
            return Err(SourceError { file: name.into(), line: 1, column: 1, message: format!("includes itself (through {})", self.stack.join(" → ")) });
        }
        self.stack.push(name.to_string());
        let file: Rc<str> = name.into();
        let lines: Vec<Line> = text.lines().enumerate().map(|(i, l)| Line { file: file.clone(), line: i + 1, text: Cow::Borrowed(l) }).collect();
        self.lines(&lines, depth)?;
        self.stack.pop();
        Ok(())
    }

    fn lines(&mut self, lines: &[Line], depth: usize) -> Result<(), SourceError> {
        let mut k = 0;
        while k < lines.len() {
            let Line { file, line, text } = &lines[k];
            let err = |m: String| SourceError { file: file.to_string(), line: *line, column: column_of(text, &m), message: m };
            let code = super::strip_comment(text);
            let (head, rest) = first_word(code);
            match head {
                ".include" => {
                    let want = rest.trim().strip_prefix('"').and_then(|r| r.strip_suffix('"')).ok_or_else(|| err(".include \"file\" (a quoted name)".into()))?;
                    if depth >= MAX_DEPTH {
                        return Err(err(format!("includes nest deeper than {MAX_DEPTH}")));
                    }
                    let (name, body) = (self.includes)(want, file).map_err(|m| err(format!(".include \"{want}\": {m}")))?;
                    self.file(&name, &body, depth + 1)?;
                }
                ".macro" => {
                    let (name, params) = first_word(rest);
                    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                        return Err(err(format!(".macro needs a name, got '{name}'")));
                    }
                    let params = params
                        .split(|c: char| c == ',' || c.is_whitespace())
                        .filter(|p| !p.is_empty())
                        .map(|p| match p.split_once('=') {
                            Some((n, d)) => (n.trim().to_string(), Some(d.trim().to_string())),
                            None => (p.to_string(), None),
                        })
                        .collect();
                    let end =
                        lines[k + 1..].iter().position(|l| first_word(super::strip_comment(&l.text)).0 == ".endm").ok_or_else(|| err(format!(".macro {name} has no .endm")))?;
                    let body = lines[k + 1..k + 1 + end].iter().map(|l| Line { file: l.file.clone(), line: l.line, text: Cow::Owned(l.text.to_string()) }).collect();
                    if self.macros.insert(name.to_string(), Macro { params, body }).is_some() {
                        return Err(err(format!("macro '{name}' defined twice")));
                    }
                    k += end + 1;
                }
                ".endm" => return Err(err(".endm without .macro".into())),
                _ if self.macros.contains_key(head) => {
                    if depth >= MAX_DEPTH {
                        return Err(err(format!("macro calls nest deeper than {MAX_DEPTH} (a macro that calls itself?)")));
                    }
                    let body = self.expand(head, rest).map_err(err)?;
                    self.lines(&body, depth + 1)?;
                }
                _ => {
                    self.out.text.push_str(text);
                    self.out.text.push('\n');
                    self.out.origin.push((file.clone(), *line));
                }
            }
            k += 1;
        }
        Ok(())
    }

    /// A macro call's body with its arguments in place.
    fn expand(&mut self, name: &str, args: &str) -> Result<Vec<Line<'static>>, String> {
        let m = &self.macros[name];
        let given: Vec<&str> = if args.trim().is_empty() { Vec::new() } else { args.split(',').map(str::trim).collect() };
        if given.len() > m.params.len() {
            return Err(format!("macro '{name}' takes {} argument(s), got {}", m.params.len(), given.len()));
        }
        let mut values = Vec::new();
        for (i, (p, default)) in m.params.iter().enumerate() {
            match given.get(i).filter(|g| !g.is_empty()).map(|g| g.to_string()).or_else(|| default.clone()) {
                Some(v) => values.push((p.clone(), v)),
                None => return Err(format!("macro '{name}': no value for '{p}'")),
            }
        }
        // Longest names first, so \ab is not read as \a then b.
        values.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        let uses = self.uses;
        self.uses += 1;
        Ok(m.body
            .iter()
            .map(|Line { file, line, text }| {
                let mut t = text.replace("\\@", &uses.to_string());
                for (p, v) in &values {
                    t = t.replace(&format!("\\{p}"), v);
                }
                Line { file: file.clone(), line: *line, text: Cow::Owned(t.replace("\\()", "")) }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(name: &str, _from: &str) -> Result<(String, String), String> {
        match name {
            "consts.inc" => Ok(("consts.inc".into(), ".equ FIVE, 5\n.macro put reg, v=FIVE\n movi \\reg, \\v\n.endm\n".into())),
            "loop.inc" => Ok(("loop.inc".into(), ".include \"loop.inc\"\n".into())),
            _ => Err("no such file".into()),
        }
    }

    fn asm(text: &str) -> Result<Program, SourceError> {
        assemble_source("main.S", text, 0, &Options::tpb(), &mut files)
    }

    #[test]
    fn includes_and_macros_expand_to_what_the_plain_text_assembles_to() {
        let p = asm(".include \"consts.inc\"\n put a2\n put a3, 7\n j .\n").unwrap();
        let plain = assemble(" movi a2, 5\n movi a3, 7\n j .\n", 0, &Options::tpb()).unwrap();
        assert_eq!(asm(".equ N, 3\n movi a2, N * 4 + 1\n").unwrap().bytes, assemble(" movi a2, 13\n", 0, &Options::tpb()).unwrap().bytes, "products in expressions");
        assert_eq!(p.bytes, plain.bytes);
        assert_eq!(asm(" mov a3, a4\n").unwrap().bytes, assemble(" or a3, a4, a4\n", 0, &Options::tpb()).unwrap().bytes, "mov is or's alias");
        let twice = asm(".macro spin\nw\\@: j w\\@\n.endm\n spin\n spin\n").unwrap();
        assert_eq!(twice.labels.keys().collect::<Vec<_>>(), ["w0", "w1"], "\\@ makes each use's labels its own");
    }

    #[test]
    fn errors_name_the_file_and_line_they_come_from() {
        let e = asm(".include \"consts.inc\"\n put a2, nowhere\n").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("consts.inc", 3), "the bad operand is on the macro body's line: {e}");
        assert!(e.message.contains("nowhere"), "{e}");
        let e = asm("nop\n.include \"missing.inc\"\n").unwrap_err();
        assert_eq!(e.to_string(), "main.S:2:1: .include \"missing.inc\": no such file");
        assert!(asm(".include \"loop.inc\"\n").unwrap_err().message.contains("includes itself"));
        assert!(asm(".macro m\n nop\n").unwrap_err().message.contains("no .endm"));
        assert!(asm(".macro m a\n movi a2, \\a\n.endm\n m\n").unwrap_err().message.contains("no value for 'a'"));
        assert!(asm(".macro r\n r\n.endm\n r\n").unwrap_err().message.contains("deeper than"));
        assert_eq!(asm("nop\n nop\n movi a2\n").unwrap_err().to_string(), "main.S:3:2: 'movi' takes 2 operand(s), got 1");
        // The column is the name the message quotes, where the line has it.
        assert_eq!(asm("nop\n    movi a2, NOPE + 1  # c\n").unwrap_err().to_string(), "main.S:2:14: unknown symbol 'NOPE'");
    }
}
