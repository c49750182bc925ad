"""Benchmark runner: faircode's engines against DuckDB, pandas and PapaParse, in one run.

    python benchmarks/run.py FILE.csv [FILE2.csv ...] [--repeat N] [--markdown OUT.md]
                             [--json OUT.json] [--tools python,js,duckdb,pandas,papaparse]

Every tool runs as its own process under `/usr/bin/time -v` (peak RSS), one after the
other, file by file, `--repeat` rounds interleaved (so background load hits every tool
alike); the median wall time is reported. Absolute seconds vary between machines: the
numbers that matter are the ratios, measured in the same run. A tool that is not
installed is skipped with a note (never silently).

The counted columns are the ones faircode would consider for these files: every column
of the header except `--skip-columns` (by default those of benchmarks/generate.py's
files that are ids or free text).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import cpu_model  # benchmarks/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TOOLS = ("python", "js", "duckdb", "pandas", "papaparse")
DEFAULT_SKIP = ("person_id", "full_name", "annual_income", "comment", "visit_date")
LABELS = {
    "python": "faircode Python engine (`faircode profile --json`)",
    "js": "faircode JS engine under Node (`scripts/engine-js.js profile`)",
    "duckdb": "DuckDB `read_csv(all_varchar=true)` + GROUPING SETS count",
    "pandas": "pandas `read_csv` + `value_counts` per column",
    "papaparse": "PapaParse streaming in Node + a Map per column",
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


def commands(path: str, cols: list[str]) -> dict[str, list[str] | str]:
    """Tool -> argv, or a string saying why the tool is absent."""
    node = shutil.which("node")
    out: dict[str, list[str] | str] = {}
    out["python"] = [sys.executable, "-m", "faircode", "profile", path, "--json", "--no-provenance"]
    engine_js = ROOT / "scripts" / "engine-js.js"
    if not node:
        out["js"] = "node is not on PATH"
    elif not engine_js.exists() or not (ROOT / "assets" / "profiler-engine.js").exists():
        out["js"] = "scripts/engine-js.js (the JS engine) does not exist yet"
    else:
        out["js"] = [node, str(engine_js), "profile", path]
    me = [sys.executable, str(Path(__file__).resolve())]
    try:
        import duckdb  # noqa: F401

        out["duckdb"] = [*me, "--baseline", "duckdb", path, "--columns", ",".join(cols)]
    except ImportError:
        out["duckdb"] = "duckdb is not installed (pip install duckdb)"
    try:
        import pandas  # noqa: F401

        out["pandas"] = [*me, "--baseline", "pandas", path, "--columns", ",".join(cols)]
    except ImportError:
        out["pandas"] = "pandas is not installed"
    if not node:
        out["papaparse"] = "node is not on PATH"
    elif not (HERE / "node_modules" / "papaparse").exists():
        out["papaparse"] = "papaparse is not installed (npm install --prefix benchmarks papaparse)"
    else:
        out["papaparse"] = [node, str(HERE / "papaparse-count.js"), path, ",".join(cols)]
    return out


def measure(argv: list[str]) -> dict:
    """Run argv under /usr/bin/time -v; wall seconds, peak RSS in MB, exit code."""
    timer = ["/usr/bin/time", "-v"] if os.path.exists("/usr/bin/time") else []
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.run(
        timer + argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    wall = time.perf_counter() - start
    rss = None
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if m:
        rss = int(m.group(1)) / 1024
    err = "" if proc.returncode == 0 else proc.stderr.strip().splitlines()[:3]
    return {"seconds": wall, "rss_mb": rss, "returncode": proc.returncode, "error": err}


def run(paths: list[str], tools: list[str], repeat: int, skip: tuple[str, ...]) -> dict:
    report: dict = {"machine": machine(), "files": [], "notes": []}
    for path in paths:
        size = os.path.getsize(path)
        cols = [c for c in header_of(path) if c not in skip]
        cmds = commands(path, cols)
        runs: dict[str, list[dict]] = {t: [] for t in tools}
        for t in tools:
            if isinstance(cmds[t], str):
                note = f"{t}: skipped, {cmds[t]}"
                if note not in report["notes"]:
                    report["notes"].append(note)
                    sys.stderr.write(note + "\n")
        for _ in range(repeat):
            for t in tools:
                if isinstance(cmds[t], list):
                    r = measure(cmds[t])
                    sys.stderr.write(
                        f"{Path(path).name} {t}: {r['seconds']:.2f} s, "
                        f"{r['rss_mb'] or 0:.0f} MB"
                        f"{' FAILED ' + str(r['error']) if r['returncode'] else ''}\n"
                    )
                    runs[t].append(r)
        results = {}
        for t, rs in runs.items():
            ok = [r for r in rs if r["returncode"] == 0]
            if not rs:
                continue
            if not ok:
                results[t] = {"error": rs[0]["error"]}
                continue
            secs = statistics.median(r["seconds"] for r in ok)
            rss = max((r["rss_mb"] or 0) for r in ok)
            results[t] = {
                "seconds": round(secs, 3),
                "mb_per_s": round(size / 1e6 / secs, 1),
                "rss_mb": round(rss, 1),
                "runs": len(ok),
            }
        report["files"].append(
            {
                "path": path,
                "bytes": size,
                "columns": cols,
                "results": results,
                "ratios": ratios(results),
            }
        )
    return report


def ratios(results: dict) -> dict:
    def sec(t: str) -> float | None:
        return results.get(t, {}).get("seconds")

    out = {}
    py, js, duck, pd_, papa = (sec(t) for t in TOOLS)
    if py and duck:
        out["python_time_over_duckdb"] = round(py / duck, 2)
    if py and pd_:
        out["pandas_time_over_python"] = round(pd_ / py, 2)
    if js and papa:
        out["js_throughput_over_papaparse"] = round(papa / js, 2)
    if py and js:
        out["js_time_over_python"] = round(js / py, 2)
    return out


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
    lines = ["| file | tool | seconds | MB/s | peak RSS (MB) |", "|---|---|---:|---:|---:|"]
    for f in report["files"]:
        name = f"{Path(f['path']).name} ({f['bytes'] / 1e6:,.0f} MB)"
        for t, r in f["results"].items():
            if "error" in r:
                lines.append(f"| {name} | {t} | failed | | |")
                continue
            lines.append(
                f"| {name} | {t} | {r['seconds']:.2f} | {r['mb_per_s']:.1f} | {r['rss_mb']:.0f} |"
            )
    lines += ["", "| file | ratio | value | target |", "|---|---|---:|---|"]
    targets = {
        "python_time_over_duckdb": "<= 1.5",
        "pandas_time_over_python": ">= 4",
        "js_throughput_over_papaparse": ">= 2.5",
        "js_time_over_python": "",
    }
    for f in report["files"]:
        for k, v in f["ratios"].items():
            lines.append(f"| {Path(f['path']).name} | {k} | {v} | {targets.get(k, '')} |")
    lines += ["", "Tools: " + "; ".join(f"`{t}` = {LABELS[t]}" for t in TOOLS) + ".", ""]
    if report["notes"]:
        lines += ["Notes: " + "; ".join(report["notes"]) + ".", ""]
    lines += [
        "Machine: " + f"{m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, "
        f"Node {m['node']}, {m['platform']}; load average at start "
        f"{m['loadavg_at_start']}.",
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
    ap.add_argument("--baseline", choices=("duckdb", "pandas"), help=argparse.SUPPRESS)
    ap.add_argument("--columns", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.baseline:  # child process: run one baseline
        fn = baseline_duckdb if args.baseline == "duckdb" else baseline_pandas
        print(json.dumps(fn(args.files[0], args.columns.split(","))))
        return 0
    tools = [t for t in args.tools.split(",") if t]
    unknown = set(tools) - set(TOOLS)
    if unknown:
        ap.error(f"unknown tools: {', '.join(sorted(unknown))}")
    skip = tuple(c for c in args.skip_columns.split(",") if c)
    report = run(args.files, tools, args.repeat, skip)
    text = markdown(report)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
