//! The lockstep run as a coverage run (`tpb cover`'s `lockstep`): seeded
//! random traffic ([`crate::traffic`]) into a top and the golden model,
//! every output compared every cycle, and what it reached counted: each
//! request against the register map, each read answered (compared with the
//! golden model's, so checked) against its fields and the seeds' cases.

use crate::traffic::{Cycle, Traffic};
use tpb_cosim::cover::points::Points;
use tpb_hdl::top::TopSim;
use tpb_models::golden::top::{GoldenTop, MemBits};
use tpb_models::regmap::cover::RegCoverage;
use tpb_models::regmap::RegMap;

/// Reset, then `n` cycles of traffic seeded `seed` into `top` and the golden
/// model of `map`; the first cycle whose outputs differ is the error.
/// Counts into `regs` and `points` (already named for the run).
pub fn run(top: &mut dyn TopSim, map: &RegMap, seed: u64, n: u64, regs: &mut RegCoverage, points: &mut Points) -> Result<(), String> {
    let mem = MemBits::full(&map.params);
    let mut gold = GoldenTop::new(map, mem).map_err(|e| e.to_string())?;
    let mut t = Traffic::new(map, mem, seed);
    // Requests in flight, oldest first: BAR0 answers each once, in order.
    let mut flight: std::collections::VecDeque<(u32, bool)> = Default::default();
    for i in 0..=n {
        let c = if i == 0 { Cycle { reset: true, req: None, pins: Default::default() } } else { t.next_cycle() };
        top.drive(c.reset, c.req, &c.pins);
        gold.drive(c.reset, c.req, &c.pins);
        let (x, y) = (top.outputs(), gold.outputs());
        if i > 0 && x != y {
            return Err(format!("cycle {i}: req {:x?}\n  top:    {x:x?}\n  golden: {y:x?}", c.req));
        }
        if let Some(r) = c.req.filter(|_| !c.reset) {
            regs.access(r.addr, r.write, false);
            flight.push_back((r.addr, r.write));
        }
        if x.rsp.valid {
            let Some((a, write)) = flight.pop_front() else { return Err(format!("cycle {i}: a response to no request")) };
            if !write && !x.rsp.err {
                regs.check(a, u32::MAX);
                points.on_read(a, x.rsp.rdata);
            }
        }
        if c.reset {
            flight.clear();
        }
        top.tick();
        gold.tick();
    }
    match flight.len() {
        0..=2 => Ok(()),
        k => Err(format!("{k} requests never answered: the answers cannot be matched to their reads")),
    }
}
