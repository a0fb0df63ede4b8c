//! Checks of a block and of a whole generation: names, overlaps in every
//! view and for every engine, the BAR0 parameters, blocks that fit their
//! apertures.

use super::*;

pub(super) fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('a'..='z')) && c.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

pub(super) fn loc_of(block: &Block, line: usize) -> Loc {
    Loc { file: block.file.clone(), line, col: 1 }
}

pub(super) fn check_names(block: &Block) -> Result<()> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let names = block
        .registers
        .iter()
        .map(|r| (r.name.as_str(), r.line))
        .chain(block.arrays.iter().map(|a| (a.name.as_str(), a.line)))
        .chain(block.aliases.iter().map(|a| (a.name.as_str(), a.line)));
    for (name, line) in names {
        if !is_ident(name) {
            return Err(RegmapError::Invalid { loc: loc_of(block, line), message: format!("name '{name}' must be a lower-case identifier ([a-z][a-z0-9_]*)") });
        }
        if let Some(first) = seen.insert(name, line) {
            return Err(RegmapError::Duplicate { loc: loc_of(block, line), name: name.to_string(), first: loc_of(block, first) });
        }
    }
    Ok(())
}

/// One decoded byte range, for overlap checks.
pub(super) struct Item<'a> {
    block: &'a Block,
    name: String,
    line: usize,
    start: u32,
    end: u32,
}

/// Cross-file checks of one generation; resolves alias offsets.
pub(super) fn validate_generation(blocks: &mut [Block]) -> Result<()> {
    // Unique block names.
    for i in 0..blocks.len() {
        for j in 0..i {
            if blocks[i].name == blocks[j].name {
                return Err(RegmapError::Duplicate { loc: loc_of(&blocks[i], 1), name: blocks[i].name.clone(), first: loc_of(&blocks[j], 1) });
            }
        }
    }
    // Resolve aliases against the arrays of the generation.
    let arrays: Vec<(String, Array)> = blocks.iter().flat_map(|b| b.arrays.iter().map(move |a| (b.name.clone(), a.clone()))).collect();
    for b in blocks.iter_mut() {
        let file = b.file.clone();
        for al in b.aliases.iter_mut() {
            let loc = Loc { file: file.clone(), line: al.line, col: 1 };
            let (_, arr) = arrays.iter().find(|(_, a)| a.name == al.array).ok_or_else(|| RegmapError::BadAlias {
                loc: loc.clone(),
                alias: al.name.clone(),
                message: format!("no array named '{}' in this generation", al.array),
            })?;
            let w = arr.window(&al.window).ok_or_else(|| RegmapError::BadAlias {
                loc: loc.clone(),
                alias: al.name.clone(),
                message: format!("array '{}' has no window '{}' (windows: {})", arr.name, al.window, arr.windows.iter().map(|w| w.name.as_str()).collect::<Vec<_>>().join(", ")),
            })?;
            if al.index >= arr.count {
                return Err(RegmapError::BadAlias { loc, alias: al.name.clone(), message: format!("index {} is past the {} elements of '{}'", al.index, arr.count, arr.name) });
            }
            al.offset = arr.addr(w, al.index);
        }
    }
    // Overlaps, per aperture, engine and view.
    let mut engines: Vec<(Aperture, Engine)> = blocks.iter().flat_map(|b| b.engines.iter().map(move |e| (b.aperture, *e))).collect();
    engines.sort_by_key(|(a, e)| (*a as u8, *e));
    engines.dedup();
    for (ap, eng) in engines {
        let members: Vec<&Block> = blocks.iter().filter(|b| b.aperture == ap && b.engines.contains(&eng)).collect();
        for view in [View::Device, View::Hal] {
            let mut items: Vec<Item> = Vec::new();
            for b in &members {
                for r in &b.registers {
                    if let Some(o) = r.offset_in(view) {
                        items.push(Item { block: b, name: format!("{}.{}", b.name, r.name), line: r.line, start: o, end: o + 4 });
                    }
                }
                // Arrays are decoded by their own hardware in both views.
                for a in &b.arrays {
                    for w in &a.windows {
                        items.push(Item { block: b, name: format!("{}.{}[{}]", b.name, a.name, w.name), line: a.line, start: w.offset, end: w.offset + a.count * a.stride });
                    }
                }
                // Declared ranges of RTL blocks: the top routes by these (RTL view only).
                if view == b.rtl_view && b.has_register_rtl() {
                    items.push(Item { block: b, name: format!("block {}", b.name), line: 1, start: b.start, end: b.end });
                }
            }
            items.sort_by_key(|i| (i.start, i.end));
            for i in 0..items.len() {
                for j in (i + 1)..items.len() {
                    let (a, c) = (&items[i], &items[j]);
                    if c.start >= a.end {
                        break;
                    }
                    // A block's declared range naturally contains its own items.
                    let same_block = std::ptr::eq(a.block, c.block);
                    let a_is_range = a.name.starts_with("block ");
                    let c_is_range = c.name.starts_with("block ");
                    if same_block && (a_is_range || c_is_range) {
                        continue;
                    }
                    return Err(RegmapError::Overlap {
                        loc: loc_of(c.block, c.line),
                        view: view.name().into(),
                        engine: eng.name().into(),
                        a: c.name.clone(),
                        a_start: c.start,
                        a_end: c.end,
                        b: a.name.clone(),
                        b_loc: loc_of(a.block, a.line),
                        b_start: a.start,
                        b_end: a.end,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Parse `arch.toml`.
pub fn parse_params(file: &Path, text: &str) -> Result<ArchParams> {
    let src = Source { file, text, lines: None };
    let params: ArchParams = toml::from_str(text).map_err(|e| RegmapError::Parse { loc: src.loc(e.span().map(|s| s.start).unwrap_or(0)), message: e.message().to_string() })?;
    validate_bar0(&params, &src)?;
    Ok(params)
}

/// The BAR0 regions of a generation must be word-aligned and disjoint.
pub(super) fn validate_bar0(params: &ArchParams, src: &Source) -> Result<()> {
    // The HAL's eng_type table (DIGEST §2.6) always has POOL (2) and TOP_SP (4);
    // SUNDA has 5 types, CAYMAN+ 6.
    let period = params.sim.clock_period_ps;
    if period == 0 || !period.is_multiple_of(2) {
        return Err(RegmapError::Invalid {
            loc: src.loc(src.text.find("clock_period_ps").unwrap_or(0)),
            message: format!("[sim] clock_period_ps = {period}: a clock period must be a positive, even number of picoseconds (the rising edge is at half of it)"),
        });
    }
    let n = params.local_reg.engine_types;
    if !(5..=6).contains(&n) {
        return Err(RegmapError::Invalid {
            loc: src.loc(src.text.find("engine_types").unwrap_or(0)),
            message: format!("[local_reg] engine_types = {n}: the HAL's engine-type table has 5 (SUNDA) or 6 (CAYMAN+) entries"),
        });
    }
    let loc = src.loc(src.text.find("[bar0]").unwrap_or(0));
    let regions = params.bar0_regions();
    let t = &params.top_sp;
    let bar0_end = regions.iter().map(|r| r.region.end()).max().unwrap_or(0);
    let span = 1u64.checked_shl(t.instance_shift).unwrap_or(0);
    if t.soc_tpb_window < params.bar0.local_reg_size || t.soc_tpb_window.checked_add(bar0_end).is_none_or(|end| end > span) {
        return Err(RegmapError::Invalid {
            loc: src.loc(src.text.find("soc_tpb_window").unwrap_or(0)),
            message: format!(
                "[top_sp] soc_tpb_window = {:#x}: BAR0 ({bar0_end:#x} bytes) must fit in an instance's span ({span:#x} bytes, instance_shift {}) past its local-register aperture ({:#x} bytes)",
                t.soc_tpb_window, t.instance_shift, params.bar0.local_reg_size
            ),
        });
    }
    for r in &regions {
        if r.region.base % 4 != 0 || r.region.size % 4 != 0 || r.region.size == 0 {
            return Err(RegmapError::Invalid {
                loc: loc.clone(),
                message: format!("BAR0 region '{}' ({:#x}, {:#x} bytes) must be non-empty and 4-byte aligned", r.name, r.region.base, r.region.size),
            });
        }
    }
    for w in regions.windows(2) {
        if w[1].region.base < w[0].region.end() {
            return Err(RegmapError::Invalid {
                loc: loc.clone(),
                message: format!(
                    "BAR0 region '{}' ({:#x}..{:#x}) overlaps '{}' ({:#x}..{:#x})",
                    w[1].name,
                    w[1].region.base,
                    w[1].region.end(),
                    w[0].name,
                    w[0].region.base,
                    w[0].region.end()
                ),
            });
        }
    }
    Ok(())
}

/// Every block must fit inside the aperture BAR0 gives it.
pub(super) fn validate_block_fit(params: &ArchParams, blocks: &[Block]) -> Result<()> {
    for b in blocks {
        let size = match b.aperture {
            Aperture::LocalReg => params.bar0.local_reg_size,
            Aperture::TpbRegs => params.bar0.tpb_regs.size,
            Aperture::SeqDma => params.bar0.seq_dma.size,
            Aperture::HwDecode => {
                let hw = &params.hw_decode;
                if !hw.present {
                    return Err(RegmapError::Invalid {
                        loc: loc_of(b, 1),
                        message: format!("block '{}' is in the HW-decode window, which this generation does not have ([hw_decode] present = false in arch.toml)", b.name),
                    });
                }
                // Between the CAM records and the handler table.
                let records_end = hw.cam_offset as u64 + hw.cam_records as u64 * hw.cam_record_bytes as u64;
                if (b.start as u64) < records_end {
                    return Err(RegmapError::Invalid {
                        loc: loc_of(b, 1),
                        message: format!("block '{}' starts at {:#x}, inside the CAM records (they end at {records_end:#x}: [hw_decode] in arch.toml)", b.name, b.start),
                    });
                }
                hw.table_offset as u64
            }
        };
        if b.end as u64 > size {
            return Err(RegmapError::Invalid {
                loc: loc_of(b, 1),
                message: format!("block '{}' ends at {:#x}, beyond its {:?} aperture of {:#x} bytes ([bar0] in arch.toml)", b.name, b.end, b.aperture, size),
            });
        }
    }
    Ok(())
}
