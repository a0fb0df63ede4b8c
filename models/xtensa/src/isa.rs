//! The instruction set as one table: every instruction is a fixed bit
//! pattern plus operand fields. Decoding, encoding (the assembler) and
//! disassembly all read the same table, so they cannot disagree.
//!
//! Word layout (little-endian, 24-bit): op0 \[3:0\], t \[7:4\], s \[11:8\],
//! r \[15:12\], op1 \[19:16\], op2 \[23:20\]; imm8 \[23:16\], imm12 \[23:12\],
//! imm16 \[23:8\], CALL/J offset \[23:6\]. Narrow (code density) instructions
//! are 16 bits with op0 in 8..=13.

use super::config::Options;

/// Which option an instruction needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feat {
    Base,
    Density,
    Windowed,
    Const16,
    Loops,
    Mul32,
    Mul32High,
    Mul16,
    Div32,
    Nsa,
    MinMax,
    Sext,
    Clamps,
    Halt,
    Debug,
    Simcall,
    MpSync,
    RegionProtection,
    ExtRegs,
}

impl Feat {
    pub fn enabled(self, o: &Options) -> bool {
        match self {
            Feat::Base => true,
            Feat::Density => o.code_density,
            Feat::Windowed => o.windowed,
            Feat::Const16 => o.const16,
            Feat::Loops => o.loops,
            Feat::Mul32 => o.mul32,
            Feat::Mul32High => o.mul32_high,
            Feat::Mul16 => o.mul16,
            Feat::Div32 => o.div32,
            Feat::Nsa => o.nsa,
            Feat::MinMax => o.minmax,
            Feat::Sext => o.sext,
            Feat::Clamps => o.clamps,
            Feat::Halt => o.halt,
            Feat::Debug => o.debug,
            Feat::Simcall => o.simcall,
            Feat::MpSync => o.mp_sync,
            Feat::RegionProtection => o.region_protection,
            Feat::ExtRegs => o.ext_regs,
        }
    }
}

/// An operand and where it lives in the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opnd {
    /// Address register in r / s / t.
    Ar,
    As,
    At,
    /// sext(imm8) (ADDI).
    S8,
    /// sext(imm8) << 8 (ADDMI).
    S8x256,
    /// imm8 << shift (load/store offsets: 0, 1, 2).
    U8(u8),
    /// MOVI: sext12({s, imm8}).
    Movi12,
    /// A 4-bit field shown as is: r, s or t.
    R4,
    S4,
    T4,
    /// ROTW: sext4(t).
    Rotw,
    /// B4CONST\[r\] / B4CONSTU\[r\].
    B4,
    B4u,
    /// BBCI/BBSI bit: {r\[0\], t}.
    Bbi,
    /// SLLI: 32 - {op2\[0\], t}.
    Slli,
    /// SRAI: {op2\[0\], t}... stored as {op2\[0\], s}? see field docs in code.
    Srai,
    /// SRLI: s.
    Srli,
    /// SSAI: {t\[0\], s}.
    Ssai,
    /// EXTUI shift {op1\[0\], s} and mask width op2 + 1.
    ExtuiShift,
    ExtuiMask,
    /// SEXT/CLAMPS: t + 7.
    T7,
    /// L32E/S32E: (r << 2) - 64.
    L32e,
    /// ENTRY frame: imm12 << 3.
    Entry,
    /// CONST16: imm16.
    U16,
    /// Special register number in \[15:8\] (part of the mnemonic).
    Sr,
    /// Narrow: L32I.N/S32I.N offset r << 2.
    R4x4,
    /// ADDI.N: t, 0 meaning -1.
    AddiN,
    /// MOVI.N: {t\[2:0\], r}, -32..95.
    MoviN,
    /// PC-relative targets (printed absolute).
    Rel8,
    Rel12,
    Rel18,
    Call,
    L32r,
    Loop,
    RelN6,
}

/// One instruction of the table.
#[derive(Debug, Clone, Copy)]
pub struct Def {
    pub op: Op,
    pub mnem: &'static str,
    /// 2 or 3.
    pub len: u8,
    pub mask: u32,
    pub bits: u32,
    pub ops: &'static [Opnd],
    pub feat: Feat,
}

/// Every instruction of the table, for the executor's dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Ill,
    Ret,
    Retw,
    Jx,
    Callx0,
    Callx4,
    Callx8,
    Callx12,
    Movsp,
    Isync,
    Rsync,
    Esync,
    Dsync,
    Excw,
    Memw,
    Extw,
    Nop,
    Rfe,
    Rfde,
    Rfwo,
    Rfwu,
    Rfi,
    Break,
    Syscall,
    Simcall,
    Halt,
    Rsil,
    Waiti,
    And,
    Or,
    Xor,
    Ssr,
    Ssl,
    Ssa8l,
    Ssa8b,
    Ssai,
    Rotw,
    Nsa,
    Nsau,
    Rer,
    Wer,
    Ritlb0,
    Iitlb,
    Pitlb,
    Witlb,
    Ritlb1,
    Rdtlb0,
    Idtlb,
    Pdtlb,
    Wdtlb,
    Rdtlb1,
    Neg,
    Abs,
    Add,
    Addx2,
    Addx4,
    Addx8,
    Sub,
    Subx2,
    Subx4,
    Subx8,
    Slli,
    Srai,
    Srli,
    Xsr,
    Src,
    Srl,
    Sll,
    Sra,
    Rfdo,
    Rfdd,
    Mul16u,
    Mul16s,
    Mull,
    Muluh,
    Mulsh,
    Quou,
    Quos,
    Remu,
    Rems,
    Rsr,
    Wsr,
    Sext,
    Clamps,
    Min,
    Max,
    Minu,
    Maxu,
    Moveqz,
    Movnez,
    Movltz,
    Movgez,
    Extui,
    L32e,
    S32e,
    L32r,
    L8ui,
    L16ui,
    L32i,
    S8i,
    S16i,
    S32i,
    L16si,
    Movi,
    L32ai,
    Addi,
    Addmi,
    S32c1i,
    S32ri,
    Const16,
    Call0,
    Call4,
    Call8,
    Call12,
    J,
    Beqz,
    Bnez,
    Bltz,
    Bgez,
    Beqi,
    Bnei,
    Blti,
    Bgei,
    Entry,
    Loop,
    Loopnez,
    Loopgtz,
    Bltui,
    Bgeui,
    Bnone,
    Beq,
    Blt,
    Bltu,
    Ball,
    Bbc,
    Bbci,
    Bany,
    Bne,
    Bge,
    Bgeu,
    Bnall,
    Bbs,
    Bbsi,
    L32iN,
    S32iN,
    AddN,
    AddiN,
    MoviN,
    BeqzN,
    BnezN,
    MovN,
    RetN,
    RetwN,
    BreakN,
    NopN,
    IllN,
}

/// The [`Op`] of a mnemonic (used while building the table).
const fn op_of(m: &str) -> Op {
    let b = m.as_bytes();
    if eq(b, b"ill") {
        return Op::Ill;
    }
    if eq(b, b"ret") {
        return Op::Ret;
    }
    if eq(b, b"retw") {
        return Op::Retw;
    }
    if eq(b, b"jx") {
        return Op::Jx;
    }
    if eq(b, b"callx0") {
        return Op::Callx0;
    }
    if eq(b, b"callx4") {
        return Op::Callx4;
    }
    if eq(b, b"callx8") {
        return Op::Callx8;
    }
    if eq(b, b"callx12") {
        return Op::Callx12;
    }
    if eq(b, b"movsp") {
        return Op::Movsp;
    }
    if eq(b, b"isync") {
        return Op::Isync;
    }
    if eq(b, b"rsync") {
        return Op::Rsync;
    }
    if eq(b, b"esync") {
        return Op::Esync;
    }
    if eq(b, b"dsync") {
        return Op::Dsync;
    }
    if eq(b, b"excw") {
        return Op::Excw;
    }
    if eq(b, b"memw") {
        return Op::Memw;
    }
    if eq(b, b"extw") {
        return Op::Extw;
    }
    if eq(b, b"nop") {
        return Op::Nop;
    }
    if eq(b, b"rfe") {
        return Op::Rfe;
    }
    if eq(b, b"rfde") {
        return Op::Rfde;
    }
    if eq(b, b"rfwo") {
        return Op::Rfwo;
    }
    if eq(b, b"rfwu") {
        return Op::Rfwu;
    }
    if eq(b, b"rfi") {
        return Op::Rfi;
    }
    if eq(b, b"break") {
        return Op::Break;
    }
    if eq(b, b"syscall") {
        return Op::Syscall;
    }
    if eq(b, b"simcall") {
        return Op::Simcall;
    }
    if eq(b, b"halt") {
        return Op::Halt;
    }
    if eq(b, b"rsil") {
        return Op::Rsil;
    }
    if eq(b, b"waiti") {
        return Op::Waiti;
    }
    if eq(b, b"and") {
        return Op::And;
    }
    if eq(b, b"or") {
        return Op::Or;
    }
    if eq(b, b"xor") {
        return Op::Xor;
    }
    if eq(b, b"ssr") {
        return Op::Ssr;
    }
    if eq(b, b"ssl") {
        return Op::Ssl;
    }
    if eq(b, b"ssa8l") {
        return Op::Ssa8l;
    }
    if eq(b, b"ssa8b") {
        return Op::Ssa8b;
    }
    if eq(b, b"ssai") {
        return Op::Ssai;
    }
    if eq(b, b"rotw") {
        return Op::Rotw;
    }
    if eq(b, b"nsa") {
        return Op::Nsa;
    }
    if eq(b, b"nsau") {
        return Op::Nsau;
    }
    if eq(b, b"rer") {
        return Op::Rer;
    }
    if eq(b, b"wer") {
        return Op::Wer;
    }
    if eq(b, b"ritlb0") {
        return Op::Ritlb0;
    }
    if eq(b, b"iitlb") {
        return Op::Iitlb;
    }
    if eq(b, b"pitlb") {
        return Op::Pitlb;
    }
    if eq(b, b"witlb") {
        return Op::Witlb;
    }
    if eq(b, b"ritlb1") {
        return Op::Ritlb1;
    }
    if eq(b, b"rdtlb0") {
        return Op::Rdtlb0;
    }
    if eq(b, b"idtlb") {
        return Op::Idtlb;
    }
    if eq(b, b"pdtlb") {
        return Op::Pdtlb;
    }
    if eq(b, b"wdtlb") {
        return Op::Wdtlb;
    }
    if eq(b, b"rdtlb1") {
        return Op::Rdtlb1;
    }
    if eq(b, b"neg") {
        return Op::Neg;
    }
    if eq(b, b"abs") {
        return Op::Abs;
    }
    if eq(b, b"add") {
        return Op::Add;
    }
    if eq(b, b"addx2") {
        return Op::Addx2;
    }
    if eq(b, b"addx4") {
        return Op::Addx4;
    }
    if eq(b, b"addx8") {
        return Op::Addx8;
    }
    if eq(b, b"sub") {
        return Op::Sub;
    }
    if eq(b, b"subx2") {
        return Op::Subx2;
    }
    if eq(b, b"subx4") {
        return Op::Subx4;
    }
    if eq(b, b"subx8") {
        return Op::Subx8;
    }
    if eq(b, b"slli") {
        return Op::Slli;
    }
    if eq(b, b"srai") {
        return Op::Srai;
    }
    if eq(b, b"srli") {
        return Op::Srli;
    }
    if eq(b, b"xsr") {
        return Op::Xsr;
    }
    if eq(b, b"src") {
        return Op::Src;
    }
    if eq(b, b"srl") {
        return Op::Srl;
    }
    if eq(b, b"sll") {
        return Op::Sll;
    }
    if eq(b, b"sra") {
        return Op::Sra;
    }
    if eq(b, b"rfdo") {
        return Op::Rfdo;
    }
    if eq(b, b"rfdd") {
        return Op::Rfdd;
    }
    if eq(b, b"mul16u") {
        return Op::Mul16u;
    }
    if eq(b, b"mul16s") {
        return Op::Mul16s;
    }
    if eq(b, b"mull") {
        return Op::Mull;
    }
    if eq(b, b"muluh") {
        return Op::Muluh;
    }
    if eq(b, b"mulsh") {
        return Op::Mulsh;
    }
    if eq(b, b"quou") {
        return Op::Quou;
    }
    if eq(b, b"quos") {
        return Op::Quos;
    }
    if eq(b, b"remu") {
        return Op::Remu;
    }
    if eq(b, b"rems") {
        return Op::Rems;
    }
    if eq(b, b"rsr") {
        return Op::Rsr;
    }
    if eq(b, b"wsr") {
        return Op::Wsr;
    }
    if eq(b, b"sext") {
        return Op::Sext;
    }
    if eq(b, b"clamps") {
        return Op::Clamps;
    }
    if eq(b, b"min") {
        return Op::Min;
    }
    if eq(b, b"max") {
        return Op::Max;
    }
    if eq(b, b"minu") {
        return Op::Minu;
    }
    if eq(b, b"maxu") {
        return Op::Maxu;
    }
    if eq(b, b"moveqz") {
        return Op::Moveqz;
    }
    if eq(b, b"movnez") {
        return Op::Movnez;
    }
    if eq(b, b"movltz") {
        return Op::Movltz;
    }
    if eq(b, b"movgez") {
        return Op::Movgez;
    }
    if eq(b, b"extui") {
        return Op::Extui;
    }
    if eq(b, b"l32e") {
        return Op::L32e;
    }
    if eq(b, b"s32e") {
        return Op::S32e;
    }
    if eq(b, b"l32r") {
        return Op::L32r;
    }
    if eq(b, b"l8ui") {
        return Op::L8ui;
    }
    if eq(b, b"l16ui") {
        return Op::L16ui;
    }
    if eq(b, b"l32i") {
        return Op::L32i;
    }
    if eq(b, b"s8i") {
        return Op::S8i;
    }
    if eq(b, b"s16i") {
        return Op::S16i;
    }
    if eq(b, b"s32i") {
        return Op::S32i;
    }
    if eq(b, b"l16si") {
        return Op::L16si;
    }
    if eq(b, b"movi") {
        return Op::Movi;
    }
    if eq(b, b"l32ai") {
        return Op::L32ai;
    }
    if eq(b, b"addi") {
        return Op::Addi;
    }
    if eq(b, b"addmi") {
        return Op::Addmi;
    }
    if eq(b, b"s32c1i") {
        return Op::S32c1i;
    }
    if eq(b, b"s32ri") {
        return Op::S32ri;
    }
    if eq(b, b"const16") {
        return Op::Const16;
    }
    if eq(b, b"call0") {
        return Op::Call0;
    }
    if eq(b, b"call4") {
        return Op::Call4;
    }
    if eq(b, b"call8") {
        return Op::Call8;
    }
    if eq(b, b"call12") {
        return Op::Call12;
    }
    if eq(b, b"j") {
        return Op::J;
    }
    if eq(b, b"beqz") {
        return Op::Beqz;
    }
    if eq(b, b"bnez") {
        return Op::Bnez;
    }
    if eq(b, b"bltz") {
        return Op::Bltz;
    }
    if eq(b, b"bgez") {
        return Op::Bgez;
    }
    if eq(b, b"beqi") {
        return Op::Beqi;
    }
    if eq(b, b"bnei") {
        return Op::Bnei;
    }
    if eq(b, b"blti") {
        return Op::Blti;
    }
    if eq(b, b"bgei") {
        return Op::Bgei;
    }
    if eq(b, b"entry") {
        return Op::Entry;
    }
    if eq(b, b"loop") {
        return Op::Loop;
    }
    if eq(b, b"loopnez") {
        return Op::Loopnez;
    }
    if eq(b, b"loopgtz") {
        return Op::Loopgtz;
    }
    if eq(b, b"bltui") {
        return Op::Bltui;
    }
    if eq(b, b"bgeui") {
        return Op::Bgeui;
    }
    if eq(b, b"bnone") {
        return Op::Bnone;
    }
    if eq(b, b"beq") {
        return Op::Beq;
    }
    if eq(b, b"blt") {
        return Op::Blt;
    }
    if eq(b, b"bltu") {
        return Op::Bltu;
    }
    if eq(b, b"ball") {
        return Op::Ball;
    }
    if eq(b, b"bbc") {
        return Op::Bbc;
    }
    if eq(b, b"bbci") {
        return Op::Bbci;
    }
    if eq(b, b"bany") {
        return Op::Bany;
    }
    if eq(b, b"bne") {
        return Op::Bne;
    }
    if eq(b, b"bge") {
        return Op::Bge;
    }
    if eq(b, b"bgeu") {
        return Op::Bgeu;
    }
    if eq(b, b"bnall") {
        return Op::Bnall;
    }
    if eq(b, b"bbs") {
        return Op::Bbs;
    }
    if eq(b, b"bbsi") {
        return Op::Bbsi;
    }
    if eq(b, b"l32i.n") {
        return Op::L32iN;
    }
    if eq(b, b"s32i.n") {
        return Op::S32iN;
    }
    if eq(b, b"add.n") {
        return Op::AddN;
    }
    if eq(b, b"addi.n") {
        return Op::AddiN;
    }
    if eq(b, b"movi.n") {
        return Op::MoviN;
    }
    if eq(b, b"beqz.n") {
        return Op::BeqzN;
    }
    if eq(b, b"bnez.n") {
        return Op::BnezN;
    }
    if eq(b, b"mov.n") {
        return Op::MovN;
    }
    if eq(b, b"ret.n") {
        return Op::RetN;
    }
    if eq(b, b"retw.n") {
        return Op::RetwN;
    }
    if eq(b, b"break.n") {
        return Op::BreakN;
    }
    if eq(b, b"nop.n") {
        return Op::NopN;
    }
    if eq(b, b"ill.n") {
        return Op::IllN;
    }
    panic!("mnemonic without an Op")
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Field builder: (shift, value) pairs → (mask, bits).
const fn pat(fields: &[(u32, u32, u32)]) -> (u32, u32) {
    let mut mask = 0;
    let mut bits = 0;
    let mut i = 0;
    while i < fields.len() {
        let (lsb, width, v) = fields[i];
        mask |= ((1 << width) - 1) << lsb;
        bits |= v << lsb;
        i += 1;
    }
    (mask, bits)
}

const OP0: u32 = 0;
const T: u32 = 4;
const S: u32 = 8;
const R: u32 = 12;
const OP1: u32 = 16;
const OP2: u32 = 20;

macro_rules! def {
    ($m:expr, $len:expr, [$(($f:expr, $w:expr, $v:expr)),*], [$($o:ident $(($a:expr))?),*], $feat:ident) => {{
        let (mask, bits) = pat(&[$(($f, $w, $v)),*]);
        Def { op: op_of($m), mnem: $m, len: $len, mask, bits, ops: &[$(Opnd::$o $(($a))?),*], feat: Feat::$feat }
    }};
}

/// RRR-format with op0 = 0: op1, op2 and any other fixed fields.
macro_rules! rrr {
    ($m:expr, $op1:expr, $op2:expr, $(($f:expr, $w:expr, $v:expr),)* [$($o:ident),*], $feat:ident) => {
        def!($m, 3, [(OP0, 4, 0), (OP1, 4, $op1), (OP2, 4, $op2) $(, ($f, $w, $v))*], [$($o),*], $feat)
    };
}

/// The instruction table. Order matters only where patterns overlap (the
/// more specific first).
pub static TABLE: &[Def] = &[
    // ---- RST0 / ST0 / SNM0 ----
    rrr!("ill", 0, 0, (R, 4, 0), (S, 4, 0), (T, 4, 0), [], Base),
    rrr!("ret", 0, 0, (R, 4, 0), (S, 4, 0), (T, 4, 8), [], Base),
    rrr!("retw", 0, 0, (R, 4, 0), (S, 4, 0), (T, 4, 9), [], Windowed),
    rrr!("jx", 0, 0, (R, 4, 0), (T, 4, 10), [As], Base),
    rrr!("callx0", 0, 0, (R, 4, 0), (T, 4, 12), [As], Base),
    rrr!("callx4", 0, 0, (R, 4, 0), (T, 4, 13), [As], Windowed),
    rrr!("callx8", 0, 0, (R, 4, 0), (T, 4, 14), [As], Windowed),
    rrr!("callx12", 0, 0, (R, 4, 0), (T, 4, 15), [As], Windowed),
    rrr!("movsp", 0, 0, (R, 4, 1), [At, As], Windowed),
    rrr!("isync", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 0), [], Base),
    rrr!("rsync", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 1), [], Base),
    rrr!("esync", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 2), [], Base),
    rrr!("dsync", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 3), [], Base),
    rrr!("excw", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 8), [], Base),
    rrr!("memw", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 12), [], Base),
    rrr!("extw", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 13), [], Base),
    rrr!("nop", 0, 0, (R, 4, 2), (S, 4, 0), (T, 4, 15), [], Base),
    rrr!("rfe", 0, 0, (R, 4, 3), (S, 4, 0), (T, 4, 0), [], Base),
    rrr!("rfde", 0, 0, (R, 4, 3), (S, 4, 2), (T, 4, 0), [], Base),
    rrr!("rfwo", 0, 0, (R, 4, 3), (S, 4, 4), (T, 4, 0), [], Windowed),
    rrr!("rfwu", 0, 0, (R, 4, 3), (S, 4, 5), (T, 4, 0), [], Windowed),
    rrr!("rfi", 0, 0, (R, 4, 3), (T, 4, 1), [S4], Base),
    rrr!("break", 0, 0, (R, 4, 4), [S4, T4], Debug),
    rrr!("syscall", 0, 0, (R, 4, 5), (S, 4, 0), (T, 4, 0), [], Base),
    rrr!("simcall", 0, 0, (R, 4, 5), (S, 4, 1), (T, 4, 0), [], Simcall),
    rrr!("halt", 0, 0, (R, 4, 5), (S, 4, 2), [T4], Halt),
    rrr!("rsil", 0, 0, (R, 4, 6), [At, S4], Base),
    rrr!("waiti", 0, 0, (R, 4, 7), (T, 4, 0), [S4], Base),
    // ---- RST0 logic / ST1 / RT0 / arithmetic ----
    rrr!("and", 0, 1, [Ar, As, At], Base),
    rrr!("or", 0, 2, [Ar, As, At], Base),
    rrr!("xor", 0, 3, [Ar, As, At], Base),
    rrr!("ssr", 0, 4, (R, 4, 0), (T, 4, 0), [As], Base),
    rrr!("ssl", 0, 4, (R, 4, 1), (T, 4, 0), [As], Base),
    rrr!("ssa8l", 0, 4, (R, 4, 2), (T, 4, 0), [As], Base),
    rrr!("ssa8b", 0, 4, (R, 4, 3), (T, 4, 0), [As], Base),
    def!("ssai", 3, [(OP0, 4, 0), (OP1, 4, 0), (OP2, 4, 4), (R, 4, 4), (5, 3, 0)], [Ssai], Base),
    rrr!("rotw", 0, 4, (R, 4, 8), (S, 4, 0), [Rotw], Windowed),
    rrr!("nsa", 0, 4, (R, 4, 14), [At, As], Nsa),
    rrr!("nsau", 0, 4, (R, 4, 15), [At, As], Nsa),
    rrr!("rer", 0, 4, (R, 4, 6), [], ExtRegs),
    rrr!("wer", 0, 4, (R, 4, 7), [], ExtRegs),
    rrr!("ritlb0", 0, 5, (R, 4, 3), [At, As], RegionProtection),
    rrr!("iitlb", 0, 5, (R, 4, 4), (T, 4, 0), [As], RegionProtection),
    rrr!("pitlb", 0, 5, (R, 4, 5), [At, As], RegionProtection),
    rrr!("witlb", 0, 5, (R, 4, 6), [At, As], RegionProtection),
    rrr!("ritlb1", 0, 5, (R, 4, 7), [At, As], RegionProtection),
    rrr!("rdtlb0", 0, 5, (R, 4, 11), [At, As], RegionProtection),
    rrr!("idtlb", 0, 5, (R, 4, 12), (T, 4, 0), [As], RegionProtection),
    rrr!("pdtlb", 0, 5, (R, 4, 13), [At, As], RegionProtection),
    rrr!("wdtlb", 0, 5, (R, 4, 14), [At, As], RegionProtection),
    rrr!("rdtlb1", 0, 5, (R, 4, 15), [At, As], RegionProtection),
    rrr!("neg", 0, 6, (S, 4, 0), [Ar, At], Base),
    rrr!("abs", 0, 6, (S, 4, 1), [Ar, At], Base),
    rrr!("add", 0, 8, [Ar, As, At], Base),
    rrr!("addx2", 0, 9, [Ar, As, At], Base),
    rrr!("addx4", 0, 10, [Ar, As, At], Base),
    rrr!("addx8", 0, 11, [Ar, As, At], Base),
    rrr!("sub", 0, 12, [Ar, As, At], Base),
    rrr!("subx2", 0, 13, [Ar, As, At], Base),
    rrr!("subx4", 0, 14, [Ar, As, At], Base),
    rrr!("subx8", 0, 15, [Ar, As, At], Base),
    // ---- RST1 ----
    def!("slli", 3, [(OP0, 4, 0), (OP1, 4, 1), (21, 3, 0)], [Ar, As, Slli], Base),
    def!("srai", 3, [(OP0, 4, 0), (OP1, 4, 1), (21, 3, 1)], [Ar, At, Srai], Base),
    rrr!("srli", 1, 4, [Ar, At, Srli], Base),
    rrr!("xsr", 1, 6, [At, Sr], Base),
    rrr!("src", 1, 8, [Ar, As, At], Base),
    rrr!("srl", 1, 9, (S, 4, 0), [Ar, At], Base),
    rrr!("sll", 1, 10, (T, 4, 0), [Ar, As], Base),
    rrr!("sra", 1, 11, (S, 4, 0), [Ar, At], Base),
    rrr!("rfdo", 1, 15, (R, 4, 14), (T, 4, 0), [S4], Debug),
    rrr!("rfdd", 1, 15, (R, 4, 14), (T, 4, 1), [], Debug),
    rrr!("mul16u", 1, 12, [Ar, As, At], Mul16),
    rrr!("mul16s", 1, 13, [Ar, As, At], Mul16),
    // ---- RST2 ----
    rrr!("mull", 2, 8, [Ar, As, At], Mul32),
    rrr!("muluh", 2, 10, [Ar, As, At], Mul32High),
    rrr!("mulsh", 2, 11, [Ar, As, At], Mul32High),
    rrr!("quou", 2, 12, [Ar, As, At], Div32),
    rrr!("quos", 2, 13, [Ar, As, At], Div32),
    rrr!("remu", 2, 14, [Ar, As, At], Div32),
    rrr!("rems", 2, 15, [Ar, As, At], Div32),
    // ---- RST3 ----
    rrr!("rsr", 3, 0, [At, Sr], Base),
    rrr!("wsr", 3, 1, [At, Sr], Base),
    rrr!("sext", 3, 2, [Ar, As, T7], Sext),
    rrr!("clamps", 3, 3, [Ar, As, T7], Clamps),
    rrr!("min", 3, 4, [Ar, As, At], MinMax),
    rrr!("max", 3, 5, [Ar, As, At], MinMax),
    rrr!("minu", 3, 6, [Ar, As, At], MinMax),
    rrr!("maxu", 3, 7, [Ar, As, At], MinMax),
    rrr!("moveqz", 3, 8, [Ar, As, At], Base),
    rrr!("movnez", 3, 9, [Ar, As, At], Base),
    rrr!("movltz", 3, 10, [Ar, As, At], Base),
    rrr!("movgez", 3, 11, [Ar, As, At], Base),
    // ---- EXTUI, L32E/S32E ----
    def!("extui", 3, [(OP0, 4, 0), (17, 3, 2)], [Ar, At, ExtuiShift, ExtuiMask], Base),
    rrr!("l32e", 9, 0, [At, As, L32e], Windowed),
    rrr!("s32e", 9, 4, [At, As, L32e], Windowed),
    // ---- L32R, LSAI ----
    def!("l32r", 3, [(OP0, 4, 1)], [At, L32r], Base),
    def!("l8ui", 3, [(OP0, 4, 2), (R, 4, 0)], [At, As, U8(0)], Base),
    def!("l16ui", 3, [(OP0, 4, 2), (R, 4, 1)], [At, As, U8(1)], Base),
    def!("l32i", 3, [(OP0, 4, 2), (R, 4, 2)], [At, As, U8(2)], Base),
    def!("s8i", 3, [(OP0, 4, 2), (R, 4, 4)], [At, As, U8(0)], Base),
    def!("s16i", 3, [(OP0, 4, 2), (R, 4, 5)], [At, As, U8(1)], Base),
    def!("s32i", 3, [(OP0, 4, 2), (R, 4, 6)], [At, As, U8(2)], Base),
    def!("l16si", 3, [(OP0, 4, 2), (R, 4, 9)], [At, As, U8(1)], Base),
    def!("movi", 3, [(OP0, 4, 2), (R, 4, 10)], [At, Movi12], Base),
    def!("l32ai", 3, [(OP0, 4, 2), (R, 4, 11)], [At, As, U8(2)], MpSync),
    def!("addi", 3, [(OP0, 4, 2), (R, 4, 12)], [At, As, S8], Base),
    def!("addmi", 3, [(OP0, 4, 2), (R, 4, 13)], [At, As, S8x256], Base),
    def!("s32c1i", 3, [(OP0, 4, 2), (R, 4, 14)], [At, As, U8(2)], MpSync),
    def!("s32ri", 3, [(OP0, 4, 2), (R, 4, 15)], [At, As, U8(2)], MpSync),
    // ---- CONST16 (in the MAC16 opcode space) ----
    def!("const16", 3, [(OP0, 4, 4)], [At, U16], Const16),
    // ---- CALLN, SI ----
    def!("call0", 3, [(OP0, 4, 5), (4, 2, 0)], [Call], Base),
    def!("call4", 3, [(OP0, 4, 5), (4, 2, 1)], [Call], Windowed),
    def!("call8", 3, [(OP0, 4, 5), (4, 2, 2)], [Call], Windowed),
    def!("call12", 3, [(OP0, 4, 5), (4, 2, 3)], [Call], Windowed),
    def!("j", 3, [(OP0, 4, 6), (4, 2, 0)], [Rel18], Base),
    def!("beqz", 3, [(OP0, 4, 6), (4, 4, 0b0001)], [As, Rel12], Base),
    def!("bnez", 3, [(OP0, 4, 6), (4, 4, 0b0101)], [As, Rel12], Base),
    def!("bltz", 3, [(OP0, 4, 6), (4, 4, 0b1001)], [As, Rel12], Base),
    def!("bgez", 3, [(OP0, 4, 6), (4, 4, 0b1101)], [As, Rel12], Base),
    def!("beqi", 3, [(OP0, 4, 6), (4, 4, 0b0010)], [As, B4, Rel8], Base),
    def!("bnei", 3, [(OP0, 4, 6), (4, 4, 0b0110)], [As, B4, Rel8], Base),
    def!("blti", 3, [(OP0, 4, 6), (4, 4, 0b1010)], [As, B4, Rel8], Base),
    def!("bgei", 3, [(OP0, 4, 6), (4, 4, 0b1110)], [As, B4, Rel8], Base),
    def!("entry", 3, [(OP0, 4, 6), (4, 4, 0b0011)], [As, Entry], Windowed),
    def!("loop", 3, [(OP0, 4, 6), (4, 4, 0b0111), (R, 4, 8)], [As, Loop], Loops),
    def!("loopnez", 3, [(OP0, 4, 6), (4, 4, 0b0111), (R, 4, 9)], [As, Loop], Loops),
    def!("loopgtz", 3, [(OP0, 4, 6), (4, 4, 0b0111), (R, 4, 10)], [As, Loop], Loops),
    def!("bltui", 3, [(OP0, 4, 6), (4, 4, 0b1011)], [As, B4u, Rel8], Base),
    def!("bgeui", 3, [(OP0, 4, 6), (4, 4, 0b1111)], [As, B4u, Rel8], Base),
    // ---- B ----
    def!("bnone", 3, [(OP0, 4, 7), (R, 4, 0)], [As, At, Rel8], Base),
    def!("beq", 3, [(OP0, 4, 7), (R, 4, 1)], [As, At, Rel8], Base),
    def!("blt", 3, [(OP0, 4, 7), (R, 4, 2)], [As, At, Rel8], Base),
    def!("bltu", 3, [(OP0, 4, 7), (R, 4, 3)], [As, At, Rel8], Base),
    def!("ball", 3, [(OP0, 4, 7), (R, 4, 4)], [As, At, Rel8], Base),
    def!("bbc", 3, [(OP0, 4, 7), (R, 4, 5)], [As, At, Rel8], Base),
    def!("bbci", 3, [(OP0, 4, 7), (13, 3, 3)], [As, Bbi, Rel8], Base),
    def!("bany", 3, [(OP0, 4, 7), (R, 4, 8)], [As, At, Rel8], Base),
    def!("bne", 3, [(OP0, 4, 7), (R, 4, 9)], [As, At, Rel8], Base),
    def!("bge", 3, [(OP0, 4, 7), (R, 4, 10)], [As, At, Rel8], Base),
    def!("bgeu", 3, [(OP0, 4, 7), (R, 4, 11)], [As, At, Rel8], Base),
    def!("bnall", 3, [(OP0, 4, 7), (R, 4, 12)], [As, At, Rel8], Base),
    def!("bbs", 3, [(OP0, 4, 7), (R, 4, 13)], [As, At, Rel8], Base),
    def!("bbsi", 3, [(OP0, 4, 7), (13, 3, 7)], [As, Bbi, Rel8], Base),
    // ---- narrow ----
    def!("l32i.n", 2, [(OP0, 4, 8)], [At, As, R4x4], Density),
    def!("s32i.n", 2, [(OP0, 4, 9)], [At, As, R4x4], Density),
    def!("add.n", 2, [(OP0, 4, 10)], [Ar, As, At], Density),
    def!("addi.n", 2, [(OP0, 4, 11)], [Ar, As, AddiN], Density),
    def!("movi.n", 2, [(OP0, 4, 12), (7, 1, 0)], [As, MoviN], Density),
    def!("beqz.n", 2, [(OP0, 4, 12), (6, 2, 2)], [As, RelN6], Density),
    def!("bnez.n", 2, [(OP0, 4, 12), (6, 2, 3)], [As, RelN6], Density),
    def!("mov.n", 2, [(OP0, 4, 13), (R, 4, 0)], [At, As], Density),
    def!("ret.n", 2, [(OP0, 4, 13), (R, 4, 15), (T, 4, 0)], [], Density),
    def!("retw.n", 2, [(OP0, 4, 13), (R, 4, 15), (T, 4, 1)], [], Windowed),
    def!("break.n", 2, [(OP0, 4, 13), (R, 4, 15), (T, 4, 2)], [S4], Debug),
    def!("nop.n", 2, [(OP0, 4, 13), (R, 4, 15), (S, 4, 0), (T, 4, 3)], [], Density),
    def!("ill.n", 2, [(OP0, 4, 13), (R, 4, 15), (S, 4, 0), (T, 4, 6)], [], Density),
];

/// BEQI/BNEI/BLTI/BGEI constants.
pub const B4CONST: [i32; 16] = [-1, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];
/// BLTUI/BGEUI constants.
pub const B4CONSTU: [u32; 16] = [32768, 65536, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];

/// A decoded instruction: its table entry and the raw word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// Index into [`TABLE`].
    pub id: u16,
    pub word: u32,
    pub len: u8,
}

/// Why bytes do not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Illegal {
    /// Length the instruction-length decoder gives these bytes.
    pub len: u8,
    pub word: u32,
}

fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

/// Instruction length from the first byte (op0): narrow for 8..=13 with
/// code density, 3 for 0..=7, none for the reserved 14 and 15.
pub fn length(b0: u8, opts: &Options) -> Option<u8> {
    match b0 & 0xf {
        0..=7 => Some(3),
        8..=13 if opts.code_density => Some(2),
        8..=13 => Some(3),
        _ => None,
    }
}

impl Insn {
    pub fn def(&self) -> &'static Def {
        &TABLE[self.id as usize]
    }
    pub fn mnem(&self) -> &'static str {
        self.def().mnem
    }
    pub fn r(&self) -> u32 {
        (self.word >> 12) & 0xf
    }
    pub fn s(&self) -> u32 {
        (self.word >> 8) & 0xf
    }
    pub fn t(&self) -> u32 {
        (self.word >> 4) & 0xf
    }
    pub fn sr(&self) -> u8 {
        ((self.word >> 8) & 0xff) as u8
    }
    /// Value of operand `o` (registers: the register number; targets: the
    /// absolute address for an instruction at `pc`).
    pub fn operand(&self, o: Opnd, pc: u32) -> i64 {
        let w = self.word;
        let (r, s, t) = (self.r(), self.s(), self.t());
        let imm8 = (w >> 16) & 0xff;
        let op2 = (w >> 20) & 0xf;
        let op1 = (w >> 16) & 0xf;
        match o {
            Opnd::Ar | Opnd::R4 => r as i64,
            Opnd::As | Opnd::S4 => s as i64,
            Opnd::At | Opnd::T4 => t as i64,
            Opnd::S8 => sext(imm8, 8) as i64,
            Opnd::S8x256 => (sext(imm8, 8) as i64) << 8,
            Opnd::U8(sh) => (imm8 as i64) << sh,
            Opnd::Movi12 => sext((s << 8) | imm8, 12) as i64,
            Opnd::Rotw => sext(t, 4) as i64,
            Opnd::B4 => B4CONST[r as usize] as i64,
            Opnd::B4u => B4CONSTU[r as usize] as i64,
            Opnd::Bbi => (((r & 1) << 4) | t) as i64,
            Opnd::Slli => 32 - ((((op2 & 1) << 4) | t) as i64),
            Opnd::Srai => (((op2 & 1) << 4) | s) as i64,
            Opnd::Srli => s as i64,
            Opnd::Ssai => (((t & 1) << 4) | s) as i64,
            Opnd::ExtuiShift => (((op1 & 1) << 4) | s) as i64,
            Opnd::ExtuiMask => op2 as i64 + 1,
            Opnd::T7 => t as i64 + 7,
            Opnd::L32e => ((r as i64) << 2) - 64,
            Opnd::Entry => (((w >> 12) & 0xfff) as i64) << 3,
            Opnd::U16 => ((w >> 8) & 0xffff) as i64,
            Opnd::Sr => self.sr() as i64,
            Opnd::R4x4 => (r as i64) << 2,
            Opnd::AddiN => {
                if t == 0 {
                    -1
                } else {
                    t as i64
                }
            }
            Opnd::MoviN => {
                let v = ((t & 7) << 4) | r;
                if v >= 96 {
                    v as i64 - 128
                } else {
                    v as i64
                }
            }
            Opnd::Rel8 => pc.wrapping_add(4).wrapping_add(sext(imm8, 8) as u32) as i64,
            Opnd::Rel12 => pc.wrapping_add(4).wrapping_add(sext((w >> 12) & 0xfff, 12) as u32) as i64,
            Opnd::Rel18 => pc.wrapping_add(4).wrapping_add(sext((w >> 6) & 0x3ffff, 18) as u32) as i64,
            Opnd::Call => (pc & !3).wrapping_add((sext((w >> 6) & 0x3ffff, 18) << 2) as u32).wrapping_add(4) as i64,
            Opnd::L32r => ((pc.wrapping_add(3)) & !3).wrapping_add((((w >> 8) & 0xffff) | 0xffff_0000) << 2) as i64,
            Opnd::Loop => pc.wrapping_add(4).wrapping_add(imm8) as i64,
            Opnd::RelN6 => pc.wrapping_add(4).wrapping_add(((t & 3) << 4) | r) as i64,
        }
    }
}

/// Decode the instruction at the start of `bytes` under `opts`. Unknown or
/// unconfigured encodings are `Err(Illegal)` with the length the length
/// decoder gives them (so a disassembler can step over them).
pub fn decode(bytes: &[u8], opts: &Options) -> Result<Insn, Illegal> {
    let b0 = *bytes.first().ok_or(Illegal { len: 1, word: 0 })?;
    let len = length(b0, opts).ok_or(Illegal { len: 1, word: b0 as u32 })?;
    if bytes.len() < len as usize {
        return Err(Illegal { len: bytes.len() as u8, word: b0 as u32 });
    }
    let word = if len == 2 { b0 as u32 | (bytes[1] as u32) << 8 } else { b0 as u32 | (bytes[1] as u32) << 8 | (bytes[2] as u32) << 16 };
    decode_word(word, len, opts)
}

/// Decode a word of known length.
pub fn decode_word(word: u32, len: u8, opts: &Options) -> Result<Insn, Illegal> {
    for (id, d) in TABLE.iter().enumerate() {
        if d.len == len && word & d.mask == d.bits && d.feat.enabled(opts) {
            let insn = Insn { id: id as u16, word, len };
            if !operands_valid(&insn, opts) {
                return Err(Illegal { len, word });
            }
            return Ok(insn);
        }
    }
    Err(Illegal { len, word })
}

/// Constraints a pattern cannot express: the configured special registers.
fn operands_valid(i: &Insn, o: &Options) -> bool {
    match i.mnem() {
        "rsr" => o.sr_read.contains(&i.sr()),
        "wsr" => o.sr_write.contains(&i.sr()),
        "xsr" => o.sr_exchange.contains(&i.sr()),
        _ => true,
    }
}
