#!/usr/bin/env bash
# Runs parquetry's main job on a generated sample: writes a sample file with pyarrow (installed
# here if missing), shows what `parquetry inspect` knows about it, then reads its first rows
# with `parquetry cat`.
set -euo pipefail
cd "$(dirname "$0")"
python3 -c "import pyarrow" 2>/dev/null ||
  python3 -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
mkdir -p target/demo
python3 scripts/make_sample.py target/demo/sample.parquet
cargo build --quiet --release -p parquetry-cli
./target/release/parquetry inspect target/demo/sample.parquet
echo
echo "First rows (parquetry cat --columns id,category,price,quantity,ts --limit 8):"
./target/release/parquetry cat --columns id,category,price,quantity,ts --limit 8 target/demo/sample.parquet
