//! Bad input to the writer gives an `Error` that names the column (or option, or file) and the
//! cause, never a panic: types with no Parquet mapping, batches of another schema, encodings
//! that do not fit a column, impossible options, nulls where the schema has none, sinks that
//! fail, and `write_table` failures, which leave nothing behind. Files completed after a
//! refused batch are read by pyarrow and must hold exactly the accepted rows.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::*;
use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, SchemaRef, TimeUnit};
use parquetry::compress::{Codec, Compression};
use parquetry::format::Encoding;
use parquetry::write::{write_table, ParquetWriter, WriteOptions};
use parquetry::{Error, ErrorKind};
use read_compare::{catch, diff_tables, pyarrow_tables, Table};
use write_helpers::{dir_entries, TempDir};

/// Runs `f` catching panics: a panic is a test failure with its message.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> T {
    catch(f).unwrap_or_else(|p| panic!("{what}: {p}"))
}

/// Asserts `r` is an error of `kind` whose message contains every one of `parts`.
#[track_caller]
fn assert_error<T: std::fmt::Debug>(r: Result<T, Error>, kind: ErrorKind, parts: &[&str]) -> Error {
    let e = r.expect_err("expected an error");
    assert_eq!(e.kind(), kind, "kind of {e}");
    for p in parts {
        assert!(e.message().contains(p), "error {:?} lacks {p:?}", e.message());
    }
    e
}

fn int_batch(schema: &SchemaRef, values: &[i32]) -> RecordBatch {
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Int32 => Arc::new(Int32Array::from(values.to_vec())) as ArrayRef,
            DataType::Utf8 => {
                Arc::new(StringArray::from_iter_values(values.iter().map(|v| format!("v{v}")))) as ArrayRef
            }
            t => panic!("int_batch: {t}"),
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

fn two_columns(nullable: bool) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, nullable),
        Field::new("name", DataType::Utf8, nullable),
    ]))
}

/// Reads `path` with pyarrow and asserts it holds exactly `batches`.
fn assert_pyarrow_reads(path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let tag = format!("write-errors-{}", CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let want = Table::from_batches(schema, batches).unwrap();
    let tables = pyarrow_tables(&tag, &[path.to_path_buf()]);
    let got = tables[path].as_ref().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let diffs = diff_tables(&want, got);
    assert!(diffs.is_empty(), "{}:\n{}", path.display(), diffs.join("\n"));
}

#[test]
fn arrow_types_without_a_mapping_name_the_column() {
    let list = DataType::List(Arc::new(Field::new("item", DataType::Int32, true)));
    let cases: Vec<(Field, Vec<&str>)> = vec![
        (Field::new("iv", DataType::Interval(IntervalUnit::MonthDayNano), true), vec!["'iv'", "Interval"]),
        (Field::new("iv_ym", DataType::Interval(IntervalUnit::YearMonth), true), vec!["'iv_ym'", "Interval"]),
        // Nested types are written (tests/write_nested.rs), except these.
        (
            Field::new("lv", DataType::ListView(Arc::new(Field::new("item", DataType::Int32, true))), true),
            vec!["'lv'", "no Parquet mapping"],
        ),
        (Field::new("s0", DataType::Struct(Fields::empty()), true), vec!["'s0'", "struct without fields"]),
        (
            Field::new("d_of_list", DataType::Dictionary(Box::new(DataType::Int32), Box::new(list)), true),
            vec!["'d_of_list'", "no Parquet mapping"],
        ),
        (
            Field::new(
                "dd",
                DataType::Dictionary(
                    Box::new(DataType::Int8),
                    Box::new(DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8))),
                ),
                true,
            ),
            vec!["'dd'", "no Parquet mapping"],
        ),
        (
            Field::new("u", DataType::Union(arrow_schema::UnionFields::empty(), arrow_schema::UnionMode::Sparse), true),
            vec!["'u'", "no Parquet mapping"],
        ),
    ];
    for (field, parts) in cases {
        let name = field.name().clone();
        // A good column first: the bad one is named, not the first.
        let schema = Arc::new(Schema::new(vec![Field::new("ok", DataType::Int32, true), field]));
        let r = no_panic(&name, || ParquetWriter::try_new(Vec::new(), schema, WriteOptions::default()).map(|_| ()));
        assert_error(r, ErrorKind::Unsupported, &parts);
    }
}

#[test]
fn a_batch_of_another_schema_is_refused_and_the_writer_goes_on() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("write-errors-schema");
    let path = dir.join("out.parquet");
    let schema = two_columns(true);
    let mut w =
        ParquetWriter::try_new(std::fs::File::create(&path).unwrap(), schema.clone(), WriteOptions::default()).unwrap();
    let good = int_batch(&schema, &[1, 2, 3]);
    w.write(&good).unwrap();
    // Another type for 'name'.
    let other_type =
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, true), Field::new("name", DataType::Int32, true)]));
    let e = assert_error(
        no_panic("type", || w.write(&int_batch(&other_type, &[4]))),
        ErrorKind::InvalidArgument,
        &["'name'"],
    );
    assert!(e.message().contains("Int32") && e.message().contains("Utf8"), "{e}");
    // Another name.
    let renamed =
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, true), Field::new("label", DataType::Utf8, true)]));
    assert_error(
        no_panic("name", || w.write(&int_batch(&renamed, &[5]))),
        ErrorKind::InvalidArgument,
        &["'label'", "'name'"],
    );
    // Fewer columns.
    let one = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, true)]));
    assert_error(
        no_panic("count", || w.write(&int_batch(&one, &[6]))),
        ErrorKind::InvalidArgument,
        &["1 columns", "2"],
    );
    // Refused batches left nothing behind: the file holds the good batches only.
    let more = int_batch(&schema, &[7, 8]);
    w.write(&more).unwrap();
    w.close().unwrap();
    assert_pyarrow_reads(&path, &schema, &[good, more]);
}

#[test]
fn encodings_that_do_not_fit_the_column_type_are_refused_at_try_new() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int32, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("f", DataType::Float64, true),
    ]));
    let cases: Vec<(&str, Encoding, Vec<&str>)> = vec![
        ("s", Encoding::DELTA_BINARY_PACKED, vec!["'s'", "DELTA_BINARY_PACKED", "BYTE_ARRAY"]),
        ("n", Encoding::DELTA_LENGTH_BYTE_ARRAY, vec!["'n'", "DELTA_LENGTH_BYTE_ARRAY", "INT32"]),
        ("n", Encoding::DELTA_BYTE_ARRAY, vec!["'n'", "DELTA_BYTE_ARRAY", "INT32"]),
        ("f", Encoding::DELTA_BINARY_PACKED, vec!["'f'", "DELTA_BINARY_PACKED", "DOUBLE"]),
        ("s", Encoding::BYTE_STREAM_SPLIT, vec!["'s'", "BYTE_STREAM_SPLIT", "BYTE_ARRAY"]),
        ("b", Encoding::BYTE_STREAM_SPLIT, vec!["'b'", "BYTE_STREAM_SPLIT", "BOOLEAN"]),
        ("n", Encoding::RLE, vec!["'n'", "RLE", "INT32"]),
        ("n", Encoding::BIT_PACKED, vec!["'n'", "BIT_PACKED"]),
    ];
    for (column, encoding, parts) in cases {
        let options = WriteOptions::default().with_column_encoding(column, encoding);
        let r = no_panic(column, || ParquetWriter::try_new(Vec::new(), schema.clone(), options).map(|_| ()));
        assert_error(r, ErrorKind::InvalidArgument, &parts);
    }
    // The file-wide setting names the first column that cannot take it.
    let r = ParquetWriter::try_new(
        Vec::new(),
        schema.clone(),
        WriteOptions::default().with_encoding(Encoding::DELTA_LENGTH_BYTE_ARRAY),
    );
    assert_error(r.map(|_| ()), ErrorKind::InvalidArgument, &["'n'", "DELTA_LENGTH_BYTE_ARRAY"]);
}

#[test]
fn impossible_options_are_refused() {
    let schema = two_columns(true);
    let cases: Vec<(WriteOptions, &str)> = vec![
        (WriteOptions::default().with_data_page_size(0), "page size"),
        (WriteOptions::default().with_data_page_row_limit(0), "row limit"),
        (WriteOptions::default().with_row_group_rows(0), "row group"),
        (WriteOptions::default().with_row_group_bytes(0), "row group"),
        (WriteOptions::default().with_statistics_truncate_length(Some(0)), "0 bytes"),
        (WriteOptions::default().with_column_dictionary("nope", false), "'nope'"),
        (WriteOptions::default().with_column_encoding("Name", Encoding::PLAIN), "'Name'"),
        (WriteOptions::default().with_column_compression("id.x", Codec::Zstd), "'id.x'"),
    ];
    for (options, part) in cases {
        let r = no_panic(part, || ParquetWriter::try_new(Vec::new(), schema.clone(), options).map(|_| ()));
        assert_error(r, ErrorKind::InvalidArgument, &[part]);
    }
}

#[test]
fn out_of_range_codec_levels_are_refused_or_clamped_without_panic() {
    if common::pyarrow_missing() {
        return;
    }
    // A level outside the codec's range must be an error or a working file, never a panic.
    let dir = TempDir::new("write-errors-levels");
    let schema = two_columns(true);
    let batch = int_batch(&schema, &[1, 2, 3]);
    let mut written = Vec::new();
    for (codec, level) in [
        (Codec::Zstd, 99),
        (Codec::Zstd, -200_000),
        (Codec::Gzip, 10),
        (Codec::Gzip, -5),
        (Codec::Brotli, 12),
        (Codec::Brotli, -1),
    ] {
        let path = dir.join(&format!("{}-{level}.parquet", codec.name()));
        let result = no_panic(codec.name(), || -> Result<(), Error> {
            let options = WriteOptions::default().with_compression(Compression::new(codec, Some(level)));
            let mut w = ParquetWriter::try_new(std::fs::File::create(&path).unwrap(), schema.clone(), options)?;
            w.write(&batch)?;
            w.close().map(|_| ())
        });
        match result {
            Ok(()) => written.push(path),
            Err(e) => {
                assert!(e.message().contains(codec.name()) || e.message().to_lowercase().contains("level"), "{e}")
            }
        }
    }
    for path in &written {
        assert_pyarrow_reads(path, &schema, std::slice::from_ref(&batch));
    }
}

#[test]
fn nulls_in_a_non_nullable_column_name_it() {
    let schema = two_columns(false);
    let mut w = ParquetWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
    // The batch's own schema allows nulls (RecordBatch checks nullability against its own).
    let loose = two_columns(true);
    let batch = RecordBatch::try_new(
        loose,
        vec![Arc::new(Int32Array::from(vec![Some(1), Some(2)])), Arc::new(StringArray::from(vec![Some("a"), None]))],
    )
    .unwrap();
    assert_error(
        no_panic("nulls", || w.write(&batch)),
        ErrorKind::InvalidArgument,
        &["'name'", "not nullable", "null"],
    );
    // A dictionary whose keys are valid but point at a null value is null too.
    let dict_schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        false,
    )]));
    let mut w = ParquetWriter::try_new(Vec::new(), dict_schema, WriteOptions::default()).unwrap();
    let values: ArrayRef = Arc::new(StringArray::from(vec![Some("x"), None]));
    let d = DictionaryArray::<Int32Type>::try_new(Int32Array::from(vec![0, 1, 0]), values).unwrap();
    let loose = Arc::new(Schema::new(vec![Field::new("d", d.data_type().clone(), true)]));
    let batch = RecordBatch::try_new(loose, vec![Arc::new(d)]).unwrap();
    assert_error(
        no_panic("dictionary nulls", || w.write(&batch)),
        ErrorKind::InvalidArgument,
        &["'d'", "not nullable"],
    );
}

#[test]
fn a_value_that_overflows_its_stored_unit_names_the_column() {
    // Timestamp(Second) is stored as milliseconds: i64::MAX seconds cannot be.
    let schema = Arc::new(Schema::new(vec![Field::new("t", DataType::Timestamp(TimeUnit::Second, None), true)]));
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(TimestampSecondArray::from(vec![Some(1), Some(i64::MAX)]))])
            .unwrap();
    let mut w = ParquetWriter::try_new(Vec::new(), schema, WriteOptions::default()).unwrap();
    assert_error(no_panic("overflow", || w.write(&batch)), ErrorKind::InvalidArgument, &["'t'", "overflows"]);
}

#[test]
fn decimals_parquet_cannot_hold_are_refused_and_the_rest_read_back_as_pyarrow_reads() {
    if common::pyarrow_missing() {
        return;
    }
    // A scale outside 0..=precision: Arrow allows it, Parquet's DECIMAL does not.
    for t in [DataType::Decimal128(1, 2), DataType::Decimal128(5, -2)] {
        let schema = Arc::new(Schema::new(vec![Field::new("d", t.clone(), true)]));
        let r = no_panic("scale", || ParquetWriter::try_new(Vec::new(), schema, WriteOptions::default()));
        assert_error(r.map(|_| ()), ErrorKind::Unsupported, &["'d'", "scale"]);
    }
    // Values past what the precision's storage holds (INT32, INT64, 9-byte FIXED_LEN_BYTE_ARRAY):
    // refused, not written as the low bytes. The largest and smallest that fit are kept.
    let dir = TempDir::new("write-errors-decimal");
    for (precision, fits, past) in [
        (3u8, i32::MAX as i128, i32::MAX as i128 + 1),
        (12, i64::MIN as i128, i64::MIN as i128 - 1),
        (20, -(1i128 << 71), (1i128 << 71)),
    ] {
        let t = DataType::Decimal128(precision, 0);
        let schema = Arc::new(Schema::new(vec![Field::new("d", t.clone(), true)]));
        let bad = Decimal128Array::from(vec![Some(1), None, Some(past)]).with_data_type(t.clone());
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(bad)]).unwrap();
        let mut w = ParquetWriter::try_new(Vec::new(), schema.clone(), WriteOptions::default()).unwrap();
        assert_error(no_panic("decimal", || w.write(&batch)), ErrorKind::InvalidArgument, &["'d'", "decimal"]);
        let good = Decimal128Array::from(vec![Some(fits), None, Some(-1), Some(fits / 3)]).with_data_type(t);
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(good)]).unwrap();
        let path = dir.0.join(format!("d{precision}.parquet"));
        let mut w =
            ParquetWriter::try_new(std::fs::File::create(&path).unwrap(), schema.clone(), WriteOptions::default())
                .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        assert_pyarrow_reads(&path, &schema, std::slice::from_ref(&batch));
    }
}

/// A sink that accepts `limit` bytes, then fails every write (and flush, if asked).
struct FailingSink {
    written: Vec<u8>,
    limit: usize,
    fail_flush: bool,
    /// Writes at most this many bytes per call (short writes are legal).
    chunk: usize,
}

impl FailingSink {
    fn new(limit: usize) -> Self {
        FailingSink { written: Vec::new(), limit, fail_flush: false, chunk: usize::MAX }
    }
}

impl Write for FailingSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written.len() >= self.limit {
            return Err(io::Error::other("disk full (test sink)"));
        }
        let n = buf.len().min(self.limit - self.written.len()).min(self.chunk);
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.fail_flush {
            Err(io::Error::other("flush failed (test sink)"))
        } else {
            Ok(())
        }
    }
}

fn big_batch(schema: &SchemaRef, rows: i32) -> RecordBatch {
    int_batch(schema, &(0..rows).collect::<Vec<_>>())
}

#[test]
fn a_failing_sink_gives_io_errors_and_the_writer_refuses_more() {
    let schema = two_columns(true);
    let options = WriteOptions::default().with_row_group_rows(1000);
    // Fails inside the first row group's pages (the magic fits).
    let mut w = ParquetWriter::try_new(FailingSink::new(100), schema.clone(), options.clone()).unwrap();
    let e = assert_error(no_panic("write", || w.write(&big_batch(&schema, 2500))), ErrorKind::Io, &["disk full"]);
    assert!(e.message().contains("offset"), "where: {e}");
    let later = no_panic("later write", || w.write(&big_batch(&schema, 10)));
    assert_error(later, ErrorKind::InvalidArgument, &["failed earlier", "disk full"]);
    assert_error(no_panic("flush", || w.flush()), ErrorKind::InvalidArgument, &["failed earlier"]);
    assert_error(no_panic("close", || w.close()), ErrorKind::InvalidArgument, &["failed earlier"]);

    // Fails in the footer: write succeeds (the row group is buffered), close fails.
    let mut w = ParquetWriter::try_new(FailingSink::new(12_000), schema.clone(), options.clone()).unwrap();
    w.write(&big_batch(&schema, 800)).unwrap();
    assert_error(no_panic("close", || w.close()), ErrorKind::Io, &["disk full"]);

    // The magic itself cannot be written.
    let r = no_panic("try_new", || {
        ParquetWriter::try_new(FailingSink::new(0), schema.clone(), options.clone()).map(|_| ())
    });
    assert_error(r, ErrorKind::Io, &["disk full"]);

    // The final flush fails.
    let mut sink = FailingSink::new(usize::MAX);
    sink.fail_flush = true;
    let mut w = ParquetWriter::try_new(sink, schema.clone(), options).unwrap();
    w.write(&big_batch(&schema, 10)).unwrap();
    assert_error(no_panic("close", || w.close()), ErrorKind::Io, &["flush failed"]);
}

#[test]
fn short_writes_still_make_a_whole_file() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("write-errors-short");
    let schema = two_columns(true);
    let mut sink = FailingSink::new(usize::MAX);
    sink.chunk = 7;
    let batches = [big_batch(&schema, 3000), big_batch(&schema, 5)];
    let mut w =
        ParquetWriter::try_new(sink, schema.clone(), WriteOptions::default().with_row_group_rows(1000)).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    let (sink, _) = w.into_inner().unwrap();
    let path = dir.join("short.parquet");
    std::fs::write(&path, &sink.written).unwrap();
    assert_pyarrow_reads(&path, &schema, &batches);
}

#[test]
fn write_table_into_a_missing_directory_fails_cleanly() {
    let dir = TempDir::new("write-errors-missing");
    let path = dir.join("no/such/dir/out.parquet");
    let schema = two_columns(true);
    let batch = int_batch(&schema, &[1]);
    let r = no_panic("write_table", || write_table(&path, schema.clone(), [&batch], WriteOptions::default()));
    assert_error(r, ErrorKind::Io, &["no/such/dir"]);
    assert!(dir_entries(&dir.0).is_empty(), "{:?}", dir_entries(&dir.0));
}

#[test]
fn write_table_that_fails_midway_leaves_nothing_behind() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("write-errors-midway");
    let schema = two_columns(false);
    let good = big_batch(&schema, 3000);
    let loose = two_columns(true);
    let with_nulls = RecordBatch::try_new(
        loose,
        vec![Arc::new(Int32Array::from(vec![Some(1), None])), Arc::new(StringArray::from(vec!["a", "b"]))],
    )
    .unwrap();
    let other_schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let other = RecordBatch::try_new(other_schema, vec![Arc::new(Int64Array::from(vec![1]))]).unwrap();
    let options = WriteOptions::default().with_row_group_rows(1000);

    // A new path: no file, no temporary file.
    let path = dir.join("new.parquet");
    for (bad, parts) in [(&with_nulls, vec!["'id'", "not nullable"]), (&other, vec!["1 columns"])] {
        let r = no_panic("write_table", || write_table(&path, schema.clone(), [&good, bad, &good], options.clone()));
        assert_error(r, ErrorKind::InvalidArgument, &parts);
        assert!(dir_entries(&dir.0).is_empty(), "left behind: {:?}", dir_entries(&dir.0));
    }

    // An existing file keeps its content.
    let existing = dir.join("existing.parquet");
    write_table(&existing, schema.clone(), [&good], options.clone()).unwrap();
    let before = std::fs::read(&existing).unwrap();
    let r = no_panic("overwrite", || write_table(&existing, schema.clone(), [&good, &with_nulls], options.clone()));
    assert_error(r, ErrorKind::InvalidArgument, &["not nullable"]);
    assert_eq!(std::fs::read(&existing).unwrap(), before, "the existing file changed");
    assert_eq!(dir_entries(&dir.0), vec!["existing.parquet".to_owned()]);

    // A path that is a directory: an error, and no temporary file beside it.
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let r = no_panic("directory", || write_table(&sub, schema.clone(), [&good], options.clone()));
    assert_error(r, ErrorKind::Io, &["sub"]);
    assert_eq!(dir_entries(&dir.0), vec!["existing.parquet".to_owned(), "sub".to_owned()]);
    assert!(dir_entries(&sub).is_empty());

    // And a success after the failures is a file pyarrow reads.
    let ok = dir.join("ok.parquet");
    write_table(&ok, schema.clone(), [&good, &good], options).unwrap();
    assert_pyarrow_reads(&ok, &schema, &[good.clone(), good]);
}

/// Writes one column with `write_table`: a clean error naming the column, or a file pyarrow
/// reads to the input (or to `want`, where pyarrow reads the type as another, as it does its
/// own files).
fn writes_or_fails_cleanly(dir: &TempDir, name: &str, field: Field, array: ArrayRef, want: Option<ArrayRef>) {
    let schema = Arc::new(Schema::new(vec![field.clone()]));
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    let path = dir.join(&format!("{name}.parquet"));
    let r = no_panic(name, || write_table(&path, schema.clone(), [&batch], WriteOptions::default()));
    match r {
        Ok(_) => match want {
            Some(want) => {
                let schema = Arc::new(Schema::new(vec![field.with_data_type(want.data_type().clone())]));
                let batch = RecordBatch::try_new(schema.clone(), vec![want]).unwrap();
                assert_pyarrow_reads(&path, &schema, &[batch])
            }
            None => assert_pyarrow_reads(&path, &schema, &[batch]),
        },
        Err(e) => assert!(e.message().contains(&format!("'{}'", schema.field(0).name())), "{name}: {e}"),
    }
}

#[test]
fn unusual_but_legal_columns_write_or_fail_cleanly() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("write-errors-unusual");
    // An empty dictionary, every key null.
    let empty_dict = DictionaryArray::<Int32Type>::try_new(
        Int32Array::from(vec![None, None, None]),
        Arc::new(StringArray::from(Vec::<&str>::new())),
    )
    .unwrap();
    writes_or_fails_cleanly(
        &dir,
        "empty_dictionary",
        Field::new("d", empty_dict.data_type().clone(), true),
        Arc::new(empty_dict),
        None,
    );
    // Seconds of a day, stored as milliseconds: pyarrow reads them as milliseconds (its own
    // files too).
    let t = Time32SecondArray::from(vec![Some(0), Some(86_399), None]);
    let ms = Time32MillisecondArray::from(vec![Some(0), Some(86_399_000), None]);
    writes_or_fails_cleanly(
        &dir,
        "time32_seconds",
        Field::new("t", DataType::Time32(TimeUnit::Second), true),
        Arc::new(t),
        Some(Arc::new(ms)),
    );
    // A dictionary of integers (values gathered, not interned as bytes); pyarrow restores
    // dictionaries of strings and binaries only, so it reads the values.
    let d = DictionaryArray::<Int32Type>::try_new(
        Int32Array::from(vec![Some(1), None, Some(0), Some(1)]),
        Arc::new(Int64Array::from(vec![-5, i64::MAX])),
    )
    .unwrap();
    writes_or_fails_cleanly(
        &dir,
        "dictionary_of_ints",
        Field::new("di", d.data_type().clone(), true),
        Arc::new(d),
        Some(Arc::new(Int64Array::from(vec![Some(i64::MAX), None, Some(-5), Some(i64::MAX)]))),
    );
}

/// pyarrow refuses to write `fixed_size_binary(0)` ("Invalid FIXED_LEN_BYTE_ARRAY length: 0")
/// and to open a file that has one; parquetry writes such a file.
#[test]
fn fixed_size_binary_of_width_zero_is_refused_or_readable() {
    let dir = TempDir::new("write-errors-fixed0");
    let array =
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(vec![Some(vec![]), None, Some(vec![])].into_iter(), 0)
            .unwrap();
    writes_or_fails_cleanly(&dir, "fixed0", Field::new("f", DataType::FixedSizeBinary(0), true), Arc::new(array), None);
}

/// A value longer than a BYTE_ARRAY value can be (2^31 - 1 bytes, as its 32-bit length is read
/// signed), in large offsets, a view or a dictionary, is refused with the column's name. The
/// 2 GiB buffer is zeroed lazily by the kernel and never read, so the test costs no memory.
#[test]
fn a_value_longer_than_a_byte_array_can_hold_names_the_column() {
    let len = 1usize << 31;
    let big = || arrow_buffer::Buffer::from_vec(vec![0u8; len + 1]);
    let offsets = arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1 + len as i64].into());
    let large: ArrayRef = Arc::new(LargeBinaryArray::new(offsets, big(), None));
    let mut view = arrow_array::builder::BinaryViewBuilder::new();
    let block = view.append_block(big());
    view.try_append_view(block, 0, len as u32).unwrap();
    let view: ArrayRef = Arc::new(view.finish());
    let dict: ArrayRef = Arc::new(DictionaryArray::new(Int32Array::from(vec![1, 0]), Arc::clone(&large)));
    for (name, array) in [("large", large), ("view", view), ("dict", dict)] {
        let schema = Arc::new(Schema::new(vec![Field::new(name, array.data_type().clone(), false)]));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![array]).unwrap();
        for dictionary in [false, true] {
            let options = WriteOptions::default().with_dictionary(dictionary);
            let mut writer = ParquetWriter::try_new(Vec::new(), Arc::clone(&schema), options).unwrap();
            let result = no_panic(name, || writer.write(&batch));
            assert_error(result, ErrorKind::InvalidArgument, &[name, "2147483648 bytes", "BYTE_ARRAY"]);
        }
    }
}
