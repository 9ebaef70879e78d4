//! The files of a dataset: each source given is a file, a folder (walked recursively) or a
//! glob pattern, expanded to files in path order.
//!
//! Names that start with `_` or `.` are skipped inside folders, as pyarrow and Spark skip
//! them: `_SUCCESS`, `_metadata`, `.crc` files and hidden folders are not data. Other
//! prefixes can be given instead (pyarrow's `ignore_prefixes`).

use std::path::{Path, PathBuf};

use super::Storage;
use crate::error::{Error, Result};

/// One file found, with the folder its hive partition folders are counted from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The file.
    pub path: PathBuf,
    /// The folder given (or the fixed part of a glob), whose sub-folders name partitions;
    /// `None` for a file given by itself, whose every parent folder may name one.
    pub base: Option<PathBuf>,
    /// The file's size in bytes.
    pub size: u64,
}

/// Whether `text` is a glob pattern rather than a path.
pub(crate) fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// The name prefixes that mark a file or folder as not data unless others are given: `_`
/// and `.`, as pyarrow and Spark skip them.
pub const DEFAULT_IGNORE_PREFIXES: [&str; 2] = ["_", "."];

/// Whether a file or folder name marks something that is not data: it starts with one of
/// `ignore`.
pub(crate) fn is_hidden(name: &str, ignore: &[String]) -> bool {
    ignore.iter().any(|p| name.starts_with(p.as_str()))
}

/// Expands `sources` into files: a folder's files recursively, a glob's matches, a file as
/// is, skipping names below a folder or a glob's fixed part that start with one of
/// `ignore`. A source that matches nothing is an error naming it, as is a dataset of no
/// files.
pub(crate) fn list(sources: &[String], storage: &Storage, ignore: &[String]) -> Result<Vec<Listed>> {
    let mut out = Vec::new();
    for source in sources {
        let before = out.len();
        if storage.is_url(source) {
            storage.list(source, &mut out, ignore)?;
        } else if is_glob(source) {
            list_glob(source, &mut out, ignore)?;
        } else {
            let path = Path::new(source);
            let meta = std::fs::metadata(path).map_err(|e| Error::io(format!("opening {source}"), e))?;
            if meta.is_dir() {
                walk(path, &mut out, path, ignore)?;
            } else {
                out.push(Listed { path: path.to_path_buf(), base: None, size: meta.len() });
            }
        }
        // Path order as text, as pyarrow lists a folder (component order differs where a
        // name holds a character before '/', such as '-' or '.').
        out[before..].sort_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
        if out.len() == before {
            return Err(Error::invalid_argument(format!(
                "{source}: no Parquet files there (names starting with {} are skipped)",
                ignore.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(" or ")
            )));
        }
    }
    Ok(out)
}

/// Every data file under `dir`, recursively, in path order.
fn walk(dir: &Path, out: &mut Vec<Listed>, base: &Path, ignore: &[String]) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
        let name = entry.file_name();
        if is_hidden(&name.to_string_lossy(), ignore) {
            continue;
        }
        found.push(entry.path());
    }
    found.sort();
    for path in found {
        // Follows links, as opening the path does.
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        if meta.is_dir() {
            walk(&path, out, base, ignore)?;
        } else if meta.is_file() {
            out.push(Listed { path, base: Some(base.to_path_buf()), size: meta.len() });
        }
    }
    Ok(())
}

/// The files a glob matches (a matched folder contributes its files), in path order. The
/// pattern's folders before its first wildcard are the partitions' base.
fn list_glob(pattern: &str, out: &mut Vec<Listed>, ignore: &[String]) -> Result<()> {
    let bad = |e: &dyn std::fmt::Display| Error::invalid_argument(format!("glob pattern {pattern:?}: {e}"));
    let paths = glob::glob(pattern).map_err(|e| bad(&e))?;
    let base = glob_base(pattern);
    let mut matched = Vec::new();
    for path in paths {
        matched.push(path.map_err(|e| Error::io(format!("matching {pattern}"), e.into()))?);
    }
    matched.sort();
    for path in matched {
        let below = path.strip_prefix(&base).unwrap_or(&path);
        if below.iter().any(|c| is_hidden(&c.to_string_lossy(), ignore)) {
            continue;
        }
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        if meta.is_dir() {
            walk(&path, out, &base, ignore)?;
        } else if meta.is_file() {
            out.push(Listed { path, base: Some(base.clone()), size: meta.len() });
        }
    }
    Ok(())
}

/// The folders of `pattern` before the component holding its first wildcard.
fn glob_base(pattern: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for component in Path::new(pattern).components() {
        if is_glob(&component.as_os_str().to_string_lossy()) {
            break;
        }
        base.push(component);
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_globs_base_is_its_fixed_folders() {
        assert_eq!(glob_base("/data/t/*/x=1/*.parquet"), PathBuf::from("/data/t"));
        assert_eq!(glob_base("t/**/*.parquet"), PathBuf::from("t"));
        assert_eq!(glob_base("*.parquet"), PathBuf::new());
    }
}
