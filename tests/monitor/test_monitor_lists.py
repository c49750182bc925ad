"""The monitor's one metric list and one disparity list against schema.json and the code."""

from __future__ import annotations

import json
from pathlib import Path

from faircode.monitor.disparities import DISPARITIES, KINDS
from faircode.monitor.metrics import METRICS, TASKS, columns, detail_columns, metric_names

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "faircode" / "monitor" / "schema.json").read_text()
)
DEFS = SCHEMA["$defs"]


def test_every_metric_in_the_list_is_in_the_schema_and_back() -> None:
    assert set(DEFS["metric_name"]["enum"]) == set(metric_names())
    props = DEFS["slice"]["properties"]["metrics"]["properties"]
    assert set(props) == set(metric_names())


def test_rate_metrics_are_the_wilson_ones() -> None:
    props = DEFS["slice"]["properties"]["metrics"]["properties"]
    for m in METRICS:
        kind = "rate_metric" if m.wilson else "auc_metric" if m.name == "auc" else "value_metric"
        assert props[m.name]["$ref"] == f"#/$defs/{kind}", m.name


def test_every_disparity_in_the_list_is_in_the_schema_and_back() -> None:
    assert set(DEFS["disparity_name"]["enum"]) == {d.name for d in DISPARITIES}
    assert len({d.name for d in DISPARITIES}) == len(DISPARITIES)


def test_lists_are_consistent() -> None:
    names = set(metric_names())
    for m in METRICS:
        assert m.task in TASKS
        assert m.formula in ("ratio", "sqrt_ratio", "score")
        assert (m.scored is not None) == (m.formula == "score"), m.name
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
        assert d.needs in ("selection", "label", "score")
        for metric in d.metrics:  # each of its metrics exists for the disparity's task(s)
            assert any(m.name == metric and d.task in (None, m.task) for m in METRICS)


def test_every_count_a_metric_reads_is_stored_or_derived() -> None:
    # the store keeps only slice_stats' columns; a metric over any other count would
    # exist in evaluate and be missing (or wrong) in the store's reports
    from faircode.monitor.counts import ALL_ROW_KEYS, BINARY_COUNT_KEYS, REGRESSION_SUM_KEYS
    from faircode.monitor.metrics import DERIVED_COUNTS
    from faircode.monitor.store import STAT_COUNTS, STAT_SUMS

    produced = {
        "binary": set(ALL_ROW_KEYS) | set(BINARY_COUNT_KEYS),
        "regression": set(ALL_ROW_KEYS) | set(REGRESSION_SUM_KEYS),
    }
    assert produced["binary"] | produced["regression"] <= set(STAT_COUNTS) | set(STAT_SUMS)
    for task, keys in produced.items():
        have = set(keys)
        for key, (total, part) in DERIVED_COUNTS.items():  # in order, as counts.py derives
            if total in have and part in have:
                have.add(key)
        for m in METRICS:
            # a score metric reads the score table (scores.py), which the store groups
            # from its predictions
            if m.task == task and m.formula != "score":
                assert {m.numerator, m.denominator} <= have, (task, m.name)


def test_error_rate_table_lists_precision_and_the_error_rates() -> None:
    assert detail_columns("binary") == [
        ("Precision", "precision"),
        ("FNR", "fnr"),
        ("FOR", "for"),
        ("FDR", "fdr"),
        ("NPV", "npv"),
    ]
    assert detail_columns("regression") == []


def test_table_columns_are_todays() -> None:
    assert [h for h, _ in columns("binary")] == ["Accuracy", "Sel.Rate", "TPR", "FPR"]
    assert [h for h, _ in columns("regression")] == [
        "MAE",
        "RMSE",
        "Sel.Rate",
        "Mean pred",
        "Mean label",
    ]


def test_score_metrics_are_one_table_and_auc_range_needs_a_score() -> None:
    from faircode.monitor.metrics import score_columns

    assert score_columns("binary") == [("AUC", "auc"), ("Brier", "brier"), ("ECE", "ece")]
    assert score_columns("regression") == []
    (auc_range,) = [d for d in DISPARITIES if d.needs == "score"]
    assert (auc_range.name, auc_range.metrics, auc_range.gated) == ("auc_range", ("auc",), False)
