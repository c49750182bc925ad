"""CSV fast path: pyarrow's streaming CSV reader plus vectorised counting.

`summarize_csv` returns the same Summary as the reference reader (`reader.py` +
`SummaryBuilder`) or a `Fallback` saying why it could not; the caller then runs the
reference reader, which produces the result or the exact SPEC 0.6 error. Where Arrow's
dialect differs from SPEC section 0 the difference is detected, never guessed:

- the header, the delimiter, "file is empty" and "no data rows" come from the reference
  reader itself (it reads only the first records);
- every block Arrow reads passes through `_CheckedStream`, which rejects NUL bytes and
  invalid UTF-8 (-> fallback; the reference names the offset);
- a long row makes the invalid-row handler abort (-> fallback; the reference names the
  line); a short row is kept by the handler and parsed by Python's csv module, padded
  with missing cells, as section 0.3 says;
- an unterminated quote: after the data the stream appends a line holding a random
  quoted sentinel; if the input ended inside a quoted field the sentinel is swallowed
  into that field and never appears as its own row (-> fallback);
- Arrow already matches SPEC on CRLF/LF/CR line ends, blank lines (skipped), lines of
  spaces (a record), `""` escapes, text after a closing quote, `"` inside an unquoted
  field and the BOM; tests/test_fastpath.py checks all of this against the reference.

pyarrow is imported only when this path runs.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from .errors import InputError
from .options import Options
from .reader import open_table
from .summary import Summary, label_of

ARROW_BLOCK_SIZE = 1 << 19
FAST_MIN_BYTES = 4 << 20  # below this the reference reader is as fast (no pyarrow import)
_COMBINE_ROWS = 65_536  # count batches of about this many rows at a time
PROBE_ROWS = 1000  # records the reference reader reads first (header checks, open columns)


@dataclass
class Fallback:
    """The fast path did not apply; `reason` says why; `bytes_reported` and
    `rows_reported` are what on_bytes / on_rows already saw (the caller skips them)."""

    reason: str
    bytes_reported: int = 0
    rows_reported: int = 0


class _Abort(Exception):
    pass


def available() -> bool:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


def applies(options: Options) -> str | None:
    """None when the fast path can be tried with these options, else the reason not."""
    if codecs.lookup(options.encoding).name != "utf-8":
        return "encoding is not utf-8"
    if options.skip_lines:
        return "skip_lines"
    if not available():
        return "pyarrow is not installed"
    return None


class _CheckedStream(io.RawIOBase):
    """The file's bytes, checked for NUL and UTF-8, then a sentinel line."""

    def __init__(self, raw: BinaryIO, on_bytes: Callable[[bytes], None] | None,
                 sentinel: bytes) -> None:
        super().__init__()
        self.raw = raw
        self.on_bytes = on_bytes
        self.tail = sentinel
        self.pending = b""  # an incomplete UTF-8 sequence at the end of the last block
        self.reported = 0
        self.problem: str | None = None
        self.done = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self.done:
            n = len(self.tail) if size is None or size < 0 else size
            out, self.tail = self.tail[:n], self.tail[n:]
            return out
        block = self.raw.read(size if size is not None and size > 0 else ARROW_BLOCK_SIZE)
        if not block:
            self.done = True
            if self.pending:
                self._fail("truncated UTF-8 sequence at the end")
            return self.read(size)
        if b"\x00" in block:
            self._fail("NUL byte")
        data = self.pending + block if self.pending else block
        try:
            _, used = codecs.utf_8_decode(data, "strict", False)
        except UnicodeDecodeError:
            self._fail("invalid UTF-8")
        self.pending = data[used:]
        if self.on_bytes is not None:
            self.on_bytes(block)
        self.reported += len(block)
        return block

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)

    def _fail(self, problem: str) -> None:
        self.problem = problem
        raise _Abort(problem)


def summarize_csv(stream: BinaryIO, name: str, overrides: dict[str, str] | None,
                  options: Options, *,
                  check: Callable[[dict[str, str] | None, list[str]], dict[str, str]],
                  on_bytes: Callable[[bytes], None] | None = None,
                  on_rows: Callable[[int], None] | None = None,
                  block_size: int = ARROW_BLOCK_SIZE, probe_rows: int = PROBE_ROWS
                  ) -> tuple[Summary, dict[str, str]] | Fallback:
    """Summarize a seekable UTF-8 CSV stream with pyarrow, or say why not.

    Returns (summary, checked overrides) or a Fallback. `check(overrides, header)`
    validates the overrides once the header is known; the InputError it raises is the
    one the reference reader raises at the same point."""
    reason = applies(options)
    if reason:
        return Fallback(reason)
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from .columnar import ArrowSummaryBuilder

    start = stream.tell()
    info: dict = {}
    try:
        header, records = open_table(stream, name, delimiter=options.delimiter,
                                     names=options.names, info=info)
        probe = list(itertools.islice(records, max(1, probe_rows)))  # >= 1 record, or an error
    except (InputError, StopIteration):
        stream.seek(start)
        return Fallback("the reference reader reports a problem in the first records")
    stream.seek(start)
    checked_overrides = check(overrides, header)
    width = len(header)
    delim = info["delimiter"]
    builder = ArrowSummaryBuilder(name, header, checked_overrides, options)
    # Open columns with more than max_categorical labels among the first records can
    # never be dimensions: Arrow need not even convert them.
    for i, role in enumerate(builder.roles):
        if role == "open" and width > 1:
            labels = {label_of(rec[i]) for rec, _ in probe} - {None}
            if len(labels) > options.max_categorical:
                builder.drop(i)
    included = [i for i, st in enumerate(builder.state) if st is not None] or [0]
    token = "\x01faircode-" + os.urandom(8).hex()
    sentinel_text = f'"{token}"'
    checked = _CheckedStream(stream, on_bytes, f'\n{sentinel_text}\n'.encode())
    state = {"sentinel": False, "long": False}
    short_rows: list[str] = []

    def on_invalid(row: Any) -> str:
        if row.text == sentinel_text and not state["sentinel"]:
            state["sentinel"] = True
            return "skip"
        if state["sentinel"] or row.actual_columns > row.expected_columns:
            state["long"] = True
            return "error"
        short_rows.append(row.text)
        return "skip"

    names = [f"f{i}" for i in range(width)]
    # Columns whose labels are counted all along come dictionary-encoded from Arrow's
    # converter threads; open columns (maybe dropped after a batch) come as plain strings.
    types = {names[i]: pa.dictionary(pa.int32(), pa.string())
             if builder.roles[i] in ("named", "forced") else pa.string() for i in included}
    read_opts = pacsv.ReadOptions(column_names=names, block_size=block_size, use_threads=True)
    parse_opts = pacsv.ParseOptions(delimiter=delim, quote_char='"', double_quote=True,
                                    escape_char=False, newlines_in_values=True,
                                    ignore_empty_lines=True, invalid_row_handler=on_invalid)
    convert_opts = pacsv.ConvertOptions(
        column_types=types, include_columns=[names[i] for i in included], null_values=[],
        strings_can_be_null=False, quoted_strings_can_be_null=False, check_utf8=False)
    rows_reported = 0
    skip_header = options.names is None

    def add(arrays: list, n: int) -> None:
        nonlocal rows_reported
        builder.add_arrays(arrays, n)
        if on_rows is not None and n:
            on_rows(n)
            rows_reported += n

    def drain_short() -> None:
        if not short_rows:
            return
        texts = short_rows[:]
        del short_rows[:len(texts)]
        cols: list[list[str]] = [[] for _ in range(width)]
        for text in texts:
            recs = list(csv.reader(io.StringIO(text, newline=""), delimiter=delim,
                                   quotechar='"', doublequote=True, strict=False))
            if len(recs) != 1 or len(recs[0]) > width:
                raise _Abort("a short row Python's csv module reads differently")
            rec = recs[0] + [""] * (width - len(recs[0]))
            for j, cell in enumerate(rec):
                cols[j].append(cell)
        add([pa.array(c, pa.string()) if builder.state[j] is not None else None
             for j, c in enumerate(cols)], len(texts))

    pending: list = []  # record batches not yet counted (the last one may end in sentinel)
    pending_rows = 0

    def flush(keep_last: bool) -> None:
        nonlocal pending, pending_rows
        if not pending:
            return
        todo = pending[:-1] if keep_last else pending
        pending = pending[-1:] if keep_last else []
        pending_rows = sum(b.num_rows for b in pending)
        if not todo:
            return
        arrays: list = [None] * width
        if len(todo) == 1:
            for pos, j in enumerate(included):
                arrays[j] = todo[0].column(pos)
        else:
            table = pa.Table.from_batches(todo)
            for pos, j in enumerate(included):
                arrays[j] = table.column(pos)
        add(arrays, sum(b.num_rows for b in todo))

    try:
        reader = pacsv.open_csv(checked, read_options=read_opts, parse_options=parse_opts,
                                convert_options=convert_opts)
        for batch in reader:
            if skip_header:
                batch = batch.slice(1)
                skip_header = False
            if batch.num_rows == 0:
                continue
            pending.append(batch)
            pending_rows += batch.num_rows
            if pending_rows - pending[-1].num_rows >= _COMBINE_ROWS:
                flush(keep_last=True)
            drain_short()
        if width == 1 and pending and pending[-1].num_rows and \
                pending[-1].column(0)[-1].as_py() == token:
            state["sentinel"] = True
            pending[-1] = pending[-1].slice(0, pending[-1].num_rows - 1)
        if not state["sentinel"] or state["long"]:
            raise _Abort("unterminated quote or long row")
        flush(keep_last=False)
        drain_short()
    except Exception as exc:  # any library disagreement: the reference reader decides
        stream.seek(start)
        why = checked.problem or state["long"] and "long row" or str(exc).splitlines()[0]
        return Fallback(f"fast path aborted: {why}", checked.reported, rows_reported)
    if builder.n_rows == 0:  # cannot happen after the check above, but never guess
        stream.seek(start)
        return Fallback("no rows", checked.reported, rows_reported)
    return builder.finish(), checked_overrides
