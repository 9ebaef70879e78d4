"""Compare a parquetry file with the file pyarrow writes from the same input with the
matching options: the footer's shape (as pyarrow.parquet.read_metadata describes it) and the
values pyarrow reads from each.

Usage: pyarrow_options_compare.py < request.json

The request: {"cases": [{"name", "parquet": path written by parquetry, "ipc": Arrow IPC file
of the input, "write": pyarrow write_table keyword arguments, "empty_writes": N (optional:
instead of the input, write an empty table N times with one pq.ParquetWriter, as pyarrow
makes a row group of none per empty table), "read": pq.read_table keyword arguments}, ...]}.

For each case it prints, as JSON, {"name": {"ours": description, "pyarrow": description,
"same_values": bool, "ours_read": str(table schema and rows), "pyarrow_read": ...}}, where a
description is the footer's format version, its Parquet schema as pyarrow prints it, each
leaf's physical, logical and converted types, and each row group's rows with each chunk's
value count and whether it has statistics.
"""
import json
import sys
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq


def describe(path):
    meta = pq.read_metadata(path)
    schema = meta.schema
    leaves = []
    for i in range(len(schema)):
        c = schema.column(i)
        leaves.append({"path": c.path, "physical": c.physical_type, "logical": str(c.logical_type),
                       "converted": c.converted_type})
    groups = []
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        groups.append({"rows": rg.num_rows,
                       "chunks": [{"values": rg.column(i).num_values,
                                   "statistics": rg.column(i).is_stats_set}
                                  for i in range(rg.num_columns)]})
    # The first line of the schema's text is the object's address.
    text = str(schema).split("\n", 1)[1]
    return {"format_version": meta.format_version, "schema": text, "leaves": leaves,
            "row_groups": groups}


def main():
    request = json.load(sys.stdin)
    out = {}
    with tempfile.TemporaryDirectory(prefix="parquetry-pyarrow-options-") as tmp:
        for case in request["cases"]:
            with pa.ipc.open_file(case["ipc"]) as f:
                table = f.read_all()
            theirs = f"{tmp}/{case['name']}.parquet"
            if case.get("empty_writes"):
                with pq.ParquetWriter(theirs, table.schema, **case["write"]) as w:
                    for _ in range(case["empty_writes"]):
                        w.write_table(table.slice(0, 0))
            else:
                pq.write_table(table, theirs, **case["write"])
            read = case.get("read", {})
            ours_table = pq.read_table(case["parquet"], **read)
            their_table = pq.read_table(theirs, **read)
            out[case["name"]] = {
                "ours": describe(case["parquet"]),
                "pyarrow": describe(theirs),
                "same_values": ours_table.equals(their_table),
                "ours_read": f"{ours_table.schema}\n{ours_table.to_pylist()}",
                "pyarrow_read": f"{their_table.schema}\n{their_table.to_pylist()}",
            }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
