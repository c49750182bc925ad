"""The monitor's Python API arguments (SPEC 12.1, 15.9): a wrongly typed argument or
source is one line (MonitorInputError) naming it and what it takes, never a traceback
from inside and never a silently wrong number; a frame's columns are named by their
text, as the CSV of the same frame and the profiler name them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import faircode.monitor as monitor
from faircode.monitor import MonitorInputError, evaluate
from faircode.monitor.cli import run

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
            evaluate(dup, pred=pred, attrs=["a"], min_samples=1),
            evaluate(str(tmp_path / "dup.csv"), pred=pred, attrs=["a"], min_samples=1),
        )
    numbered = FRAME[["a", "p", "y"]].copy()
    numbered.columns = [0, 1, 4]
    numbered.to_csv(tmp_path / "numbered.csv", index=False)
    _same(
        evaluate(numbered, pred="1", attrs="0", label="4", min_samples=1),
        evaluate(str(tmp_path / "numbered.csv"), pred="1", attrs="0", label="4", min_samples=1),
    )
    # every name quoted: '0' is no longer both present (0) and absent ('0')
    _refused(
        lambda: evaluate(numbered, pred="9", attrs=["0"]),
        "<dataframe>: column '9' (pred) not found; available columns: '0', '1', '4'",
    )
    _refused(lambda: evaluate(numbered, pred=1, attrs=["0"]), "pred: 1 is not text" + COLUMN_HINT)
    _refused(
        lambda: evaluate(numbered, pred="1", attrs=["0"], overrides={0: "sex"}),
        "overrides: 0 is not text" + COLUMN_HINT,
    )
    _refused(
        lambda: evaluate(numbered, pred="1", attrs=["0"], ref_groups={0: "x"}),
        "ref_groups: 0 is not text" + COLUMN_HINT,
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
    from_file = evaluate(str(tmp_path / "p.parquet"), pred="p", attrs=["n", "f", "d", "c"], **kw)
    _same(evaluate(frame, pred="p", attrs=["n", "f", "d", "c"], **kw), from_file)
    _same(evaluate(frame.lazy(), pred="p", attrs=["n", "f", "d", "c"], **kw), from_file)
    _refused(
        lambda: evaluate(frame.with_columns(o=pl.Series([object()] * N)), pred="p", attrs=["o"]),
        "<dataframe>: polars column 'o' (Object) cannot be read as a Parquet column (Python "
        "objects); cast it to a type Parquet holds (e.g. Int64, Float64 or String)",
    )
    with pytest.raises(MonitorInputError, match=r"^<dataframe>: could not read the polars frame: "):
        evaluate(frame.lazy().filter(pl.col("missing") > 1), pred="p", attrs=["c"])


# -- 1 (c): a source that is no frame and no path ----------------------------------------
@pytest.mark.parametrize(
    ("data", "kind"),
    [(5, "an int"), (["a.csv"], "a list"), (b"a.csv", "a bytes"), (None, "None")],
)
def test_a_source_that_is_no_frame_or_path_is_one_line(data: Any, kind: str) -> None:
    _refused(lambda: evaluate(data, pred="p", attrs=["a"]), SOURCES + kind)


# -- 1 (d): attrs and the other column arguments are text -------------------------------
def test_attrs_and_columns_are_names_as_text() -> None:
    one = evaluate(FRAME, pred="p", attrs="a", min_samples=1)
    assert one == evaluate(FRAME, pred="p", attrs=("a",), min_samples=1)
    assert one["columns"]["attributes"] == ["a"]
    hint = COLUMN_HINT
    for attrs, message in (
        (5, "attrs: 5 is not a list of strings or a string" + hint),
        (None, "attrs: None is not a list of strings or a string" + hint),
        ({"a": 1}, "attrs: {'a': 1} is not a list of strings or a string" + hint),
        ([["a"]], "attrs: ['a'] is not text" + hint),
    ):
        _refused(lambda attrs=attrs: evaluate(FRAME, pred="p", attrs=attrs), message)
    _refused(lambda: evaluate(FRAME, pred=["p"], attrs=["a"]), "pred: ['p'] is not text" + hint)
    _refused(
        lambda: evaluate(FRAME, pred="p", attrs=["a"], weight=5), "weight: 5 is not text" + hint
    )
    _refused(
        lambda: evaluate(FRAME, pred="p", attrs=["a"], intersect="no"),
        "intersect: no is not true or false",
    )
    _refused(
        lambda: evaluate(FRAME, pred="p", attrs=["a"], opts=[("na", "x")]),
        "opts: give a dict of option names and values (SPEC 7), not a list",
    )
    _refused(
        lambda: evaluate("p.csv", pred="p", attrs=["a"], opener=5),
        "opener: give a function (path, label) -> (binary file, is it a regular file), not an int",
    )


def test_numpy_numbers_are_taken_as_the_numbers_they_hold() -> None:
    """Settings computed with numpy (`np.int64(30)`) are their Python numbers: the same
    report as plain ones, and JSON; a numpy bool is no number, as True is not."""
    import numpy as np

    frame = pd.DataFrame({"g": ["a", "b"] * 50, "p": [0, 1, 1, 0] * 25, "y": [0, 1, 0, 1] * 25})
    kw = {"pred": "p", "label": "y", "attrs": ["g"]}
    plain = evaluate(frame, **kw, min_samples=30, threshold=0.25, alpha=0.05)
    boxed = evaluate(
        frame, **kw, min_samples=np.int64(30), threshold=np.float64(0.25), alpha=np.float64(0.05)
    )
    assert boxed == plain
    json.dumps(boxed)
    _refused(
        lambda: evaluate(frame, **kw, min_samples=np.bool_(True)),
        "min_samples must be a whole number >= 0, got True",
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
        lambda: evaluate(frame, pred=None if role == "score" else "p", attrs=["a"], **kw),
        f"<dataframe>: {role} column {column!r} holds complex numbers (found {first!r}); "
        f"give {role}s as real numbers",
    )


# -- 4: the store's API ------------------------------------------------------------------
@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A SQLite store with model m's predictions and labels, and its registry."""
    folder = tmp_path_factory.mktemp("api_args")
    db, registry = str(folder / "monitor.db"), folder / "m.yaml"
    registry.write_text("fairness:\n  slices: [a]\n  threshold: 0.1\n  min_samples: 1\n")
    FRAME.assign(id=[f"r{i}" for i in range(N)]).to_csv(folder / "d.csv", index=False)
    common = ["--db", db, "--registry", str(registry)]
    log = ["log", "m", str(folder / "d.csv"), "--version", "v1", "--id", "id", "--pred", "p"]
    assert run(["fairness", *log, "--attr", "a", *common]) == 0
    label = ["label", "m", str(folder / "d.csv"), "--id", "id", "--label", "y"]
    assert run(["fairness", *label, *common]) == 0
    return {"store": db, "registry": str(registry)}


STORE_FORMS = "a SQLite path, a postgresql:// URL or an open store (faircode.monitor.store)"
REGISTRY_FORMS = "the path (a str or os.PathLike) of fairness.yaml or of the model's YAML file"
TARGET = (
    "target must be a number in (0, 1], e.g. 0.99 (99% of the measurable attributes within "
    "threshold); got "
)
OUT = "a path or a text stream (open(path, 'a'), io.StringIO())"
TIMEOUT = "timeout must be a number of seconds > 0; got "
SLO = {"model": "m", "name": "s", "target": 0.5}
#: (function, its arguments but the store's, the refusal); each gave a raw exception or
#: was taken silently before (a bool where a number or text goes, 5 as a reason).
STORE_CASES = [
    ("fairness_report", {"model": 5}, "model: 5 is not text"),
    ("fairness_report", {"model": None}, "model: None is not text"),
    ("fairness_report", {"model": "m", "store": 5}, f"store: give {STORE_FORMS}, not an int"),
    (
        "fairness_report",
        {"model": "m", "registry": 5},
        f"registry: give {REGISTRY_FORMS}, not an int",
    ),
    ("fairness_report", {"model": "m", "version": 5}, "version: 5 is not text"),
    ("fairness_report", {"model": "m", "since": 5}, "since: 5 is not text"),
    ("fairness_report", {"model": "m", "until": ["x"]}, "until: ['x'] is not text"),
    ("fairness_report", {"model": "m", "target": "0.5"}, TARGET + "'0.5'"),
    ("fairness_report", {"model": "m", "target": True}, TARGET + "True"),
    ("fairness_report", {"model": "m", "intersect": "no"}, "intersect: no is not true or false"),
    ("slice_metrics", {"model": "m", "attr": 5}, "attr: 5 is not text"),
    ("slice_metrics", {"model": "m", "attr": ["a"]}, "attr: ['a'] is not text"),
    ("fairness_disparity", {"model": "m", "attr": None}, "attr: None is not text"),
    ("fairness_gate", {"model": "m", "force": "no"}, "force: no is not true or false"),
    ("fairness_gate", {"model": "m", "force": True, "reason": 5}, "reason: 5 is not text"),
    ("slo_set", {**SLO, "gate": 1}, "gate: 1 is not true or false"),
    ("slo_set", {**SLO, "gate": "no"}, "gate: no is not true or false"),
    ("slo_set", {**SLO, "reason": 5}, "reason: 5 is not text"),
    ("slo_set", {**SLO, "model": 5}, "model: 5 is not text"),
    ("slo_show", {"model": "m", "at": 5}, "at: 5 is not text"),
    ("slo_ingest", {"model": "m", "at": 5}, "at: 5 is not text"),
    ("slo_gate", {"model": "m", "at": 20250101}, "at: 20250101 is not text"),
    ("slo_gate", {"model": ["m"]}, "model: ['m'] is not text"),
    ("fairness_watch", {"model": "m", "out": 5}, f"out: give {OUT}, not an int"),
    (
        "fairness_watch",
        {"model": "m", "out": io.BytesIO()},
        f"out: the stream takes bytes; give {OUT}",
    ),
    ("fairness_watch", {"model": "m", "webhook": 5}, "webhook: 5 is not text"),
    ("fairness_watch", {"model": "m", "timeout": "x"}, TIMEOUT + "'x'"),
    ("fairness_watch", {"model": "m", "timeout": True}, TIMEOUT + "True"),
]
#: The functions that read no registry.
NO_REGISTRY = ("slo_set", "slo_show", "slo_gate")


def _shown(value: Any) -> str:
    """A test id's text of an argument (a stream by its type: its repr has an address)."""
    return type(value).__name__ if isinstance(value, io.IOBase) else repr(value)


@pytest.mark.parametrize(
    ("function", "kwargs", "message"),
    STORE_CASES,
    ids=[f"{f}-{'-'.join(f'{k}={_shown(v)}' for k, v in kw.items())}" for f, kw, _ in STORE_CASES],
)
def test_the_store_api_refuses_wrongly_typed_arguments(
    store: dict[str, str], function: str, kwargs: dict[str, Any], message: str
) -> None:
    args = {**store, **kwargs}
    if function in NO_REGISTRY:
        del args["registry"]
    _refused(lambda: getattr(monitor, function)(**args), message)


def test_the_store_api_still_takes_paths_and_streams(store: dict[str, str]) -> None:
    """What the checks let through: a path-like store and registry, a text stream, an
    integer target."""
    lines = io.StringIO()
    where = {"store": Path(store["store"]), "registry": Path(store["registry"])}
    assert monitor.fairness_watch("m", **where, out=lines, timeout=5)["model"] == "m"
    assert monitor.fairness_report("m", **where, target=1)["sli"]["target"] == 1


def test_an_unknown_engine_names_every_engine_evaluate_takes() -> None:
    """The message lists the engines `--engine` offers (options.FAIRNESS_ENGINES, spark
    too): it named auto, pandas and fairlearn only."""
    from faircode.options import FAIRNESS_ENGINES

    with pytest.raises(MonitorInputError) as exc:
        evaluate(FRAME, pred="p", attrs=["a"], label="y", engine="polars")
    assert str(exc.value) == "unknown engine 'polars'; use auto, pandas, fairlearn or spark"
    assert FAIRNESS_ENGINES == ("auto", "pandas", "fairlearn", "spark")
