"""``fairness evaluate --engine spark``: the per-slice sufficient statistics as Spark
aggregations, the report from the local engine's code (SPEC 12.10).

The rows never leave Spark. What the driver collects is small: a few facts per column
(counts, minima, the first bad value in row order), the distinct values of each
attribute (at most a few thousand; the profiler's group rules are applied to them here,
by :class:`faircode.monitor.slices._Attribute`, exactly as the local engine applies
them), one row of sufficient statistics per slice (SPEC 15.1; with ``--intersect`` one
per combination of every attribute's slices) and, with ``--score`` and ``--label``,
the score table (labelled positives and negatives per slice and distinct score). The
counts then go through the pandas engine's formulas (:mod:`.counts`, :mod:`.scores`)
and the shared assembly (``assemble_group``, ``assemble_report``), so the report is
``==`` to ``evaluate(..., engine="pandas")`` on the same file, except ``engine``
(``"spark"``) and, for sums of floats (a regression's errors, sample weights), the
order of addition (SPEC 12.10).

Reading follows SPEC 12.1 as the local engine does: a CSV by :mod:`faircode.spark`'s
reader (the header, delimiter and first records by faircode's own reader, the rest by
Spark's CSV reader, the differences it cannot follow refused: SPEC 0.7), every cell a
string; a number is parsed by the rules of ``inputs._numeric`` (trimmed, the missing
tokens missing, ``True``/``False`` words 0/1; the usual decimal forms are parsed by
Spark, which rounds as Python does; any other text is parsed here, by the local rules,
from its distinct values). Parquet files and Spark DataFrames are typed sources: string,
integer, floating-point and boolean columns, as ``pandas.read_parquet`` gives them (an
integer column with a null becomes floating point, as pandas makes it, unless pandas'
metadata in the file's footer marks it a nullable integer, ``Int64``, which pandas keeps
integer); other types are refused.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Collection
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..formats import frame_name
from ..labels import clean_header
from ..options import FAIRNESS_MIN_SAMPLES, FAIRNESS_THRESHOLD, advised, resolve, spelled
from ..results import EvaluateResult
from .args import path
from .assemble import (
    ModelFacts,
    assemble_group,
    assemble_report,
    check_rule,
    decide_task,
    prepare,
)
from .counts import DENOMINATOR_KEYS, counts_from_cube, metrics_from_counts
from .errors import MonitorInputError
from .inputs import (
    _BOOL_TEXT,
    MAX_CLASS_ID,
    MAX_MAGNITUDE,
    _fmt_num,
    _not_numeric,
    _number_cell,
    class_labels,
)
from .intervals import ALPHA
from .io import check_columns, file_format
from .scores import score_metrics, score_scale, table_from_cube
from .slices import MAX_INTERSECT_ATTRIBUTES, MAX_TOTAL_SLICES, Grouping, _Attribute, _slices_of

try:  # pragma: no cover - exercised by the import check in tests
    from pyspark.sql import Column, DataFrame, SparkSession, Window  # noqa: F401
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as _exc:  # pragma: no cover
    raise ImportError(
        "--engine spark needs PySpark: pip install 'faircode[spark]' (and a Java 17+ runtime)"
    ) from _exc

__all__ = ["evaluate_spark"]

#: The decimal forms Spark's cast parses as Python's ``float`` (and ``pandas.to_numeric``)
#: does, correctly rounded; any other text is parsed on the driver by the local rules.
_DECIMAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_ROW = "_faircode_row"
#: Distinct unusual texts of a numeric column parsed on the driver at most (beyond it the
#: column is refused: a numeric column does not hold thousands of different words).
_MAX_OTHER = 10_000
_TYPED_OK = (
    T.StringType,
    T.ByteType,
    T.ShortType,
    T.IntegerType,
    T.LongType,
    T.FloatType,
    T.DoubleType,
    T.BooleanType,
)
_INTEGER = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
#: pandas' nullable integer dtypes, as its Parquet metadata names them (``numpy_type``).
_PANDAS_NULLABLE_INTS = frozenset(f"{u}Int{bits}" for u in ("", "U") for bits in (8, 16, 32, 64))
#: The field of ``_distinct_values``'s items that holds a value of each attribute type
#: (integers as long, floats as double: both exact).
_SLOT_TYPES = {"s": T.StringType(), "l": T.LongType(), "d": T.DoubleType(), "b": T.BooleanType()}
_SLOT = {
    T.StringType: "s",
    **{t: "l" for t in _INTEGER},
    T.FloatType: "d",
    T.DoubleType: "d",
    T.BooleanType: "b",
}


def _spark() -> str:
    """The engine's option as the surface spells it (SPEC 0.6): ``--engine spark`` on the
    command line, ``engine='spark'`` on the API."""
    return advised("--engine", "spark", cli="spark")


def evaluate_spark(
    data: DataFrame | str | Path,
    pred: str | None,
    attrs: list[str] | tuple[str, ...] | str,
    label: str | None = None,
    score: str | None = None,
    decision_threshold: float | None = None,
    task: str | None = None,
    threshold: float = FAIRNESS_THRESHOLD,
    min_samples: int = FAIRNESS_MIN_SAMPLES,
    intersect: bool = False,
    rule: str = "interval",
    alpha: float = ALPHA,
    overrides: dict[str, str] | None = None,
    opts: dict[str, Any] | None = None,
    ref_groups: dict[str, Any] | None = None,
    weight: str | None = None,
    *,
    master: str | None = None,
    spark: SparkSession | None = None,
) -> dict[str, Any]:
    """Evaluate a model's predictions per slice with Spark (SPEC 12.10).

    Parameters
    ----------
    data
        A CSV or Parquet file (a local path or a Hadoop-style URL: ``hdfs://``,
        ``s3a://``, ``abfss://``, ``dbfs:/`` ...) or a Spark DataFrame.
    pred, attrs, label, score, decision_threshold, task, threshold, min_samples,
    intersect, rule, alpha, overrides, opts, ref_groups, weight
        As :func:`faircode.monitor.evaluate`.
    master
        The Spark master when no session is active (default ``local[2]``).
    spark
        A SparkSession to use.

    Returns
    -------
    dict
        The report of :func:`faircode.monitor.evaluate` (``engine`` is ``"spark"``).

    Raises
    ------
    MonitorInputError
        Bad input, with the local engine's message; or what the Spark path cannot read
        as the local engine does (a JSON lines file, standard input, a Parquet column of
        another type), naming ``--engine spark``.
    """
    attr_list, grouping, refs, required = prepare(
        attrs,
        pred,
        label,
        score,
        decision_threshold,
        task,
        threshold,
        min_samples,
        rule,
        alpha,
        overrides,
        opts,
        ref_groups,
        weight,
        intersect,
    )
    check_rule(rule, alpha)
    from .. import spark as fspark  # lazy: start-up

    if isinstance(data, DataFrame):
        source, source_path = frame_name(), None  # as profile() names a frame (SPEC 0.6)
        session = data.sparkSession
        table = _typed_table(data, source)
    else:
        if isinstance(data, pd.DataFrame):
            raise MonitorInputError(
                f"{_spark()} reads a file or a Spark DataFrame, not a pandas DataFrame; "
                "use engine='pandas' for it"
            )
        source = path(
            "data",
            data,
            "a Spark DataFrame, or the path (a str or os.PathLike) of a CSV or Parquet file",
        )
        source_path = source
        if source == "-":
            raise MonitorInputError(f"{_spark()} reads a path (CSV or Parquet), not standard input")
        session = spark or fspark.get_session(master)
        table = _read_path(source, session, fspark)
    check_columns(table.header, required, source)
    ev = _Evaluation(
        table,
        source,
        attr_list,
        grouping,
        pred=pred,
        label=label,
        score=score,
        decision_threshold=decision_threshold,
        task=task,
        weight=weight,
    )
    ev.check_reading(fspark)
    task_info = ev.read_columns()
    if intersect and len(attr_list) > MAX_INTERSECT_ATTRIBUTES:
        n = len(attr_list)
        raise MonitorInputError(
            f"{spelled('--intersect')} with {n} attributes would make {2**n - n - 1:,} combined "
            f"slicings; intersect at most {MAX_INTERSECT_ATTRIBUTES} attributes "
            f"({2**MAX_INTERSECT_ATTRIBUTES - MAX_INTERSECT_ATTRIBUTES - 1} slicings)"
        )
    ev.attributes()
    groups = ev.groups(intersect, threshold, min_samples)
    columns: dict[str, Any] = {
        "prediction": pred,
        "label": label,
        "score": score,
        "attributes": attr_list,
    }
    if weight is not None:
        columns["weight"] = weight
    return EvaluateResult(
        assemble_report(
            source=source_path,
            engine="spark",
            task_info=task_info,
            columns=columns,
            prediction=(
                f"{score} >= {_fmt_num(decision_threshold)}"
                if score is not None and decision_threshold is not None
                else str(pred)
            ),
            decision_threshold=decision_threshold,
            threshold=threshold,
            min_samples=min_samples,
            intersect=intersect,
            rule=rule,
            alpha=alpha,
            rows=ev.rows,
            groups=groups,
            ref_groups=refs,
            calibration=ev.calibration,
        )
    )


# --------------------------------------------------------------------------- reading


class _Table:
    """A source read by Spark: its header, the rows (columns ``_c<i>`` and the row order
    ``_ROW``), whether its cells are CSV text, and the CSV reader's per-row checks."""

    def __init__(
        self,
        header: list[str],
        frame: DataFrame,
        text: bool,
        checks: Column | None = None,
        source: Any = None,
        line_end: str = "\n",
    ) -> None:
        self.header = header
        self.frame = frame
        self.text = text
        self.checks = checks
        self.source = source
        self.line_end = line_end
        # the columns pandas' metadata marks as nullable integers (_pandas_nullable_ints)
        self.nullable_ints: set[str] = set()

    def col(self, name: str) -> Column:
        return F.col(f"_c{self.header.index(name)}")

    def dtype(self, name: str) -> T.DataType:
        return self.frame.schema[f"_c{self.header.index(name)}"].dataType


def _typed_table(frame: DataFrame, source: str, nullable_ints: Collection[str] = ()) -> _Table:
    """``nullable_ints``: the columns (by ``frame``'s names) that pandas' metadata marks
    as nullable integers (_pandas_nullable_ints)."""
    header = clean_header(str(c) for c in frame.columns)
    internal = [f"_c{i}" for i in range(len(header))]
    renamed = frame.toDF(*internal).withColumn(_ROW, F.monotonically_increasing_id())
    table = _Table(header, renamed, text=False)
    table.nullable_ints = {
        name for name, c in zip(header, frame.columns, strict=True) if c in nullable_ints
    }
    return table


def _pandas_nullable_ints(src: Any) -> set[str]:
    """The columns that pandas' metadata in a Parquet file's footer marks as nullable
    integers (``Int64`` and kin): ``pandas.read_parquet``, the local engine's reader,
    keeps them integer even with a null. Empty without pyarrow or that metadata."""
    try:
        import pyarrow as pa  # lazy: optional extra 'fast'
        import pyarrow.parquet as pq  # lazy: optional extra 'fast'
    except ImportError:
        return set()
    end = src.tail(8)  # a Parquet file ends with its footer's length and b"PAR1"
    if len(end) != 8 or end[4:] != b"PAR1":
        return set()
    footer = src.tail(int.from_bytes(end[:4], "little") + 8)
    try:  # the footer alone, behind the leading magic, reads as a file's schema
        meta = pq.read_schema(pa.BufferReader(b"PAR1" + footer)).pandas_metadata or {}
    except (pa.ArrowException, OSError, ValueError):
        return set()
    return {
        c["field_name"]
        for c in meta.get("columns", [])
        if isinstance(c, dict) and c.get("numpy_type") in _PANDAS_NULLABLE_INTS
    }


def _read_path(path: str, session: SparkSession, fspark: Any) -> _Table:
    fmt = file_format(Path(path))  # the local engine's extensions (SPEC 12.1)
    if fmt == "jsonl":
        raise MonitorInputError(
            f"{path}: {_spark()} reads CSV or Parquet; JSON lines are read by the local "
            f"engine only (drop {_spark()}, or convert the file to Parquet)"
        )
    if path.lower().endswith(".gz"):
        raise MonitorInputError(
            f"{path}: {_spark()} reads uncompressed CSV or Parquet; decompress it, "
            f"or drop {_spark()}"
        )
    try:
        src = fspark._Source(path, path, session)
        if src.is_dir or src.head(4) == b"PAR1":
            if src.is_dir:
                raise MonitorInputError(f"{path}: is a directory; fairness evaluate reads one file")
            return _typed_table(session.read.parquet(path), path, _pandas_nullable_ints(src))
        delimiter = "tab" if path.lower().endswith(".tsv") else None
        options = resolve({"delimiter": delimiter} if delimiter else None)
        table, line_end, frame = fspark._read_csv(src, options, session)
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None
    frame = frame.withColumnRenamed("_row", _ROW)
    return _Table(
        table.header, frame, text=True, checks=table.checks, source=src, line_end=line_end
    )


# --------------------------------------------------------------------------- columns


class _Number:
    """A numeric column (prediction, score, label or weight) in Spark: ``value`` is a
    double or null (missing), by the rules of ``inputs._numeric``."""

    def __init__(self, table: _Table, name: str, role: str) -> None:
        self.name, self.role = name, role
        c = table.col(name)
        dtype = table.dtype(name)
        self.raw = c
        self.other: Column | None = None  # text that Spark does not parse (CSV, strings)
        if isinstance(dtype, T.StringType):
            from ..spark import _string_label  # lazy: start-up

            lab = _string_label(c)
            bools = F.create_map(*[F.lit(x) for kv in _BOOL_TEXT.items() for x in kv])
            plain = lab.rlike(_DECIMAL)
            self.base = F.coalesce(F.when(plain, lab.cast("double")), F.element_at(bools, lab))
            self.other = lab.isNotNull() & ~plain & ~lab.isin(*_BOOL_TEXT)
            self.value = self.base
        elif isinstance(dtype, T.BooleanType):
            self.value = c.cast("double")
        elif isinstance(dtype, _TYPED_OK):
            d = c.cast("double")
            self.value = F.when(F.isnan(d), F.lit(None)).otherwise(d)
        else:
            raise MonitorInputError(
                f"{role} column {name!r} has the type {dtype.simpleString()}; "
                f"{_spark()} reads numbers, booleans and text (drop {_spark()})"
            )
        self.bad: Any = None  # the first non-numeric raw cell (local order), or None
        self.unreadable: list[str] = []  # non-numeric cells that float() refuses too

    def resolve_other(self, frame: DataFrame, n_other: int) -> None:
        """Parse the distinct texts Spark does not by the local rules; remember the first
        bad one (in row order) and map the good ones to their numbers."""
        if not n_other or self.other is None:
            return
        rows = (
            frame.where(self.other)
            .groupBy(self.raw.alias("raw"))
            .agg(F.min(_ROW).alias("first"))
            .orderBy("first")
            .limit(_MAX_OTHER + 1)
            .collect()
        )
        parsed: dict[str, float] = {}
        for r in rows:
            cell = _number_cell(r["raw"])
            x = pd.to_numeric(pd.Series([cell], dtype=object), errors="coerce").iloc[0]
            if pd.isna(x):
                if self.bad is None:
                    self.bad = r["raw"]  # the first in row order, as pd.factorize meets it
                try:  # what weights_of can point at (float() reads '1_0', pandas not)
                    y = float(cell)
                    if not math.isfinite(y) or abs(y) > MAX_MAGNITUDE:
                        self.unreadable.append(r["raw"])
                except (TypeError, ValueError):
                    self.unreadable.append(r["raw"])
                continue
            parsed[r["raw"]] = float(x)
        if self.bad is not None:
            return
        if len(rows) > _MAX_OTHER:
            raise MonitorInputError(
                f"{self.role} column {self.name!r} has more than {_MAX_OTHER:,} distinct "
                "texts that are not plain decimals; --engine spark does not read them "
                "(drop --engine spark)"
            )
        table = F.create_map(*[F.lit(x) for kv in parsed.items() for x in kv])
        self.value = F.coalesce(self.base, F.element_at(table, self.raw))


def _first_row(frame: DataFrame, cond: Column, value: Column) -> tuple[Any, int] | None:
    """(value, 1-based data row) of the first row (in row order) where ``cond`` holds."""
    hit = frame.where(cond).orderBy(_ROW).select(value.alias("v"), F.col(_ROW)).first()
    if hit is None:
        return None
    return hit["v"], frame.where(F.col(_ROW) < hit[_ROW]).count() + 1


class _Evaluation:
    def __init__(
        self,
        table: _Table,
        source: str,
        attrs: list[str],
        grouping: Grouping,
        *,
        pred: str | None,
        label: str | None,
        score: str | None,
        decision_threshold: float | None,
        task: str | None,
        weight: str | None,
    ) -> None:
        self.table, self.source, self.attr_names, self.grouping = table, source, attrs, grouping
        self.pred_col, self.label_col, self.score_col = pred, label, score
        self.decision_threshold, self.task, self.weight_col = decision_threshold, task, weight
        for a in attrs:
            dtype = table.dtype(a)
            if not isinstance(dtype, _TYPED_OK):
                raise MonitorInputError(
                    f"{source}: attribute column {a!r} has the type {dtype.simpleString()}; "
                    "--engine spark slices by text, numbers and booleans (drop --engine "
                    "spark, or cast the column)"
                )
        self.predictor = (
            _Number(table, score, "score")
            if score is not None
            else _Number(table, str(pred), "prediction")
        )
        self.label = None if label is None else _Number(table, label, "label")
        self.weight = None if weight is None else _Number(table, weight, "weight")
        self.rows: dict[str, int] = {}
        self.calibration: dict[str, Any] | None = None
        self.n_rows = 0

    def numbers(self) -> list[_Number]:
        return [n for n in (self.predictor, self.weight, self.label) if n is not None]

    # ------------------------------------------------------------------ checks

    def check_reading(self, fspark: Any) -> None:
        """Job 1: the row count, the CSV reader's checks (SPEC 0.7) and the unusual
        texts of the numeric columns."""
        frame, t = self.table.frame, self.table
        aggs = [F.count(F.lit(1)).alias("n")]
        letters = "L0URN"
        if t.checks is not None:
            aggs += [
                F.sum(F.when(F.instr(t.checks, ch) > 0, 1).otherwise(0)).alias(f"f{k}")
                for k, ch in enumerate(letters)
            ]
        numbers = self.numbers()
        for k, num in enumerate(numbers):
            if num.other is not None:
                aggs.append(F.sum(num.other.cast("int")).alias(f"o{k}"))
        facts = frame.agg(*aggs).first()
        if t.checks is not None:
            flags = {ch: int(facts[f"f{k}"] or 0) for k, ch in enumerate(letters)}
            flags = {ch: n for ch, n in flags.items() if n}
            self._check_csv(flags, fspark)
        self.n_rows = int(facts["n"])
        if self.n_rows == 0:  # the local reader's words for a CSV (SPEC 0.6), else core's
            if t.text:
                raise MonitorInputError(f"{self.source}: no data rows, only a header")
            raise MonitorInputError(f"{self.source}: no data rows; the file has a header only")
        for k, num in enumerate(numbers):
            if num.other is not None:
                num.resolve_other(frame, int(facts[f"o{k}"] or 0))

    def _check_csv(self, flags: dict[str, int], fspark: Any) -> None:
        src = self.table.source
        try:
            if flags.keys() & {"0", "U", "L"}:
                if src.local:
                    fspark._local_error(src, _csv_options(self.source))
                    if "L" in flags:
                        raise InputError(
                            f"{self.source}: Spark's CSV reader found records longer than "
                            "the header where faircode finds none; drop --engine spark"
                        )
                else:
                    fspark._raise_remote(self.source, flags, len(self.table.header))
        except InputError as exc:
            raise MonitorInputError(str(exc)) from None
        if "R" in flags:
            raise MonitorInputError(
                f"{self.source}: a value contains a carriage return: the file mixes line "
                "ends (or quotes a CR), which Spark's CSV reader cannot read as SPEC 0.2 "
                "says; convert line ends or drop --engine spark"
            )
        self.line_breaks = "N" in flags

    def read_columns(self) -> dict[str, str]:
        """Job 2: the facts of SPEC 12.1 and 12.2 in one aggregation, then the local
        engine's checks in its order; returns the report's ``task``."""
        frame = self.table.frame
        src = self.source
        pv = self.predictor.value
        has_pred = pv.isNotNull()
        aggs: list[Column] = [F.sum(has_pred.cast("int")).alias("scored")]
        for k, num in enumerate(self.numbers()):
            v = num.value
            aggs.append(F.sum(F.when(F.abs(v) == float("inf"), 1).otherwise(0)).alias(f"inf{k}"))
            aggs.append(
                F.min_by(v, F.when(F.abs(v) > MAX_MAGNITUDE, F.col(_ROW))).alias(f"huge{k}")
            )
        predicted = F.when(has_pred, self._prediction())
        lv = None if self.label is None else self.label.value
        labelled = has_pred & lv.isNotNull() if lv is not None else None
        aggs += _value_facts("p", predicted)
        aggs.append(
            F.min_by(predicted, F.when(has_pred & ~predicted.isin(0.0, 1.0), F.col(_ROW))).alias(
                "p_other"
            )
        )
        if lv is not None:
            lab_scored = F.when(has_pred, lv)
            aggs += _value_facts("y", lab_scored)
            aggs.append(F.sum(labelled.cast("int")).alias("labelled"))
            aggs.append(
                F.min_by(lv, F.when(labelled & ~lv.isin(0.0, 1.0), F.col(_ROW))).alias("y_other")
            )
            if self.score_col is not None:
                aggs.append(F.min(F.when(labelled, pv)).alias("s_min"))
                aggs.append(F.max(F.when(labelled, pv)).alias("s_max"))
        facts = frame.agg(*aggs).first()

        # the local engine's order: prediction (or score), rows scored, weights, label
        numbers = self.numbers()
        self._check_number(self.predictor, 0, facts)
        if not facts["scored"]:
            raise MonitorInputError(
                f"{src}: column {self.predictor.name!r} has no values; every row is "
                "missing its prediction"
            )
        if self.weight is not None:
            self._check_weights(facts, numbers.index(self.weight))
        if self.label is not None:
            self._check_number(self.label, numbers.index(self.label), facts)
        n_scored = int(facts["scored"])
        n_labelled = int(facts["labelled"] or 0) if lv is not None else 0
        if self.score_col is not None and lv is not None:
            lo, hi = facts["s_min"], facts["s_max"]
            self.calibration = score_scale(np.array([] if lo is None else [float(lo), float(hi)]))
        asked = self.task is None and self.score_col is None
        facts_task = ModelFacts(
            pred_classes=_classes(facts, "p") if asked else None,
            label_classes=_classes(facts, "y") if asked and lv is not None else None,
            pred_binary=bool(facts["p_n01"] == 0),
            first_other_pred=None if facts["p_other"] is None else float(facts["p_other"]),
            first_other_label=(
                None if lv is None or facts["y_other"] is None else float(facts["y_other"])
            ),
        )
        task_info = decide_task(
            src,
            self.pred_col,
            self.label_col,
            self.score_col,
            self.decision_threshold,
            self.task,
            lv is not None,
            facts_task,
        )
        self.task_type = task_info["type"]
        self.rows = {
            "total": self.n_rows,
            "without_prediction": self.n_rows - n_scored,
            "scored": n_scored,
            "labelled": n_labelled,
            "awaiting_label": n_scored - n_labelled if lv is not None else n_scored,
        }
        return task_info

    def _prediction(self) -> Column:
        v = self.predictor.value
        if self.score_col is not None:
            return (v >= F.lit(float(self.decision_threshold))).cast("double")  # type: ignore[arg-type]
        return v

    def _check_number(self, num: _Number, k: int, facts: Any) -> None:
        src = self.source
        if num.bad is not None:
            raise _not_numeric(src, num.role, num.name, num.bad)
        if facts[f"inf{k}"]:
            raise MonitorInputError(
                f"{src}: {num.role} column {num.name!r} contains infinite values; remove them"
            )
        huge = facts[f"huge{k}"]
        if huge is not None:
            raise MonitorInputError(
                f"{src}: {num.role} column {num.name!r} has a value beyond +-1e100 "
                f"({_fmt_num(huge)}); squared errors would overflow, rescale it"
            )

    def _check_weights(self, facts: Any, k: int) -> None:
        """SPEC 12.1's weight errors, naming the first bad data row (inputs.weights_of)."""
        assert self.weight is not None
        num, frame, src = self.weight, self.table.frame, self.source
        rule = "weights must be finite numbers >= 0 (0 leaves a row out)"
        v = num.value
        if num.bad is not None or facts[f"inf{k}"] or facts[f"huge{k}"] is not None:
            # as weights_of: the first cell (row order) that float() cannot read, or
            # whose number is infinite or huge; else the column's not-numeric error
            cond = (F.abs(v) == float("inf")) | (F.abs(v) > MAX_MAGNITUDE)
            if num.unreadable:
                cond = F.coalesce(cond, F.lit(False)) | num.raw.isin(*num.unreadable)
            hit = _first_row(frame, F.coalesce(cond, F.lit(False)), num.raw)
            if hit is None:
                raise _not_numeric(src, num.role, num.name, num.bad)
            raw_cell, row = hit
            x = _number_cell(raw_cell) if isinstance(raw_cell, str) else raw_cell
            try:
                value = float(x)
            except (TypeError, ValueError):
                raise MonitorInputError(
                    f"{src}: weight column {num.name!r} is not numeric: {raw_cell!r} in data "
                    f"row {row}; {rule}"
                ) from None
            raise MonitorInputError(
                f"{src}: weight column {num.name!r} has {_fmt_num(value)} in data row {row}; "
                f"{rule}, at most 1e100"
            )
        scored = self.predictor.value.isNotNull()
        hit = _first_row(frame, scored & (v.isNull() | (v < 0)), v)
        if hit is None:
            return
        value, row = hit
        if value is None:
            raise MonitorInputError(
                f"{src}: weight column {num.name!r} is missing in data row {row}, which has "
                f"a prediction; give every scored row a weight ({rule})"
            )
        raise MonitorInputError(
            f"{src}: weight column {num.name!r} has a negative weight "
            f"({_fmt_num(value)}) in data row {row}; {rule}"
        )

    # ------------------------------------------------------------------ slices

    def attributes(self) -> None:
        """Each attribute's distinct values (over every row, as the local engine
        factorises the whole column) through the profiler's group rules; the code of
        each row's slice value is then joined in Spark."""
        t = self.table
        self.ats: list[_Attribute] = []
        self.code_cols: list[Column] = []
        frame = t.frame
        dtypes = [t.dtype(name) for name in self.attr_names]
        keys: list[Column] = []
        for name, dtype in zip(self.attr_names, dtypes, strict=True):
            c = t.col(name)
            if isinstance(dtype, (T.FloatType, T.DoubleType)):
                c = F.when(F.isnan(c), F.lit(None)).otherwise(c)
            keys.append(c)
        distinct = _distinct_values(frame, keys, dtypes)
        for i, name in enumerate(self.attr_names):
            key, dtype = keys[i], dtypes[i]
            values: list[Any] = distinct[i]
            series: pd.Series
            integer, has_null = isinstance(dtype, _INTEGER), None in values
            # pandas.read_parquet makes an integer column with a null floating point,
            # unless pandas' metadata in the file marks it a nullable integer
            if isinstance(dtype, (T.FloatType, T.DoubleType)) or (
                integer and has_null and name not in t.nullable_ints
            ):
                # a FloatType stays 32-bit: its slices are labelled at that precision
                width = "float32" if isinstance(dtype, T.FloatType) else "float64"
                series = pd.Series([np.nan if v is None else float(v) for v in values], dtype=width)
            elif integer:
                series = pd.Series(values, dtype="Int64" if has_null else "int64")
            else:
                series = pd.Series(values, dtype=object)
            at = _Attribute(name, series, self.source, self.grouping)
            if t.text:
                self._check_labels(name, at)
            codes = at.codes.tolist()
            null_code = next((cd for v, cd in zip(values, codes, strict=True) if v is None), -1)
            pairs = [(v, int(cd)) for v, cd in zip(values, codes, strict=True) if v is not None]
            kname, cname = f"_k{i}", f"_s{i}"
            if pairs:
                mapping = frame.sparkSession.createDataFrame(
                    pairs,
                    T.StructType(
                        [T.StructField(kname, dtype), T.StructField(cname, T.IntegerType())]
                    ),
                )
                frame = frame.join(F.broadcast(mapping), key == F.col(kname), "left").drop(kname)
                frame = frame.withColumn(cname, F.coalesce(F.col(cname), F.lit(null_code)))
            else:
                frame = frame.withColumn(cname, F.lit(null_code))
            self.ats.append(at)
            self.code_cols.append(F.col(cname))
        self.coded = frame

    def _check_labels(self, name: str, at: _Attribute) -> None:
        """SPEC 0.7: labels Spark's CSV reader may have read differently are refused."""
        for v in at.values:
            if not isinstance(v, str):
                continue
            if "\n" in v and self.table.line_end != "\n":
                raise MonitorInputError(
                    f"{self.source}: column '{name}' has a value with a line break in a "
                    "CRLF or CR file; Spark's CSV reader changes those (drop --engine spark)"
                )
            if v.startswith('"'):
                raise MonitorInputError(
                    f"{self.source}: column '{name}' has a value starting with '\"'; "
                    "Spark's CSV reader keeps text after a closing quote differently "
                    "(drop --engine spark)"
                )

    def _stat_columns(self) -> list[Column]:
        """The sufficient statistics of SPEC 15.1 as Spark sums over the scored rows,
        each the same per-row term as ``counts.counts_from_rows``."""
        p = F.col("_p")
        has_sel = self.task_type == "binary" or self.decision_threshold is not None
        out: list[tuple[str, Column]] = [("n", F.count(F.lit(1)))]
        w = F.col("_w") if self.weight is not None else None

        def one(cond: Column) -> Column:
            return F.when(cond, 1).otherwise(0)

        weighted: list[tuple[str, Column | None]] = []
        if w is not None:
            weighted.append(("n", None))
        if has_sel:
            sel = (
                p == 1.0
                if self.task_type == "binary"
                else p >= F.lit(float(self.decision_threshold))  # type: ignore[arg-type]
            )
            out.append(("n_selected", F.sum(one(sel))))
            if w is not None:
                weighted.append(("n_selected", sel))
        if self.label is not None:
            y = F.col("_y")
            lab = y.isNotNull()
            out.append(("n_labelled", F.sum(one(lab))))
            if self.task_type == "binary":
                ypos, ppos = y == 1.0, p == 1.0
                out += [
                    ("n_correct", F.sum(one(lab & (p == y)))),
                    ("n_label_pos", F.sum(one(lab & ypos))),
                    ("n_tp", F.sum(one(lab & ypos & ppos))),
                    ("n_fp", F.sum(one(lab & ~ypos & ppos))),
                    ("n_pred_pos_labelled", F.sum(one(lab & ppos))),
                ]
                if w is not None:
                    weighted += [
                        ("n_labelled", lab),
                        ("n_correct", lab & (p == y)),
                        ("n_label_pos", lab & ypos),
                        ("n_label_neg", lab & ~ypos),
                        ("n_tp", lab & ypos & ppos),
                        ("n_fp", lab & ~ypos & ppos),
                        ("n_fn", lab & ypos & ~ppos),
                        ("n_tn", lab & ~ypos & ~ppos),
                        ("n_pred_pos_labelled", lab & ppos),
                        ("n_pred_neg_labelled", lab & ~ppos),
                    ]
            else:
                err = p - y
                sums = {
                    "sum_abs_error": F.abs(err),
                    "sum_sq_error": err * err,
                    "sum_pred_labelled": p,
                    "sum_label": y,
                }
                for key, term in sums.items():
                    out.append((key, _sum(F.when(lab, term))))
                if w is not None:
                    weighted.append(("n_labelled", lab))
                    for key, term in sums.items():
                        out.append((f"w_{key}", _sum(F.when(lab, w * term))))
        cols = [expr.cast("double").alias(key) for key, expr in out]
        for key, cond in weighted:
            assert w is not None
            cols.append(_sum(w if cond is None else F.when(cond, w)).alias(f"w_{key}"))
            if key in DENOMINATOR_KEYS:
                w2 = w * w
                cols.append(_sum(w2 if cond is None else F.when(cond, w2)).alias(f"w2_{key}"))
        return cols

    def groups(self, intersect: bool, threshold: float, min_samples: int) -> list[dict[str, Any]]:
        """Job 3 (and 4 with --score): the statistics per slice, then the report's
        slicings from the collected tables, in the local engine's order."""
        pv = self.predictor.value
        rows = self.coded.where(pv.isNotNull()).select(
            *[c.alias(f"_a{i}") for i, c in enumerate(self.code_cols)],
            self._prediction().alias("_p"),
            *([self.label.value.alias("_y")] if self.label is not None else []),
            *([self.weight.value.alias("_w")] if self.weight is not None else []),
            *([pv.alias("_s")] if self.calibration is not None else []),
        )
        k = len(self.ats)
        stats = self._stat_columns()
        if intersect and k > 1:
            keys = [f"_a{i}" for i in range(k)]
            cube = _collect(rows.groupBy(*keys).agg(*stats), MAX_TOTAL_SLICES)
            if cube is None:
                self._budget_error(rows, intersect)
            cubes = {tuple(range(k)): cube}
        else:
            items = F.explode(
                F.array(
                    *[F.struct(F.lit(i).alias("i"), F.col(f"_a{i}").alias("c")) for i in range(k)]
                )
            )
            long = rows.select(items.alias("_e"), "*").select("_e.i", "_e.c", "*")
            table = _frame(long.groupBy("i", "c").agg(*stats))
            cubes = {
                (i,): table[table["i"] == i].drop(columns="i").rename(columns={"c": "_a0"})
                for i in range(k)
            }
        scores = self._score_cube(rows, intersect and k > 1) if self.calibration else None

        slicings: list[tuple[int, ...]] = [(i,) for i in range(k)]
        if intersect:
            for size in range(2, k + 1):
                slicings.extend(combinations(range(k), size))
        budget = MAX_TOTAL_SLICES
        out = []
        stat_keys = [c for c in cubes[next(iter(cubes))].columns if not c.startswith("_a")]
        for combo in slicings:
            unit = tuple(range(k)) if intersect and k > 1 else combo
            cube = cubes[unit]
            ats = []
            for a in combo:
                at = copy.copy(self.ats[a])
                col = f"_a{unit.index(a)}"
                at.codes = cube[col].to_numpy(dtype=np.int64)
                ats.append(at)
            codes, slice_parts = _slices_of(ats)
            budget -= len(slice_parts)
            if budget < 0:
                raise MonitorInputError(
                    f"slicing {' x '.join(a.name for a in ats)!r} brings the report above "
                    f"{MAX_TOTAL_SLICES:,} slices; intersect fewer or coarser attributes"
                )
            counts = counts_from_cube(
                codes, len(slice_parts), {c: cube[c].to_numpy() for c in stat_keys}
            )
            result = metrics_from_counts(counts, self.task_type)
            if scores is not None and self.calibration is not None:
                sc = scores[unit]
                sats = []
                for a in combo:
                    at = copy.copy(self.ats[a])
                    at.codes = np.concatenate(
                        [cube[f"_a{unit.index(a)}"], sc[f"_a{unit.index(a)}"]]
                    ).astype(np.int64)
                    sats.append(at)
                all_codes, parts2 = _slices_of(sats)
                assert len(parts2) == len(slice_parts)
                weights = None
                if self.weight is not None:
                    weights = tuple(sc[c].to_numpy() for c in ("wpos", "wneg", "w2pos", "w2neg"))
                table = table_from_cube(
                    all_codes[len(cube) :],
                    sc["_s"].to_numpy(),
                    sc["pos"].to_numpy(),
                    sc["neg"].to_numpy(),
                    weights,
                )
                result.update(score_metrics(table, len(slice_parts), self.calibration))
            out.append(
                assemble_group(
                    ats,
                    slice_parts,
                    result,
                    self.task_type,
                    self.label is not None,
                    self.task_type == "binary" or self.decision_threshold is not None,
                    threshold,
                    min_samples,
                    has_score=self.calibration is not None,
                )
            )
        return out

    def _score_cube(self, rows: DataFrame, full: bool) -> dict[tuple[int, ...], pd.DataFrame]:
        """The score table's counts (SPEC 12.4) per slice and distinct score."""
        k = len(self.ats)
        y = F.col("_y")
        lab = rows.where(y.isNotNull())
        sums = [
            F.sum(F.when(y == 1.0, 1).otherwise(0)).cast("double").alias("pos"),
            F.sum(F.when(y == 0.0, 1).otherwise(0)).cast("double").alias("neg"),
        ]
        if self.weight is not None:
            w = F.col("_w")
            sums += [
                F.sum(F.when(y == 1.0, w).otherwise(0.0)).alias("wpos"),
                F.sum(F.when(y == 0.0, w).otherwise(0.0)).alias("wneg"),
                F.sum(F.when(y == 1.0, w * w).otherwise(0.0)).alias("w2pos"),
                F.sum(F.when(y == 0.0, w * w).otherwise(0.0)).alias("w2neg"),
            ]
        if full:
            keys = [f"_a{i}" for i in range(k)]
            return {tuple(range(k)): _frame(lab.groupBy(*keys, "_s").agg(*sums))}
        items = F.explode(
            F.array(*[F.struct(F.lit(i).alias("i"), F.col(f"_a{i}").alias("c")) for i in range(k)])
        )
        table = (
            lab.select(items.alias("_e"), "_s", "_y", *(["_w"] if self.weight else []))
            .select("_e.i", "_e.c", "_s", "_y", *(["_w"] if self.weight else []))
            .groupBy("i", "c", "_s")
            .agg(*sums)
        )
        table = _frame(table)
        return {
            (i,): table[table["i"] == i].drop(columns="i").rename(columns={"c": "_a0"})
            for i in range(k)
        }

    def _budget_error(self, rows: DataFrame, intersect: bool) -> None:
        """More slices than a report holds: name the slicing that brings it above
        MAX_TOTAL_SLICES, in the local engine's order (counted in Spark)."""
        k = len(self.ats)
        slicings: list[tuple[int, ...]] = [(i,) for i in range(k)]
        for size in range(2, k + 1):
            slicings.extend(combinations(range(k), size))
        budget = MAX_TOTAL_SLICES
        for combo in slicings:
            budget -= rows.select(*[f"_a{i}" for i in combo]).distinct().count()
            if budget < 0:
                names = " x ".join(self.ats[i].name for i in combo)
                raise MonitorInputError(
                    f"slicing {names!r} brings the report above "
                    f"{MAX_TOTAL_SLICES:,} slices; intersect fewer or coarser attributes"
                )
        raise AssertionError("the full intersection exceeds the budget")  # pragma: no cover


def _distinct_values(
    frame: DataFrame, keys: list[Column], dtypes: list[T.DataType]
) -> list[list[Any]]:
    """Every key's distinct values (None for missing) in one pass over the rows: each
    row gives one item per key, ``(i, value)``, the value in the field of its type (one
    struct type for all), and the items are made distinct in Spark (one scan of the
    source, where a ``distinct()`` per key made one each)."""
    slot = [_SLOT[type(d)] for d in dtypes]
    items = F.explode(
        F.array(
            *[
                F.struct(
                    F.lit(i).alias("i"),
                    *[
                        (key if s == slot[i] else F.lit(None)).cast(dtype).alias(s)
                        for s, dtype in _SLOT_TYPES.items()
                    ],
                )
                for i, key in enumerate(keys)
            ]
        )
    )
    rows = frame.select(items.alias("e")).select("e.*").distinct().collect()
    out: list[list[Any]] = [[] for _ in keys]
    for r in rows:
        out[r["i"]].append(r[slot[r["i"]]])
    return out


def _frame(frame: DataFrame) -> pd.DataFrame:
    """A small aggregate on the driver (``collect``: PySpark's ``toPandas`` warns with
    pandas 3)."""
    rows = frame.collect()
    out = pd.DataFrame.from_records([tuple(r) for r in rows], columns=frame.columns)
    for c, dtype in frame.dtypes:
        out[c] = out[c].astype("int64" if dtype in ("int", "bigint") else "float64")
    return out


def _sum(term: Column) -> Column:
    """Sum of the non-null terms, 0 when there is none (as ``np.bincount``)."""
    return F.coalesce(F.sum(term), F.lit(0.0))


def _collect(frame: DataFrame, limit: int) -> pd.DataFrame | None:
    """``frame`` on the driver, or None when it has more than ``limit`` rows."""
    rows = _frame(frame.limit(limit + 1))
    return None if len(rows) > limit else rows


def _value_facts(prefix: str, v: Column) -> list[Column]:
    """What ``class_labels`` and the 0/1 checks read of a column (nulls ignored): the
    count of values, of values not 0/1, of values that cannot be class ids, and the set
    of the others (at most MAX_CLASS_ID + 2 values)."""
    # (v % 1 rather than floor: Spark's ANSI mode fails a floor beyond a long)
    whole = ((v % 1.0) == 0.0) & (v >= -1) & (v <= MAX_CLASS_ID)
    return [
        F.count(v).alias(f"{prefix}_n"),
        F.sum(F.when(v.isNotNull() & ~v.isin(0.0, 1.0), 1).otherwise(0)).alias(f"{prefix}_n01"),
        F.sum(F.when(v.isNotNull() & ~whole, 1).otherwise(0)).alias(f"{prefix}_nonclass"),
        F.collect_set(F.when(whole, v)).alias(f"{prefix}_set"),
    ]


def _classes(facts: Any, prefix: str) -> list[float] | None:
    """``class_labels`` of a column from its facts (it reads the set of values only)."""
    if not facts[f"{prefix}_n"] or facts[f"{prefix}_nonclass"]:
        return None
    return class_labels(np.array(sorted(float(x) for x in facts[f"{prefix}_set"])))


def _csv_options(path: str) -> Any:
    return resolve({"delimiter": "tab"} if path.lower().endswith(".tsv") else None)
