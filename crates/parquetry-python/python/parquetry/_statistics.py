"""``Statistics`` (pyarrow's class) over the stored statistics: bounds decoded by the
column's logical type the way pyarrow decodes them, and which statistics to trust by Arrow
C++'s rules (old writers compared unsigned values as signed)."""

from __future__ import annotations

import datetime
import decimal
import re
import struct

import pyarrow as pa

from ._schema import _UNITS, ColumnSchema, _Internal, _parse_logical

def _plain(raw, physical, length=None):
    """A stored PLAIN min/max as a Python value of its physical type."""
    if raw is None:
        return None
    if physical == "BOOLEAN":
        return bool(raw[0]) if raw else None
    fmt = {"INT32": "<i", "INT64": "<q", "FLOAT": "<f", "DOUBLE": "<d"}.get(physical)
    if fmt:
        return struct.unpack(fmt, bytes(raw))[0]
    return bytes(raw)


def _logical(value, raw, physical, column: ColumnSchema):
    """``value`` (the physical value) as its logical type, as pyarrow's statistics give it."""
    name, args = _parse_logical(column._e["logical_type"])
    conv = column.converted_type
    if name == "INTEGER" or conv.startswith(("UINT_", "INT_")):
        signed = args[1] == "true" if name == "INTEGER" else not conv.startswith("U")
        if not signed:
            return value & (0xFFFFFFFF if physical == "INT32" else 0xFFFFFFFFFFFFFFFF)
        return value
    if name == "STRING" or (name is None and conv == "UTF8"):  # ENUM, JSON, BSON: bytes, as pyarrow
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(raw)
    if name == "DATE" or conv == "DATE":
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=value)
    if name == "TIMESTAMP" or conv in ("TIMESTAMP_MILLIS", "TIMESTAMP_MICROS"):
        unit = _UNITS[args[0]] if name else ("ms" if conv.endswith("MILLIS") else "us")
        tz = "UTC" if (not name or args[1] == "true") else None
        return pa.scalar(value, pa.timestamp(unit, tz)).as_py()
    if name == "TIME" or conv in ("TIME_MILLIS", "TIME_MICROS"):
        unit = _UNITS[args[0]] if name else ("ms" if conv.endswith("MILLIS") else "us")
        t = pa.time32(unit) if unit == "ms" else pa.time64(unit)
        return pa.scalar(value, t).as_py()
    if name == "DECIMAL" or conv == "DECIMAL":
        scale = int(args[1]) if name else max(column.scale, 0)
        unscaled = value if isinstance(value, int) else int.from_bytes(bytes(raw), "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-scale)
    if name == "FLOAT16":
        return bytes(raw)  # pyarrow gives FLOAT16 bounds as their two stored bytes
    if name == "UUID":
        return bytes(raw)  # pyarrow gives UUID bounds as their 16 stored bytes
    return value


def _sort_order(column: ColumnSchema) -> str:
    """``SIGNED``, ``UNSIGNED`` or ``UNKNOWN``: how the column's statistics compare values
    (Arrow C++'s ``GetSortOrder``)."""
    name, args = _parse_logical(column._e["logical_type"])
    conv, physical = column.converted_type, column.physical_type
    if name == "INTEGER":
        return "SIGNED" if args[1] == "true" else "UNSIGNED"
    if name == "DECIMAL" or conv == "DECIMAL" or name == "FLOAT16":
        return "SIGNED"
    if conv.startswith("UINT_"):
        return "UNSIGNED"
    if conv == "INTERVAL":
        return "UNKNOWN"
    if physical in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
        return "UNSIGNED"
    return "SIGNED"


def _version(created_by):
    """``(application, (major, minor, patch))`` of a ``created_by`` string."""
    m = re.match(r"(.*?)\s+version\s+(\d+)\.(\d+)(?:\.(\d+))?", created_by or "")
    if not m:
        return (created_by or "unknown"), None
    return m.group(1), (int(m.group(2)), int(m.group(3)), int(m.group(4) or 0))


def _statistics_correct(created_by, column: ColumnSchema, d) -> bool:
    """Whether the chunk's statistics can be trusted, by Arrow C++'s rules
    (``ApplicationVersion::HasCorrectStatistics``): parquet-mr before 1.10 and parquet-cpp
    before 1.3 compared all but signed types wrongly (PARQUET-251, PARQUET-686), unless min
    equals max; an unknown sort order has no usable statistics."""
    app, version = _version(created_by)
    order = _sort_order(column)
    physical = column.physical_type
    old = version is not None and ((app == "parquet-cpp" and version < (1, 3, 0))
                                   or (app == "parquet-mr" and version < (1, 10, 0)))
    if old:
        # Deprecated bounds of a non-signed column are dropped before this check, as in
        # Arrow C++ (they were compared as signed bytes).
        usable = not d.get("deprecated_min_max") or order == "SIGNED"
        same = usable and d["min"] is not None and d["min"] == d["max"]
        if order != "SIGNED" and not same:
            return False
        if physical not in ("FIXED_LEN_BYTE_ARRAY", "BYTE_ARRAY"):
            return True
    if not created_by:
        return True
    if order == "UNKNOWN":
        return False
    if app == "parquet-mr" and version is not None and version < (1, 8, 0):
        return False
    return True


class Statistics(_Internal):
    """A column chunk's statistics: ``min``/``max`` decoded by the logical type (``min_raw``
    and ``max_raw`` by the physical type), counts, and whether the bounds are exact."""

    def _init(self, d, column: ColumnSchema, num_values):
        self._d = d
        self._column = column
        self._num_values = num_values

    @property
    def has_min_max(self) -> bool:
        """Both bounds are present and usable: the deprecated ``min``/``max`` fields (all
        old writers stored) count only for signed columns, as in pyarrow."""
        if self._d["min"] is None or self._d["max"] is None:
            return False
        return not self._d.get("deprecated_min_max") or _sort_order(self._column) == "SIGNED"

    @property
    def has_null_count(self) -> bool:
        """The null count is present."""
        return self._d["null_count"] is not None

    @property
    def has_distinct_count(self) -> bool:
        """The distinct count is present."""
        return self._d["distinct_count"] is not None

    def _bound(self, key, logical):
        if not self.has_min_max:
            return None
        raw = self._d[key]
        value = _plain(raw, self.physical_type)
        return _logical(value, raw, self.physical_type, self._column) if logical else value

    min_raw = property(lambda self: self._bound("min", False), doc="Lower bound, physical type.")
    max_raw = property(lambda self: self._bound("max", False), doc="Upper bound, physical type.")
    min = property(lambda self: self._bound("min", True), doc="Lower bound as its logical type.")
    max = property(lambda self: self._bound("max", True), doc="Upper bound as its logical type.")
    null_count = property(lambda self: self._d["null_count"], doc="Nulls, or None if not stored.")
    distinct_count = property(lambda self: self._d["distinct_count"], doc="Distinct values, or None.")
    physical_type = property(lambda self: self._column.physical_type, doc="Physical type name.")
    logical_type = property(lambda self: self._column.logical_type, doc="Logical type.")
    converted_type = property(lambda self: self._column.converted_type, doc="Legacy converted type.")

    @property
    def num_values(self) -> int:
        """Non-null values of the chunk (pyarrow's meaning: values minus nulls)."""
        return self._num_values - (self._d["null_count"] or 0)

    @property
    def is_min_value_exact(self):
        """Whether ``min`` is the actual minimum (None if the file does not say and there is one)."""
        return self._exact("is_min_value_exact")

    @property
    def is_max_value_exact(self):
        """Whether ``max`` is the actual maximum."""
        return self._exact("is_max_value_exact")

    def _exact(self, key):
        if not self.has_min_max:
            return None
        v = self._d[key]
        return True if v is None else v

    def to_dict(self) -> dict:
        """The statistics as a dict (pyarrow's keys)."""
        return dict(has_min_max=self.has_min_max, min=self.min, max=self.max, null_count=self.null_count,
                    distinct_count=self.distinct_count, num_values=self.num_values,
                    physical_type=self.physical_type)

    def equals(self, other) -> bool:
        """Same stored statistics of the same type."""
        return isinstance(other, Statistics) and self._d == other._d and self.physical_type == other.physical_type

    __eq__ = equals
    __hash__ = None

    def __repr__(self):
        return (f"{object.__repr__(self)}\n  has_min_max: {self.has_min_max}\n  min: {self.min}\n"
                f"  max: {self.max}\n  null_count: {self.null_count}\n"
                f"  distinct_count: {self.distinct_count}\n  num_values: {self.num_values}\n"
                f"  physical_type: {self.physical_type}\n  logical_type: {self.logical_type}\n"
                f"  converted_type (legacy): {self.converted_type}")


class GeoStatistics(_Internal):
    """A GEOMETRY or GEOGRAPHY column chunk's statistics (pyarrow's ``GeoStatistics``):
    the bounding box (``xmin``..``mmax``, None for a dimension the file does not give; an
    ``xmin`` above ``xmax`` wraps around the antimeridian) and the WKB geometry type codes."""

    def _init(self, d):
        self._d = dict(d, geospatial_types=d["geospatial_types"] or [])

    geospatial_types = property(lambda self: sorted(self._d["geospatial_types"]) or None,
                                doc="ISO WKB geometry type codes, sorted, or None (none listed, as pyarrow).")
    xmin = property(lambda self: self._d["xmin"], doc="Least x (longitude), or None.")
    xmax = property(lambda self: self._d["xmax"], doc="Greatest x, or None.")
    ymin = property(lambda self: self._d["ymin"], doc="Least y (latitude), or None.")
    ymax = property(lambda self: self._d["ymax"], doc="Greatest y, or None.")
    zmin = property(lambda self: self._d["zmin"], doc="Least z, or None.")
    zmax = property(lambda self: self._d["zmax"], doc="Greatest z, or None.")
    mmin = property(lambda self: self._d["mmin"], doc="Least m, or None.")
    mmax = property(lambda self: self._d["mmax"], doc="Greatest m, or None.")

    def to_dict(self) -> dict:
        """The statistics as a dict (pyarrow's keys)."""
        return {k: getattr(self, k) for k in ("geospatial_types", "xmin", "xmax", "ymin", "ymax",
                                              "zmin", "zmax", "mmin", "mmax")}

    def __repr__(self):
        return (f"{object.__repr__(self)}\n  geospatial_types: {self.geospatial_types}\n"
                f"  xmin: {self.xmin}, xmax: {self.xmax}\n  ymin: {self.ymin}, ymax: {self.ymax}\n"
                f"  zmin: {self.zmin}, zmax: {self.zmax}\n  mmin: {self.mmin}, mmax: {self.mmax}")
