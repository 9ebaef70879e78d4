//! Late materialization where the matches are scattered through every page: every k-th row
//! (k from 2 to 1,500, around and across the merge gap), random rows (1% and 20%), the rows at
//! each page's edges and a lone row at a page's end. The other columns (required and nullable,
//! dictionary and PLAIN, integers, doubles, strings, booleans; data page v1 and v2) are then
//! read only at the matches, by skips and short reads inside pages (matches closer than the
//! merge gap, 1,024 rows with a PLAIN string column and 32 without, are read as one range and
//! filtered after decoding). Every column's values must
//! be those of pyarrow's own filter of the same file (`pq.read_table(filters=...)`), in every
//! byte-array output type and in small and large batches.
//!
//! pyarrow writes the files and answers at test time (`support/filter_scattered.py`).

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::path::Path;
use std::process::Command;

use parquetry::filter::parse;
use parquetry::read::{ByteArrayType, ParquetReaderBuilder, ReadOptions};
use read_compare::{diff_with_byte_array_type, read_ipc, Table};
use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/filter_scattered.py");
const OUTPUTS: [&str; 8] = ["id", "a_req", "b_opt", "c_plain", "d_opt_plain", "s_opt", "t_plain", "flag"];

/// A filtered read of `file`: the table and the row groups read by late materialization.
fn read(file: &str, options: ReadOptions) -> (Table, usize) {
    let reader = ParquetReaderBuilder::open(file).unwrap().with_options(options).build().unwrap();
    let mut iter = common::Batches(reader);
    let schema = iter.schema();
    let mut batches = Vec::new();
    for batch in iter.by_ref() {
        batches.push(batch.unwrap());
    }
    let late = iter.scan_metrics().map_or(0, |m| m.late_row_groups);
    (Table::from_batches(&schema, &batches).unwrap(), late)
}

#[test]
fn scattered_matches_read_late_keep_pyarrows_rows_and_values() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-filter-scattered-{}", std::process::id()));
    let out = Command::new(common::python()).args([SCRIPT, dir.to_str().unwrap()]).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut checked = 0;
    for f in files.as_array().unwrap() {
        let file = f["file"].as_str().unwrap();
        for (pattern, ipc) in f["answers"].as_object().unwrap() {
            let want = read_ipc(Path::new(ipc.as_str().unwrap())).unwrap();
            assert!(want.num_rows() > 0, "{pattern}: pyarrow found no rows");
            let condition = format!("p_{pattern} = 1");
            // Without the PLAIN string column, every column the second pass decodes skips
            // without visiting rows, and matches only 32 rows apart are read apart.
            let cheap: Vec<usize> = (0..OUTPUTS.len()).filter(|&i| OUTPUTS[i] != "t_plain").collect();
            for (choice, batch_size, all) in [
                (ByteArrayType::View, 65_536, true),
                (ByteArrayType::Regular, 777, true),
                (ByteArrayType::Dictionary, 4_096, true),
                (ByteArrayType::Large, 65_536, true),
                (ByteArrayType::View, 65_536, false),
                (ByteArrayType::Regular, 1_000, false),
            ] {
                let want = if all { want.clone() } else { want.project(&cheap) };
                let columns: Vec<&str> = want.names.iter().map(String::as_str).collect();
                let options = ReadOptions::default()
                    .with_columns(columns)
                    .with_batch_size(batch_size)
                    .with_byte_array_type(choice)
                    .with_filter(parse(&condition).unwrap());
                let (got, late) = read(file, options);
                let place = format!("{file}, {condition}, {:?}, {choice:?}, batches of {batch_size}", want.names);
                assert_eq!(got.num_rows(), want.num_rows(), "{place}");
                let diffs = diff_with_byte_array_type(&want, &got, choice);
                assert!(diffs.is_empty(), "{place}: {diffs:?}");
                // The predicate's column is not in the output: the other columns are read late
                // (at least until two dense row groups switch it off; the file has two).
                assert!(late > 0, "{place}: late materialization was not used");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 9 * 6);
}
