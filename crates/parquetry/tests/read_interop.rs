//! Files written by other writers, read by parquetry to exactly the values the writer's own
//! ecosystem reads back (issue 15, "Every writer's files").
//!
//! At test time, tests/support/read_interop_write.py writes one table (a few thousand rows,
//! nulls in every column, int32/int64/float/double/bool/string/binary/date/timestamp/decimal
//! as far as the writer has those types, several row groups, small pages where the writer has
//! a setting for it) with
//! - duckdb `COPY ... (FORMAT PARQUET)`, PARQUET_VERSION V1 and V2, each of its codecs;
//! - polars `write_parquet`, each of its codecs, with and without statistics, 2 KB pages;
//! - fastparquet, each of its codecs, INT96 times, data page v2, FIXED_LEN_BYTE_ARRAY text
//!   and a categorical (dictionary-encoded) column;
//! - parquet-go (scripts/interop/go-writer, built here when `go` is on PATH): data page v2,
//!   dictionary, DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY, a few
//!   codecs.
//!
//! The reference of each file is an independent reader: duckdb's `SELECT *` for duckdb's
//! files (with the Arrow types pyarrow maps the schema to), pyarrow's `read_table` for the
//! others; the Python side also checks that the reference holds exactly the values the writer
//! was given. parquetry reads every file at batch sizes `usize::MAX`, 1000 and 7 (pages split
//! across batches) and must match the reference column by column: same Arrow types, same
//! values (floats bit for bit, so NaN equals NaN and -0.0 differs from 0.0), same nulls.
//!
//! Every failing case names the writer, its settings, the batch size, the column and the
//! first differing row. A file parquetry rejects, `Unsupported` included, is a failure.
//! `PARQUETRY_KEEP_TEST_FILES=1` keeps the files.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::path::{Path, PathBuf};
use std::time::Instant;

use parquetry::read::{ParquetFile, ReadOptions};
use read_compare::{catch, diff_tables, read_ipc, Table};
use serde_json::{json, Value};
use write_helpers::{run_go_writer, run_python_json, TempDir};

/// The batch sizes every file is read at: one batch per row group's worth, and two sizes that
/// cut pages (duckdb's 2048-row pages, everyone's 2 KB pages) at many places.
const BATCH_SIZES: [usize; 3] = [usize::MAX, 1000, 7];

/// Reads a whole file in batches of `batch_size`; the error says its kind (`Unsupported`,
/// `Corrupt`, ...) so a missing feature is told apart from a bug.
fn read_batches(path: &Path, batch_size: usize) -> Result<Table, String> {
    catch(|| {
        let kind = |e: parquetry::Error| format!("{:?} error: {}", e.kind(), e.message());
        let file = ParquetFile::open(path).map_err(kind)?;
        let iter = common::batches(&file, ReadOptions::default().with_batch_size(batch_size)).map_err(kind)?;
        let schema = iter.schema();
        let batches = iter.collect::<Result<Vec<_>, _>>().map_err(kind)?;
        if let Some(b) = batches.iter().find(|b| b.num_rows() == 0 || b.num_rows() > batch_size) {
            return Err(format!("a batch of {} rows at batch size {batch_size}", b.num_rows()));
        }
        Table::from_batches(&schema, &batches)
    })
    .and_then(|r| r)
}

/// The layout facts a case must show for its settings to have been exercised (the bytes of
/// the file, decoded by parquet_layout.py): a case that silently wrote one row group or one
/// page would test less than its name says.
fn layout_problems(case: &Value) -> Vec<String> {
    let layout = &case["layout"];
    let settings = case["settings"].as_str().unwrap_or("").to_lowercase();
    let mut problems = Vec::new();
    if layout["row_groups"].as_u64().unwrap_or(0) < 2 {
        problems.push(format!("one row group only: {layout}"));
    }
    // duckdb has no page size setting and writes one page per column chunk.
    if case["writer"] != "duckdb" && layout["most_pages_in_a_chunk"].as_u64().unwrap_or(0) < 4 {
        problems.push(format!("pages are not small: {layout}"));
    }
    // An encoding the settings name must be in the file; duckdb's V2 means DELTA encodings.
    let encodings =
        ["RLE_DICTIONARY", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"];
    problems.extend(write_helpers::settings_layout_problems(&settings, layout, &encodings));
    problems
}

/// One line of what a file holds: row groups, pages, page types, encodings, codecs.
fn describe(layout: &Value) -> String {
    let list = |key: &str| {
        layout[key]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","))
            .unwrap_or_default()
    };
    format!(
        "{} row groups, up to {} data pages a chunk; {}; {}; {}",
        layout["row_groups"],
        layout["most_pages_in_a_chunk"],
        list("page_types"),
        list("encodings"),
        list("codecs")
    )
}

/// Checks one case at every batch size; returns its failures (empty: it passed).
fn check_case(case: &Value) -> Vec<String> {
    if let Some(e) = case["reference_error"].as_str() {
        return vec![format!("the reference reader failed: {e}")];
    }
    let mut failures = layout_problems(case);
    if let Some(e) = case["source_check"].as_str() {
        failures.push(e.to_owned());
    }
    let want = match read_ipc(Path::new(case["reference"].as_str().unwrap())) {
        Ok(t) => t,
        Err(e) => return vec![format!("reading the reference: {e}")],
    };
    let path = PathBuf::from(case["parquet"].as_str().unwrap());
    for batch_size in BATCH_SIZES {
        let size = if batch_size == usize::MAX { "MAX".to_owned() } else { batch_size.to_string() };
        match read_batches(&path, batch_size) {
            Err(e) => {
                failures.push(format!("batch size {size}: parquetry: {e}"));
                // The same error at every batch size says nothing new.
                break;
            }
            Ok(got) => {
                for d in diff_tables(&want, &got) {
                    failures.push(format!("batch size {size}: {d}"));
                }
            }
        }
    }
    failures
}

/// The parquet-go cases (writer, settings, path) or, without Go, none and a note.
fn go_cases(dir: &TempDir) -> (Vec<Value>, Option<String>) {
    match run_go_writer(dir, &[]) {
        Err(note) => (Vec::new(), Some(note)),
        Ok(lines) => {
            let cases = lines
                .into_iter()
                .map(|v| json!({"writer": "parquet-go", "settings": v["settings"], "parquet": v["parquet"]}))
                .collect();
            (cases, None)
        }
    }
}

#[test]
fn parquetry_reads_every_writers_files_as_the_writer_does() {
    if common::pyarrow_missing() {
        return;
    }
    let start = Instant::now();
    let dir = TempDir::new("read-interop");
    let (extra, go_note) = go_cases(&dir);
    let go_ran = go_note.is_none();
    let written = run_python_json("read_interop_write.py", &json!({"out_dir": dir.0, "extra": extra}));
    let generated = start.elapsed();
    let cases = written["cases"].as_array().expect("cases");

    let mut summary = vec![format!("versions: {}", written["versions"])];
    summary.extend(go_note);
    for s in written["skipped"].as_array().into_iter().flatten() {
        summary.push(format!("SKIP {} [{}]: the writer refused: {}", s["writer"], s["settings"], s["reason"]));
    }
    let mut failed = 0;
    for case in cases {
        let name = format!("{} [{}]", case["writer"].as_str().unwrap_or("?"), case["settings"].as_str().unwrap_or("?"));
        let failures = check_case(case);
        let note = case["note"].as_str().map(|n| format!(" (note: {n})")).unwrap_or_default();
        if failures.is_empty() {
            summary.push(format!("ok   {name}{note}\n       {}", describe(&case["layout"])));
        } else {
            failed += 1;
            summary.push(format!("FAIL {name}{note}:\n       {}", failures.join("\n       ")));
        }
    }
    summary.push(format!(
        "{} cases, {failed} failed; writing {:.1} s, all {:.1} s",
        cases.len(),
        generated.as_secs_f64(),
        start.elapsed().as_secs_f64()
    ));
    let summary = summary.join("\n");
    eprintln!("{summary}");
    // Each writer must have produced something: an empty run would pass vacuously.
    for writer in ["duckdb", "polars", "fastparquet", "parquet-go"] {
        if writer == "parquet-go" && !go_ran {
            continue;
        }
        assert!(cases.iter().any(|c| c["writer"] == writer), "no {writer} case ran:\n{summary}");
    }
    assert!(failed == 0, "parquetry reads other values than the writers' readers:\n{summary}");
}
