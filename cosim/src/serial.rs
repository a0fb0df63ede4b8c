//! The FPGA prototype under Verilator, behind a pseudo-terminal: the
//! simulated board's serial port.
//!
//! [`SerialSim::start`] creates a pseudo-terminal pair, keeps the master,
//! and runs a generation's Verilated prototype (the host-link bridge and the
//! top, as `hdl/generated/<arch>_tpb_proto.v` holds it for the default UART
//! divider) on a thread, its UART pins driven and read bit by bit
//! ([`crate::uart`]) from and to the master. The model is built at run time
//! ([`crate::vlbuild`], about a minute on 2 cores the first time, then
//! reused from its directory), so the crate and `tpb` do not carry a model
//! only this simulation needs. The slave's
//! path ([`SerialSim::path`], `/dev/pts/N`) is what a host program opens,
//! exactly as it opens `/dev/ttyUSB0` on a real board: the HAL's
//! `SerialLink::open` does.
//!
//! While the bridge is idle and nothing is on the line, the thread waits on
//! the pseudo-terminal instead of simulating cycles nobody needs; simulated
//! time is the cycles run, as on the board the link's time is baud-bound.

use crate::uart::{UartReceiver, UartSender};
use crate::verilator::{Model, VlError};
use crate::vlbuild;
use serialport::{SerialPort, TTYPort};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tpb_hdl::proto::ProtoSize;
use tpb_models::regmap::RegMap;

/// Why the simulated board did not start.
#[derive(Debug, thiserror::Error)]
pub enum SerialSimError {
    #[error("pseudo-terminal: {0}")]
    Pty(#[source] serialport::Error),
    #[error("pseudo-terminal: the slave has no name")]
    PtyName,
    #[error("the simulated board's thread: {0}")]
    Thread(#[source] std::io::Error),
    #[error(transparent)]
    Model(#[from] VlError),
    #[error("the prototype's Verilog: {0}")]
    Layout(#[from] tpb_hdl::top::LayoutError),
    #[error("the prototype's model: {0}")]
    Build(#[from] vlbuild::BuildError),
}

/// What the simulated board did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimStats {
    pub cycles: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

/// The prototype under Verilator on a pseudo-terminal.
pub struct SerialSim {
    path: String,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Result<SimStats, VlError>>>,
}

/// Cycles the prototype runs before it serves the line (its power-on reset
/// and the EVT_SEM units' clear).
const BOOT_CYCLES: u64 = 1024;
/// Cycles between looks at the pseudo-terminal while the line is busy.
const POLL_CYCLES: u64 = 64;

impl SerialSim {
    /// Start `map`'s generation's prototype (its default memories) with its
    /// UART at `div` clock cycles per bit. The Verilated model is built in
    /// `dir`, or reused from there when it was built from the same Verilog;
    /// `jobs` compilers run at a time.
    pub fn start(map: &RegMap, div: u32, dir: &Path, jobs: usize) -> Result<SerialSim, SerialSimError> {
        let v = tpb_hdl::generated::proto_file(map, ProtoSize::Default, div)?;
        let prefix = format!("V{}", v.module);
        let model = vlbuild::build(&vlbuild::Spec::new(&prefix, v.text, &v.module, None, false), &dir.join(&prefix), jobs, &|_| {})?;
        let (master, slave) = TTYPort::pair().map_err(SerialSimError::Pty)?;
        let path = slave.name().ok_or(SerialSimError::PtyName)?;
        // The host opens the slave by its path; this handle is not needed.
        drop(slave);
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::Builder::new().name("serial-sim".into()).spawn(move || serve(model, master, div, &s)).map_err(SerialSimError::Thread)?;
        Ok(SerialSim { path, stop, thread: Some(thread) })
    }

    /// The device path to open (`/dev/pts/N`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Stop the board; what it did.
    pub fn stop(mut self) -> Result<SimStats, VlError> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(e)) => std::panic::resume_unwind(e),
            None => Ok(SimStats::default()),
        }
    }
}

impl Drop for SerialSim {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(mut m: Model, mut pty: TTYPort, div: u32, stop: &AtomicBool) -> Result<SimStats, VlError> {
    let (clock, locked, btn, rx, tx, led) = (m.port("clock")?, m.port("pll_locked")?, m.port("btn_reset")?, m.port("uart_rx")?, m.port("uart_tx")?, m.port("led")?);
    // The board wrapper's global buffer is a wire here.
    let (reset_req, reset) = (m.port("reset_req")?, m.port("reset")?);
    let (mut send, mut recv) = (UartSender::new(div), UartReceiver::new(div));
    let mut st = SimStats::default();
    m.set(locked, 1)?;
    m.set(btn, 0)?;
    m.set(rx, 1)?;
    let cycle = |m: &mut Model, send: &mut UartSender, recv: &mut UartReceiver, st: &mut SimStats| {
        m.set_unchecked(rx, u64::from(send.tick()));
        m.set_unchecked(reset, m.get(reset_req));
        m.set_unchecked(clock, 0);
        m.eval();
        m.set_unchecked(clock, 1);
        m.eval();
        recv.tick(m.get(tx) != 0);
        st.cycles += 1;
    };
    for _ in 0..BOOT_CYCLES {
        cycle(&mut m, &mut send, &mut recv, &mut st);
    }
    let mut buf = [0u8; 256];
    while !stop.load(Ordering::Relaxed) {
        // Busy: the bridge handles a frame, or bits are on either line.
        let busy = m.get(led) & 2 != 0 || !send.idle() || recv.busy();
        let _ = pty.set_timeout(if busy { Duration::ZERO } else { Duration::from_millis(5) });
        // The slave may not be open yet (EIO) or have nothing (timeout): both are "no bytes".
        match pty.read(&mut buf) {
            Ok(n) => {
                send.send(&buf[..n]);
                st.bytes_in += n as u64;
            }
            Err(e) if e.kind() != std::io::ErrorKind::TimedOut => std::thread::sleep(Duration::from_millis(1)),
            Err(_) => {}
        }
        if !recv.bytes.is_empty() {
            let out: Vec<u8> = recv.bytes.drain(..).collect();
            if pty.write_all(&out).is_ok() {
                st.bytes_out += out.len() as u64;
            }
        }
        if busy || !send.idle() {
            for _ in 0..POLL_CYCLES {
                cycle(&mut m, &mut send, &mut recv, &mut st);
            }
        }
    }
    Ok(st)
}
