//! C header: offsets (both views), field shifts/masks and reset values.

use crate::model::*;
use std::fmt::Write;

pub fn render(map: &RegMap) -> String {
    let a = map.arch.name().to_ascii_uppercase();
    let guard = format!("TPB_REGS_{a}_H");
    let mut s = String::new();
    let w = &mut s;
    writeln!(w, "/* {} */", super::banner("tpb-regmap gen::c (`tpb regen`)", &format!("the TOML files in models/regmap/maps/common/ and maps/{}/", map.arch.name()))).unwrap();
    writeln!(w, "/* Offsets are relative to the block's aperture base. _OFFSET is the view the RTL decodes;").unwrap();
    writeln!(w, "   _HAL_OFFSET / _DEVICE_OFFSET are the two views of DIGEST §2.7 / §2.8 where they exist. */").unwrap();
    writeln!(w, "#ifndef {guard}\n#define {guard}\n").unwrap();
    for b in &map.blocks {
        let bp = format!("{a}_{}", b.name.to_ascii_uppercase());
        writeln!(w, "/* ---- block {}: {} ---- */", b.name, b.description).unwrap();
        for r in &b.registers {
            let rp = format!("{bp}_{}", r.name.to_ascii_uppercase());
            writeln!(w, "/* {} */", r.description.replace("*/", "* /")).unwrap();
            writeln!(w, "#define {rp}_OFFSET 0x{:04x}u", r.offset).unwrap();
            if let Some(h) = r.hal_offset {
                writeln!(w, "#define {rp}_HAL_OFFSET 0x{h:04x}u").unwrap();
            }
            if let Some(d) = r.device_offset {
                writeln!(w, "#define {rp}_DEVICE_OFFSET 0x{d:04x}u").unwrap();
            }
            writeln!(w, "#define {rp}_RESET 0x{:08x}u", r.reset_word()).unwrap();
            for f in &r.fields {
                if r.fields.len() == 1 && f.name == "value" {
                    continue;
                }
                let fp = format!("{rp}_{}", f.name.to_ascii_uppercase());
                writeln!(w, "#define {fp}_SHIFT {}u", f.lsb).unwrap();
                writeln!(w, "#define {fp}_MASK 0x{:08x}u", f.mask()).unwrap();
                for e in &f.enums {
                    writeln!(w, "#define {fp}_{} 0x{:x}u", e.name.to_ascii_uppercase(), e.value).unwrap();
                }
            }
        }
        for ar in &b.arrays {
            let ap = format!("{bp}_{}", ar.name.to_ascii_uppercase());
            writeln!(w, "#define {ap}_COUNT {}u", ar.count).unwrap();
            writeln!(w, "#define {ap}_STRIDE {}u", ar.stride).unwrap();
            for win in &ar.windows {
                writeln!(w, "#define {ap}_{}_OFFSET 0x{:04x}u", win.name.to_ascii_uppercase(), win.offset).unwrap();
            }
            writeln!(w, "#define {ap}_ADDR(window_offset, idx) ((window_offset) + (idx) * {ap}_STRIDE)").unwrap();
        }
        for al in &b.aliases {
            writeln!(w, "/* {} = {}.{}[{}] */", al.description, al.array, al.window, al.index).unwrap();
            writeln!(w, "#define {bp}_{}_OFFSET 0x{:04x}u", al.name.to_ascii_uppercase(), al.offset).unwrap();
        }
        writeln!(w).unwrap();
    }
    writeln!(w, "#endif /* {guard} */").unwrap();
    s
}
