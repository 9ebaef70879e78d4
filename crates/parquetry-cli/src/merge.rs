//! `parquetry merge`: many Parquet files with one schema into one, by copying pages
//! (`parquetry::merge`): big row groups are copied byte for byte, runs of small ones are
//! coalesced column by column with dictionaries unified; values are never decoded.
//!
//! The output is written to a temporary file beside OUT and renamed into place only once
//! complete: on any error OUT is left as it was and the temporary file is gone.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::HumanBytes;
use parquetry::compress::Compression;
use parquetry::merge::{merge_files, MergeOptions, MergeSummary};

const HELP: &str = "\
parquetry merge: merge Parquet files that share one schema into one file, copying pages

USAGE:
    parquetry merge [OPTIONS] --output OUT INPUT...

Rows keep the order of the inputs. An INPUT that is a directory stands for its *.parquet
files in name order (not recursive; hidden files left out); a glob pattern (quoted, e.g.
'data/*/part-*.parquet') for its matches in path order.

All inputs must share one schema (names, types, annotations and repetition): the first
difference is an error naming the column and the file. Input row groups at or above the row
group targets are copied whole, byte for byte; runs of smaller ones are coalesced into one row
group up to the targets: their pages are copied, only dictionary indexes are remapped into one
unified dictionary (PLAIN pages past the dictionary page limit, as a writer's fallback makes).
Statistics and page indexes are merged from the inputs'. Bloom filters are kept for row
groups copied whole; a coalesced row group's are the union of its inputs' (no value is
decoded), kept only if every input chunk has one and the union still rules out at least 3 in
4 absent values, else dropped. The first input's key/value metadata (the ARROW:schema key
included) is kept, the others' are not. OUT appears only once complete (written beside it,
then renamed); it must not be one of the inputs.

OPTIONS:
    -o, --output OUT                 The merged file (required)
    --row-group-rows N               Target rows per output row group (default 1048576)
    --row-group-bytes BYTES          Target bytes (as stored) per output row group
                                     (default 128M; K, M, G suffixes)
    --compression CODEC[:LEVEL]      Recompress every page: none (or uncompressed), snappy,
                                     gzip, brotli, lz4, lz4_raw, zstd; a level for zstd
                                     (1..=22, negative for faster), gzip (0..=9), brotli
                                     (0..=11), e.g. zstd:3. By default pages keep their codec
                                     (a coalesced row group's pages take its first input's)
    --dictionary-page-limit BYTES    Largest unified dictionary page before later pages fall
                                     back to PLAIN (default 1M; K, M, G suffixes)
    --threads N                      With more than 1 (default: every core), the output is
                                     written by a thread of its own while pages are copied
    --json                           Print a JSON summary on stdout (no summary line)
    -q, --quiet                      No summary line on stderr
    -h, --help                       Show this help

A one-line summary (rows, files, row groups in and out, bytes in and out, seconds) goes to
stderr unless --quiet or --json.
";

/// What the command was asked to do.
struct Options {
    inputs: Vec<String>,
    output: String,
    merge: MergeOptions,
    json: bool,
    quiet: bool,
}

/// Runs the command with the arguments after `merge`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(mut opts) = parse(args)? else { return Ok(()) };
    let start = Instant::now();
    let (local_inputs, staged_in) = crate::remote::stage_inputs(&opts.inputs)?;
    let url = opts.output.clone();
    let staged_out = crate::remote::stage_output(&mut opts.output)?;
    let output = Path::new(&opts.output);
    let named = |m: String| crate::remote::named(m, staged_in.iter().chain(&staged_out));
    let inputs = expand_inputs(&local_inputs).map_err(named)?;
    let bytes_in = check_paths(&inputs, output).map_err(named)?;
    let summary = merge_files(&inputs, output, &opts.merge).map_err(|e| named(e.to_string()))?;
    if let Some(staged) = &staged_out {
        crate::remote::publish(staged)?;
    }
    opts.output = url;
    let seconds = start.elapsed().as_secs_f64();
    if opts.json {
        println!("{}", json_summary(&summary, &opts.output, bytes_in, seconds));
    } else if !opts.quiet {
        let files = if summary.files == 1 { "1 file".to_owned() } else { format!("{} files", summary.files) };
        eprintln!(
            "{files} → {}: {} rows, {} → {} row groups ({} copied whole), {} → {} in {seconds:.2} s",
            opts.output,
            summary.rows,
            summary.row_groups_in,
            summary.row_groups_out,
            summary.row_groups_copied,
            HumanBytes(bytes_in),
            HumanBytes(summary.bytes_out),
        );
    }
    Ok(())
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let merge = MergeOptions::default().with_threads(cores);
    let mut opts = Options { inputs: Vec::new(), output: String::new(), merge, json: false, quiet: false };
    let mut output = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("merge: {name} needs a value"));
        let prefixed = |e: String| format!("merge: {e}");
        match a.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(None);
            }
            "-q" | "--quiet" => opts.quiet = true,
            "--json" => opts.json = true,
            "-o" | "--output" => output = Some(value("--output")?),
            "--row-group-rows" => {
                let v = value("--row-group-rows")?;
                opts.merge = opts
                    .merge
                    .clone()
                    .with_row_group_rows(crate::args::count("--row-group-rows", &v).map_err(prefixed)? as u64);
            }
            "--row-group-bytes" => {
                let v = value("--row-group-bytes")?;
                opts.merge = opts
                    .merge
                    .clone()
                    .with_row_group_bytes(crate::args::bytes("--row-group-bytes", &v).map_err(prefixed)? as u64);
            }
            "--compression" => {
                let v = value("--compression")?;
                let (codec, level) = crate::args::codec(&v).map_err(prefixed)?;
                opts.merge = opts.merge.clone().with_compression(Compression::new(codec, level));
            }
            "--threads" => {
                let v = value("--threads")?;
                opts.merge = opts.merge.clone().with_threads(crate::args::count("--threads", &v).map_err(prefixed)?);
            }
            "--dictionary-page-limit" => {
                let v = value("--dictionary-page-limit")?;
                opts.merge = opts.merge.clone().with_dictionary_page_size_limit(
                    crate::args::bytes("--dictionary-page-limit", &v).map_err(prefixed)?,
                );
            }
            s if s.starts_with('-') && s != "-" => return Err(format!("merge: unknown option '{s}'\n\n{HELP}")),
            s => opts.inputs.push(s.to_owned()),
        }
    }
    opts.output = output.ok_or_else(|| format!("merge: needs --output OUT\n\n{HELP}"))?;
    if opts.inputs.is_empty() {
        return Err(format!("merge: no INPUT files given\n\n{HELP}"));
    }
    Ok(Some(opts))
}

/// The input files: each INPUT, or a directory's `*.parquet` files in name order. OUT found
/// there (say from an earlier run) stays an input, for [`check_paths`] to refuse: skipping it
/// would silently overwrite a data file named as OUT by mistake.
fn expand_inputs(inputs: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        if parquetry::dataset::is_dataset_source(input) && !Path::new(input).is_dir() {
            // A glob: its matches, in path order (names starting with '_' or '.' left out).
            files.extend(parquetry::dataset::list_files(&[input]).map_err(|e| e.to_string())?);
            continue;
        }
        let meta = std::fs::metadata(input).map_err(|e| format!("{input}: cannot read it: {e}"))?;
        if !meta.is_dir() {
            files.push(PathBuf::from(input));
            continue;
        }
        let entries = std::fs::read_dir(input).map_err(|e| format!("{input}: cannot list it: {e}"))?;
        let mut found = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| format!("{input}: cannot list it: {e}"))?.path();
            let parquet = path.extension().is_some_and(|e| e == "parquet");
            let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if parquet && !hidden && path.is_file() {
                found.push(path);
            }
        }
        if found.is_empty() {
            return Err(format!("{input}: the directory holds no .parquet files"));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Checks that OUT is none of the inputs (also through another spelling or a hard link);
/// returns the inputs' total size.
fn check_paths(inputs: &[PathBuf], output: &Path) -> Result<u64, String> {
    let out = std::fs::canonicalize(output).ok();
    let mut total = 0;
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| format!("{}: cannot read it: {e}", input.display()))?;
        let same =
            out.is_some() && (std::fs::canonicalize(input).ok() == out || crate::convert::same_inode(input, output));
        if same {
            return Err(format!(
                "{} is also an input: choose another OUT (merge never overwrites its inputs)",
                output.display()
            ));
        }
        total += meta.len();
    }
    Ok(total)
}

fn json_summary(s: &MergeSummary, output: &str, bytes_in: u64, seconds: f64) -> serde_json::Value {
    serde_json::json!({
        "output": output,
        "rows": s.rows,
        "files": s.files,
        "row_groups_in": s.row_groups_in,
        "row_groups_out": s.row_groups_out,
        "row_groups_copied": s.row_groups_copied,
        "bytes_in": bytes_in,
        "bytes_out": s.bytes_out,
        "pages_copied": s.pages.copied,
        "pages_remapped": s.pages.remapped,
        "pages_reencoded": s.pages.reencoded,
        "pages_from_dictionary": s.pages.from_dictionary,
        "seconds": seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquetry::compress::Compression;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_are_parsed_and_checked() {
        let opts = parse(&args(&[
            "-o",
            "out.parquet",
            "--row-group-rows",
            "1_000",
            "--row-group-bytes",
            "64M",
            "--compression",
            "zstd:3",
            "--dictionary-page-limit",
            "2M",
            "a.parquet",
            "dir",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(opts.output, "out.parquet");
        assert_eq!(opts.inputs, ["a.parquet", "dir"]);
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let expected = MergeOptions::default()
            .with_threads(cores)
            .with_row_group_rows(1000)
            .with_row_group_bytes(64 << 20)
            .with_compression(Compression::zstd(3))
            .with_dictionary_page_size_limit(2 << 20);
        assert_eq!(opts.merge, expected);
        assert!(parse(&args(&["a.parquet"])).err().unwrap().contains("needs --output OUT"));
        assert!(parse(&args(&["-o", "x.parquet"])).err().unwrap().contains("no INPUT files"));
        assert!(parse(&args(&["-o", "x", "--compression", "lzo", "a"]))
            .err()
            .unwrap()
            .starts_with("merge: --compression: unknown codec 'lzo'"));
        assert!(parse(&args(&["-o", "x", "--row-group-bytes", "lots", "a"]))
            .err()
            .unwrap()
            .contains("'lots' is not a size"));
        assert!(parse(&args(&["-o", "x", "--frobnicate", "a"]))
            .err()
            .unwrap()
            .contains("unknown option '--frobnicate'"));
        assert!(parse(&args(&["a", "--output"])).err().unwrap().contains("--output needs a value"));
    }
}
