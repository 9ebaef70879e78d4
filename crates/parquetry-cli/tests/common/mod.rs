//! Helpers shared by the CLI's tests: the Python interpreter and scratch directories.
#![allow(dead_code)]

use std::path::PathBuf;

/// The Python interpreter for interop checks: `$PYTHON`, else `python3`.
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
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

/// Whether the tests' Python (`$PYTHON`, else `python3`) with pyarrow is missing. Tests that
/// need it start with `if common::pyarrow_missing() { return; }`, so that a bare `cargo test`
/// on a machine without them passes with a message instead of panicking; `./test.sh`
/// installs them and sets `PARQUETRY_REQUIRE_PYTHON=1`, which turns a missing pyarrow into a
/// failure, so no test is skipped there.
pub fn pyarrow_missing() -> bool {
    static MISSING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let missing = *MISSING.get_or_init(|| {
        let ok = std::process::Command::new(&python)
            .args(["-c", "import pyarrow"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok && std::env::var_os("PARQUETRY_REQUIRE_PYTHON").is_none() {
            // Straight to the process's stderr, past the test harness's capture: once.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr().lock(),
                "note: {python} with pyarrow is missing, so the tests that compare with it are skipped \
                 (./test.sh installs it and runs them all)"
            );
        }
        !ok
    });
    if missing && std::env::var_os("PARQUETRY_REQUIRE_PYTHON").is_some() {
        panic!("{python} with pyarrow is required (PARQUETRY_REQUIRE_PYTHON is set): ./test.sh installs it");
    }
    missing
}
