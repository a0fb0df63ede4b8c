//! The co-simulation verbs as a file writes them (their running is in
//! `cosim.rs`):
//!
//! ```toml
//! [[step]]
//! stpb_init = true                       # the HAL installs the images, releases the cores
//! [[step]]
//! wait_halted = "q7"                     # or "q7[3]", "seq", "top_sp"; timeout = cycles
//! [[step]]
//! expect_txn = "pool.evt_sem.inc[10]"    # a BAR0 name or address the bus log must show
//! by = "q7"                              # host, init_dma, q7, q7[3], seq, top_sp (default: anyone)
//! access = "write"                       # or "read" (default write)
//! value = 1                              # the data (optionally under mask = …), or at_least = …
//! count = 8                              # exactly this many (default: at least one)
//! mark = "arrived"                       # remember the last one's cycle …
//! [[step]]
//! expect_txn = "pool.evt_sem.read[10]"
//! by = "q7[3]"
//! access = "read"
//! at_least = 8
//! after = "arrived"                      # … every match is later than that mark
//!                                        # (since = "mark": look only at what came after it)
//! [[step]]
//! start = "seq"                          # or "q7", "q7[2]", ["q7[0]", "q7[5]"]: the HAL's start
//! at = "restart"                         # a label of the core's image
//! ```

use super::firmware::{CoreSel, HAL_CALLS};
use super::{FileError, Keys, Val, Verb};
use toml_edit::Item;

/// What a transaction check matches and expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnCheck {
    /// A BAR0 name or address.
    pub name: String,
    pub by: Option<By>,
    pub write: bool,
    pub data: DataCheck,
    /// Exactly this many matches (else at least one).
    pub count: Option<u64>,
    /// Remember the last match's cycle under this name.
    pub mark: Option<String>,
    /// Every match comes after this mark's cycle.
    pub after: Option<String>,
    /// Only transactions after this mark's cycle are looked at.
    pub since: Option<String>,
    /// Every match comes before this mark's cycle.
    pub before: Option<String>,
    /// Bytes from the address the check covers (default 4: one word).
    pub bytes: u64,
}

/// What a transaction's data must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataCheck {
    Any,
    /// `data & mask == value & mask`.
    Eq {
        value: Val,
        mask: u64,
    },
    AtLeast(Val),
}

/// Who made a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Host,
    InitDma,
    Cores(CoreSel),
}

impl By {
    fn parse(s: &str) -> Result<By, String> {
        match s {
            "host" => Ok(By::Host),
            "init_dma" => Ok(By::InitDma),
            _ => CoreSel::parse(s).map(By::Cores).map_err(|e| format!("{e}; or \"host\", \"init_dma\"")),
        }
    }
}

/// The extra keys each co-simulation verb takes.
pub(super) fn modifiers(verb: &str) -> &'static [&'static str] {
    match verb {
        "wait_halted" => &["timeout"],
        "expect_console" => &["contains"],
        "devmem" => &["words"],
        "init_dma" => &["to", "bytes"],
        "expect_txn" => &["by", "access", "value", "mask", "at_least", "count", "mark", "after", "since", "bytes", "before"],
        "cc_op" => &["compl_sem", "load"],
        "expect_doorbells" => &["after", "mark"],
        "window" => &["requester", "src", "size", "dst", "off"],
        "expect_exception" => &["cause"],
        "start" => &["at"],
        "stpb_init" => &["dma", "release"],
        "poll_reg" => &["value", "mask", "timeout"],
        "expect_notifications" => &["any_order"],
        _ => &[],
    }
}

const CORES: &str = "the cores: \"q7\", \"q7[3]\", \"seq\" or \"top_sp\"";

/// The co-simulation verb `verb` of the step `k`.
pub(super) fn parse(k: &Keys, verb: &str) -> Result<Verb, FileError> {
    let cores = || CoreSel::parse(&k.s(CORES)?).map_err(|e| k.err(verb, e));
    Ok(match verb {
        "stpb_init" => stpb_init(k)?,
        "release" => release(k)?,
        "expect_notifications" => {
            let bad = || k.err(verb, "a list of notifications, e.g. [\"sem pool[3]\", \"halted nx=0x04 q7=0xff\", \"sunda: sem pool[248]\"]");
            let list = k.item.as_array().ok_or_else(bad)?;
            // `"<generation>: <record>"`: a record of that generation only.
            let one = |s: &str| -> Result<_, FileError> {
                let (arch, rec) = match s.split_once(": ") {
                    Some((a, r)) => (Some(tpb_models::regmap::Arch::parse(a).map_err(|e| k.err(verb, e.to_string()))?), r),
                    None => (None, s),
                };
                Ok((arch, rec.parse().map_err(|e: String| k.err(verb, e))?))
            };
            let events = list.iter().map(|v| v.as_str().ok_or_else(bad).and_then(one)).collect::<Result<Vec<_>, _>>()?;
            Verb::ExpectNotifications { events, any_order: k.opt_bool("any_order")?.unwrap_or(false) }
        }
        "wait_halted" => Verb::WaitHalted { cores: cores()?, timeout: k.opt_count("timeout")?.unwrap_or(super::firmware::HALT_TIMEOUT) },
        "expect_exit" => Verb::ExpectExit { cores: cores()?, value: k.value(true, 0)? },
        "expect_reg" | "poll_reg" => {
            let text = k.s("a core and a register: \"q7[3].a2\", \"seq.pc\", \"top_sp.sar\"")?;
            let bad = |m: String| k.err(verb, m);
            let (core, reg) = text.rsplit_once('.').ok_or_else(|| bad(format!("'{text}': write core.register, e.g. \"q7[3].a2\"")))?;
            let (cores, reg, value) = (CoreSel::parse(core).map_err(&bad)?, super::CoreReg::parse(reg).map_err(&bad)?, k.value(true, 0)?);
            match verb {
                "expect_reg" => Verb::ExpectReg { cores, reg, value },
                _ if matches!(reg, super::CoreReg::Dram(_)) => {
                    return Err(bad("poll a core's DRAM word over BAR0: poll = \"mem.q7[3].dram+0x8\" (the TOP_SP's DRAM is not on BAR0: expect_reg reads it)".into()))
                }
                _ => {
                    Verb::PollReg { cores, reg, value, mask: k.opt_count("mask")?.unwrap_or(u64::from(u32::MAX)), timeout: k.opt_count("timeout")?.unwrap_or(super::POLL_TIMEOUT) }
                }
            }
        }
        "hal" => {
            let call = k.s("a HAL call")?;
            if !HAL_CALLS.contains(&call.as_str()) {
                return Err(k.err(verb, format!("'{call}' is not a HAL call a step can make: {}", HAL_CALLS.join(", "))));
            }
            Verb::Hal(call)
        }
        "devmem" => {
            let addr = k.count("devmem", k.item)?;
            let bad = || k.err("words", "a list of 32-bit words");
            let words = match k.t.get("words").and_then(|w| w.as_array()) {
                Some(a) => a.iter().map(|v| v.as_integer().and_then(|n| u32::try_from(n).ok()).ok_or_else(bad)).collect::<Result<Vec<u32>, _>>()?,
                None => return Err(k.err(verb, "'devmem' needs words = [ … ] (the 32-bit words from that device address)")),
            };
            Verb::DevMem { addr, words }
        }
        "init_dma" => Verb::InitDma {
            src: k.count("init_dma", k.item)?,
            to: k.opt_str("to")?.ok_or_else(|| k.err(verb, "'init_dma' needs to = \"a BAR0 name or address\" (where the copy lands)"))?,
            bytes: k.opt_count("bytes")?.ok_or_else(|| k.err(verb, "'init_dma' needs bytes = N (a multiple of 4)"))?,
        },
        "expect_console" => Verb::ExpectConsole {
            cores: cores()?,
            contains: k.opt_str("contains")?.ok_or_else(|| k.err(verb, "'expect_console' needs contains = \"text\" (a string a line of the core's console holds)"))?,
        },
        "expect_txn" => Verb::ExpectTxn(txn_check(k)?),
        "cc_op" => Verb::CcOp {
            entries: cc_op_entries(k)?,
            compl_sem: k
                .opt_count("compl_sem")?
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| k.err(verb, "'cc_op' needs compl_sem = N (the TOP_SP semaphore the last entry reports into)"))?,
            init_dma: match k.opt_str("load")?.as_deref() {
                None | Some("init_dma") => true,
                Some("pio") => false,
                Some(_) => return Err(k.err("load", "\"init_dma\" (staged in device memory, copied by the TOP_SP-init DMA) or \"pio\" (BAR0 writes)")),
            },
        },
        "expect_cc_op" => k.flag(Verb::ExpectCcOp)?,
        "window" => window(k)?,
        "tx_console" => k.flag(Verb::TxConsole)?,
        "expect_exception" => Verb::ExpectException {
            cores: cores()?,
            cause: match k.opt_str("cause")? {
                None => None,
                Some(c) => {
                    let known: Vec<(u32, String)> = (0..64).map(|n| (n, tpb_models::xtensa::core::cause::name(n))).filter(|(_, s)| !s.starts_with("cause ")).collect();
                    let n = known.iter().find(|(_, s)| *s == c).map(|(n, _)| *n).or_else(|| c.parse().ok().filter(|n| *n < 64));
                    Some(n.ok_or_else(|| {
                        k.err("cause", format!("'{c}' is not an EXCCAUSE: {} or a number below 64", known.iter().map(|(_, s)| s.as_str()).collect::<Vec<_>>().join(", ")))
                    })?)
                }
            },
        },
        "mem_window2" => Verb::MemWindow2(k.count(verb, k.item)?),
        "expect_doorbells" => Verb::ExpectDoorbells { count: k.count(verb, k.item)?, after: k.opt_str("after")?, mark: k.opt_str("mark")? },
        "start" => start(k)?,
        _ => unreachable!("every verb is handled"),
    })
}

/// `cc_op = [ [[m2s, s2m, repeat], …], … ]`: CTRL entries of STEP words.
fn cc_op_entries(k: &Keys) -> Result<Vec<Vec<[u32; 3]>>, FileError> {
    let bad = || k.err("cc_op", "a list of CTRL entries, each a list of [m2s, s2m, repeat] steps: [[[2, 1, 1]], [[1, 0, 2]]]");
    let entries = k.item.as_array().filter(|a| !a.is_empty()).ok_or_else(bad)?;
    let step = |v: &toml_edit::Value| -> Option<[u32; 3]> {
        let a = v.as_array().filter(|a| a.len() == 3)?;
        let n: Vec<u32> = a.iter().filter_map(|x| x.as_integer().and_then(|x| u32::try_from(x).ok())).collect();
        (n.len() == 3).then(|| [n[0], n[1], n[2]])
    };
    entries.iter().map(|e| e.as_array().filter(|s| !s.is_empty()).ok_or_else(bad)?.iter().map(|s| step(s).ok_or_else(bad)).collect()).collect()
}

/// `window = N` with `requester`, `src`, `size`, `dst`; or `off = true`.
fn window(k: &Keys) -> Result<Verb, FileError> {
    use tpb_models::hal::windows::{Requester, Window};
    let n = usize::try_from(k.count("window", k.item)?).map_err(|_| k.err("window", "a window number"))?;
    let keys = ["requester", "src", "size", "dst"];
    if k.opt_bool("off")? == Some(true) {
        if let Some(extra) = keys.iter().find(|x| k.t.contains_key(x)) {
            return Err(k.err(extra, "off = true disables the window: it takes no requester, src, size or dst"));
        }
        return Ok(Verb::Window { n, window: None });
    }
    let need = |x: &str| k.opt_count(x)?.ok_or_else(|| k.err("window", format!("'window' needs {} (or off = true)", keys.join(", "))));
    let requester = match k.opt_str("requester")?.as_deref() {
        Some("seq") => Requester::Nx,
        Some(s) => match CoreSel::parse(s) {
            Ok(CoreSel::Q7(c)) => Requester::Q7(c),
            _ => return Err(k.err("requester", format!("'{s}': \"seq\" or one Q7 core, \"q7[3]\""))),
        },
        None => return Err(k.err("window", format!("'window' needs {} (or off = true)", keys.join(", ")))),
    };
    Ok(Verb::Window { n, window: Some(Window { requester, src: need("src")?, size: need("size")?, dst: need("dst")? }) })
}

fn txn_check(k: &Keys) -> Result<TxnCheck, FileError> {
    let by = k.opt_str("by")?.map(|s| By::parse(&s).map_err(|e| k.err("by", e))).transpose()?;
    let write = match k.opt_str("access")?.as_deref() {
        None | Some("write") => true,
        Some("read") => false,
        Some(_) => return Err(k.err("access", "\"read\" or \"write\"")),
    };
    let mask = k.opt_count("mask")?;
    let data = match (k.t.contains_key("value"), k.t.contains_key("at_least"), mask) {
        (true, true, _) => return Err(k.err("at_least", "give value (with an optional mask) or at_least, not both")),
        (true, false, m) => DataCheck::Eq { value: k.val_of("value", true, 0)?, mask: m.unwrap_or(u64::from(u32::MAX)) },
        (false, _, Some(_)) => return Err(k.err("mask", "a mask goes with value = …")),
        (false, true, None) => DataCheck::AtLeast(k.val_of("at_least", true, 0)?),
        (false, false, None) => DataCheck::Any,
    };
    Ok(TxnCheck {
        name: k.s("a BAR0 register name or an address")?,
        by,
        write,
        data,
        count: k.opt_count("count")?,
        mark: k.opt_str("mark")?,
        after: k.opt_str("after")?,
        since: k.opt_str("since")?,
        before: k.opt_str("before")?,
        bytes: k.opt_count("bytes")?.unwrap_or(4).max(1),
    })
}

fn start(k: &Keys) -> Result<Verb, FileError> {
    let bad = |m: String| k.err("start", m);
    let names: Vec<String> = match k.item {
        Item::Value(v) if v.is_str() => vec![k.s("")?],
        Item::Value(v) if v.is_array() => {
            v.as_array().into_iter().flatten().map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad("a list of core names".into()))).collect::<Result<_, _>>()?
        }
        _ => return Err(bad("a core (\"seq\", \"q7\", \"q7[3]\") or a list of Q7 cores".into())),
    };
    let sels: Vec<CoreSel> = names.iter().map(|n| CoreSel::parse(n)).collect::<Result<_, _>>().map_err(&bad)?;
    let at = k.opt_str("at")?.ok_or_else(|| k.err("start", "'start' needs at = \"a label of the core's image\" (where it starts)"))?;
    let target = match sels.as_slice() {
        [CoreSel::Seq] => StartTarget::Seq,
        s if !s.is_empty() && s.iter().all(|c| matches!(c, CoreSel::Q7(_) | CoreSel::Q7All)) => StartTarget::Q7(q7_mask(s)),
        _ => return Err(bad("the HAL starts the SEQ (alone) or Q7 cores; not the TOP_SP".into())),
    };
    Ok(Verb::Start { target, at })
}

/// `stpb_init = true` or `stpb_init = { release = false, dma = true }`;
/// `dma` and `release` may also stand beside it.
fn stpb_init(k: &Keys) -> Result<Verb, FileError> {
    const HOW: &str = "write stpb_init = true, or stpb_init = { release = false } (install, keep every core run-stalled), with dma = true for the DMA rings";
    let (dma, release) = match k.item {
        Item::Value(toml_edit::Value::Boolean(b)) if *b.value() => (k.opt_bool("dma")?, k.opt_bool("release")?),
        Item::Value(toml_edit::Value::InlineTable(t)) => {
            if let Some((bad, _)) = t.iter().find(|(x, _)| !["dma", "release"].contains(x)) {
                return Err(k.err("stpb_init", format!("'{bad}' is not an option of stpb_init: it takes dma, release")));
            }
            for x in ["dma", "release"] {
                if t.contains_key(x) && k.t.contains_key(x) {
                    return Err(k.err(x, format!("{x} is given twice: inside stpb_init = {{ … }} and beside it")));
                }
            }
            let get = |x: &str| t.get(x).map(|v| v.as_bool().ok_or_else(|| k.err("stpb_init", format!("{x}: true or false")))).transpose();
            (get("dma")?.or(k.opt_bool("dma")?), get("release")?.or(k.opt_bool("release")?))
        }
        _ => return Err(k.err("stpb_init", HOW)),
    };
    Ok(Verb::StpbInit { dma: dma.unwrap_or(false), release: release.unwrap_or(true) })
}

/// `release = "q7"`, `"q7[3]"`, `["q7[0]", "q7[2]"]`, `"seq"`, `"top_sp"`
/// or `"all"` (what stpb_init = { release = false } held back).
fn release(k: &Keys) -> Result<Verb, FileError> {
    const HOW: &str =
        "the cores to release: \"all\" (what stpb_init held: the SEQ, then the Q7 cores where the HAL releases them), \"seq\", \"top_sp\", \"q7\", \"q7[3]\" or a list of Q7 cores";
    let bad = |m: String| k.err("release", m);
    let names: Vec<String> = match k.item {
        Item::Value(v) if v.is_str() => vec![k.s("")?],
        Item::Value(v) if v.is_array() => v.as_array().into_iter().flatten().map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad(HOW.into()))).collect::<Result<_, _>>()?,
        _ => return Err(bad(HOW.into())),
    };
    if names.len() == 1 && names[0] == "all" {
        return Ok(Verb::Release(ReleaseTarget::All));
    }
    let sels: Vec<CoreSel> = names.iter().map(|n| CoreSel::parse(n)).collect::<Result<_, _>>().map_err(|e| bad(format!("{e}; or \"all\"")))?;
    Ok(Verb::Release(match sels.as_slice() {
        [CoreSel::Seq] => ReleaseTarget::Seq,
        [CoreSel::TopSp] => ReleaseTarget::TopSp,
        s if !s.is_empty() && s.iter().all(|c| matches!(c, CoreSel::Q7(_) | CoreSel::Q7All)) => ReleaseTarget::Q7(q7_mask(s)),
        _ => return Err(bad(format!("{HOW} (the SEQ and the TOP_SP one at a time)"))),
    }))
}

/// The Q7 cores of `sels` as a bit mask (bit n = core n).
fn q7_mask(sels: &[CoreSel]) -> u8 {
    sels.iter().flat_map(|c| c.cores()).fold(0u8, |m, id| {
        m | match id {
            tpb_cosim::sched::CoreId::Q7(n) => 1 << n,
            _ => 0,
        }
    })
}

/// Which cores `release` lets go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseTarget {
    /// What `stpb_init = { release = false }` held back: pooling_init's
    /// steps 5 and 6 as the HAL does them.
    All,
    Seq,
    TopSp,
    /// A mask of Q7 cores.
    Q7(u8),
}

/// Which cores `start` restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartTarget {
    Seq,
    /// A mask of Q7 cores.
    Q7(u8),
}

impl super::TbFile {
    /// Every `after`, `since` and `before` names a mark an earlier step of
    /// the same run sets (the common steps, then a generation's own).
    pub(super) fn check_marks(&self) -> Result<(), FileError> {
        for &arch in &self.archs {
            let (steps, _) = self.for_arch(arch);
            let mut marks: Vec<&String> = Vec::new();
            for s in super::firmware::flatten(steps.iter()) {
                let (uses, sets): (Vec<(&str, &Option<String>)>, Option<&String>) = match &s.verb {
                    Verb::MarkCycle(m) => (Vec::new(), Some(m)),
                    Verb::ExpectDoorbells { after, mark, .. } => (vec![("after", after)], mark.as_ref()),
                    Verb::ExpectTxn(t) => (vec![("after", &t.after), ("since", &t.since), ("before", &t.before)], t.mark.as_ref()),
                    _ => continue,
                };
                if let Some((key, m)) = uses.into_iter().find_map(|(k, m)| m.as_ref().filter(|m| !marks.contains(m)).map(|m| (k, m))) {
                    let known = if marks.is_empty() {
                        "none is set before it".to_string()
                    } else {
                        format!("marks set before it: {}", marks.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "))
                    };
                    return Err(FileError { path: self.path.clone(), loc: s.loc, key: key.into(), msg: format!("no mark '{m}' on {}: {known}", arch.name()) });
                }
                marks.extend(sets);
            }
        }
        Ok(())
    }
}
