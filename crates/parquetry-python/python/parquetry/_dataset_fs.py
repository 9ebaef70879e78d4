"""Datasets on ``filesystem=`` objects: pyarrow filesystems (``LocalFileSystem``,
``SubTreeFileSystem``, ``PyFileSystem(FSSpecHandler(...))``), fsspec filesystems and
filesystem URIs, as pyarrow's ``ParquetDataset`` and ``write_to_dataset`` take them.

A filesystem whose files are local files (pyarrow's or fsspec's local one, a subtree of it)
is read and written by path, natively. Any other is read through the filesystem: the data
files are copied into a temporary folder of the same layout (names below the folder given
keep their prefixes, so that hidden names and partitions read as they would), which the
native reader then reads; ``files`` still name the filesystem's paths.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref

from ._errors import ArgumentTypeError, MissingFileError


def pyarrow_filesystem(filesystem):
    """``filesystem`` (pyarrow's, fsspec's or a URI string) as a pyarrow ``FileSystem``: a
    URI naming a folder is the subtree there, as pyarrow takes it."""
    import pyarrow.fs as pafs

    if isinstance(filesystem, str):
        fs, path = pafs.FileSystem.from_uri(filesystem)
        return pafs.SubTreeFileSystem(path, fs) if path else fs
    return pafs._ensure_filesystem(filesystem)


def local_root(fs):
    """The local folder a pyarrow filesystem's paths are relative to (``""``: they are local
    paths as they are), or None when its files are not local files."""
    import pyarrow.fs as pafs

    if isinstance(fs, pafs.LocalFileSystem):
        return ""
    if isinstance(fs, pafs.SubTreeFileSystem):
        inner = local_root(fs.base_fs)
        return None if inner is None else os.path.join(inner, fs.base_path) if inner else fs.base_path
    if isinstance(fs, pafs.PyFileSystem) and isinstance(fs.handler, pafs.FSSpecHandler):
        protocol = getattr(fs.handler.fs, "protocol", None)
        protocols = protocol if isinstance(protocol, (tuple, list)) else (protocol,)
        return "" if "file" in protocols or "local" in protocols else None
    return None


def join_local(root, path):
    """A filesystem path as a local path, given ``local_root``'s answer."""
    path = os.fsdecode(path)
    if not root:
        return path
    return os.path.normpath(os.path.join(root, path.lstrip("/")))


def fs_path(root, local):
    """A local path back as the filesystem's path (the inverse of ``join_local``)."""
    if not root:
        return local
    rel = os.path.relpath(local, root)
    return "." if rel == "." else rel


class Mirror:
    """The data files of a dataset on a filesystem that is not local, copied into a
    temporary folder of the same layout (removed when the dataset is collected)."""

    def __init__(self, fs, paths, ignore_prefixes):
        import pyarrow.fs as pafs

        self.fs = fs
        self.dir = tempfile.mkdtemp(prefix="parquetry-dataset-")
        weakref.finalize(self, shutil.rmtree, self.dir, True)
        self.sources = []
        self._back = {}
        for n, path in enumerate(paths):
            if not isinstance(path, str):
                raise ArgumentTypeError(
                    f"path-like objects are only allowed with a local filesystem, not {type(fs).__name__}")
            info = fs.get_file_info(path)
            if info.type == pafs.FileType.NotFound:
                raise MissingFileError(f"{path}: no such file or folder on {type(fs).__name__}")
            base = os.path.join(self.dir, str(n))
            if info.type == pafs.FileType.Directory:
                selector = pafs.FileSelector(path, recursive=True)
                for f in fs.get_file_info(selector):
                    rel = os.path.relpath(f.path, path)
                    if f.type != pafs.FileType.File or any(
                            part.startswith(tuple(ignore_prefixes)) for part in rel.split("/")):
                        continue
                    self._copy(f.path, os.path.join(base, rel))
                os.makedirs(base, exist_ok=True)
                self.sources.append(base)
            else:
                local = os.path.join(base, os.path.basename(path))
                self._copy(path, local)
                self.sources.append(local)

    def _copy(self, path, local):
        os.makedirs(os.path.dirname(local), exist_ok=True)
        with self.fs.open_input_stream(path) as src, open(local, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        self._back[local] = path

    def fs_path(self, local):
        """The filesystem's path of a copied file."""
        return self._back.get(local, local)
