//! SystemRDL 2.0 export: one addrmap per block (RTL view, offsets relative
//! to the block's start), an outer addrmap per generation placing each block
//! of the POOL engine's local-register aperture at its start. Checked by
//! `systemrdl-compiler` in the suite. Alias windows are exported as register arrays; named
//! aliases become comments (SystemRDL has no element alias).

use crate::model::*;
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
    writeln!(w, "// {}", super::banner("tpb-regmap gen::rdl (`tpb regen`)", &format!("models/regmap/maps/{an}/*.toml"))).unwrap();
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
    // One addrmap per generation for the local-register aperture of the POOL engine.
    writeln!(w, "\naddrmap {an}_pool_local_reg {{").unwrap();
    writeln!(w, "    desc = \"{} POOL engine local-register aperture (RTL view)\";", an.to_uppercase()).unwrap();
    for b in &map.blocks {
        if b.aperture == Aperture::LocalReg && b.engines.contains(&Engine::Pool) && (!b.registers.is_empty() || !b.arrays.is_empty()) {
            writeln!(w, "    {an}_{} {} @ 0x{:x};", b.name, b.name, b.start).unwrap();
        }
    }
    writeln!(w, "}};").unwrap();
    s
}
