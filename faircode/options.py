"""Options with defaults and validation (SPEC.md section 7)."""

from __future__ import annotations

import re
from collections import namedtuple

from .errors import InputError
from .labels import DEFAULT_AGE_BANDS, MISSING_TOKENS

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

#: SPEC 20 audit packs: the four-fifths convention the faircode additions judge an
#: impact ratio against (not a threshold of Local Law 144), their family-wise level, the
#: 2% rule of 6 RCNY § 5-301 as an integer test (count * 50 < n: under 2%), and where the
#: data of a bias audit come from (6 RCNY § 5-302).
AUDIT_RATIO_THRESHOLD = 0.8
AUDIT_ALPHA = 0.05
AUDIT_SMALL_DENOMINATOR = 50
AUDIT_DATA_SOURCES = ("historical", "test")

#: SPEC 1.1 and 2: the options that decide a column's groups (with `--map`'s overrides);
#: `fairness evaluate` takes these and no other (SPEC 12.3).
GROUP_OPTIONS = ("na", "recode", "age_bands", "max_age")

#: SPEC 16: the multiple-testing corrections of proxy hints.
PROXY_CORRECTIONS = ("holm", "bonferroni", "none")
PROXY_KEYS = (
    "proxy_hints",
    "proxy_alpha",
    "proxy_correction",
    "proxy_exact",
    "proxy_permutations",
    "proxy_seed",
    "proxy_with",
)


@named_tuple
class Options(TupleBase):
    """The resolved options (SPEC 7), immutable. A named tuple, not a dataclass: importing
    dataclasses (and inspect) is a tenth of the CLI's start-up."""

    min_share: float = 0.05
    min_group_size: int = 100
    intersection_floor: float = 0.01
    imbalance_flag: float = 3.0
    missing_flag: float = 0.05
    max_age: float = 120
    max_categorical: int = 20
    max_dimension_groups: int = 50
    age_bands: tuple[int, ...] = DEFAULT_AGE_BANDS
    cross: tuple[str, str] | None = None
    names: tuple[str, ...] | None = None
    skip_lines: int = 0
    delimiter: str | None = None
    encoding: str = "utf-8"
    reference_flag: float = 0.05
    psi_epsilon: float = 0.0001
    psi_moderate: float = 0.10
    psi_significant: float = 0.25
    score_drop_flag: float = 5
    share_gap: float = 0.05  # SPEC 18.1: a group's share moved more than this (compare)
    score_categoricals: bool = False
    one_column: bool = False  # SPEC 0.2: a table of one column whose name holds a delimiter
    na: tuple = ()  # SPEC 1.1: a token (str) for every column, or (column, token)
    recode: tuple = ()  # SPEC 1.1: (column, from, to) triples, in order
    reference: list | None = None  # parsed section 9 table; identified by its hash
    # SPEC 16 proxy hints (the `proxy` extra): off by default, and then no other
    # number, key or provenance parameter changes.
    proxy_hints: bool = False
    proxy_alpha: float = 0.05
    proxy_correction: str = "holm"
    proxy_exact: bool = False
    proxy_permutations: int = 9999
    proxy_seed: int = 0
    proxy_with: tuple = ()  # held-out columns: (path, column, key or None) triples
    # SPEC 17: label base rates (with `label`) and missing data by group (default on)
    label: str | None = None
    positive: str | None = None
    label_gap: float = 0.1
    missing_by_group: bool = True
    missing_gap: float = 0.1
    # SPEC 21: numeric outcome columns summarised by group (none by default)
    outcome: tuple = ()
    outcome_gap: float = 0.2
    # SPEC 5 and 18: the score rule (v3, or version 2's and the seed's numbers) and the
    # family-wise error level of every finding's verdict
    score_rule: str = "v3"
    alpha: float = 0.05

    def params(self) -> dict:
        """The resolved knobs that change numbers, for provenance."""
        d = self._asdict()
        d.pop("reference")
        if not self.proxy_hints:  # SPEC 16: without proxy hints, params are as before
            for key in PROXY_KEYS:
                d.pop(key)
        else:
            d["proxy_with"] = [list(t) for t in self.proxy_with]
        if self.label is None:  # SPEC 17.1: a run without a label keeps its params
            d.pop("label")
            d.pop("positive")
        if not self.outcome:  # SPEC 21.1: a run without an outcome keeps its params
            d.pop("outcome")
            d.pop("outcome_gap")
        else:
            d["outcome"] = list(self.outcome)
        if not self.one_column:  # SPEC 0.2: params as before unless it is given
            d.pop("one_column")
        if self.share_gap == 0.05:  # SPEC 18.1: params as before at the default
            d.pop("share_gap")
        d["age_bands"] = list(self.age_bands)
        d["cross"] = list(self.cross) if self.cross else None
        d["names"] = list(self.names) if self.names else None
        d["na"] = [t if isinstance(t, str) else list(t) for t in self.na]
        d["recode"] = [list(t) for t in self.recode]
        return d


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _range_error(name: str, value, valid: str) -> InputError:
    return InputError(f"{_flag(name)}: {value} is out of range ({valid})")


def _number(
    name: str,
    value,
    lo: float | None,
    hi: float | None,
    valid: str,
    integer: bool = False,
    lo_open: bool = False,
) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value) if not integer else int(str(value))
        except (TypeError, ValueError):
            raise _range_error(name, value, valid) from None
    if value != value:  # NaN
        raise _range_error(name, value, valid)
    if integer and value != int(value):
        raise _range_error(name, value, valid)
    if lo is not None and (value < lo or (lo_open and value == lo)):
        raise _range_error(name, value, valid)
    if hi is not None and value > hi:
        raise _range_error(name, value, valid)
    return int(value) if integer else value


def _trimmed(value) -> str | None:
    return value.strip(" \t") if isinstance(value, str) else None


def _na(value) -> tuple:
    """SPEC 1.1 `na`: a token or a list of tokens and [column, token] pairs."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InputError("--na: give a list of tokens and [column, token] pairs")
    out: list = []
    for item in items:
        if isinstance(item, str):
            token = _trimmed(item)
            column = None
        elif isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):
            column, token = item[0], _trimmed(item[1])
        else:
            raise InputError("--na: each item is a token or a [column, token] pair")
        if token is None:
            raise InputError("--na: each item is a token or a [column, token] pair")
        if not token:
            raise InputError("--na: empty token")
        out.append(token if column is None else (column, token))
    return tuple(out)


def _recode(value) -> tuple:
    """SPEC 1.1 `recode`: [column, from, to] triples, or {column: {from: to}}."""
    if isinstance(value, dict):
        items: list = []
        for col, table in value.items():
            if not isinstance(table, dict):
                raise InputError("--recode: each item is [column, from, to]")
            items.extend([col, k, v] for k, v in table.items())
        # by code point: a JS object puts integer-like keys first, so iteration order
        # cannot be the writer's in both engines (SPEC 1.1)
        items.sort(key=lambda item: (str(item[0]), str(item[1])))
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise InputError("--recode: each item is [column, from, to]")
    out: list = []
    seen: set = set()
    for item in items:
        if not (
            isinstance(item, (list, tuple))
            and len(item) == 3
            and all(isinstance(x, str) for x in item)
        ):
            raise InputError("--recode: each item is [column, from, to]")
        col, frm, to = item[0], _trimmed(item[1]), _trimmed(item[2])
        if not frm:
            raise InputError(f"--recode: empty FROM for '{col}'")
        if (col, frm) in seen:
            raise InputError(f"--recode: '{frm}' of '{col}' is given twice")
        seen.add((col, frm))
        out.append((col, frm, to))
    return tuple(out)


def resolve(opts: dict | Options | None) -> Options:
    """Validate a user's option dict and fill defaults; raise InputError on a bad value."""
    if isinstance(opts, Options):
        return opts
    opts = dict(opts or {})
    out: dict = {}
    known = set(Options._fields)
    for key in list(opts):
        if key not in known:
            raise InputError(f"unknown option '{key}' (known: {', '.join(sorted(known))})")
    share_like = ("min_share", "intersection_floor", "missing_flag", "reference_flag")
    for key in share_like:
        if opts.get(key) is not None:
            out[key] = _number(key, opts[key], 0, 1, "0..1")
    if opts.get("imbalance_flag") is not None:
        out["imbalance_flag"] = _number("imbalance_flag", opts["imbalance_flag"], 1, None, ">= 1")
    if opts.get("min_group_size") is not None:
        out["min_group_size"] = _number(
            "min_group_size", opts["min_group_size"], 0, None, "integer >= 0", integer=True
        )
    if opts.get("max_age") is not None:
        out["max_age"] = _number("max_age", opts["max_age"], 0, None, "> 0", lo_open=True)
    if opts.get("max_categorical") is not None:
        out["max_categorical"] = _number(
            "max_categorical", opts["max_categorical"], 2, None, "integer >= 2", integer=True
        )
    if opts.get("max_dimension_groups") is not None:
        out["max_dimension_groups"] = _number(
            "max_dimension_groups",
            opts["max_dimension_groups"],
            2,
            None,
            "integer >= 2",
            integer=True,
        )
    if opts.get("skip_lines") is not None:
        out["skip_lines"] = _number(
            "skip_lines", opts["skip_lines"], 0, None, "integer >= 0", integer=True
        )
    for key in ("psi_epsilon", "psi_moderate", "psi_significant", "share_gap"):
        if opts.get(key) is not None:
            out[key] = _number(key, opts[key], 0, 1, "0..1")
    if opts.get("score_drop_flag") is not None:
        out["score_drop_flag"] = _number(
            "score_drop_flag", opts["score_drop_flag"], 0, 100, "0..100"
        )
    if opts.get("age_bands") is not None:
        bands = opts["age_bands"]
        if isinstance(bands, str):
            bands = [b for b in bands.split(",") if b.strip(" \t")]
        # ASCII digits and space/tab only: int() would also take Unicode digits and
        # whitespace, which the browser engine does not.
        texts = [str(b).strip(" \t") for b in bands]
        if not all(re.fullmatch(r"[+-]?[0-9]+", t) for t in texts):
            raise _range_error(
                "age_bands", ",".join(map(str, bands)), "increasing integers starting at 0"
            )
        edges = tuple(int(t) for t in texts)
        if not edges or edges[0] != 0 or any(b >= c for b, c in zip(edges, edges[1:])):
            raise _range_error(
                "age_bands", ",".join(map(str, edges)), "increasing integers starting at 0"
            )
        out["age_bands"] = edges
    if opts.get("cross") is not None:
        cross = opts["cross"]
        if isinstance(cross, str):
            cross = cross.split(",")
        cross = tuple(str(c).strip(" \t") for c in cross)  # trimmed like header names
        if len(cross) != 2 or not all(cross) or cross[0] == cross[1]:
            raise InputError(
                f"--cross: expected two different column names A,B, got {','.join(cross)}"
            )
        out["cross"] = cross
    if opts.get("names") is not None:
        names = opts["names"]
        if isinstance(names, str):
            names = names.split(",")
        out["names"] = tuple(str(n) for n in names)
        if not out["names"]:
            raise InputError("--names: give at least one column name")
    if opts.get("delimiter") is not None:
        d = opts["delimiter"]
        if d not in DELIMITERS:
            raise InputError(f"--delimiter: {d!r} is not one of , ; tab | :")
        out["delimiter"] = DELIMITERS[d]
    if opts.get("encoding") is not None:
        import codecs  # lazy: loaded already

        try:
            info = codecs.lookup(opts["encoding"])
        except (LookupError, TypeError, ValueError):
            raise InputError(f"--encoding: unknown encoding '{opts['encoding']}'") from None
        if not getattr(info, "_is_text_encoding", True):  # rot13, base64, zlib, hex ...
            raise InputError(
                f"--encoding: '{opts['encoding']}' is not a text encoding; "
                "name the file's character set (e.g. latin-1, cp1252, utf-16)"
            )
        out["encoding"] = opts["encoding"]
    if opts.get("score_categoricals") is not None:
        flag = opts["score_categoricals"]
        if not isinstance(flag, bool):
            raise InputError(f"--score-categoricals: {flag} is not true or false")
        out["score_categoricals"] = flag
    if opts.get("one_column") is not None:
        flag = opts["one_column"]
        if not isinstance(flag, bool):
            raise InputError(f"--one-column: {flag} is not true or false")
        out["one_column"] = flag
    if opts.get("na") is not None:
        out["na"] = _na(opts["na"])
    if opts.get("recode") is not None:
        out["recode"] = _recode(opts["recode"])
    if opts.get("reference") is not None:
        out["reference"] = opts["reference"]
    _proxy_options(opts, out)
    _label_options(opts, out)
    _outcome_options(opts, out)
    _evidence_options(opts, out)
    return Options(**out)


#: SPEC 5: the score rules, the default first.
SCORE_RULES = ("v3", "v2", "seed")


def _evidence_options(opts: dict, out: dict) -> None:
    """SPEC 5 and 18: score_rule and alpha."""
    if opts.get("score_rule") is not None:
        rule = opts["score_rule"]
        if rule not in SCORE_RULES:
            raise InputError(f"--score-rule: {rule!r} is not one of {', '.join(SCORE_RULES)}")
        out["score_rule"] = rule
    if opts.get("alpha") is not None:
        a = _number("alpha", opts["alpha"], 0, 1, "0..1, both excluded", lo_open=True)
        if a == 1:
            raise _range_error("alpha", opts["alpha"], "0..1, both excluded")
        out["alpha"] = a


def _label_options(opts: dict, out: dict) -> None:
    """SPEC 17.1: label, positive and the two gaps."""
    for key in ("label_gap", "missing_gap"):
        if opts.get(key) is not None:
            out[key] = _number(key, opts[key], 0, 1, "0..1")
    if opts.get("missing_by_group") is not None:
        flag = opts["missing_by_group"]
        if not isinstance(flag, bool):
            raise InputError(f"--missing-by-group: {flag} is not true or false")
        out["missing_by_group"] = flag
    if opts.get("label") is not None:
        label = _trimmed(opts["label"])
        if not label:
            raise InputError("--label: give a column name")
        out["label"] = label
    if opts.get("positive") is not None:
        positive = _trimmed(opts["positive"])
        if positive is None:
            raise InputError(f"--positive: {opts['positive']} is not text")
        if "label" not in out:
            raise InputError("--positive needs --label")
        out["positive"] = positive


def _outcome_options(opts: dict, out: dict) -> None:
    """SPEC 21.1: outcome (a column name or a list of them) and outcome_gap."""
    if opts.get("outcome_gap") is not None:
        out["outcome_gap"] = _number("outcome_gap", opts["outcome_gap"], 0, None, ">= 0")
    value = opts.get("outcome")
    if value is None:
        return
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InputError("--outcome: give a column name or a list of them")
    names: list[str] = []
    for item in items:
        name = _trimmed(item)
        if name is None:
            raise InputError(f"--outcome: {item} is not text")
        if not name:
            raise InputError("--outcome: give a column name")
        if name in names:
            raise InputError(f"--outcome: '{name}' is given twice")
        if name == out.get("label"):
            raise InputError(f"--outcome {name}: the label column cannot also be an outcome")
        names.append(name)
    out["outcome"] = tuple(names)


def _proxy_options(opts: dict, out: dict) -> None:
    """SPEC 16: proxy_hints and its knobs (the knobs need proxy_hints)."""
    for key in ("proxy_hints", "proxy_exact"):
        if opts.get(key) is not None:
            if not isinstance(opts[key], bool):
                raise InputError(f"{_flag(key)}: {opts[key]} is not true or false")
            out[key] = opts[key]
    if opts.get("proxy_alpha") is not None:
        out["proxy_alpha"] = _number(
            "proxy_alpha", opts["proxy_alpha"], 0, 1, "0..1, above 0", lo_open=True
        )
    if opts.get("proxy_correction") is not None:
        corr = opts["proxy_correction"]
        if corr not in PROXY_CORRECTIONS:
            raise InputError(
                f"--proxy-correction: '{corr}' is not one of {', '.join(PROXY_CORRECTIONS)}"
            )
        out["proxy_correction"] = corr
    if opts.get("proxy_permutations") is not None:
        out["proxy_permutations"] = _number(
            "proxy_permutations",
            opts["proxy_permutations"],
            1,
            10_000_000,
            "integer 1..10000000",
            integer=True,
        )
    if opts.get("proxy_seed") is not None:
        out["proxy_seed"] = _number(
            "proxy_seed", opts["proxy_seed"], 0, 2**32 - 1, "integer 0..4294967295", integer=True
        )
    if opts.get("proxy_with") is not None:
        items = opts["proxy_with"]
        if not isinstance(items, (list, tuple)):
            raise InputError("--proxy-hints-with: give a list of [path, column, key] items")
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
                raise InputError("--proxy-hints-with: each item is [path, column, key or null]")
            held.append((item[0], item[1], item[2] if len(item) == 3 and item[2] else None))
        out["proxy_with"] = tuple(held)
    given = [k for k in PROXY_KEYS[1:] if opts.get(k) not in (None, (), [], False)]
    if given and not out.get("proxy_hints"):
        raise InputError(f"{_flag(given[0])}: needs --proxy-hints")


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


def parse_held_out(text: str) -> tuple[str, str, str | None]:
    """`PATH=COLUMN[:KEY]` of --proxy-hints-with (SPEC 16); the last `=` splits."""
    path, sep, rest = text.rpartition("=")
    column, _, key = rest.partition(":")
    column, key = column.strip(" \t"), key.strip(" \t")
    if not sep or not path or not column:
        raise InputError(f"--proxy-hints-with: expected PATH=COLUMN[:KEY], got '{text}'")
    return path, column, key or None
