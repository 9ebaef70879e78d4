"""The filter benchmark's data and queries (issue 30): TPC-H scale factor 1 from
``tpchgen-cli`` (lineitem and orders as generated; lineitem rewritten as lakes keep it:
sorted by l_shipdate, 128Ki-row row groups, 64 KiB pages, page index) and a strings table
with nulls. Each query is given once per engine's language: SQL (duckdb, DataFusion,
parquetry's condition text), pyarrow DNF or Expression, polars, and leaf tests for the
arrow-rs example. Data goes to ``bench/data/filter`` (gitignored)."""

from __future__ import annotations

import datetime
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from datasets import make_strings  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "filter"


def _tpchgen() -> str:
    beside = Path(sys.executable).parent / "tpchgen-cli"
    found = str(beside) if beside.exists() else shutil.which("tpchgen-cli")
    if not found:
        sys.exit("tpchgen-cli not found: pip install tpchgen-cli")
    return found


def prepare() -> dict[str, Path]:
    """Writes the files that are missing; returns them by short name."""
    tpch = DATA / "tpch"
    files = {
        "lineitem": tpch / "lineitem.parquet",
        "orders": tpch / "orders.parquet",
        "lineitem_sorted": DATA / "lineitem_sorted.parquet",
        "strings": DATA / "strings_nulls.parquet",
    }
    if not files["lineitem"].exists() or not files["orders"].exists():
        print("generating TPC-H SF1 lineitem, orders with tpchgen-cli ...", flush=True)
        subprocess.run([_tpchgen(), "parquet", "-s", "1", "--tables=lineitem,orders", "-o", str(tpch)], check=True)
    if not files["lineitem_sorted"].exists():
        print("rewriting lineitem sorted by l_shipdate ...", flush=True)
        t = pq.read_table(files["lineitem"])
        # pyarrow 26 cannot sort string_view (tpchgen's Arrow schema): plain strings, as
        # a pyarrow-written lake file has them.
        t = t.cast(pa.schema([f.with_type(pa.string()) if pa.types.is_string_view(f.type) else f for f in t.schema]))
        t = t.sort_by([("l_shipdate", "ascending"), ("l_orderkey", "ascending")])
        tmp = files["lineitem_sorted"].with_suffix(".tmp")
        pq.write_table(t, tmp, row_group_size=131072, data_page_size=65536, write_page_index=True)
        tmp.rename(files["lineitem_sorted"])
    if not files["strings"].exists():
        print("writing the strings table ...", flush=True)
        t = make_strings((20240611, 30), 2_000_000)
        rng = np.random.default_rng(30)
        # note: the category with 2% of rows null, for IS NULL.
        note = pc.if_else(pa.array(rng.random(t.num_rows) < 0.02), pa.scalar(None, pa.string()), t["category"])
        t = t.append_column("note", note)
        tmp = files["strings"].with_suffix(".tmp")
        pq.write_table(t, tmp, write_page_index=True)
        tmp.rename(files["strings"])
    return files


def _days(d: datetime.date) -> int:
    return (d - datetime.date(1970, 1, 1)).days


D = datetime.date
# A unique id of the strings table and a unique l_comment (checked: one row each).
POINT_ID = None  # filled by point_values()
POINT_COMMENT = "et accounts detect fluffily along th"


def point_values(files) -> str:
    """The id of row 1,234,567 of the strings table (unique by construction)."""
    t = pq.read_table(files["strings"], columns=["id"])
    return t["id"][1_234_567].as_py()


def queries(files) -> list[dict]:
    """The queries: name, what it is, file, columns (None: all; []: count), SQL condition,
    DNF (or None), pyarrow Expression, polars expression (a function of the module), and
    the arrow-rs leaves."""
    pid = point_values(files)
    d0, d1 = D(1995, 3, 1), D(1995, 3, 8)
    half = D(1995, 6, 17)
    modes = ["AIR", "MAIL"]
    return [
        dict(name="point_id", what="point lookup, unique string key (strings)", file="strings",
             columns=["id", "category", "url"], sql=f"id = '{pid}'", dnf=[("id", "=", pid)],
             polars=lambda pl: pl.col("id") == pid, leaves=[dict(col="id", op="eq", value=pid)]),
        dict(name="point_comment", what="point lookup, l_comment = unique value", file="lineitem",
             columns=["l_orderkey", "l_comment"], sql=f"l_comment = '{POINT_COMMENT}'",
             dnf=[("l_comment", "=", POINT_COMMENT)], polars=lambda pl: pl.col("l_comment") == POINT_COMMENT,
             leaves=[dict(col="l_comment", op="eq", value=POINT_COMMENT)]),
        dict(name="select_star_orderkey", what="SELECT * WHERE l_orderkey = k (5 rows)", file="lineitem",
             columns=None, sql="l_orderkey = 3000000", dnf=[("l_orderkey", "=", 3000000)],
             polars=lambda pl: pl.col("l_orderkey") == 3000000,
             leaves=[dict(col="l_orderkey", op="eq", value=3000000)]),
        dict(name="date_range_sorted", what="l_shipdate in one week, sorted layout", file="lineitem_sorted",
             columns=["l_orderkey", "l_extendedprice", "l_shipdate"],
             sql=f"l_shipdate >= DATE '{d0}' AND l_shipdate < DATE '{d1}'",
             dnf=[("l_shipdate", ">=", d0), ("l_shipdate", "<", d1)],
             polars=lambda pl: (pl.col("l_shipdate") >= d0) & (pl.col("l_shipdate") < d1),
             leaves=[dict(col="l_shipdate", op="ge", value=_days(d0)), dict(col="l_shipdate", op="lt", value=_days(d1))]),
        dict(name="date_range_unsorted", what="the same week, as generated", file="lineitem",
             columns=["l_orderkey", "l_extendedprice", "l_shipdate"],
             sql=f"l_shipdate >= DATE '{d0}' AND l_shipdate < DATE '{d1}'",
             dnf=[("l_shipdate", ">=", d0), ("l_shipdate", "<", d1)],
             polars=lambda pl: (pl.col("l_shipdate") >= d0) & (pl.col("l_shipdate") < d1),
             leaves=[dict(col="l_shipdate", op="ge", value=_days(d0)), dict(col="l_shipdate", op="lt", value=_days(d1))]),
        dict(name="date_and_mode_sorted", what="week AND l_shipmode = 'AIR', sorted layout", file="lineitem_sorted",
             columns=["l_orderkey", "l_quantity", "l_comment"],
             sql=f"l_shipdate >= DATE '{d0}' AND l_shipdate < DATE '{d1}' AND l_shipmode = 'AIR'",
             dnf=[("l_shipdate", ">=", d0), ("l_shipdate", "<", d1), ("l_shipmode", "=", "AIR")],
             polars=lambda pl: (pl.col("l_shipdate") >= d0) & (pl.col("l_shipdate") < d1) & (pl.col("l_shipmode") == "AIR"),
             leaves=[dict(col="l_shipdate", op="ge", value=_days(d0)), dict(col="l_shipdate", op="lt", value=_days(d1)),
                     dict(col="l_shipmode", op="eq", value="AIR")]),
        dict(name="partkey_range", what="range on an unsorted integer (l_partkey < 2000, 1%)", file="lineitem",
             columns=["l_partkey", "l_quantity", "l_extendedprice"], sql="l_partkey < 2000",
             dnf=[("l_partkey", "<", 2000)], polars=lambda pl: pl.col("l_partkey") < 2000,
             leaves=[dict(col="l_partkey", op="lt", value=2000)]),
        dict(name="like_prefix", what="l_comment LIKE 'special%' (0.2%)", file="lineitem",
             columns=["l_orderkey", "l_comment"], sql="l_comment LIKE 'special%'", dnf=None,
             expr=lambda: pc.starts_with(pc.field("l_comment"), "special"),
             polars=lambda pl: pl.col("l_comment").str.starts_with("special"),
             leaves=[dict(col="l_comment", op="prefix", value="special")]),
        dict(name="like_substring", what="l_comment LIKE '%final d%' (1.4%)", file="lineitem",
             columns=["l_orderkey", "l_comment"], sql="l_comment LIKE '%final d%'", dnf=None,
             expr=lambda: pc.match_substring(pc.field("l_comment"), "final d"),
             polars=lambda pl: pl.col("l_comment").str.contains("final d", literal=True),
             leaves=[dict(col="l_comment", op="contains", value="final d")]),
        dict(name="url_substring", what="url LIKE '%/item/12345%' (strings, 0.01%)", file="strings",
             columns=["id", "url"], sql="url LIKE '%/item/12345%'", dnf=None,
             expr=lambda: pc.match_substring(pc.field("url"), "/item/12345"),
             polars=lambda pl: pl.col("url").str.contains("/item/12345", literal=True),
             leaves=[dict(col="url", op="contains", value="/item/12345")]),
        dict(name="in_shipmode", what="l_shipmode IN ('AIR', 'MAIL') (29%)", file="lineitem",
             columns=["l_orderkey", "l_quantity", "l_extendedprice"], sql="l_shipmode IN ('AIR', 'MAIL')",
             dnf=[("l_shipmode", "in", modes)], polars=lambda pl: pl.col("l_shipmode").is_in(modes),
             leaves=[dict(col="l_shipmode", op="in", value=modes)]),
        dict(name="category_eq", what="category = 'category_042' (strings, 1%)", file="strings",
             columns=["id", "url"], sql="category = 'category_042'", dnf=[("category", "=", "category_042")],
             polars=lambda pl: pl.col("category") == "category_042",
             leaves=[dict(col="category", op="eq", value="category_042")]),
        dict(name="is_null", what="note IS NULL (strings, 2%)", file="strings",
             columns=["id", "category"], sql="note IS NULL", dnf=None,
             expr=lambda: pc.field("note").is_null(), polars=lambda pl: pl.col("note").is_null(),
             leaves=[dict(col="note", op="is_null")]),
        dict(name="orders_conjunction", what="o_orderpriority = '1-URGENT' AND o_orderdate in one month (orders)",
             file="orders", columns=["o_orderkey", "o_totalprice", "o_comment"],
             sql="o_orderpriority = '1-URGENT' AND o_orderdate >= DATE '1996-01-01' AND o_orderdate < DATE '1996-02-01'",
             dnf=[("o_orderpriority", "=", "1-URGENT"), ("o_orderdate", ">=", D(1996, 1, 1)), ("o_orderdate", "<", D(1996, 2, 1))],
             polars=lambda pl: (pl.col("o_orderpriority") == "1-URGENT") & (pl.col("o_orderdate") >= D(1996, 1, 1))
             & (pl.col("o_orderdate") < D(1996, 2, 1)),
             leaves=[dict(col="o_orderpriority", op="eq", value="1-URGENT"),
                     dict(col="o_orderdate", op="ge", value=_days(D(1996, 1, 1))),
                     dict(col="o_orderdate", op="lt", value=_days(D(1996, 2, 1)))]),
        dict(name="count_shipmode", what="count(*) WHERE l_shipmode = 'AIR' (14%)", file="lineitem",
             columns=[], sql="l_shipmode = 'AIR'", dnf=[("l_shipmode", "=", "AIR")],
             polars=lambda pl: pl.col("l_shipmode") == "AIR", leaves=[dict(col="l_shipmode", op="eq", value="AIR")]),
        dict(name="half_shipdate", what="l_shipdate <= '1995-06-17' (50%), as generated", file="lineitem",
             columns=["l_shipdate", "l_extendedprice", "l_discount"], sql=f"l_shipdate <= DATE '{half}'",
             dnf=[("l_shipdate", "<=", half)], polars=lambda pl: pl.col("l_shipdate") <= half,
             leaves=[dict(col="l_shipdate", op="le", value=_days(half))]),
        dict(name="half_shipdate_unfiltered", what="the same three columns, no filter (baseline)", file="lineitem",
             columns=["l_shipdate", "l_extendedprice", "l_discount"], sql=None, dnf=None,
             polars=None, leaves=[]),
    ]
