//! The BAR0 layout checked against literal numbers of the DIGEST, written
//! here by hand, not taken from the layout helper (`regmap::layout`) the
//! golden model and the RTL both use: lockstep between them cannot catch a
//! wrong rule they share; these addresses can. Each access is made by raw
//! address on the Verilated top, and its effect is read at a second literal
//! address or on the top's pins.

use tpb_models::regmap::Arch;
use tpb_testbench::tb::{EngineKind, Tb};

fn tb(arch: Arch) -> Tb {
    Tb::new(arch, EngineKind::Verilator).unwrap_or_else(|e| panic!("{e}"))
}

/// DIGEST §2.6/§2.7/§2.8: POOL's Q7 local-register base 0x2860000 (the
/// bit-35 fold of 0x802860000), its Q7 bundle at +0x3000 whose
/// release_run_stall [7:0] resets to 0xFF (bit n = core n stalled).
#[test]
fn the_q7_release_run_stall_is_at_0x2863000_on_cayman_and_mariana() {
    for arch in [Arch::Cayman, Arch::Mariana] {
        let mut t = tb(arch);
        assert_eq!(t.read_addr(0x0286_3000).unwrap().rdata & 0xff, 0xff, "{arch:?}: reset value");
        assert_eq!(t.read("port.q7_run_stall").unwrap(), 0xff);
        assert!(!t.write_addr(0x0286_3000, 0x5a).unwrap().err);
        t.wait(2);
        assert_eq!(t.read("port.q7_run_stall").unwrap(), 0x5a, "{arch:?}: the write reached the cores' run-stall pins");
    }
}

/// DIGEST §2.7: CAYMAN's TOP_SP host_trigger at 0x615a0 (LOCAL_REG base
/// 0x60000 + 0x15a0), which this model reads as SET of TOP_SP semaphore 104
/// (`[D]` DIGEST §3 choice (a): 0x1400 + 4 × 104); the semaphore's read
/// window at 0x61000 + 4 × 104.
#[test]
fn the_top_sp_host_trigger_at_0x615a0_sets_semaphore_104_on_cayman() {
    let mut t = tb(Arch::Cayman);
    assert_eq!(t.read_addr(0x0006_1000 + 4 * 104).unwrap().rdata, 0);
    assert!(!t.write_addr(0x0006_15a0, 1).unwrap().err);
    assert_eq!(t.read_addr(0x0006_1000 + 4 * 104).unwrap().rdata, 1);
}

/// DIGEST §2.7: SUNDA's TOP_SP set_host_trigger at 0x60848 (LOCAL_REG
/// base 0x60000 + 0x848), a pulse register: a write of 1 there pulses the
/// top's `host_trigger_pulse` pin for one cycle, and it reads back 0.
#[test]
fn sunda_takes_the_host_trigger_at_0x60848() {
    let mut t = tb(Arch::Sunda);
    let name = "top_sp.top_sp.host_trigger";
    assert_eq!(t.resolve(name).unwrap().addr(), Some(0x0006_0848), "the map puts it where the DIGEST does");
    let seen = t.doorbell(name, 1).unwrap_or_else(|e| panic!("{e}"));
    assert!(seen.is_some(), "the pulse was seen on host_trigger_pulse");
}

/// The notification unit's slots, from literal record words and not the
/// golden model's `slot_kind` (which the RTL shares, so lockstep cannot
/// catch a wrong mapping): a semaphore change of each engine posts a record
/// whose word 0 is type 0x10 with the engine's number as source (PE 0,
/// ACT 1, POOL 2, DVE 3, TPB_SP 4 where the map has it, TOP_SP 5) and
/// whose argument is the semaphore; a BAR0 error posts type 0x02 with
/// source 0xff and the address. The ring is the SRAM at BAR0 0x72000
/// (16-byte records, `[D]`, golden/notific.rs), read by raw address.
#[test]
fn notification_records_name_the_engine_and_the_class_by_literal_numbers() {
    for arch in [Arch::Sunda, Arch::Cayman, Arch::Mariana] {
        let mut t = tb(arch);
        t.write("tpb.tpb.notific_ring_size", 64).unwrap();
        t.write("tpb.tpb.notific_enable", 0b111).unwrap();
        let has_tpb_sp = t.names().map().params.local_reg_base(tpb_models::regmap::Engine::TpbSp).is_some();
        let engines: Vec<(&str, u32)> =
            [("pe", 0), ("act", 1), ("pool", 2), ("dve", 3), ("tpb_sp", 4), ("top_sp", 5)].into_iter().filter(|(e, _)| *e != "tpb_sp" || has_tpb_sp).collect();
        for (k, (e, _)) in engines.iter().enumerate() {
            t.write(&format!("{e}.evt_sem.set[{}]", 10 + k), 1).unwrap();
            t.wait(4);
        }
        assert!(t.read_addr(0x0007_3000).unwrap().err, "{arch:?}: 0x73000 decodes to nothing");
        t.wait(4);
        for (k, (e, n)) in engines.iter().enumerate() {
            let at = 0x0007_2000 + 16 * k as u32;
            let (w0, arg) = (t.read_addr(at).unwrap().rdata, t.read_addr(at + 4).unwrap().rdata);
            assert_eq!((w0 & 0xffff, arg), (0x10 | n << 8, 10 + k as u32), "{arch:?}: record {k}, {e}'s semaphore {}", 10 + k);
            assert_eq!(w0 >> 16, k as u32, "{arch:?}: record {k}'s sequence number");
        }
        let at = 0x0007_2000 + 16 * engines.len() as u32;
        let (w0, arg) = (t.read_addr(at).unwrap().rdata, t.read_addr(at + 4).unwrap().rdata);
        assert_eq!((w0 & 0xffff, arg), (0xff02, 0x0007_3000), "{arch:?}: the BAR0 error record");
    }
}
