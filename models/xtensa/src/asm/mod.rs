//! A two-pass assembler for the instruction table: labels, `.org`,
//! `.align`, `.word`, `.short`, `.byte`, `.space`, `.equ`; expressions with
//! GNU `as`'s operators and precedence (`asm/expr.rs`); comments with
//! `#`, `;` or `//`; `.include` and `.macro` expanded first by
//! [`source::assemble_source`]. Operands are written as the disassembler prints them
//! (targets are absolute addresses or labels), so text ⇄ bytes round-trips.
//!
//! ```
//! use tpb_xtensa::{asm::assemble, Options};
//! let p = assemble("start: movi a2, 5\n j start\n", 0x100, &Options::tpb()).unwrap();
//! assert_eq!(p.bytes, [0x22, 0xa0, 0x05, 0x46, 0xfe, 0xff]); // j back by 7 bytes
//! ```

mod expr;
pub mod source;

use super::config::{sr, Options};
use super::isa::{Def, Opnd, B4CONST, B4CONSTU, TABLE};
use std::collections::BTreeMap;

/// An assembly error: 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    pub line: usize,
    pub message: String,
}

/// Assembled bytes starting at `base`, and the labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub base: u32,
    pub bytes: Vec<u8>,
    pub labels: BTreeMap<String, u32>,
}

enum Item<'a> {
    Insn { def: &'static Def, sr: Option<u8>, ops: Vec<&'a str> },
    Data { size: usize, values: Vec<&'a str> },
    Pad(usize),
}

struct Stmt<'a> {
    line: usize,
    addr: u32,
    item: Item<'a>,
}

/// `l` up to its comment: the first `#`, `;` or `//`. One pass over the
/// bytes (every line of a source and its prelude goes through here).
fn strip_comment(l: &str) -> &str {
    let b = l.as_bytes();
    let end = (0..b.len()).find(|&i| matches!(b[i], b'#' | b';') || (b[i] == b'/' && b.get(i + 1) == Some(&b'/'))).unwrap_or(b.len());
    &l[..end]
}

/// The value of `expr` (see [`expr`] for the operators).
fn eval(expr: &str, syms: &BTreeMap<String, u32>, consts: &expr::Consts, here: u32) -> Result<i64, String> {
    expr::eval(expr, &expr::Env { labels: syms, consts, here })
}

fn find_def(mnem: &str, opts: &Options) -> Result<(&'static Def, Option<u8>), String> {
    let (base, srn) = match mnem.split_once('.') {
        Some((b @ ("rsr" | "wsr" | "xsr"), name)) => {
            let n = sr::number(name).or_else(|| name.parse::<u8>().ok()).ok_or_else(|| format!("unknown special register '{name}'"))?;
            (b, Some(n))
        }
        _ => (mnem, None),
    };
    let mut known = false;
    for d in TABLE {
        if d.mnem == base {
            known = true;
            if d.feat.enabled(opts) {
                return Ok((d, srn));
            }
        }
    }
    if known {
        Err(format!("'{base}' needs an ISA option this core does not have"))
    } else {
        Err(format!("unknown instruction '{mnem}'"))
    }
}

fn reg(s: &str) -> Result<i64, String> {
    let s = s.trim();
    s.strip_prefix('a').and_then(|n| n.parse::<i64>().ok()).filter(|n| (0..16).contains(n)).ok_or_else(|| format!("expected a register a0..a15, got '{s}'"))
}

fn range(v: i64, lo: i64, hi: i64, step: i64, what: &str) -> Result<u32, String> {
    if v < lo || v > hi || v.rem_euclid(step) != 0 {
        let m = if step > 1 { format!(", a multiple of {step}") } else { String::new() };
        return Err(format!("{what} {v} out of range {lo}..={hi}{m}"));
    }
    Ok(v as u32)
}

/// Field bits of operand `o` with value `v` for an instruction at `pc`.
pub(crate) fn encode_operand(o: Opnd, v: i64, pc: u32) -> Result<u32, String> {
    let pc = pc as i64;
    let is_target = matches!(o, Opnd::Rel8 | Opnd::Rel12 | Opnd::Rel18 | Opnd::Call | Opnd::L32r | Opnd::Loop | Opnd::RelN6);
    // A 32-bit hex literal of a signed immediate (as objdump prints -1 = 0xffffffff).
    let v = if !is_target && (0x8000_0000..=0xffff_ffff).contains(&v) { v - (1 << 32) } else { v };
    Ok(match o {
        Opnd::Ar | Opnd::R4 => range(v, 0, 15, 1, "field")? << 12,
        Opnd::As | Opnd::S4 => range(v, 0, 15, 1, "field")? << 8,
        Opnd::At | Opnd::T4 => range(v, 0, 15, 1, "field")? << 4,
        Opnd::S8 => (range(v, -128, 127, 1, "immediate")? & 0xff) << 16,
        Opnd::S8x256 => ((range(v, -32768, 32512, 256, "immediate")? >> 8) & 0xff) << 16,
        Opnd::U8(sh) => (range(v, 0, 255 << sh, 1 << sh, "offset")? >> sh) << 16,
        Opnd::Movi12 => {
            let u = range(v, -2048, 2047, 1, "immediate")?;
            ((u >> 8) & 0xf) << 8 | (u & 0xff) << 16
        }
        Opnd::Rotw => (range(v, -8, 7, 1, "rotation")? & 0xf) << 4,
        Opnd::B4 => (B4CONST.iter().position(|&c| c as i64 == v).ok_or(format!("{v} is not a B4CONST value {B4CONST:?}"))? as u32) << 12,
        Opnd::B4u => (B4CONSTU.iter().position(|&c| c as i64 == v).ok_or(format!("{v} is not a B4CONSTU value {B4CONSTU:?}"))? as u32) << 12,
        Opnd::Bbi => {
            let b = range(v, 0, 31, 1, "bit")?;
            (b >> 4) << 12 | (b & 0xf) << 4
        }
        Opnd::Slli => {
            let e = (32 - range(v, 1, 32, 1, "shift")?) & 31;
            (e >> 4) << 20 | (e & 0xf) << 4
        }
        Opnd::Srai => {
            let e = range(v, 0, 31, 1, "shift")?;
            (e >> 4) << 20 | (e & 0xf) << 8
        }
        Opnd::Srli => range(v, 0, 15, 1, "shift")? << 8,
        Opnd::Ssai => {
            let e = range(v, 0, 31, 1, "shift")?;
            (e & 0xf) << 8 | (e >> 4) << 4
        }
        Opnd::ExtuiShift => {
            let e = range(v, 0, 31, 1, "shift")?;
            (e & 0xf) << 8 | (e >> 4) << 16
        }
        Opnd::ExtuiMask => (range(v, 1, 16, 1, "mask width")? - 1) << 20,
        Opnd::T7 => (range(v, 7, 22, 1, "bit")? - 7) << 4,
        Opnd::L32e => ((range(v, -64, -4, 4, "offset")? as i64 + 64) as u32 >> 2) << 12,
        Opnd::Entry => (range(v, 0, 32760, 8, "frame size")? >> 3) << 12,
        Opnd::U16 => range(v, 0, 65535, 1, "immediate")? << 8,
        Opnd::Sr => range(v, 0, 255, 1, "special register")? << 8,
        Opnd::R4x4 => (range(v, 0, 60, 4, "offset")? >> 2) << 12,
        Opnd::AddiN => {
            let e = if v == -1 { 0 } else { range(v, 1, 15, 1, "immediate")? };
            e << 4
        }
        Opnd::MoviN => {
            let e = range(v, -32, 95, 1, "immediate")? & 0x7f;
            (e >> 4) << 4 | (e & 0xf) << 12
        }
        Opnd::Rel8 => (range(v - (pc + 4), -128, 127, 1, "branch offset")? & 0xff) << 16,
        Opnd::Rel12 => (range(v - (pc + 4), -2048, 2047, 1, "branch offset")? & 0xfff) << 12,
        Opnd::Rel18 => (range(v - (pc + 4), -131072, 131071, 1, "jump offset")? & 0x3ffff) << 6,
        Opnd::Call => {
            let d = v - ((pc & !3) + 4);
            (range(d, -(131072 * 4), 131071 * 4, 4, "call offset")? >> 2 & 0x3ffff) << 6
        }
        Opnd::L32r => {
            let d = v - ((pc + 3) & !3);
            (range(d, -262144, -4, 4, "literal offset (L32R reaches backwards only)")? >> 2 & 0xffff) << 8
        }
        Opnd::Loop => range(v - (pc + 4), 0, 255, 1, "loop end offset")? << 16,
        Opnd::RelN6 => {
            let e = range(v - (pc + 4), 0, 63, 1, "branch offset")?;
            (e & 0xf) << 12 | (e >> 4) << 4
        }
    })
}

/// Split operands on commas at top level.
fn split_ops(s: &str) -> Vec<&str> {
    let s = s.trim();
    if s.is_empty() {
        return vec![];
    }
    s.split(',').map(str::trim).collect()
}

/// Assemble `src` at `base`.
pub fn assemble(src: &str, base: u32, opts: &Options) -> Result<Program, AsmError> {
    let mut labels = BTreeMap::new();
    // Looked up by name only: a prelude defines some thousands.
    let mut consts = expr::Consts::default();
    let mut stmts = Vec::new();
    let mut addr = base;
    for (n, raw) in src.lines().enumerate() {
        let line = n + 1;
        let err = |m: String| AsmError { line, message: m };
        let mut l = strip_comment(raw).trim();
        while let Some(i) = l.find(':') {
            let name = l[..i].trim();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') || name.contains(' ') {
                break;
            }
            if labels.insert(name.to_string(), addr).is_some() {
                return Err(err(format!("label '{name}' defined twice")));
            }
            l = l[i + 1..].trim();
        }
        if l.is_empty() {
            continue;
        }
        let (head, rest) = match l.find(char::is_whitespace) {
            Some(i) => (&l[..i], l[i..].trim()),
            None => (l, ""),
        };
        let here = addr;
        let ev = |e: &str| eval(e, &labels, &consts, here).map_err(&err);
        let item = match head {
            ".org" => {
                let to = ev(rest)? as u32;
                if to < addr {
                    return Err(err(format!(".org {to:#x} is behind the current address {addr:#x}")));
                }
                Item::Pad((to - addr) as usize)
            }
            ".align" => {
                let a = ev(rest)?;
                if a <= 0 || a & (a - 1) != 0 {
                    return Err(err(format!(".align {a}: not a power of two")));
                }
                let a = a as u32;
                Item::Pad(((a - addr % a) % a) as usize)
            }
            ".space" | ".skip" => Item::Pad(ev(rest)? as usize),
            ".word" | ".long" => Item::Data { size: 4, values: split_ops(rest) },
            ".short" | ".half" => Item::Data { size: 2, values: split_ops(rest) },
            ".byte" => Item::Data { size: 1, values: split_ops(rest) },
            ".equ" | ".set" => {
                // Two operands, as `split_ops` reads them, without its vector.
                let Some((name, value)) = rest.split_once(',').filter(|(_, v)| !v.contains(',')) else {
                    return Err(err(format!("{head} needs NAME, VALUE")));
                };
                let v = ev(value.trim())?;
                consts.insert(name.trim(), v);
                continue;
            }
            ".text" | ".global" | ".globl" => continue,
            d if d.starts_with('.') && !d.contains(|c: char| c.is_ascii_digit()) && d.len() > 1 && !d[1..].contains('.') => return Err(err(format!("unknown directive '{d}'"))),
            m => {
                let mut mnem = m.to_ascii_lowercase();
                let mut ops = split_ops(rest);
                // `mov ar, as`: GNU as's alias of `or ar, as, as`.
                if mnem == "mov" && ops.len() == 2 {
                    ops.push(ops[1]);
                    mnem = "or".into();
                }
                let (def, srn) = find_def(&mnem, opts).map_err(&err)?;
                let want = def.ops.iter().filter(|o| **o != Opnd::Sr).count();
                if ops.len() != want {
                    return Err(err(format!("'{mnem}' takes {want} operand(s), got {}", ops.len())));
                }
                if def.ops.contains(&Opnd::Sr) && srn.is_none() {
                    return Err(err(format!("'{mnem}' needs a special register: {mnem}.<name>")));
                }
                Item::Insn { def, sr: srn, ops }
            }
        };
        let size = match &item {
            Item::Insn { def, .. } => def.len as usize,
            Item::Data { size, values } => size * values.len(),
            Item::Pad(n) => *n,
        };
        stmts.push(Stmt { line, addr, item });
        addr = addr.checked_add(size as u32).ok_or(AsmError { line, message: "address overflows 32 bits".into() })?;
    }
    let mut bytes = Vec::with_capacity((addr - base) as usize);
    for st in &stmts {
        let err = |m: String| AsmError { line: st.line, message: m };
        let ev = |e: &str| eval(e, &labels, &consts, st.addr).map_err(&err);
        match &st.item {
            Item::Pad(n) => bytes.extend(std::iter::repeat_n(0u8, *n)),
            Item::Data { size, values } => {
                for v in values {
                    let x = ev(v)?;
                    let lim = if *size == 4 { 1i64 << 32 } else { 1i64 << (8 * size) };
                    if x >= lim || x < -(lim / 2) {
                        return Err(err(format!("value {x} does not fit in {size} byte(s)")));
                    }
                    bytes.extend_from_slice(&(x as u64).to_le_bytes()[..*size]);
                }
            }
            Item::Insn { def, sr: srn, ops } => {
                let mut word = def.bits;
                let mut k = 0;
                for &o in def.ops {
                    let v = match o {
                        Opnd::Sr => srn.unwrap_or(0) as i64,
                        Opnd::Ar | Opnd::As | Opnd::At => {
                            let v = reg(ops[k]).map_err(&err)?;
                            k += 1;
                            v
                        }
                        _ => {
                            let v = ev(ops[k])?;
                            k += 1;
                            v
                        }
                    };
                    let bits = encode_operand(o, v, st.addr).map_err(|m| err(format!("'{}': {m}", def.mnem)))?;
                    word |= bits;
                }
                if word & def.mask != def.bits {
                    return Err(err(format!("'{}': operands collide with the opcode fields", def.mnem)));
                }
                bytes.extend_from_slice(&word.to_le_bytes()[..def.len as usize]);
            }
        }
    }
    Ok(Program { base, bytes, labels })
}

#[cfg(test)]
mod tests {
    use super::strip_comment;

    #[test]
    fn a_comment_starts_at_the_first_hash_semicolon_or_double_slash() {
        for (line, code) in [
            ("movi a2, 1 # one", "movi a2, 1 "),
            ("movi a2, 1 ; one # two", "movi a2, 1 "),
            ("movi a2, 8 / 2 // half", "movi a2, 8 / 2 "),
            ("movi a2, 8 / 2", "movi a2, 8 / 2"),
            ("// all of it", ""),
            ("x: .word 1 ;", "x: .word 1 "),
            ("été: # non-ASCII before the comment", "été: "),
            ("ends in a slash /", "ends in a slash /"),
            ("", ""),
        ] {
            assert_eq!(strip_comment(line), code, "{line:?}");
        }
    }

    /// `.equ` and `.set` take exactly NAME, VALUE, the value read where it
    /// stands (a comment after it is no part of it).
    #[test]
    fn an_equ_is_a_name_and_a_value() {
        let asm = |src: &str| super::assemble(src, 0, &crate::config::Options::tpb());
        let p = asm(".equ A, 2 + 3 # five\n.set B,A*2\n.word A, B\n").unwrap();
        assert_eq!(p.bytes, [5, 0, 0, 0, 10, 0, 0, 0]);
        for (src, want) in [(".equ A", ".equ needs NAME, VALUE"), (".set A, 1, 2", ".set needs NAME, VALUE"), (".equ", ".equ needs NAME, VALUE"), (".equ A,", "missing operand")] {
            let e = asm(src).unwrap_err();
            assert_eq!((e.line, e.message.as_str()), (1, want), "{src}");
        }
    }
}
