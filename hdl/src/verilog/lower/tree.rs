//! Values along the paths of `update`: the signals rebuilt as one tree, the
//! register process, and what the combinational process reads.

use super::*;

/// A signal's value along the paths of `update` (for the signals rebuilt as
/// one tree). `Keep` is "what it was before this statement".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Val {
    Keep,
    Leaf(Expr),
    If(Expr, Box<Val>, Box<Val>),
    /// Arms by label; `default` last if present.
    Case(Expr, Vec<(String, Val)>),
}

impl Val {
    pub(super) fn has_keep(&self) -> bool {
        match self {
            Val::Keep => true,
            Val::Leaf(_) => false,
            Val::If(_, a, b) => a.has_keep() || b.has_keep(),
            Val::Case(_, arms) => arms.iter().any(|(_, v)| v.has_keep()) || !arms.iter().any(|(l, _)| l == "default"),
        }
    }
    pub(super) fn all_keep(&self) -> bool {
        match self {
            Val::Keep => true,
            Val::Leaf(_) => false,
            Val::If(_, a, b) => a.all_keep() && b.all_keep(),
            Val::Case(_, arms) => arms.iter().all(|(_, v)| v.all_keep()),
        }
    }
    /// `Keep` leaves replaced by `outer`.
    pub(super) fn compose(&self, outer: &Val) -> Val {
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
    pub(super) fn prune(&self) -> Val {
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
    pub(super) fn guard(&self) -> Expr {
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
    pub(super) fn expr(&self) -> Option<Expr> {
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
pub(super) fn assignments(stmts: &[Stmt], out: &mut BTreeMap<String, Vec<usize>>) {
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
pub(super) fn last_pos(s: &Stmt) -> usize {
    match s {
        Stmt::Assign { pos, .. } => *pos,
        Stmt::If { pos, then, els, .. } => then.iter().chain(els).map(last_pos).max().unwrap_or(*pos).max(*pos),
        Stmt::Case { pos, arms, .. } => arms.iter().flat_map(|(_, b)| b.iter().map(last_pos)).max().unwrap_or(*pos).max(*pos),
    }
}

pub(super) struct Ctx<'a> {
    pub(super) block: &'a str,
    pub(super) sigs: BTreeMap<String, Sig>,
    pub(super) assigns: BTreeMap<String, Vec<usize>>,
}

impl Ctx<'_> {
    pub(super) fn role(&self, name: &str) -> Option<Role> {
        self.sigs.get(name).map(|s| s.role)
    }

    /// Every signal `e` reads has its final value at statement `at` (`target` names what is computed, for errors).
    pub(super) fn final_at(&self, e: &Expr, at: usize, target: &str, skip: Option<&str>) -> Result<(), LowerError> {
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
    pub(super) fn regs(&self, e: &Expr) -> Expr {
        e.map_sigs(&|s| match self.sigs.get(s) {
            Some(Sig { role: Role::DffQ, owner, .. }) => Some(Expr::Sig(owner.clone())),
            _ => None,
        })
    }

    /// The statements that assign registers, as non-blocking assignments.
    pub(super) fn seq(&self, stmts: &[Stmt], seen: &mut BTreeSet<String>) -> Result<Vec<Stmt>, LowerError> {
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
    pub(super) fn fold(&self, x: &str, stmts: &[Stmt], mut cur: Val, outer: &Val) -> Result<Val, LowerError> {
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
    pub(super) fn self_read(&self, x: &str, e: &Expr, here: &Val) -> Result<Expr, LowerError> {
        if !e.reads_sig(x) {
            return Ok(self.regs(e));
        }
        let now = here.expr().ok_or_else(|| LowerError::Latch { block: self.block.into(), signal: x.into() })?;
        Ok(self.regs(&e.map_sigs(&|s| (s == x).then(|| now.clone()))))
    }

    /// `partial` (with `Keep` leaves) applied over `cur`, without copying `cur`.
    pub(super) fn merge(&self, partial: Val, cur: Val) -> Val {
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

/// `x`'s value tree as statements assigning it once on every path.
pub(super) fn val_stmts(x: &str, v: &Val) -> Vec<Stmt> {
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
pub(super) fn comb(ctx: &Ctx, stmts: &[Stmt], trees: &BTreeMap<String, Val>, place: bool) -> Vec<Stmt> {
    let mut order: Vec<(usize, &String, &Val)> = trees.iter().map(|(x, v)| (*ctx.assigns[x].last().expect("assigned"), x, v)).collect();
    order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Assign { target, .. } if ctx.role(target) == Some(Role::DffD) || trees.contains_key(target) => {}
            Stmt::Assign { pos, target, slice, value } => {
                out.push(Stmt::Assign { pos: *pos, target: target.clone(), slice: slice.as_ref().map(|(w, o)| (*w, ctx.regs(o))), value: ctx.regs(value) })
            }
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

pub(super) fn first_pos(s: &Stmt) -> usize {
    match s {
        Stmt::Assign { pos, .. } | Stmt::If { pos, .. } | Stmt::Case { pos, .. } => *pos,
    }
}

/// Every read of a signal in comb statements, with its position.
pub(super) fn comb_reads(stmts: &[Stmt], out: &mut Vec<(String, usize)>) {
    let mut targets = BTreeSet::new();
    for s in stmts {
        targets_and_reads(s, &mut targets, out);
    }
}
