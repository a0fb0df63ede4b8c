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

mod analysis;
mod text;
mod tree;

use super::collect::{AtomInfo, Inst};
use super::ir::{self, Expr, Stmt};
use analysis::{assignments_per_path, comb_groups, ctx_clock, fold_constant_ifs, only_targets, targets_and_reads};
use rust_hdl::prelude::{AtomKind, Verilog};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use tree::{assignments, comb, comb_reads, first_pos, last_pos, Ctx, Val};

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
            let ram = [("read_address", I), ("read_clock", I), ("read_data", O), ("write_address", I), ("write_clock", I), ("write_data", I), ("write_enable", I)];
            if ports_are(inst, &ram) && norm.starts_with("reg[") && !norm.contains("initial") && norm.contains("read_data <= mem[read_address];") {
                return Ok(Widget::Ram);
            }
            let word_ram = [("clock", I), ("read_enable", I), ("read_address", I), ("read_data", O), ("write_address", I), ("write_data", I), ("write_strobe", I)];
            if ports_are(inst, &word_ram) && text.starts_with(crate::ram::MARKER) {
                return Ok(Widget::WordRam);
            }
            Err(LowerError::UnknownWidget { block: parent.to_string(), child: inst.name.clone() })
        }
        _ => Err(LowerError::UnknownWidget { block: parent.to_string(), child: inst.name.clone() }),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
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
pub(super) struct Sig {
    pub(super) role: Role,
    pub(super) width: usize,
    pub(super) signed: bool,
    /// The register, memory or child this signal belongs to.
    pub(super) owner: String,
}

/// What a block's names are: every signal with its role, the constants,
/// and what each child instance is.
type Names<'a> = (BTreeMap<String, Sig>, Vec<&'a AtomInfo>, Vec<Widget>);

/// One block instance → the body of its Verilog module (ports onward).
pub fn module_body(path: &str, inst: &Inst, child_modules: &[Option<String>]) -> Result<String, LowerError> {
    let Verilog::Combinatorial(code) = &inst.code else {
        return Err(LowerError::Kind { block: path.into(), kind: "not a rust-hdl update function" });
    };
    let stmts = ir::lower(path, code)?;
    let (sigs, consts, widgets) = names(path, inst, child_modules)?;
    let stmts = fold_constant_ifs(stmts, &constant_bits(&consts));
    let (clocks, body) = split_clocks(path, &sigs, stmts)?;
    let mut assigns = BTreeMap::new();
    assignments(&body, &mut assigns);
    if let Some((t, _)) = assigns.iter().find(|(t, _)| matches!(sigs.get(*t).map(|g| g.role), Some(Role::DffClock | Role::RamClock))) {
        return Err(LowerError::ClockForm { block: path.into(), target: t.clone() });
    }
    let ctx = Ctx { block: path, sigs, assigns };
    // ---- registers ----
    let seq = ctx.seq(&body, &mut BTreeSet::new())?;
    let (comb_stmts, direct) = combinational(&ctx, &body)?;
    let lowered = text::Lowered { path, inst, child_modules, ctx: &ctx, consts: &consts, widgets: &widgets, clocks: &clocks, seq: &seq, comb_stmts: &comb_stmts, direct: &direct };
    lowered.write()
}

fn names<'a>(path: &str, inst: &'a Inst, child_modules: &[Option<String>]) -> Result<Names<'a>, LowerError> {
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
    Ok((sigs, consts, widgets))
}

/// Conditions on 1-bit constants (a generation parameter, the role of one
/// instance in a loop) are decided at emission: the untaken branch is not
/// written, and no process is left that reads nothing but constants.
fn constant_bits(consts: &[&AtomInfo]) -> BTreeMap<String, bool> {
    consts
        .iter()
        .filter(|c| c.width == 1)
        .filter_map(|c| match c.literal.as_str() {
            "1'b0" | "1'h0" => Some((c.name.clone(), false)),
            "1'b1" | "1'h1" => Some((c.name.clone(), true)),
            _ => None,
        })
        .collect()
}

/// The clocks (top-level `x$clock = clk;`) apart from the rest of `update`.
fn split_clocks(path: &str, sigs: &BTreeMap<String, Sig>, stmts: Vec<Stmt>) -> Result<(BTreeMap<String, String>, Vec<Stmt>), LowerError> {
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
    Ok((clocks, body))
}

/// The combinational statements as they are written, and the child inputs
/// connected directly (a child input that is just another port, a constant
/// or a register).
fn combinational(ctx: &Ctx, body: &[Stmt]) -> Result<(Vec<Stmt>, BTreeMap<String, String>), LowerError> {
    let path = ctx.block;
    // ---- signals others read, assigned several times: one tree each ----
    let mut trees: BTreeMap<String, Val> = BTreeMap::new();
    for (t, pos) in &ctx.assigns {
        let role = ctx.role(t);
        if pos.len() > 1 && matches!(role, Some(Role::Out | Role::ChildIn)) {
            let v = ctx.fold(t, body, Val::Keep, &Val::Keep)?;
            if v.has_keep() {
                return Err(LowerError::Latch { block: path.into(), signal: t.clone() });
            }
            trees.insert(t.clone(), v);
        }
    }
    // Nothing may read a register's next value: it is not a signal any more.
    let mut all_reads = Vec::new();
    comb_reads(body, &mut all_reads);
    if let Some((r, _)) = all_reads.iter().find(|(r, _)| ctx.role(r) == Some(Role::DffD)) {
        return Err(LowerError::ReadsNext { block: path.into(), read: r.clone() });
    }
    // A tree stands after the top-level statement holding its signal's last
    // assignment: nothing in the combinational process may read it before.
    let mut reads = Vec::new();
    comb_reads(&comb(ctx, body, &trees, false), &mut reads);
    for (r, at) in &reads {
        if trees.contains_key(r) {
            let last = *ctx.assigns[r].last().expect("assigned");
            let end = body.iter().find(|s| (first_pos(s)..=last_pos(s)).contains(&last)).map(last_pos).unwrap_or(last);
            if *at <= end {
                return Err(LowerError::ReadBeforeLast { block: path.into(), signal: r.clone(), at: *at, last });
            }
        }
    }
    let comb_stmts = comb(ctx, body, &trees, true);
    // ---- direct child connections: a child input that is just another port, a constant or a register ----
    let mut direct: BTreeMap<String, String> = BTreeMap::new();
    let read_names: BTreeSet<&String> = all_reads.iter().map(|(s, _)| s).collect();
    for s in &comb_stmts {
        if let Stmt::Assign { target, slice: None, value: Expr::Sig(src), .. } = s {
            let single = ctx.assigns.get(target).is_some_and(|v| v.len() == 1);
            let src_ok =
                matches!(ctx.role(src), Some(Role::In | Role::Const | Role::ChildOut | Role::RamData)) || ctx.sigs.values().any(|g| g.role == Role::DffQ && &g.owner == src);
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

    Ok((comb_stmts, direct))
}
