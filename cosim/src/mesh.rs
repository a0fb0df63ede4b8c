//! Several TPB tops as dies of one SoC, on one clock (DIGEST §7).
//!
//! Each die is a [`Cosim`]. A core's SoC-port access whose address the
//! DIGEST §7 fold puts on another die (bit 47, and the chip id bits when
//! bit 54 says they are valid) leaves its die through [`Cosim::outbound`];
//! the mesh hands it to the target die's BAR0 arbiter ([`Cosim::inbound`],
//! after the host, before the cores) and carries the answer back. A request
//! crosses in the cycle it was made and its answer in the cycle it came
//! (`[D]`: no link latency modelled). A die that does not exist answers with
//! an error.

use crate::sched::{Cosim, CosimError};
use tpb_models::csr::Rsp;
use tpb_models::regmap::Arch;

/// Dies in lockstep.
pub struct Mesh {
    pub dies: Vec<Cosim>,
    /// Requests that crossed between dies.
    pub remote: u64,
}

impl Mesh {
    /// `n` dies of `arch`, die k numbered k.
    pub fn new(arch: Arch, n: usize) -> Result<Mesh, CosimError> {
        let mut dies = Vec::with_capacity(n);
        for k in 0..n {
            let mut c = Cosim::new(arch)?;
            c.die = k as u32;
            dies.push(c);
        }
        Ok(Mesh { dies, remote: 0 })
    }

    /// Move requests and answers between dies.
    pub fn route(&mut self) {
        for k in 0..self.dies.len() {
            for (to, r) in std::mem::take(&mut self.dies[k].outbound) {
                match self.dies.get_mut(to as usize) {
                    Some(t) => {
                        t.inbound.push_back(r);
                        self.remote += 1;
                    }
                    None => self.dies[k].remote_answer(r.core, Rsp { valid: true, rdata: 0, err: true }),
                }
            }
        }
        for k in 0..self.dies.len() {
            for (r, rsp) in std::mem::take(&mut self.dies[k].replies) {
                if let Some(src) = self.dies.get_mut(r.from_die as usize) {
                    src.remote_answer(r.core, rsp);
                }
            }
        }
    }

    /// One cycle of every die.
    pub fn cycle(&mut self) {
        for c in &mut self.dies {
            c.cycle(false);
        }
        self.route();
    }

    /// Run until `done(self)` or `limit` cycles; returns whether it became true.
    pub fn run_until(&mut self, limit: u64, mut done: impl FnMut(&Mesh) -> bool) -> bool {
        self.route();
        for _ in 0..limit {
            if done(self) {
                return true;
            }
            self.cycle();
        }
        done(self)
    }
}
