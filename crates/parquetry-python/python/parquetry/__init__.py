"""parquetry: fast Apache Parquet reading, writing and merging for Python.

A drop-in for ``pyarrow.parquet``: ``import parquetry as pq`` in place of
``import pyarrow.parquet as pq`` keeps pyarrow's names, parameters, defaults and exception
types (see ``docs/python.md`` for what differs). Arrow data crosses between Rust and Python
through the Arrow PyCapsule interface: buffers are handed over, never copied. Results are
pyarrow objects; the readers also expose ``__arrow_c_stream__`` so polars, duckdb or any
other Arrow consumer can take the data directly. parquetry adds ``threads`` for writing,
``binary_type`` names, ``merge`` and any Arrow stream as input.

>>> import parquetry as pq
>>> table = pq.read_table("data.parquet", columns=["id", "name"])   # doctest: +SKIP
>>> pq.write_table(table, "out.parquet", compression="zstd")         # doctest: +SKIP
"""

from __future__ import annotations

import os

from . import _parquetry as _native
from ._errors import (
    ArgumentTypeError,
    CorruptFileError,
    DirectoryError,
    InvalidArgumentError,
    MissingFileError,
    ParquetError,
    ParquetIOError,
    UnsupportedError,
    WriteOptionsError,
)
from ._dataset import ParquetDataset, compact, write_to_dataset
from ._filters import filters_to_expression
from ._footer import FileMetaData
from ._statistics import GeoStatistics
from ._metadata import (
    ColumnChunkMetaData,
    ColumnSchema,
    ParquetLogicalType,
    ParquetSchema,
    RowGroupMetaData,
    SortingColumn,
    Statistics,
)
from ._read import BatchReader, ParquetFile, read_metadata, read_pandas, read_schema, read_table
from ._read import _threads
from ._write import ParquetWriter, write_metadata, write_table

__version__ = _native.__version__

__all__ = [
    "ArgumentTypeError",
    "BatchReader",
    "ColumnChunkMetaData",
    "ColumnSchema",
    "CorruptFileError",
    "DirectoryError",
    "FileMetaData",
    "GeoStatistics",
    "InvalidArgumentError",
    "MissingFileError",
    "ParquetError",
    "ParquetDataset",
    "ParquetFile",
    "ParquetIOError",
    "ParquetLogicalType",
    "ParquetSchema",
    "ParquetWriter",
    "RowGroupMetaData",
    "SortingColumn",
    "Statistics",
    "UnsupportedError",
    "WriteOptionsError",
    "compact",
    "filters_to_expression",
    "merge",
    "read_metadata",
    "read_pandas",
    "read_schema",
    "read_table",
    "write_metadata",
    "write_table",
    "write_to_dataset",
]


def merge(inputs, output, row_group_rows=None, compression=None, compression_level=None, threads=True) -> dict:
    """Merges Parquet files with the same schema into ``output`` by copying their pages
    (values are not decoded; dictionaries are unified). Small row groups are coalesced up to
    ``row_group_rows`` rows; ``compression`` recompresses every page with that codec.
    ``threads``: with more than one (``True``: every core), the output is written by a thread
    of its own while pages are copied.
    Returns what was done: rows, files, row groups in/out/copied, bytes, pages."""
    if isinstance(inputs, (str, os.PathLike)):
        raise ArgumentTypeError("inputs must be a list of paths")
    paths = [os.fsdecode(p) for p in inputs]
    return _native.merge(
        paths, os.fsdecode(output), row_group_rows, compression, compression_level, _threads(threads)
    )
