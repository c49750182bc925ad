"""Numerics shared by every metric (SPEC.md section 13).

Each function here has a twin in assets/profiler-engine.js written with the same
operations in the same order, so both engines produce identical bits.
"""

from __future__ import annotations

import math

fsum = math.fsum

#: The two-sided 95% normal quantile of every Wilson interval (SPEC 3 and 12.4).
Z = 1.959963984540054

_SCALE = {0: 1, 1: 10, 2: 100, 3: 1000, 4: 10000}
_SQRT2 = 1.4142135623730951
_LN2 = 0.6931471805599453


def wilson_bounds(c: float, n: float) -> tuple[float, float]:
    """The Wilson score interval of c out of n at Z, clipped to [0, 1], unrounded.

    The one Wilson of the Python package (SPEC 3's operations in SPEC 3's order): the
    profiler rounds it to 4 dp, the monitor (SPEC 12.4) pins its ends at k = 0 and k = n.
    """
    z2 = Z * Z
    p = c / n
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    margin = (Z / denom) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, center - margin), min(1.0, center + margin)


def round_half_up(x: float, dp: int) -> float:
    """floor(x * F + 0.5) / F with a literal F: ties go up in both languages."""
    f = _SCALE[dp]
    return math.floor(x * f + 0.5) / f


def round_int(x: float) -> int:
    return int(math.floor(x + 0.5))


def fmt(x: float, dp: int) -> str:
    """Format with exactly dp decimals using integer arithmetic (no :.1f / toFixed)."""
    f = _SCALE[dp]
    t = int(math.floor(x * f + 0.5))
    sign = "-" if t < 0 else ""
    t = abs(t)
    if dp == 0:
        return f"{sign}{t}"
    return f"{sign}{t // f}.{str(t % f).rjust(dp, '0')}"


def ln(x: float) -> float:
    """Natural log from +, -, *, / only, so Python and JS agree bit for bit."""
    if not x > 0:
        raise ValueError("ln of a non-positive number")
    m, e = math.frexp(x)  # x = m * 2**e, m in [0.5, 1)
    m = m * 2.0
    e = e - 1
    if m > _SQRT2:
        m = m / 2.0
        e = e + 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    q = 1.0 / 23.0
    for j in range(21, 0, -2):
        q = q * s2 + 1.0 / j
    return e * _LN2 + 2.0 * s * q


def pct(x: float) -> str:
    """`P(x)` of the flag texts: a share as a percentage with one decimal, `fmt(x * 100, 1)`."""
    return fmt(x * 100, 1)
