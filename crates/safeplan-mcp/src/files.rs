//! Files a tool may read (`*_path` inputs): under one of the server's roots, a regular file,
//! read through a bounded reader, on the blocking thread that does the call's work.
//!
//! The root check comes first, on the path as written (made absolute and with `.` and `..`
//! resolved by their names), so a path outside every root gets the same answer whether or
//! not something exists there: a caller cannot probe the rest of the disk. Only a path
//! inside a root is resolved on disk (links followed), and the result must still be inside a
//! root (a link pointing out is refused with the same answer). The target must be a regular
//! file: a FIFO or a device under a root is refused before it is opened, since opening or
//! reading one can block forever. The read stops one byte past the size cap, whatever the
//! file claims its length is.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The one answer for a path outside the roots, whether or not it exists.
fn outside(field: &str, path: &str) -> String {
    format!(
        "`{field}_path` {path} is outside the directories this server may read (its --root); send the text instead"
    )
}

/// `path` made absolute against `base`, with `.` and `..` resolved by name; `None` when a
/// `..` climbs above the file system's root.
fn lexical(base: &Path, path: &Path) -> Option<PathBuf> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
        }
    }
    Some(out)
}

/// The text of the file at `path` (relative paths are under the first root), at most
/// `max_bytes` long. The error says what is wrong and what to send instead.
pub(crate) fn read_under_roots(
    roots: &[PathBuf],
    path: &str,
    field: &str,
    max_bytes: usize,
) -> Result<String, String> {
    let Some(first) = roots.first() else {
        return Err(format!(
            "`{field}_path` is not accepted: this server was started without --root; send the file's text as `{field}`"
        ));
    };
    let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    let written = lexical(first, Path::new(path)).filter(|p| inside(p));
    let Some(written) = written else {
        return Err(outside(field, path));
    };
    let resolved = written.canonicalize().map_err(|e| {
        format!("`{field}_path` {path}: {e}; give a file under a root of the server")
    })?;
    if !inside(&resolved) {
        return Err(outside(field, path));
    }
    let meta = std::fs::metadata(&resolved).map_err(|e| format!("`{field}_path` {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "`{field}_path` {path} is not a regular file; give a PDDL or plan file"
        ));
    }
    let file = std::fs::File::open(&resolved).map_err(|e| format!("`{field}_path` {path}: {e}"))?;
    // The file opened is the one checked, not something swapped in since.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(format!(
            "`{field}_path` {path} is not a regular file; give a PDDL or plan file"
        ));
    }
    let mut bytes = Vec::new();
    file.take(max_bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("`{field}_path` {path}: {e}"))?;
    if bytes.len() > max_bytes {
        return Err(format!(
            "`{field}_path` {path} is over the limit of {max_bytes} bytes per call; send a smaller task or raise the server's limit"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{field}_path` {path} is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        let base = Path::new("/srv/tasks");
        assert_eq!(
            lexical(base, Path::new("a/./b.pddl")),
            Some("/srv/tasks/a/b.pddl".into())
        );
        assert_eq!(lexical(base, Path::new("../x")), Some("/srv/x".into()));
        assert_eq!(lexical(base, Path::new("/../../x")), None);
    }

    /// Outside the roots: one answer, whether the path exists (`/etc/hostname`, usually) or
    /// not.
    #[test]
    fn outside_is_one_answer() {
        let root = std::env::temp_dir().canonicalize().expect("temp dir");
        let roots = [root.join("safeplan-mcp-no-such-root")];
        let a = read_under_roots(&roots, "/etc/passwd", "domain", 100).unwrap_err();
        let b = read_under_roots(&roots, "/etc/no-such-file-here", "domain", 100).unwrap_err();
        assert_eq!(
            a.replace("/etc/passwd", "P"),
            b.replace("/etc/no-such-file-here", "P")
        );
    }
}
