"""Write Parquet files with other writers (duckdb, polars, fastparquet) and take pyarrow's read
of each, plus of extra files written elsewhere (parquet-go), as the reference for
tests/read_interop.rs.

Usage: read_interop_write.py < request.json

The request: {"out_dir": path, "extra": [{"writer", "settings", "parquet"}, ...]}.

Every writer gets a table of a few thousand rows made from one seed, with nulls in every
column (scattered, plus a run of rows null in every column, long enough to fill pages), of the
types it can write: int32, int64, float, double (NaN, infinities, -0.0 where the writer keeps
them apart from null), bool, string (a small vocabulary that dictionary-encodes, and unique
values that make the dictionary fall back), binary, date, timestamp and decimals. Each file is
written with several row groups and small pages where the writer has a setting for it.

For each file (written here or listed in "extra"):
  - the reference: `pq.read_table(path)` (Arrow C++, independent of parquetry) as an Arrow
    IPC file (pyarrow_to_ipc.py's conversion);
  - a check of that reference against the table given to the writer (each column cast to the
    input's type, floats compared bit for bit), so that a reference which lost or changed
    values cannot pass as one: `source_check` is null when equal, else the first difference;
  - the layout the bytes show (parquet_layout.py, no Parquet library): row groups, the most
    pages in one column chunk, page types, encodings, codecs, so the test can assert that each
    case exercised what it claims.

Prints {"versions": {...}, "cases": [{"writer", "settings", "parquet", "reference" (IPC path)
or "reference_error", "source_check", "layout"}], "skipped": [{"writer", "settings",
"reason"}]} as JSON. A writer that refuses one of its own codecs is "skipped" (it is not
parquetry's failure); the Rust test prints those.
"""
import datetime
import decimal
import json
import os
import sys
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_layout
import pyarrow_to_ipc

warnings.simplefilter("ignore")

ROWS = 5000
SEED = 20240615
# Rows null in every column: longer than a small page of any type, so whole pages are null.
NULL_RUN = range(1200, 1700)
ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
             6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY",
             9: "BYTE_STREAM_SPLIT"}


def source_table(nan=True, date=True, decimals=True, fixed=False) -> pa.Table:
    """The input table. `nan`: floats hold NaN/inf/-0.0 (fastparquet writes NaN as null, so it
    gets none); `date`/`decimals`: whether the writer has those types; `fixed`: a column of
    4-byte strings for a FIXED_LEN_BYTE_ARRAY write."""
    rng = np.random.default_rng(SEED)
    n = ROWS

    def mask(rate=0.1):
        m = rng.random(n) < rate
        m[NULL_RUN.start:NULL_RUN.stop] = True
        return m

    cols = {}
    cols["i32"] = pa.array(rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32), mask=mask())
    # Small deltas with occasional huge jumps: DELTA_BINARY_PACKED with varied bit widths.
    i64 = np.cumsum(rng.integers(-1000, 1000, n)) + np.where(rng.random(n) < 0.01, 2**62, 0)
    i64[::997] = np.iinfo(np.int64).min
    cols["i64"] = pa.array(i64.astype(np.int64), mask=mask())
    f64 = rng.normal(0, 1e6, n)
    if nan:
        f64[::101] = np.nan
        f64[5::211] = np.inf
        f64[7::223] = -np.inf
        f64[11::227] = -0.0
    cols["f32"] = pa.array(f64.astype(np.float32), mask=mask())
    cols["f64"] = pa.array(f64 * 1.000001, mask=mask())
    cols["flag"] = pa.array(rng.random(n) < 0.3, mask=mask())
    vocab = ["", "a", "bc", "日本語", "ünïcödé", "x" * 40] + [f"word{i}" for i in range(30)]
    strings = [vocab[i] for i in rng.integers(0, len(vocab), n)]
    for i in range(n // 2, n):  # unique values: the dictionary overflows and falls back
        if i % 3 == 0:
            strings[i] = f"unique-{i:06}-{rng.integers(0, 1 << 40):x}"
    cols["s"] = pa.array(strings, pa.string(), mask=mask())
    blobs = [rng.bytes(int(k)) for k in rng.integers(0, 24, n)]
    cols["bin"] = pa.array(blobs, pa.binary(), mask=mask())
    if date:
        cols["d"] = pa.array(rng.integers(-50000, 50000, n).astype(np.int32), pa.int32(),
                             mask=mask()).cast(pa.date32())
    ts = rng.integers(-2 * 10**15, 4 * 10**15, n)  # microseconds: 1906 .. 2096
    cols["ts"] = pa.array(ts, pa.int64(), mask=mask()).cast(pa.timestamp("us"))
    if decimals:
        for name, p, s in [("dec9", 9, 2), ("dec18", 18, 4), ("dec30", 30, 5)]:
            unscaled = rng.integers(-10**min(p, 18) + 1, 10**min(p, 18), n)
            if p > 18:
                unscaled = [int(u) * 10**(p - 18) + int(u) % 997 for u in unscaled]
            vals = [decimal.Decimal(int(u)).scaleb(-s) for u in unscaled]
            cols[name] = pa.array(vals, pa.decimal128(p, s), mask=mask())
    if fixed:
        codes = [f"{i % 5000:04}"[-4:] for i in rng.integers(0, 10**6, n)]
        cols["fixed4"] = pa.array(codes, pa.string(), mask=mask())
    return pa.table(cols)


# ---------------------------------------------------------------------------------------------
# Writers. Each yields (writer, settings, path, input table) per file written, with the
# exception in place of the path when the writer refused the settings.

DUCKDB_CODECS = ["uncompressed", "snappy", "gzip", "zstd", "lz4", "brotli"]


def write_duckdb(out_dir):
    import duckdb
    table = source_table()
    con = duckdb.connect()
    con.execute("SET threads TO 1")  # one writer thread: row groups of exactly ROW_GROUP_SIZE
    con.register("source", table)
    # duckdb has no page size setting: it writes one page per column chunk, so 2048-row row
    # groups are what keeps pages small. A tiny string dictionary limit gives plain strings.
    variants = [(v, c, "") for v in ["V1", "V2"] for c in DUCKDB_CODECS]
    variants += [(v, "snappy", ", STRING_DICTIONARY_PAGE_SIZE_LIMIT 100") for v in ["V1", "V2"]]
    for version, codec, extra in variants:
        settings = f"PARQUET_VERSION {version}, COMPRESSION {codec}{extra}"
        name = f"duckdb-{version}-{codec}{'-nodict' if extra else ''}.parquet"
        path = os.path.join(out_dir, name)
        try:
            con.execute(f"COPY source TO '{path}' (FORMAT PARQUET, PARQUET_VERSION {version}, "
                        f"COMPRESSION {codec}, ROW_GROUP_SIZE 2048{extra})")
            yield "duckdb", settings, path, table
        except duckdb.Error as e:
            yield "duckdb", settings, e, table
    con.close()


POLARS_CODECS = ["uncompressed", "snappy", "gzip", "lz4", "zstd", "brotli"]


def write_polars(out_dir):
    import polars as pl
    table = source_table()
    df = pl.from_arrow(table)
    for codec in POLARS_CODECS:
        for statistics in [True, False]:
            settings = f"compression={codec}, statistics={statistics}, data_page_size=2000"
            path = os.path.join(out_dir, f"polars-{codec}-{'stats' if statistics else 'nostats'}.parquet")
            try:
                df.write_parquet(path, compression=codec, statistics=statistics,
                                 row_group_size=1500, data_page_size=2000)
                yield "polars", settings, path, table
            except Exception as e:  # noqa: BLE001 - polars raises several kinds
                yield "polars", settings, e, table


FASTPARQUET_CODECS = ["UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "LZ4", "LZ4_RAW", "ZSTD"]


def fastparquet_frame(table):
    """The table as pandas with nullable integer/boolean dtypes (fastparquet writes their
    masks as nulls) and objects for text and bytes."""
    import pandas as pd
    df = table.to_pandas(types_mapper={pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype(),
                                       pa.bool_(): pd.BooleanDtype()}.get)
    for c in ["s", "bin", "fixed4"]:
        if c in df:
            df[c] = df[c].astype(object)
    return df


def write_fastparquet(out_dir):
    import fastparquet
    from fastparquet import writer
    # No NaN (fastparquet writes NaN as null), no date or decimal type (pandas has none it maps).
    table = source_table(nan=False, date=False, decimals=False, fixed=True)
    # Nanoseconds: pandas' unit, and what times='int96' stores.
    table = table.set_column(table.schema.get_field_index("ts"), "ts", table["ts"].cast(pa.timestamp("ns")))
    df = fastparquet_frame(table)
    plain = df.drop(columns=["fixed4"])
    variants = [(f"compression={c}", c, {}) for c in FASTPARQUET_CODECS]
    variants += [
        ("times=int96, compression=SNAPPY", "SNAPPY", {"times": "int96"}),
        ("data page v2, compression=ZSTD", "ZSTD", {"_v2": True}),
        ("data page v2, times=int96, no stats", "GZIP", {"_v2": True, "times": "int96", "stats": False}),
        # fixed4 as bytes: fastparquet would annotate a FIXED_LEN_BYTE_ARRAY as UTF8 otherwise,
        # which the spec does not allow (pyarrow refuses the file).
        ("fixed_text={fixed4: 4}, object_encoding s=utf8, bin/fixed4=bytes", "SNAPPY",
         {"fixed_text": {"fixed4": 4},
          "object_encoding": {"s": "utf8", "bin": "bytes", "fixed4": "bytes"}}),
        ("categorical s (dictionary pages)", "UNCOMPRESSED", {"_categorical": True}),
    ]
    saved = writer.DATAPAGE_VERSION, writer.MAX_PAGE_SIZE
    for settings, codec, kw in variants:
        kw = dict(kw)
        frame = df if "fixed_text" in kw else plain
        source = table if "fixed_text" in kw else table.drop_columns(["fixed4"])
        if kw.pop("_categorical", False):
            frame = frame.copy()
            frame["s"] = frame["s"].astype("category")
        # Module settings: fastparquet has no per-call page size or page version.
        writer.DATAPAGE_VERSION = 2 if kw.pop("_v2", False) else 1
        writer.MAX_PAGE_SIZE = 2000
        slug = "".join(ch if ch.isalnum() else "_" for ch in settings)
        path = os.path.join(out_dir, f"fastparquet-{slug}.parquet")
        try:
            fastparquet.write(path, frame, row_group_offsets=1500, compression=codec,
                              write_index=False, **kw)
            yield "fastparquet", settings, path, source
        except Exception as e:  # noqa: BLE001
            yield "fastparquet", settings, e, source
        finally:
            writer.DATAPAGE_VERSION, writer.MAX_PAGE_SIZE = saved


# ---------------------------------------------------------------------------------------------
# Checks.

def _rebuilt(t, leaf, all_nullable=False):
    """`t` with every leaf type replaced by `leaf(t)` at any depth (field names, list sizes
    and, unless `all_nullable`, nullability kept)."""
    def field(f):
        f = f.with_type(_rebuilt(f.type, leaf, all_nullable))
        return f.with_nullable(True) if all_nullable else f
    if pa.types.is_map(t):  # map keys stay non-nullable
        key = t.key_field.with_type(_rebuilt(t.key_type, leaf, all_nullable))
        return pa.map_(key, field(t.item_field), t.keys_sorted)
    if pa.types.is_fixed_size_list(t):
        return pa.list_(field(t.value_field), t.list_size)
    if pa.types.is_large_list(t):
        return pa.large_list(field(t.value_field))
    if pa.types.is_list(t):
        return pa.list_(field(t.value_field))
    if pa.types.is_struct(t):
        return pa.struct([field(t.field(i)) for i in range(t.num_fields)])
    return leaf(t)


def comparable(arr):
    """One plain array: dictionaries decoded, floats as their bits (NaN equals NaN, -0.0 does
    not equal 0.0), at any depth of lists, maps and structs, so that `equals` is exact."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    plain = _rebuilt(arr.type, lambda t: t.value_type if pa.types.is_dictionary(t) else t)
    if plain != arr.type:
        arr = arr.cast(plain)
    bits = {pa.float32(): pa.int32(), pa.float64(): pa.int64()}
    # Every field nullable: a non-nullable child may hold nulls under null parents, which a
    # view to a non-nullable type refuses.
    as_bits = _rebuilt(arr.type, lambda t: bits.get(t, t), all_nullable=True)
    return arr.view(as_bits) if as_bits != arr.type else arr


def as_type(column, t):
    """`column` cast to type `t`. pyarrow 26 casts (and views) a list<null> to another field
    name with a child of the list's length rather than its elements' count: such a list is
    rebuilt from its offsets instead; a column of type `t` already is not cast (pyarrow
    refuses to cast nulls under null parents to a non-nullable child, even to its own type)."""
    if column.type == t:
        return column
    if pa.types.is_list(t) and pa.types.is_null(t.value_type) and pa.types.is_list(column.type):
        return pa.chunked_array([
            pa.ListArray.from_arrays(c.offsets, pa.nulls(c.offsets[-1].as_py() if len(c.offsets) else 0),
                                     type=t, mask=c.is_null())
            for c in column.chunks], type=t)
    return column.cast(t)


def first_difference(got, want, cast=False):
    """None when table `got` holds `want`'s values (floats bit for bit; with `cast`, each column
    cast to `want`'s type first), else the first difference."""
    if got.column_names != want.column_names:
        return f"columns {got.column_names}, expected {want.column_names}"
    for name in want.column_names:
        w = comparable(want[name])
        try:
            g = comparable(as_type(got[name], want[name].type) if cast else got[name])
        except (pa.ArrowException, ValueError) as e:
            return f"column {name}: {got[name].type} does not cast to {want[name].type}: {e}"
        if g.type != w.type:
            return f"column {name}: type {g.type}, expected {w.type}"
        if not g.equals(w):
            row = next((i for i in range(len(w)) if i >= len(g) or g[i] != w[i]), len(w))
            return f"column {name}: row {row}: {g[row] if row < len(g) else 'missing'}, expected {w[row]}"
    return None


def source_check(read, source):
    """None when the reference holds the values the writer was given (and nulls in every
    nullable column), else the first difference."""
    for name in source.column_names:
        if source.num_rows and source.schema.field(name).nullable and source[name].null_count == 0:
            return f"column {name}: the input has no nulls"
    d = first_difference(read, source, cast=True)
    return None if d is None else f"the reference is not the writer's input: {d}"


def layout(path):
    with open(path, "rb") as f:
        data = f.read()
    groups = parquet_layout.chunks(data)
    page_types, encodings, codecs, most_pages = set(), set(), set(), 0
    for group in groups:
        for chunk in group["columns"]:
            codecs.add(chunk["codec"])
            pages = parquet_layout.pages(data, chunk)
            most_pages = max(most_pages, sum(p["type"] != "DICTIONARY_PAGE" for p in pages))
            for p in pages:
                page_types.add(p["type"])
                if "encoding" in p:
                    encodings.add(ENCODINGS.get(p["encoding"], str(p["encoding"])))
    return {"row_groups": len(groups), "most_pages_in_a_chunk": most_pages,
            "page_types": sorted(page_types), "encodings": sorted(encodings), "codecs": sorted(codecs)}


def read_duckdb(path):
    """duckdb's `SELECT *` of a file, with the Arrow types pyarrow maps the file's schema to
    (the mapping parquetry follows too): the values are duckdb's."""
    import duckdb
    con = duckdb.connect()
    try:
        got = con.sql("SELECT * FROM read_parquet(?)", params=[path]).arrow()
        if isinstance(got, pa.RecordBatchReader):
            got = got.read_all()
    finally:
        con.close()
    schema = pq.read_schema(path)
    return pa.table([got[f.name].cast(f.type) for f in schema], schema=schema.remove_metadata())


def reference(writer, path, n, out_dir):
    """The reference read of a file: (table, ipc path, note) or raises.

    duckdb's files are read by duckdb: pyarrow refuses some of them (its DELTA_BINARY_PACKED
    INT32 deltas take 33 bits), and the writer's own reader is the natural judge. The note
    says whether pyarrow agrees. Every other writer's files are read by pyarrow."""
    note = None
    if writer == "duckdb":
        table = read_duckdb(path)
        try:
            d = first_difference(pq.read_table(path), table)
            if d is not None:
                note = f"pyarrow reads other values than duckdb: {d}"
        except Exception as e:  # noqa: BLE001
            note = f"pyarrow cannot read it: {type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
    else:
        table = pyarrow_to_ipc.plain_table(pq.read_table(path))
    ipc = os.path.join(out_dir, f"ref-{n:03}.arrow")
    pyarrow_to_ipc.write_ipc(ipc, table)
    return table, ipc, note


def main():
    request = json.load(sys.stdin)
    out_dir = request["out_dir"]
    os.makedirs(out_dir, exist_ok=True)
    cases, skipped = [], []
    jobs = [write_duckdb, write_polars, write_fastparquet]
    written = [w for job in jobs for w in job(out_dir)]
    written += [(e["writer"], e["settings"], e["parquet"], None) for e in request.get("extra", [])]
    for n, (writer, settings, path, source) in enumerate(written):
        if isinstance(path, Exception):
            skipped.append({"writer": writer, "settings": settings,
                            "reason": f"{type(path).__name__}: {str(path).splitlines()[0]}"})
            continue
        case = {"writer": writer, "settings": settings, "parquet": path, "source_check": None}
        try:
            case["layout"] = layout(path)
            table, case["reference"], case["note"] = reference(writer, path, n, out_dir)
            if source is not None:
                case["source_check"] = source_check(table, source)
        except Exception as e:  # noqa: BLE001 - the Rust test reports it
            case["reference_error"] = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
        cases.append(case)
    versions = {"pyarrow": pa.__version__}
    for module in ["duckdb", "polars", "fastparquet"]:
        versions[module] = sys.modules[module].__version__ if module in sys.modules else None
    json.dump({"versions": versions, "cases": cases, "skipped": skipped}, sys.stdout)


if __name__ == "__main__":
    main()
