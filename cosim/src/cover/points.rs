//! The seeds' cases as coverage points (`tpb cover`'s `points.*`): named
//! events of the control plane, each counted when a run shows it.
//!
//! Where each point is seen (every one is an observation of the run, not
//! of its configuration):
//! - `evt_sem.<engine>.<window>`: a BAR0 access to the window (the
//!   register coverage's window points);
//! - `notification.<class>.<type>`: a record of that type read from the
//!   notification ring (by the host or a core);
//! - `dma_error.<bit>`: the bit read set in `pool.seq_dma.error`, or in a
//!   DMA-error record's argument;
//! - `interrupt.<source>`: the source's bit read set in an NX `intr_info`
//!   (`interrupt.q7.*`: a Q7 core's); `interrupt.taken.<core kind>`: a
//!   core of the kind took its level-1 interrupt;
//! - `halt.<core kind>`: a core of the kind executed HALT;
//!   `start.<core kind>`: one restarted by a `start_ctrl` write;
//! - `hw_decode.hit`: the SEQ popped a CAM hit from the FIFO;
//!   `hw_decode.miss_fallback`, `.miss_interrupt`, `.unknown`: an
//!   instruction that took that path, as the `dispatch` scenario verified it
//!   against its reference;
//! - `collective.<algorithm>.<dies>`: a collective that passed its checks
//!   on that many dies.

use super::*;
use tpb_models::golden::notific as ntf;
use tpb_models::regmap::cover::RegCoverage;
use tpb_models::regmap::space::AddressSpace;
use tpb_models::regmap::RegMap;
use tpb_models::xtensa::core::Step;

/// Die counts the collective points ask for.
pub const COLLECTIVE_DIES: [usize; 4] = [2, 4, 8, 16];

/// The NX `intr_info` bits (`tpb_spec::nx_intr`) and the generations that have them.
fn nx_sources(arch: Arch) -> Vec<(u32, &'static str)> {
    use tpb_spec::nx_intr::*;
    let mut v = vec![(DMA_ERROR, "dma_error"), (SEM_CHANGED, "sem_changed"), (HOST_RAISE, "host_raise")];
    if arch == Arch::Sunda {
        v.extend([(HOST_TRIGGER, "host_trigger"), (STOP, "stop")]);
    } else {
        v.push((CAM_MISS, "cam_miss"));
    }
    v
}

/// The Q7 `intr_info_n` bits (`maps/common/q7.toml`, `[D]`).
const Q7_SOURCES: [(u32, &str); 2] = [(1 << 2, "sem_changed"), (1 << 3, "host_raise")];

/// The DMA error bits (`tpb_spec::seq_dma`).
const DMA_ERRORS: [(u32, &str); 3] =
    [(tpb_spec::seq_dma::ERR_COMPLETION, "completion"), (tpb_spec::seq_dma::ERR_RANGE, "range"), (tpb_spec::seq_dma::ERR_EMPTY_RING, "empty_ring")];

/// Notification record types: (type, class, name).
const RECORDS: [(u32, &str, &str); 6] = [
    (ntf::T_DMA_ERROR, "error", "dma_error"),
    (ntf::T_BUS_ERROR, "error", "bus_error"),
    (ntf::T_SEM, "evt_sem", "sem_change"),
    (ntf::T_HALT, "inst", "halt"),
    (ntf::T_DMA_DONE, "inst", "dma_done"),
    (ntf::T_INST_DONE, "inst", "inst_done"),
];

/// The core kinds of the halt, start and interrupt points (the NCFW core
/// has no start register and no interrupt line of the top: not a point).
const KINDS: [&str; 3] = ["q7", "seq", "top_sp"];

fn kind(id: CoreId) -> &'static str {
    match id {
        CoreId::Q7(_) => "q7",
        CoreId::Seq => "seq",
        CoreId::TopSp => "top_sp",
        CoreId::Ncfw => "ncfw",
    }
}

/// One point of the catalogue and how a run shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointDef {
    pub name: String,
    pub how: &'static str,
}

/// Every point of `map`'s generation.
pub fn catalogue(map: &RegMap) -> Vec<PointDef> {
    let mut v = Vec::new();
    let mut add = |name: String, how: &'static str| v.push(PointDef { name, how });
    for f in RegCoverage::new(map).report().fields {
        if let Some(w) = f.name.strip_suffix("[]").filter(|_| f.block.ends_with(".evt_sem")) {
            let (engine, window) = (f.block.trim_end_matches(".evt_sem"), w.rsplit('.').next().unwrap_or(w));
            add(format!("evt_sem.{engine}.{window}"), "a BAR0 access to the window");
        }
    }
    for (_, class, name) in RECORDS {
        add(format!("notification.{class}.{name}"), "a record of the type read from the ring");
    }
    for (_, name) in DMA_ERRORS {
        add(format!("dma_error.{name}"), "the bit read set in pool.seq_dma.error or a DMA-error record");
    }
    for (_, name) in nx_sources(map.arch) {
        add(format!("interrupt.{name}"), "the bit read set in an NX intr_info");
    }
    for (_, name) in Q7_SOURCES {
        add(format!("interrupt.q7.{name}"), "the bit read set in a Q7 intr_info_n");
    }
    for k in KINDS {
        add(format!("interrupt.taken.{k}"), "a core of the kind took its level-1 interrupt");
        add(format!("halt.{k}"), "a core of the kind executed HALT");
        add(format!("start.{k}"), "a core of the kind restarted by start_ctrl");
    }
    if map.params.hw_decode.present {
        add("hw_decode.hit".into(), "the SEQ popped a CAM hit");
        for p in ["miss_fallback", "miss_interrupt", "unknown"] {
            add(format!("hw_decode.{p}"), "an instruction the dispatch scenario verified on that path");
        }
    }
    for a in crate::scenario::collective::Algorithm::ALL {
        for n in COLLECTIVE_DIES {
            add(format!("collective.{}.{n}", a.name()), "the collective passed its checks on that many dies");
        }
    }
    v
}

/// A run's observer: the points it saw, per run.
#[derive(Debug, Clone)]
pub struct Points {
    arch: Arch,
    nx_intr: Vec<u32>,
    q7_intr: Vec<u32>,
    dma_error: Option<u32>,
    /// The notification ring: base and bytes.
    ring: Option<(u32, u32)>,
    /// Word address of the argument of the last DMA-error record read.
    dma_error_arg: Option<u32>,
    source: String,
    /// Point → run → times seen.
    pub hits: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Points {
    /// An observer of `map`'s tops, counting for run `source`.
    pub fn new(map: &RegMap, source: &str) -> Points {
        let space = AddressSpace::new(map.clone());
        let addr = |n: &str| space.resolve(n).ok().map(|t| t.addr());
        let nx_intr = space.all().iter().filter(|n| n.ends_with(".nx.intr_info")).filter_map(|n| addr(n)).collect();
        let q7_intr = (0..8).filter_map(|n| addr(&format!("pool.q7.intr_info_{n}"))).collect();
        let ring = space.regions().iter().find(|r| r.name == "notific.ring").map(|r| (r.region.base as u32, r.region.size as u32));
        Points { arch: map.arch, nx_intr, q7_intr, dma_error: addr("pool.seq_dma.error"), ring, dma_error_arg: None, source: source.into(), hits: BTreeMap::new() }
    }

    /// Count point `name` once for this run.
    pub fn hit(&mut self, name: impl Into<String>) {
        *self.hits.entry(name.into()).or_default().entry(self.source.clone()).or_default() += 1;
    }

    fn bits(&mut self, data: u32, names: &[(u32, &str)], prefix: &str) {
        for (b, n) in names {
            if data & b != 0 {
                self.hit(format!("{prefix}{n}"));
            }
        }
    }

    /// A BAR0 read answered with `data` (without error).
    pub fn on_read(&mut self, addr: u32, data: u32) {
        if self.nx_intr.contains(&addr) {
            self.bits(data, &nx_sources(self.arch), "interrupt.");
        } else if self.q7_intr.contains(&addr) {
            self.bits(data, &Q7_SOURCES, "interrupt.q7.");
        } else if Some(addr) == self.dma_error || Some(addr) == self.dma_error_arg {
            self.bits(data, &DMA_ERRORS, "dma_error.");
        }
        if let Some((base, _)) = self.ring.filter(|(b, s)| addr.wrapping_sub(*b) < *s) {
            let off = addr - base;
            if off.is_multiple_of(ntf::RECORD_BYTES) {
                let t = data & 0xff;
                if let Some((_, class, name)) = RECORDS.iter().find(|r| r.0 == t) {
                    self.hit(format!("notification.{class}.{name}"));
                }
                self.dma_error_arg = (t == ntf::T_DMA_ERROR).then_some(addr + 4);
            }
        }
    }

    /// Core `id` stepped to `st` (its step before: `last`).
    pub fn on_step(&mut self, id: CoreId, st: Step, last: Option<Step>) {
        match st {
            Step::Halted if last != Some(Step::Halted) => self.hit(format!("halt.{}", kind(id))),
            Step::Exception { cause, .. } if cause == tpb_models::xtensa::core::cause::LEVEL1_INTERRUPT => self.hit(format!("interrupt.taken.{}", kind(id))),
            _ => {}
        }
    }

    /// Core `id` restarted by a start_ctrl write.
    pub fn on_start(&mut self, id: CoreId) {
        self.hit(format!("start.{}", kind(id)));
    }

    /// Add `other`'s counts.
    pub fn merge(&mut self, other: &Points) {
        for (p, by) in &other.hits {
            for (s, n) in by {
                *self.hits.entry(p.clone()).or_default().entry(s.clone()).or_default() += n;
            }
        }
    }
}

/// One point's line of the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PointRow {
    pub name: String,
    /// How a run shows it.
    pub how: String,
    pub hits: u64,
    /// The runs that showed it.
    pub runs: Vec<String>,
    /// Not covered: why, where it is known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
}

/// The points of one generation over a set of runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PointsReport {
    pub arch: String,
    pub points: Vec<PointRow>,
    /// Points no run showed.
    pub uncovered: Vec<String>,
}

impl PointsReport {
    /// The catalogue of `map` against what `seen` counted (points `seen`
    /// has outside the catalogue are left out), with `reasons` for points
    /// that could not be run.
    pub fn of(map: &RegMap, seen: &Points, reasons: &BTreeMap<String, String>) -> PointsReport {
        let points: Vec<PointRow> = catalogue(map)
            .into_iter()
            .map(|d| {
                let by = seen.hits.get(&d.name);
                let reason = reasons.get(&d.name).filter(|_| by.is_none()).cloned();
                PointRow { how: d.how.into(), hits: by.map_or(0, |b| b.values().sum()), runs: by.map_or_else(Vec::new, |b| b.keys().cloned().collect()), reason, name: d.name }
            })
            .collect();
        let uncovered = points.iter().filter(|p| p.hits == 0).map(|p| p.name.clone()).collect();
        PointsReport { arch: map.arch.name().into(), points, uncovered }
    }

    /// Points hit, of all.
    pub fn covered(&self) -> (usize, usize) {
        (self.points.len() - self.uncovered.len(), self.points.len())
    }

    /// A Markdown table: each point, its hits and runs.
    pub fn table(&self) -> String {
        let mut s = String::from("| point | hits | runs |\n|---|---:|---|\n");
        for p in &self.points {
            let runs = match &p.reason {
                _ if !p.runs.is_empty() => p.runs.join(", "),
                Some(why) => format!("**not covered**: {why}"),
                None => "**not covered**".into(),
            };
            s += &format!("| `{}` | {} | {runs} |\n", p.name, p.hits);
        }
        let (h, n) = self.covered();
        s + &format!("\n{h} of {n} points covered.\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_models::regmap::builtin;

    /// What a read shows: intr_info sources, DMA error bits (in the status
    /// register and in a DMA-error record's argument), record types; an
    /// unrelated address shows nothing; a refused point keeps its reason.
    #[test]
    fn reads_show_sources_errors_and_records() {
        let map = builtin(Arch::Cayman).unwrap();
        let space = AddressSpace::new(map.clone());
        let at = |n: &str| space.resolve(n).unwrap().addr();
        let mut p = Points::new(&map, "r");
        p.on_read(at("pool.nx.intr_info"), tpb_spec::nx_intr::CAM_MISS | tpb_spec::nx_intr::HOST_RAISE);
        p.on_read(at("pool.q7.intr_info_3"), 1 << 2);
        p.on_read(at("pool.seq_dma.error"), tpb_spec::seq_dma::ERR_RANGE);
        let ring = space.regions().iter().find(|r| r.name == "notific.ring").unwrap().region.base as u32;
        p.on_read(ring + 16, ntf::T_DMA_ERROR | 2 << 8);
        p.on_read(ring + 20, tpb_spec::seq_dma::ERR_EMPTY_RING);
        p.on_read(ring + 32, ntf::T_SEM);
        p.on_read(ring + 36, tpb_spec::seq_dma::ERR_COMPLETION); // not a DMA-error record's argument
        p.on_read(at("pool.nx.start_addr"), u32::MAX);
        let seen: Vec<&str> = p.hits.keys().map(String::as_str).collect();
        assert_eq!(
            seen,
            [
                "dma_error.empty_ring",
                "dma_error.range",
                "interrupt.cam_miss",
                "interrupt.host_raise",
                "interrupt.q7.sem_changed",
                "notification.error.dma_error",
                "notification.evt_sem.sem_change"
            ]
        );
        p.on_step(CoreId::TopSp, Step::Halted, Some(Step::Halted));
        assert!(!p.hits.contains_key("halt.top_sp"), "a core still halted is not a new HALT");
        p.on_step(CoreId::TopSp, Step::Halted, None);
        p.on_start(CoreId::Q7(2));
        assert_eq!((p.hits["halt.top_sp"]["r"], p.hits["start.q7"]["r"]), (1, 1));
        let why = BTreeMap::from([("collective.ring.16".to_string(), "too big".to_string()), ("halt.top_sp".to_string(), "ignored: covered".to_string())]);
        let r = PointsReport::of(&map, &p, &why);
        let row = |n: &str| r.points.iter().find(|x| x.name == n).unwrap().clone();
        assert_eq!((row("collective.ring.16").reason, row("halt.top_sp").reason), (Some("too big".into()), None));
        assert!(r.table().contains("**not covered**: too big"));
        assert_eq!(r.covered().0, 9);
    }
}
