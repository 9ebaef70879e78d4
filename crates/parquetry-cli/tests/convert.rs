//! `parquetry convert` as a user runs it, each output checked by pyarrow against pyarrow's own
//! reading of the input.

use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::{python, TempDir};

fn convert(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parquetry")).arg("convert").args(args).output().expect("run parquetry")
}

fn convert_ok(args: &[&str]) -> String {
    let out = convert(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "convert {args:?} failed: {stderr}");
    stderr
}

/// Runs a Python script with arguments; returns its stdout, panicking with its stderr on failure.
fn py(script: &str, args: &[&str]) -> String {
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 with pyarrow (./test.sh installs it)");
    assert!(out.status.success(), "python failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts that a script comparing two things printed "ok".
fn py_ok(script: &str, args: &[&str]) {
    let out = py(script, args);
    assert_eq!(out.trim(), "ok", "python said: {out}");
}

/// A CSV with ints, floats, quoted strings holding commas, quotes and a newline, empty fields,
/// booleans, dates and non-ASCII text; 2,500 rows so that small batches make several.
fn write_csv(path: &str) {
    let mut csv = String::from("id,price,name,flag,day\n");
    csv.push_str("1,1.5,\"a, b\",true,2024-01-15\n");
    csv.push_str("2,,\"say \"\"hi\"\"\",false,2024-02-01\n");
    csv.push_str("3,3.25,,true,\n");
    csv.push_str("4,-2e3,Zürich ✓ 東京,,2024-03-03\n");
    csv.push_str("5,0.1,\"two\nlines\",FALSE,2024-12-31\n");
    for i in 6..=2500 {
        let price = if i % 7 == 0 { String::new() } else { format!("{}.{}", i * 3, i % 100) };
        let name = if i % 13 == 0 { String::new() } else { format!("\"name {i}, \"\"q\"\"\"") };
        csv.push_str(&format!("{i},{price},{name},{},2024-01-{:02}\n", i % 2 == 0, i % 28 + 1));
    }
    std::fs::write(path, csv).unwrap();
}

#[test]
fn csv_to_parquet_reads_as_pyarrow_reads_the_csv() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "csv");
    let (csv, out) = (dir.path("in.csv"), dir.path("out.parquet"));
    write_csv(&csv);
    let stderr = convert_ok(&["--batch-size", "1000", "--row-group-size", "1024", &csv, &out]);
    // Not a terminal: no progress bar, only the summary line.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("2500 rows, 3 row groups"), "{stderr}");
    // arrow-csv reads an empty field as null in every column; pyarrow does so for strings only
    // with strings_can_be_null=True (its default reads "" there). Inferred types agree:
    // int64, double, string, bool, date32.
    py_ok(
        r#"
import sys, pyarrow.parquet as pq, pyarrow.csv as pc
got = pq.read_table(sys.argv[1])
want = pc.read_csv(sys.argv[2], convert_options=pc.ConvertOptions(strings_can_be_null=True))
assert got.schema.types == want.schema.types, (got.schema, want.schema)
assert got.to_pylist() == want.to_pylist()
print("ok")
"#,
        &[&out, &csv],
    );
    assert_eq!(dir.entries(), ["in.csv", "out.parquet"]);
}

#[test]
fn jsonl_to_parquet_reads_as_pyarrow_reads_the_json() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "jsonl");
    let (json, out) = (dir.path("in.jsonl"), dir.path("out.parquet"));
    let mut text = String::new();
    text.push_str("{\"id\": 1, \"s\": \"a, \\\"b\\\"\", \"f\": 1.5, \"b\": true}\n");
    text.push_str("{\"id\": 2, \"s\": null, \"f\": 2}\n");
    text.push_str("{\"id\": 3, \"s\": \"Zürich ✓\", \"f\": null, \"b\": false}\n");
    for i in 4..3000 {
        text.push_str(&format!("{{\"id\": {i}, \"s\": \"v{}\", \"f\": {}.25, \"b\": {}}}\n", i % 50, i, i % 3 == 0));
    }
    std::fs::write(&json, text).unwrap();
    convert_ok(&["--quiet", "--batch-size", "700", &json, &out]);
    // Both infer int64, string, double, bool.
    py_ok(
        r#"
import sys, pyarrow.parquet as pq, pyarrow.json as pj
got = pq.read_table(sys.argv[1])
want = pj.read_json(sys.argv[2])
assert got.schema.types == want.schema.types, (got.schema, want.schema)
assert got.to_pylist() == want.to_pylist()
print("ok")
"#,
        &[&out, &json],
    );
}

#[test]
fn nested_jsonl_to_parquet_and_back_to_jsonl() {
    if common::pyarrow_missing() {
        return;
    }
    // Objects and arrays in JSON lines become structs and lists (arrow-json infers them), are
    // written nested, read by pyarrow as pyarrow reads the JSON, and converted back to the same
    // JSON lines, and to CSV with JSON text cells.
    let dir = TempDir::new("convert", "nested-jsonl");
    let (json, out, back, csv) =
        (dir.path("in.jsonl"), dir.path("out.parquet"), dir.path("back.jsonl"), dir.path("out.csv"));
    let mut text = String::new();
    for i in 0..2000 {
        let tags = match i % 4 {
            0 => "null".to_owned(),
            1 => "[]".to_owned(),
            _ => format!("[\"t{}\", \"t{}\"]", i % 7, i % 5),
        };
        let rec =
            if i % 6 == 0 { "null".to_owned() } else { format!("{{\"b\": {i}, \"c\": [{}, {}]}}", i % 3, i % 11) };
        text.push_str(&format!("{{\"id\": {i}, \"tags\": {tags}, \"rec\": {rec}}}\n"));
    }
    std::fs::write(&json, text).unwrap();
    convert_ok(&["--quiet", "--batch-size", "300", &json, &out]);
    convert_ok(&["--quiet", &out, &back]);
    // CSV cells hold lists and structs as compact JSON text.
    convert_ok(&["--quiet", &out, &csv]);
    py_ok(
        r#"
import sys, csv, json, pyarrow.parquet as pq
rows = pq.read_table(sys.argv[1]).to_pylist()
with open(sys.argv[2], newline="") as f:
    cells = list(csv.DictReader(f))
assert len(cells) == len(rows)
for row, cell in zip(rows, cells):
    for name in ("tags", "rec"):
        assert (json.loads(cell[name]) if cell[name] else None) == row[name], (name, row, cell)
print("ok")
"#,
        &[&out, &csv],
    );
    py_ok(
        r#"
import sys, json, pyarrow.parquet as pq, pyarrow.json as pj
got = pq.read_table(sys.argv[1])
want = pj.read_json(sys.argv[2])
assert got.to_pylist() == want.to_pylist()
with open(sys.argv[2]) as a, open(sys.argv[3]) as b:
    assert [json.loads(l) for l in a] == [json.loads(l) for l in b]
print("ok")
"#,
        &[&out, &json, &back],
    );
}

/// The table the IPC tests write: several types, nulls, non-ASCII text, a dictionary column.
const MAKE_TABLE: &str = r#"
import sys, datetime, pyarrow as pa
n = 5000
table = pa.table({
    "i32": pa.array([i if i % 9 else None for i in range(n)], pa.int32()),
    "i64": pa.array([i * 1_000_003 for i in range(n)], pa.int64()),
    "f64": pa.array([i / 7 for i in range(n)], pa.float64()),
    "s": pa.array([None if i % 5 == 0 else f"text {i} ✓" for i in range(n)], pa.string()),
    "ls": pa.array([f"large {i % 17}" for i in range(n)], pa.large_string()),
    "b": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
    "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i) for i in range(n)], pa.date32()),
    "ts": pa.array([i * 1_000_000 for i in range(n)], pa.timestamp("us", tz="UTC")),
    "cat": pa.array([f"c{i % 4}" for i in range(n)]).dictionary_encode(),
})
"#;

const COMPARE_WITH_IPC: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
got = pq.read_table(sys.argv[1])
want = pa.ipc.open_file(sys.argv[2]).read_all()
assert got.schema == want.schema, (got.schema, want.schema)
assert got.to_pylist() == want.to_pylist()
print("ok")
"#;

#[test]
fn ipc_file_to_parquet_keeps_types_and_values() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "ipc");
    let (ipc, out) = (dir.path("in.arrow"), dir.path("out.parquet"));
    let script = format!("{MAKE_TABLE}\nwith pa.ipc.new_file(sys.argv[1], table.schema) as w:\n    for b in table.to_batches(max_chunksize=1500): w.write_batch(b)\n");
    py(&script, &[&ipc]);
    convert_ok(&["--compression", "snappy", &ipc, &out]);
    py_ok(COMPARE_WITH_IPC, &[&out, &ipc]);
}

#[test]
fn ipc_stream_on_stdin_to_parquet() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "stdin");
    let (stream, file, out) = (dir.path("in.arrows"), dir.path("same.arrow"), dir.path("out.parquet"));
    let script = format!(
        "{MAKE_TABLE}\nwith pa.ipc.new_stream(sys.argv[1], table.schema) as w:\n    for b in table.to_batches(max_chunksize=1200): w.write_batch(b)\n\
         with pa.ipc.new_file(sys.argv[2], table.schema) as w:\n    w.write_table(table)\n"
    );
    py(&script, &[&stream, &file]);
    let child = Command::new(env!("CARGO_BIN_EXE_parquetry"))
        .args(["convert", "-", &out])
        .stdin(std::fs::File::open(&stream).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success(), "{stderr}");
    assert!(stderr.contains("5000 rows"), "{stderr}");
    py_ok(COMPARE_WITH_IPC, &[&out, &file]);
    // An .arrows file is read the same way.
    let out2 = dir.path("out2.parquet");
    convert_ok(&["-q", &stream, &out2]);
    py_ok(COMPARE_WITH_IPC, &[&out2, &file]);
}

/// A pyarrow-written Parquet file of 1,000 rows: ints, strings with nulls, doubles.
fn write_parquet(path: &str) {
    py(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 1000
pq.write_table(pa.table({
    "id": pa.array(range(n), pa.int64()),
    "name": pa.array([None if i % 11 == 0 else f"name {i % 37}, \"é\"" for i in range(n)]),
    "score": pa.array([i * 0.25 for i in range(n)]),
    "small": pa.array([i % 100 for i in range(n)], pa.int32()),
}), sys.argv[1])
"#,
        &[path],
    );
}

#[test]
fn parquet_reencoded_with_codec_encoding_page_version_and_row_groups() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "reencode");
    let (input, out) = (dir.path("in.parquet"), dir.path("out.parquet"));
    write_parquet(&input);
    let stderr = convert_ok(&[
        "--compression",
        "zstd:3",
        "--encoding",
        "DELTA_LENGTH_BYTE_ARRAY",
        "--no-dictionary",
        "--data-page-version",
        "2",
        "--row-group-size",
        "100",
        &input,
        &out,
    ]);
    // The encoding goes to the string column; the others are named in a note.
    assert!(stderr.contains("does not fit id (Int64), score (Float64), small (Int32)"), "{stderr}");
    assert!(stderr.contains("1000 rows, 10 row groups"), "{stderr}");
    py_ok(
        r#"
import sys, pyarrow.parquet as pq
got, want = pq.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
assert got.equals(want), (got.schema, want.schema)
meta = pq.ParquetFile(sys.argv[1]).metadata
assert meta.num_row_groups == 10
for g in range(10):
    rg = meta.row_group(g)
    assert rg.num_rows == 100
    for c in range(rg.num_columns):
        col = rg.column(c)
        assert col.compression == "ZSTD", col
        assert not col.has_dictionary_page, col
        if col.path_in_schema == "name":
            assert "DELTA_LENGTH_BYTE_ARRAY" in col.encodings, col.encodings
        else:
            assert "PLAIN" in col.encodings and "DELTA_LENGTH_BYTE_ARRAY" not in col.encodings, col.encodings
print("ok")
"#,
        &[&out, &input],
    );
    // pyarrow does not show page headers; parquetry inspect does: every data page is v2.
    let inspect =
        Command::new(env!("CARGO_BIN_EXE_parquetry")).args(["inspect", "--json", "--pages", &out]).output().unwrap();
    assert!(inspect.status.success());
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(text.contains("DATA_PAGE_V2") && !text.contains("\"DATA_PAGE\""), "{text}");
}

#[test]
fn parquet_per_column_encodings() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "percolumn");
    let (input, out) = (dir.path("in.parquet"), dir.path("out.parquet"));
    write_parquet(&input);
    convert_ok(&[
        "-q",
        "--encoding",
        "id=delta_binary_packed",
        "--encoding",
        "name=DELTA_BYTE_ARRAY",
        "--encoding",
        "score=BYTE_STREAM_SPLIT",
        "--compression",
        "gzip:9",
        "--no-statistics",
        "--no-page-index",
        "--page-size",
        "1K",
        &input,
        &out,
    ]);
    py_ok(
        r#"
import sys, pyarrow.parquet as pq
got, want = pq.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
assert got.equals(want)
rg = pq.ParquetFile(sys.argv[1]).metadata.row_group(0)
enc = {rg.column(c).path_in_schema: rg.column(c).encodings for c in range(rg.num_columns)}
assert "DELTA_BINARY_PACKED" in enc["id"], enc
assert "DELTA_BYTE_ARRAY" in enc["name"], enc
assert "BYTE_STREAM_SPLIT" in enc["score"], enc
assert rg.column(3).has_dictionary_page, "small keeps the default dictionary"
assert all(rg.column(c).compression == "GZIP" for c in range(rg.num_columns))
assert not any(rg.column(c).is_stats_set for c in range(rg.num_columns))
assert not rg.column(0).has_column_index and not rg.column(0).has_offset_index
print("ok")
"#,
        &[&out, &input],
    );
}

#[test]
fn bloom_filters_on_named_columns_read_by_duckdb_and_shown_by_inspect() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "bloom");
    let (input, out) = (dir.path("in.parquet"), dir.path("out.parquet"));
    write_parquet(&input);
    convert_ok(&["-q", "--bloom-filter", "id:1000:0.01", "--bloom-filter", "name", &input, &out]);
    // duckdb finds every value and rules out absent ones; pyarrow sees the filters' places.
    py_ok(
        r#"
import sys, duckdb, pyarrow.parquet as pq
path = sys.argv[1]
assert pq.read_table(path).equals(pq.read_table(sys.argv[2]))
rg = pq.ParquetFile(path).metadata.row_group(0)
has = [rg.column(c).bloom_filter_offset is not None for c in range(rg.num_columns)]
assert has == [True, True, False, False], has
probe = lambda col, v: duckdb.execute(
    "SELECT bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)", [path, col, v]).fetchone()[0]
assert not any(probe("id", i) for i in range(0, 1000, 7))
assert sum(probe("id", i) for i in range(1000, 1100)) >= 95
assert not probe("name", 'name 5, "é"')
assert probe("name", "not a name")
print("ok")
"#,
        &[&out, &input],
    );
    let inspect = Command::new(env!("CARGO_BIN_EXE_parquetry")).args(["inspect", "--json", &out]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&inspect.stdout).unwrap();
    let columns = &report["row_groups"][0]["columns"];
    // 1,000 values at 1%: 1,200 bytes planned, 2 KiB as a power of two, not foldable.
    assert_eq!(columns[0]["bloom_filter"]["bitset_bytes"], 2048, "{columns}");
    assert!(columns[1]["bloom_filter"]["bitset_bytes"].as_u64().is_some(), "{columns}");
    assert!(columns[2]["bloom_filter"].is_null(), "{columns}");
    let bad = convert(&["-q", "--bloom-filter", "nope", &input, &dir.path("x.parquet")]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("'nope'"), "{bad:?}");
}

#[test]
fn parquet_to_csv_jsonl_and_arrow_match_pyarrow_read_of_the_input() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "fromparquet");
    let input = dir.path("in.parquet");
    write_parquet(&input);
    let (csv, jsonl, arrow) = (dir.path("out.csv"), dir.path("out.jsonl"), dir.path("out.arrow"));
    for out in [&csv, &jsonl, &arrow] {
        let stderr = convert_ok(&["--batch-size", "300", &input, out]);
        assert!(stderr.contains("1000 rows,") && !stderr.contains("row group"), "{stderr}");
    }
    py_ok(
        r#"
import sys, json, pyarrow as pa, pyarrow.parquet as pq, pyarrow.csv as pc
want = pq.read_table(sys.argv[1])
csv = pc.read_csv(sys.argv[2], convert_options=pc.ConvertOptions(strings_can_be_null=True))
assert csv.column_names == want.column_names
assert csv.to_pylist() == want.to_pylist()
with open(sys.argv[3], encoding="utf-8") as f:
    rows = [json.loads(line) for line in f]
assert rows == want.to_pylist(), rows[:3]
ipc = pa.ipc.open_file(sys.argv[4]).read_all()
assert ipc.equals(want), (ipc.schema, want.schema)
print("ok")
"#,
        &[&input, &csv, &jsonl, &arrow],
    );
}

/// Runs a conversion that must fail; checks the message and that nothing was left behind.
fn assert_fails(dir: &TempDir, args: &[&str], output: &str, cause: &str) {
    let before = dir.entries();
    let out = convert(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains(cause), "{args:?}: expected '{cause}' in: {stderr}");
    if !before.iter().any(|e| e == output) {
        assert!(!Path::new(&dir.path(output)).exists(), "{args:?} left {output}");
    }
    assert_eq!(dir.entries(), before, "{args:?} left files behind");
    assert!(!dir.entries().iter().any(|e| e.ends_with(".tmp")));
}

#[test]
fn bad_options_and_inputs_fail_naming_the_cause_and_leave_nothing() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "errors");
    let (input, csv) = (dir.path("in.parquet"), dir.path("in.csv"));
    write_parquet(&input);
    write_csv(&csv);
    let out = dir.path("out.parquet");
    let cases: &[(&[&str], &str)] = &[
        (&["--compression", "lzo"], "unknown codec 'lzo' (codecs: none, uncompressed, snappy"),
        (&["--compression", "zstd:30"], "'30' is not a zstd level (1..=22"),
        (&["--compression", "gzip:high"], "'high' is not a gzip level (0..=9)"),
        (&["--compression", "snappy:2"], "snappy takes no level"),
        (&["--encoding", "SUPERFAST"], "unknown encoding 'SUPERFAST' (encodings: PLAIN, RLE,"),
        (
            &["--encoding", "name=DELTA_BINARY_PACKED"],
            "DELTA_BINARY_PACKED encoder only supports INT32 and INT64, not BYTE_ARRAY",
        ),
        (&["--encoding", "nope=PLAIN"], "the input has no column 'nope' (columns: id, name, score, small)"),
        (&["--encoding", "RLE"], "--encoding RLE: no column of the input can take it"),
        (&["--data-page-version", "3"], "--data-page-version '3' is not 1 or 2"),
        (&["--row-group-size", "0"], "--row-group-size '0' is not a whole number of at least 1"),
        (&["--page-size", "big"], "--page-size 'big' is not a size"),
        (&["--batch-size", "-5"], "--batch-size '-5' is not a whole number of at least 1"),
        (&["--frobnicate"], "unknown option '--frobnicate'"),
    ];
    for (options, cause) in cases {
        let mut args = options.to_vec();
        args.extend([input.as_str(), out.as_str()]);
        assert_fails(&dir, &args, "out.parquet", cause);
    }
    // A missing input, an unknown extension, input == output (also through another spelling).
    assert_fails(&dir, &[&dir.path("missing.csv"), &out], "out.parquet", "missing.csv: cannot read it");
    assert_fails(
        &dir,
        &[&input, &dir.path("out.txt")],
        "out.txt",
        "unknown output format '.txt' (known: .parquet, .csv",
    );
    assert_fails(&dir, &[&dir.path("in.xlsx"), &out], "out.parquet", "unknown input format '.xlsx' (known: .parquet");
    assert_fails(&dir, &[&input, &input], "in.parquet", "is the input file");
    let other_spelling = format!("{}/../{}/in.parquet", dir.0.display(), dir.0.file_name().unwrap().to_str().unwrap());
    assert_fails(&dir, &[&input, &other_spelling], "in.parquet", "is the input file");
    assert_fails(
        &dir,
        &["--compression", "zstd", &input, &dir.path("out.csv")],
        "out.csv",
        "--compression applies to Parquet output only",
    );
    // Parquet options on a CSV input are fine; the input's own error names the line.
    let bad = dir.path("bad.csv");
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str("2501,1.0,x,true,2024-01-01,surplus\n");
    std::fs::write(&bad, &text).unwrap();
    // arrow-csv counts lines as CSV records with the header as line 1 (its check of field
    // counts does; convert makes its value errors agree): the new row is record 2,502, though
    // it is on the file's line 2,503, as one quoted value above holds a newline.
    assert_fails(&dir, &[&bad, &out], "out.parquet", "incorrect number of fields for line 2502, expected 5 got 6");
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str("oops,1.0,x,true,2024-01-01\n");
    std::fs::write(&bad, &text).unwrap();
    // Small batches and row groups: the writer has written row groups when the error comes.
    let args = ["--batch-size", "500", "--row-group-size", "1000", bad.as_str(), out.as_str()];
    assert_fails(&dir, &args, "out.parquet", "parsing value 'oops' as type 'Int64' for column 0 at line 2502");
    std::fs::write(&bad, "").unwrap();
    assert_fails(&dir, &[&bad, &out], "out.parquet", "bad.csv: the input has no columns");
    // Inside the rows used for inference, the CSV reader's own check names the line.
    std::fs::write(&bad, "a,b\n1,2\n3\n").unwrap();
    assert_fails(&dir, &[&bad, &out], "out.parquet", "found 1 records at line 3");
    // Past the rows used for inference (--infer-rows), the same holds.
    std::fs::write(&bad, "a,b\n1,2\n3,4\nx,5\n").unwrap();
    assert_fails(&dir, &["--infer-rows", "2", &bad, &out], "out.parquet", "'x' as type 'Int64' for column 0 at line 4");
}

#[test]
fn an_existing_output_is_replaced_only_on_success() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("convert", "replace");
    let (input, out) = (dir.path("in.parquet"), dir.path("out.csv"));
    write_parquet(&input);
    std::fs::write(&out, "old contents\n").unwrap();
    let bad = convert(&["--batch-size", "x", &input, &out]);
    assert!(!bad.status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old contents\n");
    assert_eq!(convert_ok(&["--quiet", &input, &out]), "");
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("id,name,score,small\n"));
    assert_eq!(dir.entries(), ["in.parquet", "out.csv"]);
}
