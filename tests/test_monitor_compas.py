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


def _gate(path: Path | str, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [
            sys.executable, "-m", "faircode.monitor", "fairness", "evaluate", str(path),
            "--score", "decile_score", "--decision-threshold", "5",
            "--label", "two_year_recid", "--attr", "race", "--attr", "sex",
            "--threshold", "0.1", "--gate", "--engine", "pandas", *extra,
        ],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )  # fmt: skip


def _named(stderr: str, what: str) -> set[tuple[str, ...]]:
    lines = [line for line in stderr.splitlines() if f"gate: {what} " in line]
    return {tuple(line.split(f"{what} ")[1].split(" = ")[0].split(": ")) for line in lines}


def test_cli_gate_fails_on_compas_and_names_the_failures() -> None:
    """SPEC 12.7/12.9 on COMPAS: race's DP and EO differences exceed 0.1 with their
    intervals (exit 1); race's accuracy range 0.205 rests on the 32-row Asian slice and
    its interval reaches 0, so it is insufficient evidence, and sex's EO (0.021, upper end
    0.109) too. `--rule point` reproduces the seed's verdicts: three failures."""
    proc = _gate(COMPAS)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _named(proc.stderr, "FAIL") == {
        ("race", "demographic_parity_difference"),
        ("race", "equalized_odds_difference"),
    }
    assert _named(proc.stderr, "INSUFFICIENT") == {
        ("race", "accuracy_range"),
        ("sex", "equalized_odds_difference"),
    }
    fails = [line for line in proc.stderr.splitlines() if "gate: FAIL" in line]
    assert all("> threshold 0.1" in line and "(95% CI 0." in line for line in fails)
    # the terminal table is on stdout
    assert "African-American" in proc.stdout and "Guard" in proc.stdout
    point = _gate(COMPAS, "--rule", "point")
    assert point.returncode == 1, point.stderr
    assert _named(point.stderr, "FAIL") == {
        ("race", "demographic_parity_difference"),
        ("race", "equalized_odds_difference"),
        ("race", "accuracy_range"),
    }
    assert not _named(point.stderr, "INSUFFICIENT")


def test_cli_gate_on_60_compas_rows_is_insufficient_evidence(tmp_path: Path) -> None:
    """The same model on 60 rows (every 120th), with a low-n guard of 10 rows so that two
    slices of race and of sex are eligible: exit 5, with the rows per slice that would
    settle each straddling disparity; `--rule point` judges the values alone. (With the
    default guard of 30 nothing is measurable there: exit 3.)"""
    rows = COMPAS.read_text().splitlines(keepends=True)
    sample = tmp_path / "compas60.csv"
    sample.write_text("".join([rows[0], *rows[1::120]][:61]))
    assert _gate(sample).returncode == 3
    proc = _gate(sample, "--min-samples", "10")
    assert proc.returncode == 5, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "gate: INSUFFICIENT" in line]
    assert lines and all("would settle it" in line for line in lines), proc.stderr
    assert "FAIL" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("faircode: gate: insufficient evidence:")
    point = _gate(sample, "--min-samples", "10", "--rule", "point")
    assert point.returncode == 1 and "INSUFFICIENT" not in point.stderr, point.stderr
