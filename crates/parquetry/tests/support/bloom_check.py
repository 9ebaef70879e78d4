"""Checks a file's bloom filters with readers that share no code with parquetry.

Request (JSON on stdin): {"path": parquet file, "ipc": Arrow IPC file of the input (optional),
"probes": {column: [value, ...]}} where a value is a JSON string, number, or {"hex": "..."}
for bytes. Answer (JSON on stdout):
- "same": pyarrow reads the file equal to the input (null without "ipc");
- "chunks": per row group, per column, pyarrow's bloom_filter_offset and bloom_filter_length;
- "probes": per column, over (value, row group) pairs, how many pyarrow finds the value in
  ("present") and of those how many duckdb's parquet_bloom_probe rules out ("false_negatives"),
  how many it does not find ("absent") and of those how many duckdb rules out ("excluded"),
  and "absent_everywhere": the probe values pyarrow finds in no row group.
"""

import json
import sys

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq


def value(v):
    return bytes.fromhex(v["hex"]) if isinstance(v, dict) else v


def main():
    req = json.load(sys.stdin)
    path = req["path"]
    pf = pq.ParquetFile(path)
    meta = pf.metadata
    same = None
    if req.get("ipc"):
        expected = ipc.open_file(req["ipc"]).read_all()
        got = pq.read_table(path)
        same = got.schema.equals(expected.schema) and got.equals(expected)
    chunks = []
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        chunks.append([
            {"path": rg.column(c).path_in_schema, "offset": rg.column(c).bloom_filter_offset,
             "length": rg.column(c).bloom_filter_length}
            for c in range(rg.num_columns)
        ])
    con = duckdb.connect()
    probes = {}
    for column, values in req.get("probes", {}).items():
        groups = []
        for g in range(meta.num_row_groups):
            arr = pf.read_row_group(g, columns=[column]).column(0)
            if pa.types.is_dictionary(arr.type):
                arr = arr.cast(arr.type.value_type)
            groups.append(set(arr.to_pylist()))
        counts = {"present": 0, "false_negatives": 0, "absent": 0, "excluded": 0, "absent_everywhere": []}
        for raw in values:
            v = value(raw)
            rows = con.execute(
                "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)", [path, column, v]
            ).fetchall()
            excludes = dict(rows)
            for g, present in enumerate(groups):
                ruled_out = bool(excludes.get(g, False))
                if v in present:
                    counts["present"] += 1
                    counts["false_negatives"] += ruled_out
                else:
                    counts["absent"] += 1
                    counts["excluded"] += ruled_out
            if not any(v in s for s in groups):
                counts["absent_everywhere"].append(raw)
        probes[column] = counts
    json.dump({"same": same, "chunks": chunks, "probes": probes}, sys.stdout)


main()
