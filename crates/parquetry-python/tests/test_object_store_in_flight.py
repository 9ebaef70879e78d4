"""Object storage: how many requests a read has in flight at once, seen by a proxy in front of
moto's S3 server that holds the requests it watches until as many are waiting as the test
expects (or 10 seconds passed, after which it lets everything through). Whether that many
were ever waiting together does not depend on timing: a reader that sends its requests one
after another, or a few at a time, never gets there. Reference files are written by pyarrow
and put with boto3; what parquetry reads is compared with pyarrow's read of the same file."""

import http.client
import http.server
import io
import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import assert_tables_equal

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto")

from test_object_store import moto  # noqa: E402,F401  (the fixture: moto's server)

BUCKET = "flight"
# Headers of a connection, not of the request: never forwarded.
HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}
# How long a held request waits for the others at most: only a failing test waits this long.
HOLD_SECONDS = 10.0


class Holding:
    """What the proxy holds: GETs whose Range header `watch` accepts, until `wanted` of them
    wait together. Records every watched request's Range and the most seen waiting at once."""

    def __init__(self):
        self.cond = threading.Condition()
        self.watch = lambda spec, path: False
        self.wanted = 0
        self.waiting = 0
        self.most = 0
        self.released = False
        self.ranges = []

    def arm(self, watch, wanted):
        with self.cond:
            self.watch, self.wanted, self.waiting, self.most, self.released = watch, wanted, 0, 0, False
            self.ranges = []

    def hold(self, spec, path):
        with self.cond:
            if spec is None or not self.watch(spec, path):
                return
            self.ranges.append(spec)
            self.waiting += 1
            self.most = max(self.most, self.waiting)
            if self.waiting >= self.wanted:
                self.released = True
                self.cond.notify_all()
            if not self.cond.wait_for(lambda: self.released, timeout=HOLD_SECONDS):
                self.released = True  # the reader never sent that many: let everything through
                self.cond.notify_all()
            self.waiting -= 1


@pytest.fixture(scope="module")
def proxy(moto):  # noqa: F811
    upstream = moto.rsplit(":", 1)[1]
    holding = Holding()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            with holding.cond:
                server.connections += 1

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if self.command == "GET":
                holding.hold(self.headers.get("Range"), self.path)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            conn = http.client.HTTPConnection("127.0.0.1", int(upstream), timeout=60)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            finally:
                conn.close()
            self.send_response_only(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() not in HOP and k.lower() != "content-length":
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = forward

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.connections = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.holding = holding
    server.url = f"http://127.0.0.1:{server.server_port}"
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def s3(moto):  # noqa: F811
    client = boto3.client("s3", endpoint_url=moto, aws_access_key_id="test", aws_secret_access_key="test",
                          region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    return client


@pytest.fixture(scope="module")
def options(proxy):
    return {"aws_endpoint_url": proxy.url, "aws_access_key_id": "test", "aws_secret_access_key": "test",
            "aws_region": "us-east-1", "allow_http": "true"}


def put_table(s3, key, table, **kwargs):
    buf = io.BytesIO()
    pq.write_table(table, buf, **kwargs)
    s3.put_object(Bucket=BUCKET, Key=key, Body=buf.getvalue())
    return buf.getvalue()


def suffix(spec, path=None):
    return spec.startswith("bytes=-")


def bounded(spec, path=None):
    return spec.startswith("bytes=") and not suffix(spec)


def test_a_datasets_footers_are_requested_at_once(s3, options, proxy):
    parts = 6
    tables = [pa.table({"x": pa.array(range(i * 100, i * 100 + 100), pa.int64())}) for i in range(parts)]
    for i, t in enumerate(tables):
        put_table(s3, f"ds/part-{i}.parquet", t)
    proxy.holding.arm(suffix, parts)
    got = parquetry.read_table(f"s3://{BUCKET}/ds/", storage_options=options, threads=1)
    # One footer request per object, all waiting together at the proxy.
    assert len(proxy.holding.ranges) == parts
    assert proxy.holding.most == parts
    assert_tables_equal(got, pa.concat_tables(tables))


# A file whose row groups each hold a small column `k` and 1.5 MB of incompressible bytes:
# `k`'s chunks lie more than the 1 MiB coalescing gap apart, a request each.
ROW_GROUPS = 20
ROWS = 300


@pytest.fixture(scope="module")
def spread(s3):
    rng = np.random.default_rng(31)
    n = ROW_GROUPS * ROWS
    table = pa.table({
        "k": pa.array(np.arange(n) % 7, pa.int64()),
        "filler": pa.array([rng.bytes(5000) for _ in range(n)], pa.binary()),
    })
    data = put_table(s3, "spread.parquet", table, row_group_size=ROWS, compression="none", use_dictionary=False)
    assert pq.ParquetFile(io.BytesIO(data)).metadata.num_row_groups == ROW_GROUPS
    return table, data


def test_a_filtered_read_has_a_request_per_row_group_in_flight_at_once(spread, options, proxy):
    table, _ = spread
    # More than 8 (what it had at most before) and fewer than the row groups (the first may
    # go alone).
    wanted = 16
    proxy.holding.arm(bounded, wanted)
    got = parquetry.read_table(f"s3://{BUCKET}/spread.parquet", columns=["k"], filters=[("k", "=", 3)],
                               storage_options=options, threads=1)
    assert proxy.holding.most >= wanted
    assert len(proxy.holding.ranges) == ROW_GROUPS  # one request per row group's chunk of `k`
    expected = table.filter(pa.compute.equal(table["k"], 3)).select(["k"])
    assert_tables_equal(got, expected)


def test_a_whole_read_names_every_row_group_at_once(spread, options, proxy):
    table, _ = spread
    # The first row group no longer comes alone, waited for before the others are named:
    # the 30 MB come in two requests of up to 16 MiB, both in flight at once.
    proxy.holding.arm(bounded, 2)
    got = parquetry.read_table(f"s3://{BUCKET}/spread.parquet", storage_options=options, threads=1)
    assert_tables_equal(got, table)
    assert proxy.holding.most == 2
    assert len(proxy.holding.ranges) == 2


def test_a_datasets_next_files_are_fetched_while_one_is_read(s3, options, proxy):
    # Three objects of 1.2 MB each (one row group, past the 512 KiB the footer's request
    # brings): a request each for the rest. The files after the first (up to 64 MiB of
    # them) are opened and their requests sent while the first is read, so all three wait
    # together at the proxy; one file after another, one would (two with only the next
    # file opened ahead).
    rng = np.random.default_rng(33)
    tables = [pa.table({"filler": pa.array([rng.bytes(4000) for _ in range(300)], pa.binary())}) for _ in range(3)]
    for i, t in enumerate(tables):
        put_table(s3, f"next/part-{i}.parquet", t, compression="none", use_dictionary=False)
    proxy.holding.arm(bounded, 3)
    got = parquetry.read_table(f"s3://{BUCKET}/next/", storage_options=options, threads=1)
    assert_tables_equal(got, pa.concat_tables(tables))
    assert len(proxy.holding.ranges) == 3
    assert proxy.holding.most == 3


def test_reads_of_a_bucket_reuse_its_connections(s3, options, proxy):
    # Three reads one after another, a request each (the file lies within the footer's
    # request): one client for the bucket and its settings, its connection kept open between
    # reads, rather than a new client (and connection) per read.
    table = pa.table({"x": pa.array(range(1000), pa.int64())})
    put_table(s3, "small.parquet", table)
    proxy.holding.arm(suffix, 1)  # watched, not held
    before = proxy.connections
    for _ in range(3):
        assert_tables_equal(parquetry.read_table(f"s3://{BUCKET}/small.parquet", storage_options=options), table)
    assert len(proxy.holding.ranges) == 3
    assert proxy.connections - before <= 1


# Two row groups, each a small column `v` (read), 1.5 MB of incompressible filler, a small
# column `k` (filtered on) and 1.5 MB more: every chunk read lies more than the 1 MiB
# coalescing gap from the others (a request each) and none in the footer's 512 KiB request.
# `k = 3` matches every 7th row, so every page of `v` holds a match: late materialization's
# second pass needs every page, in each row group.
DENSE_ROWS = 300


def dense_table(seed):
    rng = np.random.default_rng(seed)
    n = 2 * DENSE_ROWS
    return pa.table({
        "v": pa.array(np.arange(n) * 10 + seed, pa.int64()),
        "filler": pa.array([rng.bytes(5000) for _ in range(n)], pa.binary()),
        "k": pa.array(np.arange(n) % 7, pa.int64()),
        "filler2": pa.array([rng.bytes(5000) for _ in range(n)], pa.binary()),
    })


def put_dense(s3, key, table):
    data = put_table(s3, key, table, row_group_size=DENSE_ROWS, compression="none", use_dictionary=False,
                     write_page_index=True, data_page_size=256)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    assert meta.num_row_groups == 2 and meta.row_group(0).column(0).path_in_schema == "v"
    # Where the first row group's `k` starts: its first pass, fetched alone, not watched.
    return meta.row_group(0).column(2).data_page_offset


def test_a_row_group_dense_in_pages_has_the_next_ones_columns_named_with_their_first_pass(s3, options, proxy):
    table = dense_table(35)
    first = put_dense(s3, "dense.parquet", table)
    # Row group 0's `k` comes first; its second pass needs every page of `v`, so row group
    # 1's `k` and `v` are named with row group 0's `v`: three requests waiting together.
    # Before, row group 1's `v` was named only once its `k` had been read (two at most).
    proxy.holding.arm(lambda spec, path: bounded(spec) and not spec.startswith(f"bytes={first}-"), 3)
    got = parquetry.read_table(f"s3://{BUCKET}/dense.parquet", columns=["v"], filters=[("k", "=", 3)],
                               storage_options=options, threads=1)
    expected = table.filter(pa.compute.equal(table["k"], 3)).select(["v"])
    assert_tables_equal(got, expected)
    assert len(proxy.holding.ranges) == 3  # one request per chunk read, as before
    assert proxy.holding.most == 3


def test_a_datasets_next_file_is_fetched_whole_once_one_is_found_dense(s3, options, proxy):
    tables = [dense_table(36), dense_table(37)]
    first = [put_dense(s3, f"dense-ds/part-{i}.parquet", t) for i, t in enumerate(tables)]
    # The second file's first pass of row group 0 is named while the first file is read (as
    # before). Once the first file's row group 0 is found dense in pages, the second file's
    # other requests follow at once (row group 0's `v`, row group 1's `k` and `v`); before,
    # they waited for the second file's turn and went out two, then one.
    proxy.holding.arm(
        lambda spec, path: "part-1" in path and bounded(spec) and not spec.startswith(f"bytes={first[1]}-"), 3)
    got = parquetry.read_table(f"s3://{BUCKET}/dense-ds/", columns=["v"], filters=[("k", "=", 3)],
                               storage_options=options, threads=1)
    both = pa.concat_tables(tables)
    assert_tables_equal(got, both.filter(pa.compute.equal(both["k"], 3)).select(["v"]))
    assert len(proxy.holding.ranges) == 3
    assert proxy.holding.most == 3
