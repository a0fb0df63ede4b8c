//! Core configurations: which ISA options a core has, its reset vector,
//! vectors and memory map, as data (DIGEST §1, §8).

use serde::{Deserialize, Serialize};
use tpb_regmap::ArchParams;

/// ISA options that switch instructions on or off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub code_density: bool,
    pub windowed: bool,
    pub const16: bool,
    pub loops: bool,
    /// MULL (32-bit multiply, low word).
    pub mul32: bool,
    /// MULUH / MULSH.
    pub mul32_high: bool,
    pub mul16: bool,
    /// QUOU/QUOS/REMU/REMS.
    pub div32: bool,
    /// NSA / NSAU.
    pub nsa: bool,
    /// MIN/MAX/MINU/MAXU.
    pub minmax: bool,
    pub sext: bool,
    pub clamps: bool,
    /// The vendor HALT (`00 52 00` = halt 0, DIGEST §8).
    pub halt: bool,
    /// The debug option's BREAK / BREAK.N.
    pub debug: bool,
    /// SIMCALL (simulator semihosting).
    pub simcall: bool,
    /// L32AI / S32RI / S32C1I (multiprocessor sync).
    pub mp_sync: bool,
    /// Region-protection TLB instructions (IDTLB, WITLB, ...).
    pub region_protection: bool,
    /// RER / WER (external registers).
    pub ext_regs: bool,
    /// Physical address registers (16 without windows; 32 or 64 with).
    pub num_aregs: u8,
    /// Highest interrupt level (RSIL/WAITI/RFI range and EPCn/EPSn registers).
    pub interrupt_levels: u8,
    /// Special registers RSR may read, WSR may write, XSR may exchange
    /// (an access outside these lists is an illegal instruction).
    pub sr_read: Vec<u8>,
    pub sr_write: Vec<u8>,
    pub sr_exchange: Vec<u8>,
}

/// Special-register numbers and names (Xtensa ISA).
pub mod sr {
    pub const LBEG: u8 = 0;
    pub const LEND: u8 = 1;
    pub const LCOUNT: u8 = 2;
    pub const SAR: u8 = 3;
    pub const LITBASE: u8 = 5;
    pub const WINDOWBASE: u8 = 72;
    pub const WINDOWSTART: u8 = 73;
    pub const IBREAKENABLE: u8 = 96;
    pub const DDR: u8 = 104;
    pub const IBREAKA0: u8 = 128;
    pub const CONFIGID0: u8 = 176;
    pub const EPC1: u8 = 177;
    pub const EPC2: u8 = 178;
    pub const DEPC: u8 = 192;
    pub const EPS2: u8 = 194;
    pub const EXCSAVE1: u8 = 209;
    pub const INTERRUPT: u8 = 226;
    pub const INTCLEAR: u8 = 227;
    pub const INTENABLE: u8 = 228;
    pub const PS: u8 = 230;
    pub const VECBASE: u8 = 231;
    pub const EXCCAUSE: u8 = 232;
    pub const DEBUGCAUSE: u8 = 233;
    pub const CCOUNT: u8 = 234;
    pub const PRID: u8 = 235;
    pub const ICOUNT: u8 = 236;
    pub const ICOUNTLEVEL: u8 = 237;
    pub const EXCVADDR: u8 = 238;
    pub const CCOMPARE0: u8 = 240;

    /// Name of a special register as the disassembler prints it; `INTERRUPT`
    /// reads as `interrupt` and writes as `intset`.
    pub fn name(n: u8, write: bool) -> Option<&'static str> {
        Some(match n {
            0 => "lbeg",
            1 => "lend",
            2 => "lcount",
            3 => "sar",
            4 => "br",
            5 => "litbase",
            12 => "scompare1",
            72 => "windowbase",
            73 => "windowstart",
            89 => "mmid",
            96 => "ibreakenable",
            97 => "memctl",
            104 => "ddr",
            128 => "ibreaka0",
            129 => "ibreaka1",
            144 => "dbreaka0",
            160 => "dbreakc0",
            177 => "epc1",
            178 => "epc2",
            179 => "epc3",
            180 => "epc4",
            181 => "epc5",
            182 => "epc6",
            183 => "epc7",
            192 => "depc",
            194 => "eps2",
            195 => "eps3",
            196 => "eps4",
            197 => "eps5",
            198 => "eps6",
            199 => "eps7",
            209 => "excsave1",
            210 => "excsave2",
            211 => "excsave3",
            212 => "excsave4",
            213 => "excsave5",
            214 => "excsave6",
            215 => "excsave7",
            224 => "cpenable",
            226 => {
                if write {
                    "intset"
                } else {
                    "interrupt"
                }
            }
            227 => "intclear",
            228 => "intenable",
            230 => "ps",
            231 => "vecbase",
            232 => "exccause",
            233 => "debugcause",
            234 => "ccount",
            235 => "prid",
            236 => "icount",
            237 => "icountlevel",
            238 => "excvaddr",
            240 => "ccompare0",
            241 => "ccompare1",
            242 => "ccompare2",
            244 => "misc0",
            245 => "misc1",
            _ => return None,
        })
    }

    /// Number of a named special register (either spelling of INTERRUPT).
    pub fn number(name: &str) -> Option<u8> {
        if name == "intset" || name == "interrupt" {
            return Some(INTERRUPT);
        }
        (0..=255u8).find(|&n| self::name(n, false) == Some(name))
    }
}

impl Options {
    /// The options of the TPB's cores (NX sequencers, TOP_SP, Q7, the scalar
    /// LX management core): everything DIGEST §1/§7/§8 shows them using.
    pub fn tpb() -> Options {
        use sr::*;
        let common = [
            LBEG,
            LEND,
            LCOUNT,
            SAR,
            WINDOWBASE,
            WINDOWSTART,
            EPC1,
            EPC2,
            EPC2 + 1,
            DEPC,
            EPS2,
            EPS2 + 1,
            EXCSAVE1,
            EXCSAVE1 + 1,
            EXCSAVE1 + 2,
            INTENABLE,
            PS,
            VECBASE,
            EXCCAUSE,
            CCOUNT,
            EXCVADDR,
            CCOMPARE0,
        ];
        Options {
            code_density: true,
            windowed: true,
            const16: true,
            loops: true,
            mul32: true,
            mul32_high: true,
            mul16: true,
            div32: true,
            nsa: true,
            minmax: true,
            sext: true,
            clamps: true,
            halt: true,
            debug: true,
            simcall: true,
            mp_sync: false,
            region_protection: false,
            ext_regs: false,
            num_aregs: 64,
            interrupt_levels: 3,
            sr_read: [&common[..], &[INTERRUPT, PRID]].concat(),
            sr_write: [&common[..], &[INTERRUPT, INTCLEAR]].concat(),
            sr_exchange: common.to_vec(),
        }
    }

    /// The option set of Debian's `binutils-xtensa-lx106` (the objdump oracle):
    /// base ISA + code density, MUL32/MUL16, no windows, loops, CONST16 or HALT.
    pub fn lx106() -> Options {
        // Read off the oracle itself: which RSR/WSR/XSR numbers its objdump decodes.
        let x: Vec<u8> = vec![3, 5, 96, 104, 128, 144, 160, 177, 178, 179, 192, 194, 195, 209, 210, 211, 228, 230, 231, 232, 233, 234, 236, 237, 238, 240];
        let mut r = x.clone();
        r.extend([176, 208, 226, 235]);
        let mut w = x.clone();
        w.extend([89, 176, 226, 227]);
        Options {
            code_density: true,
            windowed: false,
            const16: false,
            loops: false,
            mul32: true,
            mul32_high: false,
            mul16: true,
            div32: false,
            nsa: true,
            minmax: false,
            sext: false,
            clamps: false,
            halt: false,
            debug: true,
            simcall: true,
            mp_sync: false,
            region_protection: true,
            ext_regs: true,
            num_aregs: 16,
            interrupt_levels: 3,
            sr_read: r,
            sr_write: w,
            sr_exchange: x,
        }
    }
}

/// Exception vector offsets from VECBASE (the ISA's relocatable-vector layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vectors {
    pub window_overflow4: u32,
    pub window_underflow4: u32,
    pub window_overflow8: u32,
    pub window_underflow8: u32,
    pub window_overflow12: u32,
    pub window_underflow12: u32,
    pub kernel: u32,
    pub user: u32,
    pub double: u32,
}

impl Default for Vectors {
    fn default() -> Self {
        Vectors {
            window_overflow4: 0x000,
            window_underflow4: 0x040,
            window_overflow8: 0x080,
            window_underflow8: 0x0c0,
            window_overflow12: 0x100,
            window_underflow12: 0x140,
            kernel: 0x300,
            user: 0x340,
            double: 0x3c0,
        }
    }
}

/// One kind of core: options, reset vector, vectors and memory map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreConfig {
    pub name: String,
    pub options: Options,
    pub reset_vector: u32,
    /// VECBASE after reset.
    pub vecbase: u32,
    pub vectors: Vectors,
    /// Misaligned loads/stores raise LoadStoreAlignment (else the bus sees them).
    pub unaligned_exception: bool,
    /// PRID (core id) after reset.
    pub prid: u32,
    pub memory: Vec<super::bus::RegionSpec>,
}

fn ram(name: &str, base: u32, size: u32) -> super::bus::RegionSpec {
    super::bus::RegionSpec { name: name.into(), base, size, kind: super::bus::RegionKind::Ram }
}

fn csr(name: &str, base: u32, size: u32) -> super::bus::RegionSpec {
    super::bus::RegionSpec { name: name.into(), base, size, kind: super::bus::RegionKind::Csr }
}

use tpb_spec::core_map::CTRL_WINDOW_SIZE;
pub use tpb_spec::core_map::DRAM_BASE;

fn control(p: &ArchParams) -> Vec<super::bus::RegionSpec> {
    p.boot.pool_control_window_base.map(|b| csr("pool_control", b, CTRL_WINDOW_SIZE)).into_iter().collect()
}

impl CoreConfig {
    /// An NX sequencer (SEQ of an engine) of the generation `p`: reset at 0
    /// (the trampoline of DIGEST §1), IRAM at 0 and DRAM at 0x10000000 (`[D]`,
    /// sized as the SEQ memories of the BAR0 map), vectors at 0x400 (`[D]`),
    /// the POOL control window where `arch.toml` gives it.
    pub fn nx(p: &ArchParams) -> CoreConfig {
        let mut memory = vec![ram("iram", 0, p.bar0.seq_iram.size as u32), ram("dram", DRAM_BASE, p.bar0.seq_dram.size as u32)];
        memory.extend(control(p));
        CoreConfig { name: "nx".into(), options: Options::tpb(), reset_vector: 0, vecbase: 0x400, vectors: Vectors::default(), unaligned_exception: true, prid: 0, memory }
    }

    /// The TOP_SP collective sequencer: an NX core (`[D]` same map).
    pub fn top_sp(p: &ArchParams) -> CoreConfig {
        CoreConfig { name: "top_sp".into(), ..CoreConfig::nx(p) }
    }

    /// A Q7 core: reset vector at 0 (its `j` goes to `boot.q7_reset_jump`:
    /// 0x220 SUNDA, 0x200 CAYMAN, `[S]` seed 000 §4c); IRAM at 0 and DRAM at 0x10000000 with
    /// the generation's pooling sizes (DIGEST §2.3), `[D]` addresses.
    pub fn q7(p: &ArchParams, core: u32) -> CoreConfig {
        let (iram, dram) = (p.q7.pooling.iram_size as u32, p.q7.pooling.dram_size as u32);
        let mut memory = vec![ram("iram", 0, iram), ram("dram", DRAM_BASE, dram)];
        memory.extend(control(p));
        CoreConfig {
            name: format!("q7[{core}]"),
            options: Options::tpb(),
            reset_vector: 0,
            vecbase: 0x400,
            vectors: Vectors::default(),
            unaligned_exception: true,
            prid: core,
            memory,
        }
    }

    /// The scalar LX management core that runs the NCFW firmware (DIGEST §7).
    pub fn lx(p: &ArchParams) -> CoreConfig {
        CoreConfig { name: "lx".into(), ..CoreConfig::nx(p) }
    }

    /// The `de212` core of `qemu-system-xtensa -M sim` (the execution
    /// oracle): reset 0x50000000 (sysrom), VECBASE 0x60000000, dataram
    /// 0x3ffe0000, instram 0x40000000, sysrom, sysram 0x60000000.
    pub fn qemu_de212() -> CoreConfig {
        // core-de212/core-isa.h: 32 AREGS, no MUL32_HIGH, no CONST16, no HALT.
        let mut options = Options::tpb();
        options.const16 = false;
        options.halt = false;
        options.mul32_high = false;
        options.num_aregs = 32;
        CoreConfig {
            name: "de212".into(),
            options,
            reset_vector: 0x5000_0000,
            vecbase: 0x6000_0000,
            vectors: Vectors::default(),
            unaligned_exception: true,
            prid: 0,
            memory: vec![
                ram("dataram0", 0x3ffe_0000, 0x20000),
                ram("instram0", 0x4000_0000, 0x20000),
                ram("sysrom0", 0x5000_0000, 0x0100_0000),
                ram("sysram0", 0x6000_0000, 0x0100_0000),
            ],
        }
    }
}
