"""How the Python engine's time grows with a table's width: `faircode profile --json` on
generated files of a fixed number of rows and growing numbers of columns.

    PYTHONPATH=. python benchmarks/wide.py [--widths 2500,5000,10000] [--rows 300]
        [--repeat 1] [--tree TREE]

Each file has a `sex` and a `race` column, then columns c0, c1, ... holding 0-3 or a
blank (a missing cell, so every column has missing data by group), drawn from a seeded
generator. One process per run, `PYTHONPATH=TREE` (this checkout unless given). It
prints, as Markdown, each width's best wall time, seconds per 1,000 columns, and the
ratio of each width's time to the narrowest one's against the ratio of their widths:
time that grows with the width's square shows as a time ratio far above the width
ratio (before 2026-12-05 late, 20,000 columns took 101 s against 10.7 s after).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_wide(path: Path, width: int, rows: int, seed: int = 7) -> None:
    """A seeded file of `rows` rows: sex, race, then `width` columns of 0-3 or blank."""
    rng = random.Random(seed)
    cells = ["0", "1", "2", "3", ""]
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(",".join(["sex", "race", *(f"c{i}" for i in range(width))]) + "\n")
        for _ in range(rows):
            head = [rng.choice(["Male", "Female"]), rng.choice(["A", "B", "C"])]
            out.write(",".join(head + [rng.choice(cells) for _ in range(width)]) + "\n")


def run_once(tree: Path, path: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "faircode", "profile", str(path), "--json"]
    start = time.perf_counter()
    # cwd: `-m` puts it first on sys.path, ahead of PYTHONPATH (the tree)
    subprocess.run(cmd, env=env, cwd=path.parent, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", default="2500,5000,10000")
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tree", type=Path, default=ROOT)
    args = ap.parse_args(argv)
    widths = sorted(int(w) for w in args.widths.split(","))
    best: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for w in widths:
            path = Path(tmp) / f"wide{w}.csv"
            write_wide(path, w, args.rows)
            best[w] = min(run_once(args.tree, path) for _ in range(max(1, args.repeat)))
    base = widths[0]
    print("| columns | seconds | s per 1,000 columns | time ratio | width ratio |")
    print("|---:|---:|---:|---:|---:|")
    for w in widths:
        print(
            f"| {w:,} | {best[w]:.2f} | {best[w] / w * 1000:.3f} "
            f"| {best[w] / best[base]:.2f} | {w / base:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
