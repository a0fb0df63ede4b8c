//! Expressions of the assembler: numbers, labels, `.equ` constants and `.`
//! (the current address), with GNU `as` operators and precedence, so a
//! source reads the same to both assemblers:
//!
//! | precedence | operators |
//! |---|---|
//! | highest (prefix) | `-` `~` `+` |
//! | high | `*` `/` `%` `<<` `>>` |
//! | middle | `\|` `&` `^` |
//! | low | `+` `-` |
//!
//! Operators of one level group left to right; parentheses group. Values
//! are 64-bit signed; a result that overflows, a division by zero or a
//! shift past 63 is an error naming the expression.

use std::collections::BTreeMap;

/// The constants of `.equ`/`.set` by name, borrowed from the source.
pub type Consts<'s> = rustc_hash::FxHashMap<&'s str, i64>;

/// What a name in an expression can mean.
pub(crate) struct Env<'a> {
    pub labels: &'a BTreeMap<String, u32>,
    pub consts: &'a Consts<'a>,
    /// The current address (`.`).
    pub here: u32,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i64),
    Name(String),
    Op(&'static str),
    Open,
    Close,
}

const OPS: [&str; 11] = ["<<", ">>", "*", "/", "%", "|", "&", "^", "+", "-", "~"];

fn lex(e: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let b = e.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' {
            out.push(if c == '(' { Tok::Open } else { Tok::Close });
            i += 1;
        } else if let Some(op) = OPS.iter().find(|op| e[i..].starts_with(**op)) {
            out.push(Tok::Op(op));
            i += op.len();
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$' {
            let start = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.' || b[i] == b'$') {
                i += 1;
            }
            let word = &e[start..i];
            out.push(match number(word) {
                Some(v) => Tok::Num(v),
                None if c.is_ascii_digit() => return Err(format!("'{word}' is not a number")),
                None => Tok::Name(word.to_string()),
            });
        } else {
            return Err(format!("unexpected '{c}' in '{e}'"));
        }
    }
    Ok(out)
}

/// A decimal, `0x` hexadecimal or `0b` binary literal.
fn number(w: &str) -> Option<i64> {
    if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(h) = w.strip_prefix("0b").or_else(|| w.strip_prefix("0B")) {
        i64::from_str_radix(h, 2).ok()
    } else {
        w.parse::<i64>().ok()
    }
}

struct Parser<'a, 'e> {
    toks: Vec<Tok>,
    at: usize,
    env: &'a Env<'e>,
    text: &'a str,
}

impl Parser<'_, '_> {
    fn peek_op(&self, level: &[&str]) -> Option<&'static str> {
        match self.toks.get(self.at) {
            Some(Tok::Op(op)) if level.contains(op) => Some(op),
            _ => None,
        }
    }
    fn overflow(&self) -> String {
        format!("'{}' overflows", self.text)
    }
    /// One precedence level (0 lowest): operands of the next level joined by this level's operators.
    fn level(&mut self, n: usize) -> Result<i64, String> {
        const LEVELS: [&[&str]; 3] = [&["+", "-"], &["|", "&", "^"], &["*", "/", "%", "<<", ">>"]];
        if n == LEVELS.len() {
            return self.unary();
        }
        let mut v = self.level(n + 1)?;
        while let Some(op) = self.peek_op(LEVELS[n]) {
            self.at += 1;
            let r = self.level(n + 1)?;
            v = self.apply(op, v, r)?;
        }
        Ok(v)
    }
    fn apply(&self, op: &str, a: i64, b: i64) -> Result<i64, String> {
        let shift = |b: i64| u32::try_from(b).ok().filter(|b| *b < 64).ok_or_else(|| format!("'{}': shift by {b}", self.text));
        match op {
            "+" => a.checked_add(b).ok_or_else(|| self.overflow()),
            "-" => a.checked_sub(b).ok_or_else(|| self.overflow()),
            "*" => a.checked_mul(b).ok_or_else(|| self.overflow()),
            "/" | "%" if b == 0 => Err(format!("'{}' divides by zero", self.text)),
            "/" => Ok(a / b),
            "%" => Ok(a % b),
            "<<" => a.checked_shl(shift(b)?).ok_or_else(|| self.overflow()),
            ">>" => Ok(a >> shift(b)?),
            "|" => Ok(a | b),
            "&" => Ok(a & b),
            _ => Ok(a ^ b),
        }
    }
    fn unary(&mut self) -> Result<i64, String> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        match t {
            Some(Tok::Op("-")) => self.unary()?.checked_neg().ok_or_else(|| self.overflow()),
            Some(Tok::Op("~")) => Ok(!self.unary()?),
            Some(Tok::Op("+")) => self.unary(),
            Some(Tok::Num(v)) => Ok(v),
            Some(Tok::Name(n)) => self.name(&n),
            Some(Tok::Open) => {
                let v = self.level(0)?;
                match self.toks.get(self.at) {
                    Some(Tok::Close) => {
                        self.at += 1;
                        Ok(v)
                    }
                    _ => Err(format!("'{}': a '(' without its ')'", self.text)),
                }
            }
            _ => Err(if self.text.trim().is_empty() { "missing operand".into() } else { format!("bad expression '{}'", self.text) }),
        }
    }
    fn name(&self, n: &str) -> Result<i64, String> {
        if n == "." {
            Ok(i64::from(self.env.here))
        } else if let Some(v) = self.env.consts.get(n) {
            Ok(*v)
        } else if let Some(v) = self.env.labels.get(n) {
            Ok(i64::from(*v))
        } else {
            Err(format!("unknown symbol '{n}'"))
        }
    }
}

/// The value of `text` in `env`.
pub(crate) fn eval(text: &str, env: &Env) -> Result<i64, String> {
    // Most expressions are one literal or one name (a prelude's thousands
    // of `.equ`s): those need no tokens. Anything else, or a word that is
    // neither, takes the parser (and its messages).
    let t = text.trim();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$';
    if !t.is_empty() && t.bytes().all(word) {
        let v = if t.as_bytes()[0].is_ascii_digit() { number(t).ok_or(()) } else { Parser { toks: Vec::new(), at: 0, env, text: t }.name(t).map_err(|_| ()) };
        if let Ok(v) = v {
            return Ok(v);
        }
    }
    let mut p = Parser { toks: lex(text)?, at: 0, env, text: text.trim() };
    let v = p.level(0)?;
    if p.at < p.toks.len() {
        return Err(format!("bad expression '{}'", p.text));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> Result<i64, String> {
        let labels = BTreeMap::from([("main".to_string(), 0x200u32)]);
        let consts = Consts::from_iter([("X", 0x1234_5678i64), ("IDX", 3)]);
        eval(s, &Env { labels: &labels, consts: &consts, here: 0x40 })
    }

    #[test]
    fn gnu_as_precedence_and_grouping() {
        assert_eq!(ev("X >> 16"), Ok(0x1234));
        assert_eq!(ev("X & 0xffff"), Ok(0x5678));
        assert_eq!(ev("1 + 2 * 3"), Ok(7));
        // GNU as: & binds tighter than +, looser than <<.
        assert_eq!(ev("1 + 6 & 3"), Ok(3));
        assert_eq!(ev("(1 + 6) & 3"), Ok(3));
        assert_eq!(ev("(1 + 7) & 3"), Ok(0));
        assert_eq!(ev("1 << 4 | 1"), Ok(17));
        assert_eq!(ev("10 - 2 - 3"), Ok(5));
        assert_eq!(ev("-IDX * 4"), Ok(-12));
        assert_eq!(ev("~0 & 0xff"), Ok(0xff));
        assert_eq!(ev("main + IDX * 4 - ."), Ok(0x200 + 12 - 0x40));
        assert_eq!(ev("0b101 ^ 1"), Ok(4));
        assert_eq!(ev("17 % 5 / 2"), Ok(1));
    }

    #[test]
    fn bad_expressions_say_why() {
        assert!(ev("1 / 0").unwrap_err().contains("divides by zero"));
        assert!(ev("1 << 64").unwrap_err().contains("shift by 64"));
        assert!(ev("(1 + 2").unwrap_err().contains("without its ')'"));
        assert!(ev("1 +").unwrap_err().contains("bad expression"));
        assert!(ev("NOPE + 1").unwrap_err().contains("unknown symbol 'NOPE'"));
        assert!(ev("12ab").unwrap_err().contains("not a number"));
        assert!(ev("0x7fffffffffffffff * 2").unwrap_err().contains("overflows"));
        assert_eq!(ev(""), Err("missing operand".into()));
    }
}
