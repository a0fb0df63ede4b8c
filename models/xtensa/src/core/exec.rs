//! The instruction handlers: one function per instruction (or per family
//! that shares its code), each over a pre-decoded [`Pre`] whose operands
//! were taken out of the word once. [`handler`] maps an [`Op`] to its
//! function; the step path calls through it, the run loop too, so both run
//! the same code. The window check is made before a handler runs (by
//! [`Core::exec`]), ENTRY's own part of it inside ENTRY.
//!
//! Every handler checks what can fault before it writes anything, so an
//! exception leaves the state as it was (precise exceptions).

use super::{cause, ps, Core, Exec, Fault, Flow, Step};
use crate::bus::{Bus, Size};
use crate::config::sr;
use crate::isa::Op;
use crate::predecode::Pre;

/// What runs one instruction.
pub(super) type Handler<B> = fn(&mut Core, &Pre, &mut B) -> Exec<Flow>;

/// Each entry `name: Ops => |c, d, bus| body;` makes the instruction's
/// code (`inline::name`, for the run loop to inline where it wants) and its
/// handler (`name`, out of line, for the dispatch table).
macro_rules! handlers {
    ($($name:ident: $($op:ident)|+ => |$c:ident, $d:ident, $bus:ident| $body:expr;)*) => {
        /// The instructions' code, to be inlined.
        pub(super) mod inline {
            use super::*;
            $(
                #[inline(always)]
                #[allow(unused_variables)]
                pub(in crate::core) fn $name<B: Bus + ?Sized, const TR: bool>($c: &mut Core, $d: &Pre, $bus: &mut B) -> Exec<Flow> {
                    $body
                }
            )*
        }
        $(
            #[inline(never)]
            fn $name<B: Bus + ?Sized, const TR: bool>(c: &mut Core, d: &Pre, bus: &mut B) -> Exec<Flow> {
                inline::$name::<B, TR>(c, d, bus)
            }
        )*
        /// The handler of `op`.
        #[inline(always)]
        pub(super) fn handler<B: Bus + ?Sized, const TR: bool>(op: Op) -> Handler<B> {
            match op {
                $($(Op::$op)|+ => $name::<B, TR>,)*
            }
        }
    };
}

/// Run `d` with the most frequent instructions inlined into the caller and
/// the rest through their handlers (the same code either way).
#[inline(always)]
pub(super) fn run_inline<B: Bus + ?Sized>(c: &mut Core, d: &Pre, bus: &mut B) -> Exec<Flow> {
    use inline::*;
    match d.op {
        Op::Add | Op::AddN => h_add::<B, false>(c, d, bus),
        Op::Sub => h_sub::<B, false>(c, d, bus),
        Op::And => h_and::<B, false>(c, d, bus),
        Op::Or => h_or::<B, false>(c, d, bus),
        Op::Xor => h_xor::<B, false>(c, d, bus),
        Op::Addi | Op::Addmi => h_addi::<B, false>(c, d, bus),
        Op::AddiN => h_addin::<B, false>(c, d, bus),
        Op::Movi => h_movi::<B, false>(c, d, bus),
        Op::MoviN => h_movin::<B, false>(c, d, bus),
        Op::MovN => h_movn::<B, false>(c, d, bus),
        Op::Slli => h_slli::<B, false>(c, d, bus),
        Op::Srli => h_srli::<B, false>(c, d, bus),
        Op::Extui => h_extui::<B, false>(c, d, bus),
        Op::L32i | Op::L32iN | Op::L32e => h_l32i::<B, false>(c, d, bus),
        Op::S32i | Op::S32iN | Op::S32e => h_s32i::<B, false>(c, d, bus),
        Op::L32r => h_l32r::<B, false>(c, d, bus),
        Op::Beqz | Op::BeqzN => h_beqz::<B, false>(c, d, bus),
        Op::Bnez | Op::BnezN => h_bnez::<B, false>(c, d, bus),
        Op::Beq => h_beq::<B, false>(c, d, bus),
        Op::Bne => h_bne::<B, false>(c, d, bus),
        Op::J => h_j::<B, false>(c, d, bus),
        _ => handler::<B, false>(d.op)(c, d, bus),
    }
}

#[inline(always)]
fn br(c: bool, target: u32) -> Exec<Flow> {
    Ok(if c { Flow::Jump(target) } else { Flow::Next })
}

#[inline(always)]
fn next() -> Exec<Flow> {
    Ok(Flow::Next)
}

#[inline(always)]
fn sar(c: &Core) -> u32 {
    c.sregs[sr::SAR as usize] & 63
}

/// `ar = f(as, at)`.
macro_rules! rst {
    ($c:ident, $d:ident, |$a:ident, $b:ident| $e:expr) => {{
        let ($a, $b) = ($c.r($d.s), $c.r($d.t));
        $c.w::<TR>($d.r, $e);
        next()
    }};
}

/// `ar = f(at)`.
macro_rules! rt {
    ($c:ident, $d:ident, |$b:ident| $e:expr) => {{
        let $b = $c.r($d.t);
        $c.w::<TR>($d.r, $e);
        next()
    }};
}

/// `ar = as` when `at` passes the test.
macro_rules! movc {
    ($c:ident, $d:ident, |$b:ident| $e:expr) => {{
        let $b = $c.r($d.t);
        if $e {
            let v = $c.r($d.s);
            $c.w::<TR>($d.r, v);
        }
        next()
    }};
}

/// `at = load(as + imm)`, converted by `f`.
macro_rules! ld {
    ($c:ident, $d:ident, $bus:ident, $size:expr, |$v:ident| $e:expr) => {{
        let a = $c.r($d.s).wrapping_add($d.imm);
        let $v = $c.load::<TR, B>($bus, a, $size)?;
        $c.w::<TR>($d.t, $e);
        next()
    }};
}

/// `store(as + imm, at)`.
macro_rules! st {
    ($c:ident, $d:ident, $bus:ident, $size:expr) => {{
        let (a, v) = ($c.r($d.s).wrapping_add($d.imm), $c.r($d.t));
        $c.store::<TR, B>($bus, a, $size, v)?;
        next()
    }};
}

fn ill(c: &mut Core) -> Exec<Flow> {
    Err(c.trap(Fault::ILL))
}

handlers! {
    h_ill: Ill | IllN | Rer | Wer | Ritlb0 | Iitlb | Pitlb | Witlb | Ritlb1 | Rdtlb0 | Idtlb | Pdtlb | Wdtlb | Rdtlb1 | Rfdo | Rfdd
        | L32ai | S32c1i | S32ri => |c, d, bus| ill(c);
    h_nop: Nop | NopN | Memw | Extw | Isync | Rsync | Esync | Dsync | Excw => |c, d, bus| next();
    h_ret: Ret | RetN => |c, d, bus| Ok(Flow::Jump(c.r(0)));
    h_jx: Jx => |c, d, bus| Ok(Flow::Jump(c.r(d.s)));
    h_callx0: Callx0 => |c, d, bus| {
        let t = c.r(d.s);
        c.w::<TR>(0, d.imm2);
        Ok(Flow::Jump(t))
    };
    h_call0: Call0 => |c, d, bus| {
        c.w::<TR>(0, d.imm2);
        Ok(Flow::Jump(d.imm))
    };
    h_j: J => |c, d, bus| Ok(Flow::Jump(d.imm));
    h_calln: Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => |c, d, bus| {
        let n: u32 = match d.op {
            Op::Call4 | Op::Callx4 => 1,
            Op::Call8 | Op::Callx8 => 2,
            _ => 3,
        };
        let target = if matches!(d.op, Op::Call4 | Op::Call8 | Op::Call12) { d.imm } else { c.r(d.s) };
        c.w::<TR>((n * 4) as u8, (n << 30) | (d.imm2 & 0x3fff_ffff));
        let p = (c.ps() & !ps::CALLINC) | (n << ps::CALLINC_SHIFT);
        c.set_ps(p);
        Ok(Flow::Jump(target))
    };
    h_entry: Entry => |c, d, bus| {
        let callinc = (c.ps() & ps::CALLINC) >> ps::CALLINC_SHIFT;
        // The window check with the frame CALLINC names (PS at run time).
        c.window_check(((1 << callinc) - 1) << 1, d.imm2)?;
        if d.s > 3 || c.ps() & (ps::WOE | ps::EXCM) != ps::WOE {
            return ill(c);
        }
        let v = c.r(d.s).wrapping_sub(d.imm);
        // a(s) of the callee's window is a(callinc * 4 + s) of this one.
        c.cur[(callinc * 4 + d.s as u32) as usize & 15] = v;
        c.rotate(callinc as i32);
        let wb = c.wb();
        c.set_ws(c.sregs[sr::WINDOWSTART as usize] | 1 << wb);
        if TR {
            c.last_write = Some((d.s, v));
        }
        next()
    };
    h_retw: Retw | RetwN => |c, d, bus| {
        let pc = d.imm;
        let a0 = c.r(0);
        let n = a0 >> 30;
        let wb = c.wb();
        let nw = c.nwin;
        if n == 0 || (1..n).any(|k| c.ws_bit((wb + nw - k) % nw)) {
            return ill(c);
        }
        if !c.ws_bit((wb + nw - n) % nw) {
            // Underflow: the caller's frame is not in the registers.
            c.rotate(-(n as i32));
            let p = (c.ps() & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM;
            c.set_ps(p);
            c.sregs[sr::EPC1 as usize] = pc;
            let off = match n {
                1 => c.cfg.vectors.window_underflow4,
                2 => c.cfg.vectors.window_underflow8,
                _ => c.cfg.vectors.window_underflow12,
            };
            let vector = c.sregs[sr::VECBASE as usize] + off;
            c.pc = vector;
            return Err(c.trap(Fault::Vectored { cause: u32::MAX, vector }));
        }
        c.set_ws(c.sregs[sr::WINDOWSTART as usize] & !(1 << wb));
        c.rotate(-(n as i32));
        Ok(Flow::Jump((a0 & 0x3fff_ffff) | (pc & 0xc000_0000)))
    };
    h_movsp: Movsp => |c, d, bus| {
        let wb = c.wb();
        let nw = c.nwin;
        if (1..=3.min(nw - 1)).all(|k| !c.ws_bit((wb + nw - k) % nw)) {
            return Err(c.trap(Fault::Exc { cause: cause::ALLOCA, vaddr: None }));
        }
        let v = c.r(d.s);
        c.w::<TR>(d.t, v);
        next()
    };
    h_rotw: Rotw => |c, d, bus| {
        c.rotate(d.imm as i32);
        next()
    };
    h_rfw: Rfwo | Rfwu => |c, d, bus| {
        let wb = c.wb();
        let ws = c.sregs[sr::WINDOWSTART as usize];
        c.set_ws(if d.op == Op::Rfwo { ws & !(1 << wb) } else { ws | 1 << wb });
        let owb = (c.ps() & ps::OWB) >> ps::OWB_SHIFT;
        c.set_windowbase(owb);
        let p = c.ps() & !ps::EXCM;
        c.set_ps(p);
        Ok(Flow::Jump(c.sregs[sr::EPC1 as usize]))
    };
    h_rfe: Rfe => |c, d, bus| {
        let p = c.ps() & !ps::EXCM;
        c.set_ps(p);
        Ok(Flow::Jump(c.sregs[sr::EPC1 as usize]))
    };
    h_rfde: Rfde => |c, d, bus| {
        let p = c.ps() & !ps::EXCM;
        c.set_ps(p);
        Ok(Flow::Jump(c.sregs[sr::DEPC as usize]))
    };
    h_rfi: Rfi => |c, d, bus| {
        let level = d.s as u32;
        if !(2..=c.cfg.options.interrupt_levels as u32).contains(&level) {
            return ill(c);
        }
        let eps = c.sregs[(sr::EPS2 as u32 + level - 2) as usize];
        c.set_ps(eps);
        Ok(Flow::Jump(c.sregs[(sr::EPC1 as u32 + level - 1) as usize]))
    };
    h_syscall: Syscall => |c, d, bus| Err(c.trap(Fault::Exc { cause: cause::SYSCALL, vaddr: None }));
    h_break: Break | BreakN => |c, d, bus| {
        let t = if d.op == Op::Break { d.t } else { 0 };
        Err(c.trap(Fault::Stop(Step::Break { s: d.s, t })))
    };
    h_halt: Halt => |c, d, bus| Err(c.trap(Fault::Stop(Step::Halted)));
    h_simcall: Simcall => |c, d, bus| c.simcall::<TR, B>(bus);
    h_rsil: Rsil => |c, d, bus| {
        let p = c.ps();
        c.w::<TR>(d.t, p);
        c.set_ps((p & !ps::INTLEVEL) | d.s as u32);
        next()
    };
    h_waiti: Waiti => |c, d, bus| {
        let p = c.ps();
        c.set_ps((p & !ps::INTLEVEL) | d.s as u32);
        c.waiting = true;
        next()
    };
    h_and: And => |c, d, bus| rst!(c, d, |a, b| a & b);
    h_or: Or => |c, d, bus| rst!(c, d, |a, b| a | b);
    h_xor: Xor => |c, d, bus| rst!(c, d, |a, b| a ^ b);
    h_add: Add | AddN => |c, d, bus| rst!(c, d, |a, b| a.wrapping_add(b));
    h_addx2: Addx2 => |c, d, bus| rst!(c, d, |a, b| (a << 1).wrapping_add(b));
    h_addx4: Addx4 => |c, d, bus| rst!(c, d, |a, b| (a << 2).wrapping_add(b));
    h_addx8: Addx8 => |c, d, bus| rst!(c, d, |a, b| (a << 3).wrapping_add(b));
    h_sub: Sub => |c, d, bus| rst!(c, d, |a, b| a.wrapping_sub(b));
    h_subx2: Subx2 => |c, d, bus| rst!(c, d, |a, b| (a << 1).wrapping_sub(b));
    h_subx4: Subx4 => |c, d, bus| rst!(c, d, |a, b| (a << 2).wrapping_sub(b));
    h_subx8: Subx8 => |c, d, bus| rst!(c, d, |a, b| (a << 3).wrapping_sub(b));
    h_neg: Neg => |c, d, bus| rt!(c, d, |b| b.wrapping_neg());
    h_abs: Abs => |c, d, bus| rt!(c, d, |b| (b as i32).unsigned_abs());
    h_ssr: Ssr => |c, d, bus| {
        c.sregs[sr::SAR as usize] = c.r(d.s) & 31;
        next()
    };
    h_ssl: Ssl => |c, d, bus| {
        c.sregs[sr::SAR as usize] = 32 - (c.r(d.s) & 31);
        next()
    };
    h_ssa8l: Ssa8l => |c, d, bus| {
        c.sregs[sr::SAR as usize] = (c.r(d.s) & 3) * 8;
        next()
    };
    h_ssa8b: Ssa8b => |c, d, bus| {
        c.sregs[sr::SAR as usize] = 32 - (c.r(d.s) & 3) * 8;
        next()
    };
    h_ssai: Ssai => |c, d, bus| {
        c.sregs[sr::SAR as usize] = d.imm;
        next()
    };
    h_nsa: Nsa => |c, d, bus| {
        let vs = c.r(d.s);
        let v = vs ^ (((vs as i32) >> 31) as u32);
        c.w::<TR>(d.t, if v == 0 { 31 } else { v.leading_zeros() - 1 });
        next()
    };
    h_nsau: Nsau => |c, d, bus| {
        let v = c.r(d.s).leading_zeros();
        c.w::<TR>(d.t, v);
        next()
    };
    // A shift by 32 (an encoding the assembler never makes) gives 0, as the ISA defines it.
    h_slli: Slli => |c, d, bus| {
        let v = ((c.r(d.s) as u64) << d.imm) as u32;
        c.w::<TR>(d.r, v);
        next()
    };
    h_srai: Srai => |c, d, bus| rt!(c, d, |b| ((b as i32) >> d.imm) as u32);
    h_srli: Srli => |c, d, bus| rt!(c, d, |b| b >> d.imm);
    h_extui: Extui => |c, d, bus| rt!(c, d, |b| (b >> d.imm) & (((1u64 << d.imm2) - 1) as u32));
    h_src: Src => |c, d, bus| {
        let sa = sar(c);
        rst!(c, d, |a, b| ((((a as u64) << 32) | b as u64) >> sa.min(63)) as u32)
    };
    h_srl: Srl => |c, d, bus| {
        let sa = sar(c);
        rt!(c, d, |b| ((b as u64) >> sa.min(63)) as u32)
    };
    h_sll: Sll => |c, d, bus| {
        let sa = sar(c);
        let v = ((c.r(d.s) as u64) << (32u32.saturating_sub(sa))) as u32;
        c.w::<TR>(d.r, v);
        next()
    };
    h_sra: Sra => |c, d, bus| {
        let sa = sar(c);
        rt!(c, d, |b| ((b as i32 as i64) >> sa.min(63)) as u32)
    };
    h_mul16u: Mul16u => |c, d, bus| rst!(c, d, |a, b| (a & 0xffff) * (b & 0xffff));
    h_mul16s: Mul16s => |c, d, bus| rst!(c, d, |a, b| ((a as i16 as i32) * (b as i16 as i32)) as u32);
    h_mull: Mull => |c, d, bus| rst!(c, d, |a, b| a.wrapping_mul(b));
    h_muluh: Muluh => |c, d, bus| rst!(c, d, |a, b| ((a as u64 * b as u64) >> 32) as u32);
    h_mulsh: Mulsh => |c, d, bus| rst!(c, d, |a, b| ((a as i32 as i64 * b as i32 as i64) >> 32) as u32);
    h_div: Quou | Quos | Remu | Rems => |c, d, bus| {
        let (vs, vt) = (c.r(d.s), c.r(d.t));
        if vt == 0 {
            return Err(c.trap(Fault::Exc { cause: cause::INTEGER_DIVIDE_BY_ZERO, vaddr: None }));
        }
        let v = match d.op {
            Op::Quou => vs / vt,
            Op::Remu => vs % vt,
            Op::Quos => (vs as i32).wrapping_div(vt as i32) as u32,
            _ => (vs as i32).wrapping_rem(vt as i32) as u32,
        };
        c.w::<TR>(d.r, v);
        next()
    };
    h_min: Min => |c, d, bus| rst!(c, d, |a, b| (a as i32).min(b as i32) as u32);
    h_max: Max => |c, d, bus| rst!(c, d, |a, b| (a as i32).max(b as i32) as u32);
    h_minu: Minu => |c, d, bus| rst!(c, d, |a, b| a.min(b));
    h_maxu: Maxu => |c, d, bus| rst!(c, d, |a, b| a.max(b));
    h_sext: Sext => |c, d, bus| {
        let sh = 31 - d.imm;
        let v = (((c.r(d.s) << sh) as i32) >> sh) as u32;
        c.w::<TR>(d.r, v);
        next()
    };
    h_clamps: Clamps => |c, d, bus| {
        let (lo, hi) = (-(1i64 << d.imm), (1i64 << d.imm) - 1);
        let v = (c.r(d.s) as i32 as i64).clamp(lo, hi) as u32;
        c.w::<TR>(d.r, v);
        next()
    };
    h_moveqz: Moveqz => |c, d, bus| movc!(c, d, |b| b == 0);
    h_movnez: Movnez => |c, d, bus| movc!(c, d, |b| b != 0);
    h_movltz: Movltz => |c, d, bus| movc!(c, d, |b| (b as i32) < 0);
    h_movgez: Movgez => |c, d, bus| movc!(c, d, |b| (b as i32) >= 0);
    h_rsr: Rsr => |c, d, bus| {
        let v = c.sreg(d.imm as u8);
        c.w::<TR>(d.t, v);
        next()
    };
    h_wsr: Wsr => |c, d, bus| {
        let v = c.r(d.t);
        c.write_sr(d.imm as u8, v);
        next()
    };
    h_xsr: Xsr => |c, d, bus| {
        let old = c.sreg(d.imm as u8);
        let v = c.r(d.t);
        c.write_sr(d.imm as u8, v);
        c.w::<TR>(d.t, old);
        next()
    };
    h_movi: Movi => |c, d, bus| {
        c.w::<TR>(d.t, d.imm);
        next()
    };
    h_movin: MoviN => |c, d, bus| {
        c.w::<TR>(d.s, d.imm);
        next()
    };
    h_addi: Addi | Addmi => |c, d, bus| {
        let v = c.r(d.s).wrapping_add(d.imm);
        c.w::<TR>(d.t, v);
        next()
    };
    h_addin: AddiN => |c, d, bus| {
        let v = c.r(d.s).wrapping_add(d.imm);
        c.w::<TR>(d.r, v);
        next()
    };
    h_movn: MovN => |c, d, bus| {
        let v = c.r(d.s);
        c.w::<TR>(d.t, v);
        next()
    };
    h_const16: Const16 => |c, d, bus| {
        let v = (c.r(d.t) << 16) | d.imm;
        c.w::<TR>(d.t, v);
        next()
    };
    h_l32r: L32r => |c, d, bus| {
        let v = c.load::<TR, B>(bus, d.imm, Size::B4)?;
        c.w::<TR>(d.t, v);
        next()
    };
    h_l8ui: L8ui => |c, d, bus| ld!(c, d, bus, Size::B1, |v| v);
    h_l16ui: L16ui => |c, d, bus| ld!(c, d, bus, Size::B2, |v| v);
    h_l16si: L16si => |c, d, bus| ld!(c, d, bus, Size::B2, |v| v as i16 as i32 as u32);
    h_l32i: L32i | L32iN | L32e => |c, d, bus| ld!(c, d, bus, Size::B4, |v| v);
    h_s8i: S8i => |c, d, bus| st!(c, d, bus, Size::B1);
    h_s16i: S16i => |c, d, bus| st!(c, d, bus, Size::B2);
    h_s32i: S32i | S32iN | S32e => |c, d, bus| st!(c, d, bus, Size::B4);
    h_beqz: Beqz | BeqzN => |c, d, bus| br(c.r(d.s) == 0, d.imm);
    h_bnez: Bnez | BnezN => |c, d, bus| br(c.r(d.s) != 0, d.imm);
    h_bltz: Bltz => |c, d, bus| br((c.r(d.s) as i32) < 0, d.imm);
    h_bgez: Bgez => |c, d, bus| br((c.r(d.s) as i32) >= 0, d.imm);
    h_beqi: Beqi => |c, d, bus| br(c.r(d.s) == d.imm, d.imm2);
    h_bnei: Bnei => |c, d, bus| br(c.r(d.s) != d.imm, d.imm2);
    h_blti: Blti => |c, d, bus| br((c.r(d.s) as i32) < d.imm as i32, d.imm2);
    h_bgei: Bgei => |c, d, bus| br((c.r(d.s) as i32) >= d.imm as i32, d.imm2);
    h_bltui: Bltui => |c, d, bus| br(c.r(d.s) < d.imm, d.imm2);
    h_bgeui: Bgeui => |c, d, bus| br(c.r(d.s) >= d.imm, d.imm2);
    h_bnone: Bnone => |c, d, bus| br(c.r(d.s) & c.r(d.t) == 0, d.imm);
    h_bany: Bany => |c, d, bus| br(c.r(d.s) & c.r(d.t) != 0, d.imm);
    h_ball: Ball => |c, d, bus| br(!c.r(d.s) & c.r(d.t) == 0, d.imm);
    h_bnall: Bnall => |c, d, bus| br(!c.r(d.s) & c.r(d.t) != 0, d.imm);
    h_beq: Beq => |c, d, bus| br(c.r(d.s) == c.r(d.t), d.imm);
    h_bne: Bne => |c, d, bus| br(c.r(d.s) != c.r(d.t), d.imm);
    h_blt: Blt => |c, d, bus| br((c.r(d.s) as i32) < (c.r(d.t) as i32), d.imm);
    h_bge: Bge => |c, d, bus| br((c.r(d.s) as i32) >= (c.r(d.t) as i32), d.imm);
    h_bltu: Bltu => |c, d, bus| br(c.r(d.s) < c.r(d.t), d.imm);
    h_bgeu: Bgeu => |c, d, bus| br(c.r(d.s) >= c.r(d.t), d.imm);
    h_bbc: Bbc => |c, d, bus| br(c.r(d.s) >> (c.r(d.t) & 31) & 1 == 0, d.imm);
    h_bbs: Bbs => |c, d, bus| br(c.r(d.s) >> (c.r(d.t) & 31) & 1 != 0, d.imm);
    h_bbci: Bbci => |c, d, bus| br(c.r(d.s) >> d.imm & 1 == 0, d.imm2);
    h_bbsi: Bbsi => |c, d, bus| br(c.r(d.s) >> d.imm & 1 != 0, d.imm2);
    h_loop: Loop | Loopnez | Loopgtz => |c, d, bus| {
        let (vs, end) = (c.r(d.s), d.imm);
        c.sregs[sr::LCOUNT as usize] = vs.wrapping_sub(1);
        c.sregs[sr::LBEG as usize] = d.imm2;
        c.sregs[sr::LEND as usize] = end;
        let skip = match d.op {
            Op::Loopnez => vs == 0,
            Op::Loopgtz => (vs as i32) <= 0,
            _ => false,
        };
        if skip { Ok(Flow::Jump(end)) } else { next() }
    };
}
