#!/usr/bin/env bash
# One command for the whole benchmark (issue 3): installs the Python peers, generates the
# datasets of ../shared/GUIDE.md ("Measuring"), builds the Rust bench in release, times
# parquetry, arrow-rs, pyarrow, polars and duckdb and the limits (decompress-only, memcpy)
# reading the same files, then writing them back from Arrow batches in memory (limits:
# compress-only, memcpy), and prints one Markdown report. A batch-size sweep (parquetry,
# arrow-rs and pyarrow reading batch by batch, parquetry and pyarrow also with threads,
# polars whole files, a 1% row selection, and the limit: parquetry-bench sweep,
# bench/sweep_peers.py) gets a report of its own, and so do nested columns (a list<string>
# column and a struct of the strings columns beside the same flat columns, parquetry vs
# arrow-rs at every batch size: parquetry-bench nested). Last, the Python package against
# pyarrow and polars in one process (reads, writes, merges: bench/python_bench.py; it needs
# the parquetry package installed in $PYTHON, and is skipped otherwise).
#
#   bench/run.sh           full datasets (2,000,000-row files), 5 runs after 1 warm-up;
#                          writes bench/results/latest.md, the write part alone in
#                          bench/results/latest-write.md, and the sweep in
#                          bench/results/latest-sweep.md, nested columns in
#                          bench/results/latest-nested.md, the Python package in
#                          bench/results/python.md (commit them)
#   bench/run.sh --quick   200,000-row files, 3 runs; a few minutes once built and
#                          generated; writes bench/data/results/latest-quick.md and
#                          bench/data/results/latest-sweep-quick.md and
#                          bench/data/results/python-quick.md (not committed)
#
# Environment: PYTHON (default python3), RUNS, WARMUP (override the run counts),
# CARGO_TARGET_DIR (where cargo builds; default target/).
# Intermediate JSON goes to bench/data/results/ (gitignored). Cells run one at a time.
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."

quick=0
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        -h|--help) sed -n '2,28p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

py=${PYTHON:-python3}
if [ "$quick" = 1 ]; then
    data=bench/data/quick; tag=-quick; gen_flags=--quick
    runs=${RUNS:-3}; warmup=${WARMUP:-1}; footer_runs=7
    out=bench/data/results/latest-quick.md; title="parquetry benchmarks (quick: 200,000-row files)"
    write_out=; sweep_out=bench/data/results/latest-sweep-quick.md
    nested_out=bench/data/results/latest-nested-quick.md
    python_out=bench/data/results/python-quick.md
else
    data=bench/data; tag=; gen_flags=
    runs=${RUNS:-5}; warmup=${WARMUP:-1}; footer_runs=21
    out=bench/results/latest.md; title="parquetry benchmarks: reading Parquet into Arrow"
    write_out=bench/results/latest-write.md; sweep_out=bench/results/latest-sweep.md
    nested_out=bench/results/latest-nested.md
    python_out=bench/results/python.md
fi
results=bench/data/results
mkdir -p "$results"

step() { printf '\n== %s\n' "$*" >&2; }

step "Python peers (bench/requirements.txt)"
if ! "$py" -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt; then
    # An externally managed Python (PEP 668) refuses: use a virtualenv in .venv instead.
    echo "pip install refused; installing into a virtualenv at .venv" >&2
    [ -x .venv/bin/python ] || "$py" -m venv .venv
    py=.venv/bin/python
    "$py" -m pip install --quiet --disable-pip-version-check -r bench/requirements.txt
fi

step "datasets ($data)"
"$py" bench/datasets.py $gen_flags

step "building parquetry-bench (release)"
cargo build --release -p parquetry-bench
bench=${CARGO_TARGET_DIR:-target}/release/parquetry-bench

files=()
for layout in plain dict delta_length delta; do
    for codec in none snappy zstd; do
        files+=("$data/strings_${layout}_${codec}.parquet")
    done
done
files+=("$data/blobs_zstd.parquet" "$data/numeric_snappy.parquet")

step "peers: pyarrow, polars, duckdb ($runs runs after $warmup warm-up)"
"$py" bench/peers.py --files "${files[@]}" --runs "$runs" --warmup "$warmup" \
    --json "$results/peers$tag.json"

step "parquetry, arrow-rs, limits ($runs runs after $warmup warm-up)"
"$bench" read --files "${files[@]}" --runs "$runs" --warmup "$warmup" \
    --reference "$results/peers$tag.json" --json "$results/rust$tag.json"

step "batch-size sweep: pyarrow iter_batches (with and without threads), polars ($runs runs after $warmup warm-up)"
"$py" bench/sweep_peers.py --files "${files[@]}" --runs "$runs" --warmup "$warmup" \
    --json "$results/sweep-peers$tag.json"

step "batch-size sweep: parquetry (1, 2 threads), arrow-rs, selection, limit ($runs runs after $warmup warm-up; $sweep_out)"
# Progress goes to stderr; stdout is the Markdown report.
"$bench" sweep --files "${files[@]}" --runs "$runs" --warmup "$warmup" \
    --peers "$results/sweep-peers$tag.json" --json "$results/sweep$tag.json" > "$sweep_out"

step "nested columns: parquetry vs arrow-rs at every batch size ($runs runs after $warmup warm-up; $nested_out)"
nested_files=()
for codec in none snappy zstd; do
    nested_files+=("$data/lists_$codec.parquet" "$data/struct_dict_$codec.parquet" "$data/strings_dict_$codec.parquet")
done
"$bench" nested --files "${nested_files[@]}" --runs "$runs" --warmup "$warmup" \
    --json "$results/nested$tag.json" > "$nested_out"

step "writes: peers pyarrow, polars, duckdb ($runs runs after $warmup warm-up)"
"$py" bench/peers.py --mode write --files "${files[@]}" --runs "$runs" --warmup "$warmup" \
    --json "$results/peers-write$tag.json"

step "writes: parquetry, arrow-rs, limits ($runs runs after $warmup warm-up)"
"$bench" write --files "${files[@]}" --runs "$runs" --warmup "$warmup" \
    --reference "$results/peers-write$tag.json" --json "$results/rust-write$tag.json"

step "footer decode"
"$bench" footer --runs "$footer_runs" > "$results/footer$tag.md"

step "report ($out)"
"$py" bench/report.py --rust "$results/rust$tag.json" --peers "$results/peers$tag.json" \
    --footer "$results/footer$tag.md" --rust-write "$results/rust-write$tag.json" \
    --peers-write "$results/peers-write$tag.json" --title "$title" --out "$out"
if [ -n "$write_out" ]; then
    "$py" bench/report.py --rust-write "$results/rust-write$tag.json" \
        --peers-write "$results/peers-write$tag.json" \
        --title "parquetry benchmarks: writing Arrow to Parquet" --out "$write_out" > /dev/null
fi

step "Python package: parquetry vs pyarrow and polars in one process ($runs runs after $warmup warm-up; $python_out)"
if "$py" -c 'import parquetry' 2>/dev/null; then
    "$py" bench/python_bench.py $gen_flags --runs "$runs" --warmup "$warmup" \
        --json "$results/python$tag.json" --out "$python_out" > /dev/null
else
    echo "the parquetry package is not installed in $py: skipped (README, \"Using the Python package\")" >&2
fi
