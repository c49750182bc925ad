"""Parity of sections 8-10 between the engines: compare, reference baselines, provenance.

Python and JS must give `==` compare results on pairs of generated files (one often
derived from the other by dropping or resampling rows), `==` parsed reference tables
and reference-scored profiles (errors included), the same streaming SHA-256 digest for
the same bytes, and the same resolved provenance params.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from parityutil import assert_same, run_js, run_python
from strategies import (
    INTERVALS,
    INTERVALS_FIT,
    SEX_WORDS,
    Case,
    compare_opts,
    csv_cases,
    derive,
    label_missing_cases,
    sampled,
    v2_cases,
)
from util import ADULT_NAMES, ROOT, data_file

import faircode
from faircode.compare import compare
from faircode.options import resolve
from faircode.reference import parse_reference


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# Half the profile's examples (150 in CI, 10,000 deep): each example profiles two files
# in both engines, and test_js_parity.py's csv_cases tests cover the profiles themselves.
HALF = settings(max_examples=max(100, settings.default.max_examples // 2))


@HALF
@given(st.data())
def test_compare_parity(js, data):
    case = data.draw(csv_cases())
    a_bytes = case.data
    b_bytes = derive(data.draw, a_bytes)
    py_a = run_python(io.BytesIO(a_bytes), case.overrides, case.opts, name="a.csv")
    py_b = run_python(io.BytesIO(b_bytes), case.overrides, case.opts, name="b.csv")
    assume("result" in py_a and "result" in py_b)
    copts = data.draw(compare_opts)
    py = {
        "result": json.loads(
            json.dumps(compare(py_a["result"], py_b["result"], opts=dict(case.opts, **copts)))
        )
    }
    req = {
        "op": "compare",
        "opts": dict(case.opts, **copts),
        "overrides": [[k, v] for k, v in case.overrides.items()],
        "a": {"bytes_b64": b64(a_bytes), "name": "a.csv", "opts": case.opts},
        "b": {"bytes_b64": b64(b_bytes), "name": "b.csv", "opts": case.opts},
        "chunk_size": case.chunk_size,
    }
    got = run_js(js.request(req))
    assert_same(py, got, f"A: {a_bytes!r}\nB: {b_bytes!r}\nopts={case.opts} {copts}")


HEADER_SPELLINGS = {
    "column": ["column", "Column", "DIMENSION", "dimension"],
    "group": ["group", "Value", "label", "GROUP"],
    "share": ["share", "Expected", "percent", "SHARE"],
}


@st.composite
def reference_tables(draw) -> bytes:
    roles = draw(st.permutations(["column", "group", "share"]))
    header = [draw(sampled(HEADER_SPELLINGS[r])) for r in roles]
    if draw(st.integers(0, 15)) == 0:
        header[draw(st.integers(0, 2))] = draw(sampled(["pct", "", "share"]))
    percent = draw(st.booleans())
    rows = []
    for col in draw(
        st.lists(
            sampled(["sex", "race", "age", "gender", "region", "geography", "x"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    ):
        if draw(st.integers(0, 3)) == 0:
            # a table by single year of age (SPEC 9): contiguous or scattered years
            if draw(st.booleans()):
                lo = draw(sampled([0, 0, 5, 18, 30]))
                hi = draw(sampled([17, 29, 64, 90, 100, 100]))
                years = list(range(lo, max(lo, hi) + 1))
            else:
                years = sorted(draw(st.sets(st.integers(0, 110), min_size=1, max_size=12)))
            for y in years:
                share = draw(st.integers(0, 100)) / 10000
                label = draw(sampled([str(y)] * 9 + [f"{y:03d}"]))
                rows.append({"column": col, "group": label, "share": str(share)})
            continue
        labels = draw(
            st.lists(
                sampled(
                    [
                        "M",
                        "F",
                        "m",
                        "f",
                        "Male",
                        "Female",
                        "Man",
                        "women",
                        "GIRL",
                        "A",
                        "B",
                        "White",
                        "other",
                        "18-29",
                        "30-44",
                        "75+",
                        "0-17",
                        "😀",
                    ]
                ),
                min_size=1,
                max_size=5,
                unique=True,
            )
        )
        for label in labels:
            share = draw(st.integers(0, 100)) / 100
            text = str(round(share * 100, 2)) if percent else str(share)
            if draw(st.integers(0, 30)) == 0:
                text = draw(sampled(["lots", "-0.1", "1e-3", "", " 0.5 "]))
            rows.append({"column": col, "group": label, "share": text})
    lines = [",".join(header)]
    for row in rows:
        lines.append(",".join(row[r] for r in roles))
    return ("\n".join(lines) + "\n").encode()


def py_reference(data: bytes) -> dict:
    try:
        return {"result": parse_reference(data, "ref.csv")}
    except faircode.InputError as exc:
        return {"error": str(exc)}


@given(reference_tables(), st.data())
def test_reference_parity(js, ref: bytes, data):
    py = py_reference(ref)
    got = run_js(js.request({"op": "reference", "bytes_b64": b64(ref), "name": "ref.csv"}))
    assert_same(py, got, f"reference bytes: {ref!r}")
    if "error" in py:
        return
    case = data.draw(data.draw(sampled([csv_cases(), v2_cases(), age_files()])))
    opts = dict(case.opts, reference=py["result"])
    if data.draw(st.booleans()):
        opts["reference_flag"] = data.draw(sampled([0, 0.01, 0.05, 0.2]))
    prof_py = run_python(io.BytesIO(case.data), case.overrides, opts, name="t.csv")
    req = {
        "bytes_b64": b64(case.data),
        "name": "t.csv",
        "reference_b64": b64(ref),
        "reference_name": "ref.csv",
        "opts": {k: v for k, v in opts.items() if k != "reference"},
        "overrides": [[k, v] for k, v in case.overrides.items()],
        "chunk_size": case.chunk_size,
    }
    assert_same(prof_py, run_js(js.request(req)), f"{case.describe()}\nreference: {ref!r}")
    if any(
        "matches no profiled dimension" in f for f in prof_py.get("result", {}).get("flags", [])
    ):
        event("reference: a column no dimension takes")
    for d in prof_py.get("result", {}).get("dimensions", []):
        block = d.get("reference")
        if block is not None:
            event(
                "reference: "
                + (
                    "single years"
                    if "ages" in block
                    else "no match"
                    if block["deviation"] is None
                    else "labels"
                )
            )


@st.composite
def age_files(draw) -> Case:
    """An age column (numeric years, intervals that fit the bands or not) and a sex
    column in assorted spellings: what single-year and alias matching read (SPEC 9)."""
    n_rows = draw(st.integers(1, 80))
    shape = draw(sampled(["years", "years", "fit", "written"]))
    if shape == "years":
        lo = draw(sampled([0, 18, 20, 65]))
        pool = [str(v) for v in range(lo, max(lo + 1, draw(sampled([40, 90, 110, 130]))))]
    else:
        pool = INTERVALS_FIT if shape == "fit" else INTERVALS_FIT + INTERVALS
    sub = draw(st.lists(sampled(pool), min_size=1, max_size=10))
    sexes = draw(st.lists(sampled(SEX_WORDS + ["Other", "X"]), min_size=1, max_size=4))
    name = draw(sampled(["age", "Age", "age_group", "AGE_CAT", "yob"]))
    lines = [f"{name},sex"]
    for _ in range(n_rows):
        age = draw(sampled(sub))
        cell = f'"{age}"' if "," in age else age
        lines.append(f"{cell},{draw(sampled(sexes))}")
    opts: dict = {}
    if draw(st.integers(0, 2)) == 0:
        opts["age_bands"] = draw(
            sampled([[0, 10, 20, 30, 40, 50, 60, 70, 80, 90], [0, 18, 65], [0, 50], [0, 100]])
        )
    if draw(st.integers(0, 3)) == 0:
        opts["recode"] = [["sex", draw(sampled(sexes)), draw(sampled(["Male", "Female", "NA"]))]]
    return Case(("\n".join(lines) + "\n").encode(), {}, opts, 1 << 20, 1 << 20)


@st.composite
def single_year_tables(draw) -> bytes:
    """`age` by single year (all of 0..100 as the built-in baselines, a part, or
    scattered years, some written 007) and `sex` in census or other spellings."""
    how = draw(sampled(["baseline", "part", "scattered"]))
    if how == "baseline":
        years = list(range(0, 101))
    elif how == "part":
        lo = draw(sampled([0, 5, 18, 21, 30]))
        years = list(range(lo, lo + draw(st.integers(1, 90))))
    else:
        years = sorted(draw(st.sets(st.integers(0, 125), min_size=1, max_size=15)))
    lines = ["column,group,share"]
    for y in years:
        share = draw(st.integers(0, 30)) / 1000 if draw(st.integers(0, 9)) else 0.0
        lines.append(f"age,{y:03d}" if draw(st.integers(0, 20)) == 0 else f"age,{y}")
        lines[-1] += f",{share}"
    for label in draw(
        sampled([["Male", "Female"], ["M", "F"], ["male", "female", "other"], ["A", "B"]])
    ):
        lines.append(f"sex,{label},{draw(st.integers(0, 100)) / 100}")
    return ("\n".join(lines) + "\n").encode()


@given(single_year_tables(), age_files())
def test_single_year_reference_parity(js, ref: bytes, case: Case):
    """SPEC 9 single years of age and sex aliases: numeric ages (banded), intervals that
    fit the bands and intervals kept as written, against single-year tables."""
    table = parse_reference(ref, "ref.csv")
    opts = dict(case.opts, reference=table)
    prof_py = run_python(io.BytesIO(case.data), case.overrides, opts, name="t.csv")
    req = {
        "bytes_b64": b64(case.data),
        "name": "t.csv",
        "reference_b64": b64(ref),
        "reference_name": "ref.csv",
        "opts": case.opts,
        "chunk_size": case.chunk_size,
    }
    assert_same(prof_py, run_js(js.request(req)), f"{case.describe()}\nreference: {ref!r}")
    if any(
        "matches no profiled dimension" in f for f in prof_py.get("result", {}).get("flags", [])
    ):
        event("reference: a column no dimension takes")
    for d in prof_py.get("result", {}).get("dimensions", []):
        block = d.get("reference")
        if block is not None:
            event(
                f"{d['kind']}/{d['age_mode']}: "
                + (
                    "single years"
                    if "ages" in block
                    else "no match"
                    if block["deviation"] is None
                    else "labels"
                )
            )


@given(st.binary(max_size=3000), sampled([1, 3, 63, 64, 65, 1000, 1 << 20]))
def test_streaming_sha256_matches_hashlib(js, data, chunk):
    got = js.request({"op": "hash", "bytes_b64": b64(data), "chunk_size": chunk})
    assert got["result"] == "sha256:" + hashlib.sha256(data).hexdigest()


@given(st.data())
def test_provenance_params_parity(js, data):
    case = data.draw(csv_cases())
    try:
        params = resolve(case.opts).params()
    except faircode.InputError:
        return
    got = js.request(
        {
            "op": "provenance",
            "opts": case.opts,
            "overrides": [[k, v] for k, v in case.overrides.items()],
            "hashes": {"dataset_hash": None},
        }
    )
    assert got["result"]["params"] == json.loads(json.dumps(params))
    assert got["result"]["overrides"] == case.overrides
    assert got["result"]["engine"] == "js"
    assert got["result"]["faircode_version"] == faircode.__version__
    assert got["result"]["dataset_hash_note"]


def test_adult_compare_parity(js):
    # income (">50K" vs ">50K." in adult.test) drifts: scored as a generic categorical
    opts = {"names": ADULT_NAMES, "score_categoricals": True}
    a = faircode.profile(data_file("adult.data"), opts=opts)
    b = faircode.profile(data_file("adult.test"), opts=dict(opts, skip_lines=1))
    py = json.loads(json.dumps(compare(a, b)))
    got = js.request(
        {
            "op": "compare",
            "opts": opts,
            "a": {"path": str(data_file("adult.data"))},
            "b": {"path": str(data_file("adult.test")), "opts": dict(opts, skip_lines=1)},
        }
    )
    assert got["result"] == py
    assert any(d["drift_level"] != "none" for d in py["dimensions"])


def test_compas_against_us_2024_parity(js):
    ref = (ROOT / "faircode" / "data" / "reference-us-2024.csv").read_bytes()
    table = parse_reference(ref, "us-2024")
    path = data_file("compas-scores-two-years.csv")
    py = json.loads(json.dumps(faircode.profile(path, opts={"reference": table})))
    got = js.request({"path": str(path), "reference_b64": b64(ref), "reference_name": "us-2024"})
    assert got["result"] == py
    assert "sex: 'Female' is under-represented vs reference (19.34% vs 50.51%)" in py["flags"]


def test_single_year_span_starts_at_the_youngest_age_parity(js):
    """SPEC 9: the span starts at the youngest age held (a number's whole years, an
    interval's first year) in both engines: Adult (youngest 17) and small cases."""
    ref = (ROOT / "faircode" / "data" / "reference-us-2024.csv").read_bytes()
    table = parse_reference(ref, "us-2024")
    opts = {"names": ADULT_NAMES}
    path = data_file("adult.data")
    py = json.loads(json.dumps(faircode.profile(path, opts=dict(opts, reference=table))))
    got = js.request(
        {"path": str(path), "opts": opts, "reference_b64": b64(ref), "reference_name": "us-2024"}
    )
    assert got["result"] == py
    assert next(d for d in py["dimensions"] if d["name"] == "age")["reference"]["ages"] == [
        17,
        100,
    ]
    for data, bands, span in [
        (b"age\n17.5\n40\n-2\n250\n33\n", [0, 18, 30], [17, 100]),
        (b'age\n"(16, 17]"\n[30-40)\n', [0, 18, 30], [17, 100]),
        (b"age\n[20-25)\n[60-70)\n", [0, 18, 30, 60, 70], [20, 69]),
    ]:
        py = run_python(
            io.BytesIO(data), {}, {"reference": table, "age_bands": bands}, name="t.csv"
        )
        req = {
            "bytes_b64": b64(data),
            "name": "t.csv",
            "reference_b64": b64(ref),
            "reference_name": "us-2024",
            "opts": {"age_bands": bands},
        }
        assert_same(py, run_js(js.request(req)), repr(data))
        age = next(d for d in py["result"]["dimensions"] if d["name"] == "age")
        assert age["reference"]["ages"] == span, data


def test_a_reference_matched_in_part_parity(js):
    """SPEC 9: the part-match note and the untested empty groups (not in the family) in
    both engines: COMPAS's race spelt otherwise, every label named, one extra label."""
    ref = (
        b"column,group,share\nrace,White,60.1\nrace,Black,12.5\nrace,Asian,5.9\n"
        b"race,Hispanic,18.5\nrace,Other,3.0\nsex,Woman,51\nsex,Man,49\n"
    )
    path = data_file("compas-scores-two-years.csv")
    table = parse_reference(ref, "ref.csv")
    py = json.loads(json.dumps(faircode.profile(path, opts={"reference": table})))
    got = js.request({"path": str(path), "reference_b64": b64(ref), "reference_name": "ref.csv"})
    assert got["result"] == py
    assert any("race: labels match the reference in part" in f for f in py["flags"])
    assert not any("'White' is under-represented vs reference" in f for f in py["flags"])
    for data in [
        b"race\n" + b"White\n" * 6 + b"Black\n" * 3 + b"Asian\n",
        b"race\n" + b"White\n" * 6 + b"Black\n" * 3 + b"Unknown\nwhite\n",
    ]:
        py = run_python(io.BytesIO(data), {}, {"reference": table}, name="t.csv")
        req = {"bytes_b64": b64(data), "name": "t.csv", "reference_b64": b64(ref)}
        assert_same(py, run_js(js.request(dict(req, reference_name="ref.csv"))), repr(data))


def test_bridge_hash_and_provenance_cli_match_python(tmp_path):
    import subprocess
    import sys

    from jsbridge import node_command

    path = tmp_path / "d.csv"
    path.write_bytes(("sex;race\r\n" + "👩;A\r\nM;B\r\n" * 50).encode())
    js_out = json.loads(
        subprocess.run(
            node_command()
            + [
                str(ROOT / "scripts" / "engine-js.js"),
                "profile",
                str(path),
                "--provenance",
                "--reference",
                str(ROOT / "faircode" / "data" / "reference-us-2019.csv"),
            ],
            capture_output=True,
            check=True,
        ).stdout
    )
    py_out = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-m",
                "faircode",
                "profile",
                str(path),
                "--json",
                "--reference",
                str(ROOT / "faircode" / "data" / "reference-us-2019.csv"),
            ],
            capture_output=True,
            check=True,
        ).stdout
    )
    pj, pp = js_out.pop("provenance"), py_out.pop("provenance")
    assert js_out == py_out
    assert (
        pj["dataset_hash"]
        == pp["dataset_hash"]
        == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    )
    assert pj["reference_hash"] == pp["reference_hash"]
    assert pj["params"] == pp["params"] and pj["engine"] == "js" and pp["engine"] == "python"


label_compare_opts = st.fixed_dictionaries(
    {},
    optional={
        "label_gap": sampled([0, 0.01, 0.1, 0.3]),
        "missing_gap": sampled([0, 0.01, 0.1, 0.3]),
        "psi_epsilon": sampled([0.0001, 0.01]),
    },
)


# A sixth of the profile's examples (50 in CI, 3,333 deep): each example profiles two
# files in both engines and compares them (0.19 s an example in CI), and
# test_label_missing_files covers the profiles themselves.
SIXTH = settings(max_examples=max(50, settings.default.max_examples // 6))
# A fifth (100 in CI) for the cheaper provenance case below.
FIFTH = settings(max_examples=max(100, settings.default.max_examples // 5))


@SIXTH
@given(st.data())
def test_label_missing_compare_parity(js, data):
    """SPEC 17.6: compare's label_rates and missing_by_group shifts, and the flag when the
    two sides' label or positive differ (B sometimes profiled with another positive)."""
    case = data.draw(label_missing_cases())
    a_bytes = case.data
    b_bytes = derive(data.draw, a_bytes)
    opts_b = dict(case.opts)
    if data.draw(st.integers(0, 4)) == 0:
        opts_b.pop("positive", None)
    py_a = run_python(io.BytesIO(a_bytes), case.overrides, case.opts, name="a.csv")
    py_b = run_python(io.BytesIO(b_bytes), case.overrides, opts_b, name="b.csv")
    assume("result" in py_a and "result" in py_b)
    copts = data.draw(label_compare_opts)
    py = {
        "result": json.loads(
            json.dumps(compare(py_a["result"], py_b["result"], opts=dict(case.opts, **copts)))
        )
    }
    req = {
        "op": "compare",
        "opts": dict(case.opts, **copts),
        "overrides": [[k, v] for k, v in case.overrides.items()],
        "a": {"bytes_b64": b64(a_bytes), "name": "a.csv", "opts": case.opts},
        "b": {"bytes_b64": b64(b_bytes), "name": "b.csv", "opts": opts_b},
        "chunk_size": case.chunk_size,
    }
    got = run_js(js.request(req))
    assert_same(py, got, f"A: {a_bytes!r}\nB: {b_bytes!r}\nopts={case.opts} b={opts_b} {copts}")
    r = py["result"]
    event(f"compare: label_rates {'label_rates' in r}, missing_by_group {'missing_by_group' in r}")
    if any(f.startswith("label rates not compared") for f in r["flags"]):
        event("compare: label rates not compared")


@FIFTH
@given(label_missing_cases())
def test_label_provenance_params_parity(js, case):
    """SPEC 17.1: label_gap, missing_gap and missing_by_group always in params; label and
    positive only with label."""
    try:
        params = resolve(case.opts).params()
    except faircode.InputError:
        return
    got = js.request(
        {
            "op": "provenance",
            "opts": case.opts,
            "overrides": [[k, v] for k, v in case.overrides.items()],
            "hashes": {"dataset_hash": None},
        }
    )
    assert got["result"]["params"] == json.loads(json.dumps(params))
    assert {"label_gap", "missing_gap", "missing_by_group"} <= set(params)
    assert ("label" in params) == ("label" in case.opts)


def _both_ways(js, a_bytes: bytes, b_bytes: bytes):
    """(Python's compare result, the side that lacks what A has): a against b, then b
    against a, each checked equal to the JS engine's."""
    py_a = run_python(io.BytesIO(a_bytes), {}, {}, name="a.csv")["result"]
    py_b = run_python(io.BytesIO(b_bytes), {}, {}, name="b.csv")["result"]
    for x, y, side in ((py_a, py_b, "B"), (py_b, py_a, "A")):
        py = json.loads(json.dumps(compare(x, y)))
        bx, by = (a_bytes, b_bytes) if side == "B" else (b_bytes, a_bytes)
        req = {
            "op": "compare",
            "opts": {},
            "a": {"bytes_b64": b64(bx), "name": "a.csv"},
            "b": {"bytes_b64": b64(by), "name": "b.csv"},
        }
        assert_same({"result": py}, run_js(js.request(req)), side)
        yield py, side


def test_column_not_in_b_parity(js):
    """SPEC 17.6: a column absent from one side's header is one note in both engines, not
    a shift of its missing data to 0%."""
    rows = [("MF"[i % 2], "" if i % 5 < 2 else "x", "" if i % 20 < 1 else "1") for i in range(400)]
    a_bytes = ("sex,note,score\n" + "".join(f"{s},{n},{c}\n" for s, n, c in rows)).encode()
    b_bytes = ("sex,score\n" + "".join(f"{s},{c}\n" for s, _, c in rows)).encode()
    for py, side in _both_ways(js, a_bytes, b_bytes):
        note = f"'note' is not a column of {side}: its missing data is not compared"
        assert note in py["flags"]
        assert "note" not in {c["name"] for c in py["missing_by_group"][0]["columns"]}


def test_dimension_blank_on_one_side_parity(js):
    """SPEC 8: a dimension with no row holding a value on one side (a blank sex column) is
    not compared in both engines (null PSI, TVD, level; one note), not 'disappeared'."""
    rows = [("MF"[i % 3 % 2], "AB"[i % 4 // 3]) for i in range(120)]
    a_bytes = ("sex,race\n" + "".join(f"{s},{r}\n" for s, r in rows)).encode()
    b_bytes = ("sex,race\n" + "".join(f",{r}\n" for _, r in rows)).encode()
    for py, side in _both_ways(js, a_bytes, b_bytes):
        sex = py["dimensions"][0]
        assert (sex["psi"], sex["tvd"], sex["drift_level"], sex["groups"]) == (None, None, None, [])
        assert (
            f"sex: no row of {side} has a value: its representation is not compared" in py["flags"]
        )
        assert py["evidence"]["tests"] == 3  # race's two groups and its drift, none of sex's


def test_a_group_gone_from_one_side_is_a_share_shift_parity(js):
    """SPEC 8, 18.1: a group with no row on one side ('C': 90 of 450 rows, then none) is
    tested as any share in both engines, a confirmed share_shift whose text says it
    disappeared (or appeared, the other way round), not only a note."""
    a_bytes = ("race\n" + "A\n" * 200 + "B\n" * 160 + "C\n" * 90).encode()
    b_bytes = ("race\n" + "A\n" * 230 + "B\n" * 170).encode()
    for py, side in _both_ways(js, a_bytes, b_bytes):
        status = "disappeared" if side == "B" else "appeared"
        c = next(f for f in py["findings"] if f["groups"] == ["C"])
        assert (c["kind"], c["verdict"]) == ("share_shift", "confirmed")
        assert c["text"].startswith(f"race: 'C' {status}, share moved ")
        assert py["evidence"]["tests"] == 4  # A, B, C: each share once; the drift test


def test_drift_level_has_its_evidence_parity(js):
    """SPEC 8, 18.1: a drift level is confirmed by the chi-squared test in the family, in
    both engines: two 100-row samples of one 10-group distribution reach the significant
    PSI band, yet are within what sampling gives (possible); a real move is confirmed."""
    # two seeded samples of shares .3 .2 .15 .1 .08 .06 .04 .03 .02 .02 (PSI 0.46)
    a_rows = "".join(f"g{i}\n" * c for i, c in enumerate((18, 19, 20, 8, 11, 7, 10, 2, 3, 2)))
    b_rows = "".join(f"g{i}\n" * c for i, c in enumerate((27, 20, 17, 9, 9, 9, 1, 5, 0, 3)))
    moved = "".join(f"g{i}\n" * c for i, c in enumerate((10, 10, 15, 10, 8, 6, 4, 3, 2, 32)))
    for b, level, verdict in (
        (b_rows, "significant", "possible"),
        (moved, "significant", "confirmed"),
    ):
        a_bytes = ("race\n" + a_rows).encode()
        for py, _ in _both_ways(js, a_bytes, ("race\n" + b).encode()):
            race = py["dimensions"][0]
            assert (race["drift_level"], race["drift_verdict"]) == (level, verdict)
            assert race["drift_p"] is not None
            note = next(f for f in py["findings"] if f["kind"] == "drift")
            assert ("within what sampling alone gives" in note["text"]) == (verdict == "possible")


def test_a_one_row_group_that_disappears_parity(js):
    """SPEC 8: both engines say one row of 30,000 disappeared as `<0.01% -> 0.00%`."""
    a_bytes = ("race\n" + "w\n" * 15000 + "b\n" * 14999 + "x\n").encode()
    b_bytes = ("race\n" + "w\n" * 15000 + "b\n" * 15000).encode()
    for py, side in _both_ways(js, a_bytes, b_bytes):
        shares = "<0.01% -> 0.00%" if side == "B" else "0.00% -> <0.01%"
        status = "disappeared" if side == "B" else "appeared"
        assert f"race: 'x' {status} ({shares})" in py["flags"]


def test_a_group_of_all_rows_but_one_parity(js):
    """SPEC 8: both engines say 29,999 rows of 30,000 beside another group's one row
    moved from `>99.99%`, not from 100.00%."""
    a_bytes = ("race\n" + "w\n" * 29999 + "x\n").encode()
    b_bytes = ("race\n" + "w\n" * 15000 + "b\n" * 15000).encode()
    for py, side in _both_ways(js, a_bytes, b_bytes):
        moved = ">99.99% -> 50.00%" if side == "B" else "50.00% -> >99.99%"
        assert any(f"race: 'w' share moved {moved} (" in f for f in py["flags"])


def test_a_reference_share_of_one_row_parity(js):
    """SPEC 9: both engines give each reference group its count, and say one row of
    30,000 is under-represented at `<0.01%`, not 0.00%."""
    data = ("sex\n" + "Male\n" * 29999 + "Female\n").encode()
    ref = b"column,group,share\nsex,Male,0.5\nsex,Female,0.5\n"
    opts = {"reference": parse_reference(ref, "ref.csv")}
    py = run_python(io.BytesIO(data), {}, opts, name="t.csv")
    req = {
        "bytes_b64": b64(data),
        "name": "t.csv",
        "reference_b64": b64(ref),
        "reference_name": "ref.csv",
        "opts": {},
        "overrides": [],
    }
    assert_same(py, run_js(js.request(req)), "one row of 30,000 against a reference")
    sex = next(d for d in py["result"]["dimensions"] if d["name"] == "sex")
    assert [g["count"] for g in sex["reference"]["groups"]] == [1, 29999]
    flag = "sex: 'Female' is under-represented vs reference (<0.01% vs 50.00%)"
    assert flag in py["result"]["flags"]
