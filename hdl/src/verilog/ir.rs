//! The emitter's own form of a block's `update` function: rust-hdl's HDL
//! AST with every name resolved (`self.sem[i].req_valid.next` →
//! `sem$3$req_valid`), loops unrolled, macros flattened, and each statement
//! numbered in program order (pre-order: an `if` before its branches). The
//! numbers let the emitter prove that moving a statement keeps its meaning.

use rust_hdl::prelude::ast::{VerilogBlock, VerilogBlockOrConditional, VerilogExpression, VerilogOp, VerilogOpUnary, VerilogStatement};
use std::collections::BTreeSet;

/// An expression, printed with every operator parenthesised as the AST
/// nests it (rust-hdl itself prints binary operators without parentheses
/// and so relies on Verilog's precedence matching Rust's, which it does not
/// for `&`/`|` against `==`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    Sig(String),
    /// A literal as Verilog text (`32'h1f`, `1'b0`, a loop index `3`).
    Lit(String),
    Bin(Box<Expr>, &'static str, Box<Expr>),
    Un(&'static str, Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Slice(Box<Expr>, usize, Box<Expr>),
    Cast(Box<Expr>, usize),
    Signed(Box<Expr>),
    Unsigned(Box<Expr>),
    IndexReplace(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `c ? a : b` (made by the emitter, never by rust-hdl).
    Mux(Box<Expr>, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Every signal name the expression reads.
    pub fn reads(&self, out: &mut BTreeSet<String>) {
        match self {
            Expr::Sig(s) => {
                out.insert(s.clone());
            }
            Expr::Lit(_) => {}
            Expr::Bin(a, _, b) | Expr::Index(a, b) | Expr::Slice(a, _, b) => {
                a.reads(out);
                b.reads(out);
            }
            Expr::Un(_, a) | Expr::Cast(a, _) | Expr::Signed(a) | Expr::Unsigned(a) => a.reads(out),
            Expr::IndexReplace(a, b, c) | Expr::Mux(a, b, c) => {
                a.reads(out);
                b.reads(out);
                c.reads(out);
            }
        }
    }

    /// Does the expression read `name`?
    pub fn reads_sig(&self, name: &str) -> bool {
        let mut s = BTreeSet::new();
        self.reads(&mut s);
        s.contains(name)
    }

    /// The expression with every read of a signal renamed by `f` (or
    /// replaced by an expression).
    pub fn map_sigs(&self, f: &dyn Fn(&str) -> Option<Expr>) -> Expr {
        let m = |e: &Expr| Box::new(e.map_sigs(f));
        match self {
            Expr::Sig(s) => f(s).unwrap_or_else(|| self.clone()),
            Expr::Lit(_) => self.clone(),
            Expr::Bin(a, o, b) => Expr::Bin(m(a), o, m(b)),
            Expr::Un(o, a) => Expr::Un(o, m(a)),
            Expr::Index(a, b) => Expr::Index(m(a), m(b)),
            Expr::Slice(a, w, b) => Expr::Slice(m(a), *w, m(b)),
            Expr::Cast(a, w) => Expr::Cast(m(a), *w),
            Expr::Signed(a) => Expr::Signed(m(a)),
            Expr::Unsigned(a) => Expr::Unsigned(m(a)),
            Expr::IndexReplace(a, b, c) => Expr::IndexReplace(m(a), m(b), m(c)),
            Expr::Mux(a, b, c) => Expr::Mux(m(a), m(b), m(c)),
        }
    }

    /// Verilog text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, true);
        s
    }

    fn write(&self, s: &mut String, top: bool) {
        match self {
            Expr::Sig(n) | Expr::Lit(n) => s.push_str(n),
            Expr::Bin(a, o, b) => {
                if !top {
                    s.push('(');
                }
                a.write(s, false);
                s.push(' ');
                s.push_str(o);
                s.push(' ');
                b.write(s, false);
                if !top {
                    s.push(')');
                }
            }
            Expr::Un(o, a) => {
                s.push_str(o);
                if matches!(a.as_ref(), Expr::Un(..)) {
                    s.push('(');
                    a.write(s, true);
                    s.push(')');
                } else {
                    a.write(s, false);
                }
            }
            Expr::Index(a, b) => {
                a.write(s, false);
                s.push('[');
                b.write(s, true);
                s.push(']');
            }
            Expr::Slice(a, w, off) => {
                a.write(s, false);
                s.push('[');
                off.write(s, true);
                s.push_str(&format!(" +: {w}]"));
            }
            Expr::Cast(a, bits) => {
                // rust-hdl's cast: mask to `bits` bits.
                let mask = if *bits >= 128 { "0".to_string() } else { format!("{:x}", (1u128 << bits) - 1) };
                s.push('(');
                a.write(s, false);
                s.push_str(&format!(" & {bits}'h{mask})"));
            }
            Expr::Signed(a) => {
                s.push_str("$signed(");
                a.write(s, true);
                s.push(')');
            }
            Expr::Unsigned(a) => {
                s.push_str("$unsigned(");
                a.write(s, true);
                s.push(')');
            }
            Expr::IndexReplace(a, n, v) => {
                s.push_str("((");
                a.write(s, false);
                s.push_str(" & ~(1 << ");
                n.write(s, false);
                s.push_str(")) | (");
                v.write(s, false);
                s.push_str(" << ");
                n.write(s, false);
                s.push_str("))");
            }
            Expr::Mux(c, a, b) => {
                s.push('(');
                c.write(s, false);
                s.push_str(" ? ");
                a.write(s, false);
                s.push_str(" : ");
                b.write(s, false);
                s.push(')');
            }
        }
    }
}

/// A statement with its program-order position.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// `target = value` or, with `slice = (width, offset)`, `target[offset +: width] = value`.
    Assign {
        pos: usize,
        target: String,
        slice: Option<(usize, Expr)>,
        value: Expr,
    },
    If {
        pos: usize,
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `case (sel)`: arms by label (`default` for the catch-all).
    Case {
        pos: usize,
        sel: Expr,
        arms: Vec<(String, Vec<Stmt>)>,
    },
}

/// Why a block's HDL cannot be put in the emitter's form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IrError {
    #[error("{0}: rust-hdl links (join!/link!) are not supported by the emitter")]
    Link(String),
    #[error("{0}: an assignment target that is not a signal")]
    Target(String),
    #[error("{0}: cannot evaluate the index `{1}`")]
    Index(String, String),
}

struct Lower<'a> {
    block: &'a str,
    pos: usize,
    loops: Vec<(String, i64)>,
}

/// `code` in the emitter's form (`block` names the block in errors).
pub fn lower(block: &str, code: &VerilogBlock) -> Result<Vec<Stmt>, IrError> {
    let mut l = Lower { block, pos: 0, loops: Vec::new() };
    l.block(code)
}

impl Lower<'_> {
    fn next_pos(&mut self) -> usize {
        self.pos += 1;
        self.pos
    }

    fn block(&mut self, b: &VerilogBlock) -> Result<Vec<Stmt>, IrError> {
        let mut out = Vec::new();
        for s in b {
            self.stmt(s, &mut out)?;
        }
        Ok(out)
    }

    fn stmt(&mut self, s: &VerilogStatement, out: &mut Vec<Stmt>) -> Result<(), IrError> {
        match s {
            VerilogStatement::Assignment(t, v) => {
                let pos = self.next_pos();
                let (target, slice) = match t {
                    VerilogExpression::Signal(n) => (self.ident(n)?, None),
                    VerilogExpression::Index(b, i) => match b.as_ref() {
                        VerilogExpression::Signal(n) => (self.ident(n)?, Some((1, self.expr(i)?))),
                        _ => return Err(IrError::Target(self.block.to_string())),
                    },
                    _ => return Err(IrError::Target(self.block.to_string())),
                };
                out.push(Stmt::Assign { pos, target, slice, value: self.expr(v)? });
            }
            VerilogStatement::SliceAssignment { base, width, offset, replacement } => {
                let pos = self.next_pos();
                let VerilogExpression::Signal(n) = base else { return Err(IrError::Target(self.block.to_string())) };
                out.push(Stmt::Assign { pos, target: self.ident(n)?, slice: Some((*width, self.expr(offset)?)), value: self.expr(replacement)? });
            }
            VerilogStatement::If(c) => {
                let pos = self.next_pos();
                let cond = self.expr(&c.test)?;
                let then = self.block(&c.then)?;
                let els = match &c.otherwise {
                    VerilogBlockOrConditional::None => Vec::new(),
                    VerilogBlockOrConditional::Block(b) => self.block(b)?,
                    VerilogBlockOrConditional::Conditional(s) => {
                        let mut v = Vec::new();
                        self.stmt(s, &mut v)?;
                        v
                    }
                };
                out.push(Stmt::If { pos, cond, then, els });
            }
            VerilogStatement::Match(m) => {
                let pos = self.next_pos();
                let sel = self.expr(&m.test)?;
                let mut arms = Vec::new();
                for c in &m.cases {
                    let label = self.ident(&c.condition)?;
                    arms.push((label, self.block(&c.block)?));
                }
                out.push(Stmt::Case { pos, sel, arms });
            }
            VerilogStatement::Loop(l) => {
                let (from, to) = (l.from.as_usize() as i64, l.to.as_usize() as i64);
                for i in from..to {
                    self.loops.push((l.index.clone(), i));
                    for s in &l.block {
                        self.stmt(s, out)?;
                    }
                    self.loops.pop();
                }
            }
            VerilogStatement::Macro(b) => {
                for s in b {
                    self.stmt(s, out)?;
                }
            }
            VerilogStatement::Comment(_) => {}
            VerilogStatement::Link(_) => return Err(IrError::Link(self.block.to_string())),
        }
        Ok(())
    }

    fn expr(&mut self, e: &VerilogExpression) -> Result<Expr, IrError> {
        let b = |s: &mut Self, e: &VerilogExpression| s.expr(e).map(Box::new);
        Ok(match e {
            VerilogExpression::Signal(n) => match self.loops.iter().rev().find(|(v, _)| v == n) {
                Some((_, i)) => Expr::Lit(i.to_string()),
                None => Expr::Sig(self.ident(n)?),
            },
            VerilogExpression::Literal(l) => Expr::Lit(l.to_string()),
            VerilogExpression::Cast(a, w) => Expr::Cast(b(self, a)?, *w),
            VerilogExpression::Signed(a) => Expr::Signed(b(self, a)?),
            VerilogExpression::Unsigned(a) => Expr::Unsigned(b(self, a)?),
            VerilogExpression::Paren(a) => self.expr(a)?,
            VerilogExpression::Binary(l, o, r) => Expr::Bin(b(self, l)?, op(o), b(self, r)?),
            VerilogExpression::Unary(o, a) => Expr::Un(unop(o), b(self, a)?),
            VerilogExpression::Index(a, i) => Expr::Index(b(self, a)?, b(self, i)?),
            VerilogExpression::Slice(a, w, off) => Expr::Slice(b(self, a)?, *w, b(self, off)?),
            VerilogExpression::IndexReplace(a, i, v) => Expr::IndexReplace(b(self, a)?, b(self, i)?, b(self, v)?),
        })
    }

    /// rust-hdl's identifier fix-up: `.`/`::` → `$`, no `$next`, array
    /// indices evaluated with the loop variables (`ent_valid[i]$q` → `ent_valid$3$q`).
    fn ident(&self, a: &str) -> Result<String, IrError> {
        let mut x = a.trim_start_matches('.').replace('.', "$").replace("::", "$");
        if let Some(s) = x.strip_suffix("$next") {
            x = s.to_string();
        }
        let mut out = String::with_capacity(x.len());
        let mut rest = x.as_str();
        while let Some(open) = rest.find('[') {
            let close = rest[open..].find(']').map(|c| open + c).ok_or_else(|| IrError::Index(self.block.to_string(), x.clone()))?;
            out.push_str(&rest[..open]);
            let v = self.eval(&rest[open + 1..close]).ok_or_else(|| IrError::Index(self.block.to_string(), x.clone()))?;
            out.push_str(&format!("${v}"));
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// An index expression (integers, loop variables, `+ - * /`, parentheses).
    fn eval(&self, text: &str) -> Option<i64> {
        let mut ctx = evalexpr::HashMapContext::new();
        for (v, i) in &self.loops {
            evalexpr::ContextWithMutableVariables::set_value(&mut ctx, v.clone(), evalexpr::Value::Int(*i)).ok()?;
        }
        evalexpr::eval_int_with_context(text, &ctx).ok()
    }
}

fn op(o: &VerilogOp) -> &'static str {
    match o {
        VerilogOp::Add => "+",
        VerilogOp::Sub => "-",
        VerilogOp::Mul => "*",
        VerilogOp::LogicalAnd => "&&",
        VerilogOp::LogicalOr => "||",
        VerilogOp::BitXor => "^",
        VerilogOp::BitAnd => "&",
        VerilogOp::BitOr => "|",
        VerilogOp::Shl => "<<",
        VerilogOp::Shr => ">>",
        VerilogOp::Eq => "==",
        VerilogOp::Lt => "<",
        VerilogOp::Le => "<=",
        VerilogOp::Ne => "!=",
        VerilogOp::Ge => ">=",
        VerilogOp::Gt => ">",
    }
}

fn unop(o: &VerilogOpUnary) -> &'static str {
    match o {
        VerilogOpUnary::Not => "~",
        VerilogOpUnary::Neg => "-",
        VerilogOpUnary::All => "&",
        VerilogOpUnary::Any => "|",
        VerilogOpUnary::Xor => "^",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_operators_keep_the_ast_nesting() {
        // Rust's `a & b == c` is `(a & b) == c`; Verilog would read the flat text as `a & (b == c)`.
        let e = Expr::Bin(Box::new(Expr::Bin(Box::new(Expr::Sig("a".into())), "&", Box::new(Expr::Sig("b".into())))), "==", Box::new(Expr::Sig("c".into())));
        assert_eq!(e.text(), "(a & b) == c");
        let n = Expr::Un("~", Box::new(Expr::Bin(Box::new(Expr::Sig("a".into())), "|", Box::new(Expr::Sig("b".into())))));
        assert_eq!(n.text(), "~(a | b)");
    }

    #[test]
    fn identifiers_resolve_loop_indices() {
        let l = Lower { block: "b", pos: 0, loops: vec![("i".into(), 3)] };
        assert_eq!(l.ident("ent_valid[i]$q$next").unwrap(), "ent_valid$3$q");
        assert_eq!(l.ident("fifo[(i+1)]$d").unwrap(), "fifo$4$d");
        assert_eq!(l.ident("State::Idle").unwrap(), "State$Idle");
        assert!(l.ident("x[j]").is_err());
    }
}
