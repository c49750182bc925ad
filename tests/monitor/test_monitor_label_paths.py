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
