//! Block maps described once: `maps/common/<block>.toml` holds a block as
//! every generation shares it, and a generation's file holds only what
//! differs. A generation file is one of:
//!
//! - absent: the generation uses the common block as it is;
//! - a whole block (no `extends`): it replaces the common one;
//! - an overlay, `extends = "<block>"` before its first table:
//!   - keys under `[block]` replace the common block's keys of that name
//!     (or are added);
//!   - a `[[register]]`, `[[array]]` or `[[alias]]` table whose `name` the
//!     common block has replaces that table where it stands; one with a new
//!     name is added at the end;
//!   - `remove = ["name", …]` drops the common tables of those names.
//!
//! The merge works on lines, so every line of the result comes from one
//! file: an error in the merged block names the file and line it came from
//! ([`LineMap`]).

use crate::error::{Loc, RegmapError, Result};
use std::path::{Path, PathBuf};

/// Where each line of a merged text came from: (file, 1-based line).
pub type LineMap = Vec<(PathBuf, usize)>;

/// One section of a block file: its lines, the table kind (`block`,
/// `register`, `array`, `alias`; empty for the text before the first
/// table) and the table's `name`.
#[derive(Debug, Clone)]
struct Section {
    kind: String,
    name: Option<String>,
    lines: Vec<(String, (PathBuf, usize))>,
}

/// `[kind]` or `[[kind]]` alone on a line (a comment may follow).
fn header(line: &str) -> Option<String> {
    let t = line.split('#').next().unwrap_or("").trim();
    let inner = t.strip_prefix("[[").and_then(|x| x.strip_suffix("]]")).or_else(|| t.strip_prefix('[').and_then(|x| x.strip_suffix(']')))?;
    (!inner.is_empty() && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then(|| inner.to_string())
}

/// `key = value` → (key, value text without a trailing comment's effect).
fn key_value(line: &str) -> Option<(String, String)> {
    let t = line.trim_start();
    if t.starts_with('#') {
        return None;
    }
    let (k, v) = t.split_once('=')?;
    let k = k.trim();
    (!k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then(|| (k.to_string(), v.trim().to_string()))
}

/// A quoted TOML string's content (`"nx"  # comment` → `nx`).
fn quoted(v: &str) -> Option<String> {
    let v = v.trim_start().strip_prefix('"')?;
    Some(v[..v.find('"')?].to_string())
}

fn sections(file: &Path, text: &str) -> Vec<Section> {
    let mut out = vec![Section { kind: String::new(), name: None, lines: Vec::new() }];
    for (i, l) in text.lines().enumerate() {
        if let Some(kind) = header(l) {
            out.push(Section { kind, name: None, lines: Vec::new() });
        }
        let s = out.last_mut().expect("one section at least");
        if s.name.is_none() && !s.kind.is_empty() {
            if let Some(("name", v)) = key_value(l).as_ref().map(|(k, v)| (k.as_str(), v.as_str())) {
                s.name = quoted(v);
            }
        }
        s.lines.push((l.to_string(), (file.to_path_buf(), i + 1)));
    }
    out
}

/// The block an overlay extends (`extends = "<block>"` before its first
/// table), or None for a whole block file.
pub fn extends(text: &str) -> Option<String> {
    for l in text.lines() {
        if header(l).is_some() {
            return None;
        }
        if let Some((k, v)) = key_value(l) {
            if k == "extends" {
                return quoted(&v);
            }
        }
    }
    None
}

/// `remove = ["a", "b"]` of an overlay's preamble (one line).
fn removals(pre: &Section) -> Vec<String> {
    pre.lines
        .iter()
        .filter_map(|(l, _)| key_value(l).filter(|(k, _)| k == "remove").map(|(_, v)| v))
        .flat_map(|v| v.trim_matches(|c| c == '[' || c == ']').split(',').filter_map(|x| quoted(x.trim())).collect::<Vec<_>>())
        .collect()
}

/// The common block `base` changed by `overlay`: the merged text and where
/// each of its lines came from. Errors name the overlay's line.
pub fn merge(base: (&Path, &str), overlay: (&Path, &str)) -> Result<(String, LineMap)> {
    let mut out = sections(base.0, base.1);
    let over = sections(overlay.0, overlay.1);
    let bad = |line: usize, message: String| RegmapError::Invalid { loc: Loc { file: overlay.0.to_path_buf(), line, col: 1 }, message };
    let pre = &over[0];
    for (l, (_, n)) in &pre.lines {
        if let Some((k, _)) = key_value(l) {
            if k != "extends" && k != "remove" {
                return Err(bad(*n, format!("'{k}' before the first table: an overlay has only `extends` and `remove` there")));
            }
        }
    }
    for name in removals(pre) {
        let before = out.len();
        out.retain(|s| s.kind.is_empty() || s.kind == "block" || s.name.as_deref() != Some(&name));
        if out.len() == before {
            let n = pre.lines.iter().find(|(l, _)| l.contains("remove")).map(|x| x.1 .1).unwrap_or(1);
            return Err(bad(n, format!("remove: {} has no table named '{name}'", base.0.display())));
        }
    }
    for s in &over[1..] {
        if s.kind == "block" {
            let Some(b) = out.iter_mut().find(|x| x.kind == "block") else {
                return Err(bad(s.lines[0].1 .1, format!("{} has no [block] table", base.0.display())));
            };
            for (l, origin) in s.lines.iter().skip(1) {
                let Some((k, _)) = key_value(l) else { continue };
                match b.lines.iter().position(|(bl, _)| key_value(bl).is_some_and(|(bk, _)| bk == k)) {
                    Some(i) => b.lines[i] = (l.clone(), origin.clone()),
                    None => {
                        // After the last key of the table, before its trailing blank lines.
                        let at = b.lines.iter().rposition(|(bl, _)| key_value(bl).is_some()).map_or(b.lines.len(), |i| i + 1);
                        b.lines.insert(at, (l.clone(), origin.clone()));
                    }
                }
            }
            continue;
        }
        let Some(name) = &s.name else {
            return Err(bad(s.lines[0].1 .1, format!("[[{}]] without a name: an overlay replaces or adds tables by name", s.kind)));
        };
        match out.iter_mut().find(|x| x.kind == s.kind && x.name.as_ref() == Some(name)) {
            Some(t) => {
                // Keep the blank lines that separated the replaced table from the next.
                let trailing: Vec<_> = t.lines.iter().rev().take_while(|(l, _)| l.trim().is_empty()).cloned().collect();
                t.lines = s.lines.iter().rev().skip_while(|(l, _)| l.trim().is_empty()).cloned().collect::<Vec<_>>().into_iter().rev().collect();
                t.lines.extend(trailing.into_iter().rev());
            }
            None => {
                if let Some(last) = out.last_mut() {
                    if last.lines.last().is_some_and(|(l, _)| !l.trim().is_empty()) {
                        last.lines.push((String::new(), (overlay.0.to_path_buf(), s.lines[0].1 .1)));
                    }
                }
                out.push(s.clone());
            }
        }
    }
    let mut text = String::new();
    let mut map = LineMap::new();
    for (l, origin) in out.into_iter().flat_map(|s| s.lines) {
        text.push_str(&l);
        text.push('\n');
        map.push(origin);
    }
    Ok((text, map))
}

/// One of a generation's files after layering.
#[derive(Debug, Clone)]
pub struct Layered {
    /// The file the block (or `arch.toml`) is named by.
    pub file: PathBuf,
    pub text: String,
    /// Where each line came from, for a merged block.
    pub lines: Option<LineMap>,
    /// The common file an overlay extends.
    pub extends: Option<PathBuf>,
}

/// A generation's files after layering. `files` holds common files (under a `common` folder) and the
/// generation's own; a generation file replaces or extends the common file
/// of the same name, and common files nobody names are used as they are.
pub fn compose(files: &[(PathBuf, String)]) -> Result<Vec<Layered>> {
    let is_common = |p: &Path| p.parent().and_then(|d| d.file_name()).is_some_and(|n| n == "common");
    let common: Vec<&(PathBuf, String)> = files.iter().filter(|(p, _)| is_common(p)).collect();
    let mut out = Vec::new();
    let mut used = std::collections::HashSet::new();
    for (p, t) in files.iter().filter(|(p, _)| !is_common(p)) {
        let name = p.file_name().map(|n| n.to_os_string());
        match extends(t) {
            Some(base) => {
                let want = format!("{base}.toml");
                let Some((bp, bt)) = common.iter().map(|x| (&x.0, &x.1)).find(|(bp, _)| bp.file_name().is_some_and(|n| n == want.as_str())) else {
                    let line = t.lines().position(|l| l.contains("extends")).map_or(1, |i| i + 1);
                    return Err(RegmapError::Invalid {
                        loc: Loc { file: p.clone(), line, col: 1 },
                        message: format!(
                            "extends = \"{base}\": no common/{want} (common blocks: {})",
                            common.iter().filter_map(|x| x.0.file_stem()).map(|s| s.to_string_lossy().into_owned()).collect::<Vec<_>>().join(", ")
                        ),
                    });
                };
                used.insert(bp.file_name().map(|n| n.to_os_string()));
                let (text, map) = merge((bp, bt), (p, t))?;
                out.push(Layered { file: p.clone(), text, lines: Some(map), extends: Some(bp.clone()) });
            }
            None => {
                used.insert(name);
                out.push(Layered { file: p.clone(), text: t.clone(), lines: None, extends: None });
            }
        }
    }
    for (p, t) in common {
        if !used.contains(&p.file_name().map(|n| n.to_os_string())) {
            out.push(Layered { file: p.clone(), text: t.clone(), lines: None, extends: None });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# base\n[block]\nname = \"b\"\nend = 0x1000\n\n[[register]]\nname = \"a\"\noffset = 0\n\n[[register]]\nname = \"c\"\noffset = 4\n";

    #[test]
    fn an_overlay_changes_keys_replaces_and_adds_tables_by_name() {
        let over = "# x\nextends = \"b\"\n[block]\nend = 0x848\ntag = \"S\"\n\n[[register]]\nname = \"a\"\noffset = 8\n\n[[register]]\nname = \"d\"\noffset = 12\n";
        let (t, map) = merge((Path::new("common/b.toml"), BASE), (Path::new("sunda/b.toml"), over)).unwrap();
        assert_eq!(t, "# base\n[block]\nname = \"b\"\nend = 0x848\ntag = \"S\"\n\n[[register]]\nname = \"a\"\noffset = 8\n\n[[register]]\nname = \"c\"\noffset = 4\n\n[[register]]\nname = \"d\"\noffset = 12\n");
        // Each line says where it came from.
        assert_eq!(map[3], (PathBuf::from("sunda/b.toml"), 4));
        assert_eq!(map[2], (PathBuf::from("common/b.toml"), 3));
        assert_eq!(map[8], (PathBuf::from("sunda/b.toml"), 9));
        assert_eq!(map[11], (PathBuf::from("common/b.toml"), 11));
    }

    #[test]
    fn remove_drops_tables_and_mistakes_name_the_overlay_line() {
        let (t, _) = merge((Path::new("common/b.toml"), BASE), (Path::new("g/b.toml"), "extends = \"b\"\nremove = [\"c\"]\n")).unwrap();
        assert!(!t.contains("\"c\""), "{t}");
        let e = merge((Path::new("common/b.toml"), BASE), (Path::new("g/b.toml"), "extends = \"b\"\nremove = [\"zz\"]\n")).unwrap_err();
        assert_eq!(e.to_string(), "g/b.toml:2:1: remove: common/b.toml has no table named 'zz'");
        let e = merge((Path::new("common/b.toml"), BASE), (Path::new("g/b.toml"), "extends = \"b\"\nend = 4\n")).unwrap_err();
        assert!(e.to_string().starts_with("g/b.toml:2:1: 'end' before the first table"), "{e}");
        let e = compose(&[(PathBuf::from("common/b.toml"), BASE.into()), (PathBuf::from("g/x.toml"), "extends = \"nope\"\n".into())]).unwrap_err();
        assert!(e.to_string().starts_with("g/x.toml:1:1: extends = \"nope\": no common/nope.toml (common blocks: b)"), "{e}");
    }

    #[test]
    fn compose_uses_common_blocks_nobody_names_and_lets_a_whole_file_replace_one() {
        let files = [
            (PathBuf::from("common/b.toml"), BASE.to_string()),
            (PathBuf::from("common/e.toml"), "[block]\nname = \"e\"\n".to_string()),
            (PathBuf::from("g/e.toml"), "[block]\nname = \"e2\"\n".to_string()),
            (PathBuf::from("g/arch.toml"), "version = 1\n".to_string()),
        ];
        let c = compose(&files).unwrap();
        let names: Vec<String> = c.iter().map(|x| x.file.display().to_string()).collect();
        assert_eq!(names, ["g/e.toml", "g/arch.toml", "common/b.toml"]);
    }
}
