"""Sample weights in the prediction store (SPEC 15.1, 15.3; issue 26): ``log --weight``,
the weighted sums of ``slice_stats`` (migration 3), and store reports equal to
``evaluate --weight`` on the same rows, on SQLite and on a real PostgreSQL server.

Tests taking ``db`` run twice (see tests/storeutil.py for where the server comes from).
The store adds its sums of weights in SQL, in another order than evaluate's
``np.bincount``, so floats are compared as the regression store test compares them:
``math.isclose(rel_tol=1e-12, abs_tol=1e-12)``; every count, status and text exactly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import storeutil
from test_monitor_store import _assert_error_rates_present, _close, _strip
from util import data_file

from faircode.monitor import evaluate, rollup
from faircode.monitor import store as store_module
from faircode.monitor.counts import counts_from_rows, weighted_keys
from faircode.monitor.errors import MonitorInputError
from faircode.monitor.ingest import log_labels, log_predictions, remove_batch
from faircode.monitor.registry import Registry
from faircode.monitor.store import STAT_WEIGHTED, open_store
from faircode.monitor.timeline import store_report

COMPAS = data_file("compas-scores-two-years.csv")
SCORE: dict[str, Any] = {"score": "decile_score", "decision_threshold": 5}
ATTRS = ["race", "sex"]


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    """COMPAS with seeded survey-like weights (a few rows weigh 0), as
    tests/monitor/test_monitor_weights.py weighs it."""
    if not COMPAS.exists():
        pytest.fail(f"test data missing: {COMPAS}", pytrace=False)
    df = pd.read_csv(COMPAS)
    df = df[["id", "race", "sex", "decile_score", "two_year_recid", "compas_screening_date"]]
    rng = np.random.default_rng(20260426)
    w = rng.gamma(2.0, 0.5, len(df))
    w[rng.random(len(df)) < 0.02] = 0.0
    return df.assign(w=w)


def _report(db: str, model: str, slices: list[str], **kw: Any) -> dict[str, Any]:
    store = open_store(db)
    try:
        reg = Registry(model=model, slices=tuple(slices))
        return store_report(store, model, reg, **kw)["evaluation"]
    finally:
        store.close()


def _effective_sizes(report: dict[str, Any]) -> list[float]:
    return [
        m["n_eff"] for g in report["groups"] for s in g["slices"] for m in s["metrics"].values()
    ]


def test_weighted_store_report_equals_evaluate_weight_on_compas(
    db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """Two prediction batches (the second joining waiting labels), weighted: every slice
    metric, n_eff, interval, disparity, evidence and status of the store's report equals
    ``evaluate --weight`` on the same rows (intersections and AUC, Brier, ECE too)."""
    both = tmp_path / "compas.csv"
    compas.to_csv(both, index=False)
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    compas.iloc[:3600].to_csv(first, index=False)
    compas.iloc[3600:].to_csv(second, index=False)
    expected = evaluate(
        both, pred=None, attrs=ATTRS, label="two_year_recid", weight="w", intersect=True,
        engine="pandas", **SCORE,
    )  # fmt: skip
    store = open_store(db)
    try:
        kw: dict[str, Any] = {"id_col": "id", "attrs": ATTRS, "at_col": "compas_screening_date"}
        log_predictions(store, "compas", first, version="v1", weight="w", **kw, **SCORE)
        # every label at once: those of the second batch wait as orphans and join it
        labels = log_labels(store, "compas", both, id_col="id", label_col="two_year_recid")
        assert labels["orphans"] == len(compas) - 3600
        s = log_predictions(store, "compas", second, version="v1", weight="w", **kw, **SCORE)
        assert s["labels_joined"] == len(compas) - 3600
    finally:
        store.close()
    got = _report(db, "compas", ATTRS, intersect=True)
    assert got["engine"] == "sql"
    assert got["columns"]["weight"] == "w"
    _assert_error_rates_present(got)
    sizes = _effective_sizes(got)
    assert sizes and all(isinstance(x, float) for x in sizes)
    assert got["calibration"] is not None
    _close(_strip(got), _strip(expected))
    # not vacuous: the weights move the disparities, and the Asian slice (32 rows) is
    # low-n by its effective size only
    plain = evaluate(both, pred=None, attrs=ATTRS, label="two_year_recid", engine="pandas", **SCORE)
    dp = [d for d in got["groups"][0]["disparities"] if d["metric"].startswith("demographic")]
    dp_plain = [
        d for d in plain["groups"][0]["disparities"] if d["metric"].startswith("demographic")
    ]
    assert abs(dp[0]["value"] - dp_plain[0]["value"]) > 1e-3
    asian = next(s for s in got["groups"][0]["slices"] if s["slice"] == "Asian")
    sr = asian["metrics"]["selection_rate"]
    assert sr["count"] >= 30 and sr["n_eff"] < 30 and sr["low_n"]
    import jsonschema

    schema = json.loads((storeutil.ROOT / "faircode" / "monitor" / "schema.json").read_text())
    jsonschema.validate(got, schema)


def test_weighted_gate_decides_as_evaluate_weight_gate(
    cli, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """``log --weight`` then ``gate``: the exit code, every gated disparity's status and
    the stderr lines are ``evaluate --weight --gate``'s on the same rows."""
    (tmp_path / "fairness.yaml").write_text("models:\n  compas:\n    slices: [race, sex]\n")
    rows = compas.head(2000)
    rows.iloc[:1200].to_csv(tmp_path / "a.csv", index=False)
    rows.iloc[1200:].to_csv(tmp_path / "b.csv", index=False)
    rows.to_csv(tmp_path / "all.csv", index=False)
    log = ("--version", "v1", "--id", "id", "--score", "decile_score", "--decision-threshold")
    log += ("5", "--attr", "race", "--attr", "sex", "--weight", "w")
    code, _, err = cli("log", "compas", "a.csv", *log)
    assert code == 0 and "weighted by w" in err, err
    assert cli("log", "compas", "b.csv", *log)[0] == 0
    assert cli("label", "compas", "all.csv", "--id", "id", "--label", "two_year_recid")[0] == 0
    code, out, gate_err = cli("gate", "compas", "--version", "v1", "--json")
    report = json.loads(out)["report"]["evaluation"]
    evaluate_args = ["evaluate", "all.csv", "--score", "decile_score", "--decision-threshold"]
    evaluate_args += ["5", "--label", "two_year_recid", "--attr", "race", "--attr", "sex"]
    want, out, eval_err = cli(*evaluate_args, "--weight", "w", "--gate", "--json")
    expected = json.loads(out)
    assert code == want and code != 0, (code, want)
    _close(_strip(report), _strip(expected))
    lines = _verdict_lines(gate_err)
    assert lines and lines == _verdict_lines(eval_err)
    code, out, _ = cli("report", "compas", "--version", "v1")
    assert code == 0 and "weights: w" in out


def _verdict_lines(err: str) -> list[str]:
    """The gate's lines naming each failed, insufficient and unmeasured disparity, their
    long decimals (effective sizes, summed in another order) to 9 digits."""
    verdicts = ("FAIL", "INSUFFICIENT", "UNMEASURED")
    lines = [ln for ln in err.splitlines() if ln.split(" ")[2:3] and ln.split(" ")[2] in verdicts]
    return [re.sub(r"[0-9]+\.[0-9]{6,}", lambda m: f"{float(m[0]):.9g}", ln) for ln in lines]


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    w = rng.gamma(1.5, 1.0, n)
    w[rng.random(n) < 0.05] = 0.0
    return pd.DataFrame(
        {
            "rid": np.arange(n) * 7 + 11,
            "region": rng.choice(["north", "south", "east"], n, p=[0.6, 0.35, 0.05]),
            "age": rng.choice([20, 30, 40], n),
            "pred": rng.integers(0, 2, n),
            "yhat": rng.normal(10, 3, n).round(2),
            "y": rng.normal(10, 3, n).round(2),
            "label": rng.integers(0, 2, n),
            "w": w,
        }
    )


def test_weighted_regression_store_equals_evaluate(db: str, tmp_path: Path) -> None:
    """Weighted MAE, RMSE and means, with some labels re-sent with new values (the
    store rebuilds a weighted model's sums then): equal to evaluate's within 1e-12."""
    df = _frame(2500, seed=5)
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    changed = tmp_path / "y2.csv"
    df.iloc[::4].assign(y=lambda d: d["y"] + 2.5)[["rid", "y"]].to_csv(changed, index=False)
    final = df.copy()
    final.loc[final.index[::4], "y"] += 2.5
    final.to_csv(tmp_path / "final.csv", index=False)
    attrs = ["region", "age"]
    expected = evaluate(
        tmp_path / "final.csv", pred="yhat", attrs=attrs, label="y", weight="w", engine="pandas"
    )
    store = open_store(db)
    try:
        log_predictions(
            store, "r", path, version="1", id_col="rid", attrs=attrs, pred="yhat", weight="w"
        )
        log_labels(store, "r", path, id_col="rid", label_col="y")
        log_labels(store, "r", changed, id_col="rid", label_col="y")
    finally:
        store.close()
    got = _report(db, "r", attrs)
    assert got["task"]["type"] == "regression" and got["columns"]["weight"] == "w"
    assert all(
        "n_eff" in m for g in got["groups"] for s in g["slices"] for m in s["metrics"].values()
    )
    _close(_strip(got), _strip(expected))


def test_relabelling_a_weighted_model_leaves_no_float_residue(db: str, tmp_path: Path) -> None:
    """A slice whose labelled positives weigh 0.1 and 0.2 loses them to two later label
    batches; its remaining positives weigh 0. Subtracting the float sums would leave
    ``0.1 + 0.2 - 0.1 - 0.2 = 2.8e-17`` and a TPR out of nothing; the store rebuilds the
    sums, so TPR is undefined (null, n_eff 0) as in evaluate."""
    n = 40
    df = pd.DataFrame(
        {
            "rid": [f"r{i}" for i in range(2 * n)],
            "g": ["a"] * n + ["b"] * n,
            "p": ([1, 1, 1, 0] * (n // 2)),
            "y": [1, 1, 1, 1] + [0] * (n - 4) + [1, 0] * (n // 2),
            "w": [0.1, 0.2, 0.0, 0.0] + [1.0] * (n - 4) + [0.5, 1.5] * (n // 2),
        }
    )
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    for i, rid in enumerate(("r0", "r1")):
        pd.DataFrame({"rid": [rid], "y": [0]}).to_csv(tmp_path / f"fix{i}.csv", index=False)
    final = df.copy()
    final.loc[[0, 1], "y"] = 0
    expected = evaluate(
        final, pred="p", attrs=["g"], label="y", weight="w", engine="pandas", min_samples=0
    )
    store = open_store(db)
    try:
        log_predictions(
            store, "m", path, version="1", id_col="rid", attrs=["g"], pred="p", weight="w"
        )
        log_labels(store, "m", path, id_col="rid", label_col="y")
        for i in range(2):
            log_labels(store, "m", tmp_path / f"fix{i}.csv", id_col="rid", label_col="y")
        reg = Registry(model="m", slices=("g",), min_samples=0)
        got = store_report(store, "m", reg)["evaluation"]
    finally:
        store.close()
    tpr = got["groups"][0]["slices"][0]["metrics"]["tpr"]
    assert tpr["value"] is None and tpr["n_eff"] == 0.0 and tpr["count"] == 2
    _close(_strip(got), _strip(expected))


def test_weighted_slice_stats_equal_a_group_by_over_the_predictions(
    db: str, tmp_path: Path
) -> None:
    """Overlapping batches, orphans, replaced labels and a removed batch: the weighted
    sums in slice_stats stay equal to a GROUP BY over the stored predictions."""
    df = _frame(900, seed=3)
    parts = {name: tmp_path / f"{name}.csv" for name in ("a", "b", "c", "l1", "l2", "l3")}
    df.iloc[:500].to_csv(parts["a"], index=False)
    df.iloc[450:800].to_csv(parts["b"], index=False)  # overlaps the first batch
    df.iloc[800:].to_csv(parts["c"], index=False)
    df.iloc[::2][["rid", "label"]].to_csv(parts["l1"], index=False)  # some orphans
    df.iloc[::3].assign(label=lambda d: 1 - d["label"])[["rid", "label"]].to_csv(
        parts["l2"], index=False
    )  # replaces some
    pd.DataFrame({"rid": [10**9], "label": [1]}).to_csv(parts["l3"], index=False)
    attrs = ["region", "age"]
    kw: dict[str, Any] = {"version": "1", "id_col": "rid", "attrs": attrs, "pred": "pred"}
    store = open_store(db)
    try:
        log_predictions(store, "m", parts["a"], weight="w", **kw)
        log_labels(store, "m", parts["l1"], id_col="rid", label_col="label")
        log_labels(store, "m", parts["l3"], id_col="rid", label_col="label")
        log_predictions(store, "m", parts["b"], weight="w", **kw)
        log_labels(store, "m", parts["l2"], id_col="rid", label_col="label")
        third = log_predictions(store, "m", parts["c"], weight="w", **kw)
        remove_batch(store, "m", third["batch"], reason="test: a removed weighted batch")
        kept = rollup.cells(store, "m", [0, 1], "1", None, None, weighted=True)
        raw = rollup.raw_cells(store, "m", [0, 1], "1", weighted=True)
    finally:
        store.close()
    dims = ["a0", "a1", "day"]
    kept = kept.sort_values(dims).reset_index(drop=True)
    raw = raw.sort_values(dims).reset_index(drop=True)
    assert set(STAT_WEIGHTED) <= set(kept.columns)
    assert kept["w_n"].sum() > 0
    pd.testing.assert_frame_equal(kept, raw, check_exact=False, rtol=1e-12)


def test_the_stored_weighted_sums_are_evaluates() -> None:
    """slice_stats keeps exactly the sums counts_from_rows gives with weights."""
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, 50)
    pred, label = rng.integers(0, 2, 50).astype(float), rng.integers(0, 2, 50).astype(float)
    w = rng.random(50)
    binary = counts_from_rows(codes, 3, pred, label, pred == 1, "binary", w)
    regression = counts_from_rows(codes, 3, pred, label, None, "regression", w)
    assert set(weighted_keys("binary")) == {k for k in binary if k.startswith("w")}
    assert set(weighted_keys("regression", selected=False)) == {
        k for k in regression if k.startswith("w")
    }
    assert set(STAT_WEIGHTED) == set(weighted_keys("binary")) | set(weighted_keys("regression"))


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1, 2, -0.5, 1], "weight column 'w' has a negative weight (-0.5) in data row 3"),
        ([1, None, 1, 1], "weight column 'w' is missing in data row 2, which has a prediction"),
        ([1, 1, 1, "heavy"], "weight column 'w' is not numeric: 'heavy' in data row 4"),
        ([1, float("inf"), 1, 1], "weight column 'w' has inf in data row 2"),
    ],
)
def test_bad_weights_are_refused_with_evaluates_words(
    cli, db: str, tmp_path: Path, weights: list[Any], message: str
) -> None:
    df = pd.DataFrame({"rid": [1, 2, 3, 4], "g": ["a", "a", "b", "b"], "p": [1, 0, 1, 0]})
    df["w"] = weights
    df.to_csv(tmp_path / "p.csv", index=False)
    with pytest.raises(MonitorInputError) as exc:
        evaluate("p.csv", pred="p", attrs=["g"], weight="w", engine="pandas")  # the cwd is tmp_path
    words = str(exc.value)
    assert message in words
    code, _, err = cli(
        "log", "m", "p.csv", "--version", "1", "--id", "rid", "--pred", "p", "--attr", "g",
        "--weight", "w",
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1
    assert err == f"faircode: error: {words}; the batch was not written\n"
    code, _, err = cli(
        "log", "m", "p.csv", "--version", "1", "--id", "rid", "--pred", "p", "--attr", "g",
        "--weight", "nope",
    )  # fmt: skip
    assert code == 2 and "'nope'" in err and "--weight" in err
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 0
        assert store.one("SELECT COUNT(*) FROM batches") == 0
    finally:
        store.close()


def test_a_model_is_weighted_or_not_and_mixing_is_refused(cli, db: str, tmp_path: Path) -> None:
    df = _frame(60, seed=9)
    df.iloc[:30].to_csv(tmp_path / "a.csv", index=False)
    df.iloc[30:].to_csv(tmp_path / "b.csv", index=False)
    log = ["--version", "1", "--id", "rid", "--pred", "pred", "--attr", "region"]
    assert cli("log", "plain", "a.csv", *log)[0] == 0
    code, _, err = cli("log", "plain", "b.csv", *log, "--weight", "w")
    assert code == 2 and err.count("\n") == 1, err
    assert "model plain is unweighted (its 1 stored prediction batch was logged without" in err
    assert "remove-batch plain BATCH" in err and err.endswith("the batch was not written\n")
    assert cli("log", "heavy", "a.csv", *log, "--weight", "w")[0] == 0
    code, _, err = cli("log", "heavy", "b.csv", *log)
    assert code == 2 and err.count("\n") == 1, err
    assert "model heavy is weighted (its 1 stored prediction batch was logged with" in err
    assert "--weight w) and this batch has no --weight" in err
    # another weight column is fine: the report names the latest batch's (as --pred)
    df.iloc[30:].rename(columns={"w": "survey_w"}).to_csv(tmp_path / "c.csv", index=False)
    assert cli("log", "heavy", "c.csv", *log, "--weight", "survey_w")[0] == 0
    (tmp_path / "fairness.yaml").write_text("models:\n  heavy:\n    slices: [region]\n")
    code, out, err = cli("slice", "heavy", "region", "--json")
    assert code == 0 and json.loads(out)["evaluation"]["columns"]["weight"] == "survey_w", err
    # once its batches are removed, a model may start again the other way
    store = open_store(db)
    try:
        batch = store.one("SELECT id FROM batches WHERE model = 'plain'")
    finally:
        store.close()
    assert cli("remove-batch", "plain", str(batch), "--reason", "reweighted")[0] == 0
    assert cli("log", "plain", "b.csv", *log, "--weight", "w")[0] == 0


def _columns(store: Any, table: str) -> set[str]:
    if store.dialect == "sqlite":
        return {r[1] for r in store.query(f"PRAGMA table_info({table})")}
    rows = store.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", (table,)
    )
    return {r[0] for r in rows}


def test_a_store_at_schema_2_upgrades_and_takes_weights(
    db: str, tmp_path: Path, compas: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store created and filled at schema version 2 (migrations 1 and 2 as released;
    an unweighted model writes what it wrote then) opens with migration 3 applied in
    place: its reports are unchanged, its unweighted model stays unweighted, and a new
    model takes weights and reports as evaluate --weight."""
    rows = compas.head(1500)
    path = tmp_path / "c.csv"
    rows.to_csv(path, index=False)
    kw: dict[str, Any] = {"id_col": "id", "attrs": ATTRS, "at_col": "compas_screening_date"}
    with monkeypatch.context() as m:
        m.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS[:2])
        m.setattr(store_module, "SCHEMA_VERSION", 2)
        store = open_store(db)
        try:
            assert store.schema_version() == 2
            assert "weight" not in _columns(store, "predictions")
            assert "w_n" not in _columns(store, "slice_stats")
            log_predictions(store, "old", path, version="v1", **kw, **SCORE)
            log_labels(store, "old", path, id_col="id", label_col="two_year_recid")
        finally:
            store.close()
        before = _report(db, "old", ATTRS)
    store = open_store(db)
    try:
        # migration 3, and those after it (4: SLOs and alerts)
        assert store.schema_version() == store_module.SCHEMA_VERSION
        assert store.one("SELECT COUNT(*) FROM schema_version") == store_module.SCHEMA_VERSION
        assert "weight" in _columns(store, "predictions")
        assert set(STAT_WEIGHTED) <= _columns(store, "slice_stats")
        assert store.one("SELECT COUNT(*) FROM predictions WHERE weight IS NOT NULL") == 0
        assert store.one("SELECT SUM(w_n) FROM slice_stats") == 0
        with pytest.raises(MonitorInputError, match="model old is unweighted"):
            log_predictions(store, "old", path, version="v2", weight="w", **kw, **SCORE)
        log_predictions(store, "new", path, version="v1", weight="w", **kw, **SCORE)
        log_labels(store, "new", path, id_col="id", label_col="two_year_recid")
    finally:
        store.close()
    assert _report(db, "old", ATTRS) == before
    expected = evaluate(
        path, pred=None, attrs=ATTRS, label="two_year_recid", weight="w", engine="pandas", **SCORE
    )
    _close(_strip(_report(db, "new", ATTRS)), _strip(expected))
    # opening again applies nothing twice
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM schema_version") == store_module.SCHEMA_VERSION
    finally:
        store.close()
