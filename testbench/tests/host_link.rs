//! The host link's bridge (rust-hdl) against the protocol of
//! `tpb_models::hostlink`: frames sent bit by bit on its UART pin, a BAR0
//! slave model behind it (one-cycle responses, an error range), every
//! answer decoded and checked, and what reached BAR0 checked too: a bad
//! frame never does.

use rust_hdl::prelude::*;
use std::collections::HashMap;
use tpb_cosim::uart::{UartReceiver, UartSender};
use tpb_hdl::host_link::HostBridge;
use tpb_models::hostlink::{self, Request, Response, Status, RESPONSE_BYTES};

const DIV: u32 = 4;
/// BAR0 addresses from here on answer with a bus error…
const ERR_FROM: u32 = 0xf000_0000;
/// …and from here on never answer (the bridge's bus timeout).
const SILENT_FROM: u32 = 0xff00_0000;

struct Bench {
    uut: HostBridge,
    tx: UartSender,
    rx: UartReceiver,
    mem: HashMap<u32, u32>,
    /// Every BAR0 request the bridge made: (write, addr, data).
    bar0: Vec<(bool, u32, u32)>,
    rsp: Option<(u32, bool)>,
    cycles: u64,
}

impl Bench {
    fn new() -> Bench {
        let mut uut = HostBridge::new(DIV);
        uut.connect_all();
        uut.clock.next = Clock::from(false);
        uut.rx.next = true;
        uut.reset.next = true;
        assert!(simulate(&mut uut, 1000));
        let mut b = Bench { uut, tx: UartSender::new(DIV), rx: UartReceiver::new(DIV), mem: HashMap::new(), bar0: vec![], rsp: None, cycles: 0 };
        b.cycle();
        b.cycle();
        b.uut.reset.next = false;
        b
    }

    fn cycle(&mut self) {
        let u = &mut self.uut;
        u.rx.next = self.tx.tick();
        u.m_rsp_valid.next = self.rsp.is_some();
        u.m_rsp_rdata.next = u64::from(self.rsp.map_or(0, |r| r.0)).into();
        u.m_rsp_err.next = self.rsp.is_some_and(|r| r.1);
        assert!(simulate(u, 1000));
        // The slave answers a request in the next cycle.
        self.rsp = None;
        if u.m_req_valid.val() {
            let (write, addr, data) = (u.m_req_write.val(), u.m_req_addr.val().index() as u32, u.m_req_wdata.val().index() as u32);
            self.bar0.push((write, addr, data));
            let err = addr >= ERR_FROM;
            if write && !err {
                self.mem.insert(addr, data);
            }
            if addr < SILENT_FROM {
                self.rsp = Some((if write { 0 } else { self.mem.get(&addr).copied().unwrap_or(0) }, err));
            }
        }
        u.clock.next = Clock::from(true);
        assert!(simulate(u, 1000));
        u.clock.next = Clock::from(false);
        assert!(simulate(u, 1000));
        self.rx.tick(self.uut.tx.val());
        self.cycles += 1;
    }

    /// Send `bytes` and wait for one response.
    fn exchange(&mut self, bytes: &[u8]) -> Response {
        self.tx.send(bytes);
        let limit = self.cycles + 200_000;
        while self.rx.bytes.len() < RESPONSE_BYTES {
            assert!(self.cycles < limit, "no response to {bytes:02x?}");
            self.cycle();
        }
        let f: Vec<u8> = self.rx.bytes.drain(..RESPONSE_BYTES).collect();
        Response::decode(&f.try_into().unwrap()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn run(&mut self, req: &Request) -> Response {
        let r = self.exchange(&req.encode().unwrap());
        assert_eq!(r.seq, req.seq);
        r
    }
}

fn ok(count: u16, data: u32, seq: u8) -> Response {
    Response { status: Status::Ok, seq, count, data }
}

#[test]
fn reads_writes_bursts_fills_and_status() {
    let mut b = Bench::new();
    assert_eq!(b.run(&Request::write(1, 0x1000, 0xdead_beef)), ok(1, 0, 1));
    assert_eq!(b.run(&Request::read(2, 0x1000)), ok(1, 0xdead_beef, 2));
    let words: Vec<u32> = (0..64).map(|k| 0x1111_0000 + k).collect();
    assert_eq!(b.run(&Request::burst(3, 0x2000, &words)), ok(64, 0, 3));
    for (k, w) in words.iter().enumerate() {
        assert_eq!(b.mem.get(&(0x2000 + 4 * k as u32)), Some(w));
    }
    assert_eq!(b.run(&Request::fill(4, 0x3000, 300, 7)), ok(300, 0, 4));
    assert!((0..300).all(|k| b.mem.get(&(0x3000 + 4 * k)) == Some(&7)));
    assert_eq!(b.mem.len(), 1 + 64 + 300, "nothing else was written");
    assert_eq!(b.run(&Request::status(5)), ok(0, hostlink::STATUS_MAGIC, 5), "no bad frame yet");
    // Bytes between frames are ignored.
    let mut noisy = vec![0x00, 0xff, 0x13];
    noisy.extend(Request::read(6, 0x1000).encode().unwrap());
    assert_eq!(b.exchange(&noisy), ok(1, 0xdead_beef, 6));
}

#[test]
fn bad_frames_are_answered_and_never_reach_bar0() {
    let mut b = Bench::new();
    let mut frame = Request::write(9, 0x1000, 5).encode().unwrap();
    let n = frame.len();
    frame[n - 1] ^= 0x40;
    assert_eq!(b.exchange(&frame), Response { status: Status::Crc, seq: 9, count: 0, data: 0 });
    // Unknown op; a BURST longer than the buffer; a misaligned WRITE.
    let bad_op = Request { op: hostlink::Op::Read, seq: 10, count: 1, addr: 0x1000, data: vec![] }.encode_unchecked();
    let mut bad_op = bad_op;
    bad_op[1] = 9;
    assert_eq!(b.exchange(&bad_op).status, Status::BadOp);
    let long = Request { op: hostlink::Op::Burst, seq: 11, count: 65, addr: 0x1000, data: vec![1; 65] }.encode_unchecked();
    assert_eq!(b.exchange(&long), Response { status: Status::BadCount, seq: 11, count: 0, data: 0 });
    let odd = Request { op: hostlink::Op::Write, seq: 12, count: 1, addr: 0x1002, data: vec![1] }.encode_unchecked();
    assert_eq!(b.exchange(&odd).status, Status::BadCount);
    // A frame cut short.
    let whole = Request::write(13, 0x1000, 5).encode().unwrap();
    assert_eq!(b.exchange(&whole[..7]), Response { status: Status::Timeout, seq: 13, count: 0, data: 0 });
    assert!(b.bar0.is_empty(), "no bad frame reached BAR0: {:x?}", b.bar0);
    // The link still works, and STATUS counts the 5 bad frames.
    assert_eq!(b.run(&Request::status(14)), ok(5, hostlink::STATUS_MAGIC, 14));
    assert_eq!(b.run(&Request::write(15, 0x1000, 5)), ok(1, 0, 15));
}

#[test]
fn a_bus_error_stops_a_burst_where_it_happened() {
    let mut b = Bench::new();
    assert_eq!(b.run(&Request::read(1, ERR_FROM)), Response { status: Status::BusError, seq: 1, count: 0, data: 0 });
    let words = [1, 2, 3, 4, 5, 6];
    let r = b.run(&Request::burst(2, ERR_FROM - 8, &words));
    assert_eq!((r.status, r.count), (Status::BusError, 2), "two words written, the third refused");
    assert_eq!(b.bar0.iter().filter(|t| t.0).count(), 3, "and nothing after it");
    assert_eq!((b.mem.get(&(ERR_FROM - 8)), b.mem.get(&(ERR_FROM - 4))), (Some(&1), Some(&2)));
}

/// Every op's count rule and the alignment rule, each refused with
/// BAD_COUNT before anything reaches BAR0; the bus timeout; a FILL stopped
/// by a bus error says how far it got.
#[test]
fn every_count_rule_the_timeout_and_a_fill_cut_by_a_bus_error() {
    use hostlink::Op;
    let mut b = Bench::new();
    let bad = [
        (Op::Read, 2, 0x1000, vec![]),
        (Op::Read, 0, 0x1000, vec![]),
        (Op::Write, 0, 0x1000, vec![]),
        (Op::Write, 2, 0x1000, vec![1, 2]),
        (Op::Burst, 0, 0x1000, vec![]),
        (Op::Fill, 0, 0x1000, vec![7]),
        (Op::Status, 1, 0, vec![]),
        (Op::Read, 1, 0x1001, vec![]),
        (Op::Burst, 2, 0x1002, vec![1, 2]),
        (Op::Fill, 3, 0x1003, vec![7]),
    ];
    for (k, (op, count, addr, data)) in bad.into_iter().enumerate() {
        let seq = 20 + k as u8;
        let frame = Request { op, seq, count, addr, data }.encode_unchecked();
        assert_eq!(b.exchange(&frame), Response { status: Status::BadCount, seq, count: 0, data: 0 }, "{op:?} count {count} at {addr:#x}");
    }
    assert!(b.bar0.is_empty(), "no refused frame reached BAR0: {:x?}", b.bar0);
    // A slave that never answers: BUS_ERROR after the bridge's timeout, at word 0.
    let t0 = b.cycles;
    assert_eq!(b.run(&Request::read(40, SILENT_FROM)), Response { status: Status::BusError, seq: 40, count: 0, data: 0 });
    assert!(b.cycles - t0 > u64::from(hostlink::BUS_TIMEOUT_CYCLES), "answered after the timeout, {} cycles", b.cycles - t0);
    // A FILL running into the error range stops there: 3 words done.
    let before = b.bar0.len();
    let r = b.run(&Request::fill(41, ERR_FROM - 12, 10, 9));
    assert_eq!((r.status, r.count), (Status::BusError, 3));
    assert_eq!(b.bar0.len() - before, 4, "three writes and the refused one, nothing after");
    assert!((1..=3).all(|k| b.mem.get(&(ERR_FROM - 4 * k)) == Some(&9)));
    // The link still works.
    assert_eq!(b.run(&Request::write(42, 0x1000, 5)), ok(1, 0, 42));
}
