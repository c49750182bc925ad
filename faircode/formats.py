"""Typed sources: Parquet, Arrow IPC (file and stream), pyarrow and polars tables, and
pandas DataFrames.

Files are streamed a row group / record batch at a time; cells become labels by
`labels.MissingRule.typed_label` (SPEC 0.4, typed sources); a pandas frame is read a
slice of rows at a time (`summarize_frame`). pyarrow (and polars) are imported only
when such a source is profiled; pandas only exists here as the caller's object.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from .detect import check_overrides
from .errors import InputError, require
from .labels import DEFAULT_RULE, clean_header, float_labels
from .options import Options, spelled
from .reader import BATCH_ROWS as READ_BATCH_ROWS
from .summary import Summary, SummaryBuilder

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any, BinaryIO

PARQUET_MAGIC = b"PAR1"
ARROW_MAGIC = b"ARROW1"
STREAM_MAGIC = b"\xff\xff\xff\xff"  # an Arrow IPC stream's first message (continuation)
GZIP_MAGIC = b"\x1f\x8b"  # never valid UTF-8 (0x8b is a continuation byte)
BATCH_ROWS = 65_536
HEAD_BYTES = 64  # looked at to tell Parquet / Arrow from CSV


class Prefixed:
    """A read-only binary stream: `head` (bytes already read), then the rest of `raw`.
    Lets a pipe's first bytes be looked at without a second open (a FIFO or
    `/dev/stdin` can be read only once)."""

    def __init__(self, head: bytes, raw: BinaryIO):
        self._head, self._raw = head, raw
        self.name = getattr(raw, "name", None)

    def read(self, n: int = -1) -> bytes:
        if self._head:
            if n is None or n < 0:
                out, self._head = self._head + self._raw.read(), b""
                return out
            out, self._head = self._head[:n], self._head[n:]
            return out
        return self._raw.read(n)

    def seekable(self) -> bool:
        return False


class Gunzipped:
    """A read-only binary stream: the decompressed bytes of a gzip stream `raw` (all its
    members), decompressed as they are read. `on_bytes` sees the compressed bytes (what
    the file holds: its hash and size). A broken stream is one line,
    `{name}: not a readable gzip file ({reason})`."""

    def __init__(self, raw: BinaryIO, name: str, on_bytes: Callable[[bytes], None] | None):
        import gzip  # lazy: start-up

        self._name = name
        self._gz = gzip.GzipFile(fileobj=_Reported(raw, on_bytes), mode="rb")
        self.name = getattr(raw, "name", None)

    def read(self, n: int = -1) -> bytes:
        import zlib  # lazy: start-up

        try:
            return self._gz.read(n)
        except (EOFError, zlib.error, OSError) as exc:
            if isinstance(exc, OSError) and exc.filename is not None:
                raise
            raise InputError(
                f"{self._name}: not a readable gzip file ({_first_line(exc)})"
            ) from None

    def seekable(self) -> bool:
        return False


class _Reported:
    """A binary stream whose bytes read are handed to on_bytes (the compressed side of
    Gunzipped)."""

    def __init__(self, raw: BinaryIO, on_bytes: Callable[[bytes], None] | None):
        self._raw, self._on_bytes = raw, on_bytes

    def read(self, n: int = -1) -> bytes:
        got = self._raw.read(n)
        if got and self._on_bytes is not None:
            self._on_bytes(got)
        return got


def _read_head(fh: BinaryIO, n: int) -> bytes:
    """Up to n bytes (fewer only at end of input): a pipe may deliver them in pieces."""
    head = b""
    while len(head) < n:
        got = fh.read(n - len(head))
        if not got:
            break
        head += got
    return head


def _parquet_tail_ok(tail: bytes, size: int) -> bool:
    """A Parquet file ends with its footer's length (4 bytes, little-endian) and PAR1."""
    if len(tail) < 8 or tail[-4:] != PARQUET_MAGIC:
        return False
    footer = int.from_bytes(tail[-8:-4], "little")
    return 0 < footer <= size - 12


def sniff_format(fh: BinaryIO, path: str, regular: bool) -> tuple[str | None, Any]:
    """Tell the format from the first bytes of an open file, reading it once.

    Returns (format, source): format is 'parquet', 'arrow' (IPC file), 'arrows' (IPC
    stream), 'gzip' (a gzip-compressed file, read as CSV once decompressed) or None
    (text: CSV). For a regular file the source is the open file itself (rewound for
    CSV and gzip; never its path, which may name another file by the time it is read:
    see `arrow_source`); for a pipe or other special file it is a stream that replays
    the bytes already looked at (CSV, gzip) or, for Parquet / Arrow, which need
    random access, the whole input as bytes. A file that starts with `PAR1` (or
    `ARROW1`) is Parquet (Arrow) only when it also ends with that magic (and, for
    Parquet, a footer length that fits), so a CSV whose header starts `PAR1,` is CSV.
    The IPC stream marker `FF FF FF FF` and the gzip magic `1F 8B` are never the start
    of UTF-8 text, so they decide whatever the file's name (SPEC 0.8).
    """
    head = _read_head(fh, HEAD_BYTES)
    magic = None
    if head[:4] == PARQUET_MAGIC:
        magic = "parquet"
    elif head[:6] == ARROW_MAGIC:
        magic = "arrow"
    elif head[:4] == STREAM_MAGIC:
        magic = "arrows"
    elif head[:2] == GZIP_MAGIC:
        magic = "gzip"
    if magic == "gzip":  # streamed: decompressed as it is read
        if regular:
            fh.seek(0)
            return magic, fh
        return magic, Prefixed(head, fh)
    if regular:
        if magic in ("parquet", "arrow"):
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - 8))
            tail = _read_head(fh, 8)
            ok = (
                _parquet_tail_ok(tail, size)
                if magic == "parquet"
                else size >= 12 and tail[-6:] == ARROW_MAGIC
            )
            if not ok and _text(head):
                magic = None  # e.g. a CSV whose first column is named PAR1
        fh.seek(0)
        return magic, fh
    if magic is None:
        return None, Prefixed(head, fh)
    data = head + fh.read()  # a Parquet / IPC file needs random access
    ok = (
        _parquet_tail_ok(data[-8:], len(data))
        if magic == "parquet"
        else magic != "arrow" or (len(data) >= 12 and data[-6:] == ARROW_MAGIC)
    )
    if not ok and _text(head):
        return None, Prefixed(data, fh)
    return magic, data


def _text(head: bytes) -> bool:
    """The first bytes look like text: no NUL, valid UTF-8 (a cut last character
    allowed). A broken Parquet file (say, truncated) is binary from its first page on."""
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.reason == "unexpected end of data" and exc.end == len(head)
    return True


def is_arrow_table(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pyarrow") and type(obj).__name__ in ("Table", "RecordBatch")


def is_polars_frame(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("polars") and type(obj).__name__ in ("DataFrame", "LazyFrame")


def arrow_source(fh: BinaryIO) -> str | bytes:
    """What pyarrow (or pandas) should read for the regular file open as `fh`: a name of
    that open file itself (`/proc/self/fd/N`, `/dev/fd/N`), which Arrow opens natively
    and which cannot be swapped for another file, or, where no such name exists, the
    whole file as bytes. Never the file's own path: the MCP server opens a file once
    inside its root, and a second open by name could read whatever the name has become
    (SPEC 11). Not a Python file object either: Arrow would call back into Python from
    its IO threads (the hang at exit that tests/surfaces/test_exit.py guards against)."""
    fd = fh.fileno()
    st = os.fstat(fd)
    for alias in (f"/proc/self/fd/{fd}", f"/dev/fd/{fd}"):
        try:
            same = os.stat(alias)
        except OSError:
            continue
        if (same.st_dev, same.st_ino) == (st.st_dev, st.st_ino):
            return alias
    fh.seek(0)
    return fh.read()


def _batches_of_file(
    path: str | bytes | BinaryIO, fmt: str, name: str
) -> tuple[Any, Iterator[Any]]:
    """(schema, iterator of record batches) of a Parquet or IPC file: an open regular
    file (read through `arrow_source`), a path, or the whole file as bytes when it came
    from a pipe."""
    kind = "Parquet" if fmt == "parquet" else "Arrow IPC"
    pa = require("pyarrow", f"{name}: reading a {kind} file")
    if hasattr(path, "fileno"):
        path = arrow_source(path)
    if isinstance(path, bytes):
        path = pa.BufferReader(path)
    try:
        if fmt == "parquet":
            pq = require("pyarrow.parquet", f"{name}: reading a Parquet file")
            pf = pq.ParquetFile(path)
            return pf.schema_arrow, pf.iter_batches(batch_size=BATCH_ROWS)
        if fmt == "arrow":
            reader = pa.ipc.open_file(path)
            return reader.schema, (reader.get_batch(i) for i in range(reader.num_record_batches))
        reader = pa.ipc.open_stream(
            path if isinstance(path, pa.BufferReader) else pa.OSFile(str(path), "rb")
        )
        return reader.schema, iter(reader)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{name}: not a readable {kind} file ({_first_line(exc)})") from None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def nested_word(t: Any) -> str | None:
    """What a nested Arrow type holds ('struct', 'list', 'map', 'union'), or None for a
    type whose values are single values (SPEC 0.4: nested columns are not profiled)."""
    import pyarrow as pa  # lazy: optional extra 'fast'

    if isinstance(t, pa.ExtensionType):
        t = t.storage_type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_struct(t):
        return "struct"
    if pa.types.is_map(t):
        return "map"
    if pa.types.is_union(t):
        return "union"
    if pa.types.is_nested(t):  # list, large_list, fixed_size_list, list views
        return "list"
    return None


def _ignoring(
    checked: dict[str, str], header: list[str], unread: dict[int, str], options: Options, name: str
) -> dict[str, str]:
    """The overrides a builder gets: the checked ones, and `ignore` for the nested
    columns (never read). The label column (SPEC 17) and the outcome columns (SPEC 21)
    must hold single values."""
    if not unread:
        return checked
    for i, word in unread.items():
        for flag, names in (("--label", (options.label,)), ("--outcome", options.outcome)):
            if header[i] in names:
                raise InputError(
                    f"{spelled(flag)}: '{header[i]}' of {name} holds nested values ({word}); "
                    "give a column of single values"
                )
    return {**checked, **{header[i]: "ignore" for i in unread}}


def summarize_batches(
    schema_names: list[str],
    batches: Iterator[Any],
    name: str,
    overrides: dict[str, str] | None,
    options: Options,
    on_rows: Callable[[int], None] | None = None,
    types: list[Any] | None = None,
) -> tuple[Summary, dict[str, str]]:
    """Count record batches. `types`: the schema's Arrow types; nested columns (struct,
    list, map, union) are not read and are listed in the summary's `unread`."""
    import pyarrow as pa  # lazy: optional extra 'fast'

    from .columnar import ArrowSummaryBuilder  # lazy: start-up

    if not schema_names:
        raise InputError(f"{name}: no columns, nothing to profile")
    header = clean_header(str(c) for c in schema_names)
    checked = check_overrides(overrides, header, options)
    unread = {i: w for i, t in enumerate(types or []) if (w := nested_word(t)) is not None}
    builder = ArrowSummaryBuilder(
        name,
        header,
        _ignoring(checked, header, unread, options, name),
        options,
        label_fn=DEFAULT_RULE.typed_label,
    )
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
    summary = builder.finish()
    summary.unread = unread
    return summary, checked


def summarize_file(
    path: str | bytes | BinaryIO,
    fmt: str,
    name: str,
    overrides: dict[str, str] | None,
    options: Options,
    on_bytes=None,
    on_rows=None,
) -> tuple[Summary, dict[str, str]]:
    """A Parquet or IPC file: open (as `sniff_format` returns it), a path, or bytes.
    `on_bytes` sees the file's bytes (for hashing / progress) before any batch is read,
    so Arrow starts from a rewound file."""
    if on_bytes is not None and isinstance(path, bytes):
        on_bytes(path)
    elif on_bytes is not None and hasattr(path, "read"):
        path.seek(0)
        while block := path.read(1 << 20):
            on_bytes(block)
        path.seek(0)
    elif on_bytes is not None:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                on_bytes(block)
    schema, batches = _batches_of_file(path, fmt, name)
    return summarize_batches(
        list(schema.names), batches, name, overrides, options, on_rows, list(schema.types)
    )


def summarize_table(
    table: Any, name: str, overrides: dict[str, str] | None, options: Options, on_rows=None
) -> tuple[Summary, dict[str, str]]:
    """A pyarrow Table / RecordBatch or a polars DataFrame / LazyFrame."""
    if is_polars_frame(table):
        require("pyarrow", f"{name}: profiling a polars frame")  # polars' to_arrow needs it
        if type(table).__name__ == "LazyFrame":
            table = table.collect()
        table = table.to_arrow()
    if type(table).__name__ == "RecordBatch":
        import pyarrow as pa  # lazy: optional extra 'fast'

        table = pa.Table.from_batches([table])
    return summarize_batches(
        list(table.schema.names),
        iter(table.to_batches(max_chunksize=BATCH_ROWS)),
        name,
        overrides,
        options,
        on_rows,
        list(table.schema.types),
    )


FRAME_ROWS = READ_BATCH_ROWS  # rows of a pandas frame labelled at a time


def frame_name(side: str = "") -> str:
    """What messages and reports call a frame or table given without a name (SPEC 0.6):
    `<dataframe>`, and `<dataframe A>` for a side of a call that takes two (``side``), so
    that neither its header nor an error reading one side names both alike."""
    return f"<dataframe {side}>" if side else "<dataframe>"


def is_pandas_frame(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pandas") and type(obj).__name__ == "DataFrame"


def _frame_unread(df: Any) -> dict[int, str]:
    """The columns of a pandas frame holding nested values: an Arrow-backed nested dtype,
    or an object column with a cell Python cannot hash (a list, dict, set or array):
    column -> the kinds of values, sorted ('dict, list')."""
    out: dict[int, str] = {}
    for k in range(df.shape[1]):
        s = df.iloc[:, k]
        arrow = getattr(s.dtype, "pyarrow_dtype", None)
        if arrow is not None:
            if (word := nested_word(arrow)) is not None:
                out[k] = word
            continue
        if s.dtype != object:
            continue
        kinds = set(map(type, s.to_numpy()))
        nested = sorted(t.__name__ for t in kinds if t.__hash__ is None and t is not bytearray)
        if nested:
            out[k] = ", ".join(nested)
    return out


_TYPED: Any = object()  # (_TYPED, label): a typed cell of a mixed column, labelled already
_KEYED_ALIKE = ({int}, {bool})  # one of these types alone: equal values have equal str()


def _frame_label(value: Any) -> str | None:
    if type(value) is tuple and len(value) == 2 and value[0] is _TYPED:
        return value[1]
    return DEFAULT_RULE.frame_label(value)


def _short_float_cells(s: Any) -> list[Any]:
    """A float16 / float32 frame column's cells as (_TYPED, label): labelled at their own
    precision (SPEC 0.4: float32 0.1 is "0.1", as in Arrow and polars), not as the 64-bit
    floats pandas hands over; each distinct value (by its bits: 0.0 and -0.0 differ) is
    labelled once."""
    import numpy as np  # lazy: start-up

    values = s.to_numpy(dtype="float64", na_value=np.nan)
    labels = float_labels(values, s.dtype.itemsize * 8)
    return [None if label is None else (_TYPED, label) for label in labels]


def _frame_cells(s: Any) -> list[Any]:
    """One frame column's cells for SummaryBuilder: None for nulls, else the value; the
    builder counts cells by equality, so where values that are equal in Python have
    different labels (True, 1 and 1.0 in an object column; 0.0 and -0.0; Decimal 1.0
    and 1.00) each non-string cell is handed over as (_TYPED, its label): distinct
    labels stay distinct groups, as in the CSV of the same frame (SPEC 0.4)."""
    if getattr(s.dtype, "kind", None) == "f" and s.dtype.itemsize < 8:
        return _short_float_cells(s)
    cells = s.astype(object).where(s.notna(), None).tolist()
    if s.dtype == object:
        kinds = set(map(type, cells)) - {type(None), str}
        if not kinds or kinds in _KEYED_ALIKE:
            return cells
    elif getattr(s.dtype, "kind", None) == "f":
        import numpy as np  # lazy: start-up

        values = s.to_numpy(dtype="float64", na_value=np.nan)
        sign = np.signbit(values[values == 0])
        if not (sign.any() and not sign.all()):  # not both 0.0 and -0.0
            return cells
    else:
        return cells
    label = DEFAULT_RULE.frame_label
    return [v if v is None or type(v) is str else (_TYPED, label(v)) for v in cells]


def _frame_column_name(name: Any) -> str:
    """A frame column's name as its header text: a null name (None, NaN, pd.NA, which
    pandas' CSV writes as an empty name) is empty, so `column_N` (SPEC 0.3, 0.4)."""
    import pandas as pd  # lazy: start-up

    if pd.api.types.is_scalar(name) and pd.isna(name):
        return ""
    return str(name)


def frame_header(names: Iterable[Any]) -> list[str]:
    """A frame's column names as the header of the same frame written as CSV (SPEC 0.3,
    0.4): each as text (``0`` is ``'0'``), trimmed, a null or empty one ``column_N``, a
    duplicate ``name.1``; a column is then named by this text alone."""
    return clean_header(_frame_column_name(c) for c in names)


def summarize_frame(
    df: Any, name: str, overrides: dict[str, str] | None, options: Options, on_rows=None
) -> tuple[Summary, dict[str, str]]:
    """A pandas DataFrame: its nulls (None, NaN, NaT, pd.NA) are missing, other cells are
    labelled by `labels.MissingRule.frame_label` (SPEC 0.4, typed sources); columns
    holding nested values are not read (listed in the summary's `unread`)."""
    if df.shape[1] == 0:
        raise InputError(f"{name}: no columns, nothing to profile")
    header = frame_header(df.columns)
    if len(df) == 0:
        raise InputError(f"{name}: no data rows, only a header")
    checked = check_overrides(overrides, header, options)
    unread = _frame_unread(df)
    builder = SummaryBuilder(
        name, header, _ignoring(checked, header, unread, options, name), options, _frame_label
    )
    for start in range(0, len(df), FRAME_ROWS):
        part = df.iloc[start : start + FRAME_ROWS]
        cols = []
        for k in range(part.shape[1]):
            if k in unread:
                cols.append([None] * len(part))  # never read: the builder ignores it
            else:
                cols.append(_frame_cells(part.iloc[:, k]))
        builder.add_columns(cols, len(part))
        if on_rows is not None:
            on_rows(len(part))
    summary = builder.finish()
    summary.unread = unread
    return summary, checked
