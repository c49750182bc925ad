"""`fairness evaluate` slices as `profile` groups (SPEC 12.3), the store's groups from
the registry (SPEC 15.4), and class labels refused in an inferred task (SPEC 12.2)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import storeutil

from faircode.cli import main
from faircode.monitor import evaluate
from faircode.monitor.errors import MonitorInputError
from faircode.monitor.registry import Registry, RegistryError, check_fields
from faircode.monitor.store import open_store
from faircode.monitor.timeline import store_report

EVALUATE = (
    "fairness",
    "evaluate",
    "--attr",
    "age",
    "--attr",
    "race",
    "--score",
    "decile_score",
    "--decision-threshold",
    "5",
    "--label",
    "two_year_recid",
    "--engine",
    "pandas",
    "--json",
)
#: the same --recode and --map in both commands: races merged, age as written
MERGED = ("--recode", "race:Asian=Other,Native American=Other", "--map", "age=categorical")


def _run(capsys: pytest.CaptureFixture, *argv: str) -> dict[str, Any]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _profile_groups(result: dict[str, Any], name: str) -> dict[str, int]:
    (dim,) = [d for d in result["dimensions"] if d["name"] == name]
    return {g["label"]: g["count"] for g in dim["groups"]}


def _evaluate_groups(report: dict[str, Any], name: str) -> dict[str, int]:
    (group,) = [g for g in report["groups"] if g["name"] == name]
    return {s["slice"]: s["n"] for s in group["slices"]}


@pytest.fixture(scope="module")
def compas_path() -> str:
    return str(storeutil.require_compas())


def test_evaluate_slices_are_profile_groups_on_compas(
    compas_path: str, capsys: pytest.CaptureFixture
) -> None:
    profiled = _run(capsys, "profile", compas_path, "--json", "--no-provenance")
    report = _run(capsys, *EVALUATE[:2], compas_path, *EVALUATE[2:])
    bands = {"18-29": 3076, "30-44": 2562, "45-59": 1313, "60-74": 248, "75+": 15}
    assert _profile_groups(profiled, "age") == bands
    assert _evaluate_groups(report, "age") == bands  # not 65 single years
    for name in ("age", "race"):
        assert _evaluate_groups(report, name) == _profile_groups(profiled, name)
    # the same --recode and --map give the same merged groups in both commands
    profiled = _run(capsys, "profile", compas_path, "--json", "--no-provenance", *MERGED)
    report = _run(capsys, *EVALUATE[:2], compas_path, *EVALUATE[2:], *MERGED)
    race = _evaluate_groups(report, "race")
    assert race == _profile_groups(profiled, "race")
    assert race["Other"] == 377 + 32 + 18 and "Asian" not in race
    age = _evaluate_groups(report, "age")
    assert age == _profile_groups(profiled, "age")
    assert len(age) == 65 and age["25"] == 332  # --map age=categorical: years as written


def test_na_age_bands_and_max_age_agree_with_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "p.csv"
    pd.DataFrame(
        {
            "respondent_age": ["17", "18", "44", "45", "999", "-1", "30", "61", "??"],
            "gender": ["F", "M", "F", "M", "U", "F", "M", "F", "M"],
            "p": [0, 1, 0, 1, 1, 0, 1, 0, 1],
        }
    ).to_csv(path, index=False)
    opts = ("--age-bands", "0,25,45", "--max-age", "100", "--na", "gender=U", "--na", "??")
    profiled = _run(capsys, "profile", str(path), "--json", "--no-provenance", *opts)
    report = _run(
        capsys,
        "fairness",
        "evaluate",
        str(path),
        "--pred",
        "p",
        "--attr",
        "respondent_age",
        "--attr",
        "gender",
        "--json",
        *opts,
    )
    age = _evaluate_groups(report, "respondent_age")
    assert age.pop("(missing)") == 3  # 999 and -1 implausible, ?? declared missing
    assert age == _profile_groups(profiled, "respondent_age") == {"0-24": 2, "25-44": 2, "45+": 2}
    gender = _evaluate_groups(report, "gender")
    assert gender.pop("(missing)") == 1
    assert gender == _profile_groups(profiled, "gender")


def test_typed_ages_are_banded_and_the_map_keeps_them() -> None:
    df = pd.DataFrame({"age": [17, 30, 30, 80, None], "p": [1, 0, 1, 0, 1]})
    r = evaluate(df, pred="p", attrs=["age"], min_samples=1, engine="pandas")
    assert [s["key"] for s in r["groups"][0]["slices"]] == [
        {"age": "0-17"},
        {"age": "30-44"},
        {"age": "75+"},
        {"age": None},
    ]
    r = evaluate(
        df, pred="p", attrs=["age"], min_samples=1, engine="pandas", overrides={"age": "race"}
    )
    assert [s["key"]["age"] for s in r["groups"][0]["slices"]] == [17.0, 30.0, 80.0, None]
    # --age-bands and a recode, as profile's opts
    r = evaluate(
        df,
        pred="p",
        attrs=["age"],
        min_samples=1,
        engine="pandas",
        opts={"age_bands": [0, 50], "recode": [["age", "80.0", "79"]]},
    )
    assert [s["slice"] for s in r["groups"][0]["slices"]] == ["0-49", "50+", "(missing)"]


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"opts": {"min_share": 0.1}}, "option 'min_share' does not apply to fairness evaluate"),
        ({"opts": {"recode": [["sex", "M", "m"]]}}, "recode: 'sex' is not an attribute"),
        ({"opts": {"na": [["sex", "U"]]}}, "na: 'sex' is not an attribute"),
        (
            {"overrides": {"sex": "sex"}},
            "overrides: 'sex' is not an attribute (attrs: race); add 'sex' to attrs",
        ),
        ({"overrides": {"race": "colour"}}, "overrides: unknown kind 'colour' for 'race'"),
        (
            {"overrides": {"race": "ignore"}},
            "overrides: race=ignore leaves nothing to slice; drop 'race' from attrs instead",
        ),
        ({"opts": {"age_bands": [5, 10]}}, "age_bands: 5,10 is out of range"),
        ({"opts": {"max_age": -1}}, "max_age: -1 is out of range"),
        ({"opts": {"recode": [["race", "", "x"]]}}, "recode: empty FROM for 'race'"),
    ],
)
def test_group_options_are_checked_by_the_profilers_rules(kwargs: dict, needle: str) -> None:
    df = pd.DataFrame({"race": ["a", "b"], "p": [0, 1]})
    with pytest.raises(MonitorInputError) as info:
        evaluate(df, pred="p", attrs=["race"], engine="pandas", **kwargs)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_cli_group_option_errors_are_one_line(
    compas_path: str, capsys: pytest.CaptureFixture
) -> None:
    for extra, needle in [
        (("--recode", "race"), "faircode: error: --recode: expected COLUMN:FROM=TO"),
        (("--map", "race"), "faircode: error: --map: expected COLUMN=KIND"),
        (("--age-bands", "0,,18"), "faircode: error: --age-bands: 0,,18 is out of range"),
    ]:
        code = main([*EVALUATE[:2], compas_path, *EVALUATE[2:], *extra])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith(needle) and err.count("\n") == 1, err


def test_store_report_slices_by_the_registrys_groups(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 600
    df = pd.DataFrame(
        {
            "rid": np.arange(n),
            "age": rng.integers(15, 90, n),
            "race": rng.choice(["White", "Black", "Asian", "Other", "?"], n),
            "pred": rng.integers(0, 2, n),
            "label": rng.integers(0, 2, n),
            "at": rng.integers(0, 3, n) * 86400 + 1_700_000_000,
        }
    )
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    groups = {"recode": {"race": {"Asian": "Other"}}, "na": ["?"], "age_bands": [0, 30, 60]}
    attrs = ["age", "race"]
    store = open_store(str(tmp_path / "monitor.db"))
    try:
        from faircode.monitor.ingest import log_labels, log_predictions

        log_predictions(
            store, "m", path, version="1", id_col="rid", attrs=attrs, pred="pred", at_col="at"
        )
        log_labels(store, "m", path, id_col="rid", label_col="label")
        for given in (None, groups):
            reg = Registry(model="m", slices=tuple(attrs), groups=given)
            report = store_report(store, "m", reg, intersect=True)
            g = dict(given or {})
            expected = evaluate(
                path,
                pred="pred",
                label="label",
                attrs=attrs,
                intersect=True,
                engine="pandas",
                overrides=g.pop("map", None),
                opts=g,
            )
            got = report["evaluation"]
            strip = ("source", "engine")
            assert {k: v for k, v in got.items() if k not in strip} == {
                k: v for k, v in expected.items() if k not in strip
            }
            ages = [s["slice"] for s in got["groups"][0]["slices"]]
            assert ages == (
                ["0-29", "30-59", "60+"]
                if given
                else ["0-17", "18-29", "30-44", "45-59", "60-74", "75+"]
            )
            assert len(report["trend"]) == 3
        # one day's 'unknown' age makes the window's ages labels as written (SPEC 2:
        # categorical mode); every day of the trend slices by that rule, not its own
        df["age"] = df["age"].astype(str)
        df.loc[df["at"] == df["at"].min(), "age"] = "unknown"
        path2 = tmp_path / "preds2.csv"
        df.to_csv(path2, index=False)
        log_predictions(
            store, "m2", path2, version="1", id_col="rid", attrs=attrs, pred="pred", at_col="at"
        )
        log_labels(store, "m2", path2, id_col="rid", label_col="label")
        report = store_report(store, "m2", Registry(model="m2", slices=tuple(attrs)))
        last = df[df["at"] == df["at"].max()]
        for over, same in (({"age": "categorical"}, True), (None, False)):
            day = evaluate(
                last, pred="pred", attrs=attrs, label="label", engine="pandas", overrides=over
            )
            values = {
                d["metric"]: d["value"] for d in day["groups"][0]["disparities"] if d["gated"]
            }
            assert (report["trend"][-1]["groups"][0]["disparities"] == values) is same
    finally:
        store.close()


@pytest.mark.parametrize(
    ("groups", "needle"),
    [
        ({"mapping": {}}, "key 'groups': unknown key 'mapping'"),
        ({"map": {"zip": "geography"}}, "key 'groups': map: no column named 'zip'"),
        ({"map": {"race": "colour"}}, "key 'groups': map: unknown kind 'colour'"),
        ({"map": {"race": "ignore"}}, "'map' cannot ignore a slice"),
        ({"recode": [["race", "a"]]}, "key 'groups': recode: give [column, from, to] items"),
        ({"age_bands": [3]}, "key 'groups': age_bands: 3 is out of range"),
        ([1], "key 'groups' must be a mapping"),
    ],
)
def test_registry_groups_are_checked_by_the_profilers_rules(groups: Any, needle: str) -> None:
    raw = {"slices": ["race", "age"], "groups": groups}
    with pytest.raises(RegistryError) as info:
        check_fields("fairness.yaml", raw, "m")
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert str(info.value).startswith("fairness.yaml: model 'm': ")


# --- SPEC 12.2: class labels ---


def _frame(pred: list[float], label: list[float] | None = None) -> pd.DataFrame:
    d: dict[str, Any] = {"g": ["a", "b"] * (len(pred) // 2), "p": pred}
    if label is not None:
        d["y"] = label
    return pd.DataFrame(d)


@pytest.mark.parametrize(
    ("pred", "label", "needle"),
    [
        ([0, 1, 2, 1], [0, 1, 2, 1], "prediction column 'p' has 3 classes (0, 1, 2)"),
        ([0, 1, 1, 0], [0, 1, 2, 1], "label column 'y' has 3 classes (0, 1, 2)"),
        ([1, 2, 2, 1], None, "prediction column 'p' has 2 classes (1, 2)"),
        ([-1, 1, 1, -1], None, "prediction column 'p' has 2 classes (-1, 1)"),
        ([0.0, 3.0, 7.0, 19.0], None, "has 4 classes (0, 3, 7, 19)"),
    ],
)
def test_class_labels_are_refused_naming_task(pred: list, label: list | None, needle: str) -> None:
    df = _frame(pred, label)
    with pytest.raises(MonitorInputError) as info:
        evaluate(df, pred="p", attrs=["g"], label=None if label is None else "y", engine="pandas")
    message = str(info.value)
    assert needle in message and "\n" not in message
    assert "pass task='regression' if the values are quantities" in message
    # --task regression forces a regression: an MAE over the values, as asked
    r = evaluate(
        df,
        pred="p",
        attrs=["g"],
        label="y" if label is not None else None,
        decision_threshold=None if label is not None else 1.0,
        task="regression",
        min_samples=1,
        engine="pandas",
    )
    assert r["task"] == {"type": "regression", "source": "given", "reason": "given with --task"}


def test_quantities_stay_a_regression() -> None:
    rng = np.random.default_rng(5)
    pred = list(rng.normal(50, 10, 200).round(2))  # fractional values
    r = evaluate(_frame(pred, pred[::-1]), pred="p", attrs=["g"], label="y", engine="pandas")
    assert r["task"]["type"] == "regression"
    whole = [float(i % 21) for i in range(42)]  # 21 distinct whole numbers: more than 20
    r = evaluate(_frame(whole, whole), pred="p", attrs=["g"], label="y", engine="pandas")
    assert r["task"]["type"] == "regression"
    assert r["groups"][0]["slices"][0]["metrics"]["mae"]["value"] == 0.0
    # 0/1 is binary, as before
    r = evaluate(
        _frame([0, 1, 1, 0], [0, 1, 0, 0]), pred="p", attrs=["g"], label="y", engine="pandas"
    )
    assert r["task"]["type"] == "binary"


def test_class_labels_cli_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "mc.csv"
    path.write_text("g,p,y\na,0,0\na,1,1\nb,2,2\nb,1,0\n")
    code = main(["fairness", "evaluate", str(path), "--attr", "g", "--pred", "p", "--label", "y"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"faircode: error: {path}: prediction column 'p' has 3 classes (0, 1, 2)")
    code = main(
        ["fairness", "evaluate", str(path), "--attr", "g", "--pred", "p", "--label", "y"]
        + ["--task", "regression", "--json", "--min-samples", "1"]
    )
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out)["task"]["type"] == "regression"


def test_a_zero_slice_is_0_0_whatever_its_first_rows_sign() -> None:
    """SPEC 12.1: -0.0 and 0.0 are one slice, labelled 0.0 even when -0.0 comes first."""
    df = pd.DataFrame({"x": [-0.0, 0.0, 1.5, 0.0] * 10, "p": [1, 0] * 20})
    report = evaluate(df, pred="p", attrs=["x"], engine="pandas", min_samples=1)
    slices = [(s["slice"], s["key"]["x"], s["n"]) for s in report["groups"][0]["slices"]]
    assert slices == [("0.0", 0.0, 30), ("1.5", 1.5, 10)]
    assert math.copysign(1.0, report["groups"][0]["slices"][0]["key"]["x"]) == 1.0
