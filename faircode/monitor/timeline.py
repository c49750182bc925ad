"""Reports from the store: one ``GROUP BY`` in the database, the rest from its counts.

The database groups a model version's predictions by every attribute slot it needs and
by day, returning additive sufficient statistics per group (a small "cube"). Every
slicing, every day of the trend and the whole window are sums over that cube, computed
with the same code as ``faircode fairness evaluate`` (:mod:`faircode.monitor.counts`,
:func:`faircode.monitor.assemble.assemble_group`), so the report from stored rows equals
the report from a file holding the same rows.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import math
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ..options import spelled
from . import rollup
from .args import is_number
from .assemble import assemble_group, assemble_report, decide
from .counts import counts_from_cube as _sum_cube
from .counts import metrics_from_counts, weighted_keys
from .errors import MonitorInputError
from .inputs import MAX_CLASS_ID, MAX_CLASSES, MAX_MAGNITUDE, class_labels, multiclass_error
from .registry import Registry
from .render import TREND_MARKS, above_before_holm, render_markdown, render_text, trend_legend
from .scores import score_metrics, score_scale, table_from_cube
from .slices import _Attribute, _slices_of
from .stats import exceeds
from .store import SLOT_COLUMNS, Store, describe, model_key

#: UTC days (since 1970-01-01) of 0001-01-01 and 9999-12-31: the days a report can name.
MIN_DAY = -719_162
MAX_DAY = 2_932_896

GATED = (
    "demographic_parity_difference",
    "equalized_odds_difference",
    "accuracy_range",
    "mae_range",
)

BINARY_KEYS = (
    "n",
    "n_selected",
    "n_labelled",
    "n_correct",
    "n_label_pos",
    "n_tp",
    "n_fp",
    "n_pred_pos_labelled",
)
REGRESSION_KEYS = (
    "n",
    "n_labelled",
    "sum_abs_error",
    "sum_sq_error",
    "sum_pred_labelled",
    "sum_label",
)


def parse_time(text: str | None, option: str, end: bool = False) -> int | None:
    """Epoch seconds of a ``--since``/``--until`` value; a bare date covers its whole day."""
    if text is None:
        return None
    try:
        if len(text) == 10:
            d = dt.date.fromisoformat(text)
            moment = dt.datetime(d.year, d.month, d.day, tzinfo=dt.UTC)
            if end:
                moment += dt.timedelta(days=1)
            return int(moment.timestamp())
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise MonitorInputError(
            f"{option} {text!r} is not a date (YYYY-MM-DD) or ISO-8601 time"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp()) + (1 if end else 0)


def day_text(day: int) -> str:
    return (dt.date(1970, 1, 1) + dt.timedelta(days=int(day))).isoformat()


#: The trend's buckets (``--bucket``, SPEC 15.5): whole UTC days, ISO weeks (Monday
#: start), calendar months, or N consecutive predictions (``N-rows``).
BUCKET_KINDS = ("day", "week", "month")
#: At most this many ``N-rows`` buckets in one report.
MAX_ROW_BUCKETS = 10_000
_EPOCH = dt.date(1970, 1, 1)


def parse_bucket(text: str | None) -> tuple[str, int | None]:
    """``--bucket``: ``day``, ``week``, ``month`` (size None) or ``N-rows`` (``rows``, N)."""
    value = "day" if text is None else str(text).strip().lower()
    if value in BUCKET_KINDS:
        return value, None
    head, sep, tail = value.partition("-")
    if sep and tail == "rows" and head.isdigit() and int(head) >= 1:
        return "rows", int(head)
    raise MonitorInputError(
        f"--bucket {text!r} is not day, week, month or N-rows (N predictions per bucket, "
        "e.g. 500-rows)"
    )


def _calendar_bucket(day: int, kind: str) -> tuple[str, int, int]:
    """(label, first day, last day) of the day's ``day``/``week``/``month`` bucket."""
    date = _EPOCH + dt.timedelta(days=int(day))
    if kind == "week":  # ISO 8601: weeks start on Monday; week 1 holds the first Thursday
        year, week, weekday = date.isocalendar()
        first = int(day) - (weekday - 1)
        # the last ISO week of 9999 ends after 9999-12-31: its dates stop there
        return f"{year:04d}-W{week:02d}", first, min(first + 6, MAX_DAY)
    if kind == "month":
        first = int(day) - (date.day - 1)
        length = calendar.monthrange(date.year, date.month)[1]
        return f"{date.year:04d}-{date.month:02d}", first, first + length - 1
    return date.isoformat(), int(day), int(day)


class EmptyWindow(MonitorInputError):
    """No predictions of the version in the window: ``report``, ``slice`` and ``gate``
    refuse it (exit 2); ``watch`` judges nothing and says so (SPEC 15.11)."""

    def __init__(self, model: str, version: str, since: str | None, until: str | None) -> None:
        self.model, self.version = model, version
        self.window = {"since": since, "until": until}
        self.where = f"since {since or 'the start'}, until {until or 'now'}"
        super().__init__(
            f"model {model!r} version {version!r}: no predictions in the window ({self.where})"
        )


def versions(store: Store, key: str) -> list[str]:
    """Versions of ``key`` in the order their first batch was logged, of batches that
    stored predictions: one whose every request id was stored already (as another
    version) holds none and makes no version "latest logged" (SPEC 15.5)."""
    rows = store.query(
        "SELECT version, MIN(id) FROM batches WHERE model = ? AND kind = 'predictions' "
        "AND rows_new > 0 GROUP BY version ORDER BY MIN(id)",
        (key,),
    )
    return [r[0] for r in rows]


def _known_model(store: Store, model: str) -> str:
    key = model_key(model)
    if store.one("SELECT key FROM models WHERE key = ?", (key,)) is None:
        known = [r[0] for r in store.query("SELECT name FROM models ORDER BY key")]
        listed = ", ".join(known) if known else "none yet"
        raise MonitorInputError(
            f"model {model!r} has nothing logged in the store (models: {listed}); "
            "log predictions with: faircode fairness log"
        )
    return key


def cube(
    store: Store,
    key: str,
    slots: list[int],
    version: str,
    since: int | None,
    until: int | None,
    weighted: bool = False,
) -> pd.DataFrame:
    """Sufficient statistics per (attribute codes, day): a GROUP BY over slice_stats
    (with ``weighted``, the sample-weight sums too).

    The window is whole UTC days: ``since`` and ``until`` (epoch seconds, ``until``
    exclusive) are widened to the days that contain them.
    """
    first = None if since is None else since // 86400
    end = None if until is None else (until - 1) // 86400 + 1
    return rollup.cells(store, key, slots, version, first, end, weighted)


def _decoders(store: Store, key: str) -> dict[int, dict[int, Any]]:
    out: dict[int, dict[int, Any]] = {}
    for slot, code, value in store.query(
        "SELECT slot, code, value FROM attr_values WHERE model = ?", (key,)
    ):
        out.setdefault(int(slot), {})[int(code)] = json.loads(value)
    return out


def latest_version(store: Store, model: str) -> str:
    """The version of ``model`` whose first batch was logged last."""
    known = versions(store, _known_model(store, model))
    if not known:
        raise MonitorInputError(f"model {model!r} has no predictions logged")
    return known[-1]


class _Context:
    """What a report needs besides the cube: names, decoders, task, settings."""

    def __init__(
        self,
        store: Store,
        model: str,
        registry: Registry,
        version: str | None,
        attrs: list[str] | None,
        since: str | None,
        until: str | None,
    ) -> None:
        self.store = store
        self.key = _known_model(store, model)
        known_versions = versions(store, self.key)
        if version is None:
            if not known_versions:
                raise MonitorInputError(f"model {model!r} has no predictions logged")
            version = known_versions[-1]
            self.version_source = "latest logged"
        else:
            if version not in known_versions:
                listed = ", ".join(known_versions) or "none"
                raise MonitorInputError(
                    f"model {model!r} has no predictions for version {version!r} "
                    f"(logged versions: {listed})"
                )
            self.version_source = "given"
        self.version = version
        self.registry = registry
        slot_of = dict(
            store.query("SELECT name, slot FROM attributes WHERE model = ?", (self.key,))
        )
        self.attrs = list(attrs) if attrs is not None else list(registry.slices)
        missing = [a for a in self.attrs if a not in slot_of]
        if missing:
            # `slice MODEL ATTR` names its attribute itself: the registry is not the cause
            fix = "the registry's slices" if attrs is None else "ATTR: name a logged one"
            raise MonitorInputError(
                f"model {model!r}: attribute(s) {', '.join(missing)} were never logged "
                f"(logged: {', '.join(sorted(slot_of)) or 'none'}); log them with --attr "
                f"or fix {fix}"
            )
        self.slots = [int(slot_of[a]) for a in self.attrs]
        self.since_text, self.until_text = since, until
        self.since = parse_time(since, "--since")
        self.until = parse_time(until, "--until", end=True)
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise MonitorInputError(
                f"--since {since!r} is after --until {until!r}: the window is empty; "
                "give the earlier time to --since"
            )
        self.decode = _decoders(store, self.key)
        self.grouping = registry.grouping()
        metas = [
            json.loads(r[0])
            for r in store.query(
                "SELECT meta FROM batches WHERE model = ? AND kind = 'predictions' AND version = ? "
                "ORDER BY id",
                (self.key, version),
            )
        ]
        self.pred_meta = metas[-1]
        self.all_scored = all(m.get("score") is not None for m in metas)
        # --weight (SPEC 15.3): ingest keeps a model's batches all weighted or all not
        if len({m.get("weight") is None for m in metas}) > 1:
            raise MonitorInputError(
                f"model {self.key} version {version}: some prediction batches were logged "
                "with --weight and some without; the store was changed outside faircode"
            )
        #: the weight column (the latest batch's, as the prediction column), or None
        self.weight: str | None = self.pred_meta.get("weight")
        label_meta = store.query(
            "SELECT meta FROM batches WHERE model = ? AND kind = 'labels' ORDER BY id DESC LIMIT 1",
            (self.key,),
        )
        self.label_col = json.loads(label_meta[0][0])["label"] if label_meta else None
        self.orphans = int(
            store.one("SELECT COUNT(*) FROM orphan_labels WHERE model = ?", (self.key,)) or 0
        )
        self.source = f"store {describe(store.location)}: model {self.key}, version {version}"

    def task(self, frame: pd.DataFrame) -> dict[str, Any]:
        pred = self.pred_meta.get("pred")
        if self.registry.task is not None:
            info = {
                "type": self.registry.task,
                "source": "given",
                "reason": "given in the registry (task)",
            }
        elif self.all_scored:
            info = {
                "type": "binary",
                "source": "inferred",
                "reason": "predictions are derived from a score and a decision threshold",
            }
        elif frame["n_nonbinary_pred"].sum() == 0:
            info = {
                "type": "binary",
                "source": "inferred",
                "reason": f"every prediction in {pred!r} is 0 or 1",
            }
        else:
            self.refuse_class_labels()
            info = {
                "type": "regression",
                "source": "inferred",
                "reason": f"predictions in {pred!r} take values other than 0 and 1",
            }
        if info["type"] == "binary":
            if frame["n_nonbinary_pred"].sum() > 0:
                raise MonitorInputError(
                    self.rows_to_fix(
                        "pred <> 0 AND pred <> 1",
                        "with a prediction other than 0/1 in a binary task",
                        "or set task: regression in the registry",
                    )
                    or self.unexplained()
                )
            if frame["n_nonbinary_label"].sum() > 0:
                raise MonitorInputError(
                    self.rows_to_fix(
                        "label IS NOT NULL AND label <> 0 AND label <> 1",
                        "with a label other than 0/1 in a binary task",
                        "or set task: regression in the registry",
                        labels=True,
                    )
                    or self.unexplained()
                )
        return info

    def refuse_class_labels(self) -> None:
        """Refuse a task inferred a regression whose predictions, or present labels, in
        the window are class labels (SPEC 12.2, 15.5), as ``evaluate`` refuses them."""
        declare = (
            "declare task: regression in the registry (or faircode fairness config "
            f"{self.key} --task regression --reason TEXT) if the values are quantities"
        )
        for role, column, name, fix in (
            (
                "prediction",
                "pred",
                self.pred_meta.get("pred"),
                # a stored prediction is kept as first logged (15.3): remove, then log
                "encode a binary outcome as 0/1 (or log --score COL --decision-threshold T) "
                f"and log the predictions again after faircode fairness remove-batch "
                f"{self.key} BATCH --reason TEXT, or {declare}",
            ),
            (
                "label",
                "label",
                self.label_col,
                # a label sent again overwrites the stored one (15.3)
                f"encode a binary outcome as 0/1 and send the labels again, or {declare}",
            ),
        ):
            classes = self.class_labels(column)
            if classes is not None:
                raise multiclass_error(
                    f"model {self.key} version {self.version}",
                    role,
                    str(name or column),
                    classes,
                    " and the registry declares no task",
                    fix,
                )

    def class_labels(self, column: str) -> list[float] | None:
        """``class_labels`` of the window's non-missing values of ``column`` (``pred`` or
        ``label`` of ``predictions``). A value that is no class id (a fraction, or outside
        -1..MAX_CLASS_ID) settles it at once; otherwise at most MAX_CLASSES + 1 distinct
        values are read, which ``class_labels`` judges as it judges a file's column."""
        where, params = self.in_window(
            f"{column} IS NOT NULL AND ({column} < -1 OR {column} > {MAX_CLASS_ID} "
            f"OR {column} <> ROUND({column}))"
        )
        if self.store.one(f"SELECT 1 FROM predictions WHERE {where} LIMIT 1", params):
            return None
        where, params = self.in_window(f"{column} IS NOT NULL")
        values = self.store.query(
            f"SELECT DISTINCT {column} FROM predictions WHERE {where} LIMIT {MAX_CLASSES + 1}",
            params,
        )
        return class_labels(np.array([float(v) for (v,) in values], dtype="float64"))

    def days(self) -> tuple[int | None, int | None]:
        """The window's first day and the day after its last (None: open)."""
        first = None if self.since is None else self.since // 86400
        end = None if self.until is None else (self.until - 1) // 86400 + 1
        return first, end

    def in_window(self, where: str) -> tuple[str, list[Any]]:
        """``where`` over this model and version's ``predictions``, narrowed to the window
        (SQL and its parameters)."""
        where = f"model = ? AND version = ? AND ({where})"
        params: list[Any] = [self.key, self.version]
        first, end = self.days()
        if first is not None:
            where += " AND day >= ?"
            params.append(first)
        if end is not None:
            where += " AND day < ?"
            params.append(end)
        return where, params

    def rows_to_fix(
        self, cond: str, what: str, alternative: str = "", labels: bool = False
    ) -> str | None:
        """One line naming the stored predictions of this version and window matching
        ``cond`` (SQL over ``predictions``), their batches and how to remove them (None
        when no row matches)."""
        where, params = self.in_window(cond)
        # stores of schema 1 (read-only, so not migrated) do not record label batches
        label_batch = "label_batch" if self.store.version >= 2 else "NULL"
        count = int(self.store.one(f"SELECT COUNT(*) FROM predictions WHERE {where}", params))
        head = f"model {self.key} version {self.version}"
        if not count:
            return None
        ids = [
            r[0]
            for r in self.store.query(
                f"SELECT request_id FROM predictions WHERE {where} ORDER BY request_id LIMIT 3",
                params,
            )
        ]
        pairs = self.store.query(
            f"SELECT DISTINCT batch, {label_batch} FROM predictions WHERE {where} "
            "ORDER BY batch LIMIT 50",
            params,
        )
        more = f" and {count - len(ids)} more" if count > len(ids) else ""
        rows = "row" if count == 1 else "rows"
        named = ", ".join(repr(i) for i in ids)
        if labels and all(lb is not None for _, lb in pairs):
            batches = sorted({int(lb) for _, lb in pairs})
            kind, note = "label batch", ""
        else:
            batches = sorted({int(b) for b, _ in pairs})
            kind = "prediction batch"
            note = (
                " (their label batch is not recorded: labels stored before faircode "
                "recorded it; the labels go with the predictions)"
                if labels
                else ""
            )
        listed = ", ".join(str(b) for b in batches[:5]) + (", ..." if len(batches) > 5 else "")
        plural = "es" if len(batches) > 1 else ""
        alt = f", {alternative}" if alternative else ""
        return (
            f"{head}: {count} stored {rows} {what}: request id {named}{more}; remove "
            f"{kind}{plural} {listed}{note} with: faircode fairness remove-batch {self.key} "
            f"{batches[0] if len(batches) == 1 else 'BATCH'} --reason TEXT{alt}"
        )

    def unexplained(self) -> str:
        return (
            f"model {self.key} version {self.version}: the stored statistics (slice_stats) "
            "hold values no stored prediction explains: the store was changed outside faircode"
        )

    def pin_groups(self, frame: pd.DataFrame) -> None:
        """The registry's group rules (SPEC 15.5), each decided once over the window's
        values, so the evaluation and every day of the trend slice alike."""
        for a, slot in zip(self.attrs, self.slots, strict=True):
            table = self.decode.get(slot, {})
            codes = frame[SLOT_COLUMNS[slot]].unique().tolist()
            self.grouping.pin(a, [table[c] for c in codes if c >= 0])

    def check_cells(self, frame: pd.DataFrame) -> None:
        """Refuse, naming the rows, what an older store may hold and a report cannot
        use: days outside the years 0001..9999, values beyond evaluate's bounds."""
        days = frame["day"].to_numpy()
        if len(days) and (days.min() < MIN_DAY or days.max() > MAX_DAY):
            raise MonitorInputError(
                self.rows_to_fix(
                    f"day < {MIN_DAY} OR day > {MAX_DAY}",
                    "with a time outside 0001-01-01..9999-12-31",
                    "then log it again with its times fixed",
                )
                or self.unexplained()
            )
        stats = frame[list(rollup.STATS)].to_numpy(dtype="float64")
        n = frame["n_labelled"].to_numpy(dtype="float64") * (1 + 1e-9)
        with np.errstate(all="ignore"):
            bad = ~np.isfinite(stats).all(axis=1)
            bad |= np.abs(frame["sum_label"].to_numpy()) > MAX_MAGNITUDE * n
            bad |= np.abs(frame["sum_pred_labelled"].to_numpy()) > MAX_MAGNITUDE * n
            bad |= frame["sum_abs_error"].to_numpy() > 2 * MAX_MAGNITUDE * n
            bad |= frame["sum_sq_error"].to_numpy() > 4 * MAX_MAGNITUDE**2 * n
        if bad.any():
            huge = f"{MAX_MAGNITUDE!r}"
            raise MonitorInputError(
                self.rows_to_fix(
                    f"label IS NOT NULL AND ABS(pred) > {huge}",
                    "with a prediction beyond +-1e100 (evaluate's bound)",
                )
                or self.rows_to_fix(
                    f"ABS(label) > {huge}",
                    "with a label beyond +-1e100 (evaluate's bound)",
                    labels=True,
                )
                or self.unexplained()
            )


def score_cube(ctx: _Context) -> pd.DataFrame:
    """The score table's partial counts (SPEC 12.4, 15.1): labelled positives and
    negatives per (attribute codes, distinct score) of the version's labelled, scored
    predictions in the window, by one ``GROUP BY`` over ``predictions`` in the
    database (there is no aggregate table of them yet: SPEC 15.1)."""
    dims = [f"COALESCE({SLOT_COLUMNS[s]}, -1)" for s in ctx.slots]
    where, params = ctx.in_window("label IS NOT NULL AND score IS NOT NULL")
    cols = [SLOT_COLUMNS[s] for s in ctx.slots]
    sums = [
        "CAST(SUM(CASE WHEN label = 1 THEN 1 ELSE 0 END) AS BIGINT)",
        "CAST(SUM(CASE WHEN label = 0 THEN 1 ELSE 0 END) AS BIGINT)",
    ]
    values = ["pos", "neg"]
    if ctx.weight is not None:  # the weights of each class, and their squares (SPEC 12.4)
        for name, cls, w in (
            ("wpos", 1, "weight"),
            ("wneg", 0, "weight"),
            ("w2pos", 1, "weight * weight"),
            ("w2neg", 0, "weight * weight"),
        ):
            sums.append(f"SUM(CASE WHEN label = {cls} THEN {w} ELSE 0 END)")
            values.append(name)
    select = ", ".join([f"{d} AS {c}" for d, c in zip(dims, cols, strict=True)] + ["score", *sums])
    rows = ctx.store.query(
        f"SELECT {select} FROM predictions WHERE {where} GROUP BY {', '.join([*dims, 'score'])}",
        params,
    )
    frame = pd.DataFrame.from_records(rows, columns=[*cols, "score", *values])
    for c in cols:
        frame[c] = pd.to_numeric(frame[c]).astype("int64")
    for c in ("score", *values):
        frame[c] = pd.to_numeric(frame[c]).astype("float64")
    return frame


def _groups(
    ctx: _Context,
    frame: pd.DataFrame,
    task: str,
    names: list[list[str]],
    scores: pd.DataFrame | None = None,
    calibration: dict[str, Any] | None = None,
    attributes: dict[str, _Attribute] | None = None,
) -> list[dict[str, Any]]:
    """Each combination's group entry from the cells of ``frame`` (a DataFrame, or a
    trend bucket's :class:`_Bucket`); ``attributes``: the attributes of these rows
    already built (a bucket's, from the window's), else they are built here."""
    keys = BINARY_KEYS if task == "binary" else REGRESSION_KEYS
    has_sel = task == "binary"
    if ctx.weight is not None:  # evaluate's weighted sums (counts.counts_from_rows)
        keys = keys + weighted_keys(task, selected=has_sel)
    out = []
    for combo in names:
        ats = []
        for a in combo:
            if attributes is not None and a in attributes:
                ats.append(attributes[a])
                continue
            slot_column = SLOT_COLUMNS[ctx.slots[ctx.attrs.index(a)]]
            col = frame[slot_column]
            if scores is not None:  # the score rows' slices: the same attribute, after
                col = pd.concat([col, scores[slot_column]], ignore_index=True)
            ats.append(_decoded_attribute(ctx, a, col))
        all_codes, slice_parts = _slices_of(ats)
        codes = all_codes[: len(frame)]
        counts = _sum_cube(codes, len(slice_parts), {k: np.asarray(frame[k]) for k in keys})
        stats = metrics_from_counts(counts, task)
        if scores is not None and calibration is not None:
            weights = None
            if ctx.weight is not None:
                weights = tuple(scores[c].to_numpy() for c in ("wpos", "wneg", "w2pos", "w2neg"))
            table = table_from_cube(
                all_codes[len(frame) :],
                scores["score"].to_numpy(),
                scores["pos"].to_numpy(),
                scores["neg"].to_numpy(),
                weights,
            )
            stats.update(score_metrics(table, len(slice_parts), calibration))
        out.append(
            assemble_group(
                ats,
                slice_parts,
                stats,
                task,
                True,
                has_sel,
                ctx.registry.threshold,
                ctx.registry.min_samples,
                has_score=calibration is not None,
            )
        )
    return out


def _evaluation(ctx: _Context, frame: pd.DataFrame, intersect: bool = False) -> dict[str, Any]:
    task_info = ctx.task(frame)
    task = task_info["type"]
    names = [[a] for a in ctx.attrs]
    if intersect:
        for size in range(2, len(ctx.attrs) + 1):
            names.extend(list(c) for c in combinations(ctx.attrs, size))
    scores = calibration = None
    if ctx.all_scored and task == "binary":  # AUC and calibration per slice (SPEC 12.4)
        scores = score_cube(ctx)
        labelled = scores[(scores["pos"] + scores["neg"]) > 0]
        calibration = score_scale(labelled["score"].to_numpy())
    groups = _groups(ctx, frame, task, names, scores, calibration)
    n = int(frame["n"].sum())
    labelled = int(frame["n_labelled"].sum())
    score = ctx.pred_meta.get("score") if ctx.all_scored else None
    threshold_d = ctx.pred_meta.get("decision_threshold") if ctx.all_scored else None
    if score is not None:
        prediction = f"{score} >= {threshold_d:g}"
    else:
        prediction = ctx.pred_meta.get("pred") or "(stored prediction)"
    report = assemble_report(
        source=ctx.source,
        engine="sql",
        task_info=task_info,
        columns={
            "prediction": None if score is not None else ctx.pred_meta.get("pred"),
            "label": ctx.label_col,
            "score": score,
            "attributes": list(ctx.attrs),
            # only for a weighted model: an unweighted report keeps its keys (SPEC 12.11)
            **({"weight": ctx.weight} if ctx.weight is not None else {}),
        },
        prediction=prediction,
        decision_threshold=threshold_d,
        threshold=ctx.registry.threshold,
        min_samples=ctx.registry.min_samples,
        intersect=intersect,
        rule=ctx.registry.rule,
        ref_groups=ctx.registry.ref_groups,
        ref_option="the registry's ref_groups:",
        rows={
            "total": n,
            "without_prediction": 0,
            "scored": n,
            "labelled": labelled,
            "awaiting_label": n - labelled,
        },
        groups=groups,
        calibration=calibration,
    )
    return report


def _undecided(d: dict[str, Any]) -> str:
    """Why a gated disparity decides nothing ("" when it does)."""
    if d["status"] in ("unmeasured", "partly_measured"):
        return d["reason"]
    if d["status"] == "insufficient" and "guard" in (d["rows_needed"] or {}):
        return f"{d['metric']}: slices below the low-n guard of {d['rows_needed']['guard']}"
    if d["status"] == "insufficient":
        lo, hi = d["ci95"]
        top = "inf" if hi is None else f"{hi:.3f}"
        interval = f"{d['metric']}: interval {lo:.3f}-{top}"
        if above_before_holm(d):  # above at 95% alone: "across" would be false (12.7)
            return f"{interval} above threshold {d['threshold']:g} only before Holm's correction"
        return f"{interval} across threshold {d['threshold']:g}"
    return ""


def sli(evaluation: dict[str, Any], declared: list[str], target: float | None) -> dict[str, Any]:
    """good = declared attributes within threshold; total = those measurable."""
    by_name = {g["name"]: g for g in evaluation["groups"]}
    good = [a for a in declared if by_name[a]["status"] == "within_threshold"]
    bad = [a for a in declared if by_name[a]["status"] == "exceeded"]
    # undecided attributes (unmeasured, or an interval across the threshold, SPEC 12.7)
    # are neither good nor bad: listed with why, never counted
    unmeasurable = [
        {
            "attribute": a,
            "reason": "; ".join(
                _undecided(d) for d in by_name[a]["disparities"] if d["gated"] and _undecided(d)
            ),
        }
        for a in declared
        if by_name[a]["status"] in ("unmeasured", "insufficient_evidence")
    ]
    total = len(good) + len(bad)
    out: dict[str, Any] = {
        "good": len(good),
        "total": total,
        "ratio": None if total == 0 else len(good) / total,
        "within_threshold": good,
        "exceeded": bad,
        "unmeasurable": unmeasurable,
        "target": target,
        "error_budget": None,
    }
    if target is not None:
        if total == 0:
            out["error_budget"] = {
                "allowed_bad": None,
                "bad": 0,
                "remaining": None,
                "remaining_fraction": None,
                "reason": "nothing measurable; the budget cannot be judged",
            }
        else:
            allowed = (1.0 - target) * total
            remaining = allowed - len(bad)
            frac = (remaining / allowed) if allowed > 0 else (1.0 if not bad else -math.inf)
            out["error_budget"] = {
                "allowed_bad": allowed,
                "bad": len(bad),
                "remaining": remaining,
                "remaining_fraction": None if math.isinf(frac) else frac,
                # the exceed rule of disparities (round12): at target 0.9 one bad
                # attribute in ten uses the budget exactly, and (1 - 0.9) * 10 is
                # 0.9999999999999998 in floating point
                "exhausted": exceeds(float(len(bad)), allowed),
            }
    return out


def check_target(target: float) -> float:
    """An SLO target (``--target``, SPEC 15.5, 15.10): a number in (0, 1], as a float."""
    if not is_number(target) or not 0 < target <= 1:
        raise MonitorInputError(
            f"{spelled('--target')} must be a number in (0, 1], e.g. 0.99 (99% of the measurable "
            f"attributes within threshold); got {target!r}"
        )
    return float(target)


def store_report(
    store: Store,
    model: str,
    registry: Registry,
    *,
    version: str | None = None,
    since: str | None = None,
    until: str | None = None,
    attrs: list[str] | None = None,
    target: float | None = None,
    intersect: bool = False,
    trend: bool = True,
    registry_source: str | None = None,
    bucket: str | None = None,
) -> dict[str, Any]:
    """The report of one model version over a window: evaluation, trend per ``bucket``
    (``day``, ``week``, ``month`` or ``N-rows``; default ``day``), SLI."""
    kind, size = parse_bucket(bucket)
    if target is not None:
        check_target(target)
    ctx = _Context(store, model, registry, version, attrs, since, until)
    weighted = ctx.weight is not None
    frame = cube(store, ctx.key, ctx.slots, ctx.version, ctx.since, ctx.until, weighted)
    if frame.empty:
        raise EmptyWindow(registry.model, ctx.version, since, until)
    ctx.check_cells(frame)
    ctx.pin_groups(frame)
    evaluation = _evaluation(ctx, frame, intersect)
    days = _trend(ctx, frame, evaluation, kind, size) if trend else []
    return {
        "kind": "faircode.fairness.report",
        "format_version": 1,
        "model": registry.model,
        "version": ctx.version,
        "version_source": ctx.version_source,
        "window": {"since": since, "until": until},
        "bucket": kind if size is None else f"{size}-rows",
        "registry": {"source": registry_source, **registry.fields()},
        "orphan_labels": ctx.orphans,
        "evaluation": evaluation,
        "trend": days,
        "sli": sli(evaluation, list(ctx.attrs), target),
    }


def _trend(
    ctx: _Context, frame: pd.DataFrame, evaluation: dict[str, Any], kind: str, size: int | None
) -> list[dict[str, Any]]:
    """The trend: per bucket, each declared attribute's gated disparities from that
    bucket's rows alone, with their intervals and statuses, and a note where one is not
    measured. Each bucket is decided as a report of its own (SPEC 15.5): by the
    evaluation's task, rule and alpha, Holm's family its own gated disparities."""
    task = evaluation["task"]["type"]
    rule, alpha = evaluation["settings"]["rule"], evaluation["settings"]["alpha"]
    weighted = ctx.weight is not None
    parts: list[tuple[dict[str, Any], np.ndarray]] = []  # (meta, row positions in source)
    if size is not None:  # N-rows: consecutive predictions in time order
        total = int(frame["n"].sum())
        count = -(-total // size)
        if count > MAX_ROW_BUCKETS:
            raise MonitorInputError(
                f"--bucket {size}-rows makes {count:,} buckets of the window's {total:,} "
                f"predictions, more than {MAX_ROW_BUCKETS:,}: use at least "
                f"{-(-total // MAX_ROW_BUCKETS)}-rows, or a shorter window"
            )
        first, end = ctx.days()
        source = rollup.row_bucket_cells(
            ctx.store, ctx.key, ctx.slots, ctx.version, first, end, size, weighted
        ).reset_index(drop=True)
        for _, part in source.groupby("bucket", sort=True):
            lo, hi = int(part["first_row"].min()), int(part["last_row"].max())
            meta = {
                "bucket": f"{lo}-{hi}",
                "first": day_text(int(part["first_day"].min())),
                "last": day_text(int(part["last_day"].max())),
                "rows": [lo, hi],
            }
            parts.append((meta, part.index.to_numpy()))
    else:
        source = frame.reset_index(drop=True)
        spans = {d: _calendar_bucket(d, kind) for d in source["day"].unique().tolist()}
        label = source["day"].map(lambda d: spans[d][0])
        firsts = {lab: (first, last) for lab, first, last in spans.values()}
        # a week or month the window cuts holds only the window's days: say which (SPEC 15.5)
        start, end = ctx.days()
        for lab, part in source.groupby(label, sort=False):
            first, last = firsts[lab]
            first = first if start is None else max(first, start)
            last = last if end is None else min(last, end - 1)
            meta = {"bucket": lab, "first": day_text(first), "last": day_text(last)}
            if kind == "day":  # the key a day's trend always had (format_version 1)
                meta = {"day": lab, **meta}
            parts.append((meta, part.index.to_numpy()))
        parts.sort(key=lambda p: p[0]["first"])
    out = []
    # The window's attributes once, each bucket's a subset of their codes; the cells as
    # arrays (per bucket and key a DataFrame's __getitem__ cost a fifth of a day trend,
    # the attributes built again a sixth). Only for text values: their order is the same
    # in every subset; numbers and booleans mixed (1, 1.0, True) may sort as a bucket's
    # own values would not, so those attributes are built per bucket as before.
    whole = {
        a: _decoded_attribute(ctx, a, source[SLOT_COLUMNS[ctx.slots[ctx.attrs.index(a)]]])
        for a in ctx.attrs
    }
    whole = {a: at for a, at in whole.items() if all(_text_or_none(v) for v in at.values)}
    arrays = {c: source[c].to_numpy() for c in source.columns}
    for meta, rows in parts:
        bucket = _Bucket({c: v[rows] for c, v in arrays.items()}, len(rows))
        attributes = {a: at.subset(rows) for a, at in whole.items()}
        groups = _groups(ctx, bucket, task, [[a] for a in ctx.attrs], attributes=attributes)
        decide(groups, rule, alpha, plan=False)  # a bucket's statuses; no rows to plan
        out.append(
            {
                **meta,
                "n": int(bucket["n"].sum()),
                "labelled": int(bucket["n_labelled"].sum()),
                "groups": [_trend_group(g, ctx.registry.min_samples) for g in groups],
            }
        )
    return out


def _text_or_none(value: Any) -> bool:
    return value is None or type(value) is str


class _Bucket:
    """A trend bucket's cells as arrays: ``bucket[column]`` is a column's values in the
    bucket's rows, ``len(bucket)`` their number (what :func:`_groups` reads)."""

    def __init__(self, columns: dict[str, np.ndarray], rows: int) -> None:
        self.columns = columns
        self.rows = rows

    def __getitem__(self, column: str) -> np.ndarray:
        return self.columns[column]

    def __len__(self) -> int:
        return self.rows


def _decoded_attribute(ctx: _Context, a: str, column: Any) -> _Attribute:
    """Attribute ``a`` from a column of its slot's codes (a Series or, in a trend
    bucket, an array), decoded to the stored values."""
    table = ctx.decode.get(ctx.slots[ctx.attrs.index(a)], {})
    values = [None if c < 0 else table[c] for c in column.tolist()]
    return _Attribute(a, pd.Series(values, dtype=object), grouping=ctx.grouping)


def _trend_group(g: dict[str, Any], guard: int) -> dict[str, Any]:
    """One attribute's entry in a trend bucket, as decided (:func:`assemble.decide`):
    status, each gated disparity's value, its 95% interval and its status, and for one
    not measured the reason (SPEC 15.5)."""
    gated = [d for d in g["disparities"] if d["gated"]]
    return {
        "name": g["name"],
        "status": g["status"],
        "disparities": {d["metric"]: d["value"] for d in gated},
        "ci95": {d["metric"]: d["ci95"] for d in gated},
        "statuses": {d["metric"]: d["status"] for d in gated},
        "notes": {
            d["metric"]: guard_note(d, g["slices"], guard) for d in gated if d["value"] is None
        },
    }


def _size_text(n: float, weighted: bool) -> str:
    return f"n_eff={n:.1f}" if weighted else f"n={int(n)}"


def guard_note(d: dict[str, Any], slices: list[dict[str, Any]], guard: int) -> str:
    """Why disparity ``d`` has no value in a bucket. Below the low-n guard (a
    disparity needs two slices of at least ``guard`` rows, SPEC 12.5): the bucket's
    count when it is below the guard as a whole (``below the guard: n=12 < 30``), else
    the slices that would have to reach it, largest first (``below the guard: Caucasian
    n=24 < 30``); a metric of two (equalized odds) is named. Otherwise the disparity's
    own reason (no labels, a single slice, ...)."""
    parts = []
    metrics = list(d["based_on"])
    for m in metrics:
        entries = [(s["slice"], s["metrics"][m]) for s in slices if m in s["metrics"]]
        defined = [(name, e) for name, e in entries if e["value"] is not None]
        if sum(not e["low_n"] for _, e in defined) >= 2:
            continue  # this half is measured
        low = [(name, e) for name, e in defined if e["low_n"]]
        if not low:
            continue
        weighted = any("n_eff" in e for _, e in entries)

        def size(e: dict[str, Any], weighted: bool = weighted) -> float:
            return float(e["n_eff"]) if weighted else float(e["count"])

        total = sum(float(e["count"]) for _, e in entries)
        if not weighted and total < guard:
            text = f"{_size_text(total, False)} < {guard}"
        else:
            need = 2 - sum(not e["low_n"] for _, e in defined)
            low.sort(key=lambda t: -size(t[1]))
            text = ", ".join(
                f"{name} {_size_text(size(e), weighted)} < {guard}" for name, e in low[:need]
            )
        parts.append(f"{m}: {text}" if len(metrics) > 1 else text)
    if parts:
        return "below the guard: " + "; ".join(parts)
    return str(d.get("reason") or "not measured")


def _cell(v: float | None, ci: list[float | None] | None = None) -> str:
    if v is None:
        return "-"
    if not ci:
        return f"{v:.3f}"
    hi = "inf" if ci[1] is None else f"{ci[1]:.3f}"
    return f"{v:.3f} [{ci[0]:.3f}, {hi}]"


#: The trend's first column and its title, per bucket kind (SPEC 15.5).
_BUCKET_TITLES = {
    "day": ("Day", "per day"),
    "week": ("Week", "per ISO week (Monday start, UTC)"),
    "month": ("Month", "per calendar month (UTC)"),
    "rows": ("Rows", "per bucket of {size} predictions in time order"),
}


def trend_title(report: dict[str, Any]) -> tuple[str, str]:
    """(first column, heading words) of the report's trend table."""
    kind, size = parse_bucket(report.get("bucket"))
    column, words = _BUCKET_TITLES[kind]
    return column, words.format(size=size)


def trend_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The trend table: a row per bucket (its dates unless it is a day, its rows and
    labelled rows), a column per attribute and gated disparity: the value with its 95%
    interval and the mark of its status (``render.TREND_MARKS``: ``!`` exceeded, ``?``
    insufficient, ...), or why it is not measured (a bucket below the low-n guard says
    so)."""

    column, _ = trend_title(report)
    days = column == "Day"
    head = [column] + ([] if days else ["From", "To"]) + ["N", "Labelled"]
    metrics: list[tuple[str, str]] = []
    for bucket in report["trend"]:
        for g in bucket["groups"]:
            for m in g["disparities"]:
                if (g["name"], m) not in metrics:
                    metrics.append((g["name"], m))
    short = {
        "demographic_parity_difference": "DP",
        "equalized_odds_difference": "EO",
        "accuracy_range": "Acc",
        "mae_range": "MAE",
    }
    head += [f"{g}:{short.get(m, m)}" for g, m in metrics]
    rows = []
    for bucket in report["trend"]:
        by = {g["name"]: g for g in bucket["groups"]}
        cells = [bucket.get("bucket", bucket.get("day", ""))]
        if not days:
            cells += [bucket["first"], bucket["last"]]
        cells += [str(bucket["n"]), str(bucket["labelled"])]
        for name, m in metrics:
            g = by.get(name)
            v = None if g is None else g["disparities"].get(m)
            if v is None:
                note = None if g is None else g.get("notes", {}).get(m)
                cells.append(note or "-")
                continue
            mark = TREND_MARKS.get(g["statuses"][m], "")
            cells.append(_cell(v, g.get("ci95", {}).get(m)) + mark)
        rows.append(cells)
    return head, rows


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return [
        "  ".join(
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()
        for cells in [head, *rows]
    ]


def sli_lines(s: dict[str, Any]) -> list[str]:
    ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
    lines = [
        f"SLI: {s['good']}/{s['total']} measurable declared attributes within threshold "
        f"(ratio {ratio})"
    ]
    for u in s["unmeasurable"]:
        lines.append(f"  unmeasurable (not counted as good): {u['attribute']}: {u['reason']}")
    b = s["error_budget"]
    if b is not None:
        if b.get("remaining") is None:
            lines.append(f"error budget (target {s['target']:g}): {b['reason']}")
        else:
            frac = b["remaining_fraction"]
            left = (
                "exhausted"
                if b.get("exhausted")
                else (f"{frac:.1%} left" if frac is not None else "left")
            )
            lines.append(
                f"error budget (target {s['target']:g}): {b['bad']} bad of "
                f"{b['allowed_bad']:.3g} allowed; {left}"
            )
    return lines


def render_report_text(report: dict[str, Any]) -> str:

    out = [
        f"model {report['model']} version {report['version']} "
        f"({report['version_source']}); window {report['window']['since'] or 'start'} .. "
        f"{report['window']['until'] or 'now'}; registry from {report['registry']['source']}"
    ]
    if report["orphan_labels"]:
        out.append(
            f"orphan labels (no prediction logged for their request id): {report['orphan_labels']}"
        )
    out.append(render_text(report["evaluation"]).rstrip("\n"))
    if report["trend"]:
        out.append("")
        out.append(
            f"trend {trend_title(report)[1]} (gated disparities with 95% intervals; "
            f"{trend_legend()}):"
        )
        out += _table(*trend_rows(report))
    out.append("")
    out += sli_lines(report["sli"])
    return "\n".join(out) + "\n"


def render_report_markdown(report: dict[str, Any]) -> str:

    out = [
        f"**Model** `{report['model']}` version `{report['version']}`; registry from "
        f"{report['registry']['source']}; orphan labels: {report['orphan_labels']}",
        "",
    ]
    out.append(render_markdown(report["evaluation"]).rstrip("\n"))
    if report["trend"]:
        head, rows = trend_rows(report)
        out += [
            "",
            f"### Trend {trend_title(report)[1]}",
            "",
            f"Gated disparities with 95% intervals; {trend_legend()}.",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "|".join("---" for _ in head) + "|",
        ]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    out += ["", "### SLI", ""] + [f"- {line.strip()}" for line in sli_lines(report["sli"])]
    return "\n".join(out) + "\n"
