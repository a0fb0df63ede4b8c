//! The Verilator bridge's build step (ARCHITECTURE.md decision 2).
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

/// Build `lib<name>.a` from `fast` (at -O2) and `slow` (code that runs
/// once, at -O0) unless `dir/<name>.stamp` already holds `stamp`. Returns the
/// link line; the caller emits them in dependency order (models before the
/// runtime they call).
fn build_lib(name: &str, dir: &Path, fast: &[PathBuf], slow: &[PathBuf], includes: &[PathBuf], stamp: &str, traced: bool) -> String {
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
        b
    };
    let mut objects = Vec::new();
    if !slow.is_empty() {
        let slow_dir = dir.join("slow");
        std::fs::create_dir_all(&slow_dir).unwrap();
        let mut b = build(0, &slow_dir);
        b.files(slow);
        objects = b.compile_intermediates();
    }
    let mut b = build(2, dir);
    b.files(fast).objects(&objects);
    b.compile(name);
    std::fs::write(&stamp_file, stamp).unwrap();
    link
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
    let runtime_link = build_lib("verilated_runtime", &rt_dir, &rt_files, &[], &includes, &rt_stamp, true);
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
        let shim_text = vlgen::shim(&prefix, design.traced, &ports);
        std::fs::write(dir.join("shim.cpp"), &shim_text).unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "cpp")).collect();
        files.sort();
        let (slow, fast): (Vec<PathBuf>, Vec<PathBuf>) = files.into_iter().partition(|f| vlgen::is_slow(f));
        let mut incs = includes.clone();
        incs.push(dir.clone());
        let stamp = stamp_of(&[vstamp.as_bytes(), shim_text.as_bytes(), b"c++17"]);
        links.push(build_lib(&prefix, &dir, &fast, &slow, &incs, &stamp, design.traced));
        let _ = writeln!(
            rust,
            "extern \"C\" {{ fn {prefix}_new() -> *mut c_void; fn {prefix}_delete(m: *mut c_void); fn {prefix}_eval(m: *mut c_void); fn {prefix}_ports(m: *mut c_void, out: *mut *mut c_void); fn {prefix}_trace_open(m: *mut c_void, path: *const c_char) -> c_int; fn {prefix}_trace_dump(m: *mut c_void, t: u64); fn {prefix}_trace_close(m: *mut c_void); }}"
        );
        let stat = prefix.to_uppercase();
        let _ = writeln!(
            rust,
            "pub(crate) static {stat}: ModelFns = ModelFns {{ name: \"{prefix}\", design: \"{}\", traced: {}, new: {prefix}_new, delete: {prefix}_delete, eval: {prefix}_eval, ports_fn: {prefix}_ports, trace_open: {prefix}_trace_open, trace_dump: {prefix}_trace_dump, trace_close: {prefix}_trace_close, ports: &[",
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
