"""A small, independent decoder of the Thrift compact protocol, for checking the structures
parquetry writes that pyarrow does not expose (page headers, ColumnIndex, OffsetIndex).

`read_struct(buf, pos)` returns (struct, next_pos), where a struct is a dict from field id to
value: int, bool, bytes, float, list, or a nested dict. Field names are the caller's business
(the Parquet thrift IDL numbers them).
"""
import struct

# Compact protocol type ids.
T_STOP, T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, T_STRUCT = range(13)


def read_varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def zigzag(n):
    return (n >> 1) ^ -(n & 1)


def read_value(buf, pos, t):
    if t == T_TRUE:
        return True, pos
    if t == T_FALSE:
        return False, pos
    if t == T_BYTE:
        v = buf[pos]
        return (v - 256 if v > 127 else v), pos + 1
    if t in (T_I16, T_I32, T_I64):
        v, pos = read_varint(buf, pos)
        return zigzag(v), pos
    if t == T_DOUBLE:
        return struct.unpack_from("<d", buf, pos)[0], pos + 8
    if t == T_BINARY:
        n, pos = read_varint(buf, pos)
        return bytes(buf[pos:pos + n]), pos + n
    if t in (T_LIST, T_SET):
        head = buf[pos]
        pos += 1
        n, et = head >> 4, head & 0x0F
        if n == 15:
            n, pos = read_varint(buf, pos)
        out = []
        for _ in range(n):
            if et in (T_TRUE, T_FALSE):
                # Booleans in lists are one byte each: 1 true, 2 (or 0) false.
                out.append(buf[pos] == 1)
                pos += 1
            else:
                v, pos = read_value(buf, pos, et)
                out.append(v)
        return out, pos
    if t == T_MAP:
        n, pos = read_varint(buf, pos)
        if n == 0:
            return {}, pos
        types = buf[pos]
        pos += 1
        kt, vt = types >> 4, types & 0x0F
        out = {}
        for _ in range(n):
            k, pos = read_value(buf, pos, kt)
            v, pos = read_value(buf, pos, vt)
            out[k] = v
        return out, pos
    if t == T_STRUCT:
        return read_struct(buf, pos)
    raise ValueError(f"unknown thrift compact type {t} at {pos}")


def _read_fields(buf, pos, read):
    """A struct's fields as {field id: read(buf, pos, type)}, and the position after it."""
    out = {}
    last = 0
    while True:
        head = buf[pos]
        pos += 1
        t = head & 0x0F
        if t == T_STOP:
            return out, pos
        delta = head >> 4
        if delta:
            fid = last + delta
        else:
            fid, pos = read_varint(buf, pos)
            fid = zigzag(fid)
        out[fid], pos = read(buf, pos, t)
        last = fid


def read_struct(buf, pos=0):
    return _read_fields(buf, pos, read_value)


# ---------------------------------------------------------------------------------------------
# Typed reading and writing, for rewriting metadata (tests/support/repage.py): a typed struct
# is a dict from field id to (type id, value), where a list's value is (element type, items)
# and a struct's value is again a typed struct.

def read_struct_typed(buf, pos=0):
    return _read_fields(buf, pos, _read_typed)


def _read_typed(buf, pos, t):
    if t == T_STRUCT:
        v, pos = read_struct_typed(buf, pos)
        return (t, v), pos
    if t in (T_LIST, T_SET):
        head = buf[pos]
        pos += 1
        n, et = head >> 4, head & 0x0F
        if n == 15:
            n, pos = read_varint(buf, pos)
        items = []
        for _ in range(n):
            if et in (T_TRUE, T_FALSE):
                items.append(buf[pos] == 1)
                pos += 1
            else:
                (_, v), pos = _read_typed(buf, pos, et)
                items.append(v)
        return (t, (et, items)), pos
    if t == T_MAP:
        raise ValueError("maps are not in parquet.thrift's metadata")
    v, pos = read_value(buf, pos, t)
    return (t, v), pos


def write_varint(out, n):
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _zigzag_encode(n):
    return (n << 1) ^ (n >> 63)


def write_struct_typed(out, fields):
    """Appends a typed struct (read_struct_typed's form) to bytearray `out`."""
    last = 0
    for fid in sorted(fields):
        t, v = fields[fid]
        if t in (T_TRUE, T_FALSE):
            t = T_TRUE if v else T_FALSE
        delta = fid - last
        if 0 < delta <= 15:
            out.append((delta << 4) | t)
        else:
            out.append(t)
            write_varint(out, _zigzag_encode(fid))
        _write_typed(out, t, v)
        last = fid
    out.append(T_STOP)


def _write_typed(out, t, v):
    if t in (T_TRUE, T_FALSE):
        return  # a struct field's bool is in its type id
    if t == T_BYTE:
        out.append(v & 0xFF)
    elif t in (T_I16, T_I32, T_I64):
        write_varint(out, _zigzag_encode(v))
    elif t == T_DOUBLE:
        out += struct.pack("<d", v)
    elif t == T_BINARY:
        write_varint(out, len(v))
        out += v
    elif t in (T_LIST, T_SET):
        et, items = v
        if len(items) < 15:
            out.append((len(items) << 4) | et)
        else:
            out.append(0xF0 | et)
            write_varint(out, len(items))
        for item in items:
            if et in (T_TRUE, T_FALSE):
                out.append(1 if item else 2)
            else:
                _write_typed(out, et, item)
    elif t == T_STRUCT:
        write_struct_typed(out, v)
    else:
        raise ValueError(f"cannot write thrift compact type {t}")
