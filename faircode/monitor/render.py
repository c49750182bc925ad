"""Terminal, JSON, Markdown and HTML renderings of an ``evaluate`` report (registered in
:data:`faircode.render.RENDERERS`)."""

from __future__ import annotations

import html
import json
from typing import Any

from ..safetext import md_escape, shown
from .disparities import TITLES
from .intervals import count_unit
from .metrics import METRICS, columns, detail_columns, score_columns
from .stats import exceeds, round12

#: Disparity names as the reports title them (from the one list, disparities.DISPARITIES).
DISPARITY_TITLES = TITLES
#: A metric's short name in tables (its column or error-rate header).
METRIC_SHORT = {m.name: m.header or m.detail or m.name for m in METRICS}
STATUS_TEXT = {
    "within_threshold": "within threshold",
    "exceeded": "disparity exceeded",
    "insufficient_evidence": (
        "insufficient evidence (an interval straddles the threshold, or slices are below "
        "the low-n guard)"
    ),
    "unmeasured": "unmeasured (not enough eligible slices to decide)",
}
#: A gated disparity's status as the terminal names it (evaluate's disparity lines, the
#: trend's legend); ``ok`` is lower case, so the verdicts that need reading stand out.
DISPARITY_STATUS_WORDS = {
    "exceeded": "EXCEEDED",
    "insufficient": "INSUFFICIENT",
    "partly_measured": "PARTLY MEASURED",
    "unmeasured": "UNMEASURED",
}
#: A trend cell's mark after a decided value (SPEC 15.5); none for ``ok``, and a
#: disparity without a value shows its note instead.
TREND_MARKS = {"exceeded": "!", "insufficient": "?", "partly_measured": "~"}


def trend_legend() -> str:
    """The trend table's key to its marks, in evaluate's words: ``! EXCEEDED, ...``."""
    return ", ".join(f"{m} {DISPARITY_STATUS_WORDS[s]}" for s, m in TREND_MARKS.items())


def fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ci_text(ci: list[float] | None, digits: int = 3) -> str:
    """A disparity's interval as `lo-hi` (SPEC 12.7)."""
    if ci is None:
        return "-"
    return f"{fmt(ci[0], digits)}-{'inf' if ci[1] is None else fmt(ci[1], digits)}"


def exact(value: float) -> str:
    """A value as the exceed rule sees it (rounded half-up to 12 decimals)."""
    return format(round12(value), ".12g")


def insufficient_text(d: dict[str, Any]) -> str:
    """What an insufficient disparity (or its entry in the report's ``insufficient``)
    shows after its metric's name: its value and interval straddling the threshold, or,
    when its slices sit below the low-n guard (SPEC 12.8), the reason it has no value."""
    need = d["rows_needed"] or {}
    if "guard" in need:
        below = f"below the low-n guard of {need['guard']}"
        if d["value"] is None:
            return f": no value, its slices are {below} ({d['reason']})"
        return (
            f" = {exact(d['value'])} (95% CI {ci_text(d['ci95'])}); {need['metric']} "
            f"unmeasured, its slices {below}"
        )
    text = f" = {exact(d['value'])} (95% CI {ci_text(d['ci95'])})"
    if above_before_holm(d):
        return (
            f"{text} lies above threshold {d['threshold']:g}, but not after Holm's "
            "correction over the report's gated disparities"
        )
    return f"{text} straddles threshold {d['threshold']:g}"


def above_before_holm(d: dict[str, Any]) -> bool:
    """An insufficient disparity whose 95% interval lies above its threshold: above at
    95% alone, not after Holm's correction over the report's family (SPEC 12.7)."""
    return d["ci95"] is not None and exceeds(d["ci95"][0], d["threshold"])


def settle_text(need: dict[str, Any] | None) -> str:
    """`; about N <unit> in each of 'A' and 'B' (now a and b) would settle it` (and the
    other half's, for equalized odds): what would settle an insufficient disparity
    (SPEC 12.7, 12.8); "" when no finite count would."""
    parts = []
    while need is not None and need["per_slice"] is not None:
        names = [f"'{shown(x)}'" for x in need["slices"]]
        # a whole count as is; a weighted effective size (SPEC 12.7) to one decimal
        now = [f"{c:,}" if isinstance(c, int) else f"{c:,.1f}" for c in need["count_now"]]
        where = f"in {names[0]}" if len(names) == 1 else f"in each of {_listed(names)}"
        parts.append(
            f"about {need['per_slice']:,} {count_unit(need['metric'])} {where} (now {_listed(now)})"
        )
        need = need.get("also")
    return f"; {' and '.join(parts)} would settle it" if parts else ""


def _listed(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _columns(report: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(header, metric) pairs after Slice/N/Labelled, from the one list metrics.METRICS."""
    return list(columns(report["task"]["type"]))


def _detail_columns(group: dict[str, Any], task: str) -> list[tuple[str, str]]:
    """(header, metric) of the error-rate table of ``group``; empty without labels."""
    cols = detail_columns(task)
    have = any(m in s["metrics"] for s in group["slices"] for _, m in cols)
    return cols if have else []


def _score_columns(group: dict[str, Any], task: str) -> list[tuple[str, str]]:
    """(header, metric) of the score table of ``group`` (AUC, Brier, ECE; SPEC 12.4);
    empty without ``--score`` and labels."""
    cols = score_columns(task)
    have = any(m in s["metrics"] for s in group["slices"] for _, m in cols)
    return cols if have else []


def _bins_text(slice_: dict[str, Any]) -> str:
    """A slice's reliability bins, compactly: `0.1-0.2: 0.15/0.12 (n=40)` (mean score /
    observed rate, count) per non-empty bin."""
    bins = slice_.get("calibration") or []
    return "; ".join(
        f"{b['low']:.1f}-{b['high']:.1f}: {b['mean_score']:.3f}/{b['observed_rate']:.3f} "
        f"(n={b['count']})"
        for b in bins
    )


def _calibration_line(report: dict[str, Any]) -> str | None:
    cal = report.get("calibration")
    if cal is None:
        return None
    if cal["scale"] == "identity":
        how = "scores used as probabilities"
    elif cal["scale"] == "min-max":
        how = (
            f"scores min-max scaled from [{cal['min']:g}, {cal['max']:g}] to [0, 1] over the "
            "labelled rows"
        )
    else:
        how = "no probability scale (one score value outside [0, 1], or no labelled score)"
    return (
        f"calibration: {cal['bins']} equal-width bins over [0, 1]; {how}; AUC intervals "
        "Newcombe score-type"
    )


def guard_text(slice_: dict[str, Any]) -> str:
    low = slice_["low_n"]
    if not low:
        return ""
    if len(low) == len(slice_["metrics"]):
        return "low-n"
    return "low-n: " + ", ".join(low)


def _cell(slice_: dict[str, Any], metric: str | None) -> str:
    if metric is None or metric not in slice_["metrics"]:
        return "n/a"
    return fmt(slice_["metrics"][metric]["value"])


def _disparity_line(d: dict[str, Any]) -> tuple[str, str, str]:
    title = DISPARITY_TITLES.get(d["metric"], d["metric"])
    if d["value"] is None and d["status"] != "insufficient":
        return title, "-", f"{DISPARITY_STATUS_WORDS['unmeasured']}: {d['reason']}"
    notes = []
    if d.get("ci95") is not None:
        notes.append(f"95% CI {ci_text(d['ci95'])}")
    if d["status"] == "exceeded":
        notes.append(f"{DISPARITY_STATUS_WORDS['exceeded']} (> {d['threshold']:g})")
    elif d["status"] == "ok":
        notes.append(f"ok (<= {d['threshold']:g})")
    elif d["status"] == "insufficient":
        need = d["rows_needed"]
        more = settle_text(need)  # the count, its unit and slices, as the gate says it
        word = DISPARITY_STATUS_WORDS["insufficient"]
        if need and "guard" in need:
            notes.append(f"{word} ({need['metric']} slices below the guard{more})")
        else:
            where = f"interval across {d['threshold']:g}"
            if above_before_holm(d):
                where = f"interval above {d['threshold']:g} only before Holm's correction"
            notes.append(f"{word} ({where}{more})")
    elif d["status"] == "partly_measured":
        unmeasured = [m for m in d["based_on"] if m not in d.get("measured", [])]
        word = DISPARITY_STATUS_WORDS["partly_measured"]
        notes.append(f"{word} ({', '.join(unmeasured)} unmeasured)")
    if "four_fifths_rule" in d:
        notes.append(f"four-fifths rule: {d['four_fifths_rule']}")
    comp = d.get("components")
    if comp:
        notes.append(f"TPR range {fmt(comp['tpr_range'])}, FPR range {fmt(comp['fpr_range'])}")
    elif d["max"] is not None and d["metric"] != "demographic_parity_ratio":
        notes.append(
            f"max {d['max']['slice']} {fmt(d['max']['value'])}, "
            f"min {d['min']['slice']} {fmt(d['min']['value'])}"
        )
    return title, fmt(d["value"], 4), "; ".join(notes)


def _header_lines(report: dict[str, Any]) -> list[str]:
    task = report["task"]
    cols = report["columns"]
    rows = report["rows"]
    s = report["settings"]
    lines = [
        f"model: {task['type']} ({task['source']}: {task['reason']})",
        f"prediction: {report['prediction']}; label: {cols['label'] or '(none)'}; "
        f"engine: {report['engine']}",
        f"rows: {rows['total']} total, {rows['scored']} scored, {rows['labelled']} labelled, "
        f"{rows['awaiting_label']} awaiting a label, {rows['without_prediction']} without "
        "a prediction",
        f"threshold: {s['threshold']:g} (a disparity exceeds it when greater, compared at 12 "
        f"decimals); min samples: {s['min_samples']}",
    ]
    if s.get("rule") == "interval":
        lines.append(
            f"rule: interval (a disparity is judged by its {100 * (1 - s['alpha']):g}% interval "
            "from simultaneous slice intervals, Holm's correction over the report's gated "
            "disparities)"
        )
    elif s.get("rule") == "point":
        lines.append("rule: point (a disparity is judged by its value alone)")
    if "weight" in cols:  # --weight (SPEC 12.4, 12.7)
        lines.append(
            f"weights: {cols['weight']} (every rate and mean weighted; intervals and the "
            "low-n guard at each count's effective size (sum w)^2 / sum w^2, n_eff; N and "
            "counts are rows)"
        )
    cal = _calibration_line(report)
    if cal:
        lines.append(cal)
    return lines


def _excluded_note(group: dict[str, Any]) -> str | None:
    seen: dict[str, set[str]] = {}
    for d in group["disparities"]:
        for e in d["excluded_slices"]:
            seen.setdefault(e["slice"], set()).add(e["reason"])
    if not seen:
        return None
    parts = [f"{k} ({'/'.join(sorted(v))})" for k, v in seen.items()]
    return "excluded from some disparities: " + ", ".join(parts)


def _reference_head(ref: dict[str, Any]) -> str:
    """Which slice is the reference of a `reference` block (SPEC 12.6)."""
    attr = ref["attribute"]
    if ref["method"] == "min":
        return f"reference {attr}: per metric, the slice with the lowest eligible rate (min)"
    if ref["slice"] is None:
        return f"reference {attr} ({ref['method']}): none ({ref['reason']})"
    how = " (maj: the slice with the most rows)" if ref["method"] == "maj" else ""
    return f"reference {attr} = {ref['slice']}{how}"


def _reference_grid(ref: dict[str, Any]) -> tuple[list[str], list[str], dict[tuple, Any]]:
    """(metrics, slices, {(slice, metric): comparison or "ref"}) of a reference block."""
    cells: dict[tuple, Any] = {}
    metrics: list[str] = []
    slices: list[str] = []
    for c in ref["comparisons"]:
        metrics.append(c["metric"])
        slices.append(c["slice"])
        cells[(c["slice"], c["metric"])] = c
        cells.setdefault((c["reference"], c["metric"]), "ref")
    if ref["method"] != "min" and ref["slice"] is not None:
        slices = [ref["slice"], *slices]
    return list(dict.fromkeys(metrics)), list(dict.fromkeys(slices)), cells


def _ratio_cell(cell: Any) -> str:
    if cell is None:
        return "-"
    if cell == "ref":
        return "ref"
    if cell["ratio"] is None:
        return "-"
    mark = {"below": "<", "above": ">"}.get(cell["four_fifths"], "")
    return f"{cell['ratio']:.2f}{mark}"


def _reference_text(ref: dict[str, Any]) -> list[str]:
    """The terminal's compact reference table: the ratio of every slice and rate."""
    lines = [_reference_head(ref) + ": ratio slice / reference (< below, > above 0.8-1.25)"]
    metrics, slices, cells = _reference_grid(ref)
    if not metrics:
        lines.append("  no slice is eligible beside the reference")
        return lines
    head = ["Slice"] + [METRIC_SHORT.get(m, m) for m in metrics]
    rows = [[s] + [_ratio_cell(cells.get((s, m))) for m in metrics] for s in slices]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        lines.append(
            "  "
            + "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ).rstrip()
        )
    lines.append("  differences and their intervals: --format json, markdown, csv or html")
    return lines


def _ci_pair(ci: list[float] | None, digits: int = 3) -> str:
    return "-" if ci is None else f"{ci[0]:.{digits}f} to {ci[1]:.{digits}f}"


def _reference_rows(ref: dict[str, Any]) -> list[list[str]]:
    """Metric, Slice, Rate, Reference, Difference (95% CI), Ratio (95% CI), Four-fifths."""
    return [
        [
            METRIC_SHORT.get(c["metric"], c["metric"]),
            c["slice"],
            fmt(c["value"]),
            f"{c['reference']} {fmt(c['reference_value'])}",
            f"{c['difference']:+.3f} ({_ci_pair(c['difference_ci95'])})",
            "-" if c["ratio"] is None else f"{c['ratio']:.3f} ({_ci_pair(c['ratio_ci95'])})",
            c["four_fifths"] or "-",
        ]
        for c in ref["comparisons"]
    ]


REFERENCE_HEAD = [
    "Metric",
    "Slice",
    "Rate",
    "Reference",
    "Difference (95% CI)",
    "Ratio (95% CI)",
    "Four-fifths",
]
REFERENCE_NOTE = (
    "difference = slice - reference (Newcombe 95% CI), ratio = slice / reference (Katz "
    "log 95% CI); four-fifths: the ratio within 0.8-1.25, a convention, not a test; "
    "reported, never gated"
)


def render_json(report: dict[str, Any]) -> str:
    """The report as JSON (schema.json), two-space indented, no NaN."""
    return json.dumps(report, indent=2, allow_nan=False) + "\n"


def render_text(report: dict[str, Any]) -> str:
    out = [f"faircode fairness evaluate: {report['source'] or 'data'}"]
    out += _header_lines(report)
    cols = _columns(report)
    for g in report["groups"]:
        out.append("")
        out.append(f"{g['name']}: {STATUS_TEXT[g['status']]}")
        head = ["Slice", "N", "Labelled"] + [h for h, _ in cols] + ["Guard"]
        rows = [
            [shown(s["slice"]), str(s["n"]), str(s["n_labelled"])]
            + [_cell(s, m) for _, m in cols]
            + [guard_text(s)]
            for s in g["slices"]
        ]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        right = {1, 2} | set(range(3, 3 + len(cols)))

        def line(cells: list[str], widths: list[int] = widths, right: set[int] = right) -> str:
            return "  ".join(
                c.rjust(w) if i in right else c.ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()

        out.append(line(head))
        out.append(line(["-" * w for w in widths]))
        out.extend(line(r) for r in rows)
        scored = _score_columns(g, report["task"]["type"])
        if scored:  # compact: AUC, Brier, ECE per slice (bins in the other formats)
            out.append(
                "scores: "
                + "; ".join(
                    f"{shown(s['slice'])} " + " ".join(f"{h} {_cell(s, m)}" for h, m in scored)
                    for s in g["slices"]
                )
            )
        out.append("disparities:")
        dl = [_disparity_line(d) for d in g["disparities"]]
        tw = max((len(t) for t, _, _ in dl), default=0)
        for title, value, note in dl:
            out.append(f"  {title.ljust(tw)}  {value.rjust(6)}  {note}".rstrip())
        note = _excluded_note(g)
        if note:
            out.append(f"  {note}")
        if g.get("reference"):
            out.extend(_reference_text(g["reference"]))
    out.append("")
    out.append(f"status: {STATUS_TEXT[report['status']]}")
    # labels, column and file names may hold control characters: every line is shown()
    return "\n".join(map(shown, out)) + "\n"


#: The one Markdown escaping of every export (faircode/safetext.py).
_md_escape = md_escape


def _md_rate(slice_: dict[str, Any], metric: str | None) -> str:
    if metric is None or metric not in slice_["metrics"]:
        return "n/a"
    m = slice_["metrics"][metric]
    text = fmt(m["value"])
    if m.get("ci95"):
        text += f" ({fmt(m['ci95'][0])}-{fmt(m['ci95'][1])})"
    return text


def render_markdown(report: dict[str, Any]) -> str:
    status = STATUS_TEXT[report["status"]]
    out = [f"### faircode fairness: {status}", ""]
    out += [f"- {_md_escape(x)}" for x in _header_lines(report)]
    if report["failures"]:
        out += ["", "**Exceeded:**", ""]
        out += [
            f"- **{_md_escape(f['group'])}** `{f['metric']}` = {exact(f['value'])} > "
            f"{f['threshold']:g}"
            for f in report["failures"]
        ]
    if report.get("insufficient"):
        out += ["", "**Insufficient evidence:**", ""]
        out += [
            f"- **{_md_escape(f['group'])}** `{f['metric']}`{_md_escape(insufficient_text(f))}"
            + _md_escape(settle_text(f["rows_needed"]))
            for f in report["insufficient"]
        ]
    if report["unmeasured"]:
        out += ["", "**Unmeasured:**", ""]
        out += [
            f"- **{_md_escape(u['group'])}** `{u['metric']}`: {_md_escape(u['reason'])}"
            for u in report["unmeasured"]
        ]
    cols = _columns(report)
    for g in report["groups"]:
        out += ["", f"#### {_md_escape(g['name'])}: {STATUS_TEXT[g['status']]}", ""]
        head = ["Slice", "N", "Labelled"] + [h for h, _ in cols] + ["Guard"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 2) + ["---"]) + "|")
        for s in g["slices"]:
            cells = [_md_escape(s["slice"]), str(s["n"]), str(s["n_labelled"])]
            cells += [_md_rate(s, m) for _, m in cols] + [_md_escape(guard_text(s))]
            out.append("| " + " | ".join(cells) + " |")
        detail = _detail_columns(g, report["task"]["type"])
        if detail:
            # a second table: the main one is as wide as a PR comment allows
            out += ["", "| Slice | " + " | ".join(h for h, _ in detail) + " |"]
            out.append("|" + "|".join(["---"] + ["---:"] * len(detail)) + "|")
            for s in g["slices"]:
                cells = [_md_escape(s["slice"])] + [_md_rate(s, m) for _, m in detail]
                out.append("| " + " | ".join(cells) + " |")
        scored = _score_columns(g, report["task"]["type"])
        if scored:  # a third table: AUC (Newcombe's score interval), Brier, ECE
            out += ["", "| Slice | " + " | ".join(h for h, _ in scored) + " | Guard |"]
            out.append("|" + "|".join(["---"] + ["---:"] * len(scored) + ["---"]) + "|")
            for s in g["slices"]:
                low = [m for _, m in scored if m in s["metrics"] and s["metrics"][m]["low_n"]]
                cells = [_md_escape(s["slice"])] + [_md_rate(s, m) for _, m in scored]
                cells.append("low-n: " + ", ".join(low) if low else "")
                out.append("| " + " | ".join(cells) + " |")
            out += ["", "<details><summary>Reliability bins (mean score / observed rate)"]
            out[-1] += "</summary>"
            out += ["", "| Slice | Bin | N | Mean score | Observed |", "|---|---|---:|---:|---:|"]
            for s in g["slices"]:
                for b in s.get("calibration") or []:
                    out.append(
                        f"| {_md_escape(s['slice'])} | {b['low']:.1f}-{b['high']:.1f} | "
                        f"{b['count']} | {fmt(b['mean_score'])} | {fmt(b['observed_rate'])} |"
                    )
            out += ["", "</details>"]
        out += ["", "| Disparity | Value | Verdict |", "|---|---:|---|"]
        for d in g["disparities"]:
            title, value, note = _disparity_line(d)
            out.append(f"| {_md_escape(title)} | {value} | {_md_escape(note)} |")
        note = _excluded_note(g)
        if note:
            out += ["", f"_{_md_escape(note)}_"]
        ref = g.get("reference")
        if ref:
            out += ["", f"**{_md_escape(_reference_head(ref))}**", ""]
            if ref["comparisons"]:
                out.append("| " + " | ".join(REFERENCE_HEAD) + " |")
                out.append("|---|---|---:|---|---:|---:|---|")
                for row in _reference_rows(ref):
                    out.append("| " + " | ".join(_md_escape(c) for c in row) + " |")
                out += ["", f"_{_md_escape(REFERENCE_NOTE)}_"]
            else:
                out.append("_no slice is eligible beside the reference_")
    out += [
        "",
        "Rates show Wilson 95% intervals in parentheses; `low-n` slices are excluded from "
        "the disparity of that metric.",
    ]
    return "\n".join(out) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}
.exceeded{color:#a40000;font-weight:bold}.unmeasured,.partly_measured,.insufficient,
.insufficient_evidence{color:#8a5a00}.ok{color:#1a6b1a}
small{color:#666}
"""


def _html_rate(slice_: dict[str, Any], metric: str) -> str:
    if metric not in slice_["metrics"]:
        return "n/a"
    m = slice_["metrics"][metric]
    ci = m.get("ci95")
    extra = f"<br><small>{fmt(ci[0])}-{fmt(ci[1])}</small>" if ci else ""
    return fmt(m["value"]) + extra


def render_html(report: dict[str, Any]) -> str:
    def e(text: str) -> str:
        return html.escape(shown(text))

    status = report["status"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>faircode fairness: {e(STATUS_TEXT[status])}</title>",
        f"<style>{_CSS}</style></head><body>",
        f'<h1>faircode fairness: <span class="{e(status)}">{e(STATUS_TEXT[status])}</span></h1>',
        "<ul>" + "".join(f"<li>{e(x)}</li>" for x in _header_lines(report)) + "</ul>",
    ]
    cols = _columns(report)
    for g in report["groups"]:
        gs = g["status"]
        parts.append(f'<h2>{e(g["name"])}: <span class="{e(gs)}">{e(STATUS_TEXT[gs])}</span></h2>')
        head = ["Slice", "N", "Labelled"] + [h for h, _ in cols] + ["Guard"]
        parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
        for s in g["slices"]:
            cells = [e(s["slice"]), str(s["n"]), str(s["n_labelled"])]
            cells += [_html_rate(s, m) for _, m in cols]
            cells.append(e(guard_text(s)))
            parts.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        parts.append("</table>")
        detail = _detail_columns(g, report["task"]["type"])
        if detail:
            head = ["Slice"] + [h for h, _ in detail]
            parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
            for s in g["slices"]:
                cells = [e(s["slice"])] + [_html_rate(s, m) for _, m in detail]
                parts.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
            parts.append("</table>")
        scored = _score_columns(g, report["task"]["type"])
        if scored:
            head = ["Slice"] + [h for h, _ in scored] + ["Reliability bins (mean / observed)"]
            parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
            for s in g["slices"]:
                cells = [e(s["slice"])] + [_html_rate(s, m) for _, m in scored]
                cells.append(f'<small style="text-align:left">{e(_bins_text(s))}</small>')
                parts.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
            parts.append("</table>")
        parts.append("<table><tr><th>Disparity</th><th>Value</th><th>Verdict</th></tr>")
        for d in g["disparities"]:
            title, value, note = _disparity_line(d)
            parts.append(
                f"<tr><td>{e(title)}</td><td>{e(value)}</td>"
                f'<td class="{e(d["status"])}" style="text-align:left">{e(note)}</td></tr>'
            )
        parts.append("</table>")
        note = _excluded_note(g)
        if note:
            parts.append(f"<p><small>{e(note)}</small></p>")
        ref = g.get("reference")
        if ref:
            parts.append(f"<h3>{e(_reference_head(ref))}</h3>")
            if ref["comparisons"]:
                parts.append(
                    "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in REFERENCE_HEAD) + "</tr>"
                )
                for row in _reference_rows(ref):
                    parts.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>")
                parts.append("</table>")
                parts.append(f"<p><small>{e(REFERENCE_NOTE)}</small></p>")
            else:
                parts.append("<p><small>no slice is eligible beside the reference</small></p>")
    parts.append(
        "<p><small>Rates show Wilson 95% intervals underneath. Generated by faircode."
        "</small></p></body></html>"
    )
    return "\n".join(parts) + "\n"


#: The columns of `fairness evaluate --csv`, in order (docs/reports.md and SPEC 12.11).
CSV_COLUMNS = (
    "section",
    "group",
    "slice",
    "n",
    "n_labelled",
    "metric",
    "value",
    "count",
    "successes",
    "ci_low",
    "ci_high",
    "low_n",
    "status",
    "gated",
    "threshold",
    "max_slice",
    "max_value",
    "min_slice",
    "min_value",
    "eligible_slices",
    "four_fifths_rule",
    "note",
    # SPEC 12.7: the disparity's interval, its p-values and the rows that would settle it
    "p_exceeds",
    "p_within",
    "rows_needed_per_slice",
    # SPEC 12.6: section `reference`: value, ci_low, ci_high = the difference and its
    # Newcombe interval; the ratio and its Katz log interval; four_fifths_rule = the band
    "reference_slice",
    "ratio",
    "ratio_ci_low",
    "ratio_ci_high",
    # SPEC 12.4: a reliability bin (section `calibration`, --score with labels)
    "bin_low",
    "bin_high",
    "mean_score",
)


def _csv_rows(report: dict[str, Any]):
    s = report["settings"]
    yield {
        "section": "evaluate",
        "status": report["status"],
        "threshold": s["threshold"],
        "n": report["rows"]["scored"],
        "n_labelled": report["rows"]["labelled"],
        "note": f"{report['task']['type']} model; prediction {report['prediction']}"
        + (f"; weighted by {report['columns']['weight']}" if _weighted(report) else ""),
    }
    for g in report["groups"]:
        for sl in g["slices"]:
            for metric, m in sl["metrics"].items():
                ci = m.get("ci95") or (None, None)
                yield {
                    "section": "slice",
                    "group": g["name"],
                    "slice": sl["slice"],
                    "n": sl["n"],
                    "n_labelled": sl["n_labelled"],
                    "metric": metric,
                    "value": m["value"],
                    "count": m["count"],
                    "successes": m.get("successes"),
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                    "low_n": m["low_n"],
                    "n_eff": m.get("n_eff"),
                }
            for b in sl.get("calibration") or []:
                yield {
                    "section": "calibration",
                    "group": g["name"],
                    "slice": sl["slice"],
                    "n": sl["n"],
                    "n_labelled": sl["n_labelled"],
                    "metric": "observed_rate",
                    "value": b["observed_rate"],
                    "count": b["count"],
                    "successes": b["positives"],
                    "bin_low": b["low"],
                    "bin_high": b["high"],
                    "mean_score": b["mean_score"],
                }
        for d in g["disparities"]:
            hi, lo = d.get("max") or {}, d.get("min") or {}
            ci = d.get("ci95") or (None, None)
            ev = d.get("evidence") or {}
            need = d.get("rows_needed") or {}
            yield {
                "section": "disparity",
                "group": g["name"],
                "metric": d["metric"],
                "value": d["value"],
                "ci_low": ci[0],
                "ci_high": ci[1],
                "p_exceeds": ev.get("p_exceeds"),
                "p_within": ev.get("p_within"),
                "rows_needed_per_slice": need.get("per_slice"),
                "status": d["status"],
                "gated": d["gated"],
                "threshold": d["threshold"],
                "max_slice": hi.get("slice"),
                "max_value": hi.get("value"),
                "min_slice": lo.get("slice"),
                "min_value": lo.get("value"),
                "eligible_slices": d["eligible_slices"],
                "four_fifths_rule": d.get("four_fifths_rule"),
                "note": d["reason"],
            }
        ref = g.get("reference")
        for c in ref["comparisons"] if ref else []:
            rci = c["ratio_ci95"] or (None, None)
            yield {
                "section": "reference",
                "group": g["name"],
                "slice": c["slice"],
                "metric": c["metric"],
                "value": c["difference"],
                "ci_low": c["difference_ci95"][0],
                "ci_high": c["difference_ci95"][1],
                "reference_slice": c["reference"],
                "ratio": c["ratio"],
                "ratio_ci_low": rci[0],
                "ratio_ci_high": rci[1],
                "four_fifths_rule": c["four_fifths"],
                "note": f"reference {ref['method']}",
            }


def render_csv(report: dict[str, Any]) -> str:
    """The report as one flat CSV table (sections `evaluate`, `slice` per slice and
    metric, `disparity`); cells neutralised against formulas (faircode.safetext)."""
    from ..exports import csv_table  # lazy: start-up

    # --weight adds one last column, n_eff (SPEC 12.11); an unweighted report's CSV is as
    # it was
    columns = (*CSV_COLUMNS, "n_eff") if _weighted(report) else CSV_COLUMNS
    return csv_table(columns, _csv_rows(report))


def _weighted(report: dict[str, Any]) -> bool:
    return "weight" in report["columns"]
