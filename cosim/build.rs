//! The Verilator bridge's build step (ARCHITECTURE.md decision 2).
//!
//! For each TPB top in `hdl/generated/<arch>_tpb_top.v`, three builds:
//! untraced, VCD (`--trace`) and FST (`--trace-fst`), each
//! `verilator --cc -O3 --prefix V<arch>[_trace|_fst]`; plus the bridge's own
//! fixture `cosim/fixtures/wide_ports.v` (ports of 1..=200 bits). Then the
//! generated C++ plus a small `extern "C"` shim (written here from the port
//! list Verilator put in the model's header: ports are never typed by hand)
//! are compiled with the `cc` crate into one static library per model. The
//! Verilator runtime is compiled once into its own library. Both are cached
//! in `target/verilator-cache/` (shared by the debug and release profiles)
//! under a stamp of their inputs: editing one top's Verilog rebuilds that
//! top's two models only, never the runtime.
//!
//! Output for `src/verilator.rs`: `OUT_DIR/models.rs`, one `ModelFns` per
//! model (its C entry points and port table) and the list `MODELS`.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

const ARCHS: [&str; 3] = ["sunda", "cayman", "mariana"];
const RUNTIME: [&str; 4] = ["verilated.cpp", "verilated_vcd_c.cpp", "verilated_fst_c.cpp", "verilated_threads.cpp"];

/// How a model is built for tracing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trace {
    Off,
    Vcd,
    Fst,
}

impl Trace {
    fn suffix(self) -> &'static str {
        match self {
            Trace::Off => "",
            Trace::Vcd => "_trace",
            Trace::Fst => "_fst",
        }
    }
    /// The C++ writer class and its header.
    fn writer(self) -> Option<(&'static str, &'static str)> {
        match self {
            Trace::Off => None,
            Trace::Vcd => Some(("VerilatedVcdC", "verilated_vcd_c.h")),
            Trace::Fst => Some(("VerilatedFstC", "verilated_fst_c.h")),
        }
    }
    fn rust(self) -> &'static str {
        match self {
            Trace::Off => "Tracing::Off",
            Trace::Vcd => "Tracing::Vcd",
            Trace::Fst => "Tracing::Fst",
        }
    }
}

/// One Verilog design to verilate: `name` is the model's prefix stem.
struct Design {
    name: String,
    verilog: PathBuf,
    top: String,
    traces: &'static [Trace],
}

struct Port {
    name: String,
    input: bool,
    width: u32,
}

fn fail(msg: String) -> ! {
    panic!("\n\ntpb-cosim build: {msg}\n\n")
}

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output().unwrap_or_else(|e| {
        fail(format!("cannot run `verilator` ({e}): install it with `bash scripts/setup` (Debian: apt-get install verilator)"))
    });
    if !out.status.success() {
        fail(format!("`verilator --getenv VERILATOR_ROOT` failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn stamp_of(parts: &[&[u8]]) -> String {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

/// Build `lib<name>.a` from `files` unless `dir/<name>.stamp` already holds
/// `stamp`. Returns the link line; the caller emits them in dependency order
/// (models before the runtime they call).
fn build_lib(name: &str, dir: &Path, files: &[PathBuf], includes: &[PathBuf], stamp: &str, vcd: bool, fst: bool) -> String {
    let stamp_file = dir.join(format!("{name}.stamp"));
    let lib = dir.join(format!("lib{name}.a"));
    let link = format!("cargo:rustc-link-search=native={}\ncargo:rustc-link-lib=static={name}", dir.display());
    if std::fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp) && lib.exists() {
        return link;
    }
    let mut b = cc::Build::new();
    b.cpp(true).std("c++14").opt_level(2).debug(false).warnings(false).cargo_metadata(false).out_dir(dir);
    for i in includes {
        b.include(i);
    }
    let d = |x: bool| if x { "1" } else { "0" };
    b.define("VM_COVERAGE", "0").define("VM_SC", "0").define("VM_TRACE", d(vcd || fst)).define("VM_TRACE_VCD", d(vcd)).define("VM_TRACE_FST", d(fst));
    for f in files {
        b.file(f);
    }
    b.compile(name);
    std::fs::write(&stamp_file, stamp).unwrap();
    link
}

/// The ports of a Verilated model, read from its header's `VL_IN*/VL_OUT*` lines.
fn ports(header: &Path) -> Vec<Port> {
    let text = std::fs::read_to_string(header).unwrap_or_else(|e| fail(format!("{}: {e}", header.display())));
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
        let msb: u32 = f[1].trim().parse().unwrap_or_else(|_| fail(format!("{}: cannot read port line `{l}`", header.display())));
        let lsb: u32 = f[2].trim().parse().unwrap();
        v.push(Port { name: f[0].to_string(), input, width: msb - lsb + 1 });
    }
    if v.is_empty() {
        fail(format!("{}: no ports found", header.display()));
    }
    v
}

fn shim(prefix: &str, trace: Trace, ports: &[Port]) -> String {
    let traced = trace != Trace::Off;
    let mut s = format!(
        "// GENERATED by cosim/build.rs: the C entry points of {prefix}.\n#include \"{prefix}.h\"\n#include \"verilated.h\"\n"
    );
    if let Some((_, header)) = trace.writer() {
        let _ = writeln!(s, "#include \"{header}\"");
    }
    let _ = write!(
        s,
        r#"#include <cstdint>
namespace {{ struct Model {{ VerilatedContext* ctx; {prefix}* top; void* vcd; }}; }}
extern "C" {{
void* {prefix}_new() {{
    Model* m = new Model;
    m->ctx = new VerilatedContext;
    m->ctx->traceEverOn({traced});
    m->top = new {prefix}(m->ctx, "TOP");
    m->vcd = nullptr;
    return m;
}}
void {prefix}_eval(void* p) {{ static_cast<Model*>(p)->top->eval(); }}
"#
    );
    if let Some((w, _)) = trace.writer() {
        let _ = write!(
            s,
            r#"int {prefix}_trace_open(void* p, const char* path) {{
    Model* m = static_cast<Model*>(p);
    if (m->vcd) return 1;
    {w}* v = new {w};
    m->top->trace(v, 99);
    v->open(path);
    if (!v->isOpen()) {{ delete v; return 2; }}
    m->vcd = v;
    return 0;
}}
void {prefix}_trace_dump(void* p, uint64_t t) {{ Model* m = static_cast<Model*>(p); if (m->vcd) static_cast<{w}*>(m->vcd)->dump(t); }}
void {prefix}_trace_close(void* p) {{
    Model* m = static_cast<Model*>(p);
    if (m->vcd) {{ {w}* v = static_cast<{w}*>(m->vcd); v->close(); delete v; m->vcd = nullptr; }}
}}
"#
        );
    } else {
        let _ = write!(
            s,
            "int {prefix}_trace_open(void*, const char*) {{ return 3; }}\nvoid {prefix}_trace_dump(void*, uint64_t) {{}}\nvoid {prefix}_trace_close(void*) {{}}\n"
        );
    }
    let _ = write!(
        s,
        r#"void {prefix}_delete(void* p) {{
    Model* m = static_cast<Model*>(p);
    {prefix}_trace_close(p);
    m->top->final();
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

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let repo = manifest.parent().unwrap().to_path_buf();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // Compiled models live in the target directory, shared by every profile
    // (OUT_DIR = <target>/<profile>/build/<pkg>/out) and keyed by stamps, so a
    // release build reuses what a debug build compiled.
    let cache = out.ancestors().nth(4).map(|t| t.join("verilator-cache")).unwrap_or_else(|| out.join("verilator-cache"));
    let vlt = repo.join("hdl/verilator.vlt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", vlt.display());
    let root = verilator_root();
    let inc = root.join("include");
    let includes = vec![inc.clone(), inc.join("vltstd")];
    // ---- the runtime, once ----
    let rt_dir = cache.join("verilated_runtime");
    std::fs::create_dir_all(&rt_dir).unwrap();
    let version = Command::new("verilator").arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    let rt_files: Vec<PathBuf> = RUNTIME.iter().map(|f| inc.join(f)).collect();
    let rt_stamp = stamp_of(&[&version, RUNTIME.join(" ").as_bytes()]);
    let runtime_link = build_lib("verilated_runtime", &rt_dir, &rt_files, &includes, &rt_stamp, true, true);
    let mut links = Vec::new();
    // ---- one library per model ----
    let mut designs: Vec<Design> = ARCHS
        .iter()
        .map(|arch| Design {
            name: arch.to_string(),
            verilog: repo.join(format!("hdl/generated/{arch}_tpb_top.v")),
            top: format!("{arch}_tpb_top"),
            traces: &[Trace::Off, Trace::Vcd, Trace::Fst],
        })
        .collect();
    designs.push(Design {
        name: "wide_ports".into(),
        verilog: manifest.join("fixtures/wide_ports.v"),
        top: "wide_ports".into(),
        traces: &[Trace::Off],
    });
    let vlt_text = std::fs::read(&vlt).unwrap();
    let mut rust = String::from("// GENERATED by cosim/build.rs from the Verilated models' port lists.\n");
    let mut all = Vec::new();
    for design in &designs {
        let v = &design.verilog;
        println!("cargo:rerun-if-changed={}", v.display());
        let text = std::fs::read(v).unwrap_or_else(|e| fail(format!("{}: {e} (run `tpb regen`)", v.display())));
        for &trace in design.traces {
            let prefix = format!("V{}{}", design.name, trace.suffix());
            let dir = cache.join(&prefix);
            std::fs::create_dir_all(&dir).unwrap();
            let vstamp = stamp_of(&[&text, &vlt_text, &version, &[trace as u8]]);
            let vstamp_file = dir.join("verilate.stamp");
            let fresh = std::fs::read_to_string(&vstamp_file).ok().as_deref() == Some(vstamp.as_str());
            if !fresh {
                // Stale C++ from an older design must not be compiled in.
                for e in std::fs::read_dir(&dir).unwrap().flatten() {
                    if e.path().extension().is_some_and(|x| x == "cpp" || x == "h") {
                        std::fs::remove_file(e.path()).unwrap();
                    }
                }
                let mut cmd = Command::new("verilator");
                cmd.args(["--cc", "-O3", "--prefix", &prefix, "-Mdir"]).arg(&dir).arg(&vlt).arg(v).args(["--top-module", &design.top]);
                match trace {
                    Trace::Off => {}
                    Trace::Vcd => {
                        cmd.arg("--trace");
                    }
                    Trace::Fst => {
                        cmd.arg("--trace-fst");
                    }
                }
                let o = cmd.output().unwrap_or_else(|e| fail(format!("verilator: {e}")));
                if !o.status.success() {
                    fail(format!("verilator failed on {}:\n{}", v.display(), String::from_utf8_lossy(&o.stderr)));
                }
                std::fs::write(&vstamp_file, &vstamp).unwrap();
            }
            let ports = ports(&dir.join(format!("{prefix}.h")));
            let shim_text = shim(&prefix, trace, &ports);
            std::fs::write(dir.join("shim.cpp"), &shim_text).unwrap();
            let stamp = stamp_of(&[vstamp.as_bytes(), shim_text.as_bytes()]);
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
                .collect();
            files.sort();
            let mut incs = includes.clone();
            incs.push(dir.clone());
            links.push(build_lib(&prefix, &dir, &files, &incs, &stamp, trace == Trace::Vcd, trace == Trace::Fst));
            let _ = writeln!(
                rust,
                "extern \"C\" {{ fn {prefix}_new() -> *mut c_void; fn {prefix}_delete(m: *mut c_void); fn {prefix}_eval(m: *mut c_void); fn {prefix}_ports(m: *mut c_void, out: *mut *mut c_void); fn {prefix}_trace_open(m: *mut c_void, path: *const c_char) -> c_int; fn {prefix}_trace_dump(m: *mut c_void, t: u64); fn {prefix}_trace_close(m: *mut c_void); }}"
            );
            let stat = prefix.to_uppercase();
            let _ = writeln!(
                rust,
                "pub(crate) static {stat}: ModelFns = ModelFns {{ name: \"{prefix}\", design: \"{}\", tracing: {}, new: {prefix}_new, delete: {prefix}_delete, eval: {prefix}_eval, ports_fn: {prefix}_ports, trace_open: {prefix}_trace_open, trace_dump: {prefix}_trace_dump, trace_close: {prefix}_trace_close, ports: &[",
                design.name,
                trace.rust()
            );
            for p in &ports {
                let _ = writeln!(rust, "    PortInfo {{ name: \"{}\", input: {}, width: {} }},", p.name.replace("__024", "$"), p.input, p.width);
            }
            rust += "] };\n";
            all.push(stat);
        }
    }
    let _ = writeln!(rust, "pub(crate) static MODELS: &[&ModelFns] = &[{}];", all.iter().map(|s| format!("&{s}")).collect::<Vec<_>>().join(", "));
    for l in links.iter().chain([&runtime_link]) {
        println!("{l}");
    }
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=z");
    std::fs::write(out.join("models.rs"), rust).unwrap();
}
