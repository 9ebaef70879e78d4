"""The object store of the S3 benchmark (``s3_bench.py``): moto's S3 server on loopback, and
a counting proxy in front of it that adds a fixed delay per request.

The proxy is a threaded HTTP/1.1 server: every request is forwarded to moto as it came
(method, path, headers, body; moto does not check signatures, so the clients' signatures over
the proxy's address pass), after a fixed delay, about an object store's time to first byte.
It counts requests and response body bytes, by method (a listing, a GET of the bucket with
a ``list-type``/``prefix`` query, as ``LIST``), until ``reset()``; a benchmark
resets before each engine's run and reads the counts after it.

moto keeps an object in a spooled temporary file and its GET copies the whole object out
of it before cutting the asked range (``FakeKey.value``): a 64 KiB range of a 220 MiB file
cost a 220 MiB copy, tens of milliseconds, per request. ``python s3_proxy.py moto PORT``
runs moto's server with the object's bytes kept once (invalidated when written), so that a
range costs about what its bytes take, as on a real store. Everything else is moto's.

Run as a script: ``python bench/s3_proxy.py moto PORT`` (the patched moto server).
"""

from __future__ import annotations

import http.client
import http.server
import socket
import subprocess
import sys
import threading
import time

# Headers of a connection, not of the request (RFC 9110 7.6.1): never forwarded.
HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}
PIECE = 1 << 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, proc=None, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


class Counts:
    """Requests and response bytes since the last reset, by method (thread-safe)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.requests: dict[str, int] = {}
            self.bytes = 0
            self.ranges: list[str] = []
            # (what, arrived, answered, ended) in ms since the reset: when each request came,
            # when its first byte went back (after the delay) and when its last did.
            self.timeline: list[tuple[str, float, float, float]] = []
            self.t0 = time.monotonic()

    def add(self, method: str, body_bytes: int, what: str):
        with self.lock:
            self.requests[method] = self.requests.get(method, 0) + 1
            self.bytes += body_bytes
            self.ranges.append(what)

    def ms(self, t: float) -> float:
        return round((t - self.t0) * 1000, 1)

    def add_time(self, what: str, arrived: float, answered: float, ended: float):
        with self.lock:
            self.timeline.append((what, self.ms(arrived), self.ms(answered), self.ms(ended)))

    def snapshot(self) -> dict:
        with self.lock:
            return dict(requests=sum(self.requests.values()), by_method=dict(self.requests), bytes=self.bytes,
                        log=list(self.ranges), timeline=sorted(self.timeline, key=lambda t: t[1]))


class Proxy:
    """The counting, delaying proxy in front of ``upstream`` (``host:port``), on a free
    loopback port; ``delay_ms`` can be changed between runs."""

    def __init__(self, upstream_port: int, delay_ms: float = 0.0):
        self.upstream_port = upstream_port
        self.delay_ms = delay_ms
        self.counts = Counts()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def setup(self):
                super().setup()
                # Headers and body go out in separate writes: without this, Nagle's
                # algorithm holds the body for the client's delayed ACK (40 ms).
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _forward(self):
                arrived = time.monotonic()
                if proxy.delay_ms > 0:
                    time.sleep(proxy.delay_ms / 1000)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                upstream = proxy._connection()
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    resp = upstream.getresponse()
                except (OSError, http.client.HTTPException):
                    # A pooled connection the upstream closed: once more on a new one.
                    upstream.close()
                    upstream = proxy._connection(new=True)
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    resp = upstream.getresponse()
                self.send_response_only(resp.status, resp.reason)
                out_headers = [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP]
                data = None
                if self.command == "HEAD":
                    size = 0
                elif resp.getheader("Content-Length") is None:
                    data = resp.read()  # chunked upstream: sent with a length
                    out_headers.append(("Content-Length", str(len(data))))
                    size = len(data)
                else:
                    size = int(resp.getheader("Content-Length"))
                # Counted before the client can have the response: a run that ends on this
                # response and the reset for the next run come after.
                # A listing is a GET of the bucket with a query (ListObjectsV2 / ListObjects):
                # counted apart, the log naming its prefix.
                query = self.path.partition("?")[2]
                if self.command == "GET" and ("list-type=" in query or "prefix=" in query):
                    proxy.counts.add("LIST", size, f"LIST {query} {size}")
                else:
                    proxy.counts.add(self.command, size, f"{self.command} {self.headers.get('Range', '-')} {size}")
                for k, v in out_headers:
                    self.send_header(k, v)
                self.end_headers()
                answered = time.monotonic()
                if data is not None:
                    self.wfile.write(data)
                elif self.command == "HEAD":
                    resp.read()
                else:
                    while piece := resp.read(PIECE):
                        self.wfile.write(piece)
                self.wfile.flush()
                proxy.counts.add_time(f"{self.command} {self.headers.get('Range', '-')}", arrived, answered,
                                      time.monotonic())
                if resp.will_close:
                    upstream.close()
                else:
                    proxy._release(upstream)

            do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _forward

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self._pool: list[http.client.HTTPConnection] = []
        self._pool_lock = threading.Lock()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _connection(self, new: bool = False) -> http.client.HTTPConnection:
        if not new:
            with self._pool_lock:
                if self._pool:
                    return self._pool.pop()
        return http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=300)

    def _release(self, conn: http.client.HTTPConnection) -> None:
        with self._pool_lock:
            self._pool.append(conn)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Moto:
    """moto's S3 server (patched as the module says) on a free loopback port."""

    def __init__(self):
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, __file__, "moto", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self.port, self.proc)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _run_moto(port: int) -> None:
    from moto.s3.models import FakeKey
    from moto.server import main

    plain = FakeKey.value

    def get(self):
        kept = self.__dict__.get("_bench_value")
        if kept is None:
            kept = plain.fget(self)
            self.__dict__["_bench_value"] = kept
        return kept

    def put(self, new_value):
        self.__dict__.pop("_bench_value", None)
        plain.fset(self, new_value)

    FakeKey.value = property(get, put)
    main(["-H", "127.0.0.1", "-p", str(port)])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "moto":
        _run_moto(int(sys.argv[2]))
    else:
        sys.exit(__doc__)
