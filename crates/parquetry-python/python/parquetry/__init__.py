"""parquetry: fast Apache Parquet reading, writing and merging for Python.

The calls have the shapes of ``pyarrow.parquet``'s, and Arrow data crosses between Rust and
Python through the Arrow PyCapsule interface: buffers are handed over, never copied. Results
are pyarrow objects; the readers also expose ``__arrow_c_stream__`` so polars, duckdb or any
other Arrow consumer can take the data directly.

>>> import parquetry
>>> table = parquetry.read_table("data.parquet", columns=["id", "name"])   # doctest: +SKIP
>>> parquetry.write_table(table, "out.parquet", compression="zstd")         # doctest: +SKIP
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pyarrow as pa

from . import _parquetry as _native
from ._errors import (
    ArgumentTypeError,
    CorruptFileError,
    InvalidArgumentError,
    ParquetError,
    ParquetIOError,
    UnsupportedError,
)

__version__ = _native.__version__

__all__ = [
    "ArgumentTypeError",
    "BatchReader",
    "CorruptFileError",
    "InvalidArgumentError",
    "ParquetError",
    "ParquetFile",
    "ParquetIOError",
    "UnsupportedError",
    "merge",
    "read_table",
    "write_table",
]


def _threads(threads):
    """``True``: every core; ``False``: one; an int: that many."""
    if threads is True:
        return _native.available_threads()
    if threads is False or threads is None:
        return 1
    if isinstance(threads, int) and threads > 0:
        return threads
    raise InvalidArgumentError(f"threads must be True, False or a positive int, not {threads!r}")


def _columns(columns):
    if columns is None:
        return None
    if isinstance(columns, (str, bytes)):
        raise ArgumentTypeError("columns must be a list of names or positions, not a single string")
    return list(columns)


def _row_groups(row_groups):
    return None if row_groups is None else [int(i) for i in row_groups]


def _open(source):
    """A native file over a path, bytes-like object or binary file object."""
    if isinstance(source, (str, os.PathLike)):
        return _native.open_path(os.fsdecode(source))
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _native.open_bytes(source)
    if hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentTypeError(
                f"the file object's read() gave {type(data).__name__}; open the file in binary mode"
            )
        return _native.open_bytes(data)
    try:
        view = memoryview(source)  # pyarrow.Buffer, numpy arrays, ...
    except TypeError:
        raise ArgumentTypeError(
            "source must be a path, a bytes-like object or a binary file object, "
            f"not {type(source).__name__}"
        ) from None
    return _native.open_bytes(view)


class BatchReader:
    """Record batches of a Parquet file, decoded as they are asked for.

    Iterate it for ``pyarrow.RecordBatch``es, or hand it whole to any Arrow consumer through
    ``__arrow_c_stream__`` (``pa.RecordBatchReader.from_stream(r)``, ``pa.table(r)``,
    ``polars.from_arrow(r)``). Like every stream it can be read once.
    """

    def __init__(self, stream):
        self._stream = stream

    def __arrow_c_stream__(self, requested_schema=None):
        return self._stream.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self._stream.__arrow_c_schema__()

    @property
    def schema(self) -> pa.Schema:
        """The schema of the batches."""
        return pa.Schema._import_from_c_capsule(self._stream.__arrow_c_schema__())

    def __iter__(self):
        return self

    def __next__(self) -> pa.RecordBatch:
        batch = self._stream.next_batch()
        if batch is None:
            raise StopIteration
        return pa.record_batch(batch)

    def read_next_batch(self) -> pa.RecordBatch:
        """The next batch; ``StopIteration`` at the end (as pyarrow's reader)."""
        return self.__next__()

    def read_all(self) -> pa.Table:
        """The rest of the batches as one table."""
        return pa.Table.from_batches(list(self), schema=self.schema)


def _table(stream) -> pa.Table:
    return pa.RecordBatchReader._import_from_c_capsule(stream.__arrow_c_stream__()).read_all()


class ParquetFile:
    """An open Parquet file: metadata, schema, and reads of all or part of it.

    ``source`` is a path (``str`` or ``os.PathLike``), a bytes-like object, or a binary file
    object (read into memory). The footer is decoded once; every read shares the open file.
    Usable as a context manager.
    """

    def __init__(self, source):
        self._raw = _open(source)
        self._metadata = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        """Releases the file (reads after this raise ``InvalidArgumentError``)."""
        self._raw = None

    def _file(self):
        if self._raw is None:
            raise InvalidArgumentError("the ParquetFile is closed")
        return self._raw

    @property
    def metadata(self) -> dict:
        """The footer as plain values: ``num_rows``, ``num_row_groups``, ``created_by``,
        ``version``, ``key_value_metadata`` (dict) and ``row_groups``, a list of dicts with
        ``num_rows``, sizes and ``columns``: per column chunk ``path_in_schema``,
        ``physical_type``, ``encodings``, ``compression``, ``num_values``, compressed and
        uncompressed sizes, offsets, and ``statistics`` (``min``/``max`` as the stored
        PLAIN-encoded bytes, ``null_count``, ``distinct_count``) or ``None``."""
        if self._metadata is None:
            self._metadata = self._file().metadata()
        return self._metadata

    @property
    def schema_arrow(self) -> pa.Schema:
        """The Arrow schema the file reads as."""
        return pa.Schema._import_from_c_capsule(self._file().schema().__arrow_c_schema__())

    @property
    def num_row_groups(self) -> int:
        """Number of row groups."""
        return self._file().num_row_groups()

    def read(self, columns=None, row_groups=None, threads=True, binary_type=None) -> pa.Table:
        """Reads the selected columns (names or positions) and row groups as a table.

        ``threads``: ``True`` decodes on every core, ``False`` on one, an int on that many.
        ``binary_type`` overrides the type of every string/binary column: ``"binary"``
        (Utf8/Binary), ``"large_binary"``, ``"binary_view"`` or ``"dictionary"``.
        """
        stream = self._file().read_all(
            _columns(columns), _row_groups(row_groups), _threads(threads), binary_type
        )
        return _table(stream)

    def read_row_group(self, i, columns=None, threads=True, binary_type=None) -> pa.Table:
        """Reads row group ``i`` as a table."""
        return self.read(columns=columns, row_groups=[i], threads=threads, binary_type=binary_type)

    def iter_batches(
        self, batch_size=65536, columns=None, row_groups=None, threads=True, binary_type=None
    ) -> BatchReader:
        """Batches of ``batch_size`` rows, decoded one at a time as they are asked for."""
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidArgumentError(f"batch_size must be a positive int, not {batch_size!r}")
        stream = self._file().stream(
            _columns(columns), _row_groups(row_groups), _threads(threads), binary_type, batch_size
        )
        return BatchReader(stream)


def read_table(source, columns=None, row_groups=None, threads=True, binary_type=None) -> pa.Table:
    """Reads a Parquet file as a ``pyarrow.Table`` (see ``ParquetFile.read``)."""
    return ParquetFile(source).read(
        columns=columns, row_groups=row_groups, threads=threads, binary_type=binary_type
    )


def _per_column(value, name, kind):
    """``value`` as ``(default, {column: setting})`` for options that are one setting or a dict."""
    if isinstance(value, dict):
        return None, {str(k): v for k, v in value.items()}
    if value is None or isinstance(value, kind):
        return value, {}
    raise ArgumentTypeError(f"{name} must be a {kind.__name__} or a dict of them, not {type(value).__name__}")


def _columns_or_all(value, name):
    """A bool for every column, or a list of the columns it is true for, as
    ``(default, {column: True})``."""
    if isinstance(value, bool):
        return value, {}
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ArgumentTypeError(f"{name} must be a bool or a list of column names, not {type(value).__name__}")
    columns = list(value)
    if not all(isinstance(c, str) for c in columns):
        raise ArgumentTypeError(f"{name} must be a bool or a list of column names (str)")
    return False, {c: True for c in columns}


def write_table(
    data,
    where,
    compression="snappy",
    compression_level=None,
    row_group_size=None,
    use_dictionary=True,
    data_page_version="1.0",
    write_statistics=True,
    write_page_index=True,
    column_encoding=None,
    threads=True,
) -> None:
    """Writes Arrow data to a Parquet file.

    ``data``: anything with ``__arrow_c_stream__`` or ``__arrow_c_array__`` (a pyarrow Table,
    RecordBatch or RecordBatchReader, a polars DataFrame, ...), consumed batch by batch.
    ``where``: a path, or a binary file object (the file is written beside a temporary path
    and copied into it). A path is written through a temporary file renamed into place, so it
    never holds a partial file.

    ``compression``: a codec name (``none``, ``snappy``, ``gzip``, ``brotli``, ``lz4``,
    ``lz4_raw``, ``lz4_hadoop``, ``zstd``) or a dict of them by column. ``use_dictionary``:
    bool or a list of the columns to dictionary-encode. ``column_encoding``: an encoding name
    for every column, or a dict by column (turns the dictionary off for those columns).
    ``write_statistics``: bool, or a list of the columns that get statistics (min/max and
    null counts in the chunk metadata, page headers and column index).
    ``data_page_version``: ``"1.0"`` or ``"2.0"``. ``threads``: ``True`` encodes and
    compresses columns on every core, ``False`` on one, an int on that many; the file is the
    same byte for byte.
    """
    if not (hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")):
        raise ArgumentTypeError(
            "data must be Arrow data (an object with __arrow_c_stream__ or __arrow_c_array__, "
            f"such as a pyarrow Table or a polars DataFrame), not {type(data).__name__}"
        )
    default_codec, column_codecs = _per_column(compression, "compression", str)
    if default_codec is None:
        default_codec = "none"
    dictionary, column_dictionary = _columns_or_all(use_dictionary, "use_dictionary")
    encoding_all, column_encodings = _per_column(column_encoding, "column_encoding", str)
    statistics, column_statistics = _columns_or_all(write_statistics, "write_statistics")
    args = (
        default_codec, column_codecs, compression_level, row_group_size, dictionary,
        column_dictionary, str(data_page_version), statistics, column_statistics,
        bool(write_page_index), encoding_all, column_encodings, _threads(threads),
    )
    if isinstance(where, (str, os.PathLike)):
        _native.write_table(data, os.fsdecode(where), *args)
        return
    if not hasattr(where, "write"):
        raise ArgumentTypeError(f"where must be a path or a binary file object, not {type(where).__name__}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.parquet")
        _native.write_table(data, path, *args)
        with open(path, "rb") as f:
            shutil.copyfileobj(f, where)


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
