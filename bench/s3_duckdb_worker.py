"""duckdb's side of the S3 benchmark, run by ``s3_engines.py`` with the Python of
/tmp/s3bench-duckdb-venv (duckdb 1.4.4 and the ``duckdb-ext-httpfs`` package of the same
version: the system's duckdb is newer and has no httpfs build to load offline).

    python s3_duckdb_worker.py HOST:PORT KEY_ID SECRET REGION

Reads one JSON message a line on stdin and answers with one JSON line: ``{"op": "run",
"sql": .., "count": bool, "out": path}`` runs the query once (timed: the query and its
result as Arrow), writes the result to ``out`` as an Arrow IPC file (after the timing), and
answers ``{"ms": .., "rows": ..}`` (``"count"`` for a count).
"""

import json
import sys
import time
from pathlib import Path

import duckdb
import pyarrow as pa


def httpfs_path() -> str:
    # The package puts the extension file under duckdb_ext/extensions/vX/PLATFORM/.
    for base in map(Path, sys.path):
        found = sorted(base.glob(f"duckdb_ext/extensions/v{duckdb.__version__}/*/httpfs.duckdb_extension"))
        if found:
            return str(found[0])
    raise RuntimeError(f"no httpfs extension for duckdb {duckdb.__version__} (pip install duckdb-ext-httpfs)")


def connect(host: str, key_id: str, secret: str, region: str):
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{httpfs_path()}'")
    con.execute("SET threads=1")
    # Data and metadata fetched by one run are not kept for the next.
    con.execute("SET enable_external_file_cache=false")
    con.execute("SET enable_http_metadata_cache=false")
    con.execute(f"CREATE SECRET s3bench (TYPE s3, KEY_ID '{key_id}', SECRET '{secret}', REGION '{region}', "
                f"ENDPOINT '{host}', URL_STYLE 'path', USE_SSL false)")
    return con


def main() -> int:
    host, key_id, secret, region = sys.argv[1:5]
    con = connect(host, key_id, secret, region)
    for line in sys.stdin:
        message = json.loads(line)
        try:
            if message["op"] == "ping":
                answer = {"version": duckdb.__version__}
            else:
                start = time.perf_counter()
                if message["count"]:
                    count = con.execute(message["sql"]).fetchone()[0]
                    ms = (time.perf_counter() - start) * 1e3
                    answer = {"ms": ms, "count": count, "rows": count}
                else:
                    table = con.sql(message["sql"]).to_arrow_table()
                    ms = (time.perf_counter() - start) * 1e3
                    with pa.OSFile(message["out"], "wb") as f, pa.ipc.new_file(f, table.schema) as w:
                        w.write_table(table)
                    answer = {"ms": ms, "rows": table.num_rows}
        except Exception as e:  # reported to the benchmark, which shows it and goes on
            answer = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
