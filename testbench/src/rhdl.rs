//! A bus-level driver for one generated register block under the rust-hdl
//! simulator: reset, read, write and hardware-port access by name.

use tpb_hdl::bar0_port::{PortError, RegBlockSim};
use tpb_models::csr::Rsp;
use tpb_models::regmap::Arch;

/// One generated block and its clock.
pub struct RhdlBlock {
    sim: Box<dyn RegBlockSim>,
}

impl RhdlBlock {
    /// Instantiate a generated block; None for an unknown (arch, block).
    pub fn new(arch: Arch, block: &str) -> Option<Self> {
        tpb_hdl::regblocks::new_block(arch, block).map(|sim| RhdlBlock { sim })
    }

    /// Synchronous reset for one cycle.
    pub fn reset(&mut self) {
        self.sim.ports().drive_reset(true);
        self.sim.tick();
        self.sim.ports().drive_reset(false);
    }

    /// One clock with no request.
    pub fn idle(&mut self) {
        self.sim.ports().drive_req(false, false, 0, 0);
        self.sim.tick();
    }

    /// Drive a request for one edge and return the registered response.
    pub fn request(&mut self, write: bool, addr: u32, wdata: u32) -> Rsp {
        self.sim.ports().drive_req(true, write, addr, wdata);
        self.sim.tick();
        self.sim.ports().drive_req(false, false, 0, 0);
        let (valid, rdata, err) = self.sim.ports_ref().rsp();
        Rsp { valid, rdata, err }
    }

    pub fn write(&mut self, addr: u32, wdata: u32) -> Rsp {
        self.request(true, addr, wdata)
    }

    pub fn read(&mut self, addr: u32) -> Rsp {
        self.request(false, addr, 0)
    }

    /// Drive a hardware-side input port (held until changed).
    pub fn drive(&mut self, port: &str, value: u64) -> Result<(), PortError> {
        self.sim.ports().drive_input(port, value)
    }

    /// Current value of a hardware-side output port.
    pub fn output(&self, port: &str) -> Option<u64> {
        self.sim.ports_ref().output(port)
    }

    /// Current response port values.
    pub fn rsp(&self) -> Rsp {
        let (valid, rdata, err) = self.sim.ports_ref().rsp();
        Rsp { valid, rdata, err }
    }

    /// Raw access for cycle-exact stimulus.
    pub fn sim(&mut self) -> &mut dyn RegBlockSim {
        self.sim.as_mut()
    }

    pub fn cycle(&self) -> u64 {
        self.sim.cycle()
    }
}
