//! The HW-decode CAM (rust-hdl) against its golden model: random
//! programming, lookups, pops, status clears and resets compared every
//! cycle; lowest-index priority; both mask byte orders; and the HAL's
//! `hw_decode_table_init` bytes programming the RTL through its bus.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use tpb_hdl::hw_decode::{HwDecode, HwDecodeCam};
use tpb_models::golden::evt_sem::BusReq;
use tpb_models::golden::hw_decode::{HwDecodeModel, LookupResult, Outputs, STATUS};

struct Sim<const N: usize, const TW: usize> {
    uut: Box<HwDecode<N, TW>>,
}

impl<const N: usize, const TW: usize> Sim<N, TW> {
    fn new(uut: HwDecode<N, TW>) -> Self {
        let mut uut = Box::new(uut);
        uut.connect_all();
        uut.clock.next = Clock::from(false);
        assert!(simulate(&mut *uut, 1000));
        Sim { uut }
    }
    fn drive(&mut self, reset: bool, bus: Option<BusReq>, lookup: Option<(u8, u8)>, pop: bool) {
        let u = &mut self.uut;
        tpb_hdl::bar0_slave_drive!(u, reset, bus);
        u.lookup_valid.next = lookup.is_some();
        let (op, func) = lookup.unwrap_or((0, 0));
        u.lookup_opcode.next = (op as u64).into();
        u.lookup_func.next = (func as u64).into();
        u.fifo_pop.next = pop;
        assert!(simulate(&mut **u, 1000));
    }
    fn tick(&mut self) {
        self.uut.clock.next = Clock::from(true);
        assert!(simulate(&mut *self.uut, 1000));
        self.uut.clock.next = Clock::from(false);
        assert!(simulate(&mut *self.uut, 1000));
    }
    fn outputs(&self) -> Outputs {
        let u = &self.uut;
        let valid = u.rsp_valid.val();
        let fifo = u.fifo_valid.val();
        Outputs {
            rsp_valid: valid,
            rsp_rdata: if valid { u.rsp_rdata.val().index() as u32 } else { 0 },
            rsp_err: valid && u.rsp_err.val(),
            fifo_valid: fifo,
            head: LookupResult {
                hit: u.fifo_hit.val(),
                entry: u.fifo_entry.val().index() as u8,
                index: u.fifo_index.val().index() as u16,
                handler: u.fifo_handler.val().index() as u32,
            },
            miss: u.miss.val(),
            miss_irq: u.miss_irq.val(),
            lookup_ready: u.lookup_ready.val(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Cycle {
    reset: bool,
    bus: Option<BusReq>,
    lookup: Option<(u8, u8)>,
    pop: bool,
}

fn lockstep<const N: usize, const TW: usize>(uut: HwDecode<N, TW>, sunda: bool, stim: &[Cycle]) -> Result<HwDecodeModel, String> {
    let mut rtl = Sim::new(uut);
    let mut gold = HwDecodeModel::new(N, TW, sunda);
    for (n, c) in stim.iter().enumerate() {
        rtl.drive(c.reset, c.bus, c.lookup, c.pop);
        if rtl.uut.lookup_ready.val() != gold.lookup_ready() {
            return Err(format!("cycle {n}: lookup_ready differs"));
        }
        rtl.tick();
        gold.step(c.reset, c.bus, c.lookup, c.pop);
        let (r, g) = (rtl.outputs(), gold.outputs());
        if r != g {
            return Err(format!("cycle {n}: rtl {r:?}\n golden {g:?}\n after {c:?}"));
        }
    }
    Ok(gold)
}

fn random_stim(seed: u64, cycles: usize, n: u32, tw: usize) -> Vec<Cycle> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let keys: Vec<(u8, u8)> = (0..6).map(|_| (rng.gen(), rng.gen())).collect();
    let table_base = 4u32 << tw;
    (0..cycles)
        .map(|_| {
            let bus = match rng.gen_range(0..10) {
                0..=2 => {
                    // program a word of a low entry
                    let e = if rng.gen_bool(0.8) { rng.gen_range(0..6) } else { rng.gen_range(0..n) };
                    let (ko, kf) = keys[rng.gen_range(0..keys.len())];
                    let masks = [0xff, 0xf0, 0x00, 0x0f][rng.gen_range(0..4)];
                    let word = rng.gen_range(0..4);
                    let wdata = match word {
                        0 => rng.gen_bool(0.8) as u32 | (ko as u32) << 8 | (kf as u32) << 16 | masks << 24,
                        1 => [0xffu32, 0x0f, 0x00][rng.gen_range(0..3)] | (rng.gen_range(0..8u32) << 16),
                        _ => rng.gen(),
                    };
                    Some(BusReq { write: rng.gen_bool(0.8), addr: e * 16 + word * 4, wdata })
                }
                3 => Some(BusReq { write: true, addr: table_base + 4 * rng.gen_range(0..8), wdata: rng.gen() }),
                4 => Some(BusReq { write: rng.gen_bool(0.5), addr: STATUS, wdata: 1 }),
                5 => Some(BusReq { write: rng.gen_bool(0.5), addr: rng.gen_range(0..0x10000), wdata: rng.gen() }),
                _ => None,
            };
            let lookup = rng.gen_bool(0.5).then(|| {
                let (o, f) = keys[rng.gen_range(0..keys.len())];
                if rng.gen_bool(0.8) {
                    (o ^ (rng.gen::<u8>() & 0x0f), f)
                } else {
                    (rng.gen(), rng.gen())
                }
            });
            Cycle { reset: rng.gen_bool(0.001), bus, lookup, pop: rng.gen_bool(0.4) }
        })
        .collect()
}

#[test]
fn random_traffic_matches_the_golden_model() {
    let cycles: usize = std::env::var("TPB_RHDL_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(12_000);
    let t = std::time::Instant::now();
    lockstep(HwDecodeCam::default(), false, &random_stim(5, cycles, 47, 11)).unwrap();
    println!("HW-decode CAM (47 entries, 8 KiB) rust-hdl vs golden: {cycles} cycles, 0 mismatches, {:.0} cycles/s", cycles as f64 / t.elapsed().as_secs_f64());
    lockstep(HwDecode::<8, 8>::new(true), true, &random_stim(6, cycles / 2, 8, 8)).unwrap();
}

/// DIGEST §4 GOTCHA, from literal words and not the golden model (which
/// shares the rule with the RTL, so lockstep cannot catch it): one entry,
/// key opcode 0x41 and func 0x05, word 0 `[31:24]` = 0xff and word 1
/// `[7:0]` = 0x00. In CAYMAN+ order that byte is the opcode mask: opcode
/// 0x41 with any func hits. SUNDA puts the func mask first: func 0x05 with
/// any opcode hits.
#[test]
fn the_mask_byte_order_of_each_generation_from_literal_words() {
    for (sunda, hits, misses) in [(false, (0x41, 0x77), (0x13, 0x05)), (true, (0x13, 0x05), (0x41, 0x77))] {
        let look = |key: (u8, u8)| {
            let mut rtl = Sim::new(HwDecode::<47, 11>::new(sunda));
            for (addr, wdata) in [(0u32, 1 | 0x41 << 8 | 0x05 << 16 | 0xff << 24), (4, 7 << 16)] {
                rtl.drive(false, Some(BusReq { write: true, addr, wdata }), None, false);
                rtl.tick();
            }
            rtl.drive(false, None, Some(key), false);
            rtl.tick();
            rtl.drive(false, None, None, false);
            rtl.tick();
            let o = rtl.outputs();
            assert!(o.fifo_valid, "sunda order {sunda}: a lookup result");
            o.head
        };
        let h = look(hits);
        assert!(h.hit && h.entry == 0 && h.index == 7, "sunda order {sunda}: {hits:x?} hits entry 0: {h:?}");
        let m = look(misses);
        assert!(!m.hit, "sunda order {sunda}: {misses:x?} misses: {m:?}");
    }
}

#[test]
fn lowest_matching_entry_wins_and_misses_are_flagged() {
    let w = |addr, wdata| Cycle { reset: false, bus: Some(BusReq { write: true, addr, wdata }), lookup: None, pop: false };
    let idle = |lookup, pop| Cycle { reset: false, bus: None, lookup, pop };
    let stim = vec![
        // entry 5: opcode 0x41 exact, any func -> index 3; entry 2: opcode 0x4X -> index 1
        w(5 * 16, 1 | 0x41 << 8 | 0xff << 24),
        w(5 * 16 + 4, 3 << 16),
        w(2 * 16, 1 | 0x40 << 8 | 0xf0 << 24),
        w(2 * 16 + 4, 1 << 16),
        w(0x2000 + 4, 0xabcd),
        w(0x2000 + 12, 0x1234),
        idle(Some((0x41, 0x77)), false), // both match: entry 2 wins
        idle(Some((0x99, 0)), false),    // miss
        idle(None, false),
        idle(None, true),
        idle(None, true),
        idle(None, false),
    ];
    let gold = lockstep(HwDecodeCam::default(), false, &stim).unwrap();
    assert_eq!(gold.lookup(0x41, 0x77), Some((2, 1)));
    assert_eq!(gold.lookup(0x43, 0), Some((2, 1)));
    assert_eq!(gold.lookup(0x99, 0), None);
    // The FIFO order and content, cycle by cycle, was checked in lockstep; check the RTL's head once more.
    let mut rtl = Sim::new(HwDecodeCam::default());
    for c in &stim[..8] {
        rtl.drive(c.reset, c.bus, c.lookup, c.pop);
        rtl.tick();
    }
    rtl.drive(false, None, None, false);
    let o = rtl.outputs();
    assert!(o.fifo_valid && o.head.hit && o.head.entry == 2 && o.head.index == 1 && o.head.handler == 0xabcd, "{o:?}");
    rtl.tick();
    assert!(rtl.outputs().miss, "the miss is flagged");
}

#[test]
fn the_hal_programs_the_rtl_cam_over_its_bus() {
    use tpb_models::hal::{CamRecord, Hal, HwDecodeTable, Mmio, Recorder, RegFileModel};
    use tpb_models::regmap::{builtin, Arch};
    let map = builtin(Arch::Cayman).unwrap();
    let hal = Hal::for_arch(Arch::Cayman).unwrap();
    let mut bar0 = Recorder::new(RegFileModel::new(map.clone()), map.clone());
    let t = HwDecodeTable {
        cam: vec![
            CamRecord { valid: false, key_opcode: 0x41, key_func: 0, mask_opcode: 0xff, mask_func: 0, table_index: 0 },
            CamRecord { valid: true, key_opcode: 0x41, key_func: 2, mask_opcode: 0xff, mask_func: 0xff, table_index: 7 },
        ],
        table: (0..64u8).collect(),
    };
    tpb_models::hal::pooling::hw_decode_table_init(hal.ctx().unwrap(), &mut bar0, &t).unwrap();
    // Replay the HAL's BAR0 bytes into the RTL as 32-bit bus writes at block offsets.
    let base = map.params.local_reg.hw_decode_table_params.unwrap();
    let mut m = bar0.into_inner();
    let mut rtl = Sim::new(HwDecodeCam::default());
    for (region, off) in [("hw_decode.cam", map.params.hw_decode.cam_offset), ("hw_decode.table", map.params.hw_decode.table_offset)] {
        let r = m.bar0().regions().iter().find(|r| r.name == region).unwrap().clone();
        assert_eq!(r.region.base, base + off as u64);
        let bytes = m.memory(region, 0, r.region.size as usize).unwrap();
        for (k, w) in bytes.chunks(4).enumerate() {
            let wdata = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            rtl.drive(false, Some(BusReq { write: true, addr: off + 4 * k as u32, wdata }), None, false);
            rtl.tick();
            assert!(!rtl.outputs().rsp_err, "{region}+{:#x}", 4 * k);
        }
    }
    let _ = m.read32(0); // the model stays usable
    rtl.drive(false, None, Some((0x41, 2)), false);
    rtl.tick();
    rtl.drive(false, None, None, false);
    rtl.tick();
    let o = rtl.outputs();
    assert!(o.fifo_valid && o.head.hit, "{o:?}");
    assert_eq!((o.head.entry, o.head.index), (1, 7), "entry 0 is not valid; entry 1 matches");
    assert_eq!(o.head.handler, u32::from_le_bytes([28, 29, 30, 31]), "handler word 7 of the table");
}

/// The RTL's sizes are the generation parameters of `arch.toml` (one place for the numbers, `[D]` there).
#[test]
fn rtl_sizes_are_the_maps_parameters() {
    use tpb_models::regmap::{builtin, Arch};
    for arch in [Arch::Cayman, Arch::Mariana] {
        let hw = builtin(arch).unwrap().params.hw_decode;
        assert!(hw.present);
        assert_eq!(tpb_hdl::hw_decode::DEFAULT_ENTRIES, hw.cam_records as usize, "{arch}");
        assert_eq!(4usize << tpb_hdl::hw_decode::DEFAULT_TABLE_BITS, hw.table_bytes as usize, "{arch}");
        assert_eq!(tpb_hdl::hw_decode::table_offset(tpb_hdl::hw_decode::DEFAULT_TABLE_BITS), hw.table_offset, "{arch}");
        assert_eq!(hw.cam_offset, 0);
    }
    assert!(!builtin(Arch::Sunda).unwrap().params.hw_decode.present, "SUNDA has no CAM");
}
