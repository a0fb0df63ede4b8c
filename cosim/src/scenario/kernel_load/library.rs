//! The kernel library of `kernel-load` and the host's side of the seeds'
//! load chain (seed 000 §3g: get the library's device image and manifest,
//! prelink it, stage it on the device; the on-device dispatch wrapper then
//! linear-scans the kernel_info_table). Prelinking here places each kernel
//! (resident: in the Q7 image, code window; loadable: dyn window), patches
//! its relocations (the two `const16`s of its own funcVA), and builds the
//! kernel_info_table and the swap table that point at the result.

use crate::firmware::{self, FirmwareError};
use tpb_models::regmap::Arch;
use tpb_models::spec::{dkl, q7_kernels as k};

/// Where a kernel lives until it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// In the Q7 image behind the shell (code window).
    Resident,
    /// Loaded on its first request from the library in device memory.
    Library,
    /// Loaded on its first request from the EXTRAM image (SUNDA, seed 000
    /// §3g: the only non-zero EXTRAM); elsewhere from the library.
    Extram,
}

/// A kernel of the library (`[D]`: the seeds keep the opcodes' range and
/// the 0xf0 spec rows, not the kernels' bodies). Its result is
/// ((operand << shift) + adds × add) ^ its funcVA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
    pub opcode: u8,
    pub spec: u8,
    pub home: Home,
    pub shift: u32,
    pub add: i32,
    pub adds: u32,
}

const fn kn(opcode: u8, spec: u8, home: Home, shift: u32, add: i32, adds: u32) -> Kernel {
    Kernel { opcode, spec, home, shift, add, adds }
}

/// `[D]` The library: two resident kernels, three from device memory, two
/// from EXTRAM, and five 0xf0 rows, spec 1..5 (CAYMAN's 5-row 0xf0 spec
/// sub-dispatch, seed 000 §3a; SUNDA's table has no 0xf0 row).
pub const LIBRARY: [Kernel; 12] = [
    kn(0x41, 0, Home::Resident, 1, 3, 1),
    kn(0x43, 0, Home::Resident, 2, -5, 2),
    kn(0x44, 0, Home::Library, 3, 7, 3),
    kn(0x49, 0, Home::Library, 4, 11, 1),
    kn(0x62, 0, Home::Library, 5, -13, 4),
    kn(0xe6, 0, Home::Extram, 6, 17, 2),
    kn(0xe7, 0, Home::Extram, 7, -19, 5),
    kn(k::EXTENDED_INST, 1, Home::Library, 8, 23, 1),
    kn(k::EXTENDED_INST, 2, Home::Library, 9, 25, 2),
    kn(k::EXTENDED_INST, 3, Home::Library, 10, 27, 3),
    kn(k::EXTENDED_INST, 4, Home::Library, 11, 29, 4),
    kn(k::EXTENDED_INST, 5, Home::Library, 12, 31, 5),
];

impl Kernel {
    /// It uses the windowed ABI: the EXTRAM's kernels (`[D]`; the seeds'
    /// EXTRAM is windowed code from its first bytes, seed 000 §3g).
    pub fn windowed(&self) -> bool {
        self.home == Home::Extram
    }
    /// What it returns for `operand` when it runs at `func_va`.
    pub fn result(&self, operand: u32, func_va: u32) -> u32 {
        (operand << self.shift).wrapping_add(self.adds.wrapping_mul(self.add as u32)) ^ func_va
    }
}

/// Why a library does not prelink.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DklError {
    #[error("{what} needs {need:#x} bytes, {room:#x} fit ({why})")]
    TooBig { what: &'static str, need: u32, room: u32, why: &'static str },
    #[error("kernel {opcode:#04x}/{spec}: the relocation at +{at:#x} is not a const16 ({byte:#04x})")]
    NotConst16 { opcode: u8, spec: u8, at: usize, byte: u8 },
    #[error("{0}")]
    Firmware(#[from] FirmwareError),
}

/// A kernel as prelinked: where it runs and where its image comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub kernel: Kernel,
    pub func_va: u32,
    /// Its image, relocations patched, padded to words.
    pub image: Vec<u8>,
    /// Device address it is loaded from (0 for a resident kernel).
    pub src: u64,
    pub home: Home,
    /// Where in the image its relocations are: two `const16`s, 3 bytes each.
    pub rel: usize,
}

impl Placed {
    /// Its image as assembled: the relocations' immediates left at 0.
    pub fn unrelocated(&self) -> Vec<u8> {
        let mut v = self.image.clone();
        for n in 0..2 {
            v[self.rel + 3 * n + 1..self.rel + 3 * n + 3].fill(0);
        }
        v
    }
    /// Its IRAM address in a core.
    pub fn iram(&self) -> u32 {
        match self.home {
            Home::Resident => self.func_va - k::CODE_WINDOW,
            _ => self.func_va - k::DYN_WINDOW + dkl::DYN_IRAM,
        }
    }
}

/// Everything the host stages (seed 000 §3g's "device-stage").
#[derive(Debug, Clone, Default)]
pub struct Staged {
    /// The Q7 IRAM image: the shell, then the resident kernels.
    pub iram: Vec<u8>,
    /// The kernel_info_table (its records in [`Staged::placed`]'s order).
    pub table: Vec<u8>,
    /// The swap table (a record per loadable kernel, in order).
    pub swap: Vec<u8>,
    /// The library's loadable images at [`dkl::LIB_BASE`] and the EXTRAM image at [`dkl::EXTRAM_BASE`].
    pub lib: Vec<u8>,
    pub extram: Vec<u8>,
    pub placed: Vec<Placed>,
}

impl Staged {
    /// The swap records (loadable kernels), in table order.
    pub fn loadable(&self) -> impl Iterator<Item = &Placed> {
        self.placed.iter().filter(|p| p.home != Home::Resident)
    }
    /// The kernel_info_table record an (opcode, spec) reaches first (a linear scan).
    pub fn record(&self, opcode: u8, spec: u8) -> Option<usize> {
        self.placed.iter().position(|p| p.kernel.opcode == opcode && p.kernel.spec == spec)
    }
}

/// The generation has the 0xf0 ExtendedInst escape (CAYMAN on; DIGEST §1,
/// seed 000 §2d). Without it (SUNDA) the table has no 0xf0 row and the SEQ
/// hands every opcode over as itself.
pub fn has_escape(arch: Arch) -> bool {
    arch != Arch::Sunda
}

/// The EXTRAM a generation has: SUNDA's 0x1b40 B, none elsewhere (seed 000 §3g).
pub fn extram_bytes(arch: Arch) -> u32 {
    if arch == Arch::Sunda {
        k::EXTRAM_BYTES
    } else {
        0
    }
}

/// The library's kernels on `arch`: no 0xf0 row without the escape; no
/// EXTRAM, so the EXTRAM's kernels come from the library.
pub fn kernels_for(arch: Arch, lib: &[Kernel]) -> Vec<Kernel> {
    let extram = extram_bytes(arch) > 0;
    lib.iter()
        .filter(|x| has_escape(arch) || x.opcode != k::EXTENDED_INST)
        .map(|x| Kernel { home: if x.home == Home::Extram && !extram { Home::Library } else { x.home }, ..*x })
        .collect()
}

/// Prelink `lib` (already chosen for the generation) behind `shell` (the
/// Q7 image); `extram_bytes` the EXTRAM the generation has (0: none).
pub fn prelink(shell: &[u8], lib: &[Kernel], extram_bytes: u32) -> Result<Staged, DklError> {
    if lib.len() > dkl::MAX_RECORDS as usize {
        return Err(DklError::TooBig { what: "the kernel_info_table", need: lib.len() as u32 * k::RECORD_BYTES, room: dkl::MAX_RECORDS * k::RECORD_BYTES, why: "the shell's DRAM layout" });
    }
    let src: String = lib.iter().enumerate().map(|(i, x)| firmware::dkl::kernel_source(&format!("k_{i}"), x.shift, x.add, x.adds, x.windowed())).collect();
    let prog = firmware::dkl::kernels(&src)?;
    let label = |n: String| prog.labels.get(&n).map(|a| *a as usize).ok_or_else(|| FirmwareError { file: "kernel library", message: format!("no label {n}") });
    let mut s = Staged { iram: shell.to_vec(), ..Staged::default() };
    s.iram.resize(s.iram.len().next_multiple_of(4), 0);
    let mut dyn_at = 0u32;
    for (i, x) in lib.iter().enumerate() {
        let (from, rel, to) = (label(format!("k_{i}"))?, label(format!("k_{i}_rel"))?, label(format!("k_{i}_end"))?);
        let mut image = prog.bytes[from..to].to_vec();
        image.resize(image.len().next_multiple_of(4), 0);
        let (func_va, src) = match x.home {
            Home::Resident => (k::CODE_WINDOW + s.iram.len() as u32, 0),
            Home::Library => (k::DYN_WINDOW + dyn_at, dkl::LIB_BASE + s.lib.len() as u64),
            Home::Extram => (k::DYN_WINDOW + dyn_at, dkl::EXTRAM_BASE + s.extram.len() as u64),
        };
        // The relocations: const16 a7, funcVA >> 16; const16 a7, funcVA & 0xffff.
        for (n, half) in [(func_va >> 16) as u16, func_va as u16].into_iter().enumerate() {
            let at = rel - from + 3 * n;
            if image[at] & 0x0f != 4 {
                return Err(DklError::NotConst16 { opcode: x.opcode, spec: x.spec, at, byte: image[at] });
            }
            image[at + 1..at + 3].copy_from_slice(&half.to_le_bytes());
        }
        match x.home {
            Home::Resident => s.iram.extend(&image),
            Home::Library => s.lib.extend(&image),
            Home::Extram => s.extram.extend(&image),
        }
        if x.home != Home::Resident {
            dyn_at += image.len() as u32;
            let size = image.len() as u32 | u32::from(x.windowed()) << 31;
            s.swap.extend([func_va, src as u32, (src >> 32) as u32, size].iter().flat_map(|w| w.to_le_bytes()));
        }
        s.table.extend([0, 0, x.spec, x.opcode]);
        s.table.extend(func_va.to_le_bytes());
        s.placed.push(Placed { kernel: *x, func_va, image, src, home: x.home, rel: rel - from });
    }
    let fit = |what, need: usize, room: u32, why| if need as u32 > room { Err(DklError::TooBig { what, need: need as u32, room, why }) } else { Ok(()) };
    fit("the shell and its resident kernels", s.iram.len(), dkl::DYN_IRAM, "they end where the dyn window's IRAM begins")?;
    fit("the loadable kernels", dyn_at as usize, dkl::DYN_BYTES, "the dyn window")?;
    fit("the EXTRAM image", s.extram.len(), extram_bytes, "the generation's EXTRAM (seed 000 §3g)")?;
    Ok(s)
}
