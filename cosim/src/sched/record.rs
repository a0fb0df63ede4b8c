//! What the scheduler records: each BAR0 transaction ([`Txn`]) and who
//! drove it ([`Master`]), and its counters ([`Stats`]).

use super::*;

/// Who drove a BAR0 request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Master {
    Host,
    Core(CoreId),
    /// A core of another TOP_SP's TPB (another die's, or this die's other
    /// instance), through the SoC port: `die` is its node in the mesh
    /// ([`Cosim::node`]), which is its die with one TOP_SP per die.
    Remote {
        die: u32,
        by: Requester,
    },
    /// The SEQ DMA's system master port: a SoC write to this node.
    SeqDma,
    /// The TOP_SP-init DMA queue beside the top ([`InitDma`]).
    InitDma,
    /// The SEQ's I-fetch DMA filling its I-cache ([`super::IFetch`]).
    IFetch,
}

impl std::fmt::Display for Master {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Master::Host => write!(f, "host"),
            Master::Core(c) => write!(f, "{}", c.name()),
            Master::Remote { die, by } => write!(f, "die{die}.{}", by.name()),
            Master::SeqDma => write!(f, "seq_dma"),
            Master::InitDma => write!(f, "init_dma"),
            Master::IFetch => write!(f, "ifetch"),
        }
    }
}

/// One BAR0 transaction (instruction fetches are not logged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Txn {
    /// Cycle the request was driven.
    pub cycle: u64,
    pub master: Master,
    pub write: bool,
    pub addr: u32,
    /// Write data, or the read data once answered.
    pub data: u32,
    pub err: bool,
}

impl std::fmt::Display for Txn {
    /// `cycle 120: q7[0] write 0x02861c28 = 0x8` (an error answer marked).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (op, sep) = if self.write { ("write", "=") } else { ("read", "->") };
        write!(f, "cycle {}: {} {op} {:#010x} {sep} {:#x}{}", self.cycle, self.master, self.addr, self.data, if self.err { " (bus error)" } else { "" })
    }
}

/// What the scheduler counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cycles since power-on (the trace's time is 2 × this).
    pub cycles: u64,
    /// BAR0 transactions the host made (reads + writes).
    pub transactions: u64,
    /// BAR0 transactions the cores made (fetches included).
    pub core_transactions: u64,
    /// Zero words of `write_buf` padding not sent (the memories reset to 0).
    pub elided: u64,
    /// Instructions the cores retired.
    pub retired: u64,
    /// Core-cycles spent waiting on memory (RTL ports and BAR0).
    pub bus_waits: u64,
    /// Cores whose run-stall went from held to released.
    pub stalls_released: u64,
    /// Cycle of the first Q7 core's release.
    pub first_release: Option<u64>,
    /// DMA completion doorbells (rising edges of `dma_db_valid`).
    pub doorbells: u64,
    /// Core restarts by a start_ctrl write (`nx_start` / `q7_start`).
    pub starts: u64,
    /// Address translations the cores looked up (the top's `xlat_*` port).
    pub xlat: u64,
    /// Words the cores read or wrote in device memory through the SoC port
    /// ([`Cosim::devmem_at`]).
    pub devmem: u64,
    /// Cycles skipped as quiescent ([`Cosim::skip_cycle`]): counted in
    /// `cycles`, the top not evaluated.
    pub skipped: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_reads_as_words() {
        let t = Txn { cycle: 120, master: Master::Core(CoreId::Q7(0)), write: true, addr: 0x0286_1c28, data: 8, err: false };
        assert_eq!(t.to_string(), "cycle 120: q7[0] write 0x02861c28 = 0x8");
        let r = Txn { write: false, err: true, master: Master::Host, ..t };
        assert_eq!(r.to_string(), "cycle 120: host read 0x02861c28 -> 0x8 (bus error)");
    }
}
