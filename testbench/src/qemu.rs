//! Running Xtensa programs on `qemu-system-xtensa -M sim -cpu de212` (the
//! execution oracle) and on our core with the same memory map, for the
//! differential tests and the benchmark.

use crate::tools;
use std::path::Path;
use std::time::Duration;
use tpb_models::xtensa::elf::Image;
use tpb_models::xtensa::{Core, CoreConfig, MemorySpace, Step};

/// Why a run of QEMU or of our core did not give an outcome.
#[derive(Debug, thiserror::Error)]
pub enum QemuError {
    #[error(transparent)]
    Tool(#[from] tools::ToolError),
    #[error("{0}: not a UTF-8 path")]
    Path(String),
    #[error("qemu was killed by a signal")]
    Signal,
    #[error("loading the image: {0}")]
    Load(String),
    #[error("our core stopped at {pc:#x}")]
    Stopped { pc: u32 },
    #[error("our core did not exit within {steps} steps (pc {pc:#x})")]
    NoExit { steps: u64, pc: u32 },
    #[error("our core stopped with {step} at {pc:#x} after {retired} instructions")]
    StoppedFast { step: String, pc: u32, retired: u64 },
}

/// The differential tests' helpers report in words.
impl From<QemuError> for String {
    fn from(e: QemuError) -> String {
        e.to_string()
    }
}

/// What a run printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Semihosting exit status.
    pub status: u32,
    /// Bytes written to stdout with semihosting.
    pub stdout: Vec<u8>,
}

/// Run an ELF under QEMU. `singlestep` runs one instruction per
/// translation block: QEMU 7.2's block mode mis-executes SRA after SSA8B
/// when SAR = 32, so the oracle uses single-step (the benchmark does not).
pub fn run_qemu(elf: &Path, singlestep: bool, limit: Duration) -> Result<Outcome, QemuError> {
    let mut args = vec!["-M", "sim", "-cpu", "de212", "-semihosting", "-nographic", "-monitor", "none"];
    if singlestep {
        args.push("-singlestep");
    }
    let elf = elf.to_str().ok_or_else(|| QemuError::Path(elf.display().to_string()))?;
    args.extend(["-kernel", elf]);
    let out = tools::run_with_timeout("qemu-system-xtensa", &args, limit)?;
    let status = out.status.code().ok_or(QemuError::Signal)? as u32;
    Ok(Outcome { status, stdout: out.stdout })
}

/// Our core on the de212 memory map with `img` loaded, at reset.
pub fn load_de212(img: &Image) -> Result<(Core, MemorySpace), QemuError> {
    let cfg = CoreConfig::qemu_de212();
    let mut mem = MemorySpace::from_map(&cfg.memory).map_err(|e| QemuError::Load(e.to_string()))?;
    img.load(&mut mem).map_err(|e| QemuError::Load(e.to_string()))?;
    Ok((Core::new(cfg), mem))
}

/// Our run of the same image on the de212 map: the outcome, instructions
/// retired and window (overflow, underflow) exceptions taken.
pub fn run_ours(img: &Image, max_steps: u64) -> Result<(Outcome, u64, (u32, u32)), QemuError> {
    let (mut core, mut mem) = load_de212(img)?;
    let vecbase = core.config().vecbase;
    let (mut of, mut uf) = (0, 0);
    for _ in 0..max_steps {
        match core.step(&mut mem) {
            Step::Exit(status) => return Ok((Outcome { status, stdout: core.console.clone() }, core.retired(), (of, uf))),
            Step::Exception { vector, .. } if (vecbase..vecbase + 0x180).contains(&vector) => {
                if ((vector - vecbase) / 0x40).is_multiple_of(2) {
                    of += 1
                } else {
                    uf += 1
                }
            }
            Step::Halted | Step::Break { .. } | Step::Waiting => return Err(QemuError::Stopped { pc: core.pc }),
            _ => {}
        }
    }
    Err(QemuError::NoExit { steps: max_steps, pc: core.pc })
}

/// Our run of `img` on the de212 map with [`Core::run`] (pre-decoded code
/// pages, no trace): the outcome, the instructions retired and the core and
/// memory as they were left.
pub fn run_ours_fast(img: &Image, max_steps: u64) -> Result<(Outcome, Core, MemorySpace), QemuError> {
    let (mut core, mut mem) = load_de212(img)?;
    match core.run(&mut mem, max_steps) {
        Step::Exit(status) => Ok((Outcome { status, stdout: core.console.clone() }, core, mem)),
        other => Err(QemuError::StoppedFast { step: format!("{other:?}"), pc: core.pc, retired: core.retired() }),
    }
}

/// The last `keep` retired instructions (and exceptions) of our run, one
/// line each with WINDOWBASE/WINDOWSTART: for debugging a program the
/// differential test saved under target/qemu-oracle/ (compare with
/// `qemu-system-xtensa ... -singlestep -d cpu`).
pub fn trace_ours(img: &Image, max_steps: u64, keep: usize) -> Result<Vec<String>, QemuError> {
    use tpb_models::xtensa::config::sr;
    let (mut core, mut mem) = load_de212(img)?;
    core.set_trace(true);
    let mut lines = std::collections::VecDeque::new();
    for _ in 0..max_steps {
        let s = core.step(&mut mem);
        let text = match s {
            Step::Retired { pc, .. } => core.last_retire().map_or_else(|| format!("{pc:08x}"), |r| r.text()),
            other => format!("{other:?}"),
        };
        lines.push_back(format!("{text}   wb={} ws={:x}", core.sreg(sr::WINDOWBASE), core.sreg(sr::WINDOWSTART)));
        if lines.len() > keep {
            lines.pop_front();
        }
        if matches!(s, Step::Exit(_) | Step::Halted | Step::Break { .. }) {
            break;
        }
    }
    Ok(lines.into())
}
