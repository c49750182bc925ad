"""Markdown and CSV exports of ``profile`` and ``compare`` results (SPEC 6.1), and the
CSV table writer ``fairness evaluate`` shares. Registered in
:data:`faircode.renderers.RENDERERS`; every user string goes through the one escaping of
:mod:`faircode.safetext` (``md_escape`` for Markdown, ``csv_cell`` for CSV).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from .numerics import (
    compare_group_cells,
    drift_claimed,
    drift_text,
    fmt,
    fmt_or_dash,
    missing_group_label,
    not_shown,
    pct,
    share_text,
)
from .safetext import csv_cell, md_escape

#: Groups of one dimension a Markdown table lists (the JSON and CSV list all).
MD_MAX_GROUPS = 12
#: Intersection gaps a Markdown table lists.
MD_MAX_CELLS = 10

# ---------------------------------------------------------------------------------------
# CSV


def csv_table(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    """One CSV table (RFC 4180: CRLF line ends, quotes where needed) with ``columns``
    as its header; a row's missing keys are empty cells, every cell through csv_cell."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(row.get(c)) for c in columns])
    return buf.getvalue()


#: The columns of `profile --csv`, in order (docs/reports.md and SPEC 6.1 describe them).
PROFILE_CSV_COLUMNS = (
    "section",
    "dimension",
    "kind",
    "detected_by",
    "age_mode",
    "n_groups",
    "dimension_score",
    "entropy_ratio",
    "imbalance_ratio",
    "min_share",
    "max_share",
    "missing_count",
    "missing_pct",
    "implausible_count",
    "skewness",
    "label",
    "count",
    "share",
    "ci_low",
    "ci_high",
    "small_group",
    "under_represented",
    "dimension_b",
    "label_b",
    "expected",
    "delta",
    "n_rows",
    "n_cols",
    "overall_score",
    "grade",
    "note",
    # SPEC 17 (after `note`, so the columns before keep their places)
    "column",
    "n",
    "positive_count",
    "rate",
    "label_missing",
    "highest",
    "lowest",
    "max_difference",
    "min_ratio",
    "flagged",
    "column_missing_count",
    "column_missing_pct",
    # format version 3 (SPEC 5 and 18), after the section 17 columns
    "score_ci_low",
    "score_ci_high",
    "score_note",
    "finding_kind",
    "severity",
    "value",
    "threshold",
    "p",
    "verdict",
    # SPEC 3 (issue 27): the ratio of all groups, beside the flag's imbalance_ratio
    "imbalance_ratio_all",
    # issue 27 item 3, every block in every format: the reference's deviation (SPEC 9),
    # the gaps' intervals (17.4, 21.3), outcome means (21) and proxy hints (16)
    "deviation",
    "gap_ci_low",
    "gap_ci_high",
    "ratio_ci_low",
    "ratio_ci_high",
    "mean",
    "sd",
    "non_numeric",
    "df",
    "method",
    "statistic",
    "dof",
    "dof_within",
    "cramers_v",
    "eta_squared",
    "p_adjusted",
    "significant",
    "small_expected",
    # SPEC 17.4, 21.3: the groups (cells) not told apart from the lowest, true on their rows
    # as `under_represented` is on a group's
    "lowest_alike",
)

_DIMENSION_FIELDS = (
    "kind",
    "detected_by",
    "age_mode",
    "n_groups",
    "dimension_score",
    "entropy_ratio",
    "imbalance_ratio",
    "imbalance_ratio_all",
    "min_share",
    "max_share",
    "missing_count",
    "missing_pct",
    "implausible_count",
    "skewness",
)


def profile_csv_rows(result: dict) -> Iterable[dict[str, Any]]:
    """The rows of `profile --csv`, by section: `profile` (one), `group` (per dimension
    and group, the dimension's numbers repeated), `reference` (per dimension and
    reference group), `intersection` (per listed gap), `unscored` (per unscored column
    and label), `dropped` (per dropped column), `flag` (per flag)."""
    ci = result.get("overall_ci") or [None, None]
    yield {
        "section": "profile",
        "n_rows": result["n_rows"],
        "n_cols": result["n_cols"],
        "overall_score": result["overall_score"],
        "grade": result["grade"],
        "score_ci_low": ci[0],
        "score_ci_high": ci[1],
    }
    for dim in result["dimensions"]:
        dim_ci = dim.get("score_ci") or [None, None]
        base = {
            "dimension": dim["name"],
            **{k: dim[k] for k in _DIMENSION_FIELDS},
            "score_ci_low": dim_ci[0],
            "score_ci_high": dim_ci[1],
            "score_note": dim.get("score_note"),
        }
        under = set(dim["under_represented"])
        for g in dim["groups"]:
            yield {
                "section": "group",
                **base,
                "label": g["label"],
                "count": g["count"],
                "share": g["share"],
                "ci_low": g["ci_low"],
                "ci_high": g["ci_high"],
                "small_group": g["small_group"],
                "under_represented": g["label"] in under,
            }
        ref = dim.get("reference")
        if ref is not None:
            ages = ref.get("ages")
            note = f"ages {ages[0]}-{ages[1]}" if ages else None
            if not ref["groups"]:
                yield {"section": "reference", "dimension": dim["name"], "note": "no match"}
            for g in ref["groups"]:
                yield {
                    "section": "reference",
                    "dimension": dim["name"],
                    "kind": dim["kind"],
                    "label": g["label"],
                    "count": g.get("count"),
                    "share": g["actual"],
                    "expected": g["expected"],
                    "delta": g["delta"],
                    "note": note,
                    "deviation": ref["deviation"],
                }
    for inter in result["intersections"]:
        a, b = inter["dims"]
        for cell in inter["cells"]:
            yield {
                "section": "intersection",
                "dimension": a,
                "label": cell["a"],
                "dimension_b": b,
                "label_b": cell["b"],
                "count": cell["count"],
                "share": cell["share"],
                "n_groups": inter["n_cells"],
                "note": "absent" if cell["count"] == 0 else "near-empty",
            }
        if inter.get("cells_not_listed"):
            yield {
                "section": "intersection",
                "dimension": a,
                "dimension_b": b,
                "n_groups": inter["n_cells"],
                "count": inter["cells_not_listed"],
                "note": "gaps not listed",
            }
    for u in result.get("unscored", []):
        for g in u["groups"]:
            yield {
                "section": "unscored",
                "dimension": u["name"],
                "n_groups": u["n_groups"],
                "missing_count": u["missing_count"],
                "label": g["label"],
                "count": g["count"],
                "note": u["why"],
            }
    for d in result["dropped"]:
        more = d.get("more_than")
        yield {
            "section": "dropped",
            "dimension": d["name"],
            "kind": d["kind"],
            "n_groups": d["n_groups"],
            "note": (
                d["why"]
                if "why" in d
                else f"more than {more} distinct labels"
                if d["n_groups"] is None
                else "looks like an identifier or a date"
            ),
        }
    if result.get("label_rates"):
        yield from _label_rate_rows(result["label_rates"])
    for block in result.get("outcomes", []):  # SPEC 21
        yield from _outcome_rows(block)
    for e in result.get("missing_by_group", []):
        if e.get("not_counted"):
            yield {
                "section": "missing_by_group",
                "dimension": e["dimension"],
                "note": "not counted",
            }
            continue
        for c in e["columns"]:
            yield from _missing_column_rows(e["dimension"], c)
    yield from evidence_rows(result)
    yield from finding_rows(result)
    if "proxy_hints" in result:  # SPEC 16, after the findings as in the JSON
        yield from _proxy_rows(result["proxy_hints"])


def _missing_column_rows(dim: str, c: dict) -> Iterable[dict[str, Any]]:
    """SPEC 17.5 as rows, for one column of dimension ``dim``: its groups, then, as in
    the JSON, how many are not listed and the missing group (never flagged)."""
    head = {
        "section": "missing_by_group",
        "dimension": dim,
        "column": c["name"],
        "column_missing_count": c["missing_count"],
        "column_missing_pct": c["missing_pct"],
    }

    def row(g: dict, label: str, flagged: bool, note: str | None) -> dict[str, Any]:
        return {
            **head,
            "label": label,
            "count": g["count"],
            "missing_count": g["missing"],
            "missing_pct": g["missing_pct"],
            "ci_low": g["ci_low"],
            "ci_high": g["ci_high"],
            "flagged": flagged,
            "highest": label == c.get("highest"),
            "lowest": label == c.get("lowest"),
            "note": note,
        }

    flagged = set(c["flagged"])
    for g in c["groups"]:
        yield row(g, g["label"], g["label"] in flagged, None)
    if c.get("groups_not_listed"):
        yield {**head, "count": c["groups_not_listed"], "note": "groups not listed"}
    absent = c.get("missing_group")
    if absent:
        yield row(absent, missing_group_label(dim), False, "missing group")


def evidence_rows(result: dict) -> Iterable[dict[str, Any]]:
    """SPEC 18's family as two `evidence` rows, `verdict` confirmed and possible, each
    with its `count`, the family's tests in `n`, its alpha in `threshold` and the
    correction in `note`."""
    ev = result.get("evidence")
    if not ev:
        return
    for verdict in ("confirmed", "possible"):
        yield {
            "section": "evidence",
            "verdict": verdict,
            "count": ev[verdict],
            "n": ev["tests"],
            "threshold": ev["alpha"],
            "note": ev["correction"],
        }


def _gap_fields(gap: dict | None) -> dict[str, Any]:
    """A label-rate or outcome gap's interval and verdict (SPEC 17.4, 21.3)."""
    if not gap:
        return {}
    out = {"gap_ci_low": gap["ci_low"], "gap_ci_high": gap["ci_high"], "verdict": gap["verdict"]}
    if "ratio_ci_low" in gap:
        out |= {"ratio_ci_low": gap["ratio_ci_low"], "ratio_ci_high": gap["ratio_ci_high"]}
    if "df" in gap:
        out["df"] = gap["df"]
    return out


def _outcome_fields(r: dict) -> dict[str, Any]:
    return {
        "n": r["n"],
        "mean": r["mean"],
        "ci_low": r["ci_low"],
        "ci_high": r["ci_high"],
        "sd": r["sd"],
        "missing_count": r["missing"],
        "small_group": r["small_group"],
    }


def _rate_fields(r: dict) -> dict[str, Any]:
    return {
        "n": r["n"],
        "positive_count": r["positive"],
        "rate": r["rate"],
        "ci_low": r["ci_low"],
        "ci_high": r["ci_high"],
        "label_missing": r["label_missing"],
        "small_group": r["small_group"],
    }


def _rate_spread(d: dict) -> dict[str, Any]:
    """A label-rate dimension's (or intersection's) comparison, repeated on its rows (its
    `gap` may be absent; an outcome's is always there)."""
    return {
        "max_difference": d["max_difference"],
        "min_ratio": d["min_ratio"],
        **_gap_fields(d.get("gap")),
    }


def _outcome_spread(d: dict) -> dict[str, Any]:
    """An outcome dimension's (or intersection's) largest difference and Welch gap."""
    return {"max_difference": d["max_difference"], **_gap_fields(d["gap"])}


class _Compared(NamedTuple):
    """What sets label rates (SPEC 17.4) and outcome means (SPEC 21) apart in the rows
    of their groups and cells; :func:`_compared_rows` builds both alike."""

    group_section: str
    cell_section: str
    #: a group's or cell's own numbers
    fields: Callable[[dict], dict[str, Any]]
    #: a dimension's or the intersection's comparison, repeated on each of its rows
    spread: Callable[[dict], dict[str, Any]]


_LABEL_RATES = _Compared("label_rate", "label_rate_cell", _rate_fields, _rate_spread)
_OUTCOMES = _Compared("outcome_group", "outcome_cell", _outcome_fields, _outcome_spread)


def _alike(block: dict) -> set:
    """The gap's `lowest_alike` (SPEC 17.4, 21.3) as a set of labels (cells as (a, b));
    empty without a gap, and for a profile saved before the key."""
    alike = (block.get("gap") or {}).get("lowest_alike") or []
    return {tuple(k) if isinstance(k, list) else k for k in alike}


def _compared_rows(kind: _Compared, block: dict, column: str) -> Iterable[dict[str, Any]]:
    """The rows of ``block``'s groups and its listed intersection cells, each with its
    dimension's comparison repeated and `highest` / `lowest` true on the row that is it,
    `lowest_alike` on each row the gap's `lowest_alike` lists.
    After a dimension's groups, in the JSON's order: how many are not listed, then its
    missing group (label rates only, SPEC 17.4: never compared). A dimension not counted
    is one row; so is the count of cells not listed."""
    for d in block["dimensions"]:
        if d.get("not_counted"):
            yield {"section": kind.group_section, "dimension": d["name"], "note": "not counted"}
            continue
        spread = kind.spread(d)
        alike = _alike(d)
        for g in d["groups"]:
            yield {
                "section": kind.group_section,
                "dimension": d["name"],
                "column": column,
                "label": g["label"],
                **kind.fields(g),
                "highest": g["label"] == d["highest"],
                "lowest": g["label"] == d["lowest"],
                "lowest_alike": g["label"] in alike,
                **spread,
            }
        if d.get("groups_not_listed"):
            yield {
                "section": kind.group_section,
                "dimension": d["name"],
                "column": column,
                "count": d["groups_not_listed"],
                "note": "groups not listed",
            }
        absent = d.get("missing_group")
        if absent:
            yield {
                "section": kind.group_section,
                "dimension": d["name"],
                "column": column,
                "label": missing_group_label(d["name"]),
                "count": absent["count"],
                **kind.fields(absent),
                "highest": False,
                "lowest": False,
                "lowest_alike": False,
                **spread,
                "note": "missing group",
            }
    inter = block.get("intersection")
    if not inter:
        return
    a, b = inter["dims"]
    spread = kind.spread(inter)
    alike = _alike(inter)
    for c in inter["cells"]:
        pair = [c["a"], c["b"]]
        yield {
            "section": kind.cell_section,
            "dimension": a,
            "dimension_b": b,
            "column": column,
            "label": c["a"],
            "label_b": c["b"],
            **kind.fields(c),
            "highest": pair == inter["highest"],
            "lowest": pair == inter["lowest"],
            "lowest_alike": tuple(pair) in alike,
            **spread,
        }
    if inter.get("cells_not_listed"):
        yield {
            "section": kind.cell_section,
            "dimension": a,
            "dimension_b": b,
            "column": column,
            "count": inter["cells_not_listed"],
            "note": "cells not listed",
        }


def _label_rate_rows(block: dict) -> Iterable[dict[str, Any]]:
    """SPEC 17.4 as rows: `label_rates` (one: the label column, its positive value and
    the overall rate), `label_rate` (per dimension and group) and `label_rate_cell` (per
    listed intersection cell), each with its dimension's comparison repeated and
    `highest` / `lowest` true on the row that is it."""
    yield {
        "section": "label_rates",
        "column": block["label"],
        "label": block["positive"],
        "n": block["n"],
        "positive_count": block["positive_count"],
        "rate": block["rate"],
        "ci_low": block["ci_low"],
        "ci_high": block["ci_high"],
        "label_missing": block["label_missing"],
        "note": block["positive_from"],
    }
    yield from _compared_rows(_LABEL_RATES, block, block["label"])


def _outcome_rows(block: dict) -> Iterable[dict[str, Any]]:
    """SPEC 21 as rows: `outcome` (one per column: its mean, interval, sd, threshold),
    `outcome_group` (per dimension and group) and `outcome_cell` (per listed
    intersection cell), each with its dimension's largest difference and Welch gap
    repeated and `highest` / `lowest` true on the row that is it. Unrounded, as the
    JSON."""
    yield {
        "section": "outcome",
        "column": block["column"],
        "n": block["n"],
        "missing_count": block["missing"],
        "non_numeric": block["non_numeric"],
        "mean": block["mean"],
        "ci_low": block["ci_low"],
        "ci_high": block["ci_high"],
        "sd": block["sd"],
        "threshold": block["threshold"],
    }
    yield from _compared_rows(_OUTCOMES, block, block["column"])


_PROXY_TEST_FIELDS = (
    "method",
    "statistic",
    "dof",
    "dof_within",
    "cramers_v",
    "eta_squared",
    "p_adjusted",
    "n",
    "significant",
    "small_expected",
)


def _proxy_rows(block: dict) -> Iterable[dict[str, Any]]:
    """SPEC 16 as rows: `proxy_hints` (one: alpha in `threshold`, the correction and
    any exact test in `note`), `proxy_held_out` (per held-out column), `proxy_hint` (per
    pair of dimensions: `dimension` x `dimension_b`), `proxy_not_tested`,
    `proxy_feature` (per scored dimension and other column: `dimension`, `column`) and
    `proxy_feature_not_tested` (`note` = why), in the JSON's order."""
    from .proxy_render import heading  # lazy: start-up

    yield {"section": "proxy_hints", "threshold": block["alpha"], "note": heading(block)}
    for h in block.get("held_out", []):
        yield {
            "section": "proxy_held_out",
            "dimension": h["name"],
            "column": h["column"],
            "label": h["key"],
            "n": h["rows"],
            "note": h["path"],
        }

    def test_fields(t: dict) -> dict[str, Any]:
        out = {k: t.get(k) for k in _PROXY_TEST_FIELDS}
        out["statistic"] = t["chi2"] if "chi2" in t else t.get("statistic")
        out["p"] = t["p_value"]
        return out

    for h in block["hints"]:
        yield {
            "section": "proxy_hint",
            "dimension": h["a"],
            "dimension_b": h["b"],
            **test_fields(h),
        }
    for nt in block["not_tested"]:
        yield {
            "section": "proxy_not_tested",
            "dimension": nt["a"],
            "dimension_b": nt["b"],
            "note": nt["why"],
        }
    for r in block.get("features", []):
        yield {"section": "proxy_feature", "dimension": r["a"], "column": r["b"], **test_fields(r)}
    for nt in block.get("features_not_tested", []):
        yield {
            "section": "proxy_feature_not_tested",
            "dimension": nt["a"],
            "column": nt["b"],
            "note": nt["why"],
        }


def finding_rows(result: dict) -> Iterable[dict[str, Any]]:
    """The `flag` rows of a CSV export: one per line of the report with its evidence
    (SPEC 18), or one per flag of a version-2 result."""
    if "findings" not in result:
        for flag in result["flags"]:
            yield {"section": "flag", "note": flag}
        return
    for f in result["findings"]:
        dims, groups = f["dimensions"], f["groups"]
        yield {
            "section": "flag",
            "note": f["text"],
            "finding_kind": f["kind"],
            "severity": f["severity"],
            "dimension": dims[0] if dims else None,
            "dimension_b": dims[1] if len(dims) > 1 else None,
            "label": groups[0] if groups else None,
            "label_b": groups[1] if len(groups) > 1 else None,
            "value": f["value"],
            "n": f["n"],
            "ci_low": f["ci_low"],
            "ci_high": f["ci_high"],
            "threshold": f["threshold"],
            "p": f["p"],
            "verdict": f["verdict"],
        }


def render_profile_csv(result: dict, **_: Any) -> str:
    return csv_table(PROFILE_CSV_COLUMNS, profile_csv_rows(result))


#: The columns of `compare --csv`, in order.
COMPARE_CSV_COLUMNS = (
    "section",
    "dimension",
    "kind",
    "drift_level",
    "drift_p",
    "drift_verdict",
    "psi",
    "tvd",
    "dimension_score_a",
    "dimension_score_b",
    "dimension_score_delta",
    "label",
    "share_a",
    "share_b",
    "share_delta",
    "status",
    "n_rows_a",
    "n_rows_b",
    "score_a",
    "score_b",
    "grade_a",
    "grade_b",
    "score_delta",
    "note",
    # SPEC 17.6 (after `note`)
    "column",
    "rate_a",
    "rate_b",
    "rate_delta",
    "missing_pct_a",
    "missing_pct_b",
    "missing_delta",
    "column_missing_pct_a",
    "column_missing_pct_b",
    # SPEC 8 and 18.1 (format 3): the sides' rows, the shift's interval, the evidence
    "n_a",
    "n_b",
    "count_a",
    "count_b",
    "ci_low",
    "ci_high",
    "finding_kind",
    "severity",
    "value",
    "n",
    "threshold",
    "p",
    "verdict",
    # SPEC 18.1: the family's `evidence` rows, as profile's
    "count",
    # SPEC 17.6's counts (appended, so earlier columns keep their places): a share's
    # rows, so 1 positive in 30,000 is not read as none
    "positive_a",
    "positive_b",
    "missing_a",
    "missing_b",
    "column_missing_count_a",
    "column_missing_count_b",
)


def compare_csv_rows(result: dict) -> Iterable[dict[str, Any]]:
    """The rows of `compare --csv`: `compare` (one), `group` (per shared dimension and
    group, the dimension's drift repeated), `added` / `removed` (per dimension), the
    17.6 sections, `evidence` (two), `flag`."""
    a, b = result["a"], result["b"]
    yield {
        "section": "compare",
        "n_rows_a": a["n_rows"],
        "n_rows_b": b["n_rows"],
        "score_a": a["overall_score"],
        "score_b": b["overall_score"],
        "grade_a": a["grade"],
        "grade_b": b["grade"],
        "score_delta": result["score_delta"],
    }
    for d in result["dimensions"]:
        base = {
            k: d.get(k)  # a compare saved before the drift test has no drift_p, drift_verdict
            for k in (
                "kind",
                "drift_level",
                "drift_p",
                "drift_verdict",
                "psi",
                "tvd",
                "dimension_score_a",
                "dimension_score_b",
                "dimension_score_delta",
                "n_a",
                "n_b",
            )
        }
        for g in d["groups"]:
            yield {"section": "group", "dimension": d["name"], **base, **g}
    for name in result["added_dimensions"]:
        yield {"section": "added", "dimension": name}
    for name in result["removed_dimensions"]:
        yield {"section": "removed", "dimension": name}
    rates = result.get("label_rates")
    if rates:
        yield {"section": "label_rates", "column": rates["label"], "label": rates["positive"]}
        for d in rates["dimensions"]:
            for g in d["groups"]:
                yield {
                    "section": "label_rate",
                    "dimension": d["name"],
                    "column": rates["label"],
                    **g,
                }
    for e in result.get("missing_by_group") or []:
        for c in e["columns"]:
            for g in c["groups"]:
                yield {
                    "section": "missing_by_group",
                    "dimension": e["dimension"],
                    "column": c["name"],
                    "column_missing_pct_a": c["missing_pct_a"],
                    "column_missing_pct_b": c["missing_pct_b"],
                    # a comparison saved before the counts has none: empty cells
                    "column_missing_count_a": c.get("missing_count_a"),
                    "column_missing_count_b": c.get("missing_count_b"),
                    **g,
                }
    yield from evidence_rows(result)
    yield from finding_rows(result)


def render_compare_csv(result: dict, **_: Any) -> str:
    return csv_table(COMPARE_CSV_COLUMNS, compare_csv_rows(result))


# ---------------------------------------------------------------------------------------
# Markdown (GitHub-flavoured, for a PR comment or $GITHUB_STEP_SUMMARY)


def md_row(cells: Iterable[object]) -> str:
    """One table row; the cells are already escaped (md_escape) or numbers."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def md_table(head: Sequence[str], align: str, rows: Iterable[Iterable[object]]) -> list[str]:
    """A table: ``align`` has one letter per column, ``l`` or ``r``."""
    sep = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    return [md_row(head), sep, *(md_row(r) for r in rows)]


def _p(x: float) -> str:
    return pct(x) + "%"


def render_profile_markdown(result: dict, *, name: str = "", **_: Any) -> str:
    from .render import (
        FOUND_BY,
        GRADE_MEANING,
        UNSCORED_SHOWN,
        columns_word,
        size_line,
    )  # lazy: start-up

    score, grade = result["overall_score"], result["grade"]
    ci = result.get("overall_ci")
    if score is None:
        head = "score not measured (" + (
            "no dimension has enough rows to score)"
            if result["dimensions"]
            else "no demographic column detected)"
        )
    else:
        head = f"score {score}/100" + (f" [{ci[0]}-{ci[1]}]" if ci else "") + f", grade {grade}"
    out = [f"### faircode profile: {head}", ""]
    if score is not None:
        out += [f"_{GRADE_MEANING[grade]}_", ""]
    out += [
        f"- file: {md_escape(name or 'data')}",
        f"- {md_escape(size_line(result))}",
    ]
    dims = result["dimensions"]
    if dims:
        out += [""]
        out += md_table(
            ["Dimension", "Kind", "Found", "Score", "Groups", "Imbalance", "Missing"],
            "lllrrrr",
            (
                [
                    md_escape(d["name"]),
                    d["kind"],
                    FOUND_BY[d["detected_by"]],
                    _md_score(d),
                    d["n_groups"],
                    "-" if d["imbalance_ratio"] is None else f"{fmt(d['imbalance_ratio'], 2)}x",
                    share_text(d["missing_pct"], d["missing_count"], result["n_rows"]),
                ]
                for d in dims
            ),
        )
        out += [""]
        out += md_table(
            ["Dimension", "Group", "Share", "95% CI", "N", "Marks"],
            "llrrrl",
            _profile_group_rows(dims),
        )
        from .render import reference_head, reference_rows  # lazy: start-up

        for d in dims:  # SPEC 9: the expected-vs-actual table, as the terminal shows it
            head = reference_head(d)
            if head is None:
                continue
            out += ["", f"#### {md_escape(d['name'])} {md_escape(head)}"]
            rows = [[md_escape(r[0]), *r[1:]] for r in reference_rows(d)]
            if rows:
                out += [""]
                out += md_table(["Group", "Expected", "Actual", "Change"], "lrrr", rows)
    for inter in result["intersections"]:
        a, b = inter["dims"]
        gaps = len(inter["cells"]) + inter.get("cells_not_listed", 0)
        out += [
            "",
            f"#### Intersections {md_escape(a)} x {md_escape(b)}: {gaps:,} of "
            f"{inter['n_cells']:,} cells absent or near-empty",
        ]
        if inter["cells"]:
            out += [""]
            rows = [
                [md_escape(c["a"]), md_escape(c["b"]), c["count"], _p(c["share"])]
                for c in inter["cells"][:MD_MAX_CELLS]
            ]
            if gaps > MD_MAX_CELLS:
                rows.append([f"... {gaps - MD_MAX_CELLS:,} more", "", "", ""])
            out += md_table([md_escape(a), md_escape(b), "N", "Share"], "llrr", rows)
    unscored = result.get("unscored", [])
    if unscored:
        cols = "column" if len(unscored) == 1 else "columns"
        out += ["", f"#### Not scored ({len(unscored)} {cols})", ""]
        rows = []
        for u in unscored[:UNSCORED_SHOWN]:
            n = sum(g["count"] for g in u["groups"]) or 1
            top = ", ".join(
                f"{md_escape(g['label'])} {share_text(g['count'] / n, g['count'], n)}"
                for g in u["groups"][:3]
            )
            more = ", ..." if len(u["groups"]) > 3 else ""
            rows.append([md_escape(u["name"]), u["n_groups"], top + more, md_escape(u["why"])])
        out += md_table(["Column", "Labels", "Largest labels", "Why"], "lrll", rows)
        hidden = len(unscored) - UNSCORED_SHOWN
        if hidden > 0:
            out += ["", f"... {hidden} more {columns_word(hidden)} (--json lists all)"]
    if result["dropped"]:
        out += ["", "#### Not profiled", ""]
        out += [
            f"- {md_escape(d['name'])}"
            + (f" ({d['kind']})" if d["kind"] else "")
            + ": "
            + (
                d["why"]
                if "why" in d
                else f"more than {d['more_than']:,} distinct labels"
                if d["n_groups"] is None
                else f"{d['n_groups']} groups, looks like an identifier or a date"
            )
            for d in result["dropped"]
        ]
    if result.get("label_rates"):
        _md_label_rates(result["label_rates"], out)
    for block in result.get("outcomes", []):  # SPEC 21.4
        _md_outcome(block, out)
    if "missing_by_group" in result:
        _md_missing_by_group(result["missing_by_group"], result["n_rows"], out)
    if "proxy_hints" in result:  # SPEC 16
        _md_proxy_hints(result["proxy_hints"], out)
    _md_findings(result, out)
    return "\n".join(out) + "\n"


def _md_proxy_hints(block: dict, out: list[str]) -> None:
    """SPEC 16 in Markdown, as the terminal shows it: the test and its correction, a
    table of the first pairs of dimensions, the pairs not tested, and a table of the
    first columns associated with a dimension."""
    from .proxy_render import SHOWN, heading, p_text  # lazy: start-up

    out += ["", f"#### {md_escape(heading(block))}", ""]
    for h in block.get("held_out", []):
        key = f", joined by {md_escape(h['key'])}" if h.get("key") else ", aligned by row order"
        out.append(f"- held-out column {md_escape(h['name'])}: {h['rows']} rows{key}")
    hints = block["hints"]
    if not hints:
        out.append("No pair of dimensions tested.")
    else:
        rows: list[list[object]] = [
            [
                f"{md_escape(h['a'])} x {md_escape(h['b'])}",
                fmt(h["cramers_v"], 4),
                p_text(h["p_adjusted"]),
                h["method"],
                h["n"],
                ", ".join(
                    m
                    for m, on in (
                        ("associated", h["significant"]),
                        ("small expected counts", h["small_expected"]),
                    )
                    if on
                ),
            ]
            for h in hints[:SHOWN]
        ]
        if len(hints) > SHOWN:
            rows.append([f"... {len(hints) - SHOWN} more pairs", "", "", "", "", ""])
        out += md_table(["Pair", "Cramér's V", "p adjusted", "Test", "N", "Marks"], "lrrlrl", rows)
    if block["not_tested"]:
        out += [""]
        out += [
            f"- not tested: {md_escape(nt['a'])} x {md_escape(nt['b'])} ({md_escape(nt['why'])})"
            for nt in block["not_tested"]
        ]
    features = block.get("features", [])
    skipped = block.get("features_not_tested", [])
    if not features and not skipped:
        return
    out += ["", "#### Columns associated with a dimension (strongest first: V, or eta for numbers)"]
    if features:
        rows = [
            [
                md_escape(r["a"]),
                md_escape(r["b"]),
                f"eta squared {fmt(r['eta_squared'], 4)}"
                if r["method"] == "anova"
                else f"V {fmt(r['cramers_v'], 4)}",
                p_text(r["p_adjusted"]),
                r["method"],
                r["n"],
                "associated" if r["significant"] else "",
            ]
            for r in features[:SHOWN]
        ]
        if len(features) > SHOWN:
            rows.append(["", f"... {len(features) - SHOWN} more columns", "", "", "", "", ""])
        out += [""]
        out += md_table(
            ["Dimension", "Column", "Association", "p adjusted", "Test", "N", "Marks"],
            "llrrlrl",
            rows,
        )
    if skipped:
        out += ["", f"- not tested: {len(skipped)} dimension x column pairs (the JSON says why)"]


def _md_rate(r: dict) -> list[object]:
    if r["rate"] is None:
        return ["n/a", ""]
    return [_p(r["rate"]), f"{_p(r['ci_low'])}-{_p(r['ci_high'])}"]


def _md_rate_row(r: dict) -> list[object]:
    return [r["n"], *_md_rate(r), r["label_missing"]]


def _md_rate_marks(r: dict, high: bool, low: bool) -> str:
    marks = [m for m, on in (("highest", high), ("lowest", low)) if on]
    if r["small_group"]:
        marks.append("small group")
    return ", ".join(marks)


def _md_highest_lowest(block: dict) -> tuple[str, str]:
    """A dimension's highest and lowest group, or the intersection's cells as `a x b`."""
    hi, lo = block["highest"], block["lowest"]
    if isinstance(hi, list):  # an intersection cell
        return " x ".join(map(md_escape, hi)), " x ".join(map(md_escape, lo))
    return md_escape(hi), md_escape(lo)


def _md_spread(block: dict) -> list[object]:
    from .render import alike_text  # lazy: start-up

    if block["max_difference"] is None:
        return ["-", "-", "-", "-"]
    hi, lo = _md_highest_lowest(block)
    lo += alike_text(block, md_escape)
    ratio = "-" if block["min_ratio"] is None else fmt(block["min_ratio"], 2)
    diff = f"{pct(block['max_difference'])} pts"
    gap = block.get("gap")
    if gap:
        diff += f" [{pct(gap['ci_low'])}, {pct(gap['ci_high'])}] {gap['verdict']}"
        if gap["ratio_ci_low"] is not None:
            ratio += f" [{fmt(gap['ratio_ci_low'], 2)}, {fmt(gap['ratio_ci_high'], 2)}]"
    return [hi, lo, diff, ratio]


def _md_comparisons(block: dict, compared: Callable[[dict], list[object]]) -> list[list[object]]:
    """The rows of a label-rate or outcome block's first table: each dimension's
    ``compared`` (four cells) or why it was not counted, then the intersection's."""
    from .render import not_counted_why  # lazy: start-up

    rows = [
        [md_escape(d["name"]), f"not counted ({not_counted_why()})", "", "", ""]
        if d.get("not_counted")
        else [md_escape(d["name"]), *compared(d)]
        for d in block["dimensions"]
    ]
    inter = block.get("intersection")
    if inter:
        a, b = inter["dims"]
        rows.append([f"{md_escape(a)} x {md_escape(b)}", *compared(inter)])
    return rows


def _md_group_table(
    block: dict,
    head: list[str],
    align: str,
    numbers: Callable[[dict], list[object]],
    *,
    missing_group: bool,
) -> list[str]:
    """A label-rate or outcome block's table of every counted dimension's groups (at most
    MD_MAX_GROUPS each) and the intersection's cells: `Dimension`, `Group`,
    ``numbers(row)``, `Marks`, with a line for those not shown; ``missing_group``: a
    dimension's missing group follows its groups (label rates, SPEC 17.4). Nothing if
    there is no row."""
    blanks = [""] * (len(head) - 2)
    rows: list[list[object]] = []
    for d in block["dimensions"]:
        if d.get("not_counted"):
            continue
        name = md_escape(d["name"])
        for g in d["groups"][:MD_MAX_GROUPS]:
            marks = _md_rate_marks(g, g["label"] == d["highest"], g["label"] == d["lowest"])
            rows.append([name, md_escape(g["label"]), *numbers(g), marks])
        hidden = not_shown(len(d["groups"]), d.get("groups_not_listed", 0), MD_MAX_GROUPS)
        if hidden > 0:
            rows.append([name, f"... {hidden} more groups", *blanks])
        absent = d.get("missing_group") if missing_group else None
        if absent:  # SPEC 17.4: shown after the groups, never highest or lowest
            marks = ", ".join(["not compared"] + (["small group"] if absent["small_group"] else []))
            label = md_escape(missing_group_label(d["name"]))
            rows.append([name, label, *numbers(absent), marks])
    inter = block.get("intersection")
    if inter:
        a, b = inter["dims"]
        name = f"{md_escape(a)} x {md_escape(b)}"
        for c in inter["cells"][:MD_MAX_GROUPS]:
            pair = [c["a"], c["b"]]
            marks = _md_rate_marks(c, pair == inter["highest"], pair == inter["lowest"])
            cell = f"{md_escape(c['a'])} x {md_escape(c['b'])}"
            rows.append([name, cell, *numbers(c), marks])
        hidden = not_shown(len(inter["cells"]), inter.get("cells_not_listed", 0), MD_MAX_GROUPS)
        if hidden > 0:
            rows.append([name, f"... {hidden} more cells", *blanks])
    return ["", *md_table(head, align, rows)] if rows else []


def _md_label_rates(block: dict, out: list[str]) -> None:
    """SPEC 17.4: the label, a table of each dimension's highest and lowest rate, and one
    table of the rates of every group (at most MD_MAX_GROUPS per dimension) and cell."""
    from .render import positive_from_text  # lazy: start-up

    missing = block["label_missing"]
    out += [
        "",
        f"#### Label rates: {md_escape(block['label'])} = {md_escape(block['positive'])}",
        "",
        f"- positive value: {positive_from_text(block)}",
        f"- {_p(block['rate'])} positive (95% CI {_p(block['ci_low'])}-{_p(block['ci_high'])}) "
        f"of {block['n']} rows with a label"
        + (f"; {missing} rows with a missing label are left out" if missing else ""),
        f"- _{md_escape(block['ratio_note'])}_",
    ]
    out += [""]
    out += md_table(
        ["Dimension", "Highest", "Lowest", "Difference", "Min ratio"],
        "lllrr",
        _md_comparisons(block, _md_spread),
    )
    out += _md_group_table(
        block,
        ["Dimension", "Group", "N", "Rate", "95% CI", "Label missing", "Marks"],
        "llrrrrl",
        _md_rate_row,
        missing_group=True,
    )


def _md_outcome_gap(block: dict, dp: int) -> list[object]:
    from .render import alike_text  # lazy: start-up

    gap = block["gap"]
    if gap is None:
        return ["-", "-", "-", "-"]
    hi, lo = _md_highest_lowest(block)
    lo += alike_text(block, md_escape)
    df = "-" if gap["df"] is None else fmt(gap["df"], 1)
    diff = (
        f"{fmt(gap['difference'], dp)} [{fmt(gap['ci_low'], dp)}, {fmt(gap['ci_high'], dp)}] "
        f"{gap['verdict']}"
    )
    return [hi, lo, diff, df]


def _md_outcome_row(r: dict, dp: int) -> list[object]:
    mean = "n/a" if r["mean"] is None else fmt(r["mean"], dp)
    ci = "" if r["ci_low"] is None else f"{fmt(r['ci_low'], dp)}-{fmt(r['ci_high'], dp)}"
    sd = "" if r["sd"] is None else fmt(r["sd"], dp)
    return [r["n"], mean, ci, sd, r["missing"]]


def _md_outcome(block: dict, out: list[str]) -> None:
    """SPEC 21.4: a numeric outcome like label rates: the column, a table of each
    dimension's largest difference of means, and one table of every group's mean."""
    from .render import mean_text  # lazy: start-up

    dp = block["decimals"]
    left = block["missing"] + block["non_numeric"]
    out += [
        "",
        f"#### Outcome: {md_escape(block['column'])}",
        "",
        f"- mean {mean_text(block, dp)} (Student's t 95% CI), sd "
        + ("n/a" if block["sd"] is None else fmt(block["sd"], dp))
        + f", of {block['n']} rows"
        + (
            f"; {block['missing']} missing and {block['non_numeric']} non-numeric values are "
            "left out"
            if left
            else ""
        ),
        f"- a difference of means above {fmt(block['threshold'], dp)} is a finding "
        "(Welch's 95% interval)",
    ]
    out += [""]
    out += md_table(
        ["Dimension", "Highest", "Lowest", "Difference", "Welch df"],
        "lllrr",
        _md_comparisons(block, lambda d: _md_outcome_gap(d, dp)),
    )
    # no missing group: an outcome's groups are the non-missing labels (SPEC 21)
    out += _md_group_table(
        block,
        ["Dimension", "Group", "N", "Mean", "95% CI", "SD", "Missing", "Marks"],
        "llrrrrrl",
        lambda r: _md_outcome_row(r, dp),
        missing_group=False,
    )


def _md_missing_by_group(entries: list[dict], n_rows: int, out: list[str]) -> None:
    """SPEC 17.5: per dimension, the columns the terminal report lists (those with a
    flagged group, else the few whose groups are farthest apart), one table."""
    from .render import (  # lazy: start-up
        FLAGGED_NAMED,
        absent_text,
        columns_word,
        extremes_scope_text,
        missing_columns_shown,
        missing_extremes,
        missing_extremes_rule,
        missing_groups,
        missing_share,
        missing_tie,
        not_counted_text,
    )

    out += ["", "#### Missing data by group", ""]
    if not any(e.get("columns") or e.get("not_counted") for e in entries):
        out += ["No column has missing cells."]
        return
    rows: list[list[object]] = []
    notes: list[str] = []
    for e in entries:
        name = md_escape(e["dimension"])
        if e.get("not_counted"):
            notes.append(f"- {md_escape(not_counted_text(e['dimension']))}")
            continue
        columns = e["columns"]
        if not columns:
            notes.append(f"- {name}: no other column with missing cells")
            continue
        picked, rule = missing_columns_shown(e)
        scope = extremes_scope_text(columns)
        notes.append(
            f"- {name}: {len(columns)} {columns_word(len(columns))} with missing cells, {rule}"
            + md_escape(absent_text(e))
            + (f" ({scope})" if scope else "")
        )

        def group(g: dict | None) -> str:
            return "-" if g is None else f"{md_escape(g['label'])} {missing_share(g)}"

        for c in picked:
            low, high = missing_extremes(c, e["dimension"])
            named = {g["label"]: g for g in c["groups"]}
            flagged = ", ".join(  # a flagged group past the listed ones: its name alone
                group(named[lab]) if lab in named else md_escape(lab)
                for lab in c["flagged"][:FLAGGED_NAMED]
            )
            if len(c["flagged"]) > FLAGGED_NAMED:
                flagged += f", +{len(c['flagged']) - FLAGGED_NAMED} more"
            tie = missing_tie(c, e["dimension"])
            lows, highs = (
                (group(low), group(high))
                if tie is None
                else (f"{md_escape(tie)} {missing_share(missing_groups(c, e['dimension'])[0])}", "")
            )
            overall = share_text(c["missing_pct"], c["missing_count"], n_rows)
            rows.append([name, md_escape(c["name"]), overall, lows, highs, flagged])
        hidden = len(columns) - len(picked)
        if hidden > 0:
            rows.append([name, f"... {hidden} more {columns_word(hidden)}", "", "", "", ""])
    out += notes
    rule = md_escape(missing_extremes_rule(entries))
    out += ["", f"_{rule[0].upper()}{rule[1:]}._"]
    if rows:
        out += [""]
        out += md_table(
            ["Dimension", "Column", "Overall", "Lowest group", "Highest group", "Flagged"],
            "llrlll",
            rows,
        )


def _profile_group_rows(dims: list[dict]) -> Iterable[list[object]]:
    for d in dims:
        n = sum(g["count"] for g in d["groups"]) or 1
        under = set(d["under_represented"])
        for g in d["groups"][:MD_MAX_GROUPS]:
            marks = []
            if g["label"] in under:
                marks.append("under-represented")
            if g["small_group"]:
                marks.append("small group")
            yield [
                md_escape(d["name"]),
                md_escape(g["label"]),
                _p(g["count"] / n),
                f"{_p(g['ci_low'])}-{_p(g['ci_high'])}",
                g["count"],
                ", ".join(marks),
            ]
        hidden = len(d["groups"]) - MD_MAX_GROUPS
        if hidden > 0:
            yield [md_escape(d["name"]), f"... {hidden} more groups", "", "", "", ""]


def _md_score(d: dict) -> str:
    if d["dimension_score"] is None:
        return "not scored"
    ci = d.get("score_ci")
    return f"{d['dimension_score']}" + (f" [{ci[0]}-{ci[1]}]" if ci else "")


def _md_findings(result: dict, out: list[str]) -> None:
    """SPEC 18 in Markdown: the family's line, then each line with its verdict and a
    finding's interval and n."""
    from .render import evidence_of, evidence_text  # lazy: start-up

    findings = result.get("findings")
    if findings is None:
        _md_flags(result["flags"], out)
        return
    if not findings:
        return
    out += ["", f"#### Findings and notes ({len(findings)})", "", evidence_text(result), ""]
    for f in findings:
        line = f"- **{f['verdict']}**: " if f["verdict"] else "- note: "
        out.append(line + md_escape(f["text"]) + evidence_of(f, " "))


def _md_flags(flags: list[str], out: list[str]) -> None:
    if flags:
        out += ["", f"#### Flags ({len(flags)})", ""]
        out += [f"- {md_escape(f)}" for f in flags]


def render_compare_markdown(result: dict, *, name_a: str = "", name_b: str = "", **_: Any) -> str:
    a, b = result["a"], result["b"]
    # SPEC 8: the title claims only a drift its test confirmed (or the PSI band's rule)
    worst = max(
        (d["drift_level"] for d in result["dimensions"] if drift_claimed(d)),
        key=("none", "moderate", "significant").index,
        default="none",
    )
    title = "no representation drift" if worst == "none" else f"{worst} representation drift"
    if worst == "none" and any(
        d["drift_level"] not in (None, "none") for d in result["dimensions"]
    ):
        title = "no confirmed representation drift"
    out = [f"### faircode compare: {title}"]
    score = (
        f"score {a['overall_score']} ({a['grade']}) -> {b['overall_score']} ({b['grade']})"
        if result["score_delta"] is not None
        else "score not measured on one side"
    )
    out += [
        "",
        f"- A = {md_escape(name_a or 'a')}, B = {md_escape(name_b or 'b')}",
        f"- {a['n_rows']} -> {b['n_rows']} rows, {score}",
    ]
    if result["dimensions"]:
        out += [""]
        out += md_table(
            ["Dimension", "Kind", "Drift", "PSI", "TVD", "Score A", "Score B"],
            "lllrrrr",
            (
                [
                    md_escape(d["name"]),
                    d["kind"],
                    drift_text(d["drift_level"], d.get("drift_verdict")),
                    fmt_or_dash(d["psi"], 4),
                    fmt_or_dash(d["tvd"], 4),
                    "not scored" if d["dimension_score_a"] is None else d["dimension_score_a"],
                    "not scored" if d["dimension_score_b"] is None else d["dimension_score_b"],
                ]
                for d in result["dimensions"]
            ),
        )
        out += [""]
        out += md_table(
            ["Dimension", "Group", "A", "B", "Change", "Status"],
            "llrrrl",
            _compare_group_rows(result["dimensions"]),
        )
    for key, title in (("added_dimensions", "Added"), ("removed_dimensions", "Removed")):
        if result[key]:
            out += ["", f"- {title} dimensions: " + ", ".join(map(md_escape, result[key]))]
    if result.get("label_rates"):
        _md_label_rate_shifts(result["label_rates"], out)
    if result.get("missing_by_group") is not None:
        n_a, n_b = result["a"]["n_rows"], result["b"]["n_rows"]
        _md_missing_shifts(result["missing_by_group"], n_a, n_b, out)
    _md_findings(result, out)
    return "\n".join(out) + "\n"


def _compare_group_rows(dims: list[dict]) -> Iterable[list[object]]:
    for d in dims:
        for g in d["groups"][:MD_MAX_GROUPS]:
            yield [
                md_escape(d["name"]),
                md_escape(g["label"]),
                *compare_group_cells(g, d["groups"]),
                g["status"],
            ]
        hidden = len(d["groups"]) - MD_MAX_GROUPS
        if hidden > 0:
            yield [md_escape(d["name"]), f"... {hidden} more groups", "", "", "", ""]


def _md_label_rate_shifts(block: dict, out: list[str]) -> None:
    """SPEC 17.6: one table of the rate shifts, groups by how far they moved."""
    from .render import rate_shift_cells  # lazy: start-up

    out += [
        "",
        f"#### Label rates, A -> B: {md_escape(block['label'])} = {md_escape(block['positive'])}",
        "",
    ]
    rows: list[list[object]] = []
    for d in block["dimensions"]:
        name = md_escape(d["name"])
        for g in d["groups"][:MD_MAX_GROUPS]:
            rows.append([name, md_escape(g["label"]), *rate_shift_cells(g)])
        hidden = len(d["groups"]) - MD_MAX_GROUPS
        if hidden > 0:
            rows.append([name, f"... {hidden} more groups", "", "", ""])
    if not rows:
        out += ["No shared dimension with rates on both sides."]
        return
    out += md_table(["Dimension", "Group", "A", "B", "Change"], "llrrr", rows)


def _md_missing_shifts(entries: list[dict], n_a: int, n_b: int, out: list[str]) -> None:
    """SPEC 17.6: per shared dimension the columns whose groups moved most, each with
    its overall share and the group that moved most."""
    from .render import (  # lazy: start-up
        MISSING_SHIFT_COLUMNS,
        columns_word,
        missing_shift_cells,
        missing_shift_columns,
    )

    out += ["", "#### Missing data by group, A -> B", ""]
    rows: list[list[object]] = []
    for e in entries:
        name = md_escape(e["dimension"])
        columns, hidden = missing_shift_columns(e)
        for c in columns:
            overall, most = missing_shift_cells(c, n_a, n_b)
            rows.append(
                [
                    name,
                    md_escape(c["name"]),
                    f"{overall[0]} -> {overall[1]}",
                    md_escape(c["groups"][0]["label"]),
                    f"{most[0]} -> {most[1]}",
                    most[2],
                ]
            )
        if hidden > 0:
            rows.append([name, f"... {hidden} more {columns_word(hidden)}", "", "", "", ""])
    if not rows:
        out += ["No column has missing cells on either side."]
        return
    out += [f"_Per dimension the {MISSING_SHIFT_COLUMNS} columns whose groups moved most._", ""]
    out += md_table(
        ["Dimension", "Column", "Overall A -> B", "Most moved group", "A -> B", "Change"],
        "llrlrr",
        rows,
    )
