"""Population reference baselines (SPEC.md section 9)."""

from __future__ import annotations

import io
import os
import re

from .detect import SEX_ALIASES, fold
from .errors import InputError, NoSuchFile
from .labels import share_value, trim
from .numerics import fmt, fsum, pct, pct_not_zero, round_half_up
from .options import spelled
from .reader import open_input, open_table

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

HEADER_ALIASES = {
    "column": "column",
    "dimension": "column",
    "group": "group",
    "value": "group",
    "label": "group",
    "share": "share",
    "expected": "share",
    "percent": "share",
}
BUILTIN = {"us-2019": "reference-us-2019.csv", "us-2024": "reference-us-2024.csv"}
SUM_TOLERANCE = 0.02
#: Labels shown in the no-match and part-match notes, per side (SPEC 9).
NO_MATCH_SHOWN = 3
_YEAR = re.compile(r"[0-9]+")


def builtin_bytes(name: str) -> bytes:
    # (it imports tempfile, shutil, bz2...: only when used)
    from importlib import resources  # lazy: start-up

    return (resources.files("faircode") / "data" / BUILTIN[name]).read_bytes()


def load_reference(
    spec: str, opener: Callable[[str, str], tuple[BinaryIO, bool]] | None = None
) -> tuple[list[dict], bytes, str]:
    """A built-in name or a path -> (parsed table, raw bytes, display name). `opener`
    opens the path instead of the reader's `open_input` (see `profiler.summarize`).
    Anything but a str or an os.PathLike is refused (SPEC 9): an integer is no file
    descriptor to read (and close)."""
    if not isinstance(spec, (str, os.PathLike)):
        raise InputError(
            f"{spelled('--reference')}: {spec} is not a built-in baseline name "
            f"({', '.join(BUILTIN)}) or a path"
        )
    spec = os.fspath(spec)
    if not isinstance(spec, str):
        raise InputError(
            f"{spelled('--reference')}: {spec!r} is not a built-in baseline name or a path"
        )
    if spec in BUILTIN:
        data = builtin_bytes(spec)
        return parse_reference(data, spec), data, spec
    try:
        # opened once and read from that file: a pipe or <(...) works too
        fh, _ = (opener or open_input)(spec, f"{spelled('--reference')}: {spec}")
        with fh:
            data = fh.read()
    except NoSuchFile:
        known = ", ".join(BUILTIN)
        raise InputError(
            f"{spelled('--reference')}: {spec}: no such file (built-in baselines: {known})"
        ) from None
    except OSError as exc:
        raise InputError(
            f"{spelled('--reference')}: {spec}: cannot read ({exc.strerror or exc})"
        ) from None
    return parse_reference(data, spec), data, spec


def _ascii_lower(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def parse_reference(data: bytes, name: str) -> list[dict]:
    """Long table bytes -> [{"column": c, "shares": [[label, share], ...]}] in file order."""
    header, records = open_table(io.BytesIO(data), name)
    roles: dict[str, int] = {}
    for i, h in enumerate(header):
        role = HEADER_ALIASES.get(_ascii_lower(h))
        if role is None:
            raise InputError(
                f"{name}: unknown reference header '{h}' (expected column, group and share)"
            )
        if role in roles:
            raise InputError(f"{name}: two headers mean '{role}'")
        roles[role] = i
    if len(roles) != 3:
        raise InputError(f"{name}: a reference needs column, group and share headers")
    rows: list[tuple[str, str, float, int]] = []
    for rec, line in records:
        col = trim(rec[roles["column"]])
        group = trim(rec[roles["group"]])
        raw = trim(rec[roles["share"]])
        if not col or not group:
            raise InputError(f"{name}: line {line}: column and group must not be empty")
        share = share_value(raw)
        if share is None:
            raise InputError(f"{name}: line {line}: share '{raw}' is not a non-negative number")
        rows.append((col, group, share, line))
    percent = any(share > 1.5 for _, _, share, _ in rows)
    table: list[dict] = []
    by_col: dict[str, dict] = {}
    for col, group, share, line in rows:
        entry = by_col.get(col)
        if entry is None:
            entry = by_col[col] = {"column": col, "shares": []}
            table.append(entry)
        key = _ascii_lower(group)
        if any(_ascii_lower(g) == key for g, _ in entry["shares"]):
            raise InputError(f"{name}: line {line}: group '{group}' of '{col}' appears twice")
        entry["shares"].append([group, share / 100 if percent else share])
    return table


def sum_warnings(table: list[dict]) -> list[str]:
    out = []
    for entry in table:
        total = fsum(s for _, s in entry["shares"])
        if abs(total - 1) > SUM_TOLERANCE:
            out.append(f"reference: shares of '{entry['column']}' sum to {fmt(total, 3)}, not 1")
    return out


def unmatched_warnings(table: list[dict], matched: dict[str, dict]) -> list[str]:
    """The notes of SPEC 9 for reference columns that no dimension took, in file order."""
    taken = {id(entry) for entry in matched.values()}
    return [
        f"reference: '{entry['column']}' matches no profiled dimension (by name, or by a "
        f"kind only one dimension has); nothing compared for it"
        for entry in table
        if id(entry) not in taken
    ]


def match_reference(table: list[dict], dims: list[dict]) -> dict[str, dict]:
    """Dimension name -> reference entry, by name, else by a kind held by one dimension."""
    out: dict[str, dict] = {}
    names = {d["name"] for d in dims}
    for entry in table:
        col = entry["column"]
        if col in names:
            out.setdefault(col, entry)
            continue
        of_kind = [d["name"] for d in dims if d["kind"] == col]
        if len(of_kind) == 1 and of_kind[0] not in out:
            out[of_kind[0]] = entry
    return out


def _key_of(dim: dict):
    """How labels match a reference (SPEC 9): ASCII case ignored; sex aliases."""
    if dim["kind"] != "sex":
        return _ascii_lower

    def key(label: str) -> str:
        alias = SEX_ALIASES.get(fold(label))
        return alias if alias is not None else _ascii_lower(label)

    return key


def _by_year(entry: dict, years: tuple) -> tuple[dict[str, float], list[int]] | None:
    """Expected shares of the dimension's groups from a single-year table, and the span
    (SPEC 9); None when no year falls in the span."""
    table = sorted((int(g), share) for g, share in entry["shares"])
    groups, banded = years
    last_year = table[-1][0]
    first = min(g[1] for g in groups)
    last = max(last_year if g[2] is None else g[2] for g in groups)
    parts: dict[str, list[float]] = {}
    in_span: list[float] = []
    for year, share in table:
        if banded:
            if not first <= year <= last:
                continue
            label = None
            for lab, lo, _hi in groups:
                if lo <= year:
                    label = lab
        else:
            label = next((lab for lab, lo, hi in groups if lo <= year <= hi), None)
        if label is None:
            continue
        parts.setdefault(label, []).append(share)
        in_span.append(share)
    total = fsum(in_span)
    if total == 0:
        return None
    return {lab: fsum(shares) / total for lab, shares in parts.items()}, [first, last]


def _quoted(labels: list[str]) -> str:
    text = ", ".join(f"'{x}'" for x in labels[:NO_MATCH_SHOWN])
    return text + (", ..." if len(labels) > NO_MATCH_SHOWN else "")


def _same(label: str) -> str:
    return label


def expected_shares(
    dim: dict, entry: dict, years: tuple | None = None
) -> tuple[Callable[[str], str], dict[str, tuple[str, float]], list[int] | None]:
    """(key of a dimension label, key -> (label as shown, expected share), the span of a
    single-year table or None) of a dimension's reference entry (SPEC 9): labels match
    by key (ASCII case ignored, sex aliases); a single-year table's keys are the
    dimension's own groups."""
    single = years is not None and all(_YEAR.fullmatch(g) for g, _ in entry["shares"])
    expected: dict[str, tuple[str, float]] = {}
    if single:
        found = _by_year(entry, years)
        if found is None:
            return _same, expected, None
        shares, span = found
        return _same, {lab: (lab, share) for lab, share in shares.items()}, span
    key_of = _key_of(dim)
    for g, share in entry["shares"]:
        expected.setdefault(key_of(g), (g, share))
    return key_of, expected, None


def reference_block(
    dim: dict, entry: dict, flag_at: float, years: tuple | None = None
) -> tuple[dict, list[tuple], int]:
    """The `reference` block of a dimension, its flags (SPEC 9): (text, None) for a
    note, (text, (label, count, n, expected)) for a finding, and how many of its groups
    are tests (SPEC 18). `years`: an age dimension's groups by year
    (analyze._age_years), for a single-year table."""
    n = sum(g["count"] for g in dim["groups"])
    key_of, expected, span = expected_shares(dim, entry, years)
    counts: dict[str, tuple[str, int]] = {}
    for g in dim["groups"]:
        key = key_of(g["label"])
        label, c = counts.get(key, (g["label"], 0))
        counts[key] = (label, c + g["count"])
    if not counts.keys() & expected.keys():
        flag = (
            f"{dim['name']}: no label matches the reference "
            f"({_quoted([g['label'] for g in dim['groups']])} vs "
            f"{_quoted([g for g, _ in entry['shares']])}); no deviation reported "
            "(--recode can rename labels)"
        )
        return {"deviation": None, "groups": []}, [(flag, None)], 0
    notes = []
    # a label table matched in part: its groups with no row may be spelt otherwise in
    # the data, so they are shown but not tested (a single-year table's keys are the
    # dimension's own groups: an empty band is a finding)
    only_data = [label for key, (label, _c) in counts.items() if key not in expected]
    part = span is None and bool(only_data)
    if part:
        only_ref = [label for key, (label, _s) in expected.items() if key not in counts]
        notes.append(
            (
                f"{dim['name']}: labels match the reference in part: "
                f"{_quoted(only_data)} in the data only, {_quoted(only_ref) or 'none'} in "
                "the reference only; a reference group with no rows is not tested "
                "(--recode can rename labels)",
                None,
            )
        )
    actual = {key: (label, c / n) for key, (label, c) in counts.items()}
    rows = []
    for key in actual.keys() | expected.keys():
        label = expected[key][0] if key in expected else actual[key][0]
        e = expected[key][1] if key in expected else 0.0
        a = actual[key][1] if key in actual else 0.0
        c = counts[key][1] if key in counts else 0
        rows.append((abs(a - e), label, e, a, c))
    # order by the delta as reported (4 dp), so float noise cannot reorder visible ties
    rows.sort(key=lambda r: (-abs(round_half_up(r[3] - r[2], 4)), r[1]))
    deviation = 0.5 * fsum(r[0] for r in rows)
    # (text, (label, count, n, expected)) of each reference_gap finding (SPEC 18)
    flags = notes + [
        (
            f"{dim['name']}: '{label}' is under-represented vs reference "
            f"({pct_not_zero(a, int(c > 0), c < n)}% vs {pct(e)}%)",
            (label, c, n, e),
        )
        for _, label, e, a, c in rows
        if e - a >= flag_at and not (part and c == 0)
    ]
    tests = sum(1 for r in rows if not (part and r[4] == 0))
    block: dict = {
        "deviation": round_half_up(deviation, 4),
        "groups": [
            {
                "label": label,
                "expected": round_half_up(e, 4),
                "actual": round_half_up(a, 4),
                "delta": round_half_up(a - e, 4),
                "count": c,
            }
            for _, label, e, a, c in rows
        ],
    }
    if span is not None:
        block["ages"] = span
    return block, flags, tests
