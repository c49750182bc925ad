"""Column-name tokenising and kind detection (SPEC.md section 1), and the check of the
user's declared kinds (`--map`) against a header, which every reader calls once it
knows the header."""

from __future__ import annotations

import re

from .errors import InputError

KINDS = ("sex", "race", "age", "geography", "categorical")
OVERRIDE_VALUES = KINDS + ("ignore",)

KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sex", ("sex", "gender")),
    ("race", ("race", "ethnic", "ethnicity")),
    ("age", ("age", "dob", "yob", "birth")),
    (
        "geography",
        (
            "region",
            "state",
            "zip",
            "zipcode",
            "postal",
            "country",
            "county",
            "city",
            "location",
            "province",
        ),
    ),
)

# Runs of ASCII letters/digits are words; inside a word, split at camelCase humps,
# acronym ends (DOBDate -> DOB Date) and letter/digit changes.
_WORD = re.compile(r"[A-Za-z0-9]+")
_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def tokenize(name: str) -> list[str]:
    tokens: list[str] = []
    for word in _WORD.findall(name):
        tokens.extend(piece.lower() for piece in _PIECE.findall(word))
    return tokens


def _matches(keyword: str, token: str) -> bool:
    if len(keyword) < 4:
        return token == keyword
    return token.startswith(keyword)


def kind_from_name(name: str) -> str | None:
    """The kind a column's name implies, or None (a candidate generic categorical)."""
    tokens = tokenize(name)
    for kind, keywords in KEYWORDS:
        for kw in keywords:
            for tok in tokens:
                if _matches(kw, tok):
                    return kind
    return None


def check_overrides(overrides: dict[str, str] | None, columns: list[str]) -> dict[str, str]:
    """The declared kinds (column -> kind or "ignore"), checked against the header:
    raises InputError for a column not in it or an unknown kind."""
    overrides = dict(overrides or {})
    for col, kind in overrides.items():
        if col not in columns:
            shown = ", ".join(columns[:5]) + ("..." if len(columns) > 5 else "")
            raise InputError(f"--map: no column named '{col}' (columns: {shown})")
        if kind not in OVERRIDE_VALUES:
            raise InputError(
                f"--map: unknown kind '{kind}' for '{col}' "
                "(use sex, race, age, geography, categorical or ignore)"
            )
    return overrides
