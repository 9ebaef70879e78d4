"""Writing datasets: ``write_to_dataset`` (pyarrow's: hive folders for ``partition_cols``,
directory or hive folders for ``partitioning``, on a local path or a ``filesystem=``), and
``compact`` (small files of each partition merged by page copy).
"""

from __future__ import annotations

import datetime
import os
import uuid
from urllib.parse import quote

import pyarrow as pa

from . import _io
from . import _parquetry as _native
from ._dataset_fs import join_local, local_root, pyarrow_filesystem
from ._errors import InvalidArgumentError, UnsupportedError


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


def _layout(table, partition_cols, partitioning, kwargs):
    """``(keys, hive)``: the partition columns and whether folders are ``key=value``
    (``partition_cols``; a ``partitioning`` with ``partitioning_flavor="hive"`` or a
    ``HivePartitioning``) or bare values (a list of names, a ``DirectoryPartitioning``)."""
    flavor = kwargs.pop("partitioning_flavor", None)
    if partition_cols is not None and partitioning is not None:
        raise InvalidArgumentError("The 'partition_cols' argument is not supported. Use only 'partitioning' instead.")
    if partitioning is None:
        return list(partition_cols or []), True
    if isinstance(partitioning, (list, tuple)):
        return list(partitioning), flavor == "hive"
    kind = type(partitioning).__name__
    if kind in ("HivePartitioning", "DirectoryPartitioning"):
        return list(partitioning.schema.names), kind == "HivePartitioning"
    raise UnsupportedError(f"partitioning={kind}: give partition_cols, a list of names, or a hive or "
                           "directory partitioning")


def _folders(root, filesystem):
    """``(local root, filesystem or None, root as the filesystem's path)``."""
    if filesystem is None:
        return _io.local_path(root), None, None
    fs = pyarrow_filesystem(filesystem)
    base = local_root(fs)
    if base is not None:
        return join_local(base, root), None, None
    if not isinstance(root, str):
        raise TypeError(f"path-like objects are only allowed with a local filesystem, not {type(fs).__name__}")
    return None, fs, root.rstrip("/")


def write_to_dataset(table, root_path, partition_cols=None, filesystem=None, schema=None, partitioning=None,
                     basename_template=None, use_threads=None, file_visitor=None, existing_data_behavior=None,
                     **kwargs) -> None:
    """Writes ``table`` as a partitioned folder of Parquet files under ``root_path``
    (pyarrow's ``write_to_dataset``): one folder level per ``partition_cols`` entry,
    ``key=value`` (percent-encoded; nulls as ``__HIVE_DEFAULT_PARTITION__``), the partition
    columns left out of the files; ``partitioning`` (a list of names, or a
    ``pyarrow.dataset`` hive or directory partitioning) writes bare values as folders unless
    hive (``partitioning_flavor="hive"``). ``basename_template`` names files (``{i}`` counts
    them in each folder; default a fresh uuid and ``-{i}.parquet``); ``max_rows_per_file``
    splits them; ``existing_data_behavior``: ``"overwrite_or_ignore"`` (default),
    ``"error"`` (if the folder holds anything) or ``"delete_matching"`` (each partition
    written is emptied first). ``filesystem``: pyarrow's, fsspec's or a URI (a non-local one
    is written through). A root that is an object store URL (``s3://``, ``gs://``, ``az://``)
    takes ``storage_options`` and has each file uploaded whole (``delete_matching`` deletes
    the objects under each partition's prefix before writing it). ``metadata_collector`` (a list) gets each file's metadata. Other
    keyword arguments go to ``write_table``. Each file is written to a temporary and
    renamed, so no half-written file is left behind.
    """
    from ._read import read_metadata
    from ._write import write_table

    storage_options = kwargs.pop("storage_options", None)
    url = _io.object_url(root_path, filesystem)
    if url is not None:
        # An object store root: no folders to make; each file is uploaded whole (written
        # to a local temporary, then a multipart upload that exists only once complete).
        local, fs, fs_root = None, None, url.rstrip("/")
        kwargs["storage_options"] = storage_options
    elif storage_options is not None:
        raise InvalidArgumentError("storage_options applies to s3://, gs://, az:// and http(s):// roots only")
    else:
        local, fs, fs_root = _folders(root_path, filesystem)
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
    collector = kwargs.pop("metadata_collector", None)
    if collector is not None and file_visitor is not None:
        raise InvalidArgumentError("The 'metadata_collector' argument is not supported. Use only 'file_visitor' instead.")
    partition_cols, hive = _layout(table, partition_cols, partitioning, kwargs)
    missing = [c for c in partition_cols if c not in table.column_names]
    if missing:
        raise InvalidArgumentError(f"partition_cols {missing} are not columns of the table ({table.column_names})")
    behavior = existing_data_behavior or "overwrite_or_ignore"
    if behavior not in ("overwrite_or_ignore", "error", "delete_matching"):
        raise InvalidArgumentError(
            f"existing_data_behavior must be 'overwrite_or_ignore', 'error' or 'delete_matching', not {behavior!r}")
    if behavior == "error" and _holds_anything(local, fs, fs_root, storage_options):
        raise InvalidArgumentError(f"Could not write to {root_path} as the directory is not empty and "
                                   "existing_data_behavior is to error")
    max_rows = kwargs.pop("max_rows_per_file", None) or 0
    if "max_rows_per_group" in kwargs:
        kwargs.setdefault("row_group_size", kwargs.pop("max_rows_per_group"))
    if "chunk_size" in kwargs:
        kwargs.setdefault("row_group_size", kwargs.pop("chunk_size"))
    for name in ("min_rows_per_group", "max_partitions", "max_open_files", "create_dir", "format",
                 "preserve_order", "file_options"):
        kwargs.pop(name, None)
    if basename_template is None:
        basename_template = uuid.uuid4().hex + "-{i}.parquet"
    if "{i}" not in basename_template:
        raise InvalidArgumentError(f"basename_template must contain '{{i}}': {basename_template!r}")
    threads = kwargs.pop("threads", True if use_threads is None else use_threads)

    groups = [((), table)]
    if partition_cols:
        keys = table.select(partition_cols)
        # Dictionary keys by their values: only the values present make folders.
        keys = pa.table([c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in keys.columns],
                        names=partition_cols)
        indexed = keys.append_column("__parquetry_row", pa.array(range(table.num_rows), pa.int64()))
        grouped = indexed.group_by(partition_cols, use_threads=False).aggregate([("__parquetry_row", "list")])
        data = table.drop_columns(partition_cols)
        groups = []
        for g in range(grouped.num_rows):
            values = tuple(grouped.column(c)[g].as_py() for c in partition_cols)
            rows = grouped.column("__parquetry_row_list")[g].values
            groups.append((values, data.take(rows)))
    counters = {}
    deleted = set()
    for values, part in groups:
        parts = [f"{c}={_segment(v)}" if hive else _segment(v) for c, v in zip(partition_cols, values)]
        folder = os.path.join(local, *parts) if local is not None else "/".join([fs_root, *parts])
        if behavior == "delete_matching" and folder not in deleted:
            _delete(folder, fs, url is not None, storage_options)
            deleted.add(folder)
        if local is not None:
            os.makedirs(folder, exist_ok=True)
        elif fs is not None:
            fs.create_dir(folder, recursive=True)
        if part.num_columns == 0:
            # Every column is a partition column: a file of no columns, as pyarrow writes (of
            # no rows; pyarrow would not slice such a table to its length).
            part = pa.schema([]).empty_table()
        step = max_rows if max_rows > 0 else max(part.num_rows, 1)
        for start in range(0, max(part.num_rows, 1), step):
            i = counters.get(folder, 0)
            counters[folder] = i + 1
            name = basename_template.format(i=i)
            path = os.path.join(folder, name) if local is not None else folder + "/" + name
            rows = part.slice(start, min(step, part.num_rows - start))
            write_table(rows, path, filesystem=fs, threads=threads, **kwargs)
            if file_visitor is not None or collector is not None:
                metadata = read_metadata(path, filesystem=fs, storage_options=storage_options)
                if collector is not None:
                    metadata.set_file_path(os.path.relpath(path, local) if local is not None else path[len(fs_root) + 1:])
                    collector.append(metadata)
                if file_visitor is not None:
                    if local is not None:
                        size = os.path.getsize(path)
                    elif fs is not None:
                        size = fs.get_file_info(path).size
                    else:
                        listed = _native.list_url(folder + "/", _io.options_pairs(storage_options))
                        size = dict(listed).get(path)
                    file_visitor(_WrittenFile(path, metadata, size))


def _holds_anything(local, fs, fs_root, storage_options=None):
    if local is not None:
        return os.path.isdir(local) and any(os.scandir(local))
    if fs is None:
        return bool(_native.list_url(fs_root + "/", _io.options_pairs(storage_options)))
    import pyarrow.fs as pafs

    return bool(fs.get_file_info(pafs.FileSelector(fs_root, allow_not_found=True)))


def _delete(folder, fs, is_url=False, storage_options=None):
    """Empties the partition ``folder`` before it is written. Under an object store URL: the
    objects whose keys start with ``folder/`` (whole segments: ``k=1`` is not ``k=10``),
    listed and deleted by the native module."""
    if is_url:
        _native.delete_url_prefix(folder + "/", _io.options_pairs(storage_options))
        return
    if fs is None:
        if os.path.isdir(folder):
            import shutil

            shutil.rmtree(folder)
        return
    import pyarrow.fs as pafs

    if fs.get_file_info(folder).type == pafs.FileType.Directory:
        fs.delete_dir(folder)


def compact(root, target_file_size=128 << 20, *, dry_run=False, threads=True, storage_options=None) -> dict:
    """Merges each partition folder's small files under ``root`` into files of about
    ``target_file_size`` bytes, by page copy (rows keep their order; values are not
    decoded). Each merged file is complete before its inputs are removed; a crash leaves a
    ``_compaction-*.json`` journal that the next call finishes first (see ``docs/python.md``
    for what a reader may see meanwhile). ``root`` may be an object store URL
    (``s3://bucket/sales/``, with ``storage_options``): each merged object is uploaded whole
    before its inputs are deleted. Returns the partitions, files before and after, and the
    merges done (or, with ``dry_run``, planned)."""
    from ._read import _threads

    url = _io.object_url(root)
    if url is not None:
        return _native.compact_url(url, int(target_file_size), dry_run, min(_threads(threads), 2),
                                   _io.options_pairs(storage_options))
    if storage_options is not None:
        raise InvalidArgumentError("storage_options applies to s3://, gs://, az:// and http(s):// roots only")
    return _native.compact(os.fsdecode(_io.local_path(root)), int(target_file_size), dry_run,
                           min(_threads(threads), 2))
