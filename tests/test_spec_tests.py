"""Every numbered section of SPEC.md and SPEC-monitor.md names its tests.

The two files share one numbering (no number is in both). A section (`## N.` or `### N.M`; a `## N.` with subsections is covered by them) must have
a `Tests:` line whose entries exist: test files (`tests/test_x.py`, `tests/js/x.test.js`),
optionally `::test_name`, and case files (`tests/cases/NN-x.json`) holding a case whose
`spec` is that section. A section that specifies something not built yet says
`Tests: none yet (not built)` and is listed here, so the gap stays visible."""

from __future__ import annotations

import json
import re
from pathlib import Path

from util import ROOT

SPECS = (ROOT / "SPEC.md", ROOT / "SPEC-monitor.md")
HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)?)\.? ")
NOT_BUILT = "none yet (not built)"
KNOWN_NOT_BUILT: set[str] = set()


def numbered(spec: Path) -> list[tuple[str, str, list[str]]]:
    """(number, heading, lines up to the next numbered heading) of one spec file."""
    out: list[tuple[str, str, list[str]]] = []
    for line in spec.read_text(encoding="utf-8").splitlines():
        m = HEADING.match(line)
        if m:
            out.append((m.group(2), line, []))
        elif out:
            out[-1][2].append(line)
    return out


def sections() -> dict[str, list[str]]:
    """Section number -> its lines, over both spec files."""
    return {number: lines for spec in SPECS for number, _, lines in numbered(spec)}


def test_the_two_specs_share_no_section_number():
    seen: dict[str, str] = {}
    twice = []
    for spec in SPECS:
        for number, _, _ in numbered(spec):
            if number in seen:
                twice.append(f"{number}: in {seen[number]} and {spec.name}")
            seen[number] = spec.name
    assert not twice, twice
    assert {"12", "15"} <= {n for n, _, _ in numbered(SPECS[1])}


def test_every_numbered_section_names_existing_tests():
    found = sections()
    problems, not_built = [], set()
    for number, lines in found.items():
        has_subsections = any(k.startswith(number + ".") for k in found)
        entries = [
            e.strip(" `")
            for line in lines
            if line.startswith("Tests:")
            for e in line[len("Tests:") :].split(",")
        ]
        if not entries:
            if not has_subsections:
                problems.append(f"{number}: no Tests: line")
            continue
        for entry in entries:
            if entry == NOT_BUILT:
                not_built.add(number)
                continue
            path, _, name = entry.partition("::")
            file = ROOT / path
            if not file.is_file():
                problems.append(f"{number}: {path} does not exist")
            elif name and not re.search(
                rf"(def |test\(['\"]){re.escape(name)}\b", file.read_text(encoding="utf-8")
            ):
                problems.append(f"{number}: {path} has no test {name}")
            elif path.startswith("tests/cases/") and not any(
                c["spec"] == number for c in json.loads(file.read_text(encoding="utf-8"))
            ):
                problems.append(f"{number}: {path} has no case with spec {number!r}")
    assert not problems, problems
    assert not_built == KNOWN_NOT_BUILT, "update KNOWN_NOT_BUILT with the built sections"


def test_every_case_section_exists():
    found = sections()
    for path in sorted((ROOT / "tests" / "cases").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            assert case["spec"] in found, (path.name, case["name"])
