#!/usr/bin/env python3
"""Generate parquetry's standard benchmark datasets (GUIDE.md, "Measuring").

Usage:
    python3 bench/datasets.py [--out bench/data] [--quick] [--force] [--verify]

Everything is written by pyarrow, never by parquetry, so benchmark inputs do not
depend on our own writer. Data comes from numpy Generators with fixed seeds, so
the same versions of numpy and pyarrow produce byte-identical files.

Files (in --out, or in --out/quick with --quick):

  strings_{plain,dict,delta_length,delta}_{none,snappy,zstd}.parquet   (12 files)
      2,000,000 rows (200,000 with --quick), three non-null UTF-8 columns:
        id        unique 25-byte keys: 16 hex digits, '-', 8 hex digits
        category  one of 100 values category_000 .. category_099
        url       https://www.example{i}.com/path/to/resource/item/{n},
                  i < 50, n < 10,000,000 (uniform)
      plain        use_dictionary=False, PLAIN
      dict         use_dictionary=True (RLE_DICTIONARY data pages, PLAIN
                   dictionary page); dictionary_pagesize_limit is raised so
                   no column falls back to PLAIN (checked after writing)
      delta_length use_dictionary=False, DELTA_LENGTH_BYTE_ARRAY
      delta        use_dictionary=False, DELTA_BYTE_ARRAY
  blobs_zstd.parquet
      968 rows in 2 row groups of 484: id (as above) and blob (binary, random
      bytes, length uniform in [5 KiB, 50 KiB]); PLAIN, zstd; write_batch_size
      16 so blob data pages are ~1 MiB (about 40 values) rather than one page
      per row group.
  numeric_snappy.parquet
      2,000,000 rows (200,000 with --quick), snappy:
        i64       int64, full range, non-null, PLAIN
        i64_null  int64 in [-1e9, 1e9), ~10% null, PLAIN
        f64_null  double (normal * 1000), ~10% null, PLAIN
        ts        timestamp[us], increasing, non-null, PLAIN
        i32       int32 in [0, 10000), non-null, RLE_DICTIONARY

  lists_{none,snappy,zstd}.parquet
      2,000,000 rows (200,000 with --quick), one column tags: list<string>, 0 to 8
      strings a row (uniform), each one of 5,000 words tag_0000 .. tag_4999, ~5%
      null strings, ~3% null lists; dictionary encoded (as pyarrow's default).
  struct_dict_{none,snappy,zstd}.parquet
      the strings dataset (same seed and rows) as one nullable struct column
      s {id, category, url}, written as strings_dict_*: the same values and
      pages one level down, to compare a struct with the flat columns.

Common writer settings: data page v1, format version 2.6, row groups of at most
1,048,576 rows (so 2M-row files have 2 row groups: 1,048,576 + 951,424; quick
files have one), data_page_size 1 MiB, max_rows_per_page 20,000 (where pyarrow
has it), write_page_index=True, column statistics on. pyarrow >= 20 writes
SizeStatistics (unencoded_byte_array_data_bytes and level histograms) in the
column chunk metadata and page index by default; the manifest records, read
back from each footer, whether they are present.

MANIFEST.json in the output folder records, per file, the parameters it was
written with, its size and sha256, and what the footer says (row groups, data
page encodings per column, SizeStatistics). Files carry no ARROW:schema key
(store_schema=False): all columns map back to the same Arrow types without it.

Known writer quirk (pyarrow 26): with DELTA_BYTE_ARRAY, a value equal to the one
before it adds 0 to SizeStatistics.unencoded_byte_array_data_bytes, so the
category column of strings_delta_* under-reports (by 12 bytes per repeat, ~1%).
Readers must treat that field as a capacity hint, not a bound. A file is rewritten when it is
missing, its size differs from the manifest, or its parameters changed.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import struct
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# Bump when the generated values or writer options change.
GEN_VERSION = 1
SEED = 20240611

FULL_ROWS = 2_000_000
QUICK_ROWS = 200_000
BLOB_ROWS = 968
BLOB_ROW_GROUP = 484
ROW_GROUP_SIZE = 1024 * 1024
DATA_PAGE_SIZE = 1 << 20
MAX_ROWS_PER_PAGE = 20_000
DICT_PAGE_LIMIT = 1 << 30  # high enough that no dictionary falls back to PLAIN

STRING_ENCODINGS = {
    # file tag: (use_dictionary, column_encoding or None)
    "plain": (False, "PLAIN"),
    "dict": (True, None),
    "delta_length": (False, "DELTA_LENGTH_BYTE_ARRAY"),
    "delta": (False, "DELTA_BYTE_ARRAY"),
}
CODECS = ["none", "snappy", "zstd"]

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


# --------------------------------------------------------------------------
# Value generation (vectorised)
# --------------------------------------------------------------------------

def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a bijection on u64, so distinct inputs stay distinct."""
    x = x.astype(np.uint64, copy=True)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def _hex_digits(values: np.ndarray, ndigits: int) -> np.ndarray:
    """(n, ndigits) uint8 array of lower-case hex digits, most significant first."""
    nbytes = ndigits // 2
    be = values.astype(f">u{nbytes}").view(np.uint8).reshape(-1, nbytes)
    out = np.empty((len(values), ndigits), dtype=np.uint8)
    out[:, 0::2] = _HEX[be >> 4]
    out[:, 1::2] = _HEX[be & 15]
    return out


def make_ids(rng: np.random.Generator, n: int) -> pa.Array:
    """n unique 25-byte keys '<16 hex>-<8 hex>' as a pa.string() array.

    The 16-digit part is a bijective mix of (random start + row index), so keys
    are unique; the 8-digit part is random.
    """
    start = rng.integers(0, 2**63, dtype=np.uint64)
    hi = _mix64(np.arange(n, dtype=np.uint64) + start)
    lo = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    buf = np.empty((n, 25), dtype=np.uint8)
    buf[:, :16] = _hex_digits(hi, 16)
    buf[:, 16] = ord("-")
    buf[:, 17:] = _hex_digits(lo, 8)
    offsets = np.arange(0, 25 * (n + 1), 25, dtype=np.int32)
    return pa.Array.from_buffers(
        pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(buf.reshape(-1))]
    )


def make_strings(seed: tuple, n: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = make_ids(rng, n)
    categories = pa.array([f"category_{i:03d}" for i in range(100)], pa.string())
    category = pc.take(categories, pa.array(rng.integers(0, 100, size=n, dtype=np.int32)))
    prefixes = pa.array(
        [f"https://www.example{i}.com/path/to/resource/item/" for i in range(50)], pa.string()
    )
    prefix = pc.take(prefixes, pa.array(rng.integers(0, 50, size=n, dtype=np.int32)))
    item = pc.cast(pa.array(rng.integers(0, 10_000_000, size=n, dtype=np.int64)), pa.string())
    url = pc.binary_join_element_wise(prefix, item, "")
    return pa.table({"id": ids, "category": category, "url": url})


def make_lists(seed: tuple, n: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 9, size=n)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    words = pa.array([f"tag_{i:04d}" for i in range(5000)], pa.string())
    total = int(offsets[-1])
    values = pc.take(words, pa.array(rng.integers(0, 5000, size=total, dtype=np.int32)))
    values = pc.if_else(pa.array(rng.random(total) < 0.05), pa.scalar(None, pa.string()), values)
    tags = pa.ListArray.from_arrays(pa.array(offsets), values, mask=pa.array(rng.random(n) < 0.03))
    return pa.table({"tags": tags})


def make_struct(seed: tuple, n: int) -> pa.Table:
    flat = make_strings(seed, n)
    columns = [flat.column(name).combine_chunks() for name in flat.column_names]
    return pa.table({"s": pa.StructArray.from_arrays(columns, names=flat.column_names)})


def make_blobs(seed: tuple, n: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = make_ids(rng, n)
    lengths = rng.integers(5 * 1024, 50 * 1024, size=n, endpoint=True, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.bytes(int(offsets[-1]))
    blob = pa.Array.from_buffers(
        pa.binary(), n, [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]
    )
    return pa.table({"id": ids, "blob": blob})


def make_numeric(seed: tuple, n: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    i64 = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=n,
                       endpoint=True, dtype=np.int64)
    i64n = rng.integers(-1_000_000_000, 1_000_000_000, size=n, dtype=np.int64)
    i64n_null = rng.random(n) < 0.1
    f64 = rng.standard_normal(n) * 1000.0
    f64_null = rng.random(n) < 0.1
    t0 = np.datetime64("2024-01-01T00:00:00", "us").astype(np.int64)
    ts = t0 + np.cumsum(rng.integers(0, 2_000_000, size=n, dtype=np.int64))
    i32 = rng.integers(0, 10_000, size=n, dtype=np.int32)
    return pa.table({
        "i64": pa.array(i64),
        "i64_null": pa.array(i64n, mask=i64n_null),
        "f64_null": pa.array(f64, mask=f64_null),
        "ts": pa.array(ts, pa.timestamp("us")),
        "i32": pa.array(i32),
    })


# --------------------------------------------------------------------------
# Footer inspection: a minimal thrift compact-protocol reader
# --------------------------------------------------------------------------

class _Compact:
    """Decodes thrift compact structs into {field_id: value} dicts."""

    def __init__(self, buf: bytes):
        self.b = buf
        self.p = 0

    def _byte(self) -> int:
        v = self.b[self.p]
        self.p += 1
        return v

    def _varint(self) -> int:
        shift = out = 0
        while True:
            v = self._byte()
            out |= (v & 0x7F) << shift
            shift += 7
            if not v & 0x80:
                return out

    def _zigzag(self) -> int:
        v = self._varint()
        return (v >> 1) ^ -(v & 1)

    def _value(self, t: int):
        if t in (1, 2):
            return t == 1
        if t == 3:
            return struct.unpack("b", bytes([self._byte()]))[0]
        if t in (4, 5, 6):
            return self._zigzag()
        if t == 7:
            v = struct.unpack("<d", self.b[self.p:self.p + 8])[0]
            self.p += 8
            return v
        if t == 8:
            n = self._varint()
            v = self.b[self.p:self.p + n]
            self.p += n
            return v
        if t in (9, 10):
            h = self._byte()
            n, et = h >> 4, h & 15
            if n == 15:
                n = self._varint()
            if et in (1, 2):  # booleans in lists are one byte each
                return [self._byte() == 1 for _ in range(n)]
            return [self._value(et) for _ in range(n)]
        if t == 11:
            n = self._varint()
            if n == 0:
                return {}
            kv = self._byte()
            return {self._value(kv >> 4): self._value(kv & 15) for _ in range(n)}
        if t == 12:
            return self.struct()
        raise ValueError(f"bad thrift compact type {t} at {self.p}")

    def struct(self) -> dict:
        out, last = {}, 0
        while True:
            h = self._byte()
            if h == 0:
                return out
            delta, t = h >> 4, h & 15
            fid = last + delta if delta else self._zigzag()
            out[fid] = self._value(t)
            last = fid


ENCODING_NAMES = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED",
                  5: "DELTA_BINARY_PACKED", 6: "DELTA_LENGTH_BYTE_ARRAY",
                  7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}
PAGE_TYPE_NAMES = {0: "DATA_PAGE", 1: "INDEX_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}


def inspect_footer(path: Path) -> dict:
    """What the footer says, per row group and column: page counts by type and
    encoding (ColumnMetaData.encoding_stats), sizes and SizeStatistics."""
    with open(path, "rb") as f:
        f.seek(-8, os.SEEK_END)
        tail = f.read(8)
        (flen,) = struct.unpack("<I", tail[:4])
        assert tail[4:] == b"PAR1", "not a parquet file"
        f.seek(-8 - flen, os.SEEK_END)
        return _inspect_metadata(f.read(flen))


def inspect_footer_bytes(data) -> dict:
    """inspect_footer() of a whole file held in memory (bytes or a buffer)."""
    view = memoryview(data)
    (flen,) = struct.unpack("<I", view[-8:-4])
    assert bytes(view[-4:]) == b"PAR1", "not a parquet file"
    return _inspect_metadata(bytes(view[-8 - flen:-8]))


def _inspect_metadata(footer: bytes) -> dict:
    meta = _Compact(footer).struct()
    row_groups = []
    for rg in meta.get(4, []):
        cols = {}
        for cc in rg[1]:
            md = cc[3]
            name = ".".join(p.decode() for p in md[3])
            pages = {}
            for st in md.get(13, []):
                key = f"{PAGE_TYPE_NAMES.get(st[1], st[1])}:{ENCODING_NAMES.get(st[2], st[2])}"
                pages[key] = pages.get(key, 0) + st[3]
            size_stats = md.get(16)
            cols[name] = {
                "pages": pages,
                "total_compressed_size": md[7],
                "total_uncompressed_size": md[6],
                "size_statistics": size_stats is not None,
                "unencoded_byte_array_data_bytes": (size_stats or {}).get(1),
            }
        row_groups.append({"num_rows": rg[3], "columns": cols})
    return {"num_rows": meta[3], "row_groups": row_groups}


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------

_WRITE_PARAMS = inspect.signature(pq.write_table).parameters


def _common_options() -> dict:
    opts = dict(
        version="2.6",
        data_page_version="1.0",
        row_group_size=ROW_GROUP_SIZE,
        data_page_size=DATA_PAGE_SIZE,
        write_statistics=True,
        write_page_index=True,
        # No ARROW:schema key: every column maps back to the same Arrow type without
        # it, and pyarrow's binary_type=binary_view read option (native view decoding)
        # is ignored when a stored Arrow schema is present.
        store_schema=False,
    )
    if "max_rows_per_page" in _WRITE_PARAMS:
        opts["max_rows_per_page"] = MAX_ROWS_PER_PAGE
    # pyarrow (as of 26) has no size_statistics_level option; Arrow C++ defaults to
    # SizeStatisticsLevel::PageAndColumnChunk, and inspect_footer() checks the result.
    return opts


def plan(quick: bool) -> list[dict]:
    """Every file to write: name, dataset, generator seed, rows, writer options."""
    rows = QUICK_ROWS if quick else FULL_ROWS
    jobs = []
    for tag, (use_dict, enc) in STRING_ENCODINGS.items():
        for codec in CODECS:
            opts = _common_options()
            opts["compression"] = codec
            opts["use_dictionary"] = use_dict
            if use_dict:
                opts["dictionary_pagesize_limit"] = DICT_PAGE_LIMIT
            else:
                opts["column_encoding"] = enc
            jobs.append(dict(name=f"strings_{tag}_{codec}.parquet", dataset="strings",
                             seed=[SEED, 1], rows=rows, options=opts))
    opts = _common_options()
    # write_batch_size 16: pyarrow checks the page size only between batches, so
    # with its default of 1024 rows a whole 484-row group of blobs is one ~13 MB page.
    opts.update(compression="zstd", use_dictionary=False, column_encoding="PLAIN",
                row_group_size=BLOB_ROW_GROUP, write_batch_size=16)
    jobs.append(dict(name="blobs_zstd.parquet", dataset="blobs", seed=[SEED, 2],
                     rows=BLOB_ROWS, options=opts))
    opts = _common_options()
    opts.update(compression="snappy", use_dictionary=["i32"])
    jobs.append(dict(name="numeric_snappy.parquet", dataset="numeric", seed=[SEED, 3],
                     rows=rows, options=opts))
    for codec in CODECS:
        opts = _common_options()
        opts.update(compression=codec, use_dictionary=True)
        jobs.append(dict(name=f"lists_{codec}.parquet", dataset="lists", seed=[SEED, 4],
                         rows=rows, options=opts))
        opts = _common_options()
        opts.update(compression=codec, use_dictionary=True, dictionary_pagesize_limit=DICT_PAGE_LIMIT)
        jobs.append(dict(name=f"struct_dict_{codec}.parquet", dataset="struct", seed=[SEED, 1],
                         rows=rows, options=opts))
    for j in jobs:
        j["params"] = dict(gen_version=GEN_VERSION, dataset=j["dataset"], seed=j["seed"],
                           rows=j["rows"], options=j["options"], pyarrow=pa.__version__)
    return jobs


MAKERS = {"strings": make_strings, "blobs": make_blobs, "numeric": make_numeric,
          "lists": make_lists, "struct": make_struct}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def _check_written(job: dict, info: dict) -> list[str]:
    """Problems with a written file: dictionary fallback, wrong encodings."""
    problems = []
    opts = job["options"]
    for gi, rg in enumerate(info["row_groups"]):
        for col, c in rg["columns"].items():
            data_encs = {k.split(":")[1] for k in c["pages"] if k.startswith("DATA_PAGE")}
            use_dict = opts.get("use_dictionary")
            dict_col = use_dict is True or (isinstance(use_dict, list) and col in use_dict)
            if dict_col:
                want = {"RLE_DICTIONARY"}
            elif isinstance(opts.get("column_encoding"), str):
                want = {opts["column_encoding"]}
            else:
                want = {"PLAIN"}
            if data_encs != want:
                problems.append(f"row group {gi} column {col}: data pages {data_encs}, want {want}")
    return problems


def generate(out: Path, quick: bool, force: bool, verify: bool) -> None:
    if quick:
        out = out / "quick"
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "MANIFEST.json"
    try:
        old = json.loads(manifest_path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        old = {}
    old_files = old.get("files", {})
    manifest = {
        "generator": "bench/datasets.py",
        "gen_version": GEN_VERSION,
        "pyarrow": pa.__version__,
        "numpy": np.__version__,
        "quick": quick,
        "files": {},
    }
    tables: dict[str, pa.Table] = {}
    for job in plan(quick):
        path = out / job["name"]
        prev = old_files.get(job["name"])
        fresh = (not force and prev is not None and path.exists()
                 and prev.get("params") == job["params"]
                 and prev.get("size") == path.stat().st_size
                 and (not verify or prev.get("sha256") == _sha256(path)))
        if fresh:
            print(f"ok       {path}")
            manifest["files"][job["name"]] = prev
            continue
        key = json.dumps([job["dataset"], job["seed"], job["rows"]])
        if key not in tables:
            t0 = time.perf_counter()
            tables[key] = MAKERS[job["dataset"]](tuple(job["seed"]), job["rows"])
            print(f"generated {job['dataset']} ({job['rows']} rows) in "
                  f"{time.perf_counter() - t0:.2f}s")
        t0 = time.perf_counter()
        tmp = path.with_suffix(".parquet.tmp")
        pq.write_table(tables[key], tmp, **job["options"])
        os.replace(tmp, path)
        info = inspect_footer(path)
        problems = _check_written(job, info)
        if problems:
            sys.exit(f"{path}: written with unexpected encodings:\n  " + "\n  ".join(problems))
        manifest["files"][job["name"]] = {
            "params": job["params"],
            "size": path.stat().st_size,
            "sha256": _sha256(path),
            "footer": info,
        }
        print(f"wrote    {path} ({path.stat().st_size / 1e6:.1f} MB, "
              f"{time.perf_counter() - t0:.2f}s)")
        # Manifest after every file, so an interrupted run keeps what it wrote.
        manifest_path.write_text(json.dumps(
            {**manifest, "files": {**old_files, **manifest["files"]}}, indent=1))
    manifest_path.write_text(json.dumps(manifest, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "data"),
                    help="output folder (default: bench/data)")
    ap.add_argument("--quick", action="store_true",
                    help=f"{QUICK_ROWS} rows for strings/numeric, written to OUT/quick")
    ap.add_argument("--force", action="store_true", help="rewrite every file")
    ap.add_argument("--verify", action="store_true",
                    help="check existing files against the manifest's sha256, not only size")
    args = ap.parse_args()
    generate(Path(args.out), args.quick, args.force, args.verify)


if __name__ == "__main__":
    main()
