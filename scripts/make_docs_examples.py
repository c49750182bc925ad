"""Regenerate the terminal examples of README.md and docs/*.md from real runs.

An example is a ```console block right after a marker line naming the command:

    <!-- run: faircode scan compas-scores-two-years.csv --versus two_year_recid; lines: 9 -->

The script runs the command (the CLI of this checkout, in tests/data/.cache so that a
dataset of tests/data is named by its file name) and writes the block: `$ COMMAND`, then
its standard output. Settings after the command, each `; key: value`:

- `from: REGEX`: start at the first line matching REGEX (shown after a `...` line);
- `lines: N`: keep N lines (a `...` line follows when more were printed);
- `mask: REGEX`: text that differs from run to run (a time): the check ignores it.

`{ADULT_NAMES}` in a command is the UCI Adult header (`--names`), shown as `...`.
tests/surfaces/test_docs.py fails when a block differs from a fresh run, so no example can go
stale:

    python scripts/make_docs_examples.py            # rewrite every example
    python scripts/make_docs_examples.py --check    # exit 1 naming each stale example
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from datafiles import CACHE, SHA256, data_file  # noqa: E402

ADULT_NAMES = (
    "age,workclass,fnlwgt,education,education-num,marital-status,occupation,"
    "relationship,race,sex,capital-gain,capital-loss,hours-per-week,native-country,"
    "income"
)
MARKER = re.compile(r"^<!-- run: (?P<spec>.*) -->\n```console\n(?P<body>.*?)^```$", re.M | re.S)


@dataclass(frozen=True)
class Example:
    command: str  # as shown, after `$ `
    argv: list[str]  # the faircode arguments run
    start: str | None
    lines: int | None
    mask: str | None


def documents() -> list[Path]:
    """The files whose examples are generated: the README and every docs page."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def parse(spec: str) -> Example:
    command, *settings = spec.split("; ")
    options = dict(s.split(": ", 1) for s in settings)
    unknown = set(options) - {"from", "lines", "mask"}
    if unknown or not command.startswith("faircode "):
        raise ValueError(f"bad example marker: {spec!r}")
    words = shlex.split(command)[1:]
    argv = [ADULT_NAMES if w == "{ADULT_NAMES}" else w for w in words]
    shown = command.replace("{ADULT_NAMES}", "...")
    lines = int(options["lines"]) if "lines" in options else None
    return Example(shown, argv, options.get("from"), lines, options.get("mask"))


def run(example: Example) -> str:
    """The block's text for a fresh run of the example."""
    for word in example.argv:
        if word in SHA256:
            data_file(word)  # decompressed into the cache, where the command runs
    CACHE.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="100")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "faircode", *example.argv],
        cwd=CACHE,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
    )
    if proc.returncode not in (0, 1, 4, 5):
        raise RuntimeError(f"{example.command}: exit {proc.returncode}: {proc.stderr.strip()}")
    out = proc.stdout.rstrip("\n").split("\n")
    shown = [f"$ {example.command}"]
    if example.start is not None:
        first = next(i for i, line in enumerate(out) if re.search(example.start, line))
        if first:
            shown.append("...")
        out = out[first:]
    if example.lines is not None and len(out) > example.lines:
        out = out[: example.lines] + ["..."]
    return "\n".join(shown + out) + "\n"


def masked(text: str, mask: str | None) -> str:
    return re.sub(mask, "<varies>", text, flags=re.M) if mask else text


def stale(path: Path) -> list[str]:
    """The commands of PATH's examples whose block differs from a fresh run."""
    out = []
    for m in MARKER.finditer(path.read_text(encoding="utf-8")):
        example = parse(m.group("spec"))
        if masked(m.group("body"), example.mask) != masked(run(example), example.mask):
            out.append(example.command)
    return out


def rewrite(path: Path) -> int:
    """Regenerate PATH's examples; the number of examples."""
    text = path.read_text(encoding="utf-8")
    count = 0

    def fresh(m: re.Match) -> str:
        nonlocal count
        count += 1
        return f"<!-- run: {m.group('spec')} -->\n```console\n{run(parse(m.group('spec')))}```"

    new = MARKER.sub(fresh, text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Regenerate the docs' terminal examples.")
    ap.add_argument("--check", action="store_true", help="exit 1 naming each stale example")
    args = ap.parse_args(argv)
    if args.check:
        problems = [f"{p.name}: {c}" for p in documents() for c in stale(p)]
        for problem in problems:
            print(f"stale example: {problem}", file=sys.stderr)
        return 1 if problems else 0
    for path in documents():
        n = rewrite(path)
        if n:
            print(f"{path.relative_to(ROOT)}: {n} example{'s' * (n != 1)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
