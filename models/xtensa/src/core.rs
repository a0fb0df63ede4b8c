//! The executor: architectural state and one-instruction steps.
//!
//! Pins: [`Core::set_run_stall`] (the core does not advance while high),
//! [`Core::reset`] to the configuration's reset vector, [`Core::set_irq`]
//! (level-sensitive interrupt inputs, all level 1), and the halted/running
//! outputs. Exceptions go through the configuration's vectors with EPC1,
//! EXCCAUSE, EXCVADDR, PS as the ISA defines; windowed-register overflow and
//! underflow raise the window vectors. Nothing panics on any input.

use super::bus::{Bus, BusError, Size};
use super::codecache::{PageCache, StepCache};
use super::config::{sr, CoreConfig};
use super::isa::{decode_word, length, Insn};
use super::predecode::{Pre, LOOP, STORE, SYNC};

mod exec;
mod window;

mod record;
pub use record::{cause, ps, ArchState, Fault2, MemAccess, Retire, Step};

enum Flow {
    Next,
    Jump(u32),
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    Exc {
        cause: u32,
        vaddr: Option<u32>,
    },
    /// Window exceptions and others that already set PC.
    Vectored {
        cause: u32,
        vector: u32,
    },
    Wait,
    Stop(Step),
}

impl Fault {
    const ILL: Fault = Fault::Exc { cause: cause::ILLEGAL_INSTRUCTION, vaddr: None };
}

/// An instruction did not complete; what happened is in `Core::fault`
/// (kept out of the return value so that results travel in registers).
struct Trap;

type Exec<T> = Result<T, Trap>;

/// One Xtensa core.
#[derive(Debug, Clone)]
pub struct Core {
    cfg: CoreConfig,
    /// The physical address registers, but for the current window's 16,
    /// which live in `cur` (written back when the window moves).
    ar: [u32; 64],
    cur: [u32; 16],
    pub pc: u32,
    sregs: [u32; 256],
    halted: bool,
    waiting: bool,
    run_stall: bool,
    irq_lines: u32,
    retired: u64,
    /// Register windows (physical registers / 4) and the index mask of the
    /// physical registers.
    nwin: u32,
    amask: u32,
    /// WINDOWBASE × 4 (kept with every write of WINDOWBASE).
    wb4: u32,
    /// The window check's input, kept with every write of PS, WINDOWBASE
    /// and WINDOWSTART: bit n (1..=3) is set when the frame n windows ahead
    /// is live and PS enables window overflow (WOE and not EXCM).
    wlive: u32,
    trace: bool,
    last_write: Option<(u8, u32)>,
    last_mem: Option<MemAccess>,
    last_retire: Option<Retire>,
    /// Why the last instruction trapped.
    fault: Fault,
    /// Address of the last store (the run loop's check for code it runs).
    last_store: u32,
    /// SIMCALL write (fd 1/2) output.
    pub console: Vec<u8>,
    /// The bytes a SIMCALL write has read so far (its bus may answer a word
    /// at a time: the instruction retries until all are here).
    simcall_in: Vec<u8>,
    steps: StepCache,
    pages: PageCache,
}

impl Core {
    /// A core in its reset state. The physical register file is the
    /// configuration's `num_aregs` rounded down to a power of two (16, 32 or 64).
    pub fn new(cfg: CoreConfig) -> Core {
        let n = u32::from(cfg.options.num_aregs).clamp(16, 64);
        let n = 1 << (31 - n.leading_zeros());
        let windowed = cfg.options.windowed;
        let mut c = Core {
            cfg,
            ar: [0; 64],
            cur: [0; 16],
            pc: 0,
            sregs: [0; 256],
            halted: false,
            waiting: false,
            run_stall: false,
            irq_lines: 0,
            retired: 0,
            nwin: if windowed { n / 4 } else { 4 },
            amask: if windowed { n - 1 } else { 15 },
            wb4: 0,
            wlive: 0,
            trace: false,
            last_write: None,
            last_mem: None,
            last_retire: None,
            last_store: 0,
            fault: Fault::ILL,
            console: Vec::new(),
            simcall_in: Vec::new(),
            steps: StepCache::new(),
            pages: PageCache::default(),
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
        self.cur = [0; 16];
        self.sregs = [0; 256];
        self.sregs[sr::PS as usize] = ps::RESET;
        self.sregs[sr::VECBASE as usize] = self.cfg.vecbase;
        self.sregs[sr::WINDOWSTART as usize] = 1;
        self.sregs[sr::PRID as usize] = self.cfg.prid;
        self.set_windowbase(0);
        self.sync_window();
        self.pc = vector;
        self.halted = false;
        self.waiting = false;
        self.retired = 0;
        self.simcall_in.clear();
    }

    /// Build the trace record of every step ([`Core::last_retire`]). Off by
    /// default: [`Core::run`] then runs from pre-decoded code pages.
    pub fn set_trace(&mut self, on: bool) {
        self.trace = on;
        self.last_retire = None;
    }

    /// The record of the instruction the last step retired (trace on only).
    pub fn last_retire(&self) -> Option<&Retire> {
        self.last_retire.as_ref()
    }

    /// Everything a program can observe of this core.
    pub fn state(&self) -> ArchState {
        ArchState { pc: self.pc, ar: self.physical(), sregs: self.sregs.to_vec(), halted: self.halted, waiting: self.waiting, retired: self.retired, console: self.console.clone() }
    }

    /// Pre-decoded entries dropped because the bytes under them changed.
    pub fn invalidated_entries(&self) -> u64 {
        self.pages.dropped
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
        self.cur[i & 15]
    }
    pub fn set_a(&mut self, i: usize, v: u32) {
        self.cur[i & 15] = v;
    }
    /// The 64 physical registers (16 used without windows).
    pub fn physical(&self) -> [u32; 64] {
        let mut ar = self.ar;
        for (k, &v) in self.cur.iter().enumerate() {
            ar[self.phys(k as u32)] = v;
        }
        ar
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
        if n == sr::WINDOWBASE {
            self.set_windowbase(v);
        }
        self.sync_window();
    }

    #[inline(always)]
    fn load<const TR: bool, B: Bus + ?Sized>(&mut self, bus: &mut B, addr: u32, size: Size) -> Exec<u32> {
        if self.cfg.unaligned_exception && addr & (size as u32 - 1) != 0 {
            return Err(self.trap(Fault::Exc { cause: cause::LOAD_STORE_ALIGNMENT, vaddr: Some(addr) }));
        }
        match bus.load(addr, size) {
            Ok(v) => {
                if TR {
                    self.last_mem = Some(MemAccess { store: false, addr, size: size as u8, value: v });
                }
                Ok(v)
            }
            Err(BusError::Pending) => Err(self.trap(Fault::Wait)),
            Err(BusError::Fault { addr }) => Err(self.trap(Fault::Exc { cause: cause::LOAD_STORE_ERROR, vaddr: Some(addr) })),
        }
    }

    #[inline(always)]
    fn store<const TR: bool, B: Bus + ?Sized>(&mut self, bus: &mut B, addr: u32, size: Size, value: u32) -> Exec<()> {
        if self.cfg.unaligned_exception && addr & (size as u32 - 1) != 0 {
            return Err(self.trap(Fault::Exc { cause: cause::LOAD_STORE_ALIGNMENT, vaddr: Some(addr) }));
        }
        self.last_store = addr;
        match bus.store(addr, size, value) {
            Ok(()) => {
                if TR {
                    let mask = if size == Size::B4 { u32::MAX } else { (1u32 << (8 * size as u32)) - 1 };
                    self.last_mem = Some(MemAccess { store: true, addr, size: size as u8, value: value & mask });
                }
                Ok(())
            }
            Err(BusError::Pending) => Err(self.trap(Fault::Wait)),
            Err(BusError::Fault { addr }) => Err(self.trap(Fault::Exc { cause: cause::LOAD_STORE_ERROR, vaddr: Some(addr) })),
        }
    }

    /// Pending, enabled level-1 interrupt that can be taken now.
    #[inline]
    fn interrupt_pending(&self) -> bool {
        let p = self.ps();
        self.sreg(sr::INTERRUPT) & self.sregs[sr::INTENABLE as usize] != 0 && p & ps::EXCM == 0 && (p & ps::INTLEVEL) < 1
    }

    /// The instruction word at PC and its length (2 or 3).
    fn fetch_word<B: Bus + ?Sized>(&self, bus: &mut B) -> Result<(u32, u8), Fault2> {
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

    /// Advance one instruction (or take one exception/interrupt), fetching
    /// it through the bus: the co-simulation's contract (one call per
    /// cycle; `BusWait` changes nothing and the same call is made again).
    pub fn step<B: Bus + ?Sized>(&mut self, bus: &mut B) -> Step {
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
        let d = match self.fetch_word(bus) {
            Ok((word, len)) => self.steps.get(self.pc, word, len, &self.cfg.options),
            Err(Fault2::Wait) => return Step::BusWait,
            Err(Fault2::Fetch(a)) => return self.take(cause::INSTRUCTION_FETCH_ERROR, Some(a)),
            Err(Fault2::Illegal) => return self.take(cause::ILLEGAL_INSTRUCTION, None),
        };
        if self.trace {
            self.last_write = None;
            self.last_mem = None;
            let pc = self.pc;
            let r = self.exec::<true, B>(&d, pc, bus);
            let st = self.finish(&d, pc, r);
            self.last_retire = matches!(st, Step::Retired { .. }).then(|| Retire { pc, insn: d.insn(), reg_write: self.last_write, mem: self.last_mem });
            st
        } else {
            let pc = self.pc;
            let r = self.exec::<false, B>(&d, pc, bus);
            self.finish(&d, pc, r)
        }
    }

    /// What an executed instruction at `pc` leaves: the next PC (with the
    /// zero-overhead loop), an exception, a wait or a stop.
    #[inline(always)]
    fn finish(&mut self, d: &Pre, pc: u32, r: Exec<Flow>) -> Step {
        match r {
            Ok(flow) => {
                self.pc = match flow {
                    Flow::Jump(t) => t,
                    Flow::Next => {
                        let next = pc.wrapping_add(d.len as u32);
                        if next == self.sregs[sr::LEND as usize] && self.cfg.options.loops {
                            self.loop_back(next)
                        } else {
                            next
                        }
                    }
                };
                self.retired += 1;
                Step::Retired { pc, word: d.word }
            }
            Err(Trap) => self.trapped(pc),
        }
    }

    fn loop_back(&mut self, next: u32) -> u32 {
        let lcount = self.sregs[sr::LCOUNT as usize];
        if lcount != 0 && self.ps() & ps::EXCM == 0 {
            self.sregs[sr::LCOUNT as usize] = lcount - 1;
            self.sregs[sr::LBEG as usize]
        } else {
            next
        }
    }

    #[cold]
    fn trapped(&mut self, pc: u32) -> Step {
        match std::mem::replace(&mut self.fault, Fault::ILL) {
            Fault::Exc { cause, vaddr } => {
                // Precise: every instruction checks before it writes anything.
                self.pc = pc;
                self.take(cause, vaddr)
            }
            Fault::Vectored { cause, vector } => Step::Exception { cause, pc, vector },
            Fault::Wait => {
                self.pc = pc;
                Step::BusWait
            }
            Fault::Stop(s) => {
                self.pc = pc;
                if matches!(s, Step::Halted | Step::Exit(_) | Step::Break { .. }) {
                    self.halted = true;
                }
                self.retired += 1;
                s
            }
        }
    }

    /// Run up to `max` steps, exactly as `max` calls of [`Core::step`]
    /// would, stopping early at HALT, exit, BREAK, RunStall or WAITI; the
    /// last step is returned. Without a trace, on a bus that offers code
    /// pages ([`Bus::code_page`]), instructions run pre-decoded from them,
    /// each page validated when the run enters it (and after a store).
    pub fn run<B: Bus + ?Sized>(&mut self, bus: &mut B, max: u64) -> Step {
        let mut left = max;
        let mut last = Step::Stalled;
        while left > 0 {
            if !self.trace && !self.halted && !self.run_stall && !self.waiting && !self.interrupt_pending() {
                let (n, st) = self.run_page(bus, left);
                if n > 0 {
                    left -= n;
                    last = st;
                    if last.stops_run() {
                        return last;
                    }
                    continue;
                }
            }
            last = self.step(bus);
            left -= 1;
            if last.stops_run() {
                return last;
            }
        }
        last
    }

    /// Run from the code page holding PC until the run leaves it, an
    /// instruction changes what the loop must re-check (PS, interrupts,
    /// WAITI, a stop), an exception, a store into this page, or `budget`
    /// steps. Returns the steps taken (0: fetch this one through the bus).
    fn run_page<B: Bus + ?Sized>(&mut self, bus: &mut B, budget: u64) -> (u64, Step) {
        let Some(view) = bus.code_page(self.pc) else { return (0, Step::Stalled) };
        let mut pages = std::mem::take(&mut self.pages);
        let page = pages.page(&view);
        let (base, len) = (page.base, page.len());
        // LEND changes only through LOOP, SYNC instructions (WSR/XSR) and
        // exceptions, each of which ends a block; blocks are built so that
        // only their last instruction can be followed by LEND.
        let loops = self.cfg.options.loops;
        let mut lend = self.sregs[sr::LEND as usize];
        let mut n = 0;
        let mut last = Step::Stalled;
        'blocks: while n < budget {
            let off = self.pc.wrapping_sub(base) as usize;
            let Some(b) = page.block(off, lend, &self.cfg.options) else { break };
            let start = self.pc;
            'again: loop {
                let take = (b.insns.len() as u64).min(budget - n) as usize;
                let mut pc = start;
                for d in &b.insns[..take] {
                    n += 1;
                    match self.exec_run::<B>(d, pc, bus) {
                        Ok(Flow::Next) => {}
                        Ok(Flow::Jump(t)) => {
                            self.retired += 1;
                            last = Step::Retired { pc, word: d.word };
                            self.pc = t;
                            if d.flags & SYNC != 0 {
                                break 'blocks;
                            }
                            if d.flags & LOOP != 0 {
                                lend = self.sregs[sr::LEND as usize];
                            }
                            continue 'blocks;
                        }
                        Err(Trap) => {
                            last = self.trapped(pc);
                            break 'blocks;
                        }
                    }
                    self.retired += 1;
                    last = Step::Retired { pc, word: d.word };
                    pc = pc.wrapping_add(d.len as u32);
                    if d.flags != 0 {
                        if d.flags & (LOOP | SYNC) != 0 {
                            // The last of its block; LEND may have changed.
                            lend = self.sregs[sr::LEND as usize];
                        }
                        // A SYNC instruction, or a store into this page (or
                        // just before it, reaching in), ends the run from it.
                        // Only the last instruction of a block can be
                        // followed by LEND, so the check is right here.
                        if d.flags & SYNC != 0 || (d.flags & STORE != 0 && self.last_store.wrapping_add(3).wrapping_sub(base) < len as u32 + 3) {
                            self.pc = if pc == lend && loops { self.loop_back(pc) } else { pc };
                            break 'blocks;
                        }
                    }
                }
                self.pc = if pc == lend && loops { self.loop_back(pc) } else { pc };
                // The zero-overhead loop back to this very block: no lookup.
                if self.pc != start || take != b.insns.len() || n >= budget {
                    break 'again;
                }
            }
        }
        self.pages = pages;
        (n, last)
    }

    fn write_sr(&mut self, n: u8, v: u32) {
        match n {
            sr::WINDOWBASE => self.set_windowbase(v % self.nwin),
            sr::WINDOWSTART => self.set_ws(v & ((1u64 << self.nwin) - 1) as u32),
            sr::PS => self.set_ps(v),
            sr::INTERRUPT => self.sregs[n as usize] |= v,
            sr::INTCLEAR => self.sregs[sr::INTERRUPT as usize] &= !v,
            sr::SAR => self.sregs[n as usize] = v & 63,
            sr::CCOUNT => self.retired = v as u64,
            sr::PRID => {}
            _ => self.sregs[n as usize] = v,
        }
    }

    /// Run the pre-decoded instruction at `pc`: the window check, then its
    /// handler (which needs no PC: every address it needs was decoded).
    #[inline(always)]
    fn exec<const TR: bool, B: Bus + ?Sized>(&mut self, d: &Pre, pc: u32, bus: &mut B) -> Exec<Flow> {
        self.window_check(d.wmask as u32, pc)?;
        exec::handler::<B, TR>(d.op)(self, d, bus)
    }

    /// [`Core::exec`] for the run loop: no trace, frequent instructions inlined.
    #[inline(always)]
    fn exec_run<B: Bus + ?Sized>(&mut self, d: &Pre, pc: u32, bus: &mut B) -> Exec<Flow> {
        self.window_check(d.wmask as u32, pc)?;
        exec::run_inline::<B>(self, d, bus)
    }

    /// SIMCALL semihosting (the calls QEMU's `sim` machine offers that the
    /// differential tests use): a2 = 1 exit(a3), a2 = 4 write(a3 fd, a4 buf,
    /// a5 len) giving back a2 = len and a3 = 0 (errno), as QEMU does.
    /// A write reads its buffer a word per bus access; on a bus that answers
    /// later the instruction retries and goes on where it stopped, and takes
    /// effect (the text, a2, a3) once every byte is read.
    fn simcall<const TR: bool, B: Bus + ?Sized>(&mut self, bus: &mut B) -> Exec<Flow> {
        match self.r(2) {
            1 => Err(self.trap(Fault::Stop(Step::Exit(self.r(3))))),
            4 => {
                let (buf, len) = (self.r(4), self.r(5).min(1 << 16));
                while (self.simcall_in.len() as u32) < len {
                    let at = buf.wrapping_add(self.simcall_in.len() as u32);
                    let word = match self.load::<TR, B>(bus, at & !3, Size::B4) {
                        Ok(w) => w.to_le_bytes(),
                        Err(t) => {
                            if !matches!(self.fault, Fault::Wait) {
                                self.simcall_in.clear();
                            }
                            return Err(t);
                        }
                    };
                    let take = (4 - (at & 3)).min(len - self.simcall_in.len() as u32);
                    self.simcall_in.extend_from_slice(&word[(at & 3) as usize..][..take as usize]);
                }
                self.console.append(&mut self.simcall_in);
                self.w::<TR>(2, len);
                self.w::<TR>(3, 0);
                Ok(Flow::Next)
            }
            _ => {
                self.w::<TR>(2, u32::MAX);
                Ok(Flow::Next)
            }
        }
    }
}
