"""Files whose filter matches are scattered through every page, and pyarrow's answers.

Usage: filter_scattered.py OUT_DIR

Writes, for data page versions 1.0 and 2.0, a file of 40,000 rows in 2 row groups whose pages
hold 1,000 rows each (`write_batch_size` 1,000 and a 1-byte `data_page_size`: a page per write
batch). Output columns: required and nullable, dictionary-encoded and PLAIN, integers, doubles,
strings and booleans. Predicate columns `p_<pattern>` are 1 at the pattern's rows and 0
elsewhere: every k-th row for several k, random rows, and the rows at each page's edges.

For every pattern, pyarrow's own filter of the same file (`pq.read_table(filters=...)`) is
written as an Arrow IPC file. Prints JSON: [{"file": path, "answers": {pattern: ipc_path}}].
"""
import json
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N = 40_000
PAGE_ROWS = 1_000
OUTPUTS = ["id", "a_req", "b_opt", "c_plain", "d_opt_plain", "s_opt", "t_plain", "flag"]


def patterns(rng):
    """Each pattern's selected rows, as a boolean mask."""
    rows = np.arange(N)
    out = {}
    for k in (2, 7, 64, 341, 1_500):
        out[f"every_{k}"] = rows % k == 3 % k
    out["random_1pct"] = rng.random(N) < 0.01
    out["random_20pct"] = rng.random(N) < 0.2
    # The first and last row of every page, and the rows either side of each boundary.
    edges = np.zeros(N, dtype=bool)
    for start in range(0, N, PAGE_ROWS):
        for r in (start, start + 1, start + PAGE_ROWS - 2, start + PAGE_ROWS - 1):
            edges[r] = True
    out["page_edges"] = edges
    # One row in a whole row group's worth of pages, at a page's last row.
    lone = np.zeros(N, dtype=bool)
    lone[N // 2 + 7 * PAGE_ROWS - 1] = True
    out["lone"] = lone
    return out


def table(rng, pats):
    ids = np.arange(N, dtype=np.int64)
    null = lambda p: rng.random(N) < p  # noqa: E731
    strings = np.array([f"s{v:03d}" for v in range(300)], dtype=object)
    cols = {
        "id": pa.array(ids),
        # Few distinct values: RLE and bit-packed dictionary indexes.
        "a_req": pa.array(rng.integers(0, 50, N, dtype=np.int64)),
        "b_opt": pa.array(rng.integers(-1_000, 1_000, N, dtype=np.int64), mask=null(0.3)),
        "c_plain": pa.array(rng.random(N)),
        "d_opt_plain": pa.array(rng.integers(0, 1 << 40, N, dtype=np.int64), mask=null(0.1)),
        "s_opt": pa.array(strings[rng.integers(0, 300, N)], type=pa.string(), mask=null(0.25)),
        "t_plain": pa.array([f"row-{i}-" + "x" * (i % 23) for i in range(N)], type=pa.string(), mask=null(0.15)),
        "flag": pa.array(rng.random(N) < 0.5, mask=null(0.2)),
    }
    for name, mask in pats.items():
        cols[f"p_{name}"] = pa.array(mask.astype(np.int32))
    schema = pa.schema([pa.field(k, v.type, nullable=k not in ("id", "a_req", "c_plain")) for k, v in cols.items()])
    return pa.table(cols, schema=schema)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(30)
    pats = patterns(rng)
    t = table(rng, pats)
    plain = ["c_plain", "d_opt_plain", "t_plain"]
    dictionary = [c for c in t.column_names if c not in plain]
    result = []
    for version in ("1.0", "2.0"):
        path = os.path.join(out_dir, f"scattered_v{version[0]}.parquet")
        pq.write_table(t, path, row_group_size=N // 2, data_page_size=1, write_batch_size=PAGE_ROWS,
                       data_page_version=version, use_dictionary=dictionary, compression="snappy",
                       write_page_index=True)
        answers = {}
        for name in pats:
            want = pq.read_table(path, columns=OUTPUTS, filters=[(f"p_{name}", "=", 1)])
            ipc = os.path.join(out_dir, f"scattered_v{version[0]}_{name}.arrow")
            with pa.OSFile(ipc, "wb") as f, pa.ipc.new_file(f, want.schema) as w:
                w.write_table(want)
            answers[name] = ipc
        result.append({"file": path, "answers": answers})
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
