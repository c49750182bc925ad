"""Proxy hints in the terminal report (SPEC.md section 16): the block's tables, of one
profile and of a comparison's two sides. The statistics are :mod:`faircode.proxy_stats`."""

from __future__ import annotations

from collections.abc import Mapping

from .numerics import fmt, more_lines
from .proxy_stats import p_text

__all__ = ["SHOWN", "compare_lines", "feature_lines", "heading", "report_lines"]

#: Hints rows shown in the terminal report; --json lists all.
SHOWN = 20


def report_lines(block: dict) -> list[str]:
    """The terminal report's proxy table (SPEC 16)."""
    out = ["", heading(block) + ":"]
    hints = block["hints"]
    if not hints:
        out.append("  no pair tested")
    width = min(max((len(f"{h['a']} x {h['b']}") for h in hints[:SHOWN]), default=4), 40)
    for h in hints[:SHOWN]:
        pair = f"{h['a']} x {h['b']}"[:width].ljust(width)
        mark = "  associated" if h["significant"] else ""
        small = "  [small expected counts]" if h["small_expected"] else ""
        out.append(
            f"  {pair}  V {fmt(h['cramers_v'], 4)}  p {p_text(h['p_adjusted']).rjust(9)}"
            f"  ({h['method']}, n={h['n']}){mark}{small}"
        )
    out += more_lines("  ", len(hints), 0, SHOWN, "pairs")
    for nt in block["not_tested"]:
        out.append(f"  not tested: {nt['a']} x {nt['b']} ({nt['why']})")
    return out + feature_lines(block)


def feature_lines(block: dict) -> list[str]:
    """The terminal report's table of columns associated with a dimension (SPEC 16)."""
    rows = block.get("features", [])
    skipped = block.get("features_not_tested", [])
    if not rows and not skipped:
        return []
    out = ["", "Columns associated with a dimension (strongest first: V, or eta for numbers):"]
    width = min(max((len(f"{r['a']} x {r['b']}") for r in rows[:SHOWN]), default=4), 40)
    for r in rows[:SHOWN]:
        pair = f"{r['a']} x {r['b']}"[:width].ljust(width)
        if r["method"] == "anova":
            effect = f"eta2 {fmt(r['eta_squared'], 4)}"
        else:
            effect = f"V {fmt(r['cramers_v'], 4)}   "
        mark = "  associated" if r["significant"] else ""
        out.append(
            f"  {pair}  {effect}  p {p_text(r['p_adjusted']).rjust(9)}"
            f"  ({r['method']}, n={r['n']}){mark}"
        )
    out += more_lines("  ", len(rows), 0, SHOWN)
    if skipped:
        out.append(f"  not tested: {len(skipped)} dimension x column pairs (--json says why)")
    return out


def heading(block: dict) -> str:
    """`Proxy hints (chi-squared test of independence, alpha 0.05, p adjusted by holm)`
    without its colon: the terminal's and Markdown's heading of the block."""
    exact = ""
    if block["exact"]:
        exact = (
            f"; exact: Fisher for 2x2, else {block['permutations']} permutations, "
            f"seed {block['seed']}"
        )
    return (
        f"Proxy hints (chi-squared test of independence, alpha {block['alpha']}, "
        f"p adjusted by {block['correction']}{exact})"
    )


def compare_lines(blocks: Mapping[str, dict]) -> list[str]:
    """Hints of A and B side by side: one line per pair tested on either side."""
    a, b = blocks["a"], blocks["b"]
    out = ["", heading(a).replace("Proxy hints", "Proxy hints, A | B") + ":"]
    by_a = {(h["a"], h["b"]): h for h in a["hints"]}
    by_b = {(h["a"], h["b"]): h for h in b["hints"]}
    keys = list(by_a) + [k for k in by_b if k not in by_a]

    def cell(h: dict | None) -> str:
        if h is None:
            return "not tested".ljust(24)
        star = "*" if h["significant"] else " "
        return f"V {fmt(h['cramers_v'], 4)} p {p_text(h['p_adjusted']).rjust(9)}{star}"

    for key in keys[:SHOWN]:
        out.append(f"  {key[0]} x {key[1]}:  A {cell(by_a.get(key))}  |  B {cell(by_b.get(key))}")
    out += more_lines("  ", len(keys), 0, SHOWN, "pairs")
    out.append("  (* associated at alpha after the correction)")
    return out
