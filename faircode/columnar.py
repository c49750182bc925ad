"""Counting Arrow record batches into a Summary with vectorised operations.

Used by the CSV fast path (every column a string) and by Parquet, Arrow IPC, polars and
pyarrow sources (typed columns). Per batch and column, the values are dictionary-encoded
by Arrow; only the *distinct* values not seen before go through Python (the SPEC 0.4
label rules); everything per row is numpy (bincount of dictionary indices, label codes
for the pair tables, counted in `_ArrayPairTable`s). The Summary is the same as
`SummaryBuilder.add_rows` would build from the same cells: same roles, same cap on open
columns, same pair pruning. Cells become labels by `labels.py` (SPEC 0.4).

The SPEC 17.2 tables: with `label` the pair tables are `_CubeTable`s (the label's code
beside each pair: the pair counts and the label cells from one count) and each group
column has an `_ArrayPairTable` of (its code, the label's code); with
`missing_by_group` every column not ignored gets a missing mask per batch (after SPEC
1.1: from its raw values' labels when counted, else from Arrow compute on its text or
its nulls), and each group column one bincount of (its code, the column) over the
batch's missing cells.

This is the one module of the profiler that uses numpy. pyarrow and numpy are imported
lazily by the callers (formats.py, fastpath.py); this module imports them at load time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .labels import (
    DEFAULT_RULE,
    MISSING_TOKENS,
    TRIMMED,
    age_shape,
    float_label,
    label_of,
    outcome_value,
    typed_label,
)
from .numerics import scaled
from .options import Options, missing_labels
from .summary import Summary, SummaryBuilder, _add_stats

__all__ = ["ArrowSummaryBuilder", "index_array", "int_values", "typed_label"]

_EMPTY = np.zeros(0, dtype=np.int64)
_NEG_ZERO: Any = object()  # the raw-id key of -0.0 (Python's dict would take it for 0.0)
_DENSE_LIMIT = 4_000_000  # pair tables larger than this are kept sparse


def int_values(arr: pa.Array, fill: int) -> np.ndarray:
    """An Arrow integer array as int64 numpy, nulls replaced by `fill`.

    Read from the buffers: pyarrow's to_numpy/fill_null/scalar paths import pandas, which
    costs a third of a second per run (SPEC-free, but the CLI's start-up matters)."""
    width = arr.type.bit_width // 8
    bufs = arr.buffers()
    vals = np.frombuffer(bufs[1], dtype=f"<i{width}", count=len(arr), offset=arr.offset * width)
    vals = vals.astype(np.int64)
    if arr.null_count:
        bits = np.frombuffer(bufs[0], dtype=np.uint8)
        valid = np.unpackbits(bits, bitorder="little", count=arr.offset + len(arr))
        vals[valid[arr.offset :] == 0] = fill
    return vals


def _bits(buf: Any, offset: int, n: int) -> np.ndarray:
    """n bits of an Arrow bitmap from bit `offset`, as numpy bools."""
    bits = np.frombuffer(buf, dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little", count=offset + n)[offset:].view(np.bool_)


def null_mask(arr: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """True where an Arrow array is null; None when it has no null."""
    if not arr.null_count:
        return None
    if isinstance(arr, pa.ChunkedArray):
        return np.concatenate(
            [np.zeros(len(c), np.bool_) if not c.null_count else null_mask(c) for c in arr.chunks]
        )
    if pa.types.is_null(arr.type):
        return np.ones(len(arr), dtype=np.bool_)
    return ~_bits(arr.buffers()[0], arr.offset, len(arr))


def bool_values(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow boolean array as numpy bools, nulls False (read from the buffers, as
    int_values: no pandas import)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()  # bits: cheap to copy
    vals = _bits(arr.buffers()[1], arr.offset, len(arr)).copy()
    nulls = null_mask(arr)
    if nulls is not None:
        vals &= ~nulls
    return vals


_TRIMMED_BYTES = tuple(ord(ch) for ch in TRIMMED)
_PAD_MAX = max(_TRIMMED_BYTES)


def _padded(arr: pa.Array | pa.ChunkedArray, nulls: np.ndarray | None) -> np.ndarray:
    """Positions of the non-null cells of a string array whose first or last byte is a
    space or a tab (the only ones SPEC 0.4 trimming changes), read from its buffers:
    one byte per end of each cell (never a scan of the text itself). A chunked array is
    read chunk by chunk: combining its chunks would copy all of their text."""
    if isinstance(arr, pa.ChunkedArray):
        found, start = [], 0
        for chunk in arr.chunks:
            end = start + len(chunk)
            at = _padded(chunk, None if nulls is None else nulls[start:end])
            if len(at):
                found.append(at + start)
            start = end
        return np.concatenate(found) if found else _EMPTY
    bufs = arr.buffers()
    n = len(arr)
    if n == 0 or bufs[2] is None or not bufs[2].size:
        return _EMPTY
    width = 8 if pa.types.is_large_string(arr.type) else 4
    off = np.frombuffer(bufs[1], dtype=f"<i{width}", count=n + 1, offset=arr.offset * width)
    data = np.frombuffer(bufs[2], dtype=np.uint8)
    # Identifiers, dates and numbers as text hold no space or tab at all: one reduction
    # over their text (a fast pass, no gather) clears the whole array.
    if data[int(off[0]) : int(off[n])].min(initial=255) > _PAD_MAX:
        return _EMPTY
    off = off.astype(np.intp)  # take's own index type: no conversion per take
    # An empty cell's two bytes belong to its neighbours (or lie past the text): clipped
    # here, left out below. Space and tab are at most 32, as few other bytes a cell ends
    # in are: one comparison finds the candidates, checked exactly after.
    first = data.take(off[:-1], mode="clip")
    last = data.take(off[1:] - 1, mode="clip")
    at = np.flatnonzero(np.minimum(first, last) <= _PAD_MAX)
    if not len(at):
        return _EMPTY
    first, last = first[at], last[at]
    hit = off[at + 1] > off[at]
    pad = np.zeros(len(at), dtype=np.bool_)
    for byte in _TRIMMED_BYTES:
        pad |= first == byte
        pad |= last == byte
    hit &= pad
    if nulls is not None:
        hit &= ~nulls[at]
    return at[hit]


def missing_set(name: str, opts: Options, tokens: frozenset[str] = MISSING_TOKENS) -> set[str]:
    """The trimmed texts a string cell of column `name` holds when it is missing after
    SPEC 1.1: the 0.4 tokens (missing as read) and every label the column's `na` tokens
    and `recode` entries turn into a missing cell."""
    extra = missing_labels(name, opts)
    return set(tokens) if extra is None else set(tokens) | extra


def index_array(positions: np.ndarray) -> pa.Array:
    """int64 positions as an Arrow array (for take), without pa.array's pandas import."""
    data = np.ascontiguousarray(positions, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def string_array(texts: Sequence[str | None]) -> pa.Array:
    """Python strings (None: a null) as an Arrow string array, built from buffers
    (pa.array imports pandas: a third of a second per run, see int_values)."""
    data = [b"" if t is None else t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    valid = None
    if None in texts:
        bits = np.fromiter((t is not None for t in texts), dtype=np.bool_, count=len(texts))
        valid = pa.py_buffer(np.packbits(bits, bitorder="little"))
    buffers = [valid, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    return pa.Array.from_buffers(pa.string(), len(data), buffers)


#: Labels of 16- and 32-bit floats, by bit width: the shortest text at their own
#: precision (SPEC 0.4), not the text of the 64-bit float Arrow hands over.
_SHORT_FLOAT_LABELS: dict[int, Callable[[Any], str | None]] = {
    16: partial(float_label, bits=16),
    32: partial(float_label, bits=32),
}


def _short_float_label(t: Any) -> Callable[[Any], str | None] | None:
    """The label function of an Arrow float type narrower than 64 bits, else None."""
    if pa.types.is_floating(t) and t.bit_width < 64:
        return _SHORT_FLOAT_LABELS[t.bit_width]
    return None


class _Column:
    """Per-column state: known raw values -> label codes, raw counts."""

    __slots__ = (
        "raw_ids",
        "raw_values",
        "known",
        "raw_label",
        "raw_count",
        "labels",
        "short_float",
        "label_miss",
        "raw_miss",
    )

    def __init__(self) -> None:
        self.raw_ids: dict[Any, int] = {}
        self.raw_values: list[Any] = []
        self.known: pa.Array | None = None  # Arrow array of raw_values, rebuilt lazily
        self.raw_label = _EMPTY.copy()  # raw id -> label code, -1 for missing
        self.raw_count = _EMPTY.copy()  # raw id -> cells
        self.labels: dict[str, int] = {}  # label -> code, in order of first sight
        # float16/float32 values: printed at their own precision by this label function
        self.short_float: Callable[[Any], str | None] | None = None
        self.label_miss: list[bool] = []  # label code -> missing after SPEC 1.1
        self.raw_miss = np.zeros(0, dtype=np.bool_)  # raw id -> missing after SPEC 1.1


class _ArrayPairTable:
    """Counts of (code_a, code_b), dense while small. Codes come shifted by one, 0 meaning
    missing, so a batch is counted without masking; column 0 is never read, nor is row 0
    unless `keep_row0` (then `row0` gives it: the rows whose a is missing). The dense
    table grows by doubling, so a column that keeps meeting new labels (zip codes) does
    not copy it every batch."""

    def __init__(self, keep_row0: bool = False) -> None:
        self.dense = np.zeros((0, 0), dtype=np.int64)
        self.sparse: Counter | None = None
        self.ka = self.kb = 0
        self.keep_row0 = keep_row0

    def add(self, a: np.ndarray, b: np.ndarray, ka: int, kb: int) -> None:
        """a, b: shifted codes (0 = missing) of one batch; ka, kb: labels known so far."""
        ka, kb = ka + 1, kb + 1  # the missing slot
        self.ka, self.kb = max(self.ka, ka), max(self.kb, kb)
        if self.sparse is None and ka * kb > _DENSE_LIMIT:
            self.sparse = Counter()
            rows, cols = np.nonzero(self.dense)
            for r, c in zip(rows.tolist(), cols.tolist()):
                if c and (r or self.keep_row0):  # the cells the sparse table counts
                    self.sparse[(r, c)] = int(self.dense[r, c])
            self.dense = np.zeros((0, 0), dtype=np.int64)
        if self.sparse is not None:
            both = (b > 0) if self.keep_row0 else (a > 0) & (b > 0)
            keys, n = np.unique(a[both] * kb + b[both], return_counts=True)
            for key, c in zip(keys.tolist(), n.tolist()):
                self.sparse[divmod(key, kb)] += c
            return
        ca, cb = self.dense.shape
        if ka > ca or kb > cb:
            na = ca if ka <= ca else min(max(ka, 2 * ca), max(ka, _DENSE_LIMIT // max(kb, 1)))
            nb = cb if kb <= cb else min(max(kb, 2 * cb), max(kb, _DENSE_LIMIT // max(na, 1)))
            grown = np.zeros((na, nb), dtype=np.int64)
            grown[:ca, :cb] = self.dense
            self.dense = grown
            ca, cb = na, nb
        keys = a * cb
        keys += b
        if ca * cb <= 4 * len(keys):
            self.dense += np.bincount(keys, minlength=ca * cb).reshape(ca, cb)
        else:  # a wide table (e.g. zip x region): touch only the cells this batch hits
            np.add.at(self.dense.reshape(-1), keys, 1)  # 5x faster than np.unique here

    @classmethod
    def from_counts(
        cls, a: np.ndarray, b: np.ndarray, n: np.ndarray, ka: int, kb: int
    ) -> _ArrayPairTable:
        """A table holding counts n of (code a, code b) already (codes unshifted)."""
        table = cls()
        table.ka, table.kb = ka + 1, kb + 1
        if table.ka * table.kb > _DENSE_LIMIT:
            table.sparse = Counter(dict(zip(zip((a + 1).tolist(), (b + 1).tolist()), n.tolist())))
        else:
            table.dense = np.zeros((table.ka, table.kb), dtype=np.int64)
            table.dense[a + 1, b + 1] = n
        return table

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(codes a, codes b, counts) of the non-zero cells (codes unshifted)."""
        if self.sparse is not None:
            keys = np.array(list(self.sparse), dtype=np.int64).reshape(-1, 2)
            n = np.array(list(self.sparse.values()), dtype=np.int64)
            a = keys[:, 0] > 0  # row 0 (kept with keep_row0) is row0's
            return keys[a, 0] - 1, keys[a, 1] - 1, n[a]
        dense = self.dense[1 : self.ka, 1 : self.kb]
        rows, cols = np.nonzero(dense)
        return rows, cols, dense[rows, cols]

    def row0(self) -> dict[int, int]:
        """With keep_row0: code b (unshifted) -> count of the rows whose a is missing,
        the non-zero ones, in order of b."""
        if self.sparse is not None:
            return dict(sorted((c - 1, n) for (r, c), n in self.sparse.items() if r == 0))
        if not self.ka:
            return {}
        row = self.dense[0, 1 : self.kb]
        cols = np.flatnonzero(row)
        return dict(zip(cols.tolist(), row[cols].tolist()))

    def items(self):
        """((code_a, code_b), count) for pairs of non-missing labels (codes unshifted)."""
        if self.sparse is not None:
            for (r, c), n in self.sparse.items():
                yield (r - 1, c - 1), n
            return
        dense = self.dense[1 : self.ka, 1 : self.kb]
        rows, cols = np.nonzero(dense)
        for r, c, n in zip(rows.tolist(), cols.tolist(), dense[rows, cols].tolist()):
            yield (r, c), n


_SHIFT = 21  # bits per code in a sparse cube key (LABEL_CAP and a batch more < 2**21)
_LOW = (1 << _SHIFT) - 1


class _CubeTable:
    """A pair table that also keeps the label column's code (SPEC 17.2): counts of
    (code_a, code_b, code_l), codes shifted by one (0 = missing). The pair counts are
    its sums over code_l (a missing label included), the label cells its cells with all
    three present, so one count per batch gives both. Dense while small, grown by
    doubling, like _ArrayPairTable; past _DENSE_LIMIT cells (zip x region x label) it
    keeps sorted keys `a << 42 | b << 21 | l` and their counts, each batch's unique keys
    merged in numpy now and then (no Python per combination)."""

    def __init__(self) -> None:
        self.dense = np.zeros((0, 0, 0), dtype=np.int64)
        self.sparse = False
        self.keys = _EMPTY.copy()
        self.counts = _EMPTY.copy()
        self.pending: list[tuple[np.ndarray, np.ndarray]] = []
        self.pending_len = 0
        self.ka = self.kb = self.kl = 0

    def add(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, ka: int, kb: int, kl: int) -> None:
        ka, kb, kl = ka + 1, kb + 1, kl + 1
        self.ka, self.kb, self.kl = max(self.ka, ka), max(self.kb, kb), max(self.kl, kl)
        if not self.sparse and ka * kb * kl > _DENSE_LIMIT:
            self.sparse = True
            r, s, t = np.nonzero(self.dense)
            if len(r):
                self.pending.append((_cube_key(r, s, t), self.dense[r, s, t]))
                self.pending_len += len(r)
            self.dense = np.zeros((0, 0, 0), dtype=np.int64)
        if self.sparse:  # every row, as the dense table (marginal() needs the zeros)
            keys, n = np.unique(_cube_key(a, b, c), return_counts=True)
            self.pending.append((keys, n))
            self.pending_len += len(keys)
            if self.pending_len > max(1 << 20, len(self.keys)):
                self._compact()
            return
        ca, cb, cl = self.dense.shape
        if ka > ca or kb > cb or kl > cl:
            na, nb, nl = (max(k, 2 * c) if k > c else c for k, c in ((ka, ca), (kb, cb), (kl, cl)))
            if na * nb * nl > _DENSE_LIMIT:
                na, nb, nl = max(ka, ca), max(kb, cb), max(kl, cl)
            grown = np.zeros((na, nb, nl), dtype=np.int64)
            grown[:ca, :cb, :cl] = self.dense
            self.dense = grown
            ca, cb, cl = na, nb, nl
        keys = a * (cb * cl)
        keys += b * cl
        keys += c
        size = ca * cb * cl
        if size <= 4 * len(keys):
            self.dense += np.bincount(keys, minlength=size).reshape(ca, cb, cl)
        else:
            np.add.at(self.dense.reshape(-1), keys, 1)

    def _compact(self) -> None:
        if not self.pending:
            return
        keys = np.concatenate([self.keys] + [k for k, _ in self.pending])
        counts = np.concatenate([self.counts] + [n for _, n in self.pending])
        self.keys, where = np.unique(keys, return_inverse=True)
        self.counts = np.bincount(where, weights=counts, minlength=len(self.keys)).astype(np.int64)
        self.pending, self.pending_len = [], 0

    def items(self):
        """((code_a, code_b), count) of the pair table (codes unshifted)."""
        if self.sparse:
            self._compact()
            pairs, where = np.unique(self.keys >> _SHIFT, return_inverse=True)
            n = np.bincount(where, weights=self.counts, minlength=len(pairs)).astype(np.int64)
            a, b = (pairs >> _SHIFT) - 1, (pairs & _LOW) - 1
            keep = (a >= 0) & (b >= 0)
            a, b, n = a[keep], b[keep], n[keep]
            yield from zip(zip(a.tolist(), b.tolist()), n.tolist())
            return
        dense = self.dense[1 : self.ka, 1 : self.kb].sum(axis=2)
        rows, cols = np.nonzero(dense)
        for r, c, n in zip(rows.tolist(), cols.tolist(), dense[rows, cols].tolist()):
            yield (r, c), n

    def cells(self):
        """((code_a, code_b, code_l), count) of rows with all three present."""
        if self.sparse:
            self._compact()
            keys = self.keys
            keep = (keys & _LOW) > 0
            keep &= ((keys >> _SHIFT) & _LOW) > 0
            keep &= (keys >> (2 * _SHIFT)) > 0
            keys, n = keys[keep], self.counts[keep]
            a = (keys >> (2 * _SHIFT)) - 1
            b = ((keys >> _SHIFT) & _LOW) - 1
            t = (keys & _LOW) - 1
            yield from zip(zip(a.tolist(), b.tolist(), t.tolist()), n.tolist())
            return
        dense = self.dense[1 : self.ka, 1 : self.kb, 1 : self.kl]
        idx = np.nonzero(dense)
        for r, s, t, n in zip(*(x.tolist() for x in idx), dense[idx].tolist()):
            yield (r, s, t), n

    def marginal(self, side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(codes of column a (side 0) or b (side 1), codes of the label, counts) of the
        rows where both are present, whatever the other column holds: the label pairs of
        that column (SPEC 17.2), read off the cube. Codes unshifted."""
        if self.sparse:
            self._compact()
            keys = self.keys
            col = (keys >> (2 * _SHIFT)) if side == 0 else ((keys >> _SHIFT) & _LOW)
            lab = keys & _LOW
            keep = (col > 0) & (lab > 0)
            pairs, where = np.unique((col[keep] << _SHIFT) | lab[keep], return_inverse=True)
            n = np.bincount(where, weights=self.counts[keep], minlength=len(pairs))
            return (pairs >> _SHIFT) - 1, (pairs & _LOW) - 1, n.astype(np.int64)
        if side == 0:
            sums = self.dense[1 : self.ka, : self.kb, 1 : self.kl].sum(axis=1)
        else:
            sums = self.dense[: self.ka, 1 : self.kb, 1 : self.kl].sum(axis=0)
        rows, cols = np.nonzero(sums)
        return rows, cols, sums[rows, cols]


def _cube_key(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    key = a.astype(np.int64) << (2 * _SHIFT)
    key |= b.astype(np.int64) << _SHIFT
    key |= c
    return key


class LabelCells(Mapping):
    """(label_a, label_b, label_l) -> count of a _CubeTable, turned into a dict only when
    read (as summary.PairCounts): the analysis reads the label cells of one pair."""

    def __init__(self, la: list[str], lb: list[str], ll: list[str], table: _CubeTable) -> None:
        self._args: tuple | None = (la, lb, ll, table)
        self._dict: dict[tuple[str, str, str], int] | None = None

    def _data(self) -> dict[tuple[str, str, str], int]:
        if self._dict is None:
            la, lb, ll, table = self._args  # type: ignore[misc]
            self._dict = {(la[a], lb[b], ll[c]): m for (a, b, c), m in table.cells()}
            self._args = None
        return self._dict

    def __getitem__(self, key: tuple[str, str, str]) -> int:
        return self._data()[key]

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())

    def __repr__(self) -> str:
        return f"LabelCells({self._data()!r})"

    def __reduce__(self):
        return (dict, (dict(self._data()),))


def _pick(labels: list[str], codes: np.ndarray) -> list[str]:
    """The labels of an array of codes (a C-level gather, not a Python loop)."""
    if not len(codes):
        return []
    return np.array(labels, dtype=object)[codes].tolist()


class ArrowSummaryBuilder(SummaryBuilder):
    """SummaryBuilder that consumes Arrow arrays (one per header column) instead of rows.

    With `label` and `missing_by_group` it also keeps the tables of SPEC 17.2 (as the
    reference builder does): per batch the label codes of the group columns and of the
    label column, and a missing mask (after SPEC 1.1) of every column not ignored,
    counted or not; then per group column one bincount of (its code, the label's code)
    and one of (its code, the column) over the batch's missing cells, and the pair
    tables become `_CubeTable`s that count the label's code beside each pair."""

    def __init__(
        self,
        name: str,
        columns: Sequence[str],
        overrides: dict[str, str],
        opts: Options,
        label_fn: Callable[[Any], str | None] = label_of,
    ) -> None:
        self.label_at: int | None = None  # set by SummaryBuilder (the pair tables need it)
        if opts.label in columns:
            self.label_at = list(columns).index(opts.label)
        super().__init__(name, columns, overrides, opts, label_fn=label_fn)
        self.state: list[_Column | None] = [
            _Column() if c is not None else None for c in self.counts
        ]
        # Coded columns (pairs, SPEC 17.2 group and label columns) share their label
        # codes with the pair machinery.
        for i in self.codes:
            self.codes[i] = self.state[i].labels
        # SPEC 17.2, in SummaryBuilder's attributes (its _prune drops a group column's
        # tables): label_tables and missing_by hold one _ArrayPairTable per group column,
        # of (its code, the label's code) and of (its code, column + 1) over the missing
        # cells; the label cells live in the _CubeTable pair tables.
        self.by_group = bool(opts.missing_by_group)
        # A group column in a pair table reads its label pairs off a cube (None here);
        # the others count their own, and so does one whose last cube is pruned (see
        # _prune).
        in_pairs = {c for key in self.pair_tables for c in key}
        self.label_tables = {  # type: ignore[misc]
            d: None if d in in_pairs else _ArrayPairTable() for d in self.label_tables
        }
        self.missing_by = {d: _ArrayPairTable(keep_row0=True) for d in self.missing_by}  # type: ignore[misc]
        self.cell_tables = {}
        # SPEC 17.2: per group column, the rows where it is missing as read (its missing
        # group): label code + 1 -> rows (its missing_by table's row 0 holds, per column
        # + 1, the rows whose column is missing).
        self.absent_label: dict[int, Counter] = {}
        # Per column, for a column no longer counted: how its missing cells are found
        # (see _uncounted_mask).
        self.default_rule = label_fn in (DEFAULT_RULE.label_of, DEFAULT_RULE.typed_label)
        self.miss_sets: dict[int, tuple[pa.Array, pa.Array]] = {}
        # The reader turned the SPEC 0.4 tokens (as written, untrimmed) into nulls.
        self.tokens_null = False
        self.miss_cache: list[dict] = [{} for _ in columns]

    def _n_labels(self, i: int) -> int:
        return len(self.state[i].labels)

    def _new_pair_table(self) -> _ArrayPairTable | _CubeTable:
        if getattr(self, "label_at", None) is not None:
            return _CubeTable()
        return _ArrayPairTable()

    def _count_pairs(self, code_arrays: dict[int, np.ndarray]) -> None:  # type: ignore[override]
        """Add one batch's label codes + 1 (0 = missing) to every tracked pair table."""
        at = self.label_at
        if at is not None:
            lc = code_arrays.get(at)
            kl = len(self.state[at].labels) if self.state[at] is not None else 0
            for (i, j), table in self.pair_tables.items():
                if lc is None:
                    lc = np.zeros(len(code_arrays[i]), dtype=np.int64)
                table.add(
                    code_arrays[i], code_arrays[j], lc, len(self.codes[i]), len(self.codes[j]), kl
                )
            return
        for (i, j), table in self.pair_tables.items():
            table.add(code_arrays[i], code_arrays[j], len(self.codes[i]), len(self.codes[j]))

    def needs_array(self, i: int) -> bool:
        """Whether add_arrays reads column i: it is counted, or its missing cells are
        (SPEC 17.2: every column not ignored)."""
        if self.state[i] is not None or i in self.out_all:  # counted, or an outcome
            return True
        return self.by_group and i < self.n_header and self.roles[i] is not None

    def add_arrays(self, arrays: Sequence[pa.Array | pa.ChunkedArray], n: int) -> None:
        """Add n rows given as one Arrow array per column (arrays[i] for column i; None
        for a column that needs_array says is not read)."""
        if n == 0:
            return
        if self.held:  # SPEC 16 held-out columns, after the header's
            arrays = list(arrays) + [self._held_array(h, arrays, n) for h in self.held]
        self.n_rows += n
        code_arrays: dict[int, np.ndarray] = {}
        masks: dict[int, np.ndarray] = {}
        track = self.by_group
        header = self.n_header
        for i, st in enumerate(self.state):
            if st is None:
                if track and i < header and self.roles[i] is not None:
                    mask = self._uncounted_mask(i, arrays[i], n)
                    if mask is not None:
                        masks[i] = mask
                continue
            codes, mask = self._encode(
                i,
                st,
                arrays[i],
                n,
                want_codes=i in self.codes,
                want_mask=track and i < header,
            )
            if mask is not None:
                masks[i] = mask
            if self._stop_counting(i, len(st.labels)):
                self.state[i] = None  # cannot be a dimension, or capped: stop counting it
                self.counts[i] = None
                continue
            if codes is not None:
                code_arrays[i] = codes
        # SPEC 17.2: per column, the rows of its missing cells (one pass over the mask)
        hits = {i: np.flatnonzero(mask) for i, mask in masks.items()}
        for i, rows in hits.items():
            self.missing_all[i] += len(rows)
        self._prune()
        self._count_pairs(code_arrays)
        self._count_tables(code_arrays, hits)
        for o in self.outcome_at:
            self._count_outcome(o, arrays[o], code_arrays)

    def _prune(self) -> None:
        """SummaryBuilder's pruning; a group column whose label pairs were read off cubes
        that are now all gone keeps their counts so far in a table of its own."""
        before = self.pair_tables
        super()._prune()
        if before is self.pair_tables or not any(t is None for t in self.label_tables.values()):
            return
        live = {c for key in self.pair_tables for c in key}
        at = self.label_at
        for d, own in self.label_tables.items():
            if own is not None or d in live:
                continue
            key = next(k for k in before if d in k and k not in self.pair_tables)
            a, lab, n = before[key].marginal(key.index(d))
            kl = len(self.state[at].labels) if self.state[at] is not None else 0
            self.label_tables[d] = _ArrayPairTable.from_counts(
                a, lab, n, len(self.state[d].labels), kl
            )

    def _count_tables(self, code_arrays: dict[int, np.ndarray], hits: dict[int, np.ndarray]):
        """SPEC 17.2: label pairs (of group columns in no pair table) and missing cells
        by group of one batch (hits: per column, the rows of its missing cells)."""
        at = self.label_at
        if self.label_tables and self.state[at] is not None:
            lc, kl = code_arrays[at], len(self.state[at].labels)
            for d, table in self.label_tables.items():
                if table is not None:
                    table.add(code_arrays[d], lc, len(self.state[d].labels), kl)
            # SPEC 17.2: the label's codes on the rows where D is missing as read (code 0)
            for d in self.label_tables:
                gone = code_arrays[d] == 0
                if gone.any():
                    self._count_absent(self.absent_label, d, lc[gone])
        if self.missing_by and hits:
            order = sorted(c for c in hits if len(hits[c]))
            if not order:
                return
            rows = np.concatenate([hits[c] for c in order])
            cols = np.repeat(np.array(order, dtype=np.int64) + 1, [len(hits[c]) for c in order])
            for d, table in self.missing_by.items():  # row 0: D missing as read
                table.add(code_arrays[d][rows], cols, len(self.state[d].labels), self.n_header)

    @staticmethod
    def _count_absent(into: dict[int, Counter], d: int, keys: np.ndarray) -> None:
        """Add the non-zero keys (shifted codes or columns + 1) of rows where group
        column d is missing as read."""
        got, n = np.unique(keys[keys > 0], return_counts=True)
        if len(got):
            into.setdefault(d, Counter()).update(dict(zip(got.tolist(), n.tolist())))

    def _count_outcome(self, o: int, arr: Any, code_arrays: dict[int, np.ndarray]) -> None:
        """SPEC 21.2: one batch of outcome column o into its exact sums, overall, by the
        label of every group column and by the cell of every pair table. Each distinct
        value of the batch goes through the label rule once (Python integers: the
        scaled value and square); rows are counted per (code, value) with numpy."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        short = _short_float_label(arr.type)
        if not pa.types.is_dictionary(arr.type):
            if pa.types.is_string_view(arr.type) or pa.types.is_binary_view(arr.type):
                arr = arr.cast(
                    pa.large_string() if pa.types.is_string_view(arr.type) else pa.large_binary()
                )
            arr = arr.dictionary_encode()
        dvals = arr.dictionary
        k = len(dvals)
        label_fn = short or self.label_fn
        cache = self.out_caches[o]
        if len(cache) > 100_000:
            cache.clear()
        relabel = self.relabel[o]
        sums: list[tuple[int, int]] = []  # the batch's distinct values, scaled
        slot = np.full(k + 1, -1, dtype=np.int64)  # per dictionary entry: value, -1, -2
        for j, v in enumerate(dvals.to_pylist()):
            lab = None if v is None else label_fn(v)
            got = cache.get(lab, 0) if lab is not None else None
            if got == 0:
                lab2 = lab if relabel is None else relabel(lab)
                val = None if lab2 is None else outcome_value(lab2)
                got = None if lab2 is None else (False if val is None else scaled(val))
                cache[lab] = got
            if got is False:
                slot[j] = -2
            elif got is not None:
                slot[j] = len(sums)
                sums.append(got)
        rows = slot[int_values(arr.indices, k)]
        acc = self.out_all[o]
        acc[3] += int(np.count_nonzero(rows == -1))
        acc[4] += int(np.count_nonzero(rows == -2))
        nv = len(sums)
        if not nv:
            return
        has = rows >= 0
        vals = rows[has]
        for j, c in enumerate(np.bincount(vals, minlength=nv).tolist()):
            if c:
                acc[0] += c
                acc[1] += c * sums[j][0]
                acc[2] += c * sums[j][1]
        for d, table in self.out_by[o].items():
            x = code_arrays[d][has]
            keep = x > 0
            keys, counts = np.unique((x[keep] - 1) * nv + vals[keep], return_counts=True)
            for key, c in zip(keys.tolist(), counts.tolist()):
                _add_stats(table, key // nv, c, sums[key % nv])
        for (i, j), table in self.out_cells[o].items():
            x, y = code_arrays[i][has], code_arrays[j][has]
            keep = (x > 0) & (y > 0)
            kj = len(self.codes[j])
            cell = (x[keep] - 1) * kj + (y[keep] - 1)
            keys, counts = np.unique(cell * nv + vals[keep], return_counts=True)
            for key, c in zip(keys.tolist(), counts.tolist()):
                xy, v = divmod(key, nv)
                _add_stats(table, divmod(xy, kj), c, sums[v])

    def _held_array(self, h: Any, arrays: Sequence[Any], n: int) -> pa.Array:
        """A held-out column's labels for this batch (SPEC 16), as an Arrow array."""
        if h.key_at is None:
            return pa.array(h.by_order(self.n_rows, n), pa.string())
        arr = arrays[h.key_at]
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if not pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_encode()
        values = arr.dictionary.to_pylist()
        labels, matched = h.lookup(values, self.label_fn)
        idx = int_values(arr.indices, len(values))  # slot len(values): null keys
        cnt = np.bincount(idx, minlength=len(values) + 1)
        h.unmatched += n - int(cnt[: len(values)][np.array(matched, dtype=bool)].sum())
        return pa.array(labels + [None], pa.string()).take(index_array(idx))

    def drop(self, i: int) -> None:
        """Stop counting open column i: it is known to have more than max_categorical
        labels (the caller saw them), exactly what add_arrays would conclude."""
        if self.roles[i] != "open":
            raise ValueError("only open columns can be dropped")
        self.state[i] = None
        self.counts[i] = None
        self._prune()

    def _encode(
        self, i: int, st: _Column, arr: Any, n: int, want_codes: bool, want_mask: bool = False
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Count one batch of column i; return (its per-row label codes + 1, 0 = missing,
        when want_codes; when want_mask and some cell is missing after SPEC 1.1, the
        rows' missing mask). Only numpy and Arrow compute run per row: no pandas, no
        Python objects except for values never seen before."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()  # dictionary chunks: dictionaries are unified
        if (short := _short_float_label(arr.type)) is not None:
            st.short_float = short
        if not pa.types.is_dictionary(arr.type):
            if pa.types.is_string_view(arr.type) or pa.types.is_binary_view(arr.type):
                arr = arr.cast(
                    pa.large_string() if pa.types.is_string_view(arr.type) else pa.large_binary()
                )
            arr = arr.dictionary_encode()
        dvals = arr.dictionary
        k = len(dvals)
        idx_np = int_values(arr.indices, k)  # slot k: null cells, always missing
        cnt = np.bincount(idx_np, minlength=k + 1)
        used = cnt[:k] > 0  # a given dictionary may hold values no row uses
        # Map this batch's distinct values to known raw ids; only new ones go through Python.
        if st.known is not None and len(st.known):
            ids = int_values(pc.index_in(dvals, value_set=st.known), -1)
        else:
            ids = np.full(k, -1, dtype=np.int64)
        new = np.flatnonzero((ids < 0) & used)
        if len(new):
            self._learn(i, st, dvals, ids, new)
        self.missing[i] += int(cnt[k])
        if not len(st.raw_values):  # only nulls so far
            codes = np.zeros(n, dtype=np.int64) if want_codes else None
            return codes, np.ones(n, dtype=np.bool_) if want_mask else None
        ids[ids < 0] = 0  # unused entries: no row refers to them
        u = np.flatnonzero(used)
        np.add.at(st.raw_count, ids[u], cnt[u])  # two entries may share a raw id (NaN)
        lab = st.raw_label[ids]
        self.missing[i] += int(cnt[u][lab[u] < 0].sum())
        mask = None
        if want_mask:
            miss = st.raw_miss[ids]
            if cnt[:k][miss].any():
                mask = np.append(miss, True)[idx_np]
            elif cnt[k]:  # only null cells (the common case): a comparison, no gather
                mask = idx_np == k
        if not want_codes:
            return None, mask
        lab += 1
        return np.append(lab, 0)[idx_np], mask

    def _learn(
        self, i: int, st: _Column, dvals: pa.Array, ids: np.ndarray, new: np.ndarray
    ) -> None:
        label_fn = st.short_float or self.label_fn
        relabel = self.relabel[i] if i < self.n_header else None
        is_age = self.kinds[i] == "age"
        start = len(st.raw_values)
        values = (
            dvals.take(index_array(new)).to_pylist() if len(new) < len(dvals) else dvals.to_pylist()
        )
        added_labels = []
        added_miss = []
        added_at = []  # positions in dvals of values that became new raw ids
        for j, v in zip(new.tolist(), values):
            # -0.0 equals 0.0 in Python but is labelled -0.0 (Arrow tells them apart)
            key = _NEG_ZERO if type(v) is float and v == 0 and math.copysign(1, v) < 0 else v
            rid = st.raw_ids.get(key)
            if rid is None:  # (NaN never equals itself in index_in: dedupe here)
                rid = st.raw_ids[key] = len(st.raw_values)
                st.raw_values.append(v)
                added_at.append(j)
                lab = label_fn(v)
                if lab is None:
                    code = -1
                else:
                    code = st.labels.get(lab)
                    if code is None:
                        code = st.labels[lab] = len(st.labels)
                        st.label_miss.append(relabel is not None and relabel(lab) is None)
                        if is_age:
                            num, interval = age_shape(lab)
                            self.age_not_numeric[i] |= not num
                            self.age_not_interval[i] |= not interval
                added_labels.append(code)
                added_miss.append(code < 0 or st.label_miss[code])
            ids[j] = rid
        grow = len(st.raw_values) - start
        if grow:
            st.raw_label = np.concatenate([st.raw_label, np.array(added_labels, np.int64)])
            st.raw_miss = np.concatenate([st.raw_miss, np.array(added_miss, np.bool_)])
            st.raw_count = np.concatenate([st.raw_count, np.zeros(grow, np.int64)])
            part = dvals.take(index_array(np.array(added_at, dtype=np.int64)))
            if start == 0:
                st.known = part
            elif st.known is not None:
                try:  # the lookup set grows by the new values, in raw id order
                    st.known = pa.concat_arrays([st.known, part])
                except (pa.ArrowInvalid, pa.ArrowTypeError):  # types differ: no lookup
                    st.known = None

    # -- missing cells of a column no longer counted (SPEC 17.2)

    def _uncounted_mask(self, i: int, arr: Any, n: int) -> np.ndarray | None:
        """The rows of column i (not counted) that are missing after SPEC 1.1, or None
        when none is. Strings: trimmed and looked up in the column's missing texts
        (Arrow compute, no Python per row); other typed values are never a 0.4 token, so
        without `na` or `recode` for the column only nulls (and NaN) are missing; the
        rest goes through the label function once per distinct value."""
        if arr is None:
            raise ValueError(f"column {i}: its missing cells are counted, give its array")
        t = arr.type
        if self.default_rule and (
            pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)
        ):
            return self._string_mask(i, arr)  # chunk by chunk: no copy of the text
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if pa.types.is_dictionary(t):
            k = len(arr.dictionary)
            per_value = self._uncounted_values(i, arr.dictionary)
            idx = int_values(arr.indices, k)
            if arr.indices.null_count == 0 and not per_value.any():
                return None
            return np.append(per_value, True)[idx]
        if self.default_rule and self.relabel[i] is None and not pa.types.is_binary(t):
            if not (
                pa.types.is_large_binary(t)
                or pa.types.is_fixed_size_binary(t)
                or pa.types.is_binary_view(t)
            ):
                mask = null_mask(arr)
                if pa.types.is_floating(t):
                    nan = bool_values(pc.is_nan(arr))
                    mask = nan if mask is None else mask | nan
                return mask if mask is not None and mask.any() else None
        enc = arr.dictionary_encode()
        return self._uncounted_mask(i, enc, n)

    def _string_mask(self, i: int, arr: pa.Array) -> np.ndarray | None:
        """Missing after SPEC 1.1 per cell of a string array: null, or its trimmed text
        is one of the column's missing texts. Only cells that start or end with a space
        or tab are trimmed (found from the offsets, in numpy); the others are looked up
        as they are, and not at all when `tokens_null` (the CSV fast path has Arrow
        read the 0.4 tokens as nulls) and the column has no other missing text."""
        if pa.types.is_string_view(arr.type):
            arr = arr.cast(pa.large_string())
        texts = self.miss_sets.get(i)
        if texts is None:
            every = sorted(missing_set(self.columns[i], self.opts))
            extra = [t for t in every if t not in MISSING_TOKENS]
            texts = self.miss_sets[i] = (
                string_array(every),
                string_array(extra if self.tokens_null else every),
            )
        every, exact = texts
        if every.type != arr.type:
            every, exact = every.cast(arr.type), exact.cast(arr.type)
        nulls = null_mask(arr)
        mask = None
        if len(exact):
            hit = pc.is_in(arr, value_set=exact)
            if pc.any(hit).as_py():
                mask = bool_values(hit)
        padded = _padded(arr, nulls)
        if len(padded):
            hit = bool_values(
                pc.is_in(pc.ascii_trim(arr.take(index_array(padded)), TRIMMED), value_set=every)
            )
            if hit.any():
                if mask is None:
                    mask = np.zeros(len(arr), dtype=np.bool_)
                mask[padded[hit]] = True
        if nulls is None:
            return mask
        return nulls if mask is None else mask | nulls

    def _uncounted_values(self, i: int, values: pa.Array) -> np.ndarray:
        """Missing after SPEC 1.1, per value of a dictionary (the exact label rule)."""
        t = values.type
        if self.default_rule and (pa.types.is_string(t) or pa.types.is_large_string(t)):
            mask = self._string_mask(i, values)
            return np.zeros(len(values), np.bool_) if mask is None else mask
        cache = self.miss_cache[i]
        if len(cache) > 100_000:
            cache.clear()
        label_fn = _short_float_label(t) or self.label_fn
        relabel = self.relabel[i]
        out = np.zeros(len(values), dtype=np.bool_)
        for j, v in enumerate(values.to_pylist()):
            miss = cache.get(v) if v is not None else True
            if miss is None:
                lab = label_fn(v)
                miss = lab is None or (relabel is not None and relabel(lab) is None)
                cache[v] = miss
            out[j] = miss
        return out

    def finish(self) -> Summary:
        for i, st in enumerate(self.state):
            if st is None:
                continue
            order = list(st.labels)
            keep = st.raw_label >= 0
            totals = np.zeros(len(order), dtype=np.int64)
            np.add.at(totals, st.raw_label[keep], st.raw_count[keep])
            self.counts[i] = {lab: int(c) for lab, c in zip(order, totals.tolist()) if c}
        return super().finish()  # which calls _finish_tables

    def _finish_tables(self, summary: Summary) -> None:
        """The SPEC 17.2 tables, labels in place of codes."""
        at = self.label_at
        names = {d: list(self.state[d].labels) for d in self.groups}
        label_pairs: dict = {}
        label_cells: dict = {}
        if at is not None and self.state[at] is not None:
            ll = list(self.state[at].labels)
            for d, table in self.label_tables.items():
                if table is None:
                    key = next(k for k in self.pair_tables if d in k)
                    a, b, n = self.pair_tables[key].marginal(key.index(d))
                else:
                    a, b, n = table.arrays()
                keys = zip(_pick(names[d], a), _pick(ll, b))
                label_pairs[d] = dict(zip(keys, n.tolist()))
                for y, c in sorted(self.absent_label.get(d, {}).items()):
                    label_pairs[d][(None, ll[y - 1])] = c
            for (i, j), table in self.pair_tables.items():
                if j >= self.n_header or not isinstance(table, _CubeTable):
                    continue
                label_cells[(i, j)] = LabelCells(
                    list(self.codes[i]), list(self.codes[j]), ll, table
                )
        missing_by: dict = {}
        for d, table in self.missing_by.items():
            a, c, n = table.arrays()
            by: dict[int, dict[str, int]] = {}
            # One stable sort by column, then a slice per column: a test of every entry
            # per column was quadratic in the width (20,000 columns: 26 s).
            order = np.argsort(c, kind="stable")
            cols, starts = np.unique(c[order], return_index=True)
            labels = np.array(names[d], dtype=object)[a[order]].tolist() if len(a) else []
            counts = n[order].tolist()
            ends = [*starts[1:].tolist(), len(order)]
            for col, lo, hi in zip(cols.tolist(), starts.tolist(), ends):
                if col != d:
                    by[col] = dict(zip(labels[lo:hi], counts[lo:hi]))
            for col, c in table.row0().items():
                if col != d:
                    by.setdefault(col, {})[None] = c
            missing_by[d] = {k: by[k] for k in sorted(by)}
        summary.label_pairs = label_pairs
        summary.label_cells = label_cells
        summary.missing_all = list(self.missing_all)
        summary.missing_by = missing_by
        self._finish_outcomes(summary, {i: list(codes) for i, codes in self.codes.items()})
