//! `parquetry merge` as a user runs it: inputs written by pyarrow, each output read back by
//! pyarrow and compared with the inputs concatenated.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{python, TempDir};

fn merge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parquetry")).arg("merge").args(args).output().expect("run parquetry")
}

/// Runs a merge that must succeed; returns its stdout and stderr.
fn merge_ok(args: &[&str]) -> (String, String) {
    let out = merge(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "merge {args:?} failed: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
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

/// Writes `n` Parquet files `name{0..n}.parquet` into `dir` with pyarrow: one schema (ints,
/// nullable doubles, dictionary-encoded and unique strings, a list, a timestamp with a time
/// zone, so that ARROW:schema matters), different values per file; file `i` has `rows(i)`
/// rows in row groups of `group`, snappy, dictionary on (pyarrow's defaults).
fn write_inputs(dir: &TempDir, name: &str, n: usize, rows: &str, group: usize) -> Vec<String> {
    let script = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
out, name, n, rows, group = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
for i in range(n):
    r = eval(rows)
    base = i * 1_000_000
    t = pa.table({
        "id": pa.array(range(base, base + r), pa.int64()),
        "score": pa.array([None if (base + j) % 7 == 0 else (base + j) * 0.5 for j in range(r)], pa.float64()),
        "category": pa.array([f"cat_{(i * 3 + j) % (10 + i)}" for j in range(r)]),
        "key": pa.array([f"{i:04d}-{j:08x}" for j in range(r)]),
        "tags": pa.array([[f"t{j % 5}"] * (j % 3) if j % 11 else None for j in range(r)], pa.list_(pa.string())),
        "ts": pa.array([1_700_000_000_000_000 + base + j for j in range(r)], pa.timestamp("us", tz="Europe/Paris")),
    })
    t = t.replace_schema_metadata({"writer": f"file {i}"})
    pq.write_table(t, f"{out}/{name}{i}.parquet", row_group_size=group)
"#;
    py(script, &[dir.0.to_str().unwrap(), name, &n.to_string(), rows, &group.to_string()]);
    (0..n).map(|i| dir.path(&format!("{name}{i}.parquet"))).collect()
}

/// Checks with pyarrow that `out` holds the rows of `inputs` in order, with the first input's
/// Arrow schema and key/value metadata.
const CHECK_CONCAT: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
out, inputs = sys.argv[1], sys.argv[2:]
got = pq.read_table(out)
want = pa.concat_tables([pq.read_table(f) for f in inputs])
assert got.schema == want.schema, (got.schema, want.schema)
assert got.num_rows == want.num_rows, (got.num_rows, want.num_rows)
assert got.equals(want), "values differ"
first = pq.read_metadata(inputs[0]).metadata
assert pq.read_metadata(out).metadata == first, pq.read_metadata(out).metadata.keys()
print("ok")
"#;

#[test]
fn the_output_is_the_inputs_concatenated() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("merge", "concat");
    // Six small files (two row groups each) and one with a big row group that is copied whole.
    let mut inputs = write_inputs(&dir, "small", 6, "700 + 113 * i", 400);
    inputs.extend(write_inputs(&dir, "big", 1, "3000", 3000));
    inputs.extend(write_inputs(&dir, "tail", 2, "250", 1000));
    let out = dir.path("out.parquet");
    let mut args = vec!["--row-group-rows", "2000", "--output", &out];
    args.extend(inputs.iter().map(String::as_str));
    let (stdout, stderr) = merge_ok(&args);
    assert_eq!(stdout, "");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("9 files →") && stderr.contains("rows") && stderr.contains("(1 copied whole)"), "{stderr}");
    let mut check = vec![out.as_str()];
    check.extend(inputs.iter().map(String::as_str));
    py_ok(CHECK_CONCAT, &check);
    // Row groups stay within the target; none of them is empty.
    py_ok(
        r#"
import sys, pyarrow.parquet as pq
md = pq.read_metadata(sys.argv[1])
sizes = [md.row_group(g).num_rows for g in range(md.num_row_groups)]
assert all(0 < s <= 3000 for s in sizes) and 3000 in sizes, sizes
assert md.num_row_groups < 6 * 2 + 1 + 2, sizes
print("ok")
"#,
        &[&out],
    );
    assert!(!dir.entries().iter().any(|e| e.ends_with(".tmp")));
}

#[test]
fn recompression_changes_every_column_chunks_codec() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("merge", "codec");
    let inputs = write_inputs(&dir, "in", 3, "500", 200);
    let out = dir.path("out.parquet");
    merge_ok(&["--quiet", "--compression", "zstd:3", "-o", &out, &inputs[0], &inputs[1], &inputs[2]]);
    let mut check = vec![out.as_str()];
    check.extend(inputs.iter().map(String::as_str));
    py_ok(CHECK_CONCAT, &check);
    py_ok(
        r#"
import sys, pyarrow.parquet as pq
md = pq.read_metadata(sys.argv[1])
codecs = {md.row_group(g).column(c).compression for g in range(md.num_row_groups) for c in range(md.num_columns)}
assert codecs == {"ZSTD"}, codecs
print("ok")
"#,
        &[&out],
    );
}

#[test]
fn a_directory_means_its_parquet_files_in_name_order() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("merge", "dir");
    let parts = TempDir::new("merge", "dir-parts");
    // Written in the order 0, 1, 2 but named so that name order is 2, 0, 1.
    let written = write_inputs(&parts, "part", 3, "300 + i", 100);
    for (from, to) in written.iter().zip(["b.parquet", "c.parquet", "a.parquet"]) {
        std::fs::rename(from, parts.path(to)).unwrap();
    }
    std::fs::write(parts.path("notes.txt"), "not parquet").unwrap();
    std::fs::create_dir(parts.path("nested")).unwrap();
    let extra = write_inputs(&dir, "extra", 1, "50", 100);
    std::fs::rename(&extra[0], parts.path("nested/d.parquet")).unwrap();
    let out = dir.path("out.parquet");
    // A file after the directory comes after its files.
    let single = write_inputs(&dir, "single", 1, "77", 100);
    merge_ok(&["--quiet", "-o", &out, parts.0.to_str().unwrap(), &single[0]]);
    let (a, b, c) = (parts.path("a.parquet"), parts.path("b.parquet"), parts.path("c.parquet"));
    py_ok(CHECK_CONCAT, &[&out, &a, &b, &c, &single[0]]);
    // OUT inside the directory (from an earlier run, or a data file named by mistake) would
    // be an input too: refused, and left as it was.
    let inside = parts.path("merged.parquet");
    merge_ok(&["--quiet", "-o", &inside, parts.0.to_str().unwrap()]);
    py_ok(CHECK_CONCAT, &[&inside, &a, &b, &c]);
    let again = merge(&["-o", &inside, parts.0.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("merged.parquet is also an input"));
    py_ok(CHECK_CONCAT, &[&inside, &a, &b, &c]);
    // Hidden files (a merge's temporary file, say) are not inputs.
    std::fs::copy(&a, parts.path(".hidden.parquet")).unwrap();
    merge_ok(&["--quiet", "-o", &dir.path("again.parquet"), parts.0.to_str().unwrap()]);
    py_ok(CHECK_CONCAT, &[&dir.path("again.parquet"), &a, &b, &c, &inside]);
}

#[test]
fn json_summary_counts_what_was_done() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("merge", "json");
    let inputs = write_inputs(&dir, "in", 8, "1000 + 10 * i", 500);
    let out = dir.path("out.parquet");
    let mut args = vec!["--json", "-o", &out];
    args.extend(inputs.iter().map(String::as_str));
    let (stdout, stderr) = merge_ok(&args);
    assert_eq!(stderr, "", "--json prints no summary line");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for field in [
        "rows",
        "files",
        "row_groups_in",
        "row_groups_out",
        "row_groups_copied",
        "bytes_in",
        "bytes_out",
        "pages_copied",
        "pages_remapped",
        "pages_reencoded",
        "pages_from_dictionary",
        "seconds",
    ] {
        assert!(v.get(field).is_some(), "no {field} in {v}");
    }
    let rows: u64 = (0..8).map(|i| 1000 + 10 * i).sum();
    assert_eq!(v["rows"], rows);
    assert_eq!(v["files"], 8);
    let groups_in: u64 = (0..8u64).map(|i| (1000 + 10 * i).div_ceil(500)).sum();
    assert_eq!(v["row_groups_in"], groups_in);
    assert_eq!(v["row_groups_out"], 1, "{v}");
    assert_eq!(v["row_groups_copied"], 0);
    let bytes_in: u64 = inputs.iter().map(|f| std::fs::metadata(f).unwrap().len()).sum();
    assert_eq!(v["bytes_in"], bytes_in);
    assert_eq!(v["bytes_out"], std::fs::metadata(&out).unwrap().len());
    assert!(v["pages_remapped"].as_u64().unwrap() > 0, "the dictionary columns are remapped: {v}");
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    let pyrows = py("import sys, pyarrow.parquet as pq; print(pq.read_metadata(sys.argv[1]).num_rows)", &[&out]);
    assert_eq!(pyrows.trim(), rows.to_string());
}

/// Runs a merge that must fail; checks the message and that nothing was left behind.
fn assert_fails(dir: &TempDir, args: &[&str], cause: &str) {
    let before = dir.entries();
    let out = merge(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains(cause), "{args:?}: expected '{cause}' in: {stderr}");
    assert_eq!(dir.entries(), before, "{args:?} left files behind");
}

#[test]
fn bad_inputs_and_options_fail_naming_the_cause_and_leave_nothing() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("merge", "errors");
    let inputs = write_inputs(&dir, "in", 2, "100", 100);
    let (a, b) = (inputs[0].as_str(), inputs[1].as_str());
    let other = dir.path("other.parquet");
    py(
        r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
t = t.set_column(2, "category", pa.array(range(t.num_rows), pa.int32()))
pq.write_table(t, sys.argv[2])
"#,
        &[a, &other],
    );
    let out = dir.path("out.parquet");
    // The schema differs at 'category' (INT32 here, a string in a): the message names the
    // column and the file; no output and no temporary file are left.
    assert_fails(&dir, &["-o", &out, a, b, &other], "other.parquet");
    let stderr = String::from_utf8_lossy(&merge(&["-o", &out, a, &other]).stderr).into_owned();
    assert!(stderr.contains("'category'") && stderr.contains("the schema differs"), "{stderr}");
    assert!(!Path::new(&out).exists());
    assert_fails(&dir, &["-o", &out, a, &dir.path("missing.parquet")], "missing.parquet: cannot read it");
    assert_fails(&dir, &["-o", a, a, b], "is also an input");
    assert_fails(&dir, &["-o", b, a, b], "is also an input");
    let other_spelling = format!("{}/../{}/in0.parquet", dir.0.display(), dir.0.file_name().unwrap().to_str().unwrap());
    assert_fails(&dir, &["-o", &other_spelling, a, b], "is also an input");
    assert_fails(
        &dir,
        &["--compression", "lzo", "-o", &out, a, b],
        "merge: --compression: unknown codec 'lzo' (codecs:",
    );
    assert_fails(&dir, &["--compression", "zstd:99", "-o", &out, a, b], "'99' is not a zstd level");
    assert_fails(&dir, &["--row-group-rows", "0", "-o", &out, a], "--row-group-rows '0' is not a whole number");
    assert_fails(&dir, &["--row-group-bytes", "big", "-o", &out, a], "--row-group-bytes 'big' is not a size");
    assert_fails(&dir, &["-o", &out], "no INPUT files");
    assert_fails(&dir, &[a, b], "needs --output OUT");
    assert_fails(&dir, &["--frobnicate", "-o", &out, a], "unknown option '--frobnicate'");
    let empty = TempDir::new("merge", "errors-empty");
    assert_fails(&dir, &["-o", &out, empty.0.to_str().unwrap()], "holds no .parquet files");
    // Not Parquet: the error names the file.
    std::fs::write(dir.path("junk.parquet"), b"PAR1 this is not a parquet file").unwrap();
    assert_fails(&dir, &["-o", &out, a, &dir.path("junk.parquet")], "junk.parquet");
    // An existing OUT is replaced only on success.
    std::fs::write(&out, "old contents").unwrap();
    assert_fails(&dir, &["-o", &out, a, &other], "the schema differs");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old contents");
    merge_ok(&["--quiet", "-o", &out, a, b]);
    py_ok(CHECK_CONCAT, &[&out, a, b]);
}

#[test]
fn help_names_what_is_dropped_and_kept() {
    let (stdout, _) = merge_ok(&["--help"]);
    assert!(stdout.contains("Bloom filters are kept for row\ngroups copied whole"), "{stdout}");
    assert!(stdout.contains("ARROW:schema"), "{stdout}");
    assert!(stdout.contains("must share one schema"), "{stdout}");
}
