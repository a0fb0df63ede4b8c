//! The trace window: a trace that opens on a trigger (a write, an access,
//! a cycle) and closes after some cycles, on another trigger or at the end.

use super::*;

/// What opens or closes a trace window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// A BAR0 write to this address is driven (e.g. a doorbell register).
    Write(u32),
    /// Any BAR0 access, read or write, to this address.
    Access(u32),
    /// The cycle counter reaches this value.
    Cycle(u64),
}

impl Trigger {
    fn hit(self, req: Option<Req>, cycle: u64) -> bool {
        match (self, req) {
            (Trigger::Write(a), Some(r)) => r.write && r.addr == a,
            (Trigger::Access(a), Some(r)) => r.addr == a,
            (Trigger::Cycle(n), _) => cycle >= n,
            _ => false,
        }
    }
}

/// Where a trace window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowEnd {
    /// This many cycles after the one that opened it (that cycle included).
    After(u64),
    /// After the cycle in which this trigger fires (that cycle included).
    On(Trigger),
    /// At [`Dut::trace_close`] or when the `Dut` is dropped.
    Close,
}

/// The state of the trace window armed by [`Dut::trace_window`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window {
    /// No window armed.
    Idle,
    /// Waiting for the start trigger.
    Armed,
    /// Tracing since this cycle.
    Open { from: u64 },
    /// Traced cycles `from..to` into the file.
    Done { from: u64, to: u64 },
    /// The trigger fired but the file could not be opened.
    Failed(VlError),
}

pub(super) struct Armed {
    pub(super) path: PathBuf,
    pub(super) start: Trigger,
    pub(super) end: WindowEnd,
    pub(super) close_after_tick: bool,
}

impl Dut {
    /// Arm a trace window: the trace to `path` opens in the cycle whose
    /// driven inputs fire `start` and closes as `end` says. The path's
    /// format and directory are checked now, so a mistake is an error here
    /// rather than a silent missing trace later.
    pub fn trace_window(&mut self, path: &Path, start: Trigger, end: WindowEnd) -> Result<(), VlError> {
        let model = self.m.name();
        if !self.m.traced() {
            return Err(VlError::NotTraced { model });
        }
        if TraceFormat::for_path(path).is_none() {
            return Err(VlError::TraceExtension { model, path: path.display().to_string() });
        }
        if self.m.tracing() || self.armed.is_some() {
            return Err(VlError::TraceOpen { model });
        }
        std::fs::File::create(path).map_err(|e| VlError::TraceFile { model, path: path.display().to_string(), why: format!(": {e}") })?;
        self.sample_as_toggled();
        self.armed = Some(Armed { path: path.to_path_buf(), start, end, close_after_tick: false });
        self.window = Window::Armed;
        Ok(())
    }

    /// Where the armed trace window stands.
    pub fn window(&self) -> &Window {
        &self.window
    }

    /// Open or mark for closing the armed window, given this cycle's request.
    pub(super) fn window_step(&mut self, req: Option<Req>) {
        let Some(a) = &mut self.armed else { return };
        match self.window {
            Window::Armed if a.start.hit(req, self.cycle) => match self.m.trace_open_only(&a.path, &super::trace_only(self.arch)) {
                Ok(()) => {
                    self.window = Window::Open { from: self.cycle };
                    if let WindowEnd::On(t) = a.end {
                        // The start cycle itself may also be the end.
                        a.close_after_tick = t != a.start && t.hit(req, self.cycle);
                    }
                }
                Err(e) => {
                    self.window = Window::Failed(e);
                    self.armed = None;
                }
            },
            Window::Open { .. } => {
                if let WindowEnd::On(t) = a.end {
                    a.close_after_tick |= t.hit(req, self.cycle);
                }
            }
            _ => {}
        }
    }

    /// After a clock edge: close the window if its end has come.
    pub(super) fn window_after_tick(&mut self) {
        let (Some(a), Window::Open { from }) = (&self.armed, &self.window) else { return };
        let done = match a.end {
            WindowEnd::After(n) => self.cycle - from >= n,
            WindowEnd::On(_) => a.close_after_tick,
            WindowEnd::Close => false,
        };
        if done {
            if let Err(e) = self.trace_close() {
                self.window = Window::Failed(e);
            }
        }
    }
}
