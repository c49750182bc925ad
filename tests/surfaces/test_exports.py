"""Exports (SPEC 6.1): --markdown and --csv for profile, compare and fairness evaluate;
a saved profile as a side of compare (SPEC 8.1); results in a notebook (SPEC 6.2)."""

from __future__ import annotations

import copy
import csv
import html.parser
import io
import json
import os
import pickle
import random
from pathlib import Path

import pytest
from util import ADULT_NAMES, data_file

import faircode
from faircode.cli import main
from faircode.exports import profile_csv_rows, render_profile_markdown
from faircode.numerics import more_text
from faircode.render import label_rate_lines, missing_by_group_lines, outcome_lines
from faircode.safetext import md_escape

FORMULAS = ['=HYPERLINK("http://x","y")', "+1", "-2", "@x", "\rCR"]
HOSTILE = ["a|b", "x\ny", "`tick`", "<b>bold</b>", "<script>alert(1)</script>", '"><img>']


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header, *rows])
    return path


def labels_file(tmp_path: Path, labels: list[str], name: str = "data.csv") -> Path:
    """A race dimension holding ``labels`` (150 rows each, 10 more rows of one)."""
    rows = [[lab, "F" if i % 2 else "M"] for lab in labels for i in range(150)]
    rows += [[labels[0], "M"]] * 10
    return write_csv(tmp_path / name, ["race", "sex"], rows)


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def assert_inert(rows: list[dict[str, str]]) -> None:
    for row in rows:
        for key, cell in row.items():
            if not is_number(cell):
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (key, cell)


# ---------------------------------------------------------------------------------------
# CSV


def test_profile_csv_neutralises_formulas_and_keeps_numbers(tmp_path, capsys):
    path = labels_file(tmp_path, FORMULAS)
    code, out, _ = run(capsys, "profile", path, "--csv", "-")
    assert code == 0
    rows = read_csv(out)
    assert_inert(rows)
    groups = [r for r in rows if r["section"] == "group" and r["dimension"] == "race"]
    assert sorted(r["label"] for r in groups) == sorted("'" + lab for lab in FORMULAS)
    hyperlink = next(r for r in groups if "HYPERLINK" in r["label"])
    assert hyperlink["label"] == "'" + FORMULAS[0]  # the quotes inside kept, exact
    assert int(hyperlink["count"]) == 160 and float(hyperlink["share"]) > 0
    # numbers stay numbers: every numeric column parses, none is quoted or prefixed
    for r in groups:
        for col in ("n_groups", "dimension_score", "count", "share", "ci_low", "ci_high"):
            assert is_number(r[col]), (col, r[col])
        assert r["small_group"] in ("true", "false")
    (profile_row,) = [r for r in rows if r["section"] == "profile"]
    assert int(profile_row["n_rows"]) == 150 * len(FORMULAS) + 10 and profile_row["grade"]
    flags = [r["note"] for r in rows if r["section"] == "flag"]
    assert flags == faircode.profile(path)["flags"]


def test_csv_tab_leading_cell_and_negative_numbers(tmp_path, capsys):
    from faircode.renderers import render_as

    # the reader trims tabs from labels (SPEC 0.4), so a tab-leading label reaches the
    # renderer only from a result built elsewhere (an API caller's dict)
    result = copy.deepcopy(dict(faircode.profile(labels_file(tmp_path, ["a", "b"]))))
    result["dimensions"][0]["groups"][0]["label"] = "\tTab"
    rows = read_csv(render_as("profile", "csv", result, name="x"))
    assert "'\tTab" in [r["label"] for r in rows]
    assert_inert(rows)
    # compare: a negative share_delta is a number, not text with a quote
    a = labels_file(tmp_path, ["a", "b"], "a.csv")
    b = write_csv(tmp_path / "b.csv", ["race", "sex"], [["a", "M"]] * 100 + [["b", "F"]] * 300)
    code, out, _ = run(capsys, "compare", a, b, "--csv", "-")
    assert code == 0
    table = read_csv(out)
    deltas = [r["share_delta"] for r in table if r["section"] == "group"]
    assert any(d.startswith("-") for d in deltas) and all(is_number(d) for d in deltas)
    flags = [r["note"] for r in table if r["section"] == "flag"]
    assert flags == faircode.compare(faircode.profile(a), faircode.profile(b))["flags"] and flags


def test_compare_csv_carries_the_counts_of_rates_and_missing_shares(tmp_path, capsys):
    # SPEC 6.1 / 17.6: 1 positive (and 1 blank) of 25,000 rows reads 0.0 at 4 dp; the
    # counts tell it from none, as the JSON's do
    n = 25_000

    def side(name: str, positives: int) -> Path:
        rows = [["M", "0", "x"] for _ in range(n)] + [["F", "1", "x"] for _ in range(n)]
        for i in range(positives):
            rows[i] = ["M", "1", ""]
        return write_csv(tmp_path / name, ["sex", "y", "note"], rows)

    a, b = side("a.csv", 1), side("b.csv", 0)
    code, out, _ = run(capsys, "compare", a, b, "--label", "y", "--csv", "-")
    assert code == 0
    rows = read_csv(out)
    rate = {r["label"]: r for r in rows if r["section"] == "label_rate"}
    assert rate["M"]["rate_a"] == "0.0"
    assert (rate["M"]["positive_a"], rate["M"]["positive_b"]) == ("1", "0")
    assert (rate["F"]["positive_a"], rate["F"]["positive_b"]) == (str(n), str(n))
    miss = {r["label"]: r for r in rows if r["section"] == "missing_by_group"}
    assert miss["M"]["missing_pct_a"] == miss["M"]["column_missing_pct_a"] == "0.0"
    assert (miss["M"]["missing_a"], miss["M"]["missing_b"]) == ("1", "0")
    assert (miss["F"]["missing_a"], miss["F"]["missing_b"]) == ("0", "0")
    cells = (miss["M"]["column_missing_count_a"], miss["M"]["column_missing_count_b"])
    assert cells == ("1", "0")


def test_evaluate_csv_neutralises_slice_labels(tmp_path, capsys):
    labels = [*FORMULAS, "plain"]
    rows = [json.dumps({"g": labels[i % 6], "p": i % 2, "y": (i // 2) % 2}) for i in range(600)]
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    base = ["fairness", "evaluate", path, "--pred", "p", "--label", "y", "--attr", "g"]
    code, out, _ = run(capsys, *base, "--engine", "pandas", "--csv", "-")
    assert code == 0
    table = read_csv(out)
    assert_inert(table)
    slices = {r["slice"] for r in table if r["section"] == "slice"}
    assert slices == {"'" + lab for lab in FORMULAS} | {"plain"}
    acc = [r for r in table if r["section"] == "slice" and r["metric"] == "accuracy"]
    assert all(int(r["n"]) == 100 and 0 <= float(r["value"]) <= 1 for r in acc)
    assert {r["section"] for r in table} == {"evaluate", "slice", "disparity"}


# ---------------------------------------------------------------------------------------
# The rows of label rates (SPEC 17.4) and outcome means (SPEC 21): every kind of row, its
# keys in order, on hand-made blocks (real data seldom holds every branch)

RATE_KEYS = ["n", "positive_count", "rate", "ci_low", "ci_high", "label_missing", "small_group"]
MEAN_KEYS = ["n", "mean", "ci_low", "ci_high", "sd", "missing_count", "small_group"]
GAP_KEYS = ["gap_ci_low", "gap_ci_high", "verdict"]


def _rate(n: int, positive: int) -> dict:
    return {
        "n": n,
        "positive": positive,
        "rate": positive / n,
        "ci_low": 0.1,
        "ci_high": 0.9,
        "label_missing": 1,
        "small_group": n < 30,
    }


def _mean(n: int, mean: float) -> dict:
    return {
        "n": n,
        "mean": mean,
        "ci_low": mean - 1,
        "ci_high": mean + 1,
        "sd": 2.0,
        "missing": 3,
        "small_group": False,
    }


def _result_of(blocks: dict) -> dict:
    """A profile result holding only ``blocks``."""
    return {
        "n_rows": 0,
        "n_cols": 0,
        "overall_score": None,
        "grade": None,
        "dimensions": [],
        "intersections": [],
        "dropped": [],
        "flags": [],
        **blocks,
    }


def _rows_of(blocks: dict, *sections: str) -> list[dict]:
    """The rows of ``sections`` in `profile --csv` of a result holding only ``blocks``."""
    return [r for r in profile_csv_rows(_result_of(blocks)) if r["section"] in sections]


def test_label_rate_rows_of_every_kind_keep_their_keys_in_order():
    """A group, the count of groups not listed, the missing group (after them, never
    compared), a dimension not counted, a cell and the count of cells not listed: the
    JSON's order, every count a row (a 30,000-zip dimension lists 1,000 groups)."""
    gap = {"ci_low": 0.1, "ci_high": 0.3, "verdict": "confirmed"}
    block = {
        "label": "y",
        "positive": "1",
        "positive_from": "given",
        **{"n": 90, "positive_count": 40, "rate": 0.44, "ci_low": 0.3, "ci_high": 0.5},
        "label_missing": 2,
        "dimensions": [
            {
                "name": "race",
                "groups": [{"label": "a", **_rate(60, 30)}, {"label": "b", **_rate(20, 4)}],
                "groups_not_listed": 5,
                "missing_group": {"count": 9, **_rate(8, 2)},
                "max_difference": 0.2,
                "min_ratio": 0.6,
                "highest": "a",
                "lowest": "b",
                "gap": {**gap, "ratio_ci_low": 0.5, "ratio_ci_high": 0.8},
            },
            {"name": "zip", "not_counted": True},
        ],
        "intersection": {
            "dims": ["race", "sex"],
            "cells": [{"a": "a", "b": "F", **_rate(25, 10)}],
            "cells_not_listed": 4,
            "max_difference": 0.1,
            "min_ratio": None,
            "highest": ["a", "F"],
            "lowest": ["b", "M"],
        },
    }
    rows = _rows_of({"label_rates": block}, "label_rate", "label_rate_cell")
    spread = ["max_difference", "min_ratio", *GAP_KEYS, "ratio_ci_low", "ratio_ci_high"]
    group = ["section", "dimension", "column", "label", *RATE_KEYS, "highest", "lowest"]
    group += ["lowest_alike", *spread]
    assert [list(r) for r in rows] == [
        group,
        group,
        ["section", "dimension", "column", "count", "note"],
        [*group[:4], "count", *group[4:], "note"],
        ["section", "dimension", "note"],
        ["section", "dimension", "dimension_b", "column", "label", "label_b", *RATE_KEYS]
        + ["highest", "lowest", "lowest_alike", "max_difference", "min_ratio"],
        ["section", "dimension", "dimension_b", "column", "count", "note"],
    ]
    assert [(r["label"], r["highest"], r["lowest"]) for r in rows[:2]] == [
        ("a", True, False),
        ("b", False, True),
    ]
    assert rows[2] == {
        "section": "label_rate",
        "dimension": "race",
        "column": "y",
        "count": 5,
        "note": "groups not listed",
    }
    assert (rows[3]["label"], rows[3]["highest"], rows[3]["lowest"]) == (
        "(missing race)",
        False,
        False,
    )
    assert (rows[3]["count"], rows[3]["n"], rows[3]["note"]) == (9, 8, "missing group")
    assert rows[4] == {"section": "label_rate", "dimension": "zip", "note": "not counted"}
    assert (rows[5]["label_b"], rows[5]["highest"], rows[5]["column"]) == ("F", True, "y")
    assert rows[6] == {
        "section": "label_rate_cell",
        "dimension": "race",
        "dimension_b": "sex",
        "column": "y",
        "count": 4,
        "note": "cells not listed",
    }
    # The Markdown's line for the groups not shown counts those the JSON leaves out.
    md = render_profile_markdown(_result_of({"label_rates": {**block, "ratio_note": "r"}}))
    assert "| race | ... 5 more groups |" in md
    assert "| race x sex | ... 4 more cells |" in md
    # The terminal's too: and `--json` does not have them all.
    text = label_rate_lines({**block, "ratio_note": "r"})
    assert "    ... 5 more groups; --json lists the first 2" in text
    assert "    ... 4 more cells; --json lists the first 1" in text


def test_missing_by_group_rows_count_the_groups_not_listed():
    """SPEC 17.5 as rows: a column's groups, how many the JSON does not list, then its
    missing group (never flagged)."""

    def group(label: str, count: int, missing: int) -> dict:
        return {"label": label, "count": count, "missing": missing}

    column = {
        "name": "income",
        "missing_count": 7,
        "missing_pct": 0.07,
        "flagged": ["a"],
        "lowest": "b",
        "highest": "a",
        "groups": [
            {**group("a", 50, 5), "missing_pct": 0.1, "ci_low": 0.04, "ci_high": 0.21},
            {**group("b", 40, 1), "missing_pct": 0.025, "ci_low": 0.0, "ci_high": 0.13},
        ],
        "groups_not_listed": 3,
        "missing_group": {**group("x", 10, 1), "missing_pct": 0.1, "ci_low": 0, "ci_high": 0.4},
    }
    entries = [{"dimension": "zip", "columns": [column]}, {"dimension": "sex", "not_counted": True}]
    rows = _rows_of({"missing_by_group": entries}, "missing_by_group")
    head = ["section", "dimension", "column", "column_missing_count", "column_missing_pct"]
    group_keys = [*head, "label", "count", "missing_count", "missing_pct", "ci_low", "ci_high"]
    marks = ["flagged", "highest", "lowest", "note"]
    assert [list(r) for r in rows] == [
        [*group_keys, *marks],
        [*group_keys, *marks],
        [*head, "count", "note"],
        [*group_keys, *marks],
        ["section", "dimension", "note"],
    ]
    assert [(r.get("label"), r["count"], r.get("flagged"), r["note"]) for r in rows[:4]] == [
        ("a", 50, True, None),
        ("b", 40, False, None),
        (None, 3, None, "groups not listed"),
        ("(missing zip)", 10, False, "missing group"),
    ]
    # SPEC 17.5's highest and lowest, true on their rows (the missing group's too)
    assert [(r.get("highest"), r.get("lowest")) for r in rows[:4]] == [
        (True, False),
        (False, True),
        (None, None),
        (False, False),
    ]
    column["highest"] = "(missing zip)"
    rows = _rows_of({"missing_by_group": entries}, "missing_by_group")
    assert (rows[0]["highest"], rows[3]["highest"]) == (False, True)
    # The lowest and highest group are among the listed ones, and the reports say so.
    scope = "(lowest and highest among the first 2 of 5 groups, those the JSON lists)"
    assert f"    {scope}" in missing_by_group_lines(entries, 100)
    assert scope in render_profile_markdown(_result_of({"missing_by_group": entries}))
    # A flagged group past the listed ones is named, without the share the JSON lacks.
    column["flagged"] = ["a", "z"]
    (line,) = [x for x in missing_by_group_lines(entries, 100) if x.lstrip().startswith("income")]
    assert line.endswith("flagged: 'a' 10.00%, 'z'")
    md = render_profile_markdown(_result_of({"missing_by_group": entries}))
    assert "| a 10.00%, z |" in md


def test_outcome_rows_of_every_kind_keep_their_keys_in_order():
    """A group, the count of groups not listed, a dimension not counted, a cell and the
    count of cells not listed (both counts name the outcome's column); an outcome's
    dimension has no missing group (SPEC 21)."""
    welch = {"ci_low": 1.5, "ci_high": 4.5, "verdict": "possible", "df": 41.5, "difference": 3.0}
    block = {
        "column": "cost",
        **{"n": 90, "missing": 1, "non_numeric": 2, "mean": 5.0, "ci_low": 4.0},
        **{"ci_high": 6.0, "sd": 1.0, "threshold": 0.5},
        "dimensions": [
            {
                "name": "race",
                "groups": [{"label": "a", **_mean(60, 7.0)}, {"label": "b", **_mean(20, 4.0)}],
                "groups_not_listed": 5,
                "max_difference": 3.0,
                "highest": "a",
                "lowest": "b",
                "gap": welch,
            },
            {"name": "zip", "not_counted": True},
        ],
        "intersection": {
            "dims": ["race", "sex"],
            "cells": [{"a": "b", "b": "M", **_mean(25, 1.0)}],
            "cells_not_listed": 4,
            "max_difference": 6.0,
            "highest": ["a", "F"],
            "lowest": ["b", "M"],
            "gap": None,
        },
    }
    rows = _rows_of({"outcomes": [block]}, "outcome_group", "outcome_cell")
    spread = ["max_difference", *GAP_KEYS, "df"]
    group = ["section", "dimension", "column", "label", *MEAN_KEYS, "highest", "lowest"]
    group += ["lowest_alike", *spread]
    assert [list(r) for r in rows] == [
        group,
        group,
        ["section", "dimension", "column", "count", "note"],
        ["section", "dimension", "note"],
        ["section", "dimension", "dimension_b", "column", "label", "label_b", *MEAN_KEYS]
        + ["highest", "lowest", "lowest_alike", "max_difference"],
        ["section", "dimension", "dimension_b", "column", "count", "note"],
    ]
    assert [(r["label"], r["highest"], r["lowest"]) for r in rows[:2]] == [
        ("a", True, False),
        ("b", False, True),
    ]
    assert (rows[2]["count"], rows[2]["note"]) == (5, "groups not listed")
    assert rows[3] == {"section": "outcome_group", "dimension": "zip", "note": "not counted"}
    assert (rows[4]["label_b"], rows[4]["lowest"], rows[4]["missing_count"]) == ("M", True, 3)
    assert (rows[5]["column"], rows[5]["count"], rows[5]["note"]) == (
        "cost",
        4,
        "cells not listed",
    )
    text = outcome_lines({**block, "decimals": 2})
    assert "    ... 5 more groups; --json lists the first 2" in text
    assert "    ... 4 more cells; --json lists the first 1" in text


def test_a_dimension_of_one_group_reads_1_group_not_1_groups():
    rows = "sex,race\n" + "M,a\nM,b\n" * 60
    text = faircode.profile(io.BytesIO(rows.encode())).report("text")
    assert ", 1 group, missing" in text
    assert ", 2 groups, missing" in text
    assert "1 groups" not in text


def test_more_text_says_whether_the_json_lists_every_entry():
    assert more_text(12, 0, 12, "groups") is None
    assert more_text(13, 0, 12, "groups") == "... 1 more group (--json shows all)"
    assert more_text(14, 0, 12, "groups") == "... 2 more groups (--json shows all)"
    assert more_text(2, 1, 1, "cells") == "... 2 more cells; --json lists the first 2"
    assert more_text(2, 0, 1, "cells") == "... 1 more cell (--json shows all)"
    assert more_text(1000, 29000, 12, "groups") == (
        "... 29,988 more groups; --json lists the first 1,000"
    )
    assert more_text(3, 2, 10) == "... 2 more; --json lists the first 3"


# ---------------------------------------------------------------------------------------
# Markdown


def split_row(line: str) -> list[str]:
    """The cells of a GFM table row: split at pipes not escaped by a backslash."""
    cells, cur, i = [], "", 0
    assert line.startswith("|") and line.endswith("|"), line
    body = line[1:-1]
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            cur += body[i : i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return [*cells, cur]


def tables(markdown: str) -> list[list[list[str]]]:
    out, current = [], None
    for line in markdown.split("\n"):
        if line.startswith("|"):
            if current is None:
                current = []
                out.append(current)
            current.append(split_row(line))
        else:
            current = None
    return out


def test_profile_markdown_keeps_hostile_labels_in_their_cells(tmp_path, capsys):
    path = labels_file(tmp_path, HOSTILE)
    code, out, _ = run(capsys, "profile", path, "--markdown", "-")
    assert code == 0
    found = tables(out)
    assert len(found) == 2  # the dimensions table and the groups table, nothing else
    dims, groups = found
    assert [len(r) for r in dims] == [7] * (2 + 2)  # header, rule, race, sex
    assert [len(r) for r in groups] == [6] * (2 + len(HOSTILE) + 2)
    race = [r[1].strip() for r in groups[2:] if r[0].strip() == "race"]
    assert race[0] == "a\\|b" and "x\\\\ny" in race and "\\`tick\\`" in race
    assert "&lt;script&gt;" in out and "<script>" not in out and "<b>" not in out


def test_compare_markdown_is_tables_and_flags(tmp_path, capsys):
    a = labels_file(tmp_path, HOSTILE[:3], "a.csv")
    b = labels_file(tmp_path, HOSTILE[1:4], "b.csv")
    code, out, _ = run(capsys, "compare", a, b, "--markdown", "-")
    assert code == 0 and out.startswith("### faircode compare: significant representation drift")
    dims, groups = tables(out)
    assert all(len(r) == 7 for r in dims) and all(len(r) == 6 for r in groups)
    statuses = [r[5].strip() for r in groups[2:] if r[0].strip() == "race"]
    assert sorted(statuses) == ["appeared", "disappeared", "shifted", "shifted"]
    assert "#### Findings and notes" in out and "<b>" not in out


# ---------------------------------------------------------------------------------------
# The one --format convention of the three commands


def evaluate_args(tmp_path: Path) -> list:
    rows = [json.dumps({"g": "ab"[i % 2], "p": int(i % 3 == 0), "y": i % 2}) for i in range(400)]
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return ["fairness", "evaluate", path, "--pred", "p", "--label", "y", "--attr", "g"]


@pytest.mark.parametrize("command", ["profile", "compare", "fairness evaluate"])
@pytest.mark.parametrize("form", ["markdown", "csv"])
def test_export_flags_of_every_command(tmp_path, capsys, command, form):
    data = labels_file(tmp_path, ["a", "b", "c"])
    args = {
        "profile": ["profile", data],
        "compare": ["compare", data, labels_file(tmp_path, ["a", "b"], "b.csv")],
        "fairness evaluate": evaluate_args(tmp_path),
    }[command]
    inp = args[2] if command == "fairness evaluate" else args[1]
    text = run(capsys, *args)
    assert text[0] == 0
    stdout = run(capsys, *args, "--format", form)
    assert stdout[0] == 0 and stdout[1] != text[1]
    assert run(capsys, *args, f"--{form}", "-") == stdout  # `-`: instead of the report
    target = tmp_path / f"out.{form}"
    code, out, err = run(capsys, *args, f"--{form}", target)
    assert (code, out) == (0, text[1])  # PATH: the usual report still prints
    assert target.read_bytes().decode() == stdout[1]
    assert err.startswith("faircode: wrote ") and str(target) in err
    # with --json on stdout, the export still goes to its file
    code, out, _ = run(capsys, *args, "--json", f"--{form}", target)
    assert code == 0 and json.loads(out) and target.read_bytes().decode() == stdout[1]
    # an export onto an input file is refused before anything is read or written
    before = Path(inp).read_bytes()
    code, _, err = run(capsys, *args, f"--{form}", inp)
    assert code == 2 and "is an input file" in err and Path(inp).read_bytes() == before
    code, _, err = run(capsys, *args, f"--{form}", tmp_path / "no" / "such" / "dir.out")
    assert code == 2 and err.startswith("faircode: error: cannot write") and err.count("\n") == 1


def test_two_claims_on_stdout_are_a_usage_error(tmp_path, capsys):
    data = labels_file(tmp_path, ["a", "b"])
    for extra in (["--markdown", "--json"], ["--json", "--csv", "-"], ["--csv", "--markdown"]):
        with pytest.raises(SystemExit) as exc:
            main(["profile", str(data), *extra])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "not allowed with argument" in err and err.count("\n") == 1, err


# ---------------------------------------------------------------------------------------
# A saved profile as a side of compare (SPEC 8.1)


def saved_profile(capsys, tmp_path: Path, data: Path, *args: str, name: str = "saved.json"):
    code, out, _ = run(capsys, "profile", data, "--json", *args)
    assert code == 0
    path = tmp_path / name
    path.write_text(out, encoding="utf-8")
    return path


def compare_json(capsys, *args) -> dict:
    code, out, err = run(capsys, "compare", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_saved_profile_compares_as_its_file_adult(tmp_path, capsys):
    train, test = data_file("adult.data"), data_file("adult.test")
    names = ["--names", ADULT_NAMES]
    saved_a = saved_profile(capsys, tmp_path, train, *names)
    saved_b = saved_profile(capsys, tmp_path, test, *names, "--skip-lines", "1", name="b.json")
    opts = [*names, "--skip-lines-b", "1"]
    files = compare_json(capsys, train, test, *opts)
    for a, b in ((saved_a, test), (train, saved_b), (saved_a, saved_b)):
        got = compare_json(capsys, a, b, *opts)
        assert {k: v for k, v in got.items() if k != "provenance"} == {
            k: v for k, v in files.items() if k != "provenance"
        }
        # the dataset digests are those of the files the saved profiles were made from
        for side in "ab":
            key = f"dataset_hash_{side}"
            assert got["provenance"][key] == files["provenance"][key]
    assert got["provenance"]["saved_profile_hash_a"].startswith("sha256:")
    # the text report names the files given, and the numbers are those of the files
    code, out, _ = run(capsys, "compare", saved_a, test, *opts, "--no-provenance")
    assert code == 0 and out.startswith(f"faircode compare: A = {saved_a}")
    assert out.split("\n", 1)[1] == run(capsys, "compare", train, test, *opts)[1].split("\n", 1)[1]


def test_saved_profile_compares_as_its_file_compas(tmp_path, capsys):
    two_years = data_file("compas-scores-two-years.csv")
    lines = two_years.read_bytes().splitlines(keepends=True)
    later = tmp_path / "later.csv"  # the first 1,500 people screened: another mix
    later.write_bytes(b"".join(lines[:1501]))
    saved = saved_profile(capsys, tmp_path, two_years)
    got = compare_json(capsys, saved, later, "--no-provenance")
    assert got == compare_json(capsys, two_years, later, "--no-provenance")
    assert len(got["dimensions"]) == 4 and got["a"]["n_rows"] == 7214
    assert got["b"]["n_rows"] == 1500 and any(d["psi"] > 0 for d in got["dimensions"])
    code, _, err = run(capsys, "compare", saved, later, "--fail-on-drift", "moderate")
    assert code == run(capsys, "compare", two_years, later, "--fail-on-drift", "moderate")[0]


def test_saved_profile_with_other_options_is_refused(tmp_path, capsys):
    a = labels_file(tmp_path, ["a", "b", "c"], "a.csv")
    b = labels_file(tmp_path, ["a", "b"], "b.csv")
    saved = saved_profile(capsys, tmp_path, a, "--min-share", "0.2", "--map", "race=race")
    code, out, err = run(capsys, "compare", saved, b)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "min_share 0.2 (this run: 0.05)" in err
    assert 'overrides {"race": "race"} (this run: {})' in err
    assert "--allow-different-options" in err
    # the same options: accepted
    same = compare_json(capsys, saved, b, "--min-share", "0.2", "--map", "race=race")
    assert same["dimensions"][0]["name"] == "race"
    code, out, err = run(capsys, "compare", saved, b, "--allow-different-options")
    assert code == 0 and out.startswith("faircode compare:")
    assert err.startswith("faircode: warning: ") and "min_share" in err
    # no provenance: its options cannot be checked
    bare = saved_profile(capsys, tmp_path, a, "--no-provenance", name="bare.json")
    code, _, err = run(capsys, "compare", bare, b)
    assert code == 2 and "--no-provenance" in err and err.count("\n") == 1


def test_saved_result_of_another_format_version_or_kind_is_refused(tmp_path, capsys):
    a = labels_file(tmp_path, ["a", "b"], "a.csv")
    saved = json.loads(saved_profile(capsys, tmp_path, a).read_text())
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**saved, "format_version": 1}))
    code, _, err = run(capsys, "compare", old, a)
    assert code == 2 and err.count("\n") == 1
    assert "format_version 1" in err and "profile the data again" in err
    drift = tmp_path / "drift.json"
    drift.write_text(json.dumps(compare_json(capsys, a, a)))
    code, _, err = run(capsys, "compare", drift, a)
    assert code == 2 and "not a profile" in err


# ---------------------------------------------------------------------------------------
# Notebook display (SPEC 6.2)


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parsed(markup: str) -> list[tuple[str, dict]]:
    p = Tags()
    p.feed(markup)
    p.close()
    return p.tags


def test_results_display_in_a_notebook_and_stay_dicts(tmp_path):
    from faircode.results import pre_html
    from faircode.safetext import md_escape

    r = faircode.profile(labels_file(tmp_path, HOSTILE))
    plain = json.loads(json.dumps(r))
    assert r == plain and plain == r and isinstance(r, dict)
    assert json.dumps(r) == json.dumps(plain)
    for copied in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r), copy.copy(r)):
        assert copied == r and type(copied) is type(r)
        assert copied._repr_html_() == r._repr_html_()
    text = repr(r)
    assert text.startswith("ProfileResult(score ") and "\n" not in text
    page = r._repr_html_()
    tags = parsed(page)
    assert tags and tags[0][0] in ("pre", "iframe")
    if tags[0][0] == "pre":  # no HTML renderer installed: the Markdown, escaped
        assert [t for t, _ in tags] == ["pre"] and page == pre_html(r.report("markdown"))
        assert "&amp;lt;script&amp;gt;" in page and md_escape("a|b") in page
    else:  # the HTML report, in a sandboxed frame
        assert len(tags) == 1 and tags[0][1]["sandbox"] == "allow-scripts"
        assert tags[0][1]["srcdoc"] == r.report("html")
    assert "<script>alert" not in page and "<img>" not in page
    c = faircode.compare(r, r)
    assert c == json.loads(json.dumps(c)) and repr(c).startswith("CompareResult(")
    assert "<script>alert" not in c._repr_html_()


def test_a_merged_summarys_profile_displays_itself_as_a_profile_does(tmp_path):
    """SPEC 6.2: `faircode.analyze.analyze` of a merged summary (parts of one table, as
    docs/python-api.md shows; Spark's profile) is the ProfileResult `profile` returns,
    still `==` the plain dict: it returned a plain dict, with no `.report()` and no
    notebook display."""
    from faircode.analyze import analyze
    from faircode.results import ProfileResult

    header = ["sex", "race", "y"]
    rows = [["MF"[i % 2], "ABC"[i % 3], str(i % 5 == 0)] for i in range(600)]
    whole_path = write_csv(tmp_path / "whole.csv", header, rows)
    first = write_csv(tmp_path / "first.csv", header, rows[:250])
    rest = write_csv(tmp_path / "rest.csv", header, rows[250:])
    whole = faircode.profile(whole_path, name="loans.csv")
    a, overrides, options = faircode.summarize(first, name="loans.csv")
    b, _, _ = faircode.summarize(rest, name="loans.csv")
    merged = analyze(a.merge(b), overrides, options)
    assert isinstance(merged, ProfileResult) and merged == whole and dict(merged) == whole
    assert json.loads(json.dumps(merged)) == merged
    assert repr(merged) == repr(whole) and "\n" not in repr(merged)
    for form in ("text", "markdown", "csv", "json"):
        assert merged.report(form) == whole.report(form), form
    assert merged._repr_html_() == whole._repr_html_()


def test_a_results_repr_counts_agree_with_their_nouns(tmp_path):
    """SPEC 6.2: `1 row, 1 column; 1 dimension: sex`, `1 flag` (it said `1 columns`)."""
    one = faircode.profile(write_csv(tmp_path / "one.csv", ["sex"], [["F"]]))
    assert repr(one).startswith(
        "ProfileResult(score not measured; 1 row, 1 column; 1 dimension: sex;"
    )
    plain = faircode.profile(write_csv(tmp_path / "plain.csv", ["x"], [["1"]]))
    assert len(plain["flags"]) == 1  # no demographic column
    assert repr(plain).endswith("1 row, 1 column; 0 dimensions: none; 1 flag)")


def test_a_comparisons_repr_says_a_side_without_a_score_is_not_measured(tmp_path):
    """SPEC 6.2: a side with no demographic column has no score; the repr says so as the
    text report does (`score not measured on one side`); it said `score None (None)`."""
    plain = faircode.profile(write_csv(tmp_path / "plain.csv", ["x"], [["1"], ["2"]] * 60))
    sexes = faircode.profile(write_csv(tmp_path / "sex.csv", ["sex"], [["M"], ["F"]] * 60))
    c = faircode.compare(plain, sexes)
    assert "score not measured on one side" in c.report("text")
    b = f"{sexes['overall_score']} ({sexes['grade']})"
    assert f"120 -> 120 rows; score not measured -> {b}; drift:" in repr(c)
    assert "None" not in repr(c) and "None" not in repr(faircode.compare(sexes, plain))


def test_a_comparison_in_a_notebook_names_its_sides(tmp_path, capsys):
    """SPEC 6.2: `faircode.compare` keeps what A and B are called, so its reports say
    which file is the baseline as `faircode compare A B` does (they said `A = a`)."""
    import pandas as pd

    train = write_csv(tmp_path / "train.csv", ["sex"], [["M"], ["F"]] * 150)
    prod = write_csv(tmp_path / "prod.csv", ["sex"], [["M"], ["M"], ["F"]] * 100)
    c = faircode.compare(str(train), prod)  # a str and a PathLike
    assert main(["compare", str(train), str(prod)]) == 0
    assert c.report("text") == capsys.readouterr().out
    assert f"- A = {md_escape(str(train))}, B = {md_escape(str(prod))}" in c.report("markdown")
    context = json.loads(
        dict(parsed(c._repr_html_()))["iframe"]["srcdoc"]
        .split('id="faircode-result">')[1]
        .split("</script>")[0]
    )["context"]
    assert context == {"nameA": str(train), "nameB": str(prod)}
    for copied in (pickle.loads(pickle.dumps(c)), copy.deepcopy(c)):
        assert copied.report("text") == c.report("text")
    named = faircode.compare(faircode.profile(str(train)), pd.read_csv(prod))
    assert named.report("text").startswith(f"faircode compare: A = {train}  ->  B = <dataframe B>")
    plain = faircode.compare(*(dict(faircode.profile(str(f))) for f in (train, prod)))
    assert plain.report("text").startswith("faircode compare: A = a  ->  B = b\n")


def test_evaluate_result_displays_its_html_report_escaped():
    pd = pytest.importorskip("pandas")
    from faircode.monitor import evaluate

    frame = pd.DataFrame(
        {"g": [HOSTILE[4], HOSTILE[5]] * 100, "p": [1, 0, 0, 1] * 50, "y": [1, 0] * 100}
    )
    report = evaluate(frame, pred="p", label="y", attrs=["g"], engine="pandas")
    assert report == json.loads(json.dumps(report))
    assert pickle.loads(pickle.dumps(report)) == report == copy.deepcopy(report)
    assert repr(report).startswith("EvaluateResult(")
    page = report._repr_html_()
    tags = parsed(page)
    assert [t for t, _ in tags] == ["iframe"] and tags[0][1]["sandbox"] == "allow-scripts"
    document = tags[0][1]["srcdoc"]
    assert document == report.report("html") and document.startswith("<!DOCTYPE html>")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in document
    assert "<script>" not in document and '"><img>' not in document
    assert "<script" not in page and "<img" not in page


def test_a_result_too_large_to_embed_shows_its_markdown_head_in_a_notebook(tmp_path):
    """SPEC 6.2: a 20,000-group zip code column made a 2 MB HTML report, all of it in
    the notebook cell (a 66,000-group one, 12 MB), though the report draws 1,000 groups;
    past NOTEBOOK_HTML_MAX the cell is the Markdown report, with a line saying why."""
    rows = [[f"{10000 + i}", "MF"[i % 2]] for i in range(20_000)] * 2
    r = faircode.profile(write_csv(tmp_path / "zips.csv", ["zip_code", "sex"], rows))
    assert len(r["dimensions"][0]["groups"]) == 20_000
    cell = r._repr_html_()
    assert [t for t, _ in parsed(cell)] == ["p", "pre"] and len(cell) < 20_000
    document = r.report("html")
    assert f"The HTML report is {len(document):,} characters, more than a notebook" in cell
    from faircode.results import NOTEBOOK_HTML_MAX, pre_html

    assert len(document) > NOTEBOOK_HTML_MAX
    assert cell == pre_html(r.report("markdown"), len(document))


def test_a_long_markdown_report_in_a_notebook_is_cut_at_a_line_with_a_count(monkeypatch):
    """SPEC 6.2: in place of a long HTML report the cell shows the Markdown report's
    whole lines up to NOTEBOOK_TEXT_MAX characters and how many lines it leaves out (an
    evaluate of 50,000 slices: an 11 MB Markdown report, a 35 MB cell)."""
    import html as htmllib

    import faircode.results

    pd = pytest.importorskip("pandas")
    from faircode.monitor import evaluate

    frame = pd.DataFrame(
        {"g": [f"s{i % 300}" for i in range(3000)], "p": [1, 0, 0] * 1000, "y": [1, 0] * 1500}
    )
    report = evaluate(frame, pred="p", label="y", attrs=["g"], engine="pandas")
    markdown = report.report("markdown")
    monkeypatch.setattr(faircode.results, "NOTEBOOK_HTML_MAX", 10_000, raising=False)
    monkeypatch.setattr(faircode.results, "NOTEBOOK_TEXT_MAX", 5_000, raising=False)
    tags = parsed(report._repr_html_())
    assert [t for t, _ in tags] == ["p", "pre"]
    text = htmllib.unescape(report._repr_html_().split('<pre class="faircode">')[1][:-6])
    kept, last = text[:-1].rsplit("\n", 1)
    assert markdown.startswith(kept + "\n") and len(kept) < 5_000
    assert last == (
        f"... {markdown[len(kept) + 1 :].count(chr(10)):,} more lines not shown: "
        'result.report("markdown") has all'
    )


def test_a_notebooks_markdown_head_keeps_whole_lines_and_counts_the_rest():
    """SPEC 6.2: the cut is after the last whole line within the limit, a limit that
    falls on a line end adds no blank line, and a first line longer than the limit is
    cut there."""
    from faircode.results import head_text

    more = ' not shown: result.report("markdown") has all\n'
    assert head_text("ab\ncd\n", 10) == "ab\ncd\n"
    assert head_text("ab\ncd\nef\n", 3) == "ab\n... 2 more lines" + more
    assert head_text("ab\ncd\nef", 5) == "ab\n... 2 more lines" + more
    assert head_text("abcdef\n", 3) == "abc\n... 1 more line" + more


def test_repr_html_draws_the_report_in_a_browser_and_runs_no_label(tmp_path):
    """The notebook output in Chromium: the report is drawn inside its sandboxed frame
    (its own scripts run there), a hostile label is text, and no label opens a dialog."""
    chromium = os.environ.get("FAIRCODE_CHROMIUM", "/usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(chromium):
        pytest.skip(f"Chromium is not installed at {chromium}")
    labels = ["<script>alert(1)</script>", '"><img src=x onerror=alert(2)>', "a|b"]
    r = faircode.profile(labels_file(tmp_path, labels))
    cell = r._repr_html_()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.set_content(f"<!DOCTYPE html><html><body>{cell}</body></html>")
            frames = page.frames
            assert len(frames) == (2 if cell.startswith("<iframe") else 1)
            body = frames[-1].locator("body")
            body.get_by_text("<script>alert(1)</script>").first.wait_for(timeout=20000)
            text = body.inner_text()
            assert '"><img src=x onerror=alert(2)>' in text and "a|b" in text
            page.wait_for_timeout(300)
            assert dialogs == [] and page.locator("img").count() == 0
            assert frames[-1].locator("img").count() == 0
        finally:
            browser.close()


def test_the_reference_table_is_in_the_terminal_and_markdown_alike(capsys):
    """Issue 27 item 3: `--reference` showed expected vs actual only in JSON and HTML;
    the terminal and Markdown now show the same rows, the same figures."""
    from faircode.render import reference_rows

    code, text, _ = run(capsys, "profile", "--sample", "--reference", "us-2024")
    assert code == 0
    code, md, _ = run(capsys, "profile", "--sample", "--reference", "us-2024", "--markdown", "-")
    code, js, _ = run(capsys, "profile", "--sample", "--reference", "us-2024", "--json")
    r = json.loads(js)
    shown = 0
    for d in r["dimensions"]:
        for group, expected, actual, change in reference_rows(d):
            assert f"{expected:>8} {actual:>8}  {change}" in text
            assert f"| {group} | {expected} | {actual} | {change} |" in md
            shown += 1
    assert shown == 7  # sex: 2 groups, age: 5 bands
    assert "| Female | 50.51% | 19.34% | -31.17 pts |" in md  # 1395 of 7214 rows


def test_reports_say_which_columns_the_grade_rests_on():
    """Issue 27: a table of penguins graded on one `sex` column says so; only dimensions
    with a score are named, at most 8, and "1 dimension" is singular."""
    from faircode.exports import render_profile_markdown
    from faircode.render import render, size_line

    rows = ["species,island,body_mass_g,sex"]
    rows += [f"{sp},Dream,{4000 + i},{'MALE' if i % 2 else 'FEMALE'}"
             for i, sp in enumerate(["Adelie", "Gentoo", "Chinstrap"] * 40)]  # fmt: skip
    result = faircode.profile(io.BytesIO(("\n".join(rows) + "\n").encode()))
    want = "120 rows, 4 columns, 1 dimension profiled; the grade rests on sex"
    assert size_line(result) == want
    assert want in render(result, "penguins.csv")
    assert want in render_profile_markdown(result, name="penguins.csv")
    # ten scored dimensions: eight names, then the count of the rest
    many = copy.deepcopy(result)
    many["dimensions"] = [dict(result["dimensions"][0], name=f"d{i}") for i in range(10)]
    many["dimensions"][3]["dimension_score"] = None  # not scored: not named
    assert size_line(many).endswith(
        "10 dimensions profiled; the grade rests on d0, d1, d2, d4, d5, d6, d7, d8 and 1 more"
    )
    # no score, no clause
    assert "rests on" not in size_line(dict(result, overall_score=None))
    # one row, one column: singular nouns, as "1 dimension" (numerics.rows_text)
    one = faircode.profile(io.BytesIO(b"sex\nF\n"))
    assert size_line(one) == "1 row, 1 column, 1 dimension profiled"


def test_long_unscored_lists_end_with_a_count(tmp_path):
    """Issue 27: 297 unscored columns printed 297 lines; text and Markdown list
    UNSCORED_SHOWN and end with '... N more columns (--json lists all)'."""
    from faircode.exports import render_profile_markdown
    from faircode.render import UNSCORED_SHOWN, render

    head = ["sex"] + [f"c{i}" for i in range(297)]
    rows = [",".join(head)]
    rng = random.Random(5)
    rows += [
        ",".join(["MF"[k % 2]] + [str(rng.randrange(3)) for _ in range(297)]) for k in range(200)
    ]
    result = faircode.profile(io.BytesIO(("\n".join(rows) + "\n").encode()))
    assert len(result["unscored"]) == 297
    more = f"... {297 - UNSCORED_SHOWN} more columns (--json lists all)"
    for text in (render(result, "w.csv"), render_profile_markdown(result, name="w.csv")):
        assert text.count(" 3 labels: ") + text.count("| 3 | ") == UNSCORED_SHOWN
        assert more in text
    assert len(render(result, "w.csv").splitlines()) < 60


def test_a_viewer_that_blocks_scripts_is_pointed_to_the_markdown(tmp_path) -> None:
    """The HTML report is drawn by its inline script; a mail client or artefact previewer
    that blocks scripts shows only the page's static text, which must say so and name
    --markdown (it said "needs JavaScript to draw its charts", though every number is
    drawn by the script). The website's download builds the same page: same text."""
    from faircode.htmlreport import report_html

    page = report_html("profile", {"n_rows": 1}, {"name": "x.csv"})
    static = page[page.index('<main id="report">') : page.index("</main>")]
    assert "did not run" in static and "--markdown" in static
    app = (Path(__file__).resolve().parents[2] / "site" / "app.js").read_text(encoding="utf-8")
    assert static in app


def test_every_format_says_what_would_settle_an_insufficient_disparity_alike(capsys):
    """SPEC 12.11: the terminal and the Markdown disparity tables say what would settle an
    insufficient disparity as the gate and the Markdown's list do: the count, its unit and
    the slices that need it (they said `~913 per slice` of 913 labelled positives in
    'Female' alone)."""
    pytest.importorskip("pandas")
    sample = str(Path(faircode.__file__).parent / "data" / "compas-scores-two-years.csv")
    args = ["fairness", "evaluate", sample, "--score", "decile_score"]
    args += ["--decision-threshold", "5", "--label", "two_year_recid", "--attr", "race"]
    args += ["--attr", "sex", "--threshold", "0.1", "--engine", "pandas"]
    r = json.loads(run(capsys, *args, "--json")[1])
    insufficient = [d for g in r["groups"] for d in g["disparities"] if d["rows_needed"]]
    assert len(insufficient) == 2  # race's accuracy range, sex's equalized odds
    text, md = run(capsys, *args)[1], run(capsys, *args, "--markdown", "-")[1]
    for d in insufficient:
        need = d["rows_needed"]
        now = [f"{c:,}" for c in need["count_now"]]
        for report in (text, md.replace("\\", "")):
            lines = [x for x in report.splitlines() if "INSUFFICIENT" in x and now[0] in x]
            assert len(lines) == 1, (d["metric"], report)
            assert f"about {need['per_slice']:,} " in lines[0]
            assert all(f"'{s}'" in lines[0] for s in need["slices"])
            assert "per slice would settle" not in lines[0]


def test_csv_marks_the_groups_not_told_apart_from_the_lowest_compas(tmp_path, capsys):
    """SPEC 6.1, 17.4, 21.3: `profile --csv` carries each gap's `lowest_alike` as the
    other formats name it: true on the rows of the groups (cells) it lists, false on the
    others. COMPAS: 'Other' has the lowest two-year recidivism, 'Caucasian' and 'Hispanic'
    are not told apart from it."""
    compas = data_file("compas-scores-two-years.csv")
    args = ["--label", "two_year_recid", "--outcome", "priors_count", "--cross", "race,sex"]
    assert main(["profile", str(compas), *args, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert main(["profile", str(compas), *args, "--csv", str(tmp_path / "r.csv")]) == 0
    with open(tmp_path / "r.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))

    def alike(section: str, block: dict, dim: str) -> tuple[list, list]:
        """(the rows marked alike, the gap's list) of one dimension or intersection."""
        got = [
            [row["label"], row["label_b"]] if row["label_b"] else row["label"]
            for row in rows
            if (row["section"], row["dimension"]) == (section, dim)
            and row["lowest_alike"] == "true"
        ]
        return got, (block.get("gap") or {}).get("lowest_alike") or []

    race = next(d for d in r["label_rates"]["dimensions"] if d["name"] == "race")
    assert alike("label_rate", race, "race") == (["Caucasian", "Hispanic"],) * 2
    blocks = [("label_rate", r["label_rates"]), ("outcome_group", r["outcomes"][0])]
    named = 0
    for section, block in blocks:
        for d in block["dimensions"]:
            got, want = alike(section, d, d["name"])
            assert got == want, (section, d["name"])
            named += len(want)
        cell = section.replace("group", "cell").replace("label_rate", "label_rate_cell")
        got, want = alike(cell, block["intersection"], "race")
        assert got == want, cell
        named += len(want)
    assert named > 2  # the outcome's and the cells' lists are not all empty
    assert {row["lowest_alike"] for row in rows if row["section"] == "group"} == {""}
