//! Dispatch, Q7 geometry, ucode install and swap registers: every error
//! path, with the seeds' message strings (DIGEST §2.1–§2.5).

use tpb_models::hal::*;
use tpb_models::regmap::{builtin, Arch};
use tpb_models::spec::msg;

fn recorder(arch: Arch) -> Recorder<RegFileModel> {
    let map = builtin(arch).unwrap();
    Recorder::new(RegFileModel::new(map.clone()), map)
}

fn imgs(iram: usize, dram: usize) -> UcodeImages {
    UcodeImages { iram: vec![0x5a; iram], dram: vec![0xa5; dram] }
}

// ---- dispatch (DIGEST §2.1) ----

#[test]
fn arch_type_selects_the_generation() {
    assert_eq!(Hal::new(2).unwrap().ctx().unwrap().arch, Arch::Sunda);
    assert_eq!(Hal::new(3).unwrap().ctx().unwrap().arch, Arch::Cayman);
    assert_eq!(Hal::new(4).unwrap().ctx().unwrap().arch, Arch::Mariana);
    assert!(matches!(Hal::new(5), Err(HalError::ArchOutOfRange(5))));
}

#[test]
fn invalid_arch_type_refuses_every_entry_point() {
    let hal = Hal::new(0).unwrap();
    let mut m = recorder(Arch::Cayman);
    let errs = [
        hal.get_q7_params(2).unwrap_err(),
        hal.q7_ucode_eng_init(&mut m, 0, &imgs(4, 4), None, 0).unwrap_err(),
        hal.q7_swap_table(&mut m, [0; 3]).unwrap_err(),
        hal.q7_swap_table_get_register_offsets().unwrap_err(),
        hal.q7_swap_file_io_table(&mut m, &FileIoTable::default()).unwrap_err(),
        hal.pooling_init(&mut m, &PoolingConfig::default(), None).unwrap_err(),
        hal.stpb_init(&mut m, &StpbConfig::default(), None).unwrap_err(),
        hal.topsp_set_host_trigger(&mut m).unwrap_err(),
        hal.topsp_get_host_trigger_reg_offset().unwrap_err(),
        hal.topsp_set_init_signal(&mut m).unwrap_err(),
        hal.topsp_set_tsync_signal(&mut m).unwrap_err(),
        hal.topsp_stop(&mut m).unwrap_err(),
        hal.get_xt_local_reg_offset(0, 0).unwrap_err(),
        hal.get_trigger_addr(0, 0).unwrap_err(),
        hal.load_spad_and_kick(&mut m, &[], &[]).unwrap_err(),
    ];
    for e in errs {
        assert!(matches!(e, HalError::ArchInvalid), "{e}");
        assert!(e.to_string().contains("AL_HAL_TPB_ARCH_TYPE_INVALID"), "{e}");
    }
    assert!(m.log().is_empty(), "nothing reached BAR0");
}

#[test]
fn legacy_arch_type_has_no_implementations() {
    let hal = Hal::new(1).unwrap();
    let e = hal.get_q7_params(2).unwrap_err();
    assert_eq!(e.to_string(), "kaena_khal slot 'get_q7_params' (+0xb8) is empty for arch_type 1");
    let e = hal.pooling_init(&mut recorder(Arch::Cayman), &PoolingConfig::default(), None).unwrap_err();
    assert!(e.to_string().contains("'pooling_init' (+0x368)"), "{e}");
}

#[test]
fn slots_a_generation_lacks_are_typed_errors() {
    let mut m = recorder(Arch::Sunda);
    let sunda = Hal::for_arch(Arch::Sunda).unwrap();
    let e = sunda.topsp_set_init_signal(&mut m).unwrap_err();
    assert_eq!(e.to_string(), "kaena_khal slot 'topsp_set_init_signal' is empty for arch_type 2 (SUNDA)");
    assert!(matches!(sunda.topsp_set_tsync_signal(&mut m), Err(HalError::SlotEmpty { .. })));
    let cayman = Hal::for_arch(Arch::Cayman).unwrap();
    assert!(matches!(cayman.topsp_stop(&mut m), Err(HalError::SlotEmpty { slot: "topsp_stop", .. })));
    assert!(matches!(sunda.get_eng_hw_decode_table_params(), Err(HalError::SlotEmpty { slot: "get_eng_hw_decode_table_params", .. })));
    assert!(m.log().is_empty());
}

/// The SEQ's and the HW-decode table's parameters (seed 004 §6: the
/// getters `get_seq_params_sunda` and `get_eng_hw_decode_table_params_cayman`)
/// are the map's regions, the table base folded as DIGEST §4 gives it; the
/// bring-up writes through them (`ucode_seq_init`, `hw_decode_table_init`).
#[test]
fn seq_and_hw_decode_table_params_are_where_the_bring_up_writes() {
    let sunda = Hal::for_arch(Arch::Sunda).unwrap().get_seq_params().unwrap();
    let map = tpb_models::regmap::builtin(Arch::Sunda).unwrap();
    let b = &map.params.bar0;
    assert_eq!((sunda.iram_base, sunda.iram_bytes), (b.tpb_base + b.seq_iram.base, b.seq_iram.size));
    assert_eq!((sunda.dram_base, sunda.dram_bytes), (b.tpb_base + b.seq_dram.base, b.seq_dram.size));
    let hw = Hal::for_arch(Arch::Cayman).unwrap().get_eng_hw_decode_table_params().unwrap();
    let map = tpb_models::regmap::builtin(Arch::Cayman).unwrap();
    // DIGEST §4: 0x802b88000 with bit 35 folded away, in the TPB's BAR0 window; 47 records of 16 B.
    assert_eq!(hw.base, 0x2b88000 + map.params.bar0.tpb_base);
    assert_eq!((hw.cam_records, hw.cam_record_bytes), (47, 16));
    assert!(hw.table_base >= hw.cam_base + 47 * 16, "the table follows the CAM: {hw:?}");
}

#[test]
fn slot_table_per_generation() {
    let filled = |a| -> Vec<&str> { Hal::for_arch(a).unwrap().khal().slots().into_iter().filter(|s| s.2).map(|s| s.0).collect() };
    let common = [
        "get_q7_params",
        "q7_ucode_eng_init",
        "q7_swap_table",
        "q7_swap_table_get_register_offsets",
        "q7_swap_file_io_table",
        "pooling_init",
        "topsp_set_host_trigger",
        "topsp_get_host_trigger_reg_offset",
    ];
    let mut sunda: Vec<&str> = common.to_vec();
    sunda.extend(["topsp_stop", "get_seq_params"]);
    let mut v3: Vec<&str> = common.to_vec();
    v3.extend(["topsp_set_init_signal", "topsp_set_tsync_signal", "get_seq_params", "get_eng_hw_decode_table_params"]);
    assert_eq!(filled(Arch::Sunda), sunda);
    assert_eq!(filled(Arch::Cayman), v3);
    assert_eq!(filled(Arch::Mariana), v3);
    // The known table offsets of DIGEST §2.1 (+0x708 the write, +0x710 the getter).
    let slots = Hal::for_arch(Arch::Cayman).unwrap().khal().slots();
    let off = |n: &str| slots.iter().find(|s| s.0 == n).unwrap().1;
    assert_eq!(off("get_q7_params"), Some(0xb8));
    assert_eq!(off("pooling_init"), Some(0x368));
    assert_eq!(off("topsp_set_host_trigger"), Some(0x708));
    assert_eq!(off("topsp_get_host_trigger_reg_offset"), Some(0x710));
}

// ---- get_q7_params (DIGEST §2.3) ----

#[test]
fn q7_params_are_the_seeds_tuples() {
    let t = |a, o| {
        let p = Hal::for_arch(a).unwrap().get_q7_params(o).unwrap();
        (p.base_offset, p.iram_size, p.dram_size, p.iram_rsvd, p.dram_rsvd, p.num_q7)
    };
    assert_eq!(t(Arch::Sunda, 2), (0x2980000, 0x10000, 0x10000, 0, 0, 8));
    for a in [Arch::Cayman, Arch::Mariana] {
        assert_eq!(t(a, 2), (0x3100000, 0x20000, 0x40000, 0x60000, 0x40000, 8));
        assert_eq!(t(a, 5), (0x3100000, 0x20000, 0x40000, 0x60000, 0x40000, 4));
    }
}

#[test]
fn q7_params_refuse_unknown_owners() {
    let e = Hal::for_arch(Arch::Sunda).unwrap().get_q7_params(5).unwrap_err();
    assert_eq!(e.to_string(), "get_q7_params: owner 5 is not a Q7 owner of SUNDA (valid: [2])");
    let e = Hal::for_arch(Arch::Cayman).unwrap().get_q7_params(3).unwrap_err();
    assert_eq!(e.to_string(), "get_q7_params: owner 3 is not a Q7 owner of CAYMAN (valid: [2, 5])");
}

// ---- q7_ucode_eng_init (DIGEST §2.4): every message string ----

#[test]
fn sunda_refuses_owner_idx_other_than_pooling() {
    let mut m = recorder(Arch::Sunda);
    let e = Hal::for_arch(Arch::Sunda).unwrap().q7_ucode_eng_init(&mut m, 0, &imgs(4, 4), None, 1).unwrap_err();
    assert_eq!(e.to_string(), "Invalid q7 owner 1 for v2 (only pooling supported)");
    assert_eq!(e.to_string(), printf(msg::INVALID_Q7_OWNER_V2, &[&1]));
    assert!(m.log().is_empty());
}

#[test]
fn v3_maps_owner_idx_and_refuses_others() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let hal = Hal::for_arch(arch).unwrap();
        let mut m = recorder(arch);
        let e = hal.q7_ucode_eng_init(&mut m, 0, &imgs(4, 4), None, 2).unwrap_err();
        assert_eq!(e.to_string(), "Invalid q7 owner 2");
        assert_eq!(e.to_string(), printf(msg::INVALID_Q7_OWNER, &[&2]));
        assert!(m.log().is_empty());
        // owner_idx 1 = compute cluster: 4 cores.
        hal.q7_ucode_eng_init(&mut m, 0, &imgs(8, 8), None, 1).unwrap();
        let bufs = m.log().iter().filter(|e| matches!(e, Entry::WriteBuf { .. })).count();
        assert_eq!(bufs, 8, "{arch}: 4 cores x (DRAM, IRAM)");
    }
}

#[test]
fn oversized_images_are_refused_before_any_byte_is_written() {
    for arch in Arch::ALL {
        let hal = Hal::for_arch(arch).unwrap();
        let p = hal.get_q7_params(2).unwrap();
        let mut m = recorder(arch);
        let big = p.iram_size as usize + 4;
        let e = hal.q7_ucode_eng_init(&mut m, 0, &imgs(big, 4), None, 0).unwrap_err();
        assert_eq!(e.to_string(), format!("IRAM ucode too big! doesn't fit, size={big}"));
        assert_eq!(e.to_string(), printf(msg::IRAM_TOO_BIG, &[&big]));
        let big = p.dram_size as usize + 4;
        let e = hal.q7_ucode_eng_init(&mut m, 0, &imgs(4, big), None, 0).unwrap_err();
        assert_eq!(e.to_string(), format!("DRAM ucode too big! doesn't fit, size={big}"));
        assert_eq!(e.to_string(), printf(msg::DRAM_TOO_BIG, &[&big]));
        assert!(m.log().is_empty(), "{arch}: nothing written");
        // The whole bring-up refuses it too, before its first access.
        let cfg = StpbConfig { pooling: PoolingConfig { q7: imgs(4, big), ..PoolingConfig::default() }, ..StpbConfig::default() };
        let mut m = recorder(arch);
        assert!(matches!(hal.pooling_init(&mut m, &cfg.pooling, None), Err(HalError::DramTooBig { .. })));
        assert!(m.log().is_empty(), "{arch}: pooling_init wrote nothing");
        // Exactly the aperture size fits.
        hal.q7_ucode_eng_init(&mut m, 0, &imgs(p.iram_size as usize, p.dram_size as usize), None, 0).unwrap();
    }
}

#[test]
fn seq_images_too_big_are_refused_before_any_access() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut m = recorder(Arch::Cayman);
    let cfg = PoolingConfig { seq: imgs(0x10004, 4), ..PoolingConfig::default() };
    let e = hal.pooling_init(&mut m, &cfg, None).unwrap_err();
    assert_eq!(e.to_string(), "SEQ IRAM ucode too big: 0x10004 bytes, the SEQ IRAM holds 0x10000");
    assert!(m.log().is_empty());
}

#[test]
fn hw_decode_tables_too_big_are_refused_before_any_access() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut m = recorder(Arch::Cayman);
    let cfg = PoolingConfig { hw_decode: HwDecodeTable { cam: vec![CamRecord::default(); 48], table: vec![] }, ..PoolingConfig::default() };
    let e = hal.pooling_init(&mut m, &cfg, None).unwrap_err();
    assert_eq!(e.to_string(), "HW-decode CAM records: 0x300 bytes do not fit in 0x2f0");
    let cfg = PoolingConfig { hw_decode: HwDecodeTable { cam: vec![], table: vec![1; 0x2001] }, ..PoolingConfig::default() };
    assert!(matches!(hal.pooling_init(&mut m, &cfg, None), Err(HalError::TooBig { .. })));
    assert!(m.log().is_empty());
}

/// A transport whose `n`-th buffer write fails with a bus error.
struct FailingBuf<M> {
    inner: M,
    fail_at: usize,
    seen: usize,
}

impl<M: Mmio> Mmio for FailingBuf<M> {
    fn read32(&mut self, a: u64) -> std::result::Result<u32, MmioError> {
        self.inner.read32(a)
    }
    fn write32(&mut self, a: u64, v: u32) -> std::result::Result<(), MmioError> {
        self.inner.write32(a, v)
    }
    fn write_buf(&mut self, a: u64, d: &[u8]) -> std::result::Result<(), MmioError> {
        self.seen += 1;
        if self.seen == self.fail_at {
            return Err(MmioError::BusError { addr: a, what: "injected".into() });
        }
        self.inner.write_buf(a, d)
    }
}

#[test]
fn a_failing_core_load_names_the_core_and_the_memory() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    // Buffer writes alternate DRAM, IRAM per core: #5 is core 2's DRAM, #6 its IRAM.
    for (fail_at, want) in [(5, "Failed to load pooling q7 dram core 2"), (6, "Failed to load pooling q7 iram core 2")] {
        let mut m = FailingBuf { inner: recorder(Arch::Cayman), fail_at, seen: 0 };
        let e = hal.q7_ucode_eng_init(&mut m, 0, &imgs(8, 8), None, 0).unwrap_err();
        assert_eq!(e.to_string(), want);
        let src = std::error::Error::source(&e).expect("the cause is kept").to_string();
        assert!(src.contains("injected"), "{src}");
        let done = m.inner.log().iter().filter(|e| matches!(e, Entry::WriteBuf { .. })).count();
        assert_eq!(done, fail_at - 1, "stops at the failing write");
    }
    assert_eq!(printf(msg::LOAD_DRAM_FAILED, &[&2]), "Failed to load pooling q7 dram core 2");
    assert_eq!(printf(msg::LOAD_IRAM_FAILED, &[&2]), "Failed to load pooling q7 iram core 2");
}

#[test]
fn swap_callback_replaces_the_bar0_write_and_its_error_is_reported() {
    let hal = Hal::for_arch(Arch::Sunda).unwrap();
    let mut m = recorder(Arch::Sunda);
    let mut seen = Vec::new();
    let mut cb = |r: &SwapRequest| {
        seen.push((r.dst, r.data.len(), r.tag.to_string(), r.data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1)));
        0
    };
    hal.q7_ucode_eng_init(&mut m, 0, &imgs(12, 20), Some(&mut cb), 0).unwrap();
    assert!(m.log().iter().all(|e| matches!(e, Entry::Note(_))), "no BAR0 traffic when a swap callback is set");
    assert_eq!(seen.len(), 16);
    assert_eq!(seen[0], (0x2990000, 0x10000, "POOL eng dram".into(), 20));
    assert_eq!(seen[1], (0x2980000, 0x10000, "POOL eng iram".into(), 12));
    let mut failing = |_: &SwapRequest| -5;
    let e = hal.q7_ucode_eng_init(&mut m, 0, &imgs(12, 20), Some(&mut failing), 0).unwrap_err();
    assert_eq!(e.to_string(), "Failed to load pooling q7 dram core 0");
    let cause = std::error::Error::source(&e).unwrap().to_string();
    assert!(cause.starts_with("memcpy_fn(0x") && cause.ends_with(") failed with -5"), "{cause}");
}

#[test]
fn write_padded_zero_fills_over_stale_bytes_and_refuses_a_short_pad() {
    let mut m = RegFileModel::new(builtin(Arch::Sunda).unwrap());
    m.write_buf(0x2980000, &[0xee; 64]).unwrap();
    tpb_models::hal::q7::write_padded(&mut m, 0x2980000, &[1, 2, 3, 4, 5], 64, None, 2, "t").unwrap();
    let mem = m.memory("q7[0].iram", 0, 64).unwrap();
    assert_eq!(&mem[..5], &[1, 2, 3, 4, 5]);
    assert!(mem[5..].iter().all(|&b| b == 0), "no stale tail");
    let e = tpb_models::hal::q7::write_padded(&mut m, 0x2980000, &[1; 8], 4, None, 2, "tag").unwrap_err();
    assert_eq!(e.to_string(), "write_padded(tag): padded size 0x4 is smaller than the image (0x8 bytes)");
}

// ---- mem_write_buf alignment (DIGEST §2.2) ----

/// A transport with only the 32-bit primitives: uses the trait's write_buf.
struct Words(Vec<(u64, u32)>);
impl Mmio for Words {
    fn read32(&mut self, _: u64) -> std::result::Result<u32, MmioError> {
        Ok(0)
    }
    fn write32(&mut self, a: u64, v: u32) -> std::result::Result<(), MmioError> {
        self.0.push((a, v));
        Ok(())
    }
}

#[test]
fn write_buf_word_blasts_little_endian_and_checks_alignment_first() {
    let mut w = Words(vec![]);
    w.write_buf(0x100, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    assert_eq!(w.0, vec![(0x100, 0x04030201), (0x104, 0x08070605)]);
    let e = w.write_buf(0x102, &[0; 4]).unwrap_err();
    assert_eq!(e.to_string(), "mem_write_buf: destination 0x102 and length 0x4 must both be 4-byte aligned");
    assert!(matches!(w.write_buf(0x100, &[0; 6]), Err(MmioError::MisalignedBuf { addr: 0x100, len: 6 })));
    assert_eq!(w.0.len(), 2, "a misaligned buffer writes nothing");
}

// ---- swap / DKL registers (DIGEST §2.5) ----

#[test]
fn sunda_swap_registers_are_real() {
    let hal = Hal::for_arch(Arch::Sunda).unwrap();
    let mut m = recorder(Arch::Sunda);
    hal.q7_swap_table(&mut m, [0x11, 0x22, 0x33]).unwrap();
    hal.q7_swap_file_io_table(&mut m, &FileIoTable { tx_ring_base: 0x44, tx_ring_length: 0x55, q7_intr_info: 0x66 }).unwrap();
    let w: Vec<(u64, &str, u32)> = m.writes();
    assert_eq!(
        w,
        vec![
            (0x286083c, "pool.nx.nx_rsvd_space0", 0x11),
            (0x2860840, "pool.nx.nx_rsvd_space1", 0x22),
            (0x2860844, "pool.nx.nx_rsvd_space2", 0x33),
            (0x2860070, "pool.nx.dma_tx_ring_base", 0x44),
            (0x2860074, "pool.nx.dma_tx_ring_length", 0x55),
            (0x2860838, "pool.nx.q7_intr_info", 0x66),
        ]
    );
    assert_eq!(hal.q7_swap_table_get_register_offsets().unwrap(), [0x286083c, 0x2860840, 0x2860844]);
}

#[test]
fn v3_swap_registers_are_no_ops() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let hal = Hal::for_arch(arch).unwrap();
        let mut m = recorder(arch);
        hal.q7_swap_table(&mut m, [1, 2, 3]).unwrap();
        hal.q7_swap_file_io_table(&mut m, &FileIoTable { tx_ring_base: 1, tx_ring_length: 2, q7_intr_info: 3 }).unwrap();
        assert!(m.log().is_empty(), "{arch}");
        assert_eq!(hal.q7_swap_table_get_register_offsets().unwrap(), [0; 3]);
    }
}

// ---- local-register bases (DIGEST §2.6) ----

#[test]
fn xt_local_reg_offsets() {
    let s = Hal::for_arch(Arch::Sunda).unwrap();
    assert_eq!(s.get_xt_local_reg_offset(2, 1).unwrap(), 0x2860000);
    assert_eq!(s.get_xt_local_reg_offset(2, 0).unwrap(), 0x60000);
    assert_eq!(s.get_xt_local_reg_offset(4, 0).unwrap(), 0x60000);
    let e = s.get_xt_local_reg_offset(5, 0).unwrap_err();
    assert_eq!(e.to_string(), "eng_type 5 is out of range (0..5)");
    let c = Hal::for_arch(Arch::Cayman).unwrap();
    assert_eq!(c.get_xt_local_reg_offset(4, 0).unwrap(), 0x60000, "TOP_SP LOCAL_REG (index 4)");
    assert_eq!(c.get_xt_local_reg_offset(2, 1).unwrap(), 0x802860000 & !(1 << 35), "bit-35 fold");
    assert_eq!(c.get_xt_local_reg_offset(5, 0).unwrap(), 0x40000);
    assert!(matches!(c.get_xt_local_reg_offset(6, 0), Err(HalError::OutOfRange { .. })));
}
