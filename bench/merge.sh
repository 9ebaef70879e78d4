#!/usr/bin/env bash
# The merge benchmark (GUIDE.md "Measuring": merge datasets, the limit is `cat` of the
# inputs): builds the release `parquetry` binary, generates the merge datasets with pyarrow
# (bench/data/merge/), times parquetry merge, pyarrow, duckdb, polars and cat on them, checks
# every output with pyarrow (parquetry's also with duckdb, and with arrow-rs through the bench
# crate's merge_check), and prints one Markdown report. bench/merge_bench.py documents
# the datasets and every command timed.
#
#   bench/merge.sh           full datasets, 5 runs after 1 warm-up; writes
#                            bench/results/merge.md (commit it)
#   bench/merge.sh --quick   fewer and smaller files, 3 runs; writes
#                            bench/data/results/merge-quick.md (not committed)
#
# Environment: PYTHON (default python3), RUNS, WARMUP (override the run counts),
# CARGO_TARGET_DIR (where the release binary is built, default target/), DATASETS (a,b,c),
# IMPLS (parquetry,pyarrow,duckdb,polars,polars_sink,cat).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

py=${PYTHON:-python3}
if [ "$quick" = 1 ]; then
    flags=(--quick --runs "${RUNS:-3}" --warmup "${WARMUP:-1}")
else
    flags=(--runs "${RUNS:-5}" --warmup "${WARMUP:-1}")
fi
[ -n "${DATASETS:-}" ] && flags+=(--datasets "$DATASETS")
[ -n "${IMPLS:-}" ] && flags+=(--impls "$IMPLS")

step() { printf '\n== %s\n' "$*" >&2; }

step "Python peers (bench/requirements.txt)"
if ! "$py" -c 'import pyarrow, duckdb, polars, numpy' 2>/dev/null; then
    if ! "$py" -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt; then
        # An externally managed Python (PEP 668) refuses: use a virtualenv in .venv instead.
        echo "pip install refused; installing into a virtualenv at .venv" >&2
        [ -x .venv/bin/python ] || "$py" -m venv .venv
        py=.venv/bin/python
        "$py" -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt
    fi
fi

step "building parquetry (release)"
cargo build --release -p parquetry-cli
binary=${CARGO_TARGET_DIR:-target}/release/parquetry
step "building merge_check (arrow-rs reads parquetry's outputs; the bench crate)"
cargo build --release -p parquetry-bench --bin merge_check
merge_check=${CARGO_TARGET_DIR:-target}/release/merge_check

step "datasets and timings"
mkdir -p bench/data/results
"$py" bench/merge_bench.py --binary "$binary" --merge-check "$merge_check" --json bench/data/results/merge$([ "$quick" = 1 ] && echo -quick).json "${flags[@]}"
