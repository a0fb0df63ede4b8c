//! Register coverage of a testbench ([`tpb_models::regmap::cover`]): every
//! bus access it makes, and every value an `expect` or `poll` compares,
//! counted against the map's fields for a named run. On a co-simulation the
//! [`Cosim`] keeps it (its cores' accesses count too).

use super::*;

impl Tb {
    /// A testbench over the Verilator model `dut` (one built at run time:
    /// `tpb cover`'s coverage model), reset and ready.
    pub fn on_dut(dut: Dut) -> Result<Tb, TbError> {
        let map = builtin(dut.arch()).map_err(|e| TbError::Map(e.to_string()))?;
        let mut tb =
            Tb { names: Names::new(&map), engine: EngineKind::Verilator, sim: Sim::Vl(Box::new(dut)), cycle: 0, pins: Pins::default(), tracing: None, regs: None, points: None };
        tb.reset();
        Ok(tb)
    }

    /// From now on, count register coverage and the seeds' cases for the run `source`.
    pub fn keep_coverage(&mut self, source: &str) {
        let mut rc = Box::new(RegCoverage::new(self.names.map()));
        rc.source(source);
        let p = Box::new(Points::new(self.names.map(), source));
        match &mut self.sim {
            Sim::Cosim(c) => (c.regs, c.points) = (Some(rc), Some(p)),
            _ => (self.regs, self.points) = (Some(rc), Some(p)),
        }
    }

    /// What was counted so far (and stop counting).
    pub fn take_coverage(&mut self) -> (Option<RegCoverage>, Option<Points>) {
        let (r, p) = match &mut self.sim {
            Sim::Cosim(c) => (c.regs.take(), c.points.take()),
            _ => (self.regs.take(), self.points.take()),
        };
        (r.map(|b| *b), p.map(|b| *b))
    }

    /// `t`'s value was compared: its field's bits, or the whole word.
    pub(super) fn checked(&mut self, t: &Target) {
        let Some(addr) = t.addr() else { return };
        let mask = match t {
            Target::Bus(Named::Reg { field: Some(f), .. }) => f.mask(),
            _ => u32::MAX,
        };
        match &mut self.sim {
            Sim::Cosim(c) => c.checked(addr.into(), mask),
            _ => {
                if let Some(rc) = &mut self.regs {
                    rc.check(addr, mask);
                }
            }
        }
    }
}
