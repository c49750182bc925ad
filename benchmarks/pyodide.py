"""Time the Python engine under Pyodide next to CPython and the JS engine, in one run.

    python benchmarks/pyodide.py "$(python tests/datafiles.py diabetic_data.csv)" --repeat 3

Rounds are interleaved (each round runs every command once) and the median is shown,
with wall time of the whole command (process and runtime start-up included):

  python            `python -m faircode profile FILE --json` (pyarrow's fast path when
                    installed and the file is 4 MB or more, SPEC 0.8)
  python-reference  the same CLI with the reference path only (pyarrow hidden), the code
                    that Pyodide runs
  js                `node scripts/engine-js.js profile FILE`
  pyodide           `node scripts/engine-pyodide.mjs profile FILE --json`
  pyodide-start     the same bridge on a one-row file: Pyodide's start-up alone

and the download the website would need to bundle: node_modules/pyodide on disk.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYODIDE = ROOT / "node_modules" / "pyodide"
# pyarrow hidden: a path entry whose `pyarrow` cannot be imported (the CLI then reads with
# the reference path, as it does where pyarrow is not installed)
HIDE_PYARROW = "import sys; sys.modules['pyarrow'] = None; from faircode.cli import main; "


def commands(path: str, tiny: str) -> dict[str, list[str]]:
    node = shutil.which("node") or "node"
    return {
        "python": [sys.executable, "-m", "faircode", "profile", path, "--json"],
        "python-reference": [
            sys.executable,
            "-c",
            HIDE_PYARROW + f"raise SystemExit(main(['profile', {path!r}, '--json']))",
        ],
        "js": [node, str(ROOT / "scripts" / "engine-js.js"), "profile", path],
        "pyodide": [node, str(ROOT / "scripts" / "engine-pyodide.mjs"), "profile", path, "--json"],
        "pyodide-start": [node, str(ROOT / "scripts" / "engine-pyodide.mjs"), "profile", tiny],
    }


def timed(cmd: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
    return time.perf_counter() - start, proc.stdout


def disk_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    path = str(Path(args.file).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        tiny = os.path.join(tmp, "tiny.csv")
        Path(tiny).write_text("sex\nF\n")
        cmds = commands(path, tiny)
        times: dict[str, list[float]] = {k: [] for k in cmds}
        outputs: dict[str, bytes] = {}
        for _ in range(args.repeat):
            for name, cmd in cmds.items():
                seconds, out = timed(cmd)
                times[name].append(seconds)
                outputs[name] = out
    same = outputs["python"] == outputs["pyodide"] == outputs["python-reference"]
    size = os.path.getsize(path)
    print(f"file: {path} ({size / 1e6:.1f} MB); median of {args.repeat} interleaved rounds")
    print(f"load average at the end: {os.getloadavg()}")
    print("| tool | seconds (median) | rounds |")
    print("|---|---:|---|")
    for name, values in times.items():
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"| {name} | {statistics.median(values):.2f} | {rounds} |")
    print(f"CPython and Pyodide --json output identical: {same}")
    if PYODIDE.is_dir():
        print(f"node_modules/pyodide on disk: {disk_size(PYODIDE) / 1e6:.1f} MB")
        total = 0
        for name in (
            "pyodide.asm.wasm",
            "python_stdlib.zip",
            "pyodide.asm.mjs",
            "pyodide.mjs",
            "pyodide-lock.json",
        ):
            data = (PYODIDE / name).read_bytes()
            packed = len(gzip.compress(data, 9))
            total += packed
            print(f"  {name}: {len(data) / 1e6:.1f} MB ({packed / 1e6:.1f} MB gzipped)")
        print(f"  what a page must fetch to run faircode, gzipped: {total / 1e6:.1f} MB")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
