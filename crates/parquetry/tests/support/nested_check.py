"""Check nested Parquet files written by parquetry, from their bytes and against other writers
and readers.

Usage: nested_check.py < request.json

The request: {"cases": [{"name", "parquet", "ipc", "row_group_rows", "stats": bool,
                         "readers": ["duckdb", "polars"]}, ...]}: `ipc` is an Arrow IPC file
of the input that parquetry wrote to `parquet` with `row_group_rows` rows per row group.

For each case:

1. Layout, decoded from the bytes with parquet_layout.py (no Parquet library): every data page
   of a column with repetition levels starts a record (its first repetition level is 0); a
   v2 page's `num_rows` is the records it holds; the pages' records add up to the row group's
   rows; the OffsetIndex's `first_row_index` counts records; the pages' `num_values` add up to
   the chunk's; the ColumnIndex's null counts and level histograms add up to the chunk's.
   (v1 pages are decompressed with pyarrow's codecs, where it has the codec.)
2. With "stats": pyarrow writes the same table with the same row groups; per row group and
   leaf, `num_values`, the statistics (null count, min, max) and the SizeStatistics (level
   histograms, unencoded byte-array bytes) must equal pyarrow's.
3. Each reader of "readers" (duckdb, polars, pyarrow) reads the file; every column must equal
   the input as Python values (maps as lists of (key, value) pairs, dictionaries decoded,
   views as their values).

Prints {"mismatches": [text, ...]} as JSON.
"""
import json
import os
import struct
import sys
import tempfile
import warnings

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_layout
import thrift_compact as tc

warnings.simplefilter("ignore")

CODECS = {"SNAPPY": "snappy", "GZIP": "gzip", "BROTLI": "brotli", "ZSTD": "zstd"}


def varint(data, pos):
    shift = value = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def rle_levels(data, width, count):
    """The first `count` levels of RLE/bit-packed hybrid data of bit width `width`."""
    out, pos = [], 0
    byte_width = (width + 7) // 8
    while len(out) < count:
        header, pos = varint(data, pos)
        if header & 1:
            n = (header >> 1) * 8
            bits = int.from_bytes(data[pos:pos + n * width // 8], "little")
            pos += n * width // 8
            out.extend((bits >> (i * width)) & ((1 << width) - 1) for i in range(n))
        else:
            n = header >> 1
            v = int.from_bytes(data[pos:pos + byte_width], "little")
            pos += byte_width
            out.extend([v] * n)
    return out[:count]


def page_rep_levels(data, page, chunk, max_rep):
    """The repetition levels of a data page, or None when its body cannot be read here."""
    body = data[page["offset"] + page["header_len"]:page["offset"] + page["header_len"] + page["compressed"]]
    width = max_rep.bit_length()
    if page["type"] == "DATA_PAGE_V2":
        return rle_levels(body[:page["rep_len"]], width, page["num_values"])
    if chunk["codec"] != "UNCOMPRESSED":
        codec = CODECS.get(chunk["codec"])
        if codec is None:
            return None
        body = pa.decompress(body, decompressed_size=page["uncompressed"], codec=codec).to_pybytes()
    (length,) = struct.unpack_from("<I", body, 0)
    return rle_levels(body[4:4 + length], width, page["num_values"])


def check_layout(name, path, mismatches):
    data = open(path, "rb").read()
    schema = pq.ParquetFile(path).schema
    footer = parquet_layout.footer(data)
    for g, rg in enumerate(parquet_layout.chunks(data, footer)):
        for c, chunk in enumerate(rg["columns"]):
            where = f"{name}: row group {g}, column {chunk['path']}"
            max_rep = schema.column(c).max_repetition_level
            pages = [p for p in parquet_layout.pages(data, chunk) if p["type"] != "DICTIONARY_PAGE"]
            values = sum(p["num_values"] for p in pages)
            if values != chunk["num_values"]:
                mismatches.append(f"{where}: pages hold {values} values, the chunk says {chunk['num_values']}")
            records, firsts = [], []
            for i, p in enumerate(pages):
                levels = page_rep_levels(data, p, chunk, max_rep) if max_rep > 0 else [0] * p["num_values"]
                if levels is None:
                    records = None
                    break
                if levels and levels[0] != 0:
                    mismatches.append(f"{where}: page {i} starts with repetition level {levels[0]}")
                n = levels.count(0)
                if p["type"] == "DATA_PAGE_V2" and p["num_rows"] != n:
                    mismatches.append(f"{where}: v2 page {i} says {p['num_rows']} rows, holds {n} records")
                firsts.append(sum(records))
                records.append(n)
            if records is None:
                continue
            if sum(records) != rg["num_rows"]:
                mismatches.append(f"{where}: pages hold {sum(records)} records, the row group {rg['num_rows']} rows")
            index = parquet_layout.offset_index(data, chunk)
            if index is not None and [r for _, _, r in index] != firsts:
                mismatches.append(f"{where}: OffsetIndex first rows {[r for _, _, r in index]}, pages start at {firsts}")
            check_column_index(where, data, chunk, pages, footer[4][g][1][c][3], mismatches)


def check_column_index(where, data, chunk, pages, meta, mismatches):
    """The ColumnIndex agrees with the chunk: null counts add up to the statistics' (and to
    each v2 page's), and the per-page level histograms add up to the SizeStatistics'."""
    offset, _ = chunk["column_index"]
    if offset is None:
        return
    ci, _ = tc.read_struct(data, offset)
    nulls = ci.get(5)
    stats = meta.get(12, {})
    if nulls is not None and 3 in stats and sum(nulls) != stats[3]:
        mismatches.append(f"{where}: ColumnIndex null counts add up to {sum(nulls)}, statistics say {stats[3]}")
    for i, p in enumerate(pages):
        if nulls is not None and "num_nulls" in p and nulls[i] != p["num_nulls"]:
            mismatches.append(f"{where}: page {i}: ColumnIndex null count {nulls[i]}, v2 header {p['num_nulls']}")
    size = meta.get(16, {})
    for field, chunk_field, what in ((6, 2, "repetition"), (7, 3, "definition")):
        per_page, total = ci.get(field), size.get(chunk_field)
        if per_page is None or not total:
            continue
        k = len(total)
        sums = [sum(per_page[j] for j in range(level, len(per_page), k)) for level in range(k)]
        if len(per_page) != k * len(pages) or sums != total:
            mismatches.append(f"{where}: ColumnIndex {what} histograms {per_page}, chunk {total}")


def raw_chunks(path):
    data = open(path, "rb").read()
    meta = parquet_layout.footer(data)
    return [[cc[3] for cc in rg[1]] for rg in meta.get(4, [])]


def dictionary_leaves(schema):
    """The Parquet paths of the leaves that are Arrow dictionaries."""
    out = set()

    def walk(path, t):
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(path + [t.field(i).name], t.field(i).type)
        elif pa.types.is_map(t):
            walk(path + ["key_value", "key"], t.key_type)
            walk(path + ["key_value", "value"], t.item_type)
        elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            walk(path + ["list", "element"], t.value_type)
        elif pa.types.is_dictionary(t):
            out.add(".".join(path))

    for f in schema:
        walk([f.name], f.type)
    return out


def check_stats(name, path, table, row_group_rows, mismatches):
    if table.num_rows == 0:
        return  # pyarrow writes one empty row group, parquetry none
    # pyarrow's bounds of a dictionary column come from the dictionary values its whole write
    # batch references, which may lie outside a row group: looser than the values.
    loose = dictionary_leaves(table.schema)
    with tempfile.TemporaryDirectory() as tmp:
        theirs = os.path.join(tmp, "pyarrow.parquet")
        pq.write_table(table, theirs, row_group_size=max(row_group_rows, 1), store_decimal_as_integer=True)
        ours_rg, theirs_rg = raw_chunks(path), raw_chunks(theirs)
    if len(ours_rg) != len(theirs_rg):
        mismatches.append(f"{name}: {len(ours_rg)} row groups, pyarrow {len(theirs_rg)}")
        return
    for g, (ours, them) in enumerate(zip(ours_rg, theirs_rg)):
        for a, b in zip(ours, them):
            where = f"{name}: row group {g}, column {'.'.join(p.decode() for p in a[3])}"
            if a[3] != b[3]:
                mismatches.append(f"{where}: path differs from pyarrow's {b[3]}")
                continue
            if a[5] != b[5]:
                mismatches.append(f"{where}: num_values {a[5]}, pyarrow {b[5]}")
            sa, sb = a.get(12, {}), b.get(12, {})
            for field, what in ((3, "null_count"), (5, "max"), (6, "min")):
                if field != 3 and ".".join(p.decode() for p in a[3]) in loose:
                    continue
                if field in sa and field in sb and sa[field] != sb[field]:
                    mismatches.append(f"{where}: {what} {sa[field]!r}, pyarrow {sb[field]!r}")
            # pyarrow writes no statistics at all for a Null column; parquetry its null count.
            if (3 in sa) != (3 in sb) and sb:
                mismatches.append(f"{where}: null_count present {3 in sa}, pyarrow {3 in sb}")
            za, zb = a.get(16), b.get(16)
            if za is not None and zb is not None:
                for field, what in ((1, "unencoded bytes"), (2, "repetition histogram"), (3, "definition histogram")):
                    x, y = za.get(field), zb.get(field)
                    if field == 2 and not x and not y:
                        continue  # omitted or empty where there are no repetition levels
                    if x != y:
                        mismatches.append(f"{where}: {what} {x}, pyarrow {y}")


def normalise(v):
    """Python values as every reader's types give them, in one form."""
    if isinstance(v, dict):
        if set(v) == {"key", "value"}:
            return (normalise(v["key"]), normalise(v["value"]))
        return {k: normalise(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(normalise(x) for x in v)
    if isinstance(v, list):
        return [normalise(x) for x in v]
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    return v


def read_with(reader, path):
    if reader == "pyarrow":
        return pq.read_table(path)
    if reader == "polars":
        import polars as pl
        return pl.read_parquet(path).to_arrow()
    import duckdb
    con = duckdb.connect()
    try:
        rel = con.sql("select * from read_parquet(?)", params=[path])
        t = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        return t.read_all() if isinstance(t, pa.RecordBatchReader) else t
    finally:
        con.close()


def check_reader(name, reader, path, table, mismatches):
    try:
        got = read_with(reader, path)
    except Exception as e:  # noqa: BLE001
        mismatches.append(f"{name} ({reader}): {type(e).__name__}: {str(e).splitlines()[0]}")
        return
    for column in table.column_names:
        want = normalise(table.column(column).to_pylist())
        have = normalise(got.column(column).to_pylist())
        if want != have:
            row = next((i for i, (x, y) in enumerate(zip(want, have)) if x != y), min(len(want), len(have)))
            show = lambda v: (repr(v)[:200])  # noqa: E731
            mismatches.append(
                f"{name} ({reader}): column {column} row {row}: {show(have[row] if row < len(have) else None)}, "
                f"want {show(want[row] if row < len(want) else None)}")


def main():
    request = json.load(sys.stdin)
    mismatches = []
    for case in request["cases"]:
        name, path = case["name"], case["parquet"]
        with pa.memory_map(case["ipc"]) as source:
            table = pa.ipc.open_file(source).read_all()
        try:
            check_layout(name, path, mismatches)
            if case.get("stats"):
                check_stats(name, path, table, case["row_group_rows"], mismatches)
        except Exception as e:  # noqa: BLE001
            mismatches.append(f"{name}: {type(e).__name__}: {e}")
        for reader in case.get("readers", []):
            check_reader(name, reader, path, table, mismatches)
    json.dump({"mismatches": mismatches}, sys.stdout)


if __name__ == "__main__":
    main()
