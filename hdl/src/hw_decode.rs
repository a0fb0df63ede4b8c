//! # HW-decode CAM (CAYMAN and MARIANA; absent on SUNDA)
//!
//! DIGEST §4 `[S thin; mostly D]`. `N` programmable entries (default 47)
//! `{valid, key, mask, table_index}` and a handler table of `2^TW` words
//! (default 2048 words = 8 KiB), both programmed over the bus by the HAL's
//! `hw_decode_table_init` (the 16-byte records of `hal::CamRecord`). A lookup
//! of an instruction header (opcode byte + func/spec byte) matches entry `i`
//! when `(key_in & mask_i) == (key_i & mask_i)`; the lowest matching index
//! wins; the entry's table index selects a handler word; the result enters a
//! FIFO the NX core pops. A miss sets a sticky flag and pulses `miss_irq`
//! (the software-fetch fallback).
//!
//! ## Bus map (offsets within the block, `[D]`, matching the HAL's layout)
//! - `0x000 + 16*i`: word 0 of entry `i`: `[0]` valid, `[15:8]` key opcode,
//!   `[23:16]` key func, `[31:24]` mask opcode; `+4`: word 1: `[7:0]` mask
//!   func, `[31:16]` table index; `+8`, `+12` reserved (read 0, writes ignored).
//! - `0x3f0`: status: `[0]` miss (write 1 to clear), `[15:8]` opcode and
//!   `[23:16]` func of the last miss (read-only).
//! - `4·2^TW + 4*k` (0x2000 for the 8 KiB table: the table is aligned to its
//!   size): handler table word `k` (write-only from the bus: the
//!   table's read port belongs to the lookup pipeline; reads answer 0).
//! - Anything else, or a misaligned address: `rsp_err`.
//!
//! ## Parameters
//! - `N` entries, `TW` table address bits (FPGA builds use fewer).
//! - `sunda_mask_order`: DIGEST §4 GOTCHA — the SUNDA activation CAM puts the
//!   func mask byte first. When set, word 0 `[31:24]` is the func mask and
//!   word 1 `[7:0]` the opcode mask (CAYMAN+ order when clear, the default).
//!
//! ## Lookup timing
//! `lookup_valid & lookup_ready` at an edge → the result (hit, entry index,
//! table index, handler word) is pushed into the 4-deep FIFO at the next edge
//! and visible from the cycle after. `fifo_pop` at an edge drops the head.
//! `lookup_ready` is low while the FIFO (plus the lookup in flight) is full.

// `update` is written in the subset rust-hdl's hdl_gen translates to Verilog
// (no `>=` on Bits, one condition per `if`): clippy's rewrites would not translate.
#![allow(clippy::nonminimal_bool, clippy::collapsible_if)]

use rust_hdl::prelude::*;

/// Offset of the status register (`[D]`, the golden model's constant).
pub use tpb_golden::hw_decode::STATUS;
/// Offset of the handler table of `2^tw` words: aligned to its own size.
pub const fn table_offset(tw: usize) -> u32 {
    4 << tw
}
/// Depth of the result FIFO.
pub const FIFO_DEPTH: usize = 4;

bar0_slave_block! {
pub struct HwDecode<const N: usize, const TW: usize> {
    pub lookup_valid: Signal<In, Bit>,
    pub lookup_opcode: Signal<In, Bits<8>>,
    pub lookup_func: Signal<In, Bits<8>>,
    pub lookup_ready: Signal<Out, Bit>,
    pub fifo_valid: Signal<Out, Bit>,
    pub fifo_hit: Signal<Out, Bit>,
    pub fifo_entry: Signal<Out, Bits<8>>,
    pub fifo_index: Signal<Out, Bits<16>>,
    pub fifo_handler: Signal<Out, Bits<32>>,
    pub fifo_pop: Signal<In, Bit>,
    pub miss: Signal<Out, Bit>,
    pub miss_irq: Signal<Out, Bit>,
    pub sunda_mask_order: Constant<Bit>,
    ent_valid: [DFF<Bits<1>>; N],
    ent_key_op: [DFF<Bits<8>>; N],
    ent_key_func: [DFF<Bits<8>>; N],
    ent_mask_op: [DFF<Bits<8>>; N],
    ent_mask_func: [DFF<Bits<8>>; N],
    /// The two mask bytes as programmed (word 0 [31:24], word 1 [7:0]), for read-back.
    ent_mask_w0: [DFF<Bits<8>>; N],
    ent_mask_w1: [DFF<Bits<8>>; N],
    ent_index: [DFF<Bits<16>>; N],
    ent_id: [Constant<Bits<8>>; N],
    table_base: Constant<Bits<32>>,
    status: Constant<Bits<32>>,
    table_end: Constant<Bits<32>>,
    handler_ram: RAM<Bits<32>, TW>,
    rsp_valid_q: DFF<Bit>,
    rsp_rdata_q: DFF<Bits<32>>,
    rsp_err_q: DFF<Bit>,
    miss_q: DFF<Bits<1>>,
    miss_op_q: DFF<Bits<8>>,
    miss_func_q: DFF<Bits<8>>,
    miss_irq_q: DFF<Bit>,
    l1_valid: DFF<Bits<1>>,
    l1_hit: DFF<Bit>,
    l1_entry: DFF<Bits<8>>,
    l1_index: DFF<Bits<16>>,
    fifo_hit_r: [DFF<Bit>; FIFO_DEPTH],
    fifo_entry_r: [DFF<Bits<8>>; FIFO_DEPTH],
    fifo_index_r: [DFF<Bits<16>>; FIFO_DEPTH],
    fifo_handler_r: [DFF<Bits<32>>; FIFO_DEPTH],
    fifo_rd: DFF<Bits<2>>,
    fifo_wr: DFF<Bits<2>>,
    fifo_count: DFF<Bits<3>>,
    hit: Signal<Local, Bit>,
    hit_entry: Signal<Local, Bits<8>>,
    hit_index: Signal<Local, Bits<16>>,
    take: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    aligned: Signal<Local, Bit>,
    sel: Signal<Local, Bit>,
    sel_word: Signal<Local, Bits<2>>,
    sel_valid: Signal<Local, Bits<1>>,
    sel_key_op: Signal<Local, Bits<8>>,
    sel_key_func: Signal<Local, Bits<8>>,
    sel_mask_w0: Signal<Local, Bits<8>>,
    sel_mask_w1: Signal<Local, Bits<8>>,
    sel_index: Signal<Local, Bits<16>>,
    /// The addressed entry's word as entry `i` would answer (0 unless `i`
    /// is addressed), and the OR of those over the entries.
    pick: Signal<Local, Bits<32>>,
    sel_rdata: Signal<Local, Bits<32>>,
}
}

impl<const N: usize, const TW: usize> HwDecode<N, TW> {
    /// A CAM in CAYMAN+ mask order, or SUNDA's with `sunda_mask_order`.
    pub fn new(sunda_mask_order: bool) -> Self {
        assert!(N * 16 <= STATUS as usize, "entries must end below the status register");
        assert!((8..=16).contains(&TW), "the table (at 4 << TW) must start above the status register");
        bar0_slave_new! { Self {
            lookup_valid, lookup_opcode, lookup_func, lookup_ready, fifo_valid, fifo_hit, fifo_entry, fifo_index,
            fifo_handler, fifo_pop, miss, miss_irq,
            sunda_mask_order: Constant::new(sunda_mask_order),
            ent_valid: std::array::from_fn(|_| Default::default()),
            ent_key_op: std::array::from_fn(|_| Default::default()),
            ent_key_func: std::array::from_fn(|_| Default::default()),
            ent_mask_op: std::array::from_fn(|_| Default::default()),
            ent_mask_func: std::array::from_fn(|_| Default::default()),
            ent_mask_w0: std::array::from_fn(|_| Default::default()),
            ent_mask_w1: std::array::from_fn(|_| Default::default()),
            ent_index: std::array::from_fn(|_| Default::default()),
            // Position p holds entry N-1-p: scanning positions upwards, the last
            // match assigned is the lowest entry number (rust-hdl's Verilog
            // generator accepts only the loop variable in an index).
            ent_id: std::array::from_fn(|p| Constant::new(((N - 1 - p) as u64).into())),
            table_base: Constant::new((4u64 << TW).into()),
            status: Constant::new(u64::from(STATUS).into()),
            table_end: Constant::new((8u64 << TW).into()),
            handler_ram, rsp_valid_q, rsp_rdata_q, rsp_err_q, miss_q, miss_op_q, miss_func_q, miss_irq_q, l1_valid,
            l1_hit, l1_entry, l1_index,
            fifo_hit_r: std::array::from_fn(|_| Default::default()),
            fifo_entry_r: std::array::from_fn(|_| Default::default()),
            fifo_index_r: std::array::from_fn(|_| Default::default()),
            fifo_handler_r: std::array::from_fn(|_| Default::default()),
            fifo_rd, fifo_wr, fifo_count, hit, hit_entry, hit_index, take, pop, push, aligned, sel, sel_word, sel_valid,
            sel_key_op, sel_key_func, sel_mask_w0, sel_mask_w1, sel_index, pick, sel_rdata,
        } }
    }
}

impl<const N: usize, const TW: usize> Default for HwDecode<N, TW> {
    fn default() -> Self {
        Self::new(false)
    }
}

/// Entries of the CAYMAN/MARIANA CAM: `[hw_decode] cam_records` of `arch.toml`
/// (`[D]`: the decode CAM's geometry is ours; 47 records are the seeds'
/// PROF profiler CAM, seed 000 §2, taken as its size); a test pins the two together.
pub const DEFAULT_ENTRIES: usize = 47;
/// Table address bits: 2^11 words = `[hw_decode] table_bytes` (8 KiB); pinned by a test.
pub const DEFAULT_TABLE_BITS: usize = 11;

/// The default CAM of CAYMAN/MARIANA: 47 entries, 8 KiB table.
pub type HwDecodeCam = HwDecode<DEFAULT_ENTRIES, DEFAULT_TABLE_BITS>;

impl<const N: usize, const TW: usize> Logic for HwDecode<N, TW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rsp_valid_q,
            rsp_rdata_q,
            rsp_err_q,
            miss_q,
            miss_op_q,
            miss_func_q,
            miss_irq_q,
            l1_valid,
            l1_hit,
            l1_entry,
            l1_index,
            fifo_rd,
            fifo_wr,
            fifo_count
        );
        for i in 0..N {
            self.ent_valid[i].clock.next = self.clock.val();
            self.ent_valid[i].d.next = self.ent_valid[i].q.val();
            self.ent_key_op[i].clock.next = self.clock.val();
            self.ent_key_op[i].d.next = self.ent_key_op[i].q.val();
            self.ent_key_func[i].clock.next = self.clock.val();
            self.ent_key_func[i].d.next = self.ent_key_func[i].q.val();
            self.ent_mask_op[i].clock.next = self.clock.val();
            self.ent_mask_op[i].d.next = self.ent_mask_op[i].q.val();
            self.ent_mask_func[i].clock.next = self.clock.val();
            self.ent_mask_func[i].d.next = self.ent_mask_func[i].q.val();
            self.ent_mask_w0[i].clock.next = self.clock.val();
            self.ent_mask_w0[i].d.next = self.ent_mask_w0[i].q.val();
            self.ent_mask_w1[i].clock.next = self.clock.val();
            self.ent_mask_w1[i].d.next = self.ent_mask_w1[i].q.val();
            self.ent_index[i].clock.next = self.clock.val();
            self.ent_index[i].d.next = self.ent_index[i].q.val();
        }
        for i in 0..FIFO_DEPTH {
            self.fifo_hit_r[i].clock.next = self.clock.val();
            self.fifo_hit_r[i].d.next = self.fifo_hit_r[i].q.val();
            self.fifo_entry_r[i].clock.next = self.clock.val();
            self.fifo_entry_r[i].d.next = self.fifo_entry_r[i].q.val();
            self.fifo_index_r[i].clock.next = self.clock.val();
            self.fifo_index_r[i].d.next = self.fifo_index_r[i].q.val();
            self.fifo_handler_r[i].clock.next = self.clock.val();
            self.fifo_handler_r[i].d.next = self.fifo_handler_r[i].q.val();
        }
        self.handler_ram.read_clock.next = self.clock.val();
        self.handler_ram.write_clock.next = self.clock.val();
        // ---- bus ----
        self.rsp_valid_q.d.next = false;
        self.rsp_err_q.d.next = false;
        self.rsp_rdata_q.d.next = 0.into();
        self.handler_ram.write_enable.next = false;
        self.handler_ram.write_address.next = self.req_addr.val().get_bits::<TW>(2);
        self.handler_ram.write_data.next = self.req_wdata.val();
        self.miss_irq_q.d.next = false;
        self.sel.next = false;
        self.sel_word.next = self.req_addr.val().get_bits::<2>(2);
        self.sel_rdata.next = 0.into();
        self.pick.next = 0.into();
        self.sel_valid.next = 0.into();
        self.sel_key_op.next = 0.into();
        self.sel_key_func.next = 0.into();
        self.sel_mask_w0.next = 0.into();
        self.sel_mask_w1.next = 0.into();
        self.sel_index.next = 0.into();
        self.aligned.next = !self.req_addr.val().get_bit(0) & !self.req_addr.val().get_bit(1);
        if self.req_valid.val() {
            self.rsp_valid_q.d.next = true;
            self.rsp_err_q.d.next = true;
            if self.aligned.val() & (self.req_addr.val() == self.status.val()) {
                self.rsp_err_q.d.next = false;
                if self.req_write.val() {
                    if self.req_wdata.val().get_bit(0) {
                        self.miss_q.d.next = 0.into();
                    }
                } else {
                    self.rsp_rdata_q.d.next =
                        bit_cast::<32, 1>(self.miss_q.q.val()) | (bit_cast::<32, 8>(self.miss_op_q.q.val()) << 8) | (bit_cast::<32, 8>(self.miss_func_q.q.val()) << 16);
                }
            }
            if self.aligned.val() & !(self.req_addr.val() < self.table_base.val()) & (self.req_addr.val() < self.table_end.val()) {
                self.rsp_err_q.d.next = false;
                if self.req_write.val() {
                    self.handler_ram.write_enable.next = true;
                }
            }
            for i in 0..N {
                self.pick.next = 0.into();
                if self.aligned.val() & (self.req_addr.val().get_bits::<20>(12) == 0) & (self.req_addr.val().get_bits::<8>(4) == self.ent_id[i].val()) {
                    self.rsp_err_q.d.next = false;
                    self.sel.next = true;
                    self.sel_valid.next = self.ent_valid[i].q.val();
                    self.sel_key_op.next = self.ent_key_op[i].q.val();
                    self.sel_key_func.next = self.ent_key_func[i].q.val();
                    self.sel_mask_w0.next = self.ent_mask_w0[i].q.val();
                    self.sel_mask_w1.next = self.ent_mask_w1[i].q.val();
                    self.sel_index.next = self.ent_index[i].q.val();
                    // The entry's fields go through the sel_* locals because
                    // hdl_gen cannot translate an indexed signal inside bit_cast.
                    if self.sel_word.val() == 0 {
                        self.pick.next = bit_cast::<32, 1>(self.sel_valid.val())
                            | (bit_cast::<32, 8>(self.sel_key_op.val()) << 8)
                            | (bit_cast::<32, 8>(self.sel_key_func.val()) << 16)
                            | (bit_cast::<32, 8>(self.sel_mask_w0.val()) << 24);
                    }
                    if self.sel_word.val() == 1 {
                        self.pick.next = bit_cast::<32, 8>(self.sel_mask_w1.val()) | (bit_cast::<32, 16>(self.sel_index.val()) << 16);
                    }
                    if self.req_addr.val().get_bits::<2>(2) == 0 {
                        if self.req_write.val() {
                            self.ent_valid[i].d.next = self.req_wdata.val().get_bits::<1>(0);
                            self.ent_key_op[i].d.next = self.req_wdata.val().get_bits::<8>(8);
                            self.ent_key_func[i].d.next = self.req_wdata.val().get_bits::<8>(16);
                            self.ent_mask_w0[i].d.next = self.req_wdata.val().get_bits::<8>(24);
                            if self.sunda_mask_order.val() {
                                self.ent_mask_func[i].d.next = self.req_wdata.val().get_bits::<8>(24);
                            } else {
                                self.ent_mask_op[i].d.next = self.req_wdata.val().get_bits::<8>(24);
                            }
                        }
                    }
                    if self.req_addr.val().get_bits::<2>(2) == 1 {
                        if self.req_write.val() {
                            self.ent_mask_w1[i].d.next = self.req_wdata.val().get_bits::<8>(0);
                            if self.sunda_mask_order.val() {
                                self.ent_mask_op[i].d.next = self.req_wdata.val().get_bits::<8>(0);
                            } else {
                                self.ent_mask_func[i].d.next = self.req_wdata.val().get_bits::<8>(0);
                            }
                            self.ent_index[i].d.next = self.req_wdata.val().get_bits::<16>(16);
                        }
                    }
                }
                // At most one entry is addressed: OR-ing each entry's answer in is a
                // balanced OR tree in synthesis, not an N-deep priority chain.
                self.sel_rdata.next = self.sel_rdata.val() | self.pick.val();
            }
        }
        // Read-back of the selected entry.
        if self.req_valid.val() & !self.req_write.val() & self.sel.val() {
            self.rsp_rdata_q.d.next = self.sel_rdata.val();
        }
        // ---- lookup: lowest matching entry wins (the last assignment: positions hold entries in descending order) ----
        self.hit.next = false;
        self.hit_entry.next = 0.into();
        self.hit_index.next = 0.into();
        // The entries are compared only for a lookup that is asked for: an
        // idle cycle costs a simulator one test (and synthesis nothing: the
        // result only matters when a lookup is taken).
        if self.lookup_valid.val() {
            for i in 0..N {
                if (self.ent_valid[i].q.val() == 1)
                    & (((self.lookup_opcode.val() ^ self.ent_key_op[i].q.val()) & self.ent_mask_op[i].q.val()) == 0)
                    & (((self.lookup_func.val() ^ self.ent_key_func[i].q.val()) & self.ent_mask_func[i].q.val()) == 0)
                {
                    self.hit.next = true;
                    self.hit_entry.next = self.ent_id[i].val();
                    self.hit_index.next = self.ent_index[i].q.val();
                }
            }
        }
        self.lookup_ready.next = (self.fifo_count.q.val() + bit_cast::<3, 1>(self.l1_valid.q.val())) != 4;
        self.take.next = self.lookup_valid.val() & self.lookup_ready.val();
        self.handler_ram.read_address.next = self.hit_index.val().get_bits::<TW>(0);
        self.l1_valid.d.next = 0.into();
        if self.take.val() {
            self.l1_valid.d.next = 1.into();
        }
        self.l1_hit.d.next = self.hit.val();
        self.l1_entry.d.next = self.hit_entry.val();
        self.l1_index.d.next = self.hit_index.val();
        if self.take.val() & !self.hit.val() {
            self.miss_q.d.next = 1.into();
            self.miss_irq_q.d.next = true;
            self.miss_op_q.d.next = self.lookup_opcode.val();
            self.miss_func_q.d.next = self.lookup_func.val();
        }
        // ---- result FIFO ----
        self.push.next = self.l1_valid.q.val() == 1;
        self.pop.next = self.fifo_pop.val() & (self.fifo_count.q.val() != 0);
        for i in 0..FIFO_DEPTH {
            if self.push.val() & (self.fifo_wr.q.val().index() == i) {
                self.fifo_hit_r[i].d.next = self.l1_hit.q.val();
                self.fifo_entry_r[i].d.next = self.l1_entry.q.val();
                self.fifo_index_r[i].d.next = self.l1_index.q.val();
                self.fifo_handler_r[i].d.next = self.handler_ram.read_data.val();
                if !self.l1_hit.q.val() {
                    self.fifo_handler_r[i].d.next = 0.into();
                }
            }
        }
        if self.push.val() {
            self.fifo_wr.d.next = self.fifo_wr.q.val() + 1;
        }
        if self.pop.val() {
            self.fifo_rd.d.next = self.fifo_rd.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if !self.push.val() & self.pop.val() {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }
        self.fifo_valid.next = self.fifo_count.q.val() != 0;
        self.fifo_hit.next = false;
        self.fifo_entry.next = 0.into();
        self.fifo_index.next = 0.into();
        self.fifo_handler.next = 0.into();
        for i in 0..FIFO_DEPTH {
            if (self.fifo_rd.q.val().index() == i) & (self.fifo_count.q.val() != 0) {
                self.fifo_hit.next = self.fifo_hit_r[i].q.val();
                self.fifo_entry.next = self.fifo_entry_r[i].q.val();
                self.fifo_index.next = self.fifo_index_r[i].q.val();
                self.fifo_handler.next = self.fifo_handler_r[i].q.val();
            }
        }
        self.rsp_valid.next = self.rsp_valid_q.q.val();
        self.rsp_rdata.next = self.rsp_rdata_q.q.val();
        self.rsp_err.next = self.rsp_err_q.q.val();
        self.miss.next = self.miss_q.q.val() == 1;
        self.miss_irq.next = self.miss_irq_q.q.val();
        if self.reset.val() {
            for i in 0..N {
                self.ent_valid[i].d.next = 0.into();
            }
            self.rsp_valid_q.d.next = false;
            self.miss_q.d.next = 0.into();
            self.miss_irq_q.d.next = false;
            self.l1_valid.d.next = 0.into();
            self.fifo_rd.d.next = 0.into();
            self.fifo_wr.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
        }
    }
}
