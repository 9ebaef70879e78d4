//! Nested columns written by parquetry: tables of many shapes (lists of every kind, structs,
//! maps, nested in each other, over every kind of leaf, with nulls and empty lists at every
//! level, null lists spanning child values, sliced arrays) written with many option sets and
//! read back by pyarrow to exactly the input; the same files checked from their bytes (pages
//! start at records, v2 `num_rows` and the OffsetIndex count records) and against pyarrow's
//! own statistics and level histograms for the same table; duckdb and polars reading some of
//! them; nested files merged. Bad nested input: tests/write_nested_errors.rs.

mod common;
#[path = "common/nested_data.rs"]
mod nested_data;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_data.rs"]
mod write_data;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, ListArray, RecordBatch};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use nested_data::{diff_named_like, leaf_array, map_type, per_leaf, random_array, NestedShape};
use parquetry::compress::{Codec, Compression};
use parquetry::format::Encoding;
use parquetry::write::{DataPageVersion, StatisticsLevel, WriteOptions};
use read_compare::{pyarrow_tables, Table};
use write_data::Rng;
use write_helpers::{run_python_json, write_ipc, write_parquet, TempDir};

fn list(t: DataType, nullable: bool) -> DataType {
    DataType::List(Arc::new(Field::new("item", t, nullable)))
}

fn field(name: &str, t: DataType, nullable: bool) -> Field {
    Field::new(name, t, nullable)
}

/// The columns of the shapes table: name, type, nullable.
fn shape_fields() -> Vec<Field> {
    let utf8 = DataType::Utf8;
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    vec![
        field("list_int", list(DataType::Int32, true), true),
        field("list_str", list(utf8.clone(), true), true),
        field("list_list_i64", list(list(DataType::Int64, true), true), true),
        field(
            "struct",
            DataType::Struct(Fields::from(vec![field("a", DataType::Int32, true), field("b", utf8.clone(), false)])),
            true,
        ),
        field(
            "list_struct",
            list(
                DataType::Struct(Fields::from(vec![
                    field("x", DataType::Float64, true),
                    field("y", list(utf8.clone(), true), true),
                ])),
                true,
            ),
            true,
        ),
        field(
            "struct_list",
            DataType::Struct(Fields::from(vec![
                field("l", list(DataType::Int32, false), true),
                field("m", map_type(utf8.clone(), DataType::Int64, true), true),
            ])),
            false,
        ),
        field("map_str_int", map_type(utf8.clone(), DataType::Int32, true), true),
        field("map_int_list", map_type(DataType::Int32, list(utf8.clone(), true), true), true),
        field("large_list", DataType::LargeList(Arc::new(field("element", DataType::LargeUtf8, true))), true),
        field("fixed_size_list", DataType::FixedSizeList(Arc::new(field("item", DataType::Float64, true)), 3), true),
        field("list_dict", list(dict.clone(), true), true),
        field("list_view", list(DataType::Utf8View, true), true),
        field("list_binary_view", list(DataType::BinaryView, true), true),
        field("list_binary", list(DataType::LargeBinary, true), true),
        field(
            "deep",
            list(
                DataType::Struct(Fields::from(vec![field(
                    "m",
                    map_type(DataType::Int32, list(DataType::Boolean, true), true),
                    true,
                )])),
                true,
            ),
            true,
        ),
        field("list_decimal", list(DataType::Decimal128(20, 3), true), true),
        field("list_decimal_small", list(DataType::Decimal128(9, 2), true), true),
        field("list_fixed_binary", list(DataType::FixedSizeBinary(5), true), true),
        field("list_f16", list(DataType::Float16, true), true),
        field("list_ts", list(DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), true), true),
        field("list_u64", list(DataType::UInt64, true), true),
        field("list_bool", list(DataType::Boolean, true), true),
        field("required_list", list(DataType::Int32, false), false),
        field(
            "required_struct",
            DataType::Struct(Fields::from(vec![field("a", DataType::Int64, false), field("b", DataType::Utf8, true)])),
            false,
        ),
        field("list_list_list", list(list(list(DataType::Int32, true), false), true), true),
        field("list_null", list(DataType::Null, true), true),
        field(
            "struct_null",
            DataType::Struct(Fields::from(vec![field("n", DataType::Null, true), field("i", DataType::Int8, true)])),
            true,
        ),
    ]
}

/// The shapes table: `batches` batches of `rows` rows from `seed` (some sliced from longer
/// batches), and one hand-made column of edge cases appended as `edge`.
fn shapes(seed: u64, rows: usize, batches: usize, shape: NestedShape) -> (SchemaRef, Vec<RecordBatch>) {
    let mut fields = shape_fields();
    fields.push(field("edge", list(DataType::Int32, true), true));
    let schema = Arc::new(Schema::new(fields));
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for b in 0..batches {
        let extra = if b % 2 == 1 { 3 } else { 0 };
        let n = rows + 2 * extra;
        let mut columns: Vec<ArrayRef> = schema.fields()[..schema.fields().len() - 1]
            .iter()
            .map(|f| random_array(&mut rng, f.data_type(), n, f.is_nullable(), &shape))
            .collect();
        columns.push(edge_list(&mut rng, n));
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        out.push(batch.slice(extra, rows));
    }
    (schema, out)
}

/// A list column whose null rows span child values, with empty lists and null elements, over
/// a child that is itself a slice.
fn edge_list(rng: &mut Rng, n: usize) -> ArrayRef {
    let mut offsets = vec![0i32];
    let mut valid = Vec::new();
    for i in 0..n {
        let k = (i % 4) as i32;
        offsets.push(offsets[i] + k);
        valid.push(i % 3 != 1);
    }
    let total = *offsets.last().unwrap() as usize;
    let child = leaf_array(rng, &DataType::Int32, total + 5, true, &NestedShape::default()).slice(5, total);
    let f = Arc::new(field("item", DataType::Int32, true));
    let nulls = Some(NullBuffer::from(valid));
    Arc::new(ListArray::try_new(f, OffsetBuffer::new(ScalarBuffer::from(offsets)), child, nulls).unwrap())
}

fn option_sets(schema: &Schema) -> Vec<(&'static str, WriteOptions, bool)> {
    use Encoding as E;
    // (name, options, whether its statistics and histograms are compared with pyarrow's)
    vec![
        ("default", WriteOptions::default(), true),
        (
            "plain_snappy_v2_crc",
            WriteOptions::default()
                .with_dictionary(false)
                .with_compression(Codec::Snappy)
                .with_data_page_version(DataPageVersion::V2)
                .with_crc(true),
            false,
        ),
        (
            "tiny_pages_zstd",
            WriteOptions::default()
                .with_compression(Compression::zstd(3))
                .with_data_page_size(64)
                .with_data_page_row_limit(3)
                .with_dictionary_page_size_limit(100)
                .with_row_group_rows(50),
            true,
        ),
        (
            "tiny_pages_v2_uncompressed",
            WriteOptions::default()
                .with_dictionary(false)
                .with_data_page_version(DataPageVersion::V2)
                .with_data_page_size(100)
                .with_data_page_row_limit(5)
                .with_row_group_rows(70),
            true,
        ),
        (
            "delta_gzip",
            per_leaf(
                WriteOptions::default().with_compression(Codec::Gzip).with_row_group_rows(77),
                schema,
                E::DELTA_BINARY_PACKED,
                E::DELTA_LENGTH_BYTE_ARRAY,
                E::BYTE_STREAM_SPLIT,
                E::DELTA_BYTE_ARRAY,
            ),
            false,
        ),
        (
            "delta_byte_array_lz4raw_v2",
            per_leaf(
                WriteOptions::default()
                    .with_compression(Codec::Lz4Raw)
                    .with_data_page_version(DataPageVersion::V2)
                    .with_data_page_size(1000),
                schema,
                E::BYTE_STREAM_SPLIT,
                E::DELTA_BYTE_ARRAY,
                E::BYTE_STREAM_SPLIT,
                E::BYTE_STREAM_SPLIT,
            ),
            false,
        ),
        (
            "spill_4k_snappy",
            WriteOptions::default()
                .with_compression(Codec::Snappy)
                .with_data_page_size(512)
                .with_max_buffered_bytes(4096)
                .with_row_group_rows(600),
            false,
        ),
        (
            "no_stats_no_index_brotli",
            WriteOptions::default()
                .with_compression(Codec::Brotli)
                .with_statistics(StatisticsLevel::None)
                .with_page_index(false)
                .with_size_statistics(false),
            false,
        ),
        (
            "chunk_stats_header_stats_v2",
            WriteOptions::default()
                .with_statistics(StatisticsLevel::Chunk)
                .with_data_page_version(DataPageVersion::V2)
                .with_page_header_statistics(true),
            false,
        ),
    ]
}

/// Writes the table with every option set, reads each file back with pyarrow (compared with
/// the input) and checks each from its bytes (and its statistics, for some option sets).
fn check_shapes(tag: &str, schema: &SchemaRef, input: &[RecordBatch]) {
    let dir = TempDir::new(&format!("nested-{tag}"));
    let want = Table::from_batches(schema, input).unwrap();
    let ipc = dir.join("input.arrow");
    write_ipc(&ipc, schema, input);
    let mut paths = Vec::new();
    let mut cases = Vec::new();
    for (name, options, stats) in option_sets(schema) {
        let path = dir.join(&format!("{name}.parquet"));
        let row_group_rows = options_row_groups(&options);
        write_parquet(&path, schema, input, options);
        cases.push(serde_json::json!({
            "name": format!("{tag}/{name}"),
            "parquet": path.display().to_string(),
            "ipc": ipc.display().to_string(),
            "row_group_rows": row_group_rows,
            "stats": stats,
        }));
        paths.push(path);
    }
    let mut failures = Vec::new();
    let pyarrow = pyarrow_tables(&format!("nested-{tag}"), &paths);
    for path in &paths {
        match &pyarrow[path] {
            Ok(got) => failures
                .extend(diff_named_like(&want, got).into_iter().map(|d| format!("{} (pyarrow): {d}", path.display()))),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
        // parquetry's reader, batches cutting records apart from pages, and whole.
        for batch_size in [5, usize::MAX] {
            let options = parquetry::read::ReadOptions::default().with_batch_size(batch_size);
            match read_compare::read_parquetry(path, &options) {
                Ok(got) => failures.extend(
                    diff_named_like(&want, &got)
                        .into_iter()
                        .map(|d| format!("{} (parquetry, batch {batch_size}): {d}", path.display())),
                ),
                Err(e) => failures.push(format!("{} (parquetry, batch {batch_size}): {e}", path.display())),
            }
        }
    }
    let answer = run_python_json("nested_check.py", &serde_json::json!({ "cases": cases }));
    for m in answer["mismatches"].as_array().unwrap() {
        failures.push(m.as_str().unwrap().to_owned());
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

/// The row-group size each option set above uses (pyarrow writes the same row groups).
fn options_row_groups(options: &WriteOptions) -> usize {
    // WriteOptions has no getter; the sets above are few, so match on their debug form.
    let d = format!("{options:?}");
    let key = "row_group_rows: ";
    let at = d.find(key).map(|i| i + key.len()).unwrap();
    d[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
}

#[test]
fn nested_shapes_read_back_by_pyarrow_with_every_option_set() {
    if common::pyarrow_missing() {
        return;
    }
    let (schema, input) = shapes(11, 300, 3, NestedShape::default());
    check_shapes("shapes", &schema, &input);
}

#[test]
fn mostly_null_and_long_lists() {
    if common::pyarrow_missing() {
        return;
    }
    let (schema, input) = shapes(12, 120, 2, NestedShape { null_percent: 70, max_len: 2, distinct: 3 });
    check_shapes("sparse", &schema, &input);
    let (schema, input) = shapes(13, 40, 2, NestedShape { null_percent: 5, max_len: 40, distinct: 500 });
    check_shapes("long", &schema, &input);
}

#[test]
fn zero_rows_and_all_null_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let (schema, input) = shapes(14, 0, 1, NestedShape::default());
    check_shapes("empty", &schema, &input);
    let (schema, input) = shapes(15, 30, 1, NestedShape { null_percent: 100, max_len: 3, distinct: 1 });
    check_shapes("all-null", &schema, &input);
}

#[test]
fn batches_longer_than_a_shredding_window() {
    if common::pyarrow_missing() {
        return;
    }
    // The writer shreds 16,384 records at a time; a dictionary leaf's nulls are computed once
    // per batch and used by every window.
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let schema = Arc::new(Schema::new(vec![
        field("list_dict", list(dict, true), true),
        field("list_list", list(list(DataType::Int64, true), true), true),
        field("struct_list", DataType::Struct(Fields::from(vec![field("l", list(DataType::Utf8, true), true)])), true),
        field("map", map_type(DataType::Int32, DataType::Float64, true), true),
    ]));
    let mut rng = Rng::new(31);
    let shape = NestedShape { null_percent: 20, max_len: 2, distinct: 50 };
    let input: Vec<RecordBatch> = [40_000, 17_000]
        .iter()
        .map(|&n| {
            let columns = schema
                .fields()
                .iter()
                .map(|f| random_array(&mut rng, f.data_type(), n, f.is_nullable(), &shape))
                .collect();
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        })
        .collect();
    let dir = TempDir::new("nested-windows");
    let want = Table::from_batches(&schema, &input).unwrap();
    let sets = [
        ("default", WriteOptions::default()),
        (
            "v2_small_pages",
            WriteOptions::default()
                .with_data_page_version(DataPageVersion::V2)
                .with_data_page_size(4000)
                .with_row_group_rows(25_000),
        ),
    ];
    let mut paths = Vec::new();
    for (name, options) in sets {
        let path = dir.join(&format!("{name}.parquet"));
        write_parquet(&path, &schema, &input, options);
        paths.push(path);
    }
    let pyarrow = pyarrow_tables("nested-windows", &paths);
    let mut failures = Vec::new();
    for path in &paths {
        match &pyarrow[path] {
            Ok(got) => {
                failures.extend(diff_named_like(&want, got).into_iter().map(|d| format!("{}: {d}", path.display())))
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    // Pages still start at records where steps count records in blocks.
    let ipc = dir.join("input.arrow");
    write_ipc(&ipc, &schema, &input);
    let cases: Vec<_> = paths
        .iter()
        .map(|p| serde_json::json!({"name": p.display().to_string(), "parquet": p.display().to_string(), "ipc": ipc.display().to_string(), "row_group_rows": 0}))
        .collect();
    let answer = run_python_json("nested_check.py", &serde_json::json!({ "cases": cases }));
    failures.extend(answer["mismatches"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_dictionary_in_a_list_with_a_delta_fallback_reads_back_as_its_values() {
    if common::pyarrow_missing() {
        return;
    }
    // pyarrow reads a dictionary type only from dictionary or PLAIN pages, so ARROW:schema
    // stores such a leaf as its value type, at any depth.
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let schema = Arc::new(Schema::new(vec![
        field("l", list(dict.clone(), true), true),
        field("s", DataType::Struct(Fields::from(vec![field("d", dict, true)])), true),
    ]));
    let mut rng = Rng::new(41);
    let shape = NestedShape { null_percent: 20, max_len: 4, distinct: 400 };
    let columns =
        schema.fields().iter().map(|f| random_array(&mut rng, f.data_type(), 500, f.is_nullable(), &shape)).collect();
    let input = vec![RecordBatch::try_new(schema.clone(), columns).unwrap()];
    let dir = TempDir::new("nested-dict-delta");
    let ipc = dir.join("input.arrow");
    write_ipc(&ipc, &schema, &input);
    let path = dir.join("delta.parquet");
    let options = WriteOptions::default()
        .with_dictionary_page_size_limit(200)
        .with_column_encoding("l.list.element", Encoding::DELTA_LENGTH_BYTE_ARRAY)
        .with_column_encoding("s.d", Encoding::DELTA_BYTE_ARRAY);
    write_parquet(&path, &schema, &input, options);
    let case = serde_json::json!({"name": "dictionary delta", "parquet": path.display().to_string(),
        "ipc": ipc.display().to_string(), "row_group_rows": 0, "readers": ["pyarrow", "duckdb", "polars"]});
    let answer = run_python_json("nested_check.py", &serde_json::json!({ "cases": [case] }));
    let mismatches = answer["mismatches"].as_array().unwrap();
    assert!(mismatches.is_empty(), "{}", serde_json::to_string_pretty(mismatches).unwrap());
}

#[test]
fn nested_files_merge_into_one_pyarrow_reads() {
    if common::pyarrow_missing() {
        return;
    }
    // The merge copies and coalesces pages: it needs pages that start at records and counts
    // that are right, which is what the writer gives it.
    let dir = TempDir::new("nested-merge");
    let mut inputs = Vec::new();
    let mut batches = Vec::new();
    let mut schema = None;
    let sets = [
        WriteOptions::default().with_row_group_rows(40),
        WriteOptions::default()
            .with_data_page_size(100)
            .with_data_page_row_limit(4)
            .with_dictionary_page_size_limit(100),
        WriteOptions::default().with_data_page_version(DataPageVersion::V2).with_dictionary(false),
    ];
    for (i, options) in sets.into_iter().enumerate() {
        let (s, input) = shapes(60 + i as u64, 90, 2, NestedShape::default());
        // Not the Null leaves: the merge drops the empty dictionary page of an all-null chunk
        // but keeps its dictionary-encoded pages (flat Null columns too), which pyarrow refuses.
        let keep: Vec<usize> = (0..s.fields().len()).filter(|&i| !s.field(i).name().ends_with("_null")).collect();
        let s = Arc::new(s.project(&keep).unwrap());
        let input: Vec<RecordBatch> = input.iter().map(|b| b.project(&keep).unwrap()).collect();
        let path = dir.join(&format!("in{i}.parquet"));
        write_parquet(&path, &s, &input, options);
        inputs.push(path);
        batches.extend(input);
        schema = Some(s);
    }
    let schema = schema.unwrap();
    let out = dir.join("merged.parquet");
    parquetry::merge::merge_files(&inputs, &out, &parquetry::merge::MergeOptions::default()).unwrap();
    let want = Table::from_batches(&schema, &batches).unwrap();
    let got = pyarrow_tables("nested-merge", std::slice::from_ref(&out));
    let diffs = diff_named_like(&want, got[&out].as_ref().unwrap());
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let ipc = dir.join("input.arrow");
    write_ipc(&ipc, &schema, &batches);
    let case = serde_json::json!({"name": "merged", "parquet": out.display().to_string(), "ipc": ipc.display().to_string(), "row_group_rows": 0});
    let answer = run_python_json("nested_check.py", &serde_json::json!({ "cases": [case] }));
    let mismatches = answer["mismatches"].as_array().unwrap();
    assert!(mismatches.is_empty(), "{}", serde_json::to_string_pretty(mismatches).unwrap());
}

#[test]
fn duckdb_and_polars_read_nested_columns() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("nested-readers");
    let utf8 = DataType::Utf8;
    let schema = Arc::new(Schema::new(vec![
        field("list_int", list(DataType::Int64, true), true),
        field("list_str", list(utf8.clone(), true), true),
        field("list_list", list(list(DataType::Int32, true), true), true),
        field(
            "struct",
            DataType::Struct(Fields::from(vec![
                field("a", DataType::Int32, true),
                field("b", list(utf8.clone(), true), true),
            ])),
            true,
        ),
        field(
            "list_struct",
            list(
                DataType::Struct(Fields::from(vec![
                    field("x", DataType::Float64, true),
                    field("y", utf8.clone(), true),
                ])),
                true,
            ),
            true,
        ),
        field("map", map_type(utf8.clone(), DataType::Int32, true), true),
        field("large_list", DataType::LargeList(Arc::new(field("element", DataType::Boolean, true))), true),
    ]));
    let mut rng = Rng::new(21);
    let shape = NestedShape::default();
    let input: Vec<RecordBatch> = (0..2)
        .map(|_| {
            let columns = schema
                .fields()
                .iter()
                .map(|f| random_array(&mut rng, f.data_type(), 200, f.is_nullable(), &shape))
                .collect();
            RecordBatch::try_new(schema.clone(), columns).unwrap()
        })
        .collect();
    let ipc = dir.join("input.arrow");
    write_ipc(&ipc, &schema, &input);
    let mut cases = Vec::new();
    let sets = [
        ("default", WriteOptions::default()),
        (
            "v2_zstd_small_pages",
            WriteOptions::default()
                .with_data_page_version(DataPageVersion::V2)
                .with_compression(Codec::Zstd)
                .with_data_page_size(200),
        ),
        (
            "plain_v1_row_groups",
            WriteOptions::default().with_dictionary(false).with_row_group_rows(64).with_data_page_row_limit(10),
        ),
    ];
    for (name, options) in sets {
        let path: PathBuf = dir.join(&format!("{name}.parquet"));
        write_parquet(&path, &schema, &input, options);
        cases.push(serde_json::json!({
            "name": name, "parquet": path.display().to_string(), "ipc": ipc.display().to_string(),
            "row_group_rows": 0, "stats": false, "readers": ["duckdb", "polars"],
        }));
    }
    let answer = run_python_json("nested_check.py", &serde_json::json!({ "cases": cases }));
    let mismatches = answer["mismatches"].as_array().unwrap();
    assert!(mismatches.is_empty(), "{}", serde_json::to_string_pretty(mismatches).unwrap());
}
