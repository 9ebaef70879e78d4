//! Compaction of a dataset on an object store (`s3://bucket/sales/`, feature `object-store`):
//! the same plan as for a local folder ([`super::compact::pack`]), each partition's small
//! objects merged by page copy into new ones.
//!
//! An object store has no rename, but an upload is the object store's write-then-rename: the
//! merged object is written by [`crate::store::ObjectWriter`], which makes it visible only
//! once complete. Each merge: a journal object `_compaction-<name>.json` (skipped by readers,
//! like every `_` name) listing the inputs' and the output's URLs; the inputs fetched into
//! local scratch files; the merge uploaded; the inputs deleted; the journal deleted. A crash
//! midway leaves the journal, and either no output (the inputs are intact: a reader sees the
//! partition as before) or a complete output beside some or all of its inputs (a reader
//! listing the partition sees those rows twice until the inputs are gone). A rerun finishes
//! every journal first, as for a local folder: if the output exists its inputs still there
//! are deleted, else the journal is dropped and the merge planned again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::compact::{carry_out, journal_text, json_strings, pack, CompactOptions, CompactionGroup, CompactionSummary};
use super::listing::is_hidden;
use crate::error::{Error, Result};
use crate::merge::{merge, MergeOptions};
use crate::store::{self, StorageOptions};

/// Compacts the dataset under the URL `root` (see the [module docs](self) for what a crash
/// leaves and how a rerun finishes the job).
pub fn compact_url(root: &str, options: &CompactOptions, storage: &StorageOptions) -> Result<CompactionSummary> {
    let recovered = if options.dry_run { 0 } else { recover_url(root, storage)? };
    let planned = plan_url(root, options.target_file_size.max(1), storage)?;
    carry_out(planned, recovered, options.dry_run, |group| compact_group_url(group, &options.merge, storage))
}

/// The objects under `root` (as a folder), as `(url, size)`, with the part below `root`.
fn listed(root: &str, storage: &StorageOptions) -> Result<(String, Vec<(String, u64)>)> {
    let prefix = format!("{}/", root.trim_end_matches('/'));
    let objects = store::list(&prefix, storage)?;
    Ok((prefix, objects))
}

/// The merges that compact the dataset under the URL `root`, as [`super::compact::plan`]
/// does for a folder: data objects are those with no name below `root` starting with `_`
/// or `.`, grouped by the prefix before their last `/`.
pub fn plan_url(root: &str, target: u64, storage: &StorageOptions) -> Result<(Vec<CompactionGroup>, usize, usize)> {
    let ignore: Vec<String> = super::DEFAULT_IGNORE_PREFIXES.iter().map(|p| p.to_string()).collect();
    let (prefix, objects) = listed(root, storage)?;
    let mut folders: BTreeMap<PathBuf, Vec<(PathBuf, u64)>> = BTreeMap::new();
    for (url, size) in objects {
        let below = url.strip_prefix(&prefix).unwrap_or(&url);
        if below.split('/').any(|c| is_hidden(c, &ignore)) {
            continue;
        }
        let folder = url.rsplit_once('/').map_or(url.as_str(), |(f, _)| f);
        folders.entry(PathBuf::from(folder)).or_default().push((PathBuf::from(&url), size));
    }
    Ok(pack(folders, target))
}

/// The journal's URL for a merge into `output`.
fn journal_url(output: &str) -> String {
    let (folder, name) = output.rsplit_once('/').unwrap_or(("", output));
    let stem = name.strip_suffix(".parquet").unwrap_or(name);
    format!("{folder}/_compaction-{stem}.json")
}

/// Merges one group of objects: journal, fetch, merge uploaded whole, delete the inputs,
/// delete the journal.
pub fn compact_group_url(group: &CompactionGroup, options: &MergeOptions, storage: &StorageOptions) -> Result<()> {
    let output = group.output.display().to_string();
    let journal = journal_url(&output);
    store::put_url(&journal, journal_text(group).as_bytes(), storage)?;
    // Fetched into scratch files (removed when dropped): the merge reads inputs by path.
    let mut scratch = Vec::with_capacity(group.inputs.len());
    for input in &group.inputs {
        let url = input.display().to_string();
        let temp = crate::io::TempFile::scratch()?;
        let mut file = temp.file()?;
        store::download(&url, storage, &mut file)?;
        scratch.push(temp);
    }
    let paths: Vec<PathBuf> = scratch.iter().map(|t| t.path().to_path_buf()).collect();
    let mut writer = store::create_url(&output, storage)?;
    // An error drops the writer, which aborts the upload: no output object appears.
    merge(&paths, &mut writer, options).map_err(|e| e.context(&output))?;
    writer.finish()?;
    drop(scratch);
    finish(&journal, group, storage)
}

/// Deletes the inputs still there, then the journal.
fn finish(journal: &str, group: &CompactionGroup, storage: &StorageOptions) -> Result<()> {
    let inputs: Vec<String> = group.inputs.iter().map(|p| p.display().to_string()).collect();
    store::delete_urls(&inputs, storage).map_err(|e| e.context(format!("merged into {}", group.output.display())))?;
    store::delete_urls(&[journal.to_owned()], storage)
}

/// Finishes the journals an interrupted compaction left under the URL `root`; returns how
/// many. [`compact_url`] does this first.
pub fn recover_url(root: &str, storage: &StorageOptions) -> Result<usize> {
    let (prefix, objects) = listed(root, storage)?;
    let present: std::collections::HashSet<&str> = objects.iter().map(|(u, _)| u.as_str()).collect();
    let journals: Vec<&str> = objects
        .iter()
        .map(|(u, _)| u.as_str())
        .filter(|u| u.rsplit('/').next().is_some_and(|n| n.starts_with("_compaction-") && n.ends_with(".json")))
        .collect();
    for journal in &journals {
        let mut text = Vec::new();
        store::download(journal, storage, &mut text)?;
        let bad = || Error::corrupt(format!("{journal}: not a compaction journal"));
        let strings = json_strings(&String::from_utf8_lossy(&text)).ok_or_else(bad)?;
        let (output, inputs) = strings.split_first().ok_or_else(bad)?;
        // A journal only ever names objects of its own dataset: one naming others (edited,
        // or copied from elsewhere) must not have them deleted.
        if !strings.iter().all(|u| u.starts_with(&prefix)) {
            return Err(Error::corrupt(format!("{journal}: names objects outside {prefix}")));
        }
        if present.contains(output.as_str()) {
            let group = CompactionGroup {
                inputs: inputs.iter().map(PathBuf::from).collect(),
                output: PathBuf::from(output),
                bytes: 0,
            };
            finish(journal, &group, storage)?;
        } else {
            store::delete_urls(&[journal.to_string()], storage)?;
        }
    }
    Ok(journals.len())
}
