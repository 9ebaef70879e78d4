//! `parquetry cat` and `inspect` of datasets (a hive-partitioned folder and a glob written
//! by pyarrow): the rows pyarrow.dataset reads, in file order, with the same partition
//! columns; `merge` of a glob; and clear errors for an empty folder.

mod common;

use common::{parquetry, run_python as python};

/// Writes a hive dataset with pyarrow (partitions k and s, a null k).
const WRITE: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 500
t = pa.table({"id": list(range(n)), "x": [i * 7 % 100 for i in range(n)],
              "k": [None if i % 9 == 0 else i % 3 for i in range(n)], "s": ["a b" if i % 4 else "c/d" for i in range(n)]})
pq.write_to_dataset(t, sys.argv[1], partition_cols=["k", "s"], basename_template="part-{i}.parquet")
"#;

/// Prints what pyarrow.dataset reads (file order, filtered) as CSV lines id,x,k,s.
const EXPECT: &str = r#"
import sys, pyarrow.dataset as ds, pyarrow.compute as pc
d = ds.dataset(sys.argv[1], format="parquet", partitioning="hive")
expr = (pc.field("k") == 1) & (pc.field("x") < 50) if sys.argv[2] == "filtered" else None
t = d.to_table(filter=expr, use_threads=False)
def show(v):
    return "" if v is None else str(v)
for row in t.select(["id", "x", "k", "s"]).to_pylist():
    print(",".join(show(row[c]) for c in ["id", "x", "k", "s"]))
"#;

#[test]
fn cat_of_a_hive_folder_reads_what_pyarrow_dataset_reads() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-cli-dataset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let root = dir.join("t");
    python(WRITE, &[root.to_str().unwrap()]);
    for (mode, filter) in [("all", None), ("filtered", Some("k = 1 AND x < 50"))] {
        let mut args = vec!["cat", "--csv", "--columns", "id,x,k,s", root.to_str().unwrap()];
        if let Some(f) = filter {
            args.extend(["--where", f]);
        }
        let out = parquetry(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let got: Vec<String> =
            String::from_utf8(out.stdout).unwrap().lines().skip(1).map(|l| l.replace('"', "")).collect();
        let want: Vec<String> = python(EXPECT, &[root.to_str().unwrap(), mode]).lines().map(str::to_owned).collect();
        assert!(!want.is_empty());
        assert_eq!(got, want, "{mode}");
    }
    // inspect names every file and the partition columns.
    let out = parquetry(&["inspect", "--json", root.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["rows"], 500);
    assert_eq!(report["partition_columns"], serde_json::json!(["k", "s"]));
    // merge of a glob: its files in path order, one file pyarrow reads with every row.
    let merged = dir.join("merged.parquet");
    let glob = format!("{}/k=*/*/*.parquet", root.display());
    let out = parquetry(&["merge", "--quiet", "-o", merged.to_str().unwrap(), &glob]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = python(
        "import sys, pyarrow.parquet as pq; print(pq.read_metadata(sys.argv[1]).num_rows)",
        &[merged.to_str().unwrap()],
    );
    assert_eq!(rows.trim(), "500");
    // An empty folder is an error naming it.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = parquetry(&["cat", empty.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("empty") && err.contains("no Parquet files"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
