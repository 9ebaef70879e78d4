"""Write the read-matrix Parquet files with pyarrow: every BYTE_ARRAY encoding x codec x data
page version for string and binary columns, and the fixed-width types under each of their
encodings.

Usage: make_matrix.py OUT_DIR

Deterministic (fixed seeds). Prints a JSON list of {"file", "kind", "encoding", "codec",
"page_version"} and checks, from each written footer, that the column chunks really use the
encoding the file is named for, so the matrix covers what it claims.
"""
import json
import os
import random
import sys
from datetime import date, datetime, timedelta
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

CODECS = ["NONE", "SNAPPY", "GZIP", "ZSTD", "LZ4", "BROTLI"]  # pyarrow's "LZ4" is LZ4_RAW
PAGE_VERSIONS = ["1.0", "2.0"]
BYTE_ARRAY_ENCODINGS = ["PLAIN", "RLE_DICTIONARY", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]

WORDS = ["é", "日本語", "🦀", "🎉 party", "naïve café", "Ωmega", "a", "abc", "category_007",
         "https://www.example3.com/path/to/resource/item/", "x" * 300]


def string_table(seed: int) -> pa.Table:
    rng = random.Random(seed)
    n = 2000
    s, r, b = [], [], []
    for i in range(n):
        x = rng.random()
        if x < 0.10:
            s.append(None)
        elif x < 0.15:
            s.append("")
        elif x < 0.45:
            s.append(rng.choice(WORDS))  # repeats: dictionary-friendly
        elif x < 0.75:
            # shared prefixes: DELTA_BYTE_ARRAY-friendly
            s.append(f"https://www.example{rng.randrange(50)}.com/path/to/resource/item/{rng.randrange(10**7)}")
        else:
            s.append("".join(rng.choice("abcdé日本🦀 ") for _ in range(rng.randrange(1, 40))))
        r.append(f"{i:08x}-{rng.getrandbits(32):08x}" if i % 7 else "")
        y = rng.random()
        if i % 200 == 17:
            b.append(rng.randbytes(rng.randrange(5 * 1024, 50 * 1024 + 1)))  # 5-50 KB blobs
        elif y < 0.10:
            b.append(None)
        elif y < 0.15:
            b.append(b"")
        else:
            b.append(rng.randbytes(rng.randrange(0, 40)))
    schema = pa.schema([
        pa.field("s", pa.string()),
        pa.field("r", pa.string(), nullable=False),
        pa.field("b", pa.binary()),
    ])
    return pa.Table.from_arrays([pa.array(s, pa.string()), pa.array(r, pa.string()),
                                 pa.array(b, pa.binary())], schema=schema)


def number_table(seed: int) -> pa.Table:
    rng = random.Random(seed)
    n = 3000

    def maybe(v):
        return None if rng.random() < 0.1 else v

    def runs(lo, hi):
        # mostly increasing with small steps, sometimes a jump: exercises delta bit widths
        out, v = [], rng.randrange(lo, hi)
        for _ in range(n):
            v = v + rng.randrange(-3, 10) if rng.random() < 0.9 else rng.randrange(lo, hi)
            v = max(lo, min(hi - 1, v))
            out.append(maybe(v))
        return out

    specials = [float("nan"), -0.0, 0.0, float("inf"), float("-inf"), 1e-300, -1.5]
    base = datetime(2020, 1, 1)
    columns = {
        "i32": pa.array(runs(-2**31, 2**31), pa.int32()),
        "i64": pa.array(runs(-2**63, 2**63), pa.int64()),
        "i32_small": pa.array([maybe(rng.randrange(0, 8)) for _ in range(n)], pa.int32()),
        "f32": pa.array([maybe(rng.choice(specials) if rng.random() < 0.05 else rng.uniform(-1e6, 1e6))
                         for _ in range(n)], pa.float32()),
        "f64": pa.array([maybe(rng.choice(specials) if rng.random() < 0.05 else rng.gauss(0, 1e9))
                         for _ in range(n)], pa.float64()),
        "bool": pa.array([maybe(rng.random() < 0.3) for _ in range(n)], pa.bool_()),
        "bool_req": pa.array([(i // 37) % 2 == 0 for i in range(n)], pa.bool_()),
        "ts_us": pa.array([maybe(base + timedelta(microseconds=rng.randrange(10**13)))
                           for _ in range(n)], pa.timestamp("us")),
        "ts_ms_utc": pa.array([maybe(rng.randrange(-10**12, 10**13)) for _ in range(n)],
                              pa.timestamp("ms", tz="UTC")),
        "date": pa.array([maybe(date(1970, 1, 1) + timedelta(days=rng.randrange(-20000, 40000)))
                          for _ in range(n)], pa.date32()),
        "dec9": pa.array([maybe(Decimal(rng.randrange(-10**9 + 1, 10**9)).scaleb(-2)) for _ in range(n)],
                         pa.decimal128(9, 2)),
        "dec30": pa.array([maybe(Decimal(rng.randrange(-10**30 + 1, 10**30)).scaleb(-5)) for _ in range(n)],
                          pa.decimal128(30, 5)),
        "i64_req": pa.array([rng.randrange(-1000, 1000) for _ in range(n)], pa.int64()),
    }
    fields = [pa.field(k, v.type, nullable=k not in ("bool_req", "i64_req")) for k, v in columns.items()]
    return pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))


# Which number columns take which encoding (the rest are PLAIN in that file).
NUMBER_ENCODINGS = {
    "PLAIN": [],
    "RLE_DICTIONARY": None,  # use_dictionary=True for every column
    "DELTA_BINARY_PACKED": ["i32", "i64", "i32_small", "ts_us", "ts_ms_utc", "date", "dec9", "i64_req"],
    "BYTE_STREAM_SPLIT": ["f32", "f64", "i32", "i64", "dec30", "i64_req"],
    "RLE": ["bool", "bool_req"],
}


def chunk_encodings(path: str, column: str) -> set:
    md = pq.ParquetFile(path).metadata
    idx = md.schema.names.index(column)
    out = set()
    for g in range(md.num_row_groups):
        out.update(md.row_group(g).column(idx).encodings)
    return out


def main() -> None:
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    files = []
    strings = string_table(7)
    numbers = number_table(11)
    common = dict(row_group_size=700, data_page_size=4096, write_batch_size=64)

    for encoding in BYTE_ARRAY_ENCODINGS:
        for codec in CODECS:
            for version in PAGE_VERSIONS:
                name = f"strings-{encoding}-{codec}-v{version[0]}.parquet"
                path = os.path.join(out_dir, name)
                if encoding == "RLE_DICTIONARY":
                    enc = dict(use_dictionary=True)
                else:
                    enc = dict(use_dictionary=False, column_encoding=encoding)
                pq.write_table(strings, path, compression=codec, data_page_version=version,
                               **enc, **common)
                for col in strings.column_names:
                    got = chunk_encodings(path, col)
                    want = {"RLE_DICTIONARY", "PLAIN_DICTIONARY"} if encoding == "RLE_DICTIONARY" else {encoding}
                    assert got & want, f"{name} column {col}: encodings {got}, wanted {want}"
                files.append(dict(file=name, kind="strings", encoding=encoding, codec=codec,
                                  page_version=version))

    for encoding, cols in NUMBER_ENCODINGS.items():
        for codec in ["NONE", "ZSTD", "SNAPPY"]:
            for version in PAGE_VERSIONS:
                name = f"numbers-{encoding}-{codec}-v{version[0]}.parquet"
                path = os.path.join(out_dir, name)
                if cols is None:
                    enc = dict(use_dictionary=True)
                else:
                    enc = dict(use_dictionary=False,
                               column_encoding={c: (encoding if c in cols else "PLAIN")
                                                for c in numbers.column_names})
                pq.write_table(numbers, path, compression=codec, data_page_version=version,
                               store_decimal_as_integer=True,
                               **enc, row_group_size=1000, data_page_size=2048, write_batch_size=128)
                checked = [c for c in numbers.column_names if not c.startswith("bool")]
                for col in checked if cols is None else cols:
                    got = chunk_encodings(path, col)
                    want = {"RLE_DICTIONARY", "PLAIN_DICTIONARY"} if cols is None else {encoding}
                    assert got & want, f"{name} column {col}: encodings {got}, wanted {want}"
                files.append(dict(file=name, kind="numbers", encoding=encoding, codec=codec,
                                  page_version=version))

    # Arrow types that only the stored ARROW:schema can restore (the reader must follow it as
    # pyarrow does), and a dictionary that overflows its page limit and falls back to PLAIN
    # in the middle of a column chunk.
    import datetime
    rng = random.Random(5)
    n = 3000
    words = [f"word-{i:03d}-\u00e9" for i in range(40)]
    arrow_types = pa.table({
        "dict_str": pa.array([None if i % 11 == 0 else rng.choice(words) for i in range(n)]).dictionary_encode(),
        "dict_int": pa.array([rng.randrange(50) for _ in range(n)], pa.int64()).dictionary_encode(),
        "large": pa.array([rng.choice(words) * (i % 3) for i in range(n)], pa.large_string()),
        "ts_tz": pa.array([1_700_000_000_000 + i * 1_000 for i in range(n)], pa.timestamp("ms", tz="Europe/Paris")),
        "ts_s": pa.array([1_700_000_000 + i for i in range(n)], pa.timestamp("s")),
        "dur": pa.array([i * 7 for i in range(n)], pa.duration("us")),
        "d64": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 500) for i in range(n)], pa.date64()),
        "u32": pa.array([(i * 2_654_435_761) % 2**32 for i in range(n)], pa.uint32()),
        "i8": pa.array([i % 256 - 128 for i in range(n)], pa.int8()),
    })
    name = "arrow-types.parquet"
    pq.write_table(arrow_types, os.path.join(out_dir, name), row_group_size=1000, data_page_size=4096)
    files.append(dict(file=name, kind="arrow", encoding="mixed", codec="SNAPPY", page_version="1.0"))

    fallback = pa.table({"s": pa.array([f"value-{rng.randrange(10**9):09d}" for _ in range(n)])})
    name = "dictionary-fallback.parquet"
    path = os.path.join(out_dir, name)
    pq.write_table(fallback, path, use_dictionary=True, dictionary_pagesize_limit=2048,
                   data_page_size=1024, write_batch_size=64)
    got = chunk_encodings(path, "s")
    assert "PLAIN" in got and got & {"RLE_DICTIONARY", "PLAIN_DICTIONARY"}, got
    files.append(dict(file=name, kind="strings", encoding="fallback", codec="SNAPPY", page_version="1.0"))

    json.dump(files, sys.stdout)


if __name__ == "__main__":
    main()
