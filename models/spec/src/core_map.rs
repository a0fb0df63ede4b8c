//! The `[D]` core-local address map: where a TPB core's DRAM is, and the
//! addresses a core reaches the top through (the co-simulation's core bus,
//! `tpb_cosim::sched`, routes them): the system window onto BAR0, the SoC
//! and HW-decode ports, the POOL control window and the address-translation
//! apertures.

/// `[D]` Core-local address of a TPB core's DRAM (its IRAM is at 0): the
/// behavioural core's map (`tpb_xtensa::config`) and the RTL memory ports
/// (`tpb_hdl::q7_cluster`) decode the same.
pub const DRAM_BASE: u32 = 0x1000_0000;

/// `[D]` Core-local window onto BAR0: core address `SYSTEM_WINDOW + a` is BAR0 address `a`.
pub const SYSTEM_WINDOW: u32 = 0x2000_0000;
/// `[D]` Size of [`SYSTEM_WINDOW`] (every BAR0 map of the three generations fits).
pub const SYSTEM_WINDOW_SIZE: u32 = 0x1000_0000;
/// `[D]` The SoC port: `+0` address low word, `+4` high word, `+8` data.
pub const SOC_PORT: u32 = 0x3fff_0000;
/// `[D]` The core interrupt line the top's `nx_irq` / `q7_irq` drive (level 1).
pub const IRQ_LINE: u32 = 0;
/// `[D]` The HW-decode port (CAYMAN/MARIANA): a core's word access here
/// drives the top's `hwd_*` lookup port. `+0` store: look up opcode
/// `[7:0]`, func `[15:8]` (the store waits until the CAM takes it); `+4`
/// load: the decode FIFO's head, bit 0 valid, bit 1 hit, `[15:8]` the CAM
/// entry, `[31:16]` the table index; `+8` load: the head's handler word, and
/// the head is popped (0 and no pop when the FIFO is empty). Anything else
/// faults, and so does the port on SUNDA (no CAM).
pub const HWD_PORT: u32 = 0x3ffe_0000;
/// `[D]` Size of the POOL control window (the SEQ's; its base is the
/// generation's `[boot] pool_control_window_base`, `[S]` seed 000 §4c).
pub const CTRL_WINDOW_SIZE: u32 = 0x1000;
/// `[D]` Where the Q7 bundle (DIGEST §2.8, POOL local-reg + 0x3000) starts in
/// the control window: at +0x0c its start_ctrl (bundle +0x04) falls on the
/// window's +0x10 and run_state_0 (+0x08) on +0x14, as SUNDA's (`[S]` seed 000 §4c)
/// start_ctrl 0x00100010 / run_state 0x00100014 put them; offsets below it
/// fault.
pub const CTRL_WINDOW_Q7_BUNDLE: u32 = 0x0c;
/// `[D]` The core addresses the SEQ and the Q7 cores reach through the top's
/// address translation (POOL's window bundle and `mem_window2`, whose
/// aperture `MEM_WINDOW2_BASE` is inside it): the top answers with a SoC
/// address a cycle later, which is routed as the SoC port routes (DIGEST §7);
/// no window: the access faults. Word accesses only; no fetches.
pub const XLAT_APERTURE: u32 = 0x4000_0000;
pub const XLAT_APERTURE_SIZE: u32 = 0x4000_0000;
/// `[D]` The core-side aperture `mem_window2` translates (POOL's NX, the
/// SEQ, only): `MEM_WINDOW2_BASE + off` → `mem_window2 + off` for `off <
/// MEM_WINDOW2_SIZE`, while `mem_window2` is not 0.
pub const MEM_WINDOW2_BASE: u32 = 0x4000_0000;
/// `[D]` The size of [`MEM_WINDOW2_BASE`]'s aperture.
pub const MEM_WINDOW2_SIZE: u32 = 0x0100_0000;
