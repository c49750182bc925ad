"""A saved profile read back as a side of compare (SPEC 8.1): which files are read as
one, and a broken one is one line naming the file and the first bad value (exit 2),
never a traceback and never a silently wrong number."""

from __future__ import annotations

import copy
import json
import math
import random
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import faircode
from faircode import saved
from faircode.cli import main
from faircode.errors import InputError
from faircode.schemacheck import compile_schema, problem

SCHEMAS = Path(faircode.__file__).parent / "schemas"
AGAIN = "; profile the data again (faircode profile DATA --json)"
OPTS = {"label": "label"}


def table(n: int = 400, seed: int = 7) -> str:
    """A table with sex, race, age, a label and a column with blanks: every block compare
    reads (dimensions, label_rates, missing_by_group) has entries."""
    rnd = random.Random(seed)
    lines = ["sex,race,age,label,income"]
    for _ in range(n):
        sex = rnd.choice(["Male", "Female", "Female", ""])
        race = rnd.choice(["White", "Black", "Asian", "Hispanic"])
        income = "" if rnd.random() < 0.2 else str(rnd.randrange(1000, 90000))
        lines.append(f"{sex},{race},{rnd.randrange(18, 90)},{rnd.choice('01')},{income}")
    return "\n".join(lines) + "\n"


@cache
def saved_text() -> str:
    """`faircode profile data.csv --json --label label` of table(), made once."""
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data.csv"
        data.write_text(table(), encoding="utf-8")
        p = subprocess.run(
            [sys.executable, "-m", "faircode", "profile", str(data), "--json", "--label", "label"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert p.returncode == 0, p.stderr
    return p.stdout


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, path: Path, *args) -> str:
    """The one error line of `compare path other.csv`, asserting exit 2 and no report."""
    other = path.with_name("other.csv")
    other.write_text(table(300, seed=8), encoding="utf-8")
    code, out, err = run(capsys, "compare", path, other, "--label", "label", *args)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    assert err.startswith(f"faircode: error: {path}: ") and "Traceback" not in err, err
    return err.rstrip("\n")


def edited(tmp_path: Path, edit, name: str = "saved.json") -> Path:
    doc = json.loads(saved_text())
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _group(doc: dict) -> dict:
    return doc["dimensions"][0]["groups"][0]


def _set(key, value):
    return lambda doc: doc.__setitem__(key, value)


def _rate_group(doc: dict) -> dict:
    return doc["label_rates"]["dimensions"][0]["groups"][0]


def _mbg_group(doc: dict) -> dict:
    return next(c for c in doc["missing_by_group"][0]["columns"] if c["groups"])["groups"][0]


# (edit, the JSON path and problem the line names)
BROKEN = {
    "count_str": (
        lambda d: _group(d).update(count="many"),
        'dimensions[0].groups[0].count is "many", not a whole number >= 1',
    ),
    "count_neg": (
        lambda d: _group(d).update(count=-100),
        "dimensions[0].groups[0].count is -100, not a whole number >= 1",
    ),
    "count_float": (
        lambda d: _group(d).update(count=_group(d)["count"] + 0.5),
        "dimensions[0].groups[0].count is ",
    ),
    "count_bool": (
        lambda d: _group(d).update(count=True),
        "dimensions[0].groups[0].count is true, not a whole number >= 1",
    ),
    "groups_str": (
        lambda d: d["dimensions"][0].update(groups="x"),
        'dimensions[0].groups is "x", not an array',
    ),
    "no_dim_name": (lambda d: d["dimensions"][1].pop("name"), "dimensions[1].name is missing"),
    "nrows_str": (_set("n_rows", "x"), 'n_rows is "x", not a whole number >= 1'),
    "nrows_neg": (_set("n_rows", -5), "n_rows is -5, not a whole number >= 1"),
    "nrows_sum": (_set("n_rows", 10), "dimensions[0].groups count "),
    "dims_null": (_set("dimensions", None), "dimensions is null, not an array"),
    "share_nan": (
        lambda d: _group(d).update(share=math.nan),
        "dimensions[0].groups[0].share is NaN, not a number from 0 to 1",
    ),
    "score_str": (
        _set("overall_score", "x"),
        'overall_score is "x", not a whole number from 0 to 100 or null',
    ),
    "grade": (_set("grade", "Z"), 'grade is "Z", not one of '),
    "extra_key": (
        lambda d: _group(d).update(extra=1),
        "dimensions[0].groups[0].extra is not a key",
    ),
    "dup_dim": (
        lambda d: d["dimensions"].append(copy.deepcopy(d["dimensions"][0])),
        'dimensions[3].name is "sex" again (once per dimension)',
    ),
    "dup_label": (
        lambda d: d["dimensions"][0]["groups"].append(copy.deepcopy(_group(d))),
        "dimensions[0].groups[2].label is ",
    ),
    "rate_positive": (
        lambda d: _rate_group(d).update(positive=_rate_group(d)["n"] + 1),
        "label_rates.dimensions[0].groups[0] has n ",
    ),
    "mbg_dimension": (
        lambda d: d["missing_by_group"][0].update(dimension="nope"),
        'missing_by_group[0].dimension is "nope", not the name of dimensions[0] ("sex")',
    ),
    "mbg_missing": (
        lambda d: _mbg_group(d).update(missing=10**6),
        "missing_by_group[0].columns[0].groups[0].missing is 1000000, more than its count",
    ),
    "prov_hash": (
        lambda d: d["provenance"].update(dataset_hash="md5:x"),
        'provenance.dataset_hash is "md5:x", not a string matching',
    ),
}


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_saved_profile_is_one_line_naming_the_bad_value(name, tmp_path, capsys):
    edit, says = BROKEN[name]
    path = edited(tmp_path, edit)
    line = refused(capsys, path)
    assert line.startswith(f"faircode: error: {path}: not a faircode profile: {says}"), line
    assert line.endswith(AGAIN), line
    # the Python API refuses it with the same words
    with pytest.raises(InputError) as err:
        faircode.compare(str(path), str(path.with_name("other.csv")), opts=OPTS)
    assert str(err.value) == line.removeprefix("faircode: error: ")


def test_the_valid_saved_profile_compares_as_its_file(tmp_path, capsys):
    data, other = tmp_path / "data.csv", tmp_path / "other.csv"
    data.write_text(table(), encoding="utf-8")
    other.write_text(table(300, seed=8), encoding="utf-8")
    path = tmp_path / "saved.json"
    path.write_text(saved_text(), encoding="utf-8")
    assert saved.check(json.loads(saved_text())) is None
    args = ["--label", "label", "--json", "--no-provenance"]
    code, out, err = run(capsys, "compare", path, other, *args)
    assert code == 0, err
    assert json.loads(out) == json.loads(run(capsys, "compare", data, other, *args)[1])


def test_a_saved_profile_compares_with_compare_only_options(tmp_path, capsys):
    """SPEC 8.1: `--share-gap` is compare's only (no profile can be made with it), so a
    saved profile is not refused for it and compares as its file does."""
    data, other = tmp_path / "data.csv", tmp_path / "other.csv"
    data.write_text(table(), encoding="utf-8")
    other.write_text(table(300, seed=8), encoding="utf-8")
    path = tmp_path / "saved.json"
    path.write_text(saved_text(), encoding="utf-8")
    args = ["--label", "label", "--json", "--no-provenance", "--share-gap", "0.01"]
    code, out, err = run(capsys, "compare", path, other, *args)
    assert code == 0 and err == "", err
    assert json.loads(out) == json.loads(run(capsys, "compare", data, other, *args)[1])
    # an option profile takes still counts
    assert "min_share 0.05 (this run: 0.2)" in refused(
        capsys, path, "--share-gap", "0.01", "--min-share", "0.2"
    )


def test_the_api_compare_refuses_outcome(tmp_path):
    """SPEC 8, 21.1: faircode.compare() takes no outcome rather than ignore it."""
    data = tmp_path / "data.csv"
    data.write_text(table(50), encoding="utf-8")
    with pytest.raises(InputError, match=r"^compare\(\) takes no outcome \("):
        faircode.compare(data, data, opts={"outcome": ["income"]})


@pytest.mark.parametrize(
    "text, says",
    [
        ('{"format_version": 3, "n_rows": "x"', "not valid JSON (line 1, column 36): "),
        ('{"format_version": 3,\n "n_rows": 5,,}', "not valid JSON (line 2, column 14): "),
        ("[1,2,3]", "not a faircode profile: the top level is an array, not an object"),
        ("[[[[[[[[[[[[[[[[[[[[[[[[" * 50_000, "not valid JSON: nested too deep"),
        ('{"format_version": 99}', "a saved result of format_version 99; this faircode reads"),
        ('{"format_version": "3"}', 'a saved result of format_version "3"; this faircode'),
        ('{"some": "json"}', "a saved result, but not a profile (no n_rows, overall_score"),
        ('{"n_rows": 5, "dimensions": "oops"}', "not a faircode profile: format_version is "),
    ],
)
def test_a_json_file_is_never_read_as_a_table(text, says, tmp_path, capsys):
    """A file named *.json whose text starts with { or [ is a would-be saved profile: no
    CSV message about headers or data rows for it."""
    for name in ("p.json", "P.JSON"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        line = refused(capsys, path)
        assert line.startswith(f"faircode: error: {path}: {says}"), line


def test_a_json_file_that_is_not_utf8_names_the_byte(tmp_path, capsys):
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"format_version": 3, "n_rows": "\xe9"}')
    line = refused(capsys, path)
    assert line == f"faircode: error: {path}: not valid JSON (byte 33): not UTF-8 text{AGAIN}"


@pytest.mark.parametrize("rows", [3, 8000])  # shorter and longer than saved.PEEK (64 KiB)
@pytest.mark.parametrize("head", ["[id],sex,race", "{id},sex,race", '["id"],sex,race'])
def test_a_table_whose_first_cell_starts_with_a_bracket_is_a_table(head, rows, tmp_path):
    """Not named *.json and not one JSON text: read as data, as before."""
    path = tmp_path / "data.csv"
    body = "".join(f"{i},{'MF'[i % 2]},{'WB'[i % 3 % 2]}\n" for i in range(rows))
    path.write_text(f"{head}\n{body}", encoding="utf-8")
    result = faircode.compare(str(path), str(path))
    assert [d["name"] for d in result["dimensions"]] == ["sex", "race"]
    assert result["a"]["n_rows"] == rows


def test_a_saved_profile_by_another_name_is_still_one(tmp_path, capsys):
    """Its whole text is JSON: a saved profile whatever its name, broken or not."""
    text = saved_text()
    other = tmp_path / "other.csv"
    other.write_text(table(300, seed=8), encoding="utf-8")
    path = tmp_path / "baseline.profile"
    path.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "compare", path, other, "--label", "label")
    assert code == 0, err
    path.write_text(text.replace('"n_rows": ', '"n_rows": -'), encoding="utf-8")
    assert "not a faircode profile: n_rows is -400" in refused(capsys, path)
    # not JSON as a whole (a truncated one): read as a table, as before
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    code, _, err = run(capsys, "compare", path, other)
    assert code == 2 and "not valid JSON" not in err


# ---------------------------------------------------------------------------------------
# The validator and the schemas


def test_every_schema_compiles_with_only_known_keywords():
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        compile_schema(json.loads(path.read_text()))
    with pytest.raises(ValueError, match="not supported"):
        compile_schema({"type": "object", "$ref": "#/x"})


def test_the_validator_agrees_with_jsonschema_on_real_profiles(tmp_path):
    profile = compile_schema(json.loads((SCHEMAS / "profile.schema.json").read_text()))
    reference = jsonschema.Draft202012Validator(
        json.loads((SCHEMAS / "profile.schema.json").read_text())
    )
    data = tmp_path / "d.csv"
    data.write_text(table(), encoding="utf-8")
    for opts in ({}, OPTS, {"missing_by_group": False}, {"label": "label", "outcome": "income"}):
        result = json.loads(json.dumps(faircode.profile(str(data), opts=opts)))
        assert reference.is_valid(result)
        assert problem(result, profile) is None, opts


# ---------------------------------------------------------------------------------------
# Any corruption of a real saved profile: the same result, or one line (SPEC 8.1)

POOL = [None, True, False, 0, -1, 1, 2.5, 1e300, 10**20, "", "x", [], {}, math.nan, math.inf]
#: What compare reads of a profile ("*": any list index): a corruption elsewhere that is
#: still a valid profile leaves the result as it was.
READ = [
    tuple(p.split("."))
    for p in (
        "n_rows overall_score grade dimensions.*.name dimensions.*.kind "
        "dimensions.*.dimension_score dimensions.*.groups.*.label dimensions.*.groups.*.count "
        "label_rates.label label_rates.positive label_rates.dimensions.*.name "
        "label_rates.dimensions.*.groups.*.label label_rates.dimensions.*.groups.*.n "
        "label_rates.dimensions.*.groups.*.positive missing_by_group.*.dimension "
        "missing_by_group.*.columns.*.name missing_by_group.*.columns.*.missing_count "
        "missing_by_group.*.columns.*.groups.*.label "
        "missing_by_group.*.columns.*.groups.*.missing provenance.params provenance.overrides"
    ).split()
]


def _read(path: tuple) -> bool:
    def step(a, b) -> bool:
        return b == a or (b == "*" and isinstance(a, int))

    return any(all(step(a, b) for a, b in zip(path, leaf, strict=False)) for leaf in READ)


def _paths(value, at=()) -> list[tuple]:
    out = [at] if at else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*at, i))
    return out


def _corrupt(doc, path: tuple, action: str, value) -> tuple:
    *up, last = path
    parent = doc
    for step in up:
        parent = parent[step]
    if action == "replace":
        parent[last] = copy.deepcopy(value)
    elif action == "delete":
        del parent[last]
    elif action == "extra" and isinstance(parent[last], dict):
        parent[last]["zz_extra"] = copy.deepcopy(value)
        return (*path, "zz_extra")
    elif isinstance(parent, list):  # "repeat" an element of a list
        parent.insert(last, copy.deepcopy(parent[last]))
        return tuple(up)
    return path


@cache
def _valid() -> tuple[dict, list[tuple], dict]:
    """The saved profile, its paths, and what the test makes on its first example."""
    doc = json.loads(saved_text())
    return doc, _paths(doc), {}


@settings(max_examples=300)
@given(st.data())
def test_a_corrupted_saved_profile_compares_the_same_or_is_refused_in_one_line(
    tmp_path_factory, data
):
    doc, paths, cache_ = _valid()
    folder = tmp_path_factory.getbasetemp() / "corrupt"
    folder.mkdir(exist_ok=True)
    if not cache_:
        b = folder / "b.csv"
        b.write_text(table(300, seed=8), encoding="utf-8")
        cache_["b"] = json.loads(json.dumps(faircode.profile(str(b), opts=OPTS)))
        good = folder / "good.json"
        good.write_text(saved_text(), encoding="utf-8")
        cache_["result"] = faircode.compare(str(good), cache_["b"], opts=OPTS)
        cache_["schema"] = jsonschema.Draft202012Validator(
            json.loads((SCHEMAS / "profile.schema.json").read_text())
        )
    bad = copy.deepcopy(doc)
    touched = []
    for _ in range(data.draw(st.integers(1, 3), label="corruptions")):
        path = data.draw(st.sampled_from(paths), label="path")
        action = data.draw(st.sampled_from(["replace", "delete", "extra", "repeat"]))
        value = data.draw(st.sampled_from(POOL), label="value")
        try:
            touched.append(_corrupt(bad, path, action, value))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier corruption moved or removed the path
    file = folder / "bad.json"
    file.write_text(json.dumps(bad), encoding="utf-8")
    try:
        got = faircode.compare(str(file), cache_["b"], opts=OPTS)
    except InputError as err:
        text = str(err)
        assert text.startswith(f"{file}: ") and "\n" not in text, text
        return
    # accepted: then it is a valid profile by the schema, and a corruption of nothing
    # compare reads leaves the result as it was
    assert cache_["schema"].is_valid(bad), touched
    if not any(_read(p) for p in touched):
        assert got == cache_["result"], touched
