"""SPEC 13.1 and 18: the evidence functions against scipy and statsmodels, Holm's
correction, findings and their verdicts, and --fail-on."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest
from util import ROOT, data_file, multipletests, prof

import faircode
from faircode.errors import EXIT_FINDING
from faircode.evidence import Findings
from faircode.groupstats import _extremes, _summary_fields
from faircode.numerics import (
    Z,
    exp,
    holm,
    katz_interval,
    log_ratio_interval,
    newcombe,
    normal_upper,
    score_p,
    search_p,
    wilson_at,
    wilson_bounds,
)

SCHEMA = json.loads((ROOT / "faircode" / "schemas" / "profile.schema.json").read_text())


def test_the_normal_tail_matches_scipy_to_1e_12():
    zs = [i / 1000 for i in range(0, 40001)] + [2.9999999999, 3.0, 3.0000000001, Z, -1.5, -Z]
    worst = max(abs(normal_upper(z) - norm.sf(z)) for z in zs)
    assert worst < 1e-12
    # and relatively in the far tail, where the p-values of large tables live
    for z in (3.0, 5.0, 8.0, 12.0, 20.0, 30.0, 37.0):
        assert normal_upper(z) == pytest.approx(norm.sf(z), rel=1e-12)


@given(st.floats(-708, 709, allow_nan=False))
def test_exp_matches_the_platform_to_1e_12_relative(x):
    assert exp(x) == pytest.approx(math.exp(x), rel=1e-12)


def test_exp_is_zero_below_its_floor_and_exact_at_zero():
    assert exp(-709.0) == 0.0
    assert exp(0.0) == 1.0


counts_pairs = st.integers(1, 5000).flatmap(
    lambda n1: st.tuples(
        st.integers(0, n1),
        st.just(n1),
        st.integers(1, 5000).flatmap(lambda n2: st.tuples(st.integers(0, n2), st.just(n2))),
    )
)


@given(counts_pairs, st.sampled_from([0.05, 0.01, 0.2]))
def test_newcombe_matches_statsmodels_to_1e_12(pair, alpha):
    c1, n1, (c2, n2) = pair
    z = norm.isf(alpha / 2)
    lo, hi = newcombe(c1, n1, c2, n2, z)
    want = confint_proportions_2indep(c1, n1, c2, n2, method="newcomb", alpha=alpha)
    assert lo == pytest.approx(want[0], abs=1e-12)
    assert hi == pytest.approx(want[1], abs=1e-12)


@given(counts_pairs)
def test_the_log_ratio_interval_matches_statsmodels_to_1e_12(pair):
    c1, n1, (c2, n2) = pair
    got = log_ratio_interval(c1, n1, c2, n2, Z)
    if c1 == 0 or c2 == 0:
        assert got is None
        return
    want = confint_proportions_2indep(c1, n1, c2, n2, compare="ratio", method="log")
    assert got[0] == pytest.approx(want[0], rel=1e-12)
    assert got[1] == pytest.approx(want[1], rel=1e-12)


@given(
    st.integers(1, 20000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.floats(0.001, 0.999),
    st.booleans(),
)
def test_score_p_is_the_score_test_and_agrees_with_wilson(cn, t, below):
    c, n = cn
    p = score_p(c, n, t, below)
    z = (t - c / n) / math.sqrt(t * (1 - t) / n) * (1 if below else -1)
    if z <= 0:
        assert p == 1.0
        return
    # statsmodels' score test (variance at the null value), two-sided
    stat, two_sided = proportions_ztest(c, n, value=t, prop_var=t)
    assert p == pytest.approx(min(1.0, two_sided), abs=1e-12)
    lo, hi = wilson_bounds(c, n)
    if abs(p - 0.05) > 1e-9:  # the Wilson bound meets t exactly at p = 0.05
        assert (p < 0.05) == ((hi < t) if below else (lo > t))


@given(counts_pairs, st.sampled_from([0.0, 0.05, 0.1, 0.2]))
def test_search_p_inverts_newcombes_lower_bound(pair, gap):
    c1, n1, (c2, n2) = pair
    p = search_p(lambda z: newcombe(c1, n1, c2, n2, z)[0] > gap)
    lo95 = newcombe(c1, n1, c2, n2, Z)[0]
    if abs(lo95 - gap) > 1e-9:
        assert (p < 0.05) == (lo95 > gap)
    if 1e-300 < p < 1:
        # at the p's own level the interval's end sits on the threshold
        z = norm.isf(p / 2)
        assert newcombe(c1, n1, c2, n2, z)[0] == pytest.approx(gap, abs=1e-9)


# util.multipletests: statsmodels' own, without its full garbage collection per call
# (which made this property cost 111 s of the run at the profile's 500 examples)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.integers(0, 20))
def test_holm_matches_statsmodels_with_the_rest_of_the_family_at_1(ps, extra):
    m = len(ps) + extra
    got = holm(ps, m)
    want = multipletests(ps + [1.0] * extra, method="holm")[1][: len(ps)]
    for g, w in zip(got, want):
        assert g == pytest.approx(w, abs=1e-12)


def test_findings_with_multiplicities_equal_holm_on_the_expanded_family():
    fs = Findings()
    fs.tests = 50
    entries = [
        fs.finding(
            "missing",
            f"t{i}",
            dims=[],
            groups=[],
            value=0.1,
            n=10,
            interval=(0, 1),
            threshold=0.05,
            p=p,
        )
        for i, p in enumerate([0.001, 0.02, 0.0004])
    ]
    fs.unlisted(0.0001, 3)
    fs.unlisted(0.03, 2)
    _, ev = fs.close(0.05)
    expanded = [0.001, 0.02, 0.0004, 0.0001, 0.0001, 0.0001, 0.03, 0.03]
    want = holm(expanded, 50)
    assert [e["p"] for e in entries] == [round(w, 4) for w in want[:3]]
    assert ev["tests"] == 50
    assert ev["confirmed"] + ev["possible"] == 8
    assert ev["confirmed"] == sum(1 for w in want if w < 0.05)


def test_compas_label_gap_has_its_interval_and_verdict_and_skips_small_groups():
    r = faircode.profile(
        str(ROOT / "faircode" / "data" / "compas-scores-two-years.csv"),
        opts={"label": "two_year_recid"},
    )
    race = next(d for d in r["label_rates"]["dimensions"] if d["name"] == "race")
    assert (race["highest"], race["lowest"]) == ("African-American", "Other")
    g = {x["label"]: x for x in race["groups"]}
    assert (g["African-American"]["n"], g["African-American"]["positive"]) == (3696, 1901)
    assert (g["Other"]["n"], g["Other"]["positive"]) == (377, 133)
    lo, hi = confint_proportions_2indep(1901, 3696, 133, 377, method="newcomb")
    assert race["gap"]["ci_low"] == round(lo, 4) and race["gap"]["ci_high"] == round(hi, 4)
    rlo, rhi = confint_proportions_2indep(133, 377, 1901, 3696, compare="ratio", method="log")
    assert race["gap"]["ratio_ci_low"] == round(rlo, 4)
    assert race["gap"]["ratio_ci_high"] == round(rhi, 4)
    # hand computation of the lower end: p1 - p2 - sqrt((p1 - l1)^2 + (u2 - p2)^2)
    p1, p2 = 1901 / 3696, 133 / 377
    l1 = wilson_at(1901, 3696, Z)[0]
    u2 = wilson_at(133, 377, Z)[1]
    assert newcombe(1901, 3696, 133, 377, Z)[0] == pytest.approx(
        p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), abs=1e-12
    )
    assert race["gap"]["verdict"] in ("confirmed", "possible")
    gaps = [f for f in r["findings"] if f["kind"] == "label_gap"]
    assert gaps and not any(
        lab in ("Native American", "Asian") for f in gaps for lab in f["groups"]
    )
    other = next(f for f in gaps if f["groups"][0] == "Other")
    assert other["verdict"] == race["gap"]["verdict"]
    assert other["n"] == 377 and other["ci_low"] == round(lo, 4)
    jsonschema.validate(r, SCHEMA)


def test_every_flag_is_a_finding_text_and_the_counts_add_up():
    r = faircode.profile(
        str(ROOT / "faircode" / "data" / "compas-scores-two-years.csv"),
        opts={"label": "two_year_recid"},
    )
    assert r["flags"] == [f["text"] for f in r["findings"]]
    listed = [f for f in r["findings"] if f["severity"] == "finding"]
    ev = r["evidence"]
    assert ev["confirmed"] >= sum(f["verdict"] == "confirmed" for f in listed)
    assert ev["confirmed"] + ev["possible"] >= len(listed)
    assert ev["tests"] >= ev["confirmed"] + ev["possible"]
    for f in listed:  # p is rounded to 4 dp; away from alpha it decides the verdict
        if f["p"] < 0.0499:
            assert f["verdict"] == "confirmed", f
        elif f["p"] > 0.0501:
            assert f["verdict"] == "possible", f
    for f in r["findings"]:
        if f["severity"] == "note":
            assert f["verdict"] is None and f["p"] is None


def test_a_smaller_alpha_confirms_no_more_than_a_larger_one():
    path = str(ROOT / "faircode" / "data" / "compas-scores-two-years.csv")
    loose = faircode.profile(path, opts={"label": "two_year_recid", "alpha": 0.2})
    strict = faircode.profile(path, opts={"label": "two_year_recid", "alpha": 0.001})
    assert strict["evidence"]["confirmed"] < loose["evidence"]["confirmed"]
    assert strict["evidence"]["tests"] == loose["evidence"]["tests"]


def test_an_under_represented_group_whose_interval_reaches_min_share_is_possible():
    # 94 A, 6 B in 100 rows: B's share 6% is not below 5%; 96/4: 4%, Wilson to 9.8%
    rows = "g\n" + "A\n" * 96 + "B\n" * 4
    r = prof(rows, {"g": "sex"}, min_group_size=50)
    f = next(f for f in r["findings"] if f["kind"] == "under_represented")
    assert f["verdict"] == "possible" and f["ci_high"] > 0.05
    rows = "g\n" + "A\n" * 9990 + "B\n" * 10
    r = prof(rows, {"g": "sex"})
    f = next(f for f in r["findings"] if f["kind"] == "under_represented")
    assert f["verdict"] == "confirmed" and f["ci_high"] < 0.05


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "faircode", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_fail_on_exits_4_on_a_confirmed_finding_of_a_named_kind():
    hit = _cli("profile", "--sample", "--fail-on", "imbalance,missing")
    assert hit.returncode == EXIT_FINDING == 4
    assert "confirmed finding" in hit.stderr and "imbalance ratio" in hit.stderr
    miss = _cli("profile", "--sample", "--fail-on", "reference_gap")
    assert miss.returncode == 0, miss.stderr
    bad = _cli("profile", "--sample", "--fail-on", "imbalanced")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "'imbalanced' is not a kind of finding" in bad.stderr
    # --fail-under is checked first and keeps its exit code
    both = _cli("profile", "--sample", "--fail-on", "any", "--fail-under", "99")
    assert both.returncode == 1


def test_adult_findings_validate_and_the_json_flags_are_the_texts():
    from util import ADULT_NAMES

    r = faircode.profile(str(data_file("adult.data")), opts={"names": ADULT_NAMES})
    jsonschema.validate(r, SCHEMA)
    assert r["flags"] == [f["text"] for f in r["findings"]]


def test_the_schemas_list_the_kinds_the_engine_defines():
    """One home for the kinds (SPEC 18, 18.1): each schema's enum is evidence.py's tuple."""
    import json
    from importlib import resources

    from faircode.evidence import (
        COMPARE_FINDING_KINDS,
        COMPARE_NOTE_KINDS,
        FINDING_KINDS,
        NOTE_KINDS,
    )

    for name, kinds in (
        ("profile", FINDING_KINDS + NOTE_KINDS),
        ("compare", COMPARE_FINDING_KINDS + COMPARE_NOTE_KINDS),
    ):
        schema = json.loads(
            (resources.files("faircode") / "schemas" / f"{name}.schema.json").read_text()
        )
        enum = schema["properties"]["findings"]["items"]["properties"]["kind"]["enum"]
        assert enum == list(kinds), name


def test_score_p_at_a_subnormal_threshold_is_the_limit():
    """SPEC 13.1: t * (1 - t) / n underflows to 0 at t = 5e-324, so the score statistic
    is infinite: p = 0 when the share is beyond t, 1 when it is not (JS divides to +-inf
    or NaN and gets the same; tests/js/evidence.test.js). Deep parity found the raise."""
    assert score_p(26, 26, 5e-324, False) == 0.0  # 100% is above t
    assert score_p(0, 26, 5e-324, False) == 1.0  # 0% is not above t
    assert score_p(0, 3, 5e-324, True) == 0.0  # 0% is below t
    assert score_p(3, 3, 5e-324, True) == 1.0


def _haldane(c1: int, n1: int, c2: int, n2: int) -> tuple[float, float]:
    """statsmodels' Katz log interval, of c + 0.5 of n + 1 widened to hold the ratio when
    a cell of the 2 x 2 table is zero (Haldane and Anscombe's correction, SPEC 13.1)."""
    if 0 < c1 < n1 and c2 < n2:
        lo, hi = confint_proportions_2indep(c1, n1, c2, n2, compare="ratio", method="log")
        return lo, hi
    lo, hi = confint_proportions_2indep(
        c1 + 0.5, n1 + 1, c2 + 0.5, n2 + 1, compare="ratio", method="log"
    )
    ratio = (c1 / n1) / (c2 / n2)
    return min(lo, ratio), max(hi, ratio)


@pytest.mark.parametrize(
    "table",
    [
        (0, 20, 9, 20),
        (0, 200, 1, 3),
        (20, 20, 20, 20),
        (19, 20, 30, 30),
        (30, 30, 19, 20),
        (0, 5, 5, 5),
        (3, 40, 17, 40),
        (1, 1, 1, 2),
    ],
)
def test_the_corrected_katz_interval_matches_statsmodels_to_1e_12(table):
    got = katz_interval(*table, Z)
    want = _haldane(*table)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def _ratio_coverage(p: tuple[float, float], n: int, draws: int, seed: int) -> float:
    """The share of seeded draws of two groups of n rows with true rates p whose label-rate
    gap's ratio interval (SPEC 17.4: lowest over highest) holds the true ratio of those two
    groups' rates; a missing interval is a miss. Draws with no ratio (no positives) skip."""
    rng = random.Random(seed)
    hit = tried = 0
    for _ in range(draws):
        items = [(k, n, sum(rng.random() < p[k] for _ in range(n))) for k in (0, 1)]
        ext = _extremes(items, 1)
        fields = _summary_fields(items, ext, lambda k: k, 0.1, 1)
        if fields["min_ratio"] is None:
            continue
        tried += 1
        true = p[fields["lowest"]] / p[fields["highest"]]
        gap = fields["gap"]
        if gap["ratio_ci_low"] is not None and gap["ratio_ci_low"] <= true <= gap["ratio_ci_high"]:
            hit += 1
    return hit / tried


@pytest.mark.parametrize(
    ("p", "n"),
    [
        ((0.995, 1.0), 20),
        ((0.995, 1.0), 200),
        ((0.97, 0.99), 30),
        ((0.005, 0.3), 20),
        ((0.01, 0.5), 50),
        ((0.02, 0.2), 100),
    ],
)
def test_the_label_rate_ratio_interval_covers_rates_near_0_and_1(p, n):
    # Katz's interval was [1, 1] for two groups all positive and missing for a lowest
    # group with none: coverage 10-65% in these cases (SPEC 17.4)
    assert _ratio_coverage(p, n, 400, 20261206) >= 0.9
