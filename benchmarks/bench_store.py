"""Benchmark: the prediction store (SQLite, PostgreSQL) against a file and Fairlearn.

Generates ROWS predictions (default 5 million: six-valued ``race``, two-valued ``sex``,
a 0/1 prediction, a time spread over 30 days) and a label file for 90% of them, then
measures:

* ingest: ``log_predictions`` and ``log_labels`` (reading the CSV, validation, one
  transaction each), as rows per second, into SQLite and PostgreSQL;
* the report from the stored rows (``store_report``: one GROUP BY in the database, the
  trend per day, the SLI), best of ``--repeat``;
* the same per-slice numbers from the file: faircode ``evaluate`` (pandas engine) and
  Fairlearn ``MetricFrame`` (per attribute one frame over every prediction and one over
  the labelled rows, plus ``difference()``), on the first ``--fairlearn-rows`` rows.

With ``--second-version`` it also times a second version scored on the same request ids
(a shadow): ``log_predictions`` of version ``v2`` into the store above (the labels are
there already, so each joins v2's prediction too), against v1's ingest of the same run;
and, for a second model of the same store, labels logged after both versions' predictions
(each label joins two predictions), against the one-version labels.

Before reporting it checks that the store's evaluation equals ``evaluate`` on the file.

    python benchmarks/bench_store.py                      # 5M rows, SQLite + PostgreSQL
    python benchmarks/bench_store.py --rows 200000 --no-postgres --fairlearn-rows 200000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from machine import cpu_model  # noqa: E402

from faircode.monitor import evaluate, ingest  # noqa: E402
from faircode.monitor.ingest import log_labels, log_predictions  # noqa: E402
from faircode.monitor.registry import Registry  # noqa: E402
from faircode.monitor.store import open_store  # noqa: E402
from faircode.monitor.timeline import store_report  # noqa: E402

RACES = np.array(["African-American", "Caucasian", "Hispanic", "Other", "Asian", "Native American"])
RACE_P = np.array([0.45, 0.33, 0.1, 0.08, 0.03, 0.01])
SEXES = np.array(["Female", "Male"])
START = pd.Timestamp("2026-11-01", tz="UTC").value // 10**9


def generate(rows: int, seed: int, directory: Path) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(seed)
    race = rng.choice(RACES, rows, p=RACE_P)
    sex = rng.choice(SEXES, rows, p=[0.2, 0.8])
    base = np.where(race == "African-American", 0.55, 0.35)
    pred = (rng.random(rows) < base).astype(np.int8)
    label = np.where(rng.random(rows) < 0.8, pred, 1 - pred).astype(np.int8)
    at = START + rng.integers(0, 30 * 86400, rows)
    preds = pd.DataFrame({"rid": np.arange(rows), "race": race, "sex": sex, "pred": pred, "at": at})
    has_label = rng.random(rows) >= 0.1
    labels = pd.DataFrame({"rid": np.arange(rows)[has_label], "label": label[has_label]})
    p_path, l_path, both = (
        directory / "preds.csv",
        directory / "labels.csv",
        directory / "both.csv",
    )
    preds.to_csv(p_path, index=False)
    labels.to_csv(l_path, index=False)
    full = preds.assign(label=np.where(has_label, label, np.nan))
    full.to_csv(both, index=False)
    return p_path, l_path, both


CPU: dict[str, float] = {}


def timed(fn: Any, cpu_key: str | None = None) -> tuple[float, Any]:
    """Wall seconds of ``fn()`` (its CPU seconds in this process go to CPU[cpu_key])."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    if cpu_key:
        CPU[cpu_key] = time.process_time() - c0
    return time.perf_counter() - t0, out


def _log(store: Any, model: str, preds: Path, version: str) -> dict[str, Any]:
    return log_predictions(
        store,
        model,
        preds,
        version=version,
        id_col="rid",
        attrs=["race", "sex"],
        pred="pred",
        at_col="at",
    )


def bench_backend(
    name: str, location: str, preds: Path, labels: Path, rows: int, n_labels: int, repeat: int
) -> dict[str, Any]:
    store = open_store(location)
    try:
        t_log, _ = timed(lambda: _log(store, "bench", preds, "v1"), "log")
        t_lab, _ = timed(
            lambda: log_labels(store, "bench", labels, id_col="rid", label_col="label"), "label"
        )
        reg = Registry(model="bench", slices=("race", "sex"))
        best = float("inf")
        report: dict[str, Any] = {}
        for _ in range(repeat):
            t, report = timed(lambda: store_report(store, "bench", reg, target=0.99))
            best = min(best, t)
        t_eval_only, _ = timed(lambda: store_report(store, "bench", reg, trend=False))
    finally:
        store.close()
    return {
        "backend": name,
        "log_seconds": t_log,
        "log_rows_per_s": rows / t_log,
        "label_seconds": t_lab,
        "label_rows_per_s": n_labels / t_lab,
        # labels against predictions of the same run (the machine's load cancels out)
        "label_to_log_ratio": (n_labels / t_lab) / (rows / t_log),
        # CPU of this process only (for SQLite the whole database work; for PostgreSQL
        # the server's CPU is not included)
        "log_cpu_seconds": CPU["log"],
        "log_rows_per_cpu_s": rows / CPU["log"],
        "label_cpu_seconds": CPU["label"],
        "label_rows_per_cpu_s": n_labels / CPU["label"],
        # SQLite works in this process: CPU seconds are its work, whatever the load
        "label_to_log_cpu_ratio": (n_labels / CPU["label"]) / (rows / CPU["log"]),
        "report_seconds": best,
        "report_without_trend_seconds": t_eval_only,
        "days": len(report["trend"]),
        "evaluation": report["evaluation"],
    }


def second_version(
    location: str, preds: Path, labels: Path, rows: int, n_labels: int, run: dict[str, Any]
) -> dict[str, Any]:
    """A second version scored on the same request ids (a shadow): its ingest into the
    store :func:`bench_backend` filled (every request labelled already, so v2's
    predictions take the labels), and, in a second model, labels logged after both
    versions' predictions; each as a ratio to the one-version timing of ``run`` (the
    same run: the machine's load mostly cancels out)."""
    store = open_store(location)
    try:
        t_v2, out = timed(lambda: _log(store, "bench", preds, "v2"), "v2")
        # the shadow model: v1 and v2 first, then the labels (each joins two predictions)
        t_s1, _ = timed(lambda: _log(store, "bench-shadow", preds, "v1"), "s1")
        t_s2, _ = timed(lambda: _log(store, "bench-shadow", preds, "v2"), "s2")
        t_lab, lab = timed(
            lambda: log_labels(store, "bench-shadow", labels, id_col="rid", label_col="label"),
            "s_label",
        )
    finally:
        store.close()
    return {
        "v2_log_seconds": t_v2,
        "v2_log_rows_per_s": rows / t_v2,
        "v2_labels_joined": out["labels_joined"],
        "v2_to_v1_log_seconds_ratio": t_v2 / run["log_seconds"],
        "v2_to_v1_log_cpu_ratio": CPU["v2"] / CPU["log"],
        "shadow_v1_log_seconds": t_s1,
        "shadow_v2_log_seconds": t_s2,
        "shadow_v2_to_v1_log_seconds_ratio": t_s2 / t_s1,
        "shadow_v2_to_v1_log_cpu_ratio": CPU["s2"] / CPU["s1"],
        "shadow_label_seconds": t_lab,
        "shadow_labels_joined": lab["joined"],
        "shadow_label_to_one_version_seconds_ratio": t_lab / run["label_seconds"],
        "shadow_label_to_one_version_cpu_ratio": CPU["s_label"] / CPU["label"],
    }


def label_baseline(location: str, preds: Path, labels: Path, rows: int, n_labels: int) -> dict:
    """Labels through the general path (ingest.SQLITE_ONE_PASS_LABELS off: the delta by
    a GROUP BY over the join of labels and predictions, then the UPDATE) into a second
    SQLite store, in the same run: the baseline the one-pass write is measured against."""
    store = open_store(location)
    try:
        t_log, _ = timed(
            lambda: log_predictions(
                store,
                "bench",
                preds,
                version="v1",
                id_col="rid",
                attrs=["race", "sex"],
                pred="pred",
                at_col="at",
            ),
            "base_log",
        )
        ingest.SQLITE_ONE_PASS_LABELS = False
        try:
            t_lab, _ = timed(
                lambda: log_labels(store, "bench", labels, id_col="rid", label_col="label"),
                "base_label",
            )
        finally:
            ingest.SQLITE_ONE_PASS_LABELS = True
    finally:
        store.close()
    return {
        "log_rows_per_s": rows / t_log,
        "label_seconds": t_lab,
        "label_rows_per_s": n_labels / t_lab,
        "label_to_log_ratio": (n_labels / t_lab) / (rows / t_log),
        "log_cpu_seconds": CPU["base_log"],
        "label_cpu_seconds": CPU["base_label"],
        "label_rows_per_cpu_s": n_labels / CPU["base_label"],
    }


def metricframe(both: Path, rows: int) -> float:
    from fairlearn.metrics import (
        MetricFrame,
        count,
        false_positive_rate,
        selection_rate,
        true_positive_rate,
    )
    from sklearn.metrics import accuracy_score, precision_score

    t0 = time.perf_counter()
    df = pd.read_csv(both, nrows=rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for attr in ("race", "sex"):
            mf = MetricFrame(
                metrics={"count": count, "selection_rate": selection_rate},
                y_true=df["pred"],
                y_pred=df["pred"],
                sensitive_features=df[attr],
            )
            mf.difference()
            lab = df.dropna(subset=["label"])
            mf = MetricFrame(
                metrics={
                    "count": count,
                    "accuracy": accuracy_score,
                    "tpr": true_positive_rate,
                    "fpr": false_positive_rate,
                    "precision": precision_score,
                },
                y_true=lab["label"].astype(int),
                y_pred=lab["pred"],
                sensitive_features=lab[attr],
            )
            mf.difference()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--no-postgres", action="store_true")
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--pg-url", help="PostgreSQL server (default: start scripts/pg-test-server)")
    ap.add_argument(
        "--fairlearn-rows",
        type=int,
        default=None,
        help="rows for the MetricFrame timing (default: all; 0 skips it)",
    )
    ap.add_argument(
        "--label-baseline",
        action="store_true",
        help="also time SQLite labels through the general path (two passes over the join) "
        "in a second store of the same run",
    )
    ap.add_argument(
        "--second-version",
        action="store_true",
        help="also time a second version scored on the same request ids (a shadow): its "
        "predictions after the labels, and labels after both versions' predictions",
    )
    ap.add_argument("--json", metavar="PATH", help="write the results as JSON")
    ap.add_argument("--workdir", metavar="DIR", help="where to write data (default: temp)")
    args = ap.parse_args(argv)

    work = Path(args.workdir or tempfile.mkdtemp(prefix="faircode-bench-store-"))
    work.mkdir(parents=True, exist_ok=True)
    t_gen, (preds, labels, both) = timed(lambda: generate(args.rows, args.seed, work))
    n_labels = sum(1 for _ in labels.open()) - 1
    print(
        f"generated {args.rows:,} predictions, {n_labels:,} labels in {t_gen:.1f}s", file=sys.stderr
    )
    results: dict[str, Any] = {
        "rows": args.rows,
        "labels": n_labels,
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "pandas": pd.__version__,
            "load_before": os.getloadavg(),
        },
        "runs": [],
    }
    t_file, expected = timed(
        lambda: evaluate(both, pred="pred", attrs=["race", "sex"], label="label", engine="pandas")
    )
    results["evaluate_file_seconds"] = t_file

    backends = [] if args.no_sqlite else [("sqlite", str(work / "monitor.db"))]
    pg_dir = None
    if not args.no_postgres:
        url = args.pg_url
        if url is None:
            out = subprocess.run(
                [str(HERE.parent / "scripts" / "pg-test-server")],
                capture_output=True,
                text=True,
                check=True,
            )
            url, pg_dir = out.stdout.split()[:2]
        backends.append(("postgresql", url))
    try:
        for name, location in backends:
            print(f"{name}: ...", file=sys.stderr)
            run = bench_backend(name, location, preds, labels, args.rows, n_labels, args.repeat)
            got = run.pop("evaluation")
            strip = ("source", "engine")
            run["equals_evaluate"] = {k: v for k, v in got.items() if k not in strip} == {
                k: v for k, v in expected.items() if k not in strip
            }
            if args.second_version:
                run["second_version"] = second_version(
                    location, preds, labels, args.rows, n_labels, run
                )
            if name == "sqlite" and args.label_baseline:
                base = label_baseline(str(work / "baseline.db"), preds, labels, args.rows, n_labels)
                run["label_baseline"] = base
                run["label_speedup"] = base["label_seconds"] / run["label_seconds"]
                run["label_cpu_speedup"] = base["label_cpu_seconds"] / run["label_cpu_seconds"]
            results["runs"].append(run)
            print(json.dumps(run), file=sys.stderr)
    finally:
        if pg_dir:
            subprocess.run(
                [str(HERE.parent / "scripts" / "pg-test-server"), "stop", pg_dir],
                capture_output=True,
            )
    fl_rows = args.rows if args.fairlearn_rows is None else args.fairlearn_rows
    if fl_rows:
        results["metricframe_rows"] = fl_rows
        results["metricframe_seconds"] = metricframe(both, fl_rows)
    results["machine"]["load_after"] = os.getloadavg()
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    if not all(r["equals_evaluate"] for r in results["runs"]):
        print("error: a store report differs from evaluate on the file", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
