//! Helpers of the writer's interop tests: scratch directories, Arrow IPC files of the input
//! (what the Python side reads as the reference), parquetry files written with given options,
//! and Python scripts that take a JSON request on stdin and answer JSON on stdout.
//!
//! Include with `#[path = "common/write_helpers.rs"] mod write_helpers;` beside `mod common;`.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema, SchemaRef};
use parquetry::format::Encoding;
use parquetry::write::{ParquetWriter, WriteOptions};

/// A scratch directory, removed when dropped unless `PARQUETRY_KEEP_TEST_FILES` is set (then
/// its path is printed, to look at the files by hand).
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh directory under the system temp dir, named by `tag`, the process id and a
    /// counter (tests of one binary run in parallel).
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("parquetry-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// `name` inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

/// The names in `dir`, sorted: what a write left behind.
#[allow(dead_code)] // not every test file checks what is left
pub fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("PARQUETRY_KEEP_TEST_FILES").is_some() {
            eprintln!("kept {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Writes `batches` as an uncompressed Arrow IPC file (the reference the Python side reads).
pub fn write_ipc(path: &Path, schema: &SchemaRef, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = arrow_ipc::writer::FileWriter::try_new_buffered(file, schema).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
}

/// Writes a Parquet file with parquetry, panicking with the path and error on failure.
pub fn write_parquet(path: &Path, schema: &SchemaRef, batches: &[RecordBatch], options: WriteOptions) {
    try_write_parquet(path, schema, batches, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Writes a Parquet file with parquetry, returning the writer's error.
pub fn try_write_parquet(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    options: WriteOptions,
) -> Result<(), parquetry::Error> {
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut w = ParquetWriter::try_new(file, schema.clone(), options)?;
    for b in batches {
        w.write(b)?;
    }
    w.close().map(|_| ())
}

/// Sets each column's non-dictionary encoding by its type: `ints` for integer-like columns,
/// `bytes` for BYTE_ARRAY, `floats` for FLOAT/DOUBLE, `fixed` for FIXED_LEN_BYTE_ARRAY
/// (as write_roundtrip.rs does). Arrow dictionaries keep the default: pyarrow reads a
/// dictionary-typed column only from dictionary or PLAIN pages ("DecodeArrow of
/// DictAccumulator for DeltaLengthByteArrayDecoder" otherwise).
pub fn per_type(
    mut o: WriteOptions,
    schema: &Schema,
    ints: Encoding,
    bytes: Encoding,
    floats: Encoding,
    fixed: Encoding,
) -> WriteOptions {
    for f in schema.fields() {
        let e = match f.data_type() {
            DataType::Dictionary(..) | DataType::Boolean | DataType::Null => continue,
            DataType::Float32 | DataType::Float64 => floats,
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView => bytes,
            DataType::FixedSizeBinary(_) | DataType::Float16 => fixed,
            DataType::Decimal128(p, _) | DataType::Decimal256(p, _) if *p > 18 => fixed,
            _ => ints,
        };
        o = o.with_column_encoding(f.name(), e);
    }
    o
}

/// Runs `tests/support/<script>` with `request` as JSON on stdin; returns its stdout as JSON.
/// Panics (with stderr) if Python, a module or the script fails.
pub fn run_python_json(script: &str, request: &serde_json::Value) -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support").join(script);
    let python = super::common::python();
    let mut child = Command::new(&python)
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python} ({e}): ./test.sh installs what the tests need"));
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(request.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{script} failed (./test.sh installs pyarrow, polars and duckdb from requirements-test.txt):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{script}: bad JSON ({e}):\n{}", String::from_utf8_lossy(&out.stdout)))
}

/// Builds scripts/interop/go-writer (parquet-go) into `dir` when `go` (or `$GO`) is on PATH
/// and runs it with `args` and an output directory inside `dir`: the JSON line it prints for
/// each file written, or, without Go, a note saying the part was skipped. A build or run
/// failure with Go present panics.
pub fn run_go_writer(dir: &TempDir, args: &[&str]) -> Result<Vec<serde_json::Value>, String> {
    let go = std::env::var("GO").unwrap_or_else(|_| "go".to_owned());
    if Command::new(&go).arg("version").output().map_or(true, |o| !o.status.success()) {
        return Err(format!("parquet-go part skipped: `{go}` is not on PATH"));
    }
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/interop/go-writer");
    let exe = dir.join("go-writer");
    let out =
        Command::new(&go).args(["build", "-o"]).arg(&exe).arg(".").current_dir(source).output().expect("run go build");
    assert!(
        out.status.success(),
        "go build of scripts/interop/go-writer failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).args(args).arg(dir.join("go")).output().expect("run go-writer");
    assert!(out.status.success(), "go-writer failed:\n{}", String::from_utf8_lossy(&out.stderr));
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("go-writer output {l:?}: {e}")))
        .collect())
}

/// What a file's layout (decoded by parquet_layout.py) lacks of what its case's settings
/// name: an encoding among `encodings` the settings mention (lower case) with no data page in
/// it (PARQUET_VERSION V2 means DELTA_BINARY_PACKED), and page versions and dictionary pages
/// against "page v1/v2", "dictionary pages" and "no dictionary". One line per problem.
pub fn settings_layout_problems(settings: &str, layout: &serde_json::Value, encodings: &[&'static str]) -> Vec<String> {
    let has = |key: &str, what: &str| layout[key].as_array().is_some_and(|a| a.iter().any(|v| v == what));
    let mut named: Vec<&str> = encodings.iter().copied().filter(|e| settings.contains(&e.to_lowercase())).collect();
    if settings.contains("parquet_version v2") {
        named.push("DELTA_BINARY_PACKED");
    }
    let mut problems: Vec<String> =
        named.into_iter().filter(|e| !has("encodings", e)).map(|e| format!("no {e} page: {layout}")).collect();
    for (phrase, page_type, present) in [
        ("page v2", "DATA_PAGE_V2", true),
        ("page v1", "DATA_PAGE_V2", false),
        ("dictionary pages", "DICTIONARY_PAGE", true),
        ("no dictionary", "DICTIONARY_PAGE", false),
    ] {
        if settings.contains(phrase) && has("page_types", page_type) != present {
            problems.push(format!("'{phrase}' but the page types are {}", layout["page_types"]));
        }
    }
    problems
}
