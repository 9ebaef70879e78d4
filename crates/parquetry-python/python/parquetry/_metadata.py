"""pyarrow's Parquet metadata classes for row groups and column chunks
(``RowGroupMetaData``, ``ColumnChunkMetaData``, ``SortingColumn``) over the plain footer
values the native module exports (``RawFile.metadata()``: dicts and lists, min/max as the
stored bytes). The schema classes are in ``_schema``, ``Statistics`` in ``_statistics``;
all are re-exported here.
"""

from __future__ import annotations

import pyarrow as pa

from ._schema import ColumnSchema, ParquetLogicalType, ParquetSchema, _Internal  # noqa: F401
from ._statistics import GeoStatistics, Statistics, _statistics_correct

_CODEC_NAMES = {"LZ4_RAW": "LZ4", "LZ4": "LZ4_HADOOP"}


class ColumnChunkMetaData(_Internal):
    """One column chunk of a row group: its type, codec, encodings, offsets, sizes and
    statistics."""

    def _init(self, d, column: ColumnSchema, created_by=None):
        self._d = d
        self._column = column
        self._created_by = created_by

    file_offset = property(lambda self: self._d["file_offset"], doc="Deprecated chunk offset.")
    file_path = property(lambda self: self._d.get("file_path") or "", doc="File holding the chunk ('' for this one).")
    physical_type = property(lambda self: self._d["physical_type"], doc="Physical type name.")
    num_values = property(lambda self: self._d["num_values"], doc="Values, nulls included.")
    path_in_schema = property(lambda self: self._d["path_in_schema"], doc="Dotted path of the leaf.")
    compression = property(lambda self: _CODEC_NAMES.get(self._d["compression"], self._d["compression"]),
                           doc="Codec name (pyarrow's: LZ4_RAW reads 'LZ4').")
    encodings = property(lambda self: tuple(self._d["encodings"]), doc="Encodings of the pages.")
    dictionary_page_offset = property(lambda self: self._d["dictionary_page_offset"] if self.has_dictionary_page else None,
                                      doc="Offset of the dictionary page, or None.")
    data_page_offset = property(lambda self: self._d["data_page_offset"], doc="Offset of the first data page.")
    total_compressed_size = property(lambda self: self._d["total_compressed_size"], doc="Bytes stored.")
    total_uncompressed_size = property(lambda self: self._d["total_uncompressed_size"], doc="Bytes uncompressed.")
    bloom_filter_offset = property(lambda self: self._d["bloom_filter_offset"], doc="Bloom filter offset, or None.")
    bloom_filter_length = property(lambda self: self._d["bloom_filter_length"], doc="Bloom filter length, or None.")
    has_offset_index = property(lambda self: self._d["has_offset_index"], doc="The chunk has an OffsetIndex.")
    has_column_index = property(lambda self: self._d["has_column_index"], doc="The chunk has a ColumnIndex.")

    @property
    def is_geo_stats_set(self) -> bool:
        """The chunk has geospatial statistics (GEOMETRY/GEOGRAPHY columns)."""
        g = self._d.get("geo_statistics")
        return g is not None and (g["xmin"] is not None or g["geospatial_types"] is not None)

    @property
    def geo_statistics(self):
        """The chunk's ``GeoStatistics``, or None."""
        return GeoStatistics._make(self._d["geo_statistics"]) if self.is_geo_stats_set else None

    @property
    def metadata(self):
        """The chunk's key/value metadata as ``{bytes: bytes}``, or None."""
        kv = self._d.get("key_value_metadata")
        if kv is None:
            return None
        return {k.encode(): (v or "").encode() for k, v in kv.items()}

    @property
    def has_dictionary_page(self) -> bool:
        """The chunk starts with a dictionary page."""
        return self._d["dictionary_page_offset"] is not None

    @property
    def is_stats_set(self) -> bool:
        """The chunk has statistics."""
        s = self._d["statistics"]
        return s is not None and _statistics_correct(self._created_by, self._column, s)

    @property
    def statistics(self):
        """The chunk's ``Statistics``, or None."""
        return Statistics._make(self._d["statistics"], self._column, self.num_values) if self.is_stats_set else None

    @property
    def has_index_page(self):
        """Not supported (as in pyarrow)."""
        raise NotImplementedError("not supported in parquet-cpp")

    @property
    def index_page_offset(self):
        """Not supported (as in pyarrow)."""
        raise NotImplementedError("parquet-cpp doesn't return valid values")

    def to_dict(self) -> dict:
        """The chunk's metadata as a dict (pyarrow's keys)."""
        return dict(
            file_offset=self.file_offset, file_path=self.file_path, physical_type=self.physical_type,
            num_values=self.num_values, path_in_schema=self.path_in_schema, is_stats_set=self.is_stats_set,
            statistics=self.statistics.to_dict() if self.is_stats_set else None,
            geo_statistics=self.geo_statistics.to_dict() if self.is_geo_stats_set else None,
            compression=self.compression, encodings=self.encodings,
            has_dictionary_page=self.has_dictionary_page, dictionary_page_offset=self.dictionary_page_offset,
            data_page_offset=self.data_page_offset, total_compressed_size=self.total_compressed_size,
            total_uncompressed_size=self.total_uncompressed_size,
            bloom_filter_offset=self.bloom_filter_offset, bloom_filter_length=self.bloom_filter_length,
        )

    def equals(self, other) -> bool:
        """Same metadata."""
        return isinstance(other, ColumnChunkMetaData) and self._d == other._d

    __eq__ = equals
    __hash__ = None

    def __repr__(self):
        return f"{object.__repr__(self)}\n" + "\n".join(f"  {k}: {v}" for k, v in self.to_dict().items())


class SortingColumn:
    """A column the rows of a row group are sorted by (pyarrow's ``SortingColumn``)."""

    def __init__(self, column_index: int, descending: bool = False, nulls_first: bool = False):
        self.column_index = int(column_index)
        self.descending = bool(descending)
        self.nulls_first = bool(nulls_first)

    @classmethod
    def from_ordering(cls, schema, sort_keys, null_placement="at_end"):
        """Sorting columns from ``(name, "ascending"|"descending")`` keys (or names) of an
        Arrow schema's leaf columns."""
        if null_placement not in ("at_start", "at_end"):
            raise ValueError('null_placement must be "at_start" or "at_end"')
        index = _leaf_index(schema)
        out = []
        for key in sort_keys:
            if isinstance(key, str):
                name, order = key, "ascending"
            elif isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, str) for k in key):
                name, order = key
                if order not in ("ascending", "descending"):
                    raise ValueError(f"Invalid sort key direction: {order}")
            else:
                raise ValueError(f"Invalid sort key: {key}")
            if name not in index:
                raise ValueError(f"Sort key name '{name}' not found in schema:\n{schema}")
            out.append(cls(index[name], order == "descending", null_placement == "at_start"))
        return tuple(out)

    @staticmethod
    def to_ordering(schema, sorting_columns):
        """The ``(sort_keys, null_placement)`` of sorting columns over an Arrow schema."""
        names = {i: n for n, i in _leaf_index(schema).items()}
        keys, nulls_first = [], None
        for c in sorting_columns:
            keys.append((names[c.column_index], "descending" if c.descending else "ascending"))
            if nulls_first is None:
                nulls_first = c.nulls_first
            elif nulls_first != c.nulls_first:
                raise ValueError("Sorting columns have inconsistent null placement")
        return tuple(keys), "at_start" if nulls_first else "at_end"

    def to_dict(self) -> dict:
        """``{column_index, descending, nulls_first}``."""
        return dict(column_index=self.column_index, descending=self.descending, nulls_first=self.nulls_first)

    def __eq__(self, other):
        return isinstance(other, SortingColumn) and self.to_dict() == other.to_dict()

    def __hash__(self):
        return hash((self.column_index, self.descending, self.nulls_first))

    def __repr__(self):
        return (f"SortingColumn(column_index={self.column_index}, descending={self.descending}, "
                f"nulls_first={self.nulls_first})")


def _leaf_index(schema):
    """Dotted leaf paths of an Arrow schema → leaf column index (as pyarrow numbers them)."""
    index = {}

    def walk(field, prefix):
        name = prefix + field.name
        t = field.type
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(t.field(i), name + ".")
        elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            walk(t.value_field, name + ".list.")
        elif pa.types.is_map(t):
            walk(t.key_field, name + ".key_value.")
            walk(t.item_field, name + ".key_value.")
        else:
            index[name] = len(index)

    for f in schema:
        walk(f, "")
    return index


class RowGroupMetaData(_Internal):
    """One row group: rows, sizes, column chunks, sorting columns."""

    def _init(self, d, schema: ParquetSchema, created_by=None):
        self._d = d
        self._schema = schema
        self._created_by = created_by

    num_columns = property(lambda self: len(self._d["columns"]), doc="Column chunks.")
    num_rows = property(lambda self: self._d["num_rows"], doc="Rows.")
    total_byte_size = property(lambda self: self._d["total_byte_size"], doc="Uncompressed bytes of the data.")

    @property
    def total_compressed_size(self):
        """Bytes stored (sum of the chunks' if the footer does not say)."""
        v = self._d["total_compressed_size"]
        return v if v is not None else sum(c["total_compressed_size"] for c in self._d["columns"])

    @property
    def sorting_columns(self):
        """The declared sort order, a tuple of ``SortingColumn``."""
        return tuple(SortingColumn(*c) for c in (self._d["sorting_columns"] or ()))

    def column(self, i) -> ColumnChunkMetaData:
        """Column chunk ``i`` (no negative indexes, as pyarrow)."""
        if not isinstance(i, int) or i < 0 or i >= self.num_columns:
            raise IndexError(f"{i} out of bounds")
        return ColumnChunkMetaData._make(self._d["columns"][i], self._schema.column(i), self._created_by)

    def to_dict(self) -> dict:
        """The row group as a dict (pyarrow's keys)."""
        return dict(num_columns=self.num_columns, num_rows=self.num_rows, total_byte_size=self.total_byte_size,
                    columns=[self.column(i).to_dict() for i in range(self.num_columns)],
                    sorting_columns=[c.to_dict() for c in self.sorting_columns])

    def equals(self, other) -> bool:
        """Same metadata."""
        return isinstance(other, RowGroupMetaData) and self._d == other._d

    __eq__ = equals
    __hash__ = None

    def __repr__(self):
        return (f"{object.__repr__(self)}\n  num_columns: {self.num_columns}\n  num_rows: {self.num_rows}\n"
                f"  total_byte_size: {self.total_byte_size}\n  sorting_columns: {self.sorting_columns}")
