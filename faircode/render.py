"""Terminal rendering of a profile or a comparison, and the JSON every command prints.

The ``text`` and ``json`` renderers of ``profile`` and ``compare`` in the renderer
registry (:data:`faircode.renderers.RENDERERS`) are :func:`profile_text`,
:func:`compare_text` and :func:`to_json`; the helpers here (size line, reference rows,
label rates, missing data by group, ...) are shared with the Markdown and CSV exports
(:mod:`faircode.exports`).
"""

from __future__ import annotations

import json

from .detect import NOT_DEMOGRAPHIC
from .evidence import COMPARE_FINDING_KINDS, DIFFERENCE_KINDS
from .numerics import (
    compare_group_cells,
    count_text,
    drift_text,
    fmt,
    fmt_or_dash,
    missing_group_label,
    more_lines,
    pct,
    rows_text,
    share_text,
    shift_cells,
)
from .safetext import SYMBOLS, clip, shown
from .summary import PAIR_COLUMNS

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BAR_WIDTH = 24
#: How each dimension was found (SPEC 1.4 `detected_by`), as the report says it.
FOUND_BY = {
    "name": "found by name",
    "values": "found by its values",
    "override": "declared with --map",
    "label_count": "scored by --score-categoricals",
}
MAX_GROUPS_SHOWN = 12
#: Unscored columns a text or Markdown report lists before '... N more' (issue 27).
UNSCORED_SHOWN = 20

GRADE_MEANING = {
    "A": "well balanced across detected demographics",
    "B": "mostly balanced, minor under-representation",
    "C": "noticeable imbalance in one or more dimensions",
    "D": "strong imbalance or sparse subgroups",
    "F": "severe imbalance or single-group dimensions",
}


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _line_encoder() -> Any:
    """JSONEncoder(ensure_ascii=False).encode without its Python layers: CPython's C
    encoder built once with the same arguments (separators ", " and ": ", NaN allowed;
    no check for cycles: a result is a tree), where encode builds one per call (a third
    of the JSON's time for a 30,000-group result, one call per group). _ENCODE itself
    where _json is missing or differs."""
    try:
        from _json import encode_basestring, make_encoder  # lazy: start-up; CPython only

        def default(o: Any) -> Any:
            raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")

        # markers, default, encoder, indent, key and item separators, sort_keys,
        # skipkeys, allow_nan
        c_encoder = make_encoder(
            None, default, encode_basestring, None, ": ", ", ", False, False, True
        )

        def encode(value: Any) -> str:
            return "".join(c_encoder(value, 0))

        sample = {"a": [1, 2.5, -0.0, float("nan"), '\u00e9\n"', None, True], "b": {}}
        if encode(sample) == _ENCODE(sample) and encode("x") == _ENCODE("x"):
            return encode
    except (ImportError, TypeError, ValueError):
        pass
    return _ENCODE


_encode_line = _line_encoder()


def to_json(obj: Any) -> str:
    """JSON text of a result: nested objects indented by two spaces, and an object or
    list holding only scalars on one line (a group, a gap: one line each). Built with
    the C encoder: a result with 30,000 zip codes encodes in a tenth of a second."""
    out: list[str] = []
    _emit(obj, "", out)
    out.append("\n")
    return "".join(out)


def _flat(value: Any) -> bool:
    """Whether value is a scalar, or an object or list with no non-empty object or
    list in it (one line of JSON). A loop, not any() of a generator: called per group."""
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return True
    for v in value:
        if isinstance(v, (dict, list)) and v:
            return False
    return True


def _emit(value: Any, pad: str, out: list[str]) -> None:
    if _flat(value):
        out.append(_encode_line(value))
        return
    inner = pad + "  "
    if isinstance(value, dict):
        out.append("{")
        sep = "\n"
        for key, item in value.items():
            out.append(f"{sep}{inner}{_encode_line(str(key))}: ")
            _emit(item, inner, out)
            sep = ",\n"
        out.append(f"\n{pad}}}")
    elif all(map(_flat, value)):  # e.g. groups: one C-encoded line each, joined at once
        out.append(f"[\n{inner}" + f",\n{inner}".join(map(_encode_line, value)) + f"\n{pad}]")
    else:
        out.append("[")
        sep = "\n"
        for item in value:
            out.append(sep + inner)
            _emit(item, inner, out)
            sep = ",\n"
        out.append(f"\n{pad}]")


def _pct(x: float) -> str:
    return pct(x) + "%"


def _bar(share: float) -> str:
    filled = int(share * BAR_WIDTH * 8 + 0.5)
    full, part = divmod(filled, 8)
    partial = SYMBOLS["eighths"][part] if part else ""  # ASCII on an ASCII output
    return (SYMBOLS["block"] * full + partial).ljust(BAR_WIDTH)


#: Names a report lists in "the grade rests on ..." before "and N more".
RESTS_ON_SHOWN = 8


def size_line(result: dict) -> str:
    """`344 rows, 7 columns, 1 dimension profiled; the grade rests on sex` (issue 27: a
    report says which columns its grade rests on, those with a dimension score)."""
    k, c = len(result["dimensions"]), result["n_cols"]
    line = (
        f"{rows_text(result['n_rows'])}, {c} {'column' if c == 1 else 'columns'}, "
        f"{k} {'dimension' if k == 1 else 'dimensions'} profiled"
    )
    scored = [shown(d["name"]) for d in result["dimensions"] if d["dimension_score"] is not None]
    if result["overall_score"] is None or not scored:
        return line
    names = ", ".join(scored[:RESTS_ON_SHOWN])
    if len(scored) > RESTS_ON_SHOWN:
        names += f" and {len(scored) - RESTS_ON_SHOWN} more"
    return f"{line}; the grade rests on {names}"


def render(result: dict, source: str) -> str:
    out: list[str] = []
    score, grade = result["overall_score"], result["grade"]
    if score is None:
        out.append(f"faircode profile: {source}")
        why = (
            "no dimension has enough rows to score"
            if result["dimensions"]
            else "no demographic column detected"
        )
        out.append(f"Score: not measured ({why})")
    else:
        ci = result.get("overall_ci")
        band = f" [{ci[0]}-{ci[1]}]" if ci else ""
        out.append(f"Score {score}/100{band}  grade {grade}: {GRADE_MEANING[grade]}")
        out.append(f"faircode profile: {source}")
    out.append(size_line(result))
    out.extend(lead_lines(result))
    for dim in result["dimensions"]:
        out.append("")
        extra = f", ages {dim['age_mode'].replace('_', ' ')}" if dim["age_mode"] else ""
        extra += f", {FOUND_BY[dim['detected_by']]}"
        # SPEC 3: the flag's ratio, between groups of min_group_size rows (issue 27)
        ratio = (
            ""
            if dim["imbalance_ratio"] is None
            else f", imbalance {fmt(dim['imbalance_ratio'], 2)}x"
        )
        out.append(
            f"{dim['name']} ({dim['kind']}{extra}) {score_text(dim)}, "
            f"{count_text(dim['n_groups'], 'group')}{ratio}, missing "
            f"{share_text(dim['missing_pct'], dim['missing_count'], result['n_rows'])}"
        )
        width = max((len(shown(g["label"])) for g in dim["groups"][:MAX_GROUPS_SHOWN]), default=0)
        width = min(max(width, 5), 28)
        n = sum(g["count"] for g in dim["groups"])
        for g in dim["groups"][:MAX_GROUPS_SHOWN]:
            share = g["count"] / n  # unrounded, so the text matches the flags
            label = clip(g["label"], width)
            marks = []
            if g["label"] in dim["under_represented"]:
                marks.append("under-represented")
            if g["small_group"]:
                marks.append("small group")
            mark = f"  [{', '.join(marks)}]" if marks else ""
            out.append(
                f"  {label.ljust(width)} {_bar(share)} {_pct(share).rjust(6)}"
                f"  [{_pct(g['ci_low'])}-{_pct(g['ci_high'])}]  n={g['count']}{mark}"
            )
        out += more_lines("  ", len(dim["groups"]), 0, MAX_GROUPS_SHOWN, "groups")
        if dim["skewness"] is not None:
            out.append(f"  skewness of ages {fmt(dim['skewness'], 2)}")
        out.extend(reference_lines(dim))
    for inter in result["intersections"]:
        a, b = inter["dims"]
        out.append("")
        not_listed = inter.get("cells_not_listed", 0)
        gaps = len(inter["cells"]) + not_listed
        out.append(
            f"Intersections {a} x {b}: {gaps:,} of {inter['n_cells']:,} cells absent or near-empty"
        )
        for cell in inter["cells"][:10]:
            out.append(
                f"  {cell['a']} x {cell['b']}: {rows_text(cell['count'])} ({_pct(cell['share'])})"
            )
        out += more_lines("  ", len(inter["cells"]), not_listed, 10)
    _unscored_lines(result.get("unscored", []), out)
    for d in result["dropped"]:
        out.append("")
        if "why" in d:  # nested values (SPEC 0.4)
            kind = f" ({d['kind']})" if d["kind"] else ""
            out.append(f"not profiled: {d['name']}{kind}, {d['why']}")
        elif d["n_groups"] is None:  # capped while reading (SPEC 0.9)
            out.append(
                f"not profiled: {d['name']} ({d['kind']}), more than "
                f"{d['more_than']:,} distinct labels: counting stopped there"
            )
        else:
            out.append(
                f"not profiled: {d['name']} ({d['kind']}), "
                f"{count_text(d['n_groups'], 'group')} looks "
                "like an identifier or a date (force it with --map)"
            )
    if result.get("label_rates"):  # SPEC 17.4
        out.extend(label_rate_lines(result["label_rates"]))
    for block in result.get("outcomes", []):  # SPEC 21.4
        out.extend(outcome_lines(block))
    if "missing_by_group" in result:  # SPEC 17.5
        out.extend(missing_by_group_lines(result["missing_by_group"], result["n_rows"]))
    if "proxy_hints" in result:  # SPEC 16
        from .proxy_render import report_lines  # lazy: start-up

        out.extend(report_lines(result["proxy_hints"]))
    if result["flags"]:
        out.append("")
        out.extend(findings_lines(result))
    return _lines(out)


def reference_rows(dim: dict) -> list[tuple[str, str, str, str]]:
    """(group, expected, actual, change) of a dimension's reference table (SPEC 9), in
    its order: the one table the terminal and Markdown reports both show (issue 27). An
    actual share of some rows but not all never reads 0.00% or 100.00% (from `count`; a
    profile saved before it had none)."""
    groups = (dim.get("reference") or {}).get("groups", [])
    n = sum(g.get("count", 0) for g in groups)
    return [
        (
            g["label"],
            _pct(g["expected"]),
            _pct(g["actual"]) if "count" not in g else share_text(g["actual"], g["count"], n),
            f"{'+' if g['delta'] > 0 else ''}{pct(g['delta'])} pts",
        )
        for g in groups
    ]


def reference_head(dim: dict) -> str | None:
    """`vs the population baseline: deviation 31.2 pts (ages 0-100)`, or None."""
    ref = dim.get("reference")
    if ref is None:
        return None
    if not ref["groups"]:
        return "vs the population baseline: no group matched"
    ages = ref.get("ages")
    span = f" (ages {ages[0]}-{ages[1]})" if ages else ""
    return f"vs the population baseline: deviation {pct(ref['deviation'])} pts{span}"


def reference_lines(dim: dict) -> list[str]:
    head = reference_head(dim)
    if head is None:
        return []
    rows = reference_rows(dim)
    width = min(max([5, *(len(shown(r[0])) for r in rows)]), 28)
    out = [f"  {head}"]
    if rows:
        out.append(f"    {'group'.ljust(width)} {'expected':>8} {'actual':>8}  change")
        out += [f"    {clip(r[0], width).ljust(width)} {r[1]:>8} {r[2]:>8}  {r[3]}" for r in rows]
    return out


#: SPEC 6: the confirmed findings a terminal report leads with (issue 27).
LEAD_FINDINGS = 10


def lead_lines(result: dict) -> list[str]:
    """The confirmed findings first, strongest evidence (smallest adjusted p) first, at
    most LEAD_FINDINGS, after the score: the verdict before the detail (SPEC 6)."""
    confirmed = [f for f in result.get("findings") or [] if f["verdict"] == "confirmed"]
    if not confirmed:
        return []
    order = sorted(range(len(confirmed)), key=lambda i: (confirmed[i]["p"], i))
    out = ["", f"Confirmed findings, strongest first ({evidence_text(result)}):"]
    out += [f"  {confirmed[i]['text']}" for i in order[:LEAD_FINDINGS]]
    if len(confirmed) > LEAD_FINDINGS:
        more = len(confirmed) - LEAD_FINDINGS
        out.append(f"  ... {more} more (in the list at the end; --json lists all)")
    return out


def score_text(dim: dict) -> str:
    """`score 71 [69-73]`, `score 71` (v2, seed) or `not scored (why)` (SPEC 5)."""
    if dim["dimension_score"] is None:
        return f"not scored ({dim.get('score_note') or 'no rows'})"
    ci = dim.get("score_ci")
    return f"score {dim['dimension_score']}" + (f" [{ci[0]}-{ci[1]}]" if ci else "")


#: How a report marks each entry of `findings` (SPEC 18).
VERDICT_MARKS = {"confirmed": "[confirmed]", "possible": "[possible] ", None: "[note]     "}


def evidence_text(result: dict) -> str:
    """One line on the family: `3 confirmed, 2 possible, of 96 tests (Holm, alpha 0.05)`."""
    ev = result.get("evidence")
    if not ev:
        return ""
    return (
        f"{ev['confirmed']} confirmed, {ev['possible']} possible, of {ev['tests']:,} tests "
        f"(Holm, family-wise alpha {pct(ev['alpha'])}%)"
    )


def findings_lines(result: dict) -> list[str]:
    """The terminal's findings: each line with its verdict, a finding's interval and n
    (SPEC 18); a result of version 2 (flags only) lists its flags."""
    findings = result.get("findings")
    if findings is None:
        return [f"Flags ({len(result['flags'])}):", *(f"  - {f}" for f in result["flags"])]
    out = [f"Findings and notes ({len(findings)}): {evidence_text(result)}"]
    for f in findings:
        out.append(f"  {VERDICT_MARKS[f['verdict']]} {f['text']}{evidence_of(f, '  ')}")
    return out


def evidence_of(f: dict, sep: str) -> str:
    """`{sep}(95% CI 3.0%-3.9%, n=7,214)` for a finding with an interval, else "": the
    ends as a ratio (4.17x) for an imbalance, a share or difference (3.4%) otherwise."""
    if f["severity"] != "finding" or f["ci_low"] is None:
        return ""
    if f["kind"] in COMPARE_FINDING_KINDS:  # its text says "change lo to hi pts"
        return f"{sep}(n={f['n']:,})"
    if f["kind"] in DIFFERENCE_KINDS:
        lo, hi = (pct(x) for x in (f["ci_low"], f["ci_high"]))
        return f"{sep}(95% CI {lo} to {hi} pts, n={f['n']:,})"
    if f["kind"] == "outcome_gap":  # a difference of means, in the column's units
        lo, hi = (value_text(x) for x in (f["ci_low"], f["ci_high"]))
        return f"{sep}(95% CI {lo} to {hi}, n={f['n']:,})"

    def end(x: float | None) -> str:
        if x is None:
            return "inf"
        return f"{fmt(x, 2)}x" if f["kind"] == "imbalance" else _pct(x)

    return f"{sep}(95% CI {end(f['ci_low'])}-{end(f['ci_high'])}, n={f['n']:,})"


def value_text(x: float) -> str:
    """A finding's difference of means (4 dp in the JSON): 2 decimals from 1 on, else 4."""
    return fmt(x, 2) if abs(x) >= 1 else fmt(x, 4)


def mean_text(r: dict, dp: int) -> str:
    """`3.47 [3.36-3.59]` (SPEC 21.4): a mean and its t interval, n/a without rows."""
    if r["mean"] is None:
        return "n/a"
    if r["ci_low"] is None:
        return fmt(r["mean"], dp)
    return f"{fmt(r['mean'], dp)} [{fmt(r['ci_low'], dp)}-{fmt(r['ci_high'], dp)}]"


def outcome_gap_text(block: dict, high: str, low: str, dp: int) -> str:
    """`highest 'a', lowest 'b': difference 1.48 [1.25-1.71] (Welch, df 2,183.1); confirmed`."""
    gap = block["gap"]
    if gap is None:
        return "not measurable: fewer than two groups of the minimum group size"
    df = "both groups constant" if gap["df"] is None else f"Welch, df {fmt(gap['df'], 1)}"
    return (
        f"highest {high}, lowest {low}{alike_text(block)}: difference "
        f"{fmt(gap['difference'], dp)} [{fmt(gap['ci_low'], dp)}-{fmt(gap['ci_high'], dp)}] "
        f"({df}); {gap['verdict']}"
    )


def _outcome_table(rows: list[tuple[str, dict, str]], dp: int, out: list[str]) -> None:
    width = min(max([5, *(len(shown(lab)) for lab, _, _ in rows)]), 32)
    nw = max([1, *(len(str(r["n"])) for _, r, _ in rows)])
    mw = max([13, *(len(mean_text(r, dp)) for _, r, _ in rows)])
    out.append(
        f"    {'group'.ljust(width)} {'n'.rjust(nw)}  {'mean [95% CI]'.ljust(mw)}  sd  missing"
    )
    for lab, r, marks in rows:
        sd = "n/a" if r["sd"] is None else fmt(r["sd"], dp)
        line = (
            f"    {clip(lab, width).ljust(width)} {str(r['n']).rjust(nw)}  "
            f"{mean_text(r, dp).ljust(mw)}  {sd}  {r['missing']}"
        )
        out.append((line + marks).rstrip())


def _compared_lines(
    block: dict,
    spread: Callable[[dict, str, str], str],
    table: Callable[[list[tuple[str, dict, str]]], None],
    out: list[str],
) -> None:
    """Label rates' (SPEC 17.4) and outcome means' (21.4) lines, alike: per dimension its
    comparison (``spread`` of it and its highest and lowest), a ``table`` of its first
    groups and its missing group (label rates only), then the intersection's."""
    for d in block["dimensions"]:
        if d.get("not_counted"):
            out.append("  " + not_counted_text(d["name"]))
            continue
        out.append(f"  {d['name']}: " + spread(d, f"'{d['highest']}'", f"'{d['lowest']}'"))
        rows = [
            (g["label"], g, _rate_marks(g, g["label"] == d["highest"], g["label"] == d["lowest"]))
            for g in d["groups"][:MAX_GROUPS_SHOWN]
        ]
        absent = d.get("missing_group")
        if absent:  # shown after the groups, never highest or lowest (SPEC 17.4)
            marks = ["not compared"] + (["small group"] if absent["small_group"] else [])
            rows.append((missing_group_label(d["name"]), absent, f"  [{', '.join(marks)}]"))
        table(rows)  # aligned with the groups, but after their `... K more` line (SPEC 6.1)
        last = [out.pop()] if absent else []
        out += more_lines(
            "    ", len(d["groups"]), d.get("groups_not_listed", 0), MAX_GROUPS_SHOWN, "groups"
        )
        out += last
    inter = block.get("intersection")
    if not inter:
        return
    a, b = inter["dims"]
    hi, lo = inter["highest"], inter["lowest"]
    out.append(
        f"  {a} x {b}: "
        + spread(inter, hi and f"'{hi[0]}' x '{hi[1]}'", lo and f"'{lo[0]}' x '{lo[1]}'")
    )
    rows = [
        (f"{c['a']} x {c['b']}", c, _rate_marks(c, [c["a"], c["b"]] == hi, [c["a"], c["b"]] == lo))
        for c in inter["cells"][:MAX_GROUPS_SHOWN]
    ]
    table(rows)
    out += more_lines(
        "    ", len(inter["cells"]), inter.get("cells_not_listed", 0), MAX_GROUPS_SHOWN, "cells"
    )


def outcome_lines(block: dict) -> list[str]:
    """The terminal report's numeric outcome (SPEC 21.4): the column's mean, then per
    dimension and for the intersection a table of groups, like label rates."""
    dp = block["decimals"]
    sd = "n/a" if block["sd"] is None else fmt(block["sd"], dp)
    left = []
    if block["missing"]:
        left.append(f"{block['missing']} missing")
    if block["non_numeric"]:
        left.append(f"{block['non_numeric']} not a number")
    out = [
        "",
        f"Outcome: {block['column']}: mean {mean_text(block, dp)}, sd {sd}, of "
        f"{block['n']} rows" + (f" ({', '.join(left)})" if left else ""),
        f"  (means with Student's t 95% intervals; differences with Welch's; a difference "
        f"above {fmt(block['threshold'], dp)} is flagged)",
    ]
    _compared_lines(
        block,
        lambda d, hi, lo: outcome_gap_text(d, hi, lo, dp),
        lambda rows: _outcome_table(rows, dp, out),
        out,
    )
    return out


def _unscored_lines(unscored: list[dict], out: list[str]) -> None:
    """One line per unscored column (SPEC 1.4): its largest labels and why."""
    if not unscored:
        return
    out.append("")
    cols = "column" if len(unscored) == 1 else "columns"
    out.append(f"Not scored ({len(unscored)} {cols}; --score-categoricals scores the plain ones):")
    width = min(max(len(shown(u["name"])) for u in unscored), 24)
    for u in unscored[:UNSCORED_SHOWN]:
        n = sum(g["count"] for g in u["groups"]) or 1
        top = ", ".join(
            f"{clip(g['label'], 16, '')} {share_text(g['count'] / n, g['count'], n)}"
            for g in u["groups"][:3]
        )
        more = ", ..." if len(u["groups"]) > 3 else ""
        why = "" if u["why"] == NOT_DEMOGRAPHIC else f"  [{u['why']}]"
        out.append(
            f"  {clip(u['name'], width).ljust(width)} {u['n_groups']} labels: {top}{more}{why}"
        )
    hidden = len(unscored) - UNSCORED_SHOWN
    if hidden > 0:
        out.append(f"  ... {hidden} more {columns_word(hidden)} (--json lists all)")


def _side_score(score: int | None) -> str:
    """A compared dimension's score on one side, or "not scored" when it is null there
    (SPEC 5: too few rows to score; SPEC 8)."""
    return "not scored" if score is None else str(score)


def render_compare(result: dict, name_a: str, name_b: str) -> str:
    a, b = result["a"], result["b"]
    out = [f"faircode compare: A = {name_a}  ->  B = {name_b}"]
    score = (
        f"score {a['overall_score']} ({a['grade']}) -> {b['overall_score']} ({b['grade']})"
        if result["score_delta"] is not None
        else "score not measured on one side"
    )
    out.append(f"{a['n_rows']} -> {b['n_rows']} rows, {score}")
    for d in result["dimensions"]:
        out.append("")
        out.append(
            f"{d['name']} ({d['kind']}): drift "
            f"{drift_text(d['drift_level'], d.get('drift_verdict'))}, "
            f"PSI {fmt_or_dash(d['psi'], 4)}, TVD {fmt_or_dash(d['tvd'], 4)}, "
            f"score {_side_score(d['dimension_score_a'])} -> "
            f"{_side_score(d['dimension_score_b'])}"
        )
        for g in d["groups"][:MAX_GROUPS_SHOWN]:
            share_a, share_b, change = compare_group_cells(g, d["groups"])
            status = "" if g["status"] == "shifted" else f"  [{g['status']}]"
            out.append(
                f"  {clip(g['label'], 28, '').ljust(28)} {share_a.rjust(6)} -> "
                f"{share_b.rjust(6)}  ({change}){status}"
            )
        out += more_lines("  ", len(d["groups"]), 0, MAX_GROUPS_SHOWN, "groups")
    if result["added_dimensions"]:
        out.append("")
        out.append("added dimensions: " + ", ".join(result["added_dimensions"]))
    if result["removed_dimensions"]:
        out.append("")
        out.append("removed dimensions: " + ", ".join(result["removed_dimensions"]))
    if result.get("label_rates"):  # SPEC 17.6
        out.extend(label_rate_shift_lines(result["label_rates"]))
    if result.get("missing_by_group") is not None:  # SPEC 17.6
        out.extend(
            missing_shift_lines(
                result["missing_by_group"], result["a"]["n_rows"], result["b"]["n_rows"]
            )
        )
    if "proxy_hints" in result:  # SPEC 16
        from .proxy_render import compare_lines  # lazy: start-up

        out.extend(compare_lines(result["proxy_hints"]))
    if result["flags"]:
        out.append("")
        out.extend(findings_lines(result))
    return _lines(out)


# ---------------------------------------------------------------------------------------
# SPEC 17: label base rates and missing data by group

#: Columns with missing cells the terminal lists per dimension: those with a flagged
#: group (at most this many), else the top this-many by spread between groups.
MISSING_COLUMNS_SHOWN = 8
MISSING_SPREAD_SHOWN = 3
#: Groups of one column's flagged list the terminal names before `+K more`.
FLAGGED_NAMED = 3


def missing_extremes_rule(entries: list[dict]) -> str:
    """How every report chose a column's lowest and highest group (SPEC 17.5), naming the
    size floor the `missing_by_group` entries carry, so a `-` (fewer than two groups that
    large) reads with its reason in a small file; `--min-group-size` alone for a profile
    saved before the entries carried it. site/views.js missingExtremesRule is its twin."""
    floor = next((e["min_group_size"] for e in entries if "min_group_size" in e), None)
    size = "--min-group-size rows" if floor is None else f"{floor:,} rows (--min-group-size)"
    return (
        f"lowest and highest by share among the groups of at least {size}, "
        "- where fewer than two are that large"
    )


def columns_word(n: int) -> str:
    return "column" if n == 1 else "columns"


def not_counted_why() -> str:
    """Why a dimension has no label rates nor missing data by group (SPEC 17.4)."""
    return f"not among the first {PAIR_COLUMNS} counted columns"


def not_counted_text(name: str) -> str:
    return f"{name}: not counted ({not_counted_why()})"


def positive_from_text(block: dict) -> str:
    """How the positive value was chosen (SPEC 17.3 `positive_from`), for a report."""
    if block["positive_from"] == "option":
        return "given with --positive"
    return "the larger of its two values"


def missing_groups(column: dict, dim: str | None = None) -> list[dict]:
    """A missing_by_group column's groups with rows, then (given the dimension's name)
    its missing group as a group labelled `(missing DIM)`, which takes part in the
    lowest, the highest and the tie of a report (SPEC 17.5)."""
    groups = [g for g in column["groups"] if g["count"]]
    absent = column.get("missing_group")
    if absent and dim is not None:
        groups.append({"label": missing_group_label(dim), **absent})
    return groups


def missing_spread(column: dict, dim: str | None = None) -> float:
    """How far apart a column's groups are beyond noise: the highest lower Wilson bound
    of a group's missing share minus the lowest upper bound (negative when every
    interval overlaps). Ranks columns when no group is flagged."""
    groups = missing_groups(column, dim)
    if len(groups) < 2:
        return float("-inf")
    return max(g["ci_low"] for g in groups) - min(g["ci_high"] for g in groups)


def extremes_scope_text(columns: list[dict]) -> str | None:
    """When the JSON lists only the first groups of a dimension's columns (SPEC 17.5: a
    30,000-zip dimension lists 1,000), the lowest and highest group are among those:
    what the reports say then; None when every group is listed."""
    c = next((c for c in columns if c.get("groups_not_listed")), None)
    if c is None:
        return None
    n = len(c["groups"])
    return (
        f"lowest and highest among the first {n:,} of {n + c['groups_not_listed']:,} "
        "groups, those the JSON lists"
    )


def missing_extremes(column: dict, dim: str | None = None) -> tuple[dict | None, dict | None]:
    """The groups least and most often missing a column: the column's `lowest` and
    `highest` (SPEC 17.5: by share among the groups of the flag rule's size, the missing
    group among them given `dim`), or (None, None) when fewer than two are that large. A
    saved profile made before the keys reads them by share among the groups with rows."""
    groups = missing_groups(column, dim)
    if "highest" not in column:
        ext = _share_extremes(groups)
        return (None, None) if ext is None else (ext[1], ext[0])
    # a label no listed group has is the missing group's (capped apart from its
    # dimension's name when the name is long, SPEC 0.9)
    missing = groups[-1] if column.get("missing_group") and dim is not None else None
    by_label: dict[str, dict] = {}
    for g in groups if missing is None else groups[:-1]:
        by_label.setdefault(g["label"], g)
    low, high = column["lowest"], column["highest"]
    return (
        None if low is None else by_label.get(low, missing),
        None if high is None else by_label.get(high, missing),
    )


def _share_extremes(groups: list[dict]) -> tuple[dict, dict] | None:
    """(highest, lowest) of groups by share missing, first on ties and never one group
    twice (SPEC 17.4's rule), for a saved profile without 17.5's `lowest`/`highest`."""
    if len(groups) < 2:
        return None
    high = low = groups[0]
    for g in groups[1:]:
        if g["missing"] * high["count"] > high["missing"] * g["count"]:
            high = g
        if g["missing"] * low["count"] < low["missing"] * g["count"]:
            low = g
    return high, groups[1] if low is high else low


def missing_tie(column: dict, dim: str | None = None) -> str | None:
    """What a report shows instead of a lowest and a highest group when they cannot
    differ (issue 27): `all groups equal` when every group with rows has the same share
    (compared exactly, as counts), `only 'X'` when one group has rows; else None. With
    `dim`, the missing group counts as a group."""
    groups = missing_groups(column, dim)
    if len(groups) == 1:
        return f"only '{clip(groups[0]['label'], 24)}'"
    first = groups[0] if groups else None
    if first and all(
        g["missing"] * first["count"] == first["missing"] * g["count"] for g in groups
    ):
        return "all groups equal"
    return None


def missing_columns_shown(entry: dict) -> tuple[list[dict], str]:
    """The columns of a `missing_by_group` entry a report lists, and the rule that chose
    them: every column with a flagged group (at most MISSING_COLUMNS_SHOWN, in column
    order), else the MISSING_SPREAD_SHOWN columns whose groups are farthest apart."""
    columns = entry["columns"]
    flagged = [c for c in columns if c["flagged"]]
    if flagged:
        rule = f"{len(flagged)} with a flagged group"
        if len(flagged) > MISSING_COLUMNS_SHOWN:
            rule += f", the first {MISSING_COLUMNS_SHOWN} shown"
        return flagged[:MISSING_COLUMNS_SHOWN], rule
    dim = entry["dimension"]
    ranked = sorted(columns, key=lambda c: missing_spread(c, dim), reverse=True)
    ranked = ranked[:MISSING_SPREAD_SHOWN]
    order = {id(c): i for i, c in enumerate(columns)}
    shown_cols = sorted(ranked, key=lambda c: order[id(c)])
    if len(columns) <= MISSING_SPREAD_SHOWN:
        return shown_cols, "no group flagged"
    return (
        shown_cols,
        f"no group flagged; the {len(shown_cols)} with the widest spread between groups",
    )


def _rate(r: dict) -> str:
    if r["rate"] is None:
        return "n/a"
    return f"{_pct(r['rate']).rjust(6)} [{_pct(r['ci_low'])}-{_pct(r['ci_high'])}]"


def _rate_marks(row: dict, high: bool, low: bool) -> str:
    marks = [m for m, on in (("highest", high), ("lowest", low)) if on]
    if row["small_group"]:
        marks.append("small group")
    return f"  [{', '.join(marks)}]" if marks else ""


def _rate_table(rows: list[tuple[str, dict, str]], with_missing: bool, out: list[str]) -> None:
    """One row per group or cell: label, n, rate with interval, label missing, marks."""
    width = min(max([5, *(len(shown(lab)) for lab, _, _ in rows)]), 32)
    nw = max([1, *(len(str(r["n"])) for _, r, _ in rows)])
    rw = max([4, *(len(_rate(r)) for _, r, _ in rows)])
    head = f"    {'group'.ljust(width)} {'n'.rjust(nw)}  {'rate [95% CI]'.ljust(rw)}"
    if with_missing:
        head += "  label missing"
    out.append(head.rstrip())
    for lab, r, marks in rows:
        line = f"    {clip(lab, width).ljust(width)} {str(r['n']).rjust(nw)}  {_rate(r).ljust(rw)}"
        if with_missing:
            line += f"  {str(r['label_missing']).rjust(13)}"
        out.append((line + marks).rstrip())


#: SPEC 17.4, 21.3: the groups not told apart from the lowest a report names, then "K more".
ALIKE_SHOWN = 3


def alike_text(block: dict, quote: Callable[[str], str] = lambda t: f"'{t}'") -> str:
    """` (not told apart from 'a', 'b' at 95%)` after a label-rate or outcome block's
    lowest group: the compared groups (cells) whose rate or mean the 95% interval does not
    place above the lowest's (SPEC 17.4 and 21.3 `lowest_alike`), so the worst-off group
    is not read as certain; '' when there are none."""
    alike = (block.get("gap") or {}).get("lowest_alike") or []
    if not alike:
        return ""
    names = [
        " x ".join(map(quote, k)) if isinstance(k, list) else quote(k) for k in alike[:ALIKE_SHOWN]
    ]
    more = len(alike) - ALIKE_SHOWN
    tail = f" and {more} more" if more > 0 else ""
    return f" (not told apart from {', '.join(names)}{tail} at 95%)"


def _spread_text(block: dict, high: str, low: str) -> str:
    if block["max_difference"] is None:
        return "not measurable: fewer than two groups of the minimum group size"
    ratio = "n/a" if block["min_ratio"] is None else fmt(block["min_ratio"], 2)
    gap = block.get("gap")
    diff_ci = ratio_ci = verdict = ""
    if gap:
        diff_ci = f" [{pct(gap['ci_low'])}-{pct(gap['ci_high'])}]"
        if gap["ratio_ci_low"] is not None:
            ratio_ci = f" [{fmt(gap['ratio_ci_low'], 2)}-{fmt(gap['ratio_ci_high'], 2)}]"
        verdict = f"; {gap['verdict']}"
    return (
        f"highest {high}, lowest {low}{alike_text(block)}: difference "
        f"{pct(block['max_difference'])} pts{diff_ci}, ratio {ratio}{ratio_ci}{verdict}"
    )


def label_rate_lines(block: dict) -> list[str]:
    """The terminal report's label rates (SPEC 17.4): the label, then per dimension and
    for the intersection a table of groups (at most MAX_GROUPS_SHOWN)."""
    with_missing = block["label_missing"] > 0
    out = [
        "",
        f"Label rates: {block['label']} = '{block['positive']}' "
        f"({positive_from_text(block)}): {_rate(block).strip()} of {block['n']} rows"
        + (f", {block['label_missing']} with a missing label" if with_missing else ""),
        f"  ({block['ratio_note']})",
    ]
    _compared_lines(block, _spread_text, lambda rows: _rate_table(rows, with_missing, out), out)
    return out


def missing_share(g: dict) -> str:
    """A group's (or the missing group's) share of cells missing, `<0.01%` or `>99.99%`
    where it would read 0.00% or 100.00% but some of its rows have the cell and some
    not (SPEC 17.5, 8's rule)."""
    return share_text(g["missing_pct"], g["missing"], g["count"])


def _group_pct(g: dict | None, width: int) -> str:
    if g is None:
        return "-".ljust(width + 7)
    return f"{missing_share(g).rjust(6)} {clip(g['label'], width).ljust(width)}"


def _flagged_text(label: str, group: dict | None) -> str:
    """A flagged group and its share; one past the groups the JSON lists (no share in
    it) by its label alone."""
    return f"'{clip(label, 24)}'" + ("" if group is None else f" {missing_share(group)}")


def missing_by_group_lines(entries: list[dict], n_rows: int) -> list[str]:
    """The terminal report's missing data by group (SPEC 17.5): per dimension, the
    columns with a flagged group, else the few whose groups are farthest apart (the
    heading of each dimension says which), with the overall share, the groups with the
    lowest and highest share, and the flagged groups."""
    if not any(e.get("columns") for e in entries) and not any(
        e.get("not_counted") for e in entries
    ):
        return ["", "Missing data by group: no column with missing cells"]
    out = [
        "",
        "Missing data by group (the share of a column's cells missing; "
        f"{missing_extremes_rule(entries)}):",
    ]
    for e in entries:
        if e.get("not_counted"):
            out.append("  " + not_counted_text(e["dimension"]))
            continue
        columns = e["columns"]
        if not columns:
            out.append(f"  {e['dimension']}: no other column with missing cells")
            continue
        picked, rule = missing_columns_shown(e)
        cols = columns_word(len(columns))
        dim = e["dimension"]
        out.append(f"  {dim}: {len(columns)} {cols} with missing cells, {rule}" + absent_text(e))
        scope = extremes_scope_text(columns)
        if scope:
            out.append(f"    ({scope})")
        cw = min(max([6, *(len(shown(c["name"])) for c in picked)]), 24)
        lw = min(
            max([5, *(len(shown(g["label"])) for c in picked for g in missing_groups(c, dim))]),
            18,
        )
        out.append(
            f"    {'column'.ljust(cw)} {'overall'.rjust(7)}  {'lowest group'.ljust(lw + 7)}"
            f"  highest group"
        )
        for c in picked:
            low, high = missing_extremes(c, dim)
            named = {g["label"]: g for g in c["groups"]}
            flagged = ", ".join(
                _flagged_text(lab, named.get(lab)) for lab in c["flagged"][:FLAGGED_NAMED]
            )
            if len(c["flagged"]) > FLAGGED_NAMED:
                flagged += f", +{len(c['flagged']) - FLAGGED_NAMED} more"
            tie = missing_tie(c, dim)
            extremes = (
                f"{_group_pct(low, lw)}  {_group_pct(high, lw)}"
                if tie is None
                # every group at one share: the first's (low is None under the size floor)
                else f"{missing_share(missing_groups(c, dim)[0]).rjust(6)} {tie}".ljust(2 * lw + 16)
            )
            overall = share_text(c["missing_pct"], c["missing_count"], n_rows)
            line = f"    {clip(c['name'], cw).ljust(cw)} {overall.rjust(7)}  {extremes}"
            out.append((line + (f"  flagged: {flagged}" if flagged else "")).rstrip())
        hidden = len(columns) - len(picked)
        if hidden > 0:
            more = f"{hidden} more {columns_word(hidden)}"
            out.append(f"    ... {more} with missing cells (--json lists all)")
    return out


def absent_text(entry: dict) -> str:
    """`; '(missing sex)': 12 rows` for a missing_by_group entry whose dimension is
    missing in some rows (its missing group takes part in lowest and highest), else ''."""
    absent = next((c["missing_group"] for c in entry["columns"] if c.get("missing_group")), None)
    if absent is None:
        return ""
    return f"; '{missing_group_label(entry['dimension'])}': {rows_text(absent['count'])}"


def _moved(cells: tuple[str, str, str]) -> str:
    """`a -> b (+d pts)` of numerics.shift_cells, d the result's own delta (one number per
    fact, issue 27)."""
    a, b, change = cells
    return f"{a.rjust(6)} -> {b.rjust(6)}  ({change})"


#: Columns per dimension the compare report lists, those whose groups moved most.
MISSING_SHIFT_COLUMNS = 5


def missing_shift_columns(entry: dict) -> tuple[list[dict], int]:
    """The columns of a compare `missing_by_group` entry a report lists: those whose
    most-moved group (the first, SPEC 17.6) moved most, at most MISSING_SHIFT_COLUMNS,
    and how many more there are."""
    columns = [c for c in entry["columns"] if c["groups"]]
    columns.sort(key=lambda c: -abs(c["groups"][0]["missing_delta"]))
    return columns[:MISSING_SHIFT_COLUMNS], max(0, len(columns) - MISSING_SHIFT_COLUMNS)


def _counts(entry: dict, c: str, n_a: int | str, n_b: int | str) -> tuple | None:
    """(c_a, n_a, c_b, n_b) of a compared rate or missing share (n_a, n_b a number or the
    entry's key), None for a result saved before compare wrote the counts (SPEC 17.6)."""
    if f"{c}_a" not in entry:
        return None
    na = entry[n_a] if isinstance(n_a, str) else n_a
    nb = entry[n_b] if isinstance(n_b, str) else n_b
    return entry[f"{c}_a"], na, entry[f"{c}_b"], nb


def rate_shift_cells(g: dict) -> tuple[str, str, str]:
    """numerics.shift_cells of a compare `label_rates` group (SPEC 17.6)."""
    counts = _counts(g, "positive", "n_a", "n_b")
    return shift_cells(g["rate_a"], g["rate_b"], g["rate_delta"], counts)


def missing_shift_cells(
    column: dict, n_a: int, n_b: int
) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """numerics.shift_cells of a compare `missing_by_group` column's overall share (of
    n_a, n_b rows) and of its most-moved group (SPEC 17.6)."""
    g = column["groups"][0]
    overall = _counts(column, "missing_count", n_a, n_b)
    counts = _counts(g, "missing", "count_a", "count_b")
    return (
        shift_cells(
            column["missing_pct_a"], column["missing_pct_b"], column["missing_delta"], overall
        ),
        shift_cells(g["missing_pct_a"], g["missing_pct_b"], g["missing_delta"], counts),
    )


def label_rate_shift_lines(block: dict) -> list[str]:
    """compare's label-rate shifts (SPEC 17.6): per shared dimension, its groups by how
    far their rate moved (at most MAX_GROUPS_SHOWN)."""
    out = ["", f"Label rates, A -> B ({block['label']} = '{block['positive']}'):"]
    if not block["dimensions"]:
        out.append("  no shared dimension with rates on both sides")
    for d in block["dimensions"]:
        out.append(f"  {d['name']}:")
        for g in d["groups"][:MAX_GROUPS_SHOWN]:
            moved = _moved(rate_shift_cells(g))
            out.append(f"    {clip(g['label'], 28).ljust(28)} {moved}")
        out += more_lines(
            "    ", len(d["groups"]), d.get("groups_not_listed", 0), MAX_GROUPS_SHOWN, "groups"
        )
    return out


def missing_shift_lines(entries: list[dict], n_a: int, n_b: int) -> list[str]:
    """compare's missing-data shifts (SPEC 17.6): per shared dimension, the columns whose
    groups moved most (at most MISSING_SHIFT_COLUMNS), each with its overall share and
    the group that moved most."""
    out = [
        "",
        f"Missing data by group, A -> B (per dimension the {MISSING_SHIFT_COLUMNS} columns "
        "whose groups moved most):",
    ]
    if not any(e["columns"] for e in entries):
        out.append("  no column with missing cells on either side")
        return out
    for e in entries:
        columns, hidden = missing_shift_columns(e)
        if not columns:
            continue
        out.append(f"  {e['dimension']}:")
        cw = min(max([6, *(len(shown(c["name"])) for c in columns)]), 24)
        for c in columns:
            g = c["groups"][0]
            overall, most = missing_shift_cells(c, n_a, n_b)
            out.append(
                f"    {clip(c['name'], cw).ljust(cw)} {_moved(overall)}"
                f"; most moved '{clip(g['label'], 24)}' {most[0]} -> {most[1]}"
            )
        if hidden > 0:
            out.append(f"    ... {hidden} more {columns_word(hidden)} (--json lists all)")
    return out


def _lines(out: list[str]) -> str:
    """The report's text: every line through shown() (labels, column names and file
    names may hold control characters; the report's own text holds none)."""
    return "\n".join(map(shown, out)) + "\n"


# ---------------------------------------------------------------------------------------
# The text renderers of the registry (faircode.renderers.RENDERERS)


def profile_text(result: dict, *, name: str, **_: Any) -> str:
    """The terminal report of a profile (the ``text`` renderer of ``profile``)."""
    return render(result, name)


def compare_text(result: dict, *, name_a: str = "a", name_b: str = "b", **_: Any) -> str:
    """The terminal report of a comparison (the ``text`` renderer of ``compare``)."""
    return render_compare(result, name_a, name_b)
