"""`faircode scan`: the worst subgroup (SPEC 19).

The issue's numbers are checked by seeded simulations on the counts a scan searches
(`faircode.scan.Table`, exactly what reading a table produces; test_a_csv_scan_is_the_
search_of_its_counts checks that): a planted subgroup (5% of the rows, a 15-point rate
gap, depth 2) is found in at least 90 of 100 tables, and on tables with no planted gap
the p-value falls below 0.05 in at most 14 of 200 (7%)."""

from __future__ import annotations

import html
import io
import itertools
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from util import ADULT_NAMES, ROOT, data_file

import faircode
from faircode.errors import InputError
from faircode.numerics import pct
from faircode.safetext import md_escape
from faircode.scan import Table, search

SCHEMA = json.loads((ROOT / "faircode" / "schemas" / "scan.schema.json").read_text())

# ---- the simulations of the issue ---------------------------------------------------

SIZES = (4, 5, 3, 2)  # four attributes; the planted subgroup is a = v0 and b = v0
ROWS = 8000  # so the subgroup holds 400 rows (5%)
BASE = 0.3


def simulated(seed: int, gap: float, rows: int = ROWS) -> Table:
    """A table of `rows` rows whose attributes are uniform and independent; the label is
    positive at BASE, and at BASE + gap in a = v0 and b = v0 (1/4 x 1/5 = 5% of rows)."""
    rng = np.random.default_rng(seed)
    codes = np.stack([rng.integers(0, k, rows) for k in SIZES], axis=1)
    planted = (codes[:, 0] == 0) & (codes[:, 1] == 0)
    y = rng.random(rows) < np.where(planted, BASE + gap, BASE)
    key = np.zeros(rows, dtype=np.int64)
    for a, k in enumerate(SIZES):
        key = key * k + codes[:, a]
    cells = math.prod(SIZES)
    weight = np.bincount(key, minlength=cells)
    count = np.bincount(key, weights=y, minlength=cells).astype(int)
    present = np.flatnonzero(weight)  # the distinct tuples, as reading counts them
    keys = np.array(list(itertools.product(*[range(k) for k in SIZES])))[present]
    values = [[f"v{i}" for i in range(k)] for k in SIZES]
    return Table(
        list("abcd"), values, keys, weight[present], count[present], "rate", (rows, int(y.sum()))
    )


def _found_planted(r: dict) -> bool:
    best = r["found"][0]
    return best[1] == (0, 1) and best[2] == (0, 0) and r["p"] < 0.05


def test_a_planted_subgroup_is_found_in_at_least_90_of_100_tables():
    """SPEC 19 (issue 30): 5% of rows, a 15-point gap, depth 2: the best subgroup is
    exactly `a = v0 and b = v0` and its p is below 0.05 in >= 90 of 100 seeded tables."""
    found = sum(
        _found_planted(search(simulated(s, 0.15), depth=2, min_size=100, permutations=99, seed=s))
        for s in range(100)
    )
    assert found >= 90, found


def test_without_a_planted_gap_p_is_below_005_in_at_most_7_percent_of_200_tables():
    hits = sum(
        search(simulated(1000 + s, 0.0), depth=2, min_size=100, permutations=99, seed=s)["p"] < 0.05
        for s in range(200)
    )
    assert hits <= 14, hits


def test_representation_and_reference_nulls_are_calibrated_too():
    """The side permutation (two distributions) and the reference bootstrap: tables
    drawn under their null give p < 0.05 in at most 7% of 100 seeded tables each."""
    hits_side = hits_ref = 0
    for s in range(100):
        t = simulated(2000 + s, 0.0, rows=2000)
        side = Table(t.attrs, t.values, t.codes, t.weight, t.count, "representation",
                     (t.totals[0] - t.totals[1], t.totals[1]))  # fmt: skip
        hits_side += search(side, depth=2, permutations=99, seed=s)["p"] < 0.05
        shares = [np.full(k, 1 / k) for k in SIZES]
        full = np.array(list(itertools.product(*[range(k) for k in SIZES])))
        expected = np.prod([shares[a][full[:, a]] for a in range(4)], axis=0)
        rng = np.random.default_rng(s)
        drawn = rng.multinomial(1500, expected)
        ref = Table(t.attrs, t.values, full, expected, drawn, "reference", (1500,))
        hits_ref += search(ref, depth=2, permutations=99, seed=s)["p"] < 0.05
    assert hits_side <= 7 and hits_ref <= 7, (hits_side, hits_ref)


# ---- the search is exact --------------------------------------------------------------


def _brute(table: Table, depth: int, min_size: int) -> float:
    """The largest score over every conjunction, in plain Python (SPEC 19's formulas)."""
    codes = table.codes.tolist()
    w, c = table.weight.tolist(), table.count.tolist()
    best = 0.0
    for k in range(1, depth + 1):
        for subset in itertools.combinations(range(len(table.attrs)), k):
            for vals in itertools.product(*[range(len(table.values[a])) for a in subset]):
                rows = [
                    i for i, t in enumerate(codes) if all(t[a] == v for a, v in zip(subset, vals))
                ]
                sn, sy = sum(w[i] for i in rows), sum(c[i] for i in rows)
                if table.question == "representation":
                    # the shares among the rows with every attribute of the subset
                    have = [i for i, t in enumerate(codes) if all(t[a] >= 0 for a in subset)]
                    nb = sum(c[i] for i in have)
                    na = sum(w[i] for i in have) - nb
                    ok = sn >= min_size and na and nb
                    score = abs(sy / nb - (sn - sy) / na) if ok else 0.0
                elif table.question == "reference":
                    score = abs(sy / table.totals[0] - sn)
                else:
                    n, pos = table.totals
                    r = pos / n
                    if sn < max(1, min_size) or n - sn < max(1, min_size):
                        continue
                    gap = sy / sn - (pos - sy) / (n - sn)
                    score = abs(gap / math.sqrt(r * (1 - r) * (1 / sn + 1 / (n - sn))))
                best = max(best, score)
    return best


@pytest.mark.parametrize("question", ["representation", "rate"])
def test_exact_search_is_the_maximum_over_every_subgroup(question):
    for seed in range(6):
        t = simulated(seed, 0.15, rows=600)
        totals = t.totals if question == "rate" else (t.totals[0] - t.totals[1], t.totals[1])
        t = Table(t.attrs, t.values, t.codes, t.weight, t.count, question, totals)
        for depth in (1, 2, 3):
            got = search(t, depth=depth, min_size=20, permutations=0)
            assert got["found"][0][5] == pytest.approx(_brute(t, depth, 20), rel=1e-12)
            assert got["method"] == "exact" and got["p"] is None


def _with_missing(seed: int, rows: int = 2000, blank_b: float = 0.4, shrink: float = 0.0):
    """Two sides drawn alike (half the rows each), 40% of B's `a` cells missing; with
    `shrink`, that share of B's `a = v0` rows moved to other values of `a` first."""
    rng = np.random.default_rng(seed)
    codes = np.stack([rng.integers(0, k, rows) for k in SIZES], axis=1)
    side = rng.random(rows) < 0.5
    moved = side & (codes[:, 0] == 0) & (rng.random(rows) < shrink)
    codes[moved, 0] = rng.integers(1, SIZES[0], moved.sum())
    codes[side & (rng.random(rows) < blank_b), 0] = -1
    keys, inv = np.unique(codes, axis=0, return_inverse=True)
    inv = inv.ravel()
    nb = int(side.sum())
    return Table(list("abcd"), [[f"v{i}" for i in range(k)] for k in SIZES], keys,
                 np.bincount(inv), np.bincount(inv, weights=side).astype(int),
                 "representation", (rows - nb, nb))  # fmt: skip


@pytest.mark.parametrize(("method", "tables", "most"), [("exact", 100, 7), ("beam", 50, 5)])
def test_missing_cells_are_left_out_of_the_shares_not_counted_as_a_shrink(method, tables, most):
    """SPEC 19: a subgroup's shares are among the rows with all its attributes, and the
    side is permuted within each pattern of missing attributes: with 40% of B's `a`
    missing and nothing else different, p < 0.05 in at most 7 of 100 tables (the beam,
    slower, in at most 5 of 50; a calibrated test exceeds these 13% and 4% of the time,
    and a test that counted the blanks as a shrink in nearly every table)."""
    hits = 0
    for s in range(tables):
        r = search(_with_missing(s), depth=2, permutations=99, seed=s, method=method)
        hits += r["p"] < 0.05
    assert hits <= most, hits
    for seed in range(3):  # still the maximum over every subgroup
        t = _with_missing(seed, rows=600)
        got = search(t, depth=2, min_size=20, permutations=0, method="exact")
        assert got["found"][0][5] == pytest.approx(_brute(t, 2, 20), rel=1e-12)


def test_a_planted_shrink_is_found_through_missing_cells():
    """B lost most of `a = v0` and lacks `a` in 40% of its rows: still found, confirmed."""
    r = search(_with_missing(11, rows=4000, shrink=0.6), depth=2, permutations=99, seed=0)
    best = r["found"][0]
    assert (best[1], best[2]) == ((0,), (0,)) and r["p"] < 0.05


def test_the_beam_search_finds_the_planted_subgroup_and_is_calibrated():
    r = search(simulated(7, 0.15), depth=2, min_size=100, permutations=49, seed=1, method="beam")
    assert r["method"] == "beam" and r["complete"]
    assert _found_planted(r)
    assert r["found"][0][5] == pytest.approx(
        search(simulated(7, 0.15), depth=2, min_size=100, permutations=0)["found"][0][5]
    )


def test_the_time_bound_stops_the_permutations_and_says_so():
    t = simulated(3, 0.0, rows=3000)
    r = search(t, depth=3, min_size=100, permutations=100_000, seed=0, max_seconds=0.2)
    assert 0 < r["permutations_done"] < 100_000
    assert r["seconds"] < 5
    cut = search(t, depth=3, min_size=100, permutations=99, method="beam", max_seconds=1e-9)
    assert not cut["complete"] and cut["p"] is None and cut["permutations_done"] == 0
    assert cut["found"]  # the best found before the bound


# ---- the Maximum Subgroup Discrepancy paper's example --------------------------------

#: The two-attribute example (Race x Age, binary Target) of the MSD paper's repository,
#: humancompatible/detect `data/01_data.csv` (Apache-2.0, kept in tests/data/msd with its
#: licence). Its notebook (examples/01_basic_usage.ipynb) publishes MSD 0.111 for
#: `Race = Blue AND Age = 0-18`.
MSD_PUBLISHED = "0.111"


@pytest.mark.parametrize("method", ["exact", "beam"])
def test_msd_of_the_papers_example_equals_the_published_value(method):
    r = faircode.scan(
        str(data_file("msd/01_data.csv")), versus="Target", permutations=99, method=method
    )
    sub = r["subgroup"]
    assert sub["text"] == "Race = 'Blue' and Age = '0-18'"
    assert f"{sub['discrepancy']:.3f}" == MSD_PUBLISHED
    assert sub["discrepancy"] == round(1 / 9, 4)  # 5 of 45 negatives, 0 of 30 positives
    assert r["statistic"] == "max_subgroup_discrepancy"


def test_msd_is_the_largest_share_difference_of_a_hand_made_table():
    """The same shape as the paper's example, made here: 'young Blue' rows are all
    negative; MSD is their share of the negatives (6/20), found as a two-condition rule:
    every other subgroup differs by 0.1 or 0.2."""
    rows = []
    for race, age, neg, pos in [
        ("Blue", "0-18", 6, 0), ("Blue", "18-30", 4, 6), ("Green", "0-18", 4, 6),
        ("Green", "18-30", 6, 8),
    ]:  # fmt: skip
        rows += [f"{race},{age},0"] * neg + [f"{race},{age},1"] * pos
    data = ("race,age,target\n" + "\n".join(rows) + "\n").encode()
    r = faircode.scan(io.BytesIO(data), versus="target", permutations=0)
    sub = r["subgroup"]
    assert sub["text"] == "race = 'Blue' and age = '0-18'"
    assert sub["discrepancy"] == 0.3 and sub["effect"] == -0.3
    assert (sub["rows_a"], sub["rows_b"]) == (6, 0)


# ---- reading: the profile's groups, counts first ------------------------------------


def _planted_csv(tmp_path: Path, rows: int = 4000, seed: int = 5) -> Path:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], rows)
    race = rng.choice(["Asian", "Black", "White", "Other"], rows)
    age = rng.integers(18, 80, rows)
    planted = (sex == "F") & (race == "Black")
    y = rng.random(rows) < np.where(planted, 0.6, 0.3)
    path = tmp_path / "t.csv"
    lines = ["sex,race,age,hired"] + [
        f"{s},{r},{a},{'yes' if v else 'no'}" for s, r, a, v in zip(sex, race, age, y)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_csv_scan_is_the_search_of_its_counts(tmp_path):
    """Groups are the profile's (ages in its bands), and the result is `search` of the
    tuple counts: the same subgroup, score and p as the counts built by hand."""
    path = _planted_csv(tmp_path)
    r = faircode.scan(str(path), label="hired", permutations=99, seed=3)
    prof = faircode.profile(str(path))
    for attr in r["attributes"]:
        dim = next(d for d in prof["dimensions"] if d["name"] == attr["name"])
        assert attr["values"] == sorted(g["label"] for g in dim["groups"])
    assert r["attributes"][2]["binned"] == "age_bands"
    assert r["subgroup"]["text"] == "sex = 'F' and race = 'Black'"
    assert r["compared"]["positive"] == "yes"  # the larger of two values (SPEC 17.3)
    import pandas as pd

    df = pd.read_csv(path)
    df["age"] = pd.cut(df["age"], [0, 18, 30, 45, 60, 75, 200], right=False).astype(str)
    names = [a["name"] for a in r["attributes"]]
    values = [a["values"] for a in r["attributes"]]
    df["age"] = df["age"].map(
        {
            f"[{lo}, {hi})": lab
            for lo, hi, lab in [
                (18, 30, "18-29"),
                (30, 45, "30-44"),
                (45, 60, "45-59"),
                (60, 75, "60-74"),
                (75, 200, "75+"),
            ]
        }  # fmt: skip
    )
    codes = np.stack(
        [df[n].map({v: i for i, v in enumerate(vs)}) for n, vs in zip(names, values)], axis=1
    )
    keys, inv = np.unique(codes, axis=0, return_inverse=True)
    inv = inv.ravel()
    y = (df["hired"] == "yes").to_numpy()
    t = Table(names, values, keys, np.bincount(inv), np.bincount(inv, weights=y).astype(int),
              "rate", (len(df), int(y.sum())))  # fmt: skip
    by_hand = search(t, depth=3, min_size=100, permutations=99, seed=3)
    assert r["subgroup"]["score"] == round(by_hand["found"][0][5], 4)
    assert r["subgroup"]["p"] == round(by_hand["p"], 4)


def test_two_files_are_the_versus_question_of_their_union(tmp_path):
    """`scan A B` is `scan A+B --versus side`: the same subgroup, MSD and p."""
    path = _planted_csv(tmp_path, rows=1500)
    lines = path.read_text().splitlines()
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.endswith("no")]) + "\n")
    b.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.endswith("yes")]) + "\n")
    two = faircode.scan(
        str(a), str(b), columns=None, permutations=99, overrides={"hired": "ignore"}
    )
    one = faircode.scan(str(path), versus="hired=yes", permutations=99)
    assert two["subgroup"]["text"] == one["subgroup"]["text"]
    for key in ("effect", "discrepancy", "ci_low", "ci_high", "p"):
        assert two["subgroup"][key] == one["subgroup"][key], key
    assert two["compared"]["b"]["rows"] == one["compared"]["b"]["rows"]


def test_two_files_title_names_both_in_every_format(tmp_path):
    """SPEC 19: `scan A B`'s title names what it compares, A and B (as `compare A B`),
    in the text, Markdown (stdout and --markdown) and HTML reports and the API's; a scan
    of one file keeps that file's name."""
    a, b = _two_draws(tmp_path, 0.0)
    want = f"faircode scan: A = {a}, B = {b}"
    md = tmp_path / "scan.md"
    for form, first in (("text", want), ("markdown", f"## {md_escape(want)}"), ("html", None)):
        got = _cli(str(a), str(b), "--permutations", "9", "--format", form, "--markdown", str(md))
        assert got.returncode == 0, got.stderr
        if first is None:
            assert f"<title>{want}</title>" in got.stdout and f"<h1>{want}</h1>" in got.stdout
        else:
            assert got.stdout.splitlines()[0] == first
        assert md.read_text(encoding="utf-8").splitlines()[0] == f"## {md_escape(want)}"
    r = faircode.scan(str(a), str(b), permutations=9)
    assert r.report("text").splitlines()[0] == want
    one = faircode.scan(str(a), versus="sex=Female", permutations=9)
    assert one.report("text").splitlines()[0] == f"faircode scan: {a}"


def _two_draws(tmp_path: Path, blank_b: float) -> tuple[Path, Path]:
    """Two files drawn from one law, `blank_b` of B's sex cells blank."""
    rng = np.random.default_rng(3)
    paths = []
    for side, blank in (("a", 0.0), ("b", blank_b)):
        sex = rng.choice(["Male", "Female"], 3000)
        sex[rng.random(3000) < blank] = ""
        race = rng.choice(["White", "Black", "Asian"], 3000)
        age = rng.integers(18, 80, 3000)
        path = tmp_path / f"{side}.csv"
        lines = [f"{s},{r},{x}" for s, r, x in zip(sex, race, age)]
        path.write_text("sex,race,age\n" + "\n".join(lines) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def test_two_files_missing_cells_of_b_are_not_a_shrink(tmp_path):
    """40% of B's sex cells blank, nothing else different: no confirmed subgroup, a
    one-condition share is compare's (SPEC 8), and a note counts the missing cells."""
    a, b = _two_draws(tmp_path, 0.4)
    r = faircode.scan(str(a), str(b), permutations=199)
    assert r["subgroup"]["verdict"] == "possible", r["subgroup"]
    blank = b.read_text().count("\n,")
    assert r["notes"] == [
        f"sex has no value in 0 of 3,000 rows of {a} and {blank:,} of 3,000 of {b}: a "
        "subgroup on it is compared among the rows that have it"
    ]
    shares = {
        g["label"]: (g["share_a"], g["share_b"])
        for g in faircode.compare(str(a), str(b))["dimensions"][0]["groups"]
    }
    only_sex = faircode.scan(
        str(a), str(b), permutations=0, overrides={"race": "ignore", "age": "ignore"}
    )
    subs = [only_sex["subgroup"], *only_sex["runners_up"]]
    assert {s["rule"][0]["value"]: (s["share_a"], s["share_b"]) for s in subs} == shares


def test_the_reference_question_agrees_with_the_profiles_reference_block():
    """COMPAS against us-2019: a one-condition subgroup's effect is the profile's
    reference delta (SPEC 9) for its group; the worst is sex = 'Female'."""
    path = str(data_file("compas-scores-two-years.csv"))
    r = faircode.scan(path, reference="us-2019", permutations=49)
    from faircode.reference import load_reference

    prof = faircode.profile(path, opts={"reference": load_reference("us-2019")[0]})
    deltas = {
        (d["name"], g["label"]): g["delta"]
        for d in prof["dimensions"]
        if "reference" in d
        for g in d["reference"]["groups"]
    }
    sub = r["subgroup"]
    assert sub["text"] == "sex = 'Female'" and r["test"]["method"] == "bootstrap"
    assert sub["effect"] == deltas[("sex", "Female")]
    for other in r["runners_up"]:
        if other["length"] == 1:
            key = (other["rule"][0]["attribute"], other["rule"][0]["value"])
            assert other["effect"] == pytest.approx(deltas[key], abs=1e-4)
    assert [a["name"] for a in r["attributes"]] == ["sex", "age"]


def test_the_error_rate_of_a_prediction():
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 3000
    df = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "race": rng.choice(list("ABC"), n)})
    df["y"] = rng.integers(0, 2, n)
    wrong = rng.random(n) < np.where((df["sex"] == "M") & (df["race"] == "C"), 0.4, 0.1)
    df["pred"] = np.where(wrong, 1 - df["y"], df["y"])
    r = faircode.scan(df, label="y", prediction="pred", permutations=99)
    assert r["subgroup"]["text"] == "sex = 'M' and race = 'C'"
    assert r["compared"]["prediction"] == "pred" and r["subgroup"]["verdict"] == "confirmed"
    assert "y" not in [a["name"] for a in r["attributes"]]


def test_a_chosen_numeric_column_is_cut_into_five_bins():
    r = faircode.scan(
        str(data_file("adult.data")),
        label="income",
        columns=["hours-per-week"],
        opts={"names": ADULT_NAMES},
        permutations=0,
        depth=1,
    )
    hours = next(a for a in r["attributes"] if a["name"] == "hours-per-week")
    assert hours["source"] == "column" and hours["binned"] == "quantiles"
    # five bins of near-equal rows, each a value or a range of values as written
    assert hours["values"] == ["1-35", "36-40", "41", "42-48", "49-99"]


def test_the_docstring_example_runs():
    import doctest
    import importlib

    module = importlib.import_module("faircode.scan")  # faircode.scan is the function
    failures, tried = doctest.testmod(module, verbose=False)[:2]
    assert tried >= 3 and failures == 0


# ---- the command ------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "faircode", "scan", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_cli_json_matches_the_schema_and_the_reports_say_the_same(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    path = _planted_csv(tmp_path, rows=2000)
    md = tmp_path / "scan.md"
    got = _cli(
        str(path), "--label", "hired", "--permutations", "99", "--json", "--markdown", str(md)
    )
    assert got.returncode == 0, got.stderr
    result = json.loads(got.stdout)
    jsonschema.validate(result, SCHEMA)
    assert result["subgroup"]["text"] == "sex = 'F' and race = 'Black'"
    assert result["declare"]["cross"] == "sex,race"
    assert 'slices: ["sex", "race"]' in result["declare"]["registry"]
    text = _cli(str(path), "--label", "hired", "--permutations", "99").stdout
    markdown = md.read_text()
    page = _cli(str(path), "--label", "hired", "--permutations", "99", "--format", "html").stdout
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in html.unescape(page)
    assert html.unescape(re.sub(r"<[^>]+>", " ", page)).count("sex = 'F' and race = 'Black'") >= 2
    # the same figures as the text report: effect, interval and p in the three formats
    sub = result["subgroup"]
    figures = [pct(sub["effect"]), pct(sub["ci_low"]), pct(sub["ci_high"])]
    for report in (text, markdown, page):
        assert all(f in report for f in figures)
    page = html.unescape(re.sub(r"<[^>]+>", " ", page))
    for report in (text, markdown, page):
        assert "sex = 'F' and race = 'Black'" in report
        assert "--cross sex,race" in report and "never part of the grade or a gate" in report
        assert "calibrated for the search (99 seeded permutations, seed 0)" in report
    for question in (["--versus", "hired"], ["--reference", "us-2019"]):
        got = _cli(str(path), *question, "--permutations", "19", "--json")
        assert got.returncode == 0, got.stderr
        jsonschema.validate(json.loads(got.stdout), SCHEMA)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--label", "hired", "--versus", "sex"], "ask one question"),
        ([], "ask one question"),
        (["--label", "nope"], "'nope' is not a column"),
        (["--label", "hired", "--depth", "0"], "--depth: 0 is out of range"),
        (["--label", "hired", "--permutations", "x"], "--permutations: 'x' is not a number"),
        (["--versus", "race"], "--versus race: 4 values; name the positive one"),
        (["--label", "hired", "--positive", "maybe"], "--positive maybe: not a value of 'hired'"),
        (["--prediction", "sex"], "ask one question"),
        (
            ["--label", "hired", "--prediction", "sex"],
            "--prediction sex: no value in common with --label hired (sex: 'F', 'M'; "
            "hired: 'no', 'yes'), so every row would be an error",
        ),
        (["--label", "hired", "--skip-lines-b", "1"], "--skip-lines-b goes with a second file"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(tmp_path, args, message):
    path = _planted_csv(tmp_path, rows=300)
    got = _cli(str(path), *args)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and message in got.stderr, got.stderr


def test_skip_lines_b_skips_the_lines_before_bs_table_only(tmp_path):
    """`scan A B --skip-lines-b 1` (B opens with adult.test's junk line) is the scan of
    A and B without it; a bad value is one line naming the flag, as compare's."""
    a, b = _two_draws(tmp_path, 0.0)
    junk = tmp_path / "junk.csv"
    junk.write_text("|1x3 Cross validator\n" + b.read_text())
    want = _cli(str(a), str(b), "--permutations", "19", "--json")
    got = _cli(str(a), str(junk), "--skip-lines-b", "1", "--permutations", "19", "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["subgroup"] == json.loads(want.stdout)["subgroup"]
    assert json.loads(got.stdout)["compared"]["b"]["rows"] == 3000
    bad = _cli(str(a), str(junk), "--skip-lines-b", "-3")
    assert bad.returncode == 2
    assert bad.stderr == "faircode: error: --skip-lines-b: -3 is out of range (integer 0..)\n"


def test_a_pattern_or_a_list_is_one_dataset_and_a_bad_path_is_the_profiles_line(tmp_path):
    # SPEC 19 and 0.8: FILE and B are read as `faircode profile` reads them; a quoted
    # glob's files (or a list of paths) are one dataset, whose scan is the whole file's
    lines = data_file("compas-scores-two-years.csv").read_bytes().splitlines(keepends=True)
    (tmp_path / "p1.csv").write_bytes(b"".join(lines[:3001]))
    (tmp_path / "p2.csv").write_bytes(lines[0] + b"".join(lines[3001:]))
    (tmp_path / "whole.csv").write_bytes(b"".join(lines))
    pattern, whole = str(tmp_path / "p*.csv"), str(tmp_path / "whole.csv")
    ask = ("--versus", "is_recid", "--permutations", "0", "--json")
    got = [_cli(path, *ask) for path in (pattern, whole)]
    assert [g.returncode for g in got] == [0, 0], got[0].stderr
    parts, want = (json.loads(g.stdout) for g in got)
    for r in (parts, want):
        r["search"].pop("seconds")
        r["declare"].pop("profile")  # names its file
    assert parts == want
    # the suggested command keeps the pattern one argument for the shell
    assert json.loads(got[0].stdout)["declare"]["profile"] == (
        f"faircode profile '{pattern}' --cross {want['declare']['cross']}"
    )
    two = _cli(whole, pattern, "--permutations", "0", "--json")
    assert two.returncode == 0, two.stderr
    assert json.loads(two.stdout)["compared"]["b"] == {"name": pattern, "rows": 7214}
    listed = faircode.scan(
        [tmp_path / "p1.csv", tmp_path / "p2.csv"], versus="is_recid", permutations=0
    )
    assert listed["compared"] == want["compared"]
    for args, says in (
        ((str(tmp_path / "nope.csv"), "--versus", "is_recid"), "nope.csv: no such file"),
        ((str(tmp_path / "zz*.csv"), "--versus", "is_recid"), "zz*.csv: no file matches"),
        ((str(tmp_path), "--versus", "is_recid"), ": is a directory, not a file"),
        ((whole, str(tmp_path / "zz*.csv")), "zz*.csv: no file matches this pattern"),
    ):
        got = _cli(*args)
        assert got.returncode == 2 and got.stderr.count("\n") == 1, got.stderr
        assert says in got.stderr


def test_no_subgroup_says_why_not_the_time_bound(tmp_path):
    """Nothing scores above 0: no test runs and the note gives the reason and its
    numbers, never --max-seconds (SPEC 19)."""
    a, _ = _two_draws(tmp_path, 0.0)
    same = faircode.scan(str(a), str(a))
    assert same["subgroup"] is None and same["test"]["done"] == 0
    assert same["notes"] == [
        f"no subgroup's share differs between {a} and {a} (every discrepancy is 0); "
        "nothing to test, no p-value"
    ]
    big = faircode.scan(str(a), str(a), min_size=100_000)
    largest = max(g["count"] for d in faircode.profile(str(a))["dimensions"] for g in d["groups"])
    assert big["notes"] == [
        f"no subgroup has --min-size 100,000 rows (the largest has {2 * largest:,}); "
        "nothing to test, no p-value"
    ]
    blank = io.BytesIO(b"sex,race\n" + b",\n" * 20)
    none = faircode.scan(str(a), blank, name_b="blank")
    assert none["notes"][-1] == (
        f"no searched attribute has a value in both {a} and blank; nothing to test, no p-value"
    )
    rate = faircode.scan(_planted_csv(tmp_path, rows=300), label="hired", min_size=200)
    assert rate["notes"] == [
        "no subgroup: a rate gap needs --min-size 200 rows in the subgroup and in the rest, "
        "and the table has 300; nothing to test, no p-value"
    ]


def test_a_scan_is_advisory_exit_0_whatever_it_finds(tmp_path):
    path = _planted_csv(tmp_path, rows=2000)
    got = _cli(str(path), "--label", "hired", "--permutations", "99")
    assert got.returncode == 0 and "confirmed" in got.stdout


def test_the_result_displays_itself_and_stays_a_dict(tmp_path):
    r = faircode.scan(str(_planted_csv(tmp_path, rows=1000)), label="hired", permutations=9)
    assert isinstance(r, dict) and json.loads(json.dumps(r)) == r
    assert repr(r).startswith("ScanResult(rate: sex = 'F' and race = 'Black'")
    # the notebook shows the HTML report (SPEC 19) in a sandboxed frame
    shown = r._repr_html_()
    assert "<iframe" in shown and "sandbox" in shown and "Worst subgroup" in html.unescape(shown)
    assert "Worst subgroup" in r.report("markdown")


def test_scan_errors_are_input_errors():
    with pytest.raises(InputError, match="^scan: prediction needs label"):
        faircode.scan("x.csv", versus="a", prediction="p")


def test_the_worst_subgroup_says_when_the_next_ones_overlap_its_interval():
    """SPEC 19: resampled, COMPAS's worst subgroup by two-year recidivism ('Male' x
    '18-29') gives way to 'Male' x 'African-American' about a quarter of the time; every
    report says how many runners-up overlap its interval rather than naming it alone."""
    import pandas as pd  # lazy: the frames extra

    from faircode.scanreport import overlap_text, render_html, render_markdown, render_text

    df = pd.read_csv(data_file("compas-scores-two-years.csv"))
    df = df[["sex", "age", "race", "two_year_recid"]]
    r = faircode.scan(df, versus="two_year_recid", permutations=19, max_seconds=None)
    sub, ups = r["subgroup"], r["runners_up"]
    k = sum(u["ci_low"] <= sub["ci_high"] and u["ci_high"] >= sub["ci_low"] for u in ups)
    assert k >= 1
    line = f"{k} of the next {len(ups)} overlap its interval: on another sample of rows, "
    page = html.unescape(re.sub(r"<[^>]+>", " ", render_html(r)))
    for report in (render_text(r), render_markdown(r), page):
        assert line in report
    rng = np.random.default_rng(3)
    worst = set()
    for _ in range(20):
        s = df.iloc[rng.integers(0, len(df), len(df))].reset_index(drop=True)
        worst.add(faircode.scan(s, versus="two_year_recid", permutations=0)["subgroup"]["text"])
    assert len(worst) > 1 and worst <= {sub["text"], *(u["text"] for u in ups)}
    # none overlapping: nothing said
    apart = {"subgroup": {**sub, "ci_low": 0.9, "ci_high": 0.95}, "runners_up": ups}
    assert overlap_text(apart) is None


def test_a_share_or_rate_of_some_rows_never_reads_zero_or_a_hundred(tmp_path, monkeypatch):
    """SPEC 19 (8's rule): a subgroup's share or rate of some rows but not all reads
    `<0.01%` or `>99.99%` in every report, never 0.00% or 100.00%; one that is exact
    keeps its digits. One row of 30,000 in B, 29,999 of 30,000 against a reference, a
    rate of 29,999 of 30,000 against one of 1."""
    from faircode.scanreport import render_html, render_markdown, render_text

    monkeypatch.chdir(tmp_path)  # names without Markdown's escapes
    a, b = Path("a.csv"), Path("b.csv")
    a.write_text("race\n" + "w\n" * 15000 + "x\n" * 15000)
    b.write_text("race\n" + "w\n" * 29999 + "x\n")
    ref, one = Path("ref.csv"), Path("one.csv")
    ref.write_text("column,group,share\nsex,Male,0.5\nsex,Female,0.5\n")
    one.write_text("sex,hired\n" + "Male,1\n" * 29999 + "Female,1\n")
    rate = Path("rate.csv")
    rate.write_text("sex,hired\n" + "F,1\n" * 29999 + "F,0\n" + "M,0\n" * 29999 + "M,1\n")
    cases = (
        (
            faircode.scan(str(a), str(b), permutations=0),
            "race = 'w'",
            f">99.99% of {b} vs 50.00% of {a}",
            f"<0.01% of {b} vs 50.00% of {a}",
        ),
        (
            faircode.scan(str(one), reference=str(ref), permutations=0),
            "sex = 'Male'",
            ">99.99% of the rows vs 50.00% expected",
            "<0.01% of the rows vs 50.00% expected",
        ),
        (
            faircode.scan(str(rate), label="hired", permutations=0),
            "sex = 'F'",
            "rate >99.99% vs <0.01% in the rest",
            "rate <0.01% vs >99.99% in the rest",
        ),
    )
    for r, worst, said, next_said in cases:
        assert r["subgroup"]["text"] == worst
        shares = [r["subgroup"].get(k) for k in ("share_b", "share", "rate")]
        assert 1.0 in shares
        page = html.unescape(re.sub(r"<[^>]+>", " ", render_html(r)))
        # Markdown writes > and < as &gt; and &lt; (safetext.md_escape)
        for report in (render_text(r), html.unescape(render_markdown(r)), page):
            assert said in report
            assert "100.00%" not in report and " 0.00%" not in report
        assert next_said in render_text(r)  # the runners-up's shares: the text report's
    # every row of A's x and none of B's: the exact ends keep their digits
    c = Path("c.csv")
    c.write_text("race\n" + "w\n" * 30000)
    r = faircode.scan(str(a), str(c), permutations=0)
    assert (r["subgroup"]["n_a"], r["subgroup"]["n_b"]) == (30000, 30000)
    assert f"100.00% of {c} vs 50.00% of {a}" in render_text(r)
    assert f"0.00% of {c} vs 50.00% of {a}" in render_text(r)
