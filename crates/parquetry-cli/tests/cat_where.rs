//! `parquetry cat --where`: the rows pyarrow's `filters=` keeps, `--stats` on stderr, and a
//! clear error for a condition that does not parse or fit the file.

use std::process::Command;

mod common;
use common::{corpus, parquetry};

#[test]
fn cat_where_keeps_pyarrows_rows_and_reports_pruning() {
    if common::pyarrow_missing() {
        return;
    }
    let file = corpus("data/alltypes_tiny_pages.parquet");
    let path = file.to_str().unwrap();
    let condition = "id BETWEEN 100 AND 109 OR (id >= 7000 AND string_col = '3')";
    let out = parquetry(&["cat", "--csv", "--columns", "id", "--where", condition, "--stats", path]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().skip(1).map(str::to_owned).collect();
    let script = r#"
import sys, pyarrow.parquet as pq, pyarrow.compute as pc
f = pc.field
expr = ((f("id") >= 100) & (f("id") <= 109)) | ((f("id") >= 7000) & (f("string_col") == "3"))
print("\n".join(str(i) for i in pq.read_table(sys.argv[1], filters=expr).column("id").to_pylist()))
"#;
    let py = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let want = Command::new(py).args(["-c", script, path]).output().expect("python3 with pyarrow");
    assert!(want.status.success(), "{}", String::from_utf8_lossy(&want.stderr));
    let want: Vec<String> = String::from_utf8(want.stdout).unwrap().lines().map(str::to_owned).collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let stats = String::from_utf8(out.stderr).unwrap();
    assert!(stats.contains("pruned by the page index") && stats.contains("selected"), "{stats}");
    for (bad, needle) in [("id >", "expected a value"), ("nope = 1", "no column 'nope'"), ("id = 'x'", "'id'")] {
        let out = parquetry(&["cat", "--where", bad, path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(needle), "{bad}: {err}");
    }
}
