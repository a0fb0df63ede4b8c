//! ELF32 Xtensa images: load the PT_LOAD segments of an executable into a
//! [`MemorySpace`] (all-or-nothing), and write executables from segments
//! (for the QEMU oracle). Parsing and writing use the `object` crate.

use super::bus::MemorySpace;
use object::elf;
use object::read::elf::{ElfFile32, FileHeader, ProgramHeader};
use object::{Endianness, LittleEndian};

/// One loadable segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub addr: u32,
    /// File bytes; `mem_size` ≥ data.len() (the rest is zero).
    pub data: Vec<u8>,
    pub mem_size: u32,
}

/// An executable's entry point and segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub entry: u32,
    pub segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    #[error("not an ELF32 little-endian file: {0}")]
    Parse(String),
    #[error("ELF machine {0} is not Xtensa (94)")]
    Machine(u16),
    #[error("segment at {addr:#x} ({size:#x} bytes) does not fit the memory map: {why}")]
    DoesNotFit { addr: u32, size: u32, why: String },
}

/// Parse an ELF32 little-endian Xtensa executable.
pub fn parse(bytes: &[u8]) -> Result<Image, ElfError> {
    let f = ElfFile32::<LittleEndian>::parse(bytes).map_err(|e| ElfError::Parse(e.to_string()))?;
    let h = f.elf_header();
    let e = f.endian();
    let machine = h.e_machine(e);
    if machine != elf::EM_XTENSA {
        return Err(ElfError::Machine(machine));
    }
    let mut segments = Vec::new();
    for ph in f.elf_program_headers() {
        if ph.p_type(e) != elf::PT_LOAD {
            continue;
        }
        let data = ph.data(e, bytes).map_err(|_| ElfError::Parse("segment data out of the file".into()))?.to_vec();
        let mem_size = ph.p_memsz(e);
        if (mem_size as usize) < data.len() {
            return Err(ElfError::Parse(format!("segment at {:#x}: memsz < filesz", ph.p_paddr(e))));
        }
        segments.push(Segment { addr: ph.p_paddr(e), data, mem_size });
    }
    Ok(Image { entry: h.e_entry(e), segments })
}

impl Image {
    /// Copy every segment (zero-filled to its memory size) into `mem`;
    /// checks all segments first so a bad image changes nothing.
    pub fn load(&self, mem: &mut MemorySpace) -> Result<(), ElfError> {
        for s in &self.segments {
            mem.read_bytes(s.addr, s.mem_size as usize).map_err(|e| ElfError::DoesNotFit { addr: s.addr, size: s.mem_size, why: e.to_string() })?;
        }
        for s in &self.segments {
            let mut full = s.data.clone();
            full.resize(s.mem_size as usize, 0);
            mem.write_bytes(s.addr, &full).expect("checked above");
        }
        Ok(())
    }

    /// An ELF32 little-endian Xtensa executable of these segments.
    pub fn write(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        let mut w = object::write::elf::Writer::new(Endianness::Little, false, &mut buf);
        w.reserve_file_header();
        w.reserve_program_headers(self.segments.len() as u32);
        let offsets: Vec<usize> = self.segments.iter().map(|s| w.reserve(s.data.len(), 4)).collect();
        w.write_file_header(&object::write::elf::FileHeader {
            os_abi: 0,
            abi_version: 0,
            e_type: elf::ET_EXEC,
            e_machine: elf::EM_XTENSA,
            e_entry: self.entry as u64,
            e_flags: 0x300,
        })
        .expect("in-memory write");
        w.write_align_program_headers();
        for (s, &off) in self.segments.iter().zip(&offsets) {
            w.write_program_header(&object::write::elf::ProgramHeader {
                p_type: elf::PT_LOAD,
                p_flags: elf::PF_R | elf::PF_W | elf::PF_X,
                p_offset: off as u64,
                p_vaddr: s.addr as u64,
                p_paddr: s.addr as u64,
                p_filesz: s.data.len() as u64,
                p_memsz: s.mem_size as u64,
                p_align: 4,
            });
        }
        for s in &self.segments {
            w.write_align(4);
            w.write(&s.data);
        }
        buf
    }
}

/// The named symbols of an ELF (functions, objects, labels), by address:
/// `(address, name)`, sorted, so a PC can be told as symbol + offset
/// ([`symbolize`]). An ELF without a symbol table gives none.
pub fn symbols(bytes: &[u8]) -> Result<Vec<(u32, String)>, ElfError> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let f = ElfFile32::<LittleEndian>::parse(bytes).map_err(|e| ElfError::Parse(e.to_string()))?;
    let mut v: Vec<(u32, String)> = f
        .symbols()
        .filter(|s| matches!(s.kind(), SymbolKind::Text | SymbolKind::Data | SymbolKind::Label | SymbolKind::Unknown))
        .filter_map(|s| Some((s.address() as u32, s.name().ok()?.to_string())))
        .filter(|(_, n)| !n.is_empty() && !n.starts_with('$') && !n.starts_with(".L"))
        .collect();
    v.sort();
    v.dedup();
    Ok(v)
}

/// `addr` as `symbol+0xoff` from a sorted symbol list: the nearest symbol
/// at or below it; `None` below the first.
pub fn symbolize(syms: &[(u32, String)], addr: u32) -> Option<String> {
    let i = syms.partition_point(|(a, _)| *a <= addr).checked_sub(1)?;
    let (a, n) = &syms[i];
    Some(if *a == addr { n.clone() } else { format!("{n}+{:#x}", addr - a) })
}

/// An ELF's code: each section that holds instructions (`SHF_EXECINSTR`),
/// or without section headers each executable segment, as (name, address,
/// bytes), in address order. For `tpb disasm` on an ELF.
pub fn code_sections(bytes: &[u8]) -> Result<Vec<(String, u32, Vec<u8>)>, ElfError> {
    use object::{Object, ObjectSection, SectionFlags};
    let f = ElfFile32::<LittleEndian>::parse(bytes).map_err(|e| ElfError::Parse(e.to_string()))?;
    let e = f.endian();
    let machine = f.elf_header().e_machine(e);
    if machine != elf::EM_XTENSA {
        return Err(ElfError::Machine(machine));
    }
    let mut v = Vec::new();
    for s in f.sections() {
        let exec = matches!(s.flags(), SectionFlags::Elf { sh_flags } if sh_flags & u64::from(elf::SHF_EXECINSTR) != 0);
        if !exec || s.size() == 0 {
            continue;
        }
        let data = s.data().map_err(|e| ElfError::Parse(e.to_string()))?.to_vec();
        v.push((s.name().unwrap_or("?").to_string(), s.address() as u32, data));
    }
    if v.is_empty() {
        // No section headers (as `tpb asm --elf` writes): the executable segments.
        for (i, ph) in f.elf_program_headers().iter().enumerate() {
            if ph.p_type(e) == elf::PT_LOAD && ph.p_flags(e) & elf::PF_X != 0 {
                let data = ph.data(e, bytes).map_err(|_| ElfError::Parse("segment data out of the file".into()))?.to_vec();
                v.push((format!("segment {i}"), ph.p_paddr(e), data));
            }
        }
    }
    v.sort_by_key(|(_, a, _)| *a);
    Ok(v)
}
