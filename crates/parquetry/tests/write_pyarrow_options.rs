//! The writer options that make the file pyarrow writes with the matching `write_table`
//! argument: INT96 timestamps (`use_deprecated_int96_timestamps`), list elements keeping their
//! Arrow name (`use_compliant_nested_type=False`), TIME adjusted to UTC
//! (`write_time_adjusted_to_utc`), format version 1 (`version='1.0'`), a row group of no rows
//! per empty table, and the JSON and UUID logical types of Arrow's `arrow.json` and
//! `arrow.uuid` extensions (`store_schema=False`).
//!
//! Each case writes one input with parquetry, and pyarrow writes the same input (an Arrow IPC
//! file) with its argument; tests/support/pyarrow_options_compare.py describes both footers as
//! `pyarrow.parquet.read_metadata` sees them (format version, Parquet schema, each leaf's
//! physical, logical and converted types, rows, values and statistics per chunk) and reads
//! both with pyarrow. The descriptions must be equal and so must the values read.

mod common;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, FixedSizeBinaryArray, Int32Array, LargeStringArray, PrimitiveArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquetry::write::{ParquetWriter, WriteOptions};
use serde_json::{json, Value};
use write_helpers::{run_python_json, write_ipc, TempDir};

/// One file to compare: its name, input, parquetry's options, pyarrow's `write_table`
/// arguments and `read_table` arguments, and how many empty tables to write instead of the
/// input (0: the input).
struct Case {
    name: &'static str,
    batch: RecordBatch,
    ours: WriteOptions,
    write: Value,
    read: Value,
    empty_writes: usize,
}

fn batch(columns: Vec<(Field, ArrayRef)>) -> RecordBatch {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn timestamps<T: ArrowTimestampType>(values: Vec<Option<i64>>, tz: Option<&str>) -> (Field, ArrayRef) {
    let a = values.into_iter().collect::<PrimitiveArray<T>>().with_timezone_opt(tz.map(Arc::<str>::from));
    let name = format!("ts_{:?}{}", T::UNIT, if tz.is_some() { "_utc" } else { "" });
    (Field::new(name, a.data_type().clone(), true), Arc::new(a))
}

fn int96_case() -> Case {
    // Instants before and after 1970 with sub-second parts, within the nanosecond range.
    let s = vec![Some(0), Some(-1), Some(1_262_304_000), None, Some(-86_401), Some(4_102_444_799)];
    let ms = vec![Some(1), Some(-1), Some(1_262_304_000_123), None, Some(-86_400_001), Some(0)];
    let us = vec![Some(1), Some(-999_999), Some(1_262_304_000_123_456), Some(7), None, Some(86_400_000_000)];
    let ns = vec![Some(1), Some(-1), Some(1_262_304_000_123_456_789), None, Some(i64::MAX), Some(i64::MIN + 1)];
    let mut list = ListBuilder::new(arrow_array::builder::TimestampMicrosecondBuilder::new());
    for v in [vec![Some(1), None], vec![], vec![Some(-86_400_000_001)]] {
        list.values().extend(v);
        list.append(true);
    }
    list.append(false);
    list.append(true);
    list.values().append_value(5);
    list.append(true);
    let list: ArrayRef = Arc::new(list.finish());
    let b = batch(vec![
        timestamps::<TimestampSecondType>(s, None),
        timestamps::<TimestampMillisecondType>(ms, None),
        timestamps::<TimestampMicrosecondType>(us, Some("Europe/Paris")),
        timestamps::<TimestampNanosecondType>(ns, Some("UTC")),
        (Field::new("ts_list", list.data_type().clone(), true), list),
        (Field::new("i", DataType::Int32, true), Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5, 6]))),
    ]);
    Case {
        name: "int96",
        batch: b,
        ours: WriteOptions::new().with_int96_timestamps(true),
        write: json!({"use_deprecated_int96_timestamps": true}),
        read: json!({}),
        empty_writes: 0,
    }
}

fn int96_far_case() -> Case {
    // The years 1000 and 3000, past what nanoseconds in an i64 hold (pyarrow's test of
    // ARROW-12096): read in seconds, they must come back as written.
    let s = vec![Some(-30_610_224_000), Some(946_684_800), Some(32_503_680_000), None];
    let ms = vec![Some(-30_610_224_000_001), None, Some(32_503_680_000_999), Some(-1)];
    let b = batch(vec![timestamps::<TimestampSecondType>(s, None), timestamps::<TimestampMillisecondType>(ms, None)]);
    Case {
        name: "int96_far",
        batch: b,
        ours: WriteOptions::new().with_int96_timestamps(true).with_dictionary(false),
        write: json!({"use_deprecated_int96_timestamps": true, "use_dictionary": false}),
        read: json!({"coerce_int96_timestamp_unit": "ms"}),
        empty_writes: 0,
    }
}

fn non_compliant_lists_case() -> Case {
    let mut ints = ListBuilder::new(Int32Builder::new());
    ints.values().append_value(1);
    ints.append(true);
    ints.append(false);
    ints.values().append_null();
    ints.values().append_value(3);
    ints.append(true);
    let ints: ArrayRef = Arc::new(ints.finish());
    // A list of structs named as pandas' lists of dicts come (the element field `item`).
    let inner = StructArray::from(vec![
        (
            Arc::new(Field::new("name", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec!["a", "b", "c"])) as ArrayRef,
        ),
        (Arc::new(Field::new("value", DataType::Int32, true)), Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef),
    ]);
    let item = Arc::new(Field::new("item", inner.data_type().clone(), true));
    let offsets = arrow_buffer::OffsetBuffer::new(vec![0, 2, 2, 3].into());
    let structs: ArrayRef = Arc::new(arrow_array::ListArray::new(item, offsets, Arc::new(inner), None));
    let b = batch(vec![
        (Field::new("ints", ints.data_type().clone(), true), ints),
        (Field::new("structs", structs.data_type().clone(), true), structs),
    ]);
    Case {
        name: "non_compliant_lists",
        batch: b,
        ours: WriteOptions::new().with_compliant_nested_types(false),
        write: json!({"use_compliant_nested_type": false}),
        read: json!({}),
        empty_writes: 0,
    }
}

fn time_utc_case() -> Case {
    let t32s = PrimitiveArray::<Time32SecondType>::from(vec![Some(0), Some(86_399), None]);
    let t32ms = PrimitiveArray::<Time32MillisecondType>::from(vec![Some(0), Some(123), None]);
    let t64us = PrimitiveArray::<Time64MicrosecondType>::from(vec![Some(10_000), None, Some(86_399_999_999)]);
    let t64ns = PrimitiveArray::<Time64NanosecondType>::from(vec![None, Some(1), Some(86_399_999_999_999)]);
    let col = |name: &str, a: ArrayRef| (Field::new(name, a.data_type().clone(), true), a);
    let b = batch(vec![
        col("t32s", Arc::new(t32s)),
        col("t32ms", Arc::new(t32ms)),
        col("t64us", Arc::new(t64us)),
        col("t64ns", Arc::new(t64ns)),
    ]);
    Case {
        name: "time_utc",
        batch: b,
        ours: WriteOptions::new().with_time_adjusted_to_utc(true),
        write: json!({"write_time_adjusted_to_utc": true}),
        read: json!({}),
        empty_writes: 0,
    }
}

fn simple_batch() -> RecordBatch {
    batch(vec![
        (Field::new("i", DataType::Int32, true), Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]))),
        (Field::new("s", DataType::Utf8, false), Arc::new(StringArray::from(vec!["x", "y", "x"]))),
    ])
}

fn empty_row_groups_case() -> Case {
    Case {
        name: "empty_row_groups",
        batch: simple_batch(),
        ours: WriteOptions::new(),
        write: json!({}),
        read: json!({}),
        empty_writes: 3,
    }
}

fn format_version_1_case() -> Case {
    Case {
        name: "format_version_1",
        batch: simple_batch(),
        ours: WriteOptions::new().with_format_version(1),
        write: json!({"version": "1.0"}),
        read: json!({}),
        empty_writes: 0,
    }
}

fn extension(field: Field, name: &str) -> Field {
    let metadata = HashMap::from([
        ("ARROW:extension:name".to_owned(), name.to_owned()),
        ("ARROW:extension:metadata".to_owned(), String::new()),
    ]);
    field.with_metadata(metadata)
}

fn json_uuid_case() -> Case {
    let docs = StringArray::from(vec![Some(r#"{"a": 1}"#), Some(r#"{"b": 2}"#), None]);
    let large = LargeStringArray::from(vec![None, Some("[1, 2]"), Some("null")]);
    let ids = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        [Some(*b"\xe4`\xf9p\x83QGN\xac\x7f\xa4g>K\xa8\xcb"), None, Some([7u8; 16])].into_iter(),
        16,
    )
    .unwrap();
    let b = batch(vec![
        (extension(Field::new("json", DataType::Utf8, true), "arrow.json"), Arc::new(docs)),
        (extension(Field::new("large_json", DataType::LargeUtf8, true), "arrow.json"), Arc::new(large)),
        (extension(Field::new("uuid", DataType::FixedSizeBinary(16), true), "arrow.uuid"), Arc::new(ids)),
    ]);
    Case {
        name: "json_uuid",
        batch: b,
        ours: WriteOptions::new().with_arrow_schema(false),
        write: json!({"store_schema": false}),
        read: json!({}),
        empty_writes: 0,
    }
}

/// Writes `case` with parquetry to `path`.
fn write_ours(case: &Case, path: &Path) {
    let file = std::fs::File::create(path).unwrap();
    let schema: SchemaRef = case.batch.schema();
    let mut w = ParquetWriter::try_new(file, schema, case.ours.clone()).unwrap();
    if case.empty_writes > 0 {
        for _ in 0..case.empty_writes {
            w.write(&case.batch.slice(0, 0)).unwrap();
            w.write_empty_row_group().unwrap();
        }
    } else {
        w.write(&case.batch).unwrap();
    }
    w.close().unwrap();
}

#[test]
fn files_match_what_pyarrow_writes_with_the_same_options() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("pyarrow-options");
    let cases = [
        int96_case(),
        int96_far_case(),
        non_compliant_lists_case(),
        time_utc_case(),
        empty_row_groups_case(),
        format_version_1_case(),
        json_uuid_case(),
    ];
    let mut request = Vec::new();
    for case in &cases {
        let parquet = dir.join(&format!("{}.parquet", case.name));
        let ipc = dir.join(&format!("{}.arrow", case.name));
        write_ours(case, &parquet);
        write_ipc(&ipc, &case.batch.schema(), std::slice::from_ref(&case.batch));
        request.push(json!({
            "name": case.name, "parquet": parquet, "ipc": ipc, "write": case.write, "read": case.read,
            "empty_writes": case.empty_writes,
        }));
    }
    let answer = run_python_json("pyarrow_options_compare.py", &json!({ "cases": request }));
    let mut problems = Vec::new();
    for case in &cases {
        let a = &answer[case.name];
        if a["ours"] != a["pyarrow"] {
            problems.push(format!(
                "{}: the footers differ\n  parquetry: {}\n  pyarrow:   {}",
                case.name, a["ours"], a["pyarrow"]
            ));
        }
        if a["same_values"] != json!(true) {
            problems.push(format!(
                "{}: pyarrow reads other values\n  parquetry's file: {}\n  pyarrow's file:   {}",
                case.name, a["ours_read"], a["pyarrow_read"]
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn int96_refuses_a_day_past_what_it_holds() {
    // Seconds whose Julian day passes i32 are refused, naming the column, not wrapped.
    let a = PrimitiveArray::<TimestampSecondType>::from(vec![i64::MAX]);
    let b = batch(vec![(Field::new("far", a.data_type().clone(), false), Arc::new(a) as ArrayRef)]);
    let options = WriteOptions::new().with_int96_timestamps(true);
    let mut w = ParquetWriter::try_new(Vec::new(), b.schema(), options).unwrap();
    let e = w.write(&b).and_then(|_| w.close().map(|_| ())).unwrap_err().to_string();
    assert!(e.contains("column 'far'") && e.contains("INT96"), "{e}");
}

#[test]
fn format_version_other_than_1_or_2_is_refused() {
    let b = simple_batch();
    for v in [0, 3] {
        let e = ParquetWriter::try_new(Vec::new(), b.schema(), WriteOptions::new().with_format_version(v))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("format version"), "{e}");
    }
}

#[test]
fn int96_reads_back_in_a_coarser_unit_beyond_nanoseconds() {
    // parquetry's reader with ReadOptions::with_int96_unit gives the years 1000 and 3000 back
    // as written (the same file pyarrow reads right in the comparison above).
    use arrow_schema::TimeUnit;
    use parquetry::read::ReadOptions;
    let case = int96_far_case();
    let dir = TempDir::new("int96-unit");
    let path = dir.join("far.parquet");
    write_ours(&case, &path);
    let file = parquetry::read::ParquetFile::open(&path).unwrap();
    let batches: Vec<RecordBatch> =
        common::batches(&file, ReadOptions::default().with_int96_unit(TimeUnit::Millisecond))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let got = &batches[0];
    let want = |i: usize| arrow_cast_ms(case.batch.column(i));
    assert_eq!(got.column(0).as_ref(), want(0).as_ref());
    assert_eq!(got.column(1).as_ref(), want(1).as_ref());
}

/// A timestamp column in milliseconds (seconds scaled; milliseconds as they are).
fn arrow_cast_ms(a: &ArrayRef) -> ArrayRef {
    use arrow_array::cast::AsArray;
    match a.data_type() {
        DataType::Timestamp(arrow_schema::TimeUnit::Second, _) => {
            let s = a.as_primitive::<TimestampSecondType>();
            Arc::new(s.iter().map(|v| v.map(|v| v * 1000)).collect::<PrimitiveArray<TimestampMillisecondType>>())
        }
        _ => a.clone(),
    }
}
