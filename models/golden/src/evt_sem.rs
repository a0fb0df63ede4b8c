//! Golden model of the EVT_SEM unit (`hdl/src/evt_sem.rs`; DIGEST §3).
//!
//! Operations take effect in request order at the request edge (the RTL's
//! forwarding makes its two-stage pipeline equivalent); the bus response is
//! visible during the next cycle, the change notification one cycle later.
//! Same-cycle bus + doorbell: bus first; a doorbell to the same semaphore is
//! merged after the bus operation, a doorbell to another one is refused
//! (`db_ready` low) and must be retried. After reset the unit is busy
//! clearing for [`CLEAR_CYCLES`] cycles.

use tpb_regmap::layout::SemWindows;
use tpb_regmap::WindowOp;

/// Semaphores.
pub const COUNT: usize = 256;
/// Cycles the post-reset clear takes.
pub const CLEAR_CYCLES: u32 = 256;

/// A bus request: the same request every register block takes.
pub use crate::csr::Req as BusReq;

/// A doorbell request: add `amount` to semaphore `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbReq {
    pub index: u8,
    pub amount: u32,
}

/// The registered outputs visible during a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Outputs {
    pub rsp_valid: bool,
    pub rsp_rdata: u32,
    pub rsp_err: bool,
    pub notif_valid: bool,
    /// Meaningful only with `notif_valid` (0 otherwise).
    pub notif_index: u8,
    pub ready: bool,
}

/// The model.
#[derive(Debug, Clone)]
pub struct EvtSemModel {
    values: [u32; COUNT],
    saturate: bool,
    /// Cycles of clearing left (visible as `ready = 0`).
    clearing: u32,
    out: Outputs,
    /// Notification of the operation taken at the last edge (shown after the next).
    pending_notif: Option<u8>,
    /// Window offsets within the local-register aperture (the map's).
    windows: SemWindows,
}

impl EvtSemModel {
    /// A unit on windows `windows` (`SemWindows::of(map)`), in the state
    /// right after its post-reset clear.
    pub fn new(windows: SemWindows, saturate: bool) -> Self {
        assert_eq!(windows.count as usize, COUNT, "the unit holds {COUNT} semaphores");
        EvtSemModel { values: [0; COUNT], saturate, clearing: 0, out: Outputs { ready: true, ..Outputs::default() }, pending_notif: None, windows }
    }

    /// Current value of a semaphore (debug peek).
    pub fn value(&self, index: u8) -> u32 {
        self.values[index as usize]
    }

    /// Outputs during the current cycle.
    pub fn outputs(&self) -> Outputs {
        self.out
    }

    fn decode(&self, addr: u32) -> Option<(WindowOp, usize)> {
        self.windows.decode(addr).map(|(op, i)| (op, i as usize))
    }

    /// `db_ready` for this cycle's inputs (combinational in the RTL): would a
    /// doorbell to `db_index` be taken now? (It does not depend on `db_valid`.)
    pub fn db_ready(&self, bus: Option<BusReq>, db_index: u8) -> bool {
        if self.clearing > 0 {
            return false;
        }
        match bus.and_then(|b| self.decode(b.addr)) {
            Some((_, idx)) => idx == db_index as usize,
            None => true,
        }
    }

    fn add(&self, a: u32, b: u32) -> u32 {
        match a.checked_add(b) {
            Some(v) => v,
            None if self.saturate => u32::MAX,
            None => a.wrapping_add(b),
        }
    }

    fn sub(&self, a: u32, b: u32) -> u32 {
        match a.checked_sub(b) {
            Some(v) => v,
            None if self.saturate => 0,
            None => a.wrapping_sub(b),
        }
    }

    /// One rising edge with this cycle's inputs. Returns whether the
    /// doorbell request (if any) was taken.
    pub fn step(&mut self, reset: bool, bus: Option<BusReq>, db: Option<DbReq>) -> bool {
        let ready = self.clearing == 0;
        let db_taken = db.is_some_and(|d| self.db_ready(bus, d.index));
        let mut out = Outputs { ready: true, ..Outputs::default() };
        // The notification of the previous edge's operation appears now.
        if let Some(i) = self.pending_notif.take() {
            out.notif_valid = true;
            out.notif_index = i;
        }
        let mut notif = None;
        if let Some(b) = bus {
            out.rsp_valid = true;
            match (ready, self.decode(b.addr)) {
                (true, Some((win, idx))) => {
                    let old = self.values[idx];
                    if b.write {
                        let v = match win {
                            WindowOp::Set => b.wdata,
                            WindowOp::Inc => self.add(old, b.wdata),
                            WindowOp::Dec => self.sub(old, b.wdata),
                            WindowOp::Read => old,
                        };
                        self.values[idx] = v;
                        if win != WindowOp::Read {
                            notif = Some(idx as u8);
                        }
                    } else {
                        out.rsp_rdata = old;
                    }
                }
                _ => out.rsp_err = true,
            }
        }
        if db_taken {
            let d = db.expect("taken implies present");
            let i = d.index as usize;
            self.values[i] = self.add(self.values[i], d.amount);
            notif = Some(d.index);
        }
        self.pending_notif = notif;
        if self.clearing > 0 {
            self.clearing -= 1;
        }
        if reset {
            self.values = [0; COUNT];
            self.clearing = CLEAR_CYCLES;
            out.rsp_valid = false;
            out.rsp_err = false;
            out.rsp_rdata = 0;
            out.notif_valid = false;
            out.notif_index = 0;
            self.pending_notif = None;
        }
        out.ready = self.clearing == 0;
        self.out = out;
        db_taken && !reset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_regmap::{builtin, Arch};

    const SET: u32 = 0x1400;
    const INC: u32 = 0x1800;
    const DEC: u32 = 0x1c00;

    fn unit(saturate: bool) -> EvtSemModel {
        EvtSemModel::new(SemWindows::of(&builtin(Arch::Cayman).unwrap()).unwrap(), saturate)
    }

    fn w(addr: u32, wdata: u32) -> Option<BusReq> {
        Some(BusReq { write: true, addr, wdata })
    }

    #[test]
    fn windows_and_edges() {
        let mut m = unit(false);
        m.step(false, w(SET + 4 * 7, u32::MAX), None);
        m.step(false, w(INC + 4 * 7, 2), None);
        assert_eq!(m.value(7), 1, "wraps");
        m.step(false, w(DEC + 4 * 7, 3), None);
        assert_eq!(m.value(7), u32::MAX - 1);
        let mut s = unit(true);
        s.step(false, w(SET, u32::MAX - 1), None);
        s.step(false, w(INC, 5), None);
        assert_eq!(s.value(0), u32::MAX, "saturates high");
        s.step(false, w(DEC + 4, 1), None);
        assert_eq!(s.value(1), 0, "saturates low");
    }

    #[test]
    fn same_cycle_rule() {
        let mut m = unit(false);
        let db = Some(DbReq { index: 3, amount: 1 });
        assert!(m.step(false, w(INC + 12, 1), db), "same semaphore: merged");
        assert_eq!(m.value(3), 2);
        assert!(!m.db_ready(w(INC + 16, 1), 3), "other semaphore: refused");
        assert!(!m.step(false, w(INC + 16, 1), db));
        assert_eq!((m.value(3), m.value(4)), (2, 1));
    }
}
