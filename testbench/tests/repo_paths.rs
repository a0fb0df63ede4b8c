//! The repository stands alone: no tracked file points at a file outside it
//! (a user's clone has only the repository): the seed documents, the
//! project's working notes, a digest elsewhere. What the project knows of
//! them is said in its own docs (docs/provenance.md, docs/decisions/).

use tpb_testbench::tools::repo_root;

/// What a pointer outside the repository looks like (spelled in pieces, so
/// this file does not point outside itself).
fn outside() -> Vec<String> {
    let s = "shared";
    vec![format!("../{s}/"), format!("{s}/spec/"), format!("{s}/seeds/"), ["ARCHITECTURE", ".md"].concat(), ["DIGEST", ".md"].concat()]
}

fn outside_pointers(root: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new("git").args(["ls-files", "-z"]).current_dir(root).output().expect("git ls-files");
    assert!(out.status.success());
    let outside = outside();
    let mut found = Vec::new();
    for name in String::from_utf8(out.stdout).unwrap().split('\0').filter(|n| !n.is_empty() && !n.ends_with(".lock")) {
        let Ok(text) = std::fs::read_to_string(root.join(name)) else { continue };
        for (k, l) in text.lines().enumerate() {
            if let Some(p) = outside.iter().find(|p| l.contains(p.as_str())) {
                found.push(format!("{name}:{}: {p}", k + 1));
            }
        }
    }
    found
}

#[test]
fn no_tracked_file_points_outside_the_repository() {
    let found = outside_pointers(&repo_root());
    assert!(found.is_empty(), "tracked files that point outside the repository:\n{}", found.join("\n"));
}

/// The check itself finds such a pointer.
#[test]
fn a_pointer_outside_is_found() {
    let dir = repo_root().join("target/tpb-tests/outside");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let git = |a: &[&str]| assert!(std::process::Command::new("git").args(a).current_dir(&dir).output().unwrap().status.success());
    git(&["init", "-q"]);
    std::fs::write(dir.join("a.toml"), format!("x = 1\n# see {}spec/notes\n", outside()[0])).unwrap();
    git(&["add", "."]);
    assert_eq!(outside_pointers(&dir), vec![format!("a.toml:2: {}", outside()[0])]);
}
