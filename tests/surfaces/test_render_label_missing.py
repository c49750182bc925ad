"""Label base rates and missing data by group (SPEC 17) in every renderer: the terminal
report, the Markdown and CSV exports (SPEC 6.1), the JSON schemas, and the notebook
display (SPEC 6.2). The site's drawing of them is in tests/website/test_site.py."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

import pytest
from util import ADULT_NAMES, data_file

import faircode
from faircode.exports import COMPARE_CSV_COLUMNS, PROFILE_CSV_COLUMNS, render_profile_markdown
from faircode.numerics import fmt, pct
from faircode.render import (
    ALIKE_SHOWN,
    FLAGGED_NAMED,
    MISSING_COLUMNS_SHOWN,
    MISSING_SPREAD_SHOWN,
    alike_text,
    missing_columns_shown,
    missing_share,
    render,
    render_compare,
)
from faircode.safetext import md_escape
from faircode.summary import PAIR_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "faircode" / "schemas"
COMPAS = data_file("compas-scores-two-years.csv")
FORMULAS = ['=HYPERLINK("http://x","y")', "+1", "-2", "@x"]
HOSTILE = ["a|b", "x\ny", "`tick`", "<b>bold</b>", "<script>alert(1)</script>", '"><img>']


@pytest.fixture(scope="module")
def compas():
    return faircode.profile(COMPAS, opts={"label": "two_year_recid"})


@pytest.fixture(scope="module")
def diabetic():
    # The reference reader: the CSV fast path (files of 4 MB or more) does not keep the
    # SPEC 17.2 tables yet, so its missing_by_group lists no column.
    return faircode.profile(data_file("diabetic_data.csv"), engine="reference")


@pytest.fixture(scope="module")
def adult():
    return faircode.profile(
        data_file("adult.data"), opts={"names": ADULT_NAMES, "label": "income", "positive": ">50K"}
    )


def section(text: str, start: str, end: str) -> list[str]:
    """The lines of the report from the one starting with ``start`` to before ``end``."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith(end)), len(lines))
    return [line for line in lines[i:j] if line]


def P(x: float) -> str:
    return pct(x) + "%"


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header, *rows])
    return path


def hostile_file(tmp_path: Path, labels: list[str]) -> Path:
    """race holding ``labels``, a label column ``y`` and a column named like markup with
    missing cells for the first label only (so that group is flagged)."""
    rows = []
    for k, lab in enumerate(labels):
        for i in range(200):
            rows.append([lab, "M" if i % 2 else "F", str((i + k) % 3 == 0), "" if k == 0 else "v"])
    return write_csv(tmp_path / "h.csv", ["race", "sex", "y", "<i>col|x</i>"], rows)


def not_counted_file(tmp_path: Path) -> Path:
    """race after PAIR_COLUMNS counted columns: no label rates or missing data for it."""
    header = [f"c{i}" for i in range(PAIR_COLUMNS)] + ["race", "sex", "y"]
    rows = [
        [str(i % 2)] * PAIR_COLUMNS + [["A", "B"][i % 2], ["M", "F"][i % 3 % 2], str(i % 4 == 0)]
        for i in range(400)
    ]
    rows[0][0] = ""  # one missing cell, so missing_by_group has a column for sex
    return write_csv(tmp_path / "wide.csv", header, rows)


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def md_cells(line: str) -> list[str]:
    """A Markdown table row's cells, split on the pipes md_escape left unescaped."""
    assert line.startswith("| ") and line.endswith(" |"), line
    return re.split(r"(?<!\\) \| ", line[2:-2])


def md_tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            if not line.startswith("|---"):
                current.append(md_cells(line))
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


# ---------------------------------------------------------------------------------------
# Terminal report


def test_terminal_label_rates_compas(compas):
    text = compas.report("text")
    block = compas["label_rates"]
    lines = section(text, "Label rates:", "Missing data by group")
    assert lines[0] == (
        "Label rates: two_year_recid = '1' (the larger of its two values): "
        f"{P(block['rate'])} [{P(block['ci_low'])}-{P(block['ci_high'])}] of 7214 rows"
    )
    assert lines[1] == f"  ({block['ratio_note']})"  # the engine's text, not repeated
    race = next(d for d in block["dimensions"] if d["name"] == "race")
    # SPEC 17.4: the worst-off group is named with the groups its interval does not
    # tell it apart from (resampled, 'Hispanic' is the lowest about 4 times in 10)
    assert race["gap"]["lowest_alike"] == ["Caucasian", "Hispanic"]
    head = (
        "  race: highest 'African-American', lowest 'Other' (not told apart from "
        "'Caucasian', 'Hispanic' at 95%): difference "
    )
    assert any(line.startswith(head) for line in lines)
    assert f"ratio {fmt(race['min_ratio'], 2)}" in next(x for x in lines if x.startswith(head))
    for g in race["groups"]:
        row = next(x for x in lines if x.startswith(f"    {g['label']} "))
        assert re.search(
            rf" {g['n']}\s+{re.escape(P(g['rate']))} "
            rf"\[{re.escape(P(g['ci_low']))}-{re.escape(P(g['ci_high']))}\]",
            row,
        ), row
        assert ("[highest]" in row) == (g["label"] == "African-American")
        assert ("small group" in row) == g["small_group"]
    assert [g["n"] for g in race["groups"][:2]] == [3696, 2454]  # the published counts
    # no row has a missing label: no label-missing column to read zeros from
    assert block["label_missing"] == 0 and not any("label missing" in x for x in lines)
    # the intersection's cells, named a x b
    a, b = block["intersection"]["dims"]
    assert any(x.startswith(f"  {a} x {b}: highest ") for x in lines)
    assert (
        f"  {a} x {b}: highest 'Male' x '18-29', lowest 'Male' x '60-74' (not told apart "
        "from 'Female' x '45-59' at 95%): difference "
    ) in text


def test_terminal_missing_by_group_lists_flagged_columns(compas):
    text = compas.report("text")
    lines = section(text, "Missing data by group", "Findings and notes (")
    for entry in compas["missing_by_group"]:
        flagged = [c for c in entry["columns"] if c["flagged"]]
        picked, rule = missing_columns_shown(entry)
        assert picked == flagged[:MISSING_COLUMNS_SHOWN]
        i = lines.index(
            f"  {entry['dimension']}: {len(entry['columns'])} columns with missing cells, {rule}"
        )
        rows = lines[i + 2 : i + 2 + len(picked)]
        for c, row in zip(picked, rows):
            assert row.startswith(f"    {c['name']} ") and "flagged: " in row
            for lab in c["flagged"][:FLAGGED_NAMED]:
                assert f"'{lab}'" in row.split("flagged: ")[1]
    # COMPAS age: 7 columns have a group of 100+ rows missing them 10 points above overall
    # (version 2 also flagged the 15-row '75+' group, 12 columns; SPEC 17.5)
    assert "  age: 22 columns with missing cells, 7 with a flagged group" in lines
    # with missing_gap 0.05, 11 columns: the first MISSING_COLUMNS_SHOWN (8) are listed
    loose = faircode.profile(COMPAS, opts={"label": "two_year_recid", "missing_gap": 0.05})
    lines = section(loose.report("text"), "Missing data by group", "Findings and notes (")
    assert (
        "  age: 22 columns with missing cells, 11 with a flagged group, the first 8 shown" in lines
    )


def test_terminal_missing_by_group_stays_short_on_a_wide_file(diabetic):
    assert diabetic["n_cols"] == 50
    text = diabetic.report("text")
    lines = section(text, "Missing data by group", "Findings and notes (")
    assert len(lines) <= 1 + 4 * (2 + MISSING_COLUMNS_SHOWN + 1)
    race = next(e for e in diabetic["missing_by_group"] if e["dimension"] == "race")
    assert not any(c["flagged"] for c in race["columns"])
    # race's '?' rows are its missing group, named with their count (issue 27 item 4)
    absent = race["columns"][0]["missing_group"]["count"]
    assert (
        f"  race: {len(race['columns'])} columns with missing cells, no group flagged; "
        f"the {MISSING_SPREAD_SHOWN} with the widest spread between groups; "
        f"'(missing race)': {absent} rows"
    ) in lines
    picked, _ = missing_columns_shown(race)
    assert len(picked) == MISSING_SPREAD_SHOWN
    hidden = len(race["columns"]) - MISSING_SPREAD_SHOWN
    assert f"    ... {hidden} more columns with missing cells (--json lists all)" in lines
    # gender's 3 'Unknown/Invalid' rows miss race 2 times (66.7%): under min_group_size,
    # never flagged and never the highest (SPEC 17.5); the highest is the largest share
    # among the groups that are large enough, 'Male'
    head = next(x for x in lines if x.startswith("  gender: "))
    assert head.endswith(
        f"no group flagged; the {MISSING_SPREAD_SHOWN} with the widest spread between groups"
    )
    gender = lines[lines.index(head) + 2]
    col = next(
        c
        for e in diabetic["missing_by_group"]
        if e["dimension"] == "gender"
        for c in e["columns"]
        if c["name"] == "race"
    )
    big = [g for g in col["groups"] if g["count"] >= 100]
    high = max(big, key=lambda g: g["missing"] / g["count"])
    low = min(big, key=lambda g: g["missing"] / g["count"])
    assert (low["label"], high["label"]) == ("Female", "Male")
    assert gender.startswith("    race ") and "Unknown/Invalid" not in gender
    assert gender.split()[-2:] == [missing_share(high), "Male"]
    assert "flagged" not in gender


def test_terminal_without_label_or_missing(tmp_path):
    path = write_csv(tmp_path / "c.csv", ["sex"], [["M"], ["F"]] * 200)
    r = faircode.profile(path)
    assert "label_rates" not in r and r["missing_by_group"] == [
        {"dimension": "sex", "min_group_size": 100, "columns": []}
    ]
    text = r.report("text")
    assert "Label rates" not in text
    assert "Missing data by group: no column with missing cells" in text
    off = faircode.profile(path, opts={"missing_by_group": False})
    assert "missing_by_group" not in off and "Missing data" not in off.report("text")


def test_not_counted_dimension_in_every_format(tmp_path):
    r = faircode.profile(not_counted_file(tmp_path), opts={"label": "y"})
    by = {d["name"]: d for d in r["label_rates"]["dimensions"]}
    assert by["race"] == {"name": "race", "not_counted": True}
    why = f"not among the first {PAIR_COLUMNS} counted columns"
    text = r.report("text")
    assert f"  race: not counted ({why})" in text.splitlines()
    md = r.report("markdown")
    assert f"| race | not counted ({why}) |  |  |  |" in md
    rows = read_csv(r.report("csv"))
    assert {"section": "label_rate", "dimension": "race", "note": "not counted"}.items() <= next(
        x for x in rows if x["section"] == "label_rate" and x["dimension"] == "race"
    ).items()
    assert any(
        x["section"] == "missing_by_group" and x["dimension"] == "race" and x["note"] for x in rows
    )
    validate(r, "profile")


# ---------------------------------------------------------------------------------------
# Markdown


def test_markdown_label_rates_and_missing(compas, diabetic):
    md = compas.report("markdown")
    assert "#### Label rates: two\\_year\\_recid = 1" in md
    assert f"- _{md_escape(compas['label_rates']['ratio_note'])}_" in md
    tables = md_tables(md)
    spread = next(
        t for t in tables if t[0] == ["Dimension", "Highest", "Lowest", "Difference", "Min ratio"]
    )
    race = next(d for d in compas["label_rates"]["dimensions"] if d["name"] == "race")
    assert [
        "race",
        "African-American",
        "Other (not told apart from Caucasian, Hispanic at 95%)",
    ] == spread[[r[0] for r in spread].index("race")][:3]
    assert spread[[r[0] for r in spread].index("sex")][2] == "Female"  # told apart: no note
    rates = next(t for t in tables if t[0][:3] == ["Dimension", "Group", "N"])
    assert rates[0] == ["Dimension", "Group", "N", "Rate", "95% CI", "Label missing", "Marks"]
    aa = next(r for r in rates if r[:2] == ["race", "African-American"])
    g = race["groups"][0]
    assert aa[2:] == [
        str(g["n"]),
        P(g["rate"]),
        f"{P(g['ci_low'])}-{P(g['ci_high'])}",
        "0",
        "highest",
    ]
    missing = next(t for t in tables if t[0][:2] == ["Dimension", "Column"])
    assert missing[0] == [
        "Dimension",
        "Column",
        "Overall",
        "Lowest group",
        "Highest group",
        "Flagged",
    ]
    flagged_rows = [r for r in missing[1:] if r[5]]
    assert len(flagged_rows) == sum(
        len(missing_columns_shown(e)[0]) for e in compas["missing_by_group"]
    )
    assert "#### Missing data by group" in md
    dmd = diabetic.report("markdown")
    assert "- race: 6 columns with missing cells, no group flagged; the 3 with the widest" in dmd


def test_markdown_keeps_hostile_labels_in_their_cells(tmp_path):
    r = faircode.profile(hostile_file(tmp_path, HOSTILE), opts={"label": "y"})
    md = r.report("markdown")
    assert "<script>" not in md and "<b>" not in md and "<i>" not in md
    for table in md_tables(md):
        assert len({len(row) for row in table}) == 1, table  # no label split a cell
    race = next(e for e in r["missing_by_group"] if e["dimension"] == "race")
    col = next(c for c in race["columns"] if c["name"] == "<i>col|x</i>")
    assert col["flagged"] == [HOSTILE[0]]
    assert f"| race | {md_escape('<i>col|x</i>')} |" in md


# ---------------------------------------------------------------------------------------
# CSV


def test_csv_label_rate_and_missing_rows(compas):
    rows = read_csv(compas.report("csv"))
    assert list(rows[0]) == list(PROFILE_CSV_COLUMNS)
    block = compas["label_rates"]
    head = next(x for x in rows if x["section"] == "label_rates")
    assert (head["column"], head["label"], head["note"]) == ("two_year_recid", "1", "larger_of_two")
    assert (int(head["n"]), int(head["positive_count"]), float(head["rate"])) == (
        block["n"],
        block["positive_count"],
        block["rate"],
    )
    for d in block["dimensions"]:
        got = [x for x in rows if x["section"] == "label_rate" and x["dimension"] == d["name"]]
        assert [x["label"] for x in got] == [g["label"] for g in d["groups"]]
        for x, g in zip(got, d["groups"]):
            assert (int(x["n"]), int(x["positive_count"]), float(x["rate"])) == (
                g["n"],
                g["positive"],
                g["rate"],
            )
            assert float(x["max_difference"]) == d["max_difference"]
        assert [x["label"] for x in got if x["highest"] == "true"] == [d["highest"]]
        assert [x["label"] for x in got if x["lowest"] == "true"] == [d["lowest"]]
    cells = [x for x in rows if x["section"] == "label_rate_cell"]
    inter = block["intersection"]
    assert [(x["label"], x["label_b"]) for x in cells] == [(c["a"], c["b"]) for c in inter["cells"]]
    assert [x for x in cells if x["highest"] == "true"][0]["label"] == inter["highest"][0]
    missing = [x for x in rows if x["section"] == "missing_by_group"]
    assert len(missing) == sum(
        len(c["groups"]) for e in compas["missing_by_group"] for c in e["columns"]
    )
    sex = next(e for e in compas["missing_by_group"] if e["dimension"] == "sex")
    col = next(c for c in sex["columns"] if c["flagged"])
    got = {x["label"]: x for x in missing if x["dimension"] == "sex" and x["column"] == col["name"]}
    for g in col["groups"]:
        x = got[g["label"]]
        assert (int(x["count"]), int(x["missing_count"]), float(x["missing_pct"])) == (
            g["count"],
            g["missing"],
            g["missing_pct"],
        )
        assert float(x["column_missing_pct"]) == col["missing_pct"]
        assert x["flagged"] == ("true" if g["label"] in col["flagged"] else "false")


def test_csv_neutralises_formula_labels(tmp_path):
    r = faircode.profile(hostile_file(tmp_path, FORMULAS), opts={"label": "y"})
    rows = read_csv(r.report("csv"))
    ours = [x for x in rows if x["section"] in ("label_rate", "missing_by_group")]
    assert ours
    for x in ours:
        for key, cell in x.items():
            try:
                float(cell)
            except ValueError:
                assert not cell.startswith(("=", "+", "-", "@")), (key, cell)
    labels = {x["label"] for x in ours if x["dimension"] == "race"}
    assert labels == {"'" + lab for lab in FORMULAS}


# ---------------------------------------------------------------------------------------
# Compare (SPEC 17.6)


def compare_blocks() -> dict:
    """SPEC 17.6's shape, by hand (numbers made up)."""
    return {
        "label_rates": {
            "label": "income",
            "positive": ">50K",
            "dimensions": [
                {
                    "name": "sex",
                    "groups": [
                        {
                            "label": "Male",
                            "rate_a": 0.3057,
                            "rate_b": 0.4057,
                            "rate_delta": 0.1,
                            "n_a": 21790,
                            "n_b": 10860,
                            "ci_low": 0.0891,
                            "ci_high": 0.1109,
                        },
                        {
                            "label": "<b>F|x</b>",
                            "rate_a": 0.1095,
                            "rate_b": 0.1,
                            "rate_delta": -0.0095,
                            "n_a": 10771,
                            "n_b": 5421,
                            "ci_low": -0.0193,
                            "ci_high": 0.0006,
                        },
                    ],
                }
            ],
        },
        "missing_by_group": [
            {
                "dimension": "sex",
                "columns": [
                    {
                        "name": "workclass",
                        "missing_pct_a": 0.0564,
                        "missing_pct_b": 0.059,
                        "missing_delta": 0.0026,
                        "groups": [
                            {
                                "label": "<b>F|x</b>",
                                "missing_pct_a": 0.0778,
                                "missing_pct_b": 0.2,
                                "missing_delta": 0.1222,
                                "count_a": 10771,
                                "count_b": 5421,
                                "ci_low": 0.1112,
                                "ci_high": 0.1335,
                            },
                            {
                                "label": "Male",
                                "missing_pct_a": 0.046,
                                "missing_pct_b": 0.05,
                                "missing_delta": 0.004,
                                "count_a": 21790,
                                "count_b": 10860,
                                "ci_low": -0.0009,
                                "ci_high": 0.0091,
                            },
                        ],
                    }
                ],
            }
        ],
    }


@pytest.fixture(scope="module")
def compared(adult):
    c = faircode.compare(adult, adult)
    c.update(compare_blocks())  # hostile labels in SPEC 17.6's shape
    flags = c.pop("flags")
    c["flags"] = flags
    return c


def test_compare_renderers_show_the_shifts(compared):
    text = compared.report("text")
    lines = section(text, "Label rates, A -> B", "Findings and notes (")
    assert lines[0] == "Label rates, A -> B (income = '>50K'):"
    assert any(x.startswith("    Male ") and "30.57% -> 40.57%  (+10.00 pts)" in x for x in lines)
    assert any(
        x.startswith("    workclass ") and "most moved '<b>F|x</b>' 7.78% -> 20.00%" in x
        for x in lines
    )
    md = compared.report("markdown")
    assert "#### Label rates, A -> B: income = &gt;50K" in md
    assert "<b>" not in md
    for table in md_tables(md):
        assert len({len(row) for row in table}) == 1, table
    rows = read_csv(compared.report("csv"))
    assert list(rows[0]) == list(COMPARE_CSV_COLUMNS)
    rate = [x for x in rows if x["section"] == "label_rate"]
    assert [(x["label"], x["rate_delta"]) for x in rate] == [
        ("Male", "0.1"),
        ("<b>F|x</b>", "-0.0095"),
    ]
    miss = [x for x in rows if x["section"] == "missing_by_group"]
    assert [(x["column"], x["label"], x["missing_delta"]) for x in miss] == [
        ("workclass", "<b>F|x</b>", "0.1222"),
        ("workclass", "Male", "0.004"),
    ]
    # SPEC 6.1: the family's two evidence rows, as profile --csv writes them, before the flags
    ev = compared["evidence"]
    evidence = [x for x in rows if x["section"] == "evidence"]
    assert [(x["verdict"], x["count"], x["n"], x["threshold"], x["note"]) for x in evidence] == [
        (v, str(ev[v]), str(ev["tests"]), f"{ev['alpha']:g}", ev["correction"])
        for v in ("confirmed", "possible")
    ]
    assert [x["section"] for x in rows][-len(compared["findings"]) - 2 :] == ["evidence"] * 2 + [
        "flag"
    ] * len(compared["findings"])
    validate(compared, "compare")


def test_compare_adult_train_vs_test(adult):
    test = faircode.profile(
        data_file("adult.test"),
        overrides=None,
        opts={
            "names": ADULT_NAMES,
            "skip_lines": 1,
            "label": "income",
            "positive": ">50K",
            "recode": [["income", ">50K.", ">50K"], ["income", "<=50K.", "<=50K"]],
        },
    )
    c = faircode.compare(adult, test)
    rates = c["label_rates"]
    lines = section(c.report("text"), "Label rates, A -> B", "Findings and notes (")
    assert lines[0] == "Label rates, A -> B (income = '>50K'):"
    race = next(d for d in rates["dimensions"] if d["name"] == "race")
    g = race["groups"][0]
    row = next(x for x in lines if x.startswith(f"    {g['label']} "))
    assert f"{P(g['rate_a']).rjust(6)} -> {P(g['rate_b']).rjust(6)}" in row
    rows = read_csv(c.report("csv"))
    assert len([x for x in rows if x["section"] == "label_rate"]) == sum(
        len(d["groups"]) for d in rates["dimensions"]
    )
    assert len([x for x in rows if x["section"] == "missing_by_group"]) == sum(
        len(col["groups"]) for e in c["missing_by_group"] for col in e["columns"]
    )
    md = c.report("markdown")
    assert "#### Label rates, A -> B: income = &gt;50K" in md
    assert "#### Missing data by group, A -> B" in md
    validate(c, "compare")


# ---------------------------------------------------------------------------------------
# JSON schemas


def validate(result: dict, kind: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(result)), schema)


def test_results_validate_against_the_schemas(compas, diabetic, adult, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    for r in (compas, diabetic, adult, faircode.profile(hostile_file(tmp_path, HOSTILE))):
        validate(r, "profile")
    schema = json.loads((SCHEMAS / "profile.schema.json").read_text())
    props = schema["properties"]
    assert list(props).index("label_rates") == list(props).index("dropped") + 1
    assert "label_rates" not in schema["required"] and "missing_by_group" not in schema["required"]
    bad = json.loads(json.dumps(compas))
    bad["label_rates"]["dimensions"][0]["groups"][0]["rate"] = "0.5"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    bad = json.loads(json.dumps(compas))
    bad["missing_by_group"][0]["columns"][0]["flagged"] = "Female"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    bad = json.loads(json.dumps(compas))
    bad["label_rates"]["positive_from"] = "guess"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    compare_schema = json.loads((SCHEMAS / "compare.schema.json").read_text())
    c = faircode.compare(compas, compas)
    jsonschema.validate(json.loads(json.dumps(c)), compare_schema)  # without the blocks
    c.update(compare_blocks())
    c["label_rates"]["dimensions"][0]["groups"][0]["rate_b"] = None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json.loads(json.dumps(c)), compare_schema)


# ---------------------------------------------------------------------------------------
# Notebook (SPEC 6.2)


def test_notebook_display_carries_the_blocks(tmp_path):
    from faircode.results import pre_html

    r = faircode.profile(hostile_file(tmp_path, HOSTILE), opts={"label": "y"})
    page = r._repr_html_()
    assert page.startswith("<iframe ") and 'sandbox="allow-scripts"' in page
    document = html.unescape(re.search(r'srcdoc="([^"]*)"', page).group(1))
    assert document == r.report("html")
    payload = re.search(
        r'<script type="application/json" id="faircode-result">(.*?)</script>', document, re.S
    ).group(1)
    assert json.loads(payload)["result"] == json.loads(json.dumps(r))  # what views.js draws
    assert "<script>alert" not in page and "<script>alert" not in document
    # the fallback where no HTML renderer is installed: the Markdown, escaped
    pre = pre_html(r.report("markdown"))
    assert "#### Label rates: y = True" in pre and "#### Missing data by group" in pre
    assert "<script>alert" not in pre and "&amp;lt;script&amp;gt;" in pre


def test_missing_extremes_that_cannot_differ_say_so():
    """Issue 27 item 4: groups at one missing share read "all groups equal", a column
    whose rows fall in one group reads "only 'M'"; never "lowest M, highest M"."""
    equal = b"sex,x\nM,1\nM,\nF,1\nF,\nF,2\nM,3\nF,\nM,\n"
    r = faircode.profile(io.BytesIO(equal), opts={"min_group_size": 1}, name="t.csv")
    text = render(r, "t.csv")
    row = next(line for line in text.splitlines() if line.startswith("    x "))
    assert "all groups equal" in row and "50.00%" in row
    assert " M " not in row and " F " not in row
    md = render_profile_markdown(r, name="t.csv")
    assert "| sex | x | 50.00% | all groups equal 50.00% |  |  |" in md
    r = faircode.profile(io.BytesIO(b"sex,y\nM,1\nM,\n"), opts={"min_group_size": 1}, name="t.csv")
    row = next(line for line in render(r, "t.csv").splitlines() if line.startswith("    y "))
    assert "only 'M'" in row


def test_difference_intervals_read_in_points_and_once():
    """Issue 27 items 1 and 9: a label-rate gap's interval is a difference, shown in
    points ("8.8 to 14.4 pts"), never as two percentages joined by a hyphen ("-15.6%--7.0%");
    a comparison's shift carries its interval in its text, so the suffix shows only n."""
    r = faircode.profile(COMPAS, opts={"label": "two_year_recid"})
    gap = next(f for f in r["findings"] if f["kind"] == "label_gap")
    lo, hi = (pct(x) for x in (gap["ci_low"], gap["ci_high"]))
    want = f"(95% CI {lo} to {hi} pts, n={gap['n']:,})"
    assert want in render(r, "c.csv")
    assert want in render_profile_markdown(r, name="c.csv")
    a = b"sex\n" + b"M\n" * 613 + b"F\n" * 387
    b = b"sex\n" + b"M\n" * 500 + b"F\n" * 500
    c = faircode.compare(io.BytesIO(a), io.BytesIO(b))
    lines = [x for x in render_compare(c, "a.csv", "b.csv").splitlines() if "share moved" in x]
    assert lines and all(line.endswith("pts)  (n=2,000)") for line in lines), lines
    assert not any("%--" in line for line in lines)


def test_missing_group_row_in_every_format():
    """Issue 27 item 4: the rows whose dimension is missing are a '(missing sex)' row of
    label rates (never highest or lowest) and of missing data by group (in the lowest,
    the highest and the tie), in the terminal report, Markdown and CSV."""
    data = b"sex,y,c\nM,1,a\nM,0,\nF,1,a\nF,0,a\n,1,\n,1,\nNA,0,\n"
    r = faircode.profile(io.BytesIO(data), opts={"label": "y", "min_group_size": 1}, name="t.csv")
    text = render(r, "t.csv")
    row = next(x for x in text.splitlines() if x.startswith("    (missing sex) "))
    assert "66.67%" in row and "not compared" in row  # 2 of 3 positive
    # c is missing in 1 of 2 M, 0 of 2 F and 3 of 3 rows without sex: the highest group
    col = next(x for x in text.splitlines() if x.startswith("    c "))
    assert "0.00% F" in col and "100.00% (missing sex)" in col and "flagged: 'M'" not in col
    assert "'(missing sex)': 3 rows" in text
    md = render_profile_markdown(r, name="t.csv")
    assert "| sex | (missing sex) | 3 | 66.67% |" in md
    assert "| sex | c | 57.14% | F 0.00% | (missing sex) 100.00% |" in md
    rows = list(csv.DictReader(io.StringIO(r.report("csv"))))
    rate = [x for x in rows if x["section"] == "label_rate" and x["note"] == "missing group"]
    assert [(x["label"], x["count"], x["n"], x["positive_count"]) for x in rate] == [
        ("(missing sex)", "3", "3", "2")
    ]
    assert (rate[0]["highest"], rate[0]["lowest"]) == ("false", "false")
    miss = [x for x in rows if x["section"] == "missing_by_group" and x["note"] == "missing group"]
    got = {x["column"]: (x["label"], x["count"], x["missing_count"], x["flagged"]) for x in miss}
    assert got == {"c": ("(missing sex)", "3", "3", "false")}  # y has no missing cell


def test_the_missing_group_row_follows_the_more_groups_line():
    """SPEC 6.1: in the label-rates table the missing group comes after the dimension's
    `... K more` row, in the terminal as in Markdown (the terminal put it before)."""
    from faircode.render import MAX_GROUPS_SHOWN

    k = MAX_GROUPS_SHOWN + 3
    lines = ["g,y"] + [f"g{i:02},{i % 2}" for i in range(k) for _ in range(4)] + [",1"] * 5
    data = io.BytesIO("\n".join(lines).encode())
    r = faircode.profile(data, overrides={"g": "race"}, opts={"label": "y"}, name="t")
    more = "... 3 more groups"
    text = [x.strip() for x in render(r, "t").splitlines()]
    start = text.index(next(x for x in text if x.startswith("g: ")))
    block = text[start : start + MAX_GROUPS_SHOWN + 4]
    assert block[-2].startswith(more) and block[-1].startswith("(missing g)"), block
    md = render_profile_markdown(r, name="t")
    rates = md[md.index("#### Label rates") :].splitlines()  # the groups table has one too
    rates = [x for x in rates if x.startswith("| g |") and (more in x or "(missing g)" in x)]
    assert len(rates) == 2 and more in rates[0] and "(missing g) | 5 |" in rates[1]


def test_the_groups_alike_the_lowest_are_named_then_counted():
    block = {"gap": {"lowest_alike": ["a", "b", "c", "d", "e"]}}
    assert ALIKE_SHOWN == 3
    assert alike_text(block) == " (not told apart from 'a', 'b', 'c' and 2 more at 95%)"
    assert alike_text({"gap": {"lowest_alike": [["x", "y"]]}}) == (
        " (not told apart from 'x' x 'y' at 95%)"
    )
    # none alike, no gap (fewer than two compared), a saved profile made before the key
    assert alike_text({"gap": {"lowest_alike": []}}) == ""
    assert alike_text({"gap": None}) == ""
    assert alike_text({"gap": {"difference": 0.1}}) == ""


def test_outcome_lowest_names_the_groups_welch_does_not_tell_apart():
    # SPEC 21.3: COMPAS's priors_count by race: 'Other' has the lowest mean and
    # 'Hispanic''s interval of the difference reaches 0
    r = faircode.profile(COMPAS, opts={"outcome": ["priors_count"]})
    race = next(d for d in r["outcomes"][0]["dimensions"] if d["name"] == "race")
    assert (race["lowest"], race["gap"]["lowest_alike"]) == ("Other", ["Hispanic"])
    text = r.report("text")
    assert "  race: highest 'African-American', lowest 'Other' (not told apart from " in text
    assert "'Hispanic' at 95%): difference " in text
    assert "| Other (not told apart from Hispanic at 95%) |" in r.report("markdown")


def test_a_zero_cell_ratio_interval_is_shown_in_the_reports(tmp_path):
    # SPEC 17.4: a lowest group with no positives (a zero cell) has a ratio interval
    # from 0, no longer none, and the reports print it as they print any other
    rows = ["sex,y"] + ["F,1"] * 12 + ["F,0"] * 18 + ["M,0"] * 30
    path = tmp_path / "zero.csv"
    path.write_text("\n".join(rows) + "\n")
    r = faircode.profile(str(path), opts={"label": "y", "positive": "1", "min_group_size": 10})
    gap = r["label_rates"]["dimensions"][0]["gap"]
    assert gap["ratio_ci_low"] == 0.0 and gap["ratio_ci_high"] > 0
    shown = f"0.00 [0.00-{fmt(gap['ratio_ci_high'], 2)}]"
    assert f"ratio {shown}" in r.report("text")
    assert f"| 0.00 [0.00, {fmt(gap['ratio_ci_high'], 2)}] |" in render_profile_markdown(r)


def test_a_share_missing_of_some_rows_never_reads_zero_or_a_hundred():
    """SPEC 17.5 (8's rule): one missing cell of 30,001 reads `<0.01%` overall (the column
    is listed as having missing cells), and a group missing 29,999 of its 30,000 cells
    `>99.99%`, in the flag, the terminal and Markdown; a group missing none keeps 0.00%,
    and the dimension's own missing share (its count is not beside it) follows the rule."""

    def profile(data: str) -> dict:
        return faircode.profile(io.BytesIO(data.encode()), overrides=None, opts={}, name="t.csv")

    r = profile("sex,income\n" + "M,1\n" * 14999 + "M,\n" + "F,2\n" * 15000 + ",2\n")
    income = r["missing_by_group"][0]["columns"][0]
    assert (income["name"], income["missing_count"], income["missing_pct"]) == ("income", 1, 0.0)
    sex = r["dimensions"][0]
    assert (sex["name"], sex["missing_count"], sex["missing_pct"]) == ("sex", 1, 0.0)
    text, md = render(r, "t.csv"), render_profile_markdown(r, name="t.csv")
    assert "2 groups, imbalance 1.00x, missing <0.01%" in text
    assert "| sex | sex | found by name | 100 [100-100] | 2 | 1.00x | <0.01% |" in md
    assert any(line.split()[:4] == ["income", "<0.01%", "0.00%", "F"] for line in text.splitlines())
    assert "| sex | income | <0.01% | F 0.00% |" in md
    r = profile("sex,note\n" + "M,\n" * 29999 + "M,x\n" + "F,x\n" * 30000)
    m = next(g for g in r["missing_by_group"][0]["columns"][0]["groups"] if g["label"] == "M")
    assert (m["missing"], m["count"], m["missing_pct"]) == (29999, 30000, 1.0)
    assert "sex: 'note' is missing for >99.99% of 'M' vs 50.00% overall" in r["flags"]
    text, md = render(r, "t.csv"), render_profile_markdown(r, name="t.csv")
    line = next(line for line in text.splitlines() if line.split()[:1] == ["note"])
    assert line.split() == "note 50.00% 0.00% F >99.99% M flagged: 'M' >99.99%".split()
    assert "| sex | note | 50.00% | F 0.00% | M >99.99% | M >99.99% |" in md


def test_one_missing_cell_names_its_group_the_highest_in_every_format():
    """SPEC 17.5: with one missing cell of 30,001, in 'M', the highest group is 'M' and the
    lowest 'F' (by share, not by intervals rounded to 4 dp, which tied at 0.0000 and named
    'F' both), in the JSON, the terminal and Markdown (the website's in
    tests/js/views-format.test.js)."""
    data = "sex,income\n" + "M,1\n" * 14999 + "M,\n" + "F,2\n" * 15000 + ",2\n"
    r = faircode.profile(io.BytesIO(data.encode()), overrides=None, opts={}, name="t.csv")
    income = r["missing_by_group"][0]["columns"][0]
    assert (income["lowest"], income["highest"]) == ("F", "M")
    m = next(g for g in income["groups"] if g["label"] == "M")
    text = render(r, "t.csv")
    line = next(x for x in text.splitlines() if x.split()[:2] == ["income", "<0.01%"])
    assert line.split() == ["income", "<0.01%", "0.00%", "F", missing_share(m), "M"]
    md = render_profile_markdown(r, name="t.csv")
    assert f"| sex | income | <0.01% | F 0.00% | M {missing_share(m)} |  |" in md


def test_the_missing_group_of_a_long_dimension_name_is_shown_as_the_highest():
    """SPEC 17.5, 0.9: a dimension's name over LABEL_SHOWN is capped in the reports (as
    report() and the CLI render), and
    its missing group's label `(missing {dim})` is capped as a whole, apart from it; the
    column's `highest`, that label, still names the missing group's row, not `-`."""
    dim = "gender " + "x" * 220
    data = f'"{dim}",note\n' + "M,\nM,x\n" * 150 + "F,x\n" * 300 + ",\n" * 100
    r = faircode.profile(io.BytesIO(data.encode()), overrides={dim: "sex"}, opts={}, name="t.csv")
    col = r["missing_by_group"][0]["columns"][0]
    assert (col["lowest"], col["highest"]) == ("F", f"(missing {dim})")
    row = next(x for x in r.report("markdown").splitlines() if "| note |" in x)
    cells = [x.strip() for x in row.split(" | ")]
    assert cells[3] == "F 0.00%" and cells[4].startswith("(missing gender xxx")
    assert cells[4].endswith(") 100.00%") and cells[5] == "M 50.00% |"
    line = next(x for x in r.report("text").splitlines() if x.split()[:1] == ["note"])
    assert line.split()[2:6] == ["0.00%", "F", "100.00%", "(missing"]


def test_an_unscored_label_of_some_rows_never_reads_zero_or_a_hundred():
    """SPEC 1.4 (8's rule): an unscored column's largest labels, shown by share without
    their counts, read `>99.99%` and `<0.01%` for 29,999 and 1 of 30,000 rows."""
    data = "sex,code\n" + "M,a\n" * 15000 + "F,a\n" * 14999 + "F,b\n"
    r = faircode.profile(io.BytesIO(data.encode()), overrides=None, opts={}, name="t.csv")
    assert [g["count"] for g in r["unscored"][0]["groups"]] == [29999, 1]
    assert "  code 2 labels: a >99.99%, b <0.01%" in render(r, "t.csv")
    assert "| code | 2 | a >99.99%, b <0.01% |" in render_profile_markdown(r, name="t.csv")


def test_compare_rate_and_missing_rows_of_some_rows_never_read_zero_or_a_hundred():
    """SPEC 17.6 (8's rule): one positive of 30,000 that went reads `<0.01% -> 0.00%
    (-<0.01 pts)`, 29,999 of 30,000 that became all `>99.99% -> 100.00% (+<0.01 pts)`, and
    one missing cell of 60,000 that went `<0.01% -> 0.00%`, in the JSON's counts, the
    terminal and Markdown (the website's and HTML report's in tests/js/views-format.test.js)."""

    def side(male_pos: int, male_missing: int, female_pos: int) -> dict:
        rows = ["sex,y,income"]
        for k in range(30000):
            rows.append(f"M,{int(k < male_pos)},{'' if k < male_missing else 5}")
            rows.append(f"F,{int(k < female_pos)},5")
        data = "\n".join(rows) + "\n"
        return faircode.profile(
            io.BytesIO(data.encode()), overrides=None, opts={"label": "y"}, name="t.csv"
        )

    d = faircode.compare(side(1, 1, 29999), side(0, 0, 30000))
    rates = {g["label"]: g for g in d["label_rates"]["dimensions"][0]["groups"]}
    assert [rates[x][k] for x in "MF" for k in ("positive_a", "positive_b")] == [1, 0, 29999, 30000]
    income = d["missing_by_group"][0]["columns"][0]
    assert (income["missing_count_a"], income["missing_count_b"]) == (1, 0)
    male = next(g for g in income["groups"] if g["label"] == "M")
    assert (male["missing_a"], male["missing_b"], male["count_a"]) == (1, 0, 30000)
    text = render_compare(d, "a.csv", "b.csv")
    assert section(text, "Label rates", "Missing")[2:] == [
        "    F                            >99.99% -> 100.00%  (+<0.01 pts)",
        "    M                            <0.01% ->  0.00%  (-<0.01 pts)",
    ]
    lines = section(text, "Missing data by group", "zzz")
    assert lines[2].startswith("    income <0.01% ->  0.00%  (-<0.01 pts); most moved ")
    md = d.report("markdown")
    assert "| sex | F | >99.99% | 100.00% | +<0.01 pts |" in md
    assert "| sex | M | <0.01% | 0.00% | -<0.01 pts |" in md
    assert "| sex | income | <0.01% -> 0.00% |" in md


def test_compare_lists_a_group_that_moved_before_one_that_did_not():
    """SPEC 17.6: one missing cell of 30,000 in 'M' that went rounds to a delta of 0, as
    'F' (none on either side) does; 'M' comes first, so the report's most moved group is
    'M' `<0.01% -> 0.00%`, not 'F' `0.00% -> 0.00%` (the label's order put it first)."""

    def side(male_missing: int) -> dict:
        rows = ["sex,income"]
        for k in range(30000):
            rows += [f"M,{'' if k < male_missing else 5}", "F,5"]
        data = "\n".join(rows) + "\n"
        return faircode.profile(io.BytesIO(data.encode()), name="t.csv")

    d = faircode.compare(side(1), side(0))
    income = d["missing_by_group"][0]["columns"][0]
    assert [(g["label"], g["missing_delta"]) for g in income["groups"]] == [("M", 0), ("F", 0)]
    assert "; most moved 'M' <0.01% -> 0.00%" in render_compare(d, "a.csv", "b.csv")
    assert "| sex | income | <0.01% -> 0.00% | M | <0.01% -> 0.00% | -<0.01 pts |" in d.report(
        "markdown"
    )


@pytest.mark.parametrize("floor", [100, 1000])
def test_a_dash_for_lowest_and_highest_reads_with_the_size_floor(tmp_path, floor):
    # SPEC 17.5: 60 rows, no two groups of `floor` rows: every lowest and highest is null
    # and shown as -, and the rule beside the table names the floor's number
    rows = [["M" if i % 2 else "F", "1" if i % 4 else ""] for i in range(60)]
    r = faircode.profile(
        write_csv(tmp_path / "s.csv", ["sex", "x"], rows), opts={"min_group_size": floor}
    )
    (entry,) = r["missing_by_group"]
    assert entry["min_group_size"] == floor and entry["columns"][0]["highest"] is None
    rule = f"at least {floor:,} rows (--min-group-size), - where fewer than two are that large"
    text = r.report("text")
    assert f"lowest and highest by share among the groups of {rule})" in text
    assert re.search(r"\n    x +25\.00%  - +-\n", text)
    assert f"_Lowest and highest by share among the groups of {md_escape(rule)}._" in (
        r.report("markdown")
    )
    # a profile saved before the key: the option's name alone
    del entry["min_group_size"]
    assert "groups of at least --min-group-size rows, - where" in r.report("text")
