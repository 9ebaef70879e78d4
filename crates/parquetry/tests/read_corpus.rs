//! Every corpus file pyarrow reads, parquetry reads to the same values.
//!
//! The reference is pyarrow (`pq.read_table(path)`, default options), run once per test binary
//! through tests/support/pyarrow_to_ipc.py, which hands its tables over as Arrow IPC files.
//! Each test collects every differing file and fails once with all of them.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use parquetry::read::{ByteArrayType, ParquetFile, ReadOptions};
use read_compare::{
    diff_tables, diff_with_byte_array_type, read_parquetry, read_parquetry_batches, read_parquetry_mapped, Table,
};

/// The files under test: every file pyarrow reads, flat and nested.
fn corpus_files() -> Vec<PathBuf> {
    let dir = common::corpus_dir();
    common::manifest().into_iter().filter(|r| r.readable_by_pyarrow == "yes").map(|r| dir.join(r.path)).collect()
}

/// pyarrow's table of every corpus file, computed once for all tests of this binary.
fn pyarrow() -> &'static HashMap<PathBuf, Result<Table, String>> {
    static TABLES: OnceLock<HashMap<PathBuf, Result<Table, String>>> = OnceLock::new();
    TABLES.get_or_init(|| read_compare::pyarrow_tables("corpus", &corpus_files()))
}

fn expected(path: &PathBuf) -> Result<&'static Table, String> {
    pyarrow()[path].as_ref().map_err(Clone::clone)
}

fn rel(path: &std::path::Path) -> String {
    path.strip_prefix(common::corpus_dir()).unwrap_or(path).display().to_string()
}

fn corpus_path(rel: &str) -> PathBuf {
    common::corpus_dir().join(rel)
}

fn report(what: &str, failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{what}: {} of {total} reads differ from pyarrow:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_has_the_expected_flat_readable_files() {
    // The manifest selection this suite is built on; guards against an empty or moved corpus.
    assert_eq!(corpus_files().len(), 211);
}

#[test]
fn corpus_values_match_pyarrow() {
    if common::pyarrow_missing() {
        return;
    }
    let files = corpus_files();
    let mut failures = Vec::new();
    for path in &files {
        let want = match expected(path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: pyarrow side failed: {e}", rel(path)));
                continue;
            }
        };
        match read_parquetry(path, &ReadOptions::default()) {
            Err(e) => failures.push(format!("{}: {e}", rel(path))),
            Ok(got) => {
                let diffs = diff_tables(want, &got);
                if !diffs.is_empty() {
                    failures.push(format!("{}:\n    {}", rel(path), diffs.join("\n    ")));
                }
            }
        }
    }
    report("default options", &failures, files.len());
}

#[test]
fn corpus_byte_array_types_match_pyarrow() {
    if common::pyarrow_missing() {
        return;
    }
    let files = corpus_files();
    let mut failures = Vec::new();
    for choice in [ByteArrayType::View, ByteArrayType::Large, ByteArrayType::Dictionary, ByteArrayType::Regular] {
        for path in &files {
            let Ok(want) = expected(path) else { continue }; // reported by corpus_values_match_pyarrow
            let diffs = match read_parquetry(path, &ReadOptions::default().with_byte_array_type(choice)) {
                Ok(got) => diff_with_byte_array_type(want, &got, choice),
                Err(e) => vec![e],
            };
            if !diffs.is_empty() {
                failures.push(format!("{} ({choice:?}):\n    {}", rel(path), diffs.join("\n    ")));
            }
        }
    }
    report("byte array type overrides", &failures, files.len() * 4);
}

#[test]
fn corpus_read_through_a_memory_map_matches_pyarrow() {
    if common::pyarrow_missing() {
        return;
    }
    let files = corpus_files();
    let mut failures = Vec::new();
    for choice in [ByteArrayType::Regular, ByteArrayType::View] {
        for path in &files {
            let Ok(want) = expected(path) else { continue }; // reported by corpus_values_match_pyarrow
            let diffs = match read_parquetry_mapped(path, &ReadOptions::default().with_byte_array_type(choice)) {
                Ok(got) => diff_with_byte_array_type(want, &got, choice),
                Err(e) => vec![e],
            };
            if !diffs.is_empty() {
                failures.push(format!("{} (mapped, {choice:?}):\n    {}", rel(path), diffs.join("\n    ")));
            }
        }
    }
    report("memory-mapped reads", &failures, files.len() * 2);
}

/// Multi-page (and one multi-row-group) files for the batch size tests.
const MULTI_PAGE: &[&str] = &[
    "data/datapage_v1-snappy-compressed-checksum.parquet",
    "data/delta_byte_array.parquet",
    "data/delta_length_byte_array.parquet",
    "data/int32_with_null_pages.parquet",
    "data/alltypes_tiny_pages_plain.parquet",
    "data/alltypes_tiny_pages.parquet",
    "data/floating_orders_nan_count.parquet",
];

#[test]
fn corpus_batch_size_does_not_change_values() {
    if common::pyarrow_missing() {
        return;
    }
    let mut failures = Vec::new();
    for rel_path in MULTI_PAGE {
        let path = corpus_path(rel_path);
        let want = match expected(&path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{rel_path}: pyarrow side failed: {e}"));
                continue;
            }
        };
        let whole = read_parquetry(&path, &ReadOptions::default().with_batch_size(usize::MAX));
        match &whole {
            Err(e) => failures.push(format!("{rel_path} (one batch): {e}")),
            Ok(got) => {
                for d in diff_tables(want, got) {
                    failures.push(format!("{rel_path} (one batch): {d}"));
                }
            }
        }
        for batch_size in [1usize, 7, 1000] {
            if batch_size == 1 && want.num_rows() > 6000 {
                continue; // keeps the debug-build run short; 7 covers the small-batch case
            }
            let what = format!("{rel_path} (batch_size {batch_size})");
            let options = ReadOptions::default().with_batch_size(batch_size);
            let (schema, batches) = match read_parquetry_batches(&path, &options) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let sizes_ok = batches.iter().all(|b| b.num_rows() >= 1 && b.num_rows() <= batch_size);
            if !sizes_ok {
                let sizes: Vec<usize> = batches.iter().map(|b| b.num_rows()).take(20).collect();
                failures.push(format!("{what}: batch row counts outside 1..={batch_size}: {sizes:?}…"));
            }
            let got = match Table::from_batches(&schema, &batches) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            for d in diff_tables(want, &got) {
                failures.push(format!("{what} vs pyarrow: {d}"));
            }
            if let Ok(whole) = &whole {
                for d in diff_tables(whole, &got) {
                    failures.push(format!("{what} vs one batch: {d}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "batch size changes values:\n{}", failures.join("\n"));
}

#[test]
fn corpus_row_selection_reads_pyarrows_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let mut failures = Vec::new();
    for rel_path in MULTI_PAGE {
        let path = corpus_path(rel_path);
        let Ok(want) = expected(&path) else { continue };
        let n = want.num_rows() as u64;
        if n < 4 {
            continue;
        }
        // One row, a stretch across the middle, and the last row.
        let ranges = vec![1..2, n / 3..n / 3 + n / 4, n - 1..n];
        let mut selected = want.slice(0, 0);
        for r in &ranges {
            selected = selected.append(&want.slice(r.start as usize, (r.end - r.start) as usize));
        }
        for batch_size in [usize::MAX, 7] {
            let options = ReadOptions::default().with_row_selection(ranges.clone()).with_batch_size(batch_size);
            match read_parquetry(&path, &options) {
                Err(e) => failures.push(format!("{rel_path} (rows {ranges:?}, batch {batch_size}): {e}")),
                Ok(got) => {
                    for d in diff_tables(&selected, &got) {
                        failures.push(format!("{rel_path} (rows {ranges:?}, batch {batch_size}): {d}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "row selection differs from pyarrow:\n{}", failures.join("\n"));
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // one-range selections are selections
fn bad_row_selections_are_errors_naming_the_range() {
    let path = corpus_path(MULTI_PAGE[0]);
    let rows = row_group_rows(&path).iter().sum::<usize>() as u64;
    for (ranges, says) in [(vec![0..2, 1..3], "overlap"), (vec![5..5], "empty"), (vec![0..rows + 1], "past the file's")]
    {
        let file = ParquetFile::open(&path).unwrap();
        let e = common::batches(&file, ReadOptions::default().with_row_selection(ranges.clone())).err();
        let e = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(says), "{ranges:?}: {e}");
    }
}

#[test]
fn one_opened_file_is_read_by_several_readers_at_once_each_with_pyarrows_rows() {
    if common::pyarrow_missing() {
        return;
    }
    use arrow_array::RecordBatchReader;
    use parquetry::read::ParquetReaderBuilder;
    // A clone of a `ParquetFile` shares the open file and its footer: readers built from clones
    // read on other threads at once (one on two threads of its own), each to every row.
    let path = corpus_path("data/alltypes_tiny_pages.parquet");
    let want = expected(&path).expect("pyarrow reads the file");
    let file = ParquetFile::open(&path).unwrap();
    let readers: Vec<_> = [(1, 100), (2, 1000), (1, usize::MAX)]
        .into_iter()
        .map(|(threads, rows)| {
            let options = ReadOptions::default().with_threads(threads).with_batch_size(rows);
            ParquetReaderBuilder::new(file.clone()).with_options(options).build().unwrap()
        })
        .collect();
    let reads: Vec<_> = readers
        .into_iter()
        .map(|reader| std::thread::spawn(move || (reader.schema(), reader.collect::<Result<Vec<_>, _>>().unwrap())))
        .collect();
    for read in reads {
        let (schema, batches) = read.join().unwrap();
        let got = read_compare::Table::from_batches(&schema, &batches).unwrap();
        let diffs = diff_tables(want, &got);
        assert!(diffs.is_empty(), "{diffs:?}");
    }
    // The file is still open for its metadata after its readers are gone.
    assert_eq!(file.metadata().num_rows as usize, want.num_rows());
}

#[test]
fn the_owning_reader_is_an_arrow_record_batch_reader_with_pyarrows_rows() {
    if common::pyarrow_missing() {
        return;
    }
    use arrow_array::RecordBatchReader;
    use parquetry::read::ParquetReaderBuilder;
    let path = corpus_path("data/alltypes_tiny_pages.parquet");
    let want = expected(&path).expect("pyarrow reads the file");
    let builder = ParquetReaderBuilder::open(&path).unwrap();
    let id = builder.schema().index_of("id").unwrap();
    let string_col = builder.schema().index_of("string_col").unwrap();
    let options = ReadOptions::default()
        .with_columns(["string_col", "id"])
        .with_row_selection([10..20, 5000..5100])
        .with_batch_size(33);
    let reader = builder.with_options(options).build().unwrap();
    // Sent to another thread and read there, through the Arrow trait.
    let (schema, batches) = std::thread::spawn(move || {
        let schema = RecordBatchReader::schema(&reader);
        (schema, reader.collect::<Result<Vec<_>, _>>().unwrap())
    })
    .join()
    .unwrap();
    assert!(batches.iter().all(|b| b.num_rows() <= 33));
    let got = read_compare::Table::from_batches(&schema, &batches).unwrap();
    let want = want.project(&[string_col, id]);
    let want = want.slice(10, 10).append(&want.slice(5000, 100));
    let diffs = diff_tables(&want, &got);
    assert!(diffs.is_empty(), "{diffs:?}");

    // Errors reach Arrow consumers as ArrowError, with parquetry's error inside.
    let e = ParquetReaderBuilder::open(&path)
        .unwrap()
        .with_options(ReadOptions::default().with_columns(["nope"]))
        .build()
        .err()
        .unwrap();
    let arrow: arrow_schema::ArrowError = e.into();
    let arrow_schema::ArrowError::ExternalError(inner) = arrow else { panic!("{arrow}") };
    let inner = inner.downcast_ref::<parquetry::Error>().expect("parquetry::Error inside");
    assert_eq!(inner.kind(), parquetry::ErrorKind::InvalidArgument);
}

/// Row counts of each row group, from the footer.
fn row_group_rows(path: &PathBuf) -> Vec<usize> {
    let file = ParquetFile::open(path).expect("footer");
    file.metadata().row_groups.iter().map(|rg| rg.num_rows as usize).collect()
}

/// pyarrow's rows of row group `rg`.
fn row_group_slice(want: &Table, rows: &[usize], rg: usize) -> Table {
    let start: usize = rows[..rg].iter().sum();
    want.slice(start, rows[rg])
}

#[test]
fn corpus_projection_and_row_group_selection() {
    if common::pyarrow_missing() {
        return;
    }
    let mut failures = Vec::new();
    let mut check =
        |what: String, path: &PathBuf, options: ReadOptions, want: Table| match read_parquetry(path, &options) {
            Err(e) => failures.push(format!("{what}: {e}")),
            Ok(got) => {
                for d in diff_tables(&want, &got) {
                    failures.push(format!("{what}: {d}"));
                }
            }
        };

    // 5 row groups of 10 rows, 6 float columns.
    let path = corpus_path("data/floating_orders_nan_count.parquet");
    let want = expected(&path).expect("pyarrow reads floating_orders_nan_count");
    let rows = row_group_rows(&path);
    assert_eq!(rows.len(), 5);
    let name = |i: usize| want.names[i].as_str();
    check(
        "two columns by name".into(),
        &path,
        ReadOptions::default().with_columns([name(3), name(0)]),
        want.project(&[3, 0]),
    );
    check(
        "three columns by index".into(),
        &path,
        ReadOptions::default().with_columns([5usize, 1, 2]),
        want.project(&[5, 1, 2]),
    );
    check("row group 1".into(), &path, ReadOptions::default().with_row_groups([1]), row_group_slice(want, &rows, 1));
    check(
        "row groups 3 then 0".into(),
        &path,
        ReadOptions::default().with_row_groups([3, 0]),
        row_group_slice(want, &rows, 3).append(&row_group_slice(want, &rows, 0)),
    );
    check(
        "row group 4, column 2, batch size 3".into(),
        &path,
        ReadOptions::default().with_row_groups([4]).with_columns([2usize]).with_batch_size(3),
        row_group_slice(want, &rows, 4).project(&[2]),
    );

    // 50 row groups; an id and a binary (WKB) column.
    let path = corpus_path("data/geospatial/geography-points.parquet");
    let want = expected(&path).expect("pyarrow reads geography-points");
    let rows = row_group_rows(&path);
    check(
        "geography-points: column 'geometry', row groups 1 and 49".into(),
        &path,
        ReadOptions::default().with_columns(["geometry"]).with_row_groups([1, 49]),
        row_group_slice(want, &rows, 1).append(&row_group_slice(want, &rows, 49)).project(&[1]),
    );

    // Reading only row group i, in one batch, gives row group i, every column.
    for (rel_path, rg) in
        [("data/floating_orders_nan_count.parquet", 2), ("data/geospatial/geography-points.parquet", 1)]
    {
        let path = corpus_path(rel_path);
        let want = expected(&path).unwrap();
        let slice = row_group_slice(want, &row_group_rows(&path), rg);
        let got = read_compare::catch(|| {
            // One row group, all columns, in one batch.
            let file = ParquetFile::open(&path).map_err(|e| e.to_string())?;
            let options = ReadOptions::default().with_row_groups([rg]).with_batch_size(usize::MAX);
            let batches = common::batches(&file, options).map_err(|e| e.to_string())?;
            let schema = batches.schema();
            let batches = batches.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
            Table::from_batches(&schema, &batches)
        })
        .and_then(|r| r);
        match got {
            Err(e) => failures.push(format!("{rel_path} row group {rg}: {e}")),
            Ok(got) => {
                for d in diff_tables(&slice, &got) {
                    failures.push(format!("{rel_path} row group {rg}: {d}"));
                }
            }
        }
    }

    // Bad selections are errors, not panics.
    let path = corpus_path("data/alltypes_plain.parquet");
    for (what, options) in [
        ("unknown column name", ReadOptions::default().with_columns(["no_such_column"])),
        ("column index out of range", ReadOptions::default().with_columns([99usize])),
        ("row group out of range", ReadOptions::default().with_row_groups([1])),
    ] {
        match read_parquetry(&path, &options) {
            Ok(_) => failures.push(format!("alltypes_plain, {what}: read succeeded")),
            Err(e) if e.contains("panicked") => failures.push(format!("alltypes_plain, {what}: {e}")),
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "projection / row group selection:\n{}", failures.join("\n"));
}

#[test]
fn comparison_helpers_detect_differences() {
    if common::pyarrow_missing() {
        return;
    }
    // The machinery above must not pass vacuously: pyarrow's table against itself and against
    // altered copies of itself.
    use arrow_array::{
        Array, ArrayRef, BinaryViewArray, DictionaryArray, Int32Array, LargeStringArray, StringArray, StringViewArray,
    };
    use std::sync::Arc;

    let path = corpus_path("data/alltypes_plain.parquet");
    let want = expected(&path).expect("pyarrow reads alltypes_plain");
    assert!(diff_tables(want, want).is_empty());
    let mut altered = want.clone();
    let i = altered.names.iter().position(|n| n == "id").unwrap();
    let ids = altered.columns[i].as_any().downcast_ref::<Int32Array>().unwrap();
    let mut v: Vec<Option<i32>> = ids.iter().collect();
    v[5] = Some(-1);
    altered.columns[i] = Arc::new(Int32Array::from(v)) as ArrayRef;
    let diffs = diff_tables(want, &altered);
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert!(diffs[0].starts_with("column 'id': row 5 differs"), "{diffs:?}");
    let mut renamed = want.clone();
    renamed.names[0] = "other".into();
    assert_eq!(diff_tables(want, &renamed).len(), 1);
    assert!(!diff_tables(want, &want.slice(1, want.num_rows() - 1)).is_empty());

    let values = [Some("a"), None, Some(""), Some("日本語 and a string longer than twelve bytes")];
    let plain = StringArray::from(values.to_vec());
    let forms: Vec<ArrayRef> = vec![
        Arc::new(LargeStringArray::from(values.to_vec())),
        Arc::new(StringViewArray::from(values.to_vec())),
        Arc::new(values.iter().copied().collect::<DictionaryArray<arrow_array::types::Int32Type>>()),
    ];
    let want_bytes = read_compare::byte_values(&plain).unwrap();
    for f in &forms {
        assert_eq!(read_compare::byte_values(f.as_ref()).unwrap(), want_bytes, "{:?}", f.data_type());
    }
    let bin = BinaryViewArray::from(vec![Some(&b"a"[..]), None, Some(b""), Some(b"x")]);
    let bin_bytes = read_compare::byte_values(&bin).unwrap();
    assert_eq!(
        read_compare::diff_byte_values(&want_bytes, &bin_bytes).unwrap(),
        "row 3 differs: want \"日本語 and a string longer than twelve bytes\" got \"x\""
    );
    assert!(read_compare::byte_values(&Int32Array::from(vec![1])).is_none());
}

#[test]
fn a_zero_batch_size_still_reads_every_row() {
    // Zero must not mean an endless stream of empty batches.
    let path = common::corpus_dir().join("data/alltypes_plain.parquet");
    let file = parquetry::read::ParquetFile::open(&path).unwrap();
    let options = ReadOptions::default().with_batch_size(0);
    let batches = common::read_all(&file, &options).unwrap();
    // MANIFEST.tsv: 8 rows.
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 8);
    assert!(batches.iter().all(|b| b.num_rows() == 1));
}
