"""Reading prediction files (CSV, Parquet, JSON lines) with one-line errors."""

from __future__ import annotations

import codecs
import gzip
import io
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from ..errors import EXTRA_OF, InputError, require
from ..formats import Prefixed, arrow_source, frame_header, is_polars_frame, sniff_format
from ..labels import clean_header
from ..options import advised, check_option, spelled
from ..reader import (
    SNIFF_ORDER,
    binary_format,
    delimiter_name,
    header_split,
    not_utf8,
    open_input,
    open_table,
    read_records,
)
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
    """Raise one error naming every ``required`` column (column -> option) not present,
    and the columns there are, each quoted as the missing ones are; each missing one is
    tagged with its option as the surface spells it (SPEC 0.6: ``--attr``, ``attrs``)."""
    have = [str(c) for c in available]
    missing = [(c, opt) for c, opt in required.items() if c not in set(have)]
    if not missing:
        return
    named = ", ".join(f"{c!r} ({spelled(opt)})" for c, opt in missing)
    shown = ", ".join(map(repr, have[:12]))
    shown += f", ... ({len(have)} in all)" if len(have) > 12 else ""
    noun = "column" if len(missing) == 1 else "columns"
    raise MonitorInputError(
        f"{source}: {noun} {named} not found; available columns: {shown or '(none)'}"
    )


def frame_columns(data: Any, required: dict[str, str], source: str) -> pd.DataFrame:
    """The ``required`` columns (column name -> option that named it) of a pandas or
    polars DataFrame (or LazyFrame) given to ``evaluate``, each named by its header text
    (SPEC 12.1, ``formats.frame_header``): column ``0`` is ``'0'``, a second ``y`` is
    ``y.1``, as in the CSV of the same frame and as ``profile`` names them. A polars
    frame's columns are read as its Parquet file's (through Arrow)."""
    if is_polars_frame(data):
        return _polars_columns(data, required, source)
    header = frame_header(data.columns)
    picked = _picked(header, required, source)
    # the frame's own columns, not copied (a Series per position: names may repeat)
    return pd.DataFrame({header[k]: data.iloc[:, k] for k in picked}, copy=False)


def _picked(header: list[str], required: dict[str, str], source: str) -> list[int]:
    """The positions of the ``required`` columns in ``header``, or the error naming
    those it lacks."""
    check_columns(header, required, source)
    return [k for k, name in enumerate(header) if name in required]


def _polars_columns(data: Any, required: dict[str, str], source: str) -> pd.DataFrame:
    """:func:`frame_columns` of a polars frame: its columns as pandas reads them from
    its Parquet file (Arrow's conversion, which ``pd.read_parquet`` makes)."""
    try:
        require("pyarrow", f"{source}: reading a polars frame")  # polars' to_arrow needs it
        names = list(data.collect_schema().names())
        header = frame_header(names)
        picked = _picked(header, required, source)
        names, header = [names[k] for k in picked], [header[k] for k in picked]
        chosen = data.select(names)
        if type(chosen).__name__ == "LazyFrame":
            chosen = chosen.collect()
    except MonitorInputError:
        raise
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None
    except Exception as exc:  # a LazyFrame's query that fails is an input error
        raise MonitorInputError(
            f"{source}: could not read the polars frame: {_first_line(exc)}"
        ) from None
    for name, shown in zip(names, header, strict=True):
        # Python objects: Arrow would hand over their pointers' bytes as the values
        if type(chosen.schema[name]).__name__ == "Object":
            raise _not_arrow(source, shown, chosen.schema[name], "Python objects")
    try:
        table = chosen.to_arrow()
    except Exception as exc:  # a type Arrow has no twin for (Int128)
        why = _first_line(exc)
        for name, shown in zip(names, header, strict=True):
            try:
                chosen.select(name).to_arrow()
            except Exception:  # this column's: named
                raise _not_arrow(source, shown, chosen.schema[name], why) from None
        raise MonitorInputError(f"{source}: could not read the polars frame: {why}") from None
    frame = table.to_pandas()
    frame.columns = header
    return frame


def _not_arrow(source: str, column: str, dtype: Any, why: str) -> MonitorInputError:
    return MonitorInputError(
        f"{source}: polars column {column!r} ({dtype}) cannot be read as a Parquet column ({why}); "
        "cast it to a type Parquet holds (e.g. Int64, Float64 or String)"
    )


def read_table(
    path: str | Path,
    required: dict[str, str],
    opener: Callable[[str, str], tuple[BinaryIO, bool]] | None = None,
    encoding: str | None = None,
) -> pd.DataFrame:
    """Read the ``required`` columns (column name -> option that named it) of ``path``.

    CSV is read by the profiler's own reader (SPEC section 0): labels are the text as
    written (trimmed of ASCII space/tab; ``02134`` stays ``02134``), missing by the
    profiler's token list, a long row or a NUL byte is an error naming the line or
    byte, a short row's missing cells are missing. Cells come back as the raw ``str``
    (a short row's missing cells as ``""``); `core` applies the label rule (trim,
    missing tokens) to each distinct value and parses the prediction, score and label
    columns as numbers.
    ``-``, a FIFO or a process substitution is read once, as a stream. ``opener`` opens
    the path instead of the reader's `open_input` (the MCP server's confined open);
    the file is read from what it returns only. ``encoding`` (``--encoding``, default
    UTF-8) is the text encoding of a CSV or JSON lines file, checked as `profile`'s.
    """
    encoding = check_encoding(encoding)
    name = "<stdin>" if str(path) == "-" else str(path)
    p = Path(path)
    try:
        if str(path) == "-" and opener is None:
            fh, regular = sys.stdin.buffer, False
        else:
            fh, regular = (opener or open_input)(name, name)
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None
    with fh:
        try:
            fmt = file_format(p)
        except MonitorInputError:
            if regular:
                raise
            fmt = None  # a pipe has no extension: told by its first bytes below
        return _read_open(fh, p, name, fmt, regular, required, encoding)


def check_encoding(encoding: str | None) -> str:
    """``--encoding``: a text encoding's name (default UTF-8), as `profile` checks it."""
    if encoding is None:
        return "utf-8"
    try:
        return check_option("encoding", encoding)
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None


def is_utf8(encoding: str) -> bool:
    """Whether an encoding's name (any spelling) is UTF-8."""
    return codecs.lookup(encoding).name == "utf-8"


def _read_open(
    fh: BinaryIO,
    p: Path,
    name: str,
    fmt: str | None,
    regular: bool,
    required: dict[str, str],
    encoding: str = "utf-8",
) -> pd.DataFrame:
    wanted = set(required)
    try:
        gz = p.name.lower().endswith(".gz")
        # the content decides between Parquet and text, as in `profile` (SPEC 0.8)
        kind, source = (None, fh) if gz or fmt == "jsonl" else sniff_format(fh, p, regular)
        if kind in ("arrow", "arrows"):
            raise MonitorInputError(
                f"{name}: an Arrow IPC file; fairness evaluate reads CSV, Parquet or JSON "
                "lines (convert it, e.g. with pyarrow.parquet.write_table)"
            )
        if kind == "parquet":
            fmt = "parquet"
        elif fmt is None:  # no extension (a pipe): JSON lines start with {, else CSV
            head = source.read(1)
            source = Prefixed(head, source)
            fmt = "jsonl" if head == b"{" else "csv"
        if fmt == "csv":
            return _read_csv(source, p, name, required, encoding)
        if fmt == "parquet":
            if regular:  # the open file itself, never its name again (formats.arrow_source)
                source = arrow_source(source)
            elif not isinstance(source, bytes):
                source = source.read()
            data = source if isinstance(source, str) else io.BytesIO(source)
            df = pd.read_parquet(data)
        else:
            raw = source.read()
            if p.name.lower().endswith(".gz"):
                raw = gzip.decompress(raw)
            if not is_utf8(encoding):
                raw = _recoded(raw, name, encoding)
            if not raw.strip():
                raise MonitorInputError(f"{name}: file is empty; it needs data rows")
            if raw.lstrip()[:1] == b"[":  # pandas would read it as one row of lists
                raise MonitorInputError(
                    f"{name}: a JSON array (its first character is '['), not JSON lines; "
                    "write one object per line (e.g. jq -c '.[]' FILE)"
                )
            try:
                df = pd.read_json(io.BytesIO(raw), lines=True, dtype=False)
            except (ValueError, TypeError):
                bad = _bad_json_line(raw, name)
                if bad is None:
                    raise
                raise MonitorInputError(bad) from None
    except MonitorInputError:
        raise
    except InputError as exc:
        raise MonitorInputError(str(exc)) from None
    except ImportError:
        raise MonitorInputError(
            f"{name}: reading {fmt} needs pyarrow, which is not installed: "
            f"pip install 'faircode[{EXTRA_OF['pyarrow']}]'"
        ) from None
    except Exception as exc:  # any parser failure is an input error, not a crash
        raise MonitorInputError(f"{name}: could not read as {fmt}: {_first_line(exc)}") from None
    df.columns = clean_header(str(c) for c in df.columns)
    check_columns(df.columns, required, name)
    return df[[c for c in df.columns if c in wanted]]


def _recoded(raw: bytes, name: str, encoding: str) -> bytes:
    """JSON lines ``raw`` in ``encoding``, as UTF-8 (what pandas reads)."""
    try:
        return raw.decode(encoding).encode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise MonitorInputError(
            f"{name}: byte {exc.start} (line {line}): not valid {encoding}; check the "
            f"file's encoding and pass {advised('--encoding')}"
        ) from None
    except UnicodeError as exc:  # e.g. UTF-16 without a byte order mark
        raise MonitorInputError(
            f"{name}: not valid {encoding} ({exc}); check the file's encoding and pass "
            f"{advised('--encoding')}"
        ) from None


def _bad_json_line(raw: bytes, name: str) -> str | None:
    """The error naming the first line of JSON lines ``raw`` that is not one JSON object
    (pandas names a character position instead), or None when every line is one."""
    offset = 0  # of the line's first byte in the file
    for number, line in enumerate(raw.split(b"\n"), 1):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            what = binary_format(raw[:8])  # a UTF-16 or UTF-32 file, by its byte order mark
            if what is not None:
                return f"{name}: {what}"
            return f"{name}: line {number}: byte {start + exc.start}: {not_utf8(line[exc.start])}"
        try:
            value = json.loads(text)
        except ValueError as exc:
            why = getattr(exc, "msg", None) or _first_line(exc)
            column = getattr(exc, "colno", None)
            at = f" at column {column}" if column is not None else ""
            return (
                f"{name}: line {number}: not valid JSON ({why}{at}); each line must be one "
                "JSON object"
            )
        if not isinstance(value, dict):
            return (
                f"{name}: line {number}: a JSON {type(value).__name__}, not an object; each "
                'line must be one JSON object ({"column": value, ...})'
            )
    return None


#: A CSV file up to this size is first tried by :func:`_plain_columns` (it holds the
#: whole file in memory); a larger one, or one it declines, goes to the SPEC 0 reader.
PLAIN_MAX_BYTES = 1 << 30
#: Bytes of data lines split at a time by :func:`_plain_columns` (bounds the cells of a
#: wide file held at once).
PLAIN_CHUNK_BYTES = 16 << 20


def _read_csv(
    stream: BinaryIO, p: Path, name: str, required: dict[str, str], encoding: str = "utf-8"
) -> pd.DataFrame:
    """The required columns of a CSV as str/None cells (SPEC section 0)."""
    gz = p.name.lower().endswith(".gz")
    delimiter = "\t" if p.name.lower().endswith((".tsv", ".tsv.gz")) else None
    if gz:
        stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
    elif is_utf8(encoding):  # the plain split reads UTF-8 only
        data, candidate = _read_plain_prefix(stream, PLAIN_MAX_BYTES + 1)
        if candidate and len(data) <= PLAIN_MAX_BYTES:
            plain = _plain_columns(data, name, delimiter, required)
            if plain is not None:
                return plain
            stream = io.BytesIO(data)
        else:
            stream = Prefixed(data, stream)  # type: ignore[assignment]
    info: dict[str, Any] = {}
    header, batches = read_records(
        stream,
        name,
        delimiter=delimiter,
        encoding=encoding,
        info=info,
        one_column=True,
        skip_hint=False,  # the monitor has no --skip-lines
    )
    _check_one_column(header, info["delimiter"], name, required, delimiter is not None)
    check_columns(header, required, name)
    index = {c: header.index(c) for c in header if c in required}
    columns: dict[str, list[str]] = {c: [] for c in index}
    for batch in batches:
        for c, i in index.items():
            columns[c].extend([r[i] for r in batch])
    # raw cells: the label rule (trim, missing tokens) is applied per distinct value by
    # the consumers (core._Attribute, core._numeric), which is what makes this fast
    return _frame(columns)


def _check_one_column(
    header: list[str], delimiter: str, name: str, required: dict[str, str], tsv: bool
) -> None:
    """The reader's one-column check (SPEC 0.2), with a fix the monitor has (12.1): it
    has no --delimiter or --one-column, so a .tsv file is renamed .csv (whose delimiter
    is sniffed) or the file converted. A one-column header holding every named column
    reads as it is."""
    found = header_split(header, delimiter)
    if found is None or set(required) <= set(header):
        return
    c, fields = found
    if tsv and c in SNIFF_ORDER:
        fix = "a .tsv file is read with tab between fields: rename it to .csv, whose "
        fix += "delimiter is detected"
    else:
        *most, last = (delimiter_name(d) for d in SNIFF_ORDER)
        fix = f"the monitor reads {' '.join(most)} or {last} between fields: convert the file"
    split = "spaces" if c == " " else f"'{delimiter_name(c)}'"
    raise MonitorInputError(
        f"{name}: the header is one column, but {split} would split it into {fields}; {fix}"
    )


def _read_plain_prefix(stream: BinaryIO, limit: int) -> tuple[bytes, bool]:
    """The stream's bytes up to ``limit``, and whether the plain split may take them:
    reading stops at the first block holding a quote, CR or NUL byte (the reader takes
    such a file, from these bytes on), so /dev/zero or a large quoted file is not read
    whole into memory first."""
    parts = []
    total = 0
    while total < limit:
        block = stream.read(min(limit - total, PLAIN_CHUNK_BYTES))
        if not block:
            break
        parts.append(block)
        total += len(block)
        if b'"' in block or b"\r" in block or b"\x00" in block:
            return b"".join(parts), False
    return b"".join(parts), True


def _frame(columns: dict[str, list[str]]) -> pd.DataFrame:
    # copy=False: the columns stay the Series made here (no copy into one 2-D block)
    return pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in columns.items()}, copy=False)


def _plain_columns(
    data: bytes, name: str, delimiter: str | None, required: dict[str, str]
) -> pd.DataFrame | None:
    """The required columns of a *plain* CSV file, split directly; None when the file is
    not plain (the SPEC 0 reader then reads it, and gives any error).

    Plain: no double quote, no CR, no NUL byte, valid UTF-8, and every non-blank line
    after the header has exactly the header's number of fields. Without quotes and CRs
    the reader's csv module splits a line at each delimiter and nowhere else, a blank
    line is no record, and each record is one LF-terminated line; so the cells here are
    the reader's, character for character. The header, the delimiter and the header's
    errors come from the reader itself (it reads only the first line).

    ``data`` comes from :func:`_read_plain_prefix` with its flag true: it holds no quote,
    CR or NUL byte (that function looked, block by block), so they are not searched for
    again. UTF-8 is checked where the bytes are decoded anyway: the header's line here,
    the data lines chunk by chunk below (a chunk ends at a LF, which no multi-byte
    character contains); one decode of the file, not two."""
    first = data.find(b"\n")
    try:
        data[: first if first >= 0 else len(data)].decode("utf-8")
    except UnicodeDecodeError:
        return None
    info: dict[str, Any] = {}
    header, _ = open_table(
        io.BytesIO(data), name, delimiter=delimiter, info=info, one_column=True, skip_hint=False
    )
    delim = info["delimiter"]
    _check_one_column(header, delim, name, required, delimiter is not None)
    check_columns(header, required, name)
    if len(delim) != 1 or not delim.isascii():
        return None
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # the BOM the reader drops
    while data.startswith(b"\n", start):  # blank lines before the header
        start += 1
    end = data.find(b"\n", start)
    if end < 0:
        return None  # a header only: the reader says so
    body = data[end + 1 :]
    if body.startswith(b"\n") or b"\n\n" in body:  # blank lines: no records
        body = re.sub(rb"\n\n+", b"\n", body).lstrip(b"\n")
    if not body:
        return None
    if not body.endswith(b"\n"):
        body += b"\n"
    line = data[start : end + 1]  # the header's line: again in the body (files joined)?
    again = (line, b"\xef\xbb\xbf" + line)  # with a BOM: after an Excel export
    if len(header) > 1 and any(body.startswith(x) or body.find(b"\n" + x) >= 0 for x in again):
        return None  # the reader names it (SPEC 0.3)
    width = len(header)
    index = {c: header.index(c) for c in header if c in required}
    columns: dict[str, list[str]] = {c: [] for c in index}
    code = ord(delim)
    at = 0
    while at < len(body):
        cut = body.find(b"\n", min(at + PLAIN_CHUNK_BYTES, len(body)) - 1) + 1
        chunk = body[at:cut]
        at = cut
        raw = np.frombuffer(chunk, dtype=np.uint8)
        ends = np.flatnonzero(raw == 10)
        if width > 1:
            before = np.searchsorted(np.flatnonzero(raw == code), ends)
            fields = np.diff(before, prepend=0) + 1
            if (fields != width).any():
                return None  # a short or long row: the reader pads it or names its line
        elif code in raw:
            return None
        try:
            text = chunk[:-1].decode("utf-8")
        except UnicodeDecodeError:
            return None  # the reader names the line of the bad byte
        cells = text.replace("\n", delim).split(delim)
        for c, i in index.items():
            columns[c].extend(cells[i::width])
    return _frame(columns)
