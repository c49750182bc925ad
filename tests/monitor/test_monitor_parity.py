"""The pandas engine and the Fairlearn MetricFrame engine give one answer (within 1e-12).

This test needs fairlearn (the ``fairness`` extra). It fails, rather than skips, when
fairlearn is missing, so that CI cannot pass without running it.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faircode.monitor import evaluate

TOL = 1e-12


def require_fairlearn() -> None:
    if importlib.util.find_spec("fairlearn") is None:
        pytest.fail(
            "fairlearn is not installed, so the engine parity test cannot run; install the "
            "'fairness' extra (pip install 'faircode[fairness]' or pip install fairlearn)",
            pytrace=False,
        )


def close(a: float, b: float) -> bool:
    # rates lie in [0, 1], so this is an absolute 1e-12; regression errors carry the
    # label's units and are compared at 1e-12 relative to their size when above 1
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def assert_same(a: Any, b: Any, path: str = "report") -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and not isinstance(b, bool) and isinstance(b, int | float):
        assert close(a, float(b)), f"{path}: {a!r} != {b!r}"
    else:
        assert a == b and type(a) is type(b), f"{path}: {a!r} != {b!r}"


# slice values of several types; each list has at least five distinct values
SLICE_VALUES = {
    "str": ["north", "south", "east", "west", "centre", "isles"],
    "int": [-2, 0, 3, 7, 11, 40],
    "float": [-1.5, 0.25, 2.0, 3.75, 1e6, 9.5],
    "mixed": [1, "b", 2, "d", 30, "f"],
}
SECOND = {
    "str": ["F", "M", None],
    "int": [0, 1, 2, None],
    "bool": [True, False],
    "float": [0.5, 1.5, None],
}


@st.composite
def frames(draw: st.DrawFn, task: str) -> pd.DataFrame:
    kind = draw(st.sampled_from(sorted(SLICE_VALUES)))
    n_slices = draw(st.integers(min_value=4, max_value=6))
    values = SLICE_VALUES[kind][:n_slices]
    second = SECOND[draw(st.sampled_from(sorted(SECOND)))]
    if task == "binary":
        pred_st: st.SearchStrategy[Any] = st.sampled_from([0, 1])
        label_st: st.SearchStrategy[Any] = st.sampled_from([0, 1, None])
    else:
        num = st.floats(min_value=-1000, max_value=1000, allow_nan=False, allow_infinity=False)
        pred_st = num
        label_st = st.one_of(st.none(), num)
    rows = []

    def add(value: Any, count: int, labels: st.SearchStrategy[Any]) -> None:
        for _ in range(count):
            rows.append((value, draw(st.sampled_from(second)), draw(pred_st), draw(labels)))

    size = st.integers(min_value=1, max_value=6)
    if task == "binary":
        add(values[0], draw(size), st.sampled_from([0, None]))  # no positive labels
        add(values[1], draw(size), st.sampled_from([1, None]))  # no negative labels
    else:
        add(values[0], draw(size), label_st)
        add(values[1], draw(size), label_st)
    add(values[2], 1, label_st)  # a single-row slice
    add(values[3], draw(size), st.none())  # a slice with no labels at all
    for v in values[4:]:
        add(v, draw(st.integers(min_value=1, max_value=12)), label_st)
    draw(st.randoms(use_true_random=False)).shuffle(rows)
    df = pd.DataFrame(rows, columns=["a", "b", "p", "y"])
    if kind == "mixed":
        df["a"] = df["a"].astype(object)
    return df


def both(df: pd.DataFrame, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    ours = evaluate(
        df, pred="p", attrs=["a", "b"], label="y", intersect=True, engine="pandas", **kwargs
    )
    theirs = evaluate(
        df, pred="p", attrs=["a", "b"], label="y", intersect=True, engine="fairlearn", **kwargs
    )
    assert (ours["engine"], theirs["engine"]) == ("pandas", "fairlearn")
    ours.pop("engine")
    theirs.pop("engine")
    return ours, theirs


FAST = settings(
    max_examples=16,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FAST
@given(frames("binary"), st.integers(min_value=0, max_value=3), st.sampled_from([0.05, 0.1, 0.3]))
def test_engines_agree_on_binary_models(
    df: pd.DataFrame, min_samples: int, threshold: float
) -> None:
    require_fairlearn()
    ours, theirs = both(df, task="binary", min_samples=min_samples, threshold=threshold)
    assert_same(ours, theirs)
    # the generated edge cases are really there
    a = {s["key"]["a"]: s for s in ours["groups"][0]["slices"]}
    assert any(s["n_labelled"] == 0 for s in a.values())
    assert any(s["n"] == 1 for s in a.values())


@settings(FAST, max_examples=10)
@given(
    frames("regression"),
    st.integers(min_value=0, max_value=3),
    st.one_of(st.none(), st.floats(min_value=-500, max_value=500)),
)
def test_engines_agree_on_regression_models(
    df: pd.DataFrame, min_samples: int, decision: float | None
) -> None:
    require_fairlearn()
    ours, theirs = both(
        df, task="regression", min_samples=min_samples, threshold=50.0, decision_threshold=decision
    )
    assert_same(ours, theirs)


def test_parity_covers_undefined_rates() -> None:
    """A fixed case: both engines give null (not 0) for every rate where it is undefined."""
    require_fairlearn()
    df = pd.DataFrame(
        {
            "a": [1, 1, 2, 2, 3, 4, 4],
            "b": [True, False, True, True, False, False, True],
            "p": [1, 0, 0, 0, 1, 1, 0],
            "y": [0, 0, 1, 1, None, 1, 0],
        }
    )
    ours, theirs = both(df, task="binary", min_samples=0)
    assert_same(ours, theirs)
    for report in (ours, theirs):
        slices = {s["key"]["a"]: s["metrics"] for s in report["groups"][0]["slices"]}
        assert slices[1]["tpr"]["value"] is None and slices[1]["fpr"]["value"] == 0.5
        assert slices[2]["fpr"]["value"] is None and slices[2]["tpr"]["value"] == 0.0
        assert slices[2]["precision"]["value"] is None
        assert slices[3]["accuracy"]["value"] is None
        assert slices[3]["selection_rate"]["value"] == 1.0
        # the error rates: null where their own denominator is 0, whatever the others say
        assert slices[1]["fnr"]["value"] is None and slices[1]["fdr"]["value"] == 1.0
        assert slices[1]["for"]["value"] == 0.0 and slices[1]["npv"]["value"] == 1.0
        assert slices[2]["fdr"]["value"] is None and slices[2]["fnr"]["value"] == 1.0
        assert slices[2]["for"]["value"] == 1.0 and slices[2]["npv"]["value"] == 0.0
        assert all(slices[3][m]["value"] is None for m in ("fnr", "for", "fdr", "npv"))


def test_close_is_strict_enough_to_fail() -> None:
    assert close(0.5, 0.5 + 5e-13)
    assert not close(0.5, 0.5 + 2e-12)
    with pytest.raises(AssertionError):
        assert_same({"x": [0.25]}, {"x": [0.25 + 1e-11]})
    with pytest.raises(AssertionError):
        assert_same({"x": None}, {"x": 0.0})
