"""The floor of the S3 benchmark's whole-file read (issue 31): what moving its bytes costs in
this rig (moto's server, the counting proxy, a client, on the shared cores), with nothing
decoded, against the read itself and the same read from the local file.

    python3 bench/s3_floor.py [--runs N] [--file orders] [--clients ...] [--out JSON]

The rig is ``s3_bench.py``'s (``s3_proxy.py``: moto with the object's bytes kept once, the
proxy in this process, no delay). parquetry's read is run once through the proxy; the byte
ranges it asked for (the proxy's log) are then fetched, in the same order and with the same
requests in flight (the tail alone, then two at once: parquetry's 32 MiB in flight of 16 MiB
requests), by:

- ``py``: Python's ``http.client``, a thread and a kept connection per request in flight,
  each body read into one preallocated buffer (``readinto``);
- ``curl``: one ``curl`` process for the tail, one for the rest (``--parallel
  --parallel-max 2``), bodies to /dev/null (process start-up included);
- ``rust``: parquetry's own object store path, ``bench/examples/s3_fetch.rs`` (``open_url``,
  then ``ObjectSource::prefetch`` of the ranges and a wait for every byte), in its own
  process;

each through the proxy and straight against moto. Beside them: ``parquetry``, the
benchmark's read (``read_table(storage_options=, threads=1)``, in this process), the same
read in Rust (``s3_fetch`` mode ``read``), and both from the local file. Per cell: the
median wall time of N runs after a warm-up, and the CPU time the runs took in moto's
process, in this process (the proxy's threads, and the Python clients and reads; apart, the
calling thread's, which is parquetry's decoding thread) and in the client's process. Writes a JSON file and prints a table.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from filter_queries import prepare  # noqa: E402
from s3_bench import BUCKET, upload  # noqa: E402
from s3_engines import KEY_ID, REGION, SECRET  # noqa: E402
from s3_proxy import Moto, Proxy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FETCH = ROOT / "target" / "release" / "examples" / "s3_fetch"
TICK = os.sysconf("SC_CLK_TCK")
# moto answers 403 to a request without credentials and checks no signature: a header of the
# right shape.
AUTH = (f"AWS4-HMAC-SHA256 Credential={KEY_ID}/20260101/{REGION}/s3/aws4_request, SignedHeaders=host;range, "
        "Signature=" + "0" * 64)


def proc_cpu_ms(pid: int) -> float:
    """User + system CPU of a process (every thread, ended ones too), in ms (tick-grained)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def self_cpu_ms() -> float:
    return time.process_time() * 1000


def requested(timeline: list) -> tuple[int, list[tuple[int, int]]]:
    """The suffix length and the (offset, len) ranges of a read, from the proxy's timeline
    (``GET bytes=A-B`` / ``GET bytes=-N``), in the order they were asked."""
    tail, ranges = 0, []
    for entry, *_ in timeline:
        method, spec = entry.split(" ")
        if method != "GET" or not spec.startswith("bytes="):
            raise ValueError(f"unexpected request {entry!r}")
        a, b = spec[len("bytes="):].split("-")
        if a == "":
            tail = int(b)
        else:
            ranges.append((int(a), int(b) - int(a) + 1))
    return tail, ranges


class PyClient:
    """Fetches the ranges with ``http.client``, ``at_once`` requests in flight, each on a
    connection kept across runs; bodies read into preallocated buffers."""

    def __init__(self, endpoint: str, path: str, tail: int, ranges, at_once: int):
        host, port = endpoint.split("://", 1)[1].split(":")
        self.path, self.tail, self.ranges, self.at_once = path, tail, ranges, at_once
        self.conns = [http.client.HTTPConnection(host, int(port), timeout=60) for _ in range(at_once)]
        self.buffers = [bytearray(n) for _, n in ranges]
        self.tail_buffer = bytearray(tail)

    def _get(self, conn, spec: str, buf: bytearray) -> None:
        conn.request("GET", self.path, headers={"Range": spec, "Authorization": AUTH})
        resp = conn.getresponse()
        view, got = memoryview(buf), 0
        while got < len(buf):
            n = resp.readinto(view[got:])
            if not n:
                break
            got += n
        if got != len(buf) or resp.status != 206:
            raise RuntimeError(f"{spec}: status {resp.status}, {got} of {len(buf)} bytes")

    def run(self) -> None:
        self._get(self.conns[0], f"bytes=-{self.tail}", self.tail_buffer)
        work = list(enumerate(self.ranges))
        lock = threading.Lock()

        def worker(conn):
            while True:
                with lock:
                    if not work:
                        return
                    i, (offset, n) = work.pop(0)
                self._get(conn, f"bytes={offset}-{offset + n - 1}", self.buffers[i])

        threads = [threading.Thread(target=worker, args=(c,)) for c in self.conns]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def curl_run(url: str, tail: int, ranges, at_once: int) -> None:
    auth = ["-H", f"Authorization: {AUTH}"]
    subprocess.run(["curl", "-sf", *auth, "-r", f"-{tail}", url, "-o", "/dev/null"], check=True)
    args = ["curl", "-sf", "--no-progress-meter", *auth, "--parallel", "--parallel-max", str(at_once)]
    for offset, n in ranges:
        args += ["-r", f"{offset}-{offset + n - 1}", url, "-o", "/dev/null"]
    subprocess.run(args, check=True)


def measure(fn, runs: int, moto_pid: int) -> dict:
    """Wall and CPU per run of ``fn`` (which returns the CPU ms of a child process, or 0)."""
    fn()  # warm-up
    out = dict(ms=[], moto_cpu=[], self_cpu=[], child_cpu=[], thread_cpu=[])
    for _ in range(runs):
        m0, s0, t0, c0 = proc_cpu_ms(moto_pid), self_cpu_ms(), time.perf_counter(), time.thread_time()
        child = fn() or 0.0
        out["ms"].append((time.perf_counter() - t0) * 1e3)
        # The calling thread's: parquetry decodes on it (threads=1), so this is the decoding
        # thread's CPU time, the read's critical path.
        out["thread_cpu"].append((time.thread_time() - c0) * 1e3)
        out["moto_cpu"].append(proc_cpu_ms(moto_pid) - m0)
        out["self_cpu"].append(self_cpu_ms() - s0)
        out["child_cpu"].append(child)
    return out


def children_cpu_ms() -> float:
    r = os.times()
    return (r.children_user + r.children_system) * 1000


def with_children(fn):
    def run():
        c0 = children_cpu_ms()
        fn()
        return children_cpu_ms() - c0
    return run


def rust(mode: str, runs: int, **arg):
    """One s3_fetch process doing warm-up + ``runs`` runs; its per-run figures."""
    out = subprocess.run([str(FETCH), json.dumps(dict(arg, mode=mode, runs=runs))], capture_output=True, text=True,
                         env={**os.environ, "MIMALLOC_PURGE_DELAY": "-1"})
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-500:])
    return json.loads(out.stdout)


def paired(parquetry, path, url, options, proxy_url, moto_url, n) -> dict:
    """``n`` pairs of the local read and each remote read, alternated; per remote, each pair's
    S3 ÷ local ratio (the load moves between pairs far more than within one)."""
    remotes = {"S3 through the proxy": (url, dict(options, aws_endpoint_url=proxy_url)),
               "S3 straight to moto": (url, dict(options, aws_endpoint_url=moto_url)),
               "file:// URL": (f"file://{path}", None)}
    out = {}
    for name, (where, opts) in remotes.items():
        read = (lambda: parquetry.read_table(where, threads=1, storage_options=opts)) if opts else \
            (lambda: parquetry.read_table(where, threads=1))
        read()
        ratios = []
        for _ in range(n):
            t0 = time.perf_counter()
            parquetry.read_table(str(path), threads=1)
            t1 = time.perf_counter()
            read()
            ratios.append((time.perf_counter() - t1) / (t1 - t0))
        q = statistics.quantiles(ratios, n=4)
        print(f"paired, {name}: ÷ local median {statistics.median(ratios):.2f} (quartiles {q[0]:.2f}-{q[2]:.2f})",
              flush=True)
        out[name] = ratios
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--file", default="orders")
    ap.add_argument("--at-once", type=int, default=2, help="requests in flight after the tail (parquetry's: 2)")
    ap.add_argument("--clients", default="parquetry,local,file-url,py,curl,rust,rust-read,rust-local")
    ap.add_argument("--paired", type=int, default=0,
                    help="also N pairs of the local read and each remote read (S3 through the proxy, straight to "
                         "moto, file:// URL) alternated, so that a pair sees about the same load")
    ap.add_argument("--out", default="/tmp/s3floor-floor.json")
    args = ap.parse_args()
    clients = args.clients.split(",")
    import parquetry

    path = prepare()[args.file]
    moto = Moto()
    proxy = Proxy(moto.port)
    results: dict = {}
    try:
        key = upload(moto.url, {args.file: path})[args.file]
        options = {"aws_endpoint_url": proxy.url, "aws_access_key_id": KEY_ID, "aws_secret_access_key": SECRET,
                   "aws_region": REGION, "allow_http": "true"}
        url = f"s3://{BUCKET}/{key}"
        parquetry.read_table(url, threads=1, storage_options=options)  # warm-up
        proxy.counts.reset()
        parquetry.read_table(url, threads=1, storage_options=options)
        snap = proxy.counts.snapshot()
        tail, ranges = requested(snap["timeline"])
        ranges.sort()  # sent in file order (two at once: the proxy may see the second first)
        total = snap["bytes"]
        print(f"parquetry's read: {snap['requests']} requests, {total / 2**20:.1f} MiB; tail {tail}, "
              f"ranges {ranges}", flush=True)
        results["requests"] = dict(tail=tail, ranges=ranges, bytes=total, timeline=snap["timeline"])
        cells = []
        for where, endpoint in (("proxy", proxy.url), ("moto", moto.url)):
            http_url = f"{endpoint}/{BUCKET}/{key}"
            opts = dict(options, aws_endpoint_url=endpoint)
            if "parquetry" in clients:
                cells.append((f"parquetry read_table, {where}", lambda o=opts: parquetry.read_table(
                    url, threads=1, storage_options=o) and 0.0))
            if "py" in clients:
                client = PyClient(endpoint, f"/{BUCKET}/{key}", tail, ranges, args.at_once)
                cells.append((f"py http.client, {where}", lambda c=client: c.run() or 0.0))
            if "curl" in clients:
                cells.append((f"curl, {where}", with_children(lambda u=http_url: curl_run(u, tail, ranges,
                                                                                          args.at_once))))
            if "rust" in clients:
                cells.append((f"rust object_store fetch, {where}", ("fetch", endpoint)))
            if "rust-read" in clients:
                cells.append((f"rust read (decode), {where}", ("read", endpoint)))
        if "local" in clients:
            cells.append(("parquetry read_table, local file", lambda: parquetry.read_table(str(path), threads=1)
                          and 0.0))
        if "file-url" in clients:
            # The object store path (prefetch, requests, pieces) over object_store's local
            # file system: what that path costs when moving the bytes costs nothing.
            cells.append(("parquetry read_table, file:// URL", lambda: parquetry.read_table(f"file://{path}",
                                                                                           threads=1) and 0.0))
        if "rust-local" in clients:
            cells.append(("rust read (decode), local file", ("local", "")))
        for name, fn in cells:
            if isinstance(fn, tuple):
                mode, endpoint = fn
                m0, s0 = proc_cpu_ms(moto.proc.pid), self_cpu_ms()
                r = rust(mode, args.runs, url=url, endpoint=endpoint, ranges=ranges, file=str(path))
                # moto's and the proxy's CPU over the process's runs (the warm-up included).
                share = args.runs + 1
                r = dict(ms=r["times_ms"], child_cpu=r["cpu_ms"], thread_cpu=[0.0] * args.runs,
                         moto_cpu=[(proc_cpu_ms(moto.proc.pid) - m0) / share] * args.runs,
                         self_cpu=[(self_cpu_ms() - s0) / share] * args.runs)
            else:
                r = measure(fn, args.runs, moto.proc.pid)
            results[name] = r
            med = {k: statistics.median(v) for k, v in r.items()}
            print(f"{name:42s} {med['ms']:7.1f} ms   cpu: moto {med['moto_cpu']:6.1f}  this process "
                  f"{med['self_cpu']:6.1f} (calling thread {med['thread_cpu']:6.1f})  client process "
                  f"{med['child_cpu']:6.1f}   (min {min(r['ms']):.1f})",
                  flush=True)
        if args.paired:
            results["paired"] = paired(parquetry, path, url, options, proxy.url, moto.url, args.paired)
    finally:
        proxy.close()
        moto.close()
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
