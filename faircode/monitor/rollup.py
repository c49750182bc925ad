"""``slice_stats``: additive per-cell statistics kept in step with the predictions.

A cell is (model, version, day, attribute codes a0..a7), -1 standing for a missing or
unused attribute. Logging a batch adds its cells' counts; a label adds the difference
between the labelled statistics with the new label and with the old one (none, or a
label it replaces). All of it happens in the ingest transaction, so the table always
equals a ``GROUP BY`` over the stored predictions (:func:`raw_cells` computes that
directly; a test holds the two equal). Reports aggregate this table, not every row.

A weighted model (its predictions logged with ``--weight``, SPEC 15.3) also keeps the
sample-weight sums :data:`WSTATS` per cell; every function here takes ``weighted`` and
touches those columns only then (an unweighted model's stay 0), so an unweighted
model's ingest writes what it wrote before they existed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .store import SLOT_COLUMNS, STAT_COUNTS, STAT_SUMS, STAT_WEIGHTED, Store

STATS = STAT_COUNTS + STAT_SUMS
WSTATS = STAT_WEIGHTED
CELL = ("model", "version", "day", *SLOT_COLUMNS)
_PREDICTION_ONLY = ("n", "n_selected", "n_nonbinary_pred", "w_n", "w2_n", "w_n_selected")


def stats(weighted: bool) -> tuple[str, ...]:
    """The slice_stats columns a model keeps: the counts and sums, and with sample
    weights the weighted sums too."""
    return STATS + WSTATS if weighted else STATS


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


def _w(cond: str, value: str) -> str:
    return f"CASE WHEN {cond} THEN {value} ELSE 0 END"


def weighted_label_exprs(p: str, y: str, w: str) -> dict[str, str]:
    """Per-row SQL expressions of the labelled weighted sums (``w`` the row's weight),
    the products ``counts.counts_from_rows`` forms (``w * part``, ``w * w * part``), so
    that each row's term is the same double; a class is "not 1" as there (``<> 1``)."""
    w2 = f"{w} * {w}"
    conds = {
        "n_labelled": f"{y} IS NOT NULL",
        "n_correct": f"{y} = {p}",
        "n_label_pos": f"{y} = 1",
        "n_label_neg": f"{y} <> 1",
        "n_tp": f"{y} = 1 AND {p} = 1",
        "n_fp": f"{y} <> 1 AND {p} = 1",
        "n_fn": f"{y} = 1 AND {p} <> 1",
        "n_tn": f"{y} <> 1 AND {p} <> 1",
        "n_pred_pos_labelled": f"{y} IS NOT NULL AND {p} = 1",
        "n_pred_neg_labelled": f"{y} IS NOT NULL AND {p} <> 1",
    }
    out: dict[str, str] = {}
    for key, cond in conds.items():
        out[f"w_{key}"] = _w(cond, w)
        if f"w2_{key}" in WSTATS:
            out[f"w2_{key}"] = _w(cond, w2)
    out.update(
        {
            "w_sum_abs_error": f"COALESCE({w} * ABS({p} - {y}), 0)",
            "w_sum_sq_error": f"COALESCE({w} * (({p} - {y}) * ({p} - {y})), 0)",
            "w_sum_pred_labelled": _w(f"{y} IS NOT NULL", f"{w} * {p}"),
            "w_sum_label": f"COALESCE({w} * {y}, 0)",
        }
    )
    return out


def weighted_prediction_exprs(p: str, w: str) -> dict[str, str]:
    return {"w_n": w, "w2_n": f"{w} * {w}", "w_n_selected": _w(f"{p} = 1", w)}


def row_exprs(p: str, y: str, w: str, weighted: bool) -> dict[str, str]:
    """Every statistic of a row (prediction ``p``, label ``y``, weight ``w``)."""
    out = {**prediction_exprs(p), **label_exprs(p, y)}
    if weighted:
        out.update({**weighted_prediction_exprs(p, w), **weighted_label_exprs(p, y, w)})
    return out


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


def _upsert(select_sql: str, columns: tuple[str, ...] = STATS) -> str:
    cols = ", ".join((*CELL, *columns))
    update = ", ".join(f"{c} = slice_stats.{c} + excluded.{c}" for c in columns)
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
    weight: np.ndarray | None = None,
) -> None:
    """Add a prediction batch's cells (every row newly inserted, none labelled yet);
    with ``weight`` (a weighted model) their weighted sums too."""
    n = len(day)
    frame = pd.DataFrame({"day": day})
    for s, col in enumerate(SLOT_COLUMNS):
        frame[col] = codes[s] if s in codes else np.full(n, -1, dtype=np.int64)
    frame["n"] = 1
    frame["n_selected"] = (pred == 1).astype(np.int64)
    frame["n_nonbinary_pred"] = (~np.isin(pred, (0.0, 1.0))).astype(np.int64)
    added = ["n", "n_selected", "n_nonbinary_pred"]
    if weight is not None:  # the terms of counts.counts_from_rows: w, w * w, w * selected
        frame["w_n"] = weight
        frame["w2_n"] = weight * weight
        frame["w_n_selected"] = weight * (pred == 1)
        added += ["w_n", "w2_n", "w_n_selected"]
    cells = frame.groupby(["day", *SLOT_COLUMNS], sort=False)[added].sum()
    columns = stats(weight is not None)
    rows = []
    for idx, values in zip(cells.index.tolist(), cells.to_numpy().tolist()):
        row: dict[str, Any] = dict.fromkeys(columns, 0)
        row.update(zip(added, values))
        for c in STAT_COUNTS:
            row[c] = int(row[c])
        for c in columns[len(STAT_COUNTS) :]:
            row[c] = float(row[c])
        rows.append((key, version, *[int(v) for v in idx], *[row[c] for c in columns]))
    marks = ", ".join("?" for _ in (*CELL, *columns))
    store.executemany(_upsert(f"VALUES ({marks})", columns), rows)


def add_label_delta(
    store: Store,
    key: str,
    source: str,
    params: tuple[Any, ...],
    weighted: bool = False,
    fresh: bool = False,
) -> tuple[int, int]:
    """Add, per cell, new-label minus old-label statistics for labels about to be written.

    ``source`` is a FROM fragment joining the incoming labels ``t`` (columns
    ``request_id``, ``label``) to ``predictions p``; ``params`` fill its placeholders.
    Call it before the predictions' labels change. Returns how many stored labels the
    incoming ones replace with a different value, and how many joined predictions had
    a label already (one pass over the join for all of it). With ``fresh``, the joined
    predictions had no label before ``t``'s (they were written with it, in this
    transaction): the delta is the labels' statistics alone, whenever it is called.

    A weighted model whose stored labels are re-sent must then :func:`rebuild` its
    cells: subtracting a float sum of weights can leave a residue where the exact sum
    is 0 (a class whose remaining rows all weigh 0), which would turn an undefined
    weighted rate into a defined one.
    """
    new = row_exprs("p.pred", "t.label", "p.weight", weighted)
    old = row_exprs("p.pred", "p.label", "p.weight", weighted)
    columns = [c for c in stats(weighted) if c not in _PREDICTION_ONLY]
    used = {int(r[0]) for r in store.query("SELECT slot FROM attributes WHERE model = ?", (key,))}
    cell, group = _cell_select("p", used)
    if fresh:
        deltas = [f"SUM({new[c]})" for c in columns]
        replaced = relabelled = "0"
    else:
        deltas = [f"SUM({new[c]}) - SUM({old[c]})" for c in columns]
        replaced = "SUM(CASE WHEN p.label IS NOT NULL AND p.label <> t.label THEN 1 ELSE 0 END)"
        relabelled = "SUM(CASE WHEN p.label IS NOT NULL THEN 1 ELSE 0 END)"
    rows = store.query(
        f"SELECT {cell}, {', '.join(deltas)}, {replaced}, {relabelled} FROM {source} "
        f"AND p.model = ? GROUP BY {group}",
        (*params, key),
    )
    everything = stats(weighted)
    marks = ", ".join("?" for _ in (*CELL, *everything))
    n_cell = len(CELL)
    values = []
    for r in rows:
        delta = dict(zip(columns, r[n_cell:-2]))
        values.append((*r[:n_cell], *[delta.get(c, 0) for c in everything]))
    store.executemany(_upsert(f"VALUES ({marks})", everything), values)
    replaced_n = int(sum(int(r[-2] or 0) for r in rows))
    relabelled_n = int(sum(int(r[-1] or 0) for r in rows))
    return replaced_n, relabelled_n


#: SQLite's tally of a label batch (write_labels_counted): its rows per cell and (pred,
#: old label, new label), counted as the UPDATE writes them.
_TALLY = "faircode_label_tally"
#: The SQL functions through which the UPDATE hands each row it writes to the tally:
#: its values (the general case), or one integer packing them (:class:`_Packing`).
_TALLY_FUNCTION = "faircode_label_tally_row"
_PACKED_FUNCTION = "faircode_label_tally_key"
#: Versions a packed key tells apart (by a CASE on each row written).
_PACK_VERSIONS = 16


@dataclass(frozen=True)
class Incoming:
    """Where a SQLite statement reads a label batch's rows from: the temporary table
    ``incoming_labels`` (``request_id``, ``label``), or, with ``ids``, a JSON array of
    request ids that all get the label ``value`` (read by ``json_each``, so no row is
    bound one by one)."""

    value: float = 0.0
    ids: str | None = None
    count: int = 0

    def rows(self) -> tuple[str, tuple[Any, ...]]:
        """A SELECT of (request_id, label) and its parameters."""
        if self.ids is None:
            return "SELECT request_id, label FROM incoming_labels", ()
        return "SELECT value AS request_id, ? AS label FROM json_each(?)", (self.value, self.ids)

    def request_ids(self) -> tuple[str, tuple[Any, ...]]:
        """A SELECT of the request ids and its parameters."""
        if self.ids is None:
            return "SELECT request_id FROM incoming_labels", ()
        return "SELECT value FROM json_each(?)", (self.ids,)

    def label_of_row(self) -> tuple[str, tuple[Any, ...]]:
        """The incoming label of the ``predictions`` row an UPDATE is writing."""
        if self.ids is None:
            return (
                "(SELECT t.label FROM incoming_labels t "
                "WHERE t.request_id = predictions.request_id)",
                (),
            )
        return "?", (self.value,)


@dataclass(frozen=True)
class _Packing:
    """For a model whose stored predictions and labels are all 0 or 1 (its
    ``slice_stats`` count no other): a SQL expression giving each row, before the
    UPDATE writes it, one integer that packs (version, day, the used slots' codes,
    prediction, old label) in mixed radix, and its inverse. Counting these integers
    needs no Python code per row (``list.append`` is the SQL function)."""

    sql: str
    versions: tuple[str, ...]
    first_day: int
    radices: tuple[int, ...]  # days, then each used slot's codes (+ 1 for -1)

    def unpack(self, packed: int) -> tuple[Any, ...]:
        """(version, day, codes..., prediction, old label or None) of a packed key."""
        rest, old = divmod(packed, 3)
        rest, pred = divmod(rest, 2)
        codes = []
        for radix in reversed(self.radices[1:]):
            rest, code = divmod(rest, radix)
            codes.append(code - 1)
        version, day = divmod(rest, self.radices[0])
        return (
            self.versions[version],
            day + self.first_day,
            *reversed(codes),
            float(pred),
            None if old == 2 else float(old),
        )


def _packing(store: Store, key: str, used: list[int]) -> _Packing | None:
    """The packing of ``key``'s rows (:class:`_Packing`), or None when a stored
    prediction or label is other than 0/1, it has more than _PACK_VERSIONS versions,
    or the key would not fit 62 bits."""
    first, last, odd_pred, odd_label = store.execute(
        "SELECT MIN(day), MAX(day), SUM(n_nonbinary_pred), SUM(n_nonbinary_label) "
        "FROM slice_stats WHERE model = ?",
        (key,),
    ).fetchone()
    if first is None or odd_pred or odd_label:
        return None
    versions = tuple(
        str(r[0])
        for r in store.query(
            "SELECT DISTINCT version FROM slice_stats WHERE model = ? ORDER BY version", (key,)
        )
    )
    if len(versions) > _PACK_VERSIONS:
        return None
    top = dict(
        store.query("SELECT slot, MAX(code) FROM attr_values WHERE model = ? GROUP BY slot", (key,))
    )
    radices = (int(last) - int(first) + 1, *(int(top.get(s, -1)) + 2 for s in used))
    if len(versions) * math.prod(radices) * 6 >= 1 << 62:
        return None
    version = "CASE version " + " ".join(
        f"WHEN {_text(v)} THEN {i}" for i, v in enumerate(versions)
    )
    # a day outside the stored range (never) makes the key NULL: the counts are refused
    day = f"CASE WHEN day BETWEEN {int(first)} AND {int(last)} THEN day - {int(first)} END"
    sql = f"({version} END) * {radices[0]} + {day}"
    for s, radix in zip(used, radices[1:]):
        sql = f"({sql}) * {radix} + COALESCE({SLOT_COLUMNS[s]}, -1) + 1"
    sql = f"(({sql}) * 2 + CAST(pred AS INTEGER)) * 3 + COALESCE(CAST(label AS INTEGER), 2)"
    return _Packing(sql, versions, int(first), radices)


def _text(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def write_labels_counted(
    store: Store,
    key: str,
    now: int,
    batch: int,
    parts: list[Incoming],
    progress: Callable[[int], None] | None = None,
) -> tuple[int, int]:
    """SQLite, unweighted model: write the labels of ``parts`` to their predictions and
    add their statistics' delta to ``slice_stats``, in one pass over the predictions.
    Returns (predictions labelled, labels replaced with a different value).

    Each part's UPDATE walks its request ids in order and finds each prediction by the
    primary key, so its cost grows with the batch, not with the store. A SQL function in
    its SET sees each row before it is written and counts the rows per (cell,
    prediction, old label, new label): a Python function of the row's values, or, for a
    part of one label value in a model whose stored predictions and labels are all 0/1,
    ``list.append`` of one integer packing them (:class:`_Packing`, no Python code per
    row). So no other pass over the predictions is needed and nothing sorts the batch
    (unlike a ``GROUP BY`` over the join), at less cost than the ``AFTER UPDATE``
    trigger this replaced (a trigger program and an upsert per row). Should the counts
    not add up to the rows written, the model's cells are rebuilt from its predictions
    instead. The counts go to a small table; the delta per cell
    is then :func:`label_exprs` of each distinct (prediction, old, new) times its count,
    the same integers as summing the rows for 0/1 values (floats within 1e-12 otherwise,
    as SPEC 15.1 holds regression sums). ``progress`` gets the rows written after each
    part. :func:`add_label_delta` is the general path (PostgreSQL, weighted models).
    """
    used = used_slots(store, key)
    counts: Counter[tuple[Any, ...]] = Counter()

    def tally(*row: Any) -> Any:
        # (version, day, the used slots' codes, pred, old label or None, new label)
        counts[row] += 1
        return row[-1]

    codes = "".join(f"COALESCE({SLOT_COLUMNS[s]}, -1), " for s in used)
    arity = len(used) + 5
    packing = _packing(store, key, used)
    keys: list[Any] = []
    joined = 0
    sound = True
    # not deterministic: SQLite calls them once for each row the UPDATE writes
    store.conn.create_function(_TALLY_FUNCTION, arity, tally)
    store.conn.create_function(_PACKED_FUNCTION, 1, keys.append)
    try:
        for part in parts:
            ids, ids_params = part.request_ids()
            if packing is not None and part.ids is not None:
                # one label value: the new label is a constant, the rest is the key
                written = store.execute(
                    f"UPDATE predictions SET label = ?, labelled_at = "
                    f"COALESCE({_PACKED_FUNCTION}({packing.sql}), ?), label_batch = ? "
                    f"WHERE model = ? AND request_id IN ({ids})",
                    (part.value, now, batch, key, *ids_params),
                ).rowcount
                try:
                    for packed, n in Counter(keys).items():
                        counts[(*packing.unpack(packed), part.value)] += n
                except (TypeError, IndexError):  # a key out of the packing's ranges
                    sound = False
                keys.clear()
            else:
                label, label_params = part.label_of_row()
                written = store.execute(
                    f"UPDATE predictions SET label = {_TALLY_FUNCTION}(version, day, {codes}"
                    f"pred, label, {label}), labelled_at = ?, label_batch = ? "
                    f"WHERE model = ? AND request_id IN ({ids})",
                    (*label_params, now, batch, key, *ids_params),
                ).rowcount
            joined += written
            if progress is not None:
                progress(part.count)
    finally:
        store.conn.create_function(_TALLY_FUNCTION, arity, None)
        store.conn.create_function(_PACKED_FUNCTION, 1, None)
    if not sound or sum(counts.values()) != joined:
        # never seen; should SQLite ever call a function other than once a row, the
        # statistics are recounted from the predictions rather than trusted
        rebuild(store, key)
        return joined, _replaced(counts)
    add_counted(store, key, used, counts)
    return joined, _replaced(counts)


def used_slots(store: Store, key: str) -> list[int]:
    """The model's attribute slots, in order: the others are NULL in every row (-1 in
    the cells)."""
    return sorted(
        int(r[0]) for r in store.query("SELECT slot FROM attributes WHERE model = ?", (key,))
    )


def add_counted(store: Store, key: str, used: list[int], counts: Counter[tuple[Any, ...]]) -> None:
    """SQLite, unweighted model: add to ``slice_stats`` the delta of labels written to
    predictions, given as rows counted per (version, day, the ``used`` slots' codes,
    prediction, old label or None, new label): :func:`label_exprs` of each distinct
    combination times its count."""
    slots = ", ".join(SLOT_COLUMNS)
    key_cols = f"version, day, {slots}, pred, has_old, old, new"
    store.execute(
        f"CREATE TEMP TABLE IF NOT EXISTS {_TALLY} (version TEXT NOT NULL, day INTEGER NOT "
        "NULL, "
        + ", ".join(f"{c} INTEGER NOT NULL" for c in SLOT_COLUMNS)
        + ", pred REAL NOT NULL, has_old INTEGER NOT NULL, old REAL NOT NULL, "
        f"new REAL NOT NULL, cnt INTEGER NOT NULL, UNIQUE ({key_cols}))"
    )
    store.execute(f"DELETE FROM {_TALLY}")
    rows = []
    for (version, day, *rest), n in counts.items():
        slots = [-1] * len(SLOT_COLUMNS)
        for s, code in zip(used, rest):
            slots[s] = code
        pred, old, new = rest[-3:]
        has_old = old is not None
        rows.append((version, day, *slots, pred, int(has_old), old if has_old else 0.0, new, n))
    store.executemany(
        f"INSERT INTO {_TALLY} ({key_cols}, cnt) VALUES ({', '.join('?' * 15)})", rows
    )
    new = label_exprs("g.pred", "g.new")
    old = label_exprs("g.pred", "(CASE WHEN g.has_old = 1 THEN g.old END)")
    columns = [c for c in STATS if c not in _PREDICTION_ONLY]
    deltas = [f"SUM(g.cnt * ({new[c]})) - SUM(g.cnt * ({old[c]}))" for c in columns]
    cell = ", ".join(f"g.{c}" for c in ("version", "day", *SLOT_COLUMNS))
    rows = store.query(
        f"SELECT ?, {cell}, {', '.join(deltas)} FROM {_TALLY} g GROUP BY {cell}", (key,)
    )
    marks = ", ".join("?" for _ in (*CELL, *STATS))
    n_cell = len(CELL)
    values = []
    for r in rows:
        delta = dict(zip(columns, r[n_cell:]))
        values.append((*r[:n_cell], *[delta.get(c, 0) for c in STATS]))
    store.executemany(_upsert(f"VALUES ({marks})", STATS), values)
    store.execute(f"DELETE FROM {_TALLY}")


def _replaced(counts: Counter[tuple[Any, ...]]) -> int:
    """Rows of a tally whose stored label was replaced with a different value."""
    return sum(n for row, n in counts.items() if row[-2] is not None and row[-2] != row[-1])


def rebuild(store: Store, key: str, weighted: bool = False) -> None:
    """Recompute a model's cells from its predictions (after an overlapping batch, a
    removed batch, or re-sent labels of a weighted model)."""
    store.execute("DELETE FROM slice_stats WHERE model = ?", (key,))
    columns = stats(weighted)
    exprs = row_exprs("pred", "label", "weight", weighted)
    cell, group = _cell_select("predictions")
    sums = ", ".join(f"SUM({exprs[c]})" for c in columns)
    store.execute(
        f"INSERT INTO slice_stats ({', '.join((*CELL, *columns))}) SELECT {cell}, {sums} "
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
    weighted: bool = False,
) -> pd.DataFrame:
    """Statistics per (the given attribute slots, day) of a version, from slice_stats
    (with ``weighted``, the weighted sums too)."""
    columns = stats(weighted)
    dims = [SLOT_COLUMNS[s] for s in slots] + ["day"]
    where = "model = ? AND version = ?"
    params: list[Any] = [key, version]
    if first_day is not None:
        where += " AND day >= ?"
        params.append(first_day)
    if end_day is not None:
        where += " AND day < ?"
        params.append(end_day)
    select = ", ".join(dims + [f"{_sum(store, c)} AS {c}" for c in columns])
    rows = store.query(
        f"SELECT {select} FROM slice_stats WHERE {where} GROUP BY {', '.join(dims)}", params
    )
    return _frame(rows, dims, columns)


def raw_cells(
    store: Store, key: str, slots: list[int], version: str, weighted: bool = False
) -> pd.DataFrame:
    """The same statistics by a GROUP BY over every stored prediction (for checking)."""
    columns = stats(weighted)
    dims = [f"COALESCE({SLOT_COLUMNS[s]}, -1)" for s in slots] + ["day"]
    exprs = row_exprs("pred", "label", "weight", weighted)
    select = ", ".join(
        [f"{d} AS {SLOT_COLUMNS[s]}" for d, s in zip(dims, slots)]
        + ["day"]
        + [
            f"{'CAST(' if c in STAT_COUNTS else ''}SUM({exprs[c]})"
            f"{' AS BIGINT)' if c in STAT_COUNTS else ''} AS {c}"
            for c in columns
        ]
    )
    rows = store.query(
        f"SELECT {select} FROM predictions WHERE model = ? AND version = ? "
        f"GROUP BY {', '.join(dims)}",
        (key, version),
    )
    return _frame(rows, [SLOT_COLUMNS[s] for s in slots] + ["day"], columns)


def _frame(
    rows: list[tuple[Any, ...]], dims: list[str], columns: tuple[str, ...] = STATS
) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows, columns=[*dims, *columns])
    for c in columns:
        frame[c] = pd.to_numeric(frame[c]).fillna(0).astype("float64")
    for d in dims:
        frame[d] = pd.to_numeric(frame[d]).astype("int64")
    return frame


def row_bucket_cells(
    store: Store,
    key: str,
    slots: list[int],
    version: str,
    first_day: int | None,
    end_day: int | None,
    size: int,
    weighted: bool = False,
) -> pd.DataFrame:
    """Statistics per (the given attribute slots, bucket of ``size`` consecutive
    predictions) of a version in a window of days, by one ``GROUP BY`` over the stored
    predictions (SPEC 15.5, ``--bucket N-rows``).

    The predictions are numbered in time order (``at``), ties by request id compared
    bytewise (SQLite's BINARY collation, PostgreSQL's ``"C"``), so both stores number
    them alike; bucket ``b`` (from 0) holds rows ``b * size + 1 .. (b + 1) * size``.
    Each group also carries the first and last day of its rows and their positions.
    """
    columns = stats(weighted)
    exprs = row_exprs("pred", "label", "weight", weighted)
    rid = 'request_id COLLATE "C"' if store.dialect == "postgresql" else "request_id"
    where = "model = ? AND version = ?"
    params: list[Any] = [key, version]
    if first_day is not None:
        where += " AND day >= ?"
        params.append(first_day)
    if end_day is not None:
        where += " AND day < ?"
        params.append(end_day)
    dims = [f"COALESCE({SLOT_COLUMNS[s]}, -1)" for s in slots]
    select = ", ".join(
        [f"{d} AS {SLOT_COLUMNS[s]}" for d, s in zip(dims, slots, strict=True)]
        + ["bucket", "MIN(day)", "MAX(day)", "MIN(pos)", "MAX(pos)"]
        + [
            f"{'CAST(' if c in STAT_COUNTS else ''}SUM({exprs[c]})"
            f"{' AS BIGINT)' if c in STAT_COUNTS else ''} AS {c}"
            for c in columns
        ]
    )
    numbered = (
        f"SELECT *, ROW_NUMBER() OVER (ORDER BY at, {rid}) AS pos FROM predictions WHERE {where}"
    )
    bucketed = f"SELECT *, (pos - 1) / {int(size)} AS bucket FROM ({numbered}) numbered"
    rows = store.query(
        f"SELECT {select} FROM ({bucketed}) bucketed "  # noqa: S608
        f"GROUP BY {', '.join([*dims, 'bucket'])}",
        params,
    )
    dims_out = [SLOT_COLUMNS[s] for s in slots] + [
        "bucket",
        "first_day",
        "last_day",
        "first_row",
        "last_row",
    ]
    return _frame(rows, dims_out, columns)
