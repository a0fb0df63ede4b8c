//! The Verilator bridge's build step (docs/decisions/README.md, decision 2).
//!
//! One model per generation: `hdl/generated/<arch>_tpb_top.v` inside its
//! sim-only probe wrapper (`vlgen::sim_top`: each behavioural core's PC,
//! instruction word and state, the host's BAR0 transaction), verilated
//! `--trace` (tracing compiled in, off until a trace is opened: VCD, and FST
//! converted from it), plus the bridge's own fixture
//! `cosim/fixtures/wide_ports.v` (ports of 1..=200 bits, untraced; the
//! serial-link simulation's prototype is built at run time, `src/serial.rs`). The
//! generated C++ and a small `extern "C"` shim (written from the port list
//! Verilator put in the model's header: ports are never typed by hand) are
//! compiled with the `cc` crate (c++17; the `__Slow` files, which run once,
//! at -O0; parallel as `CARGO_BUILD_JOBS` allows). The Verilator runtime is
//! compiled once into its own library. Everything is cached in
//! `target/verilator-cache/` (shared by the debug and release profiles)
//! under a stamp of its inputs: editing one top's Verilog rebuilds that
//! top's model only, never the runtime.
//!
//! Output for `src/verilator.rs`: `OUT_DIR/models.rs`, one `ModelFns` per
//! model (its C entry points and port table) and the list `MODELS`.

#[path = "src/vlgen.rs"]
mod vlgen;

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

const ARCHS: [&str; 3] = ["sunda", "cayman", "mariana"];

/// One Verilog design to verilate: `name` is the model's prefix stem.
struct Design {
    name: String,
    verilog: PathBuf,
    top: String,
    traced: bool,
    /// Wrap the top in the sim-only probe wrapper.
    probes: bool,
}

fn fail(msg: String) -> ! {
    panic!("\n\ntpb-cosim build: {msg}\n\n")
}

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator")
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output()
        .unwrap_or_else(|e| fail(format!("cannot run `verilator` ({e}): install it with `bash scripts/setup` (Debian: apt-get install verilator)")));
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

/// One static library of C++ for the link: a model's or the runtime's.
struct Lib<'a> {
    name: &'a str,
    dir: &'a Path,
    /// Compiled at -O2.
    fast: &'a [PathBuf],
    /// Code that runs once, at `vlgen::SLOW_OPT_LEVEL`.
    slow: &'a [PathBuf],
    /// Its inputs' stamp: the library is built again when it changes.
    stamp: &'a str,
    traced: bool,
}

/// Build `lib<name>.a` unless `dir/<name>.stamp` already holds its stamp,
/// its files compiled against `pch`'s header where given. Returns the link
/// line; the caller emits them in dependency order (models before the
/// runtime they call).
fn build_lib(lib: &Lib, includes: &[PathBuf], pch: Option<&Pch<'_>>) -> String {
    let Lib { name, dir, fast, slow, stamp, traced } = *lib;
    let stamp_file = dir.join(format!("{name}.stamp"));
    let lib = dir.join(format!("lib{name}.a"));
    let link = format!("cargo:rustc-link-search=native={}\ncargo:rustc-link-lib=static={name}", dir.display());
    if std::fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp) && lib.exists() {
        return link;
    }
    let build = |opt: u32, out: &Path| {
        let mut b = cc::Build::new();
        // c++17: under c++14 `new` ignores the model root's alignas(64).
        b.cpp(true).std("c++17").opt_level(opt).debug(false).warnings(false).cargo_metadata(false).out_dir(out);
        for i in includes {
            b.include(i);
        }
        let d = |x: bool| if x { "1" } else { "0" };
        b.define("VM_COVERAGE", "0").define("VM_SC", "0").define("VM_TRACE", d(traced)).define("VM_TRACE_VCD", d(traced)).define("VM_TRACE_FST", "0");
        if let Some(p) = pch {
            let header = p.precompiled(&b, traced);
            // A `.gch` g++ finds but cannot use (flags that differ) fails the build instead of slowing it.
            b.flag("-include").flag(header.to_str().unwrap()).flag("-Werror=invalid-pch");
        }
        b
    };
    let mut objects = Vec::new();
    if !slow.is_empty() {
        let slow_dir = dir.join("slow");
        std::fs::create_dir_all(&slow_dir).unwrap();
        let mut b = build(vlgen::SLOW_OPT_LEVEL, &slow_dir);
        b.files(slow);
        objects = b.compile_intermediates();
    }
    let mut b = build(2, dir);
    b.files(fast).objects(&objects);
    b.compile(name);
    std::fs::write(&stamp_file, stamp).unwrap();
    link
}

/// The models' precompiled runtime headers: [`vlgen::pch_header`] compiled
/// with a model library's own compiler and flags, kept in
/// `root/<hash of them, the header and Verilator's version>/`, so that the
/// three generations' models (and a model rebuilt after a Verilog edit)
/// parse the Verilator headers once per optimisation level, not once per
/// file (docs/verilator.md, "Precompiled runtime headers").
struct Pch<'a> {
    root: PathBuf,
    /// `verilator --version`: a new Verilator's headers make a new header.
    verilator: &'a [u8],
}

impl Pch<'_> {
    /// The header to `-include` for `b`'s flags, its `.gch` made if missing.
    fn precompiled(&self, b: &cc::Build, traced: bool) -> PathBuf {
        let tool = b.get_compiler();
        let args: Vec<&std::ffi::OsStr> = tool.args().iter().map(|a| a.as_os_str()).collect();
        let text = vlgen::pch_header(traced, false, false);
        let line = format!("{} {args:?}", tool.path().display());
        let dir = self.root.join(stamp_of(&[line.as_bytes(), text.as_bytes(), self.verilator]));
        let (header, gch) = (dir.join("pch.h"), dir.join("pch.h.gch"));
        if gch.exists() {
            return header;
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&header, &text).unwrap();
        // Made under another name and renamed: a debug and a release build may make it at once.
        let tmp = dir.join(format!("pch.h.gch.{}", std::process::id()));
        let o = Command::new(tool.path())
            .args(&args)
            .args(["-x", "c++-header"])
            .arg(&header)
            .arg("-o")
            .arg(&tmp)
            .output()
            .unwrap_or_else(|e| fail(format!("{}: {e}", tool.path().display())));
        if !o.status.success() {
            fail(format!("precompiling {}:\n{}", header.display(), String::from_utf8_lossy(&o.stderr)));
        }
        std::fs::rename(&tmp, &gch).unwrap();
        header
    }
}

/// `scenario::BUILTIN`: every `scenarios/*.toml`, by file name, so that a
/// new built-in scenario is its file alone.
fn builtin_scenarios(dir: &std::path::Path, out: &std::path::Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    files.sort();
    let mut s = String::from("// GENERATED by cosim/build.rs from cosim/scenarios/*.toml.\n&[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        s += &format!("    ({:?}, include_str!({:?})),\n", f.file_name().unwrap().to_string_lossy(), f.display().to_string());
    }
    s += "]\n";
    std::fs::write(out.join("builtin_scenarios.rs"), s).unwrap();
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
    builtin_scenarios(&manifest.join("scenarios"), &out);
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/vlgen.rs");
    println!("cargo:rerun-if-changed={}", vlt.display());
    let root = verilator_root();
    let inc = root.join("include");
    let includes = vec![inc.clone(), inc.join("vltstd")];
    // ---- the runtime, once ----
    let rt_dir = cache.join("verilated_runtime_v2");
    std::fs::create_dir_all(&rt_dir).unwrap();
    let version = Command::new("verilator").arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    let rt_files: Vec<PathBuf> = vlgen::RUNTIME.iter().map(|f| inc.join(f)).collect();
    let rt_stamp = stamp_of(&[&version, vlgen::RUNTIME.join(" ").as_bytes(), b"c++17 -O2"]);
    let runtime = Lib { name: "verilated_runtime", dir: &rt_dir, fast: &rt_files, slow: &[], stamp: &rt_stamp, traced: true };
    let runtime_link = build_lib(&runtime, &includes, None);
    let pch = Pch { root: cache.join("pch"), verilator: &version };
    let mut links = Vec::new();
    // ---- one library pair per model ----
    let mut designs: Vec<Design> = ARCHS
        .iter()
        .map(|arch| Design { name: arch.to_string(), verilog: repo.join(format!("hdl/generated/{arch}_tpb_top.v")), top: format!("{arch}_tpb_top"), traced: true, probes: true })
        .collect();
    designs.push(Design { name: "wide_ports".into(), verilog: manifest.join("fixtures/wide_ports.v"), top: "wide_ports".into(), traced: false, probes: false });
    let vlt_text = std::fs::read(&vlt).unwrap();
    let mut rust = String::from("// GENERATED by cosim/build.rs from the Verilated models' port lists.\n");
    let mut all = Vec::new();
    for design in &designs {
        let v = &design.verilog;
        println!("cargo:rerun-if-changed={}", v.display());
        let text = std::fs::read(v).unwrap_or_else(|e| fail(format!("{}: {e} (run `tpb regen`)", v.display())));
        let prefix = format!("V{}", design.name);
        let dir = cache.join(&prefix);
        std::fs::create_dir_all(&dir).unwrap();
        let rel = v.strip_prefix(&repo).unwrap_or(v);
        let wrapper =
            design.probes.then(|| vlgen::sim_top(&design.name, &design.top, &String::from_utf8_lossy(&text), rel, true).unwrap_or_else(|e| fail(format!("{}: {e}", v.display()))));
        let args = vlgen::verilator_args(&prefix, design.traced);
        let vstamp = stamp_of(&[&text, &vlt_text, &version, args.join(" ").as_bytes(), wrapper.as_deref().unwrap_or("").as_bytes()]);
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
            cmd.args(&args).arg("-Mdir").arg(&dir).arg(&vlt).arg(v);
            match &wrapper {
                Some(w) => {
                    let wv = dir.join(format!("{}_sim_top.v", design.name));
                    std::fs::write(&wv, w).unwrap();
                    cmd.arg(&wv).args(["--top-module", &format!("{}_sim_top", design.name)]);
                }
                None => {
                    cmd.args(["--top-module", &design.top]);
                }
            }
            let o = cmd.output().unwrap_or_else(|e| fail(format!("verilator: {e}")));
            if !o.status.success() {
                fail(format!("verilator failed on {}:\n{}", v.display(), String::from_utf8_lossy(&o.stderr)));
            }
            std::fs::write(&vstamp_file, &vstamp).unwrap();
        }
        let ports = vlgen::header_ports(&dir.join(format!("{prefix}.h"))).unwrap_or_else(|e| fail(e.to_string()));
        let shim_text = vlgen::shim(&prefix, design.traced, false, false, &ports);
        std::fs::write(dir.join("shim.cpp"), &shim_text).unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "cpp")).collect();
        files.sort();
        let (slow, fast): (Vec<PathBuf>, Vec<PathBuf>) = files.into_iter().partition(|f| vlgen::compiled_slow(f, &std::fs::read_to_string(f).unwrap_or_default()));
        // The model's own headers are found beside its sources (`#include "…"`),
        // so its flags are every model's and the precompiled headers are shared.
        let stamp = stamp_of(&[vstamp.as_bytes(), shim_text.as_bytes(), b"c++17 pch, var reset fast"]);
        // The untraced fixture is two files: precompiling for it would cost more than it saves.
        let lib = Lib { name: &prefix, dir: &dir, fast: &fast, slow: &slow, stamp: &stamp, traced: design.traced };
        links.push(build_lib(&lib, &includes, design.traced.then_some(&pch)));
        let _ = writeln!(
            rust,
            "extern \"C\" {{ fn {prefix}_new() -> *mut c_void; fn {prefix}_delete(m: *mut c_void); fn {prefix}_eval(m: *mut c_void); fn {prefix}_ports(m: *mut c_void, out: *mut *mut c_void); fn {prefix}_trace_open(m: *mut c_void, path: *const c_char, only: *const c_char) -> c_int; fn {prefix}_trace_dump(m: *mut c_void, t: u64); fn {prefix}_trace_close(m: *mut c_void) -> c_int; }}"
        );
        let stat = prefix.to_uppercase();
        let _ = writeln!(
            rust,
            "pub(crate) static {stat}: ModelFns = ModelFns {{ name: \"{prefix}\", design: \"{}\", traced: {}, fst: false, new: {prefix}_new, delete: {prefix}_delete, eval: {prefix}_eval, ports_fn: {prefix}_ports, trace_open: {prefix}_trace_open, trace_dump: {prefix}_trace_dump, trace_close: {prefix}_trace_close, ports: &[",
            design.name, design.traced
        );
        for p in &ports {
            let _ = writeln!(rust, "    PortInfo {{ name: \"{}\", input: {}, width: {} }},", vlgen::port_name(&p.name), p.input, p.width);
        }
        rust += "] };\n";
        all.push(stat);
    }
    let _ = writeln!(rust, "pub(crate) static MODELS: &[&ModelFns] = &[{}];", all.iter().map(|s| format!("&{s}")).collect::<Vec<_>>().join(", "));
    for l in links.iter().chain([&runtime_link]) {
        println!("{l}");
    }
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");
    std::fs::write(out.join("models.rs"), rust).unwrap();
}
