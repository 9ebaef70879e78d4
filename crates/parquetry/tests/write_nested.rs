//! smoke
mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::sync::Arc;
use arrow_array::builder::*;
use arrow_array::{ArrayRef, RecordBatch};
use parquetry::write::WriteOptions;
use read_compare::{diff_tables, pyarrow_tables, Table};

#[test]
fn smoke() {
    let mut b = ListBuilder::new(Int32Builder::new());
    b.append_value([Some(1), None, Some(2)]);
    b.append_value([]);
    b.append_null();
    b.append_value([Some(3)]);
    let l: ArrayRef = Arc::new(b.finish());
    let mut m = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    m.keys().append_value("a"); m.values().append_value(1); m.append(true).unwrap();
    m.append(false).unwrap();
    m.append(true).unwrap();
    m.keys().append_value("b"); m.values().append_null(); m.keys().append_value("c"); m.values().append_value(3); m.append(true).unwrap();
    let m: ArrayRef = Arc::new(m.finish());
    let mut ll = ListBuilder::new(ListBuilder::new(StringBuilder::new()));
    ll.values().values().append_value("x"); ll.values().append(true); ll.values().append(false); ll.values().append(true); ll.append(true);
    ll.append(false);
    ll.values().values().append_value("y"); ll.values().values().append_null(); ll.values().append(true); ll.append(true);
    ll.append(true);
    let ll: ArrayRef = Arc::new(ll.finish());
    let batch = RecordBatch::try_from_iter([("l", l), ("m", m), ("ll", ll)]).unwrap();
    let dir = std::path::PathBuf::from("/tmp/nw");
    let path = dir.join("smoke.parquet");
    write_helpers::write_parquet(&path, &batch.schema(), &[batch.clone()], WriteOptions::default());
    let want = Table::from_batches(&batch.schema(), &[batch]).unwrap();
    let got = pyarrow_tables("smoke", &[path.clone()]);
    let got = got[&path].as_ref().unwrap();
    let d = diff_tables(&want, got);
    assert!(d.is_empty(), "{d:?}");
}
