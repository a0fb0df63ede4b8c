//! # Q7 cluster fabric: 8 cores' IRAM/DRAM, BAR0 programmed I/O, run-stall gated memory ports
//!
//! DIGEST §2.3–§2.4 and §5. The POOL engine's 8 Q7 DSP cores (the compute
//! cluster owner of CAYMAN/MARIANA uses cores 0..3 of the same memories). Each
//! core has an IRAM of `2^IW` words and a DRAM of `2^DW` words ([`Tcm`]s,
//! block RAM on FPGAs). The control registers (release_run_stall, start_ctrl,
//! run_state_n, intr_ctrl, intr_info_n) are the generated Q7 register bundle
//! at local-register +0x3000; this block takes its `release_run_stall` output.
//!
//! ## BAR0 programmed-I/O port (`req_*`/`rsp_*`, the protocol of `bar0_port.rs`)
//! `req_addr` is the byte offset from the generation's Q7 `base_offset`
//! (`[S]` seed 004 §3, `arch.toml [q7.pooling]`). Per-core layout `[D]` (from `arch.toml`
//! `[bar0]`): core `n` IRAM at `n * stride`, its DRAM at
//! `n * stride + dram_offset` with `dram_offset = iram_size + iram_rsvd` and
//! `stride = iram_size + iram_rsvd + dram_size + dram_rsvd`. Reads and writes
//! are whole 4-byte words; a misaligned address, a reserved gap or an
//! address past core 7 answer `rsp_err` and change nothing. A memory built
//! smaller than its region (FPGA builds, `[D]`) reads as zero past its built
//! size and takes writes of zero there (a ucode image's zero pad); a
//! non-zero write there answers `rsp_err`. PIO never
//! waits: it takes priority over the cores' ports (the HAL installs ucode
//! while the cores are stalled).
//!
//! ## Per-core memory ports (`if_*` fetch, `ls_*` load/store; arrays of 8)
//! Core-local addresses: IRAM at 0, DRAM at
//! [`tpb_spec::core_map::DRAM_BASE`] (the behavioural core's map).
//! - fetch: `if_valid`, `if_addr` → `if_ready`; then `if_rvalid`, `if_rdata`,
//!   `if_err` for one cycle. Fetch reaches IRAM only.
//! - load/store: `ls_valid`, `ls_write`, `ls_addr`, `ls_wdata`, `ls_wstrb` →
//!   `ls_ready`; then `ls_rvalid`, `ls_rdata`, `ls_err`. IRAM and DRAM, byte
//!   enables on both (`[D]`: real Xtensa IRAM takes word stores only).
//! - A request is taken on an edge where `valid & ready`. A misaligned or
//!   unmapped address is taken and answered with `*_err`.
//! - **Run-stall gating**: while bit `n` of `run_stall` is set (or `reset`
//!   is high), core `n`'s `if_ready` and `ls_ready` are low: nothing it asks
//!   for is taken. A PIO request during reset is ignored (no response).
//! - `running[n] = !run_stall[n] & !halted[n]` (`halted` from the core:
//!   the behavioural core's HALT/WAITI state), for the run_state_n registers.
//!
//! ```
//! use tpb_hdl::q7_cluster::Q7Cluster;
//! let mut c = Q7Cluster::<8, 8>::new(0x20000, 0x10000, 0x10000, 0x10000);
//! let v = tpb_hdl::verilog::of(&mut c, "q7_cluster");
//! assert!(v.contains("module q7_cluster"));
//! ```

use crate::tcm::Tcm;
use rust_hdl::prelude::*;
use tpb_spec::core_map::DRAM_BASE;

/// Cores in the cluster (`[S]` seed 004 §3: `num_q7` of the pooling owner).
pub const CORES: usize = 8;

/// One core's IRAM + DRAM with its two memory ports and the PIO path.
#[derive(LogicBlock)]
pub struct Q7Core<const IW: usize, const DW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub stall: Signal<In, Bit>,
    pub pio_valid: Signal<In, Bit>,
    pub pio_write: Signal<In, Bit>,
    pub pio_dram: Signal<In, Bit>,
    pub pio_iword: Signal<In, Bits<IW>>,
    pub pio_dword: Signal<In, Bits<DW>>,
    pub pio_wdata: Signal<In, Bits<32>>,
    pub pio_rvalid: Signal<Out, Bit>,
    pub pio_rdata: Signal<Out, Bits<32>>,
    pub if_valid: Signal<In, Bit>,
    pub if_addr: Signal<In, Bits<32>>,
    pub if_ready: Signal<Out, Bit>,
    pub if_rvalid: Signal<Out, Bit>,
    pub if_rdata: Signal<Out, Bits<32>>,
    pub if_err: Signal<Out, Bit>,
    pub ls_valid: Signal<In, Bit>,
    pub ls_write: Signal<In, Bit>,
    pub ls_addr: Signal<In, Bits<32>>,
    pub ls_wdata: Signal<In, Bits<32>>,
    pub ls_wstrb: Signal<In, Bits<4>>,
    pub ls_ready: Signal<Out, Bit>,
    pub ls_rvalid: Signal<Out, Bit>,
    pub ls_rdata: Signal<Out, Bits<32>>,
    pub ls_err: Signal<Out, Bit>,
    iram: Tcm<IW>,
    dram: Tcm<DW>,
    iram_hi: Constant<Bits<32>>,
    dram_hi: Constant<Bits<32>>,
    dram_base: Constant<Bits<32>>,
    iram_if_q: DFF<Bit>,
    if_err_q: DFF<Bit>,
    ls_err_q: DFF<Bit>,
    iram_pio: Signal<Local, Bit>,
    dram_pio: Signal<Local, Bit>,
    if_go: Signal<Local, Bit>,
    ls_go: Signal<Local, Bit>,
    if_take: Signal<Local, Bit>,
    if_bad: Signal<Local, Bit>,
    ls_aligned: Signal<Local, Bit>,
    ls_iram: Signal<Local, Bit>,
    ls_dram: Signal<Local, Bit>,
}

impl<const IW: usize, const DW: usize> Default for Q7Core<IW, DW> {
    fn default() -> Self {
        hdl_new! { Q7Core {
            clock, reset, stall, pio_valid, pio_write, pio_dram, pio_iword, pio_dword, pio_wdata, pio_rvalid, pio_rdata,
            if_valid, if_addr, if_ready, if_rvalid, if_rdata, if_err, ls_valid, ls_write, ls_addr, ls_wdata, ls_wstrb,
            ls_ready, ls_rvalid, ls_rdata, ls_err, iram, dram,
            iram_hi: Constant::new((!((4u64 << IW) - 1) & 0xffff_ffff).into()),
            dram_hi: Constant::new((!((4u64 << DW) - 1) & 0xffff_ffff).into()),
            dram_base: Constant::new(u64::from(DRAM_BASE).into()),
            iram_if_q, if_err_q, ls_err_q, iram_pio, dram_pio, if_go, ls_go, if_take, if_bad, ls_aligned, ls_iram,
            ls_dram,
        } }
    }
}

impl<const IW: usize, const DW: usize> Logic for Q7Core<IW, DW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, iram_if_q, if_err_q, ls_err_q);
        self.iram.clock.next = self.clock.val();
        self.dram.clock.next = self.clock.val();
        self.iram.reset.next = self.reset.val();
        self.dram.reset.next = self.reset.val();
        // ---- PIO ----
        self.iram_pio.next = self.pio_valid.val() & !self.pio_dram.val();
        self.dram_pio.next = self.pio_valid.val() & self.pio_dram.val();
        self.iram.pio_valid.next = self.iram_pio.val();
        self.dram.pio_valid.next = self.dram_pio.val();
        self.iram.pio_write.next = self.pio_write.val();
        self.dram.pio_write.next = self.pio_write.val();
        self.iram.pio_word.next = self.pio_iword.val();
        self.dram.pio_word.next = self.pio_dword.val();
        self.iram.pio_wdata.next = self.pio_wdata.val();
        self.dram.pio_wdata.next = self.pio_wdata.val();
        self.pio_rvalid.next = self.iram.pio_rvalid.val() | self.dram.pio_rvalid.val();
        self.pio_rdata.next = 0.into();
        if self.iram.pio_rvalid.val() {
            self.pio_rdata.next = self.iram.rdata.val();
        }
        if self.dram.pio_rvalid.val() {
            self.pio_rdata.next = self.dram.rdata.val();
        }
        // ---- decode the two core ports ----
        self.if_bad.next = ((self.if_addr.val() & self.iram_hi.val()) != 0) | self.if_addr.val().get_bit(0) | self.if_addr.val().get_bit(1);
        self.ls_aligned.next = !self.ls_addr.val().get_bit(0) & !self.ls_addr.val().get_bit(1);
        self.ls_iram.next = self.ls_aligned.val() & ((self.ls_addr.val() & self.iram_hi.val()) == 0);
        self.ls_dram.next = self.ls_aligned.val() & ((self.ls_addr.val() & self.dram_hi.val()) == self.dram_base.val());
        self.ls_go.next = self.ls_valid.val() & !self.stall.val();
        self.if_go.next = self.if_valid.val() & !self.stall.val();
        // ---- IRAM port A: load/store first, then fetch ----
        self.iram.a_valid.next = (self.ls_go.val() & self.ls_iram.val()) | (self.if_go.val() & !self.if_bad.val());
        self.iram.a_write.next = false;
        self.iram.a_word.next = self.if_addr.val().get_bits::<IW>(2);
        self.iram.a_wdata.next = self.ls_wdata.val();
        self.iram.a_wstrb.next = self.ls_wstrb.val();
        self.if_take.next = self.if_go.val() & !self.if_bad.val() & !self.iram_pio.val();
        if self.ls_go.val() & self.ls_iram.val() {
            self.iram.a_write.next = self.ls_write.val();
            self.iram.a_word.next = self.ls_addr.val().get_bits::<IW>(2);
            self.if_take.next = false;
        }
        // ---- DRAM port A: load/store ----
        self.dram.a_valid.next = self.ls_go.val() & self.ls_dram.val();
        self.dram.a_write.next = self.ls_write.val();
        self.dram.a_word.next = self.ls_addr.val().get_bits::<DW>(2);
        self.dram.a_wdata.next = self.ls_wdata.val();
        self.dram.a_wstrb.next = self.ls_wstrb.val();
        // ---- ready ----
        self.if_ready.next = !self.stall.val() & (self.if_bad.val() | (!self.iram_pio.val() & !(self.ls_valid.val() & self.ls_iram.val())));
        self.ls_ready.next = false;
        if !self.stall.val() {
            if self.ls_iram.val() {
                self.ls_ready.next = !self.iram_pio.val();
            } else if self.ls_dram.val() {
                self.ls_ready.next = !self.dram_pio.val();
            } else {
                self.ls_ready.next = true;
            }
        }
        // ---- responses ----
        self.iram_if_q.d.next = self.if_take.val();
        self.if_err_q.d.next = self.if_go.val() & self.if_bad.val();
        self.ls_err_q.d.next = self.ls_go.val() & !self.ls_iram.val() & !self.ls_dram.val();
        self.if_rvalid.next = (self.iram.a_rvalid.val() & self.iram_if_q.q.val()) | self.if_err_q.q.val();
        self.if_err.next = self.if_err_q.q.val();
        self.if_rdata.next = 0.into();
        self.ls_rvalid.next = (self.iram.a_rvalid.val() & !self.iram_if_q.q.val()) | self.dram.a_rvalid.val() | self.ls_err_q.q.val();
        self.ls_err.next = self.ls_err_q.q.val();
        self.ls_rdata.next = 0.into();
        if self.iram.a_rvalid.val() {
            if self.iram_if_q.q.val() {
                self.if_rdata.next = self.iram.rdata.val();
            } else {
                self.ls_rdata.next = self.iram.rdata.val();
            }
        }
        if self.dram.a_rvalid.val() {
            self.ls_rdata.next = self.dram.rdata.val();
        }
        if self.reset.val() {
            self.iram_if_q.d.next = false;
            self.if_err_q.d.next = false;
            self.ls_err_q.d.next = false;
        }
    }
}

bar0_slave_block! {
/// The cluster: [`CORES`] × [`Q7Core`], the PIO decoder and run-stall gating.
pub struct Q7Cluster<const IW: usize, const DW: usize> {
    /// release_run_stall of the Q7 bundle: bit n stalls core n.
    pub run_stall: Signal<In, Bits<8>>,
    /// The cores' HALT/WAITI state (from the behavioural cores).
    pub halted: Signal<In, Bits<8>>,
    /// `!run_stall & !halted`, for run_state_n.
    pub running: Signal<Out, Bits<8>>,
    pub if_valid: [Signal<In, Bit>; CORES],
    pub if_addr: [Signal<In, Bits<32>>; CORES],
    pub if_ready: [Signal<Out, Bit>; CORES],
    pub if_rvalid: [Signal<Out, Bit>; CORES],
    pub if_rdata: [Signal<Out, Bits<32>>; CORES],
    pub if_err: [Signal<Out, Bit>; CORES],
    pub ls_valid: [Signal<In, Bit>; CORES],
    pub ls_write: [Signal<In, Bit>; CORES],
    pub ls_addr: [Signal<In, Bits<32>>; CORES],
    pub ls_wdata: [Signal<In, Bits<32>>; CORES],
    pub ls_wstrb: [Signal<In, Bits<4>>; CORES],
    pub ls_ready: [Signal<Out, Bit>; CORES],
    pub ls_rvalid: [Signal<Out, Bit>; CORES],
    pub ls_rdata: [Signal<Out, Bits<32>>; CORES],
    pub ls_err: [Signal<Out, Bit>; CORES],
    core: [Q7Core<IW, DW>; CORES],
    core_base: [Constant<Bits<32>>; CORES],
    core_mask: Constant<Bits<32>>,
    off_mask: Constant<Bits<32>>,
    iram_hi: Constant<Bits<32>>,
    dram_hi: Constant<Bits<32>>,
    dram_offset: Constant<Bits<32>>,
    iram_region_hi: Constant<Bits<32>>,
    dram_region_hi: Constant<Bits<32>>,
    err_q: DFF<Bit>,
    zero_q: DFF<Bit>,
    off: Signal<Local, Bits<32>>,
    hit: Signal<Local, Bit>,
    in_iram: Signal<Local, Bit>,
    in_dram: Signal<Local, Bit>,
    past_built: Signal<Local, Bit>,
}
}

impl<const IW: usize, const DW: usize> Q7Cluster<IW, DW> {
    /// A cluster with the BAR0 layout `stride` (bytes per core),
    /// `dram_offset` (DRAM offset within a core's stride) and the IRAM and
    /// DRAM regions' sizes (the memories built may be smaller); all come
    /// from `tpb_regmap::Q7Layout`. Panics on a layout the memories don't
    /// fit, which `arch.toml`'s loader already refuses.
    pub fn new(stride: u32, dram_offset: u32, iram_region: u32, dram_region: u32) -> Self {
        let (iram_bytes, dram_bytes) = (4u64 << IW, 4u64 << DW);
        assert!(stride.is_power_of_two(), "Q7 core stride {stride:#x} must be a power of two");
        assert!(iram_bytes <= u64::from(dram_offset), "IRAM larger than the DRAM offset");
        assert!(u64::from(dram_offset) % dram_bytes == 0, "DRAM offset {dram_offset:#x} not aligned to the DRAM size");
        assert!(u64::from(dram_offset) + dram_bytes <= u64::from(stride), "DRAM past the core stride");
        assert!(iram_region.is_power_of_two() && u64::from(iram_region) >= iram_bytes && iram_region <= dram_offset, "IRAM region {iram_region:#x}");
        assert!(
            dram_region.is_power_of_two()
                && u64::from(dram_region) >= dram_bytes
                && dram_offset.is_multiple_of(dram_region)
                && u64::from(dram_offset) + u64::from(dram_region) <= u64::from(stride),
            "DRAM region {dram_region:#x}"
        );
        let c32 = |v: u64| Constant::new((v & 0xffff_ffff).into());
        bar0_slave_new! { Q7Cluster {
            run_stall, halted, running, if_valid, if_addr, if_ready, if_rvalid, if_rdata, if_err, ls_valid, ls_write,
            ls_addr, ls_wdata, ls_wstrb, ls_ready, ls_rvalid, ls_rdata, ls_err,
            core: std::array::from_fn(|_| Default::default()),
            core_base: std::array::from_fn(|i| c32(i as u64 * u64::from(stride))),
            core_mask: c32(!(u64::from(stride) - 1)),
            off_mask: c32(u64::from(stride) - 1),
            iram_hi: c32(!(iram_bytes - 1)),
            dram_hi: c32(!(dram_bytes - 1)),
            dram_offset: c32(u64::from(dram_offset)),
            iram_region_hi: c32(!(u64::from(iram_region) - 1)),
            dram_region_hi: c32(!(u64::from(dram_region) - 1)),
            err_q, zero_q, off, hit, in_iram, in_dram, past_built,
        } }
    }
}

impl<const IW: usize, const DW: usize> Logic for Q7Cluster<IW, DW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, err_q, zero_q);
        self.off.next = self.req_addr.val() & self.off_mask.val();
        self.in_iram.next = (self.off.val() & self.iram_hi.val()) == 0;
        self.in_dram.next = (self.off.val() & self.dram_hi.val()) == self.dram_offset.val();
        // In a memory's region but past what is built; only reads and writes of zero.
        self.past_built.next = (((self.off.val() & self.iram_region_hi.val()) == 0) & !self.in_iram.val())
            | (((self.off.val() & self.dram_region_hi.val()) == self.dram_offset.val()) & !self.in_dram.val());
        self.hit.next = false;
        self.running.next = !self.run_stall.val() & !self.halted.val();
        self.rsp_valid.next = self.err_q.q.val() | self.zero_q.q.val();
        self.rsp_err.next = self.err_q.q.val();
        self.rsp_rdata.next = 0.into();
        for i in 0..CORES {
            self.core[i].clock.next = self.clock.val();
            self.core[i].reset.next = self.reset.val();
            self.core[i].stall.next = self.run_stall.val().get_bit(i) | self.reset.val();
            self.core[i].pio_valid.next = false;
            if self.req_valid.val()
                & !self.reset.val()
                & !self.req_addr.val().get_bit(0)
                & !self.req_addr.val().get_bit(1)
                & ((self.req_addr.val() & self.core_mask.val()) == self.core_base[i].val())
                & (self.in_iram.val() | self.in_dram.val())
            {
                self.core[i].pio_valid.next = true;
                self.hit.next = true;
            }
            if self.req_valid.val()
                & !self.reset.val()
                & !self.req_addr.val().get_bit(0)
                & !self.req_addr.val().get_bit(1)
                & ((self.req_addr.val() & self.core_mask.val()) == self.core_base[i].val())
                & self.past_built.val()
                & (!self.req_write.val() | (self.req_wdata.val() == 0))
            {
                self.hit.next = true;
            }
            self.core[i].pio_write.next = self.req_write.val();
            self.core[i].pio_dram.next = self.in_dram.val();
            self.core[i].pio_iword.next = self.off.val().get_bits::<IW>(2);
            self.core[i].pio_dword.next = self.off.val().get_bits::<DW>(2);
            self.core[i].pio_wdata.next = self.req_wdata.val();
            if self.core[i].pio_rvalid.val() {
                self.rsp_valid.next = true;
                self.rsp_rdata.next = self.core[i].pio_rdata.val();
            }
            self.core[i].if_valid.next = self.if_valid[i].val();
            self.core[i].if_addr.next = self.if_addr[i].val();
            self.if_ready[i].next = self.core[i].if_ready.val();
            self.if_rvalid[i].next = self.core[i].if_rvalid.val();
            self.if_rdata[i].next = self.core[i].if_rdata.val();
            self.if_err[i].next = self.core[i].if_err.val();
            self.core[i].ls_valid.next = self.ls_valid[i].val();
            self.core[i].ls_write.next = self.ls_write[i].val();
            self.core[i].ls_addr.next = self.ls_addr[i].val();
            self.core[i].ls_wdata.next = self.ls_wdata[i].val();
            self.core[i].ls_wstrb.next = self.ls_wstrb[i].val();
            self.ls_ready[i].next = self.core[i].ls_ready.val();
            self.ls_rvalid[i].next = self.core[i].ls_rvalid.val();
            self.ls_rdata[i].next = self.core[i].ls_rdata.val();
            self.ls_err[i].next = self.core[i].ls_err.val();
        }
        self.err_q.d.next = self.req_valid.val() & !self.hit.val();
        self.zero_q.d.next = self.req_valid.val() & self.hit.val() & self.past_built.val();
        if self.reset.val() {
            self.err_q.d.next = false;
            self.zero_q.d.next = false;
        }
    }
}
