"""``filters=`` as a ``pyarrow.compute.Expression``: pyarrow's DNF forms (a list of
``(column, op, value)`` tuples, ANDed; or a list of such lists, ORed) or an Expression as is.
The conversion is pyarrow's own (``pyarrow.parquet.core.filters_to_expression``), so the
meaning of every operator is pyarrow's.
"""

from __future__ import annotations


def filters_to_expression(filters):
    """``filters`` (DNF lists or an Expression) as a ``pyarrow.compute.Expression``."""
    import pyarrow.compute as pc
    from pyarrow.parquet.core import filters_to_expression as pyarrow_filters_to_expression

    if isinstance(filters, pc.Expression):
        return filters
    return pyarrow_filters_to_expression(filters)
