"""Done-when checks on the real COMPAS two-year file (ProPublica)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from faircode.monitor import evaluate

ROOT = Path(__file__).resolve().parents[1]
COMPAS = ROOT.parent / "shared" / "data" / "compas-scores-two-years.csv"


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    if not COMPAS.exists():
        pytest.fail(f"test data missing: {COMPAS}", pytrace=False)
    df = pd.read_csv(COMPAS)
    # the published header repeats decile_score; pandas names the second copy decile_score.1
    assert "decile_score.1" in df.columns
    df["high_risk"] = (df["decile_score"] >= 5).astype(int)
    return df


def independent_fpr(df: pd.DataFrame) -> pd.Series:
    """FPR per race from a plain crosstab: P(high_risk = 1 | two_year_recid = 0)."""
    negatives = df[df["two_year_recid"] == 0]
    table = pd.crosstab(negatives["race"], negatives["high_risk"])
    return table[1] / table.sum(axis=1)


@pytest.mark.parametrize("engine", ["pandas", "fairlearn"])
def test_per_race_false_positive_rates(compas: pd.DataFrame, engine: str) -> None:
    if engine == "fairlearn" and importlib.util.find_spec("fairlearn") is None:
        pytest.fail("fairlearn is not installed; install the 'fairness' extra", pytrace=False)
    report = evaluate(compas, "high_risk", ["race", "sex"], label="two_year_recid", engine=engine)
    race = next(g for g in report["groups"] if g["name"] == "race")
    ours = {s["slice"]: s["metrics"]["fpr"]["value"] for s in race["slices"]}
    expected = independent_fpr(compas)
    assert set(ours) == set(expected.index)
    for name, value in expected.items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name
    # published group sizes of the two-year file
    n = {s["slice"]: s["n"] for s in race["slices"]}
    assert (n["African-American"], n["Caucasian"]) == (3696, 2454)
    sex = {s["slice"]: s["n"] for s in report["groups"][1]["slices"]}
    assert sex == {"Female": 1395, "Male": 5819}
    # ProPublica's headline: Black defendants' FPR far above white defendants'
    assert ours["African-American"] - ours["Caucasian"] > 0.2


def test_score_threshold_on_the_raw_file_matches_the_derived_column(
    compas: pd.DataFrame,
) -> None:
    derived = evaluate(compas, "high_risk", ["race"], label="two_year_recid", engine="pandas")
    raw = evaluate(
        COMPAS,
        None,
        ["race"],
        label="two_year_recid",
        score="decile_score",
        decision_threshold=5,
        engine="pandas",
    )
    assert raw["prediction"] == "decile_score >= 5"
    assert raw["groups"] == derived["groups"]


def test_cli_gate_fails_on_compas_and_names_the_failures() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "faircode.monitor",
            "fairness",
            "evaluate",
            str(COMPAS),
            "--score",
            "decile_score",
            "--decision-threshold",
            "5",
            "--label",
            "two_year_recid",
            "--attr",
            "race",
            "--attr",
            "sex",
            "--threshold",
            "0.1",
            "--gate",
            "--engine",
            "pandas",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    fails = [line for line in proc.stderr.splitlines() if "gate: FAIL" in line]
    named = {tuple(line.split("FAIL ")[1].split(" = ")[0].split(": ")) for line in fails}
    assert named == {
        ("race", "demographic_parity_difference"),
        ("race", "equalized_odds_difference"),
        ("race", "accuracy_range"),
    }
    assert all("> threshold 0.1" in line for line in fails)
    # the terminal table is on stdout
    assert "African-American" in proc.stdout and "Guard" in proc.stdout
