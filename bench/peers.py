#!/usr/bin/env python3
"""Time whole-file Parquet reads (and writes) by peer implementations (pyarrow, polars, duckdb).

Usage:
    python3 bench/peers.py --files F1 F2 ... [--runs 5] [--warmup 1]
                           [--impls pyarrow,pyarrow_view,polars,duckdb] --json out.json
    python3 bench/peers.py --mode write --files F1 F2 ... [--runs 5] [--warmup 1]
                           [--impls pyarrow,polars,duckdb] --json out.json

--mode write times writing each file's table, loaded into memory at setup, as a
Parquet file in memory with the input file's own settings; see bench/peer_writers.py
for what each peer is set to. The rest of this text describes reads; write cells
follow the same scheme (subprocess per cell, warm-up and timed runs, peak RSS), and
checksum the last file written, read back with pyarrow, against the input's.

Each (file, implementation) cell runs in its own subprocess (so POLARS_MAX_THREADS=1
is set before polars is imported, and peak RSS belongs to that one cell):

  pyarrow       pq.read_table(path, use_threads=False)
  pyarrow_view  pq.read_table(path, use_threads=False, binary_type=pa.binary_view()):
                BYTE_ARRAY columns decoded straight into string_view/binary_view
                (pyarrow honours binary_type only for files without an ARROW:schema
                key; bench/datasets.py writes none)
  polars        pl.read_parquet(path) with POLARS_MAX_THREADS=1
  duckdb        SET threads=1; SELECT * FROM read_parquet(path) fetched as an Arrow
                table (values materialised as Arrow arrays)

A run reads the whole file into memory. The subprocess imports the library and
sets it up, records its RSS, does --warmup untimed reads and --runs timed reads
(dropping each result before the next read), records its peak RSS, then, outside
the timed region, converts the last result to pyarrow and computes its checksum.

Reported per cell: median wall seconds of the timed runs, every run time, the
process CPU seconds (user+sys, all threads) of each run and their median (less
sensitive than wall time to other work on a shared machine), the 1-minute load
average before and after the runs, GB/s
(the file's value bytes / median seconds / 1e9), rows, checksum and whether it
equals the reference checksum (computed by the parent from pq.read_table), and
memory in bytes: peak_rss_bytes (the process's peak RSS, imports included) and
peak_rss_delta_bytes (peak RSS during the reads minus the RSS after imports and
setup). Peak RSS is VmHWM from /proc/self/status, reset after setup through
/proc/self/clear_refs; not ru_maxrss, which on Linux carries the parent's RSS
into a child started with vfork/posix_spawn (as subprocess does). An
implementation that is missing or fails records {"error": "..."} for its cell.

Value bytes of a file (the numerator of GB/s, GUIDE.md "Measuring"): the sum of
the lengths of the non-null values of byte-array columns, plus, for fixed-width
columns, the number of non-null values times the type's byte width.

Checksum (reproduce this exactly in Rust):

  Per column, over rows i = 0 .. rows-1 of the whole file (row groups and chunks
  concatenated in file order), all sums wrapping modulo 2**64 (u64::wrapping_add,
  u64::wrapping_mul):

  Byte-array columns (Arrow string/binary, large or view, or a dictionary of them;
  Parquet BYTE_ARRAY), {"kind": "byte_array", ...}:
    null_count        number of null rows
    values            number of non-null rows
    bytes             sum of len_i over non-null rows
    byte_sum          sum over non-null rows of every byte of the value, each
                      byte as an unsigned integer 0..255
    len_weighted_sum  sum over all rows of len_i * (i + 1), len_i = 0 for nulls

  Fixed-width columns, {"kind": "fixed", ...}:
    null_count, values  as above
    bit_sum           sum over non-null rows of a u64 "bit pattern": signed
                      integers (int8..int64, and the i32/i64 storage of dates,
                      times, timestamps, durations) sign-extended to i64 then
                      reinterpreted as u64; unsigned integers zero-extended;
                      floats (f16/f32/f64) converted exactly to f64 and taken as
                      f64::to_bits(); booleans as 0/1.

  The file checksum is {"rows": rows, "columns": {column name: per-column dict}}.
  JSON integers here may exceed 2**53: parse them as u64 (serde_json does).
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

IMPLS = ["pyarrow", "pyarrow_view", "polars", "duckdb"]
WRITE_IMPLS = ["pyarrow", "polars", "duckdb"]
WORKER_TIMEOUT_S = 1800

# --------------------------------------------------------------------------
# Checksum
# --------------------------------------------------------------------------

_BYTE_ARRAY = (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary,
               pa.types.is_large_binary, pa.types.is_fixed_size_binary)


def _is_byte_array(t: pa.DataType) -> bool:
    if any(f(t) for f in _BYTE_ARRAY):
        return True
    return str(t) in ("string_view", "binary_view")


def _valid_mask(arr: pa.Array) -> np.ndarray | None:
    if arr.null_count == 0:
        return None
    return arr.is_valid().to_numpy(zero_copy_only=False)


def _byte_array_checksum(col: pa.ChunkedArray) -> dict:
    null_count = values = total = byte_sum = weighted = 0
    row = 0
    for ch in col.cast(pa.large_binary()).chunks:
        n = len(ch)
        if n == 0:
            continue
        bufs = ch.buffers()
        offsets = np.frombuffer(bufs[1], dtype=np.int64)[ch.offset:ch.offset + n + 1]
        data = (np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None
                else np.zeros(0, dtype=np.uint8))
        lens = np.diff(offsets)
        valid = _valid_mask(ch)
        span = data[offsets[0]:offsets[-1]]
        if valid is None:
            byte_sum += int(span.sum(dtype=np.uint64))
        else:
            if np.any(lens[~valid]):  # null slots that still own bytes
                span = span[np.repeat(valid, lens)]
            byte_sum += int(span.sum(dtype=np.uint64))
            lens = np.where(valid, lens, 0)
        nulls = ch.null_count
        null_count += nulls
        values += n - nulls
        total += int(lens.sum())
        idx = np.arange(row + 1, row + n + 1, dtype=np.uint64)
        weighted += int((lens.astype(np.uint64) * idx).sum(dtype=np.uint64))
        row += n
    m = (1 << 64) - 1
    return {"kind": "byte_array", "null_count": null_count, "values": values,
            "bytes": total, "byte_sum": byte_sum & m, "len_weighted_sum": weighted & m}


def _fixed_bits(ch: pa.Array) -> np.ndarray:
    """u64 bit patterns of every slot of a fixed-width chunk (nulls included)."""
    t = ch.type
    n = len(ch)
    if pa.types.is_boolean(t):
        return ch.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint64)
    width = t.bit_width
    buf = ch.buffers()[1]
    if pa.types.is_floating(t):
        raw = np.frombuffer(buf, dtype=np.dtype(f"<f{width // 8}"))[ch.offset:ch.offset + n]
        return raw.astype(np.float64).view(np.uint64)
    if pa.types.is_unsigned_integer(t):
        raw = np.frombuffer(buf, dtype=np.dtype(f"<u{width // 8}"))[ch.offset:ch.offset + n]
        return raw.astype(np.uint64)
    if (pa.types.is_signed_integer(t) or pa.types.is_temporal(t)) and width in (8, 16, 32, 64):
        raw = np.frombuffer(buf, dtype=np.dtype(f"<i{width // 8}"))[ch.offset:ch.offset + n]
        return raw.astype(np.int64).view(np.uint64)
    raise TypeError(f"no checksum defined for Arrow type {t}")


def _fixed_checksum(col: pa.ChunkedArray) -> dict:
    null_count = values = bit_sum = 0
    for ch in col.chunks:
        if len(ch) == 0:
            continue
        bits = _fixed_bits(ch)
        valid = _valid_mask(ch)
        if valid is not None:
            bits = bits[valid]
        bit_sum += int(bits.sum(dtype=np.uint64))
        null_count += ch.null_count
        values += len(ch) - ch.null_count
    return {"kind": "fixed", "null_count": null_count, "values": values,
            "bit_sum": bit_sum & ((1 << 64) - 1)}


def table_checksum(table: pa.Table) -> dict:
    """The file checksum of the module docstring, for a pyarrow Table."""
    cols = {}
    for name, col in zip(table.column_names, table.columns):
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        if _is_byte_array(col.type):
            cols[name] = _byte_array_checksum(col)
        else:
            cols[name] = _fixed_checksum(col)
    return {"rows": table.num_rows, "columns": cols}


def value_bytes(table: pa.Table, checksum: dict) -> int:
    """Raw value bytes: byte-array lengths plus fixed-width in-memory sizes."""
    total = 0
    for field in table.schema:
        c = checksum["columns"][field.name]
        if c["kind"] == "byte_array":
            total += c["bytes"]
        else:
            t = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
            total += c["values"] * t.bit_width // 8
    return total


# --------------------------------------------------------------------------
# Worker (one implementation, one file, in its own process)
# --------------------------------------------------------------------------

def _status_bytes(key: str) -> int:
    """A /proc/self/status memory figure (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{key} not in /proc/self/status")


def _reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _setup(impl: str, path: str):
    """Import and configure impl; return (read(), to_arrow(result), info)."""
    if impl in ("pyarrow", "pyarrow_view"):
        kwargs = {"use_threads": False}
        if impl == "pyarrow_view":
            if "binary_type" not in inspect.signature(pq.read_table).parameters:
                raise RuntimeError(f"pyarrow {pa.__version__} has no binary_type read option")
            kwargs["binary_type"] = pa.binary_view()
        return (lambda: pq.read_table(path, **kwargs), lambda t: t,
                {"version": pa.__version__, "io_threads": pa.io_thread_count()})
    if impl == "polars":
        import polars as pl
        threads = pl.thread_pool_size()
        return (lambda: pl.read_parquet(path), lambda df: df.to_arrow(),
                {"version": pl.__version__, "threads": threads})
    if impl == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads=1")
        threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
        sql = "SELECT * FROM read_parquet(?)"

        def read():
            res = con.execute(sql, [path])
            fetch = getattr(res, "to_arrow_table", None) or res.fetch_arrow_table
            return fetch()

        return read, lambda t: t, {"version": duckdb.__version__, "threads": threads}
    raise ValueError(f"unknown implementation {impl!r}")


def _time_runs(run, runs: int, warmup: int, reset=None) -> dict:
    """warmup untimed and runs timed calls of run() (reset(), if given, untimed before
    each), dropping each result before the next; peak RSS from after setup."""
    gc.collect()
    rss_setup = _status_bytes("VmRSS")
    hwm_setup = _status_bytes("VmHWM")
    reset_ok = _reset_peak_rss()
    times, cpu_times = [], []
    load_before = os.getloadavg()[0]
    result = None
    for k in range(warmup + runs):
        result = None
        if reset is not None:
            reset()
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = run()
        t1 = time.perf_counter()
        c1 = time.process_time()
        if k >= warmup:
            times.append(t1 - t0)
            cpu_times.append(c1 - c0)
    load_after = os.getloadavg()[0]
    peak = _status_bytes("VmHWM")
    return {
        "result": result,
        "times_s": times,
        "median_s": median(times),
        "cpu_times_s": cpu_times,
        "median_cpu_s": median(cpu_times),
        "loadavg_1min_before_after": [load_before, load_after],
        "rss_after_setup_bytes": rss_setup,
        "peak_rss_bytes": max(hwm_setup, peak),
        "peak_rss_delta_bytes": peak - rss_setup,
        "peak_rss_reset_after_setup": reset_ok,
    }


def worker(impl: str, path: str, runs: int, warmup: int) -> dict:
    read, to_arrow, info = _setup(impl, path)
    cell = _time_runs(read, runs, warmup)
    result = cell.pop("result")
    if impl.startswith("pyarrow"):
        pool = pa.default_memory_pool()
        info["arrow_pool"] = pool.backend_name
        info["arrow_pool_max_memory_bytes"] = pool.max_memory()
    table = to_arrow(result)
    del result
    return {
        "impl_info": info,
        **cell,
        "rows": table.num_rows,
        "output_types": {f.name: str(f.type) for f in table.schema},
        "checksum": table_checksum(table),
    }


def write_worker(impl: str, path: str, runs: int, warmup: int) -> dict:
    import peer_writers
    try:
        write, reset, finish, info = peer_writers.setup(impl, path, table_checksum)
    except peer_writers.Skip as e:
        return {"skipped": str(e)}
    cell = _time_runs(write, runs, warmup, reset)
    result = cell.pop("result")
    if impl == "pyarrow":
        pool = pa.default_memory_pool()
        info["arrow_pool"] = pool.backend_name
        info["arrow_pool_max_memory_bytes"] = pool.max_memory()
    return {"impl_info": info, **cell, **finish(result)}


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

def _run_cell(impl: str, path: str, runs: int, warmup: int, mode: str = "read") -> dict:
    env = dict(os.environ, POLARS_MAX_THREADS="1", OMP_NUM_THREADS="1",
               RAYON_NUM_THREADS="1")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", impl, "--mode", mode,
           "--files", path, "--runs", str(runs), "--warmup", str(warmup)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=WORKER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {WORKER_TIMEOUT_S}s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return {"error": tail, "stderr": proc.stderr[-4000:]}
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError) as e:
        return {"error": f"unreadable worker output: {e}", "stdout": proc.stdout[-2000:]}


def _versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__,
           "pyarrow": pa.__version__}
    for mod in ("polars", "duckdb"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception as e:  # noqa: BLE001 - record, do not crash
            out[mod] = f"unavailable: {e}"
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def drive(files: list[str], impls: list[str], runs: int, warmup: int, out: str,
          mode: str = "read") -> dict:
    report = {
        "meta": {
            "tool": "bench/peers.py" + (" --mode write" if mode == "write" else ""),
            "mode": mode,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "runs": runs, "warmup": warmup, "impls": impls,
            "versions": _versions(), "cpu": _cpu_model(), "nproc": os.cpu_count(),
            "platform": platform.platform(),
            "units": "seconds, bytes; gb_per_s = value_bytes / median_s / 1e9",
        },
        "files": {},
    }
    for path in files:
        table = pq.read_table(path)
        ref = table_checksum(table)
        entry = {
            "name": Path(path).name,
            "file_bytes": os.path.getsize(path),
            "rows": table.num_rows,
            "value_bytes": value_bytes(table, ref),
            "checksum": ref,
            "results": {},
        }
        del table
        report["files"][path] = entry
        for impl in impls:
            cell = _run_cell(impl, path, runs, warmup, mode)
            if "error" not in cell and "skipped" not in cell:
                cell["gb_per_s"] = entry["value_bytes"] / cell["median_s"] / 1e9
                cell["checksum_matches"] = cell["checksum"] == ref
            entry["results"][impl] = cell
            print(_cell_line(entry["name"], impl, cell), flush=True)
            Path(out).write_text(json.dumps(report, indent=1))
    report["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    Path(out).write_text(json.dumps(report, indent=1))
    return report


def _cell_line(name: str, impl: str, cell: dict) -> str:
    if "error" in cell:
        return f"{name:40} {impl:13} ERROR {cell['error'][:120]}"
    if "skipped" in cell:
        return f"{name:36} {impl:13} n/a: {cell['skipped']}"
    ok = "ok" if cell["checksum_matches"] else "CHECKSUM MISMATCH"
    size = (f" file {cell['output_file_bytes'] / 1e6:6.1f} MB"
            if "output_file_bytes" in cell else "")
    own = " (own encodings)" if cell.get("encodings_ok") is False else ""
    return (f"{name:36} {impl:13} {cell['median_s'] * 1e3:8.1f} ms {cell['gb_per_s']:6.3f} GB/s "
            f"cpu {cell['median_cpu_s'] * 1e3:8.1f} ms "
            f"peak {cell['peak_rss_bytes'] / 2**20:7.0f} MiB "
            f"(+{cell['peak_rss_delta_bytes'] / 2**20:6.0f}){size} {ok}{own}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", nargs="+", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--mode", choices=["read", "write"], default="read",
                    help="time reads (default) or writes of each file")
    ap.add_argument("--impls", help=f"comma-separated subset of {','.join(IMPLS)} (read) "
                    f"or {','.join(WRITE_IMPLS)} (write); default all")
    ap.add_argument("--json", help="where to write the report (required unless --worker)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.worker:
        work = write_worker if args.mode == "write" else worker
        print(json.dumps(work(args.worker, args.files[0], args.runs, args.warmup)))
        return
    if not args.json:
        ap.error("--json is required")
    known = WRITE_IMPLS if args.mode == "write" else IMPLS
    impls = [i for i in (args.impls or ",".join(known)).split(",") if i]
    unknown = set(impls) - set(known)
    if unknown:
        ap.error(f"unknown implementations: {', '.join(sorted(unknown))}")
    drive(args.files, impls, args.runs, args.warmup, args.json, args.mode)


if __name__ == "__main__":
    main()
