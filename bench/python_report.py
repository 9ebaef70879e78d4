"""The Markdown report of bench/python_bench.py's results: one table per part (read, write,
merge), ratios against the peers and the issue's targets."""

from python_bench_settings import (MERGE_IMPLS, MERGE_TARGETS, READ_IMPLS, READ_TARGET_POLARS,
                                   READ_TARGET_PYARROW, WRITE_IMPLS, WRITE_TARGET_PYARROW)


def _ms(r: dict | None) -> str:
    if r is None:
        return "–"
    if "error" in r:
        return "error"
    s = f"{r['median_s'] * 1e3:,.1f}" if "median_s" in r else "–"
    if r.get("check") not in (None, "ok"):
        s += " ✗ " + r["check"]
    return s


def _ok(r: dict | None) -> bool:
    return bool(r) and "median_s" in r and r.get("check") == "ok"


def _x(peer: dict | None, ours: dict | None) -> float | None:
    return peer["median_s"] / ours["median_s"] if _ok(peer) and _ok(ours) else None


def _fx(x: float | None, target: float | None = None) -> str:
    if x is None:
        return "–"
    s = f"{x:.2f}x"
    if target is not None:
        s += " ✓" if x >= target else " ✗"
    return s


def _header(columns: list[str]) -> list[str]:
    """A Markdown table's header and alignment rows: the first column left, the rest right."""
    return [_row(columns), "|---|" + "---:|" * (len(columns) - 1)]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cpu_ms(r: dict | None) -> str:
    return f"{r['cpu_median_s'] * 1e3:,.0f}" if _ok(r) and "cpu_median_s" in r else "–"


def _gbs(nbytes: int, r: dict | None) -> str:
    return f"{nbytes / r['median_s'] / 1e9:.2f}" if _ok(r) else "–"


def report(res: dict) -> str:
    v = res["versions"]
    lines = [
        "# parquetry Python benchmark" + (" (quick)" if res["quick"] else ""), "",
        f"Machine: {res['machine']}. parquetry {v['parquetry']} (threads=True: "
        f"{res['threads']['parquetry']} threads), pyarrow {v['pyarrow']} (cpu_count "
        f"{res['threads']['pyarrow']}), polars {v['polars']} (thread pool "
        f"{res['threads']['polars']}), Python {v['python']}. Every library in one process, "
        f"median of {res['runs']} timed runs after {res['warmup']} warm-up, the cells of a part "
        f"interleaved round by round (each file's implementations in an order rotated every "
        f"round, 20 ms of idle time before each timed call). Produced by `python3 bench/python_bench.py"
        f"{' --quick' if res['quick'] else ''}` (its docstring gives every call and setting).",
        "",
        "Speed-up = the peer's median time ÷ parquetry's (above 1: parquetry is faster); ✓/✗ "
        "against the issue's target. GB/s: value bytes (string lengths plus fixed-width sizes) "
        "for reads and writes, input file bytes for merges. A cell whose result differed from "
        "pyarrow's shows ✗ and the difference.",
        "",
    ]
    for part in res["parts"]:
        lines += {"read": _report_read, "write": _report_write, "merge": _report_merge}[part](
            res["parts"][part])
    load = res.get("load")
    if load:
        lines += [f"1-minute load average before and after: {load[0]:.2f}, {load[1]:.2f}.", ""]
    return "\n".join(lines)


def _report_read(p: dict) -> list[str]:
    lines = ["## Read: whole file into a pyarrow Table", "",
             "`parquetry.read_table(path)` (threads=True) and `threads=False` (1t), "
             "`pq.read_table(path)` (use_threads=True) and `use_threads=False` (1t), "
             f"`pl.read_parquet(path)`. Targets: ≥ {READ_TARGET_PYARROW}x pyarrow at matching "
             f"thread settings, ≥ {READ_TARGET_POLARS:g}x polars. 1t CPU: the process's CPU "
             "time (all threads) of the 1t reads, parquetry / pyarrow: `use_threads=False` "
             "still decompresses on pyarrow's I/O threads.", "",
             *_header(["file", "MB", "parquetry ms", "parquetry 1t ms", "pyarrow ms", "pyarrow 1t ms",
                       "polars ms", "parquetry GB/s", "parquetry 1t GB/s", "vs pyarrow",
                       "1t vs pyarrow 1t", "vs polars", "1t CPU ms"])]
    met = total = 0
    for name, f in p["files"].items():
        r = f["results"]
        xs = [_x(r.get("pyarrow"), r.get("parquetry")), _x(r.get("pyarrow_1t"), r.get("parquetry_1t")),
              _x(r.get("polars"), r.get("parquetry"))]
        targets = [READ_TARGET_PYARROW, READ_TARGET_PYARROW, READ_TARGET_POLARS]
        for x, t in zip(xs, targets):
            total += 1
            met += x is not None and x >= t
        lines.append(_row(
            [name, f"{f['value_bytes'] / 1e6:,.1f}"] + [_ms(r.get(i)) for i in READ_IMPLS]
            + [_gbs(f["value_bytes"], r.get("parquetry")), _gbs(f["value_bytes"], r.get("parquetry_1t"))]
            + [_fx(x, t) for x, t in zip(xs, targets)]
            + [f"{_cpu_ms(r.get('parquetry_1t'))} / {_cpu_ms(r.get('pyarrow_1t'))}"]))
    lines += ["", f"Targets met: {met} of {total} ratios.", ""]
    return lines


def _pages_note(r: dict, ref: dict | None) -> str:
    """' †' when r's output has other data page encodings, or page index, than ref's."""
    keys = ("data_page_encodings", "page_index")
    if not r or not ref or any(k not in r or k not in ref for k in keys):
        return ""
    return "" if all(r[k] == ref[k] for k in keys) else " †"


def _report_write(p: dict) -> list[str]:
    lines = ["## Write: a pyarrow Table in memory to a file", "",
             "`parquetry.write_table` (threads=True, and threads=False: 1t), `pq.write_table` "
             "(one thread: it has no threads option), polars `df.write_parquet` to tmpfs, "
             "settings as the source file's (codec, zstd level 1; dictionary for `strings_dict_*`, "
             "the DELTA encodings for `strings_delta*_`, else PLAIN), 1,048,576-row row groups, "
             "1 MiB / 20,000-row v1 pages, 1 MiB dictionary page limit, statistics and page index. "
             "† = the data page encodings or page index written differ from pyarrow's (polars "
             "cannot be told the dictionary setting or the encoding; pyarrow writes no column "
             f"index for `blob`, see the docstring). Target: ≥ {WRITE_TARGET_PYARROW:g}x pyarrow.",
             "",
             *_header(["file", "MB", "parquetry ms", "parquetry 1t ms", "pyarrow ms", "polars ms",
                       "parquetry GB/s", "pyarrow GB/s", "vs pyarrow", "1t vs pyarrow", "vs polars",
                       "size ÷ pyarrow's"])]
    met = total = 0
    for name, f in p["files"].items():
        r = f["results"]
        ref = r.get("pyarrow")
        x_pa = _x(ref, r.get("parquetry"))
        total += 1
        met += x_pa is not None and x_pa >= WRITE_TARGET_PYARROW
        size = (f"{r['parquetry']['output_bytes'] / ref['output_bytes']:.3f}"
                if _ok(r.get("parquetry")) and _ok(ref) else "–")
        lines.append(_row(
            [name, f"{f['value_bytes'] / 1e6:,.1f}"]
            + [_ms(r.get(i)) + _pages_note(r.get(i), ref) for i in WRITE_IMPLS]
            + [_gbs(f["value_bytes"], r.get("parquetry")), _gbs(f["value_bytes"], ref),
               _fx(x_pa, WRITE_TARGET_PYARROW), _fx(_x(ref, r.get("parquetry_1t"))),
               _fx(_x(r.get("polars"), r.get("parquetry"))), size]))
    lines += ["", f"Targets met: {met} of {total} files.", ""]
    return lines


def _report_merge(p: dict) -> list[str]:
    lines = ["## Merge: many files into one", "",
             "`parquetry.merge(files, out)` (default options); pyarrow: `pq.write_table("
             "pa.concat_tables([pq.read_table(f) ...]), out)` with the inputs' codec and "
             "dictionary setting; polars: `pl.concat([pl.read_parquet(f) ...]).write_parquet(out)` "
             "with the inputs' codec. Datasets of `bench/merge_bench.py`. Targets (the merge "
             "issue): ≥ 5x the fastest peer on a, ≥ 20x on b.", "",
             *_header(["dataset", "MB in", "parquetry ms", "pyarrow ms", "polars ms", "parquetry GB/s",
                       "vs pyarrow", "vs polars", "vs fastest peer", "size ÷ pyarrow's"])]
    for name, d in p["datasets"].items():
        r = d["results"]
        ours = r.get("parquetry")
        xs = {k: _x(r.get(k), ours) for k in ("pyarrow", "polars")}
        known = [x for x in xs.values() if x is not None]
        fastest = min(known) if known else None
        size = (f"{ours['output_bytes'] / r['pyarrow']['output_bytes']:.3f}"
                if _ok(ours) and _ok(r.get("pyarrow")) else "–")
        lines.append(_row(
            [f"{name}: {d['description']}", f"{d['bytes_in'] / 1e6:,.1f}"]
            + [_ms(r.get(i)) for i in MERGE_IMPLS]
            + [_gbs(d["bytes_in"], ours), _fx(xs["pyarrow"]), _fx(xs["polars"]),
               _fx(fastest, MERGE_TARGETS.get(name)), size]))
    lines.append("")
    return lines
