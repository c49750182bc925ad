"""Parity: the Python engine and the browser engine give `==` results (SPEC.md section 14).

Hypothesis generates whole CSV files as bytes (headers built from the detection
keywords and near-misses, astral/combining/RTL text, quotes, delimiters and line ends
inside quotes, missing-token near-misses, numbers in many spellings, interval ages,
dates, columns with 19..22 and 49..52 distinct values, BOMs, CR/LF/CRLF, each
delimiter, ragged rows, duplicate headers, NUL and invalid UTF-8 bytes, random
overrides, `cross` and every threshold option) and feeds each through
`faircode.profile` and through assets/profiler-engine.js (node, one persistent batch
process, random chunk sizes). Results must be equal, flags included; when one side
raises an input error the other must raise the identical message.

Profiles (tests/conftest.py): `ci` (default; derandomized, 300 examples) and `deep`
(20,000): `HYPOTHESIS_PROFILE=deep pytest tests/parity/test_js_parity.py`.

The strategies are in tests/strategies.py, the engines' runners in tests/parityutil.py.
"""

from __future__ import annotations

import bz2
import io
import json
import lzma
import math
import re
from pathlib import Path

import pytest
from datafiles import data_file, data_files, data_name
from hypothesis import HealthCheck, event, given, note, settings
from jsbridge import node_command
from parityutil import ADULT_NAMES, assert_same, run_js, run_python
from strategies import Case, bounded_cases, csv_cases, label_missing_cases, v2_cases

from faircode.numerics import OUTCOME_HUGE
from faircode.renderers import render_as

# ---------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------


def check_case(js, case: Case) -> None:
    py = run_python(
        io.BytesIO(case.data), case.overrides, case.opts, name="t.csv", block_size=case.block_size
    )
    got = run_js(js.profile_bytes(case.data, "t.csv", case.overrides, case.opts, case.chunk_size))
    assert_same(py, got, case.describe())
    # Statistics (pytest --hypothesis-show-statistics) show what the strategies reach.
    if "error" in py:
        event("error: " + re.sub(r"^t\.csv: |[0-9]+|'.*'", "", py["error"])[:40])
    else:
        r = py["result"]
        event(f"result: {min(len(r['dimensions']), 3)}+ dimensions")
        event(f"intersection: {bool(r['intersections'])}, dropped: {bool(r['dropped'])}")
        kinds = sorted(
            {d["kind"] + (f"/{d['age_mode']}" if d["age_mode"] else "") for d in r["dimensions"]}
        )
        for k in kinds:
            event(f"kind {k}")
        for how in sorted({d["detected_by"] for d in r["dimensions"]}):
            event(f"detected by {how}")
        if any(u["why"].startswith("named like") for u in r["unscored"]):
            event("unscored: contradicted")
        if any(not u["why"].startswith("named like") for u in r["unscored"]):
            event("unscored: not demographic")
        for key in ("na", "recode", "score_categoricals"):
            if key in case.opts:
                event(f"option {key}")
        if "intersection_not_counted" in r:
            event("bound: intersection not counted")
        if any("cells_not_listed" in i for i in r["intersections"]):
            event("bound: cells not listed")
        if any(
            f.endswith("more under-represented groups (the JSON lists all)") for f in r["flags"]
        ):
            event("bound: under-represented flags capped")


INDEPENDENT = (
    # Written by hand, not by the strategies: emoji labels, CR-only line ends, a BOM,
    # ';' delimiter, quoted newlines (CR and LF inside quotes), a doubled quote.
    b"\xef\xbb\xbf"
    + b"gender;Region;note;age\r"
    + '👩;north;"line one\rline two";34\r'.encode()
    + '👨;south;"a ""quoted"" word";71\r'.encode()
    + '👩;"no\nrth";plain;19\r'.encode()
    + "🧑;south;;17\r".encode()
    + '👨;south;"x;y";NA\r'.encode()
    + "👩🏽;north;z;45\r".encode()
)


def test_independent_file(js):
    py = run_python(io.BytesIO(INDEPENDENT), None, None, name="t.csv")
    assert "result" in py, py
    # Four emoji are no sex words: the column is contradicted (SPEC 1.3) and listed in
    # `unscored`, whose groups are in section 3 order: ties by code point, U+1F468
    # before U+1F469.
    (gender,) = [u for u in py["result"]["unscored"] if u["name"] == "gender"]
    assert (
        gender["why"]
        == "named like sex but holds 4 distinct labels that are not sex or gender words"
    )
    assert [g["label"] for g in gender["groups"]] == [
        "👨",
        "👩",
        "👩🏽",
        "🧑",
    ]
    for chunk in (1, 2, 3, 5, 1 << 20):
        got = run_js(js.profile_bytes(INDEPENDENT, "t.csv", chunk_size=chunk))
        assert_same(py, got, f"independent file, js chunk_size={chunk}")


@settings(
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
    deadline=None,
)
@given(csv_cases())
def test_generated_files(js, case: Case):
    note(case.describe())
    check_case(js, case)


@settings(
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    deadline=None,
)
@given(bounded_cases())
def test_bounded_files(js, case: Case):
    note(case.describe())
    check_case(js, case)


@settings(
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    deadline=None,
)
@given(v2_cases())
def test_v2_files(js, case: Case):
    note(case.describe())
    check_case(js, case)


@pytest.mark.parametrize("path", data_files(), ids=data_name)
def test_real_dataset(js, path: Path):
    opts: dict = {}
    if path.name in ("adult.data", "adult.test"):
        opts["names"] = ADULT_NAMES
    if path.name == "adult.test":
        opts["skip_lines"] = 1
    py = run_python(str(path), None, opts)
    got = run_js(js.profile_path(path, str(path), None, opts))
    assert_same(py, got, f"file {path} opts={opts}")


# A lone CR ends a record, so that record's checks (its field count, or the override
# check after the header) come before a bad byte right after the CR (SPEC 0.6).
CR_ORDER_CASES = [
    (
        b"a,b\r1,2,3\r\x00",
        {},
        (
            "t.csv: line 2: 3 fields but the header (line 1) has 2; if the table starts below "
            "line 1, pass --skip-lines 1 (--skip-lines-b 1 for the second file of compare or "
            "scan); else quote values that contain the delimiter"
        ),
    ),
    (
        b"a,b\r1,2,3\r\xff",
        {},
        (
            "t.csv: line 2: 3 fields but the header (line 1) has 2; if the table starts below "
            "line 1, pass --skip-lines 1 (--skip-lines-b 1 for the second file of compare or "
            "scan); else quote values that contain the delimiter"
        ),
    ),
    (b"a,b\r\x00", {"nope": "sex"}, "--map: no column named 'nope' (columns: a, b)"),
]


@pytest.mark.parametrize("data,overrides,message", CR_ORDER_CASES)
def test_error_order_at_lone_cr(js, data, overrides, message):
    got = run_js(js.profile_bytes(data, "t.csv", overrides, {}))
    assert got == {"error": message}
    py = run_python(io.BytesIO(data), overrides, {}, name="t.csv")
    assert_same(py, got, f"bytes: {data!r} overrides={overrides!r}")


# A named age column past max_dimension_groups + s labels whose only non-numeric label
# is declared missing: after SPEC 1.1 it is a numeric age (a dimension), so its pairs
# must still be counted. The JS reader decides the age shape on rewritten labels; the
# Python reader keeps an age column with declared tokens or recodes (it once judged the
# raw labels, pruned the pair and raised "internal error: no pair counts").
AGE_NA_PAIRS = (
    "sex,age\n"
    + "".join(
        f"{'Male' if i % 3 else 'Female'},{10 + i % 60 if i % 7 else 'unknown'}\n"
        for i in range(200)
    )
).encode()


def test_age_na_keeps_pairs(js):
    opts = {"na": ["unknown"]}
    py = run_python(io.BytesIO(AGE_NA_PAIRS), None, opts, name="t.csv")
    got = run_js(js.profile_bytes(AGE_NA_PAIRS, "t.csv", None, opts))
    assert got["result"]["intersections"][0]["dims"] == ["sex", "age"]
    assert_same(py, got, "age with na unknown")


def _pruned_mid_batch(seed: int, rows: int) -> bytes:
    """Named columns past max_dimension_groups with missing cells, short rows and quoted
    text: an age column that turns non-numeric mid-file (pruned, and its batch cut there)
    and a zip column with hundreds of labels (geography: never pruned)."""
    import random

    rng = random.Random(seed)

    def miss() -> bool:
        return rng.random() < 0.1

    lines = ["gender,age,zip,race,region,note,income,y"]
    for i in range(rows):
        age = str(rng.randrange(90)) if i < rows // 2 else rng.choice(["unknown", "x", "1"])
        row = [
            rng.choice(["", "NA", " ?", "null"]) if miss() else rng.choice("FMX"),
            "" if miss() else age,
            "N/A" if miss() else str(10000 + rng.randrange(400)),
            "" if miss() else rng.choice("ABCD"),
            "" if miss() else f"R{rng.randrange(60)}",
            '""' if miss() else f'"t, {rng.randrange(10**6)}"',
            " NA " if miss() else str(rng.randrange(10**5)),
            "" if miss() else rng.choice("01"),
        ]
        if rng.random() < 0.03:
            row = row[: 1 + rng.randrange(6)]
        lines.append(",".join(row))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"max_dimension_groups": 5},
        {"max_dimension_groups": 12, "label": "y", "positive": "1"},
        {"max_dimension_groups": 30, "recode": [["age", "3", ""], ["zip", "10001", ""]]},
    ],
)
def test_missing_by_group_across_prunes(js, opts):
    """SPEC 17.2's tables when group columns are pruned part way through a batch (the JS
    engine cuts its batch there) and a geography column passes every cap: both engines
    count the same missing cells by group, in one read and in small chunks."""
    data = _pruned_mid_batch(len(opts), 2500)
    py = run_python(io.BytesIO(data), None, opts, name="t.csv")
    result = py["result"]
    by_group = {e["dimension"]: e for e in result["missing_by_group"]}
    assert by_group["zip"]["columns"], "the zip column's missing cells by group are counted"
    assert "age" not in {d["name"] for d in result["dimensions"]} or not opts
    for chunk in (None, 97):
        got = run_js(js.profile_bytes(data, "t.csv", None, opts, chunk))
        assert_same(py, got, f"opts={opts!r} chunk={chunk}")


@settings(
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    deadline=None,
)
@given(label_missing_cases())
def test_label_missing_files(js, case: Case):
    note(case.describe())
    py = run_python(
        io.BytesIO(case.data), case.overrides, case.opts, name="t.csv", block_size=case.block_size
    )
    got = run_js(js.profile_bytes(case.data, "t.csv", case.overrides, case.opts, case.chunk_size))
    assert_same(py, got, case.describe())
    if "error" in py:
        event("error: " + re.sub(r"^t\.csv: |[0-9]+|'.*'", "", py["error"])[:40])
        return
    r = py["result"]
    for block in r.get("outcomes", []):
        event(f"outcome: intersection {block['intersection'] is not None}")
        event(f"outcome: non-numeric {bool(block['non_numeric'])}")
        if any(d.get("gap") for d in block["dimensions"]):
            event("outcome: a gap measured")
        if any(f["kind"] == "outcome_gap" for f in r["findings"]):
            event("outcome: gap findings")
    lr = r.get("label_rates")
    if lr:
        event(f"label: positive_from {lr['positive_from']}")
        event(f"label: missing labels {bool(lr['label_missing'])}")
        event(f"label: intersection {lr['intersection'] is not None}")
        if any(d.get("not_counted") for d in lr["dimensions"]):
            event("label: a dimension not counted")
        if any(" rate " in f and " vs " in f for f in r["flags"]):
            event("label: gap flags")
    if r.get("missing_by_group"):
        flagged = sum(
            len(c["flagged"]) for d in r["missing_by_group"] for c in d.get("columns", [])
        )
        event(f"missing: flagged groups {min(flagged, 3)}+")


LABEL_REAL = [
    ("compas-scores-two-years.csv", {"label": "two_year_recid"}),
    ("compas-scores-two-years.csv", {"label": "race", "positive": "Caucasian", "label_gap": 0.02}),
    ("diabetic_data.csv", {"label": "readmitted", "positive": "<30", "missing_gap": 0.02}),
    ("diabetic_data.csv", {"na": [["max_glu_serum", "None"], ["A1Cresult", "None"]]}),
    ("adult.data", {"names": ADULT_NAMES, "label": "income", "positive": ">50K"}),
    (
        "adult.test",
        {
            "names": ADULT_NAMES,
            "skip_lines": 1,
            "label": "income",
            "recode": [["income", ">50K.", ">50K"], ["income", "<=50K.", "<=50K"]],
            "missing_by_group": False,
        },
    ),
]


@pytest.mark.parametrize("name,opts", LABEL_REAL, ids=[f"{n} {sorted(o)}" for n, o in LABEL_REAL])
def test_label_missing_real_data(js, name, opts):
    path = data_file(name)
    py = run_python(str(path), None, opts)
    got = run_js(js.profile_path(path, str(path), None, opts))
    assert_same(py, got, f"file {path} opts={opts}")


def test_label_cap_error_parity(js):
    """SPEC 17.2: a label past LABEL_CAP distinct values is an input error in both."""
    data = ("sex,y\n" + "".join(f"{'MF'[i % 2]},v{i}\n" for i in range(100_001))).encode()
    opts = {"label": "y", "positive": "v1"}
    py = run_python(io.BytesIO(data), None, opts, name="t.csv")
    assert py == {"error": "--label y: more than 100000 distinct values"}
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, opts)), "label cap")


WRONG_FILES = {
    "UTF-16 LE": ("sex,age\nM,30\n".encode("utf-16"), "a UTF-16 file (byte order mark FF FE)"),
    "UTF-16 BE": (b"\xfe\xff" + "sex\nM\n".encode("utf-16-be"), "a UTF-16 file (byte order"),
    "UTF-32": ("sex,age\nM,30\n".encode("utf-32"), "a UTF-32 file (byte order mark FF FE 00 00)"),
    "xlsx": (b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 40, "a ZIP archive (an Excel .xlsx"),
    "pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "a PDF document, not CSV"),
    "xls": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 40, "an OLE2 compound file (an"),
    "bzip2": (bz2.compress(b"sex,age\nM,30\n" * 50), "a bzip2-compressed file; faircode"),
    "xz": (lzma.compress(b"sex,age\nM,30\n" * 50), "an xz-compressed file; faircode"),
    "zstd": (b"\x28\xb5\x2f\xfd\x24\x0e\x71\x00\x00\xff" * 4, "a Zstandard-compressed file"),
    "JSON lines": (
        b'{"id": 0, "sex": "M"}\n{"id": 1, "sex": "F"}\n',
        "a JSON-lines file (its first line is a JSON object), not CSV",
    ),
    "JSON lines, one key": (b'{"sex": "M"}\n{"sex": "F"}\n', "a JSON-lines file"),
    "JSON array": (
        b'[\n {\n  "sex": "M",\n  "age": 20\n },\n {\n  "sex": "F",\n  "age": 21\n }\n]\n',
        "a JSON array (its first line starts with '['), not CSV",
    ),
    "JSON array, one line": (b'[{"sex": "M", "age": 20}, {"sex": "F", "age": 21}]', "a JSON array"),
    "JSON array of arrays": (b'[["sex", "age"], ["M", 20]]\n', "a JSON array"),
    "SQLite": (b"SQLite format 3\x00\x10\x00\x01\x01" + b"\x00" * 40, "an SQLite database"),
    "PNG": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 20, "a PNG image, not a table"),
    "JPEG": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 20, "a JPEG image, not a table"),
    "GIF": (b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + b"\xff" * 8, "a GIF image, not a table"),
}


@pytest.mark.parametrize(
    "opts",
    [
        {"label": "y", "na": [["y", "yes"], ["y", "no"]]},
        {"label": "y", "na": [["y", "yes"], ["y", "no"]], "positive": "yes"},
    ],
)
def test_a_label_with_no_value_says_so(js, opts) -> None:
    """SPEC 17.3: a label column with every cell missing after --na is one line saying
    so, not "0 values; name the positive one (values: )", the same in both engines."""
    data = b"sex,y\nM,yes\nF,no\nF,NA\n"
    py = run_python(io.BytesIO(data), {}, opts, name="t.csv")
    assert py["error"] == (
        "--label y: every cell is missing (after --na and --recode); nothing to give rates of"
    ), py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, opts)), repr(opts))


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (
            b"sex,y\nM,high\nF,low\nF,\n",
            "--outcome y: no cell is a number (2 rows hold text, or a number of size above 1e+140",
        ),
        (b"sex,y\nM,x\n", "--outcome y: no cell is a number (1 row holds"),
        (b"sex,y\nM,1e200\nF,-1e-200\n", "--outcome y: no cell is a number (2 rows hold text, or"),
        (b"sex,y\nM,\nF,NA\n", None),  # every cell missing: a block of n 0, not an error
        (b"sex,y\nM,x\nF,2\n", None),  # one value is enough
    ],
)
def test_an_outcome_with_no_number_is_an_input_error(js, data, error) -> None:
    """SPEC 21.1: an outcome column whose cells are all text gives no block of n/a
    (every group's values reported missing), but one line naming the column."""
    opts = {"outcome": ["y"]}
    py = run_python(io.BytesIO(data), {}, opts, name="t.csv")
    if error is None:
        assert "result" in py, py
    else:
        assert py["error"].startswith(error), py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, opts)), repr(data))


@pytest.mark.parametrize(
    "data",
    [
        b'{"a",b\nx,y\n',  # a name that starts like JSON, a last one that does not end so
        b'a,"b}"\nx,y\n',
        b"{a,b}\nx,y\n",  # braces, no quoted key
        b"[a],b\nx,y\n",  # a bracketed name is no JSON array
        b"[ {a},b\nx,y\n",
    ],
)
def test_a_csv_header_with_braces_is_still_csv(js, data) -> None:
    """SPEC 0.2: only a header whose first name starts with '{"' and whose last ends
    with '}' is a JSON-lines file; both engines read these as CSV."""
    py = run_python(io.BytesIO(data), {}, {}, name="t.csv")
    assert "result" in py, py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv")), repr(data))


@pytest.mark.parametrize("what", sorted(WRONG_FILES))
def test_a_file_that_is_not_utf8_csv_is_named_by_both_engines(js, what: str) -> None:
    """SPEC 0.6 (issue 27): a BOM names UTF-16/32 and --encoding; ZIP/XLSX and PDF are
    named, not "byte 4: NUL byte" or "not valid UTF-8"; one line, the same in both."""
    data, start = WRONG_FILES[what]
    py = run_python(io.BytesIO(data), {}, {}, name="t.csv")
    assert py["error"].startswith(f"t.csv: {start}"), py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv")), what)


@pytest.mark.parametrize(
    ("data", "opts", "error"),
    [
        (
            b"sex:age:race\nM:30:W\n",
            {},
            "t.csv: the header is one column, but ':' would split it into 3",
        ),
        (
            b"sex,age\nM,30\n",
            {"delimiter": ";"},
            "t.csv: the header is one column, but ',' would split it into 2",
        ),
        (b"sex,age\nM,30\n", {"delimiter": ";", "one_column": True}, None),
        (b"sex:age\nM:30\n", {"delimiter": ":"}, None),
        (b'"a,b"\nx\n', {}, None),  # the delimiter in use, quoted: one column
        (b"name\nx\n", {}, None),
        (
            b"A11 6 A34 A43 1169\nA12 48 A32 A43 5951\n",  # UCI's german.data, space-separated
            {},
            "t.csv: the header is one column, but spaces would split it into 5; faircode reads",
        ),
        (b"A11  6 A34 A43 1169\nx\n", {"one_column": True}, None),
        (b"annual household income in dollars\n5\n", {"one_column": True}, None),
        (b"annual household income (USD)\n5\n", {}, None),  # four words: a name
        (b"a b c d e\n1\n", {"delimiter": ","}, "t.csv: the header is one column, but spaces"),
    ],
)
def test_a_one_column_header_that_another_delimiter_splits(js, data, opts, error) -> None:
    """SPEC 0.2 (issue 27): an error naming the delimiter, the same in both engines,
    unless --one-column; `:` is accepted by --delimiter."""
    py = run_python(io.BytesIO(data), {}, opts, name="t.csv")
    if error is None:
        assert "result" in py, py
    else:
        assert py.get("error", "").startswith(error), py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", {}, opts)), repr(data))


def _gzip_files() -> dict[str, bytes]:
    """gzip files of a real dataset (COMPAS): one member; several (cut inside lines,
    zero padding, a named member, an empty one); and broken ones (SPEC 0.8)."""
    import gzip

    raw = data_file("compas-scores-two-years.csv").read_bytes()
    whole = gzip.compress(raw)
    a, b = len(raw) // 3, 2 * len(raw) // 3 + 7
    named = io.BytesIO()
    with gzip.GzipFile(filename="b.csv", mode="wb", fileobj=named, mtime=0) as gz:
        gz.write(raw[a:b])
    crc = bytearray(whole)
    crc[-8] ^= 1
    size = bytearray(whole)
    size[-1] ^= 1
    block = bytearray(whole)
    block[10] = 0xFF
    return {
        "one member": whole,
        "members": gzip.compress(raw[:a], compresslevel=1)
        + b"\x00" * 5
        + named.getvalue()
        + gzip.compress(b"")
        + gzip.compress(raw[b:])
        + b"\x00" * 3,
        "cut short": whole[: len(whole) // 2],
        "trailer cut": whole[:-3],
        "crc": bytes(crc),
        "length": bytes(size),
        "deflate": bytes(block),
        "method": b"\x1f\x8b\x07" + whole[3:],
        "header cut": whole[:7],
        "junk after": whole + b"\x00\x00junk",
        "lone 1f after": whole + b"\x1f",
    }


@pytest.mark.parametrize("what", sorted(_gzip_files()))
def test_gzip_files_through_the_bridge(js, tmp_path, what: str) -> None:
    """SPEC 0.8: the Node bridge reads a gzip file (every member) as the Python engine
    does: the same result, or the same one-line error (Python's gzip texts); by path,
    and as bytes in chunks of several sizes. A result's rows are pandas' rows."""
    import pandas as pd

    data = _gzip_files()[what]
    path = tmp_path / "t.csv.gz"
    path.write_bytes(data)
    py = run_python(str(path), None, None)
    if what in ("one member", "members"):
        raw = data_file("compas-scores-two-years.csv").read_bytes()
        assert py["result"]["n_rows"] == len(pd.read_csv(io.BytesIO(raw)))
    else:
        assert py["error"].startswith(f"{path}: not a readable gzip file ("), py
    assert_same(py, run_js(js.profile_path(path, str(path))), f"{what} by path")
    for chunk in (1 << 20, 4096, 37):
        got = run_js(js.profile_bytes(data, str(path), chunk_size=chunk))
        assert_same(py, got, f"{what} in chunks of {chunk}")


def _binary_inside_gzip() -> dict[str, bytes]:
    """gzip files whose decompressed bytes are no CSV: formats the Python engine reads
    as files of their own (Parquet, Arrow, gzip) and formats neither engine reads."""
    import gzip

    parquet = b"PAR1\x15\x00\x15\x1c\x15\x00\x00\x00\x00\x00PAR1"
    inner = {
        "parquet": parquet,
        "arrow file": b"ARROW1\x00\x00\xff\xff\xff\xff\x78\x00",
        "arrow stream": b"\xff\xff\xff\xff\x78\x00\x00\x00\x10\x00",
        "three ff": b"\xff\xff\xff",
        "gzip": gzip.compress(b"sex\nM\nF\n"),
        "utf-16": "sex\nM\nF\n".encode("utf-16"),
        "zip": b"PK\x03\x04\x14\x00\x00\x00",
    }
    return {what: gzip.compress(data) for what, data in inner.items()}


@pytest.mark.parametrize("what", sorted(_binary_inside_gzip()))
def test_binary_formats_inside_gzip_are_python_s_lines(js, tmp_path, what: str) -> None:
    """SPEC 0.8: the decompressed bytes of a gzip file are CSV to both engines; what
    they are when they are none is told as Python's CSV reader tells it (0.6's formats
    only): a Parquet or Arrow file inside gzip is a NUL or a bad byte, not "profile it
    with the Python engine", which refuses it too. By path and as bytes."""
    data = _binary_inside_gzip()[what]
    path = tmp_path / "t.csv.gz"
    path.write_bytes(data)
    py = run_python(str(path), None, None)
    assert "Python engine" not in py["error"], py
    assert_same(py, run_js(js.profile_path(path, str(path))), f"{what} by path")
    for chunk in (1 << 20, 1):
        got = run_js(js.profile_bytes(data, str(path), chunk_size=chunk))
        assert_same(py, got, f"{what} in chunks of {chunk}")


@pytest.mark.parametrize(
    ("data", "skip", "error"),
    [
        (b"a,b\n1,2", 5, "t.csv: --skip-lines 5 skips the whole file (2 lines)"),
        (b"a,b\r\n1,2\r\n", 3, "t.csv: --skip-lines 3 skips the whole file (2 lines)"),
        (b"title\n", 2, "t.csv: --skip-lines 2 skips the whole file (1 line)"),
        (b"title\n\n\r\n", 1, "t.csv: nothing but blank lines after --skip-lines 1"),
        (b"", 4, "t.csv: file is empty"),
        (b"\n\n", 0, "t.csv: file is empty"),
    ],
)
def test_skip_lines_that_take_the_whole_file_say_so(js, data, skip, error) -> None:
    """SPEC 0.6: input with no line left after --skip-lines names the option and the
    file's lines (an unterminated last line counts), not "file is empty"; both engines,
    the file fed whole and a byte at a time."""
    opts = {"skip_lines": skip}
    py = run_python(io.BytesIO(data), {}, opts, name="t.csv")
    assert py == {"error": error}
    for chunk in (1 << 16, 1):
        got = run_js(js.profile_bytes(data, "t.csv", None, opts, chunk_size=chunk))
        assert_same(py, got, f"{data!r} chunk {chunk}")


@pytest.mark.parametrize(
    ("opts", "error"),
    [
        ({"max_age": "inf"}, "--max-age: inf is out of range"),
        ({"imbalance_flag": "Infinity"}, "--imbalance-flag: inf is out of range"),
        ({"outcome_gap": "-inf"}, "--outcome-gap: -inf is out of range"),
        ({"min_group_size": "inf"}, "--min-group-size: inf is not an integer"),
    ],
)
def test_an_infinite_option_is_out_of_range(js, opts, error) -> None:
    """SPEC 0.6: an infinity is no size for any option, bounded above or not (it made
    `Infinity` in the provenance, which is not JSON); the same line in both engines."""
    data = b"sex,y\nM,1\nF,2\n"
    py = run_python(io.BytesIO(data), {}, opts, name="t.csv")
    assert py["error"].startswith(error), py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, opts)), repr(opts))


# the widest outcome 21.2 allows: values of size 1e140 either way (sd about 1.42e140)
_WIDE_OUTCOME = b"sex,v\n" + b"Male,-1e140\nMale,1e140\nFemale,-1e140\nFemale,1e140\n" * 5


@pytest.mark.parametrize("gap", [OUTCOME_HUGE, math.nextafter(OUTCOME_HUGE, math.inf), 1e308])
def test_an_outcome_gap_keeps_the_threshold_finite(js, gap) -> None:
    """SPEC 21.1: `outcome_gap` is at most 1e140, so its threshold (the gap times a sd of
    at most 1.42e140) is a number: 1e308 made it infinite, `Infinity` in Python's JSON
    (not JSON), null in the browser's, and a traceback in the text report."""
    opts = {"outcome": ["v"], "outcome_gap": gap}
    py = run_python(io.BytesIO(_WIDE_OUTCOME), {}, opts, name="t.csv")
    assert_same(py, run_js(js.profile_bytes(_WIDE_OUTCOME, "t.csv", None, opts)), repr(opts))
    if gap > OUTCOME_HUGE:
        assert py == {"error": f"--outcome-gap: {gap} is out of range (0..1e+140)"}
        return
    result = py["result"]
    assert math.isfinite(result["outcomes"][0]["threshold"])
    json.dumps(result, allow_nan=False)
    assert "is flagged" in render_as("profile", "text", result, name="t.csv")


@pytest.mark.parametrize("cross", [5, 2.5, True])
def test_a_cross_that_is_no_list_is_named_alike(js, cross) -> None:
    """SPEC 0.6: `cross` given a number or a boolean is one line showing the value as
    Python writes it, the same in both engines (JS read it as an empty list)."""
    data = b"sex,r\nM,a\nF,b\n"
    py = run_python(io.BytesIO(data), {}, {"cross": cross}, name="t.csv")
    assert py["error"] == f"--cross: expected two different column names A,B, got {cross}", py
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, {"cross": cross})), repr(cross))


def _table(header: str, counts: list[tuple[str, int]]) -> bytes:
    """A CSV of `header` and each (row text, times) repeated."""
    return (header + "\n" + "".join(f"{row}\n" * times for row, times in counts)).encode()


# diabetic_data in small: a 3-row sex group, 1 row with a race (SPEC 4)
_TINY_MARGIN = _table(
    "sex,race", [("F,A", 400), ("M,A", 400), ("F,B", 100), ("M,B", 97), ("U,A", 1), ("U,", 2)]
)
# every margin of 10 rows or more, but M x C and X x B expect 10 x 10 / 2,020 = 0.05 rows:
# untested gaps between tested ones (F x B, F x C, M x A, X x A expect 9.9 rows)
_SPARSE = _table("sex,race", [("F,A", 2000), ("M,B", 10), ("X,C", 10)])
# every group ties: a constant outcome and a label always 1 (SPEC 17.4, 21.3)
_TIED = _table("sex,race,v,y", [("Male,White,5,1", 150), ("Female,Black,5,1", 150)])


@pytest.mark.parametrize(
    "data, opts",
    [
        (_TINY_MARGIN, {}),
        (_TINY_MARGIN, {"min_group_size": 1}),
        (_SPARSE, {"intersection_floor": 0, "min_group_size": 10}),
        (_TIED, {"outcome": ["v"], "label": "y", "positive": "1"}),
        (
            _TIED,
            {"outcome": ["v"], "label": "y", "positive": "1", "outcome_gap": 0, "label_gap": 0},
        ),
    ],
)
def test_untested_cells_and_tied_groups(js, data, opts):
    """SPEC 4: an intersection cell of a group under min_group_size or expecting under 1
    row is no test (`cells_not_tested`, the note, a smaller family); SPEC 17.4, 21.3: tied
    groups give two groups, and a [0, 0] gap is `within` at threshold 0. Both engines."""
    py = run_python(io.BytesIO(data), {"sex": "sex", "race": "race"}, opts, name="t.csv")
    r = py["result"]
    inter = r["intersections"][0]
    if data is _TIED:
        for block in (
            *r["label_rates"]["dimensions"],
            r["label_rates"]["intersection"],
            *r["outcomes"][0]["dimensions"],
            r["outcomes"][0]["intersection"],
        ):
            assert block["highest"] != block["lowest"], block
        for block in (*r["outcomes"][0]["dimensions"], r["outcomes"][0]["intersection"]):
            assert block["gap"]["verdict"] == "within", block
    else:
        assert inter["cells_not_tested"] >= 2
        tested = inter["n_cells"] - inter["cells_not_tested"]
        untested = [c for c in inter["cells"] if c["expected"] < 1 or c["a"] == "U"]
        gaps = [f["groups"] for f in r["findings"] if f["kind"] == "intersection_gap"]
        assert untested and not [c for c in untested if [c["a"], c["b"]] in gaps]
        assert tested >= len(gaps)
    for chunk in (None, 97):
        got = run_js(js.profile_bytes(data, "t.csv", {"sex": "sex", "race": "race"}, opts, chunk))
        assert_same(py, got, f"opts={opts!r} chunk={chunk}")


LONG_ROWS = [
    b"sex,race\nM,A,\nF,B,\n",
    b"sex,race\r\nM,A,,\r\n",
    b'sex,race\nM,A,""\n',
    b'sex,race\nM,A," "\n',
    b"sex,race\nM,A,x\n",
    b'sex,race\nM,A,"",""\n',
    b'sex,race\nM,A,"x"\n',
    b"sex\trace\nM\tA\t\n",
    b"sex,race\nM,A\nF,B,\n",
    b"sex,race\nM,A\nF,B,,x\n",
    b"Report\nsex,race\nM,A\n",
    b"sex,race,id\nM,A,1,\n",
    b"sex,race\rM,A,\r",
    b"\n\r\nTitle\r\n\r\nsex,race\r\nM,A\r\n",
]

NOT_A_TABLE = [
    b"sep=;\r\nsex;race\r\nM;A\r\n",
    b"\xef\xbb\xbf\nsep=\t\nsex\trace\n",
    b"sep=\xc3\xa9\nsex,race\n",
    b"sep=\xf0\x9f\x99\x82\nsex,race\nM,A\n",
    b"<!DOCTYPE html>\n<html></html>\n",
    b"  <HtMl>",
    b"<?xml version='1.0'?>\n<a/>\n",
    "sex,race\r\nM,A\r\n".encode("utf-16-le"),
    "sex,race\r\nM,A\r\n".encode("utf-16-be"),
    b"s\x00e\x00",
    b"s\x00\xe9\x00",
]


@pytest.mark.parametrize("data", LONG_ROWS)
def test_a_long_row_s_empty_extra_fields_are_told_alike(js, data) -> None:
    """SPEC 0.3, 0.6: a long row whose fields past the header are all empty (rows that
    end with a delimiter the header line does not) gets its own advice, and a long first
    record the --skip-lines one; both engines, whole and a byte at a time (the JS
    scanner sees each extra field's bytes only then)."""
    py = run_python(io.BytesIO(data), {}, {}, name="t.csv")
    assert "fields but the header" in py["error"]
    for chunk in (1 << 16, 3, 1):
        got = run_js(js.profile_bytes(data, "t.csv", None, {}, chunk_size=chunk))
        assert_same(py, got, f"{data!r} chunk {chunk}")


@pytest.mark.parametrize("data", NOT_A_TABLE)
def test_inputs_that_are_no_table_are_named_alike(js, data) -> None:
    """SPEC 0.2, 0.6: Excel's sep= line, a web page, an XML document and UTF-16 without
    a byte order mark are named alike by both engines, whatever the chunks."""
    py = run_python(io.BytesIO(data), {}, {}, name="t.csv")
    for chunk in (1 << 16, 3, 1):
        got = run_js(js.profile_bytes(data, "t.csv", None, {}, chunk_size=chunk))
        assert_same(py, got, f"{data!r} chunk {chunk}")


def _joined(header: bytes, rows: int, at: list[int], bom: bool = False) -> bytes:
    """Exports joined with cat: `header` again before each row index in `at` (quoted the
    first time), over the fast path's size. `bom`: exports from Excel, each starting with
    a UTF-8 BOM (the file's first line too), none quoted."""
    body = [
        b"%d,%s,%s,%d\n" % (k, b"MF"[k % 2 : k % 2 + 1], b"ABC"[k % 3 : k % 3 + 1], 20 + k % 60)
        for k in range(rows)
    ]
    if bom:
        header = BOM + header
    for n, k in enumerate(sorted(at, reverse=True)):
        again = (
            header
            if n < len(at) - 1 or bom
            else b",".join(b'"%s"' % f for f in header.rstrip(b"\n").split(b",")) + b"\r\n"
        )
        body.insert(k, again)
    return header + b"".join(body)


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(
    "data",
    [
        _joined(b"id,sex,race,age\n", 250_000, [150_000, 230_000]),
        _joined(b"id,sex,race,age\n", 3_000, [2_900]),
        b"id,sex,race,age\n1,M,A,30\nid,sex,race,age \n2,F,B,41\nid,sex\n",  # no repeat
        # Excel exports joined: a BOM before the repeated header line (SPEC 0.3)
        _joined(b"id,sex,race,age\n", 250_000, [150_000, 230_000], bom=True),
        _joined(b"id,sex,race,age\n", 3_000, [2_900], bom=True)[3:],  # first line: none
        b"sex,race,id,age\n" + b"M,A,1,30\n" * 10 + BOM + b"sex,race,id,age\n",
        # no repeat: two BOMs, a BOM before another field
        b"id,sex,race,age\n1,M,A,30\n%sid,sex,race,age\n2,F,B,41\nid,%ssex,race,age\n"
        % (BOM + BOM, BOM),
    ],
)
def test_a_repeated_header_through_the_bridge(js, tmp_path, data: bytes) -> None:
    """SPEC 0.3: a record equal to the header (files joined with cat) is the same
    one-line error in both engines, naming the first such line, whether Python reads the
    file on the fast path (which falls back) or not, and the bridge in chunks, by path,
    or in parts at once (a later part holds the first repeat)."""
    import subprocess  # lazy: only this test runs the bridge's command line

    path = tmp_path / "t.csv"
    path.write_bytes(data)
    py = run_python(str(path), None, None, name="t.csv")
    assert_same(py, run_python(io.BytesIO(data), None, None, name="t.csv"), "path and bytes")
    if data.count(b"\n") > 10:
        assert py["error"].startswith("t.csv: line "), py
        assert " repeats the header (files joined with cat?)" in py["error"]
    else:
        assert py["result"]["n_rows"] == 4, py
    assert_same(py, run_js(js.profile_path(path, "t.csv")), "by path")
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", chunk_size=4096)), "in chunks")
    engine = str(Path(__file__).parents[2] / "scripts" / "engine-js.js")
    out = subprocess.run(
        [*node_command(), engine, "profile", str(path), "--parts", "3"],
        capture_output=True,
        text=True,
    )
    if "error" in py:
        assert out.returncode == 2 and py["error"].replace("t.csv", str(path)) in out.stderr
    else:
        assert out.returncode == 0, out.stderr


def test_a_missing_share_of_all_rows_but_one_parity(js):
    """SPEC 17.5 (8's rule): both engines flag 29,999 of 30,000 cells missing as
    `>99.99%`, not 100.00%."""
    data = ("sex,note\n" + "M,\n" * 29999 + "M,x\n" + "F,x\n" * 30000).encode()
    py = run_python(io.BytesIO(data), None, {}, name="t.csv")
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, {})), "29,999 of 30,000")
    assert "sex: 'note' is missing for >99.99% of 'M' vs 50.00% overall" in py["result"]["flags"]


def test_missing_lowest_and_highest_parity(js):
    """SPEC 17.5: both engines name a column's lowest and highest group by share among the
    groups of min_group_size rows (the missing group last): one missing cell of 30,001, in
    'M', makes 'M' the highest; a 3-row group with 2 missing is not; a missing group of
    min_group_size rows takes part."""
    cases = [
        ("sex,income\n" + "M,1\n" * 14999 + "M,\n" + "F,2\n" * 15000 + ",2\n", ("F", "M")),
        ("sex,note\n" + "M,\nM,x\n" * 150 + "F,x\n" * 300 + "X,\nX,\nX,x\n", ("F", "M")),
        ("sex,note\n" + "M,\nM,x\n" * 150 + "F,x\n" * 300 + ",\n" * 100, ("F", "(missing sex)")),
    ]
    for text, want in cases:
        data = text.encode()
        py = run_python(io.BytesIO(data), None, {}, name="t.csv")
        assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, {})), text[:40])
        col = py["result"]["missing_by_group"][0]["columns"][0]
        assert (col["lowest"], col["highest"]) == want


def test_a_label_rate_of_all_rows_but_one_parity(js):
    """SPEC 17.4 (8's rule): both engines say a label rate of 29,999 of 30,000 is
    `>99.99%` and one of 1 in 30,000 `<0.01%` in the label-gap flag."""
    data = ("sex,hired\n" + "M,1\n" * 29999 + "M,0\n" + "F,0\n" * 29999 + "F,1\n").encode()
    opts = {"label": "hired"}
    py = run_python(io.BytesIO(data), None, opts, name="t.csv")
    assert_same(py, run_js(js.profile_bytes(data, "t.csv", None, opts)), "29,999 of 30,000")
    flag = "sex: hired=1 rate <0.01% for 'F' vs >99.99% for 'M'"
    assert flag in py["result"]["flags"]
