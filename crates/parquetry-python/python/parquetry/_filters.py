"""``filters=`` as a ``pyarrow.compute.Expression``: pyarrow's DNF forms (a list of
``(column, op, value)`` tuples, ANDed; or a list of such lists, ORed) or an Expression as is.
The conversion is pyarrow's own (``pyarrow.parquet.core.filters_to_expression``), so the
meaning of every operator is pyarrow's. ``filters_to_condition`` turns the DNF forms into the
native condition text (``parquetry::filter::parse``), which the reader pushes down.
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


def filters_to_condition(filters):
    """pyarrow's DNF ``filters`` as a native condition, or None when they have no exact
    form there (an Expression, a value of another type): those are applied after reading.
    A ``str`` is already a condition (parquetry's form: ``"x > 5 AND s LIKE 'ab%'"``)."""
    if isinstance(filters, str):
        return filters
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
