//! What a core reports: the step results, the retired-instruction record,
//! the architectural state, the EXCCAUSE and PS field values.

use crate::isa::Insn;

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

    /// The ISA's name of an EXCCAUSE value (`cause 12` for one not listed).
    pub fn name(c: u32) -> String {
        match c {
            ILLEGAL_INSTRUCTION => "IllegalInstruction".into(),
            SYSCALL => "Syscall".into(),
            INSTRUCTION_FETCH_ERROR => "InstructionFetchError".into(),
            LOAD_STORE_ERROR => "LoadStoreError".into(),
            LEVEL1_INTERRUPT => "Level1Interrupt".into(),
            ALLOCA => "Alloca".into(),
            INTEGER_DIVIDE_BY_ZERO => "IntegerDivideByZero".into(),
            LOAD_STORE_ALIGNMENT => "LoadStoreAlignment".into(),
            c => format!("cause {c}"),
        }
    }
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

/// One retired instruction (the trace record, built only while
/// [`Core::set_trace`](crate::Core::set_trace) is on).
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
        let mut s = format!("{:08x}: {}", self.pc, crate::disasm::format(&self.insn, self.pc).replace('\t', " "));
        if let Some((r, v)) = self.reg_write {
            s += &format!("  a{r}={v:#x}");
        }
        if let Some(m) = self.mem {
            s += &format!("  {}{} [{:#x}]={:#x}", if m.store { "st" } else { "ld" }, m.size * 8, m.addr, m.value);
        }
        s
    }
}

/// The architectural state of a core, to compare two runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchState {
    pub pc: u32,
    pub ar: [u32; 64],
    pub sregs: Vec<u32>,
    pub halted: bool,
    pub waiting: bool,
    pub retired: u64,
    pub console: Vec<u8>,
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// One instruction retired: its address and its bytes (`word`, 2 or 3
    /// bytes little-endian). The full record is [`Core::last_retire`](crate::Core::last_retire).
    Retired { pc: u32, word: u32 },
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

/// As a person reads it: `retired 0x204 (0x0020c0)`, `LoadStoreError at
/// 0x210 (vector 0x700)`, `run-stalled`, `bus wait`, `waiting (WAITI)`,
/// `halted`, `break 1, 0`, `exit 3`.
impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Step::Retired { pc, word } => write!(f, "retired {pc:#x} ({word:#08x})"),
            Step::Exception { cause: c, pc, vector } => write!(f, "{} at {pc:#x} (vector {vector:#x})", cause::name(c)),
            Step::Stalled => write!(f, "run-stalled"),
            Step::BusWait => write!(f, "bus wait"),
            Step::Waiting => write!(f, "waiting (WAITI)"),
            Step::Halted => write!(f, "halted"),
            Step::Break { s, t } => write!(f, "break {s}, {t}"),
            Step::Exit(code) => write!(f, "exit {code}"),
        }
    }
}

impl Step {
    /// Whether [`Core::run`](crate::Core::run) stops on this step.
    pub fn stops_run(&self) -> bool {
        matches!(self, Step::Halted | Step::Exit(_) | Step::Break { .. } | Step::Stalled | Step::Waiting)
    }
}

/// Why a fetch did not produce an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault2 {
    Wait,
    Fetch(u32),
    Illegal,
}

#[cfg(test)]
mod display_tests {
    use super::Step;

    #[test]
    fn steps_read_as_words_not_debug() {
        assert_eq!(Step::Retired { pc: 0x204, word: 0x20c0 }.to_string(), "retired 0x204 (0x0020c0)");
        assert_eq!(Step::Exception { cause: 3, pc: 0x210, vector: 0x700 }.to_string(), "LoadStoreError at 0x210 (vector 0x700)");
        assert_eq!(Step::Waiting.to_string(), "waiting (WAITI)");
        assert_eq!(Step::Exit(3).to_string(), "exit 3");
    }
}
