//! The `sweep` subcommand: how the batch size changes parquetry's and arrow-rs's read times,
//! how far parquetry is from the limit, what a second thread buys, and what a row selection
//! saves.
//!
//! For each file, every cell (`sweep_cells.rs`) runs in this one process, in rounds: round k
//! runs every cell of the file once before round k + 1 runs any, so that a change in the
//! machine's load (it is shared) falls on all cells alike rather than on whichever cell
//! happened to run then. Each cell's figure is the median of its timed rounds.
//!
//! Readers: parquetry (`ParquetFile::batches` with `ReadOptions::with_batch_size`, on 1
//! thread and, as `parquetry_stream_t2`, on 2 with `with_threads`) and the arrow-rs `parquet`
//! crate (`ParquetRecordBatchReaderBuilder` over a `std::fs::File` with `with_batch_size`),
//! both opening the file inside the timed region (footer included, as the `read` cells do),
//! both with the files' own output types (Utf8/Binary; no view override). Modes: `stream`
//! drops each batch as soon as it arrives (what a consumer that processes batch by batch
//! pays), `collect` keeps them all in a `Vec`, dropped after the clock stops. Batch size 0
//! means whole row groups: `usize::MAX` for parquetry (its batches never cross a row group),
//! the largest row group's row count for arrow-rs (whose batches may cross one when row
//! groups differ in size). `arrow_rs_default_stream` is arrow-rs without `with_batch_size`
//! (its default, 1,024 rows), once per file.
//!
//! Per file, under key "limit": the limit as three parts (read the file's bytes, decompress
//! its pages, copy its value bytes) whose medians are added up; under key "select": 1% of
//! the rows in 100 scattered ranges, streamed at 8,192 rows a batch by parquetry and arrow-rs
//! (without and with its page index), compared with parquetry's full read at 8,192.
//!
//! Before timing, each batch size is checked once: parquetry's (1 and 2 threads) and
//! arrow-rs's collected batches must have the file's row count and the same checksum
//! (`checksum.rs`); so must the selection's three reads, with the selected row count. Every
//! timed run must also see its row count. `--peers` takes bench/sweep_peers.py's JSON (pyarrow
//! `iter_batches` with and without threads, polars whole-file) so the table can show them
//! beside parquetry; their checksums are compared with parquetry's.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use parquet::arrow::arrow_reader::{ParquetRecordBatchReaderBuilder, DEFAULT_BATCH_SIZE};
use serde_json::{json, Map, Value};

use crate::checksum::{file_checksum, FileSum};
use crate::driver::{cpu_model, git_revision, now_utc};
use crate::memory;
use crate::read::ARROW_RS_VERSION;
use crate::sweep_cells::{
    limit_cells, parquetry_options, read_cells, run_arrow_rs, run_parquetry, select_cells, select_ranges, ArrowRsSpec,
    Cell, Kind, Outcome, DEFAULT_IMPL, IMPLS, LIMIT_IMPLS, LIMIT_KEY, SELECT_BATCH_SIZE, SELECT_IMPLS, SELECT_KEY,
    THREADS,
};

/// The batch sizes swept when `--batch-sizes` is not given (0 = whole row groups).
pub const DEFAULT_BATCH_SIZES: [usize; 4] = [1024, 8192, 65536, 0];

/// The key of sweep_peers.py's whole-file cells (polars), which have no batch size.
pub const WHOLE_FILE_KEY: &str = "whole_file";

/// Options of `parquetry-bench sweep`.
pub struct SweepArgs {
    /// Parquet files.
    pub files: Vec<String>,
    /// Batch sizes in rows, 0 for whole row groups.
    pub batch_sizes: Vec<usize>,
    /// Timed rounds.
    pub runs: usize,
    /// Untimed rounds before them.
    pub warmup: usize,
    /// Where to write the JSON report.
    pub json: Option<String>,
    /// bench/sweep_peers.py's JSON (pyarrow, polars), shown beside parquetry in the table.
    pub peers: Option<String>,
}

/// The JSON key of a batch size: its row count, or "row_group" for 0. bench/sweep_peers.py
/// uses the same keys.
pub fn batch_key(batch_size: usize) -> String {
    if batch_size == 0 {
        "row_group".to_owned()
    } else {
        batch_size.to_string()
    }
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

fn canonical(p: &str) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p))
}

/// The row counts of the file's row groups (from arrow-rs's footer decoding, untimed).
fn row_group_rows(path: &str) -> Result<Vec<usize>, String> {
    let file = File::open(path).map_err(|e| format!("opening {path}: {e}"))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
    Ok(builder.metadata().row_groups().iter().map(|rg| usize::try_from(rg.num_rows()).unwrap_or(0)).collect())
}

/// The untimed check of one key: every read collects the file; all must see `rows` rows and
/// the first read's checksum. Returns the check's JSON and, if the first read could be
/// checksummed, its checksum figures.
fn check(rows: u64, reads: Vec<(&str, Result<Outcome, String>)>) -> (Value, Option<FileSum>) {
    let mut v = json!({});
    let mut first: Option<FileSum> = None;
    let mut ok = true;
    for (name, read) in reads {
        let summed = read.and_then(|out| {
            let schema = out.kept.first().ok_or("the read returned no batches")?.schema();
            // Recorded to show which output types each reader produced (Utf8, not views).
            let types: Map<String, Value> =
                schema.fields().iter().map(|f| (f.name().clone(), json!(f.data_type().to_string()))).collect();
            Ok((file_checksum(&schema, &out.kept)?, out.batches, out.max_batch_rows, types))
        });
        match summed {
            Ok((sum, batches, max_rows, types)) => {
                let same = first.as_ref().is_none_or(|f| f.checksum == sum.checksum);
                ok &= same && sum.rows == rows;
                v[name] = json!({"rows": sum.rows, "batches": batches, "max_batch_rows": max_rows,
                                 "output_types": types, "checksum_ok": same});
                if !same {
                    v[name]["checksum"] = sum.checksum.clone();
                }
                first.get_or_insert(sum);
            }
            Err(e) => {
                ok = false;
                v[name] = json!({"error": e});
            }
        }
    }
    v["ok"] = json!(ok);
    v["rows"] = json!(first.as_ref().map(|f| f.rows));
    v["checksum"] = first.as_ref().map_or(Value::Null, |f| f.checksum.clone());
    (v, first)
}

/// One cell's JSON: its medians and figures, or its error.
fn cell_json(cell: &Cell, value_bytes: Option<u64>) -> Value {
    if let Kind::Skipped(why) = &cell.kind {
        if cell.error.is_none() {
            return json!({"skipped": why});
        }
    }
    if let Some(e) = &cell.error {
        return json!({"error": e});
    }
    let m = median(&cell.times);
    let mut v = json!({"median_s": m, "times_s": cell.times, "median_cpu_s": median(&cell.cpu)});
    if cell.key != LIMIT_KEY {
        v["batches"] = json!(cell.batches);
        v["rows_per_s"] = json!(cell.expect_rows.map(|r| r as f64 / m));
    }
    // A selection reads 1% of the values: GB/s of all the file's would mislead.
    if cell.key != SELECT_KEY {
        v["gb_per_s"] = json!(value_bytes.map(|b| b as f64 / m / 1e9));
    }
    for (k, x) in cell.info.as_object().into_iter().flatten() {
        v[k.as_str()] = x.clone();
    }
    v
}

/// Sweeps one file: checks, then the interleaved rounds. Returns the file's JSON entry.
fn sweep_file(args: &SweepArgs, path: &str, peers: Option<&Value>) -> Value {
    let name = Path::new(path).file_name().map_or(path.to_owned(), |n| n.to_string_lossy().into_owned());
    let mut entry = json!({"name": name, "file_bytes": std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)});
    let rg_rows = match row_group_rows(path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}: {e}");
            entry["error"] = json!(e);
            return entry;
        }
    };
    let largest = rg_rows.iter().copied().max().unwrap_or(0);
    let rows: u64 = rg_rows.iter().map(|&r| r as u64).sum();
    entry["row_group_rows"] = json!(rg_rows);
    entry["rows"] = json!(rows);

    let mut checks = Map::new();
    let mut value_bytes = None;
    for &b in &args.batch_sizes {
        let (ours, theirs) = if b == 0 { (usize::MAX, largest.max(1)) } else { (b, b) };
        let spec = ArrowRsSpec { rows_per_batch: Some(theirs), selection: None, page_index: false };
        let (v, sum) = check(
            rows,
            vec![
                ("parquetry", run_parquetry(path, &parquetry_options(ours, 1), true)),
                ("parquetry_t2", run_parquetry(path, &parquetry_options(ours, THREADS), true)),
                ("arrow_rs", run_arrow_rs(path, &spec, true)),
            ],
        );
        value_bytes = value_bytes.or(sum.map(|s| s.value_bytes));
        let ok = v["ok"].as_bool() == Some(true);
        eprintln!("{name:36} batch {:>9}  check {}", batch_key(b), if ok { "ok" } else { "MISMATCH" });
        checks.insert(batch_key(b), v);
    }
    let ranges = select_ranges(rows);
    let mut cells = read_cells(&args.batch_sizes, rows, largest);
    cells.extend(select_cells(&ranges, rows));
    // The selection is checked with the same cells the rounds time, collecting.
    let selected: u64 = ranges.iter().map(|r| r.end - r.start).sum();
    let reads = cells
        .iter_mut()
        .filter(|c| c.key == SELECT_KEY)
        .map(|c| {
            c.collect = true;
            let out = c.run(path);
            c.collect = false;
            (c.name, out)
        })
        .collect();
    let (mut v, _) = check(selected, reads);
    v["ranges"] = json!(ranges.iter().map(|r| [r.start, r.end]).collect::<Vec<_>>());
    eprintln!("{name:36} batch {SELECT_KEY:>9}  check {}", if v["ok"] == json!(true) { "ok" } else { "MISMATCH" });
    checks.insert(SELECT_KEY.to_owned(), v);
    entry["value_bytes"] = json!(value_bytes);
    entry["checks"] = Value::Object(checks);
    // Set up after the checks, which give the value bytes the memcpy part copies.
    cells.extend(limit_cells(path, value_bytes.unwrap_or(0)));

    let load_before = memory::loadavg_1min();
    for k in 0..args.warmup + args.runs {
        for cell in cells.iter_mut().filter(|c| c.runnable()) {
            let (c0, t0) = (memory::cpu_seconds(), Instant::now());
            let result = cell.run(path);
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), memory::cpu_seconds() - c0);
            // A collecting run's batches are freed here, after the clock stopped.
            match result {
                Ok(out) if cell.expect_rows.is_some_and(|r| r != out.rows) => {
                    let want = cell.expect_rows.unwrap_or(0);
                    cell.error = Some(format!("run {} read {} rows, not {want}", k + 1, out.rows));
                }
                Ok(out) => {
                    cell.batches = out.batches;
                    if k >= args.warmup {
                        cell.times.push(wall);
                        cell.cpu.push(cpu);
                    }
                }
                Err(e) => cell.error = Some(format!("run {}: {e}", k + 1)),
            }
        }
    }
    entry["loadavg_1min_before_after"] = json!([load_before, memory::loadavg_1min()]);

    let mut results = Map::new();
    for cell in &cells {
        let v = cell_json(cell, value_bytes);
        let line = match (v["median_s"].as_f64(), v["skipped"].as_str()) {
            (Some(m), _) => format!("{:9.2} ms", m * 1e3),
            (None, Some(why)) => format!("skipped: {why}"),
            (None, None) => format!("ERROR {}", v["error"].as_str().unwrap_or("")),
        };
        eprintln!("{name:36} batch {:>9}  {:26} {line}", cell.key, cell.name);
        results.entry(cell.key.clone()).or_insert_with(|| json!({}))[cell.name] = v;
    }
    if let Some(slot) = results.get_mut(LIMIT_KEY) {
        slot["limit_total"] = limit_total(slot, value_bytes);
    }
    if let Some(p) = peers.and_then(|p| peer_entry(p, path)) {
        merge_peer(&mut results, &entry, p, rows, value_bytes);
    }
    add_ratios(&mut results, &entry["checks"]);
    entry["results"] = Value::Object(results);
    entry
}

/// The limit: the sum of its parts' medians (a skipped part, decompress of an uncompressed
/// file, counts 0); null when a part has no time.
fn limit_total(slot: &Value, value_bytes: Option<u64>) -> Value {
    let mut parts = Map::new();
    for name in LIMIT_IMPLS {
        let part = if slot[name]["skipped"].is_string() { Some(0.0) } else { slot[name]["median_s"].as_f64() };
        match part {
            Some(s) => parts.insert(name.to_owned(), json!(s)),
            None => return Value::Null,
        };
    }
    let total: f64 = parts.values().filter_map(Value::as_f64).sum();
    json!({"median_s": total, "parts_s": parts, "gb_per_s": value_bytes.map(|b| b as f64 / total / 1e9)})
}

/// Adds sweep_peers.py's cells of this file to `results`, each marked with whether its rows
/// and checksum are parquetry's.
fn merge_peer(results: &mut Map<String, Value>, entry: &Value, peer: &Value, rows: u64, value_bytes: Option<u64>) {
    // The checksum does not depend on the batch size: whole-file cells (polars) are compared
    // with the row-group check's, or any batch size's whose check passed.
    let checks = &entry["checks"];
    let any_ok = checks.as_object().into_iter().flatten().find(|(k, c)| *k != SELECT_KEY && c["ok"] == json!(true));
    let fallback = any_ok.map_or(&Value::Null, |(_, c)| &c["checksum"]);
    for (key, slot) in peer["results"].as_object().into_iter().flatten() {
        // Older sweep_peers.py JSON held the pyarrow_stream cell itself under each key.
        let cells: Vec<(String, Value)> = if slot["median_s"].is_number() {
            vec![("pyarrow_stream".to_owned(), slot.clone())]
        } else {
            slot.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        let ours = match &checks[key.as_str()]["checksum"] {
            Value::Null => fallback,
            c => c,
        };
        for (imp, mut cell) in cells {
            if let Some(pr) = cell["rows"].as_u64() {
                cell["rows_ok"] = json!(rows == pr);
            }
            if !ours.is_null() && !cell["checksum"].is_null() {
                cell["checksum_ok"] = json!(*ours == cell["checksum"]);
            }
            if let (Some(b), Some(m)) = (value_bytes, cell["median_s"].as_f64()) {
                cell["gb_per_s"] = json!(b as f64 / m / 1e9);
            }
            results.entry(key.clone()).or_insert_with(|| json!({}))[imp.as_str()] = cell;
        }
    }
}

/// Only a cell that ran without error and whose output was right has a time worth comparing.
fn good_time(c: &Value) -> Option<f64> {
    let good =
        c["error"].is_null() && c["rows_ok"].as_bool() != Some(false) && c["checksum_ok"].as_bool() != Some(false);
    c["median_s"].as_f64().filter(|_| good)
}

/// The ratios of times the report shows, each `numerator / denominator` (> 1: the
/// denominator is faster), into each slot's `ratios`.
fn add_ratios(results: &mut Map<String, Value>, checks: &Value) {
    // Within one batch size.
    const PAIRS: [(&str, &str, &str); 5] = [
        ("arrow_rs_stream", "parquetry_stream", "arrow_rs_over_parquetry_stream"),
        ("arrow_rs_collect", "parquetry_collect", "arrow_rs_over_parquetry_collect"),
        ("pyarrow_stream", "parquetry_stream", "pyarrow_over_parquetry_stream"),
        ("parquetry_stream", "parquetry_stream_t2", "parquetry_1_over_2_threads_stream"),
        ("pyarrow_threads", "parquetry_stream_t2", "pyarrow_threads_over_parquetry_t2_stream"),
    ];
    let get = |key: &str, imp: &str| results.get(key).and_then(|s| good_time(&s[imp]));
    let limit = results.get(LIMIT_KEY).and_then(|s| s["limit_total"]["median_s"].as_f64());
    let full = get(&batch_key(SELECT_BATCH_SIZE), "parquetry_stream")
        .filter(|_| checks[batch_key(SELECT_BATCH_SIZE)]["ok"] == json!(true));
    let t2_rg = get(&batch_key(0), "parquetry_stream_t2").filter(|_| checks[batch_key(0)]["ok"] == json!(true));
    let mut all: Vec<(String, &str, f64)> = Vec::new();
    for (key, slot) in results.iter() {
        let t = |imp: &str| good_time(&slot[imp]);
        for (num, den, name) in PAIRS {
            if let (Some(n), Some(d)) = (t(num), t(den)) {
                all.push((key.clone(), name, n / d));
            }
        }
        if let (Some(n), Some(d)) = (t("parquetry_stream"), limit) {
            all.push((key.clone(), "parquetry_stream_over_limit", n / d));
        }
    }
    // Across keys: the selection against the full read and its peers; polars (whole file)
    // against parquetry on 2 threads in whole-row-group batches.
    let select = get(SELECT_KEY, "parquetry_select");
    let cross = [
        (SELECT_KEY, "full_over_select", full, select),
        (SELECT_KEY, "arrow_rs_over_parquetry_select", get(SELECT_KEY, "arrow_rs_select"), select),
        (
            SELECT_KEY,
            "arrow_rs_page_index_over_parquetry_select",
            get(SELECT_KEY, "arrow_rs_select_page_index"),
            select,
        ),
        (WHOLE_FILE_KEY, "polars_read_over_parquetry_t2_row_group", get(WHOLE_FILE_KEY, "polars_read"), t2_rg),
        (WHOLE_FILE_KEY, "polars_scan_over_parquetry_t2_row_group", get(WHOLE_FILE_KEY, "polars_scan"), t2_rg),
    ];
    for (key, name, n, d) in cross {
        if let (Some(n), Some(d)) = (n, d) {
            all.push((key.to_owned(), name, n / d));
        }
    }
    for (key, name, r) in all {
        if let Some(slot) = results.get_mut(&key) {
            slot["ratios"][name] = json!(r);
        }
    }
}

/// The entry for `path` in sweep_peers.py's JSON (keys are paths as given to it).
fn peer_entry<'a>(peers: &'a Value, path: &str) -> Option<&'a Value> {
    let want = canonical(path);
    peers["files"].as_object()?.iter().find(|(k, _)| canonical(k) == want).map(|(_, v)| v)
}

fn write(path: Option<&str>, report: &Value) {
    if let Some(p) = path {
        let text = serde_json::to_string_pretty(report).expect("report JSON serializes");
        if let Err(e) = std::fs::write(p, text) {
            eprintln!("cannot write {p}: {e}");
            std::process::exit(1);
        }
    }
}

/// mimalloc reads its options once, when the process starts: without
/// `MIMALLOC_PURGE_DELAY=-1` it returns freed pages to the kernel after 10 ms, and whether a
/// run finds the previous run's output memory still mapped (or must have it zeroed again)
/// would depend on timing, not on the reader (see `cells::spawn_cell`). So the sweep re-runs
/// itself with the setting when the caller did not choose one.
fn reexec_with_purge_delay() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| {
        eprintln!("cannot find the bench binary: {e}");
        std::process::exit(1);
    });
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("MIMALLOC_PURGE_DELAY", "-1")
        .status()
        .unwrap_or_else(|e| {
            eprintln!("cannot re-run the bench binary: {e}");
            std::process::exit(1);
        });
    std::process::exit(status.code().unwrap_or(1));
}

/// Runs the sweep: progress on stderr, JSON to `--json`, the Markdown tables on stdout.
pub fn run(args: &SweepArgs) {
    reexec_with_purge_delay();
    let peers: Option<Value> = args.peers.as_ref().and_then(|p| {
        let v = std::fs::read_to_string(p).ok().and_then(|t| serde_json::from_str(&t).ok());
        if v.is_none() {
            eprintln!("note: cannot read the peers' sweep results from {p}; the table will have no pyarrow or polars");
        }
        v
    });
    let mut report = json!({
        "meta": {
            "tool": "parquetry-bench sweep",
            "started": now_utc(),
            "runs": args.runs, "warmup": args.warmup,
            "batch_sizes": args.batch_sizes.iter().map(|&b| batch_key(b)).collect::<Vec<_>>(),
            "impls": IMPLS, "default_impl": DEFAULT_IMPL, "threads_t2": THREADS,
            "limit_impls": LIMIT_IMPLS, "select_impls": SELECT_IMPLS, "select_batch_size": SELECT_BATCH_SIZE,
            "arrow_rs_default_batch_size": DEFAULT_BATCH_SIZE,
            "file_order": args.files,
            "versions": {"arrow_rs_parquet": ARROW_RS_VERSION, "parquetry_git": git_revision()},
            "cpu": cpu_model(),
            "nproc": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "peers": args.peers, "peers_meta": peers.as_ref().map(|p| p["meta"].clone()),
            "units": "seconds, bytes; gb_per_s = value_bytes / median_s / 1e9; \
                      ratios = <numerator>_over_<denominator> median_s; limit_total = sum of the \
                      limit parts' median_s (a skipped part counts 0)",
        },
        "files": {},
    });
    for path in &args.files {
        report["files"][path.as_str()] = sweep_file(args, path, peers.as_ref());
        write(args.json.as_deref(), &report);
    }
    report["meta"]["finished"] = json!(now_utc());
    write(args.json.as_deref(), &report);
    print!("{}", crate::sweep_table::markdown(&report));
}
