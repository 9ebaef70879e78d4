"""Read Parquet files with duckdb and polars and compare every column with the input.

Usage: duckdb_polars_compare.py < request.json

The request: {"files": [{"parquet": path, "expected": arrow_ipc_path}, ...],
              "exclusions": [{"reader", "columns": [...], "when": [condition, ...],
                              "error_contains": [text, ...], "reason"}, ...]}

For each file and reader (polars: `pl.read_parquet(path).to_arrow()`, duckdb:
`select ... from read_parquet(?)` as an Arrow table), every column is compared, value by
value, with the expected table (an Arrow IPC file of the writer's input, read by pyarrow).

Only each reader's own type mapping is normalised: times, timestamps and durations become
integers of one unit (duckdb's TIME has microseconds: a nanosecond time is compared truncated
to microseconds; duckdb has no duration type and gives the stored INT64), dates become
milliseconds (polars reads an Arrow date64 as a millisecond timestamp), dictionaries are
decoded, string and binary offsets widths and views are the same values, a half float read as
a float is the same value, and a decimal wider than 38 digits that duckdb reads as DOUBLE is
compared as the nearest double (relative error 1e-12). The kind of type must still match
(integers exactly, text as text, bytes as bytes, time zone present or absent), and NaN equals
NaN but -0.0 differs from +0.0.

An exclusion names a reader, columns, and conditions on their column chunks, all of which must
hold (see `condition_holds`: an encoding, a codec, a page size, a v2 page without values, as
the file's bytes say); such a column is read alone: it must fail with an error containing one of `error_contains` or
read to the right values. Anything else is a mismatch.

Prints {"mismatches": [text, ...], "notes": [text, ...]} as JSON.
"""
import collections
import json
import math
import sys
import warnings

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import parquet_layout

warnings.simplefilter("ignore")

UNIT_NS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def read_polars(path, columns):
    return pl.read_parquet(path, columns=columns).to_arrow()


def read_duckdb(path, columns):
    con = duckdb.connect()
    try:
        select = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
        rel = con.sql(f"select {select} from read_parquet(?)", params=[path])
        for name in ("to_arrow_table", "fetch_arrow_table", "arrow"):
            if hasattr(rel, name):
                t = getattr(rel, name)()
                break
        if isinstance(t, pa.RecordBatchReader):
            t = t.read_all()
        return t
    finally:
        con.close()


READERS = {"polars": read_polars, "duckdb": read_duckdb}


def decode(arr):
    """A chunked or plain array as one plain array, dictionaries decoded."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks else pa.array([], type=arr.type)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr


def ints(arr):
    """The stored integers of a temporal array (None for nulls)."""
    width = pa.int32() if arr.type.bit_width == 32 else pa.int64()
    return arr.view(width).to_pylist()


def scaled(values, factor):
    return [None if v is None else v * factor for v in values]


def kind(t):
    if pa.types.is_dictionary(t):
        return kind(t.value_type)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "text"
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
            or pa.types.is_fixed_size_binary(t)):
        return "bytes"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_decimal(t):
        return "decimal"
    if pa.types.is_date(t):
        return "date"
    if pa.types.is_time(t):
        return "time"
    if pa.types.is_timestamp(t):
        return "timestamp"
    if pa.types.is_duration(t):
        return "duration"
    if pa.types.is_null(t):
        return "null"
    return str(t)  # booleans and integers: the exact type


def normalise(reader, want, got):
    """(want values, got values, how to compare) or a string saying why the types differ."""
    wt, gt = want.type, got.type
    wk, gk = kind(wt), kind(gt)
    if wk == "date":
        w = scaled(ints(want), 86_400_000) if pa.types.is_date32(wt) else ints(want)
        if pa.types.is_date(gt):
            g = scaled(ints(got), 86_400_000) if pa.types.is_date32(gt) else ints(got)
        elif pa.types.is_timestamp(gt) and gt.tz is None:
            # polars maps Arrow date64 to a millisecond Datetime.
            g = [None if v is None else v * UNIT_NS[gt.unit] // 1_000_000 for v in ints(got)]
        else:
            return f"type {gt} for {wt}"
        return w, g, "exact"
    if wk in ("time", "timestamp", "duration"):
        w = scaled(ints(want), UNIT_NS[wt.unit])
        if wk == "duration" and pa.types.is_int64(gt) and reader == "duckdb":
            # duckdb has no duration type: it reads the stored INT64 (of the input's unit).
            g = scaled(got.to_pylist(), UNIT_NS[wt.unit])
        elif gk != wk:
            return f"type {gt} for {wt}"
        else:
            g = scaled(ints(got), UNIT_NS[gt.unit])
            if wk == "timestamp" and (wt.tz is None) != (gt.tz is None):
                return f"type {gt} for {wt} (time zone presence differs)"
            if wk == "time" and reader == "duckdb" and wt.unit == "ns" and gt.unit == "us":
                # duckdb's TIME holds microseconds.
                w = [None if v is None else v // 1000 * 1000 for v in w]
        return w, g, "exact"
    if wk == "decimal":
        if gk == "decimal":
            return want.to_pylist(), got.to_pylist(), "exact"
        if reader == "duckdb" and pa.types.is_float64(gt) and wt.precision > 38:
            return [None if v is None else float(v) for v in want.to_pylist()], got.to_pylist(), "approx"
        return f"type {gt} for {wt}"
    if wk == "float":
        if gk != "float":
            return f"type {gt} for {wt}"
        conv = lambda a: [None if v is None else float(v) for v in a.to_pylist()]  # noqa: E731
        return conv(want), conv(got), "float"
    if wk == "null":
        if gk not in ("null",) and got.null_count != len(got):
            return f"type {gt} for {wt} with values"
        return [None] * len(want), [None] * len(got), "exact"
    if wk != gk:
        return f"type {gt} for {wt}"
    return decode(want).to_pylist(), decode(got).to_pylist(), "exact"


def same(a, b, how):
    if a is None or b is None:
        return a is None and b is None
    if how == "float":
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if how == "approx":
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)
    return a == b


def short(v):
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def compare_column(reader, name, want, got):
    """A mismatch description, or None."""
    want, got = decode(want), decode(got)
    if len(want) != len(got):
        return f"column '{name}': {len(got)} rows, want {len(want)}"
    n = normalise(reader, want, got)
    if isinstance(n, str):
        return f"column '{name}': {n}"
    w, g, how = n
    for row, (a, b) in enumerate(zip(w, g)):
        if not same(a, b, how):
            return f"column '{name}': row {row} is {short(b)}, want {short(a)} (compared {how})"
    return None


class Layout:
    """What the exclusion conditions look at in one file, read lazily."""

    def __init__(self, path):
        self.path = path
        self.meta = pq.ParquetFile(path).metadata
        self._data = None

    def data(self):
        if self._data is None:
            with open(self.path, "rb") as f:
                self._data = f.read()
        return self._data

    def encodings(self, column):
        j = self.meta.schema.names.index(column)
        out = set()
        for i in range(self.meta.num_row_groups):
            out.update(self.meta.row_group(i).column(j).encodings)
        return out

    def chunks(self, column):
        data = self.data()
        return [c for group in parquet_layout.chunks(data) for c in group["columns"] if c["path"] == column]

    def pages(self, column):
        return [p for c in self.chunks(column) for p in parquet_layout.pages(self.data(), c)]


def condition_holds(layout, column, condition):
    """`encoding=NAME` (a chunk uses it, names as pyarrow's metadata gives them), `codec=NAME`
    (the footer's codec id, LZ4 being Hadoop's and LZ4_RAW the raw block), `page_over=N` (a
    page of more than N uncompressed bytes), `v2_page_without_values` (a DATA_PAGE_V2 whose
    rows are all null)."""
    key, _, value = condition.partition("=")
    if key == "encoding":
        return value in layout.encodings(column)
    if key == "codec":
        return any(c["codec"] == value for c in layout.chunks(column))
    if key == "page_over":
        return any(p["uncompressed"] > int(value) for p in layout.pages(column))
    if key == "v2_page_without_values":
        return any(p["type"] == "DATA_PAGE_V2" and p["num_nulls"] == p["num_values"] for p in layout.pages(column))
    raise ValueError(f"unknown exclusion condition {condition!r}")


def main():
    request = json.load(sys.stdin)
    exclusions = request["exclusions"]
    expected_cache = {}
    mismatches, notes = [], []
    confirmed = collections.Counter()
    read_anyway = collections.Counter()
    mappings = collections.defaultdict(set)
    for entry in request["files"]:
        path, expected_path = entry["parquet"], entry["expected"]
        if expected_path not in expected_cache:
            with pa.memory_map(expected_path) as source:
                expected_cache[expected_path] = pa.ipc.open_file(source).read_all()
        want = expected_cache[expected_path]
        layout = Layout(path)
        for reader, read in READERS.items():
            excluded = {}
            for column in want.column_names:
                for ex in exclusions:
                    if ex["reader"] != reader or column not in ex["columns"]:
                        continue
                    if all(condition_holds(layout, column, c) for c in ex["when"]):
                        excluded[column] = ex
                        break
            columns = [c for c in want.column_names if c not in excluded]
            try:
                got = read(path, columns)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # noqa: BLE001 - every failure is reported (polars' Rust panics are BaseExceptions)
                mismatches.append(f"{path} ({reader}): read failed: {type(e).__name__}: {e}")
                continue
            if got.column_names != columns:
                mismatches.append(f"{path} ({reader}): columns {got.column_names}, want {columns}")
                continue
            for column in columns:
                mappings[(reader, str(want.schema.field(column).type))].add(str(got.schema.field(column).type))
                d = compare_column(reader, column, want.column(column), got.column(column))
                if d:
                    mismatches.append(f"{path} ({reader}): {d}")
            for column, ex in excluded.items():
                try:
                    alone = read(path, [column])
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as e:  # noqa: BLE001
                    message = f"{type(e).__name__}: {e}"
                    known = [t for t in ex["error_contains"] if t in message]
                    if known:
                        confirmed[(reader, column, known[0])] += 1
                    else:
                        mismatches.append(
                            f"{path} ({reader}): column '{column}' is excluded for "
                            f"{ex['error_contains']} but failed with {message}")
                    continue
                read_anyway[(reader, column)] += 1
                d = compare_column(reader, column, want.column(column), alone.column(0))
                if d:
                    mismatches.append(f"{path} ({reader}): {d}")
    for (reader, column, text), count in sorted(confirmed.items()):
        notes.append(f"{reader} cannot read '{column}' in {count} files, as documented: {text}")
    for (reader, column), count in sorted(read_anyway.items()):
        notes.append(f"{reader} read excluded '{column}' in {count} files (no value of the failing kind): values checked")
    for (reader, wt), got in sorted(mappings.items()):
        if got != {wt}:
            notes.append(f"{reader} reads {wt} as {', '.join(sorted(got))}")
    json.dump({"mismatches": mismatches, "notes": notes}, sys.stdout)


if __name__ == "__main__":
    main()
