"""Parity of the options' text grammar (SPEC 7): the same CLI flag texts read by the
Python CLI (argparse, ``faircode.cliutil.options_from_args``, ``faircode.options.resolve``)
and by the browser engine's twin (``fromFlags`` then ``resolveOptions``, which the
website's settings panel calls with the text typed into each control) give the same
provenance params or the same one-line message.

The texts: numbers in every spelling (exponents, a point at either end, signs, inf and
nan in any case, hex, octal, binary, underscores, Unicode digits and spaces, integers
past 2**53, the empty text), age bands with empty items and such numbers, `--na` and
`--recode` items with `=`, `:` and `,` anywhere, and the column texts of `--cross`,
`--names`, `--label`, `--positive` and `--outcome`.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from faircode.cli import build_parser
from faircode.cliutil import options_from_args
from faircode.errors import InputError
from faircode.options import BY_NAME, OPTIONS, resolve, spelling

#: The options with a flag that takes text, which both engines read: not the switches,
#: the choices (argparse refuses another text), the encoding (the browser engine reads
#: UTF-8 only) or the proxy hints (Python only).
TEXT_FLAGS = tuple(
    o.name
    for o in OPTIONS
    if o.flag
    and "profile" in o.commands
    and o.kind not in ("boolean", "choice", "encoding")
    and not o.python_only
)
NUMBERS = tuple(n for n in TEXT_FLAGS if BY_NAME[n].kind in ("number", "integer"))

#: Texts the settings sweep typed or set, and their neighbours.
AWKWARD = (
    "5e", "1e400", "1e", "-", "1e20", "1e999", "0x12", "0X12", "0b1", "0o7", "NaN", "nan",
    "-nan", "inf", "-Infinity", "iNf", "+inf", "infinit", "abc", "", " ", "\t", "2", "2.0",
    "2.5", "-5", "-0", "-0.0", "0", "1", "1_0", "1_000", "_1", "١٢", "\u00a07", "7\u00a0",
    " 7", "7 ", "\t7\t", " 7\n", "\n7", "0.5\r", "1.", ".5", ".", "+.5e-3", "1.e5", "1E5",
    "1e+", "e5", "+", "--5", "+-5", "5-", "99999999", "99999999999999999999",
    "9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740991",
    "-9007199254740992", "1e-400", "4.9e-324", "1.7976931348623157e308", "1e308",
    "0.1000000000000000055511151231257827", "007", "+007", "1,5", "½", "0.05", "120",
    "100", "Infinity", "infinity", "nan(1)", "1e1", "18.0",
)  # fmt: skip

#: Age-band texts of the sweep and their neighbours.
BANDS = (
    "0,1e1,30", "0,0x12,30", "0,18.0,30", "0,18,abc", "0,,18", "0,18,", ",0,18", "0, 25 ,50",
    "0,99999999999999999999", "0,9007199254740993,9007199254740994", "0,9007199254740991",
    "0,9007199254740992", "18,0", "0", "", " ", ",", "0,18,30,45,60,75", "+0,+18", "-0,5",
    "0,18,18", "0;18", "0 ,\t18", "0,١٨", "0,18\n", "00,018",
)  # fmt: skip


def python_side(flags: dict) -> dict:
    """The params of the options the CLI reads from these flags, or its message."""
    argv = ["profile", "t.csv"]
    for name, value in flags.items():
        for text in value if isinstance(value, list) else [value]:
            argv.append(f"{BY_NAME[name].flag}={text}")  # `=`: a text may start with -
    args = build_parser("profile").parse_args(argv)
    try:
        with spelling("flag"):  # the CLI's (faircode.cli.main sets it)
            _, opts = options_from_args(args, "profile")
            return {"params": json.loads(json.dumps(resolve(opts).params()))}
    except InputError as exc:
        return {"error": str(exc)}


def js_side(js, flags: dict) -> dict:
    got = js.request({"op": "flags", "flags": flags})
    assert not got.get("internal"), got["error"]
    return {"params": got["result"]} if "result" in got else {"error": got["error"]}


def assert_same(js, flags: dict) -> dict:
    py = python_side(flags)
    assert js_side(js, flags) == py, flags
    return py


@pytest.mark.parametrize("text", AWKWARD)
def test_number_texts_of_the_sweep(js, text):
    for name in NUMBERS:
        assert_same(js, {name: text})


@pytest.mark.parametrize("text", BANDS)
def test_age_band_texts_of_the_sweep(js, text):
    assert_same(js, {"age_bands": text})


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"min_group_size": "5e"}, "--min-group-size: 5e is not an integer (integer >= 0)"),
        ({"min_group_size": "1e400"}, "--min-group-size: 1e400 is not an integer (integer >= 0)"),
        ({"min_group_size": "1e20"}, "--min-group-size: 1e20 is not an integer (integer >= 0)"),
        ({"min_group_size": "-"}, "--min-group-size: - is not an integer (integer >= 0)"),
        (
            {"min_group_size": "99999999999999999999"},
            "--min-group-size: 99999999999999999999 is out of range (integer >= 0)",
        ),
        ({"min_share": "2"}, "--min-share: 2.0 is out of range (0..1)"),
        ({"alpha": "0"}, "--alpha: 0.0 is out of range (0..1, both excluded)"),
        ({"max_age": "0"}, "--max-age: 0.0 is out of range (> 0)"),
        ({"max_age": "0x10"}, "--max-age: 0x10 is not a number (> 0)"),
        (
            {"age_bands": "0,0x12,30"},
            "--age-bands: 0,0x12,30 is out of range (increasing integers starting at 0)",
        ),
        (
            {"age_bands": "0,18,abc"},
            "--age-bands: 0,18,abc is out of range (increasing integers starting at 0)",
        ),
        (
            {"age_bands": "0,,18"},
            "--age-bands: 0,,18 is out of range (increasing integers starting at 0, "
            "separated by single commas)",
        ),
        (
            {"age_bands": "0,99999999999999999999"},
            "--age-bands: 0,99999999999999999999 is out of range "
            "(increasing integers starting at 0)",
        ),
        ({"recode": [":a=b"]}, "--recode: expected COLUMN:FROM=TO[,FROM=TO...], got ':a=b'"),
        ({"recode": ["sex:=x"]}, "--recode: empty FROM for 'sex'"),
        # SPEC 1.1: FROM and TO hold no '=' on the flag; which '=' ends FROM is not guessed
        (
            {"recode": ["income:<=50K.=<=50K"]},
            "--recode: '<=50K.=<=50K' holds '=' more than once, so where FROM ends is "
            "unclear; a label with '=' is recoded only by a [column, from, to] item of "
            "recode (the API or MCP)",
        ),
        (
            {"recode": ["sex:M=a=b,F=f"]},
            "--recode: 'M=a=b' holds '=' more than once, so where FROM ends is unclear; a "
            "label with '=' is recoded only by a [column, from, to] item of recode (the "
            "API or MCP)",
        ),
        ({"na": ["="]}, "--na: empty token"),
        ({"na": ["sex="]}, "--na: empty token"),
        # the first flag refused in table order: age bands' text before min_share's range
        (
            {"min_share": "2", "age_bands": "0,"},
            "--age-bands: 0, is out of range (increasing integers starting at 0, "
            "separated by single commas)",
        ),
    ],
)
def test_the_sweep_messages(js, flags, message):
    assert assert_same(js, flags) == {"error": message}


def test_accepted_texts_give_the_cli_params(js):
    got = assert_same(
        js,
        {
            "min_share": " 0.1 ",
            "min_group_size": "+050",
            "max_age": "1e2",
            "age_bands": "0, 25 ,50",
            "na": ["Other", " sex = U ", "=a=b", ",,,"],
            "recode": ["sex:Male=M,Female=", " race : x = y "],
        },
    )["params"]
    assert got["min_share"] == 0.1 and got["min_group_size"] == 50 and got["max_age"] == 100.0
    assert got["age_bands"] == [0, 25, 50]
    assert got["na"] == ["Other", ["sex", "U"], "a=b", ",,,"]
    assert got["recode"] == [["sex", "Male", "M"], ["sex", "Female", ""], ["race", "x", "y"]]


# ---------------------------------------------------------------------------------------
# Generated texts

DIGITS = st.text("0123456789", min_size=1, max_size=22)
SPACE = st.sampled_from(["", "", "", " ", "\t", "  ", "\n", "\u00a0"])


@st.composite
def number_texts(draw) -> str:
    """A text near the number grammar: sign, digits, point, exponent, padding."""
    sign = draw(st.sampled_from(["", "", "+", "-", "--", "+-"]))
    body = draw(
        st.one_of(
            DIGITS,
            st.builds(lambda a, b: f"{a}.{b}", DIGITS, st.text("0123456789", max_size=8)),
            st.builds(lambda b: f".{b}", st.text("0123456789", max_size=8)),
            st.integers(-(2**64), 2**64).map(str),
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            st.sampled_from(["inf", "Infinity", "nan", "NaN", "0x1F", "0b10", "1_0", "١"]),
        )
    )
    exp = draw(st.sampled_from(["", "", "", "e", "E", "e+", "e-"]))
    if exp:
        exp += draw(st.text("0123", max_size=4))
    return draw(SPACE) + sign + body + exp + draw(SPACE)


TEXTS = st.one_of(
    number_texts(),
    st.sampled_from(AWKWARD),
    st.text(" \t+-.eE0123456789_xXaAnNiIfF", max_size=10),
    st.text(max_size=8),
)
BAND_TEXTS = st.one_of(
    st.sampled_from(BANDS),
    st.lists(st.one_of(number_texts(), st.sampled_from(AWKWARD)), max_size=6).map(",".join),
    st.lists(st.integers(-3, 2**60).map(str), max_size=6).map(",".join),
)
COLUMN_TEXT = st.text(st.sampled_from("ab=:, \t\u00a0x"), max_size=8)
NA_TEXTS = st.lists(
    st.one_of(COLUMN_TEXT, st.sampled_from(["=", "a=", "=b", "a=b", " a =b", ",,,", ""])),
    min_size=1,
    max_size=4,
)
RECODE_TEXTS = st.lists(
    st.one_of(
        st.text(st.sampled_from("ab:=, \t"), max_size=10),
        st.sampled_from(
            [":a=b", "a:=b", "a:b=", "a:b=c,d", "a:b=c,d=e", "a:b=c,,d=e", " a :b=c", "a:b=c=d"]
        ),
    ),
    min_size=1,
    max_size=3,
)
FLAG_VALUES = {
    **dict.fromkeys(NUMBERS, TEXTS),
    "age_bands": BAND_TEXTS,
    "cross": COLUMN_TEXT,
    "names": COLUMN_TEXT,
    "delimiter": st.sampled_from([",", ";", "tab", "\t", "|", ":", "x", "", " ,", "TAB"]),
    "na": NA_TEXTS,
    "recode": RECODE_TEXTS,
    "label": COLUMN_TEXT,
    "positive": COLUMN_TEXT,
    "outcome": st.lists(COLUMN_TEXT, min_size=1, max_size=3),
}
assert set(FLAG_VALUES) == set(TEXT_FLAGS), set(TEXT_FLAGS) ^ set(FLAG_VALUES)


@st.composite
def flag_sets(draw) -> dict:
    names = draw(st.lists(st.sampled_from(TEXT_FLAGS), min_size=1, max_size=4, unique=True))
    return {name: draw(FLAG_VALUES[name]) for name in names}


@given(st.sampled_from(NUMBERS), TEXTS)
def test_generated_number_texts(js, name, text):
    assert_same(js, {name: text})


@given(BAND_TEXTS)
def test_generated_age_bands(js, text):
    assert_same(js, {"age_bands": text})


@given(flag_sets())
def test_generated_flag_sets(js, flags):
    assert_same(js, flags)
