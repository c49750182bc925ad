"""Audit packs (SPEC 20): `faircode audit ll144`.

The golden tests build a hand-made applicant table whose every number below was worked
out by hand from the cell counts (the comments show the arithmetic), and compare the
pack's JSON with it exactly.
"""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from util import ADULT_NAMES, ROOT, data_file

import faircode
from faircode.audit.ll144 import median
from faircode.renderers import render_as

COMPAS = data_file("compas-scores-two-years.csv")
SCHEMA_LL144 = json.loads((ROOT / "faircode" / "schemas" / "audit-ll144.schema.json").read_text())
DATE = "2025-06-30"

# ---------------------------------------------------------------------------------------
# The hand-made applicant table
#
# (sex, race, applicants, selected, unselected rows scored 0.6 instead of 0.4). A
# selected applicant scores 0.9, an unselected one 0.4 (or 0.6 where said).
CELLS = [
    ("M", "White", 3500, 1750, 0),
    ("M", "Black", 1301, 455, 0),
    ("M", "Hispanic", 600, 300, 0),
    # no M x Asian applicant: the intersection lists the cell with n = 0
    ("M", "Native", 100, 20, 0),
    ("F", "White", 2500, 1000, 0),
    ("F", "Black", 1300, 390, 100),
    ("F", "Hispanic", 400, 180, 0),
    ("F", "Asian", 200, 0, 0),  # exactly 2.0% of 10,000; none selected
    ("F", "Native", 99, 33, 0),  # F + M Native: 199 = 1.99% of 10,000
]
# Unknown category: 30 with no sex (race White, all selected), 20 with no race (sex M,
# none selected), 5 with neither (2 selected); 7 rows with no decision and no score.
UNKNOWN = [("", "White", 30, 30), ("M", "NA", 20, 0), ("?", "", 5, 2)]
NO_OUTCOME = 7


def golden_csv() -> bytes:
    lines = ["id,gender,race,hired,score"]
    i = 0

    def add(sex, race, hired, score):
        nonlocal i
        i += 1
        lines.append(f"{i},{sex},{race},{hired},{score}")

    for sex, race, n, sel, mid in CELLS:
        for k in range(n):
            if k < sel:
                add(sex, race, "yes" if k % 2 else "1", "0.9")
            else:
                add(sex, race, "0" if k % 3 else "no", "0.6" if k - sel < mid else "0.4")
    for sex, race, n, sel in UNKNOWN:
        for k in range(n):
            add(sex, race, 1 if k < sel else 0, "0.9" if k < sel else "0.4")
    for _ in range(NO_OUTCOME):
        add("F", "White", "", "")
    return ("\n".join(lines) + "\n").encode()


def row(category, n, positive, rate, ratio, excluded=False, highest=False):
    return {
        "category": category,
        "n": n,
        "positive": positive,
        "rate": rate,
        "impact_ratio": ratio,
        "excluded": excluded,
        "highest": highest,
    }


def cell(sex, race, n, positive, rate, ratio, excluded=False, highest=False):
    return {"sex": sex, "race": race, **row("", n, positive, rate, ratio, excluded, highest)}


def without_category(rows):
    return [{k: v for k, v in r.items() if k != "category"} for r in rows]


# Sex: M 3500 + 1301 + 600 + 100 = 5501 applicants, 1750 + 455 + 300 + 20 = 2525
# selected; F 2500 + 1300 + 400 + 200 + 99 = 4499, 1000 + 390 + 180 + 0 + 33 = 1603.
SEX_SELECTION = [
    row("M", 5501, 2525, 0.4590, 1.0, highest=True),  # 2525 / 5501 = 0.459007
    # 1603 / 4499 = 0.356301; / 0.459007 = (1603 * 5501) / (4499 * 2525) = 0.776243
    row("F", 4499, 1603, 0.3563, 0.7762),
]
# Race, by applicants: White 6000, Black 2601, Hispanic 1000, Asian 200, Native 199.
# The highest rate is Hispanic's, 480 / 1000 = 0.48.
RACE_SELECTION = [
    row("White", 6000, 2750, 0.4583, 0.9549),  # 2750/6000 = 0.458333; /0.48 = 0.954861
    row("Black", 2601, 845, 0.3249, 0.6768),  # 845/2601 = 0.324875; /0.48 = 0.676823
    row("Hispanic", 1000, 480, 0.48, 1.0, highest=True),
    row("Asian", 200, 0, 0.0, 0.0),
    row("Native", 199, 53, 0.2663, 0.5549),  # 53/199 = 0.266332; /0.48 = 0.554858
]
# Intersections, sex order x race order; M x White and M x Hispanic tie at 0.5: the
# first in order (M x White) is the highest.
GRID_SELECTION = [
    cell("M", "White", 3500, 1750, 0.5, 1.0, highest=True),
    cell("M", "Black", 1301, 455, 0.3497, 0.6995),  # 455/1301 = 0.349731; /0.5 = 0.699462
    cell("M", "Hispanic", 600, 300, 0.5, 1.0),
    cell("M", "Asian", 0, 0, None, None),
    cell("M", "Native", 100, 20, 0.2, 0.4),
    cell("F", "White", 2500, 1000, 0.4, 0.8),  # exactly 0.8
    cell("F", "Black", 1300, 390, 0.3, 0.6),
    cell("F", "Hispanic", 400, 180, 0.45, 0.9),
    cell("F", "Asian", 200, 0, 0.0, 0.0),
    cell("F", "Native", 99, 33, 0.3333, 0.6667),  # 33/99 = 1/3; /0.5 = 2/3
]
INDIVIDUALS = {
    "rows": 10062,  # 10,000 + 55 unknown + 7 without an outcome
    "outcome_missing": 7,
    "assessed": 10055,
    "unknown_category": 55,
    "unknown_sex_only": 30,
    "unknown_race_only": 20,
    "unknown_both": 5,
    "analysed": 10000,
}


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ll144") / "applicants.csv"
    path.write_bytes(golden_csv())
    return path


def test_golden_selection_rates_and_impact_ratios(golden):
    r = faircode.audit_ll144(golden, selected="hired", audit_date=DATE)
    assert r["method"] == "selection"
    assert r["columns"] == {"sex": "gender", "race": "race"}
    assert r["individuals"] == INDIVIDUALS
    assert r["sex"] == SEX_SELECTION
    assert r["race"] == RACE_SELECTION
    assert r["intersection"] == without_category(GRID_SELECTION)
    # |sex| x |race| rows, the empty one listed with n = 0
    assert len(r["intersection"]) == 2 * 5
    assert r["exclusion"]["applied"] is False
    assert r["exclusion"]["excluded"] == {"sex": [], "race": [], "intersection": []}
    assert any("7 rows with no decision" in n for n in r["notes"])


def test_golden_two_percent_exclusion(golden):
    r = faircode.audit_ll144(
        golden,
        selected="hired",
        exclude_small=True,
        exclusion_note="categories this small give ratios that mean little",
        audit_date=DATE,
    )
    # Native: 199 * 50 = 9,950 < 10,000, excluded; Asian: 200 * 50 = 10,000, kept
    race = [dict(r) for r in RACE_SELECTION]
    race[4].update(impact_ratio=None, excluded=True)
    assert r["race"] == race
    assert r["sex"] == SEX_SELECTION  # 4,499 and 5,501 are far above 2%
    grid = without_category(GRID_SELECTION)
    for i in (3, 4, 9):  # M x Asian (0), M x Native (100), F x Native (99) are under 2%
        grid[i].update(impact_ratio=None, excluded=True)
    assert r["intersection"] == grid
    assert r["exclusion"] == {
        "applied": True,
        "rule": r["exclusion"]["rule"],
        "note": "categories this small give ratios that mean little",
        "excluded": {
            "sex": [],
            "race": ["Native"],
            "intersection": [["M", "Asian"], ["M", "Native"], ["F", "Native"]],
        },
    }
    assert "count * 50 < n" in r["exclusion"]["rule"]
    md = render_as("audit ll144", "markdown", r)
    assert "excluded (under 2%)" in md
    assert "categories this small give ratios that mean little" in md


def test_golden_scoring_rates(golden):
    r = faircode.audit_ll144(golden, score="score", audit_date=DATE)
    # 10,055 scores: 5,795 at 0.4 (5,872 unselected of the table - 100 at 0.6 + 23
    # unknown), 100 at 0.6, 4,160 at 0.9; the 5,028th is 0.4: the median. Above it
    # (strictly): the selected and the 100 F x Black at 0.6.
    assert r["method"] == "scoring"
    assert r["outcome"]["median"] == 0.4
    assert r["outcome"]["above"] == "strictly greater than the median"
    assert r["individuals"] == INDIVIDUALS
    sex = [dict(x) for x in SEX_SELECTION]
    # F: 1603 + 100 = 1703 of 4499 = 0.378529; / 0.459007 = 0.824668
    sex[1].update(positive=1703, rate=0.3785, impact_ratio=0.8247)
    assert r["sex"] == sex
    race = [dict(x) for x in RACE_SELECTION]
    race[1].update(positive=945, rate=0.3633, impact_ratio=0.7569)  # 945/2601; /0.48
    assert r["race"] == race
    grid = without_category(GRID_SELECTION)
    grid[6].update(positive=490, rate=0.3769, impact_ratio=0.7538)  # 490/1300; /0.5
    assert r["intersection"] == grid
    md = render_as("audit ll144", "markdown", r)
    assert "Scoring rate" in md and "Selection rate" not in md


def katz(c1, n1, c2, n2):
    """The Katz log 95% interval, written out independently (math.log, math.exp)."""
    r = (c1 / n1) / (c2 / n2)
    se = math.sqrt(1 / c1 - 1 / n1 + 1 / c2 - 1 / n2)
    return r * math.exp(-1.959963984540054 * se), r * math.exp(1.959963984540054 * se)


def test_golden_faircode_additions(golden):
    r = faircode.audit_ll144(golden, selected="hired", audit_date=DATE)
    add = r["faircode_additions"]
    # the family: every ordered pair of a table's compared categories (any might have
    # come out highest): sex 2 * 1, race 5 * 4, intersection 9 * 8 (M x Asian is empty)
    assert add["evidence"]["tests"] == 2 + 20 + 72
    comps = {(c["table"], json.dumps(c["category"])): c for c in add["comparisons"]}
    assert len(comps) == 1 + 4 + 8  # every compared category but the highest
    f = comps[("sex", '"F"')]
    lo, hi = katz(1603, 4499, 2525, 5501)
    assert f["reference"] == "M"
    assert abs(f["ci_low"] - lo) < 1e-4 and abs(f["ci_high"] - hi) < 1e-4
    # 0.7762, but its interval reaches above 0.8 (to 0.815): possible, not confirmed
    assert hi > 0.8 and f["verdict"] == "possible"
    black = comps[("race", '"Black"')]
    lo, hi = katz(845, 2601, 480, 1000)
    assert abs(black["ci_low"] - lo) < 1e-4 and abs(black["ci_high"] - hi) < 1e-4
    assert hi < 0.8 and black["verdict"] == "confirmed"  # 0.6768, the interval below 0.8
    # a category with none selected: Katz's error is undefined; 0 is the lower end and
    # the upper end is Katz's of the counts with half an applicant added to each cell
    asian = comps[("race", '"Asian"')]
    _, hi = katz(0.5, 201, 480.5, 1001)
    assert asian["impact_ratio"] == 0.0 and asian["ci_low"] == 0.0
    assert abs(asian["ci_high"] - hi) < 1e-4 and asian["verdict"] == "confirmed"
    # exactly at 0.8 is not below it: within if the whole interval is, else possible
    fw = comps[("intersection", '["F", "White"]')]
    assert fw["impact_ratio"] == 0.8 and fw["p"] == 1.0 and fw["verdict"] == "possible"
    tie = comps[("intersection", '["M", "Hispanic"]')]
    assert tie["reference"] == ["M", "White"] and tie["impact_ratio"] == 1.0
    lo, _ = katz(300, 600, 1750, 3500)
    assert lo > 0.8 and tie["verdict"] == "within"  # the whole interval is above 0.8
    # Holm: the adjusted p of the smallest raw p is m times it (capped at 1)
    assert all(0 <= c["p"] <= 1 for c in comps.values())
    assert add["evidence"]["confirmed"] == sum(c["verdict"] == "confirmed" for c in comps.values())


def test_tiny_holm_p_values_keep_their_digits(golden):
    # SPEC 20.1: p as section 16 rounds it (3 significant digits below 0.0001), not 0.0000
    r = faircode.audit_ll144(golden, selected="hired", audit_date=DATE)
    text = render_as("audit ll144", "text", r)
    tiny = [c for c in r["faircode_additions"]["comparisons"] if c["p"] < 0.0001]
    assert tiny
    for c in tiny:
        assert c["p"] > 0 and c["p"] == float(f"{c['p']:.3g}")
        assert f"  {c['p']:.3g}  confirmed below" in text
    assert "0.0000  confirmed" not in text


def test_median_rules():
    from collections import Counter
    from fractions import Fraction as F

    assert median(Counter({F(1): 1, F(2): 1, F(3): 1, F(4): 1})) == F(5, 2)
    assert median(Counter({F(1): 1, F(2): 1, F(3): 1})) == 2
    assert median(Counter({F("0.1"): 2, F("0.3"): 2})) == F("0.2")  # exact, not 0.2000001


def test_median_includes_unknown_category_and_is_strict():
    # 4 known (scores 1, 2, 3, 4) and 2 of unknown sex scoring 10: the median of all six
    # is (3 + 4) / 2 = 3.5, so only the 4 of the known is above it.
    data = "sex,race,s\nF,A,1\nM,A,2\nF,A,3\nM,A,4\n,A,10\n,A,10\n"
    r = faircode.audit_ll144(io.BytesIO(data.encode()), score="s", audit_date=DATE)
    assert r["outcome"]["median"] == 3.5
    assert [(x["category"], x["positive"]) for x in r["sex"]] == [("F", 0), ("M", 1)]
    assert r["individuals"]["unknown_category"] == 2
    # ties at the median are not above it
    data = "sex,race,s\nF,A,5\nM,A,5\nF,A,5\nM,A,9\n"
    r = faircode.audit_ll144(io.BytesIO(data.encode()), score="s", audit_date=DATE)
    assert r["outcome"]["median"] == 5
    assert [x["positive"] for x in r["sex"]] == [0, 1]


def test_selected_values_recode_and_na():
    data = "gender,ethnic_group,stage\nF,A,offer\nM,A,reject\nF,B,interview\nM,B,Unknown\n"
    src = io.BytesIO(data.encode())
    r = faircode.audit_ll144(
        src, selected="stage=offer,interview", audit_date=DATE, opts={"na": [["stage", "Unknown"]]}
    )
    assert r["columns"] == {"sex": "gender", "race": "ethnic_group"}
    assert [(x["category"], x["n"], x["positive"]) for x in r["sex"]] == [("F", 2, 2), ("M", 1, 0)]
    assert r["individuals"]["outcome_missing"] == 1
    r2 = faircode.audit_ll144(
        io.BytesIO(data.encode()),
        selected="stage",
        audit_date=DATE,
        opts={"recode": [["stage", "offer", "1"], ["stage", "interview", "1"],
                         ["stage", "reject", "0"], ["stage", "Unknown", ""]]},
    )  # fmt: skip
    assert r2["sex"] == r["sex"] and r2["intersection"] == r["intersection"]


def test_a_label_saying_unknown_is_the_unknown_category_on_diabetic():
    """SPEC 20.1 One base: `Unknown/Invalid` (1.2's words for a value not known) is
    counted in the unknown category, never a category of the tables nor the highest."""
    pd = pytest.importorskip("pandas")
    path = data_file("diabetic_data.csv")
    r = faircode.audit_ll144(str(path), selected="readmitted=NO", audit_date=DATE)
    df = pd.read_csv(path, usecols=["gender", "race", "readmitted"], dtype=str)
    sex_unknown = df["gender"] == "Unknown/Invalid"
    race_unknown = df["race"] == "?"  # a missing token (SPEC 0.4)
    known = df[~sex_unknown & ~race_unknown]
    rates = (known["readmitted"] == "NO").groupby(known["gender"]).mean()
    ratios = (rates / rates.max()).round(4)
    assert sorted(x["category"] for x in r["sex"]) == sorted(ratios.index)
    assert "Unknown/Invalid" not in ratios.index
    for x in r["sex"]:
        assert x["impact_ratio"] == pytest.approx(ratios[x["category"]], abs=1e-12)
        assert x["n"] == (known["gender"] == x["category"]).sum()
    assert {x["category"]: x["impact_ratio"] for x in r["sex"]} == {"Female": 0.9664, "Male": 1.0}
    assert all("Unknown/Invalid" != x["sex"] for x in r["intersection"])
    ind = r["individuals"]
    assert ind["unknown_sex_only"] == (sex_unknown & ~race_unknown).sum()
    assert ind["unknown_both"] == (sex_unknown & race_unknown).sum()
    assert ind["unknown_race_only"] == (~sex_unknown & race_unknown).sum()
    assert ind["analysed"] == len(known)
    said = [n for n in r["notes"] if "'Unknown/Invalid'" in n]
    assert len(said) == 1 and f"({int(sex_unknown.sum())} individuals)" in said[0]


def test_unknown_words_are_the_unknown_category_and_other_stays_a_category():
    # 'Prefer not to say' and 'U' say unknown (SPEC 1.2's UNKNOWN_VOCABULARY); 'Other' and
    # 'X' are categories. The one unknown-sex person, selected, is never the highest.
    data = (
        "sex,race,hired\nF,A,1\nF,A,0\nM,A,1\nM,B,0\nX,B,1\nX,A,0\n"
        "Prefer not to say,A,1\nF,U,1\nF,Other,1\nM,Other,0\n"
    )
    r = faircode.audit_ll144(io.BytesIO(data.encode()), selected="hired", audit_date=DATE)
    assert [x["category"] for x in r["sex"]] == ["F", "M", "X"]
    assert [x["category"] for x in r["race"]] == ["A", "B", "Other"]
    ind = r["individuals"]
    assert (ind["unknown_sex_only"], ind["unknown_race_only"], ind["analysed"]) == (1, 1, 8)
    assert any("'Prefer not to say'" in n and "(1 individual)" in n for n in r["notes"])
    assert any("race/ethnicity 'U' in 'race'" in n for n in r["notes"])


# ---------------------------------------------------------------------------------------
# The command line: bad input is one line and exit 2


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "faircode", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("data", "args", "says"),
    [
        ("a,race,hired\nx,A,1\n", ["--selected", "hired"], "no sex column found"),
        # the API's one check of the additions' numbers, word for word (SPEC 20.1)
        (
            "sex,race,hired\nF,A,1\n",
            ["--selected", "hired", "--alpha", "1"],
            "error: --alpha: 1 is out of range (0..1, both excluded)",
        ),
        (
            "sex,race,hired\nF,A,1\n",
            ["--selected", "hired", "--ratio-threshold", "0"],
            "error: --ratio-threshold: 0 is out of range (0..1, above 0)",
        ),
        ("sex,b,hired\nF,x,1\n", ["--selected", "hired"], "--map COLUMN=race"),
        ("sex,race,hired\nF,A,maybe\n", ["--selected", "hired"], "is not a pass / fail value"),
        ("sex,race,hired\nF,A,1\n", [], "give one of --selected"),
        (
            "sex,race,hired\nF,A,yes\nM,B,no\n",
            ["--selected", "hired=YES,no"],
            "--selected hired=YES: not a value of 'hired' (values: 'no', 'yes')",
        ),
        ("sex,race,hired,s\nF,A,1,2\n", ["--selected", "hired", "--score", "s"], "give one of"),
        ("sex,race,hired\nF,A,1\n", ["--selected", "nope"], "--selected: 'nope' is not a col"),
        ("sex,race,s\nF,A,high\n", ["--score", "s"], "'high' is not a number"),
        ("sex,race,hired\nF,A,1\n", ["--selected", "hired", "--exclude-small"], "--exclusion-"),
        ("sex,race,hired\nF,A,1\n", ["--selected", "hired", "--audit-date", "2025-13-01"], "not a"),
        (
            "sex,race,hired,t\nF,A,1,soon\n",
            ["--selected", "hired", "--date-column", "t"],
            "'soon' is",
        ),
        ("sex,race,hired\n,A,1\n", ["--selected", "hired"], "no individual"),
        # SPEC 20.1: an outcome (or date column) the pack would take as sex or race
        (
            "sex,race,charge\nMale,A,F\nFemale,B,M\nMale,B,F\n",
            ["--selected", "sex=Male"],
            "--selected: 'sex' is the sex column of",
        ),
        (
            "sex,race,hired\nMale,A,1\nFemale,B,0\n",
            ["--selected", "race=A"],
            "--selected: 'race' is the race/ethnicity column of",
        ),
        (
            "sex,race,s\nMale,A,1\nFemale,B,0\n",
            ["--score", "s", "--date-column", "race"],
            "--date-column: 'race' is the race/ethnicity column of",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, data, args, says):
    path = tmp_path / "t.csv"
    path.write_text(data)
    got = run("audit", "ll144", path, *args)
    assert got.returncode == 2, got.stderr
    assert got.stdout == ""
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("faircode: error: "), got.stderr
    assert says in lines[0]
    assert "Traceback" not in got.stderr


PACKS = [["datasheet"], ["art10"], ["ll144", "--selected", "two_year_recid"]]


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p[0])
def test_a_pattern_is_one_dataset_and_a_bad_path_is_the_profiles_line(tmp_path, pack):
    # SPEC 20 and 0.8: a pattern's files are one dataset, as `faircode profile` reads
    # them (the pack of two parts of COMPAS is the pack of COMPAS, hashed as the profile
    # hashes the pattern); a path that cannot be read is the profile's one line
    lines = COMPAS.read_bytes().splitlines(keepends=True)
    (tmp_path / "p1.csv").write_bytes(b"".join(lines[:3001]))
    (tmp_path / "p2.csv").write_bytes(lines[0] + b"".join(lines[3001:]))
    (tmp_path / "compas.csv").write_bytes(COMPAS.read_bytes())
    packs = []
    for path in ("p*.csv", "compas.csv"):
        got = run("audit", *pack, path, "--audit-date", DATE, "--json", cwd=tmp_path)
        assert got.returncode == 0, got.stderr
        packs.append(json.loads(got.stdout))
    parts, whole = packs
    profiled = run("profile", "p*.csv", "--json", cwd=tmp_path)
    want = json.loads(profiled.stdout)["provenance"]["dataset_hash"]
    assert parts["provenance"].pop("dataset_hash") == want
    assert whole["provenance"].pop("dataset_hash") != want
    assert parts.pop("summary")["file"] == "p*.csv"
    whole.pop("summary")
    parts.pop("title"), whole.pop("title")  # the datasheet's names its file
    assert parts == whole
    for path, says in (
        ("nope.csv", "nope.csv: no such file"),
        ("zz*.csv", "zz*.csv: no file matches this pattern"),
        (".", ".: is a directory, not a file"),
    ):
        got = run("audit", *pack, path, cwd=tmp_path)
        assert (got.returncode, got.stderr) == (2, f"faircode: error: {says}\n")


def test_a_list_of_paths_is_named_as_the_profile_names_many_files(tmp_path):
    # SPEC 0.8: a list of paths is one dataset named `FIRST (+N more)`, in the packs'
    # results as in the profile's summary, never `<stream>`
    lines = COMPAS.read_bytes().splitlines(keepends=True)
    parts = [tmp_path / "p1.csv", tmp_path / "p2.csv"]
    parts[0].write_bytes(b"".join(lines[:3001]))
    parts[1].write_bytes(lines[0] + b"".join(lines[3001:]))
    want = faircode.summarize(parts)[0].name
    assert want == f"{parts[0]} (+1 more)"
    got = {
        "datasheet": faircode.audit_datasheet(parts, audit_date=DATE),
        "art10": faircode.audit_art10(parts, audit_date=DATE),
        "ll144": faircode.audit_ll144(parts, selected="two_year_recid", audit_date=DATE),
    }
    assert {k: r["summary"]["file"] for k, r in got.items()} == dict.fromkeys(got, want)
    assert any(
        line.split() == ["Data", "file", *want.split()]
        for line in got["ll144"].report("text").splitlines()
    )
    assert faircode.profile(parts)._name == want
    assert faircode.profile(parts[:1])._name == faircode.summarize(parts[:1])[0].name


def test_a_column_found_by_its_values_only_is_named_in_a_note(tmp_path):
    # SPEC 20.1: `gndr` is no keyword; its F / M make it sex by its values (1.2)
    data = "gndr,race,hired\nF,A,1\nM,B,0\nF,B,1\n"
    r = faircode.audit_ll144(io.BytesIO(data.encode()), selected="hired", audit_date=DATE)
    assert r["columns"]["sex"] == "gndr"
    assert [n for n in r["notes"] if "found by its values" in n] == [
        "sex column 'gndr' found by its values ('F', 'M') only, not by its name; if it is "
        "not sex, declare the sex column with --map COLUMN=sex (or --map gndr=ignore)"
    ]
    # COMPAS with its `sex` declared no category: `c_charge_degree` is found by its values
    got = run("audit", "ll144", COMPAS, "--selected", "sex=Male", "--map", "sex=ignore")
    assert got.returncode == 0, got.stderr
    assert "sex column 'c_charge_degree' found by its values ('F', 'M') only" in got.stdout
    r = faircode.audit_ll144(io.BytesIO(b"sex,race,hired\nF,A,1\nM,B,0\n"), selected="hired")
    assert not any("found by its values" in n for n in r["notes"])


def test_categories_under_two_percent_in_the_ratios_are_named_in_a_note():
    # SPEC 20.1: on COMPAS every race impact ratio is relative to Native American, 18
    # individuals (0.25%); without --exclude-small a note names the small categories
    r = faircode.audit_ll144(COMPAS, selected="two_year_recid", audit_date=DATE)
    small = [n for n in r["notes"] if "under 2%" in n]
    assert small[0] == (
        "race/ethnicity: 2 categories under 2% of the 7,214 individuals in the tables are "
        "in the impact ratios: 'Asian' (32 individuals), 'Native American' (18 individuals); "
        "the highest category, 'Native American', is one of them, so every impact ratio of "
        "the table is relative to the rate of 18 individuals; 6 RCNY § 5-301 lets the auditor "
        "leave them out of the impact ratios (--exclude-small, with the reason in "
        "--exclusion-note)"
    )
    assert small[1].startswith("intersectional: 6 categories under 2% ")
    assert "the highest category, 'Female' x 'Native American', is one of them" in small[1]
    assert len(small) == 2  # Male 80.66%, Female 19.34%: no sex category is small
    # every category the note names is under 2%, and every such one is named
    for rows, note in ((r["race"], small[0]), (r["intersection"], small[1])):
        for x in rows:
            label = f"'{x['category']}'" if "category" in x else f"'{x['sex']}' x '{x['race']}'"
            named = f"{label} ({x['n']} individual"
            assert (named in note) == (0 < x["n"] * 50 < 7214), (label, note)
    # excluded, they are said once, under the exclusion, and not again in a note
    r = faircode.audit_ll144(
        COMPAS, selected="two_year_recid", audit_date=DATE, exclude_small=True,
        exclusion_note="fewer than 2%",
    )  # fmt: skip
    assert not any("under 2%" in n for n in r["notes"])


def test_an_output_that_cannot_be_written_is_refused_before_the_report(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("sex,race,hired\nF,A,1\nM,B,0\n")
    for flag in ("--html", "--markdown", "--csv"):
        got = run("audit", "ll144", path, "--selected", "hired", flag, tmp_path / "no" / "x")
        assert got.returncode == 2 and got.stdout == "", (flag, got.stdout)
        assert got.stderr.count("\n") == 1 and "check the directory exists" in got.stderr


def test_long_labels_are_cut_in_the_documents_and_whole_in_json_and_csv():
    long = "L" * 400
    data = f"sex,race,hired\nF,{long},1\nM,{long},0\nF,B,1\nM,B,1\n"
    r = faircode.audit_ll144(io.BytesIO(data.encode()), selected="hired", audit_date=DATE)
    cut = "L" * 200 + "... (200 more characters, sha256 "
    for form in ("text", "markdown", "html"):
        doc = render_as("audit ll144", form, r)
        assert cut in doc and long not in doc, form
    for form in ("json", "csv"):
        doc = render_as("audit ll144", form, r)
        assert long in doc and cut not in doc, form


def test_counts_in_the_report_agree_with_their_nouns():
    data = "sex,race,hired\nF,A,1\nM,B,0\n,A,1\nF,B,\n"
    r = faircode.audit_ll144(io.BytesIO(data.encode()), selected="hired", audit_date=DATE)
    text = render_as("audit ll144", "text", r)
    assert "assess 1 individual with an unknown category" in text
    assert "1 row with no decision in 'hired' is left out" in text
    r = faircode.audit_ll144(io.BytesIO(b"sex,race,hired\nF,A,1\n"), selected="hired")
    assert "1 of 1 row\n" in render_as("audit ll144", "text", r)


def test_audit_needs_a_pack():
    got = run("audit")
    assert got.returncode == 2 and "Traceback" not in got.stderr


# ---------------------------------------------------------------------------------------
# COMPAS: the four formats, reproducible bytes, the same numbers everywhere


def compas_args(*extra):
    return (
        "audit", "ll144", COMPAS, "--audit-date", DATE, "--data-source", "historical",
        "--date-column", "compas_screening_date", *extra,
    )  # fmt: skip


@pytest.fixture(scope="module")
def compas_outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("ll144-compas")
    out = {}
    for how, flag in (("score", ["--score", "decile_score"]),
                      ("selected", ["--selected", "score_text=Medium,High"])):  # fmt: skip
        got = run(*compas_args(*flag, "--json"))
        assert got.returncode == 0, got.stderr
        out[how, "json"] = got.stdout
        paths = {f: d / f"{how}.{f}" for f in ("html", "md", "csv")}
        got = run(
            *compas_args(*flag, "--html", paths["html"], "--markdown", paths["md"],
                         "--csv", paths["csv"]),
        )  # fmt: skip
        assert got.returncode == 0, got.stderr
        out[how, "text"] = got.stdout
        for f, p in paths.items():
            out[how, f] = p.read_text(encoding="utf-8")
        out[how, "html_path"] = paths["html"]
    return out


def test_compas_rates_equal_an_independent_count(compas_outputs):
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(COMPAS)
    above = df["decile_score"] > df["decile_score"].median()
    by_sex = df.assign(a=above).groupby("sex")["a"].agg(["size", "sum"])
    by_cell = df.assign(a=above).groupby(["sex", "race"])["a"].agg(["size", "sum"])
    for how in ("score", "selected"):
        r = json.loads(compas_outputs[how, "json"])
        for x in r["sex"]:
            assert (x["n"], x["positive"]) == tuple(by_sex.loc[x["category"]])
        for x in r["intersection"]:
            key = (x["sex"], x["race"])
            want = tuple(by_cell.loc[key]) if key in by_cell.index else (0, 0)
            assert (x["n"], x["positive"]) == want
        assert len(r["intersection"]) == len(r["sex"]) * len(r["race"])
        assert r["summary"]["data_dates"] == {
            "from": "2013-01-01",
            "to": "2014-12-31",
            "column": "compas_screening_date",
        }
    # decile_score > 4 (its median) is exactly score_text Medium or High
    a, b = (json.loads(compas_outputs[h, "json"]) for h in ("score", "selected"))
    assert a["outcome"]["median"] == 4
    assert a["sex"] == b["sex"] and a["race"] == b["race"]
    assert a["intersection"] == b["intersection"]


def test_compas_json_matches_the_schema_and_formats_agree(compas_outputs):
    jsonschema = pytest.importorskip("jsonschema")
    for how in ("score", "selected"):
        r = json.loads(compas_outputs[how, "json"])
        jsonschema.validate(r, SCHEMA_LL144)
        assert r["provenance"]["dataset_hash"].startswith("sha256:")
        assert r["provenance"]["audit"]["audit_date"] == DATE
        md, html, csv_text = (compas_outputs[how, f] for f in ("md", "html", "csv"))
        for x in r["race"]:
            shown = f"{x['rate'] * 100:.2f}%"
            assert shown in md and shown in html and shown in compas_outputs[how, "text"]
            assert f"{x['n']:,}" in md and f"{x['n']:,}" in html
        assert r["provenance"]["dataset_hash"].split(":")[1] in md
        rows = csv_text.splitlines()
        assert rows[0].startswith("table,category,sex,race,n,positive,rate,impact_ratio")
        # one row per category of the three tables and one of the unknown category
        assert len(rows) == 1 + len(r["sex"]) + len(r["race"]) + len(r["intersection"]) + 1
        assert "## Beyond the law" in md and ">Beyond the law" in html


def test_compas_pack_is_byte_reproducible(compas_outputs, tmp_path):
    again = run(*compas_args("--score", "decile_score", "--json"))
    assert again.stdout == compas_outputs["score", "json"]
    html = tmp_path / "again.html"
    run(*compas_args("--score", "decile_score", "--html", html))
    assert html.read_text(encoding="utf-8") == compas_outputs["score", "html"]


def test_the_python_api_equals_the_cli(compas_outputs):
    r = faircode.audit_ll144(
        str(COMPAS),
        score="decile_score",
        audit_date=DATE,
        data_source="historical",
        date_column="compas_screening_date",
    )
    assert json.loads(json.dumps(r)) == json.loads(compas_outputs["score", "json"])
    assert r.report("json") == compas_outputs["score", "json"]
    assert "<iframe" in r._repr_html_()


# ---------------------------------------------------------------------------------------
# The HTML in Chromium: the tables are there, and the page requests nothing but itself

CHROMIUM = os.environ.get("FAIRCODE_CHROMIUM", "/usr/bin/chromium")


def test_html_in_chromium_shows_the_tables_and_requests_nothing(compas_outputs, tmp_path):
    sync = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium is not installed at {CHROMIUM}")
    path = compas_outputs["score", "html_path"]
    r = json.loads(compas_outputs["score", "json"])
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with sync.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1000, "height": 1400})
        requests, errors = [], []
        page.on("request", lambda q: requests.append(q.url))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(path.as_uri())
        tables = page.eval_on_selector_all(
            "table:not(.facts)",
            "ts => ts.map(t => [...t.rows].map(r => [...r.cells].map(c => c.innerText)))",
        )
        page.screenshot(path=shots / "ll144-compas.png", full_page=True)
        pdf = page.pdf(format="Letter")
        browser.close()
    print(f"\nscreenshot: {shots / 'll144-compas.png'}")
    assert requests == [path.as_uri()]
    assert errors == []
    sex, race, grid = tables[:3]
    assert sex[0] == ["Category", "Number of applicants", "Scored above median",
                      "Scoring rate", "Impact ratio"]  # fmt: skip
    assert [x[0] for x in sex[1:]] == [x["category"] for x in r["sex"]]
    assert [x[1] for x in race[1:]] == [f"{x['n']:,}" for x in r["race"]]
    assert len(grid) == 1 + len(r["sex"]) * len(r["race"])
    assert [x[5] for x in grid[1:]] == [f"{x['impact_ratio']:.4f}" for x in r["intersection"]]
    # printable: the law's tables on the first page, the additions on the next
    pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    assert pages <= 2, pages


# ---------------------------------------------------------------------------------------
# The datasheet (SPEC 20.2): every measured number is the profile's

SCHEMA_DATASHEET = json.loads(
    (ROOT / "faircode" / "schemas" / "audit-datasheet.schema.json").read_text()
)


@pytest.fixture(scope="module")
def compas_datasheet(tmp_path_factory):
    d = tmp_path_factory.mktemp("datasheet")
    md = d / "datasheet.md"
    args = ["audit", "datasheet", COMPAS, "--audit-date", DATE, "--label", "two_year_recid"]
    got = run(*args, "--json")
    assert got.returncode == 0, got.stderr
    again = run(*args, "--markdown", md)
    assert again.returncode == 0, again.stderr
    return json.loads(got.stdout), got.stdout, md.read_text(encoding="utf-8"), again.stdout


def test_datasheet_numbers_are_the_profiles(compas_datasheet):
    from faircode.audit.measured import measures_in, resolve

    sheet = compas_datasheet[0]
    # the profile's JSON, as `faircode profile --json` gives it with the same options
    got = run("profile", COMPAS, "--label", "two_year_recid", "--json")
    profile = json.loads(got.stdout)
    found = measures_in(sheet["answers"])
    assert len(found) > 100
    for m in found:
        assert m["value"] == resolve(profile, m["from"]), m
    assert {m["from"] for m in found} >= {"/n_rows", "/n_cols", "/label_rates/rate"}
    # the profile's groups, every one of them, with their counts
    subpop = next(a for a in sheet["answers"] if a["id"] == "subpopulations")
    rows = subpop["tables"][0]["rows"]
    assert len(rows) == sum(len(d["groups"]) for d in profile["dimensions"])
    assert sheet["provenance"]["params"] == profile["provenance"]["params"]
    assert sheet["provenance"]["dataset_hash"] == profile["provenance"]["dataset_hash"]


def test_datasheet_label_rates_carry_their_intervals_and_small_groups(compas_datasheet):
    # SPEC 20.2: each group's rate with its Wilson interval and small-group mark, as the
    # profile reports them (COMPAS's 75+: 15 rows, 26.67% [10.90%-51.95%], small)
    sheet, _, md, text = compas_datasheet
    label = next(a for a in sheet["answers"] if a["id"] == "label")
    (tab,) = label["tables"]
    assert tab["head"][3:] == ["Positive rate", "95% CI low", "95% CI high", "Small group"]
    rows = {(r[0], r[1]): [c["value"] for c in r[2:6]] + r[6:] for r in tab["rows"]}
    assert rows["age", "75+"] == [15, 0.2667, 0.109, 0.5195, "yes"]
    assert rows["sex", "Male"][-1] == "no"
    froms = [c["from"] for r in tab["rows"] for c in r[2:6]]
    assert "/label_rates/dimensions/1/groups/4/ci_low" in froms
    assert {"/label_rates/ci_low", "/label_rates/ci_high"} <= {m["from"] for m in label["measures"]}
    assert "positive in 45.07% (95% interval 43.92%-46.22%) of 7,214 rows" in label["answer"]
    assert label["answer"].endswith(
        "3 groups of fewer than 100 rows (the profile's size floor, SPEC 3), whose rates are "
        "too noisy to judge: age '75+', race 'Asian', race 'Native American'."
    )
    assert "| age | 75+ | 15 | 26.67% | 10.90% | 51.95% | yes |" in md
    assert "Wilson 95% interval; 3 groups of fewer than 100 rows" in text


def test_datasheet_csv_lists_every_measured_number_once(compas_datasheet):
    """SPEC 20: `--csv` of a pack that restates the profile is one row per measured
    number: where it sits in the pack's JSON, its value as JSON writes it, and its
    pointer into the profile's JSON."""
    import csv

    from faircode.audit.measured import measures_in, resolve

    sheet = compas_datasheet[0]
    args = ["audit", "datasheet", COMPAS, "--audit-date", DATE, "--label", "two_year_recid"]
    got = run(*args, "--csv")
    assert got.returncode == 0, got.stderr
    rows = list(csv.DictReader(io.StringIO(got.stdout)))
    found = measures_in(sheet)
    assert len(rows) == len(found) > 100
    for r, m in zip(rows, found, strict=True):
        assert r["from"] == m["from"]
        assert resolve(sheet, r["where"]) == m
        want = m["value"] if isinstance(m["value"], str) else json.dumps(m["value"])
        assert r["value"] == want


def test_datasheet_lists_what_the_data_cannot_answer(compas_datasheet):
    jsonschema = pytest.importorskip("jsonschema")
    sheet, text, md, terminal = compas_datasheet
    jsonschema.validate(sheet, SCHEMA_DATASHEET)
    by = {a["id"]: a for a in sheet["answers"]}
    assert len(by) == 15
    for qid in ("instances", "sample", "relationships", "splits", "external",
                "confidential", "offensive", "identification"):  # fmt: skip
        assert by[qid]["answered_by"] == "author" and by[qid]["to_fill"], qid
    assert by["count"]["answer"] == "7,214 instances (rows) of 53 columns each."
    assert by["label"]["answered_by"] == "data"
    assert by["sensitive"]["answered_by"] == "data_and_author"
    assert sheet["for_the_author"] == [a["id"] for a in sheet["answers"]
                                       if a["answered_by"] != "data"]  # fmt: skip
    # the Markdown asks every question and marks each one the author must answer
    from faircode.safetext import md_escape

    for i, a in enumerate(sheet["answers"], 1):
        assert f"## {i}. {md_escape(a['question'])}\n" in md
        assert f"{i}. {a['question']}\n" in terminal
    assert md.count("**Author: ") == len(sheet["for_the_author"])
    assert "5,819" in md and "80.66%" in md  # Male: 5,819 rows, 0.8066


def test_datasheet_is_reproducible_and_the_api_agrees(compas_datasheet):
    sheet = faircode.audit_datasheet(str(COMPAS), label="two_year_recid", audit_date=DATE)
    assert render_as("audit datasheet", "json", sheet) == compas_datasheet[1]


# ---------------------------------------------------------------------------------------
# Article 10 (SPEC 20.3) on adult.data: every measured number is the profile's

SCHEMA_ART10 = json.loads((ROOT / "faircode" / "schemas" / "audit-art10.schema.json").read_text())
ADULT_ARGS = [
    "--names",
    ADULT_NAMES,
    "--label",
    "income",
    "--reference",
    "us-2019",
    "--proxy-hints",
]


@pytest.fixture(scope="module")
def adult_art10(tmp_path_factory):
    d = tmp_path_factory.mktemp("art10")
    html = d / "art10.html"
    args = ["audit", "art10", data_file("adult.data"), *ADULT_ARGS, "--split", "training",
            "--context", "US adults, 1994 census extract", "--audit-date", DATE]  # fmt: skip
    got = run(*args, "--json")
    assert got.returncode == 0, got.stderr
    md = run(*args, "--markdown")
    assert md.returncode == 0, md.stderr
    again = run(*args, "--html", html)
    assert again.returncode == 0, again.stderr
    return json.loads(got.stdout), got.stdout, md.stdout, html


def test_art10_numbers_are_the_profiles(adult_art10):
    from faircode.audit.art10 import rows_needed
    from faircode.audit.measured import measures_in, resolve

    doc = adult_art10[0]
    got = run("profile", data_file("adult.data"), *ADULT_ARGS, "--json")
    profile = json.loads(got.stdout)
    found = measures_in(doc["sections"])
    assert len(found) > 200
    for m in found:
        assert m["value"] == resolve(profile, m["from"]), m
    assert doc["provenance"]["params"] == profile["provenance"]["params"]
    assert doc["provenance"]["reference_hash"] == profile["provenance"]["reference_hash"]
    # every finding of the bias kinds is in 10(2)(f), with its verdict
    f = next(s for s in doc["sections"] if s["article"] == "10(2)(f)")
    listed = {m["from"] for m in measures_in(f) if m["from"].endswith("/verdict")}
    want = {
        f"/findings/{i}/verdict"
        for i, x in enumerate(profile["findings"])
        if x["severity"] == "finding"
        and x["kind"] in ("under_represented", "imbalance", "label_gap", "intersection_gap")
    }
    assert want and want <= listed
    # the lowest rate is named with the groups not told apart from it (SPEC 17.4)
    rates = next(
        t
        for p in f["parts"]
        for t in p["tables"]
        if t["head"][:3] == ["Dimension", "Highest rate", "Lowest rate"]
    )
    lows = {r[0]: r[2] for r in rates["rows"]}
    race = next(d for d in profile["label_rates"]["dimensions"] if d["name"] == "race")
    assert race["gap"]["lowest_alike"]
    assert lows["race"] == (
        f"{race['lowest']} (not told apart from {', '.join(race['gap']['lowest_alike'])} at 95%)"
    )
    proxy = next(p for p in f["parts"] if p["title"] == "Proxy hints")
    assert len(proxy["tables"][0]["rows"]) == len(profile["proxy_hints"]["hints"]) > 0
    # 10(2)(h): every group under the size floor, with the rows it needs (80% power to
    # see a 10-point gap in its rate, alpha / K; scipy's normal quantiles, independently)
    norm = pytest.importorskip("scipy.stats").norm
    h = next(s for s in doc["sections"] if s["article"] == "10(2)(h)")
    rows = h["parts"][0]["tables"][0]["rows"]
    small = [(d["name"], g["label"], g["count"], len(d["groups"]))
             for d in profile["dimensions"] for g in d["groups"] if g["small_group"]]  # fmt: skip
    assert [(r[0], r[1], r[2]["value"]) for r in rows] == [s[:3] for s in small]
    p = profile["label_rates"]["rate"]
    for r, (_, _, count, k) in zip(rows, small):
        z = norm.ppf(1 - 0.05 / (2 * k)) + norm.ppf(0.8)
        want = max(100, math.ceil(z * z * 2 * p * (1 - p) / 0.01)) - count
        assert abs(r[3]["value"] - want) <= 1
        assert r[3]["value"] == rows_needed(count, 100, p, 0.1, k, 0.05)


def test_art10_shows_differences_of_shares_in_points(adult_art10):
    # SPEC 20.3: a label-rate difference, a reference deviation and a group's change are
    # percentage points, said as the profile says them ("11.61 pts"), never "11.61%"
    doc, _, md, _ = adult_art10
    tables = {
        t["head"][-1] if t["head"][-1] != "Verdict" else t["head"][3]: t
        for s in doc["sections"]
        for p in s["parts"]
        for t in p["tables"]
    }
    for head, col in (("Difference", 3), ("Deviation from the reference", 1),
                      ("Change (points)", 4)):  # fmt: skip
        t = tables[head]
        assert t["forms"][col] == "points", head
        v = t["rows"][0][col]["value"]
        shown = f"{abs(v) * 100:.2f}".rstrip()
        assert f" {'-' if v < 0 else ''}{shown} pts |" in md, (head, v)
    sex = next(r for r in tables["Difference"]["rows"] if r[0] == "sex")
    assert f"| {sex[3]['value'] * 100:.2f} pts |" in md


def test_art10_proxy_p_values_keep_their_digits(adult_art10):
    # SPEC 20.3 and 16: an adjusted p below 0.0001 shows 3 significant digits, as the
    # profile shows it, never 0.0000
    doc, _, md, _ = adult_art10
    proxy = next(p for s in doc["sections"] for p in s["parts"] if p["title"] == "Proxy hints")
    (t,) = proxy["tables"]
    assert t["forms"][4] == "p"
    tiny = [r for r in t["rows"] if 0 < r[4]["value"] < 0.0001]
    assert tiny
    for r in tiny:
        assert f"| {r[0]} | {r[1]} | " in md
        assert f" | {r[4]['value']:.3g} | " in md, r


def test_art10_marks_what_a_tool_cannot_measure(adult_art10):
    jsonschema = pytest.importorskip("jsonschema")
    doc, text, md, html = adult_art10
    jsonschema.validate(doc, SCHEMA_ART10)
    assert [s["article"] for s in doc["sections"]] == ["10(2)(f)", "10(2)(h)", "10(3)"]
    assert [c["article"] for c in doc["checklist"]] == [
        "10(2)(a)", "10(2)(b)", "10(2)(c)", "10(2)(d)", "10(2)(e)", "10(2)(g)", "10(3)",
        "10(5)",
    ]  # fmt: skip
    assert all(c["status"] == "to be completed by the provider" for c in doc["checklist"])
    assert doc["context"] == {"article": "10(4)", "declared": ["US adults, 1994 census extract"]}
    assert md.count("- [ ] Article ") == len(doc["checklist"])
    assert "not legal advice" in md and "not a statement of conformity" in md
    for s in doc["sections"]:
        assert f"## Article {s['article']}" in md
    assert "declared, not measured" in md
    page = html.read_text(encoding="utf-8")
    assert "<script" not in page and "http" not in page.split("<body>")[1]
    # byte-reproducible
    again = faircode.audit_art10(
        str(data_file("adult.data")),
        split="training",
        label="income",
        reference="us-2019",
        proxy_hints=True,
        context=["US adults, 1994 census extract"],
        audit_date=DATE,
        opts={"names": ADULT_NAMES},
        name=str(data_file("adult.data")),
    )
    assert render_as("audit art10", "json", again) == text


def test_every_pack_html_loads_nothing_in_chromium(adult_art10, compas_datasheet, tmp_path):
    sync = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium is not installed at {CHROMIUM}")
    sheet = tmp_path / "datasheet.html"
    sheet.write_text(render_as("audit datasheet", "html", compas_datasheet[0]), encoding="utf-8")
    with sync.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for path in (adult_art10[3], sheet):
            page = browser.new_page()
            requests = []
            page.on("request", lambda q, requests=requests: requests.append(q.url))
            page.goto(path.as_uri())
            assert page.eval_on_selector_all("table", "ts => ts.length") > 3
            page.screenshot(path=tmp_path / f"{path.stem}.png", full_page=True)
            assert requests == [path.as_uri()]
            page.close()
        browser.close()


def test_labels_from_the_data_are_inert_and_stdin_reads(tmp_path):
    data = 'sex,race,hired\n"<b>F</b>","<script>x</script>",1\nM,"a|b",0\nM,"a|b",1\n'
    path = tmp_path / "h.csv"
    path.write_text(data)
    got = run("audit", "ll144", path, "--selected", "hired", "--audit-date", DATE,
              "--html", tmp_path / "h.html")  # fmt: skip
    assert got.returncode == 0, got.stderr
    page = (tmp_path / "h.html").read_text()
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    md = run("audit", "ll144", path, "--selected", "hired", "--audit-date", DATE, "--markdown")
    assert "a\\|b" in md.stdout and "<b>" not in md.stdout
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    piped = subprocess.run(
        [sys.executable, "-m", "faircode", "audit", "ll144", "-", "--selected", "hired",
         "--audit-date", DATE, "--json"],
        input=data.encode(), capture_output=True, env=env,
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    r = json.loads(piped.stdout)
    assert r["summary"]["file"] == "<stdin>"
    assert (
        r["provenance"]["dataset_hash"]
        == json.loads(
            run(
                "audit", "ll144", path, "--selected", "hired", "--audit-date", DATE, "--json"
            ).stdout
        )["provenance"]["dataset_hash"]
    )


def test_art10_csv_is_its_measures(adult_art10):
    """SPEC 20: art10's CSV, drawn by the one renderer registry, is its measured numbers
    one per row, in document order, each pointing into the profile's JSON."""
    import csv

    from faircode.audit.measured import measures_in
    from faircode.renderers import renderer

    doc = adult_art10[0]
    rows = list(csv.DictReader(io.StringIO(renderer("audit art10", "csv")(doc))))
    found = measures_in(doc)
    assert len(rows) == len(found) > 20
    assert [r["from"] for r in rows] == [m["from"] for m in found]


def test_packs_count_the_intersection_cells_the_profile_does_not_list(tmp_path):
    """SPEC 20: a pack's table of absent or near-empty cells ends each intersection with
    how many more the profile counts without listing (its `cells_not_listed`)."""
    rows = ["zip,sex"]  # 1,500 zip codes of 2 rows: 3,000 absent or near-empty cells
    for k in range(1500):
        rows += [f"{10000 + k},{'MF'[k % 2]}"] * 2
    path = tmp_path / "zips.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    profile = faircode.profile(str(path))  # zip x sex: the default crossing
    (inter,) = profile["intersections"]
    assert len(inter["cells"]) == 1000 and inter["cells_not_listed"] == 2000
    art10 = faircode.audit_art10(str(path), audit_date=DATE)
    sheet = faircode.audit_datasheet(str(path), audit_date=DATE)
    parts = [p for section in art10["sections"] for p in section["parts"]]
    part = next(p for p in parts if p["title"] == "Intersections")
    answer = next(a for a in sheet["answers"] if a["id"] == "subpopulations")
    for tables in (part["tables"], answer["tables"]):
        (cells,) = [t for t in tables if t["head"][0] == "Intersection"]
        assert len(cells["rows"]) == 1001
        assert cells["rows"][-1] == ["zip x sex", "2,000 more cells, not listed in the profile"] + [
            None,
            None,
        ]
    text = faircode.audit.art10.render_text(art10)
    assert "2,000 more cells, not listed in the profile" in text
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(json.dumps(art10)), SCHEMA_ART10)
    jsonschema.validate(json.loads(json.dumps(sheet)), SCHEMA_DATASHEET)


def test_art10_names_its_reference_as_profile_does_when_an_output_would_overwrite_it(tmp_path):
    """SPEC 6.1: an output that is an input is refused before reading, the input named by
    its flag, in art10 as in profile."""
    data = tmp_path / "d.csv"
    data.write_text("sex\nM\nF\n", encoding="utf-8")
    ref = tmp_path / "ref.csv"
    ref.write_text("group,population\nM,10\nF,10\n", encoding="utf-8")
    lines = []
    for command in (["audit", "art10"], ["profile"]):
        got = run(*command, data, "--reference", ref, "--html", ref)
        assert got.returncode == 2
        lines.append(got.stderr)
    assert lines[0] == lines[1]
    assert f"(the same file as --reference {ref})" in lines[0]
