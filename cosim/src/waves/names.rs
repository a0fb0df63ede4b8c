//! Values as names: what a waveform viewer or a diagram shows instead of a
//! raw number. BAR0 addresses become register names from the map (the same
//! decoder as the HAL's access log), core and host probe states become
//! words, and instruction probes become disassembly. The same names feed
//! the SVG diagrams (in-process) and GTKWave (translate-filter files and a
//! process filter, written next to the save file).

use super::WavesError;
use crate::dut::{CoreState, HalKind};
use std::collections::BTreeMap;
use tpb_models::regmap::space::{AddressSpace, Target};
use tpb_models::regmap::{Arch, RegMap};
use tpb_models::xtensa::config::Options;

/// Which core's instruction set an instruction probe holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreKind {
    Nx,
    Q7,
}

impl CoreKind {
    pub fn name(self) -> &'static str {
        match self {
            CoreKind::Nx => "nx",
            CoreKind::Q7 => "q7",
        }
    }
}

/// How a signal's values are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A number, shown in hex.
    Plain,
    /// A BAR0 address (`req_addr`): the register it reaches.
    Bar0Addr,
    /// A core probe's state.
    CoreState,
    /// The host probe's kind of access.
    HalKind,
    /// A core probe's instruction word (up to 3 bytes, little-endian).
    Insn(CoreKind),
}

/// The kind of a top-level port, by its name.
pub fn kind_of(signal: &str) -> ValueKind {
    if signal == "req_addr" {
        ValueKind::Bar0Addr
    } else if signal == "probe_hal_kind" {
        ValueKind::HalKind
    } else if signal.starts_with("probe_") && signal.ends_with("_state") {
        ValueKind::CoreState
    } else if let Some(core) = signal.strip_prefix("probe_").and_then(|s| s.strip_suffix("_insn")) {
        ValueKind::Insn(if core.starts_with("q7") { CoreKind::Q7 } else { CoreKind::Nx })
    } else {
        ValueKind::Plain
    }
}

/// Names the values of one generation's signals.
#[derive(Debug, Clone)]
pub struct Namer {
    bar0: AddressSpace,
    nx: Options,
    q7: Options,
    /// [`Namer::bar0_names`], built on first use (a save file asks once per
    /// BAR0-address trace, and decoding every register word is most of the
    /// cost of writing one).
    bar0_names: std::sync::OnceLock<BTreeMap<u64, String>>,
}

impl Namer {
    /// The namer of a loaded map.
    pub fn new(map: RegMap) -> Namer {
        let nx = tpb_models::xtensa::CoreConfig::nx(&map.params).options;
        let q7 = tpb_models::xtensa::CoreConfig::q7(&map.params, 0).options;
        Namer { bar0: AddressSpace::new(map), nx, q7, bar0_names: Default::default() }
    }

    /// The namer of a built-in generation.
    pub fn for_arch(arch: Arch) -> Result<Namer, WavesError> {
        Ok(Namer::new(tpb_models::regmap::builtin(arch)?))
    }

    pub fn arch(&self) -> Arch {
        self.bar0.regmap().arch
    }

    /// The text for `value` of `signal`: a name where one is known, else hex
    /// (`x` for an unknown value).
    pub fn label(&self, signal: &str, value: Option<u64>) -> String {
        let Some(v) = value else { return "x".into() };
        match kind_of(signal) {
            ValueKind::Plain => format!("{v:x}"),
            ValueKind::Bar0Addr => match self.bar0.decode(v) {
                Some(t @ (Target::Reg { .. } | Target::Elem { .. } | Target::Mem { .. })) => t.name(),
                _ => format!("{v:x}"),
            },
            ValueKind::CoreState => byte_word(v, CoreState::from_byte, CoreState::name),
            ValueKind::HalKind => byte_word(v, HalKind::from_byte, HalKind::name),
            ValueKind::Insn(k) => self.disasm(k, v).unwrap_or_else(|| format!("{v:06x}")),
        }
    }

    /// The instruction in the probe word `v` (3 bytes, little-endian), with
    /// PC-relative targets as offsets; None where it does not decode.
    pub fn disasm(&self, core: CoreKind, v: u64) -> Option<String> {
        let bytes = [v as u8, (v >> 8) as u8, (v >> 16) as u8];
        let opts = match core {
            CoreKind::Nx => &self.nx,
            CoreKind::Q7 => &self.q7,
        };
        tpb_models::xtensa::decode(&bytes, opts).ok().map(|i| tpb_models::xtensa::disasm::format_unplaced(&i).replace('\t', " "))
    }

    /// Every BAR0 address a register or a semaphore-window element decodes
    /// at, with its name, in address order (memories are left out: a
    /// translate filter lists values one by one).
    pub fn bar0_names(&self) -> &BTreeMap<u64, String> {
        self.bar0_names.get_or_init(|| self.bar0.named_words().into_iter().map(|(a, t)| (a, t.name())).collect())
    }

    /// A GTKWave translate-filter file for a `width`-bit signal of `kind`
    /// (None for kinds a file cannot list: plain numbers, instructions).
    /// GTKWave matches the left column against the value as it shows it in
    /// hex: as many digits as the width needs, zero-padded, any case.
    pub fn filter_file(&self, kind: ValueKind, width: u32) -> Option<String> {
        let digits = width.div_ceil(4).max(1) as usize;
        let entries: Vec<(u64, String)> = match kind {
            ValueKind::Bar0Addr => self.bar0_names().iter().map(|(a, n)| (*a, n.clone())).collect(),
            ValueKind::CoreState => CoreState::ALL.iter().map(|s| (*s as u64, s.name().to_string())).collect(),
            ValueKind::HalKind => HalKind::ALL.iter().map(|s| (*s as u64, s.name().to_string())).collect(),
            ValueKind::Plain | ValueKind::Insn(_) => return None,
        };
        let what = match kind {
            ValueKind::Bar0Addr => format!("BAR0 register names of {}", self.arch().name()),
            ValueKind::CoreState => "core probe states".into(),
            _ => "host probe access kinds".into(),
        };
        let mut s = format!("# GENERATED by tpb (cosim/src/waves/names.rs) from the register map: GTKWave translate filter, {what}, {width}-bit hex values\n");
        for (v, name) in entries {
            s += &format!("{v:0digits$X} {name}\n");
        }
        Some(s)
    }
}

/// `tpb disasm --filter`: GTKWave's process-filter protocol. Each input line
/// is a value as GTKWave shows it (hex); each output line is its
/// disassembly, or the input unchanged where it is not a number or does not
/// decode. Output is flushed line by line (GTKWave waits for each answer).
pub fn disasm_filter(namer: &Namer, core: CoreKind, input: impl std::io::BufRead, mut out: impl std::io::Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        let t = line.trim();
        let text = u64::from_str_radix(t, 16).ok().and_then(|v| namer.disasm(core, v)).unwrap_or_else(|| t.to_string());
        writeln!(out, "{text}")?;
        out.flush()?;
    }
    Ok(())
}

/// The word for the one-byte code `v` of a probe, or `v` in hex where no
/// value has that code.
fn byte_word<T>(v: u64, from_byte: fn(u8) -> Option<T>, name: fn(T) -> &'static str) -> String {
    u8::try_from(v).ok().and_then(from_byte).map_or_else(|| format!("{v:x}"), |t| name(t).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_port_names() {
        assert_eq!(kind_of("req_addr"), ValueKind::Bar0Addr);
        assert_eq!(kind_of("probe_q7_0_state"), ValueKind::CoreState);
        assert_eq!(kind_of("probe_top_sp_insn"), ValueKind::Insn(CoreKind::Nx));
        assert_eq!(kind_of("probe_q7_3_insn"), ValueKind::Insn(CoreKind::Q7));
        assert_eq!(kind_of("probe_hal_kind"), ValueKind::HalKind);
        assert_eq!(kind_of("req_wdata"), ValueKind::Plain);
    }

    #[test]
    fn labels_name_registers_states_and_instructions() {
        let n = Namer::for_arch(Arch::Cayman).unwrap();
        assert_eq!(n.label("req_addr", Some(0x2863000)), "pool.q7.release_run_stall");
        assert_eq!(n.label("req_addr", Some(0x615a0)), "top_sp.evt_sem.set[104] (host_trigger)");
        assert_eq!(n.label("req_addr", Some(0x3180040)), "q7[0].dram+0x40");
        assert_eq!(n.label("req_addr", Some(0x0500_0000)), "5000000", "unmapped stays a number");
        assert_eq!(n.label("probe_seq_state", Some(5)), "halted");
        assert_eq!(n.label("probe_seq_state", Some(7)), "7");
        assert_eq!(n.label("probe_hal_kind", Some(2)), "write");
        // memw is 0x0020c0; a branch's target is an offset from itself.
        assert_eq!(n.label("probe_top_sp_insn", Some(0x0020c0)), "memw");
        assert_eq!(n.label("probe_top_sp_insn", None), "x");
        let j =
            tpb_models::xtensa::asm::assemble("loop:\n nop\n j loop\n", 0, &tpb_models::xtensa::CoreConfig::nx(&tpb_models::regmap::builtin(Arch::Cayman).unwrap().params).options)
                .unwrap();
        let w = u64::from(j.bytes[3]) | u64::from(j.bytes[4]) << 8 | u64::from(j.bytes[5]) << 16;
        assert_eq!(n.label("probe_top_sp_insn", Some(w)), "j .-0x3");
    }

    #[test]
    fn filter_files_list_every_register_in_gtkwave_hex() {
        let n = Namer::for_arch(Arch::Cayman).unwrap();
        let f = n.filter_file(ValueKind::Bar0Addr, 32).unwrap();
        assert!(f.starts_with("# GENERATED by tpb"), "{}", &f[..80]);
        assert!(f.contains("\n02863000 pool.q7.release_run_stall\n"));
        assert!(f.contains("\n000615A0 top_sp.evt_sem.set[104] (host_trigger)\n"));
        // Every EVT_SEM element of every window is there (256 per window).
        assert!(f.lines().filter(|l| l.contains("top_sp.evt_sem.inc[")).count() == 256);
        let s = n.filter_file(ValueKind::CoreState, 3).unwrap();
        assert!(s.contains("\n5 halted\n") && s.contains("\n3 bus wait\n"), "{s}");
        assert_eq!(n.filter_file(ValueKind::Plain, 32), None);
    }

    #[test]
    fn the_process_filter_answers_line_by_line() {
        let n = Namer::for_arch(Arch::Cayman).unwrap();
        let mut out = Vec::new();
        disasm_filter(&n, CoreKind::Nx, &b"0020C0\nxxxxxx\n"[..], &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "memw\nxxxxxx\n");
    }
}
