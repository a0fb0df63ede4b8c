//! The steps of a testbench file as data: each verb with its operands, the
//! place it was written, and the errors that name that place.

use super::*;

/// Default `poll` timeout in cycles.
pub const POLL_TIMEOUT: u64 = 1000;
/// `[D]` Default idle cycles between a co-simulation's `poll` reads: the
/// cores fetch over the host's BAR0 port, and the host has priority (the
/// built-in scenarios poll at the same pace).
pub const POLL_GAP_COSIM: u64 = 16;

/// A place in a testbench file (1-based; 0 when the error is the whole file's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loc {
    pub line: usize,
    pub col: usize,
}

impl Loc {
    /// `:line:column`, or nothing for the whole file.
    pub fn at(&self) -> String {
        if self.line == 0 {
            String::new()
        } else {
            format!(":{}:{}", self.line, self.col)
        }
    }
}

/// A testbench file that cannot be used, with where and which key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {key}: {msg}", .path.display(), .loc.at())]
pub struct FileError {
    pub path: PathBuf,
    pub loc: Loc,
    pub key: String,
    pub msg: String,
}

/// A number, or the name of a constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Val {
    Num(u64),
    Const(String),
}

/// One step of a testbench.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub verb: Verb,
    pub loc: Loc,
    /// The step as written (`poll = "pool.q7.run_state_3.running"`), for reports.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verb {
    Write {
        name: String,
        value: Val,
    },
    Read {
        name: String,
    },
    /// The value read compares with `value` as `cmp` says.
    Expect {
        name: String,
        value: Val,
        cmp: Cmp,
    },
    /// `every`: idle cycles between reads (default [`POLL_GAP_COSIM`] in a co-simulation, else 0).
    Poll {
        name: String,
        value: Val,
        timeout: u64,
        every: Option<u64>,
    },
    Wait(u64),
    Doorbell {
        name: String,
        value: Val,
    },
    Reset,
    Pin {
        name: String,
        value: Val,
    },
    ExpectBusError {
        name: String,
        write: bool,
    },
    ExpectWriteIgnored {
        name: String,
    },
    Lookup {
        opcode: u8,
        func: u8,
    },
    Pop,
    TraceStart(String),
    TraceStop,
    Repeat {
        count: u64,
        steps: Vec<Step>,
    },
    /// The HAL's stpb_init with the file's SEQ and Q7 images, and with
    /// `dma` the SEQ DMA rings of the built-in scenarios (co-simulation);
    /// each Q7 core's `[[firmware.q7.data]]` is written after the install;
    /// with `release` false every core stays run-stalled (the `release`
    /// step lets them go).
    StpbInit {
        dma: bool,
        release: bool,
    },
    /// The HAL releases cores from run-stall (co-simulation).
    Release(ReleaseTarget),
    /// The notification records the host's reader gets now, in order
    /// (or in any order with `any_order`) (co-simulation); a record written
    /// `"sunda: sem pool[248]"` is expected on that generation only.
    ExpectNotifications {
        events: Vec<(Option<tpb_models::regmap::Arch>, tpb_models::hal::notify::Event)>,
        any_order: bool,
    },
    /// Run until the chosen cores halt (co-simulation).
    WaitHalted {
        cores: CoreSel,
        timeout: u64,
    },
    /// The chosen cores' `main` returned `value` (co-simulation).
    ExpectExit {
        cores: CoreSel,
        value: Val,
    },
    /// Each chosen core wrote a console line containing `contains`.
    ExpectConsole {
        cores: CoreSel,
        contains: String,
    },
    /// A register of the chosen cores (`pc`, `a0`..`a15`, a special
    /// register by name) holds `value` (co-simulation).
    ExpectReg {
        cores: CoreSel,
        reg: CoreReg,
        value: Val,
    },
    /// A HAL call without arguments, by name ([`firmware::HAL_CALLS`]).
    Hal(String),
    /// Device memory from `addr` gets `words` (no cycles: it is not behind BAR0).
    DevMem {
        addr: u64,
        words: Vec<u32>,
    },
    /// The TOP_SP-init DMA queue copies `bytes` from device memory `src` to
    /// BAR0 `to` (a name or an address), and the run waits until it landed.
    InitDma {
        src: u64,
        to: String,
        bytes: u64,
    },
    /// The bus log holds the transactions described (co-simulation).
    ExpectTxn(TxnCheck),
    /// Consecutive words from a BAR0 address (a co-simulation writes them as one burst).
    WriteWords {
        name: String,
        words: Vec<u32>,
    },
    /// Consecutive words from a BAR0 address read back as these.
    ExpectWords {
        name: String,
        words: Vec<u32>,
    },
    /// Remember the last cycle run so far under a name (for `since` / `after`).
    MarkCycle(String),
    /// The HAL loads a cc_op program into the TOP_SP's SPADs and fires
    /// host_trigger (co-simulation).
    CcOp {
        entries: Vec<Vec<[u32; 3]>>,
        compl_sem: u32,
        init_dma: bool,
    },
    /// The SPADs hold the program of the last `cc_op` (co-simulation).
    ExpectCcOp,
    /// The HAL programs window `n` of POOL's address-translation bundle, or
    /// disables it with `None` (co-simulation).
    Window {
        n: usize,
        window: Option<tpb_models::hal::windows::Window>,
    },
    /// The HAL points the SEQ's mem_window2 at this SoC address (co-simulation).
    MemWindow2(u64),
    /// The chosen cores took an exception (of this EXCCAUSE, if given): a
    /// fault the file expects, which then does not fail the run (co-simulation).
    ExpectException {
        cores: CoreSel,
        cause: Option<u32>,
    },
    /// The host drains the SEQ's stdio TX ring into the console (co-simulation).
    TxConsole,
    /// The DMA completion doorbells so far (co-simulation).
    ExpectDoorbells {
        count: u64,
        after: Option<String>,
        mark: Option<String>,
    },
    /// Read `name`, then read again (every `every` cycles) until it differs.
    PollChange {
        name: String,
        timeout: u64,
        every: Option<u64>,
    },
    /// Run until `reg & mask == value` on every chosen core (co-simulation).
    PollReg {
        cores: CoreSel,
        reg: CoreReg,
        value: Val,
        mask: u64,
        timeout: u64,
    },
    /// The HAL starts the chosen cores at a label of their image (co-simulation).
    Start {
        target: StartTarget,
        at: String,
    },
}

/// How `expect` compares the value read with the file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    AtLeast,
    AtMost,
}
