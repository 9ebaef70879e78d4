"""``read_table(one_file, filters=...)`` and ``ParquetFile.read(filters=...)`` with pyarrow's DNF
filters pushed down into the native reader (statistics, dictionaries, page index, late
materialization), checked row for row against ``pyarrow.parquet.read_table(filters=...)`` on
corpus files and on a generated file with nulls, many row groups, small pages and a page
index. A ``pyarrow.compute.Expression`` made of calls the native filter has is pushed down
too; any other is applied after reading with pyarrow.compute. Both routes are checked."""

import datetime
import decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pa_pq
import pytest

import parquetry as pq
from conftest import corpus_dir


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """20,000 rows: a sorted date, an unsorted int with nulls, a low-cardinality string with
    nulls (dictionary-encoded), a unique string key, a float with NaN, a decimal; 2,048-row
    row groups and small pages, page index on, so that every pruning level has work."""
    n = 20_000
    rng = np.random.default_rng(30)
    start = datetime.date(1995, 1, 1)
    cats = np.array(["AIR", "MAIL", "RAIL", "SHIP", "TRUCK", "FOB", "REG AIR"], dtype=object)
    mode = cats[rng.integers(0, len(cats), n)]
    mode[rng.random(n) < 0.05] = None
    num = rng.integers(-1000, 1000, n).astype(object)
    num[rng.random(n) < 0.1] = None
    f = rng.normal(size=n)
    f[rng.random(n) < 0.01] = np.nan
    t = pa.table({
        "d": pa.array([start + datetime.timedelta(days=int(i // 20)) for i in range(n)], pa.date32()),
        "num": pa.array(num, pa.int64()),
        "mode": pa.array(mode, pa.string()),
        "key": pa.array([f"key-{(i * 7919) % n:08d}" for i in range(n)], pa.string()),
        "f": pa.array(f, pa.float64()),
        "dec": pa.array([decimal.Decimal(i % 1000) / 100 for i in range(n)], pa.decimal128(9, 2)),
    })
    path = tmp_path_factory.mktemp("pushdown") / "g.parquet"
    pa_pq.write_table(t, path, row_group_size=2048, data_page_size=2048, write_page_index=True,
                      use_dictionary=["mode"])
    return path


def _same(got, want):
    """Tables equal, NaN equal to NaN (pyarrow's ``equals`` says NaN != NaN)."""
    if not got.schema.equals(want.schema) or got.num_rows != want.num_rows:
        return False

    def canonical(c):
        if pa.types.is_floating(c.type):
            return pc.if_else(pc.is_nan(c), pa.scalar(-12345.0, c.type), c)
        return c
    return all(canonical(got[n]).equals(canonical(want[n])) for n in want.column_names)


GENERATED_FILTERS = [
    [("d", ">=", datetime.date(1995, 3, 1)), ("d", "<", datetime.date(1995, 3, 5))],
    [("num", ">", 990)],
    [("num", "<=", -995)],
    [("num", "!=", 0)],
    [("mode", "in", ["AIR", "MAIL"])],
    [("mode", "not in", ["AIR", "MAIL", "RAIL", "SHIP", "TRUCK"])],
    [("mode", "=", "REG AIR"), ("num", "<", 0)],
    [[("key", "=", "key-00012345")], [("key", "=", "key-00000007")]],
    [("key", ">=", "key-00019990")],
    [("mode", "=", "no such mode")],
    [("f", ">", 2.5)],
    [("f", "!=", 0.0)],
    [("dec", "<", decimal.Decimal("0.05"))],
    [[("d", "<", datetime.date(1995, 1, 3))], [("num", "in", [7, 8, 9])]],
]


@pytest.mark.parametrize("filters", GENERATED_FILTERS, ids=range(len(GENERATED_FILTERS)))
@pytest.mark.parametrize("columns", [None, ["key"], ["num", "d"]], ids=["all", "key", "num_d"])
def test_generated_file_filters_as_pyarrow(generated, filters, columns):
    want = pa_pq.read_table(generated, columns=columns, filters=filters)
    got = pq.read_table(generated, columns=columns, filters=filters, use_threads=False)
    assert got.num_rows == want.num_rows
    assert _same(got, want)


@pytest.mark.parametrize("filters", GENERATED_FILTERS[:4], ids=range(4))
def test_parquet_file_read_filters_as_pyarrow(generated, filters):
    want = pa_pq.read_table(generated, columns=["key", "mode"], filters=filters)
    with pq.ParquetFile(generated) as f:
        assert _same(f.read(["key", "mode"], filters=filters), want)
        assert _same(f.read(["key", "mode"], filters=filters, threads=2), want)


def test_dnf_filters_take_the_native_route(generated, monkeypatch):
    # The pushed-down route never builds a pyarrow Expression: make building one fail.
    from parquetry import _filters

    def refuse(filters):
        raise AssertionError(f"applied after reading: {filters}")

    monkeypatch.setattr(_filters, "filters_to_expression", refuse)
    filters = [("mode", "=", "SHIP"), ("num", ">", 500)]
    want = pa_pq.read_table(generated, columns=["key"], filters=filters)
    assert _same(pq.read_table(generated, columns=["key"], filters=filters), want)


PUSHED_EXPRESSIONS = [
    (pc.field("num") > 990) | pc.field("mode").is_null(),
    (pc.field("d") >= pa.scalar(datetime.date(1995, 3, 1))) & (pc.field("d") < pa.scalar(datetime.date(1995, 3, 5))),
    pc.field("mode").isin(["AIR", "MAIL"]),
    ~pc.field("mode").isin(["AIR", "MAIL", "RAIL"]),  # pyarrow's is_in is false for null: ~ keeps nulls
    ~pc.field("mode").isin(["AIR", None]),
    ~pc.is_in(pc.field("mode"), value_set=pa.array(["AIR", None]), skip_nulls=True),
    pc.starts_with(pc.field("key"), "key-0001") & ~pc.field("num").is_valid(),
    pc.match_substring(pc.field("mode"), "AI"),
    990 < pc.field("num"),
    (pc.field("f") < 0.5) & (pc.field("dec") >= decimal.Decimal("9.90")),
    ~((pc.field("num") < 0) | (pc.field("mode") == "SHIP")),
]


@pytest.mark.parametrize("expression", PUSHED_EXPRESSIONS, ids=range(len(PUSHED_EXPRESSIONS)))
def test_expressions_are_pushed_down_and_read_as_pyarrow(generated, expression, monkeypatch):
    from parquetry import _filters

    assert _filters.expression_to_condition(expression) is not None, "no native form"
    assert _filters.split_filters(expression) == (_filters.expression_to_condition(expression), None)

    def refuse(filters):
        raise AssertionError(f"applied after reading: {filters}")

    monkeypatch.setattr(_filters, "filters_to_expression", refuse)
    want = pa_pq.read_table(generated, columns=["key", "num"], filters=expression)
    assert _same(pq.read_table(generated, columns=["key", "num"], filters=expression, use_threads=False), want)
    with pq.ParquetFile(generated) as f:
        assert _same(f.read(["key", "num"], filters=expression), want)


@pytest.mark.parametrize("expression", [
    pc.field("num") + 1 > 991,                          # arithmetic
    pc.field("num") == pc.field("num"),                 # two columns
    pc.is_nan(pc.field("f")),                           # a function the filter lacks
    pc.starts_with(pc.field("key"), "KEY", ignore_case=True),
    pc.match_substring(pc.field("key"), "y-0%"),         # a LIKE wildcard in the pattern
    pc.ends_with(pc.field("key"), "7"),
])
def test_expressions_without_a_native_form_fall_back(generated, expression):
    from parquetry import _filters

    assert _filters.expression_to_condition(expression) is None
    want = pa_pq.read_table(generated, columns=["key"], filters=expression)
    assert _same(pq.read_table(generated, columns=["key"], filters=expression), want)


def test_an_and_with_a_part_without_native_form_pushes_the_rest_down(generated):
    from parquetry import _filters

    expression = (pc.field("num") > 900) & (pc.field("num") + 1 > 950) & pc.field("mode").isin(["AIR"])
    condition, residual = _filters.split_filters(expression)
    assert condition is not None and residual is not None
    want = pa_pq.read_table(generated, columns=["key"], filters=expression)
    assert _same(pq.read_table(generated, columns=["key"], filters=expression), want)
    with pq.ParquetFile(generated) as f:
        assert _same(f.read(["key"], filters=expression), want)
    # What the pushed-down part reads: a superset that the whole Expression then narrows.
    pushed = pq.read_table(generated, columns=["key"], filters=condition)
    assert want.num_rows < pushed.num_rows < pa_pq.read_metadata(generated).num_rows


def test_expression_and_nan_values_fall_back(generated):
    for filters in [pc.field("num") + 1 > 991, [("f", "!=", float("nan"))]]:
        want = pa_pq.read_table(generated, columns=["key"], filters=filters)
        assert _same(pq.read_table(generated, columns=["key"], filters=filters), want)
        with pq.ParquetFile(generated) as f:
            assert _same(f.read(["key"], filters=filters), want)


def test_stream_with_a_condition(generated):
    # RawFile.stream: batches of the matching rows, in file order.
    want = pa_pq.read_table(generated, columns=["key"], filters=[("num", ">", 900)])
    with pq.ParquetFile(generated) as f:
        stream = f._file().stream(["key"], None, 1, None, 1000, False, filter='"num" > 900')
        got = pa.RecordBatchReader.from_stream(stream).read_all()
    assert got.column("key").to_pylist() == want.column("key").to_pylist()


def test_a_filter_on_a_missing_column_is_an_error(generated):
    with pytest.raises(Exception, match="nope"):
        pq.read_table(generated, filters=[("nope", "=", 1)])


CORPUS = [
    ("data/alltypes_tiny_pages.parquet", [("id", ">=", 7000)]),
    ("data/alltypes_tiny_pages.parquet", [("int_col", "in", [3, 4]), ("bool_col", "=", True)]),
    ("data/alltypes_tiny_pages.parquet", [("date_string_col", "=", "01/13/09")]),
    ("data/alltypes_tiny_pages.parquet", [[("bigint_col", "<", 20)], [("string_col", "=", "9")]]),
    ("data/alltypes_tiny_pages_plain.parquet", [("smallint_col", "!=", 5), ("month", ">", 6)]),
    ("data/alltypes_plain.parquet", [("id", "<", 3)]),
    ("data/data_index_bloom_encoding_stats.parquet", [("String", "=", "Hello")]),
    ("data/data_index_bloom_encoding_stats.parquet", [("String", "in", ["nothing", "there"])]),
]


@pytest.mark.parametrize("rel,filters", CORPUS, ids=range(len(CORPUS)))
def test_corpus_filters_as_pyarrow(rel, filters):
    path = corpus_dir() / rel
    want = pa_pq.read_table(path, filters=filters)
    got = pq.read_table(path, filters=filters)
    assert got.num_rows == want.num_rows
    assert _same(got, want)


@pytest.mark.parametrize("condition,expression", [
    ("mode LIKE 'RE%'", pc.starts_with(pc.field("mode"), "RE")),
    ("key LIKE '%0012%'", pc.match_substring(pc.field("key"), "0012")),
    ("mode IS NULL AND num IS NOT NULL", pc.field("mode").is_null() & pc.field("num").is_valid()),
    ("d BETWEEN DATE '1995-02-01' AND DATE '1995-02-03' OR num = 5",
     ((pc.field("d") >= datetime.date(1995, 2, 1)) & (pc.field("d") <= datetime.date(1995, 2, 3)))
     | (pc.field("num") == 5)),
])
def test_condition_text_as_pyarrow_expression(generated, condition, expression):
    # parquetry's own form of filters: the condition text, pushed down.
    want = pa_pq.read_table(generated, columns=["key", "num"], filters=expression)
    got = pq.read_table(generated, columns=["key", "num"], filters=condition)
    assert got.num_rows == want.num_rows
    assert _same(got, want)
