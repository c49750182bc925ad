"""CSV fast path: pyarrow's streaming CSV reader plus vectorised counting.

`summarize_csv` returns the same Summary as the reference reader (`reader.py` +
`SummaryBuilder`) or a `Fallback` saying why it could not; the caller then runs the
reference reader, which produces the result or the exact SPEC 0.6 error. Where Arrow's
dialect differs from SPEC section 0 the difference is detected, never guessed:

- the header, the delimiter, "file is empty" and "no data rows" come from the reference
  reader itself (it reads only the first records);
- every block Arrow reads passes through `_PartStream`, which rejects NUL bytes and
  invalid UTF-8 (-> fallback; the reference names the offset);
- a long row makes the invalid-row handler abort (-> fallback; the reference names the
  line); a short row is kept by the handler and parsed by Python's csv module, padded
  with missing cells, as section 0.3 says;
- a repeated header (SPEC 0.3): one column's values are searched for the header
  record's field in that column (`_PartsRead._witness`; in the first column, also that
  field after a U+FEFF, a BOM from an Excel export), a dictionary look-up per batch;
  a hit (a repeated header, or a column whose value is its own name) -> fallback, and the
  reference reader decides by whole records and names the first line;
- an unterminated quote: after the data the stream appends a line holding a random
  quoted sentinel; if the input ended inside a quoted field the sentinel is swallowed
  into that field and never appears as its own row (-> fallback);
- parts: a file of SPLIT_MIN_BYTES or more is cut after a LF into `default_parts`
  byte ranges, each parsed by its own Arrow reader on its own thread (with its own
  sentinel) while this thread counts; a part that fails, or a cut inside a quoted field
  (the part before it swallows its sentinel), makes the file be read again in one part;
- Arrow already matches SPEC on CRLF/LF/CR line ends, blank lines (skipped), lines of
  spaces (a record), `""` escapes, text after a closing quote, `"` inside an unquoted
  field and the BOM; tests/engine/test_fastpath.py checks all of this against the reference.

pyarrow is imported only when this path runs.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .detect import check_overrides, label_slack
from .errors import InputError
from .options import Options
from .reader import dos_eof_length, open_table
from .summary import MISSING_TOKENS, PROXY_LABELS, Summary, label_of

ARROW_BLOCK_SIZE = 1 << 19
FAST_MIN_BYTES = 4 << 20  # below this the reference reader is as fast (no pyarrow import)
_COMBINE_ROWS = 65_536  # count batches of about this many rows at a time,
_COMBINE_CELLS = 1 << 23  # and of at most this many cells (wide files: fewer rows)
_QUEUE_COLUMNS = 8192  # queued batches per part: this over the counted columns, 2..32
SPLIT_MIN_BYTES = 32 << 20  # smaller files are read in one part
_SPLIT_WINDOW = 1 << 18  # bytes looked at for a part boundary
_RELAY_BLOCK = 1 << 20
_DONE = object()
log = logging.getLogger("faircode.fastpath")
PROBE_ROWS = 1000  # records the reference reader reads first (header checks, open columns)


@dataclass
class Fallback:
    """The fast path did not apply; `reason` says why; `bytes_reported` and
    `rows_reported` are what on_bytes / on_rows already saw (the caller skips them)."""

    reason: str
    bytes_reported: int = 0
    rows_reported: int = 0


class _Abort(Exception):
    """The fast path cannot give the answer; the reference reader will."""


class _Unexpected(_Abort):
    """A failure that is no known dialect difference (logged as a warning)."""


def available() -> bool:
    try:
        import pyarrow  # lazy: optional extra 'fast'  # noqa: F401
        import pyarrow.csv  # lazy: optional extra 'fast'  # noqa: F401
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
    if options.proxy_with:  # SPEC 16: held-out columns follow the rows in file order
        return "held-out proxy columns"
    if options.outcome:  # SPEC 21.2: exact sums are kept by the reference reader
        return "outcome columns"
    return None


class _Shared:
    """State the reading threads share: bytes handed to Arrow so far, and a stop flag."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.read = 0
        self.stop = False

    def add(self, n: int) -> None:
        with self.cond:
            self.read += n
            self.cond.notify_all()

    def halt(self) -> None:
        with self.cond:
            self.stop = True
            self.cond.notify_all()


def _positional_reader(stream: BinaryIO) -> Callable[[int, int], bytes]:
    """read(offset, n) on the stream that threads can share: os.pread on a real file,
    else seek + read under a lock."""
    try:
        fd = stream.fileno()
        os.pread(fd, 0, 0)
        return lambda offset, n: os.pread(fd, n, offset)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    lock = threading.Lock()

    def read(offset: int, n: int) -> bytes:
        with lock:
            stream.seek(offset)
            return stream.read(n)

    return read


def utf8_complete(data: bytes) -> int:
    """The length of data less an incomplete UTF-8 sequence at its end (at most 3 bytes,
    a lead byte and the continuation bytes after it that do not yet complete it): the
    bytes a stream can check now, the rest waiting for the next block. Ill-formed bytes
    are left in for the check to refuse."""
    n = len(data)
    k = n - 1
    stop = max(-1, n - 4)
    while k > stop and data[k] & 0xC0 == 0x80:
        k -= 1
    if k <= stop:  # no lead byte among the last 4 (ill-formed), or no byte at all
        return n
    lead = data[k]
    if lead >= 0xF5:  # never a lead byte: refused now, not carried
        return n
    need = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return k if k + need > n else n


def utf8_valid(data: bytes, end: int) -> bool:
    """Whether data[:end] is well-formed UTF-8, checked by Arrow's validator on the
    bytes where they are (decoding them would fill a str as large as the file, a block
    at a time, only to drop it: a quarter of a 1 GB run's page faults)."""
    import pyarrow as pa  # lazy: optional extra 'fast'

    if end == 0:
        return True
    offsets = pa.py_buffer((0).to_bytes(4, "little") + end.to_bytes(4, "little"))
    text = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


class _PartStream(io.RawIOBase):
    """Bytes [begin, end) of the file, checked for NUL and UTF-8, then a sentinel line.

    A part boundary always follows a LF, so no UTF-8 sequence spans two parts.

    No block ends with a CR while more bytes follow: Arrow (pyarrow 26) drops the LF of
    a CRLF inside a quoted field when a block boundary falls between the CR and the LF
    ("B\r\nB" became "B\rB"), so a trailing CR is held back and starts the next block."""

    def __init__(
        self,
        pread: Callable[[int, int], bytes],
        begin: int,
        end: int,
        shared: _Shared,
        sentinel: bytes,
    ) -> None:
        super().__init__()
        self.pread, self.pos, self.end = pread, begin, end
        self.shared = shared
        self.tail = sentinel
        self.held = b""  # a CR held back from the end of the last block
        self.pending = b""  # an incomplete UTF-8 sequence at the end of the last block
        self.problem: str | None = None

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self.shared.stop:
            self._fail("stopped")
        if self.pos >= self.end:
            if self.pending:
                self._fail("truncated UTF-8 sequence at the end")
            self.tail, self.held = self.held + self.tail, b""
            n = len(self.tail) if size is None or size < 0 else size
            out, self.tail = self.tail[:n], self.tail[n:]
            return out
        want = size if size is not None and size > 0 else ARROW_BLOCK_SIZE
        block = self.pread(self.pos, max(1, min(want - len(self.held), self.end - self.pos)))
        if not block:  # the file shrank under us
            self._fail("the file changed while it was read")
        self.pos += len(block)
        if b"\x00" in block:
            self._fail("NUL byte")
        data = self.pending + block if self.pending else block
        used = utf8_complete(data)
        if not utf8_valid(data, used):
            self._fail("invalid UTF-8")
        self.pending = data[used:]
        self.shared.add(len(block))
        out, self.held = self.held + block, b""
        if len(out) > 1 and out[-1] == 13:  # 13: CR; the tail or more data follows
            out, self.held = out[:-1], out[-1:]
        return out

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def _fail(self, problem: str) -> None:
        self.problem = self.problem or problem
        raise _Abort(problem)


class _ByteRelay:
    """Calls on_bytes with the file's bytes in file order, from a thread of its own,
    never ahead of what Arrow has been given: parts are read concurrently, but a hash
    needs the bytes in order, and progress should show what was read."""

    def __init__(
        self,
        pread: Callable[[int, int], bytes],
        begin: int,
        end: int,
        shared: _Shared,
        on_bytes: Callable[[bytes], None],
    ) -> None:
        self.pread, self.begin, self.end = pread, begin, end
        self.shared, self.on_bytes = shared, on_bytes
        self.reported = 0
        self.error: BaseException | None = None
        self.finish = False
        self.thread = threading.Thread(target=self._run, name="faircode-bytes", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            pos = self.begin
            while pos < self.end:
                with self.shared.cond:
                    while not (
                        self.shared.stop
                        or self.finish
                        or self.begin + self.shared.read >= min(pos + _RELAY_BLOCK, self.end)
                    ):
                        self.shared.cond.wait()
                    if self.shared.stop:
                        return
                    ready = self.end if self.finish else self.begin + self.shared.read
                block = self.pread(pos, min(_RELAY_BLOCK, ready - pos, self.end - pos))
                if not block:
                    return
                self.on_bytes(block)
                pos += len(block)
                self.reported += len(block)
        except BaseException as exc:  # raised again on the caller's thread
            self.error = exc

    def close(self, complete: bool) -> None:
        """complete: every byte was read by Arrow, so report the rest and wait."""
        if complete:
            with self.shared.cond:
                self.finish = True
                self.shared.cond.notify_all()
        else:
            self.shared.halt()
        self.thread.join()
        if self.error is not None:
            raise self.error


def _header_end(pread: Callable[[int, int], bytes], begin: int, end: int) -> int:
    """The offset just after the LF that ends the first non-blank line (the header, or
    the first record with `names`), or `end` when there is none in the first MiB. No cut
    may come before it: part 0 must hold the header, which is skipped there only."""
    head = pread(begin, min(1 << 20, end - begin))
    i = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    while i < len(head) and head[i] in b"\r\n":
        i += 1
    lf = head.find(b"\n", i)
    return end if lf < 0 else begin + lf + 1


def _split_points(
    pread: Callable[[int, int], bytes], begin: int, end: int, parts: int, first: int | None = None
) -> list[int]:
    """Boundaries [begin, b1, ..., end] near equal sizes, each just after a LF, none
    before `first` (default: just after the header line, `_header_end`).

    A LF inside a quoted field is no record boundary; the part before it would then end
    inside quotes, which the sentinel shows, and the file is read again in one part. To
    make that rare, a LF is preferred whose line before and line after each hold an even
    number of double quotes (a LF inside a multi-line field has a line with an odd number
    on at least one side)."""
    if first is None:
        first = _header_end(pread, begin, end)
    bounds = [begin]
    for k in range(1, parts):
        target = max(begin + (end - begin) * k // parts, first - 1)
        if target <= bounds[-1]:
            continue
        window = pread(target, min(_SPLIT_WINDOW, end - target))
        lfs = _find_all(window, b"\n")
        even = [
            b
            for a, b, c in zip(lfs, lfs[1:], lfs[2:])
            if window.count(b'"', a + 1, b) % 2 == 0 and window.count(b'"', b + 1, c) % 2 == 0
        ]
        chosen = next(
            (b for b in even + lfs[:1] if _cut_allowed(pread, begin, target + b + 1)), None
        )
        if chosen is None:
            continue
        point = target + chosen + 1
        if bounds[-1] < point < end:
            bounds.append(point)
    bounds.append(end)
    return bounds


def _cut_allowed(pread: Callable[[int, int], bytes], begin: int, point: int) -> bool:
    """SPEC 0.8: a cut at `point` keeps a part's reader from reading a line as the start
    or end of a file: none right before a line that starts with a BOM (Arrow drops one at
    the start of its input: data there), none right after a line holding only a Ctrl-Z
    (the end of a file drops that line: data there)."""
    if pread(point, 3) == codecs.BOM_UTF8:
        return False
    return not dos_eof_length(pread(max(begin, point - 4), min(4, point - begin)))


def _find_all(data: bytes, needle: bytes, limit: int = 64) -> list[int]:
    out = []
    i = data.find(needle)
    while i >= 0 and len(out) < limit:
        out.append(i)
        i = data.find(needle, i + 1)
    return out


def default_parts(size: int) -> int:
    """How many parts of a file of `size` bytes to parse at once: one per core (at most
    4), for files of SPLIT_MIN_BYTES or more."""
    if size < SPLIT_MIN_BYTES:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def skip_reported(callback: Callable | None, already: int, measure: Callable[[Any], int]):
    """Wrap callback so that the first `already` units (already reported) are not re-sent."""
    if callback is None or already == 0:
        return callback
    left = already

    def wrapped(item):
        nonlocal left
        if left <= 0:
            return callback(item)
        size = measure(item)
        if size <= left:
            left -= size
            return None
        cut, left = left, 0
        return callback(item[cut:] if isinstance(item, bytes) else item - cut)

    return wrapped


def summarize_csv(
    stream: BinaryIO,
    name: str,
    overrides: dict[str, str] | None,
    options: Options,
    *,
    on_bytes: Callable[[bytes], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
    block_size: int = ARROW_BLOCK_SIZE,
    probe_rows: int = PROBE_ROWS,
    parts: int | None = None,
) -> tuple[Summary, dict[str, str]] | Fallback:
    """Summarize a seekable UTF-8 CSV stream with pyarrow, or say why not.

    Returns (summary, checked overrides) or a Fallback. The overrides are checked
    (`detect.check_overrides`) once the header is known; the InputError that raises is
    the one the reference reader raises at the same point. `parts`: how many byte ranges
    of the file to parse at once (default: `default_parts`). Every fallback is logged
    with its reason on the `faircode.fastpath` logger."""
    got = _summarize_csv(
        stream, name, overrides, options, on_bytes, on_rows, block_size, probe_rows, parts
    )
    if isinstance(got, Fallback):
        log.info("%s: read by the reference reader: %s", name, got.reason)
    return got


def _summarize_csv(
    stream: BinaryIO,
    name: str,
    overrides: dict[str, str] | None,
    options: Options,
    on_bytes,
    on_rows,
    block_size: int,
    probe_rows: int,
    parts: int | None,
) -> tuple[Summary, dict[str, str]] | Fallback:
    reason = applies(options)
    if reason:
        return Fallback(reason)

    start = stream.tell()
    info: dict = {}
    try:
        header, records = open_table(
            stream,
            name,
            delimiter=options.delimiter,
            names=options.names,
            info=info,
            one_column=options.one_column,
        )
        probe = list(itertools.islice(records, max(1, probe_rows)))  # >= 1 record, or an error
    except (InputError, StopIteration):
        stream.seek(start)
        return Fallback("the reference reader reports a problem in the first records")
    end = stream.seek(0, os.SEEK_END)
    stream.seek(start)
    # SPEC 0.2: a last line holding only a Ctrl-Z is no line; Arrow would read it as a
    # row, so it is left out of the parts and only handed to on_bytes at the end
    tail = _positional_reader(stream)(max(start, end - 4), min(4, end - start))
    data_end = end - dos_eof_length(tail)
    checked_overrides = check_overrides(overrides, header, options)
    width = len(header)
    # Open columns with more than max_categorical labels among the first records can
    # never be dimensions: Arrow need not even convert them.
    wide = set()
    for i in range(width):
        if width > 1:
            labels = {label_of(rec[i]) for rec, _ in probe} - {None}
            limit = options.max_categorical + label_slack(options, header[i])
            if options.proxy_hints:  # SPEC 16: counted on as a feature to PROXY_LABELS
                limit = max(limit, PROXY_LABELS)
            if len(labels) > limit:
                wide.add(i)
    pread = _positional_reader(stream)
    n_parts = default_parts(end - start) if parts is None else max(1, parts)
    if width == 1:
        n_parts = 1  # the sentinel line is a valid one-column row: see _PartsRead._count_all
    bounds = _split_points(pread, start, data_end, n_parts) if n_parts > 1 else [start, data_end]
    got = _PartsRead(
        pread,
        bounds,
        name,
        header,
        checked_overrides,
        options,
        wide,
        info["delimiter"],
        on_bytes,
        on_rows,
        block_size,
        info["record"],
    ).run()
    if isinstance(got, Fallback) and len(bounds) > 2:
        # A boundary inside a quoted field, or a problem of the file: reading it in one
        # part decides which. The callbacks skip what they already saw.
        first = got
        log.info("%s: %s in a parts read; reading it again in one part", name, first.reason)
        got = _PartsRead(
            pread,
            [start, data_end],
            name,
            header,
            checked_overrides,
            options,
            wide,
            info["delimiter"],
            skip_reported(on_bytes, first.bytes_reported, len),
            skip_reported(on_rows, first.rows_reported, int),
            block_size,
            info["record"],
        ).run()
        if isinstance(got, Fallback):
            got.bytes_reported = max(got.bytes_reported, first.bytes_reported)
            got.rows_reported = max(got.rows_reported, first.rows_reported)
    if isinstance(got, Fallback):
        stream.seek(start)
        return got
    if on_bytes is not None and data_end < end:
        on_bytes(pread(data_end, end - data_end))
    return got, checked_overrides


@dataclass
class _PartState:
    """What one part's reader has seen; `short` is written by Arrow's row handler."""

    sentinel: bool = False  # the part's sentinel line was met as its own row
    long: bool = False  # a long row, or a row after the sentinel
    short: list[str] = field(default_factory=list)  # short rows' text, for Python's csv
    counted: int = 0  # rows of the part counted
    told: int = 0  # rows of the part reported to on_rows
    clean: bool = False  # the part ended with its sentinel and no long row


class _PartsRead:
    """One read of the byte ranges between `bounds`: one Arrow reader on one thread per
    part, every batch counted on the caller's thread; `run()` gives the Summary or a
    Fallback saying why not."""

    def __init__(
        self,
        pread: Callable[[int, int], bytes],
        bounds: list[int],
        name: str,
        header: list[str],
        overrides: dict[str, str],
        options: Options,
        wide: set[int],
        delim: str,
        on_bytes: Callable[[bytes], None] | None,
        on_rows: Callable[[int], None] | None,
        block_size: int,
        record: list[str] | None = None,
    ) -> None:
        import pyarrow as pa  # lazy: optional extra 'fast'
        import pyarrow.compute as pc  # lazy: optional extra 'fast'
        import pyarrow.csv as pacsv  # lazy: optional extra 'fast'

        from .columnar import ArrowSummaryBuilder, string_array  # lazy: start-up

        self.pa, self.pc, self.pacsv = pa, pc, pacsv
        self.string_array = string_array
        self.width = len(header)
        self.builder = ArrowSummaryBuilder(name, header, overrides, options)
        for i in sorted(wide):
            if self.builder.roles[i] == "open" and self.builder.state[i] is not None:
                self.builder.drop(i)
        b = self.builder
        b.tokens_null = True
        self.included = [i for i in range(self.width) if b.needs_array(i)] or [0]
        self.witness_bom_quote = False
        self.witness = self._witness(record)
        self.token = "\x01faircode-" + os.urandom(8).hex()
        self.sentinel_text = f'"{self.token}"'
        self.delim, self.on_rows = delim, on_rows
        self.skip_header = options.names is None
        self.n_parts = len(bounds) - 1
        self.shared = _Shared()
        self.parts = [_PartState() for _ in range(self.n_parts)]
        names = [f"f{i}" for i in range(self.width)]
        # Every counted column comes dictionary-encoded from Arrow's converter, on the
        # part's thread: encoding it on the counting thread cost that thread 0.46 s per GB,
        # and the batches then hold no views of Arrow's parse buffers (20 MB less peak
        # RSS). An open column dropped later is still encoded by Arrow, for nothing.
        # A column read only for its missing cells (SPEC 17.2) stays plain text.
        types = {
            names[i]: pa.dictionary(pa.int32(), pa.string())
            if b.state[i] is not None
            else pa.string()
            for i in self.included
        }
        # One part: Arrow's own threads convert columns; several: one thread per part.
        self.read_opts = pacsv.ReadOptions(
            column_names=names, block_size=block_size, use_threads=self.n_parts == 1
        )
        self.convert_opts = pacsv.ConvertOptions(
            column_types=types,
            include_columns=[names[i] for i in self.included],
            # The SPEC 0.4 tokens as written are missing wherever they are: Arrow makes
            # them nulls (no dictionary entry, no per-row lookup of text-only columns).
            null_values=sorted(MISSING_TOKENS),
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            check_utf8=False,
        )
        # Room for more batches than one count takes (_COMBINE_ROWS rows, some 16
        # blocks): with less, the parsers stop while a count runs.
        # A queued batch holds an Arrow array per column: wide files queue fewer.
        slots = max(2, min(32, _QUEUE_COLUMNS // len(self.included)))
        self.queue: queue.Queue = queue.Queue(maxsize=slots * self.n_parts)
        sentinel = f"\n{self.sentinel_text}\n".encode()
        self.streams = [
            _PartStream(pread, bounds[k], bounds[k + 1], self.shared, sentinel)
            for k in range(self.n_parts)
        ]
        self.relay = (
            _ByteRelay(pread, bounds[0], bounds[-1], self.shared, on_bytes)
            if on_bytes is not None
            else None
        )
        self.threads = [
            threading.Thread(target=self._produce, args=(k,), daemon=True, name=f"faircode-csv-{k}")
            for k in range(self.n_parts)
        ]
        # Pending batches hold a code per cell: with 2,000 columns, 65,536 rows were
        # 200 MB. A count batch is capped in cells too (1,024 rows at the least).
        self.combine_rows = max(1024, min(_COMBINE_ROWS, _COMBINE_CELLS // len(self.included)))
        self.pending: list = []  # (part, record batch) not yet counted
        self.pending_rows = 0

    def _witness(self, record: list[str] | None) -> tuple[int, Any] | None:
        """SPEC 0.3: (position among the read columns, header fields) of the column whose
        values show a record that repeats the header `record` (its raw fields; None:
        nothing to check). A dictionary-encoded one is preferred (a look-up in the batch's
        dictionary, no pass over its rows); a field Arrow reads as null (a 0.4 token as
        written) cannot show it. No such column: the reference reader reads the file.
        For the first column the header's field after a U+FEFF is looked up too: a header
        line repeated by `cat` after an Excel export starts with a BOM."""
        if record is None:
            return None
        usable = [
            (self.builder.state[j] is None, pos, j)
            for pos, j in enumerate(self.included)
            if record[j] not in MISSING_TOKENS
        ]
        if not usable:
            return -1, None  # run() falls back at once
        _, pos, j = min(usable)
        values = [record[j], "\ufeff" + record[j]] if j == 0 else [record[j]]
        # the first column: a value that starts with U+FEFF and a quote may be that name
        # quoted (Arrow reads it as written, as the reference reader does, which unquotes it)
        self.witness_bom_quote = j == 0
        return pos, self.string_array(values)  # pa.array would load pandas

    def _repeats_header(self, batch: Any) -> bool:
        """Whether a row of the batch holds a header field of the witness column."""
        pos, values = self.witness
        col = batch.column(pos)
        pc = self.pc
        if self.witness_bom_quote:
            texts = col.dictionary if self.pa.types.is_dictionary(col.type) else col
            if pc.any(pc.starts_with(texts, '\ufeff"')).as_py() is True:
                return True  # the reference reader decides (rare: a fallback costs little)
        if self.pa.types.is_dictionary(col.type):
            for value in values:
                code = pc.index(col.dictionary, value)
                # the dictionary may hold labels of rows sliced off (part 0's header)
                if code.as_py() >= 0 and pc.any(pc.equal(col.indices, code)).as_py() is True:
                    return True
            return False
        return pc.any(pc.is_in(col, value_set=values)).as_py() is True

    # -- the part threads

    def _parse_options(self, part: _PartState) -> Any:
        def on_invalid(row: Any) -> str:
            if row.text == self.sentinel_text and not part.sentinel:
                part.sentinel = True
                return "skip"
            if part.sentinel or row.actual_columns > row.expected_columns:
                part.long = True
                return "error"
            part.short.append(row.text)
            return "skip"

        return self.pacsv.ParseOptions(
            delimiter=self.delim,
            quote_char='"',
            double_quote=True,
            escape_char=False,
            newlines_in_values=True,
            ignore_empty_lines=True,
            invalid_row_handler=on_invalid,
        )

    def _produce(self, k: int) -> None:
        """Parse part k and queue its batches, then _DONE or an _Abort.

        The reader is closed here, on this thread, before the thread ends. Arrow's
        read-ahead calls the Python stream from Arrow's IO pool; a reader left to the
        garbage collector (say, held by a traceback's frames) could be freed during
        interpreter exit, when that pool can no longer take the GIL: the process then
        hung in ThreadPool::Shutdown. For the same reason an error crosses to the
        counting thread as text (a fresh _Abort), never with this thread's frames."""
        reader = batch = None
        failure: _Abort | None = None
        try:
            reader = self.pacsv.open_csv(
                self.streams[k],
                read_options=self.read_opts,
                parse_options=self._parse_options(self.parts[k]),
                convert_options=self.convert_opts,
            )
            for batch in reader:
                if not self._put((k, batch)):
                    return
        except BaseException as exc:
            text = (str(exc).splitlines() or [type(exc).__name__])[0]
            expected = isinstance(exc, (_Abort, self.pa.ArrowException))
            failure = _Abort(text) if expected else _Unexpected(f"{type(exc).__name__}: {text}")
        finally:
            batch = None
            if reader is not None:
                reader.close()
                reader = None
        self._put((k, _DONE if failure is None else failure))

    def _put(self, item: tuple) -> bool:
        """Queue item unless the read was stopped; False when it was."""
        while not self.shared.stop:
            try:
                self.queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    # -- the counting thread

    def run(self) -> Summary | Fallback:
        if self.witness is not None and self.witness[0] < 0:
            return self._stop("no column read can show a repeated header")
        for t in self.threads:
            t.start()
        try:
            self._count_all()
        except Exception as exc:  # any library disagreement: the reference reader decides
            return self._stop(
                self._why(exc),
                unexpected=isinstance(exc, _Unexpected)
                or not isinstance(exc, (_Abort, self.pa.ArrowException)),
            )
        except BaseException:  # interrupted (KeyboardInterrupt): no thread outlives us
            self._stop("interrupted")
            raise
        for t in self.threads:
            t.join()
        if self.relay is not None:
            self.relay.close(complete=True)
        if self.builder.n_rows == 0:  # cannot happen after the checks, but never guess
            return Fallback("no rows", self.relay.reported if self.relay else 0, self._rows_told())
        return self.builder.finish()

    def _count_all(self) -> None:
        done = 0
        last: Any = None  # the last batch of a one-column file may end in the sentinel
        while done < self.n_parts:
            k, item = self.queue.get()
            if item is _DONE:
                done += 1
                part = self.parts[k]
                part.clean = part.sentinel and not part.long
                continue
            if isinstance(item, BaseException):
                # A new exception: raising `item` itself would tie it to this frame.
                raise type(item)(str(item))
            batch = item
            if k == 0 and self.skip_header:
                batch = batch.slice(1)
                self.skip_header = False
            if batch.num_rows == 0:
                continue
            if self.witness is not None and self._repeats_header(batch):
                raise _Abort("a record may repeat the header")
            if self.width == 1:  # hold each batch back until the next one comes
                if last is not None:
                    self._add_pending(0, last)
                last = batch
            else:
                self._add_pending(k, batch)
            if self.pending_rows >= self.combine_rows:
                self._flush()
            self._drain_short()
            self._tell_rows()
        if self.width == 1 and last is not None:
            # With one column the sentinel line is a valid row: it ends the last batch.
            if last.num_rows and last.column(0)[-1].as_py() == self.token:
                part = self.parts[0]
                part.sentinel = part.clean = not part.long
                last = last.slice(0, last.num_rows - 1)
            self._add_pending(0, last)
        if not all(part.clean for part in self.parts):
            raise _Abort("unterminated quote or long row")
        self._flush()
        self._drain_short()
        self._tell_rows()

    def _add_pending(self, k: int, batch: Any) -> None:
        self.pending.append((k, batch))
        self.pending_rows += batch.num_rows

    def _flush(self) -> None:
        """Count the pending batches as one."""
        if not self.pending:
            return
        todo, self.pending, self.pending_rows = self.pending, [], 0
        arrays: list = [None] * self.width
        if len(todo) == 1:
            for pos, j in enumerate(self.included):
                arrays[j] = todo[0][1].column(pos)
        else:
            table = self.pa.Table.from_batches([b for _, b in todo])
            for pos, j in enumerate(self.included):
                arrays[j] = table.column(pos)
        self.builder.add_arrays(arrays, sum(b.num_rows for _, b in todo))
        for k, b in todo:
            self.parts[k].counted += b.num_rows

    def _drain_short(self) -> None:
        """Count the short rows Arrow's handler set aside, parsed by Python's csv module
        and padded with missing cells (SPEC 0.3)."""
        string_array, width = self.string_array, self.width
        for part in self.parts:
            texts = part.short[:]
            if not texts:
                continue
            del part.short[: len(texts)]
            cols: list[list[str]] = [[] for _ in range(width)]
            for text in texts:
                recs = list(
                    csv.reader(
                        io.StringIO(text, newline=""),
                        delimiter=self.delim,
                        quotechar='"',
                        doublequote=True,
                        strict=False,
                    )
                )
                if len(recs) != 1 or len(recs[0]) > width:
                    raise _Abort("a short row Python's csv module reads differently")
                rec = recs[0] + [""] * (width - len(recs[0]))
                for j, cell in enumerate(rec):
                    cols[j].append(cell)
            self.builder.add_arrays(
                [  # the 0.4 tokens as nulls, as Arrow's converter gives them
                    string_array([None if x in MISSING_TOKENS else x for x in c])
                    if self.builder.needs_array(j)
                    else None
                    for j, c in enumerate(cols)
                ],
                len(texts),
            )
            part.counted += len(texts)

    def _tell_rows(self) -> None:
        """on_rows hears of a part's rows only once every part before it ended cleanly:
        rows of a part cut inside a quoted field are not rows of the file."""
        if self.on_rows is None:
            return
        for part in self.parts:
            if part.counted > part.told:
                self.on_rows(part.counted - part.told)
                part.told = part.counted
            if not part.clean:
                break

    def _rows_told(self) -> int:
        return sum(part.told for part in self.parts)

    def _why(self, exc: Exception) -> str:
        why = next((s.problem for s in self.streams if s.problem not in (None, "stopped")), None)
        if why is None:
            why = (
                "long row"
                if any(part.long for part in self.parts)
                else (str(exc).splitlines() or [type(exc).__name__])[0]
            )
        return why

    def _stop(self, why: str, unexpected: bool = False) -> Fallback:
        """Stop every reading thread (unblocking any waiting on a full queue)."""
        self.shared.halt()
        # Drain, then wait briefly on a live thread: a producer blocked on the full queue
        # gets its slot at once and sees the stop (a 50 ms poll here cost every fallback
        # of a read in parts 50 to 100 ms of idle time).
        while alive := [t for t in self.threads if t.is_alive()]:
            try:
                while True:
                    self.queue.get_nowait()
            except queue.Empty:
                pass
            alive[0].join(0.002)
        bytes_reported = 0
        if self.relay is not None:
            self.relay.close(complete=False)
            bytes_reported = self.relay.reported
        if unexpected:  # not a dialect difference: a bug worth seeing, still answered right
            log.warning(
                "fast path failed unexpectedly (%s); the reference reader reads the file instead",
                why,
            )
        return Fallback(f"fast path aborted: {why}", bytes_reported, self._rows_told())
