//! The TOP_SP-init DMA queue beside the top and the device memory it reads
//! (DIGEST §6: the seeds stage the SPAD images in HBM and a DMA queue
//! dedicated to TOP_SP init copies them onto the TPB).
//!
//! `[D]` (the seeds name the queue, not its engine): a system master of
//! BAR0, like the host; it sends one word write per grant, in copy order,
//! and takes the grant after the host and the other dies' requests, before
//! the cores. A write answered with an error (or not at all) stops the
//! queue, drops what is left, and is reported by [`DevMem::init_dma`].
//! The host's device-memory writes take no cycles of the top: device memory
//! is not behind BAR0.

use super::*;
use tpb_models::hal::devmem::check_copies;
use tpb_models::hal::{DevMem, DevMemory, DmaCopy};

/// The queue and the device memory.
#[derive(Debug, Default)]
pub struct InitDma {
    pub mem: DevMemory,
    /// Copies not finished: (device address, BAR0 address, words left).
    queue: VecDeque<(u64, u32, u64)>,
    /// Words written over BAR0 (answered).
    pub words: u64,
    /// The first write answered with an error: (BAR0 address, what).
    error: Option<(u32, &'static str)>,
    /// A write granted and not yet answered.
    in_flight: bool,
}

impl InitDma {
    /// Copies queued or a write unanswered.
    pub fn busy(&self) -> bool {
        !self.queue.is_empty() || self.in_flight
    }

    /// The next word's write, taken off the queue (its grant).
    fn take(&mut self) -> Option<Req> {
        let (src, dst, left) = self.queue.front_mut()?;
        let req = Req { write: true, addr: *dst, wdata: self.mem.word(*src) };
        (*src, *dst, *left) = (*src + 4, *dst + 4, *left - 1);
        if *left == 0 {
            self.queue.pop_front();
        }
        self.in_flight = true;
        Some(req)
    }

    fn answered(&mut self, addr: u32, ok: bool, timed_out: bool) {
        self.in_flight = false;
        if ok {
            self.words += 1;
        } else {
            self.error = Some((addr, if timed_out { "init-DMA write not answered" } else { "init-DMA write answered with an error" }));
            self.queue.clear();
        }
    }
}

impl Cosim {
    /// The init DMA's request, if it has one (after the host's and the other dies').
    pub(super) fn grant_init_dma(&mut self) -> Option<(Master, Req)> {
        let req = self.init_dma.take()?;
        self.written.insert(u64::from(req.addr));
        Some((Master::InitDma, req))
    }

    pub(super) fn deliver_init_dma(&mut self, req: Req, rsp: Rsp, answered: bool) {
        self.init_dma.answered(req.addr, answered && !rsp.err, !answered);
        if !self.init_dma.busy() {
            self.hal_probe.1 = HalKind::Idle;
        }
    }
}

impl DevMem for Cosim {
    fn devmem_write(&mut self, addr: u64, data: &[u8]) -> Result<(), MmioError> {
        self.init_dma.mem.write(addr, data)
    }

    /// Queues every copy (all checked first), then runs the system until
    /// the queue has drained and its last write was answered.
    fn init_dma(&mut self, copies: &[DmaCopy]) -> Result<(), MmioError> {
        check_copies(&tpb_models::regmap::space::AddressSpace::new(self.map.clone()), copies)?;
        let mut words = 0;
        for c in copies {
            let dst = u32::try_from(c.dst).map_err(|_| MmioError::Unmapped { kind: "init-DMA copy", addr: c.dst })?;
            if c.len > 0 {
                self.init_dma.queue.push_back((c.src, dst, c.len / 4));
            }
            words += c.len / 4;
        }
        self.init_dma.error = None;
        let limit = words * (BAR0_TIMEOUT + 4) + 2 * BAR0_TIMEOUT;
        let drained = self.run_until(limit, |c| !c.init_dma.busy());
        if let Some((addr, what)) = self.init_dma.error.take() {
            return Err(MmioError::BusError { addr: addr.into(), what: what.into() });
        }
        if !drained {
            self.init_dma.queue.clear();
            return Err(MmioError::BusError { addr: copies[0].dst, what: format!("the init DMA did not finish within {limit} cycles") });
        }
        Ok(())
    }
}
