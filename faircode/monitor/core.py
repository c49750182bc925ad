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

from ..calling import keyword_args
from ..formats import frame_name, is_polars_frame
from ..options import FAIRNESS_MIN_SAMPLES, FAIRNESS_THRESHOLD, spelled
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
from .metrics import METRICS, MISSING_LABEL, TASKS, build_slices
from .scores import score_scale
from .slices import (
    MAX_INTERSECT_ATTRIBUTES,
    MAX_SLICES_PER_ATTRIBUTE,
    MAX_TOTAL_SLICES,
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


#: evaluate's parameters after ``data`` in the order they were once positional: still
#: taken so, with a FutureWarning (faircode/calling.py), until a release drops them.
EVALUATE_POSITIONAL = (
    "pred",
    "attrs",
    "label",
    "score",
    "decision_threshold",
    "task",
    "threshold",
    "min_samples",
    "intersect",
    "engine",
    "opener",
    "rule",
    "alpha",
    "overrides",
    "opts",
    "ref_groups",
    "weight",
    "encoding",
)


@keyword_args("faircode.monitor.evaluate", *EVALUATE_POSITIONAL)
def evaluate(
    data: pd.DataFrame | str | Path,
    *,
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
    """Evaluate a model's predictions per slice: metrics, disparities and the verdict.

    What ``faircode fairness evaluate`` reports (SPEC-monitor 12): each slice's
    performance with 95% intervals, the group-fairness disparities between slices, and
    whether a gated disparity exceeds the threshold. Rows whose label is missing are
    predictions awaiting a label (12.1).

    Parameters
    ----------
    data : DataFrame, str or path-like
        A pandas or polars DataFrame, or the path of a CSV, Parquet or JSON lines file
        (12.1). Only the named columns are kept.
    pred : str or None
        The prediction column (0/1 for a binary model, numbers for a regression); None
        when ``score`` is given. Give one of the two.
    attrs : list of str or str
        The attribute columns to slice by (one str is one attribute). Their groups are
        the profiler's (12.3): ``overrides`` and ``opts`` apply to them, and an age
        column (by name or ``overrides``) is banded.
    label : str, optional
        The true outcome column: needed for every metric but the selection rate.
    score : str, optional
        A column of scores; with ``decision_threshold`` the prediction is ``score >=
        decision_threshold`` (a binary model), and, with ``label``, AUC, Brier and
        calibration are reported.
    decision_threshold : float, optional
        With ``score``: the cut; with a regression ``pred``: the selection rate's cut.
    task : {"binary", "regression"}, optional
        The model's task; default inferred once from every prediction (12.2).
    threshold : float
        The largest acceptable gated disparity (default 0.1, 12.6).
    min_samples : int
        The low-n guard: a slice whose count for a metric is below it is kept out of
        that metric's disparities (default 30, 12.5).
    intersect : bool
        Also slice by every combination of the attributes (12.3).
    engine : {"auto", "pandas", "fairlearn", "spark"}
        Who counts (12.10): ``"auto"`` and ``"pandas"`` count with numpy;
        ``"fairlearn"`` computes the metrics with Fairlearn's MetricFrame (the
        ``fairness`` extra), to cross-check; ``"spark"`` counts with Spark (the
        ``spark`` extra). The report's ``engine`` names the one used.
    opener : callable, optional
        ``opener(path, label)`` opens a path instead of the reader's ``open_input``,
        returning (binary file, is it a regular file); the file is read from what it
        returns only (the MCP server's confined open, SPEC 11).
    rule : {"interval", "point"}
        How the gate decides (12.7): ``"interval"`` (a disparity exceeds when its
        interval, after Holm's correction over the report at ``alpha``, lies above the
        threshold; is within when it lies at or below it; else the evidence is
        insufficient) or ``"point"`` (the value alone).
    alpha : float
        The family-wise level of ``rule="interval"`` (default 0.05).
    overrides : dict of str to str, optional
        ``--map``: attribute column -> kind (``"age"``, ``"categorical"``, ...), as for
        :func:`faircode.profile` (SPEC 1.6).
    opts : dict, optional
        The profiler's group options for the attributes: ``na``, ``recode``,
        ``age_bands``, ``max_age`` (SPEC 7).
    ref_groups : dict, optional
        ``{attribute: value}`` (Aequitas' ``ref_groups_dict``): compare each slice of
        those attributes with a reference slice (12.6): a value, ``"maj"`` (the slice
        with the most rows) or ``"min"`` (per metric, the lowest eligible value).
    weight : str, optional
        A column of sample (survey) weights (12.4): every rate is then the weighted
        share, every mean a weighted mean, and each metric reports ``n_eff``, Kish's
        effective size, at which its interval is computed and its guard compares.
    encoding : str, optional
        The text encoding of a CSV or JSON lines file (default UTF-8, 12.1).

    Returns
    -------
    EvaluateResult
        A dict (SPEC-monitor 12.11; ``faircode/monitor/schema.json``) that displays
        itself in a notebook (SPEC 6.2): ``task``, ``columns``, ``prediction``,
        ``settings``, ``rows`` (total, scored, labelled, awaiting a label), ``groups``
        (per slicing: its ``slices`` with each metric's value, count and ``ci95``, and
        its ``disparities`` with their ``status``), ``status`` (``exceeded``,
        ``insufficient_evidence``, ``unmeasured`` or ``within_threshold``),
        ``disparity_exceeded``, ``failures``, ``insufficient`` and ``unmeasured``.

    Raises
    ------
    MonitorInputError
        Bad input, in one line naming the option or column (a ``ValueError`` and, like
        ``faircode.InputError``, a ``faircode.errors.FaircodeError``): no predictions
        given (``no predictions given; pass --pred COL or --score COL``), a column the
        data lacks, a threshold out of range, class labels in a prediction column, an
        unknown engine, ``engine="fairlearn"`` or a Parquet file without its package
        installed (naming ``pip install 'faircode[...]'``), ...
    ImportError
        ``engine="spark"`` without PySpark (``pip install 'faircode[spark]'``); and
        ``from faircode.monitor import evaluate`` itself without numpy and pandas (the
        ``frames`` extra).

    Examples
    --------
    The bundled COMPAS sample, its decile score cut at 5 (ProPublica's "medium or high
    risk") against two-year recidivism, sliced by race:

    >>> from importlib import resources
    >>> from faircode.monitor import evaluate
    >>> sample = str(resources.files("faircode") / "data" / "compas-scores-two-years.csv")
    >>> r = evaluate(sample, pred=None, attrs=["race"], label="two_year_recid",
    ...              score="decile_score", decision_threshold=5)
    >>> r["rows"]["total"], r["prediction"], r["status"]
    (7214, 'decile_score >= 5', 'exceeded')
    >>> for s in r["groups"][0]["slices"][:3]:
    ...     print(s["slice"], s["n"], round(s["metrics"]["fpr"]["value"], 3))
    African-American 3696 0.448
    Asian 32 0.087
    Caucasian 2454 0.235
    >>> [(f["metric"], round(f["value"], 3)) for f in r["failures"]]
    [('demographic_parity_difference', 0.379), ('equalized_odds_difference', 0.397)]
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
        source = frame_name()  # as profile() names a frame (SPEC 0.6)
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
            f"{spelled('--intersect')} with {n} attributes would make {2**n - n - 1:,} combined "
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
