"""The write cells of bench/peers.py (--mode write): pyarrow, polars and duckdb writing a
table held in memory as one Parquet file, with the settings of the input file.

The settings come from the input file's footer, as the Rust bench takes them
(bench/src/write_spec.rs): per column its codec (ZSTD at level 1) and either dictionary
encoding or the one encoding of its data pages; row groups as large as the input's largest;
v1 data pages of 1 MiB and 20,000 rows; a dictionary page limit of 1 GiB (no fallback);
statistics and the page index on. What each peer can be told:

  pyarrow  pq.write_table(table, pa.BufferOutputStream(), ...) with every setting above
           (compression, compression_level, use_dictionary, column_encoding when no column
           uses a dictionary, data_page_size, max_rows_per_page, row_group_size,
           dictionary_pagesize_limit, write_statistics, write_page_index,
           data_page_version='1.0', version='2.6'); write_batch_size left at its default
           (1,024 rows, as arrow-rs), pa.set_cpu_count(1) and set_io_thread_count(1).
  polars   df.write_parquet(BytesIO(), compression, compression_level, statistics=True,
           row_group_size, data_page_size, use_pyarrow=False), POLARS_MAX_THREADS=1. It
           cannot be told the encoding: it picks its own (cells with a DELTA input are n/a)
           and writes no page index.
  duckdb   COPY tbl TO '/dev/shm/...parquet' (FORMAT parquet, COMPRESSION, COMPRESSION_LEVEL,
           ROW_GROUP_SIZE, PARQUET_VERSION V1) with SET threads=1, from a duckdb table
           created from the Arrow table at setup. It picks its own encodings (and writes
           bloom filters, no page index). The file is removed before each run, untimed.

Each cell's setup loads the table into memory (pq.read_table, or the peer's own form of
it) before timing; after the timed runs the last file is read back with pyarrow and its
checksum compared with the input's, and its data page encodings are recorded.
"""

from __future__ import annotations

import inspect
import io
import os
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datasets  # noqa: E402  (the footer reader)

IMPLS = ["pyarrow", "polars", "duckdb"]
DATA_PAGE_SIZE = 1 << 20
DATA_PAGE_ROWS = 20_000
DICT_PAGE_LIMIT = 1 << 30
ZSTD_LEVEL = 1
_DICT = ("RLE_DICTIONARY", "PLAIN_DICTIONARY")
_PYARROW_CODEC = {"UNCOMPRESSED": "none", "SNAPPY": "snappy", "ZSTD": "zstd"}


class Skip(Exception):
    """The peer cannot write with these settings: the cell is n/a."""


def write_spec(path: str) -> dict:
    """{"columns": {name: {"codec", "dictionary", "encoding"}}, "row_group_rows"} from
    the input's footer (data page encodings from its encoding_stats)."""
    md = pq.ParquetFile(path).metadata
    pages = datasets.inspect_footer(Path(path))["row_groups"][0]["columns"]
    rg = md.row_group(0)
    columns = {}
    for j in range(rg.num_columns):
        c = rg.column(j)
        name = c.path_in_schema
        encs = {k.split(":")[1] for k in pages[name]["pages"] if k.startswith("DATA_PAGE")}
        dictionary = bool(encs & set(_DICT))
        if len(encs) != 1:
            raise ValueError(f"{path}: column {name} mixes data page encodings {encs}")
        columns[name] = {"codec": c.compression, "dictionary": dictionary,
                         "encoding": "PLAIN" if dictionary else encs.pop()}
    rows = max(md.row_group(i).num_rows for i in range(md.num_row_groups))
    return {"columns": columns, "row_group_rows": rows}


def expected_encodings(spec: dict) -> dict:
    return {n: ["RLE_DICTIONARY" if c["dictionary"] else c["encoding"]]
            for n, c in spec["columns"].items()}


def _one_codec(spec: dict) -> str:
    codecs = {c["codec"] for c in spec["columns"].values()}
    if len(codecs) != 1:
        raise Skip(f"the input mixes codecs {sorted(codecs)}")
    return codecs.pop()


def pyarrow_options(spec: dict) -> dict:
    cols = spec["columns"]
    codec = _one_codec(spec)
    dict_cols = [n for n, c in cols.items() if c["dictionary"]]
    kw = dict(
        version="2.6",
        data_page_version="1.0",
        compression=_PYARROW_CODEC[codec],
        compression_level=ZSTD_LEVEL if codec == "ZSTD" else None,
        use_dictionary=True if len(dict_cols) == len(cols) else (dict_cols or False),
        data_page_size=DATA_PAGE_SIZE,
        row_group_size=spec["row_group_rows"],
        dictionary_pagesize_limit=DICT_PAGE_LIMIT,
        write_statistics=True,
        write_page_index=True,
    )
    if not dict_cols:
        kw["column_encoding"] = {n: c["encoding"] for n, c in cols.items()}
    if "max_rows_per_page" in inspect.signature(pq.write_table).parameters:
        kw["max_rows_per_page"] = DATA_PAGE_ROWS
    return kw


def output_checks(buf, spec: dict, table_checksum) -> dict:
    """Size, footer shape and checksum (peers.table_checksum) of a written file held in
    memory."""
    data = memoryview(buf)
    out = {"output_file_bytes": len(data)}
    info = datasets.inspect_footer_bytes(data)
    md = pq.ParquetFile(pa.BufferReader(pa.py_buffer(data))).metadata
    encodings: dict[str, set] = {}
    data_pages = 0
    page_index = True
    for g, rg in enumerate(info["row_groups"]):
        for j, (name, c) in enumerate(rg["columns"].items()):
            encs = {k.split(":")[1] for k in c["pages"] if k.startswith("DATA_PAGE")}
            if encs and data_pages is not None:
                data_pages += sum(v for k, v in c["pages"].items() if k.startswith("DATA_PAGE"))
            else:
                data_pages = None  # no encoding_stats: the count is not in the footer
            if not encs:  # no encoding_stats: the chunk's encodings less the level encodings
                chunk = md.row_group(g).column(j)
                encs = set(chunk.encodings) - {"RLE", "BIT_PACKED"}
                if chunk.has_dictionary_page and encs & set(_DICT):
                    encs.discard("PLAIN")
            chunk = md.row_group(g).column(j)
            page_index &= bool(getattr(chunk, "has_offset_index", True)
                               and getattr(chunk, "has_column_index", True))
            encodings.setdefault(name, set()).update(
                "RLE_DICTIONARY" if e in _DICT else e for e in encs)
    want = expected_encodings(spec)
    out["row_groups"] = md.num_row_groups
    out["data_pages"] = data_pages
    out["page_index"] = page_index
    out["data_page_encodings"] = {n: sorted(e) for n, e in encodings.items()}
    out["encodings_ok"] = {n: sorted(e) for n, e in encodings.items()} == want
    table = pq.read_table(pa.BufferReader(pa.py_buffer(data)))
    out["rows"] = table.num_rows
    out["checksum"] = table_checksum(table)
    return out


def setup(impl: str, path: str, table_checksum):
    """(write(), reset() or None, finish(result) -> checks, info) for one peer on one file;
    finish checks the file the last write() returned (table_checksum: peers.py's)."""
    spec = write_spec(path)
    codec = _one_codec(spec)
    info = {"settings": spec, "expected_encodings": expected_encodings(spec)}
    if impl == "pyarrow":
        pa.set_cpu_count(1)
        pa.set_io_thread_count(1)
        table = pq.read_table(path)
        kw = pyarrow_options(spec)
        info.update(version=pa.__version__, options={k: v for k, v in kw.items()},
                    sink="pa.BufferOutputStream() per run")

        def write():
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, **kw)
            return sink.getvalue()

        return write, None, lambda buf: output_checks(buf, spec, table_checksum), info
    if impl == "polars":
        import polars as pl
        delta = [n for n, c in spec["columns"].items()
                 if not c["dictionary"] and c["encoding"].startswith("DELTA")]
        if delta:
            raise Skip("polars cannot choose DELTA encodings")
        df = pl.from_arrow(pq.read_table(path), rechunk=False)
        kw = dict(compression={"UNCOMPRESSED": "uncompressed", "SNAPPY": "snappy",
                               "ZSTD": "zstd"}[codec],
                  compression_level=ZSTD_LEVEL if codec == "ZSTD" else None,
                  statistics=True, row_group_size=spec["row_group_rows"],
                  data_page_size=DATA_PAGE_SIZE, use_pyarrow=False)
        info.update(version=pl.__version__, threads=pl.thread_pool_size(), options=kw,
                    encodings="its own (polars has no encoding option)",
                    sink="io.BytesIO() per run")

        def write():
            sink = io.BytesIO()
            df.write_parquet(sink, **kw)
            return sink

        return write, None, lambda sink: output_checks(sink.getbuffer(), spec, table_checksum), info
    if impl == "duckdb":
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads=1")
        con.register("input_arrow", pq.read_table(path))
        con.execute("CREATE TABLE tbl AS SELECT * FROM input_arrow")
        con.unregister("input_arrow")
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        out = os.path.join(folder, f"parquetry-bench-duckdb-{os.getpid()}.parquet")
        options = ["FORMAT parquet", f"COMPRESSION {codec.lower()}",
                   f"ROW_GROUP_SIZE {spec['row_group_rows']}", "PARQUET_VERSION V1"]
        if codec == "ZSTD":
            options.append(f"COMPRESSION_LEVEL {ZSTD_LEVEL}")
        sql = f"COPY tbl TO '{out}' ({', '.join(options)})"
        threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
        info.update(version=duckdb.__version__, threads=threads, sql=sql,
                    encodings="its own (duckdb has no per-column encoding option)",
                    sink=f"a file in {folder} (tmpfs), removed before each run")

        def reset():
            if os.path.exists(out):
                os.remove(out)

        def write():
            con.execute(sql)
            return out

        def finish(p):
            data = Path(p).read_bytes()
            os.remove(p)
            return output_checks(data, spec, table_checksum)

        return write, reset, finish, info
    raise ValueError(f"unknown write implementation {impl!r}")
