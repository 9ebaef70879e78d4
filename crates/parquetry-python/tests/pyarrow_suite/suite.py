"""Runs pyarrow's shipped Parquet test modules in a subprocess pytest, with or without
parquetry patched in (see ``parquetry_plugin.py``), and reads ``known_failures.txt``.

Shared by ``tests/test_pyarrow_suite.py`` (the check ``./test.sh`` runs) and ``measure.py``
(the pass counts for the docs and the issue).
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: pyarrow's test modules the suite runs (``pyarrow.tests.parquet.<name>``).
MODULES = [
    "test_basic",
    "test_data_types",
    "test_datetime",
    "test_metadata",
    "test_parquet_file",
    "test_parquet_writer",
    "test_pandas",
    "test_compliant_nested_type",
    "test_dataset",
]

KNOWN_FAILURES = HERE / "known_failures.txt"


def short_id(nodeid: str) -> str:
    """``.../pyarrow/tests/parquet/test_basic.py::test_x[a]`` as ``test_basic.py::test_x[a]``."""
    path, sep, rest = nodeid.partition("::")
    return os.path.basename(path) + sep + rest


def run(parquet_test_data, modules=MODULES, patch=True, timeout=1800):
    """Runs ``modules`` and returns ``(outcomes, errors, patched_names, output)``:
    ``outcomes`` maps each test's short id to ``passed``, ``failed``, ``skipped`` or
    ``xfailed``; ``errors`` maps failed tests to the first line of their error."""
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + [p for p in [env.get("PYTHONPATH")] if p])
        env["PARQUET_TEST_DATA"] = str(parquet_test_data)
        env["PARQUETRY_PATCH"] = "1" if patch else "0"
        env["PARQUETRY_RESULTS"] = results
        cmd = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "parquetry_plugin",
            "-o", "addopts=", "--tb=no", "-W", "ignore::pytest.PytestUnknownMarkWarning",
            "--pyargs", *[f"pyarrow.tests.parquet.{m}" for m in modules],
        ]
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        if not os.path.exists(results):
            raise RuntimeError(f"pytest wrote no results (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        with open(results) as f:
            raw = json.load(f)
    patched = raw.pop("__patched__")
    errors = {short_id(k): v for k, v in raw.pop("__errors__").items()}
    outcomes = {short_id(k): v for k, v in raw.items()}
    return outcomes, errors, patched, proc.stdout


def read_known_failures(path=KNOWN_FAILURES):
    """``{test id: reason}`` from the list: one test a line, ``<id>  # <reason>``; blank
    lines and lines starting with ``#`` are comments. A line without a reason is an error."""
    known = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, sep, reason = line.partition(" # ")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{n}: every known failure needs a reason after ' # ': {line!r}")
        known[test.strip()] = reason.strip()
    return known


def listed_pyarrow_major(path=KNOWN_FAILURES):
    """The pyarrow major version the list was made with (its ``# pyarrow-major-version:``
    line): test names and outcomes change between pyarrow releases."""
    for line in Path(path).read_text().splitlines():
        if line.startswith("# pyarrow-major-version:"):
            return int(line.split(":", 1)[1])
    raise ValueError(f"{path} does not say which pyarrow it was made with")


def module_of(test_id: str) -> str:
    """``test_basic.py::test_x`` → ``test_basic``."""
    return test_id.split("::", 1)[0].removesuffix(".py")
