//! The executor: architectural state and one-instruction steps.
//!
//! Pins: [`Core::set_run_stall`] (the core does not advance while high),
//! [`Core::reset`] to the configuration's reset vector, [`Core::set_irq`]
//! (level-sensitive interrupt inputs, all level 1), and the halted/running
//! outputs. Exceptions go through the configuration's vectors with EPC1,
//! EXCCAUSE, EXCVADDR, PS as the ISA defines; windowed-register overflow and
//! underflow raise the window vectors. Nothing panics on any input.

use super::bus::{Bus, BusError, Size};
use super::config::{sr, CoreConfig};
use super::isa::{decode_word, length, Insn, Op, Opnd};

/// EXCCAUSE values.
pub mod cause {
    pub const ILLEGAL_INSTRUCTION: u32 = 0;
    pub const SYSCALL: u32 = 1;
    pub const INSTRUCTION_FETCH_ERROR: u32 = 2;
    pub const LOAD_STORE_ERROR: u32 = 3;
    pub const LEVEL1_INTERRUPT: u32 = 4;
    pub const ALLOCA: u32 = 5;
    pub const INTEGER_DIVIDE_BY_ZERO: u32 = 6;
    pub const LOAD_STORE_ALIGNMENT: u32 = 9;
}

/// PS fields.
pub mod ps {
    pub const INTLEVEL: u32 = 0xf;
    pub const EXCM: u32 = 1 << 4;
    pub const UM: u32 = 1 << 5;
    pub const OWB_SHIFT: u32 = 8;
    pub const OWB: u32 = 0xf << OWB_SHIFT;
    pub const CALLINC_SHIFT: u32 = 16;
    pub const CALLINC: u32 = 3 << CALLINC_SHIFT;
    pub const WOE: u32 = 1 << 18;
    /// Reset value: INTLEVEL 15, EXCM.
    pub const RESET: u32 = 0x1f;
}

/// A memory access of a retired instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemAccess {
    pub store: bool,
    pub addr: u32,
    pub size: u8,
    pub value: u32,
}

/// One retired instruction (the trace record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retire {
    pub pc: u32,
    pub insn: Insn,
    /// Address register written (window-relative index, value).
    pub reg_write: Option<(u8, u32)>,
    pub mem: Option<MemAccess>,
}

impl Retire {
    /// `pc: text  [aN <- v] [store/load addr]`.
    pub fn text(&self) -> String {
        let mut s = format!("{:08x}: {}", self.pc, super::disasm::format(&self.insn, self.pc).replace('\t', " "));
        if let Some((r, v)) = self.reg_write {
            s += &format!("  a{r}={v:#x}");
        }
        if let Some(m) = self.mem {
            s += &format!("  {}{} [{:#x}]={:#x}", if m.store { "st" } else { "ld" }, m.size * 8, m.addr, m.value);
        }
        s
    }
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Retired(Retire),
    /// An exception or interrupt was taken; PC is now the vector.
    Exception { cause: u32, pc: u32, vector: u32 },
    /// RunStall is high.
    Stalled,
    /// The bus asked to wait; nothing changed.
    BusWait,
    /// WAITI: waiting for an interrupt.
    Waiting,
    /// HALT executed (or earlier): the core stopped.
    Halted,
    /// BREAK / BREAK.N: stopped for a debugger.
    Break { s: u8, t: u8 },
    /// SIMCALL exit: the program asked to stop with this status.
    Exit(u32),
}

enum Flow {
    Next,
    Jump(u32),
}

enum Fault {
    Exc { cause: u32, vaddr: Option<u32> },
    /// Window exceptions and others that already set PC.
    Vectored { cause: u32, vector: u32 },
    Wait,
    Stop(Step),
}

type Exec<T> = Result<T, Fault>;

/// One Xtensa core.
#[derive(Debug, Clone)]
pub struct Core {
    cfg: CoreConfig,
    ar: [u32; 64],
    pub pc: u32,
    sregs: [u32; 256],
    halted: bool,
    waiting: bool,
    run_stall: bool,
    irq_lines: u32,
    retired: u64,
    last_write: Option<(u8, u32)>,
    last_mem: Option<MemAccess>,
    /// SIMCALL write (fd 1/2) output.
    pub console: Vec<u8>,
    /// Decoded-instruction cache, direct-mapped by PC and validated by the
    /// fetched word (so code written at run time is decoded afresh).
    icache: Vec<(u32, u32, Option<Insn>)>,
}

const ICACHE_ENTRIES: usize = 4096;

impl Core {
    /// A core in its reset state.
    pub fn new(cfg: CoreConfig) -> Core {
        let mut c = Core {
            cfg,
            ar: [0; 64],
            pc: 0,
            sregs: [0; 256],
            halted: false,
            waiting: false,
            run_stall: false,
            irq_lines: 0,
            retired: 0,
            last_write: None,
            last_mem: None,
            console: Vec::new(),
            icache: vec![(u32::MAX, 0, None); ICACHE_ENTRIES],
        };
        c.reset();
        c
    }

    pub fn config(&self) -> &CoreConfig {
        &self.cfg
    }

    /// Reset pin: PC to the reset vector, PS = 0x1f, window at 0, VECBASE to its reset value.
    pub fn reset(&mut self) {
        self.reset_to(self.cfg.reset_vector);
    }

    /// Reset, starting at `vector` (e.g. a secondary reset vector).
    pub fn reset_to(&mut self, vector: u32) {
        self.ar = [0; 64];
        self.sregs = [0; 256];
        self.sregs[sr::PS as usize] = ps::RESET;
        self.sregs[sr::VECBASE as usize] = self.cfg.vecbase;
        self.sregs[sr::WINDOWSTART as usize] = 1;
        self.sregs[sr::PRID as usize] = self.cfg.prid;
        self.pc = vector;
        self.halted = false;
        self.waiting = false;
        self.retired = 0;
    }

    /// RunStall pin.
    pub fn set_run_stall(&mut self, on: bool) {
        self.run_stall = on;
    }
    pub fn run_stall(&self) -> bool {
        self.run_stall
    }
    /// Interrupt input `line` (level-sensitive).
    pub fn set_irq(&mut self, line: u32, level: bool) {
        if line < 32 {
            if level {
                self.irq_lines |= 1 << line;
            } else {
                self.irq_lines &= !(1 << line);
            }
        }
    }
    /// Halted output (HALT executed).
    pub fn halted(&self) -> bool {
        self.halted
    }
    /// Running output: not halted, not stalled, not waiting.
    pub fn running(&self) -> bool {
        !self.halted && !self.run_stall && !self.waiting
    }
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Address register `i` of the current window.
    pub fn a(&self, i: usize) -> u32 {
        self.ar[self.phys(i)]
    }
    pub fn set_a(&mut self, i: usize, v: u32) {
        let p = self.phys(i);
        self.ar[p] = v;
    }
    /// The 64 physical registers (16 used without windows).
    pub fn physical(&self) -> &[u32; 64] {
        &self.ar
    }
    /// Special register by number (raw storage; INTERRUPT includes the input lines).
    pub fn sreg(&self, n: u8) -> u32 {
        match n {
            sr::INTERRUPT => self.sregs[n as usize] | self.irq_lines,
            sr::CCOUNT => self.retired as u32,
            _ => self.sregs[n as usize],
        }
    }
    pub fn set_sreg(&mut self, n: u8, v: u32) {
        self.sregs[n as usize] = v;
    }

    /// Number of register windows (physical registers / 4).
    fn nwin(&self) -> u32 {
        (self.cfg.options.num_aregs as u32 / 4).max(1)
    }
    fn wb(&self) -> u32 {
        self.sregs[sr::WINDOWBASE as usize] % self.nwin()
    }
    fn phys(&self, i: usize) -> usize {
        if self.cfg.options.windowed {
            (self.wb() as usize * 4 + (i & 15)) % (self.nwin() as usize * 4)
        } else {
            i & 15
        }
    }
    fn ps(&self) -> u32 {
        self.sregs[sr::PS as usize]
    }
    fn set_ps(&mut self, v: u32) {
        self.sregs[sr::PS as usize] = v;
    }
    fn r(&self, i: u32) -> u32 {
        self.a(i as usize)
    }
    fn w(&mut self, i: u32, v: u32) {
        self.set_a(i as usize, v);
        self.last_write = Some((i as u8, v));
    }

    fn rotate(&mut self, delta: i32) {
        let wb = (self.wb() as i32 + delta).rem_euclid(self.nwin() as i32) as u32;
        self.sregs[sr::WINDOWBASE as usize] = wb;
    }
    fn ws_bit(&self, wb: u32) -> bool {
        self.sregs[sr::WINDOWSTART as usize] >> (wb % self.nwin()) & 1 != 0
    }

    /// Take an exception: EPC1/EXCCAUSE/EXCVADDR/PS.EXCM, or a double exception.
    fn take(&mut self, cause: u32, vaddr: Option<u32>) -> Step {
        let pc = self.pc;
        let vb = self.sregs[sr::VECBASE as usize];
        let ps_v = self.ps();
        self.sregs[sr::EXCCAUSE as usize] = cause;
        if let Some(v) = vaddr {
            self.sregs[sr::EXCVADDR as usize] = v;
        }
        let vector = if ps_v & ps::EXCM != 0 {
            self.sregs[sr::DEPC as usize] = pc;
            vb + self.cfg.vectors.double
        } else {
            self.sregs[sr::EPC1 as usize] = pc;
            self.set_ps(ps_v | ps::EXCM);
            vb + if ps_v & ps::UM != 0 { self.cfg.vectors.user } else { self.cfg.vectors.kernel }
        };
        self.pc = vector;
        self.waiting = false;
        Step::Exception { cause, pc, vector }
    }

    /// The window check before an instruction that uses registers up to
    /// `max_reg` (DIGEST-independent ISA rule): a live frame within the
    /// registers used raises the overflow vector.
    fn window_check(&mut self, max_reg: u32) -> Exec<()> {
        if !self.cfg.options.windowed || max_reg < 4 {
            return Ok(());
        }
        if self.ps() & (ps::WOE | ps::EXCM) != ps::WOE {
            return Ok(());
        }
        let w = max_reg / 4;
        let wb = self.wb();
        let Some(n) = (1..=w).find(|&n| self.ws_bit(wb + n)) else { return Ok(()) };
        let m = (wb + n) % self.nwin();
        self.rotate(n as i32);
        let p = (self.ps() & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM;
        self.set_ps(p);
        self.sregs[sr::EPC1 as usize] = self.pc;
        let off = if self.ws_bit(m + 1) {
            self.cfg.vectors.window_overflow4
        } else if self.ws_bit(m + 2) {
            self.cfg.vectors.window_overflow8
        } else {
            self.cfg.vectors.window_overflow12
        };
        let vector = self.sregs[sr::VECBASE as usize] + off;
        self.pc = vector;
        Err(Fault::Vectored { cause: u32::MAX, vector })
    }

    fn load(&mut self, bus: &mut dyn Bus, addr: u32, size: Size) -> Exec<u32> {
        if self.cfg.unaligned_exception && !addr.is_multiple_of(size as u32) {
            return Err(Fault::Exc { cause: cause::LOAD_STORE_ALIGNMENT, vaddr: Some(addr) });
        }
        match bus.load(addr, size) {
            Ok(v) => {
                self.last_mem = Some(MemAccess { store: false, addr, size: size as u8, value: v });
                Ok(v)
            }
            Err(BusError::Pending) => Err(Fault::Wait),
            Err(BusError::Fault { addr }) => Err(Fault::Exc { cause: cause::LOAD_STORE_ERROR, vaddr: Some(addr) }),
        }
    }

    fn store(&mut self, bus: &mut dyn Bus, addr: u32, size: Size, value: u32) -> Exec<()> {
        if self.cfg.unaligned_exception && !addr.is_multiple_of(size as u32) {
            return Err(Fault::Exc { cause: cause::LOAD_STORE_ALIGNMENT, vaddr: Some(addr) });
        }
        match bus.store(addr, size, value) {
            Ok(()) => {
                let mask = if size == Size::B4 { u32::MAX } else { (1u32 << (8 * size as u32)) - 1 };
                self.last_mem = Some(MemAccess { store: true, addr, size: size as u8, value: value & mask });
                Ok(())
            }
            Err(BusError::Pending) => Err(Fault::Wait),
            Err(BusError::Fault { addr }) => Err(Fault::Exc { cause: cause::LOAD_STORE_ERROR, vaddr: Some(addr) }),
        }
    }

    /// Pending, enabled level-1 interrupt that can be taken now.
    fn interrupt_pending(&self) -> bool {
        let p = self.ps();
        self.sreg(sr::INTERRUPT) & self.sregs[sr::INTENABLE as usize] != 0 && p & ps::EXCM == 0 && (p & ps::INTLEVEL) < 1
    }

    /// The instruction word at PC and its length (2 or 3).
    fn fetch_word(&self, bus: &mut dyn Bus) -> Result<(u32, u8), Fault2> {
        let mut buf = [0u8; 3];
        let n = bus.fetch(self.pc, &mut buf).map_err(|e| match e {
            BusError::Pending => Fault2::Wait,
            BusError::Fault { addr } => Fault2::Fetch(addr),
        })?;
        let len = length(buf[0], &self.cfg.options).ok_or(Fault2::Illegal)?;
        if n < len as usize {
            return Err(Fault2::Fetch(self.pc.wrapping_add(n as u32)));
        }
        let word = if len == 2 { u16::from_le_bytes([buf[0], buf[1]]) as u32 } else { u32::from_le_bytes([buf[0], buf[1], buf[2], 0]) };
        Ok((word, len))
    }

    /// Fetch and decode the instruction at PC (no cache).
    pub fn fetch(&self, bus: &mut dyn Bus) -> Result<Insn, Fault2> {
        let (word, len) = self.fetch_word(bus)?;
        decode_word(word, len, &self.cfg.options).map_err(|_| Fault2::Illegal)
    }

    /// [`Core::fetch`] through the decoded-instruction cache.
    fn fetch_cached(&mut self, bus: &mut dyn Bus) -> Result<Insn, Fault2> {
        let (word, len) = self.fetch_word(bus)?;
        let slot = self.pc as usize % ICACHE_ENTRIES;
        let e = self.icache[slot];
        if e.0 == self.pc && e.1 == word {
            return e.2.ok_or(Fault2::Illegal);
        }
        let insn = decode_word(word, len, &self.cfg.options).ok();
        self.icache[slot] = (self.pc, word, insn);
        insn.ok_or(Fault2::Illegal)
    }

    /// Advance one instruction (or take one exception/interrupt).
    pub fn step(&mut self, bus: &mut dyn Bus) -> Step {
        if self.halted {
            return Step::Halted;
        }
        if self.run_stall {
            return Step::Stalled;
        }
        if self.interrupt_pending() {
            self.waiting = false;
            return self.take(cause::LEVEL1_INTERRUPT, None);
        }
        if self.waiting {
            return Step::Waiting;
        }
        let insn = match self.fetch_cached(bus) {
            Ok(i) => i,
            Err(Fault2::Wait) => return Step::BusWait,
            Err(Fault2::Fetch(a)) => return self.take(cause::INSTRUCTION_FETCH_ERROR, Some(a)),
            Err(Fault2::Illegal) => return self.take(cause::ILLEGAL_INSTRUCTION, None),
        };
        self.last_write = None;
        self.last_mem = None;
        let pc = self.pc;
        match self.exec(insn, bus) {
            Ok(flow) => {
                let next = pc.wrapping_add(insn.len as u32);
                self.pc = match flow {
                    Flow::Jump(t) => t,
                    Flow::Next => {
                        let lend = self.sregs[sr::LEND as usize];
                        let lcount = self.sregs[sr::LCOUNT as usize];
                        if self.cfg.options.loops && next == lend && lcount != 0 && self.ps() & ps::EXCM == 0 {
                            self.sregs[sr::LCOUNT as usize] = lcount - 1;
                            self.sregs[sr::LBEG as usize]
                        } else {
                            next
                        }
                    }
                };
                self.retired += 1;
                Step::Retired(Retire { pc, insn, reg_write: self.last_write, mem: self.last_mem })
            }
            Err(Fault::Exc { cause, vaddr }) => {
                // Precise: every instruction checks before it writes anything.
                self.pc = pc;
                self.take(cause, vaddr)
            }
            Err(Fault::Vectored { cause, vector }) => Step::Exception { cause, pc, vector },
            Err(Fault::Wait) => {
                self.pc = pc;
                Step::BusWait
            }
            Err(Fault::Stop(s)) => {
                if matches!(s, Step::Halted | Step::Exit(_) | Step::Break { .. }) {
                    self.halted = true;
                }
                self.retired += 1;
                s
            }
        }
    }

    /// Run until halted/exit/break or `max` instructions; returns the last step.
    pub fn run(&mut self, bus: &mut dyn Bus, max: u64) -> Step {
        let mut last = Step::Stalled;
        for _ in 0..max {
            last = self.step(bus);
            match last {
                Step::Halted | Step::Exit(_) | Step::Break { .. } | Step::Stalled | Step::Waiting => return last,
                _ => {}
            }
        }
        last
    }

    fn read_sr(&mut self, n: u8) -> u32 {
        self.sreg(n)
    }

    fn write_sr(&mut self, n: u8, v: u32) {
        match n {
            sr::WINDOWBASE => self.sregs[n as usize] = v % self.nwin(),
            sr::WINDOWSTART => self.sregs[n as usize] = v & ((1u64 << self.nwin()) - 1) as u32,
            sr::INTERRUPT => self.sregs[n as usize] |= v,
            sr::INTCLEAR => self.sregs[sr::INTERRUPT as usize] &= !v,
            sr::SAR => self.sregs[n as usize] = v & 63,
            sr::CCOUNT => self.retired = v as u64,
            sr::PRID => {}
            _ => self.sregs[n as usize] = v,
        }
    }

    fn max_reg(&self, insn: &Insn) -> u32 {
        let mut m = 0;
        for &o in insn.def().ops {
            let v = match o {
                Opnd::Ar => insn.r(),
                Opnd::As => insn.s(),
                Opnd::At => insn.t(),
                _ => continue,
            };
            m = m.max(v);
        }
        match insn.def().op {
            Op::Call4 | Op::Callx4 => m.max(4),
            Op::Call8 | Op::Callx8 => m.max(8),
            Op::Call12 | Op::Callx12 => m.max(12),
            Op::Entry => m.max(((self.ps() & ps::CALLINC) >> ps::CALLINC_SHIFT) * 4),
            _ => m,
        }
    }

    fn exec(&mut self, i: Insn, bus: &mut dyn Bus) -> Exec<Flow> {
        use Op::*;
        let (r, s, t) = (i.r(), i.s(), i.t());
        let pc = self.pc;
        let o = |k: usize| i.operand(i.def().ops[k], pc);
        let ill = Err(Fault::Exc { cause: cause::ILLEGAL_INSTRUCTION, vaddr: None });
        self.window_check(self.max_reg(&i))?;
        let br = |c: bool, tgt: i64| Ok(if c { Flow::Jump(tgt as u32) } else { Flow::Next });
        let (vs, vt) = (self.r(s), self.r(t));
        match i.def().op {
            Ill | IllN => return ill,
            Nop | NopN | Memw | Extw | Isync | Rsync | Esync | Dsync | Excw => {}
            Ret | RetN => return Ok(Flow::Jump(self.r(0))),
            Jx => return Ok(Flow::Jump(vs)),
            Callx0 => {
                self.w(0, pc.wrapping_add(3));
                return Ok(Flow::Jump(vs));
            }
            Call0 => {
                self.w(0, pc.wrapping_add(3));
                return Ok(Flow::Jump(o(0) as u32));
            }
            J => return Ok(Flow::Jump(o(0) as u32)),
            Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                let n: u32 = match i.def().op {
                    Call4 | Callx4 => 1,
                    Call8 | Callx8 => 2,
                    _ => 3,
                };
                let target = if matches!(i.def().op, Call4 | Call8 | Call12) { o(0) as u32 } else { vs };
                self.w(n * 4, (n << 30) | (pc.wrapping_add(3) & 0x3fff_ffff));
                let p = (self.ps() & !ps::CALLINC) | (n << ps::CALLINC_SHIFT);
                self.set_ps(p);
                return Ok(Flow::Jump(target));
            }
            Entry => {
                let callinc = (self.ps() & ps::CALLINC) >> ps::CALLINC_SHIFT;
                if s > 3 || self.ps() & (ps::WOE | ps::EXCM) != ps::WOE {
                    return ill;
                }
                let v = self.r(s).wrapping_sub(o(1) as u32);
                let p = ((self.wb() + callinc) * 4 + s) as usize % (self.nwin() as usize * 4);
                self.ar[p] = v;
                self.rotate(callinc as i32);
                let wb = self.wb();
                self.sregs[sr::WINDOWSTART as usize] |= 1 << wb;
                self.last_write = Some((s as u8, v));
            }
            Retw | RetwN => {
                let a0 = self.r(0);
                let n = a0 >> 30;
                let wb = self.wb();
                let nw = self.nwin();
                if n == 0 || (1..n).any(|k| self.ws_bit((wb + nw - k) % nw)) {
                    return ill;
                }
                if !self.ws_bit((wb + nw - n) % nw) {
                    // Underflow: the caller's frame is not in the registers.
                    self.rotate(-(n as i32));
                    let p = (self.ps() & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM;
                    self.set_ps(p);
                    self.sregs[sr::EPC1 as usize] = pc;
                    let off = match n {
                        1 => self.cfg.vectors.window_underflow4,
                        2 => self.cfg.vectors.window_underflow8,
                        _ => self.cfg.vectors.window_underflow12,
                    };
                    let vector = self.sregs[sr::VECBASE as usize] + off;
                    self.pc = vector;
                    return Err(Fault::Vectored { cause: u32::MAX, vector });
                }
                self.sregs[sr::WINDOWSTART as usize] &= !(1 << wb);
                self.rotate(-(n as i32));
                return Ok(Flow::Jump((a0 & 0x3fff_ffff) | (pc & 0xc000_0000)));
            }
            Movsp => {
                let wb = self.wb();
                let nw = self.nwin();
                if (1..=3.min(nw - 1)).all(|k| !self.ws_bit((wb + nw - k) % nw)) {
                    return Err(Fault::Exc { cause: cause::ALLOCA, vaddr: None });
                }
                self.w(t, vs);
            }
            Rotw => self.rotate(o(0) as i32),
            Rfwo | Rfwu => {
                let wb = self.wb();
                if i.def().op == Rfwo {
                    self.sregs[sr::WINDOWSTART as usize] &= !(1 << wb);
                } else {
                    self.sregs[sr::WINDOWSTART as usize] |= 1 << wb;
                }
                let owb = (self.ps() & ps::OWB) >> ps::OWB_SHIFT;
                self.sregs[sr::WINDOWBASE as usize] = owb;
                let p = self.ps() & !ps::EXCM;
                self.set_ps(p);
                return Ok(Flow::Jump(self.sregs[sr::EPC1 as usize]));
            }
            Rfe => {
                let p = self.ps() & !ps::EXCM;
                self.set_ps(p);
                return Ok(Flow::Jump(self.sregs[sr::EPC1 as usize]));
            }
            Rfde => {
                let p = self.ps() & !ps::EXCM;
                self.set_ps(p);
                return Ok(Flow::Jump(self.sregs[sr::DEPC as usize]));
            }
            Rfi => {
                let level = s;
                if !(2..=self.cfg.options.interrupt_levels as u32).contains(&level) {
                    return ill;
                }
                let eps = self.sregs[(sr::EPS2 as u32 + level - 2) as usize];
                self.set_ps(eps);
                return Ok(Flow::Jump(self.sregs[(sr::EPC1 as u32 + level - 1) as usize]));
            }
            Syscall => return Err(Fault::Exc { cause: cause::SYSCALL, vaddr: None }),
            Break | BreakN => return Err(Fault::Stop(Step::Break { s: s as u8, t: if i.def().op == Break { t as u8 } else { 0 } })),
            Halt => return Err(Fault::Stop(Step::Halted)),
            Simcall => return self.simcall(bus),
            Rsil => {
                let p = self.ps();
                self.w(t, p);
                self.set_ps((p & !ps::INTLEVEL) | s);
            }
            Waiti => {
                let p = self.ps();
                self.set_ps((p & !ps::INTLEVEL) | s);
                self.waiting = true;
            }
            And => self.w(r, vs & vt),
            Or => self.w(r, vs | vt),
            Xor => self.w(r, vs ^ vt),
            Add | AddN => self.w(r, vs.wrapping_add(vt)),
            Addx2 => self.w(r, (vs << 1).wrapping_add(vt)),
            Addx4 => self.w(r, (vs << 2).wrapping_add(vt)),
            Addx8 => self.w(r, (vs << 3).wrapping_add(vt)),
            Sub => self.w(r, vs.wrapping_sub(vt)),
            Subx2 => self.w(r, (vs << 1).wrapping_sub(vt)),
            Subx4 => self.w(r, (vs << 2).wrapping_sub(vt)),
            Subx8 => self.w(r, (vs << 3).wrapping_sub(vt)),
            Neg => self.w(r, vt.wrapping_neg()),
            Abs => self.w(r, (vt as i32).unsigned_abs()),
            Ssr => self.sregs[sr::SAR as usize] = vs & 31,
            Ssl => self.sregs[sr::SAR as usize] = 32 - (vs & 31),
            Ssa8l => self.sregs[sr::SAR as usize] = (vs & 3) * 8,
            Ssa8b => self.sregs[sr::SAR as usize] = 32 - (vs & 3) * 8,
            Ssai => self.sregs[sr::SAR as usize] = o(0) as u32,
            Nsa => {
                let v = vs ^ (((vs as i32) >> 31) as u32);
                self.w(t, if v == 0 { 31 } else { v.leading_zeros() - 1 });
            }
            Nsau => self.w(t, vs.leading_zeros()),
            Slli => self.w(r, vs << o(2)),
            Srai => self.w(r, ((vt as i32) >> o(2)) as u32),
            Srli => self.w(r, vt >> o(2)),
            Extui => {
                let (sh, bits) = (o(2) as u32, o(3) as u32);
                self.w(r, (vt >> sh) & (((1u64 << bits) - 1) as u32));
            }
            Src => {
                let sar = self.sregs[sr::SAR as usize] & 63;
                self.w(r, ((((vs as u64) << 32) | vt as u64) >> sar.min(63)) as u32);
            }
            Srl => {
                let sar = self.sregs[sr::SAR as usize] & 63;
                self.w(r, ((vt as u64) >> sar.min(63)) as u32);
            }
            Sll => {
                let sar = self.sregs[sr::SAR as usize] & 63;
                self.w(r, ((vs as u64) << (32u32.saturating_sub(sar))) as u32);
            }
            Sra => {
                let sar = self.sregs[sr::SAR as usize] & 63;
                self.w(r, ((vt as i32 as i64) >> sar.min(63)) as u32);
            }
            Mul16u => self.w(r, (vs & 0xffff) * (vt & 0xffff)),
            Mul16s => self.w(r, ((vs as i16 as i32) * (vt as i16 as i32)) as u32),
            Mull => self.w(r, vs.wrapping_mul(vt)),
            Muluh => self.w(r, ((vs as u64 * vt as u64) >> 32) as u32),
            Mulsh => self.w(r, ((vs as i32 as i64 * vt as i32 as i64) >> 32) as u32),
            Quou | Quos | Remu | Rems => {
                if vt == 0 {
                    return Err(Fault::Exc { cause: cause::INTEGER_DIVIDE_BY_ZERO, vaddr: None });
                }
                let v = match i.def().op {
                    Quou => vs / vt,
                    Remu => vs % vt,
                    Quos => (vs as i32).wrapping_div(vt as i32) as u32,
                    _ => (vs as i32).wrapping_rem(vt as i32) as u32,
                };
                self.w(r, v);
            }
            Min => self.w(r, (vs as i32).min(vt as i32) as u32),
            Max => self.w(r, (vs as i32).max(vt as i32) as u32),
            Minu => self.w(r, vs.min(vt)),
            Maxu => self.w(r, vs.max(vt)),
            Sext => {
                let b = o(2) as u32;
                let sh = 31 - b;
                self.w(r, (((vs << sh) as i32) >> sh) as u32);
            }
            Clamps => {
                let b = o(2) as u32;
                let (lo, hi) = (-(1i64 << b), (1i64 << b) - 1);
                self.w(r, (vs as i32 as i64).clamp(lo, hi) as u32);
            }
            Moveqz => {
                if vt == 0 {
                    self.w(r, vs)
                }
            }
            Movnez => {
                if vt != 0 {
                    self.w(r, vs)
                }
            }
            Movltz => {
                if (vt as i32) < 0 {
                    self.w(r, vs)
                }
            }
            Movgez => {
                if (vt as i32) >= 0 {
                    self.w(r, vs)
                }
            }
            Rsr => {
                let v = self.read_sr(i.sr());
                self.w(t, v);
            }
            Wsr => self.write_sr(i.sr(), vt),
            Xsr => {
                let old = self.read_sr(i.sr());
                self.write_sr(i.sr(), vt);
                self.w(t, old);
            }
            Movi | MoviN => {
                let dst = if i.def().op == Movi { t } else { s };
                self.w(dst, o(1) as u32);
            }
            Addi => self.w(t, vs.wrapping_add(o(2) as u32)),
            Addmi => self.w(t, vs.wrapping_add(o(2) as u32)),
            AddiN => self.w(r, vs.wrapping_add(o(2) as u32)),
            MovN => self.w(t, vs),
            Const16 => self.w(t, (vt << 16) | o(1) as u32),
            L32r => {
                let v = self.load(bus, o(1) as u32, Size::B4)?;
                self.w(t, v);
            }
            L8ui | L16ui | L16si | L32i | L32iN | L32e => {
                let off = o(2) as u32;
                let addr = vs.wrapping_add(off);
                let v = match i.def().op {
                    L8ui => self.load(bus, addr, Size::B1)?,
                    L16ui => self.load(bus, addr, Size::B2)?,
                    L16si => self.load(bus, addr, Size::B2)? as i16 as i32 as u32,
                    _ => self.load(bus, addr, Size::B4)?,
                };
                self.w(t, v);
            }
            S8i | S16i | S32i | S32iN | S32e => {
                let addr = vs.wrapping_add(o(2) as u32);
                let size = match i.def().op {
                    S8i => Size::B1,
                    S16i => Size::B2,
                    _ => Size::B4,
                };
                self.store(bus, addr, size, vt)?;
            }
            Beqz | BeqzN => return br(vs == 0, o(1)),
            Bnez | BnezN => return br(vs != 0, o(1)),
            Bltz => return br((vs as i32) < 0, o(1)),
            Bgez => return br((vs as i32) >= 0, o(1)),
            Beqi => return br(vs as i32 as i64 == o(1), o(2)),
            Bnei => return br(vs as i32 as i64 != o(1), o(2)),
            Blti => return br((vs as i32 as i64) < o(1), o(2)),
            Bgei => return br(vs as i32 as i64 >= o(1), o(2)),
            Bltui => return br((vs as i64) < o(1), o(2)),
            Bgeui => return br(vs as i64 >= o(1), o(2)),
            Bnone => return br(vs & vt == 0, o(2)),
            Bany => return br(vs & vt != 0, o(2)),
            Ball => return br(!vs & vt == 0, o(2)),
            Bnall => return br(!vs & vt != 0, o(2)),
            Beq => return br(vs == vt, o(2)),
            Bne => return br(vs != vt, o(2)),
            Blt => return br((vs as i32) < (vt as i32), o(2)),
            Bge => return br((vs as i32) >= (vt as i32), o(2)),
            Bltu => return br(vs < vt, o(2)),
            Bgeu => return br(vs >= vt, o(2)),
            Bbc => return br(vs >> (vt & 31) & 1 == 0, o(2)),
            Bbs => return br(vs >> (vt & 31) & 1 != 0, o(2)),
            Bbci => return br(vs >> o(1) & 1 == 0, o(2)),
            Bbsi => return br(vs >> o(1) & 1 != 0, o(2)),
            Loop | Loopnez | Loopgtz => {
                let end = o(1) as u32;
                self.sregs[sr::LCOUNT as usize] = vs.wrapping_sub(1);
                self.sregs[sr::LBEG as usize] = pc.wrapping_add(3);
                self.sregs[sr::LEND as usize] = end;
                let skip = match i.def().op {
                    Loopnez => vs == 0,
                    Loopgtz => (vs as i32) <= 0,
                    _ => false,
                };
                if skip {
                    return Ok(Flow::Jump(end));
                }
            }
            // Configured for the oracle only (lx106): not executable here.
            Rer | Wer | Ritlb0 | Iitlb | Pitlb | Witlb | Ritlb1 | Rdtlb0 | Idtlb | Pdtlb | Wdtlb | Rdtlb1 | Rfdo | Rfdd | L32ai | S32c1i
            | S32ri => return ill,
        }
        Ok(Flow::Next)
    }

    /// SIMCALL semihosting (the calls QEMU's `sim` machine offers that the
    /// differential tests use): a2 = 1 exit(a3), a2 = 4 write(a3 fd, a4 buf, a5 len).
    fn simcall(&mut self, bus: &mut dyn Bus) -> Exec<Flow> {
        match self.r(2) {
            1 => Err(Fault::Stop(Step::Exit(self.r(3)))),
            4 => {
                let (buf, len) = (self.r(4), self.r(5));
                for k in 0..len.min(1 << 16) {
                    let b = self.load(bus, buf.wrapping_add(k), Size::B1)?;
                    self.console.push(b as u8);
                }
                self.w(2, len);
                Ok(Flow::Next)
            }
            _ => {
                self.w(2, u32::MAX);
                Ok(Flow::Next)
            }
        }
    }
}

/// Why a fetch did not produce an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault2 {
    Wait,
    Fetch(u32),
    Illegal,
}
