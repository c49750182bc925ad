"""Per-slice statistics engines.

Both engines take the same :class:`SliceInput` and return the same dict of float arrays
(one entry per slice, NaN where a metric is undefined). The pandas/numpy engine groups
with ``np.bincount``; the Fairlearn engine groups with ``fairlearn.metrics.MetricFrame``
and takes the rates from Fairlearn / scikit-learn metric functions. Everything after this
point (Wilson intervals, guards, disparities) is shared code.
"""

from __future__ import annotations

import importlib.util
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .counts import DENOMINATOR_KEYS, counts_from_rows, metrics_from_counts
from .metrics import DERIVED_COUNTS, metrics_of
from .scores import bin_of, scaled, score_metrics, table_from_rows

#: Rates the Fairlearn engine takes as 1 - another rate: metric -> the other metric.
COMPLEMENTS = {"for": "npv", "fdr": "precision"}


@dataclass(frozen=True)
class SliceInput:
    """Scored rows of one slicing (one attribute or one combination of attributes).

    ``codes`` holds each row's slice number (0..n_slices-1); ``parts`` the per-attribute
    codes of each row (rows x attributes) and ``slice_parts`` the per-attribute codes of
    each slice, so that an engine may group by the attributes themselves.
    """

    codes: np.ndarray
    n_slices: int
    parts: np.ndarray
    slice_parts: np.ndarray
    pred: np.ndarray
    label: np.ndarray | None
    selected: np.ndarray | None
    task: str
    # --score (binary): each row's score, and the report's calibration scale
    # (scores.score_scale, decided once over the whole report)
    score: np.ndarray | None = None
    score_scale: dict[str, Any] | None = None
    # --weight: each row's sample weight (finite, >= 0); every metric is then weighted
    weight: np.ndarray | None = None


def fairlearn_available() -> bool:
    return importlib.util.find_spec("fairlearn") is not None


def run_engine(name: str, data: SliceInput) -> dict[str, np.ndarray]:
    if name == "pandas":
        return pandas_engine(data)
    if name == "fairlearn":
        return fairlearn_engine(data)
    raise ValueError(f"unknown engine {name!r}")


def pandas_engine(data: SliceInput) -> dict[str, np.ndarray]:
    """Vectorised engine: sufficient statistics by ``np.bincount``, then the shared
    metric formulas of :mod:`faircode.monitor.counts` (no per-row Python)."""
    counts = counts_from_rows(
        data.codes, data.n_slices, data.pred, data.label, data.selected, data.task, data.weight
    )
    out = metrics_from_counts(counts, data.task)
    out.update(_score_table_metrics(data))
    return out


def _score_table_metrics(data: SliceInput) -> dict[str, Any]:
    """AUC, Brier, ECE and the reliability bins from the score table (SPEC 12.4);
    nothing without ``--score`` and labels."""
    if data.score is None or data.label is None or data.score_scale is None:
        return {}
    table = table_from_rows(data.codes, data.score, data.label, data.weight)
    return score_metrics(table, data.n_slices, data.score_scale)


def _by_group(
    metrics: dict[str, Callable[..., Any]],
    y_true: np.ndarray,
    y_pred: np.ndarray,
    parts: np.ndarray,
    slice_index: dict[tuple[int, ...], int],
    n_slices: int,
    weight: np.ndarray | None = None,
    weighted: tuple[str, ...] = (),
) -> dict[str, np.ndarray]:
    """Run one MetricFrame and return its by-group table as arrays indexed by slice.

    The metrics named in ``weighted`` get ``weight`` as their ``sample_weight``
    (MetricFrame's ``sample_params``, split per group as the rows are)."""
    import pandas as pd  # lazy: start-up
    from fairlearn.metrics import MetricFrame  # lazy: optional extra 'fairness'

    out = {k: np.full(n_slices, np.nan) for k in metrics}
    if len(y_true) == 0:
        return out
    sf = pd.DataFrame({f"attr{i}": parts[:, i] for i in range(parts.shape[1])})
    params = None
    if weight is not None:
        params = {k: {"sample_weight": weight} for k in weighted if k in metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = MetricFrame(
            metrics=metrics,
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=sf,
            sample_params=params or None,
        )
        table = mf.by_group
    # With several sensitive features MetricFrame lists every combination, including
    # combinations with no rows (all-NaN); only combinations that are slices are kept.
    for key, row in zip(table.index, table.itertuples(index=False), strict=True):
        tkey = tuple(int(k) for k in key) if isinstance(key, tuple) else (int(key),)
        gi = slice_index.get(tkey)
        if gi is None:
            continue
        for name, value in zip(table.columns, row, strict=True):
            out[name][gi] = float(value)
    return out


def _guarded(f: Callable[..., Any]) -> Callable[..., float]:
    """A weighted metric that is undefined (NaN) when its rows' weights sum to 0."""

    def g(yt: np.ndarray, yp: np.ndarray, sample_weight: np.ndarray) -> float:
        if not np.sum(sample_weight) > 0:
            return np.nan
        return float(f(yt, yp, sample_weight=sample_weight))

    return g


def _weight_sum(
    select: Callable[[np.ndarray, np.ndarray], np.ndarray] | None, power: int
) -> Callable[..., float]:
    """sum of w (power 1) or w^2 (power 2) over the rows ``select(y_true, y_pred)`` picks
    (every row when None): the weighted sufficient statistics of SPEC 15.1."""

    def f(yt: np.ndarray, yp: np.ndarray, sample_weight: np.ndarray) -> float:
        w = np.asarray(sample_weight, dtype=float)
        w = w * w if power == 2 else w
        return float(np.sum(w if select is None else w[select(yt, yp)]))

    return f


def _weight_sums(
    keys: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray] | None],
) -> dict[str, Callable[..., float]]:
    """``w_<key>`` for every key, ``w2_<key>`` for the metrics' counts."""
    out = {f"w_{k}": _weight_sum(sel, 1) for k, sel in keys.items()}
    out.update({f"w2_{k}": _weight_sum(sel, 2) for k, sel in keys.items() if k in DENOMINATOR_KEYS})
    return out


def fairlearn_engine(data: SliceInput) -> dict[str, np.ndarray]:
    """Engine built on ``fairlearn.metrics.MetricFrame`` (imported only here)."""
    from fairlearn.metrics import (  # lazy: optional extra 'fairness'
        count,
        false_negative_rate,
        false_positive_rate,
        selection_rate,
        true_positive_rate,
    )
    from sklearn.metrics import (  # lazy: optional extra 'fairness'
        accuracy_score,
        mean_absolute_error,
        mean_squared_error,
        precision_score,
    )

    g = data.n_slices
    slice_index = {tuple(int(v) for v in row): i for i, row in enumerate(data.slice_parts)}

    def n_true_pos_pred(yt: np.ndarray, yp: np.ndarray) -> int:
        return int(np.sum(yp == 1))

    all_metrics: dict[str, Callable[..., Any]] = {"n": count}
    if data.selected is not None:
        all_metrics["selection_rate"] = selection_rate
        all_metrics["n_selected"] = n_true_pos_pred
        y_pred_all = data.selected.astype(np.int8)
    else:
        y_pred_all = np.zeros(len(data.codes), dtype=np.int8)
    w_all = data.weight
    weighted_all: tuple[str, ...] = ()
    if w_all is not None:  # --weight: the weighted rate and the sums of SPEC 15.1
        all_metrics["selection_rate"] = _guarded(selection_rate)
        sums = _weight_sums({"n": None, "n_selected": lambda yt, yp: yp == 1})
        if data.selected is None:
            del all_metrics["selection_rate"], sums["w_n_selected"]
        all_metrics.update(sums)
        weighted_all = ("selection_rate", *sums)
    # Selection rate needs no label, so this frame covers every prediction; y_true is a
    # placeholder that none of these metrics reads.
    out = _by_group(
        all_metrics,
        np.zeros(len(data.codes), dtype=np.int8),
        y_pred_all,
        data.parts,
        slice_index,
        g,
        w_all,
        weighted_all,
    )
    if data.label is None:
        return out

    lab = ~np.isnan(data.label)
    y = data.label[lab]
    p = data.pred[lab]
    parts = data.parts[lab]
    wl = None if w_all is None else w_all[lab]

    def n_label_pos(yt: np.ndarray, yp: np.ndarray) -> int:
        return int(np.sum(yt == 1))

    def n_label_neg(yt: np.ndarray, yp: np.ndarray) -> int:
        return int(np.sum(yt == 0))

    def n_tp(yt: np.ndarray, yp: np.ndarray) -> int:
        return int(np.sum((yt == 1) & (yp == 1)))

    def n_fp(yt: np.ndarray, yp: np.ndarray) -> int:
        return int(np.sum((yt == 0) & (yp == 1)))

    def n_correct(yt: np.ndarray, yp: np.ndarray) -> int:
        return int(np.sum(yt == yp))

    def tpr(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(true_positive_rate(yt, yp, pos_label=1))

    def fpr(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(false_positive_rate(yt, yp, pos_label=1))

    def precision(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(precision_score(yt, yp, labels=[0, 1], pos_label=1, zero_division=np.nan))

    def fnr(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(false_negative_rate(yt, yp, pos_label=1))

    def npv(yt: np.ndarray, yp: np.ndarray) -> float:
        # NPV is the precision of the negative class
        return float(precision_score(yt, yp, labels=[0, 1], pos_label=0, zero_division=np.nan))

    def rmse(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(np.sqrt(mean_squared_error(yt, yp)))

    def mean_prediction(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(np.mean(yp))

    def mean_label(yt: np.ndarray, yp: np.ndarray) -> float:
        return float(np.mean(yt))

    # Fairlearn / scikit-learn functions for the names of metrics.METRICS (and their
    # counts); the regression sums are not needed, the metrics come from Fairlearn.
    functions: dict[str, Callable[..., Any]] = {
        "n_labelled": count,
        "n_correct": n_correct,
        "accuracy": accuracy_score,
        "n_label_pos": n_label_pos,
        "n_tp": n_tp,
        "tpr": tpr,
        "n_label_neg": n_label_neg,
        "n_fp": n_fp,
        "fpr": fpr,
        "n_pred_pos_labelled": n_true_pos_pred,
        "precision": precision,
        "fnr": fnr,
        "npv": npv,
        "mae": mean_absolute_error,
        "rmse": rmse,
        "mean_prediction": mean_prediction,
        "mean_label": mean_label,
    }
    labelled = [m for m in metrics_of(data.task) if m.needs_label]
    metrics = {
        key: functions[key]
        for m in labelled
        for key in (m.denominator, m.numerator, m.name)
        if key in functions
    }
    weighted: tuple[str, ...] = ()
    if wl is not None:
        # --weight (SPEC 12.4): each rate and mean from Fairlearn / scikit-learn with
        # sample_weight, and the sums of weights the effective sizes come from
        if data.task == "binary":
            rates = {
                "accuracy": accuracy_score,
                "tpr": true_positive_rate,
                "fpr": false_positive_rate,
                "fnr": false_negative_rate,
            }
            for name, f in rates.items():
                metrics[name] = _guarded(f)
            # precision is the PPV of class 1; NPV is the same score for class 0
            for name, positive in (("precision", 1), ("npv", 0)):
                metrics[name] = _guarded(
                    lambda yt, yp, sample_weight, positive=positive: precision_score(
                        yt,
                        yp,
                        labels=[0, 1],
                        pos_label=positive,
                        zero_division=np.nan,
                        sample_weight=sample_weight,
                    )
                )
            sums = _weight_sums(
                {
                    "n_labelled": None,
                    "n_correct": lambda yt, yp: yt == yp,
                    "n_label_pos": lambda yt, yp: yt == 1,
                    "n_label_neg": lambda yt, yp: yt == 0,
                    "n_tp": lambda yt, yp: (yt == 1) & (yp == 1),
                    "n_fp": lambda yt, yp: (yt == 0) & (yp == 1),
                    "n_fn": lambda yt, yp: (yt == 1) & (yp == 0),
                    "n_tn": lambda yt, yp: (yt == 0) & (yp == 0),
                    "n_pred_pos_labelled": lambda yt, yp: yp == 1,
                    "n_pred_neg_labelled": lambda yt, yp: yp == 0,
                }
            )
            weighted = ("accuracy", "tpr", "fpr", "fnr", "precision", "npv", *sums)
        else:
            metrics["mae"] = _guarded(mean_absolute_error)
            metrics["rmse"] = _guarded(
                lambda yt, yp, sample_weight: np.sqrt(
                    mean_squared_error(yt, yp, sample_weight=sample_weight)
                )
            )
            metrics["mean_prediction"] = _guarded(
                lambda yt, yp, sample_weight: np.average(yp, weights=sample_weight)
            )
            metrics["mean_label"] = _guarded(
                lambda yt, yp, sample_weight: np.average(yt, weights=sample_weight)
            )
            sums = _weight_sums({"n_labelled": None})
            weighted = ("mae", "rmse", "mean_prediction", "mean_label", *sums)
        metrics.update(sums)
    if data.task == "binary":
        res = _by_group(
            metrics, y.astype(np.int8), p.astype(np.int8), parts, slice_index, g, wl, weighted
        )
        # MetricFrame's time grows with rows x functions (it converts every row per
        # function), so the counts FN, TN and predicted 0 are derived as the pandas engine
        # derives them, and FOR, FDR are the complements of scikit-learn's NPV and
        # precision (neither library has a function for them) rather than more functions.
        for key in res:
            if key.startswith(("n_", "w_", "w2_")):  # slices with no labelled rows are absent
                res[key] = np.nan_to_num(res[key], nan=0.0)
        for key, (total, part) in DERIVED_COUNTS.items():
            if key not in res and total in res and part in res:
                res[key] = res[total] - res[part]
        for name, of in COMPLEMENTS.items():
            if of in res:
                res[name] = 1.0 - res[of]
        # Fairlearn reports a rate of 0 for a slice with no positives (negatives); the
        # rate is undefined there, so it becomes null, never 0.
        # (with weights: no weight on them; the complements above keep the NaN)
        den = "w_" if wl is not None else ""
        for m in labelled:
            if m.wilson:
                res[m.name] = np.where(res[den + m.denominator] > 0, res[m.name], np.nan)
    else:
        res = _by_group(metrics, y, p, parts, slice_index, g, wl, weighted)
    for key in res:
        if key.startswith(("n_", "w_", "w2_")):  # slices with no labelled rows are absent
            res[key] = np.nan_to_num(res[key], nan=0.0)
    out.update(res)
    if data.score is not None and data.score_scale is not None:
        out.update(_fairlearn_scores(data, lab, y, parts, slice_index, g))
    return out


def _fairlearn_scores(
    data: SliceInput,
    lab: np.ndarray,
    y: np.ndarray,
    parts: np.ndarray,
    slice_index: dict[tuple[int, ...], int],
    g: int,
) -> dict[str, Any]:
    """AUC (scikit-learn's ``roc_auc_score``), Brier (``brier_score_loss``) and ECE per
    MetricFrame group; the counts and the reliability bins are the score table's."""
    from sklearn.metrics import brier_score_loss, roc_auc_score  # lazy: optional extra 'fairness'

    assert data.score is not None and data.score_scale is not None
    out = _score_table_metrics(data)
    score = data.score[lab]
    prob = scaled(score, data.score_scale)

    # --weight: each with sample_weight (rows weighing 0 count for nothing)
    wl = None if data.weight is None else data.weight[lab]
    names = ("auc", "brier", "ece") if wl is not None else ()

    def auc(yt: np.ndarray, yp: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        w = np.ones(len(yt)) if sample_weight is None else sample_weight
        if not (np.sum(w[yt == 1]) > 0 and np.sum(w[yt == 0]) > 0):
            return np.nan
        return float(roc_auc_score(yt, yp, sample_weight=sample_weight))

    res = _by_group({"auc": auc}, y.astype(np.int8), score, parts, slice_index, g, wl, names)
    out["auc"] = res["auc"]
    if prob is None:
        return out

    def brier(yt: np.ndarray, yp: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        if sample_weight is not None and not np.sum(sample_weight) > 0:
            return np.nan
        return float(brier_score_loss(yt, yp, pos_label=1, sample_weight=sample_weight))

    def ece(yt: np.ndarray, yp: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        b = bin_of(yp)
        total = 0.0
        if sample_weight is None:
            for k in np.unique(b):
                inside = b == k
                total += inside.sum() / len(yp) * abs(yt[inside].mean() - yp[inside].mean())
            return total
        w = np.asarray(sample_weight, dtype=float)
        if not np.sum(w) > 0:
            return np.nan
        for k in np.unique(b):
            inside = b == k
            wk = np.sum(w[inside])
            if wk > 0:
                wi = w[inside]
                gap = np.average(yt[inside], weights=wi) - np.average(yp[inside], weights=wi)
                total += wk / np.sum(w) * abs(gap)
        return total

    res = _by_group(
        {"brier": brier, "ece": ece}, y.astype(np.int8), prob, parts, slice_index, g, wl, names
    )
    out.update(res)
    return out
