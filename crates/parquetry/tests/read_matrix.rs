//! Files pyarrow writes with every BYTE_ARRAY encoding × codec × data page version, and every
//! fixed-width type under each of its encodings, read by parquetry to pyarrow's values.
//!
//! tests/support/make_matrix.py writes the files (fixed seeds) into a temporary directory and
//! checks their footers use the encodings they are named for; pyarrow's own read of each file
//! (tests/support/pyarrow_to_ipc.py) is the reference.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::path::PathBuf;
use std::process::Command;

use parquetry::read::{ByteArrayType, ReadOptions};
use read_compare::{diff_tables, diff_with_byte_array_type, read_parquetry};

/// Removes the matrix directory when the test ends, pass or fail.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn matrix_files_match_pyarrow() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir(std::env::temp_dir().join(format!("parquetry-matrix-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/make_matrix.py");
    let out = Command::new(common::python()).arg(script).arg(&dir.0).output().unwrap_or_else(|e| {
        panic!("cannot run python3 ({e}): python3 with pyarrow is required (./test.sh installs it)")
    });
    assert!(
        out.status.success(),
        "make_matrix.py failed (is pyarrow installed? ./test.sh installs it):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: serde_json::Value = serde_json::from_slice(&out.stdout).expect("matrix file list");
    let files: Vec<(String, String)> = files
        .as_array()
        .expect("a list")
        .iter()
        .map(|f| (f["file"].as_str().unwrap().to_owned(), f["kind"].as_str().unwrap().to_owned()))
        .collect();
    // 4 encodings x 6 codecs x 2 page versions of strings, 5 x 3 x 2 of numbers, one file of
    // Arrow types restored from ARROW:schema, one dictionary that falls back to PLAIN.
    assert_eq!(files.len(), 48 + 30 + 2, "make_matrix.py wrote an unexpected set of files");

    let paths: Vec<PathBuf> = files.iter().map(|(f, _)| dir.0.join(f)).collect();
    let expected = read_compare::pyarrow_tables("matrix", &paths);

    let mut failures = Vec::new();
    for ((name, kind), path) in files.iter().zip(&paths) {
        let want = match &expected[path] {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: pyarrow side failed: {e}"));
                continue;
            }
        };
        let mut reads = vec![
            ("default", ReadOptions::default(), None),
            ("View", ReadOptions::default().with_byte_array_type(ByteArrayType::View), Some(ByteArrayType::View)),
        ];
        // Batches that end inside pages (which are then cut) and cross row groups.
        reads.push(("batch size 333", ReadOptions::default().with_batch_size(333), None));
        // Columns decoded on two threads: the same values as on one.
        reads.push(("2 threads", ReadOptions::default().with_threads(2).with_batch_size(1000), None));
        // Whole row groups on three threads: several row groups decoded at once.
        reads.push(("3 threads, row groups", ReadOptions::default().with_threads(3).with_batch_size(usize::MAX), None));
        if kind == "strings" {
            reads.push((
                "Dictionary",
                ReadOptions::default().with_byte_array_type(ByteArrayType::Dictionary),
                Some(ByteArrayType::Dictionary),
            ));
        }
        for (what, options, choice) in reads {
            let diffs = match read_parquetry(path, &options) {
                Err(e) => vec![e],
                Ok(got) => match choice {
                    None => diff_tables(want, &got),
                    Some(choice) => diff_with_byte_array_type(want, &got, choice),
                },
            };
            if !diffs.is_empty() {
                failures.push(format!("{name} ({what}):\n    {}", diffs.join("\n    ")));
            }
        }
        // Row selections that start and end inside pages, skip whole pages and cross row
        // groups, against the same rows of pyarrow's table.
        let ranges = selection_of(want.num_rows() as u64);
        let mut selected = want.slice(0, 0);
        for r in &ranges {
            selected = selected.append(&want.slice(r.start as usize, (r.end - r.start) as usize));
        }
        for batch_size in [usize::MAX, 333] {
            let options = ReadOptions::default().with_row_selection(ranges.clone()).with_batch_size(batch_size);
            let diffs = match read_parquetry(path, &options) {
                Err(e) => vec![e],
                Ok(got) => diff_tables(&selected, &got),
            };
            if !diffs.is_empty() {
                failures
                    .push(format!("{name} (rows {ranges:?}, batch size {batch_size}):\n    {}", diffs.join("\n    ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} reads of {} matrix files differ from pyarrow:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Scattered ranges over `rows` rows: a few rows near the start, a long stretch, one row in
/// the middle, and a run to one row before the end.
fn selection_of(rows: u64) -> Vec<std::ops::Range<u64>> {
    let candidates =
        [rows / 97..rows / 97 + 3, rows / 5..rows / 5 + rows / 7, rows / 2..rows / 2 + 1, rows * 3 / 4..rows - 1];
    let mut out: Vec<std::ops::Range<u64>> = Vec::new();
    for r in candidates {
        let start = r.start.max(out.last().map_or(0, |l| l.end));
        if start < r.end.min(rows) {
            out.push(start..r.end.min(rows));
        }
    }
    out
}
