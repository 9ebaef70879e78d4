#!/usr/bin/env python3
"""Time merging many Parquet files into one: `parquetry merge` against pyarrow, duckdb and
polars, with `cat` of the inputs as the limit (GUIDE.md, "Measuring").

Usage:
    python3 bench/merge_bench.py --binary target/release/parquetry [--quick]
        [--runs 5] [--warmup 1] [--datasets a,b,c] [--impls parquetry,pyarrow,...]
        [--out bench/results/merge.md] [--json results.json]

Datasets (written by pyarrow, never by parquetry, into bench/data/merge/, or
bench/data/merge-quick/ with --quick; values as bench/datasets.py's `strings`: id unique
25-byte keys '{16 hex}-{8 hex}', category one of 100, url
https://www.example{i}.com/path/to/resource/item/{n}; numpy seeds fixed per file):

  a  100 files x 20,000 rows, pyarrow's defaults (dictionary, snappy)
  b  10 files x 200,000 rows, no dictionary, zstd (pyarrow's level, 1)
  c  4 files, each one row group of 1,048,576 rows, pyarrow's defaults
  (--quick: a 20 x 2,000; b 4 x 20,000; c 2 x 131,072 rows, one row group each)

Implementations (each run writes a fresh output into bench/data/merge/out/, the inputs'
file system; the previous output is deleted before the run, outside the timed region;
nothing is dropped from the page cache, for any of them):

  parquetry  the release binary: parquetry merge --quiet --threads 1 -o OUT FILES... (otherwise
             default options: one thread, as every peer here),
             timed by the parent around the process (its start-up included; peak RSS
             from one more, untimed run under /usr/bin/time -v)
  pyarrow    pq.write_table(pa.concat_tables([pq.read_table(f, use_threads=False) ...]),
             OUT, ...) with pa.set_cpu_count(1), the inputs' codec and dictionary setting
  duckdb     SET threads=1; COPY (SELECT * FROM read_parquet([...])) TO OUT
             (FORMAT parquet, COMPRESSION ..., ROW_GROUP_SIZE 1048576[, DICTIONARY_SIZE_LIMIT 1])
  polars     POLARS_MAX_THREADS=1; pl.concat([pl.read_parquet(f) ...]).write_parquet(OUT, ...)
  polars_sink  POLARS_MAX_THREADS=1; pl.scan_parquet(FILES).sink_parquet(OUT, ...)
  cat        cat FILES... > OUT: the bytes copied once, the limit of a merge

The Python peers run in a worker process that imports the library once, then times each
run in-process (imports excluded). zstd is level 1 everywhere (pyarrow's and the inputs').
Polars cannot turn dictionary encoding off; duckdb's DICTIONARY_SIZE_LIMIT 1 does.

Reported per dataset and implementation: median seconds of --runs timed runs after --warmup
untimed ones, GB/s of input bytes (the sum of the input files' sizes / median / 1e9), the
speed-up against the fastest peer (pyarrow, duckdb, polars), the share of cat's throughput,
the output's size and its ratio to pyarrow's output, and the peak RSS of the process
(/usr/bin/time -v's maximum resident set size; for Python peers it includes the interpreter
and the library, whose size after import is given as well). Every output is checked: read by
pyarrow, its row count and checksum (per column: nulls, value count, total length, sum of
all bytes, and sum of length x row number, which is order-sensitive) equal the inputs'.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from datasets import make_strings  # noqa: E402  (bench/datasets.py: the `strings` values)

GEN_VERSION = 1
SEED = 20250301
PEERS = ["pyarrow", "duckdb", "polars", "polars_sink"]
IMPLS = ["parquetry"] + PEERS + ["cat"]
WORKER_TIMEOUT_S = 3600

# name: (files, rows per file, pyarrow write options, description)
FULL = {
    "a": (100, 20_000, {}, "100 files x 20,000 rows, pyarrow defaults (dictionary, snappy)"),
    "b": (10, 200_000, {"use_dictionary": False, "compression": "zstd"},
          "10 files x 200,000 rows, no dictionary, zstd"),
    "c": (4, 1_048_576, {}, "4 files x 1 row group of 1,048,576 rows, pyarrow defaults"),
}
QUICK = {
    "a": (20, 2_000, {}, "20 files x 2,000 rows, pyarrow defaults (dictionary, snappy)"),
    "b": (4, 20_000, {"use_dictionary": False, "compression": "zstd"},
          "4 files x 20,000 rows, no dictionary, zstd"),
    "c": (2, 131_072, {}, "2 files x 1 row group of 131,072 rows, pyarrow defaults"),
}


# --------------------------------------------------------------------------
# Datasets
# --------------------------------------------------------------------------

def dataset_files(root: Path, name: str, spec) -> list[Path]:
    n = spec[0]
    return [root / name / f"part-{i:03d}.parquet" for i in range(n)]


def generate(root: Path, specs: dict, names: list[str]) -> dict:
    """Writes the datasets that are missing or stale; returns {name: facts} with the inputs'
    checksum, computed once and kept in the manifest."""
    manifest_path = root / "MANIFEST.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    for name in names:
        files, rows, options, _ = specs[name]
        params = {"gen": GEN_VERSION, "seed": SEED, "files": files, "rows": rows,
                  "options": options, "pyarrow": pa.__version__}
        paths = dataset_files(root, name, specs[name])
        entry = manifest.get(name)
        fresh = (entry is not None and entry.get("params") == params
                 and all(p.exists() for p in paths)
                 and [p.stat().st_size for p in paths] == entry.get("sizes"))
        if fresh:
            continue
        print(f"generating dataset {name} ({files} files x {rows:,} rows)", file=sys.stderr)
        d = root / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        for i, p in enumerate(paths):
            t = make_strings((SEED, ord(name), i), rows)
            pq.write_table(t, p, row_group_size=rows, **options)
        tables = [pq.read_table(p) for p in paths]
        md = [pq.read_metadata(p) for p in paths]
        manifest[name] = {
            "params": params,
            "sizes": [p.stat().st_size for p in paths],
            "rows": sum(t.num_rows for t in tables),
            "row_groups": sum(m.num_row_groups for m in md),
            "checksum": table_checksum(pa.concat_tables(tables)),
        }
        del tables
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


# --------------------------------------------------------------------------
# Checksum
# --------------------------------------------------------------------------

def _column_checksum(col: pa.ChunkedArray) -> dict:
    """Nulls, values, total length, byte sum and sum of len * (row + 1), modulo 2**64."""
    nulls = values = total = byte_sum = weighted = 0
    row = 0
    mask = (1 << 64) - 1
    for ch in col.cast(pa.large_binary()).chunks:
        n = len(ch)
        if n == 0:
            continue
        _, off_buf, data_buf = ch.buffers()
        offsets = np.frombuffer(off_buf, dtype=np.int64)[ch.offset:ch.offset + n + 1]
        lengths = np.diff(offsets).astype(np.uint64)
        if ch.null_count:
            valid = ch.is_valid().to_numpy(zero_copy_only=False)
            lengths = np.where(valid, lengths, 0).astype(np.uint64)
        data = np.frombuffer(data_buf, dtype=np.uint8)[offsets[0]:offsets[-1]] if data_buf else np.empty(0, np.uint8)
        nulls += ch.null_count
        values += n - ch.null_count
        total += int(lengths.sum())
        byte_sum += int(data.sum(dtype=np.uint64))
        rows = np.arange(row + 1, row + n + 1, dtype=np.uint64)
        weighted = (weighted + int((lengths * rows).sum(dtype=np.uint64))) & mask
        row += n
    return {"nulls": nulls, "values": values, "bytes": total, "byte_sum": byte_sum & mask,
            "len_weighted_sum": weighted}


def table_checksum(t: pa.Table) -> dict:
    return {"rows": t.num_rows,
            "columns": {name: _column_checksum(t.column(name)) for name in t.column_names}}


def other_readers(out: Path, files: list, merge_check) -> dict:
    """parquetry's output read by duckdb (the same rows as its read of the inputs, as a
    multiset: pyarrow's check covers the order) and by arrow-rs (`merge_check`: the same rows
    in order as its read of the inputs, and a read through the page index)."""
    import duckdb
    readers = {}
    try:
        con = duckdb.connect()
        con.execute("SET threads=1")
        src = "read_parquet([" + ", ".join(f"'{f}'" for f in files) + "])"
        n_out = con.execute(f"SELECT count(*) FROM read_parquet('{out}')").fetchone()[0]
        n_in = con.execute(f"SELECT count(*) FROM {src}").fetchone()[0]
        extra = con.execute(f"SELECT count(*) FROM (SELECT * FROM read_parquet('{out}') EXCEPT ALL SELECT * FROM {src})").fetchone()[0]
        readers["duckdb"] = "ok" if n_out == n_in and extra == 0 else f"{n_out} rows vs {n_in}, {extra} differ"
    except Exception as e:  # noqa: BLE001 - report, do not crash
        readers["duckdb"] = f"failed: {e}"[:300]
    if merge_check:
        p = subprocess.run([merge_check, str(out), *map(str, files)], capture_output=True, text=True)
        readers["arrow-rs"] = p.stdout.strip() if p.returncode == 0 else f"FAILED: {p.stdout.strip()} {p.stderr.strip()}"[:300]
    return readers


def check_output(path: Path, want: dict) -> str:
    """'ok', or what differs."""
    try:
        got = table_checksum(pq.read_table(path))
    except Exception as e:  # noqa: BLE001 - report, do not crash
        return f"unreadable: {e}"
    if got["rows"] != want["rows"]:
        return f"rows {got['rows']} != {want['rows']}"
    for name, c in want["columns"].items():
        if got["columns"].get(name) != c:
            return f"column {name} differs"
    return "ok"


# --------------------------------------------------------------------------
# Workers: one Python peer, imported once, timed in-process
# --------------------------------------------------------------------------

def _vm_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def worker(impl: str, files: list[str], out: str, codec: str, dictionary: bool,
           runs: int, warmup: int) -> dict:
    if impl == "pyarrow":
        pa.set_cpu_count(1)
        pa.set_io_thread_count(1)
        opts = {"compression": codec, "use_dictionary": dictionary}
        if codec == "zstd":
            opts["compression_level"] = 1

        def run():
            tables = [pq.read_table(f, use_threads=False) for f in files]
            pq.write_table(pa.concat_tables(tables), out, **opts)
    elif impl == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads=1")
        listing = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
        extra = "" if dictionary else ", DICTIONARY_SIZE_LIMIT 1"
        level = ", COMPRESSION_LEVEL 1" if codec == "zstd" else ""
        sql = (f"COPY (SELECT * FROM read_parquet([{listing}])) TO '{out}' "
               f"(FORMAT parquet, COMPRESSION {codec}{level}, ROW_GROUP_SIZE 1048576{extra})")

        def run():
            con.execute(sql)
    elif impl in ("polars", "polars_sink"):
        import polars as pl
        opts = {"compression": codec}
        if codec == "zstd":
            opts["compression_level"] = 1
        if impl == "polars":
            def run():
                pl.concat([pl.read_parquet(f) for f in files]).write_parquet(out, **opts)
        else:
            def run():
                pl.scan_parquet(files).sink_parquet(out, **opts)
    else:
        raise SystemExit(f"unknown worker {impl}")
    baseline_kib = _vm_kib("VmRSS")
    times = []
    for i in range(warmup + runs):
        if os.path.exists(out):
            os.unlink(out)
        t0 = time.perf_counter()
        run()
        dt = time.perf_counter() - t0
        if i >= warmup:
            times.append(dt)
    return {"times_s": times, "baseline_rss_bytes": baseline_kib * 1024}


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

TIME_V = shutil.which("time", path="/usr/bin")


def _max_rss(stderr: str) -> int | None:
    for line in stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.rsplit(":", 1)[1]) * 1024
    return None


def _run(cmd: list[str], stdout=None, env=None, measure_rss: bool = True) -> tuple[float, int | None, str]:
    """Runs a command, under /usr/bin/time -v when `measure_rss` (else the child's rusage);
    returns wall seconds, peak RSS in bytes (None when not measured) and its output."""
    full = [TIME_V, "-v"] + cmd if (TIME_V and measure_rss) else cmd
    t0 = time.perf_counter()
    proc = subprocess.Popen(full, stdout=stdout if stdout is not None else subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    out, err = proc.communicate()
    dt = time.perf_counter() - t0
    err = err.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}): {err.strip()[-2000:]}")
    rss = None
    if measure_rss:
        rss = _max_rss(err) if TIME_V else None
        if rss is None:
            import resource
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return dt, rss, (out.decode(errors="replace") if isinstance(out, bytes) else "") + err


def time_process(impl: str, binary: str, files: list[str], out: Path, runs: int, warmup: int) -> dict:
    """Times the process itself (start-up included, as a user runs it); its peak RSS comes
    from one more run under /usr/bin/time -v, untimed (time -v would add its own start-up)."""
    times = []
    peak = None
    for i in range(warmup + runs + 1):
        if out.exists():
            out.unlink()
        rss_run = i == warmup + runs
        if impl == "parquetry":
            dt, rss, _ = _run([binary, "merge", "--quiet", "--threads", "1", "-o", str(out)] + files,
                              measure_rss=rss_run)
        else:
            with open(out, "wb") as f:
                dt, rss, _ = _run(["cat"] + files, stdout=f, measure_rss=rss_run)
        if rss_run:
            peak = rss
        elif i >= warmup:
            times.append(dt)
    return {"times_s": times, "peak_rss_bytes": peak}


def time_worker(impl: str, files: list[str], out: Path, codec: str, dictionary: bool,
                runs: int, warmup: int) -> dict:
    env = dict(os.environ, POLARS_MAX_THREADS="1", OMP_NUM_THREADS="1", RAYON_NUM_THREADS="1")
    if out.exists():
        out.unlink()
    listing = out.with_suffix(".files.json")
    listing.write_text(json.dumps(files))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", impl, "--files-json",
           str(listing), "--output", str(out), "--codec", codec,
           "--dictionary", "1" if dictionary else "0", "--runs", str(runs), "--warmup", str(warmup)]
    _, rss, text = _run(cmd, env=env)
    listing.unlink()
    result = json.loads([line for line in text.splitlines() if line.startswith("{")][-1])
    result["peak_rss_bytes"] = rss
    return result


def parquetry_summary(binary: str, files: list[str], out: Path) -> dict:
    if out.exists():
        out.unlink()
    proc = subprocess.run([binary, "merge", "--json", "-o", str(out)] + files,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default="target/release/parquetry")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--datasets", default="a,b,c")
    ap.add_argument("--impls", default=",".join(IMPLS))
    ap.add_argument("--data", default=None, help="dataset folder (default bench/data/merge[-quick])")
    ap.add_argument("--out", default=None, help="Markdown report (default bench/results/merge.md; "
                    "with --quick bench/data/results/merge-quick.md)")
    ap.add_argument("--json", default=None, help="also write the raw results here")
    ap.add_argument("--merge-check", default=None,
                    help="the bench crate's merge_check binary: arrow-rs reads parquetry's output too")
    # worker mode
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--files-json", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--output", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--codec", default="snappy", help=argparse.SUPPRESS)
    ap.add_argument("--dictionary", default="1", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        files = json.loads(Path(args.files_json).read_text())
        r = worker(args.worker, files, args.output, args.codec, args.dictionary == "1",
                   args.runs, args.warmup)
        print(json.dumps(r))
        return

    repo = HERE.parent
    specs = QUICK if args.quick else FULL
    data = Path(args.data) if args.data else repo / "bench" / "data" / ("merge-quick" if args.quick else "merge")
    out_md = Path(args.out) if args.out else (
        repo / "bench" / "data" / "results" / "merge-quick.md" if args.quick else repo / "bench" / "results" / "merge.md")
    names = [n for n in args.datasets.split(",") if n]
    impls = [i for i in args.impls.split(",") if i]
    for n in names:
        if n not in specs:
            raise SystemExit(f"unknown dataset {n} (a, b, c)")
    for i in impls:
        if i not in IMPLS:
            raise SystemExit(f"unknown implementation {i} ({', '.join(IMPLS)})")
    if "parquetry" in impls and not os.access(args.binary, os.X_OK):
        raise SystemExit(f"{args.binary}: no parquetry binary (cargo build --release -p parquetry-cli)")

    manifest = generate(data, specs, names)
    load_before = os.getloadavg()[0]
    outdir = data / "out"
    outdir.mkdir(parents=True, exist_ok=True)
    results = {"versions": versions(), "machine": machine(), "runs": args.runs, "warmup": args.warmup,
               "quick": args.quick, "datasets": {}}
    for name in names:
        spec = specs[name]
        files = [str(p) for p in dataset_files(data, name, spec)]
        codec = spec[2].get("compression", "snappy")
        dictionary = spec[2].get("use_dictionary", True)
        facts = manifest[name]
        ds = {"description": spec[3], "files": len(files), "rows": facts["rows"],
              "row_groups": facts["row_groups"], "bytes_in": sum(facts["sizes"]), "impls": {}}
        results["datasets"][name] = ds
        for impl in impls:
            out = outdir / f"{name}-{impl}.parquet"
            print(f"dataset {name}: {impl} ...", file=sys.stderr, flush=True)
            try:
                if impl in ("parquetry", "cat"):
                    r = time_process(impl, args.binary, files, out, args.runs, args.warmup)
                else:
                    r = time_worker(impl, files, out, codec, dictionary, args.runs, args.warmup)
                r["median_s"] = median(r["times_s"])
                r["bytes_out"] = out.stat().st_size
                r["check"] = "ok (concatenation)" if impl == "cat" else check_output(out, facts["checksum"])
                if impl == "parquetry":
                    r["summary"] = parquetry_summary(args.binary, files, out)
                    r["readers"] = other_readers(out, files, args.merge_check)
            except Exception as e:  # noqa: BLE001 - record, do not crash
                r = {"error": str(e)[-2000:]}
            finally:
                if out.exists():
                    out.unlink()
            ds["impls"][impl] = r
            if "median_s" in r:
                print(f"  {r['median_s']:.3f} s  {ds['bytes_in'] / r['median_s'] / 1e9:.2f} GB/s  "
                      f"{r['check']}", file=sys.stderr, flush=True)
            else:
                print(f"  error: {r['error']}", file=sys.stderr, flush=True)
    results["load"] = [load_before, os.getloadavg()[0]]
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    md = report(results)
    out_md.parent.mkdir(parents=True, exist_ok=True)
    out_md.write_text(md)
    print(md)


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def versions() -> dict:
    v = {"python": platform.python_version(), "pyarrow": pa.__version__, "numpy": np.__version__}
    for mod in ("duckdb", "polars"):
        try:
            v[mod] = __import__(mod).__version__
        except Exception as e:  # noqa: BLE001
            v[mod] = f"unavailable: {e}"
    return v


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Linux {platform.release()}"


TARGETS = {
    "a": ("≥ 5x the fastest peer, output within 3% of pyarrow's", 5.0, None, 0.03),
    "b": ("≥ 20x the fastest peer", 20.0, None, None),
    "c": ("≥ 0.5x cat's throughput", None, 0.5, None),
}


def report(res: dict) -> str:
    mb = lambda b: f"{b / 1e6:,.1f}"  # noqa: E731
    lines = ["# parquetry merge benchmark" + (" (quick)" if res["quick"] else ""), ""]
    v = res["versions"]
    lines += [
        f"Machine: {res['machine']}. Median of {res['runs']} runs after {res['warmup']} warm-up, "
        f"one thread everywhere, inputs in the page cache, each run writing a fresh output on the "
        f"inputs' file system. pyarrow {v['pyarrow']}, duckdb {v['duckdb']}, polars {v['polars']}, "
        f"Python {v['python']}. Produced by `bench/merge.sh` (bench/merge_bench.py documents "
        f"every command).",
        "",
        f"1-minute load average before and after: {res['load'][0]:.2f}, {res['load'][1]:.2f} "
        "(the machine is shared: *fastest run* shows how much the median was slowed).",
        "",
        "GB/s (of the median) is input bytes (the input files' total size) per second. *vs fastest peer* is the "
        "fastest of pyarrow, duckdb and polars's time over this row's (higher is faster); "
        "*of cat* is this row's throughput as a share of `cat`'s; *size vs pyarrow* is the "
        "output's size over pyarrow's output's. Peak RSS is the process's maximum resident set "
        "(`/usr/bin/time -v`); for the Python peers it includes the interpreter and library "
        "(after import, in brackets). parquetry and cat are timed around their process, start-up "
        "included (about 4 ms here); the Python peers are timed inside a worker that has already "
        "imported the library.",
        "",
    ]
    status = []
    for name, ds in res["datasets"].items():
        impls = ds["impls"]
        ok = {k: r for k, r in impls.items() if "median_s" in r}
        peers = [k for k in PEERS if k in ok]
        fastest = min((ok[k]["median_s"] for k in peers), default=None)
        fastest_name = min(peers, key=lambda k: ok[k]["median_s"]) if peers else None
        cat_s = ok.get("cat", {}).get("median_s")
        py_bytes = ok.get("pyarrow", {}).get("bytes_out")
        lines += [f"## {name}: {ds['description']}", "",
                  f"{ds['files']} files, {ds['rows']:,} rows, {ds['row_groups']} row groups, "
                  f"{mb(ds['bytes_in'])} MB in.", ""]
        summary = ok.get("parquetry", {}).get("summary")
        if summary:
            lines += [f"parquetry: {summary['row_groups_in']} row groups in, "
                      f"{summary['row_groups_out']} out ({summary['row_groups_copied']} copied whole); "
                      f"pages of coalesced row groups: {summary['pages_copied']} copied, "
                      f"{summary['pages_remapped']} remapped, {summary['pages_reencoded']} re-encoded, "
                      f"{summary.get('pages_from_dictionary', 0)} PLAIN from an input's dictionary page.", ""]
        readers = ok.get("parquetry", {}).get("readers")
        if readers:
            lines += ["parquetry's output read by other readers: "
                      + "; ".join(f"{k}: {v}" for k, v in readers.items()) + ".", ""]
        lines += ["| implementation | seconds | fastest run | GB/s | vs fastest peer | of cat | output MB | size vs pyarrow | peak RSS MB | check |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for impl, r in impls.items():
            if "median_s" not in r:
                lines.append(f"| {impl} | error: {r['error'][:120]} | | | | | | | | |")
                continue
            s = r["median_s"]
            rss = mb(r["peak_rss_bytes"]) if r.get("peak_rss_bytes") else "?"
            if r.get("baseline_rss_bytes"):
                rss += f" ({mb(r['baseline_rss_bytes'])})"
            cells = [
                impl,
                f"{s:.3f}",
                f"{min(r['times_s']):.3f}",
                f"{ds['bytes_in'] / s / 1e9:.2f}",
                f"{fastest / s:.2f}x" if fastest else "–",
                f"{cat_s / s:.2f}" if cat_s else "–",
                mb(r["bytes_out"]),
                f"{r['bytes_out'] / py_bytes:.3f}" if py_bytes else "–",
                rss,
                r["check"],
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        p = ok.get("parquetry")
        if p and name in TARGETS:
            what, speed, cat_share, size_tol = TARGETS[name]
            parts, met = [], True
            if speed is not None and fastest:
                x = fastest / p["median_s"]
                parts.append(f"{x:.1f}x {fastest_name}")
                met &= x >= speed
            if cat_share is not None and cat_s:
                x = cat_s / p["median_s"]
                parts.append(f"{x:.2f}x cat")
                met &= x >= cat_share
            if size_tol is not None and py_bytes:
                x = p["bytes_out"] / py_bytes - 1
                parts.append(f"size {x:+.1%} vs pyarrow")
                met &= abs(x) <= size_tol
            met &= p["check"] == "ok"
            # A target whose reference (a peer, cat, pyarrow's size) was not run is not met.
            measured = ((speed is None or fastest) and (cat_share is None or cat_s)
                        and (size_tol is None or py_bytes))
            verdict = ("met" if met else "MISSED") if measured else "not measured"
            status.append(f"| {name} | {what} | {', '.join(parts)} | {verdict} |")
    if status:
        lines += ["## Targets", "", "| dataset | target | parquetry | status |", "|---|---|---|---|"] + status + [""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
