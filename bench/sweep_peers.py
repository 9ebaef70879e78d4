#!/usr/bin/env python3
"""Time pyarrow reading Parquet batch by batch at several batch sizes (the pyarrow side of
`parquetry-bench sweep`).

Usage:
    python3 bench/sweep_peers.py --files F1 F2 ... [--batch-sizes 1024,8192,65536,0]
                                 [--runs 5] [--warmup 1] --json out.json

A run is

    with pq.ParquetFile(path) as f:           # pyarrow's defaults otherwise (pre_buffer)
        for batch in f.iter_batches(batch_size=B, use_threads=False):
            ...                               # count rows, then drop the batch

so it streams: each batch is dropped before the next is read, and opening the file (its
footer) is timed, as in the Rust sweep. Batch size 0 means whole row groups: B is the
largest row group's row count (pyarrow cuts batches at row group boundaries).

All runs happen in this one process, interleaved like the Rust sweep's: for each file, round
k reads at every batch size before round k + 1 reads at any, so that load from other work on
the (shared) machine falls on all batch sizes alike. Each figure is the median of the timed
rounds. Before timing, each batch size is read once more, collecting its batches, to record
the output's checksum (bench/peers.py `table_checksum`), which `parquetry-bench sweep --peers`
compares with parquetry's.

Results are keyed by file path, then by batch size ("1024", ..., "row_group" for 0), the
keys the Rust sweep uses.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import time
from pathlib import Path
from statistics import median

import pyarrow as pa
import pyarrow.parquet as pq

from peers import table_checksum

DEFAULT_BATCH_SIZES = [1024, 8192, 65536, 0]


def batch_key(batch_size: int) -> str:
    """The JSON key of a batch size: the same as the Rust sweep's."""
    return "row_group" if batch_size == 0 else str(batch_size)


def read(path: str, batch_size: int, keep: bool) -> tuple[int, int, int, list]:
    """One read: (rows, batches, largest batch's rows, kept batches if keep)."""
    rows = batches = largest = 0
    kept = []
    with pq.ParquetFile(path) as f:
        for batch in f.iter_batches(batch_size=batch_size, use_threads=False):
            rows += batch.num_rows
            batches += 1
            largest = max(largest, batch.num_rows)
            if keep:
                kept.append(batch)
            # Dropped here rather than when the loop variable is rebound, which would keep it
            # alive while the next batch is decoded.
            del batch
    return rows, batches, largest, kept


def check(path: str, batch_size: int) -> dict:
    """Untimed: read once, keeping every batch, and checksum the output."""
    rows, batches, largest, kept = read(path, batch_size, keep=True)
    schema = kept[0].schema if kept else pq.read_schema(path)
    table = pa.Table.from_batches(kept, schema=schema)
    return {"rows": rows, "batches": batches, "max_batch_rows": largest,
            "checksum": table_checksum(table)}


def sweep_file(path: str, sizes: list[int], runs: int, warmup: int) -> dict:
    meta = pq.ParquetFile(path).metadata
    rg_rows = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    largest = max(rg_rows, default=1) or 1
    rows_per_batch = {b: (largest if b == 0 else b) for b in sizes}
    results = {batch_key(b): {"batch_size_rows": rows_per_batch[b], **check(path, rows_per_batch[b])}
               for b in sizes}
    times: dict[int, list[float]] = {b: [] for b in sizes}
    cpu: dict[int, list[float]] = {b: [] for b in sizes}
    load_before = os.getloadavg()[0]
    for k in range(warmup + runs):
        for b in sizes:
            gc.collect()  # untimed: a collection must not land inside one reader's run
            c0, t0 = time.process_time(), time.perf_counter()
            rows, _, _, _ = read(path, rows_per_batch[b], keep=False)
            t1, c1 = time.perf_counter(), time.process_time()
            cell = results[batch_key(b)]
            if rows != cell["rows"]:
                cell["error"] = f"run {k + 1} read {rows} rows, the check {cell['rows']}"
            if k >= warmup:
                times[b].append(t1 - t0)
                cpu[b].append(c1 - c0)
    for b in sizes:
        cell = results[batch_key(b)]
        cell.update({"median_s": median(times[b]), "times_s": times[b],
                     "median_cpu_s": median(cpu[b])})
        print(f"{Path(path).name:36} batch {batch_key(b):>9}  pyarrow_stream "
              f"{cell['median_s'] * 1e3:9.2f} ms", flush=True)
    return {"name": Path(path).name, "file_bytes": os.path.getsize(path),
            "row_group_rows": rg_rows, "rows": meta.num_rows,
            "loadavg_1min_before_after": [load_before, os.getloadavg()[0]],
            "results": results}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", nargs="+", required=True)
    ap.add_argument("--batch-sizes", default=",".join(map(str, DEFAULT_BATCH_SIZES)),
                    help="comma-separated rows per batch; 0 = whole row groups")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--json", required=True, help="where to write the results")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    try:
        sizes = list(dict.fromkeys(int(s) for s in args.batch_sizes.split(",") if s))
    except ValueError:
        ap.error(f"--batch-sizes: not a list of numbers: {args.batch_sizes!r}")
    if not sizes or min(sizes) < 0:
        ap.error("--batch-sizes: give at least one size, none negative")
    pool = pa.default_memory_pool()
    report = {
        "meta": {
            "tool": "bench/sweep_peers.py",
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "runs": args.runs, "warmup": args.warmup,
            "batch_sizes": [batch_key(b) for b in sizes],
            "impl": "pq.ParquetFile(path).iter_batches(batch_size=B, use_threads=False), "
                    "each batch dropped",
            "versions": {"python": platform.python_version(), "pyarrow": pa.__version__},
            "arrow_pool": pool.backend_name,
            "units": "seconds",
        },
        "files": {},
    }
    for path in args.files:
        report["files"][path] = sweep_file(path, sizes, args.runs, args.warmup)
        Path(args.json).write_text(json.dumps(report, indent=1))
    report["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
