//! Helpers shared by the CLI's tests: the Python interpreter and scratch directories.
#![allow(dead_code)]

use std::path::PathBuf;

/// The Python interpreter for interop checks: `$PYTHON`, else `python3`.
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// A file of the parquet-testing corpus: `$PARQUET_TESTING_DIR`, else `../shared/parquet-testing`
/// beside the repository.
pub fn corpus(path: &str) -> PathBuf {
    let dir = std::env::var_os("PARQUET_TESTING_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/parquet-testing"));
    dir.join(path)
}

/// A fresh directory under the system temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `parquetry-{tag}-{name}-{pid}`, emptied first.
    pub fn new(tag: &str, name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("parquetry-{tag}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The path of `name` inside the directory.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }

    /// Every entry of the directory, hidden ones included, sorted.
    pub fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[path = "../../../parquetry/tests/common/moto.rs"]
pub mod moto;
#[path = "../../../parquetry/tests/common/pyarrow_check.rs"]
mod pyarrow_check;
#[allow(unused_imports)] // Not every test file compares with pyarrow.
pub use pyarrow_check::pyarrow_missing;

/// Runs the `parquetry` binary built for these tests.
pub fn parquetry(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_parquetry")).args(args).output().expect("run parquetry")
}

/// Runs a Python script (`python3 -c`) with arguments and returns its stdout; fails the test
/// when it fails.
pub fn run_python(script: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(python()).arg("-c").arg(script).args(args).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}
