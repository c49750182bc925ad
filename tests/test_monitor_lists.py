"""The monitor's one metric list and one disparity list against schema.json and the code."""

from __future__ import annotations

import json
from pathlib import Path

from faircode.monitor.disparities import DISPARITIES, KINDS
from faircode.monitor.metrics import METRICS, TASKS, columns, metric_names

SCHEMA = json.loads(
    (Path(__file__).parent.parent / "faircode" / "monitor" / "schema.json").read_text()
)
DEFS = SCHEMA["$defs"]


def test_every_metric_in_the_list_is_in_the_schema_and_back() -> None:
    assert set(DEFS["metric_name"]["enum"]) == set(metric_names())
    props = DEFS["slice"]["properties"]["metrics"]["properties"]
    assert set(props) == set(metric_names())


def test_rate_metrics_are_the_wilson_ones() -> None:
    props = DEFS["slice"]["properties"]["metrics"]["properties"]
    for m in METRICS:
        kind = "rate_metric" if m.wilson else "value_metric"
        assert props[m.name] == {"$ref": f"#/$defs/{kind}"}, m.name


def test_every_disparity_in_the_list_is_in_the_schema_and_back() -> None:
    assert set(DEFS["disparity_name"]["enum"]) == {d.name for d in DISPARITIES}
    assert len({d.name for d in DISPARITIES}) == len(DISPARITIES)


def test_lists_are_consistent() -> None:
    names = set(metric_names())
    for m in METRICS:
        assert m.task in TASKS
        assert m.formula in ("ratio", "sqrt_ratio")
        assert (m.header is None) == (m.column is None)
    for task in TASKS:
        task_names = [m.name for m in METRICS if m.task == task]
        assert len(task_names) == len(set(task_names)), task
        cols = [m.column for m in METRICS if m.task == task and m.column is not None]
        assert sorted(cols) == list(range(len(cols))), task
        assert columns(task)
    for d in DISPARITIES:
        assert d.kind in KINDS
        assert set(d.metrics) <= names
        assert d.needs in ("selection", "label")
        for metric in d.metrics:  # each of its metrics exists for the disparity's task(s)
            assert any(m.name == metric and d.task in (None, m.task) for m in METRICS)


def test_table_columns_are_todays() -> None:
    assert [h for h, _ in columns("binary")] == ["Accuracy", "Sel.Rate", "TPR", "FPR"]
    assert [h for h, _ in columns("regression")] == [
        "MAE",
        "RMSE",
        "Sel.Rate",
        "Mean pred",
        "Mean label",
    ]
