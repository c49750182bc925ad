"""Audit packs (SPEC 20): what a pack did not measure is said, never implied.

A reference that compares some dimensions or none, a file without a demographic column,
and the identification question the datasheet cannot answer: each case checks the pack
names what it left out, and prints no sentence over an empty set.
"""

from __future__ import annotations

import io
import json

import pytest
from util import ROOT, data_file

import faircode
from faircode.renderers import render_as

DATE = "2025-06-30"
SCHEMA_ART10 = json.loads((ROOT / "faircode" / "schemas" / "audit-art10.schema.json").read_text())
SCHEMA_DATASHEET = json.loads(
    (ROOT / "faircode" / "schemas" / "audit-datasheet.schema.json").read_text()
)


def _csv(rows: list[str]) -> io.BytesIO:
    return io.BytesIO(("\n".join(rows) + "\n").encode("utf-8"))


def _part(doc: dict, article: str, title: str) -> dict:
    section = next(s for s in doc["sections"] if s["article"] == article)
    return next(p for p in section["parts"] if p["title"] == title)


def _table(part: dict, head: str) -> list[list]:
    found = [t["rows"] for t in part["tables"] if t["head"][0] == head]
    return found[0] if found else []


def _validate(doc: dict, schema: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(json.dumps(doc)), schema)


REPRESENTATIVENESS = "Representativeness against a population reference"


def test_art10_names_every_dimension_its_reference_does_not_compare():
    """SPEC 20.3: 10(3) lists every profiled dimension, compared or with why not, and the
    profile's reference notes that name no dimension; with nothing compared the part
    says "Not measured"."""
    # race only: us-2019 (sex, age) compares nothing
    data = ["race,outcome"] + ["White,0", "Black,1", "Asian,0"] * 50
    doc = faircode.audit_art10(_csv(data), reference="us-2019", audit_date=DATE, name="r.csv")
    profile = faircode.profile(_csv(data), opts={"reference": _ref()}, name="r.csv")
    part = _part(doc, "10(3)", REPRESENTATIVENESS)
    assert part["text"].startswith("Not measured: ")
    assert _table(part, "Dimension not compared") == [["race", "the reference has no entry for it"]]
    notes = [f["text"] for f in profile["findings"] if f["kind"] == "reference"]
    assert len(notes) == 2 and "'sex' matches no profiled dimension" in notes[0]
    assert _table(part, "The profile's notes on the reference (SPEC 9)") == [[t] for t in notes]
    assert not _table(part, "Dimension")  # no deviation table: nothing compared
    text = render_as("audit art10", "text", doc)
    assert "race                    the reference has no entry for it" in text
    assert notes[1] in text
    _validate(doc, SCHEMA_ART10)

    # sex compared, race not (no entry), age held labels no reference label matches
    data = ["sex,race,age"] + ["M,White,x", "F,Black,y"] * 100
    doc = faircode.audit_art10(
        _csv(data),
        reference="us-2019",
        audit_date=DATE,
        overrides={"age": "age"},
        name="s.csv",
    )
    part = _part(doc, "10(3)", REPRESENTATIVENESS)
    assert not part["text"].startswith("Not measured")
    assert [r[0] for r in _table(part, "Dimension")] == ["sex"]
    missed = dict(_table(part, "Dimension not compared"))
    assert missed["race"] == "the reference has no entry for it"
    assert missed["age"].startswith("age: no label matches the reference")
    _validate(doc, SCHEMA_ART10)


def _ref() -> list[dict]:
    from faircode.reference import load_reference

    return load_reference("us-2019")[0]


NO_DIMENSION = "Not measured: no demographic column detected (declare one with --map COLUMN=KIND)."


def test_art10_with_no_demographic_column_claims_nothing_of_its_groups():
    """SPEC 20, 20.3: no "Every group has at least 100 rows." over no group; the parts
    measured per dimension say "Not measured", their sections are not measured."""
    data = ["sex,age,charges,smoker"] + ["F,30,100,yes", "M,40,200,no"] * 120
    ignore = {"sex": "ignore", "age": "ignore"}
    doc = faircode.audit_art10(
        _csv(data), label="smoker", overrides=ignore, audit_date=DATE, name="i.csv"
    )
    by = {s["article"]: s for s in doc["sections"]}
    assert by["10(2)(h)"]["text"] == NO_DIMENSION
    assert [by[a]["measured"] for a in ("10(2)(f)", "10(2)(h)", "10(3)")] == [False] * 3
    assert _part(doc, "10(3)", "Completeness and errors")["text"] == NO_DIMENSION
    rates = _part(doc, "10(2)(f)", "Label base rates by group")
    assert rates["tables"] == [] and "Not measured by group" in rates["text"]
    for fmt in ("text", "markdown"):
        shown = render_as("audit art10", fmt, doc)
        assert "Every group" not in shown and "every group" not in shown
        assert "Data gaps and how to address them (not measured)" in shown
    _validate(doc, SCHEMA_ART10)
    # with a dimension the sections are measured and the sentence holds
    doc = faircode.audit_art10(_csv(data), audit_date=DATE, name="i.csv")
    assert all(s["measured"] for s in doc["sections"])
    assert "Every group has at least 100 rows." in doc["sections"][1]["text"]

    sheet = faircode.audit_datasheet(
        _csv(data), label="smoker", overrides=ignore, audit_date=DATE, name="i.csv"
    )
    by = {a["id"]: a for a in sheet["answers"]}
    assert by["missing"]["answer"].startswith("Not counted: ")
    assert "no implausible age" not in by["errors"]["answer"]
    assert "no coded label" not in by["errors"]["answer"]
    assert "per group is listed" not in by["label"]["answer"] and not by["label"]["tables"]
    assert "were not examined: sex, age." in by["sensitive"]["answer"]
    _validate(sheet, SCHEMA_DATASHEET)


@pytest.fixture(scope="module")
def compas_sheet():
    path = data_file("compas-scores-two-years.csv")
    return faircode.audit_datasheet(str(path), audit_date=DATE), str(path)


def test_datasheet_says_it_does_not_detect_identifiers(compas_sheet):
    """SPEC 20.2: the identification hint says faircode detects no identifiers, names the
    columns it set aside for their many values and the others as not examined; the
    sensitive answer lists every column of a sensitive kind, those set aside too."""
    from faircode.audit.measured import measures_in, resolve

    sheet, path = compas_sheet
    by = {a["id"]: a for a in sheet["answers"]}
    ident = by["identification"]
    assert ident["answered_by"] == "author"
    assert ident["answer"].startswith("faircode does not detect identifiers.")
    assert "dob (5,452 values)" in ident["answer"]
    assert (
        "did not examine the 52 other columns for identifiers: id, name, first, last,"
        in (ident["answer"])
    )
    assert "+40 more (question 4 lists every column)" in ident["answer"]
    profile = json.loads(render_as("profile", "json", faircode.profile(path)))
    for m in measures_in(sheet):
        assert resolve(profile, m["from"]) == m["value"]


def test_datasheet_lists_every_sensitive_column_set_aside_too(compas_sheet):
    """SPEC 20.2: COMPAS's `dob`, an age column the profile set aside for its 5,452
    values, is a sensitive column like the age dimensions."""
    by = {a["id"]: a for a in compas_sheet[0]["answers"]}
    (table,) = by["sensitive"]["tables"]
    rows = {r[0]: r for r in table["rows"]}
    assert list(rows) == ["sex", "dob", "age", "age_cat", "race"]  # column order
    assert rows["dob"][1] == "age" and rows["dob"][3]["value"] == 5452
    assert rows["dob"][2].startswith("found by name; set aside (5,452 distinct labels")
    assert by["sensitive"]["answer"].startswith("Yes: 5 columns reveal")
