"""The disparities between eligible slices: ONE declarative list, and their evaluation.

Each disparity is over one or more metrics of :data:`faircode.monitor.metrics.METRICS`:

- ``range``: max - min of the metric over eligible slices;
- ``difference``: the largest of the ranges of its metrics (one metric: its range;
  equalized odds: max(TPR range, FPR range), with both in ``components``);
- ``ratio``: min / max of the metric (1 when every eligible slice is at 0), with the
  four-fifths rule.

``needs`` says which input it needs (``selection``: a selection rate, ``label``: labels)
and ``task`` for which model type (None: any). The renderers take ``title`` from here and
``schema.json`` is tested against this list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .intervals import (
    ALPHA,
    POWER,
    SliceEstimates,
    estimates,
    evidence,
    pair_interval,
    settling_count,
    slice_z,
)
from .stats import exceeds, round12, round_half_up_units

KINDS = ("difference", "ratio", "range")


@dataclass(frozen=True)
class Disparity:
    name: str
    metrics: tuple[str, ...]
    kind: str  # one of KINDS
    gated: bool  # compared with the threshold (the gate); else only reported
    needs: str  # "selection", "label" or "score" (--score with labels)
    task: str | None  # "binary", "regression" or None (any)
    title: str  # as the text, Markdown and HTML reports name it


#: In report order.
DISPARITIES: tuple[Disparity, ...] = (
    Disparity(
        "demographic_parity_difference",
        ("selection_rate",),
        "difference",
        True,
        "selection",
        None,
        "demographic parity difference",
    ),
    Disparity(
        "demographic_parity_ratio",
        ("selection_rate",),
        "ratio",
        False,
        "selection",
        None,
        "demographic parity ratio",
    ),
    Disparity(
        "selection_rate_range",
        ("selection_rate",),
        "range",
        False,
        "selection",
        None,
        "selection rate range",
    ),
    Disparity(
        "equalized_odds_difference",
        ("tpr", "fpr"),
        "difference",
        True,
        "label",
        "binary",
        "equalized odds difference",
    ),
    Disparity("accuracy_range", ("accuracy",), "range", True, "label", "binary", "accuracy range"),
    Disparity("mae_range", ("mae",), "range", True, "label", "regression", "MAE range"),
    # Reported, not gated (SPEC 12.6): the error-rate ranges of Aequitas / Fairlearn, for
    # reading which slice bears which error; equalized odds already gates TPR/FPR.
    Disparity("fnr_range", ("fnr",), "range", False, "label", "binary", "FNR range"),
    Disparity("for_range", ("for",), "range", False, "label", "binary", "FOR range"),
    Disparity("fdr_range", ("fdr",), "range", False, "label", "binary", "FDR range"),
    Disparity(
        "precision_range", ("precision",), "range", False, "label", "binary", "precision range"
    ),
    Disparity("npv_range", ("npv",), "range", False, "label", "binary", "NPV range"),
    # With --score and labels (SPEC 12.6): how far apart the slices' AUCs are; reported,
    # its interval from the slices' AUC intervals (Newcombe's, SPEC 12.4).
    Disparity("auc_range", ("auc",), "range", False, "score", "binary", "AUC range"),
)

TITLES = {d.name: d.title for d in DISPARITIES}
FOUR_FIFTHS = 0.8


def _range(
    slices: list[dict[str, Any]], metric: str
) -> tuple[dict[str, Any] | None, list[dict[str, str]], int]:
    """Max-min of ``metric`` over eligible slices; also the excluded slices and eligible count."""
    eligible = []
    excluded = []
    for s in slices:
        m = s["metrics"][metric]
        if m["value"] is None:
            excluded.append({"slice": s["slice"], "metric": metric, "reason": "undefined"})
        elif m["low_n"]:
            excluded.append({"slice": s["slice"], "metric": metric, "reason": "low-n"})
        else:
            eligible.append((m["value"], s["slice"]))
    if len(eligible) < 2:
        return None, excluded, len(eligible)
    # Ranked at 12 decimals, the first in slice order on a tie (SPEC 12.6): the engines
    # agree on a value to 1e-12 only, and a last-bit difference must not name another slice.
    hi = max(eligible, key=lambda t: round_half_up_units(t[0]))
    lo = min(eligible, key=lambda t: round_half_up_units(t[0]))
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
        "ci95": None,
        "gated": gated,
        "threshold": threshold if gated else None,
        "status": status,
        "evidence": None,
        "rows_needed": None,
        "max": None if spread is None else spread["max"],
        "min": None if spread is None else spread["min"],
        "eligible_slices": n_eligible,
        "excluded_slices": excluded,
        "reason": reason if value is None else None,
    }


def applies(
    d: Disparity, task: str, has_label: bool, has_selection: bool, has_score: bool = False
) -> bool:
    """Whether the report of a ``task`` model with these inputs has disparity ``d``."""
    have = {"selection": has_selection, "label": has_label, "score": has_score}[d.needs]
    return have and (d.task is None or d.task == task)


def _evaluate(
    d: Disparity,
    slices: list[dict[str, Any]],
    threshold: float,
    ranges: dict[str, tuple[dict[str, Any] | None, list[dict[str, str]], int]],
    min_samples: int,
) -> dict[str, Any]:
    for m in d.metrics:
        if m not in ranges:
            ranges[m] = _range(slices, m)
    parts = [ranges[m] for m in d.metrics]
    why = "; ".join(
        _unmeasured_reason(m, k, excl) for m, (_, excl, k) in zip(d.metrics, parts, strict=True)
    )
    pick = 0
    if d.kind == "difference" and len(parts) > 1:
        candidates = [p[0] for p in parts if p[0] is not None]
        best = (
            max(candidates, key=lambda s: round_half_up_units(s["value"])) if candidates else None
        )
        pick = next(
            (i for i, p in enumerate(parts) if best is not None and p[0] is best), len(parts) - 1
        )
        # every half's exclusions: a reader must see why a half was not measured
        spread, excl, k = best, [e for p in parts for e in p[1]], parts[pick][2]
    else:
        spread, excl, k = parts[0]
    if d.kind == "ratio" and spread is not None:
        top, bottom = spread["max"]["value"], spread["min"]["value"]
        # every eligible slice at a rate of 0: no slice is disadvantaged
        spread = {
            "value": 1.0 if top == 0 else bottom / top,
            "max": spread["max"],
            "min": spread["min"],
        }
    out = _disparity(d.name, list(d.metrics), spread, excl, k, d.gated, threshold, why)
    measured = [m for m, p in zip(d.metrics, parts, strict=True) if p[0] is not None]
    if measured:
        _add_evidence(out, d, slices, measured, d.metrics[pick], threshold)
    if d.gated and len(measured) < len(d.metrics):
        # planned once the report's family is known (assemble.decide, SPEC 12.8)
        short = [m for m in d.metrics if m not in measured and _measurable(slices, m)]
        if short:
            out["below_guard"] = {"metrics": short, "guard": min_samples}
    if len(d.metrics) > 1:
        out["measured"] = measured
        if measured and len(measured) < len(d.metrics):
            out["reason"] = why  # what the unmeasured half lacks
            if out["status"] == "ok":
                out["status"] = "partly_measured"  # the unmeasured half could be the larger
    if d.kind == "ratio":
        out["four_fifths_rule"] = (
            None
            if spread is None
            else ("pass" if round12(spread["value"]) >= FOUR_FIFTHS else "fail")
        )
    if d.kind == "difference" and len(parts) > 1:
        comp: dict[str, Any] = {
            f"{m}_range": None if p[0] is None else p[0]["value"]
            for m, p in zip(d.metrics, parts, strict=True)
        }
        comp["larger"] = None if spread is None else f"{d.metrics[pick]}_range"
        out["components"] = comp
    return out


def _add_evidence(
    out: dict[str, Any],
    d: Disparity,
    slices: list[dict[str, Any]],
    measured: list[str],
    deciding: str,
    threshold: float,
) -> None:
    """The interval of a measured disparity, and for a gated one its p-values (SPEC
    12.7; the rows that would settle it come once the report's family is known,
    :func:`rows_needed`)."""
    parts = [estimates(slices, m) for m in measured]
    ev = evidence("ratio" if d.kind == "ratio" else "range", parts, threshold if d.gated else None)
    out["ci95"] = ev.pop("ci95")
    part = parts[measured.index(deciding)]
    top = part.names.index(out["max"]["slice"])
    bottom = part.names.index(out["min"]["slice"])
    if d.kind != "ratio":
        # the two extreme slices compared as a pair (not adjusted for picking them)
        out["max_min_ci95"] = pair_interval(part, top, bottom)
    if not d.gated:
        return
    out["evidence"] = ev


def joint_power(halves: int, power: float = POWER) -> float:
    """The power each of ``halves`` independent halves is planned at so that all of them
    settle with probability ``power`` (SPEC 12.7): ``power ** (1 / halves)``. Equalized
    odds' halves rest on disjoint rows (positives, negatives), so their chances multiply:
    two halves each at 80% settled together in 59% of draws."""
    return power ** (1.0 / max(1, halves))


def rows_needed(
    d: dict[str, Any],
    slices: list[dict[str, Any]],
    family: int,
    alpha: float = ALPHA,
    power: float = POWER,
    k: int | None = None,
) -> dict[str, Any] | None:
    """What would settle an insufficient, measured disparity ``d`` of a slicing with
    these ``slices``, its report's Holm family holding ``family`` gated disparities
    (SPEC 12.7): per measured metric (equalized odds: per half) the count of
    :func:`settling_count`; above the threshold the cheapest half settles it, at or
    below it every half whose interval is not yet within needs its rows (the one asking
    for more first, the other under ``also``), all of them together with probability
    ``power`` (:func:`joint_power`). ``k``: the slice estimates the disparity will rest
    on once the rows come (a half below the guard joins them, SPEC 12.8); else today's."""
    threshold = d["threshold"]
    k = d["evidence"]["slice_estimates"] if k is None else k
    todo = []
    for metric in d.get("measured", d["based_on"]):
        part = estimates(slices, metric)
        value = float(part.values.max() - part.values.min())
        pair = None
        if d["max"] is not None and metric == _deciding(d):
            pair = (part.names.index(d["max"]["slice"]), part.names.index(d["min"]["slice"]))
        if not exceeds(d["value"], threshold):
            lo, hi = part.bounds(slice_z(k, alpha))
            high = float(hi.max() - lo.min())  # unbounded for a mean error of one row
            if math.isfinite(high) and not exceeds(high, threshold):
                continue  # this half is within already
        elif not exceeds(value, threshold):
            continue  # above the threshold the other half settles it
        todo.append((metric, part, pair))
    # above the threshold one half settles it; at or below it every listed half must
    each = power if exceeds(d["value"], threshold) else joint_power(len(todo), power)
    entries = []
    for metric, part, pair in todo:
        got = settling_count(part, threshold, k, family=family, pair=pair, alpha=alpha, power=each)
        named = [] if got is None else got[1]
        entries.append(
            {
                "metric": metric,
                "slices": [part.names[i] for i in named],
                "count_now": [_count(part.counts[i]) for i in named],
                "per_slice": None if got is None else got[0],
            }
        )
    if not entries:
        return None
    known = [e for e in entries if e["per_slice"] is not None]
    if exceeds(d["value"], threshold):  # the cheapest half that settles it
        return min(known, key=lambda e: e["per_slice"]) if known else entries[0]
    if len(entries) == 1:
        return entries[0]
    if len(known) < len(entries):  # a half no count settles: the verdict cannot be reached
        return next(e for e in entries if e["per_slice"] is None)
    first, second = sorted(entries, key=lambda e: -e["per_slice"])
    return {**first, "also": second}


def _deciding(d: dict[str, Any]) -> str:
    """The metric whose slices d's max and min name (equalized odds: the larger half)."""
    comp = d.get("components")
    if comp and comp.get("larger"):
        return comp["larger"].removesuffix("_range")
    return d["based_on"][0]


def _measurable(slices: list[dict[str, Any]], metric: str) -> bool:
    """Whether rows of the kind ``metric`` counts could measure it: at least two slices
    have a value (SPEC 12.8; one slice alone stays unmeasured whatever its size)."""
    return sum(s["metrics"][metric]["value"] is not None for s in slices) >= 2


def below_guard(
    slices: list[dict[str, Any]],
    metrics: list[str],
    threshold: float,
    min_samples: int,
    *,
    k_measured: int = 0,
    family: int = 1,
    alpha: float = ALPHA,
    power: float = POWER,
) -> tuple[dict[str, Any], bool] | None:
    """What would measure an unmeasured metric whose slices exist but sit below the
    low-n guard (SPEC 12.8): its two largest slices (by the metric's count), and the count
    per slice that would settle the gap they show today: the larger of the guard and the
    power-based count of 12.7 (None when that count is not finite), planned at the K the
    measured disparity would rest on (the metric's slices with a value, plus
    ``k_measured``, a measured half's) and Holm's first step over ``family``. None when
    fewer than two slices have a value: more rows of the same kind could not measure it.
    With two metrics unmeasured (equalized odds) K counts the slices of both, and as in
    :func:`rows_needed` a half whose gap exceeds the threshold settles it alone (the one
    asking for the fewest rows), else both need their rows (the larger first, the other
    under ``also``, both planned so that together they settle it with probability
    ``power``, :func:`joint_power`). Returned with whether those rows alone would settle
    it (a gap over the threshold), or None."""
    parts = _guard_parts(slices, metrics)
    k = guard_k(slices, metrics, k_measured)
    entries = _guard_entries(parts, threshold, min_samples, k, family, alpha, power)
    if not entries:
        return None
    above = [e for over, e in entries if over and e["per_slice"] is not None]
    if above:  # its gap alone would exceed the threshold: the cheapest such half
        return min(above, key=lambda e: e["per_slice"]), True
    if len(entries) > 1:  # both halves must settle: each planned for the joint power
        each = joint_power(len(entries), power)
        entries = _guard_entries(parts, threshold, min_samples, k, family, alpha, each)
    ranked = sorted((e for _, e in entries), key=lambda e: -(e["per_slice"] or math.inf))
    if len(ranked) == 1 or ranked[0]["per_slice"] is None:
        return ranked[0], False
    return {**ranked[0], "also": ranked[1]}, False


def _guard_parts(slices: list[dict[str, Any]], metrics: list[str]) -> dict[str, SliceEstimates]:
    """The metrics below the guard that more rows could measure: every slice with a value."""
    parts = {m: estimates(slices, m, low_n=True) for m in metrics}
    return {m: p for m, p in parts.items() if len(p.names) >= 2}


def guard_k(slices: list[dict[str, Any]], metrics: list[str], k_measured: int) -> int:
    """The K of a disparity once rows bring its ``metrics`` over the guard (SPEC 12.8):
    their slices with a value plus ``k_measured``, a measured half's slice estimates."""
    return sum(len(p.names) for p in _guard_parts(slices, metrics).values()) + k_measured


def _guard_entries(
    parts: dict[str, SliceEstimates],
    threshold: float,
    min_samples: int,
    k: int,
    family: int,
    alpha: float,
    power: float,
) -> list[tuple[bool, dict[str, Any]]]:
    """Per metric below the guard, whether its two largest slices' gap exceeds the
    threshold, and the rows that would bring them over the guard and settle that gap
    with probability ``power`` (:func:`below_guard`)."""
    entries = []
    for metric, part in parts.items():
        # the cheapest two to bring over the guard; ties keep report order
        big = sorted(range(len(part.names)), key=lambda i: -part.counts[i])[:2]
        top, bottom = sorted(big, key=lambda i: -round_half_up_units(part.values[i]))
        two = _subset(part, [top, bottom])
        got = settling_count(
            two, threshold, k, family=family, pair=(0, 1), alpha=alpha, power=power
        )
        need = None if got is None else got[0]
        gap = float(part.values[top] - part.values[bottom])
        entry = {
            "metric": metric,
            "slices": [part.names[top], part.names[bottom]],
            "count_now": [_count(part.counts[top]), _count(part.counts[bottom])],
            "per_slice": None if need is None else max(min_samples, need),
            "guard": min_samples,
        }
        entries.append((exceeds(gap, threshold), entry))
    return entries


def _subset(part: SliceEstimates, idx: list[int]) -> SliceEstimates:
    """The slices ``idx`` of ``part``."""

    def pick(a: Any) -> Any:
        return None if a is None else a[idx]

    names = [part.names[i] for i in idx]
    return SliceEstimates(
        part.metric,
        names,
        part.values[idx],
        part.counts[idx],
        pick(part.successes),
        pick(part.sds),
        part.cap,
        None if part.classes is None else (part.classes[0][idx], part.classes[1][idx]),
    )


def _count(x: float) -> int | float:
    """A slice's count as reported: whole, or with sample weights its effective size."""
    return int(x) if float(x).is_integer() else float(x)


def build_disparities(
    slices: list[dict[str, Any]],
    task: str,
    has_label: bool,
    has_selection: bool,
    threshold: float,
    has_score: bool = False,
    min_samples: int = 30,
) -> list[dict[str, Any]]:
    """The disparities of one slicing, in :data:`DISPARITIES` order."""
    ranges: dict[str, Any] = {}
    return [
        _evaluate(d, slices, threshold, ranges, min_samples)
        for d in DISPARITIES
        if applies(d, task, has_label, has_selection, has_score)
    ]
