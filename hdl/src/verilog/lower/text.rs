//! The Verilog text of a lowered block: declarations, processes, and the
//! statement writer (if/else chains, `case` where it reads better).

use super::*;

pub(super) fn decl_range(width: usize, signed: bool) -> String {
    let s = if signed { "signed " } else { "" };
    if width == 1 {
        s.trim_end().to_string()
    } else {
        format!("{s}[{}:0]", width - 1)
    }
}

pub(super) fn decl(kind: &str, width: usize, signed: bool, name: &str) -> String {
    let r = decl_range(width, signed);
    if r.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {r} {name}")
    }
}

pub(super) fn write_stmts(out: &mut String, stmts: &[Stmt], indent: usize, nba: bool) {
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
pub(super) fn literal_value(lit: &str) -> Option<u128> {
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
pub(super) fn eq_const(cond: &Expr) -> Option<(String, u128)> {
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
pub(super) const MIN_CASE_ARMS: usize = 3;

/// An if / else-if chain. A run of arms that compare one selector with
/// distinct constants is written as a `case` (the arms exclude each other,
/// so the order of the chain does not matter and synthesis builds a
/// parallel multiplexer instead of a priority chain as deep as the run);
/// arms before the run stay an if / else-if, the run and what follows it
/// go in their `else`.
pub(super) fn write_chain(out: &mut String, arms: &[(&Expr, &[Stmt])], last: &[Stmt], indent: usize, nba: bool) {
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

/// A block after lowering, ready to be written.
pub(super) struct Lowered<'a> {
    pub(super) path: &'a str,
    pub(super) inst: &'a Inst,
    pub(super) child_modules: &'a [Option<String>],
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) consts: &'a [&'a AtomInfo],
    pub(super) widgets: &'a [Widget],
    pub(super) clocks: &'a BTreeMap<String, String>,
    pub(super) seq: &'a [Stmt],
    pub(super) comb_stmts: &'a [Stmt],
    pub(super) direct: &'a BTreeMap<String, String>,
}

impl Lowered<'_> {
    /// The module's text from its port list to `endmodule`.
    pub(super) fn write(&self) -> Result<String, LowerError> {
        let mut o = self.declarations();
        self.processes(&mut o)?;
        o += "\nendmodule\n";
        Ok(o)
    }

    fn regs(&self) -> Vec<(&Inst, &String)> {
        self.inst.children.iter().zip(self.widgets).filter_map(|(c, w)| if let Widget::Dff { init } = w { Some((c, init)) } else { None }).collect()
    }

    fn rams(&self) -> Vec<(&Inst, bool)> {
        self.inst.children.iter().zip(self.widgets).filter(|(_, w)| matches!(w, Widget::Ram | Widget::WordRam)).map(|(c, w)| (c, *w == Widget::WordRam)).collect()
    }

    /// Ports, constants, registers, memories, signals and sub-modules.
    fn declarations(&self) -> String {
        let (inst, child_modules, ctx, consts, seq, comb_stmts, direct) = (self.inst, self.child_modules, self.ctx, self.consts, self.seq, self.comb_stmts, self.direct);
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
        for s in comb_stmts.iter().chain(seq) {
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
            for c in consts {
                let s = if c.signed { "signed " } else { "" };
                if used.contains(&c.name) {
                    let _ = writeln!(o, "    localparam {s}{} = {};", c.name, c.literal);
                } else {
                    let _ = writeln!(o, "    // {} = {} (decided at generation)", c.name, c.literal);
                }
            }
        }
        let regs = self.regs();
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
        let rams = self.rams();
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
        o
    }

    /// One combinational process per independent group of statements, one
    /// clocked process per clock for the registers, and the memories'.
    fn processes(&self, o: &mut String) -> Result<(), LowerError> {
        let (path, ctx, clocks, seq, comb_stmts) = (self.path, self.ctx, self.clocks, self.seq, self.comb_stmts);
        let (regs, rams) = (self.regs(), self.rams());
        // One process per independent group of statements: a simulator then
        // re-evaluates only the groups whose inputs changed.
        for group in comb_groups(comb_stmts, &|x| ctx.role(x) != Some(Role::Const)) {
            *o += "\n    always @(*) begin\n";
            let part: Vec<Stmt> = group.iter().map(|&i| comb_stmts[i].clone()).collect();
            write_stmts(o, &part, 2, false);
            *o += "    end\n";
        }
        // One clocked process per clock for the registers.
        let mut by_clock: BTreeMap<String, ()> = BTreeMap::new();
        for (c, _) in &regs {
            let clk = ctx_clock(clocks, &format!("{}$clock", c.name)).ok_or_else(|| LowerError::NoClock { block: path.into(), reg: c.name.clone() })?;
            by_clock.insert(clk, ());
        }
        for clk in by_clock.keys() {
            let mine: BTreeSet<String> = regs.iter().filter(|(c, _)| clocks.get(&format!("{}$clock", c.name)) == Some(clk)).map(|(c, _)| c.name.clone()).collect();
            let part = only_targets(seq, &mine);
            if !part.is_empty() {
                let _ = writeln!(o, "\n    always @(posedge {clk}) begin");
                write_stmts(o, &part, 2, true);
                *o += "    end\n";
            }
        }
        for (r, word) in &rams {
            let n = &r.name;
            let no_clock = || LowerError::NoClock { block: path.into(), reg: n.clone() };
            if *word {
                let clk = clocks.get(&format!("{n}$clock")).ok_or_else(no_clock)?;
                let read = format!("        if ({n}$read_enable) begin\n            {n}$read_data <= {n}[{n}$read_address];\n        end\n");
                let lanes = |op: &str, pad: &str| -> String {
                    (0..4)
                        .map(|b| {
                            let (hi, lo) = (8 * b + 7, 8 * b);
                            format!("{pad}if ({n}$write_strobe[{b}]) begin\n{pad}    {n}[{n}$write_address][{hi}:{lo}] {op} {n}$write_data[{hi}:{lo}];\n{pad}end\n")
                        })
                        .collect()
                };
                // Verilator tests the four strobes only when one is set.
                let blocking = format!("        if (|{n}$write_strobe) begin\n{}        end\n", lanes("=", "            "));
                memory_process(o, clk, &read, &blocking, &lanes("<=", "        "));
                continue;
            }
            let rc = clocks.get(&format!("{n}$read_clock")).ok_or_else(no_clock)?;
            let wc = clocks.get(&format!("{n}$write_clock")).ok_or_else(no_clock)?;
            let read = format!("        {n}$read_data <= {n}[{n}$read_address];\n");
            let write = |op: &str| format!("        if ({n}$write_enable) begin\n            {n}[{n}$write_address] {op} {n}$write_data;\n        end\n");
            if rc == wc {
                memory_process(o, rc, &read, &write("="), &write("<="));
            } else {
                // Two clocks: the write stays non-blocking, since the read
                // is another process's.
                let _ = write!(o, "\n    always @(posedge {rc}) begin\n{read}    end\n");
                let _ = write!(o, "\n    always @(posedge {wc}) begin\n{}    end\n", write("<="));
            }
        }
        Ok(())
    }
}

/// A memory's clocked process (one clock): its read, then its write.
///
/// Written twice, under `` `ifdef VERILATOR ``. Verilator gives every
/// non-blocking write into an array a flag it clears and tests every cycle,
/// and a byte-lane memory has four (what that costs a cycle is measured in
/// docs/performance.md), so Verilator gets the write `blocking`. That is the same behaviour: the memory is this process's own
/// (no other process reads or writes it), and its read comes first, so the
/// read still takes the old word on a read-during-write. Synthesis and the
/// other simulators read the template with the `non_blocking` write,
/// unchanged. The one lint waiver it needs (BLKSEQ) is in
/// `hdl/verilator.vlt`.
fn memory_process(o: &mut String, clk: &str, read: &str, blocking: &str, non_blocking: &str) {
    let _ = write!(o, "\n`ifdef VERILATOR\n    always @(posedge {clk}) begin\n{read}{blocking}    end\n`else\n");
    let _ = write!(o, "    always @(posedge {clk}) begin\n{read}{non_blocking}    end\n`endif\n");
}
