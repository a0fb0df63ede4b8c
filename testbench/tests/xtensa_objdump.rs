//! Oracle: our decoder and disassembler against Debian's
//! `xtensa-lx106-elf-objdump` (binutils 2.40) on random instruction words
//! of the base and code-density ISA, under the lx106 option set.
//!
//! The stream is built from the words themselves, each cut to the length
//! our length decoder gives it, so a length disagreement desynchronises
//! the listing and shows up as a mismatch. Normalisation: whitespace;
//! objdump prints an undecodable instruction as `excw` (this binutils'
//! fallback) or `.byte 0x..` (op0 14/15, no length): both mean "illegal".

use rand::{Rng, SeedableRng};
use tpb_models::xtensa::disasm::{listing, Line};
use tpb_models::xtensa::isa::TABLE;
use tpb_models::xtensa::Options;
use tpb_testbench::tools;

const RANDOM_WORDS: usize = 100_000;
const PER_ENTRY: usize = 64;
const BASE: u32 = 0x1000;

fn norm(s: &str) -> String {
    // objdump appends the literal an L32R loads, read from the listing's own bytes: drop it.
    let s = match s.find(" (0x") {
        Some(i) if s.starts_with("l32r") => &s[..i],
        _ => s,
    };
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace(", ", ",")
}

/// objdump lines: (address, byte count, text).
fn objdump(bin: &std::path::Path) -> Vec<(u32, usize, String)> {
    let out = tools::run("xtensa-lx106-elf-objdump", &["-D", "-b", "binary", "-m", "xtensa", &format!("--adjust-vma={BASE:#x}"), "-z", bin.to_str().unwrap()])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "objdump failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut v = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(addr), Some(bytes), Some(insn)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let Some(addr) = addr.trim().strip_suffix(':') else { continue };
        let Ok(addr) = u32::from_str_radix(addr, 16) else { continue };
        v.push((addr, bytes.trim().len() / 2, norm(insn)));
    }
    v
}

fn candidates() -> Vec<u8> {
    let opts = Options::lx106();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x7e45a);
    let mut words: Vec<u32> = (0..RANDOM_WORDS).map(|_| rng.gen::<u32>() & 0xff_ffff).collect();
    // Every table entry with random operand fields, so rare encodings are exercised too.
    for d in TABLE {
        for _ in 0..PER_ENTRY {
            words.push((rng.gen::<u32>() & !d.mask & 0xff_ffff) | d.bits);
        }
    }
    let mut bytes = Vec::new();
    for w in words {
        let b = w.to_le_bytes();
        let len = match tpb_models::xtensa::isa::length(b[0], &opts) {
            Some(n) => n as usize,
            None => 1,
        };
        bytes.extend_from_slice(&b[..len]);
    }
    bytes
}

#[test]
fn decoder_matches_objdump_on_random_words() {
    let bytes = candidates();
    let dir = std::env::temp_dir().join(format!("tpb-objdump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("words.bin");
    std::fs::write(&bin, &bytes).unwrap();
    let theirs = objdump(&bin);
    let ours: Vec<Line> = listing(&bytes, BASE, &Options::lx106());
    let mut mismatches = Vec::new();
    let n = ours.len().max(theirs.len());
    for k in 0..n {
        let (o, t) = (ours.get(k), theirs.get(k));
        let ok = match (o, t) {
            (Some(o), Some((a, len, text))) => {
                o.addr == *a
                    && o.bytes.len() == *len
                    && match &o.text {
                        Some(x) => norm(x) == *text,
                        None => text == "excw" || text.starts_with(".byte"),
                    }
            }
            _ => false,
        };
        if !ok {
            mismatches.push(format!("ours {:?} | objdump {:?}", o.map(|l| (l.addr, hex(&l.bytes), l.text.clone())), t));
            if mismatches.len() >= 40 {
                break;
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("objdump oracle: {} instructions compared ({} random words + {} per table entry), {} mismatches", ours.len(), RANDOM_WORDS, PER_ENTRY, mismatches.len());
    assert!(mismatches.is_empty(), "{} mismatches (first 40):\n{}", mismatches.len(), mismatches.join("\n"));
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
