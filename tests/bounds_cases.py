"""Generated files past the bounds of SPEC 0.9, shared by tests/engine/test_bounds.py and the
measurements in benchmarks (peak RSS before/after). Each writer is seeded and fast."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BRIDGE = ROOT / "scripts" / "engine-js.js"


def write_w8000(path: Path) -> Path:
    """8,000 columns without a keyword, 3 rows: every column a possible categorical."""
    rng = random.Random(1)
    cols = 8000
    lines = [",".join(f"c{i}" for i in range(cols))]
    for _ in range(3):
        lines.append(",".join(rng.choice("ab") for _ in range(cols)))
    path.write_text("\n".join(lines) + "\n")
    return path


def write_onehot(path: Path, cols: int = 2000, rows: int = 2000) -> Path:
    """One-hot columns: each row has a single 1; every column has labels 0 and 1."""
    header = ",".join(f"f{i}" for i in range(cols))
    with open(path, "w") as fh:
        fh.write(header + "\n")
        zeros = ["0"] * cols
        for r in range(rows):
            row = zeros[:]
            row[r % cols] = "1"
            fh.write(",".join(row) + "\n")
    return path


def write_zip_city(path: Path, rows: int = 10_000) -> Path:
    """zip next to city (both geography, never dropped), distinct-ish values."""
    rng = random.Random(2)
    with open(path, "w") as fh:
        fh.write("zip,city,sex\n")
        for r in range(rows):
            fh.write(f"{r:05d},city{rng.randrange(rows):05d},{'MF'[r % 2]}\n")
    return path


def write_race(path: Path, labels: int = 1_000_000) -> Path:
    """A race column with `labels` distinct labels (one per row), and a sex column."""
    with open(path, "w") as fh:
        fh.write("race,sex\n")
        fh.writelines(f"r{r},{'MF'[r % 3 == 0]}\n" for r in range(labels))
    return path


def write_wide_geo(path: Path, labels: int) -> Path:
    """A geography column with `labels` distinct labels, one row each, and a sex column."""
    with open(path, "w") as fh:
        fh.write("sex,zip\n")
        fh.writelines(f"{'MF'[r % 2]},z{r}\n" for r in range(labels))
    return path


CASES = {
    "w8000": write_w8000,
    "onehot": write_onehot,
    "zip_city": write_zip_city,
    "race_1m": write_race,
    "geo_200k": lambda p: write_wide_geo(p, 200_000),
    "geo_60k": lambda p: write_wide_geo(p, 60_000),
}


# Runs the measured command as its own child and writes that child's peak RSS to a file.
# A child forked straight from pytest reports pytest's pages as its own peak (Linux keeps
# the high-water mark across fork and exec: 306 MB after the parity tests), so the
# command is started from this small process instead. argv: AS limit or "-", RSS file,
# the command.
_MEASURED_CHILD = """
import os, resource, subprocess, sys
if sys.argv[1] != "-":
    n = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (n, n))
proc = subprocess.Popen(sys.argv[3:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[2], "w") as fh:
    fh.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def measure(
    cmd: list[str], as_limit: int | None = None, timeout: float = 600, cwd: Path | str = ROOT
) -> tuple[int, bytes, bytes, float, float]:
    """(returncode, stdout, stderr, peak RSS in MB, seconds) of one child, whose peak RSS
    is read from its own rusage (os.wait4), not from every child's maximum."""
    import signal
    import sys
    import tempfile

    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r") as rss,
    ):
        limit = "-" if as_limit is None else str(as_limit)
        wrapped = [sys.executable, "-c", _MEASURED_CHILD, limit, rss.name, *cmd]
        t0 = time.perf_counter()
        proc = subprocess.Popen(wrapped, stdout=out, stderr=err, cwd=cwd, start_new_session=True)
        deadline = t0 + timeout
        while proc.poll() is None:
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.02)
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        peak_kb = int(rss.read() or 0)
        return proc.returncode, out.read(), err.read(), peak_kb / 1024, seconds
