#!/usr/bin/env bash
# Runs parquetry's main jobs on a generated sample: writes a sample file with pyarrow (installed
# here if missing), shows what `parquetry inspect` knows about it, reads its first rows with
# `parquetry cat`, writes Parquet from CSV with `parquetry convert`, and merges files with
# `parquetry merge`.
set -euo pipefail
cd "$(dirname "$0")"
python3 -c "import pyarrow" 2>/dev/null ||
  python3 -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
mkdir -p target/demo
python3 scripts/make_sample.py target/demo/sample.parquet
cargo build --quiet --release -p parquetry-cli
pq=./target/release/parquetry
$pq inspect target/demo/sample.parquet
echo
echo "First rows (parquetry cat --limit 8; tags is a list<string> column):"
$pq cat --limit 8 target/demo/sample.parquet
echo
echo "The same rows as JSON lines (parquetry cat --json --columns id,tags --limit 2):"
$pq cat --json --columns id,tags --limit 2 target/demo/sample.parquet
echo
echo "Writing: the flat columns as CSV, then back to Parquet (zstd, DELTA_LENGTH_BYTE_ARRAY for id):"
$pq cat --columns id,category,price,quantity,ts --csv target/demo/sample.parquet > target/demo/sample.csv
$pq convert target/demo/sample.csv target/demo/from_csv.parquet --compression zstd \
  --encoding id=DELTA_LENGTH_BYTE_ARRAY
$pq cat --limit 3 target/demo/from_csv.parquet
echo
echo "Merging: the sample's 2 row groups, three times over, into one file without decoding values:"
$pq merge --json --output target/demo/merged.parquet target/demo/sample.parquet \
  target/demo/sample.parquet target/demo/sample.parquet
$pq cat --columns id,category --limit 3 target/demo/merged.parquet
