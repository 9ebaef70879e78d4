"""The S3 benchmark's results as markdown (``s3_bench.py`` writes ``bench/results/s3.md``)."""

from __future__ import annotations

import statistics

from s3_engines import SETTINGS

OURS = "parquetry"


def _v(name):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def _bytes(n):
    if n >= 2**20:
        return f"{n / 2**20:.1f} MiB"
    if n >= 2**10:
        return f"{n / 2**10:.0f} KiB"
    return f"{n} B"


def _span(values, fmt=str):
    lo, hi = min(values), max(values)
    return fmt(lo) if lo == hi else f"{fmt(lo)}–{fmt(hi)}"


def _cell(r, what):
    """A measure of one engine's run, as a number to compare and as text."""
    if r is None or "error" in r:
        return None, "n/a"
    bad = " **MISMATCH**" if r.get("mismatch") else ""
    if what == "requests":
        return statistics.median(r["requests"]), _span(r["requests"]) + bad
    if what == "bytes":
        return statistics.median(r["bytes"]), _span(r["bytes"], _bytes) + bad
    ms = statistics.median(r["times_ms"])
    return ms, (f"{ms:.0f}" if ms >= 10 else f"{ms:.1f}") + bad


def _table(qs, results, engines, delay, what, wins):
    head = ["query"] + engines + ["parquetry ÷ best peer"]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for q in qs:
        rs = results.get(q["name"], {})
        values = {e: _cell(rs.get(e, {}).get(delay), what) for e in engines}
        ok = {e: v for e, (v, _) in values.items()
              if v is not None and not rs.get(e, {}).get(delay, {}).get("mismatch")}
        best = min(ok.values()) if ok else None
        cells = [f"**{t}**" if v is not None and v == best else t for e, (v, t) in values.items()]
        peers = [v for e, v in ok.items() if e != OURS]
        ratio = "–"
        if OURS in ok and peers:
            ratio = f"{ok[OURS] / min(peers):.2f}" if min(peers) else ("1.00" if ok[OURS] == 0 else "∞")
            wins.setdefault(q["name"], {})[(what, delay)] = ok[OURS] <= min(peers)
        out.append("| " + " | ".join([f"`{q['name']}`"] + cells + [ratio]) + " |")
    return out


def render(qs, results, local, engines, runs, delays, loads, failures, refs, machine, cpus) -> str:
    d0 = f"{delays[0]:g}"
    out = ["# Reads over S3: parquetry against the peers (issue 31)", "",
           f"`python3 bench/s3_bench.py` (see docs/benchmarks.md). Each engine reads the queries of "
           "`bench/filter_queries.py` (the selective-reads benchmark's, TPC-H SF1 from `tpchgen-cli`) and a "
           "whole-file read from moto's S3 server on loopback, through a proxy that counts requests and "
           "response bytes and adds a fixed delay before forwarding each request "
           f"({', '.join(f'{d:g} ms' for d in delays)}). One warm-up run, then {runs} timed run(s) per cell: "
           "the time is the median, in milliseconds, the file opened inside the timed region; requests and bytes "
           "are the timed runs' (a range where they differed). **Bold**: the best of the row. Results are "
           "checked against duckdb (the system's) reading the local file (rows and a checksum of the values).", "",
           f"Machine: {machine}, {cpus} cores, shared with other work (1-minute load average at the start and "
           f"after each query: {', '.join(loads)}): times are noisy, requests and bytes are not.", "",
           f"Versions: parquetry {_v('parquetry')}, pyarrow {_v('pyarrow')}, polars {_v('polars')}, "
           f"datafusion {_v('datafusion')}, duckdb 1.4.4 + httpfs (own venv), moto {_v('moto')}.", "",
           "Engines and settings:", ""]
    out += [f"- **{e}**: {SETTINGS[e]}" for e in engines] + [""]
    if failures:
        out += ["**RESULT MISMATCHES:**", ""] + [f"- {f}" for f in failures] + [""]
    errors = sorted({(e, r["error"]) for rs in results.values() for e, byd in rs.items() for r in byd.values()
                     if "error" in r})
    if errors:
        out += ["Not run (n/a below):", ""] + [f"- {e}: `{msg}`" for e, msg in errors] + [""]
    out += ["Queries:", "", "| query | what | file | rows (of) |", "|---|---|---|---:|"]
    for q in qs:
        rows = refs[q["name"]][0]
        out.append(f"| `{q['name']}` | {q['what']} | {q['file']} | {rows:,} ({q['total_rows']:,}) |")
    wins: dict = {}
    sections = [("requests", d0, f"Requests per run (GET, HEAD and LIST; {d0} ms delay)"),
                ("bytes", d0, f"Response bytes per run ({d0} ms delay)")]
    sections += [("time", f"{d:g}", f"Time, ms, {d:g} ms delay per request") for d in delays]
    for what, delay, title in sections:
        out += ["", f"## {title}", ""] + _table(qs, results, engines, delay, what, wins)
    if len(delays) > 1:
        # Requests at the other delays, where they differ from the first.
        differ = []
        for q in qs:
            for e in engines:
                byd = results.get(q["name"], {}).get(e, {})
                counts = {d: byd[d]["requests"] for d in byd if "requests" in byd[d]}
                if len({tuple(c) for c in counts.values()}) > 1:
                    differ.append(f"`{q['name']}` {e}: " + ", ".join(f"{d} ms: {_span(c)}" for d, c in counts.items()))
        if differ:
            out += ["", "Request counts that changed with the delay:", ""] + [f"- {d}" for d in differ]
    whole = [q for q in qs if q["name"].startswith("whole_")]
    if whole and local:
        q = whole[0]
        out += ["", f"## Whole file: S3 ({d0} ms delay) against the local file", "",
                f"`{q['name']}` ({q['file']}), the same engine and settings reading the local file (duckdb: the "
                "same 1.4.4 process).", "", "| engine | local ms | S3 ms | S3 ÷ local |", "|---|---:|---:|---:|"]
        for e in engines:
            r = results.get(q["name"], {}).get(e, {}).get(d0, {})
            lo = local.get(e, {})
            if "times_ms" not in r or "times_ms" not in lo:
                out.append(f"| {e} | n/a | n/a | – |")
                continue
            a, b = statistics.median(lo["times_ms"]), statistics.median(r["times_ms"])
            out.append(f"| {e} | {a:.0f} | {b:.0f} | {b / a:.2f} |")
    out += ["", "## parquetry against the best peer, per query", "",
            "| query | fewest requests | fewest bytes | " + " | ".join(f"fastest at {d:g} ms" for d in delays) + " |",
            "|---|---|---|" + "---|" * len(delays)]
    mark = {True: "yes", False: "**no**", None: "–"}
    for q in qs:
        w = wins.get(q["name"], {})
        cells = [mark[w.get(("requests", d0))], mark[w.get(("bytes", d0))]]
        cells += [mark[w.get(("time", f"{d:g}"))] for d in delays]
        out.append(f"| `{q['name']}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
