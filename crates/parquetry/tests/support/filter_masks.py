"""Files and answers for tests/filter_masks.rs: pyarrow writes dictionary-encoded string
columns of 2 to 600,000 distinct values (index widths 1 to 20), in stretches of one value (RLE
runs) and of scattered values (bit-packed runs), with nulls, in small pages; pyarrow's own
dataset filter answers each condition (the ids it keeps, within each row selection).

usage: python3 filter_masks.py DIR  ->  JSON on stdout: [{file, n, cases: [{where, selection, ids}]}]
"""
import json
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

out_dir = sys.argv[1]
field = pc.field
results = []
for n in [2, 3, 8, 33, 300, 5000, 70_000, 600_000]:
    rows = max(60_000, n + n // 5)
    rng = np.random.default_rng(n)
    keys = np.empty(rows, dtype=np.int64)
    # Stretches of 1,000 rows: one value repeated in runs of 1 to 200, or scattered values.
    for start in range(0, rows, 1000):
        end = min(rows, start + 1000)
        if (start // 1000) % 2 == 0:
            at = start
            while at < end:
                k = int(rng.integers(1, 200))
                keys[at:at + k] = rng.integers(0, n)
                at += k
        else:
            keys[start:end] = rng.integers(0, n, end - start)
    # Every value at least once (the dictionary has all n), then nulls: 5%, and a run.
    keys[rows - n:] = np.arange(n)
    values = np.array([f"v{k}" for k in range(n)], dtype=object)[keys]
    mask = rng.random(rows) < 0.05
    mask[3000:3300] = True
    s = pa.array(values, type=pa.string(), mask=mask)
    ids = pa.array(np.arange(rows, dtype=np.int64))
    t = pa.table({"id": ids, "x": pc.multiply(ids, 2), "s": s})
    path = f"{out_dir}/masks_{n}.parquet"
    pq.write_table(t, path, row_group_size=max(20_000, rows // 3 + 1), data_page_size=8192,
                   dictionary_pagesize_limit=64 << 20, write_page_index=True, compression="snappy")
    md = pq.ParquetFile(path).metadata
    for rg in range(md.num_row_groups):
        enc = md.row_group(rg).column(2).encodings
        assert "PLAIN" not in enc or "RLE_DICTIONARY" in enc, enc
    a, b = f"v{n // 2}", f"v{n - 1}"
    conditions = [
        (f"s = '{a}'", field("s") == a),
        (f"s IN ('{a}', '{b}', 'absent')", field("s").isin([a, b, "absent"])),
        (f"s != '{a}'", field("s") != a),
        ("s IS NULL", field("s").is_null()),
        ("s IS NOT NULL AND id < 50000", field("s").is_valid() & (field("id") < 50000)),
        (f"(s = '{a}' OR s IS NULL) AND id >= 1000", ((field("s") == a) | field("s").is_null()) & (field("id") >= 1000)),
        (f"NOT (s = '{a}')", ~(field("s") == a)),
        ("s LIKE 'v1%'", pc.starts_with(field("s"), "v1")),
        (f"s = '{a}' OR id < 10", (field("s") == a) | (field("id") < 10)),
        (f"s < '{a}' AND x > 100", (field("s") < a) & (field("x") > 100)),
    ]
    selections = [None, [[137, 5000], [5003, 5004], [20011, 41234]], [[2999, 3301], [rows - 7, rows]]]
    cases = []
    dataset = ds.dataset(path)
    for where, expr in conditions:
        kept = dataset.to_table(columns=["id"], filter=expr)["id"].to_numpy()
        for sel in selections:
            if sel is None:
                got = kept
            else:
                inside = np.zeros(len(kept), dtype=bool)
                for lo, hi in sel:
                    inside |= (kept >= lo) & (kept < hi)
                got = kept[inside]
            cases.append(dict(where=where, selection=sel, ids=sorted(int(i) for i in got)))
    results.append(dict(file=path, n=n, cases=cases))
print(json.dumps(results))
