//! Typed Rust constants for the host HAL: one module per generation and block,
//! a `Reg` per register/alias (HAL-view offset), a `Field` per field, an
//! `Array` per alias-window array. Types live in `tpb_models::regs`.

use crate::model::*;
use std::fmt::Write;

fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

/// Source text of `models/hal/src/regs/generated.rs`.
pub fn render(maps: &[RegMap]) -> String {
    let mut s = String::new();
    let w = &mut s;
    writeln!(w, "// {}", super::banner("tpb-regmap gen::hal (`tpb regen`)", "models/regmap/maps/*/*.toml")).unwrap();
    writeln!(w, "//! Register constants per generation and block. Offsets are the HAL view").unwrap();
    writeln!(w, "//! (what the host writes), relative to the block's aperture base.\n").unwrap();
    writeln!(w, "#![allow(clippy::unreadable_literal)]").unwrap();
    for m in maps {
        writeln!(w, "\n/// {} (v{}).", m.arch.name().to_uppercase(), m.params.version).unwrap();
        writeln!(w, "pub mod {} {{", m.arch.name()).unwrap();
        for b in &m.blocks {
            writeln!(w, "    /// {}", super::rustdoc_text(&b.description)).unwrap();
            writeln!(w, "    pub mod {} {{", b.name).unwrap();
            writeln!(w, "        #[allow(unused_imports)]").unwrap();
            writeln!(w, "        use crate::regs::{{Array, Field, Reg}};").unwrap();
            for r in &b.registers {
                let hal = r.hal_offset.unwrap_or(r.offset);
                writeln!(w, "        /// {} `[{:?}]` ({})", super::rustdoc_text(&r.description), r.tag, super::rustdoc_text(&r.source)).unwrap();
                writeln!(
                    w,
                    "        pub const {}: Reg = Reg {{ name: \"{}\", block: \"{}\", offset: {:#06x}, rtl_offset: {:#06x}, device_offset: {}, reset: {:#x} }};",
                    upper(&r.name),
                    r.name,
                    b.name,
                    hal,
                    r.offset,
                    match r.device_offset {
                        Some(d) => format!("Some({d:#06x})"),
                        None => "None".into(),
                    },
                    r.reset_word()
                )
                .unwrap();
                if !(r.fields.len() == 1 && r.fields[0].name == "value") {
                    writeln!(w, "        /// Fields of `{}`.", r.name).unwrap();
                    writeln!(w, "        pub mod {} {{", r.name).unwrap();
                    writeln!(w, "            use crate::regs::Field;").unwrap();
                    for f in &r.fields {
                        writeln!(w, "            pub const {}: Field = Field {{ name: \"{}\", lsb: {}, width: {} }};", upper(&f.name), f.name, f.lsb, f.width).unwrap();
                    }
                    writeln!(w, "        }}").unwrap();
                }
            }
            // Each repeat group also as one array, in index order (`WINDOW_SRC_LO[k]`).
            let mut groups: Vec<(&str, Vec<&Register>)> = Vec::new();
            for r in b.registers.iter().filter(|r| r.index.is_some()) {
                match groups.iter_mut().find(|(g, _)| *g == r.group.as_str()) {
                    Some((_, v)) => v.push(r),
                    None => groups.push((&r.group, vec![r])),
                }
            }
            for (g, rs) in &groups {
                let name = upper(g.trim_matches('_'));
                let (first, last) = (&rs[0].name, &rs[rs.len() - 1].name);
                writeln!(w, "        /// `{first}` .. `{last}`: the repeat group as an array, in index order.").unwrap();
                let items: Vec<String> = rs.iter().map(|r| upper(&r.name)).collect();
                // One line, as generated (rustfmt would break the longer ones).
                writeln!(w, "        #[rustfmt::skip]").unwrap();
                writeln!(w, "        pub const {name}: [Reg; {}] = [{}];", rs.len(), items.join(", ")).unwrap();
            }
            for a in &b.arrays {
                writeln!(w, "        /// {} `[{:?}]` ({})", super::rustdoc_text(&a.description), a.tag, super::rustdoc_text(&a.source)).unwrap();
                let wins: Vec<String> = a.windows.iter().map(|x| format!("(\"{}\", {:#06x})", x.name, x.offset)).collect();
                writeln!(
                    w,
                    "        pub const {}: Array = Array {{ name: \"{}\", count: {}, stride: {}, windows: &[{}] }};",
                    upper(&a.name),
                    a.name,
                    a.count,
                    a.stride,
                    wins.join(", ")
                )
                .unwrap();
            }
            for a in &b.aliases {
                writeln!(w, "        /// {} = `{}.{}[{}]` `[{:?}]` ({})", super::rustdoc_text(&a.description), a.array, a.window, a.index, a.tag, super::rustdoc_text(&a.source))
                    .unwrap();
                writeln!(
                    w,
                    "        pub const {}: Reg = Reg {{ name: \"{}\", block: \"{}\", offset: {:#06x}, rtl_offset: {:#06x}, device_offset: Some({:#06x}), reset: 0 }};",
                    upper(&a.name),
                    a.name,
                    b.name,
                    a.offset,
                    a.offset,
                    a.offset
                )
                .unwrap();
            }
            writeln!(w, "    }}").unwrap();
        }
        writeln!(w, "}}").unwrap();
    }
    s
}
