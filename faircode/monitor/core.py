"""``evaluate``: per-slice metrics, disparities and the gate verdict for one model.

The orchestration only; by concern: :mod:`.inputs` (settings and numeric columns),
:mod:`.slices` (attributes and slicings), :mod:`.metrics` (the metric list and slice
entries), :mod:`.disparities` (the disparity list), :mod:`.engines` (per-slice counts).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from ..numerics import Z as Z95
from ..numerics import holm
from ..options import FAIRNESS_MIN_SAMPLES, FAIRNESS_RULES, FAIRNESS_THRESHOLD
from .disparities import DISPARITIES, build_disparities
from .engines import SliceInput, run_engine
from .inputs import (
    AUTO_FAIRLEARN_MAX_ROWS,
    MAX_MAGNITUDE,
    _check_settings,
    _fmt_num,
    _numeric,
    _resolve_engine,
    class_labels,
    multiclass_error,
    weights_of,
)
from .intervals import ALPHA
from .io import MonitorInputError, check_columns, read_table
from .metrics import METRICS, TASKS, build_slices
from .reference import attach as attach_references
from .reference import check as check_references
from .scores import score_scale
from .slices import (
    MAX_INTERSECT_ATTRIBUTES,
    MAX_SLICES_PER_ATTRIBUTE,
    MAX_TOTAL_SLICES,
    MISSING_LABEL,
    Grouping,
    _Attribute,
    _native,
    _slices_of,
)
from .stats import COMPARE_DECIMALS, exceeds

FORMAT_VERSION = 2

# re-exported: core stays the monitor's entry point (timeline, ingest, tests import these)
__all__ = [
    "AUTO_FAIRLEARN_MAX_ROWS",
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
    """
    attr_list = [attrs] if isinstance(attrs, str) else list(attrs)
    _check_settings(attr_list, threshold, min_samples, task)
    check_rule(rule, alpha)
    refs = check_references(ref_groups, attr_list)
    grouping = _grouping(attr_list, overrides, opts)
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
    if weight is not None:
        if not isinstance(weight, str):
            raise MonitorInputError(f"--weight: give one column name, got {weight!r}")
        required.setdefault(weight, "--weight")
    if isinstance(data, pd.DataFrame):
        source = "data"
        source_path = None
        check_columns(data.columns, required, source)
        frame = data
    else:
        source = str(data)
        source_path = source
        frame = read_table(data, required, opener)
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
    if task is None and score is None:  # class ids are not quantities (SPEC 12.2)
        for role, col, values in (
            ("prediction", pred, pred_values),
            ("label", label, label_values),
        ):
            classes = None if values is None else class_labels(values)
            if classes is not None:
                raise multiclass_error(source, role, str(col), classes)
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

    from ..results import EvaluateResult  # lazy: loaded already

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


def _grouping(
    attrs: list[str], overrides: dict[str, str] | None, opts: dict[str, Any] | None
) -> Grouping:
    """The profiler's group options for ``attrs``, validated by the profiler's own
    checks (`options.resolve`, `detect.check_overrides`); one-line errors naming the
    option."""
    from ..detect import check_overrides  # lazy: loaded already
    from ..errors import InputError  # lazy: loaded already
    from ..options import GROUP_OPTIONS  # lazy: loaded already

    opts = dict(opts or {})
    if not isinstance(overrides, dict | None):
        raise MonitorInputError("--map: give the overrides as {column: kind}")
    for key in opts:
        if key not in GROUP_OPTIONS:
            raise MonitorInputError(
                f"option {key!r} does not apply to fairness evaluate (its group options: "
                f"{', '.join(GROUP_OPTIONS)}, and overrides for --map)"
            )
    try:
        grouping = Grouping(overrides, opts)
        named = [(c, "--map") for c in grouping.overrides]
        named += [(t[0], "--na") for t in grouping.opts.na if not isinstance(t, str)]
        named += [(c, "--recode") for c, _, _ in grouping.opts.recode]
        for col, flag in named:
            if col not in attrs:
                raise MonitorInputError(
                    f"{flag}: {col!r} is not an attribute (--attr: {', '.join(attrs)}); "
                    f"add --attr {col}, or drop its {flag}"
                )
        check_overrides(grouping.overrides, attrs, grouping.opts)
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None
    for col, kind in grouping.overrides.items():
        if kind == "ignore":
            raise MonitorInputError(
                f"--map: {col}=ignore leaves nothing to slice; drop --attr {col} instead"
            )
    return grouping


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
    rule: str = "interval",
    alpha: float = ALPHA,
    ref_groups: dict[str, str] | None = None,
    ref_option: str = "--ref-group",
    calibration: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report (schema.json) around already evaluated ``groups``; shared with the store.
    Decides every gated disparity by ``rule`` (SPEC 12.7) across the whole report, and
    adds the reference comparisons of ``ref_groups`` (SPEC 12.6; reported only)."""
    attach_references(groups, ref_groups, ref_option)
    decide(groups, rule, alpha)
    failures = [
        {
            "group": g["name"],
            "metric": d["metric"],
            "value": d["value"],
            "ci95": d["ci95"],
            "threshold": threshold,
        }
        for g in groups
        for d in g["disparities"]
        if d["status"] == "exceeded"
    ]
    insufficient = [
        {
            "group": g["name"],
            "metric": d["metric"],
            "value": d["value"],
            "ci95": d["ci95"],
            "threshold": threshold,
            "rows_needed": d["rows_needed"],
            **({"reason": d["reason"]} if d["value"] is None else {}),
        }
        for g in groups
        for d in g["disparities"]
        if d["status"] == "insufficient"
    ]
    unmeasured = [
        {"group": g["name"], "metric": d["metric"], "reason": d["reason"]}
        for g in groups
        for d in g["disparities"]
        if d["gated"] and d["status"] in ("unmeasured", "partly_measured")
    ]
    status = _status(bool(failures), bool(insufficient), bool(unmeasured))
    report = {
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
            "rule": rule,
            "alpha": alpha,
            "interval": "simultaneous slice intervals (Bonferroni over the slices)",
            "correction": "holm",
        },
        "rows": rows,
        "groups": groups,
        "status": status,
        "disparity_exceeded": bool(failures),
        "failures": failures,
        "insufficient": insufficient,
        "unmeasured": unmeasured,
    }
    if calibration is not None:  # --score with labels (SPEC 12.4, 12.11)
        report["calibration"] = calibration
    return report


def check_rule(rule: str, alpha: float) -> None:
    if rule not in FAIRNESS_RULES:
        raise MonitorInputError(f"rule must be one of {', '.join(FAIRNESS_RULES)}, got {rule!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise MonitorInputError(f"alpha must be a number between 0 and 1, got {alpha!r}")


def _status(exceeded: bool, insufficient: bool, unmeasured: bool) -> str:
    """A slicing's or a report's status: the worst of its gated disparities (SPEC 12.8)."""
    if exceeded:
        return "exceeded"
    if insufficient:
        return "insufficient_evidence"
    return "unmeasured" if unmeasured else "within_threshold"


def decide(groups: list[dict[str, Any]], rule: str, alpha: float) -> None:
    """Each gated, measured disparity's status by ``rule`` (SPEC 12.7): Holm's correction
    of ``p_exceeds`` over the report's family; ``exceeded`` when the adjusted p is below
    alpha (``point``: when the value exceeds), ``ok`` when ``p_within`` is (``point``:
    otherwise), else ``insufficient``; a half-measured equalized odds is never ok."""
    judged = [
        d for g in groups for d in g["disparities"] if d["gated"] and d["evidence"] is not None
    ]
    adjusted = holm([d["evidence"]["p_exceeds"] for d in judged], len(judged))
    for d, p in zip(judged, adjusted, strict=True):
        d["evidence"]["p_exceeds"] = p
        if rule == "point":
            over, within = exceeds(d["value"], d["threshold"]), True
        else:
            over, within = p < alpha, d["evidence"]["p_within"] < alpha
        partial = len(d.get("measured", d["based_on"])) < len(d["based_on"])
        if over:
            d["status"] = "exceeded"
        elif partial:
            d["status"] = "partly_measured"
        else:
            d["status"] = "ok" if within else "insufficient"
        if d["status"] != "insufficient":
            d["rows_needed"] = None
    # slices that exist but sit below the low-n guard: more rows would measure and settle
    # the disparity, so under the interval rule its evidence is insufficient (12.8)
    for g in groups:
        for d in g["disparities"]:
            short = d.pop("below_guard", None)
            if rule == "point" or not short or not d["gated"]:
                continue
            if d["status"] in ("unmeasured", "partly_measured"):
                d["status"] = "insufficient"
                d["rows_needed"] = short
    for g in groups:
        gated = [d for d in g["disparities"] if d["gated"]]
        g["status"] = _status(
            any(d["status"] == "exceeded" for d in gated),
            any(d["status"] == "insufficient" for d in gated),
            any(d["status"] in ("unmeasured", "partly_measured") for d in gated),
        )
        g["disparity_exceeded"] = g["status"] == "exceeded"


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
    score_values: np.ndarray | None = None,
    calibration: dict[str, Any] | None = None,
    weight: np.ndarray | None = None,
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
            score=score_values,
            score_scale=calibration,
            weight=weight,
        ),
    )
    return assemble_group(
        ats,
        slice_parts,
        stats,
        task,
        label is not None,
        selected is not None,
        threshold,
        min_samples,
        has_score=calibration is not None,
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
    has_score: bool = False,
) -> dict[str, Any]:
    """One slicing of the report from its per-slice engine result (counts and metrics).

    ``ats`` are the slicing's attributes (each with ``name`` and sorted ``values``) and
    ``slice_parts`` the per-attribute value index of each slice.
    """
    slices = build_slices(ats, slice_parts, stats, task, min_samples)
    names = [a.name for a in ats]
    disparities = build_disparities(
        slices,
        task,
        has_label,
        has_selection,
        threshold,
        has_score=has_score,
        min_samples=min_samples,
    )
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
