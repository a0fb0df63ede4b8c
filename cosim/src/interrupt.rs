//! Ctrl-C during a run: the traces being written are closed so they end
//! cleanly at the cycle reached, the user is told where, and the process
//! exits 130 (as a shell reports a SIGINT).
//!
//! [`install`] (the `tpb` binary calls it first thing) makes SIGINT set a
//! flag; a second Ctrl-C kills at once. The co-simulation looks at the
//! flag every [`POLL_CYCLES`] cycles: a single system in [`Cosim::cycle`],
//! a mesh of dies in [`crate::mesh::Mesh::cycle`] (every die's trace).

use crate::sched::Cosim;
use std::sync::atomic::{AtomicBool, Ordering};

/// How often (cycles) a run looks for Ctrl-C.
pub const POLL_CYCLES: u64 = 4096;
/// The exit code of an interrupted run.
pub const EXIT_CODE: i32 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    REQUESTED.store(true, Ordering::SeqCst);
    // SAFETY: signal() is async-signal-safe; the next Ctrl-C takes the default action.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Make Ctrl-C a request the run answers (see the module).
pub fn install() {
    // SAFETY: installs a handler that only stores to an atomic and resets itself.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// Was Ctrl-C pressed?
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Close the traces of `systems`, say so, exit 130.
pub fn stop(systems: &mut [&mut Cosim]) -> ! {
    let cycle = systems.first().map_or(0, |c| c.stats.cycles);
    let mut closed = 0;
    for c in systems.iter_mut() {
        if c.dut.trace_wanted() {
            match c.dut.trace_close() {
                Ok(()) => closed += 1,
                Err(e) => eprintln!("tpb: closing a trace: {e}"),
            }
        }
    }
    let traces = match closed {
        0 => String::new(),
        1 => "; the trace was closed there and is complete up to it".into(),
        n => format!("; the {n} traces were closed there and are complete up to it"),
    };
    eprintln!("\ntpb: interrupted (Ctrl-C) at cycle {cycle}{traces}");
    std::process::exit(EXIT_CODE)
}
