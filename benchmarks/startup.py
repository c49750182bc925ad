"""Start-up of the CLI on a small file, as a user installs it, before and after a change.

    python benchmarks/startup.py [--before REF] [--rounds N] [--file CSV] [--instructions]

Each tree (this checkout, and ``--before REF`` when given, e.g. a commit or ``main``) is
installed with ``pip install --no-deps`` into its own throwaway venv: a wheel install,
bytecode compiled, no editable finder (which loads pathlib and importlib.util into every
process of a development venv). Then, in interleaved rounds (this machine is shared and
noisy; a ratio within one round is what to read), each tree runs

* ``python -c pass``: the bare interpreter, the floor;
* ``faircode profile FILE --json``: the console script on the file (default: the
  insurance.csv kept in tests/data, 1,338 rows, 55 KB).

Reported per tree and command: the median CPU time (user + system of the child) and
wall time over the rounds, and with ``--instructions`` the instructions counted by
valgrind's cachegrind (one run each: they vary by well under 1%, unlike time).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def default_file() -> Path:
    """insurance.csv of tests/data, decompressed and checked by tests/datafiles.py."""
    sys.path.insert(0, str(ROOT / "tests"))
    from datafiles import data_file

    return data_file("insurance.csv")


def install(tree: Path, venv: Path) -> Path:
    """A venv at ``venv`` holding the faircode of ``tree`` (no dependencies: the profile
    of a CSV needs none); returns its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    subprocess.run([*pip, str(tree)], check=True, cwd=tempfile.gettempdir())
    return venv / "bin"


def export_tree(ref: str, into: Path) -> Path:
    """The files of commit ``ref`` of this repository, in ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True
    ).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users' Pythons read and write bytecode
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def instructions(cmd: list[str], env: dict[str, str]) -> float | None:
    """Millions of instructions of one run of ``cmd`` (valgrind), None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    r = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        + cmd,
        capture_output=True,
        text=True,
        env=env,
    )
    for line in r.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", "")) / 1e6
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REF", help="also measure this commit of the repo")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--file", type=Path)
    ap.add_argument("--instructions", action="store_true", help="count them with valgrind")
    args = ap.parse_args()
    args.file = args.file or default_file()
    env = child_env()
    with tempfile.TemporaryDirectory(prefix="faircode-startup-") as tmp:
        work = Path(tmp)
        trees = {"after": ROOT}
        if args.before:
            trees = {"before": export_tree(args.before, work / "before-tree"), **trees}
        bins = {label: install(tree, work / f"venv-{label}") for label, tree in trees.items()}
        commands = {
            label: {
                "python -c pass": [str(b / "python"), "-c", "pass"],
                "faircode profile --json": [
                    str(b / "faircode"),
                    "profile",
                    str(args.file),
                    "--json",
                ],
            }
            for label, b in bins.items()
        }
        for cmds in commands.values():  # once each: bytecode of the stdlib, page cache
            for cmd in cmds.values():
                timed(cmd, env)
        load = os.getloadavg()
        got: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.rounds):
            for label, cmds in commands.items():
                for name, cmd in cmds.items():
                    got.setdefault((label, name), []).append(timed(cmd, env))
        counted = {
            (label, name): instructions(cmd, env) if args.instructions else None
            for label, cmds in commands.items()
            for name, cmd in cmds.items()
        }
    print(
        "| tree | command | CPU median (ms) | wall median (ms) | wall min (ms) | instructions (M) |"
    )
    print("|---|---|---:|---:|---:|---:|")
    cpu_median = {}
    for (label, name), runs in got.items():
        cpu = statistics.median(c for c, _ in runs) * 1000
        walls = [w * 1000 for _, w in runs]
        cpu_median[(label, name)] = cpu
        ins = counted[(label, name)]
        ins_text = f"{ins:.1f}" if ins is not None else "-"
        print(
            f"| {label} | {name} | {cpu:.1f} | {statistics.median(walls):.1f} | "
            f"{min(walls):.1f} | {ins_text} |"
        )
    if args.before:
        key = "faircode profile --json"
        ratio = cpu_median[("after", key)] / cpu_median[("before", key)]
        print(f"\nafter/before, CPU median of `{key}`: {ratio:.2f}")
        ins_a, ins_b = counted[("after", key)], counted[("before", key)]
        if ins_a is not None and ins_b is not None:
            print(f"after/before, instructions: {ins_a / ins_b:.2f}")
    print(
        f"\n{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs; load average at start {tuple(round(x, 2) for x in load)}; "
        f"{args.rounds} interleaved rounds; file {args.file.name} "
        f"({args.file.stat().st_size:,} bytes)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
