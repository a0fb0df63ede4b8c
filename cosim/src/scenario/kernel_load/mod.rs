//! The `kernel-load` scenario (see the table in `../mod.rs`): kernel
//! delivery (seed 004 §5, seed 000 §2d, §3f, §3g; DIGEST §9). The host
//! prelinks the kernel library ([`library`]), stages its loadable images,
//! the EXTRAM image and the swap table in device memory, and points the
//! cores at the swap table: on SUNDA through its HAL's `swap_table` (the
//! triple in `nx_rsvd_space0..2`, with `swap_file_io_table` beside it), on
//! CAYMAN/MARIANA, whose hooks are stubs, in the Q7 image's DRAM
//! (firmware-resident DKL). The SEQ (`nx_extinst.S`) walks its instruction
//! stream and hands the Q7's instructions to a core, waiting for each; the
//! core's shell (`q7_dkl.S`) loads a kernel on its first request and runs it.

pub mod library;

use super::*;
use library::{extram_bytes, has_escape, Home, Staged};
use tpb_models::golden::q7_cluster::CORES;
use tpb_models::hal::{DevMem, FileIoTable};
use tpb_models::spec::{dkl, q7_kernels as k};

use crate::firmware::dkl::{q7_dram, seq_dram};

/// One instruction of the SEQ's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Insn {
    pub op: u8,
    #[serde(default)]
    pub spec: u8,
    /// The Q7 core it goes to (when the SEQ hands it over).
    #[serde(default)]
    pub core: u8,
    #[serde(default)]
    pub operand: u32,
}

/// `[kernel_load]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelLoadCfg {
    /// The SEQ's instruction stream (1 to 64).
    pub stream: Vec<Insn>,
}

/// A fault a test puts into the set-up, to see the checks catch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    #[default]
    None,
    /// The swap table's record count says one fewer than it holds.
    ShortSwapTable,
    /// The prelink's relocations are undone in the staged library (the
    /// kernels run where the table says, with the wrong funcVA inside).
    Unrelocated,
}

/// What the stream should do on `arch`: per instruction, whether the SEQ
/// hands it over, and then the record it reaches and the result.
fn expected(arch: Arch, s: &Staged, i: &Insn) -> Option<(Option<usize>, u32)> {
    let handed = !has_escape(arch) || i.op == k::EXTENDED_INST;
    handed.then(|| {
        let rec = s.record(i.op, i.spec);
        (rec, rec.map_or(0, |n| s.placed[n].kernel.result(i.operand, s.placed[n].func_va)))
    })
}

/// `kernel-load`: see the module.
pub fn kernel_load(c: &mut Cosim, cfg: &KernelLoadCfg, limit: u64) -> Result<Report, ScenarioError> {
    run_with(c, cfg, limit, Fault::None)
}

/// [`kernel_load()`] with `fault` put into its set-up.
pub fn run_with(c: &mut Cosim, cfg: &KernelLoadCfg, limit: u64, fault: Fault) -> Result<Report, ScenarioError> {
    let map = c.map().clone();
    let arch = map.arch;
    let sunda = arch == Arch::Sunda;
    let hal = Hal::with_map(map.clone());
    let mut r = Report::default();
    // The swap-table triple: SUNDA's HAL names its registers, the stubs give zeros.
    let regs = hal.q7_swap_table_get_register_offsets()?;
    let swap_regs = if regs[0] == 0 { 0 } else { firmware::sys(regs[0] as u32) };
    let lib = library::kernels_for(arch, &library::LIBRARY);
    let shell = firmware::dkl::q7_dkl(&map, lib.len() as u32, swap_regs)?;
    let s = library::prelink(&shell.bytes, &lib, extram_bytes(arch))?;
    r.check(0, !sunda || s.iram.len() as u32 <= k::FLAT_IRAM_BYTES, format!("the shell and its resident kernels are {:#x} bytes, within SUNDA's flat Q7 IRAM of {:#x}", s.iram.len(), k::FLAT_IRAM_BYTES))?;
    if !s.extram.is_empty() {
        let head = s.extram.get(..3).unwrap_or(&s.extram);
        r.check(0, head == k::EXTRAM_HEAD, format!("the EXTRAM image opens with {head:02x?}, the seeds' EXTRAM with {:02x?} (entry a1, 48; seed 000 §3g)", k::EXTRAM_HEAD))?;
    }
    let ext_rows = s.placed.iter().filter(|p| p.kernel.opcode == k::EXTENDED_INST).count();
    let escape = has_escape(arch);
    r.check(0, (ext_rows > 0) == escape, format!("the kernel_info_table has {ext_rows} 0xf0 rows ({}: {})", arch.name(), if escape { "the 5-row spec sub-dispatch" } else { "none, seed 000 §3a" }))?;
    // Device-stage (the prelinked library, EXTRAM, the swap table).
    let mut lib_img = s.lib.clone();
    if fault == Fault::Unrelocated {
        for p in s.loadable().filter(|p| p.home == Home::Library) {
            let at = (p.src - dkl::LIB_BASE) as usize;
            lib_img[at..at + p.image.len()].copy_from_slice(&p.unrelocated());
        }
    }
    c.devmem_write(dkl::LIB_BASE, &lib_img)?;
    if !s.extram.is_empty() {
        c.devmem_write(dkl::EXTRAM_BASE, &s.extram)?;
    }
    c.devmem_write(dkl::SWAP_TABLE, &s.swap)?;
    let records = (s.loadable().count() as u32).saturating_sub(u32::from(fault == Fault::ShortSwapTable));
    let triple = [dkl::SWAP_TABLE as u32, (dkl::SWAP_TABLE >> 32) as u32, records];
    hal.q7_swap_table(c, triple)?;
    let io = FileIoTable { tx_ring_base: dma_rings().tx.base, tx_ring_length: dma_rings().tx.length, q7_intr_info: 0 };
    hal.q7_swap_file_io_table(c, &io)?;
    // The Q7 DRAM image: the firmware-resident swap pointer (where the HAL's hooks are stubs), the table.
    let mut dram = vec![0u8; (q7_dram::TABLE as usize) + s.table.len()];
    if swap_regs == 0 {
        dram[q7_dram::SWAP_PTR as usize..][..12].copy_from_slice(&words(&triple));
    }
    dram[q7_dram::TABLE as usize..].copy_from_slice(&s.table);
    // The SEQ: its stream in DRAM.
    let seq = firmware::dkl::nx_extinst(&map, sunda, !escape)?;
    let stream: Vec<u32> = std::iter::once(cfg.stream.len() as u32).chain(cfg.stream.iter().flat_map(|i| [u32::from(i.op) | u32::from(i.spec) << 8 | u32::from(i.core) << 16, i.operand])).collect();
    let mut seq_img = vec![0u8; seq_dram::STREAM as usize];
    seq_img.extend(words(&stream));
    let mut st = StpbConfig::new(UcodeImages { iram: seq.bytes, dram: seq_img }, UcodeImages { iram: s.iram.clone(), dram });
    st.pooling.dma = Some(dma_rings());
    hal.stpb_init(c, &st, None)?;
    let seq_base = region(c, "seq.dram")?;
    let done = poll(c, seq_base + u64::from(seq_dram::DONE_AT), limit, |v| v == firmware::EXTINST_DONE)?;
    r.check(c.stats.cycles, done.is_some(), format!("the SEQ did not get through its {} instructions within {limit} cycles", cfg.stream.len()))?;
    r.events.push((c.stats.cycles, "the SEQ's stream is through".into()));
    check_stream(c, cfg, &s, seq_base, &mut r)?;
    check_cores(c, cfg, &s, &mut r)?;
    // The HAL's view of the swap registers.
    if sunda {
        for (a, v) in regs.iter().zip(triple) {
            let got = c.read32(*a)?;
            r.check(c.stats.cycles, got == v, format!("swap_table's register {a:#x} holds {got:#x}, written {v:#x} (nx_rsvd_space, seed 004 §5a)"))?;
        }
    } else {
        r.check(c.stats.cycles, regs == [0; 3], format!("{}'s swap_table_get_register_offsets gave {regs:x?}: a stub zeroes them (seed 004 §5b)", arch.name()))?;
    }
    r.events.sort();
    r.value("devmem.words", c.stats.devmem);
    r.value("dkl.extram_bytes", s.extram.len() as u64);
    r.value("dkl.lib_bytes", s.lib.len() as u64);
    r.stats = c.stats;
    Ok(r)
}

/// The SEQ's log: each instruction handed over (or kept), the record it
/// reached, its result, and that the SEQ waited for it.
fn check_stream(c: &mut Cosim, cfg: &KernelLoadCfg, s: &Staged, seq: u64, r: &mut Report) -> Result<(), ScenarioError> {
    let arch = c.map().arch;
    let (mut handed, mut own) = (0u32, 0u32);
    let mut first_hand = None;
    for (n, i) in cfg.stream.iter().enumerate() {
        let log = seq + u64::from(seq_dram::LOG + seq_dram::LOG_BYTES * n as u32);
        let (result, polls, record) = (c.read32(log)?, c.read32(log + 4)?, c.read32(log + 8)?);
        let what = format!("instruction {n} ({:#04x}/{}, core {}, operand {:#x})", i.op, i.spec, i.core, i.operand);
        match expected(arch, s, i) {
            None => {
                own += 1;
                r.check(c.stats.cycles, result == u32::MAX, format!("{what}: the SEQ executes it itself, but logged {result:#x}"))?;
            }
            Some((rec, want)) => {
                handed += 1;
                first_hand.get_or_insert(n);
                let rec_want = rec.map_or(0xff, |x| x as u32);
                r.check(c.stats.cycles, record == rec_want, format!("{what}: went to record {record:#x}, expected {rec_want:#x}"))?;
                r.check(c.stats.cycles, result == want, format!("{what}: result {result:#x}, expected {want:#x}"))?;
                r.check(c.stats.cycles, polls >= 1, format!("{what}: the SEQ polled the core's done word {polls} times"))?;
            }
        }
    }
    let (h, o) = (c.read32(seq + u64::from(seq_dram::HANDED))?, c.read32(seq + u64::from(seq_dram::OWN))?);
    r.check(c.stats.cycles, (h, o) == (handed, own), format!("the SEQ handed over {h} and kept {o}, expected {handed} and {own}"))?;
    r.value("seq.handed", u64::from(h));
    r.value("seq.own", u64::from(o));
    // The first hand-off and its completion, as the SEQ's BAR0 traffic shows them.
    if let Some(n) = first_hand {
        let q7 = region(c, &format!("q7[{}].dram", cfg.stream[n].core))? as u32;
        let seq_no = n as u32 + 1;
        let go = first(c, |t| t.master == Master::Core(CoreId::Seq) && t.write && t.addr == q7 + q7_dram::MB_GO && t.data == seq_no).map(|t| t.cycle);
        let back = first(c, |t| t.master == Master::Core(CoreId::Seq) && !t.write && t.addr == q7 + q7_dram::MB_DONE && t.data == seq_no).map(|t| t.cycle);
        r.events.extend(go.map(|t| (t, format!("the SEQ hands instruction {n} to Q7 core {}", cfg.stream[n].core))));
        r.events.extend(back.map(|t| (t, format!("the SEQ reads instruction {n} done"))));
        if let (Some(a), Some(b)) = (go, back) {
            r.key = Some((a, b));
        }
    }
    Ok(())
}

/// Each core: the kernels it loaded (once each, on its first request, none
/// it was not asked for), the bytes in its IRAM, its counters.
fn check_cores(c: &mut Cosim, cfg: &KernelLoadCfg, s: &Staged, r: &mut Report) -> Result<(), ScenarioError> {
    let arch = c.map().arch;
    let loadable: Vec<&library::Placed> = s.loadable().collect();
    for core in 0..CORES as u8 {
        let mine: Vec<&Insn> = cfg.stream.iter().filter(|i| i.core == core && expected(arch, s, i).is_some()).collect();
        let dram = region(c, &format!("q7[{core}].dram"))?;
        let iram = region(c, &format!("q7[{core}].iram"))?;
        let rd = |c: &mut Cosim, off: u32| c.read32(dram + u64::from(off));
        let (served, misses, loads, words_in) = (rd(c, q7_dram::CNT_SERVED)?, rd(c, q7_dram::CNT_MISSES)?, rd(c, q7_dram::CNT_LOADS)?, rd(c, q7_dram::CNT_WORDS)?);
        let want_miss = mine.iter().filter(|i| s.record(i.op, i.spec).is_none()).count() as u32;
        r.check(c.stats.cycles, served == mine.len() as u32 && misses == want_miss, format!("core {core}: served {served} with {misses} misses, expected {} with {want_miss}", mine.len()))?;
        let (mut want_loads, mut want_words) = (0u32, 0u32);
        for (n, p) in loadable.iter().enumerate() {
            let asked = mine.iter().any(|i| i.op == p.kernel.opcode && i.spec == p.kernel.spec);
            let flag = rd(c, q7_dram::LOADED + 4 * n as u32)?;
            let what = format!("core {core}: kernel {:#04x}/{} ({:?}, funcVA {:#x})", p.kernel.opcode, p.kernel.spec, p.home, p.func_va);
            r.check(c.stats.cycles, (flag == 1) == asked, format!("{what}: load flag {flag}, {}", if asked { "requested" } else { "never requested" }))?;
            let mut img = Vec::with_capacity(p.image.len());
            for w in 0..p.image.len() as u64 / 4 {
                img.extend(c.read32(iram + u64::from(p.iram()) + 4 * w)?.to_le_bytes());
            }
            let want: Vec<u8> = if asked { p.image.clone() } else { vec![0; p.image.len()] };
            r.check(c.stats.cycles, img == want, format!("{what}: IRAM at {:#x} {}", p.iram(), if asked { "differs from its prelinked image" } else { "was written, though it was never loaded" }))?;
            if asked {
                want_loads += 1;
                want_words += p.image.len() as u32 / 4;
            }
        }
        r.check(c.stats.cycles, (loads, words_in) == (want_loads, want_words), format!("core {core}: {loads} loads of {words_in} words, expected {want_loads} of {want_words} (each kernel once)"))?;
        if loads > 0 {
            r.value(format!("q7[{core}].loads"), u64::from(loads));
        }
    }
    Ok(())
}

impl Scenario for KernelLoadCfg {
    fn runs(&self) -> Runs<'_> {
        Runs::OneSystem(self)
    }
    fn check(&self, path: &str) -> Result<(), ScenarioError> {
        if self.stream.is_empty() || self.stream.len() > seq_dram::MAX_STREAM {
            return Err(ScenarioError::File(format!("{path}: [kernel_load] stream: 1 to {} instructions, not {}", seq_dram::MAX_STREAM, self.stream.len())));
        }
        if let Some((n, i)) = self.stream.iter().enumerate().find(|(_, i)| usize::from(i.core) >= CORES) {
            return Err(ScenarioError::File(format!("{path}: [kernel_load] stream[{n}]: core {} (the cluster has {CORES})", i.core)));
        }
        Ok(())
    }
    fn key_window(&self, r: &Report, s: &Stats) -> Option<(u64, u64, Vec<G>)> {
        let (a, b) = r.key.or(s.first_release.map(|x| (x, x + 200)))?;
        Some((a.saturating_sub(8), b + 16, vec![G::Cores, G::Q7Core0]))
    }
    fn diagrams(&self, _: &Stats, view: Option<&crate::waves::View>) -> Vec<(G, u64, u64)> {
        over_view(G::Cores, view)
    }
}

impl OneSystem for KernelLoadCfg {
    fn run_on(&self, c: &mut Cosim, limit: u64) -> Result<Report, ScenarioError> {
        kernel_load(c, self, limit)
    }
}
