"""SPEC sections 8-10: comparison, reference baselines, provenance and JSON Schemas."""

import csv
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from util import ADULT_NAMES, ROOT, data_file, dim, prof

import faircode
from faircode import InputError
from faircode.compare import compare
from faircode.reference import parse_reference


def test_compare_hand_worked_psi_tvd_and_flags():
    # version 2's scores (score rule v2): 4 rows are too few for a v3 score (SPEC 5)
    a = prof("sex,race\nM,A\nF,A\nM,B\nF,B\n", score_rule="v2")
    b = prof("sex,race\nM,A\nF,A\nM,A\nF,C\n", score_rule="v2")
    r = compare(a, b)
    race = r["dimensions"][1]
    assert race["name"] == "race"
    # labels A 0.5 -> 0.75, B 0.5 -> 0 (floored to 1e-4), C 0 -> 0.25
    import math

    e = 0.0001
    psi = (
        (0.75 - 0.5) * math.log(0.75 / 0.5)
        + (e - 0.5) * math.log(e / 0.5)
        + (0.25 - e) * math.log(0.25 / e)
    )
    assert race["psi"] == round(psi, 4)
    assert race["tvd"] == 0.5
    assert race["drift_level"] == "significant"
    assert [(g["label"], g["status"]) for g in race["groups"]] == [
        ("B", "disappeared"),
        ("A", "shifted"),
        ("C", "appeared"),
    ]
    assert race["groups"][0]["share_delta"] == -0.5
    assert r["dimensions"][0]["drift_level"] == "none" and r["dimensions"][0]["psi"] == 0.0
    # SPEC 8: 4 rows a side are too few for the drift test: the level is possible
    assert r["flags"] == [
        "overall score dropped 9 points (100 -> 91)",
        "race: PSI 6.31 (significant band), not tested (4 -> 4 rows; a test needs 100 rows "
        "on each side)",
        "race: 'B' disappeared (50.00% -> 0.00%)",
        "race: 'C' appeared (0.00% -> 25.00%)",
    ]
    assert (race["drift_p"], race["drift_verdict"]) == (None, "possible")
    # the PSI band alone (--drift-rule psi) says the level as it did, with no verdict
    psi_rule = compare(a, b, opts={"drift_rule": "psi"})
    assert psi_rule["flags"][1] == "race: significant representation drift (PSI 6.31)"
    assert psi_rule["dimensions"][1]["drift_verdict"] is None
    assert r["dimensions"][1]["dimension_score_delta"] == 81 - 100
    # v3: neither side is scored, so no score delta and no score flag; drift is the same
    v3 = compare(prof("sex,race\nM,A\nF,A\nM,B\nF,B\n"), prof("sex,race\nM,A\nF,A\nM,A\nF,C\n"))
    assert v3["score_delta"] is None
    assert [d["dimension_score_delta"] for d in v3["dimensions"]] == [None, None]
    assert v3["flags"] == r["flags"][1:]
    # the reports say so rather than printing None
    text, md = v3.report("text"), v3.report("markdown")
    assert "score not measured on one side" in text and "None" not in text
    assert (
        "race (race): drift significant (possible), PSI 6.3143, TVD 0.5000, score not scored "
        "-> not scored" in text
    )
    row = "| race | race | significant (possible) | 6.3143 | 0.5000 | not scored | not scored |"
    assert row in md


def test_compare_score_drop_added_and_removed_dimensions():
    a = prof("sex,race\nM,A\nF,B\n", score_rule="v2")
    b = prof("sex,region\nM,N\nM,S\nM,N\nF,N\n", score_rule="v2")
    r = compare(a, b)
    assert r["score_delta"] == b["overall_score"] - a["overall_score"] < -5
    assert r["flags"][0].startswith("overall score dropped ")
    assert r["added_dimensions"] == ["region"] and r["removed_dimensions"] == ["race"]
    assert r["flags"][-2:] == ["region: dimension added", "race: dimension removed"]


def test_compare_cli_on_adult_train_vs_test():
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "faircode",
            "compare",
            str(data_file("adult.data")),
            str(data_file("adult.test")),
            "--names",
            ADULT_NAMES,
            "--skip-lines-b",
            "1",
            "--json",
            "--score-categoricals",  # income is an outcome, scored only on request (SPEC 1.5)
        ],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    income = next(d for d in r["dimensions"] if d["name"] == "income")
    # adult.test writes its labels with a trailing '.', a real drift between the files
    assert {g["status"] for g in income["groups"]} == {"appeared", "disappeared"}
    assert income["drift_level"] == "significant"
    prov = r["provenance"]
    assert (
        prov["dataset_hash_a"]
        == "sha256:" + hashlib.sha256(data_file("adult.data").read_bytes()).hexdigest()
    )
    sex = next(d for d in r["dimensions"] if d["name"] == "sex")
    assert sex["drift_level"] == "none"


def test_fail_on_drift_exit_code():
    args = [
        sys.executable,
        "-m",
        "faircode",
        "compare",
        str(data_file("adult.data")),
        str(data_file("adult.test")),
        "--names",
        ADULT_NAMES,
        "--skip-lines-b",
        "1",
        "--fail-on-drift",
        "significant",
    ]
    p = subprocess.run(args, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr  # income is not scored by default (SPEC 1.4)
    args.append("--score-categoricals")
    p = subprocess.run(args, capture_output=True, timeout=120)
    assert p.returncode == 1 and b"income" in p.stderr


def test_reference_parsing_rules():
    t = parse_reference(b"Dimension,Value,Percent\nsex,male,49\nsex,female,51\n", "r.csv")
    assert t == [{"column": "sex", "shares": [["male", 0.49], ["female", 0.51]]}]
    t = parse_reference(b"column,group,share\nrace,A,0.6\nrace,B,0.3\n", "r.csv")
    assert t[0]["shares"] == [["A", 0.6], ["B", 0.3]]
    with pytest.raises(InputError, match="unknown reference header 'pct'"):
        parse_reference(b"column,group,pct\nsex,m,1\n", "r.csv")
    with pytest.raises(InputError, match=r"^r.csv: line 3: share 'lots' is not"):
        parse_reference(b"column,group,share\nsex,m,0.5\nsex,f,lots\n", "r.csv")
    with pytest.raises(InputError, match="line 3: group 'M' of 'sex' appears twice"):
        parse_reference(b"column,group,share\nsex,m,0.5\nsex,M,0.5\n", "r.csv")


def test_reference_block_deviation_and_flags():
    table = parse_reference(b"column,group,share\nrace,A,0.5\nrace,b,0.3\nrace,C,0.2\n", "r")
    r = prof("race\n" + "A\n" * 7 + "B\n" * 3, reference=table, min_share=0)
    ref = dim(r, "race")["reference"]
    assert ref["deviation"] == 0.2
    assert ref["groups"] == [
        {"label": "A", "expected": 0.5, "actual": 0.7, "delta": 0.2, "count": 7},
        {"label": "C", "expected": 0.2, "actual": 0.0, "delta": -0.2, "count": 0},
        {"label": "b", "expected": 0.3, "actual": 0.3, "delta": 0.0, "count": 3},
    ]
    assert "race: 'C' is under-represented vs reference (0.00% vs 20.00%)" in r["flags"]
    # the reference never changes the score (v2: 10 rows are too few for a v3 score)
    with_ref = prof("race\n" + "A\n" * 7 + "B\n" * 3, reference=table, score_rule="v2")
    plain = prof("race\n" + "A\n" * 7 + "B\n" * 3, score_rule="v2")
    assert with_ref["overall_score"] == plain["overall_score"] == 88
    bad = parse_reference(b"column,group,share\nrace,A,0.5\nrace,B,0.3\n", "r")
    # the sum warning, SPEC 1.7's coded-label note, then the note that 2 rows give no
    # grade (SPEC 6's order)
    assert prof("race\nA\nB\n", reference=bad)["flags"][-3:] == [
        "reference: shares of 'race' sum to 0.800, not 1",
        "race: labels A, B look like codes; the file does not say which group each stands "
        "for (name them with --recode race:A=NAME,B=NAME)",
        "no dimension has enough rows to score (race); the grade is not given",
    ]


def test_a_reference_column_no_dimension_takes_is_a_note():
    """SPEC 9: a column of the reference that names no dimension (a typo, a dimension
    the data lacks, a kind two dimensions share) is said, not left out in silence."""
    table = parse_reference(
        b"column,group,share\ngender,male,0.1\ngender,female,0.9\nsex,F,0.5\nsex,M,0.5\n"
        b"geography,north,1\n",
        "r",
    )
    data = "sex,region,state\n" + "F,n,a\nM,s,b\n" * 30
    r = prof(data, {"region": "geography", "state": "geography"}, reference=table)
    said = [f for f in r["flags"] if f.startswith("reference: ")]
    tail = "matches no profiled dimension (by name, or by a kind only one dimension has)"
    assert said == [
        f"reference: 'gender' {tail}; nothing compared for it",
        f"reference: 'geography' {tail}; nothing compared for it",
    ]
    assert dim(r, "sex")["reference"]["deviation"] == 0.0
    matched = parse_reference(b"column,group,share\nsex,F,0.5\nsex,M,0.5\n", "r")
    assert not [f for f in prof(data, reference=matched)["flags"] if "reference" in f]


def test_a_reference_matched_in_part_does_not_test_its_empty_groups():
    """SPEC 9: labels that match only in part (COMPAS's Caucasian vs a census White) get
    a note naming the unmatched labels on each side, and a reference group with no row
    is not tested while the data has labels the reference does not name."""
    table = parse_reference(
        b"column,group,share\nrace,White,0.6\nrace,Black,0.13\nrace,hispanic,0.19\n"
        b"race,Asian,0.05\nrace,Other,0.03\n",
        "r",
    )
    data = "race\n" + "Caucasian\n" * 40 + "African-American\n" * 50 + "Hispanic\n" * 10
    r = prof(data, reference=table, min_share=0)
    plain = prof(data, min_share=0)
    note = (
        "race: labels match the reference in part: 'African-American', 'Caucasian' in the "
        "data only, 'White', 'Black', 'Asian', ... in the reference only; a reference group "
        "with no rows is not tested (--recode can rename labels)"
    )
    ref_flags = [f for f in r["flags"] if "reference" in f]
    assert ref_flags == [
        note,
        "race: 'hispanic' is under-represented vs reference (10.00% vs 19.00%)",
    ]
    # shown in the block, not tested: 3 tests (hispanic and the two data-only labels)
    assert {g["label"] for g in dim(r, "race")["reference"]["groups"]} == {
        "White", "Black", "hispanic", "Asian", "Other", "African-American", "Caucasian"
    }  # fmt: skip
    assert r["evidence"]["tests"] - plain["evidence"]["tests"] == 3
    # every data label named: a reference group with no row is still a finding
    named = "race\n" + "White\n" * 60 + "Black\n" * 30 + "Hispanic\n" * 10
    r = prof(named, reference=table, min_share=0)
    assert "race: 'Asian' is under-represented vs reference (0.00% vs 5.00%)" in r["flags"]
    assert not any("in part" in f for f in r["flags"])
    assert r["evidence"]["tests"] - prof(named, min_share=0)["evidence"]["tests"] == 5
    # a data label the reference lacks, every reference group present: 'none'
    extra = named + "Asian\nOther\nUnknown\n"
    assert (
        "race: labels match the reference in part: 'Unknown' in the data only, none in the "
        "reference only; a reference group with no rows is not tested (--recode can rename "
        "labels)"
    ) in prof(extra, reference=table)["flags"]


def test_a_single_year_span_starts_at_the_youngest_age_held():
    """SPEC 9: the first band's expected share covers the years from the youngest age
    the data holds, not the band's first year: a 0-17 band holding only 17-year-olds
    expects the population's 17-year-olds, not its children."""
    lines = ["column,group,share"] + [f"age,{y},{s}" for y, s in enumerate([1, 2, 3, 4, 5, 6])]
    table = parse_reference("\n".join(lines).encode(), "r")
    # bands 0-1, 2-3, 4+; the youngest age 1.5 is year 1: the span is 1..5 (shares 20)
    r = prof("age\n1.5\n2\n4\n5\n", reference=table, age_bands=[0, 2, 4])
    ref = dim(r, "age")["reference"]
    assert ref["ages"] == [1, 5]
    assert {g["label"]: g["expected"] for g in ref["groups"]} == {
        "0-1": 0.1,
        "2-3": 0.35,
        "4+": 0.55,
    }
    # an interval holds no age below its first year: "(1, 3]" is 2..3 and starts the span
    r = prof('age\n"(1, 3]"\n[4-6)\n', reference=table, age_bands=[0, 2, 4])
    ref = dim(r, "age")["reference"]
    assert ref["ages"] == [2, 5] and {g["label"]: g["expected"] for g in ref["groups"]} == {
        "2-3": 0.3889,
        "4+": 0.6111,
    }
    # an implausible age (SPEC 2) does not start the span
    r = prof("age\n-3\n3\n4\n", reference=table, age_bands=[0, 2, 4])
    assert dim(r, "age")["reference"]["ages"] == [3, 5]


def test_adult_against_us_2024_expects_no_children():
    """Adult's youngest are 17: the 0-17 band expects 17-year-olds only (1.67%, not the
    21.50% of ages 0-17), so it is no under-representation finding."""
    r = faircode.profile(
        data_file("adult.data"), opts={"names": ADULT_NAMES, "reference": _us_2024()}
    )
    ref = dim(r, "age")["reference"]
    assert ref["ages"] == [17, 100]
    young = next(g for g in ref["groups"] if g["label"] == "0-17")
    assert young["expected"] == 0.0167 and young["actual"] == 0.0121
    assert not any("'0-17' is under-represented vs reference" in f for f in r["flags"])


def _us_2024() -> list[dict]:
    from faircode.reference import builtin_bytes

    return parse_reference(builtin_bytes("us-2024"), "us-2024")


def test_compas_against_us_2024_flags_women():
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "faircode",
            "profile",
            "--sample",
            "--json",
            "--reference",
            "us-2024",
        ],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    sex = next(d for d in r["dimensions"] if d["name"] == "sex")
    female = next(g for g in sex["reference"]["groups"] if g["label"] == "Female")
    # Census July 2024: 171,773,106 females of 340,110,988 = 0.505050; COMPAS: 1395 / 7214
    assert female["expected"] == 0.5051 and female["actual"] == 0.1934
    assert "sex: 'Female' is under-represented vs reference (19.34% vs 50.51%)" in r["flags"]
    ref_bytes = (ROOT / "faircode" / "data" / "reference-us-2024.csv").read_bytes()
    assert r["provenance"]["reference_hash"] == "sha256:" + hashlib.sha256(ref_bytes).hexdigest()


CENSUS_FILES = ("nc-est2019-agesex-res.csv", "nc-est2024-agesex-res.csv")


def test_builtin_baselines_are_reproducible_from_the_census_files(tmp_path):
    import shutil

    work = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", work / "scripts")
    (work / "faircode" / "data").mkdir(parents=True)
    census = {data_file(f"census/{n}").parent for n in CENSUS_FILES}
    assert len(census) == 1  # one folder holds both
    subprocess.run(
        [sys.executable, str(work / "scripts" / "make_baselines.py"), str(census.pop())],
        check=True,
        capture_output=True,
    )
    for year in ("2019", "2024"):
        name = f"reference-us-{year}.csv"
        assert (work / "faircode" / "data" / name).read_bytes() == (
            ROOT / "faircode" / "data" / name
        ).read_bytes()


def test_provenance_block_and_no_provenance(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"sex\r\nM\r\nF\r\n")
    base = [sys.executable, "-m", "faircode", "profile", str(path), "--json", "--map", "sex=sex"]
    r = json.loads(subprocess.run(base, capture_output=True, check=True).stdout)
    prov = r.pop("provenance")
    assert prov["dataset_hash"] == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    assert prov["engine"] == "python" and prov["overrides"] == {"sex": "sex"}
    assert prov["params"]["min_share"] == 0.05 and prov["params"]["max_age"] == 120
    assert r == faircode.profile(path, overrides={"sex": "sex"})
    plain = json.loads(
        subprocess.run(base + ["--no-provenance"], capture_output=True, check=True).stdout
    )
    assert "provenance" not in plain and plain == r


def test_results_validate_against_the_json_schemas():
    jsonschema = pytest.importorskip("jsonschema", reason="pip install jsonschema (test extra)")
    schemas = Path(faircode.__file__).parent / "schemas"
    profile_schema = json.loads((schemas / "profile.schema.json").read_text())
    compare_schema = json.loads((schemas / "compare.schema.json").read_text())
    results = [
        faircode.profile(data_file(f))
        for f in ("compas-scores-two-years.csv", "insurance.csv", "credit.csv")
    ]
    results.append(prof("id\n" + "\n".join(map(str, range(30)))))
    for r in results:
        jsonschema.validate(r, profile_schema)
    jsonschema.validate(compare(results[0], results[1]), compare_schema)
    bad = dict(results[0], grade="Z")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, profile_schema)


def test_provenance_for_api_results_notes_a_missing_digest():
    import pandas as pd

    from faircode.provenance import provenance_for

    path = data_file("insurance.csv")
    prov = provenance_for(path, overrides={"region": "geography"}, opts={"min_share": 0.1})
    assert prov["dataset_hash"] == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    assert "dataset_hash_note" not in prov and prov["params"]["min_share"] == 0.1
    frame = provenance_for(pd.read_csv(path))
    assert frame["dataset_hash"] is None
    assert frame["dataset_hash_note"] == "an in-memory DataFrame has no raw bytes to hash"


def test_a_share_that_moves_is_a_finding_with_its_interval():
    """SPEC 18.1: 'F' 50% -> 66.7% of 600 rows on each side is a confirmed share_shift,
    Newcombe's interval as statsmodels' (the groups' shares as independent proportions);
    a 2-point move is within share_gap, tested but not listed."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    a = faircode.profile(io.BytesIO(b"sex\n" + b"M\n" * 300 + b"F\n" * 300), name="a.csv")
    b = faircode.profile(io.BytesIO(b"sex\n" + b"M\n" * 200 + b"F\n" * 400), name="b.csv")
    c = faircode.compare(a, b)
    shifts = {f["groups"][0]: f for f in c["findings"] if f["kind"] == "share_shift"}
    assert sorted(shifts) == ["F", "M"]  # two groups: each share moved
    f = shifts["F"]
    assert f["verdict"] == "confirmed" and f["n"] == 1200 and f["threshold"] == 0.05
    assert f["text"] == (
        "sex: 'F' share moved 50.00% -> 66.67% (600 -> 600 rows, change 11.11 to 22.08 pts)"
    )
    lo, hi = confint_proportions_2indep(400, 600, 300, 600, method="newcomb")
    assert (f["ci_low"], f["ci_high"]) == (round(lo, 4), round(hi, 4))
    assert c["evidence"]["tests"] == 3  # both groups' shares and the drift test
    small = faircode.profile(io.BytesIO(b"sex\n" + b"M\n" * 288 + b"F\n" * 312), name="s.csv")
    d = faircode.compare(a, small)
    assert not [f for f in d["findings"] if f["severity"] == "finding"]
    assert d["evidence"]["tests"] == 3


def test_a_group_that_disappears_is_a_share_shift_finding(tmp_path):
    """SPEC 8, 18.1: 'X' 100 of 600 rows in A, none in B, is tested as any share: Newcombe's
    interval of 0/600 - 100/600, a confirmed share_shift whose text says it disappeared (no
    second note saying so) and that `--fail-on share_shift` exits 4 on; 'Y' (2 rows, within
    share_gap) keeps its note. Before, such a group was only a note, counted as a test that
    could never be a finding (the COMPAS repro: Hispanic 10.22% -> 0%, exit 0)."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    a_csv, b_csv = tmp_path / "a.csv", tmp_path / "b.csv"
    a_csv.write_text("sex\n" + "M\n" * 300 + "F\n" * 198 + "X\n" * 100 + "Y\n" * 2)
    b_csv.write_text("sex\n" + "M\n" * 300 + "F\n" * 300)
    c = faircode.compare(faircode.profile(a_csv), faircode.profile(b_csv))
    assert {g["label"]: g["status"] for g in dim(c, "sex")["groups"]}["X"] == "disappeared"
    x = next(f for f in c["findings"] if f["groups"] == ["X"])
    assert (x["kind"], x["verdict"], x["n"], x["value"]) == (
        "share_shift",
        "confirmed",
        1200,
        -0.1667,
    )
    lo, hi = confint_proportions_2indep(0, 600, 100, 600, method="newcomb")
    assert (x["ci_low"], x["ci_high"]) == (round(lo, 4), round(hi, 4))
    assert x["text"].startswith(
        "sex: 'X' disappeared, share moved 16.67% -> 0.00% (600 -> 600 rows"
    )
    assert "sex: 'Y' disappeared (0.33% -> 0.00%)" in c["flags"]
    assert not any(f.startswith("sex: 'X' disappeared (") for f in c["flags"])
    assert c["evidence"]["tests"] == 5  # each group's share once: M, F, X, Y; the drift test
    # the other way round the group appeared, as confirmed
    back = faircode.compare(faircode.profile(b_csv), faircode.profile(a_csv))
    x = next(f for f in back["findings"] if f["groups"] == ["X"])
    assert (x["kind"], x["verdict"]) == ("share_shift", "confirmed")
    assert x["text"].startswith("sex: 'X' appeared, share moved 0.00% -> 16.67%")
    args = [sys.executable, "-m", "faircode", "compare", str(a_csv), str(b_csv)]
    p = subprocess.run([*args, "--fail-on", "share_shift"], capture_output=True, timeout=60)
    assert p.returncode == 4, p.stderr
    assert b"first: sex: 'X' disappeared, share moved" in p.stderr


def test_a_dimension_blank_on_one_side_is_not_compared(tmp_path):
    """SPEC 8: B's sex column all blank has no shares (count / n, n = 0): its
    representation is not compared (null PSI, TVD and level, no groups, one note), not
    every group 'disappeared' with PSI 8.67, and --fail-on-drift does not fail on it."""
    jsonschema = pytest.importorskip("jsonschema", reason="pip install jsonschema (test extra)")
    rows = [("MF"[i % 3 % 2], "AB"[i % 4 // 3]) for i in range(120)]
    a_csv = tmp_path / "a.csv"
    b_csv = tmp_path / "b.csv"
    a_csv.write_text("sex,race\n" + "".join(f"{s},{r}\n" for s, r in rows))
    b_csv.write_text("sex,race\n" + "".join(f",{r}\n" for _, r in rows))
    r = faircode.compare(faircode.profile(a_csv), faircode.profile(b_csv))
    sex = dim(r, "sex")
    assert (sex["psi"], sex["tvd"], sex["drift_level"]) == (None, None, None)
    assert (sex["n_a"], sex["n_b"], sex["groups"]) == (120, 0, [])
    assert [f["kind"] for f in r["findings"] if f["dimensions"] == ["sex"]] == ["not_compared"]
    assert "sex: no row of B has a value: its representation is not compared" in r["flags"]
    assert not any("disappeared" in f or "sex: " in f and "drift" in f for f in r["flags"])
    assert r["evidence"]["tests"] == 3  # race's groups and its drift test only
    schema = json.loads(
        (Path(faircode.__file__).parent / "schemas/compare.schema.json").read_text()
    )
    jsonschema.validate(r, schema)
    # every report says not compared instead of crashing on the nulls
    text = r.report("text")
    assert "sex (sex): drift not compared, PSI -, TVD -, score" in text
    md = r.report("markdown")
    assert "| sex | sex | not compared | - | - |" in md
    assert md.startswith("### faircode compare: ")
    csv_text = r.report("csv")
    assert "its representation is not compared" in csv_text and "None" not in csv_text
    assert "sex not compared" in repr(r)
    # the other way round, A is named
    back = faircode.compare(faircode.profile(b_csv), faircode.profile(a_csv))
    assert "sex: no row of A has a value: its representation is not compared" in back["flags"]
    args = [sys.executable, "-m", "faircode", "compare", str(a_csv), str(b_csv)]
    p = subprocess.run([*args, "--fail-on-drift", "moderate"], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr


def test_a_drift_within_sampling_is_possible_in_every_report_and_not_a_gate(tmp_path):
    """SPEC 8: two seeded 100-row samples of one 10-group distribution (PSI 0.46, the
    significant band) are within what sampling gives: each report says the level with its
    verdict, and --fail-on-drift fails only under --drift-rule psi (the earlier gate)."""
    a_csv, b_csv = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, counts in (
        (a_csv, (18, 19, 20, 8, 11, 7, 10, 2, 3, 2)),
        (b_csv, (27, 20, 17, 9, 9, 9, 1, 5, 0, 3)),
    ):
        path.write_text("race\n" + "".join(f"g{i}\n" * c for i, c in enumerate(counts)))
    r = faircode.compare(faircode.profile(a_csv), faircode.profile(b_csv))
    race = dim(r, "race")
    assert (race["drift_level"], race["drift_verdict"]) == ("significant", "possible")
    assert r["flags"][0] == (
        "race: PSI 0.46 (significant band) is within what sampling alone gives "
        f"(Holm-adjusted p {race['drift_p']:.4f}, 100 -> 100 rows)"
    )
    assert "race (race): drift significant (possible), PSI 0.4614" in r.report("text")
    md = r.report("markdown")
    assert md.startswith("### faircode compare: no confirmed representation drift")
    assert "| race | race | significant (possible) |" in md
    rows = list(csv.DictReader(io.StringIO(r.report("csv"))))
    group = next(row for row in rows if row["section"] == "group")
    assert (group["drift_verdict"], group["drift_p"]) == ("possible", str(race["drift_p"]))
    assert "race significant (possi" in repr(r)  # the repr clips its drift list
    old = faircode.compare(
        faircode.profile(a_csv), faircode.profile(b_csv), opts={"drift_rule": "psi"}
    )
    assert old.report("markdown").startswith("### faircode compare: significant representation")
    args = [sys.executable, "-m", "faircode", "compare", str(a_csv), str(b_csv)]
    p = subprocess.run([*args, "--fail-on-drift", "moderate"], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    p = subprocess.run(
        [*args, "--fail-on-drift", "moderate", "--drift-rule", "psi"],
        capture_output=True,
        timeout=60,
    )
    assert p.returncode == 1 and p.stderr == b"faircode: moderate drift or worse in race\n"


def test_a_one_row_group_that_disappears_never_reads_zero_to_zero(tmp_path):
    """SPEC 8: one row of 30,000 that disappears (its share rounds to 0.00%) reads
    `<0.01% -> 0.00%` in the note and every report's group row, not "nothing changed";
    the other way round it appeared. JSON keeps the 4-dp share."""
    a_csv, b_csv = tmp_path / "a.csv", tmp_path / "b.csv"
    a_csv.write_text("race\n" + "w\n" * 15000 + "b\n" * 14999 + "x\n")
    b_csv.write_text("race\n" + "w\n" * 15000 + "b\n" * 15000)
    for one, other, status, shares, change in (
        (a_csv, b_csv, "disappeared", "<0.01% -> 0.00%", "-<0.01 pts"),
        (b_csv, a_csv, "appeared", "0.00% -> <0.01%", "+<0.01 pts"),
    ):
        r = faircode.compare(faircode.profile(one), faircode.profile(other))
        x = next(g for g in dim(r, "race")["groups"] if g["label"] == "x")
        assert (x["status"], x["share_a"] + x["share_b"]) == (status, 0.0)
        assert f"race: 'x' {status} ({shares})" in r["flags"]
        a, b = shares.split(" -> ")
        row = next(line for line in r.report("text").splitlines() if line.startswith("  x "))
        assert row.split(maxsplit=4)[1:] == [a, "->", b, f"({change})  [{status}]"]
        assert f"| race | x | {a} | {b} | {change} | {status} |" in r.report("markdown")


def test_a_group_of_all_rows_but_one_never_reads_a_hundred_percent(tmp_path):
    """SPEC 8, the mirror of the above: 29,999 rows of 30,000 (the share rounds to
    100.00%) beside a group with one row read `>99.99%` in the finding and every
    report's group row; a group that is every row of its side reads 100.00%."""
    a_csv, b_csv, c_csv = (tmp_path / f"{x}.csv" for x in "abc")
    a_csv.write_text("race\n" + "w\n" * 29999 + "x\n")
    b_csv.write_text("race\n" + "w\n" * 15000 + "b\n" * 15000)
    c_csv.write_text("race\n" + "w\n" * 30000)
    for one, shown in ((a_csv, ">99.99%"), (c_csv, "100.00%")):
        r = faircode.compare(faircode.profile(one), faircode.profile(b_csv))
        w = next(g for g in dim(r, "race")["groups"] if g["label"] == "w")
        assert w["share_a"] == 1.0
        assert any(f"race: 'w' share moved {shown} -> 50.00% (" in f for f in r["flags"])
        row = next(line for line in r.report("text").splitlines() if line.startswith("  w "))
        assert row.split(maxsplit=4)[1:] == [shown, "->", "50.00%", "(-50.00 pts)"]
        assert f"| race | w | {shown} | 50.00% | -50.00 pts | shifted |" in r.report("markdown")


def test_an_actual_share_of_some_rows_never_reads_zero_or_a_hundred():
    """SPEC 9 (8's rule): against the reference, one row of 30,000 reads `<0.01%` and the
    29,999 beside it `>99.99%` in the flag, the terminal's and Markdown's table; the CSV
    holds the count; a group with no row keeps 0.00%, and one holding every row 100.00%."""
    table = parse_reference(b"column,group,share\nsex,Male,0.5\nsex,Female,0.5\n", "r")
    r = prof("sex\n" + "Male\n" * 29999 + "Female\n", reference=table)
    ref = dim(r, "sex")["reference"]
    assert [(g["label"], g["actual"], g["count"]) for g in ref["groups"]] == [
        ("Female", 0.0, 1),
        ("Male", 1.0, 29999),
    ]
    assert "sex: 'Female' is under-represented vs reference (<0.01% vs 50.00%)" in r["flags"]
    text, md = r.report("text"), r.report("markdown")
    for label, actual, change in (("Female", "<0.01%", "-50.00"), ("Male", ">99.99%", "+50.00")):
        assert any(
            line.split() == [label, "50.00%", actual, change, "pts"] for line in text.splitlines()
        )
        assert f"| {label} | 50.00% | {actual} | {change} pts |" in md
    rows = [
        row for row in csv.DictReader(io.StringIO(r.report("csv"))) if row["section"] == "reference"
    ]
    assert [(row["label"], row["count"], row["share"]) for row in rows] == [
        ("Female", "1", "0.0"),
        ("Male", "29999", "1.0"),
    ]
    r = prof("sex\n" + "Male\n" * 30000, reference=table)
    assert "sex: 'Female' is under-represented vs reference (0.00% vs 50.00%)" in r["flags"]
    assert "| Male | 50.00% | 100.00% | +50.00 pts |" in r.report("markdown")
