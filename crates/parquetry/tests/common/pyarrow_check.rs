//! Whether the tests can compare with pyarrow (shared with the CLI's tests).

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
