"""The fairness gate's verdict as the CLIs give it (SPEC 12.9): the exit code of a
report's status, and one stderr line per gated disparity that failed, is insufficient or
unmeasured. Shared by `fairness evaluate --gate` (:mod:`.cli`) and the store's `gate`
and `registry promote` (:mod:`.api`, :mod:`.control`)."""

from __future__ import annotations

from typing import Any

from ..errors import EXIT_FAIL, EXIT_INPUT, EXIT_INSUFFICIENT, EXIT_OK, EXIT_UNMEASURED
from ..safetext import shown

__all__ = [
    "GATE_EXITS",
    "WHEN_GATED",
    "gate_code",
    "gate_lines",
    "passed_caveat",
    "unmeasured_hint",
]

#: The gate's verdicts as exit codes in `evaluate --gate`'s help (SPEC 12.9).
WHEN_GATED = (
    f"exit {EXIT_FAIL} when a disparity exceeds the threshold, {EXIT_INSUFFICIENT} when the "
    f"evidence is insufficient, {EXIT_UNMEASURED} when unmeasured"
)
#: Every exit code of the store's `gate` in its help (SPEC 15.6).
GATE_EXITS = (
    f"exit {EXIT_OK} pass, {EXIT_FAIL} exceeded, {EXIT_INSUFFICIENT} insufficient evidence, "
    f"{EXIT_UNMEASURED} unmeasured, {EXIT_INPUT} error"
)


def gate_lines(report: dict[str, Any]) -> list[str]:
    """One stderr line per exceeded, insufficient and unmeasured gated disparity (SPEC
    12.9), for `evaluate --gate` and the store's `gate` alike."""
    from .render import ci_text, exact, insufficient_text, settle_text  # lazy: start-up

    rule = report["settings"].get("rule", "point")
    lines = []
    for f in report["failures"]:
        ci = "" if rule == "point" else f" (95% CI {ci_text(f['ci95'])})"
        lines.append(
            f"faircode: gate: FAIL {shown(f['group'])}: {f['metric']} = {exact(f['value'])}"
            f"{ci} > threshold {f['threshold']:g}"
        )
    for f in report.get("insufficient", []):
        settle = settle_text(f["rows_needed"])
        lines.append(
            f"faircode: gate: INSUFFICIENT {shown(f['group'])}: {f['metric']}"
            f"{shown(insufficient_text(f))}{settle}"
        )
    for u in report["unmeasured"]:
        lines.append(
            f"faircode: gate: UNMEASURED {shown(u['group'])}: {u['metric']}: {shown(u['reason'])}"
        )
    return lines


def unmeasured_hint(report: dict[str, Any], store: bool) -> str:
    """What would measure the report's unmeasured gated disparities (SPEC 12.8), from
    why their slices were left out: slices with no labelled rows want labels (the
    store's ``fairness label``, or ``evaluate``'s label column), slices with a value
    below the low-n guard a lower guard or more rows; anything else more data."""
    unlabelled, low = set(), set()
    for g in report["groups"]:
        n_labelled = {s["slice"]: s["n_labelled"] for s in g["slices"]}
        for d in g["disparities"]:
            if not d["gated"] or d["status"] not in ("unmeasured", "partly_measured"):
                continue
            for e in d["excluded_slices"]:
                key = (g["name"], e["slice"])
                if e["reason"] == "low-n":
                    low.add(key)
                elif n_labelled[e["slice"]] == 0:
                    unlabelled.add(key)
    hints = []
    if unlabelled:
        n = len(unlabelled)
        where = f"no labelled rows in {n} slice{'' if n == 1 else 's'}"
        hints.append(
            f"labels have not arrived ({where}): log them with 'faircode fairness label'"
            if store
            else f"labels are missing ({where}): fill them in the --label column"
        )
    if low:
        guard = "the registry's min_samples" if store else "--min-samples"
        hints.append(f"slices are below the low-n guard: lower {guard} or add rows")
    return "; ".join(hints) or "add data"


def passed_caveat(report: dict[str, Any], store: bool) -> str:
    """What a passing gate did not compare (SPEC 12.9): the slices a gated disparity left
    out below the low-n guard, named (at most 5) with the way to compare them; "" when it
    left none out. A pass is over the eligible slices only, and a 25-row slice at a rate
    of 1.0 against 0.3 elsewhere passed with no word of it."""
    low = []
    for g in report["groups"]:
        for d in g["disparities"]:
            if d["gated"]:
                for e in d["excluded_slices"]:
                    key = f"{shown(g['name'])}: {shown(e['slice'])}"
                    if e["reason"] == "low-n" and key not in low:
                        low.append(key)
    if not low:
        return ""
    n = len(low)
    named = ", ".join(low[:5]) + (f" and {n - 5:,} more" if n > 5 else "")
    guard = "the registry's min_samples" if store else "--min-samples"
    return (
        f"; {n:,} slice{'' if n == 1 else 's'} below the low-n guard not compared ({named}): "
        f"lower {guard} or add rows to compare {'it' if n == 1 else 'them'}"
    )


def gate_code(report: dict[str, Any]) -> int:
    """The exit code of a report's status (SPEC 12.9)."""
    return {
        "exceeded": EXIT_FAIL,
        "insufficient_evidence": EXIT_INSUFFICIENT,
        "unmeasured": EXIT_UNMEASURED,
    }.get(report["status"], EXIT_OK)
