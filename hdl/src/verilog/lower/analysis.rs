//! What statements assign and read, the independent groups of the
//! combinational process, and conditions on constants decided.

use super::*;

pub(super) fn ctx_clock(clocks: &BTreeMap<String, String>, key: &str) -> Option<String> {
    clocks.get(key).cloned()
}

/// Every assignment target in `s`, and every read with its position.
pub(super) fn targets_and_reads(s: &Stmt, targets: &mut BTreeSet<String>, reads: &mut Vec<(String, usize)>) {
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
pub(super) fn comb_groups(stmts: &[Stmt], is_signal: &dyn Fn(&str) -> bool) -> Vec<Vec<usize>> {
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
pub(super) fn const_cond(e: &Expr, bits: &BTreeMap<String, bool>) -> Option<bool> {
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
pub(super) fn fold_constant_ifs(stmts: Vec<Stmt>, bits: &BTreeMap<String, bool>) -> Vec<Stmt> {
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
pub(super) fn only_targets(stmts: &[Stmt], targets: &BTreeSet<String>) -> Vec<Stmt> {
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
