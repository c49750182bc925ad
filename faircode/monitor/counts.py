"""Per-slice sufficient statistics, and every metric as a pure function of them.

A report needs, per slice, only a handful of additive counts and sums (SPEC 15.1):
``n``, ``n_selected``, ``n_labelled``, ``n_correct``, ``n_label_pos``, ``n_tp``,
``n_fp``, ``n_pred_pos_labelled`` for a binary model and ``n_labelled``,
``sum_abs_error``, ``sum_sq_error``, ``sum_pred_labelled``, ``sum_label`` for a
regression model. Because they are additive, any producer can supply them: numpy over
the rows of a file (:func:`counts_from_rows`), or a SQL ``GROUP BY`` in the prediction
store, whose partial sums are added up here (:func:`counts_from_cube`). Everything
after that point -- rates, Wilson intervals, guards, disparities -- is shared.
"""

from __future__ import annotations

import numpy as np

#: Counts over every scored row.
ALL_ROW_KEYS = ("n", "n_selected")
#: Counts over labelled rows of a binary model (``n_label_neg``, ``n_fn``, ``n_tn`` and
#: ``n_pred_neg_labelled`` are derived: metrics.DERIVED_COUNTS).
BINARY_COUNT_KEYS = (
    "n_labelled",
    "n_correct",
    "n_label_pos",
    "n_tp",
    "n_fp",
    "n_pred_pos_labelled",
)
#: Count and sums over labelled rows of a regression model.
REGRESSION_SUM_KEYS = (
    "n_labelled",
    "sum_abs_error",
    "sum_sq_error",
    "sum_pred_labelled",
    "sum_label",
)


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def counts_from_rows(
    codes: np.ndarray,
    n_slices: int,
    pred: np.ndarray,
    label: np.ndarray | None,
    selected: np.ndarray | None,
    task: str,
) -> dict[str, np.ndarray]:
    """Sufficient statistics per slice from scored rows (one ``np.bincount`` per count).

    ``selected`` is None when the model has no selection rate; ``label`` is None when no
    label column was given (NaN marks a row whose label has not arrived).
    """
    g = n_slices
    out: dict[str, np.ndarray] = {"n": np.bincount(codes, minlength=g).astype(float)}
    if selected is not None:
        out["n_selected"] = np.bincount(codes, weights=selected, minlength=g)
    if label is None:
        return out
    lab = ~np.isnan(label)
    lc = codes[lab]
    y = label[lab]
    p = pred[lab]
    out["n_labelled"] = np.bincount(lc, minlength=g).astype(float)
    if task == "binary":
        ypos = y == 1
        ppos = p == 1
        out["n_correct"] = np.bincount(lc, weights=(p == y), minlength=g)
        out["n_label_pos"] = np.bincount(lc, weights=ypos, minlength=g)
        out["n_tp"] = np.bincount(lc, weights=ypos & ppos, minlength=g)
        out["n_fp"] = np.bincount(lc, weights=~ypos & ppos, minlength=g)
        out["n_pred_pos_labelled"] = np.bincount(lc, weights=ppos, minlength=g)
    else:
        err = p - y
        out["sum_abs_error"] = np.bincount(lc, weights=np.abs(err), minlength=g)
        out["sum_sq_error"] = np.bincount(lc, weights=err * err, minlength=g)
        out["sum_pred_labelled"] = np.bincount(lc, weights=p, minlength=g)
        out["sum_label"] = np.bincount(lc, weights=y, minlength=g)
    return out


def counts_from_cube(
    codes: np.ndarray, n_slices: int, cube: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Add up partial statistics (one row per finer group, e.g. a ``GROUP BY`` row).

    ``codes`` maps each cube row to its slice; every key of ``cube`` is summed per slice.
    """
    return {
        key: np.bincount(codes, weights=np.asarray(values, dtype=float), minlength=n_slices)
        for key, values in cube.items()
    }


def metrics_from_counts(counts: dict[str, np.ndarray], task: str) -> dict[str, np.ndarray]:
    """The engine result (counts and metric arrays, NaN where undefined) from ``counts``.

    The formulas are those of :data:`faircode.monitor.metrics.METRICS`; which metrics
    exist follows from which counts are present: ``n_selected`` gives a selection rate,
    ``n_labelled`` the label metrics of ``task``.
    """
    from .metrics import DERIVED_COUNTS, metrics_of

    out = {k: np.asarray(v, dtype=float) for k, v in counts.items()}
    labelled = "n_labelled" in out
    if labelled:
        for key, (total, part) in DERIVED_COUNTS.items():
            if total in out and part in out:
                out[key] = out[total] - out[part]
    for m in metrics_of(task):
        if m.formula == "score" or (m.needs_label and not labelled) or m.numerator not in out:
            continue
        value = _div(out[m.numerator], out[m.denominator])
        out[m.name] = np.sqrt(value) if m.formula == "sqrt_ratio" else value
    return out
