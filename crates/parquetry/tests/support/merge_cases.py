"""Inputs and checks of the merge tests.

    merge_cases.py make DIR     writes each case's input files into DIR/CASE/ (pyarrow,
                                duckdb and polars as writers) and prints the case names
    merge_cases.py check OUT IN...   reads OUT and the inputs with pyarrow; prints JSON
                                {"equal": bool, "rows": n, "row_groups": k, "why": "..."}
    merge_cases.py corrupt SRC DST   copies SRC to DST with its middle column chunk's first
                                page header overwritten, checking pyarrow cannot read DST

A merged file must read (pq.read_table) equal to the inputs read one by one and
concatenated: values, types and row order; and duckdb must read the same rows from it as
from the inputs.
"""
import json
import os
import sys
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def table(seed: int, rows: int, nested: bool = False, null_column: bool = False) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = [f"{rng.integers(0, 2**63):016x}-{i:08x}" for i in range(rows)]
    cats = [None if rng.random() < 0.1 else f"category_{int(rng.integers(0, 100)):03}" for _ in range(rows)]
    cols = {
        "id": pa.array(ids),
        "category": pa.array(cats),
        "n": pa.array(rng.integers(-10**9, 10**9, rows), pa.int64()),
        "small": pa.array([None if rng.random() < 0.2 else int(x) for x in rng.integers(0, 50, rows)], pa.int32()),
        "x": pa.array(rng.normal(size=rows)),
        "flag": pa.array(rng.random(rows) < 0.5),
        "blob": pa.array([bytes(rng.integers(0, 256, int(rng.integers(0, 40)), dtype=np.uint8)) for _ in range(rows)]),
        # Nearly unique: a few values repeat within a file (a merge splices those into the
        # PLAIN pages it makes from dictionary pages).
        "near_unique": pa.array([f"key-{int(k)}" for k in rng.integers(0, rows * 40 + 1, rows)]),
    }
    if null_column:
        # pyarrow writes a Null column as all-null INT32 with an empty dictionary page.
        cols["nothing"] = pa.nulls(rows)
    if nested:
        cols["tags"] = pa.array([None if rng.random() < 0.1 else [f"t{int(t)}" for t in rng.integers(0, 9, int(rng.integers(0, 4)))] for _ in range(rows)])
    types = {"id": pa.string(), "category": pa.string(), "n": pa.int64(), "small": pa.int32(),
             "x": pa.float64(), "flag": pa.bool_(), "near_unique": pa.string(), "blob": pa.binary(), "tags": pa.list_(pa.string()),
             "nothing": pa.null()}
    return pa.table({k: v.cast(types[k]) for k, v in cols.items()})


def make(root: str) -> None:
    cases = {
        # name: list of (rows, writer kwargs) per input
        "dict_snappy": [(2000, {})] * 8,
        "dict_none": [(1200, dict(compression="none"))] * 3,
        "dict_zstd": [(1200, dict(compression="zstd"))] * 3,
        "v2_snappy": [(1500, dict(data_page_version="2.0"))] * 3,
        # Every other encoding and codec pyarrow writes.
        "delta_lz4": [(1500, dict(use_dictionary=False, compression="lz4", column_encoding={
            "id": "DELTA_BYTE_ARRAY", "category": "DELTA_LENGTH_BYTE_ARRAY", "n": "DELTA_BINARY_PACKED",
            "small": "DELTA_BINARY_PACKED", "x": "BYTE_STREAM_SPLIT", "blob": "DELTA_LENGTH_BYTE_ARRAY",
            "near_unique": "DELTA_BYTE_ARRAY"}))] * 3,
        "brotli_v2": [(1500, dict(compression="brotli", data_page_version="2.0", data_page_size=3000))] * 3,
        "plain_zstd": [(1500, dict(use_dictionary=False, compression="zstd"))] * 5,
        "v2_gzip_mixed": [(1000, dict(data_page_version="2.0", compression="gzip")), (700, dict(data_page_version="2.0", compression="gzip", use_dictionary=False))] * 3,
        "fallback": [(3000, dict(dictionary_pagesize_limit=2000, data_page_size=4000))] * 4,
        "tiny_pages_many_groups": [(2500, dict(row_group_size=300, data_page_size=512, write_page_index=True))] * 3,
        "crc_page_index": [(1200, dict(write_page_index=True, write_page_checksum=True))] * 3,
        "single": [(5000, {})],
        "nested": [(800, {})] * 4,
        "empty_and_full": [(0, {}), (900, {}), (0, {})],
    }
    for name, specs in cases.items():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        for k, (rows, kwargs) in enumerate(specs):
            t = table(zlib.crc32(f"{name}/{k}".encode()) % 10000, rows, nested=(name == "nested"),
                      null_column=name in ("dict_snappy", "nested", "fallback", "dict_none"))
            pq.write_table(t, os.path.join(d, f"{k:03}.parquet"), **kwargs)
        print(name)
    # Files written by duckdb and polars.
    d = os.path.join(root, "duckdb_polars")
    os.makedirs(d, exist_ok=True)
    try:
        import duckdb
        import polars as pl
        for k in range(3):
            t = table(500 + k, 1500)
            pl.from_arrow(t).write_parquet(os.path.join(d, f"{2*k:03}.parquet"), row_group_size=600)
            con = duckdb.connect()
            con.register("t", t)
            con.execute(f"COPY t TO '{os.path.join(d, f'{2*k+1:03}.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 700)")
        print("duckdb_polars")
    except ImportError as e:
        print(f"skip duckdb_polars: {e}", file=sys.stderr)


def check_page_index(path: str) -> str:
    """Compares each chunk's OffsetIndex (and ColumnIndex length) with its page headers, read
    by a Thrift decoder of our own (parquet_layout.py); returns the first difference."""
    import parquet_layout as pl
    data = open(path, "rb").read()
    for g, rg in enumerate(pl.chunks(data)):
        for chunk in rg["columns"]:
            oi = pl.offset_index(data, chunk)
            if oi is None:
                continue
            data_pages = [p for p in pl.pages(data, chunk) if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2")]
            flat = "." not in chunk["path"]
            rows, want = 0, []
            for p in data_pages:
                want.append((p["offset"], p["header_len"] + p["compressed"], rows))
                rows += p.get("num_rows", p["num_values"])
            got = [(o, s, r if flat else rows) for (o, s, r) in oi]
            want = [(o, s, r if flat else rows) for (o, s, r) in want]
            if got != want:
                return f"row group {g}, column {chunk['path']}: offset index {got[:3]}... vs pages {want[:3]}..."
            ci = pl.column_index(data, chunk)
            if ci is not None and len(ci["null_pages"]) != len(data_pages):
                return f"row group {g}, column {chunk['path']}: column index of {len(ci['null_pages'])} pages, chunk has {len(data_pages)}"
    return ""


def duckdb_differs(out: str, inputs: list) -> str:
    """How duckdb's read of the output differs from its read of the inputs ("" if it does
    not): row counts, and rows of one missing from the other (as multisets; pyarrow's
    comparison covers the order)."""
    try:
        import duckdb
    except ImportError:
        return ""
    con = duckdb.connect()
    src = "read_parquet([" + ", ".join(f"'{p}'" for p in inputs) + "])"
    dst = f"read_parquet('{out}')"
    try:
        n_out = con.execute(f"SELECT count(*) FROM {dst}").fetchone()[0]
        n_in = con.execute(f"SELECT count(*) FROM {src}").fetchone()[0]
        if n_out != n_in:
            return f"{n_out} rows, the inputs {n_in}"
        for a, b in ((dst, src), (src, dst)):
            extra = con.execute(f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})").fetchone()[0]
            if extra:
                return f"{extra} rows of {a} are not in {b}"
    except Exception as e:  # noqa: BLE001 - a read failure is the finding
        return f"failed: {e}"
    return ""


def check(out: str, inputs: list) -> None:
    tables = [pq.read_table(p) for p in inputs]
    try:
        got = pq.read_table(out)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"equal": False, "why": f"pyarrow cannot read the output: {e}"}))
        return
    # The output keeps the first input's ARROW:schema; inputs from other writers may read as
    # other Arrow forms of the same Parquet types (polars: large_string, duckdb: string), so
    # each input is cast to the output's Arrow types before comparing values.
    want = pa.concat_tables([t.cast(got.schema) if t.schema != got.schema else t for t in tables])
    meta = pq.ParquetFile(out).metadata
    result = {"rows": got.num_rows, "row_groups": meta.num_row_groups, "equal": got.equals(want)}
    layout = check_page_index(out)
    if layout:
        result["equal"] = False
        result["why"] = "page index: " + layout
    if result["equal"]:
        other = duckdb_differs(out, inputs)
        if other:
            result["equal"] = False
            result["why"] = "duckdb: " + other
            print(json.dumps(result))
            return
    if not result["equal"]:
        why = []
        if got.schema != want.schema:
            why.append(f"schema {got.schema} vs {want.schema}")
        for name in want.column_names:
            if name in got.column_names and not got[name].equals(want[name]):
                why.append(f"column {name} differs")
        result["why"] = "; ".join(why) or "tables differ"
    print(json.dumps(result))


def corrupt(src: str, dst: str) -> None:
    """Writes SRC with 0xff over the first 64 bytes of row group 0's middle column chunk: its
    first page header, which no reader can get past (a Thrift field header 0xff names no type).
    Damage inside compressed data is not enough: a zstd block stored raw decodes to other
    values of the right size, and neither pyarrow nor we can tell."""
    meta = pq.ParquetFile(src).metadata
    chunk = meta.row_group(0).column(meta.num_columns // 2)
    start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    data = bytearray(open(src, "rb").read())
    data[start:start + 64] = b"\xff" * 64
    with open(dst, "wb") as f:
        f.write(data)
    try:
        pq.read_table(dst)
    except Exception:
        return
    sys.exit(f"pyarrow reads {dst} without error")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "corrupt":
        corrupt(sys.argv[2], sys.argv[3])
    else:
        check(sys.argv[2], sys.argv[3:])
