"""Reference groups: each slice's rates against one reference slice (SPEC 12.6a).

Aequitas' ``ref_groups_dict={'race': 'Caucasian'}`` and its ``majority`` and
``min_metric`` reference methods: per single-attribute slicing with a reference, and per
rate metric (a Wilson metric of :data:`faircode.monitor.metrics.METRICS`), every other
eligible slice's difference to the reference (slice - reference, Newcombe's 95%
interval) and ratio (slice / reference, the Katz log 95% interval), with the
four-fifths band (0.8 <= ratio <= 1.25) reported as a convention. Reported only: a
reference never changes a status, the gate or an exit code.

The comparisons are computed from the report's slice entries (successes and counts), so
the file's report and the store's (which share ``assemble_report``) agree exactly.
"""

from __future__ import annotations

from typing import Any

from ..numerics import Z, katz_interval, newcombe
from ..options import spelled
from .args import add_attr, column
from .errors import MonitorInputError
from .metrics import METRICS, display_label
from .stats import round_half_up_units

#: VALUE keywords: the slice with the most rows; per metric, the lowest eligible value.
MAJ = "maj"
MIN = "min"
METHODS = ("given", MAJ, MIN)
#: The four-fifths band (Aequitas' tau = 0.8: fair when tau <= ratio <= 1 / tau).
FOUR_FIFTHS = (0.8, 1.25)
#: At most this many slice values are named in an error.
_NAMED = 20


def parse_cli(items: list[str] | None) -> dict[str, str]:
    """`--ref-group ATTR=VALUE` (repeatable, one per attribute) -> {attr: value}."""
    out: dict[str, str] = {}
    for item in items or []:
        attr, sep, value = item.partition("=")
        attr, value = attr.strip(" \t"), value.strip(" \t")
        if not sep or not attr or not value:
            raise MonitorInputError(
                f"--ref-group: expected ATTR=VALUE (VALUE a slice of ATTR, {MAJ} or {MIN}), "
                f"got {item!r}"
            )
        if attr in out:
            raise MonitorInputError(
                f"--ref-group: {attr!r} is given twice ({attr}={out[attr]}, {attr}={value}); "
                "give one reference per attribute"
            )
        out[attr] = value
    return out


def check(ref_groups: Any, attrs: list[str], option: str = "--ref-group") -> dict[str, str]:
    """``ref_groups`` ({attribute: value}) checked against ``attrs``; values as text."""
    if ref_groups is None:
        return {}
    option = spelled(option)
    if not isinstance(ref_groups, dict):
        raise MonitorInputError(
            f"{option}: give the reference groups as {{attribute: value}}, got {ref_groups!r}"
        )
    out: dict[str, str] = {}
    for attr, value in ref_groups.items():
        column(option, attr)
        if attr not in attrs:
            raise MonitorInputError(
                f"{option}: {attr!r} is not an attribute ({spelled('--attr')}: "
                f"{', '.join(attrs)}); add {add_attr(attr)}, or drop its reference"
            )
        if isinstance(value, list | dict | tuple | set) or (
            isinstance(value, str) and not value.strip(" \t")
        ):
            raise MonitorInputError(
                f"{option}: the reference of {attr!r} must be one slice value, {MAJ} or "
                f"{MIN}, got {value!r}"
            )
        out[attr] = value.strip(" \t") if isinstance(value, str) else display_label(value)
    return out


def _rate_metrics(slices: list[dict[str, Any]]) -> list[str]:
    """The rate metrics present in the slicing, in report order."""
    names = [m.name for m in METRICS if m.wilson]
    have = {k for s in slices for k, v in s["metrics"].items() if "successes" in v}
    return [n for n in dict.fromkeys(names) if n in have]


def _eligible(slice_: dict[str, Any], metric: str) -> str | None:
    """None when the slice is eligible for ``metric`` (SPEC 12.5), else the reason."""
    m = slice_["metrics"].get(metric)
    if m is None or m["value"] is None:
        return "undefined"
    return "low-n" if m["low_n"] else None


def _missing(slice_: dict[str, Any]) -> bool:
    return all(v is None for v in slice_["key"].values())


def four_fifths(ratio: float | None) -> str | None:
    """within / below / above the band 0.8-1.25, compared at 12 decimals (SPEC 12.7)."""
    if ratio is None:
        return None
    units = round_half_up_units(ratio)
    if units < round_half_up_units(FOUR_FIFTHS[0]):
        return "below"
    if units > round_half_up_units(FOUR_FIFTHS[1]):
        return "above"
    return "within"


def compare(slice_: dict[str, Any], ref: dict[str, Any], metric: str) -> dict[str, Any]:
    """One slice against the reference for ``metric`` (both eligible)."""
    a, b = slice_["metrics"][metric], ref["metrics"][metric]
    c1, n1, c2, n2 = a["successes"], a["count"], b["successes"], b["count"]
    if "n_eff" in a:  # sample weights: at the effective sizes (SPEC 12.7)
        c1, n1, c2, n2 = a["successes_eff"], a["n_eff"], b["successes_eff"], b["n_eff"]
    p1, p2 = c1 / n1, c2 / n2
    lo, hi = newcombe(c1, n1, c2, n2, Z)
    ratio = None if c2 == 0 else p1 / p2
    # a slice with none or all of its count successes: Haldane-Anscombe, not Katz's [1, 1]
    ci = None if c2 == 0 else katz_interval(c1, n1, c2, n2, Z)
    return {
        "metric": metric,
        "slice": slice_["slice"],
        "reference": ref["slice"],
        "value": a["value"],
        "reference_value": b["value"],
        "difference": p1 - p2,
        "difference_ci95": [lo, hi],
        "ratio": ratio,
        "ratio_ci95": None if ci is None else [ci[0], ci[1]],
        "four_fifths": four_fifths(ratio),
    }


def _resolve(
    group: dict[str, Any], attr: str, requested: str, option: str
) -> tuple[str, dict[str, Any] | None, str | None]:
    """(method, the reference slice or None, reason when None) for given and maj."""
    slices = group["slices"]
    if requested == MAJ:
        present = [s for s in slices if not _missing(s)]
        if not present:
            return MAJ, None, f"{attr} has no value but (missing)"
        # the first of the largest, in slice order (Aequitas: idxmax of group_size)
        return MAJ, max(present, key=lambda s: s["n"]), None
    matches = [s for s in slices if s["slice"] == requested]
    if len(matches) == 1:
        return "given", matches[0], None
    values = [s["slice"] for s in slices]
    if not matches:
        named = ", ".join(values[:_NAMED])
        if len(values) > _NAMED:
            named += f", ... ({len(values) - _NAMED} more)"
        raise MonitorInputError(
            f"{option} {attr}={requested}: not a slice of {attr} (values: {named}; or {MAJ}, {MIN})"
        )
    raise MonitorInputError(
        f"{option} {attr}={requested}: {len(matches)} slices of {attr} are shown as "
        f"{requested!r} (values of different types); recode {attr} so they differ"
    )


def reference_block(
    group: dict[str, Any], requested: str, option: str = "--ref-group"
) -> dict[str, Any]:
    """The ``reference`` entry of a single-attribute slicing (schema.json)."""
    attr = group["attributes"][0]
    slices = group["slices"]
    comparisons: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    if requested == MIN:
        method, ref, reason = MIN, None, None
    else:
        method, ref, reason = _resolve(group, attr, requested, option)
    for metric in _rate_metrics(slices):
        if method == MIN:
            pool = [s for s in slices if not _missing(s) and _eligible(s, metric) is None]
            if not pool:
                continue
            # the first of the lowest at 12 decimals, in slice order (Aequitas: idxmin per
            # metric; SPEC 12.6's ranking)
            base = min(pool, key=lambda s: round_half_up_units(s["metrics"][metric]["value"]))
        elif ref is None:
            continue
        else:
            base = ref
            why = _eligible(base, metric)
            if why is not None:
                excluded.append({"metric": metric, "slice": base["slice"], "reason": why})
                continue
        for s in slices:
            if s is base:
                continue
            why = _eligible(s, metric)
            if why is not None:
                excluded.append({"metric": metric, "slice": s["slice"], "reason": why})
                continue
            comparisons.append(compare(s, base, metric))
    return {
        "attribute": attr,
        "requested": requested,
        "method": method,
        "slice": None if ref is None else ref["slice"],
        "reason": reason,
        "comparisons": comparisons,
        "excluded": excluded,
    }


def attach(
    groups: list[dict[str, Any]], ref_groups: dict[str, str] | None, option: str = "--ref-group"
) -> None:
    """Add ``reference`` to each single-attribute slicing named in ``ref_groups``
    (intersections get none; an attribute with no slicing here is skipped)."""
    if not ref_groups:
        return
    for g in groups:
        if len(g["attributes"]) == 1 and g["attributes"][0] in ref_groups:
            g["reference"] = reference_block(g, ref_groups[g["attributes"][0]], option)
