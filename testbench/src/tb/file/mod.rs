//! Testbench files: the [`Tb`] verbs as TOML, for people who
//! don't want to write Rust.
//!
//! ```toml
//! name = "q7 run-stall release"          # default: the file's stem
//! archs = ["cayman", "mariana"]           # default: every generation
//! [consts]
//! ALL = 0xff
//! [[step]]
//! expect = "port.q7_run_stall"
//! value = "ALL"                           # a number or a constant's name (or a TPB_ marker)
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
//! `--vcd DIR`, else `waves/`), `trace_stop = true`, `repeat` (with `steps`);
//! `write`/`expect` of a run of words take `words = [ … ]` (a write repeats
//! them to `fill = N` words). The steps may be one list, `step = [ {…}, … ]`. Names are those of
//! [`names`](super::names); a name that is a number is a raw BAR0 address.
//! Every error names `file:line:column` and the key.
//!
//! A file with a `[firmware.<core>]` table (`q7`, `seq`, `top_sp`) runs on
//! the co-simulation: the top with its behavioural cores ([`firmware`]).
//! Each core's image is `asm = "k.S"` (our assembler; `set` and `dram`),
//! `elf = "k.elf"` (any toolchain) or `c = ["k.c", …]` (Debian's
//! gcc-xtensa-lx106, `cflags` optional), paths relative to the file. Its
//! verbs (`cosim_steps.rs`) add the HAL's (`stpb_init`, `release`,
//! `start`, `hal`, `cc_op`, `init_dma`), the cores' (`wait_halted`,
//! `expect_exit`, `expect_reg`, `poll_reg`, `expect_console`) and the log's
//! (`expect_txn`, `expect_notifications`, `expect_doorbells`, marks). A
//! wait or check of the cores sees only what came after the core's last
//! start (`tpb_cosim::sched::runs`).

use super::names::parse_u32;
use super::{EngineKind, Tb, TbError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml_edit::{ImDocument, Item, TableLike, Value};
use tpb_models::regmap::Arch;

mod cosim_steps;
pub mod firmware;
mod run;
mod step;
pub use cosim_steps::{By, DataCheck, ReleaseTarget, StartTarget, TxnCheck};
pub use firmware::{CoreData, CoreReg, CoreSel, DataAt, Firmware, FwSource};
pub use run::{cosim, cosim_of, run, Failure, Model, Outcome, RunOpts};
pub use step::*;

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

/// The constants every file has without defining them: the markers the
/// built-in firmware stores, by their prelude names (`TPB_SUM_DONE`, …;
/// [`tpb_cosim::firmware::MARKERS`]). A file's own `[consts]` may shadow them.
pub fn builtin_consts() -> BTreeMap<String, u64> {
    tpb_cosim::firmware::MARKERS.iter().map(|(name, v)| (format!("TPB_{name}"), u64::from(*v))).collect()
}

const TOP_KEYS: &[&str] = &["name", "description", "archs", "consts", "step", "firmware"];
const VERBS: &[&str] = &[
    "write",
    "read",
    "expect",
    "poll",
    "wait",
    "doorbell",
    "reset",
    "pin",
    "expect_bus_error",
    "expect_write_ignored",
    "lookup",
    "pop",
    "trace_start",
    "trace_stop",
    "repeat",
    "stpb_init",
    "wait_halted",
    "expect_exit",
    "expect_console",
    "expect_reg",
    "hal",
    "devmem",
    "init_dma",
    "expect_txn",
    "start",
    "expect_notifications",
    "poll_change",
    "poll_reg",
    "mark_cycle",
    "cc_op",
    "expect_cc_op",
    "expect_doorbells",
    "window",
    "mem_window2",
    "expect_exception",
    "tx_console",
    "release",
];
const MODIFIERS: &[&str] = &[
    "value",
    "timeout",
    "access",
    "steps",
    "contains",
    "words",
    "fill",
    "to",
    "bytes",
    "at_least",
    "by",
    "mask",
    "count",
    "mark",
    "after",
    "at",
    "every",
    "at_most",
    "since",
    "dma",
    "any_order",
    "before",
    "compl_sem",
    "load",
    "requester",
    "src",
    "size",
    "dst",
    "off",
    "cause",
    "release",
];

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
        f.check_marks()?;
        if let Some(e) = f.firmware.missing.clone() {
            return Err(e);
        }
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

    /// The steps and constants for one generation: the built-in ones
    /// ([`builtin_consts`]), then the file's, then its generation's.
    pub fn for_arch(&self, arch: Arch) -> (Vec<Step>, BTreeMap<String, u64>) {
        let mut consts = builtin_consts();
        consts.extend(self.consts.clone());
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
                Verb::Write { name, value } | Verb::Expect { name, value, .. } | Verb::Poll { name, value, .. } | Verb::Doorbell { name, value } => (Some(name), Some(value)),
                Verb::ExpectTxn(t) => (
                    Some(&t.name),
                    match &t.data {
                        DataCheck::Any => None,
                        DataCheck::Eq { value, .. } | DataCheck::AtLeast(value) => Some(value),
                    },
                ),
                Verb::Read { name }
                | Verb::PollChange { name, .. }
                | Verb::WriteWords { name, .. }
                | Verb::ExpectWords { name, .. }
                | Verb::ExpectBusError { name, .. }
                | Verb::ExpectWriteIgnored { name }
                | Verb::InitDma { to: name, .. } => (Some(name), None),
                Verb::Pin { value, .. } | Verb::ExpectExit { value, .. } | Verb::ExpectReg { value, .. } | Verb::PollReg { value, .. } => (None, Some(value)),
                Verb::Repeat { steps, .. } => {
                    self.check_steps(steps, consts, n)?;
                    (None, None)
                }
                _ => (None, None),
            };
            if let Some(Val::Const(c)) = val {
                if !consts.contains_key(c) {
                    let per_arch = self.per_arch.get(n.map().arch.name()).map(|(c, _)| c.keys()).into_iter().flatten();
                    let own: std::collections::BTreeSet<&str> = self.consts.keys().chain(per_arch).map(String::as_str).collect();
                    let own: Vec<&str> = own.into_iter().collect();
                    let looks_numeric = c.starts_with(|ch: char| ch.is_ascii_digit());
                    return Err(err(
                        s,
                        match (looks_numeric, own.is_empty()) {
                            (true, _) => format!("'{c}' is not a number (decimal, 0x hex or 0b binary, _ separators) nor a constant's name"),
                            (false, true) => format!("no constant '{c}': this file defines none for {} (add a [consts] table)", n.map().arch.name()),
                            (false, false) => format!("no constant '{c}' for {} (constants: {})", n.map().arch.name(), own.join(", ")),
                        },
                    ));
                }
            }
            match &s.verb {
                Verb::WriteWords { name, words } | Verb::ExpectWords { name, words } => check_run(name, words.len() as u64, n).map_err(|m| err(s, m))?,
                Verb::InitDma { to, bytes, .. } => check_run(to, bytes.div_ceil(4), n).map_err(|m| err(s, m))?,
                _ => {}
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

/// A run of `words` words from `name` stays inside 32 bits, and inside the
/// memory region a `region+offset` name points into (its last word must
/// resolve too): no address wraps, no burst spills past its region.
fn check_run(name: &str, words: u64, n: &super::names::Names) -> Result<(), String> {
    let Some(last) = words.checked_sub(1) else { return Ok(()) };
    let first = match parse_u32(name) {
        Some(a) => a,
        None => match n.resolve(name).ok().and_then(|t| t.addr()) {
            Some(a) => a,
            None => return Ok(()),
        },
    };
    if u64::from(first) + 4 * words > 1 << 32 {
        return Err(format!("{words} words from {name} ({first:#x}) run past the 32-bit address space"));
    }
    if let Some((region, off)) = name.rsplit_once('+').and_then(|(r, o)| Some((r, parse_u32(o)?))) {
        let end = u64::from(off) + 4 * last;
        let last_name = format!("{region}+{end:#x}");
        if u32::try_from(end).is_err() || n.resolve(&last_name).is_err() {
            return Err(format!("{words} words from {name} run past the end of {region} (its last word would be {last_name})"));
        }
    }
    Ok(())
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

/// One step table being read: its keys, for the verbs' parsers.
pub(super) struct Keys<'a> {
    cx: &'a Ctx<'a>,
    t: &'a dyn TableLike,
    verb: &'a str,
    item: &'a Item,
}

impl Keys<'_> {
    fn span(&self, k: &str) -> Option<std::ops::Range<usize>> {
        self.t.key(k).and_then(|k| k.span())
    }
    /// An error at key `k`.
    fn err(&self, k: &str, msg: impl Into<String>) -> FileError {
        self.cx.err(self.span(k), k, msg)
    }
    /// The verb's own value as a string.
    fn s(&self, what: &str) -> Result<String, FileError> {
        self.item.as_str().map(str::to_string).ok_or_else(|| self.err(self.verb, format!("{what} (a string)")))
    }
    /// `value = …`: a number or a constant's name.
    fn value(&self, required: bool, default: u64) -> Result<Val, FileError> {
        self.val_of("value", required, default)
    }
    fn val_of(&self, key: &str, required: bool, default: u64) -> Result<Val, FileError> {
        match self.t.get_key_value(key) {
            None if required => Err(self.err(self.verb, format!("'{}' needs {key} = …", self.verb))),
            None => Ok(Val::Num(default)),
            Some((k, i)) => match i {
                Item::Value(Value::String(sv)) => Ok(parse_u32(sv.value()).map(|n| Val::Num(n.into())).unwrap_or_else(|| Val::Const(sv.value().clone()))),
                _ => num(i).map(Val::Num).ok_or_else(|| self.cx.err(k.span(), key, "a non-negative integer or a constant's name")),
            },
        }
    }
    /// A non-negative integer at key `k`.
    fn count(&self, k: &str, i: &Item) -> Result<u64, FileError> {
        num(i).ok_or_else(|| self.err(k, "a non-negative integer"))
    }
    /// `k = N` if present.
    fn opt_count(&self, k: &str) -> Result<Option<u64>, FileError> {
        self.t.get(k).map(|i| self.count(k, i)).transpose()
    }
    /// `k = "…"` if present.
    fn opt_str(&self, k: &str) -> Result<Option<String>, FileError> {
        self.t.get(k).map(|i| i.as_str().map(str::to_string).ok_or_else(|| self.err(k, "a string"))).transpose()
    }
    /// `words = [ … ]`: 32-bit words.
    fn words(&self) -> Result<Vec<u32>, FileError> {
        let bad = || self.err("words", "a list of 32-bit words");
        let a = self.t.get("words").and_then(|w| w.as_array()).ok_or_else(bad)?;
        a.iter().map(|v| v.as_integer().and_then(|n| u32::try_from(n).ok()).ok_or_else(bad)).collect()
    }
    /// `words`, repeated in turn to `fill = N` words when given (at least as many as `words` has).
    fn filled(&self) -> Result<Vec<u32>, FileError> {
        let w = self.words()?;
        let Some(n) = self.opt_count("fill")? else { return Ok(w) };
        if n < w.len() as u64 || n > 1 << 20 {
            return Err(self.err("fill", format!("the number of words to write: at least the {} given, at most 1048576", w.len())));
        }
        Ok(w.iter().copied().cycle().take(n as usize).collect())
    }
    /// `k = true|false` if present.
    fn opt_bool(&self, k: &str) -> Result<Option<bool>, FileError> {
        self.t.get(k).map(|i| i.as_bool().ok_or_else(|| self.err(k, "true or false"))).transpose()
    }
    /// `key = true`, the only value some verbs take.
    fn flag(&self, v: Verb) -> Result<Verb, FileError> {
        match self.item.as_bool() {
            Some(true) => Ok(v),
            _ => Err(self.err(self.verb, format!("write {} = true", self.verb))),
        }
    }
}

fn parse_step(cx: &Ctx, t: &dyn TableLike, span: Option<std::ops::Range<usize>>) -> Result<Step, FileError> {
    let key_span = |k: &str| t.key(k).and_then(|k| k.span());
    // `release = false` beside `stpb_init` is that verb's option, not the `release` verb.
    let release_opt = t.contains_key("stpb_init") && t.get("release").is_some_and(|i| i.as_bool().is_some());
    let verbs: Vec<&str> = t.iter().map(|(k, _)| k).filter(|k| VERBS.contains(k) && !(release_opt && *k == "release")).collect();
    let verb = match verbs.as_slice() {
        [v] => *v,
        [] => {
            if let Some((k, _)) = t.iter().find(|(k, _)| !MODIFIERS.contains(k)) {
                let near = VERBS.iter().min_by_key(|v| strsim::levenshtein(k, v)).expect("verbs");
                return Err(cx.err(key_span(k), k, format!("unknown key; did you mean '{near}'? Verbs: {}", VERBS.join(", "))));
            }
            return Err(cx.err(span.clone(), "step", format!("a step needs one verb: {}", VERBS.join(", "))));
        }
        [_, second, ..] => return Err(cx.err(key_span(second), second, format!("one verb per step; this step also has '{}'", verbs[0]))),
    };
    let loc = cx.loc(key_span(verb).or(span));
    let item = t.get(verb).expect("the verb's key");
    let allowed: &[&str] = match verb {
        "doorbell" => &["value"],
        "write" => &["value", "words", "fill"],
        "expect" => &["value", "at_least", "at_most", "words"],
        "poll" => &["value", "timeout", "every"],
        "poll_change" => &["timeout", "every"],
        "pin" | "expect_exit" | "expect_reg" => &["value"],
        "expect_bus_error" => &["access"],
        "repeat" => &["steps"],
        v => cosim_steps::modifiers(v),
    };
    // Every other key must be one this verb takes: named with the verb's own list.
    for (k, _) in t.iter() {
        if k == verb || allowed.contains(&k) {
            continue;
        }
        let takes = if allowed.is_empty() { "no other keys".to_string() } else { allowed.join(", ") };
        let near = allowed.iter().filter(|a| strsim::levenshtein(k, a) <= 2).min_by_key(|a| strsim::levenshtein(k, a));
        let hint = near.map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default();
        let what = if MODIFIERS.contains(&k) || VERBS.contains(&k) { "not a key of" } else { "unknown key in" };
        return Err(cx.err(key_span(k), k, format!("{what} a '{verb}' step: it takes {takes}{hint}")));
    }
    let keys = Keys { cx, t, verb, item };
    let verb_v = match verb {
        "write" if t.contains_key("words") => match t.contains_key("value") {
            true => return Err(keys.err("words", "give value (one word) or words (a burst), not both")),
            false => Verb::WriteWords { name: keys.s("a BAR0 name or address")?, words: keys.filled()? },
        },
        "write" => Verb::Write { name: keys.s("a register name")?, value: keys.value(true, 0)? },
        "expect" if t.contains_key("words") => match ["value", "at_least", "at_most"].iter().find(|k| t.contains_key(k)) {
            Some(k) => return Err(keys.err(k, "give words (a run of words) or one of value, at_least, at_most")),
            None => Verb::ExpectWords { name: keys.s("a BAR0 name or address")?, words: keys.words()? },
        },
        "mark_cycle" => Verb::MarkCycle(keys.s("a mark's name")?),
        "read" => Verb::Read { name: keys.s("a register name")? },
        "expect" => {
            let given: Vec<(&str, Cmp)> = [("value", Cmp::Eq), ("at_least", Cmp::AtLeast), ("at_most", Cmp::AtMost)].into_iter().filter(|(k, _)| t.contains_key(k)).collect();
            let (key, cmp) = match given.as_slice() {
                [one] => *one,
                [] => return Err(keys.err(verb, "'expect' needs value = … (or at_least / at_most = …)")),
                [_, (second, _), ..] => return Err(keys.err(second, "give one of value, at_least, at_most")),
            };
            Verb::Expect { name: keys.s("a register name")?, value: keys.val_of(key, true, 0)?, cmp }
        }
        "poll" => Verb::Poll {
            name: keys.s("a register name")?,
            value: keys.value(true, 0)?,
            timeout: keys.opt_count("timeout")?.unwrap_or(POLL_TIMEOUT),
            every: keys.opt_count("every")?,
        },
        "poll_change" => Verb::PollChange { name: keys.s("a register name")?, timeout: keys.opt_count("timeout")?.unwrap_or(POLL_TIMEOUT), every: keys.opt_count("every")? },
        "wait" => Verb::Wait(keys.count("wait", item)?),
        "doorbell" => Verb::Doorbell { name: keys.s("a doorbell register name")?, value: keys.value(false, 1)? },
        "reset" => keys.flag(Verb::Reset)?,
        "pin" => Verb::Pin { name: keys.s("nx_halted or q7_halted")?, value: keys.value(true, 0)? },
        "expect_bus_error" => Verb::ExpectBusError {
            name: keys.s("a register name or an address")?,
            write: match t.get("access").map(|a| a.as_str()) {
                None | Some(Some("read")) => false,
                Some(Some("write")) => true,
                _ => return Err(keys.err("access", "\"read\" or \"write\"")),
            },
        },
        "expect_write_ignored" => Verb::ExpectWriteIgnored { name: keys.s("a read-only register or field")? },
        "lookup" => {
            let bad = || keys.err(verb, "opcode << 8 | func, e.g. 0x1234 (opcode 0x12, func 0x34)");
            let v = num(item).filter(|v| *v <= 0xffff).ok_or_else(bad)?;
            Verb::Lookup { opcode: (v >> 8) as u8, func: v as u8 }
        }
        "pop" => keys.flag(Verb::Pop)?,
        "trace_start" => Verb::TraceStart(keys.s("a .vcd file name")?),
        "trace_stop" => keys.flag(Verb::TraceStop)?,
        "repeat" => {
            let steps = parse_steps(cx, t, "steps")?;
            if steps.is_empty() {
                return Err(keys.err(verb, "repeat needs steps = [ { … }, … ]"));
            }
            Verb::Repeat { count: keys.count("repeat", item)?, steps }
        }
        v => cosim_steps::parse(&keys, v)?,
    };
    let text = format!("{verb} = {}", item.as_value().map(|v| v.to_string().trim().to_string()).unwrap_or_else(|| "…".into()));
    Ok(Step { verb: verb_v, loc, text })
}
