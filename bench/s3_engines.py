"""The engines of the S3 benchmark (``s3_bench.py``), each reading one query of
``filter_queries.py`` from ``s3://BUCKET/KEY`` through the counting proxy.

``ENGINES[name](q, store, key)`` does the set-up that is not timed (clients made, a process
started) and returns ``run()``, which does one whole read, the file opened inside it, and
returns ``(output, ms)``: a ``pa.Table``, a polars frame or an int (a count), and the time it
took. Settings (each engine on one thread where it can be set): ``SETTINGS``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
KEY_ID, SECRET, REGION = "test", "test", "us-east-1"
# duckdb 1.4.4 + httpfs's own venv (S3BENCH_DUCKDB_VENV to use another: machines shared by
# several runs keep one each).
DUCKDB_VENV = Path(os.environ.get("S3BENCH_DUCKDB_VENV", "/tmp/s3bench-duckdb-venv"))

SETTINGS = {
    "parquetry": "`parquetry.read_table('s3://..', columns=, filters=DNF or condition text, threads=1, "
                 "storage_options={aws_endpoint_url, keys, aws_region, allow_http})`: one decoding thread; its "
                 "object store client sends the prefetched ranges from two runtime threads, up to 32 requests "
                 "and 32 MiB in flight",
    "pyarrow": "`pq.read_table('bench/KEY', filesystem=S3FileSystem(endpoint_override=proxy, scheme='http', ..), "
               "columns=, filters=DNF or Expression, use_threads=False, schema= (string_view read as string, as in "
               "filter_bench))`; pre_buffer on (its default); its I/O pool (8 threads) is not changed",
    "polars": "`POLARS_MAX_THREADS=1`, `scan_parquet('s3://..', storage_options={aws_endpoint_url, keys, "
              "aws_region, aws_allow_http}).filter(..).select(..).collect()`",
    "datafusion": "`target_partitions=1`, a new `SessionContext` per run (no metadata cache carried over), "
                  "`AmazonS3(endpoint=proxy, allow_http=True)` registered for `s3://BUCKET`, "
                  "`register_parquet` + SQL; parquet `pushdown_filters` false (its default)",
    "datafusion-pushdown": "as datafusion, with `datafusion.execution.parquet.pushdown_filters` true",
    "duckdb": "duckdb 1.4.4 with the `duckdb-ext-httpfs` 1.4.4 package, in its own venv "
              "(/tmp/s3bench-duckdb-venv) and process (bench/s3_duckdb_worker.py); `SET threads=1`, "
              "`enable_external_file_cache=false` (no data cached across runs), an S3 secret with the proxy as "
              "endpoint (path style, no SSL); `SELECT .. FROM read_parquet('s3://..') WHERE ..`",
}


class Store:
    """Where the engines find the objects: the proxy's URL and the bucket."""

    def __init__(self, endpoint: str, bucket: str):
        self.endpoint = endpoint
        self.bucket = bucket

    @property
    def host(self) -> str:
        return self.endpoint.split("://", 1)[1]

    def url(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def glob(self, key: str) -> str:
        """The URL, a prefix (``dir/``) as a glob of its Parquet objects: for the engines
        that read a dataset by a glob (polars, duckdb)."""
        return self.url(key + "*.parquet" if key.endswith("/") else key)


def _timed(fn):
    def run():
        start = time.perf_counter()
        out = fn()
        return out, (time.perf_counter() - start) * 1e3
    return run


def _count(q) -> bool:
    return q["columns"] == []


def _select(q) -> str:
    return "*" if q["columns"] is None else ", ".join(f'"{c}"' for c in q["columns"])


def _sql(q, table: str) -> str:
    where = f" WHERE {q['sql']}" if q["sql"] else ""
    return f"SELECT {'count(*)' if _count(q) else _select(q)} FROM {table}{where}"


def engine_parquetry(q, store: Store, key: str):
    import parquetry

    options = {"aws_endpoint_url": store.endpoint, "aws_access_key_id": KEY_ID, "aws_secret_access_key": SECRET,
               "aws_region": REGION, "allow_http": "true"}
    filters = q["dnf"] if q["dnf"] is not None else q["sql"]
    url = store.url(key)
    return _timed(lambda: parquetry.read_table(url, columns=q["columns"], filters=filters, threads=1,
                                               storage_options=options))


def engine_pyarrow(q, store: Store, key: str):
    from pyarrow.fs import S3FileSystem

    fs = S3FileSystem(endpoint_override=store.host, scheme="http", access_key=KEY_ID, secret_key=SECRET,
                      region=REGION)
    path = f"{store.bucket}/{key}"
    filters = q["dnf"] if q["dnf"] is not None else (q["expr"]() if q.get("expr") else None)
    # As filter_bench: pyarrow 26 cannot filter string_view (tpchgen's stored Arrow schema).
    # The schema is read here, before the timed runs (its requests are not counted).
    first = path
    if key.endswith("/"):  # a dataset: the schema of its first object
        from pyarrow.fs import FileSelector

        first = sorted(i.path for i in fs.get_file_info(FileSelector(path)) if i.path.endswith(".parquet"))[0]
    file_schema = pq.read_schema(first, filesystem=fs)
    schema = pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f for f in file_schema],
                       metadata=file_schema.metadata)
    schema = None if schema.equals(file_schema) else schema
    return _timed(lambda: pq.read_table(path, filesystem=fs, columns=q["columns"], filters=filters,
                                        use_threads=False, schema=schema))


def engine_polars(q, store: Store, key: str):
    import polars as pl

    options = {"aws_endpoint_url": store.endpoint, "aws_access_key_id": KEY_ID, "aws_secret_access_key": SECRET,
               "aws_region": REGION, "aws_allow_http": "true"}
    url = store.glob(key)

    def run():
        lf = pl.scan_parquet(url, storage_options=options)
        if q["polars"] is not None:
            lf = lf.filter(q["polars"](pl))
        if _count(q):
            return lf.select(pl.len()).collect().item()
        if q["columns"] is not None:
            lf = lf.select(q["columns"])
        return lf.collect()
    return _timed(run)


def _datafusion(pushdown: bool):
    def engine(q, store: Store, key: str):
        from datafusion import SessionConfig, SessionContext
        from datafusion.object_store import AmazonS3

        sql = _sql(q, "t")

        def run():
            config = (SessionConfig().with_target_partitions(1)
                      .set("datafusion.execution.parquet.pushdown_filters", "true" if pushdown else "false"))
            ctx = SessionContext(config)
            s3 = AmazonS3(bucket_name=store.bucket, region=REGION, access_key_id=KEY_ID, secret_access_key=SECRET,
                          endpoint=store.endpoint, allow_http=True)
            ctx.register_object_store("s3://", s3, store.bucket)
            ctx.register_parquet("t", store.url(key))
            batches = ctx.sql(sql).collect()
            if _count(q):
                return batches[0].column(0)[0].as_py()
            return pa.Table.from_batches(batches)
        return _timed(run)
    return engine


class DuckdbWorker:
    """duckdb 1.4.4 + httpfs in its own venv and process, driven over stdin/stdout."""

    def __init__(self, store: Store):
        python = DUCKDB_VENV / "bin" / "python"
        if not python.exists():
            raise RuntimeError(f"{python} missing: python3 -m venv {DUCKDB_VENV} && {python} -m pip install "
                               "duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205 pyarrow")
        self.proc = subprocess.Popen([str(python), str(HERE / "s3_duckdb_worker.py"), store.host, KEY_ID, SECRET,
                                      REGION], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ask({"op": "ping"})

    def ask(self, message: dict) -> dict:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the duckdb worker exited ({self.proc.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


_WORKER: list[DuckdbWorker] = []


def duckdb_worker(store: Store) -> DuckdbWorker:
    if not _WORKER or _WORKER[0].proc.poll() is not None:
        _WORKER[:] = [DuckdbWorker(store)]
    return _WORKER[0]


def close_workers():
    for w in _WORKER:
        w.close()
    _WORKER.clear()


def engine_duckdb(q, store: Store, key: str):
    worker = duckdb_worker(store)
    sql = _sql(q, f"read_parquet('{store.glob(key)}')")
    out = Path(tempfile.gettempdir()) / f"s3bench-duckdb-{os.getpid()}.arrow"

    def run():
        answer = worker.ask({"op": "run", "sql": sql, "count": _count(q), "out": str(out)})
        if _count(q):
            return answer["count"], answer["ms"]
        with pa.memory_map(str(out)) as f:
            table = pa.ipc.open_file(f).read_all()
        return table, answer["ms"]
    return run


ENGINES = {
    "parquetry": engine_parquetry,
    "pyarrow": engine_pyarrow,
    "polars": engine_polars,
    "datafusion": _datafusion(False),
    "datafusion-pushdown": _datafusion(True),
    "duckdb": engine_duckdb,
}


if __name__ == "__main__":
    sys.exit(__doc__)
