//! Loading a generation's map directory: parse each TOML file into the raw
//! format, elaborate it (repeat expansion, address views) and validate it
//! (alignment, field overflow, reset width, duplicates, overlaps in every
//! view and for every engine). A map is returned whole or not at all.

mod raw;
mod validate;

use crate::error::{Loc, RegmapError, Result};
use crate::model::*;
use crate::params::ArchParams;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

use raw::*;
pub use validate::parse_params;
use validate::*;

/// Parse and elaborate one block file. `text` is the file's content.
pub fn parse_block(arch: Arch, file: &Path, text: &str) -> Result<Block> {
    parse_block_from(arch, file, text, None)
}

/// Parse and elaborate one block, `lines` saying where each line of a
/// merged text came from (see `layer`).
fn parse_block_from(arch: Arch, file: &Path, text: &str, lines: Option<&crate::layer::LineMap>) -> Result<Block> {
    let src = Source { file, text, lines };
    let raw: RawFile = toml::from_str(text).map_err(|e| RegmapError::Parse { loc: src.loc(e.span().map(|s| s.start).unwrap_or(0)), message: e.message().to_string() })?;
    let b = raw.block;
    let block_loc = src.loc(0);
    let registers = registers(&src, &b, &raw.register)?;
    let arrays = arrays(&src, &b, &raw.array)?;
    let aliases = aliases(&src, &raw.alias);

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
        let access = r.access.ok_or_else(|| RegmapError::Invalid { loc: reg_loc.clone(), message: format!("register '{}' has neither fields nor an access type", r.name) })?;
        fields.push(Field { name: "value".into(), lsb: 0, width, access, reset: r.reset.unwrap_or(0), description: String::new(), enums: vec![] });
    } else {
        if r.access.is_some() || r.reset.is_some() {
            return Err(RegmapError::Invalid { loc: reg_loc.clone(), message: format!("register '{}': give access/reset per field when fields are listed", r.name) });
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
            fields.push(Field { name: f.name.clone(), lsb, width: fw, access: f.access, reset: f.reset, description: f.description.clone(), enums: f.enums.clone() });
            let fl = fields.last().unwrap();
            if fl.lsb + fl.width > width {
                return Err(RegmapError::FieldOverflow { loc, register: r.name.clone(), field: fl.name.clone(), lsb: fl.lsb, msb: fl.msb(), width });
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
            return Err(RegmapError::BadField { loc, register: r.name.clone(), field: f.name.clone(), message: "names must be lower-case identifiers ([a-z][a-z0-9_]*)".into() });
        }
    }
    Ok(fields)
}

/// The registers of a block, repeats expanded, each at its RTL view's offset.
fn registers(src: &Source, b: &RawBlock, raw: &[Spanned<RawRegister>]) -> Result<Vec<Register>> {
    let mut registers = Vec::new();
    for sr in raw {
        let loc = src.loc(sr.span().start);
        let r = sr.get_ref();
        let (count, stride) = match &r.repeat {
            Some(rep) if rep.count == 0 => return Err(RegmapError::Invalid { loc, message: format!("register '{}': repeat count is 0", r.name) }),
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
        let fields = elaborate_fields(src, &loc, r, width)?;
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
            .ok_or_else(|| RegmapError::MissingViewOffset { loc: loc.clone(), block: b.name.clone(), register: name.clone(), view: b.rtl_view.name().to_string() })?;
            if offset < b.start || offset + 4 > b.end {
                return Err(RegmapError::OutOfRange { loc: loc.clone(), block: b.name.clone(), register: name.clone(), offset, start: b.start, end: b.end });
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
    Ok(registers)
}

/// The arrays of a block (the EVT_SEM semaphores), their windows inside it.
fn arrays(src: &Source, b: &RawBlock, raw: &[Spanned<RawArray>]) -> Result<Vec<Array>> {
    let mut arrays = Vec::new();
    for sa in raw {
        let loc = src.loc(sa.span().start);
        let a = sa.get_ref();
        if a.width == 0 || a.width > 32 || a.count == 0 || a.stride < 4 || a.stride % 4 != 0 {
            return Err(RegmapError::Invalid { loc, message: format!("array '{}': needs 1..=32-bit width, count > 0 and a stride that is a multiple of 4", a.name) });
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
                return Err(RegmapError::OutOfRange { loc, block: b.name.clone(), register: format!("{}.{}", a.name, w.name), offset: w.offset, start: b.start, end: b.end });
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
    Ok(arrays)
}

/// The aliases of a block (offsets resolved later, against the generation's arrays).
fn aliases(src: &Source, raw: &[Spanned<RawAlias>]) -> Vec<Alias> {
    raw.iter()
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
        .collect()
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
    let params =
        params.ok_or_else(|| RegmapError::Invalid { loc: Loc { file: dir.join("arch.toml"), line: 1, col: 1 }, message: "missing arch.toml (generation parameters)".into() })?;
    if blocks.is_empty() {
        return Err(RegmapError::Empty { dir });
    }
    // A common block in a window this generation does not have (the
    // HW-decode CAM's on SUNDA) is not part of it; a generation's own
    // file there is an error (validate_block_fit).
    blocks.retain(|b| !(b.aperture == Aperture::HwDecode && !params.hw_decode.present && in_common(&b.file)));
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
