"""Where a SQLite label ingest spends its time (issue 28): ``log_labels`` under cProfile.

Generates the data of ``bench_store.py`` (or reuses ``--workdir``), logs the predictions
into a fresh SQLite store, then writes the label file with ``log_labels`` under cProfile
and prints each stage's share: the time of the functions ``log_labels`` calls, grouped
(reading the CSV, request ids, labels, loading the temporary table, the UPDATE and the
statistics, the commit), then the top functions by own time.

cProfile inflates Python-heavy stages (the CSV reader makes a call per record); for a
sampling profile of the same work without that bias, run it under py-spy::

    python benchmarks/profile_labels.py --rows 1000000
    py-spy record -r 200 -f raw -o labels.txt -- python benchmarks/profile_labels.py --no-profile
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_store import generate  # noqa: E402

from faircode.monitor.ingest import log_labels, log_predictions  # noqa: E402
from faircode.monitor.store import open_store  # noqa: E402

#: a stage of the label ingest -> (file suffix, function) pairs whose cumulative time it is
STAGES = {
    "digest of the file": [("monitor/ingest.py", "_digest")],
    "read the CSV (SPEC 0)": [("monitor/ingest.py", "_read")],
    "request ids (_ids)": [("monitor/ingest.py", "_ids")],
    "labels as numbers (_numbers)": [("monitor/ingest.py", "_numbers")],
    "JSON arrays of request ids (_json_parts)": [("monitor/ingest.py", "_json_parts")],
    "temporary table (_load_incoming, executemany)": [
        ("monitor/ingest.py", "_load_incoming"),
        ("monitor/store.py", "executemany"),
    ],
    "UPDATE and statistics (write_labels_counted)": [
        ("monitor/rollup.py", "write_labels_counted"),
    ],
    "other SQL": [("monitor/store.py", "execute")],
    "commit": [("contextlib.py", "__exit__")],
}


def stage_times(stats: pstats.Stats, root: str) -> dict[str, float]:
    """Cumulative seconds of the functions ``root`` calls directly, by stage."""
    raw = stats.stats  # type: ignore[attr-defined]
    out = dict.fromkeys(STAGES, 0.0)
    out["other"] = 0.0
    total = 0.0
    for func, (_cc, _nc, _tt, _ct, callers) in raw.items():
        for caller, timing in callers.items():
            if caller[2] != root:
                continue
            ct = timing[3]
            total += ct
            for stage, names in STAGES.items():
                if any(func[0].endswith(f) and func[2] == n for f, n in names):
                    out[stage] += ct
                    break
            else:
                out["other"] += ct
    out["total (calls made by log_labels)"] = total
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--workdir", metavar="DIR", help="data and store (default: temp)")
    ap.add_argument("--no-profile", action="store_true", help="time only (for py-spy)")
    ap.add_argument("--top", type=int, default=15, help="functions listed by own time")
    args = ap.parse_args(argv)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="faircode-profile-labels-"))
    work.mkdir(parents=True, exist_ok=True)
    preds, labels = work / "preds.csv", work / "labels.csv"
    if not (preds.exists() and labels.exists()):
        generate(args.rows, args.seed, work)
    db = work / "profile.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    store = open_store(str(db))
    try:
        log_predictions(
            store,
            "bench",
            preds,
            version="v1",
            id_col="rid",
            attrs=["race", "sex"],
            pred="pred",
            at_col="at",
        )
        profile = None if args.no_profile else cProfile.Profile()
        t0, c0 = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        out = log_labels(store, "bench", labels, id_col="rid", label_col="label")
        if profile is not None:
            profile.disable()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        store.close()
    n = out["rows"]
    print(
        f"{n:,} labels: {wall:.2f} s wall, {cpu:.2f} s CPU ({n / wall:,.0f} rows/s wall, "
        f"{n / cpu:,.0f} rows/s CPU); load average {os.getloadavg()[0]:.1f}"
        + (" (under cProfile)" if profile is not None else "")
    )
    if profile is None:
        return 0
    stats = pstats.Stats(profile)
    times = stage_times(stats, "log_labels")
    total = times["total (calls made by log_labels)"]
    for stage, seconds in times.items():
        print(f"  {stage:<40} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
