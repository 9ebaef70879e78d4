//! Output buffers are sized once from the footer: for corpus files that carry
//! `SizeStatistics.unencoded_byte_array_data_bytes`, reading a row group into Utf8/Binary gives
//! a data buffer of exactly that many bytes whose capacity was never outgrown.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_schema::DataType;
use parquetry::format::PhysicalType;
use parquetry::read::{ByteArrayType, ParquetFile, ReadOptions};

#[test]
fn byte_array_buffers_match_size_statistics_without_growing() {
    let mut checked = 0;
    for row in common::manifest() {
        if row.readable_by_pyarrow != "yes" || row.nested != "no" {
            continue;
        }
        let path = common::corpus_dir().join(&row.path);
        let file = ParquetFile::open(&path).unwrap();
        let meta = file.metadata().clone();
        let schema = file.schema_descriptor().clone();
        for (g, rg) in meta.row_groups.iter().enumerate() {
            let options = ReadOptions::default()
                .with_row_groups([g])
                .with_batch_size(usize::MAX)
                .with_byte_array_type(ByteArrayType::Regular);
            let mut batches = None;
            for (c, chunk) in rg.columns.iter().enumerate() {
                let Some(md) = &chunk.meta_data else { continue };
                let Some(exact) = md.size_statistics.as_ref().and_then(|s| s.unencoded_byte_array_data_bytes) else {
                    continue;
                };
                if md.physical_type != PhysicalType::BYTE_ARRAY {
                    continue;
                }
                let batch = batches.get_or_insert_with(|| common::read_all(&file, &options).unwrap().remove(0)).clone();
                let array = batch.column(c);
                let (len, capacity) = match array.data_type() {
                    DataType::Utf8 => {
                        let a = array.as_string::<i32>();
                        (a.values().len(), a.values().capacity())
                    }
                    DataType::Binary => {
                        let a = array.as_binary::<i32>();
                        (a.values().len(), a.values().capacity())
                    }
                    _ => continue, // decimals and other non-string byte arrays
                };
                let name = &schema.columns[c].path;
                assert_eq!(len as i64, exact, "{} row group {g} column {name:?}", row.path);
                assert_eq!(capacity, len, "{} row group {g} column {name:?}: grew", row.path);
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} column chunks with SizeStatistics were checked");
}
