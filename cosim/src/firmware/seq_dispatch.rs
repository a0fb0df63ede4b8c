//! The SEQ's instruction dispatch (`nx_dispatch.S` and its two front ends):
//! the handler roster, the program, its DRAM tables and CAM records.

use super::*;

/// A handler of `nx_dispatch.S`: the opcode it takes; with `func`, it is
/// keyed on the func byte too, which only the HW-decode CAM can do (the
/// software paths key on the opcode), so it needs `cam`; `cam`: the HAL
/// programs it into the CAM (CAYMAN/MARIANA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchHandler {
    pub opcode: u8,
    #[serde(default)]
    pub func: Option<u8>,
    #[serde(default)]
    pub cam: bool,
}

/// `[D]` nx_dispatch.S's layout and numbers (its header comment).
pub mod dispatch {
    /// The handler number an instruction nothing takes is counted under.
    pub const UNKNOWN: u8 = 63;
    /// DRAM offsets.
    pub const BOOT_FLAG: u32 = 0x00;
    pub const HEAD: u32 = 0x04;
    pub const TAIL: u32 = 0x08;
    pub const DISPATCHED: u32 = 0x0c;
    pub const MISS_IRQS: u32 = 0x10;
    /// The interrupt handler's saved registers (six words).
    pub const SAVED: u32 = 0x20;
    pub const RING: u32 = 0x100;
    pub const TAKEN: u32 = 0x200;
    pub const SUMS: u32 = 0x300;
    pub const TABLES: u32 = 0x800;
    pub const LOG: u32 = 0x1000;
    /// The longest stream the log holds.
    pub const LOG_ENTRIES: u32 = 0x1000;
    /// Boot flag bits (CAYMAN/MARIANA): software fetch only ("Sunda-mode");
    /// a CAM miss takes the unknown-opcode interrupt instead of the software fetch.
    pub const SUNDA_MODE: u32 = 1;
    pub const MISS_IRQ: u32 = 2;
    /// The software fetch's opcode base and table entries (`[S]` seed 000 §4e: CAYMAN's `addi a2, a2, -65` and `movi a3, 177`).
    pub use tpb_models::spec::nx_dispatch::{OPCODE_BASE, SW_ENTRIES};
    /// SUNDA's segments of the normalised opcode: A = [0, SEG_A), B = [SEG_B_START, +SEG_B).
    pub const SEG_A: u32 = 16;
    pub const SEG_B_START: u32 = 0x1f;
    pub const SEG_B: u32 = 8;
    /// Where the front ends' tables sit (DRAM offsets).
    pub const TABLE_A: u32 = TABLES;
    pub const TABLE_B: u32 = TABLES + 0x80;

    tpb_spec::byte_code! {
        /// How an instruction reached its handler (the log's path byte), and
        /// its name in the scenario's values (`hw.table`, …).
        pub enum Path {
            /// A HW-decode CAM hit: the FIFO's handler word.
            Hw = 1 => "hw",
            /// A software table: the 178-entry table, or a SUNDA segment.
            Table = 2 => "table",
            /// A SUNDA raw-compare leaf.
            Leaf = 3 => "leaf",
            /// No handler on the software path.
            Unknown = 4 => "unknown",
            /// A CAM miss taken by the unknown-opcode interrupt.
            MissIrq = 5 => "miss_irq",
        }
    }
}

fn dispatch_check(handlers: &[DispatchHandler], ring: u32) -> Result<(), FirmwareError> {
    let f = "nx_dispatch.S";
    if handlers.len() >= usize::from(dispatch::UNKNOWN) {
        return Err(err(f, format!("{} handlers: at most {} (handler {} counts the unknown)", handlers.len(), dispatch::UNKNOWN, dispatch::UNKNOWN)));
    }
    if !ring.is_power_of_two() || !(2..=64).contains(&ring) {
        return Err(err(f, format!("ring of {ring} entries: a power of two, 2..=64 (it holds 0x100 bytes of 8-byte entries)")));
    }
    for (h, x) in handlers.iter().enumerate() {
        if x.func.is_some() && !x.cam {
            return Err(err(f, format!("handler {h} (opcode {:#04x}) is keyed on func: only the HW-decode CAM looks at func, so it needs cam = true", x.opcode)));
        }
        if let Some(k) = handlers[..h].iter().position(|y| y.func.is_none() && x.func.is_none() && y.opcode == x.opcode) {
            return Err(err(f, format!("handlers {k} and {h} both take opcode {:#04x}", x.opcode)));
        }
    }
    Ok(())
}

/// `nx_dispatch.S` with the generation's front end (`nx_decode_hw.S` on
/// CAYMAN/MARIANA, `nx_decode_sunda.S` on SUNDA) and a stub per handler
/// (`h_<n>`: a12 = n, then `count`); on SUNDA also the raw-compare leaves
/// for the handlers' opcodes outside its segments. `ring` queue entries.
pub fn nx_dispatch(map: &RegMap, handlers: &[DispatchHandler], ring: u32) -> Result<Program, FirmwareError> {
    use dispatch as d;
    dispatch_check(handlers, ring)?;
    let a = Addrs::new(map, "nx_dispatch.S");
    let mut c = Consts::default();
    c.set("TPB_ENTER_RUN", a.enter_run()).set("DRAM", DRAM_BASE).set("RING", ring).set("UNKNOWN", d::UNKNOWN.into());
    c.set("INST_DONE", sys(a.reg(Engine::Pool, "nx", "inst_done")?));
    c.set("USER_VECTOR", user_vector(&tpb_models::xtensa::config::CoreConfig::nx(&map.params)));
    c.set("PATH_HW", d::Path::Hw as u32).set("PATH_SW", d::Path::Table as u32).set("PATH_LEAF", d::Path::Leaf as u32);
    c.set("PATH_SW_UNKNOWN", d::Path::Unknown as u32).set("PATH_IRQ", d::Path::MissIrq as u32);
    c.set("OPCODE_BASE", d::OPCODE_BASE.into()).set("SW_LAST", d::SW_ENTRIES - 1);
    // The DRAM layout (the header comment of nx_dispatch.S).
    c.set_all([("BOOT_FLAG", d::BOOT_FLAG), ("HEAD", d::HEAD), ("TAIL", d::TAIL), ("DISPATCHED", d::DISPATCHED), ("MISS_IRQS", d::MISS_IRQS), ("SAVED", d::SAVED)]);
    c.set_all([("RING_AT", d::RING), ("TAKEN", d::TAKEN), ("SUMS", d::SUMS), ("LOG", d::LOG)]);
    let mut stubs: String = (0..handlers.len()).map(|n| format!("    .align 4\nh_{n}:\n    movi a12, {n}\n    j count\n")).collect();
    let front = if map.params.hw_decode.present {
        c.set("HWD_PORT", crate::sched::HWD_PORT).set("SW_TABLE", DRAM_BASE + d::TABLES);
        c.set("INTR_CTRL", sys(a.reg(Engine::Pool, "nx", "intr_ctrl")?));
        c.set("INTR_INFO", sys(a.reg(Engine::Pool, "nx", "intr_info")?));
        ("nx_decode_hw.S", NX_DECODE_HW)
    } else {
        c.set("SEG_A", d::SEG_A).set("SEG_B_START", d::SEG_B_START).set("SEG_B", d::SEG_B);
        c.set("TABLE_A", DRAM_BASE + d::TABLE_A).set("TABLE_B", DRAM_BASE + d::TABLE_B);
        let mut leaves = String::from("leaves:\n");
        let mut calls = String::new();
        for (h, x) in handlers.iter().enumerate().filter(|(_, x)| x.func.is_none()) {
            if sunda_segment(x.opcode).is_none() {
                leaves += &format!("    movi a8, {}\n    beq a7, a8, leaf_{h}\n", i32::from(x.opcode) - i32::from(d::OPCODE_BASE));
                calls += &format!("leaf_{h}:\n    movi a14, PATH_LEAF\n    call0 h_{h}\n    j next\n");
            }
        }
        leaves += "    j unknown\n";
        stubs = leaves + &calls + &stubs;
        ("nx_decode_sunda.S", NX_DECODE_SUNDA)
    };
    build_parts("nx_dispatch.S", &[("prelude", &c.prelude()), ("nx_trampoline.S", NX_TRAMPOLINE), ("nx_dispatch.S", NX_DISPATCH), front, ("handlers (generated)", &stubs)])
}

/// SUNDA: the segment table and slot an opcode's entry is in, if any.
pub fn sunda_segment(opcode: u8) -> Option<(u32, u32)> {
    use dispatch as d;
    let n = u32::from(opcode).wrapping_sub(d::OPCODE_BASE.into());
    if n < d::SEG_A {
        Some((d::TABLE_A, n))
    } else if (d::SEG_B_START..d::SEG_B_START + d::SEG_B).contains(&n) {
        Some((d::TABLE_B, n - d::SEG_B_START))
    } else {
        None
    }
}

/// The SEQ's DRAM image for `prog` (`nx_dispatch`): the boot flag and the
/// front end's software tables (IRAM addresses of the opcode-keyed
/// handlers; 0 where none).
pub fn dispatch_dram(map: &RegMap, prog: &Program, handlers: &[DispatchHandler], boot_flag: u32) -> Result<Vec<u8>, FirmwareError> {
    use dispatch as d;
    let mut m = vec![0u8; d::LOG as usize];
    m[..4].copy_from_slice(&boot_flag.to_le_bytes());
    for (h, x) in handlers.iter().enumerate().filter(|(_, x)| x.func.is_none()) {
        let at = handler_addr(prog, h)?;
        let slot = if map.params.hw_decode.present {
            let n = u32::from(x.opcode).wrapping_sub(d::OPCODE_BASE.into());
            (n < d::SW_ENTRIES).then_some(d::TABLES + 4 * n)
        } else {
            sunda_segment(x.opcode).map(|(t, n)| t + 4 * n)
        };
        if let Some(s) = slot {
            m[s as usize..s as usize + 4].copy_from_slice(&at.to_le_bytes());
        }
    }
    Ok(m)
}

/// What the HAL programs into the HW-decode CAM for `prog`: the handlers
/// with `cam`, func-keyed ones first (the lowest matching entry wins, so the
/// narrower key comes first); entry k's table index is its handler number,
/// whose table word is the handler's IRAM address.
pub fn dispatch_cam(prog: &Program, handlers: &[DispatchHandler]) -> Result<tpb_models::hal::HwDecodeTable, FirmwareError> {
    use tpb_models::hal::{CamRecord, HwDecodeTable};
    let mut order: Vec<usize> = (0..handlers.len()).filter(|&h| handlers[h].cam).collect();
    order.sort_by_key(|&h| handlers[h].func.is_none());
    let cam = order
        .iter()
        .map(|&h| {
            let x = handlers[h];
            CamRecord {
                valid: true,
                key_opcode: x.opcode,
                key_func: x.func.unwrap_or(0),
                mask_opcode: 0xff,
                mask_func: if x.func.is_some() { 0xff } else { 0 },
                table_index: h as u16,
            }
        })
        .collect();
    let mut table = vec![0u8; 4 * handlers.len()];
    for h in 0..handlers.len() {
        table[4 * h..4 * h + 4].copy_from_slice(&handler_addr(prog, h)?.to_le_bytes());
    }
    Ok(HwDecodeTable { cam, table })
}

fn handler_addr(prog: &Program, h: usize) -> Result<u32, FirmwareError> {
    prog.labels.get(&format!("h_{h}")).copied().ok_or_else(|| err("nx_dispatch.S", format!("no label h_{h}")))
}
