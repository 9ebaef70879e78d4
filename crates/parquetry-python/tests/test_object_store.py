"""Object storage: s3:// through moto's S3 server on loopback, started here, and http(s)://
through a small server written here that answers Range requests. Reference files are put
with boto3 (never with parquetry), parquetry's reads are compared with pyarrow's reads of
the same local files, and parquetry's uploads are fetched with boto3 and read with pyarrow.
Bad input: a missing bucket or key, a server that refuses every request, a server that
drops the connection in the middle of a range. Datasets, compaction and hive folders on
s3://: test_object_store_datasets.py."""

import http.server
import io
import os
import socket
import subprocess
import sys
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import assert_tables_equal, corpus_dir

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto")

BUCKET = "data"
# What opening an object reads first (parquetry.store::TAIL_READ).
TAIL_READ = 512 * 1024
# The corpus files read through S3: flat and nested, several codecs and page versions.
CORPUS = [
    "data/alltypes_plain.parquet",
    "data/alltypes_plain.snappy.parquet",
    "data/datapage_v2.snappy.parquet",
    "data/nested_lists.snappy.parquet",
    "data/nested_maps.snappy.parquet",
    "data/nullable.impala.parquet",
    "data/delta_encoding_required_column.parquet",
    "data/lz4_raw_compressed.parquet",
    "data/plain-dict-uncompressed-checksum.parquet",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, proc=None, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


@pytest.fixture(scope="module")
def moto():
    """moto's S3 server on a free loopback port, stopped after the module's tests."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def s3(moto):
    client = boto3.client("s3", endpoint_url=moto, aws_access_key_id="test", aws_secret_access_key="test",
                          region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    return client


@pytest.fixture(scope="module")
def options(moto):
    return {"aws_endpoint_url": moto, "aws_access_key_id": "test", "aws_secret_access_key": "test",
            "aws_region": "us-east-1", "allow_http": "true"}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Files written by pyarrow: several row groups and columns; a footer longer than the 512
    KiB that opening reads first."""
    root = tmp_path_factory.mktemp("store")
    n = 200_000
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([f"name-{i % 977}" for i in range(n)]),
        "score": pa.array([i * 0.5 for i in range(n)]),
        "tags": pa.array([[i % 3, i % 5] if i % 7 else None for i in range(n)], pa.list_(pa.int32())),
    })
    groups = root / "groups.parquet"
    pq.write_table(table, groups, row_group_size=25_000)
    wide = root / "wide.parquet"
    pq.write_table(pa.table({f"column_with_a_long_name_{i}": [i] for i in range(4000)}), wide)
    return {"groups.parquet": groups, "wide.parquet": wide}


def put(s3, key: str, path) -> str:
    s3.upload_file(str(path), BUCKET, key)
    return f"s3://{BUCKET}/{key}"


@pytest.mark.parametrize("rel", CORPUS)
def test_corpus_files_read_through_s3_equal_pyarrow(s3, options, rel):
    path = corpus_dir() / rel
    url = put(s3, f"corpus/{os.path.basename(rel)}", path)
    got = parquetry.read_table(url, storage_options=options)
    assert_tables_equal(got, pq.read_table(path), rel)


def test_pyarrow_files_read_through_s3_equal_pyarrow(s3, options, written):
    path = written["groups.parquet"]
    url = put(s3, "written/groups.parquet", path)
    assert_tables_equal(parquetry.read_table(url, storage_options=options), pq.read_table(path))
    got = parquetry.read_table(url, storage_options=options, columns=["name", "tags"])
    assert_tables_equal(got, pq.read_table(path, columns=["name", "tags"]))
    pf = parquetry.ParquetFile(url, storage_options=options)
    assert_tables_equal(pf.read_row_group(3), pq.ParquetFile(path).read_row_group(3))


def test_the_footer_costs_one_request_and_a_long_one_two(s3, options, written):
    url = put(s3, "written/groups2.parquet", written["groups.parquet"])
    pf = parquetry.ParquetFile(url, storage_options=options)
    size = os.path.getsize(written["groups.parquet"])
    assert pf._raw.request_stats() == (1, min(size, TAIL_READ))
    wide = written["wide.parquet"]
    footer = pq.ParquetFile(wide).metadata.serialized_size
    assert footer > TAIL_READ
    url = put(s3, "written/wide.parquet", wide)
    pf = parquetry.ParquetFile(url, storage_options=options)
    requests, fetched = pf._raw.request_stats()
    assert requests == 2
    assert fetched == footer + 8  # the footer, its length and magic: each byte once
    assert_tables_equal(pf.read(), pq.read_table(wide))


def test_a_whole_read_costs_about_one_request_per_row_group_not_per_page(s3, options, written):
    path = written["groups.parquet"]
    meta = pq.ParquetFile(path).metadata
    # At least one page per column chunk.
    pages = meta.num_row_groups * meta.num_columns
    url = put(s3, "written/groups3.parquet", path)
    pf = parquetry.ParquetFile(url, storage_options=options)
    table = pf.read(use_threads=False)
    requests, fetched = pf._raw.request_stats()
    assert table.num_rows == meta.num_rows
    # The footer, then the chunks of the row groups: adjacent, so merged to one request per
    # row group (the first two together).
    assert requests <= 1 + meta.num_row_groups, (requests, meta.num_row_groups)
    assert requests < pages
    size = os.path.getsize(path)
    # Every byte once but the leading magic: the read-ahead stops short of the footer's
    # tail, which reaches into the last row group.
    assert fetched == size - 4, (fetched, size)


def test_one_column_fetches_only_its_chunks(s3, options, written):
    path = written["groups.parquet"]
    url = put(s3, "written/groups4.parquet", path)
    pf = parquetry.ParquetFile(url, storage_options=options)
    got = pf.read(columns=["id"], use_threads=False)
    assert_tables_equal(got, pq.read_table(path, columns=["id"]))
    meta = pq.ParquetFile(path).metadata
    chunks = sum(meta.row_group(g).column(0).total_compressed_size for g in range(meta.num_row_groups))
    requests, fetched = pf._raw.request_stats()
    # The footer's tail, the id chunks, and whatever lies in the gaps merged over (< 1 MiB
    # each, one per row group at most).
    assert fetched < os.path.getsize(path)
    assert fetched <= TAIL_READ + chunks + meta.num_row_groups * (1 << 20)
    assert requests <= 1 + meta.num_row_groups


def download(s3, key: str) -> bytes:
    return s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def test_write_table_uploads_a_file_pyarrow_reads(s3, options):
    small = pa.table({"a": [1, 2, 3], "s": ["x", None, "z"]})
    parquetry.write_table(small, f"s3://{BUCKET}/out/small.parquet", storage_options=options)
    assert_tables_equal(pq.read_table(io.BytesIO(download(s3, "out/small.parquet"))), small)
    # Larger than one part (8 MiB): a multipart upload of several parts.
    n = 3_000_000
    big = pa.table({"x": pa.array(range(n), pa.int64()),
                    "r": pa.array([os.urandom(8) for _ in range(n // 10)] * 10, pa.binary())})
    parquetry.write_table(big, f"s3://{BUCKET}/out/big.parquet", storage_options=options, compression="none",
                          use_dictionary=False)
    body = download(s3, "out/big.parquet")
    assert len(body) > 16 << 20
    assert_tables_equal(pq.read_table(io.BytesIO(body)), big)
    assert not s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads")
    # Read back with parquetry too.
    got = parquetry.read_table(f"s3://{BUCKET}/out/big.parquet", storage_options=options)
    assert_tables_equal(got, big)


def test_a_failed_write_leaves_no_object(s3, options):
    schema = pa.schema([("a", pa.int64())])

    def batches():
        yield pa.record_batch([pa.array(range(1000), pa.int64())], schema=schema)
        raise ValueError("the producer failed")

    reader = pa.RecordBatchReader.from_batches(schema, batches())
    with pytest.raises(Exception):
        parquetry.write_table(reader, f"s3://{BUCKET}/out/failed.parquet", storage_options=options)
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix="out/failed")
    assert listed.get("KeyCount", 0) == 0
    assert not s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads")


def test_parquet_writer_to_s3(s3, options):
    table = pa.table({"a": list(range(10))})
    with parquetry.ParquetWriter(f"s3://{BUCKET}/out/writer.parquet", table.schema,
                                 storage_options=options) as w:
        w.write_table(table)
        w.write_table(table)
    assert_tables_equal(pq.read_table(io.BytesIO(download(s3, "out/writer.parquet"))),
                        pa.concat_tables([table, table]))


def test_an_object_replaced_while_read_is_an_error(s3, options, written):
    url = put(s3, "changing/groups.parquet", written["groups.parquet"])
    pf = parquetry.ParquetFile(url, storage_options=options)
    put(s3, "changing/groups.parquet", corpus_dir() / CORPUS[0])
    with pytest.raises(OSError, match="changed while it was read"):
        pf.read()


def test_objects_under_a_prefix_are_listed_with_their_sizes(s3, options):
    from parquetry import _parquetry

    files = [corpus_dir() / rel for rel in CORPUS[:3]]
    for f in files:
        put(s3, f"listed/sub/{f.name}", f)
    s3.put_object(Bucket=BUCKET, Key="listed-not/x", Body=b"x")
    want = sorted((f"s3://{BUCKET}/listed/sub/{f.name}", f.stat().st_size) for f in files)
    assert _parquetry.list_url(f"s3://{BUCKET}/listed/", list(options.items())) == want
    assert _parquetry.list_url(f"s3://{BUCKET}/nothing/", list(options.items())) == []


def test_missing_bucket_and_key_are_file_not_found_naming_them(s3, options):
    with pytest.raises(FileNotFoundError) as e:
        parquetry.read_table(f"s3://{BUCKET}/no/such/key.parquet", storage_options=options)
    assert f"s3://{BUCKET}/no/such/key.parquet" in str(e.value) and "not found" in str(e.value)
    with pytest.raises(FileNotFoundError) as e:
        parquetry.read_table("s3://no-such-bucket/key.parquet", storage_options=options)
    assert "s3://no-such-bucket/key.parquet" in str(e.value) and "NoSuchBucket" in str(e.value)


def test_bad_storage_options_are_errors(options):
    with pytest.raises(ValueError, match="aws_endpoint_urll"):
        parquetry.read_table(f"s3://{BUCKET}/x.parquet", storage_options={**options, "aws_endpoint_urll": "x"})
    with pytest.raises(ValueError, match="storage_options"):
        parquetry.read_table(str(corpus_dir() / CORPUS[0]), storage_options=options)


# ---- servers written here: ranges over HTTP, a refusing server, a server that drops ----


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves files from ``self.server.files`` (name -> bytes), honouring one Range
    (``bytes=a-b``, ``bytes=a-``, ``bytes=-n``); ``self.server.mode`` may make it refuse
    every request (403) or drop the connection half-way through any ranged answer that does
    not reach the end of the file."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.answer(head=True)

    def do_GET(self):
        self.answer(head=False)

    def answer(self, head):
        self.server.requests += 1
        if self.server.mode == "refuse":
            body = b"<?xml version='1.0'?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
            self.send_response(403)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        data = self.server.files.get(self.path.lstrip("/").split("/", 1)[-1])
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start, end = 0, len(data)
        spec = self.headers.get("Range")
        if spec and spec.startswith("bytes="):
            a, _, b = spec[len("bytes="):].partition("-")
            if a == "":
                start = max(0, len(data) - int(b))
            else:
                start = int(a)
                end = min(len(data), int(b) + 1) if b else len(data)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(end - start))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", '"v1"')
        self.end_headers()
        if head:
            return
        body = data[start:end]
        if self.server.mode == "drop" and spec and end < len(data):
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)


@pytest.fixture
def http_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    server.files, server.mode, server.requests = {}, "serve", 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_http_reads_with_ranges_equal_pyarrow(http_server, written):
    path = written["groups.parquet"]
    http_server.files["groups.parquet"] = path.read_bytes()
    rel = CORPUS[3]
    http_server.files["nested.parquet"] = (corpus_dir() / rel).read_bytes()
    base = f"http://127.0.0.1:{http_server.server_port}/files"
    assert_tables_equal(parquetry.read_table(f"{base}/groups.parquet"), pq.read_table(path))
    assert_tables_equal(parquetry.read_table(f"{base}/nested.parquet"), pq.read_table(corpus_dir() / rel))


def test_a_refusing_server_is_access_denied(http_server):
    http_server.mode = "refuse"
    url = f"http://127.0.0.1:{http_server.server_port}/files/x.parquet"
    with pytest.raises(OSError) as e:
        parquetry.read_table(url, storage_options={"max_retries": "0"})
    assert url in str(e.value)
    assert "403" in str(e.value) or "denied" in str(e.value).lower()


def test_s3_with_refused_credentials_is_access_denied(http_server):
    # A server that answers every S3 request with AccessDenied, as S3 does for bad keys.
    http_server.mode = "refuse"
    endpoint = f"http://127.0.0.1:{http_server.server_port}"
    options = {"aws_endpoint_url": endpoint, "aws_access_key_id": "wrong", "aws_secret_access_key": "wrong",
               "aws_region": "us-east-1", "max_retries": "0"}
    with pytest.raises(OSError) as e:
        parquetry.read_table("s3://bucket/key.parquet", storage_options=options)
    assert "s3://bucket/key.parquet" in str(e.value)
    assert "access denied" in str(e.value).lower()


def test_delete_matching_with_refused_credentials_is_access_denied(http_server):
    http_server.mode = "refuse"
    endpoint = f"http://127.0.0.1:{http_server.server_port}"
    options = {"aws_endpoint_url": endpoint, "aws_access_key_id": "wrong", "aws_secret_access_key": "wrong",
               "aws_region": "us-east-1", "max_retries": "0"}
    with pytest.raises(OSError) as e:
        parquetry.write_to_dataset(pa.table({"k": [1], "x": [2]}), "s3://bucket/root", partition_cols=["k"],
                                   storage_options=options, existing_data_behavior="delete_matching")
    assert "s3://bucket/root/k=1/" in str(e.value)
    assert "access denied" in str(e.value).lower()


def test_a_connection_dropped_mid_range_is_an_error_naming_the_object(http_server, written):
    http_server.files["groups.parquet"] = written["groups.parquet"].read_bytes()
    http_server.mode = "drop"
    url = f"http://127.0.0.1:{http_server.server_port}/files/groups.parquet"
    with pytest.raises(OSError) as e:
        parquetry.read_table(url, storage_options={"max_retries": "1", "retry_timeout": "5"})
    assert url in str(e.value)

