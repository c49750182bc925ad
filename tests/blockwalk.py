"""The walk over a profile's blocks (SPEC 6.1), shared by tests/surfaces/test_every_block.py
(the terminal, Markdown and CSV) and tests/website/test_site.py (the --html report, the
notebook's frame and the website).

One COMPAS profile with every optional block asked for (ARGS); ``blocks`` lists the
result's own top-level keys that a report draws; ``check_renderer`` asserts that each
block (and each key of a dimension's reference sub-block) has a marker for the renderer
and that the marker holds.
"""

from __future__ import annotations

from datafiles import data_file

import faircode
from faircode.reference import load_reference

COMPAS = "compas-scores-two-years.csv"
ARGS = [
    "--label", "two_year_recid", "--reference", "us-2024", "--outcome", "priors_count",
    "--cross", "sex,race", "--proxy-hints",
]  # fmt: skip

#: Top-level keys of a profile result that are not blocks a report draws, and why. Any
#: other key is a block, and every renderer must show it.
NOT_BLOCKS = {
    # the JSON's version (SPEC 6); no report prints it
    "format_version",
    # the headline (rows, columns, score, its interval, grade): every report's first
    # lines; tests/website/test_site.py and tests/surfaces/test_exports.py check its numbers
    "n_rows",
    "n_cols",
    "overall_score",
    "overall_ci",
    "grade",
    # where the result came from (SPEC 10): the JSON's record, not a report's block
    "provenance",
    # the header's names (SPEC 6): what compare reads to tell a column a side lacks
    # (17.6); the reports list the columns they profile in their own blocks
    "columns",
    # a bound of SPEC 0.9 reached: said by its flag, which the `flags` block checks
    "intersection_not_counted",
}


def profile_opts() -> dict:
    """The API options of ARGS."""
    table, _, _ = load_reference("us-2024")
    return {
        "label": "two_year_recid",
        "reference": table,
        "outcome": ["priors_count"],
        "cross": ["sex", "race"],
        "proxy_hints": True,
    }


def compas_result() -> faircode.ProfileResult:
    return faircode.profile(data_file(COMPAS), opts=profile_opts())


def blocks(result: dict) -> list[str]:
    return [k for k in result if k not in NOT_BLOCKS]


def reference_keys(d: dict) -> set[str]:
    ref = d["reference"]
    keys = set(ref)
    for g in ref["groups"]:
        keys |= set(g)
    return keys


def check_renderer(name: str, result: dict, out, markers: dict, reference) -> None:
    """Every block of ``result`` has a marker for renderer ``name`` and it holds."""
    unknown = [b for b in blocks(result) if b not in markers]
    assert unknown == [], f"{name}: no marker for the blocks {unknown} (a renderer must show them)"
    missing = [b for b in blocks(result) if not markers[b](out)]
    assert missing == [], f"{name} leaves out {missing}"
    dims = [d for d in result["dimensions"] if d.get("reference")]
    assert dims, "the case has a reference table"
    for d in dims:
        shown = reference(out, d)
        unknown = sorted(reference_keys(d) - set(shown))
        assert unknown == [], f"{name}: no check for the reference keys {unknown}"
        left_out = sorted(k for k in reference_keys(d) if not shown[k])
        assert left_out == [], f"{name} leaves out {d['name']}'s reference {left_out}"
