"""The per-slice metrics: ONE declarative list, and the report's slice entries from it.

Every metric is a formula over the per-slice sufficient statistics of
:mod:`faircode.monitor.counts` (SPEC 15.1): ``numerator / denominator`` (``"ratio"``) or
its square root (``"sqrt_ratio"``, RMSE), or (``"score"``, with ``--score``) a value
:mod:`faircode.monitor.scores` computes from the per-slice score table (AUC, Brier,
ECE: not ratios of counts). The denominator is also the metric's count for
the low-n guard (SPEC 12.5); a ratio of counts (``wilson``) gets a Wilson 95% interval
and reports its numerator as ``successes``. The engines (:mod:`.counts`, :mod:`.engines`),
the renderers (:mod:`.render`: column headers) and ``schema.json`` (tested against this
list) all read :data:`METRICS`; a new metric is one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numerics import Z
from .scores import auc_interval
from .stats import effective, weighted, wilson_arrays

#: How reports name the slice of rows without a value (SPEC 12.3). Its home is here, not
#: in slices.py, which imports the profiler's group rules: the renderers read it, and a
#: renderer importing the profiler's analysis made an import cycle through the results.
MISSING_LABEL = "(missing)"

TASKS = ("binary", "regression")


@dataclass(frozen=True)
class Metric:
    name: str
    task: str  # "binary" or "regression"
    numerator: str  # a counts key: successes of a rate, or a sum
    denominator: str  # a counts key: the metric's count (low-n guard)
    formula: str = "ratio"  # "ratio", "sqrt_ratio" or "score" (from the score table)
    wilson: bool = False  # numerator counts successes: Wilson interval, "successes"
    needs_label: bool = True
    header: str | None = None  # column header in text/Markdown/HTML tables (None: no column)
    column: int | None = None  # position of that column
    # header in the Markdown/HTML table of error rates (None: not there); list order.
    # The terminal table has no room for these; JSON and CSV carry every metric.
    detail: str | None = None
    # header in the score table of every format (None: not there); list order
    scored: str | None = None


#: In report order per task (the order of a slice's ``metrics``).
METRICS: tuple[Metric, ...] = (
    Metric(
        "accuracy", "binary", "n_correct", "n_labelled", wilson=True, header="Accuracy", column=0
    ),
    Metric(
        "selection_rate",
        "binary",
        "n_selected",
        "n",
        wilson=True,
        needs_label=False,
        header="Sel.Rate",
        column=1,
    ),
    Metric("tpr", "binary", "n_tp", "n_label_pos", wilson=True, header="TPR", column=2),
    Metric("fpr", "binary", "n_fp", "n_label_neg", wilson=True, header="FPR", column=3),
    Metric("precision", "binary", "n_tp", "n_pred_pos_labelled", wilson=True, detail="Precision"),
    # The error rates of Aequitas / Fairlearn (SPEC 12.4): each a Wilson rate guarded by
    # its own denominator; their counts are derived (DERIVED_COUNTS), not stored.
    Metric("fnr", "binary", "n_fn", "n_label_pos", wilson=True, detail="FNR"),
    Metric("for", "binary", "n_fn", "n_pred_neg_labelled", wilson=True, detail="FOR"),
    Metric("fdr", "binary", "n_fp", "n_pred_pos_labelled", wilson=True, detail="FDR"),
    Metric("npv", "binary", "n_tn", "n_pred_neg_labelled", wilson=True, detail="NPV"),
    # With --score (SPEC 12.4): from the score table (faircode/monitor/scores.py). AUC's
    # count is its smaller class; Brier's and ECE's the labelled rows.
    Metric("auc", "binary", "auc", "n_auc", formula="score", scored="AUC"),
    Metric("brier", "binary", "brier", "n_scored_labelled", formula="score", scored="Brier"),
    Metric("ece", "binary", "ece", "n_scored_labelled", formula="score", scored="ECE"),
    Metric("mae", "regression", "sum_abs_error", "n_labelled", header="MAE", column=0),
    Metric(
        "rmse",
        "regression",
        "sum_sq_error",
        "n_labelled",
        formula="sqrt_ratio",
        header="RMSE",
        column=1,
    ),
    Metric(
        "mean_prediction",
        "regression",
        "sum_pred_labelled",
        "n_labelled",
        header="Mean pred",
        column=3,
    ),
    Metric("mean_label", "regression", "sum_label", "n_labelled", header="Mean label", column=4),
    Metric(
        "selection_rate",
        "regression",
        "n_selected",
        "n",
        wilson=True,
        needs_label=False,
        header="Sel.Rate",
        column=2,
    ),
)

#: Counts derived from others: key -> (minuend, subtrahend), in order (a later entry may
#: use an earlier one). Exact: every operand is a whole count below 2**53.
DERIVED_COUNTS: dict[str, tuple[str, str]] = {
    "n_label_neg": ("n_labelled", "n_label_pos"),
    "n_fn": ("n_label_pos", "n_tp"),
    "n_tn": ("n_label_neg", "n_fp"),
    "n_pred_neg_labelled": ("n_labelled", "n_pred_pos_labelled"),
}


def metrics_of(task: str) -> tuple[Metric, ...]:
    """The metrics of ``task``, in report order."""
    return tuple(m for m in METRICS if m.task == task)


def metric_names() -> list[str]:
    """Every metric name once (schema.json's ``metric_name``)."""
    return list(dict.fromkeys(m.name for m in METRICS))


def columns(task: str) -> list[tuple[str, str]]:
    """(header, metric) of the table columns of ``task``, in column order."""
    shown = sorted((m for m in metrics_of(task) if m.header), key=lambda m: m.column or 0)
    return [(m.header, m.name) for m in shown if m.header is not None]


def detail_columns(task: str) -> list[tuple[str, str]]:
    """(header, metric) of the Markdown/HTML error-rate table of ``task``, in list order."""
    return [(m.detail, m.name) for m in metrics_of(task) if m.detail is not None]


def score_columns(task: str) -> list[tuple[str, str]]:
    """(header, metric) of the score table of ``task`` (``--score``), in list order."""
    return [(m.scored, m.name) for m in metrics_of(task) if m.scored is not None]


def _score_effective(stats: dict[str, Any]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The weighted score metrics' effective sizes (scores.score_metrics with weights):
    AUC's the smaller class's n_eff, Brier's and ECE's the labelled rows'."""
    if "w_eff_auc" not in stats:
        return {}
    return {
        "auc": (stats["w_eff_auc"], stats["w_eff_auc"]),
        "brier": (stats["w_eff_scored"], stats["w_eff_scored"]),
        "ece": (stats["w_eff_scored"], stats["w_eff_scored"]),
    }


def _num(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def display_label(value: Any) -> str:
    """A slice value as reports name it: `(missing)` for the missing slice, else its text."""
    return MISSING_LABEL if value is None else str(value)


def build_slices(
    ats: list[Any],
    slice_parts: np.ndarray,
    stats: dict[str, np.ndarray],
    task: str,
    min_samples: int,
) -> list[dict[str, Any]]:
    """The report's slice entries of one slicing from its engine result ``stats``.

    With sample weights (``stats`` has the ``w_`` sums of :mod:`.counts`) each metric also
    reports ``n_eff``, Kish's effective size of its count, which the low-n guard compares
    and a rate's Wilson interval is computed at (with ``successes_eff``, SPEC 12.7).
    """
    present = [m for m in metrics_of(task) if m.name in stats]
    eff: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if weighted(stats):
        eff = {
            m.name: effective(stats, m.numerator, m.denominator)
            for m in present
            if f"w2_{m.denominator}" in stats
        }
        for name, pair in _score_effective(stats).items():
            if name in stats:
                eff[name] = pair
    bounds = {
        m.name: wilson_arrays(*eff[m.name])
        if m.name in eff
        else wilson_arrays(stats[m.numerator], stats[m.denominator])
        for m in present
        if m.wilson
    }
    out = []
    for gi, row in enumerate(slice_parts):
        key = {a.name: a.values[int(c)] for a, c in zip(ats, row, strict=True)}
        if len(ats) == 1:
            text = display_label(next(iter(key.values())))
        else:
            text = ", ".join(f"{k}={display_label(v)}" for k, v in key.items())
        metrics: dict[str, Any] = {}
        low_n = []
        for m in present:
            count = int(stats[m.denominator][gi])
            entry: dict[str, Any] = {
                "value": _num(stats[m.name][gi]),
                "count": count,
                "low_n": count < min_samples,
            }
            if m.name in eff:  # weighted: the guard compares the effective size
                n_eff = float(eff[m.name][1][gi])
                entry["n_eff"] = n_eff
                entry["low_n"] = n_eff < min_samples
            if m.name == "auc":
                pos, neg = stats["n_auc_pos"][gi], stats["n_auc_neg"][gi]
                entry["positives"], entry["negatives"] = int(pos), int(neg)
                if "auc" in eff:  # weighted: at each class's n_eff (and the disparity too)
                    pos, neg = stats["w_eff_auc_pos"][gi], stats["w_eff_auc_neg"][gi]
                    entry["positives_eff"], entry["negatives_eff"] = float(pos), float(neg)
                entry["ci95"] = auc_interval(entry["value"], pos, neg, Z)
            if m.wilson:
                entry["successes"] = int(stats[m.numerator][gi])
                if m.name in eff:
                    entry["successes_eff"] = float(eff[m.name][0][gi])
                lo, hi = bounds[m.name][0][gi], bounds[m.name][1][gi]
                entry["ci95"] = None if np.isnan(lo) else [float(lo), float(hi)]
            if entry["low_n"]:
                low_n.append(m.name)
            metrics[m.name] = entry
        if "calibration" in stats and stats["calibration"][gi] is not None:
            metrics_calibration = stats["calibration"][gi]
        else:
            metrics_calibration = None
        out.append(
            {
                "slice": text,
                "key": key,
                "n": int(stats["n"][gi]),
                "n_labelled": int(stats["n_labelled"][gi]) if "n_labelled" in stats else 0,
                "metrics": metrics,
                "low_n": low_n,
            }
        )
        if "calibration" in stats:
            out[-1]["calibration"] = metrics_calibration
    return out
