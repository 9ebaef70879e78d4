"""Dask: datasets read and compacted past one machine with an existing engine, one task
per file (pruned by partition values before any task is scheduled) or per partition.

>>> import parquetry.dask                                        # doctest: +SKIP
>>> df = parquetry.dask.read_parquet("sales/", columns=["amount", "year"],
...                                  filters=[("year", ">=", 2024)])  # doctest: +SKIP

Ray and Spark users follow the same shape: list the files with
``parquetry.ParquetDataset(path, filters=...).files`` on the driver, then read each in a task
with ``parquetry.read_table(file, columns=..., filters=...)`` (Ray: ``ray.data.from_arrow``
of the tables; Spark: ``mapInArrow`` over the file list).
"""

from __future__ import annotations

import os

import pyarrow as pa

from . import _io
from . import _parquetry as _native
from ._dataset import ParquetDataset
from ._filters import split_filters
from ._read_types import _table
from ._errors import InvalidArgumentError


def _read_file(path, schema, columns, condition, expression, storage):
    """One task: a file of the dataset, with its partition columns, as pandas."""
    raw = _native.open_dataset([path], "hive", None, schema, 1, storage)
    read = columns if expression is None else None
    table = _table(raw.read_all(read, condition, 1, None))
    if expression is not None:
        table = table.filter(expression)
        if columns is not None:
            table = table.select(columns)
    elif columns is not None:
        table = table.select(columns)
    return table.to_pandas()


def read_parquet(path, columns=None, filters=None, storage_options=None, partitioning="hive"):
    """A ``dask.dataframe.DataFrame`` over the Parquet dataset at ``path`` (a folder, glob or
    list): one task per file, files that ``filters`` rule out by their partition values
    dropped before scheduling, the rest of the filter pushed down into each file's read.
    Partition columns have their plain types (int32, string), not categoricals.
    ``storage_options``: for object store URLs (``s3://bucket/dir/``), as ``read_table``."""
    import dask.dataframe as dd

    dataset = ParquetDataset(path, partitioning=partitioning, storage_options=storage_options)
    schema = pa.schema(dataset._raw.schema())
    condition, expression = split_filters(filters)
    files = dataset.files
    if condition is not None:
        files = [files[i] for i in dataset._raw.prune(condition)]
    wanted = list(columns) if columns is not None else schema.names
    meta = schema.empty_table().select(wanted).to_pandas()
    if not files:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_read_file, files, schema=schema, columns=wanted, condition=condition,
                       expression=expression, storage=_io.options_pairs(storage_options), meta=meta, label="parquetry-read-parquet", enforce_metadata=False)


def compact(root, target_file_size=128 << 20, client=None, storage_options=None) -> dict:
    """Compacts the dataset under ``root`` (see ``parquetry.compact``) with one task per
    partition folder on a ``dask.distributed`` cluster (``client``, else the current one).
    A local folder must be reachable from every worker at the same path; an object store
    URL (``s3://bucket/sales/``, with ``storage_options`` as ``parquetry.compact`` takes
    them) is planned on the caller, and each task fetches its partition's objects, uploads
    the merged object whole and deletes the inputs, as ``parquetry.compact`` does."""
    from dask.distributed import get_client

    client = client or get_client()
    url = _io.object_url(root)
    if url is not None:
        storage = _io.options_pairs(storage_options)
        _native.compact_recover_url(url, storage)
        plan = _native.compact_url(url, int(target_file_size), True, 1, storage)
        task, extra, folder = _compact_objects, (storage,), lambda output: output.rsplit("/", 1)[0]
    else:
        if storage_options is not None:
            raise InvalidArgumentError("storage_options applies to s3://, gs://, az:// and http(s):// roots only")
        root = os.fsdecode(root)
        _native.compact_recover(root)
        plan = _native.compact(root, int(target_file_size), True, 1)
        task, extra, folder = _compact_folder, (), os.path.dirname
    by_folder = {}
    for output, inputs, _ in plan["merges"]:
        by_folder.setdefault(folder(output), []).append((inputs, output))
    futures = [client.submit(task, groups, *extra, pure=False) for groups in by_folder.values()]
    client.gather(futures)
    return plan


def _compact_folder(groups):
    for inputs, output in groups:
        _native.compact_group(inputs, output, 1)
    return len(groups)


def _compact_objects(groups, storage):
    for inputs, output in groups:
        _native.compact_group_url(inputs, output, 1, storage)
    return len(groups)
