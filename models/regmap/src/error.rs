//! One error enum for loading and validating register maps. Every variant
//! names the file and, where one exists, the line, register and field.

use std::path::PathBuf;

/// Result alias for this crate.
pub type Result<T> = std::result::Result<T, RegmapError>;

/// Where in a map file something was found (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// Everything that can be wrong with a register map.
#[derive(Debug, thiserror::Error)]
pub enum RegmapError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{loc}: {message}")]
    Parse { loc: Loc, message: String },
    #[error("unknown architecture '{0}' (expected one of: sunda, cayman, mariana)")]
    UnknownArch(String),
    #[error("{loc}: register '{register}': offset {offset:#x} is not 4-byte aligned")]
    Misaligned { loc: Loc, register: String, offset: u32 },
    #[error("{loc}: register '{register}' has no {view} offset, but block '{block}' decodes the {view} view")]
    MissingViewOffset { loc: Loc, block: String, register: String, view: String },
    #[error("{loc}: register '{register}' at {offset:#x} lies outside block '{block}' range {start:#x}..{end:#x}")]
    OutOfRange { loc: Loc, block: String, register: String, offset: u32, start: u32, end: u32 },
    #[error("{loc}: register '{register}' field '{field}': bits [{msb}:{lsb}] exceed the {width}-bit register")]
    FieldOverflow { loc: Loc, register: String, field: String, lsb: u32, msb: u32, width: u32 },
    #[error("{loc}: register '{register}' field '{field}': reset value {reset:#x} does not fit in {width} bit(s)")]
    ResetTooWide { loc: Loc, register: String, field: String, reset: u64, width: u32 },
    #[error("{loc}: register '{register}': fields '{a}' and '{b}' overlap")]
    FieldOverlap { loc: Loc, register: String, a: String, b: String },
    #[error("{loc}: register '{register}' field '{field}': {message}")]
    BadField { loc: Loc, register: String, field: String, message: String },
    #[error("{loc}: duplicate name '{name}' (first defined at {first})")]
    Duplicate { loc: Loc, name: String, first: Loc },
    #[error("{loc}: '{a}' ({view} view {a_start:#x}..{a_end:#x}) overlaps '{b}' at {b_loc} ({b_start:#x}..{b_end:#x}) for engine {engine}")]
    Overlap { loc: Loc, view: String, engine: String, a: String, a_start: u32, a_end: u32, b: String, b_loc: Loc, b_start: u32, b_end: u32 },
    #[error("{loc}: alias '{alias}': {message}")]
    BadAlias { loc: Loc, alias: String, message: String },
    #[error("{loc}: {message}")]
    Invalid { loc: Loc, message: String },
    #[error("{dir}: no block files (*.toml besides arch.toml) found")]
    Empty { dir: PathBuf },
}

impl RegmapError {
    /// The location the error points at, when it has one.
    pub fn loc(&self) -> Option<&Loc> {
        use RegmapError::*;
        match self {
            Parse { loc, .. }
            | Misaligned { loc, .. }
            | MissingViewOffset { loc, .. }
            | OutOfRange { loc, .. }
            | FieldOverflow { loc, .. }
            | ResetTooWide { loc, .. }
            | FieldOverlap { loc, .. }
            | BadField { loc, .. }
            | Duplicate { loc, .. }
            | Overlap { loc, .. }
            | BadAlias { loc, .. }
            | Invalid { loc, .. } => Some(loc),
            Io { .. } | UnknownArch(_) | Empty { .. } => None,
        }
    }
}
