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


def open_native(source, filesystem=None):
    """A native file over a path, bytes-like object or binary file object (Python's or a
    pyarrow ``NativeFile``), read through ``filesystem`` when one is given."""
    if _is_path(source):
        fs, path = resolve(source, filesystem)
        if fs is not None:
            with fs.open_input_file(path) as f:
                return _native.open_bytes(f.read())
        check_file(path)
        if os.path.getsize(path) == 0:
            from ._errors import CorruptFileError

            raise CorruptFileError(f"Parquet file size is 0 bytes: {path}")
        return _native.open_path(path)
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

    def __init__(self, where, filesystem=None):
        self._where = where
        self._filesystem = filesystem
        self._tmp = None
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
