//! The firmware units (`UNITS`) and the small programs: each builder sets
//! a program's parameters and assembles its source.

use super::*;

/// `nx_boot.S` for the map's generation (`release_q7`: the SEQ releases the Q7 cores).
pub fn nx_boot(map: &RegMap, release_q7: bool) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7));
    build_unit(map, "nx_boot.S", &c)
}

/// `nx_halt.S` for the map's generation (`release_q7`: the SEQ releases the Q7 cores).
pub fn nx_halt(map: &RegMap, release_q7: bool) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7));
    build_unit(map, "nx_halt.S", &c)
}

/// `nx_intr.S`: the SEQ takes `want` interrupts, then halts.
pub fn nx_intr(map: &RegMap, release_q7: bool, want: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7)).set("WANT", want);
    build_unit(map, "nx_intr.S", &c)
}

/// `q7_intr.S`: each core takes `want` interrupts, then halts.
pub fn q7_intr(map: &RegMap, want: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("WANT", want);
    build_unit(map, "q7_intr.S", &c)
}

/// `q7_kernels.S` with its 18 kernels (a stub each that counts itself).
pub fn q7_kernels(map: &RegMap) -> Result<Program, FirmwareError> {
    use tpb_models::spec::q7_kernels as k;
    let mut c = q7_consts(map);
    c.set_all(super::q7_kernels_out::ALL);
    c.set("DRAM", DRAM_BASE).set("TABLE", k::TABLE_VA - k::DATA_WINDOW).set("RECORDS", k::RECORDS).set("CODE_WINDOW", k::CODE_WINDOW).set("DONE", KERNELS_DONE);
    let mut kernels: String = (0..k::RECORDS).map(|n| format!("kernel_{n}:\n    movi a12, {n}\n    j count\n")).collect();
    kernels += "count:\n    slli a12, a12, 2\n    add a12, a12, a2\n    l32i a13, a12, CALLS\n    addi a13, a13, 1\n    s32i a13, a12, CALLS\n    memw\n    ret\n";
    build_parts("q7_kernels.S", &[("prelude", &c.prelude()), ("q7_kernels.S", Q7_KERNELS), ("kernels (generated)", &kernels)])
}

/// The kernel_info_table of `prog` (`q7_kernels`): record n is
/// {0, 0, spec 0, [`KERNEL_OPCODES`]\\[n\], funcVA = the code window + kernel_n}.
pub fn kernel_info_table(prog: &Program) -> Result<Vec<u8>, FirmwareError> {
    use tpb_models::spec::q7_kernels as k;
    let mut t = vec![0u8; (k::RECORDS * k::RECORD_BYTES) as usize];
    for (n, r) in t.chunks_mut(k::RECORD_BYTES as usize).enumerate() {
        let at = prog.labels.get(&format!("kernel_{n}")).ok_or_else(|| err("q7_kernels.S", format!("no label kernel_{n}")))?;
        r[k::OPCODE_AT] = KERNEL_OPCODES[n];
        r[k::FUNC_VA_AT..k::FUNC_VA_AT + 4].copy_from_slice(&(k::CODE_WINDOW + at).to_le_bytes());
    }
    Ok(t)
}
/// `nx_windows.S`: `stores` stores through `w0`, one through `mw2`.
pub fn nx_windows(map: &RegMap, release_q7: bool, w0: u32, mw2: u32, stores: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("RELEASE_Q7", u32::from(release_q7)).set("W0", w0).set("MW2", mw2).set("STORES", stores);
    build_unit(map, "nx_windows.S", &c)
}

/// `q7_windows.S`: one store to `w1`.
pub fn q7_windows(map: &RegMap, w1: u32) -> Result<Program, FirmwareError> {
    let mut c = Consts::default();
    c.set("W1", w1);
    build_unit(map, "q7_windows.S", &c)
}

/// `q7_halt.S`.
pub fn q7_halt(map: &RegMap) -> Result<Program, FirmwareError> {
    build_unit(map, "q7_halt.S", &Consts::default())
}

fn q7_consts(map: &RegMap) -> Consts {
    let mut c = Consts::default();
    c.set("RESET_JUMP", map.params.boot.q7_reset_jump.unwrap_or(0x200));
    c
}

/// `q7_sum.S`.
pub fn q7_sum(map: &RegMap) -> Result<Program, FirmwareError> {
    build_unit(map, "q7_sum.S", &Consts::default())
}

/// `q7_barrier.S` on the POOL EVT_SEM semaphores `arrive`, `depart` for `cores` cores.
pub fn q7_barrier(map: &RegMap, arrive: u32, depart: u32, cores: u32) -> Result<Program, FirmwareError> {
    let count = SemWindows::of(map).map_err(|x| err("q7_barrier.S", format!("{} map: {x}", map.arch.name())))?.count;
    if let Some(bad) = [arrive, depart].into_iter().find(|i| *i >= count) {
        return Err(err("q7_barrier.S", format!("semaphore {bad} is past the {count} of EVT_SEM")));
    }
    let mut c = Consts::default();
    c.set("ARRIVE", arrive).set("DEPART", depart).set("CORES", cores);
    build_unit(map, "q7_barrier.S", &c)
}

/// `top_sp_ccop.S`, waiting on semaphore `step_sem` of the TOP_SP's EVT_SEM.
pub fn top_sp_ccop(map: &RegMap, step_sem: u32) -> Result<Program, FirmwareError> {
    let count = SemWindows::of(map).map_err(|x| err("top_sp_ccop.S", format!("{} map: {x}", map.arch.name())))?.count;
    if step_sem >= count {
        return Err(err("top_sp_ccop.S", format!("semaphore {step_sem} is past the {count} of EVT_SEM")));
    }
    let mut c = Consts::default();
    c.set("STEP", step_sem);
    build_unit(map, "top_sp_ccop.S", &c)
}
