"""The "Writing Arrow to Parquet" section of bench/report.py: throughput of every writer,
parquetry's ratios to arrow-rs, to the best peer and to the compress-only limit, output
sizes and peak memory, from the JSON of `parquetry-bench write` and `peers.py --mode write`.

Ratios are of median wall times (the same value bytes for every writer of a file):
  vs a writer            = its time / parquetry's time            (> 1: parquetry is faster)
  write ÷ compress only  = parquetry time / time to only compress parquetry's own pages
                           with the same codec (compressed files)
  speed ÷ memcpy         = parquetry GB/s / memcpy GB/s of the value bytes (uncompressed)
  size vs pyarrow        = parquetry's file bytes / pyarrow's, the same settings
A writer whose output does not read back to the input's checksum shows "✗ checksum" and no
ratio; a peer that chose encodings other than the input's is marked † (polars and duckdb
cannot be told the encoding; see each cell's data_page_encodings in the JSON).
"""

from __future__ import annotations

from report import MIB, Notes, bad_checksum, cell_ok, fmt_ratio, nproc, ratio

# (key, column label)
WRITERS = [
    ("parquetry", "parquetry"),
    ("parquetry_dict_input", "parquetry dict input"),
    ("arrow_rs", "arrow-rs"),
    ("arrow_rs_dict_input", "arrow-rs dict input"),
    ("pyarrow", "pyarrow"),
    ("polars", "polars"),
    ("duckdb", "duckdb"),
]
LIMITS = [("compress", "compress only"), ("memcpy", "memcpy")]
PEERS = ["arrow_rs", "pyarrow", "polars", "duckdb"]
LABEL = dict(WRITERS + LIMITS)


def show(cell: dict | None, notes: Notes, value: str) -> str:
    """`value` for a good cell (with † if the writer chose its own encodings)."""
    if cell is None:
        return ""
    if "error" in cell:
        return "error " + notes.ref(cell["error"])
    if "skipped" in cell:
        return "n/a"
    if bad_checksum(cell):
        return f"{value} ✗ checksum"
    return value + (" †" if cell.get("encodings_ok") is False else "")


def gbps(cell: dict | None, notes: Notes) -> str:
    v = cell.get("gb_per_s") if cell else None
    return show(cell, notes, f"{v:.3f}" if v is not None else "")


def why(cell: dict | None, notes: Notes) -> str:
    if cell is None:
        return ""
    if "error" in cell:
        return "error " + notes.ref(cell["error"])
    return "✗ checksum" if bad_checksum(cell) else ""


def intro(rust: dict, peers: dict) -> list[str]:
    rm, pm = rust.get("meta", {}), peers.get("meta", {})
    v, rv = pm.get("versions", {}), rm.get("versions", {})
    runs = []
    if rm:
        runs.append(f"Rust cells {rm.get('runs')} timed runs after {rm.get('warmup')} warm-up")
    if pm:
        runs.append(f"Python cells {pm.get('runs')} after {pm.get('warmup')}")
    return [
        "## Writing Arrow to Parquet",
        "",
        f"- parquetry: {rv.get('parquetry_git', 'unknown')}; arrow-rs `parquet` "
        f"{rv.get('arrow_rs_parquet', '?')}; pyarrow {v.get('pyarrow', '?')}; polars "
        f"{v.get('polars', '?')} (POLARS_MAX_THREADS=1); duckdb {v.get('duckdb', '?')} "
        f"(threads=1). Every figure is a median ({'; '.join(runs) or 'no runs'}); each "
        "implementation × file runs in its own process, one at a time, single-threaded.",
        "- A run writes the input file's rows, loaded once into memory as Arrow batches (one "
        "per row group; Utf8 strings), as one Parquet file in memory: the Rust writers into a "
        "`Vec<u8>` reserved at setup, pyarrow into a `BufferOutputStream`, polars into a "
        "`BytesIO`, duckdb (from a duckdb table made at setup) into a file on tmpfs. Every "
        "output is read back and must match the input's row count and value checksum.",
        "- Settings are the input file's, set explicitly on every writer: its codec (zstd "
        "level 1), per column its dictionary (1 GiB dictionary page limit: no fallback) or "
        "its data page encoding, row groups as large as the input's (1,048,576 rows in the "
        "full strings and numeric files, 484 for blobs), v1 data pages "
        "of 1 MiB / 20,000 rows, chunk statistics and the page index. pyarrow checks page "
        "limits only between write batches (1,024 rows, its default), so its blob pages are "
        "a whole row group (see the pages column). † = the writer chose its own encodings (polars and "
        "duckdb cannot be told; n/a: polars has no DELTA encodings); duckdb sets no page size "
        "and writes no page index.",
        "- *dict input*: the same strings as `DictionaryArray<Int32, Utf8>` columns (one "
        "dictionary per batch), dictionary encoding on; target ≥ 10x arrow-rs on the same "
        "input. Limits: *compress only* compresses the pages of parquetry's output with the "
        "same codec and level (parquetry's `Compressor`), *memcpy* copies the value bytes.",
        "- GB/s = value bytes (string/binary lengths + fixed-width sizes) / median wall time."
        + load_note(rust, peers),
        "- Reproduce: `bench/run.sh` (reads, then writes), or the write cells alone: "
        "`python3 bench/peers.py --mode write --files F... --json P.json`, "
        "`parquetry-bench write --files F... --reference P.json --json R.json`, "
        "`python3 bench/report.py --rust-write R.json --peers-write P.json`.",
    ]


def load_note(rust: dict, peers: dict) -> str:
    """The 1-minute load averages the cells saw: above the core count, other work competed."""
    parts = []
    for label, src in (("Rust cells", rust), ("Python cells", peers)):
        loads = [x for e in src.get("files", {}).values() for c in e.get("results", {}).values()
                 for x in c.get("loadavg_1min_before_after", []) if isinstance(x, (int, float))]
        if loads:
            parts.append(f"{label} {min(loads):.1f}–{max(loads):.1f}")
    if not parts:
        return ""
    return (" 1-minute load average during the cells (other work on the machine counts): "
            + ", ".join(parts) + f"; {nproc()} cores. The CPU-time column compares the two "
            "Rust writers by process CPU seconds, less sensitive to that than wall time.")


def throughput(files, notes: Notes) -> list[str]:
    cols = WRITERS + LIMITS
    out = ["### Write throughput, GB/s of value bytes", "",
           "| file | value MB | " + " | ".join(label for _, label in cols) + " |",
           "|---|---:|" + "---:|" * len(cols)]
    for name, e, cells in files:
        row = [name, f"{(e.get('value_bytes') or 0) / 1e6:.1f}"]
        row += [gbps(cells.get(k), notes) for k, _ in cols]
        out.append("| " + " | ".join(row) + " |")
    return out


def throughput_cpu(files, notes: Notes) -> list[str]:
    """The same cells by process CPU time: on a shared machine whose load is above its core
    count, wall time also counts the time a cell waited for a core."""
    cols = WRITERS + LIMITS
    out = ["### Write throughput by CPU time, GB/s of value bytes / median CPU seconds", "",
           "The same runs as above, timed by the process's CPU seconds (user + system, all "
           "threads) instead of wall time.",
           "",
           "| file | " + " | ".join(label for _, label in cols) + " |",
           "|---|" + "---:|" * len(cols)]
    for name, e, cells in files:
        row = [name]
        for k, _ in cols:
            c = cells.get(k)
            cpu = c.get("median_cpu_s") if c else None
            v = (e.get("value_bytes") or 0) / cpu / 1e9 if cpu else None
            row.append(show(c, notes, f"{v:.3f}" if v is not None else ""))
        out.append("| " + " | ".join(row) + " |")
    return out


def best_peer(cells: dict) -> str | None:
    """The fastest peer with a good cell that used the input's encodings."""
    good = [k for k in PEERS if cell_ok(cells.get(k)) and cells[k].get("encodings_ok") is not False]
    return min(good, key=lambda k: cells[k]["median_s"]) if good else None


def size_mb(cell: dict | None) -> str:
    if not cell or "output_file_bytes" not in cell:
        return ""
    return f"{cell['output_file_bytes'] / 1e6:.1f}"


def size_ratio(a: dict | None, b: dict | None) -> str:
    if not (cell_ok(a) and cell_ok(b)) or not b.get("output_file_bytes"):
        return ""
    return f"{a['output_file_bytes'] / b['output_file_bytes']:.3f}"


def ratios(files, notes: Notes) -> list[str]:
    out = ["### parquetry's write ratios and output sizes", "",
           "Speed-up = the other writer's time ÷ parquetry's (> 1: parquetry faster). Best peer "
           "= the fastest of arrow-rs, pyarrow, polars and duckdb among those that wrote the "
           "input's encodings. Pages = data pages written by parquetry / arrow-rs / pyarrow.",
           "",
           "| file | vs arrow-rs | vs arrow-rs, CPU time | dict input vs arrow-rs dict input "
           "| vs best peer | write ÷ compress only | speed ÷ memcpy | parquetry MB | arrow-rs MB "
           "| pyarrow MB | parquetry size ÷ pyarrow | arrow-rs size ÷ pyarrow | pages |",
           "|---|" + "---:|" * 12]
    for name, e, cells in files:
        p, pd = cells.get("parquetry"), cells.get("parquetry_dict_input")
        if p is None and pd is None:
            continue

        def vs(ours, other, target=None):
            return fmt_ratio(ratio(ours, cells.get(other), invert=True), target, why(ours, notes))

        dict_vs = "" if not cells.get("parquetry_dict_input") or "skipped" in pd else \
            vs(pd, "arrow_rs_dict_input", (">=", 10.0))
        best = best_peer(cells)
        best_s = f"{vs(p, best)} ({LABEL[best]})" if best and cell_ok(p) else why(p, notes)
        c = cells.get("compress")
        compressed = c is not None and "skipped" not in c
        limit = fmt_ratio(ratio(p, c), None, why(p, notes)) if compressed else ""
        mem = "" if compressed else fmt_ratio(ratio(cells.get("memcpy"), p), None, why(p, notes))
        pages = "/".join(str((cells.get(k) or {}).get("data_pages", "?"))
                         for k in ("parquetry", "arrow_rs", "pyarrow"))
        a = cells.get("arrow_rs")
        cpu = (fmt_ratio(a["median_cpu_s"] / p["median_cpu_s"])
               if cell_ok(p) and cell_ok(a) and p.get("median_cpu_s") and a.get("median_cpu_s")
               else why(p, notes))
        row = [name, vs(p, "arrow_rs"), cpu, dict_vs, best_s, limit, mem,
               size_mb(p), size_mb(cells.get("arrow_rs")), size_mb(cells.get("pyarrow")),
               size_ratio(p, cells.get("pyarrow")),
               size_ratio(cells.get("arrow_rs"), cells.get("pyarrow")), pages]
        out.append("| " + " | ".join(row) + " |")
    return out


def memory(files, notes: Notes) -> list[str]:
    out = ["### Peak memory while writing, MiB", "",
           "Peak RSS (VmHWM, reset after setup, so the input batches are not counted) above "
           "the RSS after setup, over the warm-up and timed runs; the Rust writers' sink is "
           "reserved at setup (twice the input file), so it is counted only as far as it is "
           "written. Heap = the Rust writers' peak of live heap bytes during one run (the "
           "sink's reservation is not allocated during the run). Output = parquetry's file.",
           "",
           "| file | output MiB | " + " | ".join(label for _, label in WRITERS)
           + " | parquetry heap | arrow-rs heap |",
           "|---|---:|" + "---:|" * (len(WRITERS) + 2)]
    for name, e, cells in files:
        p = cells.get("parquetry")
        row = [name, f"{p['output_file_bytes'] / MIB:.1f}" if p and "output_file_bytes" in p else ""]
        for k, _ in WRITERS:
            c = cells.get(k)
            v = c.get("peak_rss_delta_bytes") if c else None
            row.append(show(c, notes, f"{v / MIB:.0f}" if v is not None else "").replace(" †", ""))
        for k in ("parquetry", "arrow_rs"):
            c = cells.get(k)
            v = c.get("peak_heap_delta_bytes") if c else None
            row.append(f"{v / MIB:.0f}" if v is not None else "")
        out.append("| " + " | ".join(row) + " |")
    return out


def section(files, rust: dict, peers: dict) -> list[str]:
    """The whole write section: intro, tables, error notes."""
    notes = Notes()
    lines = intro(rust, peers)
    for table in (throughput, throughput_cpu, ratios, memory):
        lines += [""] + table(files, notes)
    if notes.items:
        lines += ["", "Write errors:", ""]
        lines += [f"{i + 1}. {text[:400]}" for i, text in enumerate(notes.items)]
    return lines
