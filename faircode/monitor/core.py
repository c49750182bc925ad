"""``evaluate``: per-slice metrics, disparities and the gate verdict for one model."""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..labels import label_of
from .engines import SliceInput, fairlearn_available, run_engine
from .io import MonitorInputError, check_columns, read_table
from .stats import COMPARE_DECIMALS, Z95, exceeds, round12, wilson_arrays

FORMAT_VERSION = 1
TASKS = ("binary", "regression")
MISSING_LABEL = "(missing)"

# metric -> (successes key or None, count key, needs label, is a rate with a Wilson interval)
BINARY_METRICS: dict[str, tuple[str | None, str, bool]] = {
    "accuracy": ("n_correct", "n_labelled", True),
    "selection_rate": ("n_selected", "n", False),
    "tpr": ("n_tp", "n_label_pos", True),
    "fpr": ("n_fp", "n_label_neg", True),
    "precision": ("n_tp", "n_pred_pos_labelled", True),
}
REGRESSION_METRICS: dict[str, tuple[str | None, str, bool]] = {
    "mae": (None, "n_labelled", True),
    "rmse": (None, "n_labelled", True),
    "mean_prediction": (None, "n_labelled", True),
    "mean_label": (None, "n_labelled", True),
    "selection_rate": ("n_selected", "n", False),
}


def _native(value: Any) -> Any:
    """A JSON-friendly Python scalar for a slice value (None for missing)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return value if math.isfinite(value) else str(value)
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return str(value)


def _display(value: Any) -> str:
    return MISSING_LABEL if value is None else str(value)


# An attribute with more distinct values than this is an identifier, not a group
# attribute (SPEC 12.3); --intersect takes at most this many attributes, and a report
# holds at most this many slices over all its slicings.
MAX_SLICES_PER_ATTRIBUTE = 1_000
MAX_INTERSECT_ATTRIBUTES = 6
MAX_TOTAL_SLICES = 50_000


_NOT_SCALAR = (list, dict, tuple, set, np.ndarray)


def _not_scalar(name: str, source: str, row: int, value: Any) -> MonitorInputError:
    return MonitorInputError(
        f"{source}: row {row + 1}: attribute column {name!r} holds a "
        f"{type(value).__name__}, not a single value; slice by a column of plain values"
    )


def _typed(v: Any, name: str, source: str, row: int) -> Any:
    """A mixed column's cell keyed by its type (None for missing)."""
    if isinstance(v, _NOT_SCALAR):
        raise _not_scalar(name, source, row, v)
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and math.isnan(v)):
        return None
    return (type(v).__name__, v)


class _Attribute:
    """One attribute column factorised to sorted codes (missing values last).

    Cells follow SPEC 12.1: a string is a label (trimmed; a missing token is missing),
    a null is missing, other values keep their type. The rule is applied to the
    distinct values only (one pass of pd.factorize over the rows)."""

    def __init__(self, name: str, column: pd.Series, source: str = "data") -> None:
        mixed = column.dtype == object and pd.api.types.infer_dtype(
            column, skipna=True).startswith("mixed")
        if mixed:  # True, 1 and 1.0 are equal in Python but different labels (SPEC 0.4)
            column = pd.Series([_typed(v, name, source, i) for i, v in
                                enumerate(column.tolist())], dtype=object)
        try:
            codes, uniques = pd.factorize(column, use_na_sentinel=True)
        except TypeError:  # unhashable cells (lists, dicts): name the first one's row
            for i, v in enumerate(column.tolist()):
                if isinstance(v, _NOT_SCALAR):
                    raise _not_scalar(name, source, i, v) from None
            raise
        codes = np.asarray(codes, dtype=np.int64)
        index: dict[Any, int] = {}
        remap = np.full(len(uniques) + 1, -1, dtype=np.int64)  # last slot: missing (-1)
        for i, u in enumerate(uniques):
            if mixed:
                u = u[1]
            if isinstance(u, _NOT_SCALAR):
                raise _not_scalar(name, source, int(np.flatnonzero(codes == i)[0]), u)
            v = _native(label_of(u) if isinstance(u, str) else u)
            if v is not None:
                remap[i] = index.setdefault((type(v), v), len(index))
        codes = remap[codes]  # -1 indexes the last slot: missing stays -1
        values = [v for _, v in index]
        if len(values) > MAX_SLICES_PER_ATTRIBUTE:
            raise MonitorInputError(
                f"{source}: attribute column {name!r} has {len(values):,} distinct values "
                f"(at most {MAX_SLICES_PER_ATTRIBUTE:,}); it looks like an identifier, not a "
                "group: bucket it into fewer values or slice by a coarser column"
            )
        try:
            order = sorted(range(len(values)), key=lambda i: values[i])
        except TypeError:  # mixed types: order by type name, then text
            order = sorted(
                range(len(values)), key=lambda i: (type(values[i]).__name__, str(values[i]))
            )
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values), dtype=np.int64)
        missing = codes < 0
        self.name = name
        self.values: list[Any] = [values[i] for i in order]
        if missing.any():
            self.values.append(None)
        if not len(order):  # no value at all: every row is in the missing slice
            self.codes = np.zeros(len(codes), dtype=np.int64)
            return
        self.codes = np.where(missing, len(order), rank[np.where(missing, 0, codes)])


# predictions, scores and labels beyond this magnitude are refused: their squares (RMSE)
# would overflow a double
MAX_MAGNITUDE = 1e100
_BOOL_TEXT = {"True": 1.0, "true": 1.0, "TRUE": 1.0, "False": 0.0, "false": 0.0, "FALSE": 0.0}


def _number_cell(v: Any) -> Any:
    """A text cell of a numeric column: trimmed, a missing token is missing, a boolean
    word is 0/1; lists and objects are left for the not-numeric error."""
    if isinstance(v, str):
        t = label_of(v)
        if t is None:
            return None
        return _BOOL_TEXT.get(t, t)
    if isinstance(v, bool):
        return float(v)
    return v


def _not_numeric(source: str, role: str, column: str, example: Any) -> MonitorInputError:
    return MonitorInputError(
        f"{source}: {role} column {column!r} is not numeric (found {example!r}); "
        f"give {role}s as numbers (0/1 for a binary model)"
    )


def _numeric(series: pd.Series, column: str, role: str, source: str) -> np.ndarray:
    """Float array of ``series`` (NaN for missing), or a one-line error naming a bad value."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.astype("float64").to_numpy()
    if pd.api.types.is_numeric_dtype(series.dtype):
        values = series.astype("float64").to_numpy(na_value=np.nan)
    else:
        # the text rules per distinct value (a 0/1 column has two), then indexed by row
        try:
            codes, uniques = pd.factorize(series, use_na_sentinel=True)
        except TypeError:  # unhashable cells (lists, dicts)
            example = next(v for v in series.tolist() if isinstance(v, _NOT_SCALAR))
            raise _not_numeric(source, role, column, example) from None
        cells = pd.Series([_number_cell(u) for u in uniques], dtype=object)
        try:
            converted = pd.to_numeric(cells, errors="coerce")
        except TypeError:
            converted = pd.Series(np.nan, index=cells.index)
        bad = converted.isna() & cells.notna()
        if bad.any():
            raise _not_numeric(source, role, column, uniques[int(np.flatnonzero(bad)[0])])
        table = np.append(converted.astype("float64").to_numpy(na_value=np.nan), np.nan)
        values = table[np.asarray(codes, dtype=np.int64)]  # -1 (missing) -> the NaN slot
    if np.isinf(values).any():
        raise MonitorInputError(
            f"{source}: {role} column {column!r} contains infinite values; remove them"
        )
    with np.errstate(invalid="ignore"):
        huge = np.abs(values) > MAX_MAGNITUDE
    if huge.any():
        raise MonitorInputError(
            f"{source}: {role} column {column!r} has a value beyond +-1e100 "
            f"({_fmt_num(values[huge][0])}); squared errors would overflow, rescale it"
        )
    return values


# Fairlearn's MetricFrame costs about 200x the pandas engine at 10M rows (see
# benchmarks/README-monitor.md), so "auto" uses it only up to this many rows.
AUTO_FAIRLEARN_MAX_ROWS = 200_000


def _resolve_engine(engine: str, n_rows: int = 0) -> str:
    if engine == "auto":
        use = fairlearn_available() and n_rows <= AUTO_FAIRLEARN_MAX_ROWS
        return "fairlearn" if use else "pandas"
    if engine == "fairlearn" and not fairlearn_available():
        raise MonitorInputError(
            "engine 'fairlearn' needs the fairlearn package; "
            "install it with: pip install 'faircode[fairness]'"
        )
    if engine not in ("pandas", "fairlearn"):
        raise MonitorInputError(f"unknown engine {engine!r}; use auto, pandas or fairlearn")
    return engine


def _fmt_num(x: float) -> str:
    return f"{x:g}"


def _check_settings(attrs: list[str], threshold: float, min_samples: int, task: str | None) -> None:
    if not attrs:
        raise MonitorInputError("at least one attribute is needed; pass --attr COL")
    if len(set(attrs)) != len(attrs):
        raise MonitorInputError("an attribute is given twice; pass each --attr once")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise MonitorInputError("threshold must be a number, e.g. --threshold 0.1")
    if not math.isfinite(threshold) or threshold < 0:
        raise MonitorInputError(f"threshold must be a finite number >= 0, got {threshold}")
    if isinstance(min_samples, bool) or not isinstance(min_samples, int) or min_samples < 0:
        raise MonitorInputError(f"min-samples must be a whole number >= 0, got {min_samples}")
    if task is not None and task not in TASKS:
        raise MonitorInputError(f"unknown task {task!r}; use binary or regression")


def evaluate(
    data: pd.DataFrame | str | Path,
    pred: str | None,
    attrs: list[str] | tuple[str, ...] | str,
    label: str | None = None,
    score: str | None = None,
    decision_threshold: float | None = None,
    task: str | None = None,
    threshold: float = 0.1,
    min_samples: int = 30,
    intersect: bool = False,
    engine: str = "auto",
) -> dict[str, Any]:
    """Evaluate a model's predictions per slice and return the report (see schema.json).

    ``data`` is a DataFrame or a path to a CSV, Parquet or JSON lines file. Give either
    ``pred`` (a prediction column) or ``score`` with ``decision_threshold`` (prediction =
    ``score >= decision_threshold``). Rows whose label is missing are predictions
    awaiting a label. Raises :class:`MonitorInputError` for bad input.
    """
    attr_list = [attrs] if isinstance(attrs, str) else list(attrs)
    _check_settings(attr_list, threshold, min_samples, task)
    if pred is None and score is None:
        raise MonitorInputError("no predictions given; pass --pred COL or --score COL")
    if pred is not None and score is not None:
        raise MonitorInputError(
            "--pred and --score both given; pass --pred for a prediction column, or "
            "--score with --decision-threshold to derive predictions"
        )
    if score is not None and decision_threshold is None:
        raise MonitorInputError("--score needs --decision-threshold T (prediction = score >= T)")
    if decision_threshold is not None and (
        isinstance(decision_threshold, bool)
        or not isinstance(decision_threshold, int | float)
        or not math.isfinite(decision_threshold)
    ):
        raise MonitorInputError(
            f"decision threshold must be a finite number, got {decision_threshold!r}"
        )
    if score is not None and task == "regression":
        raise MonitorInputError(
            "--score derives binary predictions; for a regression model pass --pred COL "
            "(and --decision-threshold T for a selection rate)"
        )
    _resolve_engine(engine)  # reject a bad engine name before reading anything

    required: dict[str, str] = {}
    for col in attr_list:
        required.setdefault(col, "--attr")
    if label is not None:
        required.setdefault(label, "--label")
    if score is not None:
        required.setdefault(score, "--score")
    if pred is not None:
        required.setdefault(pred, "--pred")
    if isinstance(data, pd.DataFrame):
        source = "data"
        source_path = None
        check_columns(data.columns, required, source)
        frame = data
    else:
        source = str(data)
        source_path = source
        frame = read_table(data, required)
    engine_used = _resolve_engine(engine, len(frame))
    if len(frame) == 0:
        raise MonitorInputError(f"{source}: no data rows; the file has a header only")

    # predictions
    if score is not None:
        assert decision_threshold is not None
        raw = _numeric(frame[score], score, "score", source)
        has_pred = ~np.isnan(raw)
        pred_values = (raw >= decision_threshold).astype("float64")
        pred_name = f"{score} >= {_fmt_num(decision_threshold)}"
    else:
        assert pred is not None
        pred_values = _numeric(frame[pred], pred, "prediction", source)
        has_pred = ~np.isnan(pred_values)
        pred_name = pred
    total_rows = len(frame)
    n_scored = int(has_pred.sum())
    if n_scored == 0:
        col = score if score is not None else pred
        raise MonitorInputError(
            f"{source}: column {col!r} has no values; every row is missing its prediction"
        )
    keep = has_pred if n_scored < total_rows else None
    pred_values = pred_values[keep] if keep is not None else pred_values
    label_values: np.ndarray | None = None
    if label is not None:
        label_values = _numeric(frame[label], label, "label", source)
        if keep is not None:
            label_values = label_values[keep]

    # task: once per model, from every scored row, never per slice
    if task is not None:
        task_info = {"type": task, "source": "given", "reason": "given with --task"}
    elif score is not None:
        task_info = {
            "type": "binary",
            "source": "inferred",
            "reason": "predictions are derived from a score and a decision threshold",
        }
    elif np.isin(pred_values, (0.0, 1.0)).all():
        task_info = {
            "type": "binary",
            "source": "inferred",
            "reason": f"every prediction in {pred!r} is 0 or 1",
        }
    else:
        task_info = {
            "type": "regression",
            "source": "inferred",
            "reason": f"predictions in {pred!r} take values other than 0 and 1",
        }
    task_type = task_info["type"]
    how = "given" if task_info["source"] == "given" else "inferred from the predictions"
    if task_type == "binary":
        if not np.isin(pred_values, (0.0, 1.0)).all():
            bad = pred_values[~np.isin(pred_values, (0.0, 1.0))][0]
            raise MonitorInputError(
                f"{source}: prediction column {pred!r} has a value other than 0/1 "
                f"({_fmt_num(bad)}) in a binary task; use --score {pred} "
                "--decision-threshold T, or --task regression"
            )
        if decision_threshold is not None and score is None:
            raise MonitorInputError(
                "--decision-threshold with a 0/1 prediction column has no effect; drop it, "
                "use --score COL instead of --pred, or pass --task regression"
            )
        if label_values is not None:
            lab = label_values[~np.isnan(label_values)]
            bad_mask = ~np.isin(lab, (0.0, 1.0))
            if bad_mask.any():
                raise MonitorInputError(
                    f"{source}: label column {label!r} has a value other than 0/1 "
                    f"({_fmt_num(lab[bad_mask][0])}) but the task is binary ({how}); "
                    "encode the label as 0/1, or pass --task regression"
                )
        selected = pred_values == 1.0
    else:
        if label_values is None and decision_threshold is None:
            raise MonitorInputError(
                "a regression model needs --label COL (for MAE) or --decision-threshold T "
                "(for a selection rate); nothing can be measured otherwise"
            )
        selected = pred_values >= decision_threshold if decision_threshold is not None else None

    n_labelled = int((~np.isnan(label_values)).sum()) if label_values is not None else 0
    if intersect and len(attr_list) > MAX_INTERSECT_ATTRIBUTES:
        n = len(attr_list)
        raise MonitorInputError(
            f"--intersect with {n} attributes would make {2**n - n - 1:,} combined "
            f"slicings; intersect at most {MAX_INTERSECT_ATTRIBUTES} attributes "
            f"({2**MAX_INTERSECT_ATTRIBUTES - MAX_INTERSECT_ATTRIBUTES - 1} slicings)"
        )
    attributes = [_Attribute(a, frame[a], source) for a in attr_list]
    if keep is not None:
        for at in attributes:
            at.codes = at.codes[keep]

    slicings: list[list[_Attribute]] = [[a] for a in attributes]
    if intersect:
        for size in range(2, len(attributes) + 1):
            slicings.extend(list(c) for c in combinations(attributes, size))

    budget = [MAX_TOTAL_SLICES]
    groups = [
        _evaluate_group(
            ats,
            pred_values,
            label_values,
            selected,
            task_type,
            engine_used,
            threshold,
            min_samples,
            budget,
        )
        for ats in slicings
    ]

    return assemble_report(
        source=source_path,
        engine=engine_used,
        task_info=task_info,
        columns={
            "prediction": pred,
            "label": label,
            "score": score,
            "attributes": attr_list,
        },
        prediction=pred_name,
        decision_threshold=decision_threshold,
        threshold=threshold,
        min_samples=min_samples,
        intersect=intersect,
        rows={
            "total": total_rows,
            "without_prediction": total_rows - n_scored,
            "scored": n_scored,
            "labelled": n_labelled,
            "awaiting_label": n_scored - n_labelled if label is not None else n_scored,
        },
        groups=groups,
    )


def assemble_report(
    *,
    source: str | None,
    engine: str,
    task_info: dict[str, Any],
    columns: dict[str, Any],
    prediction: str,
    decision_threshold: float | None,
    threshold: float,
    min_samples: int,
    intersect: bool,
    rows: dict[str, int],
    groups: list[dict[str, Any]],
) -> dict[str, Any]:
    """The report (schema.json) around already evaluated ``groups``; shared with the store."""
    failures = [
        {"group": g["name"], "metric": d["metric"], "value": d["value"], "threshold": threshold}
        for g in groups
        for d in g["disparities"]
        if d["status"] == "exceeded"
    ]
    unmeasured = [
        {"group": g["name"], "metric": d["metric"], "reason": d["reason"]}
        for g in groups
        for d in g["disparities"]
        if d["gated"] and d["status"] == "unmeasured"
    ]
    status = "exceeded" if failures else ("unmeasured" if unmeasured else "within_threshold")
    return {
        "kind": "faircode.fairness.evaluate",
        "format_version": FORMAT_VERSION,
        "source": source,
        "engine": engine,
        "task": task_info,
        "columns": columns,
        "prediction": prediction,
        "decision_threshold": decision_threshold,
        "decision_rule": None if decision_threshold is None else "value >= decision_threshold",
        "settings": {
            "threshold": threshold,
            "min_samples": min_samples,
            "intersect": intersect,
            "z": Z95,
            "exceed_rule": (
                f"floor(value*1e{COMPARE_DECIMALS}+0.5) > floor(threshold*1e{COMPARE_DECIMALS}+0.5)"
            ),
        },
        "rows": rows,
        "groups": groups,
        "status": status,
        "disparity_exceeded": bool(failures),
        "failures": failures,
        "unmeasured": unmeasured,
    }


def _slices_of(ats: list[_Attribute]) -> tuple[np.ndarray, np.ndarray]:
    """Compact slice codes per row and the per-attribute codes of each slice."""
    if len(ats) == 1:
        at = ats[0]
        n = len(at.values)
        counts = np.bincount(at.codes, minlength=n)
        present = np.flatnonzero(counts)
        if len(present) == n:
            return at.codes, np.arange(n, dtype=np.int64)[:, None]
        remap = np.full(n, -1, dtype=np.int64)
        remap[present] = np.arange(len(present))
        return remap[at.codes], present[:, None]
    sizes = [len(a.values) for a in ats]
    if math.prod(sizes) >= 2**62:
        raise MonitorInputError("too many attribute combinations to intersect")
    combined = np.zeros(len(ats[0].codes), dtype=np.int64)
    for a, size in zip(ats, sizes, strict=True):
        combined = combined * size + a.codes
    uniq, codes = np.unique(combined, return_inverse=True)
    parts = np.empty((len(uniq), len(ats)), dtype=np.int64)
    rest = uniq.copy()
    for i in range(len(ats) - 1, -1, -1):
        parts[:, i] = rest % sizes[i]
        rest //= sizes[i]
    return codes.astype(np.int64).ravel(), parts


def _evaluate_group(
    ats: list[_Attribute],
    pred: np.ndarray,
    label: np.ndarray | None,
    selected: np.ndarray | None,
    task: str,
    engine: str,
    threshold: float,
    min_samples: int,
    budget: list[int] | None = None,
) -> dict[str, Any]:
    codes, slice_parts = _slices_of(ats)
    if budget is not None:
        budget[0] -= len(slice_parts)
        if budget[0] < 0:
            raise MonitorInputError(
                f"slicing {' x '.join(a.name for a in ats)!r} brings the report above "
                f"{MAX_TOTAL_SLICES:,} slices; intersect fewer or coarser attributes"
            )
    row_parts = np.column_stack([a.codes for a in ats])
    stats = run_engine(
        engine,
        SliceInput(
            codes=codes,
            n_slices=len(slice_parts),
            parts=row_parts,
            slice_parts=slice_parts,
            pred=pred,
            label=label,
            selected=None if selected is None else selected.astype("float64"),
            task=task,
        ),
    )
    return assemble_group(
        ats, slice_parts, stats, task, label is not None, selected is not None, threshold,
        min_samples,
    )


def assemble_group(
    ats: list[Any],
    slice_parts: np.ndarray,
    stats: dict[str, np.ndarray],
    task: str,
    has_label: bool,
    has_selection: bool,
    threshold: float,
    min_samples: int,
) -> dict[str, Any]:
    """One slicing of the report from its per-slice engine result (counts and metrics).

    ``ats`` are the slicing's attributes (each with ``name`` and sorted ``values``) and
    ``slice_parts`` the per-attribute value index of each slice.
    """
    slices = build_slices(ats, slice_parts, stats, task, min_samples)
    names = [a.name for a in ats]
    disparities = build_disparities(slices, task, has_label, has_selection, threshold)
    gated = [d for d in disparities if d["gated"]]
    if any(d["status"] == "exceeded" for d in gated):
        status = "exceeded"
    elif any(d["status"] == "unmeasured" for d in gated):
        status = "unmeasured"
    else:
        status = "within_threshold"
    return {
        "name": " x ".join(names),
        "attributes": names,
        "status": status,
        "disparity_exceeded": status == "exceeded",
        "slices": slices,
        "disparities": disparities,
    }


def _num(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def build_slices(
    ats: list[_Attribute],
    slice_parts: np.ndarray,
    stats: dict[str, np.ndarray],
    task: str,
    min_samples: int,
) -> list[dict[str, Any]]:
    specs = BINARY_METRICS if task == "binary" else REGRESSION_METRICS
    present = {m: spec for m, spec in specs.items() if m in stats}
    bounds = {
        m: wilson_arrays(stats[succ], stats[cnt])
        for m, (succ, cnt, _) in present.items()
        if succ is not None
    }
    out = []
    for gi, row in enumerate(slice_parts):
        key = {a.name: a.values[int(c)] for a, c in zip(ats, row, strict=True)}
        if len(ats) == 1:
            text = _display(next(iter(key.values())))
        else:
            text = ", ".join(f"{k}={_display(v)}" for k, v in key.items())
        metrics: dict[str, Any] = {}
        low_n = []
        for m, (succ, cnt, _needs_label) in present.items():
            count = int(stats[cnt][gi])
            entry: dict[str, Any] = {
                "value": _num(stats[m][gi]),
                "count": count,
                "low_n": count < min_samples,
            }
            if succ is not None:
                entry["successes"] = int(stats[succ][gi])
                lo, hi = bounds[m][0][gi], bounds[m][1][gi]
                entry["ci95"] = None if np.isnan(lo) else [float(lo), float(hi)]
            if entry["low_n"]:
                low_n.append(m)
            metrics[m] = entry
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
    return out


def _range(
    slices: list[dict[str, Any]], metric: str
) -> tuple[dict[str, Any] | None, list[dict[str, str]], int]:
    """Max-min of ``metric`` over eligible slices; also the excluded slices and eligible count."""
    eligible = []
    excluded = []
    for s in slices:
        m = s["metrics"][metric]
        if m["value"] is None:
            excluded.append({"slice": s["slice"], "reason": "undefined"})
        elif m["low_n"]:
            excluded.append({"slice": s["slice"], "reason": "low-n"})
        else:
            eligible.append((m["value"], s["slice"]))
    if len(eligible) < 2:
        return None, excluded, len(eligible)
    hi = max(eligible, key=lambda t: t[0])
    lo = min(eligible, key=lambda t: t[0])
    spread = {
        "value": hi[0] - lo[0],
        "max": {"slice": hi[1], "value": hi[0]},
        "min": {"slice": lo[1], "value": lo[0]},
    }
    return spread, excluded, len(eligible)


def _unmeasured_reason(metric: str, n_eligible: int, excluded: list[dict[str, str]]) -> str:
    low = sum(e["reason"] == "low-n" for e in excluded)
    undef = sum(e["reason"] == "undefined" for e in excluded)
    parts = []
    if low:
        parts.append(f"{low} low-n")
    if undef:
        parts.append(f"{undef} undefined")
    extra = f" ({', '.join(parts)})" if parts else ""
    return f"{n_eligible} eligible slice(s) for {metric}, need 2{extra}"


def _disparity(
    metric: str,
    based_on: list[str],
    spread: dict[str, Any] | None,
    excluded: list[dict[str, str]],
    n_eligible: int,
    gated: bool,
    threshold: float,
    reason: str | None = None,
) -> dict[str, Any]:
    value = None if spread is None else spread["value"]
    if value is None:
        status = "unmeasured"
    elif not gated:
        status = "reported"
    else:
        status = "exceeded" if exceeds(value, threshold) else "ok"
    return {
        "metric": metric,
        "based_on": based_on,
        "value": value,
        "gated": gated,
        "threshold": threshold if gated else None,
        "status": status,
        "max": None if spread is None else spread["max"],
        "min": None if spread is None else spread["min"],
        "eligible_slices": n_eligible,
        "excluded_slices": excluded,
        "reason": reason if value is None else None,
    }


def build_disparities(
    slices: list[dict[str, Any]],
    task: str,
    has_label: bool,
    has_selection: bool,
    threshold: float,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if has_selection:
        spread, excl, k = _range(slices, "selection_rate")
        why = _unmeasured_reason("selection_rate", k, excl)
        out.append(
            _disparity(
                "demographic_parity_difference",
                ["selection_rate"],
                spread,
                excl,
                k,
                True,
                threshold,
                why,
            )
        )
        ratio = None
        if spread is not None:
            top, bottom = spread["max"]["value"], spread["min"]["value"]
            # every eligible slice selected at the same rate of 0: no slice is disadvantaged
            value = 1.0 if top == 0 else bottom / top
            ratio = {"value": value, "max": spread["max"], "min": spread["min"]}
        d = _disparity(
            "demographic_parity_ratio", ["selection_rate"], ratio, excl, k, False, threshold, why
        )
        d["four_fifths_rule"] = (
            None if ratio is None else ("pass" if round12(ratio["value"]) >= 0.8 else "fail")
        )
        out.append(d)
        out.append(
            _disparity(
                "selection_rate_range", ["selection_rate"], spread, excl, k, False, threshold, why
            )
        )
    if has_label and task == "binary":
        tpr, tpr_excl, tpr_k = _range(slices, "tpr")
        fpr, fpr_excl, fpr_k = _range(slices, "fpr")
        candidates = [s for s in (tpr, fpr) if s is not None]
        eo = max(candidates, key=lambda s: s["value"]) if candidates else None
        if eo is tpr and tpr is not None:
            eo_excl, eo_k = tpr_excl, tpr_k
        else:
            eo_excl, eo_k = fpr_excl, fpr_k
        why = (
            _unmeasured_reason("tpr", tpr_k, tpr_excl)
            + "; "
            + _unmeasured_reason("fpr", fpr_k, fpr_excl)
        )
        d = _disparity(
            "equalized_odds_difference", ["tpr", "fpr"], eo, eo_excl, eo_k, True, threshold, why
        )
        d["components"] = {
            "tpr_range": None if tpr is None else tpr["value"],
            "fpr_range": None if fpr is None else fpr["value"],
            "larger": None if eo is None else ("tpr_range" if eo is tpr else "fpr_range"),
        }
        out.append(d)
        spread, excl, k = _range(slices, "accuracy")
        out.append(
            _disparity(
                "accuracy_range",
                ["accuracy"],
                spread,
                excl,
                k,
                True,
                threshold,
                _unmeasured_reason("accuracy", k, excl),
            )
        )
    if has_label and task == "regression":
        spread, excl, k = _range(slices, "mae")
        out.append(
            _disparity(
                "mae_range",
                ["mae"],
                spread,
                excl,
                k,
                True,
                threshold,
                _unmeasured_reason("mae", k, excl),
            )
        )
    return out
