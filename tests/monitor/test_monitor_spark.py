"""`fairness evaluate --engine spark` against the local engine: the same report (SPEC 12.10).

Spark runs in local mode (local[2]) with one session for the module, as in
tests/parity/test_spark.py. This module fails, rather than skips, when PySpark or Java is
missing: CI must really run it. The Spark report is compared with the pandas engine's
(`engine` aside): equal (`==`) where every statistic is a count; where float sums are
added (a regression's errors, sample weights) to `math.isclose(rel_tol=1e-12,
abs_tol=1e-12)`, the store's standard (SPEC 15.1).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sparkutil import CLI_JAVA_OPTS
from util import data_file

try:
    import pyspark  # noqa: F401
except ImportError:  # pragma: no cover
    pytest.fail(
        "tests/monitor/test_monitor_spark.py needs PySpark: pip install -e '.[spark]'",
        pytrace=False,
    )
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):  # pragma: no cover
    pytest.fail("tests/monitor/test_monitor_spark.py needs a Java runtime for Spark", pytrace=False)


from faircode.monitor import evaluate  # noqa: E402
from faircode.monitor.errors import MonitorInputError  # noqa: E402
from faircode.monitor.spark_engine import evaluate_spark  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
COMPAS = data_file("compas-scores-two-years.csv")


def _close(a, b, path="") -> list[str]:
    """Where two reports differ beyond isclose(1e-12, 1e-12) (floats) or at all (else)."""
    if isinstance(a, float) and isinstance(b, float):
        same = (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
        return [] if same else [f"{path}: {a!r} != {b!r}"]
    if type(a) is not type(b):
        return [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in _close(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _close(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def both(path, spark, **kw) -> tuple[dict, dict]:
    got = dict(evaluate_spark(str(path), spark=spark, **kw))
    want = dict(evaluate(str(path), engine="pandas", **kw))
    assert (got.pop("engine"), want.pop("engine")) == ("spark", "pandas")
    return got, want


@pytest.fixture(scope="module")
def compas_files(tmp_path_factory) -> dict[str, Path]:
    """COMPAS as published, and a copy with seeded uneven weights and a few missing
    attribute values, as CSV and as Parquet (a typed source)."""
    out = tmp_path_factory.mktemp("compas")
    df = pd.read_csv(COMPAS)
    rng = np.random.default_rng(28)
    df = df[["race", "sex", "age", "age_cat", "decile_score", "two_year_recid", "priors_count"]]
    df = df.assign(w=rng.choice([0.0, 0.5, 1.0, 1.7, 3.25], size=len(df)))
    df.loc[rng.choice(len(df), 40, replace=False), "sex"] = None
    df.loc[rng.choice(len(df), 25, replace=False), "two_year_recid"] = None
    df["two_year_recid"] = df["two_year_recid"].astype("Int64")
    df.to_csv(out / "weighted.csv", index=False)
    df.to_parquet(out / "weighted.parquet", index=False)
    return {"csv": out / "weighted.csv", "parquet": out / "weighted.parquet"}


COMPAS_CASES = [
    # the published file: score-derived predictions, AUC/Brier/ECE, --intersect
    (
        "published",
        dict(
            pred=None,
            score="decile_score",
            decision_threshold=5,
            label="two_year_recid",
            attrs=["race", "sex", "age"],
            intersect=True,
            ref_groups={"race": "Caucasian"},
        ),
    ),
    # regression with a selection rate; COMPAS's age_cat keeps its labels, age banded
    (
        "published",
        dict(
            pred="decile_score",
            label="priors_count",
            task="regression",
            decision_threshold=5,
            attrs=["age_cat", "age"],
            opts={"age_bands": "0,25,45"},
        ),
    ),
    # group options: --map age=categorical (single ages), --recode on race
    (
        "published",
        dict(
            pred="is_recid",
            label="two_year_recid",
            attrs=["race", "age"],
            overrides={"age": "categorical"},
            opts={"recode": [["race", "Native American", "Other"]]},
        ),
    ),
    # weights, missing sex and labels awaiting, as CSV and as Parquet
    (
        "csv",
        dict(
            pred=None,
            score="decile_score",
            decision_threshold=5,
            label="two_year_recid",
            attrs=["race", "sex"],
            weight="w",
            intersect=True,
        ),
    ),
    (
        "parquet",
        dict(
            pred="decile_score",
            label="priors_count",
            task="regression",
            attrs=["sex", "age"],
            weight="w",
        ),
    ),
]


@pytest.mark.parametrize(("file", "kw"), COMPAS_CASES)
def test_compas_reports_equal_the_local_engine(spark, compas_files, file, kw) -> None:
    path = COMPAS if file == "published" else compas_files[file]
    got, want = both(path, spark, **kw)
    if kw.get("weight") is None and kw.get("task") != "regression":
        assert got == want  # counts only: equal
    else:
        assert _close(got, want) == []
    # an independent check of the numbers the reports share: pandas on the same rows
    df = pd.read_parquet(path) if file == "parquet" else pd.read_csv(path)
    attr = kw["attrs"][0]
    first = got["groups"][0]
    n = {s["slice"]: s["n"] for s in first["slices"]}
    if attr in ("race", "sex") and kw.get("opts") is None:
        pred = kw.get("pred") or kw.get("score")
        scored = df[df[pred].notna()]
        expected = scored[attr].fillna("(missing)").value_counts().to_dict()
        assert n == expected
    if kw.get("score") and kw.get("weight") is None:
        lab = df[df["two_year_recid"].notna()]
        neg = lab[lab["two_year_recid"] == 0]
        fpr = (neg["decile_score"] >= 5).groupby(neg[attr]).mean()
        ours = {s["slice"]: s["metrics"]["fpr"]["value"] for s in first["slices"]}
        for name, value in fpr.items():
            assert ours[name] == pytest.approx(value, abs=1e-12)


HOSTILE = {
    # missing slice values (empty, NA, a short row), padded labels, unlabelled rows
    "mixed.csv": "p,y,g\n1,1, a \n0,0,NA\n1,,b\n0,1,\n1,0,a\t\n0,1\n,1,b\n1,1,b\n",
    # weights: 0, fractions, a row without a prediction (its weight is not read)
    "weighted.csv": "p,y,g,w\n1,1,a,1\n0,0,,2\n1,,b,0.5\n0,1,b,0\n,1,a,\n1,0,a,0.25\n",
    "bad_label.csv": "p,y,g\n1,1,a\n0,2,b\n1,0,a\n",
    "bad_pred.csv": "p,y,g\n1,1,a\n0,1,b\nyes,0,a\n",
    "classes.csv": "p,y,g\n0,1,a\n1,0,b\n2,1,a\n",
    "negative_weight.csv": "p,y,g,w\n1,1,a,1\n0,0,b,-2\n1,0,a,1\n",
    "missing_weight.csv": "p,y,g,w\n1,1,a,1\n,0,b,\n1,0,a,\n",
    "word_weight.csv": "p,y,g,w\n1,1,a,1\n0,0,b,heavy\n1,0,a,1\n",
    "long_row.csv": "p,y,g\n1,1,a\n0,0,b,extra\n1,0,a\n",
    "header_only.csv": "p,y,g\n",
    "no_predictions.csv": "p,y,g\n,1,a\nNA,0,b\n",
    "huge.csv": "p,y,g\n1,1,a\n1e200,0,b\n",
    "bool_words.csv": "p,y,g\nTrue,1,a\nfalse,0,b\n TRUE ,0,a\ninf,1,b\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files_give_the_local_engines_result_or_error(spark, tmp_path, name) -> None:
    path = tmp_path / name
    path.write_text(HOSTILE[name], encoding="utf-8")
    weight = "w" if HOSTILE[name].startswith("p,y,g,w") else None
    kw = dict(pred="p", label="y", attrs=["g"], weight=weight, min_samples=1)
    try:
        want = dict(evaluate(str(path), engine="pandas", **kw))
    except MonitorInputError as exc:
        with pytest.raises(MonitorInputError) as got:
            evaluate_spark(str(path), spark=spark, **kw)
        assert str(got.value) == str(exc)
        return
    got = dict(evaluate_spark(str(path), spark=spark, **kw))
    got.pop("engine"), want.pop("engine")
    assert _close(got, want) == []
    if name == "mixed.csv":  # the missing slice holds NA, the empty cell and the short row
        slices = {s["slice"]: s["n"] for s in got["groups"][0]["slices"]}
        assert slices == {"a": 2, "b": 2, "(missing)": 3}


def test_cli_engine_spark_json_equals_the_local_cli(tmp_path) -> None:
    path = tmp_path / "weighted.csv"
    path.write_text(HOSTILE["weighted.csv"], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "faircode", "fairness", "evaluate", str(path)]
    args += ["--pred", "p", "--label", "y", "--attr", "g", "--weight", "w", "--json"]
    local = subprocess.run([*args, "--engine", "pandas"], capture_output=True, text=True, env=env)
    ran = subprocess.run(
        [*args, "--engine", "spark", "--spark-master", "local[1]"],
        capture_output=True,
        text=True,
        env={**env, "JAVA_TOOL_OPTIONS": CLI_JAVA_OPTS},
    )
    assert (ran.returncode, local.returncode) == (0, 0), ran.stderr
    assert ran.stderr == ""  # the JVM's log goes to a file
    got, want = json.loads(ran.stdout), json.loads(local.stdout)
    assert (got.pop("engine"), want.pop("engine")) == ("spark", "pandas")
    assert _close(got, want) == []
    # refused before Spark starts: one line, exit 2
    stdin = subprocess.run(
        [*args[:5], "-", "--pred", "p", "--attr", "g", "--engine", "spark"],
        capture_output=True,
        text=True,
        env=env,
        input="p,g\n1,a\n",
    )
    assert stdin.returncode == 2
    assert stdin.stderr == (
        "faircode: error: --engine spark reads a path (CSV or Parquet), not standard input\n"
    )


def test_a_pandas_nullable_integer_attribute_stays_integer(spark, tmp_path) -> None:
    """A Parquet file written by pandas marks an Int64 column in its metadata, and
    pandas.read_parquet (the local engine's reader) keeps it integer with a null: slices
    4 and 5, not 4.0 and 5.0. The Spark engine reads that metadata from the footer and
    gives the same report; the same column without the metadata is floating point in
    both (test_typed_attributes_of_every_kind_in_one_pass)."""
    n = 24
    df = pd.DataFrame(
        {
            "p": [1, 0] * (n // 2),
            "y": [0, 1, 1, 0] * (n // 4),
            "j": pd.array([4, 5, None, 4] * (n // 4), dtype="Int64"),
            "k": pd.array([1, 2, 3] * (n // 3), dtype="Int32"),
            "u": pd.array([7, None, 9] * (n // 3), dtype="UInt8"),
        }
    )
    path = tmp_path / "written-by-pandas.parquet"
    df.to_parquet(path)
    got, want = both(path, spark, pred="p", label="y", attrs=["j", "k", "u"], min_samples=1)
    assert got == want
    slices = {g["name"]: [s["slice"] for s in g["slices"]] for g in got["groups"]}
    assert slices == {
        "j": ["4", "5", "(missing)"],
        "k": ["1", "2", "3"],
        "u": ["7", "9", "(missing)"],
    }


def test_typed_attributes_of_every_kind_in_one_pass(spark, tmp_path) -> None:
    """The distinct values of string, integer (with and without a null), floating-point
    (NaN, 0.0 and -0.0, null) and boolean attributes, found together in one pass, give
    the local engine's report from Parquet (written without pandas' metadata, as Spark
    and most writers do: an integer column with a null is floating point to pandas)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 48
    rng = np.random.default_rng(7)
    df = pd.DataFrame(
        {
            "p": rng.integers(0, 2, n),
            "y": rng.integers(0, 2, n),
            "s": rng.choice(["a", " b", "NA", "c"], n).astype(object),
            "i": rng.choice([1, 2, 30], n),
            "j": pd.array(rng.choice([4, 5], n), dtype="Int64"),
            "f": rng.choice([0.0, -0.0, 1.5, np.nan, 2.25], n),
            "b": rng.choice([True, False], n),
        }
    )
    df.loc[[3, 9], "s"] = None
    df.loc[[5], "j"] = pd.NA
    df.loc[0, "f"] = -0.0  # the first zero negative: still the slice of 0.0 (SPEC 12.1)
    path = tmp_path / "typed.parquet"
    table = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)
    pq.write_table(table, path)
    kw = dict(pred="p", label="y", attrs=["s", "i", "j", "f", "b"], min_samples=1)
    got, want = both(path, spark, **kw)
    assert got == want
    slices = {g["name"]: [s["slice"] for s in g["slices"]] for g in got["groups"]}
    assert slices["j"] == ["4.0", "5.0", "(missing)"]
    assert slices["f"] == ["0.0", "1.5", "2.25", "(missing)"]
    assert slices["b"] == ["False", "True"] and slices["i"] == ["1", "2", "30"]


def test_a_float32_attribute_is_sliced_at_its_own_precision(spark, tmp_path) -> None:
    """A 32-bit float's slices are the values its labels read as (SPEC 12.1, 0.4): the
    slice `0.1`, not 0.10000000149011612, in Spark as in the local engine."""
    n = 60
    df = pd.DataFrame(
        {
            "p": [1, 0, 1] * (n // 3),
            "y": [0, 1, 1, 0] * (n // 4),
            "f": pd.Series(
                [[0.1, 0.7, 1e10, np.nan, -0.0][k % 5] for k in range(n)], dtype="float32"
            ),
        }
    )
    path = tmp_path / "f32.parquet"
    df.to_parquet(path)
    got, want = both(path, spark, pred="p", label="y", attrs=["f"], min_samples=1)
    assert got == want
    assert [s["slice"] for s in got["groups"][0]["slices"]] == [
        "0.0",
        "0.1",
        "0.7",
        "10000000000.0",
        "(missing)",
    ]
