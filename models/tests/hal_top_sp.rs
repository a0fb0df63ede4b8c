//! TOP_SP doorbells, trigger addresses, semaphore allocation and the SPAD
//! load + kick (DIGEST §2.7, §3, §6).

use tpb_models::hal::top_sp::{sp_sema_i_ofst, DEFAULT_MAX_TOP_SP_SEMAPHORES};
use tpb_models::hal::*;
use tpb_models::ncfw::spad::*;
use tpb_models::regmap::{builtin, Arch, WindowOp};
use tpb_models::spec::msg;

fn recorder(arch: Arch) -> Recorder<RegFileModel> {
    let map = builtin(arch).unwrap();
    Recorder::new(RegFileModel::new(map.clone()), map)
}

#[test]
fn doorbells_per_generation() {
    let sunda = Hal::for_arch(Arch::Sunda).unwrap();
    let mut m = recorder(Arch::Sunda);
    sunda.topsp_set_host_trigger(&mut m).unwrap();
    sunda.topsp_stop(&mut m).unwrap();
    assert_eq!(m.writes(), vec![(0x60848, "top_sp.top_sp.host_trigger", 1), (0x6084c, "top_sp.top_sp.stop", 1)]);
    assert_eq!(sunda.topsp_get_host_trigger_reg_offset().unwrap(), 0x60848);
    let ev = m.inner().events();
    assert!(matches!(&ev[0], Event::Doorbell { name, value: 1 } if name == "top_sp.top_sp.host_trigger"), "{ev:?}");

    for arch in [Arch::Cayman, Arch::Mariana] {
        let hal = Hal::for_arch(arch).unwrap();
        let mut m = recorder(arch);
        hal.topsp_set_init_signal(&mut m).unwrap();
        hal.topsp_set_tsync_signal(&mut m).unwrap();
        hal.topsp_set_host_trigger(&mut m).unwrap();
        assert_eq!(
            m.writes(),
            vec![
                (0x61540, "top_sp.evt_sem.set[80] (init_signal)", 1),
                (0x61560, "top_sp.evt_sem.set[88] (tsync_signal)", 1),
                (0x615a0, "top_sp.evt_sem.set[104] (host_trigger)", 1),
            ],
            "{arch}"
        );
        assert_eq!(hal.topsp_get_host_trigger_reg_offset().unwrap(), 0x615a0);
        // The doorbells are semaphore SETs the TOP_SP firmware polls.
        assert_eq!(m.inner().semaphore("top_sp", 104), Some(1));
        assert!(m.inner().events().iter().all(|e| matches!(e, Event::Semaphore { op: WindowOp::Set, .. })));
    }
}

#[test]
fn topsp_counts() {
    let n = |a| Hal::for_arch(a).unwrap().num_topsp().unwrap();
    assert_eq!((n(Arch::Sunda), n(Arch::Cayman), n(Arch::Mariana)), (6, 16, 16));
}

#[test]
fn cayman_trigger_addresses_match_the_sp_base_table_and_the_routing_rule() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let ctx = hal.ctx().unwrap();
    // DIGEST §3 table values.
    let table: [(u32, u64); 4] = [(0, 0x8280000000), (1, 0x82c0000000), (7, 0x8440000000), (8, 0x808280000000)];
    for (sp, base) in table {
        assert_eq!(hal.get_trigger_addr(sp, 0).unwrap(), base + 0x1800);
        assert_eq!(hal.get_trigger_addr(sp, 255).unwrap(), base + 0x1800 + 255 * 4);
    }
    assert_eq!(hal.get_trigger_addr(15, 3).unwrap(), 0x808440000000 + 0x1800 + 12);
    // Table and rule agree everywhere: sp_base[0] + (instance << 30) + die bit 47 + 0x1800 + idx*4.
    for sp in 0..16 {
        for idx in [0, 1, 80, 255] {
            let rule = 0x8280000000 + sp_sema_i_ofst(ctx, sp, idx).unwrap();
            assert_eq!(hal.get_trigger_addr(sp, idx).unwrap(), rule, "sp {sp} idx {idx}");
            assert_eq!(rule >> 47 & 1, (sp >= 8) as u64, "die bit for sp {sp}");
        }
    }
    assert_eq!(sp_sema_i_ofst(ctx, 9, 2).unwrap(), (1 << 30) + (1 << 47) + 0x1800 + 8);
}

#[test]
fn sunda_and_mariana_trigger_addresses() {
    let s = Hal::for_arch(Arch::Sunda).unwrap();
    assert_eq!(s.get_trigger_addr(5, 1).unwrap(), 0x8280000000 + (5 << 30) + 0x1804);
    let e = s.get_trigger_addr(6, 0).unwrap_err();
    assert_eq!(e.to_string(), "TOP_SP id 6 is out of range (0..6)");
    let m = Hal::for_arch(Arch::Mariana).unwrap();
    assert_eq!(m.get_trigger_addr(12, 0).unwrap(), 0x808380000000 + 0x1800);
    let e = m.get_trigger_addr(0, 256).unwrap_err();
    assert_eq!(e.to_string(), "semaphore index 256 is out of range (0..256)");
}

#[test]
fn semaphore_allocation_exhausts_with_the_seeds_message_and_skips_doorbells() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut a = SemaphoreAllocator::new(hal.ctx().unwrap(), DEFAULT_MAX_TOP_SP_SEMAPHORES).unwrap();
    assert_eq!(a.reserved(), &[80, 88, 104], "CAYMAN's doorbell semaphores are never handed out");
    let first = a.alloc(3, 250).unwrap();
    assert!(!first.contains(&80) && !first.contains(&104));
    assert_eq!(first.len(), 250);
    let e = a.alloc(3, 4).unwrap_err();
    assert_eq!(e.to_string(), "Failed to allocate 4 semaphores in TOP_SP #3. There may be too many communicators");
    assert_eq!(e.to_string(), printf(msg::TOPSP_SEMA_ALLOC_FAILED, &[&4, &3]));
    // All-or-nothing: the 3 that are left are still there.
    assert_eq!(a.alloc(3, 3).unwrap(), vec![253, 254, 255]);
    assert!(a.alloc(4, 1).is_ok(), "other TOP_SPs have their own pool");
    a.free(3, &[7]);
    assert_eq!(a.alloc(3, 1).unwrap(), vec![7]);
    assert!(matches!(a.alloc(16, 1), Err(HalError::OutOfRange { .. })));
    assert!(SemaphoreAllocator::new(hal.ctx().unwrap(), 257).is_err());
    let s = SemaphoreAllocator::new(Hal::for_arch(Arch::Sunda).unwrap().ctx().unwrap(), 16).unwrap();
    assert!(s.reserved().is_empty(), "SUNDA's doorbells are plain registers");
}

fn program() -> (Vec<u8>, Vec<u8>) {
    let e = SpadCtrlEntry {
        cc_op: true,
        algo_type: AlgType::Ring,
        algo_sub_type: 0,
        trigger_next: false,
        reporter: true,
        ring_wait_complete: false,
        ring_send_complete: true,
        safe_mode: false,
        unique_tensors: false,
        target: CcOpTarget::ChannelList(channel_list(&[(0, 1), (1, 0), (5, 1)], 1)),
    };
    let ctrl = pack_ctrl(&[e]).unwrap();
    let slot = pack_slot(&[SlotWord::Step { m2s: 2, s2m: 2, repeat: 4 }, SlotWord::End { compl_addrs: vec![0x8280001810] }]).unwrap();
    (ctrl, slot)
}

#[test]
fn spad_load_then_host_trigger_kick() {
    for arch in Arch::ALL {
        let hal = Hal::for_arch(arch).unwrap();
        let mut m = recorder(arch);
        let (ctrl, slot) = program();
        hal.load_spad_and_kick(&mut m, &ctrl, &slot).unwrap();
        let acc: Vec<String> = m
            .log()
            .iter()
            .filter_map(|e| match e {
                Entry::WriteBuf { name, len, .. } => Some(format!("{name} {len:#x}")),
                Entry::Write { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        let trig = if arch == Arch::Sunda { "top_sp.top_sp.host_trigger" } else { "top_sp.evt_sem.set[104] (host_trigger)" };
        assert_eq!(acc, vec!["top_sp.ctrl_spad+0x0 0x1000".to_string(), "top_sp.slot_spad+0x0 0x8000".into(), trig.into()], "{arch}");
        let back = m.inner().memory("top_sp.ctrl_spad", 0, 8).unwrap();
        assert_eq!(back, ctrl);
        let slot_back = m.inner().memory("top_sp.slot_spad", 0, 0x8000).unwrap();
        assert_eq!(unpack_slot(&slot_back).unwrap()[1], SlotWord::End { compl_addrs: vec![0x8280001810] });
    }
}

#[test]
fn oversized_spad_is_refused_before_any_write() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut m = recorder(Arch::Cayman);
    let e = hal.load_spad_and_kick(&mut m, &[0; 0x1008], &[]).unwrap_err();
    assert_eq!(e.to_string(), "TOPSP CTRL SPAD: 0x1008 bytes do not fit in 0x1000");
    assert!(hal.load_spad_and_kick(&mut m, &[], &[0; 0x8004]).is_err());
    assert!(m.log().is_empty());
}

/// The seeds' SPAD load (DIGEST §6): both images staged in device memory,
/// the SLOT one at staging + 0x100000, both copied whole by the init DMA
/// queue, then host_trigger; what lands is what programmed I/O lands.
#[test]
fn spad_staged_in_device_memory_and_copied_by_the_init_dma_then_kicked() {
    for arch in Arch::ALL {
        let hal = Hal::for_arch(arch).unwrap();
        let mut m = recorder(arch);
        let (ctrl, slot) = program();
        let at = devmem::TOPSP_STAGING_BASE;
        hal.stage_spad_and_kick(&mut m, at, &ctrl, &slot).unwrap();
        let acc: Vec<String> = m
            .log()
            .iter()
            .filter_map(|e| match e {
                Entry::DevMem { addr, len, nonzero_len, .. } => Some(format!("devmem {:#x} {len:#x} ({nonzero_len:#x} data)", addr - at)),
                Entry::InitDma { src, name, len, .. } => Some(format!("dma {:#x} -> {name} {len:#x}", src - at)),
                Entry::Write { name, .. } => Some(name.clone()),
                Entry::WriteBuf { name, .. } => Some(format!("PIO {name}")),
                _ => None,
            })
            .collect();
        let trig = if arch == Arch::Sunda { "top_sp.top_sp.host_trigger" } else { "top_sp.evt_sem.set[104] (host_trigger)" };
        let data = |img: &[u8]| img.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        assert_eq!(
            acc,
            vec![
                format!("devmem 0x0 0x1000 ({:#x} data)", data(&ctrl)),
                format!("devmem 0x100000 0x8000 ({:#x} data)", data(&slot)),
                "dma 0x0 -> top_sp.ctrl_spad+0x0 0x1000".into(),
                "dma 0x100000 -> top_sp.slot_spad+0x0 0x8000".into(),
                trig.into(),
            ],
            "{arch}"
        );
        let mut pio = recorder(arch);
        hal.load_spad_and_kick(&mut pio, &ctrl, &slot).unwrap();
        for (region, len) in [("top_sp.ctrl_spad", 0x1000), ("top_sp.slot_spad", 0x8000)] {
            assert_eq!(m.inner().memory(region, 0, len).unwrap(), pio.inner().memory(region, 0, len).unwrap(), "{arch}: {region}");
        }
        assert_eq!(m.inner().devmem.read(at + 0x100000, slot.len() as u64), slot, "{arch}: the staged SLOT image");
    }
}

/// A bad staging load changes nothing: an oversized image, a staging
/// buffer past the device memory or misaligned, each a typed error before
/// the first write.
#[test]
fn bad_staging_is_refused_before_anything_is_written() {
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut m = recorder(Arch::Cayman);
    let e = hal.stage_spad_and_kick(&mut m, devmem::TOPSP_STAGING_BASE, &[0; 8], &[0; 0x8004]).unwrap_err();
    assert_eq!(e.to_string(), "TOPSP SLOT SPAD: 0x8004 bytes do not fit in 0x8000");
    let e = hal.stage_spad_and_kick(&mut m, devmem::DEVMEM_SIZE - 0x1000, &[1; 8], &[]).unwrap_err().to_string();
    assert!(e.contains(&format!("{:#x}", devmem::DEVMEM_SIZE + 0xff000)) && e.contains("past the device memory's end"), "{e}");
    let e = hal.stage_spad_and_kick(&mut m, 0x1002, &[1; 8], &[]).unwrap_err().to_string();
    assert!(e.contains("0x1002") && e.contains("aligned"), "{e}");
    assert!(m.log().is_empty(), "{:?}", m.log());
    assert_eq!(m.inner().devmem.written, 0);
    // The init DMA itself refuses a copy out of one memory region, or into registers.
    let ctx = hal.ctx().unwrap();
    let spad = ctx.params().bar0.tpb_base + ctx.params().bar0.top_sp_ctrl_spad;
    let e = m.init_dma(&[DmaCopy { src: 0, dst: spad, len: 0x1004 }]).unwrap_err().to_string();
    assert!(e.contains("top_sp.ctrl_spad"), "{e}");
    let e = m.init_dma(&[DmaCopy { src: 0, dst: 0x60848, len: 4 }]).unwrap_err().to_string();
    assert!(e.contains("init-DMA copy"), "{e}");
    assert!(m.inner().memory("top_sp.ctrl_spad", 0, 8).unwrap().iter().all(|&b| b == 0));
}

/// The init handshake's addresses (`[D]`, `hal::tsync`) and the timestamp
/// accessors: the writes they make, in order, by register name.
#[test]
fn tsync_addresses_and_timestamp_accessors() {
    for arch in Arch::ALL {
        let hal = Hal::for_arch(arch).unwrap();
        let p = builtin(arch).unwrap().params;
        assert_eq!(hal.read_config_addr(0).unwrap(), p.bar0.tpb_base + p.bar0.top_sp_ctrl_spad + 0xc00, "{arch}");
        let e = hal.read_config_addr(1).unwrap_err().to_string();
        assert!(e.contains("TOP_SP id with a CTRL SPAD") && e.contains("(0..1)"), "{e}");
        assert_eq!(hal.get_ack_evt_addr_for_topsp_engine(0).unwrap(), hal.get_trigger_addr(0, tsync::INIT_ACK_SEM).unwrap());
        let mut m = recorder(arch);
        hal.timestamp_run(&mut m, Some(3)).unwrap();
        hal.timestamp_adjust(&mut m, -2).unwrap();
        hal.timestamp_run(&mut m, None).unwrap();
        let w: Vec<(&str, u32)> = m.writes().iter().map(|(_, n, v)| (*n, *v)).collect();
        assert_eq!(
            w,
            [
                ("tpb.tpb.timestamp_inc", 3),
                ("tpb.tpb.timestamp_ctrl", 1),
                ("tpb.tpb.timestamp_adjust_lo", 0xffff_fffe),
                ("tpb.tpb.timestamp_adjust_hi", 0xffff_ffff),
                ("tpb.tpb.timestamp_ctrl", 0)
            ],
            "{arch}"
        );
    }
    let cayman = Hal::for_arch(Arch::Cayman).unwrap();
    assert_eq!(cayman.get_ack_evt_addr_for_topsp_engine(0).unwrap(), 0x82_8000_1800 + 81 * 4);
    assert_eq!(cayman.get_ack_evt_addr_for_topsp_engine(8).unwrap(), 0x8082_8000_1800 + 81 * 4, "TOP_SP 8 is on the die mirror");
}
