"""Benchmark: faircode.monitor.evaluate against Fairlearn's MetricFrame on the same data.

Generates ROWS prediction rows (default 10 million) with two attributes, a 0/1 prediction
and a 0/1 label of which 10% are missing (predictions awaiting a label), then times, in
the same process on the same data:

* faircode ``evaluate(..., engine="pandas")`` - the full report: per-slice counts, rates,
  Wilson intervals, low-n guard and disparities for both attributes;
* Fairlearn ``MetricFrame`` - the comparable per-slice numbers the way a Fairlearn user
  gets them: per attribute one MetricFrame over every prediction (count, selection rate)
  and one over the labelled rows (count, accuracy, TPR, FPR, precision), plus the
  ``difference()`` disparities. No Wilson intervals or guard: less work than faircode.
* optionally faircode ``engine="fairlearn"`` (``--with-fairlearn-engine``).

Each timing is the best of ``--repeat`` runs. Ratios are time / MetricFrame time, so a
ratio below 1 means faster than Fairlearn. The script checks that faircode's selection
rates and TPRs equal the MetricFrame ones before reporting.

    python benchmarks/bench_monitor.py                 # 10 million rows
    python benchmarks/bench_monitor.py --rows 1000000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from machine import cpu_model  # noqa: E402  (benchmarks/ is on sys.path as the script dir)

from faircode.monitor import evaluate  # noqa: E402

RACES = np.array(["African-American", "Caucasian", "Hispanic", "Other", "Asian", "Native American"])
RACE_P = np.array([0.45, 0.33, 0.1, 0.08, 0.03, 0.01])
SEXES = np.array(["Female", "Male"])


def generate(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    race = rng.choice(len(RACES), size=rows, p=RACE_P)
    sex = rng.integers(0, 2, size=rows)
    label = (rng.random(rows) < 0.35 + 0.05 * (race == 0)).astype("float64")
    # a model that is better for some groups than others
    noise = rng.random(rows) < 0.2 + 0.04 * race
    pred = np.where(noise, 1 - label, label).astype("int64")
    label[rng.random(rows) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "race": pd.Series(RACES[race], dtype="string"),
            "sex": pd.Series(SEXES[sex], dtype="string"),
            "pred": pred,
            "label": label,
        }
    )


def metricframe_baseline(df: pd.DataFrame, attrs: list[str]) -> dict[str, Any]:
    from fairlearn.metrics import (
        MetricFrame,
        count,
        false_positive_rate,
        selection_rate,
        true_positive_rate,
    )
    from sklearn.metrics import accuracy_score, precision_score

    def precision(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        return precision_score(y_true, y_pred, zero_division=np.nan)

    out: dict[str, Any] = {}
    labelled = df[df["label"].notna()]
    y_true = labelled["label"].to_numpy().astype("int64")
    y_pred = labelled["pred"].to_numpy()
    for attr in attrs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            everyone = MetricFrame(
                metrics={"count": count, "selection_rate": selection_rate},
                y_true=df["pred"].to_numpy(),
                y_pred=df["pred"].to_numpy(),
                sensitive_features=df[attr],
            )
            with_label = MetricFrame(
                metrics={
                    "count": count,
                    "accuracy": accuracy_score,
                    "tpr": true_positive_rate,
                    "fpr": false_positive_rate,
                    "precision": precision,
                },
                y_true=y_true,
                y_pred=y_pred,
                sensitive_features=labelled[attr],
            )
            out[attr] = {
                "selection_rate": everyone.by_group["selection_rate"],
                "tpr": with_label.by_group["tpr"],
                "dp_difference": everyone.difference()["selection_rate"],
                "label_differences": with_label.difference(),
            }
    return out


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def machine() -> str:
    cpu = cpu_model()
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        memory = f"{mem:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        memory = "RAM unknown"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu}, {cores} cores, {memory}, {platform.system()} {platform.release()}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument(
        "--with-fairlearn-engine",
        action="store_true",
        help="also time faircode's own Fairlearn engine",
    )
    args = ap.parse_args(argv)

    import fairlearn
    import sklearn

    attrs = ["race", "sex"]
    t0 = time.perf_counter()
    df = generate(args.rows, args.seed)
    gen = time.perf_counter() - t0

    timings: list[tuple[str, float]] = []
    ours_t, ours = best_of(
        args.repeat, lambda: evaluate(df, pred="pred", attrs=attrs, label="label", engine="pandas")
    )
    timings.append(("faircode evaluate, pandas engine (full report)", ours_t))
    base_t, base = best_of(args.repeat, lambda: metricframe_baseline(df, attrs))
    timings.append(("Fairlearn MetricFrame (per-group metrics + difference())", base_t))
    if args.with_fairlearn_engine:
        fl_t, fl = best_of(
            args.repeat,
            lambda: evaluate(df, pred="pred", attrs=attrs, label="label", engine="fairlearn"),
        )
        timings.append(("faircode evaluate, fairlearn engine (full report)", fl_t))
        assert fl["groups"] == ours["groups"] or all(
            abs(a["metrics"]["tpr"]["value"] - b["metrics"]["tpr"]["value"]) < 1e-12
            for ga, gb in zip(fl["groups"], ours["groups"], strict=True)
            for a, b in zip(ga["slices"], gb["slices"], strict=True)
        )

    # same numbers as Fairlearn, or the timing means nothing
    worst = 0.0
    for g in ours["groups"]:
        attr = g["attributes"][0]
        for s in g["slices"]:
            for metric in ("selection_rate", "tpr"):
                theirs = float(base[attr][metric].loc[s["slice"]])
                worst = max(worst, abs(s["metrics"][metric]["value"] - theirs))
        dp = next(d for d in g["disparities"] if d["metric"] == "demographic_parity_difference")
        if dp["eligible_slices"] == len(g["slices"]):
            worst = max(worst, abs(dp["value"] - float(base[attr]["dp_difference"])))
    if worst > 1e-12:
        print(f"faircode and MetricFrame disagree by {worst}", file=sys.stderr)
        return 1

    print(f"machine: {machine()}")
    print(
        f"python {platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__},"
        f" fairlearn {fairlearn.__version__}, scikit-learn {sklearn.__version__}"
    )
    print(
        f"rows: {args.rows:,} ({ours['rows']['labelled']:,} labelled), attributes: "
        f"{', '.join(attrs)}; best of {args.repeat}; data generation {gen:.1f} s; "
        f"largest difference from MetricFrame: {worst:.1e}"
    )
    print()
    print("| run | seconds | ratio to MetricFrame |")
    print("|---|---:|---:|")
    for name, seconds in timings:
        print(f"| {name} | {seconds:.2f} | {seconds / base_t:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
