//! The SEQ DMA's system master port (`dma_m_*`, `tpb_hdl::seq_dma`): the
//! scheduler serves its SoC writes as the SoC port serves a core's.
//!
//! `[D]` (the seeds give no SoC fabric): the engine holds one write
//! (`dma_m_valid`, `dma_m_addr`, `dma_m_wdata`) until an edge sees
//! `dma_m_ack`. The scheduler routes the address by the DIGEST §7 fold
//! ([`Cosim::soc_route`]): this node's BAR0 takes it as a master of its
//! own (after the host, the other dies and the init DMA, before the
//! cores); another node's crosses the mesh as any SoC request does, and
//! its answer comes back the same way; an address that routes nowhere is
//! answered at once with an error. The answer reaches the engine as
//! `dma_m_ack` (with `dma_m_err`) in the cycle after it arrives. Writes are
//! not posted: the engine sends the next word only when the last was
//! answered, so a leg's words land in order and before its completion.

use super::*;

/// The port's state in the scheduler.
#[derive(Debug, Default)]
pub struct SocWrites {
    /// The write sent and not answered yet: (SoC address, data).
    sent: Option<(u64, u32)>,
    /// Its answer (true: an error), for the engine in the next cycle.
    answer: Option<bool>,
    /// A write to this node, waiting for its BAR0 grant.
    local: Option<Req>,
    /// Writes answered, and how many of them with an error.
    pub writes: u64,
    pub errors: u64,
}

impl Cosim {
    /// Before the top evaluates: the engine's write answered (`dma_m_ack`
    /// on `pins`), or a new one sent. The engine's request is read after the
    /// last edge; a top whose DMA was idle before it holds none.
    pub(super) fn soc_writes(&mut self, pins: &mut Pins, reset: bool) {
        if !self.out.dma_busy && self.soc.sent.is_none() {
            return;
        }
        if reset {
            // The engine forgets its write; an answer still to come is dropped.
            self.soc.answer = None;
            self.soc.local = None;
            return;
        }
        let m = self.dut.dma_master();
        if let Some(err) = self.soc.answer.take() {
            // A write the engine gave up (dma_ctrl.enable low) takes no answer.
            if m.valid && self.soc.sent == Some((m.addr, m.wdata)) {
                (pins.dma_m_ack, pins.dma_m_err) = (true, err);
            }
            self.soc.sent = None;
            return;
        }
        if !m.valid || self.soc.sent.is_some() {
            return;
        }
        self.soc.sent = Some((m.addr, m.wdata));
        match self.soc_route(m.addr) {
            Ok((node, addr)) if node == self.node() => self.soc.local = Some(Req { write: true, addr, wdata: m.wdata }),
            Ok((node, addr)) => self.outbound.push((node, RemoteReq { from_die: self.node(), by: Requester::SeqDma, req: Req { write: true, addr, wdata: m.wdata } })),
            Err(_) => self.soc_write_answered(Rsp { valid: true, rdata: 0, err: true }),
        }
    }

    /// This node's SoC write, for its BAR0 grant.
    pub(super) fn grant_soc_write(&mut self) -> Option<(Master, Req)> {
        let r = self.soc.local.take()?;
        self.written.insert(u64::from(r.addr & !3));
        Some((Master::SeqDma, r))
    }

    /// The answer to the engine's SoC write (from this node's BAR0 or another node's).
    pub(super) fn soc_write_answered(&mut self, rsp: Rsp) {
        if self.soc.sent.is_none() {
            return;
        }
        self.soc.writes += 1;
        self.soc.errors += u64::from(rsp.err);
        self.soc.answer = Some(rsp.err);
    }
}
