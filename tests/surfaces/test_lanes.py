"""scripts/lanes.py: every test file runs in exactly one of scripts/check's lanes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANES = ROOT / "scripts" / "lanes.py"
NODE = "node --test tests/js/"


def _run(*args: str, lanes: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "FAIRCODE_LANES"}
    if lanes is not None:
        env["FAIRCODE_LANES"] = lanes
    return subprocess.run(
        [sys.executable, str(LANES), *args], capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize("lanes", [None, "", "3", "4"])
def test_each_test_file_is_in_one_lane_and_spark_files_share_one(lanes):
    count = int(_run("--count", lanes=lanes).stdout)
    assert count == (int(lanes) if lanes else 2)
    split = [_run(str(k), lanes=lanes).stdout.split("\n") for k in range(count)]
    split = [[f for f in lane if f] for lane in split]
    assert all(split), "a lane with no test file"
    every = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py"))
    assert sorted(f for lane in split for f in lane) == every
    spark = [k for k, lane in enumerate(split) if "tests/parity/test_spark.py" in lane]
    monitor_spark = [
        k for k, lane in enumerate(split) if "tests/monitor/test_monitor_spark.py" in lane
    ]
    assert spark == monitor_spark and len(spark) == 1
    shown = _run("--show", lanes=lanes).stdout
    assert shown.count("\nlane ") == count
    # the node tests run beside the install, in no lane: listed once, before the lanes
    assert shown.startswith("beside the install: ") and shown.count(NODE) == 1
    assert NODE in shown.split("\n")[0]
    assert _run(str(count), lanes=lanes).returncode == 2  # no such lane


@pytest.mark.parametrize("bad", ["1", "x", "-3", "2.5"])
def test_a_bad_lane_count_is_one_line(bad):
    ran = _run("--count", lanes=bad)
    assert ran.returncode == 1 and ran.stdout == ""
    assert ran.stderr == (
        f"scripts/lanes.py: FAIRCODE_LANES must be a whole number from 2, not {bad!r}\n"
    )
