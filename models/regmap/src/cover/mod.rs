//! Register coverage: for every field of a generation's map, which runs
//! (testbenches, scenarios, a user's files) wrote it, read it and checked
//! its value.
//!
//! A [`RegCoverage`] is fed the accesses of runs as they happen: a BAR0
//! word written or read (by the host or testbench, or by a core's
//! firmware), and a **check**: a value read and compared (a testbench's
//! `expect` or `poll`, a scenario's check of a register it read). A write
//! or a read covers every field of the register it reaches (the bus moves
//! whole words); a check covers the fields of the compared mask. An
//! EVT_SEM window is one point, with the number of its elements touched.
//! Memory words (IRAM, DRAM, SPADs) are not registers and are not counted.
//!
//! [`RegCoverage::report`] gives the result ([`Report`]: serde, written as
//! JSON), a summary per block and the fields nobody checks; [`html`] draws
//! it as a matrix, field by run.
//!
//! ```
//! use tpb_regmap::cover::RegCoverage;
//! let map = tpb_regmap::builtin(tpb_regmap::Arch::Cayman).unwrap();
//! let mut c = RegCoverage::new(&map);
//! c.source("my_test");
//! let addr = c.space().resolve("pool.q7.release_run_stall").unwrap().addr();
//! c.access(addr, true, false);
//! c.check(addr, 0xff);
//! let r = c.report();
//! let f = r.fields.iter().find(|f| f.name == "pool.q7.release_run_stall.stall").unwrap();
//! assert_eq!((f.written_by.len(), f.checked_by.len()), (1, 1));
//! ```

mod html;

pub use html::html;

use crate::space::{AddressSpace, Target};
use crate::{Arch, RegMap, RegionKind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

const WRITTEN: u8 = 1;
const READ: u8 = 2;
const CHECKED: u8 = 4;
/// A core's firmware (not the host or testbench) made the access.
const FIRMWARE: u8 = 8;

/// One coverage point: a field, a whole register without fields, or an
/// array window.
#[derive(Debug, Clone)]
struct Item {
    name: String,
    block: String,
    access: String,
    /// The field's bits in its register (a window: all ones).
    mask: u32,
    /// Elements of a window (0 for a field).
    elements: u32,
}

/// The points of one register (its fields), or of one window.
#[derive(Debug, Clone, Copy)]
struct Span {
    first: usize,
    n: usize,
    window: Option<u32>,
}

/// Accesses counted against a map's fields, run by run.
#[derive(Debug, Clone)]
pub struct RegCoverage {
    space: AddressSpace,
    items: Vec<Item>,
    /// Register or window name → its points.
    by_name: HashMap<String, Span>,
    /// Decoded BAR0 word addresses (None: not a register).
    by_addr: HashMap<u32, Option<Span>>,
    sources: Vec<String>,
    current: usize,
    /// Per point: source index → flags.
    hits: Vec<BTreeMap<usize, u8>>,
    /// Per window point: the elements touched.
    touched: Vec<Vec<bool>>,
}

/// Why two coverages cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("register coverage of {theirs} cannot merge into {ours}'s")]
pub struct MergeError {
    pub ours: &'static str,
    pub theirs: &'static str,
}

impl RegCoverage {
    /// Every field, register and window of `map`'s BAR0, none covered.
    pub fn new(map: &RegMap) -> RegCoverage {
        let space = AddressSpace::new(map.clone());
        let mut items = Vec::new();
        let mut by_name = HashMap::new();
        for region in space.regions().iter().filter(|r| r.kind != RegionKind::Memory) {
            for b in space.blocks_of(region) {
                let block = format!("{}.{}", crate::space::engine_of(region), b.name);
                for r in &b.registers {
                    let first = items.len();
                    let reg = format!("{block}.{}", r.name);
                    if r.fields.is_empty() {
                        items.push(Item { name: reg.clone(), block: block.clone(), access: "rw".into(), mask: u32::MAX, elements: 0 });
                    }
                    for f in &r.fields {
                        items.push(Item { name: format!("{reg}.{}", f.name), block: block.clone(), access: f.access.name().into(), mask: f.mask(), elements: 0 });
                    }
                    by_name.entry(reg).or_insert(Span { first, n: items.len() - first, window: None });
                }
                for a in &b.arrays {
                    for w in &a.windows {
                        let name = format!("{block}.{}[]", w.name);
                        by_name.entry(name.clone()).or_insert(Span { first: items.len(), n: 1, window: Some(a.count) });
                        items.push(Item { name, block: block.clone(), access: w.op.name().into(), mask: u32::MAX, elements: a.count });
                    }
                }
            }
        }
        let touched = items.iter().map(|i| vec![false; i.elements as usize]).collect();
        let hits = vec![BTreeMap::new(); items.len()];
        RegCoverage { space, items, by_name, by_addr: HashMap::new(), sources: vec!["(unnamed)".into()], current: 0, hits, touched }
    }

    /// The address space the accesses are decoded in.
    pub fn space(&self) -> &AddressSpace {
        &self.space
    }

    /// The generation.
    pub fn arch(&self) -> Arch {
        self.space.regmap().arch
    }

    /// The following accesses belong to run `name` (a testbench, a
    /// scenario, a file).
    pub fn source(&mut self, name: &str) {
        self.current = self.source_index(name);
    }

    fn source_index(&mut self, name: &str) -> usize {
        match self.sources.iter().position(|s| s == name) {
            Some(i) => i,
            None => {
                self.sources.push(name.into());
                self.sources.len() - 1
            }
        }
    }

    /// The points the word at `addr` reaches, and the element for a window.
    fn span(&mut self, addr: u32) -> Option<(Span, u32)> {
        let word = addr & !3;
        if let Some(s) = self.by_addr.get(&word) {
            return s.map(|s| (s, self.element(word, s)));
        }
        let span = match self.space.decode(u64::from(word)) {
            Some(Target::Reg { region, block, reg }) => self.by_name.get(&format!("{}.{}.{}", crate::space::engine_of(region), block.name, reg.name)).copied(),
            Some(Target::Elem { region, window, .. }) => {
                let block = self.space.blocks_of(region).find(|b| b.arrays.iter().any(|a| a.windows.iter().any(|w| std::ptr::eq(w, window))))?;
                self.by_name.get(&format!("{}.{}.{}[]", crate::space::engine_of(region), block.name, window.name)).copied()
            }
            _ => None,
        };
        self.by_addr.insert(word, span);
        span.map(|s| (s, self.element(word, s)))
    }

    fn element(&self, word: u32, s: Span) -> u32 {
        if s.window.is_none() {
            return 0;
        }
        match self.space.decode(u64::from(word)) {
            Some(Target::Elem { index, .. }) => index,
            _ => 0,
        }
    }

    fn mark(&mut self, addr: u32, mask: u32, flags: u8) {
        let Some((s, element)) = self.span(addr) else { return };
        for i in s.first..s.first + s.n {
            if self.items[i].mask & mask != 0 {
                *self.hits[i].entry(self.current).or_default() |= flags;
                if let Some(t) = self.touched[i].get_mut(element as usize) {
                    *t = true;
                }
            }
        }
    }

    /// A BAR0 word written or read; `firmware`: by a core, not the host.
    pub fn access(&mut self, addr: u32, write: bool, firmware: bool) {
        let f = if write { WRITTEN } else { READ };
        self.mark(addr, u32::MAX, if firmware { f | FIRMWARE } else { f });
    }

    /// The bits `mask` of the word at `addr` were read and compared.
    pub fn check(&mut self, addr: u32, mask: u32) {
        self.mark(addr, mask, CHECKED);
    }

    /// Add `other`'s runs (of the same generation) to these.
    pub fn merge(&mut self, other: &RegCoverage) -> Result<(), MergeError> {
        if other.arch() != self.arch() {
            return Err(MergeError { ours: self.arch().name(), theirs: other.arch().name() });
        }
        let map: Vec<usize> = other.sources.iter().map(|s| self.source_index(s)).collect();
        for (i, h) in other.hits.iter().enumerate() {
            for (s, f) in h {
                *self.hits[i].entry(map[*s]).or_default() |= f;
            }
            for (t, o) in self.touched[i].iter_mut().zip(&other.touched[i]) {
                *t |= o;
            }
        }
        Ok(())
    }

    /// What was covered, by whom.
    pub fn report(&self) -> Report {
        let name = |set: &BTreeMap<usize, u8>, flag: u8| set.iter().filter(|(_, f)| *f & flag != 0).map(|(s, _)| self.sources[*s].clone()).collect::<Vec<_>>();
        let fields: Vec<FieldCover> = self
            .items
            .iter()
            .zip(&self.hits)
            .zip(&self.touched)
            .map(|((it, h), t)| FieldCover {
                name: it.name.clone(),
                block: it.block.clone(),
                access: it.access.clone(),
                written_by: name(h, WRITTEN),
                read_by: name(h, READ),
                checked_by: name(h, CHECKED),
                by_firmware: name(h, FIRMWARE),
                elements: (it.elements > 0).then(|| [t.iter().filter(|x| **x).count() as u32, it.elements]),
            })
            .collect();
        let mut blocks: Vec<BlockSummary> = Vec::new();
        for f in &fields {
            if blocks.last().is_none_or(|b| b.block != f.block) {
                blocks.push(BlockSummary { block: f.block.clone(), ..Default::default() });
            }
            let b = blocks.last_mut().expect("pushed above");
            b.fields += 1;
            b.written += u32::from(!f.written_by.is_empty());
            b.read += u32::from(!f.read_by.is_empty());
            b.checked += u32::from(!f.checked_by.is_empty());
        }
        let used: Vec<String> = self.sources.iter().enumerate().filter(|(i, _)| self.hits.iter().any(|h| h.contains_key(i))).map(|(_, s)| s.clone()).collect();
        let unchecked = fields.iter().filter(|f| f.checked_by.is_empty()).map(|f| f.name.clone()).collect();
        Report { generator: "tpb cover (tpb_regmap::cover)".into(), arch: self.arch().name().into(), sources: used, blocks, fields, unchecked }
    }
}

/// One point of a [`Report`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldCover {
    /// `pool.q7.release_run_stall.stall`; a window `top_sp.evt_sem.inc[]`.
    pub name: String,
    /// `pool.q7`.
    pub block: String,
    /// The field's access (`rw`, `ro`, `w1c` …) or the window's operation.
    pub access: String,
    pub written_by: Vec<String>,
    pub read_by: Vec<String>,
    pub checked_by: Vec<String>,
    /// The runs in which a core's firmware (not the host) reached it.
    pub by_firmware: Vec<String>,
    /// A window: \[elements touched, elements\].
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub elements: Option<[u32; 2]>,
}

/// A block's points: how many, and how many were written, read, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSummary {
    pub block: String,
    pub fields: u32,
    pub written: u32,
    pub read: u32,
    pub checked: u32,
}

/// Register coverage of one generation over a set of runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub generator: String,
    pub arch: String,
    /// The runs that reached at least one register.
    pub sources: Vec<String>,
    pub blocks: Vec<BlockSummary>,
    pub fields: Vec<FieldCover>,
    /// Every point no run checked.
    pub unchecked: Vec<String>,
}

impl Report {
    /// All blocks together.
    pub fn total(&self) -> BlockSummary {
        self.blocks.iter().fold(BlockSummary { block: "all".into(), ..Default::default() }, |mut a, b| {
            a.fields += b.fields;
            a.written += b.written;
            a.read += b.read;
            a.checked += b.checked;
            a
        })
    }

    /// A Markdown table: per block, fields written, read and checked.
    pub fn summary_table(&self) -> String {
        let pct = |n: u32, of: u32| if of == 0 { 100.0 } else { 100.0 * f64::from(n) / f64::from(of) };
        let row = |b: &BlockSummary, name: String| {
            format!(
                "| {name} | {} | {} ({:.0}%) | {} ({:.0}%) | {} ({:.0}%) |\n",
                b.fields,
                b.written,
                pct(b.written, b.fields),
                b.read,
                pct(b.read, b.fields),
                b.checked,
                pct(b.checked, b.fields)
            )
        };
        let mut s = String::from("| block | fields | written | read | checked |\n|---|---:|---:|---:|---:|\n");
        for b in &self.blocks {
            s += &row(b, format!("`{}`", b.block));
        }
        s + &row(&self.total(), "**all**".into())
    }
}
