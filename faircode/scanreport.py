"""The reports of `faircode scan` (SPEC.md section 19): terminal text and Markdown.

Both say the same things in the same order: what was compared, the worst subgroup (its
rule, rows, effect with its interval, and the p-value calibrated for the search), the
runners-up, how large the search was, and how to declare the subgroup as a slice. Labels
and names go through `safetext.shown` (SPEC 0.6): a hostile label cannot move the cursor.
"""

from __future__ import annotations

from .numerics import fmt, pct, share_text
from .safetext import md_escape, shown

TYPE_CHECKING = False  # typing costs ~5 ms of start-up; only type checkers read it
if TYPE_CHECKING:
    from typing import Any

QUESTION_WORDS = {
    "representation": "representation: the share of each subgroup in B vs in A "
    "(Maximum Subgroup Discrepancy)",
    "reference": "representation vs a population reference: each subgroup's share of the "
    "rows vs its expected share",
    "rate": "rate gap: each subgroup's rate vs the rest of the table",
}


def _rows(n: int) -> str:
    return f"{n:,} row" if n == 1 else f"{n:,} rows"


def _p_text(result: dict) -> str:
    sub = result["subgroup"]
    test = result["test"]
    how = (
        f"{test['done']} seeded bootstrap samples of the reference"
        if test["method"] == "bootstrap"
        else f"{test['done']} seeded permutations"
    )
    if sub["p"] is None:
        return "p-value: not computed (no permutation ran)"
    verdict = (
        f"confirmed at alpha {test['alpha']:g}"
        if sub["verdict"] == "confirmed"
        else f"possible (p is not below alpha {test['alpha']:g})"
    )
    return (
        f"p = {fmt(sub['p'], 4)}, calibrated for the search ({how}, seed {test['seed']}): {verdict}"
    )


def _compared(result: dict) -> str:
    c = result["compared"]
    if result["question"] == "rate":
        what = f"{c['label']} = '{c['positive']}'"
        if c.get("prediction"):
            what = f"errors of {c['prediction']} against {c['label']}"
        rate = "-" if c["rate"] is None else share_text(c["rate"], c["positives"], c["rows"])
        return f"{what}: {_rows(c['rows'])}, overall rate {rate}"
    a, b = c["a"], c["b"]
    a_rows = "" if a["rows"] is None else f" ({_rows(a['rows'])})"
    return f"A = {a['name']}{a_rows}; B = {b['name']} ({_rows(b['rows'])})"


def _search_text(result: dict) -> str:
    s = result["search"]
    names = ", ".join(a["name"] for a in result["attributes"])
    how = (
        "exact enumeration" if s["method"] == "exact" else f"beam search (width {s['beam_width']})"
    )
    done = "" if s["complete"] else ", stopped at the time bound"
    return (
        f"{how} of {s['evaluated']:,} subgroups (space {s['space']:,}) over "
        f"{s['attribute_sets']:,} attribute sets of 1 to {s['depth']} of: {names}; "
        f"min size {s['min_size']}; {fmt(s['seconds'], 2)} s{done}"
    )


def describe_effect(question: str, sub: dict, compared: dict) -> str:
    """One line of a subgroup's effect, as every report shows it. A share or rate of
    some rows but not all never reads 0.00% or 100.00% (SPEC 19, 8)."""
    band = f"[95% {pct(sub['ci_low'])} to {pct(sub['ci_high'])} pts]"
    if question == "representation":
        b = share_text(sub["share_b"], sub["rows_b"], sub["n_b"])
        a = share_text(sub["share_a"], sub["rows_a"], sub["n_a"])
        return (
            f"{b} of {compared['b']['name']} vs {a} of {compared['a']['name']}: "
            f"{_signed(sub['effect'])} pts {band}"
        )
    if question == "reference":
        return (
            f"{share_text(sub['share'], sub['rows'], compared['b']['rows'])} of the rows vs "
            f"{pct(sub['expected'])}% expected: {_signed(sub['effect'])} pts {band}"
        )
    what = "error rate" if compared.get("prediction") else "rate"
    rest = compared["rows"] - sub["rows"]
    rest_rate = share_text(sub["rate_rest"], compared["positives"] - sub["positives"], rest)
    return (
        f"{what} {share_text(sub['rate'], sub['positives'], sub['rows'])} vs {rest_rate} in the "
        f"rest: {_signed(sub['effect'])} pts {band}, z {fmt(sub['score'], 2)}"
    )


def _signed(x: float) -> str:
    t = pct(x)
    return t if t.startswith("-") else "+" + t


def _effect(result: dict, sub: dict) -> str:
    return describe_effect(result["question"], sub, result["compared"])


def overlap_text(result: dict) -> str | None:
    """SPEC 19: how many runners-up have a 95% interval that overlaps the worst subgroup's,
    so the report does not state the worst as if resampling could not change it; None
    when none does."""
    sub = result["subgroup"]
    if sub is None:
        return None
    ups = result["runners_up"]
    k = sum(1 for r in ups if r["ci_low"] <= sub["ci_high"] and r["ci_high"] >= sub["ci_low"])
    if k == 0:
        return None
    return (
        f"{k} of the next {len(ups)} overlap its interval: on another sample of rows, "
        f"{'it' if k == 1 else 'one of them'} may be the worst"
    )


def scan_title(result: dict, name: str = "", name_b: str = "") -> str:
    """Every format's title (SPEC 19): what the report is about, `faircode scan: FILE`,
    or for two files both, as `compare A B`'s Markdown names them (`A = a.csv, B = b.csv`:
    no arrow, which Markdown would escape)."""
    if name_b:
        return f"faircode scan: A = {name}, B = {name_b}"
    return f"faircode scan: {name or result['compared'].get('b', {}).get('name', '')}"


def render_text(result: dict, *, name: str = "", name_b: str = "", **_: Any) -> str:
    out = [scan_title(result, name, name_b)]
    out.append(f"Question: {QUESTION_WORDS[result['question']]}")
    out.append(f"Compared: {_compared(result)}")
    sub = result["subgroup"]
    if sub is None:
        out.append("Worst subgroup: none")
    else:
        n_cond = f"{sub['length']} condition{'s' if sub['length'] != 1 else ''}"
        out.append(f"Worst subgroup: {sub['text']}  ({n_cond}, {_rows(sub['rows'])})")
        out.append(f"  {_effect(result, sub)}")
        out.append(f"  {_p_text(result)}")
        out.append("  (the interval is not adjusted for the search; the p-value is)")
        overlap = overlap_text(result)
        if overlap:
            out.append(f"  ({overlap})")
    if result["runners_up"]:
        out.append("Next:")
        for r in result["runners_up"]:
            out.append(f"  {r['text']}  ({_rows(r['rows'])}): {_effect(result, r)}")
    out.append(f"Search: {_search_text(result)}")
    for note in result["notes"]:
        out.append(f"Note: {note}")
    if result["declare"] is not None:
        d = result["declare"]
        out.append("Advisory: a scan is never part of the grade or a gate. To watch this subgroup:")
        out.append(f"  {d['profile']}")
        out.append(
            "  or a fairness.yaml entry (fairness report --intersect shows the combination):"
        )
        out.extend(f"    {line}" for line in d["registry"].rstrip("\n").split("\n"))
    else:
        out.append("Advisory: a scan is never part of the grade or a gate.")
    return "\n".join(map(shown, out)) + "\n"


def _md(text: str) -> str:
    """User text as inert Markdown on one line (safetext.md_escape)."""
    return md_escape(text)


def render_markdown(result: dict, *, name: str = "", name_b: str = "", **_: Any) -> str:
    out = [f"## {_md(scan_title(result, name, name_b))}", ""]
    out.append(f"**Question:** {_md(QUESTION_WORDS[result['question']])}  ")
    out.append(f"**Compared:** {_md(_compared(result))}")
    out.append("")
    sub = result["subgroup"]
    if sub is None:
        out.append("No subgroup differs.")
    else:
        out.append(f"**Worst subgroup:** {_md(sub['text'])} ({_rows(sub['rows'])})")
        out.append("")
        out.append(f"- {_md(_effect(result, sub))}")
        out.append(f"- {_md(_p_text(result))}")
        out.append("- the interval is not adjusted for the search; the p-value is")
        overlap = overlap_text(result)
        if overlap:
            out.append(f"- {_md(overlap)}")
    rows = ([sub] if sub else []) + result["runners_up"]
    if rows:
        out += [
            "",
            "| subgroup | rows | effect (pts) | 95% interval | score |",
            "|---|---:|---:|---|---:|",
        ]
        for r in rows:
            out.append(
                f"| {_md(r['text'])} | {r['rows']:,} | {pct(r['effect'])} | "
                f"{pct(r['ci_low'])} to {pct(r['ci_high'])} | "
                f"{fmt(r['score'], 4)} |"
            )
    out += ["", f"Search: {_md(_search_text(result))}"]
    for note in result["notes"]:
        out += ["", f"Note: {_md(note)}"]
    out += ["", "Advisory: a scan is never part of the grade or a gate."]
    if result["declare"] is not None:
        d = result["declare"]
        out += ["To watch this subgroup:", "", "    " + shown(d["profile"]), ""]
        out += ["or in `fairness.yaml` (`fairness report --intersect` shows the combination):", ""]
        out += ["    " + shown(line) for line in d["registry"].rstrip("\n").split("\n")]
    return "\n".join(out) + "\n"


def scan_blocks(result: dict, name: str = "", name_b: str = "") -> list[tuple]:
    """The scan as the audit packs' document blocks (faircode/audit/doc.py): the HTML
    report says what the text and Markdown reports say, in their order."""
    blocks: list[tuple] = [("title", scan_title(result, name, name_b))]
    blocks.append(
        (
            "facts",
            [("Question", QUESTION_WORDS[result["question"]]), ("Compared", _compared(result))],
        )
    )
    sub = result["subgroup"]
    if sub is None:
        blocks.append(("p", "No subgroup differs."))
    else:
        blocks.append(("h2", f"Worst subgroup: {sub['text']} ({_rows(sub['rows'])})"))
        blocks.append(
            (
                "list",
                [
                    _effect(result, sub),
                    _p_text(result),
                    "the interval is not adjusted for the search; the p-value is",
                    *filter(None, [overlap_text(result)]),
                ],
            )
        )
    rows = ([sub] if sub else []) + result["runners_up"]
    if rows:
        table = [
            [
                r["text"],
                f"{r['rows']:,}",
                pct(r["effect"]),
                f"{pct(r['ci_low'])} to {pct(r['ci_high'])}",
                fmt(r["score"], 4),
            ]
            for r in rows
        ]
        head = ["subgroup", "rows", "effect (pts)", "95% interval", "score"]
        blocks.append(("table", head, "lrrlr", table))
    blocks.append(("p", f"Search: {_search_text(result)}"))
    blocks += [("p", f"Note: {note}") for note in result["notes"]]
    blocks.append(("mark", "Advisory: a scan is never part of the grade or a gate."))
    if result["declare"] is not None:
        d = result["declare"]
        blocks.append(("p", "To watch this subgroup:"))
        blocks.append(("pre", [d["profile"]]))
        blocks.append(
            ("p", "or in fairness.yaml (fairness report --intersect shows the combination):")
        )
        blocks.append(("pre", d["registry"].rstrip("\n").split("\n")))
    return blocks


def render_html(result: dict, *, name: str = "", name_b: str = "", **_: Any) -> str:
    """The scan as one self-contained HTML page that loads nothing (audit/doc.py)."""
    from .audit.doc import render_html as page  # lazy: start-up

    return page(scan_blocks(result, name, name_b), scan_title(result, name, name_b))
