"""Filtered reads (issue 30's benchmark), one command:

    python3 bench/filter_bench.py [--quick] [--runs N] [--only NAME,...]

Data: see ``filter_queries.py`` (written on first run into bench/data/filter, gitignored).
Engines, one thread each, warm page cache, the file opened inside the timed region:

- ``parquetry-rs``: the Rust reader, ``bench/examples/filter_parquetry.rs`` (``with_filter``,
  8,192-row batches);
- ``parquetry-py``: ``parquetry.read_table(filters=..., threads=1)``, DNF filters where the
  query has them, else the condition text (``filters="l_comment LIKE 'special%'"``);
- ``arrow-rs``: ``bench/examples/filter_arrow_rs.rs`` (RowFilter + page-index RowSelection;
  what it does exactly is in that file);
- ``duckdb``: ``SET threads=1``, ``SELECT .. FROM read_parquet(..) WHERE ..``, ``.to_arrow_table()``;
- ``polars``: ``POLARS_MAX_THREADS=1``, ``scan_parquet(..).filter(..).select(..).collect()``;
- ``pyarrow``: ``pq.read_table(filters=DNF or Expression, use_threads=False)``, with
  ``schema=`` reading tpchgen's string_view columns as string (pyarrow 26 cannot filter
  string_view);
- ``datafusion`` / ``datafusion-pushdown``: ``target_partitions=1``,
  ``datafusion.execution.parquet.pushdown_filters`` false (its default) / true.

Each engine's result is checked against parquetry-rs's: row count and a checksum of the
projected values (``filter_common/mod.rs``). A mismatch is printed loudly and marked in the
table. Writes ``bench/results/filter.md``.
"""

from __future__ import annotations

import os

os.environ["POLARS_MAX_THREADS"] = "1"  # read by polars at import

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from filter_queries import DATA, prepare, queries  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "target" / "release" / "examples"
RESULTS = ROOT / "bench" / "results" / "filter.md"
PEERS = ["arrow-rs", "duckdb", "polars", "pyarrow", "datafusion", "datafusion-pushdown"]
OURS = ["parquetry-rs", "parquetry-py"]


# ------------------------------------------------------------------------------------------
# The checksum, as filter_common/mod.rs computes it.

def _column_sums(col: pa.ChunkedArray) -> tuple[int, int, int]:
    nulls = col.null_count
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        col = col.cast(pa.large_binary()).fill_null(b"")
        length = total = 0
        for chunk in col.chunks:
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64)[chunk.offset:chunk.offset + len(chunk) + 1]
            data = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]] if len(chunk) else []
            length += int(offsets[-1] - offsets[0]) if len(chunk) else 0
            total += int(np.sum(data, dtype=np.uint64)) if len(data) else 0
        return nulls, length % 2**64, total % 2**64
    if pa.types.is_decimal(t):
        s = 0
        for chunk in col.chunks:
            if not len(chunk):
                continue
            words = np.frombuffer(chunk.buffers()[1], dtype="<u8")[2 * chunk.offset:2 * (chunk.offset + len(chunk))]
            low = words[0::2].copy()
            if chunk.null_count:
                low[~np.asarray(chunk.is_valid())] = 0
            s += int(np.sum(low, dtype=np.uint64))
        return nulls, s % 2**64, 0
    if pa.types.is_date32(t):
        col = col.cast(pa.int32())
    if pa.types.is_integer(col.type):
        values = col.cast(pa.int64()).fill_null(0).to_numpy().view(np.uint64)
        return nulls, int(np.sum(values, dtype=np.uint64)) % 2**64, 0
    raise TypeError(f"checksum: no rule for {t}")


def checksum(table: pa.Table) -> str:
    parts = [f"{name}:{':'.join(map(str, _column_sums(table.column(name))))}" for name in table.column_names]
    return "|".join([f"rows={table.num_rows}"] + sorted(parts))


# ------------------------------------------------------------------------------------------
# Engines. Each takes (query, path) and returns a function doing the whole read, giving a
# pa.Table (or an int for a count).

def _select(q) -> str:
    return "*" if q["columns"] is None else ", ".join(f'"{c}"' for c in q["columns"])


def _count(q) -> bool:
    return q["columns"] == []


def engine_duckdb(q, path):
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads=1")
    where = f" WHERE {q['sql']}" if q["sql"] else ""
    if _count(q):
        sql = f"SELECT count(*) FROM read_parquet('{path}'){where}"
        return lambda: con.execute(sql).fetchone()[0]
    sql = f"SELECT {_select(q)} FROM read_parquet('{path}'){where}"
    return lambda: con.sql(sql).to_arrow_table()


def engine_polars(q, path):
    import polars as pl

    def run():
        lf = pl.scan_parquet(path)
        if q["polars"] is not None:
            lf = lf.filter(q["polars"](pl))
        if _count(q):
            return lf.select(pl.len()).collect().item()
        if q["columns"] is not None:
            lf = lf.select(q["columns"])
        return lf.collect()
    return run


def engine_pyarrow(q, path):
    filters = q["dnf"] if q["dnf"] is not None else (q["expr"]() if q.get("expr") else None)
    columns = q["columns"]
    # pyarrow 26 has no comparison or filter kernels for string_view, which tpchgen's stored
    # Arrow schema asks for: read those columns as string (the reader decodes them so).
    file_schema = pq.read_schema(path)
    schema = pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f for f in file_schema],
                       metadata=file_schema.metadata)
    schema = None if schema.equals(file_schema) else schema
    return lambda: pq.read_table(path, columns=columns, filters=filters, use_threads=False, schema=schema)


def _datafusion(pushdown):
    def engine(q, path):
        from datafusion import SessionConfig, SessionContext

        config = (SessionConfig().with_target_partitions(1)
                  .set("datafusion.execution.parquet.pushdown_filters", "true" if pushdown else "false"))
        ctx = SessionContext(config)
        where = f" WHERE {q['sql']}" if q["sql"] else ""
        sql = f"SELECT {'count(*)' if _count(q) else _select(q)} FROM t{where}"

        def run():
            ctx.register_parquet("t", str(path))
            try:
                batches = ctx.sql(sql).collect()
            finally:
                ctx.deregister_table("t")
            if _count(q):
                return batches[0].column(0)[0].as_py()
            return pa.Table.from_batches(batches)
        return run
    return engine


def engine_parquetry_py(q, path):
    import parquetry

    filters = q["dnf"] if q["dnf"] is not None else q["sql"]
    columns = q["columns"]
    return lambda: parquetry.read_table(path, columns=columns, filters=filters, threads=1)


PY_ENGINES = {
    "parquetry-py": engine_parquetry_py,
    "duckdb": engine_duckdb,
    "polars": engine_polars,
    "pyarrow": engine_pyarrow,
    "datafusion": _datafusion(False),
    "datafusion-pushdown": _datafusion(True),
}


def _as_result(out):
    """(rows, checksum) of an engine's output."""
    if isinstance(out, int):
        return out, f"rows={out}"
    if not isinstance(out, pa.Table):
        out = out.to_arrow()  # polars
    if out.num_columns == 0:
        return out.num_rows, f"rows={out.num_rows}"
    return out.num_rows, checksum(out)


def run_python(engine, q, path, runs):
    fn = PY_ENGINES[engine](q, path)
    out = fn()  # warm-up (and the result checked)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    rows, check = _as_result(out)
    return dict(times_ms=times, rows=rows, checksum=check)


def run_rust(example, q, path, runs):
    arg = dict(file=str(path), runs=runs, columns=q["columns"], where=q["sql"] or "", leaves=q["leaves"])
    exe = EXAMPLES / example
    out = subprocess.run([str(exe), json.dumps(arg)], capture_output=True, text=True,
                         env={**os.environ, "MIMALLOC_PURGE_DELAY": "-1"})
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-500:])
    return json.loads(out.stdout)


def run_engine(engine, q, path, runs):
    if engine == "parquetry-rs":
        return run_rust("filter_parquetry", q, path, runs)
    if engine == "arrow-rs":
        return run_rust("filter_arrow_rs", q, path, runs)
    return run_python(engine, q, path, runs)


# ------------------------------------------------------------------------------------------

def build_examples():
    subprocess.run(["cargo", "build", "--release", "-p", "parquetry-bench", "--example", "filter_parquetry",
                    "--example", "filter_arrow_rs"], cwd=ROOT, check=True)


def loadavg() -> str:
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 timed run per cell (checks results; times are rough)")
    ap.add_argument("--runs", type=int, default=None, help="timed runs per cell (default 5; --quick 1)")
    ap.add_argument("--only", default=None, help="comma-separated query names")
    ap.add_argument("--engines", default=None, help="comma-separated engines (default: all)")
    ap.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    ap.add_argument("--out", default=str(RESULTS), help="markdown file to write")
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 5)
    if not args.no_build:
        build_examples()
    files = prepare()
    qs = queries(files)
    if args.only:
        keep = set(args.only.split(","))
        qs = [q for q in qs if q["name"] in keep]
    engines = args.engines.split(",") if args.engines else OURS + PEERS
    results = {}
    failures = []
    loads = [loadavg()]
    for q in qs:
        path = files[q["file"]]
        total = pq.read_metadata(path).num_rows
        results[q["name"]] = {}
        q["total_rows"] = total
        for engine in engines:
            try:
                r = run_engine(engine, q, path, runs)
            except Exception as e:  # an engine that cannot run the query: shown, not fatal
                r = dict(error=f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
            results[q["name"]][engine] = r
        ref_engine = engines[0]
        ref = results[q["name"]][ref_engine]
        for engine, r in results[q["name"]].items():
            if "error" in r or "error" in ref:
                continue
            if (r["rows"], r["checksum"]) != (ref["rows"], ref["checksum"]):
                r["mismatch"] = True
                failures.append(f"{q['name']}: {engine} {r['rows']} rows {r['checksum']} != {ref_engine} "
                                f"{ref['rows']} rows {ref['checksum']}")
                print(f"\n!!!!! MISMATCH {failures[-1]}\n", file=sys.stderr, flush=True)
        line = "  ".join(f"{e}={statistics.median(r['times_ms']):.1f}" if "times_ms" in r else f"{e}=ERR"
                         for e, r in results[q["name"]].items())
        print(f"{q['name']}: {ref.get('rows')} of {total} rows  {line}", flush=True)
        loads.append(loadavg())
    raw = Path(args.out).with_suffix(".json")
    raw.write_text(json.dumps(dict(runs=runs, loads=loads, failures=failures, results=results,
                                   queries=[{k: v for k, v in q.items() if not callable(v)} for q in qs]),
                              indent=1, default=str))
    report = render(qs, results, engines, runs, loads, failures)
    Path(args.out).write_text(report)
    print(f"wrote {args.out}")
    for f in failures:
        print(f"MISMATCH: {f}", file=sys.stderr)
    errors = [(qn, e, r["error"]) for qn, rs in results.items() for e, r in rs.items() if "error" in r]
    for qn, e, msg in errors:
        print(f"not run: {qn} {e}: {msg}", file=sys.stderr)
    return 1 if failures else 0


def _median(r):
    return statistics.median(r["times_ms"]) if "times_ms" in r else None


def _fmt_bytes(n):
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def render(qs, results, engines, runs, loads, failures) -> str:
    from importlib.metadata import PackageNotFoundError, version

    def v(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return "?"

    out = ["# Filtered reads: parquetry against the peers (issue 30)", "",
           f"`python3 bench/filter_bench.py` (median of {runs} runs after one warm-up, milliseconds, one thread "
           "each, warm page cache, file opened inside the timed region). Data: TPC-H SF1 (`tpchgen-cli`) "
           "lineitem/orders as generated, lineitem sorted by l_shipdate (128Ki-row row groups, 64 KiB pages, "
           "page index), and a 2M-row strings table with 2% nulls in `note`. Engines and settings: see "
           "`bench/filter_bench.py`'s docstring.", "",
           f"Machine: {platform.machine()}, {os.cpu_count()} cores; 1-minute load average at the start and "
           f"after each query: {', '.join(loads)}. Versions: pyarrow {v('pyarrow')}, duckdb {v('duckdb')}, "
           f"polars {v('polars')}, datafusion {v('datafusion')}, arrow-rs parquet 60.1.", ""]
    if failures:
        out += ["**RESULT MISMATCHES:**", ""] + [f"- {f}" for f in failures] + [""]
    head = ["query", "rows (of)", "sel."] + engines + ["fastest peer", "rs ÷ peer", "py ÷ peer", "parquetry-rs bytes read",
                                                     "arrow-rs bytes read"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * 3 + "---:|" * (len(head) - 3)]
    summary = []
    for q in qs:
        rs = results[q["name"]]
        cells = []
        for e in engines:
            r = rs.get(e, {"error": "not run"})
            if "error" in r:
                cells.append("n/a")
            else:
                cells.append(f"{_median(r):.1f}" + (" **MISMATCH**" if r.get("mismatch") else ""))
        peers = [(e, _median(rs[e])) for e in PEERS if "times_ms" in rs.get(e, {}) and not rs[e].get("mismatch")]
        best = min(peers, key=lambda p: p[1]) if peers else (None, None)
        ours = {e: _median(rs[e]) for e in OURS if "times_ms" in rs.get(e, {})}
        ratio = {e: (f"{ours[e] / best[1]:.2f}" if e in ours and best[1] else "–") for e in OURS}
        ref = rs.get("parquetry-rs") or rs[engines[0]]
        rows = ref.get("rows", "?")
        sel = f"{100 * rows / q['total_rows']:.4g}%" if isinstance(rows, int) else "?"
        extra = ref.get("extra") or {}
        pq_bytes = f"{_fmt_bytes(ref['bytes_read'])}" if "bytes_read" in ref else "?"
        if extra.get("pages_total"):
            pq_bytes += f" ({extra['pages_pruned']}/{extra['pages_total']} pages pruned)"
        if extra.get("row_groups_total"):
            pq_bytes += f", {extra['row_groups_pruned']}/{extra['row_groups_total']} RGs pruned"
        ar = rs.get("arrow-rs", {})
        ar_bytes = _fmt_bytes(ar["bytes_read"]) if "bytes_read" in ar else "n/a"
        out.append("| " + " | ".join([f"`{q['name']}`: {q['what']}", f"{rows:,} ({q['total_rows']:,})" if isinstance(rows, int) else "?", sel]
                                     + cells + [best[0] or "–", ratio["parquetry-rs"], ratio["parquetry-py"], pq_bytes, ar_bytes]) + " |")
        summary.append((q, best, ours))
    out += ["", "rs ÷ peer and py ÷ peer: parquetry's Rust reader and Python `read_table` against the fastest "
            "peer in any language; below 1 is faster. Bytes read: what the process asked the kernel for "
            "(`rchar` of /proc/self/io, one run), footer and indexes included.", ""]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
