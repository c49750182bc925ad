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

from .metrics import DERIVED_COUNTS, metrics_of
from .stats import effective as effective  # re-exported: its home was here
from .stats import weighted

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


#: With sample weights (``--weight``, SPEC 12.4): every count above also has its sum of
#: weights ``w_<count>`` (the derived counts too, summed from the rows rather than
#: subtracted, so a class whose rows all weigh 0 sums to exactly 0), every metric's
#: count (a denominator) its sum of squared weights ``w2_<count>`` (Kish's effective
#: size, SPEC 12.7), and every regression sum its weighted sum ``w_<sum>``. All additive.
WEIGHTED_COUNT_KEYS = (
    "n",
    "n_selected",
    "n_labelled",
    "n_correct",
    "n_label_pos",
    "n_label_neg",
    "n_tp",
    "n_fp",
    "n_fn",
    "n_tn",
    "n_pred_pos_labelled",
    "n_pred_neg_labelled",
)
#: The metrics' counts (denominators): these carry ``w2_`` sums as well.
DENOMINATOR_KEYS = (
    "n",
    "n_labelled",
    "n_label_pos",
    "n_label_neg",
    "n_pred_pos_labelled",
    "n_pred_neg_labelled",
)


def weighted_keys(task: str, selected: bool = True) -> tuple[str, ...]:
    """The sample-weight sums :func:`counts_from_rows` gives for ``task`` with labels
    (and, with ``selected``, a selection rate): what a weighted store keeps per cell and
    reads back for a report (SPEC 15.1)."""
    counts = ["n", *(["n_selected"] if selected else []), "n_labelled"]
    if task == "binary":
        counts += [k for k in WEIGHTED_COUNT_KEYS if k not in counts]
    else:
        counts += list(REGRESSION_SUM_KEYS[1:])
    keys = []
    for k in counts:
        keys.append(f"w_{k}")
        if k in DENOMINATOR_KEYS:
            keys.append(f"w2_{k}")
    return tuple(keys)


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
    weight: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Sufficient statistics per slice from scored rows (one ``np.bincount`` per count).

    ``selected`` is None when the model has no selection rate; ``label`` is None when no
    label column was given (NaN marks a row whose label has not arrived). ``weight``
    (each row's sample weight, finite and >= 0) adds the weighted sums of
    :data:`WEIGHTED_COUNT_KEYS` and :data:`DENOMINATOR_KEYS`.
    """
    g = n_slices
    out: dict[str, np.ndarray] = {"n": np.bincount(codes, minlength=g).astype(float)}
    # (key, rows' codes, rows' weights, indicator or summand): the weighted sums
    sums: list[tuple[str, np.ndarray, np.ndarray, np.ndarray | None]] = []
    w_all = weight
    if w_all is not None:
        sums.append(("n", codes, w_all, None))
    if selected is not None:
        out["n_selected"] = np.bincount(codes, weights=selected, minlength=g)
        if w_all is not None:
            sums.append(("n_selected", codes, w_all, selected))
    if label is not None:
        lab = ~np.isnan(label)
        lc = codes[lab]
        y = label[lab]
        p = pred[lab]
        wl = None if w_all is None else w_all[lab]
        out["n_labelled"] = np.bincount(lc, minlength=g).astype(float)
        if task == "binary":
            ypos = y == 1
            ppos = p == 1
            out["n_correct"] = np.bincount(lc, weights=(p == y), minlength=g)
            out["n_label_pos"] = np.bincount(lc, weights=ypos, minlength=g)
            out["n_tp"] = np.bincount(lc, weights=ypos & ppos, minlength=g)
            out["n_fp"] = np.bincount(lc, weights=~ypos & ppos, minlength=g)
            out["n_pred_pos_labelled"] = np.bincount(lc, weights=ppos, minlength=g)
            if wl is not None:
                sums += [
                    ("n_labelled", lc, wl, None),
                    ("n_correct", lc, wl, p == y),
                    ("n_label_pos", lc, wl, ypos),
                    ("n_label_neg", lc, wl, ~ypos),
                    ("n_tp", lc, wl, ypos & ppos),
                    ("n_fp", lc, wl, ~ypos & ppos),
                    ("n_fn", lc, wl, ypos & ~ppos),
                    ("n_tn", lc, wl, ~ypos & ~ppos),
                    ("n_pred_pos_labelled", lc, wl, ppos),
                    ("n_pred_neg_labelled", lc, wl, ~ppos),
                ]
        else:
            err = p - y
            out["sum_abs_error"] = np.bincount(lc, weights=np.abs(err), minlength=g)
            out["sum_sq_error"] = np.bincount(lc, weights=err * err, minlength=g)
            out["sum_pred_labelled"] = np.bincount(lc, weights=p, minlength=g)
            out["sum_label"] = np.bincount(lc, weights=y, minlength=g)
            if wl is not None:
                sums += [
                    ("n_labelled", lc, wl, None),
                    ("sum_abs_error", lc, wl, np.abs(err)),
                    ("sum_sq_error", lc, wl, err * err),
                    ("sum_pred_labelled", lc, wl, p),
                    ("sum_label", lc, wl, y),
                ]
    for key, c, w, part in sums:
        ww = w if part is None else w * part
        out[f"w_{key}"] = np.bincount(c, weights=ww, minlength=g)
        if key in DENOMINATOR_KEYS:
            w2 = w * w if part is None else w * w * part
            out[f"w2_{key}"] = np.bincount(c, weights=w2, minlength=g)
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
    out = {k: np.asarray(v, dtype=float) for k, v in counts.items()}
    labelled = "n_labelled" in out
    if labelled:
        for key, (total, part) in DERIVED_COUNTS.items():
            if total in out and part in out:
                out[key] = out[total] - out[part]
    # with sample weights every metric is the weighted one: sum w*x / sum w (SPEC 12.4)
    prefix = "w_" if weighted(out) else ""
    for m in metrics_of(task):
        if m.formula == "score" or (m.needs_label and not labelled) or m.numerator not in out:
            continue
        value = _div(out[prefix + m.numerator], out[prefix + m.denominator])
        out[m.name] = np.sqrt(value) if m.formula == "sqrt_ratio" else value
    return out
