//! The firmware of `kernel-load` (`q7_dkl.S`, `nx_extinst.S`) and its
//! loadable kernels: the memory layouts they share with the scenario
//! (`[D]`), the builders, and the kernels' source.

use super::*;
use tpb_models::spec::{dkl, q7_kernels as k};

/// `[D]` A Q7 core's DRAM under `q7_dkl.S` (byte offsets): the mailbox the
/// SEQ writes, the shell's counters, the firmware-resident swap pointer,
/// the per-record call counts and load flags, the kernel_info_table.
pub mod q7_dram {
    pub const MB_GO: u32 = 0x00;
    pub const MB_INSN: u32 = 0x04;
    pub const MB_OPERAND: u32 = 0x08;
    pub const MB_DONE: u32 = 0x0c;
    pub const MB_RESULT: u32 = 0x10;
    pub const MB_RECORD: u32 = 0x14;
    pub const CNT_SERVED: u32 = 0x20;
    pub const CNT_MISSES: u32 = 0x24;
    pub const CNT_LOADS: u32 = 0x28;
    pub const CNT_WORDS: u32 = 0x2c;
    pub const CNT_NOSWAP: u32 = 0x30;
    /// Swap table device address low, high, records (CAYMAN/MARIANA).
    pub const SWAP_PTR: u32 = 0x40;
    pub const CALLS: u32 = 0x100;
    pub const LOADED: u32 = 0x200;
    /// The stack of a windowed kernel (`entry a1, 48` lowers it).
    pub const STACK: u32 = 0x4000;
    /// The kernel_info_table: its data-window VA (DIGEST §9).
    pub const TABLE: u32 = super::k::TABLE_VA - super::k::DATA_WINDOW;
}

/// `[D]` The SEQ's DRAM under `nx_extinst.S` (byte offsets).
pub mod seq_dram {
    pub const HANDED: u32 = 0x10;
    pub const OWN: u32 = 0x14;
    pub const DONE_AT: u32 = 0x18;
    pub const STREAM: u32 = 0x100;
    pub const LOG: u32 = 0x400;
    /// Bytes of a log entry: result, polls, record, core.
    pub const LOG_BYTES: u32 = 16;
    /// Instructions a stream may hold (its words end below the log).
    pub const MAX_STREAM: usize = 64;
}

/// The mailbox offsets as both programs' parameters.
fn mailbox(c: &mut Consts) {
    use q7_dram::*;
    for (n, v) in [("MB_GO", MB_GO), ("MB_INSN", MB_INSN), ("MB_OPERAND", MB_OPERAND), ("MB_DONE", MB_DONE), ("MB_RESULT", MB_RESULT), ("MB_RECORD", MB_RECORD)] {
        c.set(n, v);
    }
}

/// `q7_dkl.S` for a kernel_info_table of `records` records; `swap_regs`
/// the core-side address of the swap-table triple (0: the DRAM's).
pub fn q7_dkl(map: &RegMap, records: u32, swap_regs: u32) -> Result<Program, FirmwareError> {
    use q7_dram::*;
    if records > dkl::MAX_RECORDS {
        return Err(err("q7_dkl.S", format!("{records} kernel_info_table records, past the {} the DRAM layout holds", dkl::MAX_RECORDS)));
    }
    let mut c = Consts::default();
    mailbox(&mut c);
    c.set("RECORDS", records).set("TABLE", TABLE).set("CODE_WINDOW", k::CODE_WINDOW).set("DYN_WINDOW", k::DYN_WINDOW).set("DYN_IRAM", dkl::DYN_IRAM).set("SWAP_REGS", swap_regs);
    for (n, v) in [
        ("CNT_SERVED", CNT_SERVED),
        ("CNT_MISSES", CNT_MISSES),
        ("CNT_LOADS", CNT_LOADS),
        ("CNT_WORDS", CNT_WORDS),
        ("CNT_NOSWAP", CNT_NOSWAP),
        ("SWAP_PTR", SWAP_PTR),
        ("CALLS", CALLS),
        ("LOADED", LOADED),
        ("STACK", STACK),
    ] {
        c.set(n, v);
    }
    build_unit(map, "q7_dkl.S", &c)
}

/// `nx_extinst.S`: `direct` hands every instruction to a Q7 core (SUNDA),
/// otherwise only the ExtendedInst escape; `release_q7` as `nx_boot.S`.
pub fn nx_extinst(map: &RegMap, release_q7: bool, direct: bool) -> Result<Program, FirmwareError> {
    use seq_dram::*;
    let q0 = bar0_region(map, "q7[0].dram").ok_or_else(|| err("nx_extinst.S", "no BAR0 region q7[0].dram".into()))?;
    let q1 = bar0_region(map, "q7[1].dram").ok_or_else(|| err("nx_extinst.S", "no BAR0 region q7[1].dram".into()))?;
    let stride = q1.wrapping_sub(q0);
    if !stride.is_power_of_two() {
        return Err(err("nx_extinst.S", format!("the Q7 cores' BAR0 stride {stride:#x} is not a power of two")));
    }
    let mut c = Consts::default();
    mailbox(&mut c);
    c.set("RELEASE_Q7", u32::from(release_q7)).set("DIRECT", u32::from(direct)).set("EXT", u32::from(k::EXTENDED_INST));
    c.set("Q7_DRAM0", sys(q0)).set("STRIDE_SHIFT", stride.trailing_zeros());
    c.set("STREAM", STREAM).set("LOG", LOG).set("HANDED", HANDED).set("OWN", OWN).set("DONE_AT", DONE_AT);
    build_unit(map, "nx_extinst.S", &c)
}

/// One loadable kernel's body (`[D]`): result = ((operand << `shift`) +
/// `adds` × `add`) ^ its own funcVA. The funcVA comes from two `const16`s
/// at `<label>_rel` that the host's prelink patches (the relocations), so a
/// kernel run from anywhere but its prelinked VA returns a wrong result.
/// `windowed`: the windowed ABI (`entry a1, 48` … `retw`, called with
/// `callx8`, operand and result in a2), as the seeds' EXTRAM bytes begin
/// (seed 000 §3g); otherwise call0 (operand in a5, result in a6).
pub fn kernel_source(label: &str, shift: u32, add: i32, adds: u32, windowed: bool) -> String {
    let (entry, v, t, ret) = if windowed { ("    entry a1, 48\n", "a2", "a3", "retw") } else { ("", "a6", "a7", "ret") };
    let src = if windowed { "a2" } else { "a5" };
    let mut s = format!("{label}:\n{entry}    slli {v}, {src}, {shift}\n");
    for _ in 0..adds {
        s += &format!("    addi {v}, {v}, {add}\n");
    }
    s += &format!("{label}_rel:\n    const16 {t}, 0\n    const16 {t}, 0\n    xor {v}, {v}, {t}\n    {ret}\n{label}_end:\n");
    s
}

/// Assemble kernel sources (position-independent until prelinked) at 0.
pub fn kernels(src: &str) -> Result<Program, FirmwareError> {
    build_parts("kernel library", &[("kernel library", src)])
}
