"""The NYC Local Law 144 bias-audit pack (SPEC 20.1): `faircode audit ll144`.

The DCWP rules (6 RCNY §§ 5-300 to 5-304) ask a bias audit of an automated employment
decision tool for, per category of sex, of race/ethnicity and of every sex x
race/ethnicity intersection: the number of individuals, the selection rate (a pass /
fail tool) or the scoring rate (a tool that scores: the share scoring above the
sample's median), and the impact ratio, the category's rate over the highest
category's rate. This module computes exactly that table from a file of decisions or
scores, plus, marked as beyond the law's table, each impact ratio's interval and a
verdict against the four-fifths convention with Holm's correction (SPEC 18).

Counting is exact: counts are integers, rates are compared by cross-multiplication,
the 2% rule is ``count * 50 < n``, and a score is a decimal read as a fraction, so the
median and "above it" never depend on binary floating point.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from typing import Any

from .._version import __version__
from ..detect import UNKNOWN_VOCABULARY, fold, kind_from_name
from ..errors import InputError
from ..groupstats import VALUES_SHOWN, _values_text
from ..numerics import Z, holm, katz_interval, round_half_up, search_p
from ..options import (
    AUDIT_ALPHA,
    AUDIT_DATA_SOURCES,
    AUDIT_RATIO_THRESHOLD,
    AUDIT_SMALL_DENOMINATOR,
    advised,
    bool_arg,
    dict_arg,
    number_arg,
    resolve,
    spelled,
    text_arg,
    text_items,
)
from ..profiler import display_name
from ..proxy_stats import round_p
from ..render import FOUND_BY
from ..safetext import capped, shown
from ..scan import _column_cells, _label_rule, _profiled, _rules
from .common import (
    PackResult,
    date_prefix,
    iso_date,
    pack_source,
    provenance_block,
    sex_and_race,
    today,
)
from .ll144doc import counted

LL144_FORMAT_VERSION = 1
#: The pass / fail spellings of a --selected column (trimmed, case-folded).
SELECTED_TRUE = frozenset({"1", "1.0", "true", "t", "yes", "y", "pass", "passed", "selected"})
SELECTED_FALSE = frozenset(
    {"0", "0.0", "false", "f", "no", "n", "fail", "failed", "rejected", "not selected"}
)
#: A score: a decimal number (sign, digits, point, exponent), read exactly.
SCORE_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: What the law's rows mean, per method.
RATE_NAMES = {"selection": "selection rate", "scoring": "scoring rate"}
POSITIVE_MEANS = {"selection": "selected", "scoring": "scored above the median"}
RULES = "6 RCNY §§ 5-300 to 5-304 (DCWP rules of Local Law 144 of 2021)"
EXCLUSION_RULE = (
    "a category under 2% of the analysed individuals (count * 50 < n) may be left out of "
    "the impact ratios (6 RCNY § 5-301): it is neither the highest category nor given a "
    "ratio, and is still listed with its number and rate"
)
ADDITIONS_NOTE = (
    "Beyond the law's table, faircode adds each impact ratio's 95% interval (Katz log) "
    "and a verdict against the four-fifths convention (a convention of US employment "
    "guidance, not a threshold of Local Law 144), with Holm's correction over every "
    "comparison the pack could have made."
)


class Ll144Result(PackResult):
    """``faircode.audit_ll144``'s result (SPEC 20.1)."""

    __slots__ = ()
    command = "audit ll144"

    def __repr__(self) -> str:
        ind = self.get("individuals", {})
        return shown_repr(
            f"Ll144Result({self.get('method')} rates; {ind.get('analysed')} individuals "
            f"analysed, {ind.get('unknown_category')} of unknown category; "
            f"{len(self.get('sex', []))} sex x {len(self.get('race', []))} race/ethnicity "
            "categories)"
        )


def shown_repr(text: str) -> str:
    return shown(text)


# ---- the outcome ------------------------------------------------------------------------


def _selected_rule(col: str, values: tuple[str, ...] | None):
    """label (after 1.1, not missing) -> 1 or 0; an unknown spelling is one error line."""

    def rule(label: str) -> int:
        if values is not None:
            return 1 if label in values else 0
        folded = label.strip(" \t").lower()
        if folded in SELECTED_TRUE:
            return 1
        if folded in SELECTED_FALSE:
            return 0
        raise InputError(
            f"{spelled('--selected')} {col}: '{label}' is not a pass / fail value (1/0, "
            f"true/false, yes/no, pass/fail, selected/rejected); name the selected values "
            f"with {advised('--selected', f'{col}=VALUE[,VALUE]')}, or "
            f"{advised('--recode', f'{col}:{label}=0')}"
        )

    return rule


def _score_of(col: str):
    cache: dict[str, Fraction] = {}

    def rule(label: str) -> Fraction:
        got = cache.get(label)
        if got is None:
            if not SCORE_NUMBER.fullmatch(label):
                raise InputError(
                    f"{spelled('--score')} {col}: '{label}' is not a number (a score is a "
                    f"decimal number); declare it missing with {advised('--na', f'{col}={label}')}"
                )
            got = cache[label] = Fraction(label)
        return got

    return rule


def median(scores: Counter) -> Fraction:
    """The median of a multiset of scores: the middle one, or the mean of the two middle
    ones of an even count (exact)."""
    n = sum(scores.values())
    lo_rank, hi_rank = (n - 1) // 2, n // 2  # 0-based ranks of the middle one or two
    lo = hi = None
    seen = 0
    for value in sorted(scores):
        seen += scores[value]
        if lo is None and seen > lo_rank:
            lo = value
        if seen > hi_rank:
            hi = value
            break
    assert lo is not None and hi is not None
    return (lo + hi) / 2


def _number(x: Fraction) -> int | float:
    """A fraction in the JSON: an integer when it is one, else the nearest float."""
    return int(x) if x.denominator == 1 else float(x)


# ---- the tables ------------------------------------------------------------------------


def _order(totals: dict[str, int]) -> list[str]:
    """Categories by their number descending, then by label (code point), as SPEC 3."""
    return sorted(totals, key=lambda k: (-totals[k], k))


def _r4(x: float | None) -> float | None:
    return None if x is None else round_half_up(x, 4)


def _table(keys: list, cells: dict, n_all: int, exclude: bool) -> tuple[list[dict], Any]:
    """The rows of one table (before their labels are written in), and its highest key.

    ``cells[key] = [n, positive]``. Excluded: ``n * 50 < n_all`` when ``exclude``. The
    highest category is the first of the largest rate (compared exactly) among those
    with n > 0 not excluded; None when there is none."""
    rows = []
    best = None
    for key in keys:
        n, pos = cells.get(key, (0, 0))
        excluded = bool(exclude and n * AUDIT_SMALL_DENOMINATOR < n_all)
        rows.append(
            {
                "n": n,
                "positive": pos,
                "rate": None if n == 0 else _r4(pos / n),
                "impact_ratio": None,
                "excluded": excluded,
                "_key": key,
            }
        )
        if n > 0 and not excluded:
            if best is None or pos * best[1] > best[2] * n:
                best = (key, n, pos)
    if best is not None and best[2] > 0:
        _, bn, bp = best
        for r in rows:
            if r["n"] > 0 and not r["excluded"]:
                r["impact_ratio"] = _r4((r["positive"] * bn) / (r["n"] * bp))
    return rows, best


def _key_text(key: Any) -> str:
    """A category as a note names it: 'Female', or 'Female' x 'Asian'."""
    keys = key if isinstance(key, tuple) else (key,)
    return " x ".join(f"'{capped(k)}'" for k in keys)


def _small_note(table: str, rows: list[dict], best: Any, n_all: int) -> str | None:
    """The note on a table's categories under 2% that are in its impact ratios (no
    --exclude-small; SPEC 20.1), or None when it has none: named with their number of
    individuals (the first VALUES_SHOWN), and said when the highest is one of them."""
    small = [r for r in rows if 0 < r["n"] and r["n"] * AUDIT_SMALL_DENOMINATOR < n_all]
    if not small or best is None or best[2] == 0:
        return None  # no impact ratio rests on them
    named = ", ".join(
        f"{_key_text(r['_key'])} ({counted(r['n'], 'individual')})" for r in small[:VALUES_SHOWN]
    )
    more = f", +{len(small) - VALUES_SHOWN} more" if len(small) > VALUES_SHOWN else ""
    text = (
        f"{table}: {counted(len(small), 'category', 'categories')} under 2% of the "
        f"{n_all:,} individuals in the tables {'is' if len(small) == 1 else 'are'} in the "
        f"impact ratios: {named}{more}"
    )
    if any(r["_key"] == best[0] for r in small):
        text += (
            f"; the highest category, {_key_text(best[0])}, is one of them, so every impact "
            f"ratio of the table is relative to the rate of {counted(best[1], 'individual')}"
        )
    return (
        text + "; 6 RCNY § 5-301 lets the auditor leave them out of the impact ratios "
        "(--exclude-small, with the reason in --exclusion-note)"
    )


def _additions(tables: list[tuple[str, list[dict], Any]], threshold: float, alpha: float):
    """The faircode additions (SPEC 20.1): per compared row its ratio's 95% interval, a
    p-value for "the ratio is below `threshold`", Holm over every ordered pair a table
    could have compared (k (k - 1) per table of k eligible categories: any of them might
    have come out highest), and a verdict."""
    comps: list[dict] = []
    ps: list[float] = []
    family = 0
    for table, rows, best in tables:
        eligible = [r for r in rows if r["n"] > 0 and not r["excluded"]]
        if best is None or best[2] == 0:
            continue
        family += len(eligible) * (len(eligible) - 1)
        bkey, bn, bp = best
        for r in eligible:
            if r["_key"] == bkey:
                continue
            c1, n1 = r["positive"], r["n"]
            ratio = (c1 * bn) / (n1 * bp)
            lo, hi = katz_interval(c1, n1, bp, bn, Z)

            def beyond(z: float, c1=c1, n1=n1, bp=bp, bn=bn) -> bool:
                return katz_interval(c1, n1, bp, bn, z)[1] < threshold

            p = search_p(beyond) if ratio < threshold else 1.0
            ps.append(p)
            comps.append(
                {
                    "table": table,
                    "_key": r["_key"],
                    "_ref": bkey,
                    "impact_ratio": _r4(ratio),
                    "ci_low": _r4(lo),
                    "ci_high": _r4(hi),
                    "_ratio": ratio,
                    "_lo": lo,
                }
            )
    adjusted = holm(ps, max(family, len(ps)))
    confirmed = possible = 0
    for c, adj in zip(comps, adjusted):
        ratio, lo = c.pop("_ratio"), c.pop("_lo")
        if ratio < threshold:
            verdict = "confirmed" if adj < alpha else "possible"
        else:
            verdict = "within" if lo >= threshold else "possible"
        confirmed += verdict == "confirmed"
        possible += verdict == "possible"
        c["p"] = round_p(adj)
        c["verdict"] = verdict
    evidence = {
        "alpha": alpha,
        "correction": "holm",
        "tests": max(family, len(ps)),
        "confirmed": confirmed,
        "possible": possible,
    }
    return comps, evidence


def _read(source, overrides: dict, opts: dict, name: str, extra: list[str], flag: str):
    """The profile's read (scan's): a column the pack names that is not in the header
    is one line naming the pack's option."""
    try:
        return _profiled(source, overrides, opts, name)
    except InputError as exc:
        head = "--map: no column named '"
        text = str(exc)
        for col in extra:
            if text.startswith(f"{head}{col}'"):
                which = flag if col == extra[0] else "--date-column"
                raise InputError(
                    f"{which}: '{col}' is not a column of {name}{text[len(head) + len(col) + 1 :]}"
                ) from None
        raise


#: Which pack role a column's kind (SPEC 1) fills, and the kinds that fill it.
ROLE_OF = {"sex": "sex", "race": "race/ethnicity", "ethnicity": "race/ethnicity"}
ROLE_KINDS = {"sex": ("sex",), "race/ethnicity": ("race", "ethnicity")}


def _not_a_category(profile: dict, col: str, declared: dict, name: str, flag: str | None) -> None:
    """Refuse an outcome (``flag``) or date column (None) that the pack would take as
    its sex or race/ethnicity column (SPEC 20.1): its name gives that kind (SPEC 1) and
    no column of the kind is found by name or --map beside it (read with the outcome set
    aside, a column found by its values alone would stand in for it: COMPAS's
    `c_charge_degree`, F / M, for `sex`)."""
    if declared.get(col) == "ignore":
        return  # the user says it is not a category
    role = ROLE_OF.get(kind_from_name(col) or "")
    if role is None:
        return
    named = [
        d["name"]
        for d in profile["dimensions"]
        if d["kind"] in ROLE_KINDS[role] and d["detected_by"] in ("name", "override")
    ]
    if named:
        return
    raise InputError(
        f"{spelled(flag or '--date-column')}: '{col}' is the {role} column of {name} (by its "
        f"name), and the {'outcome' if flag else 'date column'} cannot also be a category; name "
        f"another column, or declare {advised('--map', f'{col}=ignore')} if '{col}' is not {role}"
    )


# ---- the public function ---------------------------------------------------------------


def audit_ll144(
    source: Any,
    *,
    selected: str | None = None,
    score: str | None = None,
    exclude_small: bool = False,
    exclusion_note: str | None = None,
    audit_date: str | None = None,
    data_source: str | None = None,
    data_note: str | None = None,
    date_column: str | None = None,
    date_range: tuple[str, str] | None = None,
    distribution_date: str | None = None,
    ratio_threshold: float = AUDIT_RATIO_THRESHOLD,
    alpha: float = AUDIT_ALPHA,
    overrides: dict[str, str] | None = None,
    opts: dict | None = None,
    name: str | None = None,
) -> Ll144Result:
    """The Local Law 144 bias-audit table of a file of decisions or scores (SPEC 20.1).

    Sex and race/ethnicity are the columns the profile detects (SPEC 1; ``overrides``
    is ``--map``, ``opts`` the profile's options such as ``na`` and ``recode``).

    Parameters
    ----------
    source : path, glob pattern, list of paths, file object or DataFrame
        The table, read as ``faircode.profile`` reads it.
    selected : str, optional
        ``"COL"``: a pass / fail column (1/0, true/false, yes/no, pass/fail,
        selected/rejected), or ``"COL=V1,V2"``: the values of COL that mean selected.
    score : str, optional
        A column of scores: the scoring rate is the share of a category scoring strictly
        above the median of every score in the file. Give ``selected`` or ``score``.
    exclude_small : bool
        Leave categories under 2% of the analysed individuals out of the impact ratios
        (still listed); needs ``exclusion_note``, the auditor's reason.
    audit_date : str, optional
        ``YYYY-MM-DD``; default today. Pass it for a byte-reproducible pack.
    data_source : {"historical", "test"}, optional
        Where the data come from (6 RCNY § 5-302); ``data_note`` explains it.
    date_column : str, optional
        A column of ISO dates whose first and last give the data's dates; or
        ``date_range=("YYYY-MM-DD", "YYYY-MM-DD")`` as declared (or the text
        ``"FROM,TO"``, as ``--date-range`` reads it; SPEC 0.6).
    distribution_date : str, optional
        The tool's distribution date, as the published summary states it.
    ratio_threshold, alpha : float
        The four-fifths convention (0.8) and the family-wise level (0.05) of the
        faircode additions (a numpy number or a number's text too, SPEC 0.6).

    Returns
    -------
    Ll144Result
        A dict (``faircode/schemas/audit-ll144.schema.json``).

    Examples
    --------
    >>> import pandas as pd, faircode
    >>> df = pd.DataFrame({"sex": ["F", "M"] * 50, "race": ["A"] * 60 + ["B"] * 40,
    ...                    "hired": [1, 0, 1, 1] * 25})
    >>> r = faircode.audit_ll144(df, selected="hired", audit_date="2025-01-31")
    >>> [(row["category"], row["n"], row["rate"], row["impact_ratio"]) for row in r["sex"]]
    [('F', 50, 1.0, 1.0), ('M', 50, 0.5, 0.5)]
    """
    for flag, text in (
        ("--selected", selected),
        ("--score", score),
        ("--exclusion-note", exclusion_note),
        ("--data-note", data_note),
        ("--date-column", date_column),
    ):
        if text is not None:
            text_arg(flag, text)
    exclude_small = bool_arg("--exclude-small", exclude_small)
    if (selected is None) == (score is None):
        raise InputError(
            f"audit ll144: give one of {advised('--selected', 'COL', quote=False)} (pass / fail) "
            f"or {advised('--score', 'COL', quote=False)}"
        )
    if exclusion_note is not None and not exclude_small:
        raise InputError(f"{spelled('--exclusion-note')} goes with {spelled('--exclude-small')}")
    if exclude_small and not (exclusion_note or "").strip(" \t"):
        raise InputError(
            f"{spelled('--exclude-small')} needs "
            f"{advised('--exclusion-note', 'TEXT', quote=False)}: the auditor's reason for "
            "leaving categories under 2% out of the impact ratios (6 RCNY § 5-301)"
        )
    audit_date = iso_date(audit_date, "--audit-date") if audit_date is not None else today()
    if data_source is not None and data_source not in AUDIT_DATA_SOURCES:
        raise InputError(
            f"{spelled('--data-source')}: '{data_source}' is not one of "
            f"{', '.join(AUDIT_DATA_SOURCES)}"
        )
    if distribution_date is not None:
        distribution_date = iso_date(distribution_date, "--distribution-date")
    if date_column is not None and date_range is not None:
        raise InputError(f"give {spelled('--date-column')} or {spelled('--date-range')}, not both")
    if date_range is not None:
        date_range = text_items("--date-range", date_range, commas=True)
        if len(date_range) != 2:
            raise InputError(f"{spelled('--date-range')}: expected FROM,TO")
        first = iso_date(date_range[0], "--date-range")
        last = iso_date(date_range[1], "--date-range")
        if first > last:
            raise InputError(f"{spelled('--date-range')}: {first} is after {last}")
    ratio_threshold = number_arg(
        "--ratio-threshold", ratio_threshold, 0, 1, "0..1, above 0", lo_open=True
    )
    alpha = number_arg("--alpha", alpha, 0, 1, "0..1, both excluded", lo_open=True, hi_open=True)
    method = "selection" if selected is not None else "scoring"
    values: tuple[str, ...] | None = None
    if selected is not None:
        col, sep, rest = selected.partition("=")
        outcome_col = col.strip(" \t")
        if sep:
            values = tuple(v.strip(" \t") for v in rest.split(","))
            if not all(values):
                raise InputError(
                    f"{spelled('--selected')}: expected COL=VALUE[,VALUE], got '{selected}'"
                )
        flag = "--selected"
    else:
        outcome_col = (score or "").strip(" \t")
        flag = "--score"
    if not outcome_col:
        raise InputError(f"{flag}: give a column name")
    overrides = dict_arg("overrides", overrides)
    declared = dict(overrides)
    opts = dict_arg("opts", opts)
    for key in ("label", "positive", "reference", "cross", "proxy_hints"):
        opts.pop(key, None)
    opts["missing_by_group"] = False
    extra = [outcome_col] + ([date_column] if date_column else [])
    for col in extra:
        if overrides.get(col) not in (None, "ignore"):
            raise InputError(
                f"{spelled(flag if col == outcome_col else '--date-column')}: '{col}' is "
                f"declared {advised('--map', f'{col}={overrides[col]}')}; it cannot also be the "
                f"{'outcome' if col == outcome_col else 'date'} column"
            )
        overrides[col] = "ignore"
    name = name or display_name(source)
    source, digest, digest_note = pack_source(source, name)
    summary, profile, checked, options = _read(source, overrides, opts, name, extra, flag)
    for col in extra:
        _not_a_category(profile, col, declared, name, flag if col == outcome_col else None)
    sex_col, race_col, notes = sex_and_race(profile, name)
    dims = {d["name"]: d for d in profile["dimensions"]}
    for what, col, kind in (("sex", sex_col, "sex"), ("race/ethnicity", race_col, "race")):
        if dims[col]["detected_by"] == "values":
            labels = _values_text([capped(g["label"]) for g in dims[col]["groups"]])
            notes.append(
                f"{what} column '{capped(col)}' {FOUND_BY['values']} ({labels}) only, not by "
                f"its name; if it is not {what}, declare the {what} column with --map "
                f"COLUMN={kind} (or --map {capped(col)}=ignore)"
            )
    labels_of = {c: summary.counts[summary.columns.index(c)] or {} for c in (sex_col, race_col)}
    rules, _ = _rules([sex_col, race_col], labels_of, dims, checked, options, [])
    sex_rule, race_rule = rules[sex_col], rules[race_col]
    out_rule = _label_rule(outcome_col, options)
    date_rule = _label_rule(date_column, options) if date_column else None
    read = [sex_col, race_col, outcome_col] + ([date_column] if date_column else [])
    cells: Counter = Counter()
    for part in source if isinstance(source, list) else [source]:  # a pattern's files
        cells.update(_column_cells(part, read, options, part if part is not source else name))

    rows_read = 0
    outcome_missing = 0
    dates: list[str] = []
    undated = 0
    assessed: Counter = Counter()  # (sex or None, race or None, outcome) -> individuals
    to_outcome = _selected_rule(outcome_col, values) if method == "selection" else None
    to_score = _score_of(outcome_col) if method == "scoring" else None
    seen: set[str] = set()  # the outcome's values after 1.1
    # SPEC 20.1: a label saying the value is unknown (1.2) is of unknown category
    said_unknown: tuple[Counter, Counter] = (Counter(), Counter())
    is_unknown: dict[str, bool] = {}

    def says_unknown(label: str) -> bool:
        got = is_unknown.get(label)
        if got is None:
            got = is_unknown[label] = fold(label) in UNKNOWN_VOCABULARY
        return got

    for key, c in cells.items():
        rows_read += c
        if date_rule is not None:
            d = date_rule(key[3])
            if d is None:
                undated += c
            else:
                day = date_prefix(d)
                if day is None:
                    raise InputError(
                        f"{spelled('--date-column')} {date_column}: '{d}' is not a date YYYY-MM-DD"
                    )
                dates.append(day)
        o = out_rule(key[2])
        if o is None:
            outcome_missing += c
            continue
        seen.add(o)
        value: Any = to_outcome(o) if to_outcome is not None else to_score(o)  # type: ignore[misc]
        s = None if key[0] is None else sex_rule(key[0])
        r = None if key[1] is None else race_rule(key[1])
        if s is not None and says_unknown(s):
            said_unknown[0][s] += c
            s = None
        if r is not None and says_unknown(r):
            said_unknown[1][r] += c
            r = None
        assessed[(s, r, value)] += c
    if not assessed:
        raise InputError(f"{spelled(flag)} {outcome_col}: no row of {name} has a value")
    for v in values or ():
        if v not in seen:  # a typo would make every rate 0 and the audit pass silently
            raise InputError(
                f"{spelled('--selected')} {outcome_col}={v}: not a value of '{outcome_col}' "
                f"(values: {_values_text(sorted(seen))})"
            )

    median_value = None
    if method == "scoring":
        scores: Counter = Counter()
        for (_, _, v), c in assessed.items():
            scores[v] += c
        median_value = median(scores)
    unknown_sex = unknown_race = unknown_both = 0
    sex_cells: dict[str, list[int]] = {}
    race_cells: dict[str, list[int]] = {}
    grid: dict[tuple[str, str], list[int]] = {}
    sex_seen: set[str] = set()
    race_seen: set[str] = set()
    for (s, r, v), c in assessed.items():
        if s is not None:
            sex_seen.add(s)
        if r is not None:
            race_seen.add(r)
        if s is None or r is None:
            if s is None and r is None:
                unknown_both += c
            elif s is None:
                unknown_sex += c
            else:
                unknown_race += c
            continue
        pos = v if median_value is None else int(v > median_value)
        for table, key in ((sex_cells, s), (race_cells, r), (grid, (s, r))):
            cell = table.setdefault(key, [0, 0])
            cell[0] += c
            cell[1] += c * pos
    n_all = sum(c[0] for c in sex_cells.values())
    unknown = unknown_sex + unknown_race + unknown_both
    if n_all == 0:
        raise InputError(
            f"no individual of {name} has both a known sex ('{sex_col}') and a known "
            f"race/ethnicity ('{race_col}'); {unknown} of unknown category"
        )
    sex_order = _order({k: sex_cells.get(k, [0])[0] for k in sex_seen})
    race_order = _order({k: race_cells.get(k, [0])[0] for k in race_seen})
    pairs = [(s, r) for s in sex_order for r in race_order]
    sex_rows, sex_best = _table(sex_order, sex_cells, n_all, exclude_small)
    race_rows, race_best = _table(race_order, race_cells, n_all, exclude_small)
    grid_rows, grid_best = _table(pairs, grid, n_all, exclude_small)
    comps, evidence = _additions(
        [
            ("sex", sex_rows, sex_best),
            ("race", race_rows, race_best),
            ("intersection", grid_rows, grid_best),
        ],
        ratio_threshold,
        alpha,
    )

    def labelled(rows: list[dict], best, pair: bool) -> list[dict]:
        out = []
        for r in rows:
            key = r.pop("_key")
            head = {"sex": key[0], "race": key[1]} if pair else {"category": key}
            highest = best is not None and key == best[0] and r["impact_ratio"] is not None
            out.append({**head, **r, "highest": highest})
        return out

    for c in comps:
        key, ref = c.pop("_key"), c.pop("_ref")
        if c["table"] == "intersection":
            c["category"] = list(key)
            c["reference"] = list(ref)
        else:
            c["category"] = key
            c["reference"] = ref
    comps = [
        {
            k: c[k]
            for k in (
                "table",
                "category",
                "reference",
                "impact_ratio",
                "ci_low",
                "ci_high",
                "p",
                "verdict",
            )
        }
        for c in comps
    ]

    excluded = {
        "sex": [r["_key"] for r in sex_rows if r["excluded"]],
        "race": [r["_key"] for r in race_rows if r["excluded"]],
        "intersection": [list(r["_key"]) for r in grid_rows if r["excluded"]],
    }
    for what, col, said in (
        ("sex", sex_col, said_unknown[0]),
        ("race/ethnicity", race_col, said_unknown[1]),
    ):
        if said:
            labels = _values_text(sorted(capped(x) for x in said))
            notes.append(
                f"{what} {labels} in '{capped(col)}' ({counted(sum(said.values()), 'individual')}"
                ") counted in the unknown category, not as a category: the label says the value is "
                f"unknown or not stated (SPEC 1.2); --recode {capped(col)}:LABEL=NAME names one "
                "as a category"
            )
    if outcome_missing:
        notes.append(
            f"{counted(outcome_missing, 'row')} with no "
            f"{'decision' if method == 'selection' else 'score'} in '{outcome_col}' "
            f"{'is' if outcome_missing == 1 else 'are'} left out (not assessed)"
        )
    for table, best in (
        ("sex", sex_best),
        ("race/ethnicity", race_best),
        ("intersectional", grid_best),
    ):
        if best is None:
            notes.append(f"{table}: no category to compare (every category is excluded)")
        elif best[2] == 0:
            notes.append(
                f"{table}: no individual is {POSITIVE_MEANS[method]}; impact ratios are undefined"
            )
    if not exclude_small:
        for table, rows, best in (
            ("sex", sex_rows, sex_best),
            ("race/ethnicity", race_rows, race_best),
            ("intersectional", grid_rows, grid_best),
        ):
            note = _small_note(table, rows, best, n_all)
            if note is not None:
                notes.append(note)
    if method == "scoring" and median_value is not None:
        notes.append(
            "the median is of every score in the file (individuals of unknown category "
            "included); above means strictly greater"
        )
    data_dates = None
    if date_range is not None:
        data_dates = {"from": date_range[0], "to": date_range[1], "column": None}
    elif date_column is not None:
        if not dates:
            raise InputError(f"{spelled('--date-column')} {date_column}: no row has a date")
        data_dates = {"from": min(dates), "to": max(dates), "column": date_column}
        if undated:
            notes.append(
                f"{counted(undated, 'row')} {'has' if undated == 1 else 'have'} no date in "
                f"'{date_column}'"
            )
    audit_params = {
        "selected": outcome_col if method == "selection" else None,
        "selected_values": list(values) if values is not None else None,
        "score": outcome_col if method == "scoring" else None,
        "exclude_small": exclude_small,
        "exclusion_note": exclusion_note if exclude_small else None,
        "audit_date": audit_date,
        "data_source": data_source,
        "data_note": data_note,
        "date_column": date_column,
        "date_range": list(date_range) if date_range is not None else None,
        "distribution_date": distribution_date,
        "ratio_threshold": ratio_threshold,
        "alpha": alpha,
    }
    result = {
        "kind": "faircode.audit.ll144",
        "format_version": LL144_FORMAT_VERSION,
        "title": "Bias audit summary (NYC Local Law 144)",
        "rules": RULES,
        "summary": {
            "file": name,
            "data_source": data_source,
            "data_note": data_note,
            "data_dates": data_dates,
            "audit_date": audit_date,
            "distribution_date": distribution_date,
            "tool": f"faircode {__version__}",
        },
        "method": method,
        "rate_name": RATE_NAMES[method],
        "positive_means": POSITIVE_MEANS[method],
        "outcome": {
            "column": outcome_col,
            "selected_values": list(values) if values is not None else None,
            "median": None if median_value is None else _number(median_value),
            "above": None if median_value is None else "strictly greater than the median",
        },
        "columns": {"sex": sex_col, "race": race_col},
        "individuals": {
            "rows": rows_read,
            "outcome_missing": outcome_missing,
            "assessed": rows_read - outcome_missing,
            "unknown_category": unknown,
            "unknown_sex_only": unknown_sex,
            "unknown_race_only": unknown_race,
            "unknown_both": unknown_both,
            "analysed": n_all,
        },
        "exclusion": {
            "applied": exclude_small,
            "rule": EXCLUSION_RULE,
            "note": exclusion_note if exclude_small else None,
            "excluded": excluded,
        },
        "sex": labelled(sex_rows, sex_best, False),
        "race": labelled(race_rows, race_best, False),
        "intersection": labelled(grid_rows, grid_best, True),
        "faircode_additions": {
            "note": ADDITIONS_NOTE,
            "threshold": ratio_threshold,
            "interval": "katz_log_95",
            "evidence": evidence,
            "comparisons": comps,
        },
        "notes": notes,
        "provenance": provenance_block(
            digest, digest_note, resolve(opts).params(), declared, audit_params
        ),
    }
    return Ll144Result(result, name=name)
