//! The notification unit (rust-hdl) against its golden model: random
//! events from every source, ring sizes (valid, 0, past the SRAM), class
//! enables, a host that consumes at random and BAR0 reads of the ring,
//! compared every cycle (responses, head, drop count, overflow pulse), then
//! every record of the SRAM.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use tpb_hdl::notific::Notific;
use tpb_models::csr::Req;
use tpb_models::golden::notific::{Inputs, NotificModel, Outputs, RECORD_BYTES};

const RW: usize = 4;

struct Sim {
    uut: Box<Notific<RW>>,
}

impl Sim {
    fn new() -> Sim {
        let mut uut = Box::new(Notific::<RW>::default());
        uut.connect_all();
        uut.clock.next = Clock::from(false);
        assert!(simulate(&mut *uut, 1000));
        Sim { uut }
    }
    fn drive(&mut self, reset: bool, bus: Option<Req>, i: &Inputs) {
        let u = &mut *self.uut;
        tpb_hdl::bar0_slave_drive!(u, reset, bus);
        u.size.next = u64::from(i.size).into();
        u.enable.next = u64::from(u8::from(i.en_error) | u8::from(i.en_sem) << 1 | u8::from(i.en_inst) << 2).into();
        u.tail.next = u64::from(i.tail).into();
        u.sem_valid.next = u64::from(i.sem_valid).into();
        for e in 0..6 {
            u.sem_index[e].next = u64::from(i.sem_index[e]).into();
        }
        u.dma_done.next = i.dma_done;
        u.dma_index.next = u64::from(i.dma_index).into();
        u.dma_err.next = u64::from(i.dma_err).into();
        u.halted.next = u64::from(i.halted).into();
        u.bus_err.next = i.bus_err;
        u.bus_addr.next = u64::from(i.bus_addr).into();
        u.inst_valid.next = u64::from(i.inst_valid).into();
        for e in 0..6 {
            u.inst_tag[e].next = u64::from(i.inst_tag[e]).into();
        }
        assert!(simulate(u, 1000));
    }
    fn tick(&mut self) {
        self.uut.clock.next = Clock::from(true);
        assert!(simulate(&mut *self.uut, 1000));
        self.uut.clock.next = Clock::from(false);
        assert!(simulate(&mut *self.uut, 1000));
    }
    fn outputs(&self) -> (Outputs, tpb_models::csr::Rsp) {
        let u = &self.uut;
        let o = Outputs { head: u.head.val().index() as u32, dropped: u.dropped.val().index() as u32, overflow: u.overflow.val() };
        let r = tpb_models::csr::Rsp { valid: u.rsp_valid.val(), rdata: if u.rsp_valid.val() { u.rsp_rdata.val().index() as u32 } else { 0 }, err: u.rsp_err.val() };
        (o, r)
    }
}

fn random_inputs(rng: &mut SmallRng, prev: &Inputs, head: u32) -> Inputs {
    let mut i = *prev;
    if rng.gen_bool(0.01) {
        i.size = [0, 5, 16, 17, 8][rng.gen_range(0..5)];
    }
    if rng.gen_bool(0.02) {
        i.en_error = rng.gen_bool(0.8);
        i.en_sem = rng.gen_bool(0.8);
        i.en_inst = rng.gen_bool(0.8);
    }
    // The host consumes now and then: its tail follows the head, or is garbage.
    if rng.gen_bool(0.1) {
        i.tail = if rng.gen_bool(0.95) { head } else { rng.gen_range(0..20) };
    }
    i.sem_valid = if rng.gen_bool(0.3) { rng.gen::<u8>() & 0x3f } else { 0 };
    for e in 0..6 {
        i.sem_index[e] = rng.gen();
    }
    i.dma_done = rng.gen_bool(0.1);
    i.dma_index = rng.gen();
    if rng.gen_bool(0.05) {
        i.dma_err = rng.gen::<u8>() & 7;
    }
    if rng.gen_bool(0.1) {
        i.halted ^= 1 << rng.gen_range(0..16);
    }
    i.bus_err = rng.gen_bool(0.05);
    i.bus_addr = rng.gen();
    i.inst_valid = if rng.gen_bool(0.2) { rng.gen::<u8>() & 0x3f } else { 0 };
    for e in 0..6 {
        i.inst_tag[e] = rng.gen();
    }
    i
}

fn random_bus(rng: &mut SmallRng) -> Option<Req> {
    rng.gen_bool(0.4).then(|| {
        let mut addr = rng.gen_range(0..RECORD_BYTES << RW) & !3;
        if rng.gen_bool(0.05) {
            addr = rng.gen_range(0..0x200);
        }
        Req { write: rng.gen_bool(0.05), addr, wdata: rng.gen() }
    })
}

/// `cycles` random cycles through both; the first divergence, or the model.
fn lockstep(seed: u64, cycles: usize) -> Result<NotificModel, String> {
    lockstep_from(seed, cycles, true)
}

/// As [`lockstep`]; without `initial_reset` the unit starts from its
/// power-on state, which must be its reset state.
fn lockstep_from(seed: u64, cycles: usize, initial_reset: bool) -> Result<NotificModel, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut rtl = Sim::new();
    let mut gold = NotificModel::new(1 << RW);
    let mut i = Inputs { size: 8, en_error: true, en_sem: true, en_inst: true, ..Inputs::default() };
    for n in 0..cycles {
        let reset = (initial_reset && n < 2) || rng.gen_bool(0.002);
        i = random_inputs(&mut rng, &i, gold.outputs().head);
        let bus = random_bus(&mut rng);
        rtl.drive(reset, bus, &i);
        rtl.tick();
        gold.step(reset, bus, &i);
        let (o, r) = rtl.outputs();
        if o != gold.outputs() || r != gold.rsp() {
            return Err(format!("seed {seed} cycle {n}: rtl {o:?} {r:?}\n  golden {:?} {:?}\n  after {i:?} bus {bus:?} reset {reset}", gold.outputs(), gold.rsp()));
        }
    }
    // Every word of the SRAM, read back over the bus.
    for a in (0..RECORD_BYTES << RW).step_by(4) {
        let req = Some(Req { write: false, addr: a, wdata: 0 });
        let idle = Inputs { size: 0, ..Inputs::default() };
        rtl.drive(false, req, &idle);
        rtl.tick();
        gold.step(false, req, &idle);
        rtl.drive(false, None, &idle);
        let (_, r) = rtl.outputs();
        if r != gold.rsp() {
            return Err(format!("seed {seed}: SRAM word {a:#x}: rtl {r:?} golden {:?}", gold.rsp()));
        }
        rtl.tick();
        gold.step(false, None, &idle);
    }
    Ok(gold)
}

#[test]
fn the_unit_matches_its_golden_model_under_random_events() {
    let mut posted = 0;
    let mut dropped = 0;
    for seed in 0..4 {
        let g = lockstep(seed, 5_000).unwrap_or_else(|e| panic!("{e}"));
        posted += (0..g.records()).filter(|&k| g.record(k).is_some_and(|r| r[0] != 0)).count();
        dropped += g.outputs().dropped;
    }
    // The stimulus reaches every corner it is meant to: records and drops.
    assert!(posted > 20 && dropped > 0, "posted {posted} records, dropped {dropped}");
}

#[test]
fn the_power_on_state_is_the_reset_state() {
    for seed in 10..12 {
        lockstep_from(seed, 2_000, false).unwrap_or_else(|e| panic!("{e}"));
    }
}
