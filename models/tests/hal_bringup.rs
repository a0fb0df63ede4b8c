//! The pool bring-up per generation, end to end on the in-process golden
//! model: the access log (snapshot, reviewed against DIGEST §2.9), the
//! resulting hardware state, and the GOTCHA of DIGEST §2.8 (the HAL's
//! offsets land on the intended RTL registers).

use tpb_models::hal::*;
use tpb_models::regmap::{builtin, Arch};

/// A small, recognisable configuration: images of a few words so the log
/// shows the data length and the zero pad separately.
fn config(arch: Arch) -> StpbConfig {
    let img = |tag: u8, len: usize| (0..len).map(|i| tag ^ (i as u8) | 1).collect::<Vec<u8>>();
    let mut cfg = StpbConfig::new(UcodeImages { iram: img(0x10, 0x1f0), dram: img(0x20, 0x40) }, UcodeImages { iram: img(0x30, 0x100), dram: img(0x40, 0x80) });
    cfg.pooling.instr_debug_level = 2;
    cfg.pooling.engine_base_address = 0x0000_0001_0000_0000;
    if arch != Arch::Sunda {
        cfg.pooling.hw_decode = HwDecodeTable {
            cam: vec![CamRecord { valid: true, key_opcode: 0x41, key_func: 0, mask_opcode: 0xff, mask_func: 0, table_index: 0 }],
            table: vec![0x00, 0x02, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00],
        };
    }
    cfg.pooling.dma = Some(DmaConfig { rx: RingConfig { base: 0x1000, length: 64 }, tx: RingConfig { base: 0x2000, length: 32 }, mem_window2: 0x0000_0002_0000_0000 });
    cfg
}

fn bring_up(arch: Arch) -> Recorder<RegFileModel> {
    let map = builtin(arch).unwrap();
    let hal = Hal::for_arch(arch).unwrap();
    let mut bar0 = Recorder::new(RegFileModel::new(map.clone()), map);
    hal.stpb_init(&mut bar0, &config(arch), None).unwrap();
    bar0
}

#[test]
fn sunda_bringup_log() {
    insta::assert_snapshot!(bring_up(Arch::Sunda).render());
}

#[test]
fn cayman_bringup_log() {
    insta::assert_snapshot!(bring_up(Arch::Cayman).render());
}

#[test]
fn mariana_bringup_log() {
    insta::assert_snapshot!(bring_up(Arch::Mariana).render());
}

#[test]
fn every_access_of_the_bringup_succeeds_and_hits_a_named_target() {
    for arch in Arch::ALL {
        let r = bring_up(arch);
        for e in r.log() {
            match e {
                Entry::Read { name, result, .. } => assert!(result.is_ok() && !name.contains("unmapped") && !name.contains("no register"), "{arch}: {e:?}"),
                Entry::Write { name, result, .. } => assert!(result.is_ok() && !name.contains("unmapped") && !name.contains("no register"), "{arch}: {e:?}"),
                Entry::WriteBuf { name, result, .. } | Entry::InitDma { name, result, .. } => assert!(result.is_ok() && !name.contains("unmapped"), "{arch}: {e:?}"),
                Entry::DevMem { result, .. } => assert!(result.is_ok(), "{arch}: {e:?}"),
                Entry::Note(_) => {}
            }
        }
    }
}

/// Step order of DIGEST §2.9, read off the notes of the log.
#[test]
fn steps_run_in_the_seeds_order_and_differ_where_the_generations_differ() {
    for arch in Arch::ALL {
        let r = bring_up(arch);
        let steps: Vec<String> = r
            .log()
            .iter()
            .filter_map(|e| match e {
                Entry::Note(t) if t.starts_with("pooling_init step") || t.starts_with("stpb_init") => {
                    Some(t.split(':').next().unwrap().to_string() + ":" + t.split(':').nth(1).unwrap().split_whitespace().next().unwrap())
                }
                _ => None,
            })
            .collect();
        let mut want = vec![
            "stpb_init:notific_init",
            "stpb_init:stpb_eng_notif_enable",
            "stpb_init:evsem_notif_enable",
            "stpb_init:error_notif_enable",
            "stpb_init:stpb_regs_init",
            "stpb_init:pooling_init",
            "pooling_init step 1:regs_init",
            "pooling_init step 2:ucode_seq_init",
            "pooling_init step 3:q7_ucode_eng_init",
        ];
        if arch != Arch::Sunda {
            want.push("pooling_init step 3b:hw_decode_table_init");
        }
        want.extend(["pooling_init step 4:dma_init", "pooling_init step 5:release_seq_run_stall", "pooling_init step 6:release_eng_run_stall"]);
        assert_eq!(steps, want, "{arch}");
    }
}

#[test]
fn q7_images_go_dram_then_iram_per_core_zero_padded() {
    for arch in Arch::ALL {
        let r = bring_up(arch);
        let bufs: Vec<(String, usize, usize)> = r
            .log()
            .iter()
            .filter_map(|e| match e {
                Entry::WriteBuf { name, len, nonzero_len, .. } if name.starts_with("q7[") => Some((name.clone(), *len, *nonzero_len)),
                _ => None,
            })
            .collect();
        let p = Hal::for_arch(arch).unwrap().get_q7_params(2).unwrap();
        assert_eq!(bufs.len(), 2 * p.num_q7 as usize, "{arch}");
        for (n, pair) in bufs.chunks(2).enumerate() {
            assert_eq!(pair[0].0, format!("q7[{n}].dram+0x0"), "{arch}: DRAM first");
            assert_eq!(pair[1].0, format!("q7[{n}].iram+0x0"), "{arch}: then IRAM");
            assert_eq!((pair[0].1 as u64, pair[1].1 as u64), (p.dram_size, p.iram_size), "{arch}: padded to the aperture");
            assert_eq!((pair[0].2, pair[1].2), (0x80, 0x100), "{arch}: image, then zeros");
        }
    }
}

#[test]
fn bringup_leaves_the_hardware_released_as_each_generation_does() {
    for arch in Arch::ALL {
        let r = bring_up(arch);
        let mut m = r.into_inner();
        let hal = Hal::for_arch(arch).unwrap();
        let ctx = hal.ctx().unwrap();
        let nx = ctx.pool_base();
        assert_eq!(m.read32(nx + ctx.regs.nx.release_run_stall.offset as u64).unwrap(), 0, "{arch}: SEQ released");
        assert_eq!(m.read32(nx + ctx.regs.nx.run_state.offset as u64).unwrap() & 1, 1, "{arch}: SEQ running");
        assert_eq!(m.read32(nx + ctx.regs.nx.dma_ctrl.offset as u64).unwrap(), 1, "{arch}: DMA enabled");
        let q7 = m.read32(nx + ctx.regs.q7_release_run_stall.offset as u64).unwrap();
        if arch == Arch::Sunda {
            assert_eq!(q7, 0xff, "SUNDA: the host does not release the Q7 cores");
        } else {
            assert_eq!(q7, 0x00, "{arch}: the host releases the Q7 cores");
        }
        let t = ctx.tpb_regs_base();
        assert_eq!(m.read32(t + ctx.regs.tpb.notific_enable.offset as u64).unwrap(), 0b111, "{arch}: three classes");
        let q = m.read32(t + ctx.regs.tpb.notific_sw_queue_num0.offset as u64).unwrap();
        assert_eq!(q & 0x0fff_0000, 0x0525_0000, "{arch}: engine ids spliced (a=2 at [23:20], b=5 at [27:24] and [19:16])");
        // The Q7 images and their zero pad are in every core's memory.
        let p = hal.get_q7_params(2).unwrap();
        for n in 0..p.num_q7 {
            let dram = m.memory(&format!("q7[{n}].dram"), 0, p.dram_size as usize).unwrap();
            assert_eq!(&dram[..0x80], &config(arch).pooling.q7.dram[..], "{arch} core {n}");
            assert!(dram[0x80..].iter().all(|&b| b == 0));
        }
    }
}

/// DIGEST §2.8 GOTCHA: for every register the HAL programs, the address it
/// computes decodes, in the RTL's view, to the register it means.
#[test]
fn hal_offsets_land_on_the_intended_rtl_registers() {
    for arch in Arch::ALL {
        let hal = Hal::for_arch(arch).unwrap();
        let ctx = hal.ctx().unwrap();
        let bar0 = AddressSpace::new(builtin(arch).unwrap());
        let nx = &ctx.regs.nx;
        let mut regs = vec![
            nx.release_run_stall,
            nx.run_state,
            nx.intr_ctrl,
            nx.intr_info,
            nx.engine_base_address_lo,
            nx.engine_base_address_hi,
            nx.dma_ctrl,
            nx.mem_window2_lo,
            nx.mem_window2_hi,
            nx.instr_dbg_ctrl,
            ctx.regs.q7_release_run_stall,
        ];
        regs.extend(nx.rx_ring);
        regs.extend(nx.tx_ring);
        for r in regs {
            match bar0.decode(ctx.pool_base() + r.offset as u64) {
                Some(Target::Reg { reg, .. }) => assert_eq!(reg.name, r.name, "{arch}"),
                other => panic!("{arch}: {} decodes to {:?}", r.name, other.map(|t| t.name())),
            }
        }
        let t = &ctx.regs.tpb;
        for r in [t.seq_instr_dbg_ctrl, t.notific_sw_queue_num0, t.notific_ring_base_lo, t.notific_ring_base_hi, t.notific_ring_size, t.notific_enable] {
            assert_eq!(bar0.name(ctx.tpb_regs_base() + r.offset as u64), format!("tpb.tpb.{}", r.name), "{arch}");
        }
        // The HAL's release_run_stall (+0x04) is the device spec's start_ctrl offset; run_state (+0x14) is instr_halt_ctrl's.
        assert_eq!((nx.release_run_stall.offset, nx.release_run_stall.device_offset), (0x04, Some(0x00)));
        assert_eq!((nx.run_state.offset, nx.run_state.device_offset), (0x14, Some(0x08)));
        let trig = hal.topsp_get_host_trigger_reg_offset().unwrap();
        let name = bar0.name(trig);
        assert!(name.contains("host_trigger"), "{arch}: {name}");
    }
}

/// `nrt_set_pool_eng_ucode`: registered images replace the stock Q7 images
/// in the configuration `init` (`nrt_init` → `tpb_eng_init_hals_v2`) builds
/// (every core gets them), `None` restores them, and `stpb_init` itself
/// installs the configuration it is given, as in the seeds' chain.
#[test]
fn registered_pool_engine_ucode_overrides_the_configurations_q7_images() {
    let q7_lens = |hal: &Hal, arch: Arch, through_init: bool| {
        let map = builtin(arch).unwrap();
        let mut bar0 = Recorder::new(RegFileModel::new(map.clone()), map);
        if through_init {
            hal.init(&mut bar0, &config(arch), None).unwrap();
        } else {
            hal.stpb_init(&mut bar0, &config(arch), None).unwrap();
        }
        bar0.log()
            .iter()
            .filter_map(|e| match e {
                Entry::WriteBuf { name, nonzero_len, .. } if name.starts_with("q7[") => Some(*nonzero_len),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    for arch in Arch::ALL {
        let mut hal = Hal::for_arch(arch).unwrap();
        hal.set_pool_eng_ucode(Some(UcodeImages { iram: vec![0x5a; 0x24], dram: vec![0xa5; 0x10] }));
        let lens = q7_lens(&hal, arch, true);
        assert!(!lens.is_empty() && lens.chunks(2).all(|p| p == [0x10, 0x24]), "{arch}: {lens:?}");
        assert!(q7_lens(&hal, arch, false).chunks(2).all(|p| p == [0x80, 0x100]), "{arch}: stpb_init installs the configuration it is given");
        assert_eq!(hal.eng_init_hals(&config(arch)).pooling.q7.iram, vec![0x5a; 0x24]);
        hal.set_pool_eng_ucode(None);
        assert!(q7_lens(&hal, arch, true).chunks(2).all(|p| p == [0x80, 0x100]), "{arch}: the configuration's images again");
        assert_eq!(hal.eng_init_hals(&config(arch)), config(arch));
    }
}

/// `aws_get_tpb_addr`: CAYMAN's physical core 0 is where its Q7 DRAM lands
/// on the device map: every pooling core's DRAM, at our `[D]` per-core
/// stride, is at the SoC address the device map gives it (DIGEST §2.3).
/// What the seeds do not give is an error that says so.
#[test]
fn the_tpb_soc_address_puts_every_q7_dram_where_the_device_map_has_it() {
    use tpb_models::hal::spec;
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let base = hal.tpb_addr(0).unwrap();
    assert_eq!(base, 0x28_0000_0000);
    let layout = builtin(Arch::Cayman).unwrap().params.q7_layout(spec::q7_owner::POOLING).unwrap();
    for n in 0..layout.params.num_q7 {
        assert_eq!(base + layout.dram(n), spec::CAYMAN_Q7_CORE_DRAM_SOC_BASE + u64::from(n) * spec::CAYMAN_Q7_CORE_DRAM_SOC_STRIDE, "core {n}");
    }
    assert!(hal.tpb_addr(1).unwrap_err().to_string().contains("physical core 0 only"));
    for arch in [Arch::Sunda, Arch::Mariana] {
        let e = Hal::for_arch(arch).unwrap().tpb_addr(0).unwrap_err().to_string();
        assert!(e.contains("CAYMAN only") && e.contains(&arch.name().to_uppercase()), "{e}");
    }
}

/// `arch_stpb_to_instr_debug_level`: both instruction-debug registers get
/// the converted level (`[D]`: the level unchanged).
#[test]
fn the_instruction_debug_level_reaches_both_registers() {
    for arch in Arch::ALL {
        let hal = Hal::for_arch(arch).unwrap();
        let map = builtin(arch).unwrap();
        let mut bar0 = Recorder::new(RegFileModel::new(map.clone()), map);
        let mut cfg = config(arch);
        cfg.pooling.instr_debug_level = 3;
        hal.stpb_init(&mut bar0, &cfg, None).unwrap();
        let writes: Vec<(String, u32)> = bar0
            .log()
            .iter()
            .filter_map(|e| match e {
                Entry::Write { name, value, .. } if name.contains("instr_dbg_ctrl") => Some((name.clone(), *value)),
                _ => None,
            })
            .collect();
        assert_eq!(writes, vec![("tpb.tpb.seq_instr_dbg_ctrl".to_string(), 3), ("pool.nx.instr_dbg_ctrl".to_string(), 3)], "{arch}");
    }
}
