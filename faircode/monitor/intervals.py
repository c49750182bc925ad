"""The evidence of a disparity: its interval, its two p-values and the rows that would
settle it (SPEC 12.7).

A disparity is a statistic of several slices at once (a max - min range, a min / max
ratio, the larger of two ranges). Its interval comes from **simultaneous slice
intervals**: each of the K slice estimates it rests on gets its own interval at level
1 - alpha / K (Bonferroni; Wilson for a rate, a normal interval for a mean error), so
with probability at least 1 - alpha every true slice value lies in its interval at once,
and then the true statistic lies between the smallest and largest value the statistic
can take over those intervals. That bound is closed form, exact for the statistic
reported (not for a proxy of it), needs only per-slice counts (so the store's SQL
reports get the same interval) and keeps small slices from dragging a resampled
estimate around, as an unstratified bootstrap does.

The p-values are the inversions of those intervals: the smallest alpha at which the
interval lies beyond the threshold (``p_exceeds``) or within it (``p_within``),
found by :func:`faircode.numerics.search_p` on the per-slice quantile and multiplied
by K (Bonferroni). Holm's correction across a report's gated disparities is applied in
:mod:`faircode.monitor.core`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numerics import Z, newcombe, normal_quantile, search_p
from ..options import FAIRNESS_ALPHA
from .stats import exceeds, round12

#: The family-wise error of a disparity's interval and of the gate (SPEC 12.7).
ALPHA = FAIRNESS_ALPHA
#: The power the rows-needed estimate plans for (SPEC 12.7).
POWER = 0.8


#: What a metric's count counts, by its denominator (SPEC 12.4), for the rows-needed text.
COUNT_UNITS = {
    "n": "rows",
    "n_labelled": "labelled rows",
    "n_label_pos": "labelled positives",
    "n_label_neg": "labelled negatives",
    "n_pred_pos_labelled": "labelled rows predicted 1",
    "n_pred_neg_labelled": "labelled rows predicted 0",
    "n_auc": "labelled rows of the smaller class",
    "n_scored_labelled": "labelled rows",
}


def count_unit(metric: str) -> str:
    """The unit of ``metric``'s count, e.g. "labelled positives" for tpr."""
    from .metrics import METRICS  # lazy: start-up

    denominator = next(m.denominator for m in METRICS if m.name == metric)
    return COUNT_UNITS.get(denominator, denominator)


def wilson_arrays_at(k: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's interval at quantile z for each k of n (n > 0): the formula of
    :func:`faircode.numerics.wilson_at`, over arrays (a report can hold 50,000 slices
    and a p-value search evaluates the interval 60 times)."""
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


@dataclass
class SliceEstimates:
    """The eligible slices of one metric: what their intervals are computed from."""

    metric: str
    names: list[str]
    values: np.ndarray
    counts: np.ndarray  # the metric's count (its denominator)
    successes: np.ndarray | None  # a rate's numerator; None for a mean error
    sds: np.ndarray | None  # a mean error's per-row standard deviation
    cap: float | None = None  # the largest value the metric takes (AUC: 1)
    # an AUC's positives and negatives (its interval is Newcombe's, SPEC 12.4); else None
    classes: tuple[np.ndarray, np.ndarray] | None = None

    def bounds(self, z: float) -> tuple[np.ndarray, np.ndarray]:
        if self.classes is not None:
            from .scores import auc_bounds  # lazy: start-up

            return auc_bounds(self.values, *self.classes, z)
        if self.successes is not None:
            return wilson_arrays_at(self.successes, self.counts, z)
        assert self.sds is not None
        with np.errstate(divide="ignore", invalid="ignore"):
            half = z * self.sds / np.sqrt(self.counts)
        if self.cap is None:  # a mean error without a spread to judge it by: unbounded
            half = np.where((self.counts > 1) & np.isfinite(self.sds), half, np.inf)
        high = self.values + half
        return np.maximum(0.0, self.values - half), high if self.cap is None else np.minimum(
            self.cap, high
        )


def estimates(slices: list[dict[str, Any]], metric: str, *, low_n: bool = False) -> SliceEstimates:
    """The eligible slices of ``metric`` (value not null, not low-n), in report order;
    with ``low_n`` every slice whose value is not null (the guard's shortfall, 12.8)."""
    rows = [
        s
        for s in slices
        if s["metrics"][metric]["value"] is not None
        and (low_n or not s["metrics"][metric]["low_n"])
    ]
    values = np.array([s["metrics"][metric]["value"] for s in rows], dtype=float)
    # with sample weights a slice's precision is that of its effective size (SPEC 12.7):
    # the metric's n_eff stands for its count, successes_eff for its successes
    size = "n_eff" if rows and "n_eff" in rows[0]["metrics"][metric] else "count"
    hits = "successes_eff" if size == "n_eff" else "successes"
    counts = np.array([s["metrics"][metric][size] for s in rows], dtype=float)
    successes = sds = None
    if metric == "auc":
        # Newcombe's score interval from the AUC and its two classes (SPEC 12.4), with
        # sample weights each class's n_eff as the slice's own ci95; sds (the variance at
        # today's AUC, per row of the count) only for a rows-needed margin
        from .scores import auc_variance  # lazy: start-up

        keys = ("positives_eff", "negatives_eff") if size == "n_eff" else ("positives", "negatives")
        pos, neg = (np.array([s["metrics"][metric][k] for s in rows], dtype=float) for k in keys)
        sds = np.sqrt(auc_variance(values, pos, neg) * counts)
        names = [s["slice"] for s in rows]
        return SliceEstimates(metric, names, values, counts, None, sds, 1.0, (pos, neg))
    if rows and "successes" in rows[0]["metrics"][metric]:
        successes = np.array([s["metrics"][metric][hits] for s in rows], dtype=float)
    else:
        # MAE: the absolute errors' variance from the slice's RMSE and MAE (mean of e^2
        # minus the square of the mean of |e|), with n - 1 in the denominator
        rmse = np.array([s["metrics"]["rmse"]["value"] for s in rows], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.maximum(0.0, rmse * rmse - values * values) * counts / (counts - 1.0)
        sds = np.sqrt(np.where(counts > 1, var, np.inf))
        sds = np.where(sds > 0, sds, spread_floor(sds))
    return SliceEstimates(metric, [s["slice"] for s in rows], values, counts, successes, sds)


def spread_floor(sds: np.ndarray) -> float:
    """The sd a slice whose absolute errors are all equal (sd 0) is judged by (SPEC 12.7):
    the largest finite sd among the metric's other slices, or unbounded when none shows
    any spread. Its own sample says nothing of the spread: an interval of width 0 would
    claim its MAE exactly, and the gate passed one in six models whose true MAE range
    exceeded the threshold when a 30-row slice happened to show no error."""
    finite = sds[np.isfinite(sds) & (sds > 0)]
    return float(finite.max()) if finite.size else math.inf


def _range_bounds(e: SliceEstimates, z: float) -> tuple[float, float]:
    lo, hi = e.bounds(z)
    return max(0.0, float(lo.max() - hi.min())), float(hi.max() - lo.min())


def _ratio_bounds(e: SliceEstimates, z: float) -> tuple[float, float]:
    lo, hi = e.bounds(z)
    top, least_low = float(hi.max()), float(lo.min())
    low = 1.0 if top == 0 else least_low / top
    best_low, least_high = float(lo.max()), float(hi.min())
    high = 1.0 if best_low == 0 else min(1.0, least_high / best_low)
    return min(low, high), high


def statistic_bounds(
    kind: str, parts: list[SliceEstimates]
) -> tuple[Callable[[float], tuple[float, float]], int]:
    """(bounds at a per-slice quantile z, K): the statistic's interval from the measured
    parts' slice intervals (each part has at least two slices), and K the number of
    slice estimates they rest on."""
    k = sum(len(p.names) for p in parts)
    if kind == "ratio":
        return (lambda z: _ratio_bounds(parts[0], z)), k

    def bounds(z: float) -> tuple[float, float]:
        pairs = [_range_bounds(p, z) for p in parts]
        return max(lo for lo, _ in pairs), max(hi for _, hi in pairs)

    return bounds, k


def slice_z(k: int, alpha: float = ALPHA) -> float:
    """The per-slice quantile of K simultaneous intervals at family level 1 - alpha."""
    return normal_quantile(alpha / (2.0 * k))


def evidence(
    kind: str, parts: list[SliceEstimates], threshold: float | None, alpha: float = ALPHA
) -> dict[str, Any]:
    """ci95 (at family level 1 - alpha), and for a gated disparity the raw p_exceeds and
    p_within of SPEC 12.7 (Bonferroni over its K slice estimates, before Holm)."""
    bounds, k = statistic_bounds(kind, parts)
    lo, hi = bounds(slice_z(k, alpha))
    # a mean error of one row has no variance: its interval, and the range's, is unbounded
    out: dict[str, Any] = {"ci95": [lo, hi if math.isfinite(hi) else None], "slice_estimates": k}
    if threshold is not None:
        out["p_exceeds"] = min(1.0, k * search_p(lambda z: _above(bounds(z)[0], threshold)))
        out["p_within"] = min(1.0, k * search_p(lambda z: not _above(bounds(z)[1], threshold)))
    return out


def _above(x: float, threshold: float) -> bool:
    """The exceed rule (SPEC 12.7), with an unbounded end above every threshold."""
    return math.isinf(x) or exceeds(x, threshold)


def _row_variances(part: SliceEstimates) -> np.ndarray:
    """Each slice's per-row variance: p (1 - p) for a rate, sd^2 for a mean error."""
    if part.successes is not None:
        return part.values * (1.0 - part.values)
    assert part.sds is not None
    return part.sds * part.sds


def _with_counts(part: SliceEstimates, counts: np.ndarray) -> SliceEstimates:
    """``part`` at other counts and today's values (a rate's successes scale with them)."""
    successes = None if part.successes is None else part.values * counts
    classes = None
    if part.classes is not None:  # an AUC's two classes grow with its count
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = counts / part.counts
        classes = (part.classes[0] * scale, part.classes[1] * scale)
    return SliceEstimates(
        part.metric, part.names, part.values, counts, successes, part.sds, part.cap, classes
    )


def settling_count(
    part: SliceEstimates,
    threshold: float,
    k: int,
    *,
    family: int = 1,
    pair: tuple[int, int] | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> tuple[int, list[int]] | None:
    """The count N (of the metric's denominator) that would settle a range's verdict at
    today's values, and the slices that need it (SPEC 12.7): (N, slice indices), or None
    when no finite count does (the range equals the threshold at 12 decimals, or a
    needed slice has no finite variance).

    It is found from the rule that decides, not from a proxy of it: the smallest N at
    which the range's interval, computed by :meth:`SliceEstimates.bounds` with the
    named slices at max(count, N), clears the threshold by ``z_power`` standard errors of
    the gap that sets that end (so that data drawn at today's rates settles it with
    probability about ``power``). Above the threshold the low end must exceed it at
    the per-slice level alpha / (2 K family) (Holm's first step over ``family`` gated
    disparities: the adjusted p then is below alpha whatever the others' p are); it
    rests on the two extreme slices (``pair``: top, bottom), which are named. At or
    below it the high end must be within at alpha / 2K (p_within is not adjusted); it
    rests on every slice, and those with fewer than N are named."""
    value = float(part.values.max() - part.values.min())
    if round12(value) == round12(threshold):  # equal as the exceed rule sees them
        return None
    var = _row_variances(part)
    zb = normal_quantile(1.0 - power)
    above = exceeds(value, threshold)
    if above:
        top, bottom = pair or (int(np.argmax(part.values)), int(np.argmin(part.values)))
        raised = [top, bottom]
        z = slice_z(k * family, alpha)
    else:
        raised = list(range(len(part.names)))
        z = slice_z(k, alpha)
    if not np.all(np.isfinite(var[raised])):
        return None

    def settles(n: float) -> bool:
        counts = part.counts.copy()
        counts[raised] = np.maximum(counts[raised], n)
        lo, hi = _with_counts(part, counts).bounds(z)
        if above:
            i, j = top, bottom
            end = float(lo.max() - hi.min())
        else:
            i, j = int(np.argmax(hi)), int(np.argmin(lo))
            end = float(hi[i] - lo[j])
        margin = zb * math.sqrt(var[i] / counts[i] + var[j] / counts[j])
        if not math.isfinite(end + margin):  # a slice of one row: its interval is unbounded
            return False
        if above:
            return exceeds(end - margin, threshold)
        return not exceeds(end + margin, threshold)

    # the smallest whole N that settles it: doubling, then bisection
    high = 2
    while not settles(high):
        high *= 2
        if high > 1e15:  # a gap this close to the threshold: no count in reach
            return None
    low = high // 2  # low does not settle (or is below 2)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if settles(mid) else (mid, high)
    n = max(2, high)
    if above:
        return n, raised
    short = sorted((i for i in raised if part.counts[i] < n), key=lambda i: part.counts[i])
    return n, short or [int(np.argmax(part.values)), int(np.argmin(part.values))]


def pair_interval(part: SliceEstimates, top: int, bottom: int) -> list[float | None]:
    """The 95% interval of the difference between two named slices, as a pair (not
    adjusted for having picked them; SPEC 12.7): Newcombe's hybrid score interval for
    rates (13.1, statsmodels' ``method="newcomb"``), ``d +- Z * sqrt(s1^2/n1 + s2^2/n2)``
    for a mean error, and for an AUC the same combination of the two slices' own
    intervals as Newcombe's for rates (Zou and Donner's MOVER): ``d - sqrt((a1 - l1)^2 +
    (u2 - a2)^2)``, ``d + sqrt((u1 - a1)^2 + (a2 - l2)^2)``, which keeps a width when
    both AUCs are 1."""
    if part.classes is not None:
        lo, hi = part.bounds(Z)
        a1, a2 = float(part.values[top]), float(part.values[bottom])
        l1, u1, l2, u2 = float(lo[top]), float(hi[top]), float(lo[bottom]), float(hi[bottom])
        d = a1 - a2
        return [d - math.hypot(a1 - l1, u2 - a2), d + math.hypot(u1 - a1, a2 - l2)]
    if part.successes is not None:
        # whole counts, or with sample weights the effective ones (SPEC 12.7)
        lo, hi = newcombe(
            float(part.successes[top]),
            float(part.counts[top]),
            float(part.successes[bottom]),
            float(part.counts[bottom]),
            Z,
        )
        return [lo, hi]
    assert part.sds is not None
    d = float(part.values[top] - part.values[bottom])
    var = sum(float(part.sds[i] ** 2 / part.counts[i]) for i in (top, bottom))
    if not math.isfinite(var):
        return [None, None]
    half = Z * math.sqrt(var)
    return [d - half, d + half]
