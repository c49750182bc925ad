"""Benchmark runner: faircode's engines against DuckDB, pandas and PapaParse, in one run.

    python benchmarks/run.py FILE.csv [FILE2.csv ...] [--repeat N] [--markdown OUT.md]
                             [--json OUT.json] [--tools python,js,duckdb-same,...]
                             [--tree LABEL=PATH ...]

Every tool runs as its own process under `/usr/bin/time -v` (peak RSS), one after the
other, file by file, `--repeat` rounds interleaved (so background load hits every tool
alike); the median wall time is reported. Absolute seconds vary between machines: the
numbers that matter are the ratios, measured in the same run. A tool that is not
installed is skipped with a note (never silently).

Two kinds of baseline (benchmarks/same_work.py says what the same work is):

- same work, `duckdb-same` and `papaparse-same`: the tables faircode's default run
  counts (every counted column's labels and missing cells, the default pair tables, and
  missing data by group: every column's missing cells per label of every group column).
  Before anything is timed, faircode's summary of the file is computed once (untimed),
  each same-work baseline is run once writing its tables, and the two are compared key
  by key; a baseline whose tables differ is not timed (its row says why) and the runner
  exits 1. Ratios: `python_time_over_duckdb_same`, `js_throughput_over_papaparse_same`.
- counts only, `duckdb-counts`, `pandas`, `papaparse-counts` (the baselines of earlier
  runs): the label counts of the counted columns, which are every column of the header
  except `--skip-columns` (by default those of benchmarks/generate.py's files that are
  ids or free text).

Each ratio row gives the ratio of the median times and, beside it, each round's own ratio
(the two tools' runs of the same round).

`--variant NAME=ARGS` (repeatable) adds a run `python[NAME]`: the `python` command with
the extra CLI arguments ARGS (e.g. `--variant 'label=--label employment_status
--positive Employed'`, `--variant nomissing=--no-missing-by-group`), run next to
`python` in every round. Its ratio row `python[NAME]_over_python` is the median of the
per-round ratios (each variant run over the `python` run of the same round, which
cancels most of the machine's load drift). `--js-variant NAME=ARGS` does the same for
the `js` tool (`scripts/engine-js.js profile FILE ARGS`, e.g. `--js-variant
nomissing=--opts '{"missing_by_group":false}'`, the JSON quoted for the shell-like split
of ARGS): runs `js[NAME]`, rows `js[NAME]_over_js`.

`--tree LABEL=PATH` (repeatable) compares checkouts of faircode: the `python` and `js`
tools then run each tree's own code (`python -m faircode` with `PYTHONPATH=PATH` and
PATH as the working directory, `node PATH/scripts/engine-js.js`), named `python@LABEL`
and `js@LABEL`; which `faircode/__init__.py` each tree imports is checked (and printed)
once before timing. Rounds stay interleaved over tools and trees, the order of the trees
rotating from round to round. Ratio rows `TOOL@LABEL_over_FIRST` give each later tree's
time over the first tree's (e.g. `python@after_over_before`).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import same_work  # benchmarks/ is on sys.path when run as a script
from machine import cpu_model

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TOOLS = (
    "python",
    "js",
    "duckdb-same",
    "papaparse-same",
    "duckdb-counts",
    "pandas",
    "papaparse-counts",
)
SAME_WORK = ("duckdb-same", "papaparse-same")
TREE_TOOLS = ("python", "js")  # the tools that run a tree's own code under --tree
DEFAULT_SKIP = ("person_id", "full_name", "annual_income", "comment", "visit_date")
LABELS = {
    "python": "faircode Python engine (`faircode profile --json`)",
    "js": "faircode JS engine under Node (`scripts/engine-js.js profile`)",
    "duckdb-same": "DuckDB, faircode's tables: one statement, `read_csv(all_varchar=true)` "
    "with the missing tokens as NULL, a missing-cell bit mask per row, counted once per "
    "fine set of label columns, each table a GROUPING SETS over those counts",
    "papaparse-same": "PapaParse streaming in Node, faircode's tables in Maps",
    "duckdb-counts": "DuckDB `read_csv(all_varchar=true)` + GROUPING SETS count per column",
    "pandas": "pandas `read_csv` + `value_counts` per column",
    "papaparse-counts": "PapaParse streaming in Node + a Map per column",
}


# --- baselines run in child processes -------------------------------------------------


def baseline_duckdb(path: str, cols: list[str]) -> dict:
    import duckdb

    con = duckdb.connect()
    quoted = [f'"{c}"' for c in cols]
    sets = ", ".join(f"({q})" for q in quoted)
    query = (
        f"SELECT {', '.join(quoted)}, count(*) AS n FROM "
        f"read_csv(?, all_varchar=true, header=true) GROUP BY GROUPING SETS ({sets})"
    )
    rows = con.execute(query, [path]).fetchall()
    return {"groups": len(rows)}


def baseline_pandas(path: str, cols: list[str]) -> dict:
    import pandas as pd

    df = pd.read_csv(path)
    groups = 0
    for c in cols:
        groups += len(df[c].value_counts(dropna=False))
    return {"rows": len(df), "groups": groups}


# --- measuring -------------------------------------------------------------------------


def header_of(path: str) -> list[str]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return next(csv.reader(fh))


def commands(
    path: str,
    cols: list[str],
    trees: dict[str, Path] | None = None,
    variants: dict[str, dict[str, list[str]]] | None = None,
    shape: str | None = None,
) -> dict[str, list[str] | str]:
    """Tool -> argv, or a string saying why the tool is absent. With trees, `python` and
    `js` become `python@LABEL` and `js@LABEL`, one per tree (see tree_commands). shape:
    the same-work baselines' tables to count (same_work.shape_of, as JSON); without it
    they are absent."""
    node = shutil.which("node")
    out: dict[str, list[str] | str] = {}
    if trees:
        for label, root in trees.items():
            out.update(tree_commands(path, label, root, node))
    out["python"] = [sys.executable, "-m", "faircode", "profile", path, "--json", "--no-provenance"]
    engine_js = ROOT / "scripts" / "engine-js.js"
    if not node:
        out["js"] = "node is not on PATH"
    elif not engine_js.exists() or not (ROOT / "assets" / "profiler-engine.js").exists():
        out["js"] = "scripts/engine-js.js (the JS engine) does not exist yet"
    else:
        out["js"] = [node, str(engine_js), "profile", path]
    for tool, named in (variants or {}).items():  # a variant of an absent tool: absent too
        for name, extra in named.items():
            base = out[tool]
            out[f"{tool}[{name}]"] = [*base, *extra] if isinstance(base, list) else base
    me = [sys.executable, str(Path(__file__).resolve())]
    try:
        import duckdb  # noqa: F401

        out["duckdb-counts"] = [*me, "--baseline", "duckdb", path, "--columns", ",".join(cols)]
        if shape is not None:
            out["duckdb-same"] = [*me, "--baseline", "duckdb-same", path, "--shape", shape]
    except ImportError:
        out["duckdb-counts"] = out["duckdb-same"] = "duckdb is not installed (pip install duckdb)"
    try:
        import pandas  # noqa: F401

        out["pandas"] = [*me, "--baseline", "pandas", path, "--columns", ",".join(cols)]
    except ImportError:
        out["pandas"] = "pandas is not installed"
    if not node:
        out["papaparse-counts"] = out["papaparse-same"] = "node is not on PATH"
    elif not (HERE / "node_modules" / "papaparse").exists():
        out["papaparse-counts"] = out["papaparse-same"] = (
            "papaparse is not installed (npm install --prefix benchmarks papaparse)"
        )
    else:
        out["papaparse-counts"] = [node, str(HERE / "papaparse-count.js"), path, ",".join(cols)]
        if shape is not None:
            out["papaparse-same"] = [node, str(HERE / "papaparse-same.js"), path, shape]
    return out


def tree_commands(path: str, label: str, root: Path, node: str | None) -> dict:
    """`python@LABEL` and `js@LABEL`: the argv that runs this tree's engines on path."""
    out: dict[str, list[str] | str] = {}
    py = [sys.executable, "-m", "faircode", "profile", path, "--json", "--no-provenance"]
    out[f"python@{label}"] = py
    engine_js = root / "scripts" / "engine-js.js"
    if not node:
        out[f"js@{label}"] = "node is not on PATH"
    elif not engine_js.exists() or not (root / "assets" / "profiler-engine.js").exists():
        out[f"js@{label}"] = f"{engine_js} (the JS engine) does not exist"
    else:
        out[f"js@{label}"] = [node, str(engine_js), "profile", path]
    return out


def env_for(root: Path) -> dict:
    """The environment a tool runs in: root's package first on the import path."""
    return dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def tree_root(name: str, trees: dict[str, Path]) -> Path:
    """The checkout a run name (`python@before`) belongs to; ROOT for the other tools."""
    _, _, label = name.partition("@")
    return trees[label] if label else ROOT


def check_tree(label: str, root: Path) -> dict:
    """Which faircode a tree's `python -m faircode` imports (must be root's own), and the
    checkout's commit when it is a git tree."""
    proc = subprocess.run(
        [sys.executable, "-c", "import faircode; print(faircode.__file__)"],
        capture_output=True,
        text=True,
        env=env_for(root),
        cwd=root,
    )
    if proc.returncode != 0:
        raise SystemExit(f"--tree {label}={root}: cannot import faircode: {proc.stderr.strip()}")
    imported = Path(proc.stdout.strip()).resolve()
    if not imported.is_relative_to(root):
        raise SystemExit(
            f"--tree {label}={root}: `import faircode` gives {imported}, not this tree"
        )
    git = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
    )
    dirty = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    )
    info = {
        "path": str(root),
        "faircode_file": str(imported),
        "engine_js": str(root / "scripts" / "engine-js.js"),
        "commit": git.stdout.strip() if git.returncode == 0 else None,
        "dirty": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None,
    }
    sys.stderr.write(
        f"tree {label}: faircode.__file__ = {imported}"
        f"{'; commit ' + info['commit'] if info['commit'] else ''}"
        f"{' (with uncommitted changes)' if info['dirty'] else ''}\n"
    )
    return info


def parse_trees(specs: list[str] | None) -> dict[str, Path]:
    """`--tree LABEL=PATH` options -> {label: resolved path}, in the order given."""
    trees: dict[str, Path] = {}
    for spec in specs or []:
        label, sep, where = spec.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", label) or not where:
            raise ValueError(f"--tree {spec!r}: expected LABEL=PATH (LABEL: letters, digits, _.-)")
        if label in trees:
            raise ValueError(f"--tree {spec!r}: label {label!r} given twice")
        root = Path(where).expanduser().resolve()
        if not (root / "faircode" / "__init__.py").exists():
            raise ValueError(f"--tree {spec!r}: {root} is not a faircode checkout")
        trees[label] = root
    return trees


def run_names(
    tools: list[str], trees: dict[str, Path], round_no: int, variants: dict | None = None
) -> list[str]:
    """The runs of one round, in order: each tool in turn, a tree tool once per tree, the
    trees' order rotated by the round number (so no tree always runs first); a tool's
    variants (`python`'s, `js`'s) next to it, the tool and its variants in an order
    rotated likewise."""
    labels = list(trees)
    if labels:
        k = round_no % len(labels)
        labels = labels[k:] + labels[:k]
    names = []
    for t in tools:
        if labels and t in TREE_TOOLS:
            names += [f"{t}@{label}" for label in labels]
        elif (variants or {}).get(t):
            group = [t] + [f"{t}[{v}]" for v in variants[t]]
            k = round_no % len(group)
            names += group[k:] + group[:k]
        else:
            names.append(t)
    return names


def parse_variants(specs: list[str] | None) -> dict[str, list[str]]:
    """`NAME=ARGS` items -> {NAME: argv list}."""
    out: dict[str, list[str]] = {}
    for spec in specs or []:
        name, sep, args = spec.partition("=")
        if not sep or not name or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            raise ValueError(f"expected NAME=ARGS, got {spec!r}")
        out[name] = shlex.split(args)
    return out


def variant_ratios(runs: dict[str, list[dict]]) -> dict:
    """`TOOL[NAME]_over_TOOL` (`python`, `js`): the median over rounds of the variant's
    time over the same round's time of the tool (rounds where either failed are left
    out)."""
    out = {}
    for t, rs in runs.items():
        tool = t.partition("[")[0]
        if tool == t or not t.endswith("]"):
            continue
        base = runs.get(tool, [])
        per = [
            v["seconds"] / b["seconds"]
            for v, b in zip(rs, base)
            if v["returncode"] == 0 and b["returncode"] == 0
        ]
        if per:
            out[f"{t}_over_{tool}"] = round(statistics.median(per), 3)
            out[f"{t}_over_{tool}_rounds"] = [round(x, 3) for x in per]
        cpu = [
            v["cpu_seconds"] / b["cpu_seconds"]
            for v, b in zip(rs, base)
            if v["returncode"] == 0 == b["returncode"] and v["cpu_seconds"] and b["cpu_seconds"]
        ]
        if cpu:
            out[f"{t}_over_{tool}_cpu"] = round(statistics.median(cpu), 3)
            out[f"{t}_over_{tool}_cpu_rounds"] = [round(x, 3) for x in cpu]
    return out


def measure(argv: list[str], root: Path = ROOT) -> dict:
    """Run argv under /usr/bin/time -v; wall seconds, peak RSS in MB, exit code."""
    timer = ["/usr/bin/time", "-v"] if os.path.exists("/usr/bin/time") else []
    env = env_for(root)
    start = time.perf_counter()
    proc = subprocess.run(
        timer + argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=root,
    )
    wall = time.perf_counter() - start
    rss = None
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if m:
        rss = int(m.group(1)) / 1024
    cpu = None  # user + system seconds: less moved by other jobs than wall time
    times = re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", proc.stderr)
    if len(times) == 2:
        cpu = float(times[0]) + float(times[1])
    err = "" if proc.returncode == 0 else proc.stderr.strip().splitlines()[:3]
    return {
        "seconds": wall,
        "cpu_seconds": cpu,
        "rss_mb": rss,
        "returncode": proc.returncode,
        "error": err,
    }


def run(
    paths: list[str],
    tools: list[str],
    repeat: int,
    skip: tuple[str, ...],
    trees: dict[str, Path] | None = None,
    variants: dict[str, dict[str, list[str]]] | None = None,
    tokens: list[str] | None = None,
) -> dict:
    """tokens: the missing tokens given to the same-work baselines (default SPEC 0.4's;
    a test gives a wrong list to see the check fail)."""
    trees = trees or {}
    variants = variants or {}
    report: dict = {"machine": machine(), "files": [], "notes": []}
    if trees:
        report["trees"] = {label: check_tree(label, root) for label, root in trees.items()}
    for path in paths:
        size = os.path.getsize(path)
        cols = [c for c in header_of(path) if c not in skip]
        same = [t for t in tools if t in SAME_WORK]
        check: dict = {}
        shape = None
        if same:
            check, shape = same_work_shape(path, tokens)
        cmds = commands(path, cols, trees, variants, shape)
        for t in same:
            if isinstance(cmds[t], list):
                problem = check_same_work(t, cmds[t], check)
                if problem:
                    cmds[t] = problem
                    check.setdefault("failed", []).append(t)
        runs: dict[str, list[dict]] = {t: [] for t in run_names(tools, trees, 0, variants)}
        for t in runs:
            if isinstance(cmds[t], str):
                if t in check.get("failed", []):
                    continue  # reported as failed, below
                note = f"{t}: skipped, {cmds[t]}"
                if note not in report["notes"]:
                    report["notes"].append(note)
                    sys.stderr.write(note + "\n")
        for round_no in range(repeat):
            for t in run_names(tools, trees, round_no, variants):
                if isinstance(cmds[t], list):
                    r = measure(cmds[t], tree_root(t, trees))
                    sys.stderr.write(
                        f"{Path(path).name} {t}: {r['seconds']:.2f} s, "
                        f"{r['rss_mb'] or 0:.0f} MB"
                        f"{' FAILED ' + str(r['error']) if r['returncode'] else ''}\n"
                    )
                    runs[t].append(r)
        results = {}
        for t, rs in runs.items():
            ok = [r for r in rs if r["returncode"] == 0]
            if t in check.get("failed", []):
                results[t] = {"error": cmds[t]}
                continue
            if not rs:
                continue
            if not ok:
                results[t] = {"error": rs[0]["error"]}
                continue
            secs = statistics.median(r["seconds"] for r in ok)
            rss = max((r["rss_mb"] or 0) for r in ok)
            cpus = [r["cpu_seconds"] for r in ok if r.get("cpu_seconds") is not None]
            results[t] = {
                "seconds": round(secs, 3),
                "cpu_seconds": round(statistics.median(cpus), 3) if cpus else None,
                "mb_per_s": round(size / 1e6 / secs, 1),
                "rss_mb": round(rss, 1),
                "runs": len(ok),
            }
        report["files"].append(
            {
                "path": path,
                "bytes": size,
                "columns": cols,
                "same_work": {k: v for k, v in check.items() if k != "tables"},
                "results": results,
                "ratios": {
                    **ratios(results, runs),
                    **tree_ratios(results, list(trees)),
                    **variant_ratios(runs),
                },
            }
        )
    try:
        report["loadavg_at_end"] = os.getloadavg()
    except OSError:
        pass
    return report


def tree_ratios(results: dict, labels: list[str]) -> dict:
    """`TOOL@LABEL_over_FIRST`: each later tree's median time over the first tree's."""
    out = {}
    for t in TREE_TOOLS:
        first = results.get(f"{t}@{labels[0]}", {}).get("seconds") if labels else None
        for label in labels[1:]:
            later = results.get(f"{t}@{label}", {}).get("seconds")
            if first and later:
                out[f"{t}@{label}_over_{labels[0]}"] = round(later / first, 3)
    return out


#: ratio name -> (numerator tool, denominator tool), both by time: a time ratio of
#: A over B, or a throughput ratio of B over A (the same number).
RATIOS = {
    "python_time_over_duckdb_same": ("python", "duckdb-same"),
    "js_throughput_over_papaparse_same": ("papaparse-same", "js"),
    "python_time_over_duckdb_counts": ("python", "duckdb-counts"),
    "pandas_time_over_python": ("pandas", "python"),
    "js_throughput_over_papaparse_counts": ("papaparse-counts", "js"),
    "js_time_over_python": ("js", "python"),
}


def ratios(results: dict, runs: dict[str, list[dict]] | None = None) -> dict:
    """The ratios of RATIOS: of the median times, (`NAME_rounds`) of each round's two
    runs, for the rounds where both succeeded, and (`NAME_cpu`) of the median CPU times."""

    def sec(t: str) -> float | None:
        return results.get(t, {}).get("seconds")

    out: dict = {}
    for name, (a, b) in RATIOS.items():
        if sec(a) and sec(b):
            out[name] = round(sec(a) / sec(b), 2)  # type: ignore[operator]
            per = [
                round(x["seconds"] / y["seconds"], 2)
                for x, y in zip((runs or {}).get(a, []), (runs or {}).get(b, []))
                if x["returncode"] == 0 and y["returncode"] == 0
            ]
            if len(per) > 1:
                out[f"{name}_rounds"] = per
        ca, cb = (results.get(t, {}).get("cpu_seconds") for t in (a, b))
        if ca and cb:  # CPU time (user + system): less moved by other jobs than wall time
            out[f"{name}_cpu"] = round(ca / cb, 2)
    return out


def same_work_shape(path: str, tokens: list[str] | None) -> tuple[dict, str]:
    """faircode's default summary of path as tables (untimed, in a child process running
    this tree's faircode), and the shape the same-work baselines count, as JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "faircode.json")
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--faircode-tables", path, out],
            capture_output=True,
            text=True,
            env=env_for(ROOT),
            cwd=ROOT,
        )
        if proc.returncode != 0:
            raise SystemExit(f"{path}: faircode's summary failed: {proc.stderr.strip()}")
        with open(out, encoding="utf-8") as fh:
            tables = json.load(fh)
    shape = same_work.shape_of(tables)
    if tokens is not None:
        shape["tokens"] = tokens
    check = {
        "tables": tables,
        "described": same_work.size_of(tables),
        "faircode_seconds": round(time.perf_counter() - start, 2),
        "checks": {},
    }
    sys.stderr.write(f"{Path(path).name}: faircode's tables: {check['described']}\n")
    return check, json.dumps(shape, separators=(",", ":"))


def check_same_work(tool: str, argv: list[str], check: dict) -> str | None:
    """Run a same-work baseline once with --tables-out and compare its tables with
    faircode's; None when equal, else why not (the tool is then not timed)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tables.json")
        proc = subprocess.run(
            [*argv, "--tables-out", out], capture_output=True, text=True, env=env_for(ROOT)
        )
        if proc.returncode != 0:
            problem = f"failed before timing: {proc.stderr.strip()[-400:]}"
        else:
            with open(out, encoding="utf-8") as fh:
                diff = same_work.differences(check["tables"], json.load(fh))
            problem = (
                "tables differ from faircode's, not timed: " + "; ".join(diff) if diff else None
            )
    check["checks"][tool] = problem or "equal to faircode's tables"
    sys.stderr.write(f"same-work check, {tool}: {check['checks'][tool]}\n")
    return problem


def machine() -> dict:
    def sh(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""

    cpu = cpu_model()
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "nproc": sh(["nproc"]),
        "free_h": sh(["free", "-h"]),
        "cpu": cpu,
        "python": platform.python_version(),
        "node": sh(["node", "--version"]),
        "platform": platform.platform(),
        "loadavg_at_start": load,
    }


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = [
        "| file | tool | seconds | CPU seconds | MB/s | peak RSS (MB) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for f in report["files"]:
        name = f"{Path(f['path']).name} ({f['bytes'] / 1e6:,.0f} MB)"
        for t, r in f["results"].items():
            if "error" in r:
                lines.append(f"| {name} | {t} | failed | | | |")
                continue
            cpu = "" if r.get("cpu_seconds") is None else f"{r['cpu_seconds']:.2f}"
            lines.append(
                f"| {name} | {t} | {r['seconds']:.2f} | {cpu} | {r['mb_per_s']:.1f} "
                f"| {r['rss_mb']:.0f} |"
            )
    lines += ["", "| file | ratio | value | target |", "|---|---|---:|---|"]
    targets = {
        "python_time_over_duckdb_same": "<= 1.0",
        "js_throughput_over_papaparse_same": ">= 5",
        "python_time_over_duckdb_counts": "<= 1.5",
        "pandas_time_over_python": ">= 4",
        "js_throughput_over_papaparse_counts": ">= 2.5",
        "js_time_over_python": "",
    }
    for f in report["files"]:
        for k, v in f["ratios"].items():
            if k.endswith("_rounds"):
                continue  # shown beside their median
            rounds = f["ratios"].get(f"{k}_rounds")
            shown = f"{v} (rounds: {', '.join(map(str, rounds))})" if rounds else v
            lines.append(f"| {Path(f['path']).name} | {k} | {shown} | {targets.get(k, '')} |")
    lines += ["", "Tools: " + "; ".join(f"`{t}` = {LABELS[t]}" for t in TOOLS) + ".", ""]
    for f in report["files"]:
        sw = f.get("same_work")
        if sw:
            checks = "; ".join(f"`{t}` {v}" for t, v in sw["checks"].items())
            lines += [
                f"Same work, {Path(f['path']).name}: faircode's default tables "
                f"({sw['described']}); "
                f"checked before timing: {checks or 'no same-work baseline ran'}.",
                "",
            ]
    if report.get("trees"):
        trees = []
        for label, t in report["trees"].items():
            commit = ""
            if t["commit"]:
                dirty = ", with uncommitted changes" if t["dirty"] else ""
                commit = f" (commit {t['commit'].split()[0]}{dirty})"
            trees.append(f"`@{label}` = {t['path']}{commit}, importing {t['faircode_file']}")
        lines += ["Trees: " + "; ".join(trees) + ".", ""]
        lines += [
            "Tree ratios `TOOL@LABEL_over_FIRST` = median time of that tree over the first "
            "tree's (below 1: faster).",
            "",
        ]
    if report["notes"]:
        lines += ["Notes: " + "; ".join(report["notes"]) + ".", ""]
    lines += [
        "Machine: " + f"{m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, "
        f"Node {m['node']}, {m['platform']}; load average at start "
        f"{m['loadavg_at_start']}"
        + (f", at the end {report['loadavg_at_end']}" if report.get("loadavg_at_end") else "")
        + ".",
        "",
        "```",
        m["free_h"],
        "```",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-columns", default=",".join(DEFAULT_SKIP))
    ap.add_argument("--markdown", help="write the Markdown table here")
    ap.add_argument("--json", help="write the full report as JSON here")
    ap.add_argument(
        "--tree",
        action="append",
        metavar="LABEL=PATH",
        help="a faircode checkout whose python and js engines to run (repeatable)",
    )
    ap.add_argument(
        "--variant",
        action="append",
        metavar="NAME=ARGS",
        help="also run `python` with these extra CLI arguments, as python[NAME] (repeatable)",
    )
    ap.add_argument(
        "--js-variant",
        action="append",
        metavar="NAME=ARGS",
        help="also run `js` with these extra arguments, as js[NAME] (repeatable)",
    )
    # child processes and the check's test hooks
    ap.add_argument(
        "--baseline", choices=("duckdb", "pandas", "duckdb-same"), help=argparse.SUPPRESS
    )
    ap.add_argument("--columns", help=argparse.SUPPRESS)
    ap.add_argument("--shape", help=argparse.SUPPRESS)
    ap.add_argument("--tables-out", help=argparse.SUPPRESS)
    ap.add_argument("--faircode-tables", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--baseline-tokens", help=argparse.SUPPRESS)  # JSON list
    args = ap.parse_args(argv)
    if args.faircode_tables:  # child process: faircode's tables of FILE, written to OUT
        path, out = args.files
        Path(out).write_text(json.dumps(same_work.faircode_tables(path)))
        return 0
    if args.baseline == "duckdb-same":
        tables = same_work.baseline_duckdb_same(args.files[0], same_work.load(args.shape))
        if args.tables_out:
            Path(args.tables_out).write_text(json.dumps(same_work.canonical(*tables)))
        print(json.dumps({"rows": tables[0], "pair_cells": sum(map(len, tables[3].values()))}))
        return 0
    if args.baseline:  # child process: run one baseline
        fn = baseline_duckdb if args.baseline == "duckdb" else baseline_pandas
        print(json.dumps(fn(args.files[0], args.columns.split(","))))
        return 0
    tools = [t for t in args.tools.split(",") if t]
    unknown = set(tools) - set(TOOLS)
    if unknown:
        ap.error(f"unknown tools: {', '.join(sorted(unknown))}")
    skip = tuple(c for c in args.skip_columns.split(",") if c)
    try:
        trees = parse_trees(args.tree)
    except ValueError as e:
        ap.error(str(e))
    variants: dict[str, dict[str, list[str]]] = {}
    flags = (("python", "--variant", args.variant), ("js", "--js-variant", args.js_variant))
    for tool, flag, specs in flags:
        try:
            named = parse_variants(specs)
        except ValueError as e:
            ap.error(f"{flag}: {e}")
        if not named:
            continue
        if tool not in tools:
            ap.error(f"{flag} needs the {tool} tool")
        variants[tool] = named
    tokens = json.loads(args.baseline_tokens) if args.baseline_tokens else None
    report = run(args.files, tools, args.repeat, skip, trees, variants, tokens)
    text = markdown(report)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    sys.stdout.write(text)
    failed = [t for f in report["files"] for t in f.get("same_work", {}).get("failed", [])]
    if failed:
        sys.stderr.write(
            f"same-work baselines whose tables differ from faircode's: {', '.join(failed)}\n"
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
