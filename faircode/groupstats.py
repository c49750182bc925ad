"""Label base rates and missing data by group (SPEC.md section 17): pure functions of
the summary's label and missing tables and of the dimensions analyze() found."""

from __future__ import annotations

from collections.abc import Callable

from .errors import InputError
from .evidence import Findings, pair_tests
from .numerics import (
    Z,
    katz_interval,
    missing_group_label,
    newcombe,
    pct_not_zero,
    round_half_up,
    rows_text,
    score_p,
    search_p,
    wilson_bounds,
)
from .options import Options, relabeler, spelled
from .summary import CELL_CAP, GROUP_FLAG_CAP, LABEL_CAP, MAX_GAP_FLAGS, PAIR_COLUMNS, Summary

#: SPEC 17.4: what min_ratio is, and what it is not.
RATIO_NOTE = (
    "min_ratio is the lowest group rate over the highest; the four-fifths (0.8) rule of "
    "US employment guidance is a convention, not a legal threshold"
)
VALUES_SHOWN = 10  # label values named in an input error (SPEC 17.3)
NO_LABEL_VALUE = "every cell is missing (after --na and --recode); nothing to give rates of"

Mapper = Callable[[str], "str | None"]


def _wilson(c: int, n: int) -> tuple[float, float]:
    lo, hi = wilson_bounds(c, n)
    return round_half_up(lo, 4), round_half_up(hi, 4)


def _values_text(values: list[str]) -> str:
    shown = ", ".join(f"'{v}'" for v in values[:VALUES_SHOWN])
    return shown + (", ..." if len(values) > VALUES_SHOWN else "")


def label_values(summary: Summary, opts: Options) -> tuple[dict[str, int], str, str]:
    """(value -> rows after 1.1, the positive value, positive_from) of SPEC 17.3;
    InputError when the label cannot give rates."""
    name = opts.label
    i = summary.columns.index(name)
    raw = summary.counts[i]
    if raw is None or summary.is_capped(i) or len(raw) > LABEL_CAP:
        raise InputError(f"--label {name}: more than {LABEL_CAP} distinct values")
    relabel = relabeler(name, opts)
    values: dict[str, int] = {}
    for lab, c in raw.items():
        new = lab if relabel is None else relabel(lab)
        if new is not None:
            values[new] = values.get(new, 0) + c
    ordered = sorted(values)
    if not ordered:
        raise InputError(f"--label {name}: {NO_LABEL_VALUE}")
    if opts.positive is not None:
        if opts.positive not in values:
            raise InputError(
                f"{spelled('--positive')} {opts.positive}: not a value of '{name}' "
                f"(values: {_values_text(ordered)})"
            )
        return values, opts.positive, "option"
    if len(ordered) != 2:
        raise InputError(
            f"{spelled('--label')} {name}: {len(ordered)} value{'' if len(ordered) == 1 else 's'}; "
            f"name the positive one with {spelled('--positive')} "
            f"(values: {_values_text(ordered)})"
        )
    return values, ordered[1], "larger_of_two"


def _rate_entry(n: int, positive: int, count: int, min_size: int) -> dict:
    if n:
        lo, hi = _wilson(positive, n)
        rate: float | None = round_half_up(positive / n, 4)
    else:
        rate = lo = hi = None  # type: ignore[assignment]
    return {
        "n": n,
        "positive": positive,
        "rate": rate,
        "ci_low": lo,
        "ci_high": hi,
        "label_missing": count - n,
        "small_group": n < min_size,
    }


def _extremes(items: list[tuple[object, int, int]], min_size: int) -> tuple | None:
    """(highest (key, n, positive), lowest (key, n, positive)) over the compared items
    (key, n, positive): those with n >= max(1, min_size), in order (SPEC 17.4); None
    with fewer than two compared (no fallback to smaller groups). The lowest is never
    the highest: when every rate ties, it is the second compared item."""
    least = max(1, min_size)
    compared = [t for t in items if t[1] >= least]
    if len(compared) < 2:
        return None
    high = low = None
    for t in compared:
        r = t[2] / t[1]
        if high is None or r > high[2] / high[1]:
            high = t
        if low is None or r < low[2] / low[1]:
            low = t
    if low is high:  # every compared rate ties: two groups, not one against itself
        low = compared[1]
    return high, low


def _gap_p(high: tuple, item: tuple, gap: float) -> float:
    """search_p of Newcombe's lower bound of rate(high) - rate(item) above gap (SPEC 18)."""
    return search_p(lambda z: newcombe(high[2], high[1], item[2], item[1], z)[0] > gap)


def _alike(items: list[tuple[object, int, int]], low: tuple, least: int) -> list[object]:
    """SPEC 17.4: the compared items (key, n, positive), in order, other than the lowest,
    whose rate Newcombe's 95% interval does not place above the lowest's (at most
    CELL_CAP): the groups the data do not tell apart from the worst-off one."""
    out = []
    for t in items:
        if t[1] >= least and t is not low and newcombe(t[2], t[1], low[2], low[1], Z)[0] <= 0:
            out.append(t[0])
            if len(out) == CELL_CAP:
                break
    return out


def _summary_fields(
    items: list[tuple[object, int, int]],
    ext: tuple | None,
    as_key: Callable,
    gap: float,
    least: int,
) -> dict:
    if ext is None:
        return {
            "highest": None,
            "lowest": None,
            "max_difference": None,
            "min_ratio": None,
            "gap": None,
        }
    high, low = ext
    hr, lr = high[2] / high[1], low[2] / low[1]
    lo, hi = newcombe(high[2], high[1], low[2], low[1], Z)
    # a group with none or all positive: Haldane-Anscombe, not Katz's [1, 1] or nothing
    ratio = None if high[2] == 0 else katz_interval(low[2], low[1], high[2], high[1], Z)
    if hr - lr > gap:
        verdict = None  # the finding's, after the family's correction
    else:
        verdict = "possible" if hi > gap else "within"
    return {
        "highest": as_key(high[0]),
        "lowest": as_key(low[0]),
        "max_difference": round_half_up(hr - lr, 4),
        "min_ratio": round_half_up(lr / hr, 4) if hr > 0 else None,
        "gap": {
            "difference": round_half_up(hr - lr, 4),
            "ci_low": round_half_up(lo, 4),
            "ci_high": round_half_up(hi, 4),
            "ratio_ci_low": None if ratio is None else round_half_up(ratio[0], 4),
            "ratio_ci_high": None if ratio is None else round_half_up(ratio[1], 4),
            "verdict": verdict,
            "lowest_alike": [as_key(k) for k in _alike(items, low, least)],
        },
    }


def label_rates(
    summary: Summary,
    dims: list[dict],
    index_of: dict[str, int],
    mappers: dict[int, Mapper],
    intersection: dict | None,
    pair_counts: dict[tuple[str, str], int] | None,
    opts: Options,
    fs: Findings,
) -> dict:
    """The `label_rates` block; its findings and notes go to fs (SPEC 17.4, 18)."""
    values, positive, positive_from = label_values(summary, opts)
    name = opts.label
    relabel = relabeler(name, opts)
    min_size = opts.min_group_size
    gap = opts.label_gap
    head = f"{name}={positive}"
    n_all = sum(values.values())
    pos_all = values.get(positive, 0)
    top = _rate_entry(n_all, pos_all, summary.n_rows, min_size)
    out_dims: list[dict] = []

    def outcome(lab: str) -> int:
        """0: label missing after 1.1, 1: negative, 2: positive."""
        new = lab if relabel is None else relabel(lab)
        return 0 if new is None else 2 if new == positive else 1

    for dim in dims:
        d = index_of[dim["name"]]
        table = summary.label_pairs.get(d)
        if table is None:
            out_dims.append({"name": dim["name"], "not_counted": True})
            continue
        mapper = mappers[d]
        n_of: dict[str | None, int] = {}
        pos_of: dict[str | None, int] = {}
        for (x, lab), c in table.items():
            # None: the missing group (D missing as read, after 1.1, or an implausible age)
            g = None if x is None else mapper(x)
            o = outcome(lab)
            if o == 0:
                continue
            n_of[g] = n_of.get(g, 0) + c
            if o == 2:
                pos_of[g] = pos_of.get(g, 0) + c
        items = [
            (g["label"], n_of.get(g["label"], 0), pos_of.get(g["label"], 0)) for g in dim["groups"]
        ]
        ext = _extremes(items, min_size)
        groups = []
        for g, (label, n, pos) in zip(dim["groups"][:CELL_CAP], items):
            groups.append({"label": label, **_rate_entry(n, pos, g["count"], min_size)})
        entry = {
            "name": dim["name"],
            **_summary_fields(items, ext, lambda k: k, gap, max(1, min_size)),
            "groups": groups,
        }
        if len(items) > CELL_CAP:  # a 30,000-zip dimension: the first 1,000 (SPEC 17.4)
            entry["groups_not_listed"] = len(items) - CELL_CAP
        if dim["missing_count"]:  # the rows without a group: shown, never compared
            k = dim["missing_count"]
            entry["missing_group"] = {
                "count": k,
                **_rate_entry(n_of.get(None, 0), pos_of.get(None, 0), k, min_size),
            }
        out_dims.append(entry)
        _gap_findings(
            fs,
            [dim["name"]],
            head,
            [(f"'{k}'", k, n, p) for k, n, p in items],
            ext,
            entry["gap"],
            lambda k: [k],
            opts,
            GROUP_FLAG_CAP,
        )
    inter = None
    if intersection is not None and pair_counts is not None:
        inter = _intersection_rates(
            summary, dims, intersection, pair_counts, index_of, mappers, outcome, opts, head, fs
        )
    if top["label_missing"]:
        fs.note(
            "label_missing",
            f"{name}: {rows_text(top['label_missing'])} with a missing label "
            f"{'is' if top['label_missing'] == 1 else 'are'} left out of the rates",
        )
    block = {
        "label": name,
        "positive": positive,
        "positive_from": positive_from,
        "n": n_all,
        "positive_count": pos_all,
        "rate": top["rate"],
        "ci_low": top["ci_low"],
        "ci_high": top["ci_high"],
        "label_missing": top["label_missing"],
        "ratio_note": RATIO_NOTE,
        "dimensions": out_dims,
        "intersection": inter,
    }
    return block


def _gap_findings(
    fs: Findings,
    dims: list[str],
    head: str,
    items: list[tuple[str, object, int, int]],
    ext: tuple | None,
    block: dict | None,
    as_groups: Callable,
    opts: Options,
    cap: int,
) -> None:
    """The label_gap findings of SPEC 17.4 and 18: items (quoted text, key, n, positive)
    in order; each compared one other than the highest is a finding when beyond the gap,
    and every pair of compared ones counts in the family (`pair_tests`)."""
    where = " x ".join(dims)
    if ext is None:
        fs.note(
            "not_measurable",
            f"{where}: label-rate gap not measurable: fewer than two groups of "
            f"{rows_text(max(1, opts.min_group_size))}",
            dims,
        )
        return
    high, low = ext
    high_rate = high[2] / high[1]
    high_text = " x ".join(f"'{k}'" for k in as_groups(high[0]))
    least = max(1, opts.min_group_size)
    gap = opts.label_gap
    listed = more = 0
    fs.tests += pair_tests(sum(1 for item in items if item[2] >= least))
    for text, key, n, pos in items:
        if n < least or key == high[0]:
            continue
        rate = pos / n
        if not high_rate - rate > gap:
            continue
        p = _gap_p(high, (key, n, pos), gap)
        if listed == cap:
            more += 1
            fs.unlisted(p, sink=block if key == low[0] else None)
            continue
        listed += 1
        lo, hi = newcombe(high[2], high[1], pos, n, Z)
        fs.finding(
            "label_gap",
            # SPEC 17.4 (8's rule): a rate of some rows but not all never reads 0 or 100
            f"{where}: {head} rate {pct_not_zero(rate, int(pos > 0), pos < n)}% for {text} vs "
            f"{pct_not_zero(high_rate, int(high[2] > 0), high[2] < high[1])}% for {high_text}",
            dims=dims,
            groups=[*as_groups(key), *as_groups(high[0])],
            value=high_rate - rate,
            n=n,
            interval=(lo, hi),
            threshold=gap,
            p=p,
            sink=block if key == low[0] else None,
        )
    if more:
        fs.note("more", f"{where}: {more} more label-rate gaps (the JSON lists all)", dims)


def cell_mapper(
    ia: int, ib: int, mappers: dict[int, Mapper]
) -> Callable[[str, str], tuple[str, str] | None]:
    """The cell (group of A, group of B) of the labels (x, y) of an entry of a pair table
    of columns ia (A) and ib (B), which holds the lower column's label first; None when
    either label has no group (missing after 1.1, an implausible age)."""
    ma, mb = mappers[ia], mappers[ib]
    swap = ia > ib

    def cell_of(x: str, y: str) -> tuple[str, str] | None:
        ga, gb = (ma(y), mb(x)) if swap else (ma(x), mb(y))
        return None if ga is None or gb is None else (ga, gb)

    return cell_of


def crossed_cells(
    dims: list[dict], pair: list[str], pair_counts: dict[tuple[str, str], int]
) -> list[tuple[str, str]]:
    """The intersection's cells (group of A, group of B) with at least one row, in A's
    group order then B's (SPEC 17.4, 21.3): never all of A x B, which can be 10^8."""
    a_name, b_name = pair
    dim_a = next(d for d in dims if d["name"] == a_name)
    dim_b = next(d for d in dims if d["name"] == b_name)
    rank_a = {g["label"]: k for k, g in enumerate(dim_a["groups"])}
    rank_b = {g["label"]: k for k, g in enumerate(dim_b["groups"])}
    return sorted(
        (k for k, c in pair_counts.items() if c), key=lambda k: (rank_a[k[0]], rank_b[k[1]])
    )


def _intersection_rates(
    summary: Summary,
    dims: list[dict],
    intersection: dict,
    pair_counts: dict[tuple[str, str], int],
    index_of: dict[str, int],
    mappers: dict[int, Mapper],
    outcome: Callable[[str], int],
    opts: Options,
    head: str,
    fs: Findings,
) -> dict:
    a_name, b_name = intersection["dims"]
    ia, ib = index_of[a_name], index_of[b_name]
    table = summary.label_cells.get((min(ia, ib), max(ia, ib)), {})
    cell_of = cell_mapper(ia, ib, mappers)
    n_of: dict[tuple[str, str], int] = {}
    pos_of: dict[tuple[str, str], int] = {}
    for (x, y, lab), c in table.items():
        cell = cell_of(x, y)
        if cell is None:
            continue
        o = outcome(lab)
        if o == 0:
            continue
        n_of[cell] = n_of.get(cell, 0) + c
        if o == 2:
            pos_of[cell] = pos_of.get(cell, 0) + c
    keys = crossed_cells(dims, intersection["dims"], pair_counts)
    items = [(k, n_of.get(k, 0), pos_of.get(k, 0)) for k in keys]
    min_size = opts.min_group_size
    ext = _extremes(items, min_size)
    cells = []
    for k, n, pos in items[:CELL_CAP]:
        cells.append({"a": k[0], "b": k[1], **_rate_entry(n, pos, pair_counts[k], min_size)})
    entry = {
        "dims": [a_name, b_name],
        **_summary_fields(items, ext, lambda k: [k[0], k[1]], opts.label_gap, max(1, min_size)),
        "cells": cells,
    }
    if len(items) > CELL_CAP:
        entry["cells_not_listed"] = len(items) - CELL_CAP
    _gap_findings(
        fs,
        [a_name, b_name],
        head,
        [(f"'{k[0]}' x '{k[1]}'", k, n, p) for k, n, p in items],
        ext,
        entry["gap"],
        lambda k: [k[0], k[1]],
        opts,
        MAX_GAP_FLAGS,
    )
    return entry


def missing_by_group(
    summary: Summary,
    dims: list[dict],
    index_of: dict[str, int],
    mappers: dict[int, Mapper],
    overrides: dict[str, str],
    opts: Options,
    fs: Findings,
) -> list[dict]:
    """The `missing_by_group` block; its findings go to fs (SPEC 17.5, 18)."""
    n_rows = summary.n_rows
    gap = opts.missing_gap
    least = max(1, opts.min_group_size)
    read = [
        k
        for k, col in enumerate(summary.columns)
        if overrides.get(col) != "ignore"
        and k < len(summary.missing_all)
        and summary.missing_all[k]
    ]
    out: list[dict] = []
    for dim in dims:
        d = index_of[dim["name"]]
        by_col = summary.missing_by.get(d)
        if by_col is None:
            out.append({"dimension": dim["name"], "not_counted": True})
            continue
        mapper = mappers[d]
        columns = []
        listed = more = 0
        labels = [g["label"] for g in dim["groups"]]
        counts = [g["count"] for g in dim["groups"]]
        sized = sum(1 for c in counts if c >= least)
        rank = {label: i for i, label in enumerate(labels)}
        for k in read:
            if k == d:
                continue
            col = summary.columns[k]
            m_all = summary.missing_all[k]
            overall = m_all / n_rows
            m_of: dict[str | None, int] = {}
            for x, c in by_col.get(k, {}).items():
                g = None if x is None else mapper(x)  # None: the missing group
                m_of[g] = m_of.get(g, 0) + c
            flagged = []
            fs.tests += sized
            t = overall + gap
            # Only a group with a missing cell can be flagged (gap >= 0): the groups of
            # m_of, in the dimension's order, instead of every group (30,000 zip codes)
            at = sorted(
                i
                for g, m in m_of.items()
                if (i := rank.get(g)) is not None
                and counts[i] >= least
                and m / counts[i] - overall > gap
            )
            for i in at:
                label, count = labels[i], counts[i]
                m = m_of[label]
                share = m / count
                flagged.append(label)
                p = score_p(m, count, t, False)
                if listed == GROUP_FLAG_CAP:
                    more += 1
                    fs.unlisted(p)
                else:
                    listed += 1
                    fs.finding(
                        "missing_gap",
                        # SPEC 17.5 (8's rule): flagged, share > overall >= 0
                        f"{dim['name']}: '{col}' is missing for "
                        f"{pct_not_zero(share, 1, m < count)}% of '{label}' vs "
                        f"{pct_not_zero(overall, int(overall > 0), overall < 1)}% overall",
                        dims=[dim["name"]],
                        groups=[label, col],
                        value=share,
                        n=count,
                        interval=wilson_bounds(m, count),
                        threshold=t,
                        p=p,
                    )
            groups = []
            for label, count in zip(labels[:CELL_CAP], counts[:CELL_CAP], strict=True):
                m = m_of.get(label, 0)
                lo, hi = _wilson(m, count)
                groups.append(
                    {
                        "label": label,
                        "count": count,
                        "missing": m,
                        "missing_pct": round_half_up(m / count, 4),
                        "ci_low": lo,
                        "ci_high": hi,
                    }
                )
            absent = dim["missing_count"]
            # SPEC 17.5: by share among the listed groups of the flag rule's size, the
            # missing group last (a group wins a tie)
            items = [(g["label"], g["count"], g["missing"]) for g in groups]
            if absent:
                items.append((missing_group_label(dim["name"]), absent, m_of.get(None, 0)))
            ext = _extremes(items, least)
            entry = {
                "name": col,
                "missing_count": m_all,
                "missing_pct": round_half_up(overall, 4),
                "flagged": flagged,
                "lowest": None if ext is None else ext[1][0],
                "highest": None if ext is None else ext[0][0],
                "groups": groups,
            }
            if len(dim["groups"]) > CELL_CAP:
                entry["groups_not_listed"] = len(dim["groups"]) - CELL_CAP
            if absent:  # the rows without a group: shown, never flagged (SPEC 17.5)
                m = m_of.get(None, 0)
                lo, hi = _wilson(m, absent)
                entry["missing_group"] = {
                    "count": absent,
                    "missing": m,
                    "missing_pct": round_half_up(m / absent, 4),
                    "ci_low": lo,
                    "ci_high": hi,
                }
            columns.append(entry)
        # the floor of lowest, highest and the flags, so a report can say why a column's
        # lowest and highest are null (SPEC 17.5)
        out.append({"dimension": dim["name"], "min_group_size": least, "columns": columns})
        if more:
            fs.note(
                "more",
                f"{dim['name']}: {more} more missing-data gaps (the JSON lists all)",
                [dim["name"]],
            )
    return out


def not_counted_flags(
    dims: list[dict], index_of: dict[str, int], summary: Summary, opts: Options
) -> list[tuple[str, str]]:
    """(text, dimension) of one note per dimension past the group columns (SPEC 17.5)."""
    tables = (
        summary.label_pairs
        if opts.label is not None
        else summary.missing_by
        if opts.missing_by_group
        else _outcome_by(summary)
    )
    what = (
        "label rates and missing data"
        if opts.label is not None or opts.missing_by_group
        else "outcome means"
    )
    return [
        (
            f"{d['name']}: {what} by group not counted "
            f"('{d['name']}' is not among the first {PAIR_COLUMNS} counted columns)",
            d["name"],
        )
        for d in dims
        if index_of[d["name"]] not in tables
    ]


def _outcome_by(summary: Summary) -> dict:
    """The group columns that have outcome sums (SPEC 21.2), as a table keyed by them."""
    first = next(iter(summary.outcomes.values()), None)
    return {} if first is None else first["by"]
