//! `tpb serve`'s rules (docs/host-link.md): every request answered once,
//! counts refused from the header, a frame cut short answered TIMEOUT, junk
//! answered SYNC after the line goes quiet, the reason of every refusal
//! readable by the client, RUN bounded and stopped when its client leaves;
//! and, over real sockets, a server that outlives its clients: a truncated
//! frame, an oversized count, random bytes, a disconnect in the middle of a
//! burst and a second client, after which a new client reads back every
//! acknowledged write.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tpb_cosim::sched::Cosim;
use tpb_cosim::serve::{End, Script, Server};
use tpb_models::hal::hostlink::*;
use tpb_models::regmap::Arch;
use tpb_testbench::tools::repo_root;

/// A read/write register of CAYMAN's BAR0 (a TPB-block scratch word).
const RW: u32 = 0x70a10;

fn sim(op: SimOp, seq: u8, count: u16, addr: u32, data: &[u32]) -> Vec<u8> {
    encode_raw(op as u8, seq, count, addr, data)
}

fn answers(out: &[u8]) -> Vec<Response> {
    assert_eq!(out.len() % RESPONSE_BYTES, 0, "whole answers only");
    out.chunks_exact(RESPONSE_BYTES).map(|f| Response::decode(f.try_into().unwrap()).unwrap()).collect()
}

/// Serve `sends` (each a client's send, a quiet gap after it) on `c`.
fn session(c: &mut Cosim, sends: Vec<Vec<u8>>) -> (tpb_cosim::serve::Session, Vec<Response>, String) {
    let mut server = Server::new(c);
    let mut conn = Script::new(sends);
    let s = server.serve(&mut conn).unwrap();
    let out = answers(&conn.out);
    // The last message, read by a later client.
    let mut m = Script::new(vec![sim(SimOp::Message, 0, 0, 0, &[])]);
    server.serve(&mut m).unwrap();
    let len = answers(&m.out)[0].count as usize;
    let sends = (0..len.div_ceil(4)).map(|i| sim(SimOp::Message, 0, 0, 4 * i as u32, &[])).collect();
    let mut m = Script::new(sends);
    server.serve(&mut m).unwrap();
    let bytes: Vec<u8> = answers(&m.out).iter().flat_map(|r| r.data.to_le_bytes()).take(len).collect();
    (s, out, String::from_utf8(bytes).unwrap())
}

#[test]
fn each_request_gets_one_answer_as_the_protocol_says() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let mut bad_crc = Request::write(1, RW, 5).encode().unwrap();
    let n = bad_crc.len();
    bad_crc[n - 1] ^= 0xff;
    let before = c.stats.cycles;
    let (s, r, _) = session(
        &mut c,
        vec![
            b"\x00\x13junk".to_vec(),
            Request::status(1).encode().unwrap(),
            bad_crc,
            Request::write(2, RW, 5).encode().unwrap(),
            Request::read(3, RW).encode().unwrap(),
            Request::write(4, 0x7fff_fff0, 1).encode().unwrap(),
            encode_raw(0x77, 5, 0, 0, &[]),
            sim(SimOp::Run, 6, 1, 0, &[100]),
            sim(SimOp::Core, 7, 0, 42 << 8, &[]),
            Request::write(8, RW + 2, 1).encode_unchecked(),
        ],
    );
    let got: Vec<(Status, u8, u16, u32)> = r.iter().map(|r| (r.status, r.seq, r.count, r.data)).collect();
    assert_eq!(got[0], (Status::Sync, 0, 6, 0), "six bytes that are not a frame: answered, counted");
    assert_eq!(got[1], (Status::Ok, 1, 0, STATUS_MAGIC));
    assert_eq!(got[2].0, Status::Crc, "a bad CRC does nothing");
    assert_eq!(got[3], (Status::Ok, 2, 1, 0));
    assert_eq!(got[4], (Status::Ok, 3, 1, 5), "the write landed; the CRC-damaged one did not change it first");
    assert_eq!(got[5].0, Status::BusError, "an unmapped address");
    assert_eq!((got[6].0, got[6].1), (Status::BadOp, 5), "an unknown op");
    assert_eq!(got[7].0, Status::Ok, "run 100 cycles");
    assert_eq!(got[8].0, Status::BadCount, "no core 42");
    assert_eq!((got[9].0, got[9].1), (Status::BadCount, 8), "a misaligned address");
    assert_eq!(r.len(), 10);
    assert!(c.stats.cycles >= before + 100);
    assert_eq!((s.frames, s.refused, s.skipped, s.end), (10, 6, 6, End::Closed), "{s:?}");
    // A client that speaks something else: one SYNC answer, then it closes.
    let (s, r, m) = session(&mut c, vec![b"GET / HTTP/1.1\r\n\r\n".to_vec()]);
    assert_eq!((r.len(), r[0].status, r[0].count, s.skipped), (1, Status::Sync, 18, 18));
    assert!(m.contains("18 bytes that do not begin a frame"), "{m}");
}

#[test]
fn a_count_past_the_op_s_maximum_is_refused_from_the_header_and_its_data_never_read_as_frames() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    for count in [65u16, 0xffff, 0] {
        // The header says `count` words; the client sends 65 words that
        // would each look like the start of a frame, then the CRC.
        let words = vec![0xa5a5_a5a5u32; 65];
        let mut f = encode_raw(Op::Burst as u8, 9, count, RW, &words);
        f.truncate(9 + 4 * 65);
        let (s, r, m) = session(&mut c, vec![f, Request::read(10, RW).encode().unwrap()]);
        assert_eq!(r.iter().map(|r| (r.status, r.seq)).collect::<Vec<_>>(), vec![(Status::BadCount, 9), (Status::Ok, 10)], "count {count}: {s:?}");
        assert!(m.contains(&format!("count {count}: BURST takes 1 to 64 words; refused from the header")), "{m}");
    }
    // RUN past its maximum, and the reason the client reads.
    let (_, r, m) = session(&mut c, vec![sim(SimOp::Run, 1, 1, 0, &[0xffff_ffff])]);
    assert_eq!(r[0].status, Status::BadCount);
    assert!(m.contains("RUN: 4294967295 cycles in one frame: at most 16777216"), "{m}");
    let (_, r, m) = session(&mut c, vec![sim(SimOp::Trace, 1, 1, 0, &[1])]);
    assert_eq!(r[0].status, Status::BadCount);
    assert_eq!(m, "TRACE: no trace file: start tpb serve with --vcd FILE", "the words the server prints, for the client");
}

#[test]
fn a_frame_cut_short_is_answered_timeout_and_the_next_one_is_served() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let w = Request::write(3, RW, 0x77).encode().unwrap();
    let (s, r, m) = session(&mut c, vec![w[..7].to_vec(), Request::read(4, RW).encode().unwrap()]);
    assert_eq!(r.iter().map(|r| r.status).collect::<Vec<_>>(), vec![Status::Timeout, Status::Ok], "{s:?}");
    assert_ne!(r[1].data, 0x77, "the cut frame did nothing");
    assert!(m.contains("the frame was cut short"), "{m}");
}

#[test]
fn a_client_that_leaves_mid_burst_keeps_what_was_acknowledged_and_the_server_serves_the_next() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let burst = Request::burst(2, RW, &[1, 2, 3]).encode().unwrap();
    let mut server = Server::new(&mut c);
    let mut first = Script::new(vec![Request::write(1, RW, 0xabcd).encode().unwrap(), burst[..13].to_vec()]);
    first.hang_up = true;
    let s = server.serve(&mut first).unwrap();
    assert_eq!((s.frames, s.end), (1, End::Left), "{s:?}");
    let mut next = Script::new(vec![Request::read(3, RW).encode().unwrap()]);
    server.serve(&mut next).unwrap();
    assert_eq!(answers(&next.out)[0].data, 0xabcd, "the acknowledged write stays; the half burst wrote nothing");
}

#[test]
fn a_run_stops_when_its_client_has_gone() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let before = c.stats.cycles;
    let mut server = Server::new(&mut c);
    let mut conn = Script::new(vec![sim(SimOp::Run, 1, 1, 0, &[MAX_RUN_CYCLES])]);
    conn.hang_up = true;
    let s = server.serve(&mut conn).unwrap();
    assert_eq!((s.end, conn.out.len()), (End::Left, 0), "nobody to answer");
    let ran = server.cosim.stats.cycles - before;
    assert!(ran <= LIVENESS_CYCLES, "stopped at the first look for its client: {ran} cycles");
}

#[test]
fn random_bytes_get_well_formed_answers_and_never_end_the_server() {
    let mut c = Cosim::new(Arch::Cayman).unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    };
    for _ in 0..20 {
        let sends: Vec<Vec<u8>> = (0..4).map(|k| (0..(next() as usize + k)).map(|_| if next() < 24 { SYNC_REQUEST } else { next() }).collect()).collect();
        let mut server = Server::new(&mut c);
        let mut conn = Script::new(sends);
        server.serve(&mut conn).unwrap();
        answers(&conn.out);
    }
    let (_, r, _) = session(&mut c, vec![Request::status(5).encode().unwrap()]);
    assert_eq!((r[0].status, r[0].data), (Status::Ok, STATUS_MAGIC), "still serving");
}

/// `tpb serve ARGS` (not `--once`); its port.
fn start_server(args: &[&str]) -> (Child, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb")).current_dir(repo_root()).arg("serve").args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
    let port = first.trim().rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {first:?}"));
    (child, port)
}

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

fn ask(s: &mut TcpStream, frame: &[u8]) -> Response {
    s.write_all(frame).unwrap();
    read_answer(s)
}

fn read_answer(s: &mut TcpStream) -> Response {
    let mut b = [0u8; RESPONSE_BYTES];
    s.read_exact(&mut b).unwrap();
    Response::decode(&b).unwrap()
}

#[test]
fn over_sockets_the_server_outlives_its_clients_and_keeps_every_acknowledged_write() {
    let (mut child, port) = start_server(&["--arch", "cayman"]);
    // Client 1: a write acknowledged, then half a burst, and it is gone.
    let mut a = connect(port);
    assert_eq!(ask(&mut a, &Request::write(1, RW, 0x1234_5678).encode().unwrap()).status, Status::Ok);
    // A second client meanwhile is answered BUSY and closed.
    let mut b = connect(port);
    assert_eq!(read_answer(&mut b).status, Status::Busy);
    assert_eq!(b.read(&mut [0u8; 1]).unwrap_or(0), 0, "then closed");
    let burst = Request::burst(2, RW, &[7, 7, 7, 7]).encode().unwrap();
    a.write_all(&burst[..15]).unwrap();
    drop(a);
    // Client 3: every acknowledged write is there; the half burst did nothing.
    let mut c = loop {
        let mut s = connect(port);
        match ask(&mut s, &Request::read(3, RW).encode().unwrap()) {
            r if r.status == Status::Ok => {
                assert_eq!(r.data, 0x1234_5678);
                break s;
            }
            r => assert_eq!(r.status, Status::Busy, "the first client's session is ending"),
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // A truncated frame: TIMEOUT once the frame's time is up.
    let t0 = Instant::now();
    c.write_all(&Request::write(4, RW, 9).encode().unwrap()[..6]).unwrap();
    let r = read_answer(&mut c);
    assert_eq!(r.status, Status::Timeout);
    assert!(t0.elapsed() >= Duration::from_millis(FRAME_TIMEOUT_MS), "answered after the frame's time");
    // An oversized count, then random bytes, each answered; then served as before.
    let mut big = encode_raw(Op::Burst as u8, 5, 0xffff, RW, &[0xa5a5_a5a5; 8]);
    big.truncate(20);
    assert_eq!(ask(&mut c, &big).status, Status::BadCount);
    let r = ask(&mut c, b"\x01\x02\x03random\xff");
    assert_eq!((r.status, r.count), (Status::Sync, 10));
    assert_eq!(ask(&mut c, &Request::read(6, RW).encode().unwrap()).data, 0x1234_5678);
    drop(c);
    // The server is still there for another client.
    let mut d = loop {
        let mut s = connect(port);
        let r = ask(&mut s, &Request::status(7).encode().unwrap());
        if r.status == Status::Ok {
            break s;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(ask(&mut d, &Request::read(8, RW).encode().unwrap()).data, 0x1234_5678);
    drop(d);
    assert!(child.try_wait().unwrap().is_none(), "no client ended the server");
    child.kill().unwrap();
    let _ = child.wait();
}

/// WAIT_HALTED and the state's HALTED_SINCE_START: right after a start the
/// old halt still reads HALTED, never HALTED_SINCE_START, and a wait waits
/// for the new run; a core that does not halt comes back in the mask, its
/// report in the message.
#[test]
fn a_wait_over_the_link_sees_only_the_halt_after_the_start() {
    use tpb_cosim::serve::{Served, ServedImage};
    use tpb_testbench::tb::file::{cosim_of, TbFile};
    std::env::set_current_dir(repo_root()).unwrap();
    let f = TbFile::load(&repo_root().join("testbench/examples/firmware/q7_sum.toml")).unwrap();
    let (mut c, images) = cosim_of(&f, Arch::Cayman, false).unwrap();
    let main = images.built["q7"].symbols.iter().find(|(_, n)| n == "main").unwrap().0;
    let names = tpb_testbench::tb::names::Names::new(&images.map);
    let addr = |n: &str| names.resolve(n).unwrap().addr().unwrap();
    let mut server = Server::new(&mut c);
    server.served = Some(Served {
        stpb: images.stpb_config().unwrap(),
        data: images.data_writes().unwrap(),
        images: images.built.iter().map(|(k, b)| (*k, ServedImage { symbols: b.symbols.clone(), iram: b.images.iram.clone() })).collect(),
    });
    let state = |n: u32| sim(SimOp::Core, 9, 0, n << 8 | 1, &[]);
    let mut conn = Script::new(vec![
        sim(SimOp::StpbInit, 1, 0, 0, &[]),
        sim(SimOp::WaitHalted, 2, 1, 0xff, &[100_000]),
        Request::write(3, addr("pool.q7.start_addr"), main).encode().unwrap(),
        Request::write(4, addr("pool.q7.start_ctrl"), 0xff).encode().unwrap(),
        state(3),
        sim(SimOp::Cycles, 5, 0, 0, &[]),
        sim(SimOp::WaitHalted, 6, 1, 0xff, &[100_000]),
        sim(SimOp::Cycles, 7, 0, 0, &[]),
        state(3),
        sim(SimOp::WaitHalted, 8, 1, 1 << 8, &[2_000]),
    ]);
    server.serve(&mut conn).unwrap();
    let r = answers(&conn.out);
    assert!(r.iter().all(|r| r.status == Status::Ok), "{r:?}");
    assert_eq!(r[1].data, 0, "the first run halted");
    let after_start = r[4].data;
    assert_eq!(after_start & STATE_HALTED_SINCE_START, 0, "right after the start: not a halt of this run ({after_start:#x})");
    assert_ne!(after_start & STATE_HALTED, 0, "…while the old halt still reads HALTED: the trap a plain halted bit sets");
    assert_eq!(r[6].data, 0, "the second wait saw the new run's halts");
    assert!(r[7].data > r[5].data + 100, "it ran the new run: cycles {} -> {}", r[5].data, r[7].data);
    assert_ne!(r[8].data & STATE_HALTED_SINCE_START, 0);
    assert_eq!(r[9].data, 1 << 8, "the SEQ's boot loop does not halt");
    let mut m = Script::new(vec![sim(SimOp::Message, 1, 0, 0, &[])]);
    server.serve(&mut m).unwrap();
    let len = answers(&m.out)[0].count;
    assert!(len > 100, "the wait's report is the message ({len} bytes)");
}
