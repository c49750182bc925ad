"""faircode.monitor.evaluate on small frames whose answers are worked out by hand."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pandas as pd
import pytest

from faircode.monitor import MonitorInputError, evaluate
from faircode.monitor.stats import wilson_interval

NA = None


def _require_engine(engine: str) -> None:
    if engine == "fairlearn" and importlib.util.find_spec("fairlearn") is None:
        pytest.fail(
            "fairlearn is not installed; install the 'fairness' extra "
            "(pip install 'faircode[fairness]') to test the Fairlearn engine",
            pytrace=False,
        )


def group(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(g for g in report["groups"] if g["name"] == name)


def slice_of(g: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in g["slices"] if s["slice"] == name)


def disparity(g: dict[str, Any], metric: str) -> dict[str, Any]:
    return next(d for d in g["disparities"] if d["metric"] == metric)


def hand_frame() -> pd.DataFrame:
    rows = [
        # slice a: 6 predictions, 4 labelled
        ("a", 1, 1),
        ("a", 1, 0),
        ("a", 0, 0),
        ("a", 0, 1),
        ("a", 1, NA),
        ("a", 0, NA),
        # slice b: 4 predictions, 3 labelled, no negative labels
        ("b", 1, 1),
        ("b", 1, 1),
        ("b", 0, 1),
        ("b", 1, NA),
        # slice c: 3 predictions, 3 labelled, no positive labels
        ("c", 0, 0),
        ("c", 0, 0),
        ("c", 1, 0),
    ]
    return pd.DataFrame(rows, columns=["g", "p", "y"])


@pytest.mark.parametrize("engine", ["pandas", "fairlearn"])
def test_binary_slice_metrics_by_hand(engine: str) -> None:
    _require_engine(engine)
    r = evaluate(
        hand_frame(),
        pred="p",
        attrs=["g"],
        label="y",
        threshold=0.2,
        min_samples=0,
        engine=engine,
        rule="point",
    )
    assert r["engine"] == engine
    assert r["task"] == {
        "type": "binary",
        "source": "inferred",
        "reason": "every prediction in 'p' is 0 or 1",
    }
    assert r["rows"] == {
        "total": 13,
        "without_prediction": 0,
        "scored": 13,
        "labelled": 10,
        "awaiting_label": 3,
    }
    g = group(r, "g")
    a, b, c = (slice_of(g, s) for s in "abc")
    assert (a["n"], a["n_labelled"], b["n"], b["n_labelled"], c["n"], c["n_labelled"]) == (
        6,
        4,
        4,
        3,
        3,
        3,
    )
    expected = {
        "a": {
            "accuracy": (2, 4),
            "selection_rate": (3, 6),
            "tpr": (1, 2),
            "fpr": (1, 2),
            "precision": (1, 2),
            # a: TP 1, FP 1, TN 1, FN 1
            "fnr": (1, 2),
            "for": (1, 2),
            "fdr": (1, 2),
            "npv": (1, 2),
        },
        "b": {
            "accuracy": (2, 3),
            "selection_rate": (3, 4),
            "tpr": (2, 3),
            "fpr": (0, 0),
            "precision": (2, 2),
            # b: TP 2, FN 1, no negatives
            "fnr": (1, 3),
            "for": (1, 1),
            "fdr": (0, 2),
            "npv": (0, 1),
        },
        "c": {
            "accuracy": (2, 3),
            "selection_rate": (1, 3),
            "tpr": (0, 0),
            "fpr": (1, 3),
            "precision": (0, 1),
            # c: TN 2, FP 1, no positives: FNR undefined
            "fnr": (0, 0),
            "for": (0, 2),
            "fdr": (1, 1),
            "npv": (2, 2),
        },
    }
    for s in (a, b, c):
        for metric, (k, n) in expected[s["slice"]].items():
            m = s["metrics"][metric]
            assert (m["successes"], m["count"]) == (k, n), (s["slice"], metric)
            if n == 0:
                assert m["value"] is None and m["ci95"] is None, (s["slice"], metric)
            else:
                assert m["value"] == pytest.approx(k / n, abs=1e-15)
                assert m["ci95"] == pytest.approx(list(wilson_interval(k, n)), abs=1e-15)
    dp = disparity(g, "demographic_parity_difference")
    assert dp["value"] == pytest.approx(0.75 - 1 / 3)
    assert (dp["max"]["slice"], dp["min"]["slice"], dp["status"]) == ("b", "c", "exceeded")
    eo = disparity(g, "equalized_odds_difference")
    assert eo["components"]["tpr_range"] == pytest.approx(2 / 3 - 1 / 2)
    assert eo["components"]["fpr_range"] == pytest.approx(1 / 2 - 1 / 3)
    assert eo["value"] == pytest.approx(1 / 6)
    assert eo["status"] == "ok"
    acc = disparity(g, "accuracy_range")
    assert acc["value"] == pytest.approx(2 / 3 - 1 / 2) and acc["status"] == "ok"
    # the error-rate ranges are reported, never gated: 1.0 > 0.2 is no failure below
    fnr = disparity(g, "fnr_range")
    assert fnr["value"] == pytest.approx(1 / 2 - 1 / 3)
    assert (fnr["max"]["slice"], fnr["min"]["slice"]) == ("a", "b")
    assert fnr["excluded_slices"] == [{"slice": "c", "metric": "fnr", "reason": "undefined"}]
    for name, top, bottom in (
        ("for_range", "b", "c"),
        ("fdr_range", "c", "b"),
        ("precision_range", "b", "c"),
        ("npv_range", "c", "b"),
    ):
        d = disparity(g, name)
        assert d["value"] == 1.0 and (d["max"]["slice"], d["min"]["slice"]) == (top, bottom)
    for name in ("fnr_range", "for_range", "fdr_range", "precision_range", "npv_range"):
        d = disparity(g, name)
        assert (d["gated"], d["status"], d["threshold"]) == (False, "reported", None), name
    ratio = disparity(g, "demographic_parity_ratio")
    assert ratio["value"] == pytest.approx((1 / 3) / 0.75)
    assert ratio["four_fifths_rule"] == "fail" and ratio["gated"] is False
    assert r["status"] == "exceeded" and r["disparity_exceeded"] is True
    assert r["failures"] == [
        {
            "group": "g",
            "metric": "demographic_parity_difference",
            "value": dp["value"],
            "ci95": dp["ci95"],
            "threshold": 0.2,
        }
    ]
    # the interval rule: 3 or 4 rows a slice cannot tell 0.42 from 0.2
    r = evaluate(
        hand_frame(), pred="p", attrs=["g"], label="y", threshold=0.2, min_samples=0, engine=engine
    )
    dp = disparity(group(r, "g"), "demographic_parity_difference")
    assert (dp["status"], r["status"]) == ("insufficient", "insufficient_evidence")
    assert dp["ci95"][0] < 0.2 < dp["ci95"][1]


def test_undefined_rates_are_null_not_zero_and_excluded() -> None:
    r = evaluate(hand_frame(), pred="p", attrs=["g"], label="y", min_samples=0, engine="pandas")
    g = group(r, "g")
    assert slice_of(g, "c")["metrics"]["tpr"]["value"] is None
    assert slice_of(g, "b")["metrics"]["fpr"]["value"] is None
    eo = disparity(g, "equalized_odds_difference")
    # both halves' exclusions (SPEC 12.8)
    assert eo["excluded_slices"] == [
        {"slice": "c", "metric": "tpr", "reason": "undefined"},
        {"slice": "b", "metric": "fpr", "reason": "undefined"},
    ]


def test_low_n_guard_uses_each_metrics_own_count() -> None:
    rng = np.random.default_rng(0)
    x = pd.DataFrame({"g": "x", "p": rng.integers(0, 2, 40), "y": [0.0, 1.0] * 5 + [NA] * 30})
    y = pd.DataFrame({"g": "y", "p": rng.integers(0, 2, 40), "y": [0.0, 1.0] * 20})
    df = pd.concat([x, y], ignore_index=True)
    kw = dict(label="y", threshold=1.0, min_samples=30, engine="pandas")
    r = evaluate(df, pred="p", attrs=["g"], rule="point", **kw)
    g = group(r, "g")
    sx = slice_of(g, "x")
    # a threshold of 1 holds every rate difference: within under either rule
    assert sx["metrics"]["selection_rate"]["low_n"] is False  # 40 predictions
    assert sx["metrics"]["accuracy"]["low_n"] is True  # 10 labelled
    assert set(sx["low_n"]) == {"accuracy", "tpr", "fpr", "precision", "fnr", "for", "fdr", "npv"}
    sy = slice_of(g, "y")
    assert sy["metrics"]["accuracy"]["low_n"] is False  # 40 labelled
    assert sy["metrics"]["tpr"]["low_n"] is True  # only 20 positive labels
    assert disparity(g, "demographic_parity_difference")["status"] == "ok"
    acc = disparity(g, "accuracy_range")
    assert acc["status"] == "unmeasured" and acc["value"] is None
    assert acc["eligible_slices"] == 1
    assert acc["excluded_slices"] == [{"slice": "x", "metric": "accuracy", "reason": "low-n"}]
    assert "need 2" in acc["reason"]
    # unmeasured is never a pass
    assert g["status"] == "unmeasured" and r["status"] == "unmeasured"
    assert r["disparity_exceeded"] is False
    assert {(u["group"], u["metric"]) for u in r["unmeasured"]} == {
        ("g", "accuracy_range"),
        ("g", "equalized_odds_difference"),
    }
    # the interval rule (SPEC 12.8): both slices have an accuracy, one is below the
    # guard, so more labelled rows would measure it: insufficient, not unmeasured, and
    # the rows it asks for are at least the guard's 30 in each of the two slices
    r = evaluate(df, pred="p", attrs=["g"], **kw)
    acc = disparity(group(r, "g"), "accuracy_range")
    assert acc["status"] == "insufficient" and acc["value"] is None
    need = acc["rows_needed"]
    assert need["metric"] == "accuracy" and need["guard"] == 30
    assert sorted(need["count_now"]) == [10, 40] and need["per_slice"] >= 30
    assert r["status"] == "insufficient_evidence" and not r["unmeasured"]
    assert {(f["group"], f["metric"]) for f in r["insufficient"]} == {
        ("g", "accuracy_range"),
        ("g", "equalized_odds_difference"),
    }


def test_equalized_odds_uses_whichever_range_exists() -> None:
    def block(name: str, fp: int) -> pd.DataFrame:
        labels = [0] * 40 + [1] * 2
        preds = [1] * fp + [0] * (40 - fp) + [1, 1]
        return pd.DataFrame({"g": name, "p": preds, "y": labels})

    df = pd.concat([block("p", 4), block("q", 10)], ignore_index=True)
    r = evaluate(
        df, pred="p", attrs=["g"], label="y", min_samples=30, engine="pandas", rule="point"
    )
    eo = disparity(group(r, "g"), "equalized_odds_difference")
    assert eo["components"] == {
        "tpr_range": None,
        "fpr_range": pytest.approx(0.15),
        "larger": "fpr_range",
    }
    assert eo["value"] == pytest.approx(10 / 40 - 4 / 40)
    assert eo["status"] == "exceeded"  # the measured half alone exceeds: so does the max
    assert eo["measured"] == ["fpr"]
    # the interval rule cannot confirm 0.15 > 0.1 on 40 rows, and the TPR half has two
    # labelled positives per slice, below the guard: more rows would settle it, so it
    # is insufficient (SPEC 12.8), never ok; the FPR half's range is over the threshold,
    # so its negatives alone settle it (positives alone would leave it straddling)
    r = evaluate(df, pred="p", attrs=["g"], label="y", min_samples=30, engine="pandas")
    eo = disparity(group(r, "g"), "equalized_odds_difference")
    assert eo["status"] == "insufficient" and eo["measured"] == ["fpr"]
    assert "for tpr, need 2" in eo["reason"]
    assert eo["rows_needed"]["metric"] == "fpr" and eo["rows_needed"]["count_now"] == [40, 40]
    assert eo["rows_needed"]["per_slice"] > 40 and "also" not in eo["rows_needed"]
    assert not r["unmeasured"] and r["status"] == "insufficient_evidence"
    assert [e["metric"] for e in eo["excluded_slices"]] == ["tpr", "tpr"]


def test_equalized_odds_half_measured_and_within_is_not_ok() -> None:
    """SPEC 12.8 (issue 26): FPR equal in two slices of 2,000 negatives, no labelled
    positives: the FPR half is within, the TPR half unmeasured; not ok under either rule."""
    df = pd.DataFrame(
        {"g": ["a"] * 2000 + ["b"] * 2000, "p": ([1] * 200 + [0] * 1800) * 2, "y": [0] * 4000}
    )
    for rule in ("point", "interval"):
        r = evaluate(df, pred="p", attrs=["g"], label="y", engine="pandas", rule=rule)
        eo = disparity(group(r, "g"), "equalized_odds_difference")
        assert eo["value"] == 0 and eo["measured"] == ["fpr"]
        assert eo["status"] == "partly_measured", rule
        assert eo["ci95"][1] < 0.1  # the half that was measured is within
        assert r["status"] == "unmeasured"


def test_float_noise_at_the_threshold_is_not_a_failure() -> None:
    # selection rates 10/10 and 7/10: 1.0 - 0.7 == 0.30000000000000004 in floats
    df = pd.DataFrame({"g": ["a"] * 10 + ["b"] * 10, "p": [1] * 10 + [1] * 7 + [0] * 3})
    r = evaluate(
        df, pred="p", attrs=["g"], threshold=0.3, min_samples=1, engine="pandas", rule="point"
    )
    dp = disparity(group(r, "g"), "demographic_parity_difference")
    assert dp["value"] > 0.3  # the raw float is above the threshold...
    assert dp["status"] == "ok"  # ...but the rule compares at 12 decimals
    assert r["status"] == "within_threshold"
    df.loc[16, "p"] = 0  # 6/10 selected: 0.4 > 0.3
    r = evaluate(
        df, pred="p", attrs=["g"], threshold=0.3, min_samples=1, engine="pandas", rule="point"
    )
    assert r["status"] == "exceeded"


def test_nobody_selected_gives_ratio_one() -> None:
    df = pd.DataFrame({"g": ["a", "a", "b", "b"], "p": [0, 0, 0, 0]})
    r = evaluate(df, pred="p", attrs=["g"], min_samples=1, engine="pandas")
    g = group(r, "g")
    assert disparity(g, "demographic_parity_ratio")["value"] == 1.0
    assert disparity(g, "demographic_parity_ratio")["four_fifths_rule"] == "pass"
    assert disparity(g, "demographic_parity_difference")["value"] == 0.0
    # no label given: only the selection-rate disparities exist
    assert [d["metric"] for d in g["disparities"]] == [
        "demographic_parity_difference",
        "demographic_parity_ratio",
        "selection_rate_range",
    ]


def test_a_single_slice_is_unmeasured() -> None:
    df = pd.DataFrame({"g": ["a"] * 50, "p": [0, 1] * 25, "y": [1, 1] * 25})
    r = evaluate(df, pred="p", attrs=["g"], label="y", engine="pandas")
    assert r["status"] == "unmeasured"
    assert all(d["status"] == "unmeasured" for d in r["groups"][0]["disparities"])


def test_task_is_inferred_once_for_the_whole_model() -> None:
    # slice a alone looks binary, but the model's predictions are not all 0/1
    df = pd.DataFrame(
        {"g": ["a", "a", "b", "b"], "p": [0.0, 1.0, 0.5, 2.0], "y": [0.0, 1.0, 1.0, 1.0]}
    )
    r = evaluate(df, pred="p", attrs=["g"], label="y", min_samples=1, engine="pandas")
    assert r["task"]["type"] == "regression" and r["task"]["source"] == "inferred"
    a = slice_of(group(r, "g"), "a")
    assert set(a["metrics"]) == {"mae", "rmse", "mean_prediction", "mean_label"}
    r = evaluate(
        df, pred="p", attrs=["g"], label="y", task="regression", min_samples=1, engine="pandas"
    )
    assert r["task"] == {"type": "regression", "source": "given", "reason": "given with --task"}


def test_regression_metrics_and_selection_only_with_a_decision_threshold() -> None:
    df = pd.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b"],
            "p": [1.0, 2.0, 4.0, 3.0, 5.0],
            "y": [2.0, 2.0, NA, 1.0, 5.0],
        }
    )
    # whole numbers 1..5 would be class labels (SPEC 12.2): a regression says so
    reg = {"task": "regression", "rule": "point"}
    r = evaluate(
        df, pred="p", attrs=["g"], label="y", min_samples=1, threshold=0.5, engine="pandas", **reg
    )
    g = group(r, "g")
    a, b = slice_of(g, "a"), slice_of(g, "b")
    assert a["metrics"]["mae"]["value"] == pytest.approx(0.5)  # |1-2|, |2-2|
    assert a["metrics"]["rmse"]["value"] == pytest.approx(np.sqrt(0.5))
    assert a["metrics"]["mean_prediction"]["value"] == pytest.approx(1.5)  # labelled rows
    assert a["metrics"]["mean_label"]["value"] == pytest.approx(2.0)
    assert b["metrics"]["mae"]["value"] == pytest.approx(1.0)
    assert "selection_rate" not in a["metrics"]
    assert [d["metric"] for d in g["disparities"]] == ["mae_range"]
    assert disparity(g, "mae_range")["value"] == pytest.approx(0.5)
    assert r["status"] == "within_threshold"  # 0.5 is not > 0.5
    # decision threshold: selected when prediction >= T (3.0 itself is selected)
    r = evaluate(
        df,
        pred="p",
        attrs=["g"],
        label="y",
        decision_threshold=3.0,
        min_samples=1,
        engine="pandas",
        **reg,
    )
    g = group(r, "g")
    assert slice_of(g, "a")["metrics"]["selection_rate"]["value"] == pytest.approx(1 / 3)
    assert slice_of(g, "b")["metrics"]["selection_rate"]["value"] == 1.0
    assert r["decision_rule"] == "value >= decision_threshold"


def test_score_and_decision_threshold_use_greater_or_equal() -> None:
    df = pd.DataFrame({"g": ["a", "a", "b", "b"], "s": [4.999, 5.0, 7.0, NA], "y": [0, 1, 1, 0]})
    r = evaluate(
        df,
        pred=None,
        attrs=["g"],
        label="y",
        score="s",
        decision_threshold=5,
        min_samples=1,
        engine="pandas",
    )
    assert r["prediction"] == "s >= 5"
    g = group(r, "g")
    a, b = slice_of(g, "a"), slice_of(g, "b")
    assert a["metrics"]["selection_rate"]["successes"] == 1  # 5.0 >= 5, 4.999 is not
    assert a["metrics"]["accuracy"]["value"] == 1.0
    # a row without a score has no prediction: it is not scored, even though labelled
    assert (b["n"], b["n_labelled"]) == (1, 1)
    assert r["rows"]["without_prediction"] == 1 and r["rows"]["scored"] == 3


def test_intersections_missing_values_and_non_string_values() -> None:
    df = pd.DataFrame(
        {
            "sex": ["F", "F", "M", "M", None, "M"],
            "age": [30, 40, 30, 30, 40, 40],
            "flag": [True, False, True, True, False, False],
            "p": [1, 0, 1, 1, 0, 1],
        }
    )
    # `age` is an age by name, banded by default (SPEC 12.3); a kind other than age keeps
    # its typed values as they are
    r = evaluate(
        df,
        pred="p",
        attrs=["sex", "age", "flag"],
        intersect=True,
        min_samples=1,
        engine="pandas",
        overrides={"age": "categorical"},
    )
    names = [g["name"] for g in r["groups"]]
    assert names == [
        "sex",
        "age",
        "flag",
        "sex x age",
        "sex x flag",
        "age x flag",
        "sex x age x flag",
    ]
    sex = group(r, "sex")
    assert [s["slice"] for s in sex["slices"]] == ["F", "M", "(missing)"]
    assert sex["slices"][2]["key"] == {"sex": None}
    age = group(r, "age")
    assert [s["key"] for s in age["slices"]] == [{"age": 30}, {"age": 40}]
    assert isinstance(age["slices"][0]["key"]["age"], int)
    assert [s["key"]["flag"] for s in group(r, "flag")["slices"]] == [False, True]
    inter = group(r, "sex x age")
    # only combinations that occur are slices
    assert [s["slice"] for s in inter["slices"]] == [
        "sex=F, age=30",
        "sex=F, age=40",
        "sex=M, age=30",
        "sex=M, age=40",
        "sex=(missing), age=40",
    ]
    assert [s["n"] for s in inter["slices"]] == [1, 1, 2, 1, 1]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"pred": "p", "attrs": []}, "attrs=COL"),
        ({"pred": "p", "attrs": ["g", "g"]}, "twice"),
        ({"pred": "p", "attrs": ["g"], "threshold": -0.1}, "threshold"),
        ({"pred": "p", "attrs": ["g"], "min_samples": -1}, "min_samples"),
        ({"pred": None, "attrs": ["g"]}, "pred=COL"),
        ({"pred": "p", "attrs": ["g"], "score": "p", "decision_threshold": 1}, "both"),
        ({"pred": None, "attrs": ["g"], "score": "p"}, "decision_threshold=T"),
        ({"pred": "p", "attrs": ["g"], "decision_threshold": 0.5}, "no effect"),
        ({"pred": "p", "attrs": ["g"], "engine": "spark"}, "engine"),
        ({"pred": "p", "attrs": ["nope"]}, "'nope' (attrs)"),
        ({"pred": "p", "attrs": ["g"], "label": "g"}, "not numeric"),
    ],
)
def test_bad_arguments_raise_input_errors(kwargs: dict[str, Any], needle: str) -> None:
    df = pd.DataFrame({"g": ["a", "b"], "p": [0, 1]})
    with pytest.raises(MonitorInputError, match=None) as info:
        evaluate(df, **kwargs)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_nullable_and_boolean_columns() -> None:
    df = pd.DataFrame(
        {
            "g": ["a", "a", "b", "b"],
            "p": pd.array([True, None, False, True], dtype="boolean"),
            "y": pd.array([1, 0, None, 1], dtype="Int64"),
        }
    )
    r = evaluate(df, pred="p", attrs=["g"], label="y", min_samples=1, engine="pandas")
    assert r["task"]["type"] == "binary"
    assert r["rows"] == {
        "total": 4,
        "without_prediction": 1,
        "scored": 3,
        "labelled": 2,
        "awaiting_label": 1,
    }
    b = slice_of(group(r, "g"), "b")
    assert (b["n"], b["n_labelled"]) == (2, 1)
    assert b["metrics"]["selection_rate"]["value"] == 0.5
    assert b["metrics"]["accuracy"]["value"] == 1.0


def test_short_float_and_duration_slices_are_named_as_in_the_csv(tmp_path) -> None:
    """SPEC 0.4 via 12.3: a float32 or float16 0.1 is the slice 0.1 (once
    0.10000000149011612 and 0.0999755859375), a pandas Timedelta of a day is
    `1 day, 0:00:00` (once `1 days 00:00:00`), as the CSV of the same data gives."""
    import datetime

    n = 40
    rng = np.random.default_rng(3)
    texts = {"w32": ["0.1", "0.2"], "w16": ["0.1", "0.2"], "wait": ["1 day, 0:00:00", "2:00:00"]}
    df = pd.DataFrame(
        {
            "w32": pd.Series([0.1, 0.2] * (n // 2), dtype="float32"),
            "w16": pd.Series([0.1, 0.2] * (n // 2), dtype="float16"),
            "wait": [datetime.timedelta(days=1), datetime.timedelta(hours=2)] * (n // 2),
            "p": rng.integers(0, 2, n),
        }
    )
    csv = tmp_path / "d.csv"
    pd.DataFrame({**{c: t * (n // 2) for c, t in texts.items()}, "p": df["p"]}).to_csv(
        csv, index=False
    )
    typed = evaluate(df, pred="p", attrs=list(texts), min_samples=1, engine="pandas")
    text = evaluate(csv, pred="p", attrs=list(texts), min_samples=1, engine="pandas")
    for name, want in texts.items():
        assert [s["slice"] for s in group(typed, name)["slices"]] == want, name
        assert [s["slice"] for s in group(text, name)["slices"]] == want, name
    assert [s["key"] for s in group(typed, "w32")["slices"]] == [{"w32": 0.1}, {"w32": 0.2}]
    assert [s["key"] for s in group(typed, "w16")["slices"]] == [{"w16": 0.1}, {"w16": 0.2}]
