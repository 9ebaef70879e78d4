//! The Arrow schema parquetry derives for each corpus file is the one pyarrow reads.
//!
//! pyarrow runs in a subprocess (tests/support/pyarrow_schema.py) and prints its schemas in a
//! small canonical grammar that `canon` below also writes.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use arrow_schema::{DataType, TimeUnit};
use parquetry::format;
use parquetry::schema::{arrow_schema, SchemaDescriptor};

fn unit(u: &TimeUnit) -> &'static str {
    match u {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

fn canon(t: &DataType) -> String {
    use DataType as D;
    match t {
        D::Dictionary(k, v) => format!("dictionary<{},{}>", canon(k), canon(v)),
        D::LargeList(f) => format!("large_list<{}>", canon(f.data_type())),
        D::FixedSizeList(f, n) => format!("fixed_size_list<{},{n}>", canon(f.data_type())),
        D::List(f) => format!("list<{}>", canon(f.data_type())),
        D::Map(f, _) => match f.data_type() {
            D::Struct(kv) if kv.len() == 2 => {
                format!("map<{},{}>", canon(kv[0].data_type()), canon(kv[1].data_type()))
            }
            other => format!("map<{other:?}>"),
        },
        D::Struct(fs) => {
            let inner: Vec<String> = fs.iter().map(|f| format!("{}:{}", f.name(), canon(f.data_type()))).collect();
            format!("struct<{}>", inner.join(","))
        }
        D::Timestamp(u, tz) => format!("timestamp[{},{}]", unit(u), tz.as_deref().unwrap_or("")),
        D::Time32(u) | D::Time64(u) => format!("time[{}]", unit(u)),
        D::Duration(u) => format!("duration[{}]", unit(u)),
        D::Decimal32(p, s) => format!("decimal32({p},{s})"),
        D::Decimal64(p, s) => format!("decimal64({p},{s})"),
        D::Decimal128(p, s) => format!("decimal128({p},{s})"),
        D::Decimal256(p, s) => format!("decimal256({p},{s})"),
        D::FixedSizeBinary(n) => format!("fixed_size_binary[{n}]"),
        D::Utf8 => "string".into(),
        D::LargeUtf8 => "large_string".into(),
        D::Utf8View => "string_view".into(),
        D::Binary => "binary".into(),
        D::LargeBinary => "large_binary".into(),
        D::BinaryView => "binary_view".into(),
        D::Boolean => "bool".into(),
        D::Null => "null".into(),
        D::Date32 => "date32".into(),
        D::Date64 => "date64".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

#[test]
fn arrow_schema_matches_pyarrow_for_every_readable_corpus_file() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = common::corpus_dir();
    let rows: Vec<_> = common::manifest().into_iter().filter(|r| r.readable_by_pyarrow == "yes").collect();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/pyarrow_schema.py");
    let mut child = Command::new(common::python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run python3 (test.sh installs pyarrow)");
    {
        let mut stdin = child.stdin.take().unwrap();
        for r in &rows {
            writeln!(stdin, "{}", dir.join(&r.path).display()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "pyarrow script failed (is pyarrow installed? run ./test.sh)");
    let expected: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let mut failures = Vec::new();
    for r in &rows {
        let path = dir.join(&r.path);
        let want = &expected[path.display().to_string()];
        let Some(want) = want.as_array() else { continue };
        let bytes = std::fs::read(&path).unwrap();
        let meta = format::read_metadata_from_bytes(&bytes).unwrap();
        let desc = SchemaDescriptor::from_metadata(&meta).unwrap();
        let schema = arrow_schema(&desc, meta.key_value_metadata.as_deref()).unwrap();
        let got: Vec<serde_json::Value> = schema
            .fields()
            .iter()
            .map(|f| serde_json::json!([f.name(), canon(f.data_type()), f.is_nullable()]))
            .collect();
        if &got != want {
            failures.push(format!("{}:\n  pyarrow:   {want:?}\n  parquetry: {got:?}", r.path));
        }
    }
    assert!(failures.is_empty(), "{} files differ:\n{}", failures.len(), failures.join("\n"));
}
