"""The Local Law 144 pack's reports (SPEC 20.1): text, Markdown, HTML (one document,
:mod:`faircode.audit.doc`) and CSV, registered in :data:`faircode.renderers.RENDERERS`
as ``audit ll144``."""

from __future__ import annotations

from typing import Any

from ..numerics import fmt, pct
from ..proxy_stats import p_text
from ..safetext import capped
from .doc import render_html as _html
from .doc import render_markdown as _markdown
from .doc import render_text as _text

#: The columns of `audit ll144 --csv`, in order (SPEC 20.1).
CSV_COLUMNS = (
    "table",
    "category",
    "sex",
    "race",
    "n",
    "positive",
    "rate",
    "impact_ratio",
    "excluded",
    "highest",
    "ratio_ci_low",
    "ratio_ci_high",
    "p_holm",
    "verdict",
)
VERDICT_TEXT = {
    "confirmed": "confirmed below",
    "possible": "possible",
    "within": "within",
}


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1 category``, ``3 categories``: the count with its noun
    in agreement (thousands separated)."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural or noun + 's'}"


def _rate(x: float | None) -> str:
    return "-" if x is None else pct(x) + "%"


def _ratio(row: dict) -> str:
    if row["excluded"]:
        return "excluded (under 2%)"
    if row["impact_ratio"] is None:
        return "-"
    return fmt(row["impact_ratio"], 4)


def _not_stated(flag: str) -> str:
    return f"not stated (give {flag})"


def summary_facts(r: dict) -> list[tuple[str, str]]:
    """The header facts of 6 RCNY § 5-303's summary, and the counts the tables rest on."""
    s, ind, out = r["summary"], r["individuals"], r["outcome"]
    source = {"historical": "historical data", "test": "test data"}.get(
        s["data_source"] or "", _not_stated("--data-source historical|test")
    )
    dates = s["data_dates"]
    if dates is None:
        when = _not_stated("--date-column COL or --date-range FROM,TO")
    else:
        how = f"column '{dates['column']}'" if dates["column"] else "as declared"
        when = f"{dates['from']} to {dates['to']} ({how})"
    if r["method"] == "selection":
        if out["selected_values"] is not None:
            vals = ", ".join(f"'{v}'" for v in out["selected_values"])
            method = f"selection rates: '{out['column']}' is {vals} = selected"
        else:
            method = f"selection rates: '{out['column']}' (pass / fail)"
    else:
        method = (
            f"scoring rates: '{out['column']}' strictly above the median score "
            f"{out['median']} of the whole sample"
        )
    unknown = (
        f"{ind['unknown_category']:,} (sex unknown {ind['unknown_sex_only']:,}, race/ethnicity "
        f"unknown {ind['unknown_race_only']:,}, both {ind['unknown_both']:,}); not in the tables"
    )
    ex = r["exclusion"]
    if ex["applied"]:
        k = sum(len(v) for v in ex["excluded"].values())
        exclusion = (
            f"yes: {counted(k, 'category', 'categories')} (listed, with the reason, below the "
            "tables)"
        )
    else:
        exclusion = "no: every category is in the impact ratios"
    prov = r.get("provenance") or {}
    cols = r["columns"]
    return [
        ("Data file", s["file"]),
        ("Data source", source),
        ("Source and explanation of the data", s["data_note"] or _not_stated("--data-note")),
        ("Dates of the data", when),
        ("Audit date", s["audit_date"]),
        (
            "Distribution date of the tool",
            s["distribution_date"] or _not_stated("--distribution-date"),
        ),
        ("Method", method),
        ("Columns", f"sex '{capped(cols['sex'])}', race/ethnicity '{capped(cols['race'])}'"),
        (
            "Individuals assessed",
            f"{ind['assessed']:,} of {counted(ind['rows'], 'row')}"
            + (
                f" ({ind['outcome_missing']:,} without an outcome left out)"
                if ind["outcome_missing"]
                else ""
            ),
        ),
        ("Unknown category", unknown),
        ("Individuals in the tables", f"{ind['analysed']:,}"),
        ("Categories under 2% excluded from impact ratios", exclusion),
        ("Tool", s["tool"]),
        ("Dataset SHA-256", prov.get("dataset_hash") or prov.get("dataset_hash_note") or "-"),
    ]


def _excluded_text(r: dict) -> str:
    ex = r["exclusion"]["excluded"]
    parts = [f"sex '{capped(c)}'" for c in ex["sex"]]
    parts += [f"race/ethnicity '{capped(c)}'" for c in ex["race"]]
    parts += [f"'{capped(a)}' x '{capped(b)}'" for a, b in ex["intersection"]]
    return ", ".join(parts)


def _law_table(r: dict, rows: list[dict], pair: bool) -> tuple:
    pos = "Selected" if r["method"] == "selection" else "Scored above median"
    rate = "Selection rate" if r["method"] == "selection" else "Scoring rate"
    head = (["Sex", "Race/ethnicity"] if pair else ["Category"]) + [
        "Number of applicants",
        pos,
        rate,
        "Impact ratio",
    ]
    body = []
    for row in rows:
        # a long label is cut as the profile's reports cut it (SPEC 0.9); CSV, JSON keep it
        label = [capped(row["sex"]), capped(row["race"])] if pair else [capped(row["category"])]
        body.append(
            label + [f"{row['n']:,}", f"{row['positive']:,}", _rate(row["rate"]), _ratio(row)]
        )
    return ("table", head, ("ll" if pair else "l") + "rrrr", body)


def _category(c: Any) -> str:
    return " x ".join(c) if isinstance(c, list) else str(c)


def _shown_category(c: Any) -> str:
    """A category as the text, Markdown and HTML show it: each label capped (SPEC 0.9)."""
    return _category([capped(x) for x in c] if isinstance(c, list) else capped(str(c)))


TABLE_NAMES = {"sex": "sex", "race": "race/ethnicity", "intersection": "intersectional"}


def blocks(r: dict) -> list[tuple]:
    """The pack's document (SPEC 20.1), in the order every format shows it."""
    ind = r["individuals"]
    out: list[tuple] = [
        ("title", r["title"]),
        (
            "p",
            f"The {r['rate_name']}s and impact ratios by sex, race/ethnicity and their "
            f"intersections that {r['rules']} ask of a bias audit. Impact ratio: a "
            f"category's {r['rate_name']} divided by the {r['rate_name']} of the highest "
            "category"
            + (
                "; a scoring rate is the share of a category scoring strictly above the "
                "median score of the whole sample"
                if r["method"] == "scoring"
                else ""
            )
            + ". Measurements only; not legal advice.",
        ),
        ("h2", "Summary"),
        ("facts", summary_facts(r)),
        ("h2", "Sex categories"),
        _law_table(r, r["sex"], False),
        ("h2", "Race/ethnicity categories"),
        _law_table(r, r["race"], False),
        ("h2", "Intersectional categories"),
        _law_table(r, r["intersection"], True),
        (
            "p",
            "The tool was also used to assess "
            f"{counted(ind['unknown_category'], 'individual')} with an unknown category "
            "(sex or race/ethnicity unknown); they are not in the tables above.",
        ),
    ]
    ex = r["exclusion"]
    if ex["applied"]:
        listed = _excluded_text(r) or "none (no category is under 2%)"
        out.append(
            (
                "mark",
                f"Excluded from the impact ratios: {listed}. Rule: {ex['rule']}. "
                f"Reason: {ex['note']}",
            )
        )
    if r["notes"]:
        out += [("h3", "Notes"), ("list", list(r["notes"]))]
    add = r["faircode_additions"]
    ev = add["evidence"]
    out += [
        ("h2", "Beyond the law's table: faircode additions"),
        ("mark", add["note"]),
        (
            "p",
            f"{counted(ev['tests'], 'comparison')} in the family (Holm, family-wise alpha "
            f"{pct(ev['alpha'])}%): {ev['confirmed']} confirmed below "
            f"{add['threshold']:g}, {ev['possible']} possible. Confirmed: the adjusted p is "
            f"below alpha; possible: the ratio or its interval reaches below "
            f"{add['threshold']:g} without that evidence; within: the whole interval is at "
            f"or above {add['threshold']:g}.",
        ),
    ]
    rows = [
        [
            TABLE_NAMES[c["table"]],
            _shown_category(c["category"]),
            _shown_category(c["reference"]),
            fmt(c["impact_ratio"], 4),
            f"{fmt(c['ci_low'], 4)}-{fmt(c['ci_high'], 4)}",
            p_text(c["p"]),
            VERDICT_TEXT[c["verdict"]],
        ]
        for c in add["comparisons"]
    ]
    if rows:
        out.append(
            (
                "table",
                [
                    "Table",
                    "Category",
                    "Highest category",
                    "Impact ratio",
                    "95% CI",
                    "Holm p",
                    "Verdict",
                ],
                "lllrrrl",
                rows,
            )
        )
    else:
        out.append(("p", "No impact ratio to compare."))
    out += [("h2", "Provenance"), ("facts", _provenance_facts(r))]
    return out


def _provenance_facts(r: dict) -> list[tuple[str, str]]:
    prov = r.get("provenance") or {}
    audit = prov.get("audit") or {}
    given = [f"{k}={_value(v)}" for k, v in audit.items() if v not in (None, False, [])]
    overrides = prov.get("overrides") or {}
    params = prov.get("params") or {}
    group = [f"{k}={_value(params[k])}" for k in ("na", "recode") if params.get(k)]
    return [
        ("faircode version", prov.get("faircode_version", "-")),
        ("Dataset SHA-256", prov.get("dataset_hash") or prov.get("dataset_hash_note") or "-"),
        ("Pack options", "; ".join(given) or "-"),
        ("--map", ", ".join(f"{k}={v}" for k, v in overrides.items()) or "-"),
        ("--na, --recode", "; ".join(group) or "-"),
    ]


def _value(v: Any) -> str:
    if isinstance(v, list):
        return ",".join(_value(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def render_text(result: dict, **_: Any) -> str:
    return _text(blocks(result))


def render_markdown(result: dict, **_: Any) -> str:
    return _markdown(blocks(result))


def render_html(result: dict, **_: Any) -> str:
    return _html(blocks(result), f"{result['title']}: {result['summary']['file']}")


def csv_rows(r: dict):
    """One row per category of the three tables (with its comparison, when it has one),
    then one row of the unknown category."""
    comps = {
        (c["table"], tuple(c["category"]) if isinstance(c["category"], list) else c["category"]): c
        for c in r["faircode_additions"]["comparisons"]
    }
    for table in ("sex", "race", "intersection"):
        for row in r[table]:
            key = (row["sex"], row["race"]) if table == "intersection" else row["category"]
            c = comps.get((table, key), {})
            yield {
                "table": table,
                "category": _category(list(key)) if table == "intersection" else key,
                "sex": row.get("sex")
                if table == "intersection"
                else (key if table == "sex" else None),
                "race": row.get("race")
                if table == "intersection"
                else (key if table == "race" else None),
                "n": row["n"],
                "positive": row["positive"],
                "rate": row["rate"],
                "impact_ratio": row["impact_ratio"],
                "excluded": row["excluded"],
                "highest": row["highest"],
                "ratio_ci_low": c.get("ci_low"),
                "ratio_ci_high": c.get("ci_high"),
                "p_holm": c.get("p"),
                "verdict": c.get("verdict"),
            }
    yield {"table": "unknown_category", "n": r["individuals"]["unknown_category"]}


def render_csv(result: dict, **_: Any) -> str:
    from ..exports import csv_table  # lazy: start-up

    return csv_table(CSV_COLUMNS, csv_rows(result))
