//! `parquetry compact`: merge each partition's small files into files of about a target
//! size, by page copy (see `parquetry::dataset::compact` for what a crash leaves).

use std::path::Path;

use parquetry::dataset::compact::{compact, CompactOptions};
use parquetry::dataset::compact_store::compact_url;

const HELP: &str = "\
parquetry compact: merge each folder's small Parquet files into files of about a target size

USAGE:
    parquetry compact [OPTIONS] ROOT

In every folder under ROOT (a partition), runs of files smaller than the target, in name
order, are merged by copying their pages into one file each (values are not decoded; rows
keep their order). The merged file is complete before any input is removed.

A folder has no atomic swap: between a merged file appearing and its inputs being removed,
a reader may see both. A crash leaves a journal (_compaction-*.json, which readers skip);
rerunning the command finishes it: the inputs of a complete merged file are removed, an
incomplete merge is dropped and redone.

ROOT may be an object store URL (s3://bucket/sales/, gs://, az://; settings from the
environment: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...): each partition's small objects are
fetched, merged, and the merged object uploaded whole (it exists only once complete) before
the inputs are deleted; the journal is an object, and a rerun finishes it the same way.

OPTIONS:
    --target-file-size SIZE  Target size of the merged files, e.g. 128MiB (default)
    --threads N              Threads for each merge's output (default 2)
    --dry-run                Print the merges that would be done, do nothing
    --json                   Print the summary as JSON
    -h, --help               Show this help
";

/// Runs the command with the arguments after `compact`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut options = CompactOptions::default();
    options.merge = options.merge.with_threads(2);
    let (mut root, mut json) = (None, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("compact: {name} needs a value"));
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            "--target-file-size" => {
                let v = value("--target-file-size")?;
                options.target_file_size = crate::args::bytes("compact: --target-file-size", &v)? as u64;
            }
            "--threads" => {
                let threads = crate::args::count("compact: --threads", &value("--threads")?)?;
                options.merge = options.merge.with_threads(threads);
            }
            "--dry-run" => options.dry_run = true,
            "--json" => json = true,
            s if s.starts_with('-') => return Err(format!("compact: unknown option '{s}'\n\n{HELP}")),
            s if root.is_none() => root = Some(s.to_owned()),
            s => return Err(format!("compact: unexpected argument '{s}' (one ROOT only)")),
        }
    }
    let root = root.ok_or_else(|| format!("compact: missing ROOT\n\n{HELP}"))?;
    let summary = match parquetry::store::is_url(&root) {
        // Settings from the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...).
        true => compact_url(&root, &options, &parquetry::store::StorageOptions::new()),
        false => compact(Path::new(&root), &options),
    }
    .map_err(|e| format!("{root}: {e}"))?;
    if json {
        let groups: Vec<serde_json::Value> = summary
            .groups
            .iter()
            .map(|g| {
                serde_json::json!({
                    "output": g.output.display().to_string(),
                    "inputs": g.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                    "bytes": g.bytes,
                })
            })
            .collect();
        let report = serde_json::json!({
            "partitions": summary.partitions,
            "files_before": summary.files_before,
            "files_after": summary.files_after,
            "recovered": summary.recovered,
            "dry_run": options.dry_run,
            "merges": groups,
        });
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        for g in &summary.groups {
            println!("{} <- {} files ({} bytes)", g.output.display(), g.inputs.len(), g.bytes);
        }
        let verb = if options.dry_run { "would compact" } else { "compacted" };
        println!(
            "{verb} {} files into {} in {} folders{}",
            summary.files_before,
            summary.files_after,
            summary.partitions,
            if summary.recovered > 0 {
                format!(" ({} interrupted merges finished first)", summary.recovered)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}
