"""Options with defaults and validation (SPEC.md section 7)."""

from __future__ import annotations

import codecs
import math
import re
from collections import namedtuple
from collections.abc import Mapping
from contextvars import ContextVar

from .errors import InputError
from .labels import DEFAULT_AGE_BANDS, MISSING_TOKENS
from .numerics import OUTCOME_HUGE

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import NamedTuple as TupleBase

    def named_tuple(cls):
        return cls
else:
    TupleBase = object

    def named_tuple(cls: type) -> type:
        """``cls`` (annotated fields, defaults trailing) as typing.NamedTuple makes it,
        built on collections.namedtuple: typing.NamedTuple imports typing and compiles
        every annotation, a tenth of the CLI's start-up (issue 12)."""
        own = vars(cls)
        fields = list(own["__annotations__"])
        defaults = [own[f] for f in fields if f in own]
        base = namedtuple(cls.__name__, fields, defaults=defaults, module=cls.__module__)
        skip = {"__dict__", "__weakref__", "__annotations__", *fields}
        body = {k: v for k, v in own.items() if k not in skip}
        return type(cls.__name__, (base,), {**body, "__slots__": ()})


DELIMITERS = {",": ",", ";": ";", "tab": "\t", "\t": "\t", "|": "|", ":": ":"}

# `faircode fairness` defaults (SPEC 12): the largest allowed disparity and the low-n guard.
FAIRNESS_THRESHOLD = 0.1
FAIRNESS_MIN_SAMPLES = 30
#: SPEC 12.7: how the fairness gate decides (the first is the default), and its error.
FAIRNESS_RULES = ("interval", "point")
FAIRNESS_ALPHA = 0.05
#: SPEC 12.10: `auto` (the default) is the pandas engine whether or not Fairlearn is
#: installed: its rates are count ratios rounded once, so a report's value is its own
#: successes / count and the same bytes on every install. Fairlearn's FOR and FDR
#: (1 - NPV, 1 - precision) were not on 13 of COMPAS's 178 rates. The CLI's and the MCP
#: tool's help say so with this text.
FAIRNESS_ENGINE_HELP = (
    "metric engine (auto, the default: pandas; fairlearn: Fairlearn's MetricFrame, "
    "the fairness extra, to cross-check)"
)
#: The engines `evaluate` takes (SPEC-monitor 12.10): --engine's choices, and the list an
#: unknown engine's message gives.
FAIRNESS_ENGINES = ("auto", "pandas", "fairlearn", "spark")
#: ``--encoding`` of `fairness evaluate`, `log` and `label` (SPEC 12.1).
FAIRNESS_ENCODING_HELP = (
    "text encoding of a CSV or JSON lines FILE, e.g. latin-1, cp1252, utf-16 (default utf-8)"
)

#: SPEC 20 audit packs: the four-fifths convention the faircode additions judge an
#: impact ratio against (not a threshold of Local Law 144), their family-wise level, the
#: 2% rule of 6 RCNY § 5-301 as an integer test (count * 50 < n: under 2%), and where the
#: data of a bias audit come from (6 RCNY § 5-302).
AUDIT_RATIO_THRESHOLD = 0.8
AUDIT_ALPHA = 0.05
AUDIT_SMALL_DENOMINATOR = 50
AUDIT_DATA_SOURCES = ("historical", "test")

#: SPEC 16: the multiple-testing corrections of proxy hints.
PROXY_CORRECTIONS = ("holm", "bonferroni", "none")
#: SPEC 5: the score rules, the default first.
SCORE_RULES = ("v3", "v2", "seed")
#: SPEC 8: the drift rules, the default first.
DRIFT_RULES = ("test", "psi")


@named_tuple
class Option(TupleBase):
    """One option of SPEC 7's table: the one home of its name, kind, default, range, CLI
    flag, help, the commands and MCP tools that take it, its provenance rule and its
    website control. The browser engine's ``OPTIONS`` holds the same records
    (tests/parity/test_option_table.py)."""

    name: str
    #: how a value is checked (``resolve``): number, integer, boolean, choice, or one of
    #: the shapes age_bands, pair, names, delimiter, encoding, na, recode, reference,
    #: held_out, column, value, outcome
    kind: str
    default: object = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    #: the valid values as SPEC 7 and the range errors write them
    valid: str = ""
    choices: tuple = ()
    #: the CLI flag (None: API only); its metavar; the help line, without the default
    flag: str | None = None
    metavar: str | None = None
    help: str = ""
    #: the CLI commands and MCP tools that take it
    commands: tuple = ()
    #: computed by the Python engine only (the browser engine refuses it)
    python_only: bool = False
    #: which option must be given with it (None: none)
    needs: str | None = None
    #: provenance params: "always", "never", or an option's name: only while that
    #: option is not at its default (SPEC 10)
    params: str = "always"
    #: the website's control: its element id (None: no control), and for a number the
    #: label and step of the input the page makes from this record
    control: str | None = None
    site_label: str | None = None
    site_step: float | None = None


# The commands and MCP tools an option belongs to (SPEC 7, 11, 12.3, 19, 20).
_MAIN = ("profile", "compare", "profile_dataset", "compare_datasets")
# compare has no outcome comparison (SPEC 8, 21): the outcome options are profile's only
_PROFILE = ("profile", "profile_dataset")
_AUDITS = ("audit ll144", "audit datasheet", "audit art10")
_READING = (*_MAIN, "scan", *_AUDITS, "proxy_hints")
_GROUPS = (*_MAIN, "scan", *_AUDITS, "fairness evaluate")
_SHARE = {"low": 0, "high": 1, "valid": "0..1"}

#: SPEC 7: every option, in the order they are validated and reported in provenance.
OPTIONS: tuple[Option, ...] = (
    Option(
        "min_share",
        "number",
        0.05,
        **_SHARE,
        flag="--min-share",
        metavar="X",
        help="under-represented below this share",
        commands=(*_MAIN, "proxy_hints"),
        control="opt-min_share",
        site_label="minimum share",
        site_step=0.01,
    ),
    Option(
        "min_group_size",
        "integer",
        100,
        low=0,
        valid="integer >= 0",
        flag="--min-group-size",
        metavar="N",
        help="small_group below this count",
        commands=(*_MAIN, "proxy_hints", "scan", "audit art10"),
        control="opt-min_group_size",
        site_label="minimum group size",
        site_step=1,
    ),
    Option(
        "intersection_floor",
        "number",
        0.01,
        **_SHARE,
        flag="--intersection-floor",
        metavar="X",
        help="near-empty intersection cell below this share of rows",
        commands=_MAIN,
        control="opt-intersection_floor",
        site_label="intersection floor",
        site_step=0.005,
    ),
    Option(
        "imbalance_flag",
        "number",
        3.0,
        low=1,
        valid=">= 1",
        flag="--imbalance-flag",
        metavar="X",
        help="flag imbalance ratios from this",
        commands=_MAIN,
        control="opt-imbalance_flag",
        site_label="imbalance flag",
        site_step=0.5,
    ),
    Option(
        "missing_flag",
        "number",
        0.05,
        **_SHARE,
        flag="--missing-flag",
        metavar="X",
        help="flag missing shares from this",
        commands=_MAIN,
        control="opt-missing_flag",
        site_label="missing flag",
        site_step=0.01,
    ),
    Option(
        "max_age",
        "number",
        120,
        low=0,
        low_open=True,
        valid="> 0",
        flag="--max-age",
        metavar="N",
        help="ages above this are implausible",
        commands=_GROUPS,
        control="opt-max_age",
        site_label="maximum age",
        site_step=1,
    ),
    Option(
        "max_categorical",
        "integer",
        20,
        low=2,
        valid="integer >= 2",
        flag="--max-categorical",
        metavar="N",
        help="most distinct values of a generic categorical",
        commands=(*_MAIN, "scan"),
        control="opt-max_categorical",
        site_label="maximum categorical labels",
        site_step=1,
    ),
    Option(
        "max_dimension_groups",
        "integer",
        50,
        low=2,
        valid="integer >= 2",
        flag="--max-groups",
        metavar="N",
        help="drop non-geography dimensions with more groups",
        commands=(*_MAIN, "scan", "audit ll144"),
        control="opt-max_dimension_groups",
        site_label="maximum groups",
        site_step=1,
    ),
    Option(
        "age_bands",
        "age_bands",
        DEFAULT_AGE_BANDS,
        valid="increasing integers starting at 0",
        flag="--age-bands",
        metavar="E,E,...",
        help="age band edges",
        commands=_GROUPS,
        control="opt-age_bands",
    ),
    Option(
        "cross",
        "pair",
        None,
        valid="two different column names",
        flag="--cross",
        metavar="A,B",
        help="the two columns to intersect",
        commands=("profile", "profile_dataset", "audit art10"),
        control="cross-a",
    ),
    Option(
        "names",
        "names",
        None,
        valid="at least one column name",
        flag="--names",
        metavar="A,B,...",
        help="column names for a file with no header",
        commands=_READING,
    ),
    Option(
        "skip_lines",
        "integer",
        0,
        low=0,
        valid="integer >= 0",
        flag="--skip-lines",
        metavar="N",
        help="skip this many lines before the table",
        commands=_READING,
    ),
    Option(
        "delimiter",
        "delimiter",
        None,
        valid="one of , ; tab | :",
        choices=(",", ";", "tab", "|", ":"),
        flag="--delimiter",
        metavar="D",
        help="one of , ; tab | : (default: sniffed)",
        commands=_READING,
        control="delimiter",
    ),
    Option(
        "encoding",
        "encoding",
        "utf-8",
        valid="a text encoding",
        flag="--encoding",
        metavar="NAME",
        help="text encoding",
        commands=_READING,
    ),
    Option(
        "reference_flag",
        "number",
        0.05,
        **_SHARE,
        flag="--reference-flag",
        metavar="X",
        help="flag groups this far below the reference share",
        commands=("profile", "profile_dataset"),
        control="opt-reference_flag",
        site_label="reference flag",
        site_step=0.01,
    ),
    Option("psi_epsilon", "number", 0.0001, **_SHARE, help="the smallest share PSI takes"),
    Option("psi_moderate", "number", 0.10, **_SHARE, help="PSI from which drift is moderate"),
    Option("psi_significant", "number", 0.25, **_SHARE, help="PSI from which drift is significant"),
    Option(
        "score_drop_flag",
        "number",
        5,
        low=0,
        high=100,
        valid="0..100",
        help="flag a score drop of this many points",
    ),
    Option(
        "share_gap",
        "number",
        0.05,
        **_SHARE,
        flag="--share-gap",
        metavar="X",
        help="a group's share moving more than this is a finding",
        commands=("compare", "compare_datasets"),
        params="share_gap",
    ),
    Option(
        "drift_rule",
        "choice",
        "test",
        valid="test, psi",
        choices=DRIFT_RULES,
        flag="--drift-rule",
        help="test: a drift level is confirmed by a chi-squared test; psi: the PSI band alone",
        commands=("compare", "compare_datasets"),
        params="drift_rule",
    ),
    Option(
        "score_categoricals",
        "boolean",
        False,
        valid="true or false",
        flag="--score-categoricals",
        help="also score columns with few labels that are not demographic (version 1's score)",
        commands=(*_MAIN, "scan"),
        control="opt-score_categoricals",
    ),
    Option(
        "one_column",
        "boolean",
        False,
        valid="true or false",
        flag="--one-column",
        help="the table has one column, though its name holds a delimiter",
        commands=(*_MAIN, "scan", *_AUDITS),
        params="one_column",
    ),
    Option(
        "na",
        "na",
        (),
        valid="tokens and [column, token] pairs",
        flag="--na",
        metavar="[COL=]TOKEN",
        help="treat TOKEN as missing (in every column, or in COL); repeatable",
        commands=(*_GROUPS, "proxy_hints"),
        control="opt-na",
    ),
    Option(
        "recode",
        "recode",
        (),
        valid="[column, from, to] triples",
        flag="--recode",
        metavar="COL:FROM=TO[,...]",
        help="rename labels of COL before counting (TO may be empty: missing); repeatable",
        commands=(*_GROUPS, "proxy_hints"),
        control="opt-recode",
    ),
    Option(
        "reference",
        "reference",
        None,
        valid="a parsed section 9 table",
        help="the population baseline, parsed (the CLI's --reference reads one)",
        params="never",
        control="reference",
    ),
    Option(
        "proxy_hints",
        "boolean",
        False,
        valid="true or false",
        flag="--proxy-hints",
        help="test every pair of dimensions for association (the proxy extra: scipy)",
        commands=("profile", "compare"),
        python_only=True,
        params="proxy_hints",
    ),
    Option(
        "proxy_alpha",
        "number",
        0.05,
        low=0,
        high=1,
        low_open=True,
        valid="0..1, above 0",
        flag="--proxy-alpha",
        metavar="X",
        help="significance level",
        commands=("profile", "compare"),
        python_only=True,
        needs="proxy_hints",
        params="proxy_hints",
    ),
    Option(
        "proxy_correction",
        "choice",
        "holm",
        valid="holm, bonferroni, none",
        choices=PROXY_CORRECTIONS,
        flag="--proxy-correction",
        help="multiple-testing correction",
        commands=("profile", "compare"),
        python_only=True,
        needs="proxy_hints",
        params="proxy_hints",
    ),
    Option(
        "proxy_exact",
        "boolean",
        False,
        valid="true or false",
        flag="--proxy-exact",
        help="Fisher's exact test for 2x2 tables, a seeded permutation test otherwise",
        commands=("profile", "compare"),
        python_only=True,
        needs="proxy_hints",
        params="proxy_hints",
    ),
    Option(
        "proxy_permutations",
        "integer",
        9999,
        low=1,
        high=10_000_000,
        valid="integer 1..10000000",
        flag="--proxy-permutations",
        metavar="N",
        help="permutations of --proxy-exact",
        commands=("profile", "compare"),
        python_only=True,
        needs="proxy_hints",
        params="proxy_hints",
    ),
    Option(
        "proxy_seed",
        "integer",
        0,
        low=0,
        high=2**32 - 1,
        valid="integer 0..4294967295",
        flag="--proxy-seed",
        metavar="N",
        help="seed of --proxy-exact",
        commands=("profile", "compare"),
        python_only=True,
        needs="proxy_hints",
        params="proxy_hints",
    ),
    Option(
        "proxy_with",
        "held_out",
        (),
        valid="[path, column, key or null] items",
        flag="--proxy-hints-with",
        metavar="PATH=COLUMN[:KEY]",
        help="also test COLUMN of another CSV, by row order or joined on KEY; repeatable",
        commands=("profile",),
        python_only=True,
        needs="proxy_hints",
        params="proxy_hints",
    ),
    Option(
        "label",
        "column",
        None,
        valid="a column name",
        flag="--label",
        metavar="COL",
        help="the outcome column: positive-label rate per group (never a dimension)",
        commands=_MAIN,
        params="label",
        control="label-col",
    ),
    Option(
        "positive",
        "value",
        None,
        valid="text",
        flag="--positive",
        metavar="VALUE",
        help="the label's positive value (needed when it has more than two values)",
        commands=_MAIN,
        needs="label",
        params="label",
        control="label-positive",
    ),
    Option(
        "label_gap",
        "number",
        0.1,
        **_SHARE,
        flag="--label-gap",
        metavar="X",
        help="flag a group's rate this far below the highest",
        commands=_MAIN,
        control="opt-label_gap",
        site_label="label gap",
        site_step=0.01,
    ),
    Option(
        "missing_by_group",
        "boolean",
        True,
        valid="true or false",
        flag="--no-missing-by-group",
        help="missing data by group (on unless --no-missing-by-group)",
        commands=_MAIN,
        control="opt-missing_by_group",
    ),
    Option(
        "missing_gap",
        "number",
        0.1,
        **_SHARE,
        flag="--missing-gap",
        metavar="X",
        help="flag a column missing this much more often in a group than overall",
        commands=_MAIN,
        control="opt-missing_gap",
        site_label="missing gap",
        site_step=0.01,
    ),
    Option(
        "outcome",
        "outcome",
        (),
        valid="column names",
        flag="--outcome",
        metavar="COL",
        help="a numeric outcome column: mean, t interval and sd per group, Welch interval of "
        "the largest difference (never a dimension); repeatable",
        commands=_PROFILE,
        params="outcome",
        control="outcome-col",
    ),
    Option(
        "outcome_gap",
        "number",
        0.2,
        low=0,
        # times a standard deviation of at most 1.42e140 (21.2's values), the threshold
        # stays finite: a larger gap made it inf (not JSON, and no number to print)
        high=OUTCOME_HUGE,
        valid=f"0..{OUTCOME_HUGE:g}",
        flag="--outcome-gap",
        metavar="X",
        help="flag a difference of means above this many standard deviations of the column",
        commands=_PROFILE,
        params="outcome",
        control="opt-outcome_gap",
        site_label="outcome gap (in sds)",
        site_step=0.05,
    ),
    Option(
        "score_rule",
        "choice",
        "v3",
        valid="v3, v2, seed",
        choices=SCORE_RULES,
        flag="--score-rule",
        help="v3: bounded by the worst dimension, with intervals; v2 or seed: the earlier numbers",
        commands=_MAIN,
    ),
    Option(
        "alpha",
        "number",
        0.05,
        low=0,
        high=1,
        low_open=True,
        high_open=True,
        valid="0..1, both excluded",
        flag="--alpha",
        metavar="A",
        help="family-wise error level of the findings' verdicts (Holm)",
        commands=_MAIN,
        control="opt-alpha",
        site_label="verdicts' error level (alpha)",
        site_step=0.01,
    ),
)


def _params_shape(value):
    """A resolved value as provenance params write it: tuples as lists."""
    if isinstance(value, tuple):
        return [v if isinstance(v, str) else _params_shape(v) for v in value]
    return value


_OptionsBase = namedtuple(
    "Options", [o.name for o in OPTIONS], defaults=[o.default for o in OPTIONS], module=__name__
)


class Options(_OptionsBase):
    """The resolved options (SPEC 7), immutable, one field per record of ``OPTIONS`` with
    its default. A named tuple, not a dataclass: importing dataclasses (and inspect) is a
    tenth of the CLI's start-up."""

    __slots__ = ()

    def params(self) -> dict:
        """The resolved knobs that change numbers, for provenance: each record's
        ``params`` rule (SPEC 10)."""
        d = {}
        for o in OPTIONS:
            if o.params == "never":
                continue
            if o.params != "always":
                rule = BY_NAME[o.params]
                if getattr(self, rule.name) == rule.default:
                    continue
            d[o.name] = _params_shape(getattr(self, o.name))
        return d


#: The records by name.
BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}

#: The Python keyword of a CLI flag where it is not the flag's words with underscores
#: (``spelled``): an option's record name (``--proxy-hints-with`` is ``proxy_with``), and
#: the arguments whose keyword the flag does not spell.
KEYWORD_OF: dict[str, str] = {
    **{o.flag: o.name for o in OPTIONS if o.flag},
    "--map": "overrides",
    "--attr": "attrs",
    "--ref-group": "ref_groups",
    "--db": "store",
}

#: SPEC 1.1 and 2: the options that decide a column's groups (with `--map`'s overrides);
#: `fairness evaluate` takes these and no other (SPEC 12.3).
GROUP_OPTIONS = tuple(o.name for o in OPTIONS if "fairness evaluate" in o.commands)
#: SPEC 16: the proxy-hint options (proxy_hints first, then the knobs that need it).
PROXY_KEYS = tuple(o.name for o in OPTIONS if o.params == "proxy_hints")


def options_of(command: str) -> tuple[Option, ...]:
    """The records a CLI command or an MCP tool takes, in table order."""
    return tuple(o for o in OPTIONS if command in o.commands)


#: How a message names an argument (SPEC 0.6 "Option names in messages"): "keyword" (the
#: Python API and the MCP tools: the name the caller wrote, ``min_group_size``), "flag"
#: (the command line, and the page check and parity runs, whose twin is the browser
#: engine: ``--min-group-size``) or "registry" (a registry file's keys: the keywords, and
#: ``map``). Set for a run by ``spelling``; a context variable, so a server's threads and
#: an in-process CLI run never change another caller's.
SPELLING: ContextVar[str] = ContextVar("faircode_spelling", default="keyword")


class spelling:
    """``with spelling("flag"):`` the messages raised inside name CLI flags (``SPELLING``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __enter__(self) -> None:
        self.token = SPELLING.set(self.kind)

    def __exit__(self, *exc: object) -> None:
        SPELLING.reset(self.token)


def spelled(flag: str) -> str:
    """The name a message gives the argument whose CLI flag is ``flag`` (``--positive``,
    ``--map``), as the surface in use spells it: the flag, or the Python keyword
    (``positive``, ``overrides``; an option's record name). A name that is no flag
    (``block_size``) is itself on every surface."""
    kind = SPELLING.get()
    if kind == "flag" or not flag.startswith("--"):
        return flag
    if kind == "registry" and flag == "--map":
        return "map"  # the registry file's key (SPEC-monitor 15.4 `groups`)
    return KEYWORD_OF.get(flag) or flag[2:].replace("-", "_")


def _flag(name: str) -> str:
    """The name a message gives option ``name``: on the command line its record's flag
    (``--max-groups``; the option's own name for a ``--no-`` switch), on the Python API
    the option's name (``max_groups``): ``spelled``."""
    if SPELLING.get() != "flag":
        return name
    o = BY_NAME.get(name)
    if o is not None and o.flag and not o.flag.startswith("--no-"):
        return o.flag
    return "--" + name.replace("_", "-")


def advised(flag: str, value: object = None, *, cli: str | None = None, quote: bool = True) -> str:
    """How an advice sentence writes giving the argument whose CLI flag is ``flag`` (SPEC
    0.6 "Option names in messages"), as the surface in use spells it: on the command line
    ``--skip-lines 3`` (``cli``, else ``value``, as the shell takes it), on the Python API
    and MCP ``skip_lines=3``, a text as Python writes it (``encoding='cp1252'``) unless
    ``quote`` is false (a placeholder: ``attrs=COL``). `--map`'s ``COLUMN=sex`` becomes
    ``overrides={COLUMN: 'sex'}``, `--recode`'s ``p:FROM=TO`` ``recode=[['p', FROM, TO]]``
    and `--na`'s ``s=x`` ``na=[['s', 'x']]``, the API's shapes, a part in capitals (a
    placeholder) bare. With no value, the name alone."""
    if SPELLING.get() == "flag":
        text = cli if cli is not None else value
        return flag if text is None or text == "" else f"{flag} {text}"
    name = spelled(flag)
    if value is None:
        return name
    if SPELLING.get() == "keyword" and flag in ("--map", "--recode", "--na"):
        part = _placeholder_or_repr
        if flag != "--recode":
            col, _, kind = str(value).partition("=")
            if flag == "--na":
                return f"{name}=[[{part(col)}, {part(kind)}]]"
            return f"{name}={{{part(col)}: {part(kind)}}}"
        col, _, pairs = str(value).partition(":")
        items = [(col, *p.partition("=")[::2]) for p in pairs.split(",")]
        return f"{name}=[{', '.join('[' + ', '.join(map(part, t)) + ']' for t in items)}]"
    return f"{name}={value!r}" if quote and isinstance(value, str) else f"{name}={value}"


def _placeholder_or_repr(text: str) -> str:
    """A part of an advised value: a placeholder in capitals (``COLUMN``, ``FROM``) bare,
    else as Python writes the text."""
    return text if text.isupper() and text.replace("_", "").isalpha() else repr(text)


def _range_error(name: str, value, valid: str) -> InputError:
    return InputError(f"{_flag(name)}: {value} is out of range ({valid})")


#: What a refused number is (SPEC 7): text that is no number, NaN; a fraction or any
#: non-integer for an integer option; else (an infinity, past a bound) out of range.
NOT_A_NUMBER, NOT_AN_INTEGER, OUT_OF_RANGE = "not a number", "not an integer", "out of range"

#: SPEC 7: the text of a number (an option's text, trimmed of ASCII space and tab), the
#: same in both engines: ASCII digits, a point, an exponent, inf, infinity or nan; not
#: float()'s underscores, Unicode digits or other white space, nor JS's 0x12 or "".
NUMBER_TEXT = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)", re.I
)
#: SPEC 7: the text of an integer (an integer option, an age band's edge).
INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
#: SPEC 7: the largest integer an integer option or an age band's edge may be (2**53 - 1,
#: the browser engine's numbers are exact up to it); beyond is out of range.
MAX_INTEGER = 2**53 - 1


def _number_or_why(
    value, lo: float | None, hi: float | None, integer: bool, lo_open: bool
) -> tuple[float, str | None]:
    """(the number, None), or (the value as converted, for the message: float("2") is
    2.0; why it is refused: one of the three above). A text is read by NUMBER_TEXT or
    INTEGER_TEXT."""
    lacking = NOT_AN_INTEGER if integer else NOT_A_NUMBER
    if isinstance(value, str):
        text = value.strip(" \t")
        if not (INTEGER_TEXT if integer else NUMBER_TEXT).fullmatch(text):
            return value, lacking
        value = int(text) if integer else float(text)
    elif isinstance(value, bool) or type(value).__name__ == "bool_":
        return value, lacking  # True is no size: float(True) would be 1.0
    elif not isinstance(value, (int, float)):
        try:  # a number of another type (numpy's, Decimal)
            value = float(value) if not integer else int(str(value))
        except (TypeError, ValueError):
            return value, lacking
    if value != value:  # NaN
        return value, lacking
    if value in (math.inf, -math.inf):  # an infinity is no size
        return value, OUT_OF_RANGE
    if integer and value != int(value):
        return value, NOT_AN_INTEGER
    if integer and abs(value) > MAX_INTEGER:
        return value, OUT_OF_RANGE
    if lo is not None and (value < lo or (lo_open and value == lo)):
        return value, OUT_OF_RANGE
    if hi is not None and value > hi:
        return value, OUT_OF_RANGE
    return (int(value) if integer else value), None


def _number(
    name: str,
    value,
    lo: float | None,
    hi: float | None,
    valid: str,
    integer: bool = False,
    lo_open: bool = False,
) -> float:
    got, why = _number_or_why(value, lo, hi, integer, lo_open)
    if why is not None:
        raise InputError(f"{_flag(name)}: {got} is {why} ({valid})")
    return got


#: What a dict argument of the Python API holds, as its refusal says (SPEC 0.6).
DICT_ARGS = {
    "opts": "option names and values (SPEC 7)",
    "overrides": "column names and kinds, as --map",
}


#: What a refused column argument adds: a frame's columns are matched by their text
#: (SPEC 0.6, 12.1), so an integer column name is given as its text.
COLUMN_HINT = "; give a column's name as a str (a DataFrame's column 0 is '0')"


def dict_arg(name: str, value) -> dict:
    """A dict argument of the Python API (``opts``, ``overrides``), copied; None is {}.
    Anything but a mapping is refused with one line (SPEC 0.6), and so is an
    ``overrides`` key that is not text (`--map: 0 is not text; ...`)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{name}: give a dict of {DICT_ARGS[name]}, not {_a(value)}")
    out = dict(value)
    if name == "overrides":
        for column in out:
            if not isinstance(column, str):
                raise InputError(f"{spelled('--map')}: {column} is not text{COLUMN_HINT}")
    return out


def _a(value) -> str:
    """`a list`, `an int`: the type of a refused argument."""
    kind = type(value).__name__
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def text_arg(flag: str, value) -> str:
    """A text argument of the Python API (a column name, a note): a str, else one line
    naming it as the surface spells it (SPEC 0.6), as ``positive: 1 is not text``."""
    if not isinstance(value, str):
        raise InputError(f"{spelled(flag)}: {value} is not text")
    return value


def bool_arg(flag: str, value) -> bool:
    """A switch of the Python API (``exclude_small``, ``proxy_hints``): True or False (a
    numpy bool too), else `{flag}: {value} is not true or false` (SPEC 0.6): the text
    "no" is truthy, so it would have switched it on."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise InputError(f"{spelled(flag)}: {value} is not true or false")


def text_items(flag: str, value, *, commas: bool) -> list[str]:
    """A list argument of the Python API (SPEC 0.6): a list or tuple of strings, or one
    string read as the CLI reads the flag: split at commas (items trimmed) when the
    flag takes ``A,B,...`` (``commas``), else one item (a repeatable flag's one use)."""
    if isinstance(value, str):
        return [v.strip(" \t") for v in value.split(",")] if commas else [value]
    if not isinstance(value, (list, tuple)):
        form = "a string A,B,..." if commas else "a string"
        raise InputError(f"{spelled(flag)}: {value} is not a list of strings or {form}")
    return [text_arg(flag, v) for v in value]


def number_arg(
    flag: str,
    value,
    lo: float | None,
    hi: float | None,
    valid: str,
    *,
    integer: bool = False,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """A number argument of the Python API, checked as a number option is (SPEC 7): a
    number (a numpy number too) or its text; else `{flag}: {value} is not a number
    ({valid})` (`not an integer` for an integer), and an infinity or a value outside
    lo..hi is `{flag}: {value} is out of range ({valid})`."""
    got, why = _number_or_why(value, lo, hi, integer, lo_open)
    if why is None and hi_open and got == hi:
        why = OUT_OF_RANGE
    if why is not None:
        raise InputError(f"{spelled(flag)}: {value} is {why} ({valid})")
    return got


def _trimmed(value) -> str | None:
    return value.strip(" \t") if isinstance(value, str) else None


def _na(value) -> tuple:
    """SPEC 1.1 `na`: a token or a list of tokens and [column, token] pairs."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InputError(f"{_flag('na')}: give a list of tokens and [column, token] pairs")
    out: list = []
    for item in items:
        if isinstance(item, str):
            token = _trimmed(item)
            column = None
        elif isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):
            column, token = item[0], _trimmed(item[1])
        else:
            raise InputError(f"{_flag('na')}: each item is a token or a [column, token] pair")
        if token is None:
            raise InputError(f"{_flag('na')}: each item is a token or a [column, token] pair")
        if not token:
            raise InputError(f"{_flag('na')}: empty token")
        out.append(token if column is None else (column, token))
    return tuple(out)


def _recode(value) -> tuple:
    """SPEC 1.1 `recode`: [column, from, to] triples, or {column: {from: to}}."""
    # both forms: the API and an MCP call take either
    shape = (
        f"{_flag('recode')}: give [column, from, to] items or {{column: {{from: to}}}}, all strings"
    )
    if isinstance(value, dict):
        items: list = []
        for col, table in value.items():
            if not isinstance(table, dict):
                raise InputError(shape)
            items.extend([col, k, v] for k, v in table.items())
        # by code point: a JS object puts integer-like keys first, so iteration order
        # cannot be the writer's in both engines (SPEC 1.1)
        items.sort(key=lambda item: (str(item[0]), str(item[1])))
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise InputError(shape)
    out: list = []
    seen: set = set()
    for item in items:
        if not (
            isinstance(item, (list, tuple))
            and len(item) == 3
            and all(isinstance(x, str) for x in item)
        ):
            raise InputError(shape)
        col, frm, to = item[0], _trimmed(item[1]), _trimmed(item[2])
        if not frm:
            raise InputError(f"{_flag('recode')}: empty FROM for '{col}'")
        if (col, frm) in seen:
            raise InputError(f"{_flag('recode')}: '{frm}' of '{col}' is given twice")
        seen.add((col, frm))
        out.append((col, frm, to))
    return tuple(out)


def _check_number(o: Option, value, out: dict):
    got = _number(o.name, value, o.low, o.high, o.valid, o.kind == "integer", o.low_open)
    if o.high_open and got == o.high:  # the value as given, as before
        raise _range_error(o.name, value, o.valid)
    return got


def _check_boolean(o: Option, value, out: dict) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{_flag(o.name)}: {value} is not true or false")
    return value


def _check_choice(o: Option, value, out: dict) -> str:
    if value not in o.choices:
        raise InputError(f"{_flag(o.name)}: {value!r} is not one of {', '.join(o.choices)}")
    return value


def _check_age_bands(o: Option, bands, out: dict) -> tuple[int, ...]:
    if isinstance(bands, str):
        bands = [b for b in bands.split(",") if b.strip(" \t")]
    elif not isinstance(bands, (list, tuple)):
        raise _range_error(o.name, bands, o.valid)
    # INTEGER_TEXT: int() would also take Unicode digits, underscores and white space
    texts = [str(b).strip(" \t") for b in bands]
    if not all(INTEGER_TEXT.fullmatch(t) for t in texts):
        raise _range_error(o.name, ",".join(map(str, bands)), o.valid)
    edges = tuple(int(t) for t in texts)
    if (
        not edges
        or edges[0] != 0
        or any(b >= c for b, c in zip(edges, edges[1:]))
        or edges[-1] > MAX_INTEGER
    ):
        raise _range_error(o.name, ",".join(map(str, edges)), o.valid)
    return edges


def _check_pair(o: Option, cross, out: dict) -> tuple[str, str]:
    if isinstance(cross, str):
        cross = cross.split(",")
    elif not isinstance(cross, (list, tuple)):
        raise InputError(f"{_flag('cross')}: expected two different column names A,B, got {cross}")
    cross = tuple(str(c).strip(" \t") for c in cross)  # trimmed like header names
    if len(cross) != 2 or not all(cross) or cross[0] == cross[1]:
        raise InputError(
            f"{_flag('cross')}: expected two different column names A,B, got {','.join(cross)}"
        )
    return cross


def _check_names(o: Option, names, out: dict) -> tuple[str, ...]:
    if isinstance(names, str):
        names = names.split(",")
    elif not isinstance(names, (list, tuple)):
        raise InputError(
            f"{_flag('names')}: {names} is not a list of column names or a string A,B,..."
        )
    names = tuple(str(n) for n in names)
    if not names:
        raise InputError(f"{_flag('names')}: give at least one column name")
    return names


def _check_delimiter(o: Option, d, out: dict) -> str:
    if not isinstance(d, str) or d not in DELIMITERS:
        raise InputError(f"{_flag('delimiter')}: {d!r} is not one of , ; tab | :")
    return DELIMITERS[d]


#: SPEC 0.6: what to give --encoding instead of a name that is no text encoding.
ENCODING_ADVICE = "name the file's character set (e.g. latin-1, cp1252, utf-16)"


def _check_encoding(o: Option, name, out: dict) -> str:
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        raise InputError(
            f"{_flag('encoding')}: unknown encoding '{name}'; {ENCODING_ADVICE}"
        ) from None
    if not getattr(info, "_is_text_encoding", True):  # rot13, base64, zlib, hex ...
        raise InputError(f"{_flag('encoding')}: '{name}' is not a text encoding; {ENCODING_ADVICE}")
    return name


def _check_column(o: Option, value, out: dict) -> str:
    """SPEC 17.1 `label`: a column name, trimmed."""
    label = _trimmed(value)
    if not label:
        raise InputError(f"{_flag(o.name)}: give a column name")
    return label


def _check_value(o: Option, value, out: dict) -> str:
    """SPEC 17.1 `positive`: text, trimmed."""
    got = _trimmed(value)
    if got is None:
        raise InputError(f"{_flag(o.name)}: {value} is not text")
    return got


def _check_outcome(o: Option, value, out: dict) -> tuple[str, ...]:
    """SPEC 21.1: a column name or a list of them, none the label."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InputError(f"{_flag('outcome')}: give a column name or a list of them")
    names: list[str] = []
    for item in items:
        name = _trimmed(item)
        if name is None:
            raise InputError(f"{_flag('outcome')}: {item} is not text")
        if not name:
            raise InputError(f"{_flag('outcome')}: give a column name")
        if name in names:
            raise InputError(f"{_flag('outcome')}: '{name}' is given twice")
        if name == out.get("label"):
            raise InputError(
                f"{_flag('outcome')} {name}: the label column cannot also be an outcome"
            )
        names.append(name)
    return tuple(names)


def _check_held_out(o: Option, items, out: dict) -> tuple:
    """SPEC 16 --proxy-hints-with: [path, column, key or null] items (one string: one
    PATH=COLUMN[:KEY] item, as the repeatable flag's one use; SPEC 0.6)."""
    if isinstance(items, str):
        items = [items]
    if not isinstance(items, (list, tuple)):
        raise InputError(f"{_flag('proxy_with')}: give a list of [path, column, key] items")
    held: list = []
    for item in items:
        if isinstance(item, str):
            item = parse_held_out(item)
        if not (
            isinstance(item, (list, tuple))
            and len(item) in (2, 3)
            and all(isinstance(x, str) or x is None for x in item)
            and item[0]
            and item[1]
        ):
            raise InputError(f"{_flag('proxy_with')}: each item is [path, column, key or null]")
        held.append((item[0], item[1], item[2] if len(item) == 3 and item[2] else None))
    return tuple(held)


def _check_reference(o: Option, value, out: dict):
    """A parsed section 9 table (reference.load_reference): its shape is checked, as
    the readers index it; its values were checked when it was parsed."""
    if not (
        isinstance(value, (list, tuple))
        and all(
            isinstance(e, dict)
            and isinstance(e.get("column"), str)
            and isinstance(e.get("shares"), (list, tuple))
            and all(
                isinstance(g, (list, tuple))
                and len(g) == 2
                and isinstance(g[0], str)
                and isinstance(g[1], (int, float))
                and not isinstance(g[1], bool)
                for g in e["shares"]
            )
            for e in value
        )
    ):
        raise InputError(
            "reference: give the parsed table (faircode.reference.load_reference), "
            "[{'column': COL, 'shares': [[GROUP, SHARE], ...]}, ...]"
        )
    return value


#: How each kind of ``Option`` is checked: (record, value, the options so far) -> value.
CHECKS = {
    "number": _check_number,
    "integer": _check_number,
    "boolean": _check_boolean,
    "choice": _check_choice,
    "age_bands": _check_age_bands,
    "pair": _check_pair,
    "names": _check_names,
    "delimiter": _check_delimiter,
    "encoding": _check_encoding,
    "na": lambda o, value, out: _na(value),
    "recode": lambda o, value, out: _recode(value),
    "column": _check_column,
    "value": _check_value,
    "outcome": _check_outcome,
    "held_out": _check_held_out,
    "reference": _check_reference,
}


def check_option(name: str, value):
    """One option's value checked by its record, as ``resolve`` checks it (for an API
    argument that is an option too, such as scan's ``label`` and ``positive``)."""
    return CHECKS[BY_NAME[name].kind](BY_NAME[name], value, {})


def _given(value) -> bool:
    """An option counts as given for ``needs`` unless it is None, empty or false."""
    return value not in (None, (), [], False)


def resolve(opts: dict | Options | None) -> Options:
    """Validate a user's option dict and fill defaults; raise InputError on a bad value.

    Every option is checked by its record of ``OPTIONS``, in table order: its kind's
    check (range, type, shape), then what it ``needs``. The one place options are
    validated: the readers receive the resolved ``Options``.
    """
    if isinstance(opts, Options):
        return opts
    opts = dict_arg("opts", opts)
    for key in opts:
        if key not in BY_NAME:
            known = ", ".join(sorted(BY_NAME))
            raise InputError(f"unknown option '{key}' (known: {known})")
    out: dict = {}
    for o in OPTIONS:
        value = opts.get(o.name)
        if value is None:
            continue
        out[o.name] = CHECKS[o.kind](o, value, out)
        if o.needs and _given(value) and o.needs not in out:
            needed = _flag(o.needs)
            if o.needs == "label":
                raise InputError(f"{_flag(o.name)} needs {needed}")
            raise InputError(f"{_flag(o.name)}: needs {needed}")
    return Options(**out)


def relabeler(name: str, opts: Options):
    """SPEC 1.1: label -> rewritten label, or None when it becomes missing; None when
    column `name` has neither a declared missing token nor a recode."""
    tokens = {t for t in opts.na if isinstance(t, str)}
    tokens |= {t[1] for t in opts.na if not isinstance(t, str) and t[0] == name}
    table = {frm: to for col, frm, to in opts.recode if col == name}
    if not tokens and not table:
        return None
    missing = MISSING_TOKENS | tokens

    def relabel(label: str) -> str | None:
        out = table.get(label, label)
        return None if out in missing else out

    return relabel


def missing_labels(name: str, opts: Options) -> set[str] | None:
    """The labels of column `name` that SPEC 1.1 turns into missing cells (the 0.4
    tokens among them when a recode maps one elsewhere, they are not), or None when the
    column has no `na` / `recode`. Every such label is a declared token, a recode's
    FROM, or a 0.4 token, so the set is found without reading the column."""
    relabel = relabeler(name, opts)
    if relabel is None:
        return None
    candidates = {t for t in opts.na if isinstance(t, str)}
    candidates |= {t[1] for t in opts.na if not isinstance(t, str) and t[0] == name}
    candidates |= {frm for col, frm, _ in opts.recode if col == name}
    candidates |= MISSING_TOKENS
    return {lab for lab in candidates if relabel(lab) is None}


def keyed_held_out() -> str:
    """A held-out column joined by a key, as the surface in use gives it (SPEC 0.6, 16):
    ``PATH=COLUMN:KEY`` on the command line, the API's item ``[PATH, COLUMN, KEY]``."""
    return "PATH=COLUMN:KEY" if SPELLING.get() == "flag" else "[PATH, COLUMN, KEY]"


def held_out_on_spark() -> str:
    """The refusal of held-out columns on Spark (SPEC 16), as the surface in use spells
    it (SPEC 0.6): ``--proxy-hints-with`` with ``--engine spark`` on the command line,
    ``proxy_with`` by ``faircode.spark`` on the Python API."""
    if SPELLING.get() == "flag":
        where = "(--proxy-hints-with) are not supported with --engine spark"
    else:
        where = f"({spelled('--proxy-hints-with')}) are not supported by faircode.spark"
    return f"held-out columns {where}; join the column to the table in Spark and profile the result"


def parse_held_out(text: str) -> tuple[str, str, str | None]:
    """`PATH=COLUMN[:KEY]` of --proxy-hints-with (SPEC 16); the last `=` splits."""
    path, sep, rest = text.rpartition("=")
    column, _, key = rest.partition(":")
    column, key = column.strip(" \t"), key.strip(" \t")
    if not sep or not path or not column:
        raise InputError(f"{_flag('proxy_with')}: expected PATH=COLUMN[:KEY], got '{text}'")
    return path, column, key or None


#: The kinds whose CLI flag is repeatable: each use adds items (SPEC 1.1, 16, 21.1).
REPEATED = ("na", "recode", "outcome", "held_out")


def na_item(item: str) -> str | list[str]:
    """`--na TOKEN`, `--na COL=TOKEN`, `--na =TOKEN` (SPEC 1.1)."""
    col, sep, token = item.partition("=")
    if not sep:
        return item
    col = col.strip(" \t")
    return token if not col else [col, token]


#: SPEC 1.1: an entry of `--recode` with two `=`: FROM and TO hold no `=` there.
RECODE_AMBIGUOUS = (
    "--recode: '{part}' holds '=' more than once, so where FROM ends is unclear; a label "
    "with '=' is recoded only by a [column, from, to] item of recode (the API or MCP)"
)


def recode_items(item: str) -> list[list[str]]:
    """`--recode COL:FROM=TO[,FROM=TO...]` -> [column, from, to] triples (SPEC 1.1)."""
    col, sep, rest = item.partition(":")
    col = col.strip(" \t")
    out = []
    for part in rest.split(",") if sep else []:
        frm, eq, to = part.partition("=")
        if not eq:
            break
        if "=" in to:  # which '=' ends FROM cannot be told: never guess a label
            raise InputError(RECODE_AMBIGUOUS.format(part=part))
        out.append([col, frm, to])
    else:
        if col and out:
            return out
    raise InputError(f"{_flag('recode')}: expected COLUMN:FROM=TO[,FROM=TO...], got '{item}'")


def from_flags(flags: Mapping) -> dict:
    """The options of CLI flag texts, ``{name: the flag's text, or the list of a repeatable
    flag's texts}``, as ``resolve`` takes them (SPEC 7): each `--na` by ``na_item``, each
    `--recode` by ``recode_items``, an empty item of `--age-bands` or an empty `--names`
    refused, every other text kept for ``resolve`` to read (a number by NUMBER_TEXT). In
    table order, so the first flag refused is the first in OPTIONS; a name that is no
    option is kept, for ``resolve`` to refuse. The CLI's flags and the website's controls
    (the browser engine's ``fromFlags``) are read here."""
    out = {key: value for key, value in flags.items() if key not in BY_NAME}
    for o in OPTIONS:
        value = flags.get(o.name)
        if value is None:
            continue
        if o.kind in REPEATED and isinstance(value, str):
            value = [value]  # one use of the flag
        if o.kind == "na":
            value = [na_item(item) for item in value]
        elif o.kind == "recode":
            value = [t for item in value for t in recode_items(item)]
        elif o.kind in REPEATED:
            value = list(value)
        elif (
            o.kind == "age_bands"
            and isinstance(value, str)
            and any(not b.strip(" \t") for b in value.split(","))
        ):
            raise InputError(
                f"--age-bands: {value} is out of range (increasing integers starting "
                "at 0, separated by single commas)"
            )
        elif o.kind == "names" and isinstance(value, str) and not value.strip(" \t"):
            raise InputError(f"{_flag('names')}: give at least one column name")
        out[o.name] = value
    return out
