"""The Spark engine's wall time and Spark jobs per profile, one warm session per tree.

For each `--tree LABEL=PATH` (default: this checkout) a worker process imports that
tree's faircode (`PYTHONPATH=PATH`), starts one `local[2]` session with the settings of
tests/sparkutil.py (faircode's LOCAL_CONF and its JVM options), profiles every file once
untimed (JVM warm-up; that result is checked `==` to the local engine's), then
`--repeat` times timed: the wall of `faircode.spark.profile_path` and the Spark jobs it
ran (`setJobGroup` before, `statusTracker().getJobIdsForGroup` after). Printed: median
wall, every round, jobs, and each tree's median over the first tree's, per file.

The files: a generated 400-row, 4-column CSV (sex, race, age, hired), COMPAS
(compas-scores-two-years.csv) and diabetic_data.csv (tests/data). `--labelled` profiles
each with a label column as well (SPEC 17: hired, two_year_recid, and diabetic's
readmitted recoded to two values), which adds the label tables to pass 2.

    PYTHONPATH=. python benchmarks/spark_profile.py --tree before=/tmp/old --tree after=.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def small_csv(path: Path) -> None:
    """400 rows, 4 columns, fixed content."""
    lines = ["sex,race,age,hired"]
    for k in range(400):
        sex = ["F", "M", "M", ""][k % 4]
        race = ["A", "B", "C", "B", "A"][(k * 7) % 5]
        age = str(18 + (k * 13) % 60)
        hired = ["yes", "no", "no"][(k * 5) % 3]
        lines.append(f"{sex},{race},{age},{hired}")
    path.write_text("\n".join(lines) + "\n")


#: --labelled: each file's options (a binary label; diabetic's three values made two)
LABELLED = {
    "small-400x4.csv": {"label": "hired"},
    "compas-scores-two-years.csv": {"label": "two_year_recid"},
    "diabetic_data.csv": {"label": "readmitted", "recode": [["readmitted", "<30", ">30"]]},
}


def worker(files: list[str], repeat: int, labelled: bool) -> None:
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    from pyspark.sql import SparkSession

    import faircode
    from faircode import spark as fspark

    sys.path.insert(0, str(ROOT / "tests"))
    from sparkutil import JAVA_OPTS

    builder = SparkSession.builder.master("local[2]").appName("faircode-bench")
    for key, value in fspark.LOCAL_CONF.items():
        builder = builder.config(key, value)
    spark = builder.config("spark.driver.extraJavaOptions", JAVA_OPTS).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    out = {"faircode": faircode.__file__, "files": {}}
    for n, f in enumerate(files):
        opts = LABELLED[Path(f).name] if labelled else {}
        got = fspark.profile_path(f, None, opts, spark=spark)
        if got != faircode.profile(f, opts=opts):
            raise SystemExit(f"{f}: the Spark result differs from the local engine's")
        walls, jobs = [], []
        for r in range(repeat):
            group = f"bench-{n}-{r}"
            sc.setJobGroup(group, group)
            t = time.perf_counter()
            fspark.profile_path(f, None, opts, spark=spark)
            walls.append(time.perf_counter() - t)
            jobs.append(len(sc.statusTracker().getJobIdsForGroup(group)))
        out["files"][f] = {"walls": walls, "jobs": jobs}
    spark.stop()
    print("RESULT " + json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", default=[], help="LABEL=PATH")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--labelled", action="store_true", help="profile with a label column")
    ap.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.worker, args.repeat, args.labelled)
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from datafiles import data_file

    trees = [t.split("=", 1) for t in args.tree] or [["this", str(ROOT)]]
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small-400x4.csv"
        small_csv(small)
        files = [
            str(small),
            str(data_file("compas-scores-two-years.csv")),
            str(data_file("diabetic_data.csv")),
        ]
        print(f"load average at start: {os.getloadavg()[0]:.2f}")
        results = {}
        for label, path in trees:
            env = {**os.environ, "PYTHONPATH": str(Path(path).resolve())}
            cmd = [sys.executable, __file__, "--repeat", str(args.repeat)]
            cmd += ["--labelled"] * args.labelled + ["--worker", *files]
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
            if proc.returncode or not line:
                sys.exit(f"{label}: worker failed\n{proc.stderr[-3000:]}")
            results[label] = json.loads(line[0][7:])
            print(f"{label}: {results[label]['faircode']}")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")
        first = trees[0][0]
        print(f"| file | tree | median wall (s) | rounds (s) | Spark jobs | median / {first} |")
        print("|---|---|---:|---|---:|---:|")
        for f in files:
            base = statistics.median(results[first]["files"][f]["walls"])
            for label, _ in trees:
                got = results[label]["files"][f]
                med = statistics.median(got["walls"])
                rounds = ", ".join(f"{w:.2f}" for w in got["walls"])
                jobs = "/".join(str(j) for j in sorted(set(got["jobs"])))
                print(
                    f"| {Path(f).name} | {label} | {med:.2f} | {rounds} | {jobs} "
                    f"| {med / base:.2f} |"
                )


if __name__ == "__main__":
    main()
