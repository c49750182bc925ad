"""``slice_stats``: additive per-cell statistics kept in step with the predictions.

A cell is (model, version, day, attribute codes a0..a7), -1 standing for a missing or
unused attribute. Logging a batch adds its cells' counts; a label adds the difference
between the labelled statistics with the new label and with the old one (none, or a
label it replaces). All of it happens in the ingest transaction, so the table always
equals a ``GROUP BY`` over the stored predictions (:func:`raw_cells` computes that
directly; a test holds the two equal). Reports aggregate this table, not every row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .store import SLOT_COLUMNS, STAT_COUNTS, STAT_SUMS, Store

STATS = STAT_COUNTS + STAT_SUMS
CELL = ("model", "version", "day", *SLOT_COLUMNS)
_PREDICTION_ONLY = ("n", "n_selected", "n_nonbinary_pred")


def _one(cond: str) -> str:
    return f"CASE WHEN {cond} THEN 1 ELSE 0 END"


def label_exprs(p: str, y: str) -> dict[str, str]:
    """Per-row SQL expressions of the labelled statistics for prediction ``p``, label ``y``.

    ``y`` may be NULL (no label): every expression is then 0.
    """
    return {
        "n_labelled": _one(f"{y} IS NOT NULL"),
        "n_nonbinary_label": _one(f"{y} IS NOT NULL AND {y} <> 0 AND {y} <> 1"),
        "n_correct": _one(f"{y} = {p}"),
        "n_label_pos": _one(f"{y} = 1"),
        "n_tp": _one(f"{y} = 1 AND {p} = 1"),
        "n_fp": _one(f"{y} = 0 AND {p} = 1"),
        "n_pred_pos_labelled": _one(f"{y} IS NOT NULL AND {p} = 1"),
        "sum_abs_error": f"COALESCE(ABS({p} - {y}), 0)",
        "sum_sq_error": f"COALESCE(({p} - {y}) * ({p} - {y}), 0)",
        "sum_pred_labelled": f"CASE WHEN {y} IS NOT NULL THEN {p} ELSE 0 END",
        "sum_label": f"COALESCE({y}, 0)",
    }


def prediction_exprs(p: str) -> dict[str, str]:
    return {
        "n": "1",
        "n_selected": _one(f"{p} = 1"),
        "n_nonbinary_pred": f"CASE WHEN {p} = 0 OR {p} = 1 THEN 0 ELSE 1 END",
    }


def _cell_select(alias: str, used: set[int] | None = None) -> tuple[str, str]:
    """(select list, group-by list) of a cell from predictions aliased ``alias``.

    Slots outside ``used`` (the model's assigned slots) are never written, so they are
    the constant -1 and stay out of the GROUP BY (a shorter sort key).
    """
    slots = [
        f"COALESCE({alias}.{c}, -1)" if used is None or i in used else "-1"
        for i, c in enumerate(SLOT_COLUMNS)
    ]
    cols = [f"{alias}.model", f"{alias}.version", f"{alias}.day", *slots]
    group = [c for c in cols if c != "-1"]
    return ", ".join(cols), ", ".join(group)


def _upsert(select_sql: str) -> str:
    cols = ", ".join((*CELL, *STATS))
    update = ", ".join(f"{c} = slice_stats.{c} + excluded.{c}" for c in STATS)
    return (
        f"INSERT INTO slice_stats ({cols}) {select_sql} "
        f"ON CONFLICT ({', '.join(CELL)}) DO UPDATE SET {update}"
    )


def add_batch(
    store: Store,
    key: str,
    version: str,
    day: np.ndarray,
    codes: dict[int, np.ndarray],
    pred: np.ndarray,
) -> None:
    """Add a prediction batch's cells (every row newly inserted, none labelled yet)."""
    n = len(day)
    frame = pd.DataFrame({"day": day})
    for s, col in enumerate(SLOT_COLUMNS):
        frame[col] = codes[s] if s in codes else np.full(n, -1, dtype=np.int64)
    frame["n"] = 1
    frame["n_selected"] = (pred == 1).astype(np.int64)
    frame["n_nonbinary_pred"] = (~np.isin(pred, (0.0, 1.0))).astype(np.int64)
    cells = frame.groupby(["day", *SLOT_COLUMNS], sort=False)[list(_PREDICTION_ONLY)].sum()
    rows = []
    zeros_counts = [0] * (len(STAT_COUNTS) - len(_PREDICTION_ONLY))
    zeros_sums = [0.0] * len(STAT_SUMS)
    for idx, values in zip(cells.index.tolist(), cells.to_numpy().tolist()):
        rows.append(
            (
                key,
                version,
                *[int(v) for v in idx],
                *[int(v) for v in values],
                *zeros_counts,
                *zeros_sums,
            )
        )
    marks = ", ".join("?" for _ in (*CELL, *STATS))
    store.executemany(_upsert(f"VALUES ({marks})"), rows)


def add_label_delta(store: Store, key: str, source: str, params: tuple[Any, ...]) -> int:
    """Add, per cell, new-label minus old-label statistics for labels about to be written.

    ``source`` is a FROM fragment joining the incoming labels ``t`` (columns
    ``request_id``, ``label``) to ``predictions p``; ``params`` fill its placeholders.
    Call it before the predictions' labels change. Returns how many stored labels the
    incoming ones replace with a different value (one pass over the join for both).
    """
    new = label_exprs("p.pred", "t.label")
    old = label_exprs("p.pred", "p.label")
    used = {int(r[0]) for r in store.query("SELECT slot FROM attributes WHERE model = ?", (key,))}
    cell, group = _cell_select("p", used)
    deltas = [f"SUM({new[c]}) - SUM({old[c]})" for c in STATS if c not in _PREDICTION_ONLY]
    replaced = "SUM(CASE WHEN p.label IS NOT NULL AND p.label <> t.label THEN 1 ELSE 0 END)"
    rows = store.query(
        f"SELECT {cell}, {', '.join(deltas)}, {replaced} FROM {source} AND p.model = ? "
        f"GROUP BY {group}",
        (*params, key),
    )
    marks = ", ".join("?" for _ in (*CELL, *STATS))
    zeros = (0,) * len(_PREDICTION_ONLY)
    n_cell = len(CELL)
    values = [(*r[:n_cell], *zeros, *r[n_cell:-1]) for r in rows]
    store.executemany(_upsert(f"VALUES ({marks})"), values)
    return int(sum(int(r[-1] or 0) for r in rows))


def rebuild(store: Store, key: str) -> None:
    """Recompute a model's cells from its predictions (after an overlapping batch)."""
    store.execute("DELETE FROM slice_stats WHERE model = ?", (key,))
    exprs = {**prediction_exprs("pred"), **label_exprs("pred", "label")}
    cell, group = _cell_select("predictions")
    stats = ", ".join(f"SUM({exprs[c]})" for c in STATS)
    store.execute(
        f"INSERT INTO slice_stats ({', '.join((*CELL, *STATS))}) SELECT {cell}, {stats} "
        f"FROM predictions WHERE predictions.model = ? GROUP BY {group}",  # noqa: S608
        (key,),
    )


def _sum(store: Store, col: str) -> str:
    if col in STAT_COUNTS:
        return f"CAST(SUM({col}) AS BIGINT)"
    return f"SUM({col})"


def cells(
    store: Store,
    key: str,
    slots: list[int],
    version: str,
    first_day: int | None,
    end_day: int | None,
) -> pd.DataFrame:
    """Statistics per (the given attribute slots, day) of a version, from slice_stats."""
    dims = [SLOT_COLUMNS[s] for s in slots] + ["day"]
    where = "model = ? AND version = ?"
    params: list[Any] = [key, version]
    if first_day is not None:
        where += " AND day >= ?"
        params.append(first_day)
    if end_day is not None:
        where += " AND day < ?"
        params.append(end_day)
    select = ", ".join(dims + [f"{_sum(store, c)} AS {c}" for c in STATS])
    rows = store.query(
        f"SELECT {select} FROM slice_stats WHERE {where} GROUP BY {', '.join(dims)}", params
    )
    return _frame(rows, dims)


def raw_cells(store: Store, key: str, slots: list[int], version: str) -> pd.DataFrame:
    """The same statistics by a GROUP BY over every stored prediction (for checking)."""
    dims = [f"COALESCE({SLOT_COLUMNS[s]}, -1)" for s in slots] + ["day"]
    exprs = {**prediction_exprs("pred"), **label_exprs("pred", "label")}
    select = ", ".join(
        [f"{d} AS {SLOT_COLUMNS[s]}" for d, s in zip(dims, slots)]
        + ["day"]
        + [
            f"{'CAST(' if c in STAT_COUNTS else ''}SUM({exprs[c]})"
            f"{' AS BIGINT)' if c in STAT_COUNTS else ''} AS {c}"
            for c in STATS
        ]
    )
    rows = store.query(
        f"SELECT {select} FROM predictions WHERE model = ? AND version = ? "
        f"GROUP BY {', '.join(dims)}",
        (key, version),
    )
    return _frame(rows, [SLOT_COLUMNS[s] for s in slots] + ["day"])


def _frame(rows: list[tuple[Any, ...]], dims: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows, columns=[*dims, *STATS])
    for c in STATS:
        frame[c] = pd.to_numeric(frame[c]).fillna(0).astype("float64")
    for d in dims:
        frame[d] = pd.to_numeric(frame[d]).astype("int64")
    return frame
