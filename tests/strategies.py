"""The parity suite's hypothesis strategies: whole CSV files as bytes, options,
compare pairs (SPEC 14; tests/parity/test_js_parity.py describes what they generate).

Shared by tests/parity/test_js_parity.py, test_js_parity_compare.py and
test_pyodide_parity.py. Importing this module imports the standard library and
hypothesis only: no faircode, no pandas or numpy, and it starts no process
(tests/parity/test_strategies.py checks). What the strategies need from the engines is
asked for on the first draw that needs it: faircode's header cleaning
(`clean_header`) and both engines' missing tokens (`missing_like`, node once a
process).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]


# Strategies built once. Building a strategy is dear next to drawing from it: hypothesis
# validates each new strategy object and works out its label (hashing every element of
# a sampled_from) on its first draw, and the generators below draw cell by cell, so a
# `st.sampled_from([...])` written inline cost most of the parity suite's time (a
# generated file draws thousands of them). `sampled(values)` is `st.sampled_from(values)`
# made once per distinct list: the same choices, the same labels (a list still), so a
# derandomized run draws exactly the examples it drew before.
_PICKS: dict[str, st.SearchStrategy] = {}


def sampled(values) -> st.SearchStrategy:
    key = repr(values)  # repr, not ==: 0, 0.0 and False are different choices here
    found = _PICKS.get(key)
    if found is None:
        if len(_PICKS) > 20_000:  # pools drawn per file: keep the memory bounded
            _PICKS.clear()
        found = _PICKS[key] = st.sampled_from(list(values))
    return found


def clean_header(names: list[str]) -> list[str]:
    """The engines' header cleaning (SPEC 0.3: faircode.labels.clean_header)."""
    from faircode.labels import clean_header as clean  # on the first draw, not at import

    return clean(names)


KEYWORDS = [
    "sex",
    "gender",
    "race",
    "ethnic",
    "ethnicity",
    "age",
    "dob",
    "yob",
    "birth",
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
    # SPEC 1 v2 (issue 13): new kinds and keywords
    "ethnicities",
    "hispanic",
    "latino",
    "latinx",
    "nationality",
    "citizenship",
    "citizen",
    "immigrant",
    "nativity",
    "native",
    "religion",
    "religious",
    "faith",
    "disability",
    "disabled",
    "handicap",
    "impairment",
    "marital",
    "married",
    "marriage",
    "neighborhood",
    "neighbourhood",
    "district",
    "borough",
    "birthplace",
]
NEAR_MISSES = [
    "agency",
    "language",
    "stage",
    "Agency_Text",
    "mileage",
    "image",
    "average",
    "sextant",
    "racecar",
    "zipper",
    "cityscape",
    "birthday",
    "statecode",
    "dobby",
    "regional",
    "usage",
    "teenager",
    "massage",
    "genderless",
    # look-alikes the v2 suffix list rejects (SPEC 1)
    "raceway",
    "statement",
    "ages",
    "agecode",
    "stateful",
    "nationalism",
    "faithful",
    "marriages",
    "disables",
    "nativeness",
    "citizens",
    "countryside",
    "birthdays",
    "yobs",
    "dobcd",
    "hispanicity",
]
FILLERS = [
    "code",
    "group",
    "text",
    "id",
    "name",
    "of",
    "date",
    "cat",
    "value",
    "x",
    "2",
    "Date",
    "ID",
    "DOB",
    # the SPEC 1 suffixes, as separate tokens and glued on (statecode, maritalstatus)
    "status",
    "identity",
    "yr",
    "fips",
    "abbr",
    "Cd",
    "Grp",
    "Type",
    "category",
    "desc",
    "txt",
    "day",
    "year",
    "s",
    "es",
]
ACCENTED = [
    "Âge",
    "séx",
    "ráce",
    "géndér",
    "Région",
    "Città",
    "País",
    "Ähnlich",
    "naïve",
    "Straße",
    "età",
]
SEPARATORS = ["_", " ", "-", ".", "", "/", "__", "é", "\u00a0", "😀"]


# Text without NUL: NUL bytes are injected on purpose, and rarely (BAD_BYTES).
TEXT = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8)

THEME_KEYWORDS = {
    "sex": ["sex", "gender", "Sex_Code_Text", "GENDER"],
    "race": ["race", "ethnic", "ethnicity", "Ethnic_Code_Text"],
    "age": ["age", "dob", "yob", "birth", "DateOfBirth", "age_cat", "AgeGroup", "Âge"],
    "geo": [
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
        "native-country",
        "birth_state",
        "birthplace",
        "country_of_birth",
        "neighborhood",
    ],
    "people": [
        "nationality",
        "native-country",
        "citizenship",
        "religion",
        "Religious_Affiliation",
        "faith",
        "disability_status",
        "DisabilityType",
        "handicapped",
        "marital-status",
        "MaritalStatus",
        "married",
        "hispanic",
        "Latino_Origin",
    ],
    # unnamed columns: detected by their values or not at all (SPEC 1.2)
    "vocab": ["gndr", "x", "col", "f1", "who", "group", "Q3", "respondent_type", "v"],
}


@st.composite
def header_names(draw, theme: str | None = None) -> str:
    kind = draw(st.integers(0, 9))
    if theme in THEME_KEYWORDS and kind < 6:
        base = draw(sampled(THEME_KEYWORDS[theme]))
        if theme == "vocab":
            return base
        extra = draw(sampled(["", "", "_code", "Group", "2", " text", "_1", "ID", "status", "s"]))
        return draw(sampled([base, base.upper(), base.lower(), base.title()])) + extra
    if kind == 0:
        return draw(TEXT)
    if kind == 1:
        return draw(sampled(["", " ", "  ", "\t", "column_1", "column_2", "a.1", "a"]))
    parts = draw(
        st.lists(sampled(KEYWORDS + NEAR_MISSES + FILLERS + ACCENTED), min_size=1, max_size=3)
    )
    case = draw(sampled(["lower", "upper", "title", "camel", "random", "keep"]))
    if case == "lower":
        parts = [p.lower() for p in parts]
    elif case == "upper":
        parts = [p.upper() for p in parts]
    elif case == "title":
        parts = [p.title() for p in parts]
    elif case == "camel":
        parts = [parts[0].lower()] + [p[:1].upper() + p[1:] for p in parts[1:]]
    elif case == "random":
        flips = draw(st.lists(st.booleans(), min_size=40, max_size=40))
        parts = [
            "".join(c.upper() if flips[i % 40] else c.lower() for i, c in enumerate(p))
            for p in parts
        ]
    sep = "" if case == "camel" else draw(sampled(SEPARATORS))
    name = sep.join(parts)
    if draw(st.integers(0, 4)) == 0:
        name = (
            draw(sampled(["", "1", "2", "_", "x"]))
            + name
            + draw(sampled(["", "1", "2", "_1", "99"]))
        )
    if draw(st.integers(0, 6)) == 0:
        name = draw(sampled([" ", "\t", "  "])) + name + draw(sampled(["", " "]))
    return name


def _engine_tokens() -> set[str]:
    """Both engines' missing tokens: a token added to one engine only is drawn, and the
    other engine's answer then differs (a one-engine edit cannot pass)."""
    import subprocess

    from faircode.labels import MISSING_TOKENS

    js = subprocess.run(
        [
            "node",
            "-e",
            "process.stdout.write(JSON.stringify(require("
            "'./assets/profiler-engine.js').MISSING_TOKENS))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(MISSING_TOKENS) | set(json.loads(js))


_NEAR_MISSES = [
    "",
    "NA",
    "N/A",
    "n/a",
    "NaN",
    "nan",
    "null",
    "NULL",
    "?",
    "NA ",
    " NA",
    "na",
    "Na",
    "N/a",
    "none",
    "None",
    "NONE",
    "-",
    "??",
    " ? ",
    "\tNA\t",
    "nil",
    "NaT",
    "Null",
    "n/a ",
    '""',
    "N\\A",
]


@functools.cache
def missing_like() -> list[str]:
    """Missing-token near-misses, then every token of either engine: asked of node and
    faircode on the first draw that needs them (once a process), never at import."""
    return _NEAR_MISSES + sorted(_engine_tokens() - set(_NEAR_MISSES))


SEXES = [
    "Male",
    "Female",
    "male",
    "female",
    "M",
    "F",
    "Non-binary",
    "Unknown",
    "Unknown/Invalid",
    "⚧",
    "女性",
    "Männlich",
]
# SPEC 1.2 vocabularies in assorted spellings and cases, and neutral labels
SEX_WORDS = [
    "Male",
    "Female",
    "MALE",
    "female",
    "M",
    "F",
    "m",
    "f",
    "Man",
    "Woman",
    "men",
    "WOMEN",
    "Boy",
    "girl",
    "Non-binary",
    "non binary",
    "NonBinary",
    "Trans Man",
    "trans-woman",
    "Transgender",
    "Genderqueer",
    "intersex",
    "Agender",
]
RACE_WORDS = [
    "White",
    "WHITE",
    "black",
    "Black or African American",
    "African-American",
    "Caucasian",
    "Asian",
    "Asian-Pac-Islander",
    "Amer-Indian-Eskimo",
    "Hispanic",
    "Hispanic or Latino",
    "Not Hispanic or Latino",
    "Latinx",
    "Native Hawaiian or Other Pacific Islander",
    "American Indian or Alaska Native",
    "Two or More Races",
    "Multiracial",
    "Mixed race",
    "Middle Eastern",
    "East Asian",
    "south-asian",
    "Indigenous",
]
NEUTRAL_WORDS = [
    "Other",
    "other",
    "Unknown",
    "Unknown/Invalid",
    "unk",
    "U",
    "X",
    "o",
    "none",
    "Not stated",
    "Prefer not to say",
    "prefer-not-to-answer",
    "Declined",
    "Missing",
    "Invalid",
]
# Labels of neither vocabulary: sizes, codes, words
NOT_VOCAB = ["S", "L", "XL", "yes", "no", "1", "2", "9", "A", "B", "felony", "?x", "Mx"]
RACES = [
    "White",
    "Black",
    "Asian",
    "African-American",
    "Caucasian",
    "Hispanic",
    "Other",
    "Native American",
    "AfricanAmerican",
    "Asian-Pac-Islander",
    "Amer-Indian-Eskimo",
]
TRICKY = [
    "😀",
    "👩🏽‍💻",
    "🇫🇷",
    "a😀",
    "😀b",
    "\U0001f600",
    "\U00010000",
    "\U0010fffd",
    "\ue000",
    "\uff21",
    "\ufffd",
    "\ufeff",
    "e\u0301",
    "é",
    "\u0301",
    "עברית",
    "العربية",
    "\u202eabc",
    "ﬃ",
    "İ",
    "ß",
    "Σ",
    "a b",
    "a,b",
    "a;b",
    "a|b",
    "a\tb",
    'a"b',
    '"a"',
    "a\nb",
    "a\rb",
    "a\r\nb",
    "\n",
    "\r",
    "  x  ",
    "\tx\t",
    "x ",
    " x",
    "\u3000x",
    "\u00a0",
    "\x0b",
    "\x1f",
    "~",
    "\\",
    "'",
    "''",
]
NUMBERS = [
    "0",
    "00",
    "007",
    "-1",
    "-0",
    "1.5",
    "1.50",
    "01.5",
    "1e3",
    "1E3",
    "-1e-3",
    "+5",
    "1,000",
    "1 000",
    "99999999999999999999",
    "1" * 30,
    "1" * 400,
    ".5",
    "5.",
    "١٢",
    "12 ",
    " 12",
    "Ⅻ",
    "0x10",
    "inf",
    "-inf",
    "3.14159265358979323846",
    "-2.5",
    "120",
    "121",
    "120.0",
    "120.5",
    "999",
    "-999",
    "17.999",
    "18",
    "0.0001",
]
INTERVALS = [
    "[70-80)",
    "(40, 50]",
    "[0-10)",
    "[10-20)",
    "[20-30)",
    "[30-40)",
    "[40-50)",
    "[50-60)",
    "[60-70)",
    "[80-90)",
    "[90-100)",
    "[100-110)",
    "[1000-2000)",
    "[70 - 80)",
    "[70-80]",
    "(70,80)",
    "[70-80",
    "70-80",
    "[ 70-80)",
    "[007-010)",
    "[999999999999999999999-1)",
    "[18-29)",
    "(17,18]",
]
# Intervals that fit the default bands (0,18,30,45,60,75): banded (SPEC 2)
INTERVALS_FIT = [
    "[0-18)",
    "[18-30)",
    "[30-45)",
    "[45-60)",
    "[60-75)",
    "[75-90)",
    "[75-120)",
    "[20-25)",
    "[40-44]",
    "(29, 44]",
    "(17,29]",
    "[60-70)",
    "[0-10)",
    "[10-18)",
    "[5-5]",
    "[90-100)",
]
DATES = [
    "1947-04-18",
    "04/18/1947",
    "18/04/47",
    "2013-08-14 06:03:42",
    "2013-08-14",
    "1999-12-31",
    "2000-01-01",
    "31.12.1999",
]


THEME_SHAPES = {
    # counts / codes / decimals: named columns whose labels do or do not contradict
    # their name (SPEC 1.3)
    "sex": ["sex", "sex", "tricky", "distinct", "sex_words", "counts", "codes"],
    "race": ["race", "race", "tricky", "distinct", "race_words", "decimals", "counts"],
    "age": [
        "age_int",
        "age_int",
        "age_num",
        "interval",
        "interval",
        "interval_fit",
        "interval_fit",
        "dates",
        "numbers",
        "distinct",
    ],
    "geo": ["distinct", "tricky", "text"],
    "generic": ["distinct", "distinct", "tricky", "numbers", "missing", "const", "sex"],
    "text": ["text", "tricky", "dates"],
    "people": ["distinct", "codes", "decimals", "counts", "race_words", "tricky"],
    "vocab": ["sex_words", "sex_words", "race_words", "race_words", "mixed_words", "codes"],
}


@st.composite
def column_values(draw, n_rows: int, theme: str) -> list[str]:
    """One column's raw texts (before quoting)."""
    shape = draw(sampled(THEME_SHAPES[theme]))
    miss = draw(sampled([0.0, 0.0, 0.0, 0.05, 0.3, 1.0]))
    if shape == "distinct":
        k = draw(sampled([1, 2, 3, 19, 20, 21, 22, 49, 50, 51, 52]))
        prefix = draw(sampled(["v", "", "😀", "[", "g "]))
        offset = draw(st.integers(0, 3))
        pool = None
        base = [f"{prefix}{(i + offset) % k}" for i in range(n_rows)]
    else:
        if shape == "sex":
            pool = SEXES
        elif shape == "race":
            pool = RACES
        elif shape == "age_int":
            lo = draw(sampled([0, 0, 15, -2]))
            hi = draw(sampled([5, 90, 130, 1000]).filter(lambda h: h >= lo))
            pool = [str(v) for v in range(lo, hi + 1)]
        elif shape == "age_num":
            pool = [str(v) for v in range(0, 100)] + NUMBERS
        elif shape == "interval":
            pool = INTERVALS
        elif shape == "interval_fit":
            pool = INTERVALS_FIT + (INTERVALS if draw(st.integers(0, 3)) == 0 else [])
        elif shape == "sex_words":
            pool = SEX_WORDS + NEUTRAL_WORDS[: draw(st.integers(0, len(NEUTRAL_WORDS)))]
        elif shape == "race_words":
            pool = RACE_WORDS + NEUTRAL_WORDS[: draw(st.integers(0, len(NEUTRAL_WORDS)))]
        elif shape == "mixed_words":
            pool = draw(sampled([SEX_WORDS, RACE_WORDS])) + NOT_VOCAB
        elif shape == "counts":
            pool = [str(v) for v in range(draw(sampled([3, 4, 5, 25])))]
        elif shape == "codes":
            pool = draw(sampled([["1", "2"], ["1", "2", "9"], ["0", "1"], ["S", "M", "L"]]))
        elif shape == "decimals":
            pool = ["1.5", "2.0", "3", "0.25", "4"]
        elif shape == "dates":
            pool = DATES
        elif shape == "tricky":
            pool = TRICKY
        elif shape == "numbers":
            pool = NUMBERS
        elif shape == "missing":
            pool = missing_like()
        elif shape == "const":
            pool = [draw(sampled(SEXES + NUMBERS))]
        else:
            pool = None
        if pool is not None:
            # A sub-pool keeps group counts interesting (ties, small groups).
            size = draw(st.integers(1, min(len(pool), 30)))
            sub = draw(st.lists(sampled(pool), min_size=size, max_size=size))
            idx = draw(st.lists(st.integers(0, len(sub) - 1), min_size=n_rows, max_size=n_rows))
            base = [sub[i] for i in idx]
        else:
            base = draw(st.lists(TEXT, min_size=n_rows, max_size=n_rows))
    if miss:
        flags = draw(st.lists(st.floats(0, 1), min_size=n_rows, max_size=n_rows))
        tokens = draw(st.lists(sampled(missing_like()), min_size=1, max_size=4))
        base = [
            tokens[i % len(tokens)] if f < miss else v for i, (v, f) in enumerate(zip(base, flags))
        ]
    return base


def encode_cell(draw, value: str, delim: str) -> str:
    needs = any(ch in value for ch in (delim, '"', "\r", "\n")) or value.startswith('"')
    mode = draw(sampled(["auto"] * 6 + ["quote", "raw", "space_quote", "trailer", "pad"]))
    quoted = '"' + value.replace('"', '""') + '"'
    if needs and mode in ("space_quote", "pad", "raw") and draw(st.integers(0, 3)) != 0:
        return quoted  # these leave a delimiter or line end bare, a long row: keep it rare
    if mode == "quote" or (mode == "auto" and needs):
        return quoted
    if mode == "space_quote":  # a quote that is not the first character is ordinary
        return " " + quoted
    if mode == "trailer":  # text after the closing quote is appended as written
        # a '"' right after the closing quote reads as an escaped quote and swallows the
        # rest of the line: a legal but drastic case, so it is drawn rarely
        return quoted + draw(sampled(["x", " ", "y z"] * 3 + ['"']))
    if mode == "pad":
        return draw(sampled([" ", "\t", "  "])) + value + draw(sampled(["", " ", "\t"]))
    return value


BAD_BYTES = [
    b"\x00",
    b"\xff",
    b"\x80",
    b"\xc0\x80",
    b"\xc1\xbf",
    b"\xe0\x80\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xc3",
    b"\xe2\x28\xa1",
    b"a\x00b",
]


@dataclass
class Case:
    data: bytes
    overrides: dict = field(default_factory=dict)
    opts: dict = field(default_factory=dict)
    chunk_size: int = 1 << 20
    block_size: int = 1 << 20

    def describe(self) -> str:
        try:
            text = self.data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        lines = [f"bytes: {self.data!r}"]
        if text is not None:
            lines.append("text:\n" + text)
        lines.append(
            f"overrides={self.overrides!r} opts={self.opts!r} "
            f"js chunk_size={self.chunk_size} python block_size={self.block_size}"
        )
        return "\n".join(lines)


# Labels a recode maps to: new names, a missing token, or the na token drawn below
RECODE_TO = ["Male", "Female", "F", "Other", "", "NA", "?", "  ", "x", "[10-20)", "30"]


@st.composite
def rewrites(draw, names: list[str], columns: list[list[str]]) -> dict:
    """SPEC 1.1 `na` and `recode`: tokens and FROM labels mostly taken from the labels
    that occur (trimmed or not), sometimes not; TO an existing label, a missing token or
    a new one; rarely an input error (empty token, wrong shape, a column not in the
    header, a (column, from) given twice)."""
    opts: dict = {}

    def occurring(c: int) -> str:
        values = columns[c] if c < len(columns) and columns[c] else ["x"]
        return draw(sampled(values))

    def a_column() -> int:
        return draw(st.integers(0, max(0, len(names) - 1)))

    if draw(st.booleans()):
        na: list = []
        for _ in range(draw(st.integers(1, 3))):
            c = a_column()
            token = (
                occurring(c)
                if draw(st.integers(0, 3))
                else draw(sampled(SEX_WORDS + ["9", "-1", "unknown"]))
            )
            if draw(st.booleans()) or not names:
                na.append(token)
            else:
                na.append([names[c], token])
        if draw(st.integers(0, 15)) == 0:
            na.append(
                draw(sampled(["", " ", ["nope", "x"], ["a"], 5, [names[0] if names else "a", 3]]))
            )
        opts["na"] = na if draw(st.integers(0, 9)) else (na[0] if isinstance(na[0], str) else na)
    if draw(st.booleans()) and names:
        items: list = []
        for _ in range(draw(st.integers(1, 4))):
            c = a_column()
            frm = occurring(c)
            to_pool = RECODE_TO + [occurring(c), occurring(c)]
            if isinstance(opts.get("na"), list) and opts["na"] and isinstance(opts["na"][0], str):
                to_pool.append(opts["na"][0])
            items.append([names[c], frm, draw(sampled(to_pool))])
        # a (column, from) given twice is an error: mostly drop repeats
        if draw(st.integers(0, 9)):
            seen: set = set()
            kept = []
            for col, frm, to in items:
                key = (col, frm.strip(" \t"))
                if key not in seen:
                    seen.add(key)
                    kept.append([col, frm, to])
            items = kept
        if draw(st.integers(0, 15)) == 0:
            items.append(
                draw(sampled([["nope", "a", "b"], [names[0], "", "b"], [names[0], "a"], "x"]))
            )
        if draw(st.integers(0, 4)) == 0 and all(isinstance(i, list) and len(i) == 3 for i in items):
            as_object: dict = {}
            for col, frm, to in items:
                as_object.setdefault(col, {})[frm] = to
            opts["recode"] = as_object
        else:
            opts["recode"] = items
    return opts


@st.composite
def options(draw, names: list[str], columns: list[list[str]] | None = None) -> dict:
    opts: dict = {}
    pick = draw(
        st.lists(
            sampled(
                [
                    "min_share",
                    "min_group_size",
                    "intersection_floor",
                    "imbalance_flag",
                    "missing_flag",
                    "max_age",
                    "max_categorical",
                    "max_dimension_groups",
                    "age_bands",
                    "cross",
                    "score_categoricals",
                    "rewrites",
                    "rewrites",
                ]
            ),
            max_size=4,
            unique=True,
        )
    )
    if draw(st.integers(0, 24)) == 0:
        pick.append("invalid")
    share = st.one_of(
        sampled([0, 0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 1.0]),
        st.floats(0, 1, allow_nan=False),
    )
    for key in pick:
        if key in ("min_share", "intersection_floor", "missing_flag"):
            opts[key] = draw(share)
        elif key == "min_group_size":
            opts[key] = draw(st.integers(0, 200))
        elif key == "imbalance_flag":
            opts[key] = draw(
                st.one_of(sampled([1, 1.0, 1.5, 2, 3, 10]), st.floats(1, 1e6, allow_nan=False))
            )
        elif key == "max_age":
            opts[key] = draw(sampled([1, 17.5, 18, 60, 99, 100, 120, 121, 130, 1e9, 0.5]))
        elif key == "max_categorical":
            opts[key] = draw(sampled([2, 3, 19, 20, 21, 22, 49, 50, 51, 52, 60]))
        elif key == "max_dimension_groups":
            opts[key] = draw(sampled([2, 3, 5, 19, 20, 21, 49, 50, 51, 52]))
        elif key == "age_bands":
            rest = draw(st.lists(st.integers(1, 130), max_size=8, unique=True))
            opts[key] = [0] + sorted(rest)
        elif key == "score_categoricals":
            opts[key] = draw(sampled([True, True, False]))
        elif key == "rewrites":
            opts.update(draw(rewrites(names, columns or [])))
        elif key == "cross":
            pool = names + ["nope"] if names else ["nope"]
            same_ok = draw(st.integers(0, 4)) == 0  # mostly two different names
            opts[key] = draw(st.lists(sampled(pool), min_size=2, max_size=2, unique=not same_ok))
        else:
            bad_key, bad_value = draw(
                sampled(
                    [
                        ("min_share", 1.5),
                        ("min_share", -0.1),
                        ("missing_flag", 2),
                        ("intersection_floor", -1),
                        ("imbalance_flag", 0.5),
                        ("imbalance_flag", 0),
                        ("min_group_size", -1),
                        ("min_group_size", 2.5),
                        ("max_age", 0),
                        ("max_age", -5),
                        ("max_categorical", 1),
                        ("max_categorical", 2.5),
                        ("max_dimension_groups", 0),
                        ("age_bands", [1, 5]),
                        ("age_bands", [0, 5, 5]),
                        ("age_bands", []),
                        ("age_bands", [0, 30, 18]),
                        ("skip_lines", -1),
                        ("cross", ["a"]),
                        ("cross", ["a", "b", "c"]),
                        ("cross", ["a", " "]),
                        ("delimiter", ":"),
                        ("delimiter", "\\t"),
                        ("min_shares", 0.1),
                        ("names", []),
                        ("score_categoricals", 1),
                        ("score_categoricals", "yes"),
                        ("na", 5),
                        ("na", [""]),
                        ("na", [["a"]]),
                        ("recode", "a:b=c"),
                        ("recode", [["a", "", "b"]]),
                        ("recode", [["a", "b", "c"], ["a", " b", "d"]]),
                        ("recode", {"a": ["b"]}),
                    ]
                )
            )
            opts[bad_key] = bad_value
    return opts


@st.composite
def csv_cases(draw) -> Case:
    delim = draw(sampled([",", ";", "\t", "|"]))
    eol_mode = draw(sampled(["\n", "\r\n", "\r", "mixed"]))

    def eol() -> str:
        if eol_mode == "mixed":
            return draw(sampled(["\n", "\r\n", "\r"]))
        return eol_mode

    n_cols = draw(st.integers(1, 6))
    n_rows = draw(sampled([0, 1, 2, 3, 5, 10, 25, 25, 60, 60]))
    themes = draw(
        st.lists(
            sampled(
                ["sex", "race", "age", "age", "geo", "generic", "generic", "text"]
                + ["people", "vocab", "vocab"]
            ),
            min_size=n_cols,
            max_size=n_cols,
        )
    )
    raw_names = [draw(header_names(t)) for t in themes]
    if n_cols > 1 and draw(st.integers(0, 4)) == 0:  # duplicate headers
        raw_names[-1] = raw_names[0]
    columns = [draw(column_values(n_rows, t)) for t in themes]
    use_names = draw(st.integers(0, 7)) == 0
    ragged = draw(sampled(["none"] * 16 + ["short"] * 3 + ["long"]))
    long_row = draw(st.integers(0, max(0, n_rows - 1)))

    records: list[list[str]] = []
    if not use_names:
        records.append(raw_names)
    for r in range(n_rows):
        row = [columns[c][r] for c in range(n_cols)]
        if ragged == "short" and draw(st.integers(0, 3)) == 0:
            row = row[: draw(st.integers(1, n_cols))]  # short row: missing trailing cells
        elif ragged == "long" and r == long_row:
            row = row + draw(
                st.lists(sampled(["x", "", "1"]), min_size=1, max_size=2)
            )  # long row: an error
        records.append(row)

    text_lines: list[str] = []
    skip = 0
    if draw(st.integers(0, 5)) == 0:
        skip = draw(st.integers(1, 2))
        for _ in range(skip):
            text_lines.append(
                draw(sampled(["|1x3 Cross validator", "", '"', "a,b;c", "# comment"])) + eol()
            )
    for rec in records:
        while draw(st.integers(0, 12)) == 0:  # blank lines anywhere
            text_lines.append(eol())
        cells = [encode_cell(draw, v, delim) for v in rec]
        text_lines.append(delim.join(cells) + eol())
    text = "".join(text_lines)
    if text and draw(st.integers(0, 3)) == 0:
        text = text.rstrip("\r\n")  # no final line end
    if draw(st.integers(0, 20)) == 0:
        text += '"unterminated' + eol() + "x"
    data = text.encode("utf-8")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 12)) == 0:
        pos = draw(st.integers(0, len(data)))
        data = data[:pos] + draw(sampled(BAD_BYTES)) + data[pos:]

    opts = draw(options(clean_header(raw_names), columns))
    if skip and "skip_lines" not in opts and draw(st.integers(0, 4)) != 0:
        opts["skip_lines"] = skip
    if use_names:
        width = draw(sampled([n_cols, n_cols, max(1, n_cols - 1), n_cols + 1]))
        opts.setdefault("names", (raw_names + ["extra"])[:width])
    if draw(st.integers(0, 3)) == 0:
        opts.setdefault("delimiter", "tab" if delim == "\t" else delim)

    overrides: dict = {}
    cleaned = clean_header(
        opts["names"] if isinstance(opts.get("names"), list) and opts["names"] else raw_names
    )
    for _ in range(draw(st.integers(0, 2))):
        col = draw(sampled(cleaned + ["nope"] if draw(st.integers(0, 9)) == 0 else cleaned))
        overrides[col] = draw(
            sampled(
                ["sex", "race", "age", "age", "geography", "categorical", "ignore"]
                + ["nationality", "religion", "disability", "marital"]
                + (["gender"] if draw(st.integers(0, 9)) == 0 else [])
            )
        )

    chunk = draw(sampled([1, 2, 3, 4, 5, 7, 13, 64, 1024, 1 << 20]))
    block = draw(sampled([1, 2, 3, 5, 64, 1 << 20]))
    return Case(data, overrides, opts, chunk, block)


@st.composite
def bounded_cases(draw) -> Case:
    """Files at the bounds of SPEC 0.9 that are cheap to generate: the default pair just
    inside or past the first 64 counted columns (some lead columns ignored), more than
    1,000 gap cells, more than 100 under-represented groups. (LABEL_CAP, 100,000
    labels, is tested directly in tests/engine/test_bounds.py.)"""
    kind = draw(sampled(["columns", "cells", "flags"]))
    overrides: dict = {}
    opts: dict = {}
    if kind == "columns":
        lead = draw(sampled([62, 63, 64, 70]))
        n_rows = draw(st.integers(2, 8))
        names = [f"k{i}" for i in range(lead)] + [
            draw(header_names("sex")),
            draw(header_names("race")),
        ]
        names = clean_header(names)
        two = draw(st.sets(st.integers(0, lead - 1), max_size=2))  # two-label columns
        rows = [
            [("y" if i in two and r % 2 else "x") for i in range(lead)]
            + [draw(sampled(SEXES)), draw(sampled(RACES))]
            for r in range(n_rows)
        ]
        for _ in range(draw(st.integers(0, 3))):
            overrides[names[draw(st.integers(0, lead - 1))]] = draw(
                sampled(["ignore", "ignore", "geography"])
            )
    else:
        n_a = (
            draw(st.integers(20, 45))
            if kind == "cells"
            else draw(sampled([99, 100, 101, 102, 130]))
        )
        n_rows = draw(st.integers(n_a, 2 * n_a))
        names = ["zip", "city"] if kind == "cells" else ["state"]
        rows = [
            [f"z{draw(st.integers(0, n_a - 1)) if r >= n_a else r}"]
            + ([f"c{draw(st.integers(0, 44))}"] if kind == "cells" else [])
            for r in range(n_rows)
        ]
        if draw(st.booleans()):
            opts["intersection_floor"] = draw(sampled([0.0, 0.001, 0.05]))
        if draw(st.booleans()):
            opts["min_share"] = draw(sampled([0.0, 0.005, 0.02, 0.5]))
    if len(names) > 1 and draw(st.integers(0, 4)) == 0:
        opts["cross"] = [names[-1], names[-2]]
    text = "\n".join(",".join(r) for r in [names] + rows) + "\n"
    chunk = draw(sampled([1, 7, 64, 1024, 1 << 20]))
    block = draw(sampled([1, 5, 64, 1 << 20]))
    return Case(text.encode(), overrides, opts, chunk, block)


@st.composite
def v2_cases(draw) -> Case:
    """Small files aimed at SPEC 1.1-1.6 and 2 (version 2): unnamed columns holding the
    sex/race vocabularies in assorted spellings or neutral labels, named columns whose
    labels contradict their name (counts, decimals) or do not (1/2 codes), interval ages
    that do and do not fit the bands, generic categoricals near max_categorical; with
    `na`, `recode` and `score_categoricals` drawn often."""
    n_cols = draw(st.integers(1, 4))
    n_rows = draw(sampled([3, 10, 25, 60, 150]))
    themes = draw(
        st.lists(
            sampled(["vocab", "vocab", "sex", "race", "age", "people", "generic", "geo"]),
            min_size=n_cols,
            max_size=n_cols,
        )
    )
    names = clean_header([draw(header_names(t)) for t in themes])
    columns = []
    for t in themes:
        if t == "age" and draw(st.booleans()):
            pool = draw(sampled([INTERVALS_FIT, INTERVALS_FIT + INTERVALS, INTERVALS]))
            sub = draw(st.lists(sampled(pool), min_size=1, max_size=8))
            col = [sub[draw(st.integers(0, len(sub) - 1))] for _ in range(n_rows)]
        else:
            col = draw(column_values(n_rows, t))
        columns.append(col)
    opts: dict = {}
    if draw(st.integers(0, 3)):
        opts.update(draw(rewrites(names, columns)))
    if draw(st.booleans()):
        opts["score_categoricals"] = draw(st.booleans())
    if draw(st.integers(0, 2)) == 0:
        opts["min_group_size"] = draw(sampled([0, 1, 2, 5, 10, 100]))
    if draw(st.integers(0, 3)) == 0:
        opts["max_categorical"] = draw(sampled([2, 3, 5, 20]))
    if draw(st.integers(0, 3)) == 0:
        opts["age_bands"] = draw(
            sampled([[0, 10, 20, 30, 40, 50, 60, 70, 80, 90], [0, 18, 65], [0, 50]])
        )
    if draw(st.integers(0, 3)) == 0:
        opts["imbalance_flag"] = draw(sampled([1, 1.5, 2]))
    overrides: dict = {}
    if draw(st.integers(0, 4)) == 0:
        overrides[draw(sampled(names))] = draw(
            sampled(["sex", "race", "nationality", "marital", "age", "ignore", "categorical"])
        )
    records = [names] + [[columns[c][r] for c in range(n_cols)] for r in range(n_rows)]
    pad = draw(st.booleans())

    def cell(value: str) -> str:  # well-formed CSV: these files are about detection
        if any(ch in value for ch in (",", '"', "\r", "\n")) or value.startswith('"'):
            return '"' + value.replace('"', '""') + '"'
        return (" " + value + "\t") if pad and draw(st.integers(0, 5)) == 0 else value

    text = "".join(",".join(cell(v) for v in rec) + "\n" for rec in records)
    chunk = draw(sampled([1, 7, 64, 1 << 20]))
    block = draw(sampled([1, 5, 64, 1 << 20]))
    return Case(text.encode(), overrides, opts, chunk, block)


# ---------------------------------------------------------------------------------------
# SPEC 17 and 21: label base rates, missing data by group, numeric outcomes
# ---------------------------------------------------------------------------------------

LABEL_NAMES = ["y", "label", "outcome", "two_year_recid", "income", "Target", "hired", "y"]
# Label columns named like a dimension: the label must never become one (SPEC 17.2)
LABEL_NAMES_DEMOGRAPHIC = ["sex", "race", "age", "Ethnicity", "region"]
LABEL_VALUES = {
    "01": ["0", "1"],
    "bool": ["false", "true"],
    "yesno": ["No", "Yes"],
    "income": ["<=50K", ">50K"],
    "income_test": ["<=50K", ">50K."],  # adult.test's spelling beside adult.data's
    "codes": ["1", "2", "10"],
    "multi": ["hired", "rejected", "pending", "withdrawn", "Hired"],
    "single": ["1"],
    "many": [f"v{i}" for i in range(25)],
    "tricky": ["😀", "é", "e\u0301", "a,b", '"q"', "\u202eabc", " x ", "ﬃ"],
}
MISSING_COLUMN_NAMES = ["lab", "weight", "A1Cresult", "payer_code", "note", "max_glu_serum"]
# SPEC 21: numeric outcome columns, their names and spellings (and what is not a number)
OUTCOME_NAMES = ["priors_count", "score", "income", "los", "charges", "age"]
OUTCOME_ODD = ["abc", "1,5", "1e200", "-1e-200", "Infinity", "0x10", "1_000", "--1", "١"]
OUTCOME_SPELLINGS = ["{}", "{}", "{}", "+{}", " {} ", "{}.", "{}e0", "{}E+00"]
MISSING_TOKENS_17 = ["", "?", "NA", "null", "None", "unknown", "-"]


@st.composite
def label_missing_cases(draw) -> Case:
    """Small well-formed files for SPEC 17: one or more demographic columns, a label
    column whose positive share depends on the first demographic column's group (two
    values, several values, one value, 25 values, adult.test's spelling, tricky text,
    missing labels), and columns whose missing cells depend on a group; random `label`,
    `positive`, `label_gap`, `missing_by_group`, `missing_gap`, `min_group_size`,
    `na`/`recode` (often aimed at the label) and rarely the input errors of 17.1/17.3."""
    n_rows = draw(sampled([25, 10, 60, 3, 150, 1, 2, 0, 25, 10, 60]))  # rarely none
    n_dims = draw(st.integers(1, 3))
    themes = draw(
        st.lists(
            sampled(["sex", "race", "age", "vocab", "generic", "clean", "clean"]),
            min_size=n_dims,
            max_size=n_dims,
        )
    )
    names: list[str] = []
    columns: list[list[str]] = []
    for t in themes:
        if t == "clean":
            pool = draw(
                sampled(
                    [["M", "F"], ["Male", "Female", "Unknown"], ["A", "B", "C", "D"], RACES[:5]]
                )
            )
            name = draw(sampled(["sex", "gender", "race", "ethnicity", "group"]))
            weights = draw(st.lists(st.integers(1, 9), min_size=len(pool), max_size=len(pool)))
            flat = [v for v, w in zip(pool, weights) for _ in range(w)]
            col = [flat[draw(st.integers(0, len(flat) - 1))] for _ in range(n_rows)]
            if draw(st.integers(0, 3)) == 0:
                col = [
                    draw(sampled(MISSING_TOKENS_17)) if draw(st.integers(0, 9)) == 0 else v
                    for v in col
                ]
        elif t == "age" and draw(st.booleans()):
            name = "age"
            ages = draw(sampled([list(range(0, 95)), [5, 17, 18, 29, 30, 44, 75, 200, -1]]))
            col = [str(draw(sampled(ages))) for _ in range(n_rows)]
        else:
            name = draw(header_names(t))
            col = draw(column_values(n_rows, t))
        names.append(name)
        columns.append(col)
    key = columns[0]
    groups = sorted(set(key))

    # the label, correlated with the first column's group
    shape = draw(sampled(sorted(LABEL_VALUES)))
    values = LABEL_VALUES[shape]
    label_name = draw(
        sampled(LABEL_NAMES + LABEL_NAMES_DEMOGRAPHIC)
        if draw(st.integers(0, 5)) == 0
        else sampled(LABEL_NAMES)
    )
    p_of = dict(
        zip(
            groups,
            draw(
                st.lists(
                    sampled([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]),
                    min_size=len(groups),
                    max_size=len(groups),
                )
            ),
        )
    )
    label_miss = draw(sampled([0.0, 0.0, 0.0, 0.05, 0.3, 1.0]))
    label_col = []
    for g in key:
        u = draw(st.floats(0, 1))
        if draw(st.floats(0, 1)) < label_miss:
            label_col.append(draw(sampled(MISSING_TOKENS_17)))
        elif shape == "many":
            label_col.append(draw(sampled(values)))
        else:
            # the last value is "positive", the others share the rest
            label_col.append(
                values[-1] if u < p_of[g] else values[draw(st.integers(0, len(values) - 1))]
            )
    names.append(label_name)
    columns.append(label_col)

    # columns whose missing cells depend on a group (of a random demographic column)
    for _ in range(draw(st.integers(0, 2))):
        src = columns[draw(st.integers(0, n_dims - 1))]
        src_groups = sorted(set(src))
        q_of = dict(
            zip(
                src_groups,
                draw(
                    st.lists(
                        sampled([0.0, 0.0, 0.05, 0.2, 0.5, 0.9, 1.0]),
                        min_size=len(src_groups),
                        max_size=len(src_groups),
                    )
                ),
            )
        )
        token = draw(sampled(MISSING_TOKENS_17))
        present = draw(sampled([["ok"], ["None", "Norm", ">200"], ["1", "2", "3"]]))
        col = [
            token if draw(st.floats(0, 1)) < q_of[g] else present[i % len(present)]
            for i, g in enumerate(src)
        ]
        names.append(draw(sampled(MISSING_COLUMN_NAMES)))
        columns.append(col)

    # SPEC 21: numeric outcome columns whose mean depends on a group
    outcome_at = []
    for _ in range(draw(sampled([0, 0, 1, 1, 2]))):
        src = columns[draw(st.integers(0, n_dims - 1))]
        src_groups = sorted(set(src))
        mean_of = dict(
            zip(
                src_groups,
                draw(
                    st.lists(
                        sampled([0, 1, 3, 10, -2, 1e6, 0.1]),
                        min_size=len(src_groups),
                        max_size=len(src_groups),
                    )
                ),
            )
        )
        spread = draw(sampled([0, 1, 2.5, 0.001, 1e5]))
        integer = draw(st.booleans())
        odd = draw(sampled([0.0, 0.0, 0.05, 0.3]))
        col = []
        for g in src:
            u = draw(st.floats(-1, 1))
            if draw(st.floats(0, 1)) < odd:
                col.append(draw(sampled(OUTCOME_ODD + MISSING_TOKENS_17)))
                continue
            v = mean_of[g] + u * spread
            text = str(round(v)) if integer else repr(v)
            if integer and text.lstrip("-").isdigit():
                text = draw(sampled(OUTCOME_SPELLINGS)).format(text)
            col.append(text)
        outcome_at.append(len(names))
        names.append(draw(sampled(OUTCOME_NAMES)))
        columns.append(col)

    # column order: mostly as built, sometimes shuffled; rarely past 64 counted columns
    order = list(range(len(names)))
    if draw(st.integers(0, 2)) == 0:
        order = draw(st.permutations(order))
    lead = draw(sampled([0] * 12 + [62, 63, 64, 65]))
    names = [f"k{i}" for i in range(lead)] + [names[i] for i in order]
    columns = [["x"] * n_rows for _ in range(lead)] + [columns[i] for i in order]
    names = clean_header(names)
    label_name = names[lead + order.index(n_dims)]
    outcome_names = [names[lead + order.index(k)] for k in outcome_at]

    opts: dict = {}
    if outcome_names and draw(st.integers(0, 5)):
        opts["outcome"] = [draw(sampled(["", " "])) + o for o in outcome_names]
        if len(opts["outcome"]) == 1 and draw(st.booleans()):
            opts["outcome"] = opts["outcome"][0]
        if draw(st.booleans()):
            opts["outcome_gap"] = draw(sampled([0, 0.2, 0.5, 1, 3]))
        if draw(st.integers(0, 20)) == 7:  # rare input errors of SPEC 21.1
            opts["outcome"] = draw(sampled([["nope"], [outcome_names[0]] * 2, [""], label_name, 5]))
    how = draw(st.integers(0, 19))
    if how < 17:
        opts["label"] = (
            draw(sampled(["", "", "", " ", "\t"])) + label_name + draw(sampled(["", "", " "]))
        )
    elif how == 17:
        opts["label"] = draw(sampled(["nope", names[0]]))
    if "label" in opts or draw(st.integers(0, 9)) == 5:
        present = [v for v in values if v in label_col] or values
        pick = draw(st.integers(0, 9))
        several = shape in ("multi", "codes", "many", "tricky")
        if pick == 9:  # not a value (an input error, SPEC 17.3)
            opts["positive"] = draw(sampled(["zzz", ">50K", "yes", " "]))
        elif (several and pick != 8) or pick in (3, 4, 5):
            opts["positive"] = draw(sampled(present)) + draw(sampled(["", "", " "]))
    if draw(st.booleans()):
        opts["label_gap"] = draw(st.one_of(sampled([0, 0.0, 0.05, 0.1, 0.25, 1]), st.floats(0, 1)))
    if draw(st.booleans()):
        opts["missing_gap"] = draw(st.one_of(sampled([0, 0.0, 0.01, 0.1, 0.3, 1]), st.floats(0, 1)))
    if draw(st.integers(0, 3)) == 0:
        opts["missing_by_group"] = draw(sampled([False, False, True]))
    if draw(st.booleans()):
        opts["min_group_size"] = draw(sampled([0, 1, 2, 3, 5, 10, 30, 100]))
    if "outcome" in opts and "min_group_size" not in opts and draw(st.integers(0, 3)):
        opts["min_group_size"] = draw(sampled([0, 2, 3, 5, 10]))  # gaps measured
    if draw(st.integers(0, 3)) == 0:
        opts.update(draw(rewrites(names, columns)))
    if draw(st.integers(0, 3)) == 0:  # rewrites aimed at the label
        li = names.index(label_name)
        recode = [[label_name, draw(sampled(values)), draw(sampled(values + ["", "NA"]))]]
        if shape == "income_test":
            recode = [[label_name, ">50K.", ">50K"]]
        if isinstance(opts.get("recode"), list):
            seen = {
                (item[0], item[1].strip(" \t"))
                for item in opts["recode"]
                if isinstance(item, list) and len(item) > 1 and isinstance(item[1], str)
            }
            recode = [r for r in recode if (r[0], r[1].strip(" \t")) not in seen]
            opts["recode"] = opts["recode"] + recode
        elif "recode" not in opts:
            opts["recode"] = recode
        if draw(st.booleans()) and "na" not in opts:
            opts["na"] = [[names[li], draw(sampled(["unknown", "-", "None"] + values))]]
    if draw(st.integers(0, 4)) == 0 and len(names) > 1:
        opts["cross"] = draw(st.lists(sampled(names), min_size=2, max_size=2, unique=True))
    if draw(st.integers(0, 30)) == 13:  # rare (hypothesis favours 0)
        bad_key, bad_value = draw(
            sampled(
                [
                    ("label_gap", 1.5),
                    ("label_gap", -0.1),
                    ("missing_gap", 2),
                    ("missing_gap", -1),
                    ("missing_by_group", 1),
                    ("missing_by_group", "yes"),
                    ("label", 5),
                    ("positive", 1),
                ]
            )
        )
        opts[bad_key] = bad_value

    overrides: dict = {}
    r = draw(st.integers(0, 9))
    if r == 3:
        overrides[label_name] = draw(sampled(["sex", "ignore", "categorical"]))
    elif r == 5 and len(names) > n_dims + 1:
        overrides[names[-1]] = "ignore"
    elif r == 7:
        overrides[names[lead]] = draw(sampled(["sex", "race", "age", "categorical"]))
    elif r == 8 and outcome_names and draw(st.integers(0, 3)) == 0:
        overrides[outcome_names[0]] = "age"  # an input error of SPEC 21.1

    def cell(value: str) -> str:
        if any(ch in value for ch in (",", '"', "\r", "\n")) or value.startswith('"'):
            return '"' + value.replace('"', '""') + '"'
        return value

    text = "".join(
        ",".join(cell(v) for v in rec) + "\n"
        for rec in [names] + [[col[r] for col in columns] for r in range(n_rows)]
    )
    chunk = draw(sampled([1, 7, 64, 1024, 1 << 20]))
    block = draw(sampled([1, 5, 64, 1 << 20]))
    return Case(text.encode(), overrides, opts, chunk, block)


# ---------------------------------------------------------------------------------------
# Compare pairs (SPEC 8-10)
# ---------------------------------------------------------------------------------------


def derive(draw, data: bytes) -> bytes:
    """B from A: drop, duplicate or shuffle data lines; sometimes relabel one value."""
    lines = data.splitlines(keepends=True)
    head, body = lines[:1], lines[1:]
    how = draw(sampled(["drop", "resample", "same", "relabel"]))
    if how == "drop" and body:
        keep = draw(st.lists(st.booleans(), min_size=len(body), max_size=len(body)))
        body = [line for line, k in zip(body, keep) if k] or body[:1]
    elif how == "resample" and body:
        idx = draw(st.lists(st.integers(0, len(body) - 1), min_size=1, max_size=2 * len(body)))
        body = [body[i] for i in idx]
    out = b"".join(head + body)
    if how == "relabel":
        out = out.replace(b"F", b"Q").replace(b"White", b"Other")
    return out


compare_opts = st.fixed_dictionaries(
    {},
    optional={
        "psi_epsilon": sampled([0.0001, 0.001, 0.01, 1e-06]),
        "psi_moderate": sampled([0.05, 0.1, 0.2]),
        "psi_significant": sampled([0.25, 0.3, 0.5]),
        "score_drop_flag": sampled([0, 1, 5, 10]),
        "drift_rule": sampled(["test", "psi"]),
    },
)
