"""Check the statistics and page index of Parquet files written by parquetry.

Usage: statistics_compare.py < request.json

The request: {"cases": [{"name", "ipc", "parquet", "row_group_rows", "truncate": N or null,
                         "dictionary": bool}, ...]}: `ipc` is an Arrow IPC file of the input
that parquetry wrote to `parquet` with `row_group_rows` rows per row group and byte-array
statistics truncated to `truncate` bytes.

For each case:

1. pyarrow writes the same table (same row group size, `write_statistics=True`, decimals as
   integers where they fit, as parquetry stores them); per row group and column, the null
   count, has_min_max and the raw min/max of the two files must be equal. Where parquetry
   truncates and pyarrow does not, the expected bound is pyarrow's, truncated (see
   `truncated`).
2. The footer statistics and every ColumnIndex entry are checked against the data: the rows
   of each page come from the OffsetIndex, the values from the IPC file; min/max ignore NaN,
   a zero minimum is -0.0 and a zero maximum +0.0 (the spec's rule), a page with no non-null
   value is a null page and no other is. The OffsetIndex must match the page headers. All of
   this is decoded from the file's bytes by parquet_layout.py (not by parquetry).
3. duckdb's `parquet_metadata()` must agree: null counts, page offsets and sizes, whether
   min/max are exact, and (when the case asks, `"encoding_stats": true`) the pages per type
   that the footer's `encoding_stats` count.

Prints {"mismatches": [...], "notes": [...]} as JSON.
"""
import collections
import decimal
import json
import math
import os
import struct
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_layout

decimal.getcontext().prec = 200
BOUNDARY = {0: "UNORDERED", 1: "ASCENDING", 2: "DESCENDING"}


# ---------------------------------------------------------------------------------------------
# Values as Parquet stores and orders them.

def stored_values(arr):
    """The values of an Arrow array as Parquet stores them, as Python values that sort in the
    column's order: ints (unsigned ones non-negative, decimals unscaled), floats, bools, bytes
    (text UTF-8 encoded). None for nulls."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks else pa.array([], type=arr.type)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_null(t):
        return [None] * len(arr)
    if pa.types.is_float16(t):
        return arr.cast(pa.float32()).to_pylist()
    if pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_floating(t):
        return arr.to_pylist()
    if pa.types.is_date64(t):
        return [None if v is None else v // 86_400_000 for v in arr.view(pa.int64()).to_pylist()]
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return arr.view(pa.int32()).to_pylist()
    if pa.types.is_time64(t) or pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return arr.view(pa.int64()).to_pylist()
    if pa.types.is_decimal(t):
        return [None if v is None else int(v.scaleb(t.scale)) for v in arr.to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return [None if v is None else v.encode() for v in arr.to_pylist()]
    return arr.to_pylist()  # binary kinds: bytes


def decode(raw, physical, arrow_type):
    """A PLAIN-encoded statistics value as `stored_values` gives it."""
    t = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    unsigned = pa.types.is_unsigned_integer(t)
    if physical == "BOOLEAN":
        return raw[0] != 0
    if physical == "INT32":
        return struct.unpack("<I" if unsigned else "<i", raw)[0]
    if physical == "INT64":
        return struct.unpack("<Q" if unsigned else "<q", raw)[0]
    if physical == "FLOAT":
        return struct.unpack("<f", raw)[0]
    if physical == "DOUBLE":
        return struct.unpack("<d", raw)[0]
    if physical == "FIXED_LEN_BYTE_ARRAY" and pa.types.is_decimal(t):
        return int.from_bytes(raw, "big", signed=True)
    if physical == "FIXED_LEN_BYTE_ARRAY" and pa.types.is_float16(t):
        return struct.unpack("<e", raw)[0]
    return bytes(raw)


def is_nan(v):
    return isinstance(v, float) and math.isnan(v)


def same(a, b):
    """Equality where NaN equals NaN and -0.0 differs from +0.0."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def is_text(arrow_type):
    t = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def is_byte_array(arrow_type):
    t = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    return is_text(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)


def truncated(value, limit, utf8, is_max):
    """(bytes, exact) of a min or max truncated to `limit` bytes: the minimum to its longest
    prefix of at most `limit` bytes (whole characters for text), the maximum to that prefix
    with its last byte (character, for text) incremented, dropping bytes (characters) that
    cannot be; a maximum with no such bound stays whole and exact."""
    if limit is None or len(value) <= limit:
        return value, True
    n = limit
    while utf8 and 0 < n < len(value) and value[n] & 0xC0 == 0x80:
        n -= 1
    prefix = value[:n]
    if not is_max:
        return prefix, False
    if utf8:
        chars = list(prefix.decode())
        while chars:
            c = ord(chars.pop()) + 1
            while 0xD800 <= c <= 0xDFFF:
                c += 1
            if c <= 0x10FFFF:
                chars.append(chr(c))
                return "".join(chars).encode(), False
        return value, True
    out = bytearray(prefix)
    while out:
        last = out.pop()
        if last < 0xFF:
            out.append(last + 1)
            return bytes(out), False
    return value, True


def bounds(values):
    """(min, max, non_null) of stored values by the spec's rules: NaN ignored, a zero minimum
    is -0.0 and a zero maximum +0.0; (None, None, n) when no value counts."""
    present = [v for v in values if v is not None]
    counted = [v for v in present if not is_nan(v)]
    if not counted:
        return None, None, len(present)
    lo, hi = min(counted), max(counted)
    if isinstance(lo, float) and lo == 0:
        lo = -0.0
    if isinstance(hi, float) and hi == 0:
        hi = 0.0
    return lo, hi, len(present)


def short(v):
    s = repr(v)
    return s if len(s) <= 90 else s[:87] + "..."


# ---------------------------------------------------------------------------------------------
# The checks.

class Case:
    def __init__(self, spec, mismatches, notes):
        self.spec = spec
        self.name = spec["name"]
        self.limit = spec["truncate"]
        self.mismatches = mismatches
        self.notes = notes
        with pa.memory_map(spec["ipc"]) as source:
            self.table = pa.ipc.open_file(source).read_all()
        with open(spec["parquet"], "rb") as f:
            self.data = f.read()
        self.file = pq.ParquetFile(spec["parquet"])
        self.meta = self.file.metadata
        self.layout = parquet_layout.chunks(self.data)
        self.names = self.table.column_names

    def fail(self, where, what):
        self.mismatches.append(f"{self.name}: {where}: {what}")

    def arrow_type(self, j):
        return self.table.schema.field(j).type

    def physical(self, j):
        return self.meta.schema.column(j).physical_type

    def expected_bound(self, value, j, is_max):
        """A true bound as parquetry should store it (truncated for byte arrays)."""
        if value is None or not is_byte_array(self.arrow_type(j)):
            return value, True
        return truncated(value, self.limit, is_text(self.arrow_type(j)), is_max)

    def row_group_starts(self):
        starts, at = [], 0
        for i in range(self.meta.num_row_groups):
            starts.append(at)
            at += self.meta.row_group(i).num_rows
        if at != self.table.num_rows:
            self.fail("file", f"{at} rows, want {self.table.num_rows}")
        return starts

    # 1. Against pyarrow's file of the same table.
    def against_pyarrow(self):
        theirs_path = self.spec["parquet"] + ".pyarrow.parquet"
        pq.write_table(self.table, theirs_path, row_group_size=self.spec["row_group_rows"],
                       write_statistics=True, store_decimal_as_integer=True,
                       use_dictionary=self.spec["dictionary"], compression="none")
        theirs = pq.ParquetFile(theirs_path).metadata
        os.remove(theirs_path)
        if theirs.num_row_groups != self.meta.num_row_groups:
            self.fail("file", f"{self.meta.num_row_groups} row groups, pyarrow {theirs.num_row_groups}")
            return
        for j, name in enumerate(self.names):
            ours_col, their_col = self.meta.schema.column(j), theirs.schema.column(j)
            mine = (ours_col.physical_type, str(ours_col.logical_type))
            their = (their_col.physical_type, str(their_col.logical_type))
            if mine != their:
                # Arrow times are times of day with no zone; pyarrow (26 here) writes
                # isAdjustedToUTC=false. The value and the Arrow type read back are the
                # same either way, so this is reported, not failed.
                if pa.types.is_time(self.arrow_type(j)) and mine[1].replace("=true", "=false") == their[1]:
                    self.notes.append(f"{self.name}: column '{name}': {mine[1]}, pyarrow writes {their[1]}")
                else:
                    self.fail(f"column '{name}'", f"type {mine[0]} {mine[1]}, pyarrow {their[0]} {their[1]}")
        starts = self.row_group_starts()
        for i in range(self.meta.num_row_groups):
            if self.meta.row_group(i).num_rows != theirs.row_group(i).num_rows:
                self.fail(f"row group {i}", "row count differs from pyarrow's")
                continue
            for j, name in enumerate(self.names):
                where = f"row group {i}, column '{name}'"
                o = self.meta.row_group(i).column(j).statistics
                t = theirs.row_group(i).column(j).statistics
                if o is None:
                    self.fail(where, "no statistics")
                    continue
                if t is None:
                    if not pa.types.is_null(self.arrow_type(j)):
                        self.fail(where, "pyarrow wrote no statistics (the test needs them)")
                    continue
                differences = []
                if (o.has_null_count, o.null_count) != (t.has_null_count, t.null_count):
                    differences.append(f"null_count {o.null_count}, pyarrow {t.null_count}")
                if o.has_min_max != t.has_min_max:
                    differences.append(f"has_min_max {o.has_min_max}, pyarrow {t.has_min_max}")
                elif o.has_min_max:
                    for label, mine, their, is_max in (("min", o.min_raw, t.min_raw, False), ("max", o.max_raw, t.max_raw, True)):
                        want = their
                        if isinstance(their, bytes) and is_byte_array(self.arrow_type(j)):
                            want, _ = truncated(their, self.limit, is_text(self.arrow_type(j)), is_max)
                        if not same(mine, want):
                            differences.append(f"{label} {short(mine)}, pyarrow {short(their)}"
                                               + ("" if want is their else f" (truncated: {short(want)})"))
                if not differences:
                    continue
                # Who is right is up to the data: parquetry's footer against the row group's values.
                values = stored_values(self.table.column(j).slice(starts[i], self.meta.row_group(i).num_rows))
                if self.footer_problems(j, self.layout[i]["columns"][j], values):
                    self.fail(where, "; ".join(differences))
                else:
                    self.notes.append(f"{self.name}: {where}: pyarrow differs from the data, parquetry does not: "
                                      + "; ".join(differences))

    # 2. Against the data: footer statistics, ColumnIndex, OffsetIndex.
    def against_data(self):
        starts = self.row_group_starts()
        orders = collections.Counter()
        for i, group in enumerate(self.layout):
            start, rows = starts[i], group["num_rows"]
            for j, chunk in enumerate(group["columns"]):
                name = self.names[j]
                where = f"row group {i}, column '{name}'"
                values = stored_values(self.table.column(j).slice(start, rows))
                self.footer_statistics(where, j, chunk, values)
                pages = [p for p in parquet_layout.pages(self.data, chunk) if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2")]
                page_rows = self.offset_index(where, chunk, pages, rows)
                if page_rows is not None:
                    order = self.column_index(where, j, chunk, values, page_rows)
                    if order:
                        orders[order] += 1
        if orders:
            self.notes.append(f"{self.name}: column index boundary orders {dict(orders)}")

    def footer_statistics(self, where, j, chunk, values):
        for problem in self.footer_problems(j, chunk, values):
            self.fail(where, problem)

    def footer_problems(self, j, chunk, values):
        """How a chunk's footer statistics differ from its values (empty when they agree)."""
        s = chunk["statistics"]
        if s is None:
            return ["no chunk statistics in the footer"]
        out = []
        lo, hi, present = bounds(values)
        nulls = len(values) - present
        if s.get(3) != nulls:
            out.append(f"footer null_count {s.get(3)}, the data has {nulls}")
        if lo is None:
            if 5 in s or 6 in s:
                out.append("footer min/max for a chunk without a (non-NaN) value")
            return out
        if 5 not in s or 6 not in s:
            return out + [f"no footer min_value/max_value, the data's are {short(lo)}, {short(hi)}"]
        physical, t = self.physical(j), self.arrow_type(j)
        for label, raw, truth, is_max, exact_field in (("min", s[6], lo, False, 8), ("max", s[5], hi, True, 7)):
            want, exact = self.expected_bound(truth, j, is_max)
            got = decode(raw, physical, t)
            if not same(got, want):
                out.append(f"footer {label}_value {short(got)}, the data's {label} is {short(truth)}"
                           + ("" if want is truth else f" (truncated: {short(want)})"))
            if s.get(exact_field, True) != exact:
                out.append(f"footer is_{label}_value_exact {s.get(exact_field)}, want {exact}")
        # The deprecated min/max fields hold signed-order values only (never for byte arrays).
        if (1 in s or 2 in s) and is_byte_array(t):
            out.append("deprecated min/max written for a byte array column")
        return out

    def offset_index(self, where, chunk, pages, rows):
        """Checks the OffsetIndex against the page headers; returns each page's row range."""
        locations = parquet_layout.offset_index(self.data, chunk)
        if locations is None:
            self.fail(where, "no OffsetIndex")
            return None
        if len(locations) != len(pages):
            self.fail(where, f"OffsetIndex has {len(locations)} pages, the chunk {len(pages)} data pages")
            return None
        ranges, at = [], 0
        for k, ((offset, size, first_row), page) in enumerate(zip(locations, pages)):
            page_rows = page.get("num_rows", page["num_values"])
            if offset != page["offset"] or size != page["header_len"] + page["compressed"]:
                self.fail(where, f"page {k}: OffsetIndex says offset {offset} size {size}, the header is at "
                          f"{page['offset']} with {page['header_len'] + page['compressed']} bytes")
            if first_row != at:
                self.fail(where, f"page {k}: first_row_index {first_row}, want {at}")
            ranges.append((at, at + page_rows))
            at += page_rows
        if at != rows:
            self.fail(where, f"pages hold {at} rows, the row group {rows}")
            return None
        return ranges

    def column_index(self, where, j, chunk, values, page_rows):
        ci = parquet_layout.column_index(self.data, chunk)
        if ci is None:
            self.fail(where, "no ColumnIndex")
            return None
        n = len(page_rows)
        if not (len(ci["null_pages"]) == len(ci["min_values"]) == len(ci["max_values"]) == n):
            self.fail(where, f"ColumnIndex lists of {len(ci['null_pages'])}/{len(ci['min_values'])}/"
                      f"{len(ci['max_values'])} entries for {n} pages")
            return None
        physical, t = self.physical(j), self.arrow_type(j)
        stored = []
        for k, (a, b) in enumerate(page_rows):
            lo, hi, present = bounds(values[a:b])
            nulls = (b - a) - present
            pw = f"{where}, page {k} (rows {a}..{b})"
            if ci["null_counts"] is not None and ci["null_counts"][k] != nulls:
                self.fail(pw, f"ColumnIndex null_count {ci['null_counts'][k]}, the data has {nulls}")
            if ci["null_pages"][k] != (present == 0):
                self.fail(pw, f"null_pages {ci['null_pages'][k]}, but the page has {present} non-null values"
                          + (" (all NaN)" if present and lo is None else ""))
            if ci["null_pages"][k]:
                if ci["min_values"][k] != b"" or ci["max_values"][k] != b"":
                    self.fail(pw, "a null page with a non-empty min or max")
                continue
            if lo is None:
                # Non-null values, all NaN: no bound to check beyond the null page flag.
                continue
            got_lo, got_hi = decode(ci["min_values"][k], physical, t), decode(ci["max_values"][k], physical, t)
            want_lo, _ = self.expected_bound(lo, j, False)
            want_hi, _ = self.expected_bound(hi, j, True)
            if not same(got_lo, want_lo) or not same(got_hi, want_hi):
                self.fail(pw, f"ColumnIndex min/max {short(got_lo)}/{short(got_hi)}, want {short(want_lo)}/{short(want_hi)}")
            stored.append((got_lo, got_hi))
        ascending = all(p[0] <= q[0] and p[1] <= q[1] for p, q in zip(stored, stored[1:]))
        descending = all(p[0] >= q[0] and p[1] >= q[1] for p, q in zip(stored, stored[1:]))
        claimed = BOUNDARY.get(ci["boundary_order"], ci["boundary_order"])
        if (claimed == "ASCENDING" and not ascending) or (claimed == "DESCENDING" and not descending):
            self.fail(where, f"boundary_order {claimed}, but the page bounds are not")
        elif claimed == "UNORDERED" and (ascending or descending):
            self.fail(where, "boundary_order UNORDERED, but the page bounds are "
                      + ("ascending" if ascending else "descending"))
        return claimed

    # 3. duckdb's reading of the same footer.
    def against_duckdb(self):
        con = duckdb.connect()
        try:
            rel = con.sql("select * from parquet_metadata(?)", params=[self.spec["parquet"]])
            columns = rel.columns
            rows = [dict(zip(columns, r)) for r in rel.fetchall()]
        finally:
            con.close()
        starts = self.row_group_starts()
        checked = 0
        for r in rows:
            i, j = r["row_group_id"], r["column_id"]
            chunk = self.layout[i]["columns"][j]
            where = f"row group {i}, column '{self.names[j]}' (duckdb)"
            values = stored_values(self.table.column(j).slice(starts[i], self.layout[i]["num_rows"]))
            lo, hi, present = bounds(values)
            if r["stats_null_count"] != len(values) - present:
                self.fail(where, f"stats_null_count {r['stats_null_count']}, the data has {len(values) - present}")
            for key, mine in (("data_page_offset", chunk["data_page_offset"]),
                              ("dictionary_page_offset", chunk["dictionary_page_offset"]),
                              ("total_compressed_size", chunk["total_compressed_size"])):
                if r[key] != mine:
                    self.fail(where, f"{key} {r[key]}, the footer decoded here says {mine}")
            if lo is not None and "min_is_exact" in r:
                for label, truth, is_max in (("min", lo, False), ("max", hi, True)):
                    _, exact = self.expected_bound(truth, j, is_max)
                    if r[f"{label}_is_exact"] is not None and r[f"{label}_is_exact"] != exact:
                        self.fail(where, f"{label}_is_exact {r[f'{label}_is_exact']}, want {exact}")
            if self.spec.get("encoding_stats") and r.get("encoding_stats"):
                counts = collections.Counter()
                for e in r["encoding_stats"]:
                    counts[e["page_type"]] += e["count"]
                walked = collections.Counter(p["type"] for p in parquet_layout.pages(self.data, chunk))
                if counts != walked:
                    self.fail(where, f"encoding_stats pages {dict(counts)}, the chunk holds {dict(walked)}")
            checked += 1
        if checked != sum(len(g["columns"]) for g in self.layout):
            self.fail("duckdb", f"parquet_metadata gave {checked} column chunks")


def main():
    request = json.load(sys.stdin)
    mismatches, notes = [], []
    for spec in request["cases"]:
        case = Case(spec, mismatches, notes)
        case.against_pyarrow()
        case.against_data()
        case.against_duckdb()
    json.dump({"mismatches": mismatches, "notes": notes}, sys.stdout)


if __name__ == "__main__":
    main()
