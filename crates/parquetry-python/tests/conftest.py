"""Shared fixtures: where the parquet-testing corpus is, and its manifest.

The corpus is ``$PARQUET_TESTING_DIR``, else ``../shared/parquet-testing`` beside the repository
(the same rule as the Rust tests).
"""

import csv
import math
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

REPO = Path(__file__).resolve().parents[3]


def corpus_dir() -> Path:
    env = os.environ.get("PARQUET_TESTING_DIR")
    path = Path(env) if env else REPO.parent / "shared" / "parquet-testing"
    if not (path / "MANIFEST.tsv").exists():
        pytest.fail(f"parquet-testing corpus not found at {path}; set PARQUET_TESTING_DIR")
    return path


def manifest():
    with open(corpus_dir() / "MANIFEST.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def readable():
    """Relative paths of the files pyarrow reads, flat and nested."""
    return [r["path"] for r in manifest() if r["readable_by_pyarrow"] == "yes"]


def bad_data():
    return [r["path"] for r in manifest() if r["path"].startswith("bad_data/")]


def _nan_aware_equal(a: pa.ChunkedArray, b: pa.ChunkedArray) -> bool:
    """Equal values and nulls, with NaN equal to NaN (``equals`` holds NaN != NaN)."""
    if a.type != b.type or len(a) != len(b):
        return False
    if a.equals(b):
        return True
    if not (pa.types.is_floating(a.type)):
        return False
    # Exact in float64 for every float width (float16 has few compute kernels of its own).
    a, b = a.cast(pa.float64()), b.cast(pa.float64())
    nan_a, nan_b = pc.is_nan(a), pc.is_nan(b)
    if not nan_a.equals(nan_b):
        return False
    zero = pa.scalar(0.0, pa.float64())
    return pc.if_else(nan_a, zero, a).equals(pc.if_else(nan_b, zero, b))


def assert_tables_equal(got: pa.Table, want: pa.Table, what: str = "") -> None:
    """Same schema (names and types) and the same values, column by column, NaN-aware."""
    assert got.schema.names == want.schema.names, what
    assert got.num_rows == want.num_rows, f"{what}: {got.num_rows} rows, want {want.num_rows}"
    for name, g, w in zip(got.schema.names, got.columns, want.columns):
        assert g.type == w.type, f"{what}: column {name}: type {g.type}, want {w.type}"
        g, w = g.combine_chunks(), w.combine_chunks()
        assert _nan_aware_equal(pa.chunked_array([g]), pa.chunked_array([w])), f"{what}: column {name} differs"


@pytest.fixture
def corpus() -> Path:
    return corpus_dir()


__all__ = ["assert_tables_equal", "corpus_dir", "readable", "bad_data", "math"]
