#!/usr/bin/env bash
# Runs every test. Installs what the interop tests need (pyarrow) first. The parquet-testing
# corpus is expected at ../shared/parquet-testing (or set PARQUET_TESTING_DIR).
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
cargo test --workspace --exclude parquetry-bench
