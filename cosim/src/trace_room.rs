//! Room for an FST before the model's own FST writer starts.
//!
//! GTKWave's FST writer (`fstapi.c`, inside Verilator) keeps its work in
//! files: the hierarchy in `<file>.hier` beside the FST, the rest in
//! `tmpfile()`s under `/tmp`. At the close it maps them back, and a work
//! file a full disk cut short ends the process with SIGBUS, without a word
//! (a 16 KiB tmpfs shows it). Failed writes to the FST itself are caught
//! at the close (`Model::trace_close` reads the file back); these are not,
//! so an FST-writing model is not started on a file system with less than
//! [`FST_MIN_FREE`] free.

use std::path::{Path, PathBuf};

/// Free space an FST-writing model needs on the FST's file system and on
/// `/tmp` before it starts (`[D]`): its work files for the two-level trace
/// are about 40 KB, for every level a few hundred. `TPB_FST_MIN_FREE`
/// (bytes) overrides it.
pub const FST_MIN_FREE: u64 = 1 << 20;

/// The folder `tmpfile()` writes in (glibc's `P_tmpdir`; it does not read `TMPDIR`).
const TMPFILE_DIR: &str = "/tmp";

/// A file system without the room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoRoom {
    pub dir: PathBuf,
    pub free: u64,
    pub need: u64,
}

impl std::fmt::Display for NoRoom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} has {} KiB free, under the {} KiB GTKWave's FST writer is given (TPB_FST_MIN_FREE): it dies (SIGBUS) when its work files cannot be written whole, so it was not started; free some space, or write a VCD, whose failed writes are reported",
            self.dir.display(),
            self.free / 1024,
            self.need / 1024
        )
    }
}

/// Bytes free to an unprivileged writer on the file system of `dir`.
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a NUL-terminated path and a zeroed statvfs for the call to fill.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// The room asked for: `TPB_FST_MIN_FREE`, or [`FST_MIN_FREE`].
fn need() -> u64 {
    std::env::var("TPB_FST_MIN_FREE").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(FST_MIN_FREE)
}

/// Whether an FST at `fst` has room for its writer's work files: the first
/// of its folder and `/tmp` that has less than the room asked for. A file
/// system that cannot be asked is passed (the writer's own open reports a
/// folder that is not there).
pub fn check(fst: &Path) -> Result<(), NoRoom> {
    let folder = match fst.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
    let need = need();
    for dir in [folder, PathBuf::from(TMPFILE_DIR)] {
        if let Some(free) = free_bytes(&dir) {
            if free < need {
                return Err(NoRoom { dir, free, need });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The query answers for a real folder, and a file system with less
    /// than the room asked for is named with what it has.
    #[test]
    fn room_is_asked_of_the_fst_folder_and_tmp() {
        let here = std::env::current_dir().unwrap();
        assert!(super::free_bytes(&here).is_some_and(|b| b > 0), "statvfs answers for {}", here.display());
        assert_eq!(super::free_bytes(std::path::Path::new("/no/such/folder")), None);
        assert_eq!(super::check(&here.join("x.fst")), Ok(()), "this machine has room");
        let e = super::NoRoom { dir: "/mnt/small".into(), free: 12 * 1024, need: super::FST_MIN_FREE };
        assert!(e.to_string().starts_with("/mnt/small has 12 KiB free, under the 1024 KiB"), "{e}");
    }
}
