//! Named hardware/firmware/HAL constants that are not registers and not
//! per-generation parameters (those live in the register maps and in
//! `arch.toml`). Each carries its DIGEST section; the fidelity test pins them.

/// HAL `hal_target` value meaning "no architecture" (generic entry points refuse it). DIGEST §1.
pub const HAL_ARCH_TYPE_INVALID: u32 = 0;
/// `hal_target` 1 passes the HAL's range check but has no Q7 implementation. DIGEST §1.
pub const HAL_ARCH_TYPE_LEGACY: u32 = 1;

/// Per-arch dispatch-table slot offsets (kaena_khal). DIGEST §2.1.
pub mod khal_slot {
    pub const GET_Q7_PARAMS: u32 = 0xb8;
    pub const POOLING_INIT: u32 = 0x368;
    /// The write (`topsp_set_host_trigger`). CONFLICT resolved in seed 001 §0.
    pub const TOPSP_SET_HOST_TRIGGER: u32 = 0x708;
    /// The offset getter (`topsp_get_host_trigger_reg_offset`).
    pub const TOPSP_GET_HOST_TRIGGER_REG_OFFSET: u32 = 0x710;
}

/// `mem_write_buf` destination and length alignment in bytes. DIGEST §2.2.
pub const MEM_WRITE_BUF_ALIGN: u64 = 4;

/// al_hal_q7_owner values. DIGEST §2.3.
pub mod q7_owner {
    pub const POOLING: u32 = 2;
    pub const COMPUTE_CLUSTER: u32 = 5;
    /// HAL owner_idx -> owner (0 -> POOLING, 1 -> COMPUTE_CLUSTER).
    pub const BY_IDX: [u32; 2] = [POOLING, COMPUTE_CLUSTER];
}

/// Per-core Q7 DRAM on the CAYMAN device map: 256 KiB at base + n * stride. DIGEST §2.3 [S, cross-check].
pub const CAYMAN_Q7_CORE_DRAM_SOC_BASE: u64 = 0x28_0318_0000;
pub const CAYMAN_Q7_CORE_DRAM_SOC_STRIDE: u64 = 0x10_0000;
pub const CAYMAN_Q7_CORE_DRAM_BYTES: u64 = 256 * 1024;

/// The HAL's log/error messages, printf-style as in the seeds. DIGEST §2.4, §3.
pub mod msg {
    pub const INVALID_Q7_OWNER_V2: &str = "Invalid q7 owner %u for v2 (only pooling supported)";
    pub const INVALID_Q7_OWNER: &str = "Invalid q7 owner %u";
    pub const IRAM_TOO_BIG: &str = "IRAM ucode too big! doesn't fit, size=%lu";
    pub const DRAM_TOO_BIG: &str = "DRAM ucode too big! doesn't fit, size=%lu";
    pub const LOAD_DRAM_FAILED: &str = "Failed to load pooling q7 dram core %u";
    pub const LOAD_IRAM_FAILED: &str = "Failed to load pooling q7 iram core %u";
    pub const MEMCPY_FN_FAILED: &str = "memcpy_fn(%p) failed with %d";
    pub const CALLOC_FAILED: &str = "calloc failed! size=%lu";
    pub const TOPSP_SEMA_ALLOC_FAILED: &str = "Failed to allocate %d semaphores in TOP_SP #%d. There may be too many communicators";
}

/// Sub-blocks of the local-register aperture that no map models yet (the
/// modelled ones, nx/evt_sem/windows/q7, are the maps' `[block] start`).
/// DIGEST §2.8.
pub const UNMODELLED_LOCAL_REG_BLOCKS: [(&str, u32); 3] = [("hw_decode", 0x4000), ("tensor_replace", 0x5000), ("notific", 0x6000)];

/// Stride of the window bundle. DIGEST §2.8.
pub const WINDOW_BUNDLE_STRIDE: u32 = 0x1c;

/// The three notification classes the TPB arms (ERROR / EVT_SEM / INST). DIGEST §3, §2.9.
pub const NOTIFICATION_CLASSES: [&str; 3] = ["ERROR", "EVT_SEM", "INST"];

/// NX boot trampoline of SUNDA as (address, bytes, text). `[S]` seed 000 §4c (DIGEST §1).
/// CAYMAN differs only in the second const16 immediate (0x90).
pub const NX_BOOT_TRAMPOLINE_SUNDA: [(u32, [u8; 3], &str); 6] = [
    (0x000, [0x06, 0x76, 0x00], "j 0x1dc"),
    (0x006, [0x86, 0x77, 0x00], "j 0x1e8"),
    (0x1dc, [0x04, 0x00, 0x00], "const16 a0, 0"),
    (0x1df, [0x04, 0x94, 0x00], "const16 a0, 148"),
    (0x1e2, [0xa0, 0x00, 0x00], "jx a0"),
    (0x1e8, [0x00, 0x52, 0x00], "halt 0"),
];

/// DRAM `.globstruct` magic and the dispatcher-state init at DRAM+0x18. DIGEST §1.
pub const DRAM_GLOBSTRUCT_MAGIC: u32 = 0x6099_cb34;
pub const DRAM_DISPATCHER_STATE_OFFSET: u32 = 0x18;
pub const DRAM_DISPATCHER_STATE_INIT: [u32; 4] = [0x1000; 4];

/// The NX sequencers' software dispatch (DIGEST §4, seed 000 §4e/§4f):
/// CAYMAN+ normalise the opcode with `addi -65` (the 0x41 base) and bound
/// it with `movi 177` (a 178-entry table); SUNDA subtracts the same base
/// from a register (`sub`).
pub mod nx_dispatch {
    pub const OPCODE_BASE: u8 = 0x41;
    pub const SW_ENTRIES: u32 = 178;
}

/// SUNDA's Q7 kernel dispatch (DIGEST §9, seed 000 §3a, §3g).
pub mod q7_kernels {
    /// kernel_info_table: 18 records of 8 bytes {u8 0; u8 0; u8 spec; u8 opcode; u32 funcVA}.
    pub const RECORDS: u32 = 18;
    pub const RECORD_BYTES: u32 = 8;
    /// Byte offsets in a record: spec, opcode, funcVA.
    pub const SPEC_AT: usize = 2;
    pub const OPCODE_AT: usize = 3;
    pub const FUNC_VA_AT: usize = 4;
    /// The opcode range of the table (no 0xf0 escape on SUNDA).
    pub const FIRST_OPCODE: u8 = 0x41;
    pub const LAST_OPCODE: u8 = 0xe7;
    /// The table's VA in the device image (the data window).
    pub const TABLE_VA: u32 = 0x0200_0760;
    /// Image windows: code (RE), data (RWE), dyn (WE).
    pub const CODE_WINDOW: u32 = 0x0100_0000;
    pub const DATA_WINDOW: u32 = 0x0200_0000;
    pub const DYN_WINDOW: u32 = 0x0300_0000;
    /// SUNDA Q7_POOL flat IRAM image and EXTRAM image sizes.
    pub const FLAT_IRAM_BYTES: u32 = 0x42d0;
    pub const EXTRAM_BYTES: u32 = 0x1b40;
    /// `[S]` seed 000 §3g: the EXTRAM image's head bytes, `entry a1, 48`
    /// (windowed-ABI code from its first instruction).
    pub const EXTRAM_HEAD: [u8; 3] = [0x36, 0x61, 0x00];
    /// `[S]` seed 000 §2d: the ExtendedInst escape the SEQ hands to a Q7
    /// core, CAYMAN on; absent from SUNDA's images (its header declares it,
    /// seed 000 §2's CORRECTION).
    pub const EXTENDED_INST: u8 = 0xf0;
}

/// Dynamic kernel load (`kernel-load`; seed 004 §5, seed 000 §3f/§3g): the
/// places and record shapes are ours (`[D]`), the seeds give the mechanism
/// (SUNDA: a swap-table triple in `nx_rsvd_space0..2` and an EXTRAM image;
/// CAYMAN/MARIANA: firmware-resident, the HAL hooks are stubs).
pub mod dkl {
    /// `[D]` The dyn window's IRAM home: dyn VA `DYN_WINDOW + o` is IRAM
    /// `DYN_IRAM + o` (above SUNDA's flat image; it stands in for CAYMAN's
    /// reserved IRAM tail, which the cores' port does not reach).
    pub const DYN_IRAM: u32 = 0x8000;
    /// `[D]` Bytes the dyn window holds.
    pub const DYN_BYTES: u32 = 0x8000;
    /// `[D]` Device addresses the host stages at: the kernel library (the
    /// prelinked device image), the EXTRAM image, the swap table.
    pub const LIB_BASE: u64 = 0x3000_0000;
    pub const EXTRAM_BASE: u64 = 0x3100_0000;
    pub const SWAP_TABLE: u64 = 0x3200_0000;
    /// `[D]` A swap record: {u32 funcVA (dyn window), u32 source low, u32
    /// source high (a device address), u32 bytes | windowed << 31}
    /// (windowed: the kernel is called with `callx8`).
    pub const SWAP_RECORD_BYTES: u32 = 16;
    /// `[D]` Records a table may hold (kernel_info_table and swap table alike).
    pub const MAX_RECORDS: u32 = 32;
}
