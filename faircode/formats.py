"""Typed columnar sources: Parquet, Arrow IPC (file and stream), pyarrow and polars tables.

Files are streamed a row group / record batch at a time; cells become labels by
`columnar.typed_label` (SPEC 0.4, typed sources). pyarrow (and polars) are imported
only when such a source is profiled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import InputError, require
from .options import Options
from .reader import clean_header
from .summary import Summary

PARQUET_MAGIC = b"PAR1"
ARROW_MAGIC = b"ARROW1"
STREAM_SUFFIXES = (".arrows",)
BATCH_ROWS = 65_536


def sniff_format(path: Path) -> str | None:
    """'parquet', 'arrow' (IPC file), 'arrows' (IPC stream) or None (text: CSV)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            if head[:4] == PARQUET_MAGIC:
                return "parquet"
            if head[:6] == ARROW_MAGIC:
                return "arrow"
            if path.suffix.lower() in STREAM_SUFFIXES and head[:4] == b"\xff\xff\xff\xff":
                return "arrows"
    except OSError:
        return None
    return None


def is_arrow_table(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pyarrow") and type(obj).__name__ in ("Table", "RecordBatch")


def is_polars_frame(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("polars") and type(obj).__name__ in ("DataFrame", "LazyFrame")


def _batches_of_file(path: Path, fmt: str, name: str) -> tuple[Any, Iterator[Any]]:
    """(schema, iterator of record batches) of a Parquet or IPC file."""
    kind = "Parquet" if fmt == "parquet" else "Arrow IPC"
    pa = require("pyarrow", f"{name}: reading a {kind} file")
    try:
        if fmt == "parquet":
            pq = require("pyarrow.parquet", f"{name}: reading a Parquet file")
            pf = pq.ParquetFile(path)
            return pf.schema_arrow, pf.iter_batches(batch_size=BATCH_ROWS)
        if fmt == "arrow":
            reader = pa.ipc.open_file(path)
            return reader.schema, (reader.get_batch(i) for i in range(reader.num_record_batches))
        reader = pa.ipc.open_stream(pa.OSFile(str(path), "rb"))
        return reader.schema, iter(reader)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name}: not a readable {kind} file ({_first_line(exc)})") from None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def summarize_batches(schema_names: list[str], batches: Iterator[Any], name: str,
                      overrides: dict[str, str] | None, options: Options,
                      check: Callable[[dict[str, str] | None, list[str]], dict[str, str]],
                      on_rows: Callable[[int], None] | None = None,
                      ) -> tuple[Summary, dict[str, str]]:
    import pyarrow as pa

    from .columnar import ArrowSummaryBuilder, typed_label

    header = clean_header(str(c) for c in schema_names)
    checked = check(overrides, header)
    builder = ArrowSummaryBuilder(name, header, checked, options, label_fn=typed_label)
    try:
        for batch in batches:
            n = batch.num_rows
            if n:
                builder.add_arrays(list(batch.columns), n)
                if on_rows is not None:
                    on_rows(n)
    except pa.ArrowException as exc:
        raise InputError(f"{name}: cannot read ({_first_line(exc)})") from None
    if builder.n_rows == 0:
        raise InputError(f"{name}: no data rows, only a header")
    return builder.finish(), checked


def summarize_file(path: Path, fmt: str, name: str, overrides: dict[str, str] | None,
                   options: Options, check, on_bytes=None, on_rows=None
                   ) -> tuple[Summary, dict[str, str]]:
    schema, batches = _batches_of_file(path, fmt, name)
    if on_bytes is not None:  # report the file's bytes (for hashing / progress) up front
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                on_bytes(block)
    return summarize_batches(list(schema.names), batches, name, overrides, options, check,
                             on_rows)


def summarize_table(table: Any, name: str, overrides: dict[str, str] | None,
                    options: Options, check, on_rows=None) -> tuple[Summary, dict[str, str]]:
    """A pyarrow Table / RecordBatch or a polars DataFrame / LazyFrame."""
    if is_polars_frame(table):
        require("pyarrow", f"{name}: profiling a polars frame")  # polars' to_arrow needs it
        if type(table).__name__ == "LazyFrame":
            table = table.collect()
        table = table.to_arrow()
    if type(table).__name__ == "RecordBatch":
        import pyarrow as pa

        table = pa.Table.from_batches([table])
    return summarize_batches(list(table.schema.names),
                             iter(table.to_batches(max_chunksize=BATCH_ROWS)), name,
                             overrides, options, check, on_rows)
