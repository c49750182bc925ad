"""Streaming CSV reading (SPEC.md section 0).

Bytes are read in blocks, validated and decoded incrementally, split into physical
lines, and parsed by Python's C ``csv`` module, whose quoting rules match section 0.2.
Only one block and one batch of records are in memory at a time.
"""

from __future__ import annotations

import codecs
import csv
import errno
import io
import itertools
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator

from .errors import DelimiterRefused, InputError, NoSuchFile
from .labels import clean_header
from .options import advised

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any, BinaryIO

__all__ = [
    "BATCH_ROWS",
    "BLOCK_SIZE",
    "clean_header",
    "decoded_blocks",
    "names_first_record",
    "open_input",
    "open_table",
    "physical_lines",
    "read_records",
    "sniff_delimiter",
    "sniff_tied",
]

BLOCK_SIZE = 1 << 20
BATCH_ROWS = 4096
SNIFF_ORDER = (",", ";", "\t", "|")
csv.field_size_limit(2**31 - 1)

# Two extra lines fed after the data: if the input ended inside a quoted field the
# second line closes it and the record comes back altered; otherwise it parses to
# exactly [SENTINEL_FIELD], which is dropped.
_SENTINEL_FIELD = "\x01"
_SENTINEL_LINES = ("\n", '"\x01"\n')
FLUSH: Any = object()  # from decoded_blocks: no more text will follow


def decoded_blocks(
    stream: BinaryIO,
    name: str,
    encoding: str,
    block_size: int,
    on_bytes: Callable[[bytes], None] | None = None,
) -> Iterator[str]:
    """Yield decoded text; raise InputError at the first NUL or undecodable byte.

    Text before a bad byte is yielded first so earlier records are checked first
    (file order, SPEC 0.6).
    """
    codec = codecs.lookup(encoding).name
    utf8 = codec == "utf-8"
    wide = codec.startswith(("utf-16", "utf-32"))  # NUL bytes are normal there
    # SPEC 0.1: EF BB BF at byte 0 is a UTF-8 byte order mark under a one-byte codec too
    # (a UTF-8 export read with --encoding cp1252), not three characters of the first name
    utf8_bom = not utf8 and not wide
    decoder = None if utf8 else codecs.getincrementaldecoder(encoding)("strict")
    pending = b""
    base = 0  # file offset of pending[0]
    first = True
    head = b""  # the first bytes: what a file that is not text is (SPEC 0.6)
    head_size = max(len(magic) for magic, _ in BINARY_FORMATS)
    while True:
        block = stream.read(block_size)
        if on_bytes is not None and block:
            on_bytes(block)
        final = not block
        data = pending + block
        if len(head) < head_size:
            head = (head + block)[:head_size]
        if utf8_bom:
            if len(data) < len(codecs.BOM_UTF8) and not final:
                pending = data  # too few bytes yet to tell
                continue
            utf8_bom = False
            if data.startswith(codecs.BOM_UTF8):
                data = data[len(codecs.BOM_UTF8) :]
                base += len(codecs.BOM_UTF8)
        nul = -1 if wide else data.find(b"\x00")
        if utf8:
            bad, cut = _utf8_scan(data, final)
        else:
            bad, cut = None, len(data)
        if nul >= 0 and (bad is None or nul < bad):
            bad, cut = nul, nul
            kind = "nul"
        else:
            kind = "utf8"
        if bad is not None:
            cut = bad
        if utf8:
            text = data[:cut].decode("utf-8")
        else:
            try:
                text = decoder.decode(data[:cut], final and bad is None)
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"{name}: byte {base + exc.start}: not valid {encoding}; "
                    f"check the file's encoding and pass {advised('--encoding')}"
                ) from None
            except UnicodeError as exc:  # e.g. a UTF-16 stream with no byte order mark
                raise InputError(
                    f"{name}: not valid {encoding} ({exc}); check the "
                    f"file's encoding and pass {advised('--encoding')}"
                ) from None
        if first and text:
            first = False
            if text.startswith("\ufeff"):  # any encoding's BOM (utf-16-le keeps it as text)
                text = text[1:]
        if text:
            yield text
        if bad is not None:
            yield FLUSH  # the bad byte is not LF: a held-back CR line is complete
            what = binary_format(head) if utf8 else None
            if what is not None:
                raise InputError(f"{name}: {what}")
            if kind == "nul":
                raise InputError(
                    f"{name}: byte {base + bad}: NUL byte; this looks like a binary file, not CSV"
                )
            raise InputError(f"{name}: byte {base + bad}: {not_utf8(data[bad])}")
        base += cut
        pending = data[cut:]
        if final:
            return


def not_utf8(byte: int) -> str:
    """SPEC 0.6: what is said of a file whose first ill-formed UTF-8 sequence starts with
    `byte` (0x80-0xFF): the character Windows-1252 reads there, the encoding to pass
    (Latin-1 for the five bytes Windows-1252 leaves undefined)."""
    try:
        char = bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        what, option, encoding = "a control character in Latin-1", "latin-1", "Latin-1"
    else:
        what, option, encoding = f"'{char}' in Windows-1252", "cp1252", "Windows-1252"
    return (
        f"not valid UTF-8 (the byte {byte:02X}, {what}); re-save the file as UTF-8, or pass "
        f"its encoding: {advised('--encoding', option)} if it is {encoding}"
    )


#: SPEC 0.6: files that are not UTF-8 text, told by their first bytes once reading them
#: failed: (magic, what the message says). Longer magics first (UTF-32 LE before 16 LE).
_COMPRESSED = "faircode reads CSV as it is or gzip-compressed: decompress it first"

_NOT_A_TABLE = "not a table; give the data as a CSV file"
BINARY_FORMATS = (
    (
        b"\xff\xfe\x00\x00",
        "a UTF-32 file (byte order mark FF FE 00 00); re-save it as UTF-8 or pass {utf-32}",
    ),
    (
        b"\x00\x00\xfe\xff",
        "a UTF-32 file (byte order mark 00 00 FE FF); re-save it as UTF-8 or pass {utf-32}",
    ),
    (
        b"\xff\xfe",
        "a UTF-16 file (byte order mark FF FE); re-save it as UTF-8 or pass {utf-16}",
    ),
    (
        b"\xfe\xff",
        "a UTF-16 file (byte order mark FE FF); re-save it as UTF-8 or pass {utf-16}",
    ),
    (
        b"PK\x03\x04",
        "a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook is one), "
        "not CSV; export the sheet as CSV",
    ),
    (b"%PDF-", "a PDF document, not CSV; export the table as CSV"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an OLE2 compound file (an Excel .xls workbook is one), not CSV; export the sheet as CSV",
    ),
    (b"BZh", f"a bzip2-compressed file; {_COMPRESSED} (bunzip2)"),
    (b"\xfd7zXZ\x00", f"an xz-compressed file; {_COMPRESSED} (unxz)"),
    (b"\x28\xb5\x2f\xfd", f"a Zstandard-compressed file; {_COMPRESSED} (unzstd)"),
    (b"SQLite format 3\x00", "an SQLite database, not CSV; export the table as CSV"),
    (b"\x89PNG\r\n\x1a\n", f"a PNG image, {_NOT_A_TABLE}"),
    (b"\xff\xd8\xff", f"a JPEG image, {_NOT_A_TABLE}"),
    (b"GIF8", f"a GIF image, {_NOT_A_TABLE}"),
)


def binary_format(head: bytes) -> str | None:
    """What a file whose reading as UTF-8 failed is, by its first bytes, or None."""
    for magic, what in BINARY_FORMATS:
        if head.startswith(magic):
            return re.sub(r"\{(utf-\d\d)\}", lambda m: advised("--encoding", m[1]), what)
    return utf16_without_bom(head)


def utf16_without_bom(head: bytes) -> str | None:
    """SPEC 0.6: a UTF-16 file without a byte order mark (SQL Server's `bcp -w` writes
    one), told by its first bytes (at least 4, taken in pairs): ASCII text with every
    other byte 00, or None."""
    pairs = head[: len(head) // 2 * 2]
    if len(pairs) < 4:
        return None
    for order, text, zeros in (
        ("little", pairs[0::2], pairs[1::2]),
        ("big", pairs[1::2], pairs[0::2]),
    ):
        if not any(zeros) and all(0 < b < 0x80 for b in text):
            return (
                f"a UTF-16 file without a byte order mark ({order}-endian: every other byte "
                f"of its start is 00); re-save it as UTF-8 or pass "
                f"{advised('--encoding', f'utf-16-{order[0]}e')}"
            )
    return None


def _utf8_scan(data: bytes, final: bool) -> tuple[int | None, int]:
    """(offset of the first ill-formed sequence or None, length safe to decode now)."""
    try:
        data.decode("utf-8")
        return None, len(data)
    except UnicodeDecodeError as exc:
        if not final and exc.reason == "unexpected end of data" and exc.end == len(data):
            return None, exc.start  # a character split by the block boundary
        return exc.start, exc.start


def physical_lines(texts: Iterable[Any]) -> Iterator[str]:
    """Split text into lines ending in CRLF, LF or CR, across block boundaries."""
    carry = ""
    for text in texts:
        if text is FLUSH:
            if carry.endswith("\r"):  # a CR line is complete; a partial line is not
                yield carry
                carry = ""
            continue
        lines = io.StringIO(carry + text, newline="").readlines()
        carry = ""
        if lines:
            last = lines[-1]
            if last.endswith("\r") or not last.endswith(("\n", "\r")):
                carry = lines.pop()  # may continue (a CR may be half of CRLF)
        yield from lines
    if carry:
        yield carry


#: SPEC 0.2: Ctrl-Z, DOS's end-of-file mark: a last line holding only it is no line.
DOS_EOF = "\x1a"


def dos_eof_length(tail: bytes) -> int:
    """SPEC 0.2: how many of the file's last bytes `tail` (4, or all when fewer) are a
    last line holding only a Ctrl-Z (then CR, LF, CRLF or nothing), else 0."""
    k = len(tail)
    if tail[k - 1 : k] == b"\n":
        k -= 1
    if tail[k - 1 : k] == b"\r":
        k -= 1
    if k < 2 or tail[k - 1 : k] != b"\x1a" or tail[k - 2 : k - 1] not in (b"\n", b"\r"):
        return 0
    return len(tail) - (k - 1)


def _without_dos_eof(lines: Iterator[str]) -> Iterator[str]:
    """SPEC 0.2: the physical lines but a last one holding only DOS_EOF (then a line end
    or nothing), which old DOS and Windows tools append to a text file."""
    held = None
    for line in lines:
        if held is not None:
            yield held
            held = None
        if line.rstrip("\r\n") == DOS_EOF:
            held = line
        else:
            yield line


#: SPEC 0.2: the characters that would split a one-column header, in this order.
SPLIT_CANDIDATES = (",", ";", "\t", "|", ":")
#: SPEC 0.2: a one-column header of this many space-separated words or more is a
#: space-separated table (UCI's german.data: 21), not a name.
SPACE_SPLIT_WORDS = 5


def empty_text(name: str, skip_lines: int, skipped: int) -> str:
    """SPEC 0.6: the message for input with no line to read, saying when skip_lines
    took it all (`skipped`: the physical lines it dropped)."""
    if not skipped:
        return f"{name}: file is empty"
    if skipped < skip_lines:
        lines = "1 line" if skipped == 1 else f"{skipped} lines"
        return f"{name}: {advised('--skip-lines', skip_lines)} skips the whole file ({lines})"
    return f"{name}: nothing but blank lines after {advised('--skip-lines', skip_lines)}"


def json_header(header: list[str]) -> str | None:
    """SPEC 0.2: why a header record read as CSV is the start of a JSON file, or None:
    the first object of a JSON-lines file (its first name starts with '{"', its last
    ends with '}'), or a JSON array (its first name is '[' or starts with '[{' or '[[')."""
    if header[0].startswith('{"') and header[-1].endswith("}"):
        return "a JSON-lines file (its first line is a JSON object), not CSV; convert it to CSV"
    if header[0] == "[" or header[0].startswith(("[{", "[[")):
        return "a JSON array (its first line starts with '['), not CSV; convert it to CSV"
    return None


#: SPEC 0.2: the start of a header record's first name that makes it a web page or an
#: XML document (ASCII letters in any case).
_HTML_START = re.compile(r"<(!doctype[ \t\r\n]+html|html)([ \t\r\n>]|$)", re.I | re.A)
_XML_START = re.compile(r"<\?xml([ \t\r\n?]|$)", re.I | re.A)


def markup_header(header: list[str]) -> str | None:
    """SPEC 0.2: why a header record read as CSV is the start of an HTML page or an XML
    document, or None."""
    if _HTML_START.match(header[0]):
        return (
            "an HTML page (its first line starts with '<!doctype html' or '<html'), not CSV; "
            "download or export the table itself as CSV"
        )
    if _XML_START.match(header[0]):
        return (
            "an XML document (its first line starts with '<?xml'), not CSV; export the table as CSV"
        )
    return None


def sep_line(header: list[str], delimiter: str, line: int, skip_hint: bool = True) -> str | None:
    """SPEC 0.2: why a header record read with `delimiter` is Excel's delimiter line
    (`sep=;`: split by the delimiter it names into `sep=` and an empty name, or one name
    `sep=` and one character, or `sep=` alone: a TAB trimmed), or None. `line`: the
    header's line; `skip_hint`: advise --skip-lines (else: delete the line)."""
    if len(header) == 2 and header[0] == "sep=" and header[1] == "column_2":
        d = delimiter
    elif len(header) == 1 and len(header[0]) == 5 and header[0].startswith("sep="):
        d = header[0][4]
    elif header == ["sep="]:  # `sep=` then a TAB, which trimming took
        d = "\t"
    else:
        return None
    fix = skip_lines_advice(line) if skip_hint else "delete that line"
    return f"line {line} is Excel's delimiter line ('sep={delimiter_name(d)}'), not a header; {fix}"


def skip_lines_advice(line: int) -> str:
    """SPEC 0.6: the advice to skip the `line` lines above a table, as the surface in use
    spells it (`advised`): `pass --skip-lines 2 (--skip-lines-b 2 ...)` on the command line,
    `pass skip_lines=2 (skip_lines_b=2 ...)` on the Python API and MCP."""
    return (
        f"pass {advised('--skip-lines', line)} ({advised('--skip-lines-b', line)} for the "
        "second file of compare or scan)"
    )


def delimiter_name(delimiter: str) -> str:
    """A delimiter as messages write it: TAB as `tab`, any other as itself."""
    return "tab" if delimiter == "\t" else delimiter


def header_split(header: list[str], delimiter: str) -> tuple[str, int] | None:
    """SPEC 0.2: what would split a one-column header read with ``delimiter`` (another
    candidate, or " " for SPACE_SPLIT_WORDS words or more apart by spaces) and into how
    many fields, or None. The monitor words its own fix from it (SPEC-monitor 12.1)."""
    if len(header) != 1:
        return None
    counts = [(header[0].count(c), c) for c in SPLIT_CANDIDATES if c != delimiter]
    k, c = max(counts, key=lambda t: (t[0], -SPLIT_CANDIDATES.index(t[1])))
    if k:
        return c, k + 1
    words = len([w for w in header[0].split(" ") if w])
    return (" ", words) if words >= SPACE_SPLIT_WORDS else None


def one_column_split(header: list[str], delimiter: str) -> str | None:
    """SPEC 0.2: why a header of one column looks like a table read with the wrong
    delimiter (its name holds another candidate, or is SPACE_SPLIT_WORDS words or more
    apart by spaces), or None."""
    found = header_split(header, delimiter)
    if found is None:
        return None
    c, fields = found
    if c == " ":
        return (
            f"the header is one column, but spaces would split it into {fields}; faircode "
            f"reads , ; tab | or : between fields: convert the file (or pass "
            f"{advised('--one-column', True, cli='')} if the table has one column)"
        )
    d = delimiter_name(c)
    quoted = f"'{d}'"
    return (
        f"the header is one column, but '{d}' would split it into {fields}; pass "
        f"{advised('--delimiter', d, cli=quoted)} (or "
        f"{advised('--one-column', True, cli='')} if the table has one column)"
    )


def names_first_record(fields: int, names: int, delimiter: str, line: int) -> str | None:
    """SPEC 0.2: why the first record, read with `names` and a delimiter sniffed from its
    own line, shows the delimiter is not the table's (it has fewer fields than `names`
    gives), or None."""
    if fields >= names:
        return None
    d = delimiter_name(delimiter)
    got = "1 field" if fields == 1 else f"{fields} fields"
    return (
        f"line {line}: {got} where {advised('--names')} gives {names} (delimiter '{d}', sniffed "
        f"from this line); {skip_lines_advice(line)} if the table starts below it, or give the "
        f"delimiter with {advised('--delimiter')}"
    )


def long_row(
    fields: int,
    width: int,
    line: int,
    names: bool,
    header_line: int | None,
    trailing: str | None = None,
) -> str:
    """SPEC 0.3, 0.6: why a record of `fields` fields, more than the `width` names, is
    refused. `header_line`: the header's line when the record is the first one below it
    (then the header may be a title above the table), else None. `trailing`: the
    delimiter when every field past the width is empty (rows may end with a delimiter
    the header line does not), else None."""
    if names:  # the names, not a header, may be what is short
        return (
            f"line {line}: {fields} fields but {advised('--names')} gives {width} names; give "
            "one name per "
            "field, or quote values that contain the delimiter"
        )
    head = f"line {line}: {fields} fields but the header"
    if trailing is not None:
        d = delimiter_name(trailing)
        extra = fields - width
        after = "the field after them is" if extra == 1 else f"the {extra} fields after them are"
        return (
            f"{head} has {width}; {after} empty: if the rows end with '{d}' and the header line "
            f"does not, end it with '{d}' too; else quote values that contain the delimiter"
        )
    if header_line is None:
        return f"{head} has {width}; quote values that contain the delimiter"
    return (
        f"{head} (line {header_line}) has {width}; if the table starts below line {header_line}, "
        f"{skip_lines_advice(header_line)}; else quote values that contain the delimiter"
    )


def repeated_header(line: int, dataset_hint: bool = True) -> str:
    """SPEC 0.3: why a data record equal to the header record, field by field, is
    refused (files joined with `cat` repeat their header line inside the data).
    `dataset_hint`: advise profiling the files as one dataset (False for a caller that
    reads one file: the monitor, held-out proxy files)."""
    text = (
        f"line {line} repeats the header (files joined with cat?); remove the repeated header lines"
    )
    if not dataset_hint:
        return text
    return (
        f"{text}, or profile the separate files as one dataset with a quoted pattern: "
        "faircode profile 'part-*.csv'"
    )


def _delimiter_counts(line: str) -> dict[str, int]:
    """SPEC 0.2: each of SNIFF_ORDER counted in a physical line, outside quotes (each `"`
    toggles)."""
    counts = dict.fromkeys(SNIFF_ORDER, 0)
    in_quotes = False
    for ch in line:
        if ch == '"':
            in_quotes = not in_quotes
        elif not in_quotes and ch in counts:
            counts[ch] += 1
    return counts


def sniff_tied(line: str) -> bool:
    """SPEC 0.2: whether two or more delimiters share the highest count (not 0) in the
    line sniffed from: the next non-blank line then decides (`sniff_delimiter`)."""
    counts = _delimiter_counts(line)
    top = max(counts.values())
    return top > 0 and list(counts.values()).count(top) > 1


def _unquoted(text: str) -> str | None:
    """SPEC 0.3: `text`, which starts with `"`, read as a quoted field by 0.2's rule
    (`""` is `"`, the next lone `"` closes, text after it is appended), or None when
    no quote closes it. A repeated header line after a BOM starts with U+FEFF, so its
    quoted first name was read as written."""
    out = []
    k = 1
    while k < len(text):
        ch = text[k]
        if ch == '"':
            if text[k + 1 : k + 2] == '"':
                out.append('"')
                k += 2
                continue
            return "".join(out) + text[k + 1 :]
        out.append(ch)
        k += 1
    return None


def sniff_delimiter(line: str, next_line: str | None = None) -> str:
    """SPEC 0.2: the delimiter of a table whose header (or, with `names`, first record)
    starts with the physical line `line`. A tie there is broken by `next_line` (the next
    non-blank physical line, None when there is none): a tied delimiter held there as
    often as in `line` first, then the one held most often there, then SNIFF_ORDER."""
    counts = _delimiter_counts(line)
    top = max(counts.values())
    if not top:
        return ","
    tied = [d for d in SNIFF_ORDER if counts[d] == top]
    if len(tied) == 1 or next_line is None:
        return tied[0]
    after = _delimiter_counts(next_line)
    return max(tied, key=lambda d: (after[d] == top, after[d], -SNIFF_ORDER.index(d)))


class _Lines:
    """Physical lines plus the two sentinel lines, remembering when they start."""

    def __init__(self, lines: Iterator[str]):
        self._lines = lines
        self.in_sentinel = False

    def __iter__(self) -> Iterator[str]:
        yield from self._lines
        yield _SENTINEL_LINES[0]
        self.in_sentinel = True
        yield _SENTINEL_LINES[1]


def open_table(
    stream: BinaryIO,
    name: str,
    *,
    encoding: str = "utf-8",
    delimiter: str | None = None,
    names: Iterable[str] | None = None,
    skip_lines: int = 0,
    block_size: int = BLOCK_SIZE,
    on_bytes: Callable[[bytes], None] | None = None,
    info: dict | None = None,
    one_column: bool = False,
    skip_hint: bool = True,
) -> tuple[list[str], Iterator[tuple[list[str], int]]]:
    """Return (header, iterator of (record, line where it starts)). Records are lists of
    raw cells padded to the header's width. Raises InputError as SPEC 0.6 says.
    When `info` is a dict, the delimiter used is stored in info["delimiter"] and the
    header record's raw fields (None with `names`, or a header of one field: no data
    record is checked against it, SPEC 0.3) in info["record"].
    `skip_hint`: a long first record may advise --skip-lines and a repeated header
    profiling the files as one dataset (False for a caller that has neither: the
    monitor, held-out proxy files)."""
    lines = _without_dos_eof(
        physical_lines(decoded_blocks(stream, name, encoding, block_size, on_bytes))
    )
    consumed = 0
    for _ in range(skip_lines):
        if next(lines, None) is None:
            break
        consumed += 1
    skipped = consumed
    first = None
    for line in lines:
        consumed += 1
        if line not in ("\n", "\r\n", "\r"):
            first = line
            break
    if first is None:
        raise InputError(empty_text(name, skip_lines, skipped))
    consumed -= 1  # the first record's line is re-read by the parser
    ahead: list[str] = []  # lines read to break a tie, re-read by the parser
    if delimiter:
        delim = delimiter
    else:
        body = first.rstrip("\r\n")
        following = None
        if sniff_tied(body):  # SPEC 0.2: the next non-blank line decides
            for line in lines:
                ahead.append(line)
                if line not in ("\n", "\r\n", "\r"):
                    following = line.rstrip("\r\n")
                    break
        delim = sniff_delimiter(body, following)
    # SPEC 0.2: with names, the first record is the only sign the sniffed delimiter is right
    check_first = names is not None and not delimiter
    if info is not None:
        info["delimiter"] = delim
    source = _Lines(itertools.chain([first], ahead, lines))
    reader = csv.reader(
        iter(source), delimiter=delim, quotechar='"', doublequote=True, strict=False
    )

    def next_record() -> tuple[list[str], int] | None:
        """The next non-blank record and the line it starts on, or None at the end."""
        while True:
            start = consumed + reader.line_num + 1
            rec = next(reader)
            if source.in_sentinel:
                if rec == [_SENTINEL_FIELD]:
                    return None
                raise InputError(
                    f"{name}: line {start}: a quoted field is never closed; add the closing quote"
                )
            if rec:
                return rec, start

    header_line = None
    record: list[str] | None = None  # SPEC 0.3: a data record equal to it is refused
    if names is not None:
        header = clean_header(names)
    else:
        got = next_record()
        if got is None:
            raise InputError(f"{name}: file is empty")
        header, header_line = clean_header(got[0]), got[1]
        if len(got[0]) > 1:  # one field equal to its name is a value (a checkbox column)
            record = list(got[0])
        not_table = (
            json_header(header)
            or markup_header(header)
            or sep_line(header, delim, header_line, skip_hint)
        )
        if not_table is not None:
            raise InputError(f"{name}: {not_table}")
        if not one_column:
            split = one_column_split(header, delim)
            if split is not None:
                raise InputError(f"{name}: {split}")
    width = len(header)
    if info is not None:
        info["record"] = record
    first_name = record[0] if record is not None else None
    # a header line repeated by `cat` after an Excel export starts with a BOM (SPEC 0.3)
    bom_name = "\ufeff" + first_name if first_name is not None else None
    rest = record[1:] if record is not None else None

    def records() -> Iterator[tuple[list[str], int]]:
        seen = 0
        while True:
            got = next_record()
            if got is None:
                break
            rec, start = got
            first = rec[0]  # the first field first: cheap
            if (
                first == first_name
                or first == bom_name
                or (first[:2] == '\ufeff"' and _unquoted(first[1:]) == first_name)
            ) and rec[1:] == rest:
                raise InputError(f"{name}: {repeated_header(start, skip_hint)}")
            n = len(rec)
            if check_first and not seen:
                wrong = names_first_record(n, width, delim, start)
                if wrong is not None:
                    raise DelimiterRefused(f"{name}: {wrong}")
            if n != width:
                if n > width:
                    first_below = header_line if skip_hint and not seen else None
                    trailing = delim if not any(rec[width:]) else None
                    wrong = long_row(n, width, start, names is not None, first_below, trailing)
                    raise InputError(f"{name}: {wrong}")
                rec.extend([""] * (width - n))
            seen += 1
            yield rec, start
        if seen == 0:
            if names is not None:
                raise InputError(f"{name}: file is empty")
            raise InputError(f"{name}: no data rows, only a header")

    return header, records()


def read_records(
    stream: BinaryIO, name: str, **kwargs
) -> tuple[list[str], Iterator[list[list[str]]]]:
    """Like open_table, but records come in batches of BATCH_ROWS, without line numbers."""
    header, records = open_table(stream, name, **kwargs)

    def batches() -> Iterator[list[list[str]]]:
        batch: list[list[str]] = []
        for rec, _ in records:
            batch.append(rec)
            if len(batch) >= BATCH_ROWS:
                yield batch
                batch = []
        if batch:
            yield batch

    return header, batches()


def open_input(path: str, label: str) -> tuple[BinaryIO, bool]:
    """Open a path once for reading: (binary file, is it a regular file). A FIFO, a
    process substitution or /dev/stdin is read as a stream, never opened twice.
    Raises InputError with one line for a missing, unreadable or looping path."""
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(
                f"{label}: a broken symbolic link (its target does not exist); point it at a file"
            ) from None
        raise NoSuchFile(f"{label}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{label}: is a directory, not a file") from None
    except PermissionError:
        raise InputError(f"{label}: permission denied") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(
                f"{label}: a symbolic link loop (too many levels of "
                "symbolic links); point the link at a file"
            ) from None
        raise InputError(f"{label}: cannot open ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fh.fileno()).st_mode
    except OSError:
        mode = 0
    if stat.S_ISDIR(mode):
        fh.close()
        raise InputError(f"{label}: is a directory, not a file")
    return fh, stat.S_ISREG(mode)
