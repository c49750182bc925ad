"""Missing data by group's cost, before and after a change: `where.py` in two checkouts,
interleaved in one run.

    python benchmarks/ab.py FILE.csv --before TREE [--after TREE] [--rounds 5]
        [--modes default,readall,nomissing]

Each round runs `TREE/benchmarks/where.py FILE --mode M` for every tree (before, then
after) and every mode, one process each with `PYTHONPATH=TREE`, so both trees meet the
same load. `--after` is this checkout unless given; a tree is any checkout whose
`benchmarks/where.py` has the modes asked for (`readall` came with a2fe277), e.g. one
made by `git worktree add /tmp/before COMMIT`.

It prints, as Markdown, each run's wall and CPU seconds and peak RSS, then the medians
over the rounds (each round's own ratio, then the median of those) of:

- per tree, `readall / default` (what counting the missing cells costs),
  `nomissing / readall` (what Arrow's reading of the columns read only for their
  missing cells costs) and `nomissing / default` (missing data by group in all, issue
  33's ratio), by wall time and by CPU;
- per mode, `after / before`, by wall time and by CPU.

On a shared machine the spread between whole runs can exceed a change's effect; two
trees measured in the same rounds see the same load, so their ratio is the measure of
the change.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("default", "readall", "nomissing")
SPLITS = (  # (name, numerator mode, denominator mode)
    ("readall / default (counting)", "readall", "default"),
    ("nomissing / readall (reading)", "nomissing", "readall"),
    ("nomissing / default (missing data by group)", "nomissing", "default"),
)
_TOTAL = re.compile(r"total ([\d.]+) s CPU, ([\d.]+) s wall; peak RSS (\d+) MB")


def run_where(tree: Path, file: str, mode: str) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS MB) of one where.py run of tree on file."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / "where.py"), file, "--mode", mode],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
    )
    found = _TOTAL.search(proc.stdout)
    if proc.returncode != 0 or found is None:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"ab.py: {tree}: where.py --mode {mode} failed: {last}")
    cpu, wall, rss = found.groups()
    return float(wall), float(cpu), int(rss)


def median_ratio(rounds: list[dict], num: str, den: str, at: int) -> tuple[float, list[float]]:
    """The median of each round's num / den (at 0: wall time, 1: CPU), and the rounds'."""
    each = [r[num][at] / r[den][at] for r in rounds]
    return statistics.median(each), each


def table(trees: dict[str, list[dict]], modes: tuple[str, ...]) -> list[str]:
    out = [
        "| round | tree | mode | wall s | CPU s | peak RSS MB |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for r in range(len(trees["before"])):
        for label, rounds in trees.items():
            for mode in modes:
                wall, cpu, rss = rounds[r][mode]
                out.append(f"| {r + 1} | {label} | {mode} | {wall:.2f} | {cpu:.2f} | {rss} |")
    out += ["", "| tree | ratio | by time (rounds) | by CPU |", "|---|---|---|---:|"]
    for label, rounds in trees.items():
        for name, num, den in SPLITS:
            if num not in modes or den not in modes:
                continue
            wall, each = median_ratio(rounds, num, den, 0)
            cpu, _ = median_ratio(rounds, num, den, 1)
            shown = ", ".join(f"{x:.3f}" for x in each)
            out.append(f"| {label} | {name} | {wall:.3f} ({shown}) | {cpu:.3f} |")
    before, after = trees["before"], trees["after"]
    out += [
        "",
        "| mode | after / before, by time (rounds) | by CPU | peak RSS MB, before / after |",
        "|---|---|---:|---|",
    ]
    for mode in modes:
        each = [a[mode][0] / b[mode][0] for a, b in zip(after, before)]
        cpu = statistics.median(a[mode][1] / b[mode][1] for a, b in zip(after, before))
        rss = (
            f"{statistics.median(b[mode][2] for b in before):.0f} / "
            f"{statistics.median(a[mode][2] for a in after):.0f}"
        )
        shown = ", ".join(f"{x:.3f}" for x in each)
        out.append(f"| {mode} | {statistics.median(each):.3f} ({shown}) | {cpu:.3f} | {rss} |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--before", required=True, help="the checkout before the change")
    ap.add_argument("--after", default=str(ROOT), help="the checkout after (default: this one)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--modes", default=",".join(MODES))
    args = ap.parse_args(argv)
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    if not modes or any(m not in MODES for m in modes):
        ap.error(f"--modes: a comma-separated choice of {', '.join(MODES)}")
    if args.rounds < 1:
        ap.error("--rounds: at least 1")
    if not Path(args.file).is_file():
        ap.error(f"{args.file}: no such file")
    trees = {"before": Path(args.before).resolve(), "after": Path(args.after).resolve()}
    for label, tree in trees.items():
        if not (tree / "benchmarks" / "where.py").is_file():
            ap.error(f"--{label} {tree}: no benchmarks/where.py there (a faircode checkout?)")
    got: dict[str, list[dict]] = {label: [] for label in trees}
    for r in range(args.rounds):
        for label, tree in trees.items():
            got[label].append({m: run_where(tree, args.file, m) for m in modes})
        print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    print(f"{Path(args.file).name}: {args.rounds} interleaved rounds")
    print(f"before: {trees['before']}\nafter: {trees['after']}\n")
    print("\n".join(table(got, modes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
