//! Compaction of a partitioned dataset: in each folder, runs of small files merged by page
//! copy ([`crate::merge::merge_files`]) into files of about a target size.
//!
//! A folder of files has no atomic swap: between a merged file's rename into place and the
//! removal of its inputs, a reader listing the folder sees both (their rows twice). What a
//! crash leaves is made recoverable by a journal: before merging, `_compaction-<name>.json`
//! (skipped by readers, like every `_` name) lists the inputs and the output; the output is
//! written to a temporary file and renamed when complete; then the inputs are removed, then
//! the journal. A rerun first finishes every journal it finds: if the output exists it is
//! complete (it was renamed whole), so the inputs still there are removed; otherwise the
//! inputs are intact and the journal is dropped. Then it compacts what is left.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::merge::{merge_files, MergeOptions};

/// What [`compact`] does.
#[derive(Debug, Clone)]
pub struct CompactOptions {
    /// Files at or above this size are left alone; smaller ones are merged into files of
    /// about this size (default 128 MiB).
    pub target_file_size: u64,
    /// Only plan: report the groups, merge nothing.
    pub dry_run: bool,
    /// How each group is merged (row group targets, codec, threads).
    pub merge: MergeOptions,
}

impl Default for CompactOptions {
    fn default() -> Self {
        CompactOptions { target_file_size: 128 << 20, dry_run: false, merge: MergeOptions::default() }
    }
}

/// One merge a compaction plans: files of one folder, and the file they become.
#[derive(Debug, Clone)]
pub struct CompactionGroup {
    /// The inputs, in the order their rows are kept.
    pub inputs: Vec<PathBuf>,
    /// The merged file.
    pub output: PathBuf,
    /// The inputs' total size in bytes.
    pub bytes: u64,
}

/// What a compaction did.
#[derive(Debug, Clone, Default)]
pub struct CompactionSummary {
    /// Folders (partitions) holding data files.
    pub partitions: usize,
    /// Data files before.
    pub files_before: usize,
    /// Data files after (as planned, for a dry run).
    pub files_after: usize,
    /// The merges, done or (dry run) planned.
    pub groups: Vec<CompactionGroup>,
    /// Journals of an interrupted compaction that were finished first.
    pub recovered: usize,
}

/// The merges that compact `root`: in each folder, consecutive small files (in name order)
/// packed into groups of at most `target` bytes, groups of one file left out.
pub fn plan(root: &Path, target: u64) -> Result<(Vec<CompactionGroup>, usize, usize)> {
    let files = super::list_files(&[root.display().to_string()]);
    let files = match files {
        Ok(f) => f,
        Err(e) if e.to_string().contains("no Parquet files") => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut folders: BTreeMap<PathBuf, Vec<(PathBuf, u64)>> = BTreeMap::new();
    for f in files {
        let size = std::fs::metadata(&f).map_err(|e| Error::io(format!("opening {}", f.display()), e))?.len();
        folders.entry(f.parent().unwrap_or(Path::new("")).to_path_buf()).or_default().push((f, size));
    }
    Ok(pack(folders, target))
}

/// `(groups, partitions, files)`: in each folder, consecutive files (in name order) smaller
/// than `target` packed into groups of at most `target` bytes, groups of one file left out.
/// Shared by local folders and object store prefixes (a URL in a `PathBuf`).
pub(super) fn pack(
    folders: BTreeMap<PathBuf, Vec<(PathBuf, u64)>>,
    target: u64,
) -> (Vec<CompactionGroup>, usize, usize) {
    let (partitions, before) = (folders.len(), folders.values().map(Vec::len).sum());
    let mut groups = Vec::new();
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    for (folder, files) in folders {
        let mut run: Vec<(PathBuf, u64)> = Vec::new();
        let mut flush = |run: &mut Vec<(PathBuf, u64)>| {
            if run.len() > 1 {
                let output = folder.join(format!("compacted-{stamp:x}-{}.parquet", groups.len()));
                let bytes = run.iter().map(|(_, s)| s).sum();
                groups.push(CompactionGroup { inputs: run.iter().map(|(p, _)| p.clone()).collect(), output, bytes });
            }
            run.clear();
        };
        for (path, size) in files {
            if size >= target {
                flush(&mut run);
                continue;
            }
            if run.iter().map(|(_, s)| s).sum::<u64>() + size > target {
                flush(&mut run);
            }
            run.push((path, size));
        }
        flush(&mut run);
    }
    (groups, partitions, before)
}

/// Compacts the dataset under `root` (see the [module docs](self) for what a crash leaves
/// and how a rerun finishes the job).
pub fn compact(root: &Path, options: &CompactOptions) -> Result<CompactionSummary> {
    if !root.is_dir() {
        return Err(Error::invalid_argument(format!("{}: not a folder", root.display())));
    }
    let recovered = if options.dry_run { 0 } else { recover(root)? };
    let planned = plan(root, options.target_file_size.max(1))?;
    carry_out(planned, recovered, options.dry_run, |group| compact_group(group, &options.merge))
}

/// The summary of a plan (`groups`, partitions, files before), after merging each group with
/// `merge` unless `dry_run`: the one sequence for a folder and an object store.
pub(super) fn carry_out(
    (groups, partitions, before): (Vec<CompactionGroup>, usize, usize),
    recovered: usize,
    dry_run: bool,
    mut merge: impl FnMut(&CompactionGroup) -> Result<()>,
) -> Result<CompactionSummary> {
    let merged: usize = groups.iter().map(|g| g.inputs.len()).sum();
    let summary = CompactionSummary {
        partitions,
        files_before: before,
        files_after: before - merged + groups.len(),
        groups: groups.clone(),
        recovered,
    };
    if !dry_run {
        groups.iter().try_for_each(&mut merge)?;
    }
    Ok(summary)
}

/// Merges one group: journal, merge (temporary + rename), remove inputs, remove journal.
pub fn compact_group(group: &CompactionGroup, options: &MergeOptions) -> Result<()> {
    let journal = journal_path(&group.output);
    write_journal(&journal, group)?;
    merge_files(&group.inputs, &group.output, options)?;
    finish(&journal, group)
}

fn journal_path(output: &Path) -> PathBuf {
    let name = output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    output.with_file_name(format!("_compaction-{name}.json"))
}

/// The journal's text: `{"output": ..., "inputs": [...]}`.
pub(super) fn journal_text(group: &CompactionGroup) -> String {
    let mut text = String::from("{\"output\": ");
    text += &json_string(&group.output.display().to_string());
    text += ", \"inputs\": [";
    for (i, input) in group.inputs.iter().enumerate() {
        if i > 0 {
            text += ", ";
        }
        text += &json_string(&input.display().to_string());
    }
    text + "]}\n"
}

fn write_journal(journal: &Path, group: &CompactionGroup) -> Result<()> {
    let text = journal_text(group);
    let temp = crate::io::TempFile::beside(journal)?;
    std::fs::write(temp.path(), text).map_err(|e| Error::io(format!("writing {}", journal.display()), e))?;
    temp.persist(journal)
}

fn finish(journal: &Path, group: &CompactionGroup) -> Result<()> {
    for input in &group.inputs {
        match std::fs::remove_file(input) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(
                    format!("removing {} (merged into {})", input.display(), group.output.display()),
                    e,
                ));
            }
            _ => {}
        }
    }
    std::fs::remove_file(journal).map_err(|e| Error::io(format!("removing {}", journal.display()), e))
}

/// Finishes the journals an interrupted compaction left under `root` (see the module docs);
/// returns how many. [`compact`] does this first; a scheduler running [`compact_group`]s
/// itself calls it before planning.
pub fn recover(root: &Path) -> Result<usize> {
    let mut journals = Vec::new();
    find_journals(root, &mut journals)?;
    for journal in &journals {
        let text =
            std::fs::read_to_string(journal).map_err(|e| Error::io(format!("reading {}", journal.display()), e))?;
        let strings = json_strings(&text)
            .ok_or_else(|| Error::corrupt(format!("{}: not a compaction journal", journal.display())))?;
        let (output, inputs) = strings
            .split_first()
            .ok_or_else(|| Error::corrupt(format!("{}: not a compaction journal", journal.display())))?;
        let group = CompactionGroup {
            inputs: inputs.iter().map(PathBuf::from).collect(),
            output: PathBuf::from(output),
            bytes: 0,
        };
        if group.output.exists() {
            finish(journal, &group)?;
        } else {
            std::fs::remove_file(journal).map_err(|e| Error::io(format!("removing {}", journal.display()), e))?;
        }
    }
    Ok(journals.len())
}

fn find_journals(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() && !name.starts_with('.') {
            find_journals(&path, out)?;
        } else if name.starts_with("_compaction-") && name.ends_with(".json") {
            out.push(path);
        }
    }
    Ok(())
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            c if (c as u32) < 0x20 => out += &format!("\\u{:04x}", c as u32),
            c => out.push(c),
        }
    }
    out + "\""
}

/// The string literals of a journal, in order (the output first), or None if one is
/// malformed.
pub(super) fn json_strings(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        loop {
            match chars.next()? {
                '"' => break,
                '\\' => match chars.next()? {
                    'u' => {
                        let hex: String = chars.by_ref().take(4).collect();
                        s.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                    }
                    c => s.push(c),
                },
                c => s.push(c),
            }
        }
        out.push(s);
    }
    // `"output", OUTPUT, "inputs", INPUT...`: the keys dropped.
    if out.len() < 3 || out[0] != "output" || out[2] != "inputs" {
        return None;
    }
    out.remove(2);
    out.remove(0);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journals_read_back_what_was_written() {
        let group = CompactionGroup {
            inputs: vec![PathBuf::from("/d/k=\"x\"/a.parquet"), PathBuf::from("/d/inputs/b\\c.parquet")],
            output: PathBuf::from("/d/output/c.parquet"),
            bytes: 0,
        };
        let mut text = String::from("{\"output\": ");
        text += &json_string(&group.output.display().to_string());
        text += ", \"inputs\": [";
        text += &group.inputs.iter().map(|p| json_string(&p.display().to_string())).collect::<Vec<_>>().join(", ");
        text += "]}";
        let got = json_strings(&text).unwrap();
        assert_eq!(got, vec!["/d/output/c.parquet", "/d/k=\"x\"/a.parquet", "/d/inputs/b\\c.parquet"]);
        assert!(json_strings("{\"output\": \"unterminated").is_none());
    }
}
