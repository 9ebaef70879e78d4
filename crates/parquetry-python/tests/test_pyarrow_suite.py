"""pyarrow's own Parquet tests, run with parquetry in place of ``pyarrow.parquet``'s entry
points (see ``pyarrow_suite/``).

Every test that fails with parquetry must be listed in ``pyarrow_suite/known_failures.txt``
with its reason; a failure not listed fails here. A listed test that now passes is reported
(a warning), so the list can shrink. The whole suite runs once, in a subprocess.
"""

import sys
import warnings
from pathlib import Path

import pyarrow as pa
import pytest

from conftest import corpus_dir

sys.path.insert(0, str(Path(__file__).resolve().parent / "pyarrow_suite"))
import suite  # noqa: E402

pytest.importorskip("hypothesis")  # pyarrow's test modules import it
pytest.importorskip("pandas")

_major = int(pa.__version__.split(".")[0])
if _major != suite.listed_pyarrow_major():
    pytest.skip(
        f"known_failures.txt is for pyarrow {suite.listed_pyarrow_major()}, this is pyarrow {pa.__version__}: "
        "run pyarrow_suite/measure.py --failures and update the list",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def outcomes():
    """The outcome of every test of every module, with parquetry patched in."""
    results, errors, patched, _ = suite.run(corpus_dir() / "data")
    assert "read_table" in patched and "write_table" in patched, patched
    return results, errors


@pytest.fixture(scope="module")
def known():
    return suite.read_known_failures()


@pytest.mark.parametrize("module", suite.MODULES)
def test_module(module, outcomes, known):
    """No test of ``module`` fails unless it is a known failure; known failures that pass
    are reported."""
    results, errors = outcomes
    ran = {t: o for t, o in results.items() if suite.module_of(t) == module}
    assert ran, f"no test of {module} ran"
    unexpected = sorted(t for t, o in ran.items() if o == "failed" and t not in known)
    fixed = sorted(t for t, o in ran.items() if o == "passed" and t in known)
    if fixed:
        warnings.warn(
            f"{len(fixed)} known failures of {module} now pass; remove them from "
            f"known_failures.txt: " + ", ".join(fixed)
        )
    assert not unexpected, "failures not in known_failures.txt:\n" + "\n".join(
        f"{t}  # {errors.get(t, '')}" for t in unexpected
    )


def test_known_failures_exist(outcomes, known):
    """Every listed test still exists (a renamed test must not stay listed forever)."""
    results, _ = outcomes
    missing = sorted(t for t in known if t not in results)
    assert not missing, "known_failures.txt lists tests that did not run: " + ", ".join(missing)
