"""The store's edges (issue 25): an anchored audit chain, what ingest refuses, bad rows an
older store holds, read-only and foreign SQLite files (SPEC 15.2, 15.3, 15.5, 15.7).

Tests taking ``db`` run on a SQLite file and on a fresh PostgreSQL database (see
tests/storeutil.py); the read-only and foreign-file tests are SQLite's alone.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from faircode.monitor import audit, evaluate, rollup
from faircode.monitor.cli import run
from faircode.monitor.errors import MonitorInputError
from faircode.monitor.store import open_store

HEAD = re.compile(r"[0-9]+:[0-9a-f]{64}")
LOG = ["--id", "rid", "--pred", "pred", "--attr", "race"]


def _one_error(err: str, *parts: str) -> None:
    """``err`` is exactly one ``faircode: error:`` line holding every part."""
    assert err.count("\n") == 1 and err.startswith("faircode: error: "), err
    assert "Traceback" not in err
    for part in parts:
        assert part in err, (part, err)


def _sql(db: str, *statements: str, rebuild: str | None = None) -> None:
    """Change the store behind faircode's back (an older version, an attacker)."""
    store = open_store(db)
    try:
        with store.transaction():
            for stmt in statements:
                store.execute(stmt)
            if rebuild is not None:
                rollup.rebuild(store, rebuild)
    finally:
        store.close()


def _count(db: str, sql: str) -> int:
    store = open_store(db)
    try:
        return int(store.one(sql) or 0)
    finally:
        store.close()


def _drop_audit_triggers(db: str) -> list[str]:
    if db.startswith("postgresql://"):
        return ["DROP TRIGGER audit_append_only ON audit"]
    return ["DROP TRIGGER audit_no_update", "DROP TRIGGER audit_no_delete"]


def _frame(n: int = 8, pred: list[float] | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rid": [f"r{i}" for i in range(n)],
            "race": ["a", "b"] * (n // 2),
            "pred": pred if pred is not None else [0, 1, 1, 0, 1, 0, 0, 1][:n],
            "at": [1_700_000_000 + 86_400 * (i % 2) for i in range(n)],
        }
    )


YAML = "models:\n  m:\n    slices: [race]\n    min_samples: 1\n"


# -- 15.7 the audit chain's head -------------------------------------------------------
def test_audit_head_detects_tail_deletion_and_a_rewritten_chain(cli, db: str, tmp_path: Path):
    (tmp_path / "fairness.yaml").write_text(YAML)
    for t in ("0.2", "0.3"):
        assert cli("config", "m", "--attr", "race", "--threshold", t, "--reason", t)[0] == 0
    assert cli("apply", "m", "--reason", "back to the yaml")[0] == 0
    assert cli("config", "m", "--attr", "race", "--threshold", "0.4", "--reason", "0.4")[0] == 0
    code, out, err = cli("audit", "--head")
    assert code == 0, err
    head = out.strip()
    assert HEAD.fullmatch(head) and head.startswith("4:"), out
    (tmp_path / "head.txt").write_text(out)
    code, _, err = cli("audit", "--verify", "--head", head)
    assert code == 0 and "row 4 matches the head, 0 row(s) added since" in err, err
    # rows appended after the head was taken are fine
    assert cli("config", "m", "--threshold", "0.5", "--reason", "later")[0] == 0
    code, _, err = cli("audit", "m", "--verify", "--head", "head.txt")
    assert code == 0 and "1 row(s) added since" in err, err

    # the last row cut off, the triggers dropped first: the registry override in the
    # store is not the one the last remaining fairness_config_set records
    _sql(db, *_drop_audit_triggers(db), "DELETE FROM audit WHERE id = 5")
    code, _, err = cli("audit", "--verify")
    assert code == 1
    assert "BROKEN model m: the store's registry override" in err
    assert "last fairness_config_set (row 4)" in err
    # two more rows cut: the head names them
    _sql(db, "DELETE FROM audit WHERE id >= 3")
    code, _, err = cli("audit", "--verify", "--head", "head.txt")
    assert code == 1
    assert (
        "rows missing from the tail: the head has 4 rows, the store holds 2 (rows 3..4 gone)" in err
    )
    # an apply whose row is cut: the last event is a config the store no longer holds
    _sql(db, "DELETE FROM audit WHERE id = 2", "DELETE FROM registry_overrides")
    code, _, err = cli("audit", "--verify")
    assert code == 1
    assert (
        "last registry event is fairness_config_set (row 1) but the store holds no override" in err
    )
    # --head refuses to print the head of a broken chain
    code, out, err = cli("audit", "--head")
    assert code == 1 and out == "" and "no head printed" in err


def test_a_chain_rewritten_with_every_hash_recomputed_fails_only_against_the_head(
    cli, db: str, tmp_path: Path
) -> None:
    for t in ("0.2", "0.3", "0.4"):
        assert cli("config", "m", "--attr", "race", "--threshold", t, "--reason", t)[0] == 0
    code, out, _ = cli("audit", "--head", "--json")
    assert code == 0
    (tmp_path / "head.json").write_text(out)
    head = json.loads(out)["head"]
    assert head["rows"] == 3
    # rewrite row 2's reason and recompute every hash after it: the chain is consistent
    store = open_store(db)
    try:
        rows = audit.entries(store)
    finally:
        store.close()
    statements = _drop_audit_triggers(db)
    prev = audit.GENESIS
    for e in rows:
        if e["id"] == 2:
            e["details"]["reason"] = "rewritten"
        content = {k: e[k] for k in ("id", "at", "actor", "event", "model", "version", "details")}
        digest = audit.row_hash(prev, content)
        details = audit.canonical(e["details"]).replace("'", "''")
        statements.append(
            f"UPDATE audit SET details = '{details}', prev_hash = '{prev}', hash = '{digest}' "
            f"WHERE id = {e['id']}"
        )
        prev = digest
    _sql(db, *statements)
    code, _, err = cli("audit", "--verify")
    assert code == 0, err  # the limit of an unkeyed chain: it verifies
    code, _, err = cli("audit", "--verify", "--head", "head.json")
    assert code == 1
    assert "BROKEN row 3: hash differs from the head" in err
    code, _, err = cli("audit", "--verify", "--head", "3:" + "0" * 63)
    _one_error(err, "is neither a head (ROWS:HASH")
    assert code == 2


# -- 15.3 what ingest refuses ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("label", "1e300", "label 1e+300 in column 'y' is beyond +-1e100"),
        ("label", "-2e100", "label -2e+100 in column 'y' is beyond +-1e100"),
        ("pred", "1e300", "prediction 1e+300 in column 'pred' is beyond +-1e100"),
        ("at", "99999999999999", "time '99999999999999' in column 'at' is outside"),
        ("at", "-62135596801", "time '-62135596801' in column 'at' is outside"),
        ("at", "253402300800", "time '253402300800' in column 'at' is outside"),
    ],
)
def test_huge_values_and_times_outside_the_iso_range_are_refused_at_ingest(
    cli, db: str, tmp_path: Path, column: str, value: str, expected: str
) -> None:
    df = _frame(pred=[0.5, 1.5, 2.0, 0.1, 3.0, 0.2, 1.0, 0.9]).astype(
        {"pred": object, "at": object}
    )
    labels = pd.DataFrame({"rid": df["rid"], "y": [1.0] * len(df)}).astype({"y": object})
    if column == "label":
        labels.loc[5, "y"] = value
    else:
        df.loc[5, column] = value
    df.to_csv(tmp_path / "p.csv", index=False)
    labels.to_csv(tmp_path / "l.csv", index=False)
    code, _, err = cli("log", "m", "p.csv", "--version", "v1", *LOG, "--at", "at")
    if column != "label":
        assert code == 2
        _one_error(err, "p.csv: line 7 (request id 'r5'): ", expected, "the batch was not written")
        assert _count(db, "SELECT COUNT(*) FROM predictions") == 0
        assert _count(db, "SELECT COUNT(*) FROM batches") == 0
        return
    assert code == 0, err
    code, _, err = cli("label", "m", "l.csv", "--id", "rid", "--label", "y")
    assert code == 2
    _one_error(err, "l.csv: line 7 (request id 'r5'): ", expected, "the batch was not written")
    assert _count(db, "SELECT COUNT(label) FROM predictions") == 0
    assert _count(db, "SELECT COUNT(*) FROM batches") == 1


def test_times_at_the_ends_of_the_iso_range_are_kept_and_reported(
    cli, db: str, tmp_path: Path
) -> None:
    (tmp_path / "fairness.yaml").write_text(YAML)
    df = _frame(4)
    df["at"] = [-62_135_596_800, 253_402_300_799, "2024-01-01T00:00:00Z", "2024-01-02"]
    df.to_csv(tmp_path / "p.csv", index=False)
    # one column mixing epoch numbers and ISO text: each cell is read as what it is
    code, _, err = cli("log", "m", "p.csv", "--version", "v1", *LOG, "--at", "at")
    assert code == 0, err
    code, out, err = cli("report", "m", "--json")
    assert code == 0, err
    days = [d["day"] for d in json.loads(out)["trend"]]
    assert days == ["0001-01-01", "2024-01-01", "2024-01-02", "9999-12-31"]


def test_request_ids_are_trimmed_as_every_cell_is(cli, db: str, tmp_path: Path) -> None:
    """SPEC 15.3: `label, rid` / `1, r0` labels r0 (12.1 trims a cell of ASCII space/tab),
    in CSV and JSON lines alike; it was the id ' r0', an orphan joining nothing."""
    (tmp_path / "fairness.yaml").write_text(YAML)
    _frame().to_csv(tmp_path / "p.csv", index=False)
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG)[0] == 0
    (tmp_path / "l.csv").write_text("y, rid\n1, r0\n0,\tr1 \n")
    code, _, err = cli("label", "m", "l.csv", "--id", "rid", "--label", "y")
    assert code == 0, err
    (tmp_path / "l.jsonl").write_text('{"rid": " r2\\t", "y": 1}\n')
    code, _, err = cli("label", "m", "l.jsonl", "--id", "rid", "--label", "y")
    assert code == 0, err
    assert _count(db, "SELECT COUNT(*) FROM orphan_labels") == 0
    assert _count(db, "SELECT COUNT(label) FROM predictions") == 3
    # trimmed, ' r3' and 'r3' are one id: the batch holds it twice
    (tmp_path / "twice.csv").write_text("rid,y\n r3,1\nr3,0\n")
    code, _, err = cli("label", "m", "twice.csv", "--id", "rid", "--label", "y")
    assert code == 2
    _one_error(
        err, "twice.csv: line 3: request id 'r3' appears twice in the batch (first on line 2)"
    )


@pytest.mark.parametrize(
    ("fmt", "cell", "shown"),
    [
        ("csv", "20240103", "'20240103'"),
        ("jsonl", "20240103", "20240103"),
        ("jsonl", '"20240103"', "'20240103'"),
        ("jsonl", "20240103.0", "20240103.0"),
        ("csv", "20241399", None),  # no such date: epoch seconds
        ("csv", "202401030", None),  # nine digits: epoch seconds
        ("jsonl", '"2024-01-03"', None),
    ],
)
def test_eight_digits_that_are_a_date_are_refused_as_ambiguous(
    cli, db: str, tmp_path: Path, fmt: str, cell: str, shown: str | None
) -> None:
    """SPEC 15.3: 20240103 is the date 2024-01-03 in ISO-8601's basic form and epoch
    seconds of 1970-08-23; it was read as the latter without a word."""
    (tmp_path / "fairness.yaml").write_text(YAML)
    name = f"p.{fmt}"
    if fmt == "csv":
        (tmp_path / name).write_text(f"rid,race,pred,at\nr0,a,1,1704067200\nr1,b,0,{cell}\n")
    else:
        rows = ['{"rid": "r0", "race": "a", "pred": 1, "at": 1704067200}']
        rows.append(f'{{"rid": "r1", "race": "b", "pred": 0, "at": {cell}}}')
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    code, _, err = cli("log", "m", name, "--version", "v1", *LOG, "--at", "at")
    if shown is None:
        assert code == 0, err
        return
    assert code == 2
    _one_error(
        err,
        f"{name}: line {3 if fmt == 'csv' else 2} (request id 'r1'): time {shown} in column "
        "'at' is ambiguous: the date 2024-01-03 written without dashes, or epoch seconds "
        "(1970-08-23T06:15:03Z); write 2024-01-03 or 1970-08-23T06:15:03Z; the batch was "
        "not written",
    )
    assert _count(db, "SELECT COUNT(*) FROM predictions") == 0


@pytest.mark.parametrize("value", ["2", "-1", "0.5"])
@pytest.mark.parametrize("declared", [True, False])
def test_binary_labels_other_than_0_1_are_refused_naming_line_and_request_id(
    cli, db: str, tmp_path: Path, value: str, declared: bool
) -> None:
    task = "    task: binary\n" if declared else ""
    (tmp_path / "fairness.yaml").write_text(YAML + task)
    _frame().to_csv(tmp_path / "p.csv", index=False)
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG)[0] == 0
    labels = pd.DataFrame({"rid": [f"r{i}" for i in range(8)], "y": ["1", "0"] * 4})
    labels.loc[3, "y"] = value
    labels.to_csv(tmp_path / "l.csv", index=False)
    code, _, err = cli("label", "m", "l.csv", "--id", "rid", "--label", "y")
    assert code == 2
    why = (
        "model m is binary (task: binary in the registry)"
        if declared
        else "model m version v1 is binary (inferred: every prediction is 0 or 1)"
    )
    _one_error(
        err,
        f"l.csv: line 5 (request id 'r3'): label {float(value):g} in column 'y' is not 0 or 1",
        why,
        "the batch was not written",
    )
    assert _count(db, "SELECT COUNT(label) FROM predictions") == 0
    assert _count(db, "SELECT COUNT(*) FROM batches") == 1
    labels.loc[3, "y"] = "yes"
    labels.to_csv(tmp_path / "l.csv", index=False)
    code, _, err = cli("label", "m", "l.csv", "--id", "rid", "--label", "y")
    assert code == 2
    _one_error(err, "l.csv: line 5 (request id 'r3'): label 'yes' in column 'y' is not a number")


def test_a_label_a_binary_version_would_take_from_another_version_is_checked(
    cli, db: str, tmp_path: Path
) -> None:
    # a label joins every version's prediction of its request (SPEC 15.3), so a binary
    # version logged after a regression version's labels is checked as a waiting label is
    (tmp_path / "fairness.yaml").write_text(YAML)
    _frame(pred=[0.5, 2, 1, 0, 1, 0, 0, 1]).to_csv(tmp_path / "v1.csv", index=False)
    assert cli("log", "m", "v1.csv", "--version", "v1", *LOG)[0] == 0
    pd.DataFrame({"rid": ["r1", "r2"], "y": [2, 1]}).to_csv(tmp_path / "l.csv", index=False)
    assert cli("label", "m", "l.csv", "--id", "rid", "--label", "y")[0] == 0
    _frame().to_csv(tmp_path / "v2.csv", index=False)  # every prediction 0 or 1
    code, _, err = cli("log", "m", "v2.csv", "--version", "v2", *LOG)
    assert code == 2
    _one_error(err, "request id 'r1' has label 2 (label batch 2) in another version")
    assert "version v2 of model m is binary" in err
    assert _count(db, "SELECT COUNT(*) FROM predictions WHERE version = 'v2'") == 0
    # the label fixed, v2 is stored and takes both labels
    pd.DataFrame({"rid": ["r1"], "y": [0]}).to_csv(tmp_path / "fix.csv", index=False)
    assert cli("label", "m", "fix.csv", "--id", "rid", "--label", "y")[0] == 0
    code, out, err = cli("log", "m", "v2.csv", "--version", "v2", *LOG, "--json")
    assert code == 0 and json.loads(out)["labels_joined"] == 2, err


def test_task_checks_at_ingest_follow_the_registry_and_the_version(cli, db: str, tmp_path: Path):
    (tmp_path / "fairness.yaml").write_text(YAML + "    task: binary\n")
    _frame(pred=[0, 1, 1, 0.5, 1, 0, 0, 1]).to_csv(tmp_path / "p.csv", index=False)
    code, _, err = cli("log", "m", "p.csv", "--version", "v1", *LOG)
    assert code == 2
    _one_error(err, "line 5 (request id 'r3'): prediction 0.5 in column 'pred' is not 0 or 1")
    # a regression version takes any finite label
    (tmp_path / "fairness.yaml").write_text(YAML)
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG)[0] == 0
    pd.DataFrame({"rid": ["r0", "r1", "x9"], "y": [0.5, 2, 7]}).to_csv(
        tmp_path / "l.csv", index=False
    )
    assert cli("label", "m", "l.csv", "--id", "rid", "--label", "y")[0] == 0
    # a label waiting for its prediction is checked when that prediction arrives: a
    # binary version refuses the batch, naming the label batch to remove
    pd.DataFrame({"rid": ["x8", "x9"], "race": ["a", "b"], "pred": [1, 0]}).to_csv(
        tmp_path / "q.csv", index=False
    )
    code, _, err = cli("log", "m", "q.csv", "--version", "v2", *LOG)
    assert code == 2
    _one_error(
        err,
        "q.csv: line 3 (request id 'x9'): its waiting label 7 (label batch 2) is not 0 or 1, "
        "but model m version v2 is binary",
        "faircode fairness remove-batch m 2 --reason TEXT",
    )
    assert _count(db, "SELECT COUNT(*) FROM predictions WHERE version = 'v2'") == 0
    code, _, err = cli("remove-batch", "m", "2", "--reason", "labels of the wrong model")
    assert code == 0, err
    assert "2 labels, 1 orphan labels" in err
    assert cli("log", "m", "q.csv", "--version", "v2", *LOG)[0] == 0


# -- 12.2 / 15.5 class labels in a task the store infers ------------------------------------
CLASS_CASES = {
    # (predictions, labels) of 24 rows: the store's report decides as evaluate does
    "a stray 2 among 0/1": ([0, 1] * 11 + [2, 1], [1, 0] * 12),
    "1/2": ([1, 2] * 12, [0, 1] * 12),
    "-1/1": ([-1, 1] * 12, [0, 1] * 12),
    "20 whole numbers": ([i % 20 for i in range(24)], [0, 1] * 12),
    "21 whole numbers": ([i % 21 for i in range(24)], [0, 1] * 12),
    "a fraction among 0/1/2": ([0, 1, 2] * 7 + [0, 1, 2.5], [0, 1] * 12),
    "beyond the largest class id": ([0, 1, 1001] * 8, [0, 1] * 12),
    "below -1": ([0, 1, -2] * 8, [0, 1] * 12),
    "labels 0/1/2 of a quantity": ([i + 0.5 for i in range(24)], [0, 1, 2] * 8),
    "a quantity": ([i + 0.5 for i in range(24)], [i * 1.5 for i in range(24)]),
}
CLASSES = re.compile(r"(?:prediction|label) column '\w+' has \d+ classes \([^)]*\)")


@pytest.mark.parametrize("case", sorted(CLASS_CASES))
def test_class_labels_in_an_inferred_task_are_refused_by_the_store_as_by_evaluate(
    cli, db: str, tmp_path: Path, case: str
) -> None:
    """SPEC 12.2, 15.5: with no task in the registry, the store's report refuses the
    predictions or labels evaluate refuses as class labels (the same classes named), and
    infers what evaluate infers otherwise."""
    (tmp_path / "fairness.yaml").write_text(YAML)
    pred, label = CLASS_CASES[case]
    frame = _frame(24, pred)
    frame["y"] = label
    frame.to_csv(tmp_path / "p.csv", index=False)
    try:
        expected = evaluate(
            frame, pred="pred", attrs=["race"], label="y", engine="pandas", min_samples=1
        )
    except MonitorInputError as e:
        found = CLASSES.search(str(e))
        assert found, str(e)
        refused: str | None = found.group(0)
    else:
        refused = None
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG, "--at", "at")[0] == 0
    assert cli("label", "m", "p.csv", "--id", "rid", "--label", "y")[0] == 0
    code, out, err = cli("report", "m", "--json")
    if refused is None:
        assert code == 0, err
        assert json.loads(out)["evaluation"]["task"] == expected["task"]
        return
    assert code == 2 and out == "", err
    again = (
        "and log the predictions again after faircode fairness remove-batch m BATCH --reason TEXT"
        if refused.startswith("prediction")
        else "and send the labels again"
    )
    _one_error(
        err,
        f"model m version v1: {refused} and the registry declares no task; faircode "
        "evaluates binary or regression models: encode a binary outcome as 0/1",
        again,
        ", or declare task: regression in the registry (or faircode fairness config m --task "
        "regression --reason TEXT) if the values are quantities",
    )


def test_a_stray_class_refuses_report_slice_and_gate_until_the_task_is_declared(
    cli, db: str, tmp_path: Path
) -> None:
    """The reviewer's case: a 0/1 model with one stray 2 was reported (and gated) as a
    regression by MAE; now every reading of the version refuses it, the gate records no
    decision, a window without the 2 is binary, and a declared task is taken."""
    (tmp_path / "fairness.yaml").write_text(YAML)
    frame = _frame(24, [0, 1] * 11 + [0, 2])  # the 2: request id r23, on the second day
    frame["y"] = [1, 0] * 12
    frame.to_csv(tmp_path / "p.csv", index=False)
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG, "--at", "at")[0] == 0
    assert cli("label", "m", "p.csv", "--id", "rid", "--label", "y")[0] == 0
    for argv in (
        ("report", "m"),
        ("report", "m", "--markdown"),
        ("slice", "m", "race"),
        ("slice", "m", "race", "--json"),
        ("gate", "m", "--version", "v1"),
        ("gate", "m", "--version", "v1", "--json"),
    ):
        code, out, err = cli(*argv)
        assert code == 2 and out == "", (argv, err)
        _one_error(err, "model m version v1: prediction column 'pred' has 3 classes (0, 1, 2)")
    assert _count(db, "SELECT COUNT(*) FROM audit") == 0
    # the first day's rows alone are 0/1: binary, as evaluate finds those rows
    code, out, err = cli("report", "m", "--json", "--until", "2023-11-14")
    assert code == 0, err
    assert json.loads(out)["evaluation"]["task"]["type"] == "binary"
    code, _, err = cli("config", "m", "--task", "regression", "--reason", "counts")
    assert code == 0, err
    code, out, err = cli("report", "m", "--json")
    assert code == 0, err
    assert json.loads(out)["evaluation"]["task"]["source"] == "given"
    assert json.loads(out)["evaluation"]["task"]["type"] == "regression"


# -- 15.5 rows an older store holds ---------------------------------------------------------
BAD_ROWS = {
    # what an older faircode let in, written here with SQL: (statements, the line's
    # parts, the batch that removes it)
    "time": (
        ["UPDATE predictions SET at = 99999999999999, day = 1157407407 WHERE request_id = 'r3'"],
        [
            "1 stored row with a time outside 0001-01-01..9999-12-31: request id 'r3'",
            "remove prediction batch 1 with: faircode fairness remove-batch m 1 --reason TEXT",
        ],
        1,
    ),
    "label": (
        ["UPDATE predictions SET label = {huge} WHERE request_id = 'r3'"],
        [
            "1 stored row with a label beyond +-1e100 (evaluate's bound): request id 'r3'",
            "remove label batch 2 with: faircode fairness remove-batch m 2 --reason TEXT",
        ],
        2,
    ),
    "label before label batches": (
        ["UPDATE predictions SET label = {huge}, label_batch = NULL WHERE request_id = 'r3'"],
        [
            "1 stored row with a label beyond +-1e100",
            "remove prediction batch 1 (their label batch is not recorded",
            "faircode fairness remove-batch m 1 --reason TEXT",
        ],
        1,
    ),
    "binary label": (
        ["UPDATE predictions SET label = 2 WHERE request_id IN ('r3', 'r5')"],
        [
            "2 stored rows with a label other than 0/1 in a binary task: request id 'r3', 'r5'",
            "remove label batch 2 with",
            "or set task: regression in the registry",
        ],
        2,
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_bad_rows_of_an_older_store_give_one_line_then_remove_batch_repairs(
    cli, db: str, tmp_path: Path, case: str
) -> None:
    (tmp_path / "fairness.yaml").write_text(YAML)
    statements, parts, batch = BAD_ROWS[case]
    _frame().to_csv(tmp_path / "p.csv", index=False)
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG, "--at", "at")[0] == 0
    labels = pd.DataFrame({"rid": [f"r{i}" for i in range(8)], "y": [1, 0] * 4})
    labels.to_csv(tmp_path / "l.csv", index=False)
    assert cli("label", "m", "l.csv", "--id", "rid", "--label", "y")[0] == 0
    # PostgreSQL cannot square 1e300 (a real older store could not hold it there)
    huge = "1e300" if not db.startswith("postgresql://") else "1e150"
    _sql(db, *[s.format(huge=huge) for s in statements], rebuild="m")
    for argv in (
        ("report", "m"),
        ("report", "m", "--json"),
        ("report", "m", "--markdown"),
        ("slice", "m", "race"),
        ("slice", "m", "race", "--json"),
        ("gate", "m", "--version", "v1"),
        ("gate", "m", "--version", "v1", "--json"),
    ):
        code, out, err = cli(*argv)
        assert code == 2, (argv, err)
        assert out == "", argv
        _one_error(err, "model m version v1: ", *parts)
    assert _count(db, "SELECT COUNT(*) FROM audit") == 0  # no gate decision was recorded
    code, out, err = cli("remove-batch", "m", str(batch), "--reason", "bad rows", "--json")
    assert code == 0, err
    assert f"removed batch {batch} of m" in err
    removed = json.loads(out)
    assert removed["batch"] == batch and removed["reason"] == "bad rows"
    if batch == 1:  # the predictions went; log them again (their labels wait as orphans)
        assert cli("report", "m")[0] == 2
        assert cli("log", "m", "p.csv", "--version", "v1", *LOG, "--at", "at")[0] == 0
    else:  # the labels went; the same file can be sent again
        code, _, err = cli("label", "m", "l.csv", "--id", "rid", "--label", "y")
        assert code == 0 and "already logged" not in err, err
    for argv in (("report", "m", "--json"), ("slice", "m", "race", "--json")):
        code, out, err = cli(*argv)
        assert code == 0, err
        json.loads(out)
    code, out, err = cli("gate", "m", "--version", "v1", "--json")
    assert code in (0, 1, 3, 5), err  # any verdict: the store is readable again
    code, out, err = cli("audit", "m", "--verify", "--json")
    assert code == 0, err
    events = [e["event"] for e in json.loads(out)["entries"]]
    assert events[0] == "fairness_batch_removed"
    assert json.loads(out)["entries"][0]["details"]["reason"] == "bad rows"
    # the removal is implied by the store's state: cutting its audit row shows
    _sql(db, *_drop_audit_triggers(db), "DELETE FROM audit")
    code, _, err = cli("audit", "--verify")
    assert code == 1
    assert f"batch {batch} is marked removed but no fairness_batch_removed row records it" in err


def test_remove_batch_names_what_it_cannot_remove(cli, db: str, tmp_path: Path) -> None:
    _frame().to_csv(tmp_path / "p.csv", index=False)
    assert cli("log", "m", "p.csv", "--version", "v1", *LOG)[0] == 0
    code, _, err = cli("remove-batch", "m", "7", "--reason", "x")
    _one_error(err, "model 'm' has no batch 7 (its latest batches: 1 (predictions v1))")
    # an id no database integer holds is no batch's either (not SQLite's OverflowError)
    for huge in ("99999999999999999999999", "-99999999999999999999999"):
        code, _, err = cli("remove-batch", "m", huge, "--reason", "x")
        assert code == 2
        _one_error(err, f"model 'm' has no batch {huge} (its latest batches: 1 (predictions v1))")
    assert cli("remove-batch", "m", "1", "--reason", "x")[0] == 0
    code, _, err = cli("remove-batch", "m", "1", "--reason", "x")
    assert code == 2
    _one_error(err, "batch 1 of model m was already removed")
    code, _, err = cli("remove-batch", "m", "1", "--reason", " ")
    _one_error(err, "--reason is empty")


# -- 15.2 read-only and foreign SQLite files ------------------------------------------------
@pytest.fixture
def shared_dir(monkeypatch: pytest.MonkeyPatch):
    """A working directory another user can reach (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="faircode-ro-"))
    path.chmod(0o755)
    if os.geteuid() == 0 and not all(p.stat().st_mode & 0o001 for p in path.parents):
        shutil.rmtree(path)
        pytest.skip(f"nobody cannot reach {path} (a parent directory is private)")
    monkeypatch.chdir(path)
    yield path
    for p in path.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(path)


def _sqlite_store(where: Path) -> Path:
    """A SQLite store in ``where``/ro holding one model's predictions and labels, closed
    cleanly (no -wal or -shm file left), with the files ``_commands`` reads."""
    (where / "fairness.yaml").write_text(YAML)
    path = where / "ro" / "monitor.db"
    _frame().to_csv(where / "p.csv", index=False)
    pd.DataFrame({"rid": [f"r{i}" for i in range(8)], "y": [1, 0] * 4}).to_csv(
        where / "l.csv", index=False
    )
    db = ["--db", str(path)]
    assert run(["fairness", "log", "m", "p.csv", "--version", "v1", *LOG, *db]) == 0
    assert run(["fairness", "label", "m", "l.csv", "--id", "rid", "--label", "y", *db]) == 0
    for p in (where / "fairness.yaml", where / "p.csv", where / "l.csv"):
        p.chmod(0o644)
    return path


def _commands(path: Path) -> list[list]:
    """report, slice, audit MODEL --verify, gate and log on ``path``: [exit, stdout, stderr]."""
    out = []
    for argv in (
        ["report", "m", "--json"],
        ["slice", "m", "race"],
        ["audit", "m", "--verify"],
        ["gate", "m", "--version", "v1"],
        ["log", "m", "p.csv", "--version", "v2", *LOG],
    ):
        o, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            code = run(["fairness", *argv, "--db", str(path)])
        out.append([code, o.getvalue(), e.getvalue()])
    return out


def _as_another_user(func, *args):  # type: ignore[no-untyped-def]
    """``func(*args)`` (a JSON value) with real file permissions: as root, in a forked
    child that has dropped to nobody (everything it imports is imported before the fork:
    the interpreter's own files may be unreadable to nobody); otherwise directly."""
    if os.geteuid() != 0:
        return func(*args)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(read)
            os.setgid(65534)
            os.setuid(65534)
            with os.fdopen(write, "w") as fh:
                json.dump(func(*args), fh)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as fh:
        text = fh.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0 and text, "the child running as nobody failed"
    return json.loads(text)


def _check_read_only(results: list[list], how: str) -> None:
    report, slice_, verify, gate, log = results
    assert report[0] == 0, report[2]
    assert json.loads(report[1])["evaluation"]["rows"]["labelled"] == 8
    assert slice_[0] == 0 and "race" in slice_[1], slice_[2]
    assert verify[0] == 0 and "chain verified" in verify[2], verify[2]
    for code, _, err in (gate, log):
        assert code == 2
        _one_error(err, f"is read-only (opened {how}", "this command writes to it")


def _read_only(path: Path) -> None:
    for p in path.parent.iterdir():
        p.chmod(0o444)
    path.parent.chmod(0o555)


def test_a_store_this_process_cannot_write_is_opened_read_only(
    shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _sqlite_store(shared_dir)
    before = path.read_bytes()
    # what os.access says on read-only media (root passes permission checks otherwise)
    from faircode.monitor import store as store_module

    real = os.access
    monkeypatch.setattr(
        store_module.os,
        "access",
        lambda p, mode, *a, **k: False if mode & os.W_OK else real(p, mode, *a, **k),
    )
    _check_read_only(_commands(path), "read-only")  # mode=ro
    assert path.read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_store_in_a_read_only_directory_is_readable_by_another_user(shared_dir: Path) -> None:
    path = _sqlite_store(shared_dir)
    # every lazy import done before a fork (on a copy: gate and log write)
    copy = shared_dir / "copy" / "monitor.db"
    copy.parent.mkdir()
    shutil.copy(path, copy)
    _commands(copy)
    assert sorted(p.name for p in path.parent.iterdir()) == ["monitor.db"]  # closed cleanly
    before = path.read_bytes()
    _read_only(path)
    # no -shm file can be made in the directory, so mode=ro fails: immutable=1 reads it
    _check_read_only(_as_another_user(_commands, path), "immutable")
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["monitor.db"]


def _open(path: Path) -> list:
    try:
        open_store(str(path)).close()
    except Exception as exc:  # noqa: BLE001 - the message is the result
        return [type(exc).__name__, str(exc)]
    return ["opened", ""]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_read_only_store_whose_wal_cannot_be_read_is_refused(shared_dir: Path) -> None:
    path = shared_dir / "ro" / "monitor.db"
    # a writer killed before its checkpoint leaves committed rows in the -wal file
    script = (
        "import os, sys\n"
        "from faircode.monitor import audit\n"
        "from faircode.monitor.store import open_store\n"
        "s = open_store(sys.argv[1])\n"
        "s.conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "audit.append(s, 'fairness_config_set', 'm', None, {})\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, timeout=120)
    assert path.with_name("monitor.db-wal").stat().st_size > 0
    path.with_name("monitor.db-shm").unlink()
    _read_only(path)
    kind, message = _as_another_user(_open, path)
    assert kind == "StoreError", message
    assert "its write-ahead log monitor.db-wal holds changes" in message


def test_a_foreign_sqlite_file_is_refused_unless_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    other = tmp_path / "crm.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('Ada')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    code = run(["fairness", "audit", "m", "--verify", "--db", str(other)])
    err = capsys.readouterr().err
    assert code == 2
    _one_error(
        err,
        f"{other} is a SQLite database of another application (tables: customers), not a "
        "faircode store; nothing was changed",
    )
    assert other.read_bytes() == before
    # an empty file (0 bytes) or a SQLite database without tables becomes a store
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.db"
    conn = sqlite3.connect(blank)
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    for path in (empty, blank):
        assert run(["fairness", "audit", "m", "--verify", "--db", str(path)]) == 0
        assert "chain verified (0 rows" in capsys.readouterr().err
        tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
        assert {"predictions", "audit", "schema_version"} <= tables
    # and a faircode store opens as before
    assert run(["fairness", "audit", "m", "--verify", "--db", str(empty)]) == 0


def test_db_is_a_sqlite_path_or_a_known_url_and_reading_never_creates_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown ``scheme://`` and an empty ``--db`` are refused (not taken as a relative
    path, or as "no --db"); a command that only reads needs a store that exists and
    creates neither it nor its directory; one that writes creates both (SPEC 15.2)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FAIRCODE_DB", raising=False)
    (tmp_path / "fairness.yaml").write_text(YAML)
    _frame().to_csv(tmp_path / "p.csv", index=False)

    def error(*argv: str) -> str:
        assert run(["fairness", *argv]) == 2, argv
        err = capsys.readouterr().err
        _one_error(err)
        return err

    log = ["log", "m", "p.csv", "--version", "v1", *LOG]
    for argv in (log, ["report", "m"], ["audit", "--verify"]):
        err = error(*argv, "--db", "mysql://me:secret@host/db")
        assert "--db: unknown scheme ('mysql://'); a store is a SQLite file path" in err
        assert "secret" not in err
        assert "--db is empty" in error(*argv, "--db", "")
    assert "a SQLite URL has three slashes ('sqlite://')" in error(*log, "--db", "sqlite://x.db")
    monkeypatch.setenv("FAIRCODE_DB", "mysql://host/db")
    assert "FAIRCODE_DB: unknown scheme ('mysql://')" in error("report", "m")
    monkeypatch.delenv("FAIRCODE_DB")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fairness.yaml", "p.csv"]

    missing = tmp_path / "no" / "such" / "s.db"
    reads = (
        ["report", "m"],
        ["slice", "m", "race"],
        ["show", "m"],
        ["gate", "m", "--version", "v1"],
        ["audit", "--verify"],
        ["watch", "m"],
        ["remove-batch", "m", "1", "--reason", "x"],
        ["slo", "show", "m"],
        ["slo", "ingest", "m"],
        ["slo", "gate", "m"],
    )
    for argv in reads:
        err = error(*argv, "--db", str(missing))
        assert f"no store at {missing}: nothing was logged there; check --db" in err
    assert not (tmp_path / "no").exists()
    for argv in reads[:2]:  # the default location likewise
        assert "no store at .faircode/monitor.db" in error(*argv)
    assert not (tmp_path / ".faircode").exists()
    # a command that writes, refused before it has anything to store, creates nothing
    refused = (
        ["log", "m", "gone.csv", "--version", "v1", *LOG],
        ["label", "m", "gone.csv", "--id", "id", "--label", "y"],
        ["slo", "set", "m", "s", "--target", "2"],
    )
    for argv in refused:
        error(*argv, "--db", str(missing))
    assert not (tmp_path / "no").exists()
    # a command that writes creates the store and its directory, as documented
    assert run(["fairness", *log, "--db", str(missing)]) == 0
    assert missing.is_file()
    assert run(["fairness", "report", "m", "--db", str(missing)]) == 0
