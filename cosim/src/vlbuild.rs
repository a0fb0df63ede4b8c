//! A Verilated model built at run time and loaded as a shared library: for
//! Verilog that is not compiled into the crate, such as the previous
//! emission of a top that `tpb bench --before` measures beside the current
//! one. The same generators as `build.rs` (`vlgen`: probe wrapper, shim,
//! port list); the C++ is compiled with `g++ -fPIC` on every core and linked
//! into `lib<prefix>.so` with the Verilator runtime, then opened with
//! `libloading`. A build is cached in its directory under a stamp of its
//! inputs; the runtime's objects and precompiled headers are shared by the
//! models built with the same flags ([`shared_root`]).

use crate::verilator::{Model, ModelFns, PortInfo};
use crate::vlgen;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a model could not be built or loaded.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("{tool} failed ({what}):\n{stderr}")]
    Tool { tool: &'static str, what: String, stderr: String },
    #[error(transparent)]
    Design(#[from] crate::vlgen::VlGenError),
    #[error("loading {path}: {msg}")]
    Load { path: String, msg: String },
}

/// How to build one model.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Model prefix (`Vbefore_cayman`): the C symbols and the library name.
    pub prefix: String,
    /// The Verilog of the design.
    pub verilog: String,
    /// Its top module.
    pub top: String,
    /// Generation name for the probe wrapper (`cayman`), or None for no wrapper.
    pub probes: Option<String>,
    /// The wrapper samples the top's inputs (`vlgen::sim_top`).
    pub sampled: bool,
    pub traced: bool,
    /// Traced, and writing FST itself ([`Spec::writing_fst`]) rather than VCD.
    pub fst: bool,
    /// Line and toggle coverage (`--coverage-line --coverage-toggle`): each
    /// model writes its counts when deleted ([`coverage_to`]).
    pub coverage: bool,
    /// Verilator's arguments before the sources (default: [`vlgen::verilator_args`]).
    pub verilator_args: Vec<String>,
    /// g++ optimisation for the code a cycle runs (`-O2`); the code that runs
    /// once is compiled at [`vlgen::SLOW_OPT_LEVEL`].
    pub opt: &'static str,
}

impl Spec {
    /// A model built the way `build.rs` builds the crate's own.
    pub fn new(prefix: &str, verilog: String, top: &str, probes: Option<&str>, traced: bool) -> Spec {
        Spec {
            prefix: prefix.into(),
            verilog,
            top: top.into(),
            probes: probes.map(str::to_string),
            sampled: true,
            traced,
            fst: false,
            coverage: false,
            verilator_args: vlgen::verilator_args(prefix, traced),
            opt: "-O2",
        }
    }

    /// Generation `arch`'s top as the compiled-in model has it (the
    /// checked-in `hdl/generated/<arch>_tpb_top.v` in its probe wrapper),
    /// as model `prefix`, traced or not.
    pub fn top(arch: tpb_models::regmap::Arch, prefix: &str, traced: bool) -> Result<Spec, BuildError> {
        let path = crate::regen::repo_root().join(format!("hdl/generated/{}_tpb_top.v", arch.name()));
        let verilog = std::fs::read_to_string(&path).map_err(io(path.display().to_string()))?;
        Ok(Spec::new(prefix, verilog, &format!("{}_tpb_top", arch.name()), Some(arch.name()), traced))
    }

    /// The same model, traced, with Verilator's FST writer instead of its
    /// VCD writer (`vlgen::FST_ARGS`): it writes `.fst` traces as the run
    /// goes, its compression on a thread of its own, and no `.vcd`.
    pub fn writing_fst(mut self) -> Spec {
        self.traced = true;
        self.fst = true;
        self.verilator_args.retain(|a| a != "--trace");
        self.verilator_args.extend(vlgen::FST_ARGS.iter().map(|a| a.to_string()));
        self
    }

    /// The same model tracing every signal inside every block: no
    /// `--trace-depth` limit ([`vlgen::TRACE_DEPTH`] is the default's).
    pub fn tracing_internals(mut self) -> Spec {
        self.verilator_args = vlgen::without_trace_depth(&self.verilator_args);
        self
    }
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BuildError {
    let what = what.into();
    move |source| BuildError::Io { what, source }
}

fn run(tool: &'static str, cmd: &mut Command, what: &str) -> Result<(), BuildError> {
    let o = cmd.output().map_err(|e| BuildError::Tool { tool, what: what.into(), stderr: format!("cannot run {tool}: {e} (install it with `bash scripts/setup`)") })?;
    if !o.status.success() {
        return Err(BuildError::Tool { tool, what: what.into(), stderr: String::from_utf8_lossy(&o.stderr).into_owned() });
    }
    Ok(())
}

/// One g++ run: `src` to `out`, with the common flags and then `args`.
struct Compile {
    src: PathBuf,
    out: PathBuf,
    args: Vec<String>,
}

/// Run `list`, `jobs` at a time; the first failure is the error.
fn compile_all(list: &[Compile], flags: &[String], jobs: usize) -> Result<(), BuildError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let first_error: std::sync::Mutex<Option<BuildError>> = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= list.len() || first_error.lock().map(|e| e.is_some()).unwrap_or(true) {
                    break;
                }
                let c = &list[i];
                let r = run("g++", Command::new("g++").args(flags).args(&c.args).arg("-c").arg(&c.src).arg("-o").arg(&c.out), &c.src.display().to_string());
                if let Err(e) = r {
                    if let Ok(mut slot) = first_error.lock() {
                        slot.get_or_insert(e);
                    }
                }
            });
        }
    });
    match first_error.into_inner().ok().flatten() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The object file `src` compiles to in `dir`.
fn object(dir: &Path, src: &Path) -> PathBuf {
    dir.join(format!("{}.o", src.file_stem().unwrap_or_default().to_string_lossy()))
}

/// The optimisation flag of the code that runs once ([`vlgen::SLOW_OPT_LEVEL`]).
fn slow_opt() -> String {
    format!("-O{}", vlgen::SLOW_OPT_LEVEL)
}

/// `c` as a shell command line, every argument quoted.
fn command_line(flags: &[String], c: &Compile) -> String {
    let q = |a: &str| format!("'{}'", a.replace('\'', "'\\''"));
    let (src, out) = (c.src.display().to_string(), c.out.display().to_string());
    let args = flags.iter().chain(&c.args).map(|a| q(a)).collect::<Vec<_>>().join(" ");
    format!("g++ {args} -c {} -o {}", q(&src), q(&out))
}

/// Where [`build`] keeps what the models built with the same flags share:
/// the Verilator runtime's objects and its precompiled headers.
pub fn shared_root() -> PathBuf {
    crate::regen::repo_root().join("target/verilator-cache/vlbuild-shared")
}

/// What every model built with the same g++ flags shares, compiled by the
/// first build that needs it and kept in a directory of [`shared_root`]
/// named by a hash of those flags, the optimisation levels, the runtime's
/// sources and g++'s version: the Verilator runtime's objects, and
/// [`vlgen::pch_header`] precompiled at each level the models' own files
/// use (optimisation level → the header to `-include`).
struct Shared {
    runtime: Vec<PathBuf>,
    pch: Vec<(String, PathBuf)>,
}

fn shared(inc: &Path, flags: &[String], spec: &Spec, jobs: usize) -> Result<Shared, BuildError> {
    let mut sources: Vec<PathBuf> = vlgen::RUNTIME.iter().map(|&f| inc.join(if spec.fst && f.contains("_vcd_") { vlgen::RUNTIME_FST } else { f })).collect();
    if spec.coverage {
        sources.push(inc.join(vlgen::RUNTIME_COVERAGE));
    }
    let slow = slow_opt();
    let mut levels = vec![spec.opt.to_string(), slow.clone()];
    levels.dedup();
    let header = vlgen::pch_header(spec.traced, spec.fst, spec.coverage);
    let gcc = Command::new("g++").arg("-dumpfullversion").output().map_err(|e| BuildError::Tool {
        tool: "g++",
        what: "its version".into(),
        stderr: format!("cannot run g++: {e} (install it with `bash scripts/setup`)"),
    })?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (flags, &levels, &header, &gcc.stdout).hash(&mut h);
    for f in sources.iter().chain([&inc.join("verilated.h")]) {
        std::fs::read(f).map_err(io(f.display().to_string()))?.hash(&mut h);
    }
    let dir = shared_root().join(format!("{:016x}", h.finish()));
    std::fs::create_dir_all(&dir).map_err(io(dir.display().to_string()))?;
    let _turn = DirLock::take(&dir)?;
    let pch: Vec<(String, PathBuf)> = levels.iter().map(|o| (o.clone(), dir.join(format!("pch{o}.h")))).collect();
    let mut list: Vec<Compile> = sources.iter().map(|s| Compile { src: s.clone(), out: object(&dir, s), args: vec![opt_for(s, spec.opt, &slow).to_string()] }).collect();
    list.extend(pch.iter().map(|(o, h)| Compile { src: h.clone(), out: PathBuf::from(format!("{}.gch", h.display())), args: vec![o.clone(), "-x".into(), "c++-header".into()] }));
    let runtime: Vec<PathBuf> = list[..sources.len()].iter().map(|c| c.out.clone()).collect();
    // `built` is written once every output is: a build cut short is made again.
    let done = dir.join("built");
    if !(done.exists() && list.iter().all(|c| c.out.exists())) {
        for (_, h) in &pch {
            std::fs::write(h, &header).map_err(io(h.display().to_string()))?;
        }
        compile_all(&list, flags, jobs)?;
        std::fs::write(&done, "").map_err(io(done.display().to_string()))?;
    }
    Ok(Shared { runtime, pch })
}

/// The optimisation flag `file` is compiled with: `slow` for the code that
/// runs once ([`vlgen::is_slow`]), `fast` for the rest.
fn opt_for<'a>(file: &Path, fast: &'a str, slow: &'a str) -> &'a str {
    if vlgen::is_slow(file) {
        slow
    } else {
        fast
    }
}

/// An exclusive `flock` on `dir/build.lock`, released when dropped.
struct DirLock(#[allow(dead_code)] std::fs::File);

impl DirLock {
    fn take(dir: &Path) -> Result<DirLock, BuildError> {
        use std::os::fd::AsRawFd;
        let path = dir.join("build.lock");
        let f = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io(path.display().to_string()))?;
        // SAFETY: flock on the descriptor `f` owns, for as long as `f` lives.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io(path.display().to_string())(std::io::Error::last_os_error()));
        }
        Ok(DirLock(f))
    }
}

/// Build (or reuse) the model `spec` in `dir` and load it. `say` hears what
/// is being done (a build takes minutes).
pub fn build(spec: &Spec, dir: &Path, jobs: usize, say: &dyn Fn(&str)) -> Result<Model, BuildError> {
    std::fs::create_dir_all(dir).map_err(io(dir.display().to_string()))?;
    // Two processes (or threads) asking for the same model take turns: the
    // second finds the first's build and reuses it.
    let _turn = DirLock::take(dir)?;
    let root = {
        let o = Command::new("verilator").args(["--getenv", "VERILATOR_ROOT"]).output().map_err(|e| BuildError::Tool {
            tool: "verilator",
            what: "VERILATOR_ROOT".into(),
            stderr: format!("{e}: install it with `bash scripts/setup`"),
        })?;
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    };
    let inc = root.join("include");
    let source = dir.join(format!("{}.v", spec.top));
    let wrapper = match &spec.probes {
        Some(stem) => Some(vlgen::sim_top(stem, &spec.top, &spec.verilog, &source, spec.sampled)?),
        None => None,
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // The shim's text without ports stands for its template (the ports come from the model).
    let shim = vlgen::shim(&spec.prefix, spec.traced, spec.fst, spec.coverage, &[]);
    (&spec.verilog, &wrapper, &spec.verilator_args, spec.opt, vlgen::SLOW_OPT_LEVEL, spec.traced, spec.fst, spec.coverage, shim).hash(&mut h);
    let stamp = format!("{:016x}", h.finish());
    let lib = dir.join(format!("lib{}.so", spec.prefix));
    let stamp_file = dir.join("build.stamp");
    if !(lib.exists() && std::fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp.as_str())) {
        let _ = std::fs::remove_file(&stamp_file);
        let gen = dir.join("gen");
        let _ = std::fs::remove_dir_all(&gen);
        std::fs::create_dir_all(&gen).map_err(io(gen.display().to_string()))?;
        std::fs::write(&source, &spec.verilog).map_err(io(source.display().to_string()))?;
        let mut cmd = Command::new("verilator");
        // Lint findings are not this build's business (the Verilog may be old).
        cmd.args(&spec.verilator_args).args(["-Wno-fatal", "-Wno-lint", "-Wno-style", "-Mdir"]).arg(&gen).arg(&source);
        if spec.coverage {
            cmd.args(["--coverage-line", "--coverage-toggle"]);
        }
        match &wrapper {
            Some(w) => {
                let wv = dir.join("sim_top.v");
                std::fs::write(&wv, w).map_err(io(wv.display().to_string()))?;
                cmd.arg(&wv).args(["--top-module", &format!("{}_sim_top", spec.probes.as_deref().unwrap_or(""))]);
            }
            None => {
                cmd.args(["--top-module", &spec.top]);
            }
        }
        say(&format!("verilating {} ({} lines of Verilog)", spec.prefix, spec.verilog.lines().count()));
        run("verilator", &mut cmd, &source.display().to_string())?;
        let ports = vlgen::header_ports(&gen.join(format!("{}.h", spec.prefix)))?;
        std::fs::write(gen.join("shim.cpp"), vlgen::shim(&spec.prefix, spec.traced, spec.fst, spec.coverage, &ports)).map_err(io("shim.cpp"))?;
        let mut files: Vec<PathBuf> = std::fs::read_dir(&gen)
            .map_err(io(gen.display().to_string()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
            .collect();
        files.sort();
        let lines: usize = files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).map(|t| t.lines().count()).sum();
        say(&format!("compiling {} ({} files, {lines} lines of C++, {jobs} at a time)", spec.prefix, files.len()));
        let d = |x: bool| if x { "1" } else { "0" };
        let mut flags: Vec<String> = vec![
            "-std=c++17".into(),
            "-fPIC".into(),
            "-w".into(),
            format!("-I{}", inc.display()),
            format!("-I{}", inc.join("vltstd").display()),
            format!("-DVM_COVERAGE={}", d(spec.coverage)),
            "-DVM_SC=0".into(),
            format!("-DVM_TRACE={}", d(spec.traced)),
            format!("-DVM_TRACE_VCD={}", d(spec.traced && !spec.fst)),
            format!("-DVM_TRACE_FST={}", d(spec.fst)),
        ];
        let shared = shared(&inc, &flags, spec, jobs)?;
        flags.push(format!("-I{}", gen.display()));
        let slow = slow_opt();
        let list: Vec<Compile> = files
            .iter()
            .map(|f| {
                let opt = opt_for(f, spec.opt, &slow);
                let mut args = vec![opt.to_string()];
                if let Some((_, h)) = shared.pch.iter().find(|(o, _)| o == opt) {
                    args.extend(["-include".to_string(), h.display().to_string()]);
                }
                Compile { src: f.clone(), out: object(&gen, f), args }
            })
            .collect();
        let script: String = list.iter().map(|c| command_line(&flags, c) + "\n").collect();
        std::fs::write(
            gen.join("compile.sh"),
            format!("# GENERATED by tpb_cosim::vlbuild: how {}'s own C++ was compiled (the runtime's objects and precompiled headers are shared).\n{script}", spec.prefix),
        )
        .map_err(io("compile.sh"))?;
        compile_all(&list, &flags, jobs)?;
        let objs: Vec<&PathBuf> = list.iter().map(|c| &c.out).chain(&shared.runtime).collect();
        run(
            "g++",
            Command::new("g++").args(["-shared", "-Wl,-Bsymbolic", "-o"]).arg(&lib).args(&objs).arg("-lpthread").args(spec.fst.then_some("-lz")),
            &lib.display().to_string(),
        )?;
        std::fs::write(&stamp_file, &stamp).map_err(io(stamp_file.display().to_string()))?;
    }
    load(&lib, &spec.prefix, spec.top.trim_end_matches("_tpb_top"), spec.traced, spec.fst, &dir.join("gen").join(format!("{}.h", spec.prefix)))
}

/// Send the coverage of every model of library `lib` (a [`Spec::coverage`]
/// build, prefix `prefix`) deleted from now on to `path.<n>.dat`.
pub fn coverage_to(lib: &Path, prefix: &str, path: &Path) -> Result<(), BuildError> {
    let err = |msg: String| BuildError::Load { path: lib.display().to_string(), msg };
    let c = std::ffi::CString::new(path.display().to_string()).map_err(|e| err(e.to_string()))?;
    // SAFETY: the library is loaded already (`build`) and stays loaded; the
    // symbol has the signature the coverage shim defines.
    unsafe {
        let l = libloading::Library::new(lib).map_err(|e| err(e.to_string()))?;
        let f = l.get::<unsafe extern "C" fn(*const std::ffi::c_char)>(format!("{prefix}_coverage_to").as_bytes()).map_err(|e| err(e.to_string()))?;
        f(c.as_ptr());
        std::mem::forget(l);
    }
    Ok(())
}

/// The library file [`build`] makes for `spec` in `dir`.
pub fn library(spec: &Spec, dir: &Path) -> PathBuf {
    dir.join(format!("lib{}.so", spec.prefix))
}

/// Load a built model library. The library stays loaded for the life of the
/// process (the model's function table is `'static`).
fn load(lib: &Path, prefix: &str, design: &str, traced: bool, fst: bool, header: &Path) -> Result<Model, BuildError> {
    let err = |msg: String| BuildError::Load { path: lib.display().to_string(), msg };
    let ports = vlgen::header_ports(header)?;
    // SAFETY: the library was built here from the shim above; its symbols
    // have the signatures the shim defines.
    unsafe {
        let l: &'static libloading::Library = Box::leak(Box::new(libloading::Library::new(lib).map_err(|e| err(e.to_string()))?));
        macro_rules! sym {
            ($name:expr, $t:ty) => {
                *l.get::<$t>(format!("{prefix}_{}", $name).as_bytes()).map_err(|e| err(e.to_string()))?
            };
        }
        use std::ffi::{c_char, c_int, c_void};
        let fns = ModelFns {
            name: Box::leak(prefix.to_string().into_boxed_str()),
            design: Box::leak(design.to_string().into_boxed_str()),
            traced,
            fst,
            new: sym!("new", unsafe extern "C" fn() -> *mut c_void),
            delete: sym!("delete", unsafe extern "C" fn(*mut c_void)),
            eval: sym!("eval", unsafe extern "C" fn(*mut c_void)),
            ports_fn: sym!("ports", unsafe extern "C" fn(*mut c_void, *mut *mut c_void)),
            trace_open: sym!("trace_open", unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int),
            trace_dump: sym!("trace_dump", unsafe extern "C" fn(*mut c_void, u64)),
            trace_close: sym!("trace_close", unsafe extern "C" fn(*mut c_void) -> c_int),
            ports: Box::leak(
                ports
                    .iter()
                    .map(|p| PortInfo { name: Box::leak(vlgen::port_name(&p.name).into_boxed_str()), input: p.input, width: p.width })
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
        };
        Ok(Model::from_fns(Box::leak(Box::new(fns))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model's run-once C++ (its `__Slow` files and `__Syms.cpp`) is
    /// compiled at `-O0`; the cycle's code and the runtime at the spec's level.
    #[test]
    fn only_the_code_that_runs_once_is_compiled_at_slow_opt_level() {
        let slow = slow_opt();
        assert_eq!(slow, "-O0");
        for (file, want) in [
            ("gen/Vcover_cayman___024root__DepSet_hddc19d1c__13__Slow.cpp", "-O0"),
            ("gen/Vcover_cayman__Syms.cpp", "-O0"),
            ("gen/Vcover_cayman__Trace__0__Slow.cpp", "-O0"),
            ("gen/Vcover_cayman___024root__DepSet_hddc19d1c__7.cpp", "-O2"),
            ("gen/Vcover_cayman__Trace__0.cpp", "-O2"),
            ("/usr/share/verilator/include/verilated.cpp", "-O2"),
            ("gen/shim.cpp", "-O2"),
        ] {
            assert_eq!(opt_for(Path::new(file), "-O2", &slow), want, "{file}");
        }
    }
}
