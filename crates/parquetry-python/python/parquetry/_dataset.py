"""Datasets: a folder (read recursively; names starting with ``_`` or ``.`` skipped), a glob
or a list of files read as one table, with hive partitions (``key=value`` folders become
columns), as pyarrow's ``ParquetDataset``, ``read_table`` and ``write_to_dataset`` do.

The native reader lists the files, reads their footers once, unifies their schemas (a column
missing from a file reads as nulls; one column with two types is an error naming both
files), prunes files by their partition values before opening them, and pushes the rest of
the filter down into each file (statistics, page index, bloom filters, late
materialization). pyarrow's DNF ``filters`` are turned into the native condition text; a
``pyarrow.compute.Expression`` is applied after reading (no pruning yet).
"""

from __future__ import annotations

import datetime
import os
import uuid
from urllib.parse import quote

import pyarrow as pa

from . import _io
from . import _parquetry as _native
from ._errors import ArgumentTypeError, InvalidArgumentError, UnsupportedError
from ._filters import filters_to_condition, filters_to_expression
from ._read_types import _pandas_index_columns, _table

_GLOB = ("*", "?", "[")


def is_dataset_source(source, filesystem=None) -> bool:
    """Whether ``read_table(source)`` reads a dataset: a list, a folder or a glob."""
    if isinstance(source, (list, tuple)):
        return True
    if not isinstance(source, (str, os.PathLike)):
        return False
    text = os.fsdecode(source)
    if "://" in text and not text.startswith("file://"):
        # An object store URL: a folder ends with '/'; a glob has wildcards.
        return filesystem is None and (text.endswith("/") or any(c in text for c in _GLOB))
    fs, path = _io.resolve(source, filesystem)
    if fs is not None:
        return False
    return os.path.isdir(path) or (not os.path.exists(path) and any(c in path for c in _GLOB))


def _sources(path_or_paths, filesystem):
    paths = path_or_paths if isinstance(path_or_paths, (list, tuple)) else [path_or_paths]
    out = []
    for p in paths:
        if not isinstance(p, (str, os.PathLike)):
            raise ArgumentTypeError(f"a dataset source must be a path, a folder or a glob, not {type(p).__name__}")
        text = os.fsdecode(p)
        if "://" in text and not text.startswith("file://") and filesystem is None:
            out.append(text)  # an object store URL, listed by the native reader
            continue
        fs, path = _io.resolve(p, filesystem)
        if fs is not None:
            raise UnsupportedError(f"datasets on {type(fs).__name__} are not supported yet: {os.fsdecode(p)}")
        if not any(c in path for c in _GLOB) and not os.path.exists(path):
            _io.check_file(path)  # FileNotFoundError, as pyarrow raises
        out.append(path)
    if not out:
        raise InvalidArgumentError("a dataset needs at least one file, folder or glob")
    return out


# ------------------------------------------------------------------------------------------
# Reading.

class _Fragment:
    """One file of a dataset: its path and partition values."""

    def __init__(self, path, partition_values):
        self.path = path
        self.partition_values = partition_values

    def open(self):
        """The file as a ``ParquetFile``."""
        from ._read import ParquetFile

        return ParquetFile(self.path)

    def __repr__(self):
        return f"<parquetry dataset fragment {self.path} {self.partition_values}>"


class ParquetDataset:
    """Many Parquet files read as one table (pyarrow's ``ParquetDataset``).

    ``path_or_paths``: a folder, a glob or a list of files. ``partitioning``: ``"hive"``
    (default), ``None``, or a ``pyarrow.dataset.HivePartitioning`` giving the keys' types.
    ``schema``: read every file as this schema (cast; missing columns as nulls). ``filters``:
    rows kept (pushed down: files pruned by partition values, row groups and pages by
    statistics). ``threads`` (parquetry's) reads footers and files at once.
    """

    def __init__(self, path_or_paths, filesystem=None, schema=None, *, filters=None, read_dictionary=None,
                 binary_type=None, list_type=None, coerce_int96_timestamp_unit=None, decryption_properties=None,
                 thrift_string_size_limit=None, thrift_container_size_limit=None, page_checksum_verification=False,
                 arrow_extensions_enabled=True, partitioning="hive", ignore_prefixes=None, pre_buffer=True,
                 use_legacy_dataset=None, threads=True, storage_options=None):
        from ._read import _threads

        if decryption_properties is not None:
            raise UnsupportedError("decryption_properties: encrypted files are not supported yet")
        if ignore_prefixes is not None and sorted(ignore_prefixes) != [".", "_"]:
            raise UnsupportedError("ignore_prefixes other than ['.', '_'] are not supported yet")
        self._filesystem = filesystem
        self._paths = path_or_paths
        partition_schema = None
        if partitioning is not None and not isinstance(partitioning, str):
            if type(partitioning).__name__ != "HivePartitioning":
                raise UnsupportedError(f"partitioning={type(partitioning).__name__}: only hive partitioning is supported")
            partition_schema = partitioning.schema
            partitioning = "hive"
        if partitioning not in (None, "hive"):
            raise UnsupportedError(f"partitioning={partitioning!r}: only 'hive' or None is supported")
        self._partitioning = partitioning
        self._threads = _threads(threads)
        self._raw = _native.open_dataset(_sources(path_or_paths, filesystem), partitioning, partition_schema,
                                         schema, self._threads, _io.options_pairs(storage_options))
        self._filters = filters
        self._condition = filters_to_condition(filters)
        self._expression = filters_to_expression(filters) if filters is not None and self._condition is None else None
        self._read_dictionary = list(read_dictionary or [])
        self._binary_type = binary_type if isinstance(binary_type, str) else None

    @property
    def files(self):
        """The data files, in read order."""
        return self._raw.files()

    @property
    def schema(self) -> pa.Schema:
        """The dataset's schema (partition columns as dictionaries, as pyarrow reads them)."""
        schema = pa.schema(self._raw.schema())
        parts = set(self._raw.partition_names())
        return pa.schema([f.with_type(pa.dictionary(pa.int32(), f.type)) if f.name in parts else f for f in schema],
                         metadata=schema.metadata)

    @property
    def partitioning(self):
        return self._partitioning

    @property
    def filesystem(self):
        return self._filesystem

    @property
    def fragments(self):
        """One object per file, with ``path`` and ``partition_values`` (a dict)."""
        names = self._raw.partition_names()
        out = []
        for path in self.files:
            values = {}
            for part in os.fsdecode(path).split(os.sep):
                k, sep, v = part.partition("=")
                if sep and k in names:
                    values[k] = v
            out.append(_Fragment(path, values))
        return out

    def equals(self, other) -> bool:
        return isinstance(other, ParquetDataset) and self.files == other.files and self.schema == other.schema

    def __eq__(self, other):
        return self.equals(other)

    def _common_metadata(self):
        """The key/value metadata of a ``_common_metadata`` or ``_metadata`` file in the
        dataset's folder (where pyarrow and Spark keep the pandas index), else None."""
        if self._paths_are_one_folder():
            from ._read import read_schema

            for name in ("_common_metadata", "_metadata"):
                path = os.path.join(_io.local_path(self._paths), name)
                if os.path.isfile(path):
                    return read_schema(path).metadata
        return None

    def _paths_are_one_folder(self):
        if not isinstance(self._paths, (str, os.PathLike)) or "://" in os.fsdecode(self._paths).replace("file://", ""):
            return False
        return os.path.isdir(_io.local_path(self._paths))

    def request_stats(self):
        """``(requests, bytes)`` made to the object store so far: footers and reads."""
        return self._raw.request_stats()

    def read(self, columns=None, use_threads=True, use_pandas_metadata=False) -> pa.Table:
        """Reads the selected columns (names; partition columns too) of every file."""
        from ._read import _threads

        if isinstance(columns, (str, bytes)):
            raise ArgumentTypeError("columns must be a list of names, not a single string")
        wanted = None if columns is None else list(dict.fromkeys(columns))
        metadata = pa.schema(self._raw.schema()).metadata or {}
        if b"pandas" not in metadata:
            metadata = self._common_metadata() or metadata
        if wanted is not None and use_pandas_metadata:
            present = set(pa.schema(self._raw.schema()).names)
            wanted += [c for c in _pandas_index_columns(pa.schema([], metadata=metadata))
                       if c not in wanted and c in present]
        read_columns = wanted if self._expression is None else None
        threads = self._threads if use_threads is True else _threads(use_threads)
        table = _table(self._raw.read_all(read_columns, self._condition, threads, self._binary_type))
        if self._expression is not None:
            table = table.filter(self._expression)
            if wanted is not None:
                table = table.select(wanted)
        parts = set(self._raw.partition_names())
        for name in list(table.column_names):
            if name in parts or name in self._read_dictionary:
                i = table.column_names.index(name)
                col = table.column(i)
                if not pa.types.is_dictionary(col.type):
                    table = table.set_column(i, table.field(i).with_type(pa.dictionary(pa.int32(), col.type)),
                                             col.dictionary_encode())
        if metadata and table.schema.metadata != metadata:
            table = table.replace_schema_metadata(metadata)
        return table

    def read_pandas(self, **kwargs) -> pa.Table:
        """``read`` with the pandas index columns kept."""
        return self.read(use_pandas_metadata=True, **kwargs)


def read_dataset(source, *, columns, use_threads, schema, use_pandas_metadata, read_dictionary, binary_type,
                 partitioning, filesystem, filters, ignore_prefixes, threads, storage_options=None) -> pa.Table:
    """``read_table`` of a folder, glob or list."""
    dataset = ParquetDataset(source, filesystem=filesystem, schema=schema, filters=filters,
                             read_dictionary=read_dictionary, binary_type=binary_type, partitioning=partitioning,
                             ignore_prefixes=ignore_prefixes, threads=use_threads if threads is None else threads,
                             storage_options=storage_options)
    return dataset.read(columns=columns, use_threads=use_threads if threads is None else threads,
                        use_pandas_metadata=use_pandas_metadata)


# ------------------------------------------------------------------------------------------
# Writing.

class _WrittenFile:
    """What ``file_visitor`` is given: the path, and the file's metadata."""

    def __init__(self, path, metadata, size):
        self.path = path
        self.metadata = metadata
        self.size = size


def _segment(value) -> str:
    if value is None:
        return "__HIVE_DEFAULT_PARTITION__"
    if isinstance(value, bool):
        value = "true" if value else "false"
    elif isinstance(value, (datetime.date, datetime.datetime)):
        value = value.isoformat()
    return quote(str(value), safe="")


def write_to_dataset(table, root_path, partition_cols=None, filesystem=None, schema=None, partitioning=None,
                     basename_template=None, use_threads=None, file_visitor=None, existing_data_behavior=None,
                     **kwargs) -> None:
    """Writes ``table`` as a hive-partitioned folder of Parquet files under ``root_path``
    (pyarrow's ``write_to_dataset``): one folder level per ``partition_cols`` entry,
    ``key=value`` (percent-encoded; nulls as ``__HIVE_DEFAULT_PARTITION__``), the partition
    columns left out of the files. ``basename_template`` names files (``{i}`` counts them;
    default a fresh uuid and ``-{i}.parquet``); ``max_rows_per_file`` splits them;
    ``existing_data_behavior``: ``"overwrite_or_ignore"`` (default), ``"error"`` (if the
    folder holds anything) or ``"delete_matching"`` (each partition written is emptied
    first). Other keyword arguments go to ``write_table``. Each file is written to a
    temporary and renamed, so no half-written file is left behind.
    """
    from ._footer import FileMetaData  # noqa: F401  (metadata objects for file_visitor)
    from ._read import read_metadata
    from ._write import write_table

    if filesystem is not None:
        fs, root = _io.resolve(root_path, filesystem)
        if fs is not None:
            raise UnsupportedError(f"write_to_dataset on {type(fs).__name__} is not supported yet")
    else:
        root = _io.local_path(root_path)
    if not isinstance(table, pa.Table):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            pd = None
        if pd is not None and isinstance(table, pd.DataFrame):
            table = pa.Table.from_pandas(table, schema=schema)
        else:
            table = pa.table(table)
    elif schema is not None:
        table = table.cast(schema)
    if partitioning is not None and partition_cols is None:
        if isinstance(partitioning, (list, tuple)):
            partition_cols = list(partitioning)
        else:
            raise UnsupportedError("partitioning objects are not supported yet; give partition_cols")
    partition_cols = list(partition_cols or [])
    missing = [c for c in partition_cols if c not in table.column_names]
    if missing:
        raise InvalidArgumentError(f"partition_cols {missing} are not columns of the table ({table.column_names})")
    if partition_cols and len(partition_cols) == table.num_columns:
        raise InvalidArgumentError("every column is a partition column: the files would have no columns")
    behavior = existing_data_behavior or "overwrite_or_ignore"
    if behavior not in ("overwrite_or_ignore", "error", "delete_matching"):
        raise InvalidArgumentError(
            f"existing_data_behavior must be 'overwrite_or_ignore', 'error' or 'delete_matching', not {behavior!r}")
    if behavior == "error" and os.path.isdir(root) and any(os.scandir(root)):
        raise InvalidArgumentError(f"Could not write to {root} as the directory is not empty and "
                                   "existing_data_behavior is to error")
    max_rows = kwargs.pop("max_rows_per_file", None) or 0
    if "max_rows_per_group" in kwargs:
        kwargs.setdefault("row_group_size", kwargs.pop("max_rows_per_group"))
    for name in ("min_rows_per_group", "max_partitions", "max_open_files", "create_dir", "format"):
        kwargs.pop(name, None)
    if basename_template is None:
        basename_template = uuid.uuid4().hex + "-{i}.parquet"
    if "{i}" not in basename_template:
        raise InvalidArgumentError(f"basename_template must contain '{{i}}': {basename_template!r}")
    threads = kwargs.pop("threads", True if use_threads is None else use_threads)

    groups = [((), table)]
    if partition_cols:
        keys = table.select(partition_cols)
        keys = pa.table([c.dictionary_decode() if pa.types.is_dictionary(c.type) else c for c in keys.columns],
                        names=partition_cols)
        indexed = keys.append_column("__parquetry_row", pa.array(range(table.num_rows), pa.int64()))
        grouped = indexed.group_by(partition_cols, use_threads=False).aggregate([("__parquetry_row", "list")])
        data = table.drop_columns(partition_cols)
        groups = []
        for g in range(grouped.num_rows):
            values = tuple(grouped.column(c)[g].as_py() for c in partition_cols)
            rows = grouped.column("__parquetry_row_list")[g].values
            groups.append((values, data.take(rows)))
    counter = 0
    deleted = set()
    for values, part in groups:
        folder = os.path.join(root, *[f"{c}={_segment(v)}" for c, v in zip(partition_cols, values)])
        if behavior == "delete_matching" and folder not in deleted and os.path.isdir(folder):
            import shutil

            shutil.rmtree(folder)
            deleted.add(folder)
        os.makedirs(folder, exist_ok=True)
        step = max_rows if max_rows > 0 else max(part.num_rows, 1)
        for start in range(0, max(part.num_rows, 1), step):
            path = os.path.join(folder, basename_template.format(i=counter))
            counter += 1
            write_table(part.slice(start, step), path, threads=threads, **kwargs)
            if file_visitor is not None:
                file_visitor(_WrittenFile(path, read_metadata(path), os.path.getsize(path)))


# ------------------------------------------------------------------------------------------
# Compaction.

def compact(root, target_file_size=128 << 20, *, dry_run=False, threads=True) -> dict:
    """Merges each partition folder's small files under ``root`` into files of about
    ``target_file_size`` bytes, by page copy (rows keep their order; values are not
    decoded). Each merged file is complete before its inputs are removed; a crash leaves a
    ``_compaction-*.json`` journal that the next call finishes first (see ``docs/python.md``
    for what a reader may see meanwhile). Returns the partitions, files before and after,
    and the merges done (or, with ``dry_run``, planned)."""
    from ._read import _threads

    return _native.compact(os.fsdecode(_io.local_path(root)), int(target_file_size), dry_run,
                           min(_threads(threads), 2))
