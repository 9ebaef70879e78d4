"""``BatchReader``: the batches of ``ParquetFile.iter_batches``, of exactly ``batch_size``
rows across row groups as pyarrow's are, and an Arrow stream for any consumer."""

from __future__ import annotations

import pyarrow as pa


class BatchReader:
    """Record batches of a Parquet file, decoded as they are asked for.

    Iterate it for ``pyarrow.RecordBatch``es, or hand it whole to any Arrow consumer through
    ``__arrow_c_stream__`` (``pa.RecordBatchReader.from_stream(r)``, ``pa.table(r)``,
    ``polars.from_arrow(r)``). Like every stream it can be read once.
    """

    def __init__(self, stream, convert=None, batch_size=None):
        self._stream = stream
        self._convert = convert
        self._batches = _rebatch(self._native_batches(), batch_size) if batch_size else self._native_batches()

    def _native_batches(self):
        while True:
            batch = self._stream.next_batch()
            if batch is None:
                return
            batch = pa.record_batch(batch)
            yield self._convert(batch) if self._convert else batch

    def _converted_schema(self):
        """The schema after conversion, or None when batches pass through unchanged."""
        native = pa.Schema._import_from_c_capsule(self._stream.__arrow_c_schema__())
        if self._convert is None:
            return None
        empty = self._convert(pa.RecordBatch.from_pylist([], schema=native))
        return None if empty.schema.equals(native, check_metadata=True) else empty.schema

    def __arrow_c_stream__(self, requested_schema=None):
        converted = self._converted_schema()
        if converted is None:  # batches handed over as the reader made them, without copies
            return self._stream.__arrow_c_stream__(requested_schema)
        reader = pa.RecordBatchReader.from_batches(converted, self)
        return reader.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self.schema.__arrow_c_schema__()

    @property
    def schema(self) -> pa.Schema:
        """The schema of the batches."""
        converted = self._converted_schema()
        return converted if converted is not None else pa.Schema._import_from_c_capsule(
            self._stream.__arrow_c_schema__())

    def __iter__(self):
        return self

    def __next__(self) -> pa.RecordBatch:
        return next(self._batches)

    def read_next_batch(self) -> pa.RecordBatch:
        """The next batch; ``StopIteration`` at the end (as pyarrow's reader)."""
        return self.__next__()

    def read_all(self) -> pa.Table:
        """The rest of the batches as one table."""
        batches = list(self)
        return pa.Table.from_batches(batches, schema=batches[0].schema if batches else self.schema)


def _rebatch(batches, size):
    """Batches of exactly ``size`` rows (the last may be shorter) from batches that end at
    row group boundaries, as pyarrow's ``iter_batches`` gives them: a batch is sliced
    without copying when it holds enough rows, and only the batches that straddle two row
    groups are put together (copied)."""
    pending, rows = [], 0
    for batch in batches:
        while batch.num_rows:
            if not pending and batch.num_rows >= size:
                yield batch.slice(0, size)
                batch = batch.slice(size)
                continue
            take = min(size - rows, batch.num_rows)
            pending.append(batch.slice(0, take))
            rows += take
            batch = batch.slice(take)
            if rows == size:
                yield pa.Table.from_batches(pending).combine_chunks().to_batches()[0]
                pending, rows = [], 0
    if pending:
        yield pa.Table.from_batches(pending).combine_chunks().to_batches()[0]
