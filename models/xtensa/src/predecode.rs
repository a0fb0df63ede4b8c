//! Pre-decoded instructions: what the executor needs of one instruction at
//! one address, decoded once and kept in the core's caches
//! ([`super::codecache`]).
//!
//! A [`Pre`] is [`Insn`] with its operands already taken out of the word:
//! register numbers, immediates, and PC-relative targets resolved to
//! absolute addresses (so a `Pre` belongs to the address it was decoded
//! at), plus what the window check and the fast run loop need to know
//! without looking at the table again.

use super::config::Options;
use super::isa::{decode_word, Insn, Op, Opnd};

/// The run loop must look at the core's state again after this instruction
/// (it may change PS, the interrupt enables, LEND, WAITI or stop the core).
pub const SYNC: u8 = 1;
/// A store: it may have written the code page being run.
pub const STORE: u8 = 2;
/// LOOP, LOOPNEZ, LOOPGTZ: LBEG, LEND and LCOUNT change.
pub const LOOP: u8 = 4;
/// Never falls through to the next instruction (jumps, calls, returns,
/// ILL): a basic block ends here.
pub const END: u8 = 8;

/// One pre-decoded instruction (20 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pre {
    pub op: Op,
    /// 2 or 3; 0 marks an empty cache slot.
    pub len: u8,
    pub r: u8,
    pub s: u8,
    pub t: u8,
    /// The window check's frames: bit n set for n = 1 ..= the highest
    /// address register the instruction names / 4 (none without windows or
    /// below a4). ENTRY's check also depends on PS.CALLINC and is done as it
    /// executes.
    pub wmask: u8,
    pub flags: u8,
    /// Index into [`super::isa::TABLE`] (for the trace record).
    pub id: u16,
    /// The first operand that is not a register, as the table gives it
    /// (an immediate, an SR number, a resolved target...).
    pub imm: u32,
    /// The second such operand (branch targets after a constant, EXTUI's
    /// mask width); for CALLs and LOOPs, which have none, the address after
    /// the instruction (the return address, LBEG); for ENTRY the
    /// instruction's own address (EPC1 of its window overflow).
    pub imm2: u32,
    /// The raw instruction word (for traces and probes).
    pub word: u32,
}

impl Pre {
    /// An empty cache slot.
    pub const EMPTY: Pre = Pre { op: Op::Ill, len: 0, r: 0, s: 0, t: 0, wmask: 0, flags: 0, id: 0, imm: 0, imm2: 0, word: 0 };

    /// The instruction as the table decodes it.
    pub fn insn(&self) -> Insn {
        Insn { id: self.id, word: self.word, len: self.len }
    }

    /// Pre-decode `insn` at `pc`.
    pub fn new(insn: Insn, pc: u32, opts: &Options) -> Pre {
        let def = insn.def();
        let (r, s, t) = (insn.r(), insn.s(), insn.t());
        let mut imms = def.ops.iter().filter(|o| !matches!(o, Opnd::Ar | Opnd::As | Opnd::At)).map(|&o| insn.operand(o, pc) as u32);
        let mut imm = imms.next().unwrap_or(0);
        let mut imm2 = imms.next().unwrap_or(0);
        use Op::*;
        match def.op {
            Call0 | Call4 | Call8 | Call12 | Callx0 | Callx4 | Callx8 | Callx12 | Loop | Loopnez | Loopgtz => imm2 = pc.wrapping_add(3),
            Entry => imm2 = pc,
            // RETW: the instruction's address (EPC1 of its underflow, and the
            // top two bits of the return address).
            Retw | RetwN => imm = pc,
            _ => {}
        }
        let mut max_reg = 0;
        for &o in def.ops {
            max_reg = max_reg.max(match o {
                Opnd::Ar => r,
                Opnd::As => s,
                Opnd::At => t,
                _ => 0,
            });
        }
        max_reg = match def.op {
            Op::Call4 | Op::Callx4 => max_reg.max(4),
            Op::Call8 | Op::Callx8 => max_reg.max(8),
            Op::Call12 | Op::Callx12 => max_reg.max(12),
            _ => max_reg,
        };
        let wmask = if opts.windowed { ((1u8 << (max_reg / 4)) - 1) << 1 } else { 0 };
        let flags = match def.op {
            // Reading CCOUNT needs the run loop's count of instructions.
            Rsr if imm == super::config::sr::CCOUNT as u32 => SYNC,
            Wsr | Xsr | Rsil | Waiti | Rfe | Rfde | Rfi | Rfwo | Rfwu | Halt | Break | BreakN | Simcall | Syscall => SYNC,
            Loop | Loopnez | Loopgtz => LOOP,
            S8i | S16i | S32i | S32iN | S32e => STORE,
            J | Jx | Call0 | Call4 | Call8 | Call12 | Callx0 | Callx4 | Callx8 | Callx12 | Ret | RetN | Retw | RetwN | Ill | IllN => END,
            _ => 0,
        };
        Pre { op: def.op, len: insn.len, r: r as u8, s: s as u8, t: t as u8, wmask, flags, id: insn.id, imm, imm2, word: insn.word }
    }

    /// Decode and pre-decode the word at `pc`; an encoding that is not an
    /// instruction of `opts` becomes ILL of the length the length decoder
    /// gives (it raises IllegalInstruction when executed).
    pub fn decode(word: u32, len: u8, pc: u32, opts: &Options) -> Pre {
        match decode_word(word, len, opts) {
            Ok(insn) => Pre::new(insn, pc, opts),
            Err(_) => Pre { len, word, flags: END, ..Pre::EMPTY },
        }
    }
}
