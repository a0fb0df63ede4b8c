//! The simulator ops of `tpb serve` ([`SimOp`]): run, the cycle counter, a
//! core's state, the trace, the HAL's `stpb_init` and releases, a wait for
//! halts, the last message.

use super::*;

/// A refused op: its status and why.
type Refusal = (Status, String);

/// Core number of [`SimOp::Core`] and bit of a core mask.
fn core_id(n: u32) -> Option<CoreId> {
    match n {
        0..=7 => Some(CoreId::Q7(n as u8)),
        8 => Some(CoreId::Seq),
        9 => Some(CoreId::TopSp),
        _ => None,
    }
}

/// The cores of a mask (bits 0..=9), or why not.
fn mask_cores(mask: u32) -> Result<Vec<CoreId>, String> {
    if mask == 0 || mask >> 10 != 0 {
        return Err(format!("core mask {mask:#x}: bits 0..=7 the Q7 cores, 8 the SEQ, 9 the TOP_SP, at least one"));
    }
    Ok((0..10).filter(|b| mask >> b & 1 != 0).filter_map(core_id).collect())
}

/// An item of [`SimOp::Core`] for core number `core`.
pub fn core_item(c: &Cosim, core: u32, item: u32) -> Option<u32> {
    let id = core_id(core)?;
    let s = c.core(id);
    let bit = |on: bool, b: u32| if on { b } else { 0 };
    Some(match item {
        0 => s.core.pc,
        1 => {
            bit(s.core.halted(), STATE_HALTED)
                | bit(s.idle() && !s.core.halted(), STATE_WAITING)
                | bit(s.core.run_stall(), STATE_RUN_STALLED)
                | bit(s.first_exception.is_some(), STATE_EXCEPTION)
                | bit(c.halted_since_start(id), STATE_HALTED_SINCE_START)
        }
        2 => s.core.retired() as u32,
        16..=31 => s.core.a(item as usize - 16),
        _ => return None,
    })
}

impl Server<'_> {
    /// Run one simulator op: `Ok(None)` if the client left during a run.
    pub(super) fn sim_op(&mut self, op: SimOp, addr: u32, data: &[u32], conn: &mut dyn Conn) -> Result<Option<(Status, u16, u32)>, Refusal> {
        let bad = |m: String| -> Result<Option<(Status, u16, u32)>, Refusal> { Err((Status::BadCount, m)) };
        let done = |count: u16, v: u32| Ok(Some((Status::Ok, count, v)));
        match op {
            SimOp::Run => {
                if addr != 0 {
                    return bad(format!("address {addr:#x}: RUN takes address 0"));
                }
                let n = cycles_asked(data[0], self.max_run)?;
                match self.run_live(n, conn, |_| false) {
                    None => Ok(None),
                    Some(_) => done(1, self.cosim.stats.cycles as u32),
                }
            }
            SimOp::Cycles => match addr {
                0 | 4 => done(0, (self.cosim.stats.cycles >> (8 * addr)) as u32),
                _ => bad(format!("address {addr:#x}: 0 (the low word) or 4 (the high word)")),
            },
            SimOp::Core => match core_item(self.cosim, addr >> 8, addr & 0xff) {
                Some(v) => done(0, v),
                None => bad(format!("no core {} item {} (cores 0..=9; items 0 pc, 1 state, 2 retired, 16..=31 a0..a15)", addr >> 8, addr & 0xff)),
            },
            SimOp::Trace => self.trace_op(addr, data[0]),
            SimOp::StpbInit => self.stpb_init(addr),
            SimOp::WaitHalted => self.wait_halted(addr, data[0], conn),
            SimOp::Message => {
                let b = self.message.as_bytes();
                let at = addr as usize;
                let word = std::array::from_fn(|i| b.get(at + i).copied().unwrap_or(0));
                done(b.len() as u16, u32::from_le_bytes(word))
            }
            SimOp::Release => self.release(addr),
        }
    }

    fn trace_op(&mut self, addr: u32, on: u32) -> Result<Option<(Status, u16, u32)>, Refusal> {
        let bad = |m: String| Err((Status::BadCount, m));
        match (addr, on, self.trace, &self.vcd) {
            (1.., _, _, _) => bad(format!("address {addr:#x}: TRACE takes address 0")),
            (_, 1, TraceState::Never, Some(p)) => match self.cosim.dut.trace_open(p) {
                Ok(()) => {
                    self.trace = TraceState::Open;
                    Ok(Some((Status::Ok, 1, 0)))
                }
                Err(e) => bad(format!("{}: {e}", p.display())),
            },
            (_, 1, _, None) => bad("no trace file: start tpb serve with --vcd FILE".into()),
            (_, 1, _, _) => bad("the trace was opened once already (one file per server)".into()),
            (_, 0, TraceState::Open, _) => {
                self.close_trace();
                Ok(Some((Status::Ok, 1, 0)))
            }
            (_, 0, _, _) => bad("the trace is not open".into()),
            (_, v, _, _) => bad(format!("TRACE takes 1 (open) or 0 (close), not {v}")),
        }
    }

    /// The HAL's `stpb_init` with the served images; each core's data after
    /// the install; the releases unless `addr` is 1.
    fn stpb_init(&mut self, addr: u32) -> Result<Option<(Status, u16, u32)>, Refusal> {
        if addr > 1 {
            return Err((Status::BadCount, format!("address {addr:#x}: 0 (install and release) or 1 (install, cores held)")));
        }
        let Some(served) = self.served.clone() else { return Err((Status::BadCount, "no images to install: serve a file with [firmware.q7]".into())) };
        let mut cfg = served.stpb.clone();
        cfg.pooling.hold_run_stall = addr == 1 || !served.data.is_empty();
        let hal = Hal::with_map(self.cosim.map().clone());
        let failed = |e: String| Err((Status::BusError, e));
        if let Err(e) = hal.stpb_init(&mut *self.cosim, &cfg, None) {
            return failed(format!("the HAL's stpb_init: {e}"));
        }
        for d in &served.data {
            if let Err(e) = self.cosim.write_buf(d.at, &d.bytes) {
                return failed(format!("{}: {e}", d.what));
            }
        }
        if cfg.pooling.hold_run_stall && addr == 0 {
            if let Err(e) = hal.stpb_release(&mut *self.cosim) {
                return failed(format!("the HAL's releases (pooling_init steps 5 and 6): {e}"));
            }
        }
        self.held = addr == 1;
        Ok(Some((Status::Ok, 0, 0)))
    }

    /// Release the cores of the mask `addr` (0: what `STPB_INIT 1` held).
    fn release(&mut self, mask: u32) -> Result<Option<(Status, u16, u32)>, Refusal> {
        let hal = Hal::with_map(self.cosim.map().clone());
        let r = if mask == 0 {
            if !self.held {
                return Err((Status::BadCount, "address 0 releases what STPB_INIT with address 1 held, and nothing is held: name the cores (a mask)".into()));
            }
            self.held = false;
            hal.stpb_release(&mut *self.cosim)
        } else {
            let cores = mask_cores(mask).map_err(|e| (Status::BadCount, e))?;
            let q7 = (mask & 0xff) as u8;
            let mut r = if q7 != 0 { hal.release_q7(&mut *self.cosim, q7) } else { Ok(()) };
            for (id, e) in [(CoreId::Seq, tpb_models::regmap::Engine::Pool), (CoreId::TopSp, tpb_models::regmap::Engine::TopSp)] {
                if r.is_ok() && cores.contains(&id) {
                    r = hal.release_nx(&mut *self.cosim, e);
                }
            }
            r
        };
        r.map(|()| Some((Status::Ok, 0, 0))).map_err(|e| (Status::BusError, format!("the HAL's release: {e}")))
    }

    /// Run until every core of `mask` halted after its last start (or one
    /// took an exception since), at most `limit` cycles; the answer is the
    /// mask of those that did not halt, and their report the message.
    fn wait_halted(&mut self, mask: u32, limit: u32, conn: &mut dyn Conn) -> Result<Option<(Status, u16, u32)>, Refusal> {
        let cores = mask_cores(mask).map_err(|e| (Status::BadCount, e))?;
        let n = cycles_asked(limit, self.max_run)?;
        let fault = |c: &Cosim, id: CoreId| c.core(id).first_exception.as_ref().is_some_and(|x| x.cycle > c.core(id).runs.started_at);
        let start = self.cosim.stats.cycles;
        let ids = cores.clone();
        if self.run_live(n, conn, |c| ids.iter().all(|id| c.halted_since_start(*id)) || ids.iter().any(|id| fault(c, *id))).is_none() {
            return Ok(None);
        }
        let c = &*self.cosim;
        let left: Vec<CoreId> = cores.iter().copied().filter(|id| !c.halted_since_start(*id)).collect();
        let bits = left.iter().fold(0u32, |m, id| m | 1 << core_bit(*id));
        let served = self.served.as_ref();
        let report: Vec<String> = left
            .iter()
            .map(|id| {
                let img = served.and_then(|s| s.image(*id));
                match c.core(*id).first_exception.as_deref().filter(|_| fault(c, *id)) {
                    Some(x) => {
                        let pc = match x.step {
                            tpb_models::xtensa::core::Step::Exception { pc, .. } => pc,
                            _ => c.core(*id).core.pc,
                        };
                        format!("{} took an exception at cycle {}: {}{}", id.name(), x.cycle, history::at_pc(pc, img), x.report(img))
                    }
                    None => c.not_halted_report(*id, img),
                }
            })
            .collect();
        let text = if left.is_empty() { String::new() } else { format!("not halted {} cycles after cycle {start}:\n  {}", self.cosim.stats.cycles - start, report.join("\n  ")) };
        self.set_message(&text);
        Ok(Some((Status::Ok, 1, bits)))
    }

    /// Run up to `n` cycles, until `done`, looking for the client every
    /// [`LIVENESS_CYCLES`]: whether `done` held, or `None` if the client left.
    fn run_live(&mut self, n: u64, conn: &mut dyn Conn, mut done: impl FnMut(&Cosim) -> bool) -> Option<bool> {
        let mut left = n;
        loop {
            let step = left.min(LIVENESS_CYCLES);
            if self.cosim.run_until(step, &mut done) {
                return Some(true);
            }
            left -= step;
            if left == 0 {
                return Some(false);
            }
            if conn.gone() {
                eprintln!("tpb serve: the client left during a run; stopped at cycle {}", self.cosim.stats.cycles);
                return None;
            }
        }
    }
}

/// The bit of a core in a mask.
fn core_bit(id: CoreId) -> u32 {
    match id {
        CoreId::Q7(n) => u32::from(n),
        CoreId::Seq => 8,
        _ => 9,
    }
}

/// A RUN or WAIT_HALTED count, at most `max` ([`MAX_RUN_CYCLES`]).
fn cycles_asked(n: u32, max: u32) -> Result<u64, Refusal> {
    if n > max {
        return Err((Status::BadCount, format!("{n} cycles in one frame: at most {max} (send several)")));
    }
    Ok(u64::from(n))
}
