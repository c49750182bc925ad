"""`fairness evaluate --engine spark` against the local engine on a generated log.

Generates a prediction log (race: 6 values, sex: 2 with 0.5% missing, age: numbers,
banded by SPEC 2; score: deciles 1-10, prediction = score >= 5; label: 0/1 with 10%
awaiting), evaluates it with the local pandas engine and with Spark (local mode), each
in its own process, checks that the two reports are `==` (``engine`` aside) and prints
the seconds and peak memory of each: the Python process's and, for Spark, the JVM's
(driver and executor in one process in local mode). Usage:

    python benchmarks/bench_monitor_spark.py --rows 10000000 [--format parquet|csv]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = dict(
    pred=None,
    score="score",
    decision_threshold=5,
    label="label",
    attrs=["race", "sex", "age"],
    intersect=True,
)


def generate(path: Path, rows: int, seed: int = 7) -> None:
    """Write the log in chunks of a million rows (the generator's memory stays small)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    races = np.array(["African-American", "Asian", "Caucasian", "Hispanic", "Other", "White"])
    writer = None
    done = 0
    while done < rows:
        n = min(1_000_000, rows - done)
        race = races[rng.choice(6, n, p=[0.35, 0.05, 0.3, 0.15, 0.05, 0.1])]
        sex = np.where(rng.random(n) < 0.5, "Female", "Male").astype(object)
        sex[rng.random(n) < 0.005] = None
        age = rng.integers(16, 90, n)
        score = np.clip(rng.integers(1, 11, n) + (race == "African-American"), 1, 10)
        p = 0.2 + 0.05 * score
        label = (rng.random(n) < p).astype("float64")
        label[rng.random(n) < 0.1] = np.nan
        table = pa.table(
            {
                "race": race,
                "sex": pa.array(sex, type=pa.string()),
                "age": age,
                "score": score,
                "label": pa.array(label, from_pandas=True).cast(pa.int64()),
            }
        )
        if path.suffix == ".parquet":
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=1_000_000)
        else:
            opts = pacsv.WriteOptions(include_header=done == 0, quoting_style="none")
            with open(path, "ab") as fh:
                pacsv.write_csv(table, fh, opts)
        done += n
    if writer is not None:
        writer.close()


def one(engine: str, path: str, out: str) -> None:
    """Run one engine in this process; write the report and the measurements to ``out``."""
    sys.path.insert(0, str(ROOT))
    from faircode.monitor import evaluate

    jvm_hwm = None
    start = time.perf_counter()
    if engine == "spark":
        from faircode import spark as fspark
        from faircode.monitor.spark_engine import evaluate_spark

        session = fspark.get_session("local[2]")
        session.sparkContext.setLogLevel("ERROR")
        report = dict(evaluate_spark(path, spark=session, **ARGS))
        pid = session.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        with open(f"/proc/{pid}/status") as fh:
            jvm_hwm = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM")) * 1024
        session.stop()
    else:
        report = dict(evaluate(path, engine="pandas", **ARGS))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    Path(out).write_text(
        json.dumps({"report": report, "seconds": seconds, "python_peak": peak, "jvm": jvm_hwm})
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    ap.add_argument("--one", nargs=3, metavar=("ENGINE", "PATH", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(*args.one)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"log.{args.format}"
        t = time.perf_counter()
        generate(path, args.rows)
        print(
            f"generated {args.rows:,} rows ({path.stat().st_size / 1e6:.0f} MB {args.format}) "
            f"in {time.perf_counter() - t:.1f} s"
        )
        results = {}
        for engine in ("pandas", "spark"):
            out = Path(tmp) / f"{engine}.json"
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            subprocess.run(
                [sys.executable, __file__, "--one", engine, str(path), str(out)],
                check=True,
                env=env,
            )
            results[engine] = json.loads(out.read_text())
    local, spark = results["pandas"]["report"], results["spark"]["report"]
    assert (local.pop("engine"), spark.pop("engine")) == ("pandas", "spark")
    equal = local == spark
    print(f"reports equal (engine aside): {equal}")
    for engine, r in results.items():
        jvm = "" if r["jvm"] is None else f", JVM peak {r['jvm'] / 2**20:,.0f} MiB"
        print(
            f"{engine:7} {r['seconds']:8.1f} s, Python peak {r['python_peak'] / 2**20:,.0f} MiB"
            f"{jvm}"
        )
    ratio = results["spark"]["seconds"] / results["pandas"]["seconds"]
    print(f"ratio spark / pandas seconds: {ratio:.2f}")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
