//! BAR0 arbitration: which master's request goes to the top this cycle
//! (the host, then requests from other dies, then the init DMA, then the
//! SEQ DMA's SoC write, then the cores round-robin),
//! the SoC port's routing by DIGEST §7, and delivering each response to the
//! master that asked.

use super::*;
use tpb_models::hal::devmem::DEVMEM_SIZE;

/// Why a SoC address does not route to a modelled TOP_SP.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    #[error("{addr:#x}: {why}")]
    Address { addr: u64, why: String },
    #[error("{addr:#x}: the neighbour decoder {why}")]
    Neighbor { addr: u64, why: &'static str },
    #[error("no sp_base table for this generation")]
    NoSpBase,
    #[error("no TOP_SP local-register base")]
    NoTopSpBase,
    #[error("{addr:#x}: TOP_SP instance {instance} is not modelled ({modelled} per die, instances 0..{modelled})")]
    Instance { addr: u64, instance: usize, modelled: u32 },
    #[error("{addr:#x}: local part {local:#x} is in no TOP_SP's sp_base range")]
    NoTopSp { addr: u64, local: u64 },
    #[error("{addr:#x}: offset {off:#x} past the TOP_SP's {size:#x}-byte local-register aperture")]
    PastAperture { addr: u64, off: u64, size: u64 },
}

/// The top never answered a host request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no response within {BAR0_TIMEOUT} cycles")]
pub struct NoResponse;

impl Cosim {
    /// The die a SoC address names, as [`Cosim::decoder`] reads it.
    pub fn soc_die(&self, addr: u64) -> Result<u32, RouteError> {
        let c = ChipAddr::decode(addr).map_err(|e| RouteError::Address { addr, why: e.to_string() })?;
        let chip = self.die / 2;
        Ok(match self.decoder {
            SocDecoder::ChipId if c.id_valid => u32::from(c.chip_id) * 2 + u32::from(c.die),
            SocDecoder::ChipId => chip * 2 + u32::from(c.die),
            SocDecoder::Neighbor => {
                let n = tpb_models::ncfw::mesh::NeighborAddr::decode(addr);
                if !n.id_valid {
                    if c.chip_id != 0 {
                        return Err(RouteError::Neighbor { addr, why: "reads bits 53:48 only with ID_VALID (bit 54)" });
                    }
                    chip * 2 + u32::from(c.die)
                } else if !n.neighbor_route || c.chip_id & !0b11100 != 0 {
                    return Err(RouteError::Neighbor { addr, why: "takes ID_VALID only with NEIGHBOR_ROUTE (bit 52), and only bits 52:50 of 53:48" });
                } else if n.die {
                    return Err(RouteError::Neighbor { addr, why: "moves relative to this die: bit 47 must be clear" });
                } else {
                    let chips = self.dies.div_ceil(2).max(1);
                    let chip = if n.exit_seng { (chip + 1) % chips } else { chip };
                    chip * 2 + ((self.die & 1) ^ u32::from(n.exit_die))
                }
            }
        })
    }

    /// Resolve a SoC address (DIGEST §7 fold) to (node, BAR0 address): the
    /// die its bits name, the TOP_SP instance whose `sp_base` range (bit 47
    /// aside) holds the local part, which must be one of the
    /// [`Cosim::instances`] a die models; node = die × instances + instance.
    /// The span's start is the TOP_SP's local-register aperture; from
    /// `[top_sp] soc_tpb_window` on (`[D]`) it is the TPB's whole BAR0.
    pub fn soc_route(&self, addr: u64) -> Result<(u32, u32), RouteError> {
        let c = ChipAddr::decode(addr).map_err(|e| RouteError::Address { addr, why: e.to_string() })?;
        let die = self.soc_die(addr)?;
        let t = &self.map.params.top_sp;
        let span = 1u64 << t.instance_shift;
        let strip = (1u64 << t.die_bit) - 1;
        if t.sp_base.is_empty() {
            return Err(RouteError::NoSpBase);
        }
        let k = t.sp_base.iter().position(|b| (b & strip..(b & strip) + span).contains(&c.local)).ok_or(RouteError::NoTopSp { addr, local: c.local })?;
        if k >= self.instances as usize {
            return Err(RouteError::Instance { addr, instance: k, modelled: self.instances });
        }
        let off = c.local - (t.sp_base[k] & strip);
        let node = die * self.instances + k as u32;
        if let Some(a) = off.checked_sub(t.soc_tpb_window) {
            // The TPB's whole BAR0 (`[top_sp] soc_tpb_window`, [D]).
            return u32::try_from(a).map(|a| (node, a)).map_err(|_| RouteError::PastAperture { addr, off, size: t.soc_tpb_window + (1 << 32) });
        }
        let size = self.map.params.bar0.local_reg_size;
        if off >= size {
            return Err(RouteError::PastAperture { addr, off, size });
        }
        let top = self.map.params.local_reg_base(Engine::TopSp).ok_or(RouteError::NoTopSpBase)?;
        Ok((node, (top + off) as u32))
    }

    /// The device-memory address a SoC address names, if it names this
    /// die's device memory: `[D]` a local part (bits 46:0, DIGEST §7 fold)
    /// below [`DEVMEM_SIZE`] on this die, below every `sp_base`.
    pub fn devmem_at(&self, addr: u64) -> Option<u64> {
        let c = ChipAddr::decode(addr).ok()?;
        (c.local < DEVMEM_SIZE && self.soc_die(addr).ok()? == self.die).then_some(c.local)
    }

    /// Pick this cycle's BAR0 request.
    pub(super) fn grant(&mut self) -> Option<(Master, Req)> {
        // The SEQ's I-fetch DMA first: it sees dma_ctrl the cycle after a miss.
        if let Some(g) = self.grant_ifetch() {
            return Some(g);
        }
        if let Some(r) = self.host_req.take() {
            return Some((Master::Host, r));
        }
        if let Some(r) = self.inbound.pop_front() {
            if r.req.write {
                self.written.insert(u64::from(r.req.addr & !3));
            }
            return Some((Master::Remote { die: r.from_die, by: r.by }, r.req));
        }
        if let Some(g) = self.grant_init_dma() {
            return Some(g);
        }
        if let Some(g) = self.grant_soc_write() {
            return Some(g);
        }
        if !self.asked.has(Via::Bar0(0)) {
            return None;
        }
        let n = self.cores.len();
        // Round-robin from `rr`: rr..n, then 0..rr.
        for i in (self.rr..n).chain(0..self.rr) {
            let s = &mut self.cores[i];
            let Some(p) = s.bus.pending.filter(|p| !p.accepted) else { continue };
            let Via::Bar0(a) = p.via else { continue };
            s.bus.pending = Some(Pending { accepted: true, ..p });
            self.rr = (i + 1) % n;
            let req = match p.kind {
                Kind::Store { wdata, .. } => Req { write: true, addr: a, wdata },
                _ => Req { write: false, addr: a, wdata: 0 },
            };
            let id = s.id;
            if req.write {
                self.written.insert(u64::from(a & !3));
            }
            return Some((Master::Core(id), req));
        }
        None
    }

    /// Resolve the cores' SoC-port requests: this node's go to BAR0, other
    /// nodes' to [`Cosim::outbound`], unroutable ones fault.
    pub(super) fn resolve_soc(&mut self) {
        if !self.asked.has(Via::Soc(0)) {
            return;
        }
        for i in 0..self.cores.len() {
            let Some(p) = self.cores[i].bus.pending else { continue };
            let Via::Soc(addr) = p.via else { continue };
            if let Some(at) = self.devmem_at(addr) {
                // This die's device memory answers at once (it is not behind BAR0).
                let data = match p.kind {
                    Kind::Store { wdata, .. } => self.init_dma.mem.write(at, &wdata.to_le_bytes()).map(|_| 0),
                    _ => Ok(self.init_dma.mem.word(at)),
                };
                let b = &mut self.cores[i].bus;
                b.answers.push(Answer { kind: p.kind, addr: p.addr, data: *data.as_ref().unwrap_or(&0), err: data.is_err() });
                b.pending = None;
                self.stats.devmem += 1;
                continue;
            }
            let via = match self.soc_route(addr) {
                Ok((node, a)) if node == self.node() => Via::Bar0(a),
                Ok((node, a)) => {
                    let req = match p.kind {
                        Kind::Store { wdata, .. } => Req { write: true, addr: a, wdata },
                        _ => Req { write: false, addr: a, wdata: 0 },
                    };
                    self.outbound.push((node, RemoteReq { from_die: self.node(), by: Requester::Core(self.cores[i].id), req }));
                    Via::Remote
                }
                Err(_) => {
                    let b = &mut self.cores[i].bus;
                    b.answers.push(Answer { kind: p.kind, addr: p.addr, data: 0, err: true });
                    b.pending = None;
                    continue;
                }
            };
            let accepted = via == Via::Remote;
            self.asked.add(via);
            self.cores[i].bus.pending = Some(Pending { via, accepted, ..p });
        }
    }

    /// The cores' address translations: the answer to the one in flight
    /// (a hit goes on as a SoC request, a miss faults), then the next core's
    /// lookup on this cycle's `xlat` pins. A reset drops the one in flight
    /// (the access faults) and sends nothing.
    pub(super) fn resolve_xlat(&mut self, pins: &mut Pins, reset: bool) {
        if let Some(i) = self.xlat_wait {
            if !self.out.xlat.valid && !reset {
                return;
            }
            self.xlat_wait = None;
            let b = &mut self.cores[i].bus;
            if let Some(p) = b.pending.filter(|p| matches!(p.via, Via::Xlat(_))) {
                if self.out.xlat.hit && !reset {
                    b.pending = Some(Pending { via: Via::Soc(self.out.xlat.dst), accepted: false, ..p });
                    self.asked.add(Via::Soc(0));
                } else {
                    b.answers.push(Answer { kind: p.kind, addr: p.addr, data: 0, err: true });
                    b.pending = None;
                }
            }
        }
        if reset || !self.asked.has(Via::Xlat(0)) {
            return;
        }
        for (i, s) in self.cores.iter_mut().enumerate() {
            let Some(p) = s.bus.pending.filter(|p| !p.accepted) else { continue };
            let (Via::Xlat(addr), Some(who)) = (p.via, s.bus.xlat_who) else { continue };
            pins.xlat = Some((who, addr));
            s.bus.pending = Some(Pending { accepted: true, ..p });
            self.xlat_wait = Some(i);
            self.stats.xlat += 1;
            return;
        }
    }

    /// Resolve the cores' HW-decode port requests against the top's outputs
    /// of the last cycle, driving this cycle's `hwd_lookup` / `hwd_pop` pins
    /// (at most one of each per cycle: the first core in slot order).
    pub(super) fn resolve_hwd(&mut self, pins: &mut Pins) {
        if !self.asked.has(Via::Hwd(0)) {
            return;
        }
        let hwd = self.out.hwd;
        for s in self.cores.iter_mut() {
            let Some(p) = s.bus.pending.filter(|p| !p.accepted) else { continue };
            let Via::Hwd(off) = p.via else { continue };
            let answer = match (hwd, off, p.kind) {
                (Some(h), 0, Kind::Store { wdata, .. }) => {
                    if !h.lookup_ready || pins.hwd_lookup.is_some() {
                        continue;
                    }
                    pins.hwd_lookup = Some((wdata as u8, (wdata >> 8) as u8));
                    Some(0)
                }
                (Some(h), 4, Kind::Load) => {
                    let head = h.head;
                    Some(if h.fifo_valid { 1 | u32::from(head.hit) << 1 | u32::from(head.entry) << 8 | u32::from(head.index) << 16 } else { 0 })
                }
                (Some(h), 8, Kind::Load) => {
                    if h.fifo_valid && !pins.hwd_pop {
                        pins.hwd_pop = true;
                        if let Some(pt) = self.points.as_mut().filter(|_| h.head.hit) {
                            pt.hit("hw_decode.hit");
                        }
                        Some(h.head.handler)
                    } else {
                        Some(0)
                    }
                }
                _ => None,
            };
            s.bus.answers.push(Answer { kind: p.kind, addr: p.addr, data: answer.unwrap_or(0), err: answer.is_none() });
            s.bus.pending = None;
        }
    }

    /// The answer to a request this node sent to another one.
    pub fn remote_answer(&mut self, by: Requester, rsp: Rsp) {
        let core = match by {
            Requester::Core(c) => c,
            Requester::SeqDma => return self.soc_write_answered(rsp),
        };
        let b = &mut self.cores[slot_index(core)].bus;
        if let Some(p) = b.pending.filter(|p| p.via == Via::Remote) {
            b.answers.push(Answer { kind: p.kind, addr: p.addr, data: rsp.rdata, err: rsp.err });
            b.pending = None;
        }
    }

    pub(super) fn deliver(&mut self, m: Master, req: Req, rsp: Rsp, answered: bool) {
        match m {
            Master::Host => {
                self.hal_probe.1 = HalKind::Idle;
                self.host_rsp = Some(if answered { Ok(rsp) } else { Err(NoResponse) });
            }
            Master::Core(c) => {
                let b = &mut self.cores[slot_index(c)].bus;
                if let Some(p) = b.pending.filter(|p| p.accepted) {
                    b.answers.push(Answer { kind: p.kind, addr: p.addr, data: rsp.rdata, err: rsp.err || !answered });
                    b.pending = None;
                }
            }
            Master::Remote { die, by } => {
                let r = Rsp { err: rsp.err || !answered, ..rsp };
                self.replies.push((RemoteReq { from_die: die, by, req }, r));
            }
            Master::InitDma => self.deliver_init_dma(req, rsp, answered),
            Master::IFetch => self.deliver_ifetch(req, rsp, answered),
            Master::SeqDma => self.soc_write_answered(Rsp { err: rsp.err || !answered, ..rsp }),
        }
    }
}

/// How the SoC port reads a SoC address's bits 53:48 (DIGEST §7): one way
/// or the other, never both, as the firmware was built against one decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SocDecoder {
    /// Bits 53:48 are a chip id (valid with bit 54): die = chip id × 2 + bit 47.
    #[default]
    ChipId,
    /// Bits 52, 51 and 50 are NEIGHBOR_ROUTE, EXIT_DIE and EXIT_SENG (bit 54
    /// ID_VALID, shared). `[D]`: with ID_VALID and NEIGHBOR_ROUTE the target
    /// is relative to this die: EXIT_DIE crosses to the package's other die,
    /// EXIT_SENG to the next package (chip + 1, wrapping over the mesh), both
    /// to the next package's other die; bit 47 must be clear. Without
    /// ID_VALID the address stays on this chip (bit 47 picks the die).
    Neighbor,
}

/// A request from another node of the mesh, and where its answer goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteReq {
    /// The sending node ([`Cosim::node`]; its die with one TOP_SP per die).
    pub from_die: u32,
    pub by: Requester,
    pub req: Req,
}
