//! Tables of every flat type written by parquetry with many option sets (encodings, codecs,
//! page versions, tiny pages that force dictionary fallback mid-chunk, row-group splits), read
//! back by pyarrow (the independent reader) and by parquetry, each equal to the input.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_data.rs"]
mod write_data;

use std::path::PathBuf;

use arrow_schema::{DataType, Schema};
use parquetry::compress::{Codec, Compression};
use parquetry::format::Encoding;
use parquetry::read::ReadOptions;
use parquetry::write::{DataPageVersion, ParquetWriter, StatisticsLevel, WriteOptions};
use read_compare::{diff_tables, pyarrow_tables, read_parquetry, Table};
use write_data::{all_types, Shape};

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("parquetry-write-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// Sets each column's non-dictionary encoding by its type: `ints` for integer-like columns,
/// `bytes` for BYTE_ARRAY, `floats` for FLOAT/DOUBLE, `fixed` for FIXED_LEN_BYTE_ARRAY.
fn per_type(
    mut o: WriteOptions,
    schema: &Schema,
    ints: Encoding,
    bytes: Encoding,
    floats: Encoding,
    fixed: Encoding,
) -> WriteOptions {
    for f in schema.fields() {
        // pyarrow reads a dictionary-typed column only from dictionary or PLAIN pages
        // ("DecodeArrow of DictAccumulator for DeltaLengthByteArrayDecoder" otherwise), so
        // Arrow dictionaries keep the default.
        let t = match f.data_type() {
            DataType::Dictionary(..) => continue,
            t => t,
        };
        let e = match t {
            DataType::Float32 | DataType::Float64 => floats,
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView => bytes,
            DataType::FixedSizeBinary(_) | DataType::Float16 => fixed,
            DataType::Decimal128(p, _) | DataType::Decimal256(p, _) if *p > 18 => fixed,
            DataType::Boolean | DataType::Null => continue,
            _ => ints,
        };
        o = o.with_column_encoding(f.name(), e);
    }
    o
}

fn option_sets(schema: &Schema) -> Vec<(&'static str, WriteOptions)> {
    let e = Encoding::PLAIN;
    vec![
        ("default", WriteOptions::default()),
        (
            "plain_snappy_v2_crc",
            WriteOptions::default()
                .with_dictionary(false)
                .with_compression(Codec::Snappy)
                .with_data_page_version(DataPageVersion::V2)
                .with_crc(true),
        ),
        (
            "tiny_pages_fallback_zstd",
            WriteOptions::default()
                .with_compression(Compression::zstd(3))
                .with_data_page_size(64)
                .with_data_page_row_limit(7)
                .with_dictionary_page_size_limit(100)
                .with_row_group_rows(50)
                .with_threads(2),
        ),
        (
            "delta_gzip",
            per_type(
                WriteOptions::default().with_compression(Codec::Gzip).with_row_group_rows(77).with_threads(2),
                schema,
                Encoding::DELTA_BINARY_PACKED,
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                Encoding::BYTE_STREAM_SPLIT,
                Encoding::DELTA_BYTE_ARRAY,
            ),
        ),
        (
            "delta_byte_array_lz4raw_v2",
            per_type(
                WriteOptions::default()
                    .with_compression(Codec::Lz4Raw)
                    .with_data_page_version(DataPageVersion::V2)
                    .with_data_page_size(1000),
                schema,
                Encoding::DELTA_BINARY_PACKED,
                Encoding::DELTA_BYTE_ARRAY,
                Encoding::BYTE_STREAM_SPLIT,
                Encoding::BYTE_STREAM_SPLIT,
            ),
        ),
        (
            // Pages spill to a scratch file past 4 KiB and are copied back into place.
            "spill_4k_snappy",
            WriteOptions::default()
                .with_compression(Codec::Snappy)
                .with_data_page_size(512)
                .with_max_buffered_bytes(4096)
                .with_row_group_rows(600)
                .with_threads(3),
        ),
        (
            "brotli_no_stats_no_index",
            WriteOptions::default()
                .with_compression(Codec::Brotli)
                .with_statistics(StatisticsLevel::None)
                .with_page_index(false),
        ),
        (
            "lz4_chunk_stats_v2_dictionary",
            per_type(
                WriteOptions::default()
                    .with_compression(Codec::Lz4)
                    .with_statistics(StatisticsLevel::Chunk)
                    .with_data_page_version(DataPageVersion::V2)
                    .with_page_header_statistics(true),
                schema,
                e,
                e,
                e,
                e,
            )
            .with_dictionary(true),
        ),
    ]
}

fn write_file(
    path: &PathBuf,
    schema: &arrow_schema::SchemaRef,
    batches: &[arrow_array::RecordBatch],
    options: WriteOptions,
) {
    let file = std::fs::File::create(path).unwrap();
    let mut w =
        ParquetWriter::try_new(file, schema.clone(), options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for b in batches {
        w.write(b).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    w.close().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn check_all(tag: &str, shape: Shape, rows: usize, batches: usize) {
    let dir = temp_dir(tag);
    let (schema, input) = all_types(7, rows, batches, shape);
    let mut want = Table::from_batches(&schema, &input).unwrap();
    want.columns = write_data::as_read_back(&want.columns);
    let mut paths = Vec::new();
    for (name, options) in option_sets(&schema) {
        let path = dir.0.join(format!("{name}.parquet"));
        write_file(&path, &schema, &input, options);
        paths.push(path);
    }
    assert_read_back(tag, &want, &paths);
}

/// pyarrow and parquetry both read every file of `paths` to `want`.
fn assert_read_back(tag: &str, want: &Table, paths: &[PathBuf]) {
    let mut failures = Vec::new();
    let pyarrow = pyarrow_tables(tag, paths);
    for path in paths {
        match &pyarrow[path] {
            Ok(got) => failures
                .extend(diff_tables(want, got).into_iter().map(|d| format!("{} (pyarrow): {d}", path.display()))),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
        // With CRCs checked where pages have them (every page of the sets that ask for them).
        match read_parquetry(path, &ReadOptions::default().with_verify_crc(true)) {
            Ok(got) => failures
                .extend(diff_tables(want, &got).into_iter().map(|d| format!("{} (parquetry): {d}", path.display()))),
            Err(e) => failures.push(format!("{} (parquetry): {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_type_and_option_set_reads_back_as_written() {
    if common::pyarrow_missing() {
        return;
    }
    check_all("types", Shape::default(), 1000, 3);
}

#[test]
fn all_null_columns_and_long_binaries() {
    if common::pyarrow_missing() {
        return;
    }
    check_all("nulls", Shape { null_percent: 100, distinct: 1, max_binary: 10 }, 300, 2);
    check_all("blobs", Shape { null_percent: 5, distinct: 300, max_binary: 50_000 }, 120, 2);
}

/// Threads change who encodes a column, not what is written: the same file, byte for byte,
/// from 1, 2 and 5 threads (more threads than some schemas have columns).
#[test]
fn threads_write_the_same_bytes() {
    let dir = temp_dir("threads");
    let (schema, input) = all_types(11, 700, 3, Shape::default());
    for (name, options) in option_sets(&schema) {
        let mut files = Vec::new();
        for threads in [1, 2, 5] {
            let path = dir.0.join(format!("{name}_{threads}.parquet"));
            write_file(&path, &schema, &input, options.clone().with_threads(threads));
            files.push(std::fs::read(&path).unwrap());
        }
        assert!(files[0] == files[1] && files[0] == files[2], "{name}: the file differs with threads");
    }
}

/// Row groups closed by whole batches of 20,000 rows: one thread writes such a batch column
/// by column, and a column without a dictionary in the making goes to the file 16,384 rows
/// at a time as its pages come. pyarrow and parquetry read the input back, and two threads
/// (which hold every page until the row group ends) write the same bytes.
#[test]
fn pages_written_as_they_come() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = temp_dir("drain");
    let (schema, input) = all_types(13, 20_000, 3, Shape::default());
    let mut want = Table::from_batches(&schema, &input).unwrap();
    want.columns = write_data::as_read_back(&want.columns);
    let sets = [
        // Uncompressed pages of 64 KiB or more are handed to the chunk as they are, not copied:
        // their CRCs and places must come out the same.
        ("plain", WriteOptions::default().with_dictionary(false).with_row_group_rows(20_000).with_crc(true)),
        (
            "dictionary_fallback_snappy",
            WriteOptions::default()
                .with_compression(Codec::Snappy)
                .with_dictionary_page_size_limit(2_000)
                .with_row_group_rows(20_000),
        ),
        (
            "delta_v2_spill",
            per_type(
                WriteOptions::default()
                    .with_data_page_version(DataPageVersion::V2)
                    .with_max_buffered_bytes(100_000)
                    .with_row_group_rows(30_000)
                    .with_crc(true),
                &schema,
                Encoding::DELTA_BINARY_PACKED,
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                Encoding::BYTE_STREAM_SPLIT,
                Encoding::DELTA_BYTE_ARRAY,
            ),
        ),
    ];
    let mut paths = Vec::new();
    for (name, options) in &sets {
        let one = dir.0.join(format!("{name}.parquet"));
        let two = dir.0.join(format!("{name}_threads.parquet"));
        write_file(&one, &schema, &input, options.clone());
        write_file(&two, &schema, &input, options.clone().with_threads(2));
        assert!(std::fs::read(&one).unwrap() == std::fs::read(&two).unwrap(), "{name}: the file differs with threads");
        paths.push(one);
    }
    assert_read_back("drain", &want, &paths);
}

#[test]
fn zero_rows_write_a_valid_file() {
    if common::pyarrow_missing() {
        return;
    }
    check_all("empty", Shape::default(), 0, 1);
}

/// A `DictionaryArray` column whose dictionary changes between batches of one chunk, and
/// whose first dictionary holds a value twice: each is interned into the chunk's dictionary,
/// whose page must hold every value once. (Taking the first dictionary's values as they are,
/// without hashing them, was tried: pyarrow then reads the column into a dictionary of
/// distinct values with the file's indexes, past its end.) pyarrow and parquetry read it.
#[test]
fn dictionaries_that_change_between_batches() {
    if common::pyarrow_missing() {
        return;
    }
    use std::sync::Arc;

    use arrow_array::types::Int32Type;
    use arrow_array::{ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
    use arrow_schema::Field;

    let dir = temp_dir("dict-change");
    let t = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let schema = Arc::new(Schema::new(vec![Field::new("d", t, true)]));
    let first: ArrayRef = Arc::new(StringArray::from(vec!["b", "a", "b", "long value past eight bytes"]));
    let second: ArrayRef = Arc::new(StringArray::from(vec!["c", "long value past eight bytes", "a", "d"]));
    let batch = |keys: Vec<Option<i32>>, values: &ArrayRef| {
        let keys = Int32Array::from(keys);
        let array = DictionaryArray::<Int32Type>::try_new(keys, values.clone()).unwrap();
        RecordBatch::try_new(schema.clone(), vec![Arc::new(array) as ArrayRef]).unwrap()
    };
    let input = vec![
        batch(vec![Some(0), Some(1), Some(2), None, Some(3), Some(0)], &first),
        batch(vec![Some(3), Some(0), None, Some(1), Some(2), Some(0)], &second),
        batch(vec![Some(2), Some(3), Some(1), Some(1)], &first),
    ];
    let want = Table::from_batches(&schema, &input).unwrap();
    let mut paths = Vec::new();
    for (name, options) in [
        ("default", WriteOptions::default()),
        ("fallback", WriteOptions::default().with_dictionary_page_size_limit(20).with_data_page_row_limit(2)),
        ("plain", WriteOptions::default().with_dictionary(false)),
    ] {
        let path = dir.0.join(format!("{name}.parquet"));
        write_file(&path, &schema, &input, options);
        paths.push(path);
    }
    let pyarrow = pyarrow_tables("dict-change", &paths);
    let mut failures = Vec::new();
    for path in &paths {
        let got = [("pyarrow", pyarrow[path].clone()), ("parquetry", read_parquetry(path, &ReadOptions::default()))];
        for (reader, got) in got {
            match got {
                Ok(got) => failures.extend(
                    diff_tables(&want, &got).into_iter().map(|d| format!("{} ({reader}): {d}", path.display())),
                ),
                Err(e) => failures.push(format!("{} ({reader}): {e}", path.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
