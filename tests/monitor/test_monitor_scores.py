"""Score metrics per slice with --score (SPEC 12.4): AUC, Brier, ECE, reliability bins."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from datafiles import data_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from test_monitor_parity import assert_same, require_fairlearn

from faircode.monitor import evaluate
from faircode.monitor.render import render_csv, render_html, render_markdown, render_text

ROOT = Path(__file__).resolve().parents[2]
COMPAS = data_file("compas-scores-two-years.csv")
SCHEMA = json.loads((ROOT / "faircode" / "monitor" / "schema.json").read_text())
ENGINES = ["pandas", "fairlearn"]


def by_slice(report: dict[str, Any], group: int = 0) -> dict[str, dict[str, Any]]:
    return {s["slice"]: s for s in report["groups"][group]["slices"]}


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    if not COMPAS.exists():
        pytest.fail(f"test data missing: {COMPAS}", pytrace=False)
    return pd.read_csv(COMPAS)


def compas_report(engine: str) -> dict[str, Any]:
    return evaluate(
        COMPAS,
        pred=None,
        attrs=["race"],
        label="two_year_recid",
        score="decile_score",
        decision_threshold=5,
        engine=engine,
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_compas_auc_per_race_is_scikit_learns(compas: pd.DataFrame, engine: str) -> None:
    if engine == "fairlearn":
        require_fairlearn()
    report = compas_report(engine)
    slices = by_slice(report)
    assert set(slices) == set(compas["race"])
    for race, g in compas.groupby("race"):
        auc = slices[race]["metrics"]["auc"]
        expected = roc_auc_score(g["two_year_recid"], g["decile_score"])
        assert abs(auc["value"] - expected) <= 1e-12, race
        assert auc["positives"] == int((g["two_year_recid"] == 1).sum())
        assert auc["negatives"] == int((g["two_year_recid"] == 0).sum())
        assert auc["count"] == min(auc["positives"], auc["negatives"])
        lo, hi = auc["ci95"]
        assert 0 <= lo < auc["value"] < hi <= 1
    # the numbers Fairlearn users quote
    assert round(slices["African-American"]["metrics"]["auc"]["value"], 3) == 0.692
    assert round(slices["Caucasian"]["metrics"]["auc"]["value"], 3) == 0.693


def newcombe_variance(a: float, p: float, n: float) -> float:
    """Hanley-McNeil's variance with Newcombe's (2006) pooled class size M = (P + N) / 2."""
    m = (p + n) / 2
    return a * (1 - a) * (1 + (m - 1) * ((1 - a) / (2 - a) + a / (1 + a))) / (p * n)


def is_score_end(end: float, a: float, p: float, n: float) -> bool:
    """An end of the score-type interval: at 0 or 1 inside it, else where the distance
    from the estimate equals z standard errors at the end itself (to 1e-9)."""
    z = 1.959963984540054
    gap = (a - end) ** 2 - z * z * newcombe_variance(end, p, n)
    return gap <= 1e-12 if end in (0.0, 1.0) else abs(gap) < 1e-9


def _separated(groups: dict[str, tuple[int, int]]) -> dict[str, Any]:
    """Per group (positives, negatives), scores that rank every positive above every
    negative: each slice's AUC is 1."""
    rows = []
    for g, (pos, neg) in groups.items():
        rows += [(g, 0.6 + 0.3 * i / pos, 1) for i in range(pos)]
        rows += [(g, 0.1 + 0.3 * i / neg, 0) for i in range(neg)]
    df = pd.DataFrame(rows, columns=["g", "s", "y"])
    return evaluate(
        df,
        pred=None,
        attrs=["g"],
        label="y",
        score="s",
        decision_threshold=0.5,
        min_samples=5,
        engine="pandas",
    )


def test_a_perfectly_separated_slice_is_not_certain_of_its_auc() -> None:
    """5 positives and 5 negatives perfectly separated: Hanley-McNeil's auc +- z se gave
    [1, 1], certainty from 10 rows; the score interval reaches down to about 0.64."""
    a = by_slice(_separated({"A": (5, 5), "B": (6, 8)}))["A"]["metrics"]["auc"]
    lo, hi = a["ci95"]
    assert a["value"] == 1.0 and hi == 1.0 and 0.6 < lo < 0.7
    assert is_score_end(lo, 1.0, 5, 5)


def test_two_perfect_slices_do_not_claim_equal_aucs() -> None:
    """Both slices at AUC 1 on 10 and 14 rows: the auc_range interval and the pair's
    interval must leave room for a gap (Hanley-McNeil gave [0, 0] for both)."""
    (d,) = [
        d
        for d in _separated({"A": (5, 5), "B": (6, 8)})["groups"][0]["disparities"]
        if d["metric"] == "auc_range"
    ]
    assert d["value"] == 0.0
    assert d["ci95"][1] > 0.3 and d["max_min_ci95"][1] > 0.3 and d["max_min_ci95"][0] < -0.3


@pytest.mark.parametrize(("auc", "pos", "neg"), [(0.95, 10, 10), (0.99, 20, 20), (0.95, 200, 10)])
def test_auc_interval_covers_about_95_percent_at_small_n(auc: float, pos: int, neg: int) -> None:
    """Binormal scores at a true AUC near 1: at least 93% of 1,000 draws' intervals hold
    it (Hanley-McNeil's covered 83%, 72% and 71% of these draws)."""
    from scipy.stats import norm, rankdata

    from faircode.monitor.scores import auc_interval

    rng = np.random.default_rng(2026)
    shift = np.sqrt(2) * norm.ppf(auc)
    x = np.concatenate([rng.normal(shift, 1, (1000, pos)), rng.normal(0, 1, (1000, neg))], axis=1)
    ranks = rankdata(x, axis=1)
    est = (ranks[:, :pos].sum(axis=1) - pos * (pos + 1) / 2) / (pos * neg)
    held = [
        lo <= auc <= hi for lo, hi in (auc_interval(a, pos, neg, 1.959963984540054) for a in est)
    ]
    assert np.mean(held) >= 0.93


def test_compas_auc_interval_is_newcombes_score_interval_and_auc_range_is_reported() -> None:
    report = compas_report("pandas")
    for s in report["groups"][0]["slices"]:
        auc = s["metrics"]["auc"]
        lo, hi = auc["ci95"]
        assert lo < auc["value"] < hi, s["slice"]
        for end in (lo, hi):
            assert is_score_end(end, auc["value"], auc["positives"], auc["negatives"])
    (d,) = [d for d in report["groups"][0]["disparities"] if d["metric"] == "auc_range"]
    assert (d["gated"], d["status"], d["threshold"]) == (False, "reported", None)
    eligible = [
        s["metrics"]["auc"]["value"]
        for s in report["groups"][0]["slices"]
        if not s["metrics"]["auc"]["low_n"]
    ]
    assert d["value"] == max(eligible) - min(eligible)
    assert d["eligible_slices"] == 4  # Asian (9 positives), Native American (8 negatives)
    assert {e["slice"] for e in d["excluded_slices"]} == {"Asian", "Native American"}
    assert d["ci95"][0] <= d["value"] <= d["ci95"][1]
    assert report["status"] == "exceeded"  # auc_range never changes a status


@pytest.mark.parametrize("engine", ENGINES)
def test_compas_brier_and_ece_equal_a_pandas_computation(compas: pd.DataFrame, engine: str) -> None:
    """decile_score 1..10 is not a probability: min-max scaled over the file to
    (s - 1) / 9, so each decile is its own bin."""
    if engine == "fairlearn":
        require_fairlearn()
    report = compas_report(engine)
    assert report["calibration"] == {"bins": 10, "scale": "min-max", "min": 1.0, "max": 10.0}
    slices = by_slice(report)
    df = compas.assign(p=(compas["decile_score"] - 1) / 9, y=compas["two_year_recid"])
    df["bin"] = np.minimum(np.floor(df["p"] * 10), 9).astype(int)
    assert (df["bin"] == df["decile_score"] - 1).all()
    for race, g in df.groupby("race"):
        brier = ((g["p"] - g["y"]) ** 2).mean()
        bins = g.groupby("bin").agg(n=("y", "size"), obs=("y", "mean"), mean=("p", "mean"))
        ece = (bins["n"] / len(g) * (bins["obs"] - bins["mean"]).abs()).sum()
        m = slices[race]["metrics"]
        assert abs(m["brier"]["value"] - brier) <= 1e-12, race
        assert abs(m["ece"]["value"] - ece) <= 1e-12, race
        assert m["brier"]["count"] == m["ece"]["count"] == len(g)
        got = slices[race]["calibration"]
        assert [b["bin"] for b in got] == bins.index.tolist()
        assert [b["count"] for b in got] == bins["n"].tolist()
        assert np.allclose([b["observed_rate"] for b in got], bins["obs"], atol=1e-15)
        assert np.allclose([b["mean_score"] for b in got], bins["mean"], atol=1e-15)


def probability_file(tmp_path: Path) -> Path:
    rows = [
        # slice A: ties across classes, a score of exactly 1.0
        ("A", 0.05, 0),
        ("A", 0.05, 1),
        ("A", 0.15, 0),
        ("A", 0.9, 1),
        ("A", 0.95, 1),
        ("A", 1.0, 0),
        # slice B: 0.3 lies on an edge and opens bin 3; an unlabelled row counts nowhere
        ("B", 0.3, 0),
        ("B", 0.3, 1),
        ("B", 0.7, 1),
        ("B", 0.2, 0),
        ("B", 0.99, None),
        # slice C: positives only, so AUC is undefined
        ("C", 0.6, 1),
        ("C", 0.8, 1),
    ]
    path = tmp_path / "probs.csv"
    pd.DataFrame(rows, columns=["g", "prob", "y"]).to_csv(path, index=False)
    return path


def bin_(k: int, count: int, pos: int, mean: float) -> dict[str, Any]:
    return {
        "bin": k,
        "low": k / 10,
        "high": (k + 1) / 10,
        "count": count,
        "positives": pos,
        "mean_score": mean,
        "observed_rate": pos / count,
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_probability_scores_bins_by_hand(tmp_path: Path, engine: str) -> None:
    if engine == "fairlearn":
        require_fairlearn()
    report = evaluate(
        probability_file(tmp_path),
        pred=None,
        attrs=["g"],
        label="y",
        score="prob",
        decision_threshold=0.5,
        min_samples=0,
        engine=engine,
    )
    assert report["calibration"] == {"bins": 10, "scale": "identity", "min": 0.05, "max": 1.0}
    s = by_slice(report)
    a, b, c = s["A"], s["B"], s["C"]
    # A: bin 0 {0.05/0, 0.05/1}, bin 1 {0.15/0}, bin 9 {0.9/1, 0.95/1, 1.0/0}
    want_a = [bin_(0, 2, 1, 0.05), bin_(1, 1, 0, 0.15), bin_(9, 3, 2, (0.9 + 0.95 + 1.0) / 3)]
    assert same_bins(a["calibration"], want_a)
    ece_a = 2 / 6 * 0.45 + 1 / 6 * 0.15 + 3 / 6 * abs(2 / 3 - 0.95)
    brier_a = (0.05**2 + 0.95**2 + 0.15**2 + 0.1**2 + 0.05**2 + 1.0) / 6
    assert a["metrics"]["ece"]["value"] == pytest.approx(ece_a, abs=1e-12)
    assert a["metrics"]["brier"]["value"] == pytest.approx(brier_a, abs=1e-12)
    # positives 0.05, 0.9, 0.95 against negatives 0.05, 0.15, 1.0: 0.5 + 2 + 2 of 9 pairs
    assert a["metrics"]["auc"]["value"] == pytest.approx(4.5 / 9, abs=1e-15)
    want_b = [bin_(2, 1, 0, 0.2), bin_(3, 2, 1, 0.3), bin_(7, 1, 1, 0.7)]
    assert same_bins(b["calibration"], want_b)
    assert b["metrics"]["ece"]["value"] == pytest.approx(
        1 / 4 * 0.2 + 2 / 4 * 0.2 + 1 / 4 * 0.3, abs=1e-12
    )
    assert b["metrics"]["brier"]["count"] == 4  # the unlabelled row is not scored here
    # B: positives 0.3, 0.7 against negatives 0.3, 0.2: (0.5 + 1) + (1 + 1) of 4
    assert b["metrics"]["auc"]["value"] == pytest.approx(3.5 / 4, abs=1e-15)
    assert c["metrics"]["auc"]["value"] is None and c["metrics"]["auc"]["ci95"] is None
    assert c["metrics"]["brier"]["value"] == pytest.approx((0.4**2 + 0.2**2) / 2, abs=1e-12)
    assert [x["bin"] for x in c["calibration"]] == [6, 8]
    (d,) = [d for d in report["groups"][0]["disparities"] if d["metric"] == "auc_range"]
    assert d["value"] == pytest.approx(3.5 / 4 - 0.5, abs=1e-15)
    assert d["excluded_slices"] == [{"slice": "C", "metric": "auc", "reason": "undefined"}]
    schema_validate(report)


def same_bins(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> bool:
    return len(got) == len(want) and all(
        g.keys() == w.keys() and all(g[k] == pytest.approx(w[k], abs=1e-15) for k in w)
        for g, w in zip(got, want, strict=True)
    )


def schema_validate(report: dict[str, Any]) -> None:
    import jsonschema

    cls = jsonschema.validators.validator_for(SCHEMA)
    cls(SCHEMA).validate(json.loads(json.dumps(report)))


def test_a_single_score_outside_0_1_has_no_calibration_scale(tmp_path: Path) -> None:
    df = pd.DataFrame({"g": ["a", "a", "b", "b"], "s": [7, 7, 7, 7], "y": [0, 1, 1, 0]})
    report = evaluate(
        df, pred=None, attrs=["g"], label="y", score="s", decision_threshold=5, min_samples=0
    )
    assert report["calibration"]["scale"] == "none"
    for s in report["groups"][0]["slices"]:
        assert s["metrics"]["brier"]["value"] is None
        assert s["metrics"]["ece"]["value"] is None
        assert s["calibration"] is None
        assert s["metrics"]["auc"]["value"] == 0.5  # every pair a tie
    schema_validate(report)


def test_without_score_or_label_there_are_no_score_metrics() -> None:
    df = pd.DataFrame({"g": ["a", "b"] * 4, "s": [0.1, 0.9] * 4, "y": [0, 1] * 4})
    pred = df.assign(p=(df["s"] >= 0.5).astype(int))
    for report in (
        evaluate(pred, pred="p", attrs=["g"], label="y"),
        evaluate(df, pred=None, attrs=["g"], score="s", decision_threshold=0.5),
    ):
        assert "calibration" not in report
        s = report["groups"][0]["slices"][0]
        assert "auc" not in s["metrics"] and "calibration" not in s
        assert all(d["metric"] != "auc_range" for d in report["groups"][0]["disparities"])


def test_renderers_show_the_score_metrics(tmp_path: Path) -> None:
    report = evaluate(
        probability_file(tmp_path),
        pred=None,
        attrs=["g"],
        label="y",
        score="prob",
        decision_threshold=0.5,
    )
    text = render_text(report)
    assert "scores: A AUC 0.500 Brier 0.323 ECE 0.317; B AUC 0.875" in text
    assert "AUC range" in text and "scores used as probabilities" in text
    md = render_markdown(report)
    assert "| Slice | AUC | Brier | ECE | Guard |" in md
    assert "| A | 0.500 (" in md  # with its Hanley-McNeil interval
    assert "| B | 0.3-0.4 | 2 | 0.300 | 0.500 |" in md  # a reliability bin
    html = render_html(report)
    assert "<th>AUC</th>" in html and "0.3-0.4: 0.300/0.500 (n=2)" in html
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    cal = [r for r in rows if r["section"] == "calibration" and r["slice"] == "A"]
    assert [(r["bin_low"], r["count"], r["successes"]) for r in cal] == [
        ("0.0", "2", "1"),
        ("0.1", "1", "0"),
        ("0.9", "3", "2"),
    ]
    assert {r["metric"] for r in rows if r["section"] == "slice"} >= {"auc", "brier", "ece"}


# engine parity with scores: ties, single-class slices, an unlabelled slice, scores in
# [0, 1] and outside it (min-max scaled)
@st.composite
def scored_frames(draw: st.DrawFn) -> pd.DataFrame:
    scale = draw(st.sampled_from([1.0, 10.0]))
    grid = draw(st.sampled_from([4, 20, 1000]))  # few distinct scores: many ties
    score = st.integers(min_value=0, max_value=grid).map(lambda k: k / grid * scale)
    rows = []

    def add(value: str, count: int, labels: st.SearchStrategy[Any]) -> None:
        for _ in range(count):
            rows.append((value, draw(st.sampled_from(["x", "y"])), draw(score), draw(labels)))

    size = st.integers(min_value=1, max_value=8)
    add("only0", draw(size), st.sampled_from([0, None]))
    add("only1", draw(size), st.sampled_from([1, None]))
    add("one", 1, st.sampled_from([0, 1]))
    add("none", draw(size), st.none())
    for v in ("p", "q"):
        add(v, draw(st.integers(min_value=2, max_value=30)), st.sampled_from([0, 1, 1, None]))
    return pd.DataFrame(rows, columns=["a", "b", "s", "y"])


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(scored_frames(), st.integers(min_value=0, max_value=3))
def test_engines_agree_on_score_metrics(df: pd.DataFrame, min_samples: int) -> None:
    require_fairlearn()
    kw = dict(label="y", score="s", decision_threshold=0.5, intersect=True)
    ours = evaluate(df, pred=None, attrs=["a", "b"], engine="pandas", min_samples=min_samples, **kw)
    theirs = evaluate(
        df, pred=None, attrs=["a", "b"], engine="fairlearn", min_samples=min_samples, **kw
    )
    ours.pop("engine")
    theirs.pop("engine")
    assert_same(ours, theirs)
    assert "auc" in ours["groups"][0]["slices"][0]["metrics"]


# Two slices whose AUC is exactly 4/9: the pandas engine's Mann-Whitney count gives
# 0.4444444444444444 for both, scikit-learn's trapezoid 0.4444444444444445 for p. Found
# by test_engines_agree_on_score_metrics in a CI run: the engines named different min
# slices (and so different max_min_ci95) for the same rows.
TIED_AUC = pd.DataFrame(
    [("p", s, y) for s, y in [(0.142, 1), (0.300, 0), (0.309, 1), (0.865, 0), (0.106, 1)]]
    + [("p", s, y) for s, y in [(0.178, 1), (0.512, 1), (0.261, 1), (0.032, 0)]]
    + [("q", s, y) for s, y in [(0.201, 1), (0.860, 0), (0.654, 1), (0.504, 1), (0.141, 0)]]
    + [("q", s, y) for s, y in [(1.000, 1), (0.286, 1), (0.058, 1), (0.000, 1), (0.698, 1)]]
    + [("q", 0.417, 1), ("r", 0.9, 1), ("r", 0.1, 0), ("r", 0.8, 1), ("r", 0.2, 0)],
    columns=["a", "s", "y"],
)


def test_engines_name_the_same_slices_when_values_tie_at_12_decimals() -> None:
    require_fairlearn()
    kw = dict(label="y", score="s", decision_threshold=0.5, min_samples=1)
    ours = evaluate(TIED_AUC, pred=None, attrs=["a"], engine="pandas", **kw)
    theirs = evaluate(TIED_AUC, pred=None, attrs=["a"], engine="fairlearn", **kw)
    aucs = {
        e: {s["slice"]: s["metrics"]["auc"]["value"] for s in r["groups"][0]["slices"]}
        for e, r in (("ours", ours), ("theirs", theirs))
    }
    # the premise: equal at 12 decimals, not to the last bit
    assert aucs["ours"]["p"] == aucs["ours"]["q"] == 4 / 9
    assert aucs["theirs"]["p"] != aucs["theirs"]["q"]
    for r in (ours, theirs):
        (auc_range,) = [d for d in r["groups"][0]["disparities"] if d["metric"] == "auc_range"]
        assert auc_range["max"]["slice"] == "r"
        assert auc_range["min"]["slice"] == "p"  # the first of the tie, in slice order
    ours.pop("engine")
    theirs.pop("engine")
    assert_same(ours, theirs)
