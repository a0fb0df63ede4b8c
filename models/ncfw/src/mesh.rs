//! The NCFW mesh event tape (DIGEST §7, seed 003): the 80-byte event, its
//! two 20-byte `dma_apb_bcast` legs, the algo_configs / algo_ctx layout per
//! generation, the event types, and the two (mutually exclusive) readings of
//! a SoC address's high bits.

use super::{le, put_le, PackError};
use serde::{Deserialize, Serialize};

/// One APB-broadcast DMA leg, 20 bytes, shared with the ring path:
/// `m2s_tail_ptr` u64 @0, `s2m_tail_ptr` u64 @8, `mask` u32 @16. The seeds
/// give the size and the key order; the widths are `[I]` (8 + 8 + 4 = 20).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmaApbBcast {
    pub m2s_tail_ptr: u64,
    pub s2m_tail_ptr: u64,
    pub mask: u32,
}

impl DmaApbBcast {
    pub const BYTES: usize = 20;
    pub fn pack(&self) -> [u8; 20] {
        let mut b = [0u8; 20];
        put_le(&mut b, 0, 8, self.m2s_tail_ptr);
        put_le(&mut b, 8, 8, self.s2m_tail_ptr);
        put_le(&mut b, 16, 4, self.mask as u64);
        b
    }
    pub fn unpack(b: &[u8]) -> Result<Self, PackError> {
        if b.len() != Self::BYTES {
            return Err(PackError::Length { what: "dma_apb_bcast", expected: Self::BYTES, got: b.len() });
        }
        Ok(DmaApbBcast { m2s_tail_ptr: le(b, 0, 8), s2m_tail_ptr: le(b, 8, 8), mask: le(b, 16, 4) as u32 })
    }
}

/// `enc_mesh_event_type` (the event's `event_type` byte). The seeds name
/// the COMMON and MESH bands only partly; unnamed values keep their number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MeshEventType(pub u8);

/// Bands of `enc_mesh_event_type` (seed 003 §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventBand {
    Common,
    Mesh,
    A2a,
    Rdh,
    /// Past the bands the seeds give (53..).
    Other,
}

impl MeshEventType {
    pub const EVT_SYNC: MeshEventType = MeshEventType(0);
    pub const EVT_FUNCTION_BARRIER_FIRST_COLL: MeshEventType = MeshEventType(4);
    pub const EVT_FUNCTION_BARRIER_LAST_COLL: MeshEventType = MeshEventType(5);
    pub const EVT_REDUCE_LOCAL_HNDSHK: MeshEventType = MeshEventType(6);
    pub const EVT_INTRA_GRP_BRDCST: MeshEventType = MeshEventType(7);
    pub const EVT_REDUCE_COPY: MeshEventType = MeshEventType(8);
    pub const EVT_REDUCE_COPY_2: MeshEventType = MeshEventType(9);
    pub const EVT_REDUCE_WRITE: MeshEventType = MeshEventType(10);
    pub const EVT_INTER_GRP_BRDCST_2: MeshEventType = MeshEventType(11);
    pub const EVT_LOCAL_AND_POD_GRP_BRDCST: MeshEventType = MeshEventType(12);
    pub const EVT_LOCAL_AND_POD_GRP_BRDCST_2: MeshEventType = MeshEventType(13);

    const NAMES: [(u8, &'static str); 11] = [
        (0, "EVT_SYNC"),
        (4, "EVT_FUNCTION_BARRIER_FIRST_COLL"),
        (5, "EVT_FUNCTION_BARRIER_LAST_COLL"),
        (6, "EVT_REDUCE_LOCAL_HNDSHK"),
        (7, "EVT_INTRA_GRP_BRDCST"),
        (8, "EVT_REDUCE_COPY"),
        (9, "EVT_REDUCE_COPY_2"),
        (10, "EVT_REDUCE_WRITE"),
        (11, "EVT_INTER_GRP_BRDCST_2"),
        (12, "EVT_LOCAL_AND_POD_GRP_BRDCST"),
        (13, "EVT_LOCAL_AND_POD_GRP_BRDCST_2"),
    ];

    /// The name, where the seeds give one.
    pub fn name(self) -> Option<&'static str> {
        Self::NAMES.iter().find(|(v, _)| *v == self.0).map(|(_, n)| *n)
    }

    /// The type a seed name gives (`EVT_SYNC`, …).
    pub fn from_name(name: &str) -> Option<MeshEventType> {
        Self::NAMES.iter().find(|(_, n)| *n == name).map(|(v, _)| MeshEventType(*v))
    }

    pub fn band(self) -> EventBand {
        match self.0 {
            0..=7 => EventBand::Common,
            8..=13 => EventBand::Mesh,
            14..=22 => EventBand::A2a,
            23..=52 => EventBand::Rdh,
            _ => EventBand::Other,
        }
    }
}

/// One mesh event, 80 bytes, no padding (DIGEST §7):
/// `dma_apb_bcast[2]` @0x00/@0x14, `direct_trigger_sema[3]` u64 @0x28,
/// `event_wait_sema` u64 @0x40, `wait_val` u32 @0x48, `event_type` @0x4c,
/// `dma_trigger` @0x4d, `direct_trigger` @0x4e, `wait_event` @0x4f.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshEvent {
    pub dma_apb_bcast: [DmaApbBcast; 2],
    pub direct_trigger_sema: [u64; 3],
    pub event_wait_sema: u64,
    pub wait_val: u32,
    pub event_type: u8,
    pub dma_trigger: u8,
    pub direct_trigger: u8,
    pub wait_event: u8,
}

impl MeshEvent {
    pub const BYTES: usize = 80;

    pub fn pack(&self) -> [u8; Self::BYTES] {
        let mut b = [0u8; Self::BYTES];
        for (j, leg) in self.dma_apb_bcast.iter().enumerate() {
            b[j * 20..j * 20 + 20].copy_from_slice(&leg.pack());
        }
        for (k, s) in self.direct_trigger_sema.iter().enumerate() {
            put_le(&mut b, 0x28 + 8 * k, 8, *s);
        }
        put_le(&mut b, 0x40, 8, self.event_wait_sema);
        put_le(&mut b, 0x48, 4, self.wait_val as u64);
        b[0x4c] = self.event_type;
        b[0x4d] = self.dma_trigger;
        b[0x4e] = self.direct_trigger;
        b[0x4f] = self.wait_event;
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Self, PackError> {
        if b.len() != Self::BYTES {
            return Err(PackError::Length { what: "mesh event", expected: Self::BYTES, got: b.len() });
        }
        Ok(MeshEvent {
            dma_apb_bcast: [DmaApbBcast::unpack(&b[0..20])?, DmaApbBcast::unpack(&b[20..40])?],
            direct_trigger_sema: [le(b, 0x28, 8), le(b, 0x30, 8), le(b, 0x38, 8)],
            event_wait_sema: le(b, 0x40, 8),
            wait_val: le(b, 0x48, 4) as u32,
            event_type: b[0x4c],
            dma_trigger: b[0x4d],
            direct_trigger: b[0x4e],
            wait_event: b[0x4f],
        })
    }

    pub fn event_type(&self) -> MeshEventType {
        MeshEventType(self.event_type)
    }
}

/// Layout of the NCFW `algo_configs` region for one generation (seed 003 §1, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlgoConfigsLayout {
    /// Ring configs @0: 32 channels.
    pub ring: u32,
    /// Mesh events @0x1280.
    pub mesh: u32,
    /// Mesh event capacity (50 SUNDA, 108 CAYMAN/MARIANA).
    pub mesh_events: u32,
    /// Hierarchical configs, right after the mesh events.
    pub hierarchical: u32,
}

/// Ring channels in algo_configs.
pub const RING_CHANNELS: u32 = 32;
/// Byte offset of the mesh region in algo_configs (`[S]` seed 003 §1: `lea rdx,[rax+0x1280]` before the mesh decoder).
pub const ALGO_CONFIGS_MESH_OFFSET: u32 = 0x1280;
/// Ring channel config stride: 0x1280 / 32 = 148 bytes. The digest says
/// 149 B (0x95), but 32 × 149 = 0x12a0 would overrun the mesh region at
/// 0x1280; 148 (the seeds' runtime-record size) is what fits.
pub const RING_CHANNEL_STRIDE: u32 = ALGO_CONFIGS_MESH_OFFSET / RING_CHANNELS;

impl AlgoConfigsLayout {
    /// The layout for a generation's mesh capacity (`arch.toml` mesh_events_capacity).
    pub fn new(mesh_events: u32) -> Self {
        AlgoConfigsLayout { ring: 0, mesh: ALGO_CONFIGS_MESH_OFFSET, mesh_events, hierarchical: ALGO_CONFIGS_MESH_OFFSET + mesh_events * MeshEvent::BYTES as u32 }
    }
    /// Offset of mesh event `i`, or None past the capacity.
    pub fn event(&self, i: u32) -> Option<u32> {
        (i < self.mesh_events).then(|| self.mesh + i * MeshEvent::BYTES as u32)
    }
}

/// `algo_ctx` offsets: ring ctx 32 × 16 B @0, hierarchical run_state u8
/// @0x200, mesh `event_index` u16 @0x204 (seed 003 §8).
pub mod algo_ctx {
    pub const RING: u32 = 0x000;
    pub const RING_CHANNEL_BYTES: u32 = 16;
    pub const HIER_RUN_STATE: u32 = 0x200;
    pub const MESH_EVENT_INDEX: u32 = 0x204;
}

/// SoC address bit fields (DIGEST §7): \[46:0\] local, \[47\] die, \[53:48\]
/// chip id, \[54\] id valid. The neighbour decoder reinterprets \[50\]
/// EXIT_SENG, \[51\] EXIT_DIE, \[52\] NEIGHBOR_ROUTE. The two readings are two
/// types: a value is decoded one way or the other, never both at once.
pub mod soc {
    pub const LOCAL_BITS: u32 = 47;
    pub const DIE_BIT: u32 = 47;
    pub const CHIP_ID_LSB: u32 = 48;
    pub const CHIP_ID_BITS: u32 = 6;
    pub const ID_VALID_BIT: u32 = 54;
    pub const EXIT_SENG_BIT: u32 = 50;
    pub const EXIT_DIE_BIT: u32 = 51;
    pub const NEIGHBOR_ROUTE_BIT: u32 = 52;
}

/// The chip-id reading of a SoC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChipAddr {
    pub local: u64,
    pub die: bool,
    pub chip_id: u8,
    pub id_valid: bool,
}

impl ChipAddr {
    pub fn decode(addr: u64) -> Result<ChipAddr, PackError> {
        if addr >> (soc::ID_VALID_BIT + 1) != 0 {
            return Err(PackError::Invalid { what: "SoC address", message: format!("{addr:#x} has bits above 54 set") });
        }
        Ok(ChipAddr {
            local: addr & ((1 << soc::LOCAL_BITS) - 1),
            die: addr >> soc::DIE_BIT & 1 != 0,
            chip_id: (addr >> soc::CHIP_ID_LSB & ((1 << soc::CHIP_ID_BITS) - 1)) as u8,
            id_valid: addr >> soc::ID_VALID_BIT & 1 != 0,
        })
    }
    pub fn encode(&self) -> Result<u64, PackError> {
        if self.local >> soc::LOCAL_BITS != 0 || self.chip_id >> soc::CHIP_ID_BITS != 0 {
            return Err(PackError::Invalid { what: "SoC address", message: format!("{self:?}: a field does not fit") });
        }
        Ok(self.local | (self.die as u64) << soc::DIE_BIT | (self.chip_id as u64) << soc::CHIP_ID_LSB | (self.id_valid as u64) << soc::ID_VALID_BIT)
    }
}

/// The neighbour-route reading of a SoC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeighborAddr {
    pub local: u64,
    pub die: bool,
    pub exit_seng: bool,
    pub exit_die: bool,
    pub neighbor_route: bool,
    pub id_valid: bool,
}

impl NeighborAddr {
    pub fn decode(addr: u64) -> NeighborAddr {
        let bit = |n: u32| addr >> n & 1 != 0;
        NeighborAddr {
            local: addr & ((1 << soc::LOCAL_BITS) - 1),
            die: bit(soc::DIE_BIT),
            exit_seng: bit(soc::EXIT_SENG_BIT),
            exit_die: bit(soc::EXIT_DIE_BIT),
            neighbor_route: bit(soc::NEIGHBOR_ROUTE_BIT),
            id_valid: bit(soc::ID_VALID_BIT),
        }
    }
}
