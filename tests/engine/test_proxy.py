"""Proxy hints (SPEC 16): the statistics equal scipy's and statsmodels' on hand-made
tables and on COMPAS (an independent pandas crosstab of the raw file), held-out columns
by row order and by key, the exact option, fast path = reference reader, and without
--proxy-hints the result is main's, byte for byte."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import random
import subprocess
import sys

import pytest
from util import ADULT_NAMES, ROOT, data_file

import faircode
from faircode.cli import main
from faircode.errors import InputError
from faircode.numerics import round_half_up
from faircode.options import resolve
from faircode.proxy import adjust, anova_test, chi2_test, round_p
from faircode.render import to_json

np = pytest.importorskip("numpy")
stats = pytest.importorskip("scipy.stats")
pd = pytest.importorskip("pandas")
multitest = pytest.importorskip("statsmodels.stats.multitest")

COMPAS = data_file("compas-scores-two-years.csv")
PAIR_KEYS = [
    "a",
    "b",
    "chi2",
    "dof",
    "p_value",
    "p_adjusted",
    "cramers_v",
    "n",
    "significant",
    "small_expected",
    "method",
]


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ hand-made tables

TABLES = [
    [[10, 20], [30, 5]],
    [[3, 1], [1, 3]],
    [[12, 7, 9], [4, 15, 11], [8, 8, 30]],
    [[100, 1, 0, 4], [90, 3, 2, 6]],
    [[500, 480], [510, 470]],
]


@pytest.mark.parametrize("table", TABLES)
def test_chi2_and_cramers_v_equal_scipy(table):
    got = chi2_test(table, resolve({}))
    obs = np.array(table)
    chi2, p, dof, expected = stats.chi2_contingency(obs, correction=False)
    assert got["chi2"] == pytest.approx(chi2, rel=1e-12)
    assert got["p_value"] == pytest.approx(p, rel=1e-12)
    assert got["dof"] == dof
    assert got["n"] == obs.sum()
    v = stats.contingency.association(obs, method="cramer", correction=False)
    assert got["cramers_v"] == pytest.approx(v, rel=1e-12)
    cochran = (expected < 1).any() or (expected < 5).mean() > 0.2
    assert got["small_expected"] == bool(cochran)
    assert got["method"] == "chi2"


def test_small_expected_is_cochrans_rule():
    opts = resolve({})
    # expected all 25: fine; a 2x2 with one expected cell of 4.5 (25% of cells < 5): small
    assert not chi2_test([[25, 25], [25, 25]], opts)["small_expected"]
    assert chi2_test([[5, 4], [45, 46]], opts)["small_expected"]
    # 10 cells, exactly 2 (20%) expected below 5 and none below 1: not small
    table = [[20, 20, 20, 20, 4], [20, 20, 20, 20, 4]]
    exp = stats.contingency.expected_freq(np.array(table))
    assert (exp < 5).sum() == 2 and (exp >= 1).all()
    assert not chi2_test(table, opts)["small_expected"]
    # any expected below 1: small
    assert chi2_test([[200, 1], [200, 0]], opts)["small_expected"]


def test_fisher_exact_for_2x2():
    opts = resolve({"proxy_hints": True, "proxy_exact": True})
    for table in ([[10, 20], [30, 5]], [[3, 1], [1, 3]], [[8, 2], [1, 5]]):
        got = chi2_test(table, opts)
        assert got["method"] == "fisher"
        assert got["p_value"] == pytest.approx(stats.fisher_exact(table).pvalue, rel=1e-12)
        chi2 = stats.chi2_contingency(np.array(table), correction=False)[0]
        assert got["chi2"] == pytest.approx(chi2)  # still the observed statistic


def test_permutation_test_is_seeded_and_close_to_scipys_own():
    table = [[12, 7, 9], [4, 15, 11], [8, 8, 30]]
    opts = resolve({"proxy_hints": True, "proxy_exact": True, "proxy_permutations": 3000})
    got = chi2_test(table, opts)
    assert got["method"] == "permutation"
    again = chi2_test(table, opts)
    assert again["p_value"] == got["p_value"]  # same seed, same p
    other = chi2_test(table, opts._replace(proxy_seed=7))
    assert other["p_value"] != got["p_value"]
    # an independent permutation test of the same table: one column's rows shuffled
    obs = np.array(table)
    x = np.repeat(np.arange(3), obs.sum(axis=1))
    y = np.concatenate([np.repeat(np.arange(3), row) for row in table])
    observed = stats.chi2_contingency(obs, correction=False)[0]
    gen = np.random.default_rng(11)
    hits = 0
    for _ in range(3000):
        t = np.bincount(x * 3 + gen.permutation(y), minlength=9).reshape(3, 3)
        hits += stats.chi2_contingency(t, correction=False)[0] >= observed - 1e-9
    assert abs(got["p_value"] - (1 + hits) / 3001) < 0.015
    asym = stats.chi2_contingency(np.array(table), correction=False)[1]
    assert abs(got["p_value"] - asym) < 0.01
    # p is (1 + hits) / (1 + B)
    assert round(got["p_value"] * 3001) == pytest.approx(got["p_value"] * 3001)


@pytest.mark.parametrize("method", ["holm", "bonferroni"])
def test_corrections_equal_statsmodels(method):
    rng = random.Random(3)
    for m in (1, 2, 6, 40):
        ps = [rng.random() ** 3 for _ in range(m)]
        ps[0] = ps[-1]  # a tie
        reject, corrected, _, _ = multitest.multipletests(ps, alpha=0.05, method=method)
        got = adjust(ps, method)
        assert got == pytest.approx(list(corrected), rel=1e-12)
        assert [p <= 0.05 for p in got] == list(reject)
    assert adjust([0.01, 0.2], "none") == [0.01, 0.2]


def test_rounding_of_p_values():
    assert round_p(0.123456) == 0.1235
    assert round_p(0.0001) == 0.0001
    assert round_p(0.0000123456) == 1.23e-05
    assert round_p(0.0) == 0.0


# ---------------------------------------------------------------------- COMPAS


def compas_groups() -> pd.DataFrame:
    """COMPAS's four dimensions as the profile bands them, from pandas alone."""
    df = pd.read_csv(COMPAS, dtype=str, keep_default_na=False)
    out = pd.DataFrame({"sex": df["sex"], "age_cat": df["age_cat"], "race": df["race"]})
    age = df["age"].astype(int)
    out["age"] = pd.cut(
        age,
        [0, 18, 30, 45, 60, 75, math.inf],
        right=False,
        labels=["0-17", "18-29", "30-44", "45-59", "60-74", "75+"],
    ).astype(str)
    return out


def record_tests(monkeypatch) -> list[dict]:
    """Every test hints_block makes, in order (the pairs', then the features'), unrounded."""
    from faircode import proxy_stats

    made: list[dict] = []
    for name in ("chi2_test", "anova_test"):
        real = getattr(proxy_stats, name)

        def wrapped(*args, real=real):
            st = real(*args)
            made.append(st)
            return st

        monkeypatch.setattr(proxy_stats, name, wrapped)
    return made


def test_compas_hints_equal_scipy_on_an_independent_crosstab(monkeypatch):
    made = record_tests(monkeypatch)
    code, out, err = run_cli("profile", COMPAS, "--proxy-hints", "--json", "--no-provenance")
    assert code == 0, err
    result = json.loads(out)
    block = result["proxy_hints"]
    assert (block["alpha"], block["correction"], block["exact"]) == (0.05, "holm", False)
    assert block["not_tested"] == []
    assert [d["name"] for d in result["dimensions"]] == ["sex", "age", "age_cat", "race"]
    g = compas_groups()
    names = ["sex", "age", "age_cat", "race"]
    pairs = [(a, b) for k, a in enumerate(names) for b in names[k + 1 :]]
    raw = {}
    for a, b in pairs:
        obs = pd.crosstab(g[a], g[b]).to_numpy()
        chi2, p, dof, _ = stats.chi2_contingency(obs, correction=False)
        v = stats.contingency.association(obs, method="cramer", correction=False)
        raw[(a, b)] = (chi2, p, dof, v, int(obs.sum()))
    # one Holm over every test made: the 6 pairs', then each feature's (SPEC 16)
    features = [st["p_value"] for st in made[6:]]
    assert len(features) == len(block["features"]) > 6
    family = [raw[k][1] for k in pairs] + features
    _, holm, _, _ = multitest.multipletests(family, method="holm")
    adj = dict(zip(pairs, holm))
    assert len(block["hints"]) == 6
    for h in block["hints"]:
        assert list(h) == PAIR_KEYS
        chi2, p, dof, v, n = raw[(h["a"], h["b"])]
        assert h["chi2"] == pytest.approx(chi2, abs=5e-5)
        assert h["dof"] == dof and h["n"] == n == 7214
        assert h["cramers_v"] == pytest.approx(v, abs=5e-5)
        assert h["p_value"] == pytest.approx(round_p(p), rel=1e-9, abs=0)
        assert h["p_adjusted"] == pytest.approx(round_p(adj[(h["a"], h["b"])]), rel=1e-9)
        assert h["significant"] == (adj[(h["a"], h["b"])] <= 0.05)
    # most significant first
    keys = [(adj[(h["a"], h["b"])], raw[(h["a"], h["b"])][1]) for h in block["hints"]]
    assert keys == sorted(keys)
    sig = [h for h in block["hints"] if h["significant"]]
    assert {(h["a"], h["b"]) for h in sig} == {
        ("age", "age_cat"),
        ("age", "race"),
        ("age_cat", "race"),
        ("sex", "race"),
    }
    flags = [f for f in result["flags"] if f.startswith("proxy: ")]
    v = next(h for h in sig if h["a"] == "sex")
    assert (
        f"proxy: 'sex' and 'race' are associated (Cramér's V {v['cramers_v']:.4f}, "
        f"p {v['p_adjusted']:.3g} after holm)"
    ) in flags
    assert any("'age' x 'race': small expected counts" in f for f in flags)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "faircode" / "schemas" / "profile.schema.json").read_text())
    jsonschema.validate(result, schema)


def test_the_api_function_returns_the_block():
    from faircode.proxy import proxy_hints

    block = proxy_hints(COMPAS, opts={"proxy_correction": "none"})
    full = faircode.profile(COMPAS, opts={"proxy_hints": True, "proxy_correction": "none"})
    assert block == full["proxy_hints"]
    assert all(h["p_adjusted"] == h["p_value"] for h in block["hints"])


def test_compas_report_and_bonferroni_stated():
    code, out, _ = run_cli("profile", COMPAS, "--proxy-hints", "--proxy-correction", "bonferroni")
    assert code == 0
    assert (
        "Proxy hints (chi-squared test of independence, alpha 0.05, p adjusted by bonferroni)"
        in out
    )
    assert "sex x race" in out and "after bonferroni)" in out
    code, out, _ = run_cli("profile", COMPAS, "--proxy-hints", "--proxy-alpha", "1e-300")
    assert out.count("are associated") == 1  # age x age_cat: p underflows to 0
    assert "proxy: 'age' and 'age_cat' are associated (Cramér's V 0.8093, p 0 after holm)" in out


def test_option_errors():
    code, _, err = run_cli("profile", COMPAS, "--proxy-alpha", "0.1")
    assert code == 2 and "--proxy-alpha: needs --proxy-hints" in err
    code, _, err = run_cli("profile", COMPAS, "--proxy-hints", "--proxy-alpha", "0")
    assert code == 2 and "--proxy-alpha" in err
    held = f"{COMPAS}=sex"
    code, _, err = run_cli(
        "profile", COMPAS, "--proxy-hints", "--proxy-hints-with", held, "--engine", "spark"
    )
    assert code == 2
    assert "held-out columns (--proxy-hints-with) are not supported with --engine spark" in err
    with pytest.raises(InputError, match="proxy_correction"):
        resolve({"proxy_hints": True, "proxy_correction": "fdr"})


def test_compare_side_by_side():
    code, out, err = run_cli(
        "compare",
        COMPAS,
        data_file("compas-scores-two-years.csv"),
        "--proxy-hints",
        "--json",
        "--no-provenance",
    )
    assert code == 0, err
    result = json.loads(out)
    a = faircode.profile(COMPAS, opts={"proxy_hints": True})["proxy_hints"]
    assert result["proxy_hints"] == {"a": a, "b": a}
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "faircode" / "schemas" / "compare.schema.json").read_text())
    jsonschema.validate(result, schema)
    code, out, _ = run_cli("compare", COMPAS, COMPAS, "--proxy-hints")
    assert "Proxy hints, A | B" in out and "sex x race:  A V 0.0721" in out


# ------------------------------------------------------------------ held-out columns


def test_held_out_by_row_order_and_by_key(tmp_path):
    with open(COMPAS, newline="") as f:
        rows = list(csv.reader(f))
    head, data = rows[0], rows[1:]
    race, rid = head.index("race"), head.index("id")
    order = tmp_path / "order.csv"
    with open(order, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["protected"])
        w.writerows([d[race]] for d in data)
    shuffled = data[:]
    random.Random(5).shuffle(shuffled)
    keyed = tmp_path / "keyed.csv"
    with open(keyed, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["protected", "id"])
        w.writerows([d[race], d[rid]] for d in shuffled[30:])  # 30 profiled rows unmatched
        w.writerow(["Martian", "no-such-id"])  # 1 unused
        w.writerow(["Venusian", ""])  # without a key
    code, out, err = run_cli(
        "profile", COMPAS, "--proxy-hints", "--json", "--no-provenance",
        "--proxy-hints-with", f"{order}=protected",
        "--proxy-hints-with", f"{keyed}=protected:id",
    )  # fmt: skip
    assert code == 0, err
    block = json.loads(out)["proxy_hints"]
    a, b = f"{order}=protected", f"{keyed}=protected"
    assert block["held_out"] == [
        {"name": a, "path": str(order), "column": "protected", "key": None, "rows": 7214},
        {
            "name": b,
            "path": str(keyed),
            "column": "protected",
            "key": "id",
            "rows": 7186,
            "unmatched": 30,
            "unused": 1,
            "without_key": 1,
        },
    ]
    hints = {(h["a"], h["b"]): h for h in block["hints"]}
    assert len(hints) == 6 + 4 + 4 + 1
    g = compas_groups()
    # by order: the held-out race is race, so every statistic equals race's
    same = ("chi2", "dof", "p_value", "cramers_v", "n", "small_expected")
    for dim in ("sex", "age", "age_cat"):
        assert [hints[(dim, a)][k] for k in same] == [hints[(dim, "race")][k] for k in same]
    assert hints[("race", a)]["cramers_v"] == 1.0
    # by key: an independent pandas join
    held = pd.read_csv(keyed, dtype=str, keep_default_na=False)
    held = held[held["id"] != ""]
    raw = pd.read_csv(COMPAS, dtype=str, keep_default_na=False)
    joined = g.assign(id=raw["id"]).merge(held, on="id", how="inner")
    assert len(joined) == 7214 - 30
    obs = pd.crosstab(joined["sex"], joined["protected"]).to_numpy()
    chi2, p, dof, _ = stats.chi2_contingency(obs, correction=False)
    h = hints[("sex", b)]
    assert h["n"] == 7184 and h["dof"] == dof
    assert h["chi2"] == pytest.approx(chi2, abs=5e-5)
    assert h["p_value"] == pytest.approx(round_p(p), rel=1e-9)
    assert h["cramers_v"] == pytest.approx(
        stats.contingency.association(obs, method="cramer"), abs=5e-5
    )
    assert hints[(a, b)]["cramers_v"] == 1.0  # the two held-out columns agree


def test_held_out_errors(tmp_path):
    short = tmp_path / "short.csv"
    short.write_text("protected\nA\nB\n")
    code, _, err = run_cli(
        "profile", COMPAS, "--proxy-hints", "--proxy-hints-with", f"{short}=protected"
    )
    assert code == 2
    assert f"--proxy-hints-with {short}: it has 2 rows and {COMPAS} has 7214" in err
    code, _, err = run_cli(
        "profile", COMPAS, "--proxy-hints", "--proxy-hints-with", f"{short}=nope"
    )
    assert code == 2 and "no column 'nope'" in err
    code, _, err = run_cli(
        "profile", COMPAS, "--proxy-hints", "--proxy-hints-with", f"{short}=protected:protected"
    )
    assert code == 2 and "the key 'protected' is not a column of" in err
    dup = tmp_path / "dup.csv"
    dup.write_text("id,protected\n1,A\n1,B\n")
    code, _, err = run_cli(
        "profile", COMPAS, "--proxy-hints", "--proxy-hints-with", f"{dup}=protected:id"
    )
    assert code == 2 and "key '1' is on more than one row" in err
    code, _, err = run_cli("profile", COMPAS, "--proxy-hints-with", f"{dup}=protected:id")
    assert code == 2 and "needs --proxy-hints" in err


def test_held_out_same_through_parquet_and_frames(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pacsv = pytest.importorskip("pyarrow.csv")
    held = tmp_path / "h.csv"
    df = pd.read_csv(COMPAS, dtype=str, keep_default_na=False)
    pd.DataFrame({"id": df["id"][::-1], "r": df["race"][::-1]}).to_csv(held, index=False)
    opts = {"proxy_hints": True, "proxy_with": [[str(held), "r", "id"], [str(held), "id", None]]}
    ref = faircode.profile(COMPAS, opts=opts)
    pq.write_table(pacsv.read_csv(COMPAS), tmp_path / "c.parquet")
    assert pa is not None
    assert faircode.profile(tmp_path / "c.parquet", opts=opts)["proxy_hints"] == ref["proxy_hints"]
    assert faircode.profile(df, opts=opts)["proxy_hints"] == ref["proxy_hints"]


# ---------------------------------------------------------------- exact in a profile


def test_exact_option_in_a_profile(tmp_path):
    path = tmp_path / "two.csv"
    rows = ["sex,race"] + ["Male,White"] * 9 + ["Male,Black"] * 2 + ["Female,Black"] * 8
    rows += ["Female,White"] * 1
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli(
        "profile", path, "--proxy-hints", "--proxy-exact", "--proxy-seed", "3",
        "--proxy-permutations", "500", "--json", "--no-provenance",
    )  # fmt: skip
    assert code == 0, err
    block = json.loads(out)["proxy_hints"]
    assert block["exact"] is True and block["permutations"] == 500 and block["seed"] == 3
    (h,) = block["hints"]
    assert h["method"] == "fisher"
    assert h["p_value"] == round_p(stats.fisher_exact([[9, 2], [1, 8]]).pvalue)
    assert h["small_expected"] is False or h["small_expected"] is True
    code, out, _ = run_cli("profile", path, "--proxy-hints", "--proxy-exact", "--proxy-seed", "3")
    assert "exact: Fisher for 2x2, else 9999 permutations, seed 3" in out


# --------------------------------------------------------------- bounds and engines


def test_a_pair_past_the_bound_is_reported_not_tested(tmp_path):
    cols = ["sex"] + [f"x{i}" for i in range(64)] + ["race"]
    lines = [",".join(cols)]
    rng = random.Random(2)
    for k in range(200):
        lines.append(
            ",".join(
                [rng.choice(["Male", "Female"])]
                + [str(k)] * 64
                + [rng.choice(["White", "Black", "Asian"])]
            )
        )
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(lines) + "\n")
    result = faircode.profile(path, opts={"proxy_hints": True})
    block = result["proxy_hints"]
    assert block["hints"] == []
    assert block["not_tested"] == [
        {"a": "sex", "b": "race", "why": "'race' is not among the first 64 counted columns"}
    ]
    assert (
        "proxy: 'sex' x 'race' not tested ('race' is not among the first 64 counted columns)"
        in result["flags"]
    )
    # features: sex (first) against x0..x62, numbers (200 labels each, past
    # max_categorical: counted on as features); x63 and race are past the first 64
    assert {(f["a"], f["method"]) for f in block["features"]} == {("sex", "anova")}
    assert {f["b"] for f in block["features"]} == {f"x{i}" for i in range(63)}
    skipped = block["features_not_tested"]
    assert {
        "a": "sex",
        "b": "x63",
        "why": "'x63' is not among the first 64 counted columns",
    } in skipped
    assert len(skipped) == 1 + 64
    assert {nt["why"] for nt in skipped if nt["a"] == "race"} == {
        "'race' is not among the first 64 counted columns"
    }
    assert (
        "proxy: 65 dimension x column pairs not tested (features_not_tested in the JSON says why)"
        in result["flags"]
    )
    many = tmp_path / "many.csv"
    extra = ["gender", "ethnicity", "region", "country"]
    with open(many, "w") as f:
        f.write(",".join(cols + extra) + "\n")
        for line in lines[1:]:
            f.write(line + ",a,b,c,d\n" if rng.random() < 0.5 else line + ",e,f,g,h\n")
    block = faircode.profile(many, opts={"proxy_hints": True})
    assert len(block["proxy_hints"]["not_tested"]) == 5 + 4 + 3 + 2 + 1
    lines_nt = [f for f in block["flags"] if "not tested" in f and "dimension x column" not in f]
    assert len(lines_nt) == 11
    assert lines_nt[-1] == "proxy: 5 more pairs not tested (the JSON lists all)"
    crossed = faircode.profile(path, opts={"proxy_hints": True, "cross": "sex,race"})
    assert [(h["a"], h["b"]) for h in crossed["proxy_hints"]["hints"]] == [("sex", "race")]


def test_fast_path_and_reference_reader_give_the_same_hints(tmp_path):
    pytest.importorskip("pyarrow")
    gen = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "generate.py"), str(tmp_path / "g.csv"),
         "--size", "6MB"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert gen.returncode == 0, gen.stderr
    opts = {"proxy_hints": True, "na": ["?"]}
    fast = faircode.profile(tmp_path / "g.csv", opts=opts, engine="fast")
    ref = faircode.profile(tmp_path / "g.csv", opts=opts, engine="reference")
    assert fast == ref
    assert len(fast["proxy_hints"]["hints"]) >= 6
    # cut into parts as a file of 32 MB or more is (SPEC 0.8), counted on one thread
    from faircode import fastpath
    from faircode.analyze import analyze

    options = resolve(opts)
    with open(tmp_path / "g.csv", "rb") as fh:
        got = fastpath.summarize_csv(fh, str(tmp_path / "g.csv"), {}, options, parts=3)
    assert not isinstance(got, fastpath.Fallback), got
    summary, checked = got
    assert analyze(summary, checked, options) == ref


def test_proxy_hints_add_only_their_block_and_notes(tmp_path):
    """With --proxy-hints the result is the plain result plus `proxy_hints` and its notes
    (kind proxy, not tests of the family): every other key, flag and finding is equal,
    on COMPAS and on a wide table (73 columns, past the 64 counted pair columns)."""
    wide = tmp_path / "wide.csv"
    cols = ["sex", "zip", "race"] + [f"c{i}" for i in range(70)] + ["age"]
    rng = random.Random(4)
    with open(wide, "w") as f:
        f.write(",".join(cols) + "\n")
        for k in range(300):
            cells = [rng.choice("MF"), str(10000 + k % 40), rng.choice(["White", "Black"])]
            cells += [str(rng.randrange(3)) for _ in range(70)] + [str(rng.randrange(90))]
            f.write(",".join(cells) + "\n")
    for path in (COMPAS, wide):
        ours = faircode.profile(path, opts={"proxy_hints": True})
        plain = faircode.profile(path)
        assert ours["proxy_hints"]["hints"] or ours["proxy_hints"]["features"]
        flags = [f for f in ours.pop("flags") if not f.startswith("proxy: ")]
        # the hints' lines are notes of kind proxy (SPEC 18): not tests of the family, so
        # the evidence block and every other finding stay as they are without hints
        entries = ours.pop("findings")
        proxy = [f for f in entries if f["kind"] == "proxy"]
        assert all(f["severity"] == "note" and f["text"].startswith("proxy: ") for f in proxy)
        del ours["proxy_hints"]
        rest = {k: v for k, v in plain.items() if k not in ("flags", "findings")}
        assert to_json(ours) == to_json(rest), path
        assert flags == plain["flags"]
        assert [f for f in entries if f["kind"] != "proxy"] == plain["findings"]


def test_labels_are_the_intersections_after_recode_na_and_age_bands(tmp_path):
    path = tmp_path / "r.csv"
    rng = random.Random(9)
    rows = ["sex,race,age"]
    for _ in range(400):
        sex = rng.choice(["M", "Male", "F", "Female", "?"])
        race = rng.choice(["White", "Black", "Asian"])
        rows.append(f"{sex},{race},{rng.choice([17, 25, 40, 50, 200])}")
    path.write_text("\n".join(rows) + "\n")
    opts = {"proxy_hints": True, "recode": [["sex", "M", "Male"], ["sex", "F", "Female"]]}
    opts["na"] = ["?"]
    result = faircode.profile(path, opts=opts)
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df["sex"] = df["sex"].replace({"M": "Male", "F": "Female", "?": None})
    age = df["age"].astype(int)
    df["age"] = pd.cut(age, [0, 18, 30, 45, 60, 75, 121], right=False).astype(str)
    df.loc[age > 120, "age"] = None  # implausible: missing
    hints = {(h["a"], h["b"]): h for h in result["proxy_hints"]["hints"]}
    for a, b in (("sex", "race"), ("sex", "age"), ("race", "age")):
        both = df.dropna(subset=[a, b])
        obs = pd.crosstab(both[a], both[b]).to_numpy()
        chi2, p, dof, _ = stats.chi2_contingency(obs, correction=False)
        assert hints[(a, b)]["n"] == obs.sum()
        assert hints[(a, b)]["dof"] == dof == (obs.shape[0] - 1) * (obs.shape[1] - 1)
        assert hints[(a, b)]["chi2"] == pytest.approx(chi2, abs=5e-5)
        assert hints[(a, b)]["p_value"] == pytest.approx(round_p(p), rel=1e-9)
    inter = result["intersections"][0]
    assert inter["dims"] == ["sex", "race"]


# ------------------------------------------------------- every feature (issue 30 item 1)

ADULT = data_file("adult.data")


def adult_frame():
    """adult.data as the profiler reads it: labels trimmed, '?' missing (SPEC 0.4)."""
    names = ADULT_NAMES.split(",")
    df = pd.read_csv(ADULT, header=None, names=names, dtype=str, skipinitialspace=True)
    df = df.apply(lambda col: col.str.strip())
    return df.replace({"?": None})


def associations(block: dict, dim: str) -> list[tuple[str, float]]:
    """A dimension's associations, strongest first: its dimension pairs (V) and its
    features (V, or eta = sqrt(eta squared) for numbers), as SPEC 16 ranks them."""
    out = [(h["b"] if h["a"] == dim else h["a"], h["cramers_v"]) for h in block["hints"]
           if dim in (h["a"], h["b"])]  # fmt: skip
    for f in block["features"]:
        if f["a"] == dim:
            v = f["cramers_v"] if f["method"] == "chi2" else math.sqrt(f["eta_squared"])
            out.append((f["b"], v))
    return sorted(out, key=lambda t: -t[1])


def test_adult_proxies_of_sex_and_race_equal_scipy_on_crosstabs(monkeypatch):
    made = record_tests(monkeypatch)
    code, out, err = run_cli(
        "profile", ADULT, "--names", ADULT_NAMES, "--proxy-hints", "--json", "--no-provenance"
    )
    assert code in (0, 1), err
    result = json.loads(out)
    block = result["proxy_hints"]
    top_sex = [b for b, _ in associations(block, "sex")[:3]]
    assert {"relationship", "marital-status"} <= set(top_sex)
    assert "native-country" in [b for b, _ in associations(block, "race")[:3]]
    # strongest first, with V or eta on one scale
    strengths = [
        f["cramers_v"] if f["method"] == "chi2" else math.sqrt(f["eta_squared"])
        for f in block["features"]
    ]
    assert strengths == sorted(strengths, reverse=True)
    df = adult_frame()
    unrounded = {}
    checked = 0
    rows = [(h["a"], h["b"], h) for h in block["hints"]]
    rows += [(f["a"], f["b"], f) for f in block["features"] if f["method"] == "chi2"]
    for a, b, row in rows:
        if {a, b} & {"age"} or ("sex" not in (a, b) and "race" not in (a, b)):
            continue  # age is banded; sex and race are taken as read
        both = df.dropna(subset=[a, b])
        obs = pd.crosstab(both[a], both[b]).to_numpy()
        chi2, p, dof, _ = stats.chi2_contingency(obs, correction=False)
        v = stats.contingency.association(obs, method="cramer", correction=False)
        assert row["n"] == obs.sum() and row["dof"] == dof
        assert row.get("chi2", row.get("statistic")) == pytest.approx(chi2, abs=5e-5)
        assert row["cramers_v"] == pytest.approx(v, abs=5e-5)
        assert row["p_value"] == pytest.approx(round_p(p), rel=1e-9, abs=0)
        unrounded[(a, b)] = (chi2, p, v)
        checked += 1
    assert checked >= 15
    for a, b in (("sex", "relationship"), ("marital-status", "sex"), ("race", "native-country")):
        chi2, p, v = unrounded[(a, b)]
        st = next(t for t in made if "chi2" in t and t["chi2"] == pytest.approx(chi2, rel=1e-12))
        assert st["cramers_v"] == pytest.approx(v, rel=1e-12)
        assert st["p_value"] == pytest.approx(p, rel=1e-12, abs=1e-300)
    # numeric columns by one-way ANOVA; fnlwgt (21,648 labels) is past the bound
    hours = next(f for f in block["features"] if (f["a"], f["b"]) == ("sex", "hours-per-week"))
    assert hours["method"] == "anova" and (hours["dof"], hours["dof_within"]) == (1, 32559)
    groups = [g["hours-per-week"].astype(int) for _, g in df.groupby("sex")]
    f_stat, p = stats.f_oneway(*groups)
    assert hours["statistic"] == pytest.approx(f_stat, abs=5e-5)
    assert hours["p_value"] == pytest.approx(round_p(p), rel=1e-9, abs=0)
    assert {"a": "sex", "b": "fnlwgt", "why": "'fnlwgt' has more than 1000 labels"} in block[
        "features_not_tested"
    ]
    flags = result["flags"]
    assert (
        "proxy: 'relationship' is associated with 'sex' (Cramér's V 0.6490, p 0 after holm)"
        in flags
    )
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "faircode" / "schemas" / "profile.schema.json").read_text())
    jsonschema.validate(result, schema)


def test_compas_priors_count_by_race_is_f_oneway(monkeypatch):
    made = record_tests(monkeypatch)
    result = faircode.profile(COMPAS, opts={"proxy_hints": True})
    block = result["proxy_hints"]
    row = next(f for f in block["features"] if (f["a"], f["b"]) == ("race", "priors_count"))
    df = pd.read_csv(COMPAS, dtype=str, keep_default_na=False)
    groups = [g["priors_count"].astype(float).to_numpy() for _, g in df.groupby("race")]
    res = stats.f_oneway(*groups)
    every = np.concatenate(groups)
    total = ((every - every.mean()) ** 2).sum()
    between = sum(len(g) * (g.mean() - every.mean()) ** 2 for g in groups)
    st = next(t for t in made if t.get("method") == "anova" and t["statistic"] is not None
              and t["statistic"] == pytest.approx(res.statistic, rel=1e-9))  # fmt: skip
    assert st["statistic"] == pytest.approx(res.statistic, rel=1e-12)
    assert st["p_value"] == pytest.approx(res.pvalue, rel=1e-12)
    assert st["eta_squared"] == pytest.approx(between / total, rel=1e-12)
    assert (st["dof"], st["dof_within"], st["n"]) == (
        len(groups) - 1,
        len(every) - len(groups),
        7214,
    )
    assert row["method"] == "anova"
    assert row["eta_squared"] == round_half_up(st["eta_squared"], 4)
    assert row["statistic"] == round_half_up(st["statistic"], 4)
    assert row["p_value"] == round_p(st["p_value"])
    assert (row["dof"], row["dof_within"], row["n"]) == (5, 7208, 7214)


def test_anova_test_equals_f_oneway_and_constant_groups():
    rng = random.Random(5)
    values = [0.5, 1.25, 3.0, 7.0, 1e6 + 0.1, -2.0]
    for _ in range(20):
        data = [
            [rng.choice(values) for _ in range(rng.randrange(2, 30))]
            for _ in range(rng.randrange(2, 6))
        ]
        sums = [(len(g), *scaled_sum(g)) for g in data]
        if all(len(set(g)) == 1 for g in data):
            continue
        st = anova_test(sums)
        res = stats.f_oneway(*[np.array(g) for g in data])
        assert st["statistic"] == pytest.approx(res.statistic, rel=1e-9)
        assert st["p_value"] == pytest.approx(res.pvalue, rel=1e-8)
    st = anova_test([(2, *scaled_sum([1.0, 1.0])), (2, *scaled_sum([3.0, 3.0]))])
    assert (st["statistic"], st["p_value"], st["eta_squared"]) == (None, 0.0, 1.0)


def scaled_sum(values: list[float]) -> tuple[int, int]:
    from faircode.numerics import scaled

    pairs = [scaled(v) for v in values]
    return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


def test_features_do_not_change_the_rest_of_the_result(tmp_path):
    """A feature counted on past max_categorical is still no dimension: the profile
    without the proxy block is the one without --proxy-hints (COMPAS: priors_count,
    38 labels, and columns of up to 1,000)."""
    ours = faircode.profile(ADULT, opts={"proxy_hints": True, "names": ADULT_NAMES.split(",")})
    plain = faircode.profile(ADULT, opts={"names": ADULT_NAMES.split(",")})
    del ours["proxy_hints"]
    for r in (ours, plain):
        r["flags"] = [f for f in r["flags"] if not f.startswith("proxy: ")]
        r["findings"] = [f for f in r["findings"] if f["kind"] != "proxy"]
    assert to_json(ours) == to_json(plain)


def test_features_are_the_same_through_parquet_and_frames(tmp_path):
    pytest.importorskip("pyarrow")
    df = pd.read_csv(COMPAS, dtype=str, keep_default_na=False)
    df.to_parquet(tmp_path / "c.parquet")
    opts = {"proxy_hints": True}
    csv_block = faircode.profile(COMPAS, opts=opts)["proxy_hints"]
    assert len(csv_block["features"]) > 50
    assert faircode.profile(tmp_path / "c.parquet", opts=opts)["proxy_hints"] == csv_block
    assert faircode.profile(df, opts=opts)["proxy_hints"] == csv_block
