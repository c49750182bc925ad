"""The public API docs/python-api.md lists, and what importing it costs."""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from util import data_file

import faircode


def test_the_public_api_is_exported():
    assert sorted(faircode.__all__) == [
        "InputError",
        "__version__",
        "audit_art10",
        "audit_datasheet",
        "audit_ll144",
        "compare",
        "profile",
        "provenance_for",
        "scan",
        "summarize",
    ]
    a = faircode.profile(data_file("insurance.csv"))
    drift = faircode.compare(a, a)
    assert all(d["drift_level"] == "none" for d in drift["dimensions"])
    block = faircode.provenance_for(data_file("insurance.csv"))
    assert block["dataset_hash"].startswith("sha256:") and len(block["dataset_hash"]) == 71
    from faircode.monitor import (
        MonitorInputError,
        evaluate,
        fairness_disparity,
        fairness_gate,
        fairness_report,
        slice_metrics,
    )

    assert callable(evaluate) and issubclass(MonitorInputError, Exception)
    # the prediction store's API (SPEC 15.9; tests/monitor/test_monitor_api.py)
    assert all(map(callable, (slice_metrics, fairness_disparity, fairness_gate, fairness_report)))


def _public(module) -> list[tuple[str, object]]:
    """(qualified name, object) of every callable a module's ``__all__`` exports."""
    found = [(f"{module.__name__}.{n}", getattr(module, n)) for n in module.__all__]
    return [(name, obj) for name, obj in found if callable(obj)]


#: The public functions whose examples stand alone: faircode's (its classes, CapWords, have
#: none) and ``evaluate``. The prediction store's (faircode/monitor/api.py) read the store
#: their module's example builds, so tests/monitor/test_monitor_api.py runs them with it.
STANDALONE = [
    *(f"faircode.{n}" for n in faircode.__all__ if n[0].islower() and not n.startswith("_")),
    "faircode.monitor.evaluate",
]


@pytest.mark.parametrize("name", STANDALONE)
def test_the_public_functions_examples_run(name):
    """Each public function's docstring examples run as doctests against the bundled
    sample: the function's docstring only (a module's other docstrings may hold
    examples that are not meant to run), with fresh globals, so each example imports
    what it uses, as a reader would."""
    module, _, attr = name.rpartition(".")
    func = getattr(importlib.import_module(module), attr)
    tests = doctest.DocTestFinder(recurse=False).find(func, attr, globs={})
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    failed, tried = runner.summarize(verbose=False)
    assert tried >= 3 and failed == 0, name


def test_every_public_function_documents_its_parameters_with_examples():
    """The convention (keyword arguments, numpydoc docstrings with examples) checked on
    every public name, so that it cannot lapse unseen: a function has Parameters,
    Returns and Examples sections (with ``>>>``); a class that is not an exception (the
    store's result types) has Attributes."""
    import faircode.monitor

    missing = []
    for name, obj in [*_public(faircode), *_public(faircode.monitor)]:
        doc = inspect.getdoc(obj) or ""
        if inspect.isfunction(obj):
            wanted = ["Parameters\n----------", "Returns\n-------", "Examples\n--------", ">>> "]
        elif issubclass(obj, BaseException):
            wanted = []
        else:
            wanted = ["Attributes\n----------"]
        missing += [f"{name}: {part.splitlines()[0]}" for part in wanted if part not in doc]
        if not doc:
            missing.append(f"{name}: no docstring")
    assert not missing, "\n".join(missing)


def test_importing_faircode_does_not_import_pandas_or_pyarrow():
    code = (
        "import sys, faircode; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_profiling_a_small_csv_imports_neither_numpy_nor_pyarrow():
    """Start-up: the reference reader and the analysis are pure Python (numpy is for the
    Arrow paths, columnar.py), so `faircode profile small.csv` loads neither."""
    code = (
        "import sys, faircode; from faircode.cli import main; "
        f"faircode.profile({str(data_file('insurance.csv'))!r}); "
        f"faircode.profile({str(data_file('insurance.csv'))!r}, {{'sex': 'sex'}}, "
        "{'cross': ['sex', 'region']}); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'numpy', 'pyarrow', 'pandas'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
    cli = (
        "import runpy, sys; sys.argv = ['faircode', 'profile', "
        f"{str(data_file('insurance.csv'))!r}, '--json']; "
        "import atexit; atexit.register(lambda: sys.stderr.write(repr(sorted("
        "{m.split('.')[0] for m in sys.modules} & {'numpy', 'pyarrow', 'pandas'}))))\n"
        "runpy.run_module('faircode', run_name='__main__')"
    )
    r = subprocess.run([sys.executable, "-c", cli], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().endswith("[]")


#: Modules whose loading was most of the CLI's start-up (issue 12): typing (NamedTuple
#: compiles each annotation), OpenSSL (hashlib), pathlib (urllib, ipaddress), shutil
#: (argparse's terminal width: bz2, lzma), html, dataclasses and inspect.
START_UP_HEAVY = {
    "numpy", "pyarrow", "pandas", "typing", "hashlib", "_hashlib", "pathlib", "shutil",
    "html", "dataclasses", "inspect", "tempfile", "faircode.monitor.cli",
}  # fmt: skip


def test_the_cli_on_a_small_csv_loads_none_of_the_heavy_modules():
    """`faircode profile small.csv --json` as the console script runs it. With -S (no site:
    an editable install's finder loads pathlib itself) and the source tree on sys.path,
    so what is seen is what faircode loads beyond the bare interpreter."""
    root = str(Path(__file__).resolve().parents[2])
    code = (
        f"import sys; sys.path.insert(0, {root!r}); before = set(sys.modules)\n"
        "import atexit; atexit.register(lambda: sys.stderr.write('LOADED ' + repr(sorted("
        f"(set(sys.modules) - before) & set({sorted(START_UP_HEAVY)!r})))))\n"
        "from faircode.cli import console_main\n"
        f"sys.argv = ['faircode', 'profile', {str(data_file('insurance.csv'))!r}, '--json']\n"
        "sys.exit(console_main())"
    )
    r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"dataset_hash": "sha256:' in r.stdout  # the provenance is there, hashed
    assert r.stderr.strip().endswith("LOADED []"), r.stderr


def test_the_cli_tells_openblas_to_start_no_threads_unless_the_user_did():
    """console_main sets OPENBLAS_NUM_THREADS=1 before anything imports numpy (its worker
    thread spins ~70 ms of CPU at import; faircode never calls BLAS); a value the user
    set is kept, and importing faircode as a library changes nothing."""
    root = str(Path(__file__).resolve().parent.parent)
    code = (
        f"import os, sys; sys.path.insert(0, {root!r})\n"
        "import faircode; lib = os.environ.get('OPENBLAS_NUM_THREADS')\n"
        "import atexit; atexit.register(lambda: sys.stderr.write("
        "f'BLAS {lib} {os.environ.get(\"OPENBLAS_NUM_THREADS\")}'))\n"
        "from faircode.cli import console_main\n"
        f"sys.argv = ['faircode', 'profile', {str(data_file('insurance.csv'))!r}, '--json']\n"
        "sys.exit(console_main())"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().endswith("BLAS None 1"), r.stderr
    env["OPENBLAS_NUM_THREADS"] = "3"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().endswith("BLAS 3 3"), r.stderr


def test_the_streamed_hash_is_sha256_on_both_sides_of_the_small_input_bound():
    """StreamHash hashes inputs up to SMALL_INPUT bytes with CPython's own module and
    larger ones with OpenSSL's, switching while fed: every split gives hashlib's digest."""
    import hashlib
    import random

    from faircode.provenance import SMALL_INPUT, StreamHash, sha256_bytes

    rng = random.Random(12)
    for size in (0, 1, 64, SMALL_INPUT - 1, SMALL_INPUT, SMALL_INPUT + 1, 2 * SMALL_INPUT + 5):
        data = rng.randbytes(size)
        want = "sha256:" + hashlib.sha256(data).hexdigest()
        assert sha256_bytes(data) == want, size
        for _ in range(3):
            h, at = StreamHash(), 0
            while at < size:
                step = rng.choice((0, 1, 63, 4096, SMALL_INPUT // 2, SMALL_INPUT + 3))
                h(data[at : at + step])
                at += step
            assert h.digest() == want, size
