"""``filters=`` as a ``pyarrow.compute.Expression``: pyarrow's DNF forms (a list of
``(column, op, value)`` tuples, ANDed; or a list of such lists, ORed) or an Expression as is.
The conversion is pyarrow's own (``pyarrow.parquet.core.filters_to_expression``), so the
meaning of every operator is pyarrow's. ``filters_to_condition`` turns the DNF forms, and
Expressions made of the calls the native filter has, into the native condition text
(``parquetry::filter::parse``), which the reader pushes down.

An Expression is read from pyarrow's own serialized form (what pickling it writes: an Arrow
IPC file whose schema metadata lists the tree as ``call``/``field_ref``/``literal``/
``options``/``end`` entries, and whose columns hold the literals and function options), not
from its printed text. Every node must be one this module knows, with the same meaning
(pyarrow's Kleene ``and``/``or``, its ``is_in`` that is false, not null, for a null value);
anything else and the whole Expression is applied after reading, as pyarrow applies it.
"""

from __future__ import annotations

import datetime
import decimal


def filters_to_expression(filters):
    """``filters`` (DNF lists or an Expression) as a ``pyarrow.compute.Expression``."""
    import pyarrow.compute as pc
    from pyarrow.parquet.core import filters_to_expression as pyarrow_filters_to_expression

    if isinstance(filters, pc.Expression):
        return filters
    return pyarrow_filters_to_expression(filters)


# ------------------------------------------------------------------------------------------
# pyarrow's DNF filters as the native condition text.

def _literal(v):
    """``v`` in the condition language, or None where it has no exact form there."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return None
        r = repr(v)
        return r if "e" in r else r + "e0"  # a float, not an exact decimal
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, datetime.datetime):
        return None if v.tzinfo is not None else f"TIMESTAMP '{v.isoformat(sep=' ')}'"
    if isinstance(v, datetime.date):
        return f"DATE '{v.isoformat()}'"
    if isinstance(v, decimal.Decimal) and v.is_finite() and "E" not in str(v):
        return str(v)
    return None


def _name(column):
    return '"' + str(column).replace('"', '""') + '"'


def split_filters(filters):
    """``(condition, expression)`` for a read with ``filters``: the native condition to push
    down (or None), and the Expression to apply after reading (or None). An Expression with
    no exact native form whose top is an ``&`` pushes down the parts that have one (a
    necessary condition: it keeps every matching row) and is applied whole after reading."""
    if filters is None:
        return None, None
    condition = filters_to_condition(filters)
    if condition is not None:
        return condition, None
    expression = filters_to_expression(filters)
    try:
        tree = _tree(expression)
    except _Unsupported:
        return None, expression
    parts = []

    def conjuncts(node):
        if node[0] == "call" and node[1] == "and_kleene" and len(node[2]) == 2:
            for a in node[2]:
                conjuncts(a)
            return
        try:
            parts.append(_condition(node))
        except _Unsupported:
            pass
    conjuncts(tree)
    return (" AND ".join(f"({p})" for p in parts) if parts else None), expression


def filters_to_condition(filters):
    """pyarrow's DNF ``filters`` as a native condition, or None when they have no exact
    form there (an Expression, a value of another type): those are applied after reading.
    A ``str`` is already a condition (parquetry's form: ``"x > 5 AND s LIKE 'ab%'"``)."""
    if isinstance(filters, str):
        return filters
    if type(filters).__name__ == "Expression" and type(filters).__module__.startswith("pyarrow"):
        return expression_to_condition(filters)
    if filters is None or not isinstance(filters, (list, tuple)) or not filters:
        return None
    disjuncts = [filters] if isinstance(filters[0], tuple) else filters
    ors = []
    for conjunction in disjuncts:
        if not isinstance(conjunction, (list, tuple)) or not conjunction:
            return None
        ands = []
        for term in conjunction:
            if not isinstance(term, (list, tuple)) or len(term) != 3 or not isinstance(term[0], str):
                return None
            column, op, value = term
            op = op.lower() if isinstance(op, str) else op
            if op in ("in", "not in"):
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    return None
                values = [_literal(v) for v in value]
                if not values or any(v is None for v in values):
                    return None
                term = f"{_name(column)} {op.upper()} ({', '.join(values)})"
                # pyarrow's `not in` is `~isin`, which keeps nulls (SQL's NOT IN does not).
                ands.append(term if op == "in" else f"({term} OR {_name(column)} IS NULL)")
                continue
            ops = {"=": "=", "==": "=", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
            lit = _literal(value)
            if op not in ops or lit is None:
                return None
            ands.append(f"{_name(column)} {ops[op]} {lit}")
        ors.append("(" + " AND ".join(ands) + ")")
    return " OR ".join(ors)


# ------------------------------------------------------------------------------------------
# A pyarrow Expression as the native condition text.

class _Unsupported(Exception):
    """A node with no exact native form: the Expression is applied after reading."""


def _metadata_pairs(schema):
    """``schema``'s custom metadata as ordered (key, value) pairs, repeated keys kept
    (``Schema.metadata`` is a dict, which keeps one value per key). Read from the schema's
    IPC flatbuffer: Message.header (field 2) is the Schema, Schema.custom_metadata (field 2)
    a vector of KeyValue tables (key, value)."""
    import struct

    buf = schema.serialize().to_pybytes()
    buf = buf[8:] if buf[:4] == b"\xff\xff\xff\xff" else buf[4:]

    def u32(p):
        return struct.unpack_from("<I", buf, p)[0]

    def field(table, i):
        vtable = table - struct.unpack_from("<i", buf, table)[0]
        size = struct.unpack_from("<H", buf, vtable)[0]
        off = struct.unpack_from("<H", buf, vtable + 4 + 2 * i)[0] if 4 + 2 * i < size else 0
        return table + off if off else None

    def deref(p):
        return p + u32(p)

    def string(p):
        p = deref(p)
        return buf[p + 4:p + 4 + u32(p)].decode()

    header = field(deref(0), 2)
    if header is None:
        raise _Unsupported("no schema in the serialized expression")
    kv = field(deref(header), 2)
    if kv is None:
        return []
    vec = deref(kv)
    pairs = []
    for j in range(u32(vec)):
        t = deref(vec + 4 + 4 * j)
        key, value = field(t, 0), field(t, 1)
        if key is None or value is None:
            raise _Unsupported("a metadata entry without key or value")
        pairs.append((string(key), string(value)))
    return pairs


def _tree(expression):
    """The Expression as nested tuples: ("field", name), ("literal", value),
    ("call", function, args, options)."""
    import pyarrow as pa

    try:
        reducer, args = expression.__reduce__()
        table = pa.ipc.open_file(args[0]).read_all()
        pairs = _metadata_pairs(table.schema)
    except _Unsupported:
        raise
    except Exception as e:  # a form this pyarrow does not write (nested field refs cannot be pickled)
        raise _Unsupported(f"cannot read the expression: {e}") from None
    batch = table.combine_chunks()
    at = 0

    def node():
        nonlocal at
        if at >= len(pairs):
            raise _Unsupported("the expression ends early")
        key, value = pairs[at]
        at += 1
        if key == "field_ref":
            return ("field", value)
        if key == "literal":
            return ("literal", batch.column(int(value))[0])
        if key != "call":
            raise _Unsupported(f"unexpected entry {key!r}")
        args, options = [], None
        while at < len(pairs) and pairs[at][0] != "end":
            if pairs[at][0] == "options":
                options = batch.column(int(pairs[at][1]))[0].as_py()
                at += 1
            else:
                args.append(node())
        if at >= len(pairs) or pairs[at][1] != value:
            raise _Unsupported(f"call {value!r} is not closed")
        at += 1
        return ("call", value, args, options)

    tree = node()
    if at != len(pairs):
        raise _Unsupported("entries after the expression")
    return tree


_COMPARISONS = {"equal": "=", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
                "greater_equal": ">="}
_FLIPPED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _scalar_literal(scalar):
    import pyarrow as pa

    if not scalar.is_valid:
        raise _Unsupported("a null literal")
    if pa.types.is_timestamp(scalar.type) and scalar.type.tz is not None:
        raise _Unsupported("a timestamp literal with a time zone")
    text = _literal(scalar.as_py())
    if text is None:
        raise _Unsupported(f"a literal of type {scalar.type}")
    return text


def _condition(node):
    kind = node[0]
    if kind != "call":
        raise _Unsupported(f"a bare {kind} where a test is expected")
    _, function, args, options = node
    options = options or {}
    if function in ("and_kleene", "or_kleene") and len(args) == 2:
        word = " AND " if function == "and_kleene" else " OR "
        return "(" + word.join(_condition(a) for a in args) + ")"
    if function == "invert" and len(args) == 1:
        return f"(NOT {_condition(args[0])})"
    if function in _COMPARISONS and len(args) == 2:
        op = _COMPARISONS[function]
        a, b = args
        if a[0] == "literal" and b[0] == "field":
            a, b, op = b, a, _FLIPPED[op]
        if a[0] != "field" or b[0] != "literal":
            raise _Unsupported(f"{function} of {a[0]} and {b[0]}")
        return f"{_name(a[1])} {op} {_scalar_literal(b[1])}"
    if function in ("is_null", "is_valid") and len(args) == 1 and args[0][0] == "field":
        if options.get("nan_is_null"):
            raise _Unsupported("is_null with nan_is_null")
        return f"{_name(args[0][1])} IS {'NOT ' if function == 'is_valid' else ''}NULL"
    if function == "is_in" and len(args) == 1 and args[0][0] == "field":
        column = _name(args[0][1])
        values = options.get("value_set") or []
        behaviour = options.get("null_matching_behavior", 0)
        present = [v for v in values if v is not None]
        texts = [_literal(v) for v in present]
        if not present or any(t is None for t in texts) or behaviour not in (0, 1, 2):
            raise _Unsupported("is_in with this value set")
        test = f"{column} IN ({', '.join(texts)})"
        if behaviour == 2:  # EMIT_NULL: SQL's IN
            return test
        if behaviour == 0 and len(present) < len(values):  # MATCH, a null in the set: nulls match
            return f"({test} OR {column} IS NULL)"
        # MATCH without a null in the set, or SKIP: false (not null) for a null value.
        return f"({test} AND {column} IS NOT NULL)"
    if function in ("starts_with", "match_substring") and len(args) == 1 and args[0][0] == "field":
        pattern = options.get("pattern")
        if not isinstance(pattern, str) or options.get("ignore_case") or any(c in pattern for c in "%_'"):
            raise _Unsupported(f"{function} with this pattern")
        like = f"{pattern}%" if function == "starts_with" else f"%{pattern}%"
        return f"{_name(args[0][1])} LIKE '{like}'"
    raise _Unsupported(f"the function {function!r}")


def expression_to_condition(expression):
    """A ``pyarrow.compute.Expression`` as the native condition text, or None where a node
    has no exact native form (the Expression is then applied after reading)."""
    try:
        return _condition(_tree(expression))
    except _Unsupported:
        return None
