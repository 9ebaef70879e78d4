//! The `parquetry` binary as a user runs it, checked against pyarrow and the corpus manifest.

use std::process::{Command, Stdio};

mod common;
use common::corpus;

fn parquetry(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_parquetry")).args(args).output().expect("run parquetry")
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

#[test]
fn inspect_json_reports_the_footer_facts() {
    let file = corpus("data/alltypes_plain.parquet");
    let out = parquetry(&["inspect", "--json", "--pages", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // MANIFEST.tsv: 8 rows, 1 row group; the file has 11 columns, all UNCOMPRESSED.
    assert_eq!(v["num_rows"], 8);
    assert_eq!(v["num_row_groups"], 1);
    assert_eq!(v["num_columns"], 11);
    let cols = v["row_groups"][0]["columns"].as_array().unwrap();
    assert!(cols.iter().all(|c| c["codec"] == "UNCOMPRESSED"));
    assert!(cols.iter().all(|c| !c["pages"].as_array().unwrap().is_empty()));
}

#[test]
fn cat_arrow_stream_is_what_pyarrow_reads_from_the_file() {
    if common::pyarrow_missing() {
        return;
    }
    let script = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
stream = pa.ipc.open_stream(sys.stdin.buffer).read_all()
expected = pq.read_table(sys.argv[1])
assert stream.num_rows == expected.num_rows, (stream.num_rows, expected.num_rows)
for name in expected.column_names:
    a, b = stream.column(name).combine_chunks(), expected.column(name).combine_chunks()
    if isinstance(b.type, pa.BaseExtensionType):
        b = b.storage
    assert a.equals(b), (name, a.slice(0, 3), b.slice(0, 3))
print("ok")
"#;
    for name in [
        "data/alltypes_plain.parquet",
        "data/delta_byte_array.parquet",
        "data/byte_array_decimal.parquet",
        "data/delta_encoding_optional_column.parquet",
        "data/nested_lists.snappy.parquet",
        "data/nullable.impala.parquet",
        "data/nested_maps.snappy.parquet",
        "data/repeated_no_annotation.parquet",
    ] {
        let file = corpus(name);
        let mut cat = Command::new(env!("CARGO_BIN_EXE_parquetry"))
            .args(["cat", "--format", "arrow", "--batch-size", "3", file.to_str().unwrap()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let check = Command::new(python())
            .args(["-c", script, file.to_str().unwrap()])
            .stdin(cat.stdout.take().unwrap())
            .output()
            .expect("python3 with pyarrow (./test.sh installs it)");
        assert!(cat.wait().unwrap().success(), "{name}: parquetry cat failed");
        assert!(
            check.status.success() && String::from_utf8_lossy(&check.stdout).trim() == "ok",
            "{name}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

#[test]
fn cat_rows_are_the_same_rows_of_pyarrows_table() {
    if common::pyarrow_missing() {
        return;
    }
    let script = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
stream = pa.ipc.open_stream(sys.stdin.buffer).read_all()
t = pq.read_table(sys.argv[1])
parts = []
for r in sys.argv[2].split(","):
    a, b = r.split("..")
    a = int(a or 0); b = int(b) if b else t.num_rows
    parts.append(t.slice(a, b - a))
expected = pa.concat_tables(parts)
assert stream.num_rows == expected.num_rows, (stream.num_rows, expected.num_rows)
for name in expected.column_names:
    assert stream.column(name).combine_chunks().equals(expected.column(name).combine_chunks()), name
print("ok")
"#;
    for (name, rows) in [
        ("data/delta_encoding_optional_column.parquet", "1..3,50..70,99.."),
        ("data/alltypes_plain.parquet", "..2,5..6"),
        ("data/alltypes_tiny_pages.parquet", "3..900,4000..4100,7290.."),
    ] {
        let file = corpus(name);
        let mut cat = Command::new(env!("CARGO_BIN_EXE_parquetry"))
            .args(["cat", "--format", "arrow", "--rows", rows, "--batch-size", "7", file.to_str().unwrap()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let check = Command::new(python())
            .args(["-c", script, file.to_str().unwrap(), rows])
            .stdin(cat.stdout.take().unwrap())
            .output()
            .expect("python3 with pyarrow (./test.sh installs it)");
        assert!(cat.wait().unwrap().success(), "{name}: parquetry cat --rows {rows} failed");
        assert!(
            check.status.success() && String::from_utf8_lossy(&check.stdout).trim() == "ok",
            "{name} --rows {rows}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    let out = parquetry(&["cat", "--rows", "4..2", corpus("data/alltypes_plain.parquet").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("range 0 (4..2) is empty"));
}

#[test]
fn cat_json_lines_and_csv_hold_every_row() {
    let file = corpus("data/alltypes_plain.parquet");
    let out = parquetry(&["cat", "--json", "--columns", "id,string_col", file.to_str().unwrap()]);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // The file's ids, in file order, as pyarrow and the corpus README give them.
    let ids: Vec<i64> = lines.iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [4, 5, 6, 7, 2, 3, 0, 1]);
    let out = parquetry(&["cat", "--csv", "--limit", "3", file.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 4, "header + 3 rows");
}

#[test]
fn cat_json_prints_nested_values_as_pyarrow_holds_them() {
    if common::pyarrow_missing() {
        return;
    }
    // pyarrow's Python values, with maps as objects (to_pylist gives key/value pairs) and
    // floats kept as JSON numbers, against `cat --json`, line by line.
    let script = r#"
import json, sys, pyarrow as pa, pyarrow.parquet as pq
def plain(v, t):
    if v is None:
        return None
    if pa.types.is_map(t):
        return {str(k): plain(x, t.item_type) for k, x in v}
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [plain(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: plain(v[f.name], f.type) for f in t}
    return v
table = pq.read_table(sys.argv[1])
for row in table.to_pylist():
    print(json.dumps({f.name: plain(row[f.name], f.type) for f in table.schema}))
"#;
    for name in ["data/nullable.impala.parquet", "data/nested_lists.snappy.parquet", "data/nested_maps.snappy.parquet"]
    {
        let file = corpus(name);
        let out = parquetry(&["cat", "--json", file.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let want = Command::new(python()).args(["-c", script, file.to_str().unwrap()]).output().unwrap();
        assert!(want.status.success(), "{}", String::from_utf8_lossy(&want.stderr));
        // Numbers as f64: pyarrow prints a double 1.0 as `1.0`, parquetry as `1`.
        fn numbers_as_f64(v: serde_json::Value) -> serde_json::Value {
            use serde_json::Value as V;
            match v {
                V::Number(n) => serde_json::json!(n.as_f64()),
                V::Array(a) => V::Array(a.into_iter().map(numbers_as_f64).collect()),
                V::Object(o) => V::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect()),
                v => v,
            }
        }
        let lines = |b: &[u8]| -> Vec<serde_json::Value> {
            String::from_utf8_lossy(b).lines().map(|l| numbers_as_f64(serde_json::from_str(l).unwrap())).collect()
        };
        let (got, want) = (lines(&out.stdout), lines(&want.stdout));
        assert!(!want.is_empty(), "{name}: pyarrow printed no rows");
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn bad_input_is_a_clear_error_not_a_crash() {
    let bad = corpus("bad_data/PARQUET-1481.parquet");
    let out = parquetry(&["cat", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));

    let out = parquetry(&["cat", "--columns", "nope", corpus("data/alltypes_plain.parquet").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no column named 'nope'"));

    let out = parquetry(&["inspect", corpus("data/uniform_encryption.parquet.encrypted").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("encrypted files are not supported yet"));

    let out = parquetry(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(1));
}
