//! Kernel delivery (`kernel-load`; seed 004 §5, seed 000 §2d/§3g): the SEQ
//! hands instructions to Q7 cores and waits; each core loads a kernel on
//! its first request through the swap table, from device memory or EXTRAM,
//! and runs it where the prelink placed it. The faults show the checks
//! catching a short swap table and a library staged without relocations.

use tpb_cosim::scenario::kernel_load::{self, library, Fault, KernelLoadCfg};
use tpb_cosim::scenario::{ScenarioError, ScenarioFile};
use tpb_cosim::sched::Cosim;
use tpb_models::regmap::Arch;
use tpb_models::spec::{dkl, q7_kernels as k};

const ALL: [Arch; 3] = [Arch::Sunda, Arch::Cayman, Arch::Mariana];

fn cfg() -> (KernelLoadCfg, u64) {
    let f = ScenarioFile::find("kernel-load").unwrap();
    (f.kernel_load.clone().unwrap(), f.cycles)
}

#[test]
fn every_generation_loads_its_kernels_on_request_and_the_seq_waits_for_each() {
    let (f, limit) = cfg();
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = kernel_load::kernel_load(&mut c, &f, limit).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let sunda = arch == Arch::Sunda;
        // SUNDA hands every instruction over (no 0xf0 escape); CAYMAN+ only the three 0xf0s.
        assert_eq!((r.get("seq.handed"), r.get("seq.own")), if sunda { (10, 0) } else { (3, 7) }, "{arch:?}");
        // Loads: SUNDA core 0 loads 0x49, core 1 0xe7 (EXTRAM) and 0x49; CAYMAN+ core 0 0xf0/2, core 1 0xf0/5 and 0xf0/2.
        assert_eq!((r.get("q7[0].loads"), r.get("q7[1].loads")), (1, 2), "{arch:?}");
        assert_eq!(r.get("dkl.extram_bytes") > 0, sunda, "{arch:?}: only SUNDA has EXTRAM");
        assert!(r.get("devmem.words") > 0, "{arch:?}: the loader read device memory through the SoC port");
        println!("{arch:?}: {} checks, {} cycles, {} device-memory words", r.checks.len(), r.stats.cycles, r.get("devmem.words"));
    }
}

fn failure(arch: Arch, fault: Fault) -> String {
    let (f, limit) = cfg();
    let mut c = Cosim::new(arch).unwrap();
    match kernel_load::run_with(&mut c, &f, limit, fault) {
        Err(ScenarioError::Check { what, .. }) => what,
        other => panic!("{arch:?} {fault:?}: expected a failed check, got {other:?}"),
    }
}

/// The swap table's count one short: the last record (SUNDA 0xe7 from
/// EXTRAM, CAYMAN 0xf0/5) is not found, and its instruction's result is wrong.
#[test]
fn a_short_swap_table_fails_naming_the_instruction() {
    let s = failure(Arch::Sunda, Fault::ShortSwapTable);
    assert!(s.starts_with("instruction 4 (0xe7/0, core 1") && s.contains("result 0x0"), "{s}");
    let c = failure(Arch::Cayman, Fault::ShortSwapTable);
    assert!(c.starts_with("instruction 5 (0xf0/5, core 1") && c.contains("result 0x0"), "{c}");
}

/// The library staged as assembled, its relocations not applied: the
/// kernels load and run, but return a result computed with funcVA 0.
#[test]
fn a_library_without_its_relocations_fails_on_the_first_loaded_kernel() {
    let s = failure(Arch::Sunda, Fault::Unrelocated);
    assert!(s.starts_with("instruction 0 (0x49/0, core 0") && s.contains("result"), "{s}");
    let c = failure(Arch::Mariana, Fault::Unrelocated);
    assert!(c.starts_with("instruction 1 (0xf0/2, core 0"), "{c}");
}

#[test]
fn prelink_places_each_kernel_and_refuses_what_does_not_fit() {
    let shell = vec![0u8; 0x400];
    let lib = library::kernels_for(Arch::Sunda, &library::LIBRARY);
    let s = library::prelink(&shell, &lib, k::EXTRAM_BYTES).unwrap();
    assert!(s.placed.iter().all(|p| p.kernel.opcode != k::EXTENDED_INST), "SUNDA: no 0xf0 row");
    // Resident kernels sit behind the shell (code window); the others in the dyn window, packed.
    let res: Vec<_> = s.placed.iter().filter(|p| p.home == library::Home::Resident).collect();
    assert_eq!(res[0].func_va, k::CODE_WINDOW + 0x400);
    let dynv: Vec<u32> = s.loadable().map(|p| p.func_va).collect();
    assert_eq!(dynv[0], k::DYN_WINDOW);
    assert!(dynv.windows(2).all(|w| w[0] < w[1]));
    // Each image holds its own funcVA in its two const16s (bytes 1..3 of each).
    for p in &s.placed {
        assert_ne!(p.unrelocated(), p.image, "{:#x}: its relocations carry its funcVA", p.func_va);
        let c16 = |v: u16| p.image.windows(3).any(|w| w[0] & 0x0f == 4 && u16::from_le_bytes([w[1], w[2]]) == v);
        assert!(c16((p.func_va >> 16) as u16) && c16(p.func_va as u16), "{:#x}: {:02x?}", p.func_va, p.image);
    }
    assert_eq!(s.swap.len() as u32, dkl::SWAP_RECORD_BYTES * s.loadable().count() as u32);
    // EXTRAM: SUNDA's kernels from it do not fit in a smaller one; CAYMAN has none (they come from the library).
    let e = library::prelink(&shell, &lib, 8).unwrap_err();
    assert!(e.to_string().contains("the EXTRAM image needs"), "{e}");
    let cay = library::kernels_for(Arch::Cayman, &library::LIBRARY);
    assert!(cay.iter().all(|x| x.home != library::Home::Extram));
    assert!(library::prelink(&shell, &cay, 0).is_ok());
    // A shell that reaches the dyn window's IRAM leaves no room for the resident kernels.
    let e = library::prelink(&vec![0; dkl::DYN_IRAM as usize], &lib, k::EXTRAM_BYTES).unwrap_err();
    assert!(e.to_string().contains("the shell and its resident kernels"), "{e}");
    // More records than the table holds.
    let many = vec![library::LIBRARY[2]; dkl::MAX_RECORDS as usize + 1];
    assert!(library::prelink(&shell, &many, 0).unwrap_err().to_string().contains("kernel_info_table"));
}

#[test]
fn a_stream_out_of_range_is_refused_by_the_file_check() {
    use tpb_cosim::scenario::Scenario;
    let (mut f, _) = cfg();
    f.stream[3].core = 8;
    assert!(f.check("x.toml").unwrap_err().to_string().contains("stream[3]: core 8"));
    f.stream.clear();
    assert!(f.check("x.toml").unwrap_err().to_string().contains("1 to 64 instructions, not 0"));
}

/// The SoC port reaches this die's device memory below its 16 GiB (`[D]`);
/// the other die's, or past the end, goes on to the TOP_SP routing.
#[test]
fn device_memory_on_the_soc_port_is_this_dies_and_below_its_size() {
    use tpb_models::hal::devmem::DEVMEM_SIZE;
    let c = Cosim::new(Arch::Cayman).unwrap();
    assert_eq!(c.devmem_at(dkl::LIB_BASE), Some(dkl::LIB_BASE));
    assert_eq!(c.devmem_at(DEVMEM_SIZE - 4), Some(DEVMEM_SIZE - 4));
    assert_eq!(c.devmem_at(DEVMEM_SIZE), None);
    assert_eq!(c.devmem_at(1 << 47 | dkl::LIB_BASE), None, "die 1's");
    assert_eq!(c.devmem_at(0x82_8000_0000), None, "a TOP_SP's sp_base");
}
