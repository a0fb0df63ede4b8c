//! One clock cycle of the whole system ([`Cosim::cycle`]): the cores step,
//! one BAR0 request is granted, the top evaluates, the request in flight
//! settles, the clock edge, and RunStall and the interrupt lines follow.

use super::*;

impl Cosim {
    /// Each core's stall bit: Q7 n at bit n, the NX cores at 8 + slot.
    pub(super) fn stall_bits(&self, o: &Outputs) -> u16 {
        let mut v = 0u16;
        for (i, s) in self.cores.iter().enumerate() {
            let Some((nx, b)) = s.pin else { continue };
            let on = if nx { o.nx_run_stall >> b & 1 } else { o.q7_run_stall >> b & 1 } != 0;
            v |= u16::from(on) << i;
        }
        v
    }

    /// Log a transaction; its index.
    fn log_txn(&mut self, t: Txn) -> usize {
        if self.log.len() >= LOG_LIMIT {
            self.log.pop_front();
        }
        if let Some(rc) = &mut self.regs {
            rc.access(t.addr, t.write, matches!(t.master, Master::Core(_) | Master::Remote { .. }));
        }
        self.log.push_back(t);
        self.log.len() - 1
    }

    /// One clock cycle of the whole system; the outputs seen during it.
    pub fn cycle(&mut self, reset: bool) -> Outputs {
        // 1. Cores that can, step (at most one instruction each).
        let mut pins = self.step_cores(reset);
        self.resolve_xlat(&mut pins, reset);
        self.resolve_soc();
        self.resolve_hwd(&mut pins);
        self.soc_writes(&mut pins, reset);
        // 2. One BAR0 request.
        let granted = if !reset && self.inflight.is_none() { self.grant() } else { None };
        match granted {
            Some((Master::Host, r)) => self.hal_probe = (self.stats.transactions as u32, if r.write { HalKind::Write } else { HalKind::Read }),
            Some((Master::InitDma, _)) => self.hal_probe.1 = HalKind::InitDma,
            Some((Master::IFetch, _)) => self.hal_probe.1 = HalKind::IFetch,
            _ => {}
        }
        // The probes exist only to be traced: untraced runs skip them.
        if self.dut.has_probes() && self.dut.trace_wanted() {
            for k in 0..self.cores.len() {
                let (pc, insn, st) = self.cores[k].probe(reset);
                self.dut.probe_core(k, pc, insn, st);
            }
            self.dut.probe_hal(self.hal_probe.0, self.hal_probe.1);
        }
        // 3. The top evaluates with these inputs.
        self.dut.drive(reset, granted.map(|g| g.1), &pins);
        let o = self.dut.outputs();
        for (s, po) in self.cores.iter_mut().zip(o.q7.iter()) {
            take_port(&mut s.bus, po);
        }
        if o.nx_start != 0 || o.q7_start != 0 {
            for s in self.cores.iter_mut() {
                let Some((nx, b)) = s.pin else { continue };
                let (bits, at) = if nx { (o.nx_start, o.nx_start_addr) } else { (o.q7_start, o.q7_start_addr) };
                if bits >> b & 1 != 0 {
                    s.restart = Some(at);
                }
            }
        }
        self.settle_bar0(&o, granted);
        // Calm: nothing asked of the top or in flight, every stepped core
        // halted, in WAITI or run-stalled with nothing pending, the pins
        // and the outputs as the cycle before, the DMA idle.
        let cores_still =
            self.cores.iter().all(|s| !s.attached || (s.bus.pending.is_none() && s.restart.is_none() && matches!(s.last, Some(Step::Halted | Step::Stalled | Step::Waiting))));
        let calm = !reset
            && granted.is_none()
            && self.inflight.is_none()
            && self.host_req.is_none()
            && self.inbound.is_empty()
            && self.outbound.is_empty()
            && self.replies.is_empty()
            && self.xlat_wait.is_none()
            && cores_still
            && pins == self.prev_pins
            && o == self.out
            && !o.dma_busy
            && !self.init_dma.busy()
            && !self.ifetch.busy();
        self.quiet = if calm { self.quiet + 1 } else { 0 };
        self.prev_pins = pins;
        if reset {
            self.reset_at = self.stats.cycles;
        }
        // 4. Clock edge; RunStall follows the top's outputs.
        self.dut.tick();
        self.stats.cycles += 1;
        self.after_edge(&o);
        self.out = o;
        o
    }

    /// Phase 1 of [`Cosim::cycle`]: each attached core that can steps one
    /// instruction (a start first, if one is due); the pins it drives.
    #[inline]
    fn step_cores(&mut self, reset: bool) -> Pins {
        let mut pins = Pins::default();
        self.asked = Asked::default();
        for (i, s) in self.cores.iter_mut().enumerate() {
            if !s.attached {
                continue;
            }
            // A start (DIGEST §2.8): the core resets to the start address,
            // out of HALT/WAITI, once nothing of its is in flight.
            if let Some(at) = s.restart.filter(|_| s.bus.pending.is_none() && !reset) {
                s.core.reset_to(at);
                s.bus.answers.clear();
                s.restart = None;
                s.last = None;
                self.stats.starts += 1;
                if let Some(p) = &mut self.points {
                    p.on_start(s.id);
                }
                if self.start_log.len() < LOG_LIMIT {
                    self.start_log.push((self.stats.cycles, s.id, at));
                }
            }
            if s.bus.pending.is_none() && !reset {
                let st = s.core.step(&mut s.bus);
                match st {
                    Step::Retired { .. } => self.stats.retired += 1,
                    Step::BusWait => self.stats.bus_waits += 1,
                    _ => {}
                }
                if st != Step::BusWait {
                    s.bus.end_instruction(s.core.pc);
                }
                match st {
                    Step::Retired { pc, word } => {
                        s.recent.push(self.stats.cycles, pc, word);
                        if !s.core.console.is_empty() {
                            self.console.take(s.id, self.stats.cycles, &mut s.core.console);
                        }
                    }
                    Step::Exception { cause, .. } if cause != tpb_models::xtensa::core::cause::LEVEL1_INTERRUPT && s.first_exception.is_none() => {
                        s.first_exception = Some(Box::new(history::Caught::of(self.stats.cycles, st, &s.core, &s.recent)))
                    }
                    _ => {}
                }
                // Coverage points: only the steps they count reach the observer.
                if let (Step::Halted | Step::Exception { .. }, Some(p)) = (st, &mut self.points) {
                    p.on_step(s.id, st, s.last);
                }
                s.last = Some(st);
            } else if s.bus.pending.is_some() {
                self.stats.bus_waits += 1;
            }
            Cosim::note_halt(&mut s.runs, s.core.halted(), self.stats.cycles);
            if let (true, Some((nx, b))) = (s.idle(), s.pin) {
                if nx {
                    pins.nx_halted |= 1 << b;
                } else {
                    pins.q7_halted |= 1 << b;
                }
            }
            let Some(p) = s.bus.pending.filter(|p| !p.accepted) else { continue };
            self.asked.add(p.via);
            if p.via == Via::Port {
                pins.q7[i] = port_in(p);
                if let (Kind::Store { .. }, Some(&(iram, dram))) = (p.kind, self.q7_mem.get(i)) {
                    let a = if p.addr >= DRAM_BASE { dram.wrapping_add(u64::from(p.addr - DRAM_BASE)) } else { iram.wrapping_add(u64::from(p.addr)) };
                    self.written.insert(a & !3);
                }
            }
        }
        pins
    }

    /// The BAR0 request in flight gets its response (or times out), and the
    /// one granted this cycle goes in flight, logged unless it is a fetch.
    #[inline]
    fn settle_bar0(&mut self, o: &Outputs, granted: Option<(Master, Req)>) {
        if let Some((m, req, li, waited)) = self.inflight.take() {
            if o.rsp.valid || waited >= BAR0_TIMEOUT {
                let rsp = if o.rsp.valid { o.rsp } else { Rsp { valid: false, rdata: 0, err: true } };
                if let Some(t) = li.and_then(|i| self.log.get_mut(i)) {
                    t.err = rsp.err;
                    if !t.write {
                        t.data = rsp.rdata;
                        if let Some(p) = self.points.as_mut().filter(|_| !rsp.err) {
                            p.on_read(req.addr, rsp.rdata);
                        }
                    }
                }
                self.deliver(m, req, rsp, o.rsp.valid);
            } else {
                self.inflight = Some((m, req, li, waited + 1));
            }
        }
        if let Some((m, req)) = granted {
            if req.write {
                self.starts_on_write(&req);
            }
            let fetch = matches!(m, Master::Core(c) if self.cores[slot_index(c)].bus.pending.is_some_and(|p| p.kind == Kind::Fetch));
            if matches!(m, Master::Core(_)) {
                self.stats.core_transactions += 1;
            }
            let li = (!fetch).then(|| self.log_txn(Txn { cycle: self.stats.cycles, master: m, write: req.write, addr: req.addr, data: req.wdata, err: false }));
            self.inflight = Some((m, req, li, 0));
        }
    }

    /// After the clock edge: progress, Ctrl-C, doorbells counted, RunStall
    /// and the interrupt lines follow the top's outputs `o`.
    #[inline]
    fn after_edge(&mut self, o: &Outputs) {
        if self.stats.cycles.is_multiple_of(4096) {
            if let Some(p) = &self.progress {
                p.set_position(self.stats.cycles);
            }
        }
        if self.stats.cycles.is_multiple_of(crate::interrupt::POLL_CYCLES) && self.dies == 1 && crate::interrupt::requested() {
            crate::interrupt::stop(&mut [self]);
        }
        if o.dma_db_valid && !self.out.dma_db_valid {
            self.stats.doorbells += 1;
            if self.doorbell_cycles.len() < LOG_LIMIT {
                self.doorbell_cycles.push(self.stats.cycles - 1);
            }
        }
        // RunStall and the interrupt lines, when one of them moved: the
        // cores keep what they were given (nothing else sets these pins).
        let lines = (o.nx_run_stall, o.q7_run_stall, o.nx_irq, o.q7_irq);
        if self.lines_given == Some(lines) {
            return;
        }
        self.lines_given = Some(lines);
        let now = self.stall_bits(o);
        let released_mask = self.stalled & !now & self.attached_mask();
        let released = u64::from(released_mask.count_ones());
        if released_mask & 0xff != 0 && self.stats.first_release.is_none() {
            self.stats.first_release = Some(self.stats.cycles - 1);
        }
        self.stats.stalls_released += released;
        self.stalled = now;
        for (i, s) in self.cores.iter_mut().enumerate() {
            s.core.set_run_stall(now >> i & 1 != 0);
            // The top's interrupt line of the core is its level-1 line 0 ([D]).
            if let Some((nx, b)) = s.pin {
                s.core.set_irq(IRQ_LINE, if nx { o.nx_irq } else { o.q7_irq } >> b & 1 != 0);
            }
        }
    }
}
