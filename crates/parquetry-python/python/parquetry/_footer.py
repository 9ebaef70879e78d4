"""``FileMetaData``: a whole footer (pyarrow's class), over the plain values the native
module exports, with its ``ParquetSchema`` and row groups from ``_metadata``."""

from __future__ import annotations

import os

import pyarrow as pa

from . import _parquetry as _native
from ._metadata import ParquetSchema, RowGroupMetaData, _Internal


class FileMetaData(_Internal):
    """A Parquet file's footer: rows, row groups, schema, key/value metadata, writer.

    ``to_dict()`` gives pyarrow's dict; the raw export (every footer field parquetry reads)
    is ``_d``.
    """

    def _init(self, d, arrow_schema: pa.Schema = None, in_memory=False):
        self._d = d
        self._arrow = arrow_schema
        self._schema = None
        self._in_memory = in_memory

    @property
    def schema(self) -> ParquetSchema:
        """The Parquet schema (the same object on every access)."""
        if self._schema is None:
            self._schema = ParquetSchema(self._d["schema"], self._arrow)
        return self._schema

    num_rows = property(lambda self: self._d["num_rows"], doc="Rows in the file.")
    num_row_groups = property(lambda self: self._d["num_row_groups"], doc="Row groups in the file.")
    created_by = property(lambda self: self._d["created_by"] or "", doc="The writer's name and version.")

    @property
    def serialized_size(self) -> int:
        """Bytes of the Thrift footer as read from a file; 0 for the metadata of a file just
        written (pyarrow's ``metadata_collector`` entries), as pyarrow gives it."""
        return 0 if self._in_memory else self._d["serialized_size"]

    @property
    def num_columns(self) -> int:
        """Leaf columns."""
        return len(self.schema)

    @property
    def format_version(self) -> str:
        """``"1.0"`` for a version-1 file, else ``"2.6"`` (as pyarrow reports them)."""
        return "1.0" if self._d["version"] == 1 else "2.6"

    @property
    def metadata(self):
        """Key/value metadata as ``{bytes: bytes}`` (pyarrow's form), or None."""
        kv = self._d["key_value_metadata"]
        if not kv:
            return None
        return {k.encode(): (v or "").encode() for k, v in kv.items()}

    def row_group(self, i) -> RowGroupMetaData:
        """Row group ``i`` (no negative indexes, as pyarrow)."""
        if not isinstance(i, int) or i < 0 or i >= self.num_row_groups:
            raise IndexError(f"{i} out of bounds")
        return RowGroupMetaData._make(self._d["row_groups"][i], self.schema, self._d["created_by"])

    @property
    def row_groups(self):
        """Every row group."""
        return [self.row_group(i) for i in range(self.num_row_groups)]

    def __getitem__(self, key):
        """The footer as parquetry 0.1 gave it, a dict (``metadata["num_rows"]``,
        ``metadata["row_groups"][0]["columns"]``...), kept for code written against it; the
        attributes and ``to_dict()`` are pyarrow's forms."""
        return self._d[key]

    def to_dict(self) -> dict:
        """The footer as a dict (pyarrow's keys)."""
        return dict(created_by=self.created_by, num_columns=self.num_columns, num_rows=self.num_rows,
                    num_row_groups=self.num_row_groups,
                    row_groups=[rg.to_dict() for rg in self.row_groups],
                    format_version=self.format_version, serialized_size=self.serialized_size)

    def equals(self, other) -> bool:
        """Same footer (the raw footer bytes are not compared: writers may order fields)."""
        if not isinstance(other, FileMetaData):
            raise TypeError(f"Argument 'other' has incorrect type (expected FileMetaData, got {type(other).__name__})")
        strip = lambda d: {k: v for k, v in d.items() if k not in ("footer", "serialized_size")}  # noqa: E731
        return strip(self._d) == strip(other._d)

    def __eq__(self, other):
        try:
            return self.equals(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash((repr(self._d["schema"]), self.num_rows, self.num_row_groups, self.format_version,
                     self.serialized_size))

    def __repr__(self):
        return (f"{object.__repr__(self)}\n  created_by: {self.created_by}\n  num_columns: {self.num_columns}\n"
                f"  num_rows: {self.num_rows}\n  num_row_groups: {self.num_row_groups}\n"
                f"  format_version: {self.format_version}\n  serialized_size: {self.serialized_size}")

    def set_file_path(self, path) -> None:
        """Sets every column chunk's ``file_path`` (for ``_metadata`` summary files, which
        name the data file of each row group)."""
        self._d = _native.edit_footer(self._d["footer"], file_path=os.fsdecode(path))

    def append_row_groups(self, other) -> None:
        """Appends ``other``'s row groups (for ``_metadata`` summary files); the schemas must
        be equal (``RuntimeError`` otherwise, as pyarrow)."""
        if not isinstance(other, FileMetaData):
            raise TypeError(f"Argument 'other' has incorrect type (expected FileMetaData, got {type(other).__name__})")
        mine, theirs = self.schema, other.schema
        prefix = "AppendRowGroups requires equal schemas.\n"
        if len(mine) != len(theirs):
            raise RuntimeError(prefix + f"This schema has {len(mine)} columns, other has {len(theirs)}")
        for i in range(len(mine)):
            if not mine[i].equals(theirs[i]):
                raise RuntimeError(prefix + f"The two columns with index {i} differ.\n{mine[i]!r}\n{theirs[i]!r}")
        self._d = _native.edit_footer(self._d["footer"], append=other._d["footer"])

    def write_metadata_file(self, where) -> None:
        """Writes the footer as a metadata-only Parquet file (``PAR1`` + footer)."""
        data = b"PAR1" + self._d["footer"]
        if isinstance(where, (str, os.PathLike)):
            with open(os.fsdecode(where), "wb") as f:
                f.write(data)
        else:
            where.write(data)


def _check_footer_limits(raw, string_limit, container_limit, depth_limit):
    """Refuses a footer past pyarrow's Thrift and schema limits (``CorruptFileError``, an
    ``OSError`` as pyarrow's, with its words)."""
    from ._errors import CorruptFileError

    meta = raw.metadata()
    longest_string, longest_list = 0, 0

    def walk(v):
        nonlocal longest_string, longest_list
        if isinstance(v, (str, bytes)):
            longest_string = max(longest_string, len(v.encode() if isinstance(v, str) else v))
        elif isinstance(v, dict):
            longest_list = max(longest_list, len(v))
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, (list, tuple)):
            longest_list = max(longest_list, len(v))
            for x in v:
                walk(x)

    walk({k: v for k, v in meta.items() if k != "footer"})
    if string_limit and longest_string > string_limit:
        raise CorruptFileError(f"Couldn't deserialize thrift: a string of {longest_string} bytes: Exceeded size limit ({string_limit})")
    if container_limit and longest_list > container_limit:
        raise CorruptFileError(f"Couldn't deserialize thrift: a list of {longest_list} entries: Exceeded size limit ({container_limit})")
    if depth_limit:
        depth = _schema_depth(meta["schema"])
        if depth > depth_limit:
            raise CorruptFileError(f"Parquet schema too deeply nested: depth {depth}, limit {depth_limit}")


def _schema_depth(elements):
    """The deepest nesting of a flattened schema tree (the root counts 1)."""
    deepest, stack = 0, []
    for e in elements:
        while stack and stack[-1] == 0:
            stack.pop()
        if stack:
            stack[-1] -= 1
        stack.append(e["num_children"] or 0)
        deepest = max(deepest, len(stack))
    return deepest
