"""Numerics shared by every metric (SPEC.md section 13).

Each function here has a twin in assets/profiler-engine.js written with the same
operations in the same order, so both engines produce identical bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable

fsum = math.fsum

#: The two-sided 95% normal quantile of every Wilson interval (SPEC 3 and 12.4).
Z = 1.959963984540054

_SCALE = {0: 1, 1: 10, 2: 100, 3: 1000, 4: 10000}
_SQRT2 = 1.4142135623730951
_LN2 = 0.6931471805599453


def wilson_bounds(c: float, n: float) -> tuple[float, float]:
    """The Wilson score interval of c out of n at Z, clipped to [0, 1], unrounded.

    The Wilson of the profiler and the monitor (SPEC 3's operations in SPEC 3's order,
    `wilson_at` at Z): the profiler rounds it to 4 dp, the monitor (SPEC 12.4) pins its
    ends at k = 0 and k = n.
    """
    return wilson_at(c, n, Z)


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


def rows_text(n: int) -> str:
    """`1 row`, `2 rows` (SPEC 6: counts in texts agree with their noun; issue 27)."""
    return f"{n} row" if n == 1 else f"{n} rows"


def pct(x: float) -> str:
    """`P(x)` of the flag texts: a share as a percentage with one decimal, `fmt(x * 100, 1)`."""
    return fmt(x * 100, 1)


# ---- Evidence (SPEC 13.1): exp, the normal tail, intervals at any z, Holm ----------

_INV_LN2 = 1.4426950408889634
_LN2_HI = 0.6931471803691238
_LN2_LO = 1.9082149292705877e-10
_INV_SQRT_2PI = 0.3989422804014327
#: Below this exp() is 0 (SPEC 13.1): the smallest p-value faircode reports is 0.
EXP_FLOOR = -708.0
#: The largest z the p-value search looks at (SPEC 13.1); 2 * Q(40) is below 1e-300.
Z_SEARCH = 40.0


def exp(x: float) -> float:
    """e**x from +, -, *, / and an exact power of two (SPEC 13.1), for x <= 709."""
    if x < EXP_FLOOR:
        return 0.0
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    s = 1.0
    for j in range(20, 0, -1):
        s = 1.0 + s * r / j
    return s * math.ldexp(1.0, k)


def normal_upper(z: float) -> float:
    """Q(z) = P(N(0, 1) > z) (SPEC 13.1): a series below 3, a continued fraction above."""
    if z < 0:
        return 1.0 - normal_upper(-z)
    phi = exp(-(z * z) / 2.0) * _INV_SQRT_2PI
    if z < 3.0:
        term = z
        total = z
        i = 1
        while term > 1e-17 * total and i < 300:
            term = term * (z * z) / (2 * i + 1)
            total = total + term
            i += 1
        return 0.5 - phi * total
    t = z
    for j in range(120, 0, -1):
        t = z + j / t
    return phi / t


def wilson_at(c: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson interval of c out of n at quantile z, clipped to [0, 1] (SPEC 3's
    operations with z for Z)."""
    z2 = z * z
    p = c / n
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    margin = (z / denom) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, center - margin), min(1.0, center + margin)


def newcombe(c1: int, n1: int, c2: int, n2: int, z: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval for c1/n1 - c2/n2 at quantile z (SPEC 13.1)."""
    p1 = c1 / n1
    p2 = c2 / n2
    l1, u1 = wilson_at(c1, n1, z)
    l2, u2 = wilson_at(c2, n2, z)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2))
    hi = d + math.sqrt((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2))
    return lo, hi


def log_ratio_interval(c1: int, n1: int, c2: int, n2: int, z: float) -> tuple[float, float] | None:
    """The Katz log interval for (c1/n1) / (c2/n2) (SPEC 13.1); None when a count is 0."""
    if c1 == 0 or c2 == 0:
        return None
    r = (c1 / n1) / (c2 / n2)
    se = math.sqrt(1 / c1 - 1 / n1 + 1 / c2 - 1 / n2)
    return r * exp(-(z * se)), r * exp(z * se)


def score_p(c: int, n: int, threshold: float, below: bool) -> float:
    """The two-sided-equivalent p of the score test that c/n lies beyond threshold (below
    it when `below`): 2 * Q(z) for the score statistic z in that direction, 1 when the
    share is not beyond (SPEC 13.1). Its 95% point is where Wilson's bound meets it."""
    if not 0.0 < threshold < 1.0:
        return 1.0
    p = c / n
    se = math.sqrt(threshold * (1 - threshold) / n)
    diff = threshold - p
    if se == 0.0:  # a subnormal threshold's variance underflows; JS divides to +-inf (or NaN)
        z = diff * math.inf if diff else math.nan
    else:
        z = diff / se
    if not below:
        z = -z
    if not z > 0:
        return 1.0
    return min(1.0, 2.0 * normal_upper(z))


def search_p(beyond: Callable[[float], bool]) -> float:
    """2 * Q(z*) for the largest z* at which `beyond(z)` still holds (its interval lies
    beyond the threshold), by 60 halvings of [0, Z_SEARCH] (SPEC 13.1); 1 when it does
    not hold at z = 0 (the estimate itself is not beyond)."""
    if not beyond(0.0):
        return 1.0
    lo, hi = 0.0, Z_SEARCH
    if beyond(hi):
        return min(1.0, 2.0 * normal_upper(hi))
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if beyond(mid):
            lo = mid
        else:
            hi = mid
    return min(1.0, 2.0 * normal_upper(lo))


def normal_quantile(p: float) -> float:
    """The z with Q(z) = p for 0 < p < 1 (the upper-tail quantile; SPEC 13.1): 80 halvings
    of [0, Z_SEARCH] on `normal_upper`, negated for p > 1/2. Only the monitor uses it."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile needs 0 < p < 1, got {p!r}")
    if p > 0.5:
        return -normal_quantile(1.0 - p)
    lo, hi = 0.0, Z_SEARCH
    for _ in range(80):
        mid = (lo + hi) / 2.0
        if normal_upper(mid) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def holm(ps: list[float], m: int) -> list[float]:
    """Holm's adjusted p-values of ps in a family of m >= len(ps) tests (the others'
    p being 1), in the order given; ties by position (SPEC 13.1)."""
    order = sorted(range(len(ps)), key=lambda i: (ps[i], i))
    out = [1.0] * len(ps)
    running = 0.0
    for rank, i in enumerate(order):
        adj = min(1.0, (m - rank) * ps[i])
        running = max(running, adj)
        out[i] = running
    return out
