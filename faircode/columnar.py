"""Counting Arrow record batches into a Summary with vectorised operations.

Used by the CSV fast path (every column a string) and by Parquet, Arrow IPC, polars and
pyarrow sources (typed columns). Per batch and column, the values are dictionary-encoded
by Arrow; only the *distinct* values not seen before go through Python (the SPEC 0.4
label rules); everything per row is numpy (bincount of dictionary indices, label codes
for the pair tables, counted in `_ArrayPairTable`s). The Summary is the same as
`SummaryBuilder.add_rows` would build from the same cells: same roles, same cap on open
columns, same pair pruning. Cells become labels by `labels.py` (SPEC 0.4).

This is the one module of the profiler that uses numpy. pyarrow and numpy are imported
lazily by the callers (formats.py, fastpath.py); this module imports them at load time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .labels import age_shape, label_of, typed_label
from .options import Options
from .summary import Summary, SummaryBuilder

__all__ = ["ArrowSummaryBuilder", "index_array", "int_values", "typed_label"]

_EMPTY = np.zeros(0, dtype=np.int64)
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


def index_array(positions: np.ndarray) -> pa.Array:
    """int64 positions as an Arrow array (for take), without pa.array's pandas import."""
    data = np.ascontiguousarray(positions, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def _float32_label(value: Any) -> str | None:
    if value is None or math.isnan(value):
        return None
    return str(np.float32(value))  # shortest text of the float32, like pandas shows it


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
    )

    def __init__(self) -> None:
        self.raw_ids: dict[Any, int] = {}
        self.raw_values: list[Any] = []
        self.known: pa.Array | None = None  # Arrow array of raw_values, rebuilt lazily
        self.raw_label = _EMPTY.copy()  # raw id -> label code, -1 for missing
        self.raw_count = _EMPTY.copy()  # raw id -> cells
        self.labels: dict[str, int] = {}  # label -> code, in order of first sight
        self.short_float = False  # float16/float32 values: printed at their own precision


class _ArrayPairTable:
    """Counts of (code_a, code_b), dense while small. Codes come shifted by one, 0 meaning
    missing, so a batch is counted without masking; row and column 0 are never read.
    The dense table grows by doubling, so a column that keeps meeting new labels (zip
    codes) does not copy it every batch."""

    def __init__(self) -> None:
        self.dense = np.zeros((0, 0), dtype=np.int64)
        self.sparse: Counter | None = None
        self.ka = self.kb = 0

    def add(self, a: np.ndarray, b: np.ndarray, ka: int, kb: int) -> None:
        """a, b: shifted codes (0 = missing) of one batch; ka, kb: labels known so far."""
        ka, kb = ka + 1, kb + 1  # the missing slot
        self.ka, self.kb = max(self.ka, ka), max(self.kb, kb)
        if self.sparse is None and ka * kb > _DENSE_LIMIT:
            self.sparse = Counter()
            rows, cols = np.nonzero(self.dense)
            for r, c in zip(rows.tolist(), cols.tolist()):
                self.sparse[(r, c)] = int(self.dense[r, c])
            self.dense = np.zeros((0, 0), dtype=np.int64)
        if self.sparse is not None:
            both = (a > 0) & (b > 0)
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


class ArrowSummaryBuilder(SummaryBuilder):
    """SummaryBuilder that consumes Arrow arrays (one per header column) instead of rows."""

    def __init__(
        self,
        name: str,
        columns: Sequence[str],
        overrides: dict[str, str],
        opts: Options,
        label_fn: Callable[[Any], str | None] = label_of,
    ) -> None:
        super().__init__(name, columns, overrides, opts, label_fn=label_fn)
        self.state: list[_Column | None] = [
            _Column() if c is not None else None for c in self.counts
        ]
        # Alive columns share their label codes with the pair machinery.
        for i in self.alive:
            self.codes[i] = self.state[i].labels

    def _n_labels(self, i: int) -> int:
        return len(self.state[i].labels)

    def _new_pair_table(self) -> _ArrayPairTable:
        return _ArrayPairTable()

    def _count_pairs(self, code_arrays: dict[int, np.ndarray]) -> None:  # type: ignore[override]
        """Add one batch's label codes + 1 (0 = missing) to every tracked pair table."""
        for (i, j), table in self.pair_tables.items():
            table.add(code_arrays[i], code_arrays[j], len(self.codes[i]), len(self.codes[j]))

    def add_arrays(self, arrays: Sequence[pa.Array | pa.ChunkedArray], n: int) -> None:
        """Add n rows given as one Arrow array per column (arrays[i] for column i)."""
        if n == 0:
            return
        if self.held:  # SPEC 16 held-out columns, after the header's
            arrays = list(arrays) + [self._held_array(h, arrays, n) for h in self.held]
        self.n_rows += n
        code_arrays: dict[int, np.ndarray] = {}
        for i, st in enumerate(self.state):
            if st is None:
                continue
            codes = self._encode(i, st, arrays[i], n, want_codes=i in self.codes)
            if self._stop_counting(i, len(st.labels)):
                self.state[i] = None  # cannot be a dimension, or capped: stop counting it
                self.counts[i] = None
                continue
            if codes is not None and i in self.codes:
                code_arrays[i] = codes
        self._prune()
        self._count_pairs(code_arrays)

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

    def _encode(self, i: int, st: _Column, arr: Any, n: int, want_codes: bool) -> np.ndarray | None:
        """Count one batch of column i; return its per-row label codes + 1 (0 = missing)
        when want_codes. Only numpy and Arrow compute run per row: no pandas, no Python
        objects except for values never seen before."""
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()  # dictionary chunks: dictionaries are unified
        if pa.types.is_floating(arr.type) and arr.type.bit_width < 64:
            st.short_float = True
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
            return np.zeros(n, dtype=np.int64) if want_codes else None
        ids[ids < 0] = 0  # unused entries: no row refers to them
        u = np.flatnonzero(used)
        st.raw_count[ids[u]] += cnt[u]
        lab = st.raw_label[ids]
        self.missing[i] += int(cnt[u][lab[u] < 0].sum())
        if not want_codes:
            return None
        lab += 1
        return np.append(lab, 0)[idx_np]

    def _learn(
        self, i: int, st: _Column, dvals: pa.Array, ids: np.ndarray, new: np.ndarray
    ) -> None:
        label_fn = _float32_label if st.short_float else self.label_fn
        is_age = self.kinds[i] == "age"
        start = len(st.raw_values)
        values = (
            dvals.take(index_array(new)).to_pylist() if len(new) < len(dvals) else dvals.to_pylist()
        )
        added_labels = []
        added_at = []  # positions in dvals of values that became new raw ids
        for j, v in zip(new.tolist(), values):
            rid = st.raw_ids.get(v)
            if rid is None:  # (NaN never equals itself in index_in: dedupe here)
                rid = st.raw_ids[v] = len(st.raw_values)
                st.raw_values.append(v)
                added_at.append(j)
                lab = label_fn(v)
                if lab is None:
                    code = -1
                else:
                    code = st.labels.get(lab)
                    if code is None:
                        code = st.labels[lab] = len(st.labels)
                        if is_age:
                            num, interval = age_shape(lab)
                            self.age_not_numeric[i] |= not num
                            self.age_not_interval[i] |= not interval
                added_labels.append(code)
            ids[j] = rid
        grow = len(st.raw_values) - start
        if grow:
            st.raw_label = np.concatenate([st.raw_label, np.array(added_labels, np.int64)])
            st.raw_count = np.concatenate([st.raw_count, np.zeros(grow, np.int64)])
            part = dvals.take(index_array(np.array(added_at, dtype=np.int64)))
            if start == 0:
                st.known = part
            elif st.known is not None:
                try:  # the lookup set grows by the new values, in raw id order
                    st.known = pa.concat_arrays([st.known, part])
                except (pa.ArrowInvalid, pa.ArrowTypeError):  # types differ: no lookup
                    st.known = None

    def finish(self) -> Summary:
        for i, st in enumerate(self.state):
            if st is None:
                continue
            order = list(st.labels)
            keep = st.raw_label >= 0
            totals = np.zeros(len(order), dtype=np.int64)
            np.add.at(totals, st.raw_label[keep], st.raw_count[keep])
            self.counts[i] = {lab: int(c) for lab, c in zip(order, totals.tolist()) if c}
        return super().finish()
