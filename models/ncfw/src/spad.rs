//! The TOP_SP collective program (DIGEST §6, seed 001 §5).
//!
//! **CTRL SPAD**: an array of 8-byte [`SpadCtrlEntry`] (`spad_ctrl_entry`):
//! byte 0 bit 0 cc_op active; byte 1 bits \[3:0\] algo_type, \[6:4\]
//! algo_sub_type, bit 7 trigger_next; byte 2 bit 0 reporter, bit 1
//! ring_wait_complete, bit 2 ring_send_complete, bit 3 safe_mode, bit 4
//! unique_tensors; byte 3 reserved; bytes 4..8 a union of `channel_list`
//! (ring/kangaring) or `sema_shift_offset`, `sema_mask` (mesh).
//!
//! **CONFLICT** (the seeds, unresolved there): the struct declaration puts
//! ring_wait_complete at byte 2 bit 1 and ring_send_complete at bit 2; the
//! decompiled packer writes `(ring_wait_complete << 2) | (ring_send_complete << 1)`
//! and calls bit 3 `permute_chain`. This model follows the **struct
//! declaration** (what the firmware decoder reads); the test
//! `byte2_follows_the_struct_declaration` pins it.
//!
//! **SLOT SPAD** (`[D]`: the seeds give the marks' log lines, not their
//! bytes): a list of 8-byte words, [`SlotWord`]: a STEP
//! `{kind 1, repeat u8, m2s u16, s2m u16, reserved u16}` (`tp_inc_steps`),
//! a CONTINUE mark `{kind 2}` (go on with the next CTRL entry), or an END
//! mark `{kind 3, count u8, sema_bits u16}` followed by `count` u64
//! completion addresses. All completion addresses must share the same
//! semaphore bits (the seeds assert it); [`TPB_COMPL_ADDR_MAX_NUM`] bounds the count.

use super::{le, put_le, PackError};
use serde::{Deserialize, Serialize};

tpb_spec::byte_code! {
    /// `enc_alg_type` (the algo_type nibble; `[S]` seed 003 §5).
    #[derive(Hash, Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum AlgType {
        Ring = 0,
        Hier = 1,
        Mesh = 2,
        Kangaring = 3,
        SingleCycleRing = 4,
        IntraRdh = 5,
        SingleStepMesh = 6,
        InterRdh = 7,
        TwoStepPodMesh = 8,
        LatencyOptMesh = 9,
        BwOptMesh = 10,
        Invalid = 11,
    }
}

impl AlgType {
    /// The five algo_types that drive the mesh event tape (seed 003 §5).
    pub fn is_mesh(self) -> bool {
        matches!(self, AlgType::Mesh | AlgType::SingleStepMesh | AlgType::TwoStepPodMesh | AlgType::LatencyOptMesh | AlgType::BwOptMesh)
    }
}

tpb_spec::byte_code! {
    /// `enc_alg_mesh_type` (the algo_sub_type of mesh entries; `[S]` seed 003 §5).
    #[derive(Hash, Serialize, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum MeshSubType {
        FullMesh = 0,
        GroupedMesh = 1,
        MeshTrn2 = 2,
        MeshSwitch = 3,
        MeshInvalid = 4,
    }
}

/// The union at bytes 4..8, chosen by algo_type (mesh family → `Mesh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcOpTarget {
    /// Ring / kangaring: OR of `1 << abs_id` of the channels this TOP_SP owns.
    ChannelList(u32),
    Mesh {
        sema_shift_offset: u16,
        sema_mask: u16,
    },
}

/// One `spad_ctrl_entry` (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpadCtrlEntry {
    pub cc_op: bool,
    pub algo_type: AlgType,
    /// 3 bits; for mesh algo_types an `enc_alg_mesh_type` ([`MeshSubType`]).
    pub algo_sub_type: u8,
    pub trigger_next: bool,
    pub reporter: bool,
    pub ring_wait_complete: bool,
    pub ring_send_complete: bool,
    pub safe_mode: bool,
    pub unique_tensors: bool,
    pub target: CcOpTarget,
}

impl SpadCtrlEntry {
    pub const BYTES: usize = 8;

    /// An active reporter entry of algo_type MESH (sub-type FULL_MESH) whose
    /// SIGNAL value is 1 (`1 << sema_shift_offset` with offset 0), masked by `sema_mask`.
    pub fn mesh(sema_mask: u16) -> SpadCtrlEntry {
        SpadCtrlEntry {
            cc_op: true,
            algo_type: AlgType::Mesh,
            algo_sub_type: 0,
            trigger_next: false,
            reporter: true,
            ring_wait_complete: false,
            ring_send_complete: false,
            safe_mode: false,
            unique_tensors: false,
            target: CcOpTarget::Mesh { sema_shift_offset: 0, sema_mask },
        }
    }

    /// The packer's header half-word: `(trigger_next << 15) | (algo_sub_type << 12) | (algo_type << 8) | cc_op`.
    pub fn header_word(&self) -> u16 {
        ((self.trigger_next as u16) << 15) | (((self.algo_sub_type & 7) as u16) << 12) | ((self.algo_type as u16) << 8) | self.cc_op as u16
    }

    /// Device bytes. Fails if algo_sub_type does not fit its 3 bits or the
    /// union does not match the algo_type's family.
    pub fn pack(&self) -> Result<[u8; 8], PackError> {
        if self.algo_sub_type > 7 {
            return Err(PackError::Invalid { what: "spad_ctrl_entry", message: format!("algo_sub_type {} does not fit 3 bits", self.algo_sub_type) });
        }
        let mut b = [0u8; 8];
        put_le(&mut b, 0, 2, self.header_word() as u64);
        b[2] = self.reporter as u8 | (self.ring_wait_complete as u8) << 1 | (self.ring_send_complete as u8) << 2 | (self.safe_mode as u8) << 3 | (self.unique_tensors as u8) << 4;
        match (self.algo_type.is_mesh(), self.target) {
            (false, CcOpTarget::ChannelList(c)) => put_le(&mut b, 4, 4, c as u64),
            (true, CcOpTarget::Mesh { sema_shift_offset, sema_mask }) => {
                put_le(&mut b, 4, 2, sema_shift_offset as u64);
                put_le(&mut b, 6, 2, sema_mask as u64);
            }
            (mesh, t) => {
                return Err(PackError::Invalid {
                    what: "spad_ctrl_entry",
                    message: format!("algo_type {:?} ({}) cannot carry {t:?}", self.algo_type, if mesh { "mesh" } else { "ring" }),
                })
            }
        }
        Ok(b)
    }

    /// Parse device bytes; reserved bits must be zero.
    pub fn unpack(b: &[u8]) -> Result<SpadCtrlEntry, PackError> {
        if b.len() != 8 {
            return Err(PackError::Length { what: "spad_ctrl_entry", expected: 8, got: b.len() });
        }
        let bad = |m: String| PackError::Invalid { what: "spad_ctrl_entry", message: m };
        if b[0] & !1 != 0 || b[2] & !0x1f != 0 || b[3] != 0 {
            return Err(bad(format!("reserved bits set in {b:02x?}")));
        }
        let algo_type = AlgType::from_byte(b[1] & 0xf).ok_or_else(|| bad(format!("algo_type {} is not an enc_alg_type", b[1] & 0xf)))?;
        let target = if algo_type.is_mesh() {
            CcOpTarget::Mesh { sema_shift_offset: le(b, 4, 2) as u16, sema_mask: le(b, 6, 2) as u16 }
        } else {
            CcOpTarget::ChannelList(le(b, 4, 4) as u32)
        };
        Ok(SpadCtrlEntry {
            cc_op: b[0] & 1 != 0,
            algo_type,
            algo_sub_type: (b[1] >> 4) & 7,
            trigger_next: b[1] & 0x80 != 0,
            reporter: b[2] & 1 != 0,
            ring_wait_complete: b[2] & 2 != 0,
            ring_send_complete: b[2] & 4 != 0,
            safe_mode: b[2] & 8 != 0,
            unique_tensors: b[2] & 0x10 != 0,
            target,
        })
    }
}

/// `channel_list` of a ring entry: OR of `1 << abs_id` over the channels owned by `this_sp`.
pub fn channel_list(channels: &[(u32, u32)], this_sp: u32) -> u32 {
    channels.iter().filter(|(_, sp)| *sp == this_sp).fold(0, |acc, (abs_id, _)| acc | (1u32 << (abs_id % 32)))
}

/// `ring_send_complete` / `ring_wait_complete` of `this_sp`'s ring entry
/// (seed 001 §5c): a neighbour channel owned by a TOP_SP of a higher index
/// means send_complete, of a lower one wait_complete. `[D]`: a channel's
/// neighbours are the channels `abs_id ± 1` of the list (the seeds compare
/// "a neighbour channel's" owner, not which neighbour).
pub fn ring_complete_flags(channels: &[(u32, u32)], this_sp: u32) -> (bool, bool) {
    let owner = |id: u32| channels.iter().find(|c| c.0 == id).map(|c| c.1);
    let (mut send, mut wait) = (false, false);
    for &(id, sp) in channels.iter().filter(|c| c.1 == this_sp) {
        for n in [id.checked_sub(1), id.checked_add(1)].into_iter().flatten() {
            match owner(n) {
                Some(o) if o > sp => send = true,
                Some(o) if o < sp => wait = true,
                _ => {}
            }
        }
    }
    (send, wait)
}

/// `[D]` TPB_COMPL_ADDR_MAX_NUM: the seeds assert the bound but do not give it.
pub const TPB_COMPL_ADDR_MAX_NUM: usize = 4;

/// `[D]` The semaphore bits of a completion address: the EVT_SEM index it
/// targets (`(addr >> 2) & 0xff`); every END-mark address must share them.
pub fn sema_bits(addr: u64) -> u16 {
    ((addr >> 2) & 0xff) as u16
}

/// One word (or, for END, a header plus addresses) of the SLOT SPAD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotWord {
    /// `tp_inc_steps`: m2s / s2m descriptor counts and a repeat.
    Step { m2s: u16, s2m: u16, repeat: u8 },
    /// "Adding CONTINUE mark": go on with the next CTRL entry.
    Continue,
    /// "Adding END mark with compl address …": completion addresses posted by the reporter.
    End { compl_addrs: Vec<u64> },
}

const KIND_STEP: u8 = 1;
const KIND_CONTINUE: u8 = 2;
const KIND_END: u8 = 3;

/// Pack a SLOT program; END marks are checked (count ≤ TPB_COMPL_ADDR_MAX_NUM,
/// ≥ 1, same semaphore bits).
pub fn pack_slot(words: &[SlotWord]) -> Result<Vec<u8>, PackError> {
    let mut out = Vec::new();
    for w in words {
        let mut b = [0u8; 8];
        match w {
            SlotWord::Step { m2s, s2m, repeat } => {
                b[0] = KIND_STEP;
                b[1] = *repeat;
                put_le(&mut b, 2, 2, *m2s as u64);
                put_le(&mut b, 4, 2, *s2m as u64);
                out.extend_from_slice(&b);
            }
            SlotWord::Continue => {
                b[0] = KIND_CONTINUE;
                out.extend_from_slice(&b);
            }
            SlotWord::End { compl_addrs } => {
                let bad = |m: String| PackError::Invalid { what: "END mark", message: m };
                if compl_addrs.is_empty() || compl_addrs.len() > TPB_COMPL_ADDR_MAX_NUM {
                    return Err(bad(format!("{} completion addresses (1..={TPB_COMPL_ADDR_MAX_NUM})", compl_addrs.len())));
                }
                let first = sema_bits(compl_addrs[0]);
                if let Some(a) = compl_addrs.iter().find(|a| sema_bits(**a) != first) {
                    return Err(bad(format!("completion address {a:#x} has semaphore bits {:#x}, the first has {first:#x}", sema_bits(*a))));
                }
                b[0] = KIND_END;
                b[1] = compl_addrs.len() as u8;
                put_le(&mut b, 2, 2, first as u64);
                out.extend_from_slice(&b);
                for a in compl_addrs {
                    out.extend_from_slice(&a.to_le_bytes());
                }
            }
        }
    }
    Ok(out)
}

/// Parse a SLOT program up to and including its END mark (trailing zero pad ignored).
pub fn unpack_slot(bytes: &[u8]) -> Result<Vec<SlotWord>, PackError> {
    let bad = |m: String| PackError::Invalid { what: "SLOT SPAD", message: m };
    let mut out = Vec::new();
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let b = &bytes[i..i + 8];
        i += 8;
        match b[0] {
            KIND_STEP => out.push(SlotWord::Step { m2s: le(b, 2, 2) as u16, s2m: le(b, 4, 2) as u16, repeat: b[1] }),
            KIND_CONTINUE => out.push(SlotWord::Continue),
            KIND_END => {
                let n = b[1] as usize;
                if i + 8 * n > bytes.len() {
                    return Err(bad(format!("END mark at {:#x} announces {n} addresses past the end", i - 8)));
                }
                let compl_addrs = (0..n).map(|k| le(bytes, i + 8 * k, 8)).collect();
                out.push(SlotWord::End { compl_addrs });
                return Ok(out);
            }
            0 if b.iter().all(|&x| x == 0) => return Err(bad(format!("no END mark before the zero pad at {:#x}", i - 8))),
            k => return Err(bad(format!("unknown word kind {k} at {:#x}", i - 8))),
        }
    }
    Err(bad("no END mark".into()))
}

/// Pack a CTRL SPAD (entries back to back).
pub fn pack_ctrl(entries: &[SpadCtrlEntry]) -> Result<Vec<u8>, PackError> {
    let mut out = Vec::with_capacity(entries.len() * 8);
    for e in entries {
        out.extend_from_slice(&e.pack()?);
    }
    Ok(out)
}
