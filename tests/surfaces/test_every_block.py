"""Every block in every format (issue 27 item 3, SPEC 6.1).

One COMPAS profile with every optional block asked for (`--label`, `--reference`,
`--outcome`, `--cross`, `--proxy-hints`) is rendered by each format; the test walks the
result's own top-level keys (and the reference sub-block of each dimension) and, for
each renderer, asserts that the block's marker is there. The list of blocks comes from
the result: a block added later without a marker here, or a renderer that leaves one
out, fails. The browser formats (the --html report, the notebook's frame, the website)
are in tests/website/test_site.py
(test_every_block_in_the_html_report_notebook_and_website), with the walk of
tests/blockwalk.py.

Numbers shown are checked against pandas and scipy on the same file, not against the
code's own output.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from blockwalk import ARGS, COMPAS, blocks, check_renderer, compas_result, reference_keys
from util import data_file

import faircode
from faircode.numerics import pct, share_text
from faircode.proxy import p_text
from faircode.safetext import md_escape

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------
# Markers: per renderer, per block, the texts (or CSV sections) that show it


def _lines(text: str, *parts: str) -> bool:
    """Whether one line of ``text`` holds every part."""
    return any(all(p in line for p in parts) for line in text.splitlines())


def _gap_marks(r: dict, form: str) -> list[str]:
    """The label-rate and outcome gaps with their verdicts (SPEC 17.4, 21.3) as ``form``
    writes them: the difference, its interval and the verdict, per dimension."""
    out = []
    lr = r["label_rates"]
    for d in [*lr["dimensions"], lr["intersection"]]:
        gap = d["gap"]
        lo, hi = pct(gap["ci_low"]), pct(gap["ci_high"])
        if form == "terminal":
            out.append(f"difference {pct(d['max_difference'])} pts [{lo}-{hi}]")
        else:
            out.append(f"{pct(d['max_difference'])} pts [{lo}, {hi}] {gap['verdict']}")
    return out


def terminal_markers(r: dict) -> dict[str, Callable[[str], bool]]:
    lr = r["label_rates"]
    return {
        "dimensions": lambda t: all(f"\n{d['name']} ({d['kind']}" in t for d in r["dimensions"]),
        "intersections": lambda t: all(
            f"Intersections {i['dims'][0]} x {i['dims'][1]}:" in t for i in r["intersections"]
        ),
        "unscored": lambda t: f"Not scored ({len(r['unscored'])} columns" in t,
        "dropped": lambda t: all(f"not profiled: {d['name']}" in t for d in r["dropped"]),
        "label_rates": lambda t: (
            f"Label rates: {lr['label']} = '{lr['positive']}'" in t
            and all(m in t for m in _gap_marks(r, "terminal"))
            and all(
                _lines(t, f"{d['name']}: highest", f"; {d['gap']['verdict']}")
                for d in lr["dimensions"]
            )
        ),
        "outcomes": lambda t: all(
            f"Outcome: {o['column']}: mean" in t
            and all(
                _lines(t, f"{d['name']}: highest", d["gap"]["verdict"]) for d in o["dimensions"]
            )
            for o in r["outcomes"]
        ),
        "missing_by_group": lambda t: "Missing data by group" in t,
        "findings": lambda t: (
            f"Findings and notes ({len(r['findings'])})" in t
            and all(_lines(t, f"[{f['verdict'] or 'note'}]", f["text"]) for f in r["findings"])
        ),
        "evidence": lambda t: (
            f"{r['evidence']['confirmed']} confirmed, {r['evidence']['possible']} possible, "
            f"of {r['evidence']['tests']:,} tests" in t
        ),
        "flags": lambda t: all(f in t for f in r["flags"]),
        "proxy_hints": lambda t: (
            "Proxy hints (chi-squared test of independence" in t
            and all(
                _lines(t, f"{h['a']} x {h['b']}", p_text(h["p_adjusted"]))
                for h in r["proxy_hints"]["hints"][:20]
            )
            and "Columns associated with a dimension" in t
        ),
    }


def markdown_markers(r: dict) -> dict[str, Callable[[str], bool]]:
    lr = r["label_rates"]
    return {
        "dimensions": lambda t: (
            "| Dimension | Kind | Found | Score |" in t
            and all(f"| {md_escape(d['name'])} | {d['kind']} |" in t for d in r["dimensions"])
        ),
        "intersections": lambda t: all(
            f"#### Intersections {i['dims'][0]} x {i['dims'][1]}:" in t for i in r["intersections"]
        ),
        "unscored": lambda t: f"#### Not scored ({len(r['unscored'])} columns)" in t,
        "dropped": lambda t: (
            "#### Not profiled" in t and all(f"- {md_escape(d['name'])}" in t for d in r["dropped"])
        ),
        "label_rates": lambda t: (
            f"#### Label rates: {md_escape(lr['label'])} = {md_escape(lr['positive'])}" in t
            and all(m in t for m in _gap_marks(r, "markdown"))
        ),
        "outcomes": lambda t: all(
            f"#### Outcome: {md_escape(o['column'])}" in t
            and all(
                _lines(t, f"| {md_escape(d['name'])} |", d["gap"]["verdict"])
                for d in o["dimensions"]
            )
            for o in r["outcomes"]
        ),
        "missing_by_group": lambda t: "#### Missing data by group" in t,
        "findings": lambda t: (
            f"#### Findings and notes ({len(r['findings'])})" in t
            and all(
                _lines(
                    t, f"**{f['verdict']}**" if f["verdict"] else "- note:", md_escape(f["text"])
                )
                for f in r["findings"]
            )
        ),
        "evidence": lambda t: (
            f"{r['evidence']['confirmed']} confirmed, {r['evidence']['possible']} possible, "
            f"of {r['evidence']['tests']:,} tests" in t
        ),
        "flags": lambda t: all(md_escape(f) in t for f in r["flags"]),
        "proxy_hints": lambda t: (
            "#### Proxy hints (chi-squared test of independence" in t
            and all(
                _lines(t, f"| {md_escape(h['a'])} x {md_escape(h['b'])} |", p_text(h["p_adjusted"]))
                for h in r["proxy_hints"]["hints"][:20]
            )
            and "#### Columns associated with a dimension" in t
        ),
    }


def csv_markers(r: dict) -> dict[str, Callable[[list[dict]], bool]]:
    def sections(rows: list[dict]) -> set[str]:
        return {row["section"] for row in rows}

    def has(*names: str) -> Callable[[list[dict]], bool]:
        return lambda rows: set(names) <= sections(rows)

    def verdicts(rows: list[dict], section: str, entries: list[dict]) -> bool:
        got = {row["dimension"]: row["verdict"] for row in rows if row["section"] == section}
        return all(got.get(d["name"]) == d["gap"]["verdict"] for d in entries)

    return {
        "dimensions": has("group"),
        "intersections": has("intersection"),
        "unscored": has("unscored"),
        "dropped": has("dropped"),
        "label_rates": lambda rows: (
            has("label_rates", "label_rate", "label_rate_cell")(rows)
            and verdicts(rows, "label_rate", r["label_rates"]["dimensions"])
        ),
        "outcomes": lambda rows: (
            has("outcome", "outcome_group", "outcome_cell")(rows)
            and verdicts(rows, "outcome_group", r["outcomes"][0]["dimensions"])
        ),
        "missing_by_group": has("missing_by_group"),
        "findings": lambda rows: (
            [(row["note"], row["verdict"]) for row in rows if row["section"] == "flag"]
            == [(f["text"], f["verdict"] or "") for f in r["findings"]]
        ),
        "evidence": lambda rows: (
            {
                row["verdict"]: (int(row["count"]), int(row["n"]))
                for row in rows
                if row["section"] == "evidence"
            }
            == {v: (r["evidence"][v], r["evidence"]["tests"]) for v in ("confirmed", "possible")}
        ),
        "flags": lambda rows: (
            [row["note"] for row in rows if row["section"] == "flag"] == r["flags"]
        ),
        "proxy_hints": lambda rows: (
            has("proxy_hints", "proxy_hint", "proxy_feature")(rows)
            and sum(row["section"] == "proxy_hint" for row in rows)
            == len(r["proxy_hints"]["hints"])
            and sum(row["section"] == "proxy_feature" for row in rows)
            == len(r["proxy_hints"]["features"])
        ),
    }


# The reference sub-block (SPEC 9) of a dimension: each key and each group's keys, as a
# renderer shows them. A key added to the block without a check here fails.
def terminal_reference(t: str, d: dict) -> dict[str, bool]:
    ref = d["reference"]
    ages = ref.get("ages")
    n = sum(g["count"] for g in ref["groups"])
    rows = {
        g["label"]: _lines(
            t,
            g["label"],
            f"{pct(g['expected'])}%",
            share_text(g["actual"], g["count"], n),
            f"{pct(g['delta'])} pts",
        )
        for g in ref["groups"]
    }
    return {
        "deviation": f"vs the population baseline: deviation {pct(ref['deviation'])} pts" in t,
        "ages": ages is not None and f"(ages {ages[0]}-{ages[1]})" in t,
        "groups": bool(rows) and all(rows.values()),
        "label": all(rows.values()),
        "expected": all(rows.values()),
        "actual": all(rows.values()),
        "delta": all(rows.values()),
        # the count is not a column: it decides whether actual reads <0.01% or >99.99%
        "count": all(rows.values()),
    }


def markdown_reference(t: str, d: dict) -> dict[str, bool]:
    ref = d["reference"]
    ages = ref.get("ages")
    n = sum(g["count"] for g in ref["groups"])
    rows = {
        g["label"]: (
            f"| {md_escape(g['label'])} | {pct(g['expected'])}% | "
            f"{share_text(g['actual'], g['count'], n)} | "
            f"{'+' if g['delta'] > 0 else ''}{pct(g['delta'])} pts |"
        )
        in t
        for g in ref["groups"]
    }
    head = f"#### {md_escape(d['name'])} vs the population baseline: deviation"
    return {
        "deviation": f"{head} {pct(ref['deviation'])} pts" in t,
        "ages": ages is not None and _lines(t, head, f"(ages {ages[0]}-{ages[1]})"),
        "groups": bool(rows) and all(rows.values()),
        "label": all(rows.values()),
        "expected": all(rows.values()),
        "actual": all(rows.values()),
        "delta": all(rows.values()),
        # the count is not a column: it decides whether actual reads <0.01% or >99.99%
        "count": all(rows.values()),
    }


def csv_reference(rows: list[dict], d: dict) -> dict[str, bool]:
    ref = d["reference"]
    ages = ref.get("ages")
    mine = [row for row in rows if row["section"] == "reference" and row["dimension"] == d["name"]]
    got = [
        (
            row["label"],
            float(row["expected"]),
            float(row["share"]),
            float(row["delta"]),
            int(row["count"]),
        )
        for row in mine
    ]
    want = [(g["label"], g["expected"], g["actual"], g["delta"], g["count"]) for g in ref["groups"]]
    return {
        "deviation": bool(mine)
        and all(
            row["deviation"] != "" and float(row["deviation"]) == ref["deviation"] for row in mine
        ),
        "ages": ages is not None
        and all(row["note"] == f"ages {ages[0]}-{ages[1]}" for row in mine),
        "groups": got == want,
        "label": got == want,
        "expected": got == want,
        "actual": got == want,
        "delta": got == want,
        "count": got == want,
    }


def four_dp(num: int, den: int) -> float:
    """num / den rounded half up to 4 places, exactly (SPEC 13)."""
    q = Decimal(int(num)) / Decimal(int(den))
    return float(q.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))


# ---------------------------------------------------------------------------------------
# Tests


@pytest.fixture(scope="module")
def compas() -> faircode.ProfileResult:
    return compas_result()


def test_the_case_holds_every_block_and_is_the_cli_result(compas):
    """The API run is the CLI's `--json` for ARGS (provenance aside), and the case has
    every optional block (so no marker below is skipped)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "faircode", "profile", str(data_file(COMPAS)), *ARGS, "--json"]
    cli = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env).stdout)
    cli.pop("provenance")
    assert cli == dict(compas)
    want = {"dimensions", "intersections", "unscored", "dropped", "label_rates"}
    want |= {"missing_by_group", "outcomes", "findings", "evidence", "flags", "proxy_hints"}
    assert want <= set(blocks(compas))
    assert {"deviation", "ages", "groups"} <= reference_keys(
        next(d for d in compas["dimensions"] if d["name"] == "age")
    )


def test_every_block_in_the_terminal_markdown_and_csv(compas):
    check_renderer(
        "terminal", compas, compas.report("text"), terminal_markers(compas), terminal_reference
    )
    check_renderer(
        "markdown",
        compas,
        compas.report("markdown"),
        markdown_markers(compas),
        markdown_reference,
    )
    rows = list(csv.DictReader(io.StringIO(compas.report("csv"), newline="")))
    check_renderer("csv", compas, rows, csv_markers(compas), csv_reference)


def test_a_block_without_a_renderer_fails_the_walk(compas):
    """The walk can fail: a block the renderers do not know, or one a renderer drops."""
    grown = {**compas, "new_block": {"x": 1}}
    with pytest.raises(AssertionError, match="no marker for the blocks \\['new_block'\\]"):
        check_renderer("terminal", grown, "", terminal_markers(compas), terminal_reference)
    text = compas.report("markdown")
    cut = text[: text.index("#### Proxy hints")] + text[text.index("#### Findings and notes") :]
    with pytest.raises(AssertionError, match="markdown leaves out \\['proxy_hints'\\]"):
        check_renderer("markdown", compas, cut, markdown_markers(compas), markdown_reference)
    rows = list(csv.DictReader(io.StringIO(compas.report("csv"), newline="")))
    for row in rows:
        row["deviation"] = ""
    with pytest.raises(AssertionError, match="leaves out sex's reference \\['deviation'\\]"):
        check_renderer("csv", compas, rows, csv_markers(compas), csv_reference)


def test_csv_blocks_hold_the_numbers_pandas_and_scipy_give(compas):
    """The new CSV rows against an independent computation on the same file: outcome
    means (pandas), label rates (pandas), the reference's actual shares and deviation,
    and a proxy hint's Cramér's V and chi-squared (scipy)."""
    pd = pytest.importorskip("pandas")
    stats = pytest.importorskip("scipy.stats")
    from scipy.stats.contingency import association

    frame = pd.read_csv(data_file(COMPAS))
    rows = list(csv.DictReader(io.StringIO(compas.report("csv"), newline="")))
    by = {}
    for row in rows:
        by.setdefault(row["section"], []).append(row)
    # outcome means per sex and race group: pandas, to 1e-12 (exact sums vs float sums)
    means = frame.groupby("sex")["priors_count"].agg(["mean", "std", "count"])
    got = {r["label"]: r for r in by["outcome_group"] if r["dimension"] == "sex"}
    for label, m in means.iterrows():
        assert float(got[label]["mean"]) == pytest.approx(m["mean"], rel=1e-12)
        assert float(got[label]["sd"]) == pytest.approx(m["std"], rel=1e-12)
        assert int(got[label]["n"]) == m["count"]
    top = by["outcome"][0]
    assert float(top["mean"]) == pytest.approx(frame["priors_count"].mean(), rel=1e-12)
    assert float(top["threshold"]) == pytest.approx(0.2 * frame["priors_count"].std(), rel=1e-12)
    # label rates per race group (positive / n, 4 dp half up as SPEC 13)
    rates = frame.groupby("race")["two_year_recid"].agg(["sum", "count"])
    got = {r["label"]: float(r["rate"]) for r in by["label_rate"] if r["dimension"] == "race"}
    assert got == {k: four_dp(v["sum"], v["count"]) for k, v in rates.iterrows()}
    # the reference's actual shares of sex, and its deviation (half the sum of |delta|)
    counts = frame["sex"].value_counts()
    ref = [r for r in by["reference"] if r["dimension"] == "sex"]
    for r in ref:
        assert float(r["share"]) == four_dp(counts[r["label"]], len(frame))
        assert float(r["delta"]) == pytest.approx(
            float(r["share"]) - float(r["expected"]), abs=1e-4
        )
    dev = 0.5 * sum(abs(float(r["delta"])) for r in ref)
    assert float(ref[0]["deviation"]) == pytest.approx(dev, abs=1e-4)
    # a proxy hint: sex x race, Pearson's chi-squared and Cramér's V of the crosstab
    table = pd.crosstab(frame["sex"], frame["race"]).to_numpy()
    chi2 = stats.chi2_contingency(table, correction=False)
    hint = next(
        r for r in by["proxy_hint"] if (r["dimension"], r["dimension_b"]) == ("sex", "race")
    )
    assert float(hint["statistic"]) == pytest.approx(chi2.statistic, abs=5e-5)
    assert float(hint["cramers_v"]) == pytest.approx(association(table), abs=5e-5)
    assert int(hint["dof"]) == chi2.dof and int(hint["n"]) == len(frame)
    assert float(hint["p"]) == pytest.approx(chi2.pvalue, rel=1e-2)
    assert hint["significant"] == "true" and hint["method"] == "chi2"
    # a numeric feature: race vs priors_count.1 by a one-way ANOVA (scipy's f_oneway)
    feat = next(
        r
        for r in by["proxy_feature"]
        if (r["dimension"], r["column"]) == ("race", "priors_count.1")
    )
    groups = [g["priors_count.1"].to_numpy() for _, g in frame.groupby("race")]
    anova = stats.f_oneway(*groups)
    assert feat["method"] == "anova"
    assert float(feat["statistic"]) == pytest.approx(anova.statistic, abs=5e-4)


def test_views_p_text_is_pythons(tmp_path):
    """site/views.js pText (the proxy table's p-values in the HTML report and site)
    gives faircode.proxy.p_text's text: 4 decimals, or Python's `.3g` below 0.0001."""
    values = [0.0, 1.0, 0.05, 0.0001, 0.00009999, 1.7e-05, 1.04e-43, 8.69e-45, 2.5e-300, 5e-324]
    values += [k / 997 for k in range(998)] + [10.0**-e * 1.2345 for e in range(4, 320)]
    script = (
        "require(process.argv[1]); const V = globalThis.FaircodeViews;"
        "process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map(V.pText)));"
    )
    done = subprocess.run(
        ["node", "-e", script, str(ROOT / "site" / "views.js"), json.dumps(values)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [p_text(v) for v in values]
