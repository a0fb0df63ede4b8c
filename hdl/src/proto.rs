//! # FPGA prototype top: the host link's bridge + a generation's TPB top
//!
//! What goes on a board: the [`HostBridge`] (UART ↔ BAR0) driving the BAR0
//! port of a generation's TPB top, a power-on reset, and status LEDs. The
//! behavioural cores do not exist on the board: the cores' memory ports are
//! idle and no core reports HALT (`q7_halted = nx_halted = 0`; the SEQ DMA's
//! SoC writes are answered at once with an error), so a core's
//! `run_state.running` follows its run-stall bit alone, as in the HAL's
//! golden register-file model. The host reaches every register and memory
//! over the link, as it would over PCIe.
//!
//! Between the bridge and the top's BAR0 port sit a request stage and a
//! response stage (flip-flops): the request leaves the bridge's burst
//! buffer and reaches the ~17k flip-flops of the top's blocks from a
//! register, and the top's response mux ends in a register instead of the
//! bridge's state machine. Each access takes two cycles more; the bridge
//! waits for the response anyway.
//!
//! The board wrapper (`tpb fpga build`, `hdl/src/fpga/`) adds the PLL that
//! makes the design clock from the board's oscillator and the pins.
//!
//! ## Ports
//! - `clock` (the design clock), `pll_locked` (high once the clock is
//!   stable), `btn_reset` (active high): `reset_req` (a flip-flop) is high
//!   until 255 cycles after `pll_locked & !btn_reset`;
//! - `reset` (in): the reset the bridge and the top use, synchronous, active
//!   high: `reset_req` brought back in. The board wrapper puts it on a global
//!   net (an ECP5 `DCCA`: it reaches every one of the ~17k flip-flops);
//!   a simulation connects `reset_req` to `reset` directly;
//! - `uart_rx` (from the host), `uart_tx` (to the host);
//! - `led[7:0]`: 0 heartbeat (about 1.5 Hz at 50 MHz), 1 a frame is being
//!   handled, 2 a bad frame was seen, 3 reset, 4 the SEQ DMA is busy, 5 some
//!   Q7 core is released, 6 the POOL SEQ is released, 7 SUNDA: host_trigger
//!   was written / CAYMAN, MARIANA: the HW-decode CAM missed.
//!
//! Memory sizes: [`CaymanProto`] and the others wrap a top with the
//! prototype's memories ([`ProtoMem`]: Q7 IRAM and DRAM 8 KiB per core, SEQ
//! IRAM/DRAM 16 KiB, the TOP_SP SPADs at full size), or with the 1 KiB
//! memories of the FPGA-sized top (`*ProtoSmall`). Past the built size a
//! memory reads as zero and takes writes of zero (a ucode image's zero pad);
//! other writes there are bus errors.
//!
//! ```
//! use tpb_hdl::proto::CaymanProto;
//! use tpb_hdl::top::TopLayout;
//! let map = tpb_regmap::builtin(tpb_regmap::Arch::Cayman).unwrap();
//! let mut p = CaymanProto::new(&TopLayout::of(&map).unwrap(), 17).unwrap();
//! let v = tpb_hdl::verilog::of(&mut p, "cayman_tpb_proto");
//! assert!(v.contains("module cayman_tpb_proto("));
//! ```

#![allow(clippy::nonminimal_bool)]

use crate::host_link::HostBridge;
use crate::top::{CaymanTpbTop, LayoutError, MarianaTpbTop, SundaTpbTop, TopLayout};
use rust_hdl::prelude::*;
use tpb_regmap::{Arch, RegMap};

/// The design clock the prototype is built for by default (`[D]`): the
/// board's PLL makes it (ULX3S: from its 25 MHz oscillator).
pub const DEFAULT_CLOCK_HZ: u32 = 50_000_000;
/// The host link's default rate (`[D]`; the ULX3S's FT231X goes to 3 Mbaud).
pub const DEFAULT_BAUD: u32 = 3_000_000;
/// The UART divider of the defaults (17 cycles per bit: 2.94 Mbaud).
pub const DEFAULT_UART_DIV: u32 = (DEFAULT_CLOCK_HZ + DEFAULT_BAUD / 2) / DEFAULT_BAUD;

/// Which memories a prototype builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtoSize {
    /// [`ProtoMem`]: Q7 IRAM/DRAM 8 KiB per core, SEQ 16 KiB, SPADs full size.
    Default,
    /// The FPGA-sized top's 1 KiB memories (a quicker build).
    Small,
}

/// The Verilog of `map`'s prototype with module name `module`.
pub fn verilog(map: &RegMap, size: ProtoSize, div: u32, module: &str) -> Result<String, LayoutError> {
    let lay = TopLayout::of(map)?;
    let (arch, module) = (map.arch, module.to_string());
    crate::top::on_big_stack(move || {
        // The blocks are boxed where they are made: a whole top does not fit a stack frame.
        #[allow(clippy::boxed_local)]
        fn emit<B: Block>(mut b: Box<B>, module: &str) -> String {
            crate::verilog::of(&mut *b, module)
        }
        Ok(match (arch, size) {
            (Arch::Sunda, ProtoSize::Default) => emit(Box::new(SundaProto::new(&lay, div)?), &module),
            (Arch::Sunda, ProtoSize::Small) => emit(Box::new(SundaProtoSmall::new(&lay, div)?), &module),
            (Arch::Cayman, ProtoSize::Default) => emit(Box::new(CaymanProto::new(&lay, div)?), &module),
            (Arch::Cayman, ProtoSize::Small) => emit(Box::new(CaymanProtoSmall::new(&lay, div)?), &module),
            (Arch::Mariana, ProtoSize::Default) => emit(Box::new(MarianaProto::new(&lay, div)?), &module),
            (Arch::Mariana, ProtoSize::Small) => emit(Box::new(MarianaProtoSmall::new(&lay, div)?), &module),
        })
    })
}

/// The prototype's memory sizes (word-address bits, as the tops' const
/// generics): Q7 IRAM, Q7 DRAM, SEQ IRAM/DRAM, TOP_SP CTRL SPAD, SLOT SPAD.
pub struct ProtoMem;

impl ProtoMem {
    pub const Q7_IRAM: usize = 11;
    pub const Q7_DRAM: usize = 11;
    pub const SEQ: usize = 12;
    pub const CTRL_SPAD: usize = 10;
    pub const SLOT_SPAD: usize = 13;
}

macro_rules! proto_top {
    ($s:tt, $pound:tt $attr:tt, $(#[$doc:meta])* $name:ident, $top:ident, extra = { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> {
            pub clock: Signal<In, Clock>,
            pub pll_locked: Signal<In, Bit>,
            pub btn_reset: Signal<In, Bit>,
            pub reset_req: Signal<Out, Bit>,
            pub reset: Signal<In, Bit>,
            pub uart_rx: Signal<In, Bit>,
            pub uart_tx: Signal<Out, Bit>,
            pub led: Signal<Out, Bits<8>>,
            bridge: HostBridge,
            top: $top<QIW, QDW, SW, CW, LW>,
            por: DFF<Bits<8>>,
            heartbeat: DFF<Bits<25>>,
            bad_seen: DFF<Bit>,
            extra_seen: DFF<Bit>,
            reset_q: DFF<Bit>,
            /// The BAR0 request stage: the bridge's request, registered
            /// before it fans out to every block of the top.
            req_valid_q: DFF<Bit>,
            req_write_q: DFF<Bit>,
            req_addr_q: DFF<Bits<32>>,
            req_wdata_q: DFF<Bits<32>>,
            /// The BAR0 response stage: the top's response mux, registered
            /// before the bridge's state machine.
            rsp_valid_q: DFF<Bit>,
            rsp_err_q: DFF<Bit>,
            rsp_rdata_q: DFF<Bits<32>>,
            leds: Signal<Local, Bits<8>>,
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> $name<QIW, QDW, SW, CW, LW> {
            /// The prototype of a generation's `layout`, its UART at `div`
            /// clock cycles per bit.
            pub fn new(layout: &TopLayout, div: u32) -> Result<Self, LayoutError> {
                Ok(hdl_new! { $name {
                    clock, pll_locked, btn_reset, reset_req, reset, uart_rx, uart_tx, led,
                    bridge: HostBridge::new(div),
                    top: $top::new(layout)?,
                    por, heartbeat, bad_seen, extra_seen, reset_q, req_valid_q, req_write_q, req_addr_q, req_wdata_q, rsp_valid_q,
                    rsp_err_q, rsp_rdata_q, leds,
                } })
            }
        }

        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> Logic for $name<QIW, QDW, SW, CW, LW> {
            $pound $attr
            fn update(&mut $s) {
                dff_setup!($s, clock, por, heartbeat, bad_seen, extra_seen, reset_q, req_valid_q, req_write_q, req_addr_q, req_wdata_q, rsp_valid_q, rsp_err_q, rsp_rdata_q);
                // ---- power-on reset: 255 cycles after the clock is stable ----
                $s.reset_q.d.next = $s.por.q.val() != 255;
                $s.reset_req.next = $s.reset_q.q.val();
                if !$s.pll_locked.val() | $s.btn_reset.val() {
                    $s.por.d.next = 0.into();
                } else if $s.por.q.val() != 255 {
                    $s.por.d.next = $s.por.q.val() + 1;
                }
                $s.heartbeat.d.next = $s.heartbeat.q.val() + 1;
                // ---- the bridge on the top's BAR0 port ----
                $s.bridge.clock.next = $s.clock.val();
                $s.bridge.reset.next = $s.reset.val();
                $s.bridge.rx.next = $s.uart_rx.val();
                $s.uart_tx.next = $s.bridge.tx.val();
                $s.top.clock.next = $s.clock.val();
                $s.top.reset.next = $s.reset.val();
                // A request stage and a response stage between them: a
                // request reaches the top a cycle later, its response the
                // bridge a cycle later (the bridge waits for it).
                $s.req_valid_q.d.next = $s.bridge.m_req_valid.val() & !$s.reset.val();
                $s.req_write_q.d.next = $s.bridge.m_req_write.val();
                $s.req_addr_q.d.next = $s.bridge.m_req_addr.val();
                $s.req_wdata_q.d.next = $s.bridge.m_req_wdata.val();
                $s.top.req_valid.next = $s.req_valid_q.q.val();
                $s.top.req_write.next = $s.req_write_q.q.val();
                $s.top.req_addr.next = $s.req_addr_q.q.val();
                $s.top.req_wdata.next = $s.req_wdata_q.q.val();
                $s.rsp_valid_q.d.next = $s.top.rsp_valid.val() & !$s.reset.val();
                $s.rsp_err_q.d.next = $s.top.rsp_err.val();
                $s.rsp_rdata_q.d.next = $s.top.rsp_rdata.val();
                $s.bridge.m_rsp_valid.next = $s.rsp_valid_q.q.val();
                $s.bridge.m_rsp_rdata.next = $s.rsp_rdata_q.q.val();
                $s.bridge.m_rsp_err.next = $s.rsp_err_q.q.val();
                // ---- no cores on the board: their ports idle, none halted ----
                $s.top.nx_halted.next = 0.into();
                $s.top.q7_halted.next = 0.into();
                $s.top.xlat_valid.next = false;
                $s.top.xlat_who.next = 0.into();
                $s.top.xlat_addr.next = 0.into();
                // No SoC behind the board: a SEQ DMA SoC write is answered at
                // once with an error (its descriptor retires with error.soc).
                $s.top.dma_m_ack.next = $s.top.dma_m_valid.val();
                $s.top.dma_m_err.next = true;
                for i in 0..8 {
                    $s.top.q7_if_valid[i].next = false;
                    $s.top.q7_if_addr[i].next = 0.into();
                    $s.top.q7_ls_valid[i].next = false;
                    $s.top.q7_ls_write[i].next = false;
                    $s.top.q7_ls_addr[i].next = 0.into();
                    $s.top.q7_ls_wdata[i].next = 0.into();
                    $s.top.q7_ls_wstrb[i].next = 0.into();
                }
                $($extra)*
                // ---- LEDs ----
                if $s.bridge.bad_frames.val() != 0 {
                    $s.bad_seen.d.next = true;
                }
                if $s.reset.val() {
                    $s.bad_seen.d.next = false;
                    $s.extra_seen.d.next = false;
                }
                $s.leds.next = 0.into();
                if $s.heartbeat.q.val().get_bit(24) {
                    $s.leds.next = $s.leds.val() | 0x01;
                }
                if $s.bridge.busy.val() {
                    $s.leds.next = $s.leds.val() | 0x02;
                }
                if $s.bad_seen.q.val() {
                    $s.leds.next = $s.leds.val() | 0x04;
                }
                if $s.reset.val() {
                    $s.leds.next = $s.leds.val() | 0x08;
                }
                if $s.top.dma_busy.val() {
                    $s.leds.next = $s.leds.val() | 0x10;
                }
                if $s.top.q7_run_stall.val() != 0xff {
                    $s.leds.next = $s.leds.val() | 0x20;
                }
                if !$s.top.nx_run_stall.val().get_bit(2) {
                    $s.leds.next = $s.leds.val() | 0x40;
                }
                if $s.extra_seen.q.val() {
                    $s.leds.next = $s.leds.val() | 0x80;
                }
                $s.led.next = $s.leds.val();
            }
        }
    };
}

proto_top!(
    self, #[hdl_gen],
    /// SUNDA's prototype (led 7: the TOP_SP host_trigger was written).
    SundaProtoTop, SundaTpbTop,
    extra = {
        if self.top.host_trigger_pulse.val() {
            self.extra_seen.d.next = true;
        }
    }
);
/// CAYMAN's and MARIANA's prototype: led 7 is the HW-decode CAM's miss;
/// its lookup port is idle (the prototype has no NX core to drive it).
macro_rules! hwd_proto_top {
    ($s:tt, $pound:tt $attr:tt, $(#[$doc:meta])* $name:ident, $top:ident) => {
        proto_top!(
            $s, $pound $attr,
            $(#[$doc])*
            $name, $top,
            extra = {
                $s.top.hwd_lookup_valid.next = false;
                $s.top.hwd_lookup_opcode.next = 0.into();
                $s.top.hwd_lookup_func.next = 0.into();
                $s.top.hwd_fifo_pop.next = false;
                if $s.top.hwd_miss.val() {
                    $s.extra_seen.d.next = true;
                }
            }
        );
    };
}
hwd_proto_top!(
    self, #[hdl_gen],
    /// CAYMAN's prototype (led 7: the HW-decode CAM missed).
    CaymanProtoTop, CaymanTpbTop
);
hwd_proto_top!(
    self, #[hdl_gen],
    /// MARIANA's prototype (led 7: the HW-decode CAM missed).
    MarianaProtoTop, MarianaTpbTop
);

/// The prototypes with [`ProtoMem`]'s memories.
pub type SundaProto = SundaProtoTop<{ ProtoMem::Q7_IRAM }, { ProtoMem::Q7_DRAM }, { ProtoMem::SEQ }, { ProtoMem::CTRL_SPAD }, { ProtoMem::SLOT_SPAD }>;
pub type CaymanProto = CaymanProtoTop<{ ProtoMem::Q7_IRAM }, { ProtoMem::Q7_DRAM }, { ProtoMem::SEQ }, { ProtoMem::CTRL_SPAD }, { ProtoMem::SLOT_SPAD }>;
pub type MarianaProto = MarianaProtoTop<{ ProtoMem::Q7_IRAM }, { ProtoMem::Q7_DRAM }, { ProtoMem::SEQ }, { ProtoMem::CTRL_SPAD }, { ProtoMem::SLOT_SPAD }>;
/// The prototypes with the FPGA-sized top's 1 KiB memories (a quicker build).
pub type SundaProtoSmall = SundaProtoTop<8, 8, 8, 8, 8>;
pub type CaymanProtoSmall = CaymanProtoTop<8, 8, 8, 8, 8>;
pub type MarianaProtoSmall = MarianaProtoTop<8, 8, 8, 8, 8>;
