//! One block instance → the body of one Verilog module, in the lean form
//! (see the design note in `mod.rs`).
//!
//! - rust-hdl's `DFF` children become registers of this module, updated by
//!   one `always @(posedge clock)` process that keeps the control structure
//!   of `update` around their `d` assignments (`if (c) x <= v;`). The
//!   `d = q` hold defaults of `dff_setup!` are dropped: a register keeps its
//!   value when nothing assigns it.
//! - `RAM` children become memory arrays of this module with their own
//!   clocked process (the block-RAM template synthesis tools infer).
//! - Every signal another process or module reads (an output port, a
//!   child's input) is assigned exactly once on every path through the
//!   combinational process: a signal `update` assigns several times
//!   (default, then overrides) is rebuilt as one if/else/case tree whose
//!   branches each assign it once. Event-driven simulators then never see
//!   an intermediate value, so they cannot loop between parent and child.
//!
//! Moving an assignment is only right if what it reads has the same value at
//! the new place. `update` is sequential code: a local written after the
//! place that reads it would be read early. Every move is therefore checked:
//! a moved statement may read only signals that `update` no longer writes
//! after it. A block that breaks this is an error naming the signal and the
//! two places, never a silent change of meaning.

use super::collect::{AtomInfo, Inst};
use super::ir::{self, Expr, Stmt};
use rust_hdl::prelude::{AtomKind, Verilog};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Why a block cannot be emitted in the lean form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error(transparent)]
    Ir(#[from] ir::IrError),
    #[error("{block}: child `{child}` has hand-written Verilog the emitter does not know (only rust-hdl's DFF and RAM widgets are inlined)")]
    UnknownWidget { block: String, child: String },
    #[error("{block}: register `{reg}` has no clock (no `{reg}.clock.next = …` at the top level of update)")]
    NoClock { block: String, reg: String },
    #[error("{block}: the clock of `{target}` must be assigned once, unconditionally, from a signal")]
    ClockForm { block: String, target: String },
    #[error("{block}: `{read}` is read at statement {at} (to compute `{target}`), but update writes it again at statement {written}: move that read after the last write, or compute it into a local")]
    NotFinal { block: String, target: String, read: String, at: usize, written: usize },
    #[error("{block}: update reads `{read}` (a flip-flop's next value); read the flip-flop's output or a local instead")]
    ReadsNext { block: String, read: String },
    #[error("{block}: `{signal}` is assigned several times and read at statement {at} before its last assignment (statement {last}); compute it into a local")]
    ReadBeforeLast { block: String, signal: String, at: usize, last: usize },
    #[error("{block}: `{signal}` is not assigned on every path through update (a latch)")]
    Latch { block: String, signal: String },
    #[error("{block}: `{signal}` is assigned a bit slice and several times; the emitter needs whole assignments there")]
    Slice { block: String, signal: String },
    #[error("{block}: the emitter would assign `{signal}` {count:?} times on some path instead of once (a bug of the emitter)")]
    NotOnce { block: String, signal: String, count: Option<usize> },
    #[error("{block}: HDL kind not supported by the emitter ({kind})")]
    Kind { block: String, kind: &'static str },
}

/// What a child instance is to the emitter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Widget {
    /// rust-hdl's `DFF<T>`: a register with this power-on value.
    Dff { init: String },
    /// rust-hdl's `RAM<T, N>`: synchronous read and write, old data on a read-during-write.
    Ram,
    /// Our [`crate::ram::WordRam`]: 32-bit words, byte write strobes, read enable.
    WordRam,
    /// A block of ours: its own module.
    Logic,
}

fn ports_are(inst: &Inst, want: &[(&str, AtomKind)]) -> bool {
    inst.atoms.len() == want.len() && want.iter().all(|(n, k)| inst.atom(n).is_some_and(|a| a.kind == *k))
}

/// Recognise rust-hdl's widgets by their ports and their Verilog.
pub fn widget(parent: &str, inst: &Inst) -> Result<Widget, LowerError> {
    use AtomKind::{InputParameter as I, OutputParameter as O};
    match &inst.code {
        Verilog::Combinatorial(_) => Ok(Widget::Logic),
        Verilog::Custom(text) => {
            let norm: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if ports_are(inst, &[("d", I), ("q", O), ("clock", I)]) {
                let init = norm.strip_prefix("initial begin q = ").and_then(|r| r.strip_suffix("; end always @(posedge clock) begin q <= d; end"));
                if let Some(init) = init {
                    return Ok(Widget::Dff { init: init.to_string() });
                }
            }
            let ram = [
                ("read_address", I),
                ("read_clock", I),
                ("read_data", O),
                ("write_address", I),
                ("write_clock", I),
                ("write_data", I),
                ("write_enable", I),
            ];
            if ports_are(inst, &ram) && norm.starts_with("reg[") && !norm.contains("initial") && norm.contains("read_data <= mem[read_address];") {
                return Ok(Widget::Ram);
            }
            let word_ram = [
                ("clock", I),
                ("read_enable", I),
                ("read_address", I),
                ("read_data", O),
                ("write_address", I),
                ("write_data", I),
                ("write_strobe", I),
            ];
            if ports_are(inst, &word_ram) && text.starts_with(crate::ram::MARKER) {
                return Ok(Widget::WordRam);
            }
            Err(LowerError::UnknownWidget { block: parent.to_string(), child: inst.name.clone() })
        }
        _ => Err(LowerError::UnknownWidget { block: parent.to_string(), child: inst.name.clone() }),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    In,
    Out,
    Local,
    Const,
    ChildIn,
    ChildOut,
    /// A register's next value (`x$d`): only ever assigned.
    DffD,
    /// A register's value (`x$q`), renamed to the register `x`.
    DffQ,
    DffClock,
    /// A memory's address/data/enable: a local of this module now.
    RamIn,
    /// A memory's registered read data.
    RamData,
    RamClock,
}

#[derive(Debug, Clone)]
struct Sig {
    role: Role,
    width: usize,
    signed: bool,
    /// The register, memory or child this signal belongs to.
    owner: String,
}

fn decl_range(width: usize, signed: bool) -> String {
    let s = if signed { "signed " } else { "" };
    if width == 1 {
        s.trim_end().to_string()
    } else {
        format!("{s}[{}:0]", width - 1)
    }
}

fn decl(kind: &str, width: usize, signed: bool, name: &str) -> String {
    let r = decl_range(width, signed);
    if r.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {r} {name}")
    }
}

/// A signal's value along the paths of `update` (for the signals rebuilt as
/// one tree). `Keep` is "what it was before this statement".
#[derive(Debug, Clone, PartialEq, Eq)]
enum Val {
    Keep,
    Leaf(Expr),
    If(Expr, Box<Val>, Box<Val>),
    /// Arms by label; `default` last if present.
    Case(Expr, Vec<(String, Val)>),
}

impl Val {
    fn has_keep(&self) -> bool {
        match self {
            Val::Keep => true,
            Val::Leaf(_) => false,
            Val::If(_, a, b) => a.has_keep() || b.has_keep(),
            Val::Case(_, arms) => arms.iter().any(|(_, v)| v.has_keep()) || !arms.iter().any(|(l, _)| l == "default"),
        }
    }
    fn all_keep(&self) -> bool {
        match self {
            Val::Keep => true,
            Val::Leaf(_) => false,
            Val::If(_, a, b) => a.all_keep() && b.all_keep(),
            Val::Case(_, arms) => arms.iter().all(|(_, v)| v.all_keep()),
        }
    }
    /// `Keep` leaves replaced by `outer`.
    fn compose(&self, outer: &Val) -> Val {
        match self {
            Val::Keep => outer.clone(),
            Val::Leaf(_) => self.clone(),
            Val::If(c, a, b) => Val::If(c.clone(), Box::new(a.compose(outer)), Box::new(b.compose(outer))),
            Val::Case(s, arms) => {
                let mut arms: Vec<(String, Val)> = arms.iter().map(|(l, v)| (l.clone(), v.compose(outer))).collect();
                if !arms.iter().any(|(l, _)| l == "default") {
                    arms.push(("default".into(), outer.clone()));
                }
                Val::Case(s.clone(), arms)
            }
        }
    }
    /// The paths that assign, with the others cut away (their value does not matter).
    fn prune(&self) -> Val {
        match self {
            Val::Keep | Val::Leaf(_) => self.clone(),
            Val::If(c, a, b) => match (a.all_keep(), b.all_keep()) {
                (true, _) => b.prune(),
                (_, true) => a.prune(),
                _ => Val::If(c.clone(), Box::new(a.prune()), Box::new(b.prune())),
            },
            Val::Case(s, arms) => {
                let mut kept: Vec<(String, Val)> = arms.iter().filter(|(_, v)| !v.all_keep()).map(|(l, v)| (l.clone(), v.prune())).collect();
                if !kept.iter().any(|(l, _)| l == "default") {
                    if let Some((_, v)) = kept.last().cloned() {
                        kept.push(("default".into(), v));
                    }
                }
                if kept.len() == 1 {
                    return kept.pop().expect("one arm").1;
                }
                Val::Case(s.clone(), kept)
            }
        }
    }
    /// A 1-bit expression: true on the paths that assign.
    fn guard(&self) -> Expr {
        let t = || Expr::Lit("1'b1".into());
        let f = || Expr::Lit("1'b0".into());
        match self {
            Val::Keep => f(),
            Val::Leaf(_) => t(),
            Val::If(c, a, b) => {
                let (ga, gb) = (a.guard(), b.guard());
                let is = |e: &Expr, v: &str| matches!(e, Expr::Lit(l) if l == v);
                let (ta, fa, tb, fb) = (is(&ga, "1'b1"), is(&ga, "1'b0"), is(&gb, "1'b1"), is(&gb, "1'b0"));
                let c = || Box::new(c.clone());
                let not_c = || Box::new(Expr::Un("!", c()));
                match () {
                    _ if ta && tb => t(),
                    _ if fa && fb => f(),
                    _ if ta && fb => *c(),
                    _ if fa && tb => *not_c(),
                    _ if fb => Expr::Bin(c(), "&&", Box::new(ga)),
                    _ if fa => Expr::Bin(not_c(), "&&", Box::new(gb)),
                    _ if ta => Expr::Bin(c(), "||", Box::new(gb)),
                    _ if tb => Expr::Bin(not_c(), "||", Box::new(ga)),
                    _ => Expr::Mux(c(), Box::new(ga), Box::new(gb)),
                }
            }
            Val::Case(s, arms) => {
                let mut e = arms.iter().find(|(l, _)| l == "default").map(|(_, v)| v.guard()).unwrap_or_else(f);
                for (l, v) in arms.iter().rev().filter(|(l, _)| l != "default") {
                    let test = Expr::Bin(Box::new(s.clone()), "==", Box::new(Expr::Lit(l.clone())));
                    e = Expr::Mux(Box::new(test), Box::new(v.guard()), Box::new(e));
                }
                e
            }
        }
    }
    /// The value as one expression (for a signal that reads itself).
    fn expr(&self) -> Option<Expr> {
        Some(match self {
            Val::Keep => return None,
            Val::Leaf(e) => e.clone(),
            Val::If(c, a, b) => Expr::Mux(Box::new(c.clone()), Box::new(a.expr()?), Box::new(b.expr()?)),
            Val::Case(s, arms) => {
                let mut e = arms.iter().find(|(l, _)| l == "default")?.1.expr()?;
                for (l, v) in arms.iter().rev().filter(|(l, _)| l != "default") {
                    let test = Expr::Bin(Box::new(s.clone()), "==", Box::new(Expr::Lit(l.clone())));
                    e = Expr::Mux(Box::new(test), Box::new(v.expr()?), Box::new(e));
                }
                e
            }
        })
    }
}

/// Positions of every assignment to each target, in program order.
fn assignments(stmts: &[Stmt], out: &mut BTreeMap<String, Vec<usize>>) {
    for s in stmts {
        match s {
            Stmt::Assign { pos, target, .. } => out.entry(target.clone()).or_default().push(*pos),
            Stmt::If { then, els, .. } => {
                assignments(then, out);
                assignments(els, out);
            }
            Stmt::Case { arms, .. } => arms.iter().for_each(|(_, b)| assignments(b, out)),
        }
    }
}

/// The last position inside a statement (itself if it has no children).
fn last_pos(s: &Stmt) -> usize {
    match s {
        Stmt::Assign { pos, .. } => *pos,
        Stmt::If { pos, then, els, .. } => then.iter().chain(els).map(last_pos).max().unwrap_or(*pos).max(*pos),
        Stmt::Case { pos, arms, .. } => arms.iter().flat_map(|(_, b)| b.iter().map(last_pos)).max().unwrap_or(*pos).max(*pos),
    }
}

struct Ctx<'a> {
    block: &'a str,
    sigs: BTreeMap<String, Sig>,
    assigns: BTreeMap<String, Vec<usize>>,
}

impl Ctx<'_> {
    fn role(&self, name: &str) -> Option<Role> {
        self.sigs.get(name).map(|s| s.role)
    }

    /// Every signal `e` reads has its final value at statement `at` (`target` names what is computed, for errors).
    fn final_at(&self, e: &Expr, at: usize, target: &str, skip: Option<&str>) -> Result<(), LowerError> {
        let mut reads = BTreeSet::new();
        e.reads(&mut reads);
        for r in reads {
            if Some(r.as_str()) == skip {
                continue;
            }
            if self.role(&r) == Some(Role::DffD) {
                return Err(LowerError::ReadsNext { block: self.block.into(), read: r });
            }
            if let Some(&written) = self.assigns.get(&r).and_then(|v| v.last()) {
                if written >= at {
                    return Err(LowerError::NotFinal { block: self.block.into(), target: target.into(), read: r, at, written });
                }
            }
        }
        Ok(())
    }

    /// Registers (`x$q` → `x`) renamed in an expression.
    fn regs(&self, e: &Expr) -> Expr {
        e.map_sigs(&|s| match self.sigs.get(s) {
            Some(Sig { role: Role::DffQ, owner, .. }) => Some(Expr::Sig(owner.clone())),
            _ => None,
        })
    }

    /// The statements that assign registers, as non-blocking assignments.
    fn seq(&self, stmts: &[Stmt], seen: &mut BTreeSet<String>) -> Result<Vec<Stmt>, LowerError> {
        let mut out = Vec::new();
        for s in stmts {
            match s {
                Stmt::Assign { pos, target, slice, value } if self.role(target) == Some(Role::DffD) => {
                    let reg = &self.sigs[target].owner;
                    let first = seen.insert(target.clone());
                    if first && slice.is_none() && *value == Expr::Sig(format!("{reg}$q")) {
                        continue; // the hold default of dff_setup!
                    }
                    self.final_at(value, *pos, reg, None)?;
                    if let Some((_, off)) = slice {
                        self.final_at(off, *pos, reg, None)?;
                    }
                    let slice = slice.as_ref().map(|(w, o)| (*w, self.regs(o)));
                    out.push(Stmt::Assign { pos: *pos, target: reg.clone(), slice, value: self.regs(value) });
                }
                Stmt::Assign { .. } => {}
                Stmt::If { pos, cond, then, els } => {
                    let (t, e) = (self.seq(then, seen)?, self.seq(els, seen)?);
                    if !t.is_empty() || !e.is_empty() {
                        self.final_at(cond, *pos, "a register's enable", None)?;
                        out.push(Stmt::If { pos: *pos, cond: self.regs(cond), then: t, els: e });
                    }
                }
                Stmt::Case { pos, sel, arms } => {
                    let mut a = Vec::new();
                    for (l, b) in arms {
                        a.push((l.clone(), self.seq(b, seen)?));
                    }
                    if a.iter().any(|(_, b)| !b.is_empty()) {
                        self.final_at(sel, *pos, "a register's enable", None)?;
                        out.push(Stmt::Case { pos: *pos, sel: self.regs(sel), arms: a });
                    }
                }
            }
        }
        Ok(out)
    }

    /// The value of `x` after `stmts`, starting from `cur`; `outer` is what
    /// `Keep` stands for when `x` reads itself.
    fn fold(&self, x: &str, stmts: &[Stmt], mut cur: Val, outer: &Val) -> Result<Val, LowerError> {
        for s in stmts {
            match s {
                Stmt::Assign { pos, target, slice, value } if target == x => {
                    if slice.is_some() {
                        return Err(LowerError::Slice { block: self.block.into(), signal: x.into() });
                    }
                    self.final_at(value, *pos, x, Some(x))?;
                    let v = if value.reads_sig(x) {
                        let now = cur.compose(outer).expr().ok_or_else(|| LowerError::Latch { block: self.block.into(), signal: x.into() })?;
                        value.map_sigs(&|s| (s == x).then(|| now.clone()))
                    } else {
                        value.clone()
                    };
                    cur = Val::Leaf(self.regs(&v));
                }
                Stmt::Assign { .. } => {}
                Stmt::If { pos, cond, then, els } => {
                    let here = cur.compose(outer);
                    let t = self.fold(x, then, Val::Keep, &here)?;
                    let e = self.fold(x, els, Val::Keep, &here)?;
                    if t.all_keep() && e.all_keep() {
                        continue;
                    }
                    self.final_at(cond, *pos, x, Some(x))?;
                    let cond = self.self_read(x, cond, &here)?;
                    cur = self.merge(Val::If(cond, Box::new(t), Box::new(e)), cur);
                }
                Stmt::Case { pos, sel, arms } => {
                    let here = cur.compose(outer);
                    let mut a = Vec::new();
                    for (l, b) in arms {
                        a.push((l.clone(), self.fold(x, b, Val::Keep, &here)?));
                    }
                    if a.iter().all(|(_, v)| v.all_keep()) {
                        continue;
                    }
                    self.final_at(sel, *pos, x, Some(x))?;
                    let sel = self.self_read(x, sel, &here)?;
                    cur = self.merge(Val::Case(sel, a), cur);
                }
            }
        }
        Ok(cur)
    }

    /// A condition with `x`'s own reads replaced by its value there.
    fn self_read(&self, x: &str, e: &Expr, here: &Val) -> Result<Expr, LowerError> {
        if !e.reads_sig(x) {
            return Ok(self.regs(e));
        }
        let now = here.expr().ok_or_else(|| LowerError::Latch { block: self.block.into(), signal: x.into() })?;
        Ok(self.regs(&e.map_sigs(&|s| (s == x).then(|| now.clone()))))
    }

    /// `partial` (with `Keep` leaves) applied over `cur`, without copying `cur`.
    fn merge(&self, partial: Val, cur: Val) -> Val {
        if !partial.has_keep() {
            return partial;
        }
        if cur == Val::Keep {
            return partial;
        }
        if let Val::Leaf(Expr::Lit(_)) = cur {
            // A literal default is cheap to repeat and reads better in place.
            return partial.compose(&cur);
        }
        Val::If(partial.guard(), Box::new(partial.prune()), Box::new(cur))
    }
}

fn write_stmts(out: &mut String, stmts: &[Stmt], indent: usize, nba: bool) {
    let pad = "    ".repeat(indent);
    let op = if nba { "<=" } else { "=" };
    for s in stmts {
        match s {
            Stmt::Assign { target, slice, value, .. } => {
                let lhs = match slice {
                    None => target.clone(),
                    Some((1, off)) => format!("{target}[{}]", off.text()),
                    Some((w, off)) => format!("{target}[{} +: {w}]", off.text()),
                };
                let _ = writeln!(out, "{pad}{lhs} {op} {};", value.text());
            }
            Stmt::If { cond, then, els, .. } => {
                // The chain of `else if`s as (condition, body) arms and a final else.
                let mut arms: Vec<(&Expr, &[Stmt])> = vec![(cond, then.as_slice())];
                let mut rest: &[Stmt] = els;
                while let [Stmt::If { cond, then, els: e2, .. }] = rest {
                    arms.push((cond, then.as_slice()));
                    rest = e2;
                }
                write_chain(out, &arms, rest, indent, nba);
            }
            Stmt::Case { sel, arms, .. } => {
                let _ = writeln!(out, "{pad}case ({})", sel.text());
                for (l, b) in arms {
                    let _ = writeln!(out, "{pad}    {l}: begin");
                    write_stmts(out, b, indent + 2, nba);
                    let _ = writeln!(out, "{pad}    end");
                }
                let _ = writeln!(out, "{pad}endcase");
            }
        }
    }
}

/// The value a literal's text stands for (`32'h1f`, `8'd3`, `2'b10`, `7`).
fn literal_value(lit: &str) -> Option<u128> {
    let digits = |t: &str, radix: u32| u128::from_str_radix(&t.replace('_', ""), radix).ok();
    match lit.split_once('\'') {
        None => digits(lit, 10),
        Some((_, rest)) => {
            let (base, t) = rest.split_at(1.min(rest.len()));
            match base {
                "h" | "H" => digits(t, 16),
                "d" | "D" => digits(t, 10),
                "b" | "B" => digits(t, 2),
                "o" | "O" => digits(t, 8),
                _ => None,
            }
        }
    }
}

/// `sel == literal`: the selector's text and the literal's value.
fn eq_const(cond: &Expr) -> Option<(String, u128)> {
    match cond {
        Expr::Bin(a, "==", b) => match (a.as_ref(), b.as_ref()) {
            (sel, Expr::Lit(l)) | (Expr::Lit(l), sel) if !matches!(sel, Expr::Lit(_)) => Some((sel.text(), literal_value(l)?)),
            _ => None,
        },
        _ => None,
    }
}

/// Fewest `else if` arms comparing one selector with constants that are
/// written as a `case`.
const MIN_CASE_ARMS: usize = 3;

/// An if / else-if chain. A run of arms that compare one selector with
/// distinct constants is written as a `case` (the arms exclude each other,
/// so the order of the chain does not matter and synthesis builds a
/// parallel multiplexer instead of a priority chain as deep as the run);
/// arms before the run stay an if / else-if, the run and what follows it
/// go in their `else`.
fn write_chain(out: &mut String, arms: &[(&Expr, &[Stmt])], last: &[Stmt], indent: usize, nba: bool) {
    let pad = "    ".repeat(indent);
    // The first arm that starts a run of at least MIN_CASE_ARMS.
    let run_at = (0..arms.len()).find_map(|i| {
        let (sel, v0) = eq_const(arms[i].0)?;
        let mut seen = std::collections::BTreeSet::from([v0]);
        let n = arms[i + 1..].iter().take_while(|(c, _)| eq_const(c).is_some_and(|(s2, v)| s2 == sel && seen.insert(v))).count() + 1;
        (n >= MIN_CASE_ARMS).then_some((i, n, sel))
    });
    let plain = run_at.as_ref().map_or(arms.len(), |(i, _, _)| *i);
    for (k, (cond, body)) in arms[..plain].iter().enumerate() {
        let kw = if k == 0 { "if" } else { "end else if" };
        let _ = writeln!(out, "{pad}{kw} ({}) begin", cond.text());
        write_stmts(out, body, indent + 1, nba);
    }
    let Some((i, n, sel)) = run_at else {
        if !last.is_empty() {
            let _ = writeln!(out, "{pad}end else begin");
            write_stmts(out, last, indent + 1, nba);
        }
        let _ = writeln!(out, "{pad}end");
        return;
    };
    let inner = if plain > 0 {
        let _ = writeln!(out, "{pad}end else begin");
        indent + 1
    } else {
        indent
    };
    let ipad = "    ".repeat(inner);
    let _ = writeln!(out, "{ipad}case ({sel})");
    for (cond, body) in &arms[i..i + n] {
        let label = match cond {
            Expr::Bin(a, _, b) => match (a.as_ref(), b.as_ref()) {
                (Expr::Lit(l), _) | (_, Expr::Lit(l)) => l.clone(),
                _ => unreachable!("eq_const matched a literal"),
            },
            _ => unreachable!("eq_const matched a comparison"),
        };
        let _ = writeln!(out, "{ipad}    {label}: begin");
        write_stmts(out, body, inner + 2, nba);
        let _ = writeln!(out, "{ipad}    end");
    }
    let after = &arms[i + n..];
    if !after.is_empty() || !last.is_empty() {
        let _ = writeln!(out, "{ipad}    default: begin");
        if after.is_empty() {
            write_stmts(out, last, inner + 2, nba);
        } else {
            write_chain(out, after, last, inner + 2, nba);
        }
        let _ = writeln!(out, "{ipad}    end");
    }
    let _ = writeln!(out, "{ipad}endcase");
    if plain > 0 {
        let _ = writeln!(out, "{pad}end");
    }
}

/// `x`'s value tree as statements assigning it once on every path.
fn val_stmts(x: &str, v: &Val) -> Vec<Stmt> {
    match v {
        Val::Keep => Vec::new(),
        Val::Leaf(e) => vec![Stmt::Assign { pos: 0, target: x.into(), slice: None, value: e.clone() }],
        Val::If(c, a, b) => vec![Stmt::If { pos: 0, cond: c.clone(), then: val_stmts(x, a), els: val_stmts(x, b) }],
        Val::Case(s, arms) => vec![Stmt::Case { pos: 0, sel: s.clone(), arms: arms.iter().map(|(l, v)| (l.clone(), val_stmts(x, v))).collect() }],
    }
}

/// The comb statements without register assignments and without the
/// signals rebuilt as trees, with registers renamed. With `place`, each tree
/// stands right after the top-level statement holding its signal's last
/// assignment (trees placed together in the order of those assignments).
fn comb(ctx: &Ctx, stmts: &[Stmt], trees: &BTreeMap<String, Val>, place: bool) -> Vec<Stmt> {
    let mut order: Vec<(usize, &String, &Val)> = trees.iter().map(|(x, v)| (*ctx.assigns[x].last().expect("assigned"), x, v)).collect();
    order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Assign { target, .. } if ctx.role(target) == Some(Role::DffD) || trees.contains_key(target) => {}
            Stmt::Assign { pos, target, slice, value } => out.push(Stmt::Assign {
                pos: *pos,
                target: target.clone(),
                slice: slice.as_ref().map(|(w, o)| (*w, ctx.regs(o))),
                value: ctx.regs(value),
            }),
            Stmt::If { pos, cond, then, els } => {
                let (t, e) = (comb(ctx, then, trees, false), comb(ctx, els, trees, false));
                if !t.is_empty() || !e.is_empty() {
                    out.push(Stmt::If { pos: *pos, cond: ctx.regs(cond), then: t, els: e });
                }
            }
            Stmt::Case { pos, sel, arms } => {
                let a: Vec<(String, Vec<Stmt>)> = arms.iter().map(|(l, b)| (l.clone(), comb(ctx, b, trees, false))).collect();
                if a.iter().any(|(_, b)| !b.is_empty()) {
                    out.push(Stmt::Case { pos: *pos, sel: ctx.regs(sel), arms: a });
                }
            }
        }
        if place {
            let (from, to) = (first_pos(s), last_pos(s));
            for (last, x, v) in &order {
                if (from..=to).contains(last) {
                    out.extend(val_stmts(x, v));
                }
            }
        }
    }
    out
}

fn first_pos(s: &Stmt) -> usize {
    match s {
        Stmt::Assign { pos, .. } | Stmt::If { pos, .. } | Stmt::Case { pos, .. } => *pos,
    }
}

/// Every read of a signal in comb statements, with its position.
fn comb_reads(stmts: &[Stmt], out: &mut Vec<(String, usize)>) {
    let mut targets = BTreeSet::new();
    for s in stmts {
        targets_and_reads(s, &mut targets, out);
    }
}

/// The body of `inst`'s module (everything after `module <name>`), given
/// the module names of its children (`None` for inlined widgets).
pub fn module_body(path: &str, inst: &Inst, child_modules: &[Option<String>]) -> Result<String, LowerError> {
    let Verilog::Combinatorial(code) = &inst.code else {
        return Err(LowerError::Kind { block: path.into(), kind: "not a rust-hdl update function" });
    };
    let stmts = ir::lower(path, code)?;
    // ---- what every name is ----
    let mut sigs: BTreeMap<String, Sig> = BTreeMap::new();
    let mut consts: Vec<&AtomInfo> = Vec::new();
    for a in &inst.atoms {
        let role = match a.kind {
            AtomKind::InputParameter => Role::In,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => Role::Out,
            AtomKind::LocalSignal => Role::Local,
            AtomKind::Constant => {
                consts.push(a);
                Role::Const
            }
            _ => return Err(LowerError::Kind { block: path.into(), kind: "inout or stub atom" }),
        };
        sigs.insert(a.name.clone(), Sig { role, width: a.width, signed: a.signed, owner: String::new() });
    }
    let mut widgets: Vec<Widget> = Vec::new();
    for (c, m) in inst.children.iter().zip(child_modules) {
        let w = if m.is_some() { Widget::Logic } else { widget(path, c)? };
        for a in c.atoms.iter().filter(|a| a.kind.is_parameter()) {
            let input = a.kind == AtomKind::InputParameter;
            let role = match (&w, a.name.as_str()) {
                (Widget::Dff { .. }, "d") => Role::DffD,
                (Widget::Dff { .. }, "q") => Role::DffQ,
                (Widget::Dff { .. }, _) => Role::DffClock,
                (Widget::Ram, "read_clock" | "write_clock") => Role::RamClock,
                (Widget::Ram, "read_data") => Role::RamData,
                (Widget::Ram, _) => Role::RamIn,
                (Widget::WordRam, "clock") => Role::RamClock,
                (Widget::WordRam, "read_data") => Role::RamData,
                (Widget::WordRam, _) => Role::RamIn,
                (Widget::Logic, _) if input => Role::ChildIn,
                (Widget::Logic, _) => Role::ChildOut,
            };
            sigs.insert(format!("{}${}", c.name, a.name), Sig { role, width: a.width, signed: a.signed, owner: c.name.clone() });
        }
        widgets.push(w);
    }
    // ---- conditions on 1-bit constants (a generation parameter, the role
    // of one instance in a loop) decided here: the untaken branch is not
    // written, and no process is left that reads nothing but constants ----
    let bits: BTreeMap<String, bool> = consts
        .iter()
        .filter(|c| c.width == 1)
        .filter_map(|c| match c.literal.as_str() {
            "1'b0" | "1'h0" => Some((c.name.clone(), false)),
            "1'b1" | "1'h1" => Some((c.name.clone(), true)),
            _ => None,
        })
        .collect();
    let stmts = fold_constant_ifs(stmts, &bits);
    // ---- clocks: top-level `x$clock = clk;` ----
    let mut clocks: BTreeMap<String, String> = BTreeMap::new();
    let mut body: Vec<Stmt> = Vec::new();
    for s in stmts {
        if let Stmt::Assign { target, slice, value, .. } = &s {
            if matches!(sigs.get(target).map(|g| g.role), Some(Role::DffClock | Role::RamClock)) {
                let Expr::Sig(clk) = value else { return Err(LowerError::ClockForm { block: path.into(), target: target.clone() }) };
                if slice.is_some() || clocks.insert(target.clone(), clk.clone()).is_some_and(|old| &old != clk) {
                    return Err(LowerError::ClockForm { block: path.into(), target: target.clone() });
                }
                continue;
            }
        }
        body.push(s);
    }
    let mut assigns = BTreeMap::new();
    assignments(&body, &mut assigns);
    for (t, _) in assigns.iter().filter(|(t, _)| matches!(sigs.get(*t).map(|g| g.role), Some(Role::DffClock | Role::RamClock))) {
        return Err(LowerError::ClockForm { block: path.into(), target: t.clone() });
    }
    let ctx = Ctx { block: path, sigs, assigns };
    // ---- registers ----
    let seq = ctx.seq(&body, &mut BTreeSet::new())?;
    // ---- signals others read, assigned several times: one tree each ----
    let mut trees: BTreeMap<String, Val> = BTreeMap::new();
    for (t, pos) in &ctx.assigns {
        let role = ctx.role(t);
        if pos.len() > 1 && matches!(role, Some(Role::Out | Role::ChildIn)) {
            let v = ctx.fold(t, &body, Val::Keep, &Val::Keep)?;
            if v.has_keep() {
                return Err(LowerError::Latch { block: path.into(), signal: t.clone() });
            }
            trees.insert(t.clone(), v);
        }
    }
    // Nothing may read a register's next value: it is not a signal any more.
    let mut all_reads = Vec::new();
    comb_reads(&body, &mut all_reads);
    if let Some((r, _)) = all_reads.iter().find(|(r, _)| ctx.role(r) == Some(Role::DffD)) {
        return Err(LowerError::ReadsNext { block: path.into(), read: r.clone() });
    }
    // A tree stands after the top-level statement holding its signal's last
    // assignment: nothing in the combinational process may read it before.
    let mut reads = Vec::new();
    comb_reads(&comb(&ctx, &body, &trees, false), &mut reads);
    for (r, at) in &reads {
        if trees.contains_key(r) {
            let last = *ctx.assigns[r].last().expect("assigned");
            let end = body.iter().find(|s| (first_pos(s)..=last_pos(s)).contains(&last)).map(last_pos).unwrap_or(last);
            if *at <= end {
                return Err(LowerError::ReadBeforeLast { block: path.into(), signal: r.clone(), at: *at, last });
            }
        }
    }
    let comb_stmts = comb(&ctx, &body, &trees, true);
    // ---- direct child connections: a child input that is just another port, a constant or a register ----
    let mut direct: BTreeMap<String, String> = BTreeMap::new();
    let read_names: BTreeSet<&String> = all_reads.iter().map(|(s, _)| s).collect();
    for s in &comb_stmts {
        if let Stmt::Assign { target, slice: None, value: Expr::Sig(src), .. } = s {
            let single = ctx.assigns.get(target).is_some_and(|v| v.len() == 1);
            let src_ok = matches!(ctx.role(src), Some(Role::In | Role::Const | Role::ChildOut | Role::RamData)) || ctx.sigs.values().any(|g| g.role == Role::DffQ && &g.owner == src);
            if single && ctx.role(target) == Some(Role::ChildIn) && src_ok && !read_names.contains(target) {
                direct.insert(target.clone(), src.clone());
            }
        }
    }
    let comb_stmts: Vec<Stmt> = comb_stmts.into_iter().filter(|s| !matches!(s, Stmt::Assign { target, .. } if direct.contains_key(target))).collect();
    // The promise this form makes to event-driven simulators, checked on
    // what is about to be written: every signal another module reads is
    // assigned exactly once on every path (a failure here is a bug of the
    // emitter, reported rather than written).
    for (name, g) in &ctx.sigs {
        if matches!(g.role, Role::Out | Role::ChildIn) && !direct.contains_key(name) && ctx.assigns.contains_key(name) {
            match assignments_per_path(&comb_stmts, name) {
                Some(1) => {}
                n => return Err(LowerError::NotOnce { block: path.into(), signal: name.clone(), count: n }),
            }
        }
    }

    // ---- text ----
    let mut o = String::new();
    let ports: Vec<String> = inst
        .atoms
        .iter()
        .filter_map(|a| match a.kind {
            AtomKind::InputParameter => Some(decl("input wire", a.width, a.signed, &a.name)),
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => Some(decl("output reg", a.width, a.signed, &a.name)),
            _ => None,
        })
        .collect();
    let _ = writeln!(o, "(\n    {}\n);", ports.join(",\n    "));
    // What the statements read, and what they read or assign, once the
    // conditions on constants were decided.
    let (mut used, mut mentioned) = (BTreeSet::new(), BTreeSet::new());
    for s in comb_stmts.iter().chain(&seq) {
        let (mut t, mut r) = (BTreeSet::new(), Vec::new());
        targets_and_reads(s, &mut t, &mut r);
        used.extend(r.into_iter().map(|x| x.0));
        mentioned.extend(t);
    }
    used.extend(direct.values().cloned());
    mentioned.extend(used.iter().cloned());
    if !consts.is_empty() {
        // A constant is declared where it is read; one that only decided
        // conditions (folded above) is recorded as a comment.
        o += "\n    // Constants\n";
        for c in &consts {
            let s = if c.signed { "signed " } else { "" };
            if used.contains(&c.name) {
                let _ = writeln!(o, "    localparam {s}{} = {};", c.name, c.literal);
            } else {
                let _ = writeln!(o, "    // {} = {} (decided at generation)", c.name, c.literal);
            }
        }
    }
    let regs: Vec<(&Inst, &String)> = inst.children.iter().zip(&widgets).filter_map(|(c, w)| if let Widget::Dff { init } = w { Some((c, init)) } else { None }).collect();
    if !regs.is_empty() {
        o += "\n    // Registers\n";
        for (c, _) in &regs {
            let q = c.atom("q").expect("a DFF has q");
            let _ = writeln!(o, "    {};", decl("reg", q.width, q.signed, &c.name));
        }
        o += "    initial begin\n";
        for (c, init) in &regs {
            let _ = writeln!(o, "        {} = {init};", c.name);
        }
        o += "    end\n";
    }
    let rams: Vec<(&Inst, bool)> = inst
        .children
        .iter()
        .zip(&widgets)
        .filter(|(_, w)| matches!(w, Widget::Ram | Widget::WordRam))
        .map(|(c, w)| (c, *w == Widget::WordRam))
        .collect();
    if !rams.is_empty() {
        o += "\n    // Memories (synchronous read, old data on a read-during-write)\n";
        for (r, _) in &rams {
            let d = r.atom("read_data").expect("RAM read_data");
            let a = r.atom("read_address").expect("RAM read_address");
            let _ = writeln!(o, "    {} [0:{}];", decl("reg", d.width, d.signed, &r.name), (1u64 << a.width) - 1);
            let _ = writeln!(o, "    {};", decl("reg", d.width, d.signed, &format!("{}$read_data", r.name)));
        }
    }
    let mut locals = Vec::new();
    let mut wires = Vec::new();
    // A local only a branch on a constant assigned and read (a generation
    // parameter took the other branch) is not declared, only named.
    let mut unused = Vec::new();
    for a in inst.atoms.iter().filter(|a| a.kind == AtomKind::LocalSignal) {
        if mentioned.contains(&a.name) {
            locals.push(decl("reg", a.width, a.signed, &a.name));
        } else {
            unused.push(&a.name);
        }
    }
    for (name, g) in &ctx.sigs {
        match g.role {
            Role::RamIn => locals.push(decl("reg", g.width, g.signed, name)),
            Role::ChildIn if !direct.contains_key(name) => locals.push(decl("reg", g.width, g.signed, name)),
            Role::ChildOut => wires.push(decl("wire", g.width, g.signed, name)),
            _ => {}
        }
    }
    if !locals.is_empty() || !wires.is_empty() || !unused.is_empty() {
        o += "\n    // Combinational signals\n";
        for l in locals.iter().chain(&wires) {
            let _ = writeln!(o, "    {l};");
        }
        for name in unused {
            let _ = writeln!(o, "    // {name}: not used in this build (decided at generation)");
        }
    }
    let subs: Vec<(&Inst, &String)> = inst.children.iter().zip(child_modules).filter_map(|(c, m)| m.as_ref().map(|m| (c, m))).collect();
    if !subs.is_empty() {
        o += "\n    // Sub-modules\n";
        for (c, m) in subs {
            let conns: Vec<String> = c
                .atoms
                .iter()
                .filter(|a| a.kind.is_parameter())
                .map(|a| {
                    let stub = format!("{}${}", c.name, a.name);
                    format!(".{}({})", a.name, direct.get(&stub).unwrap_or(&stub))
                })
                .collect();
            let _ = writeln!(o, "    {m} {} (\n        {}\n    );", c.name, conns.join(",\n        "));
        }
    }
    // One process per independent group of statements: a simulator then
    // re-evaluates only the groups whose inputs changed.
    for group in comb_groups(&comb_stmts, &|x| ctx.role(x) != Some(Role::Const)) {
        o += "\n    always @(*) begin\n";
        let part: Vec<Stmt> = group.iter().map(|&i| comb_stmts[i].clone()).collect();
        write_stmts(&mut o, &part, 2, false);
        o += "    end\n";
    }
    // One clocked process per clock for the registers.
    let mut by_clock: BTreeMap<String, ()> = BTreeMap::new();
    for (c, _) in &regs {
        let clk = ctx_clock(&clocks, &format!("{}$clock", c.name)).ok_or_else(|| LowerError::NoClock { block: path.into(), reg: c.name.clone() })?;
        by_clock.insert(clk, ());
    }
    for clk in by_clock.keys() {
        let mine: BTreeSet<String> = regs.iter().filter(|(c, _)| clocks.get(&format!("{}$clock", c.name)) == Some(clk)).map(|(c, _)| c.name.clone()).collect();
        let part = only_targets(&seq, &mine);
        if !part.is_empty() {
            let _ = writeln!(o, "\n    always @(posedge {clk}) begin");
            write_stmts(&mut o, &part, 2, true);
            o += "    end\n";
        }
    }
    for (r, word) in &rams {
        let n = &r.name;
        if *word {
            let clk = clocks.get(&format!("{n}$clock")).ok_or_else(|| LowerError::NoClock { block: path.into(), reg: n.clone() })?;
            let _ = write!(o, "\n    always @(posedge {clk}) begin\n        if ({n}$read_enable) begin\n            {n}$read_data <= {n}[{n}$read_address];\n        end\n");
            for b in 0..4 {
                let _ = write!(o, "        if ({n}$write_strobe[{b}]) begin\n            {n}[{n}$write_address][{}:{}] <= {n}$write_data[{}:{}];\n        end\n", 8 * b + 7, 8 * b, 8 * b + 7, 8 * b);
            }
            o += "    end\n";
            continue;
        }
        let rc = clocks.get(&format!("{}$read_clock", r.name)).ok_or_else(|| LowerError::NoClock { block: path.into(), reg: r.name.clone() })?;
        let wc = clocks.get(&format!("{}$write_clock", r.name)).ok_or_else(|| LowerError::NoClock { block: path.into(), reg: r.name.clone() })?;
        if rc == wc {
            let _ = write!(o, "\n    always @(posedge {rc}) begin\n        {n}$read_data <= {n}[{n}$read_address];\n        if ({n}$write_enable) begin\n            {n}[{n}$write_address] <= {n}$write_data;\n        end\n    end\n");
        } else {
            let _ = write!(o, "\n    always @(posedge {rc}) begin\n        {n}$read_data <= {n}[{n}$read_address];\n    end\n");
            let _ = write!(o, "\n    always @(posedge {wc}) begin\n        if ({n}$write_enable) begin\n            {n}[{n}$write_address] <= {n}$write_data;\n        end\n    end\n");
        }
    }
    o += "\nendmodule\n";
    Ok(o)
}

fn ctx_clock(clocks: &BTreeMap<String, String>, key: &str) -> Option<String> {
    clocks.get(key).cloned()
}

/// Every assignment target in `s`, and every read with its position.
fn targets_and_reads(s: &Stmt, targets: &mut BTreeSet<String>, reads: &mut Vec<(String, usize)>) {
    let add = |e: &Expr, at: usize, reads: &mut Vec<(String, usize)>| {
        let mut r = BTreeSet::new();
        e.reads(&mut r);
        reads.extend(r.into_iter().map(|x| (x, at)));
    };
    match s {
        Stmt::Assign { pos, target, slice, value } => {
            targets.insert(target.clone());
            add(value, *pos, reads);
            if let Some((_, o)) = slice {
                add(o, *pos, reads);
            }
        }
        Stmt::If { pos, cond, then, els } => {
            add(cond, *pos, reads);
            for t in then.iter().chain(els) {
                targets_and_reads(t, targets, reads);
            }
        }
        Stmt::Case { pos, sel, arms } => {
            add(sel, *pos, reads);
            for (_, b) in arms {
                for t in b {
                    targets_and_reads(t, targets, reads);
                }
            }
        }
    }
}

/// The top-level comb statements split into independent groups (indices,
/// in program order). Statements that assign the same signal share a group;
/// so does a statement that reads a signal before its last assignment with
/// the statements that assign it (it must see that intermediate value, in
/// program order). Any other read is of a final value: across groups is fine.
/// The override trees (position 0) read only final values by construction.
///
/// A group that reads no signal (only literals and constants, `is_signal`
/// false) would never be woken by an event-driven simulator (`always @(*)`
/// with nothing to be sensitive to): it goes first into the first group
/// that does read a signal, where its constants are set before anything
/// there reads them.
fn comb_groups(stmts: &[Stmt], is_signal: &dyn Fn(&str) -> bool) -> Vec<Vec<usize>> {
    let n = stmts.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut info = Vec::with_capacity(n);
    let mut by_target: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut assign_pos: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in stmts.iter().enumerate() {
        let (mut t, mut r) = (BTreeSet::new(), Vec::new());
        targets_and_reads(s, &mut t, &mut r);
        for x in &t {
            by_target.entry(x.clone()).or_default().push(i);
        }
        let mut a = BTreeMap::new();
        assignments(std::slice::from_ref(s), &mut a);
        for (x, ps) in a {
            assign_pos.entry(x).or_default().extend(ps);
        }
        let tree = first_pos(s) == 0;
        info.push(if tree { Vec::new() } else { r });
    }
    for ids in by_target.values() {
        for w in ids.windows(2) {
            let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
            parent[a] = b;
        }
    }
    for (i, reads) in info.iter().enumerate() {
        for (x, at) in reads {
            let later = assign_pos.get(x).is_some_and(|ps| ps.iter().any(|p| p >= at));
            if later {
                for &j in &by_target[x] {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut v: Vec<Vec<usize>> = groups.into_values().collect();
    v.sort_by_key(|g| g[0]);
    let reads_signal = |g: &Vec<usize>| {
        g.iter().any(|&i| {
            let (mut t, mut r) = (BTreeSet::new(), Vec::new());
            targets_and_reads(&stmts[i], &mut t, &mut r);
            r.iter().any(|(x, _)| is_signal(x))
        })
    };
    let (live, constant): (Vec<Vec<usize>>, Vec<Vec<usize>>) = v.into_iter().partition(reads_signal);
    if live.is_empty() {
        // Nothing to be woken by: one group (written once, as before).
        let mut all: Vec<usize> = constant.into_iter().flatten().collect();
        all.sort();
        return if all.is_empty() { Vec::new() } else { vec![all] };
    }
    let mut live = live;
    let mut first: Vec<usize> = constant.into_iter().flatten().collect();
    first.sort();
    first.extend(live[0].iter().copied());
    live[0] = first;
    live
}

/// The value of a condition made of 1-bit constants (`bits`), if it has one.
fn const_cond(e: &Expr, bits: &BTreeMap<String, bool>) -> Option<bool> {
    match e {
        Expr::Lit(l) if l == "1'b0" || l == "1'h0" => Some(false),
        Expr::Lit(l) if l == "1'b1" || l == "1'h1" => Some(true),
        Expr::Sig(s) => bits.get(s).copied(),
        Expr::Un("~" | "!", a) => const_cond(a, bits).map(|v| !v),
        Expr::Bin(a, "&" | "&&", b) => match (const_cond(a, bits), const_cond(b, bits)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Expr::Bin(a, "|" | "||", b) => match (const_cond(a, bits), const_cond(b, bits)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// `stmts` with every `if` whose condition is constant replaced by its taken branch.
fn fold_constant_ifs(stmts: Vec<Stmt>, bits: &BTreeMap<String, bool>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::If { pos, cond, then, els } => match const_cond(&cond, bits) {
                Some(true) => out.extend(fold_constant_ifs(then, bits)),
                Some(false) => out.extend(fold_constant_ifs(els, bits)),
                None => out.push(Stmt::If { pos, cond, then: fold_constant_ifs(then, bits), els: fold_constant_ifs(els, bits) }),
            },
            Stmt::Case { pos, sel, arms } => out.push(Stmt::Case { pos, sel, arms: arms.into_iter().map(|(l, b)| (l, fold_constant_ifs(b, bits))).collect() }),
            a => out.push(a),
        }
    }
    out
}

/// How many times `x` is assigned along every path through `stmts`, if
/// that number is the same on all paths (`None` when paths differ).
pub(crate) fn assignments_per_path(stmts: &[Stmt], x: &str) -> Option<usize> {
    let mut n = 0;
    for s in stmts {
        n += match s {
            Stmt::Assign { target, .. } => usize::from(target == x),
            Stmt::If { then, els, .. } => {
                let (t, e) = (assignments_per_path(then, x)?, assignments_per_path(els, x)?);
                (t == e).then_some(t)?
            }
            Stmt::Case { arms, .. } => {
                let mut counts: Vec<usize> = arms.iter().map(|(_, b)| assignments_per_path(b, x)).collect::<Option<_>>()?;
                if !arms.iter().any(|(l, _)| l == "default") {
                    counts.push(0);
                }
                let first = *counts.first()?;
                counts.iter().all(|&c| c == first).then_some(first)?
            }
        };
    }
    Some(n)
}

/// `stmts` keeping only assignments to `targets`.
fn only_targets(stmts: &[Stmt], targets: &BTreeSet<String>) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Assign { target, .. } => {
                if targets.contains(target) {
                    out.push(s.clone());
                }
            }
            Stmt::If { pos, cond, then, els } => {
                let (t, e) = (only_targets(then, targets), only_targets(els, targets));
                if !t.is_empty() || !e.is_empty() {
                    out.push(Stmt::If { pos: *pos, cond: cond.clone(), then: t, els: e });
                }
            }
            Stmt::Case { pos, sel, arms } => {
                let a: Vec<(String, Vec<Stmt>)> = arms.iter().map(|(l, b)| (l.clone(), only_targets(b, targets))).collect();
                if a.iter().any(|(_, b)| !b.is_empty()) {
                    out.push(Stmt::Case { pos: *pos, sel: sel.clone(), arms: a });
                }
            }
        }
    }
    out
}
