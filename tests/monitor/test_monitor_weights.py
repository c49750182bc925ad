"""Sample weights (`--weight`, SPEC 12.1, 12.4, 12.5, 12.7): weighted rates and
disparities equal to Fairlearn's with ``sample_weight``, Kish's effective size for the
intervals and the low-n guard, and an unweighted report unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from datafiles import data_file
from hypothesis import given
from hypothesis import strategies as st
from test_monitor_parity import FAST, assert_same, frames, require_fairlearn

from faircode.monitor import evaluate
from faircode.monitor.errors import MonitorInputError
from faircode.monitor.render import CSV_COLUMNS
from faircode.numerics import Z, newcombe, wilson_at
from faircode.renderers import render_as

ROOT = Path(__file__).resolve().parents[2]
COMPAS = data_file("compas-scores-two-years.csv")
TOL = 1e-12
COMPAS_ARGS: dict[str, Any] = {
    "score": "decile_score",
    "decision_threshold": 5,
    "label": "two_year_recid",
}


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    if not COMPAS.exists():
        pytest.fail(f"test data missing: {COMPAS}", pytrace=False)
    df = pd.read_csv(COMPAS)
    # survey-like weights, seeded; a few rows weigh 0
    rng = np.random.default_rng(20260426)
    w = rng.gamma(2.0, 0.5, len(df))
    w[rng.random(len(df)) < 0.02] = 0.0
    df["w"] = w
    return df


def _slices(report: dict[str, Any], group: str = "race") -> dict[str, dict[str, Any]]:
    g = next(g for g in report["groups"] if g["name"] == group)
    return {s["slice"]: s for s in g["slices"]}


def _disparity(report: dict[str, Any], name: str, group: str = "race") -> dict[str, Any]:
    g = next(g for g in report["groups"] if g["name"] == group)
    return next(d for d in g["disparities"] if d["metric"] == name)


@pytest.mark.parametrize("engine", ["pandas", "fairlearn"])
def test_compas_weighted_metrics_equal_fairlearn_metricframe(
    compas: pd.DataFrame, engine: str
) -> None:
    """Per race: selection rate, TPR, FPR, accuracy equal MetricFrame with sample_weight,
    and the DP and EO differences Fairlearn's functions with sample_weight (every slice
    eligible: min_samples 0), to 1e-12."""
    require_fairlearn()
    from fairlearn.metrics import (
        MetricFrame,
        demographic_parity_difference,
        equalized_odds_difference,
        false_positive_rate,
        selection_rate,
        true_positive_rate,
    )
    from sklearn.metrics import accuracy_score

    report = evaluate(
        compas, pred=None, attrs=["race"], weight="w", engine=engine, min_samples=0, **COMPAS_ARGS
    )
    assert report["engine"] == engine
    y = compas["two_year_recid"].to_numpy()
    yp = (compas["decile_score"] >= 5).astype(int).to_numpy()
    w = compas["w"].to_numpy()
    funcs = {
        "selection_rate": selection_rate,
        "tpr": true_positive_rate,
        "fpr": false_positive_rate,
        "accuracy": accuracy_score,
    }
    mf = MetricFrame(
        metrics=funcs,
        y_true=y,
        y_pred=yp,
        sensitive_features=compas["race"],
        sample_params={k: {"sample_weight": w} for k in funcs},
    )
    slices = _slices(report)
    assert set(slices) == set(mf.by_group.index)
    for race, row in mf.by_group.iterrows():
        for metric in funcs:
            got = slices[race]["metrics"][metric]["value"]
            assert abs(got - row[metric]) <= TOL, (race, metric, got, row[metric])
    dp = demographic_parity_difference(y, yp, sensitive_features=compas["race"], sample_weight=w)
    eo = equalized_odds_difference(y, yp, sensitive_features=compas["race"], sample_weight=w)
    assert abs(_disparity(report, "demographic_parity_difference")["value"] - dp) <= TOL
    assert abs(_disparity(report, "equalized_odds_difference")["value"] - eo) <= TOL
    # the weights matter: the unweighted differences are not these
    plain = evaluate(compas, pred=None, attrs=["race"], engine=engine, min_samples=0, **COMPAS_ARGS)
    assert abs(_disparity(plain, "demographic_parity_difference")["value"] - dp) > 1e-3


def test_compas_weighted_report_has_counts_and_effective_sizes(compas: pd.DataFrame) -> None:
    report = evaluate(compas, pred=None, attrs=["race"], weight="w", engine="pandas", **COMPAS_ARGS)
    assert report["columns"]["weight"] == "w"
    w = compas["w"].to_numpy()
    for race, s in _slices(report).items():
        ws = w[(compas["race"] == race).to_numpy()]
        sr = s["metrics"]["selection_rate"]
        assert sr["count"] == len(ws)  # rows, unweighted
        assert sr["n_eff"] == pytest.approx(ws.sum() ** 2 / (ws * ws).sum(), rel=1e-12)
        assert sr["n_eff"] < sr["count"]
        assert sr["low_n"] == (sr["n_eff"] < 30)
    # Asian (32 rows) is low-n by its effective size only
    asian = _slices(report)["Asian"]["metrics"]["selection_rate"]
    assert asian["count"] >= 30 and asian["low_n"]
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "faircode" / "monitor" / "schema.json").read_text())
    text = render_as("fairness evaluate", "json", report)
    Draft202012Validator(schema).validate(json.loads(text))


def test_effective_size_and_interval_by_hand() -> None:
    """Slice a: weights 1, 2, 3 (n_eff = 36 / 14), predictions 1, 0, 1: p_w = 4 / 6, and
    the Wilson interval is at p_w with n_eff; slice b: weights 2, 2 (n_eff = 2)."""
    df = pd.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b"],
            "p": [1, 0, 1, 1, 0],
            "y": [1, 1, 0, 0, 0],
            "w": [1.0, 2.0, 3.0, 2.0, 2.0],
        }
    )
    r = evaluate(df, pred="p", attrs=["g"], label="y", weight="w", min_samples=3, engine="pandas")
    a = _slices(r, "g")["a"]["metrics"]
    sr = a["selection_rate"]
    n_eff = 36 / 14
    assert sr["value"] == pytest.approx(4 / 6, abs=1e-15)
    assert sr["n_eff"] == pytest.approx(n_eff, abs=1e-15)
    assert sr["count"] == 3 and sr["successes"] == 2
    assert sr["successes_eff"] == pytest.approx(4 / 6 * n_eff, abs=1e-14)
    lo, hi = wilson_at(4 / 6 * n_eff, n_eff, Z)
    assert sr["ci95"] == pytest.approx([lo, hi], abs=1e-15)
    # 3 rows but n_eff 2.57 < 3: low-n for the selection rate
    assert sr["low_n"] and "selection_rate" in _slices(r, "g")["a"]["low_n"]
    # accuracy: rows 1 (w 1, correct), 2 (w 2, wrong), 3 (w 3, wrong): 1 / 6
    assert a["accuracy"]["value"] == pytest.approx(1 / 6, abs=1e-15)
    # TPR over the labelled positives (weights 1, 2): 1 / 3, n_eff = 9 / 5
    assert a["tpr"]["value"] == pytest.approx(1 / 3, abs=1e-15)
    assert a["tpr"]["n_eff"] == pytest.approx(9 / 5, abs=1e-15)
    b = _slices(r, "g")["b"]["metrics"]["selection_rate"]
    assert b["n_eff"] == 2.0 and b["value"] == 0.5


def test_all_weights_one_give_the_unweighted_report_exactly(compas: pd.DataFrame) -> None:
    df = compas.assign(one=1.0)
    for extra in ({}, {"ref_groups": {"race": "Caucasian"}}):
        plain = evaluate(
            df, pred=None, attrs=["race", "sex"], engine="pandas", **COMPAS_ARGS, **extra
        )
        ones = evaluate(
            df,
            pred=None,
            attrs=["race", "sex"],
            engine="pandas",
            weight="one",
            **COMPAS_ARGS,
            **extra,
        )
        assert ones["columns"].pop("weight") == "one"
        for g in ones["groups"]:
            for s in g["slices"]:
                for m in s["metrics"].values():
                    assert m.pop("n_eff") == m["count"]
                    if "successes" in m:
                        assert m.pop("successes_eff") == m["successes"]
                    if "positives" in m:  # AUC
                        assert m.pop("positives_eff") == m["positives"]
                        assert m.pop("negatives_eff") == m["negatives"]
        assert ones == plain  # values, intervals, evidence, references: exactly


def test_rows_weighing_zero_count_for_nothing() -> None:
    base = pd.DataFrame(
        {
            "g": ["a"] * 40 + ["b"] * 40,
            "p": [1, 0, 1, 1] * 20,
            "y": [1, 0, 0, 1, 1] * 16,
            "w": np.linspace(0.5, 2.0, 80),
        }
    )
    noise = pd.DataFrame({"g": ["a", "b"] * 10, "p": [1] * 20, "y": [0] * 20, "w": [0.0] * 20})
    r1 = evaluate(base, pred="p", attrs=["g"], label="y", weight="w", engine="pandas")
    r2 = evaluate(
        pd.concat([base, noise]), pred="p", attrs=["g"], label="y", weight="w", engine="pandas"
    )
    for name in ("a", "b"):
        m1, m2 = _slices(r1, "g")[name]["metrics"], _slices(r2, "g")[name]["metrics"]
        for metric in m1:
            assert m2[metric]["value"] == pytest.approx(m1[metric]["value"], abs=1e-15)
            assert m2[metric]["n_eff"] == pytest.approx(m1[metric]["n_eff"], rel=1e-15)
            assert m2[metric]["ci95"] == pytest.approx(m1[metric]["ci95"], abs=1e-14)
        assert m2["selection_rate"]["count"] == m1["selection_rate"]["count"] + 10
    # a slice whose rows all weigh 0: every metric undefined, n_eff 0
    r3 = evaluate(
        pd.concat([base, noise.assign(g="c")]),
        pred="p",
        attrs=["g"],
        label="y",
        weight="w",
        engine="pandas",
    )
    c = _slices(r3, "g")["c"]["metrics"]
    assert all(m["value"] is None and m["n_eff"] == 0.0 for m in c.values())


def test_weighted_regression_is_the_weighted_mean() -> None:
    df = pd.DataFrame({"g": ["a"] * 4, "p": [1.0, 2.0, 3.0, 5.0], "y": [1.5, 2.0, 1.0, 5.0]})
    df["w"] = [1.0, 3.0, 2.0, 0.0]
    r = evaluate(
        df,
        pred="p",
        attrs=["g"],
        label="y",
        weight="w",
        engine="pandas",
        min_samples=0,
        task="regression",
    )
    m = _slices(r, "g")["a"]["metrics"]
    err = np.array([0.5, 0.0, 2.0, 0.0])
    w = df["w"].to_numpy()
    assert m["mae"]["value"] == pytest.approx(np.average(err, weights=w), abs=1e-15)
    assert m["rmse"]["value"] == pytest.approx(np.sqrt(np.average(err**2, weights=w)), abs=1e-15)
    assert m["mean_prediction"]["value"] == pytest.approx(np.average(df["p"], weights=w))
    assert m["mae"]["n_eff"] == pytest.approx(36 / 14)


def test_reference_comparisons_use_the_effective_sizes(compas: pd.DataFrame) -> None:
    r = evaluate(
        compas,
        pred=None,
        attrs=["race"],
        weight="w",
        engine="pandas",
        ref_groups={"race": "Caucasian"},
        **COMPAS_ARGS,
    )
    ref = next(g for g in r["groups"] if g["name"] == "race")["reference"]
    c = next(
        c
        for c in ref["comparisons"]
        if c["metric"] == "selection_rate" and c["slice"] == "African-American"
    )
    s = _slices(r)
    a, b = (s[k]["metrics"]["selection_rate"] for k in ("African-American", "Caucasian"))
    assert c["difference"] == pytest.approx(a["value"] - b["value"], abs=1e-14)
    lo, hi = newcombe(a["successes_eff"], a["n_eff"], b["successes_eff"], b["n_eff"], Z)
    assert c["difference_ci95"] == [lo, hi]


def test_without_weight_the_report_has_no_new_keys(compas: pd.DataFrame) -> None:
    report = evaluate(compas, pred=None, attrs=["race"], engine="pandas", **COMPAS_ARGS)
    text = render_as("fairness evaluate", "json", report)
    for key in ('"n_eff"', '"successes_eff"', '"weight"'):
        assert key not in text
    assert "weights:" not in render_as("fairness evaluate", "text", report)
    header = render_as("fairness evaluate", "csv", report).split("\r\n")[0]
    assert header == ",".join(CSV_COLUMNS)
    weighted = evaluate(
        compas, pred=None, attrs=["race"], engine="pandas", weight="w", **COMPAS_ARGS
    )
    assert render_as("fairness evaluate", "csv", weighted).split("\r\n")[0].endswith(",n_eff")
    assert "weights: w" in render_as("fairness evaluate", "text", weighted)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1, 2, -0.5, 1], "weight column 'w' has a negative weight (-0.5) in data row 3"),
        ([1, None, 1, 1], "weight column 'w' is missing in data row 2, which has a prediction"),
        ([1, 1, 1, "heavy"], "weight column 'w' is not numeric: 'heavy' in data row 4"),
        ([1, float("inf"), 1, 1], "weight column 'w' has inf in data row 2"),
    ],
)
def test_bad_weights_are_one_line_errors_naming_column_and_row(
    weights: list[Any], message: str
) -> None:
    df = pd.DataFrame({"g": ["a", "a", "b", "b"], "p": [1, 0, 1, 0], "w": weights})
    with pytest.raises(MonitorInputError) as exc:
        evaluate(df, pred="p", attrs=["g"], weight="w", engine="pandas")
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_a_row_without_prediction_needs_no_weight() -> None:
    df = pd.DataFrame({"g": ["a", "a", "b"], "p": [1, None, 0], "w": [1.0, None, 2.0]})
    r = evaluate(df, pred="p", attrs=["g"], weight="w", engine="pandas", min_samples=0)
    assert _slices(r, "g")["a"]["metrics"]["selection_rate"]["n_eff"] == 1.0


def test_cli_weight_error_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("g,p,w\na,1,1\nb,0,-2\n")
    proc = subprocess.run(
        [sys.executable, "-m", "faircode", "fairness", "evaluate", str(path)]
        + ["--pred", "p", "--attr", "g", "--weight", "w"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "weight column 'w' has a negative weight (-2) in data row 2" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "faircode", "fairness", "evaluate", str(path)]
        + ["--pred", "p", "--attr", "g", "--weight", "nope"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "--weight" in proc.stderr


# dyadic weights add up exactly in any order, so both engines' effective sizes (and the
# low-n guard) agree bit for bit; 0 among them
DYADIC = st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.25])


@FAST
@given(frames("binary"), st.data(), st.integers(min_value=0, max_value=3))
def test_engines_agree_on_weighted_binary_models(
    df: pd.DataFrame, data: st.DataObject, min_samples: int
) -> None:
    require_fairlearn()
    df = df.assign(w=data.draw(st.lists(DYADIC, min_size=len(df), max_size=len(df))))
    kw: dict[str, Any] = {"label": "y", "intersect": True, "weight": "w", "task": "binary"}
    ours = evaluate(df, pred="p", attrs=["a", "b"], engine="pandas", min_samples=min_samples, **kw)
    theirs = evaluate(
        df, pred="p", attrs=["a", "b"], engine="fairlearn", min_samples=min_samples, **kw
    )
    ours.pop("engine")
    theirs.pop("engine")
    assert_same(ours, theirs)


@FAST
@given(frames("regression"), st.data())
def test_engines_agree_on_weighted_regression_models(df: pd.DataFrame, data: st.DataObject) -> None:
    require_fairlearn()
    df = df.assign(w=data.draw(st.lists(DYADIC, min_size=len(df), max_size=len(df))))
    kw: dict[str, Any] = {"label": "y", "intersect": True, "weight": "w", "task": "regression"}
    ours = evaluate(
        df, pred="p", attrs=["a", "b"], engine="pandas", min_samples=1, threshold=50.0, **kw
    )
    theirs = evaluate(
        df, pred="p", attrs=["a", "b"], engine="fairlearn", min_samples=1, threshold=50.0, **kw
    )
    ours.pop("engine")
    theirs.pop("engine")
    assert_same(ours, theirs)


def test_engines_agree_on_weighted_compas_with_scores(compas: pd.DataFrame) -> None:
    """AUC, Brier, ECE and the bins weighted too (scikit-learn's with sample_weight)."""
    require_fairlearn()
    kw: dict[str, Any] = {"weight": "w", "intersect": True, **COMPAS_ARGS}
    ours = evaluate(compas, pred=None, attrs=["race", "sex"], engine="pandas", **kw)
    theirs = evaluate(compas, pred=None, attrs=["race", "sex"], engine="fairlearn", **kw)
    ours.pop("engine")
    theirs.pop("engine")
    assert_same(ours, theirs)
    auc = _slices(ours)["Caucasian"]["metrics"]["auc"]
    assert "n_eff" in auc and auc["n_eff"] < auc["count"]


def test_a_weighted_auc_range_rests_on_the_slices_effective_classes() -> None:
    """100 positives and 100 negatives a slice, one row in ten weighing 30 (effective
    classes of about 17): auc_range's intervals must rest on the sizes the slices' own
    ci95 use. On the row counts its ci95 excluded 0 (0.023 up) while the slices' own
    intervals overlap widely (SPEC 12.7)."""
    import math  # lazy: only this test

    rng = np.random.default_rng(5)
    rows = [
        (g, float(rng.normal(shift if y else 0.0, 1.0)), y)
        for g, shift in (("A", 1.2), ("B", 0.6))
        for y in (1, 0)
        for _ in range(100)
    ]
    df = pd.DataFrame(rows, columns=["g", "s", "y"])
    df["w"] = np.where(np.arange(len(df)) % 10 == 0, 30.0, 1.0)
    kw: dict[str, Any] = {"label": "y", "score": "s", "decision_threshold": 0.5}
    r = evaluate(df, pred=None, attrs=["g"], weight="w", min_samples=10, engine="pandas", **kw)
    (g,) = r["groups"]
    a, b = (s["metrics"]["auc"] for s in g["slices"])
    d = next(d for d in g["disparities"] if d["metric"] == "auc_range")
    (l1, u1), (l2, u2) = a["ci95"], b["ci95"]
    gap = a["value"] - b["value"]
    want = [
        gap - math.hypot(a["value"] - l1, u2 - b["value"]),
        gap + math.hypot(u1 - a["value"], b["value"] - l2),
    ]
    assert d["max_min_ci95"] == pytest.approx(want, abs=TOL)
    assert d["ci95"][0] == 0.0
    assert a["positives_eff"] < 20 and a["positives"] == 100
