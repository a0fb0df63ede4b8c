//! The three generations' tops: SUNDA's (the TOP_SP doorbell registers),
//! CAYMAN's and MARIANA's (the HW-decode CAM), and their sizes.

// `update` is written in the subset rust-hdl's hdl_gen translates to Verilog.
#![allow(clippy::nonminimal_bool, clippy::collapsible_if, clippy::collapsible_else_if)]

use super::*;
use crate::evt_sem::EvtSem;
use crate::hw_decode::HwDecodeCam;
use crate::q7_cluster::Q7Cluster;
use crate::seq_dma::SeqDma;
use crate::tcm::Tcm;
use crate::windows_ram::WindowsRam;
use rust_hdl::prelude::*;
use tpb_golden::csr::{Req, Rsp};
use tpb_golden::hw_decode::Outputs as HwdOutputs;
use tpb_golden::q7_cluster::PortOut;
use tpb_golden::top::{Outputs, Pins};
use tpb_regmap::{Arch, Engine};

tpb_top!(
    self, #[hdl_gen],
    /// SUNDA's TPB top (no HW-decode CAM; TOP_SP host_trigger/stop registers at +0x848).
    SundaTpbTop, nx = crate::regblocks::SundaNxRegs, win = crate::regblocks::SundaWindowsRegs,
    q7 = crate::regblocks::SundaQ7Regs, tpb = crate::regblocks::SundaTpbRegs,
    extra_fields = {
        /// One cycle per host write of TOP_SP `set_host_trigger` / `stop`.
        pub host_trigger_pulse: Signal<Out, Bit>,
        pub stop_pulse: Signal<Out, Bit>,
        top_sp_regs: crate::regblocks::SundaTopSpRegs,
        tsr_base: Constant<Bits<32>>,
        tsr_mask: Constant<Bits<32>>,
        /// The Q7 cores the SEQ has not released through the POOL EVT_SEM
        /// (`q7.seq_release_sem`, seed 004 §7.1); all at reset.
        q7_sem_stall: DFF<Bits<8>>,
        /// BAR0 address of the release semaphore's SET slot.
        q7_sem_set: Constant<Bits<32>>,
    },
    extra_init = |lay| {
        host_trigger_pulse, stop_pulse, top_sp_regs,
        tsr_base: c32(lay.local_reg[5].base + lay.top_sp_regs.map_or(0, |w| w.base)),
        tsr_mask: c32(lay.top_sp_regs.map_or(0, |w| w.mask())),
        q7_sem_stall,
        q7_sem_set: c32(lay.q7_release_addr().expect("SUNDA's map names the Q7 release semaphore")),
    },
    extra_update = {
        self.top_sp_regs.clock.next = self.clock.val();
        self.top_sp_regs.reset.next = self.reset.val();
        self.top_sp_regs.req_write.next = self.req_write.val();
        self.top_sp_regs.req_addr.next = self.lr_off.val();
        self.top_sp_regs.req_wdata.next = self.req_wdata.val();
        self.top_sp_regs.req_valid.next = false;
        if self.req_go.val() & ((self.req_addr.val() & self.tsr_mask.val()) == self.tsr_base.val()) {
            // The TOP_SP registers sit inside the TOP_SP NX bundle's first 4 KiB.
            self.top_sp_regs.req_valid.next = true;
            self.hit.next = true;
            for i in 0..6 {
                if self.is_top_sp[i].val() {
                    self.nx[i].req_valid.next = false;
                }
            }
        }
        if self.top_sp_regs.rsp_valid.val() {
            self.rsp_valid.next = true;
        }
        self.rsp_err.next = self.rsp_err.val() | (self.top_sp_regs.rsp_valid.val() & self.top_sp_regs.rsp_err.val());
        self.rsp_rdata.next = self.rsp_rdata.val() | self.top_sp_regs.rsp_rdata.val();
        self.host_trigger_pulse.next = self.top_sp_regs.host_trigger_pulse_o.val();
        self.stop_pulse.next = self.top_sp_regs.stop_pulse_o.val();
        // The doorbells latch into the TOP_SP's intr_info (`[D]`,
        // `tpb_spec::nx_intr`): bit 4 host_trigger, bit 5 stop; its firmware
        // polls them or takes the interrupt, and writes 1 to clear.
        for i in 0..6 {
            if self.is_top_sp[i].val() & self.top_sp_regs.host_trigger_pulse_o.val() {
                self.nx[i].intr_info_info_set_i.next = self.irq_set[i].val() | 16;
            }
            if self.is_top_sp[i].val() & self.top_sp_regs.stop_pulse_o.val() {
                self.nx[i].intr_info_info_set_i.next = self.irq_set[i].val() | 32;
            }
        }
        // The SEQ releases the Q7 cores by a SET of the POOL EVT_SEM release
        // semaphore: bit n of the value releases core n (`[D]`, seed 004
        // §7.1); a core runs when either its release_run_stall bit or this
        // path has released it.
        self.q7_sem_stall.clock.next = self.clock.val();
        self.q7_sem_stall.d.next = self.q7_sem_stall.q.val();
        if self.req_go.val() & self.req_write.val() & (self.req_addr.val() == self.q7_sem_set.val()) {
            self.q7_sem_stall.d.next = self.q7_sem_stall.q.val() & !self.req_wdata.val().get_bits::<8>(0);
        }
        if self.reset.val() {
            self.q7_sem_stall.d.next = 0xff.into();
        }
        self.cluster.run_stall.next = self.q7regs.release_run_stall_stall_o.val() & self.q7_sem_stall.q.val();
        self.q7_run_stall.next = self.q7regs.release_run_stall_stall_o.val() & self.q7_sem_stall.q.val();
    },
    extra_drive = |pins| {},
    extra_outputs = |o| {
        o.host_trigger_pulse = self.host_trigger_pulse.val();
        o.stop_pulse = self.stop_pulse.val();
    }
);

macro_rules! hw_decode_top {
    ($s:tt, $pound:tt $attr:tt, $(#[$doc:meta])* $name:ident, $nx:ty, $win:ty, $q7:ty, $tpb:ty) => {
        tpb_top!(
            $s, $pound $attr,
            $(#[$doc])*
            $name, nx = $nx, win = $win, q7 = $q7, tpb = $tpb,
            extra_fields = {
                pub hwd_lookup_valid: Signal<In, Bit>,
                pub hwd_lookup_opcode: Signal<In, Bits<8>>,
                pub hwd_lookup_func: Signal<In, Bits<8>>,
                pub hwd_lookup_ready: Signal<Out, Bit>,
                pub hwd_fifo_valid: Signal<Out, Bit>,
                pub hwd_fifo_hit: Signal<Out, Bit>,
                pub hwd_fifo_entry: Signal<Out, Bits<8>>,
                pub hwd_fifo_index: Signal<Out, Bits<16>>,
                pub hwd_fifo_handler: Signal<Out, Bits<32>>,
                pub hwd_fifo_pop: Signal<In, Bit>,
                pub hwd_miss: Signal<Out, Bit>,
                pub hwd_miss_irq: Signal<Out, Bit>,
                hwd: HwDecodeCam,
                hwd_base: Constant<Bits<32>>,
                hwd_mask: Constant<Bits<32>>,
            },
            extra_init = |lay| {
                hwd_lookup_valid, hwd_lookup_opcode, hwd_lookup_func, hwd_lookup_ready, hwd_fifo_valid, hwd_fifo_hit,
                hwd_fifo_entry, hwd_fifo_index, hwd_fifo_handler, hwd_fifo_pop, hwd_miss, hwd_miss_irq, hwd,
                hwd_base: c32(hw_decode_window(lay)?.base),
                hwd_mask: c32(hw_decode_window(lay)?.mask()),
            },
            extra_update = {
                $s.hwd.clock.next = $s.clock.val();
                $s.hwd.reset.next = $s.reset.val();
                $s.hwd.req_valid.next = $s.req_go.val() & (($s.req_addr.val() & $s.hwd_mask.val()) == $s.hwd_base.val());
                $s.hwd.req_write.next = $s.req_write.val();
                $s.hwd.req_addr.next = $s.req_addr.val() & !$s.hwd_mask.val();
                $s.hwd.req_wdata.next = $s.req_wdata.val();
                if $s.req_go.val() & (($s.req_addr.val() & $s.hwd_mask.val()) == $s.hwd_base.val()) {
                    $s.hit.next = true;
                }
                if $s.hwd.rsp_valid.val() {
                    $s.rsp_valid.next = true;
                }
                $s.rsp_err.next = $s.rsp_err.val() | ($s.hwd.rsp_valid.val() & $s.hwd.rsp_err.val());
                $s.rsp_rdata.next = $s.rsp_rdata.val() | $s.hwd.rsp_rdata.val();
                $s.hwd.lookup_valid.next = $s.hwd_lookup_valid.val();
                $s.hwd.lookup_opcode.next = $s.hwd_lookup_opcode.val();
                $s.hwd.lookup_func.next = $s.hwd_lookup_func.val();
                $s.hwd_lookup_ready.next = $s.hwd.lookup_ready.val();
                $s.hwd_fifo_valid.next = $s.hwd.fifo_valid.val();
                $s.hwd_fifo_hit.next = $s.hwd.fifo_hit.val();
                $s.hwd_fifo_entry.next = $s.hwd.fifo_entry.val();
                $s.hwd_fifo_index.next = $s.hwd.fifo_index.val();
                $s.hwd_fifo_handler.next = $s.hwd.fifo_handler.val();
                $s.hwd.fifo_pop.next = $s.hwd_fifo_pop.val();
                $s.hwd_miss.next = $s.hwd.miss.val();
                $s.hwd_miss_irq.next = $s.hwd.miss_irq.val();
                // A CAM miss is POOL's intr_info bit 1 (with the sources the common logic set).
                if $s.hwd.miss_irq.val() {
                    for i in 0..6 {
                        if $s.is_pool[i].val() {
                            $s.nx[i].intr_info_info_set_i.next = $s.irq_set[i].val() | 2;
                        }
                    }
                }
            },
            extra_drive = |pins| {
                let (op, func) = pins.hwd_lookup.unwrap_or((0, 0));
                $s.hwd_lookup_valid.next = pins.hwd_lookup.is_some();
                $s.hwd_lookup_opcode.next = u64::from(op).into();
                $s.hwd_lookup_func.next = u64::from(func).into();
                $s.hwd_fifo_pop.next = pins.hwd_pop;
            },
            extra_outputs = |o| {
                o.hwd = Some(HwdOutputs {
                    rsp_valid: false,
                    rsp_rdata: 0,
                    rsp_err: false,
                    lookup_ready: $s.hwd_lookup_ready.val(),
                    fifo_valid: $s.hwd_fifo_valid.val(),
                    head: tpb_golden::hw_decode::LookupResult {
                        hit: $s.hwd_fifo_hit.val(),
                        entry: $s.hwd_fifo_entry.val().index() as u8,
                        index: $s.hwd_fifo_index.val().index() as u16,
                        handler: $s.hwd_fifo_handler.val().index() as u32,
                    },
                    miss: $s.hwd_miss.val(),
                    miss_irq: $s.hwd_miss_irq.val(),
                });
            }
        );
    };
}

fn hw_decode_window(lay: &TopLayout) -> Result<Window, LayoutError> {
    let w = lay.hw_decode.ok_or_else(|| LayoutError::Bad { what: "[hw_decode]".into(), detail: "this top has a HW-decode CAM; the parameters have none".into() })?;
    let need = 8u64 << crate::hw_decode::DEFAULT_TABLE_BITS;
    if u64::from(w.size) != need {
        return Err(LayoutError::Bad { what: "[hw_decode]".into(), detail: format!("window {:#x} bytes; the CAM block decodes {need:#x}", w.size) });
    }
    Ok(w)
}

hw_decode_top!(
    self, #[hdl_gen],
    /// CAYMAN's TPB top (with the HW-decode CAM).
    CaymanTpbTop, crate::regblocks::CaymanNxRegs, crate::regblocks::CaymanWindowsRegs, crate::regblocks::CaymanQ7Regs, crate::regblocks::CaymanTpbRegs
);
hw_decode_top!(
    self, #[hdl_gen],
    /// MARIANA's TPB top (with the HW-decode CAM).
    MarianaTpbTop, crate::regblocks::MarianaNxRegs, crate::regblocks::MarianaWindowsRegs, crate::regblocks::MarianaQ7Regs, crate::regblocks::MarianaTpbRegs
);

/// SUNDA at full size: Q7 IRAM/DRAM 64 KiB each, SEQ 64 KiB, SPADs 4/32 KiB
/// (`arch.toml`; a test pins these to the parameters).
pub type SundaTop = SundaTpbTop<14, 14, 14, 10, 13>;
/// CAYMAN at full size: Q7 IRAM 128 KiB, DRAM 256 KiB.
pub type CaymanTop = CaymanTpbTop<15, 16, 14, 10, 13>;
/// MARIANA at full size (CAYMAN's memory sizes).
pub type MarianaTop = MarianaTpbTop<15, 16, 14, 10, 13>;
/// FPGA builds: every memory 1 KiB (the BAR0 map is unchanged; the rest of
/// each region answers `rsp_err`).
pub type SundaTopFpga = SundaTpbTop<8, 8, 8, 8, 8>;
pub type CaymanTopFpga = CaymanTpbTop<8, 8, 8, 8, 8>;
pub type MarianaTopFpga = MarianaTpbTop<8, 8, 8, 8, 8>;

/// The memory sizes (word-address bits) the full-size top of `arch` builds:
/// the const generics of [`SundaTop`], [`CaymanTop`], [`MarianaTop`] as a
/// value, so a test can pin them to `arch.toml`.
pub fn full_mem_bits(arch: Arch) -> tpb_golden::top::MemBits {
    let (q7_iram, q7_dram) = match arch {
        Arch::Sunda => (14, 14),
        Arch::Cayman | Arch::Mariana => (15, 16),
    };
    tpb_golden::top::MemBits { q7_iram, q7_dram, seq: 14, ctrl_spad: 10, slot_spad: 13, dma: DMA_AW }
}
