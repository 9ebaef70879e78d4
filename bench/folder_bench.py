"""Reading a folder of Parquet files (issue 31's datasets), one command:

    python3 bench/folder_bench.py [--runs N]

Data (written on first run into bench/data/folders, gitignored), by pyarrow with its defaults
(snappy, dictionaries, 1 MiB pages, no page index): ``small``, 200 files of 5,000 rows (~78 KB
each, as a stream of appends leaves them), and ``medium``, 20 files of 50,000 rows; columns
``id`` (int64), ``x`` (a double in [0, 1)), ``s`` (a string of 50 values).

Engines, one thread each, warm page cache, every file opened inside the timed region:

- ``parquetry``: ``parquetry.read_table(folder, filters=, threads=1)``;
- ``pyarrow``: ``pq.read_table(folder, filters=, use_threads=False)``;
- ``polars``: ``POLARS_MAX_THREADS=1``, ``scan_parquet(folder/*.parquet).filter(..).collect()``;
- ``duckdb``: ``SET threads=1``, ``SELECT * FROM read_parquet('folder/*.parquet') WHERE ..``,
  ``.to_arrow_table()``.

Reads: every row, and ``x < 0.01`` (1% of rows, in every file). The rows and a checksum (sum
of ``id``, sum of ``s``'s lengths) are checked equal to pyarrow's. Prints a Markdown table
(median ms of ``--runs`` after one warm-up) and writes ``bench/results/folders.md``.
"""

from __future__ import annotations

import os

os.environ["POLARS_MAX_THREADS"] = "1"  # read by polars at import

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "folders"
RESULTS = ROOT / "bench" / "results" / "folders.md"
FOLDERS = {"small": (200, 5_000), "medium": (20, 50_000)}


def prepare() -> None:
    """Writes the folders if they are not there yet."""
    for name, (files, rows) in FOLDERS.items():
        folder = DATA / name
        if folder.exists() and len(list(folder.glob("*.parquet"))) == files:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(7)
        values = pa.array([f"value_{i:02d}" for i in range(50)])
        for f in range(files):
            t = pa.table({
                "id": pa.array(np.arange(f * rows, (f + 1) * rows, dtype=np.int64)),
                "x": pa.array(rng.random(rows)),
                "s": pc.take(values, pa.array(rng.integers(0, 50, rows))),
            })
            pq.write_table(t, folder / f"part-{f:04d}.parquet")


def checksum(t) -> tuple:
    """Rows, the sum of `id`, the sum of the lengths of `s`."""
    t = pa.table(t) if not isinstance(t, pa.Table) else t
    return (t.num_rows, pc.sum(t.column("id")).as_py() or 0,
            pc.sum(pc.utf8_length(t.column("s").cast(pa.string()))).as_py() or 0)


def engines(folder: Path, filtered: bool):
    """Each engine's read of `folder` as a function returning an Arrow table."""
    import duckdb
    import parquetry
    import polars as pl

    dnf = [("x", "<", 0.01)] if filtered else None
    con = duckdb.connect()
    con.execute("SET threads=1")
    glob = str(folder / "*.parquet")
    where = " WHERE x < 0.01" if filtered else ""
    return {
        "parquetry": lambda: parquetry.read_table(str(folder), filters=dnf, threads=1),
        "pyarrow": lambda: pq.read_table(str(folder), filters=dnf, use_threads=False),
        "polars": lambda: (pl.scan_parquet(glob).filter(pl.col("x") < 0.01) if filtered
                           else pl.scan_parquet(glob)).collect().to_arrow(),
        "duckdb": lambda: con.execute(f"SELECT * FROM read_parquet('{glob}'){where}").to_arrow_table(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    prepare()
    rows = []
    names = ["parquetry", "pyarrow", "polars", "duckdb"]
    for name in FOLDERS:
        for filtered in (False, True):
            fns = engines(DATA / name, filtered)
            want = checksum(fns["pyarrow"]())
            times = {}
            for engine in names:
                got = checksum(fns[engine]())
                if got != want:
                    raise SystemExit(f"{engine} on {name} (filtered={filtered}): {got} != pyarrow's {want}")
                ts = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    fns[engine]()
                    ts.append((time.perf_counter() - t0) * 1e3)
                times[engine] = statistics.median(ts)
            best = min((t, e) for e, t in times.items() if e != "parquetry")
            files, per = FOLDERS[name]
            what = f"`{name}`: {files} files of {per:,} rows" + (", `x < 0.01`" if filtered else "")
            rows.append(f"| {what} | {want[0]:,} | " + " | ".join(f"{times[e]:.1f}" for e in names)
                        + f" | {best[1]} | {times['parquetry'] / best[0]:.2f} |")
    import duckdb
    import polars as pl
    import parquetry
    versions = (f"parquetry {parquetry.__version__}, pyarrow {pa.__version__}, polars {pl.__version__}, "
                f"duckdb {duckdb.__version__}")
    table = "\n".join([
        "| read | rows | " + " | ".join(names) + " | fastest peer | parquetry ÷ peer |",
        "|---|---:|" + "---:|" * len(names) + "---|---:|",
        *rows,
    ])
    text = (f"# Reading folders of files\n\n`python3 bench/folder_bench.py --runs {args.runs}` (median ms, one "
            f"thread each; see the script's docstring). Machine: {platform.machine()}, {os.cpu_count()} cores, "
            f"1-minute load {os.getloadavg()[0]:.2f} at the end. Versions: {versions}.\n\n{table}\n")
    RESULTS.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
