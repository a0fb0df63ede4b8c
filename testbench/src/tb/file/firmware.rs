//! The `[firmware.<core>]` tables of a testbench file: the cores' images,
//! built for each generation, and the co-simulation verbs that use them.
//!
//! ```toml
//! [firmware.q7]                  # every Q7 core runs this image
//! c = ["q7_checksum.c"]          # or asm = "k.S", or elf = "k.elf"
//! cflags = ["-O2"]               # C only (default -O2)
//! [firmware.seq]                 # default: the built-in boot loop (nx_boot.S)
//! asm = "my_seq.S"
//! set = { RELEASE_Q7 = "R" }     # asm only: .equ parameters (with _HI / _LO halves):
//!                                # numbers, or [consts] names (per generation)
//! dram = [5, 0, 0, 0]            # asm only: the DRAM image's first words (default 16 zero bytes)
//! [[firmware.q7.data]]           # one Q7 core's own input: stpb_init writes it
//! core = 3                       # after the install, before the release
//! at = "input"                   # a symbol of the image, or "dram+0x100"
//! words = [1, 2, 3]              # or file = "in3.bin" (little-endian words)
//! ```

use super::{Ctx, FileError, Step, TbFile, Val, Verb};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml_edit::{Item, TableLike};
use tpb_cosim::cfw::{self, CoreKind};
use tpb_models::hal::UcodeImages;
use tpb_models::regmap::RegMap;

/// Default `wait_halted` timeout in cycles.
pub const HALT_TIMEOUT: u64 = 200_000;

/// Where an image comes from (paths relative to the testbench file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FwSource {
    /// Our assembler (`tpb asm`), with `.equ` parameters and the DRAM image's words.
    Asm { path: PathBuf, set: Vec<(String, Val)>, dram: Vec<u32> },
    /// An ELF from any toolchain.
    Elf(PathBuf),
    /// C (and `.S`) sources for gcc-xtensa-lx106, with extra flags.
    C { sources: Vec<PathBuf>, cflags: Vec<String> },
}

/// The images of a file, by core kind; each Q7 core's own data; and the
/// first source that does not exist (reported once the rest of the file
/// has been read).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Firmware {
    pub images: BTreeMap<&'static str, FwSource>,
    /// `[[firmware.q7.data]]`: words `stpb_init` writes into one core's
    /// DRAM after the install, before the release.
    pub data: Vec<CoreData>,
    pub(super) missing: Option<FileError>,
}

impl Firmware {
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }
}

/// One Q7 core's own input: words into its DRAM, at a symbol of the image
/// or an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreData {
    pub core: u8,
    pub at: DataAt,
    pub words: Vec<u32>,
    /// Where the table is, for errors found when the image is built.
    pub loc: super::Loc,
}

/// Where a [`CoreData`] goes in the core's DRAM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataAt {
    /// A symbol of the core's image (an ELF's or the assembler's label).
    Symbol(String),
    /// A byte offset from the DRAM's start (`"dram+0x100"`).
    Offset(u32),
}

/// Which cores a co-simulation verb means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreSel {
    /// Every Q7 core.
    Q7All,
    Q7(u8),
    Seq,
    TopSp,
}

impl CoreSel {
    pub fn parse(s: &str) -> Result<CoreSel, String> {
        match s {
            "q7" | "q7[*]" => Ok(CoreSel::Q7All),
            "seq" => Ok(CoreSel::Seq),
            "top_sp" => Ok(CoreSel::TopSp),
            _ => s
                .strip_prefix("q7[")
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| usize::from(*n) < tpb_models::golden::q7_cluster::CORES)
                .map(CoreSel::Q7)
                .ok_or_else(|| format!("'{s}' is not a core: \"q7\" (all eight), \"q7[0]\" .. \"q7[7]\", \"seq\" or \"top_sp\"")),
        }
    }
    /// The cores, as the co-simulation numbers them.
    pub fn cores(self) -> Vec<tpb_cosim::sched::CoreId> {
        use tpb_cosim::sched::CoreId;
        match self {
            CoreSel::Q7All => (0..tpb_models::golden::q7_cluster::CORES as u8).map(CoreId::Q7).collect(),
            CoreSel::Q7(n) => vec![CoreId::Q7(n)],
            CoreSel::Seq => vec![CoreId::Seq],
            CoreSel::TopSp => vec![CoreId::TopSp],
        }
    }
    /// As a file writes it.
    pub fn name(self) -> String {
        match self {
            CoreSel::Q7All => "q7".into(),
            CoreSel::Q7(n) => format!("q7[{n}]"),
            CoreSel::Seq => "seq".into(),
            CoreSel::TopSp => "top_sp".into(),
        }
    }
    pub fn kind(self) -> CoreKind {
        match self {
            CoreSel::Q7All | CoreSel::Q7(_) => CoreKind::Q7,
            CoreSel::Seq => CoreKind::Seq,
            CoreSel::TopSp => CoreKind::TopSp,
        }
    }
}

/// A register of a core that `expect_reg` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreReg {
    Pc,
    /// a0..a15 of the current window.
    A(u8),
    /// A special register, by its number.
    Sr(u8),
    /// A word of the core's DRAM, at this byte offset (`dram+0x8`).
    Dram(u32),
}

impl CoreReg {
    pub fn parse(s: &str) -> Result<CoreReg, String> {
        if s == "pc" {
            return Ok(CoreReg::Pc);
        }
        if let Some(n) = s.strip_prefix('a').and_then(|n| n.parse::<u8>().ok()).filter(|n| *n < 16) {
            return Ok(CoreReg::A(n));
        }
        if let Some(off) = s.strip_prefix("dram+") {
            return tpb_models::regmap::space::parse_u32(off)
                .filter(|o| o % 4 == 0)
                .map(CoreReg::Dram)
                .ok_or_else(|| format!("'{s}': dram+OFFSET, a byte offset that is a multiple of 4"));
        }
        tpb_models::xtensa::config::sr::number(s)
            .map(CoreReg::Sr)
            .ok_or_else(|| format!("'{s}' is not a register: pc, a0..a15, a special register (sar, ps, epc1, exccause, ...) or dram+OFFSET"))
    }
}

/// The HAL calls a step can make (`hal = "…"`), none taking arguments.
pub const HAL_CALLS: &[&str] = &["topsp_set_host_trigger", "topsp_set_init_signal", "topsp_set_tsync_signal", "topsp_stop"];

const CORE_KEYS: &[&str] = &["q7", "seq", "top_sp"];
const SOURCE_KEYS: &[&str] = &["asm", "elf", "c", "cflags", "set", "dram", "data"];

/// `[firmware.*]` of `root`; paths are made relative to the file's folder.
pub(super) fn parse(cx: &Ctx, root: &dyn TableLike) -> Result<Firmware, FileError> {
    let mut fw = Firmware::default();
    let Some((k, item)) = root.get_key_value("firmware") else { return Ok(fw) };
    let t = item.as_table_like().ok_or_else(|| cx.err(k.span(), "firmware", "a table: [firmware.q7], [firmware.seq], [firmware.top_sp]"))?;
    let dir = cx.path.parent().unwrap_or(Path::new(""));
    for (core, item) in t.iter() {
        let span = t.key(core).and_then(|k| k.span());
        let Some(&core) = CORE_KEYS.iter().find(|c| **c == core) else {
            return Err(cx.err(span, &format!("firmware.{core}"), format!("not a core kind: {}", CORE_KEYS.join(", "))));
        };
        let key = format!("firmware.{core}");
        let ct = item.as_table_like().ok_or_else(|| cx.err(span.clone(), &key, "a table with asm, elf or c"))?;
        for (kk, _) in ct.iter() {
            if !SOURCE_KEYS.contains(&kk) {
                return Err(cx.err(ct.key(kk).and_then(|k| k.span()), &format!("{key}.{kk}"), format!("unknown key; expected one of {}", SOURCE_KEYS.join(", "))));
            }
        }
        let given: Vec<&str> = ["asm", "elf", "c"].into_iter().filter(|s| ct.contains_key(s)).collect();
        if given.len() != 1 {
            return Err(cx.err(span, &key, format!("give exactly one of asm, elf, c (found {})", if given.is_empty() { "none".into() } else { given.join(", ") })));
        }
        let path_of = |kk: &str, i: &Item| -> Result<PathBuf, FileError> {
            let s = i.as_str().ok_or_else(|| cx.err(ct.key(kk).and_then(|k| k.span()), &format!("{key}.{kk}"), "a file path (a string)"))?;
            Ok(dir.join(s))
        };
        // A missing source is the file's mistake: said here, before anything runs.
        let exists = |kk: &str, p: &PathBuf| -> Result<(), FileError> {
            match p.is_file() {
                true => Ok(()),
                false => {
                    Err(cx.err(ct.key(kk).and_then(|k| k.span()), &format!("{key}.{kk}"), format!("{}: no such file (paths are relative to this file's folder)", p.display())))
                }
            }
        };
        let strings = |kk: &str| -> Result<Vec<String>, FileError> {
            let Some(i) = ct.get(kk) else { return Ok(Vec::new()) };
            let bad = || cx.err(ct.key(kk).and_then(|k| k.span()), &format!("{key}.{kk}"), "a list of strings");
            i.as_array().ok_or_else(bad)?.iter().map(|v| v.as_str().map(str::to_string).ok_or_else(bad)).collect()
        };
        if ct.contains_key("cflags") && given[0] != "c" {
            return Err(cx.err(ct.key("cflags").and_then(|k| k.span()), &format!("{key}.cflags"), "cflags go with c = [...] only"));
        }
        for only_asm in ["set", "dram"] {
            if ct.contains_key(only_asm) && given[0] != "asm" {
                return Err(cx.err(
                    ct.key(only_asm).and_then(|k| k.span()),
                    &format!("{key}.{only_asm}"),
                    format!("{only_asm} goes with asm = \"...\" only (in C, #define and initialised data do this)"),
                ));
            }
        }
        if let Some(d) = ct.get("data") {
            if core != "q7" {
                return Err(cx.err(
                    ct.key("data").and_then(|k| k.span()),
                    &format!("{key}.data"),
                    "per-core data is for the Q7 cores ([[firmware.q7.data]]); give this core's DRAM with dram = [...] or in its image",
                ));
            }
            fw.data = core_data(cx, d, dir)?;
        }
        let src = match given[0] {
            "asm" => FwSource::Asm { path: path_of("asm", ct.get("asm").expect("given"))?, set: set_table(cx, ct, &key)?, dram: dram_words(cx, ct, &key)? },
            "elf" => FwSource::Elf(path_of("elf", ct.get("elf").expect("given"))?),
            _ => {
                let sources: Vec<PathBuf> = strings("c")?.into_iter().map(|s| dir.join(s)).collect();
                if sources.is_empty() {
                    return Err(cx.err(ct.key("c").and_then(|k| k.span()), &format!("{key}.c"), "at least one source file"));
                }
                FwSource::C { sources, cflags: strings("cflags")? }
            }
        };
        let missing = match &src {
            FwSource::Asm { path, .. } => exists("asm", path),
            FwSource::Elf(path) => exists("elf", path),
            FwSource::C { sources, .. } => sources.iter().try_for_each(|p| exists("c", p)),
        };
        if let (Err(e), None) = (missing, &fw.missing) {
            fw.missing = Some(e);
        }
        fw.images.insert(core, src);
    }
    Ok(fw)
}

/// `[[firmware.q7.data]]`: `core`, `at`, and `words` or `file`.
fn core_data(cx: &Ctx, item: &Item, dir: &Path) -> Result<Vec<CoreData>, FileError> {
    const KEY: &str = "firmware.q7.data";
    let Some(tables) = item.as_array_of_tables() else {
        return Err(cx.err(None, KEY, "[[firmware.q7.data]] tables: core = N, at = \"symbol\" or \"dram+0x100\", words = [...] or file = \"in.bin\""));
    };
    let mut out = Vec::new();
    for t in tables.iter() {
        let at_key = |k: &str| t.key(k).and_then(|k| k.span()).or(t.span());
        let err = |k: &str, m: String| cx.err(at_key(k), &format!("{KEY}.{k}"), m);
        for (k, _) in t.iter() {
            if !["core", "at", "words", "file"].contains(&k) {
                return Err(err(k, "unknown key; a data table takes core, at, words or file".into()));
            }
        }
        let core = match t.get("core") {
            Some(i) => match (i.as_integer(), i.as_str()) {
                (Some(n), _) => u8::try_from(n).ok().filter(|n| usize::from(*n) < tpb_models::golden::q7_cluster::CORES),
                (_, Some(s)) => match CoreSel::parse(s) {
                    Ok(CoreSel::Q7(n)) => Some(n),
                    _ => None,
                },
                _ => None,
            }
            .ok_or_else(|| err("core", "one Q7 core: 0 to 7, or \"q7[3]\"".into()))?,
            None => return Err(err("core", "which Q7 core's DRAM: core = 0 .. 7".into())),
        };
        let at = match t.get("at").and_then(|i| i.as_str()) {
            Some(s) => match s.strip_prefix("dram+") {
                Some(off) => DataAt::Offset(
                    tpb_models::regmap::space::parse_u32(off)
                        .filter(|o| o % 4 == 0)
                        .ok_or_else(|| err("at", format!("'{s}': dram+OFFSET, a byte offset that is a multiple of 4")))?,
                ),
                None => DataAt::Symbol(s.to_string()),
            },
            None => return Err(err("at", "where in the core's DRAM: a symbol of its image (at = \"input\") or at = \"dram+0x100\"".into())),
        };
        let words = match (t.get("words"), t.get("file").and_then(|i| i.as_str())) {
            (Some(w), None) => {
                let bad = || err("words", "a list of 32-bit words".into());
                w.as_array().ok_or_else(bad)?.iter().map(|v| v.as_integer().and_then(|n| u32::try_from(n).ok()).ok_or_else(bad)).collect::<Result<Vec<u32>, _>>()?
            }
            (None, Some(f)) => {
                let p = dir.join(f);
                let bytes = std::fs::read(&p).map_err(|e| err("file", format!("{}: {e} (paths are relative to this file's folder)", p.display())))?;
                if !bytes.len().is_multiple_of(4) {
                    return Err(err("file", format!("{}: {} bytes, not whole 32-bit words (little-endian)", p.display(), bytes.len())));
                }
                bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
            }
            _ => return Err(err("words", "give words = [...] or file = \"in.bin\" (little-endian words), one of them".into())),
        };
        if words.is_empty() {
            return Err(err("words", "no words to write".into()));
        }
        out.push(CoreData { core, at, words, loc: cx.loc(t.span()) });
    }
    Ok(out)
}

/// `set = { NAME = value, ... }`: the `.equ` parameters of an asm image,
/// numbers or the names of constants (resolved per generation).
fn set_table(cx: &Ctx, ct: &dyn TableLike, key: &str) -> Result<Vec<(String, Val)>, FileError> {
    let Some(i) = ct.get("set") else { return Ok(Vec::new()) };
    let span = ct.key("set").and_then(|k| k.span());
    let t = i.as_table_like().ok_or_else(|| cx.err(span.clone(), &format!("{key}.set"), "a table of NAME = value"))?;
    let mut out = Vec::new();
    for (n, v) in t.iter() {
        let at = t.key(n).and_then(|k| k.span());
        if !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || n.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(cx.err(at, &format!("{key}.set.{n}"), "not an assembler name (letters, digits, _)"));
        }
        let v = match v.as_str() {
            Some(c) => Val::Const(c.to_string()),
            None => Val::Num(
                v.as_integer()
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| cx.err(at, &format!("{key}.set.{n}"), "a number from 0 to 0xffffffff, or a constant's name"))?
                    .into(),
            ),
        };
        out.push((n.to_string(), v));
    }
    Ok(out)
}

/// `dram = [word, ...]`: the first words of an asm image's DRAM.
fn dram_words(cx: &Ctx, ct: &dyn TableLike, key: &str) -> Result<Vec<u32>, FileError> {
    let Some(i) = ct.get("dram") else { return Ok(Vec::new()) };
    let bad = || cx.err(ct.key("dram").and_then(|k| k.span()), &format!("{key}.dram"), "a list of 32-bit words");
    i.as_array().ok_or_else(bad)?.iter().map(|v| v.as_integer().and_then(|v| u32::try_from(v).ok()).ok_or_else(bad)).collect()
}

impl TbFile {
    /// The co-simulation verbs need `[firmware]`; the pin and CAM verbs
    /// need the bare top (the cores drive those in a co-simulation).
    pub(super) fn check_cosim_verbs(&self, cx: &Ctx) -> Result<(), FileError> {
        let cosim = !self.firmware.is_empty();
        let all = self.steps.iter().chain(self.per_arch.values().flat_map(|(_, s)| s.iter()));
        for s in flatten(all) {
            let (needs_fw, bare_only) = match &s.verb {
                Verb::StpbInit { .. }
                | Verb::Release(_)
                | Verb::ExpectNotifications { .. }
                | Verb::PollReg { .. }
                | Verb::CcOp { .. }
                | Verb::ExpectCcOp
                | Verb::ExpectDoorbells { .. }
                | Verb::Window { .. }
                | Verb::MemWindow2(_)
                | Verb::ExpectException { .. }
                | Verb::TxConsole
                | Verb::WaitHalted { .. }
                | Verb::ExpectExit { .. }
                | Verb::ExpectConsole { .. }
                | Verb::ExpectReg { .. }
                | Verb::Hal(_)
                | Verb::DevMem { .. }
                | Verb::InitDma { .. }
                | Verb::ExpectTxn(_)
                | Verb::Start { .. } => (true, false),
                Verb::Pin { .. } | Verb::Lookup { .. } | Verb::Pop | Verb::Reset => (false, true),
                _ => (false, false),
            };
            let key = s.text.split(' ').next().unwrap_or("").to_string();
            let e = |msg: &str| FileError { path: cx.path.to_path_buf(), loc: s.loc, key: key.clone(), msg: msg.into() };
            if needs_fw && !cosim {
                return Err(e("runs on the co-simulation: add a [firmware.q7] (or .seq, .top_sp) table"));
            }
            if bare_only && cosim {
                return Err(e("drives the top directly, which the cores do in a co-simulation: not in a file with [firmware]"));
            }
            if let Verb::StpbInit { .. } = s.verb {
                if !self.firmware.images.contains_key("q7") {
                    return Err(e("installs the Q7 image: add [firmware.q7]"));
                }
            }
        }
        Ok(())
    }
}

pub(super) fn flatten<'a>(steps: impl Iterator<Item = &'a Step>) -> Vec<&'a Step> {
    let mut out = Vec::new();
    for s in steps {
        out.push(s);
        if let Verb::Repeat { steps, .. } = &s.verb {
            out.extend(flatten(steps.iter()));
        }
    }
    out
}

/// One core kind's image, built for a generation, with what the checks
/// and failure reports need of it.
#[derive(Debug, Clone)]
pub struct Built {
    pub images: UcodeImages,
    /// Where `main`'s return value lands (core address), if the program has `__tpb_exit`.
    pub exit: Option<u32>,
    /// Symbols by address (ELF or assembler labels), for PCs as symbol+offset.
    pub symbols: Vec<(u32, String)>,
    /// What was built and how (`gcc …` lines), for the report.
    pub commands: Vec<String>,
}

/// Build every image of `fw` for `map`'s generation (`consts`: the file's
/// constants for it); C is built under `out_dir/<core>.elf`. Errors name the file.
pub fn build(fw: &Firmware, map: &RegMap, consts: &BTreeMap<String, u64>, out_dir: &Path) -> Result<BTreeMap<&'static str, Built>, String> {
    let mut out = BTreeMap::new();
    for (&core, src) in &fw.images {
        let kind = CoreKind::parse(core).expect("parsed as a core kind");
        let b = match src {
            FwSource::Asm { path: p, set, dram } => {
                let mut params = Vec::new();
                for (n, v) in set {
                    let x = match v {
                        Val::Num(x) => *x,
                        Val::Const(c) => *consts.get(c).ok_or_else(|| format!("[firmware.{core}] set.{n}: no constant '{c}' for {}", map.arch.name()))?,
                    };
                    params.push((n.clone(), u32::try_from(x).map_err(|_| format!("[firmware.{core}] set.{n}: {x:#x} does not fit 32 bits"))?));
                }
                let prog = cfw::assemble_file(Some(map), p, 0, &tpb_models::xtensa::config::Options::tpb(), &params)?;
                let (iram, _) = kind.memories(map);
                if prog.bytes.len() > iram as usize {
                    return Err(format!("{}: {} bytes of code do not fit the {core} core's IRAM ({iram:#x} bytes)", p.display(), prog.bytes.len()));
                }
                let mut iram_img = prog.bytes.clone();
                iram_img.resize(iram_img.len().div_ceil(4) * 4, 0);
                let symbols: Vec<(u32, String)> = {
                    let mut v: Vec<(u32, String)> = prog.labels.iter().map(|(n, a)| (*a, n.clone())).collect();
                    v.sort();
                    v
                };
                let (_, dram_size) = kind.memories(map);
                let mut dram_img: Vec<u8> = dram.iter().flat_map(|w| w.to_le_bytes()).collect();
                if dram_img.len() > dram_size as usize {
                    return Err(format!("{}: the {}-byte DRAM image does not fit the {core} core's DRAM ({dram_size:#x} bytes)", p.display(), dram_img.len()));
                }
                dram_img.resize(dram_img.len().max(16), 0);
                Built {
                    images: UcodeImages { iram: iram_img, dram: dram_img },
                    exit: prog.labels.get("__tpb_exit").copied(),
                    symbols,
                    commands: vec![format!("tpb asm {}", p.display())],
                }
            }
            FwSource::Elf(p) => from_elf(map, kind, p, Vec::new())?,
            FwSource::C { sources, cflags } => {
                let elf = out_dir.join(format!("{core}.elf"));
                let built = cfw::build(map, kind, sources, cflags, &elf).map_err(|e| e.to_string())?;
                from_elf(map, kind, &elf, built.commands)?
            }
        };
        out.insert(core, b);
    }
    Ok(out)
}

fn from_elf(map: &RegMap, kind: CoreKind, p: &Path, commands: Vec<String>) -> Result<Built, String> {
    let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let mut images = cfw::images(map, kind, &p.display().to_string(), &bytes).map_err(|e| e.to_string())?;
    if images.dram.is_empty() {
        images.dram = vec![0; 16];
    }
    let symbols = tpb_models::xtensa::elf::symbols(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(Built { images, exit: cfw::symbol(&bytes, "__tpb_exit"), symbols, commands })
}
