"""SPEC 17 on real data: label base rates and missing data by group, checked against an
independent computation (pandas crosstabs, this file's own Wilson interval of SPEC 3,
statsmodels' Newcombe and log-ratio intervals for the version-3 `gap` block, and the
rules of 17.3-17.6 written out again), never against either engine's output. The one
exception is a verdict Holm's correction over the whole report decides: its bounds (the
raw p and m times it) are computed here, and only between them is the finding's adjusted
p read, after checking it lies inside them.

The files are tests/data's (tests/util.py data_file), read here by pandas as text:
every cell a string, trimmed of ASCII space and tab, missing when it is one of SPEC
0.4's tokens (so diabetic_data.csv's `None` is a category and its `?` is missing).
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from fractions import Fraction

import pandas as pd
import pytest
from scipy.optimize import brentq
from scipy.stats import norm
from statsmodels.stats.proportion import confint_proportions_2indep
from util import ADULT_NAMES, data_file

import faircode
from faircode import InputError
from faircode.options import resolve

COMPAS = data_file("compas-scores-two-years.csv")
DIABETIC = data_file("diabetic_data.csv")
ADULT = data_file("adult.data")
ADULT_TEST = data_file("adult.test")
NAMES = ADULT_NAMES.split(",")

MISSING = {"", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "?"}
Z = 1.959963984540054
MIN_GROUP_SIZE = 100
ALPHA = 0.05
NOTE = (
    "min_ratio is the lowest group rate over the highest; the four-fifths (0.8) rule of US "
    "employment guidance is a convention, not a legal threshold"
)


# ---------------------------------------------------------------------------------------
# An independent reading of SPEC 3, 13, 17
# ---------------------------------------------------------------------------------------


def r4(x: float) -> float:
    return math.floor(x * 10000 + 0.5) / 10000


def pct(x: float) -> str:
    """P(x) of SPEC 13: the 4-dp rounding's digits as a percentage with two decimals."""
    t = math.floor(x * 10000 + 0.5)
    return ("-" if t < 0 else "") + f"{abs(t) // 100}.{abs(t) % 100:02d}"


def wilson_raw(c: int, n: int) -> tuple[float, float]:
    z2 = Z * Z
    p = c / n
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    margin = (Z / denom) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0, center - margin), min(1, center + margin)


def rate_fields(pos: int, n: int) -> dict:
    if n == 0:
        return {"rate": None, "ci_low": None, "ci_high": None}
    lo, hi = wilson_raw(pos, n)
    return {"rate": r4(pos / n), "ci_low": r4(lo), "ci_high": r4(hi)}


def read_table(path, names=None, skip=0, recode=None) -> pd.DataFrame:
    df = pd.read_csv(
        path,
        dtype=str,
        keep_default_na=False,
        header=None if names else "infer",
        names=names,
        skiprows=skip,
        skip_blank_lines=True,
    )
    df = df.apply(lambda col: col.str.strip(" \t"))
    for column, frm, to in recode or ():
        df[column] = df[column].where(df[column] != frm, to)
    return df


def is_missing(series: pd.Series) -> pd.Series:
    return series.isin(MISSING)


def absent_key(df, dim: str) -> pd.Series:
    """dim's labels with its missing cells as NaN: grouped with dropna=False, the NaN
    group is SPEC 17.4's missing group."""
    return df[dim].where(~is_missing(df[dim]))


def nan_row(table: pd.DataFrame) -> pd.Series | None:
    """The NaN group's row of a groupby(dropna=False) table, or None."""
    rows = table[table.index.isna()]
    return None if rows.empty else rows.iloc[0]


def group_order(counts: dict) -> list:
    """SPEC 3: by count descending, then label by code point (Python's str order)."""
    return sorted(counts, key=lambda k: (-counts[k], k))


def expected_dimension_rates(
    df, dim: str, label: str, positive: str, mgs=MIN_GROUP_SIZE, gap=0.1
) -> dict:
    """label_rates.dimensions[dim] (17.4), from a crosstab; its gap's verdict may still
    need check_gap_verdict."""
    present = ~is_missing(df[dim])
    sub = df[present]
    ct = pd.crosstab(sub[dim], sub[label])
    counts = sub[dim].value_counts().to_dict()
    value_cols = [c for c in ct.columns if c not in MISSING]
    groups = []
    for g in group_order(counts):
        n = int(ct.loc[g, value_cols].sum())
        pos = int(ct.loc[g, positive]) if positive in ct.columns else 0
        groups.append(
            {
                "label": g,
                "n": n,
                "positive": pos,
                **rate_fields(pos, n),
                "label_missing": int(counts[g]) - n,
                "small_group": n < mgs,
            }
        )
    out = {"name": dim} | compared_summary(groups, mgs, gap=gap) | {"groups": groups}
    # the missing group (17.4): the NaN group of a groupby with dropna=False
    y = df[label]
    table = (
        pd.DataFrame({"size": 1, "n": ~is_missing(y), "pos": y == positive}, index=df.index)
        .groupby(absent_key(df, dim), dropna=False)
        .sum()
    )
    row = nan_row(table)
    if row is not None:
        k, n, pos = int(row["size"]), int(row["n"]), int(row["pos"])
        out["missing_group"] = {
            "count": k,
            "n": n,
            "positive": pos,
            **rate_fields(pos, n),
            "label_missing": k - n,
            "small_group": n < mgs,
        }
    return out


def compared_summary(groups: list[dict], mgs: int, key=lambda g: g["label"], gap=0.1) -> dict:
    """highest, lowest, max_difference, min_ratio and `gap` of 17.4 (version 3): only the
    groups with n >= max(1, mgs) are compared, with no fallback to smaller ones. The
    gap's verdict is left as RESOLVE when it depends on the family (check_gap_verdict)."""
    compared = [g for g in groups if g["n"] >= max(1, mgs)]
    if len(compared) < 2:
        return {
            "highest": None,
            "lowest": None,
            "max_difference": None,
            "min_ratio": None,
            "gap": None,
        }

    def r(g):
        return g["positive"] / g["n"]

    high = max(compared, key=r)  # max/min return the first of equal rates: group order
    low = min(compared, key=r)
    ph, nh, pl, nl = high["positive"], high["n"], low["positive"], low["n"]
    lo, hi = confint_proportions_2indep(ph, nh, pl, nl, method="newcomb")
    ratio = (None, None)
    if ph and 0 < pl < nl and ph < nh:
        ratio = confint_proportions_2indep(pl, nl, ph, nh, compare="ratio", method="log")
    elif ph:  # a zero cell: Haldane-Anscombe (c + 0.5 of n + 1), widened to hold the ratio
        lo_r, hi_r = confint_proportions_2indep(
            pl + 0.5, nl + 1, ph + 0.5, nh + 1, compare="ratio", method="log"
        )
        est = (pl / nl) / (ph / nh)
        ratio = (min(lo_r, est), max(hi_r, est))
    if hi < gap:
        verdict = "within"
    elif not r(high) - r(low) > gap:
        verdict = "possible"
    else:
        verdict = RESOLVE
    return {
        "highest": key(high),
        "lowest": key(low),
        "max_difference": r4(r(high) - r(low)),
        "min_ratio": r4(r(low) / r(high)) if r(high) else None,
        "gap": {
            "difference": r4(r(high) - r(low)),
            "ci_low": r4(lo),
            "ci_high": r4(hi),
            "ratio_ci_low": None if ratio[0] is None else r4(ratio[0]),
            "ratio_ci_high": None if ratio[1] is None else r4(ratio[1]),
            "verdict": verdict,
            # the compared groups Newcombe's interval does not tell from the lowest
            "lowest_alike": [
                key(g)
                for g in compared
                if g is not low
                and confint_proportions_2indep(g["positive"], g["n"], pl, nl, method="newcomb")[0]
                <= 0
            ],
        },
        "_raw": (ph, nh, pl, nl),
    }


RESOLVE = "confirmed or possible: depends on the family"


def newcombe_p(ph: int, nh: int, pl: int, nl: int, gap: float) -> float:
    """The p of 'rate(high) - rate(low) > gap' by inverting statsmodels' Newcombe lower
    bound (SPEC 13.1 search_p): 2 * Q(z) at the z where the bound meets the gap."""

    def lower(z: float) -> float:
        alpha = 2 * norm.sf(z)
        return confint_proportions_2indep(ph, nh, pl, nl, method="newcomb", alpha=alpha)[0]

    if not lower(1e-9) > gap:
        return 1.0
    if lower(30) > gap:  # statsmodels' alpha underflows past z = 37; p < 1e-196 here
        return 2 * norm.sf(30)
    return min(1.0, 2 * norm.sf(brentq(lambda z: lower(z) - gap, 1e-9, 30, xtol=1e-12)))


def check_gap_verdict(result: dict, want: dict, dims: list[str], gap=0.1) -> dict:
    """want with its gap's verdict resolved. When the difference is above the gap, the
    block's verdict is the Holm-corrected verdict of the lowest group's label_gap finding
    (SPEC 17.4, 18). Holm's adjusted p lies between the raw p and m times it (Bonferroni),
    so the verdict is fixed independently when raw p >= alpha or m * raw p < alpha, and in
    between the finding's adjusted p must lie inside those bounds and decide it."""
    raw = want.pop("_raw", None)
    if want["gap"] is None or want["gap"]["verdict"] != RESOLVE:
        return want
    p = newcombe_p(*raw, gap)
    m = result["evidence"]["tests"]
    low = want["lowest"] if isinstance(want["lowest"], list) else [want["lowest"]]
    high = want["highest"] if isinstance(want["highest"], list) else [want["highest"]]
    finding = next(
        f
        for f in result["findings"]
        if f["kind"] == "label_gap" and f["dimensions"] == dims and f["groups"] == low + high
    )
    assert finding["value"] == want["gap"]["difference"]
    assert (finding["ci_low"], finding["ci_high"]) == (
        want["gap"]["ci_low"],
        want["gap"]["ci_high"],
    )
    assert finding["n"] == raw[3] and finding["threshold"] == gap
    assert r4(p) - 1e-4 <= finding["p"] <= r4(min(1.0, m * p)) + 1e-4, (finding, p, m)
    if p >= ALPHA:
        verdict = "possible"
    elif m * p < ALPHA:
        verdict = "confirmed"
    else:
        assert abs(finding["p"] - ALPHA) > 1e-4  # rounded p decides the verdict
        verdict = "confirmed" if finding["p"] < ALPHA else "possible"
    assert finding["verdict"] == verdict
    want["gap"]["verdict"] = verdict
    return want


def gap_flags(entry: dict, label: str, positive: str, gap=0.1, mgs=MIN_GROUP_SIZE) -> list:
    """17.4's lines for a dimension: a compared group (n >= max(1, mgs)) other than the
    highest whose rate lies more than the gap below it; never a small group, and no
    ", N rows" (version 2 flagged 18-row groups, with their count); the not-measurable
    note when fewer than two groups are compared."""
    if entry["highest"] is None:
        return [
            f"{entry['name']}: label-rate gap not measurable: fewer than two groups of "
            f"{max(1, mgs)} rows"
        ]
    by = {g["label"]: g for g in entry["groups"]}
    high = by[entry["highest"]]
    rh = high["positive"] / high["n"]
    out = []
    for g in entry["groups"]:
        if g["n"] < max(1, mgs) or g["label"] == entry["highest"]:
            continue
        rg = g["positive"] / g["n"]
        if rh - rg > gap:
            out.append(
                f"{entry['name']}: {label}={positive} rate {pct(rg)}% for '{g['label']}' "
                f"vs {pct(rh)}% for '{entry['highest']}'"
            )
    return out


def expected_top(df, label: str, positive: str) -> dict:
    y = df[label]
    n = int((~is_missing(y)).sum())
    pos = int((y == positive).sum())
    lo, hi = wilson_raw(pos, n)
    return {
        "n": n,
        "positive_count": pos,
        "rate": r4(pos / n),
        "ci_low": r4(lo),
        "ci_high": r4(hi),
        "label_missing": len(df) - n,
    }


def missing_extremes_of(entry: dict, dim: str, mgs: int) -> tuple:
    """17.5's (lowest, highest) of an expected entry: by share (exact fractions) among the
    groups of max(1, mgs) rows, the missing group last; first on ties; never one group
    twice; (None, None) with fewer than two."""
    items = [(g["label"], Fraction(g["missing"], g["count"])) for g in entry["groups"]]
    if "missing_group" in entry:
        mg = entry["missing_group"]
        items.append((f"(missing {dim})", Fraction(mg["missing"], mg["count"])))
    sizes = [g["count"] for g in entry["groups"]] + (
        [entry["missing_group"]["count"]] if "missing_group" in entry else []
    )
    compared = [it for it, n in zip(items, sizes, strict=True) if n >= max(1, mgs)]
    if len(compared) < 2:
        return None, None
    top = max(share for _, share in compared)
    bottom = min(share for _, share in compared)
    high = next(lab for lab, share in compared if share == top)
    low = next(lab for lab, share in compared if share == bottom and lab != high)
    return low, high


def expected_missing(df, dim: str, ignore=(), mgs=MIN_GROUP_SIZE, gap=0.1):
    """missing_by_group's entry for dim (17.5) and its flags."""
    n_rows = len(df)
    present = ~is_missing(df[dim])
    counts = df[dim][present].value_counts().to_dict()
    order = group_order(counts)
    columns, flags = [], []
    for c in df.columns:
        if c == dim or c in ignore:
            continue
        miss = is_missing(df[c])
        total = int(miss.sum())
        if total == 0:
            continue
        overall = total / n_rows
        per = df[dim][present & miss].value_counts().to_dict()
        groups, flagged = [], []
        for g in order:
            m, cnt = int(per.get(g, 0)), int(counts[g])
            lo, hi = wilson_raw(m, cnt)
            groups.append(
                {
                    "label": g,
                    "count": cnt,
                    "missing": m,
                    "missing_pct": r4(m / cnt),
                    "ci_low": r4(lo),
                    "ci_high": r4(hi),
                }
            )
            # version 3: a group of max(1, mgs) rows whose share is more than the gap
            # above the overall one; no Wilson condition, no ", N rows" (the verdict of
            # the finding says whether the interval clears overall + gap)
            if cnt >= max(1, mgs) and m / cnt - overall > gap:
                flagged.append(g)
                flags.append(
                    f"{dim}: '{c}' is missing for {pct(m / cnt)}% of '{g}' "
                    f"vs {pct(overall)}% overall"
                )
        entry = {
            "name": c,
            "missing_count": total,
            "missing_pct": r4(overall),
            "flagged": flagged,
            "lowest": None,
            "highest": None,
            "groups": groups,
        }
        # the missing group (17.5): the NaN group of a groupby with dropna=False
        row = nan_row(miss.groupby(absent_key(df, dim), dropna=False).agg(["sum", "size"]))
        if row is not None:
            m, k = int(row["sum"]), int(row["size"])
            lo, hi = wilson_raw(m, k)
            entry["missing_group"] = {
                "count": k,
                "missing": m,
                "missing_pct": r4(m / k),
                "ci_low": r4(lo),
                "ci_high": r4(hi),
            }
        entry["lowest"], entry["highest"] = missing_extremes_of(entry, dim, mgs)
        columns.append(entry)
    return {"dimension": dim, "min_group_size": max(1, mgs), "columns": columns}, flags


def check_missing_findings(result: dict, want: dict, flags: list, gap=0.1) -> None:
    """Each flagged group of want (expected_missing's entry) is a missing_gap finding of
    SPEC 18 with the flag's text: the group's missing share, its rows, its Wilson interval
    and the threshold overall + gap; its verdict is `possible` when the interval reaches
    the threshold, else bounded by the raw score-test p and Bonferroni as for label gaps."""
    n_rows, m_tests = result["n_rows"], result["evidence"]["tests"]
    texts = iter(flags)
    for col in want["columns"]:
        t = col["missing_count"] / n_rows + gap
        for label in col["flagged"]:
            g = next(g for g in col["groups"] if g["label"] == label)
            f = next(
                f
                for f in result["findings"]
                if f["kind"] == "missing_gap"
                and f["dimensions"] == [want["dimension"]]
                and f["groups"] == [label, col["name"]]
            )
            assert f["text"] == next(texts)
            assert (f["value"], f["n"], f["threshold"]) == (g["missing_pct"], g["count"], t)
            assert (f["ci_low"], f["ci_high"]) == (g["ci_low"], g["ci_high"])
            share = g["missing"] / g["count"]
            z = (share - t) / math.sqrt(t * (1 - t) / g["count"])
            p = min(1.0, 2 * norm.sf(z)) if z > 0 else 1.0
            assert r4(p) - 1e-4 <= f["p"] <= r4(min(1.0, m_tests * p)) + 1e-4, (f, p)
            if wilson_raw(g["missing"], g["count"])[0] <= t:
                assert f["verdict"] == "possible", f
            elif m_tests * p < ALPHA:
                assert f["verdict"] == "confirmed", f
            else:
                assert f["verdict"] == ("confirmed" if f["p"] < ALPHA else "possible"), f


def label_dim(result: dict, name: str) -> dict:
    return next(d for d in result["label_rates"]["dimensions"] if d["name"] == name)


def missing_dim(result: dict, name: str) -> dict:
    return next(d for d in result["missing_by_group"] if d["dimension"] == name)


def flags_of(result: dict, dim: str, marker: str) -> list:
    return [f for f in result["flags"] if f.startswith(f"{dim}: ") and marker in f]


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "faircode", *args], capture_output=True, timeout=300
    )


# ---------------------------------------------------------------------------------------
# (a) COMPAS: two-year recidivism by race and by sex
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compas_df():
    return read_table(COMPAS)


@pytest.fixture(scope="module")
def compas_result():
    return faircode.profile(COMPAS, opts={"label": "two_year_recid"})


def test_compas_published_base_rate(compas_df, compas_result):
    lr = compas_result["label_rates"]
    assert (lr["label"], lr["positive"], lr["positive_from"]) == (
        "two_year_recid",
        "1",
        "larger_of_two",
    )
    # the published counts: 3251 of 7214 rows recidivated within two years
    assert (lr["n"], lr["positive_count"], lr["label_missing"]) == (7214, 3251, 0)
    top = expected_top(compas_df, "two_year_recid", "1")
    assert {k: lr[k] for k in top} == top
    assert lr["ratio_note"] == NOTE
    # the label column is no dimension and not unscored
    assert "two_year_recid" not in [d["name"] for d in compas_result["dimensions"]]
    assert "two_year_recid" not in [u["name"] for u in compas_result["unscored"]]
    assert [d["name"] for d in lr["dimensions"]] == [d["name"] for d in compas_result["dimensions"]]
    # SPEC 6 (version 3): findings and evidence come between the section 17 blocks and flags
    assert list(compas_result)[-5:] == [
        "label_rates",
        "missing_by_group",
        "findings",
        "evidence",
        "flags",
    ]


@pytest.mark.parametrize("dim", ["race", "sex"])
def test_compas_rates_by_group(compas_df, compas_result, dim):
    want = expected_dimension_rates(compas_df, dim, "two_year_recid", "1")
    want = check_gap_verdict(compas_result, want, [dim])
    got = label_dim(compas_result, dim)
    assert got == want
    assert flags_of(compas_result, dim, "two_year_recid=1 rate") == gap_flags(
        want, "two_year_recid", "1"
    )


def test_compas_race_small_groups_do_not_set_the_bar(compas_df, compas_result):
    race = label_dim(compas_result, "race")
    small = {g["label"] for g in race["groups"] if g["small_group"]}
    assert small == {"Asian", "Native American"}  # 32 and 18 rows
    assert race["highest"] not in small and race["lowest"] not in small
    assert race["highest"] == "African-American"  # 1901 / 3696 = 51.4%


def test_compas_intersection_rates(compas_df, compas_result):
    """The default intersection is sex x age (bands of SPEC 2); its cells' rates."""
    df = compas_df.copy()
    age = df["age"].astype(int)
    edges = [0, 18, 30, 45, 60, 75]
    labels = [f"{lo}-{hi - 1}" for lo, hi in zip(edges, edges[1:])] + ["75+"]
    df["band"] = [labels[max(i for i, e in enumerate(edges) if e <= a)] for a in age]
    inter = compas_result["label_rates"]["intersection"]
    assert inter["dims"] == ["sex", "age"]
    sex_order = group_order(df["sex"].value_counts().to_dict())
    band_order = group_order(df["band"].value_counts().to_dict())
    ct = pd.crosstab([df["sex"], df["band"]], df["two_year_recid"])
    cells = []
    for a in sex_order:
        for b in band_order:
            if (a, b) not in ct.index:
                continue
            n = int(ct.loc[(a, b)].sum())
            pos = int(ct.loc[(a, b), "1"])
            cells.append(
                {
                    "a": a,
                    "b": b,
                    "n": n,
                    "positive": pos,
                    **rate_fields(pos, n),
                    "label_missing": 0,
                    "small_group": n < MIN_GROUP_SIZE,
                }
            )
    summary = compared_summary(cells, MIN_GROUP_SIZE, key=lambda c: [c["a"], c["b"]])
    summary = check_gap_verdict(compas_result, summary, ["sex", "age"])
    assert inter == {"dims": ["sex", "age"], **summary, "cells": cells}


def test_compas_cli_json_and_provenance(compas_result):
    p = cli("profile", str(COMPAS), "--label", "two_year_recid", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    params = out.pop("provenance")["params"]
    assert out == json.loads(json.dumps(compas_result))
    assert params["label"] == "two_year_recid" and params["positive"] is None
    assert (params["label_gap"], params["missing_gap"], params["missing_by_group"]) == (
        0.1,
        0.1,
        True,
    )


def test_cli_options_and_params_without_label():
    p = cli(
        "profile",
        str(COMPAS),
        "--json",
        "--no-missing-by-group",
        "--missing-gap",
        "0.2",
        "--label-gap",
        "0.05",
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert "label_rates" not in out and "missing_by_group" not in out
    params = out["provenance"]["params"]
    assert "label" not in params and "positive" not in params
    assert (params["label_gap"], params["missing_gap"], params["missing_by_group"]) == (
        0.05,
        0.2,
        False,
    )


def test_cli_positive_and_label_gap():
    p = cli(
        "profile", str(COMPAS), "--label", "two_year_recid", "--positive", "0", "--json",
        "--label-gap", "0.01",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    lr = out["label_rates"]
    assert (lr["positive"], lr["positive_from"], lr["positive_count"]) == ("0", "option", 3963)
    assert out["provenance"]["params"]["positive"] == "0"
    df = read_table(COMPAS)
    want = expected_dimension_rates(df, "race", "two_year_recid", "0")
    assert flags_of(out, "race", "two_year_recid=0 rate") == gap_flags(
        want, "two_year_recid", "0", gap=0.01
    )


CLI_ERRORS = [
    (
        ["--label", "nope"],
        "--label: no column named 'nope' (columns: id, name, first, last, "
        "compas_screening_date...)",
    ),
    (["--positive", "1"], "--positive needs --label"),
    (
        ["--label", "sex", "--map", "sex=sex"],
        "--label sex: the label column cannot also be given to --map",
    ),
    (
        ["--label", "race"],
        "--label race: 6 values; name the positive one with --positive (values: "
        "'African-American', 'Asian', 'Caucasian', 'Hispanic', 'Native American', 'Other')",
    ),
    (
        ["--label", "two_year_recid", "--positive", "yes"],
        "--positive yes: not a value of 'two_year_recid' (values: '0', '1')",
    ),
    (
        ["--label", "two_year_recid", "--label-gap", "2"],
        "--label-gap: 2.0 is out of range (0..1)",
    ),
]


@pytest.mark.parametrize("args,message", CLI_ERRORS)
def test_cli_input_errors(args, message):
    p = cli("profile", str(COMPAS), *args)
    assert p.returncode == 2
    assert p.stderr.decode().strip() == "faircode: error: " + message


def test_label_cap_is_an_input_error():
    """SPEC 17.2: a label with more than LABEL_CAP (100,000) distinct values."""
    import io

    data = ("sex,y\n" + "".join(f"{'MF'[i % 2]},v{i}\n" for i in range(100_001))).encode()
    with pytest.raises(InputError) as err:
        faircode.profile(io.BytesIO(data), opts={"label": "y", "positive": "v1"}, name="t.csv")
    assert str(err.value) == "--label y: more than 100000 distinct values"


# ---------------------------------------------------------------------------------------
# (b) diabetic_data.csv: missing lab results and weight by race and gender
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diabetic_df():
    return read_table(DIABETIC)


@pytest.fixture(scope="module", params=["auto", "reference"])
def diabetic_result(request):
    """diabetic_data.csv (18 MB) takes the Arrow fast path (SPEC 0.8) by default, when
    pyarrow is installed; the reference reader must give the same."""
    return faircode.profile(DIABETIC, engine=request.param)


@pytest.mark.parametrize("dim", ["race", "gender"])
def test_diabetic_missing_by_group(diabetic_df, diabetic_result, dim):
    want, want_flags = expected_missing(diabetic_df, dim)
    got = missing_dim(diabetic_result, dim)
    assert got == want
    names = [c["name"] for c in got["columns"]]
    # `None` is a category (test not performed), not missing: these two are never listed
    assert "max_glu_serum" not in names and "A1Cresult" not in names
    assert "weight" in names
    assert flags_of(diabetic_result, dim, "is missing for") == want_flags
    check_missing_findings(diabetic_result, want, want_flags)


def test_diabetic_weight_shares(diabetic_result):
    """The published count: 98,569 of 101,766 rows have no weight."""
    race = missing_dim(diabetic_result, "race")
    weight = next(c for c in race["columns"] if c["name"] == "weight")
    assert weight["missing_count"] == 98569
    assert weight["missing_pct"] == r4(98569 / 101766)
    assert "label_rates" not in diabetic_result


@pytest.mark.parametrize("engine", ["auto", "reference"])
def test_diabetic_none_declared_missing(diabetic_df, engine):
    """With `--na max_glu_serum=None --na A1Cresult=None` the lab tests not performed are
    missing cells (SPEC 17.2: the missing side is after 1.1), with their flags."""
    na = [["max_glu_serum", "None"], ["A1Cresult", "None"]]
    result = faircode.profile(DIABETIC, opts={"na": na, "missing_gap": 0.02}, engine=engine)
    df = diabetic_df.copy()
    for col, token in na:
        df[col] = df[col].where(df[col] != token, "")
    all_flags = []
    for dim in ("race", "gender"):
        want, flags = expected_missing(df, dim, gap=0.02)
        assert missing_dim(result, dim) == want
        names = [c["name"] for c in want["columns"]]
        assert "max_glu_serum" in names and "A1Cresult" in names
        assert flags_of(result, dim, "is missing for") == flags
        check_missing_findings(result, want, flags, gap=0.02)
        all_flags += flags
    assert all_flags  # the rule does flag something here
    # missing-data flags follow the label-rate flags and come before the unscored summary
    idx = [result["flags"].index(f) for f in all_flags]
    assert idx == sorted(idx)
    unscored = [i for i, f in enumerate(result["flags"]) if f.startswith("not scored:")]
    assert all(i < unscored[0] for i in idx)


# ---------------------------------------------------------------------------------------
# (c) adult.data: income above 50K by sex and race
# ---------------------------------------------------------------------------------------

ADULT_OPTS = {"names": ADULT_NAMES, "label": "income", "positive": ">50K"}


@pytest.fixture(scope="module")
def adult_df():
    return read_table(ADULT, names=NAMES)


@pytest.fixture(scope="module")
def adult_result():
    return faircode.profile(ADULT, opts=ADULT_OPTS)


@pytest.mark.parametrize("dim", ["sex", "race", "marital-status", "native-country"])
def test_adult_base_rates(adult_df, adult_result, dim):
    lr = adult_result["label_rates"]
    assert (lr["positive"], lr["positive_from"]) == (">50K", "option")
    top = expected_top(adult_df, "income", ">50K")
    assert {k: lr[k] for k in top} == top
    assert (lr["n"], lr["positive_count"]) == (32561, 7841)  # UCI's published 24,720 / 7,841
    want = expected_dimension_rates(adult_df, dim, "income", ">50K")
    want = check_gap_verdict(adult_result, want, [dim])
    assert label_dim(adult_result, dim) == want
    assert flags_of(adult_result, dim, "income=>50K rate") == gap_flags(want, "income", ">50K")


def test_adult_sex_gap_flag(adult_result):
    assert "sex: income=>50K rate 10.95% for 'Female' vs 30.57% for 'Male'" in adult_result["flags"]


def test_adult_positive_by_larger_of_two(adult_result):
    opts = {k: v for k, v in ADULT_OPTS.items() if k != "positive"}
    r = faircode.profile(ADULT, opts=opts)
    assert r["label_rates"]["positive"] == ">50K"  # '>' (U+003E) after '<' (U+003C)
    assert r["label_rates"]["positive_from"] == "larger_of_two"
    assert r["label_rates"]["dimensions"] == adult_result["label_rates"]["dimensions"]


@pytest.mark.parametrize("dim", ["sex", "race"])
def test_adult_missing_by_group(adult_df, adult_result, dim):
    want, flags = expected_missing(adult_df, dim)
    assert missing_dim(adult_result, dim) == want
    assert [c["name"] for c in want["columns"]] == ["workclass", "occupation", "native-country"]
    assert flags_of(adult_result, dim, "is missing for") == flags
    check_missing_findings(adult_result, want, flags)


# ---------------------------------------------------------------------------------------
# (d) compare adult.data with adult.test (17.6)
# ---------------------------------------------------------------------------------------

TEST_RECODE = [["income", ">50K.", ">50K"], ["income", "<=50K.", "<=50K"]]
GAPS = {"label_gap": 0.01, "missing_gap": 0.005}


def rates_by(df, dim):
    present = df[~is_missing(df[dim])]
    y = present["income"]
    n = present[~is_missing(y)].groupby(dim).size()
    pos = present[y == ">50K"].groupby(dim).size()
    return {g: (int(pos.get(g, 0)), int(n[g])) for g in n.index}


def missing_by(df, dim):
    present = df[~is_missing(df[dim])]
    counts = present[dim].value_counts().to_dict()
    out = {}
    for c in df.columns:
        if c == dim:
            continue
        m = present[is_missing(present[c])][dim].value_counts().to_dict()
        out[c] = {g: (int(m.get(g, 0)), int(counts[g])) for g in counts}
    return out


def share_order(groups: list[dict], key: str, c: str, n: str) -> list[dict]:
    """SPEC 17.6: by |rounded delta|, then a group that moved (c_a / n_a != c_b / n_b,
    exactly) before one that did not, then label."""

    def still(g: dict) -> bool:
        return g[f"{c}_a"] * g[f"{n}_b"] == g[f"{c}_b"] * g[f"{n}_a"]

    return sorted(groups, key=lambda g: (-abs(g[key]), still(g), g["label"]))


def shift_p(ca: int, na: int, cb: int, nb: int, gap: float) -> float:
    """The p that cb/nb - ca/na moved by more than gap in its direction, from
    statsmodels' Newcombe interval (newcombe_p; a fall is a rise read backwards)."""
    if cb / nb >= ca / na:
        return newcombe_p(cb, nb, ca, na, gap)
    return newcombe_p(ca, na, cb, nb, gap)


def by_evidence(flags: dict, groups: list[dict]) -> list[str]:
    """SPEC 17.6: flag texts by p, then by their groups' row order."""
    rank = {g["label"]: i for i, g in enumerate(groups)}
    return [t for _, _, t in sorted((p, rank[g], t) for g, (p, t) in flags.items())]


@pytest.fixture(scope="module")
def adult_pair():
    opts = {"names": ADULT_NAMES, "label": "income", "recode": TEST_RECODE, **GAPS}
    a = faircode.profile(ADULT, opts=opts)
    b = faircode.profile(ADULT_TEST, opts={**opts, "skip_lines": 1})
    da = read_table(ADULT, names=NAMES, recode=TEST_RECODE)
    db = read_table(ADULT_TEST, names=NAMES, skip=1, recode=TEST_RECODE)
    return a, b, da, db, faircode.compare(a, b, opts=GAPS)


def test_adult_test_needs_the_recode():
    opts = {"names": ADULT_NAMES, "skip_lines": 1, "label": "income", "positive": ">50K"}
    with pytest.raises(InputError) as err:
        faircode.profile(ADULT_TEST, opts=opts)
    assert str(err.value) == "positive >50K: not a value of 'income' (values: '<=50K.', '>50K.')"


@pytest.mark.parametrize("dim", ["sex", "race", "marital-status"])
def test_compare_label_rates(adult_pair, dim):
    a, b, da, db, c = adult_pair
    lr = c["label_rates"]
    assert (lr["label"], lr["positive"]) == ("income", ">50K")
    assert [d["name"] for d in lr["dimensions"]] == [d["name"] for d in a["dimensions"]]
    ra, rb = rates_by(da, dim), rates_by(db, dim)
    groups, flags = [], {}
    for g in ra:
        if g not in rb or ra[g][1] == 0 or rb[g][1] == 0:
            continue
        (pa, na), (pb, nb) = ra[g], rb[g]
        xa, xb = pa / na, pb / nb
        lo, hi = confint_proportions_2indep(pb, nb, pa, na, method="newcomb")
        groups.append(
            {
                "label": g,
                "rate_a": r4(xa),
                "rate_b": r4(xb),
                "rate_delta": r4(xb - xa),
                "n_a": na,
                "n_b": nb,
                "positive_a": pa,
                "positive_b": pb,
                "ci_low": r4(lo),
                "ci_high": r4(hi),
            }
        )
        big = min(na, nb) >= MIN_GROUP_SIZE  # n on both sides
        if abs(xb - xa) > GAPS["label_gap"] and big:
            flags[g] = (
                shift_p(pa, na, pb, nb, GAPS["label_gap"]),
                f"{dim}: income=>50K rate for '{g}' moved {pct(xa)}% -> {pct(xb)}% "
                f"({na} -> {nb} rows, change {pct(lo)} to {pct(hi)} pts)",
            )
    groups = share_order(groups, "rate_delta", "positive", "n")
    entry = next(d for d in lr["dimensions"] if d["name"] == dim)
    assert entry == {"name": dim, "groups": groups}
    assert [list(g) for g in entry["groups"]] == [list(g) for g in groups]  # key order
    got = [f for f in c["flags"] if f.startswith(f"{dim}: income=>50K rate for ")]
    assert got == by_evidence(flags, groups)


def test_compare_label_rate_flags_exist(adult_pair):
    c = adult_pair[4]
    shifts = [f for f in c["flags"] if " rate for '" in f and " moved " in f]
    assert shifts, c["flags"]


@pytest.mark.parametrize("dim", ["sex", "race"])
def test_compare_missing_by_group(adult_pair, dim):
    a, b, da, db, c = adult_pair
    ma, mb = missing_by(da, dim), missing_by(db, dim)
    listed_a = [x for x in da.columns if x != dim and is_missing(da[x]).any()]
    listed_b = [x for x in db.columns if x != dim and is_missing(db[x]).any()]
    names = listed_a + [x for x in listed_b if x not in listed_a]
    columns, flags = [], []
    for col in names:
        groups, col_flags = [], {}
        for g in ma[col]:
            if g not in mb[col]:
                continue
            (xa, na), (xb, nb) = ma[col][g], mb[col][g]
            xa = xa if col in listed_a else 0
            xb = xb if col in listed_b else 0
            sa, sb = xa / na, xb / nb
            lo, hi = confint_proportions_2indep(xb, nb, xa, na, method="newcomb")
            groups.append(
                {
                    "label": g,
                    "missing_pct_a": r4(sa),
                    "missing_pct_b": r4(sb),
                    "missing_delta": r4(sb - sa),
                    "count_a": na,
                    "count_b": nb,
                    "missing_a": xa,
                    "missing_b": xb,
                    "ci_low": r4(lo),
                    "ci_high": r4(hi),
                }
            )
            if abs(sb - sa) > GAPS["missing_gap"] and min(na, nb) >= MIN_GROUP_SIZE:
                col_flags[g] = (
                    shift_p(xa, na, xb, nb, GAPS["missing_gap"]),
                    f"{dim}: '{col}' missing for '{g}' moved {pct(sa)}% -> {pct(sb)}% "
                    f"({na} -> {nb} rows, change {pct(lo)} to {pct(hi)} pts)",
                )
        groups = share_order(groups, "missing_delta", "missing", "count")
        flags += by_evidence(col_flags, groups)
        count_a, count_b = is_missing(da[col]).sum(), is_missing(db[col]).sum()
        col_a, col_b = count_a / len(da), count_b / len(db)
        columns.append(
            {
                "name": col,
                "missing_pct_a": r4(col_a),
                "missing_pct_b": r4(col_b),
                "missing_delta": r4(col_b - col_a),
                "missing_count_a": count_a,
                "missing_count_b": count_b,
                "groups": groups,
            }
        )
    entry = next(d for d in c["missing_by_group"] if d.get("dimension", d.get("name")) == dim)
    assert entry["columns"] == columns
    assert [list(g) for x in entry["columns"] for g in x["groups"]] == [
        list(g) for x in columns for g in x["groups"]
    ]  # key order
    got = [f for f in c["flags"] if f.startswith(f"{dim}: '") and "' missing for '" in f]
    assert got == flags


def test_compare_missing_flags_exist(adult_pair):
    c = adult_pair[4]
    assert [f for f in c["flags"] if "' missing for '" in f and " moved " in f], c["flags"]


def test_compare_flag_order(adult_pair):
    """17.6: after the share-drift flags, before the added/removed dimension flags;
    label-rate shifts before missing-data shifts. The keys after removed_dimensions."""
    c = adult_pair[4]
    keys = ["label_rates", "missing_by_group", "findings", "evidence", "flags"]
    assert list(c)[-5:] == keys
    assert list(c).index("removed_dimensions") == len(c) - 6
    assert c["flags"] == [f["text"] for f in c["findings"]]
    rank = {"rate_shift": 2, "missing_shift": 3, "dimension_added": 4, "dimension_removed": 4}
    kinds = [rank.get(f["kind"], 1) for f in c["findings"]]
    assert kinds == sorted(kinds), c["flags"]
    assert {2, 3} <= set(kinds)
    for f in c["findings"]:  # the kind agrees with the text it carries
        text = f["text"]
        assert (f["kind"] == "rate_shift") == (" rate for '" in text and " moved " in text)


def test_compare_cli_with_one_recode():
    """From the command line: adult.test's `>50K.` joined by `--recode`, so both sides'
    positive is `>50K` (larger of `<=50K` and `>50K`, or of `<=50K.` and `>50K`)."""
    p = cli(
        "compare", str(ADULT), str(ADULT_TEST), "--names", ADULT_NAMES, "--skip-lines-b", "1",
        "--label", "income", "--recode", "income:>50K.=>50K", "--json", "--label-gap", "0.01",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert (out["label_rates"]["label"], out["label_rates"]["positive"]) == ("income", ">50K")
    sex = next(d for d in out["label_rates"]["dimensions"] if d["name"] == "sex")
    da = read_table(ADULT, names=NAMES)
    db = read_table(ADULT_TEST, names=NAMES, skip=1, recode=[TEST_RECODE[0]])
    ra, rb = rates_by(da, "sex"), rates_by(db, "sex")
    assert {g["label"]: (g["rate_a"], g["rate_b"]) for g in sex["groups"]} == {
        g: (r4(ra[g][0] / ra[g][1]), r4(rb[g][0] / rb[g][1])) for g in ra
    }


def test_compare_shifts_are_findings_with_holm_verdicts(adult_pair):
    """SPEC 18.1: each flagged shift is a finding whose value, n and interval are its
    row's, tested against statsmodels' Newcombe interval and Holm over the whole family
    (every sized comparison, flagged or not, padded with p = 1 as the unflagged ones'
    tests are never below the flagged ones')."""
    from statsmodels.stats.multitest import multipletests

    from faircode.compare import _shift_p

    a, b, _, _, c = adult_pair
    floor = resolve(GAPS).min_group_size
    rows = {}
    sized = 0
    for d in c["label_rates"]["dimensions"]:
        for g in d["groups"]:
            rows[("rate_shift", d["name"], g["label"])] = (g["rate_delta"], g["n_a"], g["n_b"], g)
            sized += min(g["n_a"], g["n_b"]) >= floor
    for e in c["missing_by_group"]:
        for col in e["columns"]:
            for g in col["groups"]:
                key = ("missing_shift", e["dimension"], g["label"], col["name"])
                rows[key] = (g["missing_delta"], g["count_a"], g["count_b"], g)
                sized += min(g["count_a"], g["count_b"]) >= floor
    for d in c["dimensions"]:  # each group's share is a test too, and the drift (SPEC 18.1)
        sized += (
            len(d["groups"]) + (len(d["groups"]) > 1) if min(d["n_a"], d["n_b"]) >= floor else 0
        )
    shifts = [f for f in c["findings"] if f["severity"] == "finding"]
    # a random split: no group's share moves 5 points
    assert {f["kind"] for f in shifts} == {"rate_shift", "missing_shift"}
    assert c["evidence"]["tests"] == sized > len(shifts)
    raw = []
    for f in shifts:
        delta, na, nb, g = rows[(f["kind"], *f["dimensions"], *f["groups"])]
        assert (f["n"], f["ci_low"], f["ci_high"]) == (na + nb, g["ci_low"], g["ci_high"])
        assert abs(f["value"] - delta) <= 1e-4
        gap = GAPS["label_gap"] if f["kind"] == "rate_shift" else GAPS["missing_gap"]
        assert f["threshold"] == gap and abs(f["value"]) > gap
        raw.append((f, delta))

    def counts(result, f):
        if f["kind"] == "rate_shift":
            dims = result["label_rates"]["dimensions"]
            d = next(d for d in dims if d["name"] == f["dimensions"][0])
            g = next(g for g in d["groups"] if g["label"] == f["groups"][0])
            return g["positive"], g["n"]
        e = next(e for e in result["missing_by_group"] if e["dimension"] == f["dimensions"][0])
        col = next(c for c in e["columns"] if c["name"] == f["groups"][1])
        g = next(g for g in col["groups"] if g["label"] == f["groups"][0])
        return g["missing"], g["count"]

    ps = []
    for f, _ in raw:
        (xa, na), (xb, nb) = counts(a, f), counts(b, f)
        lo, hi = confint_proportions_2indep(xb, nb, xa, na, method="newcomb", compare="diff")
        assert abs(lo - f["ci_low"]) <= 5e-5 and abs(hi - f["ci_high"]) <= 5e-5
        gap = GAPS["label_gap"] if f["kind"] == "rate_shift" else GAPS["missing_gap"]
        ps.append(_shift_p(xa, na, xb, nb, gap))
    m = c["evidence"]["tests"]
    reject, adjusted, _, _ = multipletests(ps + [1.0] * (m - len(ps)), alpha=0.05, method="holm")
    for (f, _), adj, rej in zip(raw, adjusted, reject):
        assert f["p"] == round(adj, 4) or abs(f["p"] - adj) <= 5e-5
        assert f["verdict"] == ("confirmed" if rej else "possible")
    assert c["evidence"]["confirmed"] == int(sum(reject))
    assert c["evidence"]["confirmed"] + c["evidence"]["possible"] == len(ps)


def _shift_pair(tmp_path, pos_f_b: int, missing_f_b: int):
    """Two 400-row files: sex, outcome (30% positive), income; in B the women's rate is
    pos_f_b of 200 and their income is missing in missing_f_b rows."""
    paths = []
    for side, pos_f, miss_f in (("a", 60, 10), ("b", pos_f_b, missing_f_b)):
        lines = ["sex,outcome,income"]
        for sex, pos, miss in (("M", 60, 10), ("F", pos_f, miss_f)):
            for i in range(200):
                lines.append(f"{sex},{int(i < pos)},{'' if i % 200 >= 200 - miss else 100 + i}")
        path = tmp_path / f"{side}.csv"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def test_compare_fail_on_exits_4_on_a_confirmed_shift_only(tmp_path):
    """SPEC 18.1: `compare --fail-on` gates on confirmed shifts of the named kinds: the
    women's rate 30% -> 60% of 200 is confirmed; 30% -> 42% is beyond the 10-point gap
    but not confirmed, so no exit 4."""
    a, b = _shift_pair(tmp_path, 120, 80)
    base = ("compare", a, b, "--label", "outcome", "--positive", "1")
    p = cli(*base, "--json", "--fail-on", "rate_shift")
    out = json.loads(p.stdout)
    confirmed = [f for f in out["findings"] if f["verdict"] == "confirmed"]
    assert [(f["kind"], f["groups"]) for f in confirmed] == [
        ("rate_shift", ["F"]),
        ("missing_shift", ["F", "income"]),
    ]
    assert p.returncode == 4, p.stderr
    assert p.stderr.decode() == (
        f"faircode: 1 confirmed finding of --fail-on rate_shift (first: {confirmed[0]['text']})\n"
    )
    assert cli(*base, "--fail-on", "any").returncode == 4
    a, b = _shift_pair(tmp_path, 84, 10)
    p = cli("compare", a, b, "--label", "outcome", "--positive", "1", "--json", "--fail-on", "any")
    out = json.loads(p.stdout)
    (shift,) = [f for f in out["findings"] if f["severity"] == "finding"]
    assert (shift["kind"], shift["verdict"], shift["n"]) == ("rate_shift", "possible", 400)
    assert shift["ci_low"] < 0.1 < shift["value"] == 0.12
    assert p.returncode == 0, p.stderr
    p = cli(*base, "--fail-on", "label_gap")
    assert p.returncode == 2
    assert p.stderr.decode() == (
        "faircode: error: --fail-on: 'label_gap' is not a kind of finding "
        "(share_shift, rate_shift, missing_shift, or any)\n"
    )


def test_compare_label_mismatch_is_one_flag():
    opts = {"names": ADULT_NAMES, "label": "income"}
    a = faircode.profile(ADULT, opts=opts)
    b = faircode.profile(ADULT_TEST, opts={**opts, "skip_lines": 1})
    assert b["label_rates"]["positive"] == ">50K."
    c = faircode.compare(a, b)
    assert "label_rates" not in c
    assert "label rates not compared (income=>50K vs income=>50K.)" in c["flags"]


def test_a_wide_geography_lists_its_first_1000_groups_in_both_engines():
    """SPEC 17.4/17.5: label-rate groups and a missing column's groups stop at CELL_CAP
    (groups_not_listed says how many more), and highest/lowest still see every group."""
    from jsbridge import JSEngine

    rows = ["zip,outcome,note"]
    for i in range(2600):
        z = f"{i % 1300:05d}"
        rows.append(f"{z},{1 if i % 1300 == 1299 or i % 3 == 0 else 0},{'' if i % 5 == 0 else 'x'}")
    data = ("\n".join(rows) + "\n").encode()
    opts = {"label": "outcome", "min_group_size": 1}
    py = faircode.profile(io.BytesIO(data), opts=opts, name="t.csv")
    dim = py["label_rates"]["dimensions"][0]
    assert len(dim["groups"]) == 1000 and dim["groups_not_listed"] == 300
    assert dim["highest"] == "01299"  # past the listed groups: both its rows are positive
    cols = {c["name"]: c for c in py["missing_by_group"][0]["columns"]}
    assert len(cols["note"]["groups"]) == 1000 and cols["note"]["groups_not_listed"] == 300
    engine = JSEngine()
    try:
        js = engine.profile_bytes(data, opts=opts)
    finally:
        engine.close()
    assert js["result"] == json.loads(json.dumps(py))


# ---------------------------------------------------------------------------------------
# (e) the missing group (issue 27 item 4): rows whose dimension is missing are one row
# ---------------------------------------------------------------------------------------


def test_adult_native_country_missing_group_adds_up(adult_df, adult_result):
    """native-country's 583 '?' rows are its missing group: their rate is shown (never
    highest or lowest) and the groups with it add up to the overall rate's counts."""
    d = label_dim(adult_result, "native-country")
    absent = d["missing_group"]
    assert absent["count"] == int(is_missing(adult_df["native-country"]).sum()) == 583
    assert d["highest"] != "(missing native-country)" and d["lowest"] is not None
    lr = adult_result["label_rates"]
    assert sum(g["n"] for g in d["groups"]) + absent["n"] == lr["n"]
    assert sum(g["positive"] for g in d["groups"]) + absent["positive"] == lr["positive_count"]
    text = adult_result.report("text")
    row = next(x for x in text.splitlines() if x.startswith("    (missing native-country) "))
    assert f"{pct(absent['positive'] / absent['n'])}%" in row and "not compared" in row


@pytest.mark.parametrize("engine", ["auto", "reference"])
def test_diabetic_missing_race_explains_the_overall(diabetic_df, engine):
    """diabetic_data.csv's 2,273 rows with race '?': with the missing group, a column's
    missing cells are the sum over the groups (the overall share no longer unexplained);
    the rows without race miss weight and payer_code less often than any race, so the
    reports name '(missing race)' as the lowest group."""
    result = faircode.profile(DIABETIC, engine=engine)
    race = missing_dim(result, "race")
    absent = int(is_missing(diabetic_df["race"]).sum())
    assert absent == 2273
    for c in race["columns"]:
        assert c["missing_group"]["count"] == absent
        got = sum(g["missing"] for g in c["groups"]) + c["missing_group"]["missing"]
        assert got == c["missing_count"], c["name"]
        assert sum(g["count"] for g in c["groups"]) + absent == result["n_rows"]
        assert c["name"] not in c["flagged"] and "(missing race)" not in c["flagged"]
    text = result.report("text")
    head = next(x for x in text.splitlines() if x.startswith("  race: 6 columns with missing"))
    assert head.endswith("; '(missing race)': 2273 rows")
    weight = next(x for x in text.splitlines() if x.startswith("    weight "))
    mg = next(c for c in race["columns"] if c["name"] == "weight")["missing_group"]
    assert f"{pct(mg['missing_pct'])}% (missing race)" in weight
    md = result.report("markdown")
    assert f"| race | weight | 96.86% | (missing race) {pct(mg['missing_pct'])}% |" in md


def test_hand_made_missing_groups_against_pandas():
    """A small table: sex missing as read ('', NA), made missing by `na` (X); age
    missing (?) or implausible (200, -1, SPEC 2); every number of both missing groups
    against pandas groupby(dropna=False)."""
    text = (
        "sex,age,y,c\n"
        "M,25,1,a\nM,40,0,\nF,33,1,a\n,25,1,\n,200,0,\nNA,?,1,\nX,40,0,a\n"
        "F,-1,1,\nF,51,0,a\nM,?,,a\n"
    )
    opts = {"label": "y", "na": [["sex", "X"]], "min_group_size": 1}
    result = faircode.profile(io.BytesIO(text.encode()), opts=opts, name="t.csv")
    df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    sex = df["sex"].where(~is_missing(df["sex"]) & (df["sex"] != "X"))
    num = pd.to_numeric(df["age"].where(~is_missing(df["age"])), errors="coerce")
    age = num.where((num >= 0) & (num <= 120))
    y, c_missing = df["y"], is_missing(df["c"])
    for name, key in (("sex", sex), ("age", age)):
        frame = pd.DataFrame(
            {"size": 1, "n": ~is_missing(y), "pos": y == "1", "c": c_missing, "y": is_missing(y)}
        )
        row = nan_row(frame.groupby(key, dropna=False).sum())
        k, n, pos = int(row["size"]), int(row["n"]), int(row["pos"])
        rates = label_dim(result, name)["missing_group"]
        assert rates == {
            "count": k,
            "n": n,
            "positive": pos,
            **rate_fields(pos, n),
            "label_missing": k - n,
            "small_group": False,
        }
        by_col = {c["name"]: c for c in missing_dim(result, name)["columns"]}
        for col in ("c", "y"):
            m = int(row[col])
            lo, hi = wilson_raw(m, k)
            assert by_col[col]["missing_group"] == {
                "count": k,
                "missing": m,
                "missing_pct": r4(m / k),
                "ci_low": r4(lo),
                "ci_high": r4(hi),
            }
    assert label_dim(result, "sex")["missing_group"]["count"] == 4  # '', '', NA, X
    assert label_dim(result, "age")["missing_group"]["count"] == 4  # 200, ?, -1, ?


def _dropped_column_pair(tmp_path) -> tuple[str, str]:
    """A: sex, a `note` column missing for 40% of each group and a `score` column missing
    for 5%; B: the same rows without the `note` column."""
    rows = [("MF"[i % 2], "" if i % 5 < 2 else "x", "" if i % 20 < 1 else "1") for i in range(400)]
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("sex,note,score\n" + "".join(f"{s},{n},{c}\n" for s, n, c in rows))
    b.write_text("sex,score\n" + "".join(f"{s},{c}\n" for s, _, c in rows))
    return str(a), str(b)


def test_compare_a_column_not_in_b_is_not_compared(tmp_path):
    """SPEC 17.6: a column absent from B's header has no missing count on B: it is one
    note, no shift and no test (was "'note' missing for 'F' moved 40.00% -> 0.00%",
    confirmed, and `--fail-on missing_shift` exited 4)."""
    a, b = _dropped_column_pair(tmp_path)
    c = faircode.compare(a, b)
    (entry,) = c["missing_by_group"]
    assert [col["name"] for col in entry["columns"]] == ["score"]
    notes = [f["text"] for f in c["findings"] if f["kind"] == "not_compared"]
    assert notes == ["'note' is not a column of B: its missing data is not compared"]
    assert not [f for f in c["findings"] if f["kind"] == "missing_shift"]
    # the share tests of sex (2), its drift test and score's missing tests (2); none for note
    assert c["evidence"]["tests"] == 5
    p = cli("compare", a, b, "--fail-on", "missing_shift")
    assert p.returncode == 0, p.stdout
    assert b"'note' is not a column of B" in p.stdout
    c = faircode.compare(b, a)
    notes = [f["text"] for f in c["findings"] if f["kind"] == "not_compared"]
    assert notes == ["'note' is not a column of A: its missing data is not compared"]


def test_compare_reads_a_saved_profile_made_before_results_had_columns(tmp_path):
    """SPEC 6, 8.1, 17.6: a saved profile without `columns` is still a compare side; its
    listed columns stand for its header (the old rule) and a note says so."""
    a, b = _dropped_column_pair(tmp_path)
    saved = json.loads(cli("profile", a, "--json").stdout)
    del saved["columns"]
    old = tmp_path / "a_old.json"
    old.write_text(json.dumps(saved), encoding="utf-8")
    c = faircode.compare(str(old), b)
    notes = [f["text"] for f in c["findings"] if f["kind"] == "not_compared"]
    assert any(n.startswith("A is a saved profile without its header (columns)") for n in notes)
    assert "'note' is not a column of B: its missing data is not compared" in notes
