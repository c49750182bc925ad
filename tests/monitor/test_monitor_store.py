"""The prediction store on SQLite and on a real PostgreSQL server (SPEC section 15).

Every test taking ``db`` runs twice: on a SQLite file and on a fresh PostgreSQL
database (see tests/storeutil.py for where the server comes from).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import storeutil

from faircode.monitor import evaluate
from faircode.monitor.cli import run
from faircode.monitor.registry import Registry
from faircode.monitor.store import open_store
from faircode.monitor.timeline import store_report

YAML = """\
models:
  COMPAS:
    slices: [race, sex]
    threshold: 0.1
    min_samples: 30
    gate: true
    enabled: true
    rule: point  # the store's mechanics, judged as the seed did (SPEC 12.7)
"""


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    df = pd.read_csv(storeutil.require_compas())
    return df[["id", "race", "sex", "decile_score", "two_year_recid", "compas_screening_date"]]


def _strip(report: dict[str, Any]) -> dict[str, Any]:
    """A report without the fields that name its producer."""
    return {k: v for k, v in report.items() if k not in ("source", "engine")}


ERROR_RATES = ("fnr", "for", "fdr", "npv")
ERROR_RANGES = ("fnr_range", "for_range", "fdr_range", "precision_range", "npv_range")


def _assert_error_rates_present(report: dict[str, Any]) -> None:
    """The store's report carries every error rate and range, measured somewhere (so an
    equality with evaluate's report covers them, rather than two reports without them)."""
    for g in report["groups"]:
        for s in g["slices"]:
            assert set(ERROR_RATES) <= set(s["metrics"]), (g["name"], s["slice"])
        assert set(ERROR_RANGES) <= {d["metric"] for d in g["disparities"]}, g["name"]
    for metric in ERROR_RATES:
        assert any(
            s["metrics"][metric]["value"] is not None for g in report["groups"] for s in g["slices"]
        ), metric
    for name in ERROR_RANGES:
        assert any(
            d["value"] is not None
            for g in report["groups"]
            for d in g["disparities"]
            if d["metric"] == name
        ), name


def _events(db: str, model: str = "compas") -> list[tuple[str, str | None]]:
    store = open_store(db)
    try:
        return [
            (r[0], r[1])
            for r in store.query(
                "SELECT event, version FROM audit WHERE model = ? ORDER BY id", (model,)
            )
        ]
    finally:
        store.close()


def test_scenario_log_label_override_apply_gate_force_audit(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    (tmp_path / "fairness.yaml").write_text(YAML)
    v1 = compas.iloc[:3600]
    v2 = compas.iloc[3600:]
    preds = [
        "--id",
        "id",
        "--score",
        "decile_score",
        "--decision-threshold",
        "5",
        "--attr",
        "race",
        "--attr",
        "sex",
        "--at",
        "compas_screening_date",
    ]
    v1.drop(columns="two_year_recid").to_csv(tmp_path / "v1.csv", index=False)
    v2.drop(columns="two_year_recid").to_csv(tmp_path / "v2.csv", index=False)
    compas[["id", "two_year_recid"]].to_csv(tmp_path / "labels.csv", index=False)

    assert cli("validate")[0] == 0
    code, _, err = cli("log", "compas", "v1.csv", "--version", "v1", *preds)
    assert code == 0, err
    assert "logged 3600 predictions" in err

    # no labels yet: only the selection rate is measurable (and already exceeds)
    code, _, err = cli("gate", "COMPAS", "--version", "v1")
    assert code == 1, err
    assert "UNMEASURED race: equalized_odds_difference" in err

    # the labels arrive days later, some for predictions not logged yet (orphans)
    code, out, err = cli(
        "label", "compas", "labels.csv", "--id", "id", "--label", "two_year_recid", "--json"
    )
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["joined"], summary["orphans"]) == (3600, len(v2))
    # the same batch again changes nothing
    code, _, err = cli("label", "compas", "labels.csv", "--id", "id", "--label", "two_year_recid")
    assert code == 0 and "already logged" in err

    code, out, _ = cli("report", "compas", "--version", "v1", "--json", "--target", "0.99")
    assert code == 0
    report = json.loads(out)
    assert report["orphan_labels"] == len(v2)
    assert report["evaluation"]["rows"]["labelled"] == 3600
    assert report["registry"]["source"] == "yaml"
    assert len(report["trend"]) > 10
    assert report["sli"]["total"] + len(report["sli"]["unmeasurable"]) == 2

    # a live override wins, but show names every field where it departs from the YAML
    code, _, err = cli(
        "config",
        "compas",
        "--attr",
        "race",
        "--threshold",
        "0.5",
        "--reason",
        "incident 42: widen while investigating",
    )
    assert code == 0, err
    code, out, _ = cli("show", "compas", "--json")
    shown = json.loads(out)
    assert shown["source"] == "store"
    assert {d["field"] for d in shown["drift"]} == {"slices", "threshold"}
    code, out, _ = cli("show", "Compas")
    assert "DRIFT" in out and "threshold: yaml 0.1, store 0.5 (in force)" in out

    code, _, err = cli("apply", "compas", "--reason", "incident closed")
    assert code == 0, err
    shown = json.loads(cli("show", "compas", "--json")[1])
    assert shown["source"] == "yaml" and shown["drift"] == []

    # v2 arrives; its waiting labels join it
    code, out, err = cli("log", "compas", "v2.csv", "--version", "v2", *preds, "--json")
    assert code == 0, err
    assert json.loads(out)["labels_joined"] == len(v2)

    code, out, err = cli("gate", "compas", "--version", "v2", "--json")
    assert code == 1, err
    decision = json.loads(out)
    assert decision["event"] == "promotion_blocked_by_fairness"
    # the gate judged v2's predictions only
    assert decision["report"]["evaluation"]["rows"]["scored"] == len(v2)
    assert decision["report"]["orphan_labels"] == 0
    assert "FAIL race: equalized_odds_difference" in err

    code, _, err = cli("gate", "compas", "--version", "v2", "--force")
    assert code == 2 and "--reason" in err
    code, _, err = cli(
        "gate",
        "compas",
        "--version",
        "v2",
        "--force",
        "--reason",
        "approved by the ethics board, ticket 7",
    )
    assert code == 0, err
    assert "OVERRIDDEN" in err

    code, out, err = cli("audit", "compas", "--verify", "--json")
    assert code == 0, err
    entries = json.loads(out)["entries"]
    assert [(e["event"], e["version"]) for e in entries] == [
        ("promotion_blocked_by_fairness", "v1"),
        ("fairness_config_set", None),
        ("fairness_registry_applied", None),
        ("promotion_blocked_by_fairness", "v2"),
        ("fairness_gate_override", "v2"),
    ]
    assert {e["actor"] for e in entries} == {"test-operator"}
    blocked, forced = entries[3]["details"], entries[4]["details"]
    assert blocked["threshold"] == 0.1 and blocked["status"] == "exceeded"
    eo = [
        d
        for d in blocked["disparities"]
        if d["group"] == "race" and d["metric"] == "equalized_odds_difference"
    ][0]
    assert eo["value"] > 0.1 and eo["status"] == "exceeded"
    assert forced["reason"] == "approved by the ethics board, ticket 7"
    assert entries[1]["details"]["after"]["threshold"] == 0.5
    assert entries[2]["details"]["discarded_override"]["slices"] == ["race"]
    assert "chain verified" in err


def test_an_override_of_a_model_the_yaml_does_not_declare_can_be_discarded(
    cli, db: str, tmp_path: Path
) -> None:
    # `config` accepts a model fairness.yaml does not declare, so `apply` must be able to
    # take that override back (else only SQL could), leaving no registry in force
    (tmp_path / "fairness.yaml").write_text(YAML)
    (tmp_path / "p.csv").write_text("id,pred,g\nr1,1,a\nr2,0,b\n")
    assert cli("log", "other", "p.csv", "--version", "v1", "--id", "id", "--pred", "pred",
               "--attr", "g")[0] == 0  # fmt: skip
    assert cli("config", "other", "--attr", "g", "--threshold", "0.2", "--reason", "try")[0] == 0
    assert cli("report", "other")[0] == 0
    code, _, err = cli("apply", "other", "--reason", "revoked")
    assert code == 0, err
    assert "discarded the store override of other" in err and "no registry is in force" in err
    assert _events(db, "other") == [
        ("fairness_config_set", None),
        ("fairness_registry_applied", None),
    ]
    code, out, _ = cli("show", "other", "--json")
    assert json.loads(out)["store"] is None
    code, _, err = cli("report", "other")
    assert code == 2 and "no fairness registry for model 'other'" in err
    assert cli("audit", "--verify")[0] == 0
    # nothing left to discard: one line, nothing recorded
    code, _, err = cli("apply", "other", "--reason", "again")
    assert code == 2 and err.count("\n") == 1
    assert "does not declare model 'other' and the store holds no override" in err
    assert len(_events(db, "other")) == 2


def test_store_report_equals_evaluate_on_the_same_rows(
    db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    path = tmp_path / "compas.csv"
    compas.to_csv(path, index=False)
    expected = evaluate(
        path,
        pred=None,
        score="decile_score",
        decision_threshold=5,
        label="two_year_recid",
        attrs=["race", "sex"],
        intersect=True,
        engine="pandas",
    )
    store = open_store(db)
    try:
        from faircode.monitor.ingest import log_labels, log_predictions

        log_predictions(
            store,
            "compas",
            path,
            version="v1",
            id_col="id",
            attrs=["race", "sex"],
            score="decile_score",
            decision_threshold=5,
            at_col="compas_screening_date",
        )
        log_labels(store, "compas", path, id_col="id", label_col="two_year_recid")
        reg = Registry(model="compas", slices=("race", "sex"), threshold=0.1, min_samples=30)
        got = store_report(store, "compas", reg, intersect=True)["evaluation"]
    finally:
        store.close()
    assert got["engine"] == "sql"
    _assert_error_rates_present(got)
    # --score: AUC, Brier, ECE and the bins from the store's score GROUP BY (SPEC 12.4)
    assert got["calibration"]["scale"] == "min-max"
    for g in got["groups"]:
        assert "auc_range" in {d["metric"] for d in g["disparities"]}
        for s in g["slices"]:
            assert {"auc", "brier", "ece"} <= set(s["metrics"]) and "calibration" in s
    assert _strip(got) == _strip(expected)
    import jsonschema

    schema = json.loads((storeutil.ROOT / "faircode" / "monitor" / "schema.json").read_text())
    jsonschema.validate(got, schema)


def _mixed_frame(n: int = 3000, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n).astype(float)
    label[rng.random(n) < 0.3] = np.nan  # awaiting a label
    return pd.DataFrame(
        {
            "rid": np.arange(n) * 3 + 100,
            "age": rng.choice([20, 30, 40, 50], n),
            "flag": rng.choice([True, False], n),
            "region": rng.choice(["north", "south", "east"], n, p=[0.6, 0.39, 0.01]),
            "pred": rng.integers(0, 2, n),
            "yhat": rng.normal(10, 3, n).round(3),
            "y": rng.normal(10, 3, n).round(3),
            "label": label,
        }
    )


def _written(df: pd.DataFrame, tmp_path: Path) -> tuple[Path, Path, Path]:
    """df as `log` and `label` take it (predictions; the labelled rows' ids and labels)
    and as `evaluate` does (both in one file)."""
    path = tmp_path / "preds.csv"
    df.drop(columns="label").to_csv(path, index=False)
    labels = tmp_path / "labels.csv"
    df.dropna(subset=["label"])[["rid", "label"]].to_csv(labels, index=False)
    both = tmp_path / "both.csv"
    df.to_csv(both, index=False)
    return path, labels, both


def test_store_equals_evaluate_with_missing_labels_and_typed_slices(
    db: str, tmp_path: Path
) -> None:
    df = _mixed_frame()
    path, labels, both = _written(df, tmp_path)
    attrs = ["age", "flag", "region"]
    expected = evaluate(
        both, pred="pred", label="label", attrs=attrs, intersect=True, engine="pandas"
    )
    store = open_store(db)
    try:
        from faircode.monitor.ingest import log_labels, log_predictions

        log_predictions(store, "m", path, version="1", id_col="rid", attrs=attrs, pred="pred")
        log_labels(store, "m", labels, id_col="rid", label_col="label")
        reg = Registry(model="m", slices=tuple(attrs))
        got = store_report(store, "m", reg, intersect=True)["evaluation"]
    finally:
        store.close()
    # slice values come back as ingest read them (whatever type read_table gives), so the
    # keys, their order and their JSON types match evaluate's on the same file
    assert [s["key"] for s in got["groups"][0]["slices"]] == [
        s["key"] for s in expected["groups"][0]["slices"]
    ]
    _assert_error_rates_present(got)
    assert _strip(got) == _strip(expected)


def test_store_reads_true_and_false_as_evaluate_does(db: str, tmp_path: Path) -> None:
    """SPEC 12.1: the CSV words True/true/TRUE and False/false/FALSE are 1 and 0, for
    `log` and `label` as for evaluate (15.1: the same rows, the same report); `log`
    refused them as not numbers."""
    df = _mixed_frame(1200)
    df["pred"] = df["pred"].map({0: "false", 1: "TRUE"})
    df["label"] = df["label"].map({0.0: "False", 1.0: "true"})  # missing stays missing
    path, labels, both = _written(df, tmp_path)
    expected = evaluate(both, pred="pred", label="label", attrs=["region"], engine="pandas")
    store = open_store(db)
    try:
        from faircode.monitor.ingest import log_labels, log_predictions

        log_predictions(store, "m", path, version="1", id_col="rid", attrs=["region"], pred="pred")
        log_labels(store, "m", labels, id_col="rid", label_col="label")
        got = store_report(store, "m", Registry(model="m", slices=("region",)))["evaluation"]
    finally:
        store.close()
    assert expected["task"]["type"] == "binary"
    assert _strip(got) == _strip(expected)


def _close(a: Any, b: Any, path: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        # sums of floats in another order: equal to 1e-12 relative
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), f"{path}: {a} != {b}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def test_store_equals_evaluate_for_regression_within_float_summation(
    db: str, tmp_path: Path
) -> None:
    df = _mixed_frame(seed=11)
    path = tmp_path / "reg.csv"
    df.to_csv(path, index=False)
    expected = evaluate(path, pred="yhat", label="y", attrs=["region", "age"], engine="pandas")
    store = open_store(db)
    try:
        from faircode.monitor.ingest import log_labels, log_predictions

        log_predictions(
            store, "r", path, version="1", id_col="rid", attrs=["region", "age"], pred="yhat"
        )
        log_labels(store, "r", path, id_col="rid", label_col="y")
        reg = Registry(model="r", slices=("region", "age"))
        got = store_report(store, "r", reg)["evaluation"]
    finally:
        store.close()
    assert got["task"]["type"] == "regression"
    _close(_strip(got), _strip(expected))


def test_a_bad_row_rejects_the_whole_batch_naming_its_line(cli, db: str, tmp_path: Path) -> None:
    df = _mixed_frame(200)
    df["pred"] = df["pred"].astype(object)
    df.loc[150, "pred"] = "yes"
    df.to_csv(tmp_path / "bad.csv", index=False)
    code, _, err = cli(
        "log", "m", "bad.csv", "--version", "1", "--id", "rid", "--pred", "pred", "--attr", "region"
    )
    assert code == 2
    assert err.count("\n") == 1 and "line 152" in err and "'yes'" in err
    dup = _mixed_frame(50)
    dup.loc[40, "rid"] = dup.loc[3, "rid"]
    dup.to_csv(tmp_path / "dup.csv", index=False)
    code, _, err = cli(
        "log", "m", "dup.csv", "--version", "1", "--id", "rid", "--pred", "pred", "--attr", "region"
    )
    assert code == 2 and "line 42" in err and "first on line 5" in err
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 0
        assert store.one("SELECT COUNT(*) FROM batches") == 0
    finally:
        store.close()


def test_a_resent_batch_is_idempotent_and_overlaps_keep_the_first(
    cli, db: str, tmp_path: Path
) -> None:
    df = _mixed_frame(500)
    df.to_csv(tmp_path / "a.csv", index=False)
    args = ["--version", "1", "--id", "rid", "--pred", "pred", "--attr", "region"]
    assert cli("log", "m", "a.csv", *args)[0] == 0
    code, _, err = cli("log", "m", "a.csv", *args)
    assert code == 0 and "already logged" in err
    df.iloc[400:].assign(pred=1).to_csv(tmp_path / "b.csv", index=False)
    code, out, err = cli("log", "m", "b.csv", *args, "--json")
    assert code == 0 and json.loads(out)["already_stored"] == 100
    store = open_store(db)
    try:
        assert store.one("SELECT COUNT(*) FROM predictions") == 500
        kept = store.one("SELECT SUM(pred) FROM predictions WHERE model = 'm'")
        assert kept == df["pred"].sum()
    finally:
        store.close()


def test_a_version_scored_on_the_same_requests_keeps_its_predictions_and_their_labels(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """A prediction is (model, version, request id): v2 scored on requests v1 scored too (a
    shadow, a challenger) keeps its own predictions, and each request's one label joins
    both, whichever came first; v2 then reports as it would alone."""
    # the same registry for "alone", which holds v2's rows logged alone
    (tmp_path / "fairness.yaml").write_text(
        YAML + YAML.split("\n", 1)[1].replace("COMPAS", "alone")
    )
    args = ["--id", "id", "--score", "decile_score", "--attr", "race", "--attr", "sex"]
    args += ["--at", "compas_screening_date"]
    compas.iloc[:1000].to_csv(tmp_path / "v1.csv", index=False)
    compas.iloc[500:1500].to_csv(tmp_path / "v2.csv", index=False)
    compas.iloc[:1200].to_csv(tmp_path / "labels.csv", index=False)
    label = ["--id", "id", "--label", "two_year_recid"]
    v1 = ["compas", "v1.csv", "--version", "v1", "--decision-threshold", "5", *args]
    assert cli("log", *v1)[0] == 0
    assert cli("label", "compas", "labels.csv", *label)[0] == 0  # 200 wait for v2
    code, out, _ = cli("report", "compas", "--json")
    v1_alone = json.loads(out)["evaluation"]
    v2 = ["v2.csv", "--version", "v2", "--decision-threshold", "7", *args, "--json"]
    code, out, err = cli("log", "compas", *v2)
    assert code == 0, err
    logged = json.loads(out)
    # 500 labelled through v1's predictions of the same requests, 200 waiting
    assert (logged["new"], logged["already_stored"], logged["labels_joined"]) == (1000, 0, 700)
    # v2 reports as the same rows and labels logged alone (another model) report
    assert cli("log", "alone", *v2)[0] == 0
    assert cli("label", "alone", "labels.csv", *label)[0] == 0
    code, out, err = cli("report", "compas", "--json")
    assert code == 0, err
    shared = json.loads(out)
    assert (shared["version"], shared["evaluation"]["rows"]["total"]) == ("v2", 1000)
    assert shared["evaluation"]["rows"]["labelled"] == 700
    alone = json.loads(cli("report", "alone", "--json")[1])["evaluation"]
    assert _strip(shared["evaluation"]) == _strip(alone)
    # v1 is as it was
    code, out, _ = cli("report", "compas", "--version", "v1", "--json")
    assert json.loads(out)["evaluation"] == v1_alone
    # a label sent again reaches both versions' predictions of its request
    compas.iloc[600:601].assign(two_year_recid=lambda d: 1 - d["two_year_recid"]).to_csv(
        tmp_path / "fix.csv", index=False
    )
    code, out, err = cli("label", "compas", "fix.csv", *label, "--json")
    assert code == 0 and (json.loads(out)["joined"], json.loads(out)["orphans"]) == (2, 0)
    store = open_store(db)
    try:
        rid = str(compas["id"].iloc[600])
        got = store.query(
            "SELECT version, label FROM predictions WHERE model = 'compas' AND request_id = ? "
            "ORDER BY version",
            (rid,),
        )
        want = 1 - compas["two_year_recid"].iloc[600]
        assert [(v, float(x)) for v, x in got] == [("v1", want), ("v2", want)]
        assert store.one("SELECT COUNT(*) FROM orphan_labels WHERE model = 'compas'") == 0
    finally:
        store.close()
    # removing v1's batch leaves v2's labels in place: only the labels of requests v2
    # does not hold wait as orphans; v1 logged again takes them all back
    assert cli("remove-batch", "compas", "1", "--reason", "test")[0] == 0
    assert _count_orphans(db) == 500
    code, out, _ = cli("log", *v1, "--json")
    assert code == 0 and json.loads(out)["labels_joined"] == 1000
    code, out, _ = cli("report", "compas", "--version", "v1", "--json")
    again = json.loads(out)["evaluation"]
    assert again["rows"] == v1_alone["rows"]


def test_a_store_at_schema_4_upgrades_to_a_prediction_per_version(
    db: str, tmp_path: Path, compas: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migration 5 re-keys the predictions of a store filled at schema 4 by (model,
    request id, version): its reports are unchanged, and a second version of the same
    requests is then stored."""
    from faircode.monitor import fairness_report
    from faircode.monitor import store as store_module
    from faircode.monitor.ingest import log_labels, log_predictions

    (tmp_path / "fairness.yaml").write_text(YAML)
    registry = tmp_path / "fairness.yaml"
    rows = compas.head(1500)
    rows.to_csv(tmp_path / "c.csv", index=False)
    options = {"id_col": "id", "attrs": ["race", "sex"], "at_col": "compas_screening_date"}
    options |= {"score": "decile_score", "decision_threshold": 5}
    with monkeypatch.context() as m:
        m.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS[:4])
        m.setattr(store_module, "SCHEMA_VERSION", 4)
        store = open_store(db)
        try:
            log_predictions(store, "compas", tmp_path / "c.csv", version="v1", **options)
            log_labels(store, "compas", tmp_path / "c.csv", id_col="id", label_col="two_year_recid")
        finally:
            store.close()
        before = fairness_report("compas", store=db, registry=registry)
    assert fairness_report("compas", store=db, registry=registry) == before
    store = open_store(db)
    try:
        assert store.schema_version() == store_module.SCHEMA_VERSION
        res = log_predictions(store, "compas", tmp_path / "c.csv", version="v2", **options)
        assert (res["new"], res["labels_joined"]) == (1500, 1500)
    finally:
        store.close()
    after = fairness_report("compas", store=db, registry=registry)
    assert after["version"] == "v2"
    assert _strip(after["evaluation"]) == _strip(before["evaluation"])


def _count_orphans(db: str) -> int:
    store = open_store(db)
    try:
        return int(store.one("SELECT COUNT(*) FROM orphan_labels WHERE model = 'compas'") or 0)
    finally:
        store.close()


def test_editing_an_audit_row_breaks_verification_naming_the_row(
    cli, db: str, tmp_path: Path
) -> None:
    for t in ("0.2", "0.3", "0.4"):
        assert (
            cli("config", "m", "--attr", "region", "--threshold", t, "--reason", f"set {t}")[0] == 0
        )
    assert cli("audit", "m", "--verify")[0] == 0
    store = open_store(db)
    try:
        with pytest.raises(Exception, match="append-only"):
            with store.transaction():
                store.execute("UPDATE audit SET actor = 'mallory' WHERE id = 2")
        with store.transaction():  # an attacker with DDL rights removes the guard first
            if store.dialect == "sqlite":
                store.execute("DROP TRIGGER audit_no_update")
            else:
                store.execute("DROP TRIGGER audit_append_only ON audit")
            store.execute("UPDATE audit SET details = replace(details, '0.3', '0.9') WHERE id = 2")
    finally:
        store.close()
    code, _, err = cli("audit", "m", "--verify")
    assert code == 1
    assert "row 2: content does not match its hash" in err
    assert "row 1" not in err


def _even_frame(n: int = 4000) -> pd.DataFrame:
    """Predictions at one selection rate in every slice; no labels."""
    return pd.DataFrame(
        {
            "rid": [f"q{i}" for i in range(n)],
            "race": np.resize(["a", "b"], n),
            "sex": np.resize(["F", "F", "M", "M"], n),
            "pred": np.resize([0, 1, 1, 0, 1, 0, 0, 1], n),
        }
    )


def test_enabled_false_disables_the_gate_and_says_so(cli, db: str, tmp_path: Path) -> None:
    (tmp_path / "fairness.yaml").write_text(YAML.replace("enabled: true", "enabled: false"))
    _even_frame().to_csv(tmp_path / "c.csv", index=False)
    assert (
        cli(
            "log",
            "compas",
            "c.csv",
            "--version",
            "9",
            "--id",
            "rid",
            "--pred",
            "pred",
            "--attr",
            "race",
            "--attr",
            "sex",
        )[0]
        == 0
    )
    code, _, err = cli("gate", "compas", "--version", "9")
    assert code == 0 and "disabled" in err and "not judged" in err
    assert _events(db) == [("fairness_gate_disabled", "9")]
    # enabled, the same version is judged: selection rates agree, but with no labels the
    # label disparities are unmeasured, and unmeasured never passes
    assert cli("config", "compas", "--enable", "--reason", "re-enable")[0] == 0
    code, _, err = cli("gate", "compas", "--version", "9")
    assert code == 3, err
    assert "UNMEASURED race: accuracy_range" in err
    assert [e for e, _ in _events(db)][-1] == "promotion_blocked_by_fairness"


def test_the_rule_comes_from_the_registry_and_the_audit_says_which_decided(
    cli, db: str, tmp_path: Path, compas: pd.DataFrame
) -> None:
    """SPEC 12.7, 15.4, 15.6: on 600 COMPAS rows sliced by sex, intervals straddle 0.1,
    so the interval rule (the default) blocks with exit 5; `config --rule point` judges
    the values alone, and each gate's audit row records the rule that decided."""
    (tmp_path / "fairness.yaml").write_text("models:\n  compas:\n    slices: [sex]\n")
    compas.head(600).to_csv(tmp_path / "c.csv", index=False)
    preds = ("--id", "id", "--score", "decile_score", "--decision-threshold", "5")
    code, _, err = cli(
        "log", "compas", "c.csv", "--version", "v1", *preds, "--attr", "race", "--attr", "sex"
    )
    assert code == 0, err
    assert cli("label", "compas", "c.csv", "--id", "id", "--label", "two_year_recid")[0] == 0
    code, _, err = cli("gate", "compas", "--version", "v1")
    assert code == 5, err
    assert "INSUFFICIENT sex: " in err and "would settle it" in err
    assert "insufficient evidence (recorded as promotion_blocked_by_fairness)" in err
    assert cli("config", "compas", "--rule", "point", "--reason", "seed rule for now")[0] == 0
    code, _, err = cli("gate", "compas", "--version", "v1")
    assert code in (0, 1) and "INSUFFICIENT" not in err, err
    store = open_store(db)
    try:
        rows = store.query(
            "SELECT event, details FROM audit WHERE model = ? ORDER BY id", ("compas",)
        )
    finally:
        store.close()
    gates = ("fairness_gate_passed", "promotion_blocked_by_fairness")
    rules = [json.loads(d)["rule"] for e, d in rows if e in gates]
    assert rules == ["interval", "point"], rows


def test_a_store_gate_pass_names_the_slices_below_the_guard(cli, tmp_path: Path) -> None:
    """SPEC 12.9, 15.6: a pass over the eligible slices names the one it left out."""
    (tmp_path / "fairness.yaml").write_text("models:\n  m:\n    slices: [group]\n")
    rows = [("a", i % 2, i % 2) for i in range(2000)] + [("b", i % 2, i % 2) for i in range(2000)]
    rows += [("c", 1, i % 2) for i in range(20)]
    df = pd.DataFrame(rows, columns=["group", "pred", "label"])
    df["rid"] = range(len(df))
    df.to_csv(tmp_path / "p.csv", index=False)
    args = ("--id", "rid", "--pred", "pred", "--attr", "group")
    assert cli("log", "m", "p.csv", "--version", "v1", *args)[0] == 0
    assert cli("label", "m", "p.csv", "--id", "rid", "--label", "label")[0] == 0
    code, _, err = cli("gate", "m", "--version", "v1")
    assert code == 0, err
    assert err.splitlines()[-1] == (
        "faircode: gate: passed: m version v1: every gated disparity within threshold; 1 slice "
        "below the low-n guard not compared (group: c): lower the registry's min_samples or "
        "add rows to compare it"
    )


def test_gate_names_known_versions_for_an_unknown_one(cli, tmp_path: Path) -> None:
    (tmp_path / "fairness.yaml").write_text(YAML)
    df = _mixed_frame(100).rename(columns={"region": "race", "flag": "sex"})
    df.to_csv(tmp_path / "x.csv", index=False)
    assert (
        cli(
            "log",
            "compas",
            "x.csv",
            "--version",
            "v1",
            "--id",
            "rid",
            "--pred",
            "pred",
            "--attr",
            "race",
            "--attr",
            "sex",
        )[0]
        == 0
    )
    code, _, err = cli("gate", "compas", "--version", "v7")
    assert code == 2 and "logged versions: v1" in err


def test_missing_postgres_driver_is_one_line_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    code = run(["fairness", "audit", "m", "--db", "postgresql://nobody@127.0.0.1:1/x"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (
        "faircode: error: a postgresql:// store needs the psycopg driver; "
        "install it with: pip install 'faircode[postgres]'"
    )


def test_schema_version_is_recorded(db: str) -> None:
    from faircode.monitor.store import SCHEMA_VERSION

    for _ in range(2):  # reopening applies nothing twice
        store = open_store(db)
        try:
            assert store.schema_version() == SCHEMA_VERSION
            assert store.one("SELECT COUNT(*) FROM schema_version") == SCHEMA_VERSION
        finally:
            store.close()


def test_slice_stats_always_equal_a_group_by_over_the_predictions(db: str, tmp_path: Path) -> None:
    from faircode.monitor import rollup
    from faircode.monitor.ingest import log_labels, log_predictions

    df = _mixed_frame(900, seed=3)
    df["yhat"] = df["yhat"].round(1)
    parts = {name: tmp_path / f"{name}.csv" for name in ("a", "b", "l1", "l2", "l3")}
    df.iloc[:500].to_csv(parts["a"], index=False)
    df.iloc[450:].to_csv(parts["b"], index=False)  # overlaps the first batch
    df.iloc[::2][["rid", "y"]].to_csv(parts["l1"], index=False)
    df.iloc[::3].assign(y=lambda d: d["y"] + 1)[["rid", "y"]].to_csv(parts["l2"], index=False)
    pd.DataFrame({"rid": [10**9, 10**9 + 1], "y": [1.0, 2.0]}).to_csv(parts["l3"], index=False)
    store = open_store(db)
    try:
        log_predictions(
            store, "r", parts["a"], version="1", id_col="rid", attrs=["region", "age"], pred="yhat"
        )
        log_labels(store, "r", parts["l1"], id_col="rid", label_col="y")  # some orphans
        log_labels(store, "r", parts["l3"], id_col="rid", label_col="y")  # orphans only
        log_predictions(
            store,
            "r",
            parts["b"],
            version="2",
            id_col="rid",
            attrs=["region", "age", "flag"],
            pred="yhat",
        )  # joins orphans
        log_labels(store, "r", parts["l2"], id_col="rid", label_col="y")  # replaces some
        slots = [0, 1, 2]
        for version in ("1", "2"):
            kept = rollup.cells(store, "r", slots, version, None, None)
            raw = rollup.raw_cells(store, "r", slots, version)
            dims = ["a0", "a1", "a2", "day"]
            kept = kept.sort_values(dims).reset_index(drop=True)
            raw = raw.sort_values(dims).reset_index(drop=True)
            pd.testing.assert_frame_equal(kept, raw, check_exact=False, rtol=1e-12)
        assert store.one("SELECT COUNT(*) FROM orphan_labels") == 2
    finally:
        store.close()


def test_slice_and_report_renderings_and_windows(cli, tmp_path: Path, compas: pd.DataFrame) -> None:
    (tmp_path / "fairness.yaml").write_text(YAML)
    compas.to_csv(tmp_path / "c.csv", index=False)
    assert (
        cli(
            "log",
            "compas",
            "c.csv",
            "--version",
            "v1",
            "--id",
            "id",
            "--score",
            "decile_score",
            "--decision-threshold",
            "5",
            "--attr",
            "race",
            "--attr",
            "sex",
            "--at",
            "compas_screening_date",
        )[0]
        == 0
    )
    assert cli("label", "compas", "c.csv", "--id", "id", "--label", "two_year_recid")[0] == 0
    code, out, _ = cli("slice", "compas", "race")
    assert code == 0 and out.startswith("faircode fairness evaluate: store ")
    assert "African-American" in out and "sex" not in out.split("race:")[1].split("\n")[0]
    code, out, _ = cli("report", "compas", "--markdown", "--target", "0.5")
    assert code == 0 and "### Trend per day" in out and "### SLI" in out
    code, out, _ = cli(
        "report", "compas", "--json", "--since", "2013-02-01", "--until", "2013-02-28"
    )
    report = json.loads(out)
    days = [d["day"] for d in report["trend"]]
    assert days and days[0] >= "2013-02-01" and days[-1] <= "2013-02-28"
    in_window = compas["compas_screening_date"].between("2013-02-01", "2013-02-28").sum()
    assert report["evaluation"]["rows"]["scored"] == in_window
    code, out, _ = cli("report", "compas", "--json", "--target", "0.5")
    sli = json.loads(out)["sli"]
    assert (sli["good"], sli["total"], sli["exceeded"], sli["within_threshold"]) == (
        1,
        2,
        ["race"],
        ["sex"],
    )
    budget = sli["error_budget"]
    assert (budget["allowed_bad"], budget["bad"], budget["remaining"]) == (1.0, 1, 0.0)
    assert budget["exhausted"] is False
    code, _, err = cli("report", "compas", "--since", "tomorrow")
    assert code == 2 and "--since 'tomorrow'" in err
    # a window that ends before it starts is the mistake it is, not "no predictions"
    code, _, err = cli("report", "compas", "--since", "2013-03-01", "--until", "2013-02-01")
    assert code == 2 and err == (
        "faircode: error: --since '2013-03-01' is after --until '2013-02-01': the window is "
        "empty; give the earlier time to --since\n"
    )


def test_store_slices_a_float32_parquet_column_as_evaluate(db: str, tmp_path: Path) -> None:
    """SPEC 0.4 via 12.3: the store keeps a float32 0.1 as the slice 0.1, as evaluate does
    on the same file (it once stored 0.10000000149011612)."""
    n = 60
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "rid": np.arange(n),
            "w": pd.Series([0.1, 0.2, 0.3] * (n // 3), dtype="float32"),
            "pred": rng.integers(0, 2, n),
        }
    )
    path = tmp_path / "preds.parquet"
    df.to_parquet(path)
    expected = evaluate(path, pred="pred", attrs=["w"], engine="pandas")
    store = open_store(db)
    try:
        from faircode.monitor.ingest import log_predictions

        log_predictions(store, "m", path, version="1", id_col="rid", attrs=["w"], pred="pred")
        got = store_report(store, "m", Registry(model="m", slices=("w",)))["evaluation"]
    finally:
        store.close()
    keys = [{"w": 0.1}, {"w": 0.2}, {"w": 0.3}]
    assert [s["key"] for s in expected["groups"][0]["slices"]] == keys
    assert [s["key"] for s in got["groups"][0]["slices"]] == keys
    assert [s["slice"] for s in got["groups"][0]["slices"]] == ["0.1", "0.2", "0.3"]
