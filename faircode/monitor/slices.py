"""Slices: attribute columns factorised to sorted codes, and the slices of a slicing.

A slicing is one attribute or one combination of attributes (``--intersect``); its
slices are the value combinations present in the scored rows (SPEC 12.3).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..analyze import group_rule
from ..labels import float_labels, label_of, typed_label, typed_text
from ..options import resolve
from .errors import MonitorInputError


def _native(value: Any) -> Any:
    """A JSON-friendly Python scalar for a slice value (None for missing)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        # -0.0 == 0.0: one slice, which pandas' factorize would label by its first row's
        # sign; it is the slice of 0.0, as Spark's DISTINCT makes it (SPEC 12.1)
        return value + 0.0 if math.isfinite(value) else str(value)
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return typed_text(value)  # a duration (pandas' Timedelta too): SPEC 0.4's text


def as_labelled(column: pd.Series) -> pd.Series:
    """A float16 / float32 column as the 64-bit floats its labels read as (SPEC 0.4:
    float32 0.1 is the slice 0.1, as the profiler labels it, not 0.10000000149011612);
    any other column as it is. Each distinct value is labelled once."""
    if getattr(column.dtype, "kind", None) != "f" or column.dtype.itemsize >= 8:
        return column
    values = column.to_numpy(dtype="float64", na_value=np.nan)
    read = float_labels(values, column.dtype.itemsize * 8)
    widened = [math.nan if t is None else float(t) for t in read]
    return pd.Series(widened, index=column.index, name=column.name, dtype="float64")


# An attribute with more distinct values than this is an identifier, not a group
# attribute (SPEC 12.3); --intersect takes at most this many attributes, and a report
# holds at most this many slices over all its slicings.
MAX_SLICES_PER_ATTRIBUTE = 1_000
MAX_INTERSECT_ATTRIBUTES = 6
MAX_TOTAL_SLICES = 50_000


_NOT_SCALAR = (list, dict, tuple, set, np.ndarray)


def _not_scalar(name: str, source: str, row: int, value: Any) -> MonitorInputError:
    return MonitorInputError(
        f"{source}: row {row + 1}: attribute column {name!r} holds a "
        f"{type(value).__name__}, not a single value; slice by a column of plain values"
    )


def _typed(v: Any, name: str, source: str, row: int) -> Any:
    """A mixed column's cell keyed by its type (None for missing)."""
    if isinstance(v, _NOT_SCALAR):
        raise _not_scalar(name, source, row, v)
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and math.isnan(v)):
        return None
    return (type(v).__name__, v)


class Grouping:
    """The profiler's group rules for the attributes (SPEC 12.3): `overrides` (`--map`,
    column -> kind) and the resolved options whose `na`, `recode`, `age_bands` and
    `max_age` shape groups; both already validated (`faircode.options.resolve`,
    `faircode.detect.check_overrides`)."""

    def __init__(self, overrides: dict[str, str] | None = None, opts: Any = None) -> None:
        self.overrides = dict(overrides or {})
        self.opts = resolve(opts)
        self._pinned: dict[str, Any] = {}

    def rule(self, name: str, values: list[Any]) -> Any:
        """label -> group (None: missing) for column `name` with these distinct values,
        or None when the profiler keeps its labels as they are. A rule `pin` fixed for
        `name` is that rule, whatever the values."""
        if name in self._pinned:
            return self._pinned[name]
        labels = [v if isinstance(v, str) else typed_label(v) for v in values if v is not None]
        return group_rule(name, labels, self.overrides, self.opts)

    def pin(self, name: str, values: list[Any]) -> None:
        """Fix `name`'s rule to the one these values give (the store: an age column's
        mode is decided once over the report's window, not again per day)."""
        self._pinned.pop(name, None)
        self._pinned[name] = self.rule(name, values)


def is_mixed(column: pd.Series) -> bool:
    """Whether an object column mixes types (True, 1 and 1.0 are then told apart by type,
    SPEC 0.4)."""
    return column.dtype == object and pd.api.types.infer_dtype(column, skipna=True).startswith(
        "mixed"
    )


class _Attribute:
    """One attribute column factorised to sorted codes (missing values last).

    Cells follow SPEC 12.1: a string is a label (trimmed; a missing token is missing),
    a null is missing, other values keep their type. The rule is applied to the
    distinct values only (one pass of pd.factorize over the rows)."""

    def __init__(
        self, name: str, column: pd.Series, source: str = "data", grouping: Grouping | None = None
    ) -> None:
        column = as_labelled(column)
        mixed = is_mixed(column)
        if mixed:  # True, 1 and 1.0 are equal in Python but different labels (SPEC 0.4)
            column = pd.Series(
                [_typed(v, name, source, i) for i, v in enumerate(column.tolist())], dtype=object
            )
        try:
            codes, uniques = pd.factorize(column, use_na_sentinel=True)
        except TypeError:  # unhashable cells (lists, dicts): name the first one's row
            for i, v in enumerate(column.tolist()):
                if isinstance(v, _NOT_SCALAR):
                    raise _not_scalar(name, source, i, v) from None
            raise
        codes = np.asarray(codes, dtype=np.int64)
        index: dict[Any, int] = {}
        remap = np.full(len(uniques) + 1, -1, dtype=np.int64)  # last slot: missing (-1)
        natives: list[Any] = []
        for i, u in enumerate(uniques):
            if mixed:
                u = u[1]
            if isinstance(u, _NOT_SCALAR):
                raise _not_scalar(name, source, int(np.flatnonzero(codes == i)[0]), u)
            natives.append(_native(label_of(u) if isinstance(u, str) else u))
        rule = grouping.rule(name, natives) if grouping is not None else None
        for i, v in enumerate(natives):
            if rule is not None and v is not None:  # the profiler's group (SPEC 12.3)
                v = rule(v if isinstance(v, str) else typed_label(v))
            if v is not None:
                remap[i] = index.setdefault((type(v), v), len(index))
        codes = remap[codes]  # -1 indexes the last slot: missing stays -1
        values = [v for _, v in index]
        if len(values) > MAX_SLICES_PER_ATTRIBUTE:
            raise MonitorInputError(
                f"{source}: attribute column {name!r} has {len(values):,} distinct values "
                f"(at most {MAX_SLICES_PER_ATTRIBUTE:,}); it looks like an identifier, not a "
                "group: bucket it into fewer values or slice by a coarser column"
            )
        try:
            order = sorted(range(len(values)), key=lambda i: values[i])
        except TypeError:  # mixed types: order by type name, then text
            order = sorted(
                range(len(values)), key=lambda i: (type(values[i]).__name__, str(values[i]))
            )
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values), dtype=np.int64)
        missing = codes < 0
        self.name = name
        self.values: list[Any] = [values[i] for i in order]
        if missing.any():
            self.values.append(None)
        if not len(order):  # no value at all: every row is in the missing slice
            self.codes = np.zeros(len(codes), dtype=np.int64)
            return
        self.codes = np.where(missing, len(order), rank[np.where(missing, 0, codes)])

    def subset(self, rows: np.ndarray) -> _Attribute:
        """The attribute of these rows alone (positions, in order): what ``_Attribute``
        of the rows' cells gives when the grouping is pinned (the same group for a value
        in every subset), without reading the cells again. Codes are ranks in sorted
        order with missing last, so the values present keep their order and are
        renumbered from 0 (a trend's buckets: one pass over the window, not one per
        bucket)."""
        sub = self.codes[rows]
        present = np.flatnonzero(np.bincount(sub, minlength=len(self.values)))
        out = object.__new__(_Attribute)
        out.name = self.name
        out.values = [self.values[i] for i in present.tolist()]
        if out.values in ([], [None]):  # no value: every row is in the missing slice
            out.codes = np.zeros(len(sub), dtype=np.int64)
            return out
        remap = np.full(len(self.values), -1, dtype=np.int64)
        remap[present] = np.arange(len(present), dtype=np.int64)
        out.codes = remap[sub]
        return out


def _slices_of(ats: list[_Attribute]) -> tuple[np.ndarray, np.ndarray]:
    """Compact slice codes per row and the per-attribute codes of each slice."""
    if len(ats) == 1:
        at = ats[0]
        n = len(at.values)
        counts = np.bincount(at.codes, minlength=n)
        present = np.flatnonzero(counts)
        if len(present) == n:
            return at.codes, np.arange(n, dtype=np.int64)[:, None]
        remap = np.full(n, -1, dtype=np.int64)
        remap[present] = np.arange(len(present))
        return remap[at.codes], present[:, None]
    sizes = [len(a.values) for a in ats]
    if math.prod(sizes) >= 2**62:
        raise MonitorInputError("too many attribute combinations to intersect")
    combined = np.zeros(len(ats[0].codes), dtype=np.int64)
    for a, size in zip(ats, sizes, strict=True):
        combined = combined * size + a.codes
    uniq, codes = np.unique(combined, return_inverse=True)
    parts = np.empty((len(uniq), len(ats)), dtype=np.int64)
    rest = uniq.copy()
    for i in range(len(ats) - 1, -1, -1):
        parts[:, i] = rest % sizes[i]
        rest //= sizes[i]
    return codes.astype(np.int64).ravel(), parts
