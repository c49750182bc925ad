"""Issue 26 on a second real table: a logistic regression fitted on adult.data, its
scores evaluated by race and sex, every new metric checked against scikit-learn,
pandas and Fairlearn (SPEC 12.4, 12.6, 12.7).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, confusion_matrix, roc_auc_score
from statsmodels.stats.proportion import confint_proportions_2indep
from util import ADULT_NAMES, data_file

from faircode.monitor import evaluate

FEATURES = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, Path]:
    names = ADULT_NAMES.split(",") if isinstance(ADULT_NAMES, str) else list(ADULT_NAMES)
    df = pd.read_csv(data_file("adult.data"), names=names, skipinitialspace=True)
    y = (df["income"] == ">50K").astype(int)
    x = df[FEATURES].to_numpy(dtype=float)
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    model = LogisticRegression(max_iter=1000).fit(x, y)  # deterministic (lbfgs)
    out = pd.DataFrame(
        {
            "race": df["race"],
            "sex": df["sex"],
            "score": model.predict_proba(x)[:, 1],
            "label": y,
            "w": np.random.default_rng(26).gamma(2.0, 0.5, len(df)),
        }
    )
    path = tmp_path_factory.mktemp("adult") / "scored.csv"
    out.to_csv(path, index=False, float_format="%.17g")
    return pd.read_csv(path, keep_default_na=False), path


def _report(path: Path, **extra):
    return evaluate(
        path,
        pred=None,
        attrs=["race", "sex"],
        label="label",
        score="score",
        decision_threshold=0.5,
        engine="pandas",
        **extra,
    )


def test_rates_auc_and_brier_per_slice_equal_scikit_learn(scored) -> None:
    df, path = scored
    r = _report(path)
    for g in r["groups"]:
        attr = g["attributes"][0]
        for s in g["slices"]:
            rows = df[df[attr].astype(str) == s["slice"]]
            y, score = rows["label"].to_numpy(), rows["score"].to_numpy()
            pred = (score >= 0.5).astype(int)
            tn, fp, fn, tp = confusion_matrix(y, pred, labels=[0, 1]).ravel()
            m = {k: v["value"] for k, v in s["metrics"].items()}
            want = {
                "selection_rate": (tp + fp) / len(y),
                "tpr": tp / (tp + fn) if tp + fn else None,
                "fpr": fp / (fp + tn) if fp + tn else None,
                "fnr": fn / (tp + fn) if tp + fn else None,
                "precision": tp / (tp + fp) if tp + fp else None,
                "fdr": fp / (tp + fp) if tp + fp else None,
                "npv": tn / (tn + fn) if tn + fn else None,
                "for": fn / (tn + fn) if tn + fn else None,
                "accuracy": (tp + tn) / len(y),
            }
            for k, v in want.items():
                if v is None:
                    assert m[k] is None, (s["slice"], k)
                else:
                    assert m[k] == pytest.approx(v, abs=1e-12), (s["slice"], k)
            if 0 < y.sum() < len(y):
                assert m["auc"] == pytest.approx(roc_auc_score(y, score), abs=1e-12)
            assert m["brier"] == pytest.approx(brier_score_loss(y, score), abs=1e-12)


def test_reference_group_differences_are_statsmodels_newcombe(scored) -> None:
    _, path = scored
    r = _report(path, ref_groups={"race": "White", "sex": "maj"})
    race = next(g for g in r["groups"] if g["name"] == "race")
    assert race["reference"]["slice"] == "White"
    sex = next(g for g in r["groups"] if g["name"] == "sex")
    assert sex["reference"]["slice"] == "Male"  # maj: the slice with the most rows
    slices = {s["slice"]: s["metrics"] for s in race["slices"]}
    checked = 0
    for c in race["reference"]["comparisons"]:
        a, ref = slices[c["slice"]][c["metric"]], slices["White"][c["metric"]]
        if "successes" not in a:
            continue
        want = confint_proportions_2indep(
            a["successes"], a["count"], ref["successes"], ref["count"], method="newcomb"
        )
        assert c["difference_ci95"] == pytest.approx(list(want), abs=1e-12)
        checked += 1
    assert checked >= 10


def test_weighted_disparities_equal_fairlearn(scored) -> None:
    fairlearn = pytest.importorskip("fairlearn.metrics")
    df, path = scored
    r = _report(path, weight="w", min_samples=0)
    y, pred = df["label"], (df["score"] >= 0.5).astype(int)
    for g in r["groups"]:
        attr = g["attributes"][0]
        d = {x["metric"]: x["value"] for x in g["disparities"]}
        dp = fairlearn.demographic_parity_difference(
            y, pred, sensitive_features=df[attr], sample_weight=df["w"]
        )
        eo = fairlearn.equalized_odds_difference(
            y, pred, sensitive_features=df[attr], sample_weight=df["w"]
        )
        assert d["demographic_parity_difference"] == pytest.approx(dp, abs=1e-12)
        assert d["equalized_odds_difference"] == pytest.approx(eo, abs=1e-12)


def test_the_gate_on_the_fitted_model_decides_by_intervals(scored) -> None:
    """race: the Amer-Indian-Eskimo and Other slices are small; the verdicts come with
    intervals and, where undecided, the rows that would settle them."""
    _, path = scored
    r = _report(path)
    for g in r["groups"]:
        for d in g["disparities"]:
            if d["gated"] and d["value"] is not None:
                lo, hi = d["ci95"]
                assert lo <= d["value"] <= hi
                assert d["status"] in ("ok", "exceeded", "insufficient", "partly_measured")
                if d["status"] == "exceeded":
                    assert lo > d["threshold"]
                if d["status"] == "ok":
                    assert hi <= d["threshold"]
                if d["status"] == "insufficient":
                    # within is not shown; above is not confirmed after Holm's correction
                    # over the report (its own 95% interval may still lie above)
                    assert hi > d["threshold"]
                    assert lo <= d["threshold"] or d["evidence"]["p_exceeds"] >= 0.05
                    need = d["rows_needed"]["per_slice"]
                    assert need is None or need >= 2
