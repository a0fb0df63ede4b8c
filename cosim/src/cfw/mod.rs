//! C firmware for the TPB cores, built by Debian's `gcc-xtensa-lx106`
//! (`tpb cc`, and a firmware file's `c = [...]`).
//!
//! What the build adds to the user's sources, each generated for the
//! generation and the kind of core ([`CoreKind`]) from the register map:
//! - `crt0.S` (`cosim/firmware/c/`): reset, the NX boot trampoline's shape
//!   or the Q7 reset jump, the stack at the top of DRAM, `.bss` cleared,
//!   `main()` (call0 ABI), its return value in `__tpb_exit`, HALT;
//! - `tpb_rt.c`: the 32-bit division routines Debian's libgcc for lx106
//!   leaves out, memset/memcpy/memmove/memcmp, and the console's `tpb_puts`
//!   / `tpb_printf`; each function in a section of its own, so the link
//!   drops what a program does not call;
//! - the linker script ([`ld::render`]): code in IRAM from 0, the vectors
//!   left free, data, `.bss` and the stack in DRAM; literals stay beside the
//!   code (`-mtext-section-literals`), within L32R's reach;
//! - `tpb_fw.h` ([`header::render`]): every register by name as the core
//!   sees it (through the system window), the EVT_SEM helpers (`sem_inc`,
//!   `sem_set`, `sem_read`, `sem_wait_ge`), HALT and WAITI as inline bytes,
//!   the core's id.
//!
//! The output is an ELF ([`Built`]); [`images`] turns any ELF for a core
//! into the IRAM and DRAM images the HAL installs, refusing a segment
//! outside the core's memories by name.

pub mod header;
pub mod ld;

use std::path::{Path, PathBuf};
use std::process::Command;
use tpb_models::hal::UcodeImages;
use tpb_models::regmap::RegMap;
use tpb_models::xtensa::config::DRAM_BASE;
use tpb_models::xtensa::elf;

/// The start-up and run-time sources (`cosim/firmware/c/`).
pub const CRT0: &str = include_str!("../../firmware/c/crt0.S");
pub const RUNTIME: &str = include_str!("../../firmware/c/tpb_rt.c");

/// gcc's flags for every C source: call0 is lx106's only ABI; literals in
/// the code's section (L32R reaches back 256 KiB, not from IRAM to DRAM);
/// no host library (there is none for these cores).
pub const CFLAGS: &[&str] = &["-mtext-section-literals", "-ffreestanding", "-nostdlib", "-fno-builtin", "-Wall", "-std=c11", "-ffunction-sections", "-fdata-sections"];
/// The optimisation level unless the user gives one.
pub const DEFAULT_OPT: &str = "-O2";

/// The compiler and linker (Debian's `gcc-xtensa-lx106`, `binutils-xtensa-lx106`).
pub const GCC: &str = "xtensa-lx106-elf-gcc";
pub const LD: &str = "xtensa-lx106-elf-ld";

/// Which core a program is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreKind {
    /// A Q7 core of the POOL cluster.
    Q7,
    /// The POOL engine's NX sequencer.
    Seq,
    /// The TOP_SP sequencer (an NX core with core-local memories).
    TopSp,
}

impl CoreKind {
    pub fn parse(s: &str) -> Option<CoreKind> {
        match s {
            "q7" => Some(CoreKind::Q7),
            "seq" => Some(CoreKind::Seq),
            "top_sp" | "top-sp" => Some(CoreKind::TopSp),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CoreKind::Q7 => "q7",
            CoreKind::Seq => "seq",
            CoreKind::TopSp => "top_sp",
        }
    }
    /// An NX core (the boot trampoline at reset).
    pub fn nx(self) -> bool {
        self != CoreKind::Q7
    }
    /// IRAM and DRAM sizes of this core in `map`'s generation.
    pub fn memories(self, map: &RegMap) -> (u32, u32) {
        let p = &map.params;
        match self {
            CoreKind::Q7 => (p.q7.pooling.iram_size as u32, p.q7.pooling.dram_size as u32),
            CoreKind::Seq | CoreKind::TopSp => (p.bar0.seq_iram.size as u32, p.bar0.seq_dram.size as u32),
        }
    }
}

/// Why a C program did not build, or an ELF does not fit a core.
#[derive(Debug, thiserror::Error)]
pub enum CfwError {
    #[error("`{tool}` is not installed: apt-get install {package} (or run `bash scripts/setup`)")]
    Missing { tool: &'static str, package: &'static str },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{tool} failed:\n{log}")]
    Tool { tool: &'static str, log: String },
    #[error(transparent)]
    Map(#[from] header::HeaderError),
    #[error("no sources to build")]
    NoSources,
    #[error("{path}: {source}")]
    Elf { path: String, source: elf::ElfError },
    #[error("{path}: segment at {addr:#x} ({bytes} bytes) is outside the {core} core's IRAM [0, {iram:#x}) and DRAM [{dram_base:#x}, +{dram:#x})")]
    Outside { path: String, core: &'static str, addr: u32, bytes: u32, iram: u32, dram_base: u32, dram: u32 },
    #[error("{path}: {core} images: {why}")]
    Images { path: String, core: &'static str, why: String },
}

/// A name no other build in flight uses: the process and a count within it
/// (two builds of one file, in two processes or two threads, never share a
/// temporary file).
fn build_tag() -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    format!("{}-{}", std::process::id(), N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CfwError + '_ {
    move |source| CfwError::Io { path: path.display().to_string(), source }
}

/// The files the build writes beside the user's sources (into `dir`):
/// the header, the linker script, the start-up and run-time sources.
pub fn write_support(map: &RegMap, kind: CoreKind, dir: &Path) -> Result<(), CfwError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let files = [("tpb_fw.h", header::render(map)?), (&*format!("{}.ld", kind.name()), ld::render(map, kind)), ("crt0.S", CRT0.to_string()), ("tpb_rt.c", RUNTIME.to_string())];
    for (name, text) in files {
        let p = dir.join(name);
        // Unchanged files are left alone, a changed one replaced whole (a
        // temporary, then a rename): a build of the same file in another
        // process (two tests, two `tpb test` runs) never reads half a header.
        if std::fs::read(&p).is_ok_and(|old| old == text.as_bytes()) {
            continue;
        }
        let tmp = dir.join(format!("{name}.{}.tmp", build_tag()));
        std::fs::write(&tmp, text).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &p).map_err(io(&p))?;
    }
    Ok(())
}

/// A built program.
#[derive(Debug, Clone)]
pub struct Built {
    pub elf: PathBuf,
    /// The commands run, as a person would type them.
    pub commands: Vec<String>,
}

/// Build C (and assembly `.S`) `sources` for a `kind` core of `map`'s
/// generation into `out` (an ELF); the support files and objects go into
/// `out`'s folder under `<stem>.build/`. `extra` are more gcc flags
/// (`-O0`, `-DNAME=1`); without an `-O` flag the build uses [`DEFAULT_OPT`].
pub fn build(map: &RegMap, kind: CoreKind, sources: &[PathBuf], extra: &[String], out: &Path) -> Result<Built, CfwError> {
    let gcc = find(GCC, "gcc-xtensa-lx106")?;
    let ld = find(LD, "binutils-xtensa-lx106")?;
    if sources.is_empty() {
        return Err(CfwError::NoSources);
    }
    for s in sources {
        if !s.is_file() {
            return Err(CfwError::Io { path: s.display().to_string(), source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such source file") });
        }
    }
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "fw".into());
    let dir = out.parent().unwrap_or(Path::new(".")).join(format!("{stem}.build"));
    write_support(map, kind, &dir)?;
    let mut defs: Vec<String> = boot_symbols(map).iter().map(|(n, v)| format!("-DTPB_{n}={v:#x}")).collect();
    defs.push(format!("-DTPB_CORE_{}=1", kind.name().to_uppercase()));
    if kind.nx() {
        defs.push("-DTPB_CORE_NX=1".into());
    }
    let mut flags: Vec<String> = CFLAGS.iter().map(|s| s.to_string()).collect();
    if !extra.iter().any(|f| f.starts_with("-O")) {
        flags.push(DEFAULT_OPT.into());
    }
    flags.extend(extra.iter().cloned());
    flags.push("-I".into());
    flags.push(dir.display().to_string());
    let mut commands = Vec::new();
    let mut objs = Vec::new();
    let tag = build_tag();
    let mut all: Vec<PathBuf> = vec![dir.join("crt0.S"), dir.join("tpb_rt.c")];
    all.extend(sources.iter().cloned());
    for (i, src) in all.iter().enumerate() {
        // Objects are this build's own (its tag in the name), and the ELF
        // is linked beside `out` and renamed onto it: concurrent builds of
        // one file never mix their halves.
        let obj = dir.join(format!("{i:02}-{}.{}.o", src.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(), tag));
        let mut cmd = Command::new(&gcc);
        cmd.args(&flags).args(&defs);
        if src.extension().is_some_and(|e| e == "S") {
            cmd.arg("-Wa,--text-section-literals");
        }
        cmd.arg("-c").arg(src).arg("-o").arg(&obj);
        run(&mut cmd, GCC, &mut commands)?;
        objs.push(obj);
    }
    let libgcc = Command::new(&gcc).arg("-print-libgcc-file-name").output().map_err(|e| CfwError::Io { path: GCC.into(), source: e })?;
    let libgcc = String::from_utf8_lossy(&libgcc.stdout).trim().to_string();
    let mut cmd = Command::new(&ld);
    let linked = dir.join(format!("{stem}.{tag}.elf"));
    cmd.arg("--gc-sections").arg("-T").arg(dir.join(format!("{}.ld", kind.name()))).args(&objs).arg(&libgcc).arg("-o").arg(&linked);
    let result = run(&mut cmd, LD, &mut commands).and_then(|()| std::fs::rename(&linked, out).map_err(io(out)));
    for o in &objs {
        let _ = std::fs::remove_file(o);
    }
    result?;
    Ok(Built { elf: out.to_path_buf(), commands })
}

/// Where a core's code starts, as start-up code needs it: `RESET_JUMP`
/// (where a Q7 core's reset vector jumps, `boot.q7_reset_jump`) and
/// `ENTER_RUN` (where the NX trampoline enters, `boot.nx_enter_run`); the
/// map's values, else the CAYMAN ones (`[D]` for a map without them).
pub fn boot_symbols(map: &RegMap) -> [(&'static str, u32); 2] {
    let b = &map.params.boot;
    [("RESET_JUMP", b.q7_reset_jump.unwrap_or(0x200)), ("ENTER_RUN", b.nx_enter_run.unwrap_or(0x90))]
}

/// The name of the assembler prelude of the map's names (`.include "tpb.inc"`).
pub const ASM_PRELUDE: &str = "tpb.inc";

/// Assemble the file `path` at `base` with our assembler: `.include`
/// finds [`ASM_PRELUDE`] (generated from `map`, when one is given),
/// files beside the including file, and else the project's firmware units
/// by name ([`crate::firmware::UNITS`]); `params` are `.equ`s set before the
/// file (each also as `_HI` / `_LO` halves, as `tpb.inc`'s are). An error
/// reads `file:line: what`.
pub fn assemble_file(
    map: Option<&RegMap>,
    path: &Path,
    base: u32,
    opts: &tpb_models::xtensa::config::Options,
    params: &[(String, u32)],
) -> Result<tpb_models::xtensa::asm::Program, String> {
    let mut text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut name = path.display().to_string();
    if !params.is_empty() {
        text = params.iter().map(|(n, v)| format!(".equ {n}, {v:#x}\n.equ {n}_HI, {:#x}\n.equ {n}_LO, {:#x}\n", v >> 16, v & 0xffff)).collect::<String>()
            + &format!(".include \"{name}\"\n");
        name = "(set)".into();
    }
    let mut includes = |want: &str, from: &str| -> Result<(String, String), String> {
        if want == ASM_PRELUDE {
            return match map {
                Some(m) => Ok((format!("{ASM_PRELUDE} ({})", m.arch.name()), header::render_asm(m).map_err(|e| e.to_string())?)),
                None => Err(format!("{ASM_PRELUDE} is generated from a generation's map: give --arch")),
            };
        }
        let p = Path::new(from).parent().unwrap_or(Path::new("")).join(want);
        match std::fs::read_to_string(&p) {
            Ok(t) => Ok((p.display().to_string(), t)),
            // Not beside it: one of the project's firmware units, by name
            // (`nx_trampoline.S` from any folder).
            Err(e) => crate::firmware::unit(want)
                .map(|t| (format!("{want} (cosim/firmware/)"), t.to_string()))
                .ok_or_else(|| format!("{}: {e} (nor is it a firmware unit of cosim/firmware/)", p.display())),
        }
    };
    tpb_models::xtensa::asm::source::assemble_source(&name, &text, base, opts, &mut includes).map_err(|e| e.to_string())
}

fn find(tool: &'static str, package: &'static str) -> Result<PathBuf, CfwError> {
    tpb_hdl::pytools::find(tool).ok_or(CfwError::Missing { tool, package })
}

fn run(cmd: &mut Command, tool: &'static str, log: &mut Vec<String>) -> Result<(), CfwError> {
    let shown = std::iter::once(tool.to_string()).chain(cmd.get_args().map(|a| a.to_string_lossy().into_owned())).collect::<Vec<_>>().join(" ");
    log.push(shown.clone());
    let o = cmd.output().map_err(|e| CfwError::Io { path: tool.into(), source: e })?;
    if !o.status.success() {
        return Err(CfwError::Tool { tool, log: format!("$ {shown}\n{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)) });
    }
    Ok(())
}

/// The IRAM and DRAM images of an ELF for a `kind` core of `map`'s
/// generation: each loadable segment's file bytes at its offset in IRAM
/// (from 0) or DRAM (from [`DRAM_BASE`]); a segment elsewhere, or past a
/// memory's end, is an error naming it. `path` names the ELF in errors.
pub fn images(map: &RegMap, kind: CoreKind, path: &str, bytes: &[u8]) -> Result<UcodeImages, CfwError> {
    let img = elf::parse(bytes).map_err(|source| CfwError::Elf { path: path.into(), source })?;
    let (iram_size, dram_size) = kind.memories(map);
    let mut iram = Vec::new();
    let mut dram = Vec::new();
    for s in &img.segments {
        let end = u64::from(s.addr) + u64::from(s.mem_size);
        let (mem, off) = if end <= u64::from(iram_size) {
            (&mut iram, s.addr)
        } else if s.addr >= DRAM_BASE && end <= u64::from(DRAM_BASE) + u64::from(dram_size) {
            (&mut dram, s.addr - DRAM_BASE)
        } else {
            return Err(CfwError::Outside { path: path.into(), core: kind.name(), addr: s.addr, bytes: s.mem_size, iram: iram_size, dram_base: DRAM_BASE, dram: dram_size });
        };
        let at = off as usize;
        if mem.len() < at + s.data.len() {
            mem.resize(at + s.data.len(), 0);
        }
        mem[at..at + s.data.len()].copy_from_slice(&s.data);
    }
    if iram.is_empty() {
        return Err(CfwError::Images { path: path.into(), core: kind.name(), why: "no code in IRAM (a program for this core starts at 0)".into() });
    }
    // The HAL writes whole words.
    for m in [&mut iram, &mut dram] {
        m.resize(m.len().div_ceil(4) * 4, 0);
    }
    Ok(UcodeImages { iram, dram })
}

/// The address of `name` in an ELF (e.g. `__tpb_exit`), if it has one.
pub fn symbol(bytes: &[u8], name: &str) -> Option<u32> {
    elf::symbols(bytes).ok()?.into_iter().find(|(_, n)| n == name).map(|(a, _)| a)
}
