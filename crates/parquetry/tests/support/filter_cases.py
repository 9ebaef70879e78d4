"""Write the filter tests' files with pyarrow, and answer their queries with duckdb and pyarrow.

Usage: filter_cases.py write DIR            writes DIR/indexed.parquet, DIR/plain.parquet
       filter_cases.py answer PATH < cases   answers each case of the JSON on stdin

`write`: 100,000 rows in 10 row groups of 10,000, small pages (4 KiB), snappy; `indexed` has a
page index, `plain` has none (statistics only). `id` is the row number (sorted); other columns
are sorted (`s`, `d`, `ts`), unsorted (`k`, `f`, `dec`, `u`, `cat`), with nulls, NaN and -0.0;
`grp` has a value of each row group's own, found only by its dictionary. `indexed` has bloom
filters on `s`, `u` and `k`.

`answer`: the cases are {"name": ["duckdb", "SQL condition"] or ["pyarrow", "Python expression
over pc (pyarrow.compute) and ds (pyarrow.dataset)"]}; prints {"name": [matching ids, in order]}.
Floating point conditions go to pyarrow (IEEE comparisons, as parquetry's); the others to
duckdb, an independent reader of the same file.
"""
import datetime
import decimal
import json
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq


def table(n=100_000):
    def nth(i, every):
        return i % every == 0

    ids = pa.array(range(n), pa.int64())
    k = pa.array([None if nth(i, 13) else (i * 7919) % 1000 for i in range(n)], pa.int32())
    u = pa.array([(i * 2654435761) % 2**64 if i % 3 else i for i in range(n)], pa.uint64())
    specials = [float("nan"), -0.0, 0.0, float("inf"), float("-inf")]
    f = pa.array([None if nth(i, 11) else specials[i % 5] if nth(i, 7) else ((i * 37) % 2000) / 10.0 - 100.0
                  for i in range(n)], pa.float64())
    f32 = pa.array([None if nth(i, 17) else float(((i * 13) % 1000)) / 8.0 for i in range(n)], pa.float32())
    s = pa.array([f"key_{i:06d}" for i in range(n)], pa.string())
    cats = ["apple", "apricot", "banana", "blueberry", "cherry", "\u00e9clair", "zucchini"]
    cat = pa.array([None if nth(i, 19) else cats[(i * 31) % len(cats)] for i in range(n)], pa.string())
    epoch = datetime.date(2020, 1, 1)
    d = pa.array([epoch + datetime.timedelta(days=i // 200) for i in range(n)], pa.date32())
    t0 = datetime.datetime(2021, 6, 1)
    ts = pa.array([t0 + datetime.timedelta(seconds=i * 3, microseconds=i % 1000) for i in range(n)],
                  pa.timestamp("us"))
    dec = pa.array([None if nth(i, 23) else decimal.Decimal((i * 7) % 100_000 - 50_000) / 100 for i in range(n)],
                   pa.decimal128(9, 2))
    rec = pa.array([None if nth(i, 29) else {"a": (i * 3) % 500, "b": f"b{i % 97:03d}"} for i in range(n)],
                   pa.struct([("a", pa.int32()), ("b", pa.string())]))
    # Every row group spans 'aaa'..'zzz' (its statistics rule nothing out between them), and
    # holds one value of its own: only its dictionary tells which.
    grp = pa.array([f"mid_{i // 10_000}" if i % 1000 == 500 else ("aaa" if i % 2 else "zzz") for i in range(n)])
    return pa.table({"id": ids, "k": k, "u": u, "f": f, "f32": f32, "s": s, "cat": cat, "d": d, "ts": ts,
                     "dec": dec, "rec": rec, "grp": grp})


def write(directory):
    t = table()
    blooms = {"s": {"ndv": 10_000, "fpp": 0.01}, "u": {"ndv": 10_000, "fpp": 0.01}, "k": True, "f": True,
              "f32": True}
    for name, index in (("indexed", True), ("plain", False)):
        pq.write_table(t, f"{directory}/{name}.parquet", row_group_size=10_000, data_page_size=4096,
                       compression="snappy", write_page_index=index, use_dictionary=["cat", "grp"],
                       write_statistics=True, bloom_filter_options=blooms if index else None)


def write_decimals(directory):
    """Decimals stored as FIXED_LEN_BYTE_ARRAY (pyarrow's default) with bloom filters: 4 bytes
    for precision 9, 9 for 20. Each value is in one row group of ten, and every row group's
    statistics span nearly all of them. No dictionaries: they would rule the others out first."""
    n = 100_000
    small = [decimal.Decimal((i * 7) % n - n // 2) / 100 for i in range(n)]
    big = [decimal.Decimal((i * 7) % n - n // 2) * 10**15 / 100 for i in range(n)]
    t = pa.table({"id": pa.array(range(n), pa.int64()), "d9": pa.array(small, pa.decimal128(9, 2)),
                  "d20": pa.array(big, pa.decimal128(20, 2))})
    pq.write_table(t, f"{directory}/decimals.parquet", row_group_size=10_000, compression="snappy",
                   use_dictionary=False, bloom_filter_options={"d9": True, "d20": True})


def answer(path):
    import duckdb

    cases = json.load(sys.stdin)
    con = duckdb.connect()
    con.execute("SET threads TO 1")
    whole = pq.read_table(path)
    out = {}
    for name, (engine, expr) in cases.items():
        if engine == "duckdb":
            rows = con.execute(f"SELECT id FROM read_parquet('{path}') WHERE {expr} ORDER BY id").fetchall()
            out[name] = [r[0] for r in rows]
        else:
            kept = whole.filter(eval(expr, {"pc": pc, "ds": ds, "pa": pa}))
            out[name] = sorted(kept.column("id").to_pylist())
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
        write_decimals(sys.argv[2])
    else:
        answer(sys.argv[2])
