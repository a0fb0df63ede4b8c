//! Loading a generation's map directory: parse each TOML file into the raw
//! format, elaborate it (repeat expansion, address views) and validate it
//! (alignment, field overflow, reset width, duplicates, overlaps in every
//! view and for every engine). A map is returned whole or not at all.

use crate::error::{Loc, RegmapError, Result};
use crate::model::*;
use crate::params::ArchParams;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    block: RawBlock,
    #[serde(default)]
    register: Vec<Spanned<RawRegister>>,
    #[serde(default)]
    array: Vec<Spanned<RawArray>>,
    #[serde(default)]
    alias: Vec<Spanned<RawAlias>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlock {
    name: String,
    description: String,
    aperture: Aperture,
    engines: Vec<Engine>,
    rtl_view: View,
    #[serde(default)]
    start: u32,
    #[serde(default)]
    end: u32,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawOffset {
    Same(u32),
    Views {
        #[serde(default)]
        device: Option<u32>,
        #[serde(default)]
        hal: Option<u32>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRepeat {
    count: u32,
    stride: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegister {
    name: String,
    offset: RawOffset,
    description: String,
    tag: Tag,
    source: String,
    #[serde(default)]
    repeat: Option<RawRepeat>,
    /// Shorthand for a register with one field `value`.
    #[serde(default)]
    access: Option<Access>,
    #[serde(default)]
    reset: Option<u64>,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    field: Vec<Spanned<RawField>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: String,
    /// "msb:lsb" or "bit".
    bits: String,
    access: Access,
    #[serde(default)]
    reset: u64,
    #[serde(default)]
    description: String,
    #[serde(default, rename = "enum")]
    enums: Vec<EnumValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArray {
    name: String,
    count: u32,
    width: u32,
    stride: u32,
    #[serde(default)]
    reset: u64,
    implemented_by: String,
    window: Vec<Window>,
    description: String,
    tag: Tag,
    source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAlias {
    name: String,
    array: String,
    window: String,
    index: u32,
    description: String,
    tag: Tag,
    source: String,
}

/// Turns byte spans into line:column for one file (or, for a block merged
/// from a common file and an overlay, for the file each line came from).
struct Source<'a> {
    file: &'a Path,
    text: &'a str,
    lines: Option<&'a crate::layer::LineMap>,
}

impl Source<'_> {
    fn loc(&self, byte: usize) -> Loc {
        let byte = byte.min(self.text.len());
        let before = &self.text[..byte];
        let line = before.matches('\n').count() + 1;
        let col = byte - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
        match self.lines.and_then(|m| m.get(line - 1)) {
            Some((file, l)) => Loc { file: file.clone(), line: *l, col },
            None => Loc { file: self.file.to_path_buf(), line, col },
        }
    }
}

fn parse_bits(s: &str) -> Option<(u32, u32)> {
    let s = s.trim();
    if let Some((m, l)) = s.split_once(':') {
        let msb: u32 = m.trim().parse().ok()?;
        let lsb: u32 = l.trim().parse().ok()?;
        (msb >= lsb).then_some((lsb, msb - lsb + 1))
    } else {
        let b: u32 = s.parse().ok()?;
        Some((b, 1))
    }
}

/// Parse and elaborate one block file. `text` is the file's content.
pub fn parse_block(arch: Arch, file: &Path, text: &str) -> Result<Block> {
    parse_block_from(arch, file, text, None)
}

/// Parse and elaborate one block, `lines` saying where each line of a
/// merged text came from (see `layer`).
fn parse_block_from(arch: Arch, file: &Path, text: &str, lines: Option<&crate::layer::LineMap>) -> Result<Block> {
    let src = Source { file, text, lines };
    let raw: RawFile = toml::from_str(text).map_err(|e| RegmapError::Parse {
        loc: src.loc(e.span().map(|s| s.start).unwrap_or(0)),
        message: e.message().to_string(),
    })?;
    let b = raw.block;
    let block_loc = src.loc(0);
    let mut registers = Vec::new();
    for sr in &raw.register {
        let loc = src.loc(sr.span().start);
        let r = sr.get_ref();
        let (count, stride) = match &r.repeat {
            Some(rep) if rep.count == 0 => {
                return Err(RegmapError::Invalid { loc, message: format!("register '{}': repeat count is 0", r.name) })
            }
            Some(rep) => (rep.count, rep.stride),
            None => (1, 0),
        };
        let (dev, hal) = match r.offset {
            RawOffset::Same(o) => (Some(o), Some(o)),
            RawOffset::Views { device, hal } => (device, hal),
        };
        let width = r.width.unwrap_or(32);
        if width == 0 || width > 32 {
            return Err(RegmapError::Invalid { loc, message: format!("register '{}': width {} is not in 1..=32", r.name, width) });
        }
        let fields = elaborate_fields(&src, &loc, r, width)?;
        for n in 0..count {
            let name = if r.repeat.is_none() {
                r.name.clone()
            } else if r.name.contains("{n}") {
                r.name.replace("{n}", &n.to_string())
            } else {
                format!("{}_{}", r.name, n)
            };
            let group = r.name.replace("{n}", "");
            let step = n * stride;
            let device_offset = dev.map(|o| o + step);
            let hal_offset = hal.map(|o| o + step);
            for o in [device_offset, hal_offset].into_iter().flatten() {
                if o % 4 != 0 {
                    return Err(RegmapError::Misaligned { loc: loc.clone(), register: name.clone(), offset: o });
                }
            }
            let offset = match b.rtl_view {
                View::Device => device_offset,
                View::Hal => hal_offset,
            }
            .ok_or_else(|| RegmapError::MissingViewOffset {
                loc: loc.clone(),
                block: b.name.clone(),
                register: name.clone(),
                view: b.rtl_view.name().to_string(),
            })?;
            if offset < b.start || offset + 4 > b.end {
                return Err(RegmapError::OutOfRange {
                    loc: loc.clone(),
                    block: b.name.clone(),
                    register: name.clone(),
                    offset,
                    start: b.start,
                    end: b.end,
                });
            }
            registers.push(Register {
                name,
                group,
                index: r.repeat.as_ref().map(|_| n),
                offset,
                device_offset,
                hal_offset,
                description: r.description.clone(),
                tag: r.tag,
                source: r.source.clone(),
                fields: fields.clone(),
                line: loc.line,
            });
        }
    }

    let mut arrays = Vec::new();
    for sa in &raw.array {
        let loc = src.loc(sa.span().start);
        let a = sa.get_ref();
        if a.width == 0 || a.width > 32 || a.count == 0 || a.stride < 4 || a.stride % 4 != 0 {
            return Err(RegmapError::Invalid {
                loc,
                message: format!("array '{}': needs 1..=32-bit width, count > 0 and a stride that is a multiple of 4", a.name),
            });
        }
        if a.width < 64 && a.reset >> a.width != 0 {
            return Err(RegmapError::ResetTooWide { loc, register: a.name.clone(), field: "(array)".into(), reset: a.reset, width: a.width });
        }
        for w in &a.window {
            let end = w.offset as u64 + a.count as u64 * a.stride as u64;
            if w.offset % 4 != 0 {
                return Err(RegmapError::Misaligned { loc, register: format!("{}.{}", a.name, w.name), offset: w.offset });
            }
            if w.offset < b.start || end > b.end as u64 {
                return Err(RegmapError::OutOfRange {
                    loc,
                    block: b.name.clone(),
                    register: format!("{}.{}", a.name, w.name),
                    offset: w.offset,
                    start: b.start,
                    end: b.end,
                });
            }
        }
        arrays.push(Array {
            name: a.name.clone(),
            count: a.count,
            width: a.width,
            stride: a.stride,
            reset: a.reset,
            implemented_by: a.implemented_by.clone(),
            windows: a.window.clone(),
            description: a.description.clone(),
            tag: a.tag,
            source: a.source.clone(),
            line: loc.line,
        });
    }

    let aliases = raw
        .alias
        .iter()
        .map(|sa| {
            let loc = src.loc(sa.span().start);
            let a = sa.get_ref();
            Alias {
                name: a.name.clone(),
                array: a.array.clone(),
                window: a.window.clone(),
                index: a.index,
                offset: 0, // resolved against the arrays of the generation
                description: a.description.clone(),
                tag: a.tag,
                source: a.source.clone(),
                line: loc.line,
            }
        })
        .collect();

    let block = Block {
        name: b.name,
        arch,
        file: file.to_path_buf(),
        extends: None,
        description: b.description,
        aperture: b.aperture,
        engines: b.engines,
        rtl_view: b.rtl_view,
        start: b.start,
        end: b.end,
        registers,
        arrays,
        aliases,
    };
    if block.engines.is_empty() {
        return Err(RegmapError::Invalid { loc: block_loc, message: format!("block '{}' lists no engines", block.name) });
    }
    check_names(&block)?;
    Ok(block)
}

fn elaborate_fields(src: &Source, reg_loc: &Loc, r: &RawRegister, width: u32) -> Result<Vec<Field>> {
    let mut fields = Vec::new();
    if r.field.is_empty() {
        let access = r.access.ok_or_else(|| RegmapError::Invalid {
            loc: reg_loc.clone(),
            message: format!("register '{}' has neither fields nor an access type", r.name),
        })?;
        fields.push(Field {
            name: "value".into(),
            lsb: 0,
            width,
            access,
            reset: r.reset.unwrap_or(0),
            description: String::new(),
            enums: vec![],
        });
    } else {
        if r.access.is_some() || r.reset.is_some() {
            return Err(RegmapError::Invalid {
                loc: reg_loc.clone(),
                message: format!("register '{}': give access/reset per field when fields are listed", r.name),
            });
        }
        for sf in &r.field {
            let loc = src.loc(sf.span().start);
            let f = sf.get_ref();
            let (lsb, fw) = parse_bits(&f.bits).ok_or_else(|| RegmapError::BadField {
                loc: loc.clone(),
                register: r.name.clone(),
                field: f.name.clone(),
                message: format!("bits '{}' is not 'msb:lsb' or a bit number", f.bits),
            })?;
            fields.push(Field {
                name: f.name.clone(),
                lsb,
                width: fw,
                access: f.access,
                reset: f.reset,
                description: f.description.clone(),
                enums: f.enums.clone(),
            });
            let fl = fields.last().unwrap();
            if fl.lsb + fl.width > width {
                return Err(RegmapError::FieldOverflow {
                    loc,
                    register: r.name.clone(),
                    field: fl.name.clone(),
                    lsb: fl.lsb,
                    msb: fl.msb(),
                    width,
                });
            }
        }
    }
    for (i, f) in fields.iter().enumerate() {
        let loc = r.field.get(i).map(|sf| src.loc(sf.span().start)).unwrap_or_else(|| reg_loc.clone());
        if f.reset > f.max() {
            return Err(RegmapError::ResetTooWide { loc, register: r.name.clone(), field: f.name.clone(), reset: f.reset, width: f.width });
        }
        if f.access == Access::Ro && f.reset != 0 {
            return Err(RegmapError::BadField {
                loc,
                register: r.name.clone(),
                field: f.name.clone(),
                message: "a read-only field is driven by hardware and has no reset value of its own".into(),
            });
        }
        for e in &f.enums {
            if e.value > f.max() {
                return Err(RegmapError::BadField {
                    loc: loc.clone(),
                    register: r.name.clone(),
                    field: f.name.clone(),
                    message: format!("enum value '{}' = {:#x} does not fit in {} bit(s)", e.name, e.value, f.width),
                });
            }
        }
        for g in &fields[..i] {
            if g.name == f.name {
                return Err(RegmapError::Duplicate { loc: loc.clone(), name: format!("{}.{}", r.name, f.name), first: reg_loc.clone() });
            }
            if f.mask() & g.mask() != 0 {
                return Err(RegmapError::FieldOverlap { loc, register: r.name.clone(), a: g.name.clone(), b: f.name.clone() });
            }
        }
        if !is_ident(&f.name) {
            return Err(RegmapError::BadField {
                loc,
                register: r.name.clone(),
                field: f.name.clone(),
                message: "names must be lower-case identifiers ([a-z][a-z0-9_]*)".into(),
            });
        }
    }
    Ok(fields)
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('a'..='z')) && c.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

fn loc_of(block: &Block, line: usize) -> Loc {
    Loc { file: block.file.clone(), line, col: 1 }
}

fn check_names(block: &Block) -> Result<()> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let names = block
        .registers
        .iter()
        .map(|r| (r.name.as_str(), r.line))
        .chain(block.arrays.iter().map(|a| (a.name.as_str(), a.line)))
        .chain(block.aliases.iter().map(|a| (a.name.as_str(), a.line)));
    for (name, line) in names {
        if !is_ident(name) {
            return Err(RegmapError::Invalid {
                loc: loc_of(block, line),
                message: format!("name '{name}' must be a lower-case identifier ([a-z][a-z0-9_]*)"),
            });
        }
        if let Some(first) = seen.insert(name, line) {
            return Err(RegmapError::Duplicate { loc: loc_of(block, line), name: name.to_string(), first: loc_of(block, first) });
        }
    }
    Ok(())
}

/// One decoded byte range, for overlap checks.
struct Item<'a> {
    block: &'a Block,
    name: String,
    line: usize,
    start: u32,
    end: u32,
}

/// Cross-file checks of one generation; resolves alias offsets.
fn validate_generation(blocks: &mut [Block]) -> Result<()> {
    // Unique block names.
    for i in 0..blocks.len() {
        for j in 0..i {
            if blocks[i].name == blocks[j].name {
                return Err(RegmapError::Duplicate {
                    loc: loc_of(&blocks[i], 1),
                    name: blocks[i].name.clone(),
                    first: loc_of(&blocks[j], 1),
                });
            }
        }
    }
    // Resolve aliases against the arrays of the generation.
    let arrays: Vec<(String, Array)> =
        blocks.iter().flat_map(|b| b.arrays.iter().map(move |a| (b.name.clone(), a.clone()))).collect();
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
                message: format!(
                    "array '{}' has no window '{}' (windows: {})",
                    arr.name,
                    al.window,
                    arr.windows.iter().map(|w| w.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            })?;
            if al.index >= arr.count {
                return Err(RegmapError::BadAlias {
                    loc,
                    alias: al.name.clone(),
                    message: format!("index {} is past the {} elements of '{}'", al.index, arr.count, arr.name),
                });
            }
            al.offset = arr.addr(w, al.index);
        }
    }
    // Overlaps, per aperture, engine and view.
    let mut engines: Vec<(Aperture, Engine)> =
        blocks.iter().flat_map(|b| b.engines.iter().map(move |e| (b.aperture, *e))).collect();
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
                        items.push(Item {
                            block: b,
                            name: format!("{}.{}[{}]", b.name, a.name, w.name),
                            line: a.line,
                            start: w.offset,
                            end: w.offset + a.count * a.stride,
                        });
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
    let params: ArchParams = toml::from_str(text).map_err(|e| RegmapError::Parse {
        loc: src.loc(e.span().map(|s| s.start).unwrap_or(0)),
        message: e.message().to_string(),
    })?;
    validate_bar0(&params, &src)?;
    Ok(params)
}

/// The BAR0 regions of a generation must be word-aligned and disjoint.
fn validate_bar0(params: &ArchParams, src: &Source) -> Result<()> {
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
    for r in &regions {
        if r.region.base % 4 != 0 || r.region.size % 4 != 0 || r.region.size == 0 {
            return Err(RegmapError::Invalid {
                loc: loc.clone(),
                message: format!(
                    "BAR0 region '{}' ({:#x}, {:#x} bytes) must be non-empty and 4-byte aligned",
                    r.name, r.region.base, r.region.size
                ),
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
fn validate_block_fit(params: &ArchParams, blocks: &[Block]) -> Result<()> {
    for b in blocks {
        let size = match b.aperture {
            Aperture::LocalReg => params.bar0.local_reg_size,
            Aperture::TpbRegs => params.bar0.tpb_regs.size,
        };
        if b.end as u64 > size {
            return Err(RegmapError::Invalid {
                loc: loc_of(b, 1),
                message: format!(
                    "block '{}' ends at {:#x}, beyond its {:?} aperture of {:#x} bytes ([bar0] in arch.toml)",
                    b.name, b.end, b.aperture, size
                ),
            });
        }
    }
    Ok(())
}

/// Build a generation from in-memory files `(path, text)`; `arch.toml` holds the parameters.
pub fn from_sources(arch: Arch, files: &[(PathBuf, String)]) -> Result<RegMap> {
    let mut params = None;
    let mut blocks = Vec::new();
    for f in crate::layer::compose(files)? {
        if f.file.file_name().and_then(|n| n.to_str()) == Some("arch.toml") {
            params = Some(parse_params(&f.file, &f.text)?);
        } else {
            let mut b = parse_block_from(arch, &f.file, &f.text, f.lines.as_ref())?;
            b.extends = f.extends;
            blocks.push(b);
        }
    }
    // The generation's own folder (not `common`), for the missing-arch.toml error.
    let in_common = |p: &Path| p.parent().and_then(|d| d.file_name()).is_some_and(|n| n == "common");
    let dir = files.iter().map(|(p, _)| p).find(|p| !in_common(p)).or(files.first().map(|f| &f.0)).and_then(|p| p.parent()).unwrap_or(Path::new(".")).to_path_buf();
    let params = params.ok_or_else(|| RegmapError::Invalid {
        loc: Loc { file: dir.join("arch.toml"), line: 1, col: 1 },
        message: "missing arch.toml (generation parameters)".into(),
    })?;
    if blocks.is_empty() {
        return Err(RegmapError::Empty { dir });
    }
    blocks.sort_by(|a, b| (a.aperture as u8, a.start, &a.name).cmp(&(b.aperture as u8, b.start, &b.name)));
    validate_generation(&mut blocks)?;
    validate_block_fit(&params, &blocks)?;
    Ok(RegMap { arch, params, blocks })
}

/// Load a generation from a directory of TOML files, with the common
/// blocks of `../common` beside it when that folder exists.
pub fn load_dir(arch: Arch, dir: &Path) -> Result<RegMap> {
    let toml = |d: &Path| -> Result<Vec<PathBuf>> {
        let rd = std::fs::read_dir(d).map_err(|source| RegmapError::Io { file: d.to_path_buf(), source })?;
        let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml")).collect();
        v.sort();
        Ok(v)
    };
    let mut paths = toml(dir)?;
    let common = match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.join("common"),
        None => dir.join("..").join("common"),
    };
    if common.is_dir() && dir.file_name().is_some_and(|n| n != "common") {
        paths.splice(0..0, toml(&common)?);
    }
    let mut files = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|source| RegmapError::Io { file: p.clone(), source })?;
        files.push((p, text));
    }
    from_sources(arch, &files)
}
