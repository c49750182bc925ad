"""Column-name tokenising and kind detection (SPEC.md section 1)."""

from __future__ import annotations

import re

KINDS = ("sex", "race", "age", "geography", "categorical")
OVERRIDE_VALUES = KINDS + ("ignore",)

KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sex", ("sex", "gender")),
    ("race", ("race", "ethnic", "ethnicity")),
    ("age", ("age", "dob", "yob", "birth")),
    (
        "geography",
        ("region", "state", "zip", "zipcode", "postal", "country", "county", "city",
         "location", "province"),
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
