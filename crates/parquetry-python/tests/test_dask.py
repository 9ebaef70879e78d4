"""``parquetry.dask`` on a real ``dask.distributed`` LocalCluster of two worker processes:
``read_parquet`` gives pyarrow's rows (one task per file left after partition pruning), and
``compact`` merges each partition on the workers; ``parquetry.compact`` alike, locally."""

import os

import pyarrow as pa
import pyarrow.parquet as pa_pq
import pytest

import parquetry
import parquetry.dask

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _write(root, parts=4):
    for p in range(parts):
        t = pa.table({"id": pa.array([p * 1000 + i for i in range(300)], pa.int64()),
                      "v": [f"s{i % 17}" for i in range(300)], "k": [i % 3 for i in range(300)]})
        pa_pq.write_to_dataset(t, root, partition_cols=["k"], basename_template=f"p{p}-{{i}}.parquet")


def test_read_parquet_is_pyarrows(tmp_path, client):
    root = tmp_path / "t"
    _write(root)
    filters = [("k", "in", [0, 2]), ("id", ">=", 1100)]
    df = parquetry.dask.read_parquet(str(root), columns=["id", "v", "k"], filters=filters)
    assert df.npartitions == 8, "4 files in each of the 2 partitions the filter keeps"
    got = df.compute().sort_values("id").reset_index(drop=True)
    want = pa_pq.read_table(root, columns=["id", "v", "k"], filters=filters).to_pandas()
    want = want.sort_values("id").reset_index(drop=True)
    assert got["id"].tolist() == want["id"].tolist()
    assert got["v"].tolist() == want["v"].tolist()
    assert got["k"].tolist() == [int(k) for k in want["k"].tolist()]


def test_compact_on_the_cluster_keeps_the_rows(tmp_path, client):
    root = tmp_path / "c"
    _write(root, parts=5)
    before = pa_pq.read_table(root).sort_by("id")
    plan = parquetry.dask.compact(str(root), target_file_size=1 << 20, client=client)
    assert plan["files_before"] == 15 and plan["files_after"] == 3
    files = [f for d in os.listdir(root) for f in os.listdir(root / d)]
    assert len(files) == 3, files
    after = pa_pq.read_table(root).sort_by("id")
    assert after.column("id").equals(before.column("id"))
    assert after.column("v").equals(before.column("v"))


def test_compact_locally(tmp_path):
    root = tmp_path / "l"
    _write(root, parts=3)
    before = pa_pq.read_table(root).sort_by("id")
    planned = parquetry.compact(root, target_file_size=1 << 20, dry_run=True)
    assert planned["files_after"] == 3 and len(os.listdir(root / "k=0")) == 3
    done = parquetry.compact(root, target_file_size=1 << 20)
    assert done["files_before"] == 9 and done["files_after"] == 3
    assert pa_pq.read_table(root).sort_by("id").column("id").equals(before.column("id"))
