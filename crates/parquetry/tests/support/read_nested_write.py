"""Write nested Parquet files (lists, maps, structs at any depth) with pyarrow, duckdb and
polars, and take an independent reader's view of each as the reference for
tests/read_nested.rs.

Usage: read_nested_write.py < request.json
    request: {"out_dir": path, "extra": [{"writer", "settings", "parquet", "rows_json"}, ...]}
    (extra: files written elsewhere, parquet-go's, with their rows as JSON)

Every writer gets one table made from one seed: ROWS rows, with nulls and empty lists at
every level (a null list, an empty list, a null element, a null struct, a null struct field,
a null map value), a run of rows null in every column, and now and then a record with
hundreds of elements, which small pages split across many pages. Each writer writes the
columns it has types for, in several row groups:
  - pyarrow: data page v1 and v2, dictionary on and off, DELTA_BINARY_PACKED /
    DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY / BYTE_STREAM_SPLIT through `column_encoding`,
    tiny pages (`data_page_size` and `write_batch_size` small, so pages really are small),
    snappy / zstd / gzip, and a page index on some;
  - re-paged pyarrow (repage.py): two v1 files with their data pages cut again inside
    records, a layout no installed writer produces;
  - duckdb `COPY ... (FORMAT PARQUET)`, PARQUET_VERSION V1 and V2;
  - polars `write_parquet` with small pages (List, Struct and Array columns);
  - parquet-go (extra files, written by scripts/interop/go-writer -nested): its own layouts,
    bare repeated fields (no LIST annotation) among them; checked against go-writer's JSON.

The reference of each file (an Arrow IPC file, pyarrow_to_ipc.py's conversion):
  - pyarrow's, the re-paged and polars' files: `pq.read_table` (Arrow C++). For polars' files this is the
    independent choice: polars' own reader shares its code with polars' writer, so a bug
    symmetric in both would pass; Arrow C++ shares nothing with polars or parquetry. Whether
    polars' own reading agrees is reported as a note.
  - duckdb's files: duckdb's own `SELECT *`, with the Arrow types pyarrow maps the file's
    schema to (read_interop_write.read_duckdb), as for duckdb's flat files.
  - projections by Parquet path on some pyarrow files: `pq.ParquetFile(path).read(columns=
    [path])`, Arrow C++'s reading of "the leaves below this path and their parents".
The Python side checks that each full reference holds exactly the table the writer was given
(`source_check`, each column cast to the input's type, floats bit for bit), and records the
layout the bytes show (parquet_layout.py, no Parquet library): row groups, the most data pages
in one column chunk, page types, encodings, codecs, and how many data pages begin inside a
record (their first repetition level is not 0), so the test can assert what each case
exercised.

Prints {"versions", "cases": [{"writer", "settings", "parquet", "reference" or
"reference_error", "source_check", "note", "layout", "rows", "options" (whether the test
reads it with every option), "projections": [{"columns", "reference"}]}], "skipped"} as JSON.
"""
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
import repage
import thrift_compact as tc
from read_interop_write import ENCODINGS, as_type, first_difference, layout, read_duckdb, source_check

warnings.simplefilter("ignore")

ROWS = 1200
SEED = 20251123
# Rows null in every column: longer than a tiny page, so whole pages hold only nulls.
NULL_RUN = range(900, 1100)
# Every LONG_EVERY-th row holds a long list: a record spread over many tiny pages.
LONG_EVERY = 487


# ---------------------------------------------------------------------------------------------
# The input table.

class Gen:
    """Values for one column, from one generator: lists with nulls and empties, elements
    with nulls."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def chance(self, p):
        return self.rng.random() < p

    def int(self, lo, hi):
        return int(self.rng.integers(lo, hi))

    def maybe(self, value, p=0.1):
        return None if self.chance(p) else value

    def list(self, row, element, max_len=8, null=0.08, empty=0.08):
        """A list for `row`: null (unless `null` is 0), empty, 1..max_len elements, or a long
        one every LONG_EVERY rows."""
        if null and (row in NULL_RUN or self.chance(null)):
            return None
        if row % LONG_EVERY == 5:
            return [element() for _ in range(300 + self.int(0, 200))]
        if self.chance(empty):
            return []
        return [element() for _ in range(self.int(1, max_len + 1))]

    def top(self, row, value, p=0.1):
        """A top-level value: null in NULL_RUN and at random."""
        return None if row in NULL_RUN or self.chance(p) else value


VOCAB = ["", "a", "bc", "日本語", "ünïcödé", "x" * 30] + [f"tag{i}" for i in range(40)]


def source_table():
    """The input table, every nested shape the tests cover, one column each."""
    n = ROWS
    cols, types = {}, {}

    def column(name, pa_type, make, seed, nullable=True):
        g = Gen(SEED + seed)
        cols[name] = pa.array([make(g, r) for r in range(n)], pa_type)
        types[name] = pa.field(name, pa_type, nullable)

    def word(g):
        return g.maybe(VOCAB[g.int(0, len(VOCAB))])

    column("ints", pa.list_(pa.int64()),
           lambda g, r: g.list(r, lambda: g.maybe(g.int(-10**12, 10**12))), 1)
    column("tags", pa.list_(pa.string()), lambda g, r: g.list(r, lambda: word(g)), 2)
    column("nested", pa.list_(pa.list_(pa.int32())),
           lambda g, r: g.list(r, lambda: g.list(1, lambda: g.maybe(g.int(-2**31, 2**31)), 5), 4), 3)
    column("large", pa.large_list(pa.string()), lambda g, r: g.list(r, lambda: word(g), 6), 4)

    def vec3(g, r):
        if r in NULL_RUN or g.chance(0.1):
            return None
        v = [float(np.float32(g.rng.normal(0, 100))) for _ in range(3)]
        if g.chance(0.05):
            v[g.int(0, 3)] = None
        if g.chance(0.03):
            v[0] = float("nan")
        if g.chance(0.03):
            v[1] = -0.0
        return v

    column("vec3", pa.list_(pa.float32(), 3), vec3, 5)

    def doubles(g):
        x = g.rng.normal(0, 1e6)
        return g.maybe(float("nan") if g.chance(0.02) else float(x))

    s_type = pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.list_(pa.float64()))])
    column("s", s_type, lambda g, r: g.top(r, {
        "a": g.maybe(g.int(-1000, 1000)), "b": word(g), "c": g.list(1, lambda: doubles(g), 5, null=0.15)}), 6)
    item = pa.struct([("x", pa.int32()), ("y", pa.string())])
    column("items", pa.list_(item),
           lambda g, r: g.list(r, lambda: g.maybe({"x": g.maybe(g.int(0, 10**6)), "y": word(g)}), 5), 7)
    ss_type = pa.struct([("inner", pa.struct([("p", pa.int64()), ("q", pa.string())])), ("r", pa.bool_())])
    column("ss", ss_type, lambda g, r: g.top(r, {
        "inner": g.maybe({"p": g.maybe(g.int(-10**15, 10**15)), "q": word(g)}), "r": g.maybe(g.chance(0.5))}), 8)

    def entries(g, r, value, text_keys=True):
        lst = g.list(r, lambda: None, 6)
        if lst is None:
            return None
        keys = [f"k{k}" if text_keys else int(k) for k in g.rng.choice(1000, size=len(lst), replace=False)]
        return [(k, value()) for k in keys]

    column("m", pa.map_(pa.string(), pa.int64()),
           lambda g, r: entries(g, r, lambda: g.maybe(g.int(-10**9, 10**9), 0.15)), 9)
    column("ml", pa.map_(pa.string(), pa.list_(pa.string())),
           lambda g, r: entries(g, r, lambda: g.list(1, lambda: word(g), 3, null=0.15)), 10)
    column("dl", pa.list_(pa.string()), lambda g, r: g.list(r, lambda: word(g)), 11)
    cols["dl"] = cols["dl"].cast(pa.list_(pa.dictionary(pa.int32(), pa.string())))
    types["dl"] = pa.field("dl", cols["dl"].type)
    column("bl", pa.list_(pa.bool_()), lambda g, r: g.list(r, lambda: g.maybe(g.chance(0.3))), 12)
    column("decl", pa.list_(pa.decimal128(12, 3)),
           lambda g, r: g.list(r, lambda: g.maybe(decimal.Decimal(g.int(-10**11, 10**11)).scaleb(-3))), 13)
    column("tsl", pa.list_(pa.timestamp("ms", tz="America/New_York")),
           lambda g, r: g.list(r, lambda: g.maybe(g.int(-2 * 10**12, 4 * 10**12))), 14)
    column("binl", pa.list_(pa.binary()),
           lambda g, r: g.list(r, lambda: g.maybe(g.rng.bytes(g.int(0, 20)))), 15)
    deep = pa.list_(pa.struct([("n", pa.list_(pa.int32())), ("q", pa.struct([("r", pa.string())]))]))
    column("deep", deep, lambda g, r: g.list(r, lambda: g.maybe({
        "n": g.list(1, lambda: g.maybe(g.int(0, 100)), 4),
        "q": g.maybe({"r": word(g)})}), 4), 16)
    # Flat columns beside the nested ones (a row selection skips them by their own, page-index
    # driven path), and required lists and structs (lower definition levels, no null slots).
    column("id", pa.int64(), lambda g, r: r * 7 - 3000, 17, nullable=False)
    column("name", pa.string(), lambda g, r: g.top(r, word(g)), 18)
    column("req_list", pa.list_(pa.field("item", pa.int32(), False)),
           lambda g, r: g.list(r, lambda: g.int(0, 1000), null=0), 19, nullable=False)
    req_struct = pa.struct([pa.field("a", pa.int32(), False),
                            pa.field("b", pa.list_(pa.field("item", pa.string(), False)))])
    column("req_struct", req_struct, lambda g, r: {
        "a": g.int(-5, 5), "b": g.list(r, lambda: VOCAB[g.int(0, len(VOCAB))], 4)}, 20, nullable=False)
    req_items = pa.struct([pa.field("x", pa.int64(), False), ("y", pa.string())])
    column("req_items", pa.list_(pa.field("item", req_items, False)),
           lambda g, r: g.list(r, lambda: {"x": g.int(0, 99), "y": word(g)}, 4), 21)
    # Rarer shapes and leaf types: a list of nulls, a dictionary in a struct, a map of maps, a
    # map of structs, fixed-size lists in a list, and small, unsigned, time and half-float
    # leaves.
    column("nulls", pa.list_(pa.null()), lambda g, r: g.list(r, lambda: None, 4), 22)
    column("sd", pa.struct([("d", pa.string()), ("e", pa.int32())]),
           lambda g, r: g.top(r, {"d": word(g), "e": g.maybe(g.int(0, 9))}), 23)
    cols["sd"] = cols["sd"].cast(pa.struct([("d", pa.dictionary(pa.int32(), pa.string())), ("e", pa.int32())]))
    types["sd"] = pa.field("sd", cols["sd"].type)
    column("mm", pa.map_(pa.int32(), pa.map_(pa.string(), pa.int32())),
           lambda g, r: entries(g, r, lambda: entries(g, 1, lambda: g.maybe(g.int(0, 50))), False), 24)
    column("ms", pa.map_(pa.string(), pa.struct([("u", pa.int32()), ("v", pa.list_(pa.int32()))])),
           lambda g, r: entries(g, r, lambda: g.maybe({"u": g.maybe(g.int(0, 9)),
                                                        "v": g.list(1, lambda: g.maybe(g.int(0, 9)), 3)})), 25)
    column("fsl", pa.list_(pa.list_(pa.int16(), 2)),
           lambda g, r: g.list(r, lambda: g.maybe([g.maybe(g.int(-300, 300)), g.int(0, 9)]), 4), 26)
    misc = pa.struct([("d", pa.date32()), ("t", pa.time64("us")), ("u", pa.uint32()), ("h", pa.float16()),
                      ("i8", pa.int8())])
    column("misc", pa.list_(misc), lambda g, r: g.list(r, lambda: g.maybe({
        "d": g.maybe(g.int(-10**5, 10**5)), "t": g.maybe(g.int(0, 86400 * 10**6)), "u": g.maybe(g.int(0, 2**32)),
        "h": g.maybe(np.float16(g.rng.normal(0, 100))), "i8": g.maybe(g.int(-128, 128))}), 3), 27)
    # A flat dictionary column beside the nested ones (polars stores it as a categorical).
    column("cat", pa.string(), lambda g, r: g.top(r, word(g)), 30)
    cols["cat"] = cols["cat"].dictionary_encode()
    types["cat"] = pa.field("cat", cols["cat"].type)
    column("vec2", pa.list_(pa.field("element", pa.float64(), False), 2),
           lambda g, r: g.top(r, [g.rng.normal(), g.rng.normal()]), 28)
    column("sf", pa.struct([("f", pa.list_(pa.int32(), 2))]),
           lambda g, r: g.top(r, {"f": g.maybe([g.maybe(g.int(0, 9)), g.int(0, 9)])}), 29)
    return pa.table(cols, schema=pa.schema([types[c] for c in cols]))


# ---------------------------------------------------------------------------------------------
# Writers. Each yields (writer, settings, path, input table, extra case fields) per file, with
# the exception in place of the path when the writer refused the settings.

INT_LEAVES = ["ints.list.element", "nested.list.element.list.element", "s.a", "items.list.element.x",
              "ss.inner.p", "m.key_value.value", "tsl.list.element", "deep.list.element.n.list.element", "id",
              "req_list.list.element", "req_struct.a", "req_items.list.element.x"]
BYTE_LEAVES = ["tags.list.element", "large.list.element", "s.b", "items.list.element.y", "ss.inner.q",
               "m.key_value.key", "ml.key_value.key", "ml.key_value.value.list.element",
               "binl.list.element", "deep.list.element.q.r", "name", "req_struct.b.list.element",
               "req_items.list.element.y"]
FLOAT_LEAVES = ["vec3.list.element", "s.c.list.element"]
TINY = {"data_page_size": 256, "write_batch_size": 16}
# Projections by Parquet path: a struct field, a list's leaf, a field of a struct in a list,
# a struct in a struct, a list in a struct.
PROJECTIONS = [["s.b"], ["tags.list.element"], ["items.list.element.y"], ["ss.inner.q"],
               ["deep.list.element.n"], ["ints", "s.c"], ["req_struct.b"], ["id", "req_items.list.element.y"],
               ["items.list.element.y", "items.list.element.x"], ["ss.r", "ss.inner.q"], ["deep.list.element.q"],
               ["misc.list.element.h", "sf.f"]]


def write_pyarrow(out_dir):
    table = source_table()
    # The DELTA_BINARY_PACKED cases leave out list<dictionary> (pyarrow writes a dictionary
    # column with dictionary pages only).
    delta_ints = {c: "DELTA_BINARY_PACKED" for c in INT_LEAVES}
    variants = [
        ("data page v1, dictionary pages, snappy", {"data_page_version": "1.0", "compression": "snappy"}),
        ("data page v2, dictionary pages, zstd, page index",
         {"data_page_version": "2.0", "compression": "zstd", "write_page_index": True}),
        ("data page v1, tiny pages, no dictionary, gzip",
         {"data_page_version": "1.0", "compression": "gzip", "use_dictionary": False, **TINY}),
        ("data page v1, tiny pages, dictionary pages, uncompressed",
         {"data_page_version": "1.0", "compression": "none", **TINY}),
        ("data page v2, tiny pages, no dictionary, snappy, page index",
         {"data_page_version": "2.0", "compression": "snappy", "use_dictionary": False, "write_page_index": True,
          **TINY}),
        ("data page v2, tiny pages, dictionary pages, small dictionary limit, uncompressed",
         {"data_page_version": "2.0", "compression": "none", "dictionary_pagesize_limit": 300, **TINY}),
        ("data page v1, tiny pages, DELTA_BINARY_PACKED + DELTA_LENGTH_BYTE_ARRAY + BYTE_STREAM_SPLIT, zstd",
         {"data_page_version": "1.0", "compression": "zstd", "use_dictionary": False, **TINY,
          "column_encoding": {**delta_ints, **{c: "DELTA_LENGTH_BYTE_ARRAY" for c in BYTE_LEAVES},
                              **{c: "BYTE_STREAM_SPLIT" for c in FLOAT_LEAVES}}}),
        ("data page v2, tiny pages, DELTA_BINARY_PACKED + DELTA_BYTE_ARRAY, gzip, page index",
         {"data_page_version": "2.0", "compression": "gzip", "use_dictionary": False, "write_page_index": True,
          **TINY, "column_encoding": {**delta_ints, **{c: "DELTA_BYTE_ARRAY" for c in BYTE_LEAVES},
                                      "decl.list.element": "DELTA_BYTE_ARRAY"}}),
    ]
    # No rows at all: the schema alone must come out right.
    path = os.path.join(out_dir, "pyarrow-empty.parquet")
    pq.write_table(table.slice(0, 0), path)
    yield "pyarrow", "no rows", path, table.slice(0, 0), {}
    for n, (settings, kw) in enumerate(variants):
        path = os.path.join(out_dir, f"pyarrow-{n}.parquet")
        try:
            pq.write_table(table, path, row_group_size=400, **kw)
            # Every option and projection on the files whose pages split records.
            extra = {"options": "tiny" in settings}
            yield "pyarrow", settings, path, table, extra
        except Exception as e:  # noqa: BLE001 - reported as skipped
            yield "pyarrow", settings, e, table, {}


def write_repaged(out_dir):
    """pyarrow's v1 files with their data pages cut again inside records (repage.py), as v1
    pages (RLE or BIT_PACKED levels) or v2 pages."""
    table = source_table()
    variants = [
        ("data page v1, records split across pages, no dictionary, uncompressed",
         {"use_dictionary": False, "compression": "none"}),
        ("data page v1, records split across pages, dictionary pages, snappy", {"compression": "snappy"}),
        ("data page v1, records split across pages, BIT_PACKED levels, no dictionary, gzip",
         {"use_dictionary": False, "compression": "gzip"}),
        # Against the format (a v2 page must begin a record), but Arrow C++ wrote such pages
        # before it kept v2 pages to record boundaries, and pyarrow reads them.
        ("data page v2, records split across pages, dictionary pages, zstd", {"compression": "zstd"}),
    ]
    for n, (settings, kw) in enumerate(variants):
        source = os.path.join(out_dir, f"pyarrow-for-repage-{n}.parquet")
        path = os.path.join(out_dir, f"repaged-{n}.parquet")
        try:
            pq.write_table(table, source, row_group_size=400, data_page_version="1.0", **kw)
            bit_packed = "BIT_PACKED" in settings
            form = "bit_packed" if bit_packed else "v2" if "page v2" in settings else "rle"
            repage.repage(source, path, form)
            # pyarrow reads BIT_PACKED levels least significant bit first, against the format
            # (and parquet-mr, which wrote them): the reference is its read of the file before
            # re-paging, which holds the same records.
            extra = {"options": not bit_packed, "reference_of": source if bit_packed else None}
            yield "re-paged pyarrow", settings, path, table, extra
        except Exception as e:  # noqa: BLE001 - reported as skipped
            yield "re-paged pyarrow", settings, e, table, {}


# duckdb has no half floats and cannot take in a list<null>.
DUCKDB_LEAVES_OUT = ["misc", "nulls"]


def write_duckdb(out_dir):
    import duckdb
    # Twice the rows: duckdb cuts row groups at multiples of 2,048 rows only.
    table = source_table()
    table = table.drop_columns(DUCKDB_LEAVES_OUT)
    table = pa.concat_tables([table, table]).combine_chunks()
    con = duckdb.connect()
    con.execute("SET threads TO 1")  # one writer thread: row groups of exactly ROW_GROUP_SIZE
    con.register("source", table)
    for version, codec in [("V1", "snappy"), ("V2", "zstd"), ("V1", "uncompressed")]:
        settings = f"PARQUET_VERSION {version}, COMPRESSION {codec}"
        path = os.path.join(out_dir, f"duckdb-{version}-{codec}.parquet")
        try:
            con.execute(f"COPY source TO '{path}' (FORMAT PARQUET, PARQUET_VERSION {version}, "
                        f"COMPRESSION {codec}, ROW_GROUP_SIZE 2048)")
            yield "duckdb", settings, path, table, {}
        except duckdb.Error as e:
            yield "duckdb", settings, e, table, {}
    con.close()


def write_polars(out_dir):
    import polars as pl
    table = source_table()
    df = pl.from_arrow(table)
    for codec in ["snappy", "zstd", "uncompressed"]:
        settings = f"compression={codec}, data_page_size=1000, row_group_size=400"
        path = os.path.join(out_dir, f"polars-{codec}.parquet")
        try:
            df.write_parquet(path, compression=codec, row_group_size=400, data_page_size=1000)
            yield "polars", settings, path, table, {}
        except Exception as e:  # noqa: BLE001 - polars raises several kinds
            yield "polars", settings, e, table, {}


# ---------------------------------------------------------------------------------------------
# Layout: data pages that begin inside a record.

def max_repetition_levels(meta):
    """The maximum repetition level of every leaf column, by dotted path (from the footer's
    schema elements: 3 repetition type, 4 name, 5 number of children)."""
    elements = meta[2]
    out = {}

    def walk(i, path, rep):
        e = elements[i]
        children = e.get(5, 0)
        here = rep + (1 if e.get(3) == 2 else 0)
        p = path + [e[4].decode()] if path is not None else []
        i += 1
        if children == 0:
            out[".".join(p)] = here
            return i
        for _ in range(children):
            i = walk(i, p, here)
        return i

    walk(0, None, 0)
    return out


def first_repetition_level(data, chunk, page, max_rep):
    """The first repetition level of a data page (decompressing it with pyarrow's codecs)."""
    body = data[page["offset"] + page["header_len"]:page["offset"] + page["header_len"] + page["compressed"]]
    width = max_rep.bit_length()
    if page["type"] == "DATA_PAGE":
        if chunk["codec"] != "UNCOMPRESSED":
            body = pa.decompress(body, page["uncompressed"], codec=chunk["codec"].lower()).to_pybytes()
        if page["rep_encoding"] == 4:  # BIT_PACKED: most significant bits first, no prefix
            return body[0] >> (8 - width)
        body = body[4:]  # v1 RLE levels have a 4-byte length prefix
    header, pos = tc.read_varint(body, 0)
    if header & 1 == 0:  # an RLE run: its value in ceil(width / 8) bytes
        return int.from_bytes(body[pos:pos + (width + 7) // 8], "little")
    return body[pos] & ((1 << width) - 1)  # bit-packed, LSB first


def pages_inside_records(path):
    """How many data pages begin inside a record, and the encodings of v1 pages' levels."""
    with open(path, "rb") as f:
        data = f.read()
    meta = parquet_layout.footer(data)
    max_rep = max_repetition_levels(meta)
    count, level_encodings = 0, set()
    for group in parquet_layout.chunks(data, meta):
        for chunk in group["columns"]:
            rep = max_rep.get(chunk["path"], 0)
            for page in parquet_layout.pages(data, chunk):
                if page["type"] == "DATA_PAGE":
                    level_encodings.add(ENCODINGS[page["def_encoding"]])
                    if rep:
                        level_encodings.add(ENCODINGS[page["rep_encoding"]])
                if rep and page["type"] in ("DATA_PAGE", "DATA_PAGE_V2") and first_repetition_level(
                        data, chunk, page, rep):
                    count += 1
    return count, sorted(level_encodings)


# ---------------------------------------------------------------------------------------------

def reference(writer, path, n, out_dir, reference_of=None):
    """The reference read of a file (or of `reference_of`, a file with the same records):
    (table, ipc path, note) or raises."""
    note = None
    if reference_of is not None:
        table = pyarrow_to_ipc.plain_table(pq.read_table(reference_of))
        try:
            d = first_difference(pyarrow_to_ipc.plain_table(pq.read_table(path)), table)
            note = None if d is None else f"pyarrow reads this file to other values: {d}"
        except Exception as e:  # noqa: BLE001
            note = f"pyarrow cannot read this file: {type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
    elif writer == "duckdb":
        # Through plain_table as pyarrow's readings are: pyarrow 26 names a map's entries after
        # the column ('m'); plain_table rebuilds maps with Arrow's usual name, `entries`.
        table = pyarrow_to_ipc.plain_table(read_duckdb(path))
    else:
        table = pyarrow_to_ipc.plain_table(pq.read_table(path))
    if writer == "polars":
        import polars as pl
        try:
            own = pl.read_parquet(path).to_arrow()
            own = pa.table([as_type(own[f.name], f.type) for f in table.schema], schema=table.schema)
            d = first_difference(own, table)
            if d is not None:
                note = f"polars reads other values than pyarrow: {d}"
        except Exception as e:  # noqa: BLE001
            note = f"polars' own reading does not compare: {type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
    ipc = os.path.join(out_dir, f"ref-{n:03}.arrow")
    pyarrow_to_ipc.write_ipc(ipc, table)
    return table, ipc, note


def named_like(t, full):
    """Type `t` (a projection of type `full`) with the list element names of `full`."""
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(named_like(t.field(i).type, full.field(t.field(i).name).type))
                          for i in range(t.num_fields)])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        element = full.value_field.with_type(named_like(t.value_type, full.value_type))
        return pa.list_(element) if pa.types.is_list(t) else pa.large_list(element)
    return t


def projections(path, n, out_dir, full):
    """Arrow C++'s reading of each projection by Parquet path. Where a list's element struct
    is pruned, Arrow C++ names the list's field `item` instead of the file's name (`element`,
    which it keeps for the same list unpruned): the reference takes the names of the full
    read (`full`), as parquetry does; the values are Arrow C++'s."""
    out = []
    f = pq.ParquetFile(path)
    for k, columns in enumerate(PROJECTIONS):
        table = pyarrow_to_ipc.plain_table(f.read(columns=columns))
        schema = pa.schema([pa.field(fl.name, named_like(fl.type, full.schema.field(fl.name).type), fl.nullable)
                            for fl in table.schema], metadata=table.schema.metadata)
        table = table.cast(schema)
        ipc = os.path.join(out_dir, f"ref-{n:03}-{k}.arrow")
        pyarrow_to_ipc.write_ipc(ipc, table)
        out.append({"columns": columns, "reference": ipc})
    return out


def write_corruptible(out_dir):
    """Small valid nested files for tests/read_nested_bad.rs to corrupt: uncompressed, PLAIN
    or dictionary-encoded, data page v1 and v2, two row groups of several small pages; `ll` (list<list<int32>>) has
    levels wide enough to hold a level above its maxima (repetition 2, definition 5)."""
    cols = {}
    for name, pa_type, make in [
        ("l", pa.list_(pa.int64()), lambda g, r: g.list(r, lambda: g.maybe(g.int(0, 100)), 6)),
        ("ll", pa.list_(pa.list_(pa.int32())),
         lambda g, r: g.list(r, lambda: g.list(1, lambda: g.maybe(g.int(0, 100)), 4), 4)),
        ("s", pa.struct([("a", pa.int32()), ("b", pa.list_(pa.string()))]),
         lambda g, r: g.top(r, {"a": g.maybe(g.int(0, 9)), "b": g.list(1, lambda: g.maybe(VOCAB[g.int(0, 9)]), 3)})),
    ]:
        g = Gen(SEED + len(cols))
        cols[name] = pa.array([make(g, r + 10) for r in range(240)], pa_type)
    table = pa.table(cols)
    out = []
    for version in ["1.0", "2.0"]:
        for dictionary in [False, True]:
            name = f"v{version[0]}{', dictionary' if dictionary else ''}"
            path = os.path.join(out_dir, f"corruptible-v{version[0]}{'-dict' if dictionary else ''}.parquet")
            pq.write_table(table, path, row_group_size=120, data_page_version=version, use_dictionary=dictionary,
                           compression="none", data_page_size=128, write_batch_size=8, write_statistics=False)
            out.append({"name": name, "version": version, "dictionary": dictionary, "parquet": path,
                        "rows": table.num_rows})
    return out


def go_rows_check(table, rows_json):
    """None when pyarrow's reading of a parquet-go file holds the rows go-writer gave it (its
    JSON: Go's field names, nil for empty slices and maps, maps in any order), else the first
    difference."""
    def lower(v):
        if isinstance(v, dict):
            return {("items_l" if k == "ItemsL" else k.lower()): lower(x) for k, x in v.items()}
        return [lower(x) for x in v] if isinstance(v, list) else v

    with open(rows_json) as f:
        rows = [lower(r) for r in json.load(f)]
    got = table.to_pylist()
    if len(got) != len(rows):
        return f"{len(got)} rows, go-writer wrote {len(rows)}"
    for i, (g, w) in enumerate(zip(got, rows)):
        w["m"] = sorted((w["m"] or {}).items())
        g["m"] = sorted(g["m"])
        for key in ["ints", "tags", "items", "items_l", "inner"]:
            w[key] = w[key] or []
        for inner in w["inner"]:
            inner["qs"] = inner["qs"] or []
        if g != w:
            column = next(k for k in w if g.get(k) != w[k])
            return f"the reference is not go-writer's input: row {i}, column {column}: {g.get(column)}, expected {w[column]}"
    return None


def main():
    request = json.load(sys.stdin)
    out_dir = request["out_dir"]
    os.makedirs(out_dir, exist_ok=True)
    if request.get("corruptible"):
        json.dump({"files": write_corruptible(out_dir)}, sys.stdout)
        return
    cases, skipped = [], []
    written = [w for job in [write_pyarrow, write_repaged, write_duckdb, write_polars] for w in job(out_dir)]
    # Files written elsewhere (parquet-go): their rows come as JSON.
    written += [(e["writer"], e["settings"], e["parquet"], None, {"rows_json": e["rows_json"]})
                for e in request.get("extra", [])]
    for n, (writer, settings, path, source, extra) in enumerate(written):
        if isinstance(path, Exception):
            skipped.append({"writer": writer, "settings": settings,
                            "reason": f"{type(path).__name__}: {str(path).splitlines()[0]}"})
            continue
        case = {"writer": writer, "settings": settings, "parquet": path, "source_check": None,
                "rows": source.num_rows if source is not None else None, "options": False, "projections": [],
                **extra}
        try:
            case["layout"] = layout(path)
            inside, level_encodings = pages_inside_records(path)
            case["layout"].update(pages_inside_records=inside, level_encodings=level_encodings)
            with open(path, "rb") as f:
                case["layout"]["row_group_rows"] = [g["num_rows"] for g in parquet_layout.chunks(f.read())]
            table, case["reference"], case["note"] = reference(writer, path, n, out_dir, extra.get("reference_of"))
            if source is not None:
                case["source_check"] = source_check(table, source)
            else:
                case["source_check"] = go_rows_check(table, extra["rows_json"])
                case["rows"] = table.num_rows
            # Projections on a few of the files read with every option, to keep the test short:
            # PLAIN v1 and v2 pages, and records split over v1 and v2 pages.
            if case["options"] and ("no dictionary" in settings or "page v2, records" in settings):
                case["projections"] = projections(path, n, out_dir, table)
        except Exception as e:  # noqa: BLE001 - the Rust test reports it
            case["reference_error"] = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
        cases.append(case)
    versions = {"pyarrow": pa.__version__}
    for module in ["duckdb", "polars"]:
        versions[module] = sys.modules[module].__version__ if module in sys.modules else None
    json.dump({"versions": versions, "cases": cases, "skipped": skipped}, sys.stdout)


if __name__ == "__main__":
    main()
