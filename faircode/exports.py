"""Markdown and CSV exports of ``profile`` and ``compare`` results (SPEC 6.1), and the
CSV table writer ``fairness evaluate`` shares. Registered in
:data:`faircode.render.RENDERERS`; every user string goes through the one escaping of
:mod:`faircode.safetext` (``md_escape`` for Markdown, ``csv_cell`` for CSV).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from .numerics import fmt, pct
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


#: The columns of `profile --csv`, in order (README and SPEC 6.1 describe them).
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
)

_DIMENSION_FIELDS = (
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
)


def profile_csv_rows(result: dict) -> Iterable[dict[str, Any]]:
    """The rows of `profile --csv`, by section: `profile` (one), `group` (per dimension
    and group, the dimension's numbers repeated), `reference` (per dimension and
    reference group), `intersection` (per listed gap), `unscored` (per unscored column
    and label), `dropped` (per dropped column), `flag` (per flag)."""
    yield {
        "section": "profile",
        "n_rows": result["n_rows"],
        "n_cols": result["n_cols"],
        "overall_score": result["overall_score"],
        "grade": result["grade"],
    }
    for dim in result["dimensions"]:
        base = {"dimension": dim["name"], **{k: dim[k] for k in _DIMENSION_FIELDS}}
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
                    "share": g["actual"],
                    "expected": g["expected"],
                    "delta": g["delta"],
                    "note": note,
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
                f"more than {more} distinct labels"
                if d["n_groups"] is None
                else "looks like an identifier or a date"
            ),
        }
    for flag in result["flags"]:
        yield {"section": "flag", "note": flag}


def render_profile_csv(result: dict, **_: Any) -> str:
    return csv_table(PROFILE_CSV_COLUMNS, profile_csv_rows(result))


#: The columns of `compare --csv`, in order.
COMPARE_CSV_COLUMNS = (
    "section",
    "dimension",
    "kind",
    "drift_level",
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
)


def compare_csv_rows(result: dict) -> Iterable[dict[str, Any]]:
    """The rows of `compare --csv`: `compare` (one), `group` (per shared dimension and
    group, the dimension's drift repeated), `added` / `removed` (per dimension), `flag`."""
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
            k: d[k]
            for k in (
                "kind",
                "drift_level",
                "psi",
                "tvd",
                "dimension_score_a",
                "dimension_score_b",
                "dimension_score_delta",
            )
        }
        for g in d["groups"]:
            yield {"section": "group", "dimension": d["name"], **base, **g}
    for name in result["added_dimensions"]:
        yield {"section": "added", "dimension": name}
    for name in result["removed_dimensions"]:
        yield {"section": "removed", "dimension": name}
    for flag in result["flags"]:
        yield {"section": "flag", "note": flag}


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
    from .render import FOUND_BY, GRADE_MEANING

    score, grade = result["overall_score"], result["grade"]
    head = (
        "score not measured (no demographic column detected)"
        if score is None
        else f"score {score}/100, grade {grade}"
    )
    out = [f"### faircode profile: {head}", ""]
    if score is not None:
        out += [f"_{GRADE_MEANING[grade]}_", ""]
    out += [
        f"- file: {md_escape(name or 'data')}",
        f"- {result['n_rows']} rows, {result['n_cols']} columns, "
        f"{len(result['dimensions'])} dimensions profiled",
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
                    d["dimension_score"],
                    d["n_groups"],
                    "-" if d["imbalance_ratio"] is None else f"{fmt(d['imbalance_ratio'], 2)}x",
                    _p(d["missing_pct"]),
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
        out += ["", f"#### Not scored ({len(unscored)} columns)", ""]
        rows = []
        for u in unscored:
            n = sum(g["count"] for g in u["groups"]) or 1
            top = ", ".join(
                f"{md_escape(g['label'])} {_p(g['count'] / n)}" for g in u["groups"][:3]
            )
            more = ", ..." if len(u["groups"]) > 3 else ""
            rows.append([md_escape(u["name"]), u["n_groups"], top + more, md_escape(u["why"])])
        out += md_table(["Column", "Labels", "Largest labels", "Why"], "lrll", rows)
    if result["dropped"]:
        out += ["", "#### Not profiled", ""]
        out += [
            f"- {md_escape(d['name'])} ({d['kind']}): "
            + (
                f"more than {d['more_than']:,} distinct labels"
                if d["n_groups"] is None
                else f"{d['n_groups']} groups, looks like an identifier or a date"
            )
            for d in result["dropped"]
        ]
    _md_flags(result["flags"], out)
    return "\n".join(out) + "\n"


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


def _md_flags(flags: list[str], out: list[str]) -> None:
    if flags:
        out += ["", f"#### Flags ({len(flags)})", ""]
        out += [f"- {md_escape(f)}" for f in flags]


def render_compare_markdown(result: dict, *, name_a: str = "", name_b: str = "", **_: Any) -> str:
    a, b = result["a"], result["b"]
    worst = max(
        (d["drift_level"] for d in result["dimensions"]),
        key=("none", "moderate", "significant").index,
        default="none",
    )
    title = "no representation drift" if worst == "none" else f"{worst} representation drift"
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
                    d["drift_level"],
                    fmt(d["psi"], 4),
                    fmt(d["tvd"], 4),
                    d["dimension_score_a"],
                    d["dimension_score_b"],
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
    _md_flags(result["flags"], out)
    return "\n".join(out) + "\n"


def _compare_group_rows(dims: list[dict]) -> Iterable[list[object]]:
    for d in dims:
        for g in d["groups"][:MD_MAX_GROUPS]:
            delta = g["share_delta"] * 100
            yield [
                md_escape(d["name"]),
                md_escape(g["label"]),
                _p(g["share_a"]),
                _p(g["share_b"]),
                f"{'+' if delta > 0 else ''}{fmt(delta, 1)} pts",
                g["status"],
            ]
        hidden = len(d["groups"]) - MD_MAX_GROUPS
        if hidden > 0:
            yield [md_escape(d["name"]), f"... {hidden} more groups", "", "", "", ""]
