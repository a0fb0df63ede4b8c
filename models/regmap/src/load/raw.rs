//! The raw form of a map file, as serde reads it, and where its bytes are.

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    pub(super) block: RawBlock,
    #[serde(default)]
    pub(super) register: Vec<Spanned<RawRegister>>,
    #[serde(default)]
    pub(super) array: Vec<Spanned<RawArray>>,
    #[serde(default)]
    pub(super) alias: Vec<Spanned<RawAlias>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBlock {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) aperture: Aperture,
    pub(super) engines: Vec<Engine>,
    pub(super) rtl_view: View,
    #[serde(default)]
    pub(super) start: u32,
    #[serde(default)]
    pub(super) end: u32,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawOffset {
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
pub(super) struct RawRepeat {
    pub(super) count: u32,
    pub(super) stride: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRegister {
    pub(super) name: String,
    pub(super) offset: RawOffset,
    pub(super) description: String,
    pub(super) tag: Tag,
    pub(super) source: String,
    #[serde(default)]
    pub(super) repeat: Option<RawRepeat>,
    /// Shorthand for a register with one field `value`.
    #[serde(default)]
    pub(super) access: Option<Access>,
    #[serde(default)]
    pub(super) reset: Option<u64>,
    #[serde(default)]
    pub(super) width: Option<u32>,
    #[serde(default)]
    pub(super) field: Vec<Spanned<RawField>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawField {
    pub(super) name: String,
    /// "msb:lsb" or "bit".
    pub(super) bits: String,
    pub(super) access: Access,
    #[serde(default)]
    pub(super) reset: u64,
    #[serde(default)]
    pub(super) description: String,
    #[serde(default, rename = "enum")]
    pub(super) enums: Vec<EnumValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawArray {
    pub(super) name: String,
    pub(super) count: u32,
    pub(super) width: u32,
    pub(super) stride: u32,
    #[serde(default)]
    pub(super) reset: u64,
    pub(super) implemented_by: String,
    pub(super) window: Vec<Window>,
    pub(super) description: String,
    pub(super) tag: Tag,
    pub(super) source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAlias {
    pub(super) name: String,
    pub(super) array: String,
    pub(super) window: String,
    pub(super) index: u32,
    pub(super) description: String,
    pub(super) tag: Tag,
    pub(super) source: String,
}

/// Turns byte spans into line:column for one file (or, for a block merged
/// from a common file and an overlay, for the file each line came from).
pub(super) struct Source<'a> {
    pub(super) file: &'a Path,
    pub(super) text: &'a str,
    pub(super) lines: Option<&'a crate::layer::LineMap>,
}

impl Source<'_> {
    pub(super) fn loc(&self, byte: usize) -> Loc {
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

pub(super) fn parse_bits(s: &str) -> Option<(u32, u32)> {
    let s = s.trim();
    if let Some((m, l)) = s.split_once(':') {
        let msb: u32 = m.trim().parse().ok()?;
        let lsb: u32 = l.trim().parse().ok()?;
        // `msb - lsb + 1` without overflow: "4294967295:0" is no field's bits.
        (msb >= lsb).then(|| (msb - lsb).checked_add(1).map(|w| (lsb, w))).flatten()
    } else {
        let b: u32 = s.parse().ok()?;
        Some((b, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_bits;

    #[test]
    fn bits_parse_without_overflow() {
        assert_eq!(parse_bits("7:0"), Some((0, 8)));
        assert_eq!(parse_bits(" 5 "), Some((5, 1)));
        assert_eq!(parse_bits("0:3"), None, "msb below lsb");
        // Found by the regmap fuzz target: the width overflowed.
        assert_eq!(parse_bits("4294967295:0"), None);
    }
}
