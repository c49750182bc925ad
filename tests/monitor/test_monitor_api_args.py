"""The monitor's Python API arguments (SPEC 12.1, 15.9): a wrongly typed argument or
source is one line (MonitorInputError) naming it and what it takes, never a traceback
from inside and never a silently wrong number; a frame's columns are named by their
text, as the CSV of the same frame and the profiler name them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from faircode.monitor import MonitorInputError, evaluate

N = 80
FRAME = pd.DataFrame(
    {
        "a": ["x", "y"] * (N // 2),
        "p": [0, 1, 1, 0] * (N // 4),
        "y": [1, 1, 0, 0] * (N // 4),
        "s": [0.2, 0.8, 0.6, 0.1] * (N // 4),
        "w": [1.0, 2.0] * (N // 2),
    }
)
COLUMN_HINT = "; give a column's name as a str (a DataFrame's column 0 is '0')"
SOURCES = (
    "data: give a pandas or polars DataFrame, or the path (a str or os.PathLike) of a CSV, "
    "Parquet or JSON lines file, not "
)


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two reports equal but for their source (a frame has none, a file its path)."""
    assert json.dumps({**a, "source": None}, sort_keys=True, default=str) == json.dumps(
        {**b, "source": None}, sort_keys=True, default=str
    )


def _refused(call, message: str) -> None:
    with pytest.raises(MonitorInputError) as err:
        call()
    assert str(err.value) == message


# -- 1 (a) and 2: a frame's columns are named by their header text ----------------------
def test_a_frames_columns_are_named_by_their_text_as_in_its_csv(tmp_path: Path) -> None:
    """Duplicate and integer column names: the CSV of the frame's names (SPEC 12.1)."""
    dup = FRAME[["a", "p", "y"]].copy()
    dup.columns = ["a", "p", "p"]  # a second 'p' is 'p.1', as the CSV reader names it
    dup.to_csv(tmp_path / "dup.csv", index=False)
    for pred in ("p", "p.1"):
        _same(
            evaluate(dup, pred, ["a"], min_samples=1),
            evaluate(str(tmp_path / "dup.csv"), pred, ["a"], min_samples=1),
        )
    numbered = FRAME[["a", "p", "y"]].copy()
    numbered.columns = [0, 1, 4]
    numbered.to_csv(tmp_path / "numbered.csv", index=False)
    _same(
        evaluate(numbered, "1", "0", label="4", min_samples=1),
        evaluate(str(tmp_path / "numbered.csv"), "1", "0", label="4", min_samples=1),
    )
    # every name quoted: '0' is no longer both present (0) and absent ('0')
    _refused(
        lambda: evaluate(numbered, "9", ["0"]),
        "data: column '9' (--pred) not found; available columns: '0', '1', '4'",
    )
    _refused(lambda: evaluate(numbered, 1, ["0"]), "--pred: 1 is not text" + COLUMN_HINT)
    _refused(
        lambda: evaluate(numbered, "1", ["0"], overrides={0: "sex"}),
        "--map: 0 is not text" + COLUMN_HINT,
    )
    _refused(
        lambda: evaluate(numbered, "1", ["0"], ref_groups={0: "x"}),
        "--ref-group: 0 is not text" + COLUMN_HINT,
    )


# -- 1 (b): a polars frame is read as its Parquet file ----------------------------------
def test_a_polars_frame_gives_its_parquet_files_report(tmp_path: Path) -> None:
    pl = pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    import datetime

    frame = pl.DataFrame(
        {
            "n": pl.Series([None if i % 9 == 0 else i % 3 for i in range(N)], dtype=pl.Int64),
            "f": pl.Series([0.1 * (i % 2) for i in range(N)], dtype=pl.Float32),
            "d": [datetime.date(2020, 1, 1 + i % 2) for i in range(N)],
            "c": pl.Series(["u", "v"] * (N // 2), dtype=pl.Categorical),
            "p": FRAME["p"].tolist(),
            "y": [None if i % 7 == 0 else v for i, v in enumerate(FRAME["y"])],
            "w": pl.Series(FRAME["w"].tolist(), dtype=pl.Float32),
        }
    )
    frame.write_parquet(tmp_path / "p.parquet")
    kw: dict[str, Any] = {"label": "y", "weight": "w", "min_samples": 1}
    from_file = evaluate(str(tmp_path / "p.parquet"), "p", ["n", "f", "d", "c"], **kw)
    _same(evaluate(frame, "p", ["n", "f", "d", "c"], **kw), from_file)
    _same(evaluate(frame.lazy(), "p", ["n", "f", "d", "c"], **kw), from_file)
    _refused(
        lambda: evaluate(frame.with_columns(o=pl.Series([object()] * N)), "p", ["o"]),
        "data: polars column 'o' (Object) cannot be read as a Parquet column (Python "
        "objects); cast it to a type Parquet holds (e.g. Int64, Float64 or String)",
    )
    with pytest.raises(MonitorInputError, match=r"^data: could not read the polars frame: "):
        evaluate(frame.lazy().filter(pl.col("missing") > 1), "p", ["c"])


# -- 1 (c): a source that is no frame and no path ----------------------------------------
@pytest.mark.parametrize(
    ("data", "kind"),
    [(5, "an int"), (["a.csv"], "a list"), (b"a.csv", "a bytes"), (None, "None")],
)
def test_a_source_that_is_no_frame_or_path_is_one_line(data: Any, kind: str) -> None:
    _refused(lambda: evaluate(data, "p", ["a"]), SOURCES + kind)


# -- 1 (d): attrs and the other column arguments are text -------------------------------
def test_attrs_and_columns_are_names_as_text() -> None:
    one = evaluate(FRAME, "p", "a", min_samples=1)
    assert one == evaluate(FRAME, "p", ("a",), min_samples=1)
    assert one["columns"]["attributes"] == ["a"]
    hint = COLUMN_HINT
    for attrs, message in (
        (5, "--attr: 5 is not a list of strings or a string" + hint),
        (None, "--attr: None is not a list of strings or a string" + hint),
        ({"a": 1}, "--attr: {'a': 1} is not a list of strings or a string" + hint),
        ([["a"]], "--attr: ['a'] is not text" + hint),
    ):
        _refused(lambda attrs=attrs: evaluate(FRAME, "p", attrs), message)
    _refused(lambda: evaluate(FRAME, ["p"], ["a"]), "--pred: ['p'] is not text" + hint)
    _refused(lambda: evaluate(FRAME, "p", ["a"], weight=5), "--weight: 5 is not text" + hint)
    _refused(
        lambda: evaluate(FRAME, "p", ["a"], intersect="no"), "--intersect: no is not true or false"
    )
    _refused(
        lambda: evaluate(FRAME, "p", ["a"], opts=[("na", "x")]),
        "opts: give a dict of option names and values (SPEC 7), not a list",
    )
    _refused(
        lambda: evaluate("p.csv", "p", ["a"], opener=5),
        "opener: give a function (path, label) -> (binary file, is it a regular file), not an int",
    )


# -- 3: complex numbers are refused, never read as their real part ----------------------
@pytest.mark.parametrize("role", ["prediction", "label", "score", "weight"])
@pytest.mark.parametrize("boxed", [False, True], ids=["complex128", "object"])
def test_complex_values_are_refused(role: str, boxed: bool) -> None:
    column = {"prediction": "p", "label": "y", "score": "s", "weight": "w"}[role]
    values = FRAME[column].astype(complex)
    values.iloc[3] += 1j
    frame = FRAME.assign(**{column: values.astype(object) if boxed else values})
    kw: dict[str, Any] = {"label": "y"} if role == "label" else {}
    if role == "score":
        kw = {"score": "s", "decision_threshold": 0.5}
    if role == "weight":
        kw = {"weight": "w"}
    first = complex(frame[column].iloc[0])
    _refused(
        lambda: evaluate(frame, None if role == "score" else "p", ["a"], **kw),
        f"data: {role} column {column!r} holds complex numbers (found {first!r}); "
        f"give {role}s as real numbers",
    )
