"""How cell text becomes labels: the rules of SPEC.md sections 0.3, 0.4, 2 and 9, in one
place (the browser engine has them in assets/profiler-engine.js).

- trimming (`trim`) and the missing tokens (`MISSING_TOKENS`, `MissingRule`), 0.4;
- typed cells (`MissingRule.typed_label`), 0.4 typed sources;
- header cleaning (`clean_header`), 0.3;
- the age grammar (`age_shape`, `age_value`, `interval_years`) and bands
  (`DEFAULT_AGE_BANDS`, `band_index`, `band_labels`), 2;
- the reference share grammar (`share_value`), 9.

This module imports nothing heavy: every reader (CSV, Arrow, Spark, the monitor's)
and the analysis read it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable

from .numerics import OUTCOME_HUGE, OUTCOME_TINY

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

#: Cells that mean "no value" (case-sensitive, matched after trimming), SPEC 0.4.
MISSING_TOKENS = frozenset({"", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "?"})
#: Characters trimmed from both ends of a label or header name: ASCII space and tab only.
TRIMMED = " \t"

AGE_NUMERIC = re.compile(r"-?[0-9]+(\.[0-9]+)?")
AGE_INTERVAL = re.compile(r"[\[(][0-9]+ *[-,] *[0-9]+[\])]")
DEFAULT_AGE_BANDS = (0, 18, 30, 45, 60, 75)


def trim(text: str) -> str:
    """Leading and trailing ASCII spaces and tabs removed (SPEC 0.4)."""
    return text.strip(TRIMMED)


def float_label(value: float | None, bits: int) -> str | None:
    """A 16- or 32-bit float's label (SPEC 0.4, typed sources): the shortest text that
    reads back as the same value at its own precision (`float32 0.1` and `float16 0.1`
    -> `"0.1"`); `value` is the float widened to 64 bits, as Arrow and pandas hand it
    over. None for null and NaN."""
    if value is None or math.isnan(value):
        return None
    import numpy as np  # lazy: start-up (typed sources only)

    return str(np.float16(value) if bits == 16 else np.float32(value))


def float_labels(values: Any, bits: int) -> list[str | None]:
    """`float_label` of each of a 16- or 32-bit column's values, given widened to a
    float64 numpy array (NaN for null), each distinct value labelled once (told apart
    by its bits: 0.0 and -0.0 differ)."""
    import numpy as np  # lazy: start-up (typed sources only)

    distinct, where = np.unique(values.view(np.int64), return_inverse=True)
    labels = [float_label(v, bits) for v in distinct.view(np.float64).tolist()]
    return [labels[i] for i in where.ravel().tolist()]


def typed_text(value: Any) -> str:
    """The label of a typed value that is not null, text or bytes (SPEC 0.4): its
    Python `str()`, but a duration is Python's `timedelta` text (`1 day, 0:00:00`), a
    pandas `Timedelta` too (whose own text is `1 days 00:00:00`); a non-zero nanosecond
    part gives nine fraction digits, as a timestamp's text does."""
    import datetime  # lazy: start-up

    if not isinstance(value, datetime.timedelta):
        return str(value)
    text = datetime.timedelta.__str__(value)
    ns = getattr(value, "nanoseconds", 0)
    if not ns:
        return text
    if not value.microseconds:
        text += ".000000"
    return f"{text}{ns:03d}"


class MissingRule:
    """The missing tokens of a read and the label functions built on them.

    `MissingRule()` is SPEC 0.4's rule; `MissingRule(extra=("-",))` also treats the
    extra tokens as missing (matched, like the defaults, against the trimmed cell).
    `label_of`, `typed_label` and `frame_label` are plain functions (closures over the
    token set), so a reader can pass them around and call them per distinct value."""

    __slots__ = ("tokens", "label_of", "typed_label", "frame_label")

    def __init__(self, extra: Iterable[str] = ()) -> None:
        tokens = MISSING_TOKENS | frozenset(extra)
        self.tokens: frozenset[str] = tokens

        def label_of(raw: str) -> str | None:
            """A CSV cell's label, or None when it is missing (SPEC 0.4)."""
            s = raw.strip(TRIMMED)
            return None if s in tokens else s

        def typed_label(value: Any) -> str | None:
            """A typed (non-CSV) cell's label (SPEC 0.4, typed sources).

            null and float NaN are missing; strings go through the label rules; bytes
            are decoded as UTF-8 (undecodable bytes replaced) and then treated as
            strings; every other value is Python ``str()`` of its Python form (``34``,
            ``34.5``, ``True``, ``2020-01-31``, ``2020-01-31 08:00:00``) and is not
            trimmed or matched against the missing tokens (a typed value is never a
            marker)."""
            if value is None:
                return None
            if isinstance(value, str):
                return label_of(value)
            if isinstance(value, float) and math.isnan(value):
                return None
            if isinstance(value, (bytes, bytearray, memoryview)):
                return label_of(bytes(value).decode("utf-8", "replace"))
            return typed_text(value)  # pyarrow hands a duration[ns] over as pandas' type

        def frame_label(value: Any) -> str | None:
            """A pandas cell's label, the frame's nulls already turned into None; bytes
            are decoded as for every typed source (SPEC 0.4), not shown as b'...'."""
            if value is None:
                return None
            if isinstance(value, str):
                return label_of(value)
            if isinstance(value, (bytes, bytearray, memoryview)):
                return label_of(bytes(value).decode("utf-8", "replace"))
            return typed_text(value)

        self.label_of: Callable[[str], str | None] = label_of
        self.typed_label: Callable[[Any], str | None] = typed_label
        self.frame_label: Callable[[Any], str | None] = frame_label

    def is_missing(self, label: str) -> bool:
        """Whether an already trimmed text is a missing token."""
        return label in self.tokens


#: SPEC 0.4 as written: the rule every read uses unless told otherwise.
DEFAULT_RULE = MissingRule()
label_of = DEFAULT_RULE.label_of
typed_label = DEFAULT_RULE.typed_label


def clean_header(names: Iterable[str]) -> list[str]:
    """Trim, name empty headers column_N, rename duplicates name.1, name.2, ... (SPEC 0.3)."""
    out: list[str] = []
    taken: set[str] = set()
    for i, raw in enumerate(names, start=1):
        name = raw.strip(TRIMMED) or f"column_{i}"
        if name in taken:
            k = 1
            while f"{name}.{k}" in taken:
                k += 1
            name = f"{name}.{k}"
        taken.add(name)
        out.append(name)
    return out


def age_shape(label: str) -> tuple[bool, bool]:
    """(is it numeric, is it an interval) in the age grammar of SPEC 2."""
    return AGE_NUMERIC.fullmatch(label) is not None, AGE_INTERVAL.fullmatch(label) is not None


def age_value(label: str, numeric: bool) -> float:
    """The value of an age label of SPEC 2: the number a numeric label spells, else (an
    interval) the integer spelt by its first run of digits."""
    if numeric:
        return float(label)
    digits = ""
    for ch in label:
        if ch.isdigit():
            digits += ch
        elif digits:
            break
    return float(int(digits))


def interval_years(label: str) -> tuple[int, int, int, int]:
    """An interval label's (a, b, first year, last year), SPEC 2: `[a-b)` holds the years
    a..b-1, `(a, b]` the years a+1..b."""
    runs: list[str] = []
    digits = ""
    for ch in label:
        if "0" <= ch <= "9":
            digits += ch
        elif digits:
            runs.append(digits)
            digits = ""
    a, b = int(runs[0]), int(runs[1])
    first = a + 1 if label[0] == "(" else a
    last = b - 1 if label[-1] == ")" else b
    return a, b, first, last


def band_index(edges: tuple[int, ...], value: float) -> int:
    """The band of a value: that of the largest edge not above it (SPEC 2)."""
    band = 0
    for k, edge in enumerate(edges):
        if edge <= value:
            band = k
    return band


def band_labels(edges: tuple[int, ...]) -> list[str]:
    """`<lo>-<hi-1>` per band and `<last>+` (SPEC 2): 0-17, 18-29, ..., 75+."""
    labels = [f"{lo}-{hi - 1}" for lo, hi in zip(edges, edges[1:])]
    labels.append(f"{edges[-1]}+")
    return labels


#: SPEC 21.2: the numbers an outcome cell may spell (ASCII digits, an optional sign,
#: point and exponent), read by Python's float() and JS's Number(), both correctly rounded.
NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def outcome_value(label: str) -> float | None:
    """The value of an outcome label (SPEC 21.2), or None when it is not a number in the
    grammar or is outside the range whose sums stay exact (0, or 1e-140 <= |v| <=
    1e140); -0 is 0."""
    if NUMBER.fullmatch(label) is None:
        return None
    v = float(label)
    if v == 0:
        return 0.0
    if not OUTCOME_TINY <= abs(v) <= OUTCOME_HUGE:
        return None
    return v


def share_value(text: str) -> float | None:
    """A reference share (SPEC 9): a non-negative number in the numeric age grammar of
    SPEC 2, else None. `text` is already trimmed."""
    if AGE_NUMERIC.fullmatch(text) is None or text.startswith("-"):
        return None
    return float(text)
