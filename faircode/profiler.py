"""Entry points: turn a source into a Summary, and a Summary into a result."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from .analyze import analyze
from .detect import OVERRIDE_VALUES
from .errors import InputError
from .options import Options, resolve
from .reader import BATCH_ROWS, BLOCK_SIZE, clean_header, read_records
from .summary import Summary, SummaryBuilder, label_of


def check_overrides(overrides: dict[str, str] | None, columns: list[str]) -> dict[str, str]:
    overrides = dict(overrides or {})
    for col, kind in overrides.items():
        if col not in columns:
            shown = ", ".join(columns[:5]) + ("..." if len(columns) > 5 else "")
            raise InputError(f"--map: no column named '{col}' (columns: {shown})")
        if kind not in OVERRIDE_VALUES:
            raise InputError(f"--map: unknown kind '{kind}' for '{col}' "
                             "(use sex, race, age, geography, categorical or ignore)")
    return overrides


def display_name(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return getattr(source, "name", None) if isinstance(getattr(source, "name", None), str) \
        else "<stream>"


def _frame_label(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return label_of(value)
    return str(value)


def summarize(source: Any, overrides: dict[str, str] | None = None,
              opts: dict | Options | None = None, *, name: str | None = None,
              block_size: int = BLOCK_SIZE,
              on_bytes: Callable[[bytes], None] | None = None,
              ) -> tuple[Summary, dict[str, str], Options]:
    """Read source once into a Summary; return it with the checked overrides and options."""
    options = resolve(opts)
    if _is_dataframe(source):
        return _summarize_frame(source, overrides, options, name or "<dataframe>")
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label = name or str(source)
        if not path.exists():
            raise InputError(f"{label}: no such file")
        if path.is_dir():
            raise InputError(f"{label}: is a directory, not a file")
        try:
            with open(path, "rb") as fh:
                return _summarize_stream(fh, label, overrides, options, block_size, on_bytes)
        except PermissionError:
            raise InputError(f"{label}: permission denied") from None
    if hasattr(source, "read"):
        return _summarize_stream(source, name or display_name(source), overrides, options,
                                 block_size, on_bytes)
    raise InputError(f"cannot profile a {type(source).__name__}: "
                     "give a path, a binary file object or a pandas DataFrame")


def _summarize_stream(stream: BinaryIO, name: str, overrides, options: Options,
                      block_size: int, on_bytes) -> tuple[Summary, dict[str, str], Options]:
    header, batches = read_records(
        stream, name, encoding=options.encoding, delimiter=options.delimiter,
        names=options.names, skip_lines=options.skip_lines, block_size=block_size,
        on_bytes=on_bytes)
    checked = check_overrides(overrides, header)
    builder = SummaryBuilder(name, header, checked, options)
    for batch in batches:
        builder.add_rows(batch)
    return builder.finish(), checked, options


def _is_dataframe(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pandas") and type(obj).__name__ == "DataFrame"


def _summarize_frame(df, overrides, options: Options, name: str):
    header = clean_header(str(c) for c in df.columns)
    if len(df) == 0:
        raise InputError(f"{name}: no data rows, only a header")
    checked = check_overrides(overrides, header)
    builder = SummaryBuilder(name, header, checked, options, label_fn=_frame_label)
    for start in range(0, len(df), BATCH_ROWS):
        part = df.iloc[start:start + BATCH_ROWS]
        cols = []
        for k in range(part.shape[1]):
            s = part.iloc[:, k]
            cols.append(s.astype(object).where(s.notna(), None).tolist())
        builder.n_rows += len(part)
        builder._add_columns(cols, len(part))
    return builder.finish(), checked, options


def profile(source: Any, overrides: dict[str, str] | None = None,
            opts: dict | Options | None = None, **kwargs: Any) -> dict:
    """Profile a CSV path, binary stream or DataFrame; return the SPEC section 6 dict."""
    summary, checked, options = summarize(source, overrides, opts, **kwargs)
    return analyze(summary, checked, options)
