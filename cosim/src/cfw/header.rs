//! `tpb_fw.h`: what a C program on a TPB core needs of the register map, as
//! the core sees it (BAR0 address `a` at `TPB_SYSTEM_WINDOW + a`).
//!
//! - every register: `TPB_<ENGINE>_<BLOCK>_<REG>_ADDR`, with `TPB_REG(addr)`
//!   to access it, and each field's `_SHIFT` / `_MASK`;
//! - every array window: `TPB_<ENGINE>_<BLOCK>_<WINDOW>_ADDR(i)`;
//! - each engine's EVT_SEM (`TPB_SEM_POOL`, `TPB_SEM_TOP_SP`, …) and the
//!   helpers `sem_read`, `sem_set`, `sem_inc`, `sem_dec`, `sem_wait_ge`;
//! - the console: `tpb_write` (SIMCALL write), `tpb_puts` and `tpb_printf`
//!   (in `tpb_rt.c`);
//! - `tpb_halt()` and `tpb_waiti(level)` as inline bytes (the assembler of
//!   Debian's lx106 toolchain has neither mnemonic), `tpb_core_id()` (PRID);
//! - `TPB_HOST_INPUT`: a variable the host fills before the core runs.

use crate::firmware::by_map::ByMap;
use crate::sched::SYSTEM_WINDOW;
use tpb_models::regmap::layout::SemWindows;
use tpb_models::regmap::space::{AddressSpace, Named};
use tpb_models::regmap::RegMap;

fn ident(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect()
}

/// One named value of the prelude, as the C header and the assembler
/// include both give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sym {
    /// `TPB_<ident>` = value (an address, an offset, a count).
    Value { ident: String, value: u32, note: Option<String> },
    /// An array window: element `i` at `base + i * stride`.
    Array { ident: String, base: u32, stride: u32 },
    /// A field: `_SHIFT` and `_MASK`.
    Field { ident: String, shift: u32, mask: u32 },
}

/// Why a map cannot give the firmware's header or prelude.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    #[error(transparent)]
    Layout(#[from] tpb_models::regmap::layout::LayoutError),
    #[error(transparent)]
    Firmware(#[from] crate::firmware::FirmwareError),
}

/// Every name the prelude gives for `map`'s generation, addresses as a
/// core sees them (an error if the map lacks EVT_SEM).
pub fn symbols(map: &RegMap) -> Result<Vec<Sym>, HeaderError> {
    let space = AddressSpace::new(map.clone());
    let sems = SemWindows::of(map)?;
    let v = |ident: &str, value: u32| Sym::Value { ident: ident.into(), value, note: None };
    let mut out = vec![
        v("SYSTEM_WINDOW", SYSTEM_WINDOW),
        v("DRAM_BASE", tpb_models::xtensa::config::DRAM_BASE),
        v("SEM_COUNT", sems.count),
        v("SEM_STRIDE", sems.stride),
        v("SEM_READ_OFF", 0),
        v("SEM_SET_OFF", sems.set.wrapping_sub(sems.read)),
        v("SEM_INC_OFF", sems.inc.wrapping_sub(sems.read)),
        v("SEM_DEC_OFF", sems.dec.wrapping_sub(sems.read)),
        Sym::Value {
            ident: "NX_USER_VECTOR".into(),
            value: crate::firmware::user_vector(&tpb_models::xtensa::config::CoreConfig::nx(&map.params)),
            note: Some("an NX core's level-1 (user) interrupt vector: VECBASE + its offset".into()),
        },
        Sym::Value {
            ident: "Q7_USER_VECTOR".into(),
            value: crate::firmware::user_vector(&tpb_models::xtensa::config::CoreConfig::q7(&map.params, 0)),
            note: Some("a Q7 core's level-1 (user) interrupt vector: VECBASE + its offset".into()),
        },
        Sym::Value {
            ident: "Q7_RELEASE".into(),
            value: crate::firmware::q7_release(map)?,
            note: Some("the Q7 bundle's release_run_stall as an NX core reaches it (the POOL control window where the map has one)".into()),
        },
        Sym::Value {
            ident: "Q7_RELEASE_SET".into(),
            value: crate::firmware::q7_release_set(map)?,
            note: Some(
                "SUNDA: the SET slot of the POOL EVT_SEM release semaphore; bit n of the value releases Q7 core n (q7.seq_release_sem); 0 where the host releases them".into(),
            ),
        },
    ];
    let doorbell = |out: &mut Vec<Sym>, name: &str, d: crate::firmware::HostDoorbell| {
        let note = |what: &str| Some(format!("the TOP_SP's {name} doorbell ({what}; tpb_cosim::firmware::HostDoorbell)"));
        out.push(Sym::Value { ident: format!("{name}_READ"), value: d.read, note: note("fired while [READ] & MASK != 0") });
        out.push(Sym::Value { ident: format!("{name}_MASK"), value: d.mask, note: note("the bits that say it fired") });
        out.push(Sym::Value { ident: format!("{name}_ACK"), value: d.ack, note: note("write the masked value here to consume it") });
    };
    doorbell(&mut out, "HOST_TRIGGER", crate::firmware::host_trigger(map)?);
    if let Some(d) = crate::firmware::stop(map)? {
        doorbell(&mut out, "STOP", d);
    }
    {
        use tpb_models::hal::stdio;
        out.push(Sym::Value { ident: "STDIO_AREA".into(), value: stdio::AREA, note: Some("the stdio TX ring's text slots: DMA SRAM offset (tpb_hal::stdio)".into()) });
        out.push(v("STDIO_SLOTS", stdio::SLOTS));
        out.push(v("STDIO_SLOT_BYTES", stdio::SLOT_BYTES));
        out.push(v("STDIO_TX_DONE", stdio::TX_DONE));
    }
    for (name, value) in crate::firmware::MARKERS {
        out.push(Sym::Value { ident: name.into(), value, note: Some("a marker the built-in firmware stores (tpb_cosim::firmware::MARKERS)".into()) });
    }
    out.push(Sym::Value {
        ident: "SOC_PORT".into(),
        value: crate::sched::SOC_PORT,
        note: Some("the SoC port: +0 address low, +4 high, +8 data (a core's access beyond BAR0)".into()),
    });
    for r in map.params.bar0_regions() {
        if r.region.base <= u64::from(u32::MAX - SYSTEM_WINDOW) {
            out.push(Sym::Value {
                ident: format!("REGION_{}", ident(&r.name)),
                value: SYSTEM_WINDOW + r.region.base as u32,
                note: Some(format!("BAR0 region {} ({:#x} bytes)", r.name, r.region.size)),
            });
        }
    }
    for e in tpb_models::regmap::layout::ENGINES {
        if let Some(base) = map.params.local_reg_base(e) {
            out.push(Sym::Value {
                ident: format!("SEM_{}", ident(e.name())),
                value: SYSTEM_WINDOW + base as u32 + sems.read,
                note: Some(format!("{} EVT_SEM, semaphore 0's read window", e.name())),
            });
        }
    }
    for name in space.all() {
        if name.starts_with("mem.") {
            continue;
        }
        if let Some(arr) = name.strip_suffix("[]") {
            if let (Ok(Named::Element { addr: a0, .. }), Ok(Named::Element { addr: a1, .. })) = (space.resolve(&format!("{arr}[0]")), space.resolve(&format!("{arr}[1]"))) {
                out.push(Sym::Array { ident: ident(arr), base: SYSTEM_WINDOW + a0, stride: a1 - a0 });
            }
            continue;
        }
        match space.resolve(name) {
            Ok(Named::Reg { addr, field: None, .. }) | Ok(Named::Alias { addr, .. }) => {
                out.push(Sym::Value { ident: format!("{}_ADDR", ident(name)), value: SYSTEM_WINDOW + addr, note: None })
            }
            Ok(Named::Reg { field: Some(f), .. }) => out.push(Sym::Field { ident: ident(name), shift: f.lsb, mask: f.mask() }),
            _ => {}
        }
    }
    Ok(out)
}

/// The header for `map`'s generation (an error if the map lacks EVT_SEM).
pub fn render(map: &RegMap) -> Result<String, HeaderError> {
    let syms = symbols(map)?;
    let arch = map.arch.name();
    let mut s = format!(
        "/* GENERATED by tpb cc (tpb-cosim cfw::header) from the {arch} register map (models/regmap/maps/).\n   Do not edit: `tpb cc` writes it anew each build. Addresses are as a core sees them. */\n\
#ifndef TPB_FW_H\n#define TPB_FW_H\n\n#include <stdint.h>\n\n\
#define TPB_ARCH \"{arch}\"\n\
#define TPB_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))\n\n"
    );
    let (values, regs): (Vec<&Sym>, Vec<&Sym>) = syms.iter().partition(|x| matches!(x, Sym::Value { ident, .. } if !ident.ends_with("_ADDR")));
    s += "/* ---- the system window, DRAM, EVT_SEM: an engine's semaphore unit (read / set / inc / dec windows) ---- */\n";
    for x in values {
        s += &c_line(x);
    }
    s += r#"
static inline uint32_t sem_read(uint32_t sems, unsigned i) { return TPB_REG(sems + TPB_SEM_READ_OFF + i * TPB_SEM_STRIDE); }
static inline void sem_set(uint32_t sems, unsigned i, uint32_t v) { TPB_REG(sems + TPB_SEM_SET_OFF + i * TPB_SEM_STRIDE) = v; }
static inline void sem_inc(uint32_t sems, unsigned i, uint32_t v) { TPB_REG(sems + TPB_SEM_INC_OFF + i * TPB_SEM_STRIDE) = v; }
static inline void sem_dec(uint32_t sems, unsigned i, uint32_t v) { TPB_REG(sems + TPB_SEM_DEC_OFF + i * TPB_SEM_STRIDE) = v; }
/* Spin until semaphore i reads at least v; returns the value seen. */
static inline uint32_t sem_wait_ge(uint32_t sems, unsigned i, uint32_t v)
{
    uint32_t x;
    while ((x = sem_read(sems, i)) < v) {
    }
    return x;
}

/* HALT (the core stops; run_state shows it) and WAITI (sleep until an
   interrupt above `level`), as bytes: this assembler knows neither. */
static inline void __attribute__((noreturn)) tpb_halt(void)
{
    for (;;) {
        __asm__ volatile(".byte 0x00, 0x52, 0x00" ::: "memory");
    }
}
#define tpb_waiti(level) __asm__ volatile(".byte 0x00, (0x70 | ((level) & 15)), 0x00" ::: "memory")
/* This core's id (PRID: the Q7 core's number, 0 on an NX core). */
static inline uint32_t tpb_core_id(void)
{
    uint32_t id;
    __asm__ volatile("rsr %0, prid" : "=a"(id));
    return id;
}
/* A variable the host fills before it releases the core (a testbench
   file's [[firmware.q7.data]] with at = its name, or a write to
   mem.q7[n].dram): kept in .data, which the install writes and crt0 leaves
   alone (crt0 clears .bss, where a zero-initialised variable would go).
   The linker puts these first in DRAM after __tpb_exit: the first one is at
   DRAM offset 4 (mem.q7[n].dram+0x4), for a host without the ELF's symbols. */
#define TPB_HOST_INPUT __attribute__((section(".data.tpb_host_input"), used, aligned(4)))

/* ---- console: text to the host, one line each "[core @cycle] text" ----
   SIMCALL write (a2 = 4, a3 fd, a4 buffer, a5 length; back: a2 the bytes
   written, a3 errno): the core reads the buffer a word per bus access. */
static inline int tpb_write(int fd, const void *buf, unsigned len)
{
    register int a2 __asm__("a2") = 4;
    register int a3 __asm__("a3") = fd;
    register const void *a4 __asm__("a4") = buf;
    register unsigned a5 __asm__("a5") = len;
    __asm__ volatile("simcall" : "+a"(a2), "+a"(a3) : "a"(a4), "a"(a5) : "memory");
    return a2;
}
/* In tpb_rt.c (built beside your sources): a string and a newline; a small
   printf (%d %i %u %x %X %p %c %s %%, width, '0' and '-' flags, 'l'). */
int tpb_puts(const char *s);
int tpb_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The SEQ only: text to the host through the seeds' stdio TX ring (its DMA's
   TX ring, a chunk of TPB_STDIO_SLOT_BYTES per descriptor; tpb_hal::stdio).
   The host drains it (a testbench file's tx_console step). */
int tpb_tx_write(const void *buf, unsigned len);
int tpb_tx_puts(const char *s);

/* ---- registers: TPB_<ENGINE>_<BLOCK>_<REGISTER>_ADDR, fields _SHIFT / _MASK ---- */
"#;
    for x in regs {
        s += &c_line(x);
    }
    s += "\n#endif /* TPB_FW_H */\n";
    Ok(s)
}

fn c_line(x: &Sym) -> String {
    match x {
        Sym::Value { ident, value, note: None } => format!("#define TPB_{ident} {value:#010x}u\n"),
        Sym::Value { ident, value, note: Some(n) } => format!("#define TPB_{ident} {value:#010x}u /* {n} */\n"),
        Sym::Array { ident, base, stride } => format!("#define TPB_{ident}_ADDR(i) ({base:#010x}u + (i) * {stride}u)\n"),
        Sym::Field { ident, shift, mask } => format!("#define TPB_{ident}_SHIFT {shift}u\n#define TPB_{ident}_MASK {mask:#010x}u\n"),
    }
}

/// `tpb.inc`, the assembler's prelude (`.include "tpb.inc"`): the same
/// names as the C header, as `.equ` constants; every address also as
/// `_HI` / `_LO` halves for `const16`, and each array window's `_STRIDE`;
/// `TPB_RESET_JUMP` and `TPB_ENTER_RUN` ([`super::boot_symbols`], given to
/// C as `-D` flags).
///
/// Kept for the last few maps (`firmware::by_map`): every firmware unit a run
/// assembles includes it, and a render is about 20M instructions.
pub fn render_asm(map: &RegMap) -> Result<String, HeaderError> {
    static KEPT: ByMap<String> = ByMap::new();
    KEPT.with(map, || render_asm_anew(map), |text| Ok(text.clone()))
}

fn render_asm_anew(map: &RegMap) -> Result<String, HeaderError> {
    let mut s = format!("# GENERATED by tpb (tpb-cosim cfw::header) from the {} register map (models/regmap/maps/).\n# Addresses are as a core sees them; X_HI / X_LO are the halves const16 loads.\n", map.arch.name());
    let eq = |s: &mut String, name: &str, v: u32| *s += &format!(".equ {name}, {v:#x}\n.equ {name}_HI, {:#x}\n.equ {name}_LO, {:#x}\n", v >> 16, v & 0xffff);
    for (name, v) in super::boot_symbols(map) {
        s += &format!(".equ TPB_{name}, {v:#x}\n");
    }
    for x in symbols(map)? {
        match x {
            Sym::Value { ident, value, .. } => eq(&mut s, &format!("TPB_{ident}"), value),
            Sym::Array { ident, base, stride } => {
                eq(&mut s, &format!("TPB_{ident}_ADDR"), base);
                s += &format!(".equ TPB_{ident}_STRIDE, {stride:#x}\n");
            }
            Sym::Field { ident, shift, mask } => s += &format!(".equ TPB_{ident}_SHIFT, {shift}\n.equ TPB_{ident}_MASK, {mask:#x}\n"),
        }
    }
    Ok(s)
}
