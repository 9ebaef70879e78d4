"""Datasets: a folder (read recursively; names starting with ``_`` or ``.`` skipped), a glob
or a list of files read as one table, with hive or directory partitions (folders become
columns), as pyarrow's ``ParquetDataset`` and ``read_table`` do, on local paths, object store
URLs or a ``filesystem=`` (see ``_dataset_fs``).

The native reader lists the files, reads their footers once, unifies their schemas (a column
missing from a file reads as nulls; a column with another type than in the first file is an
error where read), prunes files by their partition values before opening them, and pushes
the rest of the filter down into each file (statistics, page index, bloom filters, late
materialization). pyarrow's DNF ``filters``, and Expressions made of calls the native
filter has, are turned into the native condition text; any other
``pyarrow.compute.Expression`` is applied after reading.
"""

from __future__ import annotations

import os

import pyarrow as pa

from . import _io
from . import _parquetry as _native
from ._dataset_fs import Mirror, fs_path, join_local, local_root, pyarrow_filesystem
from ._dataset_write import compact, write_to_dataset  # noqa: F401  (the package's names)
from ._errors import ArgumentTypeError, InvalidArgumentError, UnsupportedError
from ._filters import filters_to_expression, split_filters
from ._read_types import _pandas_index_columns, _table

_GLOB = ("*", "?", "[")
_DEFAULT_IGNORE = (".", "_")


def is_dataset_source(source, filesystem=None) -> bool:
    """Whether ``read_table(source)`` reads a dataset: a list, a folder or a glob."""
    if isinstance(source, (list, tuple)):
        return True
    if not isinstance(source, (str, os.PathLike)):
        return False
    text = os.fsdecode(source)
    if "://" in text and not text.startswith("file://") and filesystem is None:
        # An object store URL: a folder ends with '/'; a glob has wildcards.
        return text.endswith("/") or any(c in text for c in _GLOB)
    fs, path = _io.resolve(source, filesystem)
    if fs is not None:
        root = local_root(fs)
        if root is None:
            import pyarrow.fs as pafs

            return fs.get_file_info(path).type == pafs.FileType.Directory
        path = join_local(root, path)
    return os.path.isdir(path) or (not os.path.exists(path) and any(c in path for c in _GLOB))


def _partitioning(partitioning):
    """``(mode, keys, schema, dictionary)`` for the native reader from pyarrow's forms:
    ``"hive"`` (keys read as dictionaries, as pyarrow's default discovery does), None, a list
    of names (directory partitioning), a ``pyarrow.dataset`` ``HivePartitioning`` or
    ``DirectoryPartitioning`` (typed keys), or the factory ``pyarrow.dataset.partitioning()``
    gives without a schema."""
    if partitioning is None or partitioning == "hive":
        return partitioning, None, None, partitioning == "hive"
    if isinstance(partitioning, (list, tuple)) and all(isinstance(k, str) for k in partitioning):
        return "directory", list(partitioning), None, False
    kind = type(partitioning).__name__
    if kind == "HivePartitioning":
        return "hive", None, partitioning.schema, False
    if kind == "DirectoryPartitioning":
        return "directory", list(partitioning.schema.names), partitioning.schema, False
    if kind == "PartitioningFactory" and partitioning.type_name in ("hive", "directory"):
        # The factory keeps its settings only where pickling finds them.
        args = partitioning.__reduce__()[1]
        if partitioning.type_name == "hive":
            return "hive", None, args[3], bool(args[0])
        return "directory", list(args[0]), args[3], bool(args[1])
    raise UnsupportedError(f"partitioning={partitioning!r}: only hive or directory partitioning is supported")


def _has_data(folder, ignore) -> bool:
    """Whether a folder holds a file not hidden by ``ignore`` (prefixes), at any depth."""
    for _, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(ignore)]
        if any(not f.startswith(ignore) for f in files):
            return True
    return False


def _sources(paths):
    """Local paths, ``file://`` URIs and object store URLs as the native reader's sources; a
    missing file is ``FileNotFoundError``, as pyarrow raises."""
    out = []
    for p in paths:
        if not isinstance(p, (str, os.PathLike)):
            raise ArgumentTypeError(f"a dataset source must be a path, a folder or a glob, not {type(p).__name__}")
        text = os.fsdecode(p)
        if "://" in text and not text.startswith("file://"):
            out.append(text)  # an object store URL, listed by the native reader
            continue
        path = _io.local_path(text)
        if not any(c in path for c in _GLOB) and not os.path.exists(path):
            _io.check_file(path)
        out.append(path)
    if not out:
        raise InvalidArgumentError("a dataset needs at least one file, folder or glob")
    return out


class _Fragment:
    """One file of a dataset: its path and partition values."""

    def __init__(self, path, partition_values, filesystem=None):
        self.path = path
        self.partition_values = partition_values
        self.filesystem = filesystem

    def open(self):
        """The file as a ``ParquetFile``."""
        from ._read import ParquetFile

        return ParquetFile(self.path, filesystem=self.filesystem)

    def __repr__(self):
        return f"<parquetry dataset fragment {self.path} {self.partition_values}>"


def _reopen(args):
    return ParquetDataset(**args)


class ParquetDataset:
    """Many Parquet files read as one table (pyarrow's ``ParquetDataset``).

    ``path_or_paths``: a folder, a glob, a list of files, one file, or a file object.
    ``filesystem``: pyarrow's, fsspec's or a URI (local ones are read natively, others
    through the filesystem). ``partitioning``: ``"hive"`` (default; keys read as
    dictionaries), ``None``, a list of names (directory partitioning), or a
    ``pyarrow.dataset`` partitioning giving the keys' types. A single file has no
    partitions. ``schema``: read every file as this schema (cast; missing columns as nulls).
    ``filters``: rows kept (pushed down: files pruned by partition values, row groups and
    pages by statistics). ``ignore_prefixes``: names below the folder that are not data
    (default ``.`` and ``_``). ``threads`` (parquetry's) reads footers and files at once.
    ``memory_map``, ``buffer_size`` and ``pre_buffer`` change nothing (IO is parquetry's).
    """

    def __init__(self, path_or_paths, filesystem=None, schema=None, *, filters=None, read_dictionary=None,
                 binary_type=None, list_type=None, memory_map=False, buffer_size=None, partitioning="hive",
                 ignore_prefixes=None, pre_buffer=True, coerce_int96_timestamp_unit=None,
                 decryption_properties=None, thrift_string_size_limit=None, thrift_container_size_limit=None,
                 schema_depth_limit=None, page_checksum_verification=False, arrow_extensions_enabled=True,
                 use_legacy_dataset=None, threads=True, storage_options=None):
        from ._read import ParquetFile, _threads

        self._args = {k: v for k, v in locals().items() if k not in ("self", "ParquetFile", "_threads")}
        if decryption_properties is not None:
            raise UnsupportedError("decryption_properties: encrypted files are not supported yet")
        if coerce_int96_timestamp_unit not in (None, "ns") and not hasattr(path_or_paths, "read"):
            # A dataset's schema is settled from the footers at the file's own unit; casting
            # afterwards would overflow the dates the option exists to read.
            raise UnsupportedError("coerce_int96_timestamp_unit on a dataset is not supported yet "
                                   "(ParquetFile and read_table of one file take it)")
        if buffer_size is not None and buffer_size < 0:
            raise InvalidArgumentError(f"Buffer size must be larger than zero, not {buffer_size}")
        mode, keys, partition_schema, self._dictionary = _partitioning(partitioning)
        ignore = tuple(_DEFAULT_IGNORE if ignore_prefixes is None else ignore_prefixes)
        self._partitioning = partitioning
        self._threads = _threads(threads)
        self._paths = path_or_paths
        self._raw = self._file = None
        self._mirror = None
        self._root = ""  # the local folder the filesystem's paths are relative to
        self._fs = None
        if filesystem is not None:
            self._fs = pyarrow_filesystem(filesystem)
            self._root = local_root(self._fs)
            if self._root is None and hasattr(path_or_paths, "__fspath__"):
                raise ArgumentTypeError("Path-like objects with __fspath__ must only be used with local file "
                                        f"systems, not {type(self._fs)}")
        self._filters = filters
        self._condition, self._expression = split_filters(filters)
        self._read_dictionary = list(read_dictionary or [])
        self._binary_type = binary_type if isinstance(binary_type, str) else None
        if not isinstance(path_or_paths, (list, tuple, str, os.PathLike)):
            # A file object (or bytes): one file, read as ParquetFile reads it.
            self._file = ParquetFile(path_or_paths, read_dictionary=read_dictionary, binary_type=binary_type,
                                     coerce_int96_timestamp_unit=coerce_int96_timestamp_unit)
            return
        many = isinstance(path_or_paths, (list, tuple))
        paths = list(path_or_paths) if many else [path_or_paths]
        self._given = [os.fsdecode(p) for p in paths]
        if self._root is None:
            self._mirror = Mirror(self._fs, [os.fsdecode(p) for p in paths], ignore)
            sources = self._mirror.sources
        else:
            sources = _sources([join_local(self._root, p) if self._fs is not None else p for p in paths])
        if not many and os.path.isfile(sources[0]):
            mode = None  # one file: its folders are not partitions (pyarrow's single-fragment dataset)
        self._sources = sources
        try:
            self._raw = _native.open_dataset(sources, mode, partition_schema, schema, self._threads,
                                             _io.options_pairs(storage_options), keys, list(ignore))
        except InvalidArgumentError:
            folders = [s for s in sources if "://" not in s and os.path.isdir(s)]
            if len(folders) != len(sources) or any(_has_data(f, ignore) for f in folders):
                raise
            # Folders with no data: an empty dataset, as pyarrow reads them.

    def __reduce__(self):
        if self._file is not None:
            raise TypeError("a ParquetDataset over a file object cannot be pickled")
        return _reopen, (self._args,)

    def _fs_path(self, local):
        """A file's local path as the filesystem given names it (the path given, then the
        file's below it, as pyarrow lists them)."""
        if self._mirror is not None:
            return self._mirror.fs_path(local)
        if self._fs is None:
            return local
        for source, given in zip(self._sources, self._given):
            source = source.rstrip(os.sep)
            if local == source:
                return given
            if local.startswith(source + os.sep):
                return given.rstrip("/") + "/" + local[len(source) + 1:].replace(os.sep, "/")
        return fs_path(self._root, local)

    def _dictionary_of(self, name, column):
        """A hive partition column as pyarrow's discovery reads it: a dictionary of every
        value the dataset's folders give the key (in the order first found), whatever rows
        are read."""
        import pyarrow.compute as pc
        from urllib.parse import unquote

        values = {}
        for local in self._raw.files():
            for part in os.fsdecode(local).split(os.sep):
                k, sep, v = part.partition("=")
                if sep and unquote(k) == name and v != "__HIVE_DEFAULT_PARTITION__":
                    values.setdefault(unquote(v), None)
        try:
            dictionary = pa.array(list(values), pa.string()).cast(column.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return column.dictionary_encode()
        chunks = [pa.DictionaryArray.from_arrays(pc.index_in(c, value_set=dictionary).cast(pa.int32()), dictionary)
                  for c in column.chunks]
        return pa.chunked_array(chunks, pa.dictionary(pa.int32(), column.type))

    @property
    def files(self):
        """The data files, in read order (as the filesystem names them, when one was given)."""
        if self._raw is None:
            return []
        return [self._fs_path(f) for f in self._raw.files()]

    @property
    def schema(self) -> pa.Schema:
        """The dataset's schema (hive partition columns as dictionaries, as pyarrow's
        default discovery reads them)."""
        if self._file is not None:
            return self._file.schema_arrow
        if self._raw is None:
            return pa.schema([])
        schema = pa.schema(self._raw.schema())
        if not self._dictionary:
            return schema
        parts = set(self._raw.partition_names())
        return pa.schema([f.with_type(pa.dictionary(pa.int32(), f.type)) if f.name in parts else f for f in schema],
                         metadata=schema.metadata)

    @property
    def partitioning(self):
        """The partitioning given (``"hive"`` by default)."""
        return self._partitioning

    @property
    def filesystem(self):
        """The filesystem given (as a pyarrow ``FileSystem``), else pyarrow's local one."""
        if self._fs is not None:
            return self._fs
        import pyarrow.fs as pafs

        return pafs.LocalFileSystem()

    @property
    def fragments(self):
        """One object per file, with ``path`` and ``partition_values`` (a dict of the
        hive ``key=value`` folders' text)."""
        if self._raw is None:
            return []
        names = self._raw.partition_names()
        out = []
        for local in self._raw.files():
            values = {}
            for part in os.fsdecode(local).split(os.sep):
                k, sep, v = part.partition("=")
                if sep and k in names:
                    values[k] = v
            out.append(_Fragment(self._fs_path(local), values, self._fs))
        return out

    def equals(self, other) -> bool:
        """Same files and schema."""
        return isinstance(other, ParquetDataset) and self.files == other.files and self.schema == other.schema

    def __eq__(self, other):
        return self.equals(other)

    def _common_metadata(self):
        """The key/value metadata of a ``_common_metadata`` or ``_metadata`` file in the
        dataset's folder (where pyarrow and Spark keep the pandas index), else None."""
        if self._raw is not None and len(self._sources) == 1 and os.path.isdir(self._sources[0]):
            from ._read import read_schema

            for name in ("_common_metadata", "_metadata"):
                path = os.path.join(self._sources[0], name)
                if os.path.isfile(path):
                    metadata = read_schema(path).metadata
                    if metadata and b"pandas" in metadata:
                        return metadata
        return None

    def request_stats(self):
        """``(requests, bytes)`` made to the object store so far: footers and reads."""
        return self._raw.request_stats() if self._raw is not None else (0, 0)

    def _check_filter_columns(self, schema):
        """A DNF filter naming no column of the dataset is an error naming it (pyarrow's
        words)."""
        if self._condition is None or not isinstance(self._filters, (list, tuple)):
            return  # a condition text, or an Expression (whose field refs pyarrow checks)
        terms = [self._filters] if isinstance(self._filters[0], tuple) else self._filters
        for conjunction in terms:
            for term in conjunction:
                if term[0] not in schema.names and str(term[0]).split(".")[0] not in schema.names:
                    raise InvalidArgumentError(f"No match for FieldRef.Name({term[0]}) in {schema}")

    def read(self, columns=None, use_threads=True, use_pandas_metadata=False) -> pa.Table:
        """Reads the selected columns (names; partition columns too) of every file."""
        from ._read import _threads

        if isinstance(columns, (str, bytes)):
            raise ArgumentTypeError("columns must be a list of names, not a single string")
        wanted = None if columns is None else list(dict.fromkeys(columns))
        if self._file is not None:
            table = self._file.read(None if self._filters is not None else wanted, use_threads, use_pandas_metadata)
            if self._filters is not None:
                table = table.filter(filters_to_expression(self._filters))
                if wanted is not None:
                    table = table.select(wanted)
            return table
        if self._raw is None:
            return pa.table({})
        raw_schema = pa.schema(self._raw.schema())
        self._check_filter_columns(raw_schema)
        metadata = raw_schema.metadata or {}
        if b"pandas" not in metadata:
            metadata = self._common_metadata() or metadata
        if wanted is not None and use_pandas_metadata:
            present = set(raw_schema.names)
            wanted += [c for c in _pandas_index_columns(pa.schema([], metadata=metadata))
                       if c not in wanted and c in present]
        read_columns = wanted if self._expression is None else None
        threads = self._threads if use_threads is True else _threads(use_threads)
        table = _table(self._raw.read_all(read_columns, self._condition, threads, self._binary_type))
        if self._expression is not None:
            table = table.filter(self._expression)
            if wanted is not None:
                table = table.select(wanted)
        parts = set(self._raw.partition_names()) if self._dictionary else set()
        for name in list(table.column_names):
            if name in parts or name in self._read_dictionary:
                i = table.column_names.index(name)
                col = table.column(i)
                if not pa.types.is_dictionary(col.type):
                    # One dictionary per file's chunk, as pyarrow reads dictionary columns.
                    encoded = self._dictionary_of(name, col) if name in parts else pa.chunked_array(
                        [c.dictionary_encode() for c in col.chunks], pa.dictionary(pa.int32(), col.type))
                    table = table.set_column(i, table.field(i).with_type(encoded.type), encoded)
        if metadata and table.schema.metadata != metadata:
            table = table.replace_schema_metadata(metadata)
        return table

    def read_pandas(self, **kwargs) -> pa.Table:
        """``read`` with the pandas index columns kept."""
        return self.read(use_pandas_metadata=True, **kwargs)


def read_dataset(source, *, columns, use_threads, schema, use_pandas_metadata, read_dictionary, binary_type,
                 partitioning, filesystem, filters, ignore_prefixes, threads, storage_options=None,
                 coerce_int96_timestamp_unit=None) -> pa.Table:
    """``read_table`` of a folder, glob or list."""
    dataset = ParquetDataset(source, filesystem=filesystem, schema=schema, filters=filters,
                             read_dictionary=read_dictionary, binary_type=binary_type, partitioning=partitioning,
                             coerce_int96_timestamp_unit=coerce_int96_timestamp_unit,
                             ignore_prefixes=ignore_prefixes, threads=use_threads if threads is None else threads,
                             storage_options=storage_options)
    return dataset.read(columns=columns, use_threads=use_threads if threads is None else threads,
                        use_pandas_metadata=use_pandas_metadata)


