//! `tpb serve`: a co-simulation behind a TCP socket that speaks the FPGA
//! prototype's host-link protocol ([`tpb_cosim::serve`]), for host programs
//! in any language (`testbench/python/tpb_link.py`).
//!
//! With a testbench file, the cores get its `[firmware]` images (built as
//! `tpb sim` builds them; OP_STPB_INIT installs them through the HAL) and
//! its steps are not run: the client is the host. Without one, the top and
//! its cores are at reset with no images. One client is served; when it
//! closes the connection the server prints what the session did and exits.

use crate::commands::ArchArg;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// A testbench file with \[firmware\] whose images the cores get.
    pub file: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// Address to listen on; port 0 picks a free one (printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: String,
    /// The VCD file the client's trace op (0x13) opens.
    #[arg(long)]
    pub vcd: Option<PathBuf>,
}

/// Serve one client; the exit code.
pub fn run(args: &ServeArgs) -> i32 {
    match serve(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tpb: error: {e}");
            2
        }
    }
}

fn serve(args: &ServeArgs) -> Result<(), String> {
    use tpb_testbench::tb::file;
    let arch = args.arch.into();
    let (mut cosim, stpb) = match &args.file {
        Some(path) => {
            let f = file::TbFile::load(path).map_err(|e| e.to_string())?;
            if f.firmware.is_empty() {
                return Err(format!("{}: no [firmware] table: serve it without a file, or add the cores' images", path.display()));
            }
            if !f.archs.contains(&arch) {
                return Err(format!("{} applies to {} only (--arch)", path.display(), f.archs.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")));
            }
            let (c, images) = file::cosim_of(&f, arch, true)?;
            (c, Some(images.stpb_config()?))
        }
        None => {
            let mut c = tpb_cosim::sched::Cosim::new(arch).map_err(|e| e.to_string())?;
            c.console.echo = true;
            (c, None)
        }
    };
    let listener = std::net::TcpListener::bind(&args.listen).map_err(|e| format!("--listen {}: {e}", args.listen))?;
    let at = listener.local_addr().map_err(|e| e.to_string())?;
    println!("tpb serve: {} co-simulation listening on {at}", arch.name());
    let _ = std::io::stdout().flush();
    let (stream, peer) = listener.accept().map_err(|e| format!("accept: {e}"))?;
    let _ = stream.set_nodelay(true);
    let mut server = tpb_cosim::serve::Server::new(&mut cosim);
    server.vcd = args.vcd.clone();
    server.stpb = stpb;
    let input = stream.try_clone().map_err(|e| e.to_string())?;
    let s = server.serve(input, stream).map_err(|e| format!("the connection from {peer}: {e}"))?;
    cosim.console.flush();
    let skipped = match s.skipped {
        0 => String::new(),
        n => format!(
            ", {n} bytes outside frames skipped (a request frame starts with {:#04x}: is the client speaking the host-link protocol?)",
            tpb_models::hal::hostlink::SYNC_REQUEST
        ),
    };
    println!("tpb serve: {peer} closed: {} frames ({} refused){skipped}, {} cycles", s.frames, s.refused, s.cycles);
    Ok(())
}
