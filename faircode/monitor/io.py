"""Reading prediction files (CSV, Parquet, JSON lines) with one-line errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .errors import MonitorInputError

CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".txt")
PARQUET_SUFFIXES = (".parquet", ".pq")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json", ".jsonl.gz")


def file_format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    raise MonitorInputError(f"{path}: unknown file type; use a .csv, .parquet or .jsonl file")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def check_columns(available: Iterable[str], required: dict[str, str], source: str) -> None:
    """Raise one error naming every ``required`` column (column -> option) not present."""
    have = [str(c) for c in available]
    missing = [(c, opt) for c, opt in required.items() if c not in set(have)]
    if not missing:
        return
    named = ", ".join(f"{c!r} ({opt})" for c, opt in missing)
    shown = ", ".join(have[:12]) + (f", ... ({len(have)} in all)" if len(have) > 12 else "")
    noun = "column" if len(missing) == 1 else "columns"
    raise MonitorInputError(
        f"{source}: {noun} {named} not found; available columns: {shown or '(none)'}"
    )


def read_table(path: str | Path, required: dict[str, str]) -> pd.DataFrame:
    """Read the ``required`` columns (column name -> option that named it) of ``path``."""
    p = Path(path)
    if not p.exists():
        raise MonitorInputError(f"{p}: no such file; check the path")
    if p.is_dir():
        raise MonitorInputError(f"{p}: is a directory; pass a CSV, Parquet or JSON lines file")
    fmt = file_format(p)
    wanted = set(required)
    try:
        if p.stat().st_size == 0:
            raise MonitorInputError(f"{p}: file is empty; it needs a header and data rows")
        if fmt == "csv":
            sep = "\t" if p.name.lower().endswith(".tsv") else ","
            header = pd.read_csv(p, sep=sep, nrows=0).columns
            check_columns(header, required, str(p))
            df = pd.read_csv(p, sep=sep, usecols=lambda c: c in wanted, low_memory=False)
        elif fmt == "parquet":
            df = pd.read_parquet(p)
        else:
            df = pd.read_json(p, lines=True)
    except MonitorInputError:
        raise
    except pd.errors.EmptyDataError:
        raise MonitorInputError(f"{p}: file is empty; it needs a header and data rows") from None
    except ImportError:
        from ..errors import EXTRA_OF

        raise MonitorInputError(
            f"{p}: reading {fmt} needs pyarrow, which is not installed: "
            f"pip install 'faircode[{EXTRA_OF['pyarrow']}]'"
        ) from None
    except Exception as exc:  # any parser failure is an input error, not a crash
        raise MonitorInputError(f"{p}: could not read as {fmt}: {_first_line(exc)}") from None
    check_columns(df.columns, required, str(p))
    return df[[c for c in df.columns if c in wanted]]
