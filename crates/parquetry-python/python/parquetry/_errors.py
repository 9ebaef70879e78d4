"""The exceptions of parquetry.

Each has two kinds of bases: ``ParquetError``, to catch anything parquetry raises, and the
exception a pyarrow user catches for that kind of failure: pyarrow's own classes
(``pyarrow.ArrowInvalid``, a ``ValueError``; ``ArrowNotImplementedError``, a
``NotImplementedError``; ``ArrowTypeError``, a ``TypeError``), which carry the builtin ones.
"""

import pyarrow as pa


class ParquetError(Exception):
    """Base class of every error parquetry raises."""


class CorruptFileError(ParquetError, pa.ArrowInvalid, OSError):
    """The bytes are not valid Parquet: bad magic, bad Thrift, lengths past the end, a page
    CRC mismatch... Both a ``pyarrow.ArrowInvalid`` (a ``ValueError``) and an ``OSError``:
    pyarrow raises one or the other depending on where the damage is found."""


class UnsupportedError(ParquetError, pa.ArrowNotImplementedError):
    """Valid Parquet or an option that this version does not handle yet (e.g. encrypted
    files); a ``NotImplementedError``."""


class ParquetIOError(ParquetError, OSError):
    """Reading or writing the underlying file failed."""


class InvalidArgumentError(ParquetError, pa.ArrowInvalid):
    """A bad argument: a column or row group that is not there, an unknown codec name...
    (a ``pyarrow.ArrowInvalid``, so a ``ValueError``)."""


class WriteOptionsError(InvalidArgumentError, OSError):
    """Write options that do not fit the table's schema, e.g. an encoding given for a column
    whose type it cannot encode: an ``InvalidArgumentError`` (a ``ValueError``) and an
    ``OSError``, which pyarrow raises there."""


class ArgumentTypeError(ParquetError, pa.ArrowTypeError):
    """An argument of the wrong type, e.g. an object that is not Arrow data (a ``TypeError``)."""


class MissingFileError(ParquetIOError, FileNotFoundError):
    """The file to read is not there (a ``FileNotFoundError``, as pyarrow raises)."""


class DirectoryError(ParquetIOError, IsADirectoryError):
    """A directory where a file was expected (an ``IsADirectoryError``, an ``OSError`` as
    pyarrow raises)."""
