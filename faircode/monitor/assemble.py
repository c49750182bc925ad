"""The monitor's report assembly, shared by both engines: the local one
(:func:`faircode.monitor.core.evaluate`, pandas) and Spark's
(:mod:`faircode.monitor.spark_engine`), and by the store's timeline: what deciding the
task reads (``ModelFacts``, ``decide_task``), the checked settings (``prepare``), the
slices of one slicing (``assemble_group``), the verdicts (``decide``) and the report
(``assemble_report``). Below both engines, so that neither imports the other back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..detect import check_overrides
from ..errors import InputError
from ..numerics import Z as Z95
from ..numerics import holm
from ..options import FAIRNESS_RULES, GROUP_OPTIONS, advised, spelled
from .args import add_attr, column, columns, dict_of, is_number, overrides_named, switch
from .disparities import (
    below_guard,
    build_disparities,
    guard_k,
    joint_power,
    rows_needed,
)
from .engines import SliceInput, run_engine
from .inputs import (
    _check_settings,
    _fmt_num,
    multiclass_error,
)
from .intervals import ALPHA
from .io import MonitorInputError
from .metrics import build_slices
from .reference import attach as attach_references
from .reference import check as check_references
from .slices import (
    MAX_TOTAL_SLICES,
    Grouping,
    _Attribute,
    _slices_of,
)
from .stats import COMPARE_DECIMALS, exceeds

#: The report's format (schema.json's format_version).
FORMAT_VERSION = 2


@dataclass(frozen=True)
class ModelFacts:
    """What deciding the task reads from the scored rows (SPEC 12.2), so that an engine
    that aggregates (Spark) decides it as the local one does: the class labels of the
    predictions and of the present labels (``class_labels``, None: not class labels or
    not asked), whether every prediction is 0 or 1, and the first prediction and the
    first present label (in row order) other than 0 and 1 (None: none)."""

    pred_classes: list[float] | None
    label_classes: list[float] | None
    pred_binary: bool
    first_other_pred: float | None
    first_other_label: float | None


def _first(values: np.ndarray) -> float | None:
    return float(values[0]) if len(values) else None


def decide_task(
    source: str,
    pred: str | None,
    label: str | None,
    score: str | None,
    decision_threshold: float | None,
    task: str | None,
    has_label: bool,
    facts: ModelFacts,
) -> dict[str, str]:
    """The report's ``task`` (SPEC 12.2) from ``facts``; the one-line input errors of a
    class-label column, of a value other than 0/1 in a binary task, of a decision
    threshold on 0/1 predictions and of a regression with nothing to measure."""
    if task is None and score is None:  # class ids are not quantities (SPEC 12.2)
        for role, col, classes in (
            ("prediction", pred, facts.pred_classes),
            ("label", label, facts.label_classes),
        ):
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
    elif facts.pred_binary:
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
    how = "given" if task_info["source"] == "given" else "inferred from the predictions"
    if task_info["type"] == "binary":
        if facts.first_other_pred is not None:
            raise MonitorInputError(
                f"{source}: prediction column {pred!r} has a value other than 0/1 "
                f"({_fmt_num(facts.first_other_pred)}) in a binary task; use "
                f"{advised('--score', pred, cli=pred)} "
                f"{advised('--decision-threshold', 'T', quote=False)}, or "
                f"{advised('--task', 'regression', cli='regression')}"
            )
        if decision_threshold is not None and score is None:
            raise MonitorInputError(
                f"{spelled('--decision-threshold')} with a 0/1 prediction column has no effect; "
                f"drop it, use {advised('--score', 'COL', quote=False)} instead of "
                f"{spelled('--pred')}, or pass {advised('--task', 'regression', cli='regression')}"
            )
        if facts.first_other_label is not None:
            raise MonitorInputError(
                f"{source}: label column {label!r} has a value other than 0/1 "
                f"({_fmt_num(facts.first_other_label)}) but the task is binary ({how}); "
                "encode the label as 0/1, or pass "
                f"{advised('--task', 'regression', cli='regression')}"
            )
    elif not has_label and decision_threshold is None:
        raise MonitorInputError(
            f"a regression model needs {advised('--label', 'COL', quote=False)} (for MAE) or "
            f"{advised('--decision-threshold', 'T', quote=False)} (for a selection rate); "
            "nothing can be measured otherwise"
        )
    return task_info


def prepare(
    attrs: list[str] | tuple[str, ...] | str,
    pred: str | None,
    label: str | None,
    score: str | None,
    decision_threshold: float | None,
    task: str | None,
    threshold: float,
    min_samples: int,
    rule: str,
    alpha: float,
    overrides: dict[str, str] | None,
    opts: dict[str, Any] | None,
    ref_groups: dict[str, Any] | None,
    weight: str | None,
    intersect: bool,
) -> tuple[list[str], Grouping, dict[str, str] | None, dict[str, str]]:
    """The checks of ``evaluate``'s arguments before anything is read (shared by the
    engines that read: the local one and Spark's): (attributes, their groups, the
    checked references, the required columns -> the option that named each). Column
    arguments are names as str (SPEC 12.1: a frame's columns are matched by their text);
    ``attrs`` one str is one attribute."""
    attr_list = columns("--attr", attrs)
    pred, label = column("--pred", pred), column("--label", label)
    score, weight = column("--score", score), column("--weight", weight)
    switch("--intersect", intersect)
    _check_settings(attr_list, threshold, min_samples, task)
    check_rule(rule, alpha)
    refs = check_references(ref_groups, attr_list)
    grouping = _grouping(attr_list, overrides, opts)
    if pred is None and score is None:
        raise MonitorInputError(
            f"no predictions given; pass {advised('--pred', 'COL', quote=False)} or "
            f"{advised('--score', 'COL', quote=False)}"
        )
    if pred is not None and score is not None:
        raise MonitorInputError(
            f"{spelled('--pred')} and {spelled('--score')} both given; pass "
            f"{spelled('--pred')} for a prediction column, or {spelled('--score')} with "
            f"{spelled('--decision-threshold')} to derive predictions"
        )
    if score is not None and decision_threshold is None:
        raise MonitorInputError(
            f"{spelled('--score')} needs {advised('--decision-threshold', 'T', quote=False)} "
            "(prediction = score >= T)"
        )
    if decision_threshold is not None and (
        not is_number(decision_threshold) or not math.isfinite(decision_threshold)
    ):
        raise MonitorInputError(
            f"{spelled('--decision-threshold')} must be a finite number, got {decision_threshold!r}"
        )
    if score is not None and task == "regression":
        raise MonitorInputError(
            f"{spelled('--score')} derives binary predictions; for a regression model pass "
            f"{advised('--pred', 'COL', quote=False)} (and "
            f"{advised('--decision-threshold', 'T', quote=False)} for a selection rate)"
        )
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
        required.setdefault(weight, "--weight")
    return attr_list, grouping, refs, required


def _grouping(
    attrs: list[str], overrides: dict[str, str] | None, opts: dict[str, Any] | None
) -> Grouping:
    """The profiler's group options for ``attrs``, validated by the profiler's own
    checks (`options.resolve`, `detect.check_overrides`); one-line errors naming the
    option."""
    opts = dict_of("opts", opts)
    overrides = dict_of("overrides", overrides)
    for col in overrides:
        column("--map", col)
    for key in opts:
        if key not in GROUP_OPTIONS:
            raise MonitorInputError(
                f"option {key!r} does not apply to fairness evaluate (its group options: "
                f"{', '.join(GROUP_OPTIONS)}, and {overrides_named()})"
            )
    try:
        grouping = Grouping(overrides, opts)
        named = [(c, "--map") for c in grouping.overrides]
        named += [(t[0], "--na") for t in grouping.opts.na if not isinstance(t, str)]
        named += [(c, "--recode") for c, _, _ in grouping.opts.recode]
        for col, flag in named:
            if col not in attrs:
                raise MonitorInputError(
                    f"{spelled(flag)}: {col!r} is not an attribute ({spelled('--attr')}: "
                    f"{', '.join(attrs)}); add {add_attr(col)}, or drop its {spelled(flag)}"
                )
        check_overrides(grouping.overrides, attrs, grouping.opts)
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None
    for col, kind in grouping.overrides.items():
        if kind == "ignore":
            raise MonitorInputError(
                f"{spelled('--map')}: {col}=ignore leaves nothing to slice; drop "
                f"{add_attr(col, 'from')} instead"
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
        raise MonitorInputError(
            f"{spelled('--rule')} must be one of {', '.join(FAIRNESS_RULES)}, got {rule!r}"
        )
    if not is_number(alpha) or not 0 < alpha < 1:
        raise MonitorInputError(
            f"{spelled('--alpha')} must be a number between 0 and 1, got {alpha!r}"
        )


def _status(exceeded: bool, insufficient: bool, unmeasured: bool) -> str:
    """A slicing's or a report's status: the worst of its gated disparities (SPEC 12.8)."""
    if exceeded:
        return "exceeded"
    if insufficient:
        return "insufficient_evidence"
    return "unmeasured" if unmeasured else "within_threshold"


def decide(groups: list[dict[str, Any]], rule: str, alpha: float, *, plan: bool = True) -> None:
    """Each gated, measured disparity's status by ``rule`` (SPEC 12.7): Holm's correction
    of ``p_exceeds`` over the report's family; ``exceeded`` when the adjusted p is below
    alpha (``point``: when the value exceeds), ``ok`` when ``p_within`` is (``point``:
    otherwise), else ``insufficient``; a half-measured equalized odds is never ok. With
    ``plan`` an insufficient one gets the rows that would settle it (``rows_needed``)."""
    judged = [
        (g, d) for g in groups for d in g["disparities"] if d["gated"] and d["evidence"] is not None
    ]
    adjusted = holm([d["evidence"]["p_exceeds"] for _, d in judged], len(judged))
    for (g, d), p in zip(judged, adjusted, strict=True):
        d["evidence"]["p_exceeds"] = p
        d["evidence"]["family"] = len(judged)
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
        # what would settle it, planned against this family's correction (12.7)
        settle = plan and d["status"] == "insufficient"
        d["rows_needed"] = rows_needed(d, g["slices"], len(judged), alpha) if settle else None
    # slices that exist but sit below the low-n guard: more rows would measure and settle
    # the disparity, so under the interval rule its evidence is insufficient (12.8). Its
    # rows are planned against the family it would join: today's measured disparities and
    # every unmeasured one that such rows could measure
    short = [(g, d, d.pop("below_guard", None)) for g in groups for d in g["disparities"]]
    short = [(g, d, s) for g, d, s in short if s and d["gated"]]
    family = len(judged) + sum(d["evidence"] is None for _, d, _ in short)
    for g, d, s in short:
        if rule == "point" or d["status"] not in ("unmeasured", "partly_measured"):
            continue
        ev = d["evidence"]
        guard: dict[str, Any] = {
            "slices": g["slices"],
            "metrics": s["metrics"],
            "threshold": d["threshold"],
            "min_samples": s["guard"],
            "k_measured": 0 if ev is None else ev["slice_estimates"],
            "family": family,
            "alpha": alpha,
        }
        plan = below_guard(**guard)
        if plan is None:
            continue
        need, alone = plan
        if ev is not None and not alone:
            # the measured half may not be settled either: it needs its own rows too,
            # unless it exceeds the threshold (then its rows alone settle the verdict)
            if exceeds(d["value"], d["threshold"]):
                need = rows_needed(d, g["slices"], len(judged), alpha) or need
            else:
                # both halves must settle: each planned so that together they do (12.7),
                # the measured one at the K it will rest on once the other is measured
                each = joint_power(2)
                k = guard_k(g["slices"], s["metrics"], ev["slice_estimates"])
                own = rows_needed(d, g["slices"], family, alpha, power=each, k=k)
                again = below_guard(**guard, power=each)
                if own is not None and again is not None:
                    need = {**again[0], "also": own}
        d["status"] = "insufficient"
        d["rows_needed"] = need
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
