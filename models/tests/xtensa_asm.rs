//! Assembler ⇄ disassembler round trips over the whole table, and the byte
//! listings of DIGEST §8.

use rand::{Rng, SeedableRng};
use tpb_models::xtensa::asm::assemble;
use tpb_models::xtensa::disasm::{format, listing};
use tpb_models::xtensa::isa::{decode_word, TABLE};
use tpb_models::xtensa::Options;

#[test]
fn every_encoding_round_trips_through_text() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    let mut checked = 0;
    for opts in [Options::tpb(), Options::lx106()] {
        for d in TABLE.iter().filter(|d| d.feat.enabled(&opts)) {
            for _ in 0..200 {
                let word = (rng.gen::<u32>() & !d.mask & if d.len == 2 { 0xffff } else { 0xff_ffff }) | d.bits;
                let pc = rng.gen::<u32>() & 0x00ff_fffc | 0x1000_0000;
                let Ok(insn) = decode_word(word, d.len, &opts) else { continue };
                let text = format(&insn, pc);
                let p = assemble(&text, pc, &opts).unwrap_or_else(|e| panic!("{text:?} at {pc:#x}: {e}"));
                let back = p.bytes.iter().rev().fold(0u32, |a, &b| a << 8 | b as u32);
                // Fields the instruction ignores (e.g. s of RET.N) are not in the text.
                let again = decode_word(back, d.len, &opts).unwrap();
                assert_eq!(format(&again, pc), text, "{} {word:06x} -> {back:06x}", d.mnem);
                checked += 1;
            }
        }
    }
    assert!(checked > 30_000, "{checked}");
}

/// DIGEST §8: (address, bytes, text as our disassembler prints it).
const DIGEST_8: &[(u32, &[u8], &str)] = &[
    (0x0, &[0x06, 0x76, 0x00], "j 0x1dc"),
    (0x6, &[0x86, 0x77, 0x00], "j 0x1e8"),
    (0x1dc, &[0x04, 0x00, 0x00], "const16 a0, 0"),
    (0x1df, &[0x04, 0x94, 0x00], "const16 a0, 148"),
    (0x1e2, &[0xa0, 0x00, 0x00], "jx a0"),
    (0x1e8, &[0x00, 0x52, 0x00], "halt 0"),
    (0x0, &[0xc0, 0x20, 0x00], "memw"),
    (0x0, &[0x28, 0x0a], "l32i.n a2, a10, 0"),
    (0x349d, &[0x27, 0xb3, 0xf7], "bgeu a3, a2, 0x3498"),
    (0x0, &[0x1d, 0xf0], "retw.n"),
    (0x0, &[0x49, 0x0a], "s32i.n a4, a10, 0"),
    (0x0, &[0x24, 0xb0, 0x00], "const16 a2, 176"),
    (0x0, &[0x20, 0x23, 0xa0], "addx4 a2, a3, a2"),
    (0x0, &[0x58, 0x02], "l32i.n a5, a2, 0"),
    (0x0, &[0x00, 0x7f, 0x00], "waiti 15"),
    (0x4b6f, &[0xc6, 0xfa, 0xff], "j 0x4b5e"),
    (0x0, &[0x36, 0x61, 0x00], "entry a1, 48"),
];

#[test]
fn digest_byte_listings_assemble_and_disassemble_exactly() {
    let opts = Options::tpb();
    for &(addr, bytes, text) in DIGEST_8 {
        let p = assemble(text, addr, &opts).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.bytes, bytes, "{text} at {addr:#x}");
        let l = listing(bytes, addr, &opts);
        assert_eq!(l.len(), 1, "{text}");
        assert_eq!(l[0].text.as_deref().map(|t| t.replace('\t', " ")), Some(text.to_string()));
    }
    // The digest writes `const16 a2,0xb0` and `bgeu a3,a2,-9`: the same bytes.
    assert_eq!(assemble("const16 a2, 0xb0", 0, &opts).unwrap().bytes, [0x24, 0xb0, 0x00]);
    assert_eq!(assemble("bgeu a3, a2, . - 5", 0x349d, &opts).unwrap().bytes, [0x27, 0xb3, 0xf7]);
}

#[test]
fn the_boot_trampoline_assembles_from_source() {
    let src = "
        .org 0x0
        j boot              # primary reset
        .org 0x6
        j halt_here         # secondary
        .org 0x1dc
    boot:
        const16 a0, 0
        const16 a0, 0x94    # enter_run (SUNDA)
        jx a0
        .org 0x1e8
    halt_here:
        halt 0
    ";
    let p = assemble(src, 0, &Options::tpb()).unwrap();
    for (addr, bytes, _) in tpb_models::spec::NX_BOOT_TRAMPOLINE_SUNDA {
        assert_eq!(&p.bytes[addr as usize..addr as usize + 3], &bytes, "{addr:#x}");
    }
    assert_eq!(p.labels["boot"], 0x1dc);
}

#[test]
fn assembler_errors_name_the_line() {
    let o = Options::tpb();
    let e = assemble("nop\n  addi a2, a3, 300\n", 0, &o).unwrap_err();
    assert_eq!(e.to_string(), "line 2: 'addi': immediate 300 out of range -128..=127");
    assert_eq!(assemble("frob a1", 0, &o).unwrap_err().to_string(), "line 1: unknown instruction 'frob'");
    assert_eq!(assemble("add a1, a2", 0, &o).unwrap_err().to_string(), "line 1: 'add' takes 3 operand(s), got 2");
    assert_eq!(assemble("j nowhere", 0, &o).unwrap_err().to_string(), "line 1: unknown symbol 'nowhere'");
    assert_eq!(assemble("add a1, a2, a16", 0, &o).unwrap_err().to_string(), "line 1: expected a register a0..a15, got 'a16'");
    assert!(assemble("x: nop\nx: nop", 0, &o).unwrap_err().to_string().contains("defined twice"));
    let e = assemble("entry a1, 16", 0, &Options::lx106()).unwrap_err();
    assert_eq!(e.to_string(), "line 1: 'entry' needs an ISA option this core does not have");
    assert!(assemble(".org 4\n.org 0", 0, &o).is_err());
    assert!(assemble("l32r a2, 0x100", 0, &o).unwrap_err().to_string().contains("backwards"));
    assert_eq!(assemble(".frob 1", 0, &o).unwrap_err().to_string(), "line 1: unknown directive '.frob'");
}

#[test]
fn data_directives_and_alignment() {
    let p = assemble("nop.n\n.align 4\nw: .word 0x11223344, w\n.short -2\n.byte 7", 0x10, &Options::tpb()).unwrap();
    assert_eq!(p.labels["w"], 0x14);
    assert_eq!(p.bytes, [0x3d, 0xf0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0x14, 0, 0, 0, 0xfe, 0xff, 7]);
}
