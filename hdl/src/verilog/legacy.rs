//! rust-hdl's own Verilog generator with the settle pass this project used
//! before the lean backend (`super`): a module per flip-flop, registers held
//! by `d = q` defaults, multiply-assigned signals settled through shadows.
//! Kept only so `tpb bench --before` can build the previous emission as a
//! temporary model and measure both in one run; nothing checked in uses it.

use rust_hdl::prelude::*;

/// Verilog of `uut` with top module `module`; panics only if rust-hdl's own
/// design checks fail, which a test over every generated block rules out.
pub fn of<B: Block>(uut: &mut B, module: &str) -> String {
    uut.connect_all();
    if let Err(e) = check_all(uut) {
        panic!("rust-hdl design check failed for {module}: {e:?}");
    }
    let mut defines = ModuleDefines::default();
    uut.accept(module, &mut defines);
    settle_comb(&defines.defines())
}

/// Suffix of the shadow variable [`settle_comb`] gives a combinational target.
pub const SETTLE_SUFFIX: &str = "$cmb";

/// Make every `always @(*)` block of rust-hdl's output glitch-free towards
/// other blocks.
///
/// rust-hdl writes a block's combinational logic as defaults followed by
/// overrides (`db_ready = 0; … if (hit) db_ready = sem$db_ready;`). Verilator
/// and Yosys only see the final value, but an event-driven simulator (Icarus,
/// and every commercial one) propagates each intermediate assignment: when a
/// parent drives a child's input that way and the child drives an output back
/// that way, each wakes the other for ever in one time step (found with Icarus
/// on the SUNDA top: the host bus and the SEQ DMA doorbell handshake).
///
/// For each target assigned more than once in a block that another block can
/// read — an output port of the module, or a sub-block's input (`child$port`)
/// — the block computes into a shadow `<name>$cmb` (hidden from traces) and
/// assigns the real signal once, at the end. Semantics are unchanged.
pub fn settle_comb(v: &str) -> String {
    let lines: Vec<&str> = v.lines().collect();
    let mut out = String::with_capacity(v.len() + v.len() / 16);
    let mut decls: std::collections::HashMap<String, String> = Default::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("module ") {
            decls.clear();
        }
        if let Some((name, width, output)) = reg_decl(line) {
            decls.insert(name.to_string(), if output { format!("out:{width}") } else { width.to_string() });
        }
        let end = (line == "    always @(*) begin").then(|| lines[i + 1..].iter().position(|l| *l == "    end")).flatten();
        let Some(len) = end else {
            out.push_str(line);
            out.push('\n');
            i += 1;
            continue;
        };
        let body = &lines[i + 1..i + 1 + len];
        let targets: Vec<(String, String)> = glitching_targets(body)
            .into_iter()
            .filter_map(|t| {
                let d = decls.get(&t)?;
                let (width, output) = match d.strip_prefix("out:") {
                    Some(w) => (w.to_string(), true),
                    None => (d.clone(), false),
                };
                (!t.ends_with(SETTLE_SUFFIX) && (output || t.contains('$'))).then_some((t, width))
            })
            .collect();
        if !targets.is_empty() {
            out.push_str("    // verilator tracing_off\n");
            for (t, w) in &targets {
                let sp = if w.is_empty() { "" } else { " " };
                out.push_str(&format!("    reg {w}{sp}{t}{SETTLE_SUFFIX};\n"));
            }
            out.push_str("    // verilator tracing_on\n");
        }
        out.push_str(line);
        out.push('\n');
        for l in body {
            let mut l = l.to_string();
            for (t, _) in &targets {
                l = rename_ident(&l, t, &format!("{t}{SETTLE_SUFFIX}"));
            }
            out.push_str(&l);
            out.push('\n');
        }
        for (t, _) in &targets {
            out.push_str(&format!("        {t} = {t}{SETTLE_SUFFIX};\n"));
        }
        i += 1 + len;
    }
    out
}

/// Targets assigned more than once (textually) in an `always @(*)` body.
pub fn glitching_targets(body: &[&str]) -> Vec<String> {
    let mut count: Vec<(String, usize)> = Vec::new();
    for l in body {
        let Some(t) = assign_target(l) else { continue };
        match count.iter_mut().find(|(n, _)| n == t) {
            Some((_, c)) => *c += 1,
            None => count.push((t.to_string(), 1)),
        }
    }
    count.into_iter().filter(|(_, c)| *c > 1).map(|(n, _)| n).collect()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `name` of a blocking assignment line `    name = …;`.
fn assign_target(l: &str) -> Option<&str> {
    let t = l.trim_start();
    let (name, rest) = t.split_at(t.find(|c: char| !is_ident(c))?);
    (!name.is_empty() && rest.starts_with(" = ")).then_some(name)
}

/// `(name, "[w:0]" or "", is_output)` of `reg [w:0] name;` / `output reg [w:0] name;`.
fn reg_decl(l: &str) -> Option<(&str, &str, bool)> {
    let t = l.trim_start();
    let (output, t) = match t.strip_prefix("output reg ") {
        Some(r) => (true, r),
        None => (false, t.strip_prefix("reg ")?),
    };
    let t = t.trim_start().strip_suffix(';')?;
    let (width, name) = match t.strip_prefix('[') {
        Some(r) => {
            let close = r.find(']')?;
            (&t[..close + 2], r[close + 1..].trim_start())
        }
        None => ("", t),
    };
    (!name.is_empty() && name.chars().all(is_ident)).then_some((name, width, output))
}

/// `l` with every whole-identifier occurrence of `from` replaced by `to`.
fn rename_ident(l: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(l.len() + 8);
    let mut rest = l;
    let mut prev: Option<char> = None;
    while let Some(p) = rest.find(from) {
        let before = rest[..p].chars().next_back().or(prev);
        let after = rest[p + from.len()..].chars().next();
        out.push_str(&rest[..p]);
        if before.is_none_or(|c| !is_ident(c)) && after.is_none_or(|c| !is_ident(c)) {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        prev = from.chars().next_back();
        rest = &rest[p + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "module m(a,b,y,z);\n    input wire  a;\n    input wire  b;\n    output reg  [7:0] y;\n    output reg  z;\n    reg  c$in;\n    reg  c$clock;\n    reg  hit;\n    always @(*) begin\n        c$clock = a;\n        hit = 1'b0;\n        y = 8'h0;\n        c$in = 1'b0;\n        z = b;\n        if (a) begin\n            hit = 1'b1;\n            y = 8'h1;\n            c$in = y[0] & c$in_q;\n        end\n    end\nendmodule\n";

    #[test]
    fn multiply_assigned_outputs_and_child_inputs_get_a_shadow_assigned_once() {
        let s = settle_comb(SRC);
        assert!(s.contains("    reg [7:0] y$cmb;\n    reg c$in$cmb;\n"), "{s}");
        assert!(s.contains("        y$cmb = 8'h1;\n            c$in$cmb = y$cmb[0] & c$in_q;"), "{s}");
        assert!(s.ends_with("        y = y$cmb;\n        c$in = c$in$cmb;\n    end\nendmodule\n"), "{s}");
        // Assigned once (z, c$clock) or read by this block only (the local hit): untouched.
        assert!(s.contains("        z = b;\n") && s.contains("        hit = 1'b1;\n") && s.contains("        c$clock = a;\n"));
        assert!(!s.contains("hit$cmb") && !s.contains("z$cmb"));
        // A second pass finds nothing left to settle.
        assert_eq!(settle_comb(&s), s);
    }

    #[test]
    fn renaming_respects_identifier_boundaries() {
        assert_eq!(rename_ident("x = c$in_q | c$in | ~c$in;", "c$in", "k"), "x = c$in_q | k | ~k;");
        assert_eq!(rename_ident("ac$in = c$in[3];", "c$in", "k"), "ac$in = k[3];");
    }
}
