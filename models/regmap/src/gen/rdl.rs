//! SystemRDL 2.0 export: one addrmap per block (RTL view, offsets relative
//! to the block's start); one per engine's local-register aperture placing
//! each block the engine decodes at its start; and one top addrmap per
//! generation, `<arch>_bar0`, placing every aperture, the TPB-level
//! registers and every memory region at its real BAR0 offset, so the
//! PeakRDL tools give the addresses the RTL decodes as they are. Checked by
//! `systemrdl-compiler`, `peakrdl html` and `peakrdl c-header` in the suite.
//! Alias windows are exported as register arrays; named aliases become
//! comments (SystemRDL has no element alias).

use crate::model::*;
use crate::RegionKind;
use std::fmt::Write;

fn rdl_access(a: Access) -> (&'static str, &'static str, &'static str) {
    // (sw, hw, extra properties)
    match a {
        Access::Rw => ("rw", "r", ""),
        Access::Ro => ("r", "w", ""),
        Access::Wo => ("w", "r", ""),
        Access::W1c => ("rw", "w", " woclr; hwset;"),
        Access::W1s => ("rw", "r", " woset; hwclr;"),
        Access::Rc => ("r", "w", " rclr; hwset;"),
        Access::Doorbell => ("w", "r", " swmod;"),
    }
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn render(map: &RegMap) -> String {
    let mut s = String::new();
    let w = &mut s;
    let an = map.arch.name();
    writeln!(w, "// {}", super::banner("tpb-regmap gen::rdl (`tpb regen`)", &format!("models/regmap/maps/{{common,{an}}}/*.toml"))).unwrap();
    for b in &map.blocks {
        if b.registers.is_empty() && b.arrays.is_empty() {
            continue;
        }
        writeln!(w, "\naddrmap {an}_{} {{", b.name).unwrap();
        writeln!(w, "    name = \"{}\";", esc(&b.name)).unwrap();
        writeln!(w, "    desc = \"{}\";", esc(&b.description)).unwrap();
        writeln!(w, "    default regwidth = 32;").unwrap();
        for r in &b.registers {
            writeln!(w, "    reg {{").unwrap();
            writeln!(w, "        desc = \"{} [{:?}] ({})\";", esc(&r.description), r.tag, esc(&r.source)).unwrap();
            for f in &r.fields {
                let (sw, hw, extra) = rdl_access(f.access);
                let reset = if f.access == Access::Ro { String::new() } else { format!(" = 0x{:x}", f.reset) };
                writeln!(w, "        field {{ sw = {sw}; hw = {hw};{extra} }} {}[{}:{}]{reset};", f.name, f.msb(), f.lsb).unwrap();
            }
            writeln!(w, "    }} {} @ 0x{:x};", r.name, r.offset - b.start).unwrap();
        }
        for a in &b.arrays {
            for win in &a.windows {
                let sw = if win.op == WindowOp::Read { "r" } else { "w" };
                writeln!(w, "    reg {{").unwrap();
                writeln!(w, "        desc = \"{} window ({:?}) of {}\";", win.name, win.op, esc(&a.description)).unwrap();
                writeln!(w, "        field {{ sw = {sw}; hw = rw; }} value[{}:0];", a.width - 1).unwrap();
                writeln!(w, "    }} {}_{}[{}] @ 0x{:x} += 0x{:x};", a.name, win.name, a.count, win.offset - b.start, a.stride).unwrap();
            }
        }
        writeln!(w, "}};").unwrap();
    }
    for b in &map.blocks {
        for al in &b.aliases {
            writeln!(w, "// alias {}: {}.{}[{}] at 0x{:x} — {}", al.name, al.array, al.window, al.index, al.offset, al.description).unwrap();
        }
    }
    // One addrmap per engine's local-register aperture: the blocks it decodes.
    let p = &map.params;
    let has = |b: &Block| !b.registers.is_empty() || !b.arrays.is_empty();
    let mut engines = Vec::new();
    for e in [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve, Engine::TpbSp, Engine::TopSp] {
        let Some(base) = p.local_reg_base(e) else { continue };
        let en = e.name();
        writeln!(w, "\naddrmap {an}_{en}_local_reg {{").unwrap();
        writeln!(w, "    desc = \"{} {} engine local-register aperture (RTL view)\";", an.to_uppercase(), en.to_uppercase()).unwrap();
        for b in map.blocks.iter().filter(|b| b.aperture == Aperture::LocalReg && b.engines.contains(&e) && has(b)) {
            writeln!(w, "    {an}_{} {} @ 0x{:x};", b.name, b.name, b.start).unwrap();
        }
        writeln!(w, "}};").unwrap();
        engines.push((en, base));
    }
    // The whole BAR0 of one TPB at its real offsets.
    writeln!(w, "\naddrmap {an}_bar0 {{").unwrap();
    writeln!(w, "    desc = \"{} TPB BAR0: every block at the offset the RTL decodes it (arch.toml [local_reg], [bar0], [q7.*], [hw_decode])\";", an.to_uppercase()).unwrap();
    // The hand-written blocks at their BAR0 addresses (the engine they serve
    // does not move them: one instance each).
    let hand: Vec<(&Block, u64)> = map
        .blocks
        .iter()
        .filter(|b| b.aperture.hand_written() && has(b))
        .filter_map(|b| Some((b, p.aperture_base(b.aperture, *b.engines.first()?)? + u64::from(b.start))))
        .collect();
    for r in p.bar0_regions() {
        let inst: String = r.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect::<String>().replace("__", "_").trim_end_matches('_').to_string();
        match r.kind {
            RegionKind::LocalReg(e) => {
                let base = engines.iter().find(|x| x.0 == e.name()).map(|x| x.1).expect("an aperture per engine with a base");
                writeln!(w, "    {an}_{}_local_reg {}_local_reg @ 0x{base:x};", e.name(), e.name()).unwrap();
            }
            RegionKind::TpbRegs => {
                for b in map.blocks.iter().filter(|b| b.aperture == Aperture::TpbRegs && has(b)) {
                    let name = if b.name == "tpb" { "tpb_regs".to_string() } else { format!("tpb_regs_{}", b.name) };
                    writeln!(w, "    {an}_{} {name} @ 0x{:x};", b.name, r.region.base + u64::from(b.start)).unwrap();
                }
            }
            RegionKind::Block { .. } => unreachable!("bar0_regions lists no hand-written block"),
            RegionKind::Memory => {
                // A hand-written block inside the window (the SEQ DMA status)
                // ends the memory where it starts.
                let size = hand.iter().map(|(_, at)| *at).filter(|at| r.region.contains(*at)).map(|at| at - r.region.base).fold(r.region.size, u64::min);
                writeln!(w, "    external mem {{ mementries = {}; memwidth = 32; desc = \"{} ({:#x} bytes)\"; }} {inst} @ 0x{:x};", size / 4, esc(&r.name), size, r.region.base)
                    .unwrap();
            }
        }
    }
    // Named as the address space names them (`pool.seq_dma` → `pool_seq_dma`).
    for (b, at) in &hand {
        writeln!(w, "    {an}_{} {}_{} @ 0x{at:x};", b.name, b.engines[0].name(), b.name).unwrap();
    }
    writeln!(w, "}};").unwrap();
    s
}
