//! `tpb serve`: a co-simulation behind a TCP socket that speaks the FPGA
//! prototype's host-link protocol ([`tpb_cosim::serve`]), for host programs
//! in any language (`testbench/python/tpb_link.py`; docs/host-link.md).
//!
//! With a testbench file, the cores get its `[firmware]` images (built as
//! `tpb sim` builds them; STPB_INIT installs them through the HAL, each Q7
//! core's `[[firmware.q7.data]]` after them) and its steps are not run: the
//! client is the host. Without one, the top and its cores are at reset with
//! no images.
//!
//! Clients are served one at a time, and the co-simulation outlives them:
//! a client that leaves (even in the middle of a burst or a run) ends its
//! session, and the next one finds every write the last one had
//! acknowledged. A client that connects while another is served is
//! answered BUSY and closed. `--once` ends the server with its first
//! client; Ctrl-C ends it (closing the trace).

use crate::commands::ArchArg;
use clap::Args;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use tpb_cosim::serve::{End, Served, ServedImage, Server};
use tpb_models::hal::hostlink::{Response, Status};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// A testbench file with \[firmware\] whose images the cores get.
    pub file: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// Address to listen on; port 0 picks a free one (printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: String,
    /// The VCD file the client's TRACE op opens.
    #[arg(long)]
    pub vcd: Option<PathBuf>,
    /// Serve one client, then exit (a script's way to end the server).
    #[arg(long)]
    pub once: bool,
}

/// Serve clients; the exit code.
pub fn run(args: &ServeArgs) -> i32 {
    match serve(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tpb: error: {e}");
            2
        }
    }
}

/// The co-simulation and what STPB_INIT installs.
fn setup(args: &ServeArgs) -> Result<(tpb_cosim::sched::Cosim, Option<Served>), String> {
    use tpb_testbench::tb::file;
    let arch = args.arch.into();
    let Some(path) = &args.file else {
        let mut c = tpb_cosim::sched::Cosim::new(arch).map_err(|e| e.to_string())?;
        c.console.echo = true;
        return Ok((c, None));
    };
    let f = file::TbFile::load(path).map_err(|e| e.to_string())?;
    if f.firmware.is_empty() {
        return Err(format!("{}: no [firmware] table: serve it without a file, or add the cores' images", path.display()));
    }
    if !f.archs.contains(&arch) {
        return Err(format!("{} applies to {} only (--arch)", path.display(), f.archs.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")));
    }
    let (c, images) = file::cosim_of(&f, arch, true)?;
    let served = Served {
        stpb: images.stpb_config()?,
        data: images.data_writes()?,
        images: images.built.iter().map(|(k, b)| (*k, ServedImage { symbols: b.symbols.clone(), iram: b.images.iram.clone() })).collect(),
    };
    Ok((c, Some(served)))
}

fn serve(args: &ServeArgs) -> Result<(), String> {
    let (mut cosim, served) = setup(args)?;
    let listener = TcpListener::bind(&args.listen).map_err(|e| format!("--listen {}: {e}", args.listen))?;
    let at = listener.local_addr().map_err(|e| e.to_string())?;
    let arch: tpb_models::regmap::Arch = args.arch.into();
    println!("tpb serve: {} co-simulation listening on {at}", arch.name());
    let _ = std::io::stdout().flush();
    let busy = Arc::new(AtomicBool::new(false));
    let clients = accept_in_turn(listener, busy.clone());
    let mut server = Server::new(&mut cosim);
    server.vcd = args.vcd.clone();
    server.served = served;
    loop {
        let (mut stream, peer) = match clients.recv_timeout(Duration::from_millis(200)) {
            Ok(c) => c,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if tpb_cosim::interrupt::requested() {
                    tpb_cosim::interrupt::stop(&mut [server.cosim]);
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err("the listening socket failed".into()),
        };
        let _ = stream.set_nodelay(true);
        let s = server.serve(&mut stream);
        busy.store(false, Ordering::SeqCst);
        server.cosim.console.flush();
        let s = match s {
            Ok(s) => s,
            Err(e) => {
                eprintln!("tpb serve: the connection from {peer}: {e}");
                if args.once {
                    break;
                }
                continue;
            }
        };
        if s.end == End::Interrupted {
            tpb_cosim::interrupt::stop(&mut [server.cosim]);
        }
        let skipped = match s.skipped {
            0 => String::new(),
            n => format!(
                ", {n} bytes outside frames skipped (a request frame starts with {:#04x}: is the client speaking the host-link protocol?)",
                tpb_models::hal::hostlink::SYNC_REQUEST
            ),
        };
        let how = if s.end == End::Left { "left" } else { "closed" };
        println!("tpb serve: {peer} {how}: {} frames ({} refused){skipped}, {} cycles; at cycle {}", s.frames, s.refused, s.cycles, server.cosim.stats.cycles);
        let _ = std::io::stdout().flush();
        if args.once {
            break;
        }
    }
    server.finish();
    Ok(())
}

/// Accept every connection on a thread of its own: the first one while
/// nobody is served goes to the server (marked busy); any other is
/// answered BUSY and closed.
fn accept_in_turn(listener: TcpListener, busy: Arc<AtomicBool>) -> mpsc::Receiver<(TcpStream, std::net::SocketAddr)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut stream) = conn else { continue };
            let Ok(peer) = stream.peer_addr() else { continue };
            if busy.swap(true, Ordering::SeqCst) {
                eprintln!("tpb serve: {peer} refused: another client is being served (BUSY)");
                let _ = stream.write_all(&Response { status: Status::Busy, seq: 0, count: 0, data: 0 }.encode());
                let _ = stream.shutdown(std::net::Shutdown::Both);
                continue;
            }
            if tx.send((stream, peer)).is_err() {
                return;
            }
        }
    });
    rx
}
