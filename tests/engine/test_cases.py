"""The hand-worked cases of tests/cases/ (format: tests/cases/README.md), Python engine.
tests/js/cases.test.js runs the same files through the JS engine."""

from __future__ import annotations

import io
import json
import re

import pytest
from util import ROOT

import faircode
from faircode import InputError
from faircode.options import spelling

CASES_DIR = ROOT / "tests" / "cases"
SEGMENT = re.compile(r"^([^\[#]*)(?:\[(#?)(.*)\])?(#?)$")


def load_cases() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            out.append((f"{path.stem}: {case['name']}", case))
    return out


def case_bytes(case: dict) -> bytes:
    return bytes.fromhex(case["csv_hex"]) if "csv_hex" in case else case["csv"].encode()


def resolve_path(result, path: str):
    """The value at path (see tests/cases/README.md); KeyError naming what is missing."""
    value = result
    for seg in path.split("."):
        key, by_index, pick, length = SEGMENT.match(seg).groups()
        if key:
            value = value[key]
        if pick is not None and by_index:
            value = value[int(pick)]
        elif pick is not None:
            found = [v for v in value if pick in (v.get("name"), v.get("label"))]
            if not found:
                raise KeyError(f"{path}: no element '{pick}'")
            value = found[0]
        if length:
            value = len(value)
    return value


CASES = load_cases()


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[n for n, _ in CASES])
def test_case(case):
    source = io.BytesIO(case_bytes(case))
    if "error" in case:
        # the cases are the JS engine's too, whose messages name the flags (SPEC 0.6)
        with pytest.raises(InputError) as err, spelling("flag"):
            faircode.profile(
                source, overrides=case.get("overrides"), opts=case.get("opts"), name="t.csv"
            )
        assert str(err.value) == case["error"]
        return
    result = faircode.profile(
        source, overrides=case.get("overrides"), opts=case.get("opts"), name="t.csv"
    )
    for path, want in case["expect"].items():
        assert resolve_path(result, path) == want, path


def test_every_case_names_a_spec_section_and_one_outcome():
    for name, case in CASES:
        assert re.fullmatch(r"\d+(\.\d+)?", case.get("spec", "")), name
        assert ("expect" in case) != ("error" in case), name
        assert ("csv" in case) != ("csv_hex" in case), name
