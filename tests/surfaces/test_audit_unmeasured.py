"""Audit packs (SPEC 20): what a pack did not measure is said, never implied.

A reference that compares some dimensions or none, a file without a demographic column,
and the identification question the datasheet cannot answer: each case checks the pack
names what it left out, and prints no sentence over an empty set.
"""

from __future__ import annotations

import io
import json

import pytest
from util import ROOT

import faircode
from faircode.renderers import render_as

DATE = "2025-06-30"
SCHEMA_ART10 = json.loads((ROOT / "faircode" / "schemas" / "audit-art10.schema.json").read_text())


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
    profile = faircode.profile(_csv(data), None, {"reference": _ref()}, name="r.csv")
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
