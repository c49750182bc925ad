"""Numeric outcome columns by group (SPEC.md section 21): pure functions of the summary's
exact sums (`Summary.outcomes`) and of the dimensions analyze() found.

Every mean, variance and difference of means is the exact value rounded once (the sums
are integers); intervals are Student's t (a group's mean) and Welch's (a difference of
means), with the t quantile of numerics.t_quantile, so the browser engine gives the
same bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .errors import InputError
from .evidence import Findings, pair_tests
from .groupstats import cell_mapper, crossed_cells
from .numerics import (
    OUTCOME_HUGE,
    OUTCOME_TINY,
    exact_diff,
    exact_mean,
    exact_var,
    fmt,
    rows_text,
    t_quantile,
    t_upper,
    welch_df,
)
from .options import Options, spelled
from .summary import CELL_CAP, GROUP_FLAG_CAP, MAX_GAP_FLAGS, Summary

Mapper = Callable[[str], "str | None"]
Stats = tuple[int, int, int]  # (n, s1, s2): rows, exact sums of values and squares

#: SPEC 21.3: the two-sided level of every interval of this section (95%).
TAIL = 0.025
INTERVAL = "t"  # the block says which interval it gives


def _added(a: Stats | None, b: Stats) -> Stats:
    return b if a is None else (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def decimals(sd: float | None) -> int:
    """Decimals the renderers show means with (SPEC 21.4): three significant digits of
    the column's standard deviation, 0..4; 2 without one."""
    if sd is None or sd == 0:
        return 2
    if sd >= 100:
        return 0
    if sd >= 10:
        return 1
    if sd >= 1:
        return 2
    if sd >= 0.1:
        return 3
    return 4


def moments(st: Stats) -> dict:
    """n, mean, its t interval and sd of one group (SPEC 21.3); unrounded."""
    n, s1, s2 = st
    if n == 0:
        return {"n": 0, "mean": None, "ci_low": None, "ci_high": None, "sd": None}
    mean = exact_mean(n, s1)
    if n < 2:
        return {"n": n, "mean": mean, "ci_low": None, "ci_high": None, "sd": None}
    sd = math.sqrt(exact_var(n, s1, s2))
    half = t_quantile(TAIL, n - 1) * (sd / math.sqrt(n))
    return {"n": n, "mean": mean, "ci_low": mean - half, "ci_high": mean + half, "sd": sd}


def welch(a: Stats, b: Stats) -> tuple[float, float, float, float | None, float]:
    """(mean_a - mean_b, its 95% Welch interval's ends, the Welch df, the standard
    error) of two groups of at least 2 rows (SPEC 21.3). With both variances 0 the
    interval is the point and df is None."""
    d = exact_diff(a[0], a[1], b[0], b[1])
    va = exact_var(*a)
    vb = exact_var(*b)
    se = math.sqrt(va / a[0] + vb / b[0])
    df = welch_df(va, a[0], vb, b[0])
    if df is None:
        return d, d, d, None, 0.0
    half = t_quantile(TAIL, df) * se
    return d, d - half, d + half, df, se


def welch_p(d: float, se: float, df: float | None, threshold: float) -> float:
    """The p of Welch's test that mean_a - mean_b exceeds `threshold`, two-sided
    equivalent (SPEC 21.3): min(1, 2 * P(T > (d - threshold) / se)); 1 when d is not
    above it; 0 when se is 0 (both groups constant) and d is above it."""
    if not d > threshold:
        return 1.0
    if df is None:
        return 0.0
    return min(1.0, 2.0 * t_upper((d - threshold) / se, df))


def _extremes(items: list[tuple[object, Stats]], least: int) -> tuple | None:
    """(highest, lowest) (key, stats, mean) among the compared items (n >= least) by
    mean, the first in order on ties; None with fewer than two. The lowest is never the
    highest: when every mean ties, it is the second compared item."""
    high = low = second = None
    compared = 0
    for key, st in items:
        if st[0] < least:
            continue
        compared += 1
        m = exact_mean(st[0], st[1])
        if compared == 2:
            second = (key, st, m)
        if high is None or m > high[2]:
            high = (key, st, m)
        if low is None or m < low[2]:
            low = (key, st, m)
    if compared < 2:
        return None
    if low[0] == high[0]:  # every compared mean ties: two groups, not one against itself
        low = second
    return high, low


def _mean_alike(items: list[tuple[object, Stats]], low: tuple, least: int) -> list[object]:
    """SPEC 21.3: the compared items' keys, in order, other than the lowest, whose mean
    Welch's 95% interval does not place above the lowest's (at most CELL_CAP)."""
    out = []
    for key, st in items:
        if st[0] >= least and key != low[0] and welch(st, low[1])[1] <= 0:
            out.append(key)
            if len(out) == CELL_CAP:
                break
    return out


def _gap_fields(
    items: list[tuple[object, Stats]],
    ext: tuple | None,
    as_key: Callable,
    threshold: float,
    least: int,
) -> dict:
    if ext is None:
        return {"highest": None, "lowest": None, "max_difference": None, "gap": None}
    high, low = ext
    d, lo, hi, df, _ = welch(high[1], low[1])
    if d > threshold:
        verdict = None  # the finding's, after the family's correction
    else:
        verdict = "possible" if hi > threshold else "within"
    return {
        "highest": as_key(high[0]),
        "lowest": as_key(low[0]),
        "max_difference": d,
        "gap": {
            "difference": d,
            "ci_low": lo,
            "ci_high": hi,
            "df": df,
            "verdict": verdict,
            "lowest_alike": [as_key(k) for k in _mean_alike(items, low, least)],
        },
    }


def _group_entry(st: Stats, count: int, least: int) -> dict:
    return {**moments(st), "missing": count - st[0], "small_group": st[0] < least}


def _no_number(name: str, non_numeric: int) -> str:
    """SPEC 21.1: an outcome column with labels and not one value."""
    rows = "1 row holds" if non_numeric == 1 else f"{non_numeric} rows hold"
    # a number out of 21.2's range is no value either: the message says so (1e200)
    return (
        f"--outcome {name}: no cell is a number ({rows} text, or a number of size above "
        f"{OUTCOME_HUGE:g} or below {OUTCOME_TINY:g}); give a column of numbers, or --na "
        "for the texts that mean missing"
    )


def outcome_blocks(
    summary: Summary,
    dims: list[dict],
    index_of: dict[str, int],
    mappers: dict[int, Mapper],
    intersection: dict | None,
    pair_counts: dict[tuple[str, str], int] | None,
    opts: Options,
    fs: Findings,
) -> list[dict]:
    """The `outcomes` block (a list, one entry per outcome column in the order given);
    its findings and notes go to fs (SPEC 21.3, 18)."""
    out = []
    for name in opts.outcome:
        o = summary.columns.index(name)
        out.append(
            _block(summary, o, name, dims, index_of, mappers, intersection, pair_counts, opts, fs)
        )
    return out


def _block(
    summary: Summary,
    o: int,
    name: str,
    dims: list[dict],
    index_of: dict[str, int],
    mappers: dict[int, Mapper],
    intersection: dict | None,
    pair_counts: dict[tuple[str, str], int] | None,
    opts: Options,
    fs: Findings,
) -> dict:
    tables = summary.outcomes.get(o)
    if tables is None:  # a summary read without --outcome
        raise InputError(
            f"{spelled('--outcome')} {name}: this summary was read without it; read the table again"
        )
    if not tables["n"] and tables["non_numeric"]:
        raise InputError(_no_number(name, tables["non_numeric"]))
    top = moments((tables["n"], tables["s1"], tables["s2"]))
    threshold = opts.outcome_gap * (top["sd"] or 0.0)
    dp = decimals(top["sd"])
    least = max(2, opts.min_group_size)
    out_dims: list[dict] = []
    for dim in dims:
        d = index_of[dim["name"]]
        table = tables["by"].get(d)
        if table is None:
            out_dims.append({"name": dim["name"], "not_counted": True})
            continue
        mapper = mappers[d]
        of: dict[str, Stats] = {}
        for x, st in table.items():
            g = mapper(x)
            if g is not None:
                of[g] = _added(of.get(g), st)
        items = [(g["label"], of.get(g["label"], (0, 0, 0))) for g in dim["groups"]]
        ext = _extremes(items, least)
        groups = [
            {"label": label, **_group_entry(st, g["count"], least)}
            for g, (label, st) in zip(dim["groups"][:CELL_CAP], items)
        ]
        entry = {
            "name": dim["name"],
            **_gap_fields(items, ext, lambda k: k, threshold, least),
            "groups": groups,
        }
        if len(items) > CELL_CAP:
            entry["groups_not_listed"] = len(items) - CELL_CAP
        out_dims.append(entry)
        _gap_findings(
            fs,
            [dim["name"]],
            name,
            [(f"'{k}'", k, st) for k, st in items],
            ext,
            entry["gap"],
            lambda k: [k],
            threshold,
            dp,
            least,
            GROUP_FLAG_CAP,
        )
    inter = None
    if intersection is not None and pair_counts is not None:
        inter = _intersection(
            tables,
            dims,
            intersection,
            pair_counts,
            index_of,
            mappers,
            name,
            threshold,
            dp,
            least,
            fs,
        )
    for count, what in ((tables["missing"], "a missing"), (tables["non_numeric"], "a non-numeric")):
        if count:
            fs.note(
                "outcome_missing",
                f"{name}: {rows_text(count)} with {what} value "
                f"{'is' if count == 1 else 'are'} left out of the means",
            )
    return {
        "column": name,
        "n": top["n"],
        "missing": tables["missing"],
        "non_numeric": tables["non_numeric"],
        "mean": top["mean"],
        "ci_low": top["ci_low"],
        "ci_high": top["ci_high"],
        "sd": top["sd"],
        "interval": INTERVAL,
        "threshold": threshold,
        "decimals": dp,
        "dimensions": out_dims,
        "intersection": inter,
    }


def _gap_findings(
    fs: Findings,
    dims: list[str],
    name: str,
    items: list[tuple[str, object, Stats]],
    ext: tuple | None,
    block: dict | None,
    as_groups: Callable,
    threshold: float,
    dp: int,
    least: int,
    cap: int,
) -> None:
    """The outcome_gap findings (SPEC 21.3, 18): items (quoted text, key, stats) in
    order; each compared one other than the highest is a finding when beyond the
    threshold, and every pair of compared ones counts in the family (`pair_tests`)."""
    where = " x ".join(dims)
    if ext is None:
        fs.note(
            "not_measurable",
            f"{where}: mean {name} gap not measurable: fewer than two groups of "
            f"{rows_text(least)} with a value",
            dims,
        )
        return
    high, low = ext
    high_text = " x ".join(f"'{k}'" for k in as_groups(high[0]))
    listed = more = 0
    fs.tests += pair_tests(sum(1 for item in items if item[2][0] >= least))
    for text, key, st in items:
        if st[0] < least or key == high[0]:
            continue
        d, lo, hi, df, se = welch(high[1], st)
        if not d > threshold:
            continue
        p = welch_p(d, se, df, threshold)
        sink = block if key == low[0] else None
        if listed == cap:
            more += 1
            fs.unlisted(p, sink=sink)
            continue
        listed += 1
        fs.finding(
            "outcome_gap",
            f"{where}: mean {name} {fmt(exact_mean(st[0], st[1]), dp)} for {text} vs "
            f"{fmt(high[2], dp)} for {high_text}",
            dims=dims,
            groups=[*as_groups(key), *as_groups(high[0])],
            value=d,
            n=st[0],
            interval=(lo, hi),
            threshold=threshold,
            p=p,
            sink=sink,
        )
    if more:
        fs.note("more", f"{where}: {more} more mean gaps (the JSON lists all)", dims)


def _intersection(
    tables: dict,
    dims: list[dict],
    intersection: dict,
    pair_counts: dict[tuple[str, str], int],
    index_of: dict[str, int],
    mappers: dict[int, Mapper],
    name: str,
    threshold: float,
    dp: int,
    least: int,
    fs: Findings,
) -> dict:
    a_name, b_name = intersection["dims"]
    ia, ib = index_of[a_name], index_of[b_name]
    table = tables["cells"].get((min(ia, ib), max(ia, ib)), {})
    cell_of = cell_mapper(ia, ib, mappers)
    of: dict[tuple[str, str], Stats] = {}
    for (x, y), st in table.items():
        cell = cell_of(x, y)
        if cell is not None:
            of[cell] = _added(of.get(cell), st)
    keys = crossed_cells(dims, intersection["dims"], pair_counts)
    items = [(k, of.get(k, (0, 0, 0))) for k in keys]
    ext = _extremes(items, least)
    cells = [
        {"a": k[0], "b": k[1], **_group_entry(st, pair_counts[k], least)}
        for k, st in items[:CELL_CAP]
    ]
    entry = {
        "dims": [a_name, b_name],
        **_gap_fields(items, ext, lambda k: [k[0], k[1]], threshold, least),
        "cells": cells,
    }
    if len(items) > CELL_CAP:
        entry["cells_not_listed"] = len(items) - CELL_CAP
    _gap_findings(
        fs,
        [a_name, b_name],
        name,
        [(f"'{k[0]}' x '{k[1]}'", k, st) for k, st in items],
        ext,
        entry["gap"],
        lambda k: [k[0], k[1]],
        threshold,
        dp,
        least,
        MAX_GAP_FLAGS,
    )
    return entry
