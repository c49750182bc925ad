"""``fairness log`` and ``fairness label``: prediction and label batches into the store.

A batch is one transaction: it is written entirely or not at all, and a bad row
rejects the whole batch with a message naming its line. Predictions and labels are
joined per request id: a prediction is (model, version, request id), and a label joins
every version's prediction of its request; a label with no prediction is kept as an
orphan and joins its predictions when they arrive. Re-sending a batch changes nothing:
the batch's digest is recognised, and a prediction already stored under its version
and request id is kept.

What a report needs is checked here, so the store never holds a row its reports cannot
use (SPEC 15.3): magnitudes within evaluate's +-1e100, times within the ISO-8601 years
0001..9999 (epoch seconds too), and 0/1 labels (and predictions) for a binary model,
the task declared in the registry or inferred from the version's predictions.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..labels import TRIMMED
from ..options import spelled
from . import rollup
from .errors import MonitorInputError
from .inputs import MAX_MAGNITUDE, number_cells, weights_of
from .io import check_encoding, file_format, is_utf8, read_table
from .slices import _native, _typed, as_labelled, is_mixed
from .store import ATTR_SLOTS, INT_RANGE, SLOT_COLUMNS, Store, model_key

CHUNK_ROWS = 50_000
Progress = Callable[[int, int], None] | None
#: Epoch seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the ISO-8601 years a
#: report can name as days (Python's date range).
MIN_EPOCH = -62_135_596_800
MAX_EPOCH = 253_402_300_799
NOT_WRITTEN = "the batch was not written"
#: SQLite writes an unweighted model's labels in one pass (rollup.write_labels_counted),
#: and counts the labels a prediction batch takes from another version from the batch in
#: memory (_Copied.add_stats); False takes the general path (the statistics' delta by a
#: GROUP BY over the join), which benchmarks/bench_store.py --label-baseline times.
SQLITE_ONE_PASS_LABELS = True


def _where(fmt: str, index: int) -> str:
    """Where row ``index`` (0-based, data rows) sits in its file, for messages."""
    if fmt == "csv":
        return f"line {index + 2}"  # the header is line 1
    if fmt == "jsonl":
        return f"line {index + 1}"
    return f"row {index + 1}"


def _at(fmt: str, index: int, ids: list[str] | None) -> str:
    """``line N`` of a row, with its request id when the ids are known."""
    rid = f" (request id {ids[index]!r})" if ids is not None else ""
    return _where(fmt, index) + rid


def _digest(path: Path, options: dict[str, Any]) -> str:
    h = hashlib.sha256(json.dumps(options, sort_keys=True).encode())
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _plain_ids(series: pd.Series) -> list[str] | None:
    """The request ids of a column of text cells (CSV) when none can be missing,
    repeated or trimmed: every cell a non-empty run of printable ASCII other than space
    (so no cell is blank, whatever counts as whitespace, and none has a space or tab to
    trim), all distinct. None otherwise: then :func:`_ids` trims and checks them cell by
    cell and names the line."""
    if series.dtype != object:
        return None
    ids = series.tolist()
    try:
        joined = "".join(ids)
    except TypeError:  # not all text
        return None
    if not (joined.isascii() and joined.isprintable()) or " " in joined:
        return None
    seen = set(ids)
    if len(seen) != len(ids) or "" in seen:
        return None
    return ids


def _ids(series: pd.Series, column: str, fmt: str, source: str) -> list[str]:
    """The request ids of a batch as text (SPEC 15.3): a text cell trimmed of ASCII
    space/tab as every cell is (12.1), an integer-valued float ``7.0`` written ``7``;
    an empty id or one given twice is refused naming its line."""
    plain = _plain_ids(series)
    if plain is not None:
        return plain
    missing = series.isna().to_numpy()
    if pd.api.types.is_float_dtype(series.dtype):
        whole = series.dropna()
        if (whole == np.floor(whole)).all():  # 7.0 read back from a column with gaps
            series = series.astype("Int64")
    integer = pd.api.types.is_integer_dtype(series.dtype)
    text = series.astype("string")
    if not integer:
        # ' 21' in `label, id` / `1, 21` is the id 21 (SPEC 15.3), as evaluate reads it
        text = text.str.strip(TRIMMED)
    if not missing.any() and not integer:
        missing = (text.str.strip() == "").to_numpy(dtype=bool, na_value=True)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise MonitorInputError(
            f"{source}: {_where(fmt, i)}: request id column {column!r} is empty; every row "
            "needs its request id (the batch was not written)"
        )
    # integers are compared as integers (much cheaper than hashing their text)
    dup = (series if integer else text).duplicated(keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        first = int(rows[0])
        again = int(rows[1:][text.iloc[rows[1:]].to_numpy() == text.iloc[first]][0])
        raise MonitorInputError(
            f"{source}: {_where(fmt, again)}: request id {text.iloc[first]!r} appears twice "
            f"in the batch (first on {_where(fmt, first)}); the batch was not written"
        )
    return text.tolist()


def _numbers(
    series: pd.Series,
    column: str,
    role: str,
    fmt: str,
    source: str,
    required: bool,
    ids: list[str] | None = None,
) -> np.ndarray:
    # evaluate's rule (SPEC 12.1), so the store's report is evaluate's on the same rows
    values, bad = number_cells(series, column, role, source)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise MonitorInputError(
            f"{source}: {_at(fmt, i, ids)}: {role} {series.iloc[i]!r} in column {column!r} "
            f"is not a number; {NOT_WRITTEN}"
        )
    if np.isinf(values).any():
        i = int(np.flatnonzero(np.isinf(values))[0])
        raise MonitorInputError(
            f"{source}: {_at(fmt, i, ids)}: {role} in column {column!r} is infinite; {NOT_WRITTEN}"
        )
    with np.errstate(invalid="ignore"):
        huge = np.abs(values) > MAX_MAGNITUDE
    if huge.any():
        # evaluate refuses these too (SPEC 12.1): their squares overflow a double
        i = int(np.flatnonzero(huge)[0])
        raise MonitorInputError(
            f"{source}: {_at(fmt, i, ids)}: {role} {values[i]:g} in column {column!r} is "
            f"beyond +-1e100 (squared errors would overflow); rescale it; {NOT_WRITTEN}"
        )
    if required and np.isnan(values).any():
        i = int(np.flatnonzero(np.isnan(values))[0])
        cell = series.iloc[i]
        # a missing token (NA, null, ...: SPEC 0.4) is named, not called empty
        what = (
            f"{role} {cell!r} in column {column!r} is a missing value"
            if isinstance(cell, str) and cell.strip(TRIMMED)
            else f"{role} column {column!r} is empty"
        )
        raise MonitorInputError(
            f"{source}: {_at(fmt, i, ids)}: {what}; every row needs its {role} ({NOT_WRITTEN})"
        )
    return values


#: Epoch seconds written as text (a CSV cell, a JSON string): digits, maybe signed and
#: with a fraction, maybe with ASCII spaces/tabs around (SPEC 12.1 trims every cell).
EPOCH_TEXT = r"[ \t]*-?[0-9]+(\.[0-9]+)?[ \t]*"
#: Whole numbers of this many digits can be dates written YYYYMMDD (ISO-8601's basic
#: form) as well as epoch seconds; epoch seconds of a real time since 1973-03-03 have more.
DATE_DIGITS = 8


def _is_number(value: Any) -> bool:
    """A typed cell that is a number (epoch seconds), not text; a boolean is neither."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _compact_dates(values: np.ndarray) -> np.ndarray:
    """Which of ``values`` (epoch seconds) also read as a date YYYYMMDD: whole numbers of
    DATE_DIGITS digits that are a calendar date."""
    with np.errstate(invalid="ignore"):
        maybe = (values == np.floor(values)) & (values >= 10 ** (DATE_DIGITS - 1))
        maybe &= values < 10**DATE_DIGITS
    if not maybe.any():
        return maybe
    digits = pd.Series(values[maybe].astype(np.int64).astype(str))
    dates = pd.to_datetime(digits, format="%Y%m%d", errors="coerce")
    maybe[maybe] = dates.notna().to_numpy()
    return maybe


def _times(
    series: pd.Series, column: str, fmt: str, source: str, ids: list[str] | None = None
) -> np.ndarray:
    """Epoch seconds (UTC) of ``series``, cell by cell (SPEC 15.3): a number, or text of
    digits, is epoch seconds; other text is ISO-8601; within the years 0001..9999 either
    way. A whole number of DATE_DIGITS digits that is also a date YYYYMMDD is refused:
    nothing says which of the two it means."""
    n = len(series)
    if pd.api.types.is_bool_dtype(series.dtype):
        number = np.zeros(n, dtype=bool)
    elif pd.api.types.is_numeric_dtype(series.dtype):
        number = np.ones(n, dtype=bool)
    elif series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        # CSV cells arrive as text (SPEC 12.1): epoch seconds written as digits are numbers
        number = np.array(series.astype(str).str.fullmatch(EPOCH_TEXT), dtype=bool)
        if not number.all():  # typed numbers among text (JSON lines)
            others = np.flatnonzero(~number)
            number[others] = [_is_number(v) for v in series.iloc[others].tolist()]
    else:  # datetimes (Parquet), dates, categories: ISO-8601 below
        number = np.zeros(n, dtype=bool)
    seconds = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n, dtype=bool)
    outside = np.zeros(n, dtype=bool)
    dates = np.zeros(n, dtype=bool)
    if number.any():
        numbers = series if number.all() else series[number]
        values = pd.to_numeric(numbers).astype("float64").to_numpy()
        unread = ~np.isfinite(values)
        # compared as floats: 1e30 would not fit an int64
        beyond = ~unread & ((values < MIN_EPOCH) | (values >= MAX_EPOCH + 1))
        bad[number], outside[number] = unread, beyond
        dates[number] = _compact_dates(values)
        seconds[number] = np.floor(np.where(unread | beyond, 0, values)).astype(np.int64)
    if not number.all():
        text = series[~number]
        if pd.api.types.is_bool_dtype(text.dtype):  # no time: unread below, not a crash
            text = text.astype(object)
        parsed = pd.to_datetime(text, utc=True, errors="coerce", format="ISO8601")
        unread = parsed.isna().to_numpy()
        epoch = pd.Timestamp("1970-01-01", tz="UTC")
        whole = ((parsed - epoch) // pd.Timedelta(seconds=1)).to_numpy(dtype=np.int64, na_value=0)
        bad[~number] = unread
        outside[~number] = ~unread & ((whole < MIN_EPOCH) | (whole > MAX_EPOCH))
        seconds[~number] = whole

    def cell(i: int) -> str:
        """Where row ``i`` is and its time as written (a numpy number as Python's)."""
        value = series.iloc[i]
        value = value.item() if isinstance(value, np.generic) else value
        return f"{source}: {_at(fmt, i, ids)}: time {value!r} in column {column!r}"

    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise MonitorInputError(
            f"{cell(i)} is not an ISO-8601 date/time or epoch seconds; {NOT_WRITTEN}"
        )
    if dates.any():
        i = int(np.flatnonzero(dates)[0])
        day = time.strftime("%Y-%m-%d", time.strptime(str(int(seconds[i])), "%Y%m%d"))
        instant = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds[i])))
        raise MonitorInputError(
            f"{cell(i)} is ambiguous: the date {day} written without dashes, or epoch "
            f"seconds ({instant}); write {day} or {instant}; {NOT_WRITTEN}"
        )
    if outside.any():
        # a report names each prediction's UTC day as a date: years 0001..9999
        i = int(np.flatnonzero(outside)[0])
        raise MonitorInputError(
            f"{cell(i)} is outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59Z (epoch seconds "
            f"{MIN_EPOCH}..{MAX_EPOCH}); {NOT_WRITTEN}"
        )
    return seconds


def _not_binary(
    source: str, fmt: str, ids: list[str], values: np.ndarray, role: str, column: str, why: str
) -> None:
    """Refuse the first value of ``values`` other than 0 and 1 (a binary task's)."""
    off = ~np.isin(values, (0.0, 1.0))
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise MonitorInputError(
            f"{source}: {_at(fmt, i, ids)}: {role} {values[i]:g} in column {column!r} is not "
            f"0 or 1, but {why}; encode {role}s as 0/1 or declare task: regression in the "
            f"registry; {NOT_WRITTEN}"
        )


def prediction_weights(store: Store, key: str) -> list[str | None]:
    """The ``--weight`` column of each stored (not removed) prediction batch of ``key``,
    in logging order (None: logged without weights)."""
    rows = store.query(
        "SELECT meta FROM batches WHERE model = ? AND kind = 'predictions' ORDER BY id", (key,)
    )
    return [json.loads(r[0]).get("weight") for r in rows]


def model_weight(store: Store, key: str) -> str | None:
    """The weight column of a weighted model (its latest prediction batch's), None for
    an unweighted one or a model without predictions."""
    weights = prediction_weights(store, key)
    return weights[-1] if weights else None


def _check_weighting(store: Store, key: str, weight: str | None, source: str) -> None:
    """A model's stored predictions are all weighted or all not (SPEC 15.3): refuse a
    batch that would mix them."""
    stored = prediction_weights(store, key)
    if not stored or (weight is None) == (stored[-1] is None):
        return
    count = len(stored)
    batches = f"{count} stored prediction " + ("batches were" if count > 1 else "batch was")
    if weight is None:
        raise MonitorInputError(
            f"{source}: model {key} is weighted (its {batches} logged with --weight "
            f"{stored[-1]}) and this batch has no --weight; a model's predictions are all "
            f"weighted or all not: pass --weight COL, or log it as another model; "
            f"{NOT_WRITTEN}"
        )
    raise MonitorInputError(
        f"{source}: model {key} is unweighted (its {batches} logged without "
        f"--weight) and this batch has --weight {weight}; a model's predictions are all "
        "weighted or all not: log it as another model, or remove those batches first "
        f"(faircode fairness remove-batch {key} BATCH --reason TEXT); {NOT_WRITTEN}"
    )


def binary_versions(store: Store, key: str) -> set[str]:
    """Versions of ``key`` whose stored predictions are all 0 or 1 (inferred binary)."""
    rows = store.query(
        "SELECT version, SUM(n_nonbinary_pred) FROM slice_stats WHERE model = ? GROUP BY version",
        (key,),
    )
    return {str(v) for v, nb in rows if not nb}


def _versions_logged(store: Store, key: str) -> int:
    """How many versions the model's prediction batches hold: a label joins at most one
    prediction of each."""
    return int(
        store.one(
            "SELECT COUNT(DISTINCT version) FROM batches WHERE model = ? AND kind = 'predictions'",
            (key,),
        )
        or 0
    )


def _begin_batch(store: Store, model: str, kind: str, digest: str) -> tuple[str, int | None]:
    """Inside the batch's transaction: (model key, id of an identical batch already
    stored, or None once the model is known and the batch may be written)."""
    # one writer of batches at a time (SQLite's write lock already is that; on
    # PostgreSQL this keeps two senders of one batch from both writing it)
    store.lock("faircode-batches")
    key = model_key(model)
    dup = store.execute(
        "SELECT id FROM batches WHERE model = ? AND kind = ? AND digest = ?",
        (key, kind, digest),
    ).fetchone()
    if dup is not None:
        return key, int(dup[0])
    _ensure_model(store, model)
    return key, None


def _ensure_model(store: Store, model: str) -> str:
    key = model_key(model)
    if not key:
        raise MonitorInputError("the model name is empty; pass MODEL")
    if store.one("SELECT name FROM models WHERE key = ?", (key,)) is None:
        store.execute("INSERT INTO models (key, name) VALUES (?, ?)", (key, model))
    return key


def _slots(store: Store, key: str, attrs: list[str]) -> list[int]:
    known = dict(store.query("SELECT name, slot FROM attributes WHERE model = ?", (key,)))
    out = []
    for a in attrs:
        if a not in known:
            used = set(known.values())
            free = [s for s in range(ATTR_SLOTS) if s not in used]
            if not free:
                raise MonitorInputError(
                    f"model {key!r} already has {ATTR_SLOTS} attributes "
                    f"({', '.join(sorted(known))}); {a!r} cannot be added"
                )
            store.execute(
                "INSERT INTO attributes (model, name, slot) VALUES (?, ?, ?)", (key, a, free[0])
            )
            known[a] = free[0]
        out.append(int(known[a]))
    return out


def _codes(store: Store, key: str, slot: int, column: pd.Series) -> np.ndarray:
    """Per-row dictionary code of an attribute column (-1 for a missing value).

    A column of mixed types is factorised by (type, value), as ``evaluate`` does
    (``slices._Attribute``): True, 1 and 1.0 are equal in Python but different labels
    (SPEC 0.4), and a plain factorize would give them one code."""
    column = as_labelled(column)
    if is_mixed(column):
        typed = [_typed(v, str(column.name), "data", i) for i, v in enumerate(column.tolist())]
        codes, keys = pd.factorize(pd.Series(typed, dtype=object), use_na_sentinel=True)
        uniques = [k[1] for k in keys]
    else:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    texts = [json.dumps(_native(v)) for v in uniques]
    known = dict(
        store.query("SELECT value, code FROM attr_values WHERE model = ? AND slot = ?", (key, slot))
    )
    next_code = max(known.values(), default=-1) + 1
    mapping = np.full(len(texts) + 1, -1, dtype=np.int64)
    for i, t in enumerate(texts):
        if t == "null":  # a value _native maps to missing (NaN inside an object column)
            continue
        if t not in known:
            store.execute(
                "INSERT INTO attr_values (model, slot, code, value) VALUES (?, ?, ?, ?)",
                (key, slot, next_code, t),
            )
            known[t] = next_code
            next_code += 1
        mapping[i] = int(known[t])
    return mapping[np.asarray(codes, dtype=np.int64)]


def _next_batch(
    store: Store,
    key: str,
    kind: str,
    digest: str,
    version: str | None,
    rows: int,
    meta: dict[str, Any],
    who: str,
) -> int:
    batch = int(store.one("SELECT COALESCE(MAX(id), 0) FROM batches") or 0) + 1
    store.execute(
        "INSERT INTO batches (id, model, kind, digest, version, rows_in, rows_new, meta, actor, "
        "at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
        (
            batch,
            key,
            kind,
            digest,
            version,
            rows,
            json.dumps(meta, sort_keys=True),
            who,
            int(time.time()),
        ),
    )
    return batch


def _literal(value: Any) -> str:
    """A SQL literal for a per-batch constant (text quoted, numbers as they are)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"unsupported constant {value!r}")
    if isinstance(value, int):
        return str(value)
    return "'" + value.replace("'", "''") + "'"


def _bulk(
    store: Store,
    table: str,
    const: dict[str, Any],
    columns: list[str],
    rows: Iterable[tuple[Any, ...]],
    total: int,
    conflict: str,
    progress: Progress,
) -> int:
    """Insert ``rows`` (values of ``columns``; ``const`` the same for every row) in chunks.

    SQLite: ``executemany`` with the constants written into the statement, so each row
    binds only what varies. PostgreSQL: COPY into a staging table, then one INSERT.
    """
    all_cols = ", ".join([*const, *columns])
    cols = ", ".join(columns)
    pause = float(os.environ.get("FAIRCODE_TEST_INGEST_PAUSE", "0") or 0)
    written = 0
    inserted = 0
    it = iter(rows)
    stage = f"staging_{table}"
    if store.dialect == "postgresql":
        store.execute(f"DROP TABLE IF EXISTS {stage}")
        store.execute(f"CREATE TEMP TABLE {stage} AS SELECT {cols} FROM {table} WHERE false")
    values = ", ".join([_literal(v) for v in const.values()] + ["?" for _ in columns])
    while written < total:
        chunk = list(islice(it, CHUNK_ROWS))
        if not chunk:
            break
        if store.dialect == "postgresql":
            with store.conn.cursor().copy(f"COPY {stage} ({cols}) FROM STDIN") as cp:
                for row in chunk:
                    cp.write_row(row)
        else:
            n = store.executemany(
                f"INSERT INTO {table} ({all_cols}) VALUES ({values}) {conflict}", chunk
            )
            inserted += max(n, 0)
        written += len(chunk)
        if progress is not None:
            progress(written, total)
        if pause:  # testing hook: lets a test kill the process in the middle of a batch
            print(f"faircode: test: paused after {written} rows", file=sys.stderr, flush=True)
            time.sleep(pause)
    if store.dialect == "postgresql":
        marks = ", ".join("?" for _ in const)
        inserted = store.execute(
            f"INSERT INTO {table} ({all_cols}) SELECT {marks}, {cols} FROM {stage} {conflict}",
            tuple(const.values()),
        ).rowcount
        store.execute(f"DROP TABLE {stage}")
    return inserted


def existing_file(path: str | Path) -> Path:
    """The path of a batch to log, which must exist (checked before a store is made)."""
    p = Path(path)
    if not p.exists():
        raise MonitorInputError(f"{p}: no such file; check the path")
    return p


def _encoding_option(encoding: str | None) -> dict[str, str]:
    """A batch's ``encoding`` option for its digest: only when it is not UTF-8 (the same
    bytes read another way are another batch; a UTF-8 batch's digest is as before)."""
    name = check_encoding(encoding)
    return {} if is_utf8(name) else {"encoding": name}


def _read(
    path: str | Path, required: dict[str, str], encoding: str | None
) -> tuple[pd.DataFrame, str, Path]:
    p = Path(path)
    frame = read_table(p, required, encoding=encoding)
    fmt = file_format(p)
    if len(frame) == 0:
        raise MonitorInputError(f"{p}: no data rows; the file has a header only")
    return frame, fmt, p


def log_predictions(
    store: Store,
    model: str,
    path: str | Path,
    *,
    version: str,
    id_col: str,
    attrs: list[str],
    pred: str | None = None,
    score: str | None = None,
    decision_threshold: float | None = None,
    at_col: str | None = None,
    actor_name: str = "unknown",
    progress: Progress = None,
    task: str | None = None,
    weight: str | None = None,
    encoding: str | None = None,
) -> dict[str, Any]:
    """Write one prediction batch; returns a summary (``duplicate_of`` for a re-sent one).

    ``task`` is the task declared in the registry in force (None: inferred). ``weight``
    names a column of sample weights (``--weight``, SPEC 15.3), checked as ``evaluate``
    checks them (:func:`faircode.monitor.inputs.weights_of`); a model's predictions are
    all weighted or all not, so a batch that differs from the model's stored ones is
    refused."""
    if not version or not str(version).strip():
        raise MonitorInputError("--version is empty; name the model version being logged")
    if not attrs:
        raise MonitorInputError("at least one attribute is needed; pass --attr COL")
    if len(set(attrs)) != len(attrs):
        raise MonitorInputError("an attribute is given twice; pass each --attr once")
    if len(attrs) > ATTR_SLOTS:
        raise MonitorInputError(f"at most {ATTR_SLOTS} attributes can be logged per model")
    if (pred is None) == (score is None):
        raise MonitorInputError(
            "pass exactly one of --pred COL or --score COL --decision-threshold T"
        )
    if score is not None and decision_threshold is None:
        raise MonitorInputError("--score needs --decision-threshold T (prediction = score >= T)")
    if pred is not None and decision_threshold is not None:
        raise MonitorInputError("--decision-threshold goes with --score, not --pred")
    required: dict[str, str] = {id_col: "--id"}
    for a in attrs:
        required.setdefault(a, "--attr")
    required.setdefault(pred or score or "", "--pred" if pred else "--score")
    if at_col is not None:
        required.setdefault(at_col, "--at")
    if weight is not None:
        if not isinstance(weight, str):
            raise MonitorInputError(f"{spelled('--weight')}: give one column name, got {weight!r}")
        required.setdefault(weight, "--weight")
    p = existing_file(path)
    options: dict[str, Any] = {
        "kind": "predictions",
        "model": model_key(model),
        "version": version,
        "id": id_col,
        "attrs": attrs,
        "pred": pred,
        "score": score,
        "decision_threshold": decision_threshold,
        "at": at_col,
    }
    if weight is not None:  # only then: an unweighted batch keeps its digest
        options["weight"] = weight
    options.update(_encoding_option(encoding))
    digest = _digest(p, options)
    frame, fmt, p = _read(p, required, encoding)
    source = str(p)
    ids = _ids(frame[id_col], id_col, fmt, source)
    if score is not None:
        assert decision_threshold is not None
        scores = _numbers(frame[score], score, "score", fmt, source, True, ids)
        preds = (scores >= decision_threshold).astype("float64")
    else:
        assert pred is not None
        scores = None
        preds = _numbers(frame[pred], pred, "prediction", fmt, source, True, ids)
        if task == "binary":
            why = f"model {model_key(model)} is binary (task: binary in the registry)"
            _not_binary(source, fmt, ids, preds, "prediction", pred, why)
    weights = None
    if weight is not None:  # evaluate's check and words (SPEC 12.1): every row is scored
        try:
            weights = weights_of(frame[weight], weight, source, np.ones(len(frame), dtype=bool))
        except MonitorInputError as exc:
            raise MonitorInputError(f"{exc}; {NOT_WRITTEN}") from None
    n = len(frame)
    if at_col is not None:
        at = _times(frame[at_col], at_col, fmt, source, ids)
    else:
        at = np.full(n, int(time.time()), dtype=np.int64)
    day = at // 86400
    meta: dict[str, Any] = {
        "file": source,
        "pred": pred,
        "score": score,
        "decision_threshold": decision_threshold,
        "attrs": attrs,
        "at": at_col,
        "id": id_col,
    }
    if weight is not None:
        meta["weight"] = weight
    with store.transaction():
        key, dup = _begin_batch(store, model, "predictions", digest)
        if dup is not None:
            return {
                "model": key,
                "batch": None,
                "duplicate_of": dup,
                "rows": n,
                "new": 0,
                "already_stored": n,
                "labels_joined": 0,
            }
        _check_weighting(store, key, weight, source)
        slots = _slots(store, key, attrs)
        attr_codes = [_codes(store, key, s, frame[a]) for a, s in zip(attrs, slots)]
        batch = _next_batch(store, key, "predictions", digest, version, n, meta, actor_name)
        # the labels these request ids have in another version: written with the rows
        copied = _labels_elsewhere(store, key, str(version), ids)
        const = {"model": key, "version": str(version), "batch": batch}
        columns = ["request_id", "at", "day", "pred"]
        columns += [SLOT_COLUMNS[s] for s in slots]
        varying = [
            ids,
            at.tolist(),
            day.tolist(),
            preds.tolist(),
            *(c.tolist() for c in attr_codes),
        ]
        if scores is not None:
            columns.append("score")
            varying.append(scores.tolist())
        if weights is not None:
            columns.append("weight")
            varying.append(weights.tolist())
        if copied is not None:
            columns += ["label", "labelled_at", "label_batch"]
            varying += copied.columns
        new = _bulk(
            store,
            "predictions",
            const,
            columns,
            zip(*varying),
            n,
            # the key, (model, request id, version), is the table's one constraint; unnamed,
            # so a store the tests fill at an older schema takes batches too
            "ON CONFLICT DO NOTHING",
            progress,
        )
        weighted = weights is not None
        if new == n:
            codes = dict(zip(slots, attr_codes))
            rollup.add_batch(store, key, version, day, codes, preds, weights)
        else:  # some request ids were stored already: count what is really there
            rollup.rebuild(store, key, weighted)
        binary = task == "binary" or (task is None and str(version) in binary_versions(store, key))
        joined = 0
        if copied is not None:
            if binary:
                copied.check_binary(store, key, str(version), source)
            if new == n:  # cells of the rows just added: add their labels' statistics
                joined = copied.count
                copied.add_stats(store, key, str(version), batch, day, attr_codes, slots, preds)
            else:  # rebuilt above, labels included
                joined = copied.written(store, key, str(version), batch)
            store.execute(f"DELETE FROM {_COPIED}")
        if store.one("SELECT COUNT(*) FROM orphan_labels WHERE model = ?", (key,)):
            _check_waiting_labels(store, key, batch, binary, ids, fmt, source, str(version))
            _, relabelled = rollup.add_label_delta(
                store,
                key,
                "orphan_labels t JOIN predictions p ON t.model = ? AND p.request_id = t.request_id",
                (key,),
                weighted,
            )
            joined += store.execute(
                "UPDATE predictions SET label = o.label, labelled_at = o.at, label_batch = o.batch "
                "FROM orphan_labels o "
                "WHERE predictions.model = ? AND o.model = predictions.model "
                "AND o.request_id = predictions.request_id",
                (key,),
            ).rowcount
            store.execute(
                "DELETE FROM orphan_labels WHERE model = ? AND EXISTS (SELECT 1 FROM "
                "predictions p WHERE p.model = orphan_labels.model "
                "AND p.request_id = orphan_labels.request_id)",
                (key,),
            )
            if weighted and relabelled:  # see rollup.add_label_delta
                rollup.rebuild(store, key, weighted)
        store.execute("UPDATE batches SET rows_new = ? WHERE id = ?", (new, batch))
    return {
        "model": key,
        "batch": batch,
        "duplicate_of": None,
        "rows": n,
        "new": new,
        "already_stored": n - new,
        "labels_joined": joined,
    }


#: The labels a prediction batch takes from other versions' predictions of its request
#: ids (:func:`_labels_elsewhere`), one row per request id, for the transaction.
_COPIED = "faircode_copied_labels"


class _Copied:
    """The labels a prediction batch's request ids have in another version's predictions
    (a label is the request's, whichever version scored it; SPEC 15.3), found before
    the batch is written, so its rows are written with them: one lookup per request id,
    and no second pass to label them. They are also kept in the temporary table
    ``_COPIED`` until the batch's statistics are counted."""

    def __init__(self, n: int, found: list[tuple[Any, ...]]) -> None:
        #: the batch's row of each label found
        self.rows = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
        self.count = len(found)
        self.label = np.array([float(r[1]) for r in found])
        self.columns = []
        for i in (1, 2, 3):  # label, labelled_at, label_batch: NULL where none
            column = np.full(n, None, dtype=object)
            column[self.rows] = [r[i] for r in found]
            self.columns.append(column.tolist())

    def check_binary(self, store: Store, key: str, version: str, source: str) -> None:
        """Refuse a copied label that is not 0 or 1 for a binary version, as a waiting
        label is."""
        if not store.one(
            "SELECT SUM(n_nonbinary_label) FROM slice_stats WHERE model = ? AND version <> ?",
            (key, version),
        ):
            return  # every label of the other versions is 0 or 1: no lookup per row
        bad = store.query(
            f"SELECT t.request_id, s.label, s.label_batch FROM {_COPIED} t {_join(store)} "
            "predictions s ON s.model = ? AND s.request_id = t.request_id "
            "AND s.version <> ? AND s.label IS NOT NULL "
            "WHERE s.label <> 0 AND s.label <> 1 ORDER BY t.request_id LIMIT 1",
            (key, version),
        )
        if bad:
            rid, label, label_batch = bad[0]
            raise MonitorInputError(
                f"{source}: request id {rid!r} has label {float(label):g} (label batch "
                f"{label_batch}) in another version, and version {version} of model {key} "
                "is binary (0 or 1 only); log this version as another model, or remove "
                f"label batch {label_batch} first; the batch was not written"
            )

    def written(self, store: Store, key: str, version: str, batch: int) -> int:
        """How many of the batch's rows hold a copied label once written (a row stored
        before under its request id and version is kept as it was)."""
        return int(
            store.one(
                f"SELECT COUNT(*) FROM {_COPIED} t {_join(store)} predictions p ON p.model = ? "
                "AND p.request_id = t.request_id AND p.version = ? AND p.batch = ?",
                (key, version, batch),
            )
            or 0
        )

    def add_stats(
        self,
        store: Store,
        key: str,
        version: str,
        batch: int,
        day: np.ndarray,
        attr_codes: list[np.ndarray],
        slots: list[int],
        preds: np.ndarray,
    ) -> None:
        """Add the copied labels' statistics to the cells of a batch whose every row was
        written (none had a label before: nothing is subtracted, exact for a weighted
        model too). SQLite, unweighted: counted per cell, prediction and label from the
        batch in memory (:func:`rollup.add_counted`); else a ``GROUP BY`` over the labels
        joined to the rows (:func:`rollup.add_label_delta`)."""
        weighted = model_weight(store, key) is not None
        if store.dialect != "sqlite" or weighted or not SQLITE_ONE_PASS_LABELS:
            rollup.add_label_delta(
                store,
                key,
                f"{_COPIED} t {_join(store)} predictions p ON p.request_id = t.request_id "
                "AND p.version = ? AND p.batch = ?",
                (version, batch),
                weighted,
                fresh=True,
            )
            return
        used = rollup.used_slots(store, key)
        by_slot = dict(zip(slots, attr_codes))
        frame = pd.DataFrame({"day": day[self.rows]})
        for s in used:
            frame[f"a{s}"] = by_slot[s][self.rows] if s in by_slot else -1
        frame["pred"] = preds[self.rows]
        frame["label"] = self.label
        sizes = frame.groupby(list(frame.columns), sort=False).size()
        counts: Counter[tuple[Any, ...]] = Counter()
        for cell, size in zip(sizes.index.tolist(), sizes.tolist()):
            *codes, pred, label = cell
            key_row = (version, *(int(c) for c in codes), float(pred), None, float(label))
            counts[key_row] += int(size)
        rollup.add_counted(store, key, used, counts)


def _join(store: Store) -> str:
    """The join of a batch's request ids (left) to the predictions: on SQLite a CROSS JOIN,
    which keeps the ids the outer loop, each looked up by the key (left to itself, the
    planner may walk every prediction of the model and look each up in the batch)."""
    return "CROSS JOIN" if store.dialect == "sqlite" else "JOIN"


def _labels_elsewhere(store: Store, key: str, version: str, ids: list[str]) -> _Copied | None:
    """Inside a prediction batch, before its rows are written: the labels its request ids
    have in other versions' predictions (:class:`_Copied`), None when no other version
    holds a label. Its cost grows with the batch, not with the store: the batch's ids are
    walked (with their rows), each looked up by the key."""
    others = int(
        store.one(
            "SELECT COUNT(DISTINCT version) FROM slice_stats WHERE model = ? AND version <> ? "
            "AND n_labelled > 0",
            (key, version),
        )
        or 0
    )
    if not others:
        return None  # nothing to look up, row by row
    n = len(ids)
    loaded = store.dialect != "sqlite" or not _json_ready(store, ids)
    if loaded:  # the label column holds each request id's row
        _load_incoming(store, ids, np.arange(n, dtype=np.float64), None)
        sources = [("SELECT request_id, label AS pos FROM incoming_labels", ())]
    else:
        sources = [
            (
                "SELECT value AS request_id, key + ? AS pos FROM json_each(?)",
                (start, json.dumps(ids[start : start + JSON_CHUNK_ROWS], ensure_ascii=False)),
            )
            for start in range(0, n, JSON_CHUNK_ROWS)
        ]
    rowid = " WITHOUT ROWID" if store.dialect == "sqlite" else ""
    store.execute(
        f"CREATE TEMP TABLE IF NOT EXISTS {_COPIED} (request_id TEXT PRIMARY KEY, "
        "pos BIGINT NOT NULL, label DOUBLE PRECISION NOT NULL, labelled_at BIGINT, "
        "label_batch BIGINT)" + rowid
    )
    store.execute(f"DELETE FROM {_COPIED}")
    # one other version holds at most one prediction of a request id: nothing to group
    label = "s.label, s.labelled_at, s.label_batch"
    group = ""
    if others > 1:
        label = "MIN(s.label), MIN(s.labelled_at), MIN(s.label_batch)"
        group = "GROUP BY t.request_id, t.pos"
    try:
        for rows, params in sources:
            store.execute(
                f"INSERT INTO {_COPIED} (request_id, pos, label, labelled_at, label_batch) "
                f"SELECT t.request_id, t.pos, {label} FROM ({rows}) t {_join(store)} "
                "predictions s ON s.model = ? AND s.request_id = t.request_id "
                f"AND s.version <> ? AND s.label IS NOT NULL {group}",
                (*params, key, version),
            )
    finally:
        if loaded:
            store.execute("DELETE FROM incoming_labels")
    found = store.query(f"SELECT pos, label, labelled_at, label_batch FROM {_COPIED}")
    return _Copied(n, found) if found else None


def log_labels(
    store: Store,
    model: str,
    path: str | Path,
    *,
    id_col: str,
    label_col: str,
    actor_name: str = "unknown",
    progress: Progress = None,
    task: str | None = None,
    encoding: str | None = None,
) -> dict[str, Any]:
    """Write one label batch, joined to the predictions by request id.

    ``task`` is the task declared in the registry in force; when it is None, a label
    joining a prediction of a version whose predictions are all 0/1 must be 0 or 1."""
    required = {id_col: "--id"}
    required.setdefault(label_col, "--label")
    p = existing_file(path)
    options = {
        "kind": "labels",
        "model": model_key(model),
        "id": id_col,
        "label": label_col,
        **_encoding_option(encoding),
    }
    digest = _digest(p, options)
    frame, fmt, p = _read(p, required, encoding)
    source = str(p)
    ids = _ids(frame[id_col], id_col, fmt, source)
    labels = _numbers(frame[label_col], label_col, "label", fmt, source, True, ids)
    if task == "binary":
        why = f"model {model_key(model)} is binary (task: binary in the registry)"
        _not_binary(source, fmt, ids, labels, "label", label_col, why)
    n = len(frame)
    now = int(time.time())
    with store.transaction():
        key, dup = _begin_batch(store, model, "labels", digest)
        if dup is not None:
            stale, later = _labels_not_in_force(store, key, ids, labels)
            return {
                "model": key,
                "batch": None,
                "duplicate_of": dup,
                "rows": n,
                "joined": 0,
                "orphans": 0,
                "replaced": 0,
                "not_in_force": stale,
                "replaced_by": later,
            }
        meta = {"file": source, "id": id_col, "label": label_col}
        batch = _next_batch(store, key, "labels", digest, None, n, meta, actor_name)
        weighted = model_weight(store, key) is not None
        one_pass = store.dialect == "sqlite" and not weighted and SQLITE_ONE_PASS_LABELS
        parts = _json_parts(store, ids, labels) if one_pass else None
        loaded = parts is None
        if parts is None:
            _load_incoming(store, ids, labels, progress)
            parts = [rollup.Incoming(count=n)]
        if task is None and not np.isin(labels, (0.0, 1.0)).all():
            _check_inferred_binary(store, key, ids, fmt, source, label_col, parts)
        relabelled = 0
        if one_pass:
            written = 0

            def step(rows: int) -> None:
                nonlocal written
                written += rows
                if progress is not None and not loaded:
                    progress(written, n)

            joined, replaced = rollup.write_labels_counted(store, key, now, batch, parts, step)
        else:
            replaced, relabelled = rollup.add_label_delta(
                store,
                key,
                "incoming_labels t JOIN predictions p ON p.request_id = t.request_id",
                (),
                weighted,
            )
            joined = store.execute(
                "UPDATE predictions SET label = t.label, labelled_at = ?, label_batch = ? "
                "FROM incoming_labels t "
                "WHERE predictions.model = ? AND predictions.request_id = t.request_id",
                (now, batch, key),
            ).rowcount
        orphans = 0
        # a label joins each version's prediction of its request (one at most), so
        # `joined` counts predictions: n labels times the versions (at least one: a
        # model without predictions) joined every label to each, and left no orphan
        if joined < n * max(1, _versions_logged(store, key)):
            for part in parts:
                rows, params = part.rows()
                orphans += store.execute(
                    "INSERT INTO orphan_labels (model, request_id, label, at, batch) "
                    f"SELECT ?, t.request_id, t.label, ?, ? FROM ({rows}) t WHERE NOT EXISTS "
                    "(SELECT 1 FROM predictions p WHERE p.model = ? "
                    "AND p.request_id = t.request_id) "
                    "ON CONFLICT (model, request_id) DO UPDATE SET label = excluded.label, "
                    "at = excluded.at, batch = excluded.batch",
                    (key, now, batch, *params, key),
                ).rowcount
        if loaded:
            store.execute("DELETE FROM incoming_labels")
        if weighted and relabelled:  # stored labels re-sent: see rollup.add_label_delta
            rollup.rebuild(store, key, weighted)
        store.execute("UPDATE batches SET rows_new = ? WHERE id = ?", (n, batch))
    return {
        "model": key,
        "batch": batch,
        "duplicate_of": None,
        "rows": n,
        "joined": joined,
        "orphans": orphans,
        "replaced": replaced,
    }


def _labels_not_in_force(
    store: Store, key: str, ids: list[str], labels: np.ndarray
) -> tuple[int, list[int]]:
    """A re-sent label batch: how many of its labels differ from the stored ones (a later
    label batch replaced them), and those batches' ids. Re-sending changes nothing, so
    "nothing changed" must not read as "the store holds this file's labels" (SPEC 15.3)."""
    _load_incoming(store, ids, labels, None)
    rows = store.query(
        "SELECT p.label_batch, COUNT(*) FROM incoming_labels t JOIN predictions p "
        "ON p.model = ? AND p.request_id = t.request_id WHERE p.label <> t.label "
        "GROUP BY p.label_batch UNION ALL "
        "SELECT o.batch, COUNT(*) FROM incoming_labels t JOIN orphan_labels o "
        "ON o.model = ? AND o.request_id = t.request_id WHERE o.label <> t.label "
        "GROUP BY o.batch",
        (key, key),
    )
    store.execute("DELETE FROM incoming_labels")
    stale = sum(int(count) for _, count in rows)
    return stale, sorted({int(b) for b, _ in rows if b is not None})


def _load_incoming(store: Store, ids: list[str], labels: np.ndarray, progress: Progress) -> None:
    """Load a label batch into the temporary table ``incoming_labels`` (PostgreSQL:
    COPY; SQLite: ``executemany`` in chunks, into one B-tree keyed by request id)."""
    rowid = " WITHOUT ROWID" if store.dialect == "sqlite" else ""
    store.execute(
        "CREATE TEMP TABLE IF NOT EXISTS incoming_labels "
        f"(request_id TEXT PRIMARY KEY, label DOUBLE PRECISION NOT NULL){rowid}"
    )
    store.execute("DELETE FROM incoming_labels")
    n = len(ids)
    if store.dialect == "postgresql":
        with store.conn.cursor().copy("COPY incoming_labels (request_id, label) FROM STDIN") as cp:
            for row in zip(ids, labels.tolist()):
                cp.write_row(row)
        return
    done = 0
    pairs = zip(ids, labels.tolist())
    while done < n:
        part = list(islice(pairs, CHUNK_ROWS))
        store.executemany("INSERT INTO incoming_labels (request_id, label) VALUES (?, ?)", part)
        done += len(part)
        if progress is not None:
            progress(done, n)


#: A label batch with at most this many distinct label values is handed to SQLite as
#: one JSON array of request ids per value (and chunk), not bound row by row.
JSON_LABEL_VALUES = 64
#: Request ids per JSON array (one UPDATE each, then the progress line).
JSON_CHUNK_ROWS = CHUNK_ROWS
#: Characters JSON would escape as \uXXXX (control characters) or cannot carry (lone
#: surrogates): request ids holding one are bound row by row instead.
_JSON_UNSAFE = re.compile(r"[\x00-\x1f\ud800-\udfff]")


def _json_ready(store: Store, ids: list[str]) -> bool:
    """SQLite: whether JSON arrays can carry these request ids to ``json_each`` (none
    holds a character JSON would escape, and this SQLite has ``json_each``)."""
    if _JSON_UNSAFE.search("".join(ids)):
        return False
    try:
        store.execute("SELECT COUNT(*) FROM json_each('[]')")
    except sqlite3.OperationalError:  # built without JSON: bind the rows
        return False
    return True


def _json_parts(store: Store, ids: list[str], labels: np.ndarray) -> list[rollup.Incoming] | None:
    """SQLite: the label batch as JSON arrays of request ids, one per label value (and
    chunk of JSON_CHUNK_ROWS), for ``json_each``; None when the batch has more than
    JSON_LABEL_VALUES distinct labels, a request id JSON would escape, or this SQLite
    lacks ``json_each``: the batch then goes through ``incoming_labels``.

    Labels are grouped by their bits (``-0.0`` apart from ``0.0``), so each request id
    gets exactly the double it was read as, bound as a parameter."""
    bits, inverse = np.unique(np.ascontiguousarray(labels).view(np.int64), return_inverse=True)
    if len(bits) > JSON_LABEL_VALUES or not _json_ready(store, ids):
        return None
    values = bits.view(np.float64).tolist()
    column = np.array(ids, dtype=object)
    parts = []
    for i, value in enumerate(values):
        members = column[inverse == i].tolist()
        for start in range(0, len(members), JSON_CHUNK_ROWS):
            chunk = members[start : start + JSON_CHUNK_ROWS]
            text = json.dumps(chunk, ensure_ascii=False)
            parts.append(rollup.Incoming(value, text, len(chunk)))
    return parts


def _check_inferred_binary(
    store: Store,
    key: str,
    ids: list[str],
    fmt: str,
    source: str,
    column: str,
    parts: list[rollup.Incoming],
) -> None:
    """Inside a label batch (its rows readable through ``parts``): refuse it when a
    label other than 0/1 joins a prediction of a version inferred binary, naming its
    first line."""
    versions = sorted(binary_versions(store, key))
    if not versions:
        return
    marks = ", ".join("?" for _ in versions)
    rows: list[tuple[Any, ...]] = []
    for part in parts:
        if part.ids is not None and part.value in (0.0, 1.0):
            continue
        incoming, params = part.rows()
        rows += store.query(
            f"SELECT t.request_id, t.label, p.version FROM ({incoming}) t JOIN predictions p "
            "ON p.model = ? AND p.request_id = t.request_id WHERE t.label <> 0 AND t.label <> 1 "
            f"AND p.version IN ({marks}) LIMIT 10000",
            (*params, key, *versions),
        )
    if not rows:
        return
    line = {rid: i for i, rid in enumerate(ids)}
    rid, value, version = min(rows, key=lambda r: line[r[0]])
    raise MonitorInputError(
        f"{source}: {_at(fmt, line[rid], ids)}: label {value:g} in column {column!r} is not 0 "
        f"or 1, but model {key} version {version} is binary (inferred: every prediction "
        "is 0 or 1); encode labels as 0/1 or declare task: regression in the registry; "
        f"{NOT_WRITTEN}"
    )


def _check_waiting_labels(
    store: Store,
    key: str,
    batch: int,
    binary: bool,
    ids: list[str],
    fmt: str,
    source: str,
    version: str,
) -> None:
    """Inside a prediction batch: refuse it when a waiting (orphan) label about to join
    one of its predictions is one its reports could not use."""
    bad = f"ABS(o.label) > {MAX_MAGNITUDE!r}"
    if binary:
        bad += " OR (o.label <> 0 AND o.label <> 1)"
    rows = store.query(
        "SELECT o.request_id, o.label, o.batch FROM orphan_labels o JOIN predictions p "
        "ON p.model = o.model AND p.request_id = o.request_id "
        f"WHERE o.model = ? AND p.batch = ? AND ({bad}) LIMIT 10000",
        (key, batch),
    )
    if not rows:
        return
    line = {rid: i for i, rid in enumerate(ids)}
    rid, value, label_batch = min(rows, key=lambda r: line.get(r[0], len(ids)))
    if abs(value) > MAX_MAGNITUDE:
        why = "is beyond +-1e100"
    else:
        why = f"is not 0 or 1, but model {key} version {version} is binary"
    where = _at(fmt, line[rid], ids) if rid in line else f"request id {rid!r}"
    raise MonitorInputError(
        f"{source}: {where}: its waiting label {value:g} (label batch {label_batch}) {why}; "
        f"remove that label batch with: faircode fairness remove-batch {key} {label_batch} "
        f"--reason TEXT; {NOT_WRITTEN}"
    )


REMOVED = "removed:"


def remove_batch(
    store: Store, model: str, batch: int, *, reason: str, actor_name: str = "unknown"
) -> dict[str, Any]:
    """Remove what batch ``batch`` of ``model`` wrote, in one transaction with its
    ``fairness_batch_removed`` audit row (SPEC 15.3).

    A prediction batch: the predictions it stored; labels joined to them that came from
    a recorded label batch wait again as orphans (they join the predictions when those
    are logged again), labels stored before label batches were recorded go with them.
    A label batch: the labels it wrote (a label it replaced is not restored) and its
    orphans. The batch row stays, marked removed (ids are never reused), and its digest
    is released so the same file can be sent again. ``slice_stats`` are rebuilt.
    """
    from . import audit  # lazy: start-up

    if not reason or not reason.strip():
        raise MonitorInputError("--reason is empty; say why the batch is removed")
    key = model_key(model)
    with store.transaction():
        store.lock("faircode-batches")
        row = (
            store.execute(
                "SELECT model, kind, digest, version, rows_in, rows_new, meta FROM batches "
                "WHERE id = ?",
                (batch,),
            ).fetchone()
            if batch in INT_RANGE
            else None  # no batch has it, and the database cannot take it
        )
        if row is None or row[0] != key:
            listed = [
                f"{i} ({k}{' ' + str(v) if v else ''})"
                for i, k, v in store.query(
                    "SELECT id, kind, version FROM batches WHERE model = ? AND kind NOT LIKE ? "
                    "ORDER BY id DESC LIMIT 10",
                    (key, REMOVED + "%"),
                )
            ]
            known = ", ".join(listed) if listed else "none"
            raise MonitorInputError(
                f"model {key!r} has no batch {batch} (its latest batches: {known})"
            )
        _, kind, digest, version, rows_in, rows_new, meta = row
        weighted = model_weight(store, key) is not None  # before the batch is marked removed
        if kind.startswith(REMOVED):
            raise MonitorInputError(
                f"batch {batch} of model {key} was already removed; see "
                f"'faircode fairness audit {key}'"
            )
        waiting = dropped = 0
        if kind == "predictions":
            labelled = "model = ? AND batch = ? AND label IS NOT NULL"
            dropped = int(
                store.one(
                    f"SELECT COUNT(*) FROM predictions WHERE {labelled} AND label_batch IS NULL",
                    (key, batch),
                )
                or 0
            )
            waiting = store.execute(
                "INSERT INTO orphan_labels (model, request_id, label, at, batch) "
                "SELECT model, request_id, label, labelled_at, label_batch FROM predictions "
                f"WHERE {labelled} AND label_batch IS NOT NULL "
                # a label another version's prediction of the request still holds is not
                # waiting: it joins these predictions again when they are logged again
                "AND NOT EXISTS (SELECT 1 FROM predictions o WHERE o.model = predictions.model "
                "AND o.request_id = predictions.request_id AND o.batch <> predictions.batch) "
                "ON CONFLICT (model, request_id) DO NOTHING",
                (key, batch),
            ).rowcount
            predictions = store.execute(
                "DELETE FROM predictions WHERE model = ? AND batch = ?", (key, batch)
            ).rowcount
            labels = dropped
        else:
            predictions = 0
            labels = store.execute(
                "UPDATE predictions SET label = NULL, labelled_at = NULL, label_batch = NULL "
                "WHERE model = ? AND label_batch = ?",
                (key, batch),
            ).rowcount
            dropped = store.execute(
                "DELETE FROM orphan_labels WHERE model = ? AND batch = ?", (key, batch)
            ).rowcount
        store.execute(
            "UPDATE batches SET kind = ?, digest = ? WHERE id = ?",
            (REMOVED + kind, f"{REMOVED}{batch}:{digest}", batch),
        )
        rollup.rebuild(store, key, weighted)
        try:
            file = json.loads(meta).get("file")
        except (ValueError, AttributeError):
            file = None
        details = {
            "batch": batch,
            "kind": kind,
            "file": file,
            "digest": digest,
            "rows_in": rows_in,
            "rows_new": rows_new,
            "predictions_removed": predictions,
            "labels_removed": labels,
            "orphan_labels_removed": dropped if kind == "labels" else 0,
            "labels_waiting_again": waiting,
            "reason": reason,
        }
        entry = audit.append(store, "fairness_batch_removed", key, version, details)
    return {"model": key, "version": version, "audit": entry, **details}
