"""Prints how many of pyarrow's Parquet tests pass with plain pyarrow and with parquetry
patched in, per module; ``--failures`` also lists every test that passes with pyarrow and
fails with parquetry, with its first error line (the raw material of ``known_failures.txt``).

    python3 crates/parquetry-python/tests/pyarrow_suite/measure.py [--failures] [module ...]

``PARQUET_TEST_DATA`` defaults to the corpus's ``data`` directory beside the repository.
"""

import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suite  # noqa: E402


def main(argv):
    """Runs both configurations and prints the table (and the failures if asked)."""
    show = "--failures" in argv
    modules = [a for a in argv if not a.startswith("--")] or suite.MODULES
    default = Path(__file__).resolve().parents[4].parent / "shared" / "parquet-testing" / "data"
    data = os.environ.get("PARQUET_TEST_DATA", str(default))
    base, _, _, _ = suite.run(data, modules, patch=False)
    ours, errors, patched, _ = suite.run(data, modules, patch=True)
    print("patched:", ", ".join(patched))
    print("| test module | pass with pyarrow | pass with parquetry |")
    print("|---|---:|---:|")
    pa_pass = Counter(suite.module_of(t) for t, o in base.items() if o == "passed")
    pq_pass = Counter(suite.module_of(t) for t, o in ours.items() if o == "passed" and base.get(t) == "passed")
    for m in modules:
        print(f"| {m} | {pa_pass[m]} | {pq_pass[m]} |")
    print(f"| total | {sum(pa_pass.values())} | {sum(pq_pass.values())} |")
    if show:
        for t in sorted(t for t, o in base.items() if o == "passed" and ours.get(t) != "passed"):
            print(f"{t}  # {ours.get(t)}: {errors.get(t, '')}")


if __name__ == "__main__":
    main(sys.argv[1:])
