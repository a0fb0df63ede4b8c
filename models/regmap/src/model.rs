//! The elaborated register map: what the loader produces after expanding
//! repeated registers, choosing the decoded address view and validating.
//! Every generator (RTL, HAL constants, C, Markdown, SystemRDL, JSON) reads
//! these types and nothing else.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A TPB generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// SUNDA (v2).
    Sunda,
    /// CAYMAN (v3).
    Cayman,
    /// MARIANA (v4).
    Mariana,
}

impl Arch {
    /// All generations, oldest first.
    pub const ALL: [Arch; 3] = [Arch::Sunda, Arch::Cayman, Arch::Mariana];

    /// Lower-case name as used on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sunda => "sunda",
            Arch::Cayman => "cayman",
            Arch::Mariana => "mariana",
        }
    }

    /// Parse a lower- or upper-case generation name.
    pub fn parse(s: &str) -> crate::Result<Arch> {
        match s.to_ascii_lowercase().as_str() {
            "sunda" => Ok(Arch::Sunda),
            "cayman" => Ok(Arch::Cayman),
            "mariana" => Ok(Arch::Mariana),
            _ => Err(crate::RegmapError::UnknownArch(s.to_string())),
        }
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How software and hardware see a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Read/write storage; hardware sees the value (`<reg>_<field>_o`).
    Rw,
    /// Read-only; hardware drives the value (`<reg>_<field>_i`); writes are ignored.
    Ro,
    /// Write-only storage; hardware sees the value; reads return 0.
    Wo,
    /// Status: hardware sets bits (`_set_i`), software writes 1 to clear.
    W1c,
    /// Software writes 1 to set bits; hardware clears them (`_clr_i`).
    W1s,
    /// Status: hardware sets bits (`_set_i`), a read returns and clears them.
    Rc,
    /// Write pulse: a write drives `_pulse_o` high for exactly one cycle with the
    /// written value on `_o` (held until the next write); reads return 0.
    Doorbell,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Rw => "rw",
            Access::Ro => "ro",
            Access::Wo => "wo",
            Access::W1c => "w1c",
            Access::W1s => "w1s",
            Access::Rc => "rc",
            Access::Doorbell => "doorbell",
        }
    }
    /// The field has flip-flops in the register block.
    pub fn is_stored(self) -> bool {
        !matches!(self, Access::Ro)
    }
    /// A bus read returns the field's value (otherwise 0).
    pub fn is_readable(self) -> bool {
        !matches!(self, Access::Wo | Access::Doorbell)
    }
}

/// Which address table a number belongs to (DIGEST §2.7 vs §2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// The device-side register spec (tpb_xt_local_reg bundle offsets).
    Device,
    /// The host HAL's flattened offsets.
    Hal,
}

impl View {
    pub fn name(self) -> &'static str {
        match self {
            View::Device => "device",
            View::Hal => "hal",
        }
    }
}

/// Provenance of a number: stated by the seeds, inferred, or our design choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tag {
    S,
    I,
    D,
}

/// Which BAR0 aperture a block's offsets are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aperture {
    /// The per-engine local-register aperture (`get_xt_local_reg_offset`).
    LocalReg,
    /// The TPB-level register aperture (`tpb_regs`).
    TpbRegs,
    /// The SEQ DMA engine's BAR0 window (`[bar0] seq_dma`): a hand-written block.
    SeqDma,
    /// The HW-decode CAM's window (`hw_decode_table_params`), on generations
    /// with a CAM: a hand-written block.
    HwDecode,
}

impl Aperture {
    /// Is a block in this aperture hand-written RTL (described by the map,
    /// not generated from it)?
    pub fn hand_written(self) -> bool {
        matches!(self, Aperture::SeqDma | Aperture::HwDecode)
    }
}

/// TPB engines (ISA enum values, DIGEST §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    Pe,
    Act,
    Pool,
    Dve,
    TpbSp,
    TopSp,
    /// The TPB itself (for the `tpb_regs` aperture).
    Tpb,
}

impl Engine {
    /// NEURON_ISA_TPB_NEURON_ENGINE_* value (`[S]` seed 000 §4a, seed 001 §1); None for the TPB itself.
    pub fn isa_id(self) -> Option<u32> {
        match self {
            Engine::Pe => Some(0),
            Engine::Act => Some(1),
            Engine::Pool => Some(2),
            Engine::Dve => Some(3),
            Engine::TpbSp => Some(4),
            Engine::TopSp => Some(5),
            Engine::Tpb => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Pe => "pe",
            Engine::Act => "act",
            Engine::Pool => "pool",
            Engine::Dve => "dve",
            Engine::TpbSp => "tpb_sp",
            Engine::TopSp => "top_sp",
            Engine::Tpb => "tpb",
        }
    }
}

/// A named value of a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumValue {
    pub name: String,
    pub value: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// A bit field of a register.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    pub name: String,
    pub lsb: u32,
    pub width: u32,
    pub access: Access,
    pub reset: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub enums: Vec<EnumValue>,
}

impl Field {
    pub fn msb(&self) -> u32 {
        self.lsb + self.width - 1
    }
    /// The field's bits within the 32-bit register word.
    pub fn mask(&self) -> u32 {
        (((1u64 << self.width) - 1) << self.lsb) as u32
    }
    /// All ones of the field's width.
    pub fn max(&self) -> u64 {
        (1u64 << self.width) - 1
    }
}

/// One 32-bit register, after repeat expansion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Register {
    /// Unique name within the block (`run_state_3`).
    pub name: String,
    /// Name before repeat expansion (`run_state`).
    pub group: String,
    /// Index within the repeat group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// The offset the RTL decodes (in the block's `rtl_view`).
    pub offset: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_offset: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hal_offset: Option<u32>,
    pub description: String,
    pub tag: Tag,
    pub source: String,
    pub fields: Vec<Field>,
    /// 1-based line of the definition in the map file.
    #[serde(skip)]
    pub line: usize,
}

impl Register {
    /// Offset in the given view, if the register has one there.
    pub fn offset_in(&self, view: View) -> Option<u32> {
        match view {
            View::Device => self.device_offset,
            View::Hal => self.hal_offset,
        }
    }
    /// Reset value of the whole word (readable and unreadable fields alike).
    pub fn reset_word(&self) -> u32 {
        self.fields.iter().fold(0, |acc, f| acc | ((f.reset as u32) << f.lsb))
    }
    /// Reset value as read over the bus.
    pub fn reset_read(&self) -> u32 {
        self.fields.iter().filter(|f| f.access.is_readable() && f.access != Access::Ro).fold(0, |acc, f| acc | ((f.reset as u32) << f.lsb))
    }
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// What a bus access to an array window does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowOp {
    Read,
    Set,
    Inc,
    Dec,
}

impl WindowOp {
    /// The operation as the maps spell it (`inc`).
    pub fn name(self) -> &'static str {
        match self {
            WindowOp::Read => "read",
            WindowOp::Set => "set",
            WindowOp::Inc => "inc",
            WindowOp::Dec => "dec",
        }
    }
}

/// One alias window over an array (e.g. EVT_SEM inc window).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub name: String,
    pub offset: u32,
    pub op: WindowOp,
}

/// An array of identical words reached through one or more alias windows
/// (the EVT_SEM semaphores). Implemented by a dedicated block, not by the
/// generic register-block generator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Array {
    pub name: String,
    pub count: u32,
    pub width: u32,
    pub stride: u32,
    pub reset: u64,
    pub implemented_by: String,
    pub windows: Vec<Window>,
    pub description: String,
    pub tag: Tag,
    pub source: String,
    #[serde(skip)]
    pub line: usize,
}

impl Array {
    pub fn window(&self, name: &str) -> Option<&Window> {
        self.windows.iter().find(|w| w.name == name)
    }
    /// Byte offset of element `index` in window `w`.
    pub fn addr(&self, w: &Window, index: u32) -> u32 {
        w.offset + index * self.stride
    }
}

/// A named register that is one element of an array window (a doorbell that is
/// in fact a semaphore SET, DIGEST §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Alias {
    pub name: String,
    pub array: String,
    pub window: String,
    pub index: u32,
    /// Resolved byte offset (window offset + index * stride).
    pub offset: u32,
    pub description: String,
    pub tag: Tag,
    pub source: String,
    #[serde(skip)]
    pub line: usize,
}

/// One register block of one generation (one map file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    pub name: String,
    pub arch: Arch,
    #[serde(skip)]
    pub file: PathBuf,
    /// The common block this generation's file changes (`extends`), if any.
    #[serde(skip)]
    pub extends: Option<PathBuf>,
    pub description: String,
    pub aperture: Aperture,
    pub engines: Vec<Engine>,
    /// Which view the RTL decodes.
    pub rtl_view: View,
    /// Decoded byte range `[start, end)` within the aperture.
    pub start: u32,
    pub end: u32,
    pub registers: Vec<Register>,
    pub arrays: Vec<Array>,
    pub aliases: Vec<Alias>,
}

impl Block {
    /// The file(s) the block is described in: its own, and the common block
    /// it changes (`models/regmap/maps/sunda/nx.toml over models/regmap/maps/common/nx.toml`).
    pub fn source_files(&self) -> String {
        match &self.extends {
            Some(c) => format!("{} over {}", self.file.display(), c.display()),
            None => self.file.display().to_string(),
        }
    }

    pub fn register(&self, name: &str) -> Option<&Register> {
        self.registers.iter().find(|r| r.name == name)
    }
    /// Register decoded at `offset` (RTL view).
    pub fn register_at(&self, offset: u32) -> Option<&Register> {
        self.registers.iter().find(|r| r.offset == offset)
    }
    /// Register at `offset` in the given view.
    pub fn register_at_view(&self, view: View, offset: u32) -> Option<&Register> {
        self.registers.iter().find(|r| r.offset_in(view) == Some(offset))
    }
    pub fn alias(&self, name: &str) -> Option<&Alias> {
        self.aliases.iter().find(|a| a.name == name)
    }
    pub fn array(&self, name: &str) -> Option<&Array> {
        self.arrays.iter().find(|a| a.name == name)
    }
    /// Does the generic register-block generator produce RTL for this block?
    /// (Not for a hand-written block: its RTL takes the map's constants.)
    pub fn has_register_rtl(&self) -> bool {
        !self.registers.is_empty() && !self.aperture.hand_written()
    }
    /// Module name of the generated register block (`cayman_q7_regs`).
    pub fn module_name(&self) -> String {
        format!("{}_{}_regs", self.arch.name(), self.name)
    }
}

/// All blocks and the generation parameters of one generation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegMap {
    pub arch: Arch,
    pub params: crate::params::ArchParams,
    pub blocks: Vec<Block>,
}

impl RegMap {
    pub fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name == name)
    }
    /// Blocks that contain a register or alias named `name`.
    pub fn find(&self, name: &str) -> Vec<(&Block, Option<&Register>, Option<&Alias>)> {
        let mut out = Vec::new();
        for b in &self.blocks {
            if let Some(r) = b.register(name) {
                out.push((b, Some(r), None));
            }
            if let Some(a) = b.alias(name) {
                out.push((b, None, Some(a)));
            }
        }
        out
    }
}
