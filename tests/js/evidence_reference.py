"""Writes tests/js/evidence-reference.json, the reference values of
tests/js/evidence.test.js (SPEC 13.1 and 5).

Each entry holds the independent reference (scipy or statsmodels; math.exp for exp)
and the Python engine's own value (faircode.numerics, faircode.evidence): the JS test
checks the first to 1e-12 and the second bit for bit.

    .venv/bin/python tests/js/evidence_reference.py > tests/js/evidence-reference.json
"""

from __future__ import annotations

import json
import math
import random
import sys
import warnings
from pathlib import Path

from scipy.optimize import brentq
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_confint,
    proportions_ztest,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from faircode import numerics as N  # noqa: E402
from faircode.evidence import balance, dimension_score  # noqa: E402

Z = N.Z
SEARCH_Z = 40.0


def alpha_at(z: float) -> float:
    """The two-sided level whose quantile is z (statsmodels takes alpha, not z)."""
    return 2 * float(norm.sf(z))


def newcomb(c1: int, n1: int, c2: int, n2: int, z: float) -> list[float]:
    lo, hi = confint_proportions_2indep(
        c1, n1, c2, n2, method="newcomb", compare="diff", alpha=max(alpha_at(z), 1e-300)
    )
    return [float(lo), float(hi)]


def main() -> None:
    warnings.filterwarnings("ignore")
    rng = random.Random(24)
    out: dict = {}

    xs = [-708.0, -707.9999, -700.5, -300.25, -100.0, -30.0, -10.5, -1.0, -0.5, -1e-10, 0.0]
    xs += [1e-10, 0.5, 1.0, 2.0, 2.5, 10.0, 100.0, 500.5, 700.0, 709.0, -math.log(2), math.log(2)]
    xs += [rng.uniform(-708, 709) for _ in range(40)] + [rng.uniform(-5, 5) for _ in range(40)]
    out["exp"] = [[x, math.exp(x), N.exp(x)] for x in xs]

    zs = [0.0, 1e-9, 0.5, 1.0, 1.6448536269514722, Z, 2.5, 2.9999999999, 3.0, 3.0000000001]
    zs += [4.0, 5.0, 8.0, 12.0, 20.0, 30.0, 37.0, 39.9, 40.0, -0.5, -1.0, -Z, -3.5, -8.0]
    zs += [rng.uniform(0, 3) for _ in range(40)] + [rng.uniform(3, 40) for _ in range(20)]
    out["Q"] = [[z, float(norm.sf(z)), N.normal_upper(z)] for z in zs]

    pairs = [(0, 10, 3, 10), (10, 10, 0, 10), (1901, 3696, 133, 377), (5, 20, 5, 20)]
    pairs += [(1, 1, 0, 1), (120, 202, 33, 203), (4, 4, 1, 4), (300, 1000, 290, 1000)]
    pairs += [(0, 5, 0, 7), (7, 7, 7, 7)]
    for _ in range(40):
        n1 = rng.randint(1, 5000)
        n2 = rng.randint(1, 5000)
        pairs.append((rng.randint(0, n1), n1, rng.randint(0, n2), n2))
    wilson = []
    for c1, n1, _c2, _n2 in pairs[:30]:
        for z in (Z, 1.0, 2.5758293035489004, 3.7):
            lo, hi = proportion_confint(c1, n1, alpha=alpha_at(z), method="wilson")
            wilson.append([c1, n1, z, [float(lo), float(hi)], list(N.wilson_at(c1, n1, z))])
    out["wilson"] = wilson
    diff, ratio = [], []
    for c1, n1, c2, n2 in pairs:
        for z in (Z, 1.0, 3.0):
            mine = list(N.newcombe(c1, n1, c2, n2, z))
            diff.append([c1, n1, c2, n2, z, newcomb(c1, n1, c2, n2, z), mine])
            if c1 and c2:
                lo, hi = confint_proportions_2indep(
                    c1, n1, c2, n2, method="log", compare="ratio", alpha=alpha_at(z)
                )
                mine = N.log_ratio_interval(c1, n1, c2, n2, z)
                ratio.append([c1, n1, c2, n2, z, [float(lo), float(hi)], list(mine)])
    out["newcombe"] = diff
    out["log_ratio"] = ratio
    out["log_ratio_null"] = [[0, 10, 3, 10], [3, 10, 0, 10], [0, 1, 0, 1]]
    # Katz with Haldane and Anscombe's correction at a zero cell: statsmodels' log interval
    # of c + 0.5 of n + 1, widened to hold c1/n1 / (c2/n2) (0 the low end when c1 is 0)
    tables = [(0, 20, 9, 20), (0, 1, 1, 1), (20, 20, 20, 20), (19, 20, 30, 30), (30, 30, 19, 20)]
    tables += [(0, 5, 5, 5), (1, 1, 1, 2), (0, 200, 1, 3), (7, 7, 3, 9)]
    tables += [(c1, n1, c2, n2) for c1, n1, c2, n2 in pairs[:40] if c2]
    katz = []
    for c1, n1, c2, n2 in tables:
        for z in (Z, 1.0, 3.0):
            zero = not (0 < c1 < n1 and c2 < n2)
            a = (c1 + 0.5, n1 + 1, c2 + 0.5, n2 + 1) if zero else (c1, n1, c2, n2)
            lo, hi = confint_proportions_2indep(
                *a, method="log", compare="ratio", alpha=alpha_at(z)
            )
            est = (c1 / n1) / (c2 / n2)
            want = [min(float(lo), est), max(float(hi), est)] if zero else [float(lo), float(hi)]
            katz.append([c1, n1, c2, n2, z, want, list(N.katz_interval(c1, n1, c2, n2, z))])
    out["katz"] = katz

    cases = [(3, 1000, 0.05, True), (40, 1000, 0.05, True), (49, 1000, 0.05, True)]
    cases += [(50, 1000, 0.05, True), (60, 1000, 0.05, False), (5819, 7214, 0.75, False)]
    cases += [(0, 7214, 0.01, True), (14, 7214, 0.01, True), (1, 95, 0.05, True)]
    cases += [(4, 95, 0.05, True), (2, 2, 0.5, False), (10, 100, 0.0, True)]
    cases += [(10, 100, 1.0, False), (100, 100, 0.999, False)]
    for _ in range(40):
        n = rng.randint(1, 20000)
        cases.append((rng.randint(0, n), n, rng.uniform(0.001, 0.999), rng.random() < 0.5))
    score = []
    for c, n, t, below in cases:
        ref = None  # the score test's two-sided p when c/n lies beyond t, else the p is 1
        if 0 < t < 1 and ((c / n < t) if below else (c / n > t)):
            ref = float(proportions_ztest(c, n, value=t, prop_var=t)[1])
        score.append([c, n, t, below, ref, N.score_p(c, n, t, below)])
    out["score_p"] = score

    gaps = [(1901, 3696, 133, 377, 0.1), (120, 202, 33, 203, 0.1), (4, 4, 1, 4, 0.1)]
    gaps += [(120, 200, 30, 200, 0.1), (60, 100, 40, 100, 0.1), (55, 100, 40, 100, 0.1)]
    gaps += [(30, 40, 10, 40, 0.2), (500, 1000, 380, 1000, 0.1), (999, 1000, 1, 1000, 0.1)]
    gaps += [(11, 100, 0, 100, 0.1), (5000, 10000, 4000, 10000, 0.0)]
    for _ in range(20):
        n1 = rng.randint(20, 3000)
        n2 = rng.randint(20, 3000)
        p1 = rng.uniform(0.2, 0.9)
        p2 = p1 - rng.uniform(0.0, 0.3)
        gaps.append((round(p1 * n1), n1, max(0, round(p2 * n2)), n2, rng.choice([0.05, 0.1, 0.15])))
    search = []
    for c1, n1, c2, n2, gap in gaps:
        mine = N.search_p(lambda z, a=(c1, n1, c2, n2), g=gap: N.newcombe(*a, z)[0] > g)
        ref = None  # the p whose Newcombe interval's lower end is gap: 1 when d <= gap
        if c1 / n1 - c2 / n2 > gap:
            if newcomb(c1, n1, c2, n2, SEARCH_Z)[0] > gap:
                ref = 2 * float(norm.sf(SEARCH_Z))
            else:
                z = brentq(
                    lambda z, a=(c1, n1, c2, n2), g=gap: newcomb(*a, z)[0] - g,
                    1e-12,
                    SEARCH_Z,
                    xtol=1e-15,
                    rtol=1e-15,
                    maxiter=500,
                )
                ref = 2 * float(norm.sf(z))
        search.append([c1, n1, c2, n2, gap, ref, mine])
    out["search_p"] = search

    holm = []
    fixed = [([0.01, 0.04, 0.03, 0.005], 4), ([0.01, 0.04, 0.03, 0.005], 10)]
    fixed += [([0.2, 0.2, 0.01], 3), ([0.5], 1), ([], 5), ([0.0, 0.0, 1e-300], 1000)]
    fixed += [([0.02, 0.02, 0.02, 0.02], 4), ([0.3, 0.001, 0.02], 50)]
    for _ in range(15):
        k = rng.randint(1, 30)
        ps = [rng.choice([rng.random() / 20, rng.random(), rng.random() / 1e8]) for _ in range(k)]
        fixed.append((ps, k + rng.randint(0, 300)))
    for ps, m in fixed:
        ref = multipletests(ps + [1.0] * (m - len(ps)), method="holm")[1][: len(ps)] if ps else []
        holm.append([ps, m, [float(x) for x in ref], N.holm(ps, m)])
    out["holm"] = holm

    scores = []
    fixed_counts = [[5819, 1395], [3696, 2454, 637, 377, 32, 18], [100], [1, 1], [60, 38, 2]]
    fixed_counts += [[137, 143, 3, 3, 3, 2, 3, 3, 3], [600, 385, 15], [100, 97, 3], [50] * 40]
    fixed_counts += [[1] * 300, [2000, 1], [0], [300, 200, 3]]
    for counts in fixed_counts:
        scores.append([counts, 100, list(balance(counts)), list(dimension_score(counts, 100))])
    for _ in range(60):
        counts = [
            rng.choice([rng.randint(1, 5), rng.randint(1, 80), rng.randint(1, 4000)])
            for _ in range(rng.randint(1, 15))
        ]
        size = rng.choice([0, 1, 100, 500])
        scores.append([counts, size, list(balance(counts)), list(dimension_score(counts, size))])
    out["score"] = scores
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
