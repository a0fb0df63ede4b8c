//! [`Tb::doorbell`]: ring a doorbell register and check what it did (the
//! pulse on the top's port where there is one, the register reading 0).

use super::*;

impl Tb {
    /// Ring a doorbell: write `value`, then check it. Where the top brings
    /// the doorbell's pulse out to a port (SUNDA's TOP_SP host_trigger and
    /// stop), the port must be high for exactly one cycle within
    /// [`PULSE_WINDOW`] cycles; the register must read back 0 (a doorbell
    /// holds no bus-visible state). Returns the cycle the pulse was seen.
    pub fn doorbell(&mut self, name: &str, value: u64) -> Result<Option<u64>, TbError> {
        let t = self.resolve(name)?;
        if !t.is_doorbell() {
            return Err(TbError::Usage { name: t.name().into(), what: "not a doorbell register (use write)".into() });
        }
        let addr = t.addr().expect("registers have addresses");
        let port = pulse_port(&t);
        let word = match &t {
            Target::Bus(Named::Reg { field: Some(f), .. }) => (value as u32) << f.lsb,
            _ => value as u32,
        };
        if value > t.max() {
            return Err(TbError::Value { name: t.name().into(), value, max: t.max() });
        }
        if let Sim::Cosim(_) = self.sim {
            // The host's write goes through the arbiter: the pulse's cycle
            // is in the waves; the register must still read back 0.
            let r = self.access(t.name(), Req { write: true, addr, wdata: word })?;
            if r.err {
                return Err(TbError::Bus { name: t.name().into(), addr, write: true, cycle: self.cycle });
            }
            let back = self.read_target(&t)?;
            self.checked(&t);
            if back != 0 {
                return Err(TbError::Doorbell { name: t.name().into(), what: format!("reads back {back:#x}, a doorbell reads 0"), cycle: self.cycle });
            }
            return Ok(None);
        }
        // The write, watching the port every cycle from the request on.
        let mut seen: Vec<u64> = Vec::new();
        let mut watch = |tb: &mut Tb, o: &Outputs| {
            if let Some(p) = port {
                if port_value(o, p) != 0 {
                    seen.push(tb.cycle - 1);
                }
            }
        };
        if let Some(rc) = &mut self.regs {
            rc.access(addr, true, false);
        }
        let o = self.step(false, Some(Req { write: true, addr, wdata: word }));
        watch(self, &o);
        let mut rsp = None;
        for _ in 0..BUS_TIMEOUT.max(PULSE_WINDOW) {
            let o = self.step(false, None);
            watch(self, &o);
            if rsp.is_none() && o.rsp.valid {
                rsp = Some(o.rsp);
            }
        }
        let fail = |tb: &Tb, what: String| TbError::Doorbell { name: t.name().into(), what, cycle: tb.cycle };
        match rsp {
            None => return Err(TbError::NoResponse { name: t.name().into(), addr, write: true, cycle: self.cycle }),
            Some(r) if r.err => return Err(TbError::Bus { name: t.name().into(), addr, write: true, cycle: self.cycle }),
            _ => {}
        }
        let pulse = match (port, seen.as_slice()) {
            (None, _) => None,
            (Some(p), [c]) => {
                let _ = p;
                Some(*c)
            }
            (Some(p), []) => return Err(fail(self, format!("port {p} never pulsed"))),
            (Some(p), cs) => return Err(fail(self, format!("port {p} high for {} cycles ({cs:?}), not one", cs.len()))),
        };
        let back = self.read_target(&t)?;
        self.checked(&t);
        if back != 0 {
            return Err(fail(self, format!("reads back {back:#x}, a doorbell reads 0")));
        }
        Ok(pulse)
    }
}
