"""Where bytes come from and go to: paths, ``file://`` URIs, bytes-like objects, Python and
pyarrow file objects, and pyarrow (or fsspec) filesystems; with the exceptions a pyarrow
user catches (``FileNotFoundError``, ``IsADirectoryError``).
"""

from __future__ import annotations

import os
import shutil
import tempfile

from . import _parquetry as _native
from ._errors import ArgumentTypeError, DirectoryError, InvalidArgumentError, MissingFileError


def _is_path(source) -> bool:
    return isinstance(source, (str, os.PathLike))


def local_path(source) -> str:
    """A path argument as a local path (``file://`` URIs included)."""
    path = os.fsdecode(source)
    if path.startswith("file://"):
        path = path[len("file://"):]
    return path


def check_file(path: str) -> None:
    """Raises ``FileNotFoundError`` or ``IsADirectoryError`` as opening ``path`` would."""
    if os.path.isdir(path):
        raise DirectoryError(f"Cannot open for reading: path '{path}' is a directory")
    if not os.path.exists(path):
        raise MissingFileError(f"Failed to open local file '{path}'. Detail: [errno 2] No such file or directory")


_OBJECT_SCHEMES = ("s3", "s3a", "gs", "gcs", "az", "adl", "azure", "abfs", "abfss", "http", "https")


def object_url(source, filesystem=None):
    """The URL when ``source`` names an object that parquetry reads and writes itself
    (``s3://``, ``gs://``, ``az://``, ``abfs[s]://``, ``http(s)://``) and no ``filesystem``
    was given; else None."""
    if filesystem is not None or not _is_path(source):
        return None
    path = os.fsdecode(source)
    scheme, sep, rest = path.partition("://")
    if not sep or not rest or scheme.lower() not in _OBJECT_SCHEMES:
        return None
    if scheme.lower() == "gcs":
        path = "gs://" + rest
    return path


def options_pairs(storage_options):
    """``storage_options`` (a dict, as polars and deltalake take it) as string pairs."""
    if storage_options is None:
        return None
    if not isinstance(storage_options, dict):
        raise ArgumentTypeError(f"storage_options must be a dict, not {type(storage_options).__name__}")
    return [(str(k), v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v))
            for k, v in storage_options.items()]


def resolve(source, filesystem=None):
    """``(filesystem, path)`` for a path argument, as pyarrow resolves it (URIs, fsspec
    and pyarrow filesystems, filesystem URIs as strings); ``filesystem`` is None for a
    local file, which parquetry opens itself."""
    if filesystem is None:
        path = local_path(source)
        if "://" not in path:
            return None, path
    import pyarrow.fs as pafs

    fs, path = pafs._resolve_filesystem_and_path(source, filesystem)
    if type(fs) is pafs.LocalFileSystem:
        return None, path
    return fs, path


def open_native(source, filesystem=None, storage_options=None, memory_map=False):
    """A native file over a path, an object store URL (read by parquetry's own client, with
    ``storage_options``), a bytes-like object or a binary file object (Python's or a pyarrow
    ``NativeFile``), read through ``filesystem`` when one is given. ``memory_map`` maps a
    local path (elsewhere it changes nothing, as in pyarrow)."""
    url = object_url(source, filesystem)
    if url is not None:
        return _native.open_url(url, options_pairs(storage_options))
    if storage_options is not None:
        raise InvalidArgumentError("storage_options applies to s3://, gs://, az:// and http(s):// URLs only")
    if _is_path(source):
        fs, path = resolve(source, filesystem)
        if fs is not None:
            with fs.open_input_file(path) as f:
                return _native.open_bytes(f.read())
        check_file(path)
        if os.path.getsize(path) == 0:
            from ._errors import CorruptFileError

            raise CorruptFileError(f"Parquet file size is 0 bytes: {path}")
        return _native.open_path(path, bool(memory_map))
    if filesystem is not None:
        raise InvalidArgumentError(
            "'filesystem' passed but the specified path is file-like, so there is nothing to open with 'filesystem'."
        )
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _native.open_bytes(source)
    if hasattr(source, "read"):
        if hasattr(source, "seek") and hasattr(source, "tell"):
            try:
                source.seek(0)
            except Exception:  # unseekable streams are read from where they are
                pass
        data = source.read()
        if hasattr(data, "to_pybytes"):  # pyarrow Buffer from a NativeFile
            data = memoryview(data)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentTypeError(
                f"the file object's read() gave {type(data).__name__}; open the file in binary mode"
            )
        return _native.open_bytes(data)
    try:
        view = memoryview(source)  # pyarrow.Buffer, numpy arrays, ...
    except TypeError:
        raise ArgumentTypeError(
            "source must be a path, a bytes-like object or a binary file object, "
            f"not {type(source).__name__}"
        ) from None
    return _native.open_bytes(view)


class Destination:
    """Where a file is written: ``path`` is the local path the native writer writes (a
    temporary one for file objects and filesystems), and ``finish()`` copies it to the real
    destination once the file is complete. ``cleanup()`` removes any temporary file."""

    def __init__(self, where, filesystem=None, storage_options=None):
        self._where = where
        self._filesystem = filesystem
        self._tmp = None
        self._url = object_url(where, filesystem)
        self._storage_options = options_pairs(storage_options)
        if self._url is not None:
            # Written locally, then uploaded by multipart upload: the object appears only
            # once complete.
            self._tmp = tempfile.mkdtemp(prefix="parquetry-")
            self.path = os.path.join(self._tmp, "out.parquet")
            return
        if storage_options is not None:
            raise InvalidArgumentError("storage_options applies to s3://, gs://, az:// and http(s):// URLs only")
        if _is_path(where):
            self._filesystem, path = resolve(where, filesystem)
            if self._filesystem is None:
                self.path = path
                if os.path.isdir(self.path):
                    raise DirectoryError(f"Cannot open for writing: path '{self.path}' is a directory")
                return
            self._where = path
        elif filesystem is not None:
            raise InvalidArgumentError(
                "'filesystem' passed but the specified path is file-like, so there is nothing to open with 'filesystem'."
            )
        elif not hasattr(where, "write"):
            raise ArgumentTypeError(f"where must be a path or a binary file object, not {type(where).__name__}")
        self._tmp = tempfile.mkdtemp(prefix="parquetry-")
        self.path = os.path.join(self._tmp, "out.parquet")

    def finish(self) -> None:
        """Copies a temporary file to its destination (nothing for a local path)."""
        if self._tmp is None:
            return
        try:
            if self._url is not None:
                _native.upload_file(self.path, self._url, self._storage_options)
                return
            with open(self.path, "rb") as f:
                if self._filesystem is None:
                    shutil.copyfileobj(f, self._where)
                else:
                    with self._filesystem.open_output_stream(self._where, compression=None) as out:
                        shutil.copyfileobj(f, out)
        finally:
            self.cleanup()

    def cleanup(self) -> None:
        """Removes the temporary directory, if any."""
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
