//! docs/ARCHITECTURE.md names real files: every file or folder it writes in backticks
//! (`shield.rs`, `report/attempts.rs`, `.ci/ros.sh`, `include/safeplan.h`) exists under the
//! part of the repository its section is about (`### \`crates/safeplan-validate\``), or
//! from the repository's root, or anywhere in it outside a crate's section. A map that names a file that is
//! gone, or moved, fails here.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file and folder under `root`, as paths relative to the repository, `/`-separated
/// (the build output and git's own folder left out).
fn tree(root: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if matches!(name.as_str(), "target" | ".git" | "__pycache__" | "build") {
            continue;
        }
        let rel = path
            .strip_prefix(base)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if path.is_dir() {
            out.push(format!("{rel}/"));
            tree(&path, base, out);
        } else {
            out.push(rel);
        }
    }
}

/// Whether a backticked word is a path: it has a file extension we write, or ends with `/`.
fn is_path(word: &str) -> bool {
    const EXTENSIONS: [&str; 12] = [
        ".rs", ".py", ".c", ".h", ".hpp", ".cpp", ".sh", ".md", ".toml", ".txt", ".msg", ".srv",
    ];
    !word.contains([' ', '(', ')', '<', '>', ':', '*', '{', '='])
        && (EXTENSIONS.iter().any(|e| word.ends_with(e)) || (word.ends_with('/') && word.len() > 1))
}

#[test]
fn every_path_architecture_md_names_exists() {
    let root = repo();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut all = Vec::new();
    tree(&root, &root, &mut all);
    let mut section = String::new();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (n, line) in text.lines().enumerate() {
        if let Some(title) = line.strip_prefix("### ") {
            // `### \`crates/safeplan-pddl\``: names in the section are under that folder.
            let t = title.trim().trim_matches('`');
            section = if Path::new(&root).join(t).is_dir() {
                format!("{}/", t.trim_end_matches('/'))
            } else {
                String::new()
            };
            continue;
        }
        if line.starts_with("## ") {
            section.clear();
        }
        for (k, word) in line.split('`').enumerate() {
            if k % 2 == 0 || !is_path(word) {
                continue;
            }
            checked += 1;
            let name = word.trim_start_matches("./");
            // A path from the repository's root (`.ci/ros.sh`) is found anywhere.
            let found = root.join(name).exists()
                || all.iter().any(|p| {
                    p.starts_with(&section)
                        && (p == name || p.ends_with(&format!("/{name}")) || p.starts_with(name))
                });
            if !found {
                missing.push(format!(
                    "docs/ARCHITECTURE.md:{}: `{word}` (looked under `{}`)",
                    n + 1,
                    if section.is_empty() {
                        "the repository"
                    } else {
                        &section
                    }
                ));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found: did the format change?"
    );
    assert!(
        missing.is_empty(),
        "paths named but not found:\n{}",
        missing.join("\n")
    );
}
