//! `expect_txn`: a question to the co-simulation's bus log (every BAR0
//! access any master made, with its cycle), as a file's check.

use super::super::Tb;
use super::{By, TxnCheck};
use crate::tb::names::parse_u32;
use std::collections::BTreeMap;
use tpb_cosim::sched::{Master, Txn, LOG_LIMIT};

/// The data a match must carry, the file's constants resolved.
#[derive(Debug, Clone, Copy)]
pub enum Data {
    Any,
    Eq { value: u32, mask: u32 },
    AtLeast(u32),
}

impl Data {
    fn matches(self, d: u32) -> bool {
        match self {
            Data::Any => true,
            Data::Eq { value, mask } => d & mask == value & mask,
            Data::AtLeast(v) => d >= v,
        }
    }
    fn describe(self) -> String {
        match self {
            Data::Any => String::new(),
            Data::Eq { value, mask: u32::MAX } => format!(" of {value:#x}"),
            Data::Eq { value, mask } => format!(" of {:#x} under mask {mask:#x}", value & mask),
            Data::AtLeast(v) => format!(" of at least {v:#x}"),
        }
    }
}

fn by_matches(by: Option<By>, m: Master) -> bool {
    match (by, m) {
        (None, _) => true,
        (Some(By::Host), Master::Host) | (Some(By::InitDma), Master::InitDma) => true,
        (Some(By::Cores(sel)), Master::Core(id)) => sel.cores().contains(&id),
        _ => false,
    }
}

fn by_name(by: Option<By>) -> String {
    match by {
        None => String::new(),
        Some(By::Host) => " by the host".into(),
        Some(By::InitDma) => " by the init DMA".into(),
        Some(By::Cores(sel)) => format!(" by {}", sel.name()),
    }
}

/// At most `n` transactions, one per line.
fn listed(t: &[&Txn], n: usize) -> String {
    let mut s: String = t.iter().take(n).map(|t| format!("\n    {t}")).collect();
    if t.len() > n {
        s += &format!("\n    … and {} more", t.len() - n);
    }
    s
}

/// Check `t` against the log; record its mark. The error says what was
/// sought, what the log holds, and which matches break an order.
pub fn check(tb: &mut Tb, t: &TxnCheck, data: Data, marks: &mut BTreeMap<String, u64>) -> Result<(), String> {
    let addr = match parse_u32(&t.name) {
        Some(a) => a,
        None => tb.resolve(&t.name).map_err(|e| e.to_string())?.addr().ok_or_else(|| format!("{}: an output port, not a BAR0 address", t.name))?,
    };
    let c = tb.cosim().expect("checked on load: expect_txn needs [firmware]");
    if c.log.len() >= LOG_LIMIT {
        return Err(format!("the bus log keeps the last {LOG_LIMIT} transactions and has dropped older ones, so it cannot answer for {}", t.name));
    }
    let access = if t.write { "writes" } else { "reads" };
    let end = u64::from(addr) + t.bytes;
    let span = if t.bytes > 4 { format!(" .. {:#x}", end - 1) } else { String::new() };
    let what =
        format!("{access} to {} ({addr:#x}{span}){}{}{}", t.name, by_name(t.by), data.describe(), t.since.as_ref().map(|m| format!(" since mark '{m}'")).unwrap_or_default());
    let since = match &t.since {
        Some(m) => Some(*marks.get(m).ok_or_else(|| format!("no mark '{m}' yet"))?),
        None => None,
    };
    let here: Vec<&Txn> =
        c.log.iter().filter(|x| (u64::from(addr)..end).contains(&u64::from(x.addr)) && x.write == t.write && !x.err && since.is_none_or(|s| x.cycle > s)).collect();
    let (hit, miss): (Vec<&Txn>, Vec<&Txn>) = here.iter().copied().partition(|x| by_matches(t.by, x.master) && data.matches(x.data));
    let others = if miss.is_empty() { String::new() } else { format!("; the other {access} there:{}", listed(&miss, 6)) };
    match t.count {
        Some(n) if hit.len() as u64 != n => return Err(format!("expected {n} {what}, the log holds {} (cycle {}){}{others}", hit.len(), c.stats.cycles, listed(&hit, 8))),
        None if hit.is_empty() => return Err(format!("expected {what}, the log holds none (cycle {}){others}", c.stats.cycles)),
        _ => {}
    }
    if let Some(m) = &t.after {
        let at = *marks.get(m).ok_or_else(|| format!("no mark '{m}' yet"))?;
        let early: Vec<&Txn> = hit.iter().copied().filter(|x| x.cycle <= at).collect();
        if !early.is_empty() {
            return Err(format!("{what}: {} of {} come at or before mark '{m}' (cycle {at}):{}", early.len(), hit.len(), listed(&early, 8)));
        }
    }
    if let Some(m) = &t.before {
        let at = *marks.get(m).ok_or_else(|| format!("no mark '{m}' yet"))?;
        let late: Vec<&Txn> = hit.iter().copied().filter(|x| x.cycle >= at).collect();
        if !late.is_empty() {
            return Err(format!("{what}: {} of {} come at or after mark '{m}' (cycle {at}):{}", late.len(), hit.len(), listed(&late, 8)));
        }
    }
    if let Some(m) = &t.mark {
        marks.insert(m.clone(), hit.last().map_or(0, |x| x.cycle));
    }
    Ok(())
}
