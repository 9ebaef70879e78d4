//! Nested columns (lists, maps, structs at any depth) written by other writers, read by
//! parquetry to exactly the values an independent reader gets.
//!
//! At test time, tests/support/read_nested_write.py (one Python process) writes one table of
//! 1,200 rows (duckdb: twice that) with nulls and empty lists at every level and some records
//! of hundreds of elements: list<int64>, list<string>, list<list<int32>>, large_list<string>,
//! fixed_size_list<float32, 3> (and of non-nullable doubles, and in a struct), struct<a, b,
//! c: list<double>>, list<struct>, struct<struct>, map<string, int64>, map<string,
//! list<string>>, maps of maps and of structs, list<dictionary<int32, string>>, a dictionary
//! in a struct, list<bool>, list<decimal>, list<timestamp with a time zone>, list<binary>,
//! list<null>, list<struct<list, struct>>, lists of small, unsigned, time and half-float
//! leaves, required lists and structs, and flat columns. It is written
//! - by pyarrow: data page v1 and v2, dictionary on and off, DELTA_BINARY_PACKED /
//!   DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY / BYTE_STREAM_SPLIT, tiny pages, several
//!   codecs, a page index on some, and no rows at all;
//! - re-paged (tests/support/repage.py): pyarrow ends every page at a record boundary, as do
//!   duckdb, polars and parquet-go, so four pyarrow v1 files have their data pages cut again
//!   every few levels wherever that falls (records begin in one page and end pages later, as
//!   data page v1 allows and older writers did): one with deprecated BIT_PACKED levels, one as
//!   v2 pages (against the format, as Arrow C++ once wrote them);
//! - by parquet-go (scripts/interop/go-writer -nested, when `go` is on PATH): Go structs as
//!   parquet-go lays them out, bare repeated fields and groups (no LIST annotation) among them;
//! - by duckdb (PARQUET_VERSION V1 and V2; all but the half floats and the list<null>) and
//!   polars (small pages; maps become lists of structs in polars, and back in the check).
//!
//! The reference of each file is an independent reader (Arrow C++ for pyarrow's, polars',
//! parquet-go's and the re-paged files, duckdb for duckdb's), checked on the Python side
//! against the table (for parquet-go: the JSON rows) the writer was given. parquetry reads
//! every file at batch sizes `usize::MAX` and 7, and with row selections at batch sizes
//! `usize::MAX` and 1 and with two threads (the reference sliced). The files with tiny pages
//! or split records are also read at batch size 400, with two threads, with the last row group
//! before the first, with each `ByteArrayType` (string leaves compared by their bytes), some
//! projected by Parquet paths (`s.b`,
//! `tags.list.element`, ...: the reference is Arrow C++'s read of the same paths), and some in
//! batches of one record. Types (field names, nullability) and values must be equal, floats
//! bit for bit. Each case must also show in its bytes what its name claims (row groups, many
//! pages per chunk, encodings, page versions, pages that begin inside a record).
//!
//! `PARQUETRY_KEEP_TEST_FILES=1` keeps the files.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use parquetry::read::{ByteArrayType, ReadOptions};
use read_compare::{diff_tables, diff_with_byte_array_type, ipc_schema, read_ipc, read_parquetry_batches, Table};
use serde_json::{json, Value};
use write_helpers::{run_go_writer, run_python_json, TempDir};

/// Every file is read at these batch sizes: one batch per row group, and sizes that cut
/// pages and records' runs of pages at many places.
const BATCH_SIZES: [usize; 3] = [usize::MAX, 400, 7];

/// Rows (records) read by the row-selection reads: a long record alone, ranges across row
/// group boundaries (400 rows a group, duckdb's 2,048), rows null in every column, the file's
/// last rows.
fn selection(rows: u64) -> Vec<Range<u64>> {
    let mut ranges = vec![5..6, 17..40, 390..420, 487..500, 799..805, 950..960];
    if rows > 2100 {
        ranges.push(2040..2060);
    }
    ranges.push(rows - 3..rows);
    ranges
}

/// One read of a file and what it must give.
struct Read {
    name: String,
    options: ReadOptions,
    want: Table,
    /// Set when string/binary leaves are read as this type (compared by their bytes).
    byte_type: Option<ByteArrayType>,
}

/// Reads a file with `options`; every batch must have between 1 and `batch_size` rows.
fn read(path: &Path, options: &ReadOptions) -> Result<Table, String> {
    let (schema, batches) = read_parquetry_batches(path, options)?;
    if let Some(b) = batches.iter().find(|b| b.num_rows() == 0 || b.num_rows() > options.batch_size()) {
        return Err(format!("a batch of {} rows at batch size {}", b.num_rows(), options.batch_size()));
    }
    Table::from_batches(&schema, &batches)
}

/// `table`'s rows in `ranges`, in order.
fn rows_of(table: &Table, ranges: &[Range<u64>]) -> Table {
    let parts: Vec<Table> = ranges.iter().map(|r| table.slice(r.start as usize, (r.end - r.start) as usize)).collect();
    parts[1..].iter().fold(parts[0].clone(), |acc, p| acc.append(p))
}

fn size_name(batch_size: usize) -> String {
    if batch_size == usize::MAX {
        "MAX".to_owned()
    } else {
        batch_size.to_string()
    }
}

/// Every read of one case, with its expected table.
fn reads(case: &Value, want: &Table) -> Result<Vec<Read>, String> {
    let plain =
        |name: String, options: ReadOptions, want: &Table| Read { name, options, want: want.clone(), byte_type: None };
    let every = case["options"] == true;
    // Every file at whole row groups and 7 rows a batch; the files read with every option
    // also at 400 (inside row groups, across pages).
    let mut out: Vec<Read> = BATCH_SIZES
        .iter()
        .filter(|&&b| every || b != 400)
        .map(|&b| plain(format!("batch size {}", size_name(b)), ReadOptions::default().with_batch_size(b), want))
        .collect();
    if want.num_rows() == 0 {
        return Ok(out);
    }
    let ranges = selection(want.num_rows() as u64);
    let selected = rows_of(want, &ranges);
    for b in [usize::MAX, 1] {
        let options = ReadOptions::default().with_batch_size(b).with_row_selection(ranges.clone());
        out.push(plain(format!("rows {ranges:?}, batch size {}", size_name(b)), options, &selected));
    }
    // Two threads decode several row groups at once when batches are whole row groups (below
    // 32,768 rows a batch's columns stay on one thread, so smaller batches add nothing).
    let options = ReadOptions::default().with_row_selection(ranges.clone()).with_threads(2);
    out.push(plain("rows, 2 threads, batch size MAX".to_owned(), options, &selected));
    // polars' `ARROW:schema` asks for views or large strings: Regular overrides it.
    if case["writer"] == "polars" {
        out.push(Read {
            name: "Regular strings, batch size 7".to_owned(),
            options: ReadOptions::default().with_batch_size(7).with_byte_array_type(ByteArrayType::Regular),
            want: want.clone(),
            byte_type: Some(ByteArrayType::Regular),
        });
    }
    if !every {
        return Ok(out);
    }
    out.push(plain("2 threads, batch size MAX".to_owned(), ReadOptions::default().with_threads(2), want));
    // Row groups out of order: the last, then the first.
    let group_rows: Vec<usize> = case["layout"]["row_group_rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .map(|n| n as usize)
        .collect();
    if let [first, .., last] = group_rows[..] {
        let last_index = group_rows.len() - 1;
        let want = want.slice(want.num_rows() - last, last).append(&want.slice(0, first));
        let options = ReadOptions::default().with_batch_size(7).with_row_groups([last_index, 0]);
        out.push(plain(format!("row groups [{last_index}, 0], batch size 7"), options, &want));
    }
    // Batches of one record, through every record of the files whose records start and end
    // at many places in their pages (the others: in the selected rows above).
    if case["settings"].as_str().is_some_and(|s| s.contains("split") || s.contains("v2, tiny pages, dictionary")) {
        out.push(plain("batch size 1".to_owned(), ReadOptions::default().with_batch_size(1), want));
    }
    let byte_types = [(ByteArrayType::View, usize::MAX), (ByteArrayType::Large, 400), (ByteArrayType::Dictionary, 7)];
    for (t, b) in byte_types {
        out.push(Read {
            name: format!("{t:?} strings, batch size {}", size_name(b)),
            options: ReadOptions::default().with_batch_size(b).with_byte_array_type(t),
            want: want.clone(),
            byte_type: Some(t),
        });
    }
    // A map is read whole whichever of its leaves a path names (Arrow C++ would prune the
    // entries to a list of structs): the reference is the whole map column.
    if let Some(m) = want.names.iter().position(|n| n == "m") {
        let options = ReadOptions::default().with_batch_size(7).with_columns(["m.key_value.value"]);
        out.push(plain("columns [\"m.key_value.value\"], batch size 7".to_owned(), options, &want.project(&[m])));
    }
    for p in case["projections"].as_array().into_iter().flatten() {
        let columns: Vec<&str> = p["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        let projected = read_ipc(Path::new(p["reference"].as_str().unwrap()))?;
        let options = ReadOptions::default().with_batch_size(7).with_columns(columns.iter().copied());
        out.push(plain(format!("columns {columns:?}, batch size 7"), options, &projected));
        // A projection, a row selection and threads at once.
        let options = ReadOptions::default()
            .with_batch_size(100)
            .with_columns(columns.iter().copied())
            .with_row_selection(ranges.clone())
            .with_threads(2);
        out.push(plain(
            format!("columns {columns:?}, rows, 2 threads, batch size 100"),
            options,
            &rows_of(&projected, &ranges),
        ));
    }
    Ok(out)
}

/// The layout facts a case must show for its settings to have been exercised (decoded from
/// the file's bytes by the Python side, without a Parquet library).
fn layout_problems(case: &Value) -> Vec<String> {
    let layout = &case["layout"];
    let settings = case["settings"].as_str().unwrap_or("").to_lowercase();
    let has = |key: &str, what: &str| layout[key].as_array().is_some_and(|a| a.iter().any(|v| v == what));
    let number = |key: &str| layout[key].as_u64().unwrap_or(0);
    let mut problems = Vec::new();
    if case["rows"] == 0 {
        return problems;
    }
    if number("row_groups") < 2 {
        problems.push(format!("one row group only: {layout}"));
    }
    let fewest_pages = match case["writer"].as_str() {
        _ if settings.contains("tiny pages") => 20,
        Some("polars" | "parquet-go") => 4,
        _ => 1, // duckdb writes one page per column chunk; pyarrow's default pages are large
    };
    if number("most_pages_in_a_chunk") < fewest_pages {
        problems.push(format!("fewer than {fewest_pages} data pages in every chunk: {layout}"));
    }
    if settings.contains("records split across pages") && number("pages_inside_records") < 10 {
        problems.push(format!("few pages begin inside a record: {layout}"));
    }
    if settings.contains("bit_packed levels") && !has("level_encodings", "BIT_PACKED") {
        problems.push(format!("no BIT_PACKED levels: {layout}"));
    }
    if settings.contains("dictionary pages") && !has("encodings", "RLE_DICTIONARY") {
        problems.push(format!("no RLE_DICTIONARY page: {layout}"));
    }
    let encodings = ["DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"];
    problems.extend(write_helpers::settings_layout_problems(&settings, layout, &encodings));
    problems
}

/// Checks one case with every read; returns its failures (empty: it passed) and the number
/// of reads.
fn check_case(case: &Value) -> (Vec<String>, usize) {
    if let Some(e) = case["reference_error"].as_str() {
        return (vec![format!("the reference reader failed: {e}")], 0);
    }
    let mut failures = layout_problems(case);
    if let Some(e) = case["source_check"].as_str() {
        failures.push(e.to_owned());
    }
    let want = match read_ipc(Path::new(case["reference"].as_str().unwrap())) {
        Ok(t) => t,
        Err(e) => return (vec![format!("reading the reference: {e}")], 0),
    };
    if want.num_rows() as u64 != case["rows"].as_u64().unwrap_or(0) {
        failures.push(format!("the reference has {} rows, the writer was given {}", want.num_rows(), case["rows"]));
    }
    let reads = match reads(case, &want) {
        Ok(r) => r,
        Err(e) => return (vec![format!("reading a projection's reference: {e}")], 0),
    };
    let path = Path::new(case["parquet"].as_str().unwrap());
    // A table compares types (nested fields' nullability included); top-level fields'
    // nullability is in the schema.
    match (
        ipc_schema(Path::new(case["reference"].as_str().unwrap())),
        read_parquetry_batches(path, &ReadOptions::default()),
    ) {
        (Ok(want), Ok((got, _))) => {
            for (w, g) in want.fields().iter().zip(got.fields().iter()) {
                if w.is_nullable() != g.is_nullable() {
                    failures.push(format!(
                        "field '{}': nullable {}, pyarrow's {}",
                        g.name(),
                        g.is_nullable(),
                        w.is_nullable()
                    ));
                }
            }
        }
        (Err(e), _) | (_, Err(e)) => failures.push(format!("schemas: {e}")),
    }
    for r in &reads {
        let diffs = match read(path, &r.options) {
            Err(e) => vec![format!("parquetry: {e}")],
            Ok(got) => match r.byte_type {
                Some(t) => diff_with_byte_array_type(&r.want, &got, t),
                None => diff_tables(&r.want, &got),
            },
        };
        failures.extend(diffs.into_iter().map(|d| format!("{}: {d}", r.name)));
    }
    (failures, reads.len())
}

/// One line of what a file holds.
fn describe(layout: &Value) -> String {
    let list = |key: &str| {
        layout[key]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","))
            .unwrap_or_default()
    };
    format!(
        "{} row groups, up to {} data pages a chunk, {} pages begin inside a record; {}; {}; {}",
        layout["row_groups"],
        layout["most_pages_in_a_chunk"],
        layout["pages_inside_records"],
        list("page_types"),
        list("encodings"),
        list("codecs")
    )
}

#[test]
fn parquetry_reads_nested_columns_as_independent_readers_do() {
    if common::pyarrow_missing() {
        return;
    }
    let start = Instant::now();
    let dir = TempDir::new("read-nested");
    let (extra, go_note) = match run_go_writer(&dir, &["-nested"]) {
        Ok(lines) => (
            lines
                .into_iter()
                .map(|mut l| {
                    l["writer"] = json!("parquet-go");
                    l
                })
                .collect::<Vec<_>>(),
            None,
        ),
        Err(note) => (Vec::new(), Some(note)),
    };
    let written = run_python_json("read_nested_write.py", &json!({"out_dir": dir.0, "extra": extra}));
    let generated = start.elapsed();
    let cases = written["cases"].as_array().expect("cases");

    let mut summary = vec![format!("versions: {}", written["versions"])];
    summary.extend(go_note.clone());
    for s in written["skipped"].as_array().into_iter().flatten() {
        summary.push(format!("SKIP {} [{}]: the writer refused: {}", s["writer"], s["settings"], s["reason"]));
    }
    let (mut failed, mut total_reads) = (0, 0);
    for case in cases {
        let name = format!("{} [{}]", case["writer"].as_str().unwrap_or("?"), case["settings"].as_str().unwrap_or("?"));
        let (failures, reads) = check_case(case);
        total_reads += reads;
        let note = case["note"].as_str().map(|n| format!(" (note: {n})")).unwrap_or_default();
        if failures.is_empty() {
            summary.push(format!("ok   {name}: {reads} reads{note}\n       {}", describe(&case["layout"])));
        } else {
            failed += 1;
            let shown = failures.len().min(12);
            summary.push(format!(
                "FAIL {name}{note}: {} failures\n       {}",
                failures.len(),
                failures[..shown].join("\n       ")
            ));
        }
    }
    summary.push(format!(
        "{} cases, {total_reads} reads, {failed} cases failed; writing {:.1} s, all {:.1} s",
        cases.len(),
        generated.as_secs_f64(),
        start.elapsed().as_secs_f64()
    ));
    let summary = summary.join("\n");
    eprintln!("{summary}");
    // Each writer must have produced something: an empty run would pass vacuously.
    for writer in ["pyarrow", "duckdb", "polars", "re-paged pyarrow", "parquet-go"] {
        if writer == "parquet-go" && go_note.is_some() {
            continue;
        }
        assert!(cases.iter().any(|c| c["writer"] == writer), "no {writer} case ran:\n{summary}");
    }
    assert!(failed == 0, "parquetry reads other nested values than the reference readers:\n{summary}");
}
