"""The mergeable summary every metric is computed from (SPEC.md section 0.5).

A Summary holds, per column, the count of each label and of missing cells, and pair
counts for the columns that can still become dimensions. Summaries of parts of one
table merge by adding counts. SummaryBuilder counts cells (the reference reader's
records, a pandas frame's columns) in pure Python; columnar.ArrowSummaryBuilder counts
Arrow arrays with numpy. Cells become labels by the rules in labels.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

from .detect import kind_from_name, label_slack
from .errors import InputError
from .labels import AGE_INTERVAL, AGE_NUMERIC, MISSING_TOKENS, age_shape, label_of, outcome_value
from .numerics import scaled
from .options import Options, keyed_held_out, relabeler, spelled

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "AGE_INTERVAL",
    "AGE_NUMERIC",
    "LABEL_CAP",
    "MISSING_TOKENS",
    "PAIR_COLUMNS",
    "PROXY_LABELS",
    "PairCounts",
    "Summary",
    "SummaryBuilder",
    "age_shape",
    "label_of",
    "pair_cells",
]
# Bounds of SPEC 0.9 (the same numbers in assets/profiler-engine.js).
LABEL_CAP = 100_000  # distinct labels a column is counted for; past it it is "capped"
PAIR_COLUMNS = 64  # without cross, pairs are counted among the first 64 counted columns
#: SPEC 16: with proxy_hints, a column that cannot be a dimension keeps its pair tables
#: with the dimension candidates (as a feature) while it has at most this many labels.
PROXY_LABELS = 1000
CELL_CAP = 1000  # intersection gaps, rated cells and listed groups (SPEC 17); the rest counted
GROUP_FLAG_CAP = 100  # flag lines of one kind per dimension; then one summary line
MAX_GAP_FLAGS = 10  # flag lines of one kind for the intersection


class Summary:
    """name, columns, n_rows; per column counts (label -> cells, None when not counted)
    and missing; pairs ((i, j) -> (label_i, label_j) -> cells); capped.

    A plain class rather than a dataclass: importing dataclasses (and inspect) is a
    tenth of the CLI's start-up. Equality compares every field, as a dataclass's would."""

    # The fields of equality, repr and pickling, in this order (a pickled Summary is
    # this tuple of values).
    _FIELDS = (
        "name",
        "columns",
        "n_rows",
        "counts",
        "missing",
        "pairs",
        "capped",
        "label_pairs",
        "label_cells",
        "missing_all",
        "missing_by",
        "unread",
        "outcomes",
    )

    # `held`: SPEC 16 held-out columns, counted beside the table (see __init__)
    __slots__ = (*_FIELDS, "held")
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(
        self,
        name: str,
        columns: list[str],
        n_rows: int = 0,
        counts: list[dict[str, int] | None] | None = None,
        missing: list[int] | None = None,
        pairs: dict[tuple[int, int], Mapping[tuple[str, str], int]] | None = None,
        capped: list[bool] | None = None,
        label_pairs: dict[int, Mapping[tuple[str, str], int]] | None = None,
        label_cells: dict[tuple[int, int], Mapping[tuple[str, str, str], int]] | None = None,
        missing_all: list[int] | None = None,
        missing_by: dict[int, dict[int, dict[str, int]]] | None = None,
        unread: dict[int, str] | None = None,
        outcomes: dict[int, dict] | None = None,
    ) -> None:
        self.name = name
        self.columns = columns
        self.n_rows = n_rows
        self.counts: list[dict[str, int] | None] = [] if counts is None else counts
        self.missing: list[int] = [] if missing is None else missing
        self.pairs: dict[tuple[int, int], Mapping[tuple[str, str], int]] = (
            {} if pairs is None else pairs
        )
        # capped[i]: column i stopped being counted at more than LABEL_CAP labels (SPEC
        # 0.9); its counts are then None. Empty (or shorter) means no column was capped.
        self.capped: list[bool] = [] if capped is None else capped
        # SPEC 17.2, with `label`: group column D -> (label of D, label of L) -> rows;
        # pair (i, j) -> (label of i, label of j, label of L) -> rows (all as read).
        self.label_pairs: dict[int, Mapping[tuple[str, str], int]] = label_pairs or {}
        self.label_cells: dict[tuple[int, int], Mapping[tuple[str, str, str], int]] = (
            label_cells or {}
        )
        # SPEC 17.2, with `missing_by_group`: per column, cells missing after 1.1 (every
        # column, counted or not; empty when not kept); group column D -> column C ->
        # label of D (as read) -> rows of it whose C is missing after 1.1.
        self.missing_all: list[int] = [] if missing_all is None else missing_all
        self.missing_by: dict[int, dict[int, dict[str, int]]] = missing_by or {}
        # SPEC 0.4: columns of a typed source whose values are nested (struct, list, map;
        # lists or dicts in a frame): column -> what they hold ("list"). Not counted.
        self.unread: dict[int, str] = unread or {}
        # SPEC 21.2, with `outcome`: outcome column -> {"n", "s1", "s2", "missing",
        # "non_numeric", "by": {group column D: {label of D: (n, s1, s2)}}, "cells":
        # {pair (i, j): {(label of i, label of j): (n, s1, s2)}}}; s1, s2 the exact sums of
        # the values and their squares in units of 2^-SCALE1 and 2^-SCALE2 (integers).
        self.outcomes: dict[int, dict] = outcomes or {}
        # SPEC 16 held-out columns counted beside the table (None without them): not a
        # field of equality, pickling or repr, which stay those of the table's counts.
        self.held: dict | None = None

    def _fields(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={v!r}" for f, v in zip(self._FIELDS, self._fields()))
        return f"Summary({shown})"

    def __getstate__(self) -> tuple:
        return self._fields()

    def __setstate__(self, state: tuple) -> None:
        for f, value in zip(self._FIELDS, state, strict=True):
            setattr(self, f, value)
        self.held = None

    def is_capped(self, i: int) -> bool:
        return i < len(self.capped) and self.capped[i]

    def merge(self, other: Summary) -> Summary:
        """Add two summaries of disjoint row sets of the same table."""
        if self.columns != other.columns:
            raise ValueError("cannot merge summaries of tables with different columns")
        counts: list[dict[str, int] | None] = []
        capped: list[bool] = []
        # a column nested in either part is nested in the whole (SPEC 0.4)
        unread = {
            i: self.unread.get(i) or other.unread[i]
            for i in self.unread.keys() | other.unread.keys()
        }
        for i, (a, b) in enumerate(zip(self.counts, other.counts)):
            cap = self.is_capped(i) or other.is_capped(i)
            if a is None or b is None or i in unread:
                counts.append(None)
            else:
                c = Counter(a)
                c.update(b)
                if len(c) > LABEL_CAP:  # the union passed the cap: as one read would
                    counts.append(None)
                    cap = True
                else:
                    counts.append(dict(c))
            capped.append(cap)
        pairs = {}
        # A pair absent on one side had a column proven not to be a dimension there,
        # which stays true for the union; so does a column capped in the union.
        for key in self.pairs.keys() & other.pairs.keys():
            if counts[key[0]] is None or counts[key[1]] is None:
                continue
            c = Counter(self.pairs[key])
            c.update(other.pairs[key])
            pairs[key] = dict(c)
        missing = [
            x + y if c is not None else 0 for x, y, c in zip(self.missing, other.missing, counts)
        ]
        # SPEC 17.2: tables of a group column pruned (absent) on either side, or capped
        # in the union, are dropped, as pairs are; missing_all always adds.
        label_pairs = {
            d: _added(self.label_pairs[d], other.label_pairs[d])
            for d in self.label_pairs.keys() & other.label_pairs.keys()
            if counts[d] is not None
        }
        label_cells = {
            key: _added(self.label_cells[key], other.label_cells[key])
            for key in self.label_cells.keys() & other.label_cells.keys()
            if key in pairs
        }
        missing_all = [x + y for x, y in zip(self.missing_all, other.missing_all)]
        missing_by = {}
        for d in self.missing_by.keys() & other.missing_by.keys():
            if counts[d] is None:
                continue
            a, b = self.missing_by[d], other.missing_by[d]
            missing_by[d] = {
                c: _added(a.get(c, {}), b.get(c, {})) for c in sorted(a.keys() | b.keys())
            }
        outcomes = {
            o: _outcomes_added(self.outcomes[o], other.outcomes[o], counts, pairs)
            for o in self.outcomes.keys() & other.outcomes.keys()
        }
        return Summary(
            self.name,
            list(self.columns),
            self.n_rows + other.n_rows,
            counts,
            missing,
            pairs,
            capped if any(capped) else [],
            label_pairs,
            label_cells,
            missing_all,
            missing_by,
            dict(sorted(unread.items())),
            dict(sorted(outcomes.items())),
        )


def _stats_added(a: Mapping, b: Mapping) -> dict:
    """Two tables of (n, s1, s2) added (SPEC 21.2: exact sums add)."""
    out = dict(a)
    for key, (n, s1, s2) in b.items():
        got = out.get(key)
        out[key] = (n, s1, s2) if got is None else (got[0] + n, got[1] + s1, got[2] + s2)
    return out


def _outcomes_added(a: dict, b: dict, counts: list, pairs: dict) -> dict:
    """SPEC 21.2: an outcome's sums merge by adding; a group column or pair dropped on
    either side (or in the union) has no table, as for labels (17.2)."""
    return {
        **{k: a[k] + b[k] for k in ("n", "s1", "s2", "missing", "non_numeric")},
        "by": {
            d: _stats_added(a["by"][d], b["by"][d])
            for d in sorted(a["by"].keys() & b["by"].keys())
            if counts[d] is not None
        },
        "cells": {
            key: _stats_added(a["cells"][key], b["cells"][key])
            for key in sorted(a["cells"].keys() & b["cells"].keys())
            if key in pairs
        },
    }


def _add_stats(table: dict, key: Any, c: int, v: tuple[int, int]) -> None:
    got = table.get(key)
    if got is None:
        table[key] = [c, c * v[0], c * v[1]]
    else:
        got[0] += c
        got[1] += c * v[0]
        got[2] += c * v[1]


def _added(a: Mapping, b: Mapping) -> dict:
    """Two count tables added (SPEC 0: summaries merge by adding counts)."""
    out = dict(a)
    for key, c in b.items():
        out[key] = out.get(key, 0) + c
    return out


_BITSET_COMBOS = 256  # label combinations of a batch counted by bitsets; past it, by rows
_ONE_OF: dict[int, bytes] = {}  # code -> bytes.translate table: that code -> 1, others -> 0


def _one_of(code: int) -> bytes:
    table = _ONE_OF.get(code)
    if table is None:
        table = _ONE_OF[code] = bytes(256)[:code] + b"\x01" + bytes(255 - code)
    return table


def _bitsets(rows: bytes, codes: set[int]) -> dict[int, int]:
    """code -> the rows holding it as the bits of an int (row r = 8q + s at bit 8q + s
    of slice s's bytes: any fixed order of rows works for an AND and a popcount)."""
    slices = [rows[s::8] for s in range(8)]
    out = {}
    for code in codes:
        table = _one_of(code)
        bits = 0
        for s, part in enumerate(slices):
            bits |= int.from_bytes(part.translate(table), "little") << s
        out[code] = bits
    return out


def _with_missing(masks: dict[int, int], rows: bytes | list[int]):
    """masks' (code, bitset) items, then code 0's (the rows where the column is missing
    as read) when the batch has any: a group column's missing group (SPEC 17.2)."""
    yield from masks.items()
    if 0 in rows:
        yield from _bitsets(rows, {0}).items()  # type: ignore[arg-type]


class _PairTable:
    """Counts of (code_a, code_b) of non-missing labels, in a dict (pure Python: the
    reference reader imports no numpy). See SummaryBuilder._count_pairs."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        self.counts: dict[tuple[int, int], int] = {}

    def items(self):
        """((code_a, code_b), count) for pairs of non-missing labels."""
        return self.counts.items()


class PairCounts(Mapping):
    """(label_a, label_b) -> count of a pair table, turned into a dict only when read:
    a summary keeps many pair tables and analysis reads one."""

    def __init__(self, labels_a: list[str], labels_b: list[str], table: _PairTable) -> None:
        self._a, self._b, self._table = labels_a, labels_b, table
        self._dict: dict[tuple[str, str], int] | None = None

    def _data(self) -> dict[tuple[str, str], int]:
        if self._dict is None:
            la, lb = self._a, self._b
            self._dict = {(la[a], lb[b]): c for (a, b), c in self._table.items()}
            self._a = self._b = self._table = None  # type: ignore[assignment]
        return self._dict

    def __getitem__(self, key: tuple[str, str]) -> int:
        return self._data()[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())

    def __repr__(self) -> str:
        return f"PairCounts({self._data()!r})"

    def __reduce__(self):
        return (dict, (dict(self._data()),))


class SummaryBuilder:
    """Consumes batches of raw cells column-wise and keeps bounded state."""

    def __init__(
        self,
        name: str,
        columns: Sequence[str],
        overrides: dict[str, str],
        opts: Options,
        label_fn=label_of,
    ) -> None:
        self.name = name
        self.columns = list(columns)
        self.opts = opts
        self.label_fn = label_fn
        n = len(columns)
        self.n_rows = 0
        self.missing = [0] * n
        self.counts: list[dict[str, int] | None] = [None] * n
        self.caches: list[dict] = [{} for _ in range(n)]
        # role: None (not counted), "forced", "named" (kind from name), "open" (capped)
        self.roles: list[str | None] = []
        self.kinds: list[str | None] = []
        # SPEC 17.2: the label column is counted like a forced column, never a dimension
        self.label_at = self.columns.index(opts.label) if opts.label in self.columns else None
        # SPEC 21.2: outcome columns are read for their sums, never counted as labels
        outcome_names = getattr(opts, "outcome", ())
        self.outcome_at = [i for i, col in enumerate(self.columns) if col in outcome_names]
        for col in columns:
            ov = overrides.get(col)
            if col in outcome_names:
                self.roles.append("outcome")
                self.kinds.append(None)
            elif col == opts.label:
                self.roles.append("label")
                self.kinds.append(None)
            elif ov == "ignore":
                self.roles.append(None)
                self.kinds.append(None)
            elif ov is not None:
                self.roles.append("forced")
                self.kinds.append(ov)
            else:
                kind = kind_from_name(col)
                self.kinds.append(kind)
                self.roles.append("named" if kind else "open")
        for i, role in enumerate(self.roles):
            if role is not None and role != "outcome":
                self.counts[i] = {}
        # SPEC 1.1: labels the declared missing tokens and recodes may still remove
        self.slack = [label_slack(opts, col) for col in columns]
        self.age_not_numeric = [False] * n
        self.age_not_interval = [False] * n
        self.capped = [False] * n
        # SPEC 16: held-out columns of other files are counted as extra columns after
        # the header's (index n + k), paired with every candidate; finish() sets them apart.
        self.n_header = n
        self.held: list[Any] = []
        if opts.proxy_hints and opts.proxy_with:
            from .heldout import load  # lazy: start-up

            for path, col, key in opts.proxy_with:
                if key is not None and key not in self.columns:
                    raise InputError(
                        f"{spelled('--proxy-hints-with')} {path}: the key '{key}' is not a "
                        f"column of {name}"
                    )
                self.held.append(load(path, col, key))
            for h in self.held:
                h.key_at = self.columns.index(h.key) if h.key is not None else None
                self.missing.append(0)
                self.counts.append({})
                self.caches.append({})
                self.roles.append("forced")
                self.kinds.append("categorical")
                self.slack.append(0)
                self.age_not_numeric.append(False)
                self.age_not_interval.append(False)
                self.capped.append(False)
        extra = list(range(n, n + len(self.held)))
        # SPEC 16: an open column past max_categorical that is only a feature (counted on
        # to PROXY_LABELS labels for proxy hints): it can no longer be a dimension.
        self.wide = [False] * len(self.counts)
        # Pair tracking: label codes per candidate column, tables per pair.
        cross: list[int] = []
        if opts.cross is not None:
            idx = [self.columns.index(c) for c in opts.cross if c in self.columns]
            cross = sorted(set(idx)) if len(set(idx)) == 2 else []
            cross = [i for i in cross if self.roles[i] not in (None, "label", "outcome")]
        first = [i for i, r in enumerate(self.roles) if r not in (None, "label", "outcome")]
        first = first[:PAIR_COLUMNS]
        if opts.proxy_hints:  # SPEC 16: every pair of the first PAIR_COLUMNS, and cross
            cand = sorted(set(first) | set(cross if len(cross) == 2 else [])) + extra
        elif opts.cross is not None:
            cand = cross
        else:  # the first PAIR_COLUMNS counted columns (SPEC 0.9)
            cand = first
        self.alive: list[int] = cand if len(cand) >= 2 else []
        # SPEC 16: with proxy_hints, the first PAIR_COLUMNS header columns are features too
        self.features = {i for i in first if i < n} if opts.proxy_hints else set()
        # Without cross, skip a pair (i, j) when a column k < j other than i is certain to
        # be a dimension (forced, or a geography name): (i, j) can never be the first two.
        sure = {
            i
            for i in self.alive
            if self.roles[i] == "forced"
            or (self.roles[i] == "named" and self.kinds[i] == "geography")
        }
        in_first = set(first)

        def counted(i: int, j: int) -> bool:
            if opts.proxy_hints:
                return (i in in_first and j in in_first) or [i, j] == cross or j >= n
            return opts.cross is not None or not any(c < j and c != i for c in sure)

        self.pair_tables: dict[tuple[int, int], Any] = {
            (i, j): self._new_pair_table()
            for k, i in enumerate(self.alive)
            for j in self.alive[k + 1 :]
            if counted(i, j)
        }
        paired = {c for pair in self.pair_tables for c in pair}
        self.alive = [i for i in self.alive if i in paired]
        # SPEC 17.2: group columns (the first PAIR_COLUMNS counted header columns other
        # than the label) keep label and missing tables while they can be dimensions.
        want_label = self.label_at is not None
        want_missing = opts.missing_by_group
        want_outcome = bool(self.outcome_at)
        self.groups: list[int] = (
            [i for i in first if i < n] if want_label or want_missing or want_outcome else []
        )
        self.label_tables: dict[int, dict[tuple[int, int], int]] = (
            {d: {} for d in self.groups} if want_label else {}
        )
        self.cell_tables: dict[tuple[int, int], dict[tuple[int, int, int], int]] = (
            {key: {} for key in self.pair_tables} if want_label else {}
        )
        self.missing_all: list[int] = [0] * n if want_missing else []
        self.missing_by: dict[int, dict[int, dict[int, int]]] = (
            {d: {} for d in self.groups} if want_missing else {}
        )
        # SPEC 21.2: per outcome column its sums ([n, s1, s2, missing, non_numeric]), per
        # group column code -> [n, s1, s2], per pair table (code, code) -> [n, s1, s2]
        self.out_all = {o: [0, 0, 0, 0, 0] for o in self.outcome_at}
        self.out_by: dict[int, dict[int, dict[int, list[int]]]] = {
            o: {d: {} for d in self.groups} for o in self.outcome_at
        }
        self.out_cells: dict[int, dict[tuple[int, int], dict[tuple[int, int], list[int]]]] = {
            o: {key: {} for key in self.pair_tables if key[1] < n} for o in self.outcome_at
        }
        self.out_caches: list[dict] = [{} for _ in range(n)]
        # missing after 1.1 per column: raw cell -> bool, for every read column
        self.relabel = [relabeler(col, opts) for col in columns]
        self.miss_caches: list[dict] = [{} for _ in range(n)]
        coded = set(self.alive) | set(self.groups)
        if want_label:
            coded.add(self.label_at)
        self.codes: dict[int, dict[str, int]] = {i: {} for i in sorted(coded)}
        self._masks: dict[int, dict[int, int]] = {}  # this batch's bitsets per column code

    def add_rows(self, rows: list[list]) -> None:
        """Add a batch of records (lists of raw cells, one per header column)."""
        if not rows:
            return
        self.add_columns(list(zip(*rows)), len(rows))

    def add_columns(self, columns: Sequence[Sequence], n: int) -> None:
        """Add n rows given column-wise: columns[i] holds the n raw cells of column i
        (labelled by this builder's label_fn)."""
        if n == 0:
            return
        if self.held:
            columns = list(columns) + [self._held_cells(h, columns, n) for h in self.held]
        self.n_rows += n
        self._add_columns(columns, n)

    def _held_cells(self, h: Any, columns: Sequence[Sequence], n: int) -> list[str]:
        """A held-out column's labels for this batch's rows (SPEC 16)."""
        if h.key_at is None:
            got = h.by_order(self.n_rows, n)
        else:
            got = h.by_keys(columns[h.key_at], self.label_fn)
        return ["" if lab is None else lab for lab in got]  # "": a missing cell (SPEC 0.4)

    def _new_pair_table(self) -> Any:
        return _PairTable()

    def _add_columns(self, columns: Sequence[Sequence], n: int) -> None:
        label_fn = self.label_fn
        code_arrays: dict[int, tuple[bytes | list[int], set[int]]] = {}
        batch_raws: dict[int, Counter] = {}
        for i, counts in enumerate(self.counts):
            if counts is None:
                continue
            col = columns[i]
            cache = self.caches[i]
            is_age = self.kinds[i] == "age"
            missing = 0
            raws = batch_raws[i] = Counter(col)
            for raw, c in raws.items():
                if raw in cache:
                    lab = cache[raw]
                else:
                    lab = label_fn(raw)
                    cache[raw] = lab
                if lab is None:
                    missing += c
                elif lab in counts:
                    counts[lab] += c
                else:
                    counts[lab] = c
                    if is_age:
                        num, interval = age_shape(lab)
                        self.age_not_numeric[i] |= not num
                        self.age_not_interval[i] |= not interval
            self.missing[i] += missing
            if self._stop_counting(i, len(counts)):
                self.counts[i] = None
                self.caches[i] = {}
                continue
            if i in self.codes:
                codes = self.codes[i]
                lookup = {}  # raw -> label code + 1, 0 for missing (see _PairTable)
                for raw, lab in cache.items():
                    if lab is None:
                        lookup[raw] = 0
                    else:
                        code = codes.get(lab)
                        if code is None:
                            code = codes[lab] = len(codes)
                        lookup[raw] = code + 1
                get = lookup.__getitem__
                # codes + 1 of the batch's rows: one byte each while they fit in one
                row_codes = bytes(map(get, col)) if len(codes) < 256 else list(map(get, col))
                code_arrays[i] = row_codes, {get(raw) for raw in raws} - {0}
            if len(cache) > 100_000:
                self.caches[i] = {}  # keep memory bounded on very wide columns
        self._prune()
        self._count_pairs(code_arrays)
        if self.label_tables or self.cell_tables:
            self._count_label(code_arrays)
        if self.missing_all:
            self._count_missing(columns, code_arrays, batch_raws)
        if self.outcome_at:
            self._count_outcomes(columns, code_arrays)

    def _outcome_of(self, k: int, raw: Any) -> Any:
        """None (missing after 1.1), False (not a number, SPEC 21.2) or the scaled
        (value, square) of an outcome cell."""
        lab = self.label_fn(raw)
        relabel = self.relabel[k]
        if lab is not None and relabel is not None:
            lab = relabel(lab)
        if lab is None:
            return None
        v = outcome_value(lab)
        return False if v is None else scaled(v)

    def _count_outcomes(
        self,
        columns: Sequence[Sequence],
        code_arrays: dict[int, tuple[bytes | list[int], set[int]]],
    ) -> None:
        """SPEC 21.2: exact sums of each outcome column, overall, by the label of every
        group column and by the cell of every pair table (rows where all are present)."""
        for o in self.outcome_at:
            col = columns[o]
            cache = self.out_caches[o]
            acc = self.out_all[o]
            vals = {}
            for raw, c in Counter(col).items():
                v = cache.get(raw, 0)
                if v == 0:
                    v = self._outcome_of(o, raw)
                    if len(cache) < 100_000:
                        cache[raw] = v
                if v is None:
                    acc[3] += c
                elif v is False:
                    acc[4] += c
                else:
                    acc[0] += c
                    acc[1] += c * v[0]
                    acc[2] += c * v[1]
                    vals[raw] = v
            if not vals:
                continue
            for d, table in self.out_by[o].items():
                for (x, raw), c in Counter(zip(code_arrays[d][0], col)).items():
                    v = vals.get(raw) if x else None
                    if v is not None:
                        _add_stats(table, x - 1, c, v)
            for (i, j), table in self.out_cells[o].items():
                triples = Counter(zip(code_arrays[i][0], code_arrays[j][0], col))
                for (x, y, raw), c in triples.items():
                    v = vals.get(raw) if x and y else None
                    if v is not None:
                        _add_stats(table, (x - 1, y - 1), c, v)

    def _count_label(self, code_arrays: dict[int, tuple[bytes | list[int], set[int]]]) -> None:
        """SPEC 17.2: (D, L) and (i, j, L) code counts of rows where all are present."""
        got = code_arrays.get(self.label_at)
        if got is None:  # the label column was capped: its tables mean nothing now
            self.label_tables, self.cell_tables = {}, {}
            return
        lab = got[0]
        masks = self._masks
        ml = masks.get(self.label_at)
        ml_items = list(ml.items()) if ml is not None else None
        # Code 0 (D missing as read) is kept too, as code -1: the missing group of 17.4.
        for d, table in self.label_tables.items():
            md = masks.get(d)
            if md is not None and ml_items is not None:  # popcounts, as in _count_pairs
                for x, bx in _with_missing(md, code_arrays[d][0]):
                    for z, bz in ml_items:
                        c = (bx & bz).bit_count()
                        if c:
                            table[(x - 1, z - 1)] = table.get((x - 1, z - 1), 0) + c
                continue
            for (x, y), c in Counter(zip(code_arrays[d][0], lab)).items():
                if y:
                    table[(x - 1, y - 1)] = table.get((x - 1, y - 1), 0) + c
        for (i, j), table in self.cell_tables.items():
            ma, mb = masks.get(i), masks.get(j)
            if (
                ma is not None
                and mb is not None
                and ml_items is not None
                and len(ma) * len(mb) <= _BITSET_COMBOS
            ):
                items_b = list(mb.items())
                for x, bx in ma.items():
                    for y, by in items_b:
                        bxy = bx & by
                        if not bxy:
                            continue
                        for z, bz in ml_items:
                            c = (bxy & bz).bit_count()
                            if c:
                                key = (x - 1, y - 1, z - 1)
                                table[key] = table.get(key, 0) + c
                continue
            triples = Counter(zip(code_arrays[i][0], code_arrays[j][0], lab))
            for (x, y, z), c in triples.items():
                if x and y and z:
                    key = (x - 1, y - 1, z - 1)
                    table[key] = table.get(key, 0) + c

    def _count_missing(
        self,
        columns: Sequence[Sequence],
        code_arrays: dict[int, tuple[bytes | list[int], set[int]]],
        batch_raws: dict[int, Counter],
    ) -> None:
        """SPEC 17.2: every read column's cells missing after 1.1, and per group column
        the codes of its rows where that column is missing."""
        label_fn = self.label_fn
        for k in range(self.n_header):
            if self.roles[k] is None:
                continue
            col = columns[k]
            cache = self.miss_caches[k]
            relabel = self.relabel[k]
            missing_raws = set()
            raws = batch_raws.get(k)
            for raw in set(col) if raws is None else raws:
                gone = cache.get(raw)
                if gone is None:
                    lab = label_fn(raw)
                    gone = lab is None or (relabel is not None and relabel(lab) is None)
                    if len(cache) < 100_000:
                        cache[raw] = gone
                if gone:
                    missing_raws.add(raw)
            if not missing_raws:
                continue
            flags = bytes(map(missing_raws.__contains__, col))
            self.missing_all[k] += flags.count(1)
            bits = None
            rows = None
            for d, by_col in self.missing_by.items():
                if d == k:
                    continue
                masks = self._masks.get(d)
                if masks is not None:  # few codes: popcounts of bitsets (see _count_pairs)
                    if bits is None:
                        bits = _bitsets(flags, {1})[1]
                    got = (
                        (x, (m & bits).bit_count())
                        for x, m in _with_missing(masks, code_arrays[d][0])
                    )
                else:
                    if rows is None:
                        rows = [r for r, f in enumerate(flags) if f]
                    codes_d = code_arrays[d][0]
                    got = Counter(codes_d[r] for r in rows).items()
                table = by_col.get(k)
                for x, c in got:  # x = 0: D missing as read, kept as code -1 (17.5)
                    if c:
                        if table is None:
                            table = by_col[k] = {}
                        table[x - 1] = table.get(x - 1, 0) + c

    def _stop_counting(self, i: int, n_labels: int) -> bool:
        """Whether column i, now with n_labels labels, stops being counted: an open column
        past max_categorical cannot be a dimension (SPEC 0.5), any column past LABEL_CAP
        is capped (SPEC 0.9). An open column meets whichever limit is lower first."""
        cap = self.opts.max_categorical + self.slack[i]
        if self.roles[i] == "open" and n_labels > cap and cap <= LABEL_CAP:
            if i not in self.features or n_labels > PROXY_LABELS:
                return True
            self.wide[i] = True  # SPEC 16: counted on as a feature, never a dimension
        if n_labels > LABEL_CAP:
            self.capped[i] = True
            return True
        return False

    def _count_pairs(self, code_arrays: dict[int, tuple[bytes | list[int], set[int]]]) -> None:
        """Add one batch to every tracked pair table. code_arrays[i]: (the rows' label
        codes + 1, 0 = missing; the codes + 1 present in the batch).

        Pure Python, and fast: when both columns' codes fit a byte and the batch has few
        label combinations, each label gets a bitset of the rows holding it (a Python
        int, one bit per row, made by bytes.translate) and the count of (x, y) is the
        popcount of their AND; other pairs count the zipped rows with a Counter."""
        masks = self._masks = {}
        for i, (rows, seen) in code_arrays.items():
            if isinstance(rows, bytes) and len(seen) <= _BITSET_COMBOS:
                masks[i] = _bitsets(rows, seen)
        for (i, j), table in self.pair_tables.items():
            counts = table.counts
            ma, mb = masks.get(i), masks.get(j)
            if ma is not None and mb is not None and len(ma) * len(mb) <= _BITSET_COMBOS:
                items_b = list(mb.items())
                for x, bits_x in ma.items():
                    for y, bits_y in items_b:
                        c = (bits_x & bits_y).bit_count()
                        if c:
                            key = (x - 1, y - 1)
                            counts[key] = counts.get(key, 0) + c
            else:
                for (x, y), c in Counter(zip(code_arrays[i][0], code_arrays[j][0])).items():
                    if x and y:
                        key = (x - 1, y - 1)
                        counts[key] = counts.get(key, 0) + c

    def _n_labels(self, i: int) -> int:
        """Distinct labels of counted column i so far."""
        return len(self.counts[i])

    def _cannot_be_dimension(self, i: int) -> bool:
        if self.counts[i] is None or self.wide[i]:
            return True
        if self.roles[i] != "named" or self.kinds[i] == "geography":
            return False
        if self._n_labels(i) <= self.opts.max_dimension_groups + self.slack[i]:
            return False
        if self.kinds[i] == "age":
            # The shape is judged on the labels as read; a declared missing token or a
            # recode (SPEC 1.1) can still turn them into ages, so such a column stays.
            if self.slack[i]:
                return False
            return self.age_not_numeric[i] and self.age_not_interval[i]
        return True

    def _prune(self) -> None:
        dead_groups = [d for d in self.groups if self._cannot_be_dimension(d)]
        if dead_groups:
            self.groups = [d for d in self.groups if d not in dead_groups]
            for d in dead_groups:
                self.label_tables.pop(d, None)
                self.missing_by.pop(d, None)
                for by in self.out_by.values():
                    by.pop(d, None)
        if self.features:
            self._prune_features()
            return
        dead = [i for i in self.alive if self._cannot_be_dimension(i)]
        for i in dead_groups:
            if i not in self.alive:
                self.codes.pop(i, None)
        if not dead:
            return
        self.alive = [i for i in self.alive if i not in dead]
        for i in dead:
            if i not in self.groups:
                self.codes.pop(i, None)
        self.pair_tables = {
            k: t for k, t in self.pair_tables.items() if k[0] not in dead and k[1] not in dead
        }
        self.cell_tables = {k: t for k, t in self.cell_tables.items() if k in self.pair_tables}
        self.out_cells = {
            o: {k: t for k, t in cells.items() if k in self.pair_tables}
            for o, cells in self.out_cells.items()
        }

    def _prune_features(self) -> None:
        """SPEC 16 with proxy_hints: a pair table stays while one of its columns can be a
        dimension and each other one is still counted with at most PROXY_LABELS labels;
        label and outcome cells stay only between dimension candidates."""
        live = {i for i in self.alive if not self._cannot_be_dimension(i)}
        if len(live) < len(self.alive):
            self.alive = [i for i in self.alive if i in live]

        def feature(c: int) -> bool:
            return c in live or (self.counts[c] is not None and self._n_labels(c) <= PROXY_LABELS)

        tables = {
            k: t
            for k, t in self.pair_tables.items()
            if (k[0] in live or k[1] in live) and feature(k[0]) and feature(k[1])
        }
        if len(tables) < len(self.pair_tables):
            self.pair_tables = tables
        both = {k for k in self.pair_tables if k[0] in live and k[1] in live}
        if len(both) < len(self.cell_tables):
            self.cell_tables = {k: t for k, t in self.cell_tables.items() if k in both}
        self.out_cells = {
            o: {k: t for k, t in cells.items() if k in both} for o, cells in self.out_cells.items()
        }
        keep = {c for k in self.pair_tables for c in k} | set(self.groups) | {self.label_at}
        for i in [i for i in self.codes if i not in keep]:
            self.codes.pop(i)

    def finish(self) -> Summary:
        pairs: dict[tuple[int, int], Mapping[tuple[str, str], int]] = {}
        held_pairs: dict[tuple[int, int], Mapping[tuple[str, str], int]] = {}
        n = self.n_header
        for (i, j), table in self.pair_tables.items():
            into = held_pairs if j >= n else pairs
            into[(i, j)] = PairCounts(list(self.codes[i]), list(self.codes[j]), table)
        held = None
        if self.held:
            for h in self.held:
                if h.key is None and h.rows != self.n_rows:
                    raise InputError(
                        f"{spelled('--proxy-hints-with')} {h.path}: it has {h.rows} rows and "
                        f"{self.name} "
                        f"has {self.n_rows}; rows are aligned by order (give {keyed_held_out()} "
                        "to join by a key column)"
                    )
            held = {
                "names": [h.name for h in self.held],
                "counts": self.counts[n:],
                "capped": self.capped[n:],
                "pairs": held_pairs,
                "info": [h.info() for h in self.held],
            }
            self.counts, self.missing, self.capped = (
                self.counts[:n],
                self.missing[:n],
                self.capped[:n],
            )
        # A column no longer counted has missing 0: when counting stopped depends on
        # batch sizes, and the number is never used.
        missing = [m if c is not None else 0 for m, c in zip(self.missing, self.counts)]
        summary = Summary(
            self.name,
            list(self.columns),
            self.n_rows,
            list(self.counts),
            missing,
            pairs,
            list(self.capped) if any(self.capped) else [],
        )
        summary.held = held
        self._finish_tables(summary)
        return summary

    def _finish_tables(self, summary: Summary) -> None:
        """The SPEC 17.2 tables with labels for codes."""
        names = {i: list(codes) for i, codes in self.codes.items()}
        # code -1 (a group column missing as read) is the label None (SPEC 17.2)
        named = {d: [*names[d], None] for d in self.groups}
        if self.label_at is not None and summary.counts[self.label_at] is not None:
            lab = names[self.label_at]
            summary.label_pairs = {
                d: {(named[d][x], lab[y]): c for (x, y), c in t.items()}
                for d, t in self.label_tables.items()
            }
            summary.label_cells = {
                key: {(names[key[0]][x], names[key[1]][y], lab[z]): c for (x, y, z), c in t.items()}
                for key, t in self.cell_tables.items()
                if key in summary.pairs
            }
        self._finish_outcomes(summary, names)
        if self.missing_all:
            summary.missing_all = list(self.missing_all)
            summary.missing_by = {
                d: {k: {named[d][x]: c for x, c in t.items()} for k, t in by_col.items()}
                for d, by_col in self.missing_by.items()
            }

    def _finish_outcomes(self, summary: Summary, names: dict[int, list[str]]) -> None:
        """SPEC 21.2: the outcome sums with labels for codes (names: column -> labels in
        code order)."""
        if not self.outcome_at:
            return
        summary.outcomes = {
            o: {
                "n": acc[0],
                "s1": acc[1],
                "s2": acc[2],
                "missing": acc[3],
                "non_numeric": acc[4],
                "by": {
                    d: {names[d][x]: tuple(st) for x, st in t.items()}
                    for d, t in self.out_by[o].items()
                },
                "cells": {
                    key: {
                        (names[key[0]][x], names[key[1]][y]): tuple(st) for (x, y), st in t.items()
                    }
                    for key, t in self.out_cells[o].items()
                    if key in summary.pairs
                },
            }
            for o, acc in self.out_all.items()
        }


def pair_cells(
    summary: Summary,
    pair: tuple[str, str],
    index_of: dict[str, int],
    mappers: dict,
) -> dict[tuple[str, str], int] | None:
    """(group of A, group of B) -> rows of two dimensions, from the summary's pair table
    (labels after 1.1 and age bands, rows with either side missing or implausible
    skipped: SPEC 4); None when the pair was not counted."""
    ia, ib = index_of[pair[0]], index_of[pair[1]]
    raw = summary.pairs.get((min(ia, ib), max(ia, ib)))
    if raw is None:
        return None
    ma, mb = mappers[ia], mappers[ib]
    cells: dict[tuple[str, str], int] = {}
    for (x, y), c in raw.items():
        la, lb = (x, y) if ia < ib else (y, x)
        ga, gb = ma(la), mb(lb)
        if ga is None or gb is None:
            continue
        cells[(ga, gb)] = cells.get((ga, gb), 0) + c
    return cells
