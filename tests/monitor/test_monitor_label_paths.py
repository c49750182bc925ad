"""The label batch's faster paths (SPEC 15.3, "Label speed"): each must write what the
general path writes.

- request ids and labels read from text: the plain shortcut gives ``_ids``' own result,
  or the same error, and labels are the doubles ``evaluate`` reads (or both refuse);
- SQLite writes a batch of few label values as JSON arrays of request ids (one UPDATE
  per value), any other batch through the temporary table; both count the rows they
  write with a SQL function in the UPDATE. Whatever the path, the predictions, the
  orphans, the counts printed and ``slice_stats`` (a GROUP BY over the predictions) are
  the general path's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faircode.monitor import ingest
from faircode.monitor.errors import MonitorInputError
from faircode.monitor.ingest import log_labels, log_predictions
from faircode.monitor.inputs import _numeric
from faircode.monitor.rollup import cells, raw_cells
from faircode.monitor.store import open_store

NUMBERS = ["0", "1", "1.0", "-0", "+1", " 1", "1 ", "1e400", "-1e400", "nan", "NaN", "inf"]
NUMBERS += ["9007199254740993", "18446744073709551617", "0.1", ".5", "5.", "1_0", "0x1"]
NUMBERS += ["yes", "", "\u0661", "1e-320", "-0.0", "2", "true", "FALSE", " True\t", "NA"]
NUMBERS += ["null", "?", "tRUE"]


def _evaluates(series: pd.Series) -> tuple[bytes, None] | tuple[None, str]:
    """What ``evaluate`` reads from a label column (SPEC 12.1): its doubles, or its refusal."""
    try:
        return _numeric(series, "y", "label", "f.csv").tobytes(), None
    except MonitorInputError as exc:
        return None, str(exc)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=6, unique=True),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_labels_are_read_as_evaluate_reads_them(values: list[str], seed: int, gaps: bool) -> None:
    """SPEC 15.1/15.3: the store's numbers are evaluate's, bit for bit (-0.0 and NaN
    included): the words true/false are 1/0, missing tokens missing; a column evaluate
    refuses the store refuses too."""
    rng = np.random.default_rng(seed)
    cells_ = [values[i] for i in rng.integers(0, len(values), 2000)]
    if gaps:
        for i in rng.integers(0, 2000, 20):
            cells_[i] = None  # type: ignore[call-overload]
    series = pd.Series(cells_, dtype=object)
    want, refused = _evaluates(series)
    try:
        got = ingest._numbers(series, "y", "label", "csv", "f.csv", False).tobytes()
    except MonitorInputError:
        assert refused is not None
        return
    assert refused is None and got == want


IDS = [
    "r1",
    "r2",
    "r10",
    "7",
    "07",
    "",
    " ",
    "a b",
    "\t",
    "x\u00e9",
    "\u00a0",
    "r\x01",
    " r1",
    "r2\t",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(IDS + [f"q{i}" for i in range(30)]), min_size=1, max_size=60))
def test_plain_request_ids_are_ids_own_result(ids: list[str]) -> None:
    series = pd.Series(ids, dtype=object)

    def run(plain: bool) -> Any:
        kept = ingest._plain_ids
        if not plain:
            ingest._plain_ids = lambda s: None  # type: ignore[assignment]
        try:
            return ingest._ids(series, "rid", "csv", "f.csv")
        except MonitorInputError as exc:
            return str(exc)
        finally:
            ingest._plain_ids = kept

    assert run(True) == run(False)


def _write(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


#: request ids a JSON array must carry exactly (quotes, backslashes, other scripts),
#: and one it cannot (a control character: that batch is bound row by row)
ODD_IDS = ['say "hi"', "back\\slash", "caf\u00e9", "\U0001f600x", "comma,id", "sp ace", "\\u0041"]


def _store_rows(db: str) -> dict[str, Any]:
    store = open_store(db)
    try:
        return {
            "predictions": sorted(
                store.query("SELECT request_id, label, label_batch FROM predictions")
            ),
            "orphans": sorted(store.query("SELECT request_id, label, batch FROM orphan_labels")),
            **{
                f"kept {v}": cells(store, "m", [0], v, None, None).sort_values(["a0", "day"])
                for v in ("v1", "v2")
            },
            **{
                f"raw {v}": raw_cells(store, "m", [0], v).sort_values(["a0", "day"])
                for v in ("v1", "v2")
            },
        }
    finally:
        store.close()


@pytest.mark.parametrize("regression", [False, True])
def test_every_label_path_writes_what_the_general_path_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, regression: bool
) -> None:
    """Two label batches (the second replaces some labels, labels new rows and holds
    orphans; odd request ids; with ``regression`` more label values than JSON_LABEL_VALUES)
    through each path into its own SQLite store: the same stored rows and statistics."""
    rng = np.random.default_rng(3)
    n = 3000
    rid = ODD_IDS + [f"r{i}" for i in range(n - len(ODD_IDS))]  # in the first batch
    preds = pd.DataFrame(
        {
            "rid": rid,
            "g": rng.choice(["a", "b", "c"], n),
            "pred": rng.integers(0, 2, n) if not regression else rng.normal(size=n).round(2),
            "at": 1_800_000_000 + rng.integers(0, 5 * 86400, n),
        }
    )
    p1 = _write(tmp_path / "p1.csv", preds.iloc[:1800])  # two versions
    p2 = _write(tmp_path / "p2.csv", preds.iloc[1800:])
    first = preds.iloc[:2000][["rid"]].assign(y=rng.integers(0, 2, 2000))
    second = preds.iloc[1500:][["rid"]].assign(y=rng.integers(0, 2, n - 1500))
    second = pd.concat([second, pd.DataFrame({"rid": ["orphan1", "orphan\x01"], "y": [1, 0]})])
    if regression:
        first["y"] = rng.normal(size=len(first)).round(3)
        second["y"] = rng.normal(size=len(second)).round(3)
    l1, l2 = _write(tmp_path / "l1.csv", first), _write(tmp_path / "l2.csv", second)
    results = {}
    as_json: list[bool] = []
    json_parts = ingest._json_parts

    def spy(*args: Any) -> Any:
        parts = json_parts(*args)
        as_json.append(parts is not None)
        return parts

    monkeypatch.setattr(ingest, "_json_parts", spy)
    for path in ("json", "table", "general"):
        monkeypatch.setattr(ingest, "JSON_LABEL_VALUES", 64 if path == "json" else 0)
        monkeypatch.setattr(ingest, "SQLITE_ONE_PASS_LABELS", path != "general")
        db = str(tmp_path / f"{path}.db")
        store = open_store(db)
        try:
            for version, p_path in (("v1", p1), ("v2", p2)):
                log_predictions(
                    store, "m", p_path, version=version, id_col="rid", attrs=["g"], pred="pred",
                    at_col="at",
                )  # fmt: skip
            outs = [log_labels(store, "m", lab, id_col="rid", label_col="y") for lab in (l1, l2)]
        finally:
            store.close()
        results[path] = ([{k: v for k, v in o.items()} for o in outs], _store_rows(db))
    # JSON arrays for the first batch only (the second has a control character in an
    # id); the temporary table for every batch otherwise; the general path asks neither
    assert as_json == [not regression, False, False, False]
    general_out, general = results["general"]
    assert general_out[1]["orphans"] == 2 and general_out[1]["replaced"] > 0
    assert len(general["orphans"]) == 2
    labelled = {r[0]: r[1] for r in general["predictions"]}
    assert labelled['say "hi"'] is not None and labelled["\U0001f600x"] is not None
    for path in ("json", "table"):
        out, got = results[path]
        assert out == general_out, path
        assert got["predictions"] == general["predictions"], path
        assert got["orphans"] == general["orphans"], path
        for v in ("v1", "v2"):
            kept = f"kept {v}"
            for frame in (got, general):
                pd.testing.assert_frame_equal(
                    frame[kept].reset_index(drop=True),
                    frame[f"raw {v}"][frame[kept].columns].reset_index(drop=True),
                    check_exact=not regression,
                    rtol=1e-12,
                )
            pd.testing.assert_frame_equal(
                got[kept].reset_index(drop=True),
                general[kept].reset_index(drop=True),
                check_exact=not regression,
                rtol=1e-12,
            )


def test_a_label_batch_bound_row_by_row_refuses_a_non_binary_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inferred-binary check reads the batch through the temporary table as it reads
    JSON arrays: a 2 joining a 0/1 version is refused naming its line, nothing written."""
    monkeypatch.setattr(ingest, "JSON_LABEL_VALUES", 0)
    preds = pd.DataFrame({"rid": [f"r{i}" for i in range(50)], "g": "a", "pred": [0, 1] * 25})
    labels = preds[["rid"]].assign(y=[0, 1] * 25)
    labels.loc[17, "y"] = 2
    db = str(tmp_path / "s.db")
    store = open_store(db)
    try:
        log_predictions(
            store, "m", _write(tmp_path / "p.csv", preds), version="v1", id_col="rid",
            attrs=["g"], pred="pred",
        )  # fmt: skip
        with pytest.raises(MonitorInputError, match=r"line 19 \(request id 'r17'\): label 2 "):
            log_labels(store, "m", _write(tmp_path / "l.csv", labels), id_col="rid", label_col="y")
        assert store.one("SELECT COUNT(*) FROM predictions WHERE label IS NOT NULL") == 0
        assert store.one("SELECT COUNT(*) FROM batches WHERE kind = 'labels'") == 0
    finally:
        store.close()


def _version_rows(db: str) -> dict[str, Any]:
    store = open_store(db)
    try:
        weighted = store.one("SELECT COUNT(*) FROM predictions WHERE weight IS NOT NULL") > 0
        # a copied label keeps its time and batch (the time differs between two stores)
        assert not store.query(
            "SELECT 1 FROM predictions p JOIN predictions o ON o.request_id = p.request_id "
            "AND o.version = 'v1' WHERE p.version <> 'v1' AND p.label IS NOT NULL "
            "AND (p.label <> o.label OR p.labelled_at <> o.labelled_at "
            "OR p.label_batch <> o.label_batch)"
        )
        return {
            "predictions": sorted(
                store.query("SELECT request_id, version, label, label_batch FROM predictions"),
                key=repr,
            ),
            **{
                f"{kind} {v}": fn(store, "m", [0], v, *extra, weighted=weighted)
                .sort_values(["a0", "day"])
                .reset_index(drop=True)
                for v in ("v1", "v2", "v3")
                for kind, fn, extra in (("kept", cells, (None, None)), ("raw", raw_cells, ()))
            },
        }
    finally:
        store.close()


@pytest.mark.parametrize("kind", ["binary", "regression", "weighted"])
def test_a_second_version_takes_the_labels_as_the_general_path_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """v2 scored on requests v1 scored and that are labelled: its rows are written with
    those labels, and its cells take their statistics, counted from the batch in memory
    (SQLite, unweighted; request ids as JSON arrays) or by the general path's GROUP BY
    (request ids through the temporary table): the same rows, the same counts printed,
    and ``slice_stats`` equal to a GROUP BY over the predictions. A second v2 batch
    re-sending some request ids (kept as they were) rebuilds the cells; v3 finds each
    label in two versions."""
    rng = np.random.default_rng(5)
    n = 1200
    preds = pd.DataFrame(
        {
            "rid": ODD_IDS + [f"r{i}" for i in range(n - len(ODD_IDS))],
            "g": rng.choice(["a", "b", "c"], n),
            "pred": rng.integers(0, 2, n) if kind != "regression" else rng.normal(size=n).round(2),
            "at": 1_800_000_000 + rng.integers(0, 5 * 86400, n),
            "w": rng.uniform(0, 2, n).round(3),
        }
    )
    labels = preds.iloc[:900][["rid"]].assign(y=rng.integers(0, 2, 900))
    if kind == "regression":
        labels["y"] = rng.normal(size=900).round(3)
    files = {
        "v1": _write(tmp_path / "v1.csv", preds.iloc[:1000]),
        "v2": _write(tmp_path / "v2.csv", preds.iloc[400:]),  # 500 labelled, 300 not
        "v2 again": _write(tmp_path / "v2b.csv", preds.iloc[600:700]),  # all stored already
        "v3": _write(tmp_path / "v3.csv", preds.iloc[300:700]),  # labelled in v1 (and v2)
        "labels": _write(tmp_path / "l.csv", labels),
    }
    weight = {"weight": "w"} if kind == "weighted" else {}
    results = {}
    for path in ("in memory", "general"):
        monkeypatch.setattr(ingest, "SQLITE_ONE_PASS_LABELS", path != "general")
        if path == "general":
            monkeypatch.setattr(ingest, "_json_ready", lambda store, ids: False)
        db = str(tmp_path / f"{path}.db")
        store = open_store(db)
        try:
            outs = [
                log_predictions(
                    store, "m", files["v1"], version="v1", id_col="rid", attrs=["g"],
                    pred="pred", at_col="at", **weight,
                ),
                log_labels(store, "m", files["labels"], id_col="rid", label_col="y"),
            ]  # fmt: skip
            for file in ("v2", "v2 again", "v3"):
                outs.append(
                    log_predictions(
                        store, "m", files[file], version=file[:2], id_col="rid", attrs=["g"],
                        pred="pred", at_col="at", **weight,
                    )
                )  # fmt: skip
        finally:
            store.close()
        results[path] = (outs, _version_rows(db))
    (general_out, general), (out, got) = results["general"], results["in memory"]
    assert [o["labels_joined"] for o in general_out[2:]] == [500, 0, 400]
    assert [o["new"] for o in general_out[2:]] == [800, 0, 400]
    assert out == general_out
    assert got["predictions"] == general["predictions"]
    exact = kind == "binary"
    for v in ("v1", "v2", "v3"):
        for frame in (got, general):
            kept = frame[f"kept {v}"]
            pd.testing.assert_frame_equal(
                kept, frame[f"raw {v}"][kept.columns], check_exact=exact, rtol=1e-12
            )
        pd.testing.assert_frame_equal(
            got[f"kept {v}"], general[f"kept {v}"], check_exact=exact, rtol=1e-12
        )


def test_a_second_version_costs_with_its_batch_not_with_the_store(tmp_path: Path) -> None:
    """A v2 batch of 200 request ids that v1 scored and that are labelled: the SQLite work
    of logging it (virtual machine steps) hardly grows when the model holds ten times
    as many predictions, since each id is looked up by the key and nothing is rebuilt
    from every prediction of the model (SPEC 15.3)."""
    rng = np.random.default_rng(11)

    def steps(rows: int) -> int:
        preds = pd.DataFrame(
            {
                "rid": [f"r{i}" for i in range(rows)],
                "g": rng.choice(["a", "b", "c"], rows),
                "pred": rng.integers(0, 2, rows),
                "at": 1_800_000_000 + rng.integers(0, 5 * 86400, rows),
            }
        )
        sub = tmp_path / str(rows)
        sub.mkdir()
        v1, shadow = _write(sub / "v1.csv", preds), _write(sub / "v2.csv", preds.iloc[:200])
        labels = _write(sub / "l.csv", preds[["rid"]].assign(y=rng.integers(0, 2, rows)))
        store = open_store(str(sub / "s.db"))
        try:
            options: dict[str, Any] = {"id_col": "rid", "attrs": ["g"], "pred": "pred"}
            log_predictions(store, "m", v1, version="v1", at_col="at", **options)
            log_labels(store, "m", labels, id_col="rid", label_col="y")
            count = [0]

            def tick() -> int:
                count[0] += 1
                return 0

            store.conn.set_progress_handler(tick, 100)
            out = log_predictions(store, "m", shadow, version="v2", at_col="at", **options)
            store.conn.set_progress_handler(None, 100)
            assert out["labels_joined"] == 200
        finally:
            store.close()
        return count[0]

    small, large = steps(2_000), steps(20_000)
    assert large < 1.5 * small, (small, large)


def test_a_label_batch_looks_for_orphans_unless_each_label_joined_every_version(
    tmp_path: Path,
) -> None:
    """A label joins at most one prediction per version, so when a batch's labels joined
    n times the model's versions predictions, none is an orphan and none is looked up
    again (SPEC 15.3); any fewer, and the labels without a prediction are kept."""
    preds = pd.DataFrame({"rid": ["a", "b", "c"], "g": "x", "pred": [0, 1, 1]})
    db = str(tmp_path / "s.db")
    store = open_store(db)
    statements: list[str] = []
    try:
        for version, rows in (("v1", preds), ("v2", preds.iloc[:2])):
            log_predictions(
                store, "m", _write(tmp_path / f"{version}.csv", rows), version=version,
                id_col="rid", attrs=["g"], pred="pred",
            )  # fmt: skip
        store.conn.set_trace_callback(statements.append)
        both = _write(tmp_path / "both.csv", pd.DataFrame({"rid": ["a", "b"], "y": [1, 0]}))
        out = log_labels(store, "m", both, id_col="rid", label_col="y")
        assert (out["joined"], out["orphans"]) == (4, 0)
        assert not [s for s in statements if "orphan_labels" in s]
        # c is v1's only, d nobody's: the lookup runs and keeps d waiting
        some = _write(tmp_path / "some.csv", pd.DataFrame({"rid": ["c", "d"], "y": [1, 1]}))
        out = log_labels(store, "m", some, id_col="rid", label_col="y")
        assert (out["joined"], out["orphans"]) == (1, 1)
        assert [s for s in statements if "INSERT INTO orphan_labels" in s]
    finally:
        store.conn.set_trace_callback(None)
        store.close()
