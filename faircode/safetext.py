"""Text from a file made safe to print: the one home of the rule (README, SPEC 0.6).

Labels and column names come from the data, so they may hold anything: ESC sequences
that recolour the terminal, set its title or plant an OSC 8 hyperlink, BEL, backspace,
CR (which lets a label overwrite what came before it), LF (which forges a new line,
e.g. a fake `faircode: gate: PASS`), C1 controls and bidi overrides (U+202E reverses
what follows). `shown(text)` replaces each such character with a visible escape:
`\\x1b`, `\\r`, `\\u202e`. Everything else, including a backslash, is kept, so
`shown(shown(t)) == shown(t)` and a report can pass a whole line through it again.

JSON output is exact (raw labels, escaped by JSON itself); only text meant for a
terminal or an error line goes through `shown`. The JS bridge (`scripts/engine-js.js`)
has the same function.
"""

from __future__ import annotations

import re
import sys

# C0 controls (TAB, LF and CR included), DEL, C1 controls, and the bidi controls:
# LRM/RLM, ALM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI; plus the line and paragraph
# separators, which some terminals and editors treat as line ends.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(m: re.Match) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: object) -> str:
    """`text` (str() of it) with every control and bidi character made a visible escape."""
    s = text if isinstance(text, str) else str(text)
    return UNSAFE.sub(_escape, s)


def clip(text: str, width: int, ellipsis: str | None = None) -> str:
    """shown(text) cut to at most `width` characters, never inside an escape; the cut is
    marked with `ellipsis` (default the report's, SYMBOLS)."""
    if ellipsis is None:
        ellipsis = SYMBOLS["ellipsis"]
    s = shown(text)
    if len(s) <= width:
        return s
    keep = width - len(ellipsis)
    # an escape is a backslash and 1..5 characters; move the cut before one it splits
    start = s.rfind("\\", max(0, keep - 5), keep)
    if start >= 0:
        m = re.match(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[tnr])", s[start:])
        if m and start + len(m.group()) > keep:
            keep = start
    return s[:keep] + ellipsis


# ---------------------------------------------------------------------------------------
# Standard output of any encoding: the report degrades, never a UnicodeEncodeError

#: The text report's own symbols: a bar's full block and its eighths, the ellipsis of a
#: clipped label. `fit_stdout` makes them ASCII (a half cell or more is a `#`) for an
#: output that cannot encode them.
UNICODE_SYMBOLS = {
    "block": "\u2588",
    "eighths": " \u258f\u258e\u258d\u258c\u258b\u258a\u2589",
    "ellipsis": "\u2026",
}
ASCII_SYMBOLS = {"block": "#", "eighths": "    ####", "ellipsis": "~"}
SYMBOLS = dict(UNICODE_SYMBOLS)
#: The error handler `fit_stdout` gives a standard output that is not UTF-8.
ESCAPE_ERRORS = "faircode.escape"


def _escape_unencodable(exc: UnicodeError) -> tuple[str, int]:
    """A character the output cannot encode as `\\uXXXX` (a pair of them beyond the
    BMP): visible, and what JSON reads back as the same character."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start : exc.end]:
        code = ord(ch)
        if code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), exc.end


def fit_stdout() -> None:
    """Fit the reports to standard output's encoding (the CLI calls it first): on an
    output that is not UTF-8 (`PYTHONIOENCODING=ascii`, the C locale), a character it
    cannot encode is written as an escape (`fi\\u00f1o`) instead of failing with
    UnicodeEncodeError, and where the bars cannot be drawn they are ASCII `#`. An error
    handler the user chose (PYTHONIOENCODING=ascii:replace) is kept."""
    import codecs

    out = sys.stdout
    encoding = getattr(out, "encoding", None)
    if not encoding:
        return
    try:
        utf = codecs.lookup(encoding).name.startswith("utf")
        "".join(UNICODE_SYMBOLS.values()).encode(encoding)
        drawable = True
    except LookupError:
        return
    except UnicodeEncodeError:
        drawable = False
    SYMBOLS.update(UNICODE_SYMBOLS if drawable else ASCII_SYMBOLS)
    if utf or getattr(out, "errors", "strict") not in ("strict", "surrogateescape"):
        return
    codecs.register_error(ESCAPE_ERRORS, _escape_unencodable)
    try:
        out.reconfigure(errors=ESCAPE_ERRORS)  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):
        pass  # not a text stream of the io module: left as it is


# ---------------------------------------------------------------------------------------
# Markdown and CSV: the one home of the escaping of every export (SPEC 6.1)

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!])")
_MD_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md_escape(text: object) -> str:
    """User text as inert Markdown: control characters (CR, LF, ESC, bidi) shown as
    escapes, HTML made entities, and the Markdown punctuation that could open a code
    span, emphasis, a link, a table cell or a heading backslash-escaped. One line, so
    it is safe in a table cell: a label holding ``|`` or a newline stays in its cell."""
    t = shown(text)
    t = re.sub("[&<>]", lambda m: _MD_ENTITY[m.group()], t)
    return _MD_SPECIAL.sub(r"\\\1", t)


#: The first characters that make a spreadsheet run a cell as a formula (OWASP CSV
#: injection): a text cell starting with one of them gets a leading single quote.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """One CSV cell: numbers stay numbers, None is empty, booleans are true/false, and a
    text cell a spreadsheet would run as a formula is prefixed with ``'`` (OWASP). Text
    is otherwise exact (the csv module quotes commas, quotes and line breaks)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    s = value if isinstance(value, str) else str(value)
    return "'" + s if s.startswith(FORMULA_START) else s
