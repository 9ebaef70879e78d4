"""The Parquet schema as pyarrow's classes give it (``ParquetSchema``, ``ColumnSchema``,
``ParquetLogicalType``), over the schema elements the native module exports, and the base
of every metadata class parquetry builds (``_Internal``: never constructed by the caller)."""

from __future__ import annotations

import re

import pyarrow as pa

_LOGICAL_NAMES = {"INTEGER": "INT", "UNKNOWN": "UNKNOWN"}
_UNITS = {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}
_UNIT_WORDS = {"MILLIS": "milliseconds", "MICROS": "microseconds", "NANOS": "nanoseconds"}


class _Internal:
    """Classes built by parquetry from a file's footer, never by the caller (as pyarrow's):
    ``X()`` raises ``TypeError``; parquetry builds them with ``X._make(...)``."""

    def __init__(self, *args, **kwargs):
        raise TypeError(f"Do not call {type(self).__name__}'s constructor directly")

    @classmethod
    def _make(cls, *args):
        obj = cls.__new__(cls)
        obj._init(*args)
        return obj


def _parse_logical(text):
    """``TIMESTAMP(MICROS,true)`` as ``("TIMESTAMP", ["MICROS", "true"])``."""
    if text is None:
        return None, []
    m = re.fullmatch(r"([A-Z0-9_]+)(?:\((.*)\))?", text)
    if not m:
        return text, []
    return m.group(1), [a for a in (m.group(2) or "").split(",") if a]


# Legacy converted types as the logical types they mean (Arrow C++'s
# LogicalType::FromConvertedType), for columns that carry only the converted type.
_FROM_CONVERTED = {
    "UTF8": "STRING", "MAP": "MAP", "MAP_KEY_VALUE": "MAP", "LIST": "LIST", "ENUM": "ENUM",
    "DATE": "DATE", "TIME_MILLIS": "TIME(MILLIS,true)", "TIME_MICROS": "TIME(MICROS,true)",
    "TIMESTAMP_MILLIS": "TIMESTAMP(MILLIS,true)", "TIMESTAMP_MICROS": "TIMESTAMP(MICROS,true)",
    "UINT_8": "INTEGER(8,false)", "UINT_16": "INTEGER(16,false)", "UINT_32": "INTEGER(32,false)",
    "UINT_64": "INTEGER(64,false)", "INT_8": "INTEGER(8,true)", "INT_16": "INTEGER(16,true)",
    "INT_32": "INTEGER(32,true)", "INT_64": "INTEGER(64,true)", "JSON": "JSON", "BSON": "BSON",
    "INTERVAL": "INTERVAL",
}


def _effective_logical(e):
    """``(logical type text, from the converted type?)`` of a schema element."""
    if e["logical_type"] is not None:
        return e["logical_type"], False
    conv = e["converted_type"]
    if conv == "DECIMAL":
        return f"DECIMAL({e['precision'] or 0},{e['scale'] or 0})", True
    return _FROM_CONVERTED.get(conv), conv in _FROM_CONVERTED


def _effective_converted(e) -> str:
    """The converted type of a schema element as pyarrow gives it: derived from the logical
    type when there is one (Arrow C++'s LogicalType::ToConvertedType, whatever the file
    stores), else the stored one."""
    if e["logical_type"] is None:
        return e["converted_type"] or "NONE"
    name, args = _parse_logical(e["logical_type"])
    if name.startswith("UNKNOWN_LOGICAL_TYPE"):
        return "UNKNOWN"
    if name in ("STRING", "MAP", "LIST", "ENUM", "DATE", "JSON", "BSON", "DECIMAL"):
        return "UTF8" if name == "STRING" else name
    if name == "TIME" and args[0] in ("MILLIS", "MICROS") and args[1] == "true":
        return f"TIME_{args[0]}"
    if name == "TIMESTAMP" and args[0] in ("MILLIS", "MICROS") and args[1] == "true":
        return f"TIMESTAMP_{args[0]}"
    if name == "INTEGER":
        return f"{'INT' if args[1] == 'true' else 'UINT'}_{args[0]}"
    return "NONE"


class ParquetLogicalType(_Internal):
    """A column's logical type: ``type`` is its name as pyarrow gives it (``"INT"``,
    ``"STRING"``, ``"TIMESTAMP"``..., ``"NONE"`` when the column has none), from the legacy
    converted type when the column has only that (as pyarrow)."""

    def _init(self, text, from_converted=False, geo=(None, None)):
        self._name, self._args = _parse_logical(text)
        self._text = text
        self._from_converted = from_converted
        self._geo = geo  # the stored (crs, algorithm) of GEOMETRY/GEOGRAPHY

    @property
    def type(self) -> str:
        """The logical type's name (pyarrow's spelling; INTERVAL has none there: UNKNOWN)."""
        if self._name is None:
            return "NONE"
        if self._name == "INTERVAL":
            return "UNKNOWN"
        if self._name.startswith("UNKNOWN_LOGICAL_TYPE"):
            return "UNDEFINED"
        return _LOGICAL_NAMES.get(self._name, self._name)

    def __str__(self):
        n, a = self._name, self._args
        if n is None:
            return "None"
        if n == "INTEGER":
            return f"Int(bitWidth={a[0]}, isSigned={a[1]})"
        if n == "DECIMAL":
            return f"Decimal(precision={a[0]}, scale={a[1]})"
        if n in ("TIMESTAMP", "TIME"):
            word = "Timestamp" if n == "TIMESTAMP" else "Time"
            conv = "true" if self._from_converted else "false"
            extra = f", is_from_converted_type={conv}, force_set_converted_type=false" if n == "TIMESTAMP" else ""
            return f"{word}(isAdjustedToUTC={a[1]}, timeUnit={_UNIT_WORDS.get(a[0], a[0])}{extra})"
        if n == "UNKNOWN":
            return "Null"
        if n.startswith("UNKNOWN_LOGICAL_TYPE"):
            return "Undefined"
        if n == "VARIANT":
            return f"Variant({a[0]})" if a else "Variant"
        if n in ("GEOMETRY", "GEOGRAPHY"):
            crs, algorithm = self._geo
            if n == "GEOMETRY":
                return f"Geometry(crs={crs or ''})"
            return f"Geography(crs={crs or ''}, algorithm={(algorithm or 'SPHERICAL').lower()})"
        return n.capitalize() if n not in ("JSON", "BSON", "UUID") else n

    def to_json(self) -> str:
        """The type and its parameters as JSON (``{"Type": "String"}``...)."""
        import json

        n, a = self._name, self._args
        d = {"Type": str(self).split("(")[0]}
        if n == "INTEGER":
            d.update(bitWidth=int(a[0]), isSigned=a[1] == "true")
        elif n == "DECIMAL":
            d.update(precision=int(a[0]), scale=int(a[1]))
        elif n in ("TIMESTAMP", "TIME"):
            d.update(isAdjustedToUTC=a[1] == "true", timeUnit=_UNIT_WORDS[a[0]])
        return json.dumps(d)

    def __repr__(self):
        return f"{object.__repr__(self)}\n  {self}"

    def __eq__(self, other):
        return isinstance(other, ParquetLogicalType) and (self._name, self._args) == (other._name, other._args)

    __hash__ = None


def _logical_type(e) -> ParquetLogicalType:
    """The ``ParquetLogicalType`` of a schema element."""
    text, from_converted = _effective_logical(e)
    return ParquetLogicalType._make(text, from_converted, (e.get("geo_crs"), e.get("geo_algorithm")))


class ColumnSchema:
    """One leaf column of a Parquet schema: name, dotted path, levels, types."""

    def __init__(self, element, path, max_definition_level, max_repetition_level):
        self._e = element
        self.path = path
        self.max_definition_level = max_definition_level
        self.max_repetition_level = max_repetition_level

    name = property(lambda self: self._e["name"], doc="The leaf's name.")
    physical_type = property(lambda self: self._e["physical_type"], doc="Physical type name.")
    converted_type = property(lambda self: _effective_converted(self._e),
                              doc="Legacy converted type (derived from the logical type if absent, as pyarrow).")
    logical_type = property(lambda self: _logical_type(self._e),
                            doc="Logical type (from the converted type if absent, as pyarrow).")
    length = property(lambda self: self._e["type_length"] or 0, doc="FIXED_LEN_BYTE_ARRAY width, else 0 (as pyarrow).")

    def _decimal(self, i, key):
        # As Arrow C++ builds its column descriptors: from the logical type when there is
        # one (-1 unless DECIMAL), else from the legacy fields when there is a converted
        # type (Thrift's 0 when unset), else -1.
        name, args = _parse_logical(self._e["logical_type"])
        if name is not None:
            return int(args[i]) if name == "DECIMAL" else -1
        if self._e["converted_type"] is not None:
            return self._e[key] or 0
        return -1

    @property
    def precision(self) -> int:
        """Decimal precision (from the logical type, else the legacy field), else -1 (as pyarrow)."""
        return self._decimal(0, "precision")

    @property
    def scale(self) -> int:
        """Decimal scale (from the logical type, else the legacy field), else -1 (as pyarrow)."""
        return self._decimal(1, "scale")

    def equals(self, other) -> bool:
        """Same element and levels."""
        return isinstance(other, ColumnSchema) and (self._e, self.path, self.max_definition_level,
                                                   self.max_repetition_level) == (
            other._e, other.path, other.max_definition_level, other.max_repetition_level)

    __eq__ = equals
    __hash__ = None

    def __repr__(self):
        return (f"<ParquetColumnSchema>\n  name: {self.name}\n  path: {self.path}\n"
                f"  max_definition_level: {self.max_definition_level}\n"
                f"  max_repetition_level: {self.max_repetition_level}\n"
                f"  physical_type: {self.physical_type}\n  logical_type: {self.logical_type}\n"
                f"  converted_type (legacy): {self.converted_type}")


def _leaves(elements):
    """The leaf columns of a flattened schema tree, with paths and levels."""
    out = []

    def walk(i, path, d, r):
        e = elements[i]
        rep = e["repetition"]
        if i > 0:
            path = path + [e["name"]]
            d += rep in ("OPTIONAL", "REPEATED")
            r += rep == "REPEATED"
        n = e["num_children"]
        i += 1
        if n is None and path:
            out.append(ColumnSchema(e, ".".join(path), d, r))
            return i
        for _ in range(n or 0):
            i = walk(i, path, d, r)
        return i

    if elements:
        walk(0, [], 0, 0)
    return out


class ParquetSchema:
    """A file's Parquet schema: its leaf columns (``schema[i]``, ``len(schema)``), names
    and the Arrow schema the file reads as."""

    def __init__(self, elements, arrow_schema=None):
        self._elements = elements
        self._columns = _leaves(elements)
        self._arrow = arrow_schema

    def __len__(self):
        return len(self._columns)

    def __getitem__(self, i):
        return self.column(i)

    def column(self, i) -> ColumnSchema:
        """Leaf column ``i`` (no negative indexes, as pyarrow)."""
        if not isinstance(i, int) or i < 0 or i >= len(self._columns):
            raise IndexError(f"Column index {i} out of range")
        return self._columns[i]

    @property
    def names(self):
        """Leaf names."""
        return [c.name for c in self._columns]

    def to_arrow_schema(self) -> pa.Schema:
        """The Arrow schema the file reads as."""
        return self._arrow() if callable(self._arrow) else self._arrow

    def equals(self, other) -> bool:
        """Same schema tree."""
        return isinstance(other, ParquetSchema) and self._elements == other._elements

    __eq__ = equals
    __hash__ = None

    def __repr__(self):
        return f"{object.__repr__(self)}\n{self._text()}"

    def _text(self) -> str:
        """The schema in the Parquet text form pyarrow prints (``required group
        field_id=-1 schema { ... }``)."""
        lines = []

        def element(i, depth):
            e = elements[i]
            pad = "  " * depth
            rep = (e["repetition"] or "REQUIRED").lower()
            fid = e["field_id"] if e["field_id"] is not None else -1
            text, _ = _effective_logical(e)
            logical = _logical_type(e)
            note = f" ({logical})" if text is not None else ""
            if logical.type == "UNDEFINED":
                note = " (UNKNOWN)"
            if e["num_children"] is None and i > 0:
                t = e["physical_type"].lower()
                if t == "byte_array":
                    t = "binary"
                elif t == "fixed_len_byte_array":
                    t = f"fixed_len_byte_array({e['type_length']})"
                lines.append(f"{pad}{rep} {t} field_id={fid} {e['name']}{note};")
                return i + 1
            lines.append(f"{pad}{rep} group field_id={fid} {e['name']}{note} {{")
            i += 1
            for _ in range(e["num_children"] or 0):
                i = element(i, depth + 1)
            lines.append(f"{pad}}}")
            return i

        elements = self._elements
        if elements:
            element(0, 0)
        return "\n".join(lines)
