//! `parquetry compact`: each partition's small files merged, pyarrow reading the same rows
//! from fewer files; a crash between a merge and the removal of its inputs (simulated with a
//! journal and `merge`) finished by the next run.

mod common;

use common::{parquetry, run_python as python};

/// Writes a hive dataset of many small files with pyarrow.
const WRITE: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
for part in range(6):
    t = pa.table({"id": [part * 1000 + i for i in range(200)], "v": [f"s{i}" for i in range(200)],
                  "k": [i % 2 for i in range(200)]})
    pq.write_to_dataset(t, sys.argv[1], partition_cols=["k"], basename_template=f"p{part}-{{i}}.parquet")
"#;

/// Prints the rows pyarrow reads (sorted by id) and the number of data files.
const READ: &str = r#"
import sys, glob, hashlib, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1]).sort_by("id")
print(len(glob.glob(sys.argv[1] + "/*/*.parquet")))
print(t.column("id").to_pylist() == sorted(t.column("id").to_pylist()), t.num_rows, hashlib.sha256("|".join(t.column("v").to_pylist()).encode()).hexdigest(), t.column("k").to_pylist().count(1))
"#;

#[test]
fn compact_merges_small_files_and_finishes_an_interrupted_run() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-cli-compact-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let root = dir.join("t");
    let root_s = root.to_str().unwrap();
    python(WRITE, &[root_s]);
    let before = python(READ, &[root_s]);
    assert!(before.starts_with("12\n"), "{before}");

    // A dry run plans and changes nothing.
    let out = parquetry(&["compact", "--dry-run", "--json", "--target-file-size", "1MiB", root_s]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["files_after"], 2, "{plan}");
    assert_eq!(python(READ, &[root_s]), before);

    // An interrupted run: one partition's merge complete, its inputs not yet removed.
    let part: Vec<String> =
        plan["merges"][0]["inputs"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    let output = plan["merges"][0]["output"].as_str().unwrap().to_owned();
    let mut args = vec!["merge", "--quiet", "-o", output.as_str()];
    args.extend(part.iter().map(String::as_str));
    assert!(parquetry(&args).status.success());
    let journal = std::path::Path::new(&output).with_file_name("_compaction-interrupted.json");
    let journal_text = serde_json::json!({"output": output, "inputs": part}).to_string();
    std::fs::write(&journal, journal_text).unwrap();

    let out = parquetry(&["compact", "--json", "--target-file-size", "1MiB", root_s]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let done: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["recovered"], 1, "{done}");
    assert!(!journal.exists());
    let after = python(READ, &[root_s]);
    let (files, rows) = after.split_once('\n').unwrap();
    assert_eq!(files, "2", "{after}");
    assert_eq!(rows, before.split_once('\n').unwrap().1, "the same rows");

    // Errors name the place.
    let out = parquetry(&["compact", dir.join("nope").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("nope"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
