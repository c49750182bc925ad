"""The Spark engine's driver memory as a column's distinct labels grow (SPEC 0.9).

One Spark session in local mode; for each size N a DataFrame of N rows whose forced
column `ident` has N distinct labels (beside `sex`), counted by faircode.spark.summarize
under tracemalloc. The peak of the driver's Python heap during the count is what the
Spark jobs bring back (rows of collect() become Python objects there); past LABEL_CAP
(100,000) a column is capped from its distinct count inside Spark, so the peak should
stay flat. Printed as MB and as a ratio to the smallest size, measured in the same run.

    PYTHONPATH=. python benchmarks/spark_label_cap.py --sizes 10000,100000,1000000
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)
    from faircode import spark as fspark

    session = fspark.get_session(args.master)
    session.sparkContext.setLogLevel("ERROR")
    sizes = [int(s) for s in args.sizes.split(",")]
    fspark.summarize(session.range(1000).selectExpr("'F' as sex"))  # JVM warm-up
    base = None
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print("| distinct labels | seconds | driver Python peak (MB) | ratio to first | capped |")
    print("|---:|---:|---:|---:|---|")
    for n in sizes:
        sdf = session.range(n).selectExpr(
            "concat('i', cast(id as string)) as ident", "if(id % 2 = 0, 'F', 'M') as sex"
        )
        tracemalloc.start()
        t = time.perf_counter()
        summary, _, _ = fspark.summarize(sdf, {"ident": "categorical"})
        took = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        base = base or peak
        print(f"| {n:,} | {took:.1f} | {peak:.1f} | {peak / base:.2f} | {summary.is_capped(0)} |")
    session.stop()


if __name__ == "__main__":
    main()
