//! Disassembly in the syntax of GNU objdump (`mnemonic\top, op`), targets
//! printed as absolute addresses.

use super::config::{sr, Options};
use super::isa::{decode, Insn, Opnd};

/// Text of one decoded instruction at `pc`.
pub fn format(i: &Insn, pc: u32) -> String {
    format_at(i, Some(pc))
}

/// Text of one decoded instruction whose address is unknown (a waveform
/// shows the word alone): PC-relative targets print as offsets from the
/// instruction, `.+0x10` / `.-0x8`.
pub fn format_unplaced(i: &Insn) -> String {
    format_at(i, None)
}

fn format_at(i: &Insn, at: Option<u32>) -> String {
    let pc = at.unwrap_or(0);
    let d = i.def();
    let mut mnem = d.mnem.to_string();
    let mut ops = Vec::new();
    for &o in d.ops {
        let v = i.operand(o, pc);
        match o {
            Opnd::Ar | Opnd::As | Opnd::At => ops.push(format!("a{v}")),
            Opnd::Sr => {
                let n = v as u8;
                let name = sr::name(n, d.mnem == "wsr").map(str::to_string).unwrap_or_else(|| n.to_string());
                mnem = format!("{mnem}.{name}");
            }
            Opnd::Rel8 | Opnd::Rel12 | Opnd::Rel18 | Opnd::Call | Opnd::L32r | Opnd::Loop | Opnd::RelN6 => match at {
                Some(_) => ops.push(format!("{:#x}", v as u32)),
                None if (v as i32) < 0 => ops.push(format!(".-{:#x}", (v as i32).unsigned_abs())),
                None => ops.push(format!(".+{:#x}", v as u32)),
            },
            _ if v > -256 && v < 256 => ops.push(v.to_string()),
            _ => ops.push(format!("{:#x}", v as u32)),
        }
    }
    if ops.is_empty() {
        mnem
    } else {
        format!("{mnem}\t{}", ops.join(", "))
    }
}

/// One line of a listing: address, bytes, text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub addr: u32,
    pub bytes: Vec<u8>,
    /// None for bytes that do not decode.
    pub text: Option<String>,
}

/// Disassemble a buffer loaded at `base`. Bytes that do not decode become
/// a line of their instruction length with no text.
pub fn listing(bytes: &[u8], base: u32, opts: &Options) -> Vec<Line> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < bytes.len() {
        let pc = base.wrapping_add(i as u32);
        match decode(&bytes[i..], opts) {
            Ok(insn) => {
                out.push(Line { addr: pc, bytes: bytes[i..i + insn.len as usize].to_vec(), text: Some(format(&insn, pc)) });
                i += insn.len as usize;
            }
            Err(e) => {
                let n = (e.len as usize).max(1).min(bytes.len() - i);
                out.push(Line { addr: pc, bytes: bytes[i..i + n].to_vec(), text: None });
                i += n;
            }
        }
    }
    out
}
