"""Reading: ``ParquetFile``, ``read_table``, ``read_pandas``, ``read_schema`` and
``read_metadata`` with ``pyarrow.parquet``'s parameters, over the native reader.

What the native reader does not do yet is done here on the table it returns, exactly as
pyarrow's result would be: ``read_dictionary`` (dictionary-encodes the named columns),
``filters`` given as a ``pyarrow.compute.Expression`` with calls the native filter lacks
or with values that have no exact native form (rows filtered after reading; DNF lists and
the other Expressions are pushed down), ``schema`` (columns selected and
cast), ``coerce_int96_timestamp_unit`` and a ``pyarrow.DataType`` as ``binary_type``.
"""

from __future__ import annotations

import functools
import os

import pyarrow as pa

from . import _io
from . import _parquetry as _native
from ._errors import ArgumentTypeError, InvalidArgumentError, UnsupportedError
from ._filters import split_filters
from ._batches import BatchReader
from ._footer import FileMetaData, _check_footer_limits
from ._read_types import _cast, _pandas_index_columns, _table, _target_schema


@functools.lru_cache(maxsize=1)
def _cores() -> int:
    """The number of cores (asked once: the native call reads cgroup limits)."""
    return _native.available_threads()


def _threads(threads):
    """``True``: every core; ``False``: one; an int: that many."""
    if threads is True:
        return _cores()
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


def _native_binary_type(binary_type):
    """parquetry's ``binary_type`` names pass through; a pyarrow DataType (pyarrow's form,
    for binary columns only) is applied after reading."""
    return binary_type if isinstance(binary_type, str) else None

class ParquetFile:
    """An open Parquet file: metadata, schema, and reads of all or part of it (pyarrow's
    ``ParquetFile``).

    ``source`` is a path (``str``, ``os.PathLike`` or ``file://`` URI), a bytes-like object,
    or a binary file object (read into memory). The footer is decoded once; every read
    shares the open file. Usable as a context manager.

    pyarrow's parameters: ``read_dictionary`` (columns read as dictionaries),
    ``binary_type`` (a DataType for binary columns; parquetry also takes ``"binary"``,
    ``"large_binary"``, ``"binary_view"`` or ``"dictionary"`` for every string/binary
    column), ``coerce_int96_timestamp_unit``, ``filesystem``, ``arrow_extensions_enabled``
    (JSON and UUID columns as ``arrow.json``/``arrow.uuid``), ``page_checksum_verification``
    (pages with a CRC are checked), ``memory_map`` (a local file is mapped: no copy of its
    bytes, and, as with pyarrow, the file must not be truncated or rewritten while the table
    read from it is alive). ``metadata``, ``common_metadata``, ``buffer_size`` and
    ``pre_buffer`` are accepted and change nothing (the footer is the file's own; IO is
    parquetry's). The footer limits
    (``thrift_string_size_limit``: longest string; ``thrift_container_size_limit``: longest
    list; ``schema_depth_limit``: deepest schema nesting, the root counting 1) refuse a file
    past them, as pyarrow's.
    ``decryption_properties`` raises ``NotImplementedError``.

    ``source`` may be an object store URL (``s3://bucket/key``, ``gs://``, ``az://``,
    ``abfs[s]://``, ``http(s)://``), read with parquetry's own client: ``storage_options``
    (a dict as polars and deltalake take it: ``aws_endpoint_url``, ``aws_region``,
    ``aws_access_key_id``, ``aws_secret_access_key``, ``allow_http``, ...) over the
    environment's ``AWS_*`` settings. The footer costs one request, and the selected columns
    of each row group are fetched as few merged ranges.
    """

    def __init__(self, source, *, metadata=None, common_metadata=None, read_dictionary=None,
                 binary_type=None, list_type=None, memory_map=False, buffer_size=0, pre_buffer=False,
                 coerce_int96_timestamp_unit=None, decryption_properties=None,
                 thrift_string_size_limit=None, thrift_container_size_limit=None, filesystem=None,
                 page_checksum_verification=False, arrow_extensions_enabled=True, schema_depth_limit=None,
                 storage_options=None):
        if decryption_properties is not None:
            raise UnsupportedError("decryption_properties: encrypted files are not supported yet")
        if list_type not in (None, pa.ListType, pa.LargeListType):
            raise ArgumentTypeError(f"Unexpected list_type: {list_type!r}")
        self._list_type = list_type
        self._raw = _io.open_native(source, filesystem, storage_options, memory_map)
        if thrift_string_size_limit or thrift_container_size_limit or schema_depth_limit:
            _check_footer_limits(self._raw, thrift_string_size_limit, thrift_container_size_limit,
                                 schema_depth_limit)
        self._source_file = source if hasattr(source, "read") else None
        self._metadata = None
        self._read_dictionary = list(read_dictionary or ())
        self._binary_type = binary_type
        self._int96_unit = coerce_int96_timestamp_unit
        self._extensions = arrow_extensions_enabled
        self._verify_crc = bool(page_checksum_verification)
        self._target = None
        self._native = None
        self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self, force: bool = False) -> None:
        """Releases the file (reads after this raise ``InvalidArgumentError``). A file
        object the caller opened stays open, as with pyarrow."""
        self._raw = None
        self._closed = True

    @property
    def closed(self) -> bool:
        """Whether the file is closed: for a file object the caller passed, whether that
        object is (pyarrow's meaning); otherwise whether ``close()`` was called."""
        if self._source_file is not None:
            return bool(getattr(self._source_file, "closed", False))
        return self._closed

    def _file(self):
        if self._raw is None:
            raise InvalidArgumentError("the ParquetFile is closed")
        return self._raw

    @property
    def metadata(self) -> FileMetaData:
        """The footer (``FileMetaData``; ``metadata.to_dict()`` for plain values)."""
        if self._metadata is None:
            self._metadata = FileMetaData._make(self._file().metadata(), lambda: self.schema_arrow)
        return self._metadata

    @property
    def schema(self):
        """The Parquet schema (``ParquetSchema``)."""
        return self.metadata.schema

    def _native_schema(self) -> pa.Schema:
        if self._native is None:
            self._native = pa.Schema._import_from_c_capsule(self._file().schema().__arrow_c_schema__())
        return self._native

    @property
    def schema_arrow(self) -> pa.Schema:
        """The Arrow schema the file reads as."""
        return self._target_schema()

    @property
    def num_row_groups(self) -> int:
        """Number of row groups."""
        return self._file().num_row_groups()

    def _with_index(self, columns, use_pandas_metadata):
        columns = _columns(columns)
        if columns is None:
            return None
        columns = list(dict.fromkeys(columns))  # a column named twice is read once, as pyarrow
        if not use_pandas_metadata:
            return columns
        return columns + [c for c in _pandas_index_columns(self._target_schema()) if c not in columns]

    def _target_schema(self) -> pa.Schema:
        """The schema pyarrow would read the file as: the native schema with the file's
        key/value metadata, ``read_dictionary``, a DataType ``binary_type``, the INT96 unit
        and the JSON/UUID extension types applied."""
        if self._target is None:
            self._target = _target_schema(self)
        return self._target

    def _convert(self, data):
        """``data`` (a table or batch of the native reader) as ``_target_schema`` says."""
        target = self._target_schema()
        native = self._native_schema()
        fields = []
        for f in data.schema:
            # Only the columns _target_schema changes are cast; others keep the type they
            # were read as (e.g. a parquetry binary_type name, applied by the reader).
            if f.name in target.names and target.field(f.name).type != native.field(f.name).type:
                f = target.field(f.name)
            fields.append(f)
        want = pa.schema(fields, metadata=target.metadata)
        if want.equals(data.schema, check_metadata=True):
            return data
        columns = [col if col.type == f.type else _cast(col, f.type) for col, f in zip(data.columns, want)]
        cls = pa.Table if isinstance(data, pa.Table) else pa.RecordBatch
        return cls.from_arrays(columns, schema=want)

    def read(self, columns=None, use_threads=True, use_pandas_metadata=False, *, row_groups=None,
             threads=None, binary_type=None, filters=None) -> pa.Table:
        """Reads the selected columns (names or positions) and row groups as a table.

        ``use_threads`` (pyarrow's) or ``threads`` (parquetry's: ``True`` every core,
        ``False`` one, an int that many). ``binary_type`` as in the constructor.
        ``use_pandas_metadata`` adds the pandas index columns to ``columns``.
        ``filters`` (parquetry's; pyarrow's ``read_table`` form) keeps the matching rows: DNF
        lists are pushed down into the read (row groups, pages and rows skipped by statistics,
        dictionaries, bloom filters and the page index), and so are Expressions made of
        calls the native filter has (``_filters.py``); any other Expression, or a value with
        no exact native form, is applied to the rows read. A ``str`` is a condition in the
        language of ``parquetry cat --where`` (docs/filter.md), pushed down.
        """
        threads = use_threads if threads is None else threads
        binary_type = self._binary_type if binary_type is None else binary_type
        condition, expression = split_filters(filters)
        wanted = _columns(self._with_index(columns, use_pandas_metadata))
        if expression is not None and wanted is not None:
            # The expression may name columns not selected: read every column, then select.
            names = self._native_schema().names
            wanted = [names[c] if isinstance(c, int) and 0 <= c < len(names) else c for c in wanted]
            table = self.read(None, threads=threads, row_groups=row_groups, binary_type=binary_type,
                              filters=condition)
            return table.filter(expression).select(wanted)
        stream = self._file().read_all(
            wanted, _row_groups(row_groups), _threads(threads), _native_binary_type(binary_type),
            self._verify_crc, self._int96_unit, condition,
        )
        table = self._convert(_table(stream))
        return table if expression is None else table.filter(expression)

    def read_row_group(self, i, columns=None, use_threads=True, use_pandas_metadata=False, **kwargs) -> pa.Table:
        """Reads row group ``i`` as a table."""
        return self.read(columns, use_threads, use_pandas_metadata, row_groups=[i], **kwargs)

    def read_row_groups(self, row_groups, columns=None, use_threads=True, use_pandas_metadata=False,
                        **kwargs) -> pa.Table:
        """Reads the given row groups as one table."""
        return self.read(columns, use_threads, use_pandas_metadata, row_groups=row_groups, **kwargs)

    def iter_batches(self, batch_size=65536, row_groups=None, columns=None, use_threads=True,
                     use_pandas_metadata=False, *, threads=None, binary_type=None) -> BatchReader:
        """Batches of ``batch_size`` rows, decoded one at a time as they are asked for."""
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidArgumentError(f"batch_size must be a positive int, not {batch_size!r}")
        threads = use_threads if threads is None else threads
        binary_type = self._binary_type if binary_type is None else binary_type
        stream = self._file().stream(
            _columns(self._with_index(columns, use_pandas_metadata)), _row_groups(row_groups),
            _threads(threads), _native_binary_type(binary_type), batch_size, self._verify_crc,
            self._int96_unit,
        )
        return BatchReader(stream, self._convert, batch_size)

    def scan_contents(self, columns=None, batch_size=65536) -> int:
        """Reads the selected columns through and returns the number of rows."""
        return sum(b.num_rows for b in self.iter_batches(batch_size=batch_size, columns=columns))


def read_table(source, *, columns=None, use_threads=True, schema=None, use_pandas_metadata=False,
               read_dictionary=None, binary_type=None, list_type=None, memory_map=False, buffer_size=0,
               partitioning="hive", filesystem=None, filters=None, ignore_prefixes=None, pre_buffer=True,
               coerce_int96_timestamp_unit=None, decryption_properties=None, thrift_string_size_limit=None,
               thrift_container_size_limit=None, page_checksum_verification=False,
               arrow_extensions_enabled=True, schema_depth_limit=None, row_groups=None,
               threads=None, storage_options=None) -> pa.Table:
    """Reads a Parquet file, or a dataset (a folder, a glob or a list of files, with hive
    partitions: see ``ParquetDataset``), as a ``pyarrow.Table`` (pyarrow's ``read_table``).

    ``filters`` (DNF lists or a ``pyarrow.compute.Expression``) keep the matching rows. DNF
    filters are pushed down (files pruned by partition values; row groups, pages and rows by
    statistics, dictionaries, bloom filters and the page index; the other columns decoded
    only at matching rows), as are Expressions made of calls the native filter has; any
    other Expression, or a DNF value with no exact native form (a timezone-aware datetime, a
    NaN), is applied after reading. parquetry also takes a
    condition as text, pushed down too: ``filters="s LIKE 'ab%' AND x IS NOT NULL"`` (the
    language of ``parquetry cat --where``, docs/filter.md). ``schema``
    selects and casts columns. ``storage_options``: for object store URLs (``s3://...``),
    see ``ParquetFile``. See ``ParquetFile`` for the rest.
    """
    from ._dataset import is_dataset_source, read_dataset

    if is_dataset_source(source, filesystem):
        if row_groups is not None:
            raise InvalidArgumentError("row_groups selects row groups of one file, not of a dataset")
        return read_dataset(source, columns=columns, use_threads=use_threads, schema=schema,
                            use_pandas_metadata=use_pandas_metadata, read_dictionary=read_dictionary,
                            binary_type=binary_type, partitioning=partitioning, filesystem=filesystem,
                            filters=filters, ignore_prefixes=ignore_prefixes, threads=threads,
                            storage_options=storage_options,
                            coerce_int96_timestamp_unit=coerce_int96_timestamp_unit)
    pf = ParquetFile(source, read_dictionary=read_dictionary, binary_type=binary_type, list_type=list_type,
                     coerce_int96_timestamp_unit=coerce_int96_timestamp_unit,
                     decryption_properties=decryption_properties, filesystem=filesystem,
                     storage_options=storage_options, page_checksum_verification=page_checksum_verification,
                     arrow_extensions_enabled=arrow_extensions_enabled,
                     thrift_string_size_limit=thrift_string_size_limit,
                     thrift_container_size_limit=thrift_container_size_limit,
                     schema_depth_limit=schema_depth_limit, memory_map=memory_map)
    condition, expression = split_filters(filters)
    wanted = _columns(columns)
    if wanted is not None and any(isinstance(c, int) for c in wanted):
        names = pf.schema_arrow.names
        wanted = [names[c] if isinstance(c, int) and 0 <= c < len(names) else c for c in wanted]
    if schema is not None and columns is None:
        wanted = schema.names
    # Filters may name columns not selected: read every column, filter, then select.
    read_columns = None if expression is not None else wanted
    if schema is not None and read_columns is not None:
        present = set(pf.schema_arrow.names)
        read_columns = [c for c in read_columns if c in present]
    table = pf.read(read_columns, use_threads, use_pandas_metadata, row_groups=row_groups, threads=threads,
                    filters=condition)
    if expression is not None:
        table = table.filter(expression)
    if wanted is not None and (expression is not None or len(set(wanted)) != len(wanted)):
        # pyarrow's read_table gives a column named twice twice (ParquetFile's reads once).
        table = table.select(_keep(wanted, table, use_pandas_metadata))
    if wanted is not None and any(isinstance(c, str) and c not in table.column_names for c in wanted):
        table = _nested_as_columns(table, wanted)
    if schema is not None:
        arrays = [table.column(f.name).cast(f.type) if f.name in table.column_names
                  else pa.nulls(table.num_rows, f.type) for f in schema]
        table = pa.Table.from_arrays(arrays, schema=schema)
    return table


def _nested_as_columns(table, wanted):
    """pyarrow's ``read_table(columns=["s.x"])``: a struct child named by its dotted path is
    a top-level column named by its last part (``ParquetFile.read`` keeps the struct)."""
    import pyarrow.compute as pc

    columns, names = [], []
    for name in wanted:
        if name in table.column_names or not isinstance(name, str) or "." not in name:
            columns.append(table.column(name))
            names.append(name)
            continue
        head, *rest = name.split(".")
        col = table.column(head)
        for part in rest:
            col = pc.struct_field(col, part)
        columns.append(col)
        names.append(rest[-1])
    extra = [n for n in table.column_names if n not in names and n not in {w.split(".")[0] for w in wanted}]
    for n in extra:  # pandas index columns
        columns.append(table.column(n))
        names.append(n)
    return pa.Table.from_arrays(columns, names=names, metadata=table.schema.metadata)


def _keep(wanted, table, use_pandas_metadata):
    """The columns to keep: ``wanted``, then the pandas index."""
    keep = list(wanted)
    if use_pandas_metadata:
        keep += [c for c in _pandas_index_columns(table.schema) if c not in keep and c in table.column_names]
    return keep


def read_pandas(source, columns=None, **kwargs) -> pa.Table:
    """``read_table`` with the pandas metadata's index columns kept (pyarrow's
    ``read_pandas``); ``.to_pandas()`` the result for a DataFrame."""
    return read_table(source, columns=columns, use_pandas_metadata=True, **kwargs)


def read_metadata(where, memory_map=False, decryption_properties=None, filesystem=None, **kwargs) -> FileMetaData:
    """The footer of a Parquet file, as ``FileMetaData`` (``kwargs``: ``ParquetFile``'s)."""
    return ParquetFile(where, memory_map=memory_map, decryption_properties=decryption_properties,
                       filesystem=filesystem, **kwargs).metadata


def read_schema(where, memory_map=False, decryption_properties=None, filesystem=None, **kwargs) -> pa.Schema:
    """The Arrow schema a Parquet file reads as (``kwargs``: ``ParquetFile``'s, e.g.
    ``arrow_extensions_enabled``)."""
    return ParquetFile(where, memory_map=memory_map, decryption_properties=decryption_properties,
                       filesystem=filesystem, **kwargs).schema_arrow
