//! The SEQ's instruction fetch through its I-cache and I-fetch DMA (seed
//! 004 §7, `cosim/src/sched/ifetch.rs`): in the seeds' bring-up order the
//! SEQ boots from the image at engine_base_address in device memory; with
//! its run-stall released before dma_init, its first fill is dropped and it
//! hangs, as `fetch-order-wrong` is designed to show.

use tpb_cosim::scenario::{self, ScenarioFile};
use tpb_cosim::sched::{CoreId, Cosim, Master};
use tpb_models::hal::{DevMem, Hal, Mmio, StpbConfig, UcodeImages};
use tpb_models::regmap::Arch;

const ALL: [Arch; 3] = [Arch::Sunda, Arch::Cayman, Arch::Mariana];

fn cfg(name: &str) -> (scenario::FetchOrderCfg, u64) {
    let f = ScenarioFile::find(name).unwrap();
    (f.fetch_order.clone().unwrap(), f.cycles)
}

#[test]
fn in_the_seeds_order_the_seq_boots_from_device_memory_through_its_icache() {
    let (f, limit) = cfg("fetch-order");
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::fetch_order(&mut c, &f, limit).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let lines = c.icache().unwrap().valid_lines() as u64;
        assert!(r.get("ifetch.fills") >= 2 && r.get("ifetch.fills") == lines, "{arch:?}: {} fills, {lines} lines", r.get("ifetch.fills"));
        assert_eq!(r.get("ifetch.words"), lines * u64::from(f.line / 4));
        // The fills are BAR0 writes of the I-fetch DMA into the SEQ IRAM, after dma_ctrl was enabled;
        // beside them, per fill, a descriptor of 4 words on the fill ring and its tail moved on.
        let iram = tpb_cosim::firmware::bar0_region(c.map(), "seq.iram").unwrap();
        let writes: Vec<_> = c.log.iter().filter(|t| t.master == Master::IFetch && t.write).collect();
        let fills = writes.iter().filter(|t| (iram..iram + 0x10000).contains(&t.addr)).count() as u64;
        assert_eq!(fills, r.get("ifetch.words"));
        assert_eq!(writes.len() as u64 - fills, lines * 5, "{arch:?}: 4 descriptor words and a tail write a fill");
        println!("{arch:?}: {} lines filled, SEQ at enter_run, {} checks", lines, r.checks.len());
    }
}

#[test]
fn released_before_dma_ctrl_the_seq_hangs_on_a_dropped_fill_as_designed() {
    let (f, limit) = cfg("fetch-order-wrong");
    for arch in ALL {
        let mut c = Cosim::new(arch).unwrap();
        let r = scenario::fetch_order(&mut c, &f, limit).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let d = c.ifetch.dropped.expect("a dropped fill");
        assert_eq!(d.addr, 0, "{arch:?}: the SEQ's first fetch, its reset vector's line");
        assert_eq!((r.get("ifetch.fills"), c.core(CoreId::Seq).core.retired()), (0, 0));
        let check = r.checks.iter().find(|x| x.contains("fails as designed")).unwrap();
        assert!(check.contains("its fill was dropped at cycle") && check.contains("; dma_ctrl.enable = 0)"), "{check}");
        // The engine read dma_ctrl once and never again: nothing more was asked of it.
        let ifetch = c.log.iter().filter(|t| t.master == Master::IFetch).count();
        assert_eq!(ifetch, 1, "{arch:?}");
    }
}

/// The scenario's check holds the wrong order to its failure: were the SEQ
/// to boot anyway (the order right), the wrong-order check fails, saying so.
#[test]
fn the_wrong_order_check_fails_if_the_seq_boots() {
    let (mut f, limit) = cfg("fetch-order-wrong");
    f.release_first = false;
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let ok = scenario::fetch_order(&mut c, &f, limit).unwrap();
    assert!(ok.checks.iter().all(|x| !x.contains("fails as designed")));
    // Released first but the DMA already enabled before it: no drop, so the check fails.
    let (f, _) = cfg("fetch-order-wrong");
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let reg = |r: &str| tpb_cosim::firmware::Addrs::new(c.map(), "t").reg(tpb_models::regmap::Engine::Pool, "nx", r).unwrap();
    let (ring, ctrl) = (reg("dma_rx_ring_length"), reg("dma_ctrl"));
    c.write32(ring.into(), 8).unwrap();
    c.write32(ctrl.into(), 1).unwrap();
    let e = scenario::fetch_order(&mut c, &f, 2000).unwrap_err().to_string();
    assert!(e.contains("the wrong order fails as designed") && e.contains("dropped at never"), "{e}");
}

/// The SEQ runs what device memory holds, not the HAL's IRAM image: with
/// the I-cache on and nothing at engine_base_address, the same bring-up
/// never reaches enter_run.
#[test]
fn without_the_image_in_device_memory_the_seq_runs_nothing_useful() {
    let (f, _) = cfg("fetch-order");
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    c.seq_icache(f.line).unwrap();
    c.devmem_write(f.base, &[0u8; 64]).unwrap();
    let map = c.map().clone();
    let mut cfg =
        StpbConfig::new(UcodeImages { iram: Vec::new(), dram: vec![0; 16] }, UcodeImages { iram: tpb_cosim::firmware::q7_sum(&map).unwrap().bytes, dram: vec![1, 0, 0, 0] });
    cfg.pooling.engine_base_address = f.base;
    cfg.pooling.dma =
        Some(tpb_models::hal::DmaConfig { rx: tpb_models::hal::RingConfig { base: 0, length: 4 }, tx: tpb_models::hal::RingConfig { base: 0, length: 0 }, mem_window2: 0 });
    Hal::with_map(map.clone()).stpb_init(&mut c, &cfg, None).unwrap();
    c.run(5000);
    let dram = u64::from(tpb_cosim::firmware::bar0_region(&map, "seq.dram").unwrap());
    assert_ne!(c.read32(dram).unwrap(), tpb_cosim::firmware::SEQ_MARK);
    assert!(c.ifetch.fills >= 1, "it filled lines, of zeros");
    // A bad line length is refused, and the cache keeps what it had.
    assert!(c.seq_icache(48).unwrap_err().to_string().contains("SEQ I-cache line of 48 bytes: a power of two"));
    assert_eq!(c.icache().unwrap().line, f.line);
    // So is a scenario file that asks for one, before anything runs.
    use tpb_cosim::scenario::Scenario;
    let bad = scenario::FetchOrderCfg { line: 48, ..f };
    assert!(bad.check("x.toml").unwrap_err().to_string().contains("x.toml: [fetch_order] line = 48"));
}

/// The fills go through the RX ring, the seeds' I-cache fill ring: with no
/// ring (dma_init left it off, length 0) the fill is dropped, saying why.
#[test]
fn without_a_fill_ring_the_fill_is_dropped() {
    let (f, _) = cfg("fetch-order");
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    c.seq_icache(f.line).unwrap();
    let map = c.map().clone();
    let mut seq = tpb_cosim::firmware::nx_boot(&map, false).unwrap().bytes;
    seq.resize(seq.len().next_multiple_of(f.line as usize), 0);
    c.devmem_write(f.base, &seq).unwrap();
    let mut cfg =
        StpbConfig::new(UcodeImages { iram: Vec::new(), dram: vec![0; 16] }, UcodeImages { iram: tpb_cosim::firmware::q7_sum(&map).unwrap().bytes, dram: vec![1, 0, 0, 0] });
    cfg.pooling.engine_base_address = f.base;
    Hal::with_map(map).stpb_init(&mut c, &cfg, None).unwrap();
    c.run(3000);
    let d = c.ifetch.dropped.expect("dropped: no fill ring");
    assert!(d.no_ring && d.addr == 0 && c.ifetch.fills == 0, "{d:?}");
    assert_eq!(c.core(CoreId::Seq).core.retired(), 0);
}
