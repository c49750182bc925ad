"""Spark engine: the counting runs as Spark aggregations, the analysis runs locally.

``profile(spark_df)`` profiles a Spark DataFrame; ``profile_path(path)`` profiles a CSV or
Parquet file given as a local path or a Hadoop-style URL (``hdfs://``, ``s3a://``,
``abfss://``, ``dbfs:/`` ...). Both build the same :class:`faircode.summary.Summary` the
local engine builds (label counts, missing counts, row count, and the one pair table
the analysis reads) and call :func:`faircode.analyze.analyze`, so results are ``==`` to
``faircode.profile`` for the same data, except where listed below.

How it counts (two aggregations, plus one per outcome column):

1. every row yields one ``(position, value)`` item per counted column (``posexplode`` of
   an array of strings) plus one item that carries row-level checks; one
   ``groupBy(position, value).count()``, then the label rule applied to the distinct raw
   values of text columns and a second grouping by label, gives label counts, missing
   counts (the null label), the row count and the check results. The grouped result is
   persisted and read by one collect (a window per column): every column's distinct
   count and missing cells, and the labels of the columns that can be dimensions only
   (an undetected column with more than ``max_categorical`` labels never is, SPEC 0.5;
   a column with more than ``LABEL_CAP`` labels is capped from its distinct count, SPEC
   0.9, and none of its labels reaches the driver);
2. the analysis is run once to learn which tables it reads: the pairs of columns (the
   one it crosses; with ``proxy_hints``, SPEC 16, every pair of dimensions and each
   dimension beside every other column of the first 64), with ``label`` (SPEC 17) the
   label beside each dimension and beside the crossed pair, and with
   ``missing_by_group`` (the default), per dimension label, the rows where each column
   that has a missing cell is missing; one more aggregation counts them all, each row
   yielding one item per table (``_tables``). With ``outcome`` (SPEC 21) one
   aggregation per outcome column adds its exact sums (mantissas per binary exponent)
   overall, per group and per crossed cell.

Labels are made in Spark by SPEC 0.4: leading/trailing ASCII spaces and tabs trimmed
(``btrim(c, ' \\t')``), the exact case-sensitive missing tokens and Spark nulls missing.

**DataFrame rule** (``profile(spark_df)``, Parquet files): a null is missing, and so is
a floating-point NaN (as in a pandas frame); a string column follows SPEC 0.4; any other
value becomes the text of Python ``str()`` applied to the value PySpark's ``collect()``
returns: ints ``34``, floats ``34.0`` / ``1e+16`` / ``-0.0`` / ``inf``, booleans
``True``, decimals ``1.50``, dates ``2020-01-02``, timestamps
``2020-01-02 03:04:05.500000`` (in the driver's local time zone, as ``collect()``
does). Only binary, array, map, struct and interval columns use Spark's own string form
(``cast(c as string)``), which differs from Python ``str()``; a warning names them.
Such values are not group labels in practice; map them to ``ignore`` to silence it.

**CSV** (``profile_path``): faircode reads the first bytes itself (with its own reader)
for the header (trimmed, ``column_N`` for empty names, duplicates renamed ``name.1``),
the sniffed delimiter, ``names`` and ``skip_lines``; Spark's CSV reader then reads the
file with an explicit all-string schema, ``multiLine=true``, quote and escape ``"``,
no whitespace trimming, empty strings kept, ``mode=PERMISSIVE`` with a corrupt-record
column (``FAILFAST`` would reject the short rows SPEC 0.3 accepts; long rows are found
from the corrupt record and refused). The records before the first data row (skipped
lines and the header) are dropped by position and checked against faircode's own
parse. A CSV input must be one file, not a directory or glob.

Where Spark's CSV dialect cannot follow SPEC section 0, and what this module does:

- *Error positions.* Invalid UTF-8 (Spark decodes it to U+FFFD), NUL bytes, long
  rows and rows repeating the header record (SPEC 0.3) are found by Spark without a
  byte offset or line number. For a local file the
  local reader is then run to raise the exact SPEC 0.6 message (the first problem in
  file order); for a remote file the error says what was found but not where. A file
  that really contains the character U+FFFD is accepted when local (the local reader
  finds no error), refused when remote.
- *Line ends.* Spark detects one line separator per file from its first line end and
  does not accept the others: in an LF file a CRLF or lone-CR line end leaves a CR in
  the value (or joins two records). Any CR in any value is refused. In a CRLF or CR
  file, line breaks inside quoted values come back as LF, and a bare LF ends no record;
  so a value with an LF is refused when it is a label the analysis uses, and warned
  about (``SparkDialectWarning``) otherwise.
- *Text after a closing quote* (``"ab"cd``, SPEC: ``abcd``): Spark keeps it as
  ``"ab"cd``. A used label that starts with ``"`` is refused (it cannot be told from a
  legitimate value that begins with an escaped quote).
- *Unterminated quote.* Spark silently reads to the end of the file as one value; the
  SPEC 0.6 error cannot be raised. It shows as a value with line breaks (refused or
  warned about as above) unless the open quote is on the last line.
- *Long rows* are counted from the corrupt record's delimiters outside ``"..."``
  sections; a long row whose extra delimiter follows a quote in mid-field
  (``5"2,x,y``) can be taken for a short one.
- *Limits.* Spark's parser stops at 20480 columns; ``encoding`` other than UTF-8 is
  passed to Spark's (Java) decoder, whose error handling replaces bad bytes.
- *Summary differences* (results are unaffected): missing counts of columns that cannot
  be dimensions are complete here (the local engine stops counting them), and ``pairs``
  holds only the pair the analysis crosses; likewise the SPEC 17.2 tables hold only what
  the analysis reads: ``label_pairs`` and ``missing_by`` for its dimensions among the
  group columns, ``label_cells`` for the crossed pair (``missing_all`` is complete, as
  the local engine's: pass 1's null counts plus the cells of the labels that ``na`` and
  ``recode`` make missing).
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlparse

from .analyze import analyze
from .detect import check_overrides, label_slack
from .errors import DelimiterRefused, InputError
from .labels import MISSING_TOKENS, TRIMMED, clean_header, float_label
from .numerics import OUTCOME_HUGE, OUTCOME_TINY, SCALE1, SCALE2
from .options import Options, advised, held_out_on_spark, missing_labels, relabeler, resolve
from .reader import decoded_blocks, dos_eof_length, open_table, physical_lines
from .summary import LABEL_CAP, PROXY_LABELS, Summary, SummaryBuilder

try:  # pragma: no cover - exercised by the import check in tests
    from pyspark import StorageLevel
    from pyspark.sql import Column, DataFrame, SparkSession, Window
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as _exc:  # pragma: no cover
    raise ImportError(
        "faircode.spark needs PySpark: pip install 'faircode[spark]' (and a Java 17+ runtime)"
    ) from _exc

__all__ = [
    "SparkDialectWarning",
    "get_session",
    "profile",
    "profile_path",
    "summarize",
    "summarize_path",
]

HEAD_BYTES = 1 << 20
MAX_HEAD_BYTES = 64 << 20
# Spark's CSV reader turns a field equal to nullValue into null; it must never match.
_NEVER = "\ufffe\u0000faircode-no-null\u0000\ufffe"
_BAD = "_faircode_corrupt"
_ROW_ITEM = -1  # column index of the per-row check item
_STRAY_LIMIT = 80
_PAIR_SCOPE = 1_000_000  # outcome sums: scopes of pairs start here (group columns below)
LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.driver.memory": "1g",
    "spark.ui.showConsoleProgress": "false",
    # PySpark 4 sends each Column operation's Python call site to the JVM (three more
    # round trips per operation) for its error messages; faircode builds thousands of
    # them per run, none a user wrote. Off: half the driver's py4j calls (docs/spark.md).
    "spark.python.sql.dataFrameDebugging.enabled": "false",
}


class SparkDialectWarning(UserWarning):
    """Spark's CSV reader may have read some values differently from SPEC section 0."""


def get_session(master: str | None = None) -> SparkSession:
    """The active SparkSession, or a new one (``local[2]`` with small settings by default)."""
    if master is None:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        master = "local[2]"
    builder = SparkSession.builder.master(master).appName("faircode")
    if master.startswith("local"):
        for key, value in LOCAL_CONF.items():
            builder = builder.config(key, value)
    return builder.getOrCreate()


# --------------------------------------------------------------------------- labels


def _string_label(c: Column) -> Column:
    """SPEC 0.4 in Spark: trim ASCII space/tab only; missing tokens and null -> null."""
    t = F.btrim(c, F.lit(TRIMMED))
    return F.when(c.isNull() | t.isin(*sorted(MISSING_TOKENS)), F.lit(None)).otherwise(t)


def _identity(key: str) -> str:
    return key


def _float_text(key: str) -> str:
    return str(float(key))  # Spark prints doubles in Java's round-trip form


def _float32_text(key: str) -> str:
    # a FloatType widened to double: labelled at its own precision, as Arrow's (SPEC 0.4)
    return float_label(float(key), 32) or key


def _bool_text(key: str) -> str:
    return "True" if key == "true" else "False"


def _timestamp_text(key: str) -> str:
    return str(T.TimestampType().fromInternal(int(key)))


def _ntz_text(key: str) -> str:
    return str(datetime.fromisoformat(key))


_ROUNDTRIP = "roundtrip"  # keys converted back by a Spark cast and collect()


def _key_for(c: Column, dtype: T.DataType) -> tuple[Column, Callable[[str], str] | str, bool]:
    """(Spark string key or null when missing, key -> label, uses Spark's own string form)."""
    if isinstance(dtype, (T.StringType, T.CharType, T.VarcharType)):
        return _string_label(c), _identity, False
    if isinstance(dtype, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return c.cast("string"), _identity, False
    if isinstance(dtype, T.BooleanType):
        return c.cast("string"), _bool_text, False
    if isinstance(dtype, (T.FloatType, T.DoubleType)):
        d = c.cast("double")
        text = _float32_text if isinstance(dtype, T.FloatType) else _float_text
        return F.when(F.isnan(d), F.lit(None)).otherwise(d.cast("string")), text, False
    if isinstance(dtype, T.DecimalType):
        return c.cast("string"), _ROUNDTRIP, False
    if isinstance(dtype, T.DateType):
        return c.cast("string"), _identity, False
    if isinstance(dtype, T.TimestampNTZType):
        return c.cast("string"), _ntz_text, False
    if isinstance(dtype, T.TimestampType):
        return F.unix_micros(c).cast("string"), _timestamp_text, False
    return c.cast("string"), _identity, True


# --------------------------------------------------------------------------- counting


class _PairProbe(dict):
    """A pairs mapping that records which pair the analysis asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.wanted: list[tuple[int, int]] = []

    def get(self, key, default=None):  # type: ignore[override]
        self.wanted.append(key)
        return {}

    def __getitem__(self, key):
        self.wanted.append(key)
        return {}

    def __contains__(self, key) -> bool:
        return True


class _Table:
    """What the counting needs to know about a table read by Spark."""

    def __init__(
        self,
        name: str,
        header: list[str],
        frame: DataFrame,
        columns: list[str],
        keys: list[tuple[Column, Any]],
        checks: Column | None,
    ) -> None:
        self.name = name
        self.header = header
        self.frame = frame  # the data rows, with the internal column names
        self.columns = columns
        self.keys = keys  # per header column: (Spark key, key -> label)
        self.checks = checks  # a string column of check letters per row, or None
        # SPEC 17.2, set by _count: the group columns, the label column, and per column
        # with `na` / `recode` the Spark keys whose label is missing after SPEC 1.1
        self.groups: list[int] = []
        self.label_at: int | None = None
        self.read: list[int] = []  # columns whose missing cells are counted (not ignored)
        self.miss_keys: dict[int, list[str]] = {}
        # SPEC 21.2: the outcome columns, and per outcome column with `na` / `recode` the
        # Spark keys whose label SPEC 1.1 rewrites -> the new label (None: missing)
        self.outcomes: list[int] = []
        # SPEC 16 (proxy_hints): the first PAIR_COLUMNS counted columns (features) and
        # the cross pair, the pairs the local reader keeps a table for
        self.first: set[int] = set()
        self.cross: tuple[int, int] | None = None
        self.relabeled: dict[int, dict[str, str | None]] = {}
        # the column types as read
        self.dtypes = {c: frame.schema[c].dataType for c in columns}
        # per text column its raw value: pass 1 groups raw values and applies SPEC 0.4
        # (_string_label) to the distinct ones only
        self.raw: dict[int, Column] = {}

    def dtype(self, i: int) -> T.DataType:
        return self.dtypes[self.columns[i]]


def _count(
    table: _Table, overrides: dict[str, str], options: Options, spark: SparkSession
) -> tuple[Summary, dict[str, int]]:
    """Pass 1: label counts, missing counts, n_rows and row checks in one aggregation."""
    builder = SummaryBuilder(table.name, table.header, overrides, options)
    roles = builder.roles
    table.groups, table.label_at = list(builder.groups), builder.label_at
    table.read = [i for i, r in enumerate(roles) if r is not None]
    table.outcomes = list(builder.outcome_at)
    if options.proxy_hints:
        table.first = set(builder.features)
        cross = None
        if options.cross is not None:
            idx = sorted({table.header.index(c) for c in options.cross if c in table.header})
            if len(idx) == 2 and all(roles[i] not in (None, "label", "outcome") for i in idx):
                cross = (idx[0], idx[1])
        table.cross = cross
    counted = [i for i, r in enumerate(roles) if r is not None]
    cap = options.max_categorical
    slack = {i: cap + label_slack(options, table.header[i]) for i in counted}
    # One string per counted column and the row's check letters, exploded with their
    # position (no struct per item), grouped; a text column is grouped by its raw value
    # and SPEC 0.4's label rule (_string_label) is applied to the distinct values only,
    # then the labels are grouped again (" A" and "A" are one label). The position
    # becomes the column index on the grouped rows.
    check = table.checks if table.checks is not None else F.lit("")
    values = [table.raw.get(i, table.keys[i][0]) for i in counted]
    text = [p for p, i in enumerate(counted) if i in table.raw]
    index = F.array(*[F.lit(i) for i in counted], F.lit(_ROW_ITEM))
    grouped = (
        table.frame.select(F.posexplode(F.array(*values, check)).alias("p", "v"))
        .groupBy("p", "v")
        .agg(F.count(F.lit(1)).alias("n"))
    )
    if text:
        label = F.when(F.col("p").isin(*text), _string_label(F.col("v"))).otherwise(F.col("v"))
        grouped = grouped.groupBy("p", label.alias("v")).agg(F.sum("n").alias("n"))
    grouped = grouped.select(
        F.element_at(index, F.col("p") + 1).alias("i"), F.col("v").alias("k"), "n"
    )
    grouped = grouped.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        # SPEC 0.9: a column past LABEL_CAP labels is capped here, from its distinct count
        # in Spark (keys and labels are one to one): its labels never reach the driver.
        # One collect: per column its distinct count and missing cells (on one row of
        # it, whose key is shown only if the column's labels are), and the labels of the
        # columns whose distinct count is at most the most the driver could keep of them
        # (`wanted` below; the row item's check letters always).
        most = F.create_map(
            *[
                x
                for i in counted
                for x in (F.lit(i), F.lit(_most_labels(roles[i], slack[i], i in table.first)))
            ],
            F.lit(_ROW_ITEM),
            F.lit(-1),
        )
        w = Window.partitionBy("i")
        labels = F.count("k").over(w)
        shown = (F.col("i") == _ROW_ITEM) | (
            F.col("k").isNotNull() & (F.col("labels") <= F.element_at(most, F.col("i")))
        )
        stats = grouped.select(
            "i",
            "k",
            "n",
            labels.alias("labels"),
            F.sum(F.when(F.col("k").isNull(), F.col("n")).otherwise(0)).over(w).alias("missing"),
            F.min("k").over(w).alias("first"),
        )
        rows = (
            stats.where(shown | F.col("k").eqNullSafe(F.col("first")))
            .select(
                "i",
                F.when(shown, F.col("k")).alias("k"),
                F.when(shown, F.col("n")).alias("n"),
                "labels",
                "missing",
            )
            .collect()
        )
        n_labels = {r["i"]: r["labels"] for r in rows}
        missing = {r["i"]: int(r["missing"] or 0) for r in rows}
        over = {i for i in counted if roles[i] != "outcome" and n_labels.get(i, 0) > LABEL_CAP}
        capped = [
            i in over and (roles[i] != "open" or slack[i] > LABEL_CAP)
            for i in range(len(table.header))
        ]
        wanted = [
            i
            for i in counted
            if i not in over
            and (
                roles[i] not in ("open", "outcome")
                or (
                    roles[i] == "open"
                    and (
                        n_labels.get(i, 0) <= slack[i]
                        or (  # SPEC 16: counted on as a feature up to PROXY_LABELS labels
                            i in table.first
                            and n_labels.get(i, 0) <= PROXY_LABELS
                            and slack[i] <= LABEL_CAP
                        )
                    )
                )
            )
        ]
        extra = _missing_after(grouped, table, options, spark) if options.missing_by_group else {}
        for o in table.outcomes:  # SPEC 21.2: the cells 1.1 rewrites
            table.relabeled[o] = _relabel_map(grouped, table, o, options)
    finally:
        grouped.unpersist()
    checks: dict[str, int] = {}
    raw: dict[int, dict[str, int]] = {i: {} for i in wanted}
    for r in rows:
        if r["i"] == _ROW_ITEM:
            checks[r["k"]] = checks.get(r["k"], 0) + r["n"]
        elif r["k"] is not None and r["i"] in raw:
            raw[r["i"]][r["k"]] = r["n"]
    n_rows = sum(checks.values())
    counts: list[dict[str, int] | None] = [None] * len(table.header)
    for i in wanted:
        counts[i] = _labels(raw[i], table.keys[i][1], table.dtype(i), spark)
    summary = Summary(
        table.name,
        list(table.header),
        n_rows,
        counts,
        [missing.get(i, 0) for i in range(len(table.header))],
        {},
        capped if any(capped) else [],
    )
    if options.missing_by_group:  # SPEC 17.2: every column, counted or not, after 1.1
        summary.missing_all = [
            missing.get(i, 0) + extra.get(i, 0) if i in table.read else 0
            for i in range(len(table.header))
        ]
    flags: dict[str, int] = {}
    for letters, n in checks.items():
        for ch in letters:
            flags[ch] = flags.get(ch, 0) + n
    return summary, flags


def _most_labels(role: str | None, slack: int, feature: bool) -> int:
    """The most labels a column can have and still have them counted (`wanted` in
    _count): LABEL_CAP, fewer for an open column (its max_categorical and slack, or
    PROXY_LABELS as a SPEC 16 feature), none for an outcome column."""
    if role == "outcome":
        return -1
    if role != "open":
        return LABEL_CAP
    proxy = PROXY_LABELS if feature and slack <= LABEL_CAP else -1
    return min(LABEL_CAP, max(slack, proxy))


def _labels(
    raw: dict[str, int], convert: Any, dtype: T.DataType, spark: SparkSession
) -> dict[str, int]:
    """Turn key counts into label counts."""
    if convert == _ROUNDTRIP:
        keys = sorted(raw)
        if keys:
            back = (
                spark.createDataFrame([(k,) for k in keys], "k string")
                .select("k", F.col("k").cast(dtype).alias("v"))
                .collect()
            )
            text = {r["k"]: str(r["v"]) for r in back}
        else:
            text = {}
        convert = text.__getitem__
    out: dict[str, int] = {}
    for key, n in raw.items():
        lab = convert(key)
        out[lab] = out.get(lab, 0) + n
    return out


# Kinds of item in pass 2's one aggregation (_tables).
_PAIR, _LABEL, _CELL, _MISS = 0, 1, 2, 3


def _tables(
    table: _Table,
    pairs: list[tuple[int, int]],
    label_dims: list[int],
    cells: list[tuple[int, int]],
    missing_dims: list[int],
    missing_cols: list[int],
) -> dict[int, list[dict]]:
    """Pass 2 in one aggregation: every table the analysis reads beside the label counts,
    as rows by kind. Each data row yields one item per table entry, (kind, p, a, b, c):

    - _PAIR, pair index k: (label i, label j) where neither is missing;
    - _LABEL, dimension d: (label of d or null, label of L) where L is present (SPEC 17.2);
    - _CELL, pair index k: (label i, label j, label of L) where all three are present;
    - _MISS, dimension d: (label of d or null, -, the row's mask): the mask has a "1" or
      "0" per column of missing_cols, "1" where the row's cell is missing after SPEC 1.1
      (rows share few masks, and a mask in the key keeps every item a plain count).

    One job in place of one per table: on small inputs Spark's cost is mostly per job
    (planning, code generation, scheduling, and a CSV file parsed again each time)."""
    used = sorted(
        {c for key in [*pairs, *cells] for c in key}
        | set(label_dims)
        | set(missing_dims)
        | ({table.label_at} if (label_dims or cells) and table.label_at is not None else set())
    )
    if not used:
        return {}
    at = {c: n for n, c in enumerate(used)}
    none, mask = len(used), len(used) + 1  # g's last two: a null key, the missing mask
    y = at.get(table.label_at, none)  # the label's key (used only with label items)
    items = [(_PAIR, k, at[i], at[j], none) for k, (i, j) in enumerate(pairs)]
    items += [(_LABEL, d, at[d], y, none) for d in label_dims]
    items += [(_CELL, k, at[i], at[j], y) for k, (i, j) in enumerate(cells)]
    items += [(_MISS, d, at[d], none, mask) for d in missing_dims]
    # Each key once, in an array; item q reads its fields from constant index arrays, so
    # the generated code does not grow with the number of items (SPEC 16: up to 2,016
    # pairs).
    kind, index, first, second, third = (F.array(*[F.lit(x) for x in col]) for col in zip(*items))
    g, q = F.col("g"), F.col("q")
    flags = [F.when(_missing_expr(table, c), "1").otherwise("0") for c in missing_cols]
    keys = [table.keys[c][0] for c in used] + [F.lit(None).cast("string")]
    keys.append(F.concat(*flags) if flags else F.lit(None).cast("string"))
    t, a, b, c = F.col("t"), F.col("a"), F.col("b"), F.col("c")
    both = a.isNotNull() & b.isNotNull()
    keep = (
        ((t == _PAIR) & both)
        | ((t == _LABEL) & b.isNotNull())
        | ((t == _CELL) & both & c.isNotNull())
        | (t == _MISS)
    )
    rows = (
        table.frame.select(F.array(*keys).alias("g"))
        .select("g", F.explode(F.array(*[F.lit(k) for k in range(len(items))])).alias("q"))
        # column[key], not getItem(key): a Column key in getItem is deprecated (PySpark 4)
        .select(
            kind[q].alias("t"),
            index[q].alias("p"),
            g[first[q]].alias("a"),
            g[second[q]].alias("b"),
            g[third[q]].alias("c"),
        )
        .where(keep)
        .groupBy("t", "p", "a", "b", "c")
        .agg(F.count(F.lit(1)).alias("n"))
        .collect()
    )
    out: dict[int, list[dict]] = {}
    for r in rows:
        out.setdefault(r["t"], []).append(r.asDict())
    return out


def _decode_by_index(
    table: _Table, columns: list[tuple[int, ...]], rows: list[dict]
) -> list[dict[tuple[str, ...], int]]:
    """Per entry k of columns (the columns its items read into a, b and c), its labels
    -> rows, from the _tables rows whose index is k (_PAIR: two columns; _CELL: three)."""
    raw: list[list] = [[] for _ in columns]
    for r in rows:
        raw[r["p"]].append(r)
    out = []
    for cols, got in zip(columns, raw, strict=True):
        fields = "abc"[: len(cols)]
        convs = [
            _converter(table, c, {r[f] for r in got}) for c, f in zip(cols, fields, strict=True)
        ]
        counts: dict[tuple[str, ...], int] = {}
        for r in got:
            key = tuple(conv(r[f]) for conv, f in zip(convs, fields, strict=True))
            counts[key] = counts.get(key, 0) + r["n"]
        out.append(counts)
    return out


def _roundtrip_map(keys: set[str], table: _Table, i: int, spark: SparkSession):
    dtype = table.dtype(i)
    back = (
        spark.createDataFrame([(k,) for k in sorted(keys)], "k string")
        .select("k", F.col("k").cast(dtype).alias("v"))
        .collect()
        if keys
        else []
    )
    return {r["k"]: str(r["v"]) for r in back}.__getitem__


def _finish(
    table: _Table, summary: Summary, overrides: dict[str, str], options: Options
) -> Summary:
    """Add the tables the analysis will read: the pair table it crosses and, for SPEC
    17, the label and missing tables of its dimensions (found by running it once on
    probes that record what it asks for)."""
    probe = _PairProbe()
    groups = set(table.groups)
    label_probe = _TableProbe(groups)
    cells_probe = _TableProbe(None)
    missing_probe = _TableProbe(groups)
    probed = Summary(
        summary.name,
        summary.columns,
        summary.n_rows,
        summary.counts,
        summary.missing,
        probe,
        summary.capped,
        missing_all=summary.missing_all,
    )
    # (assigned, not passed: an empty probe is falsy, and Summary would replace it)
    if options.label is not None:
        probed.label_pairs, probed.label_cells = label_probe, cells_probe
    if options.missing_by_group:
        probed.missing_by = missing_probe
    out_probes = {o: (_TableProbe(groups), _TableProbe(None)) for o in table.outcomes}
    probed.outcomes = {
        o: {"n": 0, "s1": 0, "s2": 0, "missing": 0, "non_numeric": 0, "by": by, "cells": cells}
        for o, (by, cells) in out_probes.items()
    }
    analyze(probed, overrides, options)
    wanted = list(dict.fromkeys(probe.wanted))
    if options.proxy_hints:  # SPEC 16: only the pairs the local reader has a table for
        wanted = [
            key
            for key in wanted
            if (key[0] in table.first and key[1] in table.first) or key == table.cross
        ]
    labelled = options.label is not None and table.label_at is not None
    label_dims = [d for d in dict.fromkeys(label_probe.wanted) if d in groups] if labelled else []
    cells = [key for key in dict.fromkeys(cells_probe.wanted) if key in wanted] if labelled else []
    missing_dims = (
        [d for d in dict.fromkeys(missing_probe.wanted) if d in groups]
        if options.missing_by_group
        else []
    )
    # Only columns with a missing cell can have one in a group (most have none).
    missing_cols = [c for c in table.read if summary.missing_all[c]] if missing_dims else []
    rows = _tables(
        table, wanted, label_dims, cells, missing_dims if missing_cols else [], missing_cols
    )
    pairs = dict(zip(wanted, _decode_by_index(table, wanted, rows.get(_PAIR, [])), strict=True))
    summary.pairs = pairs
    if labelled:
        summary.label_pairs = _decode_label_pairs(table, label_dims, rows.get(_LABEL, []))
        at = table.label_at
        by_cell = _decode_by_index(table, [(i, j, at) for i, j in cells], rows.get(_CELL, []))
        summary.label_cells = dict(zip(cells, by_cell, strict=True))
    if options.missing_by_group:
        summary.missing_by = _decode_missing_by(
            table, missing_dims, missing_cols, rows.get(_MISS, [])
        )
    summary.outcomes = {
        o: _outcome_sums(
            table,
            o,
            [d for d in dict.fromkeys(by.wanted) if d in groups],
            [key for key in dict.fromkeys(cells.wanted) if key in pairs],
        )
        for o, (by, cells) in out_probes.items()
    }
    return summary


class _TableProbe(dict):
    """A SPEC 17.2 table mapping that records the keys the analysis asks for and answers
    as an empty table for keys in `allowed` (None: every key), as absent otherwise."""

    def __init__(self, allowed: set | None) -> None:
        super().__init__()
        self.allowed = allowed
        self.wanted: list = []

    def _has(self, key) -> bool:
        return self.allowed is None or key in self.allowed

    def get(self, key, default=None):  # type: ignore[override]
        self.wanted.append(key)
        return {} if self._has(key) else default

    def __getitem__(self, key):
        self.wanted.append(key)
        if not self._has(key):
            raise KeyError(key)
        return {}

    def __contains__(self, key) -> bool:
        self.wanted.append(key)
        return self._has(key)


def _missing_after(
    grouped: DataFrame, table: _Table, options: Options, spark: SparkSession
) -> dict[int, int]:
    """Per column with `na` / `recode` (SPEC 1.1): cells whose label becomes missing
    (the null keys, missing as read, are counted already). Sets table.miss_keys, the
    Spark keys of those labels, for the missing masks of _tables."""
    conds = []
    for i in table.read:
        if missing_labels(table.header[i], options) is None:
            continue
        keys = sorted(
            k for k, lab in _relabel_map(grouped, table, i, options).items() if lab is None
        )
        table.miss_keys[i] = keys
        if keys:
            conds.append((F.col("i") == i) & F.col("k").isin(*keys))
    if not conds:
        return {}
    cond = conds[0]
    for c in conds[1:]:
        cond = cond | c
    rows = grouped.where(cond).groupBy("i").agg(F.sum("n").alias("n")).collect()
    return {r["i"]: int(r["n"]) for r in rows}


def _relabel_map(
    grouped: DataFrame, table: _Table, i: int, options: Options
) -> dict[str, str | None]:
    """The Spark keys of column i whose label SPEC 1.1 (`na`, `recode`) rewrites -> the
    new label (None: missing); empty without `na` / `recode` on the column. Text keys
    are the labels, so only the declared tokens and recode sources are looked at; a
    typed column's keys are read from pass 1's counts (only with `na` / `recode` on it)."""
    relabel = relabeler(table.header[i], options)
    if relabel is None:
        return {}
    convert = table.keys[i][1]
    if convert is _identity:
        keys = sorted(missing_labels(table.header[i], options) or set())
        keys += sorted({frm for col, frm, _ in options.recode if col == table.header[i]})
        label: Callable[[str], str] = _identity
    elif convert is _bool_text:
        keys, label = ["true", "false"], _bool_text
    else:
        keys = [
            r["k"]
            for r in grouped.where((F.col("i") == i) & F.col("k").isNotNull()).select("k").collect()
        ]
        label = _converter(table, i, set(keys))
    out: dict[str, str | None] = {}
    for k in keys:
        lab = label(k)
        new = relabel(lab)
        if new != lab:
            out[k] = new
    return out


def _converter(table: _Table, i: int, keys: set[str]) -> Callable[[str], str]:
    """Spark key -> label for column i (decimals need a round trip through Spark)."""
    convert = table.keys[i][1]
    if convert == _ROUNDTRIP:
        return _roundtrip_map(keys, table, i, table.frame.sparkSession)
    return convert


def _missing_expr(table: _Table, i: int) -> Column:
    """Column i is missing after SPEC 1.1 in this row."""
    key = table.keys[i][0]
    keys = table.miss_keys.get(i)
    return key.isNull() | key.isin(*keys) if keys else key.isNull()


def _decode_label_pairs(
    table: _Table, dims: list[int], rows: list[dict]
) -> dict[int, dict[tuple[str | None, str], int]]:
    """SPEC 17.2: (label of D, label of L) -> rows with L present, for each D (None:
    D missing as read, its missing group), from _tables' _LABEL rows."""
    conv = {d: _converter(table, d, _present(r["a"] for r in rows if r["p"] == d)) for d in dims}
    conv_label = _converter(table, table.label_at, {r["b"] for r in rows})
    out: dict[int, dict] = {d: {} for d in dims}
    for r in rows:
        x = r["a"]
        key = (None if x is None else conv[r["p"]](x), conv_label(r["b"]))
        t = out[r["p"]]
        t[key] = t.get(key, 0) + r["n"]
    return out


def _present(keys) -> set:
    """The Spark keys that are not null (a null key is a cell missing as read)."""
    return {k for k in keys if k is not None}


def _decode_missing_by(
    table: _Table, dims: list[int], read: list[int], rows: list[dict]
) -> dict[int, dict[int, dict[str | None, int]]]:
    """SPEC 17.2: per D, column C -> label of D (None: D missing as read) -> rows of it
    whose C is missing after 1.1 (non-zero entries only), from _tables' _MISS rows."""
    conv = {d: _converter(table, d, _present(r["a"] for r in rows if r["p"] == d)) for d in dims}
    out: dict[int, dict[int, dict[str | None, int]]] = {d: {} for d in dims}
    for r in rows:
        d, n = r["p"], r["n"]
        lab = None if r["a"] is None else conv[d](r["a"])  # None: D's missing group
        for c, bit in zip(read, r["c"], strict=True):
            if bit == "1" and c != d:
                t = out[d].setdefault(c, {})
                t[lab] = t.get(lab, 0) + n
    return out


# --------------------------------------------------------------------------- outcomes

#: SPEC 21.2's number grammar as a Java regular expression (\z: the very end, as
#: Python's fullmatch; `$` would also match before a final line break).
_NUMBER_RE = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\z"
_MISSING, _NON_NUMERIC, _VALUE = 0, 1, 2
_HALF = 26  # a mantissa (< 2^53) is split into high and low parts below 2^27 and 2^26


def _text_value(lab: Column) -> tuple[Column, Column]:
    """(status, value) of an outcome label given as text (null: missing): SPEC 21.2's
    grammar, then Java's correctly rounded parse (Python's float() gives the same)."""
    ok = lab.rlike(_NUMBER_RE)
    status = (
        F.when(lab.isNull(), F.lit(_MISSING)).when(ok, F.lit(_VALUE)).otherwise(F.lit(_NON_NUMERIC))
    )
    return status, F.when(ok, lab.cast("double"))


def _outcome_parts(table: _Table, o: int) -> tuple[Column, Column]:
    """(status, value) of outcome column o per row: status _MISSING (missing after SPEC
    1.1), _NON_NUMERIC, or _VALUE with `value` the double float(label) is (before the
    range check). Text and integer keys are labels; a double is its own value; a decimal
    the correctly rounded double of its text; booleans, dates and times are no numbers."""
    key, convert = table.keys[o]
    mapping = table.relabeled.get(o, {})
    raw = F.col(table.columns[o])
    if convert is _identity:
        lab = key
        if mapping:
            lab = _mapped(key, mapping, key)
        return _text_value(lab)
    dtype = table.dtype(o)
    if isinstance(dtype, (T.FloatType, T.DoubleType)):
        value = raw.cast("double")
        status = (
            F.when(key.isNull(), F.lit(_MISSING))
            .when(F.abs(value) == F.lit(float("inf")), F.lit(_NON_NUMERIC))
            .otherwise(F.lit(_VALUE))
        )
    elif isinstance(dtype, T.DecimalType):
        value = raw.cast("string").cast("double")
        status = F.when(key.isNull(), F.lit(_MISSING)).otherwise(F.lit(_VALUE))
    else:  # booleans, timestamps: their labels (True, 2020-01-02 ...) are no numbers
        value = F.lit(None).cast("double")
        status = F.when(key.isNull(), F.lit(_MISSING)).otherwise(F.lit(_NON_NUMERIC))
    if not mapping:
        return status, value
    m_status, m_value = _text_value(_mapped(key, mapping, F.lit(None).cast("string")))
    hit = key.isin(*sorted(mapping))
    return F.when(hit, m_status).otherwise(status), F.when(hit, m_value).otherwise(value)


def _mapped(key: Column, mapping: dict[str, str | None], other: Column) -> Column:
    """The label SPEC 1.1 gives each mapped key (null: missing), `other` for the rest."""
    out = None
    for k in sorted(mapping):
        new = F.lit(mapping[k]).cast("string")
        out = F.when(key == k, new) if out is None else out.when(key == k, new)
    return out.otherwise(other)  # type: ignore[union-attr]


def _outcome_sums(table: _Table, o: int, dims: list[int], cells: list[tuple[int, int]]) -> dict:
    """SPEC 21.2's sums of outcome column o in one aggregation: every value v is split
    exactly as m * 2^(e - 52) (m an integer below 2^53, from log2 corrected by exact powers
    of two), and per (scope, group keys, e) Spark adds the count, m, and the three parts
    of m^2 as decimal(38, 0) integers (no overflow below 10^21 rows); the driver shifts
    them into the scaled sums of SPEC 21.2 as Python integers. Scopes: the column (-1),
    each group column d (its label as read), each pair (k: 10^6 + k)."""
    # In stages (each column computed once: Spark does not inline an expression that a
    # later one uses several times), the group keys beside (status, value).
    used = sorted({*dims, *(c for key in cells for c in key)})
    status, value = _outcome_parts(table, o)
    stage = table.frame.select(
        *[table.keys[c][0].alias(f"g{c}") for c in used],
        status.alias("st0"),
        value.alias("v"),
    )
    v = F.col("v")
    a = F.abs(v)
    in_range = (a >= F.lit(OUTCOME_TINY)) & (a <= F.lit(OUTCOME_HUGE))
    stage = stage.select(
        "*",
        F.when((F.col("st0") == _VALUE) & (v != 0) & ~in_range, F.lit(_NON_NUMERIC))
        .otherwise(F.col("st0"))
        .alias("st"),
        F.when((F.col("st0") == _VALUE) & (v != 0) & in_range, F.floor(F.log2(a))).alias("guess"),
    )
    guess = F.col("guess")
    is_value = (F.col("st") == _VALUE) & (v != 0)
    e = (
        F.when(a < F.pow(F.lit(2.0), guess), guess - 1)
        .when(a >= F.pow(F.lit(2.0), guess + 1), guess + 1)
        .otherwise(guess)
    )
    stage = stage.select("*", F.when(is_value, e).otherwise(F.lit(0)).cast("int").alias("e"))
    mag = (a * F.pow(F.lit(2.0), 52 - F.col("e"))).cast("long")  # exact: a power of two
    stage = stage.select("*", F.when(is_value, mag).otherwise(F.lit(0).cast("long")).alias("mag"))
    mag = F.col("mag")
    hi = F.shiftright(mag, _HALF)
    lo = mag.bitwiseAND(F.lit((1 << _HALF) - 1))
    none = F.lit(None).cast("string")
    items = [F.struct(F.lit(-1).alias("s"), none.alias("a"), none.alias("b"))]
    items += [
        F.struct(F.lit(d).alias("s"), F.col(f"g{d}").alias("a"), none.alias("b")) for d in dims
    ]
    items += [
        F.struct(
            F.lit(_PAIR_SCOPE + k).alias("s"),
            F.col(f"g{i}").alias("a"),
            F.col(f"g{j}").alias("b"),
        )
        for k, (i, j) in enumerate(cells)
    ]
    dec = T.DecimalType(38, 0)
    parts = stage.select(
        F.explode(F.array(*items)).alias("x"),
        "st",
        "e",
        F.when(v < 0, -mag).otherwise(mag).cast(dec).alias("m"),
        (hi * hi).cast(dec).alias("hh"),
        (hi * lo).cast(dec).alias("hl"),
        (lo * lo).cast(dec).alias("ll"),
    )
    scope = F.col("x.s")
    keep = (scope == -1) | (
        (F.col("st") == _VALUE)
        & F.col("x.a").isNotNull()
        & ((scope < _PAIR_SCOPE) | F.col("x.b").isNotNull())
    )
    rows = (
        parts.where(keep)
        .groupBy(scope.alias("s"), F.col("x.a").alias("a"), F.col("x.b").alias("b"), "st", "e")
        .agg(
            F.count(F.lit(1)).alias("n"),
            F.sum("m").alias("m"),
            F.sum("hh").alias("hh"),
            F.sum("hl").alias("hl"),
            F.sum("ll").alias("ll"),
        )
        .collect()
    )
    out: dict = {"n": 0, "s1": 0, "s2": 0, "missing": 0, "non_numeric": 0}
    raw_by: dict[int, dict[str, list[int]]] = {d: {} for d in dims}
    raw_cells: dict[int, dict[tuple[str, str], list[int]]] = {k: {} for k in range(len(cells))}
    for r in rows:
        s, n = r["s"], r["n"]
        if r["st"] != _VALUE:
            if s == -1:
                out["missing" if r["st"] == _MISSING else "non_numeric"] += n
            continue
        e = r["e"]
        s1 = int(r["m"]) << (e + SCALE1 - 52)
        square = (int(r["hh"]) << (2 * _HALF)) + (int(r["hl"]) << (_HALF + 1)) + int(r["ll"])
        s2 = square << (2 * e + SCALE2 - 104)
        if s == -1:
            out["n"] += n
            out["s1"] += s1
            out["s2"] += s2
            continue
        if s < _PAIR_SCOPE:
            got = raw_by[s].setdefault(r["a"], [0, 0, 0])
        else:
            got = raw_cells[s - _PAIR_SCOPE].setdefault((r["a"], r["b"]), [0, 0, 0])
        got[0] += n
        got[1] += s1
        got[2] += s2
    by = {}
    for d, t in raw_by.items():
        conv = _converter(table, d, set(t))
        by[d] = _stats_by_label({(conv(k),): st for k, st in t.items()}, single=True)
    pair_sums = {}
    for k, (i, j) in enumerate(cells):
        t = raw_cells[k]
        fa = _converter(table, i, {x for x, _ in t})
        fb = _converter(table, j, {y for _, y in t})
        pair_sums[(i, j)] = _stats_by_label({(fa(x), fb(y)): st for (x, y), st in t.items()})
    return {**out, "by": by, "cells": pair_sums}


def _stats_by_label(table: dict, single: bool = False) -> dict:
    """(n, s1, s2) per label (or label pair), keys that give one label added."""
    out: dict = {}
    for key, st in table.items():
        k = key[0] if single else key
        got = out.get(k)
        out[k] = tuple(st) if got is None else (got[0] + st[0], got[1] + st[1], got[2] + st[2])
    return out


# --------------------------------------------------------------------------- DataFrames


def summarize(
    spark_df: DataFrame,
    overrides: dict[str, str] | None = None,
    opts: dict | Options | None = None,
    *,
    name: str = "<dataframe>",
) -> tuple[Summary, dict[str, str], Options]:
    """Count a Spark DataFrame into a Summary; return it with checked overrides and options."""
    options = resolve(opts)
    if options.proxy_hints and options.proxy_with:  # SPEC 16: rows have no order in Spark
        raise InputError(held_out_on_spark())
    if not isinstance(spark_df, DataFrame):
        raise InputError(
            f"cannot profile a {type(spark_df).__name__} with faircode.spark: "
            "give a pyspark.sql.DataFrame"
        )
    header = clean_header(str(c) for c in spark_df.columns)
    checked = check_overrides(overrides, header, options)
    internal = [f"_c{i}" for i in range(len(header))]
    frame = spark_df.toDF(*internal)  # positional: Spark frames may repeat names
    keys: list[tuple[Column, Any]] = []
    spark_form: list[str] = []
    for i, field in enumerate(frame.schema.fields):
        key, convert, own_form = _key_for(F.col(internal[i]), field.dataType)
        keys.append((key, convert))
        if own_form and checked.get(header[i]) != "ignore":
            spark_form.append(f"{header[i]} ({field.dataType.simpleString()})")
    if spark_form:
        warnings.warn(
            f"{name}: Spark's string form is used for {', '.join(spark_form)}; "
            "it differs from Python str() (map them to 'ignore' to skip them)",
            SparkDialectWarning,
            stacklevel=2,
        )
    table = _Table(name, header, frame, internal, keys, None)
    table.raw = {
        i: F.col(c)
        for i, (c, field) in enumerate(zip(internal, frame.schema.fields))
        if isinstance(field.dataType, (T.StringType, T.CharType, T.VarcharType))
    }
    summary, _ = _count(table, checked, options, spark_df.sparkSession)
    if summary.n_rows == 0:
        raise InputError(f"{name}: no data rows, only a header")
    return _finish(table, summary, checked, options), checked, options


def profile(
    spark_df: DataFrame, overrides: dict[str, str] | None = None, opts: dict | Options | None = None
) -> dict:
    """Profile a Spark DataFrame; return the SPEC section 6 dict."""
    summary, checked, options = summarize(spark_df, overrides, opts)
    return analyze(summary, checked, options)


# --------------------------------------------------------------------------- paths


def _is_local(path: str) -> bool:
    scheme = urlparse(path).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


def _local_path(path: str) -> str:
    return urlparse(path).path if path.startswith("file:") else path


class _Source:
    """A file found locally or through Spark's Hadoop file system."""

    def __init__(self, path: str, name: str, spark: SparkSession) -> None:
        self.path, self.name, self.spark = path, name, spark
        self.local = _is_local(path)
        if self.local:
            local = _local_path(path)
            if not os.path.exists(local):
                raise InputError(f"{name}: no such file")
            self.is_dir = os.path.isdir(local)
            self.local_path = local
        else:
            jvm = getattr(spark.sparkContext, "_jvm", None)
            if jvm is None:  # pragma: no cover - Spark Connect
                raise InputError(
                    f"{name}: this Spark session cannot open files from the "
                    "driver; read the table with Spark and call "
                    "faircode.spark.profile(df)"
                )
            self._jpath = jvm.org.apache.hadoop.fs.Path(path)
            self._fs = self._jpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
            if not self._fs.exists(self._jpath):
                raise InputError(f"{name}: no such file")
            self.is_dir = self._fs.getFileStatus(self._jpath).isDirectory()

    def head(self, n: int) -> bytes:
        if self.local:
            with open(self.local_path, "rb") as fh:
                return fh.read(n)
        stream = self._fs.open(self._jpath)
        try:
            return bytes(stream.readNBytes(n))
        finally:
            stream.close()

    def tail(self, n: int) -> bytes:
        """The last ``n`` bytes (all of them in a shorter file)."""
        if self.local:
            with open(self.local_path, "rb") as fh:
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - n))
                return fh.read(n)
        size = self._fs.getFileStatus(self._jpath).getLen()
        stream = self._fs.open(self._jpath)
        try:
            stream.seek(max(0, size - n))
            return bytes(stream.readNBytes(n))
        finally:
            stream.close()


def _head(
    source: _Source, options: Options
) -> tuple[list[str], str, str, list[list[str]], list[str] | None]:
    """Read the first bytes with faircode's reader: (header, delimiter, first line end,
    records Spark forms from the skipped lines, the header record no data record may
    repeat or None: SPEC 0.3)."""
    info: dict = {}
    size = HEAD_BYTES
    while True:
        data = source.head(size + 1)
        whole = len(data) <= size
        if not whole:
            cut = max(data.rfind(b"\n", 0, size), data.rfind(b"\r", 0, size - 1))
            data = data[: cut + 1] if cut >= 0 else b""
        try:
            if not data and not whole:
                raise InputError("head too short")
            header, records = open_table(
                io.BytesIO(data),
                source.name,
                encoding=options.encoding,
                delimiter=options.delimiter,
                names=options.names,
                skip_lines=options.skip_lines,
                one_column=options.one_column,
                info=info,
            )
            if options.names is not None:
                next(records)  # SPEC 0.2: the first record checks a sniffed delimiter
            break
        except InputError as exc:
            if whole or isinstance(exc, DelimiterRefused):
                raise
            if size >= MAX_HEAD_BYTES:
                raise InputError(
                    f"{source.name}: the header is not complete in the first "
                    f"{MAX_HEAD_BYTES >> 20} MB; faircode.spark cannot read "
                    "this file (profile it with the local engine)"
                ) from None
            size *= 4
    lines = physical_lines(
        decoded_blocks(io.BytesIO(data), source.name, options.encoding, len(data) + 1)
    )
    skipped: list[str] = []
    first: str | None = None
    line_end = "\n"
    for k, line in enumerate(lines):
        if k == 0:
            body = line.rstrip("\r\n")
            line_end = line[len(body) :] or "\n"
        if k < options.skip_lines:
            skipped.append(line)
        elif line not in ("\n", "\r\n", "\r"):
            first = line
            break
    assert first is not None  # open_table found a record
    delimiter = info["delimiter"]  # sniffed by open_table (SPEC 0.2)
    text = "".join(skipped)
    if text.count('"') % 2:
        raise InputError(
            f"{source.name}: a skipped line holds an unbalanced quote; "
            "faircode.spark cannot tell where Spark's CSV reader resumes "
            "(profile it with the local engine)"
        )
    skip_records = [
        r
        for r in csv.reader(
            io.StringIO(text, newline=""),
            delimiter=delimiter,
            quotechar='"',
            doublequote=True,
            strict=False,
        )
        if r
    ]
    return header, delimiter, line_end, skip_records, info["record"]


def _field_count(raw: Column, delimiter: str) -> Column:
    """Fields in a raw record: delimiters outside quoted fields (a quote opens a field only
    as its first character, SPEC 0.2), plus one."""
    d = f"[{delimiter}]"
    bare = F.regexp_replace(raw, f'(?<=^|{d})"[^"]*(?:""[^"]*)*"', "")
    return F.length(bare) - F.length(F.replace(bare, F.lit(delimiter), F.lit(""))) + 1


def _read_csv(
    source: _Source, options: Options, spark: SparkSession
) -> tuple[_Table, str, DataFrame]:
    header, delimiter, line_end, skip_records, record = _head(source, options)
    if dos_eof_length(source.tail(4)):  # SPEC 0.2 drops it; Spark cannot tell it is last
        raise InputError(
            f"{source.name}: its last line is a Ctrl-Z (1A, a DOS end-of-file mark), which "
            "Spark's CSV reader reads as a row; delete that line, or profile the file with "
            "the local engine"
        )
    m = len(header)
    internal = [f"_c{i}" for i in range(m)]
    schema = T.StructType(
        [T.StructField(c, T.StringType()) for c in internal] + [T.StructField(_BAD, T.StringType())]
    )
    reader = spark.read.schema(schema).options(
        header=False,
        multiLine=True,
        sep=delimiter,
        quote='"',
        escape='"',
        nullValue=_NEVER,
        emptyValue="",
        ignoreLeadingWhiteSpace=False,
        ignoreTrailingWhiteSpace=False,
        mode="PERMISSIVE",
        columnNameOfCorruptRecord=_BAD,
        unescapedQuoteHandling="STOP_AT_DELIMITER",
        encoding=options.encoding,
        enforceSchema=True,
        maxCharsPerColumn=-1,
    )
    raw = reader.csv(source.path)
    drop = len(skip_records) + (0 if options.names is not None else 1)
    _check_first_records(
        raw.limit(drop).collect() if drop else [], skip_records, header, options, source.name, m
    )
    frame = raw.withColumn("_row", F.monotonically_increasing_id()).where(F.col("_row") >= drop)
    cols = [F.col(c) for c in internal]
    joined = F.concat_ws("\u0001", *cols)
    checks = F.concat(
        F.when(
            F.col(_BAD).isNotNull() & (_field_count(F.col(_BAD), delimiter) > m), F.lit("L")
        ).otherwise(""),
        F.when(F.instr(joined, "\u0000") > 0, F.lit("0")).otherwise(""),
        F.when(F.instr(joined, "\ufffd") > 0, F.lit("U")).otherwise(""),
        F.when(F.instr(joined, "\r") > 0, F.lit("R")).otherwise(""),
        F.when(F.instr(joined, "\n") > 0, F.lit("N")).otherwise(""),
        _repeats(cols, record),
    )
    keys = [(_string_label(c), _identity) for c in cols]
    table = _Table(source.name, header, frame, internal, keys, checks)
    table.raw = {i: c for i, c in enumerate(cols)}  # SPEC 0.4 applies after counting
    return table, line_end, frame


def _repeats(cols: list[Column], record: list[str] | None) -> Column:
    """SPEC 0.3: "H" for a row whose values are the header record's raw fields (a short
    row's missing cells are null, so it is none), the first one after a U+FEFF or not (a
    header line repeated by `cat` after an Excel export starts with a BOM), else ""."""
    if record is None:
        return F.lit("")
    # after a U+FEFF a quoted first name is read as written: unquoted by 0.2's rule
    # (`""` is `"`; the possessive loop never gives back a `""` to close the field)
    quoted = '(?s)^\ufeff"((?:[^"]|"")*+)"(.*)$'
    unquoted = F.concat(
        F.regexp_replace(F.regexp_extract(cols[0], quoted, 1), '""', '"'),
        F.regexp_extract(cols[0], quoted, 2),
    )
    first = cols[0].isin(record[0], "\ufeff" + record[0]) | (
        cols[0].rlike(quoted) & (unquoted == F.lit(record[0]))
    )
    same = F.coalesce(first, F.lit(False))
    for c, v in zip(cols[1:], record[1:]):
        same = same & F.coalesce(c == F.lit(v), F.lit(False))
    return F.when(F.col(_BAD).isNull() & same, F.lit("H")).otherwise("")


def _check_first_records(
    rows: list,
    skip_records: list[list[str]],
    header: list[str],
    options: Options,
    name: str,
    m: int,
) -> None:
    """The records Spark drops must be the skipped lines and the header faircode read."""

    def cells(row) -> list[str]:
        return [v or "" for v in list(row)[:m]]

    expected = [(r + [""] * m)[:m] for r in skip_records]
    got = [cells(r) for r in rows[: len(skip_records)]]
    ok = got == expected and len(rows) == len(skip_records) + (options.names is None)
    if ok and options.names is None:
        head_row = rows[-1]
        ok = (
            head_row[_BAD] is None
            and clean_header(
                c.lstrip("\ufeff") if k == 0 else c for k, c in enumerate(cells(head_row))
            )
            == header
        )
    if not ok:
        raise InputError(
            f"{name}: Spark's CSV reader splits the first records differently "
            "from faircode (header or skipped lines); profile this file with "
            "the local engine"
        )


def _local_error(source: _Source, options: Options) -> None:
    """Run the local reader over a local file to raise the exact SPEC 0.6 error, if any."""
    with open(source.local_path, "rb") as fh:
        _, records = open_table(
            fh,
            source.name,
            encoding=options.encoding,
            delimiter=options.delimiter,
            names=options.names,
            skip_lines=options.skip_lines,
        )
        for _ in records:
            pass


def _raise_remote(name: str, flags: dict[str, int], m: int, names: bool) -> None:
    if "0" in flags:
        raise InputError(
            f"{name}: NUL byte; this looks like a binary file, not CSV "
            "(Spark cannot report the byte offset)"
        )
    if "U" in flags:
        raise InputError(
            f"{name}: not valid UTF-8 (Spark read undecodable bytes as U+FFFD "
            "and cannot report the offset); re-save the file as UTF-8 or pass "
            f"{advised('--encoding')}"
        )
    if "L" in flags:
        if names:  # SPEC 0.3: the names, not a header, may be what is short
            raise InputError(
                f"{name}: {flags['L']} records have more fields than the {m} names "
                f"{advised('--names')} gives (Spark cannot report the line); give one name per "
                "field, or quote values that contain the delimiter"
            )
        raise InputError(
            f"{name}: {flags['L']} records have more fields than the header's "
            f"{m} (Spark cannot report the line); quote values that contain "
            "the delimiter"
        )
    if "H" in flags:
        raise InputError(
            f"{name}: {flags['H']} records repeat the header (files joined with cat?; "
            "Spark cannot report the line); remove the repeated header lines"
        )


def _check_csv(
    source: _Source, summary: Summary, flags: dict[str, int], line_end: str, options: Options
) -> None:
    m = len(summary.columns)
    if flags.keys() & {"0", "U", "L", "H"}:
        if source.local:
            _local_error(source, options)  # raises the local engine's exact message
            if flags.keys() & {"L", "H"}:
                what = "longer than the header" if "L" in flags else "repeating the header"
                raise InputError(
                    f"{source.name}: Spark's CSV reader found records {what} where "
                    "faircode finds none; profile this file with the local engine"
                )
            # U+FFFD really is in the file: Spark read what faircode reads.
        else:
            _raise_remote(source.name, flags, m, options.names is not None)
    if "R" in flags:
        raise InputError(
            f"{source.name}: a value contains a carriage return: the file mixes "
            "line ends (or quotes a CR), which Spark's CSV reader cannot read as "
            "SPEC 0.2 says; convert line ends or profile it with the local engine"
        )
    used = [
        (summary.columns[i], lab)
        for i, counts in enumerate(summary.counts)
        if counts is not None
        for lab in counts
    ]
    for col, lab in used:
        if "\n" in lab and line_end != "\n":
            raise InputError(
                f"{source.name}: column '{col}' has a value with a line break "
                f"in a {_eol_name(line_end)} file; Spark's CSV reader changes "
                "those (profile this file with the local engine)"
            )
        if lab.startswith('"'):
            raise InputError(
                f"{source.name}: column '{col}' has a value starting with '\"' "
                f"({lab[:_STRAY_LIMIT]!r}); Spark's CSV reader keeps text after "
                "a closing quote differently (profile this file with the local "
                "engine)"
            )
    if "N" in flags and line_end != "\n":
        warnings.warn(
            f"{source.name}: {flags['N']} records have values with line breaks in a "
            f"{_eol_name(line_end)} file; Spark's CSV reader returns those as LF and "
            "does not end a record at a bare LF, so such values (not used as groups "
            "here) may differ from the local engine",
            SparkDialectWarning,
            stacklevel=3,
        )


def _eol_name(line_end: str) -> str:
    return {"\r\n": "CRLF", "\r": "CR"}.get(line_end, "LF")


def _looks_parquet(source: _Source) -> bool:
    if source.is_dir:
        return True
    return source.head(4) == b"PAR1"


def summarize_path(
    path: str | os.PathLike,
    overrides: dict[str, str] | None = None,
    opts: dict | Options | None = None,
    master: str | None = None,
    *,
    spark: SparkSession | None = None,
    name: str | None = None,
) -> tuple[Summary, dict[str, str], Options]:
    """Count a CSV or Parquet file with Spark; return (Summary, overrides, options)."""
    options = resolve(opts)
    if options.proxy_hints and options.proxy_with:  # SPEC 16: rows have no order in Spark
        raise InputError(held_out_on_spark())
    path = os.fspath(path)
    label = name or path
    spark = spark or get_session(master)
    source = _Source(path, label, spark)
    if _looks_parquet(source):
        try:
            frame = spark.read.parquet(path)
        except Exception as exc:  # AnalysisException: no Parquet files found
            if source.is_dir:
                raise InputError(
                    f"{label}: is a directory without Parquet data (faircode.spark "
                    "reads one CSV file, or Parquet files or directories)"
                ) from None
            raise InputError(f"{label}: cannot read as Parquet: {exc}") from None
        return summarize(frame, overrides, options, name=label)
    if source.is_dir or any(ch in path for ch in "*?["):
        raise InputError(
            f"{label}: is a directory, not a file (faircode.spark reads one CSV "
            "file; read several with Spark and call faircode.spark.profile)"
        )
    table, line_end, _ = _read_csv(source, options, spark)
    checked = check_overrides(overrides, table.header, options)
    summary, flags = _count(table, checked, options, spark)
    _check_csv(source, summary, flags, line_end, options)
    if summary.n_rows == 0:
        if options.names is not None:
            raise InputError(f"{label}: file is empty")
        raise InputError(f"{label}: no data rows, only a header")
    return _finish(table, summary, checked, options), checked, options


def profile_path(
    path: str | os.PathLike,
    overrides: dict[str, str] | None = None,
    opts: dict | Options | None = None,
    master: str | None = None,
    *,
    spark: SparkSession | None = None,
) -> dict:
    """Profile a CSV or Parquet file (local path or cluster URL) with Spark.

    ``master`` picks the Spark master when no session is active (default ``local[2]``);
    ``spark`` passes a session explicitly.
    """
    summary, checked, options = summarize_path(path, overrides, opts, master, spark=spark)
    return analyze(summary, checked, options)
