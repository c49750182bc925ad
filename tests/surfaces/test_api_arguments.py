"""The public API's arguments (SPEC 0.6 "Python API arguments"): a wrongly typed or shaped
argument is one line (faircode.InputError), never a traceback from deep inside and never
a silently wrong number; a list parameter given one string reads it as its CLI flag."""

from __future__ import annotations

import contextlib
import io
import json
import os

import pandas as pd
import pytest

import faircode

CSV = "sex,race,age,hired\n" + "".join(
    f"{'FM'[i % 2]},{'ABC'[i % 3]},{18 + i % 50},{int(i % 4 == 0 or i % 6 == 1)}\n"
    for i in range(400)
)


@pytest.fixture(scope="module")
def path(tmp_path_factory) -> str:
    p = tmp_path_factory.mktemp("api") / "p.csv"
    p.write_text(CSV)
    return str(p)


@pytest.fixture(scope="module")
def result(path) -> dict:
    return faircode.profile(path)


def _message(fn) -> str:
    with pytest.raises(faircode.InputError) as err:
        fn()
    return str(err.value)


def _broken(result: dict, change) -> dict:
    copy = json.loads(json.dumps(result))
    change(copy)
    return copy


# ---- item 1: a string where a list is expected -------------------------------------


def test_a_context_string_is_one_item(path):
    doc = faircode.audit_art10(path, context="hello", audit_date="2025-01-01")
    assert doc["context"]["declared"] == ["hello"]


def test_a_columns_string_is_split_at_commas_as_the_cli_reads_it(path):
    pytest.importorskip("numpy")
    kw = {"label": "hired", "permutations": 9, "min_size": 10}
    given = faircode.scan(path, columns="age", **kw)
    listed = faircode.scan(path, columns=["age"], **kw)
    assert given["subgroup"] == listed["subgroup"] and given["attributes"] == listed["attributes"]


def test_a_date_range_string_is_from_to(path):
    kw = {"selected": "hired", "audit_date": "2025-01-01"}
    a = faircode.audit_ll144(path, date_range="2024-01-01, 2024-02-01", **kw)
    b = faircode.audit_ll144(path, date_range=("2024-01-01", "2024-02-01"), **kw)
    assert a == b and "2024-01-01" in json.dumps(a["summary"])


# ---- the refusals -------------------------------------------------------------------

CASES = {
    # list parameters
    "columns int": (
        lambda p: faircode.scan(p, label="hired", columns=5),
        "columns: 5 is not a list of strings or a string A,B,...",
    ),
    "columns empty item": (
        lambda p: faircode.scan(p, label="hired", columns="age,,sex"),
        "columns: expected A,B,..., got 'age,,sex'",
    ),
    "columns item int": (
        lambda p: faircode.scan(p, label="hired", columns=["age", 1]),
        "columns: 1 is not text",
    ),
    "context int": (
        lambda p: faircode.audit_art10(p, context=5),
        "context: 5 is not a list of strings or a string",
    ),
    "date_range int": (
        lambda p: faircode.audit_ll144(p, selected="hired", date_range=5),
        "date_range: 5 is not a list of strings or a string A,B,...",
    ),
    "cross int": (
        lambda p: faircode.profile(p, opts={"cross": 5}),
        "cross: expected two different column names A,B, got 5",
    ),
    "names int": (
        lambda p: faircode.profile(p, opts={"names": 5}),
        "names: 5 is not a list of column names or a string A,B,...",
    ),
    "age_bands int": (
        lambda p: faircode.profile(p, opts={"age_bands": 5}),
        "age_bands: 5 is out of range (increasing integers starting at 0)",
    ),
    "delimiter list": (
        lambda p: faircode.profile(p, opts={"delimiter": [","]}),
        "delimiter: [','] is not one of , ; tab | :",
    ),
    # item 2: a reference is a built-in name or a path
    "scan reference dict": (
        lambda p: faircode.scan(p, reference={"a": 1}),
        "reference: {'a': 1} is not a built-in baseline name (us-2019, us-2024) or a path",
    ),
    "opts reference text": (
        lambda p: faircode.profile(p, opts={"reference": "x"}),
        "reference: give the parsed table (faircode.reference.load_reference), "
        "[{'column': COL, 'shares': [[GROUP, SHARE], ...]}, ...]",
    ),
    # item 3
    "report pdf": (
        lambda p: faircode.profile(p).report("pdf"),
        "report: 'pdf' is not a format of profile (text, json, markdown, csv, html)",
    ),
    "report int": (
        lambda p: faircode.profile(p).report(5),
        "report: 5 is not a format of profile (text, json, markdown, csv, html)",
    ),
    # item 4: a dict side of compare is checked as a saved profile is
    "compare not a profile": (
        lambda p: faircode.compare({"a": 1}, p),
        "a: a result, but not a profile (no n_rows, overall_score, grade); "
        "compare takes data, a saved profile or the result of faircode.profile",
    ),
    "compare no groups": (
        lambda p: faircode.compare(
            _broken(faircode.profile(p), lambda r: r["dimensions"][0].pop("groups")), p
        ),
        "a: not a faircode profile: dimensions[0].groups is missing; "
        "profile the data again (faircode.profile(DATA))",
    ),
    "compare score text": (
        lambda p: faircode.compare(
            p, _broken(faircode.profile(p), lambda r: r.update(overall_score="x"))
        ),
        'b: not a faircode profile: overall_score is "x", not a whole number from 0 to 100 '
        "or null; profile the data again (faircode.profile(DATA))",
    ),
    "compare format_version": (
        lambda p: faircode.compare(
            p, _broken(faircode.profile(p), lambda r: r.update(format_version=999))
        ),
        "b: a result of format_version 999; this faircode reads format_version 3: "
        "profile the data again (faircode.profile(DATA))",
    ),
    # item 5: opts and overrides
    "opts list": (
        lambda p: faircode.profile(p, opts=["a"]),
        "opts: give a dict of option names and values (SPEC 7), not a list",
    ),
    "opts text": (
        lambda p: faircode.summarize(p, opts="a"),
        "opts: give a dict of option names and values (SPEC 7), not a str",
    ),
    "opts int": (
        lambda p: faircode.compare(p, p, opts=5),
        "opts: give a dict of option names and values (SPEC 7), not an int",
    ),
    "overrides list": (
        lambda p: faircode.profile(p, overrides=["a"]),
        "overrides: give a dict of column names and kinds, as --map, not a list",
    ),
    "overrides text": (
        lambda p: faircode.compare(p, p, overrides="a"),
        "overrides: give a dict of column names and kinds, as --map, not a str",
    ),
    "audit overrides int": (
        lambda p: faircode.audit_datasheet(p, overrides=5),
        "overrides: give a dict of column names and kinds, as --map, not an int",
    ),
    "overrides int key": (
        lambda p: faircode.profile(
            pd.DataFrame({0: ["M", "F"], 1: ["a", "b"]}), overrides={0: "sex"}
        ),
        "overrides: 0 is not text; give a column's name as a str (a DataFrame's column 0 is '0')",
    ),
    "scan opts list": (
        lambda p: faircode.scan(p, label="hired", opts=[1]),
        "opts: give a dict of option names and values (SPEC 7), not a list",
    ),
    # item 5: sources and reading arguments
    "text-mode file": (
        lambda p: faircode.profile(open(p)),  # noqa: SIM115
        "{p}: the file object reads str, not bytes; open the file in binary mode "
        "(open(path, 'rb')) or pass io.BytesIO",
    ),
    "StringIO": (
        lambda p: faircode.profile(io.StringIO(CSV)),
        "<stream>: the file object reads str, not bytes; open the file in binary mode "
        "(open(path, 'rb')) or pass io.BytesIO",
    ),
    "block_size 0": (
        lambda p: faircode.profile(p, block_size=0),
        "block_size: 0 is out of range (integer >= 1)",
    ),
    "provenance missing": (
        lambda p: faircode.provenance_for(p + ".nope"),
        "{p}.nope: no such file",
    ),
    "provenance directory": (
        lambda p: faircode.provenance_for(os.path.dirname(p)),
        "{d}: is a directory, not a file",
    ),
    # item 5: the audits' and scan's own arguments
    "ll144 selected int": (
        lambda p: faircode.audit_ll144(p, selected=5),
        "selected: 5 is not text",
    ),
    "ll144 ratio_threshold text": (
        lambda p: faircode.audit_ll144(p, selected="hired", ratio_threshold="x"),
        "ratio_threshold: x is not a number (0..1, above 0)",
    ),
    "ll144 exclusion_note int": (
        lambda p: faircode.audit_ll144(p, selected="hired", exclude_small=True, exclusion_note=5),
        "exclusion_note: 5 is not text",
    ),
    "ll144 exclude_small text": (
        lambda p: faircode.audit_ll144(p, selected="hired", exclude_small="no", exclusion_note="x"),
        "exclude_small: no is not true or false",
    ),
    "art10 proxy_hints text": (
        lambda p: faircode.audit_art10(p, proxy_hints="no"),
        "proxy_hints: no is not true or false",
    ),
    "scan versus int": (lambda p: faircode.scan(p, versus=5), "versus: 5 is not text"),
    "scan max_seconds text": (
        lambda p: faircode.scan(p, label="hired", max_seconds="x"),
        "max_seconds: x is not a number (> 0)",
    ),
    "scan alpha text": (
        lambda p: faircode.scan(p, label="hired", alpha="x"),
        "alpha: x is not a number (0..1)",
    ),
    "scan positive int": (
        lambda p: faircode.scan(p, label="hired", positive=1),
        "positive: 1 is not text",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_bad_argument_is_one_line(path, case):
    call, want = CASES[case]
    want = want.replace("{p}", path).replace("{d}", os.path.dirname(path))
    assert _message(lambda: call(path)) == want


def test_an_integer_reference_never_reads_or_closes_the_callers_descriptor(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        for call in (
            lambda: faircode.audit_art10(path, reference=fd),
            lambda: faircode.scan(path, reference=fd),
        ):
            assert _message(call).startswith(f"reference: {fd} is not a built-in")
            assert os.lseek(fd, 0, os.SEEK_CUR) == 0  # open, and nothing read
    finally:
        with contextlib.suppress(OSError):  # before the fix, it was closed
            os.close(fd)


def test_a_saved_profile_result_by_path_says_what_an_api_caller_can_do(path, result, tmp_path):
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(result))
    assert _message(lambda: faircode.compare(str(saved), path)) == (
        f"{saved}: profiled with other options than this run: unknown (saved without "
        "provenance); profile it again with this run's options, or pass its result as a "
        "dict (json.load of the file) to compare it as it is, its options unchecked"
    )
    # which is compared as it is
    drift = faircode.compare(json.loads(saved.read_text()), path)
    assert drift["score_delta"] == 0


def test_profile_names_itself_for_an_unknown_keyword(path):
    with pytest.raises(TypeError, match=r"^profile\(\) got an unexpected keyword argument 'bogus'"):
        faircode.profile(path, bogus=1)


def test_provenance_for_reads_a_bytes_path(path):
    want = faircode.provenance_for(path)["dataset_hash"]
    assert want.startswith("sha256:")
    assert faircode.provenance_for(os.fsencode(path))["dataset_hash"] == want


def test_numbers_take_numpy_integers_and_their_text(path):
    np = pytest.importorskip("numpy")
    kw = {"label": "hired", "permutations": 9, "min_size": 10}
    assert (
        faircode.scan(path, depth=np.int64(2), **kw)["subgroup"]
        == faircode.scan(path, depth=2, **kw)["subgroup"]
    )
    kw = {"selected": "hired", "audit_date": "2025-01-01"}
    assert faircode.audit_ll144(path, ratio_threshold="0.8", **kw) == faircode.audit_ll144(
        path, ratio_threshold=np.float64(0.8), **kw
    )
