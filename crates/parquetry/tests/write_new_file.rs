//! `ParquetWriter::create` writes a file that appears at its path only when closed: before,
//! the path is absent (or keeps its old content); dropped unclosed or failed, nothing is left
//! behind; closed, pyarrow reads every row written.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquetry::write::{ParquetWriter, WriteOptions};
use read_compare::{diff_tables, pyarrow_tables, Table};
use write_helpers::{dir_entries, TempDir};

#[test]
fn a_created_file_appears_whole_at_close_and_never_in_part() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("new-file");
    let schema =
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false), Field::new("name", DataType::Utf8, true)]));
    let batch = |from: i64| {
        let ids: Vec<i64> = (from..from + 5000).collect();
        let names = StringArray::from_iter(ids.iter().map(|i| (i % 7 != 0).then(|| format!("n{i}"))));
        RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(ids)) as ArrayRef, Arc::new(names)])
            .unwrap()
    };
    let batches = [batch(0), batch(5000), batch(10_000)];
    for threads in [1, 2] {
        let path = dir.join(&format!("out{threads}.parquet"));
        let options = WriteOptions::default().with_row_group_rows(4000).with_threads(threads);
        let mut writer = ParquetWriter::create(&path, schema.clone(), options.clone()).unwrap();
        for b in &batches {
            writer.write(b).unwrap();
        }
        assert!(!path.exists(), "{} exists before close", path.display());
        writer.close().unwrap();
        let got = pyarrow_tables(&format!("new-file-{threads}"), std::slice::from_ref(&path));
        let got = got[&path].as_ref().unwrap();
        let diffs = diff_tables(&Table::from_batches(&schema, &batches).unwrap(), got);
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));

        // Dropped unclosed: the old file stays as it was, no temporary file is left.
        let before = std::fs::read(&path).unwrap();
        let mut writer = ParquetWriter::create(&path, schema.clone(), options).unwrap();
        writer.write(&batches[0]).unwrap();
        drop(writer);
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
    assert_eq!(dir_entries(&dir.0), ["out1.parquet", "out2.parquet"]);
}
