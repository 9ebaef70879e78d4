#!/usr/bin/env python3
"""Merge the peers' JSON (bench/peers.py) and the Rust bench's JSON (parquetry-bench read)
into one Markdown report: throughput, parquetry's ratios to peers and limits, peak memory,
and the footer benchmark table (the Markdown `parquetry-bench footer` prints); with the
write JSONs (parquetry-bench write, peers.py --mode write), also the "Writing Arrow to
Parquet" tables (bench/report_write.py).

Usage:
    python3 bench/report.py --rust rust.json [--peers peers.json] [--footer footer.md]
                            [--rust-write rust-write.json] [--peers-write peers-write.json]
                            [--out bench/results/latest.md] [--title TEXT]
    python3 bench/report.py --rust-write rust-write.json --peers-write peers-write.json
                            --out bench/results/latest-write.md   (writes only)

Ratios are of median wall times (the same value bytes for every implementation of a file):
  speed-up vs a peer     = peer time / parquetry time         (> 1: parquetry is faster)
  read ÷ decompress      = parquetry time / decompress-only time of the same pages
                           (compressed files; the issue's target is <= 1.25)
  speed ÷ memcpy         = memcpy time / parquetry time, i.e. parquetry GB/s over memcpy GB/s
                           (uncompressed files; target >= 0.65 for DELTA_LENGTH_BYTE_ARRAY)
A cell whose output failed the checksum or row count shows "✗ checksum" and no ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
from pathlib import Path

# (key, column label, source)
IMPLS = [
    ("parquetry", "parquetry", "rust"),
    ("parquetry_view", "parquetry view", "rust"),
    ("arrow_rs", "arrow-rs", "rust"),
    ("arrow_rs_view", "arrow-rs view", "rust"),
    ("parquetry_mmap", "parquetry mmap", "rust"),
    ("parquetry_mmap_view", "parquetry mmap view", "rust"),
    ("arrow_rs_mmap", "arrow-rs mmap", "rust"),
    ("arrow_rs_mmap_view", "arrow-rs mmap view", "rust"),
    ("pyarrow", "pyarrow", "peers"),
    ("pyarrow_view", "pyarrow view", "peers"),
    ("polars", "polars", "peers"),
    ("duckdb", "duckdb", "peers"),
    ("decompress", "decompress only", "rust"),
    ("memcpy", "memcpy", "rust"),
]
READERS = [i for i in IMPLS if i[0] not in ("decompress", "memcpy")]
MIB = 1 << 20


class Notes:
    """Footnotes for errors, numbered once per distinct message."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def ref(self, text: str) -> str:
        text = " ".join(text.split())
        if text not in self.items:
            self.items.append(text)
        return f"[{self.items.index(text) + 1}]"


def load(path: str | None) -> dict:
    if not path or not Path(path).exists():
        return {"meta": {}, "files": {}}
    return json.loads(Path(path).read_text())


def cell_ok(cell: dict | None) -> bool:
    """Timed, and (for reads) the output matched the reference checksum and row count."""
    if not cell or "error" in cell or "skipped" in cell or "median_s" not in cell:
        return False
    ok = cell.get("checksum_ok", cell.get("checksum_matches"))
    return ok is not False and cell.get("rows_ok", True) is not False


def bad_checksum(cell: dict | None) -> bool:
    return bool(cell) and "median_s" in cell and not cell_ok(cell)


def show(cell: dict | None, notes: Notes, value: str) -> str:
    """`value` for a good cell; otherwise what went wrong."""
    if cell is None:
        return ""
    if "error" in cell:
        return "error " + notes.ref(cell["error"])
    if "skipped" in cell:
        return "–"
    if bad_checksum(cell):
        return f"{value} ✗ checksum"
    return value


def ratio(num: dict | None, den: dict | None, invert: bool = False) -> float | None:
    if not (cell_ok(num) and cell_ok(den)):
        return None
    a, b = num["median_s"], den["median_s"]
    return b / a if invert else a / b


def fmt_ratio(r: float | None, target: tuple[str, float] | None = None,
              why: str = "") -> str:
    if r is None:
        return why
    s = f"{r:.2f}x"
    if target:
        op, t = target
        s += " ✓" if (r >= t if op == ">=" else r <= t) else " ✗"
    return s


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nproc() -> str:
    try:
        return subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return str(os.cpu_count())


def merge(rust: dict, peers: dict) -> list[tuple[str, dict, dict]]:
    """[(file name, file entry, {impl: cell})], Rust's file order first."""
    by_name: dict[str, tuple[dict, dict]] = {}
    for src in (rust, peers):
        for entry in src.get("files", {}).values():
            e, cells = by_name.setdefault(entry["name"], (entry, {}))
            cells.update(entry.get("results", {}))
            for k in ("value_bytes", "rows", "largest_page_bytes"):
                e.setdefault(k, entry.get(k))
    order = [Path(f).name for f in rust.get("meta", {}).get("file_order", [])]
    rank = {name: i for i, name in enumerate(order)}
    names = sorted(by_name, key=lambda n: rank.get(n, len(rank)))  # stable: peers order after
    return [(name, *by_name[name]) for name in names]


def header(rust: dict, peers: dict, title: str) -> list[str]:
    rm, pm = rust.get("meta", {}), peers.get("meta", {})
    date = rm.get("started") or pm.get("started") or "unknown date"
    v = pm.get("versions", {})
    rv = rm.get("versions", {})
    runs = []
    if rm:
        runs.append(f"Rust cells: {rm.get('runs')} timed runs after {rm.get('warmup')} warm-up")
    if pm:
        runs.append(f"Python cells: {pm.get('runs')} timed runs after {pm.get('warmup')} warm-up")
    return [
        f"## {title}",
        "",
        f"- Date: {date}",
        f"- Machine: {cpu_model()}, {nproc()} cores (nproc); {platform.system()} {platform.release()}",
        f"- parquetry: {rv.get('parquetry_git', 'unknown')}; arrow-rs `parquet` "
        f"{rv.get('arrow_rs_parquet', '?')}; pyarrow {v.get('pyarrow', '?')} (use_threads=False); "
        f"polars {v.get('polars', '?')} (POLARS_MAX_THREADS=1); duckdb {v.get('duckdb', '?')} "
        f"(threads=1); Python {v.get('python', '?')}",
        f"- Every figure is a median: {'; '.join(runs) or 'no runs'}. Each implementation × file "
        "runs in its own process, one at a time, single-threaded, reading the whole file into "
        "Arrow arrays; every output is checked against pyarrow's row count and value checksum.",
        "- GB/s = value bytes (string/binary lengths + fixed-width sizes) / median wall time. "
        "`view` = Utf8View/BinaryView output, otherwise Utf8/Binary (polars and duckdb use their "
        "own string types).",
    ]


def throughput_table(files, notes: Notes) -> list[str]:
    cols = [label for _, label, _ in IMPLS]
    out = ["### Throughput, GB/s of value bytes", "",
           "| file | value MB | " + " | ".join(cols) + " |",
           "|---|---:|" + "---:|" * len(cols)]
    for name, e, cells in files:
        row = [name, f"{(e.get('value_bytes') or 0) / 1e6:.1f}"]
        for key, _, _ in IMPLS:
            c = cells.get(key)
            row.append(show(c, notes, f"{c['gb_per_s']:.3f}" if c and "gb_per_s" in c else ""))
        out.append("| " + " | ".join(row) + " |")
    return out


def is_compressed(name: str, cells: dict) -> bool:
    d = cells.get("decompress")
    return bool(d) and "skipped" not in d


def ratio_table(files, notes: Notes, mmap: bool = False) -> list[str]:
    """parquetry's ratios; with `mmap`, of the memory-mapped reads (arrow-rs mapped too)."""
    sfx = "_mmap" if mmap else ""
    title = ("### parquetry's ratios, both Rust readers over a memory map" if mmap
             else "### parquetry's ratios, both Rust readers with read() from a File")
    out = [title, "",
           "Speed-up = peer time ÷ parquetry time (> 1: parquetry faster); Utf8 output compared "
           "with Utf8, view with view. Limit: read time ÷ decompress-only time for compressed "
           "files (target ≤ 1.25), parquetry GB/s ÷ memcpy GB/s for uncompressed ones (target ≥ 0.65 "
           "for DELTA_LENGTH_BYTE_ARRAY). ✓/✗ mark the issue's targets (≥ 1.5x arrow-rs, ≥ 2x pyarrow). "
           "Ceiling = arrow-rs time ÷ decompress-only time (compressed) or ÷ memcpy time "
           "(uncompressed): the speed-up over arrow-rs (Utf8) of a reader that did nothing but that; "
           "where it is below 1.5 the 1.5x target cannot be met by any reader that uses the same "
           "decompressor."
           + (" Here parquetry is `ParquetFile::open_mapped` and arrow-rs reads `Bytes` of a "
              "populated memory map; pyarrow, polars and duckdb are the same runs as above."
              if mmap else ""),
           "",
           "| file | vs arrow-rs | view vs arrow-rs view | vs pyarrow | view vs pyarrow view "
           "| vs polars | vs duckdb | read ÷ decompress | view ÷ decompress | speed ÷ memcpy "
           "| view speed ÷ memcpy | ceiling vs arrow-rs |",
           "|---|" + "---:|" * 11]
    for name, e, cells in files:
        p, pv = cells.get("parquetry" + sfx), cells.get("parquetry" + sfx + "_view")
        if p is None and pv is None:
            continue

        def why(c):
            if c is None:
                return ""
            if "error" in c:
                return "error " + notes.ref(c["error"])
            return "✗ checksum" if bad_checksum(c) else ""

        def vs(ours, peer, target=None):
            return fmt_ratio(ratio(ours, cells.get(peer), invert=True), target, why(ours))

        row = [name, vs(p, "arrow_rs" + sfx, (">=", 1.5)), vs(pv, "arrow_rs" + sfx + "_view", (">=", 1.5)),
               vs(p, "pyarrow", (">=", 2.0)), vs(pv, "pyarrow_view", (">=", 2.0)),
               vs(p, "polars"), vs(p, "duckdb")]
        if is_compressed(name, cells):
            d = cells.get("decompress")
            row += [fmt_ratio(ratio(p, d), ("<=", 1.25), why(p)),
                    fmt_ratio(ratio(pv, d), ("<=", 1.25), why(pv)), "", ""]
            limit = d
        else:
            m = cells.get("memcpy")
            target = (">=", 0.65) if "delta_length" in name else None
            row += ["", "", fmt_ratio(ratio(m, p), target, why(p)),
                    fmt_ratio(ratio(m, pv), target, why(pv))]
            limit = m
        row.append(fmt_ratio(ratio(cells.get("arrow_rs" + sfx), limit)))
        out.append("| " + " | ".join(row) + " |")
    return out


def mmap_ratio_table(files, notes: Notes) -> list[str]:
    return ratio_table(files, notes, mmap=True)


def memory_table(files, notes: Notes) -> list[str]:
    cols = [label for key, label, _ in READERS]
    out = ["### Peak memory, MiB above the process's RSS after setup", "",
           "Peak RSS (VmHWM, reset after setup) during the warm-up and timed reads, each holding "
           "one whole-file output at a time. Arrow output = parquetry's output size "
           "(RecordBatch::get_array_memory_size of the Utf8 read; view arrays share page "
           "buffers, which that count would add once per page). The issue's target is "
           "peak ≤ 1.2 × output + the largest page (uncompressed size). The mmap columns "
           "include the file's pages mapped from the page cache (shared, not allocated).",
           "",
           "| file | Arrow output MiB | largest page MiB | " + " | ".join(cols)
           + " | parquetry peak ÷ output | view peak ÷ output |",
           "|---|---:|---:|" + "---:|" * (len(cols) + 2)]
    for name, e, cells in files:
        p, pv = cells.get("parquetry"), cells.get("parquetry_view")
        out_bytes = next((c.get("output_bytes") for c in (p, cells.get("arrow_rs"))
                          if c and c.get("output_bytes")), None)
        page = e.get("largest_page_bytes")
        row = [name, f"{out_bytes / MIB:.1f}" if out_bytes else "",
               f"{page / MIB:.2f}" if page else ""]
        for key, _, _ in READERS:
            c = cells.get(key)
            v = c.get("peak_rss_delta_bytes") if c else None
            row.append(show(c, notes, f"{v / MIB:.0f}" if v is not None else ""))

        def per_output(c):
            if not c or "peak_rss_delta_bytes" not in c or not out_bytes:
                return show(c, notes, "") if c else ""
            return show(c, notes, f"{c['peak_rss_delta_bytes'] / out_bytes:.2f}x")

        row += [per_output(p), per_output(pv)]
        out.append("| " + " | ".join(row) + " |")
    return out


def heap_table(files, notes: Notes) -> list[str]:
    """Peak live heap bytes of one read: the figure the issue's memory target is about."""
    keys = [(k, label) for k, label, _ in READERS if k.startswith(("parquetry", "arrow_rs"))]
    keys.append(("pyarrow", "pyarrow (pool)"))
    out = ["### Peak heap, MiB allocated and live at once during one read", "",
           "The Rust readers run under a counting allocator: for each run, the most bytes live "
           "at once above what was live when the run started (the largest over the cell's "
           "runs). Unlike peak RSS this leaves out memory the allocator keeps after a free, "
           "code pages and the page cache behind a memory map, so it is what one read "
           "allocates. pyarrow: its memory pool's `max_memory()` over the cell's reads. "
           "Target: ≤ 1.2 × Arrow output + the largest page, where the output is the read's "
           "own (Utf8 for parquetry and the target column, views for the view column: 16-byte "
           "views plus the page buffers they point into).",
           "",
           "| file | Arrow output MiB | target MiB | " + " | ".join(l for _, l in keys)
           + " | parquetry ÷ target | parquetry view ÷ target |",
           "|---|---:|---:|" + "---:|" * (len(keys) + 2)]
    for name, e, cells in files:
        p = cells.get("parquetry")
        out_bytes = p.get("output_bytes") if p else None
        page = e.get("largest_page_bytes") or 0
        target = 1.2 * out_bytes + page if out_bytes else None
        row = [name, f"{out_bytes / MIB:.1f}" if out_bytes else "",
               f"{target / MIB:.1f}" if target else ""]

        def heap(key):
            c = cells.get(key)
            if not c:
                return None
            if key == "pyarrow":
                return c.get("impl_info", {}).get("arrow_pool_max_memory_bytes")
            return c.get("peak_heap_delta_bytes")

        for key, _ in keys:
            v = heap(key)
            row.append(show(cells.get(key), notes, f"{v / MIB:.0f}" if v is not None else ""))
        for key in ("parquetry", "parquetry_view"):
            v, c = heap(key), cells.get(key)
            own = c.get("output_bytes") if c else None
            if v is None or not own:
                row.append("")
            else:
                r = v / (1.2 * own + page)
                row.append(f"{r:.2f} {'✓' if r <= 1 else '✗'}")
        out.append("| " + " | ".join(row) + " |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rust", help="JSON of parquetry-bench read")
    ap.add_argument("--peers", help="JSON of bench/peers.py")
    ap.add_argument("--footer", help="Markdown printed by parquetry-bench footer")
    ap.add_argument("--rust-write", help="JSON of parquetry-bench write")
    ap.add_argument("--peers-write", help="JSON of bench/peers.py --mode write")
    ap.add_argument("--out", help="also write the report here")
    ap.add_argument("--title", default="parquetry benchmarks: reading Parquet into Arrow")
    args = ap.parse_args()
    if not (args.rust or args.rust_write or args.peers_write):
        ap.error("give --rust (reads) and/or --rust-write/--peers-write (writes)")
    lines: list[str] = []
    if args.rust:
        rust, peers = load(args.rust), load(args.peers)
        files = merge(rust, peers)
        notes = Notes()
        lines = header(rust, peers, args.title)
        for table in (throughput_table, ratio_table, mmap_ratio_table, heap_table, memory_table):
            lines += [""] + table(files, notes)
        if notes.items:
            lines += ["", "Errors:", ""]
            lines += [f"{i + 1}. {text[:400]}" for i, text in enumerate(notes.items)]
        if args.footer and Path(args.footer).exists():
            lines += ["", Path(args.footer).read_text().strip()]
    if args.rust_write or args.peers_write:
        import report_write
        rust_w, peers_w = load(args.rust_write), load(args.peers_write)
        if not args.rust:
            lines = header(rust_w, peers_w, args.title)[:4]
        lines += [""] + report_write.section(merge(rust_w, peers_w), rust_w, peers_w)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
