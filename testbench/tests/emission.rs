//! The lean Verilog emitter (`tpb_hdl::verilog`) on small blocks written to
//! exercise each of its rules, checked by a simulator it does not share
//! code with: each block runs under the rust-hdl simulator on random inputs,
//! and Icarus replays those inputs on the emitted Verilog and must print the
//! same outputs every cycle. Blocks that break the emitter's rules must be
//! refused with the signal and the places named.

#![allow(clippy::collapsible_if)]

use rust_hdl::prelude::*;
use tpb_hdl::ram::WordRam;
use tpb_hdl::verilog::{try_of, EmitError, LowerError};
use tpb_testbench::icarus::{Port, Recording};

/// A child whose input the parent assigns as default-then-override.
#[derive(LogicBlock, Default)]
struct Child {
    clock: Signal<In, Clock>,
    en: Signal<In, Bit>,
    v: Signal<In, Bits<4>>,
    out: Signal<Out, Bits<4>>,
    acc: DFF<Bits<4>>,
}

impl Logic for Child {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc);
        if self.en.val() {
            self.acc.d.next = self.acc.q.val() + self.v.val();
        }
        self.out.next = self.acc.q.val();
    }
}

/// Outputs that accumulate (read their own earlier value), nested
/// conditions over a child's input, a register with an enable and a reset,
/// a register array, a memory, and a local read before and after it changes.
#[derive(LogicBlock, Default)]
struct Mixed {
    clock: Signal<In, Clock>,
    reset: Signal<In, Bit>,
    a: Signal<In, Bit>,
    b: Signal<In, Bit>,
    c: Signal<In, Bit>,
    k: Signal<In, Bits<4>>,
    y: Signal<Out, Bits<4>>,
    z: Signal<Out, Bits<4>>,
    w: Signal<Out, Bits<8>>,
    m: Signal<Out, Bits<8>>,
    q: Signal<Out, Bits<4>>,
    child: Child,
    regs: [DFF<Bits<4>>; 3],
    ram: RAM<Bits<8>, 3>,
    count: DFF<Bits<8>>,
    t: Signal<Local, Bits<4>>,
    u: Signal<Local, Bits<4>>,
    s: Signal<Local, Bit>,
    d: Signal<Local, Bit>,
}

impl Logic for Mixed {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        for i in 0..3 {
            self.regs[i].clock.next = self.clock.val();
            self.regs[i].d.next = self.regs[i].q.val();
        }
        self.child.clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        // A local that changes: what reads it in between sees the first value.
        self.t.next = self.k.val();
        self.u.next = self.t.val() ^ 5;
        self.t.next = self.t.val() + 1;
        // An output that accumulates.
        self.y.next = 0.into();
        if self.a.val() {
            self.y.next = self.y.val() | 1;
        }
        if self.b.val() {
            if self.c.val() {
                self.y.next = self.y.val() | 2;
            } else {
                self.y.next = self.y.val() + self.u.val();
            }
        }
        // A child input: default, then overrides under nested conditions.
        self.child.en.next = false;
        self.child.v.next = self.t.val();
        if self.a.val() {
            if self.b.val() {
                self.child.en.next = true;
            }
        } else if self.c.val() {
            self.child.en.next = true;
            self.child.v.next = self.u.val();
        }
        self.z.next = self.child.out.val();
        // An output whose default is not a constant, overridden in every
        // shape of condition (then only, else only, nested, both). The
        // overrides that cover many paths come first, so that each later
        // shape still decides the value on some inputs.
        self.s.next = self.a.val() ^ self.b.val();
        self.d.next = false;
        self.q.next = self.k.val();
        if self.b.val() {
            if self.c.val() {
                self.q.next = self.q.val() ^ 1;
            }
        } else {
            self.q.next = self.q.val() + 2;
        }
        if self.c.val() {
            if self.s.val() {
                self.q.next = self.q.val() + 6;
            }
        } else {
            if self.b.val() {
                self.q.next = 9.into();
            }
        }
        if self.b.val() {
            if self.a.val() {
                self.q.next = 4.into();
            }
        } else {
            if self.c.val() {
                self.q.next = 5.into();
            }
        }
        if self.a.val() {
            self.q.next = self.q.val() ^ self.u.val();
        }
        if self.b.val() {
            self.d.next = true;
        } else {
            self.q.next = self.q.val() + 1;
        }
        if self.c.val() {
            if self.a.val() {
                self.q.next = 2.into();
            }
        }
        if self.a.val() {
            self.d.next = !self.d.val();
        } else {
            if self.b.val() {
                self.q.next = self.q.val() ^ 3;
            }
        }
        if self.c.val() {
            self.q.next = self.q.val() | 8;
        } else {
            if self.s.val() {
                self.q.next = self.q.val() - 1;
            }
        }
        if self.a.val() {
            if self.b.val() {
                self.q.next = self.q.val() | 1;
            }
        } else {
            if self.c.val() {
                self.q.next = self.t.val();
            }
        }
        // Registers: an array written by index, a counter with enable and reset.
        for i in 0..3 {
            if self.k.val().index() == i {
                self.regs[i].d.next = self.u.val();
            }
        }
        if self.c.val() {
            self.count.d.next = self.count.q.val() + bit_cast::<8, 4>(self.regs[1].q.val());
        }
        if self.reset.val() {
            self.count.d.next = 0.into();
        }
        self.w.next = self.count.q.val() ^ (bit_cast::<8, 4>(self.regs[0].q.val()) << 4) ^ bit_cast::<8, 4>(self.regs[2].q.val());
        // A memory: write k at address k[2:0] when a, read the address b,c,a.
        self.ram.write_enable.next = self.a.val();
        self.ram.write_address.next = self.k.val().get_bits::<3>(0);
        self.ram.write_data.next = bit_cast::<8, 4>(self.k.val()) + self.count.q.val();
        self.ram.read_address.next = bit_cast::<3, 1>(self.b.val().into()) | (bit_cast::<3, 1>(self.c.val().into()) << 1) | (bit_cast::<3, 1>(self.a.val().into()) << 2);
        // A memory's read register has no power-on value (as in block RAM):
        // shown only once a clock edge has loaded it, out of reset.
        self.m.next = 0.into();
        if !self.reset.val() & !self.d.val() | self.s.val() {
            self.m.next = self.ram.read_data.val();
        }
    }
}

/// A seeded xorshift64 stream: the same stimulus every run.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

fn bits(v: u64) -> Vec<u32> {
    vec![v as u32]
}

/// `cycles` random cycles of `Mixed` under rust-hdl, then the same inputs on
/// the emitted Verilog under Icarus: every output, every cycle.
#[test]
fn emitted_verilog_matches_the_rust_hdl_simulator_under_icarus() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
    let mut verilog_uut = Mixed::default();
    let text = try_of(&mut verilog_uut, "mixed").unwrap();
    // The form this emitter promises.
    assert_eq!(text.matches("\nmodule ").count(), 2, "the block and its child, no module per flip-flop:\n{text}");
    assert!(text.contains("reg [3:0] regs$0;") && text.contains("reg [7:0] ram [0:7];"), "{text}");
    assert!(!text.contains("$cmb") && !text.contains("regs$0 <= regs$0"), "no shadows, no hold copies:\n{text}");

    let mut uut = Mixed::default();
    uut.connect_all();
    let inputs = ["reset", "a", "b", "c", "k"];
    let outputs = ["y", "z", "w", "m", "q"];
    let mut rec = Recording {
        inputs: inputs.iter().map(|n| Port { name: n.to_string(), width: if *n == "k" { 4 } else { 1 } }).collect(),
        outputs: outputs.iter().map(|n| Port { name: n.to_string(), width: if *n == "w" || *n == "m" { 8 } else { 4 } }).collect(),
        clock: "clock".into(),
        cycles: Vec::new(),
    };
    uut.clock.next = false.into();
    assert!(simulate(&mut uut, 100));
    for cycle in 0..400 {
        let r = next();
        let (reset, a, b, c, k) = (cycle < 2 || r.is_multiple_of(97), r & 2 != 0, r & 4 != 0, r & 8 != 0, (r >> 4) & 15);
        uut.reset.next = reset;
        uut.a.next = a;
        uut.b.next = b;
        uut.c.next = c;
        uut.k.next = k.into();
        assert!(simulate(&mut uut, 100), "settles");
        let ins = vec![bits(reset.into()), bits(a.into()), bits(b.into()), bits(c.into()), bits(k)];
        let outs = [uut.y.val().index(), uut.z.val().index(), uut.w.val().index(), uut.m.val().index(), uut.q.val().index()].map(|v| bits(v as u64)).to_vec();
        rec.cycles.push((ins, outs));
        uut.clock.next = true.into();
        assert!(simulate(&mut uut, 100));
        uut.clock.next = false.into();
        assert!(simulate(&mut uut, 100));
    }
    // The recording must show the behaviour worth checking.
    let distinct = |o: usize| rec.cycles.iter().map(|(_, v)| v[o][0]).collect::<std::collections::BTreeSet<_>>().len();
    assert!((0..5).all(|o| distinct(o) > 3), "every output moves");

    let dir = tpb_testbench::tools::repo_root().join("target/emission");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mixed.v");
    std::fs::write(&path, format!("`timescale 1ns/1ps\n{text}")).unwrap();
    let report = rec.cross_check(&path, "mixed", &dir).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(report.compared_values, 400 * 5);
    println!("rust-hdl == Icarus on the emitted Verilog: {} values", report.compared_values);
}

/// Reads a local that update writes again later, to compute a register.
#[derive(LogicBlock, Default)]
struct EarlyRead {
    clock: Signal<In, Clock>,
    a: Signal<In, Bit>,
    y: Signal<Out, Bit>,
    t: Signal<Local, Bit>,
    r: DFF<Bit>,
}

impl Logic for EarlyRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.t.next = self.a.val();
        self.r.d.next = self.t.val();
        self.t.next = !self.a.val();
        self.y.next = self.r.q.val() ^ self.t.val();
    }
}

/// Reads a register's next value.
#[derive(LogicBlock, Default)]
struct ReadsNext {
    clock: Signal<In, Clock>,
    a: Signal<In, Bit>,
    y: Signal<Out, Bit>,
    r: DFF<Bit>,
}

impl Logic for ReadsNext {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        if self.a.val() {
            self.r.d.next = true;
        }
        self.y.next = self.r.d.val();
    }
}

/// Reads an output between its default and its override.
#[derive(LogicBlock, Default)]
struct OutputReadEarly {
    a: Signal<In, Bit>,
    y: Signal<Out, Bit>,
    z: Signal<Out, Bit>,
}

impl Logic for OutputReadEarly {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = false;
        self.z.next = self.y.val();
        if self.a.val() {
            self.y.next = true;
        }
    }
}

/// Assigns an output on some paths only: a latch.
#[derive(LogicBlock, Default)]
struct Latch {
    a: Signal<In, Bit>,
    b: Signal<In, Bit>,
    y: Signal<Out, Bit>,
}

impl Logic for Latch {
    #[hdl_gen]
    fn update(&mut self) {
        if self.a.val() {
            self.y.next = true;
        }
        if self.b.val() {
            self.y.next = false;
        }
    }
}

fn lower_error<B: Block>(mut b: B) -> LowerError {
    match try_of(&mut b, "t") {
        Err(EmitError::Lower(e)) => e,
        other => panic!("expected the emitter to refuse, got {other:?}"),
    }
}

#[test]
fn moves_that_would_change_the_meaning_are_refused_with_the_places() {
    match lower_error(EarlyRead::default()) {
        LowerError::NotFinal { block, target, read, at, written } => {
            assert_eq!((block.as_str(), target.as_str(), read.as_str()), ("t", "r", "t"));
            assert!(at < written, "read at {at}, written again at {written}");
        }
        e => panic!("{e}"),
    }
    let e = lower_error(ReadsNext::default());
    assert!(matches!(&e, LowerError::ReadsNext { read, .. } if read == "r$d"), "{e}");
    assert!(e.to_string().contains("read the flip-flop's output or a local instead"), "{e}");
    let e = lower_error(OutputReadEarly::default());
    assert!(matches!(&e, LowerError::ReadBeforeLast { signal, .. } if signal == "y"), "{e}");
    let e = lower_error(Latch::default());
    assert!(matches!(&e, LowerError::Latch { signal, .. } if signal == "y"), "{e}");
    assert!(e.to_string().contains("not assigned on every path through update (a latch)"), "{e}");
}

/// A block whose field is a Verilog keyword.
#[derive(LogicBlock, Default)]
struct Keyworded {
    clock: Signal<In, Clock>,
    out: Signal<Out, Bits<4>>,
    buf: DFF<Bits<4>>,
}

impl Logic for Keyworded {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, buf);
        self.buf.d.next = self.buf.q.val() + 1;
        self.out.next = self.buf.q.val();
    }
}

/// `reg [3:0] buf` does not parse (`buf` is a gate primitive): such a name is
/// refused before any Verilog is written, naming the field.
#[test]
fn a_keyword_as_a_name_is_refused() {
    match try_of(&mut Keyworded::default(), "kw") {
        Err(e @ EmitError::Keyword { .. }) => assert_eq!(e.to_string(), "kw: `buf` is a Verilog/SystemVerilog keyword and cannot name a signal or an instance; rename the field"),
        other => panic!("{:?}", other.map(|_| "Verilog")),
    }
}

/// Both kinds of memory, read and written at random on 3-bit addresses, so
/// that a read often meets a write of the same word at the same edge.
#[derive(LogicBlock, Default)]
struct Mems {
    clock: Signal<In, Clock>,
    /// The stimulus in one word, from bit 0: the word read's enable, the
    /// read address (3 bits), the write address (3), the strobes (4), the
    /// byte write's enable, and the data (32).
    stim: Signal<In, Bits<44>>,
    word: Signal<Out, Bits<32>>,
    narrow: Signal<Out, Bits<8>>,
    wram: WordRam<3>,
    ram: RAM<Bits<8>, 3>,
    /// A memory's read register has no power-on value (Icarus: X): each
    /// output shows it once an edge has loaded it.
    word_loaded: DFF<Bit>,
    narrow_loaded: DFF<Bit>,
}

impl Logic for Mems {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word_loaded, narrow_loaded);
        self.wram.clock.next = self.clock.val();
        self.wram.read_enable.next = self.stim.val().get_bit(0);
        self.wram.read_address.next = self.stim.val().get_bits::<3>(1);
        self.wram.write_address.next = self.stim.val().get_bits::<3>(4);
        self.wram.write_strobe.next = self.stim.val().get_bits::<4>(7);
        self.wram.write_data.next = self.stim.val().get_bits::<32>(12);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.stim.val().get_bits::<3>(1);
        self.ram.write_address.next = self.stim.val().get_bits::<3>(4);
        self.ram.write_enable.next = self.stim.val().get_bit(11);
        self.ram.write_data.next = self.stim.val().get_bits::<8>(12);
        self.word_loaded.d.next = self.word_loaded.q.val() | self.stim.val().get_bit(0);
        self.narrow_loaded.d.next = true;
        self.word.next = 0.into();
        if self.word_loaded.q.val() {
            self.word.next = self.wram.read_data.val();
        }
        self.narrow.next = 0.into();
        if self.narrow_loaded.q.val() {
            self.narrow.next = self.ram.read_data.val();
        }
    }
}

/// The emitted memories (the block-RAM templates, and the blocking form
/// Verilator alone reads, `ifdef VERILATOR`) against the rust-hdl simulator,
/// under Icarus and under Verilator: every output, every cycle, with reads
/// of the word written at the same edge (the old word) and partial strobes.
#[test]
fn emitted_memories_match_the_rust_hdl_simulator_under_icarus_and_verilator() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    let text = try_of(&mut Mems::default(), "mems").unwrap();
    assert_eq!(text.matches("`ifdef VERILATOR").count(), 2, "a Verilator form for each memory:\n{text}");
    let mut uut = Mems::default();
    uut.connect_all();
    let mut rec = Recording {
        inputs: vec![Port { name: "stim".into(), width: 44 }],
        outputs: vec![Port { name: "word".into(), width: 32 }, Port { name: "narrow".into(), width: 8 }],
        clock: "clock".into(),
        cycles: Vec::new(),
    };
    uut.clock.next = false.into();
    assert!(simulate(&mut uut, 100));
    let (mut same_word, mut partial) = (0, 0);
    for _ in 0..600 {
        let r = next();
        let stim = r & ((1 << 44) - 1);
        let (read, ra, wa, strobes) = (stim & 1, (stim >> 1) & 7, (stim >> 4) & 7, (stim >> 7) & 15);
        same_word += usize::from(read == 1 && ra == wa && strobes != 0);
        partial += usize::from(strobes != 0 && strobes != 15);
        uut.stim.next = stim.into();
        assert!(simulate(&mut uut, 100), "settles");
        let outs = vec![bits(uut.word.val().index() as u64), bits(uut.narrow.val().index() as u64)];
        rec.cycles.push((vec![vec![stim as u32, (stim >> 32) as u32]], outs));
        uut.clock.next = true.into();
        assert!(simulate(&mut uut, 100));
        uut.clock.next = false.into();
        assert!(simulate(&mut uut, 100));
    }
    assert!(same_word > 20 && partial > 200, "the stimulus reads words as they are written ({same_word}) and writes some bytes only ({partial})");
    let distinct = |o: usize| rec.cycles.iter().map(|(_, v)| v[o][0]).collect::<std::collections::BTreeSet<_>>().len();
    assert!(distinct(0) > 50 && distinct(1) > 50, "both outputs move");

    let dir = tpb_testbench::tools::repo_root().join("target/emission/mems");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mems.v");
    std::fs::write(&path, format!("`timescale 1ns/1ps\n{text}")).unwrap();
    let icarus = rec.cross_check(&path, "mems", &dir).unwrap_or_else(|e| panic!("Icarus: {e}\n{text}"));
    let verilator = tpb_testbench::replay::on_verilator(&rec, &text, "mems", "Vmems", &dir.join("verilator")).unwrap_or_else(|e| panic!("Verilator: {e}\n{text}"));
    assert_eq!((icarus.compared_values, verilator), (1200, 1200));
}
