"""Numerics shared by every metric (SPEC.md section 13).

Each function here has a twin in assets/profiler-engine.js written with the same
operations in the same order, so both engines produce identical bits.
"""

from __future__ import annotations

import functools
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


def missing_group_label(dim: str) -> str:
    """The row of the rows whose dimension `dim` is missing (SPEC 17.4, 17.5) in a
    report: `(missing sex)`."""
    return f"(missing {dim})"


def drift_text(level: str | None, verdict: str | None = None) -> str:
    """A compared dimension's drift level in a report, with its verdict when it has one
    (`significant (possible)`, SPEC 8); `not compared` when null (a side without a row
    holding a value has no shares)."""
    if level is None:
        return "not compared"
    return level if verdict is None else f"{level} ({verdict})"


def drift_claimed(d: dict) -> bool:
    """Whether a compared dimension's report claims drift (SPEC 8): a level beyond none
    that is confirmed, or has no verdict (the PSI band alone: `drift_rule` psi, or a
    result saved before the drift test)."""
    return d["drift_level"] not in (None, "none") and d.get("drift_verdict") in (
        None,
        "confirmed",
    )


def fmt_or_dash(x: float | None, dp: int) -> str:
    """:func:`fmt`, or `-` for a value not computed (a dimension's PSI and TVD, SPEC 8)."""
    return "-" if x is None else fmt(x, dp)


def pct(x: float) -> str:
    """`P(x)`: a fraction as a percentage with two decimals, the digits of its 4-dp
    rounding (SPEC 13): `t = floor(x * 10000 + 0.5)`, shown as `t / 100`.

    The one formatter of every displayed share, rate, interval and difference in points:
    JSON keeps `round_half_up(x, 4)`, and this shows that same number, so a fact is
    rounded once and reads alike in every format (issue 27).
    """
    t = int(math.floor(x * 10000 + 0.5))
    sign = "-" if t < 0 else ""
    t = abs(t)
    return f"{sign}{t // 100}.{str(t % 100).rjust(2, '0')}"


def pct_not_zero(x: float, sign: int, below_one: bool = False) -> str:
    """:func:`pct`, or `<0.01` (`-<0.01` for a negative sign) for a value known not to be 0
    (``sign`` its sign; 0 when it may be 0) whose P(x) reads 0.00, and `>99.99` for a share
    known to be below 1 (``below_one``) whose P(x) reads 100.00 (SPEC 8): one row of 30,000
    is not "0.00%", nor 29,999 of them "100.00%"."""
    text = pct(x)
    if sign and text == "0.00":
        return "-<0.01" if sign < 0 else "<0.01"
    if below_one and text == "100.00":
        return ">99.99"
    return text


def share_text(x: float, count: int, n: int) -> str:
    """`P(x)%` of a share or rate `count / n` as reports show it: `<0.01%` or `>99.99%`
    where it would read 0.00% or 100.00% but some of the n rows are in and some out
    (:func:`pct_not_zero`; SPEC 8, 9, 19)."""
    return pct_not_zero(x, int(count > 0), count < n) + "%"


def compare_group_cells(g: dict, groups: list[dict]) -> tuple[str, str, str]:
    """A compared group's `A%`, `B%` and change in points as reports show them (SPEC 8):
    a side where the group has rows (every side but the one it appeared or disappeared
    on) never reads 0.00%, nor 100.00% when another group of ``groups`` (its dimension's
    groups) has rows there too; an appeared or disappeared group's change never reads 0."""
    status = g["status"]
    delta = g["share_delta"]
    moved = 1 if status == "appeared" else -1 if status == "disappeared" else 0
    change = pct_not_zero(delta, moved)
    rows_a = sum(o["status"] != "appeared" for o in groups)  # groups with rows on A
    rows_b = sum(o["status"] != "disappeared" for o in groups)
    return (
        pct_not_zero(g["share_a"], int(status != "appeared"), rows_a > 1) + "%",
        pct_not_zero(g["share_b"], int(status != "disappeared"), rows_b > 1) + "%",
        ("+" if delta > 0 or change == "<0.01" else "") + change + " pts",
    )


def shift_cells(
    a: float, b: float, delta: float, counts: tuple[int, int, int, int] | None
) -> tuple[str, str, str]:
    """A compared label rate's or missing share's `A%`, `B%` and change in points as
    reports show them (SPEC 17.6), ``counts`` its (c_a, n_a, c_b, n_b): each side as
    :func:`share_text`, and a change that would read 0.00 where one side has none (or all)
    of its rows counted and the other not reads `+<0.01` or `-<0.01`. Without counts (a
    result saved before compare wrote them) the plain numbers."""
    if counts is None:
        return pct(a) + "%", pct(b) + "%", ("+" if delta > 0 else "") + pct(delta) + " pts"
    ca, na, cb, nb = counts
    moved = (ca == 0) != (cb == 0) or (ca == na) != (cb == nb)
    up = cb * na - ca * nb  # the sign of cb / nb - ca / na, exactly
    change = pct_not_zero(delta, ((up > 0) - (up < 0)) if moved else 0)
    return (
        share_text(a, ca, na),
        share_text(b, cb, nb),
        ("+" if delta > 0 or change == "<0.01" else "") + change + " pts",
    )


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


def katz_interval(c1: float, n1: float, c2: float, n2: float, z: float) -> tuple[float, float]:
    """The Katz log interval of (c1/n1) / (c2/n2) at z (c2 > 0), with Haldane and
    Anscombe's correction where a cell of the 2 x 2 table is zero (none or all of a group
    successes): Katz's standard error is then undefined or 0 (the interval [1, 1] for two
    groups all successes), so the interval is that of c + 0.5 of n + 1, widened to hold the
    estimate (0 the lower end when c1 is 0; SPEC 13.1). The label-rate gap's (SPEC 17.4),
    the LL144 audit's (SPEC 20.1) and the monitor's reference groups' (SPEC-monitor 12.6)."""
    if 0 < c1 < n1 and c2 < n2:
        got = log_ratio_interval(c1, n1, c2, n2, z)  # type: ignore[arg-type]
        assert got is not None
        return got
    got = log_ratio_interval(c1 + 0.5, n1 + 1, c2 + 0.5, n2 + 1, z)  # type: ignore[arg-type]
    assert got is not None
    ratio = (c1 * n2) / (n1 * c2)
    return min(got[0], ratio), max(got[1], ratio)


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


@functools.lru_cache(maxsize=256)
def normal_quantile(p: float) -> float:
    """The z with Q(z) = p for 0 < p < 1 (the upper-tail quantile; SPEC 13.1): 80 halvings
    of [0, Z_SEARCH] on `normal_upper`, negated for p > 1/2. Only the monitor uses it.
    Cached: a trend asks the same few quantiles (alpha / 2k, the power) for every bucket,
    and each search costs 80 evaluations of `normal_upper`."""
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


# ---- Numeric outcomes (SPEC 21): exact sums, Student's t -----------------------------

#: SPEC 21.2: a value is used when 0 or OUTCOME_TINY <= |v| <= OUTCOME_HUGE, so every
#: value is a whole multiple of 2^-SCALE1 and its square of 2^-SCALE2 and no sum of
#: squares overflows: sums are kept exactly as integers in those units.
OUTCOME_HUGE = 1e140
OUTCOME_TINY = 1e-140
SCALE1 = 520
SCALE2 = 1040
_LN_SQRT_PI = 0.5723649429247001  # ln(Gamma(1/2))
_CF_EPS = 3e-16
_CF_FPMIN = 1e-300
_CF_MAXIT = 100_000


def scaled(v: float) -> tuple[int, int]:
    """(v * 2^SCALE1, v * v * 2^SCALE2) as exact integers, for v in the outcome range."""
    m, d = v.as_integer_ratio()
    k = d.bit_length() - 1
    return m << (SCALE1 - k), (m * m) << (SCALE2 - 2 * k)


def ratio(num: int, den: int) -> float:
    """num / den correctly rounded (round half to even), den > 0: Python's int division;
    the JS engine's bigRatio gives the same double."""
    return num / den


def exact_mean(n: int, s1: int) -> float:
    """The mean of n values whose scaled sum is s1, correctly rounded."""
    return ratio(s1, n << SCALE1)


def exact_var(n: int, s1: int, s2: int) -> float:
    """The sample variance (n - 1 denominator) from exact sums, one rounding:
    (n * S2 - S1^2) / (n * (n - 1)) computed exactly, then rounded (n >= 2)."""
    return ratio(n * s2 - s1 * s1, (n * (n - 1)) << SCALE2)


def exact_diff(na: int, s1a: int, nb: int, s1b: int) -> float:
    """mean_a - mean_b correctly rounded: (S1a * nb - S1b * na) / (na * nb)."""
    return ratio(s1a * nb - s1b * na, (na * nb) << SCALE1)


def log1p(y: float) -> float:
    """ln(1 + y) for y > -1, from `ln` (SPEC 21.5): y when 1 + y rounds to 1, else
    ln(u) * y / (u - 1) with u = 1 + y (which cancels u's rounding)."""
    u = 1.0 + y
    if u == 1.0:
        return y
    return ln(u) * y / (u - 1.0)


def _stirling(x: float) -> float:
    """ln Gamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2), x >= 20: five series terms."""
    r = 1.0 / x
    r2 = r * r
    return r * (
        1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0 - r2 / 1188.0)))
    )


def lnbeta_half(a: float) -> float:
    """ln B(a, 1/2) = ln Gamma(a) + ln Gamma(1/2) - ln Gamma(a + 1/2), a > 0 (SPEC 21.5)."""
    s = 0.0
    while a < 20.0:  # Gamma(a) = Gamma(a + 1) / a, Gamma(a + 1/2) = Gamma(a + 3/2) / (a + 1/2)
        s = s + ln((a + 0.5) / a)
        a = a + 1.0
    r = -(a * log1p(0.5 / a)) - 0.5 * ln(a) + 0.5 + (_stirling(a) - _stirling(a + 0.5))
    return s + r + _LN_SQRT_PI


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _CF_FPMIN:
        d = _CF_FPMIN
    d = 1.0 / d
    h = d
    for m in range(1, _CF_MAXIT + 1):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _CF_FPMIN:
            d = _CF_FPMIN
        c = 1.0 + aa / c
        if abs(c) < _CF_FPMIN:
            c = _CF_FPMIN
        d = 1.0 / d
        h = h * (d * c)
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _CF_FPMIN:
            d = _CF_FPMIN
        c = 1.0 + aa / c
        if abs(c) < _CF_FPMIN:
            c = _CF_FPMIN
        d = 1.0 / d
        de = d * c
        h = h * de
        if abs(de - 1.0) < _CF_EPS:
            break
    return h


def t_upper(t: float, df: float) -> float:
    """P(T > t) for Student's t with df > 0 degrees of freedom (SPEC 21.5): half the
    regularized incomplete beta I_x(df/2, 1/2), x = df / (df + t^2)."""
    if t < 0:
        return 1.0 - t_upper(-t, df)
    if t == 0:
        return 0.5
    q = t * t
    if q == math.inf:
        return 0.0
    a = df / 2.0
    den = df + q
    front = exp(a * -log1p(q / df) + 0.5 * ln(q / den) - lnbeta_half(a))
    x = df / den
    if x < (a + 1.0) / (a + 2.5):
        return 0.5 * (front * _betacf(a, 0.5, x) / a)
    return 0.5 * (1.0 - front * _betacf(0.5, a, q / den) / 0.5)


#: ln(Gamma(3/2)) = ln(sqrt(pi) / 2), the first odd-df term's divisor (SPEC 21.5).
_LN_GAMMA_3_2 = -0.12078223763524522


def chi2_upper(x: float, df: int) -> float:
    """P(X > x) for chi-squared with a whole df >= 1 (SPEC 21.5): the closed forms,
    even df `e^-y sum_{j<df/2} y^j / j!`, odd df `2 Q(sqrt x)` plus the half-integer
    terms `e^-y y^(j+1/2) / Gamma(j+3/2)`, j < (df-1)/2, y = x/2; each term is taken from
    the largest one (computed from logs) by ratios, so none overflows."""
    if not x > 0:
        return 1.0
    y = x / 2.0
    half = df % 2  # 1: the odd series, whose powers are j + 1/2
    a = 0.5 * half
    count = df // 2  # the series' terms
    base = 2.0 * normal_upper(math.sqrt(x)) if half else 0.0
    if count == 0:
        return base
    top = min(count - 1, max(0, math.floor(y - a)))
    # ln Gamma(top + a + 1): a sum of logs from Gamma(1) = 1 or Gamma(3/2)
    lg = fsum([_LN_GAMMA_3_2 if half else 0.0, *(ln(i + a) for i in range(1, top + 1))])
    peak = exp(-y + (top + a) * ln(y) - lg) if top + a > 0 else exp(-y)
    terms = [peak]
    t = peak
    for j in range(top, 0, -1):  # down: term(j-1) = term(j) * (j + a) / y
        t = t * (j + a) / y
        terms.append(t)
    t = peak
    for j in range(top + 1, count):  # up: term(j) = term(j-1) * y / (j + a)
        t = t * y / (j + a)
        terms.append(t)
    return min(1.0, base + fsum(terms))


_T_CACHE: dict[tuple[float, float], float] = {}


def t_quantile(p: float, df: float) -> float:
    """The t > 0 with P(T > t) = p, 0 < p < 1/2 (SPEC 21.5): doubling from 1 until the
    tail is below p, then 64 halvings."""
    key = (p, df)
    got = _T_CACHE.get(key)
    if got is not None:
        return got
    lo, hi = 0.0, 1.0
    while t_upper(hi, df) > p:
        lo, hi = hi, hi * 2.0
    for _ in range(64):
        mid = (lo + hi) / 2.0
        if t_upper(mid, df) > p:
            lo = mid
        else:
            hi = mid
    out = (lo + hi) / 2.0
    if len(_T_CACHE) < 10_000:
        _T_CACHE[key] = out
    return out


def welch_df(va: float, na: int, vb: float, nb: int) -> float | None:
    """The Welch-Satterthwaite degrees of freedom, written without squaring the
    variances (SPEC 21.5): r = sa / (sa + sb), df = 1 / (r^2 / (na - 1) + (1 - r)^2 /
    (nb - 1)), with sa = va / na, sb = vb / nb; None when both are 0."""
    sa = va / na
    sb = vb / nb
    tot = sa + sb
    if tot == 0:
        return None
    r = sa / tot
    r1 = 1.0 - r
    return 1.0 / (r * r / (na - 1) + r1 * r1 / (nb - 1))


def not_shown(listed: int, not_listed: int, shown: int) -> int:
    """How many entries a report leaves out when it shows the first ``shown`` of the
    ``listed`` ones and the JSON counts ``not_listed`` more (SPEC 17.4: a 30,000-zip
    dimension lists 1,000 groups)."""
    return max(0, listed - shown) + not_listed


def more_text(listed: int, not_listed: int, shown: int, what: str = "") -> str | None:
    """The line after the first ``shown`` of ``listed`` entries (:func:`not_shown`): how
    many are not shown and whether `--json` has them all; None if none. ``what`` is a
    plural noun ending in ``s`` ("groups"), singular for one ("1 more group")."""
    hidden = not_shown(listed, not_listed, shown)
    if not hidden:
        return None
    where = f"; --json lists the first {listed:,}" if not_listed else " (--json shows all)"
    noun = what[:-1] if what and hidden == 1 else what
    return f"... {hidden:,} more{' ' + noun if noun else ''}{where}"


def count_text(n: object, noun: str) -> str:
    """`1 flag`, `2 flags`: a count and its noun in agreement (reprs, 6.1's lines)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def more_lines(indent: str, listed: int, not_listed: int, shown: int, what: str = "") -> list[str]:
    """:func:`more_text` as the lines a terminal report appends: none, or that line
    after ``indent``."""
    more = more_text(listed, not_listed, shown, what)
    return [] if more is None else [indent + more]
