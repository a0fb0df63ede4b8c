//! The bridge at every port width Verilator's C types use, on the fixture
//! `cosim/fixtures/wide_ports.v`: CData (7), SData (13), IData (32), QData
//! (64) and word arrays (100, 200 bits), with carries across 32-bit words.

use tpb_cosim::verilator::{model_names, Model, VlError};

/// 200-bit little-endian words + 1 (the fixture's `y200`).
fn inc(words: &[u32]) -> Vec<u32> {
    let mut out = words.to_vec();
    for w in out.iter_mut() {
        let (v, carry) = w.overflowing_add(1);
        *w = v;
        if !carry {
            break;
        }
    }
    // 200 bits: the top word keeps 8 bits.
    let last = out.len() - 1;
    out[last] &= 0xff;
    out
}

fn words_of(v: u128, n: usize) -> Vec<u32> {
    (0..n).map(|k| (v >> (32 * k)) as u32).collect()
}

#[test]
fn ports_of_every_width_read_and_write() {
    let mut m = Model::named("Vwide_ports").unwrap();
    let p = |m: &Model, n: &str| m.port(n).unwrap();
    let widths: Vec<(String, u32)> = m.ports().iter().map(|p| (p.name.to_string(), p.width)).collect();
    assert!(widths.contains(&("a200".into(), 200)) && widths.contains(&("y100".into(), 100)), "{widths:?}");
    let (a7, a13, a32, a64, a100, a200) = (p(&m, "a7"), p(&m, "a13"), p(&m, "a32"), p(&m, "a64"), p(&m, "a100"), p(&m, "a200"));
    let (y7, y13, y32, y64, y100, y200, q200, clock) = (p(&m, "y7"), p(&m, "y13"), p(&m, "y32"), p(&m, "y64"), p(&m, "y100"), p(&m, "y200"), p(&m, "q200"), p(&m, "clock"));
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..1000 {
        let x = next();
        // Every few rounds, all-ones low words so the +1 carries into the top word.
        let a200w: Vec<u32> = if round % 7 == 0 {
            vec![u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, (x & 0xff) as u32]
        } else {
            (0..7).map(|k| if k == 6 { (next() & 0xff) as u32 } else { next() as u32 }).collect()
        };
        let v100 = ((next() as u128) << 64 | next() as u128) & ((1u128 << 100) - 1);
        m.set(a7, x & 0x7f).unwrap();
        m.set(a13, x >> 7 & 0x1fff).unwrap();
        m.set(a32, x >> 20 & 0xffff_ffff).unwrap();
        m.set(a64, if round % 5 == 0 { u64::MAX } else { next() }).unwrap();
        m.set_words(a100, &words_of(v100, 4)).unwrap();
        m.set_words(a200, &a200w).unwrap();
        m.set(clock, 0).unwrap();
        m.eval();
        m.set(clock, 1).unwrap();
        m.eval();
        let a64v = m.get(a64);
        assert_eq!(m.get(y7), !x & 0x7f);
        assert_eq!(m.get(y13), ((x >> 7 & 0x1fff) + 1) & 0x1fff);
        let v32 = x >> 20 & 0xffff_ffff;
        assert_eq!(m.get(y32), (v32 << 16 | v32 >> 16) & 0xffff_ffff);
        assert_eq!(m.get(y64), a64v.wrapping_add(1));
        let rot = ((v100 & ((1 << 50) - 1)) << 50) | v100 >> 50;
        assert_eq!(m.get_words(y100), words_of(rot, 4), "round {round}");
        assert_eq!(m.get(y100), rot as u64, "get() of a wide port is its low 64 bits");
        assert_eq!(m.get_words(y200), inc(&a200w), "round {round}");
        let q: Vec<u32> = a200w.iter().enumerate().map(|(k, w)| if k == 6 { !w & 0xff } else { !w }).collect();
        assert_eq!(m.get_words(q200), q, "the register takes ~a200 on the rising edge");
    }
}

#[test]
fn wide_port_mistakes_are_errors_that_change_nothing() {
    let mut m = Model::named("Vwide_ports").unwrap();
    let a100 = m.port("a100").unwrap();
    let y100 = m.port("y100").unwrap();
    m.set_words(a100, &[1, 2, 3, 4]).unwrap();
    let e = m.set_words(a100, &[1, 2, 3]).unwrap_err();
    assert!(matches!(e, VlError::WordCount { words: 3, need: 4, .. }), "{e}");
    assert!(e.to_string().contains("'a100' is 100 bits; 3 words given, 4 needed"), "{e}");
    let e = m.set_words(a100, &[0, 0, 0, 0x10]).unwrap_err();
    assert!(e.to_string().contains("does not fit port 'a100' (100 bits)"), "{e}");
    assert!(m.set_words(y100, &[0, 0, 0, 0]).unwrap_err().to_string().contains("is an output"));
    m.eval();
    assert_eq!(m.get_words(m.port("a100").unwrap()), vec![1, 2, 3, 4], "a refused write leaves the port as it was");
    let e = Model::named("Vnope").err().unwrap();
    assert!(e.to_string().contains("no Verilated model named 'Vnope'") && e.to_string().contains("Vwide_ports"), "{e}");
    assert_eq!(model_names(), vec!["Vsunda", "Vcayman", "Vmariana", "Vwide_ports"], "one model per generation, plus the fixture");
}
