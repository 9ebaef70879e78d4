#!/usr/bin/env bash
# Runs parquetry's main job on a generated sample: writes a sample file with pyarrow (installed
# here if missing), then shows everything `parquetry inspect` knows about it.
set -euo pipefail
cd "$(dirname "$0")"
python3 -c "import pyarrow" 2>/dev/null ||
  python3 -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
mkdir -p target/demo
python3 scripts/make_sample.py target/demo/sample.parquet
cargo run --quiet --release -p parquetry-cli -- inspect --pages target/demo/sample.parquet
