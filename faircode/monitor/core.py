"""``evaluate``: per-slice metrics, disparities and the gate verdict for one model.

The orchestration only; by concern: :mod:`.assemble` (the settings, the task, the
slices and verdicts and the report, shared with the Spark engine), :mod:`.inputs`
(settings and numeric columns),
:mod:`.slices` (attributes and slicings), :mod:`.metrics` (the metric list and slice
entries), :mod:`.disparities` (the disparity list), :mod:`.engines` (per-slice counts).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from ..formats import is_polars_frame
from ..options import FAIRNESS_MIN_SAMPLES, FAIRNESS_THRESHOLD
from ..results import EvaluateResult
from .args import kind, path, plain_number
from .assemble import (
    FORMAT_VERSION,
    ModelFacts,
    _evaluate_group,
    _first,
    assemble_group,
    assemble_report,
    decide_task,
    prepare,
)
from .disparities import DISPARITIES, build_disparities
from .inputs import (
    MAX_MAGNITUDE,
    _fmt_num,
    _numeric,
    _resolve_engine,
    class_labels,
    weights_of,
)
from .intervals import ALPHA
from .io import MonitorInputError, frame_columns, read_table
from .metrics import METRICS, TASKS, build_slices
from .scores import score_scale
from .slices import (
    MAX_INTERSECT_ATTRIBUTES,
    MAX_SLICES_PER_ATTRIBUTE,
    MAX_TOTAL_SLICES,
    MISSING_LABEL,
    _Attribute,
    _native,
    _slices_of,
)

# re-exported: core stays the monitor's entry point (timeline, ingest, tests import these)
__all__ = [
    "DISPARITIES",
    "FORMAT_VERSION",
    "MAX_INTERSECT_ATTRIBUTES",
    "MAX_MAGNITUDE",
    "MAX_SLICES_PER_ATTRIBUTE",
    "MAX_TOTAL_SLICES",
    "METRICS",
    "MISSING_LABEL",
    "TASKS",
    "assemble_group",
    "assemble_report",
    "build_disparities",
    "build_slices",
    "evaluate",
    "_Attribute",
    "_native",
    "_slices_of",
]


#: What ``evaluate`` reads, as its refusal of anything else says.
SOURCES = (
    "a pandas or polars DataFrame, or the path (a str or os.PathLike) of a CSV, Parquet or "
    "JSON lines file"
)


def evaluate(
    data: pd.DataFrame | str | Path,
    pred: str | None,
    attrs: list[str] | tuple[str, ...] | str,
    label: str | None = None,
    score: str | None = None,
    decision_threshold: float | None = None,
    task: str | None = None,
    threshold: float = FAIRNESS_THRESHOLD,
    min_samples: int = FAIRNESS_MIN_SAMPLES,
    intersect: bool = False,
    engine: str = "auto",
    opener: Callable[[str, str], tuple[BinaryIO, bool]] | None = None,
    rule: str = "interval",
    alpha: float = ALPHA,
    overrides: dict[str, str] | None = None,
    opts: dict[str, Any] | None = None,
    ref_groups: dict[str, Any] | None = None,
    weight: str | None = None,
    encoding: str | None = None,
) -> dict[str, Any]:
    """Evaluate a model's predictions per slice and return the report (see schema.json).

    ``data`` is a DataFrame or a path to a CSV, Parquet or JSON lines file. Give either
    ``pred`` (a prediction column) or ``score`` with ``decision_threshold`` (prediction =
    ``score >= decision_threshold``). Rows whose label is missing are predictions
    awaiting a label. Raises :class:`MonitorInputError` for bad input. ``opener(path,
    label)`` opens a path instead of the reader's ``open_input`` (the MCP server's
    confined open, SPEC 11); the file is read from what it returns only. ``rule`` decides
    the gate (SPEC 12.7): ``interval`` (a disparity exceeds when its interval, after
    Holm's correction over the report at ``alpha``, lies above the threshold; is within
    when it lies at or below it; else the evidence is insufficient) or ``point`` (the
    value alone, the seed's rule).

    The attributes' groups are the profiler's (SPEC 12.3): ``overrides`` (column ->
    kind, ``profile``'s ``--map``) and ``opts`` (``na``, ``recode``, ``age_bands``,
    ``max_age``, as ``profile``'s options) apply to the ``attrs`` columns; an age
    column (by name or ``overrides``) is banded unless ``overrides`` gives it another
    kind.

    ``ref_groups`` ({attribute: value}, Aequitas' ``ref_groups_dict``) compares each
    slice of those attributes with a reference slice (SPEC 12.6): a value, ``"maj"``
    (the slice with the most rows) or ``"min"`` (per metric, the lowest eligible value).

    ``weight`` names a column of sample (survey) weights (SPEC 12.4): every rate is then
    sum of the weights of its successes / sum of the weights of its count, every mean a
    weighted mean, and each metric reports ``n_eff``, Kish's effective size ``(sum w)^2 /
    sum w^2``, at which its interval is computed and its low-n guard compares (12.5, 12.7).

    ``engine`` (SPEC 12.10): ``"auto"`` (the default) and ``"pandas"`` count with numpy,
    every rate a count ratio rounded once; ``"fairlearn"`` computes the metrics with
    Fairlearn's MetricFrame (the ``fairness`` extra), to cross-check; ``"spark"`` counts
    with Spark (the ``spark`` extra). The report's ``engine`` names the one used.
    """
    threshold, min_samples, alpha = map(plain_number, (threshold, min_samples, alpha))
    decision_threshold = plain_number(decision_threshold)
    if engine == "spark":  # Spark aggregations, the same report (SPEC 12.10)
        from .spark_engine import evaluate_spark  # lazy: start-up

        return evaluate_spark(
            data,
            pred,
            attrs,
            label=label,
            score=score,
            decision_threshold=decision_threshold,
            task=task,
            threshold=threshold,
            min_samples=min_samples,
            intersect=intersect,
            rule=rule,
            alpha=alpha,
            overrides=overrides,
            opts=opts,
            ref_groups=ref_groups,
            weight=weight,
        )
    attr_list, grouping, refs, required = prepare(
        attrs,
        pred,
        label,
        score,
        decision_threshold,
        task,
        threshold,
        min_samples,
        rule,
        alpha,
        overrides,
        opts,
        ref_groups,
        weight,
        intersect,
    )
    _resolve_engine(engine)  # reject a bad engine name before reading anything

    if isinstance(data, pd.DataFrame) or is_polars_frame(data):
        source = "data"
        source_path = None
        frame = frame_columns(data, required, source)
    else:
        source = path("data", data, SOURCES)
        source_path = source
        if opener is not None and not callable(opener):
            raise MonitorInputError(
                f"opener: give a function (path, label) -> (binary file, is it a regular "
                f"file), not {kind(opener)}"
            )
        frame = read_table(source, required, opener, encoding)
    engine_used = _resolve_engine(engine)
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
    weight_values: np.ndarray | None = None
    if weight is not None:  # checked on the scored rows (SPEC 12.1)
        weight_values = weights_of(frame[weight], weight, source, has_pred)
        if keep is not None:
            weight_values = weight_values[keep]
    pred_values = pred_values[keep] if keep is not None else pred_values
    label_values: np.ndarray | None = None
    if label is not None:
        label_values = _numeric(frame[label], label, "label", source)
        if keep is not None:
            label_values = label_values[keep]
    # --score with labels: AUC and calibration per slice (SPEC 12.4), on one scale
    score_values = calibration = None
    if score is not None and label_values is not None:
        score_values = raw[keep] if keep is not None else raw
        calibration = score_scale(score_values[~np.isnan(label_values)])

    # task: once per model, from every scored row, never per slice
    facts = ModelFacts(
        pred_classes=None if task is not None or score is not None else class_labels(pred_values),
        label_classes=(
            None
            if task is not None or score is not None or label_values is None
            else class_labels(label_values)
        ),
        pred_binary=bool(np.isin(pred_values, (0.0, 1.0)).all()),
        first_other_pred=_first(pred_values[~np.isin(pred_values, (0.0, 1.0))]),
        first_other_label=(
            None
            if label_values is None
            else _first(label_values[~np.isnan(label_values) & ~np.isin(label_values, (0.0, 1.0))])
        ),
    )
    task_info = decide_task(
        source, pred, label, score, decision_threshold, task, label_values is not None, facts
    )
    task_type = task_info["type"]
    if task_type == "binary":
        selected = pred_values == 1.0
    else:
        selected = pred_values >= decision_threshold if decision_threshold is not None else None

    n_labelled = int((~np.isnan(label_values)).sum()) if label_values is not None else 0
    if intersect and len(attr_list) > MAX_INTERSECT_ATTRIBUTES:
        n = len(attr_list)
        raise MonitorInputError(
            f"--intersect with {n} attributes would make {2**n - n - 1:,} combined "
            f"slicings; intersect at most {MAX_INTERSECT_ATTRIBUTES} attributes "
            f"({2**MAX_INTERSECT_ATTRIBUTES - MAX_INTERSECT_ATTRIBUTES - 1} slicings)"
        )
    attributes = [_Attribute(a, frame[a], source, grouping) for a in attr_list]
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
            score_values=score_values,
            calibration=calibration,
            weight=weight_values,
        )
        for ats in slicings
    ]
    columns: dict[str, Any] = {
        "prediction": pred,
        "label": label,
        "score": score,
        "attributes": attr_list,
    }
    if weight is not None:  # only then: an unweighted report keeps its keys (SPEC 12.11)
        columns["weight"] = weight

    return EvaluateResult(
        assemble_report(
            source=source_path,
            engine=engine_used,
            task_info=task_info,
            columns=columns,
            prediction=pred_name,
            decision_threshold=decision_threshold,
            threshold=threshold,
            min_samples=min_samples,
            intersect=intersect,
            rule=rule,
            alpha=alpha,
            rows={
                "total": total_rows,
                "without_prediction": total_rows - n_scored,
                "scored": n_scored,
                "labelled": n_labelled,
                "awaiting_label": n_scored - n_labelled if label is not None else n_scored,
            },
            groups=groups,
            ref_groups=refs,
            calibration=calibration,
        )
    )
