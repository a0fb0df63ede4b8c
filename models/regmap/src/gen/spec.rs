//! Rust constants of the hand-written blocks (`Aperture::hand_written`):
//! `models/spec/src/generated.rs`, so that the RTL, the golden models and
//! the HAL, which sit above `tpb-spec`, take those blocks' offsets and bits
//! from the map. A block is rendered from the first generation that has it;
//! the generations that have it agree (a test in `tests/validate.rs`).

use crate::model::*;
use std::fmt::Write;

/// Source text of `models/spec/src/generated.rs`.
pub fn render(maps: &[RegMap]) -> String {
    let mut s = String::new();
    let w = &mut s;
    writeln!(w, "// {}", super::banner("tpb-regmap gen::spec (`tpb regen`)", "the hand-written blocks of models/regmap/maps/common/")).unwrap();
    writeln!(w, "//! The hand-written blocks' registers: offsets within the block's window,").unwrap();
    writeln!(w, "//! and each field's shift and mask (registers of one `value` field have none).").unwrap();
    let mut done: Vec<&str> = Vec::new();
    for b in maps.iter().flat_map(|m| m.blocks.iter()).filter(|b| b.aperture.hand_written()) {
        if done.contains(&b.name.as_str()) {
            continue;
        }
        done.push(&b.name);
        writeln!(w, "\n/// {}", super::rustdoc_text(&b.description)).unwrap();
        writeln!(w, "pub mod {} {{", b.name).unwrap();
        for r in &b.registers {
            writeln!(w, "    /// {} `[{:?}]` ({})", super::rustdoc_text(&r.description), r.tag, super::rustdoc_text(&r.source)).unwrap();
            writeln!(w, "    pub const {}: u32 = {:#06x};", r.name.to_ascii_uppercase(), r.offset).unwrap();
            if r.fields.len() == 1 && r.fields[0].name == "value" {
                continue;
            }
            writeln!(w, "    /// Fields of `{}`.", r.name).unwrap();
            writeln!(w, "    pub mod {} {{", r.name).unwrap();
            for f in &r.fields {
                let n = f.name.to_ascii_uppercase();
                if !f.description.is_empty() {
                    writeln!(w, "        /// {} ({})", super::rustdoc_text(&f.description), f.access.name()).unwrap();
                }
                writeln!(w, "        pub const {n}_SHIFT: u32 = {};", f.lsb).unwrap();
                writeln!(w, "        pub const {n}_MASK: u32 = {:#x};", f.mask()).unwrap();
            }
            writeln!(w, "    }}").unwrap();
        }
        writeln!(w, "}}").unwrap();
    }
    s
}
