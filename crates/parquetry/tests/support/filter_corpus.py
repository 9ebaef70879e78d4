"""Counts of rows matching simple conditions on the corpus's flat columns, by pyarrow.compute.

Usage: filter_corpus.py CORPUS_DIR   prints a JSON list, one entry per (file, column):
  {"file": path, "column": name, "kind": "int"|"float"|"str"|"date"|"timestamp"|"decimal"|"bool",
   "value": the median distinct non-null value (ints and decimals as strings of digits),
   "unit": timestamp unit, "scale": decimal scale,
   "counts": {"eq": n, "ne": n, "lt": n, "ge": n, "null": n}}

Each file pyarrow reads is read whole; floating point conditions follow IEEE 754 as
pyarrow.compute does. Files written by many writers with statistics of every vintage (legacy
min/max, unsigned columns, truncated bounds) make this a check that pruning never drops a row.
"""
import glob
import json
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def kind(t):
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t) and not pa.types.is_float16(t):
        return "float"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "str"
    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_timestamp(t):
        return "timestamp"
    if pa.types.is_decimal128(t):
        return "decimal"
    return None


def main(corpus):
    out = []
    for path in sorted(glob.glob(f"{corpus}/data/*.parquet")):
        try:
            table = pq.read_table(path)
        except Exception:
            continue
        for name in table.column_names:
            column = table.column(name)
            k = kind(column.type)
            if k is None or len(column) == 0:
                continue
            column = column.combine_chunks()
            v = pc.unique(pc.drop_null(column))
            if k == "float":
                v = v.filter(pc.invert(pc.is_nan(v)))
            if len(v) == 0:
                continue
            median = v.take(pc.sort_indices(v))[len(v) // 2]
            count = lambda mask: int(pc.sum(pc.fill_null(mask, False).cast(pa.int64())).as_py() or 0)
            counts = {
                "eq": count(pc.equal(column, median)),
                "ne": count(pc.not_equal(column, median)),
                "lt": count(pc.less(column, median)),
                "ge": count(pc.greater_equal(column, median)),
                "null": count(pc.is_null(column)),
            }
            entry = {"file": path, "column": name, "kind": k, "counts": counts}
            if k == "timestamp":
                entry["unit"] = column.type.unit
                entry["value"] = str(median.cast(pa.int64()).as_py())
            elif k == "date":
                entry["value"] = median.cast(pa.int32()).as_py()
            elif k == "decimal":
                entry["scale"] = column.type.scale
                d = median.as_py()
                entry["value"] = str(int(d.scaleb(column.type.scale)))
            elif k == "int":
                entry["value"] = str(median.as_py())
            else:
                entry["value"] = median.as_py()
            out.append(entry)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
