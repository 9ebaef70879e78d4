#!/usr/bin/env bash
# Interoperability of parquetry's writer with arrow-rs, pyarrow and parquet-go.
#
#   scripts/interop/run.sh [OUT_DIR]
#
# 1. The `interop` binary (bench crate) writes one table under every encoding × codec × data
#    page version (CRCs in half) and reads each file back with arrow-rs: values, page index,
#    statistics, a row selection through the offset index (arrow-rs.tsv, arrow-rs.log).
# 2. The Go reader (scripts/interop/go, parquet-go) reads every file page by page and prints
#    digests of each column's values.
# 3. compare.py reads every file with pyarrow (page checksums verified), computes the same
#    digests and prints the summary table: file, arrow-rs, pyarrow, parquet-go.
# 4. controls.py writes the settings where a reader failed with pyarrow instead, and the
#    same readers run over them: a failure there is the reader's, not parquetry's.
#
# Prints the summary (Markdown) on stdout, progress on stderr. Needs cargo, go (modules from
# the Go module proxy) and python3 with pyarrow and numpy. CARGO_TARGET_DIR is honoured. The
# files are left in OUT_DIR (default: a temporary directory, removed at exit). Exit status 1
# when any reader fails or disagrees on parquetry's files.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ $# -ge 1 ]]; then
    out="$1"
    mkdir -p "$out"
else
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
fi

echo "== writing with parquetry, reading with arrow-rs (bench/src/bin/interop)" >&2
(cd "$root" && cargo build --release -q -p parquetry-bench --bin interop) || exit 2
target="${CARGO_TARGET_DIR:-$root/target}"
"$target/release/interop" "$out" > "$out/arrow-rs.log"
arrow_rs_status=$?
grep -v '^OK ' "$out/arrow-rs.log" | grep -v '^        row group' >&2

echo "== reading with parquet-go (scripts/interop/go)" >&2
(cd "$here/go" && go build -o "$out/readall" .) || exit 2
"$out/readall" "$out" > "$out/parquet-go.jsonl" || exit 2

echo "== comparing with pyarrow (scripts/interop/compare.py)" >&2
parquet_version="$(cd "$root" && cargo tree -q -p parquetry-bench -i parquet --depth 0 2>/dev/null | head -1)"
go_version="$(cd "$here/go" && go list -m -f '{{.Version}}' github.com/parquet-go/parquet-go)"
pyarrow_version="$(python3 -c 'import pyarrow; print(pyarrow.__version__)')"
echo "Readers: arrow-rs \`${parquet_version:-parquet}\` (features: arrow, every codec, crc);"
echo "pyarrow $pyarrow_version (\`page_checksum_verification=True\`);"
echo "parquet-go $go_version ($(go version | cut -d' ' -f3))."
echo
echo "arrow-rs checks values, page index, statistics and a row selection (bench/src/bin/interop);"
echo "parquet-go is compared with pyarrow by per-column digests (scripts/interop/compare.py)."
echo "\`-crc\` files carry page CRCs."
echo
grep -E '^(column indexes|[0-9]+ files)' "$out/arrow-rs.log" | sed 's/^/arrow-rs: /'
echo
python3 "$here/compare.py" "$out" "$out/parquet-go.jsonl"
compare_status=$?

echo "== controls written by pyarrow (scripts/interop/controls.py)" >&2
echo
echo "## Controls: the same table written by pyarrow"
echo
python3 "$here/controls.py" "$out/plain-uncompressed-v1.parquet" "$out/controls" || exit 2
"$out/readall" "$out/controls" > "$out/controls/parquet-go.jsonl" || exit 2
python3 "$here/compare.py" "$out/controls" "$out/controls/parquet-go.jsonl"

if [[ $arrow_rs_status -ne 0 || $compare_status -ne 0 ]]; then
    exit 1
fi
