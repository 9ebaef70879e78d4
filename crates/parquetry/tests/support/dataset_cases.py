"""Datasets for tests/dataset.rs, written by pyarrow, and the rows duckdb reads from them.

Usage:
  dataset_cases.py write DIR   writes DIR/hive (hive partitions k, s; two files a partition;
                               a null and a percent-encoded value; a _SUCCESS file and a
                               .hidden folder that are not data) and DIR/evolve (three files
                               whose columns differ)
  dataset_cases.py query       reads JSON lines {"source" (a path, glob or list), "hive", "select", "where", "out"}
                               on stdin; for each, duckdb's rows (in file order, then row
                               order) are written to "out" as an Arrow IPC file

duckdb is the independent reader: read_parquet with hive_partitioning and union_by_name.
"""
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def write(root):
    hive = os.path.join(root, "hive")
    n = 6000
    ids = list(range(n))
    k = [None if i % 7 == 0 else i % 3 for i in ids]
    s = ["w w/x" if i % 5 == 0 else ("u" if i % 2 else "v") for i in ids]
    table = pa.table({
        "id": pa.array(ids, pa.int64()),
        "x": pa.array([(i * 37) % 1000 for i in ids], pa.int64()),
        "y": pa.array([None if i % 11 == 0 else f"y{i % 97:03d}" for i in ids], pa.string()),
        "k": pa.array(k, pa.int64()),
        "s": pa.array(s, pa.string()),
    })
    half = n // 2
    pq.write_to_dataset(table.slice(0, half), hive, partition_cols=["k", "s"],
                        basename_template="part-a-{i}.parquet", row_group_size=500)
    pq.write_to_dataset(table.slice(half), hive, partition_cols=["k", "s"],
                        basename_template="part-b-{i}.parquet", row_group_size=500)
    open(os.path.join(hive, "_SUCCESS"), "w").close()
    os.makedirs(os.path.join(hive, ".hidden"), exist_ok=True)
    with open(os.path.join(hive, ".hidden", "junk.parquet"), "w") as f:
        f.write("not parquet")

    evolve = os.path.join(root, "evolve")
    os.makedirs(os.path.join(evolve, "sub"), exist_ok=True)
    pq.write_table(pa.table({"id": pa.array([0, 1, 2], pa.int64()), "x": pa.array([10, 11, None], pa.int64()),
                             "y": ["a", "b", None]}), os.path.join(evolve, "a.parquet"))
    pq.write_table(pa.table({"id": pa.array([3, 4], pa.int64()), "x": pa.array([13, 14], pa.int64()),
                             "z": [1.5, None]}), os.path.join(evolve, "b.parquet"))
    pq.write_table(pa.table({"id": pa.array([5], pa.int64()), "z": [2.5]}), os.path.join(evolve, "sub", "c.parquet"))


def query():
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads TO 1")
    for line in sys.stdin:
        if not line.strip():
            continue
        q = json.loads(line)
        src = q["source"]
        src = "[" + ", ".join(f"'{s}'" for s in src) + "]" if isinstance(src, list) else f"'{src}'"
        hive = "true" if q["hive"] else "false"
        where = f"WHERE {q['where']}" if q["where"] else ""
        sql = (f"SELECT {q['select']} FROM read_parquet({src}, hive_partitioning={hive}, union_by_name=true, "
               f"filename=true, file_row_number=true) {where} ORDER BY filename, file_row_number")
        rel = con.sql(sql)
        # The method's name changed across duckdb versions.
        name = next(n for n in ("to_arrow_table", "fetch_arrow_table", "arrow") if hasattr(rel, n))
        table = getattr(rel, name)()
        if isinstance(table, pa.RecordBatchReader):
            table = table.read_all()
        with pa.ipc.new_file(q["out"], table.schema) as w:
            w.write_table(table)
    print("ok")


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        query()
