"""Small numeric helpers shared by both engines: Wilson intervals, the exceed rule, and
Kish's effective size of a weighted count (SPEC 12.7)."""

from __future__ import annotations

import math

import numpy as np

from ..numerics import wilson_bounds

#: Values are compared after rounding half-up to this many decimals (see SPEC section 12).
COMPARE_DECIMALS = 12
_SCALE = 10**COMPARE_DECIMALS


def wilson_interval(successes: int, n: int) -> tuple[float, float] | None:
    """Wilson score interval for ``successes`` out of ``n``; ``None`` when ``n == 0``.

    The package's one Wilson (:func:`faircode.numerics.wilson_bounds`), with the ends
    pinned as SPEC 12.4 says: low is 0 exactly at k = 0, high is 1 exactly at k = n.
    """
    if n <= 0:
        return None
    lo, hi = wilson_bounds(successes, n)
    return (0.0 if successes == 0 else lo), (1.0 if successes == n else hi)


def wilson_arrays(successes: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wilson_interval` per entry (at most 50,000 slices); NaN where ``n == 0``."""
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    pairs = [
        wilson_interval(a, b) or (math.nan, math.nan)
        for a, b in zip(k.tolist(), m.tolist(), strict=True)
    ]
    lo = np.array([p[0] for p in pairs], dtype=float)
    hi = np.array([p[1] for p in pairs], dtype=float)
    return lo, hi


def round_half_up_units(x: float) -> int:
    """``floor(x * 1e12 + 0.5)``: ``x`` in units of 1e-12, rounded half-up.

    Above about 1.8e296 the product overflows to infinity; such an ``x`` is an integer
    anyway, so its exact units are ``int(x) * 10**12`` (Python integers do not overflow).
    """
    scaled = x * _SCALE + 0.5
    if math.isinf(scaled) and math.isfinite(x):
        return int(x) * 10**12
    return math.floor(scaled)


def round12(x: float) -> float:
    """``x`` rounded half-up to 12 decimals (the value the exceed rule compares)."""
    return round_half_up_units(x) / _SCALE


def exceeds(value: float, threshold: float) -> bool:
    """The exceed rule: ``round12(value) > round12(threshold)`` (strict).

    A disparity equal to the threshold is within it, and float noise below 5e-13
    (``0.1 + 0.2`` against ``0.3``) does not flip the verdict.
    """
    return round_half_up_units(value) > round_half_up_units(threshold)


def weighted(counts: dict[str, np.ndarray]) -> bool:
    """Whether ``counts`` (or an engine result) carries sample-weight sums."""
    return "w_n" in counts


def effective(
    counts: dict[str, np.ndarray], numerator: str, denominator: str
) -> tuple[np.ndarray, np.ndarray]:
    """(effective successes, effective size) of a weighted metric (SPEC 12.7):
    ``n_eff = (sum w)^2 / sum w^2`` over the metric's count and ``successes_eff =
    p_w * n_eff`` written ``(sum w*success) * (sum w) / sum w^2``, so that with every
    weight 1 they are the unweighted k and n exactly. 0 where the weights sum to 0."""
    w = counts[f"w_{denominator}"]
    w2 = counts[f"w2_{denominator}"]
    num = counts.get(f"w_{numerator}", np.full(len(w), np.nan))  # a mean's: not needed
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(w2 > 0, w * w / np.where(w2 > 0, w2, 1.0), 0.0)
        k_eff = np.where(w2 > 0, num * w / np.where(w2 > 0, w2, 1.0), 0.0)
    return k_eff, n_eff
