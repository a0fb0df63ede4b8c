//! Reading a VCD or FST back: the signals a diagram or a check needs, their
//! widths from the header alone (a save file needs no more), and a VCD's
//! body or an FST's blocks only as far as a window needs them.

use super::{Trace, WavesError};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use wellen::viewers::{read_body, read_header, read_header_from_file, HeaderResult};
use wellen::LoadOptions;

/// Why a waveform file could not be read, in words: the reader's own
/// message, and for a VCD whose header never ends (a run killed while it
/// wrote), that.
fn read_failed(path: &Path, e: wellen::WellenError) -> WavesError {
    let mut msg = match &e {
        wellen::WellenError::FailedToLoad(format, why) => format!("not a readable {} file ({why})", format!("{format:?}").to_uppercase()),
        other => other.to_string(),
    };
    if path.extension().is_some_and(|x| x.eq_ignore_ascii_case("vcd")) {
        use std::io::Read;
        // The header is at the start: 16 MiB hold any header we write.
        let mut head = Vec::new();
        let read = std::fs::File::open(path).and_then(|f| f.take(16 << 20).read_to_end(&mut head)).is_ok();
        let starts_vcd = head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'$');
        let complete = head.windows(15).any(|w| w == b"$enddefinitions");
        if read && !starts_vcd {
            msg += ": it does not begin with a VCD declaration (`$date`, `$timescale`, `$scope`, ...): not a VCD file";
        } else if read && !complete {
            msg += ": the file ends inside its header (no `$enddefinitions`), as a run that was stopped while writing it leaves it; run the scenario again";
        }
    }
    WavesError::Read { path: path.display().to_string(), msg }
}

/// Reads under way in [`guarded`]: while there are any, a panic raised in
/// the readers' code (or in the core arithmetic it calls; on any thread:
/// wellen parses on several) is not handed to the previous hook (the read
/// returns it as its error).
static GUARDED: AtomicUsize = AtomicUsize::new(0);

/// Run a read of `path` so that a panic in the readers becomes its error.
/// The readers panic, instead of failing, on some damaged files: wellen's
/// FST reader asserts on files a full disk cut short (`fst-reader`), and
/// its VCD reader indexes past its signal table on a value change for an
/// id the header never declared (bytes garbled in the middle of a file).
/// Either would end `tpb` with exit 101 and a backtrace. Panics raised in
/// the reader crates (`fst-reader`, `wellen`), or in the standard library's
/// arithmetic they call (an overflow check's location is the library's),
/// are kept quiet while a read is under way; any other still goes to the
/// previous hook (a fuzzer's hook aborts on it).
fn guarded<T>(path: &Path, read: impl FnOnce() -> Result<T, WavesError>) -> Result<T, WavesError> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_reader = info.location().is_some_and(|l| ["fst-reader", "wellen", "library/core/src/num"].iter().any(|c| l.file().contains(c)));
            if !(in_reader && GUARDED.load(Ordering::SeqCst) > 0) {
                previous(info);
            }
        }));
    });
    GUARDED.fetch_add(1, Ordering::SeqCst);
    let result = std::panic::catch_unwind(AssertUnwindSafe(read));
    GUARDED.fetch_sub(1, Ordering::SeqCst);
    result.unwrap_or_else(|payload| {
        let why = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_default();
        Err(WavesError::Read { path: path.display().to_string(), msg: format!("the reader gave up on it ({why}): a file cut short or corrupt") })
    })
}

/// Whether a trace the model wrote as FST reads back (its header and
/// hierarchy): GTKWave's FST writer reports no failed write, so a file cut
/// short by a full disk shows only here.
pub(crate) fn check_fst(path: &Path) -> Result<(), WavesError> {
    hierarchy(path).map(drop)
}

/// Picoseconds per time unit of a file's timescale.
fn ps_per_unit(path: &Path, ts: Option<wellen::Timescale>) -> Result<u64, WavesError> {
    let Some(ts) = ts else { return Ok(1) };
    let bad = || WavesError::Timescale { path: path.display().to_string(), scale: format!("{} {:?}", ts.factor, ts.unit) };
    let exp = ts.unit.to_exponent().ok_or_else(bad)?;
    if exp < -12 {
        return Err(bad());
    }
    10u64.checked_pow((exp + 12) as u32).and_then(|m| m.checked_mul(u64::from(ts.factor))).ok_or_else(bad)
}

/// Read `signals` (under `TOP`) from a VCD or FST: their widths and changes,
/// times in picoseconds.
pub fn read(path: &Path, signals: &[String]) -> Result<Vec<(u32, Trace)>, WavesError> {
    read_until(path, signals, None).map(|(t, _)| t)
}

/// The reader panics on a file it cannot open: say why first.
fn check_file(path: &Path) -> Result<(), WavesError> {
    let p = path.display().to_string();
    match std::fs::metadata(path) {
        Err(e) => Err(WavesError::Read { path: p, msg: e.to_string() }),
        Ok(m) if !m.is_file() => Err(WavesError::Read { path: p, msg: "not a file".into() }),
        Ok(m) if m.len() == 0 => Err(WavesError::Read { path: p, msg: "an empty file (0 bytes): no trace was written to it".into() }),
        Ok(_) => {
            let fst = super::fst_guard::fst_blocks_walk(path).map_err(|msg| WavesError::Read { path: p.clone(), msg })?;
            match fst {
                true => guarded(path, || super::fst_guard::fst_handles_in_range(path).map_err(|msg| WavesError::Read { path: p, msg })),
                false => Ok(()),
            }
        }
    }
}

fn lookup(path: &Path, h: &wellen::Hierarchy, name: &str) -> Result<wellen::VarRef, WavesError> {
    h.lookup_var(&["TOP"], name).ok_or_else(|| WavesError::NoSignal { path: path.display().to_string(), name: name.into() })
}

/// The widths of `signals` (under `TOP`), from the file's header alone.
pub fn widths(path: &Path, signals: &[String]) -> Result<HashMap<String, u32>, WavesError> {
    let h = hierarchy(path)?;
    signals.iter().map(|n| Ok((n.clone(), h[lookup(path, &h, n)?].length().unwrap_or(1)))).collect()
}

/// A file's hierarchy, from its header alone.
fn hierarchy(path: &Path) -> Result<wellen::Hierarchy, WavesError> {
    check_file(path)?;
    guarded(path, || Ok(read_header_from_file(path, &LoadOptions::default()).map_err(|e| read_failed(path, e))?.hierarchy))
}

/// As [`widths`], of those of `signals` the dump has (a trace of some
/// groups only, `tpb sim --trace-groups`).
pub fn widths_present(path: &Path, signals: &[String]) -> Result<HashMap<String, u32>, WavesError> {
    let h = hierarchy(path)?;
    Ok(signals.iter().filter_map(|n| lookup(path, &h, n).ok().map(|r| (n.clone(), h[r].length().unwrap_or(1)))).collect())
}

/// Where a VCD's body passes `until` (in the file's time units): the
/// offset of the first time line past it, where the text may be cut
/// without losing a change at or before `until`.
fn vcd_cut(bytes: &[u8], until: u64) -> Option<usize> {
    let body = bytes.windows(15).position(|w| w == b"$enddefinitions")?;
    let mut i = body;
    while let Some(k) = bytes[i..].iter().position(|&b| b == b'#') {
        let at = i + k;
        i = at + 1;
        if at == 0 || bytes[at - 1] != b'\n' {
            continue;
        }
        let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let t: u64 = std::str::from_utf8(&bytes[i..i + digits]).ok()?.parse().ok()?;
        if t > until {
            return Some(at);
        }
    }
    None
}

/// Read `signals` (under `TOP`) from a VCD or FST, a VCD's body only up to
/// `until_ps` (all of it with None): their widths and changes, times in
/// picoseconds, and the last time read.
pub(super) fn read_until(path: &Path, signals: &[String], until_ps: Option<u64>) -> Result<(Vec<(u32, Trace)>, u64), WavesError> {
    check_file(path)?;
    guarded(path, || read_selected(path, signals, until_ps, true))
}

/// [`read_until`] unguarded; `select`: a VCD is cut down to `signals` first
/// ([`super::vcd_select`]) where that reader can, and an FST is streamed
/// ([`fst_changes`]); without it, either is read whole for `signals`.
pub(super) fn read_selected(path: &Path, signals: &[String], until_ps: Option<u64>, select: bool) -> Result<(Vec<(u32, Trace)>, u64), WavesError> {
    let opts = LoadOptions::default();
    let header = read_header_from_file(path, &opts).map_err(|e| read_failed(path, e))?;
    let unit = ps_per_unit(path, header.hierarchy.timescale())?;
    let is_vcd = path.extension().is_some_and(|x| x.eq_ignore_ascii_case("vcd"));
    let io = |e: std::io::Error| WavesError::Read { path: path.display().to_string(), msg: e.to_string() };
    if select && is_vcd {
        if let Some(bytes) = super::vcd_select::select(path, signals, until_ps.map(|u| u / unit)).map_err(io)? {
            let header = read_header(std::io::Cursor::new(bytes), &opts).map_err(|e| read_failed(path, e))?;
            return changes(path, header, signals, unit);
        }
    }
    if select && header.file_format == wellen::FileFormat::Fst {
        let end = read_body(header.body, &header.hierarchy, None).map_err(|e| read_failed(path, e))?.time_table.last().map_or(0, |t| t.saturating_mul(unit));
        return Ok((fst_changes(path, signals, until_ps.map(|u| u / unit), unit)?, end));
    }
    // Cut only where it saves most of the file: wellen parses a file it
    // maps in parallel, and bytes in memory on one thread.
    let cut = match until_ps.filter(|_| is_vcd) {
        Some(until) => {
            let bytes = std::fs::read(path).map_err(io)?;
            vcd_cut(&bytes, until / unit).filter(|&c| c < bytes.len() / 2).map(|c| (bytes, c))
        }
        None => None,
    };
    match cut {
        Some((mut bytes, cut)) => {
            bytes.truncate(cut);
            let header = read_header(std::io::Cursor::new(bytes), &opts).map_err(|e| read_failed(path, e))?;
            changes(path, header, signals, unit)
        }
        None => changes(path, header, signals, unit),
    }
}

fn changes<R: std::io::BufRead + std::io::Seek + Sync + Send + 'static>(
    path: &Path,
    header: HeaderResult<R>,
    signals: &[String],
    unit: u64,
) -> Result<(Vec<(u32, Trace)>, u64), WavesError> {
    let h = header.hierarchy;
    let mut refs = Vec::new();
    for name in signals {
        let v = &h[lookup(path, &h, name)?];
        refs.push((v.signal_ref(), v.length().unwrap_or(1)));
    }
    let body = read_body(header.body, &h, None).map_err(|e| read_failed(path, e))?;
    let mut source = body.source;
    let sigs: Vec<_> = refs.iter().map(|r| r.0).collect();
    let loaded: HashMap<_, _> = source.load_signals(&sigs, &h, true).into_iter().collect();
    let times = body.time_table;
    let mut out = Vec::new();
    for (sig, width) in refs {
        let s = loaded.get(&sig).ok_or_else(|| WavesError::Read { path: path.display().to_string(), msg: format!("the reader returned no values for signal {sig:?}") })?;
        let mut tr: Trace = Vec::new();
        for (idx, value) in s.iter_changes() {
            let t = times[idx as usize].saturating_mul(unit);
            let v = value_of(&value);
            tr.push((t, v));
        }
        out.push((width, tr));
    }
    Ok((out, times.last().map_or(0, |t| t.saturating_mul(unit))))
}

/// An FST's `signals` up to time `until` (the file's units) at least,
/// streamed: the reader leaves out the blocks that start after it. The
/// changes are those the whole read gives (a value the same as the one
/// before is no change); the time is the caller's to give.
fn fst_changes(path: &Path, signals: &[String], until: Option<u64>, unit: u64) -> Result<Vec<(u32, Trace)>, WavesError> {
    if signals.is_empty() {
        return Ok(Vec::new());
    }
    let mut w = wellen::stream::read_from_file(path, &LoadOptions::default()).map_err(|e| read_failed(path, e))?;
    let h = w.hierarchy();
    let mut refs = Vec::new();
    for name in signals {
        let v = &h[lookup(path, h, name)?];
        refs.push((v.signal_ref(), v.length().unwrap_or(1)));
    }
    let mut wanted: Vec<_> = refs.iter().map(|r| r.0).collect();
    wanted.sort();
    wanted.dedup();
    // Each signal's changes, and the last value as the reader spelt it.
    let mut got: HashMap<wellen::SignalRef, (Trace, Vec<u8>)> = wanted.iter().map(|&r| (r, (Vec::new(), Vec::new()))).collect();
    let filter = wellen::stream::Filter { start: 0, end: until, signals: Some(&wanted) };
    let mut spelt = Vec::new();
    w.stream(&filter, |t, sig, value| {
        let Some((tr, last)) = got.get_mut(&sig) else { return };
        spelt.clear();
        match value {
            wellen::SignalValue::Binary(d, _) => spelt.extend([0].iter().chain(d)),
            wellen::SignalValue::FourValue(d, _) => spelt.extend([1].iter().chain(d)),
            wellen::SignalValue::NineValue(d, _) => spelt.extend([2].iter().chain(d)),
            wellen::SignalValue::Real(r) => spelt.extend([3].iter().chain(&r.to_le_bytes())),
            wellen::SignalValue::String(s) => spelt.extend([4].iter().chain(s.as_bytes())),
            wellen::SignalValue::Event => spelt.push(5),
        }
        if tr.is_empty() || spelt != *last {
            tr.push((t.saturating_mul(unit), value_of(&value)));
            std::mem::swap(last, &mut spelt);
        }
    })
    .map_err(|e| read_failed(path, e))?;
    // A signal under two names (an alias) is copied; otherwise moved.
    let mut out = Vec::with_capacity(refs.len());
    for (i, &(sig, width)) in refs.iter().enumerate() {
        let (tr, _) = got.get_mut(&sig).ok_or_else(|| WavesError::Read { path: path.display().to_string(), msg: format!("no values kept for signal {sig:?}") })?;
        out.push((width, if refs[i + 1..].iter().any(|r| r.0 == sig) { tr.clone() } else { std::mem::take(tr) }));
    }
    Ok(out)
}

/// A value as a number: None for X/Z or wider than 64 bits.
fn value_of(v: &wellen::SignalValue) -> Option<u64> {
    match *v {
        // Big-endian bytes, the first one's unused bits clear; a
        // two-state value needs no spelling out.
        wellen::SignalValue::Binary(data, bits) if (1..=64).contains(&bits) => {
            let mask = u64::MAX >> (64 - bits);
            Some(data.iter().fold(0u64, |a, &b| a.wrapping_shl(8) | u64::from(b)) & mask)
        }
        _ => v.to_bit_string().and_then(|b| u64::from_str_radix(&b, 2).ok()),
    }
}

#[cfg(test)]
mod tests {

    /// A VCD whose body names a signal it never declared (here `~~~`, as
    /// bytes garbled in the middle of a file leave it) makes wellen index
    /// past its signal table and panic: the read returns that as its error.
    #[test]
    fn a_reader_panic_on_a_garbled_file_is_the_reads_error() {
        let dir = std::env::temp_dir().join(format!("tpb-garbled-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let vcd = dir.join("garbled.vcd");
        let head = "$timescale 1ps $end\n$scope module TOP $end\n$var wire 1 ! req_valid $end\n$upscope $end\n$enddefinitions $end\n";
        std::fs::write(&vcd, format!("{head}#0\n1!\n#1\n1~~~\n#2\n0!\n")).unwrap();
        let e = super::read(&vcd, &["req_valid".to_string()]).unwrap_err().to_string();
        assert!(e.contains("garbled.vcd") && e.contains("the reader gave up on it"), "{e}");
        std::fs::write(&vcd, format!("{head}#0\n1!\n#2\n0!\n")).unwrap();
        let (t, end) = super::read_until(&vcd, &["req_valid".to_string()], None).unwrap();
        assert_eq!((t[0].1.clone(), end), (vec![(0, Some(1)), (2, Some(0))], 2), "the same file whole reads");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A trace (`ext`: `vcd` or `fst`) of a built-in run on each generation,
    /// written into `dir`.
    fn real_traces(dir: &std::path::Path, ext: &str) -> Vec<(&'static str, tpb_models::regmap::Arch, std::path::PathBuf)> {
        use tpb_models::regmap::Arch;
        std::fs::create_dir_all(dir).unwrap();
        let runs = [("doorbell", Arch::Cayman), ("interrupt", Arch::Sunda), ("dispatch", Arch::Mariana)];
        runs.into_iter()
            .map(|(name, arch)| {
                let f = crate::scenario::ScenarioFile::find(name).unwrap();
                let mut c = crate::sched::Cosim::on(crate::dut::Dut::new(arch).unwrap()).unwrap();
                let path = dir.join(format!("{name}.{ext}"));
                c.trace(&path).unwrap();
                f.run_on(&mut c, f.cycles).unwrap();
                c.dut.trace_close().unwrap();
                (name, arch, path)
            })
            .collect()
    }

    /// On real traces, a VCD cut down to some signals reads as the whole
    /// file does (cut at the same time by `vcd_cut`, the reader before the
    /// selection): every group's signals and one group's, the whole run and
    /// up to a time, on each generation.
    #[test]
    fn a_selected_vcd_reads_as_the_whole_file_does() {
        use crate::waves::{group_signals, GroupName};
        let dir = std::env::temp_dir().join(format!("tpb-vcd-selected-{}", std::process::id()));
        for (name, arch, vcd) in real_traces(&dir, "vcd") {
            let bytes = std::fs::read(&vcd).unwrap();
            let unit = super::ps_per_unit(&vcd, super::hierarchy(&vcd).unwrap().timescale()).unwrap();
            let (_, end) = super::read_selected(&vcd, &["clock".to_string()], None, false).unwrap();
            for signals in [group_signals(arch, GroupName::ALL), group_signals(arch, &[GroupName::Doorbell])] {
                for until in [None, Some(end / 3 + 7 * unit), Some(end * 2)] {
                    let sel = crate::waves::vcd_select::select(&vcd, &signals, until.map(|u| u / unit)).unwrap();
                    assert!(sel.as_ref().is_some_and(|b| b.len() < bytes.len() / 2), "{name}: the selection was made and is smaller");
                    let got = super::read_selected(&vcd, &signals, until, true).unwrap();
                    // The old reader: the file cut at `until`, read whole.
                    let cut = dir.join("cut.vcd");
                    let at = until.and_then(|u| super::vcd_cut(&bytes, u / unit)).unwrap_or(bytes.len());
                    std::fs::write(&cut, &bytes[..at]).unwrap();
                    let want = super::read_selected(&cut, &signals, None, false).unwrap();
                    assert_eq!(got.1, want.1, "{name} {until:?}: the last time");
                    assert!(got.0 == want.0, "{name} {until:?}: the changes of {} signals", signals.len());
                    assert!(want.0.iter().any(|(_, t)| t.len() > 2), "{name}: signals that change");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// On real traces, an FST streamed for some signals up to a time reads as
    /// the whole file read for them does, cut at that time: every group's
    /// signals and one group's, on each generation.
    #[test]
    fn a_streamed_fst_reads_as_the_whole_file_does() {
        use crate::waves::{group_signals, GroupName};
        let dir = std::env::temp_dir().join(format!("tpb-fst-streamed-{}", std::process::id()));
        for (name, arch, fst) in real_traces(&dir, "fst") {
            let (_, end) = super::read_selected(&fst, &["clock".to_string()], None, false).unwrap();
            for signals in [group_signals(arch, GroupName::ALL), group_signals(arch, &[GroupName::Doorbell])] {
                let whole = super::read_selected(&fst, &signals, None, false).unwrap();
                assert!(whole.0.iter().any(|(_, t)| t.len() > 2), "{name}: signals that change");
                for until in [None, Some(end / 3 + 7_000), Some(end * 2)] {
                    let got = super::read_selected(&fst, &signals, until, true).unwrap();
                    let cut: Vec<_> = whole.0.iter().map(|(w, t)| (*w, t.iter().copied().filter(|c| until.is_none_or(|u| c.0 <= u)).collect::<Vec<_>>())).collect();
                    assert_eq!(got.1, end, "{name} {until:?}: the file's last time");
                    assert!(got.0 == cut, "{name} {until:?}: the changes of {} signals", signals.len());
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An FST that repeats a value (GTKWave's `vcd2fst` keeps what its VCD
    /// repeats) streams as the whole read gives it: the repeat is no change,
    /// for a two-state value and for one with an X; a signal read under two
    /// names has its changes under both.
    #[test]
    fn an_fst_value_repeated_is_no_change() {
        let dir = std::env::temp_dir().join(format!("tpb-fst-repeat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (vcd, fst) = (dir.join("r.vcd"), dir.join("r.fst"));
        let head =
            "$timescale 1ps $end\n$scope module TOP $end\n$var wire 1 ! req_valid $end\n$var wire 4 # st $end\n$var wire 1 ! valid_too $end\n$upscope $end\n$enddefinitions $end\n";
        std::fs::write(&vcd, format!("{head}#0\n1!\nb0011 #\n#5\n1!\nb0011 #\n#10\n0!\nb1x00 #\n#15\nb1x00 #\n#20\nb0000 #\n")).unwrap();
        let out = std::process::Command::new("vcd2fst").arg(&vcd).arg(&fst).output().expect("vcd2fst (GTKWave: bash scripts/setup)");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // `valid_too` is `req_valid` under a second name (the same id).
        let names = ["req_valid".to_string(), "st".to_string(), "valid_too".to_string()];
        let got = super::read_selected(&fst, &names, Some(17), true).unwrap();
        let valid = (1, vec![(0, Some(1)), (10, Some(0))]);
        assert_eq!(got.0, vec![valid.clone(), (4, vec![(0, Some(3)), (10, None)]), valid]);
        assert_eq!(got.1, 20, "the file's last time");
        let whole = super::read_selected(&fst, &names, None, false).unwrap();
        assert_eq!(super::read_selected(&fst, &names, None, true).unwrap(), whole);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A two-state value reads as its bits spelt out and parsed do, whatever
    /// the first byte holds above the value's width.
    #[test]
    fn a_two_state_value_is_its_bits() {
        let spelt = |v: &wellen::SignalValue| v.to_bit_string().and_then(|b| u64::from_str_radix(&b, 2).ok());
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for bits in 0..=70u32 {
            for _ in 0..20 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let data: Vec<u8> = (0..bits.div_ceil(8).max(1)).map(|k| (x >> (8 * (k % 8))) as u8).collect();
                let v = wellen::SignalValue::Binary(&data, bits);
                assert_eq!(super::value_of(&v), spelt(&v), "{bits} bits: {data:02x?}");
            }
        }
    }

    /// A cut falls on the first time line past the limit, never inside the
    /// header or a value line.
    #[test]
    fn a_vcd_is_cut_at_the_first_time_past_the_limit() {
        let v = b"$timescale 1ps $end\n$enddefinitions $end\n#0\n1!\n#5\nb11 #\n#10\n0!\n#15\n1!\n";
        let cut = super::vcd_cut(v, 10).unwrap();
        assert_eq!(&v[cut..], b"#15\n1!\n");
        assert_eq!(super::vcd_cut(v, 15), None, "nothing past the end");
        assert_eq!(&v[super::vcd_cut(v, 4).unwrap()..cut], b"#5\nb11 #\n#10\n0!\n", "a value naming signal '#' is not a time");
    }
}
