"""SPEC sections 2-5 and 13: age, metrics, intersections, score, numerics."""

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from util import counts, dim, prof

from faircode import InputError
from faircode.analyze import wilson
from faircode.numerics import fmt, fsum, ln, round_half_up


def test_round_half_up_and_fmt_ties():
    assert round_half_up(0.00005, 4) == 0.0001
    assert round_half_up(2.5, 0) == 3.0
    assert fmt(29.25, 1) == "29.3"
    assert fmt(0.125, 2) == "0.13"
    assert fmt(-1.25, 1) == "-1.2"
    assert fmt(-0.04, 1) == "0.0"
    assert fmt(7, 0) == "7"
    assert fmt(0.05, 1) == "0.1"


@given(st.floats(min_value=1e-300, max_value=1e300))
def test_ln_agrees_with_math_log(x):
    assert math.isclose(ln(x), math.log(x), rel_tol=1e-15, abs_tol=1e-300)


def test_ln_exact_points():
    assert ln(1.0) == 0.0
    assert ln(2.0) == 0.6931471805599453
    assert ln(0.5) == -ln(2.0)


def test_fsum_is_order_independent():
    terms = [1e16, 1.0, -1e16, 3.3, 1e-9] * 7
    results = {fsum(random.Random(s).sample(terms, len(terms))) for s in range(50)}
    assert len(results) == 1


def test_wilson_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for n in (1, 2, 3, 7, 10, 99, 100, 1000, 7214):
        for c in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            lo, hi = wilson(c, n)
            slo, shi = proportion_confint(c, n, alpha=0.05, method="wilson")
            assert abs(lo - slo) <= 0.00005 + 1e-12, (c, n)
            assert abs(hi - shi) <= 0.00005 + 1e-12, (c, n)


def test_hand_worked_dimension():
    # 3 x M, 1 x F: p = .75/.25; H = 0.562335; ratio = H / ln 2 = 0.811278
    # The score of version 2 (score rule v2): entropy_ratio * 100, the plain mean (SPEC 5)
    r = prof("sex\nM\nM\nM\nF\n\n", score_rule="v2")
    d = dim(r, "sex")
    assert d["entropy_ratio"] == 0.8113
    assert d["dimension_score"] == 81
    assert d["score_ci"] is None and d["score_note"] is None and r["overall_ci"] is None
    # SPEC 3: the flag's ratio needs two groups of min_group_size rows; the field of
    # all groups keeps max / min
    assert d["imbalance_ratio"] is None and d["imbalance_ratio_all"] == 3.0
    assert prof("sex\nM\nM\nM\nF\n", min_group_size=1)["dimensions"][0]["imbalance_ratio"] == 3.0
    assert d["min_share"] == 0.25 and d["max_share"] == 0.75
    assert [g["label"] for g in d["groups"]] == ["M", "F"]
    assert all(g["small_group"] for g in d["groups"])
    assert d["under_represented"] == []
    assert r["overall_score"] == 81 and r["grade"] == "B"
    # imbalance_ratio >= 3.0 is flagged (inclusive), between two groups of min_group_size
    # rows; both are small here, so there is no imbalance finding (version 2 compared with
    # the smallest group, "('M' vs 'F', 1 row)"; SPEC 6). The findings are the same under
    # every score rule.
    assert r["flags"] == []
    r = prof("sex\nM\nM\nM\nF\n\n", min_group_size=0, score_rule="v2")
    assert r["flags"] == ["sex: imbalance ratio 3.0 ('M' vs 'F')"]
    # Score rule v3 (the default): 4 rows are fewer than min_group_size, so no score, no
    # grade, and a note says why (SPEC 5)
    r = prof("sex\nM\nM\nM\nF\n\n")
    d = dim(r, "sex")
    assert d["entropy_ratio"] == 0.8113
    assert (d["dimension_score"], d["score_ci"]) == (None, None)
    assert d["score_note"] == "fewer than 100 rows (4)"
    assert (r["overall_score"], r["overall_ci"], r["grade"]) == (None, None, None)
    assert r["flags"] == [
        "sex: too few rows to score (fewer than 100 rows (4)); shares are shown",
        "no dimension has enough rows to score (sex); the grade is not given",
    ]
    # With min_group_size 0 the rows are enough, but not the interval: both groups weigh 1
    # (K = 2, L = ln 2), so balance = 0.811278; the delta method's gradient is
    # g_i = -(ln p_i + H) / ln 2 = (-0.396, 1.189), var = (.75 g1^2 + .25 g2^2) / 4 = 0.11776,
    # half = Z * sqrt(var) = 0.6726: [0.1387, 1], 86 points wide > 30
    r = prof("sex\nM\nM\nM\nF\n\n", min_group_size=0)
    assert dim(r, "sex")["score_note"] == "the score's interval is wider than 30 points (14-100)"
    assert r["flags"] == [
        "sex: imbalance ratio 3.0 ('M' vs 'F')",
        "sex: too few rows to score (the score's interval is wider than 30 points (14-100)); "
        "shares are shown",
        "no dimension has enough rows to score (sex); the grade is not given",
    ]


def test_groups_ordered_by_count_then_code_point():
    r = prof("race\n\U0001f600\n\uff5e\nB\na\nB\n")
    # U+1F600 sorts after U+FF5E by code point (in UTF-16 it would sort before)
    assert [g["label"] for g in dim(r, "race")["groups"]] == ["B", "a", "\uff5e", "\U0001f600"]


def test_under_represented_uses_the_unrounded_share_and_min_share_option():
    rows = ["A"] * 95 + ["B"] * 5
    r = prof("race\n" + "\n".join(rows) + "\n")
    assert dim(r, "race")["under_represented"] == []
    r = prof("race\n" + "\n".join(rows) + "\n", min_share=0.06)
    assert dim(r, "race")["under_represented"] == ["B"]
    assert "race: 'B' is under-represented (5.00%, 5 rows)" in r["flags"]
    r = prof("race\n" + "\n".join(rows) + "\n", min_share=0.06, min_group_size=5)
    assert "race: 'B' is under-represented (5.00%)" in r["flags"]


def test_missing_flag_and_single_group_dimension():
    r = prof("race\nA\nA\nNA\n", score_rule="v2")
    d = dim(r, "race")
    assert d["missing_count"] == 1 and d["missing_pct"] == 0.3333
    assert d["dimension_score"] == 0 and d["entropy_ratio"] == 0.0
    assert d["imbalance_ratio"] is None and d["imbalance_ratio_all"] == 1.0
    coded = (  # SPEC 1.7
        "race: label A looks like a code; the file does not say which group it stands for "
        "(name it with --recode race:A=NAME)"
    )
    assert r["flags"] == ["race: 33.33% missing", coded]
    assert prof("race\nA\nA\nNA\n", missing_flag=0.34, score_rule="v2")["flags"] == [coded]
    # v3: one group holding every row balances nothing (H = 0) and its gradient is 0, so
    # with enough rows for the size rule it scores 0 [0, 0], grade F
    r = prof("race\nA\nA\nNA\n", min_group_size=1)
    d = dim(r, "race")
    assert (d["dimension_score"], d["score_ci"], d["score_note"]) == (0, [0, 0], None)
    assert (r["overall_score"], r["overall_ci"], r["grade"]) == (0, [0, 0], "F")
    assert r["flags"] == ["race: 33.33% missing", coded]


def test_empty_named_dimension_scores_zero():
    r = prof("race,x\nNA,1\n?,1\n", score_rule="v2")
    d = dim(r, "race")
    assert d["n_groups"] == 0 and d["min_share"] is None and d["imbalance_ratio"] is None
    assert r["overall_score"] == 0 and r["grade"] == "F"
    # v3: a dimension without rows is not scored, whatever min_group_size (SPEC 5)
    for size, least in ((100, "100 rows"), (0, "1 row")):
        r = prof("race,x\nNA,1\n?,1\n", min_group_size=size)
        d = dim(r, "race")
        assert (d["dimension_score"], d["score_ci"]) == (None, None)
        assert d["score_note"] == f"fewer than {least} (0)"
        assert (r["overall_score"], r["overall_ci"], r["grade"]) == (None, None, None)
        assert r["flags"][-1] == (
            "no dimension has enough rows to score (race); the grade is not given"
        )


def test_no_dimension_means_no_score():
    r = prof("id\n" + "\n".join(str(i) for i in range(25)) + "\n")
    assert r["overall_score"] is None and r["grade"] is None
    assert r["flags"] == ["no demographic column detected; declare one with --map COLUMN=KIND"]


def test_overall_score_is_mean_rounded_half_up():
    # sex uniform (100) + race 3:1 (81) -> 90.5 -> 91
    r = prof("sex,race\nM,A\nF,A\nM,A\nF,B\n", score_rule="v2")
    assert [d["dimension_score"] for d in r["dimensions"]] == [100, 81]
    assert r["overall_score"] == 91 and r["grade"] == "A"
    # v3, the same shares in 400 rows: sex 100 [100, 100] (exact balance: a point);
    # race 3:1 balance 0.811278, half = Z * sqrt(0.47106 / 400) = 0.0673: [74, 88].
    # Mean 90.5 -> 91, under the cap of the worst (81, B: 100); overall_ci is the mean of
    # each end, (100 + 74) / 2 = 87 and (100 + 88) / 2 = 94, under the caps of 74 (B: 100)
    # and 88 (A: 100)
    rows = "".join(f"{'MF'[i % 2]},{'A' if i < 300 else 'B'}\n" for i in range(400))
    r = prof("sex,race\n" + rows)
    assert [(d["dimension_score"], d["score_ci"]) for d in r["dimensions"]] == [
        (100, [100, 100]),
        (81, [74, 88]),
    ]
    assert (r["overall_score"], r["overall_ci"], r["grade"]) == (91, [87, 94], "A")


def test_numeric_age_bands_plausibility_and_skewness():
    ages = [
        "5",
        "17",
        "17.9",
        "18",
        "29",
        "30",
        "44.5",
        "45",
        "60",
        "75",
        "120",
        "121",
        "-1",
        "NA",
        "0",
    ]
    r = prof("age\n" + "\n".join(ages) + "\n")
    d = dim(r, "age")
    assert d["age_mode"] == "numeric"
    assert counts(r, "age") == {"0-17": 4, "18-29": 2, "30-44": 2, "45-59": 1, "60-74": 1, "75+": 2}
    assert d["implausible_count"] == 2 and d["missing_count"] == 3
    # 12 plausible ages are too few to score (v3, SPEC 5): the note follows the
    # dimension's own lines
    assert r["flags"] == [
        "age: 20.00% missing (2 implausible ages treated as missing)",
        "age: too few rows to score (fewer than 100 rows (12)); shares are shown",
        "no dimension has enough rows to score (age); the grade is not given",
    ]
    from scipy.stats import skew

    vals = [float(a) for a in ages if a not in ("NA", "121", "-1")]
    assert d["skewness"] == round_half_up(float(skew(vals, bias=True)), 4)


def test_age_options_max_age_and_bands():
    r = prof("age\n10\n50\n130\n", max_age=150, age_bands="0,40,100")
    assert counts(r, "age") == {"0-39": 1, "40-99": 1, "100+": 1}
    with pytest.raises(InputError, match=r"^age_bands: 5,10 is out of range"):
        prof("age\n1\n", age_bands="5,10")


def test_interval_ages_banded_only_when_each_fits_one_band():
    r = prof('age\n[60-70)\n[0-10)\n"(40, 44]"\n[10-18)\n[130-140)\n')
    d = dim(r, "age")
    assert d["age_mode"] == "interval" and d["skewness"] is None
    assert counts(r, "age") == {"60-74": 1, "0-17": 2, "30-44": 1}
    assert d["implausible_count"] == 1
    # [70-80) holds 70..79, across the 75 edge: the intervals are the groups (SPEC 2),
    # ordered by lower bound
    r = prof('age\n[70-80)\n[0-10)\n"(40, 50]"\n[10-20)\n[130-140)\n[0-10)\n')
    d = dim(r, "age")
    assert d["age_mode"] == "interval_as_written"
    assert [g["label"] for g in d["groups"]] == ["[0-10)", "[10-20)", "(40, 50]", "[70-80)"]
    assert d["max_share"] == 0.4 and d["implausible_count"] == 1


def test_mixed_or_text_ages_are_categorical():
    r = prof("age\n34\n[70-80)\n")
    assert dim(r, "age")["age_mode"] == "categorical"
    assert counts(r, "age") == {"34": 1, "[70-80)": 1}
    r = prof('age\n1e3\n+5\n"1,000"\n')
    assert dim(r, "age")["age_mode"] == "categorical"


def test_skewness_null_for_fewer_than_3_or_constant():
    assert dim(prof("age\n30\n40\n"), "age")["skewness"] is None
    assert dim(prof("age\n30\n30\n30.0\n"), "age")["skewness"] is None


def test_intersection_gaps_and_flags():
    rows = ["M,A"] * 150 + ["F,A"] * 100 + ["M,B"] * 2 + ["F,C"] * 10
    r = prof("sex,race\n" + "\n".join(rows) + "\n", min_share=0.0)
    inter = r["intersections"][0]
    assert inter["dims"] == ["sex", "race"] and inter["n_cells"] == 6
    # expected: the cell's count under independence, row total * column total / 262
    # (M 152, F 110; A 250, B 2, C 10): 152 * 10 / 262 = 5.80, 152 * 2 / 262 = 1.16,
    # 110 * 2 / 262 = 0.84 (SPEC 4)
    assert inter["cells"] == [
        {"a": "M", "b": "C", "count": 0, "share": 0.0, "expected": 5.8},
        {"a": "M", "b": "B", "count": 2, "share": 0.0076, "expected": 1.16},
        {"a": "F", "b": "B", "count": 0, "share": 0.0, "expected": 0.84},
    ]
    from scipy.stats.contingency import expected_freq

    table = [[150, 2, 0], [100, 0, 10]]  # M, F x A, B, C
    want = expected_freq(table)
    assert [c["expected"] for c in inter["cells"]] == [
        round_half_up(float(want[0][2]), 2),
        round_half_up(float(want[0][1]), 2),
        round_half_up(float(want[1][1]), 2),
    ]
    # SPEC 4: B (2 rows) and C (10) are below min_group_size (100): their 4 cells are
    # listed gaps but no test; the A cells are tested and not gaps
    assert r["flags"][-2:] == [
        "sex x race: 4 of 6 cells not tested: a group of fewer than 100 rows with both "
        "known, or under 1 row expected",
        # SPEC 1.7: A, B and C say nothing of who is who
        "race: labels A, C, B look like codes; the file does not say which group each "
        "stands for (name them with --recode race:A=NAME,C=NAME,...)",
    ]
    assert inter["cells_not_tested"] == 4
    assert not [f for f in r["findings"] if f["kind"] == "intersection_gap"]
    # With a floor of 1 row, F x B (0.84 expected) is still no test: absent is what
    # independence predicts
    r = prof("sex,race\n" + "\n".join(rows) + "\n", min_share=0.0, min_group_size=1)
    assert r["intersections"][0]["cells_not_tested"] == 1
    assert r["flags"][-4:-1] == [
        "sex x race: 'M' x 'C' is absent (0 rows)",
        "sex x race: 'M' x 'B' is near-empty (2 rows, 0.76%)",
        "sex x race: 1 of 6 cells not tested: under 1 row expected",
    ]


def test_cross_option_and_unknown_cross():
    data = "sex,race,region\nM,A,N\nF,B,S\n"
    r = prof(data, cross="region,sex")
    assert r["intersections"][0]["dims"] == ["region", "sex"]
    with pytest.raises(InputError) as err:  # SPEC 4: not in the header, as --map's
        prof(data, cross="sex,nope")
    assert str(err.value) == "cross: no column named 'nope' (columns: sex, race, region)"
    r = prof("sex,race,id\nM,A,1\nF,B,2\n", cross="sex,id")  # a column, not a dimension
    assert r["intersections"] == []
    # the cross note, then (2 rows are too few to score, v3) the no-grade note (SPEC 6)
    assert r["flags"][-2:] == [
        "cross: 'id' is not a profiled dimension",
        "no dimension has enough rows to score (sex, race); the grade is not given",
    ]


def test_more_than_ten_gaps_are_summarised():
    # M in 12 regions of 10 rows, F 100 rows in region 0: F's 11 other cells are absent,
    # each expected 100 * 10 / 220 = 4.5 rows
    rows = [f"M,{x}" for x in range(12) for _ in range(10)] + ["F,0"] * 100
    r = prof("sex,region\n" + "\n".join(rows) + "\n", intersection_floor=0, min_group_size=10)
    gap_flags = [f for f in r["flags"] if f.startswith("sex x region")]
    assert len(r["intersections"][0]["cells"]) == 11
    assert len(gap_flags) == 11
    assert gap_flags[-1] == "sex x region: 1 more sparse cells (the JSON lists all)"


def _pair_rows(table: dict[tuple[str, str], int]) -> str:
    return "sex,race\n" + "".join(f"{a},{b}\n" * c for (a, b), c in table.items())


def test_intersection_cells_of_a_group_below_the_floor_are_not_tested():
    """SPEC 4, 18: diabetic_data's gender 'Unknown/Invalid' (3 rows, 1 with a race) made
    its race cells "confirmed absent" and tripped --fail-on intersection_gap. A cell is
    tested only when both its groups hold min_group_size rows of the pair table and at
    least 1 row is expected; the others are listed, counted, and not in the family."""
    table = {("F", "A"): 400, ("M", "A"): 400, ("F", "B"): 100, ("M", "B"): 97, ("U", "A"): 1}
    text = _pair_rows(table) + "U,\n" * 2
    r = prof(text, {"sex": "sex", "race": "race"})
    inter = r["intersections"][0]
    assert inter["n_cells"] == 6 and inter["cells_not_tested"] == 2
    # the cells stay data: U x A (1 row) and U x B (absent) are gaps
    assert [(c["a"], c["b"], c["count"]) for c in inter["cells"]] == [("U", "A", 1), ("U", "B", 0)]
    assert not [f for f in r["findings"] if f["kind"] == "intersection_gap"]
    assert (
        "sex x race: 2 of 6 cells not tested: a group of fewer than 100 rows with both "
        "known, or under 1 row expected"
    ) in r["flags"]
    # the family: sex's 3 groups, imbalance and missing, race's 2 groups, imbalance and
    # missing (9), race's missing cells in F and M (2, SPEC 17.5), and the 4 tested cells
    assert r["evidence"]["tests"] == 9 + 2 + 4
    # with a floor of 1 row U's cells are still no test: 1 x 801 and 1 x 197 rows of 998
    # expect under 1 row
    low = prof(text, {"sex": "sex", "race": "race"}, min_group_size=1)
    assert low["intersections"][0]["cells_not_tested"] == 2
    assert not [f for f in low["findings"] if f["kind"] == "intersection_gap"]


def test_intersection_lists_the_first_ten_tested_gaps():
    """SPEC 4, 6: an untested gap stays in `cells` but is no finding; the findings are
    the first 10 tested gaps, the rest are in the "more" note and the family."""
    # M in 12 regions of 10 rows, F 100 rows in r0 and 1 in rs (last: 1 row)
    table = {("M", f"r{k:02}"): 10 for k in range(12)}
    table[("F", "r00")] = 100
    table[("F", "rs")] = 1
    r = prof(_pair_rows(table), {"race": "race"}, intersection_floor=0, min_group_size=10)
    inter = r["intersections"][0]
    # the first gap is M x rs (absent, rs 1 row: no test); F's r01-r11 are absent with
    # 100 * 10 / 221 = 4.5 expected: 11 tested gaps
    assert [(c["a"], c["b"]) for c in inter["cells"]][:2] == [("M", "rs"), ("F", "r01")]
    assert len(inter["cells"]) == 12 and inter["cells_not_tested"] == 2
    gaps = [f for f in r["findings"] if f["kind"] == "intersection_gap"]
    assert [f["groups"] for f in gaps] == [["F", f"r{k:02}"] for k in range(1, 11)]
    assert "sex x race: 1 more sparse cells (the JSON lists all)" in r["flags"]
    assert r["flags"][
        r["flags"].index("sex x race: 1 more sparse cells (the JSON lists all)") + 1
    ] == (
        "sex x race: 2 of 26 cells not tested: a group of fewer than 10 rows with both "
        "known, or under 1 row expected"
    )
