//! # The BAR0 slave port every block has
//!
//! Its protocol, the port bundle the hand-written blocks declare with
//! [`bar0_slave_block!`](crate::bar0_slave_block) (and construct with [`bar0_slave_new!`](crate::bar0_slave_new)), and, for
//! the generated register blocks, name-based port access and a cycle driver
//! for the rust-hdl simulator.
//!
//! ## Bus protocol `[D]`
//! Inputs `req_valid`, `req_write`, `req_addr[31:0]` (byte address within the
//! aperture), `req_wdata[31:0]` are sampled on a rising edge of `clock`. The
//! response `rsp_valid`, `rsp_rdata[31:0]`, `rsp_err` is registered: it is
//! valid during the cycle after the request edge, for one cycle. Every request
//! gets a response (no back-pressure); writes are acknowledged with
//! `rsp_rdata = 0`. `rsp_err = 1` for an address not mapped by the block or
//! not 4-byte aligned; such a write changes nothing.
//!
//! ## Reset
//! `reset` is synchronous and active high: on the edge where it is high every
//! stored field takes its map reset value and no response is produced.
//!
//! ## Hardware-side ports
//! See `tpb_regmap::gen::rust_hdl` (one table of suffixes per access type).

use rust_hdl::prelude::*;

/// Declares a block whose first ports are the BAR0 slave port, in the
/// order every block's Verilog lists them: `clock`, `reset`, `req_valid`,
/// `req_write`, `req_addr[31:0]`, `req_wdata[31:0]`, `rsp_valid`,
/// `rsp_rdata[31:0]`, `rsp_err`; then the block's own fields. The ports stay
/// flat signals of the block (a rust-hdl `LogicInterface` would rename each
/// to `bus$req_valid` in the Verilog every tool and test names them by).
#[macro_export]
macro_rules! bar0_slave_block {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(<$(const $g:ident: usize),+>)? { $($fields:tt)* }
    ) => {
        $(#[$meta])*
        #[derive(LogicBlock)]
        pub struct $name $(<$(const $g: usize),+>)? {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub req_valid: Signal<In, Bit>,
            pub req_write: Signal<In, Bit>,
            pub req_addr: Signal<In, Bits<32>>,
            pub req_wdata: Signal<In, Bits<32>>,
            pub rsp_valid: Signal<Out, Bit>,
            pub rsp_rdata: Signal<Out, Bits<32>>,
            pub rsp_err: Signal<Out, Bit>,
            $($fields)*
        }
    };
}

/// Drive a [`bar0_slave_block!`](crate::bar0_slave_block) block's `reset` and request (`None`: no
/// request) from a simulation: `bar0_slave_drive!(block, reset, req)` with
/// `req: Option<tpb_golden::csr::Req>`.
#[macro_export]
macro_rules! bar0_slave_drive {
    ($b:expr, $reset:expr, $req:expr) => {{
        let req: Option<$crate::csr::Req> = $req;
        let r = req.unwrap_or($crate::csr::Req { write: false, addr: 0, wdata: 0 });
        $b.reset.next = $reset;
        $b.req_valid.next = req.is_some();
        $b.req_write.next = r.write;
        $b.req_addr.next = u64::from(r.addr).into();
        $b.req_wdata.next = u64::from(r.wdata).into();
    }};
}

/// A struct literal of a [`bar0_slave_block!`](crate::bar0_slave_block) block: the slave port's
/// signals new, the block's own fields as given.
#[macro_export]
macro_rules! bar0_slave_new {
    ($name:ident { $($fields:tt)* }) => {
        $crate::hdl_new! { $name { clock, reset, req_valid, req_write, req_addr, req_wdata, rsp_valid, rsp_rdata, rsp_err, $($fields)* } }
    };
}

/// A port name or value the block does not accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortError {
    #[error("no input port named '{0}'")]
    NoSuchInput(String),
    #[error("value {value:#x} does not fit input port '{port}' ({width} bit(s))")]
    TooWide { port: String, width: u32, value: u64 },
}

/// Reject a value wider than a port instead of letting rust-hdl panic.
pub fn check_width(port: &str, width: u32, value: u64) -> Result<(), PortError> {
    if width < 64 && value >> width != 0 {
        Err(PortError::TooWide { port: port.to_string(), width, value })
    } else {
        Ok(())
    }
}

/// Name-based access to a generated block's ports (implemented by the generator).
pub trait RegBlockPorts {
    fn drive_clock(&mut self, level: bool);
    fn drive_reset(&mut self, level: bool);
    fn drive_req(&mut self, valid: bool, write: bool, addr: u32, wdata: u32);
    /// `(rsp_valid, rsp_rdata, rsp_err)`.
    fn rsp(&self) -> (bool, u32, bool);
    fn drive_input(&mut self, port: &str, value: u64) -> Result<(), PortError>;
    fn output(&self, port: &str) -> Option<u64>;
}

/// A generated block running in the rust-hdl simulator, driven cycle by cycle.
pub trait RegBlockSim {
    /// One rising edge (inputs as last driven), then the falling edge.
    fn tick(&mut self);
    fn cycle(&self) -> u64;
    fn ports(&mut self) -> &mut dyn RegBlockPorts;
    fn ports_ref(&self) -> &dyn RegBlockPorts;
}

/// The rust-hdl event loop for one block: settle after every input change.
pub struct Driver<B> {
    uut: B,
    cycle: u64,
}

const SETTLE_ITERS: usize = 1000;

impl<B: Block + RegBlockPorts> Driver<B> {
    pub fn new(mut uut: B) -> Self {
        uut.connect_all();
        uut.drive_clock(false);
        assert!(simulate(&mut uut, SETTLE_ITERS), "generated block did not settle");
        Driver { uut, cycle: 0 }
    }
}

impl<B: Block + RegBlockPorts> RegBlockSim for Driver<B> {
    fn tick(&mut self) {
        self.uut.drive_clock(true);
        // A generated block has no combinational loop (checked by rust-hdl's
        // check_all in the Verilog generator), so it always settles.
        simulate(&mut self.uut, SETTLE_ITERS);
        self.uut.drive_clock(false);
        simulate(&mut self.uut, SETTLE_ITERS);
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
    fn ports(&mut self) -> &mut dyn RegBlockPorts {
        &mut self.uut
    }
    fn ports_ref(&self) -> &dyn RegBlockPorts {
        &self.uut
    }
}
