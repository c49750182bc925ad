#!/usr/bin/env python3
"""Split the test files between scripts/check's pytest processes (lanes), by time.

    scripts/lanes.py LANE              # lane 0, 1, ...: its test files, one a line
    scripts/lanes.py --count           # how many lanes (FAIRCODE_LANES, default 2)
    scripts/lanes.py --show            # every lane, each file with its seconds
    scripts/lanes.py --update FILE...  # fold measured times into tests/times.json

The weights are wall seconds per file in tests/times.json, measured by a scripts/check
run (each pytest process writes them with --times-out into .test-times/, all lanes
running at once, so every file is timed under the same load). The node unit tests are
the entry NODE, kept for the record only: scripts/check runs them beside the install,
before the lanes start, so no lane carries them. A test file missing
from tests/times.json (a new one) weighs the median of the others. Heaviest first, each
file (or group of files in TOGETHER) goes to the lane with the fewer seconds so far
(ties by name), so the split is the same on every machine; within a lane the files run
in name order.

Standard library only.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMES = ROOT / "tests" / "times.json"
NODE = "node --test tests/js/"
#: pytest processes at once (FAIRCODE_LANES, at least 2; more on a machine with more
#: cores). Two on two cores: the suite is CPU-bound, and fresh-clone runs with three
#: on one day took 697, 719, 745 and 780 s against 738 s with two, no measured gain.
_lanes = os.environ.get("FAIRCODE_LANES") or "2"  # empty: the default
if not _lanes.isdigit() or int(_lanes) < 2:
    sys.exit(f"scripts/lanes.py: FAIRCODE_LANES must be a whole number from 2, not {_lanes!r}")
LANES = int(_lanes)


def test_files() -> list[str]:
    """Every test file under tests/ (tests/engine/test_x.py ...), as a path from the root."""
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py"))


def weights() -> dict[str, float]:
    """Seconds per test file (and NODE), the median for a file never timed."""
    known = {k: float(v) for k, v in json.loads(TIMES.read_text(encoding="utf-8")).items()}
    files = test_files()
    timed = [known[f] for f in files if f in known]
    median = statistics.median(timed) if timed else 1.0
    out = {f: known.get(f, median) for f in files}
    out[NODE] = known.get(NODE, 0.0)
    return out


#: Files that share one session-scoped resource and so must run in the same pytest
#: process: the Spark files share one local Spark session (tests/sparkutil.py). Split
#: across the lanes they ran two JVMs at once on the two cores: 406 s and 240 s in a
#: fresh-clone run, against 373 s and 158 s in one lane.
TOGETHER = [("tests/parity/test_spark.py", "tests/monitor/test_monitor_spark.py")]


def split() -> list[list[str]]:
    """The lanes: lists of test files."""
    w = weights()
    w.pop(NODE)  # run beside the install, before any lane (scripts/check)
    lanes: list[list[str]] = [[] for _ in range(LANES)]
    load = [0.0] * LANES
    units: dict[tuple[str, ...], float] = {}
    grouped = {f for group in TOGETHER for f in group}
    for group in TOGETHER:
        present = tuple(f for f in group if f in w)
        if present:
            units[present] = sum(w[f] for f in present)
    for f in w:
        if f not in grouped:
            units[(f,)] = w[f]
    for unit in sorted(units, key=lambda u: (-units[u], u)):
        k = min(range(LANES), key=lambda i: (load[i], i))
        lanes[k].extend(unit)
        load[k] += units[unit]
    return [sorted(lane) for lane in lanes]


def update(paths: list[str]) -> None:
    """tests/times.json from the --times-out files of one run ([wall, cpu] per file;
    NODE as its wall seconds); files no longer in tests/ are dropped."""
    measured: dict[str, float] = {}
    for path in paths:
        if path.endswith(".tests.json"):  # conftest's per-test times beside a lane's file
            continue
        for name, value in json.loads(Path(path).read_text(encoding="utf-8")).items():
            measured[name] = round(float(value[0] if isinstance(value, list) else value), 1)
    old = json.loads(TIMES.read_text(encoding="utf-8")) if TIMES.exists() else {}
    keep = set(test_files()) | {NODE}
    new = {k: v for k, v in {**old, **measured}.items() if k in keep}
    rows = [f"  {json.dumps(k)}: {new[k]}" for k in sorted(new)]
    TIMES.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--update"] and len(argv) > 1:
        update(argv[1:])
        return 0
    if argv == ["--show"]:
        w = weights()
        print(f"beside the install: {w[NODE]:.0f} s  {NODE}")
        for k, lane in enumerate(split()):
            print(f"lane {k}: {sum(w[f] for f in lane):.0f} s")
            for f in lane:
                print(f"  {w[f]:7.1f}  {f}")
        return 0
    if argv == ["--count"]:
        print(LANES)
        return 0
    if len(argv) == 1 and argv[0] in {str(k) for k in range(LANES)}:
        print("\n".join(split()[int(argv[0])]))
        return 0
    sys.stderr.write(__doc__ or "")
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
