"""Type stubs of the parquetry package."""

import os
from typing import IO, Any, Iterator, Mapping, Optional, Sequence, Union

import pyarrow as pa

Source = Union[str, os.PathLike, bytes, bytearray, memoryview, IO[bytes], pa.Buffer]
Columns = Optional[Sequence[Union[str, int]]]
Threads = Union[bool, int]

__version__: str

class ParquetError(Exception): ...
class CorruptFileError(ParquetError, ValueError): ...
class UnsupportedError(ParquetError, NotImplementedError): ...
class ParquetIOError(ParquetError, OSError): ...
class InvalidArgumentError(ParquetError, ValueError): ...
class ArgumentTypeError(ParquetError, TypeError): ...

class BatchReader:
    """Record batches decoded as they are asked for; also an Arrow C stream."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    @property
    def schema(self) -> pa.Schema: ...
    def __iter__(self) -> Iterator[pa.RecordBatch]: ...
    def __next__(self) -> pa.RecordBatch: ...
    def read_next_batch(self) -> pa.RecordBatch: ...
    def read_all(self) -> pa.Table: ...

class ParquetFile:
    """An open Parquet file."""
    def __init__(self, source: Source) -> None: ...
    def __enter__(self) -> "ParquetFile": ...
    def __exit__(self, *exc: object) -> None: ...
    def close(self) -> None: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def schema_arrow(self) -> pa.Schema: ...
    @property
    def num_row_groups(self) -> int: ...
    def read(
        self,
        columns: Columns = None,
        row_groups: Optional[Sequence[int]] = None,
        threads: Threads = True,
        binary_type: Optional[str] = None,
    ) -> pa.Table: ...
    def read_row_group(
        self, i: int, columns: Columns = None, threads: Threads = True, binary_type: Optional[str] = None
    ) -> pa.Table: ...
    def iter_batches(
        self,
        batch_size: int = 65536,
        columns: Columns = None,
        row_groups: Optional[Sequence[int]] = None,
        threads: Threads = True,
        binary_type: Optional[str] = None,
    ) -> BatchReader: ...

def read_table(
    source: Source,
    columns: Columns = None,
    row_groups: Optional[Sequence[int]] = None,
    threads: Threads = True,
    binary_type: Optional[str] = None,
) -> pa.Table: ...
def write_table(
    data: Any,
    where: Union[str, os.PathLike, IO[bytes]],
    compression: Union[str, None, Mapping[str, str]] = "snappy",
    compression_level: Optional[int] = None,
    row_group_size: Optional[int] = None,
    use_dictionary: Union[bool, Sequence[str]] = True,
    data_page_version: str = "1.0",
    write_statistics: Union[bool, Sequence[str]] = True,
    write_page_index: bool = True,
    column_encoding: Union[str, None, Mapping[str, str]] = None,
    threads: Union[bool, int] = True,
) -> None: ...
def merge(
    inputs: Sequence[Union[str, os.PathLike]],
    output: Union[str, os.PathLike],
    row_group_rows: Optional[int] = None,
    compression: Optional[str] = None,
    compression_level: Optional[int] = None,
    threads: Union[bool, int] = True,
) -> dict[str, int]: ...
