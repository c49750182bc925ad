"""Every numbered section of SPEC.md and SPEC-monitor.md names its engines, code and tests.

The two files share one numbering: no number is in both. Each numbered section (`## N.`
or `### N.M`) starts with an `Engines:` line (which implementations give its numbers), a
`Code:` line (the files that implement it, each optionally `::name` defined there) and,
unless it has subsections that do, a `Tests:` line whose entries exist: test files
(`tests/AREA/test_x.py`, `tests/js/x.test.js`), optionally `::test_name`, and case files
(`tests/cases/NN-x.json`) holding a case whose `spec` is that section. A section that
specifies something not built yet says `Tests: none yet (not built)` and is listed here,
so the gap stays visible."""

from __future__ import annotations

import json
import re
from pathlib import Path

from util import ROOT

SPECS = (ROOT / "SPEC.md", ROOT / "SPEC-monitor.md")
HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)?)\.? ")
NOT_BUILT = "none yet (not built)"
KNOWN_NOT_BUILT: set[str] = set()
ENGINES = ("Python", "JS", "Spark")
JS_ENGINE = "assets/profiler-engine.js"
SPARK_ENGINE = "faircode/spark.py"


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


def entries(lines: list[str], key: str) -> list[str]:
    """The comma-separated, backquoted entries of the section's `key:` lines."""
    return [
        e.strip(" `")
        for line in lines
        if line.startswith(key)
        for e in line[len(key) :].split(",")
        if e.strip(" `")
    ]


def engines_of(line: str) -> list[str]:
    """`Python and JS` -> [Python, JS]; `Python only` -> [Python]."""
    text = line.removesuffix(" only")
    return [e.strip() for e in re.split(r",| and ", text)]


def defines(text: str, name: str) -> bool:
    """Whether Python or JS source `text` defines `name` (def, class, constant, function)."""
    n = re.escape(name)
    return bool(
        re.search(
            rf"^\s*(?:async\s+)?(?:def|class)\s+{n}\b"
            rf"|^\s*{n}\s*(?::[^=\n]*)?=[^=]"
            rf"|\bfunction\s+{n}\s*\("
            rf"|\b(?:const|let|var)\s+{n}\s*=",
            text,
            re.MULTILINE,
        )
    )


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
        tests = entries(lines, "Tests:")
        if not tests:
            if not has_subsections:
                problems.append(f"{number}: no Tests: line")
            continue
        for entry in tests:
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


def test_every_numbered_section_starts_with_its_engines_and_code():
    """`Engines:` then `Code:` right after the heading (then `Tests:`, if any), each on
    one line; every Code entry exists, a name where it says; a JS section names the JS
    engine, a Spark section the Spark engine."""
    problems = []
    for spec in SPECS:
        for number, _, lines in numbered(spec):
            where = f"{spec.name} {number}"
            head = lines[1:3] if lines and lines[0] == "" else []
            if len(head) != 2 or not (
                head[0].startswith("Engines: ") and head[1].startswith("Code: ")
            ):
                problems.append(f"{where}: no Engines: and Code: lines after the heading")
                continue
            if len(lines) > 3 and lines[3] and not lines[3].startswith("Tests: "):
                problems.append(f"{where}: Code: is not one line ({lines[3][:40]!r})")
            engines = engines_of(head[0].removeprefix("Engines: "))
            if (
                not engines
                or any(e not in ENGINES for e in engines)
                or len(set(engines)) < len(engines)
            ):
                problems.append(f"{where}: Engines: {engines} (each one of {ENGINES})")
            if (len(engines) == 1) != head[0].endswith(" only"):
                problems.append(f"{where}: one engine is written 'X only', several are not")
            code = entries(head[1:], "Code:")
            if not code:
                problems.append(f"{where}: Code: names nothing")
            files = {c.partition("::")[0] for c in code}
            if "JS" in engines and JS_ENGINE not in files:
                problems.append(f"{where}: a JS section, Code: without {JS_ENGINE}")
            if "Spark" in engines and SPARK_ENGINE not in files:
                problems.append(f"{where}: a Spark section, Code: without {SPARK_ENGINE}")
            for entry in code:
                path, _, name = entry.partition("::")
                file = ROOT / path
                if not file.is_file():
                    problems.append(f"{where}: {path} does not exist")
                elif name and not defines(file.read_text(encoding="utf-8"), name):
                    problems.append(f"{where}: {path} defines no {name}")
    assert not problems, problems


def test_python_only_top_level_sections_say_so_in_their_heading():
    """In SPEC.md, a top-level section without the JS engine says `Python only` in its
    heading, and one whose heading says it lists no JS engine."""
    problems = []
    for number, heading, lines in numbered(SPECS[0]):
        if "." in number:
            continue
        engines = engines_of(lines[1].removeprefix("Engines: "))
        if ("JS" not in engines) != ("Python only" in heading):
            problems.append(f"{number}: {heading!r} with Engines: {engines}")
    assert not problems, problems


def test_the_checker_finds_definitions_and_misses_uses():
    python = "X = 1\nLIMIT: int = 5\ndef f(a):\n    return g(a) == X\nclass C:\n    pass\n"
    js = "  function roundHalfUp(x) {}\n  const LABEL_CAP = 1;\n  class CsvScanner {}\n"
    for name in ("X", "LIMIT", "f", "C"):
        assert defines(python, name), name
    for name in ("roundHalfUp", "LABEL_CAP", "CsvScanner"):
        assert defines(js, name), name
    for name in ("g", "a", "pass", "Y"):
        assert not defines(python, name), name
    assert not defines(js, "x") and not defines(js, "round")
    assert engines_of("Python, JS and Spark") == ["Python", "JS", "Spark"]
    assert engines_of("Python only") == ["Python"]


def test_every_case_section_exists():
    found = sections()
    for path in sorted((ROOT / "tests" / "cases").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            assert case["spec"] in found, (path.name, case["name"])


def test_the_specs_hold_no_history():
    """History ('issue 27', 'version 1 printed') lives in CHANGES.md: the specs state the
    rules and their reasons in the present tense (issue 29 item 4)."""
    found = [
        f"{spec.name}:{n}: {line.strip()[:80]}"
        for spec in SPECS
        for n, line in enumerate(spec.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bissues? \d+\b", line)
    ]
    assert not found, "\n".join(found)
