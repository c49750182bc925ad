"""Label batches (SPEC 15.3): a label outside a binary task's values is refused with the
store left exactly as it was, and the one-pass label write keeps ``slice_stats`` equal
to a ``GROUP BY`` over the stored predictions (SQLite and PostgreSQL)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import storeutil

from faircode.monitor import evaluate, fairness_report
from faircode.monitor.cli import run
from faircode.monitor.rollup import cells, raw_cells
from faircode.monitor.store import open_store


@pytest.fixture(scope="module")
def compas() -> pd.DataFrame:
    df = pd.read_csv(storeutil.require_compas())
    return df[["id", "race", "sex", "decile_score", "two_year_recid", "compas_screening_date"]]


def _snapshot(db: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the store, sorted."""
    store = open_store(db)
    try:
        if store.dialect == "sqlite":
            names = [
                r[0]
                for r in store.query(
                    "SELECT name FROM sqlite_master "
                    "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                )
            ]
        else:
            names = [
                r[0]
                for r in store.query(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                )
            ]
        return {n: sorted(store.query(f"SELECT * FROM {n}"), key=repr) for n in sorted(names)}
    finally:
        store.close()


def _cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run(["fairness", *argv])
    return code, err.getvalue()


@pytest.mark.parametrize("declared", [True, False])
@pytest.mark.parametrize("value", ["2", "yes"])
def test_a_refused_label_batch_leaves_the_store_unchanged(
    db: str, tmp_path: Path, compas: pd.DataFrame, value: str, declared: bool
) -> None:
    """A binary model (declared, or inferred from its 0/1 predictions) with labels
    stored already: a batch that would label new rows and replace stored labels, with
    one label outside 0/1, is refused naming its line and request id, and every table
    of the store holds what it held before (no label, no orphan, no batch row, no
    dictionary entry, the same slice_stats)."""
    registry = tmp_path / "m.yaml"
    task = "  task: binary\n" if declared else ""
    registry.write_text("fairness:\n  slices: [race, sex]\n" + task)
    common = ["--db", db, "--registry", str(registry)]
    compas.to_csv(tmp_path / "c.csv", index=False)
    log = ["--version", "v1", "--id", "id", "--score", "decile_score"]
    log += ["--decision-threshold", "5", "--attr", "race", "--attr", "sex"]
    log += ["--at", "compas_screening_date"]
    assert _cli("log", "m", str(tmp_path / "c.csv"), *log, *common)[0] == 0
    first = compas.iloc[:3000][["id", "two_year_recid"]]
    first.to_csv(tmp_path / "l1.csv", index=False)
    assert (
        _cli(
            "label",
            "m",
            str(tmp_path / "l1.csv"),
            "--id",
            "id",
            "--label",
            "two_year_recid",
            *common,
        )[0]
        == 0
    )
    # the next batch: labels for new rows, flipped labels for stored ones, an orphan
    rng = np.random.default_rng(5)
    batch = compas.iloc[2000:5000][["id", "two_year_recid"]].astype({"two_year_recid": object})
    flip = rng.random(len(batch)) < 0.3
    batch.loc[flip, "two_year_recid"] = 1 - batch.loc[flip, "two_year_recid"]
    batch = pd.concat([batch, pd.DataFrame({"id": [99_999_999], "two_year_recid": [1]})])
    bad_at = 1234
    good = batch.copy()
    batch.iloc[bad_at, 1] = value
    batch.to_csv(tmp_path / "l2.csv", index=False)
    before = _snapshot(db)
    code, err = _cli(
        "label", "m", str(tmp_path / "l2.csv"), "--id", "id", "--label", "two_year_recid", *common
    )
    assert code == 2 and err.count("\n") == 1
    rid = batch.iloc[bad_at, 0]
    where = f"l2.csv: line {bad_at + 2} (request id '{rid}'): label "
    assert where in err and "the batch was not written" in err
    if value == "2":
        assert "is not 0 or 1" in err
        assert ("task: binary in the registry" if declared else "binary (inferred") in err
    else:
        assert "'yes' in column 'two_year_recid' is not a number" in err
    assert _snapshot(db) == before
    # the same batch with the label fixed is written, and the store's statistics are a
    # GROUP BY over its predictions; the report is evaluate's on the merged rows
    good.to_csv(tmp_path / "l2.csv", index=False)
    code, err = _cli(
        "label", "m", str(tmp_path / "l2.csv"), "--id", "id", "--label", "two_year_recid", *common
    )
    assert code == 0, err
    replaced = int((flip[:1000]).sum())  # the flipped labels among the 1000 stored ones
    assert f"{replaced} replaced an earlier different label" in err
    assert "1 orphans" in err
    store = open_store(db)
    try:
        kept = cells(store, "m", [0, 1], "v1", None, None)
        raw = raw_cells(store, "m", [0, 1], "v1")
    finally:
        store.close()
    order = ["a0", "a1", "day"]
    kept = kept.sort_values(order).reset_index(drop=True)
    raw = raw.sort_values(order).reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, raw[kept.columns], check_exact=True)
    merged = compas.assign(label=np.nan)
    merged.loc[:2999, "label"] = compas["two_year_recid"].iloc[:3000].astype(float)
    labels = good.iloc[:-1].set_index("id")["two_year_recid"].astype(float)
    merged.loc[merged["id"].isin(labels.index), "label"] = merged["id"].map(labels)
    report = fairness_report("m", store=db, registry=str(registry))["evaluation"]
    merged["pred"] = (merged["decile_score"] >= 5).astype(int)
    direct = evaluate(merged, pred="pred", attrs=["race", "sex"], label="label", engine="pandas")
    assert report["rows"] == direct["rows"]
    for got, want in zip(report["groups"], direct["groups"], strict=True):
        assert [s["metrics"]["tpr"]["count"] for s in got["slices"]] == [
            s["metrics"]["tpr"]["count"] for s in want["slices"]
        ]
        assert [s["metrics"]["accuracy"]["value"] for s in got["slices"]] == [
            s["metrics"]["accuracy"]["value"] for s in want["slices"]
        ]


def test_a_resent_label_batch_says_which_of_its_labels_later_batches_replaced(
    db: str, tmp_path: Path, compas: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-sending a label file changes nothing (its digest is stored); when a later label
    batch replaced some of its labels, "nothing changed" also says how many are not the
    file's and how to store them again, and following that advice stores them."""
    monkeypatch.chdir(tmp_path)
    common = ["--db", db]
    rows = compas.iloc[:1000]
    rows.to_csv(tmp_path / "c.csv", index=False)
    log = ["--version", "v1", "--id", "id", "--score", "decile_score"]
    log += ["--decision-threshold", "5", "--attr", "race", "--at", "compas_screening_date"]
    assert _cli("log", "m", "c.csv", *log, *common)[0] == 0
    first = pd.concat(  # the labels of 1000 rows, and an orphan
        [rows[["id", "two_year_recid"]], pd.DataFrame({"id": [99_999_999], "two_year_recid": [1]})]
    )
    first.to_csv(tmp_path / "a.csv", index=False)
    label = ["--id", "id", "--label", "two_year_recid", *common]
    assert _cli("label", "m", "a.csv", *label)[0] == 0
    code, err = _cli("label", "m", "a.csv", *label)
    assert (code, err) == (
        0,
        "faircode: a.csv: this batch was already logged (batch 2); nothing changed\n",
    )
    # a correction flips 37 stored labels and the orphan's: batch 3
    rng = np.random.default_rng(11)
    flip = np.zeros(len(first), bool)
    flip[rng.choice(1000, 37, replace=False)] = True
    flip[-1] = True
    fixed = first.copy()
    fixed.loc[flip, "two_year_recid"] = 1 - fixed.loc[flip, "two_year_recid"]
    fixed.to_csv(tmp_path / "b.csv", index=False)
    assert _cli("label", "m", "b.csv", *label)[0] == 0
    code, err = _cli("label", "m", "a.csv", *label)
    assert code == 0 and err.count("\n") == 1
    assert err == (
        "faircode: a.csv: this batch was already logged (batch 2); nothing changed; but 38 "
        "of its label(s) differ from the stored ones (replaced by label batch 3): to store "
        "this file's labels again, remove batch 2 (faircode fairness remove-batch m 2 "
        "--reason TEXT) and send it again\n"
    )
    assert _cli("remove-batch", "m", "2", "--reason", "restore a.csv", *common)[0] == 0
    code, err = _cli("label", "m", "a.csv", *label)
    assert code == 0 and "37 replaced an earlier different label" in err
    store = open_store(db)
    try:
        stored = dict(store.query("SELECT request_id, label FROM predictions WHERE model = 'm'"))
        orphans = dict(store.query("SELECT request_id, label FROM orphan_labels"))
    finally:
        store.close()
    want = first.set_index(first["id"].astype(str))["two_year_recid"].astype(float)
    assert {**stored, **orphans} == want.to_dict()
    assert _cli("label", "m", "a.csv", *label)[1].endswith("nothing changed\n")
