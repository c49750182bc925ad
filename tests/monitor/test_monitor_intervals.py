"""SPEC 12.7: the interval of a disparity, its p-values, the rule and the rows needed.

Checked against scipy (the normal quantile), statsmodels (Newcombe's interval of a
pair, `NormalIndPower` for the rows needed, Holm's correction) and by simulation (the
coverage of the range and equalized-odds intervals with slices of 30 to 5,000 rows).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import confint_proportions_2indep
from util import data_file

from faircode.monitor import evaluate
from faircode.monitor.intervals import (
    SliceEstimates,
    estimates,
    evidence,
    rows_needed,
    slice_z,
    wilson_arrays_at,
)
from faircode.numerics import normal_quantile, wilson_at

COMPAS = data_file("compas-scores-two-years.csv")


def rates(name: str, successes: list[int], counts: list[int]) -> SliceEstimates:
    k = np.array(successes, dtype=float)
    n = np.array(counts, dtype=float)
    return SliceEstimates(name, [f"s{i}" for i in range(len(k))], k / n, n, k, None)


@pytest.mark.parametrize("p", [0.4999, 0.2, 0.025, 0.025 / 7, 1e-6, 1e-12, 1e-100, 0.7, 0.99])
def test_normal_quantile_is_scipys_to_1e_12(p: float) -> None:
    assert abs(normal_quantile(p) - norm.isf(p)) <= 1e-12


def test_the_array_wilson_is_the_scalar_wilson() -> None:
    rng = np.random.default_rng(7)
    n = rng.integers(1, 5000, 400).astype(float)
    k = np.floor(rng.random(400) * (n + 1))
    for z in (0.0, 1.2, 1.959963984540054, 2.7, 6.0):
        lo, hi = wilson_arrays_at(k, n, z)
        for i in range(len(n)):
            slo, shi = wilson_at(k[i], n[i], z)
            assert abs(lo[i] - slo) <= 4e-16 and abs(hi[i] - shi) <= 4e-16


def test_range_interval_is_the_bound_over_simultaneous_slice_intervals() -> None:
    """By hand: three slices, K = 3, each Wilson at z with 2Q(z) = 0.05/3."""
    part = rates("selection_rate", [30, 50, 80], [100, 100, 100])
    ev = evidence("range", [part], None)
    z = norm.isf(0.05 / 6)
    bounds = [wilson_at(c, 100, z) for c in (30, 50, 80)]
    lo = max(b[0] for b in bounds) - min(b[1] for b in bounds)
    hi = max(b[1] for b in bounds) - min(b[0] for b in bounds)
    assert ev["slice_estimates"] == 3
    assert ev["ci95"] == pytest.approx([lo, hi], abs=1e-12)
    assert abs(slice_z(3) - z) <= 1e-12
    ratio = evidence("ratio", [part], None)["ci95"]
    los, his = [b[0] for b in bounds], [b[1] for b in bounds]
    assert ratio == pytest.approx([min(los) / max(his), min(1.0, min(his) / max(los))])


def test_p_values_are_the_inversions_of_the_interval() -> None:
    """p_exceeds < alpha exactly when the low end at family level 1 - alpha exceeds the
    threshold (and p_within for the high end), for alpha 0.05 and 0.01."""
    part = rates("selection_rate", [300, 420], [1000, 1000])
    for t in (0.05, 0.08, 0.1, 0.12, 0.15):
        ev = evidence("range", [part], t)
        for alpha in (0.05, 0.01):
            lo, hi = evidence("range", [part], None, alpha)["ci95"]
            if abs(lo - t) > 1e-6:
                assert (ev["p_exceeds"] < alpha) == (lo > t), (t, alpha)
            if abs(hi - t) > 1e-6:
                assert (ev["p_within"] < alpha) == (hi <= t), (t, alpha)


def test_max_min_pair_interval_is_statsmodels_newcombe() -> None:
    """COMPAS, race, decile_score >= 5: the DP difference's two extreme slices
    (African-American, Other) compared as a pair."""
    r = evaluate(
        COMPAS,
        None,
        ["race"],
        label="two_year_recid",
        score="decile_score",
        decision_threshold=5,
        engine="pandas",
    )
    (g,) = r["groups"]
    slices = {s["slice"]: s["metrics"] for s in g["slices"]}
    for d in g["disparities"]:
        if d["metric"] == "demographic_parity_ratio":
            continue
        if d["metric"] == "auc_range":  # not a rate: d +- Z * sqrt(se_1^2 + se_2^2)
            from faircode.monitor.scores import auc_se

            hi, lo = slices[d["max"]["slice"]]["auc"], slices[d["min"]["slice"]]["auc"]
            se2 = sum(
                float(auc_se(np.array([m["value"]]), m["positives"], m["negatives"])[0]) ** 2
                for m in (hi, lo)
            )
            half = 1.959963984540054 * se2**0.5
            want = [d["value"] - half, d["value"] + half]
            assert d["max_min_ci95"] == pytest.approx(want, abs=1e-12)
            continue
        metric = d["based_on"][0] if "components" not in d else d["components"]["larger"][:3]
        hi, lo = slices[d["max"]["slice"]][metric], slices[d["min"]["slice"]][metric]
        want = confint_proportions_2indep(
            hi["successes"], hi["count"], lo["successes"], lo["count"], method="newcomb"
        )
        assert d["max_min_ci95"] == pytest.approx(list(want), abs=1e-12), d["metric"]
    dp = next(d for d in g["disparities"] if d["metric"] == "demographic_parity_difference")
    assert (dp["max"]["slice"], dp["min"]["slice"]) == ("African-American", "Other")
    assert dp["value"] == 0.378654391585426  # issue 26: exact to the bit
    assert dp["ci95"][0] < dp["max_min_ci95"][0] <= dp["max_min_ci95"][1] < dp["ci95"][1]


def test_holm_over_the_report_is_statsmodels_holm() -> None:
    """The adjusted p_exceeds of every gated disparity equals statsmodels' Holm over the
    report's raw p-values (recomputed here from the slices)."""
    r = evaluate(
        COMPAS,
        None,
        ["race", "sex", "age_cat"],
        label="two_year_recid",
        score="decile_score",
        decision_threshold=5,
        engine="pandas",
    )
    judged, raw = [], []
    for g in r["groups"]:
        for d in g["disparities"]:
            if not d["gated"] or d["evidence"] is None:
                continue
            parts = [estimates(g["slices"], m) for m in d.get("measured", d["based_on"])]
            raw.append(evidence("range", parts, d["threshold"])["p_exceeds"])
            judged.append(d)
    assert len(judged) >= 8
    _, adjusted, _, _ = multipletests(raw, method="holm")
    for d, p in zip(judged, adjusted, strict=True):
        assert d["evidence"]["p_exceeds"] == pytest.approx(p, abs=1e-15)
        assert (d["status"] == "exceeded") == (p < 0.05)


@pytest.mark.parametrize(
    ("p1", "p2", "threshold", "k"),
    [(0.6, 0.3, 0.1, 2), (0.45, 0.4, 0.1, 2), (0.2, 0.12, 0.05, 5), (0.9, 0.5, 0.3, 8)],
)
def test_rows_needed_is_normal_ind_power(p1: float, p2: float, threshold: float, k: int) -> None:
    part = rates("tpr", [int(p1 * 1000), int(p2 * 1000)], [1000, 1000])
    need = rows_needed(part, 0, 1, threshold, k)
    v = p1 * (1 - p1) + p2 * (1 - p2)
    effect = abs(p1 - p2 - threshold) / math.sqrt(v / 2)
    want = NormalIndPower().solve_power(effect, alpha=0.05 / k, power=0.8, ratio=1.0)
    assert need is not None and abs(need - want) <= 0.01 * want + 1
    assert rows_needed(rates("tpr", [600, 500], [1000, 1000]), 0, 1, 0.1, 2) is None


def _simulate_range(rng, probs, sizes, reps: int) -> float:
    probs, sizes = np.asarray(probs), np.asarray(sizes)
    truth = probs.max() - probs.min()
    hits = 0
    for _ in range(reps):
        k = rng.binomial(sizes, probs).astype(float)
        part = SliceEstimates("x", [str(i) for i in range(len(k))], k / sizes, sizes * 1.0, k, None)
        lo, hi = evidence("range", [part], None)["ci95"]
        hits += lo <= truth <= hi
    return hits / reps


@pytest.mark.parametrize(
    ("probs", "sizes"),
    [
        ([0.3, 0.3, 0.3], [30, 300, 5000]),  # null, unequal slices
        ([0.05, 0.05], [30, 5000]),  # null at a rate near 0
        ([0.2, 0.35, 0.5, 0.5], [40, 120, 900, 5000]),  # planted gaps
        ([0.6, 0.9], [30, 30]),  # a large gap on the smallest slices
        ([0.5, 0.52, 0.48, 0.5, 0.51], [30, 60, 250, 1000, 5000]),
    ],
)
def test_range_interval_covers_at_least_94_percent(probs, sizes) -> None:
    rng = np.random.default_rng(26)
    assert _simulate_range(rng, probs, sizes, 600) >= 0.94


@pytest.mark.parametrize(
    ("tprs", "fprs", "positives", "negatives"),
    [
        ([0.7, 0.7], [0.2, 0.2], [30, 2000], [60, 3000]),  # null
        ([0.5, 0.7, 0.6], [0.1, 0.1, 0.3], [50, 400, 5000], [30, 800, 4000]),  # planted
        ([0.9, 0.6], [0.05, 0.06], [35, 35], [5000, 5000]),  # the TPR half decides
    ],
)
def test_equalized_odds_interval_covers_at_least_94_percent(
    tprs, fprs, positives, negatives
) -> None:
    rng = np.random.default_rng(126)
    tprs, fprs = np.asarray(tprs), np.asarray(fprs)
    pos, neg = np.asarray(positives, dtype=float), np.asarray(negatives, dtype=float)
    truth = max(tprs.max() - tprs.min(), fprs.max() - fprs.min())
    hits, reps = 0, 600
    names = [str(i) for i in range(len(tprs))]
    for _ in range(reps):
        tp = rng.binomial(pos.astype(int), tprs).astype(float)
        fp = rng.binomial(neg.astype(int), fprs).astype(float)
        parts = [
            SliceEstimates("tpr", names, tp / pos, pos, tp, None),
            SliceEstimates("fpr", names, fp / neg, neg, fp, None),
        ]
        lo, hi = evidence("range", parts, None)["ci95"]
        hits += lo <= truth <= hi
    assert hits / reps >= 0.94


def test_mae_range_interval_from_the_slices_own_statistics() -> None:
    """A regression model: MAE's interval per slice from its RMSE and MAE (SPEC 12.7)."""
    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame(
        {
            "g": ["a"] * n + ["b"] * n,
            "y": rng.normal(10, 2, 2 * n),
        }
    )
    df["p"] = df["y"] + np.where(df["g"] == "a", rng.normal(0, 1, 2 * n), rng.normal(0, 3, 2 * n))
    r = evaluate(df, "p", ["g"], label="y", task="regression", threshold=0.5, engine="pandas")
    (d,) = r["groups"][0]["disparities"]
    e = np.abs(df["p"] - df["y"])
    sds = e.groupby(df["g"]).std(ddof=1)
    maes = e.groupby(df["g"]).mean()
    z = norm.isf(0.05 / 4)
    lo = {g: max(0.0, maes[g] - z * sds[g] / math.sqrt(n)) for g in "ab"}
    hi = {g: maes[g] + z * sds[g] / math.sqrt(n) for g in "ab"}
    want = [max(0.0, max(lo.values()) - min(hi.values())), max(hi.values()) - min(lo.values())]
    assert d["metric"] == "mae_range"
    assert d["ci95"] == pytest.approx(want, rel=1e-9)
    assert d["status"] == "exceeded"  # MAE about 2.4 vs 0.8: far beyond 0.5


def test_every_metric_count_has_a_unit_for_the_rows_needed_text() -> None:
    from faircode.monitor.intervals import COUNT_UNITS
    from faircode.monitor.metrics import METRICS

    assert {m.denominator for m in METRICS} <= set(COUNT_UNITS)
