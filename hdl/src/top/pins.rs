//! Pin-level access to every generation's top ([`TopPins`], stamped out by
//! `top_pins!` inside `tpb_top!`) and the rust-hdl simulator behind the
//! one top-simulation trait ([`TopSim`]).

use rust_hdl::prelude::*;
use tpb_golden::csr::Req;
use tpb_golden::top::{Outputs, Pins};

/// Pin-level access to a top, in the golden model's terms (implemented by
/// every generation's top).
pub trait TopPins {
    fn drive_clock(&mut self, level: bool);
    /// Drive this cycle's inputs (`req` on the BAR0 port, the other pins).
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins);
    /// Every output as the golden model reports it (the HW-decode bus
    /// response is part of `rsp`, so `hwd` carries no response of its own).
    fn outputs(&self) -> Outputs;
}

/// The one top-simulation interface (it lives with the golden model); the
/// rust-hdl simulator implements it below: `drive` settles the inputs,
/// `tick` is one rising then falling clock edge.
pub use tpb_golden::top::TopSim;

struct Driver<T>(Box<T>);

const SETTLE_ITERS: usize = 10_000;

impl<T: Block + TopPins> TopSim for Driver<T> {
    fn drive(&mut self, reset: bool, req: Option<Req>, pins: &Pins) {
        self.0.drive(reset, req, pins);
        assert!(simulate(&mut *self.0, SETTLE_ITERS), "top did not settle");
    }
    fn tick(&mut self) {
        self.0.drive_clock(true);
        assert!(simulate(&mut *self.0, SETTLE_ITERS), "top did not settle");
        self.0.drive_clock(false);
        assert!(simulate(&mut *self.0, SETTLE_ITERS), "top did not settle");
    }
    fn outputs(&self) -> Outputs {
        self.0.outputs()
    }
}

pub(super) fn driver<T: Block + TopPins + Send + 'static>(t: T) -> Box<dyn TopSim + Send> {
    let mut t = Box::new(t);
    t.connect_all();
    t.drive_clock(false);
    let mut d = Driver(t);
    d.drive(false, None, &Pins::default());
    Box::new(d)
}

/// Run `f` on a thread with a large stack: a top is ~450 KB by value and its
/// construction (with the copies a debug build makes) overflows the 2 MiB
/// stack of a test thread.
pub(crate) fn on_big_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new().stack_size(256 << 20).spawn(f).expect("spawn the construction thread").join().unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The [`TopPins`] implementation of a top stamped out by `tpb_top!`: the
/// common pins plus the generation's own (`extra_drive`, `extra_outputs`).
macro_rules! top_pins {
    (
        $s:tt, $name:ident,
        extra_drive = |$pins:ident| { $($extra_drive:tt)* },
        extra_outputs = |$outs:ident| { $($extra_outputs:tt)* }
    ) => {
        impl<const QIW: usize, const QDW: usize, const SW: usize, const CW: usize, const LW: usize> TopPins for $name<QIW, QDW, SW, CW, LW> {
            fn drive_clock(&mut $s, level: bool) {
                $s.clock.next = Clock::from(level);
            }
            fn drive(&mut $s, reset: bool, req: Option<Req>, $pins: &Pins) {
                bar0_slave_drive!($s, reset, req);
                $s.nx_halted.next = u64::from($pins.nx_halted & 0x3f).into();
                $s.q7_halted.next = u64::from($pins.q7_halted).into();
                let (who, addr) = $pins.xlat.unwrap_or((0, 0));
                $s.xlat_valid.next = $pins.xlat.is_some();
                $s.xlat_who.next = u64::from(who & 15).into();
                $s.xlat_addr.next = u64::from(addr).into();
                $s.dma_m_ack.next = $pins.dma_m_ack;
                $s.dma_m_err.next = $pins.dma_m_err;
                for n in 0..8 {
                    let c = &$pins.q7[n];
                    $s.q7_if_valid[n].next = c.if_valid;
                    $s.q7_if_addr[n].next = u64::from(c.if_addr).into();
                    $s.q7_ls_valid[n].next = c.ls_valid;
                    $s.q7_ls_write[n].next = c.ls_write;
                    $s.q7_ls_addr[n].next = u64::from(c.ls_addr).into();
                    $s.q7_ls_wdata[n].next = u64::from(c.ls_wdata).into();
                    $s.q7_ls_wstrb[n].next = u64::from(c.ls_wstrb & 15).into();
                }
                $($extra_drive)*
            }
            fn outputs(&$s) -> Outputs {
                let mut $outs = Outputs {
                    rsp: Rsp { valid: $s.rsp_valid.val(), rdata: $s.rsp_rdata.val().index() as u32, err: $s.rsp_err.val() },
                    nx_run_stall: $s.nx_run_stall.val().index() as u8,
                    q7_run_stall: $s.q7_run_stall.val().index() as u8,
                    nx_start: $s.nx_start.val().index() as u8,
                    nx_start_addr: $s.nx_start_addr.val().index() as u32,
                    q7_start: $s.q7_start.val().index() as u8,
                    q7_start_addr: $s.q7_start_addr.val().index() as u32,
                    notific_head: $s.notific_head.val().index() as u32,
                    timestamp: $s.timestamp_lo.val().index() as u64 | ($s.timestamp_hi.val().index() as u64) << 32,
                    nx_irq: $s.nx_irq.val().index() as u8,
                    q7_irq: $s.q7_irq.val().index() as u8,
                    sem_notif_valid: $s.sem_notif_valid.val().index() as u8,
                    sem_notif_index: if $s.sem_notif_valid.val().index() != 0 { $s.sem_notif_index.val().index() as u8 } else { 0 },
                    dma_db_valid: $s.dma_db_valid.val(),
                    dma_busy: $s.dma_busy.val(),
                    dma_m: tpb_golden::seq_dma::Master {
                        valid: $s.dma_m_valid.val(),
                        addr: $s.dma_m_addr_lo.val().index() as u64 | ($s.dma_m_addr_hi.val().index() as u64) << 32,
                        wdata: $s.dma_m_wdata.val().index() as u32,
                    },
                    xlat: tpb_golden::top::XlatOut { valid: $s.xlat_rsp_valid.val(), hit: $s.xlat_hit.val(), dst: $s.xlat_dst_lo.val().index() as u64 | ($s.xlat_dst_hi.val().index() as u64) << 32 },
                    ..Outputs::default()
                };
                for n in 0..8 {
                    $outs.q7[n] = PortOut {
                        if_ready: $s.q7_if_ready[n].val(),
                        if_rvalid: $s.q7_if_rvalid[n].val(),
                        if_rdata: $s.q7_if_rdata[n].val().index() as u32,
                        if_err: $s.q7_if_err[n].val(),
                        ls_ready: $s.q7_ls_ready[n].val(),
                        ls_rvalid: $s.q7_ls_rvalid[n].val(),
                        ls_rdata: $s.q7_ls_rdata[n].val().index() as u32,
                        ls_err: $s.q7_ls_err[n].val(),
                    };
                }
                $($extra_outputs)*
                $outs
            }
        }
    };
}
