#!/usr/bin/env python3
"""Time pyarrow reading Parquet batch by batch at several batch sizes, and polars reading
whole files (the Python side of `parquetry-bench sweep`).

Usage:
    python3 bench/sweep_peers.py --files F1 F2 ... [--batch-sizes 1024,8192,65536,0]
                                 [--runs 5] [--warmup 1] [--no-polars] --json out.json

Cells, per batch size B:

  pyarrow_stream   with pq.ParquetFile(path) as f:   # pyarrow's defaults otherwise (pre_buffer)
                       for batch in f.iter_batches(batch_size=B, use_threads=False):
                           ...                       # count rows, then drop the batch
  pyarrow_threads  the same with use_threads=True (pyarrow's CPU pool, pa.cpu_count() threads)

and per file, under the key "whole_file", if polars is installed (and --no-polars not given):

  polars_read      pl.read_parquet(path)
  polars_scan      pl.scan_parquet(path).collect()

polars runs on its own thread pool, all cores by default (POLARS_MAX_THREADS, if set, limits
it; the pool's size is recorded). pyarrow cells stream: each batch is dropped before the next
is read, and opening the file (its footer) is timed, as in the Rust sweep. Batch size 0 means
whole row groups: B is the largest row group's row count (pyarrow cuts batches at row group
boundaries).

All runs happen in this one process, interleaved like the Rust sweep's: for each file, round
k runs every cell before round k + 1 runs any, so that load from other work on the (shared)
machine falls on all cells alike. Each figure is the median of the timed rounds. Before
timing, each cell runs once more, keeping its output, to record the output's checksum
(bench/peers.py `table_checksum`), which `parquetry-bench sweep --peers` compares with
parquetry's.

Results are keyed by file path, then by batch size ("1024", ..., "row_group" for 0, the keys
the Rust sweep uses, and "whole_file"), then by cell name.
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
from typing import Callable

import pyarrow as pa
import pyarrow.parquet as pq

from peers import table_checksum

try:
    import polars as pl
except ImportError:  # polars is optional here: without it the sweep has no polars cells
    pl = None

DEFAULT_BATCH_SIZES = [1024, 8192, 65536, 0]
WHOLE_FILE_KEY = "whole_file"


def batch_key(batch_size: int) -> str:
    """The JSON key of a batch size: the same as the Rust sweep's."""
    return "row_group" if batch_size == 0 else str(batch_size)


def read_batches(path: str, batch_size: int, threads: bool, keep: bool) -> tuple[int, int, int, list]:
    """One pyarrow read: (rows, batches, largest batch's rows, kept batches if keep)."""
    rows = batches = largest = 0
    kept = []
    with pq.ParquetFile(path) as f:
        for batch in f.iter_batches(batch_size=batch_size, use_threads=threads):
            rows += batch.num_rows
            batches += 1
            largest = max(largest, batch.num_rows)
            if keep:
                kept.append(batch)
            # Dropped here rather than when the loop variable is rebound, which would keep it
            # alive while the next batch is decoded.
            del batch
    return rows, batches, largest, kept


class Cell:
    """One timed cell: run(keep) returns (rows, batches, largest batch, output table if keep)."""

    def __init__(self, key: str, name: str, run: Callable[[bool], tuple], info: dict):
        self.key, self.name, self.run, self.info = key, name, run, info
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.result: dict = {}

    def check(self) -> None:
        """Untimed: run once, keeping the output, and checksum it."""
        rows, batches, largest, table = self.run(True)
        self.result = {**self.info, "rows": rows, "batches": batches, "max_batch_rows": largest,
                       "checksum": table_checksum(table)}


def pyarrow_cell(path: str, b: int, rows_per_batch: int, threads: bool) -> Cell:
    def run(keep: bool) -> tuple:
        rows, batches, largest, kept = read_batches(path, rows_per_batch, threads, keep)
        table = None
        if keep:
            schema = kept[0].schema if kept else pq.read_schema(path)
            table = pa.Table.from_batches(kept, schema=schema)
        return rows, batches, largest, table

    name = "pyarrow_threads" if threads else "pyarrow_stream"
    return Cell(batch_key(b), name, run, {"batch_size_rows": rows_per_batch, "use_threads": threads})


def polars_cell(path: str, scan: bool) -> Cell:
    def run(keep: bool) -> tuple:
        df = pl.scan_parquet(path).collect() if scan else pl.read_parquet(path)
        rows = df.height
        table = df.to_arrow() if keep else None
        del df
        return rows, 1, rows, table

    call = "pl.scan_parquet(path).collect()" if scan else "pl.read_parquet(path)"
    return Cell(WHOLE_FILE_KEY, "polars_scan" if scan else "polars_read", run, {"call": call})


def sweep_file(path: str, sizes: list[int], runs: int, warmup: int, polars: bool) -> dict:
    meta = pq.ParquetFile(path).metadata
    rg_rows = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    largest = max(rg_rows, default=1) or 1
    cells = [pyarrow_cell(path, b, largest if b == 0 else b, threads)
             for b in sizes for threads in (False, True)]
    if polars:
        cells += [polars_cell(path, scan) for scan in (False, True)]
    for cell in cells:
        cell.check()
    load_before = os.getloadavg()[0]
    for k in range(warmup + runs):
        for cell in cells:
            gc.collect()  # untimed: a collection must not land inside one reader's run
            c0, t0 = time.process_time(), time.perf_counter()
            rows, _, _, _ = cell.run(False)
            t1, c1 = time.perf_counter(), time.process_time()
            if rows != cell.result["rows"]:
                cell.result["error"] = f"run {k + 1} read {rows} rows, the check {cell.result['rows']}"
            if k >= warmup:
                cell.times.append(t1 - t0)
                cell.cpu.append(c1 - c0)
    results: dict[str, dict] = {}
    for cell in cells:
        cell.result.update({"median_s": median(cell.times), "times_s": cell.times,
                            "median_cpu_s": median(cell.cpu)})
        results.setdefault(cell.key, {})[cell.name] = cell.result
        print(f"{Path(path).name:36} batch {cell.key:>10}  {cell.name:16}"
              f"{cell.result['median_s'] * 1e3:9.2f} ms", flush=True)
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
    ap.add_argument("--no-polars", action="store_true", help="leave out the polars cells")
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
    polars = pl is not None and not args.no_polars
    if pl is None:
        print("note: polars is not installed; no polars cells", flush=True)
    report = {
        "meta": {
            "tool": "bench/sweep_peers.py",
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "runs": args.runs, "warmup": args.warmup,
            "batch_sizes": [batch_key(b) for b in sizes],
            "impls": {"pyarrow_stream": "iter_batches(batch_size=B, use_threads=False)",
                      "pyarrow_threads": "iter_batches(batch_size=B, use_threads=True)",
                      **({"polars_read": "pl.read_parquet(path)",
                          "polars_scan": "pl.scan_parquet(path).collect()"} if polars else {})},
            "versions": {"python": platform.python_version(), "pyarrow": pa.__version__,
                         **({"polars": pl.__version__} if polars else {})},
            "pyarrow_cpu_count": pa.cpu_count(),
            "pyarrow_io_thread_count": pa.io_thread_count(),
            "polars_threads": pl.thread_pool_size() if polars else None,
            "arrow_pool": pool.backend_name,
            "units": "seconds",
        },
        "files": {},
    }
    for path in args.files:
        report["files"][path] = sweep_file(path, sizes, args.runs, args.warmup, polars)
        Path(args.json).write_text(json.dumps(report, indent=1))
    report["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
