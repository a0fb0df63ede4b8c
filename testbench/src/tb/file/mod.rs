//! Testbench files: the [`Tb`](super::Tb) verbs as TOML, for people who
//! don't want to write Rust.
//!
//! ```toml
//! name = "q7 run-stall release"          # default: the file's stem
//! archs = ["cayman", "mariana"]           # default: every generation
//! [consts]
//! ALL = 0xff
//! [[step]]
//! expect = "port.q7_run_stall"
//! value = "ALL"                           # a number or a constant's name
//! [[step]]
//! write = "pool.q7.release_run_stall"
//! value = 0
//! [[step]]
//! poll = "pool.q7.run_state[3].running"
//! value = 1
//! timeout = 100                           # cycles (default 1000)
//! [[step]]
//! repeat = 3
//! steps = [ { write = "top_sp.evt_sem.inc[5]", value = 1 }, { wait = 2 } ]
//! [sunda.consts]                          # per-generation constants…
//! ALL = 0xff
//! [[sunda.step]]                          # …and steps, run after the common ones
//! doorbell = "top_sp.top_sp.host_trigger"
//! ```
//!
//! Verbs (one per step): `write`, `read`, `expect`, `poll`, `wait` (cycles),
//! `doorbell` (value default 1), `reset = true`, `pin` (`nx_halted` or
//! `q7_halted`, with `value`), `expect_bus_error` (a name or an address,
//! `access = "read"|"write"`), `expect_write_ignored` (a read-only
//! register), `lookup = 0x1234` (HW-decode lookup of opcode 0x12, func
//! 0x34) and `pop = true` (pop its FIFO), `trace_start = "file.vcd"` (into
//! `--vcd DIR`, else `waves/`), `trace_stop = true`, `repeat` (with `steps`). Names are those of
//! [`names`](super::names); a name that is a number is a raw BAR0 address.
//! Every error names `file:line:column` and the key.
//!
//! A file with a `[firmware.<core>]` table (`q7`, `seq`, `top_sp`) runs on
//! the co-simulation: the top with its behavioural cores ([`firmware`]).
//! Each core's image is `asm = "k.S"` (our assembler), `elf = "k.elf"` (any
//! toolchain) or `c = ["k.c", …]` (Debian's gcc-xtensa-lx106, `cflags`
//! optional), paths relative to the file. Its verbs add `stpb_init = true`
//! (the HAL installs the SEQ and Q7 images and releases the cores),
//! `wait_halted = "q7"` (or `"q7[3]"`, `"seq"`, `"top_sp"`; with `timeout`)
//! and `expect_exit = "q7"` (main's return value, `value`).

use super::names::parse_u32;
use super::{EngineKind, Tb, TbError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml_edit::{ImDocument, Item, TableLike, Value};
use tpb_models::regmap::Arch;

pub mod firmware;
mod run;
pub use firmware::{CoreReg, CoreSel, Firmware, FwSource};
pub use run::{cosim, cosim_of, run, Failure, Outcome, RunOpts};

/// Default `poll` timeout in cycles.
pub const POLL_TIMEOUT: u64 = 1000;

/// A place in a testbench file (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loc {
    pub line: usize,
    pub col: usize,
}

/// A testbench file that cannot be used, with where and which key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{}:{}: {key}: {msg}", .path.display(), .loc.line, .loc.col)]
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
    Write { name: String, value: Val },
    Read { name: String },
    Expect { name: String, value: Val },
    Poll { name: String, value: Val, timeout: u64 },
    Wait(u64),
    Doorbell { name: String, value: Val },
    Reset,
    Pin { name: String, value: Val },
    ExpectBusError { name: String, write: bool },
    ExpectWriteIgnored { name: String },
    Lookup { opcode: u8, func: u8 },
    Pop,
    TraceStart(String),
    TraceStop,
    Repeat { count: u64, steps: Vec<Step> },
    /// The HAL's stpb_init with the file's SEQ and Q7 images (co-simulation).
    StpbInit,
    /// Run until the chosen cores halt (co-simulation).
    WaitHalted { cores: CoreSel, timeout: u64 },
    /// The chosen cores' `main` returned `value` (co-simulation).
    ExpectExit { cores: CoreSel, value: Val },
    /// Each chosen core wrote a console line containing `contains`.
    ExpectConsole { cores: CoreSel, contains: String },
    /// A register of the chosen cores (`pc`, `a0`..`a15`, a special
    /// register by name) holds `value` (co-simulation).
    ExpectReg { cores: CoreSel, reg: CoreReg, value: Val },
    /// A HAL call without arguments, by name ([`firmware::HAL_CALLS`]).
    Hal(String),
    /// Device memory from `addr` gets `words` (no cycles: it is not behind BAR0).
    DevMem { addr: u64, words: Vec<u32> },
    /// The TOP_SP-init DMA queue copies `bytes` from device memory `src` to
    /// BAR0 `to` (a name or an address), and the run waits until it landed.
    InitDma { src: u64, to: String, bytes: u64 },
}

/// A parsed testbench file.
#[derive(Debug, Clone)]
pub struct TbFile {
    pub path: PathBuf,
    pub name: String,
    pub description: String,
    pub archs: Vec<Arch>,
    /// The cores' images: a file with any runs on the co-simulation.
    pub firmware: Firmware,
    consts: BTreeMap<String, u64>,
    steps: Vec<Step>,
    per_arch: BTreeMap<&'static str, (BTreeMap<String, u64>, Vec<Step>)>,
}

struct Ctx<'a> {
    path: &'a Path,
    src: &'a str,
}

impl Ctx<'_> {
    fn loc(&self, span: Option<std::ops::Range<usize>>) -> Loc {
        let at = span.map_or(0, |s| s.start).min(self.src.len());
        let before = &self.src[..at];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        Loc { line, col }
    }
    fn err(&self, span: Option<std::ops::Range<usize>>, key: &str, msg: impl Into<String>) -> FileError {
        FileError { path: self.path.to_path_buf(), loc: self.loc(span), key: key.to_string(), msg: msg.into() }
    }
}

const TOP_KEYS: &[&str] = &["name", "description", "archs", "consts", "step", "firmware"];
const VERBS: &[&str] = &["write", "read", "expect", "poll", "wait", "doorbell", "reset", "pin", "expect_bus_error", "expect_write_ignored", "lookup", "pop", "trace_start", "trace_stop", "repeat", "stpb_init", "wait_halted", "expect_exit", "expect_console", "expect_reg", "hal", "devmem", "init_dma"];
const MODIFIERS: &[&str] = &["value", "timeout", "access", "steps", "contains", "words", "to", "bytes"];

impl TbFile {
    /// Read and parse a testbench file.
    pub fn load(path: &Path) -> Result<TbFile, FileError> {
        let src = std::fs::read_to_string(path).map_err(|e| FileError { path: path.into(), loc: Loc::default(), key: "file".into(), msg: e.to_string() })?;
        TbFile::parse(path, &src)
    }

    /// Parse `src` (named `path` in errors).
    pub fn parse(path: &Path, src: &str) -> Result<TbFile, FileError> {
        let cx = Ctx { path, src };
        let doc = ImDocument::parse(src).map_err(|e| cx.err(e.span(), "syntax", e.message().trim().to_string()))?;
        let root = doc.as_table();
        let arch_names: Vec<&str> = Arch::ALL.iter().map(|a| a.name()).collect();
        for (k, _) in root.iter() {
            if !TOP_KEYS.contains(&k) && !arch_names.contains(&k) {
                let span = root.key(k).and_then(|k| k.span());
                return Err(cx.err(span, k, format!("unknown key; expected one of {}, or a generation section ({})", TOP_KEYS.join(", "), arch_names.join(", "))));
            }
        }
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let name = opt_str(&cx, root, "name")?.unwrap_or(stem);
        let description = opt_str(&cx, root, "description")?.unwrap_or_default();
        let archs = match root.get_key_value("archs") {
            None => Arch::ALL.to_vec(),
            Some((k, item)) => {
                let arr = item.as_array().ok_or_else(|| cx.err(k.span(), "archs", "a list of generations, e.g. [\"cayman\"]"))?;
                let mut v = Vec::new();
                for a in arr.iter() {
                    let s = a.as_str().ok_or_else(|| cx.err(a.span(), "archs", "a generation name"))?;
                    v.push(Arch::parse(s).map_err(|_| cx.err(a.span(), "archs", format!("'{s}' is not a generation ({})", arch_names.join(", "))))?);
                }
                v
            }
        };
        let consts = parse_consts(&cx, root)?;
        let firmware = firmware::parse(&cx, root)?;
        let steps = parse_steps(&cx, root, "step")?;
        let mut per_arch = BTreeMap::new();
        for a in Arch::ALL {
            let Some((k, item)) = root.get_key_value(a.name()) else { continue };
            let t = item.as_table_like().ok_or_else(|| cx.err(k.span(), a.name(), "a table with consts and/or step"))?;
            for (kk, _) in t.iter() {
                if kk != "consts" && kk != "step" {
                    return Err(cx.err(t.key(kk).and_then(|k| k.span()), &format!("{}.{kk}", a.name()), "a generation section holds consts and step only"));
                }
            }
            if !archs.contains(&a) {
                return Err(cx.err(k.span(), a.name(), format!("section for {} but archs does not list it", a.name())));
            }
            per_arch.insert(a.name(), (parse_consts(&cx, t)?, parse_steps(&cx, t, "step")?));
        }
        let f = TbFile { path: path.to_path_buf(), name, description, archs, firmware, consts, steps, per_arch };
        f.check_cosim_verbs(&cx)?;
        if f.steps.is_empty() && f.per_arch.values().all(|(_, s)| s.is_empty()) {
            return Err(cx.err(None, "step", "no steps: add [[step]] tables"));
        }
        Ok(f)
    }

    /// A testbench built in code (the generated CSR checks).
    pub fn from_steps(name: &str, description: &str, archs: Vec<Arch>, steps: Vec<Step>) -> TbFile {
        TbFile {
            path: PathBuf::from(format!("<{name}>")),
            name: name.into(),
            description: description.into(),
            archs,
            firmware: Firmware::default(),
            consts: BTreeMap::new(),
            steps,
            per_arch: BTreeMap::new(),
        }
    }

    /// The steps and constants for one generation.
    pub fn for_arch(&self, arch: Arch) -> (Vec<Step>, BTreeMap<String, u64>) {
        let mut consts = self.consts.clone();
        let mut steps = self.steps.clone();
        if let Some((c, s)) = self.per_arch.get(arch.name()) {
            consts.extend(c.clone());
            steps.extend(s.iter().cloned());
        }
        (steps, consts)
    }

    /// Check every name and constant against `arch`'s map before running.
    pub fn check(&self, tb_names: &super::names::Names) -> Result<(), FileError> {
        let (steps, consts) = self.for_arch(tb_names.map().arch);
        self.check_steps(&steps, &consts, tb_names)
    }

    fn check_steps(&self, steps: &[Step], consts: &BTreeMap<String, u64>, n: &super::names::Names) -> Result<(), FileError> {
        let err = |s: &Step, msg: String| FileError { path: self.path.clone(), loc: s.loc, key: s.text.split(' ').next().unwrap_or("").into(), msg };
        for s in steps {
            let (name, val) = match &s.verb {
                Verb::Write { name, value } | Verb::Expect { name, value } | Verb::Poll { name, value, .. } | Verb::Doorbell { name, value } => (Some(name), Some(value)),
                Verb::Read { name } | Verb::ExpectBusError { name, .. } | Verb::ExpectWriteIgnored { name } | Verb::InitDma { to: name, .. } => (Some(name), None),
                Verb::Pin { value, .. } | Verb::ExpectExit { value, .. } | Verb::ExpectReg { value, .. } => (None, Some(value)),
                Verb::Repeat { steps, .. } => {
                    self.check_steps(steps, consts, n)?;
                    (None, None)
                }
                _ => (None, None),
            };
            if let Some(Val::Const(c)) = val {
                if !consts.contains_key(c) {
                    let looks_numeric = c.starts_with(|ch: char| ch.is_ascii_digit());
                    return Err(err(
                        s,
                        match (looks_numeric, consts.is_empty()) {
                            (true, _) => format!("'{c}' is not a number (decimal, 0x hex or 0b binary, _ separators) nor a constant's name"),
                            (false, true) => format!("no constant '{c}': this file defines none for {} (add a [consts] table)", n.map().arch.name()),
                            (false, false) => format!("no constant '{c}' for {} (constants: {})", n.map().arch.name(), consts.keys().cloned().collect::<Vec<_>>().join(", ")),
                        },
                    ));
                }
            }
            if let Some(name) = name {
                if parse_u32(name).is_none() {
                    let t = n.resolve(name).map_err(|e| err(s, format!("{} ({})", e, n.map().arch.name())))?;
                    let v = match val {
                        Some(Val::Num(v)) => Some(*v),
                        Some(Val::Const(c)) => consts.get(c).copied(),
                        None => None,
                    };
                    if let Some(v) = v.filter(|v| *v > t.max()) {
                        return Err(err(s, format!("{v:#x} does not fit {} (at most {:#x}) on {}", t.name(), t.max(), n.map().arch.name())));
                    }
                }
            }
        }
        Ok(())
    }
}

fn opt_str(cx: &Ctx, t: &dyn TableLike, key: &str) -> Result<Option<String>, FileError> {
    match t.get_key_value(key) {
        None => Ok(None),
        Some((k, i)) => i.as_str().map(|s| Some(s.to_string())).ok_or_else(|| cx.err(k.span(), key, "a string")),
    }
}

fn parse_consts(cx: &Ctx, t: &dyn TableLike) -> Result<BTreeMap<String, u64>, FileError> {
    let mut out = BTreeMap::new();
    let Some((k, item)) = t.get_key_value("consts") else { return Ok(out) };
    let c = item.as_table_like().ok_or_else(|| cx.err(k.span(), "consts", "a table of NAME = number"))?;
    for (name, v) in c.iter() {
        let span = c.key(name).and_then(|k| k.span());
        let n = num(v).ok_or_else(|| cx.err(span, &format!("consts.{name}"), "a non-negative integer (or a \"0x…\" string)"))?;
        out.insert(name.to_string(), n);
    }
    Ok(out)
}

fn num(i: &Item) -> Option<u64> {
    match i {
        Item::Value(Value::Integer(n)) => u64::try_from(*n.value()).ok(),
        Item::Value(Value::String(s)) => parse_u32(s.value()).map(u64::from),
        _ => None,
    }
}

/// The step tables under `key`: `[[key]]` or `key = [ {…}, … ]`.
fn parse_steps(cx: &Ctx, t: &dyn TableLike, key: &str) -> Result<Vec<Step>, FileError> {
    let Some((k, item)) = t.get_key_value(key) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    match item {
        Item::ArrayOfTables(a) => {
            for tab in a.iter() {
                out.push(parse_step(cx, tab, tab.span())?);
            }
        }
        Item::Value(Value::Array(a)) => {
            for v in a.iter() {
                let it = v.as_inline_table().ok_or_else(|| cx.err(v.span(), key, "each step is a table { verb = … }"))?;
                out.push(parse_step(cx, it, it.span())?);
            }
        }
        _ => return Err(cx.err(k.span(), key, "a list of steps: [[step]] tables or [ { … }, … ]")),
    }
    Ok(out)
}

fn parse_step(cx: &Ctx, t: &dyn TableLike, span: Option<std::ops::Range<usize>>) -> Result<Step, FileError> {
    let key_span = |k: &str| t.key(k).and_then(|k| k.span());
    let verbs: Vec<&str> = t.iter().map(|(k, _)| k).filter(|k| VERBS.contains(k)).collect();
    for (k, _) in t.iter() {
        if !VERBS.contains(&k) && !MODIFIERS.contains(&k) {
            let near = VERBS.iter().chain(MODIFIERS).min_by_key(|v| strsim::levenshtein(k, v)).unwrap();
            return Err(cx.err(key_span(k), k, format!("unknown key; did you mean '{near}'? Verbs: {}", VERBS.join(", "))));
        }
    }
    let verb = match verbs.as_slice() {
        [v] => *v,
        [] => return Err(cx.err(span.clone(), "step", format!("a step needs one verb: {}", VERBS.join(", ")))),
        [_, second, ..] => return Err(cx.err(key_span(second), second, format!("one verb per step; this step also has '{}'", verbs[0]))),
    };
    let loc = cx.loc(key_span(verb).or(span));
    let item = t.get(verb).unwrap();
    let allowed: &[&str] = match verb {
        "write" | "expect" | "doorbell" => &["value"],
        "poll" => &["value", "timeout"],
        "pin" | "expect_exit" | "expect_reg" => &["value"],
        "wait_halted" => &["timeout"],
        "expect_console" => &["contains"],
        "devmem" => &["words"],
        "init_dma" => &["to", "bytes"],
        "expect_bus_error" => &["access"],
        "repeat" => &["steps"],
        _ => &[],
    };
    for (k, _) in t.iter() {
        if MODIFIERS.contains(&k) && !allowed.contains(&k) {
            return Err(cx.err(key_span(k), k, format!("'{verb}' takes {}", if allowed.is_empty() { "no other keys".into() } else { allowed.join(", ") })));
        }
    }
    let s = |what: &str| item.as_str().map(str::to_string).ok_or_else(|| cx.err(key_span(verb), verb, format!("{what} (a string)")));
    let value = |required: bool, default: u64| -> Result<Val, FileError> {
        match t.get_key_value("value") {
            None if required => Err(cx.err(key_span(verb), verb, format!("'{verb}' needs value = …"))),
            None => Ok(Val::Num(default)),
            Some((k, i)) => match i {
                Item::Value(Value::String(sv)) => Ok(parse_u32(sv.value()).map(|n| Val::Num(n.into())).unwrap_or_else(|| Val::Const(sv.value().clone()))),
                _ => num(i).map(Val::Num).ok_or_else(|| cx.err(k.span(), "value", "a non-negative integer or a constant's name")),
            },
        }
    };
    let count = |k: &str, i: &Item| num(i).ok_or_else(|| cx.err(key_span(k), k, "a non-negative integer"));
    let verb_v = match verb {
        "write" => Verb::Write { name: s("a register name")?, value: value(true, 0)? },
        "read" => Verb::Read { name: s("a register name")? },
        "expect" => Verb::Expect { name: s("a register name")?, value: value(true, 0)? },
        "poll" => Verb::Poll {
            name: s("a register name")?,
            value: value(true, 0)?,
            timeout: match t.get("timeout") {
                Some(i) => count("timeout", i)?,
                None => POLL_TIMEOUT,
            },
        },
        "wait" => Verb::Wait(count("wait", item)?),
        "doorbell" => Verb::Doorbell { name: s("a doorbell register name")?, value: value(false, 1)? },
        "reset" => match item.as_bool() {
            Some(true) => Verb::Reset,
            _ => return Err(cx.err(key_span(verb), verb, "write reset = true")),
        },
        "pin" => Verb::Pin { name: s("nx_halted or q7_halted")?, value: value(true, 0)? },
        "expect_bus_error" => Verb::ExpectBusError {
            name: s("a register name or an address")?,
            write: match t.get("access").map(|a| a.as_str()) {
                None | Some(Some("read")) => false,
                Some(Some("write")) => true,
                _ => return Err(cx.err(key_span("access"), "access", "\"read\" or \"write\"")),
            },
        },
        "expect_write_ignored" => Verb::ExpectWriteIgnored { name: s("a read-only register or field")? },
        "lookup" => {
            let bad = || cx.err(key_span(verb), verb, "opcode << 8 | func, e.g. 0x1234 (opcode 0x12, func 0x34)");
            let v = num(item).filter(|v| *v <= 0xffff).ok_or_else(bad)?;
            Verb::Lookup { opcode: (v >> 8) as u8, func: v as u8 }
        }
        "pop" => match item.as_bool() {
            Some(true) => Verb::Pop,
            _ => return Err(cx.err(key_span(verb), verb, "write pop = true")),
        },
        "trace_start" => Verb::TraceStart(s("a .vcd file name")?),
        "trace_stop" => match item.as_bool() {
            Some(true) => Verb::TraceStop,
            _ => return Err(cx.err(key_span(verb), verb, "write trace_stop = true")),
        },
        "repeat" => {
            let steps = parse_steps(cx, t, "steps")?;
            if steps.is_empty() {
                return Err(cx.err(key_span(verb), verb, "repeat needs steps = [ { … }, … ]"));
            }
            Verb::Repeat { count: count("repeat", item)?, steps }
        }
        "stpb_init" => match item.as_bool() {
            Some(true) => Verb::StpbInit,
            _ => return Err(cx.err(key_span(verb), verb, "write stpb_init = true")),
        },
        "wait_halted" => Verb::WaitHalted {
            cores: CoreSel::parse(&s("the cores: \"q7\", \"q7[3]\", \"seq\" or \"top_sp\"")?).map_err(|e| cx.err(key_span(verb), verb, e))?,
            timeout: match t.get("timeout") {
                Some(i) => count("timeout", i)?,
                None => firmware::HALT_TIMEOUT,
            },
        },
        "expect_exit" => Verb::ExpectExit {
            cores: CoreSel::parse(&s("the cores: \"q7\", \"q7[3]\", \"seq\" or \"top_sp\"")?).map_err(|e| cx.err(key_span(verb), verb, e))?,
            value: value(true, 0)?,
        },
        "expect_reg" => {
            let text = s("a core and a register: \"q7[3].a2\", \"seq.pc\", \"top_sp.sar\"")?;
            let bad = |m: String| cx.err(key_span(verb), verb, m);
            let (core, reg) = text.rsplit_once('.').ok_or_else(|| bad(format!("'{text}': write core.register, e.g. \"q7[3].a2\"")))?;
            Verb::ExpectReg { cores: CoreSel::parse(core).map_err(&bad)?, reg: CoreReg::parse(reg).map_err(&bad)?, value: value(true, 0)? }
        }
        "hal" => {
            let call = s("a HAL call")?;
            if !firmware::HAL_CALLS.contains(&call.as_str()) {
                return Err(cx.err(key_span(verb), verb, format!("'{call}' is not a HAL call a step can make: {}", firmware::HAL_CALLS.join(", "))));
            }
            Verb::Hal(call)
        }
        "devmem" => {
            let addr = count("devmem", item)?;
            let bad = || cx.err(key_span("words"), "words", "a list of 32-bit words");
            let words = match t.get("words").and_then(|w| w.as_array()) {
                Some(a) => a.iter().map(|v| v.as_integer().and_then(|n| u32::try_from(n).ok()).ok_or_else(bad)).collect::<Result<Vec<u32>, _>>()?,
                None => return Err(cx.err(key_span(verb), verb, "'devmem' needs words = [ … ] (the 32-bit words from that device address)")),
            };
            Verb::DevMem { addr, words }
        }
        "init_dma" => Verb::InitDma {
            src: count("init_dma", item)?,
            to: match t.get("to").map(|i| i.as_str()) {
                Some(Some(to)) => to.to_string(),
                _ => return Err(cx.err(key_span(verb), verb, "'init_dma' needs to = \"a BAR0 name or address\" (where the copy lands)")),
            },
            bytes: match t.get("bytes") {
                Some(i) => count("bytes", i)?,
                None => return Err(cx.err(key_span(verb), verb, "'init_dma' needs bytes = N (a multiple of 4)")),
            },
        },
        "expect_console" => Verb::ExpectConsole {
            cores: CoreSel::parse(&s("the cores: \"q7\", \"q7[3]\", \"seq\" or \"top_sp\"")?).map_err(|e| cx.err(key_span(verb), verb, e))?,
            contains: match t.get("contains").map(|i| i.as_str()) {
                Some(Some(text)) => text.to_string(),
                _ => return Err(cx.err(key_span(verb), verb, "'expect_console' needs contains = \"text\" (a string a line of the core's console holds)")),
            },
        },
        _ => unreachable!("every verb is handled"),
    };
    let text = format!("{verb} = {}", item.as_value().map(|v| v.to_string().trim().to_string()).unwrap_or_else(|| "…".into()));
    Ok(Step { verb: verb_v, loc, text })
}
