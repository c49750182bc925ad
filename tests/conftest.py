"""Shared pytest configuration.

Hypothesis profiles, selected with the HYPOTHESIS_PROFILE environment variable:
  ci   (default) derandomized, 300 examples per test. Fixed for a given set of imported
       modules, not for a test alone: Hypothesis mixes literal constants from every local
       module in sys.modules into its draws, so a test run after others (a lane of
       scripts/check) can meet examples it never meets alone. A failure in CI prints a
       `@reproduce_failure` blob, which replays it anywhere, and `.venv/bin/python -m
       pytest $(.venv/bin/python scripts/lanes.py N)` reruns lane N as CI did;
  deep 20,000 examples, random: `HYPOTHESIS_PROFILE=deep pytest tests/parity/test_js_parity.py`.
Tests that set max_examples themselves keep their own value.

Deep cases: tests marked `@pytest.mark.deep` are further cases of what the default run
already covers (another dataset through the same path, a larger file, another option
mix). The default run, the README's test command, leaves them out (pytest reports them
as deselected) so it stays under ten minutes on two cores; `--deep`, or FAIRCODE_DEEP=1
(which `scripts/check` passes to all its lanes), runs them too.
"""

import json
import os
import time

import pytest
from hypothesis import HealthCheck, settings

# one local Spark session per process, for every Spark test (PySpark imported on use)
from sparkutil import spark  # noqa: F401

# the prediction-store tests' fixtures (SQLite and PostgreSQL stores, the in-process CLI)
from storeutil import cli, db, pg_server_url  # noqa: F401

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=_SLOW_OK,
)
settings.register_profile(
    "deep", max_examples=20_000, deadline=None, suppress_health_check=_SLOW_OK
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def js():
    """One persistent node bridge process (tests/jsbridge.py) for the whole session."""
    from jsbridge import JSEngine, NodeMissing

    try:
        engine = JSEngine()
    except NodeMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    yield engine
    engine.close()


# ---------------------------------------------------------------------------------------
# Where test time goes. `--cpu-durations=N` lists the N tests, and the N files, that used
# the most CPU (this process and the child processes it waited for): on a shared machine
# wall times (--durations) grow with everybody else's load, CPU time does not.
# `--times-out=FILE` writes each test file's seconds (wall and CPU) as JSON: what
# scripts/lanes.py --update folds into tests/times.json, the weights scripts/check uses
# to split the files between its pytest processes; FILE's stem + .tests.json gets
# every test's seconds.
# ---------------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="list the N tests and N test files that used the most CPU time (0: all)",
    )
    parser.addoption(
        "--deep",
        action="store_true",
        default=False,
        help="also run the tests marked deep (or set FAIRCODE_DEEP=1)",
    )
    parser.addoption(
        "--times-out",
        default=None,
        metavar="FILE",
        help="write each test file's wall and CPU seconds to FILE (JSON)",
    )


def deep_run(config: pytest.Config) -> bool:
    return bool(config.getoption("deep")) or os.environ.get("FAIRCODE_DEEP", "") not in ("", "0")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if deep_run(config):
        return
    deep = [item for item in items if item.get_closest_marker("deep")]
    if deep:
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if not item.get_closest_marker("deep")]


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


_TIMES: dict[str, list[float]] = {}  # test id -> [wall, cpu] seconds


def _timing(config: pytest.Config) -> bool:
    return (
        config.getoption("cpu_durations") is not None or config.getoption("times_out") is not None
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if not _timing(item.config):
        return (yield)
    wall, cpu = time.monotonic(), _cpu_seconds()
    try:
        return (yield)
    finally:
        spent = _TIMES.setdefault(item.nodeid, [0.0, 0.0])
        spent[0] += time.monotonic() - wall
        spent[1] += _cpu_seconds() - cpu


def _per_file() -> dict[str, list[float]]:
    files: dict[str, list[float]] = {}
    for nodeid, (wall, cpu) in _TIMES.items():
        spent = files.setdefault(nodeid.split("::")[0], [0.0, 0.0])
        spent[0] += wall
        spent[1] += cpu
    return files


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    out = session.config.getoption("times_out")
    if out and _TIMES:
        rows = [
            f"  {json.dumps(path)}: [{wall:.2f}, {cpu:.2f}]"
            for path, (wall, cpu) in sorted(_per_file().items())
        ]
        with open(out, "w", encoding="utf-8") as fh:
            fh.write("{\n" + ",\n".join(rows) + "\n}\n")  # [wall, cpu] seconds per file
        # beside it, every test's [wall, cpu] seconds, slowest first: where to look next
        tests = sorted(_TIMES.items(), key=lambda kv: -kv[1][0])
        rows = [f"  {json.dumps(nodeid)}: [{wall:.2f}, {cpu:.2f}]" for nodeid, (wall, cpu) in tests]
        with open(str(out).removesuffix(".json") + ".tests.json", "w", encoding="utf-8") as fh:
            fh.write("{\n" + ",\n".join(rows) + "\n}\n")


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    n = config.getoption("cpu_durations")
    if n is None or not _TIMES:
        return
    write = terminalreporter.write_line
    total = sum(cpu for _, cpu in _TIMES.values())
    terminalreporter.section(f"most CPU time ({total:.1f}s in all)")
    for nodeid, (_, cpu) in sorted(_TIMES.items(), key=lambda kv: -kv[1][1])[: n or None]:
        write(f"{cpu:8.2f}s cpu  {nodeid}")
    write("per file:")
    for path, (_, cpu) in sorted(_per_file().items(), key=lambda kv: -kv[1][1])[: n or None]:
        write(f"{cpu:8.2f}s cpu  {path}")
