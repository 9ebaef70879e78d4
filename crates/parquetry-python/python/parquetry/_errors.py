"""The exceptions of parquetry.

Each has two bases: ``ParquetError``, to catch anything parquetry raises, and the builtin
exception a caller would catch for that kind of failure anyway.
"""


class ParquetError(Exception):
    """Base class of every error parquetry raises."""


class CorruptFileError(ParquetError, ValueError):
    """The bytes are not valid Parquet: bad magic, bad Thrift, lengths past the end..."""


class UnsupportedError(ParquetError, NotImplementedError):
    """Valid Parquet that this version does not handle yet (e.g. encrypted files)."""


class ParquetIOError(ParquetError, OSError):
    """Reading or writing the underlying file failed."""


class InvalidArgumentError(ParquetError, ValueError):
    """A bad argument: a column or row group that is not there, an unknown codec name..."""


class ArgumentTypeError(ParquetError, TypeError):
    """An argument of the wrong type, e.g. an object that is not Arrow data."""
