//! Verilog generation: our own backend over rust-hdl's HDL AST.
//!
//! rust-hdl stays the source language and its simulator the lockstep
//! engine; only the text is ours. rust-hdl's own generator writes one module
//! per flip-flop and a combinational block that first copies every register
//! to its next value and then overrides it, which event-driven simulators
//! can loop on and which made half of every Verilator cycle a copy of
//! registers onto themselves. This backend writes the form an RTL engineer
//! writes by hand. How, and why it keeps the meaning: `docs/design/emission.md`
//! and [`lower`].
//!
//! - [`collect`]: the block tree as rust-hdl's probe sees it;
//! - [`ir`]: a block's `update` with names resolved and loops unrolled;
//! - [`lower`]: one block → one module (registers and memories inlined);
//! - here: the design → one file, identical modules written once;
//! - [`legacy`]: rust-hdl's own generator (kept for the benchmark's
//!   before/after comparison only; nothing checked in uses it).

pub mod collect;
pub mod ir;
pub mod legacy;
pub mod lower;

use rust_hdl::prelude::*;
use std::collections::HashMap;
use std::fmt::Write as _;

pub use lower::LowerError;

/// Verilog of `uut` with top module `module`; panics only if rust-hdl's own
/// design checks or the emitter's checks fail, which the tests over every
/// generated block rule out (use [`try_of`] for the error as a value).
pub fn of<B: Block>(uut: &mut B, module: &str) -> String {
    try_of(uut, module).unwrap_or_else(|e| panic!("Verilog of {module}: {e}"))
}

/// Why a design cannot be turned into Verilog.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("rust-hdl design check failed for {module}: {detail}")]
    Check { module: String, detail: String },
    #[error(transparent)]
    Lower(#[from] LowerError),
    #[error("{module}: `{name}` is a Verilog/SystemVerilog keyword and cannot name a signal or an instance; rename the field")]
    Keyword { module: String, name: String },
}

/// Words Verilog-2005 and SystemVerilog reserve that a Rust field could be
/// called (the tools refuse them as names: `reg [31:0] buf` does not parse).
const KEYWORDS: &[&str] = &[
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "bit",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "class",
    "cmos",
    "config",
    "const",
    "context",
    "default",
    "defparam",
    "design",
    "disable",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endmodule",
    "enum",
    "event",
    "export",
    "extends",
    "extern",
    "final",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "highz0",
    "highz1",
    "if",
    "ifnone",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "instance",
    "int",
    "integer",
    "interface",
    "join",
    "large",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "medium",
    "module",
    "nand",
    "negedge",
    "new",
    "nmos",
    "nor",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "rcmos",
    "real",
    "realtime",
    "reg",
    "release",
    "repeat",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "scalared",
    "shortint",
    "shortreal",
    "signed",
    "small",
    "specify",
    "specparam",
    "static",
    "string",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "table",
    "task",
    "this",
    "time",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unsigned",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wand",
    "weak0",
    "weak1",
    "while",
    "wire",
    "wor",
    "xnor",
    "xor",
];

fn check_names(inst: &collect::Inst, module: &str) -> Result<(), EmitError> {
    let bad = |n: &str| KEYWORDS.contains(&n);
    // A name is checked as Verilog sees it: the part before a `$` index.
    for name in inst.atoms.iter().map(|a| a.name.as_str()).chain(inst.children.iter().map(|c| c.name.as_str())) {
        let base = name.split('$').next().unwrap_or(name);
        if bad(base) {
            return Err(EmitError::Keyword { module: module.to_string(), name: base.to_string() });
        }
    }
    inst.children.iter().try_for_each(|c| check_names(c, module))
}

/// Verilog of `uut` with top module `module`, or why not.
pub fn try_of<B: Block>(uut: &mut B, module: &str) -> Result<String, EmitError> {
    uut.connect_all();
    check_all(uut).map_err(|e| EmitError::Check { module: module.to_string(), detail: format!("{e:?}") })?;
    let top = collect::collect(uut, module);
    check_names(&top, module)?;
    let mut d = Design::default();
    d.module(&top, module, module)?;
    let mut out = String::new();
    // The top first, then its sub-modules (each before its own children).
    for (name, body) in d.modules.iter().rev() {
        let _ = write!(out, "\nmodule {name}{body}");
    }
    Ok(out)
}

#[derive(Default)]
struct Design {
    /// (name, body) in the order written (children before parents).
    modules: Vec<(String, String)>,
    by_body: HashMap<String, String>,
    names: HashMap<String, usize>,
}

impl Design {
    /// Emit `inst` (children first); returns its module name. A module whose
    /// text equals one already written is not written again.
    fn module(&mut self, inst: &collect::Inst, path: &str, want: &str) -> Result<String, LowerError> {
        let mut child_modules = Vec::new();
        for c in &inst.children {
            let m = match lower::widget(path, c)? {
                lower::Widget::Logic => Some(self.module(c, &format!("{path}.{}", c.name), &format!("{want}__{}", stem(&c.name)))?),
                _ => None,
            };
            child_modules.push(m);
        }
        let body = lower::module_body(path, inst, &child_modules)?;
        if let Some(n) = self.by_body.get(&body) {
            return Ok(n.clone());
        }
        let n = self.names.entry(want.to_string()).or_insert(0);
        *n += 1;
        let name = if *n == 1 { want.to_string() } else { format!("{want}_{n}") };
        self.by_body.insert(body.clone(), name.clone());
        self.modules.push((name.clone(), body));
        Ok(name)
    }
}

/// A field name for a module name: array indices dropped (`sem$3` → `sem`).
fn stem(instance: &str) -> String {
    let mut parts: Vec<&str> = instance.split('$').collect();
    while parts.len() > 1 && parts.last().is_some_and(|p| p.chars().all(|c| c.is_ascii_digit())) {
        parts.pop();
    }
    parts.join("_")
}

/// Banner placed at the top of every checked-in Verilog file.
pub fn banner(module: &str, source: &str) -> String {
    format!(
        "// GENERATED by tpb-hdl (hdl/src/verilog, over rust-hdl 0.46's HDL) via `tpb gen-verilog` from {source}.\n// Module {module}. Do not edit: change the source and regenerate.\n`timescale 1ns/1ps\n"
    )
}
