"""Small numeric helpers shared by both engines: Wilson intervals and the exceed rule."""

from __future__ import annotations

import math

import numpy as np

#: Two-sided 95% normal quantile used for every Wilson interval: the profiler's Z.
from ..numerics import Z as Z95

#: Values are compared after rounding half-up to this many decimals (see SPEC section 12).
COMPARE_DECIMALS = 12
_SCALE = 10**COMPARE_DECIMALS


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for ``successes`` out of ``n``; ``None`` when ``n == 0``."""
    if n <= 0:
        return None
    lo, hi = wilson_arrays(np.array([successes], dtype=float), np.array([n], dtype=float), z)
    return float(lo[0]), float(hi[0])


def wilson_arrays(
    successes: np.ndarray, n: np.ndarray, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson bounds; entries with ``n == 0`` are NaN."""
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / m
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denom
        # at k = 0 (k = n) the lower (upper) bound is exactly 0 (1); pin it against rounding
        lo = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        hi = np.where(k == m, 1.0, np.clip(centre + half, 0.0, 1.0))
    lo = np.where(m > 0, lo, np.nan)
    hi = np.where(m > 0, hi, np.nan)
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
