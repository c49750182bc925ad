"""Inputs: the settings of ``evaluate`` and the numeric prediction, score and label columns
(SPEC 12.1, 12.2), each checked with a one-line error naming the fix."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..labels import label_of
from ..options import FAIRNESS_ENGINES, advised, spelled
from .args import attr_once, is_number
from .engines import fairlearn_available
from .errors import MonitorInputError
from .metrics import TASKS

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


#: Complex numbers: numeric to pandas, never a prediction, score, label or weight.
COMPLEX = (complex, np.complexfloating)


def _not_real(source: str, role: str, column: str, values: Any) -> MonitorInputError:
    """The refusal of complex numbers, naming the first present one of ``values``: its
    imaginary part would be dropped without a word."""
    example = next((complex(v) for v in values if isinstance(v, COMPLEX) and v == v), None)
    return MonitorInputError(
        f"{source}: {role} column {column!r} holds complex numbers (found {example!r}); "
        f"give {role}s as real numbers"
    )


def _unhashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return True
    return False


def number_cells(
    series: pd.Series, column: str, role: str, source: str
) -> tuple[np.ndarray, np.ndarray]:
    """SPEC 12.1's numbers of a prediction, score, label or weight column, the one rule
    of ``evaluate`` and the store's ``log`` and ``label`` (15.3): (float64 per row, NaN
    where missing or not a number; which rows hold a present cell that is not a number).
    Text cells are trimmed, a missing token is missing, the words True/true/TRUE and
    False/false/FALSE are 1 and 0. Complex numbers are refused here, one line."""
    none = np.zeros(len(series), dtype=bool)
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.astype("float64").to_numpy(), none
    if pd.api.types.is_complex_dtype(series.dtype):
        raise _not_real(source, role, column, series.to_numpy())
    if pd.api.types.is_numeric_dtype(series.dtype):
        return series.astype("float64").to_numpy(na_value=np.nan), none
    # the text rules per distinct value (a 0/1 column has two), then indexed by row
    try:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists, dicts): never numbers
        listy = np.fromiter(map(_unhashable, series.tolist()), dtype=bool, count=len(series))
        values, bad = number_cells(series.where(~listy, None), column, role, source)
        return values, bad | listy
    cells = pd.Series([_number_cell(u) for u in uniques], dtype=object)
    try:
        converted = pd.to_numeric(cells, errors="coerce")
    except TypeError:
        converted = pd.Series(np.nan, index=cells.index)
    if pd.api.types.is_complex_dtype(converted.dtype):
        raise _not_real(source, role, column, uniques)
    at = np.asarray(codes, dtype=np.int64)  # -1 (missing) -> the last slot
    table = np.append(converted.astype("float64").to_numpy(na_value=np.nan), np.nan)
    unread = np.append((converted.isna() & cells.notna()).to_numpy(dtype=bool), False)
    return table[at], unread[at]


def _numeric(series: pd.Series, column: str, role: str, source: str) -> np.ndarray:
    """Float array of ``series`` (NaN for missing), or a one-line error naming a bad value."""
    values, bad = number_cells(series, column, role, source)
    if bad.any():
        raise _not_numeric(source, role, column, series.iloc[int(np.flatnonzero(bad)[0])])
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


def weights_of(series: pd.Series, column: str, source: str, scored: np.ndarray) -> np.ndarray:
    """The sample weights of ``--weight`` (SPEC 12.1): a float per row, each finite and
    >= 0 in every scored row (``scored``); else a one-line error naming the column, the
    first bad data row (1-based) and its value. A missing weight in a scored row is an
    error (0 leaves a row out); rows without a prediction are not read beyond the column
    being numeric."""
    rule = "weights must be finite numbers >= 0 (0 leaves a row out)"
    try:
        values = _numeric(series, column, "weight", source)
    except MonitorInputError:
        # locate the first bad cell (the error path only: one pass in Python)
        for i, cell in enumerate(series.tolist()):
            v = _number_cell(cell)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            if isinstance(v, COMPLEX):
                raise  # _numeric's refusal, which names the value
            try:
                x = float(v)
            except (TypeError, ValueError):
                raise MonitorInputError(
                    f"{source}: weight column {column!r} is not numeric: {cell!r} in data row "
                    f"{i + 1}; {rule}"
                ) from None
            if not math.isfinite(x) or abs(x) > MAX_MAGNITUDE:
                raise MonitorInputError(
                    f"{source}: weight column {column!r} has {_fmt_num(x)} in data row {i + 1}; "
                    f"{rule}, at most 1e100"
                ) from None
        raise
    with np.errstate(invalid="ignore"):
        bad = scored & (np.isnan(values) | (values < 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if np.isnan(values[i]):
            raise MonitorInputError(
                f"{source}: weight column {column!r} is missing in data row {i + 1}, which has "
                f"a prediction; give every scored row a weight ({rule})"
            )
        raise MonitorInputError(
            f"{source}: weight column {column!r} has a negative weight "
            f"({_fmt_num(values[i])}) in data row {i + 1}; {rule}"
        )
    return values


#: SPEC 12.2: a column of at most this many distinct integers, not all 0/1, holds class
#: labels (a multiclass model), which faircode does not evaluate as a regression.
MAX_CLASSES = 20
#: ... and every one of them between -1 and this (class ids are small; 1e90 is a quantity).
MAX_CLASS_ID = 1000


def class_labels(values: np.ndarray) -> list[float] | None:
    """The distinct values of ``values`` (NaN: missing) when they are class labels
    (SPEC 12.2: at most MAX_CLASSES distinct integers from -1 to MAX_CLASS_ID, not every
    one 0 or 1), else None."""
    v = values[~np.isnan(values)]
    if not len(v) or (v != np.floor(v)).any() or v.min() < -1 or v.max() > MAX_CLASS_ID:
        return None
    distinct = np.unique(v)
    if len(distinct) > MAX_CLASSES or np.isin(distinct, (0.0, 1.0)).all():
        return None
    return distinct.tolist()


def multiclass_fix() -> str:
    """What ``evaluate`` tells a user whose column holds class labels (SPEC 12.2), as the
    surface in use spells the arguments (SPEC 0.6)."""
    return (
        f"encode a binary outcome as 0/1 (or give {advised('--score', 'COL', quote=False)} "
        f"{advised('--decision-threshold', 'T', quote=False)}), or pass "
        f"{advised('--task', 'regression', cli='regression')} if the values are quantities"
    )


def multiclass_error(
    source: str,
    role: str,
    column: str,
    classes: list[float],
    why: str = "",
    fix: str | None = None,
) -> MonitorInputError:
    """The one line refusing class labels in an inferred task (SPEC 12.2); ``why`` follows
    the classes, ``fix`` says what to do (the store's report: the registry's ``task:``)."""
    shown = ", ".join(_fmt_num(c) for c in classes)
    return MonitorInputError(
        f"{source}: {role} column {column!r} has {len(classes)} classes ({shown}){why}; "
        f"faircode evaluates binary or regression models: {fix or multiclass_fix()}"
    )


def _resolve_engine(engine: str) -> str:
    if engine == "auto":  # options.FAIRNESS_ENGINE_HELP says why
        return "pandas"
    if engine == "fairlearn" and not fairlearn_available():
        raise MonitorInputError(
            "engine 'fairlearn' needs the fairlearn package; "
            "install it with: pip install 'faircode[fairness]'"
        )
    if engine not in ("pandas", "fairlearn"):
        named = ", ".join(FAIRNESS_ENGINES[:-1]) + f" or {FAIRNESS_ENGINES[-1]}"
        raise MonitorInputError(f"unknown engine {engine!r}; use {named}")
    return engine


def _fmt_num(x: float) -> str:
    return f"{x:g}"


def _check_settings(attrs: list[str], threshold: float, min_samples: int, task: str | None) -> None:
    if not attrs:
        raise MonitorInputError(
            f"at least one attribute is needed; pass {advised('--attr', 'COL', quote=False)}"
        )
    if len(set(attrs)) != len(attrs):
        raise MonitorInputError(f"an attribute is given twice; {attr_once()}")
    if not is_number(threshold):
        raise MonitorInputError(
            f"{spelled('--threshold')} must be a number, e.g. {advised('--threshold', 0.1)}"
        )
    if not math.isfinite(threshold) or threshold < 0:
        raise MonitorInputError(
            f"{spelled('--threshold')} must be a finite number >= 0, got {threshold}"
        )
    if not is_number(min_samples) or not isinstance(min_samples, int) or min_samples < 0:
        raise MonitorInputError(
            f"{spelled('--min-samples')} must be a whole number >= 0, got {min_samples}"
        )
    if task is not None and task not in TASKS:
        raise MonitorInputError(f"unknown task {task!r}; use binary or regression")
