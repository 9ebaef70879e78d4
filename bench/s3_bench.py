"""Filtered and whole-file reads over S3 (issue 31's benchmark), one command:

    python3 bench/s3_bench.py [--quick] [--runs N] [--only NAME,...] [--engines E,...]
                              [--delays 0,20] [--whole-file orders]

The queries and their data are ``filter_queries.py``'s (TPC-H SF1 from tpchgen-cli, written
on first run into bench/data/filter), plus a whole-file read. The files are uploaded with
boto3 to moto's S3 server on loopback; every engine reads them through a proxy in front of it
that counts requests and response bytes per run and adds a fixed delay per request (about a
real store's time to first byte): see ``s3_proxy.py``. Engines and their settings:
``s3_engines.py``. Each engine's output is checked against duckdb reading the local file
(rows and a checksum of the values, as filter_bench does); a mismatch is marked.

Per query, engine and delay: one warm-up run, then N timed runs (median time); requests and
bytes are those of the timed runs (they are the same run to run unless the table says
otherwise). The whole-file read is also timed from the local file, at the end. Writes
``bench/results/s3.md`` (and ``s3.json`` beside it).

Needs: ``pip install -r bench/requirements.txt`` (moto[server], boto3, datafusion,
tpchgen-cli), parquetry's wheel, and duckdb's venv (see ``s3_engines.DuckdbWorker``).
"""

from __future__ import annotations

import os

os.environ["POLARS_MAX_THREADS"] = "1"  # read by polars at import

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pyarrow.parquet as pq  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import filter_bench  # noqa: E402
from filter_queries import prepare, queries  # noqa: E402
from s3_engines import ENGINES, Store, close_workers, duckdb_worker  # noqa: E402
from s3_proxy import Moto, Proxy  # noqa: E402
from s3_report import render  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "s3.md"
BUCKET = "bench"
# The queries run by default (--all: every one of filter_queries.py): a subset spanning the
# kinds, since a full run takes over an hour on the shared 2-core machine: point lookups
# (unique string, SELECT * by key), a date range on the sorted and the unsorted layout, LIKE,
# IN, IS NULL, a conjunction, a filtered count; and the whole-file read.
SUBSET = ["point_id", "point_comment", "select_star_orderkey", "date_range_sorted", "date_range_unsorted",
          "like_prefix", "in_shipmode", "is_null", "orders_conjunction", "count_shipmode"]


def whole_file_query(file: str) -> dict:
    return dict(name=f"whole_{file}", what=f"every column and row of {file}", file=file, columns=None, sql=None,
                dnf=None, polars=None, leaves=[])


# The dataset query: `orders` split into this many objects under one prefix (by row groups),
# read with orders_conjunction's filter through the prefix: the listing is counted too.
DATASET_PARTS = 4


def dataset_query(files: dict[str, Path]) -> dict:
    """orders_conjunction over a prefix of DATASET_PARTS objects (``orders`` split by row
    groups into ``orders_parts/``; written here once, as the data files are)."""
    folder = files["orders"].parent.parent / "orders_parts"
    if not folder.exists():
        pf = pq.ParquetFile(files["orders"])
        meta = pf.metadata
        groups = list(range(meta.num_row_groups))
        codec = meta.row_group(0).column(0).compression.lower()
        tmp = folder.with_name(folder.name + ".tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for part in range(DATASET_PARTS):
            mine = groups[part::DATASET_PARTS]
            table = pf.read_row_groups(sorted(mine))
            pq.write_table(table, tmp / f"part-{part}.parquet", row_group_size=meta.row_group(0).num_rows,
                           compression=codec, write_page_index=True)
        tmp.rename(folder)
    files["orders_parts"] = folder
    q = next(q for q in queries(files) if q["name"] == "orders_conjunction")
    return dict(q, name="dataset_orders", file="orders_parts",
                what=f"orders_conjunction over a prefix of {DATASET_PARTS} objects (orders by row groups), listed")


def upload(moto_url: str, files: dict[str, Path]) -> dict[str, str]:
    """Puts the files with boto3, straight to moto (not through the proxy); returns keys."""
    import boto3
    from boto3.s3.transfer import TransferConfig

    client = boto3.client("s3", endpoint_url=moto_url, aws_access_key_id="test", aws_secret_access_key="test",
                          region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    keys = {}
    # One PUT per file (no multipart): the objects' ETags are plain MD5s, as most files' are.
    config = TransferConfig(multipart_threshold=1 << 40)
    for name, path in files.items():
        if path.is_dir():  # a dataset: its files under the prefix NAME/
            keys[name] = f"{name}/"
            for part in sorted(path.glob("*.parquet")):
                client.upload_file(str(part), BUCKET, keys[name] + part.name, Config=config)
            continue
        keys[name] = path.name
        client.upload_file(str(path), BUCKET, keys[name], Config=config)
    return keys


def reference(q, path):
    """(rows, checksum) of duckdb (the system's, local file) reading the local file: the
    results are checked against it (pyarrow cannot run every query: string_view)."""
    out = filter_bench.engine_duckdb(q, f"{path}/*.parquet" if path.is_dir() else path)()
    return filter_bench._as_result(out)


def measure(engine, q, store, key, proxy, runs):
    run = ENGINES[engine](q, store, key)
    proxy.counts.reset()
    out, _ = run()  # warm-up, and the output checked
    warm = proxy.counts.snapshot()
    times, counts = [], []
    for _ in range(runs):
        proxy.counts.reset()
        _, ms = run()
        counts.append(proxy.counts.snapshot())
        times.append(ms)
    rows, check = filter_bench._as_result(out)
    return dict(times_ms=times, rows=rows, checksum=check,
                requests=[c["requests"] for c in counts], bytes=[c["bytes"] for c in counts],
                by_method=counts[0]["by_method"], warm_requests=warm["requests"], log=counts[0]["log"],
                timeline=counts[0]["timeline"])


def local_whole(engine, q, path, runs):
    """The whole-file read from the local file, for the same engine."""
    if engine == "duckdb":
        worker = duckdb_worker(Store("http://unused:0", BUCKET))
        sql = f"SELECT * FROM read_parquet('{path}')"
        out = f"/tmp/s3bench-duckdb-local-{os.getpid()}.arrow"
        times = [worker.ask({"op": "run", "sql": sql, "count": False, "out": out})["ms"] for _ in range(runs + 1)]
        return dict(times_ms=times[1:])
    local = {"parquetry": "parquetry-py", "pyarrow": "pyarrow", "polars": "polars", "datafusion": "datafusion",
             "datafusion-pushdown": "datafusion-pushdown"}[engine]
    return filter_bench.run_python(local, q, path, runs)


def loadavg() -> str:
    return filter_bench.loadavg()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 timed run per cell (checks results; times are rough)")
    ap.add_argument("--runs", type=int, default=None, help="timed runs per cell (default 2; --quick 1)")
    ap.add_argument("--all", action="store_true", help="every query of filter_queries.py (default: SUBSET)")
    ap.add_argument("--only", default=None,
                    help="comma-separated query names (whole_FILE for the whole-file read, dataset_orders)")
    ap.add_argument("--engines", default=None, help=f"comma-separated engines (default: {','.join(ENGINES)})")
    ap.add_argument("--delays", default="0,20", help="delays per request in ms, comma-separated (default 0,20)")
    ap.add_argument("--whole-file", default="orders", help="the file read whole (default orders)")
    ap.add_argument("--out", default=str(RESULTS), help="markdown file to write")
    ap.add_argument("--reuse", default=None,
                    help="an earlier run's .json: its engines not run now are taken from it (same queries)")
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 2)
    delays = [float(d) for d in args.delays.split(",")]
    engines = args.engines.split(",") if args.engines else list(ENGINES)
    files = prepare()
    extra = [dataset_query(files), whole_file_query(args.whole_file)]
    qs = [q for q in queries(files) if args.all or q["name"] in SUBSET] + extra
    if args.only:
        keep = set(args.only.split(","))
        qs = [q for q in queries(files) + extra if q["name"] in keep]
    needed = {q["file"]: files[q["file"]] for q in qs}
    moto = Moto()
    proxy = Proxy(moto.port)
    store = Store(proxy.url, BUCKET)
    results: dict = {}
    failures: list[str] = []
    loads = [loadavg()]
    try:
        print(f"uploading {', '.join(needed)} to moto ...", flush=True)
        keys = upload(moto.url, needed)
        refs = {}
        for q in qs:
            where = files[q["file"]]
            parts = sorted(where.glob("*.parquet")) if where.is_dir() else [where]
            q["total_rows"] = sum(pq.read_metadata(p).num_rows for p in parts)
            refs[q["name"]] = reference(q, files[q["file"]])
        for delay in delays:
            proxy.delay_ms = delay
            for q in qs:
                cell = results.setdefault(q["name"], {})
                for engine in engines:
                    try:
                        r = measure(engine, q, store, keys[q["file"]], proxy, runs)
                    except Exception as e:  # an engine that cannot run the query: shown, not fatal
                        r = dict(error=f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
                    if "error" not in r and (r["rows"], r["checksum"]) != refs[q["name"]]:
                        r["mismatch"] = True
                        failures.append(f"{q['name']} at {delay:g} ms: {engine} {r['rows']} rows {r['checksum']} "
                                        f"!= duckdb local {refs[q['name']]}")
                        print(f"\n!!!!! MISMATCH {failures[-1]}\n", file=sys.stderr, flush=True)
                    cell.setdefault(engine, {})[f"{delay:g}"] = r
                line = "  ".join(
                    f"{e}={statistics.median(v[f'{delay:g}']['times_ms']):.0f}ms/{v[f'{delay:g}']['requests'][0]}req"
                    if "times_ms" in v[f"{delay:g}"] else f"{e}=ERR({v[f'{delay:g}']['error'][:60]})"
                    for e, v in cell.items())
                print(f"[{delay:g} ms] {q['name']}: {refs[q['name']][0]} rows  {line}", flush=True)
                loads.append(loadavg())
        whole = [q for q in qs if q["name"].startswith("whole_")]
        local = {}
        for q in whole:
            for engine in engines:
                try:
                    local[engine] = local_whole(engine, q, files[q["file"]], runs)
                except Exception as e:
                    local[engine] = dict(error=f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
    finally:
        close_workers()
        proxy.close()
        moto.close()
    if args.reuse:
        old = json.loads(Path(args.reuse).read_text())
        taken = [e for e in old["results"].get(qs[0]["name"], {}) if e not in engines]
        for q in qs:
            for e in taken:
                results[q["name"]][e] = old["results"][q["name"]][e]
        for e in taken:
            if e in old.get("local", {}):
                local[e] = old["local"][e]
        loads = old["loads"] + loads
        failures = old["failures"] + failures
        engines = [e for e in ENGINES if e in engines or e in taken]
    raw = Path(args.out).with_suffix(".json")
    raw.write_text(json.dumps(dict(runs=runs, delays=delays, loads=loads, failures=failures, results=results,
                                   local=local, queries=[{k: v for k, v in q.items() if not callable(v)} for q in qs]),
                              indent=1, default=str))
    Path(args.out).write_text(render(qs, results, local, engines, runs, delays, loads, failures, refs,
                                     platform.machine(), os.cpu_count()))
    print(f"wrote {args.out}")
    for f in failures:
        print(f"MISMATCH: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
