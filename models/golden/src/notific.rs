//! Golden model of the notification unit (`hdl/src/notific.rs`; DIGEST §2.9,
//! §3), cycle by cycle.
//!
//! Every `[D]` choice of the unit is stated once, here and in the block's
//! documentation:
//! - **The ring** is the TPB's notification SRAM (the BAR0 region
//!   `notific.ring`, [`RECORD_BYTES`]-byte records), read by the host over
//!   BAR0. The model has no host-memory master, so the ring base the HAL's
//!   `notific_init` programs is kept for the host's bookkeeping only.
//!   `notific_ring_size` records of it are used, from record 0; a size of 0
//!   or past the SRAM turns the unit off (nothing is captured).
//! - **Producer/consumer**: the unit writes at `head` and advances it modulo
//!   the size; the host reads from its `notific_tail` and writes it back. The
//!   ring is full when the next head equals the tail (it holds size - 1
//!   records): a record then waits in its source's slot. The head wraps to 0
//!   when it reaches the size (or is past it: the host shrank the ring).
//! - **Sources** and their classes (an event of a disabled class is not
//!   captured), in posting priority:
//!   DMA error bits newly set (ERROR, merged), a BAR0 error response (ERROR),
//!   cores newly halted (INST, merged into one mask: NX engine `e` at bit
//!   `e`, Q7 core `n` at bit `8 + n`), a DMA completion doorbell (INST, its
//!   semaphore index), a semaphore change of engine 0..5 (EVT_SEM, its index),
//!   an instruction completion of engine 0..5 (INST: its firmware wrote the
//!   tag to the NX bundle's `inst_done`; the argument is the tag).
//!   One record is posted per cycle. Each source has one slot: an event that
//!   finds its slot taken (and not freed by this cycle's post) is dropped,
//!   counted in `notific_dropped` and flagged by the sticky
//!   `notific_status.overflow`; merged sources never drop.
//! - **Record** (4 words): `[7:0]` type, `[15:8]` source (engine index, 0xff
//!   for none), `[31:16]` sequence number; the argument; the drop count when
//!   posted; the cycle counter (cycles since reset) when posted.

use crate::csr::{Req, Rsp};

/// Bytes per record.
pub const RECORD_BYTES: u32 = 16;
/// Record types (word 0, bits 7:0).
pub const T_DMA_ERROR: u32 = 0x01;
pub const T_BUS_ERROR: u32 = 0x02;
pub const T_SEM: u32 = 0x10;
pub const T_HALT: u32 = 0x20;
pub const T_DMA_DONE: u32 = 0x21;
pub const T_INST_DONE: u32 = 0x22;
/// Source field for a record that names no engine.
pub const NO_SOURCE: u32 = 0xff;
/// The POOL engine (the SEQ DMA's owner) as a record source.
pub const POOL_SOURCE: u32 = 2;
/// Slots, in posting priority.
pub const SLOTS: usize = 16;

/// The unit's inputs during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Inputs {
    /// `notific_ring_size` (records).
    pub size: u32,
    /// `notific_enable`: ERROR, EVT_SEM, INST.
    pub en_error: bool,
    pub en_sem: bool,
    pub en_inst: bool,
    /// `notific_tail`.
    pub tail: u32,
    /// Each engine's EVT_SEM change notification and its index.
    pub sem_valid: u8,
    pub sem_index: [u8; 6],
    /// The SEQ DMA's completion doorbell and its semaphore index.
    pub dma_done: bool,
    pub dma_index: u8,
    /// The SEQ DMA's sticky error bits (a level).
    pub dma_err: u8,
    /// Halted cores (a level): NX engine e at bit e, Q7 core n at bit 8 + n.
    pub halted: u16,
    /// A BAR0 error response this cycle and the address of its request.
    pub bus_err: bool,
    pub bus_addr: u32,
    /// Each engine's instruction completion (`inst_done` written) and its tag.
    pub inst_valid: u8,
    pub inst_tag: [u32; 6],
}

/// Outputs during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outputs {
    pub head: u32,
    pub dropped: u32,
    /// A drop happened at the last edge (sets the sticky status bit).
    pub overflow: bool,
}

/// The model.
#[derive(Debug, Clone)]
pub struct NotificModel {
    ring: Vec<[u32; 4]>,
    head: u32,
    seq: u32,
    dropped: u32,
    overflow: bool,
    cycle: u32,
    prev_halted: u16,
    prev_dma_err: u8,
    /// Slot valid and argument, in priority order.
    slots: [(bool, u32); SLOTS],
    rsp: Rsp,
}

/// (type, source) of slot `k`'s records, in posting priority (the RTL's constants).
pub fn slot_kind(k: usize) -> (u32, u32) {
    match k {
        0 => (T_DMA_ERROR, POOL_SOURCE),
        1 => (T_BUS_ERROR, NO_SOURCE),
        2 => (T_HALT, NO_SOURCE),
        3 => (T_DMA_DONE, POOL_SOURCE),
        e @ 4..=9 => (T_SEM, (e - 4) as u32),
        e => (T_INST_DONE, (e - 10) as u32),
    }
}

impl NotificModel {
    /// A unit with a ring SRAM of `records` records, in its reset state.
    pub fn new(records: usize) -> Self {
        NotificModel {
            ring: vec![[0; 4]; records],
            head: 0,
            seq: 0,
            dropped: 0,
            overflow: false,
            cycle: 0,
            prev_halted: 0,
            prev_dma_err: 0,
            slots: [(false, 0); SLOTS],
            rsp: Rsp::default(),
        }
    }

    pub fn records(&self) -> usize {
        self.ring.len()
    }

    pub fn outputs(&self) -> Outputs {
        Outputs { head: self.head, dropped: self.dropped, overflow: self.overflow }
    }

    /// The bus response registered at the last edge.
    pub fn rsp(&self) -> Rsp {
        self.rsp
    }

    /// Record `i` of the SRAM.
    pub fn record(&self, i: usize) -> Option<[u32; 4]> {
        self.ring.get(i).copied()
    }

    /// One rising edge.
    pub fn step(&mut self, reset: bool, bus: Option<Req>, inp: &Inputs) {
        if reset {
            // The SRAM keeps its contents; everything else clears.
            let ring = std::mem::take(&mut self.ring);
            *self = NotificModel { ring, ..NotificModel::new(0) };
            return;
        }
        // The bus reads the SRAM before this edge's post (old data).
        let bytes = self.ring.len() as u32 * RECORD_BYTES;
        self.rsp = match bus {
            None => Rsp::default(),
            Some(r) if r.write || r.addr & 3 != 0 || r.addr >= bytes => Rsp { valid: true, rdata: 0, err: true },
            Some(r) => Rsp { valid: true, rdata: self.ring[(r.addr / RECORD_BYTES) as usize][(r.addr as usize >> 2) & 3], err: false },
        };
        let active = inp.size != 0 && inp.size as usize <= self.ring.len();
        // Post the first waiting slot if the ring has room.
        // (wraps at the size, or past it when the host shrank the ring)
        let next = if self.head.wrapping_add(1) >= inp.size { 0 } else { self.head.wrapping_add(1) };
        let mut freed = None;
        if active && next != inp.tail {
            if let Some(k) = (0..SLOTS).find(|&k| self.slots[k].0) {
                let (t, src) = slot_kind(k);
                self.ring[self.head as usize] = [t | src << 8 | (self.seq & 0xffff) << 16, self.slots[k].1, self.dropped, self.cycle];
                self.head = next;
                self.seq = self.seq.wrapping_add(1) & 0xffff;
                self.slots[k] = (false, 0);
                freed = Some(k);
            }
        }
        // Capture this cycle's events.
        let mut drops = 0u32;
        if active {
            let new_err = inp.dma_err & !self.prev_dma_err & tpb_spec::seq_dma::ERR_ALL as u8;
            let new_halt = inp.halted & !self.prev_halted;
            let merge = |k: usize, bits: u32, on: bool, slots: &mut [(bool, u32); SLOTS]| {
                if on && bits != 0 {
                    slots[k] = (true, slots[k].1 | bits);
                }
            };
            merge(0, new_err.into(), inp.en_error, &mut self.slots);
            merge(2, new_halt.into(), inp.en_inst, &mut self.slots);
            let mut take = |k: usize, arg: u32, on: bool, slots: &mut [(bool, u32); SLOTS]| {
                if !on {
                    return;
                }
                if slots[k].0 && freed != Some(k) {
                    drops += 1;
                } else {
                    slots[k] = (true, arg);
                }
            };
            take(1, inp.bus_addr, inp.en_error && inp.bus_err, &mut self.slots);
            take(3, inp.dma_index.into(), inp.en_inst && inp.dma_done, &mut self.slots);
            for e in 0..6 {
                take(4 + e, inp.sem_index[e].into(), inp.en_sem && inp.sem_valid >> e & 1 == 1, &mut self.slots);
            }
            for e in 0..6 {
                take(10 + e, inp.inst_tag[e], inp.en_inst && inp.inst_valid >> e & 1 == 1, &mut self.slots);
            }
        }
        self.prev_dma_err = inp.dma_err & tpb_spec::seq_dma::ERR_ALL as u8;
        self.prev_halted = inp.halted;
        self.dropped = self.dropped.wrapping_add(drops);
        self.overflow = drops != 0;
        self.cycle = self.cycle.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on() -> Inputs {
        Inputs { size: 4, en_error: true, en_sem: true, en_inst: true, ..Inputs::default() }
    }

    #[test]
    fn records_post_in_priority_order_one_per_cycle() {
        let mut m = NotificModel::new(8);
        m.step(true, None, &Inputs::default());
        let mut i = on();
        i.sem_valid = 0b10;
        i.sem_index[1] = 7;
        i.dma_done = true;
        i.dma_index = 9;
        m.step(false, None, &i);
        assert_eq!(m.outputs().head, 0, "captured, not yet posted");
        m.step(false, None, &on());
        m.step(false, None, &on());
        assert_eq!(m.outputs().head, 2);
        assert_eq!(m.record(0).unwrap()[..2], [T_DMA_DONE | POOL_SOURCE << 8, 9]);
        assert_eq!(m.record(1).unwrap()[..2], [T_SEM | 1 << 8 | 1 << 16, 7]);
        assert_eq!(m.record(1).unwrap()[3], 2, "the cycle counter");
    }

    #[test]
    fn instruction_completions_post_after_the_semaphores_with_their_tags() {
        let mut m = NotificModel::new(8);
        m.step(true, None, &Inputs::default());
        let mut i = on();
        i.inst_valid = 0b10_0100;
        i.inst_tag[2] = 0x0003_0041;
        i.inst_tag[5] = 7;
        i.sem_valid = 1;
        m.step(false, None, &i);
        for _ in 0..3 {
            m.step(false, None, &on());
        }
        assert_eq!(m.outputs().head, 3);
        assert_eq!(m.record(0).unwrap()[0] & 0xff, T_SEM);
        assert_eq!(m.record(1).unwrap()[..2], [T_INST_DONE | 2 << 8 | 1 << 16, 0x0003_0041]);
        assert_eq!(m.record(2).unwrap()[..2], [T_INST_DONE | 5 << 8 | 2 << 16, 7]);
        // INST off: not captured.
        let mut i = Inputs { en_inst: false, ..on() };
        i.inst_valid = 1;
        m.step(false, None, &i);
        m.step(false, None, &on());
        assert_eq!(m.outputs().head, 3);
    }

    #[test]
    fn a_full_ring_holds_records_back_and_counts_what_it_drops() {
        let mut m = NotificModel::new(8);
        m.step(true, None, &Inputs::default());
        let mut i = on();
        i.sem_valid = 1;
        for k in 0..6 {
            i.sem_index[0] = k;
            m.step(false, None, &i);
        }
        // Size 4, tail 0: three records fit, the fourth waits in its slot.
        assert_eq!(m.outputs().head, 3);
        assert_eq!(m.outputs().dropped, 2, "events 4 and 5 found the slot taken");
        let mut t = on();
        t.tail = 2;
        m.step(false, None, &t);
        assert_eq!(m.outputs().head, 0, "room again: the waiting record posts, head wraps");
        assert_eq!(m.record(3).unwrap()[..3], [T_SEM | 3 << 16, 3, 2]);
    }

    #[test]
    fn halts_merge_and_an_off_unit_captures_nothing() {
        let mut m = NotificModel::new(8);
        m.step(true, None, &Inputs::default());
        let mut i = Inputs { halted: 1 << 2, ..Inputs::default() };
        m.step(false, None, &i);
        i = on();
        i.halted = 1 << 2 | 1 << 9;
        i.sem_valid = 1;
        m.step(false, None, &i);
        m.step(false, None, &i);
        m.step(false, None, &i);
        assert_eq!(m.record(0).unwrap()[..2], [T_HALT | NO_SOURCE << 8, 1 << 9], "core 2 halted while the unit was off");
        let r = m.record(1).unwrap();
        assert_eq!(r[0] & 0xff, T_SEM);
        m.step(false, Some(Req { write: false, addr: 16 + 4, wdata: 0 }), &on());
        assert_eq!(m.rsp(), Rsp { valid: true, rdata: r[1], err: false });
        m.step(false, Some(Req { write: true, addr: 0, wdata: 1 }), &on());
        assert!(m.rsp().err, "the ring is read-only from BAR0");
    }
}
