"""Writing: ``write_table``, ``ParquetWriter`` and ``write_metadata`` with
``pyarrow.parquet``'s parameters and defaults, over the native writer (a file is written to a
temporary path and renamed, or copied to a file object, only once it is complete).
"""

from __future__ import annotations

import pyarrow as pa

from . import _io
from . import _parquetry as _native
from ._errors import ArgumentTypeError, InvalidArgumentError
from ._read import _threads
from ._write_options import TableTransform, native_options

_DEFAULT_ROW_GROUP_SIZE = 1024 * 1024
_MAX_ROW_GROUP_SIZE = 64 * 1024 * 1024

def _row_group_size(n):
    if n is None:
        return None
    n = int(n)
    if n == 0:
        raise InvalidArgumentError("Row group size cannot be 0")
    if n < 0:  # pyarrow: -1 means the whole table
        return None
    return min(n, _MAX_ROW_GROUP_SIZE)


class ParquetWriter:
    """Writes a Parquet file table by table or batch by batch (pyarrow's ``ParquetWriter``).

    ``where`` is a path, ``file://`` URI or binary file object; ``schema`` the Arrow schema
    every table must have (metadata aside). The options are ``write_table``'s. Each
    ``write_table``/``write_batch`` call writes its own row groups of at most
    ``row_group_size`` rows (1,048,576 by default), as pyarrow's does. The file appears at
    ``where`` on ``close()`` (or the end of a ``with`` block, even one left by an exception,
    or when the writer is garbage-collected, as with pyarrow); a write that fails leaves
    nothing there.

    parquetry's ``threads`` (``True``: every core) encodes and compresses columns in parallel;
    the file is the same byte for byte.
    """

    def __init__(self, where, schema, filesystem=None, flavor=None, version="2.6", use_dictionary=True,
                 compression="snappy", write_statistics=True, use_deprecated_int96_timestamps=None,
                 compression_level=None, use_byte_stream_split=False, column_encoding=None,
                 writer_engine_version=None, data_page_version="1.0", use_compliant_nested_type=True,
                 encryption_properties=None, write_batch_size=None, dictionary_pagesize_limit=None,
                 store_schema=True, write_page_index=False, write_page_checksum=False, sorting_columns=None,
                 store_decimal_as_integer=False, write_time_adjusted_to_utc=False, max_rows_per_page=None,
                 bloom_filter_options=None, use_content_defined_chunking=False, *, coerce_timestamps=None,
                 allow_truncated_timestamps=False, data_page_size=None, threads=True, **options):
        self.is_open = False
        if not isinstance(schema, pa.Schema):
            raise ArgumentTypeError(f"schema must be a pyarrow.Schema, not {type(schema).__name__}")
        self._metadata_collector = options.pop("metadata_collector", None)
        storage_options = options.pop("storage_options", None)
        if options:
            raise ArgumentTypeError(f"unexpected keyword arguments: {', '.join(sorted(options))}")
        self._transform = TableTransform(
            schema, version=version, coerce_timestamps=coerce_timestamps,
            allow_truncated_timestamps=allow_truncated_timestamps, flavor=flavor,
            use_deprecated_int96_timestamps=use_deprecated_int96_timestamps,
            use_compliant_nested_type=use_compliant_nested_type,
            store_decimal_as_integer=store_decimal_as_integer)
        self._options = native_options(
            compression=compression, compression_level=compression_level, use_dictionary=use_dictionary,
            write_statistics=write_statistics, use_byte_stream_split=use_byte_stream_split,
            column_encoding=column_encoding, data_page_version=data_page_version, version=version,
            data_page_size=data_page_size, max_rows_per_page=max_rows_per_page,
            dictionary_pagesize_limit=dictionary_pagesize_limit, write_batch_size=write_batch_size,
            store_schema=store_schema, write_page_index=write_page_index,
            write_page_checksum=write_page_checksum, sorting_columns=sorting_columns,
            store_decimal_as_integer=store_decimal_as_integer,
            use_compliant_nested_type=use_compliant_nested_type,
            encryption_properties=encryption_properties, bloom_filter_options=bloom_filter_options,
            use_content_defined_chunking=use_content_defined_chunking,
            write_time_adjusted_to_utc=write_time_adjusted_to_utc, threads=_threads(threads))
        self._options["int96_timestamps"] = self._transform.int96  # flavor='spark' implies it
        self.flavor = flavor
        self.schema = schema
        self.where = where
        self._key_values = {}
        self._dest = _io.Destination(where, filesystem, storage_options)
        self._native = None
        self.metadata = None
        self.is_open = True

    def _writer(self):
        if self._native is None:
            options = dict(self._options)
            kv = {}
            if self._options.get("store_schema", True):
                # pyarrow stores the schema's metadata (e.g. pandas') as footer entries too.
                for k, v in (self._transform.schema.metadata or {}).items():
                    try:
                        kv[k.decode()] = v.decode()
                    except UnicodeDecodeError:
                        continue  # Thrift strings: binary metadata stays in ARROW:schema only
            kv.update(self._key_values)
            options["key_value_metadata"] = list(kv.items())
            options["row_group_size"] = _DEFAULT_ROW_GROUP_SIZE
            self._native = _native.NativeWriter(self._dest.path, self._transform.schema, options)
        return self._native

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        # As pyarrow: an exception in the caller's block still ends the file with the rows
        # written so far (a failed write has already dropped it).
        self.close()
        return False

    def __del__(self):
        # As pyarrow: a writer dropped without close() still ends its file.
        if getattr(self, "is_open", False):
            try:
                self.close()
            except Exception:
                pass

    def write(self, table_or_batch, row_group_size=None) -> None:
        """Writes a ``pyarrow.Table`` or ``RecordBatch``."""
        if isinstance(table_or_batch, pa.RecordBatch):
            self.write_batch(table_or_batch, row_group_size)
        elif isinstance(table_or_batch, pa.Table):
            self.write_table(table_or_batch, row_group_size)
        else:
            raise TypeError(type(table_or_batch))

    def write_batch(self, batch, row_group_size=None) -> None:
        """Writes a ``RecordBatch`` as its own row group(s)."""
        self.write_table(pa.Table.from_batches([batch], batch.schema), row_group_size)

    def write_table(self, table, row_group_size=None) -> None:
        """Writes ``table`` as row groups of at most ``row_group_size`` rows; its schema must
        be the writer's (metadata aside)."""
        if not self.is_open:
            raise InvalidArgumentError("the ParquetWriter is closed")
        if self.flavor == "spark":
            table = table.rename_columns([f.name for f in self._transform._schema(table.schema)])
            schema = self._transform._schema(self.schema)
            check = self._transform._schema(table.schema)
        else:
            schema, check = self.schema, table.schema
        if not check.equals(schema, check_metadata=False):
            raise InvalidArgumentError(
                "Table schema does not match schema used to create file: \n"
                f"table:\n{table.schema!s} vs. \nfile:\n{self.schema!s}"
            )
        table = self._transform.table(table)
        if table.schema.metadata != self._transform.schema.metadata:
            table = table.replace_schema_metadata(self._transform.schema.metadata)
        size = _row_group_size(row_group_size) or _DEFAULT_ROW_GROUP_SIZE
        writer = self._writer()
        try:
            if table.num_rows == 0:
                # As pyarrow: an empty table is a row group of no rows.
                writer.write(table)
                writer.write_empty_row_group()
            for start in range(0, table.num_rows, size):
                # Clamped: pyarrow slices a table of no columns to the length asked for.
                writer.write(table.slice(start, min(size, table.num_rows - start)))
                writer.flush()
        except BaseException:
            self._abort()
            raise

    def add_key_value_metadata(self, key_value_metadata) -> None:
        """Adds key/value pairs to the footer (before the first write, for now)."""
        if not self.is_open:
            raise InvalidArgumentError("the ParquetWriter is closed")
        for k, v in dict(key_value_metadata).items():
            k = k.decode() if isinstance(k, bytes) else str(k)
            v = v.decode() if isinstance(v, bytes) else str(v)
            self._key_values[k] = v
            if self._native is not None:
                self._native.add_key_value(k, v)

    def close(self) -> None:
        """Ends the file and puts it at ``where``."""
        if not self.is_open:
            return
        self.is_open = False
        try:
            meta = self._writer().close()
            self._dest.finish()
        except BaseException:
            self._dest.cleanup()
            raise
        from ._footer import FileMetaData

        self.metadata = FileMetaData._make(meta, self._transform.schema, True)
        if self._metadata_collector is not None:
            self._metadata_collector.append(self.metadata)

    def _abort(self):
        self.is_open = False
        if self._native is not None:
            self._native.abort()
        self._dest.cleanup()


def write_table(table, where, row_group_size=None, version="2.6", use_dictionary=True, compression="snappy",
                write_statistics=True, use_deprecated_int96_timestamps=None, coerce_timestamps=None,
                allow_truncated_timestamps=False, data_page_size=None, flavor=None, filesystem=None,
                compression_level=None, use_byte_stream_split=False, column_encoding=None,
                data_page_version="1.0", use_compliant_nested_type=True, encryption_properties=None,
                write_batch_size=None, dictionary_pagesize_limit=None, store_schema=True,
                write_page_index=False, write_page_checksum=False, sorting_columns=None,
                store_decimal_as_integer=False, write_time_adjusted_to_utc=False, max_rows_per_page=None,
                bloom_filter_options=None, use_content_defined_chunking=False, *, threads=True,
                **kwargs) -> None:
    """Writes Arrow data to a Parquet file (pyarrow's ``write_table``: same parameters,
    defaults and meanings; see ``docs/python.md`` for what is not supported yet).

    ``table``: a pyarrow Table, or anything with ``__arrow_c_stream__`` or
    ``__arrow_c_array__`` (a RecordBatch, a RecordBatchReader, a polars DataFrame...), which
    is then consumed batch by batch. ``where``: a path, ``file://`` URI, binary file object,
    or an object store URL (``s3://``, ``gs://``, ``az://``; ``storage_options=`` a dict as
    polars takes it), uploaded by multipart upload so the object appears only once complete.
    ``threads`` (parquetry's): ``True`` encodes and compresses columns on every core,
    ``False`` on one, an int on that many; the file is the same byte for byte.
    """
    row_group_size = _row_group_size(kwargs.pop("chunk_size", row_group_size))
    args = dict(
        version=version, use_dictionary=use_dictionary, compression=compression,
        write_statistics=write_statistics, use_deprecated_int96_timestamps=use_deprecated_int96_timestamps,
        coerce_timestamps=coerce_timestamps, allow_truncated_timestamps=allow_truncated_timestamps,
        data_page_size=data_page_size, flavor=flavor, filesystem=filesystem,
        compression_level=compression_level, use_byte_stream_split=use_byte_stream_split,
        column_encoding=column_encoding, data_page_version=data_page_version,
        use_compliant_nested_type=use_compliant_nested_type, encryption_properties=encryption_properties,
        write_batch_size=write_batch_size, dictionary_pagesize_limit=dictionary_pagesize_limit,
        store_schema=store_schema, write_page_index=write_page_index, write_page_checksum=write_page_checksum,
        sorting_columns=sorting_columns, store_decimal_as_integer=store_decimal_as_integer,
        write_time_adjusted_to_utc=write_time_adjusted_to_utc, max_rows_per_page=max_rows_per_page,
        bloom_filter_options=bloom_filter_options, use_content_defined_chunking=use_content_defined_chunking,
        threads=threads, **kwargs)
    if isinstance(table, (pa.Table, pa.RecordBatch)):
        writer = ParquetWriter(where, table.schema, **args)
        try:
            writer.write(table, row_group_size=row_group_size)
        except BaseException:
            writer._abort()  # nothing is left at `where`
            raise
        writer.close()
        return
    if not (hasattr(table, "__arrow_c_stream__") or hasattr(table, "__arrow_c_array__")):
        raise ArgumentTypeError(
            "table must be Arrow data (a pyarrow Table, or an object with __arrow_c_stream__ or "
            f"__arrow_c_array__ such as a polars DataFrame), not {type(table).__name__}"
        )
    _write_stream(table, where, row_group_size, args)


def _write_stream(data, where, row_group_size, args):
    """Streams any Arrow producer into a file, batch by batch (nothing materialised)."""
    filesystem = args.pop("filesystem")
    storage_options = args.pop("storage_options", None)
    threads = args.pop("threads")
    transform_args = {k: args.pop(k) for k in ("coerce_timestamps", "allow_truncated_timestamps", "flavor")}
    transform_args.update({k: args[k] for k in ("version", "use_deprecated_int96_timestamps",
                                                 "use_compliant_nested_type", "store_decimal_as_integer")})
    args.pop("write_batch_size", None)
    schema = pa.Schema._import_from_c_capsule(data.__arrow_c_schema__()) if hasattr(data, "__arrow_c_schema__") else None
    if schema is not None and TableTransform(schema, **transform_args).applies(schema):
        reader = pa.RecordBatchReader.from_stream(data)
        transform = TableTransform(reader.schema, **transform_args)
        data = pa.RecordBatchReader.from_batches(transform.schema, (transform.table(b) for b in reader))
    options = native_options(threads=_threads(threads), row_group_size=row_group_size, **args)
    if args["use_deprecated_int96_timestamps"] is None:  # as pyarrow: Spark's flavor implies it
        options["int96_timestamps"] = transform_args["flavor"] == "spark"
    dest = _io.Destination(where, filesystem, storage_options)
    try:
        _native.write_table(data, dest.path, options)
        dest.finish()
    finally:
        dest.cleanup()


def write_metadata(schema, where, metadata_collector=None, filesystem=None, **kwargs) -> None:
    """Writes a metadata-only file: ``schema`` and no rows (``_common_metadata``), plus the
    row groups of every ``FileMetaData`` in ``metadata_collector`` (``_metadata``; the
    entries of ``write_table(..., metadata_collector=[])`` with their ``set_file_path``)."""
    if not metadata_collector:
        with ParquetWriter(where, schema, filesystem=filesystem, **kwargs):
            pass
        return
    import io

    from ._read import read_metadata

    buf = io.BytesIO()
    with ParquetWriter(buf, schema, **kwargs):
        pass
    meta = read_metadata(pa.py_buffer(buf.getvalue()))
    for m in metadata_collector:
        meta.append_row_groups(m)
    out = io.BytesIO()
    meta.write_metadata_file(out)
    dest = _io.Destination(where, filesystem)
    try:
        with open(dest.path, "wb") as f:
            f.write(out.getvalue())
        dest.finish()
    finally:
        dest.cleanup()
