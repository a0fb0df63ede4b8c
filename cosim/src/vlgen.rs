//! What turns a TPB top's Verilog into a Verilated model, shared by
//! `build.rs` (the models compiled into the crate) and [`crate::vlbuild`]
//! (a model built at run time, e.g. the previous emission for `tpb bench
//! --before`): the sim-only probe wrapper, Verilator's arguments, the C shim
//! written from the model's port list, and how the generated C++ splits into
//! hot code and the `__Slow` code that runs once.
//!
//! This file is compiled twice (as a module of `build.rs` and of the
//! library), so it uses nothing but `std`.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::Path;

/// The behavioural cores the co-simulation probes (`tpb_cosim::sched::CoreId` order).
pub const PROBED_CORES: [&str; 11] = ["q7_0", "q7_1", "q7_2", "q7_3", "q7_4", "q7_5", "q7_6", "q7_7", "seq", "top_sp", "ncfw"];

/// The Verilator runtime sources every model links (compiled once).
pub const RUNTIME: [&str; 3] = ["verilated.cpp", "verilated_vcd_c.cpp", "verilated_threads.cpp"];
/// The runtime file a coverage build adds.
pub const RUNTIME_COVERAGE: &str = "verilated_cov.cpp";
/// The runtime file a model that writes FST itself links instead of the VCD writer.
pub const RUNTIME_FST: &str = "verilated_fst_c.cpp";
/// Verilator's arguments for a model that writes FST itself (instead of
/// `--trace`): the FST writer's compression runs on a thread of its own,
/// beside the simulation.
pub const FST_ARGS: [&str; 3] = ["--trace-fst", "--trace-threads", "1"];
/// How many dumps (two a cycle) an FST-writing model buffers before its
/// writer thread encodes them (`[D]`): 8,192 cycles a block.
pub const FST_FLUSH_DUMPS: u64 = 16_384;

/// How deep a traced model traces (`--trace-depth`, `[D]`): 2 levels, the
/// probe wrapper (the top's ports, each core's probes, the host's
/// transaction) and the TPB top's own signals, which hold every block's
/// ports as the wires between blocks. The inside of a block (its
/// registers and intermediate wires) is traced only by a model built
/// without the limit (`tpb sim --trace-internals`, [`without_trace_depth`]).
/// Why: Verilator compares every traced signal at each dump, so a trace of
/// everything (1,981 signals on CAYMAN) costs more than the simulation;
/// these 2 levels (824) keep a full VCD under twice the untraced time
/// (docs/performance.md, "Traces of two levels").
pub const TRACE_DEPTH: u32 = 2;

/// Why a design's ports could not be read (no `thiserror`: this file is
/// also compiled into `build.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VlGenError {
    /// The Verilog has no such module.
    NoModule(String),
    /// A Verilated header could not be read.
    Read { file: String, why: String },
    /// A port line of a Verilated header that does not parse.
    PortLine { file: String, line: String },
    /// A Verilated header without ports.
    NoPorts(String),
}

impl std::fmt::Display for VlGenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VlGenError::NoModule(m) => write!(f, "no module {m}"),
            VlGenError::Read { file, why } => write!(f, "{file}: {why}"),
            VlGenError::PortLine { file, line } => write!(f, "{file}: cannot read port line `{line}`"),
            VlGenError::NoPorts(file) => write!(f, "{file}: no ports found"),
        }
    }
}

impl std::error::Error for VlGenError {}

/// `(input, range, name)` of each port of `module` in `text`: the lean
/// emitter's ANSI port list (`    input wire [31:0] name,`) or rust-hdl's
/// declarations (`input wire  [31:0] name;`).
pub fn verilog_ports(text: &str, module: &str) -> Result<Vec<(bool, String, String)>, VlGenError> {
    let start = text.find(&format!("module {module}(")).or_else(|| text.find(&format!("module {module} ("))).ok_or_else(|| VlGenError::NoModule(module.to_string()))?;
    let body = &text[start..];
    let body = &body[..body.find("endmodule").unwrap_or(body.len())];
    let mut v = Vec::new();
    for l in body.lines().map(str::trim) {
        let (input, rest) = if let Some(r) = l.strip_prefix("input wire") {
            (true, r)
        } else if let Some(r) = l.strip_prefix("output reg").or_else(|| l.strip_prefix("output wire")) {
            (false, r)
        } else {
            continue;
        };
        let rest = rest.trim().trim_end_matches([';', ',']);
        let (range, name) = match rest.rsplit_once(' ') {
            Some((r, n)) => (r.trim().to_string(), n.to_string()),
            None => (String::new(), rest.to_string()),
        };
        v.push((input, range, name));
    }
    Ok(v)
}

/// The sim-only wrapper `<stem>_sim_top` of `top` (ports from `top_text`).
/// Each probe module folds its inputs into a byte that reaches the wrapper's
/// `probe_seen` output, sampled at the rising edge: a signal that is used
/// (here one bit of each) is kept whole, so each core's scope in the trace
/// holds its `pc`, `insn` and `state`, at the cost of a few operations per
/// cycle. (`verilator public` would keep them too, but Verilator 5.006 then
/// deadlocks in the model's destructor.)
///
/// With `sampled`, the top's inputs (all but the clock) reach it through
/// copies the wrapper takes on each edge of its `sample` input, which the
/// `Dut` toggles when it drives a cycle's inputs. Verilator evaluates the
/// logic that depends only on ports on every evaluation (its "input
/// combinational" region runs whatever changed); logic behind these copies
/// is evaluated when they change, once per cycle, instead of at both the
/// input evaluation and the clock edge. The top sees the same values at the
/// same time.
pub fn sim_top(stem: &str, top: &str, top_text: &str, source: &Path, sampled: bool) -> Result<String, VlGenError> {
    let ports = verilog_ports(top_text, top)?;
    let mut s = format!(
        "// GENERATED by cosim/src/vlgen.rs from the ports of {}: the sim-only probe wrapper of {top}.\n// Not for synthesis: the probe inputs are driven by the co-simulation and only traced.\n`timescale 1ns/1ps\n/* verilator lint_off UNUSEDSIGNAL */\nmodule {stem}_sim_core_probe(input wire [31:0] pc, input wire [23:0] insn, input wire [2:0] state, output wire seen);\n    assign seen = pc[0] ^ insn[0] ^ state[0];\nendmodule\n\nmodule {stem}_sim_top(\n",
        source.display()
    );
    let mut decls: Vec<String> = ports.iter().map(|(i, r, n)| format!("    {} {} {n}", if *i { "input wire" } else { "output wire" }, r)).collect();
    decls.push("    output reg probe_seen".into());
    if sampled {
        decls.push("    input wire sample".into());
    }
    decls.push("    input wire [31:0] probe_hal_txn".into());
    decls.push("    input wire [2:0] probe_hal_kind".into());
    for c in PROBED_CORES {
        decls.push(format!("    input wire [31:0] probe_{c}_pc"));
        decls.push(format!("    input wire [23:0] probe_{c}_insn"));
        decls.push(format!("    input wire [2:0] probe_{c}_state"));
    }
    s += &decls.join(",\n");
    s += "\n);\n";
    let held = |i: bool, n: &str| sampled && i && n != "clock";
    if sampled {
        for (i, r, n) in &ports {
            if held(*i, n) {
                let _ = writeln!(s, "    reg {r} {n}_s;");
            }
        }
        s += "    always @(posedge sample or negedge sample) begin\n";
        for (i, _, n) in &ports {
            if held(*i, n) {
                let _ = writeln!(s, "        {n}_s <= {n};");
            }
        }
        s += "    end\n";
    }
    let conns: Vec<String> = ports.iter().map(|(i, _, n)| if held(*i, n) { format!("        .{n}({n}_s)") } else { format!("        .{n}({n})") }).collect();
    let _ = write!(s, "    {top} tpb (\n{}\n    );\n", conns.join(",\n"));
    let _ = writeln!(s, "    wire seen_hal;");
    let _ = writeln!(s, "    {stem}_sim_hal_probe hal (.txn(probe_hal_txn), .kind(probe_hal_kind), .seen(seen_hal));");
    for c in PROBED_CORES {
        let _ = writeln!(s, "    wire seen_{c};");
        let _ = writeln!(s, "    {stem}_sim_core_probe {c} (.pc(probe_{c}_pc), .insn(probe_{c}_insn), .state(probe_{c}_state), .seen(seen_{c}));");
    }
    let all: Vec<String> = std::iter::once("seen_hal".to_string()).chain(PROBED_CORES.iter().map(|c| format!("seen_{c}"))).collect();
    let _ = writeln!(s, "    always @(posedge clock) probe_seen <= {};", all.join(" ^ "));
    s += "endmodule\n\n";
    let _ = write!(s, "module {stem}_sim_hal_probe(input wire [31:0] txn, input wire [2:0] kind, output wire seen);\n    assign seen = txn[0] ^ kind[0];\nendmodule\n/* verilator lint_on UNUSEDSIGNAL */\n");
    Ok(s)
}

/// Is `port` one of the sim-only wrapper's own ports (probes, `sample`),
/// not a port of the top?
pub fn is_wrapper_port(port: &str) -> bool {
    port.starts_with("probe_") || port == "sample"
}

/// Verilator's arguments for a model (`--cc`, optimised, zero-initialised:
/// every register has a power-on value and every memory starts at 0, which
/// the co-simulation relies on; `--trace` when traced, [`TRACE_DEPTH`]
/// levels deep). The caller adds the configuration file, the sources and
/// `--top-module`.
pub fn verilator_args(prefix: &str, traced: bool) -> Vec<String> {
    let mut v: Vec<String> = ["--cc", "-O3", "--x-assign", "fast", "--x-initial", "0", "--prefix", prefix].iter().map(|s| s.to_string()).collect();
    if traced {
        v.push("--trace".into());
        v.extend(trace_depth_args(TRACE_DEPTH));
    }
    v
}

/// Verilator's arguments for tracing `depth` levels deep.
pub fn trace_depth_args(depth: u32) -> [String; 2] {
    ["--trace-depth".into(), depth.to_string()]
}

/// `args` without a depth limit: the model traces every level.
pub fn without_trace_depth(args: &[String]) -> Vec<String> {
    let mut v = Vec::with_capacity(args.len());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--trace-depth" {
            it.next();
        } else {
            v.push(a.clone());
        }
    }
    v
}

/// The g++ optimisation level of the code that runs once ([`is_slow`]): it
/// is most of the C++ of a coverage model (a `VL_COVER_INSERT` per point),
/// whose build it cuts from 382 s to about 60 s on 2 cores, and none of the
/// cycle's time.
pub const SLOW_OPT_LEVEL: u32 = 0;

/// Is this generated C++ file code that runs once (constructors, initial
/// values, trace declarations, coverage points)? It is compiled at
/// [`SLOW_OPT_LEVEL`].
pub fn is_slow(file: &Path) -> bool {
    file.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains("__Slow") || n.ends_with("__Syms.cpp"))
}

/// The function of the model's constructor that resets every variable,
/// memories word by word.
const VAR_RESET: &str = "___ctor_var_reset(";

/// Is `file` (its text `text`) compiled at [`SLOW_OPT_LEVEL`] in the
/// crate's own models (`build.rs`)? The code that runs once ([`is_slow`]),
/// less the file that defines the constructor's reset of every variable:
/// that runs once a model, so once a die, and resets every memory word
/// through a call at `-O0` (CAYMAN: 834k words, 18M instructions a model;
/// 1.3M at `-O2`, which a 16-die run pays 16 times). The models `vlbuild`
/// builds on demand run one system and keep it at the slow level.
pub fn compiled_slow(file: &Path, text: &str) -> bool {
    is_slow(file) && !text.lines().any(|l| l.contains(VAR_RESET) && l.trim_end().ends_with('{'))
}

/// The header of a traced model's trace writer: Verilator's FST writer
/// (`fst`) or its VCD writer.
pub fn writer_header(fst: bool) -> &'static str {
    if fst {
        "verilated_fst_c.h"
    } else {
        "verilated_vcd_c.h"
    }
}

/// The header a model's generated files are compiled against precompiled
/// (`g++ -include`, with its `.gch` beside it): the Verilator runtime's
/// headers those files include, and the trace writer's or coverage's when
/// the model has them. Each file then skips their parse, which was about a
/// quarter of a model's g++ time (docs/verilator.md, "Precompiled runtime
/// headers"). The model's own headers are not in it, so one precompiled
/// header serves every model built with the same flags.
pub fn pch_header(traced: bool, fst: bool, coverage: bool) -> String {
    let mut s = String::from("// GENERATED by cosim/src/vlgen.rs: the Verilator headers a model's C++ is compiled against, precompiled.\n#include \"verilated.h\"\n");
    if traced {
        s += &format!("#include \"{}\"\n", writer_header(fst));
    }
    if coverage {
        s += "#include \"verilated_cov.h\"\n";
    }
    s
}

/// One port of a Verilated model.
pub struct Port {
    pub name: String,
    pub input: bool,
    pub width: u32,
}

/// The ports of a Verilated model, read from its header's `VL_IN*/VL_OUT*` lines.
pub fn header_ports(header: &Path) -> Result<Vec<Port>, VlGenError> {
    let text = std::fs::read_to_string(header).map_err(|e| VlGenError::Read { file: header.display().to_string(), why: e.to_string() })?;
    let mut v = Vec::new();
    for l in text.lines() {
        let l = l.trim();
        let (input, rest) = if let Some(r) = l.strip_prefix("VL_IN") {
            (true, r)
        } else if let Some(r) = l.strip_prefix("VL_OUT") {
            (false, r)
        } else {
            continue;
        };
        let Some(args) = rest.split_once("(&").map(|x| x.1.trim_end_matches(");")) else { continue };
        let f: Vec<&str> = args.split(',').collect();
        let bad = || VlGenError::PortLine { file: header.display().to_string(), line: l.to_string() };
        let msb: u32 = f.get(1).and_then(|x| x.trim().parse().ok()).ok_or_else(bad)?;
        let lsb: u32 = f.get(2).and_then(|x| x.trim().parse().ok()).ok_or_else(bad)?;
        v.push(Port { name: f[0].to_string(), input, width: msb - lsb + 1 });
    }
    if v.is_empty() {
        return Err(VlGenError::NoPorts(header.display().to_string()));
    }
    Ok(v)
}

/// The C entry points of model `prefix`: new, eval, delete, the port
/// pointers, and (models built with tracing) a trace writer, VCD or (`fst`)
/// FST, opened and closed at run time (the close returns the errno of the
/// first write that failed, or 0). A model built with coverage (`coverage`, Verilator's
/// `--coverage-*`) also has `<prefix>_coverage_to(path)`: from then on each
/// model, when deleted, writes its coverage to `path.<n>.dat` (n counts the
/// models), for `verilator_coverage` to merge.
pub fn shim(prefix: &str, traced: bool, fst: bool, coverage: bool, ports: &[Port]) -> String {
    let mut s = format!("// GENERATED by cosim/src/vlgen.rs: the C entry points of {prefix}.\n#include \"{prefix}.h\"\n#include \"verilated.h\"\n");
    // The trace writer: Verilator's VCD writer, or (`fst`) its FST writer.
    let writer = if fst { "VerilatedFstC" } else { "VerilatedVcdC" };
    // An FST writer hands its buffered changes to its thread only when asked
    // (or past 128 MB): asked every FST_FLUSH_DUMPS dumps, it encodes them
    // while the simulation goes on, instead of all of them at the close.
    // GTKWave's writer (fstapi.c, parallel mode) copies its state for a
    // block before it waits for the previous block's thread, so a block
    // asked for before that thread holds the writer's lock is written with
    // stale offsets: a corrupt file, seen under load. So a block is asked
    // for only once the file has grown past its size just after the
    // previous block's thread was made (that thread writes only under the
    // lock, and its predecessor had finished by then); until then the ask
    // waits (the file is looked at every 64 dumps), and a block that never
    // shows is left to the close.
    let flush = if fst {
        format!(
            r#"
    ++m->dumps;
    if (m->flush_made) {{ m->flush_made = false; m->flush_size = file_size(m->path); }}
    else if (m->dumps >= m->next_flush && (m->dumps & 63) == 0 && (m->flush_size < 0 || file_size(m->path) > m->flush_size)) {{
        v->flush(); m->flush_made = true; m->next_flush = m->dumps + {FST_FLUSH_DUMPS}; }}"#
        )
    } else {
        String::new()
    };
    // The close copies the writer's state as a block does: it waits, as the
    // next block would, for the last block's thread to hold the lock (at
    // most 2 s by the clock: a thread that finished before its size was
    // taken shows no growth, nor does a file on a full disk; counted in
    // sleeps, the wait took 4 s, each 100 us sleep overshooting).
    let close_wait = if fst {
        "\n        if (!m->flush_made && m->flush_size >= 0) { const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);\n            while (file_size(m->path) <= m->flush_size && std::chrono::steady_clock::now() < until) usleep(100); }\n       "
    } else {
        ""
    };
    // A VCD writer writes through a TraceFile (vlgen/trace_file.hpp), which
    // the model owns beside it: the first write that fails (a full disk) is
    // the close's result, an errno, instead of Verilator's fatal error.
    let (new_writer, delete_file, close_file) = if fst {
        (format!("{writer}* v = new {writer};"), "", "")
    } else {
        (
            format!("TraceFile* f = new TraceFile;\n    {writer}* v = new {writer}(f);\n    m->file = f;"),
            " delete f; m->file = nullptr;",
            "\n    if (m->file) { TraceFile* f = static_cast<TraceFile*>(m->file); err = f->error(); delete f; m->file = nullptr; }",
        )
    };
    if traced {
        s += &format!("#include \"{}\"\n", writer_header(fst));
        if fst {
            // The close's wait is bounded by the clock.
            s += "#include <chrono>\n";
        } else {
            s += TRACE_FILE;
        }
    }
    let _ = write!(
        s,
        r#"#include <cstdint>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
namespace {{
struct Model {{
    VerilatedContext* ctx; {prefix}* top; void* vcd; void* file; std::string path;
    // FST blocks (see vlgen.rs): dumps so far, the dump the next block is due at,
    // the trace file's size after the last block's thread was made (-1: none yet).
    uint64_t dumps; uint64_t next_flush; long long flush_size; bool flush_made;
}};
long long file_size(const std::string& path) {{ struct stat st; return stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1; }}
}}
extern "C" {{
void* {prefix}_new() {{
    Model* m = new Model;
    m->ctx = new VerilatedContext;
    m->ctx->traceEverOn({traced});
    m->top = new {prefix}(m->ctx, "TOP");
    m->vcd = nullptr;
    m->file = nullptr;
    return m;
}}
void {prefix}_eval(void* p) {{ static_cast<Model*>(p)->top->eval(); }}
"#
    );
    if traced {
        let _ = write!(
            s,
            r#"int {prefix}_trace_open(void* p, const char* path, const char* only) {{
    Model* m = static_cast<Model*>(p);
    if (m->vcd) return 1;
    {new_writer}
    // `only`: newline-separated full signal names (TOP.req_valid); the
    // rest are declared out of the file and never written. Empty: all.
    for (const char* a = only; a && *a;) {{
        const char* e = a;
        while (*e && *e != '\n') ++e;
        v->dumpvars(1, std::string(a, e));
        a = *e ? e + 1 : e;
    }}
    m->top->trace(v, 99);
    v->open(path);
    if (!v->isOpen()) {{ delete v;{delete_file} return 2; }}
    m->vcd = v;
    m->path = path;
    m->dumps = 0;
    m->next_flush = {FST_FLUSH_DUMPS};
    m->flush_size = -1;
    m->flush_made = false;
    return 0;
}}
void {prefix}_trace_dump(void* p, uint64_t t) {{
    Model* m = static_cast<Model*>(p);
    if (!m->vcd) return;
    {writer}* v = static_cast<{writer}*>(m->vcd);
    v->dump(t);{flush}
}}
int {prefix}_trace_close(void* p) {{
    Model* m = static_cast<Model*>(p);
    if (m->vcd) {{ {writer}* v = static_cast<{writer}*>(m->vcd);{close_wait} v->close(); delete v; m->vcd = nullptr; }}
    int err = 0;{close_file}
    return err;
}}
"#
        );
    } else {
        let _ = write!(
            s,
            "int {prefix}_trace_open(void*, const char*, const char*) {{ return 3; }}\nvoid {prefix}_trace_dump(void*, uint64_t) {{}}\nint {prefix}_trace_close(void*) {{ return 0; }}\n"
        );
    }
    if coverage {
        let _ = write!(
            s,
            r#"static std::string {prefix}_cov_path;
static int {prefix}_cov_n = 0;
void {prefix}_coverage_to(const char* path) {{ {prefix}_cov_path = path; {prefix}_cov_n = 0; }}
"#
        );
    }
    let cov_write = if coverage {
        format!("    if (!{prefix}_cov_path.empty()) m->ctx->coveragep()->write(({prefix}_cov_path + \".\" + std::to_string({prefix}_cov_n++) + \".dat\").c_str());\n")
    } else {
        String::new()
    };
    let _ = write!(
        s,
        r#"void {prefix}_delete(void* p) {{
    Model* m = static_cast<Model*>(p);
    {prefix}_trace_close(p);
    m->top->final();
{cov_write}
    delete m->top;
    delete m->ctx;
    delete m;
}}
void {prefix}_ports(void* p, void** out) {{
    {prefix}* t = static_cast<Model*>(p)->top;
"#
    );
    for (i, port) in ports.iter().enumerate() {
        let _ = writeln!(s, "    out[{i}] = (void*)&t->{};", port.name);
    }
    s += "}\n}\n";
    s
}

/// The C++ of the file a VCD-writing model's trace goes to (a failed write
/// told at the close, not a hang), embedded in the shim.
const TRACE_FILE: &str = include_str!("vlgen/trace_file.hpp");

/// A port name as the design spells it (`$` is `__024` in Verilator's C++).
pub fn port_name(c_name: &str) -> String {
    c_name.replace("__024", "$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constructors_reset_is_compiled_with_the_cycles_code_and_the_rest_of_the_run_once_code_slow() {
        let reset = "VL_ATTR_COLD void Vcayman___024root___ctor_var_reset(Vcayman___024root* vlSelf) {\n    vlSelf->clock = 0;\n}\n";
        let calls = "void Vcayman___024root___ctor_var_reset(Vcayman___024root* vlSelf);\n    Vcayman___024root___ctor_var_reset(this);\n";
        let slow = Path::new("Vcayman___024root__DepSet_hdb45efd5__1__Slow.cpp");
        assert!(!compiled_slow(slow, reset), "the file that defines the reset");
        assert!(compiled_slow(slow, calls), "a file that only declares or calls it");
        assert!(compiled_slow(Path::new("Vcayman__Syms.cpp"), ""));
        assert!(!compiled_slow(Path::new("Vcayman___024root__DepSet_hdb45efd5__2.cpp"), ""), "the cycle's code");
    }
}
