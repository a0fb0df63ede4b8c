//! Waveform inspection: the signal groups people look at (BAR0, run-stall,
//! a Q7 core's ports, doorbells, the cores' and host's probes), read back
//! from a real VCD/FST with `wellen`; a GTKWave save file that shows them
//! with names ([`gtkw()`]), and timing diagrams in SVG ([`svg`]). Values are
//! named by [`names`]: registers for BAR0 addresses, words for states,
//! disassembly for instructions.
//!
//! Names are those of the Verilated top's ports (scope `TOP`). Time in a
//! trace is real time: [`Timebase`] turns cycles into picoseconds with the
//! generation's clock period (see `dut`), and times read back are in
//! picoseconds whatever the file's timescale.

pub mod crossings;
mod fst_guard;
pub mod gtkw;
pub mod names;
mod read;
pub mod svg;
mod vcd_select;

use std::path::Path;

pub use gtkw::{gtkw, write_gtkw, GtkwPaths, View};
pub(crate) use read::check_fst;
pub use read::{read, widths, widths_present};
pub use svg::{render, render_dump};

/// Cycles to picoseconds for one generation: cycle `c` starts (clock low,
/// inputs driven) at `c·P` and its rising edge is at `c·P + P/2`, `P` the
/// `[D]` clock period of `arch.toml [sim]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timebase {
    pub period_ps: u64,
}

impl Timebase {
    /// The timebase of a built-in generation.
    pub fn of(arch: tpb_models::regmap::Arch) -> Result<Timebase, WavesError> {
        Ok(Timebase { period_ps: tpb_models::regmap::builtin(arch)?.params.sim.clock_period_ps })
    }
    /// Where cycle `c` starts, in picoseconds.
    pub fn start(&self, c: u64) -> u64 {
        c * self.period_ps
    }
    /// Cycle `c`'s rising edge, in picoseconds.
    pub fn edge(&self, c: u64) -> u64 {
        c * self.period_ps + self.period_ps / 2
    }
    /// The cycle a time falls in.
    pub fn cycle(&self, ps: u64) -> u64 {
        ps / self.period_ps
    }
    /// The clock in MHz.
    pub fn mhz(&self) -> f64 {
        1e6 / self.period_ps as f64
    }
}

/// The signal groups' names: what `tpb waves render --signals`, a
/// scenario's key window and its diagrams name. Typed, so that a group
/// misspelt in a scenario does not build.
macro_rules! group_names {
    ($($v:ident = $n:literal),* $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum GroupName {
            $($v),*
        }
        impl GroupName {
            /// Every group, in the order the save files show them.
            pub const ALL: &[GroupName] = &[$(GroupName::$v),*];
            /// The name in files, on the command line and in the VCD views.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(GroupName::$v => $n),*
                }
            }
        }
    };
}

group_names! {
    Bar0 = "bar0",
    RunStall = "run_stall",
    HaltStart = "halt_start",
    Q7Core0 = "q7_core0",
    Doorbell = "doorbell",
    Interrupt = "interrupt",
    Xlat = "xlat",
    Dispatch = "dispatch",
    Notify = "notify",
    Tsync = "tsync",
    Cores = "cores",
}

impl GroupName {
    /// Every name, comma-separated (for messages).
    pub fn list() -> String {
        GroupName::ALL.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl std::fmt::Display for GroupName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for GroupName {
    type Err = WavesError;
    fn from_str(s: &str) -> Result<GroupName, WavesError> {
        GroupName::ALL.iter().copied().find(|g| g.as_str() == s).ok_or_else(|| WavesError::NoGroup(s.into()))
    }
}

/// A named group of top-level signals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub name: GroupName,
    pub title: &'static str,
    /// Port names under `TOP` (`q7_run_stall`).
    pub signals: Vec<String>,
}

/// The signals of `wanted` groups of `arch`'s top, each once.
pub fn group_signals(arch: tpb_models::regmap::Arch, wanted: &[GroupName]) -> Vec<String> {
    let mut names: Vec<String> = groups(arch).into_iter().filter(|g| wanted.contains(&g.name)).flat_map(|g| g.signals).collect();
    names.sort();
    names.dedup();
    names
}

/// The groups of a generation's top.
pub fn groups(arch: tpb_models::regmap::Arch) -> Vec<Group> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut doorbell = s(&["req_valid", "req_write", "req_addr", "dma_busy", "dma_db_valid", "sem_notif_valid", "sem_notif_index"]);
    if arch == tpb_models::regmap::Arch::Sunda {
        doorbell.extend(s(&["host_trigger_pulse", "stop_pulse"]));
    }
    let mut dispatch = s(&["req_valid", "req_write", "req_addr", "req_wdata"]);
    if arch != tpb_models::regmap::Arch::Sunda {
        dispatch.extend(s(&[
            "hwd_lookup_valid",
            "hwd_lookup_opcode",
            "hwd_lookup_func",
            "hwd_fifo_valid",
            "hwd_fifo_hit",
            "hwd_fifo_handler",
            "hwd_fifo_pop",
            "hwd_miss_irq",
            "nx_irq",
        ]));
    }
    dispatch.extend(s(&["probe_seq_state", "probe_seq_pc", "probe_seq_insn"]));
    vec![
        Group { name: GroupName::Bar0, title: "Host BAR0 port", signals: s(&["req_valid", "req_write", "req_addr", "req_wdata", "rsp_valid", "rsp_rdata", "rsp_err"]) },
        Group {
            name: GroupName::RunStall,
            title: "Run-stall release",
            signals: s(&["req_valid", "req_write", "req_addr", "req_wdata", "q7_run_stall", "q7_halted", "nx_run_stall", "nx_halted"]),
        },
        Group {
            name: GroupName::HaltStart,
            title: "Halt and start",
            signals: s(&[
                "req_valid",
                "req_write",
                "req_addr",
                "req_wdata",
                "nx_run_stall",
                "nx_halted",
                "nx_start",
                "nx_start_addr",
                "q7_run_stall",
                "q7_halted",
                "q7_start",
                "q7_start_addr",
                "probe_seq_state",
                "probe_seq_pc",
                "probe_q7_0_state",
                "probe_q7_0_pc",
            ]),
        },
        Group {
            name: GroupName::Q7Core0,
            title: "Q7 core 0 memory ports",
            signals: s(&[
                "q7_run_stall",
                "q7_if_valid$0",
                "q7_if_addr$0",
                "q7_if_ready$0",
                "q7_if_rvalid$0",
                "q7_if_rdata$0",
                "q7_ls_valid$0",
                "q7_ls_write$0",
                "q7_ls_addr$0",
                "q7_ls_rvalid$0",
                "q7_ls_rdata$0",
            ]),
        },
        Group { name: GroupName::Doorbell, title: "Doorbells: DMA and EVT_SEM", signals: doorbell },
        Group {
            name: GroupName::Interrupt,
            title: "Interrupts: intr_ctrl/intr_info to the cores' lines",
            signals: s(&[
                "req_valid",
                "req_write",
                "req_addr",
                "req_wdata",
                "nx_irq",
                "q7_irq",
                "probe_seq_state",
                "probe_seq_pc",
                "probe_seq_insn",
                "probe_q7_0_state",
                "probe_q7_0_pc",
            ]),
        },
        Group {
            name: GroupName::Xlat,
            title: "Address translation: a core's lookup and its SoC access",
            signals: s(&[
                "xlat_valid",
                "xlat_who",
                "xlat_addr",
                "xlat_rsp_valid",
                "xlat_hit",
                "xlat_dst_hi",
                "xlat_dst_lo",
                "req_valid",
                "req_write",
                "req_addr",
                "req_wdata",
                "probe_seq_pc",
                "probe_seq_insn",
            ]),
        },
        Group { name: GroupName::Dispatch, title: "SEQ dispatch: the HW-decode port and the SEQ", signals: dispatch },
        Group {
            name: GroupName::Notify,
            title: "Notifications: events and the ring",
            signals: s(&[
                "req_valid",
                "req_write",
                "req_addr",
                "rsp_valid",
                "rsp_rdata",
                "rsp_err",
                "dma_busy",
                "dma_db_valid",
                "sem_notif_valid",
                "sem_notif_index",
                "notific_head",
                "probe_hal_kind",
            ]),
        },
        Group {
            name: GroupName::Tsync,
            title: "Time sync: the TPB timestamp and the TOP_SP's BAR0 accesses",
            signals: s(&["timestamp_hi", "timestamp_lo", "req_valid", "req_write", "req_addr", "req_wdata", "rsp_rdata", "probe_top_sp_state", "probe_top_sp_pc"]),
        },
        Group {
            name: GroupName::Cores,
            title: "Cores and host (probes)",
            signals: s(&[
                "probe_hal_kind",
                "probe_hal_txn",
                "probe_seq_state",
                "probe_seq_pc",
                "probe_top_sp_state",
                "probe_top_sp_pc",
                "probe_top_sp_insn",
                "probe_q7_0_state",
                "probe_q7_0_pc",
                "probe_q7_0_insn",
            ]),
        },
    ]
}

/// Why a waveform could not be read or drawn.
#[derive(Debug, thiserror::Error)]
pub enum WavesError {
    #[error("{path}: {msg}")]
    Read { path: String, msg: String },
    #[error("no signal group '{0}' (groups: {list})", list = GroupName::list())]
    NoGroup(String),
    #[error("{path}: no signal TOP.{name}")]
    NoSignal { path: String, name: String },
    #[error("empty time range {from}..{to}")]
    Range { from: u64, to: u64 },
    #[error("{path}: cycles {from}..{to} go past the trace's end (cycle {last}): what is past it would be drawn as held values")]
    PastEnd { path: String, from: u64, to: u64, last: u64 },
    #[error("{path}: timescale {scale} cannot be read as picoseconds")]
    Timescale { path: String, scale: String },
    #[error(transparent)]
    Map(#[from] tpb_models::regmap::RegmapError),
    #[error("{path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// One signal's value changes as (time, value or None for X/Z).
pub type Trace = Vec<(u64, Option<u64>)>;

/// Signals of one waveform file, read once: the `.gtkw` and every diagram
/// of a run are drawn from the same read.
#[derive(Debug, Clone)]
pub struct Dump {
    pub path: std::path::PathBuf,
    signals: std::collections::HashMap<String, (u32, Trace)>,
    /// The last time the file holds (ps).
    pub end_ps: u64,
}

impl Dump {
    /// Refuse a window `from..to` (cycles) that goes past the file's end.
    pub fn check_range(&self, tb: Timebase, from: u64, to: u64) -> Result<(), WavesError> {
        if tb.start(to) > self.end_ps {
            return Err(WavesError::PastEnd { path: self.path.display().to_string(), from, to, last: self.end_ps / tb.period_ps });
        }
        Ok(())
    }

    /// Read `signals` (under `TOP`) from a VCD or FST.
    pub fn load(path: &Path, signals: &[String]) -> Result<Dump, WavesError> {
        Dump::load_until(path, signals, None)
    }

    /// Read `signals` up to time `until_ps` at least (all of it with
    /// None): a VCD's body, or an FST's blocks, are read only that far, so
    /// that a diagram near the start of a long run does not wait for the
    /// whole file.
    pub fn load_until(path: &Path, signals: &[String], until_ps: Option<u64>) -> Result<Dump, WavesError> {
        let (data, end_ps) = read::read_until(path, signals, until_ps)?;
        Ok(Dump { path: path.to_path_buf(), signals: signals.iter().cloned().zip(data).collect(), end_ps })
    }

    /// A signal's width, if it was read.
    pub fn width(&self, name: &str) -> Option<u32> {
        self.signals.get(name).map(|s| s.0)
    }

    /// A signal's changes, if it was read.
    pub fn trace(&self, name: &str) -> Option<&Trace> {
        self.signals.get(name).map(|s| &s.1)
    }

    pub(crate) fn signal(&self, name: &str) -> Result<&(u32, Trace), WavesError> {
        self.signals.get(name).ok_or_else(|| WavesError::NoSignal { path: self.path.display().to_string(), name: name.into() })
    }
}

#[cfg(test)]
mod tests {
    /// Every signal a group shows is a port of that generation's top (the
    /// list build.rs read off the Verilated model): a renamed port fails
    /// here, not in a viewer.
    #[test]
    fn every_group_signal_is_a_port_of_the_top() {
        for arch in tpb_models::regmap::Arch::ALL {
            let ports: Vec<&str> = crate::verilator::top_ports(arch).iter().map(|p| p.name).collect();
            for g in super::groups(arch) {
                for s in &g.signals {
                    assert!(ports.contains(&s.as_str()), "{arch:?}: group {} shows {s}, which the top does not have", g.name);
                }
            }
        }
    }

    /// Each name is a group of every generation's, once, in the order of
    /// [`GroupName::ALL`](super::GroupName::ALL), and reads back from its text.
    #[test]
    fn every_group_name_names_one_group_and_parses_back() {
        use super::GroupName;
        for arch in tpb_models::regmap::Arch::ALL {
            let names: Vec<GroupName> = super::groups(arch).iter().map(|g| g.name).collect();
            assert_eq!(names, GroupName::ALL, "{arch:?}");
        }
        for g in GroupName::ALL {
            assert_eq!(g.as_str().parse::<GroupName>().unwrap(), *g);
        }
        let e = "run-stall".parse::<GroupName>().unwrap_err().to_string();
        assert_eq!(e, "no signal group 'run-stall' (groups: bar0, run_stall, halt_start, q7_core0, doorbell, interrupt, xlat, dispatch, notify, tsync, cores)");
    }
}
