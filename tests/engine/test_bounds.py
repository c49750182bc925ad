"""The bounds of SPEC 0.9, end to end: files that used to need gigabytes go through the
CLI and the JS bridge in a subprocess with a memory ceiling, under 300 MB peak RSS each,
the result says what was capped, and both engines agree. Smaller cases pin the rules
(boundaries, merges, the Arrow path) cheaply."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bounds_cases import (
    BRIDGE,
    ROOT,
    measure,
    write_onehot,
    write_race,
    write_w8000,
    write_wide_geo,
    write_zip_city,
)
from jsbridge import node_command

from faircode import profile
from faircode.analyze import CELL_CAP
from faircode.evidence import UNDER_LINES
from faircode.profiler import summarize
from faircode.summary import LABEL_CAP, PAIR_COLUMNS

RSS_LIMIT_MB = 300
PY_CEILING = 1 << 30  # RLIMIT_AS of the Python child: a runaway fails instead of swapping
NODE_HEAP_MB = 256  # --max-old-space-size of the node child (V8 reserves a large address
#                     space, so RLIMIT_AS does not suit node; peak RSS is measured instead)


def run_both(
    path: Path, cross: tuple[str, str] | None = None, score_categoricals: bool = False
) -> dict:
    """Profile path with the CLI and with the JS bridge; check memory, equality, return.
    `score_categoricals`: the files of plain categoricals need it to have dimensions."""
    py_cmd = [sys.executable, "-m", "faircode", "profile", str(path), "--json"]
    js_cmd = node_command() + [
        f"--max-old-space-size={NODE_HEAP_MB}",
        str(BRIDGE),
        "profile",
        str(path),
    ]
    opts: dict = {}
    if cross:
        py_cmd += ["--cross", ",".join(cross)]
        opts["cross"] = list(cross)
    if score_categoricals:
        py_cmd.append("--score-categoricals")
        opts["score_categoricals"] = True
    if opts:
        js_cmd += ["--opts", json.dumps(opts)]
    results = []
    for name, cmd, ceiling in (("python", py_cmd, PY_CEILING), ("js", js_cmd, None)):
        rc, out, err, rss, _ = measure(cmd, as_limit=ceiling, timeout=300)
        assert rc == 0, f"{name}: exit {rc}: {err.decode()[-2000:]}"
        assert rss < RSS_LIMIT_MB, f"{name}: peak RSS {rss:.0f} MB on {path.name}"
        result = json.loads(out)
        result.pop("provenance", None)  # the CLI adds it; the bridge only when asked
        results.append(result)
    assert results[0] == results[1]
    return results[0]


def js_result(js, path: Path, **kw) -> dict:
    got = js.profile_path(path, **kw)
    assert "result" in got, got
    return got["result"]


def sub_file(src: Path, dst: Path, cols: list[str]) -> Path:
    """The given columns of a small CSV without quotes, as a new file."""
    lines = src.read_text().splitlines()
    header = lines[0].split(",")
    idx = [header.index(c) for c in cols]
    dst.write_text("".join(",".join(r.split(",")[i] for i in idx) + "\n" for r in lines))
    return dst


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("bounds")


def test_w8000_pairs_are_not_quadratic(data):
    path = write_w8000(data / "w8000.csv")
    r = run_both(path, score_categoricals=True)
    assert r["n_cols"] == 8000
    assert len(r["dimensions"]) > 1000  # every two-label column is a categorical
    a, b = r["dimensions"][0]["name"], r["dimensions"][1]["name"]
    (inter,) = r["intersections"]
    assert inter["dims"] == [a, b] and "intersection_not_counted" not in r
    # The default cross is exact: the same as profiling the two columns alone.
    scored = {"score_categoricals": True}
    alone = profile(sub_file(path, data / "w8000-ab.csv", [a, b]), opts=scored)
    assert inter == alone["intersections"][0]
    # A pair past the first 64 columns is counted exactly when asked for.
    r = run_both(path, cross=("c7998", "c7999"), score_categoricals=True)
    if {"c7998", "c7999"} <= {d["name"] for d in r["dimensions"]}:
        alone = profile(sub_file(path, data / "w8000-xy.csv", ["c7998", "c7999"]), opts=scored)
        assert r["intersections"][0] == alone["intersections"][0]


def test_one_hot_2000_columns(data):
    path = write_onehot(data / "onehot.csv")
    r = run_both(path, score_categoricals=True)
    assert len(r["dimensions"]) == 2000
    (inter,) = r["intersections"]
    assert inter["dims"] == ["f0", "f1"]
    alone = profile(
        sub_file(path, data / "onehot-ab.csv", ["f0", "f1"]), opts={"score_categoricals": True}
    )
    assert inter == alone["intersections"][0]


def test_zip_by_city_lists_1000_cells(data):
    path = write_zip_city(data / "zip_city.csv")
    r = run_both(path)
    (inter,) = r["intersections"]
    assert inter["dims"] == ["zip", "city"]
    zips = next(d for d in r["dimensions"] if d["name"] == "zip")
    cities = next(d for d in r["dimensions"] if d["name"] == "city")
    assert inter["n_cells"] == zips["n_groups"] * cities["n_groups"]
    # Every cell holds 0 or 1 row, below the 1% floor: every cell is a gap.
    assert len(inter["cells"]) == CELL_CAP
    assert inter["cells_not_listed"] == inter["n_cells"] - CELL_CAP
    assert inter["cells"][0]["a"] == zips["groups"][0]["label"]
    # Every group holds 1 row, below min_group_size: no cell is a test (SPEC 4), and
    # counting the tested ones does not visit the 10^8 cells.
    assert inter["cells_not_tested"] == inter["n_cells"]
    assert (
        f"zip x city: {inter['n_cells']} of {inter['n_cells']} cells not tested: a group of "
        "fewer than 100 rows with both known, or under 1 row expected" in r["flags"]
    )
    assert not [
        f
        for f in r["findings"]
        if f["kind"] in ("intersection_gap", "more") and f["dimensions"] == ["zip", "city"]
    ]
    # Flags: at most 5 under-represented lines per dimension, then one summary line; all
    # 10,000 are in the family of tests (SPEC 18).
    zip_flags = [f for f in r["flags"] if f.startswith("zip: ")]
    under = [f for f in zip_flags if "' is under-represented (" in f]
    assert len(under) == UNDER_LINES
    assert (
        f"zip: {10_000 - UNDER_LINES} more under-represented groups "
        "(the JSON lists all)" in zip_flags
    )
    assert r["evidence"]["confirmed"] + r["evidence"]["possible"] >= 10_000
    assert len(zips["under_represented"]) == 10_000
    assert len(r["flags"]) < 300


def test_race_with_a_million_labels_is_capped(data):
    path = write_race(data / "race_1m.csv")
    r = run_both(path)
    assert r["dropped"] == [
        {"name": "race", "kind": "race", "n_groups": None, "more_than": LABEL_CAP}
    ]
    assert [d["name"] for d in r["dimensions"]] == ["sex"]
    assert r["intersections"] == []


def test_wide_geography_past_the_cap(data):
    path = write_wide_geo(data / "geo_200k.csv", 200_000)
    r = run_both(path)
    assert r["dropped"] == [
        {"name": "zip", "kind": "geography", "n_groups": None, "more_than": LABEL_CAP}
    ]
    assert [d["name"] for d in r["dimensions"]] == ["sex"]
    assert r["intersections"] == [] and "intersection_not_counted" not in r


def test_wide_geography_within_the_cap(data):
    path = write_wide_geo(data / "geo_60k.csv", 60_000)
    r = run_both(path)
    zips = r["dimensions"][1]
    assert zips["name"] == "zip" and zips["n_groups"] == 60_000
    zip_flags = [f for f in r["flags"] if f.startswith("zip: ")]
    # 5 lines, the "more" note, and the note that no zip holds 1% of the rows to score
    assert len(zip_flags) == UNDER_LINES + 2
    assert zip_flags[-2] == "zip: 59995 more under-represented groups (the JSON lists all)"
    assert zip_flags[-1] == (
        "zip: too few rows to score (no group holds 1% of the rows); shares are shown"
    )
    (inter,) = r["intersections"]
    assert inter["n_cells"] == 120_000 and len(inter["cells"]) == CELL_CAP
    assert inter["cells_not_listed"] == 120_000 - CELL_CAP


def test_capped_geography_before_the_pair(data):
    """zip comes first and was taken to be a dimension while reading, so (sex, race) was
    not counted; zip is capped, the first two dimensions are sex and race: said so."""
    path = data / "zip_first.csv"
    with open(path, "w") as fh:
        fh.write("zip,sex,race\n")
        fh.writelines(f"z{i},{'MF'[i % 2]},{'ABC'[i % 3]}\n" for i in range(LABEL_CAP + 1))
    r = run_both(path)
    assert r["dropped"][0]["name"] == "zip" and r["dropped"][0]["n_groups"] is None
    assert r["intersections"] == []
    assert r["intersection_not_counted"] == ["sex", "race"]
    assert (
        "sex x race: intersection not counted ('zip' before it was capped); "
        "pass --cross sex,race" in r["flags"]
    )
    r = run_both(path, cross=("sex", "race"))
    assert r["intersections"][0]["dims"] == ["sex", "race"]


# ------------------------------------------------------------------ cheap rule checks


def late_pair_csv(path: Path, lead: int) -> Path:
    """`lead` one-label columns (never dimensions), then sex and race."""
    head = [f"k{i}" for i in range(lead)] + ["sex", "race"]
    rows = [["x"] * lead + [s, r] for s, r in (("M", "A"), ("F", "B"), ("M", "B"))]
    path.write_text("\n".join(",".join(r) for r in [head] + rows) + "\n")
    return path


def test_pair_past_the_first_64_columns_is_not_counted(tmp_path, js):
    inside = profile(late_pair_csv(tmp_path / "in.csv", PAIR_COLUMNS - 2))
    assert inside["intersections"][0]["dims"] == ["sex", "race"]
    path = late_pair_csv(tmp_path / "out.csv", PAIR_COLUMNS - 1)
    r = profile(path)
    assert r["intersections"] == [] and r["intersection_not_counted"] == ["sex", "race"]
    assert r["flags"][-4:] == [
        "sex x race: intersection not counted ('race' is not among "
        "the first 64 counted columns); pass --cross sex,race",
        # SPEC 17.4: race is past the group columns too
        "race: label rates and missing data by group not counted ('race' is not among "
        "the first 64 counted columns)",
        # SPEC 1.7
        "race: labels B, A look like codes; the file does not say which group each stands "
        "for (name them with --recode race:B=NAME,A=NAME)",
        # SPEC 5: 3 rows are too few to score; this note closes the list (SPEC 6)
        "no dimension has enough rows to score (sex, race); the grade is not given",
    ]
    assert js_result(js, path) == r
    # Columns overridden to ignore are not counted, so do not use up the 64.
    ov = {"k0": "ignore"}
    r = profile(path, overrides=ov)
    assert r["intersections"][0]["cells"] == inside["intersections"][0]["cells"]
    assert js_result(js, path, overrides=ov) == r
    r = profile(path, opts={"cross": "sex,race"})
    assert r["intersections"][0]["cells"] == inside["intersections"][0]["cells"]


def labels_csv(path: Path, n: int, kind_col: str = "race", offset: int = 0) -> Path:
    with open(path, "w") as fh:
        fh.write(f"{kind_col},sex\n")
        fh.writelines(f"v{offset + i},{'MF'[i % 2]}\n" for i in range(n))
    return path


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_label_cap_boundary(tmp_path, engine, js):
    at = profile(labels_csv(tmp_path / "at.csv", LABEL_CAP), engine=engine)
    assert at["dropped"] == [{"name": "race", "kind": "race", "n_groups": LABEL_CAP}]
    past = labels_csv(tmp_path / "past.csv", LABEL_CAP + 1)
    r = profile(past, engine=engine)
    assert r["dropped"] == [
        {"name": "race", "kind": "race", "n_groups": None, "more_than": LABEL_CAP}
    ]
    summary, _, _ = summarize(past, engine=engine)
    assert summary.counts[0] is None and summary.capped == [True, False]
    assert summary.missing[0] == 0
    if engine == "reference":
        assert js_result(js, past) == r


def test_merge_caps_the_union(tmp_path):
    """Two files of 60,000 labels each: neither is capped, their union is, as one file."""
    a = labels_csv(tmp_path / "a.csv", 60_000)
    b = labels_csv(tmp_path / "b.csv", 60_000, offset=60_000)
    sa, _, _ = summarize(a)
    sb, _, _ = summarize(b)
    assert sa.capped == [] and sa.counts[0] is not None
    merged = sa.merge(sb)
    assert merged.counts[0] is None and merged.capped == [True, False]
    assert (0, 1) not in merged.pairs
    whole = tmp_path / "whole.csv"
    whole.write_text(a.read_text() + "".join(b.read_text().splitlines(True)[1:]))
    r = profile([str(a), str(b)])
    assert (
        r["dropped"]
        == profile(whole)["dropped"]
        == [{"name": "race", "kind": "race", "n_groups": None, "more_than": LABEL_CAP}]
    )
    # A capped side stays capped.
    assert merged.merge(sa).capped[0] and sa.merge(merged).counts[0] is None


def test_open_column_above_a_large_max_categorical(tmp_path, js):
    """With max_categorical above LABEL_CAP an open column is capped at LABEL_CAP, and
    listed (it could have been a categorical); below, it just is no dimension."""
    path = labels_csv(tmp_path / "open.csv", LABEL_CAP + 1, kind_col="code")
    opts = {"max_categorical": LABEL_CAP + 5}
    r = profile(path, opts=opts)
    assert r["dropped"] == [
        {"name": "code", "kind": "categorical", "n_groups": None, "more_than": LABEL_CAP}
    ]
    assert js_result(js, path, opts=opts) == r
    assert profile(path)["dropped"] == []


def test_spark_style_complete_counts_are_capped_in_analysis():
    """An engine that counted every label (Spark) gets the same result."""
    from faircode.analyze import analyze
    from faircode.options import resolve
    from faircode.summary import Summary

    counts = [{f"v{i}": 1 for i in range(LABEL_CAP + 1)}, {"M": 50_001, "F": 50_000}]
    s = Summary("t", ["race", "sex"], LABEL_CAP + 1, counts, [0, 0], {})
    r = analyze(s, {}, resolve(None))
    assert r["dropped"] == [
        {"name": "race", "kind": "race", "n_groups": None, "more_than": LABEL_CAP}
    ]


def test_results_validate_against_the_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "faircode" / "schemas" / "profile.schema.json").read_text())
    jsonschema.validate(profile(late_pair_csv(tmp_path / "o.csv", PAIR_COLUMNS)), schema)
    jsonschema.validate(profile(labels_csv(tmp_path / "c.csv", LABEL_CAP + 1)), schema)
    geo = write_zip_city(tmp_path / "zc.csv", rows=2000)
    jsonschema.validate(profile(geo), schema)
