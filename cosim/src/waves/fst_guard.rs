//! An FST's structure checked before the trace readers trust it: its
//! blocks walked bounded (each moves forward, each size it allocates from
//! within what its bytes can inflate to) and its signal handles within the
//! header's count. Crafted files found by the `vcd` and `fst` fuzz targets
//! made the readers loop for ever or allocate without bound; here they are
//! refused, saying where ([`super::read`] calls these first).

use std::path::Path;

/// An FST's hierarchy names each signal by a handle below the header's
/// `max_handle`; wellen grows a table to the largest handle it meets, so a
/// crafted one (found by the `fst` fuzz target) would have it fill
/// gigabytes. The hierarchy is read here first (fst-reader, which allocates
/// nothing per handle) and such a file refused.
pub(super) fn fst_handles_in_range(path: &Path) -> Result<(), String> {
    let f = std::io::BufReader::new(std::fs::File::open(path).map_err(|e| e.to_string())?);
    let bytes = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    let mut r = fst_reader::FstReader::open(f).map_err(|e| format!("not a sound FST: {e}"))?;
    let max = r.get_header().max_handle;
    // Each signal has a geometry entry of a byte at least: no more signals than the file can describe.
    if max > bytes.saturating_mul(MAX_INFLATE) {
        return Err(format!("not a sound FST: its header declares {max} signals, more than its {bytes} bytes can describe"));
    }
    let mut over = None;
    r.read_hierarchy(|e| {
        if let fst_reader::FstHierarchyEntry::Var { handle, name, .. } = e {
            if handle.get_index() as u64 >= max && over.is_none() {
                over = Some((handle.get_index(), name));
            }
        }
    })
    .map_err(|e| format!("not a sound FST: its hierarchy: {e}"))?;
    match over {
        Some((h, name)) => Err(format!("not a sound FST: its hierarchy names signal {name:?} by handle {h}, past the {max} signals its header declares")),
        None => Ok(()),
    }
}

/// A file that is not a VCD (its first non-blank byte is not `$`) is read
/// as an FST, and the FST reader trusts its lengths: a block whose length
/// would step back sends its format check round for ever, and a count or an
/// uncompressed length taken from the file is allocated as it stands (both
/// found by the `vcd` fuzz target; an allocation that fails aborts the
/// process). So the blocks are walked here first, bounded: each must move
/// forward within the file, and the sizes the reader allocates from (a
/// geometry's and a hierarchy's uncompressed length, a value-change block's
/// time table) must be within what their compressed bytes can hold
/// ([`MAX_INFLATE`]). A file that breaks that is refused, saying where.
/// Whether the file was walked as an FST (false: a VCD).
pub(super) fn fst_blocks_walk(path: &Path) -> Result<bool, String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let mut head = [0u8; 64];
    let n = f.read(&mut head).map_err(|e| e.to_string())?;
    if head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'$') {
        return Ok(false);
    }
    let bad = |at: u64, what: String| Err(format!("not a VCD file (no '$' keyword first), nor a sound FST: the block at byte {at} {what}"));
    let fits = |packed: u64, unpacked: u64| unpacked <= packed.saturating_mul(MAX_INFLATE).saturating_add(4096);
    let mut at = 0u64;
    // Each step moves forward, so the walk ends within the file's length.
    while at + 9 <= len {
        let mut t = [0u8; 1];
        f.seek(SeekFrom::Start(at)).and_then(|_| f.read_exact(&mut t)).map_err(|e| e.to_string())?;
        let section = u64_at(&mut f, at + 1)?;
        let end = match at.checked_add(1).and_then(|x| x.checked_add(section)).filter(|n| *n > at + 1 && *n <= len) {
            Some(n) => n,
            None => return bad(at, format!("says it is {section:#x} bytes long: it does not move forward within the file's {len} bytes (cut short or corrupt)")),
        };
        match t[0] {
            // Geometry: uncompressed length, then the largest handle.
            3 if section >= 24 => {
                let (unpacked, handles) = (u64_at(&mut f, at + 9)?, u64_at(&mut f, at + 17)?);
                if !fits(section - 24, unpacked) || handles > unpacked {
                    return bad(at, format!("(geometry) unpacks to {unpacked:#x} bytes with {handles:#x} signals from {} bytes", section - 24));
                }
            }
            // A hierarchy: its uncompressed length.
            4 | 6 | 7 if section >= 16 => {
                let unpacked = u64_at(&mut f, at + 9)?;
                if !fits(section - 16, unpacked) {
                    return bad(at, format!("(hierarchy) unpacks to {unpacked:#x} bytes from {} bytes", section - 16));
                }
                // LZ4 twice: the first pass's length, a LEB128 varint, is bounded too.
                if t[0] == 7 {
                    let first = varint_at(&mut f, at + 17)?;
                    if !fits(section - 16, first) {
                        return bad(at, format!("(hierarchy, LZ4 twice) unpacks first to {first:#x} bytes from {} bytes", section - 16));
                    }
                }
            }
            // Value changes: the time table's three words end the block.
            1 | 5 | 8 if section >= 32 => {
                let (unpacked, packed, items) = (u64_at(&mut f, end - 24)?, u64_at(&mut f, end - 16)?, u64_at(&mut f, end - 8)?);
                let traversal = u64_at(&mut f, at + 25)?;
                if packed > section || !fits(packed, unpacked) || items > unpacked || !fits(section, traversal) {
                    return bad(
                        at,
                        format!("(value changes) has a time table of {items:#x} items in {unpacked:#x} bytes from {packed:#x}, and asks {traversal:#x} bytes to traverse"),
                    );
                }
            }
            // The whole file gzipped: its uncompressed length.
            254 if section >= 16 => {
                let unpacked = u64_at(&mut f, at + 9)?;
                if !fits(section - 16, unpacked) {
                    return bad(at, format!("(gzip wrapper) unpacks to {unpacked:#x} bytes from {} bytes", section - 16));
                }
            }
            1..=8 | 254 => return bad(at, format!("of type {} is {section} bytes long, too short for its own header", t[0])),
            _ => {}
        }
        at = end;
    }
    Ok(true)
}

/// The LEB128 varint at byte `at`; one longer than a u64 reads as u64::MAX.
fn varint_at(f: &mut std::fs::File, at: u64) -> Result<u64, String> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(at)).map_err(|e| format!("byte {at}: {e}"))?;
    let (mut v, mut shift) = (0u64, 0u32);
    loop {
        let mut b = [0u8; 1];
        f.read_exact(&mut b).map_err(|e| format!("byte {at}: {e}"))?;
        if shift > 63 {
            return Ok(u64::MAX);
        }
        v |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            return Ok(v);
        }
        shift += 7;
    }
}

/// The big-endian u64 at byte `at`.
fn u64_at(f: &mut std::fs::File, at: u64) -> Result<u64, String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut b = [0u8; 8];
    f.seek(SeekFrom::Start(at)).and_then(|_| f.read_exact(&mut b)).map_err(|e| format!("byte {at}: {e}"))?;
    Ok(u64::from_be_bytes(b))
}

/// The most a compressed block may inflate by (zlib's bound is about
/// 1032 to 1; lz4's is lower).
const MAX_INFLATE: u64 = 1100;

#[cfg(test)]
mod tests {
    /// A non-VCD file whose FST blocks do not walk forward, or promise more
    /// than their bytes hold, is refused before the FST reader sees it.
    #[test]
    fn an_fst_whose_blocks_do_not_add_up_is_refused() {
        let dir = std::env::temp_dir().join(format!("tpb-fst-walk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = |name: &str, bytes: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        // A header block claiming a length that wraps round (the reader's endless loop).
        let mut back = vec![0u8];
        back.extend(u64::MAX.to_be_bytes());
        back.extend([0u8; 16]);
        let e = super::fst_blocks_walk(&file("back.fst", &back)).unwrap_err();
        assert!(e.contains("block at byte 0") && e.contains("does not move forward"), "{e}");
        // A geometry block promising more signals than its bytes hold.
        let mut geo = vec![3u8];
        geo.extend(40u64.to_be_bytes());
        geo.extend(64u64.to_be_bytes());
        geo.extend(u64::MAX.to_be_bytes());
        geo.extend([0u8; 16]);
        let e = super::fst_blocks_walk(&file("geo.fst", &geo)).unwrap_err();
        assert!(e.contains("(geometry)"), "{e}");
        // A VCD is not walked.
        assert_eq!(super::fst_blocks_walk(&file("a.vcd", b"  $date x $end\n")), Ok(false));
        std::fs::remove_dir_all(&dir).ok();
    }
}
