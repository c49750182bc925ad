"""Text from a file made safe to print: the one home of the rule (docs/profiling.md, SPEC 0.6).

Labels and column names come from the data, so they may hold anything: ESC sequences
that recolour the terminal, set its title or plant an OSC 8 hyperlink, BEL, backspace,
CR (which lets a label overwrite what came before it), LF (which forges a new line,
e.g. a fake `faircode: gate: PASS`), C1 controls and bidi overrides (U+202E reverses
what follows). `shown(text)` replaces each such character with a visible escape:
`\\x1b`, `\\r`, `\\u202e`. Everything else, including a backslash, is kept, so
`shown(shown(t)) == shown(t)` and a report can pass a whole line through it again.

Invisible characters are shown too (SPEC 0.6): every format character (Unicode
category Cf: zero-width space, joiner and non-joiner, word joiner, U+FEFF, soft hyphen,
tag characters, ...) and space separator other than the ASCII space (Zs: NBSP, the
en/em/thin spaces, U+3000, ...) of Unicode 17, and the four Hangul fillers, so four
groups that all print as "Male" are told apart. The set is written out as ranges (not
the running Python's or browser's Unicode tables, which differ by version).

JSON output is exact (raw labels, escaped by JSON itself) except for the length bound
of `bounded` (SPEC 0.9); only text meant for a terminal or an error line goes through
`shown`. The JS bridge (`scripts/engine-js.js`) and the views (`site/views.js`) have
the same function; `bounded` has a twin of the same name in
`assets/profiler-engine.js`.
"""

from __future__ import annotations

import codecs
import re
import sys

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

# C0 controls (TAB, LF and CR included), DEL, C1 controls, the line and paragraph
# separators (some terminals and editors treat them as line ends), and the invisible
# characters: every format character (Cf, the bidi controls among them) and every
# space separator but U+0020 (Zs) of Unicode 17, and the Hangul fillers U+115F, U+1160,
# U+3164, U+FFA0. The same class, range for range, is UNSAFE in scripts/engine-js.js
# and site/views.js (tests/engine/test_hostile.py compares them on every code point).
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\xa0\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f"
    "\u3000\u3164\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[tnr])")


def _escape(m: re.Match) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


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
    # an escape is a backslash and 1..9 characters; move the cut before one it splits
    start = s.rfind("\\", max(0, keep - 9), keep)
    if start >= 0:
        m = _ESCAPE.match(s, start)
        if m and start + len(m.group()) > keep:
            keep = start
    return s[:keep] + ellipsis


# ---------------------------------------------------------------------------------------
# Labels in outputs: the length bound (SPEC 0.9 LABEL_SHOWN)

#: A label or column name longer than this many code points is cut in every output (the
#: counts are not): `capLabel` and `bounded` in assets/profiler-engine.js.
LABEL_SHOWN = 200
#: A label capped already (read back from a saved result): capped again it stays itself.
CAPPED = re.compile(r"(?s).{200}\.\.\. \([0-9]+ more characters, sha256 [0-9a-f]{12}\)")


def capped(text: str) -> str:
    """`text` itself, or, past LABEL_SHOWN code points, its first LABEL_SHOWN then
    ``... (N more characters, sha256 H)``, H the first 12 hex digits of the SHA-256 of
    the whole text's UTF-8: two labels that differ only after the cut stay apart. A
    text of that form is kept, so capping twice is capping once."""
    if len(text) <= LABEL_SHOWN or CAPPED.fullmatch(text):
        return text
    import hashlib  # lazy: start-up; only for a label that long

    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{text[:LABEL_SHOWN]}... ({len(text) - LABEL_SHOWN} more characters, sha256 {digest})"


#: Keys whose strings are sentences quoting labels (a flag, a finding's text): kept
#: whole, with the labels in them capped.
SENTENCES = ("flags", "text")


def bounded(result: Any) -> Any:
    """A result (profile, compare, or any JSON value) with every label and name longer
    than LABEL_SHOWN capped: each such string outside SENTENCES (a dict key or a value)
    is `capped` where it stands, and a sentence (a flag) is left whole but for the
    capped form of each of those strings in it (longest first, then in code point order).
    ``provenance`` is kept as is. A result with no such string (labels capped already
    are not) is returned itself, so bounding twice is bounding once."""
    atoms: set[str] = set()

    def long(text: str) -> bool:
        return len(text) > LABEL_SHOWN and not CAPPED.fullmatch(text)

    def scan(v: Any, in_flags: bool) -> None:
        # Containers recurse; strings are looked at here, in the loop, and every other
        # scalar is passed over by its exact type first: no call per number (a
        # 30,000-group result holds some 250,000 values).
        if isinstance(v, dict):
            for k, x in v.items():
                if (k.__class__ is str or isinstance(k, str)) and len(k) > LABEL_SHOWN:
                    if not CAPPED.fullmatch(k):
                        atoms.add(k)
                t = x.__class__
                if t is int or t is float or x is None or t is bool or k == "provenance":
                    continue
                if isinstance(x, str):
                    if len(x) > LABEL_SHOWN and not (in_flags or k in SENTENCES):
                        if not CAPPED.fullmatch(x):
                            atoms.add(x)
                elif isinstance(x, (dict, list, tuple)):
                    scan(x, in_flags or k in SENTENCES)
        else:
            for x in v:
                t = x.__class__
                if t is int or t is float or x is None or t is bool:
                    continue
                if isinstance(x, str):
                    if not in_flags and long(x):
                        atoms.add(x)
                elif isinstance(x, (dict, list, tuple)):
                    scan(x, in_flags)

    if isinstance(result, str):
        if long(result):
            atoms.add(result)
    elif isinstance(result, (dict, list, tuple)):
        scan(result, False)
    if not atoms:
        return result
    cut = {a: capped(a) for a in atoms}
    order = sorted(atoms, key=lambda a: (-len(a), a))

    def fix(v: Any) -> Any:
        if isinstance(v, str):
            if v in cut:
                return cut[v]
            if len(v) > LABEL_SHOWN:  # a flag: its labels capped inside it
                for a in order:
                    if len(a) <= len(v) and a in v:
                        v = v.replace(a, cut[a])
            return v
        if isinstance(v, dict):
            return {cut.get(k, k): x if k == "provenance" else fix(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [fix(x) for x in v]
        return v

    return fix(result)


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
