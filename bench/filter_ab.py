"""A/B of two builds of ``examples/filter_parquetry``: the CPU time (user + system, from
``getrusage`` of the children) of the example process, divided by its reads (one untimed,
``runs`` timed), the least over ``rounds`` alternating runs of each binary; rows and checksums
must be equal. ``MIMALLOC_PURGE_DELAY=-1`` as in ``filter_bench.py``.

    python3 bench/filter_ab.py OLD_BIN NEW_BIN [name,...] [rounds] [runs]

Data: ``bench/data/filter`` as ``filter_bench.py`` writes it (``FILTER_DATA`` to point
elsewhere)."""
import json, os, sys, subprocess, resource
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import filter_queries as fq  # noqa: E402
DATA = Path(os.environ.get("FILTER_DATA", fq.DATA))
files = {"lineitem": DATA / "tpch" / "lineitem.parquet", "orders": DATA / "tpch" / "orders.parquet",
         "lineitem_sorted": DATA / "lineitem_sorted.parquet", "strings": DATA / "strings_nulls.parquet"}
a, b = sys.argv[1], sys.argv[2]
names = (sys.argv[3] if len(sys.argv) > 3 else "count_shipmode,in_shipmode,category_eq,orders_conjunction,date_and_mode_sorted").split(",")
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 10
qs = {q["name"]: q for q in fq.queries(files)}
def run(exe, q):
    arg = dict(file=str(files[q["file"]]), runs=runs, columns=q["columns"], where=q["sql"] or "", leaves=q["leaves"])
    p = subprocess.Popen([exe, json.dumps(arg)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "MIMALLOC_PURGE_DELAY": "-1"})
    out, err = p.communicate()
    return out, err, p.returncode
for name in names:
    q = qs[name]
    cpu = {a: [], b: []}
    res = {}
    for r in range(rounds):
        for exe in (a, b) if r % 2 == 0 else (b, a):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            out, err, rc = run(exe, q)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if rc != 0:
                sys.exit(f"{exe} {name}: {err[-500:]}")
            d = json.loads(out)
            cpu[exe].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / (runs + 1) * 1e3)
            res.setdefault(exe, (d["rows"], d["checksum"]))
    same = res[a] == res[b]
    print(f"{name:22s} A {min(cpu[a]):7.2f} ms  B {min(cpu[b]):7.2f} ms  B/A {min(cpu[b])/min(cpu[a]):.3f}  rows {res[a][0]} "
          f"{'same rows+checksum' if same else 'MISMATCH ' + str(res)}", flush=True)
