//! Statistics and the page index of files written by parquetry, checked in
//! tests/support/statistics_compare.py against two independent sources:
//!
//! - **pyarrow** writes the same table (from an Arrow IPC file of the input) with the same
//!   row group size and `write_statistics=True`; every row group's and column's `null_count`,
//!   `has_min_max`, `min` and `max` (raw, as stored) must equal pyarrow's. Where parquetry
//!   truncates (byte arrays over 64 bytes by default; pyarrow never truncates), the expected
//!   bound is pyarrow's value truncated by the spec's rule.
//! - **the data itself**: the footer statistics and every page's ColumnIndex entry (min, max,
//!   null count, null page, boundary order) against the values of the rows the OffsetIndex
//!   says the page holds; the OffsetIndex against the page headers in the file (both decoded
//!   by a small Thrift reader in Python, not by parquetry); and duckdb's `parquet_metadata()`
//!   (null counts, page offsets, exactness of min/max, page counts by encoding) against them.

mod common;
#[path = "common/write_data.rs"]
mod write_data;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::i256;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquetry::format::Encoding;
use parquetry::write::{DataPageVersion, WriteOptions};
use serde_json::json;
use write_data::{all_types, Rng, Shape};
use write_helpers::{per_type, run_python_json, write_ipc, write_parquet, TempDir};

/// One file to check: the input, the options, and what the checker must know of them.
struct Case {
    name: &'static str,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    options: WriteOptions,
    row_group_rows: usize,
    truncate: Option<usize>,
    /// Whether pyarrow's copy uses dictionary encoding (statistics must not depend on it).
    dictionary: bool,
}

/// What else to check besides statistics and the page index.
#[derive(Clone, Copy, PartialEq)]
enum Also {
    Nothing,
    /// The footer's `encoding_stats` count each page once (against the page headers).
    EncodingStats,
}

fn check(cases: Vec<Case>) {
    check_also(cases, Also::Nothing)
}

fn check_also(cases: Vec<Case>, also: Also) {
    let dir = TempDir::new("write-statistics");
    let mut request = Vec::new();
    for case in cases {
        let ipc = dir.join(&format!("{}.arrow", case.name));
        let parquet = dir.join(&format!("{}.parquet", case.name));
        write_ipc(&ipc, &case.schema, &case.batches);
        let options = case.options.with_row_group_rows(case.row_group_rows);
        write_parquet(&parquet, &case.schema, &case.batches, options);
        request.push(json!({
            "name": case.name,
            "ipc": ipc,
            "parquet": parquet,
            "row_group_rows": case.row_group_rows,
            "truncate": case.truncate,
            "dictionary": case.dictionary,
            "encoding_stats": also == Also::EncodingStats,
        }));
    }
    let answer = run_python_json("statistics_compare.py", &json!({ "cases": request }));
    for note in answer["notes"].as_array().into_iter().flatten() {
        eprintln!("note: {}", note.as_str().unwrap_or_default());
    }
    let mismatches = answer["mismatches"].as_array().expect("mismatches");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.iter().map(|m| m.as_str().unwrap_or_default()).collect::<Vec<_>>().join("\n")
    );
}

/// Small pages (many ColumnIndex entries) and the default 64-byte truncation.
fn paged() -> WriteOptions {
    WriteOptions::default().with_data_page_size(600).with_data_page_row_limit(97)
}

#[test]
fn every_type_matches_pyarrow_and_the_data() {
    if common::pyarrow_missing() {
        return;
    }
    let (schema, batches) = all_types(5, 1500, 4, Shape::default());
    let (s2, b2) = (schema.clone(), batches.clone());
    let (s3, b3) = (schema.clone(), batches.clone());
    let delta = per_type(
        paged().with_data_page_version(DataPageVersion::V2),
        &schema,
        Encoding::DELTA_BINARY_PACKED,
        Encoding::DELTA_BYTE_ARRAY,
        Encoding::BYTE_STREAM_SPLIT,
        Encoding::PLAIN,
    );
    let (nulls_schema, nulls) = all_types(6, 300, 2, Shape { null_percent: 100, distinct: 1, max_binary: 8 });
    check(vec![
        // Dictionary pages (byte-array bounds come from the dictionary values a page names),
        // falling back to PLAIN mid-chunk.
        Case {
            name: "dictionary",
            schema,
            batches,
            options: paged().with_dictionary_page_size_limit(3000),
            row_group_rows: 600,
            truncate: Some(64),
            dictionary: true,
        },
        // No dictionary: bounds folded value by value.
        Case {
            name: "plain",
            schema: s2,
            batches: b2,
            options: paged().with_dictionary(false),
            row_group_rows: 512,
            truncate: Some(64),
            dictionary: false,
        },
        // DELTA and BYTE_STREAM_SPLIT pages, v2.
        Case {
            name: "delta_v2",
            schema: s3,
            batches: b3,
            options: delta,
            row_group_rows: 1000,
            truncate: Some(64),
            dictionary: false,
        },
        // Every value null: null counts only, no min/max, null pages.
        Case {
            name: "all_null",
            schema: nulls_schema,
            batches: nulls,
            options: paged(),
            row_group_rows: 128,
            truncate: Some(64),
            dictionary: true,
        },
    ]);
}

/// Strings and binaries of 65 bytes to 4 KB (pyarrow drops statistics over 4096 bytes, its
/// `max_statistics_size`), written untruncated and with the default truncation.
#[test]
fn long_byte_arrays_untruncated_and_truncated() {
    if common::pyarrow_missing() {
        return;
    }
    let mut rng = Rng::new(77);
    let schema = Arc::new(Schema::new(vec![
        Field::new("text", DataType::Utf8, true),
        Field::new("blob", DataType::Binary, true),
        Field::new("view", DataType::Utf8View, true),
    ]));
    let mut batches = Vec::new();
    for _ in 0..3 {
        let n = 200;
        let text = |rng: &mut Rng| -> Option<String> {
            if rng.chance(10) {
                return None;
            }
            // A shared prefix makes the bounds differ only past the truncation point.
            let long = 20 + rng.below(900) as usize;
            Some(format!("{}{}", "p".repeat(60), rng.string(long)))
        };
        let t: StringArray = (0..n).map(|_| text(&mut rng)).collect();
        let v: StringViewArray = (0..n).map(|_| text(&mut rng)).collect();
        let b: BinaryArray = (0..n)
            .map(|_| {
                let mut bytes = vec![0xff; 64];
                bytes.extend(rng.bytes(1, 3000));
                (!rng.chance(10)).then_some(bytes)
            })
            .collect();
        batches.push(RecordBatch::try_new(schema.clone(), vec![Arc::new(t), Arc::new(b), Arc::new(v)]).unwrap());
    }
    check(vec![
        Case {
            name: "untruncated",
            schema: schema.clone(),
            batches: batches.clone(),
            options: paged().with_statistics_truncate_length(None),
            row_group_rows: 250,
            truncate: None,
            dictionary: false,
        },
        Case {
            name: "truncated_64",
            schema: schema.clone(),
            batches: batches.clone(),
            options: paged(),
            row_group_rows: 250,
            truncate: Some(64),
            dictionary: false,
        },
        Case {
            name: "truncated_5",
            schema,
            batches,
            options: paged().with_statistics_truncate_length(Some(5)).with_dictionary(false),
            row_group_rows: 333,
            truncate: Some(5),
            dictionary: false,
        },
    ]);
}

/// Which NaNs the edge table has.
#[derive(Clone, Copy, PartialEq)]
enum Nan {
    /// None (7.0 instead), so that pages of one or two rows never hold only NaN.
    None,
    /// NaN among other values in every row group that has one.
    Mixed,
    /// Also a row group of NaN and nulls only.
    OnlyNanRowGroup,
}

/// Row groups of 4 rows, each an edge of the statistics rules: NaN, -0.0 and +0.0, infinities,
/// unsigned values above the signed maximum, negative decimals, timestamps before 1970,
/// booleans all true or all false, all-null chunks.
fn edge_table(nans: Nan) -> (SchemaRef, Vec<RecordBatch>) {
    let nan = if nans == Nan::None { 7.0 } else { f64::NAN };
    // Row groups of 4 values each (None is null).
    let mut f64s: Vec<Option<f64>> = vec![
        Some(-0.0),
        Some(0.0),
        None,
        Some(-0.0),
        Some(0.0),
        Some(0.0),
        Some(1.5),
        Some(nan),
        Some(-0.0),
        Some(-2.0),
        Some(nan),
        None,
        None,
        None,
        None,
        None,
        Some(f64::INFINITY),
        Some(f64::NEG_INFINITY),
        Some(nan),
        Some(3.0),
        Some(nan),
        Some(-1.0),
        Some(0.0),
        Some(nan),
    ];
    if nans == Nan::OnlyNanRowGroup {
        f64s.extend([Some(nan), Some(nan), None, Some(nan)]);
    }
    let groups = f64s.len() / 4;
    let f32s: Float32Array = f64s.iter().map(|v| v.map(|x| x as f32)).collect();
    let f16_bits = |x: f64| -> u16 {
        match x {
            x if x.is_nan() => 0x7e00,
            x if x == 0.0 && x.is_sign_negative() => 0x8000,
            0.0 => 0,
            1.5 => 0x3e00,
            -2.0 => 0xc000,
            -1.0 => 0xbc00,
            3.0 => 0x4200,
            7.0 => 0x4700,
            x if x == f64::INFINITY => 0x7c00,
            x if x == f64::NEG_INFINITY => 0xfc00,
            _ => unreachable!(),
        }
    };
    type F16 = <Float16Type as ArrowPrimitiveType>::Native;
    let f16s: Float16Array = f64s.iter().map(|v| v.map(|x| F16::from_bits(f16_bits(x)))).collect();
    let f64s = Float64Array::from(f64s);
    let n = groups * 4;
    let cycle = |values: &[Option<i128>]| -> Vec<Option<i128>> { (0..n).map(|i| values[i % values.len()]).collect() };
    let u64s: UInt64Array = cycle(&[
        Some(0),
        Some(u64::MAX as i128),
        Some(1 << 63),
        Some(5),
        None,
        Some((1 << 63) - 1),
        Some(u64::MAX as i128 - 1),
    ])
    .into_iter()
    .map(|v| v.map(|x| x as u64))
    .collect();
    let u32s: UInt32Array = cycle(&[Some(u32::MAX as i128), Some(1 << 31), None, Some(7), Some(0)])
        .into_iter()
        .map(|v| v.map(|x| x as u32))
        .collect();
    let u8s: UInt8Array =
        cycle(&[Some(255), Some(128), Some(127), None, Some(1)]).into_iter().map(|v| v.map(|x| x as u8)).collect();
    let i64s: Int64Array = cycle(&[Some(i64::MIN as i128), Some(i64::MAX as i128), Some(0), Some(-1), None])
        .into_iter()
        .map(|v| v.map(|x| x as i64))
        .collect();
    let dec = |p: u8, s: i8, values: &[Option<i128>]| -> ArrayRef {
        Arc::new(Decimal128Array::from(cycle(values)).with_precision_and_scale(p, s).unwrap())
    };
    let dec_7_2 = dec(7, 2, &[Some(-9_999_999), Some(9_999_999), Some(0), Some(-1), None, Some(1)]);
    let dec_15_3 = dec(15, 3, &[Some(-999_999_999_999_999), Some(42), None, Some(-42), Some(999_999_999_999_999)]);
    let big = 10i128.pow(29);
    let dec_30_5 = dec(30, 5, &[Some(-big), Some(big - 1), Some(-1), None, Some(0), Some(255), Some(-256)]);
    // Within 50 digits (|x| < 10^50): the writer stores the low 21 bytes, as Arrow C++ does.
    let d256: Decimal256Array = cycle(&[Some(-7), Some(1 << 100), None, Some(-(1 << 120)), Some(0)])
        .into_iter()
        .map(|v| v.map(|x| i256::from_i128(x).wrapping_mul(i256::from_i128(10i128.pow(10)))))
        .collect();
    let d256 = d256.with_precision_and_scale(50, 10).unwrap();
    let tz: Option<Arc<str>> = Some("-05:00".into());
    let ts_ns: TimestampNanosecondArray =
        cycle(&[Some(-1), Some(i64::MAX as i128), Some(0), None, Some(-86_400_000_000_000)])
            .into_iter()
            .map(|v| v.map(|x| x as i64))
            .collect();
    let ts_ms: TimestampMillisecondArray =
        cycle(&[Some(-62_135_596_800_000), Some(253_402_300_799_999), None, Some(0)])
            .into_iter()
            .map(|v| v.map(|x| x as i64))
            .collect();
    let ts_ms = ts_ms.with_timezone_opt(tz);
    // Booleans: all true, all false, mixed, null with true, all null, ...
    let bool_groups: [[Option<bool>; 4]; 7] = [
        [Some(true); 4],
        [Some(false); 4],
        [Some(true), Some(false), None, Some(true)],
        [None, Some(true), None, None],
        [None; 4],
        [Some(false), None, Some(false), Some(true)],
        [Some(false), Some(false), None, Some(false)],
    ];
    let bools: BooleanArray = (0..n).map(|i| bool_groups[(i / 4) % 7][i % 4]).collect();
    let texts = ["", "\u{10FFFF}", "a", "a\u{0}", "é", "\u{7f}", "zz"];
    let text: StringArray = (0..n).map(|i| (i % 5 != 3).then(|| texts[i % texts.len()])).collect();
    let blobs: [&[u8]; 5] = [b"", b"\xff\xff", b"\x00", b"\xff", b"\x7f\x80"];
    let blob: BinaryArray = (0..n).map(|i| (i % 6 != 2).then(|| blobs[i % blobs.len()])).collect();
    let all_null_text: StringArray = (0..n).map(|_| None::<&str>).collect();
    let fields = vec![
        Field::new("f64", DataType::Float64, true),
        Field::new("f32", DataType::Float32, true),
        Field::new("f16", DataType::Float16, true),
        Field::new("u64", DataType::UInt64, true),
        Field::new("u32", DataType::UInt32, true),
        Field::new("u8", DataType::UInt8, true),
        Field::new("i64", DataType::Int64, true),
        Field::new("dec_7_2", DataType::Decimal128(7, 2), true),
        Field::new("dec_15_3", DataType::Decimal128(15, 3), true),
        Field::new("dec_30_5", DataType::Decimal128(30, 5), true),
        Field::new("dec256_50_10", DataType::Decimal256(50, 10), true),
        Field::new("ts_ns", DataType::Timestamp(TimeUnit::Nanosecond, None), true),
        Field::new("ts_ms_tz", ts_ms.data_type().clone(), true),
        Field::new("bool", DataType::Boolean, true),
        Field::new("text", DataType::Utf8, true),
        Field::new("blob", DataType::Binary, true),
        Field::new("all_null_text", DataType::Utf8, true),
        Field::new("null", DataType::Null, true),
    ];
    let schema = Arc::new(Schema::new(fields));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(f64s),
        Arc::new(f32s),
        Arc::new(f16s),
        Arc::new(u64s),
        Arc::new(u32s),
        Arc::new(u8s),
        Arc::new(i64s),
        dec_7_2,
        dec_15_3,
        dec_30_5,
        Arc::new(d256),
        Arc::new(ts_ns),
        Arc::new(ts_ms),
        Arc::new(bools),
        Arc::new(text),
        Arc::new(blob),
        Arc::new(all_null_text),
        Arc::new(NullArray::new(n)),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    // Batches that do not line up with the row groups.
    let batches = vec![batch.slice(0, 7), batch.slice(7, n - 7)];
    (schema, batches)
}

fn edge_cases() -> Vec<Case> {
    let (schema, batches) = edge_table(Nan::Mixed);
    let (finite_schema, finite) = edge_table(Nan::None);
    let one_row_pages = WriteOptions::default().with_data_page_row_limit(1);
    let two_row_pages_plain = WriteOptions::default().with_data_page_row_limit(2).with_dictionary(false);
    vec![
        // One page per row group.
        Case {
            name: "edges",
            schema: schema.clone(),
            batches: batches.clone(),
            options: WriteOptions::default(),
            row_group_rows: 4,
            truncate: Some(64),
            dictionary: true,
        },
        Case {
            name: "edges_plain",
            schema,
            batches,
            options: WriteOptions::default().with_dictionary(false),
            row_group_rows: 8,
            truncate: Some(64),
            dictionary: false,
        },
        // A ColumnIndex entry per row or two.
        Case {
            name: "edges_one_row_pages",
            schema: finite_schema.clone(),
            batches: finite.clone(),
            options: one_row_pages,
            row_group_rows: 4,
            truncate: Some(64),
            dictionary: true,
        },
        Case {
            name: "edges_plain_2_row_pages",
            schema: finite_schema,
            batches: finite,
            options: two_row_pages_plain,
            row_group_rows: 8,
            truncate: Some(64),
            dictionary: false,
        },
    ]
}

#[test]
fn edges_nan_zeros_unsigned_decimals_timestamps_booleans_nulls() {
    if common::pyarrow_missing() {
        return;
    }
    check(edge_cases());
}

/// A page whose values are all NaN (not null) must not be a null page in the ColumnIndex: the
/// spec's `null_pages` says "a page contains only null values", and a reader that skips null
/// pages for `x IS NOT NULL` (or `isnan(x)`) would drop these rows. Arrow C++ writes no
/// ColumnIndex for such a chunk.
#[test]
fn page_of_only_nan_values_is_not_a_null_page() {
    if common::pyarrow_missing() {
        return;
    }
    let (schema, batches) = edge_table(Nan::OnlyNanRowGroup);
    let one_row_pages = WriteOptions::default().with_data_page_row_limit(1);
    check(vec![
        Case {
            name: "nan_pages",
            schema: schema.clone(),
            batches: batches.clone(),
            options: WriteOptions::default(),
            row_group_rows: 4,
            truncate: Some(64),
            dictionary: true,
        },
        Case {
            name: "nan_one_row_pages",
            schema,
            batches,
            options: one_row_pages,
            row_group_rows: 4,
            truncate: Some(64),
            dictionary: true,
        },
    ]);
}

/// The footer's `encoding_stats` (what duckdb's `parquet_metadata()` shows) count each page
/// once by its type and the encoding of its values, as parquet-java and Arrow C++ write them
/// (`[DATA_PAGE PLAIN 1]` for one PLAIN page with nulls). Readers use them to tell that every
/// data page of a chunk is dictionary-encoded.
#[test]
fn encoding_stats_count_each_page_once() {
    if common::pyarrow_missing() {
        return;
    }
    let (schema, batches) = all_types(3, 500, 2, Shape::default());
    check_also(
        vec![Case {
            name: "encoding_stats",
            schema,
            batches,
            options: paged(),
            row_group_rows: 300,
            truncate: Some(64),
            dictionary: true,
        }],
        Also::EncodingStats,
    );
    let _ = edge_table(Nan::None);
}
