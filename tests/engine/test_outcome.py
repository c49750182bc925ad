"""SPEC 21: numeric outcome columns by group, checked against pandas and scipy (never
against either engine's output), and the special functions of 21.5 against scipy."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from util import data_file

import faircode
from faircode import InputError
from faircode import numerics as N
from faircode.options import resolve
from faircode.summary import SummaryBuilder

COMPAS = data_file("compas-scores-two-years.csv")
TOL = 1e-12


def close(a: float, b: float, tol: float = TOL) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(b))


# ---- 21.5: Student's t, written with basic operations ----------------------------


@pytest.mark.parametrize("df", [1, 1.5, 2, 3, 4.7, 10, 19.5, 20, 29, 50, 100, 1000, 3500.3, 1e5])
def test_t_tail_and_quantile_equal_scipy(df):
    for t in [0.01, 0.5, 1, 1.96, 2, 3, 5, 10, 40, 100]:
        assert abs(N.t_upper(t, df) - stats.t.sf(t, df)) < 1e-13
        assert abs(N.t_upper(-t, df) - stats.t.sf(-t, df)) < 1e-13
    for p in (0.025, 0.005, 0.25):
        assert abs(N.t_quantile(p, df) - stats.t.isf(p, df)) < TOL


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 8, 9, 10, 17, 30, 49, 50, 99, 100, 120])
def test_chi2_tail_equals_scipy(df):
    # SPEC 21.5: the drift test's tail (SPEC 8), relative, down to tails of 1e-300
    for x in [1e-3, 0.1, 0.5, 1, 2, 3.84, 5, 10, 20, 35, 60, 100, 150, 250, 400, 700, 1000]:
        want = stats.chi2.sf(x, df)
        if want > 1e-300:
            assert abs(N.chi2_upper(x, df) - want) <= 1e-12 * want, (df, x)
    assert N.chi2_upper(0.0, df) == 1.0


def test_lnbeta_half_holds_where_scipy_loses_digits():
    # ln B(a, 1/2) = ln sqrt(pi) - (ln Gamma(a + 1/2) - ln Gamma(a)); the asymptotic series
    # 1/2 ln a - 1/(8a) + 1/(192 a^3) is exact to 1e-20 at a = 5e5, where scipy's betaln
    # (a difference of two lgammas near 6e6) is off by 2e-10.
    a = 5e5
    want = 0.5723649429247001 - (0.5 * math.log(a) - 1 / (8 * a) + 1 / (192 * a**3))
    assert abs(N.lnbeta_half(a) - want) < 1e-14
    for a in (0.5, 1, 2.5, 19.9, 20, 37.3):
        assert abs(N.lnbeta_half(a) - special.betaln(a, 0.5)) < 1e-13


def test_welch_df_equals_the_textbook_formula():
    for va, na, vb, nb in [(2.0, 10, 3.0, 20), (1e-3, 5000, 7.5, 3), (4.0, 2, 4.0, 2)]:
        sa, sb = va / na, vb / nb
        want = (sa + sb) ** 2 / (sa * sa / (na - 1) + sb * sb / (nb - 1))
        assert close(N.welch_df(va, na, vb, nb), want)
    assert N.welch_df(0.0, 5, 0.0, 7) is None


def test_exact_moments_are_the_correctly_rounded_values():
    from fractions import Fraction

    vals = [0.1, 0.2, 0.3, 1e10, -1e10, 3.0, 1e-7]
    n = len(vals)
    s1 = sum(N.scaled(v)[0] for v in vals)
    s2 = sum(N.scaled(v)[1] for v in vals)
    exact = [Fraction(v) for v in vals]
    mean = sum(exact) / n
    var = sum((x - mean) ** 2 for x in exact) / (n - 1)
    assert N.exact_mean(n, s1) == float(mean)
    assert N.exact_var(n, s1, s2) == float(var)


# ---- 21.2: what reading keeps ------------------------------------------------------


def test_values_outside_the_grammar_or_range_are_non_numeric():
    data = 'sex,y\nM,1\nF,2.5\nM,abc\nF,\nM,1e200\nF,-0\nM, +3 \nF,"1,5"\nM,.5\n'
    r = faircode.profile(
        io.BytesIO(data.encode()), overrides={"sex": "sex"}, opts={"outcome": "y"}, name="t"
    )
    o = r["outcomes"][0]
    assert (o["n"], o["missing"], o["non_numeric"]) == (5, 1, 3)
    assert o["mean"] == (1 + 2.5 + 0 + 3 + 0.5) / 5
    texts = [f["text"] for f in r["findings"] if f["kind"] == "outcome_missing"]
    assert texts == [
        "y: 1 row with a missing value is left out of the means",
        "y: 3 rows with a non-numeric value are left out of the means",
    ]


def test_sums_are_the_same_whatever_the_batch_size():
    rng = np.random.default_rng(3)
    rows = [
        [rng.choice(["a", "b", "c"]), rng.choice(["x", "y"]), repr(float(v))]
        for v in rng.normal(50, 20, 700)
    ]
    opts = resolve({"outcome": ["v"]})
    whole = SummaryBuilder("t", ["g", "h", "v"], {"g": "race", "h": "sex"}, opts)
    whole.add_rows(rows)
    parts = [
        SummaryBuilder("t", ["g", "h", "v"], {"g": "race", "h": "sex"}, opts) for _ in range(3)
    ]
    for k, b in enumerate(parts):
        for start in range(k * 250, min(700, (k + 1) * 250), 37):
            b.add_rows(rows[start : min(start + 37, (k + 1) * 250, 700)])
    merged = parts[0].finish().merge(parts[1].finish()).merge(parts[2].finish())
    assert merged == whole.finish()


@pytest.mark.parametrize(
    "opts, message",
    [
        ({"outcome": "nope"}, "outcome: no column named 'nope'"),
        ({"outcome": ["y", " y "]}, "outcome: 'y' is given twice"),
        ({"outcome": ""}, "outcome: give a column name"),
        ({"outcome": "y", "label": "y"}, "outcome y: the label column cannot also be an outcome"),
        ({"outcome": "y", "outcome_gap": -1}, "outcome_gap: -1 is out of range (0..1e+140)"),
    ],
)
def test_outcome_input_errors(opts, message):
    with pytest.raises(InputError) as err:
        faircode.profile(io.BytesIO(b"sex,y\nM,1\nF,2\n"), opts=opts, name="t")
    assert str(err.value).startswith(message)


def test_an_outcome_column_cannot_be_mapped():
    with pytest.raises(
        InputError, match="outcome y: an outcome column cannot also be given to overrides"
    ):
        faircode.profile(
            io.BytesIO(b"sex,y\nM,1\nF,2\n"),
            overrides={"y": "age"},
            opts={"outcome": "y"},
            name="t",
        )


# ---- 21.3 on COMPAS: priors_count by race and sex, against pandas and scipy ---------


@pytest.fixture(scope="module")
def compas():
    df = pd.read_csv(COMPAS)
    result = faircode.profile(str(COMPAS), opts={"outcome": ["priors_count"]})
    return df, result


def _dim(block: dict, name: str) -> dict:
    return next(d for d in block["dimensions"] if d["name"] == name)


@pytest.mark.parametrize("dim", ["race", "sex"])
def test_compas_means_intervals_and_welch_equal_pandas_and_scipy(compas, dim):
    df, result = compas
    block = result["outcomes"][0]
    y = df["priors_count"].astype(float)  # pandas names the repeated header priors_count.1
    assert block["n"] == len(y) and block["missing"] == block["non_numeric"] == 0
    assert close(block["mean"], y.mean()) and close(block["sd"], y.std(ddof=1))
    lo, hi = stats.t.interval(0.95, len(y) - 1, loc=y.mean(), scale=stats.sem(y))
    assert close(block["ci_low"], lo) and close(block["ci_high"], hi)
    entry = _dim(block, dim)
    by = df.groupby(dim)["priors_count"]
    for g in entry["groups"]:
        vals = by.get_group(g["label"]).astype(float)
        assert g["n"] == len(vals)
        assert close(g["mean"], vals.mean())
        assert close(g["sd"], vals.std(ddof=1))
        lo, hi = stats.t.interval(0.95, len(vals) - 1, loc=vals.mean(), scale=stats.sem(vals))
        assert close(g["ci_low"], lo) and close(g["ci_high"], hi)
        assert g["small_group"] == (len(vals) < 100)
    # highest and lowest among groups of at least min_group_size (100) rows
    big = {k: v.astype(float) for k, v in by if len(v) >= 100}
    means = {k: v.mean() for k, v in big.items()}
    high, low = max(means, key=means.get), min(means, key=means.get)
    assert (entry["highest"], entry["lowest"]) == (high, low)
    res = stats.ttest_ind(big[high], big[low], equal_var=False)
    ci = res.confidence_interval(0.95)
    gap = entry["gap"]
    assert close(gap["difference"], means[high] - means[low])
    assert close(gap["ci_low"], ci.low) and close(gap["ci_high"], ci.high)
    assert close(gap["df"], res.df)
    # SPEC 21.3: the groups Welch's interval does not tell from the lowest, in group order
    alike = [
        g["label"]
        for g in entry["groups"]
        if g["label"] in big
        and g["label"] != low
        and stats.ttest_ind(big[g["label"]], big[low], equal_var=False)
        .confidence_interval(0.95)
        .low
        <= 0
    ]
    assert gap["lowest_alike"] == alike
    # the threshold: outcome_gap (0.2) times the column's standard deviation
    assert close(block["threshold"], 0.2 * y.std(ddof=1))


def test_compas_outcome_gap_p_is_welchs_test_beyond_the_threshold(compas):
    df, result = compas
    block = result["outcomes"][0]
    entry = _dim(block, "sex")
    t = block["threshold"]
    hi = df[df.sex == entry["highest"]]["priors_count"].astype(float)
    lo = df[df.sex == entry["lowest"]]["priors_count"].astype(float)
    res = stats.ttest_ind(hi - t, lo, equal_var=False, alternative="greater")
    raw = min(1.0, 2 * res.pvalue)
    finding = next(
        f for f in result["findings"] if f["kind"] == "outcome_gap" and f["dimensions"] == ["sex"]
    )
    m = result["evidence"]["tests"]
    # Holm's adjusted p lies between the raw p and m times it (SPEC 18)
    assert round(raw, 4) <= finding["p"] + 1e-4 and finding["p"] <= min(1.0, m * raw) + 1e-4
    assert finding["groups"] == [entry["lowest"], entry["highest"]]
    assert finding["n"] == len(lo)
    assert finding["text"] == (
        f"sex: mean priors_count {lo.mean():.2f} for 'Female' vs {hi.mean():.2f} for 'Male'"
    )


def test_compas_intersection_cells_equal_pandas(compas):
    df, result = compas
    inter = result["outcomes"][0]["intersection"]
    assert inter["dims"] == ["sex", "age"]
    cell = next(c for c in inter["cells"] if (c["a"], c["b"]) == ("Female", "30-44"))
    vals = df[(df.sex == "Female") & (df.age.between(30, 44))]["priors_count"].astype(float)
    assert cell["n"] == len(vals)
    assert close(cell["mean"], vals.mean()) and close(cell["sd"], vals.std(ddof=1))


# ---- 21.4: renderers ---------------------------------------------------------------


def test_terminal_and_markdown_show_the_outcome_like_label_rates(compas):
    from faircode.exports import render_profile_markdown
    from faircode.render import render

    _, result = compas
    text = render(result, "compas")
    assert "Outcome: priors_count: mean 3.47 [3.36-3.59], sd 4.88, of 7214 rows" in text
    assert (
        "  sex: highest 'Male', lowest 'Female': difference 1.48 [1.25-1.71] "
        "(Welch, df 2860.8); confirmed" in text
    )
    # a finding's interval is in the column's units, not a percentage
    assert "vs 3.76 for 'Male'  (95% CI 1.25 to 1.71, n=1,395)" in text
    md = render_profile_markdown(result, name="compas")
    assert "#### Outcome: priors\\_count" in md
    assert "| sex | Male | Female | 1.48 [1.25, 1.71] confirmed | 2860.8 |" in md
    assert "| sex | Male | 5819 | 3.76 | 3.63-3.89 | 5.10 | 0 | highest |" in md


def test_the_cli_takes_outcome_flags(tmp_path):
    import json
    import subprocess
    import sys

    data = tmp_path / "t.csv"
    data.write_text("sex,y,z\n" + "".join(f"{'MF'[i % 2]},{i % 7},{i}\n" for i in range(300)))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "faircode",
            "profile",
            str(data),
            "--outcome",
            "y",
            "--outcome",
            "z",
            "--outcome-gap",
            "0.5",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    assert [b["column"] for b in result["outcomes"]] == ["y", "z"]
    assert result["provenance"]["params"]["outcome"] == ["y", "z"]
    assert result["provenance"]["params"]["outcome_gap"] == 0.5


# ---- 21.2 on Arrow-read inputs: Parquet, a pyarrow Table, a polars frame ----------


def test_arrow_inputs_keep_the_sums_of_the_csv_reader(tmp_path):
    """Parquet (as text and typed), a pyarrow Table and a polars frame of COMPAS give the
    CSV reader's outcome block; the typed means are those of pandas."""
    pytest.importorskip("pyarrow")
    opts = {"outcome": ["priors_count", "decile_score"], "label": "two_year_recid"}
    want = faircode.profile(COMPAS, opts=opts)
    text = pd.read_csv(COMPAS, dtype=str, keep_default_na=False)
    text.to_parquet(tmp_path / "text.parquet")
    assert faircode.profile(tmp_path / "text.parquet", opts=opts) == want
    typed = pd.read_csv(COMPAS)  # ints stay ints: the same labels as the CSV's
    typed.to_parquet(tmp_path / "typed.parquet")
    got = faircode.profile(tmp_path / "typed.parquet", opts=opts)
    assert got["outcomes"] == want["outcomes"]
    race = _dim(got["outcomes"][0], "race")
    for g in race["groups"]:
        vals = typed[typed.race == g["label"]]["priors_count"]
        assert g["n"] == len(vals) and g["mean"] == vals.sum() / len(vals)
        assert close(g["sd"], vals.std(ddof=1))
    pl = pytest.importorskip("polars")
    assert faircode.profile(pl.from_pandas(typed), opts=opts)["outcomes"] == want["outcomes"]


def test_arrow_outcome_cells_follow_the_label_rules_in_any_batch():
    """Typed cells (NaN, null, -0.0, inf, out of range, float32), padded and non-numeric
    text and a recode, over three record batches: the pandas frame's sums (the reference
    builder), and the mean is the exact one."""
    pa = pytest.importorskip("pyarrow")
    from fractions import Fraction

    n = 90
    sex = [["F", "M", "X"][k % 3] for k in range(n)]
    y = [[1.5, None, math.nan, -0.0, math.inf, 1e200, 0.1, 3.0, 1e-7][k % 9] for k in range(n)]
    z = [[" 3 ", "abc", "", "NA", "1e5", "-2", "99", ".5"][k % 8] for k in range(n)]
    schema = pa.schema([("sex", pa.string()), ("y", pa.float64()), ("z", pa.string())])
    batches = [
        pa.record_batch([pa.array(c[a:b]) for c in (sex, y, z)], schema=schema)
        for a, b in ((0, 31), (31, 32), (32, n))
    ]
    table = pa.Table.from_batches(batches)
    opts = {"outcome": ["y", "z"], "recode": [["z", "99", "NA"]]}
    got = faircode.profile(table, opts=opts)
    frame = pd.DataFrame({"sex": sex, "y": y, "z": z}, dtype=object)
    assert got["outcomes"] == faircode.profile(frame, opts=opts)["outcomes"]
    y_block, z_block = got["outcomes"]
    numeric = [v for v in y if v is not None and not math.isnan(v) and abs(v) <= 1e140]
    assert (y_block["n"], y_block["missing"], y_block["non_numeric"]) == (
        len(numeric),
        20,  # None and NaN
        20,  # inf and 1e200
    )
    assert y_block["mean"] == float(sum(map(Fraction, numeric)) / len(numeric))
    z_values = [float(s) for s in z if s.strip() not in ("abc", "", "NA", "99")]
    assert (z_block["n"], z_block["non_numeric"]) == (len(z_values), 12)
    assert z_block["mean"] == float(sum(map(Fraction, z_values)) / len(z_values))


def _tied(opts: dict) -> dict:
    rows = "sex,race,v,y\n" + "Male,White,5,1\n" * 150 + "Female,Black,5,1\n" * 150
    return faircode.profile(io.BytesIO(rows.encode()), opts=opts, name="t")


@pytest.mark.parametrize("gap", [None, 0])
def test_tied_groups_are_two_groups_and_a_zero_gap_is_within(gap):
    """SPEC 17.4, 21.3, 18: when every compared group ties, highest and lowest are the
    first two compared groups (never one group against itself); a difference of 0 with
    the interval [0, 0] is `within`, also at threshold 0 (a constant column's sd is 0)."""
    opts = {"outcome": ["v"], "label": "y", "positive": "1"}
    if gap is not None:
        opts |= {"outcome_gap": gap, "label_gap": gap}
    r = _tied(opts)
    block = r["outcomes"][0]
    assert block["threshold"] == 0.0
    sex = _dim(block, "sex")
    assert [sex["highest"], sex["lowest"]] == ["Female", "Male"]
    assert sex["gap"] == {
        "difference": 0.0,
        "ci_low": 0.0,
        "ci_high": 0.0,
        "df": None,
        "verdict": "within",
        "lowest_alike": ["Female"],  # equal constant means: the point interval [0, 0]
    }
    inter = block["intersection"]
    assert [inter["highest"], inter["lowest"]] == [["Female", "Black"], ["Male", "White"]]
    assert inter["gap"]["verdict"] == "within"
    rates = next(d for d in r["label_rates"]["dimensions"] if d["name"] == "sex")
    assert [rates["highest"], rates["lowest"]] == ["Female", "Male"]
    # Newcombe's interval of 150/150 against 150/150 reaches 2.5 points above 0: at a
    # label gap of 0 the data cannot rule a gap out (possible), at 0.05 they do
    assert rates["gap"]["ci_high"] == 0.025
    assert rates["gap"]["verdict"] == ("possible" if gap == 0 else "within")


def test_a_tie_of_means_with_a_spread_stays_possible_at_threshold_0():
    """SPEC 18: at threshold 0 only the point interval [0, 0] is within; equal means
    whose interval reaches above 0 are possible, as before."""
    rows = "sex,v\n" + "M,4\nM,6\n" * 75 + "F,5\nF,3\nF,7\n" * 50
    r = faircode.profile(io.BytesIO(rows.encode()), opts={"outcome": ["v"], "outcome_gap": 0})
    sex = _dim(r["outcomes"][0], "sex")
    assert sex["gap"]["difference"] == 0.0 and sex["gap"]["ci_high"] > 0
    assert sex["highest"] != sex["lowest"] and sex["gap"]["verdict"] == "possible"
