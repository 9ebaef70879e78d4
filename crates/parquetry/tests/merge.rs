//! Merging: inputs written by pyarrow (dictionary and plain, every page version, dictionary
//! fallback mid-chunk, tiny pages, CRCs, page indexes, nested columns, 0-row inputs), duckdb
//! and polars, merged by parquetry; pyarrow reads the output equal to the inputs concatenated.
//! A schema mismatch and a truncated input give errors and leave no output.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use parquetry::compress::{Codec, Compression};
use parquetry::merge::{merge_files, MergeOptions};

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn script() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/merge_cases.py")
}

fn make_cases(dir: &Path) -> Vec<String> {
    let out = Command::new(common::python())
        .arg(script())
        .arg("make")
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 ({e}); ./test.sh installs pyarrow"));
    assert!(out.status.success(), "merge_cases.py make failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect()
}

fn inputs_of(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    v.sort();
    v
}

fn check(out: &Path, inputs: &[PathBuf]) -> serde_json::Value {
    let o = Command::new(common::python()).arg(script()).arg("check").arg(out).args(inputs).output().unwrap();
    assert!(o.status.success(), "merge_cases.py check failed:\n{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn merged_files_read_as_the_inputs_concatenated() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir(std::env::temp_dir().join(format!("parquetry-merge-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let mut failures = Vec::new();
    for case in make_cases(&dir.0) {
        let inputs = inputs_of(&dir.0.join(&case));
        let settings: Vec<(&str, MergeOptions)> = vec![
            ("default", MergeOptions::default()),
            ("small_groups", MergeOptions::default().with_row_group_rows(2500)),
            ("tiny_dictionary", MergeOptions::default().with_dictionary_page_size_limit(500).with_row_group_rows(7000)),
            ("zstd", MergeOptions::default().with_compression(Compression::zstd(3))),
            ("copy_whole", MergeOptions::default().with_row_group_rows(100)),
            // The output written by a thread of its own: coalesced pages, and whole row
            // groups copied (by the kernel) between them.
            ("threads", MergeOptions::default().with_threads(2)),
            ("copy_whole_threads", MergeOptions::default().with_row_group_rows(100).with_threads(2)),
        ];
        for (name, options) in settings {
            let out = dir.0.join(format!("{case}-{name}.out.parquet"));
            match merge_files(&inputs, &out, &options) {
                Ok(summary) => {
                    let r = check(&out, &inputs);
                    if r["equal"] != true {
                        failures.push(format!("{case}/{name}: {r} ({summary:?})"));
                    }
                    // The work was done the way it is meant to be: small row groups coalesced,
                    // dictionary pages remapped, PLAIN fallback past a small dictionary limit.
                    let p = summary.pages;
                    let expect = match (case.as_str(), name) {
                        ("dict_snappy", "default") => r["row_groups"] == 1 && p.remapped > 0 && p.reencoded == 0,
                        ("plain_zstd", "default") => r["row_groups"] == 1 && p.copied > 0 && p.remapped == 0,
                        // Unique columns (id, n, x) past the limit become PLAIN pages made of
                        // their input dictionary pages (v1 SNAPPY, v2 gzip, no codec); the
                        // rest (category, a new codec) are gathered and compressed.
                        ("dict_snappy" | "v2_gzip_mixed" | "dict_none" | "v2_snappy", "tiny_dictionary") => {
                            p.remapped > 0 && p.reencoded > 0 && p.from_dictionary > 0
                        }
                        (_, "zstd") => p.from_dictionary == 0,
                        ("dict_snappy", "copy_whole" | "copy_whole_threads") => summary.row_groups_copied == 8,
                        _ => true,
                    };
                    if !expect {
                        failures.push(format!("{case}/{name}: unexpected work: {summary:?}, {r}"));
                    }
                }
                Err(e) => failures.push(format!("{case}/{name}: merge failed: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn bad_inputs_leave_no_output() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir(std::env::temp_dir().join(format!("parquetry-merge-bad-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    make_cases(&dir.0);
    let out = dir.0.join("out.parquet");
    // Different schemas: the nested case has a column more.
    let a = inputs_of(&dir.0.join("single"));
    let b = inputs_of(&dir.0.join("nested"));
    let inputs = [a[0].clone(), b[0].clone()];
    let e = merge_files(&inputs, &out, &MergeOptions::default()).unwrap_err();
    assert!(e.message().contains("schema differs"), "{e}");
    assert!(!out.exists());
    // A corrupt input: a page header overwritten (pyarrow checks it cannot read the file).
    let src = inputs_of(&dir.0.join("plain_zstd"))[0].clone();
    let bad = dir.0.join("corrupt.parquet");
    let o = Command::new(common::python()).arg(script()).arg("corrupt").arg(&src).arg(&bad).output().unwrap();
    assert!(o.status.success(), "merge_cases.py corrupt failed:\n{}", String::from_utf8_lossy(&o.stderr));
    let inputs = [src.clone(), bad.clone(), src.clone()];
    let e = merge_files(
        &inputs,
        &out,
        &MergeOptions::default().with_row_group_rows(1 << 30).with_compression(Codec::Snappy),
    );
    assert!(e.is_err(), "a corrupt input merged without error");
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    // The output may not be an input.
    let e = merge_files(std::slice::from_ref(&src), &src, &MergeOptions::default()).unwrap_err();
    assert!(e.message().contains("also an input"), "{e}");
}
