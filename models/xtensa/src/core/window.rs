//! The windowed register file (WINDOWBASE, WINDOWSTART, the rotation and
//! the physical registers behind a0..a15) and the traps: how an exception
//! or a window overflow/underflow enters its vector.

use super::{ps, Core, Exec, Fault, Step, Trap};
use crate::config::sr;

impl Core {
    /// WINDOWBASE as stored; the window is it modulo the number of windows.
    pub(super) fn set_windowbase(&mut self, raw: u32) {
        self.sregs[sr::WINDOWBASE as usize] = raw;
        // nwin is a power of two.
        let wb4 = if self.cfg.options.windowed { (raw & (self.nwin - 1)) * 4 } else { 0 };
        if wb4 != self.wb4 {
            let (old, new) = (self.wb4 as usize, wb4 as usize);
            let m = self.amask as usize;
            // Whole when it does not wrap at the end of the register file.
            match self.ar.get_mut(old..old + 16) {
                Some(w) if old + 16 <= m + 1 => w.copy_from_slice(&self.cur),
                _ => (0..16).for_each(|k| self.ar[(old + k) & m & 63] = self.cur[k]),
            }
            match self.ar.get(new..new + 16) {
                Some(w) if new + 16 <= m + 1 => self.cur.copy_from_slice(w),
                _ => (0..16).for_each(|k| self.cur[k] = self.ar[(new + k) & m & 63]),
            }
            self.wb4 = wb4;
        }
        self.sync_window();
    }
    pub(super) fn set_ws(&mut self, v: u32) {
        self.sregs[sr::WINDOWSTART as usize] = v;
        self.sync_window();
    }
    /// What `wlive` must be now.
    pub(super) fn window_live(&self) -> u32 {
        if !self.cfg.options.windowed || self.ps() & (ps::WOE | ps::EXCM) != ps::WOE {
            return 0;
        }
        let ws = self.sregs[sr::WINDOWSTART as usize] & ((1 << self.nwin) - 1);
        ((ws | ws << self.nwin) >> self.wb()) & 0b1110
    }
    pub(super) fn sync_window(&mut self) {
        self.wlive = self.window_live();
    }
    pub(super) fn wb(&self) -> u32 {
        self.wb4 / 4
    }
    #[inline(always)]
    pub(super) fn phys(&self, i: u32) -> usize {
        ((self.wb4 + (i & 15)) & self.amask & 63) as usize
    }
    #[inline(always)]
    pub(super) fn ps(&self) -> u32 {
        self.sregs[sr::PS as usize]
    }
    pub(super) fn set_ps(&mut self, v: u32) {
        self.sregs[sr::PS as usize] = v;
        self.sync_window();
    }
    #[inline(always)]
    pub(super) fn r(&self, i: u8) -> u32 {
        self.cur[(i & 15) as usize]
    }
    #[inline(always)]
    pub(super) fn w<const TR: bool>(&mut self, i: u8, v: u32) {
        self.cur[(i & 15) as usize] = v;
        if TR {
            self.last_write = Some((i, v));
        }
    }

    pub(super) fn rotate(&mut self, delta: i32) {
        let wb = (self.wb() as i32 + delta) as u32 & (self.nwin - 1);
        self.set_windowbase(wb);
    }
    pub(super) fn ws_bit(&self, wb: u32) -> bool {
        self.sregs[sr::WINDOWSTART as usize] >> (wb % self.nwin) & 1 != 0
    }

    #[cold]
    pub(super) fn trap(&mut self, f: Fault) -> Trap {
        self.fault = f;
        Trap
    }

    /// Take an exception: EPC1/EXCCAUSE/EXCVADDR/PS.EXCM, or a double exception.
    pub(super) fn take(&mut self, cause: u32, vaddr: Option<u32>) -> Step {
        let pc = self.pc;
        let vb = self.sregs[sr::VECBASE as usize];
        let ps_v = self.ps();
        self.sregs[sr::EXCCAUSE as usize] = cause;
        if let Some(v) = vaddr {
            self.sregs[sr::EXCVADDR as usize] = v;
        }
        let vector = if ps_v & ps::EXCM != 0 {
            self.sregs[sr::DEPC as usize] = pc;
            vb + self.cfg.vectors.double
        } else {
            self.sregs[sr::EPC1 as usize] = pc;
            self.set_ps(ps_v | ps::EXCM);
            vb + if ps_v & ps::UM != 0 { self.cfg.vectors.user } else { self.cfg.vectors.kernel }
        };
        self.pc = vector;
        self.waiting = false;
        Step::Exception { cause, pc, vector }
    }

    /// The window check before an instruction whose registers reach into
    /// the windows `wmask` names (bit n: n windows ahead; the ISA's rule): a
    /// live frame there raises the overflow vector.
    #[inline(always)]
    pub(super) fn window_check(&mut self, wmask: u32, pc: u32) -> Exec<()> {
        debug_assert_eq!(self.wlive, self.window_live(), "wlive kept with PS/WINDOWBASE/WINDOWSTART");
        let live = self.wlive & wmask;
        if live == 0 {
            return Ok(());
        }
        self.pc = pc;
        self.window_overflow(live.trailing_zeros())
    }

    /// The overflow exception for the live frame `n` windows ahead, taken
    /// by the instruction at PC.
    #[cold]
    pub(super) fn window_overflow(&mut self, n: u32) -> Exec<()> {
        let wb = self.wb();
        let m = (wb + n) % self.nwin;
        self.rotate(n as i32);
        let p = (self.ps() & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM;
        self.set_ps(p);
        self.sregs[sr::EPC1 as usize] = self.pc;
        let off = if self.ws_bit(m + 1) {
            self.cfg.vectors.window_overflow4
        } else if self.ws_bit(m + 2) {
            self.cfg.vectors.window_overflow8
        } else {
            self.cfg.vectors.window_overflow12
        };
        let vector = self.sregs[sr::VECBASE as usize] + off;
        self.pc = vector;
        Err(self.trap(Fault::Vectored { cause: u32::MAX, vector }))
    }
}
