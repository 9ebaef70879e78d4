"""A pytest plugin that runs pyarrow's shipped Parquet tests with parquetry in place of
``pyarrow.parquet``'s entry points, and records every test's outcome.

Loaded with ``-p parquetry_plugin`` (this directory on ``PYTHONPATH``) by
``test_pyarrow_suite.py`` and ``measure.py``. Environment:

- ``PARQUETRY_PATCH``: ``1`` (default) puts every public name parquetry defines that
  ``pyarrow.parquet`` also has (``read_table``, ``write_table``, ``ParquetFile``,
  ``ParquetWriter``, ``read_metadata``, ``FileMetaData``...) into the ``pyarrow.parquet``
  module, as a user's ``import parquetry as pq`` would; ``0`` runs plain pyarrow (the baseline).
- ``PARQUETRY_RESULTS``: where to write the outcomes, as JSON ``{nodeid: outcome}`` with
  outcome one of ``passed``, ``failed``, ``skipped``, ``xfailed``, plus the first line of
  each failure's error under ``"__errors__"``.

Only the ``pyarrow.parquet`` namespace is patched, not ``pyarrow.parquet.core``: pyarrow's own
internals (``ParquetDataset``, ``write_to_dataset``) keep calling pyarrow, and a test calling
``pq.X`` gets parquetry's ``X`` exactly when parquetry has one.
"""

import json
import os

PATCHED = []
RESULTS = {}
ERRORS = {}


def patch_pyarrow_parquet():
    """Replaces ``pyarrow.parquet``'s names by parquetry's; returns the names replaced."""
    import pyarrow.parquet as pq

    import parquetry

    names = []
    for name in sorted(set(getattr(parquetry, "__all__", ()))):
        if hasattr(pq, name) and not name.startswith("_"):
            setattr(pq, name, getattr(parquetry, name))
            names.append(name)
    return names


def pytest_configure(config):
    """Patches before any test module is imported (they bind ``pq`` at import, and look
    names up on it at call time)."""
    if os.environ.get("PARQUETRY_PATCH", "1") != "0":
        PATCHED.extend(patch_pyarrow_parquet())


def pytest_report_header(config):
    """Says which names the run took from parquetry."""
    if not PATCHED:
        return "pyarrow.parquet: plain pyarrow (baseline)"
    return "pyarrow.parquet patched with parquetry's: " + ", ".join(PATCHED)


def pytest_runtest_logreport(report):
    """Keeps each test's outcome: a failure in any phase is a failure; the call decides
    otherwise."""
    # With --pyargs the node ids' paths are relative to wherever pytest runs; the module's
    # file name and the test's name within it identify a test.
    nodeid = os.path.basename(report.location[0]) + "::" + report.nodeid.split("::", 1)[-1]
    if report.failed:
        RESULTS[nodeid] = "failed"
        if nodeid not in ERRORS:
            crash = getattr(report.longrepr, "reprcrash", None)
            ERRORS[nodeid] = crash.message.splitlines()[0][:300] if crash and crash.message else str(report.longrepr)[-300:]
        return
    if RESULTS.get(nodeid) == "failed":
        return
    if report.skipped:
        RESULTS[nodeid] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.when == "call":
        RESULTS[nodeid] = "passed"


def pytest_sessionfinish(session, exitstatus):
    """Writes the outcomes where ``PARQUETRY_RESULTS`` says."""
    path = os.environ.get("PARQUETRY_RESULTS")
    if path:
        with open(path, "w") as f:
            json.dump({"__patched__": PATCHED, "__errors__": ERRORS, **RESULTS}, f, indent=0, sort_keys=True)
