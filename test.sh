#!/usr/bin/env bash
# Runs every test: formatting and lints (rustfmt, clippy with no warnings), the Rust tests,
# then the Python package's (built with maturin, installed, tested with pytest, including
# pyarrow's own Parquet tests with parquetry in place of pyarrow.parquet). Installs what the
# tests need (pyarrow, maturin, pytest...) first. The parquet-testing corpus is expected at
# ../shared/parquet-testing (or set PARQUET_TESTING_DIR).
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
cargo fmt --all -- --check
cargo clippy --workspace --exclude parquetry-bench --all-targets --quiet -- -D warnings
# The Python extension is built by maturin below (it links against Python as a module; a
# `cargo test` build of it would only compile pyo3 for nothing).
# Tests that compare with pyarrow skip themselves when it is missing (a bare `cargo test`);
# here it was just installed, and a missing one is a failure.
PARQUETRY_REQUIRE_PYTHON=1 cargo test --workspace --exclude parquetry-bench --exclude parquetry-python
# A release build: the pytest suite reads the whole corpus, and a wheel is what users get.
rm -rf target/wheels
python3 -m maturin build --release --quiet -m crates/parquetry-python/Cargo.toml -o target/wheels
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/parquetry-*.whl
python3 -m pytest -q crates/parquetry-python/tests
