//! # The behavioural Xtensa core
//!
//! An instruction-set model of the cores around the TPB (NX sequencers,
//! TOP_SP, Q7, the scalar LX management core). The instruction set is one
//! table ([`isa::TABLE`]): decoding, the assembler ([`asm`]) and the
//! disassembler ([`disasm`]) read it, the executor ([`core`]) runs decoded
//! instructions. Options per core kind are data ([`config`]).

pub mod config;
pub mod disasm;
pub mod isa;

pub use config::Options;
pub use isa::{decode, Insn};
pub mod asm;
pub mod bus;
pub mod codecache;
pub mod core;
pub mod elf;
pub mod firmware;
pub mod predecode;

pub use self::core::{ArchState, Core, Retire, Step};
pub use bus::{Bus, BusError, MemorySpace, RegionSpec, Size};
pub use config::CoreConfig;
