"""Reference groups (SPEC 12.6, issue 26 item 4): Aequitas' ``ref_groups_dict`` and its
``maj`` / ``min`` methods, with Newcombe and Katz log intervals, on the COMPAS file and
in the store (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import storeutil

from faircode.monitor import MonitorInputError, evaluate
from faircode.monitor.cli import run
from faircode.monitor.reference import compare, four_fifths, reference_block
from faircode.monitor.registry import Registry, RegistryError, load_yaml
from faircode.monitor.render import render_csv, render_html, render_markdown, render_text
from faircode.numerics import Z

COMPAS = storeutil.COMPAS
ARGS = dict(pred=None, score="decile_score", decision_threshold=5, label="two_year_recid")
RATES = ("accuracy", "selection_rate", "tpr", "fpr", "precision", "fnr", "for", "fdr", "npv")


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    df = pd.read_csv(storeutil.require_compas())
    return df[["id", "race", "sex", "decile_score", "two_year_recid", "compas_screening_date"]]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    code, out, err = _cli(
        str(storeutil.require_compas()),
        *("--score", "decile_score", "--decision-threshold", "5"),
        *("--label", "two_year_recid", "--attr", "race", "--ref-group", "race=Caucasian"),
        "--json",
    )
    assert code == 0, err
    return json.loads(out)


def _cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["fairness", "evaluate", *argv])
    return code, out.getvalue(), err.getvalue()


def by_hand(df: pd.DataFrame) -> pd.DataFrame:
    """(successes, count) per race and rate, from the rows (SPEC 12.4's table)."""
    p = df["decile_score"] >= 5
    y = df["two_year_recid"] == 1
    masks = {
        "accuracy": (p == y, pd.Series(True, index=df.index)),
        "selection_rate": (p, pd.Series(True, index=df.index)),
        "tpr": (p & y, y),
        "fpr": (p & ~y, ~y),
        "precision": (p & y, p),
        "fnr": (~p & y, y),
        "for": (~p & y, ~p),
        "fdr": (p & ~y, p),
        "npv": (~p & ~y, ~p),
    }
    rows = []
    for metric, (hit, within) in masks.items():
        k = (hit & within).groupby(df["race"]).sum()
        n = within.groupby(df["race"]).sum()
        for race in n.index:
            rows.append((metric, race, int(k[race]), int(n[race])))
    return pd.DataFrame(rows, columns=["metric", "race", "k", "n"]).set_index(["metric", "race"])


def test_compas_intervals_equal_statsmodels_and_ratios_pandas(report: dict[str, Any]) -> None:
    from statsmodels.stats.proportion import confint_proportions_2indep

    df = pd.read_csv(storeutil.require_compas())
    counts = by_hand(df)
    (race,) = report["groups"]
    ref = race["reference"]
    assert (ref["attribute"], ref["method"], ref["slice"]) == ("race", "given", "Caucasian")
    assert {c["metric"] for c in ref["comparisons"]} == set(RATES)
    # every other eligible slice, and only those (Native American: 18 rows, low-n)
    sel = [c["slice"] for c in ref["comparisons"] if c["metric"] == "selection_rate"]
    assert sel == ["African-American", "Asian", "Hispanic", "Other"]
    tpr = [c["slice"] for c in ref["comparisons"] if c["metric"] == "tpr"]
    assert tpr == ["African-American", "Hispanic", "Other"]
    assert {"metric": "tpr", "slice": "Asian", "reason": "low-n"} in ref["excluded"]
    for c in ref["comparisons"]:
        k1, n1 = counts.loc[(c["metric"], c["slice"])]
        k2, n2 = counts.loc[(c["metric"], "Caucasian")]
        assert c["reference"] == "Caucasian"
        assert c["ratio"] == pytest.approx((k1 / n1) / (k2 / n2), abs=1e-15)
        assert c["difference"] == pytest.approx(k1 / n1 - k2 / n2, abs=1e-15)
        lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
        assert c["difference_ci95"] == pytest.approx([lo, hi], abs=1e-12)
        lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="log", compare="ratio")
        assert c["ratio_ci95"] == pytest.approx([lo, hi], abs=1e-12, rel=1e-12)
        band = "below" if c["ratio"] < 0.8 else "above" if c["ratio"] > 1.25 else "within"
        assert c["four_fifths"] == band
    # the headline: African-American vs Caucasian selection rate
    aa = next(
        c
        for c in ref["comparisons"]
        if c["metric"] == "selection_rate" and c["slice"] == "African-American"
    )
    assert aa["ratio"] == pytest.approx(2174 / 3696 / (854 / 2454), abs=1e-15)
    assert aa["four_fifths"] == "above"
    # a reference reports; it never gates
    plain = evaluate(COMPAS, attrs=["race"], engine="pandas", **ARGS)
    assert plain["status"] == report["status"]
    assert "reference" not in plain["groups"][0]


def test_the_reference_report_is_valid_and_every_format_shows_it(report: dict[str, Any]) -> None:
    import jsonschema

    schema = json.loads((storeutil.ROOT / "faircode" / "monitor" / "schema.json").read_text())
    jsonschema.validate(report, schema)
    text = render_text(report)
    assert "reference race = Caucasian: ratio slice / reference" in text
    row = next(line for line in text.splitlines() if line.startswith("  African-American"))
    assert row.split()[1:3] == ["0.95", "1.69>"]  # accuracy, selection rate
    md = render_markdown(report)
    assert (
        "| Sel.Rate | African-American | 0.588 | Caucasian 0.348 | +0.240 (0.215 to 0.265) | "
        "1.690 (1.591 to 1.796) | above |" in md
    )
    import csv
    import io

    rows = [
        r for r in csv.DictReader(io.StringIO(render_csv(report))) if r["section"] == "reference"
    ]
    assert len(rows) == len(report["groups"][0]["reference"]["comparisons"])
    first = rows[4]
    assert (first["slice"], first["metric"], first["reference_slice"]) == (
        "African-American",
        "selection_rate",
        "Caucasian",
    )
    assert float(first["ratio"]) == pytest.approx(1.6902240031631133)
    assert first["four_fifths_rule"] == "above"
    assert "<h3>reference race = Caucasian</h3>" in render_html(report)


def test_maj_is_the_largest_slice_and_min_the_lowest_rate_per_metric() -> None:
    r = evaluate(
        COMPAS,
        attrs=["race", "sex"],
        engine="pandas",
        ref_groups={"race": "maj", "sex": "min"},
        **ARGS,
    )
    race, sex = r["groups"]
    assert (race["reference"]["method"], race["reference"]["slice"]) == ("maj", "African-American")
    assert {c["reference"] for c in race["reference"]["comparisons"]} == {"African-American"}
    assert sex["reference"]["method"] == "min" and sex["reference"]["slice"] is None
    refs = {c["metric"]: c["reference"] for c in sex["reference"]["comparisons"]}
    for metric, name in refs.items():
        values = {s["slice"]: s["metrics"][metric]["value"] for s in sex["slices"]}
        assert values[name] == min(values.values()), metric
    assert refs["selection_rate"] == "Female" and refs["fnr"] == "Male"
    # the lowest is the reference, so every ratio is at least 1
    assert all(c["ratio"] >= 1 for c in sex["reference"]["comparisons"])
    # min on race: the lowest eligible selection rate is Other (Native American is low-n)
    r2 = evaluate(COMPAS, attrs=["race"], engine="pandas", ref_groups={"race": "min"}, **ARGS)
    sel = [
        c for c in r2["groups"][0]["reference"]["comparisons"] if c["metric"] == "selection_rate"
    ]
    assert {c["reference"] for c in sel} == {"Other"}


def test_maj_takes_the_first_of_the_largest_and_never_the_missing_slice() -> None:
    frame = pd.DataFrame(
        {
            "g": ["a"] * 30 + ["b"] * 50 + ["c"] * 50 + [None] * 90,
            "p": [0, 1] * 110,
        }
    )
    r = evaluate(frame, pred="p", attrs="g", ref_groups={"g": "maj"})
    assert r["groups"][0]["reference"]["slice"] == "b"
    none = evaluate(frame.assign(g=None), pred="p", attrs="g", ref_groups={"g": "maj"})
    ref = none["groups"][0]["reference"]
    assert (ref["slice"], ref["comparisons"], ref["reason"]) == (
        None,
        [],
        "g has no value but (missing)",
    )
    sex = evaluate(COMPAS, attrs="sex", engine="pandas", ref_groups={"sex": "maj"}, **ARGS)
    assert sex["groups"][0]["reference"]["slice"] == "Male"


def test_intersections_have_no_reference() -> None:
    r = evaluate(
        COMPAS,
        attrs=["race", "sex"],
        intersect=True,
        engine="pandas",
        ref_groups={"race": "Caucasian"},
        **ARGS,
    )
    assert [("reference" in g) for g in r["groups"]] == [True, False, False]


def test_a_low_n_reference_has_no_comparisons_for_that_metric() -> None:
    r = evaluate(COMPAS, attrs="race", engine="pandas", ref_groups={"race": "Asian"}, **ARGS)
    ref = r["groups"][0]["reference"]
    assert {c["metric"] for c in ref["comparisons"]} == {"accuracy", "selection_rate"}
    assert {"metric": "tpr", "slice": "Asian", "reason": "low-n"} in ref["excluded"]


def test_a_regression_model_compares_its_selection_rate() -> None:
    frame = pd.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y": np.arange(80.0) % 7 + 0.25})
    frame["yhat"] = frame["y"] + 0.5
    r = evaluate(
        frame, pred="yhat", label="y", decision_threshold=3, attrs="g", ref_groups={"g": "a"}
    )
    assert r["task"]["type"] == "regression"
    (c,) = r["groups"][0]["reference"]["comparisons"]
    assert (c["metric"], c["slice"], c["reference"]) == ("selection_rate", "b", "a")


def test_a_bad_reference_is_one_line_naming_the_values() -> None:
    base = (
        str(COMPAS),
        *("--score", "decile_score", "--decision-threshold", "5"),
        *("--label", "two_year_recid", "--attr", "race"),
    )
    code, out, err = _cli(*base, "--ref-group", "race=Caucasion")
    assert (code, out) == (2, "")
    assert err == (
        "faircode: error: --ref-group race=Caucasion: not a slice of race (values: "
        "African-American, Asian, Caucasian, Hispanic, Native American, Other; or maj, min)\n"
    )
    code, _, err = _cli(*base, "--ref-group", "sex=Male")
    assert code == 2
    assert err == (
        "faircode: error: --ref-group: 'sex' is not an attribute (--attr: race); add --attr "
        "sex, or drop its reference\n"
    )
    code, _, err = _cli(*base, "--ref-group", "race")
    assert code == 2 and err.startswith("faircode: error: --ref-group: expected ATTR=VALUE")
    code, _, err = _cli(*base, "--ref-group", "race=Asian", "--ref-group", "race=Other")
    assert code == 2 and "'race' is given twice" in err
    with pytest.raises(MonitorInputError, match="not a slice of race"):
        evaluate(COMPAS, attrs=["race"], ref_groups={"race": "caucasian"}, **ARGS)


def test_zero_counts_give_no_ratio_or_a_corrected_ratio_interval() -> None:
    """A reference that selects nobody has no ratio; a slice that selects nobody has ratio
    0 and, Katz's log being undefined, Haldane-Anscombe's interval (0.5 of 41 against
    10.5 of 41) from 0; Newcombe's difference is always there."""
    n = 40
    frame = pd.DataFrame(
        {
            "g": ["a"] * n + ["b"] * n + ["c"] * n,
            "p": [0] * n + [1] * 10 + [0] * (n - 10) + [1] * 20 + [0] * (n - 20),
        }
    )
    r = evaluate(frame, pred="p", attrs="g", ref_groups={"g": "a"})
    comps = r["groups"][0]["reference"]["comparisons"]
    assert [(c["slice"], c["ratio"], c["ratio_ci95"], c["four_fifths"]) for c in comps] == [
        ("b", None, None, None),
        ("c", None, None, None),
    ]
    assert comps[0]["difference"] == 0.25 and comps[0]["difference_ci95"][0] > 0
    r = evaluate(frame, pred="p", attrs="g", ref_groups={"g": "b"})
    a = r["groups"][0]["reference"]["comparisons"][0]
    assert (a["slice"], a["ratio"], a["four_fifths"]) == ("a", 0.0, "below")
    se = math.sqrt(1 / 0.5 - 1 / 41 + 1 / 10.5 - 1 / 41)
    assert a["ratio_ci95"] == pytest.approx([0.0, (0.5 / 10.5) * math.exp(Z * se)], rel=1e-12)
    # a typed slice is named by its label; null is the missing slice
    typed = pd.DataFrame({"k": pd.Series([1] * n + [None] * n, dtype=object), "p": [1, 0] * n})
    r = evaluate(typed, pred="p", attrs="k", ref_groups={"k": 1})
    assert [c["slice"] for c in r["groups"][0]["reference"]["comparisons"]] == ["(missing)"]


def test_four_fifths_band_is_inclusive_at_12_decimals() -> None:
    assert four_fifths(0.8) == "within" and four_fifths(1.25) == "within"
    assert four_fifths(0.8 - 4e-13) == "within"  # float noise
    assert four_fifths(0.8 - 1e-11) == "below" and four_fifths(1.25 + 1e-11) == "above"
    assert four_fifths(None) is None


# ---- the store --------------------------------------------------------------------------


def test_store_report_has_the_same_reference_block_as_evaluate(
    db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    from faircode.monitor.ingest import log_labels, log_predictions
    from faircode.monitor.store import open_store
    from faircode.monitor.timeline import store_report

    path = tmp_path / "compas.csv"
    compas.to_csv(path, index=False)
    refs = {"race": "Caucasian", "sex": "maj"}
    expected = evaluate(path, attrs=["race", "sex"], engine="pandas", ref_groups=refs, **ARGS)
    store = open_store(db)
    try:
        log_predictions(
            store,
            "compas",
            path,
            version="v1",
            id_col="id",
            attrs=["race", "sex"],
            score="decile_score",
            decision_threshold=5,
        )
        log_labels(store, "compas", path, id_col="id", label_col="two_year_recid")
        reg = Registry(model="compas", slices=("race", "sex"), ref_groups=refs)
        got = store_report(store, "compas", reg, trend=False)["evaluation"]
        assert [g["reference"] for g in got["groups"]] == [
            g["reference"] for g in expected["groups"]
        ]
        assert got["groups"][0]["reference"]["comparisons"]
        bad = Registry(model="compas", slices=("race", "sex"), ref_groups={"race": "White"})
        with pytest.raises(MonitorInputError, match="registry's ref_groups: race=White: not a"):
            store_report(store, "compas", bad, trend=False)
    finally:
        store.close()


def test_registry_ref_groups_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "fairness.yaml"
    path.write_text(
        "models:\n  m:\n    slices: [race, age]\n    ref_groups: {race: maj, age: 30}\n"
    )
    reg = load_yaml(path)["m"]
    assert reg.ref_groups == {"race": "maj", "age": "30"}
    assert reg.fields()["ref_groups"] == {"race": "maj", "age": "30"}
    assert "ref_groups" not in Registry(model="m", slices=("race",)).fields()
    path.write_text("models:\n  m:\n    slices: [race]\n    ref_groups: {sex: Male}\n")
    with pytest.raises(RegistryError, match=r"key 'ref_groups': 'sex' is not one of the slices"):
        load_yaml(path)
    path.write_text("models:\n  m:\n    slices: [race]\n    ref_groups: [race]\n")
    with pytest.raises(RegistryError, match="key 'ref_groups' must map slice names"):
        load_yaml(path)


def test_numbers_quoted_in_the_report_are_the_ones_computed(report: dict[str, Any]) -> None:
    """The SPEC's COMPAS example (12.6) is this run's output."""
    comps = report["groups"][0]["reference"]["comparisons"]
    aa = {c["metric"]: c for c in comps if c["slice"] == "African-American"}
    sel = aa["selection_rate"]
    assert round(sel["difference"], 3) == 0.240
    assert np.round(sel["difference_ci95"], 3).tolist() == [0.215, 0.265]
    assert round(sel["ratio"], 3) == 1.690
    assert np.round(sel["ratio_ci95"], 3).tolist() == [1.591, 1.796]
    assert round(aa["fpr"]["ratio"], 3) == 1.912


def test_min_reference_takes_the_first_slice_of_a_tie_at_12_decimals() -> None:
    """Two slices at 1/3, the first a last bit above (as another engine's float noise
    could leave it): equal at 12 decimals, so the first in slice order is the reference
    (SPEC 12.6's ranking), not the one whose raw float is lower."""
    frame = pd.DataFrame(
        {
            "a": ["u"] * 3 + ["v"] * 6 + ["w"] * 4,
            "p": [1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0],
            "y": [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0],
        }
    )
    group = evaluate(frame, pred="p", attrs=["a"], label="y", engine="pandas", min_samples=1)[
        "groups"
    ][0]
    rates = {s["slice"]: s["metrics"]["selection_rate"] for s in group["slices"]}
    assert rates["u"]["value"] == rates["v"]["value"] == 1 / 3
    rates["u"]["value"] = math.nextafter(1 / 3, 1)
    block = reference_block(group, "min")
    refs = {c["reference"] for c in block["comparisons"] if c["metric"] == "selection_rate"}
    assert refs == {"u"}


def _rate_slice(name: str, k: int, n: int) -> dict:
    return {"slice": name, "metrics": {"tpr": {"successes": k, "count": n, "value": k / n}}}


@pytest.mark.parametrize(
    ("p1", "n1", "p2", "n2"),
    [(0.97, 30, 0.99, 30), (1.0, 30, 0.99, 100), (0.995, 100, 0.98, 1000), (0.01, 30, 0.2, 30)],
)
def test_the_ratio_interval_covers_rates_near_0_and_1(p1, n1, p2, n2) -> None:
    """A TPR of 0.97 against 0.99 on 30 labelled positives each: both slices catch every
    positive 30% of the time, and Katz's interval of 30/30 against 30/30 is [1, 1], so
    the "95%" ratio interval covered the true 0.98 in 70% of draws (1.0 against 0.99:
    63%; a slice with none, no interval at all). With Haldane-Anscombe's correction of a
    zero cell it covers at least 93% of 2,000 draws."""
    rng = np.random.default_rng(41)
    truth, hits, reps = p1 / p2, 0, 2000
    for k1, k2 in zip(rng.binomial(n1, p1, reps), rng.binomial(n2, p2, reps), strict=True):
        if k2 == 0:  # no ratio: the reference's rate is 0
            reps -= 1
            continue
        c = compare(_rate_slice("a", int(k1), n1), _rate_slice("ref", int(k2), n2), "tpr")
        lo, hi = c["ratio_ci95"]
        hits += lo * (1 - 1e-12) <= truth <= hi * (1 + 1e-12)
    assert hits / reps >= 0.93, hits / reps
