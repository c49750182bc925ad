"""Column-name tokenising and kind detection (SPEC.md section 1), and the check of the
user's declared kinds (`--map`) against a header, which every reader calls once it
knows the header."""

from __future__ import annotations

import re

from .errors import InputError
from .labels import AGE_NUMERIC
from .options import dict_arg, spelled

KINDS = (
    "sex",
    "race",
    "ethnicity",
    "nationality",
    "religion",
    "disability",
    "marital",
    "age",
    "geography",
    "categorical",
)
OVERRIDE_VALUES = KINDS + ("ignore",)

#: SPEC 1 keywords, in matching order (age last: a place of birth is a place).
KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sex", ("sex", "gender")),
    ("race", ("race",)),
    ("ethnicity", ("ethnic", "ethnicity", "ethnicities", "hispanic", "latino", "latina", "latinx")),
    (
        "nationality",
        (
            "nationality",
            "nationalities",
            "citizenship",
            "citizen",
            "immigration",
            "immigrant",
            "nativity",
            "native",
        ),
    ),
    ("religion", ("religion", "religious", "faith")),
    (
        "disability",
        ("disability", "disabilities", "disabled", "handicap", "handicapped", "impairment"),
    ),
    ("marital", ("marital", "married", "marriage")),
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
            "neighborhood",
            "neighbourhood",
            "district",
            "borough",
            "birthplace",
        ),
    ),
    ("age", ("age", "dob", "yob", "birth")),
)
#: What may follow a keyword inside one token (`statecode`, `agegroup`), SPEC 1.
SUFFIXES = (
    "s",
    "es",
    "code",
    "cd",
    "id",
    "name",
    "group",
    "grp",
    "type",
    "cat",
    "category",
    "desc",
    "text",
    "txt",
    "date",
    "day",
    "year",
    "yr",
    "fips",
    "abbr",
    "status",
    "identity",
)
_KEYWORD_FORMS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (kind, frozenset(kw + suffix for kw in kws for suffix in ("",) + SUFFIXES))
    for kind, kws in KEYWORDS
)

#: SPEC 1.2 vocabularies, as folded forms.
SEX_VOCABULARY = frozenset(
    (
        "male female m f man woman men women boy girl nonbinary intersex transgender trans "
        "transman transwoman genderqueer genderfluid agender"
    ).split()
)
RACE_VOCABULARY = frozenset(
    (
        "white black asian hispanic latino latina latinx caucasian africanamerican "
        "blackorafricanamerican amerindianeskimo asianpacislander asianpacificislander "
        "pacificislander nativehawaiian nativehawaiianorotherpacificislander nativeamerican "
        "americanindian alaskanative americanindianoralaskanative hispanicorlatino "
        "nothispanicorlatino nothispanic nonhispanic middleeastern arab multiracial mixed "
        "mixedrace twoormoreraces biracial indigenous aboriginal eastasian southasian"
    ).split()
)
#: SPEC 1.2: the race labels that say only whether someone is Hispanic or Latino: a
#: column whose race labels are all among them is an ethnicity, as the US census uses it.
ETHNICITY_VOCABULARY = frozenset(
    (
        "hispanic latino latina latinx hispanicorlatino nothispanicorlatino nothispanic nonhispanic"
    ).split()
)
#: SPEC 1.2: the neutral labels that say the value is unknown, not stated or invalid
#: (all but other, o and x, which are categories); an audit pack counts them as unknown
#: (SPEC 20.1).
UNKNOWN_VOCABULARY = frozenset(
    (
        "unknown unknowninvalid invalid notstated notspecified notreported notknown "
        "prefernottosay prefernottoanswer declined undisclosed none missing unk u"
    ).split()
)
NEUTRAL_VOCABULARY = UNKNOWN_VOCABULARY | frozenset(("other", "x", "o"))
#: Value detection order and vocabularies (SPEC 1.2).
VOCABULARIES = (("sex", SEX_VOCABULARY), ("race", RACE_VOCABULARY))
#: SPEC 9: sex labels that are one label when matched with a reference.
SEX_ALIASES = {
    **{k: "male" for k in ("m", "male", "man", "men", "boy")},
    **{k: "female" for k in ("f", "female", "woman", "women", "girl")},
}
# VALUE_COVERAGE = 0.9, compared in integers: covered * 10 >= n * 9.
_COVER_NUM, _COVER_DEN = 9, 10
#: Why a column is unscored (SPEC 1.4).
NOT_DEMOGRAPHIC = "not a demographic name or vocabulary"
_FOLD_DROP = re.compile(r"[^a-z0-9]+")

# Runs of ASCII letters/digits are words; inside a word, split at camelCase humps,
# acronym ends (DOBDate -> DOB Date) and letter/digit changes.
_WORD = re.compile(r"[A-Za-z0-9]+")
_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def tokenize(name: str) -> list[str]:
    tokens: list[str] = []
    for word in _WORD.findall(name):
        tokens.extend(piece.lower() for piece in _PIECE.findall(word))
    return tokens


def kind_from_name(name: str) -> str | None:
    """The kind a column's name implies, or None (SPEC 1 keywords and suffixes)."""
    tokens = tokenize(name)
    for kind, forms in _KEYWORD_FORMS:
        for tok in tokens:
            if tok in forms:
                return kind
    return None


def fold(label: str) -> str:
    """SPEC 1.2's folded form: ASCII lower case, only a-z and 0-9 kept."""
    lowered = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in label)
    return _FOLD_DROP.sub("", lowered)


def _covered(counts: dict[str, int], vocabulary: frozenset[str]) -> tuple[bool, int]:
    """(core or neutral rows are at least 0.9 of all, distinct labels in the core)."""
    n = covered = 0
    core = 0
    for label, c in counts.items():
        n += c
        f = fold(label)
        if f in vocabulary:
            covered += c
            core += 1
        elif f in NEUTRAL_VOCABULARY:
            covered += c
    return covered * _COVER_DEN >= n * _COVER_NUM, core


def kind_from_values(
    counts: dict[str, int], named_kinds: frozenset[str] = frozenset()
) -> str | None:
    """`sex` or `race` when the labels are that vocabulary (SPEC 1.2), else None. The
    caller has checked the column has 2..max_categorical labels. `named_kinds`: the kinds
    other columns' names or overrides give; a match on single-letter labels alone is
    not taken for a kind in it."""
    for kind, vocabulary in VOCABULARIES:
        enough, core = _covered(counts, vocabulary)
        if enough and core >= 2:
            if kind in named_kinds and all(
                len(fold(label)) == 1 for label in counts if fold(label) in vocabulary
            ):
                continue
            if kind == "race" and all(
                fold(label) in ETHNICITY_VOCABULARY for label in counts if fold(label) in vocabulary
            ):
                return "ethnicity"
            return kind
    return None


def ethnicity_holds_race(counts: dict[str, int]) -> bool:
    """SPEC 1.2: a column named like an ethnicity whose labels are races (the race
    vocabulary covers 0.9 of its rows, with two distinct race labels beyond Hispanic or
    not): COMPAS's `Ethnic_Code_Text` holds African-American, Caucasian, Hispanic."""
    enough, _ = _covered(counts, RACE_VOCABULARY)
    beyond = sum(1 for label in counts if fold(label) in RACE_VOCABULARY - ETHNICITY_VOCABULARY)
    return enough and beyond >= 2


#: SPEC 1.7: the kinds whose labels name groups people recognise, and their core labels.
_CODED_KINDS = {
    "sex": SEX_VOCABULARY,
    "race": RACE_VOCABULARY,
    "ethnicity": ETHNICITY_VOCABULARY | {"y", "n"},  # Y/N answers "Hispanic or Latino?"
}
_DIGITS = re.compile(r"[0-9]+")


def coded_labels(kind: str, labels: list[str]) -> list[str]:
    """SPEC 1.7: the labels of a sex, race or ethnicity dimension when every label that
    is not a neutral word (1.2) is a code, digits or a single letter that is not one of
    the kind's words (`1`/`2`, `W`/`B`; `M`/`F` are sex words); else []."""
    core = _CODED_KINDS.get(kind)
    if core is None:
        return []
    named = [lab for lab in labels if fold(lab) not in NEUTRAL_VOCABULARY]
    for lab in named:
        f = fold(lab)
        if not (_DIGITS.fullmatch(lab) or (len(lab) == 1 and len(f) == 1 and f not in core)):
            return []
    return named


def contradiction(kind: str, counts: dict[str, int], max_categorical: int) -> str | None:
    """Why a name-matched column's labels contradict its kind (SPEC 1.3), or None."""
    if kind in ("age", "geography", "categorical"):
        return None
    k = len(counts)
    numeric = all(AGE_NUMERIC.fullmatch(label) for label in counts)
    if kind == "sex":
        if k > 3 and not _covered(counts, SEX_VOCABULARY)[0]:
            if numeric:
                return f"{k} distinct numbers"
            return f"{k} distinct labels that are not sex or gender words"
        return None
    if numeric and k:
        if any("." in label for label in counts):
            return "numbers with decimals"
        if k > max_categorical:
            return f"{k} distinct numbers"
    return None


def label_slack(opts, column: str) -> int:
    """SPEC 1.1: how many labels the declared `na` tokens and `recode` entries can remove
    from a column, so a reader keeps counting it that much longer."""
    if not opts.na and not opts.recode:
        return 0
    s = sum(1 for item in opts.na if isinstance(item, str) or item[0] == column)
    return s + sum(1 for col, _, _ in opts.recode if col == column)


def _no_column(flag: str, col: str, columns: list[str]) -> InputError:
    shown = ", ".join(columns[:5]) + ("..." if len(columns) > 5 else "")
    return InputError(f"{spelled(flag)}: no column named '{col}' (columns: {shown})")


class CheckedOverrides(dict):
    """Overrides `check_overrides` has checked, with the header and options it checked
    them against: handed to it again for the same ones (a reader's, then `analyze`'s),
    they are returned as they are, as `options.resolve` returns an Options."""

    __slots__ = ("against",)


def check_overrides(
    overrides: dict[str, str] | None, columns: list[str], opts=None
) -> dict[str, str]:
    """The declared kinds (column -> kind or "ignore"), checked against the header:
    raises InputError for a column not in it or an unknown kind. With `opts`, the
    columns named by `na` and `recode` (SPEC 1.1) are checked too. Checked once: the
    result (a CheckedOverrides) is not checked again against the same header and
    options."""
    if isinstance(overrides, CheckedOverrides) and overrides.against == (
        tuple(columns),
        opts,
        tuple(overrides.items()),
    ):
        return overrides
    overrides = CheckedOverrides(dict_arg("overrides", overrides))
    overrides.against = (tuple(columns), opts, tuple(overrides.items()))
    for col, kind in overrides.items():
        if col not in columns:
            raise _no_column("--map", col, columns)
        if kind not in OVERRIDE_VALUES:
            raise InputError(
                f"{spelled('--map')}: unknown kind '{kind}' for '{col}' "
                f"(use {', '.join(KINDS)} or ignore)"
            )
    label = getattr(opts, "label", None)
    if label is not None:  # SPEC 17.1
        if label not in columns:
            raise _no_column("--label", label, columns)
        if label in overrides:
            raise InputError(
                f"{spelled('--label')} {label}: the label column cannot also be given to "
                f"{spelled('--map')}"
            )
    for name in getattr(opts, "outcome", None) or ():  # SPEC 21.1
        if name not in columns:
            raise _no_column("--outcome", name, columns)
        if name in overrides:
            raise InputError(
                f"{spelled('--outcome')} {name}: an outcome column cannot also be given to "
                f"{spelled('--map')}"
            )
    if opts is not None and (opts.na or opts.recode):
        names = set(columns)
        for item in opts.na:
            if not isinstance(item, str) and item[0] not in names:
                raise _no_column("--na", item[0], columns)
        for col, _, _ in opts.recode:
            if col not in names:
                raise _no_column("--recode", col, columns)
    for col in getattr(opts, "cross", None) or ():  # SPEC 4: as --map's (issue 27)
        if col not in columns:
            raise _no_column("--cross", col, columns)
    return overrides
