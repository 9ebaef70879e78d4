//! A string column only the filter reads is tested on its dictionary and read as the test's
//! result, looked up from the dictionary index runs (no keys built). Its rows must be exactly
//! the rows pyarrow's dataset filter keeps, for index widths 1 to 20 (dictionaries of 2 to
//! 600,000 values), RLE and bit-packed runs, nulls (a comparison with NULL is not true, `IS
//! NULL` is), row selections that start and stop inside runs, with and without late
//! materialization, and in small and large batches.
//!
//! pyarrow writes the files at test time (`support/filter_masks.py`) and answers there.

mod common;

use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use parquetry::read::{ParquetReaderBuilder, ReadOptions};
use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/filter_masks.py");

/// The ids a filtered read of `file` returns.
fn ids(file: &str, options: ReadOptions) -> Vec<i64> {
    let reader = ParquetReaderBuilder::open(file).unwrap().with_options(options).build().unwrap();
    let mut out = Vec::new();
    for batch in common::Batches(reader) {
        let batch = batch.unwrap();
        out.extend(batch.column_by_name("id").unwrap().as_primitive::<Int64Type>().values().iter());
    }
    out.sort_unstable();
    out
}

#[test]
fn masked_dictionary_columns_keep_pyarrows_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-filter-masks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(common::python()).args([SCRIPT, dir.to_str().unwrap()]).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut checked = 0;
    for f in files.as_array().unwrap() {
        let file = f["file"].as_str().unwrap();
        let large = f["n"].as_u64().unwrap() > 10_000;
        for (c, case) in f["cases"].as_array().unwrap().iter().enumerate() {
            let condition = case["where"].as_str().unwrap();
            let want: Vec<i64> = case["ids"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
            let selection: Option<Vec<std::ops::Range<u64>>> = case["selection"]
                .as_array()
                .map(|s| s.iter().map(|r| r[0].as_u64().unwrap()..r[1].as_u64().unwrap()).collect());
            // `id` alone: the predicate reads `s` for itself (and `id` where it tests it, so
            // late materialization is off then); with `x`, late materialization is on; with
            // `s`, the column is output and read as strings.
            for columns in [&["id"][..], &["id", "x"], &["x", "id", "s"]] {
                // The large files (slow in a debug build) once per condition and selection.
                if large && columns.len() == 3 {
                    continue;
                }
                {
                    let batch_size = [1000, 65_536][(c + columns.len()) % 2];
                    let mut options = ReadOptions::default()
                        .with_filter(parquetry::filter::parse(condition).unwrap())
                        .with_columns(columns.iter().copied())
                        .with_batch_size(batch_size);
                    if let Some(s) = &selection {
                        options = options.with_row_selection(s.clone());
                    }
                    let got = ids(file, options);
                    assert_eq!(
                        got.len(),
                        want.len(),
                        "{file}: {condition}, rows {selection:?}, columns {columns:?}, batches of {batch_size}"
                    );
                    assert!(got == want, "{file}: {condition}, rows {selection:?}, columns {columns:?}: other rows");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 8 * 10 * 3 * 2, "{checked} reads checked");
    // The route each column takes, as `ScanMetrics` reports it: `s` is read as a mask only
    // where the filter alone reads it and tests it on its own.
    let file = files[0]["file"].as_str().unwrap();
    for (condition, columns, dictionaries, masks) in [
        ("s = 'v1'", &["id"][..], 1, 1),
        ("s = 'v1' and x > 5", &["id"], 1, 1),
        ("s = 'v1' or x > 5", &["id"], 1, 0),
        ("s = 'v1'", &["id", "s"], 0, 0),
    ] {
        let options = ReadOptions::default()
            .with_filter(parquetry::filter::parse(condition).unwrap())
            .with_columns(columns.iter().copied());
        let mut reader = ParquetReaderBuilder::open(file).unwrap().with_options(options).build().unwrap();
        for batch in reader.by_ref() {
            batch.unwrap();
        }
        let m = reader.scan_metrics().unwrap();
        assert_eq!(
            (m.columns_read_as_dictionaries, m.columns_read_as_masks),
            (dictionaries, masks),
            "{condition}, columns {columns:?}: {m}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
