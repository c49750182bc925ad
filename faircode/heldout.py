"""Held-out columns of proxy hints (SPEC.md section 16): a column of another file,
aligned with the profiled rows by row order or by a join key.

Read here with the reference reader (section 0, default dialect); the profiled file's
builder (summary.py) then counts the held-out labels as extra columns of every batch, so
the profiled file is still read once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .errors import InputError
from .labels import label_of
from .options import spelled
from .reader import read_records


class HeldOut:
    """One held-out column: its labels in row order, or key label -> label."""

    def __init__(
        self,
        path: str,
        column: str,
        key: str | None,
        labels: list[str | None] | None,
        by_key: dict[str, str | None] | None,
        rows: int,
        keyless: int = 0,
    ) -> None:
        self.path, self.column, self.key = path, column, key
        self.name = f"{path}={column}"
        self.labels, self.by_key, self.rows, self.keyless = labels, by_key, rows, keyless
        self.unmatched = 0  # profiled rows whose key no held-out row has
        self.met: set[str] = set()  # held-out keys some profiled row has
        self.key_at: int | None = None  # the key's column in the profiled header

    def by_order(self, offset: int, n: int) -> list[str | None]:
        """The labels of profiled rows offset .. offset + n - 1 (None past the end)."""
        assert self.labels is not None
        got = self.labels[offset : offset + n]
        return got + [None] * (n - len(got))

    def lookup(
        self, keys: Sequence[Any], label_fn: Callable[[Any], str | None]
    ) -> tuple[list[str | None], list[bool]]:
        """(label, matched) of each distinct raw key cell; records the keys met."""
        assert self.by_key is not None
        table = self.by_key
        labels: list[str | None] = []
        matched: list[bool] = []
        for raw in keys:
            k = label_fn(raw)
            hit = k is not None and k in table
            if hit:
                self.met.add(k)  # type: ignore[arg-type]
            labels.append(table.get(k) if hit else None)  # type: ignore[arg-type]
            matched.append(hit)
        return labels, matched

    def by_keys(self, keys: Sequence[Any], label_fn: Callable[[Any], str | None]) -> list:
        """The labels of profiled rows with these raw key cells; counts the unmatched."""
        distinct = list(dict.fromkeys(keys))
        labels, matched = self.lookup(distinct, label_fn)
        got = {raw: (lab, hit) for raw, lab, hit in zip(distinct, labels, matched)}
        out: list[str | None] = []
        for raw in keys:
            lab, hit = got[raw]
            if not hit:
                self.unmatched += 1
            out.append(lab)
        return out

    def info(self) -> dict:
        """The held_out entry of SPEC 16's block."""
        out: dict = {"name": self.name, "path": self.path, "column": self.column}
        out["key"] = self.key
        out["rows"] = self.rows
        if self.by_key is not None:
            out["unmatched"] = self.unmatched
            out["unused"] = len(self.by_key) - len(self.met)
            out["without_key"] = self.keyless
        return out


def load(path: str, column: str, key: str | None) -> HeldOut:
    """Read COLUMN (and KEY) of the CSV at path; the errors name the option as the surface
    spells it (SPEC 0.6: ``--proxy-hints-with``, ``proxy_with``)."""
    where = f"{spelled('--proxy-hints-with')} {path}"
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{where}: cannot open ({exc.strerror or exc})") from None
    with fh:
        header, batches = read_records(fh, path, skip_hint=False)  # no --skip-lines here
        if column not in header:
            raise InputError(f"{where}: no column '{column}' (columns: {', '.join(header[:10])})")
        ci = header.index(column)
        if key is None:
            labels = [label_of(rec[ci]) for batch in batches for rec in batch]
            return HeldOut(path, column, None, labels, None, len(labels))
        if key not in header:
            raise InputError(f"{where}: no key column '{key}' (columns: {', '.join(header[:10])})")
        ki = header.index(key)
        by_key: dict[str, str | None] = {}
        rows = keyless = 0
        for batch in batches:
            for rec in batch:
                rows += 1
                k = label_of(rec[ki])
                if k is None:
                    keyless += 1
                    continue
                if k in by_key:
                    raise InputError(
                        f"{where}: key '{k}' is on more than one row; a join key must be unique"
                    )
                by_key[k] = label_of(rec[ci])
    return HeldOut(path, column, key, None, by_key, rows, keyless)
