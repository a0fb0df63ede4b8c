//! Markdown register reference of one generation.

use crate::model::*;
use std::fmt::Write;

fn hex(o: Option<u32>) -> String {
    o.map(|v| format!("`{v:#06x}`")).unwrap_or_else(|| "—".into())
}

pub fn render(map: &RegMap) -> String {
    let mut s = String::new();
    let w = &mut s;
    let p = &map.params;
    writeln!(w, "<!-- {} -->", super::banner("tpb-regmap gen::markdown (`tpb regen`)", &format!("models/regmap/maps/{{common,{}}}/*.toml", map.arch.name()))).unwrap();
    writeln!(w, "# {} (v{}) register reference\n", map.arch.name().to_uppercase(), p.version).unwrap();
    writeln!(
        w,
        "arch_id `{:#x}`, coretype {}, HAL arch_type {}, TOP_SP count {}, HW-decode {}.\n",
        p.arch_id,
        p.coretype,
        p.hal_arch_type,
        p.top_sp.count,
        if p.hw_decode.present { "present" } else { "absent" }
    )
    .unwrap();
    writeln!(w, "Tags: **S** stated by the seeds, **I** inferred, **D** our design choice. \"RTL\" is the offset the generated block decodes; HAL and device are the two address views of DIGEST §2.7/§2.8.\n").unwrap();
    writeln!(w, "## BAR0 map of one TPB\n").unwrap();
    writeln!(w, "From `arch.toml` (`[local_reg]`, `[q7.pooling]`, `[hw_decode]`, `[bar0]`); tags there.\n").unwrap();
    writeln!(w, "| base | end | region |").unwrap();
    writeln!(w, "|---|---|---|").unwrap();
    for r in p.bar0_regions() {
        writeln!(w, "| `{:#010x}` | `{:#010x}` | `{}` |", r.region.base, r.region.end(), r.name).unwrap();
    }
    writeln!(w).unwrap();
    for b in &map.blocks {
        writeln!(w, "## Block `{}`\n", b.name).unwrap();
        writeln!(w, "{}\n", b.description).unwrap();
        let engines: Vec<&str> = b.engines.iter().map(|e| e.name()).collect();
        writeln!(w, "- aperture: `{:?}`; engines: {}; RTL decodes the **{}** view", b.aperture, engines.join(", "), b.rtl_view.name()).unwrap();
        if b.has_register_rtl() {
            writeln!(w, "- byte range `{:#06x}..{:#06x}`; module `{}`", b.start, b.end, b.module_name()).unwrap();
        }
        writeln!(w, "- source: `{}`\n", b.source_files()).unwrap();
        if !b.registers.is_empty() {
            writeln!(w, "| RTL | HAL | device | register | fields | reset | tag | description |").unwrap();
            writeln!(w, "|---|---|---|---|---|---|---|---|").unwrap();
            for r in &b.registers {
                let fields: Vec<String> = r
                    .fields
                    .iter()
                    .map(|f| if f.width == 1 { format!("`{}`[{}] {}", f.name, f.lsb, f.access.name()) } else { format!("`{}`[{}:{}] {}", f.name, f.msb(), f.lsb, f.access.name()) })
                    .collect();
                writeln!(
                    w,
                    "| `{:#06x}` | {} | {} | `{}` | {} | `{:#x}` | {:?} | {} ({}) |",
                    r.offset,
                    hex(r.hal_offset),
                    hex(r.device_offset),
                    r.name,
                    fields.join("<br>"),
                    r.reset_word(),
                    r.tag,
                    r.description.replace('|', "\\|"),
                    r.source
                )
                .unwrap();
            }
            writeln!(w).unwrap();
        }
        for a in &b.arrays {
            writeln!(
                w,
                "**Array `{}`**: {} × {}-bit, stride {}, implemented by `{}` — {} [{:?}] ({})\n",
                a.name, a.count, a.width, a.stride, a.implemented_by, a.description, a.tag, a.source
            )
            .unwrap();
            writeln!(w, "| window | offset | op |").unwrap();
            writeln!(w, "|---|---|---|").unwrap();
            for win in &a.windows {
                writeln!(w, "| `{}` | `{:#06x}` | {:?} |", win.name, win.offset, win.op).unwrap();
            }
            writeln!(w).unwrap();
        }
        if !b.aliases.is_empty() {
            writeln!(w, "| offset | alias | element | tag | description |").unwrap();
            writeln!(w, "|---|---|---|---|---|").unwrap();
            for a in &b.aliases {
                writeln!(w, "| `{:#06x}` | `{}` | `{}.{}[{}]` | {:?} | {} ({}) |", a.offset, a.name, a.array, a.window, a.index, a.tag, a.description, a.source).unwrap();
            }
            writeln!(w).unwrap();
        }
    }
    s
}
