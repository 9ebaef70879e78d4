"""The schema pyarrow would read a file as, from the native reader's: the file's key/value
metadata, ``read_dictionary``, ``binary_type``/``list_type`` DataTypes, INT96 units, the
``arrow.json``/``arrow.uuid`` extension types, and the casts that get there."""

from __future__ import annotations

import json

import pyarrow as pa

from ._schema import ParquetSchema


def _cast(col, t):
    """``col`` as type ``t`` (dictionary-encoding when ``t`` asks for it; timestamps
    truncated to a coarser unit, as pyarrow's INT96 unit coercion does)."""
    if pa.types.is_dictionary(t) and not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    if col.type == t:
        return col
    return col.cast(t, safe=not (pa.types.is_timestamp(t) and pa.types.is_timestamp(col.type)))


def _stored_arrow_schema(kv):
    """The ``ARROW:schema`` a writer stored, decoded (None if absent or unreadable)."""
    import base64

    text = kv.get("ARROW:schema")
    if not text:
        return None
    try:
        return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(text)))
    except Exception:
        return None


def _with_dictionary(t, parts):
    """Type ``t`` with the leaf at dotted ``parts`` read as a dictionary (pyarrow's
    ``read_dictionary`` names leaves by their Parquet path: ``a``, ``a.b``,
    ``a.list.element``)."""
    if not parts:
        return t if pa.types.is_dictionary(t) else pa.dictionary(pa.int32(), t)
    head, rest = parts[0], parts[1:]
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_with_dictionary(f.type, rest)) if f.name == head else f for f in t])
    if (pa.types.is_list(t) or pa.types.is_large_list(t)) and head == "list":
        inner = t.value_field.with_type(_with_dictionary(t.value_type, rest[1:]))
        return pa.list_(inner) if pa.types.is_list(t) else pa.large_list(inner)
    return t


def _binary_as(t, binary_type):
    """Type ``t`` with pyarrow's ``binary_type`` applied: binary columns take it, string
    columns its string counterpart (``binary_view`` → ``string_view``...)."""
    binaries = (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t))
    strings = (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))
    if binaries:
        return binary_type
    if strings:
        if pa.types.is_large_binary(binary_type):
            return pa.large_string()
        if pa.types.is_binary_view(binary_type):
            return pa.string_view()
        return pa.string()
    return t


def _large_lists(t):
    """Type ``t`` with every list a large list (pyarrow's ``list_type=pa.LargeListType``)."""
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.large_list(t.value_field.with_type(_large_lists(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_large_lists(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_large_lists(t.key_type)),
                       t.item_field.with_type(_large_lists(t.item_type)), t.keys_sorted)
    return t


def _stored_uuid(kv, name) -> bool:
    """Whether the stored Arrow schema (if any) types top-level field ``name`` as arrow.uuid."""
    if "ARROW:schema" not in kv:
        return False
    stored = _stored_arrow_schema(kv)
    return stored is not None and name in stored.names and stored.field(name).type == pa.uuid()


def _target_schema(pf) -> pa.Schema:
    """The schema ``ParquetFile`` ``pf`` reads as (see ``ParquetFile._target_schema``)."""
    native = pf._native_schema()
    # The schema elements and key/value pairs only: exporting the whole footer (every row
    # group's chunks) would cost more than the read for files with many row groups.
    kv = pf._file().key_value_metadata() or {}
    has_arrow_schema = "ARROW:schema" in kv
    stored = _stored_arrow_schema(kv) if any(pa.types.is_dictionary(f.type) for f in native) else None
    leaves = {c.path: c for c in ParquetSchema(pf._file().schema_elements())._columns}
    fields = []
    for f in native:
        t, leaf = f.type, leaves.get(f.name)
        hint = stored.field(f.name).type if stored is not None and f.name in stored.names else None
        if t == pa.time32("s"):
            t = pa.time32("ms")  # Parquet has no seconds: pyarrow reads such a column as ms
        if (hint is not None and pa.types.is_dictionary(t) and pa.types.is_dictionary(hint)
                and hint.ordered and not t.ordered):
            t = pa.dictionary(t.index_type, t.value_type, ordered=True)
        if pf._list_type is pa.LargeListType and not has_arrow_schema:
            t = _large_lists(t)
        if isinstance(pf._binary_type, pa.DataType) and not has_arrow_schema:
            t = _binary_as(t, pf._binary_type)
        if pf._int96_unit and leaf is not None and leaf.physical_type == "INT96" and pa.types.is_timestamp(t):
            # The core reads INT96 in this unit straight from days and nanoseconds, so
            # dates beyond the nanosecond range (1677-2262) keep their value.
            t = pa.timestamp(pf._int96_unit, t.tz)
        # Only string and 16-byte binary columns change type by their logical type below;
        # building the others' (a regex each) cost ~10 µs a column on every read.
        annotated = pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t) \
            or t == pa.binary(16) or t == pa.uuid()
        logical = leaf.logical_type.type if leaf is not None and annotated else None
        if logical == "ENUM" and not has_arrow_schema:
            # As pyarrow: an ENUM column (parquet-java writes Java enums so) is binary.
            t = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary(),
                 pa.string_view(): pa.binary_view()}.get(t, t)
        if pf._extensions and logical == "JSON" and (pa.types.is_string(t) or pa.types.is_large_string(t)):
            t = pa.json_(t)
        if pf._extensions and logical == "UUID" and t == pa.binary(16):
            t = pa.uuid()
        if not pf._extensions and logical == "UUID" and t == pa.uuid() and not _stored_uuid(kv, f.name):
            # As pyarrow: without extensions, only a stored Arrow schema makes a UUID arrow.uuid.
            t = pa.binary(16)
        fields.append(f.with_type(t))
    for name in pf._read_dictionary:
        # As pyarrow: only BYTE_ARRAY leaves (strings, binary) are read as dictionaries.
        leaf = leaves.get(name)
        if leaf is None or leaf.physical_type != "BYTE_ARRAY":
            continue
        parts = name.split(".")
        fields = [f.with_type(_with_dictionary(f.type, parts[1:])) if f.name == parts[0] else f for f in fields]
    metadata = {k.encode(): (v or "").encode() for k, v in kv.items() if k != "ARROW:schema"}
    metadata.update(native.metadata or {})
    return pa.schema(fields, metadata=metadata or None)


def _table(stream) -> pa.Table:
    return pa.RecordBatchReader._import_from_c_capsule(stream.__arrow_c_stream__()).read_all()


def _pandas_index_columns(schema: pa.Schema):
    """The stored columns pandas metadata names as the index."""
    meta = (schema.metadata or {}).get(b"pandas")
    if not meta:
        return []
    return [c for c in json.loads(meta.decode("utf8")).get("index_columns", []) if isinstance(c, str)]
